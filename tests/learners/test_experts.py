"""Experts: Weighted Majority and randomized Weighted Majority.

Sections
--------
1. Golden cases from Angluin's lecture 20, replayed exactly on both sides: the three-expert
   example (predictions 1, 0, 1; weights (1,1,1) -> (1/2,1/2,1) -> (1/4,1/2,1/2) -> (1/8,1/2,1/2);
   expert mistakes (3,1,1)), the tie rule q1 >= q0 -> 1, labels {0,1}, {-1,1} and strings; the
   randomized rule "predict 1 with probability q1/(q0+q1)" checked by frequency over seeds.
2. Parity mbcore vs mbref (``==``, no tolerance) on seeded streams: n experts in
   {1, 2, 5, 37, 200}, beta in {1/2, 1/4, 1/8, 0.7, 0.9}, WM and RWM (several seeds), advice as
   int8 / int64 / float64 / bool / strings / nested lists, fed whole and in chunks; fresh-advice
   predict / decision_function; pickling mid-stream; RWM determinism (predict never advances the
   generator).
3. Exactness for power-of-two beta: the prediction is the exact rational decision
   sum_{P_i=1} 2**l_i >= sum_{P_i=0} 2**l_i, computed here with ``fractions.Fraction`` (or Python
   integers) from log2_weights_ or from the integer state replayed from the stream; on long random
   streams and on near-tie states built through the protocol where float64 sums decide wrongly.
4. Numerics over long runs: 10**6 adversarial rounds with 1,000 experts (a plain float64 WM
   underflows to all-zero weights and degenerates; mbcore stays exact), and a noisy 1,000-expert
   stream.
5. Mistake bounds: WM's M <= (m* log2(1/b) + log2 n) / log2(2/(1+b)); randomized WM's
   E[M] <= (m* ln(1/b) + ln n) / (1-b), averaged over 30 seeds.
6. A pool of online learners as experts equals a hand-rolled WM loop over the same learners.
7. Bad input: ValueError (TypeError for None advice), all or nothing, inputs never modified.

Golden values come from the notes or are computed in this file from the stream (expert mistakes
are counted from the advice, weights are beta**m as exact fractions); never from the code under
test.  The classes are looked up when a test runs.  Nothing is skipped.
"""

import copy
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

import mbcore
import mbref
from conftest import as_list, chunk_bounds
from _experts_common import (MODS, expert_stream, mod_param, module, new, online, record,
                             rwm_bound, same_input, state, wm_bound)

# The tests marked checked (the lecture's example, parity, the vector paths and bad input) run
# on the debug build too; the long runs need the release build (tests/README.md).


def frac_weights(clf):
    """2**log2_weights_ as exact fractions (the log2 weights must be integers)."""
    out = []
    for v in as_list(clf.log2_weights_):
        assert float(v).is_integer(), v
        out.append(Fraction(2) ** int(v))
    return out


def exact_decision(log2w, p):
    """1 iff sum_{p_i=1} 2**l_i >= sum_{p_i=0} 2**l_i, exactly (integer l_i; Python integers,
    i.e. the same as comparing fractions.Fraction sums after scaling by 2**-min(l))."""
    ls = [int(v) for v in log2w]
    lo = min(ls)
    s1 = sum(1 << (li - lo) for li, pi in zip(ls, p) if pi)
    s0 = sum(1 << (li - lo) for li, pi in zip(ls, p) if not pi)
    return 1 if s1 >= s0 else 0


def fraction_decision(log2w, p):
    """The same decision with fractions.Fraction (used where the vectors are small)."""
    s1 = sum((Fraction(2) ** int(l) for l, v in zip(log2w, p) if v), Fraction(0))
    s0 = sum((Fraction(2) ** int(l) for l, v in zip(log2w, p) if not v), Fraction(0))
    return 1 if s1 >= s0 else 0


def naive_float_decision(log2w, p):
    """A float64 WM: weights 2.0**l summed left to right (what the exact mode must not do)."""
    s1 = s0 = 0.0
    for l, v in zip(log2w, p):
        if v:
            s1 += 2.0 ** l
        else:
            s0 += 2.0 ** l
    return 1 if s1 >= s0 else 0


def mistakes_before(A01, y01):
    """m[t, i] = mistakes of expert i on rounds 0..t-1 (replayed from the stream)."""
    wrong = (A01 != y01[:, None]).astype(np.int64)
    m = np.zeros_like(wrong)
    m[1:] = np.cumsum(wrong, axis=0)[:-1]
    return m


# ------------------------------------------------------------------------------------------------
# Streams and advice layouts
# ------------------------------------------------------------------------------------------------


# kind -> (dtype, label for 0, label for 1)
KINDS = {
    "int8": (np.int8, -1, 1),
    "int64": (np.int64, 0, 1),
    "float64": (np.float64, -1.0, 1.0),
    "bool": (bool, False, True),
    "str": ("<U3", "no", "yes"),
    "list37": (None, 3, 7),        # nested Python lists, labels 3 and 7
}


def encode(A01, y01, kind):
    """The 0/1 stream in a layout: (advice, labels, classes)."""
    dtype, neg, pos = KINDS[kind]
    if dtype is None:
        P = [[pos if v else neg for v in row] for row in A01.tolist()]
        y = [pos if v else neg for v in y01.tolist()]
        return P, y, [neg, pos]
    P = np.where(A01 == 1, pos, neg).astype(dtype)
    y = np.where(y01 == 1, pos, neg).astype(dtype)
    if kind == "str":
        y = y.tolist()
    return P, y, [neg, pos]


def copy_input(P):
    return copy.deepcopy(P)


def rows(P, a, b):
    return P[a:b]


def make(modname, learner, beta):
    """learner: "WM" or ("RWM", seed)."""
    if learner == "WM":
        return new(modname, "WeightedMajority", beta=beta)
    return new(modname, "RandomizedWeightedMajority", beta=beta, random_state=learner[1])


def learner_id(lr):
    return "WM" if lr == "WM" else f"RWM(rs={lr[1]})"


# ================================================================================================
# 1. Golden cases: Angluin lecture 20
# ================================================================================================

# The notes' example: three experts, weights (1,1,1).
#  x1: advice (1,1,0): q1 = 2 >= q0 = 1 -> predict 1; label 0 -> A1, A2 wrong: (1/2, 1/2, 1)
#  x2: advice (0,1,0): q1 = 1/2 < q0 = 3/2 -> predict 0; label 1 -> A1, A3 wrong: (1/4, 1/2, 1/2)
#  x3: advice (0,1,1): q1 = 1 >= q0 = 1/4 -> predict 1; label 1 -> A1 wrong: (1/8, 1/2, 1/2)
# Expert mistakes (w = (1/2)**m): (1,1,0) -> (2,1,1) -> (3,1,1).  WM: 2 mistakes, 3 rounds in
# which some expert was wrong.
H = Fraction(1, 2)
LECTURE_P = [[1, 1, 0], [0, 1, 0], [0, 1, 1]]
LECTURE_Y = [0, 1, 1]
LECTURE_PRED = [1, 0, 1]
LECTURE_W = [[1, 1, 1], [H, H, 1], [H ** 2, H, H], [H ** 3, H, H]]
LECTURE_M = [[0, 0, 0], [1, 1, 0], [2, 1, 1], [3, 1, 1]]
# Randomized WM on the same stream: P(predict 1) = q1 / (q0 + q1) = 2/3, then (1/2)/2 = 1/4,
# then 1 / (5/4) = 4/5.
LECTURE_P1 = [Fraction(2, 3), Fraction(1, 4), Fraction(4, 5)]

