"""The multiplicative family: Winnow2, elimination Winnow, Winnow*, Balanced
Winnow.

Sections
--------
1. Golden cases replayed exactly on both sides: the lecture-18 table (Angluin, seed 001), Kanade's
   Alg. 4 (threshold n/2, demotion to exactly 0; seed 004), Winnow* halving only the weights >= 1
   (lecture 19), Balanced Winnow's w+/w- update and the real-valued update w_i * alpha**x_i, all
   worked out by hand in the comments (never read from the code under test).
2. Parity mbcore vs mbref (bit for bit, ``==``) on seeded streams and hypothesis cases, every
   class and option, every input layout, whole and chunked; ``fit`` with its stopping rule.
3. Exactness: in exact mode (Boolean features, alpha, beta and w0 powers of two) the prediction is
   the exact rational decision sum_{x_i=1} 2**l_i >= theta.  Checked against an oracle written in
   this file (integer exponents, ``fractions.Fraction``), on states built through the protocol
   where float64 sums give the wrong answer, and on a 10**6-step run replayed in NumPy.
4. Mistake bounds on generated monotone disjunctions and drifting targets.
5. Long runs (10**7 steps, in chunks of 10**5 rows) stay finite and exact.
6. Bad input: ValueError (TypeError for non-numeric data), all or nothing, inputs never modified.

The compiled classes are looked up when a test runs (not at collection), so while mbcore has no
Winnow yet its cases fail and the mbref cases run.  Nothing is skipped.
"""

import copy
import inspect
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
import mbref.multiplicative as mbref_mult
from conftest import (DuckCSR, as_list, chunk_bounds, csr_from_dense, run_chunked, run_record,
                      take_rows)
# the learners by name, and the exact replay of long runs (shared with test_long_runs.py)
from _winnow_replay import (_exp2, adversarial_chunks, learner_cls, log2_as_int, make, module, new,
                            noisy_chunks, run_and_replay)

# The tests marked checked (the lecture's tables, parity and bad input) run on the debug build
# too; the long runs need the release build (tests/README.md).

MODS = ("mbcore", "mbref")
mod_param = pytest.mark.parametrize("modname", MODS)
CLASS_NAMES = ("Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow")
EXACT_CLASSES = ("Winnow", "EliminationWinnow", "WinnowStar")


def run_online(modname, clf, X, y, classes=None):
    return run_record(module(modname).run_online(clf, X, y, classes=classes))


def canon(v):
    """Plain Python values with NaN made comparable (NaN != NaN would hide equal results)."""
    v = as_list(v)
    if isinstance(v, list):
        return [canon(u) for u in v]
    if isinstance(v, dict):
        return {k: canon(u) for k, u in v.items()}
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def state(clf):
    """Everything observable about a fitted Winnow learner, comparable with ==."""
    s = {"n_seen_": int(clf.n_seen_), "mistakes_": int(clf.mistakes_),
         "updates_": int(clf.updates_), "classes_": as_list(clf.classes_),
         "n_features_in_": int(clf.n_features_in_), "theta_": float(clf.theta_),
         "log2_coef_": as_list(clf.log2_coef_), "coef_": as_list(clf.coef_)}
    if type(clf).__name__ == "BalancedWinnow":
        s["log2_coef_neg_"] = as_list(clf.log2_coef_neg_)
    return canon(s)


def frozen(clf):
    return copy.deepcopy(state(clf))


def lg(weights):
    """Exact log2 of hand-computed weights (powers of two, 0 -> -inf)."""
    out = []
    for w in weights:
        if w == 0:
            out.append(-math.inf)
        else:
            m, e = math.frexp(w)
            assert m == 0.5, w
            out.append(float(e - 1))
    return out


# ------------------------------------------------------------------------------------------------
# Input layouts
# ------------------------------------------------------------------------------------------------

BOOL_FORMATS = ("u8", "bool", "i64", "f64", "csr_i32", "csr_i64", "csr_u8", "index")
REAL_FORMATS = ("f64", "f32", "csr_i32", "csr_i64")


def fmt_X(X, fmt):
    """The dense 0/1 (or real) array X in a layout.  'index' = lists of active indices."""
    X = np.asarray(X)
    if fmt == "u8":
        return np.ascontiguousarray(X, dtype=np.uint8)
    if fmt == "bool":
        return np.ascontiguousarray(X, dtype=bool)
    if fmt == "i64":
        return np.ascontiguousarray(X, dtype=np.int64)
    if fmt == "f64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if fmt == "f32":
        return np.ascontiguousarray(X, dtype=np.float32)
    if fmt == "csr_i32":
        return csr_from_dense(np.asarray(X, np.float64), np.int32, np.float64)
    if fmt == "csr_i64":
        return csr_from_dense(np.asarray(X, np.float64), np.int64, np.float32)
    if fmt == "csr_u8":
        return sp.csr_array(np.asarray(X, dtype=np.uint8))
    if fmt == "index":
        return [np.flatnonzero(r).tolist() for r in X]
    raise AssertionError(fmt)


def fmt_extra(fmt, d):
    """Index lists need the learner's n_features."""
    return {"n_features": d} if fmt == "index" else {}


# ------------------------------------------------------------------------------------------------
# Streams
# ------------------------------------------------------------------------------------------------


def bool_stream(seed, n, d, k=2, p=0.3, noise=0.1):
    """0/1 rows (some empty, some repeated) labelled by a k-variable disjunction, labels flipped
    with probability ``noise``; labels 0/1."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < p).astype(np.uint8)
    X[rng.random(n) < 0.06] = 0
    if n > 10:
        rep = rng.integers(0, n, size=n // 8)
        X[rng.integers(0, n, size=rep.shape[0])] = X[rep]
    rel = rng.choice(d, size=min(k, d), replace=False)
    y = X[:, rel].any(axis=1).astype(np.int64)
    y ^= (rng.random(n) < noise).astype(np.int64)
    return X, y


def real_rows(seed, n, d):
    """Real values with exact zeros (labels -1/+1 from a noisy hyperplane)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=(n, 1))
    X[rng.random((n, d)) < 0.3] = 0.0
    X[rng.random(n) < 0.06] = 0.0
    u = rng.normal(size=d)
    y = np.where(X @ u + 0.3 * rng.normal(size=n) > 0, 1, -1).astype(np.int64)
    return X, y


# ================================================================================================
# 1. Golden cases
# ================================================================================================

# Angluin, lecture 18 (n = 5, threshold n, x2 / /2).  The notes print, for each example, the weight
# row before it, the sum over the active weights, the prediction and the label:
#   w = 1 1 1 1 1  ; 01111: 1+1+1+1 = 4 < 5 -> 0, label 1 -> double w2..w5
#   w = 1 2 2 2 2  ; 00110: 2+2     = 4 < 5 -> 0, label 1 -> double w3, w4
#   w = 1 2 4 4 2  ; 10001: 1+2     = 3 < 5 -> 0, label 1 -> double w1, w5
#   w = 2 2 4 4 4  ; 01010: 2+4     = 6 >= 5 -> 1, label 0 -> halve w2, w4
#   w = 2 1 4 2 4  ; 10010: 2+2     = 4 < 5 -> 0, label 1 -> double w1, w4
#   w = 4 1 4 4 4  ; 01010: 1+4     = 5 >= 5 -> 1 (the tie predicts 1), label 0 -> halve w2, w4
#   w = 4 1/2 4 2 4
# (every sum printed in the notes agrees with its weight row; all six examples are mistakes.)
L18_X = np.array([[0, 1, 1, 1, 1], [0, 0, 1, 1, 0], [1, 0, 0, 0, 1], [0, 1, 0, 1, 0],
                  [1, 0, 0, 1, 0], [0, 1, 0, 1, 0]], dtype=np.uint8)
L18_Y = np.array([1, 1, 1, 0, 1, 0])
L18_W = [[1, 1, 1, 1, 1], [1, 2, 2, 2, 2], [1, 2, 4, 4, 2], [2, 2, 4, 4, 4], [2, 1, 4, 2, 4],
         [4, 1, 4, 4, 4], [4, 0.5, 4, 2, 4]]
L18_SUMS = [4, 4, 3, 6, 4, 5]
L18_PRED = [0, 0, 0, 1, 0, 1]


@pytest.mark.checked
@pytest.mark.parametrize("fmt", BOOL_FORMATS)
@mod_param
def test_lecture18_table_row_by_row(modname, fmt):
    clf = new(modname, "Winnow", **fmt_extra(fmt, 5))
    rec = run_online(modname, clf, fmt_X(L18_X[:1], fmt), L18_Y[:1], classes=[0, 1])
    assert rec["predictions"] == [0]
    assert state(clf)["theta_"] == 5.0
    for t in range(1, 6):
        assert state(clf)["coef_"] == [float(w) for w in L18_W[t]], t
        assert state(clf)["log2_coef_"] == lg(L18_W[t]), t
        row = fmt_X(L18_X[t:t + 1], fmt)
        # decision_function is the sum less theta (> 0 exactly where the rule says 1, and
        # the tie 5 >= 5 gives 0, predicted 1)
        assert canon(clf.decision_function(row)) == [float(L18_SUMS[t]) - 5.0], t
        assert canon(clf.predict(row)) == [L18_PRED[t]], t
        rec = run_online(modname, clf, row, L18_Y[t:t + 1])
        assert rec["predictions"] == [L18_PRED[t]], t
        assert rec["errors"] == [True] and rec["updated"] == [True], t
    s = state(clf)
    assert s["log2_coef_"] == [2.0, -1.0, 2.0, 1.0, 2.0]
    assert s["coef_"] == [4.0, 0.5, 4.0, 2.0, 4.0]
    assert (s["n_seen_"], s["mistakes_"], s["updates_"]) == (6, 6, 6)


@pytest.mark.checked
@mod_param
def test_lecture18_table_whole_batch(modname):
    clf = new(modname, "Winnow")
    rec = run_online(modname, clf, L18_X, L18_Y)
    assert rec["predictions"] == L18_PRED
    assert rec["errors"] == [True] * 6 and rec["mistake_curve"] == [1, 2, 3, 4, 5, 6]
    s = state(clf)
    assert s == {"n_seen_": 6, "mistakes_": 6, "updates_": 6, "classes_": [0, 1],
                 "n_features_in_": 5, "theta_": 5.0, "log2_coef_": lg(L18_W[6]),
                 "coef_": [4.0, 0.5, 4.0, 2.0, 4.0]}
    # The sums of the notes' first rows under the final weights, 1/2+4+2+4 and 4+2, less theta.
    assert canon(clf.decision_function(L18_X[:2])) == [10.5 - 5.0, 6.0 - 5.0]


