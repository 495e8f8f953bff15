"""Sample weights (issue 25): the unweighted default paths, to compare one build with another
(the weights must leave them as fast as before), and the weighted pass against scikit-learn's
Perceptron with the same ``sample_weight``.  What each one times is in bench/README.md
("Sample weights").

Not part of the default test run.  From the repository root:

    python -m pytest bench/test_bench_weights.py -p no:cacheprovider --benchmark-only

The unweighted benchmarks (``-k unweighted``) also run against a build without sample weights
(PYTHONPATH=OLD:OLD/python, see bench/README.md), which is how the before/after is measured.
"""

import warnings

import numpy as np
import pytest

import mbcore

sklearn_lm = pytest.importorskip("sklearn.linear_model")

ROUNDS, WARMUP = 25, 3
SK_ROUNDS = 10
K = 5


def _fresh(make, *args, **kw):
    def setup():
        return (make(), *args), kw
    return setup


def _pf(learner, X, y, **kw):
    return learner.partial_fit(X, y, **kw)


def _sk_pf(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.partial_fit(X, y, **kw)


@pytest.fixture(scope="module")
def sw(dense):
    """Weights in [0, 3], a fifth of them 0 (seeded)."""
    rng = np.random.default_rng(25)
    w = rng.uniform(0.0, 3.0, size=dense.X.shape[0])
    w[rng.random(w.shape[0]) < 0.2] = 0.0
    return w


@pytest.fixture(scope="module")
def yk(dense):
    """K = 5 classes for the dense rows: the argmax of five random projections."""
    rng = np.random.default_rng(26)
    return np.argmax(dense.X @ rng.normal(size=(dense.X.shape[1], K)), axis=1)


# -- the unweighted default paths (before/after) ------------------------------------------------

@pytest.mark.benchmark(group="weights-unweighted")
def test_unweighted_perceptron_dense(benchmark, dense):
    """Perceptron().partial_fit(X, y): the plain pass (200,000 x 100 float64)."""
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense.X, dense.y), rounds=ROUNDS,
                       warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="weights-unweighted")
def test_unweighted_pa_dense(benchmark, dense):
    """PassiveAggressive().partial_fit(X, y): the general step (lin_step)."""
    benchmark.pedantic(_pf, setup=_fresh(mbcore.PassiveAggressive, dense.X, dense.y),
                       rounds=ROUNDS, warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="weights-unweighted")
def test_unweighted_perceptron_csr(benchmark, csr):
    """Perceptron().partial_fit(X, y) on the CSR rows (100,000 x 10,000, 50 per row)."""
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, csr.X, csr.y), rounds=ROUNDS,
                       warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="weights-unweighted")
def test_unweighted_perceptron_k5(benchmark, dense, yk):
    """Perceptron().partial_fit(X, y) with K = 5 classes (Kesler, mc_pass)."""
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense.X, yk), rounds=10,
                       warmup_rounds=1)


# -- the weighted pass, and scikit-learn's --------------------------------------------------------

@pytest.mark.benchmark(group="weights-weighted")
def test_weighted_perceptron_dense(benchmark, dense, sw):
    """Perceptron().partial_fit(X, y, sample_weight=sw)."""
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense.X, dense.y, sample_weight=sw),
                       rounds=ROUNDS, warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="weights-weighted")
def test_weighted_sklearn_perceptron_dense(benchmark, dense, sw):
    """scikit-learn Perceptron(fit_intercept=False).partial_fit(X, y, classes, sample_weight=sw):
    one pass, the same rule (eta * s * y * x on a mistake; it also updates on ties)."""
    benchmark.pedantic(_sk_pf, setup=_fresh(
        lambda: sklearn_lm.Perceptron(fit_intercept=False, shuffle=False), dense.X, dense.y,
        classes=np.array([-1, 1]), sample_weight=sw), rounds=SK_ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="weights-weighted")
def test_weighted_perceptron_csr(benchmark, csr):
    """Perceptron().partial_fit on the CSR rows with weights in [0, 3]."""
    rng = np.random.default_rng(27)
    w = rng.uniform(0.0, 3.0, size=csr.X.shape[0])
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, csr.X, csr.y, sample_weight=w),
                       rounds=ROUNDS, warmup_rounds=WARMUP)


@pytest.mark.benchmark(group="weights-weighted")
def test_weighted_sklearn_perceptron_csr(benchmark, csr):
    rng = np.random.default_rng(27)
    w = rng.uniform(0.0, 3.0, size=csr.X.shape[0])
    benchmark.pedantic(_sk_pf, setup=_fresh(
        lambda: sklearn_lm.Perceptron(fit_intercept=False, shuffle=False), csr.X, csr.y,
        classes=np.array([-1, 1]), sample_weight=w), rounds=SK_ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="weights-weighted")
def test_weighted_perceptron_k5(benchmark, dense, yk, sw):
    benchmark.pedantic(_pf, setup=_fresh(mbcore.Perceptron, dense.X, yk, sample_weight=sw),
                       rounds=10, warmup_rounds=1)
