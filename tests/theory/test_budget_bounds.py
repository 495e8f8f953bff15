"""The budget kernel Perceptrons' mistake bounds as functions (``mbcore.bounds.forgetron_bound``,
``forgetron_norm_cap``, ``projectron_bound``): values worked by hand, their domains, and runs of
the learners (the twins of ``mbref.budget``) on streams labelled by a known comparator g of the
RBF kernel's space, g = sum_i a_i K(z_i, .), whose norm sqrt(a' K_Z a) and hinge losses are
computed here with NumPy: the mistakes stay within each bound.
"""

import math

import numpy as np
import pytest

import mbref
from mbcore.bounds import forgetron_bound, forgetron_norm_cap, projectron_bound


def test_values_worked_by_hand():
    assert forgetron_norm_cap(83) == pytest.approx(0.25 * math.sqrt(84 / math.log(84)))
    assert forgetron_norm_cap(100) == pytest.approx(1.16953, abs=1e-5)
    assert forgetron_bound(0.5, hinge=1.0, budget=83) == 2 * 0.25 + 4
    assert projectron_bound(0.1, 5.0) == pytest.approx(25 / 0.25)          # 25 / (1 - 0.5)^2
    assert projectron_bound(0.1, 5.0, hinge=3.0) == pytest.approx(100 + 6 / 0.5)


@pytest.mark.parametrize("call, word", [
    (lambda: forgetron_bound(0.5, budget=82), "budget"),
    (lambda: forgetron_bound(1.2, budget=100), "g_norm"),     # above U = 1.1695
    (lambda: forgetron_bound(-1.0), "g_norm"),
    (lambda: forgetron_bound(0.5, hinge=math.nan), "hinge"),
    (lambda: forgetron_norm_cap(0), "budget"),
    (lambda: projectron_bound(0.5, 2.0), "< 1"),
    (lambda: projectron_bound(-0.1, 2.0), "eta"),
    (lambda: projectron_bound(0.1, math.inf), "g_norm"),
])
def test_out_of_range_values_are_refused(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def _stream(norm, n=400, d=4, gamma=0.5, seed=0):
    """Rows in [-1, 1]^d labelled by g = sum_i a_i K(z_i, .) scaled to ||g|| = norm: (X, y,
    ||g||, L(g))."""
    rng = np.random.default_rng(seed)
    Z = rng.uniform(-1, 1, (6, d))
    a = rng.normal(size=6)
    KZ = np.exp(-gamma * ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    a *= norm / math.sqrt(a @ KZ @ a)
    X = rng.uniform(-1, 1, (n, d))
    g = np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)) @ a
    y = np.where(g > 0, 1, -1)
    y[rng.random(n) < 0.05] *= -1                   # some noise: L(g) > 0
    return X, y, math.sqrt(a @ KZ @ a), float(np.maximum(0.0, 1.0 - y * g).sum())


@pytest.mark.parametrize("seed", [0, 1])
def test_the_forgetron_stays_within_its_bound(seed):
    B = 90
    X, y, gn, L = _stream(forgetron_norm_cap(B), seed=seed)
    f = mbref.budget.Forgetron(budget=B, gamma=0.5)
    f.partial_fit(X.tolist(), y.tolist())
    bound = forgetron_bound(gn, hinge=L, budget=B)
    assert f.mistakes_ <= bound
    assert f.n_support_ == min(B, f.mistakes_)


@pytest.mark.parametrize("cls", ["Projectron", "ProjectronPP"])
def test_the_projectrons_stay_within_their_bound(cls):
    X, y, gn, L = _stream(3.0, seed=2)
    p = getattr(mbref.budget, cls)(eta=0.1, gamma=0.5)
    p.partial_fit(X.tolist(), y.tolist())
    assert p.mistakes_ <= projectron_bound(0.1, gn, hinge=L)


# -- certify, on the compiled learners ----------------------------------------------------------

def test_certify_checks_the_forgetron_and_the_bound_holds():
    from mbcore import Forgetron, certify
    X, y, _, _ = _stream(1.0, n=300, seed=3)
    cert = certify(Forgetron(budget=90, gamma=0.5), X, y)
    assert cert.bound is not None and cert.verified and cert.holds
    assert cert.observed <= cert.bound
    # the claimed bound is the function's at the certificate's own g: no looser, no tighter
    q = cert.quantities
    assert q["g_norm"] <= forgetron_norm_cap(90)
    assert cert.bound == pytest.approx(forgetron_bound(q["g_norm"], q["hinge"], 90))
    # the scale search: no worse than g = 0 (the bound 4 n) nor than the cap's scale
    assert cert.bound <= 4 * len(y) and q["g_norm"] > 0


def test_certify_refuses_the_forgetron_below_83_and_a_projectron_with_a_budget():
    from mbcore import Forgetron, Projectron, certify
    X, y, _, _ = _stream(1.0, n=100, seed=4)
    for learner, word in ((Forgetron(budget=50, gamma=0.5), "83"),
                          (Projectron(budget=20, eta=0.1, gamma=0.5), "budget=None")):
        cert = certify(learner, X, y)
        assert cert.bound is None and word in cert.summary(), cert.summary()


def test_certify_checks_the_projectrons_and_refuses_kernel_values_above_one():
    from mbcore import Projectron, ProjectronPP, certify
    X, y, _, _ = _stream(3.0, n=300, seed=5)
    for cls in (Projectron, ProjectronPP):
        cert = certify(cls(eta=0.1, gamma=0.5), X, y)
        assert cert.bound is not None and cert.holds and cert.observed <= cert.bound
        q = cert.quantities
        assert cert.bound == pytest.approx(projectron_bound(0.1, q["g_norm"], q["hinge"]))
    cert = certify(Projectron(eta=0.1, kernel="linear"), 3.0 * X, y)   # K(x, x) up to 36
    assert cert.bound is None and "K(x, x)" in cert.summary()


def test_certify_sums_the_one_vs_rest_forgetron_bounds():
    from mbcore import Forgetron, certify
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, (150, 3))
    y = np.digitize(X[:, 0], [-0.3, 0.3])             # three classes
    cert = certify(Forgetron(budget=85, gamma=0.5), X, y)
    assert cert.bound is not None and cert.holds
    assert len(cert.quantities["binary bounds"]) == 3
    assert cert.bound == pytest.approx(sum(cert.quantities["binary bounds"]))
