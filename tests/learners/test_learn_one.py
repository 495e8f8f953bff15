"""learn_one / predict_one / predict_proba_one on dict features (mbcore._one, the name index
mbcore._kernels.names, the linear family's compiled one-example path).

The reference for a stream of learn_one calls is partial_fit on the same rows as a matrix
whose columns are the names in the order they first arrived (a name first seen late is a
column of zeros before): the two must agree bit for bit (predictions, counts, state).  The
twin (mbref) must agree too.  Every learner is classified through what its class declares
(the tags ``dict_features`` and ``takes``), found through ``mbcore.all_learners()``.
"""

import copy
import doctest
import io
import pickle

import numpy as np
import pytest

import mbcore
import mbref

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

LEARNERS = mbcore.all_learners()
GROW = [(n, c) for n, c in LEARNERS if c._TAGS.dict_features == "grow"]
FIXED_FEATURES = [(n, c) for n, c in LEARNERS
                  if c._TAGS.dict_features != "grow" and c._TAGS.takes == "features"]
NOT_DICTS = [(n, c) for n, c in LEARNERS if c._TAGS.takes not in ("features", "advice")]


def _grow_params(cls):
    """The class's contract parameter sets under which it grows with new names, each also
    with an intercept where it has one."""
    out = []
    for p in cls._unit_test_params():
        if cls(**p)._dict_mode() != "grow":
            continue
        out.append(p)
        if "fit_intercept" in cls._get_param_names() and not p.get("fit_intercept"):
            out.append(dict(p, fit_intercept=True))
    return out


GROW_CASES = [pytest.param(c, p, id=f"{n}-{i}") for n, c in GROW
              for i, p in enumerate(_grow_params(c))]