@pytest.mark.checked
@mod_param
def test_lecture18_fit_converges_in_two_epochs(modname):
    """After the first pass (the table) the weights are 4 1/2 4 2 4; the second pass predicts
    every example right: 01111 -> 10.5 >= 5, 00110 -> 6, 10001 -> 8, 01010 -> 2.5 < 5,
    10010 -> 6, 01010 -> 2.5.  So fit converges after 2 epochs with 6 and 0 mistakes."""
    clf = new(modname, "Winnow", max_epochs=10)
    assert clf.fit(L18_X, L18_Y) is clf
    assert bool(clf.converged_) is True and bool(clf.cycled_) is False
    assert int(clf.n_iter_) == 2
    assert as_list(clf.epoch_mistakes_) == [6, 0]
    assert (clf.n_seen_, clf.mistakes_, clf.updates_) == (12, 6, 6)
    assert canon(clf.log2_coef_) == [2.0, -1.0, 2.0, 1.0, 2.0]
    assert canon(clf.predict(L18_X)) == [1, 1, 1, 0, 1, 0]


@mod_param
def test_fit_detects_a_cycle(modname):
    """n = 1, theta = 1: ({0}, 1) then ({0}, 0).  Epoch 1: 1 >= 1 right; then a false positive
    halves w to 1/2.  Epoch 2: 1/2 < 1 wrong (w -> 1), then wrong again (w -> 1/2): the weights at
    the end of epoch 2 equal those of epoch 1, so fit stops with cycled_."""
    X = np.array([[1], [1]], dtype=np.uint8)
    y = np.array([1, 0])
    clf = new(modname, "Winnow", theta=1.0, max_epochs=50).fit(X, y)
    assert bool(clf.cycled_) is True and bool(clf.converged_) is False
    assert int(clf.n_iter_) == 2
    assert as_list(clf.epoch_mistakes_) == [1, 2]
    assert (clf.n_seen_, clf.mistakes_) == (4, 3)
    assert canon(clf.log2_coef_) == [-1.0]


@mod_param
def test_winnow_parameters_by_hand(modname):
    """alpha=4, beta=1/2, w0=1/2, theta=3, n=3.
    w = 1/2 1/2 1/2; 111: 3/2 < 3 -> 0, label 1 -> x4: 2 2 2
                     110: 4 >= 3 -> 1, label 0 -> /2: 1 1 2
                     011: 1+2 = 3 >= 3 -> 1, label 1 (right)
                     100: 1 < 3 -> 0, label 1 -> x4: 4 1 2"""
    X = np.array([[1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=np.uint8)
    clf = new(modname, "Winnow", alpha=4.0, beta=0.5, w0=0.5, theta=3.0)
    rec = run_online(modname, clf, X, [1, 0, 1, 1])
    assert rec["predictions"] == [0, 1, 1, 0]
    assert state(clf)["log2_coef_"] == [2.0, 0.0, 1.0]
    assert state(clf)["coef_"] == [4.0, 1.0, 2.0]
    assert state(clf)["theta_"] == 3.0
    assert (clf.mistakes_, clf.updates_) == (3, 3)
    # beta = 1/4 with alpha = 2 (n = 2, theta = 2): 11 -> 2 >= 2, label 0 -> /4: 1/4 1/4;
    # 10 -> 1/4 < 2, label 1 -> x2: 1/2 1/4.
    clf = new(modname, "Winnow", beta=0.25)
    rec = run_online(modname, clf, np.array([[1, 1], [1, 0]]), [0, 1])
    assert rec["predictions"] == [1, 0]
    assert state(clf)["log2_coef_"] == [-1.0, -2.0]
    # beta = 0 (elimination inside Winnow, theta = n = 2): 11 -> 2 >= 2, label 0 -> both 0;
    # 10 -> 0 < 2, label 1 -> 2 * 0 = 0 (a weight of 0 never comes back).
    clf = new(modname, "Winnow", beta=0.0)
    rec = run_online(modname, clf, np.array([[1, 1], [1, 0], [0, 1]]), [0, 1, 1])
    assert rec["predictions"] == [1, 0, 0]
    assert state(clf)["log2_coef_"] == [-math.inf, -math.inf]
    assert state(clf)["coef_"] == [0.0, 0.0]


# Kanade Alg. 4 on n = 6 (threshold n/2 = 3), worked by hand:
#  1. 110000 y=1: 1+1 = 2 < 3 -> 0 (FN): w0 = w1 = 2           l = 1 1 0 0 0 0
#  2. 011100 y=0: 2+1+1 = 4 >= 3 -> 1 (FP): w1 = w2 = w3 = 0   l = 1 -inf -inf -inf 0 0
#  3. 110000 y=1: 2+0 = 2 < 3 -> 0 (FN): w0 = 4, w1 = 2*0 = 0  l = 2 -inf -inf -inf 0 0
#  4. 100011 y=1: 4+1+1 = 6 -> 1 right
#  5. 000011 y=0: 2 < 3 -> 0 right
#  6. 010011 y=0: 0+1+1 = 2 -> 0 right
#  7. 100000 y=1: 4 >= 3 -> 1 right
#  8. 001011 y=0: 0+1+1 = 2 -> 0 right
#  9. 000111 y=1: 0+1+1 = 2 < 3 -> 0 (FN): w4 = w5 = 2 (w3 stays 0)
# 10. 000011 y=0: 2+2 = 4 >= 3 -> 1 (FP): w4 = w5 = 0           l = 2 -inf -inf -inf -inf -inf
ELIM_X = np.array([[1, 1, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 1, 1],
                   [0, 0, 0, 0, 1, 1], [0, 1, 0, 0, 1, 1], [1, 0, 0, 0, 0, 0], [0, 0, 1, 0, 1, 1],
                   [0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1]], dtype=np.uint8)
ELIM_Y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 0])
ELIM_PRED = [0, 1, 0, 1, 0, 0, 1, 0, 0, 1]
ELIM_LOG = [[1, 1, 0, 0, 0, 0], [1, None, None, None, 0, 0], [2, None, None, None, 0, 0]] + \
    [[2, None, None, None, 0, 0]] * 5 + [[2, None, None, None, 1, 1], [2] + [None] * 5]


@pytest.mark.parametrize("fmt", ("u8", "csr_i64", "index"))
@mod_param
def test_elimination_winnow_by_hand(modname, fmt):
    clf = new(modname, "EliminationWinnow", **fmt_extra(fmt, 6))
    preds = []
    for t in range(10):
        r = run_online(modname, clf, fmt_X(ELIM_X[t:t + 1], fmt), ELIM_Y[t:t + 1],
                       classes=[0, 1] if t == 0 else None)
        preds += r["predictions"]
        assert state(clf)["log2_coef_"] == [-math.inf if v is None else float(v)
                                            for v in ELIM_LOG[t]], t
    assert preds == ELIM_PRED
    s = state(clf)
    assert s["theta_"] == 3.0
    assert s["coef_"] == [4.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert (s["mistakes_"], s["updates_"], s["n_seen_"]) == (5, 5, 10)


@mod_param
def test_elimination_threshold_is_half_n(modname):
    """n = 5: theta = 5/2.  Two unit weights sum to 2 < 5/2 -> 0; three sum to 3 -> 1."""
    clf = new(modname, "EliminationWinnow")
    rec = run_online(modname, clf, np.array([[1, 1, 0, 0, 0], [1, 1, 1, 0, 0]]), [0, 1])
    assert rec["predictions"] == [0, 1] and rec["mistakes"] == 0
    assert state(clf)["theta_"] == 2.5
    # explicit theta: 1 -> the single unit weight already predicts 1; a false positive kills it
    clf = new(modname, "EliminationWinnow", theta=1.0)
    rec = run_online(modname, clf, np.array([[0, 1, 0], [0, 1, 0]]), [0, 1])
    assert rec["predictions"] == [1, 0]
    assert state(clf)["log2_coef_"] == [0.0, -math.inf, 0.0]


# Winnow* (lecture 19) on n = 4, theta = 4, worked by hand:
#  1. 1111 y=0: 4 >= 4 -> FP; every weight is 1 >= 1: halve all   l = -1 -1 -1 -1
#  2-4. 1000 y=1: 1/2, 1, 2 < 4 -> FN three times                   l =  2 -1 -1 -1
#  5. 1100 y=0: 4 + 1/2 >= 4 -> FP; w0 = 4 >= 1 halved, w1 = 1/2 < 1 stays 1/2
#                                                                    l =  1 -1 -1 -1
#  6. 0110 y=0: 1/2+1/2 = 1 -> 0 right;  7. 1011 y=0: 2+1/2+1/2 = 3 -> 0 right
#  8. 1000 y=1: 2 < 4 -> FN -> l0 = 2;   9. 1100 y=0: 4.5 -> FP: l0 = 1, w1 stays 1/2 again
# Plain Winnow2 on the same stream halves w1 at steps 5 and 9: l = 1 -3 -1 -1.
STAR_X = np.array([[1, 1, 1, 1], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0],
                   [0, 1, 1, 0], [1, 0, 1, 1], [1, 0, 0, 0], [1, 1, 0, 0]], dtype=np.uint8)
STAR_Y = np.array([0, 1, 1, 1, 0, 0, 0, 1, 0])


@mod_param
def test_winnow_star_halves_only_weights_at_least_one(modname):
    clf = new(modname, "WinnowStar")
    rec = run_online(modname, clf, STAR_X[:5], STAR_Y[:5])
    assert rec["predictions"] == [1, 0, 0, 0, 1]
    assert state(clf)["log2_coef_"] == [1.0, -1.0, -1.0, -1.0]   # the active 1/2 stayed 1/2
    rec = run_online(modname, clf, STAR_X[5:], STAR_Y[5:])
    assert rec["predictions"] == [0, 0, 0, 1]
    s = state(clf)
    assert s["log2_coef_"] == [1.0, -1.0, -1.0, -1.0]
    assert s["coef_"] == [2.0, 0.5, 0.5, 0.5]
    assert (s["mistakes_"], s["updates_"], s["theta_"]) == (7, 7, 4.0)
    # the contrast: Winnow2 halves the active 1/2
    w2 = new(modname, "Winnow")
    rec = run_online(modname, w2, STAR_X, STAR_Y)
    assert rec["predictions"] == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert state(w2)["log2_coef_"] == [1.0, -3.0, -1.0, -1.0]


