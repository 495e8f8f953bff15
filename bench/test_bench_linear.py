"""Benchmarks of the additive family (mbcore.linear) against the memory floor, scikit-learn, a
NumPy row loop and the pure-Python twin (mbref).  What each one times is in bench/README.md.

Not part of the default test run (testpaths = ["tests"]).  Run from the repository root:

    python -m pytest bench -p no:cacheprovider --benchmark-only

Stateful work (a pass) gets a fresh learner per round from ``setup``; the ratios are printed at
the end of the session (conftest.py / report.py), from numbers measured in this one session.
"""

import types
import operator
import warnings

import numpy as np
import pytest

import mbcore
import mbref
from mbcore import _validation
from mbcore._kernels import linear as _k


sklearn_lm = pytest.importorskip("sklearn.linear_model")

OWNER = "Perceptron"
SLICE_N = 2_000         # rows given to the pure-Python twin (and to mbcore, same slice)
PREDICT_N = 100_000     # rows given to predict
KP_TWIN_N = 300         # rows given to the KernelPerceptron twin (and to mbcore, same slice)
ONE_ROW_FIT = 1_000     # rows seen before the single-row benchmarks
# Rounds are chosen so that the whole suite stays well under five minutes on 2 cores.
PASS_ROUNDS, PASS_WARMUP = 40, 3
FLOOR_ROUNDS, FLOOR_WARMUP = 60, 5
SK_ROUNDS = 20
ROW_ITER, ROW_ROUNDS = 1_000, 50


def _sk_perceptron():
    return sklearn_lm.Perceptron(max_iter=1, shuffle=False, tol=None)


def _sk_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # ConvergenceWarning for max_iter=1
        return est.fit(X, y)


def _fresh(make, *args):
    """A pedantic setup: a new learner per round, followed by the arguments."""
    def setup():
        return (make(), *args), {}
    return setup


def _pf(learner, X, y):
    return learner.partial_fit(X, y)


def _numpy_loop_perceptron(X, y):
    """The Perceptron as a plain NumPy row loop (tie negative, eta 1, no intercept)."""
    w = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        pred = 1 if X[i] @ w > 0.0 else -1
        if pred != y[i]:
            w += y[i] * X[i]
    return w


@pytest.fixture(scope="module")
def dense_slice(dense):
    """The first SLICE_N rows, as the NumPy arrays given to both mbcore and the twin.

    (The twin accepts NumPy rows and is faster on them than on Python lists: about 140 ms
    against 190 ms for these 2,000 rows, nearly all of it in its input checks.)"""
    X = np.ascontiguousarray(dense.X[:SLICE_N])
    y = dense.y[:SLICE_N].copy()
    return types.SimpleNamespace(X=X, y=y)


# =============================================================================================
# Dense, N = 200,000, d = 100, float64, separable with margin 0.1
# =============================================================================================

@pytest.mark.benchmark(group="dense-pass")
def test_floor_matvec(benchmark, record, dense):
    """The memory floor: X @ w over the same array, NumPy's default BLAS threads."""
    record("dense.floor.matvec", dense.X.shape[0])
    benchmark.pedantic(np.matmul, args=(dense.X, dense.w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="dense-pass")
def test_floor_matvec_1thread(benchmark, record, dense, blas_one_thread):
    """The memory floor with BLAS limited to one thread (the Perceptron pass is sequential)."""
    record("dense.floor.matvec_1t", dense.X.shape[0])
    with blas_one_thread():
        benchmark.pedantic(np.matmul, args=(dense.X, dense.w), rounds=FLOOR_ROUNDS,
                           warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="dense-pass")
def test_perceptron_pass(benchmark, record, dense):
    """mbcore.Perceptron().partial_fit(X, y) on a fresh learner: one online pass."""
    record("dense.mbcore.perceptron", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense.X, dense.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="dense-pass")
def test_sklearn_perceptron_epoch(benchmark, record, dense):
    """scikit-learn Perceptron(max_iter=1, shuffle=False, tol=None).fit(X, y): one epoch."""
    record("dense.sklearn.perceptron", dense.X.shape[0])
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_perceptron, dense.X, dense.y),
                       rounds=SK_ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-pass")
def test_perceptron_pass_intercept(benchmark, record, dense):
    """As test_perceptron_pass with fit_intercept=True (what sklearn's default does)."""
    record("dense.mbcore.perceptron_intercept", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.Perceptron(fit_intercept=True),
                                         dense.X, dense.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="dense-pass")
def test_perceptron_pass_float32(benchmark, record, dense, dense32):
    """The same pass on the float32 copy of X (half the bytes to read)."""
    record("dense.mbcore.perceptron_f32", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense32, dense.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="dense-pass-family")
