"""Exact speculative passes: mbcore's online passes on several threads give, bit for bit, the
results of the sequential pass (n_jobs=1) and of the twin (mbref), for any number of threads.

The online pass judges rows ahead in parallel from the current state and updates at the first
row of a block that would change the state, then judges again from the row after it.  Two knobs
send small streams through that machinery (the ``tuning`` fixture sets them and restores them):

* ``mbcore._threads.SPEC_MIN_VALUES`` (batches with fewer stored values run on one thread): 0;
* each kernel module's ``spec_tuning(seq_gap, min_rows, max_rows, stretch)``: "forced"
  (``spec_tuning(0, 1, None, 1)``: every row goes through tiny speculative blocks, no sequential
  stretches) and "default" (``(48, 16, 4096, 256)``, the adaptive sizes).

Learners with ``n_jobs``: Perceptron, AveragedPerceptron, MarginPerceptron (linear kernels);
Winnow, EliminationWinnow, WinnowStar, BalancedWinnow (multiplicative kernels); Halving (bitset
kernel).  Each case runs n_jobs = 1, 2, 4 and compares

* n_jobs = 2, 4 against n_jobs = 1: the online record, the counters, and every NumPy array of
  the learner's state (``__dict__`` names starting with "_"), byte for byte (so -0.0 != 0.0);
* every n_jobs against the twin: the record and the public state (floats compared by their
  exact bits, through ``float.hex``), predictions on fresh rows;
* fit (several epochs): n_iter_, epoch_mistakes_, epoch_updates_, converged_, cycled_.

Streams: high mistake rate (random labels) and low (labels from a separator, a disjunction or a
concept of the class), dense and CSR, float32 and float64 (linear), Boolean 0/1 (uint8 dense and
CSR) and real features (Winnow), K >= 3 classes ("multiclass" and "ovr"), chunkings drawn by
hypothesis; a stream where every row is a mistake; bad rows in the middle (CSR column indices
out of range or unsorted, a NaN): the same message for every n_jobs and the learner unchanged;
the n_jobs parameter (validation, MBCORE_NUM_THREADS, get_params, clone, pickle, save/load).
"""

import contextlib
import importlib
import io
import math
import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbcore._threads as mthreads
import mbcore.base as mbase
import mbref
from conftest import DuckCSR

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

JOBS = (1, 2, 4)
TUNINGS = {"forced": (0, 1, None, 1), "default": (48, 16, 4096, 256)}
KERNEL_MODULES = ("linear", "multiclass", "multiplicative", "multiplicative_mc", "bitset")
SKIP_ATTRS = frozenset(("_kstate", "_fast", "_y1"))


# ------------------------------------------------------------------------------------------------
# The knobs
# ------------------------------------------------------------------------------------------------


def _kernel_modules():
    """The kernel modules that have spec_tuning (a module without it is left alone, so the
    other families' tests still run)."""
    out = []
    for name in KERNEL_MODULES:
        try:
            m = importlib.import_module("mbcore._kernels." + name)
        except ImportError:
            continue
        if getattr(m, "spec_tuning", None) is not None:
            out.append(m)
    return out


@contextlib.contextmanager
def tuned(name):
    """SPEC_MIN_VALUES = 0 and the block sizes of TUNINGS[name] in every kernel module;
    everything restored on exit."""
    old_min = mthreads.SPEC_MIN_VALUES
    saved = []
    try:
        mthreads.SPEC_MIN_VALUES = 0
        for m in _kernel_modules():
            saved.append((m, m.spec_tuning(*TUNINGS[name])))
        yield name
    finally:
        for m, old in reversed(saved):
            m.spec_tuning(*old)
        mthreads.SPEC_MIN_VALUES = old_min


@pytest.fixture(params=tuple(TUNINGS))
def tuning(request):
    with tuned(request.param) as name:
        yield name


@pytest.fixture
def forced():
    with tuned("forced") as name:
        yield name


