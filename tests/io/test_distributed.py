"""mbcore.distributed: partitioned prediction and parameter mixing (McDonald, Hall & Mann 2010)
on a Dask cluster started in this process (no external service).

Skipped when the extra is not installed (pip install 'mbcore[dask]'; the test extra has it).
The cluster is a ``LocalCluster`` of 2 workers with one thread each, in this process
(``processes=False``: it starts in a fraction of a second and needs no spawning; the kernels
release the GIL, so the two workers do run in parallel).
"""

import copy
import doctest
import pickle

import numpy as np
import pytest

_REASON = "mbcore.distributed needs Dask: pip install 'mbcore[dask]' (the test extra installs it)"
dask = pytest.importorskip("dask", reason=_REASON)
da = pytest.importorskip("dask.array", reason=_REASON)
dd = pytest.importorskip("dask.dataframe", reason=_REASON)
distributed = pytest.importorskip("distributed", reason=_REASON)
pd = pytest.importorskip("pandas", reason=_REASON)
sp = pytest.importorskip("scipy.sparse")

import mbcore  # noqa: E402
import mbcore.distributed as mdist  # noqa: E402
from mbcore import bounds  # noqa: E402
from mbcore.distributed import (MixingResult, decision_function, ipm_fit,  # noqa: E402
                                one_shot_fit, predict)

from conftest import integer_stream, separable  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


# ------------------------------------------------------------------------------------------------
# data
# ------------------------------------------------------------------------------------------------

def boolean_disjunction(seed, n, d, k=3):
    """0/1 rows, y = OR of k relevant variables (a monotone disjunction: Winnow's target)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.15).astype(np.float64)
    rel = rng.choice(d, size=k, replace=False)
    y = (X[:, rel].sum(axis=1) > 0).astype(np.int64)
    return X, y


def boolean_conjunction(seed, n, d):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.7).astype(np.float64)
    y = (X[:, 0] * X[:, 2] > 0).astype(np.int64)
    return X, y


def advice(seed, n, m):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    P = np.where(rng.random((n, m)) < np.linspace(0.6, 0.95, m), y[:, None], 1 - y[:, None])
    return P.astype(np.int64), y


def assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes() if a.dtype.kind != "O" else a.tolist() == b.tolist()


def chunks_of(n, kind):
    if kind == "one":
        return (n,)
    if kind == "even":
        return tuple([n // 4] * 3 + [n - 3 * (n // 4)])
    # uneven, with a one-row block
    return (n // 2, 1, n // 3, n - n // 2 - 1 - n // 3)


# ------------------------------------------------------------------------------------------------
# partitioned prediction
# ------------------------------------------------------------------------------------------------

def fitted(name):
    """(learner, X) for every family with predict."""
    Xr, yr, _ = separable(3, 300, 6, 0.05)
    Xb, yb = boolean_disjunction(4, 300, 20)
    if name == "Perceptron":
        return mbcore.Perceptron().partial_fit(Xr, yr), Xr
    if name == "Perceptron-intercept":
        return mbcore.Perceptron(fit_intercept=True, normalize=True, tie="positive")\
            .partial_fit(Xr + 1.0, yr), Xr + 1.0
    if name == "Perceptron-strings":
        return mbcore.Perceptron().partial_fit(Xr, np.where(yr > 0, "yes", "no")), Xr
    if name == "AveragedPerceptron":
        return mbcore.AveragedPerceptron().partial_fit(Xr, yr), Xr
    if name == "AveragedPerceptron-vote":
        return mbcore.AveragedPerceptron(mode="vote").partial_fit(Xr, yr), Xr
    if name == "MarginPerceptron":
        return mbcore.MarginPerceptron(gamma=0.1).partial_fit(Xr, yr), Xr
    if name == "KernelPerceptron":
        return mbcore.KernelPerceptron(kernel="rbf").partial_fit(Xr, yr), Xr
    if name == "OnlineHingeSVM":
        return mbcore.OnlineHingeSVM(lam=0.01).partial_fit(Xr, yr), Xr
    if name == "Winnow":
        return mbcore.Winnow().partial_fit(Xb, yb), Xb
    if name == "Winnow-real":
        return mbcore.Winnow(features="real", alpha=1.5).partial_fit(Xb * 0.5, yb), Xb * 0.5
    if name == "EliminationWinnow":
        return mbcore.EliminationWinnow().partial_fit(Xb, yb), Xb
    if name == "WinnowStar":
        return mbcore.WinnowStar().partial_fit(Xb, yb), Xb
    if name == "BalancedWinnow":
        return mbcore.BalancedWinnow().partial_fit(Xb, yb), Xb
    if name == "Conjunction":
        Xc, yc = boolean_conjunction(5, 300, 12)
        return mbcore.Conjunction().partial_fit(Xc, yc), Xc
    if name == "DecisionList":
        Xc, yc = boolean_conjunction(6, 300, 12)
        return mbcore.DecisionList().partial_fit(Xc, yc), Xc
    if name == "WeightedMajority":
        P, yp = advice(7, 300, 9)
        return mbcore.WeightedMajority().partial_fit(P, yp), P
    if name == "WeightedMajority-multi":
        P, yp = advice(8, 300, 9)
        P[::7, 0] = 2
        yp[::11] = 2
        return mbcore.WeightedMajority().partial_fit(P, yp), P
    raise AssertionError(name)


FAMILIES = ["Perceptron", "Perceptron-intercept", "Perceptron-strings", "AveragedPerceptron",
            "AveragedPerceptron-vote", "MarginPerceptron", "KernelPerceptron", "OnlineHingeSVM",
            "Winnow", "Winnow-real", "EliminationWinnow", "WinnowStar", "BalancedWinnow",
            "Conjunction", "DecisionList", "WeightedMajority", "WeightedMajority-multi"]


@pytest.mark.parametrize("kind", ["one", "even", "uneven"])
@pytest.mark.parametrize("name", FAMILIES)
def test_predict_dense_equals_in_memory(client, name, kind):
    learner, X = fitted(name)
    dX = da.from_array(X, chunks=(chunks_of(X.shape[0], kind), -1))
    out = predict(learner, dX)
    assert isinstance(out, da.Array) and out.numblocks == (dX.numblocks[0],)
    assert_same(out.compute(), learner.predict(X))
    s = decision_function(learner, dX)
    assert s.numblocks[0] == dX.numblocks[0]
    assert_same(s.compute(), learner.decision_function(X))


@pytest.mark.parametrize("name", ["Perceptron", "AveragedPerceptron-vote", "MarginPerceptron",
                                  "KernelPerceptron", "OnlineHingeSVM", "Winnow",
                                  "BalancedWinnow", "Conjunction"])
def test_predict_sparse_blocks_equal_in_memory(client, name):
    learner, X = fitted(name)
    S = sp.csr_matrix(X)
    dS = da.from_array(S, chunks=(chunks_of(X.shape[0], "uneven"), -1), asarray=False)
    whole = dS.compute()
    assert sp.issparse(whole)
    assert_same(predict(learner, dS).compute(), learner.predict(whole))
    assert_same(decision_function(learner, dS).compute(), learner.decision_function(whole))


def test_predict_float32_and_unknown_chunk_sizes(client):
    learner, X = fitted("Perceptron")
    X32 = X.astype(np.float32)
    dX = da.from_array(X32, chunks=(70, -1))
    assert_same(predict(learner, dX).compute(), learner.predict(X32))
    keep = da.from_array(np.arange(X.shape[0]) % 3 != 0, chunks=70)
    filtered = da.from_array(X, chunks=(70, -1))[keep]          # row chunks of unknown size
    assert np.isnan(filtered.chunks[0][0])
    assert_same(predict(learner, filtered).compute(), learner.predict(X[np.arange(300) % 3 != 0]))


@pytest.mark.parametrize("name", ["Perceptron", "Winnow", "WeightedMajority",
                                  "Perceptron-strings"])
def test_predict_dataframe_equals_in_memory(client, name):
    learner, X = fitted(name)
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    for parts in (1, 3, 7):
        ddf = dd.from_pandas(df, npartitions=parts)
        out = predict(learner, ddf)
        assert isinstance(out, da.Array) and out.numblocks[0] == ddf.npartitions
        assert_same(out.compute(), learner.predict(ddf.compute()))
        assert_same(decision_function(learner, ddf).compute(),
                    learner.decision_function(ddf.compute()))


def test_predict_snapshots_the_learner_and_ships_it_once(client):
    learner, X = fitted("Perceptron")
    before = learner.decision_function(X)
    dX = da.from_array(X, chunks=(30, -1))                      # 10 blocks
    lazy = decision_function(learner, dX)
    w0 = learner.coef_.copy()
    learner.partial_fit(X[:1], -learner.predict(X[:1]))          # a mistake: w changes
    assert not np.array_equal(learner.coef_, w0)
    assert_same(lazy.compute(), before)                          # the snapshot's scores
    graph = dict(lazy.__dask_graph__())
    # One key holds the learner (as a data node, or the object itself in older graphs); the 10
    # block tasks refer to it by its key.
    holders = [k for k, v in graph.items()
               if isinstance(getattr(v, "value", v), mbcore.Perceptron)]
    assert len(holders) == 1
    tasks = [v for v in graph.values() if hasattr(v, "dependencies")]
    if tasks:
        assert sum(holders[0] in v.dependencies for v in tasks) == 10


def test_predict_one_dimensional_points(client):
    """A 1-D Dask array is mapped block by block (Halving on point indices)."""
    C = mbcore.ConceptClass.half_intervals(6)
    idx = np.arange(C.n_points)
    h = mbcore.Halving(C).partial_fit(idx[28:48], C.labels(37)[28:48])
    assert_same(predict(h, da.from_array(idx, chunks=17)).compute(), h.predict(idx))


def test_predict_without_a_cluster(monkeypatch):
    """No client: Dask's threaded scheduler, same results."""
    monkeypatch.setattr(distributed, "default_client", _no_client)
    learner, X = fitted("Winnow")
    dX = da.from_array(X, chunks=(64, -1))
    assert_same(predict(learner, dX).compute(scheduler="threads"), learner.predict(X))


