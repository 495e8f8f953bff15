"""Certificates and the data quantities behind them.

Each certificate's quantities are recomputed here from the data with NumPy or plain Python
(independently of ``mbcore.bounds``), the bounds from the formulas of the notes, and the
verdicts checked: verified assumptions on data that satisfy them, violated assumptions on data
that break them, trusted values taken as given, and a library bug (a learner that exceeds a
verified bound) reported loudly.
"""

import json
import math

import numpy as np
import pytest

import mbcore
from mbcore import bounds as B
from mbcore.datasets import load_monks, load_mushrooms, load_tictactoe
from conftest import csr_from_dense, noisy, separable

SEEDS = (0, 1, 2)


def disjunction_stream(seed, n, d, k, p=None, flip=0.0):
    """Boolean rows, labels = OR of k variables (then a fraction `flip` of labels flipped)."""
    rng = np.random.default_rng(seed)
    p = 1 - 2 ** (-1 / k) if p is None else p
    X = (rng.random((n, d)) < p).astype(np.uint8)
    target = sorted(rng.choice(d, size=k, replace=False).tolist())
    y = X[:, target].any(axis=1).astype(int)
    if flip:
        f = rng.random(n) < flip
        y[f] = 1 - y[f]
    return X, y, target


def attribute_errors_loop(X, y, target):
    """Lecture 19's definition, one example at a time."""
    a = 0
    for row, label in zip(X.tolist(), list(y)):
        on = sum(row[i] for i in set(target))
        a += (1 if on == 0 else 0) if label == 1 else on
    return a


# -- quantities -----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_attribute_errors_matches_the_definition(seed):
    X, y, t = disjunction_stream(seed, 300, 20, 3, flip=0.1)
    for target in (t, t[:1], [], list(range(20)), [t[0], t[0], 5]):
        want = attribute_errors_loop(X, y, target)
        assert B.attribute_errors(X, y, target) == want
        assert B.attribute_errors(csr_from_dense(X.astype(float)), y, target) == want
    assert B.attribute_errors(X, X[:, t].any(axis=1).astype(int), t) == 0


def test_attribute_errors_bad_input():
    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="attribute_errors.*0/1"):
        B.attribute_errors([[2, 0], [0, 1]], [1, 0], [0])
    with pytest.raises(ValueError, match="attribute_errors.*labels 0 and 1"):
        B.attribute_errors(X, [1, -1], [0])
    with pytest.raises(ValueError, match="attribute_errors.*target"):
        B.attribute_errors(X, [1, 0], [2])
    with pytest.raises(ValueError, match="attribute_errors.*one label per row"):
        B.attribute_errors(X, [1, 0, 1], [0])


def hard_margin(X, y):
    """The best homogeneous margin 1/||w|| of min ||w||^2 s.t. y_t w.x_t >= 1 (SciPy SLSQP)."""
    from scipy.optimize import minimize
    Z = X * y[:, None]
    w0 = np.linalg.lstsq(Z, np.ones(len(y)), rcond=None)[0]
    res = minimize(lambda w: w @ w, w0, jac=lambda w: 2 * w, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda w: Z @ w - 1,
                                 "jac": lambda w: Z}], options={"maxiter": 500, "ftol": 1e-12})
    assert res.success and (Z @ res.x >= 1 - 1e-6).all()
    return 1.0 / np.linalg.norm(res.x)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_best_margin_brackets_the_hard_margin_solution(seed, fmt):
    X, y, u = separable(seed, 120, 4, 0.2)
    gstar = hard_margin(X, y)
    Xf = X if fmt == "dense" else csr_from_dense(X)
    r = B.best_margin(Xf, y, tol=1e-4, max_iter=50_000)
    assert r.separable and r.converged
    assert r.gamma <= gstar * (1 + 1e-6) and gstar <= r.upper * (1 + 1e-6)
    assert r.upper - r.gamma <= 1e-4 * r.upper + 1e-12
    # the margin reported is the margin of the returned u, recomputed independently
    assert math.isclose(r.gamma, float((y * (X @ r.u)).min() / np.linalg.norm(r.u)),
                        rel_tol=1e-9)
    assert math.isclose(np.linalg.norm(r.u), 1.0)