LABELINGS = {"01": (0, 1), "pm1": (-1, 1), "str": ("neg", "pos")}   # (notes' 0, notes' 1)


def relabel(v, labeling):
    neg, pos = LABELINGS[labeling]
    if isinstance(v, list):
        return [relabel(u, labeling) for u in v]
    return pos if v else neg


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("labeling", list(LABELINGS))
@pytest.mark.parametrize("given_classes", [False, True], ids=["inferred", "classes="])
def test_lecture20_example_row_by_row(modname, labeling, given_classes):
    neg, pos = LABELINGS[labeling]
    P, y = relabel(LECTURE_P, labeling), relabel(LECTURE_Y, labeling)
    wm = new(modname, "WeightedMajority")
    preds = []
    for t in range(3):
        r = online(modname, wm, [P[t]], [y[t]],
                   classes=[neg, pos] if (given_classes and t == 0) else None)
        preds += r["predictions"]
        assert frac_weights(wm) == LECTURE_W[t + 1]
        assert as_list(wm.expert_mistakes_) == LECTURE_M[t + 1]
        assert wm.n_seen_ == t + 1
    assert preds == relabel(LECTURE_PRED, labeling)
    assert as_list(wm.classes_) == [neg, pos]
    assert wm.mistakes_ == 2 and wm.updates_ == 3 and wm.n_experts_ == 3
    assert as_list(wm.weights_) == [0.25, 1.0, 1.0]          # relative to the best expert
    assert as_list(wm.log2_weights_) == [-3.0, -1.0, -1.0]


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("labeling", list(LABELINGS))
def test_lecture20_example_whole_batch(modname, labeling):
    P, y = relabel(LECTURE_P, labeling), relabel(LECTURE_Y, labeling)
    for layout in ("list", "array"):
        Pl = np.array(P) if layout == "array" else P
        wm = new(modname, "WeightedMajority")
        r = online(modname, wm, Pl, y)
        assert r["predictions"] == relabel(LECTURE_PRED, labeling)
        assert r["errors"] == [True, True, False] and r["mistakes"] == 2
        assert frac_weights(wm) == LECTURE_W[3]
        assert as_list(wm.expert_mistakes_) == [3, 1, 1]
        # Fresh advice on the final weights (1/8, 1/2, 1/2):
        #   (1,0,0): q1 = 1/8, q0 = 1 -> 0, share 1/9;   (0,1,1): q1 = 1, q0 = 1/8 -> 1, share 8/9
        #   (1,1,0): q1 = 5/8 >= q0 = 1/2 -> 1, share 5/9
        # decision_function is (q1 - q0) / (q0 + q1) = 2 share - 1: -7/9, 7/9, 1/9 (the float
        # 2 * fl(share) - 1), its sign the prediction's
        F = relabel([[1, 0, 0], [0, 1, 1], [1, 1, 0]], labeling)
        assert as_list(wm.predict(F)) == relabel([0, 1, 1], labeling)
        assert as_list(wm.decision_function(F)) == [2 * float(Fraction(s, 9)) - 1
                                                    for s in (1, 8, 5)]


@mod_param
@pytest.mark.parametrize("labeling", list(LABELINGS))
def test_tie_predicts_the_positive_label(modname, labeling):
    neg, pos = LABELINGS[labeling]
    # Two experts of weight 1 disagreeing: q1 = q0 = 1 -> the notes' rule q1 >= q0 predicts 1.
    for row in ([1, 0], [0, 1]):
        wm = new(modname, "WeightedMajority")
        r = online(modname, wm, [relabel(row, labeling)], [neg], classes=[neg, pos])
        assert r["predictions"] == [pos]
    # After the lecture's first round the weights are (1/2, 1/2, 1): advice (1,1,0) gives
    # q1 = 1/2 + 1/2 = 1 = q0: a tie, predicted 1 (online and by predict).
    wm = new(modname, "WeightedMajority")
    online(modname, wm, [relabel(LECTURE_P[0], labeling)], [neg])
    tie = relabel([1, 1, 0], labeling)
    assert as_list(wm.predict([tie])) == [pos]
    assert as_list(wm.decision_function([tie])) == [0.0]       # the tie: 2 * 1/2 - 1
    assert online(modname, wm, [tie], [neg])["predictions"] == [pos]
    # That round's label 0 halved experts 1 and 2 again: weights (1/4, 1/4, 1); now advice
    # (1,0,0) has q1 = 1/4 < q0 = 5/4 -> 0.
    assert frac_weights(wm) == [H ** 2, H ** 2, 1]
    assert as_list(wm.predict([relabel([1, 0, 0], labeling)])) == [neg]


@pytest.mark.checked
@mod_param
def test_lecture20_randomized_weights_and_shares(modname):
    # Randomized WM updates exactly like WM (the weights do not depend on its own predictions).
    for seed in (0, 1, 99):
        r = new(modname, "RandomizedWeightedMajority", random_state=seed)
        shares = []
        for t in range(3):
            shares += as_list(r.decision_function([LECTURE_P[t]])) if t else []
            online(modname, r, [LECTURE_P[t]], [LECTURE_Y[t]], classes=[0, 1] if t == 0 else None)
            assert frac_weights(r) == LECTURE_W[t + 1]
        assert shares == [float(LECTURE_P1[1]), float(LECTURE_P1[2])]
        assert as_list(r.expert_mistakes_) == [3, 1, 1]
        assert r.updates_ == 3 and r.n_seen_ == 3


@pytest.mark.checked
@mod_param
def test_lecture20_randomized_prediction_frequencies(modname):
    # Over K seeds the online prediction in round t is 1 with probability LECTURE_P1[t] (the
    # probabilities do not depend on earlier predictions).  Tolerance: 4.5 standard errors of a
    # binomial proportion (a false alarm has probability < 1e-5 per round).
    K = 2000
    ones = np.zeros(3)
    for s in range(K):
        r = new(modname, "RandomizedWeightedMajority", random_state=s)
        ones += np.array(online(modname, r, LECTURE_P, LECTURE_Y)["predictions"])
    for t in range(3):
        p = float(LECTURE_P1[t])
        assert abs(ones[t] / K - p) <= 4.5 * math.sqrt(p * (1 - p) / K), (t, ones[t] / K, p)


# ================================================================================================
# 2. Parity mbcore vs mbref
# ================================================================================================

NS = (1, 2, 5, 37, 200)
T_OF_N = {1: 1600, 2: 1600, 5: 1600, 37: 400, 200: 120}
BETAS = (0.5, 0.25, 0.125, 0.7, 0.9)
EXACT_BETAS = (0.5, 0.25, 0.125)
LEARNERS = ("WM", ("RWM", 0), ("RWM", 7), ("RWM", 2 ** 63 + 5))
CHUNKINGS = ("whole", 1, 7, "random")
N_FRESH = 40

_REF = {}


def ref_run(n, beta, learner, kind, seed):
    """mbref's whole-batch run (cached: the twin is the slow side)."""
    key = (n, beta, learner, kind, seed)
    if key not in _REF:
        A, y01 = expert_stream(seed, n, T_OF_N[n])
        P, y, classes = encode(A, y01, kind)
        F, _, _ = encode(expert_stream(seed + 1000, n, N_FRESH)[0], y01[:N_FRESH], kind)
        ref = make("mbref", learner, beta)
        rec = online("mbref", ref, P, y, classes=classes)
        fresh = {"predict": as_list(ref.predict(F)), "decision": as_list(ref.decision_function(F))}
        _REF[key] = (rec, state(ref, with_weights=beta in EXACT_BETAS), fresh)
    return _REF[key]


