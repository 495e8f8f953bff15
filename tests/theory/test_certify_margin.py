"""The margin search of ``certify``: where the data are separable, a positive margin is found.

``certify`` brackets the best margin through the origin of the rows as the learner sees them
(intercept appended, unit length for a normalising learner): Frank-Wolfe
(``mbcore.bounds.best_margin``), then, where it stopped before its bracket closed, an LP
solved by SciPy's HiGHS, or without SciPy a Perceptron cycled to a clean pass.  Checked here,
independently of ``mbcore.bounds`` where it matters: on separable sets with small margins
(dense and CSR, with and without an intercept, binary and one-vs-rest) a margin is found and
is at most the best margin (a ceiling from the dual of the hard-margin problem) and at most the
bracket's upper end, which is at least the margin of the separator that generated the data; on
data that are not separable no margin is claimed; a separator the LP proposes is checked, never
trusted; and a one-hot Boolean set separable only with an intercept, on which Frank-Wolfe alone
stops with a negative lower end, gets its bound.
"""

import contextlib
import sys

import numpy as np
import pytest

import mbcore
from mbcore import bounds as B, margins
from mbcore.certificates import additive
from conftest import csr_from_dense, noisy, separable, unit

SEEDS = range(6)


def with_intercept(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def shifted(seed, n=150, d=4, gamma=1e-3, shift=2.0):
    """Rows with margin >= gamma about a unit u, moved by ``shift`` along every axis: the
    separator then needs an intercept (returned with it as its last entry)."""
    X, y, u = separable(seed, n, d, gamma)
    return X + shift, y, np.append(u, -shift * u.sum())


def margin_of(A, y, u):
    return float((y * (A @ u)).min() / np.linalg.norm(u))


def margin_ceiling(A, y, iterations=300):
    """An upper bound on the best margin through the origin of the rows of A: for any
    alpha >= 0, D(alpha) = sum(alpha) - |sum_t alpha_t y_t x_t|^2 / 2 is at most
    1 / (2 gamma*^2) (weak duality of the hard-margin problem min |w|^2 / 2 s.t.
    y_t w . x_t >= 1), so gamma* <= 1 / sqrt(2 D(alpha)), wherever L-BFGS-B stops.  (On one
    BLAS thread, products written out: threads on such small matrices are slow on a busy
    machine.)"""
    from scipy.optimize import minimize
    try:
        from threadpoolctl import threadpool_limits      # (a dependency of scikit-learn)
    except ImportError:
        threadpool_limits = contextlib.nullcontext
    Z = A * y[:, None]
    G = (Z[:, None, :] * Z[None, :, :]).sum(axis=2)

    def dual(a):                                    # -D(alpha) and its gradient
        Ga = (G * a).sum(axis=1)
        return 0.5 * float((a * Ga).sum()) - a.sum(), Ga - 1.0

    with threadpool_limits(1):
        res = minimize(dual, np.zeros(len(y)), jac=True, method="L-BFGS-B",
                       bounds=[(0.0, None)] * len(y), options={"maxiter": iterations})
    a = np.maximum(res.x, 0.0)
    D = a.sum() - 0.5 * float(((Z * a[:, None]).sum(axis=0) ** 2).sum())
    return 1.0 / np.sqrt(2.0 * D) if D > 0 else np.inf


@pytest.fixture
def no_scipy(monkeypatch):
    """SciPy looks absent: importing it (or its modules the search uses) raises ImportError."""
    for name in ("scipy", "scipy.optimize", "scipy.sparse"):
        monkeypatch.setitem(sys.modules, name, None)
    assert margins._scipy() is None


def searched(cert):
    """The text of the assumption the margin search set."""
    return [text for text, _ in cert.assumptions if "margin gamma" in text][0]


def one_hot_threshold(seed, n, m, theta=2.5):
    """n one-hot rows of m positions with four values each, coded on three indicators (the
    fourth value is all zero, so rows differ in length); the label is whether an integer
    weighting of the indicators exceeds theta.  The first row has every position at its
    fourth value: the zero row, which no hyperplane through the origin separates, so the set is
    separable only with an intercept."""
    rng = np.random.default_rng(seed)
    W = rng.integers(-3, 4, size=(m, 3))
    X = np.zeros((n, m, 3), dtype=np.uint8)
    V = rng.integers(0, 4, size=(n, m))
    V[0] = 3
    rows, cols = np.nonzero(V < 3)
    X[rows, cols, V[rows, cols]] = 1
    y = np.where((X * W).sum(axis=(1, 2)) > theta, 1, -1)
    return X.reshape(n, 3 * m), y


# -- binary: a margin where there is one ----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("intercept", [True, False])
def test_a_positive_margin_is_found_on_separable_data(seed, intercept):
    if intercept:
        X, y, u = shifted(seed)
        A = with_intercept(X)
    else:
        X, y, u = separable(seed, 150, 4, 1e-3)
        A = X
    ceiling = margin_ceiling(A, y)
    R = float(np.linalg.norm(A, axis=1).max())
    for Xf in (X, csr_from_dense(X)):
        # the default search, and one whose Frank-Wolfe stops early (the LP takes over)
        for max_iter in (10_000, 30):
            cert = mbcore.certify(mbcore.Perceptron(fit_intercept=intercept), Xf, y,
                                  max_iter=max_iter)
            g, upper = cert.quantities["gamma"], cert.quantities["gamma_upper"]
            assert cert.verified and cert.holds and cert.bound is not None
            assert 0.0 < g <= upper
            assert g <= ceiling * (1 + 1e-9)                     # never above the best margin
            assert upper >= margin_of(A, y, u) * (1 - 1e-9)      # the upper end is one
            assert cert.bound == pytest.approx((R / g) ** 2)
            if max_iter == 30:
                assert "found by an LP solved by SciPy's HiGHS" in searched(cert)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_margin_perceptron_search_on_unit_length_rows(seed):
    X, y, u = shifted(seed)
    A = with_intercept(X)
    Z = A / np.linalg.norm(A, axis=1, keepdims=True)
    probe = mbcore.certify(mbcore.MarginPerceptron(gamma=1.0, fit_intercept=True), X, y,
                           max_iter=30)
    g, upper = probe.quantities["data margin"], probe.quantities["data margin upper"]
    assert 0.0 < g <= upper and g <= margin_ceiling(Z, y) * (1 + 1e-9)
    assert upper >= margin_of(Z, y, u) * (1 - 1e-9)
    assert probe.bound is None                      # gamma = 1 is above any margin found
    cert = mbcore.certify(mbcore.MarginPerceptron(gamma=g / 2, fit_intercept=True), X, y,
                          max_iter=30)
    assert cert.verified and cert.holds and cert.bound == pytest.approx(12 / (g / 2) ** 2)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("intercept", [True, False])
def test_no_margin_is_claimed_on_data_that_are_not_separable(seed, intercept, request):
    X, y, _ = noisy(seed, 200, 3, flip=0.1)
    for Xf in (X, csr_from_dense(X)):
        for max_iter in (10_000, 30):
            cert = mbcore.certify(mbcore.Perceptron(fit_intercept=intercept), Xf, y,
                                  max_iter=max_iter)
            assert cert.bound is None and not cert.verified
            assert cert.quantities["gamma"] <= 0.0 <= cert.quantities["gamma_upper"]
    request.getfixturevalue("no_scipy")                         # the fallback: no margin either
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=intercept), X, y, max_iter=30)
    assert cert.bound is None and cert.quantities["gamma"] <= 0.0


