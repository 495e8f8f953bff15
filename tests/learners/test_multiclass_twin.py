"""Multi-class (K >= 3) rules of the additive family, in the twin (mbref).

The golden cases are worked out by hand on tiny integer streams (the arithmetic is in the
comments); each asserts, after every row, the online prediction (a class index), whether the
state changed, the counters and the weight matrix.  Then: two classes keep the binary learner,
labels of any kind, ``classes=``, the messages, ties, the KernelPerceptron (golden cases
for both strategies, with and without a budget), the mode that refuses K >= 3, all or nothing
on a bad row, and ``fit``.
"""

import inspect
import math

import pytest

import mbcore
import mbref
from conftest import as_list

MULTI = (mbref.Perceptron, mbref.AveragedPerceptron, mbref.MarginPerceptron,
         mbref.OnlineHingeSVM)


def rows_record(learner, X, y, classes=None):
    """Feed the rows one at a time: per row (prediction, updated, mistakes_, updates_, coef_,
    intercept_).  ``_learn`` returns the online record: class indices with K >= 3."""
    out = []
    for i, (x, t) in enumerate(zip(X, y)):
        preds, upd = learner._learn([x], [t], classes if i == 0 else None)
        out.append((preds[0], upd[0], learner.mistakes_, learner.updates_, learner.coef_,
                    learner.intercept_))
    return out


def check(record, expected, approx=False):
    """expected: per row (prediction, updated, mistakes, updates, W)."""
    assert len(record) == len(expected)
    for t, (got, want) in enumerate(zip(record, expected)):
        assert got[:4] == want[:4], f"row {t}: {got[:4]} != {want[:4]}"
        if approx:
            assert got[4] == [pytest.approx(w, rel=1e-12, abs=1e-12) for w in want[4]], \
                f"row {t}"
        else:
            assert got[4] == want[4], f"row {t}"


# The stream of the Perceptron cases: d = 2, classes 0, 1, 2.
X5 = [[1, 0], [0, 1], [1, 1], [2, 0], [1, 0]]
Y5 = [0, 1, 2, 0, 0]


# ------------------------------------------------------------------------------------------------
# Golden cases
# ------------------------------------------------------------------------------------------------

def test_perceptron_multiclass_golden():
    # row 1: s = (0, 0, 0) -> yhat 0 = y: nothing.
    # row 2: x = (0, 1), s = (0, 0, 0) -> yhat 0 != 1: w1 += x, w0 -= x.
    # row 3: x = (1, 1), s = (-1, 1, 0) -> yhat 1 != 2: w2 += x, w1 -= x.
    # row 4: x = (2, 0), s = (0, -2, 2) -> yhat 2 != 0: w0 += x, w2 -= x.
    # row 5: x = (1, 0), s = (2, -1, -1) -> yhat 0 = y.
    expected = [
        (0, False, 0, 0, [[0, 0], [0, 0], [0, 0]]),
        (0, True, 1, 1, [[0, -1], [0, 1], [0, 0]]),
        (1, True, 2, 2, [[0, -1], [-1, 0], [1, 1]]),
        (2, True, 3, 3, [[2, -1], [-1, 0], [-1, 1]]),
        (0, False, 3, 3, [[2, -1], [-1, 0], [-1, 1]]),
    ]
    p = mbref.Perceptron()
    check(rows_record(p, X5, Y5, classes=[0, 1, 2]), expected)
    assert p.intercept_ == [0.0, 0.0, 0.0]
    assert p.n_seen_ == 5
    # scores on (1, 1): (1, -1, 0) -> class 0; on (0, 1): (-1, 0, 1) -> class 2
    assert p.decision_function([[1, 1], [0, 1]]) == [[1.0, -1.0, 0.0], [-1.0, 0.0, 1.0]]
    assert p.predict([[1, 1], [0, 1]]) == [0, 2]


def test_perceptron_multiclass_intercept_golden():
    # row 1: x = (1, 0), s = (0, 0, 0) -> yhat 0 != 1: w1 = (1, 0), b1 = 1; w0 = (-1, 0), b0 = -1.
    # row 2: x = (0, 1), s = (-1, 1, 0) -> yhat 1 != 2: w2 = (0, 1), b2 = 1; w1 = (1, -1), b1 = 0.
    # row 3: x = (0, 0), s = (-1, 0, 1) -> yhat 2 != 0: only the intercepts move: b0 = 0, b2 = 0.
    p = mbref.Perceptron(fit_intercept=True)
    rec = rows_record(p, [[1, 0], [0, 1], [0, 0]], [1, 2, 0], classes=[0, 1, 2])
    check(rec, [(0, True, 1, 1, [[-1, 0], [1, 0], [0, 0]]),
                (1, True, 2, 2, [[-1, 0], [1, -1], [0, 1]]),
                (2, True, 3, 3, [[-1, 0], [1, -1], [0, 1]])])
    assert [r[5] for r in rec] == [[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]


def test_perceptron_multiclass_normalize_golden():
    # row 1: x = (0, 2), inv = 1/2, s = 0 -> yhat 0 != 1: c = 1 * 0.5: w1 = (0, 1), w0 = (0, -1).
    # row 2: x = (0, 4), inv = 1/4: s = (-1, 1, 0) -> yhat 1 = y.
    p = mbref.Perceptron(normalize=True)
    check(rows_record(p, [[0, 2], [0, 4]], [1, 1], classes=[0, 1, 2]),
          [(0, True, 1, 1, [[0, -1], [0, 1], [0, 0]]),
           (1, False, 1, 1, [[0, -1], [0, 1], [0, 0]])])
    assert p.decision_function([[0, 4]]) == [[-1.0, 1.0, 0.0]]


def test_perceptron_ovr_golden():
    # Learner k: the binary Perceptron on +1 iff y == k (tie "negative": sign(0) = -1).
    # row 1: x = (1, 0), s = (0, 0, 0), yhat 0 = y; learner 0 (+1) predicts -1: w0 += x.
    # row 2: x = (0, 1), s = (0, 0, 0), yhat 0 != 1; learner 1 (+1): w1 += x.
    # row 3: x = (1, 1), s = (1, 1, 0), yhat 0 (tie: the smaller index) != 2;
    #        learners 0, 1 (-1) predict +1: w0 -= x, w1 -= x; learner 2 (+1) predicts -1: w2 += x.
    # row 4: x = (2, 0), s = (0, -2, 2), yhat 2 != 0; learner 0 (+1): w0 += x;
    #        learner 2 (-1) predicts +1: w2 -= x.
    # row 5: x = (1, 0), s = (2, -1, -1), every learner right.
    expected = [
        (0, True, 0, 1, [[1, 0], [0, 0], [0, 0]]),
        (0, True, 1, 2, [[1, 0], [0, 1], [0, 0]]),
        (0, True, 2, 3, [[0, -1], [-1, 0], [1, 1]]),
        (2, True, 3, 4, [[2, -1], [-1, 0], [-1, 1]]),
        (0, False, 3, 4, [[2, -1], [-1, 0], [-1, 1]]),
    ]
    check(rows_record(mbref.Perceptron(multi_class="ovr"), X5, Y5, classes=[0, 1, 2]),
          expected)


def test_ovr_uses_each_binary_tie_rule():
    # tie "positive": sign(0) = +1, so on row 1 learners 1 and 2 (-1) update and learner 0 not.
    p = mbref.Perceptron(multi_class="ovr", tie="positive")
    check(rows_record(p, [[1, 0]], [0], classes=[0, 1, 2]),
          [(0, True, 0, 1, [[0, 0], [-1, 0], [-1, 0]])])


def test_averaged_perceptron_multiclass_golden():
    # Online: exactly the multiclass Perceptron above.  u_y += (t c) x, u_yhat -= (t c) x:
    # t = 2: u1 = (0, 2), u0 = (0, -2); t = 3: u2 = (3, 3), u1 = (-3, -1);
    # t = 4: u0 = (8, -2), u2 = (-5, 3).  Average = W + (W - U)/T = the mean of the W after
    # each row: T = 2: w0 (0, -1/2), w1 (0, 1/2); T = 3: (0, -2/3), (-1/3, 1/3), (1/3, 1/3);
    # T = 4: (2/4, -3/4), (-2/4, 1/4), (0, 2/4); T = 5: (4/5, -4/5), (-3/5, 1/5), (-1/5, 3/5).
    expected = [
        (0, False, 0, 0, [[0, 0], [0, 0], [0, 0]]),
        (0, True, 1, 1, [[0, -0.5], [0, 0.5], [0, 0]]),
        (1, True, 2, 2, [[0, -2 / 3], [-1 / 3, 1 / 3], [1 / 3, 1 / 3]]),
        (2, True, 3, 3, [[0.5, -0.75], [-0.5, 0.25], [0, 0.5]]),
        (0, False, 3, 3, [[0.8, -0.8], [-0.6, 0.2], [-0.2, 0.6]]),
    ]
    a = mbref.AveragedPerceptron()
    check(rows_record(a, X5, Y5, classes=[0, 1, 2]), expected, approx=True)
    assert a._U == [[8.0, -2.0], [-3.0, -1.0], [-5.0, 3.0]]
    # predict uses the average: on (1, 1) the scores are (0, -0.4, 0.4) -> class 2 (the last
    # weights would say class 0)
    assert a.predict([[1, 1]]) == [2]
    assert a.decision_function([[1, 1]])[0] == pytest.approx([0.0, -0.4, 0.4], abs=1e-12)


def test_averaged_perceptron_ovr_golden():
    # Updates of the one-vs-rest case above: u_k += (t c_k) x.  u0: t=1 +(1,0), t=3 -(3,3),
    # t=4 +(8,0) -> (6, -3); u1: t=2 +(0,2), t=3 -(3,3) -> (-3, -1); u2: t=3 +(3,3), t=4 -(8,0)
    # -> (-5, 3).  Average at T = 5: (2,-1) + ((2,-1) - (6,-3))/5 = (1.2, -0.6),
    # (-1,0) + (2,1)/5 = (-0.6, 0.2), (-1,1) + (4,-2)/5 = (-0.2, 0.6).
    a = mbref.AveragedPerceptron(multi_class="ovr")
    rec = rows_record(a, X5, Y5, classes=[0, 1, 2])
    assert [r[:4] for r in rec] == [(0, True, 0, 1), (0, True, 1, 2), (0, True, 2, 3),
                                    (2, True, 3, 4), (0, False, 3, 4)]
    assert a._U == [[6.0, -3.0], [-3.0, -1.0], [-5.0, 3.0]]
    assert a.coef_ == [pytest.approx(w, abs=1e-12) for w in
                       ([1.2, -0.6], [-0.6, 0.2], [-0.2, 0.6])]


E = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]         # unit rows: inv = 1 exactly


