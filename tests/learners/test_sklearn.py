"""scikit-learn compatibility of the linear and Winnow learners (scikit-learn stays optional:
everything here is skipped, with the reason, when it is not installed or older than 1.6).

1. ``sklearn.utils.estimator_checks.check_estimator`` (with ``expected_failed_checks``) on
   Perceptron (two settings), AveragedPerceptron (average and vote), MarginPerceptron,
   KernelPerceptron (two settings), OnlineHingeSVM, PassiveAggressive (three settings), Winnow
   and BalancedWinnow with
   ``features="real"``, and Winnow, EliminationWinnow, WinnowStar and BalancedWinnow with their
   default Boolean features, one test per estimator: every other check must pass, and every
   check listed below must fail (a listed check that starts passing fails the test, so the list
   stays exact).  Two checks are skipped by scikit-learn itself when pandas is not installed or
   SCIPY_ARRAY_API is not set.  Nothing in the learners' rules was changed to
   pass a check.
2. The learners in ``Pipeline``, ``clone``, ``GridSearchCV`` (cv=3) and ``cross_val_score`` on
   the bundled mushrooms data.
3. The conventions the Boolean-only Winnows cannot show under the common checks (they feed
   real-valued X), checked here on 0/1 data; scikit-learn's NotFittedError; mbcore importing
   and working without scikit-learn.

Checks expected to fail, and why
--------------------------------
Every learner:

* ``check_complex_data``: complex X raises TypeError ("X must hold real numbers"), not
  ValueError: the twin ``mbref`` raises TypeError for every non-real dtype and the bad-input
  parity tests require the same type from both.
* ``check_requires_y_none``: ``fit(X, None)`` raises TypeError ("y must be a 1-D array-like of
  labels, got None"), as the twin does; scikit-learn expects ValueError.
* ``check_supervised_y_2d``: y of shape (n, 1) is refused with ValueError ("y must be 1-D"), as
  the twin does, instead of being raveled with a DataConversionWarning.

Winnow and BalancedWinnow with ``features="real"`` pass every other check: their
decision_function is the score less theta, so ``decision_function(X) > 0`` is the prediction.
(Winnow, EliminationWinnow and WinnowStar carry scikit-learn's ``poor_score`` tag: their weights
are positive, so they learn monotone threshold functions and cannot reach scikit-learn's
accuracy bar on its centred blobs; BalancedWinnow, with w+ - w-, does not need the tag.)

Winnow, EliminationWinnow, WinnowStar and BalancedWinnow with Boolean features (the default;
EliminationWinnow and WinnowStar have no other mode): X must be 0/1 (the rule),
and these checks fit or predict real-valued (or negative) X, so the learner raises ValueError
("X must be Boolean (0/1) with features='boolean'") where the check expects success:
``check_classifier_data_not_an_array``, ``check_classifiers_classes``,
``check_classifiers_train``, ``check_dict_unchanged``, ``check_dont_overwrite_parameters``,
``check_dtype_object``, ``check_estimator_sparse_array``, ``check_estimator_sparse_matrix``,
``check_estimator_sparse_tag``, ``check_estimators_dtypes``,
``check_estimators_fit_returns_self``, ``check_estimators_nan_inf`` (NaN and inf are refused
with the expected message; the check then fits real-valued data),
``check_estimators_overwrite_params``, ``check_estimators_partial_fit_n_features``,
``check_estimators_pickle``, ``check_f_contiguous_array_estimator``, ``check_fit2d_1feature``,
``check_fit2d_predict1d``, ``check_fit_check_is_fitted``, ``check_fit_idempotent``,
``check_fit_score_takes_y``, ``check_methods_sample_order_invariance``,
``check_methods_subset_invariance``, ``check_n_features_in``,
``check_n_features_in_after_fitting``, ``check_pipeline_consistency``,
``check_positive_only_tag_during_fit``, ``check_readonly_memmap_input``; plus the three of every
learner.  What these checks test is checked on 0/1 data in section 3 below.

Sample and class weights (tests/learners/test_sample_weight.py tests what holds instead):

* the additive learners (they take ``sample_weight`` and ``class_weight``):
  ``check_sample_weight_equivalence_on_dense_data`` and
  ``check_sample_weight_equivalence_on_sparse_data`` (a weight s scales one online step's
  update; a row repeated s times is s steps, each judged after the one before: scikit-learn
  lists its own Perceptron and SGDClassifier as failing them), and
  ``check_class_weight_classifiers`` (class_weight scales the updates, but on the check's noisy
  blobs the final weights are those the last mistakes left, and without an intercept a rule
  through the origin cannot predict one class on most of the plane: the learners with
  ``fit_intercept=True`` pass it);
* the Winnows refuse weights (their rule has no weighted form; ``sample_weight=None`` is
  accepted), with TypeError where the checks pass weights: ``check_all_zero_sample_weights_error``,
  ``check_classifiers_one_label_sample_weights``, ``check_sample_weights_list``,
  ``check_sample_weights_not_an_array``, ``check_sample_weights_not_overwritten``,
  ``check_sample_weights_pandas_series``, ``check_sample_weights_shape`` and the two
  equivalence checks.
"""