def test_a_separator_from_the_lp_is_checked_not_trusted(monkeypatch):
    X, y, _ = shifted(0)
    assert not B.best_margin(with_intercept(X), y, max_iter=30).separable

    def wrong(Z, linprog, sparse):                  # a "solution" that separates nothing
        return -np.ones(Z.shape[1]), None

    monkeypatch.setattr(margins, "_lp_direction", wrong)
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=30)
    assert cert.quantities["gamma"] < 0.0 and cert.bound is None
    assert ("the examples are linearly separable" in cert.assumptions[-1][0]
            and cert.assumptions[-1][1] == "unverified")


def test_without_scipy_a_perceptron_finds_the_margin(no_scipy):
    """Where Frank-Wolfe alone stops with a negative margin (on some of these seeds: which
    ones depends on the BLAS's rounding), a Perceptron run to a clean pass finds a separator."""
    found = 0
    for seed in SEEDS:
        X, y, u = shifted(seed)
        A = with_intercept(X)
        alone = B.best_margin(A, y, max_iter=2000).gamma
        cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=2000)
        g, upper = cert.quantities["gamma"], cert.quantities["gamma_upper"]
        assert g <= upper and upper >= margin_of(A, y, u) * (1 - 1e-9)
        if cert.bound is not None:
            assert cert.verified and 0.0 < g
            if alone <= 0.0:
                assert "a Perceptron run to a clean pass" in searched(cert)
                found += 1
    assert found >= 2


# -- one-vs-rest and the multi-class searches -----------------------------------------------------