def _no_client():
    raise ValueError("No clients found")


def test_predict_bad_input(client):
    learner, X = fitted("Perceptron")
    with pytest.raises(ValueError, match=r"mbcore\.distributed\.predict: parameter X has 2 chunks "
                                         r"along the columns.*rechunk"):
        predict(learner, da.from_array(X, chunks=(100, 3)))
    with pytest.raises(ValueError, match="Perceptron: X has 5 features, but Perceptron is "
                                         "expecting 6"):
        predict(learner, da.from_array(X[:, :5], chunks=(100, -1)))
    with pytest.raises(TypeError, match=r"mbcore\.distributed\.predict: parameter X must be a "
                                        r"dask\.array\.Array.*got ndarray.*learner\.predict"):
        predict(learner, X)
    with pytest.raises(mbcore.NotFittedError, match="Perceptron: call partial_fit or fit before "
                                                    "predict"):
        predict(mbcore.Perceptron(), da.from_array(X, chunks=(100, -1)))
    with pytest.raises(TypeError, match=r"mbcore\.distributed\.decision_function: parameter "
                                        r"learner must be an mbcore learner, got str"):
        decision_function("Perceptron", da.from_array(X, chunks=(100, -1)))
    P, yp = advice(1, 50, 4)
    rwm = mbcore.RandomizedWeightedMajority().partial_fit(P, yp)
    with pytest.raises(TypeError, match=r"mbcore\.distributed\.predict: parameter learner: "
                                        r"RandomizedWeightedMajority\.predict draws"):
        predict(rwm, da.from_array(P, chunks=(10, -1)))
    dP = da.from_array(P, chunks=(10, -1))                       # its shares are per row
    assert_same(decision_function(rwm, dP).compute(), rwm.decision_function(P))
    bad = X.copy()
    bad[250, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        predict(learner, da.from_array(bad, chunks=(100, -1))).compute()


# ------------------------------------------------------------------------------------------------
# IPM with one shard is serial training, exactly
# ------------------------------------------------------------------------------------------------

def serial_case(name):
    """(learner, X, y) for the one-shard equality."""
    Xr, yr, _ = separable(11, 400, 8, 0.02, scale="mixed")
    Xb, yb = boolean_disjunction(12, 400, 30)
    if name == "Perceptron":
        return mbcore.Perceptron(), Xr, yr
    if name == "Perceptron-options":
        return mbcore.Perceptron(fit_intercept=True, tie="positive", eta=0.5), Xr + 0.5, yr
    if name == "Perceptron-cycling":                       # not separable, integer data: cycles
        Xi, yi = integer_stream(13, 200, 5, noise=0.2)
        return mbcore.Perceptron(max_epochs=500), Xi, yi
    if name == "MarginPerceptron":
        return mbcore.MarginPerceptron(gamma=0.05), Xr, yr
    if name == "OnlineHingeSVM":
        return mbcore.OnlineHingeSVM(lam=0.001, max_epochs=4), Xr, yr
    if name == "OnlineHingeSVM-constant":
        return mbcore.OnlineHingeSVM(lam=0.01, eta=0.5, fit_intercept=True, max_epochs=3), Xr, yr
    if name == "Winnow":
        return mbcore.Winnow(), Xb, yb
    if name == "EliminationWinnow":
        return mbcore.EliminationWinnow(max_epochs=20), Xb, yb
    if name == "WinnowStar":
        return mbcore.WinnowStar(), Xb, yb
    if name == "BalancedWinnow":
        return mbcore.BalancedWinnow(max_epochs=30), Xb, 1 - yb
    if name == "Winnow-real":
        return mbcore.Winnow(features="real", alpha=1.5, max_epochs=30), Xb * 0.75, yb
    raise AssertionError(name)


SERIAL = ["Perceptron", "Perceptron-options", "Perceptron-cycling", "MarginPerceptron",
          "OnlineHingeSVM", "OnlineHingeSVM-constant", "Winnow", "EliminationWinnow",
          "WinnowStar", "BalancedWinnow", "Winnow-real"]


def fit_record(lrn):
    out = {k: getattr(lrn, k) for k in ("mistakes_", "updates_", "n_seen_", "converged_",
                                        "cycled_", "n_iter_", "epoch_mistakes_",
                                        "epoch_updates_", "max_epochs")}
    out["classes_"] = lrn.classes_.tolist()
    for k in ("coef_", "log2_coef_", "log2_coef_neg_"):
        if hasattr(type(lrn), k):
            out[k] = np.asarray(getattr(lrn, k)).tobytes()
    if hasattr(type(lrn), "intercept_"):
        out["intercept_"] = np.asarray(lrn.intercept_).tolist()     # (K >= 3: one per class)
    if hasattr(lrn, "_exact_mode"):
        out["_exact_mode"] = lrn._exact_mode
    return out


# (uniform mixing with one shard is a long run: one shard's weight is 1 either way)
@pytest.mark.parametrize("mixing", [pytest.param("uniform", marks=pytest.mark.longrun),
                                    "weighted"])
@pytest.mark.parametrize("name", SERIAL)
def test_ipm_with_one_shard_is_serial_fit(client, name, mixing):
    learner, X, y = serial_case(name)
    serial = copy.deepcopy(learner).fit(X, y)
    res = ipm_fit(learner, da.from_array(X, chunks=(-1, -1)), da.from_array(y, chunks=-1),
                  mixing=mixing)
    assert isinstance(res, MixingResult) and res.n_shards == 1
    assert type(res.learner) is type(learner)
    assert fit_record(res.learner) == fit_record(serial)
    assert res.epochs == serial.n_iter_ and res.converged == serial.converged_
    assert res.cycled == serial.cycled_
    assert res.updates[:, 0].tolist() == serial.epoch_updates_
    assert res.total_updates == serial.updates_
    assert_same(res.learner.predict(X), serial.predict(X))
    if name == "Perceptron-cycling":
        assert serial.cycled_                       # the case does exercise cycle detection
    # One-shot mixing of one shard is fit too; so is a list of one in-memory shard.
    assert fit_record(one_shot_fit(learner, [X], [y], mixing=mixing).learner) == \
        {**fit_record(serial), "converged_": False, "cycled_": False}
    assert fit_record(ipm_fit(learner, [X], [y], mixing=mixing).learner) == fit_record(serial)


def test_ipm_one_partition_dataframe_and_max_epochs(client):
    learner, X, y = serial_case("Perceptron")
    df = dd.from_pandas(pd.DataFrame(X), npartitions=1)
    ys = dd.from_pandas(pd.Series(y), npartitions=1)
    for epochs in (1, 2, 5):
        serial = mbcore.Perceptron(max_epochs=epochs).fit(X, y)
        res = ipm_fit(learner, df, ys, max_epochs=epochs)
        assert fit_record(res.learner) == {**fit_record(serial), "max_epochs": 100}


# ------------------------------------------------------------------------------------------------
# IPM with several shards: the mechanics, by hand and against a reference built on fit()
# ------------------------------------------------------------------------------------------------

def test_mixing_formulas_by_hand_perceptron(client):
    # Shard A: one update, w_A = (1, 0, 0).  Shard B: three updates,
    # (0,1,0)+ -> w = (0,1,0); (0,0,1)+ (w.x = 0, a mistake) -> (0,1,1); (1,-1,0)+ (w.x = -1)
    # -> w_B = (1, 0, 1).
    XA, yA = np.array([[1.0, 0, 0]]), np.array([1, -1])[:1]
    XB, yB = np.array([[0.0, 1, 0], [0, 0, 1], [1, -1, 0]]), np.array([1, 1, 1])
    cl = [-1, 1]
    uni = ipm_fit(mbcore.Perceptron(), [XA, XB], [yA, yB], max_epochs=1, classes=cl)
    assert uni.updates.tolist() == [[1, 3]] and uni.weights.tolist() == [[0.5, 0.5]]
    assert uni.learner.coef_.tolist() == [1.0, 0.0, 0.5]          # (w_A + w_B) / 2
    wei = ipm_fit(mbcore.Perceptron(), [XA, XB], [yA, yB], max_epochs=1, mixing="weighted",
                  classes=cl)
    assert wei.weights.tolist() == [[0.25, 0.75]]                   # mu_i = k_i / sum k
    assert wei.learner.coef_.tolist() == [1.0, 0.0, 0.75]         # (1 w_A + 3 w_B) / 4
    assert wei.mixed_updates == 0.25 * 1 + 0.75 * 3 and wei.total_updates == 4
    # Epoch 2 from (1, 0, 0.75): A is right; B errs on (0,1,0)+ (w.x = 0) -> (1,1,.75) and on
    # (1,-1,0)+ (w.x = 0) -> (2,0,.75): k = (0, 2), mu = (0, 1): the mixture is w_B exactly.
    # Epoch 3: B errs on (0,1,0)+ only -> (2,1,.75); epoch 4 is clean.
    two = ipm_fit(mbcore.Perceptron(), [XA, XB], [yA, yB], mixing="weighted", classes=cl)
    assert two.updates.tolist() == [[1, 3], [0, 2], [0, 1], [0, 0]]
    assert two.weights.tolist() == [[0.25, 0.75], [0, 1], [0, 1], [0.5, 0.5]]
    assert two.converged and two.epochs == 4
    assert two.learner.coef_.tolist() == [2.0, 1.0, 0.75]
    assert two.learner.epoch_updates_ == [4, 2, 1, 0] and two.learner.n_seen_ == 16


def reference_ipm(X_shards, y_shards, epochs, mixing):
    """IPM written with the public API: fit(coef_init=..., max_epochs=1) per shard, then the mix
    (sum_i c_i w_i) / sum_i c_i in shard order."""
    w = np.zeros(X_shards[0].shape[1])
    updates = []
    for _ in range(epochs):
        ws, ks = [], []
        for Xs, ys in zip(X_shards, y_shards):
            p = mbcore.Perceptron(max_epochs=1).fit(Xs, ys, classes=[-1, 1], coef_init=w)
            ws.append(p.coef_.copy())
            ks.append(p.updates_)
        updates.append(ks)
        c = ks if mixing == "weighted" and sum(ks) else [1] * len(ks)
        take = [i for i in range(len(c)) if c[i]]
        if all(ws[i].tobytes() == ws[take[0]].tobytes() for i in take):
            w = ws[take[0]]
        else:
            acc = None
            for i in take:
                v = ws[i] * float(c[i]) if c[i] != 1 else ws[i]
                acc = v if acc is None else acc + v
            w = acc / float(sum(c))
        if sum(ks) == 0:
            break
    return w, updates


@pytest.mark.parametrize("mixing", ["uniform", "weighted"])
@pytest.mark.parametrize("seed", [0, 1])
def test_ipm_matches_a_reference_built_on_fit(client, seed, mixing):
    X, y, _ = separable(20 + seed, 600, 10, 0.02)
    bounds_ = [0, 150, 170, 420, 600]
    Xs = [X[a:b] for a, b in zip(bounds_[:-1], bounds_[1:])]
    ys = [y[a:b] for a, b in zip(bounds_[:-1], bounds_[1:])]
    w, updates = reference_ipm(Xs, ys, 100, mixing)
    dX = da.from_array(X, chunks=(tuple(np.diff(bounds_)), -1))
    res = ipm_fit(mbcore.Perceptron(), dX, da.from_array(y, chunks=(tuple(np.diff(bounds_)),)),
                  mixing=mixing)
    assert res.learner.coef_.tobytes() == w.tobytes()
    assert res.updates.tolist() == updates
    assert res.shard_sizes == (150, 20, 250, 180)


def test_winnow_log_space_mixing_by_hand(client):
    # Winnow (theta = n = 4, alpha = 2).  Shard A: 1100 labelled 1 (sum 2 < 4: promote) ->
    # logs (1, 1, 0, 0).  Shard B: 1111 labelled 0 (sum 4 >= 4: demote all) -> (-1,-1,-1,-1);
    # 0011 labelled 1 (sum 1 < 4: promote) -> (-1, -1, 0, 0).
    XA, yA = np.array([[1, 1, 0, 0]], dtype=np.uint8), np.array([1])
    XB, yB = np.array([[1, 1, 1, 1], [0, 0, 1, 1]], dtype=np.uint8), np.array([0, 1])
    uni = ipm_fit(mbcore.Winnow(), [XA, XB], [yA, yB], max_epochs=1)
    assert uni.updates.tolist() == [[1, 2]]
    assert uni.learner.log2_coef_.tolist() == [0.0, 0.0, 0.0, 0.0]   # ((1,1,0,0)+(-1,-1,0,0))/2
    assert uni.learner._exact_mode                                   # integer logs: exact mode
    wei = ipm_fit(mbcore.Winnow(), [XA, XB], [yA, yB], max_epochs=1, mixing="weighted")
    third = (1.0 * 1 + 2.0 * -1) / 3                                 # mu = (1/3, 2/3)
    assert wei.learner.log2_coef_.tolist() == [third, third, 0.0, 0.0]
    assert wei.learner.coef_.tolist() == [2.0 ** third, 2.0 ** third, 1.0, 1.0]   # geometric mean
    assert not wei.learner._exact_mode                               # non-integer: float mode
    # The float-mode learner keeps learning: Sum w.x >= theta in float64, logs move by +-1.
    again = copy.deepcopy(wei.learner).partial_fit(np.array([[1, 1, 1, 0]], dtype=np.uint8), [1])
    assert again.log2_coef_.tolist() == [third + 1, third + 1, 1.0, 0.0]


def test_elimination_winnow_zero_weights_stay_eliminated(client):
    # theta = n/2 = 2.  Shard A: 1100 labelled 0 (sum 2 >= 2): eliminate x1, x2 (log -inf).
    # Shard B: 0010 labelled 1 (sum 1 < 2): promote x3.  Uniform log mixture:
    # (-inf, -inf, 1/2, 0): the geometric mean with a factor 0 is 0.
    XA, yA = np.array([[1, 1, 0, 0]], dtype=np.uint8), np.array([0])
    XB, yB = np.array([[0, 0, 1, 0]], dtype=np.uint8), np.array([1])
    res = ipm_fit(mbcore.EliminationWinnow(), [XA, XB], [yA, yB], max_epochs=1,
                  classes=[0, 1])
    assert res.learner.log2_coef_.tolist() == [-np.inf, -np.inf, 0.5, 0.0]
    assert res.learner.coef_.tolist() == [0.0, 0.0, 2.0 ** 0.5, 1.0]
    w = ipm_fit(mbcore.EliminationWinnow(), [XA, XB], [yA, yB], max_epochs=1,
                mixing="weighted", classes=[0, 1])
    assert w.learner.log2_coef_.tolist() == [-np.inf, -np.inf, 0.5, 0.0]    # (1, 1) updates


# ------------------------------------------------------------------------------------------------
# The guarantees (McDonald, Hall & Mann 2010, Theorem 3) and convergence => separation
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mixing", ["uniform", "weighted"])
@pytest.mark.parametrize("seed,n,d,gamma,shards", [(31, 400, 5, 0.1, 2), (32, 600, 10, 0.05, 3),
                                                   (33, 500, 8, 0.08, 4),
                                                   (34, 300, 20, 0.1, (37, 200, 63))])
def test_perceptron_ipm_bound_and_separation(client, seed, n, d, gamma, shards, mixing):
    X, y, _ = separable(seed, n, d, gamma, scale="mixed")
    R = bounds.radius(X)
    g = bounds.best_margin(X, y).gamma            # a certified lower bound on the best margin
    assert g > 0
    B = bounds.perceptron_bound(R, g)             # (R / gamma)^2
    ch = (shards,) if isinstance(shards, tuple) else \
        tuple(np.diff(np.linspace(0, n, shards + 1).astype(int)))
    ch = ch[0] if isinstance(ch[0], tuple) else ch
    res = ipm_fit(mbcore.Perceptron(max_epochs=10_000), da.from_array(X, chunks=(ch, -1)),
                  da.from_array(y, chunks=(ch,)), mixing=mixing)
    S = res.n_shards
    assert S == len(ch) and res.converged and not res.cycled
    # Theorem 3: the mixed updates sum_n sum_i mu_{i,n} k_{i,n} <= (R/gamma)^2.
    assert res.mixed_updates <= B
    if mixing == "uniform":
        assert res.total_updates <= S * B          # mu = 1/S
    else:
        assert res.epochs - 1 <= B                 # every epoch with updates adds >= 1
    # A clean epoch: every shard, from the mixed weights, predicted all of its rows right.
    assert res.updates[-1].sum() == 0
    clf = res.learner
    assert (clf.predict(X) == y).all() and bounds.margin(X, y, clf.coef_) > 0
    assert clf.converged_ and clf.n_iter_ == res.epochs and clf.updates_ == res.total_updates


def test_theorem_bounds_mixed_updates_not_the_total(client):
    """S copies of a sequence on which the Perceptron meets (R/gamma)^2 exactly: the unit
    vectors e_1..e_d, all positive (R = 1, gamma = 1/sqrt(d)).  Each shard makes d updates in
    the first epoch, so the total is S*d > (R/gamma)^2 = d, while sum mu k = d: the theorem's
    bound is tight and the total exceeds it."""
    d, S = 12, 3
    X, y = np.eye(d), np.ones(d, dtype=np.int64)
    for mixing in ("uniform", "weighted"):
        res = ipm_fit(mbcore.Perceptron(), [X] * S, [y] * S, mixing=mixing, classes=[-1, 1])
        assert res.updates.tolist() == [[d] * S, [0] * S]
        assert res.mixed_updates == d == pytest.approx(bounds.perceptron_bound(1.0, d ** -0.5))
        assert res.total_updates == S * d
        assert (res.learner.predict(X) == 1).all()


@pytest.mark.parametrize("mixing", ["uniform", "weighted"])
def test_margin_perceptron_and_winnow_ipm_converge_to_consistent_weights(client, mixing):
    X, y, _ = separable(41, 500, 6, 0.1)
    mp = ipm_fit(mbcore.MarginPerceptron(gamma=0.1, max_epochs=1000),
                 da.from_array(X, chunks=(125, -1)), da.from_array(y, chunks=125), mixing=mixing)
    assert mp.converged
    # No update from the mixed weights: every example has margin >= margin_fraction * gamma.
    assert (y * mp.learner.decision_function(X) >= 0.5 * 0.1).all()
    Xb, yb = boolean_disjunction(42, 800, 40)
    for learner in (mbcore.Winnow(max_epochs=1000), mbcore.EliminationWinnow(max_epochs=1000),
                    mbcore.WinnowStar(max_epochs=1000), mbcore.BalancedWinnow(max_epochs=1000)):
        res = ipm_fit(learner, da.from_array(Xb, chunks=(200, -1)), da.from_array(yb, chunks=200),
                      mixing=mixing)
        assert res.converged and (res.learner.predict(Xb) == yb).all()
    # The hinge SVM: no clean epoch is promised (every hinge-loss step counts), but the mixture
    # is a usable classifier.
    svm = ipm_fit(mbcore.OnlineHingeSVM(lam=0.001, max_epochs=10),
                  da.from_array(Xb, chunks=(200, -1)), da.from_array(yb, chunks=200),
                  mixing=mixing)
    assert svm.epochs == 10 and svm.learner.score(Xb, yb) > 0.95


def test_one_shot_mixing(client):
    X, y, _ = separable(51, 600, 8, 0.02)
    chunks = (200, 200, 200)
    dX, dy = da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=(chunks,))
    res = one_shot_fit(mbcore.Perceptron(), dX, dy)
    assert res.method == "one_shot" and res.converged and all(res.shard_converged)
    # each shard's own fit, mixed once, uniformly
    ws = [mbcore.Perceptron().fit(X[a:a + 200], y[a:a + 200]) for a in (0, 200, 400)]
    assert res.learner.coef_.tobytes() == ((ws[0].coef_ + ws[1].coef_ + ws[2].coef_) / 3)\
        .tobytes()
    assert res.updates.tolist() == [[w.updates_ for w in ws]]
    assert res.shard_epochs == tuple(w.n_iter_ for w in ws)
    assert not res.learner.converged_                # no pass was made with the mixed weights
    weighted = one_shot_fit(mbcore.Perceptron(), dX, dy, mixing="weighted")
    k = np.array([w.updates_ for w in ws], dtype=float)
    assert np.allclose(weighted.weights[0], k / k.sum())
    # The mixture may or may not separate the union (the paper's point): accuracy is reported,
    # not asserted; IPM on the same shards does separate it.
    assert 0.5 < res.learner.score(X, y) <= 1.0
    assert ipm_fit(mbcore.Perceptron(), dX, dy).learner.score(X, y) == 1.0


