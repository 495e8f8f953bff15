"""Angluin's L*: mbcore.queries.lstar and its oracles, against the twin mbref.queries.

Sections
--------
1. The golden case: Angluin's example language (1987, section 5: the words over {0, 1} with an
   even number of 0's and an even number of 1's), run by hand from the rules of L* (with the
   tie conventions of mbcore.queries.regular) and an exact, shortest-least equivalence oracle,
   for each processing: the words asked in order, the counterexamples, the tables, the query
   counts.  (The lecture notes,
   lectures 26-27, describe L* without a worked example; the trace below is written out from
   the rules, and every membership answer is the parity rule applied to the word.)
2. Random minimal DFAs (seeded) learned exactly with every processing: the hypothesis accepts
   the target's language and has exactly n states; the bounds hold (recomputed here from the
   formulas of Angluin 1987 / Rivest-Schapire 1993); the twin gives the same hypothesis, the
   same counts, counterexamples and tables; batch and per-word oracles ask the same words.
3. The oracles: exact (shortest least counterexample), sampling (the sample sizes of lecture
   25 recomputed here; the counterexample misclassified), W-method (exact when the bound on
   the states holds; brute-force check that a wrong hypothesis always gets a counterexample).
4. Bad oracles: non-bool answers, answers that change (recheck), counterexamples that are not
   counterexamples, letters outside the alphabet, a target that is not regular (stopped by
   max_states / max_rounds, named): always an exception naming the word or a named stop,
   never an endless loop.
5. Bad parameters; run_dfa_demo.
"""

import itertools
import math
import random

import numpy as np
import pytest

import mbref.queries as R
from mbcore.bounds import lstar_equivalence_bound, lstar_membership_bound
from mbcore.exceptions import InconsistentOracleError
from mbcore.queries import (DFA, DFAEquivalenceOracle, DFAMembershipOracle, DFATraceOracle,
                            SamplingEquivalenceOracle, WMethodEquivalenceOracle, lstar,
                            run_dfa_demo)

# (the subset every built wheel is tested with: pytest -m smoke)
pytestmark = pytest.mark.smoke

PROCESSINGS = ["rivest-schapire", "angluin", "suffixes"]


def even_even(word):
    """Angluin's example language, by its definition."""
    return word.count("0") % 2 == 0 and word.count("1") % 2 == 0


def words_upto(alphabet, L):
    for n in range(L + 1):
        yield from itertools.product(alphabet, repeat=n)


class Recorder:
    """A plain membership oracle (no batch method) that records the words asked."""

    def __init__(self, f):
        self.f = f
        self.asked = []

    def __call__(self, word):
        self.asked.append("".join(word))
        return self.f("".join(word))


def exact_eq(language, alphabet, L):
    """The shortest least counterexample by enumeration (lengths up to L), written here."""
    def eq(h):
        for w in words_upto(alphabet, L):
            if h.accepts(w) != language("".join(w)):
                return w
        return None
    return eq


# -- 1. the golden case ----------------------------------------------------------------------------

