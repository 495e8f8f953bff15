"""Benchmarks of mbcore.PassiveAggressive (PA-I, C = 1) against scikit-learn's
PassiveAggressiveClassifier and the pure-Python twin (mbref).  What each one times is in
bench/README.md, section "Passive-Aggressive against scikit-learn".

The target: one pass of ``mbcore.PassiveAggressive().partial_fit(X, y)`` on a fresh learner, the
path a user takes by default (default ``n_jobs``, i.e. every core; labels inferred from y), is at
least 3x faster than one epoch of
``PassiveAggressiveClassifier(C=1.0, fit_intercept=False, shuffle=False, max_iter=1,
tol=None).fit(X, y)`` (``loss="hinge"``, PA-I: the same steps, equal weights to rounding).
scikit-learn's ``fit`` is timed (one epoch, with its own input checks and label inference, like
mbcore's ``partial_fit``), inside ``warnings.catch_warnings`` (the class is deprecated since
scikit-learn 1.8: FutureWarning; max_iter=1: ConvergenceWarning).  Three workloads:

* a9a, bundled (``mbcore.datasets.load_a9a()``): 32,561 x 123, dense float64 0/1;
* the same a9a as ``scipy.sparse.csr_matrix`` (14 non-zeros per row on average);
* the dense 200,000 x 100 data of conftest.py (``make_dense``), plus the twin
  ``mbref.PassiveAggressive`` and mbcore on the first 2,000 rows (the same NumPy arrays).

Reported without a target: a9a tiled 10 times (325,610 rows, a steadier time), scikit-learn's
``partial_fit`` (one call, classes given) on a9a, and diagnostics: the pass with ``n_jobs=1``, the
compiled pass alone (``lin_pass`` on a bound state, one thread),
``partial_fit`` on a learner that has already seen a9a once (no label inference or allocation of
a fresh learner), and ``X @ w`` on a9a (the read-only floor; dense with the default BLAS
threads and with one: their ratio says whether the second core was free).

Threads.  The default pass runs on every core (2 here); after a multithreaded ``X @ w`` OpenBLAS's
threads spin on the second core for 0.1-0.2 s, so the floors are timed last and every test
busy-waits 0.3 s before its rounds (as in test_bench_speculative.py).

Not part of the default test run.  Run from the repository root (about a minute on 2 cores):

    python -m pytest bench/test_bench_pa.py -p no:cacheprovider --benchmark-only

Stateful work (a pass) gets a fresh learner per round from ``setup`` (not timed); the ratios
(bench/report.py, keys ``pa.*``) are printed at the end of the session, from this one session.
"""

import copy
import operator
import time
import types
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore._kernels import linear as _k
from mbcore.datasets import load_a9a

sklearn_lm = pytest.importorskip("sklearn.linear_model")
if not hasattr(sklearn_lm, "PassiveAggressiveClassifier"):
    pytest.skip("this scikit-learn has no PassiveAggressiveClassifier", allow_module_level=True)

C = 1.0
SLICE_N = 2_000                 # rows given to the twin (and to mbcore, the same slice)
A9A_TILE = 10                   # a9a x 10 = 325,610 rows (info rows)
SETTLE = 0.3                    # s busy-waited before each test's rounds (OpenBLAS spin-wait)
# A pass on a9a takes about 5 ms (dense) / 2 ms (CSR), sklearn's epoch 15 / 5 ms; on the dense
# 200k x 100 data about 10 ms and 40 ms; a9a x 10 about 45 and 130 ms; the twin about 0.2 s on
# 2,000 rows.
PASS_ROUNDS, PASS_WARMUP = 40, 3
SK_ROUNDS = 20
TILE_ROUNDS, TILE_SK_ROUNDS = 15, 8
FLOOR_ROUNDS, FLOOR_WARMUP = 60, 5


def _mb_pa():
    return mbcore.PassiveAggressive(C=C)          # variant="PA-I", default n_jobs


def _twin_pa():
    return mbref.PassiveAggressive(C=C)


def _sk_pa():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # (FutureWarning: deprecated since 1.8)
        return sklearn_lm.PassiveAggressiveClassifier(C=C, loss="hinge", fit_intercept=False,
                                                      shuffle=False, max_iter=1, tol=None)


def _sk_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # FutureWarning, ConvergenceWarning (max_iter=1)
        return est.fit(X, y)


def _sk_partial_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.partial_fit(X, y, classes=np.array([-1, 1]))


def _pf(learner, X, y):
    return learner.partial_fit(X, y)


def _fresh(make, *args):
    """A pedantic setup: a new learner per round, followed by the arguments."""
    def setup():
        return (make(), *args), {}
    return setup


