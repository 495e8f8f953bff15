"""K classes on every core (issue 27): while the mistakes are dense, the multi-class passes with
``n_jobs`` > 1 split each row's scores between the threads (the four partial sums of every class
in groups, a group per thread; see ``mc_part`` in mbcore/_kernels/multiclass.pyx and the row
splitting of _spec.h).  Each partial sum is computed by the arithmetic of the sequential pass,
whichever thread computes it, so the results are the sequential pass's, bit for bit.

Every case runs n_jobs = 1, 2 and 3 (more threads than the cores of a small machine: late
workers, whose parts the calling thread computes itself) on noisy labels (random: about
(K - 1) / K of the rows are mistakes, the pass stays in its sequential stretches) and compares
the online record, the counters and every NumPy array of the state, byte for byte, against
n_jobs = 1, and the public state against the pure-Python twin (mbref).  The knobs:

* ``mc_split_tuning(0)`` (linear kernels): split every row whatever its size (the default needs
  K x non-zeros >= a few thousand multiply-adds);
* ``mbcore._threads.SPEC_MIN_VALUES = 0``: small batches get their threads too;
* ``spec_tuning``: the default block sizes, and stretches of 7 rows (the team starts and stops
  serving the split rows many times in a pass).

``mc_split_stats`` counts the rows split: the tests assert that the split path was taken (and
not with n_jobs = 1, nor below the size threshold).
"""

import contextlib
import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbcore._threads as mthreads
import mbref
from mbcore._kernels import multiclass as kmc

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

JOBS = (1, 2, 3)
TUNINGS = {"default": (48, 16, 4096, 256), "short": (48, 16, 4096, 7)}
SKIP_ATTRS = frozenset(("_kstate", "_fast", "_y1"))

ENTRIES = [
    ("Perceptron", {}),
    ("Perceptron", {"fit_intercept": True, "eta": 0.37}),
    ("Perceptron", {"normalize": True}),
    ("AveragedPerceptron", {"mode": "average", "fit_intercept": True}),
    ("MarginPerceptron", {"gamma": 0.2}),
    ("PassiveAggressive", {}),
]


def eid(entry):
    name, params = entry
    return name + ("(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" if params else "")


@contextlib.contextmanager
def split_everything(tuning, min_work=0):
    old_min = mthreads.SPEC_MIN_VALUES
    old_work = kmc.mc_split_tuning(min_work)
    old_spec = kmc.spec_tuning(*TUNINGS[tuning])
    try:
        mthreads.SPEC_MIN_VALUES = 0
        yield
    finally:
        kmc.spec_tuning(*old_spec)
        kmc.mc_split_tuning(old_work)
        mthreads.SPEC_MIN_VALUES = old_min


@pytest.fixture(params=tuple(TUNINGS))
def tuning(request):
    with split_everything(request.param):
        yield request.param


# -- comparable states ---------------------------------------------------------------------------

def internal(learner):
    """Every NumPy array of the learner's state (names starting with '_'), as bytes."""
    return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in sorted(learner.__dict__.items())
            if k.startswith("_") and k not in SKIP_ATTRS and isinstance(v, np.ndarray)}


def canon(v):
    """Plain values with floats as their exact bits (float.hex keeps the sign of zero)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (list, tuple)):
        return [canon(u) for u in v]
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v.hex()
    return v


def public(learner):
    return canon([int(learner.n_seen_), int(learner.mistakes_), int(learner.updates_),
                  learner.classes_, learner.coef_, learner.intercept_])


def record(run):
    return canon([run.predictions, [bool(e) for e in run.errors], [bool(u) for u in run.updated]])


# -- streams -------------------------------------------------------------------------------------

def noisy_stream(seed, n, d, K, fmt):
    """Real rows, a quarter of the values 0, a few empty rows; random labels (dense mistakes)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.2, 3.0, size=(n, 1))
    X[rng.random((n, d)) < 0.25] = 0.0
    X[rng.random(n) < 0.03] = 0.0
    y = rng.integers(0, K, size=n) * 10
    dtype = np.float32 if fmt.endswith("32") else np.float64
    X = X.astype(dtype)
    return (sp.csr_matrix(X) if fmt.startswith("csr") else np.ascontiguousarray(X)), y


