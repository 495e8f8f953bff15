"""The second-order kernel (``mbcore._kernels.second_order``) against its twin, rule by rule.

The classes of ``mbcore.second_order`` are tested through the public API elsewhere; here the
compiled passes themselves are held to ``mbref.second_order``: the same weights, covariance,
theta and counts, bit for bit, for every rule, diagonal and full, with and without an
intercept, dense (float64, float32) and CSR (int32, int64) rows, two classes and K; a pass that
meets a bad row leaves every array as it was; and the diagonal variances' floor keeps the exact
CW step finite over a9a (it overflowed there with a floor at the smallest normal double).
"""
import math
from statistics import NormalDist

import numpy as np
import pytest
import scipy.sparse as sp

import mbref
from mbcore._kernels import second_order as kso

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

FLOOR = 2.0 ** -52          # variance_floor(a) for a = 1


def phi(eta):
    return NormalDist().inv_cdf(eta)


# (twin class, its parameters, rule code, p0, p1)
RULES = [
    ("AROW", dict(r=0.7), 0, 0.7, 0.0),
    ("ConfidenceWeighted", dict(eta=0.8), 1, phi(0.8), 0.0),
    ("SCW", dict(C=0.5, eta=0.75, variant="SCW-I"), 2, 0.5, phi(0.75)),
    ("SCW", dict(C=0.5, eta=0.75, variant="SCW-II"), 3, 0.5, phi(0.75)),
    ("NHERD", dict(C=0.3), 4, 0.3, 0.0),
    ("NAROW", dict(b=0.8), 5, 0.8, 0.0),
    ("SecondOrderPerceptron", dict(a=1.0), 6, 0.0, 0.0),
]
IDS = [f"{r[0]}-{r[2]}" for r in RULES]


def _data(seed, n=240, d=11, K=2, mixed=False):
    """Rows of d values, 40 % of them zeros; ``mixed``: d = 23 and every other row 85 % zeros
    (a dense row with at most a quarter of its values non-zero takes the kernel's other path,
    its sums over the non-zero positions: both kinds of row in one stream)."""
    rng = np.random.default_rng(seed)
    d = 23 if mixed else d
    X = np.round(rng.normal(size=(n, d)) * 4) / 4          # float32 holds them exactly
    X[rng.random((n, d)) < 0.4] = 0.0
    if mixed:
        X[::2][rng.random((len(X[::2]), d)) < 0.85] = 0.0
        assert (np.count_nonzero(X[::2], axis=1) * 4 <= d).mean() > 0.9
    X[5] = 0.0
    if K == 2:
        y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(int)
    else:
        y = np.argmax(X @ rng.normal(size=(d, K)) + 0.5 * rng.normal(size=(n, K)), axis=1)
    return X, y


def _layouts(X):
    yield "dense64", X, X
    yield "dense32", X.astype(np.float32), X.astype(np.float32)
    for it in (np.int32, np.int64):
        C = sp.csr_matrix(X)
        C.indices, C.indptr = C.indices.astype(it), C.indptr.astype(it)
        yield f"csr-{np.dtype(it).name}", C, (C.data, C.indices, C.indptr)


@pytest.fixture(params=[2, 0], ids=["simd", "scalar"])
def simd(request):
    """The dense rows' score and confidence in AVX2 (where the CPU has it) and in the scalar
    loops: both paths are held to the twin."""
    level = kso.simd_level(request.param)
    if request.param == 2 and level != 2:
        pytest.skip("no AVX2 on this machine (or MBCORE_NO_SIMD): the scalar run covers it")
    yield level
    kso.simd_level(2)


@pytest.mark.parametrize("mixed", [False, True], ids=["", "sparse-rows"])
@pytest.mark.parametrize("full", [False, True], ids=["diagonal", "full"])
@pytest.mark.parametrize("intercept", [False, True], ids=["", "intercept"])
@pytest.mark.parametrize("name,params,rule,p0,p1", RULES, ids=IDS)
def test_binary_pass_equals_the_twin(name, params, rule, p0, p1, full, intercept, mixed, simd):
    X, y = _data(1, mixed=mixed)
    n, d = X.shape
    D = d + intercept
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    cov = "full" if full else "diagonal"
    for label, Xin, Xk in _layouts(X):
        ref = getattr(mbref, name)(covariance=cov, fit_intercept=intercept, **params)
        ref.partial_fit(Xin, y, classes=[0, 1])
        w = np.zeros(D)
        if rule == 6:       # the second-order Perceptron: A's diagonal, or Sigma = A^-1
            S = np.eye(D).ravel() / params["a"] if full else np.full(D, params["a"])
        else:
            S = np.eye(D).ravel() if full else np.ones(D)
        V = np.zeros(D) if rule >= 5 else None
        counts = np.zeros(3, dtype=np.int64)
        pred = np.empty(n, dtype=np.int8)
        status, bad = kso.so_pass(rule, full, intercept, False, p0, p1, FLOOR, w, S, d, counts,
                                  Xk, yy, pred, V=V)
        assert (status, bad) == (0, -1), label
        assert np.array_equal(w, np.array(ref._w)), label
        assert np.array_equal(S, np.array(ref._S).ravel()), label
        if V is not None:
            assert np.array_equal(V, np.array(ref._V)), label
        assert counts[0] == n and counts[1] == ref.mistakes_, label
        assert int(np.count_nonzero(pred != yy)) == ref.mistakes_, label