def test_perceptron_normalize_pass(benchmark, record, dense):
    """Perceptron(normalize=True): the Perceptron pass plus a per-row squared norm (sumsq_vals),
    which MarginPerceptron also pays."""
    record("dense.mbcore.perceptron_normalize", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.Perceptron(normalize=True), dense.X,
                                         dense.y),
                       rounds=PASS_ROUNDS // 2, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-pass-family")
def test_margin_pass(benchmark, record, dense):
    record("dense.mbcore.margin", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.MarginPerceptron, dense.X, dense.y),
                       rounds=PASS_ROUNDS // 2, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-pass-family")
def test_averaged_pass(benchmark, record, dense):
    record("dense.mbcore.averaged", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.AveragedPerceptron, dense.X, dense.y),
                       rounds=PASS_ROUNDS // 2, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-pass-family")
def test_hinge_pass(benchmark, record, dense):
    record("dense.mbcore.hinge", dense.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.OnlineHingeSVM, dense.X, dense.y),
                       rounds=PASS_ROUNDS // 2, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-slice-2k")
def test_twin_perceptron_slice(benchmark, record, dense_slice):
    """mbref.Perceptron().partial_fit on the first 2,000 rows (the same NumPy arrays)."""
    record("dense.twin.perceptron_2k", SLICE_N)
    benchmark.pedantic(_pf, setup=_fresh(mbref.Perceptron, dense_slice.X, dense_slice.y),
                       rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-slice-2k")
def test_diag_twin_arithmetic_slice(benchmark, record, dense_slice):
    """The twin's online pass alone (mbref's _run on rows it already validated and converted):
    what is left of the twin's time without its input checks (private API, may change)."""
    record("diag.twin.perceptron_2k_run", SLICE_N)

    def setup():
        p = mbref.Perceptron()
        rows, yy = p._prepare(dense_slice.X, dense_slice.y, None)
        return (p, rows, yy), {}

    def run(p, rows, yy):
        return p._run(rows, yy)
    benchmark.pedantic(run, setup=setup, rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="dense-slice-2k")
def test_perceptron_slice(benchmark, record, dense_slice):
    """mbcore.Perceptron on the same 2,000 rows (NumPy arrays)."""
    record("dense.mbcore.perceptron_2k", SLICE_N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense_slice.X, dense_slice.y),
                       rounds=200, warmup_rounds=5)


@pytest.mark.benchmark(group="dense-slice-2k")
def test_numpy_loop_slice(benchmark, record, dense_slice):
    """The Perceptron as a NumPy row loop on the same 2,000 rows."""
    record("dense.numpy_loop.perceptron_2k", SLICE_N)
    benchmark.pedantic(_numpy_loop_perceptron, args=(dense_slice.X, dense_slice.y), rounds=10,
                       warmup_rounds=1)


# =============================================================================================
# CSR, N = 100,000, 10,000 features, 50 non-zeros per row
# =============================================================================================

@pytest.mark.benchmark(group="csr-pass")
def test_csr_perceptron_pass(benchmark, record, csr):
    record("csr.mbcore.perceptron", csr.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, csr.X, csr.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="csr-pass")
def test_csr_floor_matvec(benchmark, record, csr):
    """The CSR floor: scipy's X @ w (one thread), reading the same data, indices and indptr."""
    w = np.random.default_rng(0).standard_normal(csr.X.shape[1])
    record("csr.floor.matvec", csr.X.shape[0])
    benchmark.pedantic(operator.matmul, args=(csr.X, w), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="csr-pass")
def test_csr_sklearn_perceptron_epoch(benchmark, record, csr):
    record("csr.sklearn.perceptron", csr.X.shape[0])
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_perceptron, csr.X, csr.y),
                       rounds=SK_ROUNDS, warmup_rounds=1)


# =============================================================================================
# One row, d = 100, on an already-fitted learner
# =============================================================================================

@pytest.fixture(scope="module")
def one_row(dense):
    x1 = np.ascontiguousarray(dense.X[ONE_ROW_FIT:ONE_ROW_FIT + 1])      # shape (1, 100)
    y1 = np.ascontiguousarray(dense.y[ONE_ROW_FIT:ONE_ROW_FIT + 1])      # shape (1,), int64
    return x1, y1


def _fitted(make, dense, **kw):
    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.partial_fit(dense.X[:ONE_ROW_FIT], dense.y[:ONE_ROW_FIT], classes=[-1, 1], **kw)
    return est


