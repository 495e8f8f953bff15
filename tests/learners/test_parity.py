"""Parity: the compiled learners (mbcore) against their pure-Python twins (mbref).

The contract (README, "The twin") is bit for bit: on the same
stream, fed in any chunks, both make the same online predictions, the same mistakes and updates,
and end with the same weights, compared with ``==`` (no tolerance).  On top of that the online
protocol is chunk invariant, and on integer-valued data a CSR matrix and the dense array with the
same values give the same results (every summation order gives the same exact sums).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
from conftest import (FORMATS, ADDITIVE, ADDITIVE_IDS, as_list, chunk_bounds, csr_from_dense,
                      entry_id, guard, integer_exact, integer_stream, make, make_pair,
                      real_stream, run_chunked, snapshot, sparse_stream, take_rows, to_format,
                      whole_record)

# CI runs this file on the debug build too (tests/README.md)
pytestmark = [pytest.mark.smoke, pytest.mark.checked]

SEEDS = (0, 1, 2)
CHUNKINGS = ("whole", 1, 7, "random")
N, D = 150, 12


def stream(seed, n=N, d=D):
    """Real values with exact zeros, all-zero rows and repeated rows (the parity workload)."""
    X, y = real_stream(seed, n, d)
    rng = np.random.default_rng(seed + 31)
    X[rng.random(n) < 0.08] = 0.0          # empty rows (CSR) / zero rows (dense)
    return X, y


_TWIN_CACHE = {}


def twin_run(entry, seed, fmt):
    """The twin's whole-batch run on a stream (cached: the twin is the slow side)."""
    key = (entry_id(entry), seed, fmt)
    if key not in _TWIN_CACHE:
        X, y = stream(seed)
        Xf = to_format(X, fmt)
        ref = make(mbref, entry)
        rec = whole_record(mbref.run_online(ref, Xf, y, classes=[-1, 1]))
        Xn, _ = stream(seed + 1000, 40)
        Xn_f = to_format(Xn, fmt)
        fresh = {"decision": as_list(ref.decision_function(Xn_f)),
                 "predict": as_list(ref.predict(Xn_f))}
        _TWIN_CACHE[key] = (rec, snapshot(ref), fresh)
    return _TWIN_CACHE[key]


def fresh_outputs(learner, seed, fmt):
    Xn, _ = stream(seed + 1000, 40)
    Xn_f = to_format(Xn, fmt)
    return {"decision": as_list(learner.decision_function(Xn_f)),
            "predict": as_list(learner.predict(Xn_f))}


@pytest.mark.parametrize("chunking", CHUNKINGS, ids=lambda c: f"chunks={c}")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_online_parity(entry, seed, fmt, chunking):
    rec_ref, snap_ref, fresh_ref = twin_run(entry, seed, fmt)
    X, y = stream(seed)
    Xf = to_format(X, fmt)
    bounds = chunk_bounds(N, chunking, seed)

    # run_online, chunk by chunk: the record and the final state.
    clf = make(mbcore, entry)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=[-1, 1])
    assert rec == rec_ref
    assert snapshot(clf) == snap_ref
    assert fresh_outputs(clf, seed, fmt) == fresh_ref

    # partial_fit, chunk by chunk (one-row chunks take partial_fit's own code path).
    clf2 = make(mbcore, entry)
    for k, (a, b) in enumerate(bounds):
        guard(clf2, take_rows(Xf, a, b))
        ret = clf2.partial_fit(take_rows(Xf, a, b), y[a:b], classes=[-1, 1] if k == 0 else None)
        assert ret is clf2
    assert snapshot(clf2) == snap_ref
    assert fresh_outputs(clf2, seed, fmt) == fresh_ref


def _fit_entry(entry, max_epochs):
    name, params = entry
    return name, dict(params, max_epochs=max_epochs)


def fit_state(clf):
    s = snapshot(clf)
    s.update(converged_=bool(clf.converged_), cycled_=bool(clf.cycled_), n_iter_=int(clf.n_iter_),
             epoch_mistakes_=as_list(clf.epoch_mistakes_),
             epoch_updates_=as_list(clf.epoch_updates_))
    return s


