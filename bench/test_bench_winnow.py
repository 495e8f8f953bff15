"""Benchmarks of the Winnow family (issue: multiplicative family and experts).

CSR, N = 100,000 examples, n = 10,000 Boolean features, 50 active per row, labels from a
monotone disjunction of 20 of the features: one online pass of ``mbcore.Winnow`` (validation
included), with the CSR values as float64 (scipy's default) and as uint8; the twin on a 500-row
slice and a NumPy row loop on a 2,000-row slice, compared per row.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref

N, D, K, RELEVANT, SEED = 100_000, 10_000, 50, 20, 20261122


@pytest.fixture(scope="session")
def winnow_csr():
    rng = np.random.default_rng(SEED)
    # 50 distinct sorted columns per row: one in each of 50 bands of 200 columns
    cols = (np.arange(K) * (D // K) + rng.integers(0, D // K, size=(N, K))).astype(np.int32)
    indptr = np.arange(0, N * K + 1, K, dtype=np.int32)
    X = sp.csr_matrix((np.ones(N * K), cols.ravel(), indptr), shape=(N, D))
    X8 = sp.csr_matrix((np.ones(N * K, dtype=np.uint8), cols.ravel(), indptr), shape=(N, D))
    rel = rng.choice(D, RELEVANT, replace=False)
    y = (np.asarray(X[:, rel].sum(axis=1)).ravel() > 0).astype(np.int64)
    return X, X8, y


def _fresh(cls, X, y):
    def setup():
        return (cls(), X, y), {}
    return setup


def _pf(learner, X, y):
    learner.partial_fit(X, y, classes=[0, 1])


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_csr_float64(benchmark, record, winnow_csr):
    """mbcore.Winnow().partial_fit on the float64-valued CSR matrix (validation included)."""
    X, _, y = winnow_csr
    record("winnow.mbcore.csr_f64", N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Winnow, X, y), rounds=20, warmup_rounds=2)


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_csr_uint8(benchmark, record, winnow_csr):
    """The same pass with the CSR values stored as uint8 (a quarter of the value bytes)."""
    _, X8, y = winnow_csr
    record("winnow.mbcore.csr_u8", N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Winnow, X8, y), rounds=20, warmup_rounds=2)


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_predict(benchmark, record, winnow_csr):
    """predict on the same rows with a learner after one pass (no updates)."""
    X, _, y = winnow_csr
    learner = mbcore.Winnow().partial_fit(X, y)
    record("winnow.mbcore.predict_f64", N)
    benchmark.pedantic(learner.predict, args=(X,), rounds=20, warmup_rounds=2)


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_twin_slice(benchmark, record, winnow_csr):
    """mbref.Winnow on the first 500 rows (the twin is slow)."""
    X, _, y = winnow_csr
    record("winnow.twin.csr_500", 500)
    benchmark.pedantic(_pf, setup=_fresh(mbref.Winnow, X[:500], y[:500]), rounds=3,
                       warmup_rounds=1)


def _numpy_winnow(X, y):
    """Winnow2 as a NumPy row loop over CSR rows (float64 weights: fine for 2,000 rows)."""
    w = np.ones(X.shape[1])
    theta = float(X.shape[1])
    indptr, indices = X.indptr, X.indices
    for i in range(X.shape[0]):
        idx = indices[indptr[i]:indptr[i + 1]]
        pred = w[idx].sum() >= theta
        if pred != bool(y[i]):
            w[idx] *= 2.0 if y[i] else 0.5
    return w


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_numpy_loop(benchmark, record, winnow_csr):
    """The NumPy row loop on the first 2,000 rows."""
    X, _, y = winnow_csr
    Xs = X[:2000]
    record("winnow.numpy_loop.csr_2k", 2000)
    benchmark.pedantic(_numpy_winnow, args=(Xs, y[:2000]), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="winnow-dense")
def test_winnow_dense_uint8(benchmark, record):
    """A dense Boolean pass: 200,000 x 100 uint8 (cost proportional to n per row)."""
    rng = np.random.default_rng(SEED + 1)
    Xd = (rng.random((200_000, 100)) < 0.2).astype(np.uint8)
    y = Xd[:, :5].any(axis=1).astype(np.int64)
    record("winnow.mbcore.dense_u8", Xd.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Winnow, Xd, y), rounds=10, warmup_rounds=1)


@pytest.mark.benchmark(group="winnow-csr")
def test_winnow_gather_floor(benchmark, record, winnow_csr):
    """A floor for the pass: NumPy gathering the 5,000,000 weights of the active features and
    summing them per row (w[indices], then a per-row sum; no validation, no decision, no
    update, and the sums in any order)."""
    X, _, y = winnow_csr
    w = np.ones(D)
    idx = X.indices

    def gather_sum():
        return w[idx].reshape(N, K).sum(axis=1)
    record("winnow.floor.gather_sum", N)
    benchmark.pedantic(gather_sum, rounds=20, warmup_rounds=2)


# -- Balanced Winnow: the exact arithmetic and what it costs -------------------------------------

@pytest.mark.benchmark(group="balanced-csr")
def test_balanced_exact(benchmark, record, winnow_csr):
    """BalancedWinnow() on the float64-valued CSR rows: exact mode (the default; float64 sums
    of both sides with error bounds decide almost every row)."""
    X, _, y = winnow_csr
    record("balanced.mbcore.csr_f64_exact", N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.BalancedWinnow, X, y), rounds=10,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="balanced-csr")
def test_balanced_float(benchmark, record, winnow_csr):
    """The same rule in float64 arithmetic (features='real' on the same 0/1 rows: the sums the
    learner made before its exact mode)."""
    X, _, y = winnow_csr
    record("balanced.mbcore.csr_f64_float", N)

    def setup():
        return (mbcore.BalancedWinnow(features="real"), X, y), {}
    benchmark.pedantic(_pf, setup=setup, rounds=10, warmup_rounds=1)


@pytest.mark.benchmark(group="balanced-predict")
def test_balanced_predict_every_row_exact(benchmark, record, winnow_csr):
    """The worst case of the exact mode: w0 = 2**600 and no update yet, so both sides of every
    row are 50 * 2**600 exactly and their float64 difference says nothing about theta = 1:
    predict decides every row by the exact binary sums (sorting 100 exponents and theta's)."""
    X, _, y = winnow_csr
    learner = mbcore.BalancedWinnow(w0=2.0 ** 600).partial_fit(X[:1] * 0, [1], classes=[0, 1])
    record("balanced.mbcore.predict_every_row_exact", N)
    benchmark.pedantic(learner.predict, args=(X,), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="balanced-predict")
def test_balanced_predict_float(benchmark, record, winnow_csr):
    """The same predict in float64 arithmetic (features='real', w0 = 1, no update)."""
    X, _, y = winnow_csr
    learner = mbcore.BalancedWinnow(features="real").partial_fit(X[:1] * 0, [1], classes=[0, 1])
    record("balanced.mbcore.predict_float", N)
    benchmark.pedantic(learner.predict, args=(X,), rounds=5, warmup_rounds=1)
