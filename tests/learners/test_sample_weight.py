"""Sample and class weights (``sample_weight`` of fit, partial_fit and run_online; the
``class_weight`` parameter) of the additive learners, and their refusal by every other learner.

The rule (mbcore.linear): the coefficient an update adds (times x) is multiplied by the row's
weight s last; a row of weight 0 is predicted and its mistake counted, but it never updates;
PassiveAggressive gives a row of weight s the aggressiveness C*s.  The golden cases below are
worked by hand from that rule; the twin (mbref) is compared bit for bit on random streams
(dense, CSR, float32, K classes, chunked, fit); scikit-learn's Perceptron (whose update is the
same, eta * s * y * x) to rounding, and its ``compute_class_weight`` for "balanced".
"""

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from conftest import (ADDITIVE, ADDITIVE_IDS, as_list, chunk_bounds, csr_from_dense, make,
                      real_stream, take_rows, to_format)

# CI runs this file on the debug build too (tests/README.md)
pytestmark = pytest.mark.checked

N, D = 120, 8
FORMATS = ("dense64", "dense32", "csr_i32", "csr_i64")
WEIGHTED = [name for name, cls in mbcore.all_learners() if cls._TAGS.weighted]
REFUSING = [name for name, cls in mbcore.all_learners() if not cls._TAGS.weighted]
# the additive cases of the learners that take weights (the others refuse them: REFUSING)
ADDITIVE_WEIGHTED = [e for e in ADDITIVE if e[0] in WEIGHTED]
ADDITIVE_WEIGHTED_IDS = [i for e, i in zip(ADDITIVE, ADDITIVE_IDS) if e[0] in WEIGHTED]


def weights(seed, n, zeros=0.2):
    """Weights in [0, 3]: exact zeros, integers and fractions."""
    rng = np.random.default_rng(seed + 77)
    w = np.where(rng.random(n) < 0.4, rng.integers(1, 4, n), rng.uniform(0.1, 3.0, n))
    w[rng.random(n) < zeros] = 0.0
    return w


def k_stream(seed, n=N, d=D, K=4):
    rng = np.random.default_rng(seed + 5)
    X, _ = real_stream(seed, n, d)
    U = rng.normal(size=(K, d))
    y = np.argmax(X @ U.T + 0.3 * rng.normal(size=(n, K)), axis=1)
    return X, y


def state(learner):
    """The learner's observable state as plain Python values (any number of classes)."""
    s = {"n_seen_": learner.n_seen_, "mistakes_": learner.mistakes_,
         "updates_": learner.updates_}
    if type(learner).__name__ == "KernelPerceptron":
        s["support_vectors_"] = as_list(learner.support_vectors_)
        s["dual_coef_"] = as_list(learner.dual_coef_)
    else:
        s["coef_"] = as_list(learner.coef_)
        s["intercept_"] = as_list(learner.intercept_)
    return s


def record(run):
    return {"predictions": as_list(run.predictions), "errors": as_list(run.errors),
            "updated": as_list(run.updated)}


# ------------------------------------------------------------------------------------------------
# Golden cases, worked by hand from the rule
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_weight_zero_predicts_and_counts_the_mistake_but_never_updates(module):
    # w = 0; row 0: w.x = 0 -> -1 (tie "negative"), label +1: a mistake, weight 0: no update;
    # row 1: 0 -> -1, label -1: right; row 2: 0 -> -1, label +1: a mistake, w = (1, 1)
    p = module.Perceptron().partial_fit([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1, -1, 1],
                                        sample_weight=[0.0, 1.0, 1.0])
    assert (p.mistakes_, p.updates_, p.n_seen_) == (2, 1, 3)
    assert list(p.coef_) == [1.0, 1.0]


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_weight_two_is_one_update_of_two_eta_not_the_row_twice(module):
    # s = 2: one mistake, w = 2 x.  The row presented twice: the first is a mistake (w = x),
    # the second is then right (w.x = 1 > 0): w = x.  Weights are not repetitions.
    once = module.Perceptron().partial_fit([[1.0, 0.0]], [1], classes=[-1, 1], sample_weight=[2])
    twice = module.Perceptron().partial_fit([[1.0, 0.0], [1.0, 0.0]], [1, 1], classes=[-1, 1])
    assert list(once.coef_) == [2.0, 0.0] and once.mistakes_ == 1
    assert list(twice.coef_) == [1.0, 0.0] and twice.mistakes_ == 1