def test_margin_perceptron_multiclass_golden():
    # gamma = 1, margin_fraction = 1/2: thr = 1/2.  Updates: w_y += x, w_r -= x (inv = 1).
    # row 1: e0, y 0: s = 0, yhat 0 = y, r = 1, W = 0 -> m = 0 < thr: w0 += e0, w1 -= e0.
    # row 2: e1, y 1: s = (0, 0, 0), yhat 0 != 1, r = 0: w1 += e1, w0 -= e1.
    # row 3: e2, y 2: s = (0, 0, 0), yhat 0 != 2, r = 0: w2 += e2, w0 -= e2.
    # row 4: e0, y 0: s = (1, -1, 0), yhat 0, r = 2, ||W||^2 = 3 + 2 + 1 = 6,
    #        m = 1/sqrt(6) = 0.41 < 1/2: w0 += e0, w2 -= e0.
    # row 5: e1, y 1: s = (-1, 1, 0), yhat 1, r = 2, ||W||^2 = 6 + 2 + 2 = 10,
    #        m = 1/sqrt(10) = 0.32 < 1/2: w1 += e1, w2 -= e1.
    # row 6: e2, y 2: s = (-1, 0, 1), yhat 2, r = 1, ||W||^2 = 6 + 5 + 3 = 14,
    #        m = 1/sqrt(14) = 0.27 < 1/2: w2 += e2, w1 -= e2.
    # row 7: e0, y 0: s = (2, -1, -1), yhat 0, r = 1 (the smaller index of the tie),
    #        ||W||^2 = 6 + 6 + 6 = 18, m = 3/sqrt(18) = 0.71 >= 1/2: nothing.
    expected = [
        (0, True, 0, 1, [[1, 0, 0], [-1, 0, 0], [0, 0, 0]]),
        (0, True, 1, 2, [[1, -1, 0], [-1, 1, 0], [0, 0, 0]]),
        (0, True, 2, 3, [[1, -1, -1], [-1, 1, 0], [0, 0, 1]]),
        (0, True, 2, 4, [[2, -1, -1], [-1, 1, 0], [-1, 0, 1]]),
        (1, True, 2, 5, [[2, -1, -1], [-1, 2, 0], [-1, -1, 1]]),
        (2, True, 2, 6, [[2, -1, -1], [-1, 2, -1], [-1, -1, 2]]),
        (0, False, 2, 6, [[2, -1, -1], [-1, 2, -1], [-1, -1, 2]]),
    ]
    m = mbref.MarginPerceptron(gamma=1.0, margin_fraction=0.5)
    check(rows_record(m, E + E + E[:1], [0, 1, 2, 0, 1, 2, 0], classes=[0, 1, 2]), expected)
    assert m._sqs == [6.0, 6.0, 6.0]
    # decision_function: s_k / ||W||_F = (2, -1, -1)/sqrt(18); predict: the argmax of the raw s_k
    r = math.sqrt(18)
    assert m.decision_function([[1, 0, 0]]) == [[2 / r, -1 / r, -1 / r]]
    assert m.predict(E) == [0, 1, 2]


def test_margin_perceptron_ovr_golden():
    # Learner k: the binary Margin Perceptron on +1 iff y == k (its own ||w_k||), thr = 1/2.
    # rows 1-3: every score is 0 (a margin of 0 is inside (-thr, thr)): every learner updates,
    #   w_k += y_k e_t; predictions 0, 0 (mistake), 0 (mistake).
    # row 4: e0, s = (1, -1, -1), margins (1, -1, -1)/sqrt(3) = +-0.58: nobody updates.
    # row 5: e1, s = (-1, 1, -1): likewise; yhat 1.
    expected = [
        (0, True, 0, 1, [[1, 0, 0], [-1, 0, 0], [-1, 0, 0]]),
        (0, True, 1, 2, [[1, -1, 0], [-1, 1, 0], [-1, -1, 0]]),
        (0, True, 2, 3, [[1, -1, -1], [-1, 1, -1], [-1, -1, 1]]),
        (0, False, 2, 3, [[1, -1, -1], [-1, 1, -1], [-1, -1, 1]]),
        (1, False, 2, 3, [[1, -1, -1], [-1, 1, -1], [-1, -1, 1]]),
    ]
    m = mbref.MarginPerceptron(gamma=1.0, margin_fraction=0.5, multi_class="ovr")
    check(rows_record(m, E + E[:2], [0, 1, 2, 0, 1], classes=[0, 1, 2]), expected)
    r3 = 1 / math.sqrt(3)
    assert m.decision_function([[1, 0, 0]]) == [[r3, -r3, -r3]]