GOLDEN = {
    # Angluin's processing: H1 from S = (e, 0), E = (e); the shortest counterexample is "10"
    # (H1 accepts it, it has one 0); S gets 1 and 10; the table is closed, but rows 0, 1, 10
    # agree while rows 00 and 10 do not: E gets "0"; then rows 1 and 10 agree while 11 and
    # 101 do not: E gets "1"; the 4-state hypothesis is right.
    "angluin": dict(
        asked=["", "0", "1", "00", "01", "10", "11", "100", "101",
               "000", "010", "110", "1000", "1010",
               "001", "011", "111", "1001", "1011"],
        counterexamples=["10"], equivalence_queries=2,
        table_sizes=[(2, 3, 1), (4, 5, 3)],
        prefixes=["", "0", "1", "10"], suffixes=["", "0", "1"]),
    # Rivest-Schapire: "10" gives alpha(0) = MQ(10) = 0 != alpha(1) = MQ(0.0) = 1, so the
    # suffix "0" joins E and "1" moves to S (3 states); the next shortest counterexample is
    # "011" (the 3-state hypothesis accepts it); alpha(1) = MQ(0 . 11) = 0 = alpha(0), so the
    # suffix is "1"; "01" moves to S; 4 states.
    "rivest-schapire": dict(
        asked=["", "0", "1", "00", "01", "10", "000", "010", "100", "11", "110",
               "011", "001", "101", "111", "0100", "0101", "0110", "0111"],
        counterexamples=["10", "011"], equivalence_queries=3,
        table_sizes=[(2, 3, 1), (3, 4, 2), (4, 5, 3)],
        prefixes=["", "0", "1", "01"], suffixes=["", "0", "1"]),
    # all suffixes of "10" (shortest first: "0", "10") join E; 1 and 01 move to S.
    "suffixes": dict(
        asked=["", "0", "1", "00", "01", "10", "000", "010", "110", "0010", "0110",
               "100", "1010", "11", "1110", "0100", "01010", "011", "01110"],
        counterexamples=["10"], equivalence_queries=2,
        table_sizes=[(2, 3, 1), (4, 5, 3)],
        prefixes=["", "0", "1", "01"], suffixes=["", "0", "10"]),
}


@pytest.mark.parametrize("processing", PROCESSINGS)
@pytest.mark.parametrize("impl", ["mbcore", "mbref"])
def test_golden_angluin_example(processing, impl):
    g = GOLDEN[processing]
    mq = Recorder(even_even)
    eq_calls = []
    eq0 = exact_eq(even_even, "01", 8)

    def eq(h):
        eq_calls.append(h.n_states)
        return eq0(h)

    run = lstar if impl == "mbcore" else R.lstar
    res = run("01", mq, eq, counterexamples=processing)
    assert mq.asked == g["asked"]
    assert res.membership_queries == res.distinct_membership_queries == len(g["asked"])
    assert ["".join(z) for z in res.counterexamples] == g["counterexamples"]
    assert res.equivalence_queries == g["equivalence_queries"] == len(eq_calls)
    assert res.table_sizes == g["table_sizes"]
    assert ["".join(s) for s in res.prefixes] == g["prefixes"]
    assert ["".join(e) for e in res.suffixes] == g["suffixes"]
    assert res.exact and res.stopped is None and res.hypothesis.n_states == 4
    for w in words_upto("01", 8):
        assert res.hypothesis.accepts(w) == even_even("".join(w))
    # Angluin's bound, by hand: n = 4, k = 2, m = longest counterexample
    m = max(len(z) for z in g["counterexamples"])
    expect = {"angluin": 3 * (4 + m * 3) * 4,
              "rivest-schapire": 3 * 16 + 3 * (1 + math.ceil(math.log2(m))),
              "suffixes": 3 * 4 * (1 + 3 * m)}[processing]
    assert res.bounds["membership_queries"].bound == expect
    assert res.bounds["equivalence_queries"].bound == 4 and res.bounds_held


def test_golden_with_dfa_oracles_in_batches():
    target = DFA("01", [[1, 2], [0, 3], [3, 0], [2, 1]], [True, False, False, False])
    for w in words_upto("01", 6):                     # the target is the language
        assert target.accepts(w) == even_even("".join(w))
    for p in PROCESSINGS:
        mq = DFAMembershipOracle(target)
        eq = DFAEquivalenceOracle(target)
        res = lstar("01", mq, eq, counterexamples=p)
        assert mq.calls == res.membership_queries == len(GOLDEN[p]["asked"])
        assert eq.calls == GOLDEN[p]["equivalence_queries"]


# -- 2. random minimal targets ---------------------------------------------------------------------

def tables(d):
    return np.asarray(d.delta).tolist(), [bool(a) for a in d.accepting], d.start


