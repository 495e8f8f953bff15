"""More than two classes for the additive family: the compiled learners against their twins,
one-vs-rest against K binary learners, two classes unchanged, labels, persistence, pickling.

The rules (mbcore.linear's docstrings; the twin ``mbref.linear`` is the specification): with
K >= 3 classes, ``multi_class="multiclass"`` predicts argmax_k w_k.x (ties to the smallest class
index) and on a mistake adds x to the true class and subtracts it from the predicted one (the
margin and hinge variants with the top rival); ``multi_class="ovr"`` runs K binary learners, each
by its own rule on (y == class k), and predicts the argmax of their decision values.
"""

import io
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
from conftest import as_list, chunk_bounds, run_chunked, take_rows, to_format, whole_record

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

LEARNERS = [
    ("Perceptron", {}),
    ("Perceptron", {"normalize": True, "fit_intercept": True, "eta": 0.37}),
    ("Perceptron", {"tie": "positive", "fit_intercept": True}),
    ("AveragedPerceptron", {}),
    ("AveragedPerceptron", {"fit_intercept": True, "normalize": True, "eta": 0.7}),
    ("MarginPerceptron", {"gamma": 0.1}),
    ("MarginPerceptron", {"gamma": 0.3, "margin_fraction": 0.9, "fit_intercept": True}),
    ("OnlineHingeSVM", {"lam": 0.1}),
    ("OnlineHingeSVM", {"lam": 0.05, "fit_intercept": True, "normalize": True}),
    ("OnlineHingeSVM", {"lam": 0.01, "eta": 0.05}),
    ("OnlineHingeSVM", {"lam": 1.0, "eta": 0.9}),        # the 1e-9 refold of the scale
    ("OnlineHingeSVM", {"lam": 1.0, "eta": 1.0}),        # shrink to exactly 0 every step
]
STRATEGIES = ("multiclass", "ovr")
ENTRIES = [(name, dict(params, multi_class=mc)) for name, params in LEARNERS
           for mc in STRATEGIES]
IDS = [name + "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")" for name, p in ENTRIES]
FORMATS = ("dense64", "dense32", "csr_i32", "csr_i64")


def make(module, entry):
    name, params = entry
    return getattr(module, name)(**params)


