"""The weighted Perceptron bound (mbcore.bounds.weighted_perceptron_bound) as a function and on
streams that meet its assumptions: separable rows of radius R and margin gamma, weights in
[s_min, s_max] (and rows of weight 0, whose mistakes it does not count)."""

import numpy as np
import pytest

import mbcore
from conftest import separable
from mbcore.bounds import margin, perceptron_bound, radius, weighted_perceptron_bound


def test_values():
    assert weighted_perceptron_bound(2.0, 0.5, 1.0, 1.0) == perceptron_bound(2.0, 0.5) == 16.0
    assert weighted_perceptron_bound(1.0, 0.25, 0.5, 1.5) == 16.0 * 9.0
    assert weighted_perceptron_bound(1.0, 0.5, 2.0, 2.0, u_norm=2.0) == 16.0


@pytest.mark.parametrize("args", [(1.0, 0.0, 1.0, 1.0), (-1.0, 0.5, 1.0, 1.0),
                                  (1.0, 0.5, 0.0, 1.0), (1.0, 0.5, 2.0, 1.0),
                                  (1.0, 0.5, 1.0, float("nan"))])
def test_refuses_values_outside_its_assumptions(args):
    with pytest.raises(ValueError, match="weighted_perceptron_bound"):
        weighted_perceptron_bound(*args)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("s_range", [(1.0, 1.0), (0.5, 2.0), (0.1, 3.0)])
def test_holds_on_separable_weighted_streams(seed, s_range):
    X, y, u = separable(seed, 400, 6, 0.1, scale="mixed")
    rng = np.random.default_rng(seed)
    lo, hi = s_range
    sw = rng.uniform(lo, hi, size=len(y))
    sw[[0, -1]] = lo, hi                         # (the range is reached)
    sw[rng.random(len(y)) < 0.2] = 0.0           # weight 0: mistakes the bound does not count
    pos = sw > 0
    R, gamma = radius(X[pos]), margin(X[pos], y[pos], u)
    p = mbcore.Perceptron(max_epochs=200, eta=0.7).fit(X, y, sample_weight=sw)
    assert p.converged_
    assert p.updates_ <= weighted_perceptron_bound(R, gamma, lo, hi)
    # the weighted form: the weights of the updating rows sum to at most s_max (R/gamma)^2
    run = mbcore.run_online(mbcore.Perceptron(), np.tile(X, (5, 1)), np.tile(y, 5),
                            sample_weight=np.tile(sw, 5))
    assert float(np.tile(sw, 5)[run.updated].sum()) <= hi * (R / gamma) ** 2
