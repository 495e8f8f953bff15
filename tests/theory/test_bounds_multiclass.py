"""Multi-class mistake bounds: the functions of ``mbcore.bounds`` checked against their formulas
and hand-computed cases, then the theorems on generated streams (the observed count never
exceeds the bound), and ``certify`` on multi-class data.

The data quantities of the property tests (R, the multi-class margin of the generating U, the
margins of the one-vs-rest separators) are computed here with NumPy from the generated data and
the known separators, independently of the library.
"""

import math

import numpy as np
import pytest

import mbcore
from mbcore import bounds as B
from conftest import csr_from_dense

SQRT2 = math.sqrt(2.0)


# -- the bound functions, from their formulas -----------------------------------------------------

def test_multiclass_perceptron_bound_by_hand():
    assert B.multiclass_perceptron_bound(1.0, 0.5) == 8.0            # 2 * 1 / 0.25
    assert B.multiclass_perceptron_bound(3, 0.6) == pytest.approx(50.0)   # 2 * 9 / 0.36
    assert B.multiclass_perceptron_bound(0.0, 0.1) == 0.0
    assert B.multiclass_perceptron_bound(2.0, 4.0) == 0.5
    # Kesler: the binary bound with radius sqrt(2) R
    for R, g in ((1.0, 0.3), (7.5, 0.02), (0.4, 2.0)):
        assert B.multiclass_perceptron_bound(R, g) == pytest.approx(
            B.perceptron_bound(SQRT2 * R, g))


def test_multiclass_margin_perceptron_bound_by_hand():
    assert B.multiclass_margin_perceptron_bound(0.5) == 96.0          # 24 / 0.25
    assert B.multiclass_margin_perceptron_bound(1) == 24.0
    assert B.multiclass_margin_perceptron_bound(0.2) == pytest.approx(600.0)
    assert B.multiclass_margin_perceptron_bound(SQRT2) == pytest.approx(12.0)
    # Kesler: Balcan's 12/gamma'^2 at gamma' = gamma / sqrt(2)
    for g in (0.05, 0.3, 1.2):
        assert B.multiclass_margin_perceptron_bound(g) == pytest.approx(
            B.margin_perceptron_bound(g / SQRT2))


def test_ovr_bound_by_hand():
    assert B.ovr_bound([4.0, 9.0, 2.25]) == 15.25
    assert B.ovr_bound([0, 0, 0]) == 0.0
    assert B.ovr_bound(np.array([1.0, 2.0, 3.0, 4.0])) == 10.0
    assert B.ovr_bound(b for b in (1, 2)) == 3.0                        # any iterable
    assert B.ovr_bound([3.0, math.inf, 1.0]) == math.inf
    assert B.ovr_bound([np.float64(np.inf)]) == math.inf
    assert B.ovr_bound([B.perceptron_bound(2.0, 1.0)] * 3) == 12.0


@pytest.mark.parametrize("call, match", [
    (lambda: B.multiclass_perceptron_bound(1.0, 0.0),
     "multiclass_perceptron_bound: parameter gamma must be > 0, got 0.0"),
    (lambda: B.multiclass_perceptron_bound(1.0, -0.5), "parameter gamma must be > 0"),
    (lambda: B.multiclass_perceptron_bound(-1.0, 0.5),
     "multiclass_perceptron_bound: parameter R must be >= 0, got -1.0"),
    (lambda: B.multiclass_perceptron_bound(float("nan"), 0.5), "parameter R must be a finite"),
    (lambda: B.multiclass_perceptron_bound(1.0, math.inf), "parameter gamma must be a finite"),
    (lambda: B.multiclass_perceptron_bound(1.0, True), "parameter gamma must be a finite"),
    (lambda: B.multiclass_perceptron_bound("1", 0.5), "parameter R must be a finite"),
    (lambda: B.multiclass_margin_perceptron_bound(0.0),
     "multiclass_margin_perceptron_bound: parameter gamma must be > 0"),
    (lambda: B.multiclass_margin_perceptron_bound(1.5),
     r"multiclass_margin_perceptron_bound: parameter gamma must be in \(0, sqrt\(2\)\]"),
    (lambda: B.multiclass_margin_perceptron_bound(float("nan")), "must be a finite"),
    (lambda: B.ovr_bound([]), "ovr_bound: parameter bounds must hold at least one bound"),
    (lambda: B.ovr_bound([1.0, -2.0]), r"ovr_bound: parameter bounds\[1\] must be >= 0"),
    (lambda: B.ovr_bound([float("nan")]), r"ovr_bound: parameter bounds\[0\] must be a finite"),
    (lambda: B.ovr_bound([-math.inf]), r"parameter bounds\[0\] must be a finite"),
    (lambda: B.ovr_bound([True, 1.0]), r"parameter bounds\[0\] must be a finite"),
    (lambda: B.ovr_bound(["3"]), r"parameter bounds\[0\] must be a finite"),
    (lambda: B.ovr_bound(3.0), "ovr_bound: parameter bounds must be an iterable"),
    (lambda: B.ovr_bound("12"), "ovr_bound: parameter bounds must be an iterable"),
])
def test_multiclass_bound_functions_reject_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- multiclass_margin ----------------------------------------------------------------------------

X3 = np.array([[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
U3 = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])        # ||U||_F^2 = 1 + 1 + 2 = 4


def test_multiclass_margin_by_hand():
    # scores U x per row: (2, 0, -2), (0, 1, -1), (-1, -1, 2)
    # own minus best other: 2 - 0, 1 - 0, 2 - (-1); min 1, divided by ||U||_F = 2
    assert B.multiclass_margin(X3, ["a", "b", "c"], U3) == 0.5
    assert B.multiclass_margin(X3, [0, 1, 2], 3.0 * U3) == 0.5          # scale-free in U
    # a wrong labelling: row 1 as "b": 0 - 2; row 2 as "a": 0 - 1; row 3: 3 -> min -2, / 2
    assert B.multiclass_margin(X3, ["b", "a", "c"], U3) == -1.0
    # a fourth class without rows still competes and counts in the norm:
    # u_3 = (0, 0.5) scores (0, 0.5, -0.5): margins 2 - 0, 1 - 0.5, 2 - (-0.5) -> 0.5
    U4 = np.vstack([U3, [0.0, 0.5]])
    assert B.multiclass_margin(X3, [0, 1, 2], U4, classes=[0, 1, 2, 3]) == pytest.approx(
        0.5 / math.sqrt(4.25))
    # a tie with another class is margin 0
    assert B.multiclass_margin([[1.0, 1.0]], [0], [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]],
                               classes=[0, 1, 2]) == 0.0
    # CSR rows give the same
    assert B.multiclass_margin(csr_from_dense(X3), [0, 1, 2], U3) == 0.5
    assert B.multiclass_margin(csr_from_dense(X3), [0, 1, 2], U4, classes=[0, 1, 2, 3]) == \
        pytest.approx(0.5 / math.sqrt(4.25))