# ------------------------------------------------------------------------------------------------
# K >= 3 classes: the linear learners' weight matrix W (D x K, feature-major)
# ------------------------------------------------------------------------------------------------

def multiclass_separable(seed, n, d, K, gamma, scale=1.0):
    """n rows in R^d labelled argmax_k W*_k . x by a W* of unit Frobenius norm, with margin
    (w*_y - w*_y').x >= gamma ||x|| against every other class y'; returns X, y (0..K-1), W*.
    ``scale``: every row rescaled to that length (None: x ~ N(0, I))."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(K, d))
    W /= np.linalg.norm(W)
    rows = []
    while len(rows) < n:
        x = rng.normal(size=d)
        nx = np.linalg.norm(x)
        s = np.sort(W @ x)
        if nx > 0.0 and (s[-1] - s[-2]) / nx >= gamma:
            rows.append(x if scale is None else x / nx * scale)
    X = np.array(rows)
    return X, np.argmax(X @ W.T, axis=1), W


_LABELS4 = np.array([-3, 0, 5, 9])


def fitted_multiclass(name):
    """(learner, X) with K = 4 classes, trained online on noisy rows (a few all-zero rows at the
    end: every score ties, and the prediction is the smallest class)."""
    X, y, _ = multiclass_separable(5, 300, 7, 4, 0.05, scale=None)
    y = y.copy()
    y[::13] = (y[::13] + 1) % 4                               # not separable any more
    X[-5:] = 0.0
    lab = _LABELS4[y]
    if name == "Perceptron":
        return mbcore.Perceptron().partial_fit(X, lab), X
    if name == "Perceptron-intercept":
        return mbcore.Perceptron(fit_intercept=True, normalize=True, tie="positive")\
            .partial_fit(X + 1.0, lab), X + 1.0
    if name == "Perceptron-strings":
        return mbcore.Perceptron().partial_fit(X, np.array(["ant", "bee", "cat", "dog"])[y]), X
    if name == "Perceptron-ovr":
        return mbcore.Perceptron(multi_class="ovr").partial_fit(X, lab), X
    if name == "AveragedPerceptron":
        return mbcore.AveragedPerceptron(fit_intercept=True).partial_fit(X, lab), X
    if name == "MarginPerceptron":
        return mbcore.MarginPerceptron(gamma=0.1).partial_fit(X, lab), X
    if name == "MarginPerceptron-ovr":
        return mbcore.MarginPerceptron(gamma=0.1, multi_class="ovr").partial_fit(X, lab), X
    if name == "OnlineHingeSVM":
        return mbcore.OnlineHingeSVM(lam=0.01, fit_intercept=True).partial_fit(X, lab), X
    if name == "OnlineHingeSVM-ovr":
        return mbcore.OnlineHingeSVM(lam=0.01, normalize=True, multi_class="ovr")\
            .partial_fit(X, lab), X
    raise AssertionError(name)


MULTICLASS = ["Perceptron", "Perceptron-intercept", "Perceptron-strings", "Perceptron-ovr",
              "AveragedPerceptron", "MarginPerceptron", "MarginPerceptron-ovr", "OnlineHingeSVM",
              "OnlineHingeSVM-ovr"]


@pytest.mark.parametrize("name", MULTICLASS)
def test_multiclass_predict_equals_in_memory(client, name):
    learner, X = fitted_multiclass(name)
    assert learner.coef_.shape == (4, X.shape[1])
    scores = learner.decision_function(X)
    assert scores.shape == (X.shape[0], 4)
    if not learner.fit_intercept:
        assert (learner.predict(X[-5:]) == learner.classes_[0]).all()  # all ties: class 0
    for kind in ("one", "even", "uneven"):
        dX = da.from_array(X, chunks=(chunks_of(X.shape[0], kind), -1))
        out = predict(learner, dX)
        assert out.numblocks == (dX.numblocks[0],)
        assert_same(out.compute(), learner.predict(X))
        s = decision_function(learner, dX)
        assert s.shape == (X.shape[0], 4) and s.numblocks == (dX.numblocks[0], 1)
        assert_same(s.compute(), scores)
    # CSR blocks
    S = sp.csr_matrix(X)
    dS = da.from_array(S, chunks=(chunks_of(X.shape[0], "uneven"), -1), asarray=False)
    assert_same(predict(learner, dS).compute(), learner.predict(S))
    assert_same(decision_function(learner, dS).compute(), learner.decision_function(S))
    # DataFrame partitions
    ddf = dd.from_pandas(pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])]),
                         npartitions=3)
    s = decision_function(learner, ddf)
    assert s.ndim == 2 and s.numblocks[0] == 3
    assert_same(s.compute(), learner.decision_function(ddf.compute()))
    assert_same(predict(learner, ddf).compute(), learner.predict(ddf.compute()))


def multiclass_serial_case(name):
    """(learner, X, y) for the one-shard equality, K >= 3 classes; a shard of more than 64
    rows holding more than three labels (all must become classes)."""
    X, y, _ = multiclass_separable(14, 300, 6, 4, 0.05, scale=None)
    lab = _LABELS4[y]
    noisy = lab.copy()
    noisy[::9] = _LABELS4[(y[::9] + 1) % 4]
    if name == "Perceptron":
        return mbcore.Perceptron(), X, lab
    if name == "Perceptron-options":
        return mbcore.Perceptron(fit_intercept=True, tie="positive", eta=0.5), X + 0.5, lab
    if name == "Perceptron-strings-K3":
        return mbcore.Perceptron(max_epochs=20), X, np.array(["a", "b", "c", "b"])[y]
    if name == "Perceptron-noisy":
        return mbcore.Perceptron(max_epochs=15), X, noisy
    if name == "Perceptron-ovr":
        return mbcore.Perceptron(multi_class="ovr", max_epochs=10), X, noisy
    if name == "MarginPerceptron":
        return mbcore.MarginPerceptron(gamma=0.05, max_epochs=30), X, lab
    if name == "MarginPerceptron-ovr":
        return mbcore.MarginPerceptron(gamma=0.05, fit_intercept=True, multi_class="ovr",
                                       max_epochs=10), X, noisy
    if name == "OnlineHingeSVM":
        return mbcore.OnlineHingeSVM(lam=0.001, max_epochs=4), X, noisy
    if name == "OnlineHingeSVM-ovr-constant":
        return mbcore.OnlineHingeSVM(lam=0.01, eta=0.5, fit_intercept=True, multi_class="ovr",
                                     max_epochs=3), X, noisy
    raise AssertionError(name)


MULTICLASS_SERIAL = ["Perceptron", "Perceptron-options", "Perceptron-strings-K3",
                     "Perceptron-noisy", "Perceptron-ovr", "MarginPerceptron",
                     "MarginPerceptron-ovr", "OnlineHingeSVM", "OnlineHingeSVM-ovr-constant"]


def raw_state(lrn):
    """The whole weight state, bytes: W, the accumulator, and _aux (scale, norms)."""
    return (lrn._w.tobytes(), lrn._u.tobytes(), lrn._aux.tobytes())


# (uniform mixing with one shard is a long run: one shard's weight is 1 either way)
@pytest.mark.parametrize("mixing", [pytest.param("uniform", marks=pytest.mark.longrun),
                                    "weighted"])
@pytest.mark.parametrize("name", MULTICLASS_SERIAL)
def test_multiclass_ipm_with_one_shard_is_serial_fit(client, name, mixing):
    learner, X, y = multiclass_serial_case(name)
    serial = copy.deepcopy(learner).fit(X, y)
    assert serial.coef_.shape[0] == len(serial.classes_) >= 3
    res = ipm_fit(learner, da.from_array(X, chunks=(-1, -1)), da.from_array(y, chunks=-1),
                  mixing=mixing)
    assert res.n_shards == 1
    assert fit_record(res.learner) == fit_record(serial)
    assert raw_state(res.learner) == raw_state(serial)
    assert res.learner.classes_.dtype == serial.classes_.dtype
    assert res.updates[:, 0].tolist() == serial.epoch_updates_
    assert_same(res.learner.decision_function(X), serial.decision_function(X))
    assert_same(res.learner.predict(X), serial.predict(X))
    one = one_shot_fit(learner, [X], [y], mixing=mixing).learner
    assert fit_record(one) == {**fit_record(serial), "converged_": False, "cycled_": False}
    assert raw_state(one) == raw_state(serial)
    # classes= naming a class that no row has: K = 5, as fit(classes=...) does
    cl = sorted(set(serial.classes_.tolist()) | {"zz" if y.dtype.kind == "U" else 99})
    serial5 = copy.deepcopy(learner).fit(X, y, classes=cl)
    res5 = ipm_fit(learner, [X], [y], mixing=mixing, classes=cl)
    assert res5.learner.coef_.shape[0] == len(cl)
    assert fit_record(res5.learner) == fit_record(serial5)
    assert raw_state(res5.learner) == raw_state(serial5)


def reference_ipm_multiclass(make, X_shards, y_shards, classes, epochs, mixing):
    """IPM with K classes written with the public API: fit(coef_init=W, intercept_init=b,
    max_epochs=1, classes=...) per shard, then (sum_i c_i W_i) / sum_i c_i in shard order."""
    K, d = len(classes), X_shards[0].shape[1]
    W, b = np.zeros((K, d)), np.zeros(K)
    updates = []
    for _ in range(epochs):
        outs = [make(max_epochs=1).fit(Xs, ys, classes=classes, coef_init=W, intercept_init=b)
                for Xs, ys in zip(X_shards, y_shards)]
        ks = [o.updates_ for o in outs]
        updates.append(ks)
        c = ks if mixing == "weighted" and sum(ks) else [1] * len(ks)
        take = [i for i in range(len(c)) if c[i]]
        ws = [(o.coef_, np.asarray(o.intercept_)) for o in outs]
        if all(ws[i][0].tobytes() == ws[take[0]][0].tobytes() and
               ws[i][1].tobytes() == ws[take[0]][1].tobytes() for i in take):
            W, b = ws[take[0]]
        else:
            accW = accb = None
            for i in take:
                w, bi = (ws[i][0] * float(c[i]), ws[i][1] * float(c[i])) if c[i] != 1 else ws[i]
                accW = w if accW is None else accW + w
                accb = bi if accb is None else accb + bi
            W, b = accW / float(sum(c)), accb / float(sum(c))
        if sum(ks) == 0:
            break
    return W, b, updates


@pytest.mark.parametrize("mixing", ["uniform", "weighted"])
@pytest.mark.parametrize("name", ["Perceptron", "Perceptron-intercept", "MarginPerceptron",
                                  "MarginPerceptron-ovr"])
def test_multiclass_ipm_matches_a_reference_built_on_fit(client, name, mixing, tmp_path):
    """Three shards sorted by label, so every shard lacks some class (shard 0 holds class 0
    only): the classes are the union over the shards, known to every shard; the mixed W (and,
    for the Margin Perceptron, the norms it keeps in _aux) are those of fit(coef_init=W)."""
    X, y, _ = multiclass_separable(24, 450, 5, 4, 0.05)
    order = np.argsort(y, kind="stable")
    X, y = X[order], _LABELS4[y[order]]
    cuts = [0, int((y == _LABELS4[0]).sum()), 300, 450]
    Xs = [X[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ys = [y[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    assert [len(set(v.tolist())) for v in ys][0] == 1 and all(len(set(v.tolist())) < 4
                                                              for v in ys)
    make, epochs = {
        "Perceptron": (lambda **k: mbcore.Perceptron(**k), 100),
        "Perceptron-intercept": (lambda **k: mbcore.Perceptron(fit_intercept=True, **k), 100),
        "MarginPerceptron": (lambda **k: mbcore.MarginPerceptron(gamma=0.05, **k), 20),
        "MarginPerceptron-ovr": (lambda **k: mbcore.MarginPerceptron(
            gamma=0.05, multi_class="ovr", fit_intercept=True, **k), 8)}[name]
    W, b, updates = reference_ipm_multiclass(make, Xs, ys, _LABELS4.tolist(), epochs, mixing)
    ch = tuple(np.diff(cuts))
    res = ipm_fit(make(max_epochs=epochs), da.from_array(X, chunks=(ch, -1)),
                  da.from_array(y, chunks=(ch,)), mixing=mixing)
    clf = res.learner
    assert clf.classes_.tolist() == _LABELS4.tolist() and res.shard_sizes == ch
    assert res.updates.tolist() == updates
    assert clf.coef_.tobytes() == W.tobytes() and clf.intercept_.tobytes() == b.tobytes()
    if name.startswith("Perceptron"):
        assert res.converged and (clf.predict(X) == y).all()
    else:
        # ||W||_F^2 and every ||w_k||^2 recomputed from the mixed W, as the learner computes
        # them (a loaded state is checked against exactly these)
        assert clf._aux[0] == 1.0
        assert clf._aux[1:].tolist() == [float(v) for v in clf._norms(clf._w, clf._d)]
        clf.save(tmp_path / "m.npz")
        back = mbcore.load(tmp_path / "m.npz")
        assert raw_state(back) == raw_state(clf)
        assert_same(back.partial_fit(X, y).coef_, copy.deepcopy(clf).partial_fit(X, y).coef_)


@pytest.mark.parametrize("mixing", ["uniform", "weighted"])
@pytest.mark.parametrize("seed,n,d,K,gamma,shards", [(35, 450, 5, 3, 0.1, 2),
                                                     (36, 600, 8, 3, 0.08, 3),
                                                     (37, 500, 6, 3, 0.1, (300, 17, 183))])
def test_multiclass_perceptron_ipm_converges_and_separates(client, seed, n, d, K, gamma,
                                                           shards, mixing):
    """The multi-class Perceptron is McDonald et al.'s structured Perceptron with
    Phi(x, y) = x in block y: Theorem 3 bounds the mixed updates by (R/gamma)^2 with
    R = max ||Phi(x, y) - Phi(x, y')|| = sqrt(2) max ||x||, gamma the margin of a W* of unit
    Frobenius norm; convergence means every training row is classified right."""
    X, y, Wstar = multiclass_separable(seed, n, d, K, gamma, scale=None)
    s = X @ Wstar.T
    top = s[np.arange(n), y]
    s[np.arange(n), y] = -np.inf
    g = float((top - s.max(axis=1)).min())
    assert g > 0
    B = 2.0 * float((X * X).sum(axis=1).max()) / g ** 2
    ch = shards if isinstance(shards, tuple) else \
        tuple(np.diff(np.linspace(0, n, shards + 1).astype(int)))
    labels = np.array(["red", "green", "blue"])[y]
    res = ipm_fit(mbcore.Perceptron(max_epochs=10_000), da.from_array(X, chunks=(ch, -1)),
                  da.from_array(labels, chunks=(ch,)), mixing=mixing)
    clf = res.learner
    assert res.n_shards == len(ch) and res.converged and not res.cycled
    assert res.updates[-1].sum() == 0 and res.mixed_updates <= B
    assert clf.classes_.tolist() == ["blue", "green", "red"] and clf.coef_.shape == (K, d)
    assert (clf.predict(X) == labels).all() and clf.score(X, labels) == 1.0
    assert clf.converged_ and clf.n_iter_ == res.epochs and clf.updates_ == res.total_updates
    # partitioned prediction of the result
    dX = da.from_array(X, chunks=(ch, -1))
    assert_same(predict(clf, dX).compute(), labels)


def test_multiclass_mixing_by_hand(client):
    """One epoch on two shards, each missing a class: W is mixed entrywise (uniform: the mean;
    weighted: by updates); the hinge SVM mixes its effective weights a.V (scale reset to 1);
    one-shot mixing averages each shard's own fit."""
    # K = 3, d = 2.  Shard A: (1,0) class 0 (tie 0 = 0 = 0 -> class 0: right), (0,1) class 1
    # (scores 0, ties -> 0: wrong; w_1 += x, w_0 -= x).  Shard B: (1,0) class 2 (ties -> 0:
    # wrong; w_2 += x, w_0 -= x).
    XA, yA = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])
    XB, yB = np.array([[1.0, 0.0]]), np.array([2])
    uni = ipm_fit(mbcore.Perceptron(), [XA, XB], [yA, yB], max_epochs=1)
    assert uni.updates.tolist() == [[1, 1]]
    assert uni.learner.classes_.tolist() == [0, 1, 2]
    WA = np.array([[0.0, -1.0], [0.0, 1.0], [0.0, 0.0]])
    WB = np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
    assert uni.learner.coef_.tolist() == ((WA + WB) / 2).tolist()
    XB2, yB2 = np.vstack([XB, [[0.0, 1.0]]]), np.array([2, 2])   # B: two updates
    wei = ipm_fit(mbcore.Perceptron(), [XA, XB2], [yA, yB2], max_epochs=1, mixing="weighted")
    assert wei.updates.tolist() == [[1, 2]] and wei.weights.tolist() == [[1 / 3, 2 / 3]]
    WB2 = np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]])
    assert wei.learner.coef_.tobytes() == ((WA + 2.0 * WB2) / 3).tobytes()
    # The Margin Perceptron's norms follow the mixed W.
    mp = ipm_fit(mbcore.MarginPerceptron(), [XA, XB], [yA, yB], max_epochs=1).learner
    W = mp.coef_
    assert mp._aux.tolist() == [1.0, float((W ** 2).sum())] + (W ** 2).sum(axis=1).tolist()
    # The hinge SVM: effective weights mixed, the scale reset to 1.
    X, y, _ = multiclass_separable(91, 120, 4, 3, 0.1)
    ys = [y[:40], y[40:]]
    ys[0] = np.where(ys[0] == 2, 1, ys[0])                 # shard 0 has no class 2
    Xs = [X[:40], X[40:]]
    svm = mbcore.OnlineHingeSVM(lam=0.05, max_epochs=1)
    own = [copy.deepcopy(svm).fit(a, b, classes=[0, 1, 2]) for a, b in zip(Xs, ys)]
    assert all(o._aux[0] != 1.0 for o in own)             # stored as a.V
    res = ipm_fit(svm, Xs, ys, max_epochs=1)
    assert res.learner._aux[0] == 1.0
    assert res.learner.coef_.tobytes() == ((own[0].coef_ + own[1].coef_) / 2).tobytes()
    shot = one_shot_fit(mbcore.Perceptron(), Xs, ys)
    per = [mbcore.Perceptron().fit(a, b, classes=[0, 1, 2]) for a, b in zip(Xs, ys)]
    assert shot.learner.coef_.tobytes() == ((per[0].coef_ + per[1].coef_) / 2).tobytes()
    assert shot.updates.tolist() == [[p.updates_ for p in per]]


