"""mbcore.river: the learners as river classifiers (river's own check_estimator, labels as
they arrive, the doctests), and that importing mbcore never imports river.

river is optional (the test extra installs it where its wheels exist): without it the tests
that need it skip, and the import test still runs.
"""

import doctest
import subprocess
import sys

import numpy as np
import pytest

import mbcore


def test_importing_mbcore_does_not_import_river(tmp_path):
    # (run from an empty folder: from the repository root, "import mbcore" would find the
    # source tree, whose kernels are not built when the package is installed)
    code = ("import sys, mbcore, mbcore.base, mbcore.linear; "
            "assert 'river' not in sys.modules, 'river imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


river = pytest.importorskip("river")
from river import checks, datasets  # noqa: E402

import mbcore.river as mriver  # noqa: E402

GROW = [name for name, cls in mbcore.all_learners() if cls._TAGS.dict_features == "grow"]
# river's check_estimator takes about 1.6 s a case; the plain pytest checks each learner's first
# parameter set, and the second-order family (one wrapper for all) on AROW, ALMA and the
# second-order Perceptron; the other cases are long runs (pytest -m longrun, which CI runs)
_PLAIN_SECOND_ORDER = ("AROW", "ALMA", "SecondOrderPerceptron")
_SECOND_ORDER = ("ConfidenceWeighted", "SCW", "NHERD", "NAROW") + _PLAIN_SECOND_ORDER


def _long(name, i):
    return i > 0 or (name in _SECOND_ORDER and name not in _PLAIN_SECOND_ORDER)


CASES = [pytest.param(name, p, id=f"{name}-{i}",
                      marks=[pytest.mark.longrun] if _long(name, i) else [])
         for name in GROW for i, p in enumerate(getattr(mriver, name)._unit_test_params())]


def test_one_classifier_per_learner_that_grows():
    # (and the selective sampler, river's active learner: tests/learners/test_river_active.py)
    assert mriver.__all__ == GROW + ["SelectiveSampler"]
    for name in GROW:
        cls = getattr(mriver, name)
        assert issubclass(cls, river.base.Classifier) and cls.__name__ == name
        assert cls.__module__ == "mbcore.river"


@pytest.mark.parametrize("name, params", CASES)
def test_river_check_estimator(name, params):
    checks.check_estimator(getattr(mriver, name)(**params))


@pytest.mark.parametrize("name", GROW)
def test_progressive_validation_is_the_learner_online(name):
    """predict then learn on river's phishing stream: the river classifier's predictions are
    the mbcore learner's, on the rows as a matrix (names in order of arrival)."""
    model = getattr(mriver, name)()
    preds, xs, ys = [], [], []
    for x, y in datasets.Phishing():
        preds.append(model.predict_one(x))
        model.learn_one(x, y)
        xs.append(x)
        ys.append(y)
    names = list(dict.fromkeys(k for x in xs for k in x))
    assert list(model.learner.feature_names_in_) == names
    X = np.array([[float(x.get(k, 0.0)) for k in names] for x in xs])
    ref = getattr(mbcore, name)(fit_intercept=True).partial_fit(X, ys)
    assert model.learner.mistakes_ == ref.mistakes_
    assert model.learner.coef_.tobytes() == ref.coef_.tobytes()
    assert preds[0] is None


def test_labels_as_they_arrive():
    xs = [x for x, _ in datasets.Phishing().take(300)]
    ys = ["legit" if y else "phish" for _, y in datasets.Phishing().take(300)]
    k = next(i for i, y in enumerate(ys) if y != ys[0])       # the first second label
    model = mriver.Perceptron()
    for i, (x, y) in enumerate(zip(xs, ys)):
        if 0 < i <= k:
            assert model.predict_one(x) == ys[0]      # one label seen: predicted
        model.learn_one(x, y)
    given = mriver.Perceptron(classes=["legit", "phish"])
    for x, y in zip(xs, ys):
        given.learn_one(x, y)
    assert model.learner.classes_.tolist() == ["legit", "phish"]
    assert model.learner.coef_.tobytes() == given.learner.coef_.tobytes()
    assert model.learner.mistakes_ == given.learner.mistakes_
    before = model.learner.coef_.copy(), model.learner.n_seen_
    with pytest.raises(ValueError, match=r"outside the fitted classes \['legit', 'phish'\].*"
                                         r"give every label up front, as classes="):
        model.learn_one(xs[0], "spam")                # a third label, not given up front
    assert model.learner.coef_.tobytes() == before[0].tobytes()
    assert model.learner.n_seen_ == before[1]


def test_a_multi_class_stream_with_its_labels_given():
    """ImageSegments (7 classes): with classes= every label, the river classifier is the
    multi-class learner online (the same predictions as partial_fit on the rows, given the
    same classes); without it, the third label is refused with a message naming classes=."""
    from river import evaluate, metrics, preprocessing
    stream = list(datasets.ImageSegments().take(400))
    labels = sorted({y for _, y in stream})
    assert len(labels) == 7
    model = mriver.Perceptron(classes=labels)
    assert model._multiclass and not mriver.Perceptron()._multiclass
    preds = []
    for x, y in stream:
        preds.append(model.predict_one(x))
        model.learn_one(x, y)
    names = list(model.learner.feature_names_in_)
    X = np.array([[float(x.get(k, 0.0)) for k in names] for x, _ in stream])
    ref = mbcore.Perceptron(fit_intercept=True)
    run = mbcore.run_online(ref, X, [y for _, y in stream], classes=labels)
    assert model.learner.classes_.tolist() == labels and model.learner.coef_.shape[0] == 7
    assert model.learner.coef_.tobytes() == ref.coef_.tobytes()
    assert preds[0] is None and preds[1:] == run.predictions.tolist()[1:]
    # river's own evaluation, through a pipeline, as a user writes it
    acc = evaluate.progressive_val_score(
        datasets.ImageSegments(), preprocessing.StandardScaler() | mriver.Perceptron(
            classes=labels), metrics.Accuracy())
    assert acc.get() > 0.7
    with pytest.raises(ValueError, match=r"outside the fitted classes.*as classes="):
        evaluate.progressive_val_score(datasets.ImageSegments(),
                                       preprocessing.StandardScaler() | mriver.Perceptron(),
                                       metrics.Accuracy())


@pytest.mark.parametrize("name", GROW)
def test_a_class_taken_on_the_way_would_not_be_the_same_learner(name):
    """Why a label that arrives after the start is refused rather than added: the learner that
    knew every label from the start has already changed a class's weights before the class's
    first example (the class took part in the predictions: at the start every score is zero
    and the tie goes to the first class), so no learner that added the class at its first
    example, with its weights at their initial value, would be that learner."""
    stream = list(datasets.ImageSegments().take(400))
    labels = sorted({y for _, y in stream})
    changed = []
    for c in labels:
        t = next(i for i, (_, y) in enumerate(stream) if y == c)
        if t == 0:
            continue
        model = getattr(mriver, name)(classes=labels)
        for x, y in stream[:t]:
            model.learn_one(x, y)
        if np.any(model.learner.coef_[labels.index(c)] != 0):
            changed.append(c)
    if not changed:
        # a mistake-driven one-vs-rest learner with the negative tie (SecondOrderPerceptron):
        # the learner of a class that has not come yet predicts "not this class", is right and
        # never moves; the refusal is then only conservative
        lrn = model.learner
        assert lrn.multi_class == "ovr" and lrn.tie == "negative", \
            "no class changed before its first example"


@pytest.mark.parametrize("ours, theirs, param", [
    ("Perceptron", "Perceptron", None), ("PassiveAggressive", "PAClassifier", "learn_intercept")])
def test_defaults_are_river_linear_models(ours, theirs, param):
    import inspect
    from river import linear_model
    river_model = getattr(linear_model, theirs)()
    if param is None:         # river's Perceptron always learns its intercept (a rate > 0)
        assert river_model.intercept_lr.learning_rate > 0
    else:
        assert inspect.signature(type(river_model)).parameters[param].default is True
    model = getattr(mriver, ours)()
    assert model.fit_intercept is True
    assert inspect.signature(type(model)).parameters["fit_intercept"].default is True
    for x, y in datasets.Phishing().take(50):
        model.learn_one(x, y)
    assert model.learner.fit_intercept is True and model.learner.intercept_ != 0
    # every river classifier with an intercept parameter defaults to it
    for name in mriver.__all__:
        sig = inspect.signature(getattr(mriver, name))
        if "fit_intercept" in sig.parameters:
            assert sig.parameters["fit_intercept"].default is True, name


def test_no_probabilities_no_predict_proba_one():
    """No predict_proba_one where no probability exists (hasattr False), and river's metrics
    that need probabilities say why."""
    from river import evaluate, metrics, preprocessing
    for name in mriver.__all__:
        model = getattr(mriver, name)()
        assert not hasattr(model, "predict_proba_one"), name
        for x, y in datasets.Phishing().take(5):
            model.learn_one(x, y)
        assert not hasattr(model, "predict_proba_one"), name
        assert not hasattr(model.learner, "predict_proba_one"), name
    for metric in (metrics.ROCAUC(), metrics.LogLoss()):
        for model in (mriver.Perceptron(), preprocessing.StandardScaler() | mriver.Perceptron()):
            with pytest.raises(AttributeError, match="predicts labels, not probabilities: it "
                                                     "has no predict_proba_one, so a metric "
                                                     "that needs probabilities"):
                evaluate.progressive_val_score(datasets.Phishing(), model, metric)


def test_the_module_shows_only_its_classifiers():
    public = [n for n in dir(mriver) if not n.startswith("_")]
    assert public == sorted(mriver.__all__)
    for name in ("inspect", "LearnOne", "PredictOne", "all_learners"):
        assert name not in dir(mriver)


def test_doctests():
    for mod in (mriver,):
        result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0


def test_copies_and_pickles_learn_on_their_own_learner():
    # the started classifier's learn_one / predict_one are compiled calls bound to its
    # learner: a copy or an unpickled classifier must update its own, never the original's
    import copy
    import pickle
    stream = list(datasets.Phishing().take(60))
    model = mriver.Perceptron()
    for x, y in stream[:50]:
        model.learn_one(x, y)
    for other in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        for x, y in stream[50:]:
            other.predict_one(x)
            other.learn_one(x, y)
        assert other.learner.n_seen_ == 60 and model.learner.n_seen_ == 50
        assert other.learn_one.learner is other.learner
        assert other.predict_one.learner is other.learner
    assert model.learn_one(*stream[0]) is None          # river's learn_one returns None