@pytest.mark.parametrize("fmt", ("dense64", "dense32", "csr_i64"))
@pytest.mark.parametrize("seed", (0, 1), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_fit_parity(entry, seed, fmt):
    n = 50 if entry[0] == "KernelPerceptron" else 100
    X, y = stream(seed, n, 8)
    Xf = to_format(X, fmt)
    e = _fit_entry(entry, 4)
    clf, ref = make_pair(e)
    assert clf.fit(Xf, y) is clf
    ref.fit(Xf, y)
    assert fit_state(clf) == fit_state(ref)
    assert sum(clf.epoch_mistakes_) == clf.mistakes_
    assert sum(clf.epoch_updates_) == clf.updates_
    assert clf.n_seen_ == n * clf.n_iter_
    Xn, _ = stream(seed + 5, 30, 8)
    Xn_f = to_format(Xn, fmt)
    assert as_list(clf.decision_function(Xn_f)) == as_list(ref.decision_function(Xn_f))
    assert as_list(clf.predict(Xn_f)) == as_list(ref.predict(Xn_f))


# Entries whose fit can converge or cycle on small integer data: the stopping rule must agree.
_CYCLE_ENTRIES = [e for e in ADDITIVE if e[0] in ("Perceptron", "AveragedPerceptron",
                                                   "MarginPerceptron", "KernelPerceptron")]


@pytest.mark.parametrize("seed", (3, 4, 5), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", _CYCLE_ENTRIES, ids=[entry_id(e) for e in _CYCLE_ENTRIES])
def test_fit_parity_until_converged_or_cycled(entry, seed):
    """Small integer streams, noisy (cycle) or clean (converge), with a generous epoch limit."""
    X, y = integer_stream(seed, 12, 3, noise=0.25 if seed % 2 else 0.0)
    clf, ref = make_pair(_fit_entry(entry, 60))
    clf.fit(X, y)
    ref.fit(X, y)
    assert fit_state(clf) == fit_state(ref)
    assert clf.n_iter_ <= 60
    assert not (clf.converged_ and clf.cycled_)


def test_fit_detects_cycling_on_nonseparable_integer_data():
    """XOR is not linearly separable: the Perceptron's weights must repeat (cycling theorem) and
    both twins must stop at the same epoch with ``cycled_``."""
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1, 1, -1, -1])
    for mod in (mbcore, mbref):
        clf = mod.Perceptron(max_epochs=1000).fit(X, y)
        assert clf.cycled_ and not clf.converged_
        assert clf.n_iter_ < 1000
    a = mbcore.Perceptron(max_epochs=1000).fit(X, y)
    b = mbref.Perceptron(max_epochs=1000).fit(X, y)
    assert fit_state(a) == fit_state(b)


@pytest.mark.parametrize("fmt", ("dense64", "csr_i64"))
@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_twin_chunked_like_compiled(entry, fmt):
    """Both sides fed the same random chunks (the twin chunked too)."""
    X, y = stream(9, 90, 7)
    Xf = to_format(X, fmt)
    bounds = chunk_bounds(90, "random", 9)
    clf, ref = make_pair(entry)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=[-1, 1])
    rec_ref = run_chunked(mbref, ref, Xf, y, bounds, classes=[-1, 1])
    assert rec == rec_ref
    assert snapshot(clf) == snapshot(ref)


@pytest.mark.parametrize("integer", [False, True], ids=["real", "integer"])
@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_sparse_stream_parity(entry, integer):
    """A sparser stream (30% density, 20% empty rows), int64 indices and float32 values, fed in
    single rows then chunks of 5: some one-row chunks hold no stored value at all."""
    X, y = sparse_stream(31, 100, 15, integer=integer, index_dtype=np.int64,
                         data_dtype=np.float32)
    bounds = [(i, i + 1) for i in range(20)] + [(a + 20, b + 20) for a, b in chunk_bounds(80, 5)]
    assert any(X.indptr[a] == X.indptr[b] for a, b in bounds)
    clf, ref = make_pair(entry)
    rec = run_chunked(mbcore, clf, X, y, bounds, classes=[-1, 1])
    assert rec == run_chunked(mbref, ref, X, y, bounds, classes=[-1, 1])
    assert snapshot(clf) == snapshot(ref)
    Xn, _ = sparse_stream(32, 30, 15, index_dtype=np.int64)
    assert as_list(clf.decision_function(Xn)) == as_list(ref.decision_function(Xn))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_chunk_invariance(entry, fmt):
    """mbcore alone, longer stream: chunked feeding equals one whole batch."""
    X, y = stream(21, 400, 20)
    Xf = to_format(X, fmt)
    whole = make(mbcore, entry)
    rec_whole = whole_record(mbcore.run_online(whole, Xf, y))
    for chunking in (1, 7, 64, "random"):
        clf = make(mbcore, entry)
        rec = run_chunked(mbcore, clf, Xf, y, chunk_bounds(400, chunking, 21), classes=[-1, 1])
        assert rec == rec_whole, chunking
        assert snapshot(clf) == snapshot(whole), chunking


