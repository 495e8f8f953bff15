"""The contract every learner keeps (README, "Using it"): pickling and
copying mid-stream, clone, monotone counts, NotFittedError, parameters, label types, fit
resetting, and the online record of run_online."""

import copy
import pickle

import numpy as np
import pytest

import mbcore
import mbref
from conftest import (as_list, chunk_bounds, make, real_stream, run_isolated, run_record,
                      snapshot, whole_record)
from _cases import ADDITIVE, ADDITIVE_IDS, declared, learners

# CI runs this file on the debug build too (tests/README.md)
pytestmark = pytest.mark.checked

entry_param = pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
MODULES = [mbcore, mbref]
mod_param = pytest.mark.parametrize("mod", MODULES, ids=["mbcore", "mbref"])

X, Y = real_stream(17, 120, 6)
XT, _ = real_stream(18, 30, 6)


def state(clf):
    return copy.deepcopy(snapshot(clf))


# -- pickling and copying mid-stream ---------------------------------------------------------------

@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@mod_param
@entry_param
def test_interrupted_run_resumes_identically(entry, mod, how):
    def dup(c):
        return pickle.loads(pickle.dumps(c)) if how == "pickle" else copy.deepcopy(c)

    ref = make(mod, entry)
    first = whole_record(mod.run_online(ref, X[:50], Y[:50]))
    ref.partial_fit(X[50:51], Y[50:51])           # a one-row call too (its own code path)
    rest = whole_record(mod.run_online(ref, X[51:], Y[51:]))

    clf = make(mod, entry)
    assert whole_record(mod.run_online(clf, X[:50], Y[:50])) == first
    clf = dup(clf)
    clf.partial_fit(X[50:51], Y[50:51])
    clf = dup(clf)
    assert whole_record(mod.run_online(clf, X[51:], Y[51:])) == rest
    assert state(clf) == state(ref)
    assert as_list(clf.decision_function(XT)) == as_list(ref.decision_function(XT))
    assert as_list(clf.predict(XT)) == as_list(ref.predict(XT))


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@entry_param
def test_copies_are_independent(entry, how):
    clf = make(mbcore, entry).partial_fit(X[:40], Y[:40])
    before = state(clf)
    other = pickle.loads(pickle.dumps(clf)) if how == "pickle" else copy.deepcopy(clf)
    other.partial_fit(X[40:], -Y[40:])
    other.partial_fit(X[:1], Y[:1])
    assert state(clf) == before


@mod_param
@entry_param
def test_pickle_unfitted_and_after_fit(entry, mod):
    clf = pickle.loads(pickle.dumps(make(mod, entry)))
    with pytest.raises(mod.NotFittedError):
        clf.predict(XT)
    e = (entry[0], dict(entry[1], max_epochs=3))
    a = make(mod, e).fit(X[:60], Y[:60])
    b = pickle.loads(pickle.dumps(a))
    assert state(a) == state(b)
    for attr in ("converged_", "cycled_", "n_iter_", "epoch_mistakes_", "epoch_updates_"):
        assert as_list(getattr(a, attr)) == as_list(getattr(b, attr))
    a.partial_fit(X[60:], Y[60:])
    b.partial_fit(X[60:], Y[60:])
    assert state(a) == state(b)


# -- clone -----------------------------------------------------------------------------------------

@entry_param
def test_clone_gives_unfitted_learner_with_equal_params(entry):
    clf = make(mbcore, entry).partial_fit(X, Y)
    c = mbcore.clone(clf)
    assert type(c) is type(clf) and c is not clf
    assert c.get_params() == clf.get_params()
    with pytest.raises(mbcore.NotFittedError):
        c.predict(XT)
    # The clone learns from scratch: the same as a new learner.
    c.partial_fit(X[:30], Y[:30])
    assert state(c) == state(make(mbcore, entry).partial_fit(X[:30], Y[:30]))
    assert clf.n_seen_ == 120


@entry_param
def test_sklearn_clone(entry):
    base = pytest.importorskip("sklearn.base", reason="scikit-learn is an optional peer")
    clf = make(mbcore, entry).partial_fit(X, Y)
    c = base.clone(clf)
    assert type(c) is type(clf)
    assert c.get_params() == clf.get_params()
    with pytest.raises(mbcore.NotFittedError):
        c.decision_function(XT)
    c.partial_fit(X[:30], Y[:30])
    assert state(c) == state(make(mbcore, entry).partial_fit(X[:30], Y[:30]))


