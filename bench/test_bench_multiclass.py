"""Benchmarks of the multi-class linear learners (K >= 3 classes, ``multi_class="multiclass"``
and ``"ovr"``) against scikit-learn, the pure-Python twin and the read-only scoring floor.
What each one times is in bench/README.md, section "Multi-class linear learners".

Not part of the default test run (testpaths = ["tests"]).  Run from the repository root (about
1.5 minutes on 2 cores; the K = 1,000 passes and their floor take 6-10 s each):

    python -m pytest bench/test_bench_multiclass.py --benchmark-only -p no:cacheprovider

Two workloads, each built once per session:

* MNIST-shaped: the 1,000 bundled digits (``mbcore.datasets.load_mnist()``) tiled 60 times,
  60,000 x 784 float32, 10 classes.  One pass on a fresh learner, classes given, against one
  epoch of scikit-learn's Perceptron (one-vs-rest, ``n_jobs=-1``) and the twin on 300 rows.
* CSR: 100,000 x 50,000 with 50 non-zeros per row (uniformly random distinct sorted int32
  column indices, N(0, 1) float64 values), random labels in range(K) for K = 10, 100, 1,000.
  One pass against the floor that computes the same scores without learning: SciPy's CSR
  ``X @ W`` with W dense float64 of shape (50,000, K) (features x classes, the layout of the
  learners' weight matrix).

Stateful work (a pass) gets a fresh learner per round from ``setup`` (not timed); the ratios
(bench/report.py, keys ``mc.*``) are printed at the end of the session, from this one session.
"""

import types
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.datasets import load_mnist

sklearn_lm = pytest.importorskip("sklearn.linear_model")

SEED = 20261122
MNIST_TILE = 60                 # 1,000 digits x 60 = 60,000 rows
TWIN_N = 300                    # rows given to the twin (and to mbcore, the same slice)
CSR_N, CSR_D, CSR_NNZ = 100_000, 50_000, 50
CSR_KS = (10, 100, 1000)
STRATEGIES = ("multiclass", "ovr")
SHORT = {"multiclass": "mc", "ovr": "ovr"}
FAMILY = {"margin": mbcore.MarginPerceptron, "averaged": mbcore.AveragedPerceptron,
          "hinge": mbcore.OnlineHingeSVM}
# Rounds: the MNIST passes take 0.1-0.2 s, sklearn's epoch 0.2-0.5 s, the twin 0.3-0.5 s on 300
# rows; at K = 1,000 one CSR pass or floor takes 6-10 s (so 2 rounds, no warm-up).
MNIST_ROUNDS, MNIST_WARMUP = 15, 2
SK_ROUNDS = 5
TWIN_ROUNDS = 3
CSR_ROUNDS = {10: (10, 1), 100: (3, 1), 1000: (2, 0)}      # K -> (rounds, warm-up rounds)


# -- data (once per session) -------------------------------------------------------------------
def make_mnist60k():
    """The bundled 1,000 digits tiled 60 times: X (60,000, 784) float32, y int64 in 0..9."""
    X0, y0 = load_mnist()
    X = np.ascontiguousarray(np.tile(X0, (MNIST_TILE, 1)), dtype=np.float32)
    y = np.tile(y0, MNIST_TILE)
    classes = np.unique(y)
    assert X.shape == (60_000, 784) and classes.shape == (10,)
    return types.SimpleNamespace(X=X, y=y, classes=classes,
                                 X_twin=np.ascontiguousarray(X[:TWIN_N]), y_twin=y[:TWIN_N].copy())