_EXACT = [e for e in ADDITIVE if integer_exact(e)]


@pytest.mark.parametrize("seed", (0, 1), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", _EXACT, ids=[entry_id(e) for e in _EXACT])
def test_csr_equals_dense_on_integer_data(entry, seed):
    X, y = integer_stream(seed, 200, 15, zero_frac=0.6)
    X[::9] = 0.0
    Xn, _ = integer_stream(seed + 50, 40, 15, zero_frac=0.6)
    variants = {"dense": X, "csr_scipy": sp.csr_array(X),
                "csr_i32": csr_from_dense(X, np.int32), "csr_i64": csr_from_dense(X, np.int64),
                "csr_i64_f32": csr_from_dense(X, np.int64, np.float32)}
    # The averaged hypothesis w + (w - u)/T is not integer-valued, so its scores on fresh data
    # depend on the summation order; every other hypothesis here stays exact.
    exact_hypothesis = not (entry[0] == "AveragedPerceptron" and entry[1]["mode"] == "average")
    results = {}
    for name, Xv in variants.items():
        clf = make(mbcore, entry)
        rec = whole_record(mbcore.run_online(clf, Xv, y))
        scores = (as_list(clf.decision_function(Xn)),
                  as_list(clf.decision_function(sp.csr_array(Xn)))) if exact_hypothesis else ()
        results[name] = (rec, snapshot(clf)) + scores
    base = results["dense"]
    if exact_hypothesis:
        assert base[2] == base[3]
    for name, r in results.items():
        assert r == base, name
    # The twin agrees with both layouts as well.
    for Xv in (X, variants["csr_i64"]):
        ref = make(mbref, entry)
        rec = whole_record(mbref.run_online(ref, Xv, y))
        assert (rec, snapshot(ref)) == base[:2]


# ------------------------------------------------------------------------------------------------
# Hypothesis: small generated streams, any label pair, any chunking, any layout
# ------------------------------------------------------------------------------------------------

_PAIRS = [(-1, 1), (0, 1), (3, 7), (False, True), ("ham", "spam"), (-1.5, 2.0)]
_VALUES = st.one_of(st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, -2.25, 3.0]),
                    st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False, width=64))


@st.composite
def streams(draw):
    entry = draw(st.sampled_from(ADDITIVE))
    n = draw(st.integers(1, 25))
    d = draw(st.integers(1, 6))
    pool_size = draw(st.integers(1, n))
    pool = draw(st.lists(st.lists(_VALUES, min_size=d, max_size=d), min_size=pool_size,
                         max_size=pool_size))
    picks = draw(st.lists(st.integers(0, pool_size - 1), min_size=n, max_size=n))
    X = np.array([pool[i] for i in picks], dtype=np.float64).reshape(n, d)
    pair = draw(st.sampled_from(_PAIRS))
    lab = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    y = np.array([pair[v] for v in lab])
    cuts = sorted(set(draw(st.lists(st.integers(1, max(n - 1, 1)), max_size=5)))) if n > 1 else []
    bounds = list(zip([0] + cuts, cuts + [n]))
    fmt = draw(st.sampled_from(FORMATS))
    return entry, X, y, pair, bounds, fmt


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(streams())
def test_hypothesis_parity(case):
    entry, X, y, pair, bounds, fmt = case
    Xf = to_format(X, fmt)
    clf, ref = make_pair(entry)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=list(pair))
    rec_ref = run_chunked(mbref, ref, Xf, y, bounds, classes=list(pair))
    assert rec == rec_ref
    assert snapshot(clf) == snapshot(ref)
    assert as_list(clf.decision_function(Xf)) == as_list(ref.decision_function(Xf))
    assert as_list(clf.predict(Xf)) == as_list(ref.predict(Xf))
    # The predictions are labels of the pair, of the pair's type.
    for p in rec["predictions"]:
        assert p in pair and type(p) is type(pair[0])
    # Chunk invariance of the compiled side on the same case.
    whole = make(mbcore, entry)
    assert whole_record(mbcore.run_online(whole, Xf, y, classes=list(pair))) == rec
    assert snapshot(whole) == snapshot(clf)
