"""mbcore.explain: the score of an additive learner split exactly over the features and (with
record_updates=True) over the training examples; the twin mbref.explain gives the same parts."""

import copy
import json
import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbref.explain import explain as ref_explain

from conftest import DuckCSR

ADDITIVE = ["Perceptron", "AveragedPerceptron", "MarginPerceptron", "OnlineHingeSVM",
            "PassiveAggressive"]
# the rules that stay integer on integer data (eta=1, no normalisation): their sums are exact
INTEGER_RULE = ["Perceptron"]


def _stream(n=120, d=7, K=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    if K == 2:
        y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + rng.integers(-1, 2, n) > 0, 1, -1)
    else:
        y = rng.integers(0, K, n)
    return X, y


def _forms(X, dtype, sparse):
    A = X.astype(dtype)
    return sp.csr_matrix(A) if sparse else A


# -- the feature parts -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("icpt", [False, True])
def test_feature_parts_add_up(name, K, sparse, dtype, icpt):
    X, y = _stream(K=K)
    clf = getattr(mbcore, name)(fit_intercept=icpt).partial_fit(_forms(X, dtype, sparse), y)
    for i in (0, 17, 99):
        e = mbcore.explain(clf, _forms(X[i:i + 1], dtype, sparse))
        df = clf.decision_function(X[i:i + 1])[0]
        # the parts are the weights times the row (an independent product here)
        W = np.atleast_2d(clf.coef_)
        np.testing.assert_array_equal(np.asarray(e.feature_parts).reshape(X.shape[1], -1),
                                      (W * X[i]).T)
        assert np.all(e.score == df)
        assert e.check(), e.bounds()
        if name in INTEGER_RULE:
            assert np.all(e.feature_score() == df)