def split_rows():
    return kmc.mc_split_stats()[0]


# -- the tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ("dense32", "dense64", "csr32", "csr64"))
@pytest.mark.parametrize("K", (3, 10, 100))
@pytest.mark.parametrize("multi_class", ("multiclass", "ovr"))
@pytest.mark.parametrize("entry", ENTRIES, ids=eid)
def test_split_rows_same_for_all_n_jobs(entry, multi_class, K, fmt, tuning):
    """Two partial_fit calls (a first pass, then a later one) and a run_online: the record, the
    counters and the state arrays of n_jobs 2, 3 equal n_jobs 1's; the public state equals the
    twin's; rows were split with threads and not without."""
    name, params = entry
    n, d = (160, 12) if K == 100 else (260, 17)
    X, y = noisy_stream(K * 7 + len(fmt), n, d, K, fmt)
    classes = np.arange(K) * 10
    ref = getattr(mbref, name)(multi_class=multi_class, **params)
    ref.partial_fit(X[: n // 2], y[: n // 2], classes=classes)
    ref.partial_fit(X, y)
    want = public(ref)
    base = None
    for jobs in JOBS:
        kmc.mc_split_stats(reset=True)
        clf = getattr(mbcore, name)(multi_class=multi_class, n_jobs=jobs, **params)
        clf.partial_fit(X[: n // 2], y[: n // 2], classes=classes)
        clf.partial_fit(X, y)
        assert public(clf) == want, f"n_jobs={jobs}: differs from the twin"
        rec = record(mbcore.run_online(clf, X, y))
        got = (rec, public(clf), internal(clf), canon(clf.predict(X)),
               canon(clf.decision_function(X)))
        if base is None:
            base = got
        else:
            assert got == base, f"n_jobs={jobs}: differs from n_jobs=1"
        rows = split_rows()
        if jobs == 1:
            assert rows == 0
        else:
            assert rows > 0, f"n_jobs={jobs}: no row was split"
    assert base[1][1] > n, "the stream should make dense mistakes"


@pytest.mark.parametrize("fmt", ("dense64", "csr32"))
def test_small_rows_are_not_split_by_default(fmt):
    """The size threshold: rows whose K x non-zeros are below it run unsplit (same results)."""
    X, y = noisy_stream(3, 300, 8, 10, fmt)
    old_min = mthreads.SPEC_MIN_VALUES
    old_work = kmc.mc_split_tuning(None)
    try:
        mthreads.SPEC_MIN_VALUES = 0
        assert old_work > 10 * 8
        states = []
        for jobs in (1, 2):
            kmc.mc_split_stats(reset=True)
            clf = mbcore.Perceptron(n_jobs=jobs).partial_fit(X, y, classes=np.arange(10) * 10)
            assert split_rows() == 0
            states.append(internal(clf))
        kmc.mc_split_tuning(10)              # below these rows' 10 x (about 6): split
        kmc.mc_split_stats(reset=True)
        clf = mbcore.Perceptron(n_jobs=2).partial_fit(X, y, classes=np.arange(10) * 10)
        assert split_rows() > 0
        states.append(internal(clf))
    finally:
        kmc.mc_split_tuning(old_work)
        mthreads.SPEC_MIN_VALUES = old_min
    assert states[0] == states[1] == states[2]


@pytest.mark.parametrize("fmt", ("dense32", "dense64", "csr64"))
@pytest.mark.parametrize("entry", ENTRIES[:1] + ENTRIES[3:5], ids=eid)
def test_nan_row_mid_pass_rolls_back(entry, fmt, tuning):
    """A NaN in row 173 of a split pass: the same ValueError naming the row for every n_jobs
    (and the twin), the learner as before the call (partial_fit and fit)."""
    name, params = entry
    K = 10
    X, y = noisy_stream(11, 300, 20, K, fmt)
    if fmt.startswith("csr"):
        Xbad = X.copy()
        Xbad.data[Xbad.indptr[173] + 1] = np.nan
    else:
        Xbad = X.copy()
        Xbad[173, np.flatnonzero(Xbad[173])[1]] = np.nan
    classes = np.arange(K) * 10
    ref = getattr(mbref, name)(**params).partial_fit(X[:40], y[:40], classes=classes)
    with pytest.raises(ValueError, match=r"\brow 173\b"):
        ref.partial_fit(Xbad, y)
    msgs = set()
    for jobs in JOBS:
        clf = getattr(mbcore, name)(n_jobs=jobs, **params).partial_fit(X[:40], y[:40],
                                                                      classes=classes)
        before = (internal(clf), public(clf))
        kmc.mc_split_stats(reset=True)
        with pytest.raises(ValueError, match=r"\brow 173\b") as exc:
            clf.partial_fit(Xbad, y)
        msgs.add(str(exc.value))
        if jobs > 1:
            assert split_rows() > 0, f"n_jobs={jobs}: no row was split"
        assert (internal(clf), public(clf)) == before, f"n_jobs={jobs}"
        with pytest.raises(ValueError, match=r"\brow 173\b"):
            clf.fit(Xbad, y)
        assert (internal(clf), public(clf)) == before, f"n_jobs={jobs}"
    assert len(msgs) == 1, msgs


def test_split_tuning_and_stats_api():
    """mc_split_tuning returns the old threshold and clamps below at 0; mc_split_stats resets."""
    old = kmc.mc_split_tuning(None)
    try:
        assert kmc.mc_split_tuning(-5) == old
        assert kmc.mc_split_tuning(None) == 0
    finally:
        kmc.mc_split_tuning(old)
    kmc.mc_split_stats(reset=True)
    assert kmc.mc_split_stats() == (0, 0, 0, 0)


@pytest.mark.parametrize("fmt", ("dense64", "csr64"))
def test_update_overflow_mid_pass_rolls_back(fmt, tuning):
    """Row 150 makes the Perceptron's update overflow (a feature seen nowhere else, 1e300,
    eta 1e10: its score term is 0 x 1e300, its update infinite).  Dense rows defer that update to
    the parts of the next split row (mc_defer): the error still names row 150, for every n_jobs
    as for the twin, and the learner is as before the call."""
    K = 10
    X, y = noisy_stream(5, 300, 20, K, "dense64")
    X[:, 0] = 0.0
    X[150, 0] = 1e300
    classes = np.arange(K) * 10
    y = y.copy()
    ref = mbref.Perceptron(eta=1e10).partial_fit(X[:40], y[:40], classes=classes)
    # (row 150 must be a mistake: its label is set to a class the twin does not predict)
    pred = mbref.Perceptron(eta=1e10).partial_fit(X[:40], y[:40], classes=classes)
    pred.partial_fit(X[:150], y[:150])
    y[150] = classes[(list(classes).index(pred.predict(X[150:151])[0]) + 1) % K]
    with pytest.raises(ValueError, match=r"\brow 150\b"):
        ref.partial_fit(X, y)
    Xf = sp.csr_matrix(X) if fmt.startswith("csr") else X
    msgs = set()
    for jobs in JOBS:
        clf = mbcore.Perceptron(eta=1e10, n_jobs=jobs).partial_fit(Xf[:40], y[:40],
                                                                   classes=classes)
        before = (internal(clf), public(clf))
        kmc.mc_split_stats(reset=True)
        with pytest.raises(ValueError, match=r"\brow 150\b") as exc:
            clf.partial_fit(Xf, y)
        msgs.add(str(exc.value))
        if jobs > 1:
            assert split_rows() > 0, f"n_jobs={jobs}: no row was split"
        assert (internal(clf), public(clf)) == before, f"n_jobs={jobs}"
    assert len(msgs) == 1, msgs