@pytest.mark.parametrize("seed", range(5))
def test_multiclass_margin_is_the_margin_of_the_kesler_vectors(seed):
    """min over rows and other classes k of U . (e_y - e_k)(x)x / ||U||_F, written out."""
    rng = np.random.default_rng(seed)
    K, d, n = 4, 3, 25
    X = rng.normal(size=(n, d))
    X[3] = 0.0                                                     # an empty row too
    y = rng.integers(0, K, size=n)
    U = rng.normal(size=(K, d))
    want = math.inf
    for t in range(n):
        for k in range(K):
            if k != y[t]:
                Z = np.zeros((K, d))
                Z[y[t]] += X[t]
                Z[k] -= X[t]
                want = min(want, float((U * Z).sum()) / float(np.linalg.norm(U)))
    got = B.multiclass_margin(X, y, U, classes=np.arange(K))
    assert got == pytest.approx(want, abs=1e-12)
    assert B.multiclass_margin(csr_from_dense(X), y, U, classes=np.arange(K)) == \
        pytest.approx(want, abs=1e-12)
    # labels by argmax of U x: a positive margin exactly when no row ties
    lab = np.argmax(X @ U.T, axis=1)
    keep = np.ones(n, dtype=bool)
    keep[3] = False
    assert B.multiclass_margin(X[keep], lab[keep], U, classes=np.arange(K)) > 0


@pytest.mark.parametrize("call, match", [
    (lambda: B.multiclass_margin(X3, [0, 1, 2], U3[:2]),
     r"multiclass_margin: U must have shape \(3, 2\)"),
    (lambda: B.multiclass_margin(X3, [0, 1, 2], U3[:, :1]), r"U must have shape \(3, 2\)"),
    (lambda: B.multiclass_margin(X3, [0, 1, 2], np.zeros((3, 2))),
     "multiclass_margin: U is the zero matrix"),
    (lambda: B.multiclass_margin(X3, [0, 1, 2], U3 * np.nan), "U contains NaN or infinity"),
    (lambda: B.multiclass_margin(X3, [0, 1, 2], U3, classes=[2, 1, 0]),
     "multiclass_margin: classes must be sorted and distinct"),
    (lambda: B.multiclass_margin(X3, [0, 1, 2], U3, classes=[0, 1, 1]),
     "classes must be sorted and distinct"),
    (lambda: B.multiclass_margin(X3, [0, 1, 5], U3, classes=[0, 1, 2]),
     "multiclass_margin: y holds labels that are not among the classes"),
    (lambda: B.multiclass_margin(X3[:1], [0], U3[:1]),
     "multiclass_margin: a multi-class margin needs at least two classes"),
    (lambda: B.multiclass_margin(X3, [0, 1], U3), "multiclass_margin: y must be 1-D with one"),
    (lambda: B.multiclass_margin(X3 * np.nan, [0, 1, 2], U3), "X contains NaN or infinity"),
    (lambda: B.multiclass_margin(np.zeros((0, 2)), [], U3), "X is empty"),
    (lambda: B.multiclass_margin(X3[0], [0, 1], U3), "X must be 2-D"),
])
def test_multiclass_margin_rejects_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- the theorems on generated streams -------------------------------------------------------------
#
# One partial_fit per instance: the instance's rows, repeated in a few shuffled passes, in one
# batch (the bounds hold on any sequence, repeated rows included).

N_INSTANCES = 1000
LABELS = np.array([-7, 0, 3, 10, 11, 40])          # sorted: class k is LABELS[k]


def _view(X, icpt, normalize):
    """The rows as the learner sees them: constant 1 appended, scaled to unit length."""
    A = np.hstack([X, np.ones((X.shape[0], 1))]) if icpt else X
    if normalize:
        A = A / np.linalg.norm(A, axis=1, keepdims=True)
    return A


def _stream(rng, X, y, passes):
    idx = np.concatenate([rng.permutation(X.shape[0]) for _ in range(passes)])
    return X[idx], y[idx]


def multiclass_instance(rng, normalize=None):
    """Rows labelled by argmax of a random U (unit Frobenius norm, in the learner's view), those
    with a small multi-class margin discarded.  Returns the stream, the settings, and R and
    gamma of the generating U in the learner's view, computed here."""
    K, d = int(rng.integers(3, 7)), int(rng.integers(2, 9))
    n = int(rng.integers(5, 61))
    icpt = bool(rng.random() < 0.4)
    normalize = bool(rng.random() < 0.3) if normalize is None else normalize
    D = d + icpt
    U = rng.normal(size=(K, D))
    U /= np.linalg.norm(U)
    C = rng.normal(size=(20 * n, d)) * rng.uniform(0.2, 3.0, size=(20 * n, 1))
    A = _view(C, icpt, normalize)
    S = A @ U.T
    top2 = np.sort(S, axis=1)[:, -2:]
    m = top2[:, 1] - top2[:, 0]                  # own score minus the best other
    tau = np.quantile(m, rng.uniform(0.4, 0.95))
    keep = np.flatnonzero(m >= tau)[:n]
    X, A, S = C[keep], A[keep], S[keep]
    y = np.argmax(S, axis=1)
    R = float(np.linalg.norm(A, axis=1).max())
    gamma = float((S[np.arange(len(y)), y] - np.sort(S, axis=1)[:, -2]).min())
    assert gamma > 0
    return X, y, K, icpt, normalize, R, gamma