def test_hinge_multiclass_golden():
    # eta = 0.5, lam = 0.1: every row shrinks all weights by 0.95 (the shared scale a), then on
    # a violation (s_y - s_r < 1, scores before the step) w_y += 0.5 x, w_r -= 0.5 x.  In terms
    # of the weights a*W (coef_):
    # row 1: x (1,0), y 0, s = 0, yhat 0, r = 1, viol: w0 = (.5, 0), w1 = (-.5, 0).
    # row 2: x (0,1), y 1, s = 0, yhat 0, r = 0, viol: shrink -> w0 (.475, 0), w1 (-.475, 0);
    #        w1 = (-.475, .5), w0 = (.475, -.5).
    # row 3: x (1,1), y 2, s = (-.025, .025, 0), yhat 1, r = 1, viol (-.025 < 1): shrink ->
    #        w0 (.45125, -.475), w1 (-.45125, .475); w2 = (.5, .5), w1 = (-.95125, -.025).
    # row 4: x (2,0), y 0, s = (.9025, -1.9025, 1), yhat 2, r = 2, viol (-.0975): shrink ->
    #        w0 (.4286875, -.45125), w1 (-.9036875, -.02375), w2 (.475, .475);
    #        w0 = (1.4286875, -.45125), w2 = (-.525, .475).
    # row 5: x (1,0), y 0, s = (1.4286875, -.9036875, -.525), yhat 0, r = 2,
    #        s_y - s_r = 1.9536875 >= 1: no update; the shrink still applies.
    expected = [
        (0, True, 0, 1, [[0.5, 0], [-0.5, 0], [0, 0]]),
        (0, True, 1, 2, [[0.475, -0.5], [-0.475, 0.5], [0, 0]]),
        (1, True, 2, 3, [[0.45125, -0.475], [-0.95125, -0.025], [0.5, 0.5]]),
        (2, True, 3, 4, [[1.4286875, -0.45125], [-0.9036875, -0.02375], [-0.525, 0.475]]),
        (0, False, 3, 4, [[1.357253125, -0.4286875], [-0.858503125, -0.0225625],
                          [-0.49875, 0.45125]]),
    ]
    h = mbref.OnlineHingeSVM(eta=0.5, lam=0.1)
    check(rows_record(h, X5, Y5, classes=[0, 1, 2]), expected, approx=True)
    assert h._a == pytest.approx(0.95 ** 5, rel=1e-12)


def test_hinge_ovr_golden():
    # Learner k: viol_k = y_k s_k < 1 (scores before the step); one shared shrink by 0.95;
    # then w_k += 0.5 y_k x for each violating k.
    # row 1: x (1,0), y 0, s = 0: all violate: w0 = (.5, 0), w1 = w2 = (-.5, 0).
    # row 2: x (0,1), y 1, s = 0, yhat 0: all violate: shrink -> (.475, 0), (-.475, 0) x2;
    #        w0 = (.475, -.5), w1 = (-.475, .5), w2 = (-.475, -.5).
    # row 3: x (1,1), y 2, s = (-.025, .025, -.975), yhat 1: all violate (.025, -.025, -.975 < 1):
    #        shrink -> (.45125, -.475), (-.45125, .475), (-.45125, -.475);
    #        w0 = (-.04875, -.975), w1 = (-.95125, -.025), w2 = (.04875, .025).
    # row 4: x (2,0), y 0, s = (-.0975, -1.9025, .0975), yhat 2: learner 1 does not violate
    #        (1.9025 >= 1): shrink -> (-.0463125, -.92625), (-.9036875, -.02375),
    #        (.0463125, .02375); w0 = (.9536875, -.92625), w2 = (-.9536875, .02375).
    expected = [
        (0, True, 0, 1, [[0.5, 0], [-0.5, 0], [-0.5, 0]]),
        (0, True, 1, 2, [[0.475, -0.5], [-0.475, 0.5], [-0.475, -0.5]]),
        (1, True, 2, 3, [[-0.04875, -0.975], [-0.95125, -0.025], [0.04875, 0.025]]),
        (2, True, 3, 4, [[0.9536875, -0.92625], [-0.9036875, -0.02375], [-0.9536875, 0.02375]]),
    ]
    h = mbref.OnlineHingeSVM(eta=0.5, lam=0.1, multi_class="ovr")
    check(rows_record(h, X5[:4], Y5[:4], classes=[0, 1, 2]), expected, approx=True)


# ------------------------------------------------------------------------------------------------
# Two classes: the binary learner, whatever multi_class
# ------------------------------------------------------------------------------------------------

BINARY_CASES = [
    (mbref.Perceptron, {}), (mbref.Perceptron, {"normalize": True, "fit_intercept": True}),
    (mbref.AveragedPerceptron, {"fit_intercept": True}),
    (mbref.AveragedPerceptron, {"mode": "vote"}),
    (mbref.MarginPerceptron, {"gamma": 0.3}),
    (mbref.OnlineHingeSVM, {}), (mbref.OnlineHingeSVM, {"eta": 0.5, "lam": 0.1}),
]


def test_binary_golden_unchanged():
    # The binary Perceptron (classes -1, 1; +1 iff score > 0): x (1,0) y +1: s 0 -> -1, w = (1,0);
    # x (0,1) y -1: s 0 -> -1 right; x (1,1) y -1: s 1 -> +1, w = (0,-1); x (1,0) y +1: s 0 -> -1,
    # w = (1,-1).
    for mc in ("multiclass", "ovr"):
        p = mbref.Perceptron(multi_class=mc)
        rec = rows_record(p, [[1, 0], [0, 1], [1, 1], [1, 0]], [1, -1, -1, 1], classes=[-1, 1])
        assert [r[:4] for r in rec] == [(-1, True, 1, 1), (-1, False, 1, 1), (1, True, 2, 2),
                                        (-1, True, 3, 3)]
        assert p.coef_ == [1.0, -1.0] and p.intercept_ == 0.0
        assert p.decision_function([[2, 1]]) == [1.0]


@pytest.mark.parametrize("cls,kw", BINARY_CASES)
def test_two_classes_ignore_multi_class(cls, kw):
    X = [[1.5, -2.0, 0.0], [0.0, 1.0, 3.0], [-1.0, 0.5, 2.0], [2.0, 2.0, -1.0], [0.0, 0.0, 0.0],
         [-3.0, 1.0, 1.0], [1.0, -1.0, 0.5]]
    y = ["no", "yes", "yes", "no", "yes", "yes", "no"]
    results = []
    for mc in (None, "multiclass", "ovr"):
        learner = cls(**kw) if mc is None else cls(**kw, multi_class=mc)
        run = mbref.run_online(learner, X, y)
        learner.partial_fit(X, y)
        results.append((run.predictions, run.updated, learner.coef_, learner.intercept_,
                        learner.decision_function(X), learner.predict(X), learner.mistakes_,
                        learner.updates_, learner.classes_))
        learner.fit(X, y)
        results[-1] += (learner.coef_, learner.n_iter_)
    assert results[0] == results[1] == results[2]
    assert isinstance(results[0][3], float)                 # one intercept, a float
    assert all(isinstance(s, float) for s in results[0][4])


