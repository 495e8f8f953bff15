"""Mistake bounds: on streams that satisfy a theorem's assumptions, the
observed count never exceeds the bound.

The data quantities (R, gamma, TD_gamma) are computed here with NumPy from the generated data and
the known separator u, independently of the library; ``mbcore.bounds``, when present, is only
cross-checked against these computations.
"""

import importlib
import math

import numpy as np
import pytest

import mbcore
from conftest import csr_from_dense, noisy, separable, unit

SEEDS = (0, 1, 2, 3)


def orders(seed, X, y):
    """The stream in several orders: as drawn, shuffled, negatives first, longest rows first."""
    rng = np.random.default_rng(seed + 99)
    n = X.shape[0]
    yield "drawn", np.arange(n)
    yield "shuffled", rng.permutation(n)
    yield "by-label", np.argsort(y, kind="stable")
    yield "by-norm", np.argsort(-np.linalg.norm(X, axis=1), kind="stable")


def radius(X):
    return float(np.sqrt((X * X).sum(axis=1)).max())


def abs_margin(X, y, v):
    """min_t y_t v.x_t (not divided by ||v||)."""
    return float((y * (X @ v)).min())


def unit_rows(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def td(X, y, u, gamma):
    """Balcan's TD_gamma for unit-length rows and unit u."""
    Z = unit_rows(X)
    return float(np.maximum(0.0, gamma - y * (Z @ unit(u))).sum())


# -- Perceptron: (R/gamma)^2 -----------------------------------------------------------------------

@pytest.mark.parametrize("scale", [None, "mixed", 7.5], ids=["gauss", "mixed-norms", "R=7.5"])
@pytest.mark.parametrize("seed", SEEDS)
def test_perceptron_novikoff_bound(seed, scale):
    X, y, u = separable(seed, 400, 6, 0.1, scale=scale)
    R = radius(X)
    g = abs_margin(X, y, u)
    assert g > 0
    bound = (R / g) ** 2
    for name, idx in orders(seed, X, y):
        for params in ({}, {"tie": "positive"}, {"eta": 0.3}):
            clf = mbcore.Perceptron(**params)
            run = mbcore.run_online(clf, X[idx], y[idx])
            assert run.mistakes <= bound, (name, params)
            # Any number of passes: the bound holds for the whole run.
            fit = mbcore.Perceptron(max_epochs=1000, **params).fit(X[idx], y[idx])
            assert fit.mistakes_ <= bound, (name, params)
            assert fit.converged_
            assert (fit.predict(X) == y).all()
    # The averaged Perceptron is the Perceptron online.
    assert mbcore.AveragedPerceptron().partial_fit(X, y).mistakes_ <= bound


@pytest.mark.parametrize("seed", SEEDS)
def test_perceptron_bound_with_non_unit_u(seed):
    X, y, u = separable(seed, 300, 5, 0.15, scale="mixed")
    v = 3.7 * u
    R = radius(X)
    g = abs_margin(X, y, v)          # y.(v.x) >= g with ||v|| = 3.7
    bound = (np.linalg.norm(v) * R / g) ** 2
    clf = mbcore.Perceptron(max_epochs=1000).fit(X, y)
    assert clf.mistakes_ <= bound
    assert mbcore.Perceptron().partial_fit(X, y).mistakes_ <= bound


@pytest.mark.parametrize("gamma", [0.05, 0.1, 0.3])
@pytest.mark.parametrize("seed", SEEDS)
def test_normalized_perceptron_bound(seed, gamma):
    X, y, u = separable(seed, 400, 5, gamma, scale="mixed")
    g = float((y * (unit_rows(X) @ u)).min())
    assert g >= gamma - 1e-12
    for name, idx in orders(seed, X, y):
        clf = mbcore.Perceptron(normalize=True, max_epochs=2000).fit(X[idx], y[idx])
        assert clf.mistakes_ <= 1.0 / gamma ** 2, name
        assert clf.converged_, name


# -- Margin Perceptron: 12/gamma^2 updates ---------------------------------------------------------

@pytest.mark.parametrize("gamma", [0.1, 0.2, 0.4])
@pytest.mark.parametrize("seed", SEEDS)
def test_margin_perceptron_update_bound(seed, gamma):
    X, y, u = separable(seed, 300, 4, gamma, scale="mixed")
    bound = 12.0 / gamma ** 2
    for name, idx in orders(seed, X, y):
        online = mbcore.MarginPerceptron(gamma=gamma).partial_fit(X[idx], y[idx])
        assert online.updates_ <= bound, name
        assert online.updates_ >= online.mistakes_
        fit = mbcore.MarginPerceptron(gamma=gamma, max_epochs=5000).fit(X[idx], y[idx])
        assert fit.converged_, name
        assert fit.updates_ <= bound, name
        # Converged: every example now has normalised margin >= gamma/2 in the right direction.
        m = fit.decision_function(X)
        assert (y * m >= gamma / 2 - 1e-12).all()


# -- Non-separable data: M <= 1/gamma^2 + (2/gamma) TD_gamma ---------------------------------------

@pytest.mark.parametrize("gamma", [0.05, 0.1, 0.25])
@pytest.mark.parametrize("flip", [0.05, 0.2])
@pytest.mark.parametrize("seed", SEEDS)
def test_td_bound_on_noisy_data(seed, flip, gamma):
    X, y, u = noisy(seed, 300, 5, flip=flip, scale="mixed")
    T = td(X, y, u, gamma)
    assert T > 0          # really not separable with margin gamma by u
    for name, idx in orders(seed, X, y):
        clf = mbcore.Perceptron(normalize=True)
        run = mbcore.run_online(clf, X[idx], y[idx])
        assert run.mistakes <= 1.0 / gamma ** 2 + 2.0 / gamma * T, name
        # k passes are one stream of k n examples: TD adds up over the passes.
        fit = mbcore.Perceptron(normalize=True, max_epochs=4).fit(X[idx], y[idx])
        assert fit.mistakes_ <= 1.0 / gamma ** 2 + 2.0 / gamma * fit.n_iter_ * T, name


# -- Kernel Perceptron (linear kernel): (R/gamma)^2 ------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_kernel_perceptron_linear_bound(seed):
    X, y, u = separable(seed, 250, 5, 0.1, scale="mixed")
    bound = (radius(X) / abs_margin(X, y, u)) ** 2
    for name, idx in orders(seed, X, y):
        clf = mbcore.KernelPerceptron(kernel="linear")
        assert mbcore.run_online(clf, X[idx], y[idx]).mistakes <= bound, name
        fit = mbcore.KernelPerceptron(kernel="linear", max_epochs=1000).fit(X[idx], y[idx])
        assert fit.converged_ and fit.mistakes_ <= bound, name
        assert fit.n_support_ == fit.mistakes_


# -- mbcore.bounds against the computations above --------------------------------------------------

def _bounds_module():
    return importlib.import_module("mbcore.bounds")


@pytest.mark.parametrize("seed", SEEDS)
def test_bounds_module_matches_own_computation(seed):
    b = _bounds_module()
    X, y, u = separable(seed, 200, 6, 0.1, scale="mixed")
    Xs = csr_from_dense(np.where(np.abs(X) < 0.3, 0.0, X), np.int64)
    Xd = Xs.toarray()
    R, g = radius(X), abs_margin(X, y, u)
    assert b.radius(X) == pytest.approx(R, rel=1e-12)
    assert b.radius(Xs) == pytest.approx(radius(Xd), rel=1e-12)
    assert b.margin(X, y, u) == pytest.approx(g, rel=1e-12)
    assert b.margin(X, y, 5.0 * u) == pytest.approx(g, rel=1e-12)     # divides by ||u||
    assert b.margin(X, y, u, normalize=True) == pytest.approx(
        float((y * (unit_rows(X) @ u)).min()), rel=1e-12)
    v = np.random.default_rng(seed).normal(size=6)
    assert b.margin(Xs, y, v) == pytest.approx(float((y * (Xd @ v)).min()) / np.linalg.norm(v),
                                               rel=1e-12, abs=1e-12)
    Xn, yn, un = noisy(seed, 200, 6, flip=0.15)
    for gamma in (0.05, 0.2):
        assert b.total_distance(Xn, yn, un, gamma) == pytest.approx(td(Xn, yn, un, gamma),
                                                                    rel=1e-12)
        assert b.total_distance(Xn, yn, 2.5 * un, gamma) == pytest.approx(
            td(Xn, yn, un, gamma), rel=1e-12)
    assert b.total_distance(X, y, u, 0.1) == 0.0
    assert b.perceptron_bound(R, g) == pytest.approx((R / g) ** 2, rel=1e-15)
    assert b.perceptron_bound(2.0, 0.5, u_norm=3.0) == pytest.approx(144.0, rel=1e-15)
    assert b.margin_perceptron_bound(0.1) == pytest.approx(1200.0, rel=1e-15)
    assert b.td_bound(0.1, 0.0) == pytest.approx(100.0, rel=1e-15)
    assert b.td_bound(0.2, 3.0) == pytest.approx(25.0 + 30.0, rel=1e-15)
    assert b.kernel_perceptron_bound(4.0, 0.5) == pytest.approx(16.0, rel=1e-15)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError):
            b.perceptron_bound(1.0, bad)
        with pytest.raises(ValueError):
            b.margin_perceptron_bound(bad)