@pytest.mark.benchmark(group="one-row")
def test_row_partial_fit(benchmark, record, dense, one_row):
    """mbcore.Perceptron.partial_fit(x1, y1), many calls per round; time per call."""
    record("row.mbcore.partial_fit", 1)
    p = _fitted(mbcore.Perceptron, dense)
    benchmark.pedantic(p.partial_fit, args=one_row, iterations=ROW_ITER, rounds=ROW_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="one-row")
def test_row_sklearn_perceptron_partial_fit(benchmark, record, dense, one_row):
    record("row.sklearn.perceptron_partial_fit", 1)
    est = _fitted(sklearn_lm.Perceptron, dense)
    benchmark.pedantic(est.partial_fit, args=one_row, iterations=20, rounds=15, warmup_rounds=1)


@pytest.mark.benchmark(group="one-row")
def test_row_sklearn_sgd_partial_fit(benchmark, record, dense, one_row):
    record("row.sklearn.sgd_partial_fit", 1)
    est = _fitted(sklearn_lm.SGDClassifier, dense)
    benchmark.pedantic(est.partial_fit, args=one_row, iterations=20, rounds=15, warmup_rounds=1)


# =============================================================================================
# predict on 100,000 rows, d = 100
# =============================================================================================

@pytest.fixture(scope="module")
def fitted_predict(dense):
    p = mbcore.Perceptron().partial_fit(dense.X, dense.y)
    Xp = dense.X[:PREDICT_N]                  # a C-contiguous view, no copy
    assert Xp.flags.c_contiguous
    return p, Xp, np.ascontiguousarray(p.coef_)


@pytest.mark.benchmark(group="predict")
def test_predict(benchmark, record, fitted_predict):
    p, Xp, _ = fitted_predict
    record("predict.mbcore.predict", PREDICT_N)
    benchmark.pedantic(p.predict, args=(Xp,), rounds=FLOOR_ROUNDS, warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="predict")
def test_diag_decision_function(benchmark, record, fitted_predict):
    """decision_function: predict without the mapping of the scores to labels."""
    p, Xp, _ = fitted_predict
    record("diag.predict.decision_function", PREDICT_N)
    benchmark.pedantic(p.decision_function, args=(Xp,), rounds=FLOOR_ROUNDS,
                       warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="predict")
def test_predict_floor_matvec(benchmark, record, fitted_predict):
    _, Xp, w = fitted_predict
    record("predict.floor.matvec", PREDICT_N)
    benchmark.pedantic(np.matmul, args=(Xp, w), rounds=FLOOR_ROUNDS, warmup_rounds=FLOOR_WARMUP)


@pytest.mark.benchmark(group="predict")
def test_predict_floor_matvec_1thread(benchmark, record, fitted_predict, blas_one_thread):
    _, Xp, w = fitted_predict
    record("predict.floor.matvec_1t", PREDICT_N)
    with blas_one_thread():
        benchmark.pedantic(np.matmul, args=(Xp, w), rounds=FLOOR_ROUNDS,
                           warmup_rounds=FLOOR_WARMUP)


# =============================================================================================
# KernelPerceptron (rbf), d = 20
# =============================================================================================

@pytest.mark.benchmark(group="kernel-perceptron")
def test_kp_rbf_5000(benchmark, record, kp):
    record("kp.mbcore.rbf_5000", kp.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.KernelPerceptron(kernel="rbf"),
                                         kp.X, kp.y), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="kernel-perceptron")
def test_kp_rbf_slice(benchmark, record, kp):
    X, y = np.ascontiguousarray(kp.X[:KP_TWIN_N]), kp.y[:KP_TWIN_N].copy()
    record("kp.mbcore.rbf_300", KP_TWIN_N)
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.KernelPerceptron(kernel="rbf"), X, y),
                       rounds=50, warmup_rounds=2)


@pytest.mark.benchmark(group="kernel-perceptron")
def test_kp_rbf_twin_slice(benchmark, record, kp):
    X, y = np.ascontiguousarray(kp.X[:KP_TWIN_N]), kp.y[:KP_TWIN_N].copy()
    record("kp.twin.rbf_300", KP_TWIN_N)
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbref.KernelPerceptron(kernel="rbf"), X, y),
                       rounds=3, warmup_rounds=1)


# =============================================================================================
# Diagnostics: the pieces of the passes and of the one-row call (private API, may change)
# =============================================================================================

def _bound_state(X, y, classes=(-1, 1)):
    """A fresh Perceptron's kernel state (w = 0, counts = 0), bound to its arrays."""
    p = mbcore.Perceptron()
    p.partial_fit(X[:1], y[:1], classes=list(classes))
    p._w[:] = 0.0
    p._counts[:] = 0
    return p._state()


