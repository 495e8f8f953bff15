"""Multi-class (K >= 3) rules of the Winnow family, in the twin (mbref), from the spec of the
multi-class Winnow rules (Mesterharm's Committee rule for multi_class="multiclass", one binary
learner per class for "ovr").

Every golden case is worked out by hand in the comments (weights written as their log2
exponents L; a weight is 2**L; a score S_k is the sum of class k's weights over the active
features); each asserts, after every row, the online prediction, whether the state changed, the
counters and the log2-weights of every class.  Then: exact-mode ties (float64 sums would round,
the exact sums decide), real mode, two classes unchanged whatever multi_class, the messages,
labels of any kind, all or nothing, fit, and the mistake bound on generated separable targets.
"""

import inspect
import math
import random
from fractions import Fraction

import numpy as np
import pytest

import mbcore
import mbref

NI = -math.inf
CLASSES = (mbref.Winnow, mbref.EliminationWinnow, mbref.WinnowStar, mbref.BalancedWinnow)


def dense(active, d):
    return [1 if i in active else 0 for i in range(d)]


def replay(clf, X, y, classes=(0, 1, 2)):
    """Feed the rows one at a time (classes= on the first call): per row (prediction, updated,
    mistakes_, updates_, log2_coef_[, log2_coef_neg_])."""
    out = []
    for i, (x, t) in enumerate(zip(X, y)):
        rec = mbref.run_online(clf, [x], [t], classes=list(classes) if i == 0 else None)
        row = (rec.predictions[0], rec.updated[0], clf.mistakes_, clf.updates_, clf.log2_coef_)
        if isinstance(clf, mbref.BalancedWinnow):
            row += (clf.log2_coef_neg_,)
        out.append(row)
    return out


def check(record, expected):
    assert len(record) == len(expected)
    for t, (got, want) in enumerate(zip(record, expected)):
        assert got == want, f"row {t + 1}: {got} != {want}"


def neg(L):
    return [[-v for v in row] for row in L]


# Stream A: d = 4, classes 0, 1, 2.
XA = [dense(a, 4) for a in ({0, 1}, {2, 3}, {0, 2}, {0, 1}, {1, 3}, {0, 3})]
YA = [1, 2, 0, 1, 2, 0]


# ------------------------------------------------------------------------------------------------
# Golden cases, "multiclass"
# ------------------------------------------------------------------------------------------------