def check_against_stream(clf, A, y01, beta, rec=None, updated=None):
    """Golden facts computed from the stream itself (not from either implementation)."""
    wrong = A != y01[:, None]
    assert as_list(clf.expert_mistakes_) == wrong.sum(axis=0).tolist()
    assert clf.n_seen_ == A.shape[0]
    assert clf.updates_ == int(wrong.any(axis=1).sum())
    if updated is not None:
        assert updated == wrong.any(axis=1).tolist()
    if beta in EXACT_BETAS:
        k = -math.log2(beta)
        assert as_list(clf.log2_weights_) == [-k * m for m in wrong.sum(axis=0).tolist()]
    if rec is not None:
        assert clf.mistakes_ == rec["mistakes"] == sum(rec["errors"])


def run_mbcore_chunked(clf, P, y, bounds, classes, how):
    out = {"predictions": [], "errors": [], "mistakes": 0}
    updated = []
    for k, (a, b) in enumerate(bounds):
        cl = classes if k == 0 else None
        if how == "run":
            run = mbcore.run_online(clf, rows(P, a, b), y[a:b], classes=cl)
            r = record(run)
            updated += [bool(u) for u in as_list(run.updated)]
            out["predictions"] += r["predictions"]
            out["errors"] += r["errors"]
            out["mistakes"] += r["mistakes"]
        else:
            assert clf.partial_fit(rows(P, a, b), y[a:b], classes=cl) is clf
    return out, updated


def parity_case(n, beta, learner, kind, seed=0, chunkings=CHUNKINGS):
    rec_ref, state_ref, fresh_ref = ref_run(n, beta, learner, kind, seed)
    A, y01 = expert_stream(seed, n, T_OF_N[n])
    P, y, classes = encode(A, y01, kind)
    F, _, _ = encode(expert_stream(seed + 1000, n, N_FRESH)[0], y01[:N_FRESH], kind)
    P0, y0 = copy_input(P), copy_input(y)
    exact_w = beta in EXACT_BETAS
    for chunking in chunkings:
        bounds = chunk_bounds(T_OF_N[n], chunking, seed)
        clf = make("mbcore", learner, beta)
        rec, updated = run_mbcore_chunked(clf, P, y, bounds, classes, "run")
        assert rec == rec_ref, chunking
        assert state(clf, with_weights=exact_w) == state_ref, chunking
        check_against_stream(clf, A, y01, beta, rec, updated)
        assert {"predict": as_list(clf.predict(F)),
                "decision": as_list(clf.decision_function(F))} == fresh_ref, chunking
        if chunking != 1:
            clf2 = make("mbcore", learner, beta)
            run_mbcore_chunked(clf2, P, y, bounds, classes, "partial_fit")
            assert state(clf2, with_weights=exact_w) == state_ref, chunking
    assert same_input(P, P0) and same_input(y, y0)


@pytest.mark.checked
@pytest.mark.parametrize("learner", LEARNERS, ids=learner_id)
@pytest.mark.parametrize("beta", BETAS, ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("n", NS, ids=lambda n: f"n={n}")
def test_parity_streams(n, beta, learner):
    parity_case(n, beta, learner, "int64")


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 3)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.7), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("n", (5, 37), ids=lambda n: f"n={n}")
@pytest.mark.parametrize("kind", [k for k in KINDS if k != "int64"])
def test_parity_advice_layouts(kind, n, beta, learner):
    parity_case(n, beta, learner, kind, seed=11)


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 5)), ids=learner_id)
@pytest.mark.parametrize("beta", EXACT_BETAS, ids=lambda b: f"beta={b}")
def test_parity_through_renormalisation(beta, learner):
    # Streams long enough that the total weight falls below 2**-600 (checked here from the
    # replayed mistakes), so the cache is renormalised at least once on both sides.
    n, seed = 5, 0
    A, y01 = expert_stream(seed, n, T_OF_N[n])
    m = mistakes_before(A, y01)
    k = -math.log2(beta)
    assert (-k * m.min(axis=1) + math.log2(n) < -600).any()     # the stream reaches the regime
    parity_case(n, beta, learner, "int64", seed=seed)


@pytest.mark.parametrize("modname", MODS)
@pytest.mark.parametrize("learner", ("WM", ("RWM", 4)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.7), ids=lambda b: f"beta={b}")
def test_pickle_mid_stream_then_continue(modname, learner, beta):
    n, T = 37, 400
    A, y = expert_stream(21, n, T)
    F = expert_stream(22, n, 30)[0]
    whole = make(modname, learner, beta)
    rec_whole = online(modname, whole, A, y, classes=[0, 1])
    for cut in (1, 150, 399):
        clf = make(modname, learner, beta)
        r1 = online(modname, clf, A[:cut], y[:cut], classes=[0, 1])
        for clone in (pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf)):
            r2 = online(modname, clone, A[cut:], y[cut:])
            assert r1["predictions"] + r2["predictions"] == rec_whole["predictions"]
            assert state(clone) == state(whole)
            assert as_list(clone.predict(F)) == as_list(whole.predict(F))
            assert as_list(clone.decision_function(F)) == as_list(whole.decision_function(F))
        # The original is untouched by pickling and continues identically too.
        r3 = online(modname, clf, A[cut:], y[cut:])
        assert r1["predictions"] + r3["predictions"] == rec_whole["predictions"]


@mod_param
@pytest.mark.parametrize("beta", (0.5, 0.7), ids=lambda b: f"beta={b}")
def test_randomized_same_seed_same_run_and_predict_does_not_advance(modname, beta):
    n, T = 9, 300
    A, y = expert_stream(31, n, T)
    F = expert_stream(32, n, 200)[0]
    runs = []
    for _ in range(2):
        r = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=123)
        runs.append((online(modname, r, A, y, classes=[0, 1]), state(r)))
    assert runs[0] == runs[1]
    # Different seeds give different runs (the seed is used): among five seeds, more than one
    # distinct prediction sequence.
    seqs = set()
    for s in range(5):
        r = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=s)
        seqs.add(tuple(online(modname, r, A, y, classes=[0, 1])["predictions"]))
    assert len(seqs) > 1
    # predict / decision_function do not advance the generator.
    a = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=77)
    b = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=77)
    online(modname, a, A[:150], y[:150], classes=[0, 1])
    online(modname, b, A[:150], y[:150], classes=[0, 1])
    p1, p2 = as_list(a.predict(F)), as_list(a.predict(F))
    assert p1 == p2
    assert 0 < sum(p1) < len(p1)          # genuinely random draws (shares strictly inside (0,1))
    d1 = as_list(a.decision_function(F))
    assert d1 == as_list(a.decision_function(F))
    ra, rb = online(modname, a, A[150:], y[150:]), online(modname, b, A[150:], y[150:])
    assert ra == rb and state(a) == state(b)


@mod_param
def test_randomized_predict_matches_the_next_online_draws(modname):
    # predict on fresh advice draws from a copy of the generator: its first prediction uses the
    # same uniform as the next online round, so on a one-row batch the two agree.
    n = 6
    A, y = expert_stream(41, n, 200)
    for t0 in range(100, 130):
        r = new(modname, "RandomizedWeightedMajority", random_state=9)
        online(modname, r, A[:t0], y[:t0], classes=[0, 1])
        p = as_list(r.predict(A[t0:t0 + 1]))
        assert online(modname, r, A[t0:t0 + 1], y[t0:t0 + 1])["predictions"] == p