# ------------------------------------------------------------------------------------------------
# Labels and classes
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("labels", [["a", "b", "c"], [10, 20, 30], [-1, 0, 1], [0.5, 1.5, 2.5]])
def test_labels_of_any_kind(labels):
    y = [labels[k] for k in Y5]
    p = mbref.Perceptron()
    # real labels that are not integers look like a regression target (as for scikit-learn's
    # classifiers): they are taken as classes when classes= names them
    classes = labels if isinstance(labels[0], float) else None
    preds, upd = p._learn(X5, y, classes)
    assert p.classes_ == labels
    assert preds == [0, 0, 1, 2, 0] and upd == [False, True, True, True, False]
    assert p.predict([[1, 1], [0, 1]]) == [labels[0], labels[2]]
    assert p.coef_ == [[2.0, -1.0], [-1.0, 0.0], [-1.0, 1.0]]


def test_labels_are_sorted():
    p = mbref.Perceptron()
    p.partial_fit(X5, ["c", "b", "a", "c", "c"])     # indices 2, 1, 0, 2, 2
    assert p.classes_ == ["a", "b", "c"]
    q = mbref.Perceptron()
    q.partial_fit(X5, [2, 1, 0, 2, 2])
    assert p.coef_ == q.coef_ and p.mistakes_ == q.mistakes_


def test_classes_on_the_first_call_with_labels_missing():
    p = mbref.Perceptron()
    p.partial_fit([[1, 0]], [9], classes=[9, 5, 7])
    assert p.classes_ == [5, 7, 9]
    # x (1,0), y = index 2: s = 0 -> yhat 0: w2 += x, w0 -= x
    assert p.coef_ == [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]] and p.mistakes_ == 1
    p.partial_fit([[0, 1]], [7], classes=[5, 7, 9])
    assert p.n_seen_ == 2
    with pytest.raises(ValueError, match=r"classes=\[5, 7\] differs from the fitted classes"):
        p.partial_fit([[0, 1]], [7], classes=[5, 7])


@pytest.mark.parametrize("cls", MULTI)
def test_label_outside_the_classes(cls):
    learner = cls()
    learner.partial_fit(X5, Y5)
    before = (learner.coef_, learner.n_seen_, learner.mistakes_, learner.updates_)
    with pytest.raises(ValueError) as e:
        learner.partial_fit([[1, 0], [0, 1]], [1, 3])
    assert str(e.value) == (f"{cls.__name__}: y has the label 3, outside the fitted classes "
                            "[0, 1, 2]")
    assert (learner.coef_, learner.n_seen_, learner.mistakes_, learner.updates_) == before


def test_two_classes_then_a_third_label_is_outside():
    p = mbref.Perceptron()
    p.partial_fit([[1, 0], [0, 1]], [0, 1])
    with pytest.raises(ValueError, match=r"y has the label 2, outside the fitted classes \[0, 1\]"):
        p.partial_fit([[1, 1]], [2])


def test_classes_need_two_labels():
    with pytest.raises(ValueError, match=r"Perceptron: classes must hold at least two distinct "
                                         r"labels, got \[1\]"):
        mbref.Perceptron().partial_fit([[1, 0]], [1], classes=[1, 1])


# ------------------------------------------------------------------------------------------------
# Parameters
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", MULTI)
def test_multi_class_parameter(cls):
    names = list(inspect.signature(cls).parameters)
    if names[-1] == "record_updates":       # (mbcore.explain's record, added after class_weight)
        names.pop()
    assert names.pop() == "class_weight"    # (the class weights, added after multi_class)
    if names[-1] == "n_jobs":               # (the threads of the pass, added after multi_class)
        names.pop()
    assert names[-1] == "multi_class" and names[-2] == "max_epochs"
    assert cls().multi_class == "multiclass"
    assert cls().get_params()["multi_class"] == "multiclass"
    for bad in ("foo", None, "OVR"):
        with pytest.raises(ValueError) as e:
            cls(multi_class=bad).partial_fit(X5, Y5)
        assert str(e.value) == (f"{cls.__name__}: parameter multi_class must be one of "
                                f"['multiclass', 'ovr'], got {bad!r}")
    learner = cls().partial_fit(X5, Y5)
    learner.set_params(multi_class="bad")
    with pytest.raises(ValueError, match="parameter multi_class must be one of"):
        learner.predict(X5)


@pytest.mark.parametrize("cls", MULTI)
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_ties_go_to_the_smallest_index(cls, mc):
    learner = cls(multi_class=mc)
    preds, _ = learner._learn([[1.0, 2.0]], [2], [0, 1, 2])
    assert preds == [0] and learner.mistakes_ == 1
    fresh = cls(multi_class=mc).partial_fit([[0.0, 0.0]], ["y"], classes=["x", "y", "z"])
    assert fresh.predict([[0.0, 0.0]]) == ["x"]


@pytest.mark.parametrize("cls", MULTI)
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_shapes(cls, mc):
    learner = cls(multi_class=mc, fit_intercept=True).partial_fit(X5, ["a", "b", "c", "a", "a"])
    assert len(learner.coef_) == 3 and all(len(w) == 2 for w in learner.coef_)
    assert len(learner.intercept_) == 3 and all(isinstance(b, float) for b in learner.intercept_)
    scores = learner.decision_function(X5)
    assert len(scores) == 5 and all(len(s) == 3 for s in scores)
    assert set(learner.predict(X5)) <= {"a", "b", "c"}
    assert cls(multi_class=mc).partial_fit(X5, Y5).intercept_ == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------------------------------------
# KernelPerceptron with K >= 3 classes
# ------------------------------------------------------------------------------------------------
#
# mbref is the specification; mbcore.KernelPerceptron takes K classes too, and every case runs
# on both: a KernelPerceptron that lost its K classes (no multi_class parameter, or "two labels
# only" on three) fails here, it is not skipped.

def kernel_perceptron(module, **params):
    """module.KernelPerceptron(**params), which must take K >= 3 classes."""
    assert "multi_class" in module.KernelPerceptron().get_params(), \
        f"{module.__name__}.KernelPerceptron has no multi_class parameter (K >= 3 classes)"
    return module.KernelPerceptron(**params)


def kernel_rows_record(module, learner, X, y, classes=None):
    """Feed the rows one at a time: per row (prediction, updated, mistakes_, updates_,
    support_vectors_, dual_coef_, n_support_), as plain lists."""
    out = []
    for i, (x, t) in enumerate(zip(X, y)):
        run = module.run_online(learner, [x], [t], classes if i == 0 else None)
        out.append((as_list(run.predictions)[0], bool(run.updated[0]), learner.mistakes_,
                    learner.updates_, as_list(learner.support_vectors_),
                    as_list(learner.dual_coef_), as_list(learner.n_support_)))
    return out


def check_kernel(record, expected):
    """expected: per row (prediction, updated, mistakes, updates, support vectors, coefs)."""
    assert len(record) == len(expected)
    for t, (got, want) in enumerate(zip(record, expected)):
        assert got[:6] == want, f"row {t + 1}: {got[:6]} != {want}"


MODULES = pytest.mark.parametrize("module", (mbref, mbcore), ids=("mbref", "mbcore"))

# The stream of the kernel cases: d = 2, classes 0, 1, 2, a mistake on every row (the labels
# cycle), so that a budget of 2 wraps its ring twice.
XA = [[1, 0], [0, 1], [1, 1], [2, 0], [1, 0]]
YA = [1, 2, 0, 2, 1]
POLY2 = {"kernel": "poly", "degree": 2, "coef0": 1.0, "gamma": 1.0}   # K(x, z) = (x.z + 1)^2