def test_winnow_multiclass_golden():
    # alpha = 2, beta = 1/2: a promotion adds 1 to L, a demotion subtracts 1.  All L start at 0.
    # r1 {0,1} y=1: S = (2, 2, 2), a tie -> yhat 0: L1[0,1] = 1, L0[0,1] = -1.
    # r2 {2,3} y=2: S = (1+1, 1+1, 1+1) -> yhat 0: L2[2,3] = 1, L0[2,3] = -1.
    # r3 {0,2} y=0: S = (1/2+1/2, 2+1, 1+2) = (1, 3, 3) -> yhat 1: L0[0,2] = 0, L1[0] = 0,
    #    L1[2] = -1.
    # r4 {0,1} y=1: S = (1+1/2, 1+2, 1+1) = (1.5, 3, 2) -> yhat 1: right, nothing changes.
    # r5 {1,3} y=2: S = (1/2+1/2, 2+1, 1+2) = (1, 3, 3) -> yhat 1: L2[1] = 1, L2[3] = 2,
    #    L1[1] = 0, L1[3] = -1.
    # r6 {0,3} y=0: S = (1+1/2, 1+1/2, 1+4) = (1.5, 1.5, 5) -> yhat 2: L0[0] = 1, L0[3] = 0,
    #    L2[0] = -1, L2[3] = 1.
    clf = mbref.Winnow(alpha=2.0)
    expected = [
        (0, True, 1, 1, [[-1, -1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
        (0, True, 2, 2, [[-1, -1, -1, -1], [1, 1, 0, 0], [0, 0, 1, 1]]),
        (1, True, 3, 3, [[0, -1, 0, -1], [0, 1, -1, 0], [0, 0, 1, 1]]),
        (1, False, 3, 3, [[0, -1, 0, -1], [0, 1, -1, 0], [0, 0, 1, 1]]),
        (1, True, 4, 4, [[0, -1, 0, -1], [0, 0, -1, -1], [0, 1, 1, 2]]),
        (2, True, 5, 5, [[1, -1, 0, 0], [0, 0, -1, -1], [-1, 1, 1, 1]]),
    ]
    check(replay(clf, XA, YA), expected)
    # coef_ = 2**L, K rows; decision_function: the K scores; predict: the argmax.
    assert clf.coef_ == [[2.0, 0.5, 1.0, 1.0], [1.0, 1.0, 0.5, 0.5], [0.5, 2.0, 2.0, 2.0]]
    # {0,1}: (2+1/2, 1+1, 1/2+2); {2}: (1, 1/2, 2); {0}: (2, 1, 1/2)
    assert clf.decision_function([[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]) == \
        [[2.5, 2.0, 2.5], [1.0, 0.5, 2.0], [2.0, 1.0, 0.5]]
    assert clf.predict([[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]) == [0, 2, 0]
    assert clf.classes_ == [0, 1, 2] and clf.n_features_in_ == 4


def test_elimination_winnow_multiclass_golden():
    # alpha = 2, beta = 0: promotion adds 1, a demotion eliminates (L = -inf, weight 0; a
    # promotion keeps -inf).
    # r1 {0,1} y=1: S = (2, 2, 2) -> yhat 0: L1[0,1] = 1, L0[0,1] = -inf.
    # r2 {2,3} y=2: S = (2, 2, 2) -> yhat 0: L2[2,3] = 1, L0[2,3] = -inf.
    # r3 {0,2} y=0: S = (0, 2+1, 1+2) -> yhat 1: L0 stays -inf, L1[0] = L1[2] = -inf.
    # r4 {0,1} y=1: S = (0, 0+2, 1+1) = (0, 2, 2), a tie -> yhat 1: right.
    # r5 {1,3} y=2: S = (0, 2+1, 1+2) -> yhat 1: L2[1] = 1, L2[3] = 2, L1[1] = L1[3] = -inf.
    # r6 {0,3} y=0: S = (0, 0, 1+4) -> yhat 2: L0 stays -inf, L2[0] = L2[3] = -inf.
    clf = mbref.EliminationWinnow()
    expected = [
        (0, True, 1, 1, [[NI, NI, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
        (0, True, 2, 2, [[NI, NI, NI, NI], [1, 1, 0, 0], [0, 0, 1, 1]]),
        (1, True, 3, 3, [[NI, NI, NI, NI], [NI, 1, NI, 0], [0, 0, 1, 1]]),
        (1, False, 3, 3, [[NI, NI, NI, NI], [NI, 1, NI, 0], [0, 0, 1, 1]]),
        (1, True, 4, 4, [[NI, NI, NI, NI], [NI, NI, NI, NI], [0, 1, 1, 2]]),
        (2, True, 5, 5, [[NI, NI, NI, NI], [NI, NI, NI, NI], [NI, 1, 1, NI]]),
    ]
    check(replay(clf, XA, YA), expected)
    # {0,3}: every score is 0: a tie, class 0.  {1}: (0, 0, 2).
    assert clf.decision_function([[1, 0, 0, 1], [0, 1, 0, 0]]) == [[0.0, 0.0, 0.0],
                                                                   [0.0, 0.0, 2.0]]
    assert clf.predict([[1, 0, 0, 1], [0, 1, 0, 0]]) == [0, 2]
    assert clf.coef_[2] == [0.0, 2.0, 2.0, 0.0]


def test_winnow_star_multiclass_golden():
    # Winnow*: promotion adds 1; a demotion subtracts 1 only where L >= 0 (weights >= 1).
    # r1 {0,1} y=1: S = (2, 2, 2) -> yhat 0: L1 = (1,1,0,0), L0 = (-1,-1,0,0).
    # r2 {0,2} y=2: S = (1/2+1, 2+1, 1+1) = (1.5, 3, 2) -> yhat 1: L2 = (1,0,1,0);
    #    L1[0] 1 -> 0, L1[2] 0 -> -1: L1 = (0,1,-1,0).
    # r3 {1,2} y=0: S = (1/2+1, 2+1/2, 1+2) = (1.5, 2.5, 3) -> yhat 2: L0 = (-1,0,1,0);
    #    L2[1] 0 -> -1, L2[2] 1 -> 0: L2 = (1,-1,0,0).
    # r4 {0,1,2} y=1: S = (1/2+1+2, 1+2+1/2, 2+1/2+1) = (3.5, 3.5, 3.5) -> yhat 0:
    #    L1 = (1,2,0,0); L0[0] = -1 < 0 is NOT demoted, L0[1] 0 -> -1, L0[2] 1 -> 0:
    #    L0 = (-1,-1,0,0) (Winnow would give L0[0] = -2).
    # r5 {0,3} y=0: S = (1/2+1, 2+1, 2+1) = (1.5, 3, 3) -> yhat 1: L0 = (0,-1,0,1);
    #    L1[0] 1 -> 0, L1[3] 0 -> -1: L1 = (0,2,0,-1).
    # r6 {2,3} y=2: S = (1+2, 1+1/2, 1+1) = (3, 1.5, 2) -> yhat 0: L2 = (1,-1,1,1);
    #    L0[2] 0 -> -1, L0[3] 1 -> 0: L0 = (0,-1,-1,0).
    X = [dense(a, 4) for a in ({0, 1}, {0, 2}, {1, 2}, {0, 1, 2}, {0, 3}, {2, 3})]
    y = [1, 2, 0, 1, 0, 2]
    clf = mbref.WinnowStar()
    expected = [
        (0, True, 1, 1, [[-1, -1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
        (1, True, 2, 2, [[-1, -1, 0, 0], [0, 1, -1, 0], [1, 0, 1, 0]]),
        (2, True, 3, 3, [[-1, 0, 1, 0], [0, 1, -1, 0], [1, -1, 0, 0]]),
        (0, True, 4, 4, [[-1, -1, 0, 0], [1, 2, 0, 0], [1, -1, 0, 0]]),
        (1, True, 5, 5, [[0, -1, 0, 1], [0, 2, 0, -1], [1, -1, 0, 0]]),
        (0, True, 6, 6, [[0, -1, -1, 0], [0, 2, 0, -1], [1, -1, 1, 1]]),
    ]
    check(replay(clf, X, y), expected)


def test_balanced_winnow_multiclass_golden():
    # Balanced Winnow, alpha = 2: class y as on a false negative (L+ += 1, L- -= 1), class yhat
    # as on a false positive (L+ -= 1, L- += 1).  All start at 0, every update moves L+ and L-
    # by opposite amounts, so L- = -L+ throughout; a feature's weight is 2**L+ - 2**-L+:
    # 0 for L+ = 0, 1.5 for 1, -1.5 for -1, 3.75 for 2.
    # r1 {0,1} y=1: S = (0, 0, 0) -> yhat 0: L+1[0,1] = 1, L+0[0,1] = -1.
    # r2 {2,3} y=2: S = (0, 0, 0) -> yhat 0: L+2[2,3] = 1, L+0[2,3] = -1.
    # r3 {0,2} y=0: S = (-1.5-1.5, 1.5+0, 0+1.5) = (-3, 1.5, 1.5) -> yhat 1: L+0[0,2] = 0,
    #    L+1[0] = 0, L+1[2] = -1.
    # r4 {0,1} y=1: S = (0-1.5, 0+1.5, 0+0) -> yhat 1: right.
    # r5 {1,3} y=2: S = (-1.5-1.5, 1.5+0, 0+1.5) -> yhat 1: L+2[1] = 1, L+2[3] = 2,
    #    L+1[1] = 0, L+1[3] = -1.
    # r6 {0,3} y=0: S = (0-1.5, 0-1.5, 0+3.75) -> yhat 2: L+0[0] = 1, L+0[3] = 0,
    #    L+2[0] = -1, L+2[3] = 1.
    P = [
        [[-1, -1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]],
        [[-1, -1, -1, -1], [1, 1, 0, 0], [0, 0, 1, 1]],
        [[0, -1, 0, -1], [0, 1, -1, 0], [0, 0, 1, 1]],
        [[0, -1, 0, -1], [0, 1, -1, 0], [0, 0, 1, 1]],
        [[0, -1, 0, -1], [0, 0, -1, -1], [0, 1, 1, 2]],
        [[1, -1, 0, 0], [0, 0, -1, -1], [-1, 1, 1, 1]],
    ]
    flags = [(0, True, 1, 1), (0, True, 2, 2), (1, True, 3, 3), (1, False, 3, 3),
             (1, True, 4, 4), (2, True, 5, 5)]
    clf = mbref.BalancedWinnow()
    check(replay(clf, XA, YA), [f + (p, neg(p)) for f, p in zip(flags, P)])
    assert clf.coef_ == [[1.5, -1.5, 0.0, 0.0], [0.0, 0.0, -1.5, -1.5], [-1.5, 1.5, 1.5, 1.5]]
    # {0,1}: (1.5-1.5, 0+0, -1.5+1.5) = (0, 0, 0): a tie, class 0; {1,2}: (-1.5, -1.5, 3).
    assert clf.decision_function([[1, 1, 0, 0], [0, 1, 1, 0]]) == [[0.0, 0.0, 0.0],
                                                                   [-1.5, -1.5, 3.0]]
    assert clf.predict([[1, 1, 0, 0], [0, 1, 1, 0]]) == [0, 2]


# ------------------------------------------------------------------------------------------------
# Golden cases, "ovr"
# ------------------------------------------------------------------------------------------------

def test_winnow_ovr_golden():
    # theta = d = 4; learner k predicts +1 iff S_k >= 4 and updates by the binary rule when it
    # is wrong about "y == k".  yhat = argmax S_k.
    # r1 {0,1} y=1: S = (2, 2, 2) -> yhat 0; all p = -1; learner 1 promotes: L1 = (1,1,0,0).
    # r2 {2,3} y=2: S = (2, 1+1, 2) -> yhat 0; learner 2 promotes: L2 = (0,0,1,1).
    # r3 {0,2} y=0: S = (2, 2+1, 1+2) -> yhat 1; all p = -1; learner 0 promotes: L0 = (1,0,1,0).
    # r4 {1,3} y=2: S = (1+1, 2+1, 1+2) -> yhat 1; all p = -1; learner 2 promotes: L2 = (0,1,1,2).
    # r5 {0,3} y=0: S = (2+1, 2+1, 1+4) -> yhat 2; p2 = +1 (5 >= 4) but y2 = -1: demote
    #    L2 = (-1,1,1,1); p0 = -1 but y0 = +1: promote L0 = (2,0,1,1).
    # r6 {1,2,3} y=2: S = (1+2+2, 2+1+1, 2+2+2) = (5, 4, 6) -> yhat 2, right; but p0 = +1
    #    (5 >= 4): demote L0 = (2,-1,0,0); p1 = +1 (4 >= 4): demote L1 = (1,0,-1,-1); an
    #    update without a mistake.
    X = [dense(a, 4) for a in ({0, 1}, {2, 3}, {0, 2}, {1, 3}, {0, 3}, {1, 2, 3})]
    y = [1, 2, 0, 2, 0, 2]
    clf = mbref.Winnow(multi_class="ovr")
    expected = [
        (0, True, 1, 1, [[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
        (0, True, 2, 2, [[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]]),
        (1, True, 3, 3, [[1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]),
        (1, True, 4, 4, [[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 2]]),
        (2, True, 5, 5, [[2, 0, 1, 1], [1, 1, 0, 0], [-1, 1, 1, 1]]),
        (2, True, 5, 6, [[2, -1, 0, 0], [1, 0, -1, -1], [-1, 1, 1, 1]]),
    ]
    check(replay(clf, X, y), expected)
    assert clf.theta_ == 4.0


def test_elimination_winnow_ovr_golden():
    # theta = d/2 = 2; a demotion eliminates.
    # r1 {0,1} y=1: S = (2, 2, 2) -> yhat 0; all p = +1: learners 0 and 2 eliminate f0, f1.
    # r2 {2,3} y=2: S = (2, 2, 2) -> yhat 0; all p = +1: learners 0 and 1 eliminate f2, f3.
    # r3 {0,2} y=0: S = (0, 1+0, 0+1) -> yhat 1; all p = -1: learner 0 promotes (its weights
    #    stay 0), which is an update (the binary rule updates on every mistake).
    # r4 {0,1} y=1: S = (0, 2, 0) -> yhat 1; p1 = +1: every learner right, nothing changes.
    # r5 {1,3} y=2: S = (0, 1+0, 0+1) -> yhat 1; learner 2 promotes: L2 = (-inf,-inf,0,1).
    # r6 {0,3} y=0: S = (0, 1+0, 0+2) -> yhat 2; p2 = +1: learner 2 eliminates f0, f3; learner
    #    0 promotes (no effect).
    clf = mbref.EliminationWinnow(multi_class="ovr")
    expected = [
        (0, True, 1, 1, [[NI, NI, 0, 0], [0, 0, 0, 0], [NI, NI, 0, 0]]),
        (0, True, 2, 2, [[NI, NI, NI, NI], [0, 0, NI, NI], [NI, NI, 0, 0]]),
        (1, True, 3, 3, [[NI, NI, NI, NI], [0, 0, NI, NI], [NI, NI, 0, 0]]),
        (1, False, 3, 3, [[NI, NI, NI, NI], [0, 0, NI, NI], [NI, NI, 0, 0]]),
        (1, True, 4, 4, [[NI, NI, NI, NI], [0, 0, NI, NI], [NI, NI, 0, 1]]),
        (2, True, 5, 5, [[NI, NI, NI, NI], [0, 0, NI, NI], [NI, NI, 0, NI]]),
    ]
    check(replay(clf, XA, YA), expected)
    assert clf.theta_ == 2.0


def test_winnow_star_ovr_golden():
    # theta = 3; Winnow* demotes only the weights >= 1.
    # r1 {0,1} y=1: S = (2, 2, 2) -> yhat 0; all p = -1: learner 1 promotes: L1 = (1,1,0,0).
    # r2 {0,1,2} y=0: S = (3, 2+2+1, 3) -> yhat 1; p0 = +1 right; p1 = +1: L1 = (0,0,-1,0);
    #    p2 = +1: L2 = (-1,-1,-1,0).
    # r3 {0,1,2,3} y=1: S = (4, 1+1+1/2+1, 3/2+1) = (4, 3.5, 2.5) -> yhat 0; p0 = +1:
    #    L0 = (-1,-1,-1,-1); p1 = +1 right; p2 = -1 right.
    # r4 {0,1,2,3} y=2: S = (2, 3.5, 2.5) -> yhat 1; p1 = +1: demote L1 where L >= 0:
    #    L1 = (-1,-1,-1,-1) (L1[2] = -1 stays); p2 = -1: promote L2 = (0,0,0,1).
    # r5 {2,3} y=2: S = (1/2+1/2, 1/2+1/2, 1+2) = (1, 1, 3) -> yhat 2; p2 = +1 (3 >= 3): right.
    # r6 {0,3} y=0: S = (1, 1, 1+2) -> yhat 2; p0 = -1: L0 = (0,-1,-1,0); p2 = +1: demote
    #    L2[0] 0 -> -1, L2[3] 1 -> 0: L2 = (-1,0,0,0).
    X = [dense(a, 4) for a in ({0, 1}, {0, 1, 2}, {0, 1, 2, 3}, {0, 1, 2, 3}, {2, 3}, {0, 3})]
    y = [1, 0, 1, 2, 2, 0]
    clf = mbref.WinnowStar(theta=3.0, multi_class="ovr")
    expected = [
        (0, True, 1, 1, [[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
        (1, True, 2, 2, [[0, 0, 0, 0], [0, 0, -1, 0], [-1, -1, -1, 0]]),
        (0, True, 3, 3, [[-1, -1, -1, -1], [0, 0, -1, 0], [-1, -1, -1, 0]]),
        (1, True, 4, 4, [[-1, -1, -1, -1], [-1, -1, -1, -1], [0, 0, 0, 1]]),
        (2, False, 4, 4, [[-1, -1, -1, -1], [-1, -1, -1, -1], [0, 0, 0, 1]]),
        (2, True, 5, 5, [[0, -1, -1, 0], [-1, -1, -1, -1], [-1, 0, 0, 0]]),
    ]
    check(replay(clf, X, y), expected)


def test_balanced_winnow_ovr_golden():
    # theta = 1; L- = -L+ throughout (as in the multiclass case); weight 1.5 for L+ = 1, -1.5
    # for -1, 0 for 0.
    # r1 {0,1} y=1: S = (0, 0, 0) -> yhat 0; all p = -1: learner 1 promotes L+1[0,1] = 1.
    # r2 {2,3} y=2: S = (0, 0, 0) -> yhat 0; learner 2 promotes L+2[2,3] = 1.
    # r3 {0,2} y=0: S = (0, 1.5+0, 0+1.5) -> yhat 1; p0 = -1: promote L+0 = (1,0,1,0);
    #    p1 = +1: demote L+1 = (0,1,-1,0); p2 = +1: demote L+2 = (-1,0,0,1).
    # r4 {0,1} y=1: S = (1.5+0, 0+1.5, -1.5+0) -> a tie, yhat 0; p0 = +1: demote
    #    L+0 = (0,-1,1,0); p1 = +1 right.
    # r5 {1,3} y=2: S = (-1.5+0, 1.5+0, 0+1.5) -> yhat 1; p1 = +1: demote L+1 = (0,0,-1,-1).
    # r6 {2,3} y=0: S = (1.5+0, -1.5-1.5, 0+1.5) -> a tie, yhat 0, right; p2 = +1: demote
    #    L+2 = (-1,0,-1,0): an update without a mistake.
    X = XA[:5] + [dense({2, 3}, 4)]
    y = YA[:5] + [0]
    P = [
        [[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]],
        [[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]],
        [[1, 0, 1, 0], [0, 1, -1, 0], [-1, 0, 0, 1]],
        [[0, -1, 1, 0], [0, 1, -1, 0], [-1, 0, 0, 1]],
        [[0, -1, 1, 0], [0, 0, -1, -1], [-1, 0, 0, 1]],
        [[0, -1, 1, 0], [0, 0, -1, -1], [-1, 0, -1, 0]],
    ]
    flags = [(0, True, 1, 1), (0, True, 2, 2), (1, True, 3, 3), (0, True, 4, 4),
             (1, True, 5, 5), (0, True, 5, 6)]
    clf = mbref.BalancedWinnow(multi_class="ovr")
    check(replay(clf, X, y), [f + (p, neg(p)) for f, p in zip(flags, P)])


# ------------------------------------------------------------------------------------------------
# Exact mode: the exact sums decide (float64 sums would round)
# ------------------------------------------------------------------------------------------------

def test_exact_sums_decide_where_float_sums_tie():
    # alpha = 2**60, beta = 2**-60: a promotion adds 60 to L, a demotion subtracts 60.
    # r1 {0} y=1: S = (1, 1, 1) -> yhat 0: L1[0] = 60, L0[0] = -60.
    # r2 {0,1} y=0: S = (2**-60+1, 2**60+1, 2) -> yhat 1: L0 = (0,60,0), L1 = (0,-60,0).
    # r3 {2} y=2: S = (1, 1, 1) -> yhat 0: L2[2] = 60, L0[2] = -60.
    # r4 {1,2} y=2: S0 = 2**60 + 2**-60, S1 = 2**-60 + 1, S2 = 1 + 2**60.  In float64 both
    #    S0 and S2 round to 2**60 (a tie that would give class 0 and an update); exactly
    #    S2 > S0: yhat 2, right, nothing changes.
    X = [dense(a, 3) for a in ({0}, {0, 1}, {2}, {1, 2})]
    y = [1, 0, 2, 2]
    clf = mbref.Winnow(alpha=2.0 ** 60)
    expected = [
        (0, True, 1, 1, [[-60, 0, 0], [60, 0, 0], [0, 0, 0]]),
        (1, True, 2, 2, [[0, 60, 0], [0, -60, 0], [0, 0, 0]]),
        (0, True, 3, 3, [[0, 60, -60], [0, -60, 0], [0, 0, 60]]),
        (2, False, 3, 3, [[0, 60, -60], [0, -60, 0], [0, 0, 60]]),
    ]
    check(replay(clf, X, y), expected)
    assert 2.0 ** 60 + 2.0 ** -60 == 1.0 + 2.0 ** 60            # the float64 sums tie
    assert clf.predict([[0, 1, 1]]) == [2]
    # {0,1,2}: S0 = 1 + 2**60 + 2**-60 < S2 = 1 + 1 + 2**60 exactly (both 2**60 in float64).
    assert clf.predict([[1, 1, 1]]) == [2]
    assert clf.decision_function([[0, 1, 1]]) == [[2.0 ** 60, 1.0, 2.0 ** 60]]


def test_exact_tie_goes_to_the_smallest_index():
    # alpha = 2**60.  r1 {0} y=2: S = (1,1,1) -> yhat 0: L2[0] = 60, L0[0] = -60.
    # r2 {1} y=1: S = (1,1,1) -> yhat 0: L1[1] = 60, L0[1] = -60.
    # r3 {0,1} y=2: S = (2**-59, 1 + 2**60, 2**60 + 1): classes 1 and 2 tie exactly -> yhat 1,
    #    a mistake: L2[0] = 120, L2[1] = 60, L1[0] = -60, L1[1] = 0.
    X = [dense(a, 3) for a in ({0}, {1}, {0, 1})]
    y = [2, 1, 2]
    clf = mbref.Winnow(alpha=2.0 ** 60)
    expected = [
        (0, True, 1, 1, [[-60, 0, 0], [0, 0, 0], [60, 0, 0]]),
        (0, True, 2, 2, [[-60, -60, 0], [0, 60, 0], [60, 0, 0]]),
        (1, True, 3, 3, [[-60, -60, 0], [-60, 0, 0], [120, 60, 0]]),
    ]
    check(replay(clf, X, y), expected)


def test_exact_tie_although_the_float_sums_differ():
    # alpha = 2**53.  r1 {0} y=1: yhat 0 (all 1): L1[0] = 53, L0[0] = -53.
    # r2 {2} y=2: S = (1, 1, 1) -> yhat 0: L2[2] = 53, L0[2] = -53.
    # r3 {0,1,2} y=1: S1 = 2**53 + 1 + 1 and S2 = 1 + 1 + 2**53 are equal exactly (S0 =
    #    1 + 2**-52 is smaller): a tie, yhat 1, right.  Their float64 four-partial sums differ:
    #    S1 = ((2**53 + 1) + 1) = 2**53 (each + 1 is a half-ulp tie, rounded to even), S2 =
    #    (1 + 1) + 2**53 = 2**53 + 2; the float argmax would say 2.
    X = [dense(a, 3) for a in ({0}, {2}, {0, 1, 2})]
    y = [1, 2, 1]
    clf = mbref.Winnow(alpha=2.0 ** 53)
    expected = [
        (0, True, 1, 1, [[-53, 0, 0], [53, 0, 0], [0, 0, 0]]),
        (0, True, 2, 2, [[-53, 0, -53], [53, 0, 0], [0, 0, 53]]),
        (1, False, 2, 2, [[-53, 0, -53], [53, 0, 0], [0, 0, 53]]),
    ]
    check(replay(clf, X, y), expected)
    assert clf.predict([[1, 1, 1]]) == [1]


def test_decision_function_in_exact_mode_is_the_binary_float_score():
    """The K columns are each class's binary decision_function value: the float64 four-partial
    sum of 2**L over the active features (what the binary learner returns), not the rounding
    of the exact sum: they differ here (the prediction uses the exact sums)."""
    clf = mbref.Winnow(alpha=2.0 ** 53)
    clf.partial_fit([[1, 0, 0], [0, 0, 1]], [1, 2], classes=[0, 1, 2])
    # as in the case above: L0 = (-53,0,-53), L1 = (53,0,0), L2 = (0,0,53).
    # S0: (2**-53 + 1) + 2**-53 = 1.0 (the exact 1 + 2**-52 is a float64);
    # S1: (2**53 + 1) + 1 = 2**53; S2: (1 + 1) + 2**53 = 2**53 + 2.
    assert clf.decision_function([[1, 1, 1]]) == [[1.0, 2.0 ** 53, 2.0 ** 53 + 2]]
    # each column is the binary learner's score with that class's weights (the binary
    # decision_function is that score less theta = 3; the three signs are right here)
    for k in range(3):
        b = mbref.Winnow(alpha=2.0 ** 53)
        b.partial_fit([[0, 0, 0]], [0], classes=[0, 1])
        b._l = list(clf.log2_coef_[k])
        assert b.decision_function([[1, 1, 1]]) == \
            [clf.decision_function([[1, 1, 1]])[0][k] - 3.0]


def test_ovr_decisions_are_exact():
    # alpha = 2**53, theta = 2**53 + 2 (a float64): learner k says +1 iff S_k >= theta exactly.
    # r1 {0} y=1: S = (1,1,1) -> yhat 0; all p = -1: learner 1 promotes L1[0] = 53.
    # r2 {2} y=2: S = (1,1,1) -> yhat 0; learner 2 promotes L2[2] = 53.
    # r3 {0,1,2} y=1: S = (3, 2**53 + 2, 2**53 + 2) -> a tie, yhat 1, right.  p1 = +1 exactly
    #    (the float64 sum of S1 is 2**53 < theta, which would promote learner 1): right;
    #    p2 = +1, y2 = -1: demote L2 = (-53,-53,0).  An update without a mistake.
    X = [dense(a, 3) for a in ({0}, {2}, {0, 1, 2})]
    y = [1, 2, 1]
    clf = mbref.Winnow(alpha=2.0 ** 53, theta=2.0 ** 53 + 2, multi_class="ovr")
    expected = [
        (0, True, 1, 1, [[0, 0, 0], [53, 0, 0], [0, 0, 0]]),
        (0, True, 2, 2, [[0, 0, 0], [53, 0, 0], [0, 0, 53]]),
        (1, True, 2, 3, [[0, 0, 0], [53, 0, 0], [-53, -53, 0]]),
    ]
    check(replay(clf, X, y), expected)


def test_exact_scores_are_fractions_and_compared_exactly():
    clf = mbref.Winnow(alpha=2.0 ** 60)
    clf.partial_fit([[1, 0, 0], [1, 1, 0], [0, 0, 1]], [1, 0, 2], classes=[0, 1, 2])
    s = clf._class_scores(clf._active([0, 1, 1]), 0)
    assert s == [Fraction(2) ** 60 + Fraction(1, 2 ** 60), 1 + Fraction(1, 2 ** 60),
                 1 + Fraction(2) ** 60]


# ------------------------------------------------------------------------------------------------
# Real mode
# ------------------------------------------------------------------------------------------------

XR = [[2.0, 0.0, 0.5], [0.0, 1.0, 1.0], [-1.0, 0.0, 2.0], [1.0, 1.0, 0.0], [0.0, 0.5, 1.0]]
YR = [1, 2, 0, 1, 2]


def test_winnow_real_features_multiclass_golden():
    # features="real", alpha = 2, beta = 1/2: a promotion adds x_i, a demotion subtracts x_i.
    # r1 x=(2,0,.5) y=1: S = 2 + .5 = 2.5 for all -> yhat 0: L1 = (2,0,.5), L0 = (-2,0,-.5).
    # r2 x=(0,1,1) y=2: S = (1 + 2**-.5, 1 + 2**.5, 2) -> yhat 1: L2 = (0,1,1),
    #    L1 = (2,-1,-.5).
    # r3 x=(-1,0,2) y=0: S0 = -2**-2 + 2 * 2**-.5 = 1.16, S1 = -4 + 2 * 2**-.5 = -2.59,
    #    S2 = -1 + 2 * 2 = 3 -> yhat 2: L0 += x = (-3,0,1.5), L2 -= x = (1,1,-1).
    # r4 x=(1,1,0) y=1: S = (1/8 + 1, 4 + 1/2, 2 + 2) -> yhat 1: right.
    # r5 x=(0,.5,1) y=2: S = (.5 + 2**1.5, .5 * .5 + 2**-.5, .5 * 2 + 1/2) = (3.33, .96, 1.5)
    #    -> yhat 0: L2 += x = (1,1.5,0), L0 -= x = (-3,-.5,.5).
    clf = mbref.Winnow(features="real")
    expected = [
        (0, True, 1, 1, [[-2, 0, -0.5], [2, 0, 0.5], [0, 0, 0]]),
        (1, True, 2, 2, [[-2, 0, -0.5], [2, -1, -0.5], [0, 1, 1]]),
        (2, True, 3, 3, [[-3, 0, 1.5], [2, -1, -0.5], [1, 1, -1]]),
        (1, False, 3, 3, [[-3, 0, 1.5], [2, -1, -0.5], [1, 1, -1]]),
        (0, True, 4, 4, [[-3, -0.5, 0.5], [2, -1, -0.5], [1, 1.5, 0]]),
    ]
    check(replay(clf, XR, YR), expected)
    assert not clf._exact_mode
    # (1,0,0): (2**-3, 2**2, 2**1); (0,-2,1): -2 * 2**L[1] + 2**L[2], in float64.
    assert clf.decision_function([[1.0, 0.0, 0.0]]) == [[0.125, 4.0, 2.0]]
    assert clf.decision_function([[0.0, -2.0, 1.0]]) == [[-2 * 2 ** -0.5 + 2 ** 0.5,
                                                          -2 * 0.5 + 2 ** -0.5, -2 * 2 ** 1.5 + 1]]
    assert clf.predict([[1.0, 0.0, 0.0], [0.0, -2.0, 1.0]]) == [1, 0]


def test_winnow_real_features_ovr_golden():
    # theta = d = 3.
    # r1 x=(2,0,.5) y=1: S = 2.5 for all -> yhat 0; all p = -1: learner 1: L1 = (2,0,.5).
    # r2 x=(0,1,1) y=2: S = (2, 1 + 2**.5, 2) -> yhat 1; learner 2: L2 = (0,1,1).
    # r3 x=(-1,0,2) y=0: S = (-1 + 2, -4 + 2 * 2**.5, -1 + 2 * 2) = (1, -1.17, 3) -> yhat 2;
    #    p0 = -1: L0 += x = (-1,0,2); p2 = +1 (3 >= 3 exactly): L2 -= x = (1,1,-1).
    # r4 x=(1,1,0) y=1: S = (1/2 + 1, 4 + 1, 2 + 2) -> yhat 1, right; p2 = +1 (4 >= 3):
    #    L2 -= x = (0,0,-1): an update without a mistake.
    # r5 x=(0,.5,1) y=2: S = (.5 + 4, .5 + 2**.5, .5 + 1/2) = (4.5, 1.91, 1) -> yhat 0;
    #    p0 = +1: L0 -= x = (-1,-.5,1); p2 = -1: L2 += x = (0,.5,0).
    clf = mbref.Winnow(features="real", multi_class="ovr")
    expected = [
        (0, True, 1, 1, [[0, 0, 0], [2, 0, 0.5], [0, 0, 0]]),
        (1, True, 2, 2, [[0, 0, 0], [2, 0, 0.5], [0, 1, 1]]),
        (2, True, 3, 3, [[-1, 0, 2], [2, 0, 0.5], [1, 1, -1]]),
        (1, True, 3, 4, [[-1, 0, 2], [2, 0, 0.5], [0, 0, -1]]),
        (0, True, 4, 5, [[-1, -0.5, 1], [2, 0, 0.5], [0, 0.5, 0]]),
    ]
    check(replay(clf, XR, YR), expected)


def test_balanced_winnow_real_features_multiclass():
    # features="real": updates scale with x.  r1 x=(2,0,.5) y=1: S = 0 for all -> yhat 0:
    # L+1 = (2,0,.5), L-1 = (-2,0,-.5); L+0 = (-2,0,-.5), L-0 = (2,0,.5).
    # r2 x=(0,1,1) y=2: S0 = 0 + (2**-.5 - 2**.5), S1 = 0 + (2**.5 - 2**-.5) > 0, S2 = 0
    #    -> yhat 1: L+2 = (0,1,1), L+1 = (2,-1,-.5) (L- the negatives).
    clf = mbref.BalancedWinnow(features="real")
    rec = replay(clf, XR[:2], YR[:2])
    P1 = [[-2, 0, -0.5], [2, 0, 0.5], [0, 0, 0]]
    P2 = [[-2, 0, -0.5], [2, -1, -0.5], [0, 1, 1]]
    check(rec, [(0, True, 1, 1, P1, neg(P1)), (1, True, 2, 2, P2, neg(P2))])


# ------------------------------------------------------------------------------------------------
# Two classes: the binary learner, whatever multi_class
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_two_classes_binary_golden(mc):
    # Binary Winnow, theta = 4, labels "no" < "yes" (+1):
    # r1 {0,1} yes: S = 2 < 4 -> no: promote L = (1,1,0,0).
    # r2 {0,1,2} no: S = 2+2+1 = 5 -> yes: demote L = (0,0,-1,0).
    # r3 {0,1,2,3} yes: S = 1+1+1/2+1 = 3.5 -> no: promote L = (1,1,0,1).
    # r4 {0,1,3} yes: S = 2+2+2 = 6 -> yes: right.
    X = [dense(a, 4) for a in ({0, 1}, {0, 1, 2}, {0, 1, 2, 3}, {0, 1, 3})]
    y = ["yes", "no", "yes", "yes"]
    clf = mbref.Winnow(multi_class=mc)
    rec = mbref.run_online(clf, X, y)
    assert rec.predictions == ["no", "yes", "no", "yes"]
    assert rec.updated == [True, True, True, False]
    assert clf.log2_coef_ == [1, 1, 0, 1]                      # one flat row: the binary state
    assert clf.decision_function([[1, 1, 0, 0]]) == [0.0]        # S - theta: the tie 4 >= 4
    assert clf.predict([[1, 1, 0, 0], [0, 0, 1, 0]]) == ["yes", "no"]


def _binary_stream(seed, n, d, real=False):
    rng = random.Random(seed)
    X = [[(rng.choice([0.0, 0.5, 1.0, 2.0, -1.0]) if real else float(rng.random() < 0.4))
          for _ in range(d)] for _ in range(n)]
    y = [rng.choice([0, 1]) for _ in range(n)]
    return X, y


BINARY = [
    ("Winnow", {}), ("Winnow", {"alpha": 1.5}), ("Winnow", {"beta": 0.0}),
    ("Winnow", {"features": "real"}), ("EliminationWinnow", {}), ("WinnowStar", {}),
    ("WinnowStar", {"alpha": 4.0, "theta": 3.0}), ("BalancedWinnow", {}),
    ("BalancedWinnow", {"features": "real", "alpha": 1.5}),
]


@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
@pytest.mark.parametrize("entry", BINARY, ids=lambda e: e[0] + str(sorted(e[1].items())))
def test_two_classes_match_the_compiled_binary_learner(entry, mc):
    name, params = entry
    for seed in range(3):
        X, y = _binary_stream(seed, 60, 6, real=params.get("features") == "real")
        ref = getattr(mbref, name)(multi_class=mc, **params)
        comp = getattr(mbcore, name)(**params)
        r = mbref.run_online(ref, X, y)
        c = mbcore.run_online(comp, np.array(X), np.array(y))
        assert r.predictions == np.asarray(c.predictions).tolist()
        assert r.updated == np.asarray(c.updated).tolist()
        assert ref.log2_coef_ == comp.log2_coef_.tolist()
        if name == "BalancedWinnow":
            assert ref.log2_coef_neg_ == comp.log2_coef_neg_.tolist()
        assert ref.decision_function(X) == comp.decision_function(np.array(X)).tolist()
        assert ref.predict(X) == comp.predict(np.array(X)).tolist()


# ------------------------------------------------------------------------------------------------
# Parameters, messages, labels
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_multi_class_parameter_is_last(cls):
    # (before n_jobs, the threads of the pass, and record_updates, the record of updates,
    # added after it)
    params = list(inspect.signature(cls.__init__).parameters)
    assert params[-3:] == ["multi_class", "n_jobs", "record_updates"]
    assert inspect.signature(cls.__init__).parameters["multi_class"].default == "multiclass"
    assert cls().get_params()["multi_class"] == "multiclass"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", ["ova", "OVR", "", None, 1, ["ovr"]])
def test_multi_class_message(cls, bad):
    name = cls.__name__
    msg = f"{name}: parameter multi_class must be one of ['multiclass', 'ovr'], got {bad!r}"
    for y in ([0, 1, 2], [0, 1, 1]):                  # checked whatever the number of classes
        for call in ("fit", "partial_fit"):
            clf = cls(multi_class=bad)
            with pytest.raises(ValueError) as e:
                getattr(clf, call)([[1, 0, 0], [0, 1, 0], [0, 0, 1]], y)
            assert str(e.value) == msg
            assert not clf._is_fitted()


def test_multi_class_checked_after_the_other_parameters():
    with pytest.raises(ValueError, match=r"^Winnow: parameter alpha must be"):
        mbref.Winnow(alpha=0.5, multi_class="x").fit([[1, 0]], [0])
    with pytest.raises(ValueError, match=r"^Winnow: parameter max_epochs must be"):
        mbref.Winnow(max_epochs=0, multi_class="x").fit([[1, 0]], [0])


def test_multi_class_set_after_fitting_is_checked_on_predict():
    clf = mbref.Winnow().fit([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 1, 2])
    clf.multi_class = "both"
    with pytest.raises(ValueError, match="parameter multi_class must be one of"):
        clf.predict([[1, 0, 0]])


@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_labels_as_strings(mc):
    # The Winnow multiclass golden case with labels ant < bee < cat for 0 < 1 < 2, classes
    # inferred from y (all three appear).
    names = ["ant", "bee", "cat"]
    y = [names[v] for v in YA]
    clf = mbref.Winnow(multi_class=mc)
    rec = mbref.run_online(clf, XA, y)
    assert clf.classes_ == names
    ref = mbref.Winnow(multi_class=mc)
    ref_rec = mbref.run_online(ref, XA, YA, classes=[0, 1, 2])
    assert rec.predictions == [names[p] for p in ref_rec.predictions]
    assert rec.updated == ref_rec.updated and clf.log2_coef_ == ref.log2_coef_
    if mc == "multiclass":
        assert rec.predictions == ["ant", "ant", "bee", "bee", "bee", "cat"]
    assert clf.predict([[1, 0, 0, 0]]) == [names[ref.predict([[1, 0, 0, 0]])[0]]]
    with pytest.raises(ValueError, match=r"y has the label 'dog', outside the fitted classes "
                                         r"\['ant', 'bee', 'cat'\]"):
        clf.partial_fit([[1, 0, 0, 0]], ["dog"])


def test_classes_decided_as_for_the_linear_learners():
    X = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]]
    for cls in CLASSES:
        o = cls.__name__
        with pytest.raises(ValueError, match=rf"^{o}: y looks continuous"):
            cls().fit(X, [0.5, 1.5, 2.5, 0.5])
        with pytest.raises(ValueError, match=rf"^{o}: classes must hold at least two distinct"):
            cls().partial_fit(X, [1, 1, 1, 1], classes=[1])
        with pytest.raises(ValueError, match=rf"^{o}: cannot tell the two classes"):
            cls().fit(X, [2, 2, 2, 2])
        clf = cls().partial_fit(X, [5, 5, 5, 5], classes=[5, 7, 9])
        assert clf.classes_ == [5, 7, 9] and len(clf.log2_coef_) == 3
        with pytest.raises(ValueError, match=r"differs from the fitted classes"):
            clf.partial_fit(X, [5, 5, 5, 5], classes=[5, 7])
        # one label alone names its pair: the binary learner
        assert cls().fit(X, [0, 0, 0, 0]).classes_ == [0, 1]


def test_bad_row_leaves_the_learner_as_it_was():
    for cls in CLASSES:
        clf = cls(multi_class="ovr").partial_fit(XA[:3], YA[:3], classes=[0, 1, 2])
        before = (clf.log2_coef_, clf.mistakes_, clf.updates_, clf.n_seen_)
        with pytest.raises(ValueError, match=r"in row 1"):
            clf.partial_fit([[1, 0, 0, 0], [0, 2, 0, 0]], [0, 1])
        assert (clf.log2_coef_, clf.mistakes_, clf.updates_, clf.n_seen_) == before


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_fit_and_online_record(cls, mc):
    # each class owns a feature (0, 1, 2); feature 3 is noise: separable.
    X = [dense(a, 4) for a in ({0}, {1}, {2}, {0, 3}, {1, 3}, {2, 3})]
    y = ["a", "b", "c", "a", "b", "c"]
    clf = cls(multi_class=mc).fit(X, y)
    assert clf.converged_ and clf.predict(X) == y
    assert len(clf.epoch_mistakes_) == clf.n_iter_
    if mc == "multiclass":
        assert clf.updates_ == clf.mistakes_
    assert len(clf.coef_) == 3 and all(len(r) == 4 for r in clf.coef_)
    rec = mbref.run_online(cls(multi_class=mc), X, y)
    assert set(rec.predictions) <= {"a", "b", "c"}
    assert rec.mistakes == sum(p != t for p, t in zip(rec.predictions, y))


def test_index_rows_with_n_features():
    clf = mbref.Winnow(n_features=4)
    rec = mbref.run_online(clf, [[0, 1], [2, 3], [0, 2], [0, 1], [1, 3], [0, 3]], YA,
                           classes=[0, 1, 2])
    assert rec.predictions == [0, 0, 1, 1, 1, 2]
    assert clf.log2_coef_ == [[1, -1, 0, 0], [0, 0, -1, -1], [-1, 1, 1, 1]]


# ------------------------------------------------------------------------------------------------
# The mistake bound (Winnow, beta = 1/alpha, "multiclass", x in [0, 1])
# ------------------------------------------------------------------------------------------------

def separable_instance(rng, K, d, own_sizes=(1, 2), n=60):
    """Each class owns one or two features (disjoint); a row of class y activates a non-empty
    set of y's own features, none of another class's, and each noise feature with probability
    1/2.  Target M: 1/N on every own feature (N own features in all: entries sum to 1).
    Returns X, y and the margin delta = min over rows of m_y.x - max_{k != y} m_k.x (exact)."""
    feats = list(range(d))
    rng.shuffle(feats)
    own, pos = [], 0
    for k in range(K):
        room = d - pos - (K - k - 1)              # leave one feature for each later class
        size = rng.choice([s for s in own_sizes if s <= room])
        own.append(feats[pos:pos + size])
        pos += size
    noise = feats[pos:]
    N = pos
    M = [[Fraction(1, N) if i in own[k] else Fraction(0) for i in range(d)] for k in range(K)]
    assert sum(sum(r) for r in M) == 1
    X, y = [], []
    for _ in range(n):
        c = rng.randrange(K)
        on = [i for i in own[c] if rng.random() < 0.5] or [rng.choice(own[c])]
        on += [i for i in noise if rng.random() < 0.5]
        X.append([1.0 if i in on else 0.0 for i in range(d)])
        y.append(c)
    delta = min(sum(M[t][i] for i in range(d) if x[i]) -
                max(sum(M[k][i] for i in range(d) if x[i]) for k in range(K) if k != t)
                for x, t in zip(X, y))
    assert delta >= Fraction(1, N)
    return X, y, delta


def run_to_convergence(clf, X, y, K, passes=30):
    clf.partial_fit(X, y, classes=list(range(K)))
    for _ in range(passes - 1):
        m = clf.mistakes_
        clf.partial_fit(X, y)
        if clf.mistakes_ == m:
            break
    return clf.mistakes_


def test_mistake_bound_real_mode_on_generated_targets():
    """alpha = sqrt((1+delta)/(1-delta)), w0 = 1, features="real" (Boolean rows): mistakes
    <= ln(dK) / (delta ln(alpha) - ln((alpha + 1/alpha)/2)) <= 2 ln(dK) / delta**2, over every
    pass until a pass without a mistake."""
    rng = random.Random(20240611)
    checked = 0
    for _ in range(220):
        K = rng.randint(3, 5)
        d = rng.randint(max(3, K), 8)
        X, y, delta = separable_instance(rng, K, d)
        delta = float(delta)
        alpha = math.sqrt((1 + delta) / (1 - delta))
        denom = delta * math.log(alpha) - math.log((alpha + 1 / alpha) / 2)
        assert denom >= delta ** 2 / 2 * (1 - 1e-9)
        bound = math.log(d * K) / denom
        clf = mbref.Winnow(alpha=alpha, w0=1.0, features="real", multi_class="multiclass")
        mistakes = run_to_convergence(clf, X, y, K)
        assert not clf._exact_mode
        assert mistakes <= bound <= 2 * math.log(d * K) / delta ** 2 * (1 + 1e-9), \
            (K, d, delta, mistakes, bound)
        assert clf.predict(X) == y                  # converged: a consistent hypothesis
        checked += 1
    assert checked >= 200


def test_mistake_bound_exact_mode_alpha_two():
    """alpha = 2 (exact mode) where the denominator is positive: K = 3 classes owning one
    feature each, delta = 1/3 > ln(1.25)/ln(2) = 0.322."""
    rng = random.Random(7)
    checked = 0
    for _ in range(200):
        d = rng.randint(3, 8)
        X, y, delta = separable_instance(rng, 3, d, own_sizes=(1,))
        assert delta == Fraction(1, 3)
        denom = float(delta) * math.log(2) - math.log((2 + 1 / 2) / 2)
        assert denom > 0
        clf = mbref.Winnow(alpha=2, multi_class="multiclass")
        mistakes = run_to_convergence(clf, X, y, 3)
        assert clf._exact_mode
        assert 0 < mistakes <= math.log(d * 3) / denom
        checked += 1
    assert checked >= 200
