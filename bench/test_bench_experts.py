"""Benchmarks of Weighted Majority (issue: multiplicative family and experts).

1,000 experts of accuracies uniform in [0.3, 0.95] on 20,000 rounds of binary labels, advice as
an int8 matrix: one WeightedMajority().partial_fit pass on a new learner (label inference and
advice encoding included), the same on a fitted learner, a NumPy row loop that keeps the
weights correct over long runs (log2 weights, renormalised by the best one each round), and the
twin on 200 rounds.
"""

import numpy as np
import pytest

import mbcore
import mbref

N_EXPERTS, ROUNDS, SEED = 1000, 20_000, 20261122


@pytest.fixture(scope="session")
def advice():
    rng = np.random.default_rng(SEED)
    truth = rng.integers(0, 2, ROUNDS)
    acc = rng.uniform(0.3, 0.95, N_EXPERTS)
    P = np.where(rng.random((ROUNDS, N_EXPERTS)) < acc, truth[:, None], 1 - truth[:, None])
    return P.astype(np.int8), truth


def _fresh(cls, P, y, **kw):
    def setup():
        return (cls(**kw), P, y), {}
    return setup


def _pf(learner, P, y):
    learner.partial_fit(P, y, classes=[0, 1])


@pytest.mark.benchmark(group="wm")
def test_wm_pass(benchmark, record, advice):
    P, y = advice
    record("wm.mbcore.int8", ROUNDS)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.WeightedMajority, P, y), rounds=10,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="wm")
def test_wm_fitted(benchmark, record, advice):
    """partial_fit on a learner that has seen the pool already (no label inference)."""
    P, y = advice
    record("wm.mbcore.fitted", ROUNDS)

    def setup():
        return (mbcore.WeightedMajority().partial_fit(P[:1], y[:1], classes=[0, 1]), P, y), {}
    benchmark.pedantic(lambda w, P, y: w.partial_fit(P, y), setup=setup, rounds=10,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="wm")
def test_rwm_pass(benchmark, record, advice):
    P, y = advice
    record("rwm.mbcore.int8", ROUNDS)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.RandomizedWeightedMajority, P, y), rounds=10,
                       warmup_rounds=1)


def _numpy_wm(P, y, beta=0.5):
    """WM as a NumPy row loop that stays correct over long runs: log2 weights, the sums taken
    relative to the best expert (so nothing underflows that matters)."""
    lb = np.log2(beta)
    l = np.zeros(P.shape[1])
    mistakes = 0
    for t in range(P.shape[0]):
        w = np.exp2(l - l.max())
        p = P[t]
        q1 = w[p == 1].sum()
        q0 = w[p == 0].sum()
        pred = 1 if q1 >= q0 else 0
        mistakes += pred != y[t]
        l[p != y[t]] += lb
    return mistakes


@pytest.mark.benchmark(group="wm")
def test_wm_numpy_loop(benchmark, record, advice):
    P, y = advice
    record("wm.numpy_loop", 2000)
    benchmark.pedantic(_numpy_wm, args=(P[:2000], y[:2000]), rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="wm")
def test_wm_twin(benchmark, record, advice):
    P, y = advice
    record("wm.twin", 200)
    benchmark.pedantic(_pf, setup=_fresh(mbref.WeightedMajority, P[:200], y[:200]), rounds=3,
                       warmup_rounds=1)


# -- multi-valued labels and specialists -----------------------------------------------------------

K_LABELS = 4


@pytest.fixture(scope="session")
def advice_multi():
    """The same pool with 4 labels: expert i is right with its accuracy, else a random wrong
    label."""
    rng = np.random.default_rng(SEED + 1)
    truth = rng.integers(0, K_LABELS, ROUNDS)
    acc = rng.uniform(0.3, 0.95, N_EXPERTS)
    wrong = (truth[:, None] + rng.integers(1, K_LABELS, (ROUNDS, N_EXPERTS))) % K_LABELS
    P = np.where(rng.random((ROUNDS, N_EXPERTS)) < acc, truth[:, None], wrong)
    return P.astype(np.int8), truth


@pytest.mark.benchmark(group="wm-multi")
def test_wm_multi_pass(benchmark, record, advice_multi):
    P, y = advice_multi
    record("wm.mbcore.multi4", ROUNDS)
    benchmark.pedantic(lambda w, P, y: w.partial_fit(P, y, classes=list(range(K_LABELS))),
                       setup=_fresh(mbcore.WeightedMajority, P, y), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="wm-multi")
def test_wm_multi_twin(benchmark, record, advice_multi):
    P, y = advice_multi
    record("wm.twin.multi4", 200)
    benchmark.pedantic(lambda w, P, y: w.partial_fit(P, y, classes=list(range(K_LABELS))),
                       setup=_fresh(mbref.WeightedMajority, P[:200], y[:200]), rounds=3,
                       warmup_rounds=1)


@pytest.fixture(scope="session")
def specialists_stream(advice_multi):
    """1,000 specialists, each awake in about 10% of the rounds, 4 labels."""
    P, y = advice_multi
    W = np.random.default_rng(SEED + 2).random(P.shape) < 0.1
    return P, y, W


@pytest.mark.benchmark(group="specialists")
def test_specialists_pass(benchmark, record, specialists_stream):
    P, y, W = specialists_stream
    record("spec.mbcore.dense", ROUNDS)
    benchmark.pedantic(lambda s, P, y: s.partial_fit(P, y, awake=W),
                       setup=_fresh(mbcore.Specialists, P, y), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="specialists")
def test_specialists_twin(benchmark, record, specialists_stream):
    P, y, W = specialists_stream
    record("spec.twin.dense", 500)
    benchmark.pedantic(lambda s, P, y: s.partial_fit(P, y, awake=W[:500]),
                       setup=_fresh(mbref.Specialists, P[:500], y[:500]), rounds=3,
                       warmup_rounds=1)


@pytest.fixture(scope="session")
def categorical():
    """20,000 rows of 12 categorical attributes with 6 values each; the label (5 values) is a
    function of two attribute pairs with 10% noise: 66 pair specialists awake per row."""
    rng = np.random.default_rng(SEED + 3)
    X = rng.integers(0, 6, (ROUNDS, 12))
    y = (X[:, 0] * 6 + X[:, 1] + X[:, 2] * X[:, 3]) % 5
    noise = rng.random(ROUNDS) < 0.1
    y[noise] = rng.integers(0, 5, noise.sum())
    return X, y


@pytest.mark.benchmark(group="specialists")
def test_pair_specialists_pass(benchmark, record, categorical):
    X, y = categorical
    record("pair.mbcore", ROUNDS)
    benchmark.pedantic(lambda s, X, y: s.partial_fit(X, y),
                       setup=_fresh(mbcore.PairSpecialists, X, y), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="specialists")
def test_pair_specialists_twin(benchmark, record, categorical):
    X, y = categorical
    record("pair.twin", 500)
    benchmark.pedantic(lambda s, X, y: s.partial_fit(X, y),
                       setup=_fresh(mbref.PairSpecialists, X[:500], y[:500]), rounds=3,
                       warmup_rounds=1)