# ------------------------------------------------------------------------------------------------
# scheduling does not change the result; the learner and the input are not modified
# ------------------------------------------------------------------------------------------------

def test_same_result_with_the_threaded_scheduler(client, monkeypatch):
    X, y, _ = separable(61, 400, 6, 0.05)
    Xb, yb = boolean_disjunction(62, 400, 25)
    Xm, ym, _ = multiclass_separable(63, 400, 6, 3, 0.1)
    cases = [(mbcore.Perceptron(), X, y), (mbcore.Winnow(), Xb, yb),
             (mbcore.OnlineHingeSVM(lam=0.01), X, y), (mbcore.Perceptron(), Xm, ym),
             (mbcore.MarginPerceptron(gamma=0.1, max_epochs=30), Xm, ym)]
    with_cluster = [ipm_fit(lrn, da.from_array(A, chunks=(100, -1)),
                            da.from_array(b, chunks=100), mixing="weighted")
                    for lrn, A, b in cases]
    monkeypatch.setattr(distributed, "default_client", _no_client)
    assert isinstance(mdist._runner("f", None), mdist._Local)
    for (lrn, A, b), ref in zip(cases, with_cluster):
        loc = ipm_fit(lrn, da.from_array(A, chunks=(100, -1)), da.from_array(b, chunks=100),
                      mixing="weighted")
        assert fit_record(loc.learner) == fit_record(ref.learner)
        assert loc.updates.tolist() == ref.updates.tolist()