@pytest.mark.checked
def test_weights_attribute_parity_for_non_power_of_two_beta():
    # weights_ = 2**(l_i - max l) must be the same float on both sides (the twin's policy is bit
    # for bit).  Expert 1 wrong 318 times with beta = 0.9: l_1 = 318 additions of log2(0.9).
    k = 318
    P, y = [[1, 0]] * k, [1] * k
    a = mbcore.WeightedMajority(beta=0.9).partial_fit(P, y)
    b = mbref.WeightedMajority(beta=0.9).partial_fit(P, y)
    assert as_list(a.log2_weights_) == b.log2_weights_
    assert as_list(a.weights_) == b.weights_
    # And on a random stream with many experts.
    A, y01 = expert_stream(5, 200, 120)
    for beta in (0.7, 0.9, 0.3):
        a = mbcore.WeightedMajority(beta=beta).partial_fit(A, y01)
        b = mbref.WeightedMajority(beta=beta).partial_fit(A, y01)
        assert as_list(a.weights_) == b.weights_, beta


# ================================================================================================
# 3. Exactness (power-of-two beta)
# ================================================================================================


@pytest.mark.parametrize("n", (2, 3, 8, 40), ids=lambda n: f"n={n}")
def test_exact_decision_on_long_random_streams(n):
    # Every online prediction equals the exact decision computed from the integer state replayed
    # from the stream (l_i = -m_i, m_i = mistakes of expert i so far).  Error rates 0.4..0.6 drive
    # every weight below 2**-600 (renormalisation) and give many exact ties (n = 2: complements).
    for modname, T in (("mbcore", 4000), ("mbref", 1200 if n <= 8 else 300)):
        A, y = expert_stream(100 + n, n, T)
        m = mistakes_before(A, y)
        clf = new(modname, "WeightedMajority")
        preds = online(modname, clf, A, y, classes=[0, 1])["predictions"]
        expected = [exact_decision(-m[t], A[t]) for t in range(T)]
        assert preds == expected
        assert as_list(clf.log2_weights_) == (-(m[-1] + (A[-1] != y[-1]))).astype(float).tolist()
        if n == 2:
            ties = sum(1 for t in range(T) if m[t, 0] == m[t, 1])
            assert ties >= 5          # the stream does exercise the tie rule


@mod_param
def test_exact_decision_from_log2_weights_one_row_at_a_time(modname):
    # The decision computed with Fractions from log2_weights_ read before each round.
    n, T = 8, 700
    A, y = expert_stream(7, n, T)
    clf = new(modname, "WeightedMajority")
    online(modname, clf, A[:1], y[:1], classes=[0, 1])
    for t in range(1, T):
        lw = as_list(clf.log2_weights_)
        want = fraction_decision(lw, A[t])
        assert as_list(clf.predict(A[t:t + 1])) == [want]
        assert online(modname, clf, A[t:t + 1], y[t:t + 1])["predictions"] == [want], t


def build_state(modname, mistakes, beta=0.5, name="WeightedMajority", **kw):
    """A learner whose expert i has been wrong exactly mistakes[i] times (labels 1; in round r
    expert i predicts 0 while r < mistakes[i], else 1)."""
    R = max(mistakes)
    P = [[0 if r < k else 1 for k in mistakes] for r in range(R)]
    clf = new(modname, name, beta=beta, **kw)
    clf.partial_fit(P, [1] * R, classes=[0, 1])
    assert as_list(clf.expert_mistakes_) == list(mistakes)
    return clf


# (mistakes per expert, query advice, exact decision) -- worked out by hand, beta = 1/2:
NEAR_TIES = {
    # q0 = 1 + 2**-60 > q1 = 1 -> 0.  float64: 1 + 2**-60 == 1.0, a tie -> 1 (wrong).
    "one_tiny_tips_it": ([0, 60, 0], [0, 0, 1], 0),
    # q0 = 1 + 200 * 2**-60 > q1 = 1 + 2**-53 = 1 + 128 * 2**-60 -> 0.  float64 left to right: each
    # 2**-60 is lost against 1, and 1 + 2**-53 rounds (to even) to 1.0: a tie -> 1 (wrong).
    "many_tiny_round_away": ([0] + [60] * 200 + [0, 53], [0] + [0] * 200 + [1, 1], 0),
    # q1 = 1 + 300 * 2**-60 > q0 = 1 + 2**-52 = 1 + 256 * 2**-60 -> 1.  float64: q1 = 1.0 and
    # q0 = 1 + 2**-52 (representable) -> 0 (wrong).
    "many_tiny_win": ([0] + [60] * 300 + [0, 52], [1] + [1] * 300 + [0, 0], 1),
    # q1 = 2**-1 + ... + 2**-60 = 1 - 2**-60 < q0 = 1 -> 0.  float64: the running sum reaches
    # 1 - 2**-53 and then rounds up to 1.0 -> tie -> 1 (wrong).
    "geometric_just_below": (list(range(1, 61)) + [0], [1] * 60 + [0], 0),
    # The same plus one more 2**-60: exactly 1 = q0, a tie -> 1.
    "geometric_exact_tie": (list(range(1, 61)) + [60, 0], [1] * 61 + [0], 1),
    # Beyond float64's range relative to the leader: q0 = 1 + 5 * 2**-1100 > q1 = 1 -> 0; float64:
    # 2**-1100 == 0.0 -> tie -> 1 (wrong).
    "underflowing_tail": ([0] + [1100] * 5 + [0], [0] * 6 + [1], 0),
    # Every weight far below 2**-1074 (the cache is renormalised): q0 = 2**-1200 + 2**-1260 >
    # q1 = 2**-1200 -> 0; float64: all 0.0 -> tie -> 1 (wrong).
    "all_deep": ([1200, 1260, 1200], [0, 0, 1], 0),
}


@mod_param
@pytest.mark.parametrize("case", list(NEAR_TIES))
def test_exact_decision_on_crafted_near_ties(modname, case):
    mistakes, p, want = NEAR_TIES[case]
    # The hand-worked answer agrees with the exact oracle, and float64 in expert order gets it
    # wrong (so the case is a real near tie), except for the exact tie.
    assert fraction_decision([-k for k in mistakes], p) == want
    if case != "geometric_exact_tie":
        assert naive_float_decision([-k for k in mistakes], p) != want
    rng = np.random.default_rng(len(case))
    for trial in range(3):
        perm = np.arange(len(mistakes)) if trial == 0 else rng.permutation(len(mistakes))
        ms = [mistakes[i] for i in perm]
        ps = [p[i] for i in perm]
        clf = build_state(modname, ms)
        assert as_list(clf.log2_weights_) == [-float(k) for k in ms]
        assert as_list(clf.predict([ps])) == [want], trial
        assert as_list(clf.predict([ps, [1 - v for v in ps]]))[0] == want
        r = online(modname, clf, [ps, ps], [want, want])
        assert r["predictions"] == [want, want] and r["mistakes"] == 0, trial


SMALL_POW2 = (2.0 ** -10, 2.0 ** -53, 2.0 ** -54, 2.0 ** -60, 2.0 ** -1074)


