"""Adversaries (mbcore.adversary and its twin mbref.adversary): the lower-bound demonstrations,
each number compared with its formula computed here; the tree adversary against every learner
family of the notes (exact mistakes = the tree's depth, a consistent leaf), randomized learners
(a mean near depth/2 within the binomial spread), bad input, and the twin's games."""

import math

import numpy as np
import pytest

import mbcore
import mbref
from mbcore import adversary as adv
from mbref import adversary as ref_adv


# -- Winnow: k blocks, binary search inside each ----------------------------------------------

def _k_log(n, k):
    """k * floor(log2(floor(n / k))), by counting halvings."""
    m, h = n // k, 0
    while m >= 2:
        m //= 2
        h += 1
    return k * h


@pytest.mark.parametrize("n,k", [(64, 4), (100, 3), (1024, 1), (17, 17), (1000, 10)])
def test_winnow_demonstration_forces_k_log_n_over_k_and_stays_under_winnows_bound(n, k):
    d = adv.winnow_demonstration(n, k)
    want = _k_log(n, k)
    assert d.mistakes == want == d.bound
    assert d.upper == 2 + 3 * k * (1 + math.log2(n))            # Winnow2 (Angluin lecture 18)
    assert d.holds
    # the labels are the disjunction of the targets' variables: one per block
    target = d.details["target"]
    m = n // k
    assert [t // m for t in target] == list(range(k))
    for ones, label in zip(d.details["rows"], d.details["labels"]):
        assert label == int(any(i in target for i in ones))
    assert d.details["k_log_n_over_k"] == pytest.approx(k * math.log2(n / k))


def test_winnow_demonstration_on_any_learner():
    from sklearn.linear_model import Perceptron as SkPerceptron
    sk = SkPerceptron().partial_fit(np.zeros((1, 32)), [0], classes=[0, 1])
    for learner in (mbcore.Perceptron(), mbcore.Disjunction(), sk, mbcore.EliminationWinnow(),
                    mbcore.BalancedWinnow(), mbref.Winnow()):
        d = adv.winnow_demonstration(32, 2, learner=learner)
        assert d.mistakes == _k_log(32, 2) == 8
        assert d.upper is None and d.holds


# -- Weighted Majority: two experts that disagree ---------------------------------------------

@pytest.mark.parametrize("T", [2, 3, 10, 1001])
@pytest.mark.parametrize("beta", [0.5, 0.9, 0.999])
def test_weighted_majority_errs_every_round_and_the_best_expert_half(T, beta):
    d = adv.weighted_majority_demonstration(T, beta=beta)
    assert d.mistakes == T
    assert sorted(d.details["expert_mistakes"]) == [T // 2, T - T // 2]
    m = T // 2
    assert d.details["m_best"] == m and d.bound == 2 * m
    assert d.details["ratio"] == T / m >= 2
    factor = math.log2(1 / beta) / math.log2(2 / (1 + beta))
    assert d.details["factor"] == pytest.approx(factor, rel=1e-15)
    assert d.upper == pytest.approx((m * math.log2(1 / beta) + 1) / math.log2(2 / (1 + beta)))
    assert d.holds and T <= d.upper


def test_weighted_majority_ratio_approaches_two_and_the_factor_is_2_41_at_one_half():
    ratios = [adv.weighted_majority_demonstration(T).details["ratio"] for T in (3, 11, 101, 1001)]
    assert ratios == [3 / 1, 11 / 5, 101 / 50, 1001 / 500]
    assert all(a > b for a, b in zip(ratios, ratios[1:])) and ratios[-1] - 2 < 0.01
    assert adv.weighted_majority_demonstration(4).details["factor"] == \
        pytest.approx(1 / math.log2(4 / 3))                      # 2.409...: the notes' 2.41
    factors = [adv.weighted_majority_demonstration(4, beta=b).details["factor"]
               for b in (0.5, 0.9, 0.99, 0.999)]
    assert all(a > b > 2 for a, b in zip(factors, factors[1:]))  # (2 + eps) as beta -> 1
    assert factors[-1] - 2 < 0.001


# -- the Perceptron: orthogonal vectors --------------------------------------------------------

@pytest.mark.parametrize("d,R", [(1, 1.0), (7, 1.0), (25, 2.0), (100, 0.3)])
def test_perceptron_meets_r_over_gamma_squared_on_orthogonal_vectors(d, R):
    dem = adv.perceptron_demonstration(d, R=R)
    assert dem.mistakes == d
    labels = np.array(dem.details["labels"])
    X = np.eye(d) * R
    y = np.where(labels == 1, 1.0, -1.0)
    # R and gamma measured by NumPy here, and by mbcore.bounds
    R_np = np.sqrt((X ** 2).sum(axis=1)).max()
    u = y / np.sqrt(d)
    g_np = (y * (X @ u) / np.linalg.norm(u)).min()
    assert dem.details["R"] == pytest.approx(R_np, rel=1e-15)
    assert dem.details["gamma"] == pytest.approx(g_np, rel=1e-14)
    assert mbcore.bounds.margin(X, y, u) == pytest.approx(dem.details["gamma"], rel=1e-14)
    assert (R_np / g_np) ** 2 == pytest.approx(d, rel=1e-12)
    assert dem.bound == dem.upper == pytest.approx(d, abs=1e-9) and dem.holds
    # the Perceptron (tie -> -1 at w.x = 0) is labelled +1 every round
    assert labels.tolist() == [1] * d


def test_perceptron_demonstration_on_any_learner():
    p = mbcore.Perceptron(tie="positive")
    dem = adv.perceptron_demonstration(6, learner=p)
    assert dem.mistakes == 6 and dem.details["labels"] == [0] * 6 and p.mistakes_ == 6
    dem = adv.perceptron_demonstration(6, learner=mbcore.PassiveAggressive())
    assert dem.mistakes == 6 and dem.upper is None and dem.holds


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda m: m.winnow_demonstration(0, 1), "winnow_demonstration: parameter n"),
    (lambda m: m.winnow_demonstration(4, 5), "winnow_demonstration: parameter k must be an "
                                             "integer in \\[1, n = 4\\], got 5"),
    (lambda m: m.winnow_demonstration(4, 1.5), "parameter k"),
    (lambda m: m.weighted_majority_demonstration(1), "parameter rounds"),
    (lambda m: m.weighted_majority_demonstration(5, beta=1.0), "parameter beta"),
    (lambda m: m.perceptron_demonstration(0), "perceptron_demonstration: parameter d"),
    (lambda m: m.perceptron_demonstration(3, R=-1.0), "parameter R"),
])
@pytest.mark.parametrize("module", [adv, ref_adv], ids=["mbcore", "mbref"])
def test_demonstrations_refuse_bad_parameters(module, call, match):
    with pytest.raises(ValueError, match=match):
        call(module)