def test_learner_and_input_are_not_modified(client):
    X, y, _ = separable(71, 300, 5, 0.05)
    learner = mbcore.Perceptron(max_epochs=7).fit(X[:50], y[:50])
    state = pickle.dumps(learner)
    Xs, ys = [X[:150].copy(), X[150:].copy()], [y[:150].copy(), y[150:].copy()]
    keep = [a.copy() for a in Xs + ys]
    res = ipm_fit(learner, Xs, ys)
    one_shot_fit(learner, Xs, ys)
    predict(learner, da.from_array(X, chunks=(100, -1))).compute()
    assert pickle.dumps(learner) == state
    assert all(a.tobytes() == b.tobytes() for a, b in zip(Xs + ys, keep))
    assert res.learner is not learner and res.learner.max_epochs == 7
    # The result is an ordinary learner: it pickles, saves and goes on learning.
    again = pickle.loads(pickle.dumps(res.learner))
    assert again.coef_.tobytes() == res.learner.coef_.tobytes()
    assert_same(again.partial_fit(X, y).coef_, res.learner.partial_fit(X, y).coef_)


def test_empty_shards_are_left_out(client):
    X, y, _ = separable(82, 300, 5, 0.05)
    ch = (0, 100, 0, 150, 50)
    res = ipm_fit(mbcore.Perceptron(), da.from_array(X, chunks=(ch, -1)),
                  da.from_array(y, chunks=(ch,)))
    ref = ipm_fit(mbcore.Perceptron(), [X[:100], X[100:250], X[250:]],
                  [y[:100], y[100:250], y[250:]])
    assert res.shard_sizes == (100, 150, 50) and res.updates.tolist() == ref.updates.tolist()
    assert res.learner.coef_.tobytes() == ref.learner.coef_.tobytes()
    with pytest.raises(ValueError, match=r"mbcore\.distributed\.ipm_fit: parameter X has no rows"):
        ipm_fit(mbcore.Perceptron(), [X[:0]], [y[:0]], classes=[-1, 1])


