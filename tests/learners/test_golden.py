"""Golden cases: small streams worked out by hand from the rules the learners' docstrings state.

Every expected value below was computed on paper from the update rules (the derivation is in the
comments), not taken from the library.  Each case runs on both the compiled learners (mbcore) and
their twins (mbref): the twin is the specification, so it must satisfy the rules as well.
Values that involve a square root or a division are compared with a relative tolerance of a few
ulps; integer-valued results are compared exactly.
"""

import math

import numpy as np
import pytest

import mbcore
import mbref
from conftest import as_list, integer_stream, real_stream

# (the subset every built wheel is tested with: pytest -m smoke)
pytestmark = pytest.mark.smoke

MODULES = [mbcore, mbref]
mod_param = pytest.mark.parametrize("mod", MODULES, ids=["mbcore", "mbref"])

# The stream of the Perceptron cases (x, y).
S = [((1.0, 2.0), 1), ((2.0, -1.0), -1), ((-1.0, 1.0), -1), ((0.0, 1.0), 1)]


def feed_one_by_one(clf, stream, classes=(-1, 1)):
    """partial_fit one row at a time; returns (online predictions, coef after each step,
    intercept after each step), the predictions read from ``predict`` just before each update."""
    preds, coefs, icpts = [], [], []
    for t, (x, y) in enumerate(stream):
        if t > 0:
            preds.append(as_list(clf.predict([list(x)]))[0])
        clf.partial_fit([list(x)], [y], classes=list(classes) if t == 0 else None)
        coefs.append(as_list(clf.coef_))
        icpts.append(float(clf.intercept_))
    return preds, coefs, icpts


# -- Perceptron -----------------------------------------------------------------------------------

@mod_param
def test_perceptron_by_hand_tie_negative(mod):
    # w=(0,0). x1=(1,2): w.x=0 -> -1 (tie negative), y=+1: mistake, w=(1,2).
    # x2=(2,-1): w.x=2-2=0 -> -1 = y: no update.  x3=(-1,1): w.x=-1+2=1 -> +1, y=-1: mistake,
    # w=(1,2)-(-1,1)=(2,1).  x4=(0,1): w.x=1 -> +1 = y.
    clf = mod.Perceptron()
    run = mod.run_online(clf, [list(x) for x, _ in S], [y for _, y in S])
    preds = as_list(run.predictions)
    assert preds == [-1, -1, 1, 1]
    assert clf.mistakes_ == 2 and clf.updates_ == 2 and clf.n_seen_ == 4
    assert as_list(clf.coef_) == [2.0, 1.0]
    _, coefs, _ = feed_one_by_one(mod.Perceptron(), S)
    assert coefs == [[1.0, 2.0], [1.0, 2.0], [2.0, 1.0], [2.0, 1.0]]
    assert as_list(clf.decision_function([[1.0, 1.0], [-1.0, 2.0]])) == [3.0, 0.0]
    # w.x = 0 on a fresh point: the tie rule again.
    assert as_list(clf.predict([[-1.0, 2.0]])) == [-1]


@mod_param
def test_perceptron_by_hand_tie_positive(mod):
    # sign(0)=+1.  x1: w.x=0 -> +1 = y: no update, w=(0,0).  x2: w.x=0 -> +1, y=-1: mistake,
    # w=-(2,-1)=(-2,1).  x3=(-1,1): w.x=2+1=3 -> +1, y=-1: mistake, w=(-2,1)-(-1,1)=(-1,0).
    # x4=(0,1): w.x=0 -> +1 = y.
    clf = mod.Perceptron(tie="positive")
    preds, coefs, _ = feed_one_by_one(clf, S)
    assert coefs == [[0.0, 0.0], [-2.0, 1.0], [-1.0, 0.0], [-1.0, 0.0]]
    # (predictions of x2..x4 read before their update)
    assert preds == [1, 1, 1]
    assert clf.mistakes_ == 2 and clf.updates_ == 2
    assert as_list(clf.predict([[0.0, 5.0]])) == [1]