import importlib.util
import pickle
import warnings

import numpy as np
import pytest

import mbcore
from conftest import run_isolated
from _cases import learners, tag, unit_params

_HAVE = importlib.util.find_spec("sklearn") is not None
if _HAVE:
    import sklearn
    _VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2] if p.isdigit())
    _HAVE = _VERSION >= (1, 6)
needs_sklearn = pytest.mark.skipif(
    not _HAVE, reason="scikit-learn >= 1.6 is an optional peer (Tags, expected_failed_checks)")

ALL = {
    "check_complex_data": "complex X raises TypeError (X must hold real numbers), the type the "
                          "twin raises and the parity tests require; sklearn expects ValueError",
    "check_requires_y_none": "y=None raises TypeError (y must be an array-like of labels), as "
                             "the twin does; sklearn expects ValueError",
    "check_supervised_y_2d": "y of shape (n, 1) is refused with ValueError (y must be 1-D), as "
                             "the twin does, instead of raveled with a warning",
}
BOOLEAN_ONLY = ("X must be 0/1 with features='boolean' (the rule); the check "
                "feeds real-valued X")
SAME_AS_REPEATING = ("a weight s scales the update of one online step; a row repeated s times "
                     "is s steps, each judged after the one before (scikit-learn lists its own "
                     "Perceptron and SGDClassifier as failing this check too)")
CLASS_WEIGHT_BLOBS = ("class_weight scales the updates, but on the check's noisy blobs the "
                      "final weights are those the last mistakes left (no averaging or decay), "
                      "and without an intercept a rule through the origin cannot predict one "
                      "class on most of the plane")
UNWEIGHTED = ("the rule has no weighted form: sample_weight (other than None) raises TypeError "
              "naming the learner and the reason")
BOOLEAN_CHECKS = [
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_classifiers_train",
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
    "check_estimators_dtypes", "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_partial_fit_n_features",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent",
    "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in", "check_n_features_in_after_fitting",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
]


def _finer():
    """The estimators the hand list held (the learners that existed, their options)."""
    return [
        mbcore.Perceptron(), mbcore.Perceptron(normalize=True, fit_intercept=True),
        mbcore.AveragedPerceptron(), mbcore.AveragedPerceptron(mode="vote"),
        mbcore.MarginPerceptron(), mbcore.KernelPerceptron(),
        mbcore.KernelPerceptron(kernel="poly", degree=2, budget=20), mbcore.OnlineHingeSVM(),
        mbcore.PassiveAggressive(), mbcore.PassiveAggressive(variant="PA-II", fit_intercept=True),
        mbcore.PassiveAggressive(multi_class="ovr"),
        # one-vs-rest (multi_class="multiclass", the default, is checked above)
        mbcore.Perceptron(multi_class="ovr"), mbcore.AveragedPerceptron(multi_class="ovr"),
        mbcore.MarginPerceptron(multi_class="ovr"), mbcore.OnlineHingeSVM(multi_class="ovr"),
        mbcore.Winnow(features="real"), mbcore.BalancedWinnow(features="real"),
        mbcore.Winnow(), mbcore.EliminationWinnow(), mbcore.WinnowStar(), mbcore.BalancedWinnow(),
    ]


