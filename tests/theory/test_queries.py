"""Queries and conversions: mbcore.queries.

Sections
--------
1. MonotoneDNF: reduction, evaluation against a brute-force Python evaluation, printing.
2. The oracles: EX (seeding, counting, the distributions' frequencies), MQ (counting, history),
   EQ (the domain's order, every strategy checked against its definition written out here in
   plain Python, n > 20 refused).
3. Conservative (Kanade Prop. 3): the exact predictions of a hand-written per-example loop of
   Prop. 3 on Perceptron, MarginPerceptron, Winnow, WeightedMajority, Conjunction and Halving
   (whole batches, chunks, run_online); the inner learner's mistake bound; batch calls (not one
   per row); pickling mid-stream; all or nothing; inputs never modified.
4. Mistake bounds -> equivalence queries (Prop. 6): queries <= B + 1 with every EQ strategy.
5. Angluin's monotone-DNF learner: the worked example of lecture 24 replayed exactly (MQs 011,
   001, 000 then 010, 100; hypotheses x3 then x1x2 + x3; 3 EQs, 5 MQs); random targets learned
   exactly within the query bounds; EQ learners run online (Prop. 7): mistakes <= queries.
6. Online -> PAC (Thm 4): the sample bound, the run of s correct predictions replayed from the
   record, the reuse of the block's rows, seeding, and the (epsilon, delta) guarantee over 200
   seeded trials with errors computed exactly over the whole domain.
7. EQ -> PAC by sampling (lecture 25).
8. Bad input for every public function: a ValueError/TypeError naming the function (or class)
   and the parameter.

Expected values come from the notes or are recomputed here independently (brute force over
{0,1}^n, itertools), never from the code under test.
"""

import copy
import functools
import itertools
import math
import pickle

import numpy as np
import pytest

import mbcore
from mbcore import queries as Q
from mbcore.bounds import (equivalence_query_bound, eq_test_sample_size, halving_bound,
                           online_to_pac_run_length, online_to_pac_sample_size, winnow_bound)
from conftest import separable

PUBLIC = ("MonotoneDNF", "ExampleOracle", "MembershipOracle", "EquivalenceOracle",
          "Conservative", "EQOnlineLearner", "EQResult", "DNFResult", "PACResult", "EQPACResult",
          "to_equivalence_learner", "from_equivalence_learner", "monotone_dnf_learner",
          "learn_monotone_dnf", "online_to_pac", "eq_to_pac")


# ------------------------------------------------------------------------------------------------
# helpers (independent of the code under test)
# ------------------------------------------------------------------------------------------------

def cube(n):
    """{0,1}^n in binary counting order, x1 most significant (itertools.product's order)."""
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.uint8)


def dnf_value(terms, x):
    """A monotone DNF's value on one point, in plain Python."""
    return int(any(all(x[i] for i in t) for t in terms))


def reduced_terms(terms):
    """The minimal terms (as sorted tuples), in plain Python."""
    ts = {tuple(sorted(set(t))) for t in terms}
    return sorted(t for t in ts if not any(set(u) < set(t) for u in ts))


def random_terms(rng, n, k, max_len=4):
    return [sorted(rng.choice(n, size=int(rng.integers(1, min(max_len, n) + 1)),
                              replace=False).tolist()) for _ in range(k)]


def product_probs(n, p):
    """P(x) for every x of cube(n) under the product distribution P(x_i = 1) = p."""
    X = cube(n).astype(float)
    return np.prod(np.where(X == 1, p, 1 - p), axis=1)


def prop3_loop(learner, X, y, classes):
    """Kanade Prop. 3 written out one example at a time: predict with the current state; pass
    the example on only after a mistake.  An unfitted learner's prediction is read by letting
    a copy learn the example and asking whether it erred (two labels)."""
    inner = copy.deepcopy(learner)
    preds = []
    for t in range(len(y)):
        row, lab = X[t:t + 1], np.asarray(y[t:t + 1])
        if getattr(inner, "classes_", None) is None:
            probe = copy.deepcopy(inner)
            probe.partial_fit(row, lab, classes=classes)
            if probe.mistakes_ > 0:
                preds.append([c for c in classes if c != lab[0]][0])
                inner = probe
            else:
                preds.append(lab[0])
        else:
            p = inner.predict(row)[0]
            preds.append(p)
            if p != lab[0]:
                inner.partial_fit(row, lab)
    return np.array(preds), inner


def longest_correct_run(errors):
    best = cur = 0
    for e in errors:
        cur = 0 if e else cur + 1
        best = max(best, cur)
    return best


# ------------------------------------------------------------------------------------------------
# 1. MonotoneDNF
# ------------------------------------------------------------------------------------------------

def test_monotone_dnf_reduces_sorts_and_prints():
    f = Q.MonotoneDNF([[2], [1, 0], [0, 1, 2], (2,), [1, 1, 0]], n=3)
    assert f.terms == ((0, 1), (2,))
    assert f.n_terms == 2 and f.n == 3
    assert str(f) == "x1x2 + x3"
    assert str(Q.MonotoneDNF([], 4)) == "0"
    assert str(Q.MonotoneDNF([[]], 4)) == "1"
    assert Q.MonotoneDNF([[], [1]], 4).terms == ((),)           # 1 absorbs every term
    assert str(Q.MonotoneDNF([[3, 0], [1]], 4)) == "x1x4 + x2"
    g = Q.MonotoneDNF(iter([(2,), (0, 1)]), 3)
    assert f == g and hash(f) == hash(g) and len({f, g}) == 1
    assert f != Q.MonotoneDNF([[0, 1], [2]], 4)
    assert f != Q.MonotoneDNF([[0], [2]], 3)
    assert "MonotoneDNF" in repr(f)
    h = pickle.loads(pickle.dumps(f))
    assert h == f and h(cube(3)).tolist() == f(cube(3)).tolist()


@pytest.mark.parametrize("seed", range(8))
def test_monotone_dnf_values_and_reduction_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    terms = random_terms(rng, n, int(rng.integers(0, 6)))
    f = Q.MonotoneDNF(terms, n)
    X = cube(n)
    assert f(X).dtype == np.uint8
    assert f(X).tolist() == [dnf_value(terms, x) for x in X.tolist()]
    assert [list(t) for t in f.terms] == [list(t) for t in reduced_terms(terms)]
    assert f(X.astype(bool)).tolist() == f(X).tolist()
    assert int(f(X[-1])) == dnf_value(terms, X[-1].tolist())        # one 1-D point


def test_monotone_dnf_bad_input():
    with pytest.raises(ValueError, match=r"MonotoneDNF: parameter n must be an integer >= 1, "
                                         r"got 0"):
        Q.MonotoneDNF([], 0)
    with pytest.raises(ValueError, match="MonotoneDNF: parameter n"):
        Q.MonotoneDNF([], True)
    with pytest.raises(TypeError, match="MonotoneDNF: parameter terms"):
        Q.MonotoneDNF("x1", 3)
    with pytest.raises(TypeError, match="MonotoneDNF: parameter terms: term 1"):
        Q.MonotoneDNF([[0], 2], 3)
    with pytest.raises(ValueError, match="MonotoneDNF: parameter terms: term 0 holds the "
                                         "variable index 3, outside"):
        Q.MonotoneDNF([[3]], 3)
    with pytest.raises(TypeError, match="MonotoneDNF: parameter terms: term 0 holds 1.0"):
        Q.MonotoneDNF([[1.0]], 3)
    f = Q.MonotoneDNF([[0]], 3)
    with pytest.raises(ValueError, match="MonotoneDNF: X has 2 columns"):
        f(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="MonotoneDNF: X must hold 0/1 values, got 2 in row 1"):
        f(np.array([[0, 0, 1], [0, 2, 0]]))
    with pytest.raises(ValueError, match="MonotoneDNF: X must be a 2-D"):
        f(np.zeros((1, 1, 3)))


# ------------------------------------------------------------------------------------------------
# 2. Oracles
# ------------------------------------------------------------------------------------------------

