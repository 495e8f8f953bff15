"""Winnow's Boolean check rides on the pass (issue 27).

With ``features="boolean"`` every value of X must be 0 or 1.  The compiled pass checks each row's
values as it reads them (no separate sweep over X before it): a value outside {0, 1} in the
middle of a batch makes the pass stop at that row, the call raises naming the row and the value,
and the learner is left exactly as it was (weights, counters, pickle), for every n_jobs; the
twin (mbref) raises the same error.  The only sweep left before the pass is for dense arrays of
unsigned integers wider than a byte (uint16/32/64): the pass reads them as uint8, where 256
would become 0, so their values above 1 are reported before the cast.

A complete pass that found every stored CSR value to be 1 lets the later epochs of ``fit`` read
the column indices alone (the values are not read again): a batch with a stored 0 must not take
that path, and either way the results are those of the twin and of n_jobs=1, bit for bit.
"""

import contextlib
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbcore._threads as mthreads
import mbref
from mbcore._kernels import multiplicative as mk, multiplicative_mc as mkmc

N, D = 400, 16
BAD, BAD2 = 237, 311          # the first bad row (and a later one, which must not be named)
JOBS = (1, 2)
TUNINGS = {"forced": (0, 1, None, 1), "default": (48, 16, 4096, 256)}


@contextlib.contextmanager
def tuned(name):
    """Small batches through the multithreaded pass: SPEC_MIN_VALUES = 0 and the block sizes
    of TUNINGS[name] ("forced": every row through tiny speculative blocks), in both Winnow
    kernel modules (binary and K classes: each has its own)."""
    old_min = mthreads.SPEC_MIN_VALUES
    old = [(m, m.spec_tuning()) for m in (mk, mkmc)]
    try:
        mthreads.SPEC_MIN_VALUES = 0
        for m, _ in old:
            m.spec_tuning(*TUNINGS[name])
        yield name
    finally:
        for m, o in reversed(old):
            m.spec_tuning(*o)
        mthreads.SPEC_MIN_VALUES = old_min


@pytest.fixture(params=tuple(TUNINGS))
def tuning(request):
    with tuned(request.param) as name:
        yield name