# -- counts ----------------------------------------------------------------------------------------

@mod_param
@entry_param
def test_counts_never_decrease(entry, mod):
    clf = make(mod, entry)
    prev = (0, 0, 0)
    for k, (a, b) in enumerate(chunk_bounds(120, "random", 5) + [(0, 1), (0, 120)]):
        clf.partial_fit(X[a:b], -Y[a:b] if k % 2 else Y[a:b])
        cur = (clf.n_seen_, clf.mistakes_, clf.updates_)
        assert cur[0] == prev[0] + (b - a)
        assert cur[1] >= prev[1] and cur[2] >= prev[2]
        assert cur[1] - prev[1] <= b - a
        prev = cur


# -- not fitted ------------------------------------------------------------------------------------

def fitted_attrs(name):
    """The fitted attributes the class declares (``_FITTED``: each raises NotFittedError
    before fit)."""
    attrs = declared(dict(learners())[name], "_FITTED")
    assert attrs, f"{name} declares no _FITTED (its fitted attributes)"
    return attrs


@mod_param
@entry_param
def test_not_fitted(entry, mod):
    assert issubclass(mod.NotFittedError, ValueError)
    clf = make(mod, entry)
    with pytest.raises(mod.NotFittedError):
        clf.predict(XT)
    with pytest.raises(mod.NotFittedError):
        clf.decision_function(XT)
    for attr in fitted_attrs(entry[0]):
        with pytest.raises(mod.NotFittedError):
            getattr(clf, attr)
    # The counts: mbcore raises NotFittedError; the twin keeps them as plain attributes that
    # do not exist yet.  Either way an AttributeError, so hasattr() is False.
    for attr in ("mistakes_", "updates_", "n_seen_"):
        with pytest.raises(mod.NotFittedError if mod is mbcore else AttributeError):
            getattr(clf, attr)
    assert not hasattr(clf, "coef_")          # AttributeError too: hasattr is False
    with pytest.raises(ValueError):           # NotFittedError is a ValueError
        clf.predict(XT)


# -- parameters ------------------------------------------------------------------------------------

@mod_param
@entry_param
def test_get_set_params_round_trip(entry, mod):
    name, params = entry
    clf = make(mod, entry)
    p = clf.get_params()
    for k, v in params.items():
        assert p[k] == v
    assert type(clf)(**p).get_params() == p
    assert clf.set_params(**p) is clf
    assert clf.get_params() == p
    assert clf.set_params(max_epochs=7).get_params()["max_epochs"] == 7
    assert clf.max_epochs == 7
    with pytest.raises(ValueError, match="not_a_param"):
        clf.set_params(not_a_param=1)
    assert clf.get_params()["max_epochs"] == 7
    assert name in repr(clf)


# the parameter changed between calls: the tie (every additive learner has one), or a
# parameter of the rule for the learners whose finer case was that (fixed; a new learner adds
# nothing here)
CHANGE = {"MarginPerceptron": {"gamma": 0.4}, "PassiveAggressive": {"C": 0.3, "variant": "PA-II"}}


@mod_param
@entry_param
def test_set_params_between_calls_equals_fresh_params(entry, mod):
    """Changing eta / tie / lam / gamma with set_params between calls takes effect on the next
    call, and both twins agree on what happens."""
    name, params = entry
    change = CHANGE.get(name, {"tie": "positive"})
    a = make(mbcore, entry).partial_fit(X[:60], Y[:60])
    b = make(mbref, entry).partial_fit(X[:60], Y[:60])
    a.set_params(**change)
    b.set_params(**change)
    assert whole_record(mbcore.run_online(a, X[60:], Y[60:])) == \
        whole_record(mbref.run_online(b, X[60:], Y[60:]))
    assert state(a) == state(b)