def test_perceptron_golden_features():
    # w after the stream of test_golden_record below is (0, 2, 1) + intercept 0: worked by hand
    X = np.array([[1.0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 2, 0]])
    y = np.array([-1, 1, 1, 1])
    clf = mbcore.Perceptron().partial_fit(X, y)
    e = mbcore.explain(clf, np.array([2.0, 1.0, -3.0]))
    # row 0: score 0 -> -1, correct (tie negative); row 1: 0 -> -1, mistake: w = (0, 1, 1);
    # row 2: 1 -> +1; row 3: 2 -> +1
    np.testing.assert_array_equal(clf.coef_, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(e.feature_parts, [0.0, 1.0, -3.0])
    assert e.score == -2.0 and e.feature_score() == -2.0 and e.prediction == -1
    assert [f for f, _, _ in e.top_features(2)] == [2, 1]
    assert e.top_features(1)[0][2] == pytest.approx(1.5)     # -3 / -2


def test_feature_names_and_dict():
    pd = pytest.importorskip("pandas")
    X, y = _stream()
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    clf = mbcore.Perceptron().fit(df, y)
    e = mbcore.explain(clf, X[3])
    assert e.feature_names == list(df.columns)
    assert all(isinstance(n, str) for n, _, _ in e.top_features(3))
    d = json.loads(json.dumps(e.to_dict()))
    assert d["learner"] == "Perceptron" and len(d["top_features"]) == 7
    assert d["top_features"][0][0] == e.top_features(1)[0][0]


# -- twin parity ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_twin_features(name, K, mc):
    X, y = _stream(K=K, seed=3)
    X = X * 0.37                                          # float data
    a = getattr(mbcore, name)(multi_class=mc, fit_intercept=True).partial_fit(X, y)
    b = getattr(mbref, name)(multi_class=mc, fit_intercept=True).partial_fit(X.tolist(),
                                                                            y.tolist())
    for i in (1, 50):
        ea, eb = mbcore.explain(a, X[i]), ref_explain(b, X[i].tolist())
        np.testing.assert_array_equal(np.asarray(ea.feature_parts), np.asarray(eb.feature_parts))
        np.testing.assert_array_equal(ea.intercept_part, eb.intercept_part)
        np.testing.assert_array_equal(ea.feature_score(), eb.feature_score())
        assert ea.bounds() == eb.bounds()


# -- errors ----------------------------------------------------------------------------------

def test_errors():
    X, y = _stream()
    with pytest.raises(mbcore.NotFittedError, match="Perceptron"):
        mbcore.explain(mbcore.Perceptron(), X[0])
    with pytest.raises(TypeError, match="SecondOrderPerceptron: this learner has no "
                                        "explanation"):
        mbcore.explain(mbcore.SecondOrderPerceptron().fit(X, y), X[0])
    clf = mbcore.Perceptron().fit(X, y)
    with pytest.raises(ValueError, match=r"Perceptron: parameter x must be one row of 7 "
                                         r"features .*got shape \(6,\)"):
        mbcore.explain(clf, X[0, :6])
    with pytest.raises(ValueError, match="Perceptron: parameter x contains NaN"):
        mbcore.explain(clf, np.full(7, np.nan))
    with pytest.raises(ValueError, match="Perceptron: parameter X_train was given, but the "
                                         "learner did not record"):
        mbcore.explain(clf, X[0], X_train=X)
    vote = mbcore.AveragedPerceptron(mode="vote").fit(X, y)
    with pytest.raises(ValueError, match="AveragedPerceptron: parameter mode is 'vote'"):
        mbcore.explain(vote, X[0])


# -- the record of updates and the example parts --------------------------------------------

def test_golden_record():
    # by hand: row 0 scores 0 -> -1 (right); row 1 scores 0 -> -1, y = +1: w = (0, 1, 1), an
    # update of +1 at example 1; row 2 scores 1 -> +1 (right); row 3 scores 2 -> +1, y = -1:
    # w = (-1, -1, 1), an update of -1 at example 3
    X = np.array([[1.0, 0, 1], [0, 1, 1], [1, 1, 0], [1, 2, 0]])
    y = np.array([-1, 1, 1, -1])
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    np.testing.assert_array_equal(clf._rec_idx, [1, 3])
    np.testing.assert_array_equal(clf._rec_coef, [1.0, -1.0])
    np.testing.assert_array_equal(clf.coef_, [-1.0, -1.0, 1.0])
    e = mbcore.explain(clf, np.array([2.0, 1.0, -3.0]), X_train=X)
    # <x_1, x> = 1 - 3 = -2; -<x_3, x> = -(2 + 2) = -4; w.x = -2 - 1 - 3 = -6
    np.testing.assert_array_equal(e.example_indices, [1, 3])
    np.testing.assert_array_equal(e.example_parts, [-2.0, -4.0])
    assert e.start_part == 0.0 and e.score == -6.0 and e.example_score() == -6.0
    assert e.top_examples(1) == [(3, -4.0, pytest.approx(4 / 6))]
    d = json.loads(json.dumps(e.to_dict()))
    assert d["top_examples"][0][:2] == [3, -4.0]


@pytest.mark.checked
@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_example_parts_add_up(name, K, mc, sparse, dtype):
    X, y = _stream(K=K, seed=1)
    Xf = _forms(X, dtype, sparse)
    clf = getattr(mbcore, name)(multi_class=mc, fit_intercept=True, record_updates=True)
    clf.partial_fit(Xf[:60], y[:60]).partial_fit(Xf[60:], y[60:])
    assert clf._rec_idx.shape[0] >= clf.updates_ > 0
    for i in (2, 77):
        e = mbcore.explain(clf, X[i], X_train=Xf)
        df = clf.decision_function(X[i:i + 1])[0]
        assert e.check(), e.bounds()
        if name in INTEGER_RULE:
            assert np.all(e.example_score() == df) and np.all(e.feature_score() == df)


def _dual_numpy(X, idx, coef, cls, K, x, icpt):
    """An independent dual sum: sum_j c_j (<x_j, x> + icpt), per class."""
    out = np.zeros(K)
    for t, (i, c) in enumerate(zip(idx, coef)):
        out[0 if cls is None else cls[t]] += c * (X[i] @ x + icpt)
    return out if cls is not None else out[0]


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_perceptron_record_is_the_dual_form(K, mc):
    # the recorded (index, coefficient, class) rebuild W exactly (integer data, eta = 1)
    X, y = _stream(K=K, seed=2)
    clf = mbcore.Perceptron(multi_class=mc, fit_intercept=True, record_updates=True)
    clf.partial_fit(X, y)
    cls = clf._rec_cls if K > 2 else None
    W = np.zeros((max(K, 1) if K > 2 else 1, X.shape[1] + 1))
    for t, (i, c) in enumerate(zip(clf._rec_idx, clf._rec_coef)):
        W[0 if cls is None else cls[t]] += c * np.append(X[i], 1.0)
    np.testing.assert_array_equal(W[:, :-1], np.atleast_2d(clf.coef_))
    np.testing.assert_array_equal(W[:, -1], np.atleast_1d(clf.intercept_))
    e = mbcore.explain(clf, X[5], X_train=X)
    np.testing.assert_array_equal(
        e.example_score(), _dual_numpy(X, clf._rec_idx, clf._rec_coef, cls, K, X[5], 1.0))
    if K > 2 and mc == "multiclass":      # Kesler: each update is two entries, +c and -c
        assert clf._rec_idx.shape[0] == 2 * clf.updates_


def test_float_data_bound():
    X, y = mbcore.datasets.load_a9a()
    X, y = X[:3000], y[:3000]
    for clf in (mbcore.Perceptron(normalize=True, record_updates=True),
                mbcore.PassiveAggressive(fit_intercept=True, record_updates=True),
                mbcore.OnlineHingeSVM(fit_intercept=True, record_updates=True),
                mbcore.OnlineHingeSVM(eta=0.1, lam=0.01, record_updates=True),
                mbcore.AveragedPerceptron(fit_intercept=True, record_updates=True),
                mbcore.MarginPerceptron(record_updates=True)):
        clf.fit(X, y) if not isinstance(clf, mbcore.OnlineHingeSVM) else clf.partial_fit(X, y)
        for i in (0, 1234):
            e = mbcore.explain(clf, X[i], X_train=X)
            b = e.bounds()
            assert e.check(), (type(clf).__name__, b)
            assert b["examples"][1] < 1e-6 * max(1.0, abs(e.score))   # (a bound that says something)


# -- the record is state --------------------------------------------------------------------

def _rec(clf):
    return [getattr(clf, k).copy() for k in clf._REC]


def _same_rec(a, b):
    return all(np.array_equal(u, v) for u, v in zip(_rec(a), _rec(b)))


@pytest.mark.parametrize("name", ADDITIVE)
def test_record_state(name, tmp_path):
    X, y = _stream(K=3, seed=4)
    one = getattr(mbcore, name)(record_updates=True).partial_fit(X, y)
    chunked = getattr(mbcore, name)(record_updates=True)
    for lo in range(0, X.shape[0], 25):
        chunked.partial_fit(X[lo:lo + 25], y[lo:lo + 25], classes=[0, 1, 2])
    assert _same_rec(one, chunked)
    assert _same_rec(one, copy.deepcopy(one))
    one.save(tmp_path / "m.npz")
    back = mbcore.load(tmp_path / "m.npz")
    assert _same_rec(one, back)
    e1, e2 = mbcore.explain(one, X[3], X_train=X), mbcore.explain(back, X[3], X_train=X)
    np.testing.assert_array_equal(e1.example_parts, e2.example_parts)
    # fit resets it (and maps its epochs to fit's rows)
    one.fit(X[:50], y[:50])
    assert one._rec_idx.shape[0] == 0 or one._rec_idx[0] < 50 * one.n_iter_
    e = mbcore.explain(one, X[3], X_train=X[:50])
    assert e.example_indices.max(initial=0) < 50 and e.check()
    # off: the record goes at the next pass; a file's record is checked on load
    one.set_params(record_updates=False).partial_fit(X[:5], y[:5])
    assert "_rec_idx" not in vars(one)


def test_record_switched_on_later():
    X, y = _stream(seed=5)
    clf = mbcore.Perceptron(fit_intercept=True).partial_fit(X[:70], y[:70])
    w_start = np.append(clf.coef_, clf.intercept_)
    clf.set_params(record_updates=True).partial_fit(X[70:], y[70:])
    np.testing.assert_array_equal(clf._rec_w0, w_start)
    assert clf._rec_idx.min(initial=70) >= 70
    e = mbcore.explain(clf, X[1], X_train=X)
    assert e.start_part == w_start[:-1] @ X[1] + w_start[-1]
    assert e.example_score() == clf.decision_function(X[1:2])[0]


def test_record_checked_on_load(tmp_path):
    X, y = _stream(seed=6)
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    clf._rec_idx = clf._rec_idx[::-1].copy()           # out of order: no run writes that
    clf.save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="Perceptron.*example indices are not in order"):
        mbcore.load(tmp_path / "bad.npz")


