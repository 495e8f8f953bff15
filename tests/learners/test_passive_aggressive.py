"""PassiveAggressive (Crammer, Dekel, Keshet, Shalev-Shwartz & Singer 2006): the rules by hand,
scikit-learn's PA-I / PA-II on a9a, the twin, the bounds and certify, threads, persistence,
Dask mixing and the command line.

The learner was added through the registry alone; these tests check that every place that
serves every learner (certify, persistence, the command line, Dask mixing) found it.
"""

import math
import warnings

import numpy as np
import pytest

import mbcore
import mbref
from mbcore import PassiveAggressive, bounds
from mbcore.datasets import load_a9a, load_mnist, load_mushrooms

VARIANTS = ("PA", "PA-I", "PA-II")


# -- the rules, by hand (every value below is worked out from the update rule) -----------------

def test_pa_golden_two_rows():
    # w = 0, x1 = (1, 1), y = +1: loss 1, ||x||^2 = 2, tau = 1/2 -> w = (0.5, 0.5), margin 1
    # x2 = (2, 0), y = -1: s = 1 (a mistake), loss 2, ||x||^2 = 4, tau = 1/2 -> w = (-0.5, 0.5)
    # x3 = (0, 4), y = +1: s = 2 >= 1: passive
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(variant="PA")
        run = mod.run_online(pa, [[1.0, 1.0], [2.0, 0.0], [0.0, 4.0]], [1, -1, 1])
        assert list(run.predictions) == [-1, 1, 1]
        assert list(pa.coef_) == [-0.5, 0.5]
        assert (pa.mistakes_, pa.updates_, pa.n_seen_) == (2, 2, 3)


def test_pa1_caps_the_step_at_C():
    # C = 1/4: tau = min(1/4, 1/2) = 1/4 -> w = (0.25, 0.25); x2: s = 0.5, loss 1.5,
    # loss/||x||^2 = 3/8 -> tau = 1/4 -> w = (0.25 - 0.5, 0.25)
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(C=0.25, variant="PA-I")
        pa.partial_fit([[1.0, 1.0], [2.0, 0.0]], [1, -1])
        assert list(pa.coef_) == [-0.25, 0.25]
        assert pa.updates_ == 2


def test_pa2_adds_one_over_2C_to_the_norm():
    # C = 1/2: 1/(2C) = 1.  x1 = (1, 1, 1): tau = 1/(3 + 1) -> w = 1/4 each;
    # x2 = (1, 0, 0), y = -1: s = 1/4, loss 5/4, tau = (5/4)/(1 + 1) = 5/8 -> w0 = 1/4 - 5/8
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(C=0.5, variant="PA-II")
        pa.partial_fit([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]], [1, -1])
        assert list(pa.coef_) == [-0.375, 0.25, 0.25]


def test_the_intercept_is_a_coordinate_of_x():
    # x' = (1, 0, 0, 1): ||x'||^2 = 2, tau = 1/2 -> w = (0.5, 0, 0), b = 0.5
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(variant="PA", fit_intercept=True)
        pa.partial_fit([[1.0, 0.0, 0.0]], [1], classes=[-1, 1])
        assert list(pa.coef_) == [0.5, 0.0, 0.0] and pa.intercept_ == 0.5


def test_a_zero_row():
    # PA and PA-I cannot step on x = 0 (loss 1, ||x||^2 = 0): a mistake, no update.  PA-II's
    # denominator is 1/(2C) > 0: it takes the step tau = 1, which leaves w = 0 as it is.
    for mod in (mbcore, mbref):
        for variant, updates in (("PA", 0), ("PA-I", 0), ("PA-II", 1)):
            pa = mod.PassiveAggressive(variant=variant, C=0.5)
            pa.partial_fit([[0.0, 0.0]], [1], classes=[-1, 1])
            assert (pa.mistakes_, pa.updates_) == (1, updates), variant
            assert list(pa.coef_) == [0.0, 0.0]


def test_multiclass_kesler_step():
    # K = 3, W = 0, x = (1, 0), y = 2: all scores 0, prediction 0 (smallest index), rival r = 0,
    # loss 1, ||z||^2 = 2 ||x||^2 = 2, tau = 1/2: w_2 += x/2, w_0 -= x/2.
    # x = (0, 1), y = 1: scores 0 (x's coordinate 1 is 0 in every w), prediction 0, r = 0:
    # w_1 += x/2, w_0 -= x/2.
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(variant="PA")
        run = mod.run_online(pa, [[1.0, 0.0], [0.0, 1.0]], [2, 1], classes=[0, 1, 2])
        assert list(run.predictions) == [0, 0]
        assert np.asarray(pa.coef_).tolist() == [[-0.5, -0.5], [0.0, 0.5], [0.5, 0.0]]