def ovr_separable(seed, n=240, d=3, K=3, gamma=1e-3):
    """Points labelled by K affine separators (u_k, b_k), u_k pointing around a circle, b_k = -1:
    kept when exactly one is positive (its class) and every one is at least gamma away in the
    intercept-augmented, unit-length sense, so every class is separated from the rest by its
    own (u_k, b_k) with margin >= gamma, and that separator needs its intercept."""
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * (np.arange(K) + rng.uniform(-0.1, 0.1, size=K)) / K
    U = np.array([unit(np.concatenate([[np.cos(a), np.sin(a)], 0.2 * rng.normal(size=d - 2),
                                       [-1.0]])) for a in angles])
    rows, labels = [], []
    while len(rows) < n:
        x = rng.uniform(-3.0, 3.0, size=d)
        s = U @ np.append(x, 1.0) / np.linalg.norm(np.append(x, 1.0))
        if (s > 0).sum() == 1 and np.abs(s).min() >= gamma:
            rows.append(x)
            labels.append(int(np.argmax(s)))
    return np.array(rows), np.array(labels), U


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_one_vs_rest_finds_every_class_margin(seed):
    X, y, U = ovr_separable(seed)
    A = with_intercept(X)
    for Xf in (X, csr_from_dense(X)):
        for max_iter in (10_000, 30):
            cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True, multi_class="ovr"), Xf,
                                  y, max_iter=max_iter)
            assert cert.verified and cert.holds and cert.bound is not None
            for k, (g, upper) in enumerate(zip(cert.quantities["gamma"],
                                               cert.quantities["gamma_upper"])):
                yk = np.where(y == k, 1, -1)
                assert 0.0 < g <= upper and g <= margin_ceiling(A, yk) * (1 + 1e-9)
                assert upper >= margin_of(A, yk, U[k]) * (1 - 1e-9)
        stacked = mbcore.certify(mbcore.Perceptron(fit_intercept=True), Xf, y)
        assert stacked.verified and stacked.holds and stacked.quantities["gamma"] > 0


def test_the_kesler_lp_finds_a_multiclass_margin(monkeypatch):
    # three classes along a line: the middle one is not separable from the rest (one-vs-rest
    # fails), but the three are separable together (with an intercept)
    rng = np.random.default_rng(0)
    t = rng.uniform(-3.0, 3.0, size=400)
    t = t[np.abs(np.abs(t) - 1.0) > 0.01][:300]
    X = np.column_stack([t, 0.01 * rng.normal(size=t.size)])
    y = np.where(t < -1.0, 0, np.where(t > 1.0, 2, 1))
    # no fitted learner, and a Kesler Frank-Wolfe stopped early: only the LP is left
    monkeypatch.setattr(additive, "_fitted_matrix", lambda ctx, sep: None)
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=5)
    assert cert.verified and cert.holds and cert.quantities["gamma"] > 0
    assert "an LP on the Kesler vectors" in cert.assumptions[-1][0]
    full = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=10 ** 5)
    assert cert.quantities["gamma"] <= full.quantities["gamma_upper"] * (1 + 1e-9)
    ovr = mbcore.certify(mbcore.Perceptron(fit_intercept=True, multi_class="ovr"), X, y)
    assert ovr.bound is None                        # class 1 against the rest: no margin


# -- the failing case: one-hot rows separable only with an intercept ------------------------------

def test_one_hot_rows_separable_only_with_an_intercept(request):
    X, y = one_hot_threshold(3, 3186, 60)          # 3,186 rows of 180 one-hot features
    Xs = csr_from_dense(X)
    A = with_intercept(X.astype(float))
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), Xs, y)
    g, upper = cert.quantities["gamma"], cert.quantities["gamma_upper"]
    assert cert.verified and cert.holds and 0.0 < g <= upper
    assert "found by an LP solved by SciPy's HiGHS" in searched(cert)
    R = float(np.linalg.norm(A, axis=1).max())
    assert cert.bound == pytest.approx((R / g) ** 2)
    # without the intercept the zero row has margin 0: no separator, and certify says so
    plain = mbcore.certify(mbcore.Perceptron(), Xs, y)
    assert plain.bound is None and plain.quantities["gamma_upper"] == 0.0
    assert plain.assumptions[-1][1] == "violated"
    # without SciPy the Perceptron fallback finds a (smaller) margin
    request.getfixturevalue("no_scipy")
    fallback = mbcore.certify(mbcore.Perceptron(fit_intercept=True), Xs, y)
    assert fallback.verified and fallback.holds
    assert 0.0 < fallback.quantities["gamma"] <= upper
    assert "a Perceptron run to a clean pass" in searched(fallback)