def test_best_margin_known_geometry():
    # points (1, 0) and (0, 1) labelled +1: the best separator is (1, 1)/sqrt 2, margin 1/sqrt 2
    r = B.best_margin([[1.0, 0.0], [0.0, 1.0]], [1, 1], tol=1e-9)
    assert math.isclose(r.gamma, 1 / math.sqrt(2), rel_tol=1e-9)
    np.testing.assert_allclose(r.u, [1 / math.sqrt(2)] * 2, rtol=1e-9)


def test_best_margin_not_separable():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    r = B.best_margin(X, [1, 1, 1])                  # the origin is in the hull of the y x
    assert not r.separable and r.upper <= 1e-9
    r = B.best_margin([[1.0, 2.0], [0.0, 0.0]], [1, -1])  # a zero row has margin 0
    assert not r.separable and r.upper == 0.0 and r.gamma <= 0.0
    Xn, yn, _ = noisy(0, 200, 3, flip=0.2)
    assert not B.best_margin(Xn, yn).separable


def test_best_margin_with_a_gram_matrix_equals_the_linear_one():
    X, y, _ = separable(4, 80, 3, 0.2)
    a = B.best_margin(X, y, tol=1e-6, max_iter=50_000)
    b = B.best_margin(None, y, tol=1e-6, max_iter=50_000, gram=X @ X.T)
    assert b.u is None
    assert math.isclose(a.gamma, b.gamma, rel_tol=1e-5)


def test_best_margin_bad_input():
    with pytest.raises(ValueError, match="best_margin: parameter tol"):
        B.best_margin([[1.0]], [1], tol=0)
    with pytest.raises(ValueError, match="best_margin: parameter max_iter"):
        B.best_margin([[1.0]], [1], max_iter=0)
    with pytest.raises(ValueError, match="best_margin: gram must be"):
        B.best_margin(None, [1, 1], gram=np.ones((2, 3)))
    with pytest.raises(ValueError, match="best_margin: y must hold labels -1 and \\+1"):
        B.best_margin([[1.0], [2.0]], [0, 1])


# -- the new bound functions ----------------------------------------------------------------------

def test_finite_class_and_boolean_bounds_from_their_formulas():
    for size in (1, 2, 3, 4, 1000, 1024, 2 ** 40 + 1):
        assert B.halving_bound(size) == math.floor(math.log2(size))
    assert B.halving_bound(mbcore.ConceptClass.monotone_conjunctions(5)) == 5
    assert B.soa_bound(mbcore.ConceptClass.half_intervals(3)) == 3
    assert B.soa_bound(4) == 4
    assert B.conjunction_bound(7) == 8
    assert B.disjunction_bound(10, 3) == 7 and B.disjunction_bound(10, 3, "all") == 17
    assert B.decision_list_bound(17, 5) == 420            # the MONK-3 example of DecisionList
    assert B.equivalence_query_bound(5) == 6
    # a real bound allows its integer part of mistakes
    assert B.equivalence_query_bound(5.9) == 6 and B.online_to_pac_run_length(10.7, 0.1, 0.05) \
        == B.online_to_pac_run_length(10, 0.1, 0.05)


@pytest.mark.parametrize("B_, eps, delta", [(1, 0.1, 0.1), (10, 0.05, 0.01), (300, 0.2, 0.5)])
def test_conversion_sample_sizes_from_their_formulas(B_, eps, delta):
    s = B.online_to_pac_run_length(B_, eps, delta)
    assert s == max(1, math.ceil(math.log(B_ / delta) / eps))
    assert (1 - eps) ** s <= delta / B_ + 1e-15            # the union-bound step of Thm 4
    assert B.online_to_pac_sample_size(B_, eps, delta) == B_ * s
    for i in (1, 2, 7):
        g = B.eq_test_sample_size(i, eps, delta)
        b = B.eq_test_sample_size(i, eps, delta, "basel")
        assert (1 - eps) ** g <= delta / 2 ** i + 1e-15
        assert (1 - eps) ** b <= 6 * delta / (math.pi ** 2 * i * i) + 1e-15