TARGET3 = Q.MonotoneDNF([[0, 1], [2]], n=3)          # x1x2 + x3 (Angluin lecture 24)


def test_example_oracle_seeding_counting_and_labels():
    a = Q.ExampleOracle(TARGET3, n=3, seed=7)
    b = Q.ExampleOracle(TARGET3, n=3, seed=7)
    c = Q.ExampleOracle(TARGET3, n=3, seed=8)
    Xa, ya = a.draw(50)
    Xb, yb = b.draw(50)
    Xc, _ = c.draw(50)
    assert Xa.tolist() == Xb.tolist() and ya.tolist() == yb.tolist()
    assert Xa.tolist() != Xc.tolist()
    assert Xa.shape == (50, 3) and Xa.dtype == np.uint8
    assert ya.tolist() == [dnf_value([[0, 1], [2]], x) for x in Xa.tolist()]
    x, lab = a()
    assert x.shape == (3,) and lab == dnf_value([[0, 1], [2]], x.tolist())
    a.draw(4)
    assert a.calls == 55 and b.calls == 50
    # draws in pieces continue the same stream as one draw
    d = Q.ExampleOracle(TARGET3, n=3, seed=7)
    Xd = np.concatenate([d.draw(20)[0], d.draw(30)[0]])
    assert Xd.tolist() == Xa.tolist()


def test_example_oracle_product_distribution_frequencies():
    p = np.array([0.05, 0.3, 0.5, 0.9, 0.0, 1.0])
    ex = Q.ExampleOracle(lambda X: X[:, 0], n=6, p=p, seed=1)
    m = 40_000
    X, _ = ex.draw(m)
    freq = X.mean(axis=0)
    tol = 5 * np.sqrt(p * (1 - p) / m) + 1e-12
    assert (np.abs(freq - p) <= tol).all(), (freq, p)
    assert freq[4] == 0.0 and freq[5] == 1.0
    X2, _ = Q.ExampleOracle(lambda X: X[:, 0], n=4, p=0.2, seed=2).draw(m)
    assert (np.abs(X2.mean(axis=0) - 0.2) <= 5 * np.sqrt(0.16 / m)).all()
    # independence of two coordinates: P(x1 = x2 = 1) = p1 p2
    both = float((X[:, 1] & X[:, 2]).mean())
    assert abs(both - 0.15) <= 5 * np.sqrt(0.15 * 0.85 / m)


def test_example_oracle_points_uniform_and_weighted():
    pts = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]])
    keep = pts.copy()
    ex = Q.ExampleOracle(lambda X: X[:, 0] & X[:, 1], points=pts, seed=3)
    pts[0, 0] = 9                         # the oracle keeps its own copy
    m = 25_000
    X, y = ex.draw(m)
    assert set(map(tuple, X.tolist())) <= set(map(tuple, keep.tolist()))
    counts = {r: 0 for r in [(0, 0), (0, 1), (1, 0), (1, 1)]}
    for r in map(tuple, X.tolist()):
        counts[r] += 1
    expect = {(0, 0): 0.2, (0, 1): 0.2, (1, 0): 0.2, (1, 1): 0.4}     # (1,1) is listed twice
    for r, q in expect.items():
        assert abs(counts[r] / m - q) <= 5 * math.sqrt(q * (1 - q) / m), (r, counts[r])
    assert y.tolist() == [a & b for a, b in X.tolist()]
    w = [0.0, 1.0, 3.0, 0.0, 0.0]
    ex = Q.ExampleOracle(lambda X: X[:, 0], points=keep, weights=w, seed=4)
    X, _ = ex.draw(m)
    rows = list(map(tuple, X.tolist()))
    assert (0, 0) not in rows and (1, 1) not in rows
    f = rows.count((1, 0)) / m
    assert abs(f - 0.75) <= 5 * math.sqrt(0.75 * 0.25 / m)


def test_example_oracle_sampler_and_learner_target():
    seen = []

    def sampler(rng, m):
        seen.append(m)
        return rng.normal(size=(m, 2))

    clf = mbcore.Perceptron().partial_fit([[1.0, 0.0], [-1.0, 0.0]], [1, -1])
    ex = Q.ExampleOracle(clf, sampler=sampler, seed=0)
    X, y = ex.draw(30)
    assert seen == [30] and X.shape == (30, 2)
    assert y.tolist() == clf.predict(X).tolist()
    assert set(y.tolist()) <= {-1, 1}
    same = Q.ExampleOracle(clf, sampler=sampler, seed=0).draw(30)[0]
    assert same.tolist() == X.tolist()


def test_membership_oracle_counts_and_history():
    mq = Q.MembershipOracle(TARGET3)
    assert mq([0, 1, 1]) == 1 and mq(np.array([0, 1, 0])) == 0
    assert mq.query(cube(3)).tolist() == [dnf_value([[0, 1], [2]], x) for x in cube(3).tolist()]
    assert mq.calls == 10
    assert mq.history[:2] == [(0, 1, 1), (0, 1, 0)]
    assert mq.history[2:] == [tuple(r) for r in cube(3).tolist()]
    clf = mbcore.Conjunction().partial_fit([[1, 1, 0]], [1], classes=[0, 1])  # x1 x2 ~x3
    assert Q.MembershipOracle(clf)([1, 1, 0]) == 1 and Q.MembershipOracle(clf)([1, 1, 1]) == 0


def test_equivalence_oracle_domain_order_and_answers():
    eq = Q.EquivalenceOracle(TARGET3, n=3)
    assert eq.points.tolist() == [list(r) for r in itertools.product((0, 1), repeat=3)]
    assert eq.labels.tolist() == [0, 1, 0, 1, 0, 1, 1, 1]
    assert eq(TARGET3) is None
    x, lab = eq(Q.MonotoneDNF([], 3))          # first disagreement in binary order: 001
    assert x.tolist() == [0, 0, 1] and lab == 1
    x, lab = eq(lambda X: np.ones(X.shape[0], dtype=int))   # 000 is negative
    assert x.tolist() == [0, 0, 0] and lab == 0
    assert eq.calls == 3 and len(eq.counterexamples) == 2
    assert eq.counterexamples[1][0].tolist() == [0, 0, 0]
    # a fitted learner as the hypothesis (predict on the whole domain)
    clf = mbcore.Conjunction().partial_fit([[0, 0, 1]], [1], classes=[0, 1])   # h = ~x1 ~x2 x3
    x, lab = eq(clf)
    assert x.tolist() == [0, 1, 1] and lab == 1


def test_equivalence_oracle_refuses_n_over_20():
    with pytest.raises(ValueError, match=r"EquivalenceOracle: parameter n must be <= 20.*"
                                         r"got n=21"):
        Q.EquivalenceOracle(lambda X: X[:, 0], n=21)
    eq = Q.EquivalenceOracle(lambda X: X[:, 19], n=20, strategy="adversarial")   # the limit
    assert eq.points.shape == (2 ** 20, 20)
    x, lab = eq(lambda X: np.zeros(len(X), dtype=np.uint8))
    assert x.tolist() == [1] * 20 and lab == 1
    x, lab = eq(lambda X: np.zeros(len(X), dtype=np.uint8))   # farthest from 11..1 with x20 = 1
    assert x.tolist() == [0] * 19 + [1] and lab == 1


def test_equivalence_oracle_random_strategy():
    target = Q.MonotoneDNF([[0], [1, 2]], n=4)
    X = cube(4)
    dis = [j for j, x in enumerate(X.tolist()) if dnf_value([[0], [1, 2]], x)]   # h = 0
    eq = Q.EquivalenceOracle(target, n=4, strategy="random", seed=5)
    got = [tuple(eq(Q.MonotoneDNF([], 4))[0].tolist()) for _ in range(600)]
    idx = [X.tolist().index(list(g)) for g in got]
    assert set(idx) == set(dis)                   # only disagreements, and every one of them
    counts = np.bincount(idx, minlength=16)[dis]
    q = 1 / len(dis)
    assert (np.abs(counts / 600 - q) <= 5 * math.sqrt(q * (1 - q) / 600)).all()
    eq2 = Q.EquivalenceOracle(target, n=4, strategy="random", seed=5)
    again = [tuple(eq2(Q.MonotoneDNF([], 4))[0].tolist()) for _ in range(600)]
    assert again == got