@pytest.mark.parametrize("s", [2.0, 3.0, 0.5])
def test_a_constant_weight_is_the_learning_rate(s):
    """On integer data every sum is exact: weight s on every row is eta = s, exactly (and from
    w = 0 the same predictions as the unweighted run)."""
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(200, 6)).astype(float)
    y = np.where(X @ rng.integers(-2, 3, size=6) + rng.normal(size=200) > 0, 1, -1)
    a = mbcore.Perceptron().partial_fit(X, y, sample_weight=np.full(200, s))
    b = mbcore.Perceptron(eta=s).partial_fit(X, y)
    c = mbcore.Perceptron().partial_fit(X, y)
    assert a.coef_.tolist() == b.coef_.tolist() == (s * c.coef_).tolist()
    assert a.mistakes_ == c.mistakes_ and np.array_equal(a.predict(X), c.predict(X))


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_kesler_update_scaled_by_the_weight(module):
    # K = 3, W = 0, predictions are the smallest index among ties.
    # row 0 (1, 0), class 1, s = 2: predicts 0, w_1 = (2, 0), w_0 = (-2, 0)
    # row 1 (0, 1), class 2, s = 1: scores (0, 0, 0) -> 0, w_2 = (0, 1), w_0 = (-2, -1)
    # row 2 (1, 1), class 0, s = 0.5: scores (-3, 2, 1) -> 1, w_0 = (-1.5, -0.5), w_1 = (1.5, -0.5)
    p = module.Perceptron().partial_fit([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1, 2, 0],
                                        sample_weight=[2.0, 1.0, 0.5])
    assert as_list(p.coef_) == [[-1.5, -0.5], [1.5, -0.5], [0.0, 1.0]]
    assert (p.mistakes_, p.updates_) == (3, 3)


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_passive_aggressive_weight_is_aggressiveness(module):
    # x = (1, 1), y = +1, w = 0: loss 1, ||x||^2 = 2.
    # PA-I, C = 0.5: tau = min(C s, 1/2): s = 3 -> 0.5 (the cap 1.5 does not bind);
    #                s = 0.5 -> the cap 0.25.
    # PA-II, C = 0.5: tau = 1 / (2 + 1/(2 C s)): s = 2 -> 1/2.5 = 0.4; s = 1 -> 1/3.
    X, y = [[1.0, 1.0]], [1]
    for variant, s, tau in [("PA-I", 3.0, 0.5), ("PA-I", 0.5, 0.25), ("PA-II", 2.0, 0.4),
                            ("PA-II", 1.0, 1.0 / 3.0)]:
        pa = module.PassiveAggressive(C=0.5, variant=variant).partial_fit(
            X, y, classes=[-1, 1], sample_weight=[s])
        assert list(pa.coef_) == [tau, tau], (variant, s)


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_kernel_perceptron_stores_y_times_the_weight(module):
    # linear kernel; row 0: f = 0 -> -1, label +1: store (x0, +1 * 2); row 1: f = 2 x0.x1 = 0
    # -> -1, label +1: store (x1, 3); row 2: label -1, weight 0: f = 2 > 0, a mistake, no store
    kp = module.KernelPerceptron(kernel="linear").partial_fit(
        [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [1, 1, -1], sample_weight=[2.0, 3.0, 0.0])
    assert as_list(kp.dual_coef_) == [2.0, 3.0]
    assert (kp.mistakes_, kp.updates_) == (3, 2)


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_hinge_step_scaled_and_shrink_kept(module):
    # eta = 0.5, lam = 0.5: every row shrinks w by 1 - 0.25 = 0.75.  Row 0 (1, 0), y = +1,
    # s = 2: the hinge step adds eta * s * y * x = (1, 0) after the shrink: w = (1, 0).
    # Row 1 (0, 1), y = +1, s = 0: no step, but the shrink: w = (0.75, 0).
    h = module.OnlineHingeSVM(lam=0.5, eta=0.5).partial_fit(
        [[1.0, 0.0], [0.0, 1.0]], [1, 1], classes=[-1, 1], sample_weight=[2.0, 0.0])
    assert list(h.coef_) == [0.75, 0.0]
    assert (h.mistakes_, h.updates_) == (2, 1)


# ------------------------------------------------------------------------------------------------
# All ones is no weights, bit for bit; the twin on random streams
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("entry", ADDITIVE_WEIGHTED, ids=ADDITIVE_WEIGHTED_IDS)
def test_all_ones_equal_no_weights_bit_for_bit(entry, fmt):
    X, y = real_stream(0, N, D)
    Xf = to_format(X, fmt)
    a = make(mbcore, entry)
    b = make(mbcore, entry)
    ra = record(mbcore.run_online(a, Xf, y, classes=[-1, 1]))
    rb = record(mbcore.run_online(b, Xf, y, classes=[-1, 1], sample_weight=np.ones(N)))
    assert ra == rb and state(a) == state(b)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("entry", ADDITIVE_WEIGHTED, ids=ADDITIVE_WEIGHTED_IDS)
def test_twin_parity_with_weights(entry, fmt):
    """run_online chunk by chunk (whole, 7 rows) against the twin's whole run: records and
    states equal with ==."""
    X, y = real_stream(1, N, D)
    X[np.random.default_rng(2).random(N) < 0.08] = 0.0
    Xf = to_format(X, fmt)
    sw = weights(1, N)
    ref = make(mbref, entry)
    rec_ref = record(mbref.run_online(ref, Xf, y, classes=[-1, 1], sample_weight=sw.tolist()))
    for chunking in ("whole", 7):
        clf = make(mbcore, entry)
        rec = {"predictions": [], "errors": [], "updated": []}
        for k, (a, b) in enumerate(chunk_bounds(N, chunking)):
            r = record(mbcore.run_online(clf, take_rows(Xf, a, b), y[a:b],
                                         classes=[-1, 1] if k == 0 else None,
                                         sample_weight=sw[a:b]))
            for key in rec:
                rec[key] += r[key]
        assert rec == rec_ref, chunking
        assert state(clf) == state(ref), chunking
    assert 0 < ref.updates_


MULTI = [(name, dict(params, multi_class=mc)) for name, params in
         [("Perceptron", {}), ("Perceptron", {"normalize": True, "fit_intercept": True}),
          ("AveragedPerceptron", {}), ("MarginPerceptron", {"gamma": 0.1}),
          ("OnlineHingeSVM", {"lam": 0.05}), ("PassiveAggressive", {}),
          ("PassiveAggressive", {"variant": "PA-II", "C": 0.1}),
          ("KernelPerceptron", {"kernel": "poly", "degree": 2})]
         for mc in ("multiclass", "ovr")]


@pytest.mark.parametrize("fmt", ("dense64", "dense32", "csr_i64"))
@pytest.mark.parametrize("entry", MULTI, ids=[f"{n}-{p}" for n, p in MULTI])
def test_twin_parity_with_weights_k_classes(entry, fmt):
    X, y = k_stream(4)
    Xf = to_format(X, fmt)
    sw = weights(4, N)
    ref = make(mbref, entry)
    rec_ref = record(mbref.run_online(ref, Xf, y, sample_weight=sw.tolist()))
    clf = make(mbcore, entry)
    rec = record(mbcore.run_online(clf, Xf, y, sample_weight=sw))
    assert rec == rec_ref and state(clf) == state(ref)
    ones = make(mbcore, entry)
    none = make(mbcore, entry)
    assert record(mbcore.run_online(ones, Xf, y, sample_weight=np.ones(N))) == \
        record(mbcore.run_online(none, Xf, y))
    assert state(ones) == state(none)


@pytest.mark.parametrize("entry", [("Perceptron", {}), ("Perceptron", {"multi_class": "ovr"}),
                                   ("AveragedPerceptron", {"mode": "vote"}),
                                   ("MarginPerceptron", {"gamma": 0.2}),
                                   ("PassiveAggressive", {"variant": "PA-II"}),
                                   ("KernelPerceptron", {"kernel": "linear"})],
                         ids=lambda e: f"{e[0]}{e[1]}")
def test_fit_parity_with_weights_and_class_weight(entry):
    name, params = entry
    X, y = (k_stream(6, 80) if params.get("multi_class") else real_stream(6, 80, D))
    sw = weights(6, 80)
    cw = {int(c): w for c, w in zip(np.unique(y), [0.5, 2.0, 1.5, 3.0])}
    entry = (name, dict(params, max_epochs=4, class_weight=cw))
    a = make(mbcore, entry).fit(X, y, sample_weight=sw)
    b = make(mbref, entry).fit(X, y, sample_weight=sw.tolist())
    assert state(a) == state(b)
    assert list(a.epoch_mistakes_) == list(b.epoch_mistakes_)
    if params.get("mode") == "vote":
        assert as_list(a.vote_vectors_) == as_list(b.vote_vectors_)
        assert as_list(a.vote_counts_) == as_list(b.vote_counts_)


@pytest.mark.parametrize("fmt", ("dense64", "dense32", "csr_i32"))
@pytest.mark.parametrize("entry", [("Perceptron", {}), ("AveragedPerceptron", {}),
                                   ("MarginPerceptron", {"gamma": 0.1}),
                                   ("PassiveAggressive", {}),
                                   ("Perceptron", {"multi_class": "ovr"}),
                                   ("PassiveAggressive", {"multi_class": "multiclass"})],
                         ids=lambda e: f"{e[0]}{e[1]}")
def test_exact_parallel_pass_with_weights(entry, fmt):
    """n_jobs=2 on a batch large enough for two threads equals n_jobs=1, bit for bit, with
    weights (zeros included); and n_jobs=1 equals the twin on its first rows."""
    n, d = 3000, 12
    multi = entry[1].get("multi_class")
    X, y = k_stream(8, n, d) if multi else real_stream(8, n, d)
    Xf = to_format(X, fmt)
    sw = weights(8, n, zeros=0.3)
    assert mbcore._threads.pass_threads("t", 2, n, n * d) == 2
    one = make(mbcore, (entry[0], dict(entry[1], n_jobs=1)))
    two = make(mbcore, (entry[0], dict(entry[1], n_jobs=2)))
    r1 = record(mbcore.run_online(one, Xf, y, sample_weight=sw))
    r2 = record(mbcore.run_online(two, Xf, y, sample_weight=sw))
    assert r1 == r2 and state(one) == state(two)
    m = 300
    ref = make(mbref, entry)
    first = make(mbcore, (entry[0], dict(entry[1], n_jobs=1)))
    assert record(mbref.run_online(ref, take_rows(Xf, 0, m), y[:m], sample_weight=sw[:m].tolist())) \
        == record(mbcore.run_online(first, take_rows(Xf, 0, m), y[:m], sample_weight=sw[:m]))
    assert state(ref) == state(first)


def test_partial_fit_equals_run_online_and_fit_one_epoch():
    X, y = real_stream(9, N, D)
    sw = weights(9, N)
    a = mbcore.Perceptron().partial_fit(X, y, sample_weight=sw)
    b = mbcore.Perceptron()
    mbcore.run_online(b, X, y, sample_weight=sw)
    c = mbcore.Perceptron(max_epochs=1).fit(X, y, sample_weight=sw)
    assert state(a) == state(b) == state(c)


@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron", "PassiveAggressive"])
def test_one_row_calls_take_the_class_weights(name):
    """partial_fit one row at a time (the one-row fast path of the unweighted learners) with
    class_weight, or sample_weight, equals the whole batch."""
    X, y = real_stream(19, 60, 4)
    cw = {-1: 0.5, 1: 3.0}
    sw = weights(19, 60)
    whole = getattr(mbcore, name)(class_weight=cw).partial_fit(X, y, sample_weight=sw)
    rows = getattr(mbcore, name)(class_weight=cw)
    for i in range(60):
        rows.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1] if i == 0 else None,
                         sample_weight=sw[i:i + 1])
    assert state(rows) == state(whole)
    only_cw = getattr(mbcore, name)(class_weight=cw)
    for i in range(60):
        only_cw.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1] if i == 0 else None)
    assert state(only_cw) == state(getattr(mbcore, name)(class_weight=cw).partial_fit(X, y))
    assert state(only_cw) != state(getattr(mbcore, name)().partial_fit(X, y))