class _NoFit:
    def predict(self, X):
        return [0]


@pytest.mark.parametrize("module", [adv, ref_adv], ids=["mbcore", "mbref"])
def test_a_learner_without_partial_fit_is_refused(module):
    with pytest.raises(TypeError, match=r"winnow_demonstration: the learner \(_NoFit\) must "
                                        r"have predict and partial_fit methods; it has no "
                                        r"partial_fit"):
        module.winnow_demonstration(8, 2, learner=_NoFit())


def test_a_learner_that_cannot_predict_yet_and_counts_no_mistakes_is_told_what_to_do():
    from sklearn.linear_model import Perceptron as SkPerceptron
    with pytest.raises(ValueError, match=r"cannot predict before its first example.*"
                                         r"classes=\[0, 1\]"):
        adv.perceptron_demonstration(3, learner=SkPerceptron())


# -- the twin ------------------------------------------------------------------------------------

def test_the_twins_demonstrations_give_the_same_numbers():
    for a, b in [(adv.winnow_demonstration(100, 3), ref_adv.winnow_demonstration(100, 3)),
                 (adv.weighted_majority_demonstration(21, beta=0.7),
                  ref_adv.weighted_majority_demonstration(21, beta=0.7)),
                 (adv.perceptron_demonstration(13, R=1.7),
                  ref_adv.perceptron_demonstration(13, R=1.7))]:
        assert a.to_dict() == b.to_dict()
