"""Benchmarks of the multithreaded online passes (exact speculative blocks, ``n_jobs``).

The online passes judge rows ahead in parallel from the current weights and update at the first
mistake of a block; the results are the same for any number of threads.  Each workload is timed
with ``n_jobs=2`` (t2, every core of the 2-core benchmark machine) and ``n_jobs=1`` (t1, the
sequential pass), so that report.py can give the speed-up and the issue's targets from one run:

* dense 200,000 x 100 float64 (the ``dense`` fixture): the second and third pass of a Perceptron
  against the default-thread ``X @ w`` (target <= 1.2x), the first pass t2 / t1 (<= 1.05x);
* CSR 100,000 x 10,000, 50 non-zeros per row (the ``csr`` fixture): scikit-learn's Perceptron
  epoch against the first and the second pass (target >= 4x);
* Winnow on Boolean CSR, 100,000 x 10,000, 50 active features per row (the data of
  test_bench_winnow.py), float64 and uint8 values: a pass after the first (<= 40 ns per example);
* the speed-up against the mistake rate: the dense data with 0, 0.1%, 1%, 5% and 20% of the
  labels flipped (seeded), second pass; the mistakes of the timed pass are in
  ``extra_info["mistakes"]`` (the JSON of ``--benchmark-json``), with the mistakes of the first
  pass in ``extra_info["mistakes_pass1"]``;
* K = 10 classes (labels = argmax of a random 10 x 100 matrix times x), second pass.

A "second pass" is ``partial_fit(X, y)`` on a learner that has already made one pass over the same
X: the learner is fitted once per test (not timed) and every round times a ``copy.deepcopy`` of it
(made in ``setup``, not timed).

Threads and timing.  After a multithreaded ``X @ w``, OpenBLAS's worker threads spin-wait on the
second core for about 0.1-0.2 s here; a 2-thread pass started in that window runs at 2-3x its
time.  So the ``X @ w`` floors are timed last, and every test busy-waits 0.3 s once before its
rounds (the data fixtures call BLAS).  The setups do not sleep: on this VM a pass started after
the whole machine idled for 50 ms finds the second core slow to wake, and the 2-thread pass then
takes about twice its back-to-back time (``spec.diag.dense_pass2_t2_after_sleep`` measures that);
the passes of ``fit`` follow each other back to back.

Not part of the default test run.  Run from the repository root (well under a minute on 2 idle
cores):

    python -m pytest bench/test_bench_speculative.py -p no:cacheprovider --benchmark-only
"""

import copy
import operator
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore

sklearn_lm = pytest.importorskip("sklearn.linear_model")

SEED = 20261122
THREADS = (2, 1)                 # n_jobs timed for every workload: t2, t1
NOISE = (("0", 0.0), ("0p001", 0.001), ("0p01", 0.01), ("0p05", 0.05), ("0p2", 0.2))
MC_K = 10
SETTLE = 0.3                     # s busy-waited before each test's rounds (OpenBLAS spin-wait)
IDLE_SLEEP = 0.05                # s slept before each round of the after-sleep diagnostic
# A pass takes 5-30 ms here, sklearn's CSR epoch about 20 ms, the K = 10 pass about 0.1 s.
ROUNDS, WARMUP = 15, 2
SK_ROUNDS = 10
MC_ROUNDS, MC_WARMUP = 10, 1
FLOOR_ROUNDS, FLOOR_WARMUP = 40, 3

# The Winnow workload of bench/test_bench_winnow.py (same sizes, seed and generator).
W_N, W_D, W_K, W_RELEVANT = 100_000, 10_000, 50, 20


def _has_n_jobs(cls):
    return "n_jobs" in cls().get_params()


def _need_n_jobs(cls):
    if not _has_n_jobs(cls):
        pytest.skip(f"mbcore.{cls.__name__} has no n_jobs parameter in this build")


def _pf(learner, X, y):
    learner.partial_fit(X, y)


def _pf01(learner, X, y):
    learner.partial_fit(X, y, classes=[0, 1])


def _mistakes(learner):
    return int(np.sum(learner.mistakes_))


def _settle():
    """Busy-wait SETTLE seconds on this core, so that OpenBLAS workers left spinning by an
    earlier multithreaded BLAS call (the data fixtures) have gone to sleep before the rounds."""
    end = time.perf_counter() + SETTLE
    while time.perf_counter() < end:
        pass