@pytest.mark.parametrize("call, match", [
    (lambda: B.halving_bound(0), "halving_bound: parameter size"),
    (lambda: B.soa_bound(-1), "soa_bound: parameter concepts"),
    (lambda: B.conjunction_bound(0), "conjunction_bound: parameter n"),
    (lambda: B.disjunction_bound(5, 6), "disjunction_bound: parameter r"),
    (lambda: B.disjunction_bound(5, 1, "some"), "disjunction_bound: parameter literals"),
    (lambda: B.decision_list_bound(2, -1), "decision_list_bound: parameter L"),
    (lambda: B.equivalence_query_bound(-0.5), "equivalence_query_bound: parameter B"),
    (lambda: B.equivalence_query_bound(float("nan")), "equivalence_query_bound: parameter B"),
    (lambda: B.online_to_pac_run_length(0, 0.1, 0.1), "online_to_pac_run_length: parameter B"),
    (lambda: B.online_to_pac_run_length(2, 1.0, 0.1), "parameter epsilon"),
    (lambda: B.online_to_pac_sample_size(2, 0.1, 0.0), "parameter delta"),
    (lambda: B.eq_test_sample_size(0, 0.1, 0.1), "eq_test_sample_size: parameter i"),
    (lambda: B.eq_test_sample_size(1, 0.1, 0.1, "harmonic"), "parameter budget"),
    (lambda: B.winnow_bound(2, 8, attribute_errors=-1), "winnow_bound: parameter attribute"),
])
def test_bound_functions_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("flip", [0.0, 0.05, 0.2])
def test_winnow_agnostic_bound_holds_with_attribute_errors(seed, flip):
    X, y, t = disjunction_stream(seed, 3000, 64, 3, flip=flip)
    a = attribute_errors_loop(X, y, t)
    bound = 2 + 3 * (a + 3 * (1 + math.log2(64)))
    assert B.winnow_bound(3, 64, attribute_errors=a) == pytest.approx(bound)
    assert mbcore.Winnow().partial_fit(X, y).mistakes_ <= bound


# -- certificates: verified bounds hold -----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cls, kw", [(mbcore.Perceptron, {}),
                                     (mbcore.Perceptron, {"tie": "positive", "eta": 0.5}),
                                     (mbcore.AveragedPerceptron, {})])
def test_perceptron_certificate(seed, cls, kw):
    X, y, u = separable(seed, 400, 5, 0.1)
    cert = mbcore.certify(cls(**kw), X, y, passes=3)
    R = float(np.sqrt((X * X).sum(axis=1)).max())
    assert cert.verified and cert.holds
    assert cert.quantities["R"] == pytest.approx(R)
    g = cert.quantities["gamma"]
    assert g >= float((y * (X @ u)).min() / np.linalg.norm(u)) * (1 - 1e-3)  # at least u's
    assert cert.bound == pytest.approx((R / g) ** 2)
    ref = cls(**kw)
    for _ in range(3):
        ref.partial_fit(X, y)
    assert cert.observed == ref.mistakes_
    assert cert.run.n == 1200
    # with the generating u given, its margin is used and checked
    cu = mbcore.certify(cls(**kw), X, y, u=u)
    assert cu.verified and cu.quantities["gamma"] == pytest.approx(
        float((y * (X @ u)).min() / np.linalg.norm(u)))
    assert cu.bound >= cert.bound * (1 - 1e-9)      # the best margin is at least u's


def test_perceptron_certificate_with_intercept_normalize_and_sparse_rows():
    X, y, u = separable(5, 300, 4, 0.15)
    Xs = X + 3.0                                           # needs the intercept now
    u_aug = np.append(u, -3.0 * u.sum())
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), Xs, y, u=u_aug)
    assert cert.verified and cert.holds
    A = np.hstack([Xs, np.ones((300, 1))])
    assert cert.quantities["R"] == pytest.approx(float(np.linalg.norm(A, axis=1).max()))
    c2 = mbcore.certify(mbcore.Perceptron(fit_intercept=True, normalize=True),
                        csr_from_dense(Xs), y)
    assert c2.verified and c2.holds and c2.quantities["R"] == pytest.approx(1.0)
    Z = A / np.linalg.norm(A, axis=1, keepdims=True)
    assert c2.quantities["gamma"] <= B.best_margin(Z, y, tol=1e-6, max_iter=10 ** 5).upper


def test_perceptron_td_bound_on_non_separable_data():
    X, y, _ = noisy(3, 500, 4, flip=0.05)
    u = np.ones(4)
    cert = mbcore.certify(mbcore.Perceptron(normalize=True), X, y, u=u, gamma=0.1)
    Z = X / np.linalg.norm(X, axis=1, keepdims=True)
    td = float(np.maximum(0, 0.1 - y * (Z @ (u / 2))).sum())
    assert cert.quantities["TD_gamma"] == pytest.approx(td)
    assert cert.bound == pytest.approx(1 / 0.01 + 2 * td / 0.1)
    assert cert.holds and cert.verified
    assert float((y * (X @ u)).min()) < 0 and len(cert.alternatives) == 0  # no Novikoff bound


