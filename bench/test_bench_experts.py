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