def mc_stream(seed, n=120, d=9, K=4, labels=None, noise=0.3):
    """Real rows with exact zeros and zero rows, labelled by the argmax of K noisy linear
    scores; labels from ``labels`` (default: integers with gaps, not 0..K-1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 4.0, size=(n, 1))
    X[rng.random((n, d)) < 0.25] = 0.0
    X[rng.random(n) < 0.06] = 0.0
    U = rng.normal(size=(K, d))
    c = np.argmax(X @ U.T + noise * rng.normal(size=(n, K)), axis=1)
    names = np.array([3, 7, 8, 20, 21, 50, 99][:K] if labels is None else labels)
    return X, names[c]


def snap(learner):
    """Everything observable about a multi-class learner, as plain lists."""
    return {"n_seen_": int(learner.n_seen_), "mistakes_": int(learner.mistakes_),
            "updates_": int(learner.updates_), "classes_": as_list(learner.classes_),
            "coef_": as_list(learner.coef_), "intercept_": as_list(learner.intercept_)}


def outputs(learner, X):
    return {"decision": as_list(learner.decision_function(X)),
            "predict": as_list(learner.predict(X))}


_TWIN = {}


def twin(entry, seed, fmt):
    key = (repr(entry), seed, fmt)
    if key not in _TWIN:
        X, y = mc_stream(seed)
        ref = make(mbref, entry)
        rec = whole_record(mbref.run_online(ref, to_format(X, fmt), y))
        Xn, _ = mc_stream(seed + 1000, n=30)
        _TWIN[key] = (rec, snap(ref), outputs(ref, to_format(Xn, fmt)))
    return _TWIN[key]


@pytest.mark.parametrize("chunking", ("whole", 1, 7, "random"), ids=lambda c: f"chunks={c}")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seed", (0, 1), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_multiclass_parity(entry, seed, fmt, chunking):
    rec_ref, snap_ref, out_ref = twin(entry, seed, fmt)
    X, y = mc_stream(seed)
    Xf = to_format(X, fmt)
    bounds = chunk_bounds(X.shape[0], chunking, seed)
    classes = np.unique(y)
    clf = make(mbcore, entry)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=classes)
    assert rec == rec_ref
    assert snap(clf) == snap_ref
    Xn, _ = mc_stream(seed + 1000, n=30)
    assert outputs(clf, to_format(Xn, fmt)) == out_ref
    # partial_fit, chunk by chunk
    clf2 = make(mbcore, entry)
    for k, (a, b) in enumerate(bounds):
        clf2.partial_fit(take_rows(Xf, a, b), y[a:b], classes=classes if k == 0 else None)
    assert snap(clf2) == snap_ref


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_multiclass_fit_parity(entry):
    X, y = mc_stream(5, n=60, d=6, K=3, labels=["cat", "dog", "emu"])
    name, params = entry
    e = (name, dict(params, max_epochs=4))
    clf, ref = make(mbcore, e).fit(X, y), make(mbref, e).fit(X, y)
    assert snap(clf) == snap(ref)
    assert (bool(clf.converged_), int(clf.n_iter_), as_list(clf.epoch_mistakes_)) == \
        (bool(ref.converged_), int(ref.n_iter_), as_list(ref.epoch_mistakes_))


@st.composite
def _cases(draw):
    entry = draw(st.sampled_from(ENTRIES))
    K = draw(st.integers(3, 6))
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2 ** 20))
    fmt = draw(st.sampled_from(FORMATS))
    integer = draw(st.booleans())
    return entry, K, n, d, seed, fmt, integer


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(_cases())
def test_hypothesis_multiclass_parity(case):
    entry, K, n, d, seed, fmt, integer = case
    rng = np.random.default_rng(seed)
    if integer:
        X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
        X[rng.random((n, d)) < 0.4] = 0.0
    else:
        X = rng.normal(size=(n, d)) * rng.uniform(0.01, 10, size=(n, 1))
    y = rng.integers(0, K, size=n)
    classes = list(range(K))
    Xf = to_format(X, fmt)
    clf, ref = make(mbcore, entry), make(mbref, entry)
    bounds = chunk_bounds(n, "random", seed)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=classes)
    rec_ref = whole_record(mbref.run_online(ref, Xf, y, classes=classes))
    assert rec == rec_ref
    assert snap(clf) == snap(ref)
    assert outputs(clf, Xf) == outputs(ref, Xf)


# -- one-vs-rest is K binary learners ----------------------------------------------------------

@pytest.mark.parametrize("fmt", ("dense64", "csr_i32"))
@pytest.mark.parametrize("name,params", LEARNERS, ids=[n + str(p) for n, p in LEARNERS])
def test_ovr_is_k_binary_learners(name, params, fmt):
    """Every column of the one-vs-rest learner is the binary learner run on (y == class k),
    and each online prediction is the argmax of those binary learners' decision values made
    before the row (so the record is reproduced from K binary runs row by row)."""
    X, y = mc_stream(3, n=80, d=7, K=4)
    Xf = to_format(X, fmt)
    classes = np.unique(y)
    ovr = getattr(mbcore, name)(**params, multi_class="ovr")
    run = mbcore.run_online(ovr, Xf, y)
    binaries = [getattr(mbcore, name)(**params) for _ in classes]
    # online, the averaged Perceptron predicts as the Perceptron (its average is for predict)
    online = [mbcore.Perceptron(**params) if name == "AveragedPerceptron" else b
              for b in binaries]
    expected = []
    for i in range(X.shape[0]):
        row = take_rows(Xf, i, i + 1)
        if i == 0:
            scores = np.zeros(len(classes))
        else:
            scores = np.array([b.decision_function(row)[0] for b in online])
        expected.append(classes[int(np.argmax(scores))])
        for k, b in enumerate(binaries):
            label = [1 if y[i] == classes[k] else -1]
            b.partial_fit(row, label, classes=[-1, 1])
            if online[k] is not b:
                online[k].partial_fit(row, label, classes=[-1, 1])
    assert as_list(run.predictions) == as_list(np.array(expected))
    for k, b in enumerate(binaries):
        assert as_list(ovr.coef_[k]) == as_list(b.coef_)
        assert float(ovr.intercept_[k]) == float(b.intercept_)
    Xn, _ = mc_stream(4, n=20, d=7, K=4)
    dec = ovr.decision_function(to_format(Xn, fmt))
    for k, b in enumerate(binaries):
        assert as_list(dec[:, k]) == as_list(b.decision_function(to_format(Xn, fmt)))


# -- golden: the multi-class Perceptron by hand, K = 3 -------------------------------------------

def test_golden_multiclass_perceptron_k3():
    """Rows (1,0), (0,1), (1,1) with classes 1, 2, 0 (W = 0 at first; ties -> class 0):
    row 1: scores 0,0,0 -> predict 0, wrong: w1 = (1,0), w0 = (-1,0);
    row 2: scores 0,0,0 -> predict 0, wrong: w2 = (0,1), w0 = (-1,-1);
    row 3: scores -2,1,1 -> predict 1 (tie 1/2 -> 1), wrong: w0 = (0,0), w1 = (0,-1)."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    clf = mbcore.Perceptron()
    run = mbcore.run_online(clf, X, ["b", "c", "a"])
    assert run.predictions.tolist() == ["a", "a", "b"]
    assert (run.mistakes, run.updates) == (3, 3)
    assert clf.coef_.tolist() == [[0.0, 0.0], [0.0, -1.0], [0.0, 1.0]]
    assert clf.intercept_.tolist() == [0.0, 0.0, 0.0]
    assert clf.decision_function([[2.0, 3.0]]).tolist() == [[0.0, -3.0, 3.0]]
    assert clf.predict([[2.0, 3.0], [0.0, 0.0]]).tolist() == ["c", "a"]