def test_csr_equals_dense_on_integer_data():
    rng = np.random.default_rng(10)
    X = rng.integers(-3, 4, size=(N, D)).astype(float)
    X[rng.random((N, D)) < 0.5] = 0.0
    y = np.where(X @ rng.integers(-2, 3, size=D) > 0, 1, -1)
    sw = rng.integers(0, 4, size=N).astype(float)
    a = mbcore.Perceptron().partial_fit(X, y, sample_weight=sw)
    b = mbcore.Perceptron().partial_fit(sp.csr_array(X), y, sample_weight=sw)
    assert state(a) == state(b)


# ------------------------------------------------------------------------------------------------
# scikit-learn: its Perceptron's update is the same (eta * s * y * x); compute_class_weight
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("class_weight", [None, {-1: 0.5, 1: 2.0}])
def test_equals_scikit_learn_perceptron(fit_intercept, class_weight):
    """One pass of partial_fit on real-valued data (no ties after the first row, which is
    labelled +1 so that both update on it): the weights equal scikit-learn's to rounding (its
    dot products sum left to right, ours in four partial sums), the predictions exactly."""
    lm = pytest.importorskip("sklearn.linear_model")
    X, y = real_stream(11, 2000, 10)
    y[0] = 1
    X[0] = np.abs(X[0]) + 0.1
    sw = np.random.default_rng(11).choice([0.0, 0.5, 1.0, 2.0, 3.0], size=2000)
    sk = lm.Perceptron(fit_intercept=fit_intercept, shuffle=False, max_iter=1, tol=None,
                       class_weight=class_weight)
    sk.partial_fit(X, y, classes=[-1, 1], sample_weight=sw)
    ours = mbcore.Perceptron(fit_intercept=fit_intercept, class_weight=class_weight)
    ours.partial_fit(X, y, classes=[-1, 1], sample_weight=sw)
    ref = np.append(sk.coef_.ravel(), sk.intercept_)
    got = np.append(ours.coef_, ours.intercept_)
    assert np.max(np.abs(got - ref)) <= 1e-12 * max(1.0, np.max(np.abs(ref)))
    assert np.array_equal(ours.predict(X), sk.predict(X))