@MODULES
def test_kernel_multiclass_linear_golden(module):
    # K(x, z) = x.z.  A slot is (z, a) with a = +1 at y, -1 at yhat.
    # row 1: x (1,0), y 1: no slot, f = (0, 0, 0) -> yhat 0: slot (1,0), (-1, 1, 0).
    # row 2: x (0,1), y 2: K = 0: f = (0, 0, 0) -> yhat 0: slot (0,1), (-1, 0, 1).
    # row 3: x (1,1), y 0: K = 1, 1: f = (-1,1,0) + (-1,0,1) = (-2, 1, 1) -> yhat 1 (the smaller
    #        index of the tie): slot (1,1), (1, -1, 0).
    # row 4: x (2,0), y 2: K = 2, 0, 2: f = 2(-1,1,0) + 2(1,-1,0) = (0, 0, 0) -> yhat 0:
    #        slot (2,0), (-1, 0, 1).
    # row 5: x (1,0), y 1: K = 1, 0, 1, 2: f = (-1,1,0) + (1,-1,0) + 2(-1,0,1) = (-2, 0, 2)
    #        -> yhat 2: slot (1,0), (0, 1, -1).
    sv = [[1, 0], [0, 1], [1, 1], [2, 0], [1, 0]]
    a = [[-1, 1, 0], [-1, 0, 1], [1, -1, 0], [-1, 0, 1], [0, 1, -1]]
    expected = [(0, True, 1, 1, sv[:1], a[:1]), (0, True, 2, 2, sv[:2], a[:2]),
                (1, True, 3, 3, sv[:3], a[:3]), (0, True, 4, 4, sv[:4], a[:4]),
                (2, True, 5, 5, sv, a)]
    k = kernel_perceptron(module, kernel="linear")
    rec = kernel_rows_record(module, k, XA, YA, classes=[0, 1, 2])
    check_kernel(rec, expected)
    assert rec[-1][6] == 5                                   # n_support_: an int
    # on (1,1): K = 1, 1, 2, 2, 1: f = (-1,1,0) + (-1,0,1) + 2(1,-1,0) + 2(-1,0,1) + (0,1,-1)
    # = (-2, 0, 2) -> class 2; on (0,1): K = 0, 1, 1, 0, 0: f = (-1,0,1) + (1,-1,0) = (0,-1,1)
    assert as_list(k.decision_function([[1, 1], [0, 1]])) == [[-2.0, 0.0, 2.0], [0.0, -1.0, 1.0]]
    assert as_list(k.predict([[1, 1], [0, 1]])) == [2, 2]


@MODULES
def test_kernel_multiclass_linear_budget_golden(module):
    # budget = 2: a new slot replaces the one at head (the oldest), head = (head + 1) % 2.
    # rows 1-2: as without a budget: slots [(1,0), (-1,1,0)], [(0,1), (-1,0,1)]; full, head 0.
    # row 3: x (1,1), y 0: f = (-2, 1, 1) -> yhat 1: slot 0 <- (1,1), (1,-1,0); head 1.
    # row 4: x (2,0), y 2: K = 2 (slot 0), 0 (slot 1): f = 2(1,-1,0) = (2, -2, 0) -> yhat 0:
    #        slot 1 <- (2,0), (-1,0,1); head 0.
    # row 5: x (1,0), y 1: K = 1, 2: f = (1,-1,0) + 2(-1,0,1) = (-1, -1, 2) -> yhat 2:
    #        slot 0 <- (1,0), (0,1,-1); head 1.
    expected = [
        (0, True, 1, 1, [[1, 0]], [[-1, 1, 0]]),
        (0, True, 2, 2, [[1, 0], [0, 1]], [[-1, 1, 0], [-1, 0, 1]]),
        (1, True, 3, 3, [[1, 1], [0, 1]], [[1, -1, 0], [-1, 0, 1]]),
        (0, True, 4, 4, [[1, 1], [2, 0]], [[1, -1, 0], [-1, 0, 1]]),
        (2, True, 5, 5, [[1, 0], [2, 0]], [[0, 1, -1], [-1, 0, 1]]),
    ]
    k = kernel_perceptron(module, kernel="linear", budget=2)
    rec = kernel_rows_record(module, k, XA, YA, classes=[0, 1, 2])
    check_kernel(rec, expected)
    assert rec[-1][6] == 2
    if module is mbref:
        assert k._head == 1
    # on (1,1): K = 1, 2: f = (0,1,-1) + 2(-1,0,1) = (-2, 1, 1) -> class 1 (the tie)
    assert as_list(k.decision_function([[1, 1]])) == [[-2.0, 1.0, 1.0]]
    assert as_list(k.predict([[1, 1]])) == [1]


@MODULES
def test_kernel_multiclass_poly_golden(module):
    # K(x, z) = (x.z + 1)^2.
    # row 1: x (1,0), y 1: f = (0, 0, 0) -> yhat 0: slot (1,0), (-1, 1, 0).
    # row 2: x (0,1), y 2: K = (0+1)^2 = 1: f = (-1, 1, 0) -> yhat 1: slot (0,1), (0, -1, 1).
    # row 3: x (1,1), y 0: K = 4, 4: f = 4(-1,1,0) + 4(0,-1,1) = (-4, 0, 4) -> yhat 2:
    #        slot (1,1), (1, 0, -1).
    # row 4: x (2,0), y 2: K = 9, 1, 9: f = 9(-1,1,0) + (0,-1,1) + 9(1,0,-1) = (0, 8, -8)
    #        -> yhat 1: slot (2,0), (0, -1, 1).
    # row 5: x (1,0), y 1: K = 4, 1, 4, 9: f = 4(-1,1,0) + (0,-1,1) + 4(1,0,-1) + 9(0,-1,1)
    #        = (0, -6, 6) -> yhat 2: slot (1,0), (0, 1, -1).
    sv = [[1, 0], [0, 1], [1, 1], [2, 0], [1, 0]]
    a = [[-1, 1, 0], [0, -1, 1], [1, 0, -1], [0, -1, 1], [0, 1, -1]]
    expected = [(0, True, 1, 1, sv[:1], a[:1]), (1, True, 2, 2, sv[:2], a[:2]),
                (2, True, 3, 3, sv[:3], a[:3]), (1, True, 4, 4, sv[:4], a[:4]),
                (2, True, 5, 5, sv, a)]
    k = kernel_perceptron(module, **POLY2)
    check_kernel(kernel_rows_record(module, k, XA, YA, classes=[0, 1, 2]), expected)
    # on (0,0): every K = 1, f = the sum of the rows a = (0, 0, 0) -> class 0 (the tie);
    # on (1,0): f = (0, -6, 6) + 4(0, 1, -1) = (0, -2, 2) -> class 2
    assert as_list(k.decision_function([[0, 0], [1, 0]])) == [[0.0, 0.0, 0.0], [0.0, -2.0, 2.0]]
    assert as_list(k.predict([[0, 0], [1, 0]])) == [0, 2]


@MODULES
def test_kernel_multiclass_poly_budget_golden(module):
    # K(x, z) = (x.z + 1)^2, budget = 2.
    # rows 1-2: as without a budget: slots [(1,0), (-1,1,0)], [(0,1), (0,-1,1)]; full, head 0.
    # row 3: x (1,1), y 0: f = (-4, 0, 4) -> yhat 2: slot 0 <- (1,1), (1,0,-1); head 1.
    # row 4: x (2,0), y 2: K = 9 (slot 0), 1 (slot 1): f = 9(1,0,-1) + (0,-1,1) = (9, -1, -8)
    #        -> yhat 0 (1 without the budget): slot 1 <- (2,0), (-1,0,1); head 0.
    # row 5: x (1,0), y 1: K = 4, 9: f = 4(1,0,-1) + 9(-1,0,1) = (-5, 0, 5) -> yhat 2:
    #        slot 0 <- (1,0), (0,1,-1); head 1.
    expected = [
        (0, True, 1, 1, [[1, 0]], [[-1, 1, 0]]),
        (1, True, 2, 2, [[1, 0], [0, 1]], [[-1, 1, 0], [0, -1, 1]]),
        (2, True, 3, 3, [[1, 1], [0, 1]], [[1, 0, -1], [0, -1, 1]]),
        (0, True, 4, 4, [[1, 1], [2, 0]], [[1, 0, -1], [-1, 0, 1]]),
        (2, True, 5, 5, [[1, 0], [2, 0]], [[0, 1, -1], [-1, 0, 1]]),
    ]
    k = kernel_perceptron(module, budget=2, **POLY2)
    check_kernel(kernel_rows_record(module, k, XA, YA, classes=[0, 1, 2]), expected)
    if module is mbref:
        assert k._head == 1
    # on (0,1): K = (0+1)^2 = 1, (0+1)^2 = 1: f = (0,1,-1) + (-1,0,1) = (-1, 1, 0) -> class 1
    assert as_list(k.decision_function([[0, 1]])) == [[-1.0, 1.0, 0.0]]