def test_golden_ovr_perceptron_k3():
    """One-vs-rest on the same rows: three binary Perceptrons (tie -> -1).
    row 1 (class 1): all score 0 -> all say -1; learner 1 errs: w1 = (1,0); predict class 0.
    row 2 (class 2): scores 0, 0, 0 -> learner 2 errs: w2 = (0,1); predict class 0.
    row 3 (class 0): scores 0, 1, 1 -> predict class 1; learner 0 errs (w0 = (1,1)),
    learners 1 and 2 say +1 wrongly: w1 = (0,-1), w2 = (-1,0)."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    clf = mbcore.Perceptron(multi_class="ovr")
    run = mbcore.run_online(clf, X, [1, 2, 0])
    assert run.predictions.tolist() == [0, 0, 1]
    assert (run.mistakes, run.updates) == (3, 3)
    assert clf.coef_.tolist() == [[1.0, 1.0], [0.0, -1.0], [-1.0, 0.0]]


# -- two classes are exactly the binary learners -----------------------------------------------

@pytest.mark.parametrize("mc", STRATEGIES)
@pytest.mark.parametrize("name,params", LEARNERS, ids=[n + str(p) for n, p in LEARNERS])
def test_two_classes_unchanged(name, params, mc):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = np.where(X @ rng.normal(size=5) > 0, 1, -1)
    a = getattr(mbcore, name)(**params, multi_class=mc)
    b = getattr(mbcore, name)(**params)
    ra, rb = mbcore.run_online(a, X, y), mbcore.run_online(b, X, y)
    assert as_list(ra.predictions) == as_list(rb.predictions)
    assert np.asarray(a.coef_).shape == (5,)
    assert as_list(a.coef_) == as_list(b.coef_)
    assert a.decision_function(X).shape == (60,)


# -- labels ------------------------------------------------------------------------------------

def test_labels_of_any_kind_and_classes_on_the_first_call():
    X, y = mc_stream(1, n=50, K=3, labels=["x", "y", "z"])
    clf = mbcore.Perceptron()
    clf.partial_fit(X[:5][y[:5] != "z"], y[:5][y[:5] != "z"], classes=["z", "y", "x"])
    assert clf.classes_.tolist() == ["x", "y", "z"]
    clf.partial_fit(X[5:], y[5:])
    assert set(clf.predict(X).tolist()) <= {"x", "y", "z"}
    assert clf.score(X, y) >= 0.0
    real = (y == "x") * 1.5 + (y == "y") * 2.5
    with pytest.raises(ValueError, match="continuous"):      # as scikit-learn's classifiers
        mbcore.Perceptron().partial_fit(X, real)
    f = mbcore.Perceptron().partial_fit(X, real, classes=[0.0, 1.5, 2.5])
    assert f.classes_.tolist() == [0.0, 1.5, 2.5]
    assert mbcore.Perceptron().partial_fit(X, real * 2).classes_.tolist() == [0.0, 3.0, 5.0]


@pytest.mark.parametrize("module", (mbcore, mbref), ids=("mbcore", "mbref"))
def test_bad_labels_and_classes(module):
    X = np.eye(3)
    clf = module.Perceptron().partial_fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="outside the fitted classes"):
        clf.partial_fit(X, [0, 1, 5])
    with pytest.raises(ValueError, match="differs from the fitted classes"):
        clf.partial_fit(X, [0, 1, 2], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="at least two"):
        module.Perceptron().partial_fit(X, [0, 0, 0], classes=[0])
    with pytest.raises(ValueError, match="NaN"):
        module.Perceptron().partial_fit(X, [0.0, 1.0, float("nan")])
    with pytest.raises(ValueError, match="multi_class"):
        module.Perceptron(multi_class="crammer").partial_fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="mode='vote'"):
        module.AveragedPerceptron(mode="vote").partial_fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="continuous"):
        module.KernelPerceptron().partial_fit(X, [0.5, 1.5, 2.5])


def test_a_failed_call_leaves_the_learner_as_it_was():
    X, y = mc_stream(2, n=30)
    clf = mbcore.MarginPerceptron().partial_fit(X, y)
    before = snap(clf)
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="row 7"):
        clf.partial_fit(bad, y)
    with pytest.raises(ValueError, match="outside"):
        clf.partial_fit(X, np.where(y == y[0], 1000, y))
    assert snap(clf) == before


# -- persistence and pickling ------------------------------------------------------------------

@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_save_pickle_continue_bit_for_bit(entry):
    X, y = mc_stream(6, n=90)
    whole = make(mbcore, entry).partial_fit(X, y)
    half = make(mbcore, entry).partial_fit(X[:45], y[:45])
    buf = io.BytesIO()
    half.save(buf)
    buf.seek(0)
    loaded = mbcore.load(buf)
    pickled = pickle.loads(pickle.dumps(half))
    for other in (loaded, pickled):
        other.partial_fit(X[45:], y[45:])
        assert snap(other) == snap(whole)
        assert outputs(other, X) == outputs(whole, X)


def test_mnist_digits_parity_and_accuracy():
    """The bundled MNIST digits (1,000 test images, 10 classes): compiled and twin agree on a
    slice, and one pass of the multi-class Perceptron learns something."""
    X, y = mbcore.datasets.load_mnist()
    X = np.asarray(X, dtype=np.float64)
    for mc in STRATEGIES:
        clf, ref = mbcore.Perceptron(multi_class=mc), mbref.Perceptron(multi_class=mc)
        rec = whole_record(mbcore.run_online(clf, X[:150], y[:150], classes=np.arange(10)))
        assert rec == whole_record(mbref.run_online(ref, X[:150], y[:150],
                                                    classes=list(range(10))))
        assert snap(clf) == snap(ref)
    run = mbcore.run_online(mbcore.Perceptron(), X, y)
    assert run.mistakes < 0.5 * X.shape[0]


# -- the Winnow family with K >= 3 classes (Mesterharm's rule, or one-vs-rest) -----------------

WINNOWS = [
    ("Winnow", {}),                                     # exact mode (powers of two)
    ("Winnow", {"alpha": 2.0 ** 40}),                   # exact, far apart: float sums tie
    ("Winnow", {"alpha": 1.5, "theta": 3.0}),           # real mode (not a power of two)
    ("Winnow", {"features": "real", "alpha": 3.0}),
    ("EliminationWinnow", {}),
    ("WinnowStar", {}),
    ("BalancedWinnow", {}),
    ("BalancedWinnow", {"features": "real", "alpha": 1.25, "theta": 0.5}),
]
W_ENTRIES = [(name, dict(params, multi_class=mc)) for name, params in WINNOWS
             for mc in STRATEGIES]
W_IDS = [name + "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")" for name, p in W_ENTRIES]


def winnow_snap(learner):
    s = {"n_seen_": int(learner.n_seen_), "mistakes_": int(learner.mistakes_),
         "updates_": int(learner.updates_), "classes_": as_list(learner.classes_),
         "log2_coef_": as_list(learner.log2_coef_)}
    if type(learner).__name__ == "BalancedWinnow":
        s["log2_coef_neg_"] = as_list(learner.log2_coef_neg_)
    return s


def bool_stream(seed, n=100, d=10, K=4, real=False):
    """0/1 rows (or values in [0, 1]) whose class owns a feature, with noise features and some
    rows whose class shows none (mistakes keep coming)."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, K, n)
    X = (rng.random((n, d)) < 0.3).astype(np.float64)
    X[:, :K] = 0.0
    show = rng.random(n) < 0.85
    X[np.arange(n)[show], c[show]] = 1.0
    if real:
        X = X * rng.choice([0.25, 0.5, 1.0], size=X.shape)
    return X, np.array(["a", "b", "c", "d", "e", "f"][:K])[c]