def estimators():
    """The classifiers scikit-learn's checks apply to: every registered learner whose rows are
    feature vectors and that takes K classes (tags, tests/_cases.py); the finer list above for
    the learners that existed, one estimator per ``_unit_test_params()`` entry for any other."""
    finer = _finer()
    covered = {type(e).__name__ for e in finer}
    return finer + [cls(**p) for name, cls in learners()
                    if tag(cls, "takes") == "features" and tag(cls, "k_classes")
                    and name not in covered for p in unit_params(cls)]


# sample_weight and class_weight (the additive learners take them; the Winnows refuse weights)
WEIGHTED = {
    "check_sample_weight_equivalence_on_dense_data": SAME_AS_REPEATING,
    "check_sample_weight_equivalence_on_sparse_data": SAME_AS_REPEATING,
    "check_class_weight_classifiers": CLASS_WEIGHT_BLOBS,
}
UNWEIGHTED_CHECKS = [
    "check_all_zero_sample_weights_error", "check_classifiers_one_label_sample_weights",
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series", "check_sample_weights_shape",
]


def expected_failed_checks(est):
    out = dict(ALL)
    if isinstance(est, mbcore.multiplicative._Winnow) and est.features == "boolean":
        out.update((c, BOOLEAN_ONLY) for c in BOOLEAN_CHECKS)
    if tag(type(est), "weighted"):
        out.update(WEIGHTED)
        if getattr(est, "fit_intercept", False):      # (with an intercept the check passes)
            del out["check_class_weight_classifiers"]
    else:
        out.update((c, UNWEIGHTED) for c in UNWEIGHTED_CHECKS)
    return out


@needs_sklearn
@pytest.mark.parametrize("estimator", estimators(), ids=repr)
def test_sklearn_estimator_checks(estimator):
    """Every applicable check passes, and every check listed as expected to fail does fail
    (so the list stays exact).  One test per estimator: the expected failures are reported in
    the assertion message instead of as hundreds of xfail lines."""
    from sklearn.utils.estimator_checks import check_estimator
    expected = expected_failed_checks(estimator)
    with warnings.catch_warnings():
        # The learners implement scikit-learn's API by duck typing (scikit-learn is optional),
        # so they do not derive from BaseEstimator: the warning says just that.
        warnings.filterwarnings("ignore", message="Estimator .* does not inherit from",
                                category=UserWarning)
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None,
                                  on_skip=None)
    failed = sorted({f"{r['check_name']}: {type(r['exception']).__name__}: "
                     f"{str(r['exception'])[:300]}" for r in results if r["status"] == "failed"})
    assert not failed, "unexpected failures:\n" + "\n".join(failed)
    outcome = {}
    for r in results:
        outcome.setdefault(r["check_name"], set()).add(r["status"])
    passing = sorted(c for c in expected if c in outcome and "xfail" not in outcome[c])
    assert not passing, f"checks listed as expected failures now pass: {passing}"
    boolean = getattr(estimator, "features", "real") == "boolean"
    # (Boolean: 19 since the refused sample weights made check_classifiers_one_label_sample_weights
    # an expected failure)
    assert sum(r["status"] == "passed" for r in results) >= (19 if boolean else 45)


def test_expected_failures_are_documented():
    doc = __doc__
    for name in list(ALL) + BOOLEAN_CHECKS + ["check_classifiers_classes"] + \
            list(WEIGHTED) + UNWEIGHTED_CHECKS:
        assert f"``{name}``" in doc, name


# ------------------------------------------------------------------------------------------------
# 2. Pipeline, clone, GridSearchCV, cross_val_score
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mushrooms():
    from mbcore.datasets import load_mushrooms
    X, y = load_mushrooms(encoding="boolean")
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[:3000]          # a shuffled sample: keeps the tests quick
    return np.asarray(X)[idx], np.asarray(y)[idx]