@MODULES
def test_kernel_ovr_linear_golden(module):
    # Learner k: the binary kernel perceptron on +1 iff y == k (tie "negative": sign(0) = -1),
    # adding (x, y_k) on its own mistake; f_k from the states before the row.
    # row 1: x (1,0), y 0: f = (0, 0, 0), yhat 0 = y; learner 0 (+1) says -1: adds (1,0), +1.
    # row 2: x (0,1), y 1: f = (0, 0, 0), yhat 0; learner 1 (+1): adds (0,1), +1.
    # row 3: x (1,1), y 2: f = (1, 1, 0), yhat 0; learners 0, 1 (-1) say +1: add (1,1), -1;
    #        learner 2 (+1) says -1: adds (1,1), +1.
    # row 4: x (2,0), y 0: f = (2 - 2, 0 - 2, 2) = (0, -2, 2), yhat 2; learner 0 (+1): adds
    #        (2,0), +1; learner 2 (-1): adds (2,0), -1.
    # row 5: x (1,0), y 0: f = (1 - 1 + 2, 0 - 1, 1 - 2) = (2, -1, -1), yhat 0; all right.
    # (The primal weights sum_s c_s z_s are those of the one-vs-rest Perceptron above:
    # (2,-1), (-1,0), (-1,1).)
    expected = [
        (0, True, 0, 1, [[[1, 0]], [], []], [[1], [], []]),
        (0, True, 1, 2, [[[1, 0]], [[0, 1]], []], [[1], [1], []]),
        (0, True, 2, 3, [[[1, 0], [1, 1]], [[0, 1], [1, 1]], [[1, 1]]], [[1, -1], [1, -1], [1]]),
        (2, True, 3, 4, [[[1, 0], [1, 1], [2, 0]], [[0, 1], [1, 1]], [[1, 1], [2, 0]]],
         [[1, -1, 1], [1, -1], [1, -1]]),
        (0, False, 3, 4, [[[1, 0], [1, 1], [2, 0]], [[0, 1], [1, 1]], [[1, 1], [2, 0]]],
         [[1, -1, 1], [1, -1], [1, -1]]),
    ]
    k = kernel_perceptron(module, kernel="linear", multi_class="ovr")
    rec = kernel_rows_record(module, k, X5, Y5, classes=[0, 1, 2])
    check_kernel(rec, expected)
    assert rec[-1][6] == [3, 2, 2]                           # n_support_: one int per learner
    # on (1,1): f = (1 - 2 + 2, 1 - 2, 2 - 2) = (1, -1, 0) -> class 0
    assert as_list(k.decision_function([[1, 1]])) == [[1.0, -1.0, 0.0]]
    assert as_list(k.predict([[1, 1]])) == [0]


@MODULES
def test_kernel_ovr_linear_budget_golden(module):
    # Each learner its own ring of 2 slots.  Stream XA / YA:
    # row 1: x (1,0), y 1: f = (0, 0, 0), yhat 0; learner 1 adds (1,0), +1.
    # row 2: x (0,1), y 2: f = (0, 0, 0), yhat 0; learner 2 adds (0,1), +1.
    # row 3: x (1,1), y 0: f = (0, 1, 1), yhat 1; learner 0 adds (1,1), +1; learners 1, 2 add
    #        (1,1), -1 (both now full, head 0).
    # row 4: x (2,0), y 2: f = (2, 2 - 2, 0 - 2) = (2, 0, -2), yhat 0; learner 0 adds (2,0), -1
    #        (full); learner 2 (+1) says -1: slot 0 <- (2,0), +1 (head 1).
    # row 5: x (1,0), y 1: f = (1 - 2, 1 - 1, 2 - 1) = (-1, 0, 1), yhat 2; learner 1 (+1) says
    #        -1: slot 0 <- (1,0), +1 (head 1); learner 2 (-1) says +1: slot 1 <- (1,0), -1
    #        (head 0).
    expected = [
        (0, True, 1, 1, [[], [[1, 0]], []], [[], [1], []]),
        (0, True, 2, 2, [[], [[1, 0]], [[0, 1]]], [[], [1], [1]]),
        (1, True, 3, 3, [[[1, 1]], [[1, 0], [1, 1]], [[0, 1], [1, 1]]], [[1], [1, -1], [1, -1]]),
        (0, True, 4, 4, [[[1, 1], [2, 0]], [[1, 0], [1, 1]], [[2, 0], [1, 1]]],
         [[1, -1], [1, -1], [1, -1]]),
        (2, True, 5, 5, [[[1, 1], [2, 0]], [[1, 0], [1, 1]], [[2, 0], [1, 0]]],
         [[1, -1], [1, -1], [1, -1]]),
    ]
    k = kernel_perceptron(module, kernel="linear", budget=2, multi_class="ovr")
    check_kernel(kernel_rows_record(module, k, XA, YA, classes=[0, 1, 2]), expected)
    if module is mbref:
        assert k._head == [0, 1, 0]


@MODULES
def test_kernel_ovr_poly_golden(module):
    # K(x, z) = (x.z + 1)^2, learner k on +1 iff y == k.
    # row 1: x (1,0), y 0: f = (0, 0, 0), yhat 0 = y; learner 0 (+1): adds (1,0), +1.
    # row 2: x (0,1), y 1: f = ((0+1)^2, 0, 0) = (1, 0, 0), yhat 0; learner 0 (-1) says +1:
    #        adds (0,1), -1; learner 1 (+1): adds (0,1), +1.
    # row 3: x (1,1), y 2: f = (4 - 4, 4, 0) = (0, 4, 0), yhat 1; learner 0 right (-1);
    #        learner 1 (-1) says +1: adds (1,1), -1; learner 2 (+1): adds (1,1), +1.
    # row 4: x (2,0), y 0: f = (9 - 1, 1 - 9, 9) = (8, -8, 9), yhat 2; learners 0, 1 right;
    #        learner 2 (-1) says +1: adds (2,0), -1.
    # row 5: x (1,0), y 0: f = (4 - 1, 1 - 4, 4 - 9) = (3, -3, -5), yhat 0; all right.
    expected = [
        (0, True, 0, 1, [[[1, 0]], [], []], [[1], [], []]),
        (0, True, 1, 2, [[[1, 0], [0, 1]], [[0, 1]], []], [[1, -1], [1], []]),
        (1, True, 2, 3, [[[1, 0], [0, 1]], [[0, 1], [1, 1]], [[1, 1]]], [[1, -1], [1, -1], [1]]),
        (2, True, 3, 4, [[[1, 0], [0, 1]], [[0, 1], [1, 1]], [[1, 1], [2, 0]]],
         [[1, -1], [1, -1], [1, -1]]),
        (0, False, 3, 4, [[[1, 0], [0, 1]], [[0, 1], [1, 1]], [[1, 1], [2, 0]]],
         [[1, -1], [1, -1], [1, -1]]),
    ]
    k = kernel_perceptron(module, multi_class="ovr", **POLY2)
    rec = kernel_rows_record(module, k, X5, Y5, classes=[0, 1, 2])
    check_kernel(rec, expected)
    assert rec[-1][6] == [2, 2, 2]
    assert as_list(k.decision_function([[1, 0]])) == [[3.0, -3.0, -5.0]]
    # string labels: the same run, predictions mapped to classes_
    s = kernel_perceptron(module, multi_class="ovr", **POLY2)
    run = module.run_online(s, X5, [["a", "b", "c"][t] for t in Y5])
    assert as_list(run.predictions) == ["a", "a", "b", "c", "a"]
    # on (0,1): f = (1 - 4, 4 - 4, 4 - 1) = (-3, 0, 3) -> "c"
    assert as_list(s.predict([[1, 0], [0, 1]])) == ["a", "c"]


