"""Group testing (Angluin lecture 28, the heavy coin): mbcore.queries.find_defective,
find_defectives and mbcore.bounds.group_testing_bound, with their twins in mbref.queries.graphs.

* The lecture's example: 8 coins, the groups {000, 001, 010, 011}, {000, 001, 100, 101},
  {000, 010, 100, 110}; a coin in the third group only is 110.
* Every position of the defective for n = 1..40: found, with exactly ceil(log2 n) tests for
  the non-adaptive design (one more for the item n - 1 that no group holds when n is a power
  of two), at most ceil(log2(n + 1)) for binary search and exactly that many for some position
  (the lecture's optimum ceil(log2 n) under the promise of one defective; n + 1 possibilities
  when "none" must be told apart too).
* d defectives by binary splitting: every d-subset for small n, random ones for larger n,
  within d ceil(log2(n + 1)) (d known) and d (ceil(log2 n) + 1) + 1 (d unknown).
* A test that never fires, or answers that fit no set of defectives, raise
  InconsistentOracleError in every form (never a confident answer): an item is named only
  when a positive test held it, and every answer fits the items named.
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
from mbref.queries import graphs as R

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
    assert res.defectives == (6,) and res.tests == 3 and res.held
    # the bound tells the 8 coins and "none" apart: ceil(log2 9) = 4 (coin 7, in no group,
    # is weighed alone once the three answers name it)
    assert res.bound == 4
    assert not res.adaptive


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_every_position_small_n(mod):
    for n in range(1, 41):
        k = log2c(n)
        power = n & (n - 1) == 0
        worst = 0
        for x in range(n):
            t = Weigher({x})
            res = mod.find_defective(n, t, adaptive=False)
            assert res.defectives == (x,)
            # group b holds the items whose b-th bit (most significant first) is 0
            for b, S in enumerate(t.log[:k]):
                assert S == tuple(i for i in range(n) if (i >> (k - 1 - b)) & 1 == 0)
            if power and x == n - 1:
                # 11...1 is in no group: the K negative answers name it, and it is weighed
                # alone
                assert res.tests == len(t.log) == k + 1 and t.log[-1] == (x,)
            else:
                assert res.tests == len(t.log) == k                # exactly ceil(log2 n)
            assert res.bound == log2c(n + 1) and res.held
            t = Weigher({x})
            res = mod.find_defective(n, t)
            assert res.defectives == (x,) and res.tests == len(t.log) <= log2c(n + 1)
            assert res.bound == log2c(n + 1) and res.held
            worst = max(worst, res.tests)
        assert worst == log2c(n + 1)                               # the bound is attained


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_d_defectives_all_subsets_small_n(mod):
    for n in range(1, 10):
        for d in range(0, min(n, 4) + 1):
            for D in itertools.combinations(range(n), d):
                t = Weigher(D)
                res = mod.find_defectives(n, t, d=d)
                assert res.defectives == D
                assert res.tests == len(t.log) <= d * log2c(n + 1) == res.bound
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
    assert res.defectives == D and res.tests <= d * log2c(n + 1) and res.held
    assert res.bound == d * log2c(n + 1)
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


def never(S):
    return False


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_a_test_that_never_fires_is_refused(mod):
    """find_defective(20, lambda S: False) named item 19 (adaptive), which no test held; every
    form must refuse an oracle whose answers fit no single defective (no set of d)."""
    for n in range(1, 41):
        for adaptive in (True, False):
            with pytest.raises(mod.InconsistentOracleError, match="fit") as info:
                mod.find_defective(n, never, adaptive=adaptive)
            q = info.value.query
            # the binary search ends at the last item and weighs it alone; the design weighs
            # item n - 1 alone when n is a power of two (11...1 is then an item), and else
            # refuses the answers that spell a number >= n
            if adaptive or n & (n - 1) == 0:
                assert q == (n - 1,) and info.value.answer is False
            for d in range(1, min(n, 3) + 1):
                with pytest.raises(mod.InconsistentOracleError, match="fit no set of"):
                    mod.find_defectives(n, never, d=d)
        # d unknown: the remaining items test negative, and none is the answer that fits
        res = mod.find_defectives(n, never)
        assert res.defectives == () and res.tests == 1


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_answers_that_fit_no_set_of_defectives(mod):
    # 4 items, a test that fires on groups of 3 or more: no set of defectives does (a set that
    # meets a group meets one of its single items).  Traced by hand:
    three = lambda S: len(S) >= 3                                    # noqa: E731
    # binary search: {0, 1} no, {2} no: item 3 is left, held by no test, and weighed alone: no
    with pytest.raises(mod.InconsistentOracleError) as info:
        mod.find_defective(4, three)
    assert info.value.query == (3,)
    # the design: {0, 1} no, {0, 2} no spell 11 = 3, in no group; weighed alone: no
    with pytest.raises(mod.InconsistentOracleError) as info:
        mod.find_defective(4, three, adaptive=False)
    assert info.value.query == (3,)
    # d unknown: {0..3} yes, {0, 1} no, {2} no -> 3; {0, 1, 2} yes, {0, 1} no -> 2; {0, 1} no.
    # Found {2, 3}, but the test of {2} said no (main returned (2, 3))
    with pytest.raises(mod.InconsistentOracleError, match="no set of defectives") as info:
        mod.find_defectives(4, three)
    assert info.value.query == (2,) and info.value.answer is False
    # d known: {0, 1} no, {2} no, then 3 alone: no
    for d in (1, 2):
        with pytest.raises(mod.InconsistentOracleError, match=f"no set of {d} defective"):
            mod.find_defectives(4, three, d=d)


def noisy(seed, p):
    """An oracle answering at random, the same answer for the same group every time."""
    def test(S):
        return random.Random(f"{seed}:{tuple(S)}").random() < p
    return test


def fits(record, D):
    return all(a == bool(set(D) & set(S)) for S, a in record)


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_any_oracle_answer_fits_or_is_refused(mod):
    """Whatever the oracle, a result names only items that a positive test held, and every
    answer of its record fits the items named; otherwise InconsistentOracleError."""
    for seed in range(300):
        n = 1 + seed % 23
        p = (0.1, 0.5, 0.9)[seed % 3]
        for call in (lambda t: mod.find_defective(n, t),
                     lambda t: mod.find_defective(n, t, adaptive=False),
                     lambda t: mod.find_defectives(n, t),
                     lambda t: mod.find_defectives(n, t, d=1 + seed % min(n, 3))):
            try:
                res = call(noisy(seed, p))
            except mod.InconsistentOracleError:
                continue
            assert fits(res.record, res.defectives), (seed, res.record, res.defectives)
            for x in res.defectives:
                assert any(a and x in S for S, a in res.record), (seed, x, res.record)
            assert res.tests == len(res.record) and res.held


def test_twin_parity_on_any_oracle():
    """The same tests, the same result or the same error, in mbcore and mbref."""
    for seed in range(200):
        n = 1 + seed % 19
        p = (0.0, 0.3, 0.7)[seed % 3]
        for name, kw in (("find_defective", {}), ("find_defective", {"adaptive": False}),
                         ("find_defectives", {}), ("find_defectives", {"d": 1 + seed % n})):
            out = []
            for mod in (Q, R):
                log = []
                t = noisy(seed, p)
                try:
                    res = getattr(mod, name)(n, lambda S, t=t: log.append(tuple(S)) or t(S),
                                             **kw)
                    out.append((log, res.defectives, res.tests, res.bound, res.held))
                except mod.InconsistentOracleError as exc:
                    out.append((log, str(exc), exc.query, exc.answer))
            assert out[0] == out[1], (seed, name, kw)


@pytest.mark.parametrize("mod", [Q, R], ids=["mbcore", "mbref"])
def test_repr_shows_the_attribute(mod):
    # the repr showed defectives=[13] while the attribute is the tuple (13,)
    res = mod.find_defective(16, lambda S: 13 in S)
    assert res.defectives == (13,)
    assert repr(res).startswith("GroupTestResult(defectives=(13,), ")
    res = mod.find_defectives(64, lambda S: bool({5, 40} & set(S)), d=2)
    assert repr(res).startswith("GroupTestResult(defectives=(5, 40), ")