@pytest.mark.parametrize("chunk", range(4))
def test_multiclass_perceptron_never_exceeds_kesler_bound(chunk):
    rng = np.random.default_rng(1000 + chunk)
    worst = 0.0
    for i in range(N_INSTANCES // 4):
        X, y, K, icpt, normalize, R, gamma = multiclass_instance(rng)
        Xs, ys = _stream(rng, X, y, int(rng.integers(1, 5)))
        params = dict(fit_intercept=icpt, normalize=normalize, multi_class="multiclass",
                      tie=["negative", "positive"][int(rng.integers(2))],
                      eta=float(rng.choice([1.0, 0.3, 2.5])))
        cls = mbcore.AveragedPerceptron if i % 4 == 3 else mbcore.Perceptron
        clf = cls(**params).partial_fit(Xs, LABELS[ys], classes=LABELS[:K])
        bound = 2.0 * R * R / (gamma * gamma)
        assert clf.mistakes_ <= bound * (1 + 1e-9), (chunk, i, cls.__name__, params)
        assert clf.coef_.shape == (K, X.shape[1])
        worst = max(worst, clf.mistakes_ / bound)
    assert worst > 0.0          # the learners did make mistakes


def ovr_instance(rng):
    """Rows where exactly one of K affine separators is positive: class k's rows have
    u_k . (x, 1) >= tau ||u_k|| and every other class's u_j . (x, 1) <= -tau ||u_j||, so each
    one-vs-rest problem is separable with margin tau.  The u_k cut wedges of the unit circle
    (in a random plane of R^d) around K spread directions."""
    K, d = int(rng.integers(3, 7)), int(rng.integers(2, 9))
    n = int(rng.integers(5, 61))
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    theta = 2 * np.pi * (np.arange(K) + rng.uniform(-0.2, 0.2, size=K)) / K
    P = np.zeros((K, d))
    P[:, 0], P[:, 1] = np.cos(theta), np.sin(theta)
    U = np.hstack([P @ Q.T, -math.cos(math.pi / K) * np.ones((K, 1))])   # (K, d + 1)
    U += rng.normal(scale=0.02, size=U.shape)
    m = 40 * n
    phi = rng.uniform(0, 2 * np.pi, size=m)
    Z = rng.normal(scale=0.3, size=(m, d))
    Z[:, 0], Z[:, 1] = np.cos(phi), np.sin(phi)
    C = (Z * rng.uniform(0.9, 1.3, size=(m, 1))) @ Q.T
    A = _view(C, True, False)
    S = (A @ U.T) / np.linalg.norm(U, axis=1)
    tau = rng.uniform(0.01, 0.08)
    ok = ((S >= tau).sum(axis=1) == 1) & ((S <= -tau).sum(axis=1) == K - 1)
    keep = np.flatnonzero(ok)[:n]
    return C[keep], np.argmax(S[keep], axis=1), K, U


@pytest.mark.parametrize("chunk", range(4))
def test_ovr_perceptron_never_exceeds_the_sum_of_binary_bounds(chunk):
    rng = np.random.default_rng(2000 + chunk)
    done = worst = 0
    while done < N_INSTANCES // 4:
        X, y, K, U = ovr_instance(rng)
        if len(y) < 3:
            continue
        done += 1
        normalize = bool(rng.random() < 0.3)
        as_feature = bool(rng.random() < 0.3)        # the constant 1 as a column of X instead
        A = _view(X, True, normalize)
        R = float(np.linalg.norm(A, axis=1).max())
        bounds = []
        for k in range(K):
            yk = np.where(y == k, 1.0, -1.0)
            g = float((yk * (A @ U[k])).min() / np.linalg.norm(U[k]))
            assert g > 0
            bounds.append((R / g) ** 2)
        Xl = np.hstack([X, np.ones((len(y), 1))]) if as_feature else X
        Xs, ys = _stream(rng, Xl, y, int(rng.integers(1, 5)))
        params = dict(fit_intercept=not as_feature, normalize=normalize, multi_class="ovr",
                      tie=["negative", "positive"][int(rng.integers(2))])
        clf = mbcore.Perceptron(**params).partial_fit(Xs, LABELS[ys], classes=LABELS[:K])
        bound = sum(bounds)
        assert clf.mistakes_ <= bound * (1 + 1e-9), (chunk, done, params)
        worst = max(worst, clf.mistakes_ / bound)
    assert worst > 0.0


@pytest.mark.parametrize("chunk", range(4))
def test_multiclass_margin_perceptron_never_exceeds_24_over_gamma_squared(chunk):
    rng = np.random.default_rng(3000 + chunk)
    worst = 0.0
    for i in range(N_INSTANCES // 4):
        X, y, K, icpt, _, R, gamma = multiclass_instance(rng, normalize=True)
        assert R == pytest.approx(1.0) and gamma <= SQRT2
        lg = gamma * float(rng.uniform(0.5, 1.0))     # the data have margin >= lg
        Xs, ys = _stream(rng, X, y, int(rng.integers(1, 5)))
        params = dict(gamma=lg, fit_intercept=icpt, multi_class="multiclass",
                      tie=["negative", "positive"][int(rng.integers(2))])
        clf = mbcore.MarginPerceptron(**params).partial_fit(Xs, LABELS[ys], classes=LABELS[:K])
        bound = 24.0 / (lg * lg)
        assert clf.updates_ <= bound * (1 + 1e-9), (chunk, i, params)
        assert clf.mistakes_ <= clf.updates_
        worst = max(worst, clf.updates_ / bound)
    assert worst > 0.0


# -- certify on multi-class data ------------------------------------------------------------------

def blobs(seed, n, d, K, gamma, icpt=False):
    """n rows labelled by argmax of a random unit-Frobenius U (in the view with the constant 1
    appended when icpt), multi-class margin >= gamma.  Returns X, y, U."""
    rng = np.random.default_rng(seed)
    D = d + icpt
    U = rng.normal(size=(K, D))
    U /= np.linalg.norm(U)
    rows = []
    while len(rows) < n:
        x = rng.normal(size=d) * 2.0
        a = np.append(x, 1.0) if icpt else x
        s = np.sort(U @ a)
        if s[-1] - s[-2] >= gamma:
            rows.append(x)
    X = np.array(rows)
    return X, np.argmax(_view(X, icpt, False) @ U.T, axis=1), U


def mc_margin(A, y, U):
    """The multi-class margin of U on the rows A (labels 0..K-1), written out."""
    S = A @ U.T
    own = S[np.arange(len(y)), y]
    S[np.arange(len(y)), y] = -np.inf
    return float((own - S.max(axis=1)).min() / np.linalg.norm(U))


def kesler_best_margin_upper(A, y, K):
    """An upper bound on the best multi-class margin: best_margin's on the Kesler vectors."""
    Z = []
    for t in range(len(y)):
        for k in range(K):
            if k != y[t]:
                z = np.zeros((K, A.shape[1]))
                z[y[t]], z[k] = A[t], -A[t]
                Z.append(z.ravel())
    return B.best_margin(np.array(Z), np.ones(len(Z)), tol=1e-6, max_iter=10 ** 5).upper


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cls", [mbcore.Perceptron, mbcore.AveragedPerceptron])
def test_certify_multiclass_perceptron(seed, cls):
    X, y, U = blobs(seed, 150, 4, 3, 0.3)
    R = float(np.linalg.norm(X, axis=1).max())
    g_u = mc_margin(X, y, U)
    cert = mbcore.certify(cls(), X, y, passes=2)
    assert cert.verified and cert.holds
    assert "multi-class" in cert.bound_name and cert.counted == "mistakes"
    assert cert.quantities["R"] == pytest.approx(R) and cert.quantities["K"] == 3
    g = cert.quantities["gamma"]
    assert g >= g_u * (1 - 2e-3)               # the best margin is at least U's
    assert g <= kesler_best_margin_upper(X, y, 3) * (1 + 1e-9)
    assert cert.bound == pytest.approx(2 * R * R / g ** 2)
    ref = cls()
    ref.partial_fit(X, y)
    ref.partial_fit(X, y)
    assert cert.observed == ref.mistakes_ and cert.run.n == 300
    # the generating U, given: its own margin, checked
    cu = mbcore.certify(cls(), X, y, u=U)
    assert cu.verified and cu.quantities["gamma"] == pytest.approx(g_u)
    assert cu.bound == pytest.approx(2 * R * R / g_u ** 2)
    assert cu.bound >= cert.bound * (1 - 1e-6)


def test_certify_multiclass_perceptron_on_large_data_fits_a_separator():
    """More Kesler vectors than the exact search takes: a fitted Perceptron's U or the best
    one-vs-rest separators stacked, whichever has the larger margin."""
    X, y, U = blobs(11, 1100, 3, 3, 0.5)              # 1100 * 2 > 2048 Kesler vectors
    cert = mbcore.certify(mbcore.Perceptron(), X, y)
    assert cert.verified and cert.holds
    assert any("fitted" in text or "stacked" in text for text, _ in cert.assumptions)
    g = cert.quantities["gamma"]
    assert 0 < g <= kesler_best_margin_upper(X[:200], y[:200], 3) * (1 + 1e-9)
    R = float(np.linalg.norm(X, axis=1).max())
    assert cert.bound == pytest.approx(2 * R * R / g ** 2)


def test_certify_multiclass_with_intercept_normalize_and_sparse_rows():
    X, y, U = blobs(4, 120, 3, 4, 0.3, icpt=True)         # 3 features, 4 classes
    A = _view(X, True, False)
    cl = np.arange(4)
    cert = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, classes=cl, u=U)
    assert cert.verified and cert.holds and cert.quantities["K"] == 4
    assert cert.quantities["R"] == pytest.approx(float(np.linalg.norm(A, axis=1).max()))
    assert cert.quantities["gamma"] == pytest.approx(mc_margin(A, y, U))
    c2 = mbcore.certify(mbcore.Perceptron(fit_intercept=True, normalize=True),
                        csr_from_dense(X), y, classes=cl)
    assert c2.verified and c2.holds and c2.quantities["R"] == pytest.approx(1.0)
    Z = _view(X, True, True)
    assert mc_margin(Z, y, U) * (1 - 2e-3) <= c2.quantities["gamma"] <= \
        kesler_best_margin_upper(Z, y, 4) * (1 + 1e-9)
    with pytest.raises(ValueError, match=r"certify: u must have shape \(4, 4\)"):
        mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y, classes=cl, u=U[:, :3])


