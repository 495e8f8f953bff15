"""mbcore.explain: the score of an additive learner split exactly over the features and (with
record_updates=True) over the training examples; the twin mbref.explain gives the same parts."""

import copy
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbref.explain import explain as ref_explain

ADDITIVE = ["Perceptron", "AveragedPerceptron", "MarginPerceptron", "OnlineHingeSVM",
            "PassiveAggressive"]
# the rules that stay integer on integer data (eta=1, no normalisation): their sums are exact
INTEGER_RULE = ["Perceptron"]


def _stream(n=120, d=7, K=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    if K == 2:
        y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + rng.integers(-1, 2, n) > 0, 1, -1)
    else:
        y = rng.integers(0, K, n)
    return X, y


def _forms(X, dtype, sparse):
    A = X.astype(dtype)
    return sp.csr_matrix(A) if sparse else A


# -- the feature parts -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("icpt", [False, True])
def test_feature_parts_add_up(name, K, sparse, dtype, icpt):
    X, y = _stream(K=K)
    clf = getattr(mbcore, name)(fit_intercept=icpt).partial_fit(_forms(X, dtype, sparse), y)
    for i in (0, 17, 99):
        e = mbcore.explain(clf, _forms(X[i:i + 1], dtype, sparse))
        df = clf.decision_function(X[i:i + 1])[0]
        # the parts are the weights times the row (an independent product here)
        W = np.atleast_2d(clf.coef_)
        np.testing.assert_array_equal(np.asarray(e.feature_parts).reshape(X.shape[1], -1),
                                      (W * X[i]).T)
        assert np.all(e.score == df)
        assert e.check(), e.bounds()
        if name in INTEGER_RULE:
            assert np.all(e.feature_score() == df)