@pytest.mark.parametrize("multi", [False, True])
def test_balanced_is_scikit_learns_compute_class_weight(multi):
    cw_mod = pytest.importorskip("sklearn.utils.class_weight")
    X, y = k_stream(12) if multi else real_stream(12, N, D)
    y = np.asarray(y)
    keep = np.ones(N, dtype=bool)
    keep[np.flatnonzero(y == y.min())[5:]] = False          # an imbalanced sample
    X, y = X[keep], y[keep]
    classes = np.unique(y)
    per = cw_mod.compute_class_weight("balanced", classes=classes, y=y)
    row = per[np.searchsorted(classes, y)]
    a = mbcore.Perceptron(class_weight="balanced", max_epochs=3).fit(X, y)
    b = mbcore.Perceptron(max_epochs=3).fit(X, y, sample_weight=row)
    assert state(a) == state(b)
    t = mbref.Perceptron(class_weight="balanced", max_epochs=3).fit(X.tolist(), y.tolist())
    assert state(t) == state(a)


def test_balanced_is_refused_by_partial_fit_as_scikit_learn_does():
    X, y = real_stream(13, 20, 3)
    for module in (mbcore, mbref):
        p = module.Perceptron(class_weight="balanced")
        with pytest.raises(ValueError, match="'balanced' is not supported for partial_fit"):
            p.partial_fit(X, y)
        with pytest.raises(ValueError, match="'balanced' is not supported for partial_fit"):
            module.run_online(module.Perceptron(class_weight="balanced"), X, y)
    lm = pytest.importorskip("sklearn.linear_model")
    with pytest.raises(ValueError, match="balanced"):
        lm.Perceptron(class_weight="balanced").partial_fit(X, y, classes=[-1, 1])