def make_csr_k(seed=SEED + 3):
    """X: CSR 100,000 x 50,000, exactly 50 non-zeros N(0, 1) per row in uniformly random
    distinct sorted columns (int32 indices and indptr, float64 data); y[K]: uniform random
    labels in range(K); W[K]: the floor's dense float64 (50,000, K) matrix."""
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.integers(0, CSR_D, size=(CSR_N, CSR_NNZ), dtype=np.int32), axis=1)
    while True:                                 # redraw rows with a repeated column
        bad = np.flatnonzero((cols[:, 1:] == cols[:, :-1]).any(axis=1))
        if not bad.size:
            break
        cols[bad] = np.sort(rng.integers(0, CSR_D, size=(bad.size, CSR_NNZ), dtype=np.int32),
                            axis=1)
    indptr = np.arange(0, CSR_N * CSR_NNZ + 1, CSR_NNZ, dtype=np.int32)
    X = sp.csr_matrix((rng.standard_normal(CSR_N * CSR_NNZ), cols.ravel(), indptr),
                      shape=(CSR_N, CSR_D))
    assert X.has_sorted_indices and X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    y = {K: rng.integers(0, K, size=CSR_N).astype(np.int64) for K in CSR_KS}
    W = {K: rng.standard_normal((CSR_D, K)) for K in CSR_KS}
    return types.SimpleNamespace(X=X, y=y, W=W)


@pytest.fixture(scope="session")
def mnist60k():
    return make_mnist60k()


@pytest.fixture(scope="session")
def csr_k():
    return make_csr_k()


# -- helpers -----------------------------------------------------------------------------------
def _fresh(make, *args):
    """A pedantic setup: a new learner per round, followed by the arguments."""
    def setup():
        return (make(), *args), {}
    return setup


def _pf(learner, X, y, classes):
    return learner.partial_fit(X, y, classes=classes)


def _sk_perceptron(n_jobs=-1):
    return sklearn_lm.Perceptron(max_iter=1, tol=None, shuffle=False, n_jobs=n_jobs)


def _sk_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # ConvergenceWarning for max_iter=1
        return est.fit(X, y)


def _learner(cls, multi_class):
    return lambda: cls(multi_class=multi_class)


# =============================================================================================
# MNIST-shaped: 60,000 x 784 float32, 10 classes
# =============================================================================================

@pytest.mark.benchmark(group="mc-mnist")
@pytest.mark.parametrize("multi_class", STRATEGIES)
def test_mnist_perceptron(benchmark, record, mnist60k, multi_class):
    """Perceptron(multi_class=...).partial_fit(X, y, classes=0..9) on a fresh learner."""
    d = mnist60k
    record(f"mc.mnist.mbcore.perceptron_{SHORT[multi_class]}", d.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(_learner(mbcore.Perceptron, multi_class), d.X, d.y,
                                         d.classes),
                       rounds=MNIST_ROUNDS, warmup_rounds=MNIST_WARMUP)


@pytest.mark.benchmark(group="mc-mnist")
def test_mnist_sklearn_epoch(benchmark, record, mnist60k):
    """scikit-learn Perceptron(max_iter=1, tol=None, shuffle=False, n_jobs=-1).fit(X, y): one
    epoch, one-vs-rest over 10 classes (threads over the classes, both cores here)."""
    d = mnist60k
    record("mc.mnist.sklearn.perceptron", d.X.shape[0])
    benchmark.pedantic(_sk_fit, setup=_fresh(_sk_perceptron, d.X, d.y), rounds=SK_ROUNDS,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="mc-mnist")
def test_mnist_sklearn_epoch_1job(benchmark, record, mnist60k):
    """The same epoch with n_jobs=1 (the 10 binary problems one after the other, one core):
    how much of sklearn's time the second core saves (info)."""
    d = mnist60k
    record("mc.mnist.sklearn.perceptron_1job", d.X.shape[0])
    benchmark.pedantic(_sk_fit, setup=_fresh(lambda: _sk_perceptron(n_jobs=1), d.X, d.y),
                       rounds=SK_ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="mc-mnist")
def test_mnist_floor_scores(benchmark, record, mnist60k):
    """X @ W with W float32 (784, 10), NumPy's default BLAS threads: the scores alone (info)."""
    d = mnist60k
    W = np.random.default_rng(SEED).standard_normal((d.X.shape[1], 10)).astype(np.float32)
    record("mc.mnist.floor.matmul", d.X.shape[0])
    benchmark.pedantic(np.matmul, args=(d.X, W), rounds=MNIST_ROUNDS * 2,
                       warmup_rounds=MNIST_WARMUP)