CASES = [(n, k, seed) for n, k in [(1, 1), (1, 3), (2, 1), (3, 2), (6, 1), (8, 3), (20, 2),
                                   (30, 4), (60, 2)] for seed in (0, 1)]


@pytest.mark.parametrize("processing", PROCESSINGS)
@pytest.mark.parametrize("n,k,seed", CASES)
def test_random_targets_learned_exactly_with_twin_parity(n, k, seed, processing):
    letters = "abcd"[:k]
    target = DFA.random(n, letters, seed=seed, minimal=True)
    assert target.n_states == n
    mq, eq = DFAMembershipOracle(target), DFAEquivalenceOracle(target)
    res = lstar(letters, mq, eq, counterexamples=processing)
    h = res.hypothesis
    assert res.exact and res.stopped is None
    assert target.equivalent(h) is None and h.n_states == n
    assert tables(h.minimize()) == tables(target)
    assert mq.calls == res.membership_queries and eq.calls == res.equivalence_queries
    # the bounds, recomputed here
    m = max(res.counterexample_lengths, default=0)
    assert res.equivalence_queries <= n
    if processing == "angluin":
        bound = (k + 1) * (n + m * (n - 1)) * n
    elif processing == "rivest-schapire":
        bound = (k + 1) * n * n + (n - 1) * (1 + (math.ceil(math.log2(m)) if m > 1 else 0))
    else:
        bound = (k + 1) * n * (1 + (n - 1) * m)
    assert res.membership_queries <= bound
    assert res.bounds["membership_queries"].bound == bound and res.bounds_held
    # the table sizes stay within the proofs' bounds
    for S, SA, E in res.table_sizes:
        assert SA <= k * S and E <= (n if processing != "suffixes" else 1 + (n - 1) * m)
        assert S <= (n if processing != "angluin" else n + m * (n - 1))
    # the twin
    rt = R.DFA.random(n, letters, seed=seed, minimal=True)
    rres = R.lstar(letters, R.DFAMembershipOracle(rt), R.DFAEquivalenceOracle(rt),
                   counterexamples=processing)
    assert tables(rres.hypothesis) == tables(h)
    for name in ("membership_queries", "distinct_membership_queries", "equivalence_queries",
                 "counterexamples", "counterexample_lengths", "table_sizes", "prefixes",
                 "suffixes", "exact", "stopped", "bounds_held"):
        assert getattr(rres, name) == getattr(res, name), name
    # a plain callable (no batches) asks the same number of words
    plain = lstar(letters, lambda w: target.accepts(w), eq, counterexamples=processing)
    assert plain.membership_queries == res.membership_queries
    assert tables(plain.hypothesis) == tables(h)


def test_hypothesis_is_consistent_with_every_answer():
    target = DFA.random(25, "abc", seed=4, minimal=True)
    asked = {}

    def mq(w):
        asked[tuple(w)] = target.accepts(w)
        return asked[tuple(w)]

    res = lstar("abc", mq, DFAEquivalenceOracle(target), counterexamples="angluin")
    assert all(res.hypothesis.accepts(w) == a for w, a in asked.items())


# -- 3. oracles ------------------------------------------------------------------------------------

def test_exact_oracle_is_shortest_least():
    target = DFA.random(7, "ab", seed=3, minimal=True)
    rng = random.Random(0)
    for _ in range(20):
        h = DFA("ab", [[rng.randrange(4) for _ in range(2)] for _ in range(4)],
                [rng.random() < 0.5 for _ in range(4)])
        # Moore's bound: a difference, if any, has length <= 4 + 7 - 2
        expect = next((w for w in words_upto("ab", 9) if h.accepts(w) != target.accepts(w)),
                      None)
        assert DFAEquivalenceOracle(target)(h) == expect


