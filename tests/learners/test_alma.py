"""ALMA_p compiled (``mbcore.ALMA``): equal to its twin bit for bit, and ALMA_2 equal to river's
``ALMAClassifier`` on river's Phishing stream, one example at a time, with the same parameters.

* The twin: predictions, mistakes, updates, ``coef_`` and ``decision_function``, bit for bit,
  for p = 2 and p > 2 (the p-norm link), with and without an intercept, on dense and CSR rows,
  two classes and one-vs-rest; ``fit``'s ``coef_init`` (theta = f(w) through the link);
  ``partial_fit`` in chunks equal to one call; a failed call leaves the learner as it was.
* river: ``predict_one`` equal on every example after the first, and the weights to 1e-12.
  River does not normalise the rows (ALMA_2 in the paper does), so river is given the
  normalised rows; every Phishing row holds every feature, so river's rescaling of the current
  row's coordinates is the paper's projection of all of w.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.datasets import load_a9a

A9A_X, A9A_Y = (np.asarray(a) for a in load_a9a()[:2])

CASES = [{}, {"alpha": 0.5, "fit_intercept": True}, {"p": 3.0, "tie": "positive"},
         {"p": 4.5, "alpha": 0.8, "B": 2.0, "C": 0.7, "fit_intercept": True}]
IDS = ["default", "alpha0.5-intercept", "p3-tie", "p4.5-B-C-intercept"]


def _same(a, b, X):
    assert (a.mistakes_, a.updates_, a.n_seen_) == (b.mistakes_, b.updates_, b.n_seen_)
    assert np.array_equal(np.asarray(a.coef_), np.asarray(b.coef_))
    assert np.array_equal(np.asarray(a.intercept_), np.asarray(b.intercept_))
    assert np.array_equal(a.decision_function(X), np.asarray(b.decision_function(X)))
    assert np.array_equal(a.predict(X), np.asarray(b.predict(X)))


@pytest.mark.parametrize("params", CASES, ids=IDS)
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_alma_equals_its_twin(params, layout):
    X, y = A9A_X[:500], A9A_Y[:500]
    Xin = X if layout == "dense" else sp.csr_matrix(X)
    a = mbcore.ALMA(**params).partial_fit(Xin, y)
    b = mbref.ALMA(**params).partial_fit(Xin, y)
    _same(a, b, A9A_X[500:600])


@pytest.mark.parametrize("params", CASES[:3], ids=IDS[:3])
def test_alma_one_vs_rest_equals_its_twin(params):
    rng = np.random.default_rng(4)
    X = A9A_X[:400]
    y = np.argmax(X @ rng.normal(size=(X.shape[1], 3)), axis=1)
    a = mbcore.ALMA(**params).partial_fit(X, y)
    b = mbref.ALMA(**params).partial_fit(X, y)
    _same(a, b, A9A_X[400:480])
    with pytest.raises(ValueError, match="multi_class='ovr'"):
        mbcore.ALMA(multi_class="multiclass").partial_fit(X, y)


@pytest.mark.parametrize("p", [2.0, 3.0])
def test_fit_from_given_weights_equals_its_twin(p):
    X, y = A9A_X[:300], A9A_Y[:300]
    w0 = np.random.default_rng(5).normal(size=X.shape[1]) * 0.05
    a = mbcore.ALMA(p=p, max_epochs=2).fit(X, y, coef_init=w0)
    b = mbref.ALMA(p=p, max_epochs=2).fit(X, y, coef_init=w0)
    _same(a, b, A9A_X[300:360])


def test_chunks_equal_one_call_and_a_failed_call_changes_nothing():
    X, y = A9A_X[:600], A9A_Y[:600]
    one = mbcore.ALMA(p=3.0).partial_fit(X, y)
    chunks = mbcore.ALMA(p=3.0)
    for i in range(0, 600, 70):
        chunks.partial_fit(X[i:i + 70], y[i:i + 70], classes=[-1, 1])
    _same(one, chunks, A9A_X[600:700])
    bad = A9A_X[600:700].copy()
    bad[37, 5] = np.nan
    before = (one.coef_.copy(), one.mistakes_, one._T.copy(), one._ks.copy())
    with pytest.raises(ValueError, match="row 37"):
        one.partial_fit(bad, A9A_Y[600:700])
    assert np.array_equal(one.coef_, before[0]) and one.mistakes_ == before[1]
    assert np.array_equal(one._T, before[2]) and np.array_equal(one._ks, before[3])


def test_alma_equals_river_on_phishing():
    pytest.importorskip("river")
    from river import datasets, linear_model
    theirs = linear_model.ALMAClassifier()          # p=2, alpha=0.9, B=1/0.9, C=sqrt(2)
    ours = mbcore.ALMA()                            # the same by default
    n = 0
    for x, y in datasets.Phishing():
        nx = math.sqrt(sum(float(v) ** 2 for v in x.values()))
        if nx == 0:
            continue                                # river steps on a zero row; the paper cannot
        xh = {k: float(v) / nx for k, v in x.items()}
        if n:
            assert ours.predict_one(x) == theirs.predict_one(xh), n
        theirs.learn_one(xh, y)
        ours.learn_one(x, y, classes=[False, True])
        n += 1
    w = dict(zip(ours.feature_names_in_, ours.coef_))
    for k, v in w.items():
        assert v == pytest.approx(theirs.w[k], rel=1e-12, abs=1e-15), k
    assert n > 1000