def winnow_format(X, fmt, entry):
    if fmt == "uint8":
        return X.astype(np.uint8)
    return to_format(X, fmt)


W_FORMATS = ("uint8", "dense64", "dense32", "csr_i32", "csr_i64")


# (uint8 rows are 0/1: the learners with real-valued features take the other formats)
W_CASES = [(e, fmt) for e in W_ENTRIES for fmt in W_FORMATS
           if not (fmt == "uint8" and e[1].get("features") == "real")]
W_CASE_IDS = [f"{i}-{fmt}" for i, (e, fmt) in zip(
    [W_IDS[W_ENTRIES.index(e)] for e, _ in W_CASES], W_CASES)]


@pytest.mark.parametrize("chunking", ("whole", 1, "random"), ids=lambda c: f"chunks={c}")
@pytest.mark.parametrize("seed", (0, 1), ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("entry,fmt", W_CASES, ids=W_CASE_IDS)
def test_winnow_multiclass_parity(entry, fmt, seed, chunking):
    real = entry[1].get("features") == "real"
    X, y = bool_stream(seed, real=real)
    Xf = winnow_format(X, fmt, entry)
    ref = make(mbref, entry)
    rec_ref = whole_record(mbref.run_online(ref, Xf, y))
    clf = make(mbcore, entry)
    bounds = chunk_bounds(X.shape[0], chunking, seed)
    rec = run_chunked(mbcore, clf, Xf, y, bounds, classes=np.unique(y))
    assert rec == rec_ref
    assert winnow_snap(clf) == winnow_snap(ref)
    Xn, _ = bool_stream(seed + 50, n=30, real=real)
    Xn = winnow_format(Xn, fmt, entry)
    assert as_list(clf.predict(Xn)) == as_list(ref.predict(Xn))
    assert as_list(clf.decision_function(Xn)) == as_list(ref.decision_function(Xn))


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(W_ENTRIES), st.integers(3, 6), st.integers(1, 40), st.integers(1, 8),
       st.integers(0, 2 ** 20), st.sampled_from(("dense64", "csr_i32")))