def test_record_errors():
    X, y = _stream(seed=7)
    clf = mbcore.Perceptron(record_updates=True).partial_fit(X, y)
    last = int(clf._rec_idx.max())
    with pytest.raises(ValueError, match=rf"Perceptron: parameter X_train has 10 rows, but the "
                                         rf"record of updates names row {last}"):
        mbcore.explain(clf, X[0], X_train=X[:10])
    with pytest.raises(ValueError, match=r"Perceptron: parameter X_train must have shape "
                                         r"\(n_rows, 7\)"):
        mbcore.explain(clf, X[0], X_train=X[:, :5])


# -- twin parity of the record and the example parts ------------------------------------------

@pytest.mark.checked
@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
def test_twin_record(name, K, mc):
    X, y = _stream(K=K, seed=8)
    X = X * 0.37
    kw = dict(multi_class=mc, fit_intercept=True, record_updates=True)
    a = getattr(mbcore, name)(**kw).partial_fit(X[:50], y[:50]).partial_fit(X[50:], y[50:])
    b = getattr(mbref, name)(**kw)
    b.partial_fit(X[:50].tolist(), y[:50].tolist()).partial_fit(X[50:].tolist(), y[50:].tolist())
    r = b._rec
    key_a = sorted(zip(a._rec_idx.tolist(), (a._rec_cls.tolist() if K > 2 else [0] * len(
        a._rec_idx)), a._rec_coef.tolist()))
    key_b = sorted(zip(r["idx"], r["cls"] if K > 2 else [0] * len(r["idx"]), r["coef"]))
    assert key_a == key_b
    np.testing.assert_array_equal(a._rec_w0, r["w0"])
    for i in (0, 99):
        ea, eb = mbcore.explain(a, X[i], X_train=X), ref_explain(b, X[i].tolist(), X_train=X)
        assert ea.example_indices.tolist() == eb.example_indices
        np.testing.assert_array_equal(ea.example_parts, np.asarray(eb.example_parts))
        np.testing.assert_array_equal(ea.start_part, eb.start_part)
        assert ea.bounds() == eb.bounds()