def test_class_weight_dict_times_sample_weight():
    X, y = real_stream(14, N, D)
    sw = weights(14, N)
    a = mbcore.Perceptron(class_weight={1: 3.0}).partial_fit(X, y, sample_weight=sw)
    b = mbcore.Perceptron().partial_fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0) * sw)
    assert state(a) == state(b)
    for module in (mbcore, mbref):
        with pytest.raises(ValueError, match=r"class_weight has labels that are not among the "
                                             r"classes \[-1, 1\]: \[7\]"):
            module.Perceptron(class_weight={7: 1.0}).partial_fit(X, y)


def test_class_weight_is_saved_and_loaded(tmp_path):
    X, y = real_stream(15, N, D)
    p = mbcore.Perceptron(class_weight={-1: 0.25, 1: 2.0}).partial_fit(X[:60], y[:60])
    p.save(tmp_path / "p.npz")
    q = mbcore.load(tmp_path / "p.npz")
    assert q.class_weight == {-1: 0.25, 1: 2.0}
    p.partial_fit(X[60:], y[60:])
    q.partial_fit(X[60:], y[60:])
    assert state(p) == state(q)


# ------------------------------------------------------------------------------------------------
# Bad weights: a clear error, the same from the twin, and the learner as it was
# ------------------------------------------------------------------------------------------------

