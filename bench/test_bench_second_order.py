"""Speed of the second-order learners (issue 38): the diagonal passes against the Perceptron's,
and the full-covariance pass against a BLAS floor.  What each one times is in bench/README.md,
section "Second-order learners (issue 38)".

The targets (issue 38, "Speed"):

* each diagonal learner's pass <= 2x the Perceptron's pass on the same data: a9a dense, a9a CSR
  and w8a CSR (the user's path against the Perceptron's default, which takes both cores; also
  against ``Perceptron(n_jobs=1)``, info: the second-order passes are sequential);
* the full-covariance pass at d = 123 (a9a) within 1.5x of a BLAS floor timed in the same run.

Two levels are timed.  The compiled pass alone (``so_pass`` of ``mbcore._kernels.second_order``
on a fresh state, against ``lin_pass`` on a fresh Perceptron state, both on one thread; the
``so_pass`` of a build with or without its variance-floor argument).  The user's path
(``mbcore.<Class>().partial_fit(X, y)`` on a new learner, default ``n_jobs``, against
``mbcore.Perceptron().partial_fit``), skipped for a class mbcore does not have.
The parameters are the classes' defaults: AROW r = 1, CW eta = 0.7, SCW-I and SCW-II C = 1 and
eta = 0.75, NHERD C = 1, NAROW b = 1, the second-order Perceptron a = 1; Sigma_0 = I; no
intercept; tie "negative".  A pass the kernel refuses (status != 0: a covariance that collapsed,
a non-finite step) is reported as a skip naming the row, never timed.

The BLAS floor of a full pass (scipy.linalg.blas, one BLAS thread, the matrix 123 x 123 in
Fortran order): on every row the pass computes u = Sigma x (``dgemv``), and on each update
Sigma -= beta u u^T (``dger``; the second-order Perceptron also w = Sigma theta, one more
``dgemv``), the updates being the rows the pass itself updated (its ``upd`` record, from a
probe pass).  Also timed: ``dger`` on the updates alone, the symmetric form (``dsymv`` and
``dsyr``: half the matrix) and the same Python loop of calls on 1 x 1 arrays (the cost of the
loop and the f2py calls, which the compiled pass does not pay).

Data: a9a from ``mbcore.datasets.load_a9a()`` (32,561 x 123, 0/1), dense float64 and CSR; w8a
(49,749 x 300, CSR) when the environment variable MBCORE_DATA names the datasets' directory
(``w8a/w8a.gz``), else its tests are skipped.

Not part of the default test run.  From the repository root (about 75 s on 2
cores):

    python -m pytest bench/test_bench_second_order.py -p no:cacheprovider --benchmark-only

The pairs that decide a target are also timed in alternation (``test_kernel_interleaved``,
``test_floor_interleaved``): each round runs the second-order pass and then its reference, so
both see the same machine, and the median of the rounds' ratios is kept in ``extra_info``
(``python bench/test_bench_second_order.py --interleaved RUN.json`` lists them).  On a shared
machine these are steadier than the ratio of two tests' times.

The ratios (keys ``so.*``) are printed at the end of the session with the others: this module
adds its ratio lines (``SO_RATIOS``) to bench/report.py's table when it is imported.  For
pytest-benchmark JSON files, ``python bench/test_bench_second_order.py [--markdown] RUN.json
...`` prints bench/report.py's tables with these lines.
"""

import os
import sys
import time
import types
from statistics import NormalDist

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
from mbcore._kernels import linear as _lk
from mbcore._kernels import second_order as _so
from mbcore.datasets import load_a9a
from mbcore.datasets.formats import load_svmlight

SETTLE = 0.3                    # s busy-waited before each test's rounds (as test_bench_pa.py)
# A diagonal pass takes 1-9 ms here, the Perceptron's 0.6-1.5 ms; a full pass at d = 123
# 0.1-0.4 s, its floor about as long.
PASS_ROUNDS, PASS_WARMUP = 40, 3
FULL_ROUNDS, FULL_WARMUP = 8, 1

