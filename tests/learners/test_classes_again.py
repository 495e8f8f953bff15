"""``classes=`` given on every call, as a streaming loop does (issue 36): the classes a learner
has accepted are recognised without the full check (``mbcore._validation.same_classes``), and
anything else still goes through the full check, with its errors.

The full check of a ``classes=`` argument is ``mbcore._validation._classes_array`` (every
family's ``infer_classes`` runs it on ``classes``): counted here, it must run once in a stream
that passes the same classes on every call.  Whether the check ran or not, the results are
the same as those of the stream that passes ``classes=`` on the first call only, and a changed
``classes=`` gives the error a learner that never saw a ``classes=`` gives.  (The speed is
measured in bench/test_bench_classes_again.py, not here.)
"""

import copy
import pickle

import numpy as np
import pytest

import mbcore
import mbcore._validation as mv
import mbref

from _learner_data import N, data

pytestmark = pytest.mark.filterwarnings("ignore::mbcore.LearnerWarning")

LEARNERS = mbcore.all_learners()
CASES = [pytest.param(cls, params, id=f"{name}-{i}") for name, cls in LEARNERS
         for i, params in enumerate(cls._unit_test_params())]


@pytest.fixture
def full_checks(monkeypatch):
    """The number of full checks of a classes= argument made so far (a list of one int)."""
    count = [0]
    real = mv._classes_array

    def counted(owner, classes):
        count[0] += 1
        return real(owner, classes)
    monkeypatch.setattr(mv, "_classes_array", counted)
    return count


def _pair(y):
    return [0, 1] if y.min() >= 0 else [-1, 1]


def _outputs(clf, X, kw):
    out = {"predict": np.asarray(clf.predict(X, **kw)).tolist(),
           "counts": (clf.n_seen_, clf.mistakes_, clf.updates_)}
    if hasattr(clf, "decision_function"):
        out["decision"] = np.asarray(clf.decision_function(X, **kw)).tolist()
    return out


def _stream(clf, X, y, kw, cut, classes, every):
    for i, (a, b) in enumerate(zip(cut[:-1], cut[1:])):
        clf.partial_fit(X[a:b], y[a:b], classes=classes if every or i == 0 else None,
                        **{k: v[a:b] for k, v in kw.items()})
    return clf


@pytest.mark.parametrize("cut", [list(range(N + 1)), [0, 7, 8, 31, N]], ids=["rows", "batches"])
@pytest.mark.parametrize("cls,params", CASES)
def test_the_same_classes_on_every_call_are_checked_once(cls, params, cut, full_checks):
    X, y, kw = data(cls)
    cl = _pair(y)
    every = _stream(cls(**params), X, y, kw, cut, cl, True)
    assert full_checks[0] == 1
    once = _stream(cls(**params), X, y, kw, cut, cl, False)
    assert _outputs(every, X, kw) == _outputs(once, X, kw)
    # a new list of the same labels each time (a literal in the loop): still checked once
    full_checks[0] = 0
    fresh = _stream(cls(**params), X, y, kw, cut, None, False)
    for a, b in zip(cut[:-1], cut[1:]):
        fresh.partial_fit(X[a:b], y[a:b], classes=list(cl), **{k: v[a:b] for k, v in kw.items()})
    assert full_checks[0] == 1


GROW = [(n, c) for n, c in LEARNERS if c._TAGS.dict_features == "grow"]


@pytest.mark.parametrize("name,cls", GROW)
def test_learn_one_with_the_same_classes_on_every_call(name, cls, full_checks):
    X, y, _ = data(cls)
    xs = [{f"f{j}": float(v) for j, v in enumerate(row) if v} or {"f0": 0.0} for row in X]
    every, once = cls(), cls()
    for i, (x, t) in enumerate(zip(xs, y.tolist())):
        every.learn_one(x, t, classes=[-1, 1])
    assert full_checks[0] == 1
    for i, (x, t) in enumerate(zip(xs, y.tolist())):
        once.learn_one(x, t, classes=[-1, 1] if i == 0 else None)
    assert (every.n_seen_, every.mistakes_) == (once.n_seen_, once.mistakes_)
    assert every.coef_.tobytes() == once.coef_.tobytes()
    assert [every.predict_one(x) for x in xs] == [once.predict_one(x) for x in xs]


def _error(call):
    try:
        call()
    except Exception as exc:        # noqa: BLE001 (the error itself is compared)
        return type(exc), str(exc)
    return None


# classes= after a learner fitted on the labels -1 and 1: refused, or accepted (None)
CHANGED = [[-1, 2], [-1, 1, 2], [-1, 1 + 0j], [-1.0, 1.5], [-1, np.nan], "ab", [[-1, 1]],
           (-1, 2), np.array([-1, 2]), np.array([-1, 1, 2]), np.array(["-1", "1"]), [1],
           [-1, "1"], [True, 2], [-1, 2 ** 53 + 1]]
ACCEPTED = [[1, -1], [-1.0, 1.0], [-1, 1, 1], (-1, 1), np.array([-1, 1]), np.array([1, -1]),
            [np.int64(-1), np.int64(1)], np.array([-1.0, 1.0])]


def _armed(cls, X, y, classes):
    """A learner fitted on two rows with ``classes`` given on both calls (so that it knows
    them), and one fitted on the same rows without classes= (that never saw one)."""
    p = cls._unit_test_params()[0]
    armed = cls(**p).partial_fit(X[:1], y[:1], classes=classes)
    armed.partial_fit(X[1:2], y[1:2], classes=classes)
    plain = cls(**p).partial_fit(X[:2], y[:2])
    return armed, plain