def test_hypothesis_winnow_multiclass_parity(entry, K, n, d, seed, fmt):
    rng = np.random.default_rng(seed)
    real = entry[1].get("features") == "real"
    X = (rng.random((n, d)) < 0.4).astype(np.float64)
    if real:
        X *= rng.choice([0.5, 1.0, 0.75], size=X.shape)
    y = rng.integers(0, K, n)
    Xf = to_format(X, fmt)
    classes = list(range(K))
    clf, ref = make(mbcore, entry), make(mbref, entry)
    rec = run_chunked(mbcore, clf, Xf, y, chunk_bounds(n, "random", seed), classes=classes)
    assert rec == whole_record(mbref.run_online(ref, Xf, y, classes=classes))
    assert winnow_snap(clf) == winnow_snap(ref)
    assert as_list(clf.predict(Xf)) == as_list(ref.predict(Xf))


@pytest.mark.parametrize("alpha,rows,y,query", [
    # float sums tie, exact sums differ (class 2 above class 0 by 2 * 2**-60)
    (2.0 ** 60, [{0}, {0, 1}, {2}, {1, 2}], [1, 0, 2, 2], [{1, 2}, {0, 1, 2}]),
    # an exact tie (classes 1 and 2): the smaller index
    (2.0 ** 60, [{0}, {1}, {0, 1}], [2, 1, 2], [{0, 1}]),
    # an exact tie whose float sums differ (2**53 + 1 + 1 in two orders)
    (2.0 ** 53, [{0}, {2}, {0, 1, 2}], [1, 2, 1], [{0, 1, 2}]),
], ids=["float-tie", "exact-tie", "exact-tie-float-differs"])
@pytest.mark.parametrize("mc", STRATEGIES)
def test_winnow_exact_argmax(alpha, rows, y, query, mc):
    """The cases of tests/learners/test_multiclass_winnow_twin.py (worked by hand there): the
    compiled exact argmax (float sums with error bounds, then exact binary sums of the
    candidates) agrees with the twin's Fraction arithmetic."""
    def dense(sets):
        X = np.zeros((len(sets), 3), dtype=np.uint8)
        for i, a in enumerate(sets):
            X[i, sorted(a)] = 1
        return X
    X, Q = dense(rows), dense(query)
    a = mbcore.Winnow(alpha=alpha, multi_class=mc)
    b = mbref.Winnow(alpha=alpha, multi_class=mc)
    ra = whole_record(mbcore.run_online(a, X, y, classes=[0, 1, 2]))
    assert ra == whole_record(mbref.run_online(b, X, y, classes=[0, 1, 2]))
    assert winnow_snap(a) == winnow_snap(b)
    assert as_list(a.predict(Q)) == as_list(b.predict(Q))
    for fmt in ("dense64", "csr_i32"):
        assert as_list(a.predict(to_format(Q, fmt))) == as_list(b.predict(Q))


