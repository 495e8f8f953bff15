"""Shared fixtures for the mbcore test suite: seeded stream generators and test helpers.

Tests import the installed packages (``mbcore``, the compiled library, and ``mbref``, its
pure-Python twin that defines the behaviour bit for bit); there is no ``__init__.py`` here.
The test files live in folders (tests/README.md); each folder's name is the marker of its tests
(``pytest_collection_modifyitems`` below).

Generators
----------
Every generator takes an explicit ``seed`` and returns NumPy arrays (labels in {-1, +1}), so a
failing case can be replayed from its test id alone.

* :func:`separable`: a unit vector u and rows kept only when |u.x|/||x|| >= gamma, labelled
  sign(u.x), so the normalised margin of u is at least gamma by construction.
* :func:`noisy`: like ``separable`` with a fraction of the labels flipped (not separable).
* :func:`integer_stream`: small integer values (many zeros), labels from a random integer
  hyperplane with some noise; on such data every summation order gives the same sums.
* :func:`sparse_stream`: a CSR matrix with empty rows, real (or integer) values, and a chosen
  index dtype.
* :func:`to_format`: the same data as dense float64, dense float32 or CSR with int32 / int64
  indices (float32 data for the int64 variant, so that float32 CSR is covered too).
"""

import functools
import os
import subprocess
import tempfile
import sys
import textwrap

import numpy as np
import pytest

import mbcore
import mbref

# pytest runs with --import-mode=importlib (pyproject.toml), which does not put this directory on
# sys.path; the test modules import the helpers below with ``from conftest import ...``.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# The files saved by mbcore 0.1.0 (fixtures/make_files.py wrote them), for the test files of any
# folder that load them.
FILES_0_1_0 = os.path.join(_HERE, "fixtures", "files-0.1.0")

# Hypothesis keeps a small cache even without an example database: keep it beside the tests.
try:
    from hypothesis.configuration import set_hypothesis_home_dir
    set_hypothesis_home_dir(os.path.join(_HERE, ".hypothesis"))
except ImportError:      # pragma: no cover - hypothesis is a test requirement
    pass

# ------------------------------------------------------------------------------------------------
# Suites: each folder of tests/ is one, and its name is its tests' marker
# ------------------------------------------------------------------------------------------------