def test_sampling_oracle_sample_sizes_and_counterexamples():
    target = DFA.random(12, "ab", seed=2, minimal=True)
    eps, delta = 0.1, 0.2
    eq = SamplingEquivalenceOracle(target, "ab", epsilon=eps, delta=delta, seed=5,
                                   max_length=10)
    wrong = DFA("ab", [[0, 0]], [True])
    total = 0
    for i in range(1, 5):
        before = eq.examples
        z = eq(wrong)
        m_i = math.ceil((1 / eps) * math.log(2 ** i / delta))     # lecture 25
        total += m_i
        assert eq.examples - before == m_i and eq.calls == i
        assert z is not None and wrong.accepts(z) != target.accepts(z) and len(z) <= 10
    assert eq.examples == total
    # the twin draws the same words
    rq = R.SamplingEquivalenceOracle(R.DFA.random(12, "ab", seed=2, minimal=True), "ab",
                                     epsilon=eps, delta=delta, seed=5, max_length=10)
    eq2 = SamplingEquivalenceOracle(target, "ab", epsilon=eps, delta=delta, seed=5,
                                    max_length=10)
    for _ in range(3):
        assert eq2(wrong) == rq(R.DFA("ab", [[0, 0]], [True]))


@pytest.mark.parametrize("seed", range(4))
def test_lstar_with_sampling_is_probably_approximately_correct(seed):
    target = DFA.random(15, "ab", seed=seed, minimal=True)
    eq = SamplingEquivalenceOracle(target, "ab", epsilon=0.02, delta=0.05, seed=seed,
                                   max_length=30)
    res = lstar("ab", DFAMembershipOracle(target), eq)
    assert res.exact
    # error under the sampling distribution, estimated on fresh words
    rng = random.Random(1000 + seed)
    words = [tuple(rng.choice("ab") for _ in range(rng.randrange(31))) for _ in range(4000)]
    err = np.mean(res.hypothesis.accepts_many(words) != target.accepts_many(words))
    assert err <= 0.05
    twin = R.lstar("ab", R.DFAMembershipOracle(R.DFA.random(15, "ab", seed=seed, minimal=True)),
                   R.SamplingEquivalenceOracle(R.DFA.random(15, "ab", seed=seed, minimal=True),
                                               "ab", epsilon=0.02, delta=0.05, seed=seed,
                                               max_length=30))
    assert twin.membership_queries == res.membership_queries
    assert tables(twin.hypothesis) == tables(res.hypothesis)