# Balanced Winnow (alpha = 2, theta = 1, w0 = 1), n = 3, score (w+ - w-) . x, by hand:
#  1. 110 y=1: 0 < 1 -> FN: w+ x2, w- /2 on 0,1        w+ = 2 2 1,    w- = 1/2 1/2 1
#  2. 011 y=0: (2-1/2) + (1-1) = 3/2 >= 1 -> FP: w+ /2, w- x2 on 1,2
#                                                       w+ = 2 1 1/2,  w- = 1/2 1 2
#  3. 001 y=0: 1/2 - 2 = -3/2 -> 0 right;  4. 100 y=1: 2 - 1/2 = 3/2 -> 1 right
#  5. 010 y=1: 1 - 1 = 0 < 1 -> FN on 1:                w+ = 2 2 1/2,  w- = 1/2 1/2 2
BAL_X = np.array([[1, 1, 0], [0, 1, 1], [0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=np.uint8)
BAL_Y = np.array([1, 0, 0, 1, 1])


@pytest.mark.parametrize("fmt", ("u8", "csr_i32", "index"))
@mod_param
def test_balanced_winnow_by_hand(modname, fmt):
    clf = new(modname, "BalancedWinnow", **fmt_extra(fmt, 3))
    rec = run_online(modname, clf, fmt_X(BAL_X[:2], fmt), BAL_Y[:2])
    assert rec["predictions"] == [0, 1]
    assert state(clf)["log2_coef_"] == [1.0, 0.0, -1.0]
    assert state(clf)["log2_coef_neg_"] == [-1.0, 0.0, 1.0]
    rec = run_online(modname, clf, fmt_X(BAL_X[2:], fmt), BAL_Y[2:])
    assert rec["predictions"] == [0, 1, 0]
    s = state(clf)
    assert s["log2_coef_"] == [1.0, 1.0, -1.0]
    assert s["log2_coef_neg_"] == [-1.0, -1.0, 1.0]
    assert s["coef_"] == [1.5, 1.5, -1.5]
    assert (s["mistakes_"], s["updates_"], s["theta_"]) == (3, 3, 1.0)
    # (w+ - w-) . x less theta = 1
    assert canon(clf.decision_function(fmt_X(np.array([[1, 1, 1], [0, 0, 1]]), fmt))) == \
        [1.5 - 1.0, -1.5 - 1.0]
    assert canon(clf.predict(fmt_X(np.array([[1, 1, 1], [0, 0, 1]]), fmt))) == [1, 0]


def approx(v):
    return pytest.approx(v, rel=1e-12, abs=0.0)


@mod_param
def test_real_features_update_by_hand(modname):
    """features='real', alpha=2 (beta=1/2), theta = n = 2:
     1. x=(1/2, 1/4) y=1: 3/4 < 2 -> FN: w = (2**.5, 2**.25)
     2. x=(1, 3) y=0: 2**.5 + 3*2**.25 = 4.98 >= 2 -> FP: w = (2**-.5, 2**(.25-3))
     3. x=(-2, 0) y=1: -2*2**-.5 < 2 -> FN: w0 = 2**-.5 * 2**-2 = 2**-2.5
     4. x=(0, 8) y=1: 8*2**-2.75 = 1.19 < 2 -> FN: w1 = 2**(-2.75+8) = 2**5.25"""
    clf = new(modname, "Winnow", features="real")
    X = np.array([[0.5, 0.25], [1.0, 3.0], [-2.0, 0.0], [0.0, 8.0]])
    rec = run_online(modname, clf, X[:2], [1, 0])
    assert rec["predictions"] == [0, 1]
    assert state(clf)["log2_coef_"] == [-0.5, -2.75]       # dyadic logs: exact
    assert state(clf)["coef_"] == approx([2 ** -0.5, 2 ** -2.75])
    rec = run_online(modname, clf, X[2:], [1, 1])
    assert rec["predictions"] == [0, 0]
    assert state(clf)["log2_coef_"] == [-2.5, 5.25]
    assert state(clf)["coef_"] == approx([2 ** -2.5, 2 ** 5.25])
    assert canon(clf.decision_function(np.array([[1.0, 1.0], [-4.0, 0.5]]))) == \
        approx([2 ** -2.5 + 2 ** 5.25 - 2.0, -4 * 2 ** -2.5 + 0.5 * 2 ** 5.25 - 2.0])
    assert (clf.mistakes_, clf.theta_) == (4, 2.0)
    # alpha = 3 (not a power of two; beta = 1/3), theta = 2:
    #  x=(1, 1/2) y=1: 3/2 < 2 -> FN: w = (3, 3**.5); x=(1/2, 1) y=0: 3/2 + 1.73 >= 2 -> FP:
    #  w = (3 * 3**-.5, 3**.5 / 3) = (3**.5, 3**-.5)
    clf = new(modname, "Winnow", features="real", alpha=3.0)
    rec = run_online(modname, clf, np.array([[1.0, 0.5]]), [1], classes=[0, 1])
    assert state(clf)["coef_"] == approx([3.0, 3 ** 0.5])
    assert state(clf)["log2_coef_"] == approx([math.log2(3), 0.5 * math.log2(3)])
    rec2 = run_online(modname, clf, np.array([[0.5, 1.0]]), [0])
    assert rec["predictions"] + rec2["predictions"] == [0, 1]
    assert state(clf)["coef_"] == approx([3 ** 0.5, 3 ** -0.5])
    assert state(clf)["log2_coef_"] == approx([0.5 * math.log2(3), -0.5 * math.log2(3)])


@mod_param
def test_balanced_real_features_by_hand(modname):
    """BalancedWinnow(features='real'), alpha 2, theta 1, n = 2:
     1. x=(1/2, -1) y=1: 0 < 1 -> FN: l+ += x, l- -= x: l+ = (.5, -1), l- = (-.5, 1)
     2. x=(1, 1) y=0: (2**.5 - 2**-.5) + (1/2 - 2) = -.79 < 1 -> right
     3. x=(2, 0) y=0: 2 (2**.5 - 2**-.5) = 1.41 >= 1 -> FP: l+_0 = .5 - 2, l-_0 = -.5 + 2"""
    clf = new(modname, "BalancedWinnow", features="real")
    rec = run_online(modname, clf, np.array([[0.5, -1.0], [1.0, 1.0], [2.0, 0.0]]), [1, 0, 0])
    assert rec["predictions"] == [0, 0, 1]
    s = state(clf)
    assert s["log2_coef_"] == [-1.5, -1.0]
    assert s["log2_coef_neg_"] == [1.5, 1.0]
    assert s["coef_"] == approx([2 ** -1.5 - 2 ** 1.5, -1.5])
    assert s["mistakes_"] == 2


@mod_param
def test_api_signatures_and_types(modname):
    """The constructors of the brief, exactly; arrays from mbcore, lists from mbref."""
    expected = {
        "Winnow": {"alpha": 2.0, "beta": None, "theta": None, "w0": 1.0, "features": "boolean",
                   "n_features": None, "max_epochs": 100, "multi_class": "multiclass",
                   "n_jobs": None, "record_updates": False},
        "EliminationWinnow": {"theta": None, "n_features": None, "max_epochs": 100,
                              "multi_class": "multiclass", "n_jobs": None, "record_updates": False},
        "WinnowStar": {"alpha": 2.0, "theta": None, "n_features": None, "max_epochs": 100,
                       "multi_class": "multiclass", "n_jobs": None, "record_updates": False},
        "BalancedWinnow": {"alpha": 2.0, "theta": 1.0, "w0": 1.0, "features": "boolean",
                           "n_features": None, "max_epochs": 100, "multi_class": "multiclass",
                           "n_jobs": None, "record_updates": False},
    }
    for name, params in expected.items():
        cls = learner_cls(modname, name)
        sig = inspect.signature(cls.__init__)
        got = {k: p.default for k, p in sig.parameters.items() if k != "self"}
        assert got == params, name
        clf = cls()
        assert clf.get_params() == params, name
        with pytest.raises(module(modname).NotFittedError):
            clf.predict(np.zeros((1, 3), np.uint8))
        with pytest.raises(module(modname).NotFittedError):
            clf.log2_coef_
        clf.partial_fit(L18_X, L18_Y)
        assert clf.updates_ == clf.mistakes_
        for attr in ("log2_coef_", "coef_") + (("log2_coef_neg_",) if name == "BalancedWinnow"
                                               else ()):
            v = getattr(clf, attr)
            if modname == "mbcore":
                assert isinstance(v, np.ndarray) and v.dtype == np.float64 and v.shape == (5,)
            else:
                assert isinstance(v, list) and len(v) == 5
        p = clf.predict(L18_X)
        assert isinstance(p, np.ndarray) if modname == "mbcore" else isinstance(p, list)


def test_mbref_exports_the_twins():
    for name in CLASS_NAMES:
        assert getattr(mbref, name) is getattr(mbref_mult, name)
        assert name in mbref.__all__


@mod_param
def test_any_two_labels(modname):
    """Labels are sorted and the second is positive: the lecture-18 run with 'no'/'yes' and with
    False/True gives the same predictions, as labels of the pair."""
    for pair in (("no", "yes"), (False, True), (-1, 1)):
        clf = new(modname, "Winnow")
        y = np.array([pair[v] for v in L18_Y]) if pair[0] != "no" else [pair[v] for v in L18_Y]
        rec = run_online(modname, clf, L18_X, y)
        assert rec["predictions"] == [pair[v] for v in L18_PRED]
        assert canon(clf.classes_) == list(pair)
        assert state(clf)["log2_coef_"] == lg(L18_W[6])


# ================================================================================================
# 2. Parity mbcore vs mbref
# ================================================================================================

REGISTRY = [
    ("Winnow", {}),
    ("Winnow", {"alpha": 4.0}),
    ("Winnow", {"alpha": 1.5}),
    ("Winnow", {"beta": 0.0}),
    ("Winnow", {"beta": 0.25}),
    ("Winnow", {"alpha": 4.0, "beta": 0.5, "w0": 0.5}),
    ("Winnow", {"alpha": 1.5, "beta": 0.5}),
    ("Winnow", {"theta": 3.0}),
    ("Winnow", {"theta": 2.5, "w0": 0.5}),
    ("Winnow", {"alpha": 2.0, "beta": 0.5, "w0": 0.75}),
    ("Winnow", {"features": "real"}),
    ("Winnow", {"features": "real", "alpha": 1.5, "theta": 1.0}),
    ("Winnow", {"features": "real", "alpha": 4.0, "beta": 0.5, "w0": 0.5, "theta": 7.0}),
    ("EliminationWinnow", {}),
    ("EliminationWinnow", {"theta": 2.0}),
    ("WinnowStar", {}),
    ("WinnowStar", {"alpha": 4.0}),
    ("WinnowStar", {"alpha": 1.5, "theta": 5.0}),
    ("BalancedWinnow", {}),
    ("BalancedWinnow", {"alpha": 1.5}),
    ("BalancedWinnow", {"theta": 0.5, "w0": 0.5}),
    ("BalancedWinnow", {"features": "real"}),
    ("BalancedWinnow", {"features": "real", "alpha": 1.5, "theta": 2.0}),
]


def entry_id(entry):
    name, params = entry
    return name + ("(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" if params else "")


def is_real(entry):
    return entry[1].get("features") == "real"


def is_exact(entry):
    """Exact mode (the Winnow numerics of mbcore.multiplicative): Boolean features, alpha,
    beta (or 0), w0 powers of two.  BalancedWinnow is always summed in float64 (the twin's policy)."""
    name, p = entry
    if name == "BalancedWinnow" or is_real(entry):
        return False
    alpha = p.get("alpha", 2.0)
    beta = p.get("beta", None)
    beta = (0.0 if name == "EliminationWinnow" else 1.0 / alpha) if beta is None else beta
    w0 = p.get("w0", 1.0)
    pow2 = lambda v: math.frexp(v)[0] == 0.5  # noqa: E731
    return pow2(alpha) and (beta == 0 or pow2(beta)) and pow2(w0)


CASES = [(e, f) for e in REGISTRY for f in (REAL_FORMATS if is_real(e) else BOOL_FORMATS)]
CASE_IDS = [f"{entry_id(e)}-{f}" for e, f in CASES]
SEEDS = (0, 1)
CHUNKINGS = ("whole", 1, 7, "random")
N, D = 150, 12


def classes_of(entry):
    return [-1, 1] if is_real(entry) else [0, 1]


def stream(entry, seed, n=N, d=D):
    if is_real(entry):
        return real_rows(seed, n, d)
    return bool_stream(seed, n, d)


_TWIN = {}


def twin_run(entry, seed, fmt):
    key = (entry_id(entry), seed, fmt)
    if key not in _TWIN:
        X, y = stream(entry, seed)
        ref = make("mbref", entry, **fmt_extra(fmt, D))
        rec = run_online("mbref", ref, fmt_X(X, fmt), y)
        rec.pop("mistake_curve")
        Xn, _ = stream(entry, seed + 1000, 40)
        fresh = (canon(ref.decision_function(fmt_X(Xn, fmt))), canon(ref.predict(fmt_X(Xn, fmt))))
        _TWIN[key] = (canon(rec), state(ref), fresh)
    return _TWIN[key]


@pytest.mark.checked
@pytest.mark.parametrize("chunking", CHUNKINGS, ids=lambda c: f"chunks={c}")
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_online_parity(case, seed, chunking):
    entry, fmt = case
    rec_ref, state_ref, fresh_ref = twin_run(entry, seed, fmt)
    X, y = stream(entry, seed)
    Xf = fmt_X(X, fmt)
    bounds = chunk_bounds(N, chunking, seed)
    clf = make("mbcore", entry, **fmt_extra(fmt, D))
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=classes_of(entry))
    assert canon(rec) == rec_ref
    assert state(clf) == state_ref
    assert rec_ref["updated"] == rec_ref["errors"]          # conservative: update iff mistake
    Xn, _ = stream(entry, seed + 1000, 40)
    Xn_f = fmt_X(Xn, fmt)
    assert (canon(clf.decision_function(Xn_f)), canon(clf.predict(Xn_f))) == fresh_ref
    # partial_fit, chunk by chunk
    clf2 = make("mbcore", entry, **fmt_extra(fmt, D))
    for k, (a, b) in enumerate(bounds):
        ret = clf2.partial_fit(take_rows(Xf, a, b), y[a:b],
                               classes=classes_of(entry) if k == 0 else None)
        assert ret is clf2
    assert state(clf2) == state_ref


@pytest.mark.parametrize("entry", REGISTRY, ids=[entry_id(e) for e in REGISTRY])
def test_twin_chunk_and_layout_invariance(entry):
    """The twin alone (runs now): chunked feeding equals one batch, and every layout of the same
    values gives the same run (the score sums the active terms in index order, so dense and CSR
    agree even in real mode)."""
    fmt = "f64" if is_real(entry) else "u8"
    X, y = stream(entry, 2, 90, 9)
    X = X.astype(np.float32).astype(np.float64)      # the same values in every layout
    whole = make("mbref", entry)
    rec_whole = run_online("mbref", whole, fmt_X(X, fmt), y)
    rec_whole.pop("mistake_curve")
    for chunking in (1, 7, "random"):
        ref = make("mbref", entry)
        rec = run_chunked(mbref, ref, fmt_X(X, fmt), y, chunk_bounds(90, chunking, 2),
                          classes=classes_of(entry))
        assert canon(rec) == canon(rec_whole), chunking
        assert state(ref) == state(whole), chunking
    for other in (REAL_FORMATS if is_real(entry) else BOOL_FORMATS):
        ref = make("mbref", entry, **fmt_extra(other, 9))
        rec = run_online("mbref", ref, fmt_X(X, other), y)
        rec.pop("mistake_curve")
        assert canon(rec) == canon(rec_whole), other
        assert state(ref) == state(whole), other


@pytest.mark.checked
@pytest.mark.parametrize("fmt", ("u8", "csr_i64", "index"))
@pytest.mark.parametrize("noise", (0.0, 0.2), ids=("clean", "noisy"))
@pytest.mark.parametrize("entry", [e for e in REGISTRY if not is_real(e)],
                         ids=[entry_id(e) for e in REGISTRY if not is_real(e)])
def test_fit_parity(entry, noise, fmt):
    X, y = bool_stream(5, 40, 8, k=2, p=0.3, noise=noise)
    ref = make("mbref", entry, max_epochs=8, **fmt_extra(fmt, 8)).fit(fmt_X(X, fmt), y)
    clf = make("mbcore", entry, max_epochs=8, **fmt_extra(fmt, 8))
    assert clf.fit(fmt_X(X, fmt), y) is clf

    def fs(c):
        return dict(state(c), n_iter_=int(c.n_iter_), converged_=bool(c.converged_),
                    cycled_=bool(c.cycled_), epoch_mistakes_=as_list(c.epoch_mistakes_),
                    epoch_updates_=as_list(c.epoch_updates_))
    assert fs(clf) == fs(ref)
    assert clf.n_seen_ == 40 * clf.n_iter_
    # fit restarts from scratch
    clf.fit(fmt_X(X, fmt), y)
    assert fs(clf) == fs(ref)


@pytest.mark.checked
@pytest.mark.parametrize("real", (False, True), ids=("boolean", "real"))
def test_fit_parity_real_mode(real):
    """fit on the real-mode entries too (floats sums, no cycle key repeats)."""
    entries = [e for e in REGISTRY if is_real(e) == real and (real or e[1].get("alpha") == 1.5)]
    for entry in entries:
        X, y = stream(entry, 7, 50, 5)
        ref = make("mbref", entry, max_epochs=5).fit(X, y)
        clf = make("mbcore", entry, max_epochs=5).fit(X, y)
        assert state(clf) == state(ref), entry_id(entry)
        assert (int(clf.n_iter_), bool(clf.converged_), bool(clf.cycled_)) == \
            (int(ref.n_iter_), bool(ref.converged_), bool(ref.cycled_)), entry_id(entry)


# -- hypothesis: small generated cases ---------------------------------------------------------

_PAIRS = [(0, 1), (-1, 1), (3, 7), (False, True), ("ham", "spam"), (-1.5, 2.0)]
_REAL_VALUES = st.one_of(
    st.sampled_from([0.0, 0.0, 0.0, 1.0, -1.0, 0.5, -2.25, 3.0, 2.0 ** -30, -7.75, 12.5]),
    st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False))