@needs_sklearn
def test_pipeline(mushrooms):
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Binarizer, StandardScaler
    X, y = mushrooms
    Xf = X.astype(np.float64) + np.random.default_rng(1).normal(0, 0.1, X.shape)  # noisy copy
    cases = [(make_pipeline(StandardScaler(), mbcore.Perceptron()), X),
             (make_pipeline(StandardScaler(), mbcore.AveragedPerceptron(fit_intercept=True)), X),
             (make_pipeline(Binarizer(threshold=0.5), mbcore.Winnow()), Xf),
             (make_pipeline(Binarizer(threshold=0.5), mbcore.BalancedWinnow()), Xf),
             (make_pipeline(Binarizer(threshold=0.5), mbcore.EliminationWinnow()), Xf)]
    for pipe, data in cases:
        pipe.fit(data[:2000], y[:2000])
        steps = [clone(s) for _, s in pipe.steps]
        Z = steps[0].fit_transform(data[:2000])
        steps[1].fit(Z, y[:2000])
        manual = steps[1].predict(steps[0].transform(data[2000:]))
        assert np.array_equal(pipe.predict(data[2000:]), manual)
        assert pipe.predict(data[2000:]).dtype == y.dtype
        assert pipe.score(data[2000:], y[2000:]) == np.mean(manual == y[2000:])
        c = clone(pipe)
        assert c.get_params(deep=False).keys() == pipe.get_params(deep=False).keys()
        with pytest.raises(sklearn.exceptions.NotFittedError):
            c.predict(data[:5])
    # The Perceptron family separates the mushrooms; Winnow gets most of them.
    assert cases[0][0].score(X[2000:], y[2000:]) > 0.95
    assert cases[2][0].score(Xf[2000:], y[2000:]) > 0.85
    pipe = cases[0][0]
    pipe.set_params(perceptron__eta=0.5, perceptron__normalize=True)
    assert pipe.named_steps["perceptron"].eta == 0.5
    assert pipe.get_params()["perceptron__normalize"] is True


@needs_sklearn
def test_clone():
    from sklearn.base import clone, is_classifier
    for est in estimators():
        fitted = clone(est).fit(np.eye(4, dtype=np.uint8), [0, 1, 0, 1])
        c = clone(fitted)
        assert type(c) is type(est) and c.get_params() == est.get_params()
        assert not hasattr(c, "classes_") or c.classes_ is None
        assert is_classifier(c)
        # more than two classes: as the class declares (its k_classes tag; not the voted mode)
        multi = type(c)._TAGS.k_classes and getattr(c, "mode", None) != "vote"
        assert sklearn.utils.get_tags(c).classifier_tags.multi_class is multi


@needs_sklearn
def test_grid_search(mushrooms):
    from sklearn.model_selection import GridSearchCV
    X, y = mushrooms
    gs = GridSearchCV(mbcore.Perceptron(max_epochs=5),
                      {"eta": [0.5, 1.0], "normalize": [False, True]}, cv=3).fit(X, y)
    assert gs.best_score_ > 0.95
    assert isinstance(gs.best_estimator_, mbcore.Perceptron)
    assert set(gs.best_params_) == {"eta", "normalize"}
    assert gs.best_estimator_.n_features_in_ == X.shape[1]
    assert len(gs.cv_results_["mean_test_score"]) == 4
    gw = GridSearchCV(mbcore.Winnow(max_epochs=3), {"alpha": [1.5, 2.0, 4.0]}, cv=3).fit(X, y)
    assert gw.best_params_["alpha"] in (1.5, 2.0, 4.0) and gw.best_score_ > 0.8
    assert np.array_equal(gw.predict(X), gw.best_estimator_.predict(X))