def adversarial_reference(points, labels, predictions):
    """The "adversarial" choice written out: maximise the minimum L1 distance to the
    counterexamples already returned (first call: the L1 norm), ties to the first index."""
    prev, out = [], []
    for pred in predictions:
        dis = [j for j in range(len(points)) if pred[j] != labels[j]]
        if not dis:
            out.append(None)
            continue

        def score(j):
            if not prev:
                return sum(abs(v) for v in points[j])
            return min(sum(abs(a - b) for a, b in zip(points[j], q)) for q in prev)
        best = max(score(j) for j in dis)
        j = next(j for j in dis if score(j) == best)
        prev.append(points[j])
        out.append(j)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_equivalence_oracle_adversarial_strategy_definition(seed):
    rng = np.random.default_rng(seed)
    n = 5
    target_terms = random_terms(rng, n, 3)
    target = Q.MonotoneDNF(target_terms, n)
    hyps = [Q.MonotoneDNF(random_terms(rng, n, int(rng.integers(0, 3))), n) for _ in range(6)]
    P = cube(n).tolist()
    labels = [dnf_value(target_terms, x) for x in P]
    preds = [[dnf_value(h.terms, x) for x in P] for h in hyps]
    expect = adversarial_reference(P, labels, preds)
    eq = Q.EquivalenceOracle(target, n=n, strategy="adversarial")
    got = []
    for h in hyps:
        a = eq(h)
        got.append(None if a is None else P.index(a[0].tolist()))
    assert got == expect
    # the first answer to h = 0 is the positive point with the most 1s (the worst case for
    # Minimize): for a target with a positive point, 11111
    eq = Q.EquivalenceOracle(target, n=n, strategy="adversarial")
    assert eq(Q.MonotoneDNF([], n))[0].tolist() == [1] * n


def test_equivalence_oracle_callable_strategy():
    calls = []

    def last(points, dis, rng):
        calls.append((points.shape, dis.tolist(), isinstance(rng, np.random.Generator)))
        assert not points.flags.writeable
        return int(dis[-1])

    eq = Q.EquivalenceOracle(TARGET3, n=3, strategy=last)
    x, lab = eq(Q.MonotoneDNF([], 3))
    assert x.tolist() == [1, 1, 1] and lab == 1
    assert calls == [((8, 3), [1, 3, 5, 6, 7], True)]
    eq = Q.EquivalenceOracle(TARGET3, n=3, strategy=lambda P, d, r: 0)   # 000 agrees
    with pytest.raises(ValueError, match="EquivalenceOracle: parameter strategy must return the "
                                         "row index of a disagreement"):
        eq(Q.MonotoneDNF([], 3))


def test_equivalence_oracle_points_domain():
    pts = np.array([[0.5, 1.0], [2.0, -1.0], [3.0, 3.0]])
    eq = Q.EquivalenceOracle(lambda X: (X[:, 0] > 1).astype(int), points=pts)
    x, lab = eq(lambda X: np.zeros(len(X), dtype=int))
    assert x.tolist() == [2.0, -1.0] and lab == 1
    assert eq(lambda X: (X[:, 0] > 1.5).astype(int)) is None


# ------------------------------------------------------------------------------------------------
# 3. Conservative (Kanade Prop. 3)
# ------------------------------------------------------------------------------------------------

def stream(kind, seed, n=600):
    """(learner, X, y, classes) for each family."""
    rng = np.random.default_rng(seed)
    if kind in ("Perceptron", "MarginPerceptron"):
        X, y, _ = separable(seed, n, 6, 0.05)
        clf = mbcore.Perceptron() if kind == "Perceptron" else mbcore.MarginPerceptron(0.2)
        return clf, X, y, [-1, 1]
    if kind == "Winnow":
        X = (rng.random((n, 40)) < 0.12).astype(np.uint8)
        y = (X[:, 3] | X[:, 17] | X[:, 29]).astype(np.int64)
        return mbcore.Winnow(), X, y, [0, 1]
    if kind == "WeightedMajority":          # non-conservative: every wrong expert is demoted
        A = rng.integers(0, 2, size=(n, 25)).astype(np.int64)
        y = A[:, 4].copy()
        flip = rng.random(n) < 0.15
        y[flip] ^= 1
        return mbcore.WeightedMajority(), A, y, [0, 1]
    if kind == "Conjunction":
        X = (rng.random((n, 12)) < 0.8).astype(np.uint8)
        y = (X[:, 1] & X[:, 5] & (1 - X[:, 8])).astype(np.int64)
        return mbcore.Conjunction(), X, y, [0, 1]
    if kind == "Halving":
        C = mbcore.ConceptClass.from_matrix(rng.integers(0, 2, size=(60, 64)))
        c = int(rng.integers(0, 60))
        pts = rng.integers(0, 64, size=n)
        y = np.array(C.labels(c))[pts]
        return mbcore.Halving(C), pts, y, [0, 1]
    raise AssertionError(kind)


KINDS = ("Perceptron", "MarginPerceptron", "Winnow", "WeightedMajority", "Conjunction", "Halving")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_conservative_equals_the_per_example_loop(kind, seed):
    learner, X, y, classes = stream(kind, seed)
    want, inner = prop3_loop(learner, X, y, classes)
    # whole batch through run_online
    c = Q.Conservative(learner)
    run = mbcore.run_online(c, X, y, classes=classes)
    assert run.predictions.tolist() == want.tolist()
    assert run.errors.tolist() == (want != y).tolist()
    assert run.mistakes == c.mistakes_ == c.updates_ == int((want != y).sum())
    assert run.updated.tolist() == run.errors.tolist()
    assert c.n_seen_ == len(y)
    assert c.learner_.n_seen_ == c.mistakes_ == inner.n_seen_      # it saw the mistakes only
    assert c.predict(X).tolist() == inner.predict(X).tolist()
    assert getattr(learner, "classes_", None) is None                # the original is untouched
    # in chunks of varying sizes, through partial_fit
    c2 = Q.Conservative(learner)
    rng = np.random.default_rng(seed + 100)
    cuts = [0] + sorted(rng.choice(np.arange(1, len(y)), size=7, replace=False).tolist()) + \
        [len(y)]
    preds = []
    for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        preds += mbcore.run_online(c2, X[a:b], y[a:b], classes=classes if k == 0 else None) \
            .predictions.tolist()
    assert preds == want.tolist()
    c3 = Q.Conservative(learner).partial_fit(X, y, classes=classes)
    assert c3.mistakes_ == c.mistakes_


def test_conservative_passes_rows_as_given_index_lists_and_csr():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(5)
    rows = [sorted(rng.choice(12, size=3, replace=False).tolist()) for _ in range(400)]
    X = np.zeros((400, 12), dtype=np.uint8)
    for i, r in enumerate(rows):
        X[i, r] = 1
    y = (X[:, 0] | X[:, 7]).astype(np.int64)
    dense = mbcore.run_online(Q.Conservative(mbcore.Winnow()), X, y, classes=[0, 1])
    # lists of active indices (all of the same length: they must stay index lists)
    lists = mbcore.run_online(Q.Conservative(mbcore.Winnow(n_features=12)), rows, y.tolist(),
                              classes=[0, 1])
    assert lists.predictions.tolist() == dense.predictions.tolist()
    Xf = X.astype(np.float64)
    want, _ = prop3_loop(mbcore.Perceptron(), Xf, 2 * y - 1, [-1, 1])
    csr = mbcore.run_online(Q.Conservative(mbcore.Perceptron()), sp.csr_array(Xf), 2 * y - 1)
    assert csr.predictions.tolist() == want.tolist()