def test_certify_multiclass_not_separable_and_trusted():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 2))
    y = rng.integers(0, 3, size=90)                        # random labels: not separable
    cert = mbcore.certify(mbcore.Perceptron(), X, y)
    assert cert.bound is None and not cert.verified and cert.holds is None
    assert "separable" in cert.summary()
    cu = mbcore.certify(mbcore.Perceptron(), X, y, u=np.eye(3)[:, :2])
    assert cu.bound is None and any(s == "violated" for _, s in cu.assumptions)
    ct = mbcore.certify(mbcore.Perceptron(), X, y, gamma=0.5)
    assert not ct.verified and ("trusted" in [s for _, s in ct.assumptions])
    assert ct.bound == pytest.approx(2 * float(np.linalg.norm(X, axis=1).max()) ** 2 / 0.25)


@pytest.mark.parametrize("seed", range(2))
def test_certify_multiclass_margin_perceptron(seed):
    X, y, U = blobs(seed + 20, 150, 4, 3, 0.3)
    Z = X / np.linalg.norm(X, axis=1, keepdims=True)
    g = mc_margin(Z, y, U)
    cert = mbcore.certify(mbcore.MarginPerceptron(gamma=0.9 * g), X, y, passes=2)
    assert cert.counted == "updates" and cert.verified and cert.holds
    assert cert.bound == pytest.approx(24 / (0.9 * g) ** 2)
    ref = mbcore.MarginPerceptron(gamma=0.9 * g)
    ref.partial_fit(X, y)
    ref.partial_fit(X, y)
    assert cert.observed == ref.updates_
    cu = mbcore.certify(mbcore.MarginPerceptron(gamma=0.9 * g), X, y, u=U)
    assert cu.verified and cu.quantities["data margin"] == pytest.approx(g)
    upper = kesler_best_margin_upper(Z, y, 3)
    too_big = mbcore.certify(mbcore.MarginPerceptron(gamma=1.1 * upper), X, y)
    assert too_big.bound is None and any(s == "violated" for _, s in too_big.assumptions)
    other = mbcore.certify(mbcore.MarginPerceptron(gamma=0.1, margin_fraction=0.3), X, y)
    assert other.bound is None and "margin_fraction" in other.reason


def test_certify_ovr():
    rng = np.random.default_rng(7)
    X, y, K, U = ovr_instance(rng)
    while len(y) < 40 or len(set(y.tolist())) < 3:
        X, y, K, U = ovr_instance(rng)
    A = _view(X, True, False)
    R = float(np.linalg.norm(A, axis=1).max())
    g_u = [float((np.where(y == k, 1.0, -1.0) * (A @ U[k])).min() / np.linalg.norm(U[k]))
           for k in range(K)]
    classes = np.arange(K)
    learner = mbcore.Perceptron(fit_intercept=True, multi_class="ovr")
    cu = mbcore.certify(learner, X, y, classes=classes, u=U)
    assert cu.verified and cu.holds and "one-vs-rest" in cu.bound_name
    assert cu.quantities["gamma"] == pytest.approx(g_u)
    assert cu.bound == pytest.approx(sum((R / g) ** 2 for g in g_u))
    cert = mbcore.certify(learner, X, y, classes=classes, passes=3)
    assert cert.verified and cert.holds
    gs = cert.quantities["gamma"]
    assert all(a >= b * (1 - 2e-3) for a, b in zip(gs, g_u))     # best margins >= U's rows
    assert cert.bound == pytest.approx(sum((R / g) ** 2 for g in gs))
    ref = mbcore.Perceptron(fit_intercept=True, multi_class="ovr")
    for _ in range(3):
        ref.partial_fit(X, y, classes=classes)
    assert cert.observed == ref.mistakes_
    # the Margin Perceptron, one vs rest: K times 12/gamma^2 on the unit-length rows
    Z = _view(X, True, True)
    gz = min(float((np.where(y == k, 1.0, -1.0) * (Z @ U[k])).min() / np.linalg.norm(U[k]))
             for k in range(K))
    lg = 0.9 * gz
    cm = mbcore.certify(mbcore.MarginPerceptron(gamma=lg, fit_intercept=True, multi_class="ovr"),
                        X, y, classes=classes)
    assert cm.verified and cm.holds and cm.counted == "updates"
    assert cm.bound == pytest.approx(K * 12 / lg ** 2)


