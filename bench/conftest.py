"""Fixtures and the end-of-session report for the mbcore benchmarks (see bench/README.md).

The data is seeded and built once per session (session-scoped fixtures), so every benchmark of a
run times the same arrays.  Each benchmark calls ``record(key, rows)``; when the test ends, its
min / median per call are stored under ``key``, and ``pytest_terminal_summary`` prints the ratios
of ``bench/report.py`` from those numbers, all measured in this one session.
"""

import importlib.util
import os
import platform
import subprocess
import types

import numpy as np
import pytest

# -- sizes and seeds (the workloads) ---------------------------------------------------
DENSE_N, DENSE_D, DENSE_MARGIN = 200_000, 100, 0.1
CSR_N, CSR_D, CSR_NNZ = 100_000, 10_000, 50
KP_N, KP_D = 5_000, 20
SEED = 20261122

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("mbcore_bench_report",
                                               os.path.join(_here, "report.py"))
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)

RESULTS = {}
LOAD = {}


@pytest.fixture(scope="session")
def shared_data():
    """``shared_data("a9a", "a9a.gz")``: that file of the real datasets when the environment
    variable MBCORE_DATA names their directory (laid out as ``NAME/FILE``), else None (the
    benchmarks then generate data of the same shape)."""
    root = os.environ.get("MBCORE_DATA")

    def find(*parts):
        if not root:
            return None
        path = os.path.join(root, *parts)
        return path if os.path.exists(path) else None
    return find


# -- data --------------------------------------------------------------------------------------
def _unit(rng, d):
    u = rng.standard_normal(d)
    return u / np.linalg.norm(u)


def make_dense(seed=SEED, n=DENSE_N, d=DENSE_D, margin=DENSE_MARGIN):
    """n rows of N(0, I_d), kept only where |u.x| >= margin for a random unit u; y = sign(u.x).

    The data is separable by u with margin ``margin`` (about 92% of the draws are kept)."""
    rng = np.random.default_rng(seed)
    u = _unit(rng, d)
    X = np.empty((n, d))
    filled = 0
    while filled < n:
        chunk = rng.standard_normal((50_000, d))
        m = chunk @ u
        keep = np.abs(m) >= margin
        k = min(int(keep.sum()), n - filled)
        X[filled:filled + k] = chunk[keep][:k]
        filled += k
    y = np.where(X @ u > 0, 1, -1).astype(np.int64)
    return types.SimpleNamespace(X=X, y=y, u=u, w=_unit(rng, d))


def make_csr(seed=SEED + 1, n=CSR_N, d=CSR_D, nnz=CSR_NNZ):
    """n rows with exactly ``nnz`` non-zeros N(0, 1) in uniformly random distinct columns
    (sorted, int32 indices); y = sign(u.x) for a random unit u."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    extra = 16
    cols = np.empty((n, nnz), dtype=np.int32)
    todo = np.arange(n)
    while todo.size:
        c = np.sort(rng.integers(0, d, size=(todo.size, nnz + extra)), axis=1)
        dup = np.zeros(c.shape, dtype=bool)
        dup[:, 1:] = c[:, 1:] == c[:, :-1]
        ok = (~dup).sum(axis=1) >= nnz
        keys = rng.random(c.shape)
        keys[dup] = 2.0                       # duplicates are never picked
        pick = np.argpartition(keys[ok], nnz - 1, axis=1)[:, :nnz]
        cols[todo[ok]] = np.sort(np.take_along_axis(c[ok], pick, axis=1), axis=1)
        todo = todo[~ok]
    data = rng.standard_normal(n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((data, cols.ravel(), indptr), shape=(n, d))
    assert X.has_sorted_indices and X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    u = _unit(rng, d)
    y = np.where(X @ u > 0, 1, -1).astype(np.int64)
    return types.SimpleNamespace(X=X, y=y, u=u)


def make_kp(seed=SEED + 2, n=KP_N, d=KP_D):
    """n rows of N(0, I_d); y = +1 outside the median-radius sphere (not linearly separable,
    a job for the RBF kernel)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    r = (X * X).sum(axis=1)
    y = np.where(r > np.median(r), 1, -1).astype(np.int64)
    return types.SimpleNamespace(X=X, y=y)


@pytest.fixture(scope="session")
def dense():
    return make_dense()


@pytest.fixture(scope="session")
def dense32(dense):
    return np.ascontiguousarray(dense.X, dtype=np.float32)


@pytest.fixture(scope="session")
def csr():
    return make_csr()