def suite_of(path):
    """The folder of tests/ a test file is in ("theory" for tests/theory/test_bounds.py); None
    for a file at the root of tests/ or outside it."""
    parts = os.path.relpath(os.path.abspath(str(path)), _HERE).split(os.sep)
    if len(parts) < 2 or parts[0] == os.pardir:
        return None
    return parts[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark every test with its folder, so that ``pytest -m theory`` runs tests/theory/ and a file
    put in a folder joins its suite without a list (the markers are registered in
    pyproject.toml).  First, before pytest's own -m and -k selection."""
    for item in items:
        suite = suite_of(item.path)
        if suite is not None:
            item.add_marker(suite)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """One worker process per core (at most 4) when pytest-xdist is installed (the ``test`` extra)
    and no ``-n`` was given: ``-n auto --maxprocesses=4 --dist worksteal``, each worker a
    contiguous part of the collection, stealing from the others when done.  ``-n0`` runs in one
    process.  Here, not in pyproject's addopts: environments without pytest-xdist (the wheel's
    smoke run, the checked builds) and ``pytest bench`` (benchmarks need one process) never see
    an ``-n``.  Before xdist's own hook, which turns these options into workers."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None and not config.option.collectonly:
        config.option.numprocesses = "auto"
        if config.option.maxprocesses is None:
            config.option.maxprocesses = 4
        if config.option.dist == "no":
            config.option.dist = "worksteal"


# ------------------------------------------------------------------------------------------------
# Stream generators
# ------------------------------------------------------------------------------------------------


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def separable(seed, n, d, gamma, scale=None, u=None):
    """n rows in R^d with normalised margin >= gamma w.r.t. a unit u; returns X, y, u.

    ``scale``: None draws x ~ N(0, I); a float rescales every row to that exact length; "mixed"
    gives row lengths spread over [0.2, 3] (unnormalised data, R != 1).
    """
    rng = np.random.default_rng(seed)
    u = unit(rng.normal(size=d)) if u is None else unit(u)
    rows = []
    while len(rows) < n:
        x = rng.normal(size=d)
        nx = np.linalg.norm(x)
        if nx == 0.0:
            continue
        if abs(u @ x) / nx >= gamma:
            if scale == "mixed":
                x = x / nx * rng.uniform(0.2, 3.0)
            elif scale is not None:
                x = x / nx * float(scale)
            rows.append(x)
    X = np.array(rows)
    y = np.where(X @ u > 0, 1, -1).astype(np.int64)
    return X, y, u


def noisy(seed, n, d, flip=0.1, scale=None):
    """Separable-looking data (margin 0.05) with a fraction ``flip`` of labels flipped."""
    X, y, u = separable(seed, n, d, 0.05, scale=scale)
    rng = np.random.default_rng(seed + 10_000)
    mask = rng.random(n) < flip
    y = np.where(mask, -y, y)
    return X, y, u


def integer_stream(seed, n, d, low=-3, high=3, zero_frac=0.4, noise=0.05):
    """Integer-valued rows (as float64) with many zeros; labels from an integer hyperplane."""
    rng = np.random.default_rng(seed)
    X = rng.integers(low, high + 1, size=(n, d)).astype(np.float64)
    X[rng.random((n, d)) < zero_frac] = 0.0
    w = rng.integers(-2, 3, size=d)
    if not w.any():
        w[0] = 1
    s = X @ w
    y = np.where(s > 0, 1, -1)
    flip = rng.random(n) < noise
    y = np.where(flip, -y, y).astype(np.int64)
    return X, y


def real_stream(seed, n, d):
    """Real-valued rows with exact zeros and a few repeated rows; labels from a noisy hyperplane."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 4.0, size=(n, 1))
    X[rng.random((n, d)) < 0.25] = 0.0
    if n > 10:
        rep = rng.integers(0, n, size=n // 10)
        X[rng.integers(0, n, size=rep.shape[0])] = X[rep]
    u = rng.normal(size=d)
    y = np.where(X @ u + 0.3 * rng.normal(size=n) > 0, 1, -1).astype(np.int64)
    return X, y


def sparse_stream(seed, n, d, density=0.3, empty_frac=0.2, integer=False, index_dtype=np.int32,
                  data_dtype=np.float64):
    """A CSR matrix with some empty rows (and labels); returns X (scipy csr_array), y."""
    rng = np.random.default_rng(seed)
    if integer:
        D = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    else:
        D = rng.normal(size=(n, d))
    D[rng.random((n, d)) >= density] = 0.0
    D[rng.random(n) < empty_frac] = 0.0
    u = rng.normal(size=d)
    y = np.where(D @ u + 0.2 * rng.normal(size=n) > 0, 1, -1).astype(np.int64)
    return csr_from_dense(D, index_dtype=index_dtype, data_dtype=data_dtype), y


class DuckCSR:
    """A minimal CSR matrix (data, indices, indptr, shape): keeps the index dtype exactly as given.

    scipy may pick its own index dtype when it builds or slices a matrix; the int64 code paths
    are tested through this duck type (both mbcore and mbref accept any object with these
    attributes).
    """

    format = "csr"

    def __init__(self, data, indices, indptr, shape):
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.shape = tuple(int(s) for s in shape)

    def toarray(self):
        out = np.zeros(self.shape, dtype=np.float64)
        for i in range(self.shape[0]):
            a, b = self.indptr[i], self.indptr[i + 1]
            out[i, self.indices[a:b]] = self.data[a:b]
        return out


def csr_from_dense(D, index_dtype=np.int32, data_dtype=np.float64):
    """CSR of a dense array, with exactly the requested index and data dtypes."""
    D = np.asarray(D)
    n, d = D.shape
    indptr = [0]
    indices, data = [], []
    for i in range(n):
        nz = np.flatnonzero(D[i])
        indices.extend(nz.tolist())
        data.extend(D[i, nz].tolist())
        indptr.append(len(indices))
    return DuckCSR(np.array(data, dtype=data_dtype), np.array(indices, dtype=index_dtype),
                   np.array(indptr, dtype=index_dtype), (n, d))


def csr_rows(X, a, b):
    """Rows a..b-1 of a CSR matrix, keeping its dtypes (the chunk of a stream)."""
    if isinstance(X, DuckCSR):
        lo, hi = int(X.indptr[a]), int(X.indptr[b])
        indptr = (X.indptr[a:b + 1] - X.indptr[a]).astype(X.indptr.dtype)
        return DuckCSR(X.data[lo:hi].copy(), X.indices[lo:hi].copy(), indptr, (b - a, X.shape[1]))
    return X[a:b]


FORMATS = ("dense64", "dense32", "csr_i32", "csr_i64")


def to_format(X, fmt):
    """The dense float64 array X in one of FORMATS (float32 rounding happens here, once)."""
    X = np.asarray(X, dtype=np.float64)
    if fmt == "dense64":
        return np.ascontiguousarray(X)
    if fmt == "dense32":
        return np.ascontiguousarray(X, dtype=np.float32)
    if fmt == "csr_i32":
        return csr_from_dense(X, np.int32, np.float64)
    if fmt == "csr_i64":
        return csr_from_dense(X, np.int64, np.float32)
    raise AssertionError(fmt)


def take_rows(X, a, b):
    if isinstance(X, np.ndarray):
        return X[a:b]
    return csr_rows(X, a, b)


def chunk_bounds(n, chunking, seed=0):
    """Split points for a stream of n rows: 'whole', an int chunk size, or 'random'."""
    if chunking == "whole":
        return [(0, n)]
    if chunking == "random":
        rng = np.random.default_rng(seed + 777)
        k = int(rng.integers(1, min(n, 8) + 1))
        cuts = sorted(set(rng.integers(1, n, size=k).tolist())) if n > 1 else []
        pts = [0] + cuts + [n]
        return list(zip(pts[:-1], pts[1:]))
    size = int(chunking)
    return [(a, min(a + size, n)) for a in range(0, n, size)]


# ------------------------------------------------------------------------------------------------
# The additive learners' cases (derived from the registry and the classes: tests/_cases.py)
# ------------------------------------------------------------------------------------------------

from _cases import ADDITIVE, ADDITIVE_IDS, entry_id, integer_exact  # noqa: E402,F401


def make(module, entry):
    name, params = entry
    return getattr(module, name)(**params)


def make_pair(entry):
    """(compiled learner, twin learner) with the same parameters."""
    return make(mbcore, entry), make(mbref, entry)


# ------------------------------------------------------------------------------------------------
# Reading a learner's state in a form that can be compared with == (bit for bit)
# ------------------------------------------------------------------------------------------------


def as_list(a):
    """Numbers of an mbcore array or an mbref list as nested Python lists (exact values)."""
    if isinstance(a, np.ndarray):
        return a.tolist()
    if isinstance(a, (list, tuple)):
        return [as_list(v) for v in a]
    if isinstance(a, np.generic):
        return a.item()
    return a


def snapshot(learner):
    """Everything observable about a fitted learner's state, as plain Python values."""
    s = {"n_seen_": learner.n_seen_, "mistakes_": learner.mistakes_,
         "updates_": learner.updates_, "classes_": as_list(learner.classes_),
         "n_features_in_": learner.n_features_in_}
    name = type(learner).__name__
    if hasattr(type(learner), "support_vectors_"):     # the kernel Perceptrons (and budgeted)
        s["support_vectors_"] = as_list(learner.support_vectors_)
        s["dual_coef_"] = as_list(learner.dual_coef_)
        s["n_support_"] = learner.n_support_
        s["gamma_"] = learner.gamma_
    else:
        s["coef_"] = as_list(learner.coef_)
        s["intercept_"] = float(learner.intercept_)
    if name == "AveragedPerceptron" and learner.mode == "vote":
        s["vote_vectors_"] = as_list(learner.vote_vectors_)
        s["vote_counts_"] = as_list(learner.vote_counts_)
    return s


def run_record(run):
    """An mbcore.OnlineRun or an mbref.OnlineRun (same attributes) as a dict of plain lists."""
    return {"predictions": as_list(run.predictions), "errors": as_list(run.errors),
            "updated": as_list(run.updated), "mistakes": run.mistakes, "updates": run.updates,
            "mistake_curve": as_list(run.mistake_curve)}


# ------------------------------------------------------------------------------------------------
# Crash guard: a segfault would kill the whole pytest process and hide every other result
# ------------------------------------------------------------------------------------------------


def run_isolated(code, timeout=120):
    """Run a Python snippet in a fresh interpreter; returns (returncode, stdout, stderr).

    A negative return code means the process died from a signal (a crash)."""
    # Run from an empty directory: `python -c` puts the working directory first on sys.path,
    # and from the repository root that would import the source tree instead of the installed
    # (compiled) package.
    with tempfile.TemporaryDirectory() as where:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                              text=True, timeout=timeout, cwd=where)
    return proc.returncode, proc.stdout, proc.stderr


_EMPTY_CSR_KP = """
    import numpy as np, scipy.sparse as sp, mbcore
    k = mbcore.KernelPerceptron(kernel="linear")
    k.partial_fit(sp.csr_array(np.zeros((1, 3))), [1], classes=[-1, 1])
    print(k.n_support_)
"""


@functools.lru_cache(maxsize=None)
def kernel_empty_csr_crashes():
    """True if mbcore.KernelPerceptron crashes the interpreter on a CSR batch with no stored
    values (probed once, out of process)."""
    rc, _, _ = run_isolated(_EMPTY_CSR_KP)
    return rc < 0


def guard(learner, X):
    """Fail (not skip) instead of feeding a batch known to crash the interpreter."""
    if type(learner).__module__.startswith("mbcore") and \
            type(learner).__name__ == "KernelPerceptron" and not isinstance(X, np.ndarray) and \
            int(X.indptr[-1]) == 0 and kernel_empty_csr_crashes():
        pytest.fail("mbcore.KernelPerceptron crashes (segfault) on a CSR batch with no stored "
                    "values; not run in-process (see test_bad_input.py::"
                    "test_kernel_perceptron_csr_batch_without_values)")


def run_chunked(module, learner, X, y, bounds, classes=None):
    """Feed X, y to ``module.run_online`` chunk by chunk; returns the concatenated record."""
    out = {"predictions": [], "errors": [], "updated": [], "mistakes": 0, "updates": 0}
    for k, (a, b) in enumerate(bounds):
        guard(learner, take_rows(X, a, b))
        r = run_record(module.run_online(learner, take_rows(X, a, b), y[a:b],
                                         classes=classes if k == 0 else None))
        out["predictions"] += r["predictions"]
        out["errors"] += r["errors"]
        out["updated"] += r["updated"]
        out["mistakes"] += r["mistakes"]
        out["updates"] += r["updates"]
    return out


def whole_record(run):
    r = run_record(run)
    r.pop("mistake_curve")
    return r
