"""The margin search of ``certify``: where the data are separable, a positive margin is found.

``certify`` brackets the best margin through the origin of the rows as the learner sees them
(intercept appended, unit length for a normalising learner): Frank-Wolfe
(``mbcore.bounds.best_margin``), then, where it stopped before its bracket closed, an LP
solved by SciPy's HiGHS, or without SciPy a Perceptron run until its own bound says it must
have converged (on every seed, whichever way Frank-Wolfe's floating-point race went, and with
every OpenBLAS kernel the CPU runs).  Checked here,
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


def _verdict_without_scipy(seed, request, max_iter=2000):
    """certify on shifted(seed) without SciPy, checked against what is computed here: the best
    margin's ceiling (the dual of the hard-margin problem, computed before SciPy goes) and the
    generator's separator."""
    X, y, u = shifted(seed)
    A = with_intercept(X)
    ceiling = margin_ceiling(A, y)
    R = float(np.linalg.norm(A, axis=1).max())
    request.getfixturevalue("no_scipy")
    for Xf in (X, csr_from_dense(X)):
        cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), Xf, y, max_iter=max_iter)
        g, upper = cert.quantities["gamma"], cert.quantities["gamma_upper"]
        assert cert.bound is not None and cert.verified and cert.holds, cert.summary()
        assert 0.0 < g <= upper
        assert g <= ceiling * (1 + 1e-9)                         # never above the best margin
        assert upper >= margin_of(A, y, u) * (1 - 1e-9)
        assert cert.bound == pytest.approx((R / g) ** 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_without_scipy_the_search_reaches_its_verdict(seed, request):
    """Separable data (margin >= 1e-3 about the generator's separator), no SciPy: a verified
    bound on every seed.  Where Frank-Wolfe stops with a positive lower end and where it stops
    with a negative one is a floating-point race (its iterates depend on the BLAS's rounding:
    which seeds take the Perceptron fallback differs between OpenBLAS's kernels); the
    Perceptron, run until its own bound says it must have converged, decides either way."""
    _verdict_without_scipy(seed, request)


@pytest.mark.parametrize("seed", SEEDS)
def test_without_scipy_the_verdict_does_not_hang_on_frank_wolfe(seed, request, monkeypatch):
    """The same verdict when Frank-Wolfe stops after five steps, far from its bracket's
    closing (as a slower BLAS path would leave it): the fallback takes over."""
    fw = margins.best_margin

    def early(X, y, tol=1e-3, max_iter=10_000, gram=None):
        return fw(X, y, tol=tol, max_iter=min(max_iter, 5), gram=gram)

    monkeypatch.setattr(margins, "best_margin", early)
    _verdict_without_scipy(seed, request)


def test_the_perceptron_certifies_a_ceiling_on_the_best_margin():
    """After M updates the fallback's weights certify gamma* <= ||w||/M (each update adds at
    least gamma* along the best unit separator): stopped at any number of updates, that
    ceiling is at least the margin of the generator's separator, and at most R / sqrt(M); on
    data that are not separable it falls below any floor."""
    from mbcore._rows import check_rows
    X, y, u = shifted(4)
    A = with_intercept(X)
    Z = A * y[:, None]
    R = float(np.linalg.norm(A, axis=1).max())
    for cap in (1, 10, 100, 1000, 10_000):
        run = margins._cycle(check_rows("test", Z), max_updates=cap)
        M = run.updates
        assert margin_of(A, y, u) * (1 - 1e-9) <= run.ceiling <= R / np.sqrt(M) * (1 + 1e-9)
        assert run.clean or M == cap
    # on data that are not separable the ceiling falls to any floor, and the run says so
    X, y, _ = noisy(0, 200, 3, flip=0.1)
    run = margins._cycle(check_rows("test", with_intercept(X) * y[:, None]), floor=1e-4)
    assert not run.clean and run.ceiling <= 1e-4 and "prove the best margin <=" in run.reason


def test_without_scipy_the_fallback_says_why_it_stopped(request):
    """On data that are not separable the fallback stops without a separator and says why:
    its cap, or its certificate that the best margin is below tol times the upper end."""
    X, y, _ = noisy(0, 200, 3, flip=0.1)
    request.getfixturevalue("no_scipy")
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=30)
    text, status = cert.assumptions[-1]
    assert cert.bound is None and status == "unverified"
    assert "the Perceptron fallback stopped after" in text
    assert "the cap of max_iter x n_samples = 6000 updates" in text
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, max_iter=30, tol=0.5)
    assert cert.bound is None
    assert ("its bound (R/gamma)^2 says it would have converged after 4 = 1/tol^2 updates"
            in cert.assumptions[-1][0])


# OpenBLAS's kernels and the CPU flag each needs (a kernel the CPU lacks would stop Python)
_CORETYPES = {"Haswell": "avx2", "SkylakeX": "avx512f", "Sandybridge": "avx"}


def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return set(next((ln for ln in f if ln.startswith("flags")), "").split())
    except OSError:
        return set()


@pytest.mark.parametrize("coretype", sorted(_CORETYPES))
def test_the_verdict_is_the_same_with_every_blas_kernel(coretype):
    """The same verdicts, without SciPy, when OpenBLAS runs another kernel
    (OPENBLAS_CORETYPE, in a fresh interpreter): a bound on every seed."""
    import os
    import subprocess
    if _CORETYPES[coretype] not in _cpu_flags():
        pytest.skip(f"this CPU cannot run OpenBLAS's {coretype} kernel")
    here = os.path.dirname(os.path.abspath(__file__))
    script = (
        "import sys\n"
        "for m in ('scipy', 'scipy.optimize', 'scipy.sparse'):\n"
        "    sys.modules[m] = None\n"
        "import numpy as np, mbcore\n"
        "from conftest import separable\n"
        "for seed in range(6):\n"
        "    X, y, u = separable(seed, 150, 4, 1e-3)\n"
        "    c = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X + 2.0, y, max_iter=2000)\n"
        "    print(seed, c.bound is not None and c.verified and c.holds)\n")
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype,
               PYTHONPATH=os.pathsep.join([here] + sys.path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=here, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == [w for seed in SEEDS for w in (str(seed), "True")]


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