@mod_param
@pytest.mark.parametrize("beta", SMALL_POW2, ids=lambda b: f"beta=2**{math.frexp(b)[1] - 1}")
def test_exact_decision_for_small_power_of_two_beta(modname, beta):
    # Any power of two is exact mode: l_i = -k * m_i with k = log2(1/beta), and the prediction is
    # the exact decision (the weights differ by factors 2**-k, so ties between the leaders decide).
    k = -(math.frexp(beta)[1] - 1)
    for n, seed in ((2, 1), (3, 2), (5, 3)):
        A, y = expert_stream(seed, n, 80, lo=0.3, hi=0.7)
        m = mistakes_before(A, y)
        clf = new(modname, "WeightedMajority", beta=beta)
        preds = online(modname, clf, A, y, classes=[0, 1])["predictions"]
        assert preds == [exact_decision(-k * m[t], A[t]) for t in range(len(y))], (n, seed)
        final = -k * (m[-1] + (A[-1] != y[-1]))
        assert as_list(clf.log2_weights_) == final.astype(float).tolist()


def test_small_power_of_two_beta_by_hand():
    # beta = 2**-60, two experts A, C; label 1 every round:
    #  1. advice (1,0): C wrong             l = (0, -60)
    #  2. advice (0,0): both wrong          l = (-60, -120)
    #  3. advice (1,1): nobody wrong
    #  4. advice (0,1): A wrong             l = (-120, -120)
    #  5. advice (1,0): q1 = 2**-120 = q0 -> a tie -> predict 1.
    # decision_function at that point: 2 q1 / (q0 + q1) - 1 = 0 (the tie).
    P, y = [[1, 0], [0, 0], [1, 1], [0, 1]], [1, 1, 1, 1]
    for modname in MODS:
        wm = new(modname, "WeightedMajority", beta=2.0 ** -60)
        online(modname, wm, P, y, classes=[0, 1])
        assert as_list(wm.log2_weights_) == [-120.0, -120.0]
        assert as_list(wm.decision_function([[1, 0]])) == [0.0], modname
        assert as_list(wm.predict([[1, 0]])) == [1], modname
        assert online(modname, wm, [[1, 0]], [1])["predictions"] == [1], modname


@mod_param
@pytest.mark.parametrize("beta", (0.5, 2.0 ** -60, 2.0 ** -600, 1e-200),
                         ids=("beta=0.5", "beta=2**-60", "beta=2**-600", "beta=1e-200"))
def test_unanimous_advice_is_followed_for_any_beta(modname, beta):
    # Three experts always predict 1 and the label is always 0 (all wrong every round).  Their
    # weights stay equal, so q1 / (q0 + q1) = 1: randomized WM predicts 1 with probability 1 (its
    # decision_function, the share, is 1.0), and WM predicts 1 (its decision_function,
    # 2 q1 / (q0 + q1) - 1, is 1.0 too) -- online, and by predict / decision_function between calls.
    for name in CLASSES:
        clf = new(modname, name, beta=beta)
        for t in range(6):
            if t:
                assert as_list(clf.decision_function([[1, 1, 1]])) == [1.0], (name, t)
                assert as_list(clf.predict([[1, 1, 1]])) == [1], (name, t)
            r = online(modname, clf, [[1, 1, 1]], [0], classes=[0, 1] if t == 0 else None)
            assert r["predictions"] == [1], (name, t)
        assert as_list(clf.expert_mistakes_) == [6, 6, 6]


@pytest.mark.checked
@pytest.mark.parametrize("beta", SMALL_POW2[1:], ids=lambda b: f"beta=2**{math.frexp(b)[1] - 1}")
@pytest.mark.parametrize("learner", ("WM", ("RWM", 1)), ids=learner_id)
def test_parity_for_small_power_of_two_beta(beta, learner):
    for n, seed in ((3, 2), (5, 3)):
        A, y = expert_stream(seed, n, 80, lo=0.3, hi=0.7)
        F = expert_stream(seed + 50, n, 20)[0]
        a, b = make("mbcore", learner, beta), make("mbref", learner, beta)
        assert online("mbcore", a, A, y, classes=[0, 1]) == online("mbref", b, A, y, classes=[0, 1])
        assert state(a) == state(b)
        assert as_list(a.decision_function(F)) == as_list(b.decision_function(F))
        assert as_list(a.predict(F)) == as_list(b.predict(F))


# ================================================================================================
# 4. Numerics over long runs
# ================================================================================================