@pytest.fixture(scope="session")
def makers():
    """The data generators themselves, for benchmarks that need other sizes or margins."""
    return types.SimpleNamespace(make_dense=make_dense, make_csr=make_csr)


@pytest.fixture(scope="session")
def kp():
    return make_kp()


@pytest.fixture(scope="session")
def blas_one_thread():
    """A context-manager factory limiting BLAS to one thread (skips without threadpoolctl)."""
    tpc = pytest.importorskip("threadpoolctl")
    return lambda: tpc.threadpool_limits(limits=1, user_api="blas")


# -- recording ---------------------------------------------------------------------------------
@pytest.fixture
def record(benchmark):
    """record(key, rows): name this benchmark for the ratio table; rows = rows per timed call."""
    keys = []

    def _record(key, rows=1):
        benchmark.extra_info["key"] = key
        benchmark.extra_info["rows"] = int(rows)
        keys.append(key)

    yield _record
    stats = getattr(benchmark, "stats", None)
    if keys and stats is not None and getattr(stats, "stats", None) is not None:
        s = stats.stats
        RESULTS[keys[-1]] = {"min": s.min, "median": s.median, "rounds": s.rounds,
                             "rows": benchmark.extra_info["rows"]}


# -- machine info and the report ---------------------------------------------------------------
def _cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _blas_info():
    try:
        import threadpoolctl
        return [{k: i.get(k) for k in ("internal_api", "version", "num_threads")}
                for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        return "threadpoolctl not installed"


def _git_rev():
    """The commit of the mbcore that was imported (not of this bench directory)."""
    import mbcore
    root = os.path.dirname(os.path.dirname(os.path.abspath(mbcore.__file__)))
    if not os.path.exists(os.path.join(root, ".git")):
        return f"{root} is not a git checkout"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True, timeout=10).stdout
        return rev + ("+dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "?"


def _build_info():
    """Which compiled kernel was loaded, and whether its .pyx is newer (a stale build)."""
    from mbcore._kernels import linear as k
    so = k.__file__
    pyx = os.path.join(os.path.dirname(so), "linear.pyx")
    info = {"so": so, "so_mtime": _mtime(so)}
    if os.path.exists(pyx):
        info["pyx_mtime"] = _mtime(pyx)
        info["stale"] = os.path.getmtime(pyx) > os.path.getmtime(so)
    return info


def _mtime(path):
    import datetime
    return datetime.datetime.fromtimestamp(os.path.getmtime(path)).isoformat(timespec="seconds")


def _versions():
    import mbcore
    out = {"mbcore": getattr(mbcore, "__version__", "?"), "numpy": np.__version__}
    for mod in ("sklearn", "scipy"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:
            pass
    return out


def _loadavg():
    try:
        return tuple(round(x, 2) for x in os.getloadavg())
    except OSError:
        return None


def pytest_sessionstart(session):
    LOAD["start"] = _loadavg()


def pytest_benchmark_update_machine_info(config, machine_info):
    machine_info["mbcore_loadavg_start"] = LOAD.get("start")
    machine_info["mbcore_loadavg_end"] = _loadavg()
    machine_info["mbcore_cpu_model"] = _cpu_model()
    machine_info["mbcore_cpu_count"] = os.cpu_count()
    machine_info["mbcore_blas"] = _blas_info()
    machine_info["mbcore_git"] = _git_rev()
    machine_info["mbcore_versions"] = _versions()
    machine_info["mbcore_build"] = _build_info()
    machine_info["mbcore_label"] = os.environ.get("MBCORE_BENCH_LABEL", "")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not RESULTS:
        return
    tr = terminalreporter
    tr.section("mbcore benchmark ratios")
    tr.write_line(f"CPU: {_cpu_model()} ({os.cpu_count()} logical CPUs); BLAS: {_blas_info()}")
    tr.write_line(f"load average (1, 5, 15 min) at start {LOAD.get('start')}, at end "
                  f"{_loadavg()}: a busy second core slows the default-thread X@w and predict")
    tr.write_line(f"git: {_git_rev()}; versions: {_versions()}")
    tr.write_line(f"kernel build: {_build_info()}")
    if os.environ.get("MBCORE_BENCH_LABEL"):
        tr.write_line(f"label: {os.environ['MBCORE_BENCH_LABEL']}")
    tr.write_line("")
    for line in report.format_times(RESULTS).splitlines():
        tr.write_line(line)
    tr.write_line("")
    for line in report.format_table(RESULTS).splitlines():
        tr.write_line(line)