@mod_param
@pytest.mark.parametrize("tie, expected", [("negative", "ham"), ("positive", "spam")])
@pytest.mark.parametrize("make", [
    lambda m, tie: m.Perceptron(tie=tie),
    lambda m, tie: m.AveragedPerceptron(tie=tie),
    lambda m, tie: m.AveragedPerceptron(mode="vote", tie=tie),
    lambda m, tie: m.KernelPerceptron(kernel="rbf", tie=tie),
    lambda m, tie: m.OnlineHingeSVM(tie=tie),
], ids=["Perceptron", "Averaged", "Voted", "Kernel", "Hinge"])
def test_zero_state_follows_the_tie_rule(mod, make, tie, expected):
    """w = 0 (no support vector) scores 0 everywhere: predict -1 with tie="negative", +1 with
    tie="positive".  The first row is chosen so that the learner stays at 0:
    a correctly tied prediction (no update), or a zero row for the hinge learner (its update adds
    eta * y * 0)."""
    clf = make(mod, tie)
    if type(clf).__name__ == "OnlineHingeSVM":
        clf.partial_fit([[0.0, 0.0]], [expected], classes=["ham", "spam"])
    else:
        clf.partial_fit([[1.0, -3.0]], [expected], classes=["ham", "spam"])
        assert clf.mistakes_ == 0 and clf.updates_ == 0
    Xt = [[1.0, 1.0], [-4.0, 0.5], [0.0, 0.0]]
    if getattr(clf, "mode", None) == "vote":
        # One vote vector v = 0 with c = 1: the vote is c * sign(0) = the tie sign.
        assert as_list(clf.decision_function(Xt)) == [1.0 if tie == "positive" else -1.0] * 3
    else:
        assert as_list(clf.decision_function(Xt)) == [0.0, 0.0, 0.0]
    assert as_list(clf.predict(Xt)) == [expected] * 3


@mod_param
def test_perceptron_learning_rate_scales_w_only(mod):
    # From w=0, eta scales every update: w_eta = eta * w_1, the same predictions.
    a, b = mod.Perceptron(), mod.Perceptron(eta=3.0)
    pa, ca, _ = feed_one_by_one(a, S)
    pb, cb, _ = feed_one_by_one(b, S)
    assert pa == pb
    assert cb == [[3.0 * v for v in c] for c in ca]


@mod_param
def test_perceptron_normalize_by_hand(mod):
    # x1=(3,4), ||x1||=5: w.x=0 -> -1, y=+1: w = (3,4)/5 = (0.6, 0.8).
    # x2=(0,-5) -> unit (0,-1): w.x = -0.8 -> -1, y=+1: w = (0.6, 0.8) + (0,-1) = (0.6, -0.2).
    clf = mod.Perceptron(normalize=True)
    _, coefs, _ = feed_one_by_one(clf, [((3.0, 4.0), 1), ((0.0, -5.0), 1)])
    assert coefs[0] == pytest.approx([0.6, 0.8], rel=1e-15)
    assert coefs[1] == pytest.approx([0.6, -0.2], rel=1e-14)
    assert clf.mistakes_ == 2
    # A zero row stays zero: score 0 (tie), and the update adds nothing.
    before = list(as_list(clf.coef_))
    clf.partial_fit([[0.0, 0.0]], [1])
    assert as_list(clf.coef_) == before and clf.mistakes_ == 3


@mod_param
def test_perceptron_fit_intercept_by_hand(mod):
    # Augmented x' = (x, 1).  x1=(1,2): 0 -> -1, y=+1: w=(1,2), b=1.
    # x2=(-1,-1): -1-2+1 = -2 -> -1 = y.  x3=(0,0): b=1 -> +1, y=-1: w=(1,2), b=0.
    clf = mod.Perceptron(fit_intercept=True)
    _, coefs, icpts = feed_one_by_one(clf, [((1.0, 2.0), 1), ((-1.0, -1.0), -1),
                                            ((0.0, 0.0), -1)])
    assert coefs == [[1.0, 2.0]] * 3
    assert icpts == [1.0, 1.0, 0.0]
    assert clf.mistakes_ == 2


# -- Margin Perceptron ----------------------------------------------------------------------------

@mod_param
@pytest.mark.parametrize("y1, mistakes", [(-1, 0), (1, 1)])
def test_margin_perceptron_first_update(mod, y1, mistakes):
    # While ||w|| = 0 every example is a margin mistake: w = y1 x1/||x1|| = y1 (3,4)/5.
    # The prediction is sign(0) -> -1 (tie negative): a real mistake only when y1 = +1.
    clf = mod.MarginPerceptron(gamma=0.5)
    clf.partial_fit([[3.0, 4.0]], [y1], classes=[-1, 1])
    assert as_list(clf.coef_) == pytest.approx([0.6 * y1, 0.8 * y1], rel=1e-15)
    assert clf.updates_ == 1 and clf.mistakes_ == mistakes