def test_save_and_load_a_float_mode_winnow_mixture(client, tmp_path):
    XA, yA = np.array([[1, 1, 0, 0]], dtype=np.uint8), np.array([1])
    XB, yB = np.array([[1, 1, 1, 1], [0, 0, 1, 1]], dtype=np.uint8), np.array([0, 1])
    lrn = ipm_fit(mbcore.Winnow(), [XA, XB], [yA, yB], max_epochs=1, mixing="weighted").learner
    assert not lrn._exact_mode
    lrn.save(tmp_path / "w.npz")
    back = mbcore.load(tmp_path / "w.npz")
    assert back.log2_coef_.tobytes() == lrn.log2_coef_.tobytes() and not back._exact_mode


def test_sparse_and_dataframe_shards(client):
    X, y, _ = separable(81, 400, 12, 0.03)
    X[np.abs(X) < 0.5] = 0.0                       # sparse rows (still separable by sign(u.x))
    y = np.where(X @ separable(81, 1, 12, 0.03)[2] > 0, 1, -1)
    dense = ipm_fit(mbcore.Perceptron(), da.from_array(X, chunks=(100, -1)),
                    da.from_array(y, chunks=100))
    S = sp.csr_matrix(X)
    sparse = ipm_fit(mbcore.Perceptron(), da.from_array(S, chunks=(100, -1), asarray=False),
                     da.from_array(y, chunks=100))
    assert sparse.converged and (sparse.learner.predict(S) == y).all()
    assert sparse.updates.shape[1] == 4
    frame = ipm_fit(mbcore.Perceptron(), dd.from_pandas(pd.DataFrame(X), npartitions=4),
                    dd.from_pandas(pd.Series(y), npartitions=4))
    assert frame.converged and (frame.learner.predict(X) == y).all()
    assert dense.converged and frame.n_shards == 4
    # In-memory y is chunked like X.
    assert ipm_fit(mbcore.Perceptron(), da.from_array(X, chunks=(100, -1)), y).updates.tolist()\
        == dense.updates.tolist()