def test_million_adversarial_rounds_1000_experts():
    """10**6 rounds, 1,000 random experts, each label opposite to the majority of the advice (so
    every expert is wrong in ~51% of the rounds).  A plain float64 WM (weights 0.5**m) has all
    weights 0.0 after ~1,075 mistakes per expert and then predicts 1 for ever (q1 = q0 = 0);
    mbcore keeps exact integer log2 weights and the exact decision."""
    n, T, C = 1000, 10 ** 6, 10 ** 4
    rng = np.random.default_rng(2024)
    pick = np.random.default_rng(7)
    wm = mbcore.WeightedMajority()
    m = np.zeros(n, dtype=np.int64)           # replayed mistakes per expert
    M = 0
    for c in range(T // C):
        A = np.unpackbits(rng.integers(0, 256, size=(C, n // 8), dtype=np.uint8), axis=1)
        y = (2 * A.sum(axis=1, dtype=np.int64) < n).astype(np.uint8)
        run = mbcore.run_online(wm, A, y, classes=[0, 1] if c == 0 else None)
        pred = run.predictions
        M += int(run.mistakes)
        wrong = A != y[:, None]
        if c == 0:
            # The plain NumPy WM on the first 4,000 rounds: weights 0.5**m before each round.
            W = 4000
            mb = np.zeros((W, n), dtype=np.int64)
            mb[1:] = np.cumsum(wrong[:W - 1], axis=0)
            w = np.power(0.5, mb.astype(np.float64))
            q1 = (w * A[:W]).sum(axis=1)
            q0 = (w * (1 - A[:W])).sum(axis=1)
            plain = (q1 >= q0).astype(np.uint8)
            t0 = int(np.argmax(mb.min(axis=1) >= 1075))
            assert 1075 <= t0 < W
            assert np.all(w[t0:] == 0.0)                     # every weight underflowed
            assert np.all(plain[t0:] == 1)                   # degenerate: always the tie answer
            assert (pred[t0:W] == 0).sum() > 100             # mbcore still decides
            for t in range(t0, W, 29):
                assert pred[t] == exact_decision(-mb[t], A[t]), t
            assert (plain[t0:W] != pred[t0:W]).sum() > 100
        # A sample of rounds replayed exactly from the integer state.
        cur, pos = m.copy(), 0
        for t in sorted(set([0] + pick.integers(0, C, size=3).tolist())):
            cur += wrong[pos:t].sum(axis=0)
            pos = t
            assert pred[t] == exact_decision(-cur, A[t]), (c, t)
        cur += wrong[pos:].sum(axis=0)
        m = cur
        if c % 10 == 9 or c == T // C - 1:
            l = wm.log2_weights_
            assert np.all(np.isfinite(l)) and np.array_equal(l, np.floor(l))
            assert np.array_equal(wm.expert_mistakes_, m)
            assert np.array_equal(l, -m.astype(np.float64))
    assert wm.n_seen_ == T and wm.mistakes_ == M
    assert m.min() > 500_000                                   # all wrong most of the time
    best = int(m.min())
    assert M <= (best * 1.0 + math.log2(n)) / math.log2(4 / 3)


def test_noisy_stream_1000_experts():
    # The truth z_t is random; expert i predicts z with error rate e_i in [0.1, 0.5] (expert 17:
    # 0.05); the label is z flipped with probability 0.1.
    n, T, C = 1000, 60_000, 10_000
    rng = np.random.default_rng(77)
    err = rng.uniform(0.1, 0.5, size=n)
    err[17] = 0.05
    wm = mbcore.WeightedMajority()
    rwm = mbcore.RandomizedWeightedMajority(random_state=3)
    m = np.zeros(n, dtype=np.int64)
    M = 0
    for c in range(T // C):
        z = rng.integers(0, 2, size=C).astype(np.uint8)
        A = ((rng.random((C, n)) < err) ^ z[:, None].astype(bool)).astype(np.int8)
        y = z ^ (rng.random(C) < 0.1).astype(np.uint8)
        run = mbcore.run_online(wm, A, y, classes=[0, 1] if c == 0 else None)
        rwm.partial_fit(A, y, classes=[0, 1] if c == 0 else None)
        M += run.mistakes
        wrong = A != y[:, None]
        cur, pos = m.copy(), 0
        for t in range(0, C, 997):
            cur += wrong[pos:t].sum(axis=0)
            pos = t
            assert run.predictions[t] == exact_decision(-cur, A[t])
        m = cur + wrong[pos:].sum(axis=0)
        assert np.array_equal(wm.expert_mistakes_, m)
        assert np.array_equal(wm.log2_weights_, -m.astype(np.float64))
    assert np.array_equal(rwm.expert_mistakes_, m)
    assert np.array_equal(rwm.log2_weights_, wm.log2_weights_)
    best = int(m.min())
    assert int(np.argmin(m)) == 17
    assert M <= (best + math.log2(n)) / math.log2(4 / 3)
    # One randomized run: M is a sum of independent Bernoullis (the weights do not depend on the
    # draws), Var(M) <= E[M] <= B, so four standard deviations of margin is sqrt(B) * 4.
    B = (best * math.log(2) + math.log(n)) / 0.5
    assert rwm.mistakes_ <= B + 4 * math.sqrt(B)


# ================================================================================================
# 5. Mistake bounds
# ================================================================================================


def good_expert_stream(seed, n, T):
    """Random experts (error rates 0.2..0.6) and one good one (0.05..0.15) among them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=T).astype(np.uint8)
    err = rng.uniform(0.2, 0.6, size=n)
    err[rng.integers(0, n)] = rng.uniform(0.05, 0.15)
    A = ((rng.random((T, n)) < err) ^ y[:, None].astype(bool)).astype(np.uint8)
    return A, y


@pytest.mark.parametrize("beta", (0.5, 0.25, 0.8, 0.95), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("n", (3, 20, 100), ids=lambda n: f"n={n}")
def test_wm_bound_random_streams(n, beta):
    for seed in range(4):
        A, y = good_expert_stream(seed, n, 3000)
        best = int((A != y[:, None]).sum(axis=0).min())
        wm = mbcore.WeightedMajority(beta=beta).partial_fit(A, y)
        assert wm.mistakes_ <= wm_bound(best, n, beta), (seed, wm.mistakes_, best)


@mod_param
@pytest.mark.parametrize("beta", (0.5, 0.25, 0.8), ids=lambda b: f"beta={b}")
def test_wm_bound_adaptive_adversary(modname, beta):
    # Every label is the opposite of WM's prediction: WM errs in every round, and the bound must
    # still hold with m* the best expert's mistakes on that very sequence.
    n, T = 8, 250 if modname == "mbcore" else 120
    rng = np.random.default_rng(3)
    A = rng.integers(0, 2, size=(T, n)).astype(np.uint8)
    wm = new(modname, "WeightedMajority", beta=beta)
    y = []
    for t in range(T):
        if t == 0:
            p = 1 if 2 * int(A[0].sum()) >= n else 0     # all weights 1: q1 >= q0 by counting
        else:
            p = int(as_list(wm.predict(A[t:t + 1]))[0])
        y.append(1 - p)
        wm.partial_fit(A[t:t + 1], [1 - p], classes=[0, 1] if t == 0 else None)
    assert wm.mistakes_ == T
    best = int((A != np.array(y)[:, None]).sum(axis=0).min())
    assert T <= wm_bound(best, n, beta)


def rwm_shares(A, y, beta):
    """P(predict 1) in each round, from the replayed mistakes (log-domain, float64)."""
    m = mistakes_before(A, y).astype(np.float64)
    lw = m * math.log(beta)
    w = np.exp(lw - lw.max(axis=1, keepdims=True))
    return (w * A).sum(axis=1) / w.sum(axis=1)


@pytest.mark.parametrize("beta", (0.5, 0.8), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("stream", ("good_expert", "oblivious_adversary"))
def test_rwm_expected_bound(stream, beta):
    n, T, seeds = 20, 1000, 30
    if stream == "good_expert":
        A, y = good_expert_stream(9, n, T)
    else:
        # Labels against the more probable prediction (the adversary knows the weights, not the
        # coin): every round is a mistake with probability >= 1/2.  The shares depend only on the
        # labels so far, so the stream is built round by round from the replayed weights.
        rng = np.random.default_rng(10)
        A = rng.integers(0, 2, size=(T, n)).astype(np.uint8)
        y = np.zeros(T, dtype=np.uint8)
        m = np.zeros(n)
        for t in range(T):
            lw = m * math.log(beta)
            w = np.exp(lw - lw.max())
            share = float((w * A[t]).sum() / w.sum())
            y[t] = 0 if share >= 0.5 else 1
            m += A[t] != y[t]
    best = int((A != y[:, None]).sum(axis=0).min())
    B = rwm_bound(best, n, beta)
    total = 0
    for s in range(seeds):
        r = mbcore.RandomizedWeightedMajority(beta=beta, random_state=s).partial_fit(A, y)
        total += r.mistakes_
    mean = total / seeds
    # Safety margin for the sampling error only.  RWM's weights do not depend on its own
    # predictions, so on a fixed stream M is a sum of independent Bernoulli variables with fixed
    # probabilities: Var(M) <= E[M], and E[M] <= B if the theorem holds, so the standard error of
    # the mean over `seeds` runs is at most sqrt(B / seeds).  Four of them: a false alarm has
    # probability below 1e-4.
    assert mean <= B + 4 * math.sqrt(B / seeds), (mean, B)
    # The exact expectation from the replayed shares also obeys the bound (no sampling at all).
    p1 = rwm_shares(A, y, beta)
    expected = float(np.where(y == 1, 1 - p1, p1).sum())
    assert expected <= B
    assert abs(mean - expected) <= 4 * math.sqrt(expected / seeds) + 1e-9


@mod_param
def test_rwm_expected_bound_small_on_both(modname):
    # The same on both sides, on a shorter stream (the twin is slow).
    n, T, beta = 6, 300, 0.5
    A, y = good_expert_stream(4, n, T)
    best = int((A != y[:, None]).sum(axis=0).min())
    B = rwm_bound(best, n, beta)
    total = 0
    for s in range(30):
        r = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=s)
        r.partial_fit(A, y)
        total += r.mistakes_
    assert total / 30 <= B + 4 * math.sqrt(B / 30)          # margin: see test_rwm_expected_bound


# ================================================================================================
# 6. A pool of online learners as experts
# ================================================================================================

POOL_NAMES = ("Perceptron", "Winnow", "AveragedPerceptron", "WinnowStar", "EliminationWinnow",
              "BalancedWinnow")


def bool_stream(seed, T=80, d=6):
    """Boolean rows; label x0 OR x2 with 10% noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(T, d)).astype(np.int64)
    y = (X[:, 0] | X[:, 2]).astype(np.int64)
    flip = rng.random(T) < 0.1
    return X, np.where(flip, 1 - y, y)


def expert_state(e):
    s = {"n_seen_": int(e.n_seen_), "mistakes_": int(e.mistakes_), "updates_": int(e.updates_)}
    for attr in ("coef_", "log2_coef_", "log2_coef_neg_", "intercept_"):
        if hasattr(type(e), attr) or attr in vars(e):
            try:
                s[attr] = as_list(getattr(e, attr))
            except AttributeError:
                pass
    return s


def warm_pool(modname, X, y):
    """The experts, each already fitted on the first example (so each can predict from round 0)."""
    pool = [new(modname, name) for name in POOL_NAMES]
    for e in pool:
        e.partial_fit(X[:1], y[:1], classes=[0, 1])
    return pool


def hand_rolled_wm(experts, X, y, beta):
    """The notes' WM over a pool, literally: ask every expert, q1 >= q0 with exact weights,
    penalise the wrong ones by beta, then let every expert learn the label."""
    w = [Fraction(1)] * len(experts)
    m = [0] * len(experts)
    preds = []
    for x, t in zip(X.tolist(), y.tolist()):
        adv = [int(as_list(e.predict([x]))[0]) for e in experts]
        q1 = sum((wi for wi, a in zip(w, adv) if a == 1), Fraction(0))
        q0 = sum((wi for wi, a in zip(w, adv) if a == 0), Fraction(0))
        preds.append(1 if q1 >= q0 else 0)
        for i, a in enumerate(adv):
            if a != t:
                w[i] *= beta
                m[i] += 1
        for e in experts:
            e.partial_fit([x], [t], classes=[0, 1])
    return preds, w, m


@mod_param
@pytest.mark.parametrize("beta", (Fraction(1, 2), Fraction(1, 4)), ids=["beta=1/2", "beta=1/4"])
def test_pool_equals_hand_rolled_loop(modname, beta):
    X, y = bool_stream(1)
    pool = warm_pool(modname, X, y)
    hand = copy.deepcopy(pool)
    X0, y0 = X.copy(), y.copy()
    wm = new(modname, "WeightedMajority", beta=float(beta), experts=pool)
    r = online(modname, wm, X[1:], y[1:], classes=[0, 1])
    preds, w, m = hand_rolled_wm(hand, X[1:], y[1:], beta)
    assert r["predictions"] == preds
    assert as_list(wm.expert_mistakes_) == m
    assert frac_weights(wm) == w
    assert wm.n_experts_ == len(POOL_NAMES) and wm.n_seen_ == len(y) - 1
    assert [expert_state(e) for e in pool] == [expert_state(e) for e in hand]
    assert np.array_equal(X, X0) and np.array_equal(y, y0)
    # predict / decision_function on fresh rows ask the experts, without changing anything.
    Xf, _ = bool_stream(2, T=15)
    adv = [[int(as_list(e.predict([x]))[0]) for e in hand] for x in Xf.tolist()]
    q = [(sum((wi for wi, a in zip(w, row) if a == 1), Fraction(0)),
          sum((wi for wi, a in zip(w, row) if a == 0), Fraction(0))) for row in adv]
    before = [expert_state(e) for e in pool]
    assert as_list(wm.predict(Xf)) == [1 if q1 >= q0 else 0 for q1, q0 in q]
    # The score 2 q1 / (q0 + q1) - 1 is a float computed from float64 sums of the weights: equal
    # to the exact (q1 - q0) / (q0 + q1) up to rounding (an absolute 1e-13 covers a handful of
    # roundings), with the sign of the prediction.
    df = as_list(wm.decision_function(Xf))
    assert len(df) == len(q)
    for d, (q1, q0) in zip(df, q):
        assert abs(d - float((q1 - q0) / (q0 + q1))) <= 1e-13
        assert (d >= 0) == (q1 >= q0)
    assert [expert_state(e) for e in pool] == before


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 2)), ids=learner_id)
def test_pool_parity_unfitted_experts(learner):
    # Fresh (unfitted) experts on both sides: the compiled pool and the twin's agree exactly.
    X, y = bool_stream(3)
    out = []
    for modname in MODS:
        pool = [new(modname, name) for name in POOL_NAMES]
        wm = make(modname, learner, 0.5)
        wm.experts = pool
        r = online(modname, wm, X, y, classes=[0, 1])
        out.append((r, state(wm), [expert_state(e) for e in pool]))
    assert out[0] == out[1]


@mod_param
@pytest.mark.parametrize("failure", ("label_outside_pair", "row_of_wrong_width"))
def test_pool_all_or_nothing(modname, failure):
    # A failing call leaves the pool learner and its experts as they were.
    X, y = bool_stream(4)
    pool = warm_pool(modname, X, y)
    wm = new(modname, "WeightedMajority", experts=pool)
    wm.partial_fit(X[1:40], y[1:40], classes=[0, 1])
    before = (state(wm), [expert_state(e) for e in pool])
    Xb, yb = X[40:44].tolist(), y[40:44].tolist()
    if failure == "label_outside_pair":
        yb[-1] = 5
    else:
        Xb[2] = Xb[2][:-1]
    with pytest.raises(ValueError):
        wm.partial_fit(Xb, yb)
    assert (state(wm), [expert_state(e) for e in pool]) == before


# ================================================================================================
# 7. Bad input
# ================================================================================================

BAD_BETAS = (0, 1, -0.5, 1.5, float("nan"), float("inf"), 10 ** 400, True, "x", None, [0.5])
BAD_SEEDS = (-1, 1.0, True, "3", None, 0.5)
GOOD_P = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], dtype=np.int64)
GOOD_Y = np.array([1, 0, 1, 1], dtype=np.int64)
MORE_P = np.array([[1, 1, 1], [0, 1, 0], [1, 0, 0]], dtype=np.int64)
MORE_Y = np.array([0, 1, 1], dtype=np.int64)