def test_conservative_multiclass_weighted_majority():
    rng = np.random.default_rng(3)
    A = rng.integers(0, 3, size=(400, 9))
    y = A[:, 2].copy()
    noisy = rng.random(400) < 0.2
    y[noisy] = rng.integers(0, 3, size=int(noisy.sum()))
    c = Q.Conservative(mbcore.WeightedMajority())
    run = mbcore.run_online(c, A, y, classes=[0, 1, 2])
    # the loop: predict with the inner copy; pass mistakes on (first row: a copy tells)
    inner = None
    errs = []
    for t in range(len(y)):
        if inner is None:
            probe = mbcore.WeightedMajority()
            probe.partial_fit(A[t:t + 1], y[t:t + 1], classes=[0, 1, 2])
            wrong = probe.mistakes_ > 0
            if wrong:
                inner = probe
        else:
            wrong = inner.predict(A[t:t + 1])[0] != y[t]
            if wrong:
                inner.partial_fit(A[t:t + 1], y[t:t + 1])
        errs.append(bool(wrong))
    assert run.errors.tolist() == errs
    assert set(run.predictions.tolist()) <= {0, 1, 2}
    assert c.predict(A).tolist() == inner.predict(A).tolist()


@pytest.mark.parametrize("seed", range(6))
def test_conservative_keeps_the_inner_mistake_bound(seed):
    rng = np.random.default_rng(seed)
    n, k = 64, int(rng.integers(1, 5))
    rel = rng.choice(n, size=k, replace=False)
    X = (rng.random((3000, n)) < 0.05).astype(np.uint8)
    y = X[:, rel].any(axis=1).astype(np.int64)
    c = Q.Conservative(mbcore.Winnow()).partial_fit(X, y, classes=[0, 1])
    assert c.mistakes_ <= winnow_bound(k, n)
    # Conjunction: n + 1; Halving: floor(log2 |C|)
    Xc = (rng.random((2000, 10)) < 0.85).astype(np.uint8)
    yc = (Xc[:, 0] & Xc[:, 7]).astype(np.int64)
    assert Q.Conservative(mbcore.Conjunction()).partial_fit(Xc, yc, [0, 1]).mistakes_ <= 11
    C = mbcore.ConceptClass.from_matrix(rng.integers(0, 2, size=(200, 128)))
    pts = rng.integers(0, 128, size=2000)
    yh = np.array(C.labels(int(rng.integers(200))))[pts]
    h = Q.Conservative(mbcore.Halving(C)).partial_fit(pts, yh, classes=[0, 1])
    assert h.mistakes_ <= halving_bound(200) == 7


class CountingWinnow(mbcore.Winnow):
    predict_calls = 0

    def predict(self, X):
        type(self).predict_calls += 1
        return super().predict(X)


def test_conservative_predicts_in_blocks_not_per_row():
    rng = np.random.default_rng(0)
    X = (rng.random((20_000, 30)) < 0.1).astype(np.uint8)
    y = (X[:, 2] | X[:, 9]).astype(np.int64)
    CountingWinnow.predict_calls = 0
    c = Q.Conservative(CountingWinnow()).partial_fit(X, y, classes=[0, 1])
    m = c.mistakes_
    # after each mistake: blocks of 64, 128, ... up to the rest: at most log2(20000/64) + 2
    per = math.ceil(math.log2(20_000 / 64)) + 2
    assert 0 < CountingWinnow.predict_calls <= (m + 1) * per
    assert CountingWinnow.predict_calls < 200


def test_conservative_pickling_and_deepcopy_mid_stream():
    learner, X, y, classes = stream("Winnow", 4, n=900)
    a = Q.Conservative(learner).partial_fit(X[:300], y[:300], classes=classes)
    b = pickle.loads(pickle.dumps(a))
    d = copy.deepcopy(a)
    ra = mbcore.run_online(a, X[300:], y[300:])
    rb = mbcore.run_online(b, X[300:], y[300:])
    rd = mbcore.run_online(d, X[300:], y[300:])
    assert ra.predictions.tolist() == rb.predictions.tolist() == rd.predictions.tolist()
    assert a.mistakes_ == b.mistakes_ == d.mistakes_ and a.n_seen_ == b.n_seen_ == 900
    # pickled before any mistake (the inner copy still unfitted), and unfitted
    e = Q.Conservative(mbcore.Conjunction()).partial_fit([[1, 0]], [0], classes=[0, 1])
    assert e.learner_.__dict__.get("classes_") is None
    f = pickle.loads(pickle.dumps(e))
    assert f.predict([[1, 1], [0, 0]]).tolist() == [0, 0]
    g = pickle.loads(pickle.dumps(Q.Conservative(mbcore.Winnow())))
    with pytest.raises(mbcore.NotFittedError, match="Conservative"):
        g.predict([[1, 0]])


def test_conservative_predict_before_the_first_mistake_is_the_initial_hypothesis():
    # Winnow's initial hypothesis: 1 iff sum x_i >= n (all weights 1, theta = n)
    c = Q.Conservative(mbcore.Winnow()).partial_fit([[1, 1, 1]], [1], classes=[0, 1])
    assert c.mistakes_ == 0 and c.learner_.__dict__.get("classes_") is None
    assert c.predict(np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0]])).tolist() == [1, 0, 0]
    # Conjunction's: false everywhere
    c = Q.Conservative(mbcore.Conjunction()).partial_fit([[0, 1]], [0], classes=[0, 1])
    assert c.predict([[1, 1], [0, 1]]).tolist() == [0, 0]


def test_conservative_inputs_never_modified_and_all_or_nothing():
    learner, X, y, classes = stream("Perceptron", 2, n=300)
    X0, y0 = X.copy(), y.copy()
    c = Q.Conservative(learner).partial_fit(X[:100], y[:100], classes=classes)
    assert (X == X0).all() and (y == y0).all()
    before = pickle.dumps(c)
    bad = X[100:].copy()
    bad[150] = np.nan                    # late in the batch: mistakes come before it
    with pytest.raises(ValueError):
        c.partial_fit(bad, y[100:])
    assert pickle.dumps(c) == before
    ybad = y[100:].copy()
    ybad[5] = 7
    with pytest.raises(ValueError, match=r"Conservative: y has the label 7"):
        c.partial_fit(X[100:], ybad)
    assert pickle.dumps(c) == before
    # a failed first call leaves it unfitted
    d = Q.Conservative(mbcore.Perceptron())
    with pytest.raises(ValueError):
        d.partial_fit(bad, y[100:])
    with pytest.raises(mbcore.NotFittedError):
        d.predict(X[:2])
    assert mbcore.run_online(d, X, y).mistakes == mbcore.run_online(
        Q.Conservative(mbcore.Perceptron()), X, y).mistakes


def test_conservative_classes_params_and_clone():
    c = Q.Conservative(mbcore.Perceptron()).partial_fit([[1.0], [-1.0]], [3, 5])
    assert c.classes_.tolist() == [3, 5]
    with pytest.raises(ValueError, match=r"Conservative: classes=\[0, 1\] differs from the "
                                         r"fitted classes \[3, 5\]"):
        c.partial_fit([[1.0]], [5], classes=[0, 1])
    with pytest.raises(ValueError, match="Conjunction: classes must hold exactly two"):
        Q.Conservative(mbcore.Conjunction()).partial_fit([[1], [0], [1]], [0, 1, 2])
    # (the Perceptron takes three classes, and so does its conservative form)
    c3 = Q.Conservative(mbcore.Perceptron()).partial_fit([[1.0], [2.0], [3.0]], [0, 1, 2])
    assert c3.classes_.tolist() == [0, 1, 2] and c3.mistakes_ >= 1
    with pytest.raises(ValueError, match="Conservative: cannot tell the two classes"):
        Q.Conservative(mbcore.Perceptron()).partial_fit([[1.0]], [7])
    assert c.get_params() == {"learner": c.learner}
    w = mbcore.Winnow()
    assert c.set_params(learner=w).learner is w
    with pytest.raises(ValueError, match="Conservative: invalid parameter 'alpha'"):
        c.set_params(alpha=3)
    k = mbcore.clone(c)
    # clone clones the wrapped learner too (sklearn's clone does the same with nested
    # estimators): the new wrapper never trains the caller's learner
    assert type(k) is Q.Conservative and k.learner is not w and \
        type(k.learner) is mbcore.Winnow and k.learner.get_params() == w.get_params()
    with pytest.raises(mbcore.NotFittedError):
        k.mistakes_
    assert "Conservative(learner=Winnow())" == repr(k)


