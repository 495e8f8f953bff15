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
