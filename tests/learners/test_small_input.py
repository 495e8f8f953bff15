"""The small-input path of predict and decision_function (one to sixteen dense float64 rows on
a linear learner with two classes) gives exactly what the general path gives.

The general path is reached here by the same rows as a list: the results must be equal with ``==``,
label dtype included; errors (a non-finite row, a wrong width) are the general path's, and a
parameter set after fitting (the tie rule) is seen at once.  The twin (mbref) gives the same
predictions.
"""

import threading

import numpy as np
import pytest

import mbcore
import mbref

# CI runs this file on the debug build and under AddressSanitizer too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

LEARNERS = [("Perceptron", {}), ("Perceptron", {"fit_intercept": True, "normalize": True}),
            ("Perceptron", {"tie": "positive"}), ("OnlineHingeSVM", {}),
            ("PassiveAggressive", {}), ("PassiveAggressive", {"variant": "PA-II"}),
            ("AveragedPerceptron", {}), ("MarginPerceptron", {})]
IDS = [n + "".join(f",{k}={v}" for k, v in p.items()) for n, p in LEARNERS]


def data(seed, n=300, d=20, labels=(-1, 1)):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    X[rng.random(n) < 0.1] = 0.0                        # zero rows: ties at score 0
    y = np.where(X @ rng.standard_normal(d) > 0, labels[1], labels[0])
    return X, y


def general(f, X):
    """f on the same rows through the general path (the rows as a list: a 1 x d array is
    C- and Fortran-ordered at once, so a copy in another order would not leave the path)."""
    return f(X.tolist())


@pytest.mark.parametrize("spec", LEARNERS, ids=IDS)
@pytest.mark.parametrize("labels", [(-1, 1), (0, 1), ("no", "yes"), (2.5, 7.0)],
                         ids=["pm1", "01", "str", "float"])
def test_few_rows_equal_the_general_path(spec, labels):
    name, params = spec
    X, y = data(0, labels=labels)
    clf = getattr(mbcore, name)(**params).partial_fit(X[:150], y[:150])
    for rows in (1, 2, 5, 16):
        for start in range(150, 300 - rows, 37):
            x = np.ascontiguousarray(X[start:start + rows])
            p, q = clf.predict(x), general(clf.predict, x)
            assert p.dtype == q.dtype and p.tolist() == q.tolist()
            s, t = clf.decision_function(x), general(clf.decision_function, x)
            assert s.dtype == t.dtype == np.float64 and s.tolist() == t.tolist()
            assert p is not clf.classes_ and not np.shares_memory(p, clf.classes_)


@pytest.mark.parametrize("spec", LEARNERS, ids=IDS)
def test_one_row_after_each_step_equals_the_twin(spec):
    """Predict one row between one-row updates (the serving loop): the twin predicts the same."""
    name, params = spec
    X, y = data(1)
    a, b = getattr(mbcore, name)(**params), getattr(mbref, name)(**params)
    a.partial_fit(X[:2], y[:2])
    b.partial_fit(X[:2].tolist(), y[:2].tolist())
    for i in range(2, 120):
        x = X[i:i + 1]
        assert a.predict(x).tolist() == list(b.predict(x.tolist()))
        assert a.decision_function(x).tolist() == list(b.decision_function(x.tolist()))
        a.partial_fit(x, y[i:i + 1])
        b.partial_fit(x.tolist(), [y[i]])


def test_a_parameter_set_after_fitting_is_seen():
    """The tie rule changed by assignment: the zero row's label follows at once."""
    X, y = data(2)
    clf = mbcore.Perceptron().partial_fit(X, y)
    zero = np.zeros((1, X.shape[1]))
    assert clf.predict(zero).tolist() == [-1]
    clf.tie = "positive"
    assert clf.predict(zero).tolist() == [1]
    clf.set_params(tie="negative")
    assert clf.predict(zero).tolist() == [-1]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_row_gets_the_general_message(bad):
    X, y = data(3)
    clf = mbcore.Perceptron().partial_fit(X, y)
    for rows in (1, 3):
        x = X[:rows].copy()
        x[rows - 1, 4] = bad
        for method in ("predict", "decision_function"):
            with pytest.raises(ValueError, match=rf"NaN or infinity in row {rows - 1}\b"):
                getattr(clf, method)(x)


def test_a_wrong_width_gets_the_general_message():
    X, y = data(4)
    clf = mbcore.Perceptron().partial_fit(X, y)
    for method in ("predict", "decision_function"):
        with pytest.raises(ValueError, match="X has 19 features, but Perceptron is expecting 20"):
            getattr(clf, method)(np.ascontiguousarray(X[:1, :19]))


def test_three_classes_and_float32_take_the_general_path():
    X, y = data(5)
    y3 = np.where(X[:, 0] > 1, 2, np.where(X[:, 0] < -1, 0, 1))
    clf = mbcore.Perceptron().partial_fit(X, y3)
    x = X[:3].copy()
    assert clf.predict(x).tolist() == clf.predict(np.asfortranarray(x)).tolist()
    assert clf.decision_function(x).shape == (3, 3)
    clf = mbcore.Perceptron().partial_fit(X, y)
    x32 = X[:1].astype(np.float32)
    assert clf.decision_function(x32).tolist() == clf.decision_function(X[:1]).tolist()


def test_after_fit_load_and_mixing_the_path_binds_the_current_weights(tmp_path):
    """fit replaces every state array, load builds new ones: the one-row binding must follow."""
    X, y = data(6)
    clf = mbcore.Perceptron().partial_fit(X[:10], y[:10])
    x = X[:1].copy()
    clf.predict(x)                                  # binds the small-input path
    clf.fit(X, y)                                   # new arrays
    assert clf.decision_function(x).tolist() == general(clf.decision_function, x).tolist()
    ref = float(np.dot(clf.coef_, x[0]))
    assert clf.decision_function(x)[0] == pytest.approx(ref, rel=1e-12)
    path = tmp_path / "p.npz"
    clf.save(path)
    back = mbcore.load(path)
    assert back.decision_function(x).tolist() == clf.decision_function(x).tolist()
    back.partial_fit(X[:50], -y[:50])               # the loaded learner learns on
    assert back.decision_function(x).tolist() == general(back.decision_function, x).tolist()


def test_one_row_predictions_while_another_thread_learns():
    """Readers on the small-input path and a writer on one learner (the documented contract:
    reads are shared, writes exclusive): every prediction is one of the labels, every score is
    the score of some state the learner went through, and nothing raises."""
    X, y = data(7, n=2000)
    clf = mbcore.Perceptron().partial_fit(X[:10], y[:10])
    x = X[:1].copy()
    errors, seen = [], []

    def read():
        try:
            for _ in range(3000):
                seen.append(clf.decision_function(x)[0])
                assert clf.predict(x)[0] in (-1, 1)
        except BaseException as exc:                # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for i in range(10, 2000):
        clf.partial_fit(X[i:i + 1], y[i:i + 1])
    for t in threads:
        t.join()
    assert errors == []
    assert all(np.isfinite(seen))
    # the scores a replay of the same updates goes through, one of which each reading saw
    replay = mbcore.Perceptron().partial_fit(X[:10], y[:10])
    states = {replay.decision_function(x)[0]}
    for i in range(10, 2000):
        replay.partial_fit(X[i:i + 1], y[i:i + 1])
        states.add(replay.decision_function(x)[0])
    assert set(seen) <= states