BAD = [
    ([1.0, 1.0, -1.0, 1.0, 1.0], "must be non-negative, got -1.0 at row 2"),
    ([1.0, float("nan"), 1.0, 1.0, 1.0], "must be finite, got nan at row 1"),
    ([1.0, 1.0, 1.0, float("inf"), 1.0], "must be finite, got inf at row 3"),
    ([1.0, 1.0, 1.0, 1.0], "must be of length n_samples = 5, got 4 values"),
    (np.ones((5, 1)), r"must be 1-D \(one weight per row\), got an array of shape \(5, 1\)"),
    (["1", "1", "1", "1", "1"], "must be an array-like of real numbers, got '1' at row 0"),
    ("weights", "must be an array-like of real numbers, got 'weights'"),
    (-2.0, "must be non-negative, got -2.0 at row 0"),
]


@pytest.mark.parametrize("bad, msg", BAD, ids=[m[:24] for _, m in BAD])
@pytest.mark.parametrize("name", WEIGHTED)
def test_bad_weights_clear_error_and_learner_unchanged(name, bad, msg):
    X, y = real_stream(16, 40, 3)
    clf = getattr(mbcore, name)().partial_fit(X[:35], y[:35])
    before = state(clf)
    with pytest.raises(ValueError, match=f"^{name}: parameter sample_weight " + msg):
        clf.partial_fit(X[35:], y[35:], sample_weight=bad)
    assert state(clf) == before
    with pytest.raises(ValueError, match=f"^{name}: parameter sample_weight " + msg):
        mbcore.run_online(clf, X[35:], y[35:], sample_weight=bad)
    assert state(clf) == before
    twin = getattr(mbref, name)().partial_fit(X[:35].tolist(), y[:35].tolist())
    with pytest.raises(ValueError) as got:
        twin.partial_fit(X[35:].tolist(), y[35:].tolist(), sample_weight=bad)
    with pytest.raises(ValueError) as want:
        clf.partial_fit(X[35:], y[35:], sample_weight=bad)
    assert str(got.value) == str(want.value)
    assert state(twin) == before
    fresh = getattr(mbcore, name)()
    with pytest.raises(ValueError, match=msg):
        fresh.fit(X[:5], y[:5], sample_weight=bad)
    assert not fresh._is_fitted()