@pytest.mark.parametrize("seed", range(4))
def test_w_method_is_exact_under_its_state_bound(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    target = DFA.random(n, "ab", seed=seed, minimal=True)
    eq = WMethodEquivalenceOracle(target, max_states=n + 1)
    res = lstar("ab", DFAMembershipOracle(target), eq)
    assert res.exact and target.equivalent(res.hypothesis) is None and eq.calls >= 1
    # any wrong hypothesis with at most n states gets a counterexample, which is one
    for _ in range(15):
        m = rng.randint(1, n)
        h = DFA("ab", [[rng.randrange(m) for _ in range(2)] for _ in range(m)],
                [rng.random() < 0.5 for _ in range(m)])
        z = WMethodEquivalenceOracle(target, max_states=n)(h)
        if target.equivalent(h) is None:
            assert z is None
        else:
            assert z is not None and h.accepts(z) != target.accepts(z)


def test_oracles_bad_input():
    t = DFA("ab", [[0, 0]], [True])
    with pytest.raises(TypeError, match="DFAMembershipOracle: parameter target must be a DFA"):
        DFAMembershipOracle("ab")
    with pytest.raises(TypeError, match="DFAEquivalenceOracle: parameter target must be a DFA"):
        DFAEquivalenceOracle(3)
    with pytest.raises(ValueError, match="SamplingEquivalenceOracle: parameter epsilon must be "
                                         "in \\(0, 1\\)"):
        SamplingEquivalenceOracle(t, "ab", epsilon=0)
    with pytest.raises(ValueError, match="SamplingEquivalenceOracle: parameter max_length"):
        SamplingEquivalenceOracle(t, "ab", max_length=-1)
    with pytest.raises(ValueError, match="WMethodEquivalenceOracle: parameter max_states"):
        WMethodEquivalenceOracle(t, max_states=0)


# -- 4. bad oracles -------------------------------------------------------------------------------

@pytest.mark.parametrize("run", [lstar, R.lstar])
def test_non_bool_answer_named(run):
    with pytest.raises(ValueError, match="answered 'yes' for the word \\(\\)"):
        run("ab", lambda w: "yes", lambda h: None)


@pytest.mark.parametrize("impl", ["mbcore", "mbref"])
def test_changing_answers_caught_by_recheck(impl):
    target = DFA("ab", [[1, 0], [0, 1]], [True, False])
    count = {}

    def flaky(w):
        w = tuple(w)
        count[w] = count.get(w, 0) + 1
        a = target.accepts(w)
        return (not a) if count[w] > 1 else a     # changes its mind when asked again

    wrong_first = iter([("a", "a", "b")])

    def eq(h):   # a counterexample the first hypothesis (2 states, exact) does not have...
        return next(wrong_first, None)

    run = lstar if impl == "mbcore" else R.lstar
    with pytest.raises(ValueError, match="answered (True|False) for the word \\('a', 'a', "
                                         "'b'\\), which it answered"):
        run("ab", flaky, eq, recheck=True)


@pytest.mark.parametrize("impl", ["mbcore", "mbref"])
def test_counterexample_that_is_not_one_named(impl):
    target = DFA("ab", [[1, 0], [0, 1]], [True, False])
    run = lstar if impl == "mbcore" else R.lstar
    with pytest.raises(ValueError, match="counterexample \\('b', 'a', 'a'\\) is classified by "
                                         "the hypothesis as the membership oracle does"):
        run("ab", DFAMembershipOracle(target) if impl == "mbcore" else
            R.DFAMembershipOracle(R.DFA("ab", [[1, 0], [0, 1]], [True, False])),
            lambda h: ("b", "a", "a"))
    with pytest.raises(ValueError, match="holds the letter 'c'"):
        run("ab", lambda w: True, lambda h: "abc")
    with pytest.raises(InconsistentOracleError):
        lstar("ab", lambda w: True, lambda h: 5)


def test_inconsistent_answers_never_loop():
    """Membership answers from a coin per word (consistent per word thanks to the cache, but no
    regular language behind them), an equivalence oracle that always finds a disagreement:
    the run ends by a named stop or a named inconsistency, within the bounds given."""
    for seed in range(6):
        coins = random.Random(seed)
        memo = {}

        def mq(w):
            return memo.setdefault(tuple(w), coins.random() < 0.5)

        def eq(h):
            for w in words_upto("ab", 8):
                if h.accepts(w) != mq(w):
                    return w
            return None

        try:
            res = lstar("ab", mq, eq, max_states=40, max_rounds=30)
        except InconsistentOracleError as exc:
            assert "the word" in str(exc) or "counterexample" in str(exc)
        else:
            assert res.stopped in ("max_states", "max_rounds", None)
            if res.stopped == "max_rounds":
                assert res.equivalence_queries == 30


@pytest.mark.parametrize("impl", ["mbcore", "mbref"])
def test_non_regular_target_stops_at_the_named_bound(impl):
    def anbn(w):
        s = "".join(w)
        h = len(s) // 2
        return s == "a" * h + "b" * h

    def eq(h):
        for w in words_upto("ab", 14):
            if h.accepts(w) != anbn(w):
                return w
        return None

    run = lstar if impl == "mbcore" else R.lstar
    res = run("ab", anbn, eq, max_states=6)
    assert res.stopped == "max_states" and not res.exact and res.bounds == {}
    res = run("ab", anbn, eq, max_rounds=3)
    assert res.stopped == "max_rounds" and res.equivalence_queries == 3
    assert res.hypothesis is not None and not res.exact


# -- 5. parameters, demo ---------------------------------------------------------------------------

def test_bad_parameters():
    mq, eq = (lambda w: True), (lambda h: None)
    with pytest.raises(ValueError, match="lstar: parameter counterexamples must be one of"):
        lstar("ab", mq, eq, counterexamples="kv")
    with pytest.raises(ValueError, match="lstar: parameter max_states must be an integer >= 1"):
        lstar("ab", mq, eq, max_states=0)
    with pytest.raises(ValueError, match="lstar: parameter max_rounds must be an integer >= 1"):
        lstar("ab", mq, eq, max_rounds=1.5)
    with pytest.raises(TypeError, match="lstar: parameter membership must be a callable"):
        lstar("ab", None, eq)
    with pytest.raises(TypeError, match="lstar: parameter equivalence must be a callable"):
        lstar("ab", mq, "eq")
    with pytest.raises(ValueError, match="lstar: parameter alphabet holds the letter 'a' twice"):
        lstar("aa", mq, eq)
    with pytest.raises(ValueError, match="lstar_membership_bound: parameter processing"):
        lstar_membership_bound(3, 2, 1, "kv")
    with pytest.raises(ValueError, match="lstar_equivalence_bound: parameter n"):
        lstar_equivalence_bound(0)


def test_bound_functions_by_hand():
    assert lstar_equivalence_bound(7) == 7
    assert lstar_membership_bound(4, 2, 2) == 3 * (4 + 2 * 3) * 4 == 120
    assert lstar_membership_bound(10, 3, 9, "rivest-schapire") == 4 * 100 + 9 * (1 + 4)
    assert lstar_membership_bound(10, 3, 1, "rivest-schapire") == 4 * 100 + 9
    assert lstar_membership_bound(5, 2, 3, "suffixes") == 3 * 5 * (1 + 4 * 3)
    for args in [(4, 2, 2), (10, 3, 9, "rivest-schapire"), (5, 2, 3, "suffixes")]:
        assert R.lstar_membership_bound(*args) == lstar_membership_bound(*args)


@pytest.mark.parametrize("processing", PROCESSINGS)
def test_run_dfa_demo(processing):
    d = run_dfa_demo(25, 3, seed=2, processing=processing)
    assert d["exact"] and d["equivalent"] and d["learned_states"] == 25 and d["bounds_held"]
    assert d["membership_queries"] <= d["membership_bound"]
    assert d["equivalence_queries"] <= d["equivalence_bound"] == 25
    assert d == R.run_dfa_demo(25, 3, seed=2, processing=processing)


def test_more_than_256_letters():
    """Beyond 256 letters the words are kept as tuples inside; same results as the twin."""
    letters = tuple(range(300))
    target = DFA.random(4, letters, seed=1, minimal=True)
    res = lstar(letters, DFAMembershipOracle(target), DFAEquivalenceOracle(target))
    assert res.exact and target.equivalent(res.hypothesis) is None
    rt = R.DFA.random(4, letters, seed=1, minimal=True)
    rres = R.lstar(letters, R.DFAMembershipOracle(rt), R.DFAEquivalenceOracle(rt))
    assert rres.membership_queries == res.membership_queries
    assert tables(rres.hypothesis) == tables(res.hypothesis)


def test_oracles_take_a_callable_target():
    target = DFA.random(6, "ab", seed=8, minimal=True)
    f = target.accepts
    for eq in (SamplingEquivalenceOracle(f, "ab", epsilon=0.05, delta=0.05, seed=2),
               WMethodEquivalenceOracle(f, max_states=6)):
        res = lstar("ab", DFAMembershipOracle(target), eq)
        assert res.exact and target.equivalent(res.hypothesis) is None


def test_max_states_checked_after_a_consistency_fix():
    """Angluin's processing on a^n b^n: the table grows by consistency fixes too; the run
    stops at the bound it names, with no hypothesis above it."""
    def anbn(w):
        s = "".join(w)
        h = len(s) // 2
        return s == "a" * h + "b" * h

    def eq(h):
        for w in words_upto("ab", 12):
            if h.accepts(w) != anbn(w):
                return w
        return None

    for run in (lstar, R.lstar):
        res = run("ab", anbn, eq, counterexamples="angluin", max_states=5)
        assert res.stopped == "max_states"
        assert res.hypothesis is None or res.hypothesis.n_states <= 5


# -- trace queries (an oracle with prefixes(word)) -------------------------------------------------

class TraceRecorder:
    """A trace oracle written here: the answers after every prefix, recording each trace."""

    def __init__(self, target):
        self.target = target
        self.traces = []

    def __call__(self, word):
        return self.target.accepts(word)

    def prefixes(self, word):
        self.traces.append(tuple(word))
        return [self.target.accepts(tuple(word)[:i]) for i in range(len(word) + 1)]


@pytest.mark.parametrize("processing", PROCESSINGS)
@pytest.mark.parametrize("n,k,seed", [(5, 2, 0), (20, 2, 1), (30, 3, 2), (60, 4, 3)])
def test_trace_queries_same_run_fewer_queries(n, k, seed, processing):
    letters = "abcd"[:k]
    target = DFA.random(n, letters, seed=seed, minimal=True)
    words = Recorder(lambda w: target.accepts(w))
    by_word = lstar(letters, words, DFAEquivalenceOracle(target), counterexamples=processing)
    rec = TraceRecorder(target)
    res = lstar(letters, rec, DFAEquivalenceOracle(target), counterexamples=processing)
    # the same table and hypotheses: the answers are the same
    for name in ("counterexamples", "table_sizes", "prefixes", "suffixes", "equivalence_queries"):
        assert getattr(res, name) == getattr(by_word, name), name
    assert tables(res.hypothesis) == tables(by_word.hypothesis)
    assert res.trace_queries and not by_word.trace_queries
    # one call per trace; no trace is a prefix of an earlier one; every word the word-by-word
    # run asked is a prefix of some trace; never more calls than word by word
    assert res.membership_queries == len(rec.traces) <= by_word.membership_queries
    seen = set()
    for t in rec.traces:
        assert t not in seen
        seen.update(t[:i] for i in range(len(t) + 1))
    assert {tuple(w) for w in words.asked} <= seen
    assert res.bounds_held
    # the library's trace oracle and the twin ask the same number
    fast = lstar(letters, DFATraceOracle(target), DFAEquivalenceOracle(target),
                 counterexamples=processing)
    rt = R.DFA.random(n, letters, seed=seed, minimal=True)
    twin = R.lstar(letters, R.DFATraceOracle(rt), R.DFAEquivalenceOracle(rt),
                   counterexamples=processing)
    assert fast.membership_queries == twin.membership_queries == res.membership_queries
    assert fast.distinct_membership_queries == twin.distinct_membership_queries


@pytest.mark.parametrize("run", [lstar, R.lstar])
def test_bad_trace_oracles(run):
    class Short:
        def __call__(self, w):
            return True

        def prefixes(self, w):
            return [True]

    with pytest.raises(ValueError, match="prefixes\\(\\) answered 1 values for the word "
                                         "\\('a',\\), expected 2"):
        run("ab", Short(), lambda h: None)

    class Flips:
        """Answers the empty word True as a word, False as a prefix of a longer trace."""

        def __call__(self, w):
            return True

        def prefixes(self, w):
            return [len(w) == 0] + [True] * len(w)

    with pytest.raises(ValueError, match="answered False for the word \\(\\), which it "
                                         "answered True before"):
        run("ab", Flips(), lambda h: None)