@mod_param
def test_margin_perceptron_first_update_with_intercept(mod):
    # x' = (3, 4, 1)/sqrt(26): w = -x'.
    clf = mod.MarginPerceptron(gamma=0.5, fit_intercept=True)
    clf.partial_fit([[3.0, 4.0]], [-1], classes=[-1, 1])
    r = math.sqrt(26.0)
    assert as_list(clf.coef_) == pytest.approx([-3.0 / r, -4.0 / r], rel=1e-15)
    assert clf.intercept_ == pytest.approx(-1.0 / r, rel=1e-15)


@mod_param
def test_margin_mistakes_update_without_being_mistakes(mod):
    # gamma = 0.5, threshold gamma/2 = 0.25.
    # x1=(1,0), y=-1: ||w|| = 0 -> margin mistake, predicted -1 = y: update, w = (-1, 0).
    # x2=(-1,10), y=+1: unit x = (-1,10)/sqrt(101), m = w.x/||w|| = 1/sqrt(101) ~ 0.0995:
    #   predicted +1 = y but |m| < 0.25: update, w = (-1 - 1/sqrt(101), 10/sqrt(101)).
    # x3=(-1,0), y=+1: m = (1 + 1/sqrt(101))/||w|| ~ 0.741 >= 0.25: correct, no update.
    X = [[1.0, 0.0], [-1.0, 10.0], [-1.0, 0.0]]
    y = [-1, 1, 1]
    clf = mod.MarginPerceptron(gamma=0.5)
    run = mod.run_online(clf, X, y)
    preds = as_list(run.predictions)
    assert preds == [-1, 1, 1]
    assert clf.mistakes_ == 0 and clf.updates_ == 2 and clf.n_seen_ == 3
    s = 1.0 / math.sqrt(101.0)
    w = np.array([-1.0 - s, 10.0 * s])
    assert as_list(clf.coef_) == pytest.approx(w.tolist(), rel=1e-14)
    m3 = (1.0 + s) / np.linalg.norm(w)
    assert 0.25 <= m3 == pytest.approx(0.7414, abs=1e-4)
    # decision_function is the normalised margin w.x/(||w|| ||x||).
    assert as_list(clf.decision_function([[-2.0, 0.0]])) == pytest.approx([m3], rel=1e-13)


@mod_param
def test_margin_fraction_sets_the_threshold(mod):
    # Same stream, threshold 0.1 * 0.5 = 0.05: m2 ~ 0.0995 is outside (-0.05, 0.05), no update.
    X = [[1.0, 0.0], [-1.0, 10.0], [-1.0, 0.0]]
    clf = mod.MarginPerceptron(gamma=0.5, margin_fraction=0.1)
    clf.partial_fit(X, [-1, 1, 1])
    assert clf.mistakes_ == 0 and clf.updates_ == 1
    assert as_list(clf.coef_) == [-1.0, 0.0]


# -- Online hinge-loss SVM -------------------------------------------------------------------------

@mod_param
def test_pegasos_by_hand(mod):
    # lam = 0.5, eta_t = 1/(lam t).
    # t=1: w=0, s=0 -> -1 (tie) = y; y s = 0 < 1: w <- (1 - 1)w + 2 * (-1) * (1,-2) = (-2, 4).
    # t=2: x=(1,1), y=+1: s = 2 -> +1 = y, y s = 2 >= 1: only the shrink, w <- (1 - 1/2) w
    #      = (-1, 2).
    # t=3: x=(0,1), y=-1: s = 2 -> +1, a mistake, y s = -2 < 1: w <- (2/3) w + (2/3)(-1)(0,1)
    #      = (-2/3, 4/3 - 2/3) = (-2/3, 2/3).
    clf = mod.OnlineHingeSVM(lam=0.5)
    _, coefs, _ = feed_one_by_one(clf, [((1.0, -2.0), -1), ((1.0, 1.0), 1), ((0.0, 1.0), -1)])
    assert coefs[0] == [-2.0, 4.0]
    assert coefs[1] == pytest.approx([-1.0, 2.0], rel=1e-15)
    assert coefs[2] == pytest.approx([-2.0 / 3.0, 2.0 / 3.0], rel=1e-14)
    assert clf.mistakes_ == 1 and clf.updates_ == 2 and clf.n_seen_ == 3