def test_non_separable_data_void_the_perceptron_bound():
    X, y, _ = noisy(1, 300, 3, flip=0.2)
    cert = mbcore.certify(mbcore.Perceptron(), X, y)
    assert cert.bound is None and not cert.verified and cert.holds is None
    assert "separable" in cert.summary()
    cu = mbcore.certify(mbcore.Perceptron(), X, y, u=np.ones(3))
    assert cu.bound is None and any(s == "violated" for _, s in cu.assumptions)


def test_trusted_gamma_is_not_a_proof():
    X, y, _ = noisy(2, 400, 3, flip=0.3)
    cert = mbcore.certify(mbcore.Perceptron(), X, y, gamma=5.0)  # a false claim, on trust
    assert not cert.verified and cert.holds is False       # exceeded, but no error raised
    assert ("some unit u separates the examples with margin gamma (given)", "trusted") in \
        cert.assumptions


@pytest.mark.parametrize("seed", SEEDS)
def test_margin_perceptron_certificate(seed):
    X, y, u = separable(seed, 300, 4, 0.2)
    Z = X / np.linalg.norm(X, axis=1, keepdims=True)
    g = float((y * (Z @ u)).min() / np.linalg.norm(u))
    cert = mbcore.certify(mbcore.MarginPerceptron(gamma=g * 0.9), X, y, passes=2)
    assert cert.counted == "updates" and cert.verified and cert.holds
    assert cert.bound == pytest.approx(12 / (g * 0.9) ** 2)
    too_big = mbcore.certify(mbcore.MarginPerceptron(gamma=min(1.0, 3 * g)), X, y)
    assert too_big.bound is None
    other = mbcore.certify(mbcore.MarginPerceptron(gamma=0.1, margin_fraction=0.3), X, y)
    assert other.bound is None and "margin_fraction" in other.reason


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_kernel_perceptron_certificate(kernel):
    X, y, _ = separable(7, 150, 3, 0.2)
    cert = mbcore.certify(mbcore.KernelPerceptron(kernel=kernel, degree=2), X, y, passes=2)
    assert cert.verified and cert.holds
    if kernel == "rbf":
        assert cert.quantities["R2"] == pytest.approx(1.0)
    if kernel == "linear":
        assert cert.quantities["R2"] == pytest.approx(float((X * X).sum(axis=1).max()))
    assert mbcore.certify(mbcore.KernelPerceptron(budget=5), X, y).bound is None


def test_no_bound_for_the_hinge_loss_svm_and_balanced_winnow():
    X, y, _ = separable(0, 50, 3, 0.2)
    c = mbcore.certify(mbcore.OnlineHingeSVM(), X, y)
    assert c.bound is None and "OnlineHingeSVM" in c.reason and c.holds is None
    Xb, yb, _ = disjunction_stream(0, 50, 8, 2)
    assert mbcore.certify(mbcore.BalancedWinnow(), Xb, yb).bound is None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_winnow_certificates_find_a_consistent_target(seed, fmt):
    X, y, t = disjunction_stream(seed, 2000, 128, 3)
    Xf = X if fmt == "dense" else csr_from_dense(X.astype(float))
    for cls, formula in [(mbcore.Winnow, lambda k, n: 2 + 3 * k * (1 + math.log2(n))),
                         (mbcore.EliminationWinnow, lambda k, n: 2 * k * math.log2(n) + 2),
                         (mbcore.WinnowStar, lambda k, n: 4 + 5 * (1 + math.log2(2 * n)) * k)]:
        cert = mbcore.certify(cls(), Xf, y)
        found = cert.quantities["target"]
        assert cert.verified and cert.holds, cert.summary()
        assert (X[:, found].any(axis=1).astype(int) == y).all()   # really consistent
        assert len(found) <= 3 and cert.quantities["A_c"] == 0
        assert cert.bound == pytest.approx(formula(len(found), 128))