def test_conservative_bad_learners():
    with pytest.raises(TypeError, match="Conservative: parameter learner must be a learner "
                                        "instance, got the class Winnow"):
        Q.Conservative(mbcore.Winnow).partial_fit([[1]], [1], classes=[0, 1])
    with pytest.raises(TypeError, match="Conservative: parameter learner must be an online "
                                        "learner"):
        Q.Conservative(object()).partial_fit([[1]], [1], classes=[0, 1])
    with pytest.raises(ValueError, match="Conservative: parameter learner must predict "
                                         "deterministically"):
        Q.Conservative(mbcore.RandomizedWeightedMajority()).partial_fit([[1]], [1], [0, 1])
    with pytest.raises(ValueError, match="Conservative: X is empty"):
        Q.Conservative(mbcore.Winnow()).partial_fit(np.zeros((0, 3)), [], classes=[0, 1])
    with pytest.raises(TypeError, match="Conservative: y must be"):
        Q.Conservative(mbcore.Winnow()).partial_fit([[1]], None)


# ------------------------------------------------------------------------------------------------
# 4. Mistake bound -> equivalence queries (Kanade Prop. 6)
# ------------------------------------------------------------------------------------------------

STRATS = ("first", "random", "adversarial")


@pytest.mark.parametrize("strategy", STRATS)
@pytest.mark.parametrize("seed", range(3))
def test_prop6_halving_queries_within_log2_class_plus_one(strategy, seed):
    rng = np.random.default_rng(seed)
    n = 5
    M = rng.integers(0, 2, size=(40, 2 ** n))
    pts = cube(n)
    C = mbcore.ConceptClass.from_matrix(M, points=pts.tolist())
    c = int(rng.integers(40))
    target = lambda X: M[c][X.astype(np.int64) @ (1 << np.arange(n - 1, -1, -1))]  # noqa: E731
    eq = Q.EquivalenceOracle(target, n=n, strategy=strategy, seed=seed)
    learner = mbcore.Halving(C)
    res = Q.to_equivalence_learner(learner, eq)
    B = halving_bound(C)
    assert res.exact and res.queries <= equivalence_query_bound(B) == B + 1
    assert res.queries == eq.calls == len(res.counterexamples) + 1
    assert res.predict(pts).tolist() == M[c].tolist()
    assert res.hypothesis.mistakes_ == len(res.counterexamples)     # each one was a mistake
    assert getattr(learner, "classes_", None) is None
    assert "EQResult(" in repr(res)


@pytest.mark.parametrize("strategy", STRATS)
@pytest.mark.parametrize("seed", range(3))
def test_prop6_conjunction_and_winnow(strategy, seed):
    rng = np.random.default_rng(seed)
    n = 7
    lits = rng.choice(2 * n, size=3, replace=False)     # literals x_i (i < n) or ~x_(i-n)

    def conj(X):
        out = np.ones(X.shape[0], dtype=bool)
        for l in lits:
            out &= (X[:, l] == 1) if l < n else (X[:, l - n] == 0)
        return out.astype(np.uint8)

    eq = Q.EquivalenceOracle(conj, n=n, strategy=strategy, seed=seed)
    res = Q.to_equivalence_learner(mbcore.Conjunction(), eq)
    assert res.exact and res.queries <= equivalence_query_bound(n + 1)
    assert res.predict(cube(n)).tolist() == conj(cube(n)).tolist()
    k = int(rng.integers(1, 4))
    rel = rng.choice(10, size=k, replace=False)
    disj = lambda X: X[:, rel].any(axis=1).astype(np.uint8)      # noqa: E731
    eq = Q.EquivalenceOracle(disj, n=10, strategy=strategy, seed=seed)
    res = Q.to_equivalence_learner(mbcore.Winnow(), eq)
    assert res.exact
    assert res.queries <= equivalence_query_bound(math.floor(winnow_bound(k, 10)))


def test_prop6_first_hypothesis_right_and_max_queries():
    eq = Q.EquivalenceOracle(lambda X: np.zeros(len(X), dtype=np.uint8), n=4)
    res = Q.to_equivalence_learner(mbcore.Conjunction(), eq)   # false everywhere: right at once
    assert res.exact and res.queries == 1 and res.counterexamples == []
    assert res.predict(cube(4)).tolist() == [0] * 16
    eq = Q.EquivalenceOracle(lambda X: X[:, 0] ^ X[:, 1], n=2)   # xor: not a conjunction
    res = Q.to_equivalence_learner(mbcore.Conjunction(), eq, max_queries=3)
    assert not res.exact and res.queries == 3 == eq.calls


# ------------------------------------------------------------------------------------------------
# 5. Monotone DNF (Angluin lecture 24) and EQ learners online (Kanade Prop. 7)
# ------------------------------------------------------------------------------------------------

class RecordingEQ:
    """An EQ oracle that records the hypotheses it is asked about (as strings)."""

    def __init__(self, eq):
        self.eq = eq
        self.asked = []

    @property
    def calls(self):
        return self.eq.calls

    def __call__(self, h):
        self.asked.append(str(h))
        return self.eq(h)


def scripted(*rows):
    """A callable EQ strategy returning the given points in turn."""
    todo = [list(r) for r in rows]

    def pick(points, dis, rng):
        want = todo.pop(0)
        j = points.tolist().index(want)
        assert j in dis.tolist()
        return j
    return pick


@pytest.mark.parametrize("strategy", ["adversarial", "scripted"])
def test_monotone_dnf_golden_worked_example(strategy):
    """Angluin lecture 24: target x1x2 + x3; counterexample 111, MQ(011) = 1, MQ(001) = 1,
    MQ(000) = 0, term x3; EQ(x3) gives 110, MQ(010) = 0, MQ(100) = 0, term x1x2;
    EQ(x3 + x1x2) says yes."""
    target = Q.MonotoneDNF([[0, 1], [2]], n=3)
    mq = Q.MembershipOracle(target)
    s = "adversarial" if strategy == "adversarial" else scripted((1, 1, 1), (1, 1, 0))
    eq = RecordingEQ(Q.EquivalenceOracle(target, n=3, strategy=s))
    res = Q.learn_monotone_dnf(mq, eq, 3)
    assert mq.history == [(0, 1, 1), (0, 0, 1), (0, 0, 0), (0, 1, 0), (1, 0, 0)]
    assert [mq.history[:3], mq.history[3:]] == [[(0, 1, 1), (0, 0, 1), (0, 0, 0)],
                                                [(0, 1, 0), (1, 0, 0)]]
    assert eq.asked == ["0", "x3", "x1x2 + x3"]
    assert [(x.tolist(), lab) for x, lab in res.counterexamples] == [([1, 1, 1], 1),
                                                                    ([1, 1, 0], 1)]
    assert res.equivalence_queries == 3 and res.membership_queries == 5
    assert res.formula == target and str(res.formula) == "x1x2 + x3"
    assert "DNFResult(" in repr(res)


def test_monotone_dnf_generator_step_by_step():
    mq = Q.MembershipOracle(TARGET3)
    gen = Q.monotone_dnf_learner(mq, 3)
    assert str(next(gen)) == "0"
    assert str(gen.send((np.array([1, 1, 1]), 1))) == "x3"
    assert mq.history == [(0, 1, 1), (0, 0, 1), (0, 0, 0)]
    assert str(gen.send(([1, 1, 0], 1))) == "x1x2 + x3"
    assert mq.calls == 5
    gen = Q.monotone_dnf_learner(mq, 3)
    next(gen)
    gen.send(([0, 0, 1], 1))            # h = x3 now
    with pytest.raises(ValueError, match=r"monotone_dnf_learner: \[1, 0, 1\] with label 1 is "
                                         r"not a counterexample to x3"):
        gen.send(([1, 0, 1], 1))        # x3 holds on 101