@pytest.mark.parametrize("entry", W_ENTRIES, ids=W_IDS)
def test_winnow_multiclass_save_pickle_continue(entry):
    real = entry[1].get("features") == "real"
    X, y = bool_stream(9, real=real)
    whole = make(mbcore, entry).partial_fit(X, y)
    half = make(mbcore, entry).partial_fit(X[:50], y[:50])
    buf = io.BytesIO()
    half.save(buf)
    buf.seek(0)
    for other in (mbcore.load(buf), pickle.loads(pickle.dumps(half))):
        other.partial_fit(X[50:], y[50:])
        assert winnow_snap(other) == winnow_snap(whole)


def test_winnow_ovr_is_k_binary_learners():
    X, y = bool_stream(4, n=80)
    classes = np.unique(y)
    for name, params in WINNOWS:
        if params.get("features") == "real":
            continue
        ovr = getattr(mbcore, name)(**params, multi_class="ovr").partial_fit(X, y)
        for k, c in enumerate(classes):
            b = getattr(mbcore, name)(**params).partial_fit(X, np.where(y == c, 1, -1),
                                                            classes=[-1, 1])
            assert as_list(ovr.log2_coef_[k]) == as_list(b.log2_coef_), (name, k)


def test_winnow_on_mnist_digits():
    X, y = mbcore.datasets.load_mnist(encoding="boolean")
    X = np.asarray(X)
    for mc in STRATEGIES:
        clf, ref = mbcore.Winnow(multi_class=mc), mbref.Winnow(multi_class=mc)
        rec = whole_record(mbcore.run_online(clf, X[:120], y[:120], classes=np.arange(10)))
        assert rec == whole_record(mbref.run_online(ref, X[:120], y[:120],
                                                    classes=list(range(10))))
        assert winnow_snap(clf) == winnow_snap(ref)


# -- the kernel Perceptron with K >= 3 classes -------------------------------------------------

KERNELS = [
    ("KernelPerceptron", {"kernel": "linear"}),
    ("KernelPerceptron", {"kernel": "poly", "degree": 2}),
    ("KernelPerceptron", {"kernel": "rbf", "gamma": 0.3, "budget": 5}),
    ("KernelPerceptron", {"kernel": "poly", "degree": 3, "coef0": 0.25, "tie": "positive",
                          "budget": 7}),
]
K_ENTRIES = [(name, dict(params, multi_class=mc)) for name, params in KERNELS
             for mc in STRATEGIES]
K_IDS = [name + "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")" for name, p in K_ENTRIES]


def kp_snap(learner):
    return {"n_seen_": int(learner.n_seen_), "mistakes_": int(learner.mistakes_),
            "updates_": int(learner.updates_), "classes_": as_list(learner.classes_),
            "support_vectors_": as_list(learner.support_vectors_),
            "dual_coef_": as_list(learner.dual_coef_), "n_support_": as_list(learner.n_support_)}