_PHI = NormalDist().inv_cdf
# name: (kernel rule code, p0, p1, class name, class parameters, label)
RULES = {
    "arow": (0, 1.0, 0.0, "AROW", {"r": 1.0}, "AROW"),
    "cw": (1, _PHI(0.7), 0.0, "ConfidenceWeighted", {"eta": 0.7}, "CW"),
    "scw1": (2, 1.0, _PHI(0.75), "SCW", {"C": 1.0, "eta": 0.75, "variant": "SCW-I"}, "SCW-I"),
    "scw2": (3, 1.0, _PHI(0.75), "SCW", {"C": 1.0, "eta": 0.75, "variant": "SCW-II"},
             "SCW-II"),
    "nherd": (4, 1.0, 0.0, "NHERD", {"C": 1.0}, "NHERD"),
    "narow": (5, 1.0, 0.0, "NAROW", {"b": 1.0}, "NAROW"),
    "sop": (6, 0.0, 0.0, "SecondOrderPerceptron", {"a": 1.0}, "SOP"),
}
DUAL = ("narow", "sop")
DATA = {"a9a": "a9a dense", "a9a_csr": "a9a CSR", "w8a_csr": "w8a CSR"}
FULL = ("arow", "cw", "sop")                  # full-covariance passes timed
FULL_DATA = ("a9a", "a9a_csr")

# -- the ratio lines (bench/report.py's format: label, numerator, denominator, kind, target) ---
SO_RATIOS = []
for _d, _dl in DATA.items():
    for _r, (*_, _label) in RULES.items():
        SO_RATIOS.append((f"SO: {_dl}, {_label} kernel pass / Perceptron kernel pass",
                          f"so.{_d}.kernel.{_r}", f"so.{_d}.kernel.perceptron", "le", 2.0))
for _d, _dl in DATA.items():
    for _r, (*_, _label) in RULES.items():
        SO_RATIOS.append((f"SO: {_dl}, {_label}.partial_fit / Perceptron.partial_fit",
                          f"so.{_d}.mbcore.{_r}", f"so.{_d}.mbcore.perceptron", "le", 2.0))
for _d, _dl in DATA.items():
    for _r, (*_, _label) in RULES.items():
        SO_RATIOS.append((f"SO: {_dl}, {_label}.partial_fit / Perceptron(n_jobs=1) (info)",
                          f"so.{_d}.mbcore.{_r}", f"so.{_d}.mbcore.perceptron_t1", "info", None))
for _r in FULL:
    _label = RULES[_r][-1]
    SO_RATIOS += [
        (f"SO: a9a dense, {_label} full kernel / BLAS floor (gemv + ger)",
         f"so.a9a.kernel.{_r}_full", f"so.a9a.floor.gemv_ger.{_r}", "le", 1.5),
        (f"SO: a9a dense, {_label}(covariance='full').partial_fit / BLAS floor",
         f"so.a9a.mbcore.{_r}_full", f"so.a9a.floor.gemv_ger.{_r}", "le", 1.5),
        (f"SO: a9a dense, {_label} full kernel / symmetric floor (symv + syr) (info)",
         f"so.a9a.kernel.{_r}_full", f"so.a9a.floor.symv_syr.{_r}", "info", None),
        (f"SO: a9a dense, {_label} full kernel / dger on the updates alone (info)",
         f"so.a9a.kernel.{_r}_full", f"so.a9a.floor.ger.{_r}", "info", None),
        (f"SO: a9a CSR, {_label} full kernel / the dense BLAS floor (info)",
         f"so.a9a_csr.kernel.{_r}_full", f"so.a9a.floor.gemv_ger.{_r}", "info", None),
        (f"SO: diag: {_label} floor's loop and calls on 1 x 1 / the floor",
         f"so.a9a.floor.overhead.{_r}", f"so.a9a.floor.gemv_ger.{_r}", "info", None),
    ]
