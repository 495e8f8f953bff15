"""Multi-class (K >= 3) rules of the additive family, in the twin (mbref).

The golden cases are worked out by hand on tiny integer streams (the arithmetic is in the
comments); each asserts, after every row, the online prediction (a class index), whether the
state changed, the counters and the weight matrix.  Then: two classes keep the binary learner,
labels of any kind, ``classes=``, the messages, ties, the learners that refuse K >= 3, all or
nothing on a bad row, and ``fit``.
"""

import inspect
import math

import pytest

import mbcore
import mbref

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
# The learners that take two classes only
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", (mbref, mbcore), ids=("mbref", "mbcore"))
def test_kernel_perceptron_refuses_three_classes(module):
    for call in (lambda k: k.partial_fit(X5, Y5), lambda k: k.fit(X5, Y5),
                 lambda k: k.partial_fit([[1, 0]], [0], classes=[0, 1, 2])):
        k = module.KernelPerceptron()
        with pytest.raises(ValueError) as e:
            call(k)
        assert "Only binary classification is supported" in str(e.value) or \
            "classes must hold exactly two distinct labels" in str(e.value)
        assert getattr(k, "classes_", None) is None
    assert list(module.KernelPerceptron().partial_fit(X5, [0, 1, 1, 0, 0]).classes_) == [0, 1]


@pytest.mark.parametrize("module", (mbref, mbcore), ids=("mbref", "mbcore"))
def test_vote_mode_refuses_three_classes(module):
    msg = ("AveragedPerceptron: y has more than two labels (3 classes). Only binary "
           "classification is supported with mode='vote'")
    for call in (lambda a: a.partial_fit(X5, Y5), lambda a: a.fit(X5, Y5),
                 lambda a: a.partial_fit([[1, 0]], [0], classes=["x", "y", "z"])):
        a = module.AveragedPerceptron(mode="vote")
        with pytest.raises(ValueError) as e:
            call(a)
        assert str(e.value) == msg
    a = module.AveragedPerceptron().partial_fit(X5, Y5)
    a.set_params(mode="vote")
    with pytest.raises(ValueError) as e:
        a.predict(X5)
    assert str(e.value) == msg
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