@st.composite
def winnow_cases(draw):
    entry = draw(st.sampled_from(REGISTRY))
    real = is_real(entry)
    n = draw(st.integers(1, 24))
    d = draw(st.integers(1, 6))
    pool_size = draw(st.integers(1, n))
    values = _REAL_VALUES if real else st.sampled_from([0, 1])
    pool = draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=pool_size,
                         max_size=pool_size))
    picks = draw(st.lists(st.integers(0, pool_size - 1), min_size=n, max_size=n))
    X = np.array([pool[i] for i in picks], dtype=np.float64).reshape(n, d)
    pair = draw(st.sampled_from(_PAIRS))
    lab = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    y = np.array([pair[v] for v in lab])
    cuts = sorted(set(draw(st.lists(st.integers(1, max(n - 1, 1)), max_size=5)))) if n > 1 else []
    bounds = list(zip([0] + cuts, cuts + [n]))
    fmt = draw(st.sampled_from(REAL_FORMATS if real else BOOL_FORMATS))
    return entry, X, y, pair, bounds, fmt


_HSETTINGS = settings(max_examples=80, deadline=None, database=None, derandomize=True,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.checked
@_HSETTINGS
@given(winnow_cases())
def test_hypothesis_parity(case):
    entry, X, y, pair, bounds, fmt = case
    d = X.shape[1]
    Xf = fmt_X(X, fmt)
    clf = make("mbcore", entry, **fmt_extra(fmt, d))
    ref = make("mbref", entry, **fmt_extra(fmt, d))
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=list(pair))
    rec_ref = run_chunked(mbref, ref, Xf, y, bounds, classes=list(pair))
    assert canon(rec) == canon(rec_ref)
    assert state(clf) == state(ref)
    assert canon(clf.decision_function(Xf)) == canon(ref.decision_function(Xf))
    assert canon(clf.predict(Xf)) == canon(ref.predict(Xf))
    for p in rec["predictions"]:
        assert p in pair and type(p) is type(pair[0])


# ================================================================================================
# 3. Exactness
# ================================================================================================