@pytest.mark.parametrize("name, change", [
    ("Perceptron", {"normalize": True}),
    ("Perceptron", {"eta": 0.25}),
    ("MarginPerceptron", {"gamma": 0.5}),
    ("OnlineHingeSVM", {"lam": 0.3}),
    ("AveragedPerceptron", {"tie": "positive"}),
])
def test_parameter_attributes_assigned_directly(name, change):
    """scikit-learn convention: parameters are plain attributes and set_params is setattr, so
    ``clf.eta = 0.25`` between calls must act like ``clf.set_params(eta=0.25)`` (as the twin
    does)."""
    results = []
    for mod, how in ((mbcore, "set_params"), (mbcore, "attribute"), (mbref, "attribute")):
        clf = getattr(mod, name)().partial_fit(X[:60], Y[:60])
        if how == "set_params":
            clf.set_params(**change)
        else:
            for k, v in change.items():
                setattr(clf, k, v)
        clf.partial_fit(X[60:], Y[60:])
        results.append(state(clf))
    assert results[1] == results[0], "attribute assignment ignored by mbcore"
    assert results[2] == results[0]


@mod_param
def test_numpy_scalar_parameters(mod):
    """Parameters given as NumPy scalars (as grid searches pass them) act like Python ones."""
    cases = [
        ("Perceptron", {"eta": np.float64(0.5), "max_epochs": np.int64(3)},
         {"eta": 0.5, "max_epochs": 3}),
        ("KernelPerceptron", {"kernel": "poly", "degree": np.int64(2), "budget": np.int32(5)},
         {"kernel": "poly", "degree": 2, "budget": 5}),
        ("MarginPerceptron", {"gamma": np.float64(0.2), "max_epochs": np.int32(4)},
         {"gamma": 0.2, "max_epochs": 4}),
    ]
    for name, np_params, py_params in cases:
        a = getattr(mod, name)(**np_params).fit(X[:40], Y[:40])
        b = getattr(mod, name)(**py_params).fit(X[:40], Y[:40])
        assert state(a) == state(b), name


# -- structural parameters changed on a fitted learner: never a crash ------------------------------

@pytest.mark.parametrize("mod_name", ["mbcore", "mbref"])
def test_set_fit_intercept_after_fitting_is_refused_or_handled(mod_name):
    """Switching fit_intercept on a fitted linear learner changes the size of its state: the
    next call must raise ValueError or handle it; it must not read or write out of bounds."""
    code = f"""
        import numpy as np, {mod_name} as mod
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 5)); y = np.where(rng.normal(size=40) > 0, 1, -1)
        for name in ("Perceptron", "MarginPerceptron", "AveragedPerceptron", "OnlineHingeSVM"):
            for start in (False, True):
                p = getattr(mod, name)(fit_intercept=start).partial_fit(X, y)
                p.set_params(fit_intercept=not start)
                try:
                    p.partial_fit(X, y)
                    coef = np.asarray(p.coef_, dtype=float)
                    assert coef.shape == (5,) and np.isfinite(coef).all()
                    assert np.isfinite(p.intercept_)
                    print(name, start, "handled")
                except ValueError as exc:
                    print(name, start, "ValueError")
    """
    rc, out, err = run_isolated(code)
    assert rc == 0, f"interpreter died or raised (return code {rc}): {err[-800:]}"
    assert len(out.split()) == 3 * 8


@pytest.mark.parametrize("mod_name", ["mbcore", "mbref"])
def test_budget_lowered_below_support_count_is_refused_or_enforced(mod_name):
    """A KernelPerceptron with 18 support vectors gets budget=3: the next call must raise
    ValueError or keep at most 3 support vectors; it must not write past its arrays."""
    code = f"""
        import numpy as np, {mod_name} as mod
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 5)); y = np.where(rng.normal(size=40) > 0, 1, -1)
        k = mod.KernelPerceptron(kernel="rbf").partial_fit(X, y)
        assert k.n_support_ > 3, k.n_support_
        k.set_params(budget=3)
        try:
            k.partial_fit(X, -y)
            assert k.n_support_ <= 3, f"n_support_={{k.n_support_}} > budget 3"
            print("enforced")
        except ValueError:
            print("ValueError")
    """
    rc, out, err = run_isolated(code)
    assert rc == 0, f"interpreter died or failed (return code {rc}): {err[-800:]}"
    assert out.strip() in ("enforced", "ValueError")


# -- labels ----------------------------------------------------------------------------------------