@MODULES
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_kernel_two_classes_unchanged(module, mc):
    # The binary rule (classes -1, 1), K(x, z) = x.z: x (1,0) y +1: f 0 -> -1, adds (1,0), +1;
    # x (0,1) y -1: f 0 -> -1 right; x (1,1) y -1: f 1 -> +1, adds (1,1), -1; x (1,0) y +1:
    # f 1 - 1 = 0 -> -1, adds (1,0), +1.
    k = kernel_perceptron(module, kernel="linear", multi_class=mc)
    run = module.run_online(k, [[1, 0], [0, 1], [1, 1], [1, 0]], [1, -1, -1, 1])
    assert as_list(run.predictions) == [-1, -1, 1, -1]
    assert as_list(run.updated) == [True, False, True, True]
    assert (k.mistakes_, k.updates_) == (3, 3)
    assert as_list(k.support_vectors_) == [[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]]
    assert as_list(k.dual_coef_) == [1.0, -1.0, 1.0]
    assert k.n_support_ == 3
    # on (2,1): 2 - 3 + 2 = 1
    assert as_list(k.decision_function([[2, 1]])) == [1.0]
    # the same as without multi_class, on any kernel and with a budget
    X = [[1.5, -2.0, 0.0], [0.0, 1.0, 3.0], [-1.0, 0.5, 2.0], [2.0, 2.0, -1.0],
         [0.0, 0.0, 0.0], [-3.0, 1.0, 1.0], [1.0, -1.0, 0.5]]
    y = ["no", "yes", "yes", "no", "yes", "yes", "no"]
    for params in ({"kernel": "rbf"}, {"kernel": "poly", "degree": 3, "budget": 2},
                   {"kernel": "linear", "tie": "positive"}):
        results = []
        for learner in (module.KernelPerceptron(**params),
                        module.KernelPerceptron(**params, multi_class=mc)):
            run = module.run_online(learner, X, y)
            results.append((as_list(run.predictions), as_list(run.updated),
                            as_list(learner.support_vectors_), as_list(learner.dual_coef_),
                            learner.n_support_, as_list(learner.decision_function(X)),
                            as_list(learner.predict(X))))
            learner.fit(X, y)
            results[-1] += (as_list(learner.dual_coef_), learner.n_iter_)
        assert results[0] == results[1]
        assert isinstance(results[0][4], int)


@MODULES
def test_kernel_multi_class_parameter(module):
    k = kernel_perceptron(module)
    names = list(inspect.signature(module.KernelPerceptron).parameters)
    assert names.pop() == "class_weight"    # (the class weights, added after multi_class)
    assert names[-1] == "multi_class" and names[-2] == "max_epochs"
    assert k.multi_class == "multiclass" and k.get_params()["multi_class"] == "multiclass"
    for bad in ("foo", None, "OVR"):
        with pytest.raises(ValueError) as e:
            module.KernelPerceptron(multi_class=bad).partial_fit(X5, Y5)
        assert str(e.value) == ("KernelPerceptron: parameter multi_class must be one of "
                                f"['multiclass', 'ovr'], got {bad!r}")
    # checked after the other parameters
    with pytest.raises(ValueError, match="parameter kernel must be one of"):
        module.KernelPerceptron(kernel="x", multi_class="foo").partial_fit(X5, Y5)
    learner = module.KernelPerceptron().partial_fit(X5, Y5)
    learner.set_params(multi_class="bad")
    with pytest.raises(ValueError, match="parameter multi_class must be one of"):
        learner.predict(X5)