def oracle(entry, rows, labels, d):
    """The exact-mode rule, written here from the rule in mbcore.multiplicative: integer
    exponents (None = a weight of 0) and the decision sum_{active} 2**l >= theta in rationals.  rows: active index lists;
    labels 0/1.  Returns (predictions 0/1, final log2 weights as floats)."""
    name, p = entry
    alpha = 2.0 if name == "EliminationWinnow" else p.get("alpha", 2.0)
    beta = p.get("beta", None)
    if name == "EliminationWinnow":
        beta = 0.0
    elif beta is None:
        beta = 1.0 / alpha
    la = _exp2(alpha)
    lb = None if beta == 0 else _exp2(beta)
    w0 = 1.0 if name != "Winnow" else p.get("w0", 1.0)
    th = p.get("theta", None)
    theta = Fraction(th) if th is not None else (Fraction(d, 2) if name == "EliminationWinnow"
                                                 else Fraction(d))
    L = [_exp2(w0)] * d
    preds = []
    for act, yv in zip(rows, labels):
        s = sum((Fraction(2) ** L[i] for i in act if L[i] is not None), Fraction(0))
        pv = int(s >= theta)
        preds.append(pv)
        if pv == yv:
            continue
        for i in act:
            if L[i] is None:
                continue
            if yv == 1:
                L[i] += la
            elif name == "WinnowStar":
                if L[i] >= 0:
                    L[i] += lb
            elif lb is None:
                L[i] = None
            else:
                L[i] += lb
    return preds, [-math.inf if v is None else float(v) for v in L]


EXACT_ENTRIES = [e for e in REGISTRY if is_exact(e)]


@pytest.mark.parametrize("fmt", ("u8", "csr_i32", "index"))
@pytest.mark.parametrize("seed", (0, 1, 2), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", EXACT_ENTRIES, ids=[entry_id(e) for e in EXACT_ENTRIES])
@mod_param
def test_exact_mode_follows_the_rule(modname, entry, seed, fmt):
    X, y = bool_stream(seed + 40, 120, 10, k=2, p=0.35, noise=0.15)
    rows = [np.flatnonzero(r).tolist() for r in X]
    exp_pred, exp_log = oracle(entry, rows, y.tolist(), 10)
    clf = make(modname, entry, **fmt_extra(fmt, 10))
    rec = run_online(modname, clf, fmt_X(X, fmt), y, classes=[0, 1])
    assert rec["predictions"] == exp_pred
    assert state(clf)["log2_coef_"] == exp_log
    assert clf.mistakes_ == sum(int(a != b) for a, b in zip(exp_pred, y.tolist()))


@mod_param
@_HSETTINGS
@given(data=st.data())
def test_hypothesis_exact_mode_follows_the_rule(modname, data):
    """Each module against the oracle on small generated Boolean streams, any layout."""
    entry = data.draw(st.sampled_from(EXACT_ENTRIES))
    n = data.draw(st.integers(1, 30))
    d = data.draw(st.integers(1, 7))
    X = np.array(data.draw(st.lists(st.lists(st.sampled_from([0, 1]), min_size=d, max_size=d),
                                    min_size=n, max_size=n)), dtype=np.uint8).reshape(n, d)
    y = np.array(data.draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n)))
    fmt = data.draw(st.sampled_from(BOOL_FORMATS))
    exp_pred, exp_log = oracle(entry, [np.flatnonzero(r).tolist() for r in X], y.tolist(), d)
    clf = make(modname, entry, **fmt_extra(fmt, d))
    rec = run_online(modname, clf, fmt_X(X, fmt), y, classes=[0, 1])
    assert rec["predictions"] == exp_pred
    assert state(clf)["log2_coef_"] == exp_log


# -- crafted near-tie states, built through the protocol -----------------------------------------

def build_winnow_state(n, theta, targets, helper=0):
    """A stream that drives Winnow2 (alpha 2, beta 1/2, explicit theta) to the log-weights
    ``targets`` {feature: exponent}: the helper is promoted to the first power of two >= theta
    (one-feature examples labelled 1); a feature goes up by one-feature examples labelled 1 and
    down by ({feature, helper}, 0) -- a false positive, since w_helper >= theta -- followed by
    ({helper}, 1), which restores the helper.  Every example of the stream is a mistake; the
    conditions are checked here in rationals.  Returns (rows, labels, final exponents)."""
    th = Fraction(theta)
    L = [0] * n
    rows, labels = [], []

    def w(i):
        return Fraction(2) ** L[i]

    def promote(i):
        assert w(i) < th
        rows.append([i])
        labels.append(1)
        L[i] += 1

    while w(helper) < th:
        promote(helper)
    for i, e in targets.items():
        assert i != helper
        while L[i] < e:
            promote(i)
        while L[i] > e:
            assert w(i) + w(helper) >= th
            rows.append(sorted((i, helper)))
            labels.append(0)
            L[i] -= 1
            L[helper] -= 1
            promote(helper)
    return rows, labels, L


def exact_positive(log2, active, theta):
    s = sum((Fraction(2) ** int(log2[i]) for i in active if log2[i] != -math.inf), Fraction(0))
    return s >= Fraction(theta)


def naive_float_sum(coef, active):
    """What a plain float64 loop computes (left to right over the active features)."""
    s = 0.0
    for i in active:
        s += coef[i]
    return s


def check_crafted(modname, n, theta, rows, labels, final_log, queries, fmt):
    """Replay the build stream, check that it went as designed, then the queries: predict and an
    online step (labelled with the right answer, so no update) must give the exact decision."""
    clf = new(modname, "Winnow", theta=theta, **fmt_extra(fmt, n))
    X = np.zeros((len(rows), n), dtype=np.uint8)
    for t, r in enumerate(rows):
        X[t, r] = 1
    rec = run_online(modname, clf, fmt_X(X, fmt), np.array(labels), classes=[0, 1])
    assert rec["predictions"] == [1 - v for v in labels]          # every example a mistake
    log2 = state(clf)["log2_coef_"]
    assert log2 == [float(v) for v in final_log]
    Q = np.zeros((len(queries), n), dtype=np.uint8)
    for t, (act, _) in enumerate(queries):
        Q[t, act] = 1
    expected = [int(v) for _, v in queries]
    assert [int(exact_positive(log2, act, theta)) for act, _ in queries] == expected
    assert canon(clf.predict(fmt_X(Q, fmt))) == expected
    before = state(clf)
    rec = run_online(modname, clf, fmt_X(Q, fmt), np.array(expected))
    assert rec["predictions"] == expected and rec["mistakes"] == 0
    assert state(clf)["log2_coef_"] == before["log2_coef_"]
    return clf


@pytest.mark.parametrize("fmt", ("index", "csr_i64"))
@mod_param
def test_near_tie_span_beyond_53_bits(modname, fmt):
    """theta = 2**60; features 1..70 hold 2**59, 2**58, ..., 2**-10 and feature 71 another 2**-10.
    Active 1..70: the exact sum is 2**60 - 2**-10 < theta -> 0, although a float64 loop rounds it
    to 2**60 (>= theta).  Active 1..71: exactly 2**60 -> 1 (the tie predicts 1)."""
    theta = 2.0 ** 60
    targets = {1 + j: 59 - j for j in range(70)}
    targets[71] = -10
    rows, labels, L = build_winnow_state(72, theta, targets)
    below = list(range(1, 71))
    tie = list(range(1, 72))
    queries = [(below, 0), (tie, 1), ([0], 1), ([1, 2], 0), (below[:-1] + [71], 0)]
    clf = check_crafted(modname, 72, theta, rows, labels, L, queries, fmt)
    coef = state(clf)["coef_"]
    assert naive_float_sum(coef, below) >= theta           # the trap: float64 says 1
    assert naive_float_sum(coef, sorted(below, reverse=True)) >= theta


@pytest.mark.parametrize("fmt", ("index", "u8"))
@mod_param
def test_near_tie_float_rounds_down(modname, fmt):
    """theta = 2**60 + 2**8 (a float64); helper 0 at 2**61, feature 1 at 2**60, features 2 and 3
    at 2**7.  {1,2,3}: exactly theta -> 1, but (2**60 + 2**7) + 2**7 rounds to 2**60 in float64
    (-> 0).  {1,2}: 2**60 + 2**7 < theta -> 0."""
    theta = 2.0 ** 60 + 2.0 ** 8
    rows, labels, L = build_winnow_state(4, theta, {1: 60, 2: 7, 3: 7})
    assert L == [61, 60, 7, 7]
    queries = [([1, 2, 3], 1), ([1, 2], 0), ([0], 1), ([2, 3], 0), ([1], 0)]
    clf = check_crafted(modname, 4, theta, rows, labels, L, queries, fmt)
    assert naive_float_sum(state(clf)["coef_"], [1, 2, 3]) < theta     # the trap


@pytest.mark.parametrize("fmt", ("index", "csr_i32"))
@mod_param
def test_many_tiny_weights_summing_to_theta(modname, fmt):
    """theta = 1; features i = 1..60 hold 2**-i and feature 61 another 2**-60.  {1..61} sums to
    exactly 1 -> 1; {1..60} to 1 - 2**-60 -> 0 (a float64 loop gives 1.0); two 2**-60 -> 0."""
    targets = {i: -i for i in range(1, 61)}
    targets[61] = -60
    rows, labels, L = build_winnow_state(62, 1.0, targets)
    full = list(range(1, 62))
    below = list(range(1, 61))
    queries = [(full, 1), (below, 0), ([60, 61], 0), ([0], 1), (list(range(2, 62)) + [0], 1)]
    clf = check_crafted(modname, 62, 1.0, rows, labels, L, queries, fmt)
    assert naive_float_sum(state(clf)["coef_"], below) >= 1.0           # the trap