# Hypothesis runs every example inside one call of the test, so a function-scoped fixture that
# only sets module knobs (the same for every example) is fine.
HSET = settings(max_examples=6, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------------------------------------
# Learners
# ------------------------------------------------------------------------------------------------

LINEAR = [
    ("Perceptron", {}),
    ("Perceptron", {"fit_intercept": True, "eta": 0.37, "tie": "positive"}),
    ("Perceptron", {"normalize": True}),
    ("AveragedPerceptron", {"mode": "average"}),
    ("AveragedPerceptron", {"mode": "average", "fit_intercept": True, "eta": 0.7}),
    ("AveragedPerceptron", {"mode": "vote"}),                 # binary only
    ("MarginPerceptron", {"gamma": 0.1}),
    ("MarginPerceptron", {"gamma": 0.3, "margin_fraction": 0.9, "fit_intercept": True}),
]

WINNOW = [
    ("Winnow", {}),
    ("Winnow", {"alpha": 1.5}),                                # float sums (not exact mode)
    ("Winnow", {"features": "real"}),
    ("EliminationWinnow", {}),
    ("WinnowStar", {}),
    ("BalancedWinnow", {}),
    ("BalancedWinnow", {"features": "real", "alpha": 1.5, "theta": 2.0}),
]

HALVING = [("Halving", {"conservative": False}), ("Halving", {"conservative": True})]

N_JOBS_CLASSES = ("Perceptron", "AveragedPerceptron", "MarginPerceptron", "Winnow",
                  "EliminationWinnow", "WinnowStar", "BalancedWinnow", "Halving")


def eid(entry):
    name, params = entry
    return name + ("(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" if params else "")


def binary_only(entry):
    return entry[1].get("mode") == "vote"


def is_real(entry):
    return entry[1].get("features") == "real"


def new(module, entry, **extra):
    name, params = entry
    return getattr(module, name)(**dict(params, **extra))


# ------------------------------------------------------------------------------------------------
# Comparable states
# ------------------------------------------------------------------------------------------------


def _fp(a):
    return (a.dtype.str, a.shape, a.tobytes())


def internal(learner, join=False):
    """Every NumPy array of an mbcore learner's state (names starting with '_', lists of arrays
    element by element), as bytes: bit for bit, -0.0 != 0.0.  ``join``: lists of arrays
    concatenated (AveragedPerceptron(mode="vote") keeps its vote vectors in pieces that depend
    on how the stream was cut into calls, not on what was learned)."""
    out = {}
    for k in sorted(learner.__dict__):
        if not k.startswith("_") or k in SKIP_ATTRS:
            continue
        v = learner.__dict__[k]
        if isinstance(v, np.ndarray):
            out[k] = _fp(v)
        elif isinstance(v, (list, tuple)) and all(isinstance(e, np.ndarray) for e in v):
            out[k] = _fp(np.concatenate(v)) if join and v else [_fp(e) for e in v]
    return out


def canon(v):
    """Plain values with floats as their exact bits (float.hex keeps the sign of zero)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, dict):
        return {k: canon(u) for k, u in v.items()}
    if isinstance(v, (list, tuple)):
        return [canon(u) for u in v]
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v.hex()
    return v


def public(learner):
    """What both sides expose about a fitted learner (compared mbcore against mbref)."""
    name = type(learner).__name__
    s = {"n_seen_": int(learner.n_seen_), "mistakes_": int(learner.mistakes_),
         "updates_": int(learner.updates_), "classes_": canon(learner.classes_),
         "n_features_in_": int(learner.n_features_in_)}
    if name == "Halving":
        s.update(alive_count_=int(learner.alive_count_),
                 alive_concepts_=[int(c) for c in learner.alive_concepts_],
                 inconsistent_=bool(learner.inconsistent_))
    elif name.endswith("Perceptron"):
        s.update(coef_=canon(learner.coef_), intercept_=canon(learner.intercept_))
        if name == "AveragedPerceptron" and learner.mode == "vote":
            s.update(vote_vectors_=canon(learner.vote_vectors_),
                     vote_counts_=canon(learner.vote_counts_))
    else:
        s.update(theta_=canon(learner.theta_), log2_coef_=canon(learner.log2_coef_),
                 coef_=canon(learner.coef_))
        if name == "BalancedWinnow":
            s["log2_coef_neg_"] = canon(learner.log2_coef_neg_)
    return s


def fit_info(learner):
    return {"n_iter_": int(learner.n_iter_), "converged_": bool(learner.converged_),
            "cycled_": bool(learner.cycled_),
            "epoch_mistakes_": [int(v) for v in learner.epoch_mistakes_],
            "epoch_updates_": [int(v) for v in learner.epoch_updates_]}


def record(run):
    return {"predictions": canon(run.predictions), "errors": [bool(e) for e in run.errors],
            "updated": [bool(u) for u in run.updated]}


# ------------------------------------------------------------------------------------------------
# Streams
# ------------------------------------------------------------------------------------------------


def linear_stream(seed, n, d, K, low, values):
    """Real (or small-integer) rows; labels 0..K-1 (K = 2: -1/+1) from a separator with a margin
    (low) or at random (high)."""
    rng = np.random.default_rng(seed)
    if values == "int":
        X = rng.integers(-2, 3, size=(n, d)).astype(np.float64)
        X[rng.random((n, d)) < 0.3] = 0.0
    else:
        X = rng.normal(size=(n, d)) * rng.uniform(0.2, 3.0, size=(n, 1))
        X[rng.random((n, d)) < 0.25] = 0.0
    X[rng.random(n) < 0.05] = 0.0                      # a few empty rows
    if not low:
        y = rng.integers(0, K, size=n)
    elif K == 2:
        u = rng.normal(size=d)
        u /= np.linalg.norm(u)
        t = X @ u
        s = np.where(t >= 0, 1.0, -1.0)
        X = X + 0.75 * s[:, None] * u[None, :]
        if values == "int":
            X = np.round(X)
        y = (X @ u > 0).astype(np.int64)
    else:
        U = rng.normal(size=(K, d))
        y = np.argmax(X @ U.T, axis=1)
        X = X + 0.75 * U[y]
        if values == "int":
            X = np.round(X)
        y = np.argmax(X @ U.T, axis=1)
    labels = np.array([-1, 1]) if K == 2 else np.arange(K) * 10
    return X, labels[y]


def linear_X(X, fmt):
    if fmt == "dense64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if fmt == "dense32":
        return np.ascontiguousarray(X, dtype=np.float32)
    if fmt == "csr64":
        return sp.csr_matrix(np.asarray(X, dtype=np.float64))
    if fmt == "csr32":
        return sp.csr_matrix(np.asarray(X, dtype=np.float32))
    raise AssertionError(fmt)


def bool_stream(seed, n, d, K, low, p):
    """0/1 rows; labels from a disjunction (K = 2) or from the first active of K-1 chosen
    features (K >= 3) when low, at random when high."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < p).astype(np.uint8)
    X[rng.random(n) < 0.05] = 0
    if not low:
        return X, rng.integers(0, K, size=n)
    if K == 2:
        rel = rng.choice(d, size=min(d, int(rng.integers(1, 4))), replace=False)
        return X, X[:, rel].any(axis=1).astype(np.int64)
    rel = rng.choice(d, size=min(d, K - 1), replace=False)
    y = np.zeros(n, dtype=np.int64)
    for i in range(n):
        act = np.flatnonzero(X[i, rel])
        y[i] = 1 + act[0] if act.size else 0
    return X, y


def real_winnow_stream(seed, n, d, K, low):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=(n, 1))
    X[rng.random((n, d)) < 0.3] = 0.0
    if K == 2:
        u = rng.normal(size=d)
        y = np.where(X @ u > 0, 1, -1) if low else np.where(rng.random(n) < 0.5, 1, -1)
        return X, y
    if not low:
        return X, rng.integers(0, K, size=n)
    U = rng.normal(size=(K, d))
    return X, np.argmax(X @ U.T, axis=1)


def winnow_X(X, fmt):
    if fmt == "u8":
        return np.ascontiguousarray(X, dtype=np.uint8)
    if fmt == "f64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if fmt == "f32":
        return np.ascontiguousarray(X, dtype=np.float32)
    if fmt == "csr_u8":
        return sp.csr_matrix(np.asarray(X, dtype=np.uint8))
    if fmt == "csr64":
        return sp.csr_matrix(np.asarray(X, dtype=np.float64))
    raise AssertionError(fmt)