def test_monotone_dnf_negative_counterexample_means_not_monotone():
    target = lambda X: (X[:, 0] & (1 - X[:, 1])).astype(np.uint8)     # x1 ~x2   # noqa: E731
    mq = Q.MembershipOracle(target)
    eq = Q.EquivalenceOracle(target, n=2)
    with pytest.raises(ValueError, match=r"monotone_dnf_learner: negative counterexample "
                                         r"\[1, 1\] \(label 0\).*not a monotone DNF"):
        Q.learn_monotone_dnf(mq, eq, 2)
    gen = Q.monotone_dnf_learner(mq, 2)
    next(gen)
    with pytest.raises(ValueError, match="monotone_dnf_learner: a counterexample's label must "
                                         "be 0 or 1, got 2"):
        gen.send(([1, 0], 2))
    gen = Q.monotone_dnf_learner(mq, 2)
    next(gen)
    with pytest.raises(ValueError, match="monotone_dnf_learner: a counterexample must be a 0/1 "
                                         "point of length 2"):
        gen.send(([1, 0, 1], 1))


@pytest.mark.parametrize("strategy", STRATS)
@pytest.mark.parametrize("seed", range(5))
def test_monotone_dnf_random_targets_exact_within_bounds(strategy, seed):
    rng = np.random.default_rng([seed, STRATS.index(strategy)])
    n = int(rng.integers(3, 13))
    terms = random_terms(rng, n, int(rng.integers(1, 7)))
    target = Q.MonotoneDNF(terms, n)
    t = len(reduced_terms(terms))
    mq = Q.MembershipOracle(target)
    eq = Q.EquivalenceOracle(target, n=n, strategy=strategy, seed=seed)
    res = Q.learn_monotone_dnf(mq, eq, n)
    assert res.formula == target
    assert [list(u) for u in res.formula.terms] == [list(u) for u in reduced_terms(terms)]
    assert res.equivalence_queries <= t + 1
    assert res.equivalence_queries == t + 1      # each counterexample finds one target term
    assert res.membership_queries <= n * t
    assert res.membership_queries == sum(int(x.sum()) for x, _ in res.counterexamples)


def tiny_eq_learner():
    """An EQ learner that asks once (h = 0) and then gives up."""
    yield lambda X: np.zeros(len(X), dtype=np.uint8)


@pytest.mark.parametrize("seed", range(4))
def test_prop7_online_from_monotone_dnf_learner(seed):
    rng = np.random.default_rng(seed)
    n = 10
    terms = random_terms(rng, n, int(rng.integers(1, 6)), max_len=3)
    target = Q.MonotoneDNF(terms, n)
    X = (rng.random((1500, n)) < 0.5).astype(np.uint8)
    y = target(X)
    make = functools.partial(Q.monotone_dnf_learner, Q.MembershipOracle(target), n)
    online = Q.from_equivalence_learner(make)
    run = mbcore.run_online(online, X, y)
    # the per-example loop: predict with h, send the mistake
    gen = Q.monotone_dnf_learner(Q.MembershipOracle(target), n)
    h = next(gen)
    want = []
    for t in range(len(y)):
        p = int(h(X[t]))
        want.append(p)
        if p != y[t]:
            h = gen.send((X[t], int(y[t])))
    assert run.predictions.tolist() == want
    assert online.mistakes_ == run.mistakes <= target.n_terms       # Prop. 7: <= Q - 1 here
    assert online.queries_ == online.mistakes_ + 1
    assert online.n_seen_ == 1500 and len(online.counterexamples_) == online.mistakes_
    assert online.predict(X).tolist() == [int(v) for v in h(X)]


def test_prop7_pickling_replays_and_a_learner_that_returns():
    target = Q.MonotoneDNF([[0, 1], [2, 3], [4]], n=6)
    rng = np.random.default_rng(1)
    X = (rng.random((400, 6)) < 0.4).astype(np.uint8)
    y = target(X)
    a = Q.EQOnlineLearner(functools.partial(Q.monotone_dnf_learner,
                                            Q.MembershipOracle(target), 6))
    a.partial_fit(X[:40], y[:40])
    b = pickle.loads(pickle.dumps(a))
    d = copy.deepcopy(a)
    assert b.queries_ == a.queries_ and str(b.hypothesis_) == str(a.hypothesis_)
    ra, rb, rd = (mbcore.run_online(o, X[40:], y[40:]) for o in (a, b, d))
    assert ra.predictions.tolist() == rb.predictions.tolist() == rd.predictions.tolist()
    assert a.mistakes_ == b.mistakes_ <= 3
    g = Q.from_equivalence_learner(tiny_eq_learner).partial_fit(X, y)
    assert g.finished_ and g.queries_ == 1
    assert g.mistakes_ == int(y.sum())                  # h = 0 for ever
    assert g.predict(X[:3]).tolist() == [0, 0, 0]


def test_eq_online_learner_bad_input():
    f = Q.from_equivalence_learner(tiny_eq_learner)
    with pytest.raises(ValueError, match="EQOnlineLearner: X must be 2-D"):
        f.partial_fit([1, 0], [1, 0])
    with pytest.raises(ValueError, match="EQOnlineLearner: X is empty"):
        f.partial_fit(np.zeros((0, 2)), [])
    with pytest.raises(ValueError, match="EQOnlineLearner: the labels must be two classes"):
        f.partial_fit([[1], [0], [1]], [0, 1, 2])
    with pytest.raises(mbcore.NotFittedError, match="EQOnlineLearner"):
        f.predict([[1]])

    def bad():
        yield lambda X: np.full(len(X), -1)
    with pytest.raises(ValueError, match="EQOnlineLearner: a hypothesis must return 0/1 "
                                         "labels, got -1"):
        Q.from_equivalence_learner(bad).partial_fit([[1]], [1], classes=[0, 1])
    with pytest.raises(TypeError, match="EQOnlineLearner: make_learner\\(\\) must return an "
                                        "EQ-learner generator"):
        Q.from_equivalence_learner(lambda: 3).partial_fit([[1]], [1], classes=[0, 1])
    with pytest.raises(TypeError, match="from_equivalence_learner: parameter make_learner"):
        Q.from_equivalence_learner(5)


# ------------------------------------------------------------------------------------------------
# 6. Online -> PAC (Kanade Thm 4)
# ------------------------------------------------------------------------------------------------

def winnow_setting(seed, n=10, p=0.2):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 4))
    rel = sorted(rng.choice(n, size=k, replace=False).tolist())
    target = Q.MonotoneDNF([[i] for i in rel], n)
    return target, k, math.floor(winnow_bound(k, n))


@pytest.mark.parametrize("seed", range(6))
def test_online_to_pac_record_sample_bound_and_reuse(seed):
    target, k, B = winnow_setting(seed)
    eps, delta = 0.1, 0.05
    ex = Q.ExampleOracle(target, n=10, p=0.2, seed=seed)
    res = Q.online_to_pac(mbcore.Winnow(), ex, B, eps, delta)
    s = online_to_pac_run_length(B, eps, delta)
    assert res.run_length == s
    assert res.samples <= online_to_pac_sample_size(B, eps, delta) == B * s
    assert res.X.shape == (res.samples, 10) and res.y.shape == (res.samples,)
    # the consumed examples are the oracle's stream, in order (blocks reused, nothing skipped)
    Xall, yall = Q.ExampleOracle(target, n=10, p=0.2, seed=seed).draw(ex.calls)
    assert res.X.tolist() == Xall[:res.samples].tolist()
    assert res.y.tolist() == target(res.X).tolist()
    # the record is Prop. 3 on those examples, and it stops exactly where Thm 4 says
    want, inner = prop3_loop(mbcore.Winnow(), res.X, res.y, [0, 1])
    assert res.record.predictions.tolist() == want.tolist()
    err = (want != res.y).tolist()
    assert res.record.errors.tolist() == err and res.mistakes == sum(err)
    if res.stopped == "run":
        assert not any(err[-s:]) and len(err) >= s
        assert longest_correct_run(err[:-1]) < s        # no earlier run of s
        assert res.mistakes < B
    else:
        assert res.stopped == "mistakes" and res.mistakes == B and err[-1]
        assert longest_correct_run(err) < s
    if getattr(inner, "classes_", None) is not None:
        assert res.hypothesis.predict(cube(10)).tolist() == inner.predict(cube(10)).tolist()
    else:
        assert res.mistakes == 0 and getattr(res.hypothesis.learner_, "classes_", None) is None
    assert res.hypothesis.n_seen_ == res.samples and res.hypothesis.mistakes_ == res.mistakes
    assert "PACResult(" in repr(res)