# -- the parallel passes write the record of the sequential pass ---------------------------------

@pytest.mark.checked
@pytest.mark.sanitized
@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive", "MarginPerceptron",
                                  "AveragedPerceptron"])
@pytest.mark.parametrize("K", [2, 5])
@pytest.mark.parametrize("sparse", [False, True])
def test_parallel_passes_record_the_same(name, K, sparse, monkeypatch):
    import mbcore._threads as mthreads
    from mbcore._kernels import linear as kl, multiclass as kmc
    monkeypatch.setattr(mthreads, "SPEC_MIN_VALUES", 0)
    old = [(m, m.spec_tuning(0, 1, None, 7)) for m in (kl, kmc)]     # tiny blocks, short stretches
    old_work = kmc.mc_split_tuning(0)                                # K classes: split every row
    try:
        rng = np.random.default_rng(9)
        X = rng.integers(-2, 3, size=(400, 24)).astype(np.float64)
        # mostly right labels (long speculative runs), some noise (updates between them)
        y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1) if K == 2 else np.argmax(X[:, :K], axis=1)
        flip = rng.random(400) < 0.1
        y = np.where(flip, (rng.integers(0, K, 400) if K > 2 else -y), y)
        Xf = sp.csr_matrix(X) if sparse else X
        recs = []
        kmc.mc_split_stats(reset=True)
        for jobs in (1, 2, 3):
            clf = getattr(mbcore, name)(n_jobs=jobs, record_updates=True)
            clf.partial_fit(Xf, y)
            recs.append(clf)
        if K > 2 and not sparse and name == "Perceptron":    # (the deferred updates were met)
            assert kmc.mc_split_stats()[0] > 0
        for c in recs[1:]:
            assert _same_rec(recs[0], c)
            np.testing.assert_array_equal(c._w, recs[0]._w)
    finally:
        kmc.mc_split_tuning(old_work)
        for m, o in old:
            m.spec_tuning(*o)