def concept_matrix(seed, m, N):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(m, N)).astype(np.uint8)


def rows(X, a, b):
    return X[a:b]


def bounds_of(n, cuts):
    pts = [0] + sorted(set(c for c in cuts if 0 < c < n)) + [n]
    return list(zip(pts[:-1], pts[1:]))


# ------------------------------------------------------------------------------------------------
# Running one side
# ------------------------------------------------------------------------------------------------


def run_chunks(module, learner, X, y, bounds, classes):
    """module.run_online over the chunks (classes= on the first): the concatenated record."""
    out = {"predictions": [], "errors": [], "updated": []}
    for k, (a, b) in enumerate(bounds):
        r = record(module.run_online(learner, rows(X, a, b), y[a:b],
                                     classes=classes if k == 0 else None))
        for key in out:
            out[key] += r[key]
    return out


def check_all_jobs(make_core, make_ref, X, y, bounds, classes, X_twin=None, X_fresh=None,
                   X_fresh_twin=None):
    """The online pass for n_jobs 1, 2, 4 (chunked run_online, chunked partial_fit, one
    partial_fit call) against n_jobs=1 and the twin."""
    X_twin = X if X_twin is None else X_twin
    ref = make_ref()
    rec_ref = run_chunks(mbref, ref, X_twin, y, bounds, classes)
    pub_ref = canon(public(ref))
    fresh_ref = None
    if X_fresh is not None:
        Xf_t = X_fresh if X_fresh_twin is None else X_fresh_twin
        fresh_ref = (canon(ref.decision_function(Xf_t)), canon(ref.predict(Xf_t)))
    base = None
    for jobs in JOBS:
        clf = make_core(jobs)
        rec = run_chunks(mbcore, clf, X, y, bounds, classes)
        assert rec == rec_ref, f"n_jobs={jobs}: online record differs from the twin"
        assert canon(public(clf)) == pub_ref, f"n_jobs={jobs}: state differs from the twin"
        if fresh_ref is not None:
            assert (canon(clf.decision_function(X_fresh)), canon(clf.predict(X_fresh))) == \
                fresh_ref, f"n_jobs={jobs}: predictions on fresh rows differ from the twin"
        st = internal(clf)
        if base is None:
            base = st
            joined = internal(clf, join=True)
        else:
            assert st == base, f"n_jobs={jobs}: state arrays differ from n_jobs=1"
        # partial_fit, chunk by chunk (no record: the kernels' other path)
        clf2 = make_core(jobs)
        for k, (a, b) in enumerate(bounds):
            assert clf2.partial_fit(rows(X, a, b), y[a:b],
                                    classes=classes if k == 0 else None) is clf2
        assert internal(clf2) == base, f"n_jobs={jobs}: partial_fit chunks differ"
        # the whole stream in one call
        clf3 = make_core(jobs)
        rec3 = record(mbcore.run_online(clf3, X, y, classes=classes))
        assert rec3 == rec_ref, f"n_jobs={jobs}: one call differs from the chunks"
        assert internal(clf3, join=True) == joined, \
            f"n_jobs={jobs}: one call differs from the chunks"
    return rec_ref


def check_fit_all_jobs(make_core, make_ref, X, y, classes, X_twin=None):
    X_twin = X if X_twin is None else X_twin
    ref = make_ref().fit(X_twin, y, classes=classes)
    want = (fit_info(ref), canon(public(ref)))
    base = None
    for jobs in JOBS:
        clf = make_core(jobs)
        assert clf.fit(X, y, classes=classes) is clf
        assert (fit_info(clf), canon(public(clf))) == want, f"n_jobs={jobs}: fit differs from " \
                                                           "the twin"
        st = internal(clf)
        if base is None:
            base = st
        else:
            assert st == base, f"n_jobs={jobs}: fit state arrays differ from n_jobs=1"
    return want


# ------------------------------------------------------------------------------------------------
# 1-5. Online passes and fit: linear family
# ------------------------------------------------------------------------------------------------


@st.composite
def linear_cases(draw, entry):
    n = draw(st.integers(20, 400))
    d = draw(st.integers(1, 30))
    K = 2 if binary_only(entry) else draw(st.sampled_from([2, 2, 3, 4]))
    mc = draw(st.sampled_from(["multiclass", "ovr"]))
    low = draw(st.booleans())
    values = draw(st.sampled_from(["real", "int"]))
    fmt = draw(st.sampled_from(["dense64", "dense32", "csr64", "csr32"]))
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=4))
    seed = draw(st.integers(0, 2 ** 31))
    return n, d, K, mc, low, values, fmt, bounds_of(n, cuts), seed


@pytest.mark.parametrize("entry", LINEAR, ids=eid)
def test_linear_online_same_for_all_n_jobs(entry, tuning):
    """Records, counters, every state array (n_jobs 2, 4 vs 1) and the public state and fresh
    predictions (vs the twin), for chunked run_online, chunked partial_fit and one call."""
    @HSET
    @given(linear_cases(entry))
    def inner(case):
        n, d, K, mc, low, values, fmt, bounds, seed = case
        X, y = linear_stream(seed, n, d, K, low, values)
        Xf = linear_X(X, fmt)
        Xn, _ = linear_stream(seed + 1, 25, d, K, low, values)
        Xn = linear_X(Xn, fmt)
        classes = [-1, 1] if K == 2 else list(range(0, 10 * K, 10))
        check_all_jobs(lambda j: new(mbcore, entry, multi_class=mc, n_jobs=j),
                       lambda: new(mbref, entry, multi_class=mc, n_jobs=2),
                       Xf, y, bounds, classes, X_fresh=Xn)
    inner()


@pytest.mark.parametrize("entry", LINEAR, ids=eid)
def test_linear_fit_same_for_all_n_jobs(entry, tuning):
    """fit over several epochs: n_iter_, epoch_mistakes_, epoch_updates_, converged_, cycled_
    and the state, for n_jobs 1, 2, 4 and the twin; low-mistake streams converge (later epochs
    make few mistakes), high ones run every epoch."""
    @HSET
    @given(linear_cases(entry))
    def inner(case):
        n, d, K, mc, low, values, fmt, _, seed = case
        X, y = linear_stream(seed, min(n, 200), d, K, low, values)
        Xf = linear_X(X, fmt)
        classes = [-1, 1] if K == 2 else list(range(0, 10 * K, 10))
        check_fit_all_jobs(lambda j: new(mbcore, entry, multi_class=mc, max_epochs=6, n_jobs=j),
                           lambda: new(mbref, entry, multi_class=mc, max_epochs=6),
                           Xf, y, classes)
    inner()