def test_online_to_pac_same_seed_same_result():
    target, k, B = winnow_setting(3)
    r1 = Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(target, n=10, p=0.2, seed=11), B,
                         0.05, 0.1)
    r2 = Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(target, n=10, p=0.2, seed=11), B,
                         0.05, 0.1)
    assert (r1.samples, r1.mistakes, r1.stopped) == (r2.samples, r2.mistakes, r2.stopped)
    assert r1.record.predictions.tolist() == r2.record.predictions.tolist()
    assert r1.hypothesis.predict(cube(10)).tolist() == r2.hypothesis.predict(cube(10)).tolist()


def test_online_to_pac_stops_after_B_mistakes_and_max_samples():
    # B = 1 with conjunction elimination: the first positive example is its first mistake
    target = Q.MonotoneDNF([[0, 2]], 5)
    ex = Q.ExampleOracle(target, n=5, p=0.5, seed=2)
    res = Q.online_to_pac(mbcore.Conjunction(), ex, 1, 0.2, 0.1)
    s = online_to_pac_run_length(1, 0.2, 0.1)
    _, y = Q.ExampleOracle(target, n=5, p=0.5, seed=2).draw(s)
    first_pos = int(np.flatnonzero(y)[0])
    assert res.stopped == "mistakes" and res.samples == first_pos + 1 and res.mistakes == 1
    res = Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(target, n=5, seed=2), 10, 0.01,
                          0.01, max_samples=37)
    assert res.stopped == "max_samples" and res.samples == 37


def test_online_to_pac_epsilon_delta_guarantee_over_200_trials():
    """With probability >= 1 - delta the hypothesis has error <= epsilon (errors computed
    exactly over {0,1}^10 under the product distribution)."""
    n, p, eps, delta = 10, 0.2, 0.1, 0.1
    probs = product_probs(n, p)
    D = cube(n)
    good, worst = 0, 0.0
    trials = 200
    for t in range(trials):
        target, k, B = winnow_setting(1000 + t, n, p)
        res = Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(target, n=n, p=p, seed=t), B,
                              eps, delta)
        assert res.samples <= online_to_pac_sample_size(B, eps, delta)
        err = float(probs[res.hypothesis.predict(D) != target(D)].sum())
        worst = max(worst, err)
        good += err <= eps
    assert good >= (1 - delta) * trials, (good, worst)
    # and for conjunction elimination (B = n + 1)
    good = 0
    for t in range(100):
        rng = np.random.default_rng(5000 + t)
        target = Q.MonotoneDNF([rng.choice(n, size=2, replace=False).tolist()], n)
        res = Q.online_to_pac(mbcore.Conjunction(), Q.ExampleOracle(target, n=n, p=0.7, seed=t),
                              n + 1, eps, delta)
        err = float(product_probs(n, 0.7)[res.hypothesis.predict(D) != target(D)].sum())
        good += err <= eps
    assert good >= (1 - delta) * 100


# ------------------------------------------------------------------------------------------------
# 7. EQ -> PAC by sampling (Angluin lecture 25)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("budget", ["geometric", "basel"])
def test_eq_to_pac_monotone_dnf(budget):
    n, p, eps, delta = 8, 0.5, 0.1, 0.1
    probs = product_probs(n, p)
    D = cube(n)
    good = 0
    trials = 60
    for t in range(trials):
        rng = np.random.default_rng(t)
        target = Q.MonotoneDNF(random_terms(rng, n, int(rng.integers(1, 5)), max_len=4), n)
        mq = Q.MembershipOracle(target)
        ex = Q.ExampleOracle(target, n=n, p=p, seed=t)
        res = Q.eq_to_pac(lambda: Q.monotone_dnf_learner(mq, n), ex, eps, delta, budget=budget)
        assert res.stopped == "accepted"
        assert res.queries <= target.n_terms + 1
        assert res.samples <= sum(eq_test_sample_size(i, eps, delta, budget)
                                  for i in range(1, res.queries + 1))
        assert len(res.counterexamples) == res.queries - 1
        # the consumed rows are the oracle's stream; the accepted h is right on its test
        Xall, yall = Q.ExampleOracle(target, n=n, p=p, seed=t).draw(ex.calls)
        m = eq_test_sample_size(res.queries, eps, delta, budget)
        last = slice(res.samples - m, res.samples)
        assert (res.hypothesis(Xall[last]) == yall[last]).all()
        for x, lab in res.counterexamples:
            assert lab == dnf_value(target.terms, x.tolist()) == 1
        err = float(probs[res.hypothesis(D) != target(D)].sum())
        good += err <= eps
    assert good >= (1 - delta) * trials
    assert "EQPACResult(" in repr(res)


def test_eq_to_pac_max_queries_and_learner_that_returns():
    target = Q.MonotoneDNF([[0], [1]], 4)
    ex = Q.ExampleOracle(target, n=4, seed=0)
    res = Q.eq_to_pac(lambda: Q.monotone_dnf_learner(Q.MembershipOracle(target), 4), ex, 0.1,
                      0.1, max_queries=1)
    assert res.stopped == "max_queries" and res.queries == 1 and str(res.hypothesis) == "0"
    res = Q.eq_to_pac(tiny_eq_learner, Q.ExampleOracle(target, n=4, seed=0), 0.1, 0.1)
    assert res.stopped == "learner" and res.queries == 1 and len(res.counterexamples) == 1


# ------------------------------------------------------------------------------------------------
# 8. Bad input: every public function names itself and the parameter
# ------------------------------------------------------------------------------------------------

