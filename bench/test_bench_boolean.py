"""Benchmarks of the Boolean learners (issue: finite classes and Boolean learners).

n = 1,000 Boolean variables, 20,000 rows with each variable on with probability 1/2; labels
from a random decision list of length 10 (for DecisionList) and from a conjunction of 10
literals on rows drawn so that about half satisfy it (for Conjunction).  One online pass of each
compiled learner on a new learner (validation included), and each twin on 200 rows.
"""

import numpy as np
import pytest

import mbcore
import mbref

N, D, SEED = 20_000, 1_000, 20261122


def _decision_list_labels(X, rng, length=10):
    cols = rng.choice(X.shape[1], length, replace=False)
    signs = rng.integers(0, 2, length)
    vals = rng.integers(0, 2, length)
    y = np.full(X.shape[0], rng.integers(0, 2))
    done = np.zeros(X.shape[0], dtype=bool)
    for c, s, v in zip(cols, signs, vals):
        fire = ~done & (X[:, c] == (1 - s))
        y[fire] = v
        done |= fire
    return y


@pytest.fixture(scope="session")
def boolean_data():
    rng = np.random.default_rng(SEED)
    X = (rng.random((N, D)) < 0.5).astype(np.uint8)
    y_dl = _decision_list_labels(X, rng)
    lits = rng.choice(D, 10, replace=False)
    Xc = X.copy()
    half = rng.random(N) < 0.5
    Xc[np.ix_(half, lits)] = 1                 # about half the rows satisfy the conjunction
    y_c = Xc[:, lits].all(axis=1).astype(np.int64)
    return X, y_dl, Xc, y_c


def _fresh(cls, X, y):
    def setup():
        return (cls(), X, y), {}
    return setup


def _pf(learner, X, y):
    learner.partial_fit(X, y, classes=[0, 1])


@pytest.mark.benchmark(group="boolean")
def test_decision_list_pass(benchmark, record, boolean_data):
    X, y, _, _ = boolean_data
    record("bool.mbcore.decision_list", N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.DecisionList, X, y), rounds=10,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="boolean")
def test_decision_list_twin(benchmark, record, boolean_data):
    X, y, _, _ = boolean_data
    record("bool.twin.decision_list", 200)
    benchmark.pedantic(_pf, setup=_fresh(mbref.DecisionList, X[:200], y[:200]), rounds=3,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="boolean")
def test_conjunction_pass(benchmark, record, boolean_data):
    _, _, X, y = boolean_data
    record("bool.mbcore.conjunction", N)
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Conjunction, X, y), rounds=10,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="boolean")
def test_conjunction_twin(benchmark, record, boolean_data):
    _, _, X, y = boolean_data
    record("bool.twin.conjunction", 200)
    benchmark.pedantic(_pf, setup=_fresh(mbref.Conjunction, X[:200], y[:200]), rounds=3,
                       warmup_rounds=1)