@mod_param
def test_weights_below_the_smallest_float(modname):
    """theta = 2**-1074 (the smallest positive float64).  ({0},0) and ({1},0) repeated: while
    w >= theta each is a false positive, so w goes 1, 1/2, ..., 2**-1074 and stops at 2**-1075
    (1075 demotions each), where float64 underflows to 0.  Exactly, {0,1} sums to 2**-1074 =
    theta -> 1; {0} alone -> 0; one more false positive on {0,1} takes both to 2**-1076."""
    theta = math.ldexp(1.0, -1074)
    X = np.zeros((2 * 1075 + 2, 3), dtype=np.uint8)
    X[:1075, 0] = 1
    X[1075:2150, 1] = 1
    X[2150, 0] = 1                       # 2**-1075 < theta -> 0, right (label 0): no change
    X[2151, 2] = 1                       # 1 >= theta -> 1, right
    y = np.array([0] * 2151 + [1])
    clf = new(modname, "Winnow", theta=theta)
    rec = run_online(modname, clf, X, y, classes=[0, 1])
    assert rec["predictions"] == [1] * 2150 + [0, 1]
    s = state(clf)
    assert s["log2_coef_"] == [-1075.0, -1075.0, 0.0]
    assert s["coef_"] == [0.0, 0.0, 1.0]                 # the float64 view underflows
    q = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]], dtype=np.uint8)
    assert canon(clf.predict(q)) == [1, 0, 1]
    assert canon(clf.decision_function(q[:1])) == [0.0]  # float64 score 0.0, decision still 1
    rec = run_online(modname, clf, q[:1], [0])
    assert rec["predictions"] == [1]
    assert state(clf)["log2_coef_"] == [-1076.0, -1076.0, 0.0]
    assert canon(clf.predict(q[:1])) == [0]


@mod_param
def test_weights_beyond_the_largest_float(modname):
    """theta = 1.5 * 2**1023.  One-feature positives promote while w < theta: feature 0 reaches
    2**1024 (beyond float64: coef_ inf), feature 1 2**1023, feature 2 2**1022.  {1,2} = theta ->
    1; {1,3} = 2**1023 + 1 -> 0; {0} -> 1."""
    theta = 1.5 * 2.0 ** 1023
    X = np.zeros((1024 + 1023 + 1022, 4), dtype=np.uint8)
    X[:1024, 0] = 1
    X[1024:2047, 1] = 1
    X[2047:, 2] = 1
    clf = new(modname, "Winnow", theta=theta)
    rec = run_online(modname, clf, X, np.ones(X.shape[0], dtype=np.int64), classes=[0, 1])
    assert rec["mistakes"] == X.shape[0]
    s = state(clf)
    assert s["log2_coef_"] == [1024.0, 1023.0, 1022.0, 0.0]
    assert s["coef_"] == [math.inf, 2.0 ** 1023, 2.0 ** 1022, 1.0]
    q = np.array([[0, 1, 1, 0], [0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 1]], dtype=np.uint8)
    assert canon(clf.predict(q)) == [1, 0, 1, 0]
    assert canon(clf.decision_function(q[2:3])) == [math.inf]


# -- long runs replayed in NumPy (the replay: _winnow_replay.py) --------------------------------

LONG_LEARNERS = [
    ("Winnow", {}),
    ("Winnow", {"alpha": 4.0, "beta": 0.5, "w0": 0.5, "theta": 5.0}),
    ("WinnowStar", {}),
    ("EliminationWinnow", {}),
]


@pytest.mark.parametrize("entry", LONG_LEARNERS, ids=[entry_id(e) for e in LONG_LEARNERS])
@pytest.mark.parametrize("modname,total", [("mbcore", 10 ** 6), ("mbref", 3000)],
                         ids=["mbcore-1e6", "mbref-3e3"])
def test_long_noisy_run_is_exact(modname, total, entry):
    """10**6 steps (n = 32, 10% label noise): the reported state equals the replay after every
    chunk of 10**5 rows, and the predictions of chunks 0, 3, 6 and 9 (4*10**5 steps) equal the
    exact decision of the replayed state (the twin runs a short version of the same check)."""
    clf, _ = run_and_replay(modname, entry, noisy_chunks(11, total, chunk=min(total, 100_000)),
                            every=3)
    assert clf.n_seen_ == total
    assert clf.updates_ == clf.mistakes_


# ================================================================================================
# 4. Mistake bounds
# ================================================================================================


