"""Issue 27's targets against the memory floor, measured interleaved in one process.

Each round runs every workload once, in an order that rotates from round to round, so that all
of them see the same machine (this one is shared: a round-robin keeps a burst of load from
falling on one workload only).  Per workload, the min over rounds; per ratio, min / min and the
median of the per-round ratios.  The ratios are printed and stored in the benchmark's
``extra_info`` (``--benchmark-json``); bench/README.md records them.

Workloads (the paths a user takes by default: no ``n_jobs``, ``partial_fit`` on a new batch):

* dense 200,000 x 100 float64, separable with margin 0.05 (``make_dense(margin=0.05)``):
  the first ``partial_fit`` of a fresh ``Perceptron()``; a later ``partial_fit`` on a new batch
  (a learner fitted on one batch, then given another array of the same shape);
  ``predict`` and ``decision_function`` of a fitted learner on 200,000 rows; the floor ``X @ w``
  with NumPy's default BLAS threads.
* CSR 100,000 x 10,000, 50 non-zeros per row (``make_csr``): the first ``partial_fit``, a
  second pass (``partial_fit`` again on the same matrix), scikit-learn's
  ``Perceptron(max_iter=1, shuffle=False, tol=None).fit`` and SciPy's ``X @ w``; and the pass
  with the opt-in AVX2 gather (``mbcore._kernels.linear.gather_impl("avx2")``) against the
  default scalar loop.

Run:  python -m pytest bench/test_bench_floor.py -p no:cacheprovider --benchmark-only -s
"""
import copy
import statistics
import time
import warnings

import numpy as np
import pytest

import mbcore
from mbcore._kernels import linear as klin

sklearn_lm = pytest.importorskip("sklearn.linear_model")

DENSE_ROUNDS = 25
CSR_ROUNDS = 15
# Seconds idle after a multithreaded X @ w: OpenBLAS's threads spin on the other core for
# 0.1-0.2 s after it, and a call started in that window shares its core with them.
SETTLE = 0.25


def _timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def _interleave(workloads, rounds, settle_after=()):
    """{name: [seconds per round]}: each round runs every workload once (setup untimed), the
    order rotated by one each round; after a workload named in ``settle_after`` (a
    multithreaded BLAS call) the next waits SETTLE seconds, untimed."""
    names = list(workloads)
    times = {n: [] for n in names}
    last = None
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            setup, run = workloads[n]
            arg = setup()
            if last in settle_after:
                time.sleep(SETTLE)
            times[n].append(_timed(lambda: run(arg)))
            last = n
    return times


def _ratios(times, pairs):
    """{label: (min / min, median of per-round ratios)} for (label, numerator, denominator)."""
    out = {}
    for label, a, b in pairs:
        out[label] = (min(times[a]) / min(times[b]),
                      statistics.median(x / y for x, y in zip(times[a], times[b])))
    return out


def _report(benchmark, times, ratios, rows):
    benchmark.extra_info["ms_min"] = {k: min(v) * 1e3 for k, v in times.items()}
    benchmark.extra_info["ms_median"] = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    benchmark.extra_info["ratios_min_median"] = ratios
    print()
    for k, v in times.items():
        print(f"  {k:34s} min {min(v) * 1e3:8.2f} ms  median {statistics.median(v) * 1e3:8.2f} ms"
              f"  ({min(v) / rows * 1e9:6.1f} ns/row)")
    for k, (a, b) in ratios.items():
        print(f"  {k:50s} {a:6.3f} (min)  {b:6.3f} (median)")


@pytest.fixture(scope="module")
def dense_pair(makers):
    a = makers.make_dense(margin=0.05)
    b = makers.make_dense(seed=a.X.shape[0] + 7, margin=0.05)
    return a, b


def test_dense_paths_against_the_floor(benchmark, dense_pair):
    a, b = dense_pair
    Xa, ya, Xb, yb = a.X, a.y, b.X, b.y
    fitted = mbcore.Perceptron().partial_fit(Xa, ya)
    w = np.ascontiguousarray(fitted.coef_.ravel())

    workloads = {
        "first partial_fit": (lambda: mbcore.Perceptron(), lambda p: p.partial_fit(Xa, ya)),
        "later partial_fit (new batch)": (lambda: copy.deepcopy(fitted),
                                          lambda p: p.partial_fit(Xb, yb)),
        "predict": (lambda: fitted, lambda p: p.predict(Xb)),
        "decision_function": (lambda: fitted, lambda p: p.decision_function(Xb)),
        "X @ w (default threads)": (lambda: w, lambda v: Xb @ v),
    }
    res = {}

    def go():
        res["times"] = _interleave(workloads, DENSE_ROUNDS,
                                   settle_after=("X @ w (default threads)",))

    benchmark.pedantic(go, rounds=1, iterations=1)
    floor = "X @ w (default threads)"
    ratios = _ratios(res["times"], [
        ("first partial_fit / X @ w (target <= 1.3)", "first partial_fit", floor),
        ("later partial_fit / X @ w (target <= 1.2)", "later partial_fit (new batch)", floor),
        ("predict / X @ w (target <= 1.1)", "predict", floor),
        ("decision_function / X @ w (target <= 1.1)", "decision_function", floor),
    ])
    _report(benchmark, res["times"], ratios, Xa.shape[0])
    assert min(res["times"][floor]) > 0


def _sk_fit(X, y):
    est = sklearn_lm.Perceptron(max_iter=1, shuffle=False, tol=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)


def test_csr_paths_against_scikit_learn(benchmark, csr):
    X, y = csr.X, csr.y
    once = mbcore.Perceptron().partial_fit(X, y)
    w = np.random.default_rng(0).standard_normal(X.shape[1])

    def with_gather(kind, f):
        def run(p):
            klin.gather_impl(kind)
            try:
                f(p)
            finally:
                klin.gather_impl("best")
        return run

    workloads = {
        "first partial_fit": (lambda: mbcore.Perceptron(), lambda p: p.partial_fit(X, y)),
        "second pass": (lambda: copy.deepcopy(once), lambda p: p.partial_fit(X, y)),
        "second pass, AVX2 gather": (lambda: copy.deepcopy(once),
                                     with_gather("avx2", lambda p: p.partial_fit(X, y))),
        "scikit-learn epoch": (lambda: None, lambda _: _sk_fit(X, y)),
        "scipy X @ w": (lambda: w, lambda v: X @ v),
    }
    res = {}

    def go():
        res["times"] = _interleave(workloads, CSR_ROUNDS)

    benchmark.pedantic(go, rounds=1, iterations=1)
    ratios = _ratios(res["times"], [
        ("scikit-learn / first partial_fit (target >= 4)", "scikit-learn epoch",
         "first partial_fit"),
        ("scikit-learn / second pass (target >= 4)", "scikit-learn epoch", "second pass"),
        ("first partial_fit / scipy X @ w", "first partial_fit", "scipy X @ w"),
        ("AVX2 gather / scalar loop, second pass", "second pass, AVX2 gather", "second pass"),
    ])
    _report(benchmark, res["times"], ratios, X.shape[0])
    assert min(res["times"]["scikit-learn epoch"]) > 0
