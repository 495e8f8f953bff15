"""Saving a selective sampler (``SelectiveSampler.save``, ``mbcore.load``), pickling and copying.

* Saved mid-stream and loaded, a sampler continues bit for bit as the one that never stopped
  (the same rows asked, predictions, scores, updates, weights and counts), for the learners it
  takes, fixed and adaptive b, two classes and K, dense and CSR rows; and the continued run is
  the twin's uninterrupted run (``mbref.SelectiveSampler``).
* Paths, file objects, compression; an unfitted sampler (parameters only, the wrapped
  learner's included); pickle and deepcopy mid-stream.
* Crafted files (every digest recomputed, so only the consistency checks can refuse them) are
  refused with a FormatError naming what is wrong; a file of another class is refused by
  ``SelectiveSampler.load`` and a sampler file by ``Perceptron.load``.
"""

import copy
import io
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.persistence import FormatError
from _persistence_cases import read_file, write_file

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]


def _stream(seed, n=400, d=9, K=2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 4) / 4
    X[rng.random((n, d)) > 0.6] = 0.0
    if K == 2:
        y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    else:
        y = np.argmax(X @ rng.normal(size=(d, K)) + 0.4 * rng.normal(size=(n, K)), axis=1) * 10
    return X, y


CASES = [("Perceptron", {}, 2), ("PassiveAggressive", {"C": 0.5, "fit_intercept": True}, 2),
         ("AROW", {"covariance": "full"}, 2), ("SecondOrderPerceptron", {}, 2),
         ("Perceptron", {"multi_class": "ovr"}, 3), ("Perceptron", {}, 4),
         ("AROW", {"multi_class": "ovr"}, 3)]
CASE_IDS = ["Perceptron", "PA-icpt", "AROW-full", "SOP", "Perceptron-ovr-K3",
            "Perceptron-multiclass-K4", "AROW-ovr-K3"]


def _roundtrip(S, how, tmp_path):
    if how == "bytes":
        buf = io.BytesIO()
        S.save(buf)
        buf.seek(0)
        return mbcore.load(buf)
    path = tmp_path / "sampler.npz"
    S.save(path, compress=True)
    return mbcore.SelectiveSampler.load(str(path))


def _same_run(a, b):
    assert a.asked.tolist() == b.asked.tolist()
    assert list(a.predictions) == list(b.predictions)
    assert a.updated.tolist() == b.updated.tolist()
    assert np.array_equal(a.errors, b.errors, equal_nan=True)
    assert np.array_equal(a.scores, b.scores)


def _counts(S):
    L = S.learner_
    return (S.n_seen_, S.labels_asked_, S.mistakes_, S.updates_, L.n_seen_, L.mistakes_,
            L.updates_, int(S._rng[0]), float(S._x2[0]))