@pytest.mark.parametrize("intercept", [False, True], ids=["", "intercept"])
@pytest.mark.parametrize("name,params,rule,p0,p1", RULES[:5], ids=IDS[:5])
def test_k_class_pass_equals_the_twin(name, params, rule, p0, p1, intercept, simd):
    K = 4
    X, y = _data(2, K=K)
    n, d = X.shape
    D = d + intercept
    for label, Xin, Xk in _layouts(X):
        ref = getattr(mbref, name)(fit_intercept=intercept, multi_class="multiclass", **params)
        ref.partial_fit(Xin, y, classes=list(range(K)))
        W, S = np.zeros(K * D), np.ones(K * D)
        counts = np.zeros(3, dtype=np.int64)
        pred = np.empty(n, dtype=np.int32)
        status, _ = kso.so_mc_pass(rule, intercept, p0, p1, FLOOR, K, W, S, d, counts, Xk,
                                   y.astype(np.int32), pred)
        assert status == 0, label
        assert np.array_equal(W, np.array(ref._W).ravel()), label
        assert np.array_equal(S, np.array(ref._SK).ravel()), label
        assert counts[1] == ref.mistakes_, label


@pytest.mark.parametrize("p", [2.0, 3.0])
@pytest.mark.parametrize("intercept", [False, True], ids=["", "intercept"])
def test_alma_pass_equals_the_twin(p, intercept):
    X, y = _data(3)
    n, d = X.shape
    D = d + intercept
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    for label, Xin, Xk in _layouts(X):
        ref = mbref.ALMA(p=p, alpha=0.8, fit_intercept=intercept)
        ref.partial_fit(Xin, y, classes=[0, 1])
        w, T, k = np.zeros(D), np.zeros(D), np.ones(1)
        counts = np.zeros(3, dtype=np.int64)
        status, _ = kso.alma_pass(p, 0.8, 1.0 / 0.8, math.sqrt(2.0), intercept, False, w, T, k,
                                  d, counts, Xk, yy)
        assert status == 0, label
        assert np.array_equal(w, np.array(ref._w)) and np.array_equal(T, np.array(ref._T))
        assert k[0] == ref._k[0] and counts[1] == ref.mistakes_, label


@pytest.mark.parametrize("full", [False, True], ids=["diagonal", "full"])
@pytest.mark.parametrize("name,params,rule,p0,p1", RULES, ids=IDS)
def test_a_bad_row_leaves_every_array_as_it_was(name, params, rule, p0, p1, full):
    X, y = _data(4)
    n, d = X.shape
    X = X.copy()
    X[150, 3] = np.nan
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    w, S = np.zeros(d), (np.eye(d).ravel() if full else np.ones(d))
    V = np.zeros(d) if rule >= 5 else None
    counts = np.zeros(3, dtype=np.int64)
    kso.so_pass(rule, full, False, False, p0, p1, FLOOR, w, S, d, counts, X[:100], yy[:100],
                V=V)
    before = [a.copy() for a in (w, S, counts) + ((V,) if V is not None else ())]
    status, bad = kso.so_pass(rule, full, False, False, p0, p1, FLOOR, w, S, d, counts,
                              X[100:], yy[100:], V=V)
    assert (status, bad) == (1, 50)
    after = (w, S, counts) + ((V,) if V is not None else ())
    assert all(np.array_equal(a, b) for a, b in zip(after, before))


def test_the_exact_cw_step_stays_finite_over_a9a():
    """The diagonal CW rule over all of a9a, dense, three passes: no row is refused, every
    variance stays at or above the floor (a * 2**-52) and finite, the weights finite.  With
    the floor at 2**-1022 a variance reached it within the first pass and a later step
    multiplied an infinite coefficient by a zero value."""
    from mbcore.datasets import load_a9a
    X, y = load_a9a()[:2]
    X = np.ascontiguousarray(X, dtype=np.float64)
    yy = np.where(y == y.max(), 1, -1).astype(np.int8)
    d = X.shape[1]
    w, S = np.zeros(d), np.ones(d)
    counts = np.zeros(3, dtype=np.int64)
    for _ in range(3):
        status, bad = kso.so_pass(1, False, False, False, phi(0.7), 0.0, FLOOR, w, S, d, counts,
                                  X, yy)
        assert (status, bad) == (0, -1)
    assert counts[0] == 3 * X.shape[0]
    assert np.all(np.isfinite(w)) and np.all(np.isfinite(S)) and S.min() >= FLOOR
    assert S.min() == FLOOR             # (the floor is what held: this stream reaches it)


def test_entry_points_refuse_arrays_that_do_not_match():
    X, y = _data(5)
    n, d = X.shape
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    w, S, counts = np.zeros(d), np.ones(d), np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError):
        kso.so_pass(0, False, False, False, 1.0, 0.0, FLOOR, w, S, d + 1, counts, X, yy)
    with pytest.raises(ValueError):
        kso.so_pass(0, True, False, False, 1.0, 0.0, FLOOR, w, S, d, counts, X, yy)
    with pytest.raises(ValueError):
        kso.so_pass(9, False, False, False, 1.0, 0.0, FLOOR, w, S, d, counts, X, yy)
    with pytest.raises(ValueError):
        kso.so_pass(0, False, False, False, 1.0, 0.0, 0.0, w, S, d, counts, X, yy)
    with pytest.raises(ValueError):         # NAROW without theta
        kso.so_pass(5, False, False, False, 1.0, 0.0, FLOOR, w, S, d, counts, X, yy)
    with pytest.raises(ValueError):
        kso.so_mc_pass(5, False, 1.0, 0.0, FLOOR, 3, np.zeros(3 * d), np.ones(3 * d), d,
                       counts, X, (y % 3).astype(np.int32))
    with pytest.raises(ValueError):
        kso.so_mc_pass(0, False, 1.0, 0.0, FLOOR, 3, np.zeros(3 * d), np.ones(3 * d), d,
                       counts, X, np.full(n, 3, dtype=np.int32))
    assert not w.any() and np.all(S == 1.0) and not counts.any()