@needs_sklearn
def test_cross_val_score(mushrooms):
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    X, y = mushrooms
    for est in (mbcore.Winnow(), mbcore.Perceptron(max_epochs=5), mbcore.OnlineHingeSVM()):
        scores = cross_val_score(est, X, y, cv=3)
        assert scores.shape == (3,) and (scores > 0.8).all()
        # The same as fitting each fold by hand (deterministic learners).
        manual = [clone(est).fit(X[a], y[a]).score(X[b], y[b])
                  for a, b in StratifiedKFold(3).split(X, y)]
        assert scores.tolist() == manual


# ------------------------------------------------------------------------------------------------
# 3. Conventions on 0/1 data, NotFittedError, scikit-learn optional
# ------------------------------------------------------------------------------------------------

BOOLEAN = [mbcore.Winnow, mbcore.EliminationWinnow, mbcore.WinnowStar, mbcore.BalancedWinnow]


@needs_sklearn
@pytest.mark.parametrize("cls", BOOLEAN, ids=lambda c: c.__name__)
def test_boolean_winnows_follow_the_conventions_on_binary_data(cls):
    from sklearn.base import clone
    from sklearn.utils.validation import check_is_fitted
    rng = np.random.default_rng(0)
    X = (rng.random((40, 6)) < 0.4).astype(np.uint8)
    y = np.where(X[:, 0] | X[:, 2], "yes", "no")
    est = cls()
    with pytest.raises(sklearn.exceptions.NotFittedError):
        est.predict(X)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(est)
    params = est.get_params()
    assert est.fit(X, y) is est and est.partial_fit(X, y) is est
    assert est.get_params() == params                          # fit does not touch params
    check_is_fitted(est)
    assert est.n_features_in_ == 6 and est.classes_.tolist() == ["no", "yes"]
    before = dict(est.__dict__)
    p = est.predict(X)
    assert est.__dict__ == before                              # predict changes nothing
    assert p.dtype == est.classes_.dtype and est.score(X, y) == np.mean(p == y)
    msg = r"X has 2 features, but \w+ is expecting 6 features as input"
    for call in (est.predict, est.decision_function, lambda A: est.score(A, y),
                 lambda A: est.partial_fit(A, y)):
        with pytest.raises(ValueError, match=msg):
            call(X[:, :2])
    again = pickle.loads(pickle.dumps(est))
    assert np.array_equal(again.predict(X), p)
    first = est.decision_function(X)
    assert np.array_equal(clone(est).fit(X, y).decision_function(X), first)   # idempotent
    assert np.array_equal(est.fit(X[::-1], y[::-1]).predict(X[::-1]),
                          cls().fit(X[::-1], y[::-1]).predict(X)[::-1])
    with pytest.raises(ValueError, match="NaN or infinity"):
        cls().fit(np.where(X == 1, np.nan, 0.0), y)


@needs_sklearn
def test_not_fitted_error_is_sklearn_s():
    from sklearn.exceptions import NotFittedError
    for est in estimators():
        with pytest.raises(NotFittedError) as exc:
            est.predict(np.ones((2, 3)))
        assert isinstance(exc.value, mbcore.NotFittedError)
        assert isinstance(exc.value, ValueError) and isinstance(exc.value, AttributeError)
        assert type(exc.value).__name__ == "NotFittedError"
        again = pickle.loads(pickle.dumps(exc.value))
        assert isinstance(again, NotFittedError) and again.args == exc.value.args


def test_mbcore_works_without_sklearn():
    """scikit-learn is optional: with it unimportable, mbcore imports and learns, and only
    asking for scikit-learn's tags needs it."""
    code = """
        import sys
        sys.modules["sklearn"] = None            # import sklearn -> ImportError
        import numpy as np, mbcore
        X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = [1, -1]
        p = mbcore.Perceptron().fit(X, y)
        assert p.predict(X).tolist() == [1, -1]
        try:
            mbcore.Perceptron().predict(X)
        except mbcore.NotFittedError as e:
            assert type(e) is mbcore.NotFittedError
        try:
            p.__sklearn_tags__()
        except ImportError:
            print("ok")
    """
    rc, out, err = run_isolated(code)
    assert rc == 0, err[-800:]
    assert out.strip() == "ok"