def test_certify_ovr_not_separable_one_vs_rest():
    """Three intervals of a line: separable by the multi-class scores, but the middle class
    is not separable from the rest by one threshold."""
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.uniform(-3, -1, 30), rng.uniform(-0.5, 0.5, 30),
                        rng.uniform(1, 3, 30)])
    y = np.repeat([0, 1, 2], 30)
    X = x[:, None]
    c = mbcore.certify(mbcore.Perceptron(fit_intercept=True, multi_class="ovr"), X, y)
    assert c.bound is None and not c.verified and "class 1" in c.summary()
    cu = mbcore.certify(mbcore.Perceptron(fit_intercept=True, multi_class="ovr"), X, y,
                        u=[[-1.0, -2.0], [0.0, 1.0], [1.0, -2.0]])
    assert cu.bound is None and any(s == "violated" for _, s in cu.assumptions)
    m = mbcore.certify(mbcore.Perceptron(fit_intercept=True), X, y)
    assert m.verified and m.holds                  # multi-class: separable


def test_certify_multiclass_hinge_svm_has_no_bound():
    X, y, _ = blobs(9, 60, 3, 3, 0.3)
    for mc in ("multiclass", "ovr"):
        c = mbcore.certify(mbcore.OnlineHingeSVM(multi_class=mc), X, y)
        assert c.bound is None and "OnlineHingeSVM" in c.reason and c.holds is None


def test_multiclass_functions_return_floats():
    for value in (B.multiclass_perceptron_bound(2, 1), B.multiclass_margin_perceptron_bound(1),
                  B.ovr_bound([1, 2, 3]), B.multiclass_margin(X3, [0, 1, 2], U3.astype(int))):
        assert type(value) is float


def test_a_multiclass_learner_exceeding_a_verified_bound_raises():
    class Perceptron(mbcore.Perceptron):
        """A broken multi-class Perceptron (named like the real one): it records a wrong class
        for every prediction."""

        def _online(self, X, y, classes=None):
            pred, upd, yy = super()._online(X, y, classes)
            return (yy + 1) % len(self.classes_), upd, yy

    X, y, _ = blobs(3, 300, 4, 3, 0.3)
    with pytest.raises(mbcore.BoundViolationError,
                       match="mbcore bug: Perceptron made 3000 mistakes") as e:
        mbcore.certify(Perceptron(), X, y, passes=10)
    c = e.value.certificate
    assert c.verified and not c.holds and c.bound < 3000
    assert "multi-class" in c.bound_name


# -- the Winnow family with K >= 3 classes ---------------------------------------------------------

def _tuned_alpha(delta):
    """Mesterharm's alpha for the margin delta: sqrt((1 + delta) / (1 - delta))."""
    return math.sqrt((1.0 + delta) / (1.0 - delta))


def _winnow_denominator(delta, alpha):
    return delta * math.log(alpha) - math.log((alpha + 1.0 / alpha) / 2.0)


def test_multiclass_winnow_bound_by_hand():
    # alpha = sqrt(3) (tuned for delta = 1/2): ln sqrt(3) / 2 - ln((sqrt(3) + 1/sqrt(3)) / 2)
    # = ln(3) / 4 - (ln 2 - ln(3) / 2) = 0.75 ln 3 - ln 2
    assert B.multiclass_winnow_bound(4, 3, 0.5, math.sqrt(3.0)) == pytest.approx(
        math.log(12) / (0.75 * math.log(3) - math.log(2)))
    assert B.multiclass_winnow_bound(4, 3, 0.5, math.sqrt(3.0)) == pytest.approx(18.99601, abs=1e-5)
    # alpha = 2: delta ln 2 - ln(5/4)
    assert B.multiclass_winnow_bound(8, 4, 0.5) == pytest.approx(
        5 * math.log(2) / (0.5 * math.log(2) - math.log(1.25)))
    assert B.multiclass_winnow_bound(2, 2, 1.0) == pytest.approx(math.log(4) / math.log(1.6))
    assert B.multiclass_winnow_bound(4, 3, 1 / 3) == pytest.approx(
        math.log(12) / (math.log(2) / 3 - math.log(1.25)))             # 314.33: barely positive
    assert B.multiclass_winnow_bound(1, 2, 0.5) == pytest.approx(
        math.log(2) / (0.5 * math.log(2) - math.log(1.25)))
    # the tuned alpha: denominator ((1+d) ln(1+d) + (1-d) ln(1-d)) / 2 >= d^2 / 2
    for d in (0.01, 0.05, 1 / 7, 0.25, 1 / 3, 0.5, 0.9, 0.999):
        a = _tuned_alpha(d)
        den = ((1 + d) * math.log(1 + d) + (1 - d) * math.log(1 - d)) / 2
        assert _winnow_denominator(d, a) == pytest.approx(den, rel=1e-9)
        for n, K in ((4, 3), (784, 10), (10, 5)):
            b = B.multiclass_winnow_bound(n, K, d, a)
            assert b == pytest.approx(math.log(n * K) / den, rel=1e-9)
            assert b <= 2 * math.log(n * K) / d ** 2 * (1 + 1e-12)
    # alpha = 2 needs delta > ln(1.25) / ln(2) = 0.3219...
    assert B.multiclass_winnow_bound(10, 3, 0.3220) > 0
    assert type(B.multiclass_winnow_bound(4, 3, 0.5)) is float