@pytest.mark.parametrize("name", WEIGHTED)
def test_fit_refuses_all_zero_weights(name):
    X, y = real_stream(17, 10, 3)
    for module in (mbcore, mbref):
        with pytest.raises(ValueError, match=f"^{name}: parameter sample_weight must give fit "
                                             "at least one non-zero weight"):
            getattr(module, name)().fit(X, y, sample_weight=np.zeros(10))
    p = getattr(mbcore, name)().partial_fit(X, y, sample_weight=np.zeros(10))   # a batch may
    assert p.updates_ == 0 and p.mistakes_ > 0                                   # weigh nothing


def test_weights_are_never_modified_nor_kept():
    X, y = real_stream(18, N, D)
    sw = weights(18, N)
    sw0 = sw.copy()
    ro = sw.copy()
    ro.flags.writeable = False
    p = mbcore.Perceptron().partial_fit(X, y, sample_weight=sw)
    q = mbcore.Perceptron().partial_fit(X, y, sample_weight=ro)
    lst = sw.tolist()
    r = mbcore.Perceptron().partial_fit(X, y, sample_weight=lst)
    assert np.array_equal(sw, sw0) and lst == sw0.tolist()
    assert state(p) == state(q) == state(r)
    sw[:] = 0.0                                     # (nothing of it is kept by the learner)
    assert all(v is not sw for v in vars(p).values())


# ------------------------------------------------------------------------------------------------
# The learners whose rule has no weighted form refuse weights (None is accepted)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", REFUSING)
def test_refused_with_the_reason_and_none_accepted(name):
    from _learner_data import data
    cls = getattr(mbcore, name)
    params = cls._unit_test_params()[0]
    X, y, kw = data(cls)
    clf = cls(**params).partial_fit(X[:30], y[:30], **kw_rows(kw, 0, 30))
    before = (clf.n_seen_, clf.mistakes_)
    sw = np.ones(len(y) - 30)
    for call in (lambda: clf.partial_fit(X[30:], y[30:], sample_weight=sw, **kw_rows(kw, 30)),
                 lambda: clf.fit(X, y, sample_weight=np.ones(len(y)), **kw),
                 lambda: mbcore.run_online(clf, X[30:], y[30:], sample_weight=sw,
                                           **kw_rows(kw, 30))):
        with pytest.raises(TypeError, match=f"^{name}: sample_weight is not supported: .*"
                                            "no weighted form"):
            call()
        assert (clf.n_seen_, clf.mistakes_) == before
    clf.partial_fit(X[30:], y[30:], sample_weight=None, **kw_rows(kw, 30))
    assert clf.n_seen_ == len(y)
    twin_cls = getattr(mbref, name)
    twin = twin_cls(**params)
    with pytest.raises(TypeError) as got:
        twin.partial_fit(as_rows(X), as_list(y), sample_weight=as_list(np.ones(len(y))),
                         **{k: as_rows(v) for k, v in kw.items()})
    with pytest.raises(TypeError) as want:
        cls(**params).partial_fit(X, y, sample_weight=np.ones(len(y)), **kw)
    assert str(got.value) == str(want.value)


def kw_rows(kw, a, b=None):
    return {k: v[a:b] for k, v in kw.items()}


def as_rows(X):
    return X.tolist() if isinstance(X, np.ndarray) else X