def test_one_vs_rest_step():
    # every learner k has loss 1 at w = 0 and ||x||^2 = 1: tau = 1, w_k = y_k x
    for mod in (mbcore, mbref):
        pa = mod.PassiveAggressive(variant="PA", multi_class="ovr")
        pa.partial_fit([[1.0, 0.0]], [2], classes=[0, 1, 2])
        assert np.asarray(pa.coef_).tolist() == [[-1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]]
        assert (pa.mistakes_, pa.updates_) == (1, 1)


def test_fit_stops_when_every_row_has_margin_one():
    X, y = load_mushrooms()                       # separable
    pa = PassiveAggressive(variant="PA").fit(X, y)
    assert pa.converged_
    margins = y * (X @ pa.coef_)
    assert margins.min() >= 1.0 - 1e-12


# -- scikit-learn's PA-I and PA-II ----------------------------------------------------------------

def _sklearn_pa(C, variant, **kw):
    lm = pytest.importorskip("sklearn.linear_model")
    loss = "hinge" if variant == "PA-I" else "squared_hinge"
    if hasattr(lm, "PassiveAggressiveClassifier"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return lm.PassiveAggressiveClassifier(C=C, loss=loss, fit_intercept=False,
                                                  shuffle=False, max_iter=1, tol=None, **kw)
    # (removed in scikit-learn 1.10: its replacement runs the same steps)
    return lm.SGDClassifier(loss="hinge", penalty=None, eta0=C, fit_intercept=False,
                            learning_rate="pa1" if variant == "PA-I" else "pa2", shuffle=False,
                            max_iter=1, tol=None, **kw)


def _fit_sklearn(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # (the deprecation, and one epoch's convergence)
        return est.fit(X, y)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("variant, C", [("PA-I", 1.0), ("PA-I", 0.01), ("PA-II", 0.1)])
def test_equals_scikit_learn_on_a9a(variant, C, sparse):
    """One pass over a9a (32,561 rows): the weights equal scikit-learn's to rounding (its dot
    products sum left to right, ours in four partial sums), and so do the predictions."""
    X, y = load_a9a()
    if sparse:
        sp = pytest.importorskip("scipy.sparse")
        X = sp.csr_matrix(X)
    sk = _fit_sklearn(_sklearn_pa(C, variant), X, y)
    ours = PassiveAggressive(C=C, variant=variant).partial_fit(X, y)
    ref = sk.coef_.ravel()
    assert np.max(np.abs(ours.coef_ - ref)) <= 1e-12 * max(1.0, np.max(np.abs(ref)))
    assert np.array_equal(ours.predict(X), sk.predict(X))
    assert ours.updates_ > ours.mistakes_ > 0         # (updates on margin violations too)


def test_equals_scikit_learn_one_vs_rest_on_mnist():
    """Ten classes: scikit-learn runs one binary PA-I per class, as multi_class="ovr" does."""
    X, y = load_mnist()
    sk = _fit_sklearn(_sklearn_pa(0.1, "PA-I"), X, y)
    ours = PassiveAggressive(C=0.1, multi_class="ovr").partial_fit(X, y)
    ref = sk.coef_
    assert np.max(np.abs(ours.coef_ - ref)) <= 1e-11 * max(1.0, np.max(np.abs(ref)))
    assert np.array_equal(ours.predict(X), sk.predict(X))


# -- the twin ---------------------------------------------------------------------------------

def _stream(seed, n, d, K=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    if K == 2:
        y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    else:
        y = np.argmax(X @ rng.standard_normal((d, K)) + 0.3 * rng.standard_normal((n, K)),
                      axis=1)
    return X, y


@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("params", [{}, {"variant": "PA", "fit_intercept": True},
                                    {"variant": "PA-II", "C": 0.2, "tie": "positive"},
                                    {"C": 0.02, "multi_class": "ovr"}])
@pytest.mark.parametrize("layout", ["dense64", "dense32", "csr"])
def test_twin_agrees_bit_for_bit(params, K, layout):
    X, y = _stream(7 + K, 400, 9, K)
    Xin = X.astype(np.float32) if layout == "dense32" else X
    if layout == "csr":
        sp = pytest.importorskip("scipy.sparse")
        Xin = sp.csr_matrix(X)
    a = PassiveAggressive(**params).partial_fit(Xin, y)
    b = mbref.PassiveAggressive(**params)
    b.partial_fit(Xin if layout == "csr" else Xin.astype(np.float64).tolist(), y.tolist())
    assert np.asarray(a.coef_).tolist() == np.asarray(b.coef_).tolist()
    assert (a.mistakes_, a.updates_) == (b.mistakes_, b.updates_)
    assert np.asarray(a.intercept_).tolist() == np.asarray(b.intercept_).tolist()


@pytest.mark.parametrize("K", [2, 5])
def test_any_number_of_threads_gives_the_sequential_pass(K):
    """The exact parallel pass: rows ahead are judged (a positive hinge loss stops the block)
    from the current weights; the result is the one-thread pass."""
    X, y = _stream(3, 30_000, 40, K)
    one = PassiveAggressive(C=0.1, n_jobs=1).partial_fit(X, y)
    for n_jobs in (2, 4):
        many = PassiveAggressive(C=0.1, n_jobs=n_jobs).partial_fit(X, y)
        assert np.array_equal(many.coef_, one.coef_)
        assert (many.mistakes_, many.updates_) == (one.mistakes_, one.updates_)


# -- bounds and certify -------------------------------------------------------------------------

def test_bound_function_by_hand():
    # R = 2, ||u|| = 3: PA 36; PA-I C = 0.1: max(4, 10) (9 + 2 * 0.1 * 5) = 100;
    # PA-II C = 0.5: (4 + 1) (9 + 2 * 0.5 * 2) = 55
    assert bounds.passive_aggressive_bound(2.0, 3.0, "PA") == 36.0
    assert bounds.passive_aggressive_bound(2.0, 3.0, "PA-I", C=0.1, loss=5.0) == \
        pytest.approx(100.0)
    assert bounds.passive_aggressive_bound(2.0, 3.0, "PA-II", C=0.5, loss=2.0) == 55.0
    for bad in ({"variant": "PA-III"}, {"C": 0.0}, {"loss": -1.0}, {"variant": "PA", "loss": 1.0}):
        with pytest.raises(ValueError, match="passive_aggressive_bound"):
            bounds.passive_aggressive_bound(1.0, 1.0, **bad)


def _separable(seed, n, d, gamma, K=2):
    """Rows in the unit ball with margin >= gamma for a unit u (K = 2) or a unit-Frobenius U."""
    rng = np.random.default_rng(seed)
    if K == 2:
        u = rng.standard_normal(d)
        u /= np.linalg.norm(u)
        X = rng.uniform(-1, 1, (4 * n, d)) / math.sqrt(d)
        s = X @ u
        keep = np.abs(s) >= gamma
        return X[keep][:n], np.where(s[keep][:n] > 0, 1, -1)
    U = rng.standard_normal((K, d))
    U /= np.linalg.norm(U)
    X = rng.uniform(-1, 1, (20 * n, d)) / math.sqrt(d)
    S = X @ U.T
    top = np.sort(S, axis=1)
    keep = top[:, -1] - top[:, -2] >= gamma
    return X[keep][:n], np.argmax(S[keep][:n], axis=1)


@pytest.mark.parametrize("variant, C", [("PA", 1.0), ("PA-I", 0.05), ("PA-I", 10.0),
                                        ("PA-II", 0.05), ("PA-II", 10.0)])
def test_certify_gives_the_papers_bound_and_it_holds(variant, C):
    X, y = _separable(11, 2000, 6, 0.05)
    cert = mbcore.certify(PassiveAggressive(C=C, variant=variant), X, y, passes=3)
    assert cert.verified and cert.holds
    assert variant in cert.bound_name and "Crammer" in cert.source
    R, g = cert.quantities["R"], cert.quantities["gamma"]
    assert cert.bound == bounds.passive_aggressive_bound(R, 1.0 / g, variant, C)
    assert cert.observed == cert.run.mistakes <= cert.bound


def test_certify_with_three_classes():
    """Crammer et al.'s multi-class rule: the binary bound on Kesler's vectors (2R^2); one-vs-rest:
    the sum of the binary bounds, one per class."""
    X, y = _separable(5, 600, 4, 0.08, K=3)
    cert = mbcore.certify(PassiveAggressive(C=1.0), X, y, passes=2)
    assert cert.verified and cert.holds, cert.summary()
    R, g = cert.quantities["R"], cert.quantities["gamma"]
    assert "Kesler" in cert.bound_name and g > 0
    assert cert.bound == pytest.approx(
        bounds.passive_aggressive_bound(math.sqrt(2) * R, 1 / g, "PA-I", 1.0), rel=1e-14)
    # one-vs-rest, with a margin taken on trust for every class
    cert = mbcore.certify(PassiveAggressive(C=0.5, variant="PA-II", multi_class="ovr"), X, y,
                          gamma=0.05)
    R = cert.quantities["R"]
    assert cert.bound_name.startswith("one-vs-rest: sum of PA-II")
    assert cert.bound == pytest.approx(
        3 * bounds.passive_aggressive_bound(R, 1 / 0.05, "PA-II", 0.5), rel=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_mistakes_within_the_bound_on_separable_streams(seed):
    """On data with margin gamma in the ball of radius R, no variant passes the paper's bound,
    with many passes (fit until clean)."""
    X, y = _separable(seed, 500, 5, 0.1)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    for variant in VARIANTS:
        for C in (0.01, 1.0, 100.0):
            pa = PassiveAggressive(C=C, variant=variant, max_epochs=50).fit(X, y)
            assert pa.mistakes_ <= bounds.passive_aggressive_bound(R, 1 / 0.1, variant, C)


# -- the places that serve every learner found it ---------------------------------------------

def test_save_load_continues_exactly(tmp_path):
    X, y = _stream(1, 600, 8, 3)
    a = PassiveAggressive(variant="PA-II", C=0.3, fit_intercept=True).partial_fit(X[:300], y[:300])
    path = tmp_path / "pa.npz"
    a.save(path)
    b = mbcore.load(path)
    assert type(b) is PassiveAggressive and b.get_params() == a.get_params()
    a.partial_fit(X[300:], y[300:])
    b.partial_fit(X[300:], y[300:])
    assert np.array_equal(a.coef_, b.coef_) and a.updates_ == b.updates_


def test_dask_mixing_of_one_shard_is_fit():
    pytest.importorskip("dask.array", reason="mbcore.distributed needs Dask")
    distributed = pytest.importorskip("distributed", reason="mbcore.distributed needs Dask")
    import dask.array as da
    from mbcore.distributed import ipm_fit
    X, y = _separable(2, 400, 5, 0.1)
    serial = PassiveAggressive(C=0.5, max_epochs=20).fit(X, y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        res = ipm_fit(PassiveAggressive(C=0.5, max_epochs=20), da.from_array(X, chunks=(-1, -1)),
                      da.from_array(y, chunks=-1))
        two = ipm_fit(PassiveAggressive(C=0.5, max_epochs=20), [X[::2], X[1::2]],
                      [y[::2], y[1::2]])
    assert np.array_equal(res.learner.coef_, serial.coef_)
    assert res.total_updates == serial.updates_
    assert two.n_shards == 2 and two.learner.score(X, y) > 0.9


def test_command_line_trains_and_predicts(tmp_path, capsys):
    from mbcore import cli
    X, y = load_a9a()
    path = tmp_path / "a9a.svm"
    with open(path, "w") as f:
        for row, label in zip(X[:3000], y[:3000]):
            f.write(f"{label:+d} " + " ".join(f"{j + 1}:1" for j in np.flatnonzero(row)) + "\n")
    model = tmp_path / "pa.npz"
    assert cli.main(["train", "--learner", "passiveaggressive", "--param", "variant=PA-II",
                     "--param", "C=0.5", "--n-features", "123", "--data", str(path),
                     "--model", str(model)]) == 0
    clf = mbcore.load(model)
    assert clf.get_params()["variant"] == "PA-II" and clf.C == 0.5
    sp = pytest.importorskip("scipy.sparse")
    # (a file is read as CSR rows: the sums run over each row's non-zeros, as in memory)
    ref = PassiveAggressive(variant="PA-II", C=0.5).partial_fit(sp.csr_matrix(X[:3000]),
                                                                y[:3000])
    assert np.array_equal(clf.coef_, ref.coef_)
    out = tmp_path / "pred.txt"
    assert cli.main(["predict", "--model", str(model), "--data", str(path), "--out",
                     str(out)]) == 0
    pred = np.loadtxt(out)
    assert np.array_equal(pred, ref.predict(X[:3000]))