def _copied(learner, *args):
    """A pedantic setup: a deep copy of ``learner`` per round, followed by the arguments."""
    def setup():
        return (copy.deepcopy(learner), *args), {}
    return setup


def _settle():
    """Busy-wait SETTLE seconds on this core, so that OpenBLAS workers left spinning by an
    earlier multithreaded BLAS call (the data fixtures) have gone to sleep before the rounds."""
    end = time.perf_counter() + SETTLE
    while time.perf_counter() < end:
        pass


def _info(benchmark, learner):
    benchmark.extra_info["mistakes"] = int(learner.mistakes_)
    benchmark.extra_info["updates"] = int(learner.updates_)


# -- data (once per module) --------------------------------------------------------------------
@pytest.fixture(scope="module")
def a9a():
    X, y = load_a9a()
    X = np.ascontiguousarray(X, dtype=np.float64)
    return types.SimpleNamespace(X=X, y=y, csr=sp.csr_matrix(X),
                                 w=np.random.default_rng(0).standard_normal(X.shape[1]))


@pytest.fixture(scope="module")
def a9a_x10(a9a):
    return types.SimpleNamespace(X=np.tile(a9a.X, (A9A_TILE, 1)), y=np.tile(a9a.y, A9A_TILE))


@pytest.fixture(scope="module")
def dense_slice(dense):
    """The first SLICE_N rows of the dense data, as the NumPy arrays given to both mbcore and
    the twin."""
    return types.SimpleNamespace(X=np.ascontiguousarray(dense.X[:SLICE_N]),
                                 y=dense.y[:SLICE_N].copy())


def _bound_state(X, y):
    """A fresh PassiveAggressive's kernel state (w = 0, counts = 0), bound to its arrays."""
    p = _mb_pa()
    p.partial_fit(X[:1], y[:1], classes=[-1, 1])
    p._w[:] = 0.0
    p._counts[:] = 0
    return p._state()


# =============================================================================================
# a9a, dense float64 (32,561 x 123): the target
# =============================================================================================