def fitted(modname, name):
    clf = new(modname, name)
    clf.partial_fit(GOOD_P, GOOD_Y)
    return clf


def assert_unfitted(modname, clf):
    with pytest.raises(module(modname).NotFittedError):
        clf.mistakes_
    with pytest.raises(module(modname).NotFittedError):
        clf.predict(GOOD_P)


def continues_like_fresh(modname, name, clf, **params):
    """After a failed call, the learner continues exactly like one that never saw it."""
    ref = new(modname, name, **params)
    ref.partial_fit(GOOD_P, GOOD_Y)
    a = online(modname, clf, MORE_P, MORE_Y)
    b = online(modname, ref, MORE_P, MORE_Y)
    assert a == b and state(clf) == state(ref)


CLASSES = ("WeightedMajority", "RandomizedWeightedMajority")


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("beta", BAD_BETAS, ids=repr)
def test_bad_beta(modname, name, beta):
    clf = new(modname, name, beta=beta)
    P0 = GOOD_P.copy()
    with pytest.raises(ValueError):
        clf.partial_fit(GOOD_P, GOOD_Y)
    assert_unfitted(modname, clf)
    assert np.array_equal(GOOD_P, P0)
    # Set on a fitted learner: the next call fails and changes nothing.
    clf = fitted(modname, name)
    before = state(clf)
    clf.set_params(beta=beta)
    with pytest.raises(ValueError):
        clf.partial_fit(MORE_P, MORE_Y)
    assert state(clf) == before
    clf.set_params(beta=0.5)
    continues_like_fresh(modname, name, clf)


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_bad_random_state(modname, seed):
    name = "RandomizedWeightedMajority"
    clf = new(modname, name, random_state=seed)
    with pytest.raises(ValueError):
        clf.partial_fit(GOOD_P, GOOD_Y)
    assert_unfitted(modname, clf)
    clf = fitted(modname, name)
    before = state(clf)
    clf.set_params(random_state=seed)
    with pytest.raises(ValueError):
        clf.partial_fit(MORE_P, MORE_Y)
    assert state(clf) == before
    clf.set_params(random_state=0)
    continues_like_fresh(modname, name, clf)