SO_RATIOS += [
    ("SO: diag: a9a, AROW kernel dense / CSR (the zeros of a dense row)", "so.a9a.kernel.arow",
     "so.a9a_csr.kernel.arow", "info", None),
    ("SO: diag: a9a, Perceptron kernel dense / CSR", "so.a9a.kernel.perceptron",
     "so.a9a_csr.kernel.perceptron", "info", None),
    ("SO: a9a dense, AROW kernel pass (ns per example)", "so.a9a.kernel.arow", None,
     "ns_per_row", None),
    ("SO: a9a dense, AROW full kernel pass (ns per example)", "so.a9a.kernel.arow_full", None,
     "ns_per_row", None),
]


def _add_ratios(ratios):
    """Append SO_RATIOS to a RATIOS list (bench/report.py's), each line once."""
    have = {r[0] for r in ratios}
    ratios.extend(r for r in SO_RATIOS if r[0] not in have)


def _session_report():
    """bench/conftest.py's report module (its module name depends on pytest's import mode)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conftest.py")
    for module in list(sys.modules.values()):
        if os.path.abspath(getattr(module, "__file__", None) or "") == here:
            return getattr(module, "report", None)
    return None


if _session_report() is not None:
    _add_ratios(_session_report().RATIOS)     # the session's table (bench/conftest.py)


# -- helpers -----------------------------------------------------------------------------------
def _settle():
    """Busy-wait SETTLE seconds (OpenBLAS workers left spinning go to sleep first)."""
    end = time.perf_counter() + SETTLE
    while time.perf_counter() < end:
        pass


def _rows(X):
    """The pass's view of X: a dense array, or the CSR triple."""
    return (X.data, X.indices, X.indptr) if sp.issparse(X) else X


# so_pass takes the diagonal variances' floor after p1 in later builds (a * 2**-52, a = 1 here)
_TAKES_FLOOR = "double floor" in (_so.so_pass.__doc__ or "").split("\n")[0]
COUNTS = -3                     # the counts array's position among so_pass's arguments


def _so_args(rule, X, y, full=False, upd=None):
    """Positional and keyword arguments of so_pass on a fresh state (w = 0, Sigma_0 = I;
    the second-order Perceptron's diagonal: A = a = 1)."""
    code, p0, p1 = RULES[rule][:3]
    d = X.shape[1]
    S = np.eye(d).ravel() if full else np.ones(d)
    kw = {"V": np.zeros(d) if rule in DUAL else None, "upd": upd}
    floor = (2.0 ** -52,) if _TAKES_FLOOR else ()
    return (code, full, False, False, p0, p1, *floor, np.zeros(d), S, d,
            np.zeros(3, np.int64), _rows(X), y), kw


def _probe(rule, X, y, full=False):
    """One pass; skip (naming the row) when the kernel refuses it.  Returns the upd record."""
    upd = np.zeros(X.shape[0], np.uint8)
    args, kw = _so_args(rule, X, y, full, upd)
    status, bad = _so.so_pass(*args, **kw)
    if status != 0:
        pytest.skip(f"{RULES[rule][-1]}{' (full)' if full else ''} with the default parameters: "
                    f"the kernel refuses row {bad} of this data (status {status}), the pass is "
                    "not timed")
    return upd, args[COUNTS]


def _perceptron_state(X, y):
    p = mbcore.Perceptron(n_jobs=1)
    p.partial_fit(X[:1], y[:1], classes=[-1, 1])
    p._w[:] = 0.0
    p._counts[:] = 0
    return p._state()


def _info(benchmark, counts):
    benchmark.extra_info["mistakes"] = int(counts[1])
    benchmark.extra_info["updates"] = int(counts[2])