def test_linear_low_mistake_stream_has_few_late_mistakes(tuning):
    """The low-mistake streams are what they claim: the last epochs of fit make few mistakes
    (so the speculative blocks run long without an update), and n_jobs does not change it."""
    X, y = linear_stream(3, 300, 12, 2, True, "real")
    infos = [fit_info(mbcore.Perceptron(max_epochs=20, n_jobs=j).fit(X, y)) for j in JOBS]
    assert infos[0] == infos[1] == infos[2]
    em = infos[0]["epoch_mistakes_"]
    assert em[-1] <= 2 and em[-1] < em[0] / 4, em
    Xm, ym = linear_stream(4, 300, 12, 3, True, "real")
    infos = [fit_info(mbcore.Perceptron(max_epochs=20, n_jobs=j).fit(Xm, ym)) for j in JOBS]
    assert infos[0] == infos[1] == infos[2]
    assert infos[0]["epoch_mistakes_"][-1] < infos[0]["epoch_mistakes_"][0] / 4


# ------------------------------------------------------------------------------------------------
# 1-5. Winnow family
# ------------------------------------------------------------------------------------------------


@st.composite
def winnow_cases(draw, entry):
    n = draw(st.integers(20, 400))
    d = draw(st.integers(1, 30))
    K = draw(st.sampled_from([2, 2, 3, 4]))
    mc = draw(st.sampled_from(["multiclass", "ovr"]))
    low = draw(st.booleans())
    fmt = draw(st.sampled_from(["f64", "f32", "csr64"] if is_real(entry)
                               else ["u8", "u8", "csr_u8", "csr64", "f64"]))
    p = draw(st.sampled_from([0.1, 0.3, 0.6]))
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=4))
    seed = draw(st.integers(0, 2 ** 31))
    return n, d, K, mc, low, fmt, p, bounds_of(n, cuts), seed


def winnow_data(entry, case):
    n, d, K, mc, low, fmt, p, bounds, seed = case
    if is_real(entry):
        X, y = real_winnow_stream(seed, n, d, K, low)
        Xn, _ = real_winnow_stream(seed + 1, 25, d, K, low)
        X = X.astype(np.float32).astype(np.float64) if fmt == "f32" else X
    else:
        X, y = bool_stream(seed, n, d, K, low, p)
        Xn, _ = bool_stream(seed + 1, 25, d, K, low, p)
    return winnow_X(X, fmt), y, winnow_X(Xn, fmt)


@pytest.mark.parametrize("entry", WINNOW, ids=eid)
def test_winnow_online_same_for_all_n_jobs(entry, tuning):
    @HSET
    @given(winnow_cases(entry))
    def inner(case):
        n, d, K, mc, low, fmt, p, bounds, seed = case
        Xf, y, Xn = winnow_data(entry, case)
        classes = list(range(K)) if K > 2 else ([-1, 1] if is_real(entry) else [0, 1])
        check_all_jobs(lambda j: new(mbcore, entry, multi_class=mc, n_jobs=j),
                       lambda: new(mbref, entry, multi_class=mc, n_jobs=2),
                       Xf, y, bounds, classes, X_fresh=Xn)
    inner()


@pytest.mark.parametrize("entry", WINNOW, ids=eid)
def test_winnow_fit_same_for_all_n_jobs(entry, tuning):
    @HSET
    @given(winnow_cases(entry))
    def inner(case):
        Xf, y, _ = winnow_data(entry, case)
        mc, K = case[3], case[2]
        classes = list(range(K)) if K > 2 else ([-1, 1] if is_real(entry) else [0, 1])
        check_fit_all_jobs(lambda j: new(mbcore, entry, multi_class=mc, max_epochs=6, n_jobs=j),
                           lambda: new(mbref, entry, multi_class=mc, max_epochs=6),
                           Xf, y, classes)
    inner()


# ------------------------------------------------------------------------------------------------
# 1-4. Halving (conservative and not)
# ------------------------------------------------------------------------------------------------


@st.composite
def halving_cases(draw):
    m = draw(st.integers(2, 700))                 # concepts (1 to 11 words of the bitset)
    N = draw(st.integers(2, 30))                  # points
    n = draw(st.integers(20, 400))
    labels = draw(st.sampled_from(["concept", "noisy", "random"]))
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=4))
    seed = draw(st.integers(0, 2 ** 31))
    return m, N, n, labels, bounds_of(n, cuts), seed


def halving_data(case):
    m, N, n, labels, bounds, seed = case
    M = concept_matrix(seed, m, N)
    rng = np.random.default_rng(seed + 5)
    pts = rng.integers(0, N, size=n)
    if labels == "random":
        y = rng.integers(0, 2, size=n)
    else:
        y = M[int(rng.integers(0, m)), pts].astype(np.int64)
        if labels == "noisy":
            y ^= (rng.random(n) < 0.05).astype(np.int64)
    return M, pts, y


@pytest.mark.parametrize("entry", HALVING, ids=eid)
def test_halving_online_same_for_all_n_jobs(entry, tuning):
    @HSET
    @given(halving_cases())
    def inner(case):
        M, pts, y = halving_data(case)
        C = mbcore.ConceptClass.from_matrix(M)
        R = mbref.ConceptClass.from_matrix(M.tolist())
        fresh = np.arange(M.shape[1])
        check_all_jobs(lambda j: new(mbcore, ("Halving", dict(entry[1], concepts=C)), n_jobs=j),
                       lambda: new(mbref, ("Halving", dict(entry[1], concepts=R)), n_jobs=2),
                       pts, y, case[4], [0, 1], X_twin=pts.tolist(), X_fresh=fresh,
                       X_fresh_twin=fresh.tolist())
    inner()