# name -> (advice, labels, exception); on a learner fitted with 3 experts and labels {0, 1}
LATER_BAD = {
    "wrong_width": ([[1, 0], [0, 1]], [1, 0], ValueError),
    "wider": (np.ones((2, 4), dtype=np.int64), [1, 0], ValueError),
    "value_outside_labels": ([[1, 0, 2]], [1], ValueError),
    "value_outside_in_last_row": ([[1, 0, 1], [0, 1, 1], [1, 0, -1]], [1, 0, 1], ValueError),
    "nan_advice": (np.array([[1.0, 0.0, np.nan]]), [1], ValueError),
    "string_advice": ([["1", "0", "1"]], [1], ValueError),
    "one_d_list": ([1, 0, 1], [1], ValueError),
    "one_d_array": (np.array([1, 0, 1]), [1], ValueError),
    "three_d": (np.zeros((1, 1, 3), dtype=np.int64), [1], ValueError),
    "empty_rows": (np.zeros((0, 3), dtype=np.int64), [], ValueError),
    "empty_list": ([], [], ValueError),
    "y_too_long": ([[1, 0, 1]], [1, 0], ValueError),
    "y_too_short": ([[1, 0, 1], [0, 0, 1]], [1], ValueError),
    "label_outside_pair": ([[1, 0, 1]], [2], ValueError),
    "label_outside_pair_last_row": ([[1, 0, 1], [1, 1, 1], [0, 0, 0]], [1, 0, 3], ValueError),
    "none_advice": (None, [1], TypeError),
}


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("case", list(LATER_BAD))
def test_bad_advice_on_a_fitted_learner(modname, name, case):
    P, y, exc = LATER_BAD[case]
    P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
    clf = fitted(modname, name)
    before = state(clf)
    F = MORE_P
    pred_before = as_list(clf.predict(F))
    with pytest.raises(exc):
        clf.partial_fit(P, y)
    with pytest.raises(exc):
        module(modname).run_online(clf, P, y)
    assert state(clf) == before
    assert as_list(clf.predict(F)) == pred_before
    assert same_input(P, P0) and same_input(y, y0)
    continues_like_fresh(modname, name, clf)


# On a fresh learner: the first call fails and leaves it unfitted.
FIRST_BAD = {
    "one_d_list": ([1, 0, 1], [1, 0, 1], ValueError),
    "one_d_strings": (["yes", "no", "yes"], ["yes", "no", "yes"], ValueError),
    "one_d_equal_length_strings": (["ab", "ba"], ["a", "b"], ValueError),
    "three_d": (np.zeros((2, 1, 3), dtype=np.int64), [1, 0], ValueError),
    "empty_rows": (np.zeros((0, 3), dtype=np.int64), [], ValueError),
    "no_experts": (np.zeros((2, 0), dtype=np.int64), [1, 0], ValueError),
    "y_length_mismatch": ([[0, 1], [0, 1]], [0, 1, 1], ValueError),
    "advice_outside_given_classes": ([[0, 1], [5, 1]], [0, 1], ValueError),
    "none_advice": (None, [0, 1], TypeError),
}


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("case", list(FIRST_BAD))
def test_bad_first_call(modname, name, case):
    P, y, exc = FIRST_BAD[case]
    P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
    clf = new(modname, name)
    classes = [0, 1] if case == "advice_outside_given_classes" else None
    with pytest.raises(exc):
        clf.partial_fit(P, y, classes=classes)
    assert_unfitted(modname, clf)
    assert same_input(P, P0) and same_input(y, y0)
    # Then it learns like a fresh learner.
    clf.partial_fit(GOOD_P, GOOD_Y)
    continues_like_fresh(modname, name, clf)


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("experts", ([], (), "Perceptron"), ids=repr)
def test_bad_experts_parameter(modname, name, experts):
    clf = new(modname, name, experts=experts)
    with pytest.raises(ValueError):
        clf.partial_fit(GOOD_P, GOOD_Y)
    assert_unfitted(modname, clf)


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
def test_bad_advice_to_predict_and_decision_function(modname, name):
    clf = fitted(modname, name)
    before = state(clf)
    for P, exc in (([[1, 0]], ValueError), ([[1, 0, 2]], ValueError), ([1, 0, 1], ValueError),
                   (np.zeros((1, 1, 3)), ValueError), (None, TypeError)):
        with pytest.raises(exc):
            clf.predict(P)
        with pytest.raises(exc):
            clf.decision_function(P)
    assert state(clf) == before
    fresh = new(modname, name)
    with pytest.raises(module(modname).NotFittedError):
        fresh.predict(GOOD_P)
    with pytest.raises(module(modname).NotFittedError):
        fresh.decision_function(GOOD_P)


@mod_param
@pytest.mark.parametrize("name", CLASSES)
def test_inputs_never_modified(modname, name):
    for kind in KINDS:
        A, y01 = expert_stream(8, 7, 60)
        P, y, classes = encode(A, y01, kind)
        P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
        clf = new(modname, name)
        module(modname).run_online(clf, P, y, classes=classes)
        clf.partial_fit(P, y)
        clf.predict(P)
        clf.decision_function(P)
        assert same_input(P, P0) and same_input(y, y0), kind
        if isinstance(P, np.ndarray):
            Pf = np.asfortranarray(P)        # a non-contiguous layout is accepted and not touched
            Pf0 = Pf.copy(order="F")
            assert as_list(clf.predict(Pf)) == as_list(clf.predict(P))
            assert np.array_equal(Pf, Pf0)


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_later_classes_must_match_the_fitted_pair(mod):
    """Like every other learner: classes= on a later call must name the fitted pair."""
    wm = mod.WeightedMajority().partial_fit([[0, 1], [1, 1]], [1, 0], classes=[0, 1])
    before = list(wm.log2_weights_)
    with pytest.raises(ValueError, match="classes"):
        wm.partial_fit([[0, 1]], [1], classes=[1, 2])
    assert list(wm.log2_weights_) == before


# ================================================================================================
# The vector paths of the compiled loops (AVX2 / SSE2 / scalar) give the same run
# ================================================================================================


@pytest.mark.checked
@pytest.mark.parametrize("n", [1, 3, 4, 15, 16, 17, 33, 250])
@pytest.mark.parametrize("beta", [0.5, 0.25, 0.3])
def test_vector_paths_agree_with_twin(n, beta):
    """The compiled loops pick AVX2 at run time when the CPU has it, else SSE2 (a scalar build:
    MBCORE_NO_SIMD=1, run by CI's debug build).  Every available path gives the twin's run."""
    from mbcore._kernels import experts as k
    rng = np.random.default_rng(1000 * n + int(beta * 100))
    P = rng.integers(0, 2, (400, n))
    y = rng.integers(0, 2, 400)
    ref = mbref.run_online(mbref.WeightedMajority(beta=beta), P.tolist(), y.tolist())
    default = k.simd_level()
    try:
        for level in sorted({default, min(default, 1)}):
            k.simd_level(level)
            wm = mbcore.WeightedMajority(beta=beta)
            run = mbcore.run_online(wm, P, y)
            assert run.predictions.tolist() == ref.predictions, level
            assert wm.log2_weights_.tolist() == mbref_state_l(P, y, beta)
    finally:
        k.simd_level(2)
    assert k.simd_level() == default


def mbref_state_l(P, y, beta):
    w = mbref.WeightedMajority(beta=beta).partial_fit(P.tolist(), y.tolist())
    return w.log2_weights_