@pytest.mark.parametrize("changed", CHANGED + ACCEPTED, ids=repr)
@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive", "Winnow",
                                  "WeightedMajority", "Halving"])
def test_other_classes_are_checked_as_before(name, changed):
    cls = getattr(mbcore, name)
    X, y, kw = data(cls)
    if kw or name in ("Winnow", "WeightedMajority", "Halving"):
        y = np.where(y > 0, 1, -1) if name != "WeightedMajority" else y
    if name == "WeightedMajority":
        X = np.where(X > 0, 1, -1)
        y = np.where(y > 0, 1, -1)
    i = int(np.argmax(y != y[0]))
    order = np.r_[0, i, np.delete(np.arange(N), [0, i])]
    X, y = X[order], y[order]
    for given in ([-1, 1], (-1, 1), np.array([-1, 1])):
        armed, plain = _armed(cls, X, y, given)
        for how in ("one row", "batch"):
            rows = slice(2, 3) if how == "one row" else slice(2, 9)
            e_armed = _error(lambda: armed.partial_fit(X[rows], y[rows], classes=changed))
            e_plain = _error(lambda: plain.partial_fit(X[rows], y[rows], classes=changed))
            assert e_armed == e_plain
            if changed is ACCEPTED[0]:
                assert e_armed is None
            assert _outputs(armed, X, {}) == _outputs(plain, X, {})


@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive"])
def test_learn_one_other_classes_are_checked_as_before(name):
    cls = getattr(mbcore, name)
    xs = [{"a": 1.0}, {"b": -1.0}, {"a": 0.5, "b": 2.0}]
    for changed in CHANGED + ACCEPTED:
        armed = cls()
        armed.learn_one(xs[0], -1, classes=[-1, 1])
        armed.learn_one(xs[1], 1, classes=[-1, 1])
        plain = cls()
        plain.learn_one(xs[0], -1)
        plain.learn_one(xs[1], 1)
        e_armed = _error(lambda: armed.learn_one(xs[2], 1, classes=changed))
        e_plain = _error(lambda: plain.learn_one(xs[2], 1, classes=changed))
        assert e_armed == e_plain, changed
        assert armed.coef_.tobytes() == plain.coef_.tobytes()


def test_a_list_changed_in_place_is_checked_again():
    X, y, _ = data(mbcore.Perceptron)
    x = {"a": 1.0}
    for value in (2, 1 + 0j, 2 ** 53 + 1, "1", 1.0):
        cl = [-1, 1]
        clf = mbcore.Perceptron().partial_fit(X[:5], y[:5], classes=cl)
        clf.partial_fit(X[5:6], y[5:6], classes=cl)
        ref = mbcore.Perceptron().partial_fit(X[:6], y[:6])
        one = mbcore.Perceptron()
        one.learn_one(x, -1, classes=cl)
        one.learn_one(x, 1, classes=cl)
        other = mbcore.Perceptron()
        other.learn_one(x, -1)
        other.learn_one(x, 1)
        cl[1] = value
        e = _error(lambda: ref.partial_fit(X[6:7], y[6:7], classes=cl))
        assert (e is None) == (type(value) is float)
        assert _error(lambda: clf.partial_fit(X[6:7], y[6:7], classes=cl)) == e
        assert _error(lambda: one.learn_one(x, -1, classes=cl)) == \
            _error(lambda: other.learn_one(x, -1, classes=cl))


def test_the_twin_gives_the_same_errors():
    """mbref has no shortcut: a changed classes= raises there as in mbcore, with the same
    type, whether mbcore's learner knew the classes before or not."""
    X, y, _ = data(mbcore.Perceptron)
    for changed in ([-1, 2], [-1, 1, 2], (-1, 2), [0, 1]):
        ours = mbcore.Perceptron()
        twin = mbref.Perceptron()
        for clf in (ours, twin):
            clf.partial_fit(X[:3], y[:3], classes=[-1, 1])
            clf.partial_fit(X[3:4], y[3:4], classes=[-1, 1])
        e1 = _error(lambda: ours.partial_fit(X[4:5], y[4:5], classes=changed))
        e2 = _error(lambda: twin.partial_fit(X[4:5].tolist(), y[4:5].tolist(), classes=changed))
        assert e1 is not None and e2 is not None and e1[0] is e2[0]
        assert "differs from the fitted classes" in e1[1] or "exactly two" in e1[1]


def test_new_classes_forget_the_old_ones(full_checks):
    X, y, _ = data(mbcore.Perceptron)
    clf = mbcore.Perceptron()
    clf.partial_fit(X[:4], y[:4], classes=[-1, 1])
    clf.partial_fit(X[4:5], y[4:5], classes=[-1, 1])
    y01 = (y > 0).astype(int)
    clf.fit(X, y01, classes=[0, 1])
    with pytest.raises(ValueError, match="differs from the fitted classes"):
        clf.partial_fit(X[:1], y[:1], classes=[-1, 1])
    clf.partial_fit(X[:1], y01[:1], classes=[0, 1])
    # a copy, a pickle, a saved learner: each checks once, then knows the classes
    for other in (copy.deepcopy(clf), pickle.loads(pickle.dumps(clf))):
        n = full_checks[0]
        for _ in range(3):
            other.partial_fit(X[:1], y01[:1], classes=[0, 1])
        assert full_checks[0] == n + 1
        with pytest.raises(ValueError, match="differs from the fitted classes"):
            other.partial_fit(X[:1], y[:1], classes=[-1, 1])