def test_winnow_certificate_with_noise_and_a_given_target():
    X, y, t = disjunction_stream(11, 3000, 64, 4, flip=0.05)
    cert = mbcore.certify(mbcore.Winnow(), X, y, target=t, passes=2)
    a = 2 * attribute_errors_loop(X, y, t)
    assert cert.quantities["A_c"] == a and cert.verified and cert.holds
    assert cert.bound == pytest.approx(2 + 3 * (a + 4 * (1 + math.log2(64))))
    greedy = mbcore.certify(mbcore.Winnow(), X, y)           # its own target, no worse
    assert greedy.verified and greedy.holds
    # Elimination Winnow's bound needs a consistent target: voided by the noise
    e = mbcore.certify(mbcore.EliminationWinnow(), X, y, target=t)
    assert e.bound is None and any(s == "violated" for _, s in e.assumptions)


def test_winnow_certificate_needs_the_defaults_and_boolean_rows():
    X, y, _ = disjunction_stream(0, 200, 16, 2)
    assert mbcore.certify(mbcore.Winnow(alpha=3.0), X, y).bound is None
    assert mbcore.certify(mbcore.Winnow(theta=4.0), X, y).bound is None
    assert mbcore.certify(mbcore.Winnow(beta=0.5), X, y).bound is not None   # = 1/alpha
    real = mbcore.certify(mbcore.Winnow(features="real"), X * 0.5, y)
    assert real.bound is None


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_majority_certificate(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], 500)
    P = np.where(rng.random((500, 40)) < 0.3, -y[:, None], y[:, None])
    P[:, 7] = np.where(rng.random(500) < 0.05, -y, y)        # a good expert
    m = (P != y[:, None]).sum(axis=0)
    for beta in (0.5, 0.3):
        cert = mbcore.certify(mbcore.WeightedMajority(beta=beta), P, y, passes=2)
        best = 2 * int(m.min())
        assert cert.quantities["m_best"] == best and cert.verified and cert.holds
        assert cert.bound == pytest.approx((best * math.log2(1 / beta) + math.log2(40))
                                           / math.log2(2 / (1 + beta)))


def test_weighted_majority_multi_valued_certificate():
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 400)
    P = rng.choice(["a", "b", "c"], (400, 30))
    P[:, 3] = y
    cert = mbcore.certify(mbcore.WeightedMajority(), P, y)
    assert cert.quantities["m_best"] == 0 and cert.verified and cert.holds
    assert cert.bound == pytest.approx(math.log2(30) / math.log2(4 / 3))


def expected_mistakes_loop(P, y, beta):
    """Randomized WM's expected mistakes, round by round with the weights beta^m."""
    m = [0] * P.shape[1]
    total = 0.0
    for t in range(P.shape[0]):
        w = [beta ** mi for mi in m]
        total += sum(wi for wi, p in zip(w, P[t]) if p != y[t]) / sum(w)
        m = [mi + (p != y[t]) for mi, p in zip(m, P[t])]
    return total


def test_randomized_wm_certificate_uses_the_exact_expectation():
    rng = np.random.default_rng(5)
    y = rng.choice([0, 1], 300)
    P = np.where(rng.random((300, 12)) < 0.35, 1 - y[:, None], y[:, None])
    cert = mbcore.certify(mbcore.RandomizedWeightedMajority(random_state=1), P, y)
    want = expected_mistakes_loop(P, y, 0.5)
    assert cert.counted == "expected mistakes"
    assert cert.observed == pytest.approx(want, rel=1e-9)
    assert cert.verified and cert.holds
    # the realized counts of many seeded runs average to that expectation
    runs = [mbcore.RandomizedWeightedMajority(random_state=s).partial_fit(P, y).mistakes_
            for s in range(200)]
    assert abs(np.mean(runs) - want) < 4 * np.std(runs) / math.sqrt(200) + 1e-9


def test_specialists_certificate():
    rng = np.random.default_rng(2)
    n, s = 600, 20
    y = rng.choice([0, 1], n)
    P = np.where(rng.random((n, s)) < 0.4, 1 - y[:, None], y[:, None])
    awake = rng.random((n, s)) < 0.5
    P[:, 0], P[:, 1] = y, y                                  # two perfect specialists ...
    awake[:, 0] = rng.random(n) < 0.5
    awake[:, 1] = ~awake[:, 0]                               # ... one of them always awake
    cert = mbcore.certify(mbcore.Specialists(), P, y, awake=awake)
    assert cert.verified and cert.holds and cert.quantities["r"] == 2
    assert cert.bound == pytest.approx(2 * math.log(20) / math.log(1.5))
    awake[::7, 1] = False                                    # now some rounds have neither
    awake[::7, 0] = False
    bad = mbcore.certify(mbcore.Specialists(), P, y, awake=awake)
    assert bad.bound is None
    assert mbcore.certify(mbcore.Specialists(promote=2.0), P, y, awake=awake).bound is None