@mod_param
def test_pegasos_first_step_zeroes_w(mod):
    # eta_1 = 1/lam: the shrink factor 1 - eta_1 lam is 0, whatever w was.  From w = (5, 5)
    # on x=(1,1), y=+1: y w.x = 10 >= 1, so nothing is added: w = 0 exactly.  The intercept is
    # not regularised: it keeps its initial value.
    clf = mod.OnlineHingeSVM(lam=0.25, fit_intercept=True, max_epochs=1)
    clf.fit([[1.0, 1.0]], [1], classes=[-1, 1], coef_init=[5.0, 5.0], intercept_init=3.0)
    assert as_list(clf.coef_) == [0.0, 0.0]
    assert clf.intercept_ == 3.0
    assert clf.updates_ == 0
    # With y = -1 the hinge is active: w = 0 + eta_1 * y * x = 4 * (-1) * (1, 1).
    clf = mod.OnlineHingeSVM(lam=0.25, max_epochs=1)
    clf.fit([[1.0, 1.0]], [-1], classes=[-1, 1], coef_init=[5.0, 5.0])
    assert as_list(clf.coef_) == [-4.0, -4.0]
    assert clf.updates_ == 1 and clf.mistakes_ == 1


@mod_param
def test_hinge_constant_step_by_hand(mod):
    # lam = 1, eta = 0.1: w <- 0.9 w (+ 0.1 y x when y w.x < 1).
    # x1=(1,0), y=+1: s=0: w = (0.1, 0).  x2=(2,0): s = 0.2 < 1: w = 0.9 (0.1,0) + 0.1 (2,0)
    # = (0.29, 0).  x3=(1,0): s = 0.29 < 1: w = 0.9 * 0.29 + 0.1 = 0.361.
    clf = mod.OnlineHingeSVM(lam=1.0, eta=0.1)
    _, coefs, _ = feed_one_by_one(clf, [((1.0, 0.0), 1), ((2.0, 0.0), 1), ((1.0, 0.0), 1)])
    assert [c[0] for c in coefs] == pytest.approx([0.1, 0.29, 0.361], rel=1e-14)
    assert [c[1] for c in coefs] == [0.0, 0.0, 0.0]
    assert clf.updates_ == 3 and clf.mistakes_ == 1


# -- Averaged and voted Perceptron -----------------------------------------------------------------

def brute_force_history(mod, params, X, y):
    """(w_{t+1}, b_{t+1}, mistake at t) for every example t, from a plain Perceptron fed one row
    at a time."""
    p = mod.Perceptron(**params)
    hist = []
    for t in range(len(y)):
        m0 = p.mistakes_ if t else 0
        p.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1] if t == 0 else None)
        hist.append((np.array(as_list(p.coef_), dtype=float), float(p.intercept_),
                     p.mistakes_ > m0))
    return hist


@mod_param
@pytest.mark.parametrize("params", [{}, {"fit_intercept": True}, {"normalize": True, "eta": 0.5}],
                         ids=["plain", "intercept", "normalize"])
@pytest.mark.parametrize("data", ["integer", "real"])
def test_average_is_mean_of_weights_after_each_example(mod, params, data):
    if data == "integer":
        X, y = integer_stream(4, 60, 5)
    else:
        X, y = real_stream(4, 60, 5)
    hist = brute_force_history(mod, params, X, y)
    avg = mod.AveragedPerceptron(**params)
    # Fed in three chunks: the average is over all T examples so far.
    for k, (a, b) in enumerate([(0, 17), (17, 18), (18, 60)]):
        avg.partial_fit(X[a:b], y[a:b], classes=[-1, 1] if k == 0 else None)
        T = b
        w_bar = sum(w for w, _, _ in hist[:T]) / T
        b_bar = sum(bb for _, bb, _ in hist[:T]) / T
        assert as_list(avg.coef_) == pytest.approx(w_bar.tolist(), rel=1e-12, abs=1e-12)
        assert avg.intercept_ == pytest.approx(b_bar, rel=1e-12, abs=1e-12)
    # Online it is the Perceptron: same counts as the brute-force run.
    p = mod.Perceptron(**params).partial_fit(X, y)
    assert (avg.mistakes_, avg.updates_, avg.n_seen_) == (p.mistakes_, p.updates_, p.n_seen_)


@mod_param
@pytest.mark.parametrize("params", [{}, {"fit_intercept": True, "tie": "positive"}],
                         ids=["plain", "intercept-tiepos"])