@pytest.mark.parametrize("chunking", ("whole", 1, "random"), ids=lambda c: f"chunks={c}")
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("entry", K_ENTRIES, ids=K_IDS)
def test_kernel_multiclass_parity(entry, fmt, chunking):
    X, y = mc_stream(2, n=60, d=5, K=4)
    Xf = to_format(X, fmt)
    ref = make(mbref, entry)
    rec_ref = whole_record(mbref.run_online(ref, Xf, y))
    clf = make(mbcore, entry)
    rec = run_chunked(mbcore, clf, Xf, y, chunk_bounds(60, chunking, 2), classes=np.unique(y))
    assert rec == rec_ref
    assert kp_snap(clf) == kp_snap(ref)
    Xn, _ = mc_stream(7, n=20, d=5, K=4)
    assert outputs(clf, to_format(Xn, fmt)) == outputs(ref, to_format(Xn, fmt))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(K_ENTRIES), st.integers(3, 5), st.integers(1, 30), st.integers(1, 4),
       st.integers(0, 2 ** 20), st.sampled_from(("dense64", "dense32", "csr_i64")))
def test_hypothesis_kernel_multiclass_parity(entry, K, n, d, seed, fmt):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    y = rng.integers(0, K, n)
    Xf = to_format(X, fmt)
    classes = list(range(K))
    clf, ref = make(mbcore, entry), make(mbref, entry)
    rec = run_chunked(mbcore, clf, Xf, y, chunk_bounds(n, "random", seed), classes=classes)
    assert rec == whole_record(mbref.run_online(ref, Xf, y, classes=classes))
    assert kp_snap(clf) == kp_snap(ref)


@pytest.mark.parametrize("entry", K_ENTRIES, ids=K_IDS)
def test_kernel_multiclass_save_pickle_continue(entry):
    X, y = mc_stream(8, n=80, d=5)
    whole = make(mbcore, entry).partial_fit(X, y)
    half = make(mbcore, entry).partial_fit(X[:40], y[:40])
    buf = io.BytesIO()
    half.save(buf)
    buf.seek(0)
    for other in (mbcore.load(buf), pickle.loads(pickle.dumps(half))):
        other.partial_fit(X[40:], y[40:])
        assert kp_snap(other) == kp_snap(whole)
        assert outputs(other, X) == outputs(whole, X)


def test_kernel_ovr_is_k_binary_learners():
    X, y = mc_stream(3, n=60, d=5, K=3)
    classes = np.unique(y)
    for name, params in KERNELS:
        ovr = getattr(mbcore, name)(**params, multi_class="ovr").partial_fit(X, y)
        for k, c in enumerate(classes):
            b = getattr(mbcore, name)(**params).partial_fit(X, np.where(y == c, 1, -1),
                                                            classes=[-1, 1])
            assert as_list(ovr.support_vectors_[k]) == as_list(b.support_vectors_)
            assert as_list(ovr.dual_coef_[k]) == as_list(b.dual_coef_)


def test_winnow_and_kernel_k_classes_through_dask():
    """mbcore.distributed with the Winnow family of K classes: one shard of ipm_fit is fit bit
    for bit, and the partitioned predict and decision_function (n, K) equal the in-memory ones
    (the kernel Perceptron: partitioned predict only; its support vectors are not mixed)."""
    dask = pytest.importorskip("dask", reason="the optional extra mbcore[dask] is not installed")
    import dask.array as da
    from mbcore import distributed
    X, y = bool_stream(11, n=90)
    with dask.config.set(scheduler="synchronous"):
        for name, params in WINNOWS[:3] + WINNOWS[-2:]:
            for mc in STRATEGIES:
                make_one = lambda: getattr(mbcore, name)(**params, multi_class=mc)  # noqa: E731
                one = distributed.ipm_fit(make_one(), da.from_array(X, chunks=90),
                                          da.from_array(y, chunks=90), max_epochs=2)
                ref = make_one().set_params(max_epochs=2).fit(X, y)
                got = one.learner if hasattr(one, "learner") else one
                assert winnow_snap(got) == winnow_snap(ref), (name, mc)
                Xd = da.from_array(X, chunks=25)
                assert as_list(distributed.predict(ref, Xd).compute()) == as_list(ref.predict(X))
                assert as_list(distributed.decision_function(ref, Xd).compute()) == \
                    as_list(ref.decision_function(X))
        kp = mbcore.KernelPerceptron(kernel="poly", degree=2).partial_fit(X, y)
        Xd = da.from_array(X, chunks=25)
        assert as_list(distributed.predict(kp, Xd).compute()) == as_list(kp.predict(X))