def test_boolean_certificates_on_the_bundled_data():
    X, y = load_monks(3, split="test", encoding="boolean")     # noise-free: a decision list
    cert = mbcore.certify(mbcore.DecisionList(), X, y, passes=3)
    assert cert.verified and cert.holds
    assert cert.bound == (4 * X.shape[1] + 2) * (cert.quantities["L"] + 1)
    X1, y1 = load_monks(1, split="test", encoding="boolean")
    c = mbcore.certify(mbcore.Conjunction(), X1, y1)
    assert c.bound is None                                      # MONK-1 is no conjunction
    Xt, yt = load_tictactoe(encoding="boolean")
    d = mbcore.certify(mbcore.Disjunction(), Xt, yt)
    assert d.bound is None or d.holds


@pytest.mark.parametrize("seed", SEEDS)
def test_conjunction_and_disjunction_certificates(seed):
    rng = np.random.default_rng(seed)
    X = (rng.random((800, 12)) < 0.7).astype(np.uint8)
    yc = (X[:, 2] & (1 - X[:, 5]) & X[:, 7]).astype(int)
    cert = mbcore.certify(mbcore.Conjunction(), X, yc, passes=2)
    assert cert.verified and cert.holds and cert.bound == 13
    Xd = (rng.random((800, 12)) < 0.15).astype(np.uint8)
    yd = (Xd[:, 1] | Xd[:, 4]).astype(int)
    for lits, top in (("monotone", 12), ("all", 24)):
        c = mbcore.certify(mbcore.Disjunction(literals=lits), Xd, yd)
        # the literals false on every negative, counted here
        L = Xd if lits == "monotone" else np.hstack([Xd, 1 - Xd])
        r = int((~L[yd == 0].any(axis=0)).sum())
        assert c.quantities["r"] == r and c.bound == top - r and c.verified and c.holds


def test_halving_and_soa_certificates():
    C = mbcore.ConceptClass.monotone_conjunctions(6)
    M = C.matrix()
    rng = np.random.default_rng(0)
    pts = rng.integers(0, C.n_points, 200)
    y = M[17, pts]
    for L, bound in ((mbcore.Halving(C), 6), (mbcore.Halving(C, conservative=True), 6)):
        cert = mbcore.certify(L, pts, y)
        assert cert.verified and cert.holds and cert.bound == bound
        assert cert.quantities["consistent"] == int((M[:, pts] == y).all(axis=1).sum())
    H = mbcore.ConceptClass.half_intervals(4)
    hp = rng.integers(0, H.n_points, 100)
    cert = mbcore.certify(mbcore.SOA(H), hp, H.matrix()[5, hp])
    assert cert.verified and cert.holds and cert.quantities["Ldim"] == 4 and cert.bound == 4
    # a labelling no concept gives
    yy = M[17, pts].copy()
    yy[0] = 1 - yy[0]
    both = np.concatenate([pts, pts[:1]])
    yb = np.concatenate([M[17, pts], 1 - M[17, pts[:1]]])
    assert mbcore.certify(mbcore.Halving(C), both, yb).bound is None


# -- a library bug is reported loudly -------------------------------------------------------------

class Perceptron(mbcore.Perceptron):
    """A broken Perceptron (named like the real one): it records the opposite of every
    prediction, so every example looks like a mistake."""

    def _online(self, X, y, classes=None):
        pred, upd, yy = super()._online(X, y, classes)
        return -yy, upd, yy


def test_a_violated_verified_bound_raises():
    X, y, _ = separable(0, 300, 3, 0.2)
    with pytest.raises(mbcore.BoundViolationError, match="mbcore bug: Perceptron made 3000") as e:
        mbcore.certify(Perceptron(), X, y, passes=10)          # 3,000 > (R/gamma)^2 ~ 1,054
    assert e.value.certificate.verified and not e.value.certificate.holds
    assert isinstance(e.value, AssertionError)