F = lambda X: X[:, 0]          # noqa: E731


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda: Q.ExampleOracle(F), ValueError,
     r"ExampleOracle: give exactly one of the parameters n, points and sampler.*none"),
    (lambda: Q.ExampleOracle(F, n=3, points=[[0]]), ValueError,
     r"ExampleOracle: give exactly one.*\['n', 'points'\]"),
    (lambda: Q.ExampleOracle(F, n=0), ValueError,
     r"ExampleOracle: parameter n must be an integer >= 1, got 0"),
    (lambda: Q.ExampleOracle(F, n=3, p=1.5), ValueError, r"ExampleOracle: parameter p"),
    (lambda: Q.ExampleOracle(F, n=3, p=[0.5, 0.5]), ValueError, r"ExampleOracle: parameter p"),
    (lambda: Q.ExampleOracle(F, n=3, p=float("nan")), ValueError, r"ExampleOracle: parameter p"),
    (lambda: Q.ExampleOracle(F, n=3, weights=[1, 1]), ValueError,
     r"ExampleOracle: parameter weights needs points"),
    (lambda: Q.ExampleOracle(F, points=[[0], [1]], weights=[1, -1]), ValueError,
     r"ExampleOracle: parameter weights must be 2"),
    (lambda: Q.ExampleOracle(F, points=[[0], [1]], weights=[0, 0]), ValueError,
     r"ExampleOracle: parameter weights"),
    (lambda: Q.ExampleOracle(F, points=[0, 1]), ValueError,
     r"ExampleOracle: parameter points must be a non-empty 2-D"),
    (lambda: Q.ExampleOracle(F, points=[["a"]]), TypeError,
     r"ExampleOracle: parameter points must hold numbers"),
    (lambda: Q.ExampleOracle(3, n=2), TypeError, r"ExampleOracle: parameter target"),
    (lambda: Q.ExampleOracle(F, sampler=4), TypeError, r"ExampleOracle: parameter sampler"),
    (lambda: Q.ExampleOracle(F, n=2, seed=-1), ValueError, r"ExampleOracle: parameter seed"),
    (lambda: Q.ExampleOracle(F, n=2, seed=1.5), ValueError, r"ExampleOracle: parameter seed"),
    (lambda: Q.ExampleOracle(F, n=2).draw(0), ValueError,
     r"ExampleOracle.draw: parameter m must be an integer >= 1, got 0"),
    (lambda: Q.ExampleOracle(F, sampler=lambda r, m: np.zeros(m)).draw(3), ValueError,
     r"ExampleOracle: parameter sampler must return an \(m, d\) array"),
    (lambda: Q.ExampleOracle(lambda X: X, n=2).draw(3), ValueError,
     r"ExampleOracle: target must map 3 points to 3 labels"),
    (lambda: Q.MembershipOracle(None), TypeError, r"MembershipOracle: parameter target"),
    (lambda: Q.MembershipOracle(F)([[0, 1]]), ValueError,
     r"MembershipOracle: x must be one point"),
    (lambda: Q.MembershipOracle(F).query([0, 1]), ValueError,
     r"MembershipOracle.query: X must be a non-empty 2-D"),
    (lambda: Q.EquivalenceOracle(F), ValueError,
     r"EquivalenceOracle: give exactly one of the parameters n and points.*neither"),
    (lambda: Q.EquivalenceOracle(F, n=2, points=[[0]]), ValueError,
     r"EquivalenceOracle: give exactly one.*both"),
    (lambda: Q.EquivalenceOracle(F, n=-1), ValueError,
     r"EquivalenceOracle: parameter n must be an integer >= 1, got -1"),
    (lambda: Q.EquivalenceOracle(F, n=2, strategy="worst"), ValueError,
     r"EquivalenceOracle: parameter strategy must be one of"),
    (lambda: Q.EquivalenceOracle(F, n=2, strategy=3), TypeError,
     r"EquivalenceOracle: parameter strategy"),
    (lambda: Q.EquivalenceOracle(F, n=2)(5), TypeError, r"EquivalenceOracle: parameter h"),
    (lambda: Q.EquivalenceOracle(F, n=2)(lambda X: X), ValueError,
     r"EquivalenceOracle: h must map 4 points to 4 labels"),
    (lambda: Q.Conservative(mbcore.Winnow()).partial_fit("abc", [1]), TypeError,
     r"Conservative: X must be"),
    (lambda: Q.to_equivalence_learner(mbcore.Winnow, Q.EquivalenceOracle(F, n=2)), TypeError,
     r"to_equivalence_learner: parameter learner must be a learner instance"),
    (lambda: Q.to_equivalence_learner(mbcore.Winnow(), 3), TypeError,
     r"to_equivalence_learner: parameter eq"),
    (lambda: Q.to_equivalence_learner(mbcore.Winnow(), Q.EquivalenceOracle(F, n=2),
                                      classes=[1]), ValueError,
     r"to_equivalence_learner: parameter classes must hold exactly two"),
    (lambda: Q.to_equivalence_learner(mbcore.Winnow(), Q.EquivalenceOracle(F, n=2),
                                      max_queries=0), ValueError,
     r"to_equivalence_learner: parameter max_queries must be an integer >= 1, got 0"),
    (lambda: Q.monotone_dnf_learner(3, 2), TypeError, r"monotone_dnf_learner: parameter mq"),
    (lambda: Q.monotone_dnf_learner(Q.MembershipOracle(F), 0), ValueError,
     r"monotone_dnf_learner: parameter n must be an integer >= 1, got 0"),
    (lambda: Q.learn_monotone_dnf(Q.MembershipOracle(F), lambda h: None, 2), TypeError,
     r"learn_monotone_dnf: parameter eq must count its calls"),
    (lambda: Q.learn_monotone_dnf(Q.MembershipOracle(F), Q.EquivalenceOracle(F, n=2), 2.0),
     ValueError, r"learn_monotone_dnf: parameter n must be an integer"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 0, 0.1, 0.1), ValueError,
     r"online_to_pac: parameter B must be a mistake bound >= 1, got 0"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 0.5, 0.1, 0.1),
     ValueError, r"online_to_pac: parameter B must be a mistake bound >= 1, got 0.5"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), "3", 0.1, 0.1),
     ValueError, r"online_to_pac: parameter B must be a finite real"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 3, 0.0, 0.1), ValueError,
     r"online_to_pac: parameter epsilon must be a real number in \(0, 1\), got 0.0"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 3, 0.1, 1), ValueError,
     r"online_to_pac: parameter delta must be a real number in \(0, 1\), got 1"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), object(), 3, 0.1, 0.1), TypeError,
     r"online_to_pac: parameter ex must be an example oracle"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 3, 0.1, 0.1,
                             classes=[0, 1, 2]), ValueError,
     r"online_to_pac: parameter classes must hold exactly two"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 3, 0.1, 0.1,
                             max_samples=0), ValueError,
     r"online_to_pac: parameter max_samples must be an integer >= 1, got 0"),
    (lambda: Q.online_to_pac(mbcore.Winnow(), Q.ExampleOracle(F, n=2), 3, 0.1, 0.1,
                             classes=[-1, 1]), ValueError,
     r"online_to_pac: y has the label 0, outside the fitted classes \[-1, 1\]"),
    (lambda: Q.eq_to_pac(4, Q.ExampleOracle(F, n=2), 0.1, 0.1), TypeError,
     r"eq_to_pac: parameter make_learner"),
    (lambda: Q.eq_to_pac(tiny_eq_learner, Q.ExampleOracle(F, n=2), 0.1, 0.1, budget="x"),
     ValueError, r"eq_to_pac: parameter budget must be 'geometric' or 'basel', got 'x'"),
    (lambda: Q.eq_to_pac(tiny_eq_learner, Q.ExampleOracle(F, n=2), 2, 0.1), ValueError,
     r"eq_to_pac: parameter epsilon must be a real number in \(0, 1\), got 2"),
    (lambda: Q.eq_to_pac(tiny_eq_learner, Q.ExampleOracle(F, n=2), 0.1, 0.1, max_queries=-2),
     ValueError, r"eq_to_pac: parameter max_queries must be an integer >= 1, got -2"),
    (lambda: Q.eq_to_pac(lambda: iter(()), Q.ExampleOracle(F, n=2), 0.1, 0.1), TypeError,
     r"eq_to_pac: make_learner\(\) must return an EQ-learner generator"),
])
def test_bad_input_names_function_and_parameter(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# mbcore.queries.graphs (hidden graphs, group testing): in mbcore.queries only
GRAPH_NAMES = ("EdgeDetectingOracle", "GraphResult", "GroupTestResult", "QueryBudgetExceeded",
               "learn_graph", "find_edge", "find_defective", "find_defectives")
# finite automata and L* (issue 26): exported from mbcore.queries only (tests/theory/test_dfa.py,
# tests/theory/test_lstar.py); InconsistentOracleError (mbcore.exceptions) serves both
AUTOMATA = ("DFA", "lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
            "DFAEquivalenceOracle", "SamplingEquivalenceOracle", "WMethodEquivalenceOracle",
            "InconsistentOracleError", "run_dfa_demo")


def test_public_names_exported():
    for name in PUBLIC:
        assert getattr(mbcore, name) is getattr(Q, name), name
        assert name in mbcore.__all__ and name in Q.__all__, name
    from mbcore.queries import graphs
    for name in GRAPH_NAMES:
        assert getattr(Q, name) is getattr(graphs, name), name
    assert sorted(Q.__all__) == sorted(PUBLIC + GRAPH_NAMES + AUTOMATA)
    for name in AUTOMATA + GRAPH_NAMES:
        assert hasattr(Q, name) and name not in mbcore.__all__, name
    assert Q.InconsistentOracleError is mbcore.exceptions.InconsistentOracleError
