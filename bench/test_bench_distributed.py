"""Benchmarks of mbcore.distributed on Dask: partitioned prediction and iterative parameter
mixing (IPM) with 1 and 2 workers, against the in-memory learner; and the epochs IPM needs
against serial training (bench/README.md, section "Dask").

Not part of the default test run.  Needs the extra (pip install 'mbcore[dask]'); skipped
without it.  Run from the repository root (about 1 minute on 2 cores):

    python -m pytest bench/test_bench_distributed.py -p no:cacheprovider --benchmark-only

Clusters are ``LocalCluster``s on this machine: in-process workers (``processes=False``: the
workers are threads of this process; the kernels release the GIL, so they can run in parallel)
and worker processes (``processes=True``), with 1 and 2 workers of one thread each.  Every
dataset is persisted on the cluster before the timings (loading is not timed).  A summary
section with the speed-ups and the epochs table is printed at the end of the session.
"""

import contextlib
import os
import types
import warnings

import numpy as np
import pytest

import mbcore
import mbcore._threads

dask = pytest.importorskip("dask", reason="needs the extra: pip install 'mbcore[dask]'")
da = pytest.importorskip("dask.array", reason="needs the extra: pip install 'mbcore[dask]'")
distributed = pytest.importorskip("distributed",
                                  reason="needs the extra: pip install 'mbcore[dask]'")

from mbcore.datasets import load_mushrooms  # noqa: E402
from mbcore.distributed import ipm_fit, one_shot_fit, predict  # noqa: E402

SEED = 20261122
PRED_N, PRED_D, PRED_CHUNK = 2_000_000, 100, 125_000       # 16 row blocks of 12.5M values
IPM_N, IPM_CHUNK = 400_000, 200_000                         # 2 shards (d = 100, margin 0.1)
KP_N, KP_D = 30_000, 20                                     # compute-bound: RBF kernel
PRED_ROUNDS, IPM_ROUNDS, KP_ROUNDS = 4, 3, 3
SHARDS = (2, 4, 8)
MAX_EPOCHS = 1000

TIMES = {}      # key -> {"min": s, "median": s}
FACTS = {}      # the epochs table and other numbers for the summary


# -- data and clusters -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pred():
    """2M x 100 N(0, 1) rows (1.6 GB) and a Perceptron trained on the conftest dense data."""
    rng = np.random.default_rng(SEED + 10)
    X = rng.standard_normal((PRED_N, PRED_D))
    learner = mbcore.Perceptron().partial_fit(*_dense_xy(20_000))
    return types.SimpleNamespace(X=X, learner=learner)