@pytest.mark.parametrize("call, match", [
    (lambda: B.multiclass_winnow_bound(4, 4, 0.25),
     r"multiclass_winnow_bound: delta ln\(alpha\) - ln\(\(alpha \+ 1/alpha\)/2\) must be > 0: "
     r"alpha=2.0 needs delta > ln\(\(alpha \+ 1/alpha\)/2\) / ln\(alpha\) = 0.321928, got "
     r"delta=0.25; alpha = sqrt\(\(1 \+ delta\)/\(1 - delta\)\) = 1.29099 suits this delta"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.3219), "alpha=2.0 needs delta > "),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.5, 8.0), r"alpha=8.0 needs delta > .* = 0.674123, got delta=0.5"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.0),
     "multiclass_winnow_bound: parameter delta must be > 0, got 0.0"),
    (lambda: B.multiclass_winnow_bound(4, 3, -0.1), "parameter delta must be > 0"),
    (lambda: B.multiclass_winnow_bound(4, 3, 1.5),
     r"multiclass_winnow_bound: parameter delta must be in \(0, 1\]"),
    (lambda: B.multiclass_winnow_bound(4, 3, float("nan")), "parameter delta must be a finite"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.5, 1.0),
     "multiclass_winnow_bound: parameter alpha must be > 1, got 1.0"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.5, 0.5), "parameter alpha must be > 1"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.5, math.inf), "parameter alpha must be a finite"),
    (lambda: B.multiclass_winnow_bound(4, 3, 0.5, True), "parameter alpha must be a finite"),
    (lambda: B.multiclass_winnow_bound(0, 3, 0.5),
     "multiclass_winnow_bound: parameter n must be an integer >= 1, got 0"),
    (lambda: B.multiclass_winnow_bound(4.0, 3, 0.5), "parameter n must be an integer >= 1"),
    (lambda: B.multiclass_winnow_bound(4, 1, 0.5),
     "multiclass_winnow_bound: parameter K must be an integer >= 2, got 1"),
    (lambda: B.multiclass_winnow_bound(4, True, 0.5), "parameter K must be an integer >= 2"),
])
def test_multiclass_winnow_bound_rejects_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


XW = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0], [1, 0, 1, 1]])
MW = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])


def test_multiclass_winnow_margin_by_hand():
    # M sums to 3: scores / 3 per row (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1)
    assert B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW) == pytest.approx(1 / 3)
    assert B.multiclass_winnow_margin(XW[:3], [0, 1, 2], 5.0 * MW) == pytest.approx(1 / 3)
    assert B.multiclass_winnow_margin(XW, [0, 1, 2, 0], MW) == 0.0          # row 4 ties 0 and 2
    assert B.multiclass_winnow_margin(XW, [0, 1, 2, 1], MW) == pytest.approx(-1 / 3)
    # feature 3 shared by classes 0 and 1; M sums to 6:
    M = np.array([[2, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0]]) / 1.0
    # scores * 6: (3, 1, 0), (1, 2, 0), (0, 0, 1) -> gaps 2, 1, 1 -> 1/6
    assert B.multiclass_winnow_margin(XW[:3], ["a", "b", "c"], M) == pytest.approx(1 / 6)
    # a class with no rows still competes
    assert B.multiclass_winnow_margin(XW[:2], [0, 1], MW, classes=[0, 1, 2]) == \
        pytest.approx(1 / 3)
    # the unit-Frobenius margin, rescaled: gap / sum(M) versus gap / ||M||_F
    for Mx in (MW, M):
        assert B.multiclass_winnow_margin(XW[:3], [0, 1, 2], Mx) * Mx.sum() == pytest.approx(
            B.multiclass_margin(XW[:3], [0, 1, 2], Mx) * np.linalg.norm(Mx))
    assert B.multiclass_winnow_margin(csr_from_dense(XW[:3].astype(float)), [0, 1, 2], M) == \
        pytest.approx(1 / 6)
    assert type(B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW)) is float


@pytest.mark.parametrize("call, match", [
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], -MW),
     "multiclass_winnow_margin: M must be nonnegative"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW - 0.5 * np.eye(3, 4)[::-1]),
     "M must be nonnegative"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], 0 * MW),
     "multiclass_winnow_margin: M is the zero matrix"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW[:2]),
     r"multiclass_winnow_margin: M must have shape \(3, 4\)"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW * np.nan),
     "M contains NaN or infinity"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 7], MW, classes=[0, 1, 2]),
     "y holds labels that are not among the classes"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1, 2], MW, classes=[2, 1, 0]),
     "classes must be sorted and distinct"),
    (lambda: B.multiclass_winnow_margin(XW[:3], [0, 1], MW), "y must be 1-D with one label"),
])
def test_multiclass_winnow_margin_rejects_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def winnow_instance(rng):
    """Boolean rows of K classes, class k owning feature k: a row of class k has feature k on,
    the other classes' own features off, and random noise among features K..n-1 (not owned by
    any class).  The target with mass 1/K on each own feature has margin delta = 1/K."""
    K = int(rng.integers(3, 6))
    n = int(rng.integers(max(4, K), 11))
    m = int(rng.integers(K, 31))
    y = rng.integers(0, K, size=m)
    y[:K] = rng.permutation(K)                       # every class has a row
    X = np.zeros((m, n), dtype=np.uint8)
    X[np.arange(m), y] = 1
    X[:, K:] = rng.random((m, n - K)) < rng.uniform(0.0, 0.8)
    return X, y, K, n


def _own_feature_target(X, y, K):
    """The target certify searches for, written out: equal mass on every feature active in the
    rows of one class only (None when a row has none of its class's own features)."""
    seen = np.array([X[y == k].any(axis=0) for k in range(K)])
    own = seen & (seen.sum(axis=0) == 1)
    if not all(own[y[t]][X[t] > 0].any() for t in range(len(y))):
        return None
    M = own.astype(float)
    return M / M.sum()