LABELINGS = {
    "pm1": lambda y: y,
    "01": lambda y: (y + 1) // 2,
    "bool": lambda y: y > 0,
    "str": lambda y: np.where(y > 0, "spam", "ham"),
    "float": lambda y: np.where(y > 0, 2.5, -0.5),
    "list-str": lambda y: ["spam" if v > 0 else "ham" for v in y],
    "int8": lambda y: y.astype(np.int8),
    "int16-3-7": lambda y: np.where(y > 0, 7, 3).astype(np.int16),
    "uint8-01": lambda y: ((y + 1) // 2).astype(np.uint8),
    "float32": lambda y: np.where(y > 0, 2.5, -0.5).astype(np.float32),
    "list-int": lambda y: [int(v) for v in y],
}


@mod_param
@entry_param
def test_label_encodings(entry, mod):
    """Any two labels: sorted, the second is the positive class; the learning is the same as
    with -1/+1, and predictions come back in the original labels."""
    want = make(mod, entry)
    want_online = run_record(mod.run_online(want, X, Y))["predictions"]
    want_state = state(want)
    want_pred = as_list(want.predict(XT))
    for name, enc in LABELINGS.items():
        yy = enc(Y)
        arr = np.asarray(yy)
        neg, pos = np.unique(arr).tolist()
        clf = make(mod, entry)
        run = mod.run_online(clf, X, yy)
        preds = run_record(run)["predictions"]
        got = state(clf)
        assert as_list(clf.classes_) == [neg, pos], name
        got.pop("classes_")
        assert got == {k: v for k, v in want_state.items() if k != "classes_"}, name
        p = as_list(clf.predict(XT))
        assert p == [pos if v > 0 else neg for v in want_pred], name
        assert all(type(v) is type(pos) for v in p + preds), name
        assert preds == [pos if v > 0 else neg for v in want_online], name
        # Later calls accept the same labels, one row at a time too.
        clf.partial_fit(X[:1], yy[:1])
        clf.partial_fit(X[:3], yy[:3])


@mod_param
def test_predict_returns_label_dtype(mod):
    clf = mod.Perceptron().partial_fit(X, np.where(Y > 0, "spam", "ham"))
    p = clf.predict(XT)
    if mod is mbcore:
        assert isinstance(p, np.ndarray) and p.dtype.kind == "U"
        assert np.asarray(mbcore.Perceptron().partial_fit(X, Y > 0).predict(XT)).dtype == bool
        assert np.asarray(mbcore.Perceptron().partial_fit(X, Y).predict(XT)).dtype.kind == "i"
    assert set(as_list(p)) <= {"ham", "spam"}


# -- fit and partial_fit ---------------------------------------------------------------------------

@mod_param
@entry_param
def test_fit_resets_state(entry, mod):
    e = (entry[0], dict(entry[1], max_epochs=3))
    fresh = make(mod, e).fit(X[60:], Y[60:])
    clf = make(mod, e)
    assert clf.partial_fit(X[:60], -Y[:60]) is clf
    assert clf.fit(X[60:], Y[60:]) is clf
    assert state(clf) == state(fresh)
    assert clf.n_seen_ == 60 * clf.n_iter_
    # fit on a different number of features is allowed: it starts over.
    Xw, yw = real_stream(4, 30, 3)
    clf.fit(Xw, yw)
    assert clf.n_features_in_ == 3
    assert state(clf) == state(make(mod, e).fit(Xw, yw))
    # ... and fit twice on the same data gives the same state.
    assert state(clf.fit(Xw, yw)) == state(make(mod, e).fit(Xw, yw))


@mod_param
@entry_param
def test_sets_fitted_attributes(entry, mod):
    clf = make(mod, entry).partial_fit(X[:10], Y[:10])
    assert clf.n_features_in_ == 6
    assert as_list(clf.classes_) == [-1, 1]
    assert clf.n_seen_ == 10


# -- run_online: the online record -----------------------------------------------------------------

def _online_hypothesis(entry):
    """Learners whose predict uses the same hypothesis as their online predictions (the
    averaged / voted Perceptron predicts with the average or the vote instead)."""
    return entry[0] != "AveragedPerceptron"


@mod_param
@entry_param
def test_run_online_record(entry, mod):
    clf = make(mod, entry)
    rec = run_record(mod.run_online(clf, X, Y))
    n = len(Y)
    assert len(rec["predictions"]) == len(rec["errors"]) == len(rec["updated"]) == n
    assert rec["errors"] == [p != t for p, t in zip(rec["predictions"], Y.tolist())]
    assert rec["mistakes"] == sum(rec["errors"]) == clf.mistakes_
    assert rec["updates"] == sum(rec["updated"]) == clf.updates_
    curve = rec["mistake_curve"]
    assert curve[-1] == rec["mistakes"]
    assert all(b - a in (0, 1) for a, b in zip([0] + curve, curve))
    if mod is mbcore:
        run = mbcore.run_online(make(mod, entry), X, Y)
        assert run.n == n
        assert run.update_curve[-1] == run.updates
        assert (np.diff(run.update_curve) >= 0).all()
        assert run.mistake_curve.tolist() == np.cumsum(run.errors).tolist()
    # The Perceptron family never updates without a mistake; the margin learners may.
    if entry[0] in ("Perceptron", "AveragedPerceptron", "KernelPerceptron"):
        assert rec["updated"] == rec["errors"]


@mod_param
@entry_param
def test_run_online_predictions_are_predict_before_update(entry, mod):
    rec = run_record(mod.run_online(make(mod, entry), X[:60], Y[:60]))
    # The first prediction is made from the empty state (w = 0, no support vector): the tie.
    assert rec["predictions"][0] == (1 if entry[1].get("tie") == "positive" else -1)
    clf = make(mod, entry)
    if _online_hypothesis(entry):
        said = []
        for t in range(60):
            if t > 0:
                said.append(as_list(clf.predict(X[t:t + 1]))[0])
            clf.partial_fit(X[t:t + 1], Y[t:t + 1], classes=[-1, 1] if t == 0 else None)
        assert rec["predictions"][1:] == said
        assert clf.mistakes_ == rec["mistakes"]
    else:
        # Online, the averaged and voted Perceptron are the Perceptron.
        p = ("Perceptron", {k: v for k, v in entry[1].items() if k != "mode"})
        assert rec == run_record(mod.run_online(make(mod, p), X[:60], Y[:60]))


# -- large batches (scored in threads) -------------------------------------------------------------

@pytest.mark.parametrize("name", ["Perceptron", "MarginPerceptron", "AveragedPerceptron",
                                  "OnlineHingeSVM"])
def test_large_batch_scores_equal_small_batches(name):
    """Big batches may be scored in several threads: the scores must be those of small
    batches, and the first bad row must be named with its index in the whole batch."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(80_000, 8))
    clf = getattr(mbcore, name)().partial_fit(Xb[:500], np.where(Xb[:500, 0] > 0, 1, -1))
    for big in (Xb, sp.csr_array(np.where(np.abs(Xb) < 1.0, 0.0, Xb))):
        whole = clf.decision_function(big)
        parts = np.concatenate([clf.decision_function(big[i:i + 4000])
                                for i in range(0, 80_000, 4000)])
        assert whole.tolist() == parts.tolist()
        assert np.array_equal(clf.predict(big), np.where(parts > 0, 1, -1))
    bad = Xb.copy()
    bad[61_234, 5] = np.nan
    bad[70_001, 0] = np.inf
    with pytest.raises(ValueError, match=r"row 61234\b"):
        clf.decision_function(bad)


def test_clone_and_certify_leave_a_pools_experts_alone():
    """clone gives a pool fresh experts (as sklearn.base.clone clones nested estimators), so
    certify, which runs a clone, never trains the caller's experts."""
    p, w = mbcore.Perceptron(), mbcore.Winnow()
    wm = mbcore.WeightedMajority(experts=[p, w])
    twin = mbcore.clone(wm)
    assert twin.experts[0] is not p and twin.experts[1] is not w
    assert type(twin.experts[0]) is mbcore.Perceptron and twin.experts[1].get_params() == \
        w.get_params()
    X = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], dtype=np.uint8)
    mbcore.certify(wm, X, [1, 0, 1, 0])
    assert not p._is_fitted() and not w._is_fitted()
    inner = mbcore.Perceptron(eta=0.5)
    c = mbcore.clone(mbcore.Conservative(inner))
    assert c.learner is not inner and c.learner.get_params() == inner.get_params()