def disjunction_stream(seed, n, k, T):
    """Rows with a few random irrelevant variables and, half of the time, some of the k relevant
    ones; labelled by the monotone disjunction of the relevant variables (no noise)."""
    rng = np.random.default_rng(seed)
    rel = rng.choice(n, size=k, replace=False)
    others = np.setdiff1d(np.arange(n), rel)
    X = np.zeros((T, n), dtype=np.uint8)
    for t in range(T):
        m = int(rng.integers(0, min(n // 2, 16) + 1))
        X[t, rng.choice(others, size=m, replace=False)] = 1
        if rng.random() < 0.5:
            X[t, rng.choice(rel, size=int(rng.integers(1, k + 1)), replace=False)] = 1
    y = X[:, rel].any(axis=1).astype(np.int64)
    return X, y


def split_mistakes(rec, y):
    err = np.asarray(rec["errors"], dtype=bool)
    return int((err & (y == 1)).sum()), int((err & (y == 0)).sum())


BOUND_CASES = [(n, k, seed) for n in (16, 64, 256) for k in (1, 3) for seed in (0, 1)]


@pytest.mark.parametrize("n,k,seed", BOUND_CASES,
                         ids=[f"n={n}-k={k}-seed={s}" for n, k, s in BOUND_CASES])
@mod_param
def test_winnow2_bound(modname, n, k, seed):
    """Angluin lecture 18 (threshold n, x2 and /2): M_1 <= r(1 + log2 n), M_0 <= 2 + 2 M_1, so
    M <= 2 + 3r(1 + log2 n); no weight reaches 2n."""
    X, y = disjunction_stream(seed, n, k, 1500)
    clf = new(modname, "Winnow", n_features=n)
    rec = run_online(modname, clf, fmt_X(X, "index"), y, classes=[0, 1])
    m1, m0 = split_mistakes(rec, y)
    assert m1 <= k * (1 + math.log2(n))
    assert m0 <= 2 + 2 * m1
    assert rec["mistakes"] <= 2 + 3 * k * (1 + math.log2(n))
    assert rec["mistakes"] == clf.mistakes_ > 0
    assert max(canon(clf.log2_coef_)) < math.log2(2 * n)


@pytest.mark.parametrize("n,k,seed", BOUND_CASES,
                         ids=[f"n={n}-k={k}-seed={s}" for n, k, s in BOUND_CASES])
@mod_param
def test_elimination_winnow_bound(modname, n, k, seed):
    """Kanade Thm 12: promotions P <= k log2 n (Claim 15), eliminations E <= P + 2 (Claim 14),
    so at most 2k log2 n + 2 mistakes; weights never exceed n (Claim 13)."""
    X, y = disjunction_stream(seed + 100, n, k, 1500)
    clf = new(modname, "EliminationWinnow", n_features=n)
    rec = run_online(modname, clf, fmt_X(X, "index"), y, classes=[0, 1])
    P, E = split_mistakes(rec, y)
    assert P <= k * math.log2(n)
    assert E <= P + 2
    assert rec["mistakes"] <= 2 * k * math.log2(n) + 2
    assert max(canon(clf.log2_coef_)) <= math.log2(n)


def drifting_stream(seed, n, T, every=100, kmax=4):
    """Lecture 19: the target starts as the empty disjunction; before some rounds the adversary
    adds or removes a variable (cost 1 each).  Returns X, y and the cumulative cost C_a(t)
    (changes made up to and including round t)."""
    rng = np.random.default_rng(seed)
    target = []
    cost = np.zeros(T, dtype=np.int64)
    X = np.zeros((T, n), dtype=np.uint8)
    y = np.zeros(T, dtype=np.int64)
    c = 0
    for t in range(T):
        if t % every == 0 and t > 0 or t == 5:
            if target and (len(target) >= kmax or rng.random() < 0.35):
                target.remove(target[int(rng.integers(len(target)))])
            else:
                target.append(int(rng.choice(np.setdiff1d(np.arange(n), target))))
            c += 1
        cost[t] = c
        pool = np.setdiff1d(np.arange(n), target)
        m = int(rng.integers(0, min(n // 2, 12) + 1))
        X[t, rng.choice(pool, size=m, replace=False)] = 1
        if target and rng.random() < 0.5:
            X[t, rng.choice(target, size=int(rng.integers(1, len(target) + 1)),
                            replace=False)] = 1
        y[t] = int(X[t, target].any()) if target else 0
    return X, y, cost


@pytest.mark.parametrize("n,seed", [(n, s) for n in (16, 64, 256) for s in (0, 1)],
                         ids=[f"n={n}-seed={s}" for n in (16, 64, 256) for s in (0, 1)])
@mod_param
def test_winnow_star_drifting_bound(modname, n, seed):
    """Lecture 19: at every point M_1 <= (1 + log2 2n) C_a, M_0 <= 4(1 + M_1), so
    M <= 4 + 5(1 + log2 2n) C_a; every weight stays in [1/2, 2n]."""
    X, y, cost = drifting_stream(seed, n, 2500)
    clf = new(modname, "WinnowStar", n_features=n)
    rec = run_online(modname, clf, fmt_X(X, "index"), y, classes=[0, 1])
    err = np.asarray(rec["errors"], dtype=bool)
    m1 = np.cumsum(err & (y == 1))
    m0 = np.cumsum(err & (y == 0))
    c = 1 + math.log2(2 * n)
    assert (m1 <= c * cost).all()
    assert (m0 <= 4 * (1 + m1)).all()
    assert (m0 + m1 <= 4 + 5 * c * cost).all()
    assert cost[-1] >= 20 and m1[-1] > 0
    L = canon(clf.log2_coef_)
    assert min(L) >= -1 and max(L) <= math.log2(2 * n)


# ================================================================================================
# 5. Long runs stay finite and exact
# ================================================================================================


@pytest.mark.parametrize("kind", ("noisy", "adversarial"))
@pytest.mark.parametrize("modname,total", [
    ("mbcore", 10 ** 6), pytest.param("mbcore", 10 ** 7, marks=pytest.mark.longrun),
    ("mbref", 4000)], ids=["mbcore-1e6", "mbcore-1e7", "mbref-4e3"])
def test_ten_million_steps_stay_exact(modname, total, kind):
    """10**7 steps of Winnow2 in chunks of 10**5 rows: after every chunk the reported log-weights
    are finite integers equal to the replay of the chunk; the predictions of every 10th chunk and
    of the last 10**5 rows are the exact decisions (the twin runs the same check on a short
    stream).  The 10**7 steps are a long run (``pytest -m longrun``, beside the 10**8-step runs);
    a plain ``pytest`` checks the same on 10**6 steps (the adversarial stream's weights already
    at 2**-500000 there, far below float64's range)."""
    chunk = min(total, 100_000)
    chunks = noisy_chunks(23, total, chunk=chunk) if kind == "noisy" else \
        adversarial_chunks(total, chunk=chunk)
    clf, rec = run_and_replay(modname, ("Winnow", {}), chunks, every=10)
    assert clf.n_seen_ == total
    L = log2_as_int(clf.log2_coef_)
    if kind == "adversarial":
        # warm-up (by hand): w1 = 2, then a false positive at step 2 halves everything, then
        # w1 climbs 2, 4, 8, 16, 32 on the ({1}, 1) steps; from step 12 on every step is a
        # mistake, and the all-features false positives are steps 2, 12, 14, 16, ...
        errors = as_list(rec.errors)
        assert all(errors[20:])
        assert L[1] == 4                                     # 32 halved by the last example
        others = np.delete(L, 1)
        assert (others == others[0]).all()
        assert others[0] == -(1 + (total - 12) // 2 + 1)
    else:
        assert L.max() <= 5                                  # w < theta before every doubling


@pytest.mark.parametrize("name,modname,total", [
    ("EliminationWinnow", "mbcore", 10 ** 6), ("EliminationWinnow", "mbref", 4000),
    ("WinnowStar", "mbcore", 2 * 10 ** 5), ("WinnowStar", "mbref", 4000)],
    ids=["EliminationWinnow-mbcore-1e6", "EliminationWinnow-mbref-4e3",
         "WinnowStar-mbcore-2e5", "WinnowStar-mbref-4e3"])
def test_adversarial_elimination_and_star(modname, total, name):
    """The adversarial stream on the other two rules.  Elimination (theta 16): step 1 doubles w1,
    step 2 (33 >= 16) sets every weight to 0 for good (log2 -inf); after that every ({1}, 1) is a
    false negative and every all-features example a right 0.  Winnow*: the 31 other weights stop
    at 1/2 and w1 keeps oscillating 16 <-> 32, every step a mistake."""
    chunk = min(total, 100_000)
    clf, rec = run_and_replay(modname, (name, {}), adversarial_chunks(total, chunk=chunk))
    L = canon(clf.log2_coef_)
    errors = as_list(rec.errors)
    if name == "EliminationWinnow":
        assert L == [-math.inf] * 32
        assert all(errors[2::2])
        assert not any(errors[3::2])
    else:
        assert L[1] == 4.0 and L[:1] + L[2:] == [-1.0] * 31
        assert all(errors[20:])


@mod_param
def test_real_mode_weights_beyond_float_range(modname):
    """features='real' keeps only logs, so a log-weight of 1024.5 is a valid state: 2**1024.5 is
    inf in float64 (coef_, decision_function), the score inf >= theta predicts 1 and the run goes
    on.  x = (1024.5, -1100), y = 1: score 1024.5 - 1100 < 2 -> FN: l = (1024.5, -1100).
    Then x = (1, 0), y = 0: inf >= 2 -> FP: l0 = 1023.5 (2**1023.5 = 1.27e308, finite)."""
    clf = new(modname, "Winnow", features="real")
    run_online(modname, clf, np.array([[1024.5, -1100.0]]), [1], classes=[0, 1])
    assert state(clf)["log2_coef_"] == [1024.5, -1100.0]
    assert state(clf)["coef_"] == [math.inf, 0.0]
    assert canon(clf.decision_function(np.array([[1.0, 0.0]]))) == [math.inf]   # inf - theta
    assert canon(clf.predict(np.array([[1.0, 0.0]]))) == [1]
    rec = run_online(modname, clf, np.array([[1.0, 0.0]]), [0])
    assert rec["predictions"] == [1]
    s = state(clf)
    assert s["log2_coef_"] == [1023.5, -1100.0]
    assert s["coef_"] == approx([2.0 ** 1023 * 2 ** 0.5, 0.0])
    assert (s["n_seen_"], s["mistakes_"]) == (2, 2)


def _outcome(modname, clf, X, y):
    """run_online's record, or the error it raised (its message)."""
    try:
        return canon(run_online(modname, clf, X, y, classes=[0, 1]))
    except ValueError as e:
        return str(e)


@pytest.mark.checked
@pytest.mark.parametrize("name", ("Winnow", "BalancedWinnow"))
def test_real_mode_extreme_values_parity(name):
    """Values up to 2**100 in real mode drive log-weights far past the float64 range: Winnow's
    inf score decides (inf >= theta), but a NaN score (inf - inf) and, for Balanced Winnow, any
    score past the range cannot be decided in float64: both sides raise at the same row with the
    same message, leave the learner as it was and keep the logs finite; the rows before it agree
    bit for bit."""
    rng = np.random.default_rng(3)
    n, d = 60, 4
    X = rng.choice([0.0, 1.0, -1.0, 0.5, 2.0 ** 100, -2.0 ** 100, 1e20, -3e15, 2.0 ** -60],
                   size=(n, d))
    y = rng.integers(0, 2, size=n)
    for fmt in ("f64", "csr_i64"):
        ref = new("mbref", name, features="real")
        clf = new("mbcore", name, features="real")
        out = _outcome("mbcore", clf, fmt_X(X, fmt), y)
        assert isinstance(out, str) and "is not finite in float64 arithmetic" in out
        assert out == _outcome("mbref", ref, fmt_X(X, fmt), y)
        bad = int(out.split("row ")[1].split()[0])
        # a failed first call leaves the learner unfitted
        assert not hasattr(clf, "n_seen_") or clf.n_seen_ == 0
        # the rows before the bad one: the same run, bit for bit
        ref = new("mbref", name, features="real")
        clf = new("mbcore", name, features="real")
        rec_ref = run_online("mbref", ref, fmt_X(X[:bad], fmt), y[:bad], classes=[0, 1])
        rec = run_online("mbcore", clf, fmt_X(X[:bad], fmt), y[:bad], classes=[0, 1])
        assert canon(rec) == canon(rec_ref)
        assert state(clf) == state(ref)
        for c in (clf, ref):
            logs = state(c)["log2_coef_"] + state(c).get("log2_coef_neg_", [])
            assert all(isinstance(v, float) and math.isfinite(v) for v in logs)
        before = state(clf)
        assert _outcome("mbcore", clf, fmt_X(X[bad:], fmt), y[bad:]) == \
            _outcome("mbref", ref, fmt_X(X[bad:], fmt), y[bad:])
        assert state(clf) == state(ref) == before


# ================================================================================================
# 6. Bad input
# ================================================================================================

BAD_LEARNERS = [
    ("Winnow", {}),
    ("Winnow", {"alpha": 1.5, "w0": 0.5}),
    ("EliminationWinnow", {}),
    ("WinnowStar", {}),
    ("BalancedWinnow", {}),
]
REAL_LEARNERS = [("Winnow", {"features": "real"}), ("BalancedWinnow", {"features": "real"})]
bad_param = pytest.mark.parametrize("entry", BAD_LEARNERS, ids=[entry_id(e) for e in BAD_LEARNERS])

XG, YG = bool_stream(50, 30, 5)            # a good first batch
XB, YB = bool_stream(51, 8, 5)             # a good second batch


def fitted(modname, entry, **extra):
    return make(modname, entry, **extra).partial_fit(XG, YG)


def with_value(X, row, col, value, dtype=np.float64):
    X = np.array(X, dtype=dtype, copy=True)
    X[row, col] = value
    return X


def assert_all_or_nothing(modname, entry, bad, match=None, **extra):
    """partial_fit, run_online and fit raise ValueError; the learner is exactly as before and goes
    on like one that never saw the bad batch; predict/decision_function raise too."""
    clf = fitted(modname, entry, **extra)
    before = frozen(clf)
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(bad, YB)
    assert frozen(clf) == before
    with pytest.raises(ValueError, match=match):
        module(modname).run_online(clf, bad, YB)
    assert frozen(clf) == before
    with pytest.raises(ValueError, match=match):
        clf.predict(bad)
    with pytest.raises(ValueError, match=match):
        clf.decision_function(bad)
    assert frozen(clf) == before
    clf.partial_fit(XB, YB)
    assert frozen(clf) == frozen(fitted(modname, entry, **extra).partial_fit(XB, YB))
    fresh = make(modname, entry, **extra)
    with pytest.raises(ValueError, match=match):
        fresh.fit(bad, YB)
    with pytest.raises(module(modname).NotFittedError):
        fresh.predict(XB)
    fresh = make(modname, entry, **extra)
    with pytest.raises(ValueError, match=match):
        fresh.partial_fit(bad, YB)
    with pytest.raises(module(modname).NotFittedError):
        fresh.n_seen_


@pytest.mark.parametrize("value", (0.5, 2.0, -1.0, 1.0 + 2.0 ** -52, 1e-300),
                         ids=("0.5", "2", "-1", "1+ulp", "1e-300"))
@bad_param
@mod_param
def test_non_boolean_dense_values(modname, entry, value):
    bad = with_value(XB, 3, 2, value)
    assert_all_or_nothing(modname, entry, bad, match=r"row 3\b")


@bad_param
@mod_param
def test_non_boolean_integer_dense_and_csr(modname, entry):
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 1, 2, dtype=np.int64),
                          match=r"row 3\b")
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 1, 2, dtype=np.uint8),
                          match=r"row 3\b")
    D = np.array(XB, dtype=np.float64)
    D[3, 1] = 3.0
    assert_all_or_nothing(modname, entry, csr_from_dense(D, np.int32), match=r"row 3\b")
    assert_all_or_nothing(modname, entry, csr_from_dense(D, np.int64, np.float32),
                          match=r"row 3\b")
    assert_all_or_nothing(modname, entry, sp.csr_array(D), match=r"row 3\b")


@pytest.mark.parametrize("value", (math.nan, math.inf, -math.inf), ids=("nan", "inf", "-inf"))
@pytest.mark.parametrize("layout", ("dense", "csr"))
@pytest.mark.parametrize("entry", BAD_LEARNERS + REAL_LEARNERS,
                         ids=[entry_id(e) for e in BAD_LEARNERS + REAL_LEARNERS])
@mod_param
def test_non_finite_values(modname, entry, layout, value):
    bad = with_value(XB, 3, 0, value)
    if layout == "csr":
        bad = csr_from_dense(bad, np.int32)
    assert_all_or_nothing(modname, entry, bad, match=r"row 3\b")


@pytest.mark.parametrize("value", (math.nextafter(2.0 ** 100, math.inf), -2.0 ** 101, 1e300),
                         ids=("2**100+ulp", "-2**101", "1e300"))
@pytest.mark.parametrize("entry", REAL_LEARNERS, ids=[entry_id(e) for e in REAL_LEARNERS])
@mod_param
def test_real_values_beyond_two_to_the_100(modname, entry, value):
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 4, value), match=r"row 3\b")


@pytest.mark.parametrize("entry", REAL_LEARNERS, ids=[entry_id(e) for e in REAL_LEARNERS])
@mod_param
def test_real_values_up_to_two_to_the_100_accepted(modname, entry):
    X = with_value(XB, 3, 4, 2.0 ** 100)
    X[5, 0] = -(2.0 ** 100)
    X[6, 1] = 0.37
    clf = fitted(modname, entry)
    clf.partial_fit(X, YB)
    assert clf.n_seen_ == 38
    assert all(math.isfinite(v) for v in state(clf)["log2_coef_"])


@mod_param
def test_csr_explicit_zeros_are_inactive(modname):
    """A stored 0 is not an active feature: the same run as without it, for every rule."""
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], dtype=np.float64)
    y = np.array([1, 0, 1, 0])
    with_zero = sp.csr_array((np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0]),
                              np.array([0, 1, 2, 1, 2, 0, 1, 2, 2]),
                              np.array([0, 3, 5, 8, 9])), shape=(4, 3))
    assert (with_zero.toarray() == X).all() and with_zero.nnz == 9
    for name in CLASS_NAMES:
        a, b = new(modname, name), new(modname, name)
        ra = run_online(modname, a, with_zero, y, classes=[0, 1])
        rb = run_online(modname, b, X, y, classes=[0, 1])
        assert canon(ra) == canon(rb), name
        assert state(a) == state(b), name
        assert canon(a.decision_function(with_zero)) == canon(b.decision_function(X)), name