def _fresh(make, X, y):
    """A pedantic setup: a new learner per round."""
    def setup():
        return (make(), X, y), {}
    return setup


def _copied(learner, X, y, sleep=0.0):
    """A pedantic setup: a deep copy of ``learner`` per round (then ``sleep`` seconds idle)."""
    def setup():
        c = copy.deepcopy(learner)
        if sleep:
            time.sleep(sleep)
        return (c, X, y), {}
    return setup


def _after_passes(make, n_jobs, X, y, passes, fit=_pf):
    """A learner with ``n_jobs`` that has made ``passes`` passes over (X, y), and the mistakes
    of each of those passes."""
    learner = make()
    learner.set_params(n_jobs=n_jobs)
    per_pass, before = [], 0
    for _ in range(passes):
        fit(learner, X, y)
        now = _mistakes(learner)
        per_pass.append(now - before)
        before = now
    return learner, per_pass


def _time_next_pass(benchmark, make, n_jobs, X, y, passes_before, rounds=ROUNDS, warmup=WARMUP,
                    fit=_pf, sleep=0.0):
    """Time one more pass on a learner that has made ``passes_before`` passes; the mistakes of
    the timed pass (and of the earlier ones) go to extra_info."""
    learner, earlier = _after_passes(make, n_jobs, X, y, passes_before, fit)
    probe = copy.deepcopy(learner)
    fit(probe, X, y)
    benchmark.extra_info["n_jobs"] = n_jobs
    benchmark.extra_info["mistakes"] = _mistakes(probe) - _mistakes(learner)
    for i, m in enumerate(earlier):
        benchmark.extra_info[f"mistakes_pass{i + 1}"] = m
    _settle()
    benchmark.pedantic(fit, setup=_copied(learner, X, y, sleep), rounds=rounds,
                       warmup_rounds=warmup)


def _sk_perceptron():
    return sklearn_lm.Perceptron(max_iter=1, shuffle=False, tol=None)


def _sk_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # ConvergenceWarning for max_iter=1
        est.fit(X, y)


# -- data --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def noisy(dense):
    """{tag: y} with that fraction of the dense labels flipped (distinct rows, seeded)."""
    out = {}
    n = dense.y.shape[0]
    for i, (tag, rate) in enumerate(NOISE):
        y = dense.y.copy()
        k = int(round(rate * n))
        if k:
            rows = np.random.default_rng(SEED + 100 + i).choice(n, k, replace=False)
            y[rows] = -y[rows]
        out[tag] = y
    return out


@pytest.fixture(scope="module")
def mc10(dense):
    """K = 10 labels for the dense X: argmax over classes of M x, M a random 10 x 100 matrix."""
    M = np.random.default_rng(SEED + 200).standard_normal((MC_K, dense.X.shape[1]))
    return np.argmax(dense.X @ M.T, axis=1).astype(np.int64), M