@pytest.mark.benchmark(group="pa-a9a")
def test_a9a_pass(benchmark, record, a9a):
    """mbcore.PassiveAggressive(C=1).partial_fit(X, y) on a fresh learner: one pass, default
    n_jobs, labels inferred, validation included."""
    record("pa.a9a.mbcore.pa1", a9a.X.shape[0])
    _info(benchmark, _mb_pa().partial_fit(a9a.X, a9a.y))
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(_mb_pa, a9a.X, a9a.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-a9a")
def test_a9a_sklearn_epoch(benchmark, record, a9a):
    """PassiveAggressiveClassifier(C=1, fit_intercept=False, shuffle=False, max_iter=1,
    tol=None).fit(X, y): one epoch."""
    record("pa.a9a.sklearn.pa1", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_pa, a9a.X, a9a.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-a9a")
def test_a9a_sklearn_partial_fit(benchmark, record, a9a):
    """The same estimator's partial_fit(X, y, classes=[-1, 1]) on a fresh one: also one epoch."""
    record("pa.a9a.sklearn.pa1_partial_fit", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_partial_fit, setup=_fresh(_sk_pa, a9a.X, a9a.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-a9a-diag")
def test_a9a_pass_1thread(benchmark, record, a9a):
    """The pass with n_jobs=1 (sequential)."""
    record("pa.a9a.mbcore.pa1_t1", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.PassiveAggressive(C=C, n_jobs=1),
                                         a9a.X, a9a.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-a9a-diag")
def test_a9a_pass_again(benchmark, record, a9a):
    """partial_fit(X, y) on a copy of a learner that has made one pass over a9a: the classes are
    known and the weights allocated (the pass itself differs: fewer updates)."""
    p = _mb_pa().partial_fit(a9a.X, a9a.y)
    probe = copy.deepcopy(p).partial_fit(a9a.X, a9a.y)
    benchmark.extra_info["updates"] = int(probe.updates_ - p.updates_)
    record("pa.a9a.mbcore.pa1_again", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_copied(p, a9a.X, a9a.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-a9a-diag")
def test_a9a_kernel_only(benchmark, record, a9a):
    """lin_pass on a fresh bound state, one thread: the pass without any Python-side work
    (private API, may change)."""
    yy = a9a.y.astype(np.int8)
    record("pa.a9a.diag.kernel_only", a9a.X.shape[0])

    def setup():
        return (_bound_state(a9a.X, a9a.y), a9a.X, yy, None, None, True, 1), {}
    _settle()
    benchmark.pedantic(_k.lin_pass, setup=setup, rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


# =============================================================================================
# a9a as CSR (the same data, 451,592 non-zeros)
# =============================================================================================

@pytest.mark.benchmark(group="pa-a9a-csr")
def test_a9a_csr_pass(benchmark, record, a9a):
    record("pa.a9a_csr.mbcore.pa1", a9a.X.shape[0])
    _info(benchmark, _mb_pa().partial_fit(a9a.csr, a9a.y))
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(_mb_pa, a9a.csr, a9a.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-a9a-csr")
def test_a9a_csr_sklearn_epoch(benchmark, record, a9a):
    record("pa.a9a_csr.sklearn.pa1", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_pa, a9a.csr, a9a.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-a9a-csr-diag")
def test_a9a_csr_pass_1thread(benchmark, record, a9a):
    record("pa.a9a_csr.mbcore.pa1_t1", a9a.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.PassiveAggressive(C=C, n_jobs=1),
                                         a9a.csr, a9a.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-a9a-csr-diag")
def test_a9a_csr_kernel_only(benchmark, record, a9a):
    """lin_pass on CSR rows and a fresh bound state, one thread, index checks on (as partial_fit runs
    it on a new batch)."""
    X = a9a.csr
    yy = a9a.y.astype(np.int8)
    record("pa.a9a_csr.diag.kernel_only", X.shape[0])

    def setup():
        return (_bound_state(X, a9a.y), (X.data, X.indices, X.indptr), yy, None, None, True,
                1), {}
    _settle()
    benchmark.pedantic(_k.lin_pass, setup=setup, rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


# =============================================================================================
# a9a tiled 10 times (325,610 x 123, dense): the same comparison on a longer call (info)
# =============================================================================================

@pytest.mark.benchmark(group="pa-a9a-x10")
def test_a9a_x10_pass(benchmark, record, a9a_x10):
    record("pa.a9a_x10.mbcore.pa1", a9a_x10.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(_mb_pa, a9a_x10.X, a9a_x10.y), rounds=TILE_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-a9a-x10")
def test_a9a_x10_sklearn_epoch(benchmark, record, a9a_x10):
    record("pa.a9a_x10.sklearn.pa1", a9a_x10.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_pa, a9a_x10.X, a9a_x10.y),
                       rounds=TILE_SK_ROUNDS, warmup_rounds=1)


# =============================================================================================
# Dense 200,000 x 100 (conftest.make_dense), separable with margin 0.1
# =============================================================================================

@pytest.mark.benchmark(group="pa-dense")
def test_dense_pass(benchmark, record, dense):
    record("pa.dense.mbcore.pa1", dense.X.shape[0])
    _info(benchmark, _mb_pa().partial_fit(dense.X, dense.y))
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(_mb_pa, dense.X, dense.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="pa-dense")
def test_dense_sklearn_epoch(benchmark, record, dense):
    record("pa.dense.sklearn.pa1", dense.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_pa, dense.X, dense.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-dense-slice-2k")
def test_dense_twin_slice(benchmark, record, dense_slice):
    """mbref.PassiveAggressive(C=1).partial_fit on the first 2,000 rows (NumPy arrays)."""
    record("pa.dense.twin.pa1_2k", SLICE_N)
    benchmark.pedantic(_pf, setup=_fresh(_twin_pa, dense_slice.X, dense_slice.y), rounds=3,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="pa-dense-slice-2k")
def test_dense_slice(benchmark, record, dense_slice):
    """mbcore on the same 2,000 rows (below the size at which the pass takes threads)."""
    record("pa.dense.mbcore.pa1_2k", SLICE_N)
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(_mb_pa, dense_slice.X, dense_slice.y), rounds=200,
                       warmup_rounds=5)


# =============================================================================================
# Floors, timed last (a multithreaded X @ w leaves OpenBLAS's threads spinning)
# =============================================================================================

@pytest.mark.benchmark(group="pa-floor")
def test_a9a_floor_matvec(benchmark, record, a9a):
    """X @ w on dense a9a, NumPy's default BLAS threads: the read-only floor."""
    record("pa.a9a.floor.matvec", a9a.X.shape[0])
    benchmark.pedantic(np.matmul, args=(a9a.X, a9a.w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="pa-floor")
def test_a9a_floor_matvec_1thread(benchmark, record, a9a, blas_one_thread):
    """The same X @ w with BLAS limited to one thread (with the default-thread one: whether the
    second core was free)."""
    record("pa.a9a.floor.matvec_1t", a9a.X.shape[0])
    with blas_one_thread():
        benchmark.pedantic(np.matmul, args=(a9a.X, a9a.w), rounds=FLOOR_ROUNDS,
                           warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="pa-floor")
def test_a9a_csr_floor_matvec(benchmark, record, a9a):
    """scipy's CSR X @ w on a9a (one thread)."""
    record("pa.a9a_csr.floor.matvec", a9a.X.shape[0])
    benchmark.pedantic(operator.matmul, args=(a9a.csr, a9a.w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)
