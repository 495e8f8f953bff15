"""mbcore.river.SelectiveSampler: selective sampling as river's active learning
(``predict_one(x) -> (label, ask)``, ``learn_one(x, y)``), skipped without river.

* A river loop (predict each row, learn the asked ones) asks for exactly the rows
  ``mbcore.SelectiveSampler.run_online`` asks for on the rows as a matrix whose columns are the
  names in order of arrival, predicts the same labels and ends with the same learner (bit for
  bit) and counts; and so does the twin (``mbref.SelectiveSampler``) on that matrix.  Two
  classes and K, fixed and adaptive b, names that arrive late.
* river's own ``progressive_val_score`` (which knows active learners) and ``check_estimator``.
* Labels: bool or given classes; anything else refused, naming classes; a refused call
  leaves the sampler as it was; a label given for a row the coin did not ask is learned and
  counted as asked.
"""

import copy
import pickle

import numpy as np
import pytest

import mbcore
import mbref

river = pytest.importorskip("river")
from river import checks, datasets, evaluate, metrics  # noqa: E402

import mbcore.river as mriver  # noqa: E402

PHISHING = list(datasets.Phishing())


def _late_names(seed, n=500, K=2):
    """Dict rows whose names arrive over the stream (a name first seen late is a column of
    zeros before it), real values on a grid, labels from a hidden linear rule."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(14)]
    W = rng.normal(size=(14, K))
    xs, ys = [], []
    for i in range(n):
        open_ = min(14, 3 + i // 40)            # f0..f2 at first, one more every 40 rows
        keep = rng.random(open_) < 0.6
        x = {names[j]: float(np.round(rng.normal() * 4) / 4) for j in np.flatnonzero(keep)}
        v = np.zeros(14)
        for k, val in x.items():
            v[names.index(k)] = val
        s = v @ W + 0.3 * rng.normal(size=K)
        ys.append(bool(s[0] > 0) if K == 2 else int(np.argmax(s)) * 10)
        xs.append(x)
    return list(zip(xs, ys))


def _loop(model, stream):
    preds, asks = [], []
    for x, y in stream:
        p, a = model.predict_one(x)
        preds.append(p)
        asks.append(a)
        if a:
            model.learn_one(x, y)
    return preds, asks


def _matrix(stream):
    names = list(dict.fromkeys(k for x, _ in stream for k in x))
    X = np.array([[float(x.get(k, 0.0)) for k in names] for x, _ in stream])
    return X, [y for _, y in stream], names


CASES = [("Perceptron", {}, "phishing"), ("PassiveAggressive", {"C": 0.5}, "phishing"),
         ("AROW", {"covariance": "full"}, "phishing"), ("SecondOrderPerceptron", {}, "late"),
         ("MarginPerceptron", {"gamma": 0.2}, "late"), ("Perceptron", {}, "late-K3"),
         ("AROW", {}, "late-K3")]
IDS = ["Perceptron", "PA", "AROW-full", "SOP-late", "MarginPerceptron-late",
       "Perceptron-late-K3", "AROW-ovr-late-K3"]


@pytest.mark.parametrize("adaptive,b", [(False, 0.5), (True, 0.01)], ids=["b0.5", "adaptive"])
@pytest.mark.parametrize("name,params,data", CASES, ids=IDS)
def test_a_river_loop_is_run_online(name, params, data, adaptive, b):
    stream = PHISHING if data == "phishing" else _late_names(1, K=3 if "K3" in data else 2)
    classes = [0, 10, 20] if "K3" in data else None
    model = mriver.SelectiveSampler(getattr(mriver, name)(classes=classes, **params), b=b,
                                    adaptive=adaptive, seed=77)
    preds, asks = _loop(model, stream)
    X, y, names = _matrix(stream)
    learner = dict(params, fit_intercept=True)          # (river's default, as mbcore.river's)
    if classes and name == "AROW":
        learner["multi_class"] = "ovr"
    S = mbcore.SelectiveSampler(getattr(mbcore, name)(**learner), b=b, adaptive=adaptive,
                                random_state=77)
    run = S.run_online(X, y, classes=classes)
    assert asks == run.asked.tolist()
    assert preds == list(run.predictions)
    assert 0 < sum(asks) < len(stream)
    L = model.learner
    assert list(L.feature_names_in_) == names
    assert np.asarray(L.coef_).tobytes() == np.asarray(S.learner_.coef_).tobytes()
    assert np.asarray(L.intercept_).tobytes() == np.asarray(S.learner_.intercept_).tobytes()
    M = model.sampler
    assert (M.n_seen_, M.labels_asked_, M.updates_) == (S.n_seen_, S.labels_asked_, S.updates_)
    assert (L.n_seen_, L.mistakes_, L.updates_) == \
        (S.learner_.n_seen_, S.learner_.mistakes_, S.learner_.updates_)
    # river learns only the asked labels: its known mistakes are those of the asked rows
    assert M.mistakes_ == int(run.errors[run.asked].sum())
    assert int(M._rng[0]) == int(S._rng[0]) and float(M._x2[0]) == float(S._x2[0])
    # the twin, on the matrix
    t = mbref.SelectiveSampler(getattr(mbref, name)(**learner), b=b, adaptive=adaptive,
                               random_state=77)
    rt = t.run_online(X.tolist(), y, classes=classes)
    assert rt.asked == asks and rt.predictions == preds


def test_river_progressive_validation_counts_the_labels_it_asked():
    model = mriver.SelectiveSampler(b=0.3, seed=4)
    steps = list(evaluate.iter_progressive_val_score(datasets.Phishing(), model,
                                                     metrics.Accuracy(), step=1250))
    X, y, _ = _matrix(PHISHING)
    run = mbcore.SelectiveSampler(mbcore.Perceptron(fit_intercept=True), b=0.3,
                                  random_state=4).run_online(X, y)
    last = steps[-1]
    assert last["Samples used"] == run.labels_asked < 1250 // 2
    assert last["Accuracy"].get() == pytest.approx(1 - run.mistakes / 1250, abs=1e-12)


@pytest.mark.parametrize("params", list(mriver.SelectiveSampler._unit_test_params()),
                         ids=["defaults", "PA-adaptive"])
def test_river_check_estimator(params):
    checks.check_estimator(mriver.SelectiveSampler(**params))


def test_it_is_a_river_active_learner_without_probabilities():
    model = mriver.SelectiveSampler()
    assert isinstance(model, river.active.base.ActiveLearningClassifier)
    assert not hasattr(model, "predict_proba_one")
    assert model.sampler is None and model.learner is None
    clone = mriver.SelectiveSampler(mriver.AROW(r=0.5), b=2.0, seed=9).clone()
    assert (clone.classifier.r, clone.b, clone.seed) == (0.5, 2.0, 9)


def test_labels_that_are_not_bool_need_the_classes():
    model = mriver.SelectiveSampler()
    x = PHISHING[0][0]
    model.predict_one(x)
    with pytest.raises(ValueError, match=r"give every label of the stream up front: "
                                         r"SelectiveSampler\(Perceptron\(classes="):
        model.learn_one(x, "phish")
    given = mriver.SelectiveSampler(mriver.Perceptron(classes=["legit", "phish"]))
    label, ask = given.predict_one(x)
    assert label == "legit" and ask is True          # (a zero score: asked for sure)
    given.learn_one(x, "phish")
    assert given.learner.classes_.tolist() == ["legit", "phish"]


def _snapshot(model):
    S = model.sampler
    L = S.learner_
    return (np.asarray(L.coef_).tobytes(), L.n_features_in_, list(L.feature_names_in_),
            S._rng.tolist(), S._x2.tolist(), S._sel.tolist(), L.n_seen_)


def test_a_refused_call_leaves_the_sampler_as_it_was():
    model = mriver.SelectiveSampler(mriver.Perceptron(classes=[0, 1]), b=1.0, adaptive=True)
    stream = [(x, int(y)) for x, y in PHISHING[:100]]
    _loop(model, stream[:50])
    before = _snapshot(model)
    x = dict(stream[50][0], brand_new=2.0)
    with pytest.raises(ValueError, match="not finite"):
        model.predict_one(dict(x, other_new=float("nan")))
    assert _snapshot(model) == before
    with pytest.raises(TypeError, match="not a real number"):
        model.predict_one(dict(x, other_new="a"))
    assert _snapshot(model) == before
    label, ask = model.predict_one(x)                 # (grows to brand_new, one draw)
    grown = _snapshot(model)
    with pytest.raises(ValueError):
        model.learn_one(x, 7)                        # a label outside the classes
    assert _snapshot(model) == grown
    model.learn_one(x, 1)                            # the same row, its label after all
    ref = mriver.SelectiveSampler(mriver.Perceptron(classes=[0, 1]), b=1.0, adaptive=True)
    _loop(ref, stream[:50])
    ref.predict_one(x)
    ref.learn_one(x, 1)
    assert _snapshot(model) == _snapshot(ref)


def test_a_first_example_without_features_is_refused():
    model = mriver.SelectiveSampler()
    with pytest.raises(ValueError, match="the first example has no features"):
        model.predict_one({})
    assert model.sampler.__dict__.get("_L") is None
    model.predict_one(PHISHING[0][0])                 # and it starts on the next one
    assert model.learner.n_features_in_ == len(PHISHING[0][0])


def test_a_label_the_coin_did_not_ask_for_is_learned_and_counted():
    stream = PHISHING[:300]
    model = mriver.SelectiveSampler(b=0.05, seed=2)
    _loop(model, stream[:200])
    k = next(i for i in range(200, 300) if not model.predict_one(stream[i][0])[1]
             or model.learn_one(*stream[i]))        # (the first row it does not ask for)
    S = model.sampler
    rows, asked = S.n_seen_, S.labels_asked_
    seen = model.learner.n_seen_
    model.learn_one(*stream[k])                       # given anyway
    assert (S.n_seen_, S.labels_asked_, model.learner.n_seen_) == (rows, asked + 1, seen + 1)
    model.learn_one(*stream[k + 1])                   # never predicted: a row and a label
    assert (S.n_seen_, S.labels_asked_) == (rows + 1, asked + 2)
    assert int(S._rng[0]) == (2 + rows * 0x9E3779B97F4A7C15) % 2 ** 64     # no draw for it


def test_learn_one_alone_is_the_learner_on_every_row():
    """Without predict_one, every row is a label given: the learner learns them all, as
    mbcore.river.Perceptron would (same rows, same classes), and no draw is made."""
    model = mriver.SelectiveSampler(seed=5)
    plain = mriver.Perceptron()
    for x, y in PHISHING[:400]:
        model.learn_one(x, y)
        plain.learn_one(x, y)
    assert model.learner.coef_.tobytes() == plain.learner.coef_.tobytes()
    S = model.sampler
    assert S.n_seen_ == S.labels_asked_ == 400 and int(S._rng[0]) == 5


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "save"])
def test_a_copy_continues_as_the_original(how, tmp_path):
    stream = PHISHING[:600]
    model = mriver.SelectiveSampler(mriver.AROW(), b=0.2, adaptive=True, seed=8)
    _loop(model, stream[:300])
    if how == "save":
        model.sampler.save(tmp_path / "s.npz")
        other = copy.deepcopy(model)
        other._S = mbcore.load(tmp_path / "s.npz")
    else:
        other = pickle.loads(pickle.dumps(model)) if how == "pickle" else copy.deepcopy(model)
    assert _loop(other, stream[300:]) == _loop(model, stream[300:])
    assert _snapshot(other) == _snapshot(model)
    assert other.learner is not model.learner