@pytest.mark.parametrize("entry", HALVING, ids=eid)
def test_halving_fit_same_for_all_n_jobs(entry, tuning):
    @HSET
    @given(halving_cases())
    def inner(case):
        M, pts, y = halving_data(case)
        C = mbcore.ConceptClass.from_matrix(M)
        R = mbref.ConceptClass.from_matrix(M.tolist())
        check_fit_all_jobs(
            lambda j: new(mbcore, ("Halving", dict(entry[1], concepts=C)), max_epochs=5,
                          n_jobs=j),
            lambda: new(mbref, ("Halving", dict(entry[1], concepts=R)), max_epochs=5),
            pts, y, [0, 1], X_twin=pts.tolist())
    inner()


# ------------------------------------------------------------------------------------------------
# 6. Every row a mistake
# ------------------------------------------------------------------------------------------------


def _alternating(n, first, second):
    return np.array([first if i % 2 == 0 else second for i in range(n)])


def mistake_streams():
    """(id, entry, X dense, y): streams on which every row is a mistake (checked on the twin)."""
    rng = np.random.default_rng(11)
    n, d = 400, 30
    x = rng.normal(size=d)
    x[rng.random(d) < 0.3] = 0.0
    x[0] = 1.5
    Xr = np.tile(x, (n, 1))
    Xb = np.ones((n, d), dtype=np.uint8)
    out = []
    for entry in (("Perceptron", {}), ("Perceptron", {"fit_intercept": True}),
                  ("AveragedPerceptron", {"mode": "average"}),
                  ("AveragedPerceptron", {"mode": "vote"}),
                  ("MarginPerceptron", {"gamma": 0.1})):
        out.append((eid(entry), entry, Xr, _alternating(n, 1, -1)))
    # K = 3: all weights 0 -> class 0 (the smallest index); labels 1, 2, 0, 1, 2, 0, ...
    y3 = np.array([(1, 2, 0)[i % 3] for i in range(n)])
    out.append(("Perceptron-K3", ("Perceptron", {}), Xr, y3))
    out.append(("Winnow", ("Winnow", {}), Xb, _alternating(n, 0, 1)))
    out.append(("WinnowStar", ("WinnowStar", {}), Xb, _alternating(n, 0, 1)))
    out.append(("BalancedWinnow", ("BalancedWinnow", {}), Xb, _alternating(n, 1, 0)))
    return out


MISTAKE_STREAMS = mistake_streams()


@pytest.mark.parametrize("fmt", ("dense", "csr"))
@pytest.mark.parametrize("case", MISTAKE_STREAMS, ids=[c[0] for c in MISTAKE_STREAMS])
def test_every_row_a_mistake(case, fmt, forced):
    _, entry, X, y = case
    n = X.shape[0]
    Xf = sp.csr_matrix(X) if fmt == "csr" else X
    ref = new(mbref, entry)
    rec_ref = record(mbref.run_online(ref, Xf, y))
    assert ref.mistakes_ == n and all(rec_ref["errors"])          # the stream is what it claims
    pub_ref = canon(public(ref))
    rec_ref2 = record(mbref.run_online(ref, Xf, y))
    pub_ref2 = canon(public(ref))
    base = None
    for jobs in JOBS:
        clf = new(mbcore, entry, n_jobs=jobs)
        rec = record(mbcore.run_online(clf, Xf, y))
        assert clf.mistakes_ == n, f"n_jobs={jobs}: {clf.mistakes_} mistakes, want {n}"
        assert clf.n_seen_ == n
        assert rec == rec_ref, f"n_jobs={jobs}"
        assert canon(public(clf)) == pub_ref, f"n_jobs={jobs}"
        st = internal(clf)
        base = st if base is None else base
        assert st == base, f"n_jobs={jobs}"
        # and again on the fitted learner (the second call starts from a non-zero state)
        assert record(mbcore.run_online(clf, Xf, y)) == rec_ref2, f"n_jobs={jobs}"
        assert canon(public(clf)) == pub_ref2, f"n_jobs={jobs}"


def test_every_row_a_mistake_halving(forced):
    """Halving cannot err on every row for long (each mistake halves the version space): a
    class of 512 concepts where every row until the class is empty is a mistake, then the
    record matches the twin for every n_jobs."""
    m, N = 512, 9
    M = np.array([[(c >> j) & 1 for j in range(N)] for c in range(m)], dtype=np.uint8)
    # point j, label 0 while the alive concepts split evenly: ties predict 1 -> a mistake
    pts = np.arange(N).repeat(1)
    y = np.zeros(N, dtype=np.int64)
    for cons in (True, False):
        ref = mbref.Halving(mbref.ConceptClass.from_matrix(M.tolist()), conservative=cons)
        rec_ref = record(mbref.run_online(ref, pts.tolist(), y, classes=[0, 1]))
        assert ref.mistakes_ == N
        for jobs in JOBS:
            clf = mbcore.Halving(mbcore.ConceptClass.from_matrix(M), conservative=cons,
                                 n_jobs=jobs)
            rec = record(mbcore.run_online(clf, pts, y, classes=[0, 1]))
            assert clf.mistakes_ == N and rec == rec_ref, f"n_jobs={jobs}"
            assert canon(public(clf)) == canon(public(ref))


# ------------------------------------------------------------------------------------------------
# 7. Bad rows in the middle: the same message for every n_jobs, the learner unchanged
# ------------------------------------------------------------------------------------------------


def _csr_parts(X):
    S = sp.csr_matrix(X)
    S.sort_indices()
    return S.data.copy(), S.indices.astype(np.int32), S.indptr.astype(np.int32), S.shape


def _corrupt(X, bad, dtype=np.float64):
    """A DuckCSR of X with rows damaged: bad = {row: 'range' | 'unsorted'} (every damaged row
    must have two stored values or more for 'unsorted')."""
    data, indices, indptr, shape = _csr_parts(X)
    indices = indices.copy()
    for r, kind in bad.items():
        a, b = int(indptr[r]), int(indptr[r + 1])
        assert b - a >= 2
        if kind == "range":
            indices[b - 1] = shape[1] + 3
        elif kind == "unsorted":
            indices[a], indices[a + 1] = indices[a + 1], indices[a]
        elif kind == "duplicate":
            indices[a + 1] = indices[a]
        else:
            raise AssertionError(kind)
    return DuckCSR(data.astype(dtype), indices, indptr, shape)