# -- the record's buffer: seeded fuzz against the twin, and the kernels' length checks ----------

@pytest.mark.checked
@pytest.mark.sanitized
def test_fuzz_record_against_twin():
    rng = np.random.default_rng(10)
    for case in range(24):
        name = ADDITIVE[case % len(ADDITIVE)]
        K = (2, 3, 5)[case % 3]
        n, d = int(rng.integers(1, 40)), int(rng.integers(1, 9))
        X = rng.integers(-3, 4, size=(n, d)) * rng.choice([1.0, 0.5, 0.3], size=(n, d))
        X[rng.random((n, d)) < 0.4] = 0.0
        y = rng.integers(0, K, n) if K > 2 else rng.choice([-1, 1], n)
        kw = dict(fit_intercept=bool(case % 2), record_updates=True,
                  multi_class=("multiclass", "ovr")[(case // 2) % 2])
        sw = rng.choice([0.0, 0.5, 1.0, 2.0], n) if case % 4 == 3 else None
        cut = int(rng.integers(0, n + 1))
        a, b = getattr(mbcore, name)(**kw), getattr(mbref, name)(**kw)
        cl = list(range(K)) if K > 2 else [-1, 1]
        Xa = sp.csr_matrix(X) if case % 3 == 1 else X
        for lo, hi in ((0, cut), (cut, n)):
            if hi > lo:
                a.partial_fit(Xa[lo:hi], y[lo:hi], classes=cl,
                              sample_weight=None if sw is None else sw[lo:hi])
                # (CSR rows to both: their norms sum the stored values, in their order)
                b.partial_fit(Xa[lo:hi] if sp.issparse(Xa) else X[lo:hi].tolist(),
                              y[lo:hi].tolist(), classes=cl,
                              sample_weight=None if sw is None else sw[lo:hi].tolist())
        if not a._is_fitted():
            continue
        r = b._rec
        ka = sorted(zip(a._rec_idx.tolist(), a._rec_cls.tolist() if K > 2 else
                        [0] * a._rec_idx.shape[0], a._rec_coef.tolist()))
        kb = sorted(zip(r["idx"], r["cls"] if K > 2 else [0] * len(r["idx"]), r["coef"]))
        assert ka == kb, (case, name)
        e = mbcore.explain(a, X[0], X_train=Xa)
        assert e.check(), (case, name, e.bounds())


@pytest.mark.checked
@pytest.mark.sanitized
def test_kernel_buffer_lengths():
    from mbcore._kernels import linear as kl, multiclass as kmc
    X, y = _stream(K=3, seed=11)
    clf = mbcore.Perceptron().partial_fit(X, y)
    st = clf._state()
    yy = np.zeros(X.shape[0], dtype=np.int32)
    with pytest.raises(ValueError, match="coef must hold n \\* K values"):
        kmc.mc_pass(st, X, yy, None, np.zeros(X.shape[0], np.uint8), True, 1, None,
                    np.zeros(X.shape[0] * 3 - 1))
    b = mbcore.Perceptron().partial_fit(X, np.where(y > 0, 1, -1))
    with pytest.raises(ValueError, match="coef is shorter than X, or without upd"):
        kl.lin_pass(b._state(), X, np.ones(X.shape[0], np.int8), None,
                    np.zeros(X.shape[0], np.uint8), True, 1, None, np.zeros(X.shape[0] - 1))
    with pytest.raises(ValueError, match="coef is shorter than X, or without upd"):
        kl.lin_pass(b._state(), X, np.ones(X.shape[0], np.int8), None, None, True, 1, None,
                    np.zeros(X.shape[0]))


# -- the other entry points ------------------------------------------------------------------

def test_learn_one_records_as_partial_fit():
    # dict rows whose names appear as the stream goes (the state and the record's start widen)
    X, y = _stream(n=60, d=5, seed=12)
    a = mbcore.Perceptron(fit_intercept=True, record_updates=True)
    for i in range(X.shape[0]):
        a.learn_one({f"f{j}": X[i, j] for j in range(min(5, 2 + i // 10)) if X[i, j] != 0},
                    int(y[i]), classes=[-1, 1])
    Xw = np.zeros_like(X)
    for i in range(X.shape[0]):
        Xw[i, :min(5, 2 + i // 10)] = X[i, :min(5, 2 + i // 10)]
    # the names in order of appearance are f0, f1, ...: the columns of Xw
    assert a.feature_names_in_.tolist() == [f"f{j}" for j in range(5)]
    b = mbcore.Perceptron(fit_intercept=True, record_updates=True).partial_fit(Xw, y)
    assert _same_rec(a, b)           # (the start widened with the names: zeros)
    e = mbcore.explain(a, Xw[7], X_train=Xw)
    assert e.example_score() == e.score == b.decision_function(Xw[7:8])[0]


@pytest.mark.parametrize("lib", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_selective_sampling_refuses_the_record(lib):
    X, y = _stream(seed=13)
    s = lib.SelectiveSampler(lib.Perceptron(record_updates=True), random_state=1)
    with pytest.raises(ValueError, match="Perceptron: parameter record_updates is True, but "
                                         "selective sampling does not record"):
        s.run_online(X, y)
    with pytest.raises(Exception, match="partial_fit"):     # left as it was: nothing learned
        s.learner_


def test_fit_epochs_and_coef_init():
    # fit's epochs map to fit's rows (a row's updates in every epoch summed), from coef_init
    X, y = _stream(n=40, seed=14)
    w0 = np.arange(X.shape[1], dtype=np.float64) - 3.0
    clf = mbcore.Perceptron(fit_intercept=True, record_updates=True)
    clf.fit(X, y, coef_init=w0, intercept_init=2.0)
    assert clf.n_iter_ > 1 and clf._rec_idx.max() >= X.shape[0]       # (several epochs)
    e = mbcore.explain(clf, X[9], X_train=X)
    assert e.example_indices.max() < X.shape[0]
    assert e.start_part == w0 @ X[9] + 2.0
    assert e.example_score() == e.score == clf.decision_function(X[9:10])[0]
    # each row's part: its coefficients over the epochs times <x_j, x> + 1 (NumPy, here)
    rows = clf._rec_idx % X.shape[0]
    for r, part in zip(e.example_indices, e.example_parts):
        assert part == clf._rec_coef[rows == r].sum() * (X[r] @ X[9] + 1.0)


@pytest.mark.parametrize("eta", ["pegasos", 0.05])
def test_hinge_warm_start_dual_form(eta):
    # the record switched on after 30 rows: the start (a w at row 30) shrinks from there on
    X, y = _stream(n=90, seed=15)
    X = X * 0.5
    clf = mbcore.OnlineHingeSVM(eta=eta, lam=0.05, fit_intercept=True).partial_fit(X[:30], y[:30])
    clf.set_params(record_updates=True).partial_fit(X[30:], y[30:])
    assert clf._rec_t[0] == 30
    e = mbcore.explain(clf, X[4], X_train=X)
    assert e.check(), e.bounds()
    b = mbref.OnlineHingeSVM(eta=eta, lam=0.05, fit_intercept=True)
    b.partial_fit(X[:30].tolist(), y[:30].tolist())
    b.set_params(record_updates=True).partial_fit(X[30:].tolist(), y[30:].tolist())
    eb = ref_explain(b, X[4].tolist(), X_train=X)
    np.testing.assert_array_equal(e.example_parts, eb.example_parts)
    assert e.start_part == eb.start_part


@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize("K", [2, 4])
def test_twin_summaries(name, K):
    X, y = _stream(K=K, seed=16)
    X = X * 0.37
    kw = dict(fit_intercept=True, record_updates=True)
    a = getattr(mbcore, name)(**kw).partial_fit(X, y)
    b = getattr(mbref, name)(**kw).partial_fit(X.tolist(), y.tolist())
    ea, eb = mbcore.explain(a, X[3], X_train=X), ref_explain(b, X[3].tolist(), X_train=X)
    assert ea.top_features(4) == eb.top_features(4)
    assert ea.top_examples(4) == eb.top_examples(4)
    da, db = ea.to_dict(5), eb.to_dict(5)
    assert json.dumps(da, sort_keys=True) == json.dumps(db, sort_keys=True)


# -- the second-order learners whose score is w . x' + b: the feature parts ---------------------

SECOND_ORDER = ["AROW", "ConfidenceWeighted", "SCW", "NHERD"]


@pytest.mark.parametrize("name", SECOND_ORDER)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("mc", ["multiclass", "ovr"])
@pytest.mark.parametrize("sparse", [False, True])
def test_second_order_feature_parts(name, K, mc, sparse):
    X, y = _stream(K=K, seed=17)
    X = X * 0.37
    Xf = sp.csr_matrix(X) if sparse else X
    a = getattr(mbcore, name)(multi_class=mc, fit_intercept=True).partial_fit(Xf, y)
    b = getattr(mbref, name)(multi_class=mc, fit_intercept=True).partial_fit(
        Xf if sparse else X.tolist(), y.tolist())
    for i in (0, 60):
        e = mbcore.explain(a, X[i])
        np.testing.assert_array_equal(np.asarray(e.feature_parts).reshape(X.shape[1], -1),
                                      (np.atleast_2d(a.coef_) * X[i]).T)
        assert e.check(), e.bounds()
        eb = ref_explain(b, X[i].tolist())
        np.testing.assert_array_equal(np.asarray(e.feature_parts), np.asarray(eb.feature_parts))
        assert e.bounds() == eb.bounds()
    with pytest.raises(ValueError, match=rf"{name}: parameter X_train was given, but {name} "
                                         "keeps no record of its updates"):
        mbcore.explain(a, X[0], X_train=X)


@pytest.mark.parametrize("name", ["SecondOrderPerceptron", "NAROW", "ALMA"])
def test_second_order_without_explanation(name):
    X, y = _stream(seed=18)
    for mod, ex in ((mbcore, mbcore.explain), (mbref, ref_explain)):
        clf = getattr(mod, name)().partial_fit(X if mod is mbcore else X.tolist(), y.tolist())
        with pytest.raises(TypeError, match=f"{name}: this learner has no explanation"):
            ex(clf, X[0] if mod is mbcore else X[0].tolist())


@pytest.mark.checked
@pytest.mark.parametrize("name", ADDITIVE)
def test_one_row_steps_record_as_the_pass(name):
    # partial_fit one dense float64 row at a time (the one-row kernel) and learn_one keep the
    # record of one pass over the rows
    X, y = _stream(n=80, seed=19)
    X = X * 0.5
    whole = getattr(mbcore, name)(fit_intercept=True, record_updates=True).partial_fit(X, y)
    rows = getattr(mbcore, name)(fit_intercept=True, record_updates=True)
    ones = getattr(mbcore, name)(fit_intercept=True, record_updates=True)
    for i in range(X.shape[0]):
        rows.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
        ones.learn_one({f"f{j}": X[i, j] for j in range(X.shape[1])}, int(y[i]),
                       classes=[-1, 1], features=[f"f{j}" for j in range(X.shape[1])]
                       if i == 0 else None)
    assert _same_rec(whole, rows) and _same_rec(whole, ones)
    assert rows.updates_ == whole.updates_ and rows._rec_idx.shape[0] == whole.updates_


# -- the record grows in amortized time (mbcore.base.append_record) ---------------------------

class _Holder:
    pass


def test_append_record_grows_in_place_and_doubles():
    from mbcore.base import append_record
    h = _Holder()
    h.r = np.zeros(0, dtype=np.int64)
    buffers = set()
    for i in range(5000):
        append_record(h, "r", [i])
        assert h.r.base is not None             # (a view of the growing buffer)
        buffers.add(id(h.r.base))
        assert not h.r.flags.writeable         # (a Snapshot keeps it by reference)
    assert h.r.tolist() == list(range(5000))
    assert len(buffers) <= 8                    # 64, 128, ..., doubled: not one copy per append


def test_append_record_never_writes_over_a_shared_or_restored_view():
    from mbcore.base import append_record
    a = _Holder()
    a.r = np.zeros(0)
    append_record(a, "r", [1.0, 2.0])
    b = _Holder()
    b.r = a.r                                   # two learners sharing one record (shallow copy)
    append_record(a, "r", [3.0])
    append_record(b, "r", [4.0])
    assert a.r.tolist() == [1.0, 2.0, 3.0] and b.r.tolist() == [1.0, 2.0, 4.0]
    old = a.r                                   # a Snapshot puts an older view back ...
    append_record(a, "r", [5.0])
    a.r = old
    append_record(a, "r", [6.0])                # ... and the next append leaves the other alone
    assert a.r.tolist() == [1.0, 2.0, 3.0, 6.0] and old.tolist() == [1.0, 2.0, 3.0]


def test_one_row_steps_record_in_amortized_time():
    # 3,000 one-row partial_fit calls with many updates: the record's buffer is reallocated a
    # logarithmic number of times, and a failed call leaves the record as it was
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 5))
    y = np.where(rng.normal(size=3000) > 0, 1, 0)
    clf = mbcore.Perceptron(record_updates=True)
    clf.partial_fit(X[:1], y[:1], classes=[0, 1])
    buffers = set()
    for i in range(1, 3000):
        clf.partial_fit(X[i:i + 1], y[i:i + 1])
        if clf._rec_idx.size:
            assert clf._rec_idx.base is not None and not clf._rec_idx.flags.writeable
            buffers.add(id(clf._rec_idx.base))
    assert clf.updates_ > 1000 and len(buffers) <= 8
    ref = mbcore.Perceptron(record_updates=True).partial_fit(X, y, classes=[0, 1])
    assert np.array_equal(clf._rec_idx, ref._rec_idx)
    assert np.array_equal(clf._rec_coef, ref._rec_coef)
    before = (clf._rec_idx.copy(), clf._rec_coef.copy())
    # a CSR batch whose row 40 has a column out of range: the pass stops there, after it
    # recorded updates of rows 0-39, and the call puts the record back as it was
    A = sp.csr_matrix(X[:50])
    indices = A.indices.copy()
    indices[A.indptr[41] - 1] = 99
    bad = DuckCSR(A.data, indices, A.indptr, A.shape)
    with pytest.raises(ValueError, match="row 40"):
        clf.partial_fit(bad, y[:50])
    assert np.array_equal(clf._rec_idx, before[0]) and np.array_equal(clf._rec_coef, before[1])
    clf.partial_fit(X[:4], y[:4])               # (and it goes on from there)
    ref.partial_fit(X[:4], y[:4])
    assert np.array_equal(clf._rec_idx, ref._rec_idx)