def test_perceptron_golden_features():
    # w after the stream of test_golden_record below is (0, 2, 1) + intercept 0: worked by hand
    X = np.array([[1.0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 2, 0]])
    y = np.array([-1, 1, 1, 1])
    clf = mbcore.Perceptron().partial_fit(X, y)
    e = mbcore.explain(clf, np.array([2.0, 1.0, -3.0]))
    # row 0: score 0 -> -1, correct (tie negative); row 1: 0 -> -1, mistake: w = (0, 1, 1);
    # row 2: 1 -> +1; row 3: 2 -> +1
    np.testing.assert_array_equal(clf.coef_, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(e.feature_parts, [0.0, 1.0, -3.0])
    assert e.score == -2.0 and e.feature_score() == -2.0 and e.prediction == -1
    assert [f for f, _, _ in e.top_features(2)] == [2, 1]
    assert e.top_features(1)[0][2] == pytest.approx(1.5)     # -3 / -2


def test_feature_names_and_dict():
    pd = pytest.importorskip("pandas")
    X, y = _stream()
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    clf = mbcore.Perceptron().fit(df, y)
    e = mbcore.explain(clf, X[3])
    assert e.feature_names == list(df.columns)
    assert all(isinstance(n, str) for n, _, _ in e.top_features(3))
    d = json.loads(json.dumps(e.to_dict()))
    assert d["learner"] == "Perceptron" and len(d["top_features"]) == 7
    assert d["top_features"][0][0] == e.top_features(1)[0][0]


# -- twin parity ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_twin_features(name, K, mc):
    X, y = _stream(K=K, seed=3)
    X = X * 0.37                                          # float data
    a = getattr(mbcore, name)(multi_class=mc, fit_intercept=True).partial_fit(X, y)
    b = getattr(mbref, name)(multi_class=mc, fit_intercept=True).partial_fit(X.tolist(),
                                                                            y.tolist())
    for i in (1, 50):
        ea, eb = mbcore.explain(a, X[i]), ref_explain(b, X[i].tolist())
        np.testing.assert_array_equal(np.asarray(ea.feature_parts), np.asarray(eb.feature_parts))
        np.testing.assert_array_equal(ea.intercept_part, eb.intercept_part)
        np.testing.assert_array_equal(ea.feature_score(), eb.feature_score())
        assert ea.bounds() == eb.bounds()


# -- errors ----------------------------------------------------------------------------------

def test_errors():
    X, y = _stream()
    with pytest.raises(mbcore.NotFittedError, match="Perceptron"):
        mbcore.explain(mbcore.Perceptron(), X[0])
    with pytest.raises(TypeError, match="Winnow: this learner has no explanation"):
        mbcore.explain(mbcore.Winnow().fit((X > 0).astype(float), y), X[0] > 0)
    clf = mbcore.Perceptron().fit(X, y)
    with pytest.raises(ValueError, match=r"Perceptron: parameter x must be one row of 7 "
                                         r"features .*got shape \(6,\)"):
        mbcore.explain(clf, X[0, :6])
    with pytest.raises(ValueError, match="Perceptron: parameter x contains NaN"):
        mbcore.explain(clf, np.full(7, np.nan))
    with pytest.raises(ValueError, match="Perceptron: parameter X_train was given, but the "
                                         "learner did not record"):
        mbcore.explain(clf, X[0], X_train=X)
    vote = mbcore.AveragedPerceptron(mode="vote").fit(X, y)
    with pytest.raises(ValueError, match="AveragedPerceptron: parameter mode is 'vote'"):
        mbcore.explain(vote, X[0])


# -- the record of updates and the example parts --------------------------------------------

def test_golden_record():
    # by hand: row 0 scores 0 -> -1 (right); row 1 scores 0 -> -1, y = +1: w = (0, 1, 1), an
    # update of +1 at example 1; row 2 scores 1 -> +1 (right); row 3 scores 2 -> +1, y = -1:
    # w = (-1, -1, 1), an update of -1 at example 3
    X = np.array([[1.0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 2, 0]])
    y = np.array([-1, 1, 1, -1])
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    np.testing.assert_array_equal(clf._rec_idx, [1, 3])
    np.testing.assert_array_equal(clf._rec_coef, [1.0, -1.0])
    np.testing.assert_array_equal(clf.coef_, [-1.0, -1.0, 1.0])
    e = mbcore.explain(clf, np.array([2.0, 1.0, -3.0]), X_train=X)
    # <x_1, x> = 1 - 3 = -2; -<x_3, x> = -(2 + 2) = -4; w.x = -2 - 1 - 3 = -6
    np.testing.assert_array_equal(e.example_indices, [1, 3])
    np.testing.assert_array_equal(e.example_parts, [-2.0, -4.0])
    assert e.start_part == 0.0 and e.score == -6.0 and e.example_score() == -6.0
    assert e.top_examples(1) == [(3, -4.0, pytest.approx(4 / 6))]
    d = json.loads(json.dumps(e.to_dict()))
    assert d["top_examples"][0][:2] == [3, -4.0]


@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_example_parts_add_up(name, K, mc, sparse, dtype):
    X, y = _stream(K=K, seed=1)
    Xf = _forms(X, dtype, sparse)
    clf = getattr(mbcore, name)(multi_class=mc, fit_intercept=True, record_updates=True)
    clf.partial_fit(Xf[:60], y[:60]).partial_fit(Xf[60:], y[60:])
    assert clf._rec_idx.shape[0] >= clf.updates_ > 0
    for i in (2, 77):
        e = mbcore.explain(clf, X[i], X_train=Xf)
        df = clf.decision_function(X[i:i + 1])[0]
        assert e.check(), e.bounds()
        if name in INTEGER_RULE:
            assert np.all(e.example_score() == df) and np.all(e.feature_score() == df)


def _dual_numpy(X, idx, coef, cls, K, x, icpt):
    """An independent dual sum: sum_j c_j (<x_j, x> + icpt), per class."""
    out = np.zeros(K)
    for t, (i, c) in enumerate(zip(idx, coef)):
        out[0 if cls is None else cls[t]] += c * (X[i] @ x + icpt)
    return out if cls is not None else out[0]


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_perceptron_record_is_the_dual_form(K, mc):
    # the recorded (index, coefficient, class) rebuild W exactly (integer data, eta = 1)
    X, y = _stream(K=K, seed=2)
    clf = mbcore.Perceptron(multi_class=mc, fit_intercept=True, record_updates=True)
    clf.partial_fit(X, y)
    cls = clf._rec_cls if K > 2 else None
    W = np.zeros((max(K, 1) if K > 2 else 1, X.shape[1] + 1))
    for t, (i, c) in enumerate(zip(clf._rec_idx, clf._rec_coef)):
        W[0 if cls is None else cls[t]] += c * np.append(X[i], 1.0)
    np.testing.assert_array_equal(W[:, :-1], np.atleast_2d(clf.coef_))
    np.testing.assert_array_equal(W[:, -1], np.atleast_1d(clf.intercept_))
    e = mbcore.explain(clf, X[5], X_train=X)
    np.testing.assert_array_equal(
        e.example_score(), _dual_numpy(X, clf._rec_idx, clf._rec_coef, cls, K, X[5], 1.0))
    if K > 2 and mc == "multiclass":      # Kesler: each update is two entries, +c and -c
        assert clf._rec_idx.shape[0] == 2 * clf.updates_


def test_float_data_bound():
    X, y = mbcore.datasets.load_a9a()
    X, y = X[:3000], y[:3000]
    for clf in (mbcore.Perceptron(normalize=True, record_updates=True),
                mbcore.PassiveAggressive(fit_intercept=True, record_updates=True),
                mbcore.OnlineHingeSVM(fit_intercept=True, record_updates=True),
                mbcore.OnlineHingeSVM(eta=0.1, lam=0.01, record_updates=True),
                mbcore.AveragedPerceptron(fit_intercept=True, record_updates=True),
                mbcore.MarginPerceptron(record_updates=True)):
        clf.fit(X, y) if not isinstance(clf, mbcore.OnlineHingeSVM) else clf.partial_fit(X, y)
        for i in (0, 1234):
            e = mbcore.explain(clf, X[i], X_train=X)
            b = e.bounds()
            assert e.check(), (type(clf).__name__, b)
            assert b["examples"][1] < 1e-6 * max(1.0, abs(e.score))   # (a bound that says something)


# -- the record is state --------------------------------------------------------------------

def _rec(clf):
    return [getattr(clf, k).copy() for k in clf._REC]


def _same_rec(a, b):
    return all(np.array_equal(u, v) for u, v in zip(_rec(a), _rec(b)))


@pytest.mark.parametrize("name", ADDITIVE)
def test_record_state(name, tmp_path):
    X, y = _stream(K=3, seed=4)
    one = getattr(mbcore, name)(record_updates=True).partial_fit(X, y)
    chunked = getattr(mbcore, name)(record_updates=True)
    for lo in range(0, X.shape[0], 25):
        chunked.partial_fit(X[lo:lo + 25], y[lo:lo + 25], classes=[0, 1, 2])
    assert _same_rec(one, chunked)
    assert _same_rec(one, copy.deepcopy(one))
    one.save(tmp_path / "m.npz")
    back = mbcore.load(tmp_path / "m.npz")
    assert _same_rec(one, back)
    e1, e2 = mbcore.explain(one, X[3], X_train=X), mbcore.explain(back, X[3], X_train=X)
    np.testing.assert_array_equal(e1.example_parts, e2.example_parts)
    # fit resets it (and maps its epochs to fit's rows)
    one.fit(X[:50], y[:50])
    assert one._rec_idx.shape[0] == 0 or one._rec_idx[0] < 50 * one.n_iter_
    e = mbcore.explain(one, X[3], X_train=X[:50])
    assert e.example_indices.max(initial=0) < 50 and e.check()
    # off: the record goes at the next pass; a file's record is checked on load
    one.set_params(record_updates=False).partial_fit(X[:5], y[:5])
    assert "_rec_idx" not in vars(one)


def test_record_switched_on_later():
    X, y = _stream(seed=5)
    clf = mbcore.Perceptron(fit_intercept=True).partial_fit(X[:70], y[:70])
    w_start = np.append(clf.coef_, clf.intercept_)
    clf.set_params(record_updates=True).partial_fit(X[70:], y[70:])
    np.testing.assert_array_equal(clf._rec_w0, w_start)
    assert clf._rec_idx.min(initial=70) >= 70
    e = mbcore.explain(clf, X[1], X_train=X)
    assert e.start_part == w_start[:-1] @ X[1] + w_start[-1]
    assert e.example_score() == clf.decision_function(X[1:2])[0]


def test_record_checked_on_load(tmp_path):
    X, y = _stream(seed=6)
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    clf._rec_idx = clf._rec_idx[::-1].copy()           # out of order: no run writes that
    clf.save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="Perceptron.*example indices are not in order"):
        mbcore.load(tmp_path / "bad.npz")