def _message(kind, row):
    if kind == "range":
        # (the twin names the bad index too: "column index 15 out of range [0, 12)")
        return re.compile(r"column index (-?\d+ )?out of range \[0, \d+\) in row " + str(row) +
                          r"\b")
    return re.compile(r"unsorted or duplicate column indices in row " + str(row) + r"\b")


def _full_rows(rng, n, d, low=2):
    """Rows with at least ``low`` stored values each."""
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.4] = 0.0
    X[:, :low] = rng.choice([-1.5, 1.0, 2.0], size=(n, low))
    return X


BAD_ENTRIES = [("Perceptron", {}), ("AveragedPerceptron", {"mode": "average"}),
               ("AveragedPerceptron", {"mode": "vote"}), ("MarginPerceptron", {"gamma": 0.2}),
               ("Winnow", {}), ("EliminationWinnow", {}), ("WinnowStar", {}),
               ("BalancedWinnow", {}), ("Winnow", {"features": "real"})]


def _bad_case(entry, K):
    rng = np.random.default_rng(21)
    n, d = 300, 12
    if entry[0].endswith("Perceptron") or is_real(entry):
        X = _full_rows(rng, n, d)
        y = rng.integers(0, K, size=n)
        if K == 2 and entry[0].endswith("Perceptron"):
            y = np.where(y > 0, 1, -1)
    else:
        X = (rng.random((n, d)) < 0.4).astype(np.float64)
        X[:, :2] = 1.0
        y = rng.integers(0, K, size=n)
    return X, y


BAD_KINDS = [("range",), ("unsorted",), ("duplicate",), ("unsorted", "range"),
             ("range", "unsorted")]


BAD_CASES = [(e, k, K) for e in BAD_ENTRIES for k in BAD_KINDS for K in (2, 3)
             if not (K > 2 and binary_only(e))]


@pytest.mark.parametrize("entry,kinds,K", BAD_CASES,
                         ids=[f"{eid(e)}-{'+'.join(k)}-K{K}" for e, k, K in BAD_CASES])
def test_bad_csr_row_in_the_middle(entry, kinds, K, tuning):
    """A CSR batch with a bad row (or two: the first wins) in the middle of a high-mistake
    stream: the same ValueError for every n_jobs (the twin names the same row and fault), the
    learner exactly as before,
    on a fresh learner, on a fitted one (partial_fit, run_online) and in fit."""
    X, y = _bad_case(entry, K)
    bad_rows = {157: kinds[0]}
    if len(kinds) > 1:
        bad_rows[231] = kinds[1]
    Xbad = _corrupt(X, bad_rows)
    want = _message(kinds[0], 157)
    classes = sorted(set(y.tolist()))
    prefix = sp.csr_matrix(X[:40])
    rest = sp.csr_matrix(X[40:120])
    # the twin: the message, and what a fitted learner does next
    twin_msgs = set()
    for fitted in (False, True):
        ref = new(mbref, entry)
        if fitted:
            ref.partial_fit(prefix, y[:40], classes=classes)
        with pytest.raises(ValueError) as exc:
            ref.partial_fit(Xbad, y, classes=None if fitted else classes)
        assert want.search(str(exc.value)), str(exc.value)
        twin_msgs.add(str(exc.value))
    rec_next = record(mbref.run_online(ref, rest, y[40:120]))
    msgs = set()
    for jobs in JOBS:
        clf = new(mbcore, entry, n_jobs=jobs)
        with pytest.raises(ValueError) as exc:
            clf.partial_fit(Xbad, y, classes=classes)
        msgs.add(str(exc.value))
        assert want.search(str(exc.value)), f"n_jobs={jobs}: {exc.value}"
        assert getattr(clf, "classes_", None) is None, \
            f"n_jobs={jobs}: a fresh learner is fitted after a failed first call"
        with pytest.raises(ValueError) as exc:
            clf.fit(Xbad, y)
        msgs.add(str(exc.value))
        assert getattr(clf, "classes_", None) is None
        clf.partial_fit(prefix, y[:40], classes=classes)
        before = (internal(clf), canon(public(clf)))
        for call in ("partial_fit", "run_online", "fit"):
            with pytest.raises(ValueError) as exc:
                if call == "run_online":
                    mbcore.run_online(clf, Xbad, y)
                else:
                    getattr(clf, call)(Xbad, y)
            msgs.add(str(exc.value))
            assert (internal(clf), canon(public(clf))) == before, \
                f"n_jobs={jobs}: the failed {call} changed the learner"
        # the learner goes on as if the calls never happened
        assert record(mbcore.run_online(clf, rest, y[40:120])) == rec_next, f"n_jobs={jobs}"
    assert len(msgs) == 1, msgs
    assert len(twin_msgs) == 1, twin_msgs


@pytest.mark.parametrize("name", ("Perceptron", "MarginPerceptron", "Winnow", "BalancedWinnow"))
def test_bad_csr_row_scipy_unsorted(name, tuning):
    """A scipy CSR matrix with unsorted indices in row 120 (scipy keeps them as given): the
    same error for every n_jobs and the twin, the learner unchanged."""
    rng = np.random.default_rng(5)
    X = _full_rows(rng, 200, 8)
    if not name.endswith("Perceptron"):
        X = (X != 0).astype(np.uint8)
    y = np.where(rng.random(200) < 0.5, 1, -1)
    S = sp.csr_matrix(X)
    S.sort_indices()
    a = int(S.indptr[120])
    S.indices[a], S.indices[a + 1] = S.indices[a + 1], S.indices[a]
    S.has_sorted_indices = False
    pat = r"unsorted or duplicate column indices in row 120\b"
    msgs = set()
    for jobs in JOBS:
        clf = getattr(mbcore, name)(n_jobs=jobs).partial_fit(X[:30], y[:30])
        before = internal(clf)
        with pytest.raises(ValueError, match=pat) as exc:
            clf.partial_fit(S, y)
        msgs.add(str(exc.value))
        assert internal(clf) == before, f"n_jobs={jobs}"
    assert len(msgs) == 1, msgs
    with pytest.raises(ValueError, match=pat):
        getattr(mbref, name)().partial_fit(S, y)