@pytest.mark.benchmark(group="diag-dense")
def test_diag_kernel_only(benchmark, record, dense):
    """lin_pass on a fresh bound state: the pass without any Python-side work."""
    yy = dense.y.astype(np.int8)
    record("diag.dense.kernel_only", dense.X.shape[0])

    def setup():
        return (_bound_state(dense.X, dense.y), dense.X, yy, None, None), {}
    benchmark.pedantic(_k.lin_pass, setup=setup, rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="diag-dense")
def test_diag_pass_with_classes(benchmark, record, dense):
    """partial_fit(X, y, classes=[-1, 1]) on a fresh learner: no label inference from y."""
    record("diag.dense.pass_with_classes", dense.X.shape[0])

    def run(p, X, y):
        return p.partial_fit(X, y, classes=[-1, 1])
    benchmark.pedantic(run, setup=_fresh(mbcore.Perceptron, dense.X, dense.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="diag-dense")
def test_diag_infer_classes(benchmark, record, dense):
    record("diag.dense.infer_classes", 1)
    benchmark.pedantic(_validation.infer_classes, args=(OWNER, dense.y), rounds=20,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="diag-dense")
def test_diag_encode_y(benchmark, record, dense):
    record("diag.dense.encode_y", 1)
    args = (OWNER, dense.y, dense.y.shape[0], np.array([-1, 1]))
    benchmark.pedantic(_validation.encode_y, args=args,
                       rounds=20, warmup_rounds=1)


@pytest.mark.benchmark(group="diag-csr")
def test_diag_csr_check_X(benchmark, record, csr):
    record("diag.csr.check_X", 1)
    benchmark.pedantic(_validation.check_X, args=(OWNER, csr.X), rounds=20, warmup_rounds=1)


@pytest.mark.benchmark(group="diag-csr")
def test_diag_csr_kernel_only(benchmark, record, csr):
    X = csr.X
    yy = csr.y.astype(np.int8)
    record("diag.csr.kernel_only", X.shape[0])

    def setup():
        return (_bound_state(X, csr.y), (X.data, X.indices, X.indptr), yy, None, None), {}
    benchmark.pedantic(_k.lin_pass, setup=setup, rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_check_X(benchmark, record, one_row):
    x1, _ = one_row
    record("diag.row.check_X", 1)
    benchmark.pedantic(_validation.check_X, args=(OWNER, x1, x1.shape[1]), iterations=ROW_ITER,
                       rounds=ROW_ROUNDS)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_encode_y(benchmark, record, one_row):
    _, y1 = one_row
    record("diag.row.encode_y", 1)
    out = np.empty(1, dtype=np.int8)
    benchmark.pedantic(_validation.encode_y, args=(OWNER, y1, 1, np.array([-1, 1]), out),
                       iterations=ROW_ITER, rounds=ROW_ROUNDS)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_prepare(benchmark, record, dense, one_row):
    """OnlineLearner._prepare on a fitted learner: check_X + encode_y + bookkeeping."""
    p = _fitted(mbcore.Perceptron, dense)
    record("diag.row.prepare", 1)
    benchmark.pedantic(p._prepare, args=(*one_row, None), iterations=ROW_ITER,
                       rounds=ROW_ROUNDS)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_kernel_call(benchmark, record, dense, one_row):
    """lin_pass on one row with a bound state: the call cost without validation."""
    x1, y1 = one_row
    st = _fitted(mbcore.Perceptron, dense)._state()
    record("diag.row.kernel_call", 1)
    benchmark.pedantic(_k.lin_pass, args=(st, x1, y1.astype(np.int8), None, None),
                       iterations=ROW_ITER, rounds=ROW_ROUNDS)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_lin_step1(benchmark, record, dense, one_row):
    """lin_step1 (the one-row entry point), where the build has it."""
    if not hasattr(_k, "lin_step1"):
        pytest.skip("this build has no lin_step1")
    x1, y1 = one_row
    st = _fitted(mbcore.Perceptron, dense)._state()
    record("diag.row.lin_step1", 1)
    benchmark.pedantic(_k.lin_step1, args=(st, x1, int(y1[0])), iterations=ROW_ITER,
                       rounds=ROW_ROUNDS)


@pytest.mark.benchmark(group="diag-one-row")
def test_diag_row_matvec(benchmark, record, dense, one_row):
    """x1 @ w for one row: the NumPy call overhead, for scale."""
    x1, _ = one_row
    record("diag.row.matvec", 1)
    benchmark.pedantic(np.matmul, args=(x1, dense.w), iterations=ROW_ITER, rounds=ROW_ROUNDS)
