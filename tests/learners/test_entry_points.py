"""One compiled entry point per operation (issue 37): each takes its rows as a 2-D array or as the
CSR triple (data, indices, indptr), of any of the value and index types, and builds the same
``Rows`` view (``_rows.pxd``'s ``rows_of``).

* Through the public API: a learner fitted on the same numbers laid out densely (float64,
  float32) ends in the same state and gives the same predictions and scores, bit for bit, and
  so does one fitted on them as CSR (float64/float32 values x int32/int64 indices, and uint8
  values for Winnow).  (Dense and CSR rows are two summation orders of the arithmetic
  contract, ``mbref._arith``: the two layouts may differ in the last bits, never within one.)  A
  batch of CSR rows with no stored value at all (nnz = 0) reads as the zero rows it is.
* At the entry points themselves: what the Python layer never sends (a dtype no kernel has,
  CSR arrays of different lengths, labels shorter than the rows, a row offset past the end)
  raises or returns without reading outside an array.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
from mbcore._kernels import kernel as kkernel
from mbcore._kernels import linear as klin
from mbcore._kernels import multiclass as kmc
from mbcore._kernels import multiplicative as kw
from mbcore._kernels import multiplicative_mc as kwmc

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

N, D = 120, 9


def _data(seed, boolean=False, K=2):
    """Rows whose values float32 holds exactly (so every layout carries the same numbers), about
    a third of them zero, a few rows all zero; labels from a planted rule."""
    rng = np.random.default_rng(seed)
    if boolean:
        X = (rng.random((N, D)) < 0.3).astype(np.float64)
    else:
        X = np.round(rng.normal(size=(N, D)) * 8) / 8
        X[rng.random((N, D)) < 0.35] = 0.0
    X[[3, 50, 51]] = 0.0
    s = X @ rng.normal(size=D)
    y = (s > np.median(s)).astype(int) if K == 2 else np.digitize(s, np.quantile(s, [0.3, 0.6]))
    return X, y


def _layouts(X, winnow=False):
    yield "dense float64", X
    yield "dense float32", X.astype(np.float32)
    values = [np.float64, np.float32] + ([np.uint8] if winnow else [])
    for vt in values:
        for it in (np.int32, np.int64):
            C = sp.csr_matrix(X.astype(vt))
            C.indices = C.indices.astype(it)
            C.indptr = C.indptr.astype(it)
            yield f"CSR {np.dtype(vt).name}/{np.dtype(it).name}", C


CASES = [
    ("Perceptron", {}, False, 2),
    ("Perceptron", {"fit_intercept": True, "normalize": True}, False, 2),
    ("PassiveAggressive", {"variant": "PA-II"}, False, 2),
    ("AveragedPerceptron", {"mode": "vote"}, False, 2),
    ("Perceptron", {}, False, 3),
    ("KernelPerceptron", {"kernel": "rbf", "gamma": 0.3}, False, 2),
    ("KernelPerceptron", {"kernel": "poly", "degree": 2}, False, 3),
    ("Winnow", {}, True, 2),
    ("BalancedWinnow", {}, True, 2),
    ("Winnow", {}, True, 3),
]


def _outputs(clf, X):
    out = [clf.predict(X)]
    if hasattr(clf, "decision_function"):
        out.append(clf.decision_function(X))
    return out


@pytest.mark.parametrize("name,params,boolean,K", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_every_layout_gives_the_same_learner(name, params, boolean, K):
    X, y = _data(7, boolean, K)
    refs = {}
    for label, Xl in _layouts(X, "Winnow" in name):
        clf = getattr(mbcore, name)(**params).fit(Xl, y)
        layout = label.split()[0]
        if layout not in refs:
            refs[layout] = (clf, _outputs(clf, Xl))
            continue
        ref, ref_out = refs[layout]
        assert clf.mistakes_ == ref.mistakes_, label
        for a, b in zip(_outputs(clf, Xl), ref_out):
            assert np.array_equal(a, b), label
        if hasattr(ref, "coef_"):
            assert np.array_equal(clf.coef_, ref.coef_), label


@pytest.mark.parametrize("name,params,boolean,K", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_csr_rows_without_a_stored_value(name, params, boolean, K):
    X, y = _data(11, boolean, K)
    clf = getattr(mbcore, name)(**params).fit(X, y)
    Z = np.zeros((5, D))
    empty = sp.csr_matrix((5, D))
    assert empty.nnz == 0
    for a, b in zip(_outputs(clf, empty), _outputs(clf, Z)):
        assert np.array_equal(a, b)
    before = clf.mistakes_
    clf.partial_fit(empty, y[:5])
    assert clf.mistakes_ >= before


# -- the entry points themselves ----------------------------------------------------------------

def _state(X, y):
    p = mbcore.Perceptron().partial_fit(X[:4], y[:4], classes=[0, 1])
    return p._state()


def test_a_dtype_no_kernel_has_is_refused():
    X, y = _data(3)
    st = _state(X, y)
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    with pytest.raises((TypeError, ValueError)):
        klin.lin_pass(st, X.astype(np.int64), yy)
    with pytest.raises((TypeError, ValueError)):
        klin.lin_pass(st, X.astype(np.float16), yy)
    C = sp.csr_matrix(X)
    with pytest.raises((TypeError, ValueError)):
        klin.lin_pass(st, (C.data.astype(np.uint8), C.indices, C.indptr), yy)
    with pytest.raises((TypeError, ValueError)):         # indices and indptr of two types
        klin.lin_pass(st, (C.data, C.indices.astype(np.int64), C.indptr.astype(np.int32)), yy)
    with pytest.raises((TypeError, ValueError)):         # not C-contiguous
        klin.lin_scores(np.zeros(D), 1.0, D, False, False, np.asfortranarray(X), np.empty(N))


def test_arrays_that_do_not_match_are_refused():
    X, y = _data(4)
    p = mbcore.Perceptron().partial_fit(X[:4], y[:4], classes=[0, 1])
    st = p._state()
    before = (p._w.copy(), p._counts.copy())
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    C = sp.csr_matrix(X)
    with pytest.raises(ValueError):
        klin.lin_pass(st, (C.data, C.indices[:-1], C.indptr), yy)
    with pytest.raises(ValueError):
        klin.lin_pass(st, X, yy[:-1])
    with pytest.raises(ValueError):
        klin.lin_scores(np.zeros(D), 1.0, D, False, False, X, np.empty(N - 1))
    with pytest.raises(ValueError):
        kmc.mc_scores(np.zeros(3 * D), 3, 1.0, D, False, False, X[:, :-1], np.empty((N, 3)))
    assert np.array_equal(p._w, before[0]) and np.array_equal(p._counts, before[1])


def test_a_kernel_pass_from_a_row_past_the_end_reads_nothing():
    X, y = _data(5)
    d = X.shape[1]
    sv, svn, coef = np.zeros((4, d)), np.zeros(4), np.zeros(4)
    meta, counts = np.zeros(2, dtype=np.int64), np.zeros(3, dtype=np.int64)
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    pred, upd = np.empty(N, dtype=np.int8), np.empty(N, dtype=np.uint8)
    for rows in (X, (lambda C: (C.data, C.indices, C.indptr))(sp.csr_matrix(X))):
        assert kkernel.kp_pass(0, 1, False, 1.0, 0.0, sv, svn, coef, meta, -1, counts, rows,
                               N + 5, yy, pred, upd) == (0, N + 5)
        assert counts.tolist() == [0, 0, 0]
        # from the middle: the rows before `start` are not read
        status, row = kkernel.kp_pass(0, 1, False, 1.0, 0.0, sv, svn, coef, meta, -1, counts,
                                      rows, N - 2, yy, pred, upd)
        assert counts[0] == 2 or status == 2
        meta[:], counts[:], sv[:], svn[:], coef[:] = 0, 0, 0.0, 0.0, 0.0


def test_winnow_entry_points_refuse_a_width_that_is_not_theirs():
    X, y = _data(6, boolean=True)
    l, w = np.zeros(D), np.ones(D)
    empty = np.zeros(0)
    counts = np.zeros(3, dtype=np.int64)
    yy = np.where(y == 1, 1, -1).astype(np.int8)
    pred = np.empty(N, dtype=np.int8)
    with pytest.raises(ValueError):
        kw.winnow_pass(0, True, 1.0, -1.0, float(D), l, w, empty, empty, X, D + 1, True, 1e300,
                       yy, pred, counts, True)
    with pytest.raises(ValueError):
        kw.winnow_pass(0, True, 1.0, -1.0, float(D), l, w, empty, empty, X, D, True, 1e300,
                       yy[:-1], pred, counts, True)
    assert counts.tolist() == [0, 0, 0] and not l.any()
    y3 = (y % 3).astype(np.int32)
    with pytest.raises(ValueError):
        kwmc.mc_winnow_pass(0, True, 1.0, -1.0, float(D), 3, False, np.zeros(3 * D),
                            np.ones(3 * D), empty, empty, X, D + 1, True, 1e300, y3,
                            np.empty(N, dtype=np.int32), None, counts, True)