@MODULES
def test_kernel_multi_class_changed_after_fitting(module):
    # With K >= 3 the state is laid out for the strategy it was fitted with (one ring of
    # coefficient rows, or K rings); with two classes multi_class plays no part.
    k = kernel_perceptron(module, kernel="linear").partial_fit(X5, Y5)
    k.set_params(multi_class="ovr")
    msg = ("KernelPerceptron: parameter multi_class was changed to 'ovr' after fitting; call "
           "fit, or clone the learner, to start again with it")
    for call in (lambda: k.partial_fit(X5, Y5), lambda: k.predict(X5),
                 lambda: k.decision_function(X5)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == msg
    k.fit(X5, Y5)                                     # fit starts again, with "ovr"
    assert as_list(k.n_support_) == [len(z) for z in k.support_vectors_]
    b = module.KernelPerceptron(kernel="linear").partial_fit(X5, [0, 1, 1, 0, 0])
    b.set_params(multi_class="ovr")
    b.partial_fit(X5, [0, 1, 1, 0, 0])


@MODULES
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_kernel_labels_and_shapes(module, mc):
    k = kernel_perceptron(module, kernel="poly", degree=2, multi_class=mc)
    k.partial_fit([[1, 0]], ["z"], classes=["z", "x", "y"])
    assert as_list(k.classes_) == ["x", "y", "z"]
    # the first prediction is class 0 ("x"): a mistake
    assert (k.mistakes_, k.updates_) == (1, 1)
    k.partial_fit(X5, ["x", "y", "z", "x", "x"])
    scores = as_list(k.decision_function(X5))
    assert len(scores) == 5 and all(len(s) == 3 for s in scores)
    assert set(as_list(k.predict(X5))) <= {"x", "y", "z"}
    before = (as_list(k.support_vectors_), as_list(k.dual_coef_), k.n_seen_)
    with pytest.raises(ValueError) as e:
        k.partial_fit([[1, 0], [0, 1]], ["x", "w"])
    assert str(e.value) == ("KernelPerceptron: y has the label 'w', outside the fitted classes "
                            "['x', 'y', 'z']")
    assert (as_list(k.support_vectors_), as_list(k.dual_coef_), k.n_seen_) == before
    if mc == "multiclass":
        assert isinstance(k.n_support_, int)
        assert len(as_list(k.dual_coef_)) == k.n_support_
        assert all(len(a) == 3 for a in as_list(k.dual_coef_))
    else:
        assert len(as_list(k.n_support_)) == 3
        assert all(c in (-1.0, 1.0) for cs in as_list(k.dual_coef_) for c in cs)


@MODULES
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_kernel_a_bad_row_leaves_the_learner_as_it_was(module, mc):
    k = kernel_perceptron(module, kernel="linear", multi_class=mc).partial_fit(X5, Y5)
    before = (as_list(k.support_vectors_), as_list(k.dual_coef_), k.n_seen_, k.mistakes_,
              k.updates_)
    with pytest.raises(ValueError, match="X contains NaN or infinity in row 1"):
        k.partial_fit([[1, 0], [math.nan, 1]], [0, 1])
    # a squared norm that overflows (row 1, a mistake: stored) or a score that overflows
    with pytest.raises(ValueError, match=r"row 1\b.*the learner was left as before the call"):
        k.partial_fit([[1, 0], [1e200, 1e200]], [1, 2])
    with pytest.raises(ValueError, match=r"row 0\b.*the learner was left as before the call"):
        k.partial_fit([[1e308, 1e308]], [0])
    assert (as_list(k.support_vectors_), as_list(k.dual_coef_), k.n_seen_, k.mistakes_,
            k.updates_) == before
    with pytest.raises(ValueError, match=r"overflow (in|at) row 0\b"):
        k.decision_function([[1e308, 1e308]])
    # a failed first call leaves the learner unfitted: f = (0, 0, 0) -> yhat 0, a mistake on
    # label 1 (multiclass) and an update of learner 1 (ovr); the squared norm overflows
    fresh = kernel_perceptron(module, kernel="linear", multi_class=mc)
    with pytest.raises(ValueError, match="row 0"):
        fresh.partial_fit([[1e200, 0]], [1], classes=[0, 1, 2])
    assert getattr(fresh, "classes_", None) is None


@MODULES
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_kernel_fit_converges(module, mc):
    X = [[2, 0, 1], [0, 2, 1], [-2, -2, 1], [3, 1, 1], [1, 3, 1], [-1, -3, 1]]
    y = ["r", "g", "b", "r", "g", "b"]
    k = kernel_perceptron(module, kernel="poly", degree=2, multi_class=mc).fit(X, y)
    assert k.converged_ and k.epoch_updates_[-1] == 0
    assert k.n_seen_ == 6 * k.n_iter_
    assert as_list(k.predict(X)) == y
    if mc == "multiclass":
        assert k.updates_ == k.mistakes_
    again = kernel_perceptron(module, kernel="poly", degree=2, multi_class=mc).fit(X, y)
    assert as_list(again.dual_coef_) == as_list(k.dual_coef_)
    assert mbref.KernelPerceptron(kernel="poly", degree=2, multi_class=mc).fit(X, y).mistakes_ \
        == k.mistakes_


# ------------------------------------------------------------------------------------------------
# The learners that take two classes only
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", (mbref, mbcore), ids=("mbref", "mbcore"))
def test_vote_mode_refuses_three_classes(module):
    def msg(labels):
        return (f"AveragedPerceptron: y has more than two labels (3: {labels!r}). Only binary "
                "classification is supported with mode='vote'")
    for call in (lambda a: a.partial_fit(X5, Y5), lambda a: a.fit(X5, Y5),
                 lambda a: a.partial_fit([[1, 0]], [0], classes=["x", "y", "z"])):
        a = module.AveragedPerceptron(mode="vote")
        with pytest.raises(ValueError) as e:
            call(a)
        assert str(e.value) in (msg([0, 1, 2]), "AveragedPerceptron: classes must hold exactly "
                                "two distinct labels with mode='vote' (only binary "
                                "classification is supported), got ['x', 'y', 'z']")
    a = module.AveragedPerceptron().partial_fit(X5, Y5)
    a.set_params(mode="vote")
    with pytest.raises(ValueError) as e:
        a.predict(X5)
    assert str(e.value) == msg([0, 1, 2])
    assert list(module.AveragedPerceptron(mode="vote").partial_fit(
        X5, [0, 1, 1, 0, 0]).classes_) == [0, 1]


# ------------------------------------------------------------------------------------------------
# All or nothing, fit
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", MULTI)
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_a_bad_row_leaves_the_learner_as_it_was(cls, mc):
    learner = cls(multi_class=mc, fit_intercept=True).partial_fit(X5, Y5)
    before = (learner.coef_, learner.intercept_, learner.n_seen_, learner.mistakes_,
              learner.updates_)
    with pytest.raises(ValueError, match=r"in row 2 .*the learner was left as before the call"):
        learner.partial_fit([[1, 0], [0, 1], [math.nan, 1], [1, 1]], [0, 1, 2, 2])
    assert (learner.coef_, learner.intercept_, learner.n_seen_, learner.mistakes_,
            learner.updates_) == before
    with pytest.raises(ValueError, match="row 1"):
        learner.partial_fit([[1, 0], [math.inf, 0]], [0, 1])
    assert learner.coef_ == before[0]
    with pytest.raises(ValueError, match=r"NaN or infinity in row 1"):
        learner.decision_function([[1, 0], [math.nan, 0]])


def test_overflowing_weights_are_a_bad_row():
    p = mbref.Perceptron()
    with pytest.raises(ValueError, match="row 1"):
        p.partial_fit([[1e308, 0], [1e308, 0]], [1, 1], classes=[0, 1, 2])
    assert p.classes_ is None                      # a failed first call leaves it unfitted


@pytest.mark.parametrize("cls", [mbref.Perceptron, mbref.AveragedPerceptron,
                                 mbref.MarginPerceptron])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_fit_converges(cls, mc):
    X = [[2, 0, 1], [0, 2, 1], [-2, -2, 1], [3, 1, 1], [1, 3, 1], [-1, -3, 1]]
    y = ["r", "g", "b", "r", "g", "b"]
    learner = cls(multi_class=mc).fit(X, y)
    assert learner.converged_ and not learner.cycled_
    assert learner.epoch_updates_[-1] == 0
    assert learner.n_seen_ == 6 * learner.n_iter_
    online = learner.predict(X) if cls is not mbref.AveragedPerceptron else None
    assert online in (None, y)
    # fit starts again: the same result from a fitted learner
    again = learner.fit(X, y)
    assert again.coef_ == cls(multi_class=mc).fit(X, y).coef_


def test_fit_stops_on_a_cycle():
    # Not separable (the same row with two labels): the weights come back; the cycle key (all
    # the weights) stops fit before max_epochs.
    p = mbref.Perceptron(max_epochs=50).fit([[1, 0], [1, 0], [0, 1]], [0, 1, 2])
    assert p.cycled_ and not p.converged_ and p.n_iter_ < 50


def test_hinge_fit_runs_its_epochs():
    h = mbref.OnlineHingeSVM(max_epochs=3).fit(X5, Y5)
    assert h.n_iter_ == 3 and h.n_seen_ == 15


@pytest.mark.parametrize("module", (mbref, mbcore), ids=("mbref", "mbcore"))
def test_coef_init_one_row_per_class(module):
    """fit(coef_init=(K, d), intercept_init=(K,)) starts from those weights: with w_0 = (5, 0),
    w_1 = w_2 = 0 and intercepts (0, 1, 2), every row of X5 is predicted from the start."""
    p = module.Perceptron(fit_intercept=True, max_epochs=1)
    p.fit(X5, Y5, coef_init=[[5.0, 0.0], [0.0, 0.0], [0.0, 0.0]], intercept_init=[0.0, 1.0, 2.0])
    q = module.Perceptron(fit_intercept=True, max_epochs=1)
    q.fit(X5, Y5)
    assert [list(r) for r in p.coef_] != [list(r) for r in q.coef_]
    first = module.Perceptron(fit_intercept=True).fit(
        [[1.0, 0.0]], [1], classes=[0, 1, 2], coef_init=[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
        intercept_init=[0.0, 1.0, 2.0])
    # row (1, 0): scores 0, 1, 2 -> class 2, wrong: w_1 += x, w_2 -= x (b_1 = 2, b_2 = 1); then
    # scores 0, 3, 0 -> class 1, right: converged after two epochs
    assert [list(r) for r in first.coef_] == [[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]
    assert list(first.intercept_) == [0.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="coef_init has shape"):
        module.Perceptron().fit(X5, Y5, coef_init=[[0.0, 0.0], [0.0, 0.0]])