def _class(rule, **extra):
    name, params = RULES[rule][3], RULES[rule][4]
    if not hasattr(mbcore, name):
        pytest.skip(f"mbcore has no {name} yet (the compiled classes of issue 38)")
    cls = getattr(mbcore, name)
    return lambda: cls(**params, **extra)


def _pf(learner, X, y):
    return learner.partial_fit(X, y)


def _fresh(make, *args):
    def setup():
        return (make(), *args), {}
    return setup


# -- data --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sodata(shared_data):
    X, y = load_a9a()
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) > 0, 1, -1)
    out = {"a9a": (X, y), "a9a_csr": (sp.csr_matrix(X), y)}
    path = shared_data("w8a", "w8a.gz")
    if path is not None:
        Xw, yw = load_svmlight(path, n_features=300)
        out["w8a_csr"] = (sp.csr_matrix(Xw), np.where(yw > 0, 1, -1))
    return {k: types.SimpleNamespace(X=X, y=y.astype(np.int64), y8=y.astype(np.int8))
            for k, (X, y) in out.items()}


def _data(sodata, name):
    if name not in sodata:
        pytest.skip(f"{name}: set MBCORE_DATA to the datasets' directory (w8a/w8a.gz)")
    return sodata[name]


# =============================================================================================
# The diagonal passes against the Perceptron's, the compiled pass alone (one thread)
# =============================================================================================