def stream(K, seed=3):
    """0/1 rows (column 0 always 1, so every row stores a value there) and random labels (many
    mistakes: the pass updates all along the batch)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((N, D)) < 0.35).astype(np.float64)
    X[:, 0] = 1.0
    return X, rng.integers(0, K, size=N)


DENSE = {"f64": np.float64, "f32": np.float32, "u8": np.uint8, "u16": np.uint16}
CSR = {"csr_f64": np.float64, "csr_f32": np.float32, "csr_u8": np.uint8}
LAYOUTS = [(lay, v) for lay in ("f64", "f32", "csr_f64", "csr_f32") for v in (2.0, 0.5, -1.0)]
LAYOUTS += [("u8", 2), ("u8", 255), ("csr_u8", 2), ("u16", 2), ("u16", 256)]


def as_layout(X, layout):
    if layout in DENSE:
        return np.ascontiguousarray(X, dtype=DENSE[layout])
    return sp.csr_matrix(np.asarray(X, dtype=CSR[layout]))


def bad_batch(X, layout, value):
    """X with ``value`` in row BAD (where the row holds a 1) and 3 in row BAD2."""
    Xb = np.array(X, dtype=np.float64 if layout not in ("u8", "u16", "csr_u8") else np.int64)
    Xb[BAD, 0] = value
    Xb[BAD2, 0] = 3
    return as_layout(Xb, layout)


def state(clf):
    """The learner as bytes: its log-weights and weight cache, its counters, and its pickle."""
    return (clf._l.tobytes(), clf._w.tobytes(), clf._ln.tobytes(), clf._wn.tobytes(),
            np.asarray(clf._counts).tobytes(), int(clf.n_seen_), int(clf.mistakes_),
            pickle.dumps(clf))


LEARNERS = [("Winnow", {}), ("Winnow", {"alpha": 1.5}), ("BalancedWinnow", {})]


@pytest.mark.parametrize("K", (2, 3))
@pytest.mark.parametrize("entry", LEARNERS, ids=lambda e: e[0] + "".join(
    f"-{k}{v}" for k, v in e[1].items()))
@pytest.mark.parametrize("layout,value", LAYOUTS, ids=[f"{a}-{b}" for a, b in LAYOUTS])
def test_value_outside_0_1_in_the_middle(layout, value, entry, K, tuning):
    name, params = entry
    X, y = stream(K)
    classes = list(range(K))
    Xbad = bad_batch(X, layout, value)
    prefix = as_layout(X[:60], layout)
    got = repr(float(value)) if layout in ("f64", "f32", "csr_f64", "csr_f32") else str(value)
    want = (f"{name}: X must be Boolean (0/1) with features='boolean', got {got} in row {BAD}")
    # the twin: the same error for the same row, on a fresh and on a fitted learner
    ref = getattr(mbref, name)(**params)
    with pytest.raises(ValueError) as exc:
        ref.partial_fit(Xbad, y, classes=classes)
    assert str(exc.value) == want
    ref = getattr(mbref, name)(**params).partial_fit(prefix, y[:60], classes=classes)
    with pytest.raises(ValueError) as exc:
        ref.partial_fit(Xbad, y)
    assert str(exc.value) == want
    rest = as_layout(X[60:200], layout)
    ref_next = mbref.run_online(ref, rest, y[60:200])
    for jobs in JOBS:
        clf = getattr(mbcore, name)(n_jobs=jobs, **params)
        with pytest.raises(ValueError) as exc:
            clf.partial_fit(Xbad, y, classes=classes)
        assert str(exc.value) == want, f"n_jobs={jobs}"
        assert getattr(clf, "classes_", None) is None, f"n_jobs={jobs}: fitted by a failed call"
        with pytest.raises(ValueError) as exc:
            clf.fit(Xbad, y)
        assert str(exc.value) == want, f"n_jobs={jobs}"
        clf.partial_fit(prefix, y[:60], classes=classes)
        before = state(clf)
        for call in ("partial_fit", "run_online", "fit"):
            with pytest.raises(ValueError) as exc:
                if call == "run_online":
                    mbcore.run_online(clf, Xbad, y)
                else:
                    getattr(clf, call)(Xbad, y)
            assert str(exc.value) == want, f"n_jobs={jobs}, {call}"
            assert state(clf) == before, f"n_jobs={jobs}: the failed {call} changed the learner"
        # and it goes on as the twin does, as if the calls never happened
        run = mbcore.run_online(clf, rest, y[60:200])
        assert [int(p) for p in run.predictions] == [int(p) for p in ref_next.predictions]
        assert np.array_equal(clf.log2_coef_, ref.log2_coef_), f"n_jobs={jobs}"


def csr_with_stored_zeros(X, rows, dtype):
    """X (0/1) as CSR whose ``rows`` store every column, their zeros included."""
    data, indices, indptr = [], [], [0]
    for i, row in enumerate(X):
        cols = np.arange(D) if i in rows else np.flatnonzero(row)
        data.extend(row[cols])
        indices.extend(cols)
        indptr.append(len(indices))
    return sp.csr_matrix((np.array(data, dtype=dtype), np.array(indices, dtype=np.int32),
                          np.array(indptr, dtype=np.int32)), shape=X.shape)


ZERO_ROWS = {"none": (), "many": tuple(range(5, N, 7)), "last": (N - 1,), "first": (0,)}


@pytest.mark.parametrize("dtype", (np.float64, np.float32, np.uint8), ids=lambda t: t.__name__)
@pytest.mark.parametrize("zeros", tuple(ZERO_ROWS))
@pytest.mark.parametrize("entry", LEARNERS, ids=lambda e: e[0] + "".join(
    f"-{k}{v}" for k, v in e[1].items()))
def test_fit_epochs_with_and_without_stored_zeros(entry, zeros, dtype, tuning):
    """Several epochs of fit over CSR with stored 0s (which later epochs must not take for 1s)
    or without: the twin's result on the dense rows, for every n_jobs, bit for bit."""
    name, params = entry
    X, y = stream(2, seed=11)
    S = csr_with_stored_zeros(X, set(ZERO_ROWS[zeros]), dtype)
    assert (S.nnz > int(X.sum())) == (zeros != "none")
    ref = getattr(mbref, name)(max_epochs=5, **params).fit(X, y)
    assert ref.n_iter_ > 1                      # (later epochs ran)
    for jobs in JOBS:
        clf = getattr(mbcore, name)(max_epochs=5, n_jobs=jobs, **params).fit(S, y)
        assert clf.n_iter_ == ref.n_iter_ and clf.epoch_mistakes_ == ref.epoch_mistakes_, \
            f"n_jobs={jobs}"
        assert np.array_equal(clf.log2_coef_, ref.log2_coef_), f"n_jobs={jobs}"
        assert clf.mistakes_ == ref.mistakes_ and clf.n_seen_ == ref.n_seen_


@pytest.mark.parametrize("dtype", (np.float64, np.float32, np.uint8), ids=lambda t: t.__name__)
@pytest.mark.parametrize("jobs", JOBS)
def test_a_checked_pass_says_whether_every_value_is_1(dtype, jobs, tuning):
    """The pass reports (for the later epochs of fit) whether it checked every value and found
    it to be 1: not with a stored 0 anywhere, not when it did not check the values."""
    X, y = stream(2, seed=5)
    for rows, want in (((), True), ((0,), False), ((N - 1,), False), ((200, 201), False)):
        S = csr_with_stored_zeros(X, set(rows), dtype)
        clf = mbcore.Winnow(n_jobs=jobs)
        batch, yy = clf._prepare(S, y, [0, 1])
        counts = np.zeros(3, dtype=np.int64)
        pred = np.empty(N, dtype=np.int8)
        assert clf._run_kernel(batch, yy, pred, counts, True, threads=jobs) is want, rows
        assert clf._run_kernel(batch, yy, pred, counts, True, threads=jobs,
                               check_values=False) is False