@pytest.mark.checked
@pytest.mark.parametrize("rows,what", [
    ([[0, 2], [-1]], "negative"),
    ([[0, 2], [5]], "n_features"),
    ([[0, 2], [1, 7, 2]], "beyond"),
    ([[0, 2], [1, 1]], "repeated"),
], ids=("negative", "equal-n", "beyond", "repeated"))
@bad_param
@mod_param
def test_bad_index_lists(modname, entry, rows, what):
    clf = fitted(modname, entry, n_features=5)
    before = frozen(clf)
    good = [np.flatnonzero(r).tolist() for r in XB]
    bad = good[:3] + rows + good[5:]
    bad_copy = copy.deepcopy(bad)
    with pytest.raises(ValueError):
        clf.partial_fit(bad, YB)
    assert frozen(clf) == before
    with pytest.raises(ValueError):
        clf.predict(bad)
    with pytest.raises(ValueError):
        make(modname, entry, n_features=5).fit(bad, YB)
    assert bad == bad_copy


@bad_param
@mod_param
def test_index_lists_need_n_features(modname, entry):
    """Without n_features, ragged index lists are not a matrix: ValueError, and no state."""
    rows = [[0, 3], [2], [1, 2, 4]]
    clf = make(modname, entry)
    with pytest.raises(ValueError):
        clf.partial_fit(rows, [1, 0, 1])
    with pytest.raises(module(modname).NotFittedError):
        clf.predict(XB)


@pytest.mark.parametrize("index", (-1, 5, 9), ids=("negative", "equal-n", "beyond"))
@bad_param
@mod_param
def test_csr_index_out_of_range(modname, entry, index):
    ok = csr_from_dense(np.asarray(XB, np.float64), np.int64)
    indices = ok.indices.copy()
    k = int(ok.indptr[3])
    assert ok.indptr[4] > k             # row 3 has a stored value
    indices[k] = index
    bad = DuckCSR(ok.data.copy(), indices, ok.indptr.copy(), ok.shape)
    assert_all_or_nothing(modname, entry, bad, match=r"row 3\b")


@bad_param
@mod_param
def test_wrong_feature_count(modname, entry):
    clf = fitted(modname, entry)
    before = frozen(clf)
    for bad in (np.ones((2, 6), np.uint8), np.ones((2, 4), np.uint8),
                csr_from_dense(np.ones((2, 6)), np.int32)):
        with pytest.raises(ValueError):
            clf.partial_fit(bad, [0, 1])
        with pytest.raises(ValueError):
            clf.predict(bad)
        with pytest.raises(ValueError):
            clf.decision_function(bad)
        assert frozen(clf) == before


@bad_param
@mod_param
def test_n_features_disagreeing_with_the_data(modname, entry):
    """A learner built with n_features=7 is given 5 columns (dense or CSR): wrong feature count."""
    for X in (np.asarray(XG, np.uint8), csr_from_dense(np.asarray(XG, np.float64), np.int32)):
        clf = make(modname, entry, n_features=7)
        with pytest.raises(ValueError):
            clf.partial_fit(X, YG)
        with pytest.raises(module(modname).NotFittedError):
            clf.predict(XG)


BAD_PARAMS = [
    ("alpha", 1.0), ("alpha", 1), ("alpha", 0.5), ("alpha", 0.0), ("alpha", -2.0),
    ("alpha", math.nan), ("alpha", math.inf), ("alpha", True), ("alpha", "2"), ("alpha", None),
    ("alpha", 10 ** 400),
    ("beta", 1.0), ("beta", 1.5), ("beta", -0.1), ("beta", math.nan), ("beta", math.inf),
    ("beta", True), ("beta", "0.5"),
    ("theta", 0.0), ("theta", 0), ("theta", -1.0), ("theta", math.nan), ("theta", math.inf),
    ("theta", -math.inf), ("theta", True), ("theta", "3"), ("theta", 10 ** 400),
    ("w0", 0.0), ("w0", -1.0), ("w0", math.nan), ("w0", math.inf), ("w0", True), ("w0", None),
    ("features", "x"), ("features", "Boolean"), ("features", None),
    ("max_epochs", 0), ("max_epochs", -1), ("max_epochs", 1.5), ("max_epochs", True),
]
PARAM_OWNERS = {"alpha": ("Winnow", "WinnowStar", "BalancedWinnow"),
                "beta": ("Winnow",),
                "theta": CLASS_NAMES,
                "w0": ("Winnow", "BalancedWinnow"),
                "features": ("Winnow", "BalancedWinnow"),
                "max_epochs": CLASS_NAMES}
PARAM_CASES = [(cls, p, v) for p, v in BAD_PARAMS for cls in PARAM_OWNERS[p]]


@pytest.mark.checked
@pytest.mark.parametrize("name,param,value", PARAM_CASES,
                         ids=[f"{c}-{p}={'10**400' if v == 10 ** 400 else repr(v)}"
                              for c, p, v in PARAM_CASES])
@mod_param
def test_bad_parameters(modname, name, param, value):
    X, y = np.asarray(XG, np.uint8), YG
    clf = new(modname, name, **{param: value})
    with pytest.raises(ValueError, match=param):
        clf.partial_fit(X, y)
    with pytest.raises(module(modname).NotFittedError):
        clf.predict(X)
    with pytest.raises(ValueError, match=param):
        new(modname, name, **{param: value}).fit(X, y)
    # set on a fitted learner: the next call refuses, and nothing changes
    clf = new(modname, name).partial_fit(X, y)
    before = frozen(clf)
    clf.set_params(**{param: value})
    with pytest.raises(ValueError, match=param):
        clf.partial_fit(XB, YB)
    with pytest.raises(ValueError, match=param):
        module(modname).run_online(clf, XB, YB)
    assert frozen(clf) == before


@mod_param
def test_balanced_winnow_theta_none(modname):
    """BalancedWinnow has no n-based default threshold: theta=None must be refused like any other
    invalid theta (ValueError naming theta), not crash later."""
    clf = new(modname, "BalancedWinnow", theta=None)
    with pytest.raises(ValueError, match="theta"):
        clf.partial_fit(np.asarray(XG, np.uint8), YG)


@pytest.mark.checked
@pytest.mark.parametrize("value", (0, -1, 2.5, True, "5"))
@mod_param
def test_bad_n_features(modname, value):
    for name in CLASS_NAMES:
        for X in (np.asarray(XG, np.uint8), [np.flatnonzero(r).tolist() for r in XG]):
            clf = new(modname, name, n_features=value)
            with pytest.raises(ValueError, match="n_features"):
                clf.partial_fit(X, YG)


@bad_param
@mod_param
def test_non_numeric_data(modname, entry):
    clf = fitted(modname, entry)
    before = frozen(clf)
    for bad in (np.array([["1", "0", "1", "0", "0"]] * 2), np.array([["a"] * 5] * 2, dtype=object),
                [[None, 0, 1, 0, 0], [0, 0, 1, 0, 0]]):
        with pytest.raises(TypeError):
            clf.partial_fit(bad, [0, 1])
        with pytest.raises(TypeError):
            clf.predict(bad)
        assert frozen(clf) == before
    with pytest.raises(TypeError):
        make(modname, entry).partial_fit(np.asarray(XG, np.uint8), None)


@pytest.mark.parametrize("fmt", BOOL_FORMATS)
@pytest.mark.parametrize("name", CLASS_NAMES)
@mod_param
def test_inputs_never_modified(modname, name, fmt):
    X, y = bool_stream(60, 40, 6)
    Xf = fmt_X(X, fmt)
    if isinstance(Xf, np.ndarray):
        Xf.flags.writeable = True
        keep = Xf.copy()
    elif isinstance(Xf, list):
        keep = copy.deepcopy(Xf)
    else:
        keep = (np.array(Xf.data, copy=True), np.array(Xf.indices, copy=True),
                np.array(Xf.indptr, copy=True))
    y_keep = y.copy()
    extra = fmt_extra(fmt, 6)
    clf = new(modname, name, **extra)
    clf.partial_fit(Xf, y)
    module(modname).run_online(clf, Xf, y)
    clf.predict(Xf)
    clf.decision_function(Xf)
    new(modname, name, max_epochs=3, **extra).fit(Xf, y)
    if isinstance(Xf, np.ndarray):
        assert (Xf == keep).all() and Xf.dtype == keep.dtype
    elif isinstance(Xf, list):
        assert Xf == keep
    else:
        assert (np.asarray(Xf.data) == keep[0]).all()
        assert (np.asarray(Xf.indices) == keep[1]).all()
        assert (np.asarray(Xf.indptr) == keep[2]).all()
    assert (y == y_keep).all()