def stream(seed, n=700, late_at=500, n_names=12):
    """Dict examples: names 0..n_names-1 present at random, values float / int / bool (and a
    NumPy scalar), keys in a random order; two names appear only from row ``late_at`` on.
    Labels bool, from a noisy linear rule."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(n_names)] + ["late_a", ("late", 2)]
    u = rng.normal(size=len(names))
    xs, ys = [], []
    for t in range(n):
        x = {}
        for j, k in enumerate(names):
            if j >= n_names and t < late_at:
                continue
            if rng.random() < 0.6:
                r = rng.random()
                x[k] = (float(rng.normal()) if r < 0.6 else int(rng.integers(-3, 4)) if r < 0.8
                        else bool(rng.integers(0, 2)) if r < 0.9 else np.float32(rng.normal()))
        if not x:
            x = {"f0": 1.0}
        keys = list(x)
        rng.shuffle(keys)
        x = {k: x[k] for k in keys}
        score = sum(float(v) * u[names.index(k)] for k, v in x.items())
        ys.append(bool(score + 0.3 * rng.normal() > 0))
        xs.append(x)
    return xs, ys


def as_matrix(xs, names):
    col = {k: j for j, k in enumerate(names)}
    X = np.zeros((len(xs), len(names)))
    for i, x in enumerate(xs):
        for k, v in x.items():
            X[i, col[k]] = float(v)
    return X


def first_seen(xs):
    return list(dict.fromkeys(k for x in xs for k in x))


def _state_bytes(learner):
    return {k: v.tobytes() for k, v in vars(learner).items() if isinstance(v, np.ndarray)}


# -- a stream of learn_one == partial_fit over the matrix, bit for bit -------------------------

@pytest.mark.parametrize("cls, params", GROW_CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_learn_one_stream_is_partial_fit_on_the_matrix(cls, params, seed):
    xs, ys = stream(seed)
    one = cls(**params)
    preds = []
    for x, y in zip(xs, ys):
        preds.append(one.predict_one(x))
        one.learn_one(x, y)
    names = first_seen(xs)
    assert list(one.feature_names_in_) == names
    assert one.n_features_in_ == len(names)
    X = as_matrix(xs, names)
    assert not X[:500, -2:].any()                   # the two late names are zeros before
    run = mbcore.run_online(cls(**params), X, ys)
    # predict_one is predict on the state of the moment (the averaged Perceptron's predict
    # reads its average, not the online w): a learner fed the matrix row by row
    assert preds[0] is None                         # (before any example)
    step = cls(**params).partial_fit(X[:1], ys[:1], classes=[False, True])
    for i in range(1, len(xs)):
        assert preds[i] == step.predict(X[i:i + 1, :])[0], i
        step.partial_fit(X[i:i + 1], ys[i:i + 1])
    batch = cls(**params).partial_fit(X, ys)
    assert (one.n_seen_, one.mistakes_, one.updates_) == \
        (batch.n_seen_, batch.mistakes_, batch.updates_)
    assert one.mistakes_ == int(run.errors.sum())
    assert np.array_equal(one.coef_, batch.coef_) and \
        one.coef_.tobytes() == batch.coef_.tobytes()
    assert np.array_equal(np.asarray(one.intercept_), np.asarray(batch.intercept_))
    # the state arrays themselves (weights, accumulator, scale, counts)
    sb = _state_bytes(batch)
    for k, v in _state_bytes(one).items():
        assert v == sb[k], k
    # and the predictions afterwards
    assert [one.predict_one(x) for x in xs[:50]] == batch.predict(X[:50]).tolist()


@pytest.mark.parametrize("cls, params", GROW_CASES)
def test_twin_agrees(cls, params):
    xs, ys = stream(3, n=300, late_at=200)
    one, twin = cls(**params), getattr(mbref, cls.__name__)(**params)
    for x, y in zip(xs, ys):
        assert one.predict_one(x) == twin.predict_one(x)
        one.learn_one(x, y)
        twin.learn_one(x, y)
    assert (one.n_seen_, one.mistakes_, one.updates_) == \
        (twin.n_seen_, twin.mistakes_, twin.updates_)
    assert list(one.feature_names_in_) == twin.feature_names_in_
    assert one.coef_.tolist() == list(twin.coef_)


def test_string_labels_and_three_classes():
    xs, ys = stream(4, n=300, late_at=150)
    labels = ["ham", "spam"]
    y2 = [labels[int(y)] for y in ys]
    p = mbcore.Perceptron()
    for i, (x, y) in enumerate(zip(xs, y2)):
        p.learn_one(x, y, classes=labels if i == 0 else None)
    X = as_matrix(xs, first_seen(xs))
    q = mbcore.Perceptron().partial_fit(X, y2, classes=labels)
    assert p.mistakes_ == q.mistakes_ and p.coef_.tobytes() == q.coef_.tobytes()
    # K = 3 classes (the general path, no compiled one-example object)
    y3 = [int(sum(float(v) for v in x.values()) > 0) + int(len(x) > 8) for x in xs]
    m = mbcore.Perceptron()
    for i, (x, y) in enumerate(zip(xs, y3)):
        m.learn_one(x, y, classes=[0, 1, 2] if i == 0 else None)
    q3 = mbcore.Perceptron().partial_fit(X, y3, classes=[0, 1, 2])
    assert m.mistakes_ == q3.mistakes_ and m.coef_.tobytes() == q3.coef_.tobytes()
    assert m.predict_one(xs[0]) == q3.predict(X[:1])[0]


def test_first_call_needs_its_classes_like_partial_fit():
    p = mbcore.Perceptron()
    with pytest.raises(ValueError) as a:
        p.learn_one({"a": 1.0}, "spam")
    with pytest.raises(ValueError) as b:
        mbcore.Perceptron().partial_fit([[1.0]], ["spam"])
    # the same check, in learn_one's words: the call it names is learn_one (issue 36)
    assert str(b.value).endswith("to the first partial_fit")
    assert str(a.value) == str(b.value)[:-len("partial_fit")] + "learn_one"
    with pytest.raises(ValueError) as t:
        mbref.Perceptron().learn_one({"a": 1.0}, "spam")
    assert str(t.value) == str(a.value)
    assert p.predict_one({"a": 1.0}) is None            # still not fitted
    p.learn_one({"a": 1.0}, True)                       # a bool names its pair
    assert p.classes_.tolist() == [False, True]


@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive"])
@pytest.mark.parametrize("classes, new", [([0, 1], 2), (["a", "b", "c"], "d")])
def test_a_new_label_names_classes(name, classes, new):
    """A label outside the fitted classes: the same refusal as partial_fit's, in learn_one's
    words (how to give every label: classes=), from mbcore and the twin alike; the learner
    is left as it was."""
    xs = [{"a": 1.0}, {"b": -1.0, "a": 0.5}]
    msgs = []
    for mod in (mbcore, mbref):
        p = getattr(mod, name)()
        for i, x in enumerate(xs):
            p.learn_one(x, classes[i % len(classes)], classes=classes if i == 0 else None)
        before = pickle.dumps(p)
        with pytest.raises(ValueError) as e:
            p.learn_one({"a": 2.0, "c": 1.0}, new)
        assert pickle.dumps(p) == before
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert msgs[0].startswith(f"{name}: y has the label {new!r}, outside the fitted classes "
                              f"{classes!r}; ")
    assert msgs[0].endswith("give every label up front, as classes=")
    with pytest.raises(ValueError) as e:          # partial_fit keeps its own words
        mbcore.PassiveAggressive().partial_fit([[1.0]] * 2, classes[:2]).partial_fit([[1.0]],
                                                                                     [new])
    assert "up front" not in str(e.value)


def test_no_probabilities_no_predict_proba_one():
    """A method a class cannot compute is not exposed: predict_proba_one only where the class
    has probabilities (the randomized Weighted Majority), in mbcore and the twin."""
    for name, cls in LEARNERS:
        has = name == "RandomizedWeightedMajority"
        for mod in (mbcore, mbref):
            c = getattr(mod, name)
            lrn = c.__new__(c)
            assert hasattr(lrn, "predict_proba_one") is has, (mod.__name__, name)
            assert hasattr(c, "predict_proba_one") is has, (mod.__name__, name)
    with pytest.raises(AttributeError, match="^Perceptron predicts labels, not probabilities: "
                                             "it has no predict_proba_one"):
        mbcore.Perceptron().predict_proba_one({"a": 1.0})
    with pytest.raises(NotImplementedError):       # (river's convention, allowed by its checks)
        mbref.Perceptron().predict_proba_one({"a": 1.0})


def test_growth_is_amortised():
    """One new name per example: the weight buffer is reallocated O(log n) times."""
    p = mbcore.Perceptron(fit_intercept=True)
    buffers = set()
    for t in range(2000):
        p.learn_one({f"n{t}": 1.0, "bias": -0.5}, t % 3 == 0)
        buffers.add(id(p._w.base) if p._w.base is not None else id(p._w))
    assert p.n_features_in_ == 2001
    assert len(buffers) <= 16
    # the same stream as a matrix: column 0 is n0, column 1 bias, then n1, n2, ...
    cols = [f"n{t}" for t in range(2000)]
    names = list(p.feature_names_in_)
    assert names[:2] == ["n0", "bias"] and names[2:] == cols[1:]
    X = np.zeros((2000, 2001))
    X[:, 1] = -0.5
    X[0, 0] = 1.0
    for t in range(1, 2000):
        X[t, t + 1] = 1.0
    q = mbcore.Perceptron(fit_intercept=True).partial_fit(X, [t % 3 == 0 for t in range(2000)])
    assert p.coef_.tobytes() == q.coef_.tobytes() and p.intercept_ == q.intercept_
    assert p.mistakes_ == q.mistakes_


# -- learners whose rule needs n, and learners without feature rows ------------------------------

@pytest.mark.parametrize("name, cls", FIXED_FEATURES, ids=[n for n, _ in FIXED_FEATURES])
def test_fixed_learners_need_their_names(name, cls):
    lrn = cls()
    with pytest.raises(ValueError, match=r"features=\[names\]"):
        lrn.learn_one({"a": 1.0}, 1)
    assert not lrn._is_fitted()
    names = ["a", "b", "c", "d"]
    rng = np.random.default_rng(5)
    X = (rng.random((80, 4)) < 0.5).astype(np.float64)
    y = np.where(X[:, 0] + X[:, 2] > 0.5, 1, -1)
    one = cls()
    for i in range(80):
        x = {k: X[i, j] for j, k in enumerate(names) if X[i, j]}      # zeros left out
        one.learn_one(x, int(y[i]), classes=[-1, 1] if i == 0 else None,
                      features=names if i == 0 else None)
    ref = cls().partial_fit(X, y, classes=[-1, 1])
    assert (one.mistakes_, one.updates_) == (ref.mistakes_, ref.updates_)
    assert one.predict_one({"a": 1.0}) == ref.predict(np.array([[1.0, 0, 0, 0]]))[0]
    before = _state_bytes(one)
    with pytest.raises(ValueError, match="'e' is not one of the 4 names"):
        one.learn_one({"a": 1.0, "e": 1.0}, 1)
    with pytest.raises(ValueError, match="'e' is not one of the 4 names"):
        one.predict_one({"e": 1.0})
    assert _state_bytes(one) == before and list(one.feature_names_in_) == names


def test_voted_perceptron_needs_its_names():
    with pytest.raises(ValueError, match="features="):
        mbcore.AveragedPerceptron(mode="vote").learn_one({"a": 1.0}, True)
    assert mbcore.AveragedPerceptron(mode="vote").learn_one(
        {"a": 1.0}, True, features=["a", "b"]).n_features_in_ == 2


@pytest.mark.parametrize("name, cls", NOT_DICTS, ids=[n for n, _ in NOT_DICTS])
def test_learners_without_feature_rows_refuse(name, cls):
    lrn = cls.__new__(cls)
    with pytest.raises(TypeError, match="learn_one takes dict features"):
        lrn.learn_one({"a": 1.0}, 1)
    twin = getattr(mbref, name).__new__(getattr(mbref, name))
    with pytest.raises(TypeError, match="learn_one takes dict features"):
        twin.learn_one({"a": 1.0}, 1)


def test_randomized_weighted_majority_probabilities():
    ex = ["e1", "e2", "e3"]
    out = []
    for mod in (mbcore, mbref):
        r = mod.RandomizedWeightedMajority(random_state=3)
        assert r.predict_proba_one({"e1": 1}) == {}
        for t in range(30):
            r.learn_one({"e1": 1, "e2": 0, "e3": t % 2}, 1, classes=[0, 1] if t == 0 else None,
                        features=ex if t == 0 else None)
        p = r.predict_proba_one({"e1": 1, "e2": 0, "e3": 0})
        assert set(p) == {0, 1} and abs(sum(p.values()) - 1.0) < 1e-12
        # the share of the positive class is decision_function's
        share = r.decision_function(np.array([[1, 0, 0]]))[0]
        assert p[1] == share
        out.append((p, r.mistakes_))
    assert out[0] == out[1]
    with pytest.raises(NotImplementedError):
        mbcore.Perceptron().predict_proba_one({"a": 1.0})


# -- bad input: a clear error, the learner unchanged, the input untouched ------------------------

BAD = [
    (["not", "a", "dict"], TypeError, "x must be a dict"),
    ({"a": 1.0, "new": "3"}, TypeError, r"x\['new'\] = '3' is not a real number"),
    ({"a": 1.0, "new": None}, TypeError, "is not a real number"),
    ({"a": 1.0, "new": 1 + 2j}, TypeError, "is not a real number"),
    ({"new": 1.0, "a": float("nan")}, ValueError, r"x\['a'\] = nan is not finite"),
    ({"new": 1.0, "a": float("inf")}, ValueError, "is not finite"),
    ({"new": 1.0, "a": 10 ** 400}, ValueError, "is not finite"),
]


@pytest.mark.parametrize("x, exc, match", BAD)
@pytest.mark.parametrize("mod", [mbcore, mbref])
def test_bad_examples(mod, x, exc, match):
    p = mod.Perceptron()
    for t in range(20):
        p.learn_one({"a": float(t % 3) - 1.0, "b": 1.0}, t % 2 == 0)
    transient = ("_kstate", "_fast", "_y1", "_one", "_one_fast")     # (caches, rebuilt)
    state = {k: copy.deepcopy(v) for k, v in vars(p).items() if k not in transient}
    x0 = copy.deepcopy(x)
    with pytest.raises(exc, match=match):
        p.learn_one(x, True)
    with pytest.raises(exc, match=match):
        p.predict_one(x)
    assert repr(x) == repr(x0)                          # (NaN != NaN: compare the text)
    assert list(p.feature_names_in_) == ["a", "b"] and p.n_features_in_ == 2
    assert set(state) == {k for k in vars(p) if k not in transient}
    for k, v in state.items():
        got = vars(p)[k]
        assert (np.array_equal(got, v) if isinstance(v, np.ndarray) else got == v), k
    p.learn_one({"a": 1.0, "new": 2.0}, True)         # and it goes on, the new name interned
    assert p.n_features_in_ == 3


def test_bad_examples_messages_match_the_twin():
    for x, _, _ in BAD:
        msgs = []
        for mod in (mbcore, mbref):
            p = mod.Perceptron().learn_one({"a": 1.0}, True)
            try:
                p.learn_one(x, True)
            except (TypeError, ValueError) as exc:
                msgs.append((type(exc), str(exc)))
        assert msgs[0] == msgs[1]


def test_overflow_leaves_the_learner_and_its_names_as_they_were():
    for mod in (mbcore, mbref):
        p = mod.Perceptron(fit_intercept=True)
        p.learn_one({"a": 1e308}, True)                  # w_a = 1e308
        w, names, counts = list(p.coef_), list(p.feature_names_in_), p.n_seen_
        with pytest.raises(ValueError, match="overflow"):
            p.learn_one({"new": 1.0, "a": 1e308}, False)  # a new name, then a score of inf
        assert list(p.feature_names_in_) == names and p.n_features_in_ == 1
        assert list(p.coef_) == w and p.n_seen_ == counts
        p.learn_one({"new": 1.0}, False)                 # "new" is still new
        assert list(p.feature_names_in_) == ["a", "new"]


def test_inputs_are_not_modified_and_not_kept():
    xs, ys = stream(6, n=50, late_at=25)
    p = mbcore.PassiveAggressive()
    for x, y in zip(xs, ys):
        x0 = copy.deepcopy(x)
        p.learn_one(x, y)
        p.predict_one(x)
        assert x == x0
        x["f0"] = 1e9                        # changing x afterwards changes nothing
        x.pop(next(iter(x)))
    q = mbcore.PassiveAggressive()
    for x, y in zip(stream(6, n=50, late_at=25)[0], ys):
        q.learn_one(x, y)
    assert p.coef_.tobytes() == q.coef_.tobytes()


def test_keys_are_any_hashable():
    p = mbcore.Perceptron()
    p.learn_one({1: 1.0, ("a", 2): -1.0, "s": 0.5}, True)
    assert list(p.feature_names_in_) == [1, ("a", 2), "s"]
    assert p.learn_one({True: 2.0}, False).n_features_in_ == 3     # True == 1: one name


# -- the state of a learner fitted with learn_one --------------------------------------------

def test_persistence_and_pickling_keep_the_names():
    xs, ys = stream(7, n=400, late_at=300)
    p = mbcore.OnlineHingeSVM(fit_intercept=True)
    for x, y in zip(xs[:250], ys[:250]):
        p.learn_one(x, y)
    buf = io.BytesIO()
    p.save(buf)
    buf.seek(0)
    loaded = mbcore.load(buf)
    unpickled = pickle.loads(pickle.dumps(p))
    for q in (loaded, unpickled):
        assert list(q.feature_names_in_) == list(p.feature_names_in_)
    for x, y in zip(xs[250:], ys[250:]):
        preds = {q.predict_one(x) for q in (p, loaded, unpickled)}
        assert len(preds) == 1
        for q in (p, loaded, unpickled):
            q.learn_one(x, y)
    for q in (loaded, unpickled):
        assert q.coef_.tobytes() == p.coef_.tobytes() and q.mistakes_ == p.mistakes_
        assert list(q.feature_names_in_) == list(p.feature_names_in_)


def test_names_for_a_learner_fitted_on_arrays():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    p = mbcore.Perceptron().partial_fit(X, [True, False])
    with pytest.raises(ValueError, match="fitted on arrays"):
        p.learn_one({"a": 1.0}, True)
    with pytest.raises(ValueError, match="features has 3 names"):
        p.learn_one({"a": 1.0}, True, features=["a", "b", "c"])
    p.learn_one({"a": 1.0}, True, features=["a", "b"])
    assert list(p.feature_names_in_) == ["a", "b"]
    q = mbcore.Perceptron().partial_fit(np.vstack([X, [[1.0, 0.0]]]), [True, False, True])
    assert p.coef_.tobytes() == q.coef_.tobytes()


def test_fit_forgets_the_names():
    p = mbcore.Perceptron().learn_one({"a": 1.0}, True)
    p.fit(np.array([[1.0, 2.0, 3.0]]), [True])
    with pytest.raises(AttributeError):
        p.feature_names_in_
    with pytest.raises(ValueError, match="fitted on arrays"):
        p.predict_one({"a": 1.0})


def test_docstring_examples():
    import mbcore._one
    result = doctest.testmod(mbcore._one, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