def make_separable(n, d=100, margin=0.1, seed=SEED):
    """n rows of N(0, I_d) kept where |u.x| >= margin for a random unit u, y = sign(u.x): the
    recipe of conftest.make_dense (bench/conftest.py), at another size."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = np.empty((n, d))
    filled = 0
    while filled < n:
        chunk = rng.standard_normal((50_000, d))
        keep = np.abs(chunk @ u) >= margin
        k = min(int(keep.sum()), n - filled)
        X[filled:filled + k] = chunk[keep][:k]
        filled += k
    return types.SimpleNamespace(X=X, y=np.where(X @ u > 0, 1, -1).astype(np.int64), u=u)


def _dense_xy(n):
    D = make_separable(n)
    return D.X, D.y


@pytest.fixture(scope="module")
def sep():
    """400k x 100, separable with margin 0.1."""
    return make_separable(IPM_N)


@contextlib.contextmanager
def cluster(n_workers, processes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # "Sending large graph": persisting is untimed
        with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                      processes=processes, dashboard_address=None) as cl, \
                distributed.Client(cl) as client:
            yield client


@contextlib.contextmanager
def kernel_threads(on):
    """Whether one predict call may use every core (mbcore._threads.map_rows; on by default)."""
    old = mbcore._threads.PARALLEL_MIN_VALUES
    if not on:
        mbcore._threads.PARALLEL_MIN_VALUES = 1 << 62
    try:
        yield
    finally:
        mbcore._threads.PARALLEL_MIN_VALUES = old


def _persist(client, *arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = client.persist(list(arrays))
        distributed.wait(out)
    return out


def _timed(benchmark, record, key, rows, fn, rounds, warmup=1):
    record(key, rows)
    out = benchmark.pedantic(fn, rounds=rounds, warmup_rounds=warmup)
    s = getattr(getattr(benchmark, "stats", None), "stats", None)
    if s is not None:                       # (None with --benchmark-disable)
        TIMES[key] = {"min": s.min, "median": s.median}
    return out


# -- partitioned prediction ----------------------------------------------------------------------
@pytest.mark.benchmark(group="dask-predict")
@pytest.mark.parametrize("threads", [True, False], ids=["kernel-threads", "1-thread"])
def test_predict_in_memory(benchmark, record, pred, threads):
    """learner.predict(X) on the NumPy array (by default it scores row blocks on every core)."""
    with kernel_threads(threads):
        _timed(benchmark, record, f"dask.predict.memory{'' if threads else '_1t'}", PRED_N,
               lambda: pred.learner.predict(pred.X), PRED_ROUNDS)


@pytest.mark.benchmark(group="dask-predict")
@pytest.mark.parametrize("workers", [1, 2])
def test_predict_threaded_scheduler(benchmark, record, pred, workers):
    """predict(learner, dX).compute() with Dask's threaded scheduler (no cluster), the kernels
    one thread per call."""
    dX = da.from_array(pred.X, chunks=(PRED_CHUNK, -1))
    with kernel_threads(False):
        out = _timed(benchmark, record, f"dask.predict.threads_{workers}", PRED_N,
                     lambda: predict(pred.learner, dX).compute(scheduler="threads",
                                                               num_workers=workers),
                     PRED_ROUNDS)
    assert out.shape == (PRED_N,)


@pytest.mark.benchmark(group="dask-predict")
@pytest.mark.parametrize("threads", [True, False], ids=["kernel-threads", "1-thread"])
@pytest.mark.parametrize("workers", [1, 2])
def test_predict_cluster_in_process(benchmark, record, pred, workers, threads):
    """LocalCluster(processes=False): workers are threads of this process."""
    with cluster(workers, False) as client, kernel_threads(threads):
        dX, = _persist(client, da.from_array(pred.X, chunks=(PRED_CHUNK, -1)))
        out = _timed(benchmark, record,
                     f"dask.predict.inproc_{workers}{'' if threads else '_1t'}", PRED_N,
                     lambda: predict(pred.learner, dX).compute(), PRED_ROUNDS)
    if threads and workers == 2:
        assert (out == pred.learner.predict(pred.X)).all()


@pytest.mark.benchmark(group="dask-predict")
@pytest.mark.parametrize("workers", [1, 2])
def test_predict_cluster_processes(benchmark, record, pred, workers):
    """LocalCluster(processes=True): the same shape of data generated in the workers
    (N(0, 1), 16 blocks), persisted; the labels come back to this process."""
    with cluster(workers, True) as client:
        gen = da.random.default_rng(SEED + 11).standard_normal((PRED_N, PRED_D),
                                                               chunks=(PRED_CHUNK, -1))
        dX, = _persist(client, gen)
        out = _timed(benchmark, record, f"dask.predict.procs_{workers}", PRED_N,
                     lambda: predict(pred.learner, dX).compute(), PRED_ROUNDS)
    assert out.shape == (PRED_N,)


# -- compute-bound prediction: the RBF kernel Perceptron ----------------------------------------
@pytest.fixture(scope="module")
def kp():
    """A KernelPerceptron (RBF) trained online on 6,000 rows of N(0, I_20) labelled by the
    median-radius sphere (about 1,250 support vectors), and 30,000 rows to score: each row
    costs a kernel evaluation per support vector, and its predict runs on one thread."""
    rng = np.random.default_rng(SEED + 12)
    X = rng.standard_normal((6_000, KP_D))
    r = (X * X).sum(axis=1)
    learner = mbcore.KernelPerceptron(kernel="rbf").partial_fit(
        X, np.where(r > np.median(r), 1, -1))
    return types.SimpleNamespace(X=rng.standard_normal((KP_N, KP_D)), learner=learner)


@pytest.mark.benchmark(group="dask-predict-kernel")
def test_predict_kernel_in_memory(benchmark, record, kp):
    """KernelPerceptron.predict(X) on the NumPy array (one thread)."""
    _timed(benchmark, record, "dask.predict_kp.memory", KP_N,
           lambda: kp.learner.predict(kp.X), KP_ROUNDS)
    FACTS["kp_support"] = kp.learner.n_support_


@pytest.mark.benchmark(group="dask-predict-kernel")
@pytest.mark.parametrize("workers", [1, 2])
def test_predict_kernel_threaded_scheduler(benchmark, record, kp, workers):
    """predict(kp, dX).compute() with Dask's threaded scheduler, 16 row blocks."""
    dX = da.from_array(kp.X, chunks=(KP_N // 16, -1))
    _timed(benchmark, record, f"dask.predict_kp.threads_{workers}", KP_N,
           lambda: predict(kp.learner, dX).compute(scheduler="threads", num_workers=workers),
           KP_ROUNDS)


@pytest.mark.benchmark(group="dask-predict-kernel")
@pytest.mark.parametrize("workers", [1, 2])
def test_predict_kernel_cluster_in_process(benchmark, record, kp, workers):
    """The same on LocalCluster(processes=False)."""
    with cluster(workers, False) as client:
        dX, = _persist(client, da.from_array(kp.X, chunks=(KP_N // 16, -1)))
        out = _timed(benchmark, record, f"dask.predict_kp.inproc_{workers}", KP_N,
                     lambda: predict(kp.learner, dX).compute(), KP_ROUNDS)
    if workers == 2:
        assert (out == kp.learner.predict(kp.X)).all()


# -- iterative parameter mixing ------------------------------------------------------------------
@pytest.mark.benchmark(group="dask-ipm")
def test_serial_fit(benchmark, record, sep):
    """Perceptron(max_epochs=1000).fit(X, y) in memory: epochs until a clean pass."""
    clf = _timed(benchmark, record, "dask.ipm.serial_fit", IPM_N,
                 lambda: mbcore.Perceptron(max_epochs=MAX_EPOCHS).fit(sep.X, sep.y),
                 IPM_ROUNDS)
    FACTS["serial_epochs"] = clf.n_iter_
    FACTS["serial_updates"] = clf.updates_
    assert clf.converged_


@pytest.mark.benchmark(group="dask-ipm")
@pytest.mark.parametrize("processes", [False, True], ids=["in-process", "processes"])
@pytest.mark.parametrize("workers", [1, 2])
def test_ipm_fit(benchmark, record, sep, workers, processes):
    """ipm_fit(Perceptron(), X, y) on 2 shards of 200k rows (uniform mixing), persisted."""
    with cluster(workers, processes) as client:
        dX, dy = _persist(client, da.from_array(sep.X, chunks=(IPM_CHUNK, -1)),
                          da.from_array(sep.y, chunks=IPM_CHUNK))
        res = _timed(benchmark, record,
                     f"dask.ipm.{'procs' if processes else 'inproc'}_{workers}", IPM_N,
                     lambda: ipm_fit(mbcore.Perceptron(max_epochs=MAX_EPOCHS), dX, dy),
                     IPM_ROUNDS)
    FACTS["ipm_epochs_2"] = res.epochs
    assert res.converged and res.n_shards == 2


@pytest.mark.benchmark(group="dask-ipm")
def test_epochs_table(benchmark, sep):
    """Epochs and updates: serial fit vs IPM (uniform, weighted) vs one-shot mixing, with 2, 4
    and 8 shards, on the 400k separable data and on the mushrooms (8124 x 112, separable).
    Not a timing: one round; run on Dask's threaded scheduler (the numbers do not depend on the
    scheduler)."""
    def table():
        rows = []
        X, y = load_mushrooms()
        for name, A, b in (("dense 400k x 100", sep.X, sep.y), ("mushrooms", X, y)):
            serial = mbcore.Perceptron(max_epochs=MAX_EPOCHS).fit(A, b)
            rows.append((name, "serial fit", 1, serial.n_iter_, serial.updates_, "",
                         serial.score(A, b)))
            for S in SHARDS:
                Xs, ys = np.array_split(A, S), np.array_split(b, S)
                for mixing in ("uniform", "weighted"):
                    r = ipm_fit(mbcore.Perceptron(max_epochs=MAX_EPOCHS), Xs, ys,
                                mixing=mixing)
                    rows.append((name, f"IPM {mixing}", S, r.epochs, r.total_updates,
                                 round(r.mixed_updates, 1), r.learner.score(A, b)))
                r = one_shot_fit(mbcore.Perceptron(max_epochs=MAX_EPOCHS), Xs, ys)
                rows.append((name, "one-shot", S, f"{min(r.shard_epochs)}-{max(r.shard_epochs)}",
                             r.total_updates, "", r.learner.score(A, b)))
        return rows

    with _no_default_client():
        FACTS["table"] = benchmark.pedantic(table, rounds=1, warmup_rounds=0)


@contextlib.contextmanager
def _no_default_client():
    """Make sure no cluster is the default (the table runs on the threaded scheduler)."""
    try:
        c = distributed.default_client()
    except ValueError:
        c = None
    if c is not None:
        pytest.skip("a default Dask client is active")
    yield


# -- the summary ---------------------------------------------------------------------------------
class _Summary:
    """A plugin registered for this module: prints the speed-ups and the epochs table in the
    terminal summary (after conftest's per-call times)."""

    def pytest_terminal_summary(self, terminalreporter):
        if TIMES or FACTS:
            _write_summary(terminalreporter)


@pytest.fixture(scope="module", autouse=True)
def summary(request):
    pm = request.config.pluginmanager
    if not pm.has_plugin("mbcore-dask-summary"):
        pm.register(_Summary(), "mbcore-dask-summary")
    yield


_LINES = [
    ("predict in memory: t(1 kernel thread) / t(all cores)", "dask.predict.memory_1t",
     "dask.predict.memory"),
    ("predict, threaded scheduler, 1-thread kernel: t(1 w) / t(2 w)",
     "dask.predict.threads_1", "dask.predict.threads_2"),
    ("predict, in-process cluster: t(1 worker) / t(2 workers)", "dask.predict.inproc_1",
     "dask.predict.inproc_2"),
    ("predict, in-process cluster, 1-thread kernel: t(1 w) / t(2 w)",
     "dask.predict.inproc_1_1t", "dask.predict.inproc_2_1t"),
    ("predict, process cluster: t(1 worker) / t(2 workers)", "dask.predict.procs_1",
     "dask.predict.procs_2"),
    ("predict: t(in-process cluster, 2 w) / t(in memory)", "dask.predict.inproc_2",
     "dask.predict.memory"),
    ("predict: t(process cluster, 2 w) / t(in memory)", "dask.predict.procs_2",
     "dask.predict.memory"),
    ("kernel predict, threaded scheduler: t(1 worker) / t(2 workers)",
     "dask.predict_kp.threads_1", "dask.predict_kp.threads_2"),
    ("kernel predict, in-process cluster: t(1 worker) / t(2 workers)",
     "dask.predict_kp.inproc_1", "dask.predict_kp.inproc_2"),
    ("kernel predict: t(in memory) / t(threaded scheduler, 2 w)", "dask.predict_kp.memory",
     "dask.predict_kp.threads_2"),
    ("kernel predict: t(in memory) / t(in-process cluster, 2 w)", "dask.predict_kp.memory",
     "dask.predict_kp.inproc_2"),
    ("IPM, in-process cluster: t(1 worker) / t(2 workers)", "dask.ipm.inproc_1",
     "dask.ipm.inproc_2"),
    ("IPM, process cluster: t(1 worker) / t(2 workers)", "dask.ipm.procs_1",
     "dask.ipm.procs_2"),
    ("t(serial fit) / t(IPM, in-process cluster, 2 w)", "dask.ipm.serial_fit",
     "dask.ipm.inproc_2"),
    ("t(serial fit) / t(IPM, process cluster, 2 w)", "dask.ipm.serial_fit",
     "dask.ipm.procs_2"),
]


def _write_summary(tr):
    tr.section("mbcore.distributed (Dask) summary")
    tr.write_line(f"load average at the end: {tuple(round(x, 2) for x in os.getloadavg())}; "
                  f"{os.cpu_count()} logical CPUs")

    def ratio(a, b, stat):
        if a in TIMES and b in TIMES:
            return f"{TIMES[a][stat] / TIMES[b][stat]:.2f}"
        return "-"

    tr.write_line(f"{'ratio of times':<66} {'by min':>7} {'by median':>10}")
    for label, a, b in _LINES:
        tr.write_line(f"{label:<66} {ratio(a, b, 'min'):>7} {ratio(a, b, 'median'):>10}")
    if "kp_support" in FACTS:
        tr.write_line(f"kernel predict: {FACTS['kp_support']} support vectors")
    if "serial_epochs" in FACTS:
        tr.write_line(f"serial fit: {FACTS['serial_epochs']} epochs, {FACTS['serial_updates']} "
                      f"updates; IPM (2 shards, uniform): {FACTS.get('ipm_epochs_2')} epochs")
    if "table" in FACTS:
        tr.write_line("")
        tr.write_line("| data | method | shards | epochs | total updates | Σ μk | training "
                      "accuracy |")
        tr.write_line("|---|---|---:|---:|---:|---:|---:|")
        for name, method, S, ep, up, mk, acc in FACTS["table"]:
            tr.write_line(f"| {name} | {method} | {S} | {ep} | {up:,} | {mk} | {acc:.4f} |")