def test_certificate_reports_and_serialises():
    X, y, _ = disjunction_stream(1, 500, 32, 2)
    cert = mbcore.certify(mbcore.Winnow(), X, y)
    d = json.loads(json.dumps(cert.to_dict()))
    assert d["learner"] == "Winnow" and d["holds"] is True and d["n_examples"] == 500
    assert d["observed"] == cert.run.mistakes == mbcore.Winnow().partial_fit(X, y).mistakes_
    text = cert.summary()
    assert "Winnow" in text and "holds" in text and "[verified]" in text
    assert "Certificate(Winnow" in repr(cert)


def test_certify_leaves_the_learner_and_inputs_alone():
    X, y, _ = disjunction_stream(2, 300, 16, 2)
    X0, y0 = X.copy(), y.copy()
    w = mbcore.Winnow().partial_fit(X[:10], y[:10])
    state = w.log2_coef_.copy()
    mbcore.certify(w, X, y)
    assert (w.log2_coef_ == state).all() and w.n_seen_ == 10
    assert (X == X0).all() and (y == y0).all()


def test_certify_bad_input():
    X, y, _ = disjunction_stream(2, 30, 8, 2)
    with pytest.raises(ValueError, match="certify: parameter passes"):
        mbcore.certify(mbcore.Winnow(), X, y, passes=0)
    with pytest.raises(ValueError, match="Winnow"):
        mbcore.certify(mbcore.Winnow(), X, y[:-1])
    with pytest.raises(ValueError, match="certify: parameter gamma"):
        mbcore.certify(mbcore.Perceptron(), X.astype(float), y, gamma=-1.0)


def test_certificate_doctest_data_mushrooms():
    X, y = load_mushrooms(encoding="boolean")
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y)
    assert cert.verified and cert.holds


def test_conservative_wrapper_keeps_the_bound_of_the_wrapped_learner():
    """Kanade Prop. 3: the certificate of Conservative(A) is A's bound, checked against the
    wrapper's own mistakes (which differ from A's when A is not conservative)."""
    rng = np.random.default_rng(8)
    y = rng.choice([-1, 1], 600)
    P = np.where(rng.random((600, 25)) < 0.4, -y[:, None], y[:, None])
    P[:, 4] = y
    plain = mbcore.certify(mbcore.WeightedMajority(), P, y)
    wrapped = mbcore.certify(mbcore.Conservative(mbcore.WeightedMajority()), P, y)
    assert wrapped.learner == "Conservative" and wrapped.verified and wrapped.holds
    assert wrapped.bound == plain.bound
    assert wrapped.observed == mbcore.Conservative(mbcore.WeightedMajority()).partial_fit(
        P, y).mistakes_
    X, yb, t = disjunction_stream(3, 2000, 64, 3)
    w = mbcore.certify(mbcore.Conservative(mbcore.Winnow()), X, yb, passes=2)
    k = w.quantities["k"]
    assert w.verified and w.holds and k <= 3
    assert w.bound == pytest.approx(2 + 3 * k * (1 + 6))      # n = 64
    Xs, ys, _ = separable(1, 300, 4, 0.2)
    c = mbcore.certify(mbcore.Conservative(mbcore.MarginPerceptron(gamma=0.1)), Xs, ys)
    assert c.counted == "updates" and c.verified and c.holds


def test_certificate_of_a_learner_on_packed_rows_equals_the_unpacked_one():
    rng = np.random.default_rng(0)
    X = (rng.random((300, 12)) < 0.7).astype(np.uint8)
    y = (X[:, 2] & X[:, 7]).astype(int)
    a = mbcore.certify(mbcore.Conjunction(), X, y)
    b = mbcore.certify(mbcore.Conjunction(packed=True, n_features=12), np.packbits(X, axis=1), y)
    assert b.verified and (a.bound, a.observed) == (b.bound, b.observed) == (13, a.run.mistakes)


# -- the decision-list certificate when no 1-decision list is consistent -------------------------

def greedy_list_loop(X, y):
    """Angluin lecture 7's greedy construction, one literal at a time (x0, ~x0, x1, ~x1, ...):
    (rules built, examples left uncovered, complete)."""
    rem, rules = list(range(len(y))), 0
    while len({y[t] for t in rem}) > 1:
        for j in range(2 * len(X[0])):
            i, value = j // 2, 1 - j % 2                     # x_i is true at 1, ~x_i at 0
            fire = [t for t in rem if X[t][i] == value]
            if fire and len({y[t] for t in fire}) == 1:
                break
        else:
            return rules, len(rem), False
        rem = [t for t in rem if X[t][i] != value]
        rules += 1
    return rules, len(rem), True