# -- the multiplicative family and the experts (hand-computed values) ------------------------------

def test_multiplicative_and_experts_bounds_by_hand():
    from mbcore import bounds as b
    assert b.winnow_bound(2, 1024) == 2 + 3 * 2 * (1 + 10)            # 68
    assert b.winnow_bound(0, 1) == 2.0
    assert b.elimination_winnow_bound(3, 256) == 2 * 3 * 8 + 2           # 50
    assert b.winnow_star_bound(512, 2) == 4 + 5 * (1 + 10) * 2           # 114
    # beta = 1/2: (m + log2 n) / log2(4/3) = 2.41 (m + log2 n)
    assert abs(b.weighted_majority_bound(5, 8) - (5 + 3) / math.log2(4 / 3)) < 1e-12
    assert abs(b.weighted_majority_bound(1, 2, beta=0.25) - (2 + 1) / math.log2(2 / 1.25)) < 1e-12
    assert abs(b.randomized_wm_bound(4, 16) - (4 * math.log(2) + math.log(16)) / 0.5) < 1e-12
    assert abs(b.specialists_bound(3, 100) - 3 * math.log(100) / math.log(1.5)) < 1e-12
    assert abs(b.specialists_bound(1, 64, promote=1.25, demote=0.75) -
               math.log(64) / math.log(1.25)) < 1e-12


@pytest.mark.parametrize("call", [
    lambda b: b.winnow_bound(-1, 10), lambda b: b.winnow_bound(1, 0),
    lambda b: b.winnow_bound(1.5, 10), lambda b: b.elimination_winnow_bound(True, 4),
    lambda b: b.winnow_star_bound(4, -1.0), lambda b: b.weighted_majority_bound(1, 4, beta=1.0),
    lambda b: b.weighted_majority_bound(-1, 4), lambda b: b.randomized_wm_bound(1, 4, beta=0),
    lambda b: b.specialists_bound(1, 4, promote=1.6, demote=0.5),   # demote + promote > 2
    lambda b: b.specialists_bound(1, 4, promote=1.0),
])
def test_multiplicative_and_experts_bounds_reject_bad_parameters(call):
    from mbcore import bounds as b
    with pytest.raises(ValueError):
        call(b)