@pytest.mark.parametrize("chunk", range(4))
def test_multiclass_winnow_never_exceeds_its_bound(chunk):
    rng = np.random.default_rng(4000 + chunk)
    worst = 0.0
    verified = 0
    for i in range(N_INSTANCES // 4):
        X, y, K, n = winnow_instance(rng)
        delta = 1.0 / K
        M = np.zeros((K, n))
        M[np.arange(K), np.arange(K)] = 1.0 / K
        S = X @ M.T
        own = S[np.arange(len(y)), y]
        S[np.arange(len(y)), y] = -np.inf
        assert (own - S.max(axis=1)).min() == pytest.approx(delta)
        if K == 3 and i % 2 == 0:      # 1/3 > ln(1.25)/ln(2): the default alpha = 2, exact mode
            alpha, params = 2.0, {}
        else:                          # too small for alpha = 2 (1/K <= 1/4): the tuned alpha
            alpha = _tuned_alpha(delta)
            params = dict(alpha=alpha, features="real")
        den = _winnow_denominator(delta, alpha)
        assert den > 0
        bound = math.log(n * K) / den
        if alpha != 2.0:
            assert bound <= 2 * math.log(n * K) / delta ** 2
        Xs, ys = _stream(rng, X, y, int(rng.integers(1, 5)))
        clf = mbcore.Winnow(**params).partial_fit(Xs, LABELS[ys], classes=LABELS[:K])
        assert clf.log2_coef_.shape == (K, n)
        assert clf.mistakes_ <= bound * (1 + 1e-9), (chunk, i, K, n, params)
        worst = max(worst, clf.mistakes_ / bound)
        # one vs rest: class k against the rest is the disjunction of feature k alone (k = 1,
        # consistent), so the sum of K binary bounds
        for cls, each in ((mbcore.Winnow, 2 + 3 * (1 + math.log2(n))),
                          (mbcore.EliminationWinnow, 2 * math.log2(n) + 2),
                          (mbcore.WinnowStar, 4 + 5 * (1 + math.log2(2 * n)))):
            o = cls(multi_class="ovr").partial_fit(Xs, LABELS[ys], classes=LABELS[:K])
            assert o.mistakes_ <= K * each, (chunk, i, cls.__name__)
        if i % 5 == 0:
            # certify, multi-class: the target found (own features, computed here) or given
            Mf = _own_feature_target(X, y, K)
            c = mbcore.certify(mbcore.Winnow(**params), X, LABELS[y], passes=2)
            assert c.holds is not False
            if Mf is not None:
                df = float(((X @ Mf.T)[np.arange(len(y)), y]).min())
                assert c.quantities["delta"] == pytest.approx(df)
                if _winnow_denominator(df, alpha) > 0:
                    assert c.verified and c.holds
                    assert c.bound == pytest.approx(math.log(n * K) /
                                                    _winnow_denominator(df, alpha))
                    verified += 1
                else:
                    assert c.bound is None and "too small" in c.reason
            else:
                assert c.bound is None and "no target found" in c.reason
            cg = mbcore.certify(mbcore.Winnow(**params), X, LABELS[y], target=M * 7.0)
            assert cg.verified and cg.holds and cg.bound == pytest.approx(bound)
            assert cg.quantities["delta"] == pytest.approx(delta)
            # certify, one vs rest: verified sums of binary bounds that hold
            for cls in (mbcore.Winnow, mbcore.EliminationWinnow, mbcore.WinnowStar):
                co = mbcore.certify(cls(multi_class="ovr"), X, LABELS[y])
                assert co.verified and co.holds and "one-vs-rest" in co.bound_name
                bs = co.quantities["bounds per class"]
                assert len(bs) == K and co.bound == pytest.approx(sum(bs))
                if cls is not mbcore.Winnow:
                    assert co.quantities["k per class"] == [1] * K
    assert worst > 0.0 and verified > 0


def test_certify_multiclass_winnow_found_and_given_targets():
    rng = np.random.default_rng(12)
    K, n, m = 3, 8, 90
    y = np.arange(m) % K
    X = np.zeros((m, n), dtype=np.uint8)
    X[np.arange(m), y] = 1
    X[:, K:] = rng.random((m, n - K)) < 0.5
    X[:K, K:] = 1                                     # every noise feature in every class
    c = mbcore.certify(mbcore.Winnow(), X, y, passes=3)
    assert c.verified and c.holds and c.quantities["K"] == 3
    assert c.quantities["delta"] == pytest.approx(1 / 3)
    assert c.quantities["own features per class"] == [1, 1, 1]
    assert c.bound == pytest.approx(math.log(24) / (math.log(2) / 3 - math.log(1.25)))
    assert "multi-class Winnow" in c.bound_name and "Mesterharm" in c.source
    ref = mbcore.Winnow()
    for _ in range(3):
        ref.partial_fit(X, y)
    assert c.observed == ref.mistakes_ and c.run.n == 3 * m
    # CSR rows, w0 and theta do not matter
    c2 = mbcore.certify(mbcore.Winnow(w0=4.0, theta=3.0), csr_from_dense(X.astype(float)), y)
    assert c2.verified and c2.bound == pytest.approx(c.bound)
    # K = 4 classes: delta = 1/4 is too small for alpha = 2, enough for the tuned alpha
    y4 = np.arange(m) % 4
    X4 = np.zeros((m, n), dtype=np.uint8)
    X4[np.arange(m), y4] = 1
    X4[:, 4:] = 1
    c4 = mbcore.certify(mbcore.Winnow(), X4, y4)
    assert c4.bound is None and not c4.verified
    assert "too small for alpha = 2" in c4.reason and "needs delta > 0.3219" in c4.reason
    a = _tuned_alpha(0.25)
    c5 = mbcore.certify(mbcore.Winnow(alpha=a, features="real"), X4, y4)
    assert c5.verified and c5.holds
    assert c5.bound == pytest.approx(math.log(32) / _winnow_denominator(0.25, a))
    assert c5.bound <= 2 * math.log(32) / 0.25 ** 2
    # given targets: checked on the data
    M = np.zeros((4, n))
    M[np.arange(4), np.arange(4)] = 1.0
    cg = mbcore.certify(mbcore.Winnow(alpha=a, features="real"), X4, y4, target=M)
    assert cg.verified and cg.bound == pytest.approx(c5.bound)
    cw = mbcore.certify(mbcore.Winnow(alpha=a, features="real"), X4, y4, target=M[::-1])
    assert cw.bound is None and any(s == "violated" for _, s in cw.assumptions)
    cs = mbcore.certify(mbcore.Winnow(), X4, y4, target=M)
    assert cs.bound is None and "too small" in cs.reason
    assert any(s == "violated" for _, s in cs.assumptions)
    with pytest.raises(ValueError, match=r"certify: with 4 classes, target must be a "
                                         r"nonnegative \(4, 8\) matrix"):
        mbcore.certify(mbcore.Winnow(), X4, y4, target=[0, 1])
    with pytest.raises(ValueError, match="M must be nonnegative"):
        mbcore.certify(mbcore.Winnow(), X4, y4, target=-M)
    # rows without a feature of their own class: no target found
    X4[0, 0] = 0
    c6 = mbcore.certify(mbcore.Winnow(alpha=a, features="real"), X4, y4)
    assert c6.bound is None and "no target found" in c6.reason and "class 0" in c6.reason
    # beta other than 1/alpha, values outside [0, 1]: no bound
    c7 = mbcore.certify(mbcore.Winnow(beta=0.25), X, y)
    assert c7.bound is None and "beta = 1/alpha" in c7.reason
    c8 = mbcore.certify(mbcore.Winnow(features="real"), 2.0 * X, y)
    assert c8.bound is None and "[0, 1]" in c8.reason


def test_certify_multiclass_winnow_family_other_rules_have_no_bound():
    X = np.zeros((9, 5), dtype=np.uint8)
    y = np.arange(9) % 3
    X[np.arange(9), y] = 1
    for cls in (mbcore.EliminationWinnow, mbcore.WinnowStar, mbcore.BalancedWinnow):
        c = mbcore.certify(cls(), X, y)
        assert c.bound is None and c.holds is None
        assert f"no mistake bound is proved for the {cls.__name__} rule with K = 3" in c.reason
    c = mbcore.certify(mbcore.BalancedWinnow(multi_class="ovr"), X, y)
    assert c.bound is None and "BalancedWinnow" in c.reason


def test_certify_ovr_winnow_names_the_classes_without_a_bound():
    # class 1's row shares every feature with other classes: no consistent disjunction;
    # classes 0 and 2 own features 0 and 1
    X = np.array([[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 0]],
                 dtype=np.uint8)
    y = np.array([0, 2, 1, 0, 2])
    for cls in (mbcore.EliminationWinnow, mbcore.WinnowStar):
        c = mbcore.certify(cls(multi_class="ovr"), X, y)
        assert c.bound is None and not c.verified
        assert "one-vs-rest problem of class 1 " in c.reason
        assert any(s == "violated" and "not for class 1" in t for t, s in c.assumptions)
    # Winnow2's agnostic bound always applies: the sum of the K binary bounds
    c = mbcore.certify(mbcore.Winnow(multi_class="ovr"), X, y)
    assert c.verified and c.holds
    k, a = c.quantities["k per class"], c.quantities["A_c per class"]
    assert c.bound == pytest.approx(sum(B.winnow_bound(kk, 4, aa) for kk, aa in zip(k, a)))
    # given targets, one disjunction per class
    cg = mbcore.certify(mbcore.Winnow(multi_class="ovr"), X, y, target=[[0], [2], [1]])
    assert cg.quantities["target per class"] == [[0], [2], [1]]
    assert cg.verified and cg.holds
    with pytest.raises(ValueError, match="target must be 3 sequences of variables"):
        mbcore.certify(mbcore.Winnow(multi_class="ovr"), X, y, target=[0, 1, 2])
    # parameters outside the binary theorem: no bound for any class
    c = mbcore.certify(mbcore.Winnow(alpha=3.0, multi_class="ovr"), X, y)
    assert c.bound is None and "default alpha" in c.reason


@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_certify_winnow_family_on_mnist_never_claims_a_binary_bound(mc):
    from mbcore.datasets import load_mnist
    X, y = load_mnist(encoding="boolean")
    X, y = X[:300], y[:300]
    for cls in (mbcore.Winnow, mbcore.EliminationWinnow, mbcore.WinnowStar,
                mbcore.BalancedWinnow):
        c = mbcore.certify(cls(multi_class=mc), X, y)         # raises on an exceeded bound
        assert c.holds is not False and c.quantities["K"] == 10
        assert c.bound is None or "one-vs-rest" in c.bound_name or \
            "multi-class" in c.bound_name, (cls.__name__, c.bound_name)


def test_a_multiclass_winnow_exceeding_a_verified_bound_raises():
    class Winnow(mbcore.Winnow):
        """A broken multi-class Winnow (named like the real one): it records a wrong class for
        every prediction."""

        def _online(self, X, y, classes=None):
            pred, upd, yy = super()._online(X, y, classes)
            return (yy + 1) % len(self.classes_), upd, yy

    X = np.zeros((30, 6), dtype=np.uint8)
    y = np.arange(30) % 3
    X[np.arange(30), y] = 1
    with pytest.raises(mbcore.BoundViolationError,
                       match="mbcore bug: Winnow made 3000 mistakes") as e:
        mbcore.certify(Winnow(), X, y, passes=100)
    c = e.value.certificate
    assert c.verified and not c.holds and "multi-class Winnow" in c.bound_name


# -- the kernel Perceptron with K >= 3 classes ---------------------------------------------------

@pytest.mark.longrun          # (about 13 s of one core: pytest -m longrun, which CI runs)
def test_kernel_perceptron_multiclass_certificates_hold_on_generated_instances():
    """150 generated instances whose classes are separable by a quadratic rule (so the poly
    kernel of degree 2 separates them): certify verifies the Kesler bound 2 R^2 / gamma^2 in
    feature space (or the one-vs-rest sum) and the run stays within it (a run that exceeded a
    verified bound would raise BoundViolationError)."""
    rng = np.random.default_rng(2024)
    verified = 0
    for t in range(150):
        K = int(rng.integers(3, 5))
        n = int(rng.integers(8, 40))
        X = rng.normal(size=(n, 2))
        r2 = (X ** 2).sum(axis=1)
        edges = np.quantile(r2, np.linspace(0, 1, K + 1)[1:-1])
        y = np.searchsorted(edges, r2)             # rings: separable by a quadratic rule
        mc = "multiclass" if t % 2 == 0 else "ovr"
        cert = mbcore.certify(mbcore.KernelPerceptron(kernel="poly", degree=2, coef0=1.0,
                                                      gamma=1.0, multi_class=mc), X, y)
        if cert.bound is not None:
            assert cert.holds and cert.observed <= cert.bound
        # rings are separable by the argmax of quadratic scores (Kesler), but a middle ring
        # against the rest is not separable by one quadratic rule (one-vs-rest)
        verified += mc == "multiclass" and cert.verified
    assert verified >= 70


def test_kernel_perceptron_multiclass_certificate_details():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0.3, 0, np.where(X[:, 1] > 0, 1, 2))
    cert = mbcore.certify(mbcore.KernelPerceptron(kernel="poly", degree=2), X, y)
    assert cert.verified and cert.holds and cert.quantities["K"] == 3
    R2, g = cert.quantities["R2"], cert.quantities["gamma"]
    assert cert.bound == pytest.approx(2 * R2 / g ** 2)
    none = mbcore.certify(mbcore.KernelPerceptron(kernel="poly", degree=2, budget=5), X, y)
    assert none.bound is None and "budget" in none.reason
    trusted = mbcore.certify(mbcore.KernelPerceptron(kernel="poly", degree=2), X, y, gamma=0.01)
    assert trusted.bound == pytest.approx(2 * trusted.quantities["R2"] / 0.01 ** 2)