@pytest.fixture(scope="module")
def winnow_csr():
    """The CSR data of test_bench_winnow.py (same generator and seed): 100,000 rows, 10,000
    Boolean features, 50 active per row (one in each of 50 bands of 200 columns), labels from a
    monotone disjunction of 20 features; float64 and uint8 values."""
    rng = np.random.default_rng(SEED)
    cols = (np.arange(W_K) * (W_D // W_K) +
            rng.integers(0, W_D // W_K, size=(W_N, W_K))).astype(np.int32)
    indptr = np.arange(0, W_N * W_K + 1, W_K, dtype=np.int32)
    X = sp.csr_matrix((np.ones(W_N * W_K), cols.ravel(), indptr), shape=(W_N, W_D))
    X8 = sp.csr_matrix((np.ones(W_N * W_K, dtype=np.uint8), cols.ravel(), indptr),
                       shape=(W_N, W_D))
    rel = rng.choice(W_D, W_RELEVANT, replace=False)
    y = (np.asarray(X[:, rel].sum(axis=1)).ravel() > 0).astype(np.int64)
    return X, X8, y


# =============================================================================================
# Dense 200,000 x 100, separable with margin 0.1: first, second and third pass
# =============================================================================================

@pytest.mark.benchmark(group="spec-dense")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_dense_first_pass(benchmark, record, dense, n_jobs):
    """mbcore.Perceptron(n_jobs).partial_fit(X, y) on a fresh learner (the first pass)."""
    record(f"spec.dense.perceptron_first_t{n_jobs}", dense.X.shape[0])
    benchmark.extra_info["n_jobs"] = n_jobs
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.Perceptron(n_jobs=n_jobs), dense.X,
                                         dense.y), rounds=ROUNDS, warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="spec-dense")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_dense_pass2(benchmark, record, dense, n_jobs):
    """The second pass: partial_fit(X, y) on a Perceptron that has made one pass over X."""
    record(f"spec.dense.perceptron_pass2_t{n_jobs}", dense.X.shape[0])
    _time_next_pass(benchmark, mbcore.Perceptron, n_jobs, dense.X, dense.y, 1)


@pytest.mark.benchmark(group="spec-dense")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_dense_pass3(benchmark, record, dense, n_jobs):
    """The third pass: on a Perceptron that has made two passes over X."""
    record(f"spec.dense.perceptron_pass3_t{n_jobs}", dense.X.shape[0])
    _time_next_pass(benchmark, mbcore.Perceptron, n_jobs, dense.X, dense.y, 2)


@pytest.mark.benchmark(group="spec-dense")
def test_diag_dense_pass2_after_sleep(benchmark, record, dense):
    """As test_dense_pass2 with 2 threads, but the machine idles IDLE_SLEEP s before each round
    (time.sleep in setup): what a pass pays when the second core has to wake up."""
    record("spec.diag.dense_pass2_t2_after_sleep", dense.X.shape[0])
    _time_next_pass(benchmark, mbcore.Perceptron, 2, dense.X, dense.y, 1, sleep=IDLE_SLEEP)


# =============================================================================================
# Speed-up against the mistake rate: dense data with flipped labels, second pass
# =============================================================================================

@pytest.mark.benchmark(group="spec-noise")
@pytest.mark.parametrize("n_jobs", THREADS)
@pytest.mark.parametrize("tag", [t for t, _ in NOISE])
def test_noise_pass2(benchmark, record, dense, noisy, tag, n_jobs):
    """Second pass of a Perceptron on X with a fraction of the labels flipped."""
    record(f"spec.noise{tag}.perceptron_pass2_t{n_jobs}", dense.X.shape[0])
    benchmark.extra_info["noise"] = dict(NOISE)[tag]
    _time_next_pass(benchmark, mbcore.Perceptron, n_jobs, dense.X, noisy[tag], 1)


# =============================================================================================
# K = 10 classes (multi-class Perceptron), dense 200,000 x 100, second pass
# =============================================================================================

@pytest.mark.benchmark(group="spec-mc10")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_mc10_pass2(benchmark, record, dense, mc10, n_jobs):
    """Second pass of Perceptron (multi_class="multiclass") with 10 classes."""
    y, _ = mc10
    record(f"spec.mc10.perceptron_pass2_t{n_jobs}", dense.X.shape[0])
    _time_next_pass(benchmark, mbcore.Perceptron, n_jobs, dense.X, y, 1, rounds=MC_ROUNDS,
                    warmup=MC_WARMUP)


# =============================================================================================
# CSR 100,000 x 10,000, 50 non-zeros per row: against scikit-learn's epoch
# =============================================================================================

@pytest.mark.benchmark(group="spec-csr")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_csr_first_pass(benchmark, record, csr, n_jobs):
    """mbcore.Perceptron(n_jobs).partial_fit on the CSR matrix, fresh learner (validation
    included)."""
    record(f"spec.csr.perceptron_first_t{n_jobs}", csr.X.shape[0])
    benchmark.extra_info["n_jobs"] = n_jobs
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.Perceptron(n_jobs=n_jobs), csr.X,
                                         csr.y), rounds=ROUNDS, warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="spec-csr")
@pytest.mark.parametrize("n_jobs", THREADS)
def test_csr_pass2(benchmark, record, csr, n_jobs):
    """The second pass on the CSR matrix."""
    record(f"spec.csr.perceptron_pass2_t{n_jobs}", csr.X.shape[0])
    _time_next_pass(benchmark, mbcore.Perceptron, n_jobs, csr.X, csr.y, 1)


@pytest.mark.benchmark(group="spec-csr")
def test_csr_sklearn_epoch(benchmark, record, csr):
    """sklearn Perceptron(max_iter=1, shuffle=False, tol=None).fit on the same matrix."""
    record("spec.csr.sklearn_perceptron", csr.X.shape[0])
    _settle()
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_perceptron, csr.X, csr.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