def test_voted_perceptron_by_brute_force(mod, params):
    X, y = integer_stream(7, 80, 4)
    hist = brute_force_history(mod, params, X, y)
    # Freund & Schapire's voted Perceptron: v_1 = 0, c_1 = 0; a correct prediction adds 1 to
    # the current c_k; a mistake starts v_{k+1} = the updated w with c_{k+1} = 1.  Vectors with
    # c_k = 0 (v_1 when the first example is a mistake) have no vote.
    icpt = params.get("fit_intercept", False)
    vecs, counts = [np.zeros(X.shape[1] + (1 if icpt else 0))], [0]
    for w, b, mistake in hist:
        if mistake:
            vecs.append(np.append(w, b) if icpt else w)
            counts.append(1)
        else:
            counts[-1] += 1
    keep = [k for k, c in enumerate(counts) if c > 0]
    vecs = [vecs[k] for k in keep]
    counts = [counts[k] for k in keep]
    clf = mod.AveragedPerceptron(mode="vote", **params)
    clf.partial_fit(X[:33], y[:33])
    clf.partial_fit(X[33:], y[33:])
    assert as_list(clf.vote_counts_) == counts
    assert sum(as_list(clf.vote_counts_)) == clf.n_seen_ == 80
    assert as_list(clf.vote_vectors_) == [v.tolist() for v in vecs]
    # predict: sign(sum_k c_k sign(v_k . x)) with the tie rule at both levels (exact on integers).
    Xt, _ = integer_stream(8, 30, 4)
    d = X.shape[1]
    tie_pos = params.get("tie") == "positive"

    def sgn(s):
        return 1 if (s > 0 or (s == 0 and tie_pos)) else -1

    want = []
    for x in Xt:
        total = 0
        for v, c in zip(vecs, counts):
            s = v[:d] @ x + (v[d] if icpt else 0.0)
            total += c * sgn(s)
        want.append(sgn(total))
    assert as_list(clf.predict(Xt)) == want


# -- Kernel Perceptron ----------------------------------------------------------------------------

@mod_param
@pytest.mark.parametrize("kparams", [{"kernel": "linear"},
                                     {"kernel": "poly", "degree": 1, "gamma": 1.0, "coef0": 0.0}],
                         ids=["linear", "poly-degree-1"])
@pytest.mark.parametrize("tie", ["negative", "positive"])
def test_kernel_perceptron_linear_equals_perceptron(mod, kparams, tie):
    # f(x) = sum_S y_i x_i . x = w . x with w = sum_S y_i x_i, the Perceptron's w: on integer
    # data the sums are exact, so the two make the same predictions.
    X, y = integer_stream(11, 150, 6, noise=0.1)
    p = mod.Perceptron(tie=tie)
    k = mod.KernelPerceptron(tie=tie, **kparams)
    rp = mod.run_online(p, X, y)
    rk = mod.run_online(k, X, y)
    assert as_list(rk.predictions) == as_list(rp.predictions)
    assert k.mistakes_ == p.mistakes_ == k.n_support_
    sv = np.array(as_list(k.support_vectors_))
    dc = np.array(as_list(k.dual_coef_))
    assert (dc[:, None] * sv).sum(axis=0).tolist() == as_list(p.coef_)
    Xt, _ = integer_stream(12, 40, 6)
    assert as_list(k.decision_function(Xt)) == as_list(p.decision_function(Xt))


@mod_param
@pytest.mark.parametrize("budget", [1, 3, 8])
def test_kernel_perceptron_budget_ring(mod, budget):
    # At most B support vectors; once full, mistake number k (0-based) goes to slot k mod B
    # (the oldest is replaced), with its label as dual coefficient.
    X, y = real_stream(13, 120, 4)
    y = np.where(np.arange(120) % 3 == 0, -y, y)       # noisy: many mistakes
    clf = mod.KernelPerceptron(kernel="rbf", gamma=0.5, budget=budget)
    mistake_rows = []
    seen = 0
    for a, b in [(0, 5), (5, 6), (6, 70), (70, 120)]:
        run = mod.run_online(clf, X[a:b], y[a:b], classes=[-1, 1] if a == 0 else None)
        errs = as_list(run.errors)
        mistake_rows += [a + i for i, e in enumerate(errs) if e]
        seen += b - a
        assert clf.n_support_ == min(budget, len(mistake_rows)) <= budget
    assert len(mistake_rows) > budget
    sv = as_list(clf.support_vectors_)
    dc = as_list(clf.dual_coef_)
    M = len(mistake_rows)
    for k in range(M - budget, M):
        r = mistake_rows[k]
        assert sv[k % budget] == X[r].tolist()
        assert dc[k % budget] == float(y[r])