def test_record_errors():
    X, y = _stream(seed=7)
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    last = int(clf._rec_idx.max())
    with pytest.raises(ValueError, match=rf"Perceptron: parameter X_train has 10 rows, but the "
                                         rf"record of updates names row {last}"):
        mbcore.explain(clf, X[0], X_train=X[:10])
    with pytest.raises(ValueError, match=r"Perceptron: parameter X_train must have shape "
                                         r"\(n_rows, 7\)"):
        mbcore.explain(clf, X[0], X_train=X[:, :5])


# -- twin parity of the record and the example parts ------------------------------------------

@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_twin_record(name, K, mc):
    X, y = _stream(K=K, seed=8)
    X = X * 0.37
    kw = dict(multi_class=mc, fit_intercept=True, record_updates=True)
    a = getattr(mbcore, name)(**kw).partial_fit(X[:50], y[:50]).partial_fit(X[50:], y[50:])
    b = getattr(mbref, name)(**kw)
    b.partial_fit(X[:50].tolist(), y[:50].tolist()).partial_fit(X[50:].tolist(), y[50:].tolist())
    r = b._rec
    key_a = sorted(zip(a._rec_idx.tolist(), (a._rec_cls.tolist() if K > 2 else [0] * len(
        a._rec_idx)), a._rec_coef.tolist()))
    key_b = sorted(zip(r["idx"], r["cls"] if K > 2 else [0] * len(r["idx"]), r["coef"]))
    assert key_a == key_b
    np.testing.assert_array_equal(a._rec_w0, r["w0"])
    for i in (0, 99):
        ea, eb = mbcore.explain(a, X[i], X_train=X), ref_explain(b, X[i].tolist(), X_train=X)
        assert ea.example_indices.tolist() == eb.example_indices
        np.testing.assert_array_equal(ea.example_parts, np.asarray(eb.example_parts))
        np.testing.assert_array_equal(ea.start_part, eb.start_part)
        assert ea.bounds() == eb.bounds()
