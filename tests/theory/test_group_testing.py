"""Group testing (Angluin lecture 28, the heavy coin): mbcore.queries.find_defective,
find_defectives and mbcore.bounds.group_testing_bound, with their twins in mbref.graphs.

* The lecture's example: 8 coins, the groups {000, 001, 010, 011}, {000, 001, 100, 101},
  {000, 010, 100, 110}; a coin in the third group only is 110.
* Every position of the defective for n = 1..40: found, with exactly ceil(log2 n) tests for
  the non-adaptive design, at most that many for binary search and exactly that many for
  some position (M(n, 1) = ceil(log2 n): the lecture's optimum).
* d defectives by binary splitting: every d-subset for small n, random ones for larger n,
  within d ceil(log2 n) (d known) and d (ceil(log2 n) + 1) + 1 (d unknown).
* Twin parity (the same tests in order), bad input, inconsistent answers named.

Expected values come from the lecture or are computed here (math.ceil(math.log2(n)), the
groups written out from the bits), never from the code under test.
"""

import itertools
import math
import random

import pytest

from mbcore import queries as Q
from mbcore.bounds import group_testing_bound
from mbref import graphs as R

# (the subset every built wheel is tested with: pytest -m smoke)
pytestmark = pytest.mark.smoke


def log2c(n):
    return math.ceil(math.log2(n)) if n > 1 else 0


class Weigher:
    def __init__(self, defectives):
        self.D = set(defectives)
        self.log = []

    def __call__(self, S):
        S = tuple(S)
        self.log.append(S)
        return bool(self.D & set(S))


def test_lecture_example_eight_coins():
    t = Weigher({6})
    res = Q.find_defective(8, t, adaptive=False)
    # the lecture's groups, written out: (1) first bit 0, (2) second bit 0, (3) third bit 0
    assert t.log == [(0, 1, 2, 3), (0, 1, 4, 5), (0, 2, 4, 6)]
    assert [a for _, a in res.record] == [False, False, True]
    assert res.defectives == (6,) and res.tests == 3 == res.bound and res.held
    assert not res.adaptive


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_every_position_small_n(mod):
    for n in range(1, 41):
        k = log2c(n)
        worst = 0
        for x in range(n):
            t = Weigher({x})
            res = mod.find_defective(n, t, adaptive=False)
            assert res.defectives == (x,)
            assert res.tests == len(t.log) == k                    # exactly ceil(log2 n)
            # group b holds the items whose b-th bit (most significant first) is 0
            for b, S in enumerate(t.log):
                assert S == tuple(i for i in range(n) if (i >> (k - 1 - b)) & 1 == 0)
            t = Weigher({x})
            res = mod.find_defective(n, t)
            assert res.defectives == (x,) and res.tests == len(t.log) <= k
            assert res.bound == k and res.held
            worst = max(worst, res.tests)
        assert worst == k                                          # optimal, and attained


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_d_defectives_all_subsets_small_n(mod):
    for n in range(1, 10):
        for d in range(0, min(n, 4) + 1):
            for D in itertools.combinations(range(n), d):
                t = Weigher(D)
                res = mod.find_defectives(n, t, d=d)
                assert res.defectives == D
                assert res.tests == len(t.log) <= d * log2c(n)
                t = Weigher(D)
                res = mod.find_defectives(n, t)
                assert res.defectives == D
                assert res.tests <= d * (log2c(n) + 1) + 1


@pytest.mark.parametrize("seed", range(10))
def test_d_defectives_random(seed):
    rnd = random.Random(seed)
    n = rnd.choice([50, 100, 1000, 4096, 5000])
    d = rnd.randint(0, 12)
    D = tuple(sorted(rnd.sample(range(n), d)))
    res = Q.find_defectives(n, Weigher(D), d=d)
    assert res.defectives == D and res.tests <= d * log2c(n) and res.held
    assert res.bound == d * log2c(n)
    res = Q.find_defectives(n, Weigher(D))
    assert res.defectives == D and res.tests <= d * (log2c(n) + 1) + 1 and res.held
    # twin: the same tests in the same order
    a, b = Weigher(D), Weigher(D)
    Q.find_defectives(n, a)
    R.find_defectives(n, b)
    assert a.log == b.log


def test_bound_function():
    for n in (1, 2, 3, 8, 9, 1000):
        assert group_testing_bound(n) == log2c(n) == R.group_testing_bound(n)
        for d in range(0, min(n, 5) + 1):
            assert group_testing_bound(n, d) == d * log2c(n)
            assert group_testing_bound(n, d, known=False) == d * (log2c(n) + 1) + 1
    with pytest.raises(ValueError, match="d must be <= n"):
        group_testing_bound(3, 4)
    with pytest.raises(ValueError, match="n"):
        group_testing_bound(0)


def test_twin_find_defective_parity():
    for n in (1, 5, 16, 33):
        for x in range(n):
            for adaptive in (True, False):
                a, b = Weigher({x}), Weigher({x})
                ra = Q.find_defective(n, a, adaptive=adaptive)
                rb = R.find_defective(n, b, adaptive=adaptive)
                assert a.log == b.log and ra.defectives == rb.defectives
                assert (ra.tests, ra.bound, ra.held) == (rb.tests, rb.bound, rb.held)


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_bad_input_and_inconsistent_answers(mod):
    for n in (0, -3, 1.5, True, None):
        with pytest.raises(ValueError, match="n"):
            mod.find_defective(n, lambda S: True)
        with pytest.raises(ValueError, match="n"):
            mod.find_defectives(n, lambda S: True)
    with pytest.raises(TypeError, match="test"):
        mod.find_defective(4, None)
    with pytest.raises(ValueError, match="adaptive"):
        mod.find_defective(4, lambda S: True, adaptive="no")
    with pytest.raises(ValueError, match="d must be <= n"):
        mod.find_defectives(4, lambda S: True, d=5)
    for ans in (None, 2, "yes"):
        with pytest.raises(mod.InconsistentOracleError, match="answered"):
            mod.find_defective(4, lambda S, a=ans: a)
    # n = 5 needs 3 bits; all answers 0 spell 111 = 7, not an item: no single defective fits
    with pytest.raises(mod.InconsistentOracleError, match="spell the item 7"):
        mod.find_defective(5, lambda S: False, adaptive=False)
    with pytest.raises(mod.QueryBudgetExceeded, match="max_tests=4"):
        mod.find_defectives(64, lambda S: True, max_tests=4)
    # an always-positive test: every item is defective, and the run ends
    assert mod.find_defectives(9, lambda S: True).defectives == tuple(range(9))