NAN_ENTRIES = [("Perceptron", {}), ("AveragedPerceptron", {"mode": "average"}),
               ("MarginPerceptron", {"gamma": 0.2}), ("Winnow", {}), ("BalancedWinnow", {}),
               ("Winnow", {"features": "real"}),
               ("BalancedWinnow", {"features": "real", "alpha": 1.5, "theta": 2.0})]


@pytest.mark.parametrize("dtype", ("float64", "float32"))
@pytest.mark.parametrize("entry", NAN_ENTRIES, ids=eid)
def test_nan_row_in_the_middle(entry, dtype, tuning):
    """A dense batch with a NaN in row 173: the same ValueError naming the row for every n_jobs
    (the twin names the same row); the learner as before the call."""
    rng = np.random.default_rng(8)
    n, d = 300, 10
    if entry[0].endswith("Perceptron") or is_real(entry):
        X = rng.normal(size=(n, d))
    else:
        X = (rng.random((n, d)) < 0.4).astype(np.float64)
    y = rng.integers(0, 2, size=n)
    X = X.astype(dtype)
    Xbad = X.copy()
    Xbad[173, 3] = np.nan
    msgs = set()
    ref = new(mbref, entry).partial_fit(X[:40], y[:40])
    with pytest.raises(ValueError, match=r"\brow 173\b") as exc:
        ref.partial_fit(Xbad, y)
    twin_msg = str(exc.value)
    for jobs in JOBS:
        clf = new(mbcore, entry, n_jobs=jobs).partial_fit(X[:40], y[:40])
        before = (internal(clf), canon(public(clf)))
        with pytest.raises(ValueError, match=r"\brow 173\b") as exc:
            clf.partial_fit(Xbad, y)
        msgs.add(str(exc.value))
        assert (internal(clf), canon(public(clf))) == before, f"n_jobs={jobs}"
        with pytest.raises(ValueError, match=r"\brow 173\b"):
            clf.fit(Xbad, y)
        assert (internal(clf), canon(public(clf))) == before, f"n_jobs={jobs}"
    assert len(msgs) == 1, msgs            # (the twin words it differently, same row)
    assert "NaN" in twin_msg and "NaN" in msgs.pop()


def test_halving_bad_point_in_the_middle(tuning):
    """Halving: a point index out of range in row 150: the same error for every n_jobs, the
    learner unchanged."""
    M = concept_matrix(3, 300, 20)
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 20, size=300)
    y = rng.integers(0, 2, size=300)
    bad = pts.copy()
    bad[150] = 20
    msgs = set()
    for jobs in JOBS:
        for cons in (False, True):
            clf = mbcore.Halving(mbcore.ConceptClass.from_matrix(M), conservative=cons,
                                 n_jobs=jobs)
            clf.partial_fit(pts[:30], y[:30], classes=[0, 1])
            before = (internal(clf), canon(public(clf)))
            with pytest.raises(ValueError) as exc:
                clf.partial_fit(bad, y)
            msgs.add(str(exc.value))
            assert (internal(clf), canon(public(clf))) == before
    assert len(msgs) == 1, msgs
    assert "150" in msgs.pop()


# ------------------------------------------------------------------------------------------------
# 8. n_jobs validation and MBCORE_NUM_THREADS
# ------------------------------------------------------------------------------------------------


def small_fit_args(module, name):
    """A learner of class ``name`` (of ``module``) with its default parameters (but
    max_epochs=4) and a small valid stream for it."""
    rng = np.random.default_rng(0)
    if name == "Halving":
        M = concept_matrix(0, 100, 10)
        C = module.ConceptClass.from_matrix(M if module is mbcore else M.tolist())
        pts = rng.integers(0, 10, size=30)
        return (lambda **kw: module.Halving(C, **dict({"max_epochs": 4}, **kw))), \
            pts if module is mbcore else \
            pts.tolist(), rng.integers(0, 2, size=30)
    if name.endswith("Perceptron"):
        X = rng.normal(size=(30, 4))
        return (lambda **kw: getattr(module, name)(**dict({"max_epochs": 4}, **kw))), X, \
            np.where(X[:, 0] > 0, 1, -1)
    X = (rng.random((30, 5)) < 0.4).astype(np.uint8)
    return (lambda **kw: getattr(module, name)(**dict({"max_epochs": 4}, **kw))), X, \
        X[:, 0].astype(np.int64)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"], ids=repr)
@pytest.mark.parametrize("modname", ("mbcore", "mbref"))
@pytest.mark.parametrize("name", N_JOBS_CLASSES)
def test_n_jobs_validation(name, modname, bad, forced):
    module = mbcore if modname == "mbcore" else mbref
    make, X, y = small_fit_args(module, name)
    pat = re.escape(f"{name}: parameter n_jobs")
    with pytest.raises(ValueError, match=pat):
        make(n_jobs=bad).fit(X, y)
    with pytest.raises(ValueError, match=pat):
        make(n_jobs=bad).partial_fit(X, y, classes=sorted(set(np.asarray(y).tolist())))
    # set on a fitted learner: the next call refuses it and changes nothing
    clf = make(n_jobs=1).fit(X, y)
    before = canon(public(clf))
    clf.set_params(n_jobs=bad)
    with pytest.raises(ValueError, match=pat):
        clf.partial_fit(X, y)
    assert canon(public(clf)) == before


def test_the_knobs_send_small_streams_through_the_threads(forced, monkeypatch):
    """Guard for every test above: under the fixtures, a pass over a small stream asks for
    n_jobs threads (were it to run on one, the comparisons would prove nothing)."""
    asked = []
    orig = mbase.OnlineLearner._threads

    def spy(self, batch):
        asked.append((type(self).__name__, orig(self, batch)))
        return asked[-1][1]
    monkeypatch.setattr(mbase.OnlineLearner, "_threads", spy)
    X, y = linear_stream(0, 40, 3, 2, False, "real")
    mbcore.Perceptron(n_jobs=4).partial_fit(X, y)
    mbcore.MarginPerceptron(n_jobs=3).fit(X, y)
    Xb, yb = bool_stream(0, 40, 5, 3, False, 0.3)
    mbcore.Winnow(n_jobs=2).partial_fit(Xb, yb)
    assert ("Perceptron", 4) in asked and ("MarginPerceptron", 3) in asked and \
        ("Winnow", 2) in asked, asked
    C = mbcore.ConceptClass.from_matrix(concept_matrix(0, 70, 5))
    h = mbcore.Halving(C, n_jobs=3)
    assert h._pass_threads(40) == 3
    for m in _kernel_modules():
        assert m.spec_tuning()[:2] == (0, 1) and m.spec_tuning()[3] == 1, m.__name__
    assert {m.__name__.rsplit(".", 1)[1] for m in _kernel_modules()} == set(KERNEL_MODULES)