def test_decision_list_certificate_when_the_greedy_construction_gets_stuck():
    # x2 -> 1 is the one rule the greedy construction can build; the four rows left are
    # labelled x0 XOR x1, where no literal is true on examples of one label only
    X = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 1]])
    y = np.array([0, 1, 1, 0, 1])
    cert = mbcore.certify(mbcore.DecisionList(), X, y)
    assert cert.bound is None and cert.holds is None and cert.alternatives == []
    assert cert.quantities == {"n": 3, "rules_built": 1, "uncovered": 4}
    assert cert.reason.endswith("stopped after 1 rule, 4 examples left uncovered")
    assert [s for _, s in cert.assumptions] == ["violated"]
    assert "length" not in cert.summary()               # no list of length 2 claimed


@pytest.mark.parametrize("seed", range(8))
def test_decision_list_certificate_reports_how_far_the_construction_got(seed):
    rng = np.random.default_rng(seed)
    X = (rng.random((60, 6)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(int)                     # XOR: stuck somewhere
    if seed % 2:
        y = np.where(X[:, 3] == 1, 1, np.where(X[:, 4] == 0, 0, X[:, 5]))   # a decision list
    built, left, complete = greedy_list_loop(X.tolist(), y.tolist())
    cert = mbcore.certify(mbcore.DecisionList(), X, y, passes=2)
    if complete:
        assert cert.verified and cert.holds and cert.quantities["L"] == built + 1
        assert cert.bound == (4 * 6 + 2) * (built + 2)
    else:
        assert cert.bound is None and left > 0
        assert (cert.quantities["rules_built"], cert.quantities["uncovered"]) == (built, left)
        assert f"{left} examples left uncovered" in cert.reason


# -- X as the learner reads it: lists of active indices -------------------------------------------

def test_is_index_lists_has_the_winnow_meaning():
    from mbcore._validation import is_index_lists
    for X in ([[0, 1], [1, 2]], [[0, 1], [1, 0]], [[]], ([3],), [[np.int64(2)], [0, 5]]):
        assert is_index_lists(X)
    for X in ([], [[True, 1]], [[0.0, 1]], np.array([[0, 1]]), [np.array([0, 1])], [0, 1],
              [[0, 1], 2]):
        assert not is_index_lists(X)


def test_certify_reads_index_lists_as_the_winnow_learner_does():
    X, y = [[0, 1], [1, 2]], [1, 0]
    # with n_features set, the rows {0, 1} and {1, 2} of 3 variables: x0 alone labels them
    learner = mbcore.EliminationWinnow(n_features=3).partial_fit(X, y)
    cert = mbcore.certify(mbcore.EliminationWinnow(n_features=3), X, y)
    assert cert.quantities["n"] == learner.n_features_in_ == 3
    assert cert.quantities["target"] == [0] and cert.verified and cert.holds
    assert cert.observed == learner.mistakes_
    # without it, a dense 2 x 2 matrix whose 2 is not Boolean: both refuse it alike
    with pytest.raises(ValueError) as by_learner:
        mbcore.EliminationWinnow().partial_fit(X, y)
    with pytest.raises(ValueError) as by_certify:
        mbcore.certify(mbcore.EliminationWinnow(), X, y)
    assert str(by_certify.value) == str(by_learner.value)
    # [[0, 1], [1, 0]]: two dense rows, or, with n_features=2, the row {0, 1} twice, here
    # labelled 1 and 0: then no disjunction labels both, and certify must not say otherwise
    X2 = [[0, 1], [1, 0]]
    dense = mbcore.certify(mbcore.EliminationWinnow(), X2, y)
    assert dense.verified and dense.quantities["target"] == [1]
    twice = mbcore.certify(mbcore.EliminationWinnow(n_features=2), X2, y)
    assert twice.bound is None and ("the monotone disjunction of the 0 variables (found "
                                    "greedily) labels every example", "violated") in \
        twice.assumptions
    # Winnow with K = 3 classes reads them alike (its multi-class bound needs the matrix)
    X3, y3 = [[0], [1], [2], [0, 3]], [0, 1, 2, 0]
    k3 = mbcore.certify(mbcore.Winnow(n_features=4, alpha=1.25), X3, y3)
    assert k3.quantities["n"] == 4 and k3.bound is not None and k3.verified