@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-kernel")
def test_kernel_perceptron(benchmark, record, sodata, data):
    """lin_pass on a fresh Perceptron state, one thread."""
    D = _data(sodata, data)
    record(f"so.{data}.kernel.perceptron", D.X.shape[0])

    def setup():
        return (_perceptron_state(D.X, D.y), _rows(D.X), D.y8, None, None, True, 1), {}
    _settle()
    benchmark.pedantic(_lk.lin_pass, setup=setup, rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-kernel")
def test_kernel_diagonal(benchmark, record, sodata, data, rule):
    """so_pass, diagonal covariance, on a fresh state (one thread)."""
    D = _data(sodata, data)
    _, counts = _probe(rule, D.X, D.y8)
    _info(benchmark, counts)
    record(f"so.{data}.kernel.{rule}", D.X.shape[0])

    def setup():
        return _so_args(rule, D.X, D.y8)
    _settle()
    benchmark.pedantic(_so.so_pass, setup=setup, rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-kernel-interleaved")
def test_kernel_interleaved(benchmark, sodata, data, rule):
    """so_pass and the Perceptron's lin_pass in alternation, each on a fresh state: the median
    and range of the rounds' ratios in extra_info (``ratios``), the timed call being the pair
    (as test_floor_interleaved)."""
    D = _data(sodata, data)
    _, counts = _probe(rule, D.X, D.y8)
    _info(benchmark, counts)
    ratios = []

    def pair(so_args, so_kw, perceptron_args):
        t0 = time.perf_counter()
        _so.so_pass(*so_args, **so_kw)
        t1 = time.perf_counter()
        _lk.lin_pass(*perceptron_args)
        t2 = time.perf_counter()
        ratios.append((t1 - t0) / (t2 - t1))

    def setup():
        args, kw = _so_args(rule, D.X, D.y8)
        return (args, kw, (_perceptron_state(D.X, D.y), _rows(D.X), D.y8, None, None, True,
                           1)), {}
    _settle()
    benchmark.pedantic(pair, setup=setup, rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)
    r = sorted(ratios[PASS_WARMUP:] or ratios)       # (one call under --benchmark-disable)
    benchmark.extra_info["key"] = f"so.{data}.interleaved.{rule}"
    benchmark.extra_info["ratios"] = [round(v, 4) for v in r]
    benchmark.extra_info["ratio_median"] = round(float(np.median(r)), 4)


# =============================================================================================
# The user's path: partial_fit on a new learner, default n_jobs (when the classes exist)
# =============================================================================================

@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-user")
def test_user_perceptron(benchmark, record, sodata, data):
    D = _data(sodata, data)
    if not hasattr(mbcore, "AROW"):
        pytest.skip("its second-order counterparts are not in mbcore yet")
    record(f"so.{data}.mbcore.perceptron", D.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, D.X, D.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-user")
def test_user_perceptron_1thread(benchmark, record, sodata, data):
    """The Perceptron's pass with n_jobs=1: its default takes both cores, and a busy second
    core slows it (the second-order passes are sequential)."""
    D = _data(sodata, data)
    if not hasattr(mbcore, "AROW"):
        pytest.skip("its second-order counterparts are not in mbcore yet")
    record(f"so.{data}.mbcore.perceptron_t1", D.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(lambda: mbcore.Perceptron(n_jobs=1), D.X, D.y),
                       rounds=PASS_ROUNDS, warmup_rounds=PASS_WARMUP)


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.benchmark(group="so-user")
def test_user_diagonal(benchmark, record, sodata, data, rule):
    D = _data(sodata, data)
    make = _class(rule)
    try:
        probe = make().partial_fit(D.X, D.y)
    except ValueError as e:
        pytest.skip(f"{RULES[rule][-1]} refuses this data with its defaults: {e}")
    _info(benchmark, (0, probe.mistakes_, probe.updates_))
    record(f"so.{data}.mbcore.{rule}", D.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(make, D.X, D.y), rounds=PASS_ROUNDS,
                       warmup_rounds=PASS_WARMUP)


# =============================================================================================
# Full covariance at d = 123 (a9a)
# =============================================================================================

@pytest.mark.parametrize("rule", FULL)
@pytest.mark.parametrize("data", FULL_DATA)
@pytest.mark.benchmark(group="so-full")
def test_kernel_full(benchmark, record, sodata, data, rule):
    """so_pass, full covariance (123 x 123), on a fresh state (one thread)."""
    D = _data(sodata, data)
    _, counts = _probe(rule, D.X, D.y8, full=True)
    _info(benchmark, counts)
    record(f"so.{data}.kernel.{rule}_full", D.X.shape[0])

    def setup():
        return _so_args(rule, D.X, D.y8, full=True)
    _settle()
    benchmark.pedantic(_so.so_pass, setup=setup, rounds=FULL_ROUNDS, warmup_rounds=FULL_WARMUP)


@pytest.mark.parametrize("rule", FULL)
@pytest.mark.benchmark(group="so-full")
def test_user_full(benchmark, record, sodata, rule):
    D = sodata["a9a"]
    make = _class(rule, covariance="full")
    record(f"so.a9a.mbcore.{rule}_full", D.X.shape[0])
    _settle()
    benchmark.pedantic(_pf, setup=_fresh(make, D.X, D.y), rounds=FULL_ROUNDS,
                       warmup_rounds=FULL_WARMUP)


# =============================================================================================
# BLAS floors of the full pass, timed last with one BLAS thread (the pass is sequential)
# =============================================================================================

def _floor_loop(rows, upd, size, symmetric, dual, per_row=True):
    """The floor's calls: per row u = Sigma x (dgemv / dsymv; none without ``per_row``), per
    update Sigma -= beta u u^T (dger / dsyr) and, for a dual rule, w = Sigma theta (dgemv).
    ``size`` 1 gives the loop and calls alone."""
    from scipy.linalg import blas
    S = np.asfortranarray(np.eye(size))
    u = np.zeros(size)
    w = np.zeros(size)
    theta = np.full(size, 1e-3)
    xs = [np.ascontiguousarray(r[:size]) for r in rows]
    flags = [bool(f) for f in upd]
    beta = -1e-12                          # keeps Sigma as it is (the cost does not depend on it)
    mv = blas.dsymv if symmetric else blas.dgemv

    def run():
        for x, f in zip(xs, flags):
            if per_row:
                mv(1.0, S, x, y=u, overwrite_y=True)
            if f:
                if symmetric:
                    blas.dsyr(beta, u, a=S, overwrite_a=True)
                else:
                    blas.dger(beta, u, u, a=S, overwrite_a=True)
                if dual:
                    mv(1.0, S, theta, y=w, overwrite_y=True)
    return run


@pytest.mark.parametrize("kind", ["gemv_ger", "symv_syr", "ger", "overhead"])
@pytest.mark.parametrize("rule", FULL)
@pytest.mark.benchmark(group="so-floor")
def test_floor(benchmark, record, sodata, blas_one_thread, rule, kind):
    """The BLAS floor of the full pass of ``rule`` on a9a dense (module docstring)."""
    D = sodata["a9a"]
    upd, counts = _probe(rule, D.X, D.y8, full=True)
    _info(benchmark, counts)
    d = D.X.shape[1]
    run = _floor_loop(D.X, upd, 1 if kind == "overhead" else d, kind == "symv_syr",
                      rule in DUAL, per_row=kind != "ger")
    record(f"so.a9a.floor.{kind}.{rule}", D.X.shape[0])
    with blas_one_thread():
        _settle()
        benchmark.pedantic(run, rounds=FULL_ROUNDS, warmup_rounds=FULL_WARMUP)


@pytest.mark.parametrize("rule", FULL)
@pytest.mark.benchmark(group="so-floor")
def test_floor_interleaved(benchmark, sodata, blas_one_thread, rule):
    """The full pass against its floor (gemv + ger) in alternation: each round times the
    compiled pass on a fresh state and then the floor, so that both see the same machine; the
    median and the range of the rounds' ratios are in extra_info (``ratios``), the timed call
    being the pair.  A steadier ratio than two tests' times when other jobs share the cores."""
    D = sodata["a9a"]
    upd, counts = _probe(rule, D.X, D.y8, full=True)
    _info(benchmark, counts)
    floor = _floor_loop(D.X, upd, D.X.shape[1], False, rule in DUAL)
    ratios = []

    def pair(*args, **kw):
        t0 = time.perf_counter()
        _so.so_pass(*args, **kw)
        t1 = time.perf_counter()
        floor()
        t2 = time.perf_counter()
        ratios.append((t1 - t0) / (t2 - t1))

    def setup():
        return _so_args(rule, D.X, D.y8, full=True)
    with blas_one_thread():
        _settle()
        benchmark.pedantic(pair, setup=setup, rounds=FULL_ROUNDS, warmup_rounds=FULL_WARMUP)
    r = sorted(ratios[FULL_WARMUP:] or ratios)       # (one call under --benchmark-disable)
    benchmark.extra_info["key"] = f"so.a9a.interleaved.{rule}_full"
    benchmark.extra_info["ratios"] = [round(v, 4) for v in r]
    benchmark.extra_info["ratio_median"] = round(float(np.median(r)), 4)


# -- bench/report.py's tables for JSON files, with these ratio lines ---------------------------
def _report_main(argv):
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("mbcore_bench_report",
                                                  os.path.join(here, "report.py"))
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    _add_ratios(report.RATIOS)
    return report.main(argv)


def _interleaved(paths):
    """The interleaved ratios of pytest-benchmark JSON files: median and range per pair."""
    import json
    for path in paths:
        with open(path) as fh:
            doc = json.load(fh)
        print(f"== {path} ({doc.get('datetime', '?')}, load average at the start "
              f"{doc.get('machine_info', {}).get('mbcore_loadavg_start')})")
        for b in doc.get("benchmarks", []):
            info = b.get("extra_info") or {}
            if "ratio_median" in info:
                r = info["ratios"]
                print(f"{info['key']:<32} median {info['ratio_median']:.3f}  "
                      f"range {r[0]:.3f} .. {r[-1]:.3f}  ({len(r)} rounds)")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--interleaved"]:
        sys.exit(_interleaved(sys.argv[2:]))
    sys.exit(_report_main(sys.argv[1:]))