@pytest.mark.parametrize("good", [None, -1, 1, 3, np.int64(2)], ids=repr)
@pytest.mark.parametrize("modname", ("mbcore", "mbref"))
@pytest.mark.parametrize("name", N_JOBS_CLASSES)
def test_n_jobs_valid_values(name, modname, good, forced):
    module = mbcore if modname == "mbcore" else mbref
    make, X, y = small_fit_args(module, name)
    ref_make, Xr, yr = small_fit_args(mbref, name)
    got = make(n_jobs=good).fit(X, y)
    want = ref_make().fit(Xr, yr)
    assert canon(public(got)) == canon(public(want))
    assert fit_info(got) == fit_info(want)


@pytest.mark.parametrize("name", ("OnlineHingeSVM", "KernelPerceptron"))
def test_sequential_learners_have_no_n_jobs(name):
    for module in (mbcore, mbref):
        assert "n_jobs" not in getattr(module, name)().get_params()
        with pytest.raises(TypeError):
            getattr(module, name)(n_jobs=2)


@pytest.mark.parametrize("name", N_JOBS_CLASSES)
def test_env_var_threads(name, tuning, monkeypatch):
    """n_jobs=None reads MBCORE_NUM_THREADS: "2" and "-1" give the results of n_jobs=1; a bad
    value raises a ValueError naming the variable (mbcore; an explicit n_jobs ignores it)."""
    make, X, y = small_fit_args(mbcore, name)
    if name.endswith("Perceptron"):
        rng = np.random.default_rng(9)
        X = rng.normal(size=(300, 6))
        y = rng.integers(0, 2, size=300)
    elif name != "Halving":
        rng = np.random.default_rng(9)
        X = (rng.random((300, 8)) < 0.3).astype(np.uint8)
        y = rng.integers(0, 2, size=300)
    monkeypatch.delenv("MBCORE_NUM_THREADS", raising=False)
    seq = make(n_jobs=1)
    rec1 = record(mbcore.run_online(seq, X, y, classes=[0, 1]))
    fit1 = make(n_jobs=1).fit(X, y)
    for value in ("2", "-1", " 4 "):
        monkeypatch.setenv("MBCORE_NUM_THREADS", value)
        clf = make()
        assert clf.n_jobs is None
        assert record(mbcore.run_online(clf, X, y, classes=[0, 1])) == rec1, value
        assert internal(clf) == internal(seq), value
        f = make().fit(X, y)
        assert fit_info(f) == fit_info(fit1) and internal(f) == internal(fit1), value
    for value in ("zero", "0", "-2", "1.5"):
        monkeypatch.setenv("MBCORE_NUM_THREADS", value)
        with pytest.raises(ValueError, match="MBCORE_NUM_THREADS"):
            make().fit(X, y)
        with pytest.raises(ValueError, match="MBCORE_NUM_THREADS"):
            make().partial_fit(X, y, classes=[0, 1])
        # a fitted learner is left as it was
        clf = make(n_jobs=1).partial_fit(X[:50], y[:50], classes=[0, 1])
        clf.n_jobs = None
        before = internal(clf)
        with pytest.raises(ValueError, match="MBCORE_NUM_THREADS"):
            clf.partial_fit(X, y)
        assert internal(clf) == before
        # an explicit n_jobs does not read the variable
        clf = make(n_jobs=2)
        assert record(mbcore.run_online(clf, X, y, classes=[0, 1])) == rec1
    monkeypatch.delenv("MBCORE_NUM_THREADS")
    clf = make()                                   # None, no variable: every core
    assert record(mbcore.run_online(clf, X, y, classes=[0, 1])) == rec1


# ------------------------------------------------------------------------------------------------
# 9. get_params, clone, pickle, save/load keep n_jobs
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", (None, -1, 1, 3))
@pytest.mark.parametrize("name", N_JOBS_CLASSES)
def test_n_jobs_params_clone_pickle(name, jobs, forced):
    for module in (mbcore, mbref):
        make, X, y = small_fit_args(module, name)
        clf = make(n_jobs=jobs)
        params = clf.get_params()
        assert "n_jobs" in params and params["n_jobs"] == jobs
        assert make().get_params()["n_jobs"] is None
        clf.fit(X, y)
        assert pickle.loads(pickle.dumps(clf)).get_params()["n_jobs"] == jobs
        assert clf.set_params(n_jobs=2) is clf and clf.n_jobs == 2
        clf.set_params(n_jobs=jobs)
    make, X, y = small_fit_args(mbcore, name)
    clf = make(n_jobs=jobs).fit(X, y)
    c = mbcore.clone(clf)
    assert c.n_jobs == jobs and c.get_params() == clf.get_params()
    assert getattr(c, "classes_", None) is None
    try:
        from sklearn.base import clone as sk_clone
    except ImportError:                  # pragma: no cover - scikit-learn is a test requirement
        sk_clone = None
    if sk_clone is not None:
        assert sk_clone(clf).n_jobs == jobs
    p = pickle.loads(pickle.dumps(clf))
    assert p.n_jobs == jobs and internal(p) == internal(clf)
    buf = io.BytesIO()
    clf.save(buf)
    buf.seek(0)
    loaded = mbcore.load(buf)
    assert loaded.n_jobs == jobs and internal(loaded) == internal(clf)
    # the copies go on like the original, bit for bit, on any number of threads
    for other in (p, loaded):
        other.set_params(n_jobs=2)
        clf.set_params(n_jobs=1)
        other.partial_fit(X, y)
        clf2 = pickle.loads(pickle.dumps(clf))
        clf2.partial_fit(X, y)
        assert internal(other) == internal(clf2)