# =============================================================================================
# Winnow, Boolean CSR, 50 active features of 10,000: a pass after the first
# =============================================================================================

@pytest.mark.benchmark(group="spec-winnow")
@pytest.mark.parametrize("n_jobs", THREADS)
@pytest.mark.parametrize("dtype", ["f64", "u8"])
def test_winnow_pass2(benchmark, record, winnow_csr, dtype, n_jobs):
    """partial_fit(X, y, classes=[0, 1]) on a Winnow that has made one pass over X."""
    _need_n_jobs(mbcore.Winnow)
    X, X8, y = winnow_csr
    record(f"spec.winnow.csr_{dtype}_pass2_t{n_jobs}", W_N)
    _time_next_pass(benchmark, mbcore.Winnow, n_jobs, X if dtype == "f64" else X8, y, 1,
                    fit=_pf01)


@pytest.mark.benchmark(group="spec-winnow")
@pytest.mark.parametrize("n_jobs", THREADS)
@pytest.mark.parametrize("dtype", ["f64", "u8"])
def test_winnow_fit_epoch(benchmark, record, winnow_csr, dtype, n_jobs):
    """A later epoch of ``fit`` (private API: the learner's ``_pass`` on the batch that a first
    epoch went through, as ``fit``'s loop runs it: the rows' indices and values were checked by
    that epoch and are not checked again; where that epoch found every value to be 1, the
    later ones read the column indices alone)."""
    _need_n_jobs(mbcore.Winnow)
    X, X8, y = winnow_csr
    Xd = X if dtype == "f64" else X8
    learner = mbcore.Winnow(n_jobs=n_jobs)
    batch, yy = learner._prepare(Xd, y, [0, 1])
    learner._epochs(batch, yy)                   # (converges: the last epoch had no mistake)
    # fit's loop between epochs: _valid_batch is None before the first epoch of the loop, and
    # that epoch (untimed here) leaves what the later ones find (whatever the build keeps)
    learner.__dict__["_valid_batch"] = None
    learner._pass(batch, yy, None, None)
    assert batch.checked and learner.__dict__["_valid_batch"] is batch
    record(f"spec.winnow.csr_{dtype}_fit_epoch_t{n_jobs}", W_N)
    benchmark.extra_info["n_jobs"] = n_jobs
    benchmark.extra_info["epochs_before"] = learner.n_iter_
    _settle()
    benchmark.pedantic(learner._pass, args=(batch, yy, None, None), rounds=ROUNDS,
                       warmup_rounds=WARMUP)
    for key in ("_valid_batch", "_valid_ones"):
        learner.__dict__.pop(key, None)


# =============================================================================================
# Floors, timed last (a multithreaded X @ w leaves OpenBLAS threads spinning for a while)
# =============================================================================================

@pytest.mark.benchmark(group="spec-floor")
def test_floor_matvec(benchmark, record, dense):
    """X @ w on the dense array, NumPy's default BLAS threads (as dense.floor.matvec)."""
    record("spec.floor.matvec", dense.X.shape[0])
    benchmark.pedantic(np.matmul, args=(dense.X, dense.w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="spec-floor")
def test_floor_matvec_1thread(benchmark, record, dense, blas_one_thread):
    """X @ w with BLAS limited to one thread (as dense.floor.matvec_1t)."""
    record("spec.floor.matvec_1t", dense.X.shape[0])
    with blas_one_thread():
        benchmark.pedantic(np.matmul, args=(dense.X, dense.w), rounds=FLOOR_ROUNDS,
                           warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="spec-floor")
def test_floor_matmul_k10(benchmark, record, dense, mc10):
    """X @ M.T, the 10 class scores of every row (default BLAS threads): the K = 10 floor."""
    _, M = mc10
    Mt = np.ascontiguousarray(M.T)
    record("spec.floor.matmul_k10", dense.X.shape[0])
    benchmark.pedantic(np.matmul, args=(dense.X, Mt), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="spec-floor")
def test_csr_floor_matvec(benchmark, record, csr):
    """scipy's CSR X @ w (one thread) on the CSR matrix (as csr.floor.matvec)."""
    w = np.random.default_rng(0).standard_normal(csr.X.shape[1])
    record("spec.floor.csr_matvec", csr.X.shape[0])
    benchmark.pedantic(operator.matmul, args=(csr.X, w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)
