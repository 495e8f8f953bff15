"""The CSR step of the binary linear pass (issue 27).

* The AVX2 gather (``linear.gather_impl("avx2")``, opt-in) and the scalar loop sum a sparse row's
  products in the same order: the same weights, predictions and mistakes, bit for bit, for every
  value and index type and every row length (the tails of 1-3 products included), and the same
  as the pure-Python twin.
* The read-ahead thread checks the column indices of the rows it brings into the caches, so the
  pass does not check them again: a bad row anywhere in a long high-mistake stream is still
  found, with the same message as the one-thread pass, and the learner is left as it was.
"""
import copy
import re

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore._kernels import linear as klin

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

LEARNERS = [
    ("Perceptron", {}),
    ("Perceptron", {"fit_intercept": True, "eta": 0.37}),
    ("Perceptron", {"normalize": True}),
    ("MarginPerceptron", {"gamma": 0.2}),
    ("AveragedPerceptron", {}),
    ("PassiveAggressive", {}),
]


def _random_csr(rng, n, d, value_dtype, index_dtype, max_len=11):
    """Rows of 0..max_len stored values (every tail length occurs), sorted distinct columns."""
    indptr = [0]
    cols, vals = [], []
    for i in range(n):
        k = int(rng.integers(0, max_len + 1))
        c = np.sort(rng.choice(d, size=k, replace=False))
        cols.append(c)
        vals.append(rng.normal(size=k) * rng.choice([0.5, 1.0, 3.0]))
        indptr.append(indptr[-1] + k)
    data = np.concatenate(vals).astype(value_dtype)
    indices = np.concatenate(cols).astype(index_dtype)
    X = sp.csr_matrix((data, indices, np.asarray(indptr, dtype=index_dtype)), shape=(n, d))
    # scipy may narrow the index arrays: put the requested type back
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return X


@pytest.fixture
def gather():
    """Run the test under each loop this CPU can take; the default restored afterwards."""
    before = klin.gather_impl()
    yield klin.gather_impl
    klin.gather_impl("best")
    assert klin.gather_impl() == before


def test_gather_default_is_the_scalar_loop():
    """The default (and "best") is the scalar loop: the gathers were slower where measured."""
    assert klin.gather_impl("best") == "scalar"
    assert klin.gather_impl() == "scalar"


def test_gather_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match=r"gather_impl: kind must be 'avx2', 'scalar' or "
                                         r"'best', got 'sse'"):
        klin.gather_impl("sse")
    assert klin.gather_impl() == "scalar"


def test_gather_can_be_chosen_where_it_dispatches(gather):
    got = gather("avx2")
    if not klin.gather_dispatches():
        assert got == "scalar"
    else:
        # (a CPU without AVX2 keeps the scalar loop)
        assert got in ("avx2", "scalar")
    assert gather("scalar") == "scalar"


@pytest.mark.parametrize("name,params", LEARNERS, ids=[f"{n}-{i}" for i, (n, _) in
                                                       enumerate(LEARNERS)])
@pytest.mark.parametrize("value_dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_and_scalar_loops_agree_bit_for_bit(gather, name, params, value_dtype,
                                                   index_dtype):
    rng = np.random.default_rng(7)
    X = _random_csr(rng, 400, 37, value_dtype, index_dtype)
    u = rng.normal(size=37)
    y = np.where(X @ u + 0.3 * rng.normal(size=400) > 0, 1, -1)   # noisy: many updates
    results = {}
    for kind in ("scalar", "avx2"):
        gather(kind)
        clf = getattr(mbcore, name)(**params)
        clf.partial_fit(X, y)
        clf.partial_fit(X[::-1], y[::-1])
        results[kind] = (clf.coef_.copy(), np.copy(clf.intercept_), int(np.sum(clf.mistakes_)),
                         clf.decision_function(X))
    ref = getattr(mbref, name)(**params)
    ref.partial_fit(X, y)
    ref.partial_fit(X[::-1], y[::-1])
    for kind, (coef, b, m, scores) in results.items():
        np.testing.assert_array_equal(coef, np.asarray(ref.coef_), err_msg=kind)
        np.testing.assert_array_equal(b, np.asarray(ref.intercept_), err_msg=kind)
        assert m == int(np.sum(ref.mistakes_)), kind
    np.testing.assert_array_equal(results["scalar"][3], results["avx2"][3])


def test_gather_reads_no_further_than_the_row(gather):
    """Rows whose last values sit at the very end of the arrays (a gather of four must not
    read past a row of 1-3 values): the same scores as the scalar loop."""
    for n_vals in range(0, 9):
        data = np.arange(1, n_vals + 1, dtype=np.float64)
        indices = np.arange(n_vals, dtype=np.int32)[::-1].copy()
        indices.sort()
        X = sp.csr_matrix((data, indices, np.array([0, n_vals], dtype=np.int32)),
                          shape=(1, 9))
        out = {}
        for kind in ("scalar", "avx2"):
            gather(kind)
            clf = mbcore.Perceptron().partial_fit(X, [-1], classes=[-1, 1])
            out[kind] = (clf.coef_.copy(), clf.decision_function(X))
        np.testing.assert_array_equal(out["scalar"][0], out["avx2"][0])
        np.testing.assert_array_equal(out["scalar"][1], out["avx2"][1])


# ------------------------------------------------------------------------------------------------
# The read-ahead's index checks
# ------------------------------------------------------------------------------------------------