@pytest.mark.parametrize("how", ["bytes", "path"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("adaptive,b", [(False, 0.7), (True, 0.02)], ids=["b0.7", "adaptive"])
@pytest.mark.parametrize("name,params,K", CASES, ids=CASE_IDS)
def test_a_loaded_sampler_continues_bit_for_bit(name, params, K, adaptive, b, layout, how,
                                                tmp_path):
    X, y = _stream(3, K=K)
    Xc = sp.csr_matrix(X) if layout == "csr" else X
    cut = 170

    def make(mod):
        return mod.SelectiveSampler(getattr(mod, name)(**params), b=b, adaptive=adaptive,
                                    random_state=12345)
    whole = make(mbcore)
    ref = whole.run_online(Xc, y)
    S = make(mbcore)
    head = S.run_online(Xc[:cut], y[:cut])
    T = _roundtrip(S, how, tmp_path)
    assert type(T) is mbcore.SelectiveSampler and T is not S
    assert repr(T) == repr(S)
    assert _counts(T) == _counts(S)
    tail = T.run_online(Xc[cut:], y[cut:])
    left = S.run_online(Xc[cut:], y[cut:])          # the saved one, going on
    _same_run(tail, left)
    for part, lo, hi in ((head, 0, cut), (tail, cut, len(y))):
        assert part.asked.tolist() == ref.asked[lo:hi].tolist()
        assert list(part.predictions) == list(ref.predictions[lo:hi])
    assert _counts(T) == _counts(whole)
    assert np.array_equal(np.asarray(T.learner_.coef_), np.asarray(whole.learner_.coef_))
    assert np.array_equal(T.predict(Xc), whole.predict(Xc))
    assert np.array_equal(T.decision_function(Xc), whole.decision_function(Xc))
    # the twin, never interrupted, asked and predicted the same
    t = make(mbref)
    rt = t.run_online(sp.csr_matrix(X) if layout == "csr" else X.tolist(), y.tolist())
    assert np.concatenate([head.asked, tail.asked]).tolist() == rt.asked
    assert [int(v) for v in np.concatenate([head.predictions, tail.predictions])] == \
        [int(v) for v in rt.predictions]
    assert (T.n_seen_, T.labels_asked_, T.mistakes_, T.updates_) == \
        (t.n_seen_, t.labels_asked_, t.mistakes_, t.updates_)


def test_labels_from_a_callable_after_loading():
    X, y = _stream(4)
    S = mbcore.SelectiveSampler(b=0.5, random_state=8)
    S.run_online(X[:200], y[:200])
    T = _roundtrip(S, "bytes", None)
    calls = []
    run = T.run_online(X[200:], lambda i: (calls.append(i), y[200 + i])[1])
    ref = S.run_online(X[200:], y[200:])
    assert calls == np.flatnonzero(ref.asked).tolist()
    assert run.asked.tolist() == ref.asked.tolist()
    assert T.learner_.coef_.tolist() == S.learner_.coef_.tolist()


def test_an_unfitted_sampler_keeps_its_parameters():
    S = mbcore.SelectiveSampler(mbcore.AROW(r=0.5, covariance="full"), b=3.5, adaptive=True,
                                random_state=2 ** 64 - 1)
    T = _roundtrip(S, "bytes", None)
    assert repr(T) == repr(S) and T.learner is not S.learner
    assert "_L" not in T.__dict__
    with pytest.raises(mbcore.NotFittedError):
        T.learner_
    X, y = _stream(5)
    a, b = S.run_online(X, y), T.run_online(X, y)
    _same_run(a, b)


def test_the_unfitted_wrapped_learner_is_stored_apart_from_the_trained_one():
    """The parameter ``learner`` stays unfitted (a copy is trained): a file holds both, and the
    loaded parameter is still unfitted."""
    X, y = _stream(6)
    S = mbcore.SelectiveSampler(mbcore.Perceptron(eta=0.5), b=1.0).partial_fit(X, y)
    T = _roundtrip(S, "bytes", None)
    assert not T.learner._is_fitted() and T.learner.eta == 0.5
    assert T.learner_.eta == 0.5 and T.learner_ is not T.learner


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pickle_and_deepcopy_continue_bit_for_bit(how):
    X, y = _stream(7, K=3)
    S = mbcore.SelectiveSampler(mbcore.Perceptron(multi_class="ovr"), b=0.3, adaptive=True,
                                random_state=4)
    S.run_online(X[:150], y[:150])
    T = pickle.loads(pickle.dumps(S)) if how == "pickle" else copy.deepcopy(S)
    _same_run(T.run_online(X[150:], y[150:]), S.run_online(X[150:], y[150:]))
    assert _counts(T) == _counts(S)
    assert T.learner_ is not S.learner_


def test_clone_forgets_the_run():
    X, y = _stream(8)
    S = mbcore.SelectiveSampler(b=0.4, random_state=3).partial_fit(X, y)
    C = mbcore.clone(S)
    with pytest.raises(mbcore.NotFittedError):
        C.learner_
    _same_run(C.run_online(X, y), mbcore.SelectiveSampler(b=0.4, random_state=3).run_online(X, y))


def test_another_class_is_refused_both_ways():
    X, y = _stream(9)
    buf = io.BytesIO()
    mbcore.Perceptron().partial_fit(X, y).save(buf)
    with pytest.raises(FormatError, match="holds a Perceptron, not a SelectiveSampler"):
        mbcore.SelectiveSampler.load(io.BytesIO(buf.getvalue()))
    buf = io.BytesIO()
    mbcore.SelectiveSampler().partial_fit(X, y).save(buf)
    with pytest.raises(FormatError, match="holds a SelectiveSampler, not a Perceptron"):
        mbcore.Perceptron.load(io.BytesIO(buf.getvalue()))


def test_a_sampler_with_invalid_parameters_is_not_saved():
    X, y = _stream(10)
    S = mbcore.SelectiveSampler().partial_fit(X, y)
    S.b = -1.0
    with pytest.raises(ValueError, match="parameter b must be a finite real > 0"):
        S.save(io.BytesIO())


# -- crafted files -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved():
    X, y = _stream(11)
    S = mbcore.SelectiveSampler(mbcore.Perceptron(), b=0.5, adaptive=True, random_state=6)
    S.partial_fit(X, y)
    buf = io.BytesIO()
    S.save(buf)
    return read_file(buf.getvalue())


def _set_array(key, value):
    def change(meta, arrays):
        arrays[key] = np.asarray(value, dtype=arrays[key].dtype)
    return change


def _set_counts(rows, asked, mistakes, updates):
    return _set_array("state/_sel", [rows, asked, mistakes, updates])


def _json(path, value):
    def change(meta, arrays):
        d = meta["learner"]
        for k in path[:-1]:
            d = d[k]
        if value is KeyError:
            del d[path[-1]]
        else:
            d[path[-1]] = value
    return change


def _retype(key, dtype):
    def change(meta, arrays):
        arrays[key] = arrays[key].astype(dtype)
    return change


def _unfit_the_learner(meta, arrays):
    inner = meta["learner"]["state"]["_L"]
    for k in [k for k in arrays if k.startswith("state/_L/")]:
        del arrays[k]
    inner["state"] = None


CRAFTED = [
    ("a negative count", _set_counts(400, -1, 3, 0), "a count in _sel is negative"),
    ("more labels asked than rows", _set_counts(10, 11, 3, 2), "do not hold together"),
    ("more updates than labels asked", _set_counts(400, 10, 3, 11), "do not hold together"),
    ("more mistakes than rows", _set_counts(10, 5, 11, 2), "do not hold together"),
    ("three counts", _set_array("state/_sel", [1, 1, 1]), r"_sel has shape \(3,\)"),
    ("two generator words", _set_array("state/_rng", [1, 2]), r"_rng has shape \(2,\)"),
    ("a NaN norm", _set_array("state/_x2", [np.nan]), "not a number >= 0"),
    ("a negative norm", _set_array("state/_x2", [-1.0]), "not a number >= 0"),
    ("a norm before any row", lambda m, a: (_set_counts(0, 0, 0, 0)(m, a),
                                            _set_array("state/_x2", [2.0])(m, a)),
     "before any row was seen"),
    ("a signed generator", _retype("state/_rng", np.int64), "not uint64"),
    ("float counts", _retype("state/_sel", np.float64), "not int64"),
    ("no generator", _json(["state", "_rng"], KeyError), r"lacks \['_rng'\]"),
    ("an unknown attribute", _json(["state", "_w"], 1), "unknown state attribute '_w'"),
    ("a generator as a number", _json(["state", "_rng"], 7), "is a int, not an array"),
    ("a learner it does not take", _json(["state", "_L"], {
        "$": "learner", "class": "Winnow", "params": {}, "state": None}), "parameters"),
    ("an unfitted learner", _unfit_the_learner, "the learner it trains is not fitted"),
    ("b = 0", _json(["params", "b"], 0.0), "parameter b must be a finite real > 0"),
    ("adaptive as a string", _json(["params", "adaptive"], "yes"),
     "parameter adaptive must be a bool"),
    ("a parameter it does not have", _json(["params", "budget"], 3), "parameters"),
    ("another class's name", _json(["class"], "SelectiveSamplers"),
     "unknown learner class 'SelectiveSamplers'"),
]


@pytest.mark.parametrize("what,change,match", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_file_is_refused_naming_what_is_wrong(saved, what, change, match):
    meta, arrays = copy.deepcopy(saved[0]), {k: v.copy() for k, v in saved[1].items()}
    change(meta, arrays)
    with pytest.raises(FormatError, match=match):
        mbcore.load(io.BytesIO(write_file(meta, arrays)))


def test_the_crafting_itself_loads_when_nothing_is_changed(saved):
    """(So that the refusals above come from the changes, not from the rewriting.)"""
    meta, arrays = saved
    S = mbcore.load(io.BytesIO(write_file(meta, dict(arrays))))
    assert type(S) is mbcore.SelectiveSampler and S.n_seen_ == 400


def test_a_learner_it_does_not_take_is_refused_by_its_state_check(saved):
    """A well-formed Winnow in place of the trained learner: its own file is valid, but the
    sampler does not train a Winnow."""
    X = (np.random.default_rng(1).random((30, 9)) > 0.5).astype(float)
    y = X[:, 0].astype(int)
    buf = io.BytesIO()
    mbcore.Winnow().partial_fit(X, y).save(buf)
    wmeta, warrays = read_file(buf.getvalue())
    meta, arrays = copy.deepcopy(saved[0]), {k: v for k, v in saved[1].items()
                                             if not k.startswith("state/_L/")}
    inner = copy.deepcopy(wmeta["learner"])

    def move(v):        # the Winnow's array keys, under the sampler's state/_L/
        if isinstance(v, dict):
            if v.get("$") == "array":
                return {**v, "key": "state/_L/" + v["key"]}
            return {k: move(x) for k, x in v.items()}
        return [move(x) for x in v] if isinstance(v, list) else v
    inner = move(inner)
    inner["$"] = "learner"
    meta["learner"]["state"]["_L"] = inner
    arrays.update(("state/_L/" + k, a) for k, a in warrays.items())
    with pytest.raises(FormatError, match="state attribute _L is a Winnow, not one of"):
        mbcore.load(io.BytesIO(write_file(meta, arrays)))


@pytest.mark.parametrize("kind", ["str-K3", "bool", "str-objects"])
def test_labels_of_every_kind_come_back(kind):
    rng = np.random.default_rng(12)
    X = rng.normal(size=(300, 5))
    y = {"str-K3": np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)],
         "bool": X[:, 0] > 0,
         "str-objects": np.where(X[:, 0] > 0, "yes", "no").astype(object)}[kind]
    S = mbcore.SelectiveSampler(b=0.5).partial_fit(X[:150], y[:150])
    T = _roundtrip(S, "bytes", None)
    assert T.classes_.tolist() == S.classes_.tolist()
    _same_run(T.run_online(X[150:], y[150:]), S.run_online(X[150:], y[150:]))
