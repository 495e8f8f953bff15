"""Feature names, as scikit-learn defines them: a DataFrame whose column names are all strings
gives ``feature_names_in_`` on the first call; later calls (predict, decision_function, score,
partial_fit) with other names, or the same names in another order, raise ValueError naming
them; names on one side only warn.  The twin does the same, word for word; the names survive
pickling and ``save``/``load``.
"""

import pickle
import warnings

import numpy as np
import pytest

import mbcore
import mbref

pd = pytest.importorskip("pandas")

# The learners whose X is a matrix of features (the expert pools read advice, the version
# spaces point indices, PairSpecialists categorical attributes).
NAMED = ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
         "OnlineHingeSVM", "PassiveAggressive", "Winnow", "EliminationWinnow", "WinnowStar",
         "BalancedWinnow", "Conjunction", "Disjunction", "DecisionList"]
COLS = ["age", "income", "hours", "edu", "sex"]


def frame(seed=0, n=60, cols=COLS):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, len(cols))) > 0.5).astype(np.float64)
    X[:, 0] = 1.0                                   # (a conjunction of x0 fits these labels)
    y = np.where(X[:, 1] > 0, 1, -1)
    return pd.DataFrame(X, columns=cols), y


def outcome(call):
    """(error type and message, or None; the warnings' messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            err = None
        except (ValueError, TypeError) as exc:
            err = (type(exc).__name__, str(exc))
    return err, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def both(name, call):
    """call(mod, learner) on a learner fitted on the frame, in mbcore and in its twin: the same
    outcome; returns it."""
    df, y = frame()
    out = []
    for mod in (mbcore, mbref):
        clf = getattr(mod, name)().fit(df, y)
        out.append(outcome(lambda: call(clf)))
    assert out[0] == out[1], out
    return out[0]


@pytest.mark.parametrize("name", NAMED)
def test_fit_on_a_frame_records_the_names(name):
    df, y = frame()
    for mod in (mbcore, mbref):
        clf = getattr(mod, name)().fit(df, y)
        assert list(clf.feature_names_in_) == COLS
        assert clf.n_features_in_ == 5
        # same results as on the array
        ref = getattr(mod, name)().fit(df.to_numpy(), y)
        assert not hasattr(ref, "feature_names_in_")
        assert list(clf.predict(df)) == list(ref.predict(df.to_numpy()))


@pytest.mark.parametrize("name", NAMED)
@pytest.mark.parametrize("method", ["predict", "decision_function", "partial_fit"])
def test_reordered_columns_are_refused(name, method):
    df, y = frame()
    args = (y,) if method == "partial_fit" else ()
    err, warned = both(name, lambda c: getattr(c, method)(df[COLS[::-1]], *args))
    assert err == ("ValueError", f"{name}: The feature names should match those that were "
                   "passed during fit.\nFeature names must be in the same order as they were "
                   "in fit.\n")
    assert warned == []


@pytest.mark.parametrize("name", ["Perceptron", "Winnow", "DecisionList"])
def test_missing_and_extra_columns_are_named(name):
    df, y = frame()
    other = df.rename(columns={"age": "AGE"}).assign(extra=1.0)
    err, _ = both(name, lambda c: c.predict(other))
    assert err[0] == "ValueError"
    assert err[1] == (f"{name}: The feature names should match those that were passed during "
                      "fit.\nFeature names unseen at fit time:\n- AGE\n- extra\nFeature names "
                      "seen at fit time, yet now missing:\n- age\n")


def test_more_than_five_names_are_cut_short():
    cols = [f"f{i}" for i in range(8)]
    df, y = frame(cols=cols)
    clf = mbcore.Perceptron().fit(df, y)
    err, _ = outcome(lambda: clf.predict(df.rename(columns={c: c.upper() for c in cols})))
    assert err[1].count("\n- F") == 5 and "- ...\n" in err[1]


@pytest.mark.parametrize("name", ["Perceptron", "Conjunction"])
def test_names_on_one_side_only_warn(name):
    df, y = frame()
    err, warned = both(name, lambda c: c.predict(df.to_numpy()))
    assert err is None
    assert warned == [f"{name}: X does not have valid feature names, but {name} was fitted "
                      "with feature names"]
    for mod in (mbcore, mbref):
        clf = getattr(mod, name)().fit(df.to_numpy(), y)
        err, warned = outcome(lambda: clf.predict(df))
        assert err is None and warned == [f"{name}: X has feature names, but {name} was "
                                          "fitted without feature names"]


def test_the_one_row_paths_still_check_the_names():
    """partial_fit and predict of one dense row take a fast path; with names fitted, an array
    row must still warn (the fast path is not taken)."""
    df, y = frame()
    clf = mbcore.Perceptron().partial_fit(df, y)
    x = df.to_numpy()[:1].copy()
    for call in (lambda: clf.predict(x), lambda: clf.decision_function(x),
                 lambda: clf.partial_fit(x, y[:1])):
        _, warned = outcome(call)
        assert len(warned) == 1 and "does not have valid feature names" in warned[0]


def test_integer_column_labels_give_no_names_and_mixed_ones_are_refused():
    df, y = frame()
    plain = pd.DataFrame(df.to_numpy())               # pandas' default labels 0..4
    for mod in (mbcore, mbref):
        assert not hasattr(mod.Perceptron().fit(plain, y), "feature_names_in_")
        mixed = plain.set_axis(["a", 1, "c", 3, "e"], axis=1)
        with pytest.raises(TypeError, match="Perceptron: feature names are only supported if "
                                            "all input features have string names"):
            mod.Perceptron().fit(mixed, y)


def test_the_names_survive_pickling_and_the_file_format(tmp_path):
    df, y = frame()
    clf = mbcore.Winnow().fit(df, y)
    back = pickle.loads(pickle.dumps(clf))
    assert list(back.feature_names_in_) == COLS
    path = tmp_path / "w.npz"
    clf.save(path)
    loaded = mbcore.load(path)
    assert list(loaded.feature_names_in_) == COLS
    with pytest.raises(ValueError, match="same order"):
        loaded.predict(df[COLS[::-1]])


def test_a_failed_first_call_records_no_names():
    df, _ = frame()
    clf = mbcore.Perceptron()
    with pytest.raises(ValueError):
        clf.fit(df, ["a"] * 30 + ["b"] * 20 + ["c"] * 10 + [np.nan] * 0, classes=["a", "b"])
    assert not hasattr(clf, "feature_names_in_")


def test_learn_one_on_dicts_never_warns_about_its_own_rows():
    """learn_one / predict_one pass the name index's own row to the general path (new names,
    a label of the first call): the learner has names then, and its own row must not be taken
    for an X without names."""
    df, y = frame()
    rows = [dict(zip(COLS, r)) for r in df.to_numpy().tolist()]
    for mod in (mbcore, mbref):
        clf = mod.Perceptron()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for i, (x, label) in enumerate(zip(rows, y)):
                if i % 3 == 0:
                    x = {k: v for k, v in x.items() if v}     # names arrive late
                clf.predict_one(x)
                clf.learn_one(x, int(label), classes=[-1, 1] if i == 0 else None)
        assert sorted(clf.feature_names_in_) == sorted(COLS)
        _, warned = outcome(lambda: clf.predict(df.to_numpy()))
        assert warned and "does not have valid feature names" in warned[0]


# -- the warnings point at the user's line (issue 36) -------------------------------------------

def _warned_here(call):
    """The warnings of ``call()`` (made from this file), each as (category, filename)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, w.filename) for w in caught]


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive", "Winnow", "Conjunction"])
def test_feature_name_warnings_name_the_callers_line(mod, name):
    """Both feature-name warnings, from every public method that checks the names (through
    the lock's wrappers and the one-row path alike), are attributed to the caller's file,
    not to a module of the library."""
    df, y = frame()
    plain = df.to_numpy()
    with_names = getattr(mod, name)().partial_fit(df, y)
    without = getattr(mod, name)().partial_fit(plain, y)
    calls = {
        "partial_fit, one row": lambda c, X: c.partial_fit(X[:1], y[:1]),
        "partial_fit, rows": lambda c, X: c.partial_fit(X[:5], y[:5]),
        "predict": lambda c, X: c.predict(X[:3]),
        "run_online": lambda c, X: mbcore.run_online(c, X[:3], y[:3]),
    }
    for method in ("decision_function", "score"):
        if hasattr(with_names, method):
            calls[method] = lambda c, X, m=method: getattr(c, m)(X[:3], *(
                [y[:3]] if m == "score" else []))
    for what, call in calls.items():
        if mod is mbref and what == "run_online":
            continue
        for clf, X in ((with_names, plain), (without, df)):
            got = _warned_here(lambda: call(clf, X))
            assert got == [(UserWarning, __file__)], (what, got)


def test_learner_warning_still_names_the_callers_line():
    X = np.array([[1, 0], [0, 1], [1, 1]])
    for mod in (mbcore, mbref):
        got = _warned_here(lambda: mod.Conjunction().partial_fit(X, [1, 1, 0]))
        assert got and all(f == __file__ for _, f in got), got
        assert {c for c, _ in got} == {mod.LearnerWarning}