# ------------------------------------------------------------------------------------------------
# bad input: clear errors naming the function and the parameter
# ------------------------------------------------------------------------------------------------

def test_bad_input(client):
    X, y, _ = separable(91, 200, 4, 0.05)
    dX, dy = da.from_array(X, chunks=(50, -1)), da.from_array(y, chunks=50)
    P = mbcore.Perceptron()
    for f in (ipm_fit, one_shot_fit):
        name = f"mbcore\\.distributed\\.{f.__name__}"
        with pytest.raises(ValueError, match=name + r": parameter mixing must be one of "
                                                    r"\['uniform', 'weighted'\], got 'mean'"):
            f(P, dX, dy, mixing="mean")
        with pytest.raises(TypeError, match=name + r": parameter X must be a Dask array.*got "
                                                   r"ndarray; X is one in-memory array"):
            f(P, X, y)
        with pytest.raises(ValueError, match=name + r": parameters X and y must be chunked "
                                                    r"alike.*y\.rechunk"):
            f(P, dX, da.from_array(y, chunks=60))
        with pytest.raises(ValueError, match=name + r": parameter X has 2 chunks along the "
                                                    r"columns"):
            f(P, da.from_array(X, chunks=(50, 2)), dy)
        for bad in (mbcore.AveragedPerceptron(), mbcore.KernelPerceptron(),
                    mbcore.WeightedMajority(), mbcore.Conjunction(), "Perceptron"):
            with pytest.raises(TypeError, match=name + r": parameter learner"):
                f(bad, dX, dy)
        with pytest.raises(ValueError, match=name + r": parameter max_epochs must be an integer "
                                                    r">= 1 or None"):
            f(P, dX, dy, max_epochs=0)
        with pytest.raises(TypeError, match=name + r": parameter y is required"):
            f(P, dX)
        with pytest.raises(ValueError, match=name + r": parameter y must be a list of label "
                                                    r"arrays, one per shard"):
            f(P, [X[:100], X[100:]], [y])
        with pytest.raises(TypeError, match=name + r": parameter client must be a "
                                                   r"dask\.distributed\.Client"):
            f(P, dX, dy, client="tcp://localhost:8786")
    with pytest.raises(TypeError, match="AveragedPerceptron is not supported \\(its hypothesis"):
        ipm_fit(mbcore.AveragedPerceptron(), dX, dy)
    # The learner's own checks, with the shard named.
    with pytest.raises(ValueError, match="Perceptron: parameter eta must be a finite real > 0"):
        ipm_fit(mbcore.Perceptron(eta=-1.0), dX, dy)
    bad = X.copy()
    bad[120, 2] = np.inf
    with pytest.raises(ValueError, match=r"Perceptron: .*row 20.*\(in shard 2, whose first row is "
                                         r"row 100 of X\)"):
        ipm_fit(P, da.from_array(bad, chunks=(50, -1)), dy)
    # Three labels: the union of the shards' labels, checked by the learner's own rule: the
    # learners that mix take K >= 3 classes, but not a regression target.
    y3 = da.from_array(np.arange(200) % 3, chunks=50)
    with pytest.raises(ValueError, match="Winnow: y looks continuous"):
        ipm_fit(mbcore.Winnow(), dX, da.from_array(np.arange(200) % 3 + 0.5, chunks=50))
    assert ipm_fit(P, dX, y3, max_epochs=2).learner.classes_.tolist() == [0, 1, 2]
    y3[120:121] = 7                                # (only shard 2 has a label outside)
    with pytest.raises(ValueError, match=r"Perceptron: y has the label 7, outside the fitted "
                                         r"classes \[0, 1, 2\] \(in shard 2, whose first row "
                                         r"is row 100 of X\)"):
        ipm_fit(P, dX, y3, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"Winnow: X must be Boolean"):
        ipm_fit(mbcore.Winnow(), dX, da.from_array((y > 0).astype(int), chunks=50))


def test_module_doctests(client):
    res = doctest.testmod(mdist, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0


def test_import_mbcore_does_not_import_dask():
    from conftest import run_isolated
    code, out, err = run_isolated("import sys, mbcore, mbcore.distributed\n"
                                  "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                                  "('dask', 'distributed')))")
    assert code == 0 and out.strip() == "[]", err


def test_clear_import_error_without_dask():
    from conftest import run_isolated
    code, out, err = run_isolated("""
        import sys
        sys.modules["dask"] = None                      # as if Dask were not installed
        import numpy as np, mbcore
        from mbcore.distributed import ipm_fit, predict
        clf = mbcore.Perceptron().fit(np.eye(2), [1, -1])
        for call in (lambda: predict(clf, None), lambda: ipm_fit(mbcore.Perceptron(), [], [])):
            try:
                call()
            except ImportError as exc:
                print(exc)
    """)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert all(line.startswith("mbcore.distributed needs Dask: pip install 'mbcore[dask]'")
               for line in lines)