@pytest.mark.benchmark(group="mc-mnist-family")
@pytest.mark.parametrize("multi_class", STRATEGIES)
@pytest.mark.parametrize("name", sorted(FAMILY))
def test_mnist_family(benchmark, record, mnist60k, name, multi_class):
    """MarginPerceptron, AveragedPerceptron, OnlineHingeSVM (default parameters): one pass."""
    d = mnist60k
    record(f"mc.mnist.mbcore.{name}_{SHORT[multi_class]}", d.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(_learner(FAMILY[name], multi_class), d.X, d.y,
                                         d.classes),
                       rounds=MNIST_ROUNDS // 2, warmup_rounds=1)


@pytest.mark.benchmark(group="mc-mnist-slice-300")
@pytest.mark.parametrize("multi_class", STRATEGIES)
def test_mnist_twin_slice(benchmark, record, mnist60k, multi_class):
    """mbref.Perceptron(multi_class=...) on the first 300 rows (the same float32 NumPy arrays)."""
    d = mnist60k
    record(f"mc.mnist.twin.perceptron_{SHORT[multi_class]}_300", TWIN_N)
    benchmark.pedantic(_pf, setup=_fresh(_learner(mbref.Perceptron, multi_class), d.X_twin,
                                         d.y_twin, d.classes),
                       rounds=TWIN_ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="mc-mnist-slice-300")
@pytest.mark.parametrize("multi_class", STRATEGIES)
def test_mnist_slice(benchmark, record, mnist60k, multi_class):
    """mbcore on the same 300 rows (the same-slice ratio)."""
    d = mnist60k
    record(f"mc.mnist.mbcore.perceptron_{SHORT[multi_class]}_300", TWIN_N)
    benchmark.pedantic(_pf, setup=_fresh(_learner(mbcore.Perceptron, multi_class), d.X_twin,
                                         d.y_twin, d.classes),
                       rounds=200, warmup_rounds=5)


# =============================================================================================
# CSR 100,000 x 50,000, 50 non-zeros per row, K = 10, 100, 1,000 random labels
# =============================================================================================

@pytest.mark.benchmark(group="mc-csr-k")
@pytest.mark.parametrize("K", CSR_KS)
def test_csr_floor(benchmark, record, csr_k, K):
    """The floor: scipy's CSR X @ W, W dense float64 (50,000, K): the scores, no learning."""
    rounds, warmup = CSR_ROUNDS[K]
    record(f"mc.csr.floor.k{K}", CSR_N)
    benchmark.pedantic(lambda X, W: X @ W, args=(csr_k.X, csr_k.W[K]), rounds=rounds,
                       iterations=1, warmup_rounds=warmup)


@pytest.mark.benchmark(group="mc-csr-k")
@pytest.mark.parametrize("multi_class", STRATEGIES)
@pytest.mark.parametrize("K", CSR_KS)
def test_csr_perceptron(benchmark, record, csr_k, K, multi_class):
    """Perceptron(multi_class=...).partial_fit(X, y, classes=range(K)) on a fresh learner (the
    D x K weight matrix is allocated inside the timed call)."""
    rounds, warmup = CSR_ROUNDS[K]
    record(f"mc.csr.mbcore.{SHORT[multi_class]}_k{K}", CSR_N)
    benchmark.pedantic(_pf, setup=_fresh(_learner(mbcore.Perceptron, multi_class), csr_k.X,
                                         csr_k.y[K], np.arange(K)),
                       rounds=rounds, iterations=1, warmup_rounds=warmup)


# =============================================================================================
# K classes on every core (issue 27): a later pass with dense mistakes, n_jobs=2 against 1
# =============================================================================================

# K -> the fraction of rows given a random class: the second pass then makes about 25% mistakes
SPLIT_NOISE = {10: 0.12, 100: 0.095}
SPLIT_ROUNDS = 9


def make_split_labels(d, K, seed=SEED + 27):
    """Labels for the tiled digits with K classes: K = 10, the digit; K = 100, the digit times
    10 plus the tile copy's position in the bundled 1,000 modulo 10 (each copy of a digit keeps
    its class); then SPLIT_NOISE[K] of the rows get a uniformly random class."""
    n = d.X.shape[0]
    y = d.y.copy() if K == 10 else d.y * 10 + (np.arange(n) % 1000) % 10
    rng = np.random.default_rng(seed)
    rows = rng.choice(n, int(SPLIT_NOISE[K] * n), replace=False)
    y[rows] = rng.integers(0, K, size=rows.size)
    return y


@pytest.mark.benchmark(group="mc-split")
@pytest.mark.parametrize("K", (10, 100))
def test_mnist_split_later_pass_ab(benchmark, mnist60k, K):
    """The second pass of Perceptron(multi_class="multiclass") on the tiled digits, 60,000 x 784
    float32, with noisy labels (about 25% mistakes): n_jobs=1, n_jobs=2 with the row split off
    (``mc_split_tuning(huge)``: speculation alone, as before issue 27), n_jobs=2 (the default
    threshold: rows split when K x non-zeros reaches it) and n_jobs=2 with every row split
    (``mc_split_tuning(0)``), alternating in one run, SPLIT_ROUNDS rounds each, on deep copies
    of the same learner after one pass.  All give the same state, bit for bit.  Prints min and median per arm and
    the ratios (min/min, median/median) against n_jobs=1."""
    import copy
    import time
    from mbcore._kernels import multiclass as kmc
    d = mnist60k
    y = make_split_labels(d, K)
    base = mbcore.Perceptron(n_jobs=1).partial_fit(d.X, y, classes=np.arange(K))
    m0 = int(base.mistakes_)
    arms = {"t1": (1, None), "t2_nosplit": (2, 1 << 60), "t2": (2, None), "t2_forced": (2, 0)}
    times = {a: [] for a in arms}
    states = {}
    default_work = kmc.mc_split_tuning(None)

    def go():
        try:
            for _ in range(SPLIT_ROUNDS):
                for arm, (jobs, work) in arms.items():
                    kmc.mc_split_tuning(default_work if work is None else work)
                    c = copy.deepcopy(base)
                    c.set_params(n_jobs=jobs)
                    kmc.mc_split_stats(reset=True)
                    t0 = time.perf_counter()
                    c.partial_fit(d.X, y)
                    times[arm].append(time.perf_counter() - t0)
                    states[arm] = (c.coef_.tobytes(), int(c.mistakes_), kmc.mc_split_stats())
        finally:
            kmc.mc_split_tuning(default_work)

    benchmark.pedantic(go, rounds=1, iterations=1)
    rate = (states["t1"][1] - m0) / d.X.shape[0]
    print(f"\nK={K}: second pass, {rate:.1%} mistakes; split stats (rows, stolen, stretches, "
          f"late) of the last n_jobs=2 pass: {states['t2'][2]}, forced: {states['t2_forced'][2]}")
    t1 = times["t1"]
    for arm in arms:
        t = times[arm]
        benchmark.extra_info[arm] = {"min_ms": min(t) * 1e3, "median_ms": np.median(t) * 1e3,
                                     "ratio_min": min(t1) / min(t),
                                     "ratio_median": np.median(t1) / np.median(t)}
        print(f"  {arm:11s} min {min(t) * 1e3:7.1f} ms  median {np.median(t) * 1e3:7.1f} ms  "
              f"n_jobs=1 / this: {min(t1) / min(t):.2f}x (min), "
              f"{np.median(t1) / np.median(t):.2f}x (median)")
    benchmark.extra_info["mistake_rate"] = rate
    assert all(states[a][:2] == states["t1"][:2] for a in arms)