def _high_mistake_csr(n, d=40, nnz=6, seed=3):
    """n rows of nnz values with random labels (a mistake on about half the rows: the pass runs
    in sequential stretches, the read-ahead thread reading the next one)."""
    rng = np.random.default_rng(seed)
    cols = np.sort(np.stack([rng.choice(d, size=nnz, replace=False) for _ in range(n)]), axis=1)
    data = rng.normal(size=n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((data, cols.ravel().astype(np.int32), indptr), shape=(n, d))
    y = rng.choice([-1, 1], size=n)
    return X, y


def _damaged(X, row, kind):
    X = X.copy()
    a, b = X.indptr[row], X.indptr[row + 1]
    if kind == "range":
        X.indices[b - 1] = X.shape[1] + 5
    elif kind == "negative":
        X.indices[a] = -2
    else:
        X.indices[a], X.indices[a + 1] = X.indices[a + 1], X.indices[a]
    return X


def _message(kind, row):
    if kind in ("range", "negative"):
        return r"column index (-?\d+ )?out of range \[0, \d+\) in row " + str(row) + r"\b"
    return r"unsorted or duplicate column indices in row " + str(row) + r"\b"


@pytest.fixture
def short_stretches():
    """Sequential stretches of 16 rows (many read-ahead jobs in a short pass)."""
    old = klin.spec_tuning(None, None, None, 16)
    yield
    klin.spec_tuning(*old)


def test_readahead_checks_the_rows_it_reads(short_stretches):
    """A clean high-mistake CSR pass with two threads: the read-ahead checks rows (the counter
    moves), and the result is that of one thread, bit for bit."""
    X, y = _high_mistake_csr(6000)
    one = mbcore.Perceptron(n_jobs=1).partial_fit(X, y)
    moved = 0
    for _ in range(20):
        before = klin.readahead_checked_rows()
        two = mbcore.Perceptron(n_jobs=2).partial_fit(X, y)
        moved += klin.readahead_checked_rows() - before
        np.testing.assert_array_equal(two.coef_, one.coef_)
        assert int(two.mistakes_) == int(one.mistakes_)
        if moved:
            break
    # (a busy machine can keep the worker from running: 20 tries)
    assert moved > 0


@pytest.mark.parametrize("kind", ["range", "negative", "unsorted"])
@pytest.mark.parametrize("row", [17, 1000, 4095, 5999])
def test_a_bad_row_the_readahead_reads_is_found(short_stretches, kind, row):
    """A bad row deep in the stream, where the read-ahead checks rows: the error of the
    one-thread pass (and of the twin), and the learner exactly as before the call."""
    X, y = _high_mistake_csr(6000)
    Xbad = _damaged(X, row, kind)
    fitted = mbcore.Perceptron(n_jobs=2).partial_fit(X[:100], y[:100])
    ref = mbref.Perceptron().partial_fit(X[:100], y[:100])
    with pytest.raises(ValueError, match=_message(kind, row)):
        ref.partial_fit(Xbad, y)
    for n_jobs in (1, 2):
        for _ in range(3):              # (the worker's timing differs from call to call)
            clf = copy.deepcopy(fitted)
            clf.set_params(n_jobs=n_jobs)
            coef, seen = clf.coef_.copy(), clf.n_seen_
            with pytest.raises(ValueError, match=_message(kind, row)):
                clf.partial_fit(Xbad, y)
            np.testing.assert_array_equal(clf.coef_, coef)
            assert clf.n_seen_ == seen
            # and the learner goes on as one that never saw the bad batch
            clf.partial_fit(X, y)
            again = copy.deepcopy(fitted)
            again.set_params(n_jobs=1)
            again.partial_fit(X, y)
            np.testing.assert_array_equal(clf.coef_, again.coef_)


def test_input_arrays_are_not_written(short_stretches):
    X, y = _high_mistake_csr(3000)
    data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
    mbcore.Perceptron(n_jobs=2).partial_fit(X, y)
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.indptr, indptr)
    assert re.match(r"\d", str(klin.readahead_checked_rows()))


# ------------------------------------------------------------------------------------------------
# Dense rows: the prefetch distance changes nothing but the speed
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("nbytes", [0, 1, 64, 12288, 1 << 20])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_prefetch_distance_changes_no_result(nbytes, dtype):
    """Passes (one and two threads, the plain and the general loops) and scores with any
    prefetch distance (none, less than a row, many rows, more than the batch) give the results
    of the twin."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(700, 13)).astype(dtype)
    y = np.where(X @ rng.normal(size=13) + 0.5 * rng.normal(size=700) > 0, 1, -1)
    old = klin.dense_prefetch(nbytes)
    try:
        for name, params in (("Perceptron", {}), ("MarginPerceptron", {"gamma": 0.1})):
            ref = getattr(mbref, name)(**params).partial_fit(X, y)
            for n_jobs in (1, 2):
                clf = getattr(mbcore, name)(n_jobs=n_jobs, **params).partial_fit(X, y)
                np.testing.assert_array_equal(clf.coef_, np.asarray(ref.coef_))
                assert int(clf.mistakes_) == int(ref.mistakes_)
                np.testing.assert_array_equal(clf.decision_function(X),
                                              np.asarray(ref.decision_function(X)))
    finally:
        assert klin.dense_prefetch(old) == nbytes


def test_dense_prefetch_refuses_a_bad_distance():
    before = klin.dense_prefetch()
    for bad in (-1, 1 << 25, 2.5, "far"):
        with pytest.raises(ValueError, match=r"dense_prefetch: nbytes must be an int in "
                                             r"\[0, 2\*\*24\], got "):
            klin.dense_prefetch(bad)
    assert klin.dense_prefetch() == before
