"""The mistake bounds of the second-order learners (AROW, the second-order Perceptron) and
ALMA, as functions (mbcore.bounds) and as certificates (mbcore.certify).

The golden values are worked by hand from the formulas (eigenvalues that can be written
down); the certificates' quantities are recomputed here from runs of NumPy rules written from
the papers (not from mbcore's kernels), so that a certificate counting the wrong rows (all of
them, the updates for the mistakes, ...) fails.
"""

import math

import numpy as np
import pytest

import mbcore
from mbcore import ALMA, AROW, SecondOrderPerceptron, certify
from mbcore import bounds as B
from mbcore.certificates import VERIFIED, TRUSTED, VIOLATED, BoundViolationError
from mbcore.datasets import load_breast_cancer, load_mushrooms
from conftest import noisy, separable


# -- the functions: golden values worked by hand ------------------------------------------------

def test_arow_bound_golden_values():
    # two update rows x1 = (1, 0), x2 = (0, 2): X_A = diag(1, 4); u = (1, 1): ||u||^2 = 2,
    # u' X_A u = 1 + 4 = 5; r = a = 1: log det(I + X_A) = ln 2 + ln 5 = ln 10
    assert B.arow_bound(1.0, math.sqrt(2.0), 5.0, math.log(10.0)) == \
        pytest.approx(math.sqrt(7.0) * math.sqrt(math.log(10.0)), rel=1e-14)
    # one of the two was not a mistake (U = 1), hinge 0.5: the two quantities enter apart
    assert B.arow_bound(1.0, math.sqrt(2.0), 5.0, math.log(10.0), hinge=0.5, U=1) == \
        pytest.approx(math.sqrt(7.0) * math.sqrt(math.log(10.0) + 1.0) + 0.5 - 1.0, rel=1e-14)
    # r = 4, a = 2: r ||u||^2 / a = 4; log det(I + (2/4) diag(1, 4)) = ln 1.5 + ln 3 = ln 4.5
    assert B.arow_bound(4.0, math.sqrt(2.0), 5.0, math.log(4.5), a=2.0) == \
        pytest.approx(3.0 * math.sqrt(math.log(4.5)), rel=1e-14)
    assert B.arow_bound(1.0, 0.0, 0.0, 0.0, hinge=3.0, U=1) == 2.0        # u = 0: M <= M


def test_second_order_perceptron_bound_golden_values():
    # one mistake on x = (3, 4) with y = +1: X_M' X_M = [[9, 12], [12, 16]], eigenvalues 25
    # and 0; u = (1, 0), gamma = 0.5: y u . x = 3 >= gamma, D = 0; u' X X' u = 9; a = 1
    assert B.second_order_perceptron_bound(0.5, 1.0, 9.0, [25.0, 0.0]) == \
        pytest.approx(2.0 * math.sqrt(10.0 * math.log(26.0)), rel=1e-14)
    # mistakes on (1, 0) and (0, 2): eigenvalues 1 and 4; a = 2: ln 1.5 + ln 3; u = (1, 1),
    # gamma = 1, D = 1.5 (say); a ||u||^2 = 4, u' X X' u = 1 + 4
    assert B.second_order_perceptron_bound(1.0, math.sqrt(2.0), 5.0, [1.0, 4.0], D=1.5,
                                           a=2.0) == \
        pytest.approx(1.5 + math.sqrt(9.0 * math.log(4.5)), rel=1e-14)
    # scaling u and gamma together changes nothing
    b1 = B.second_order_perceptron_bound(0.5, 1.0, 9.0, [25.0], D=0.25)
    assert B.second_order_perceptron_bound(1.5, 3.0, 81.0, [25.0], D=0.75) == \
        pytest.approx(b1, rel=1e-14)
    assert B.second_order_perceptron_bound(0.5, 1.0, 9.0, []) == 0.0      # no mistake


def test_alma_bound_golden_values():
    assert B.alma_bound(0.5, 1.0) == 2.0 / 0.25 + 8.0 - 4.0 == 12.0
    assert B.alma_bound(0.25, 0.5, p=3.0) == 4.0 / (0.25 * 0.0625) + 16.0 - 4.0 == 268.0
    assert B.alma_bound(1.0, 1.0) == 6.0


@pytest.mark.parametrize("call, match", [
    (lambda: B.arow_bound(0.0, 1.0, 1.0, 1.0), "arow_bound: parameter r must be > 0"),
    (lambda: B.arow_bound(1.0, -1.0, 1.0, 1.0), "parameter u_norm must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, -0.1), "parameter log_det must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, 1.0, U=-1), "parameter U must be >= 0"),
    (lambda: B.arow_bound(1.0, 1.0, 1.0, 1.0, a=0.0), "parameter a must be > 0"),
    (lambda: B.arow_bound(1.0, 1.0, math.nan, 1.0), "parameter uXu must be a finite real"),
    (lambda: B.second_order_perceptron_bound(0.0, 1.0, 1.0, [1.0]),
     "second_order_perceptron_bound: parameter gamma must be > 0"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, [1.0, -2.0]),
     r"parameter eigenvalues\[1\] must be >= 0"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, 3.0),
     "parameter eigenvalues must be an iterable"),
    (lambda: B.second_order_perceptron_bound(1.0, 1.0, 1.0, [1.0], D=-1.0),
     "parameter D must be >= 0"),
    (lambda: B.alma_bound(1.5, 0.5), r"alma_bound: parameter gamma must be in \(0, 1\]"),
    (lambda: B.alma_bound(0.5, 0.0), r"parameter alpha must be a finite real in \(0.0, 1.0\]"),
    (lambda: B.alma_bound(0.5, 1.5), "parameter alpha"),
    (lambda: B.alma_bound(0.5, 0.5, p=1.5), "parameter p must be a finite real >= 2"),
])
def test_bound_functions_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- NumPy rules written from the papers, to know which rows count ------------------------------

def arow_rows(X, y, r=1.0, a=1.0):
    """AROW with the full covariance (tie: a score of 0 predicts -1): (mistake, update) per
    row."""
    w, S = np.zeros(X.shape[1]), a * np.eye(X.shape[1])
    mist, upd = [], []
    for x, t in zip(X, y):
        s = w @ x
        mist.append((1 if s > 0 else -1) != t)
        m, v = t * s, x @ S @ x
        upd.append(bool(m < 1.0 and v > 0.0))
        if upd[-1]:
            beta = 1.0 / (v + r)
            Sx = S @ x
            w = w + (1.0 - m) * beta * t * Sx
            S = S - beta * np.outer(Sx, Sx)
    return np.array(mist), np.array(upd)


def sop_rows(X, y, a=1.0):
    """The second-order Perceptron (full): mistake per row (the updates are the mistakes)."""
    theta, A = np.zeros(X.shape[1]), a * np.eye(X.shape[1])
    mist = []
    for x, t in zip(X, y):
        f = x @ np.linalg.solve(A + np.outer(x, x), theta)
        mist.append((1 if f > 0 else -1) != t)
        if mist[-1]:
            theta, A = theta + t * x, A + np.outer(x, x)
    return np.array(mist)


def alma2_rows(X, y, alpha, C=math.sqrt(2.0)):
    """ALMA_2 with B = 1/alpha: (mistake, update) per row."""
    Bv = 1.0 / alpha
    w, k = np.zeros(X.shape[1]), 1
    mist, upd = [], []
    for x, t in zip(X, y):
        xh = x / np.linalg.norm(x)
        s = w @ xh
        mist.append((1 if s > 0 else -1) != t)
        upd.append(bool(t * s <= (1.0 - alpha) * Bv / math.sqrt(k)))
        if upd[-1]:
            w = w + C / math.sqrt(k) * t * xh
            w = w / max(1.0, np.linalg.norm(w))
            k += 1
    return np.array(mist), np.array(upd)


def log_det(M, scale):
    return np.linalg.slogdet(np.eye(M.shape[0]) + scale * M)[1]


# -- certificates: not over-counted -------------------------------------------------------------

def test_arow_certificate_counts_its_updates_only():
    X, y, u = separable(3, 80, 3, 0.1, scale="mixed")
    mist, upd = arow_rows(X, y, r=0.5, a=2.0)
    # the stream has what tells the quantities apart: updates that are not mistakes, and rows
    # that are not updates
    assert 0 < mist.sum() < upd.sum() < len(y)
    XA = X[upd].T @ X[upd]
    u1 = 2.0 * u
    c = certify(AROW(r=0.5, a=2.0, covariance="full"), X, y, u=u1)
    q = c.quantities
    assert c.observed == mist.sum() == q["M"]
    assert q["U"] == upd.sum() - mist.sum()
    assert q["log_det"] == pytest.approx(log_det(XA, 2.0 / 0.5), rel=1e-9)
    assert q["log_det"] != pytest.approx(log_det(X.T @ X, 2.0 / 0.5), rel=1e-3)   # all rows
    assert q["uXu"] == pytest.approx(((X[upd] @ u1) ** 2).sum(), rel=1e-9)
    hinge = np.maximum(0.0, 1.0 - y * (X @ u1))
    assert q["hinge"] == pytest.approx(hinge[upd].sum(), rel=1e-9)
    assert q["hinge"] != pytest.approx(hinge.sum(), rel=1e-3)
    assert q["not_updated"] == 0
    want = math.sqrt(0.5 * 4.0 / 2.0 + q["uXu"]) * math.sqrt(q["log_det"] + q["U"]) \
        + q["hinge"] - q["U"]
    assert c.bound == pytest.approx(want, rel=1e-12)
    assert c.holds and c.verified and c.bound_name == "AROW, full covariance"


def test_arow_mistakes_it_cannot_update_on_are_added_as_they_are():
    """A zero row (v = 0) is a mistake when the tie goes against its label, and no update:
    the proof's sum runs over the updates, so it is added to the bound, once per such row."""
    X, y, u = separable(13, 40, 3, 0.1)
    X = np.vstack([np.zeros((3, 3)), X, np.zeros((2, 3))])
    y = np.concatenate([[1, -1, 1], y, [1, 1]])           # tie "negative": the +1 ones err
    mist, upd = arow_rows(X, y)
    assert (mist & ~upd).sum() == 4
    g = np.min((y * (X @ u))[3:-2])
    c = certify(AROW(covariance="full"), X, y, u=u / g)
    q = c.quantities
    assert q["not_updated"] == 4 and q["M"] == mist.sum() and q["U"] == (upd & ~mist).sum()
    assert q["hinge"] == pytest.approx(0.0, abs=1e-9)        # (over the updates only)
    XA = X[upd].T @ X[upd]
    want = math.sqrt(1.0 / g ** 2 + q["uXu"]) * math.sqrt(log_det(XA, 1.0) + q["U"]) - q["U"] + 4
    assert c.bound == pytest.approx(want, rel=1e-9) and c.holds and c.verified
    s = certify(SecondOrderPerceptron(covariance="full"), X, y, u=u, gamma=g)
    # the second-order Perceptron's zero-row mistakes are updates that add 0: each costs
    # gamma in D (y u . 0 = 0), none is added apart
    assert s.quantities["not_updated"] == 0
    assert s.quantities["D"] == pytest.approx(4 * g, rel=1e-9) and s.holds


def test_arow_certificate_counts_every_pass():
    X, y, u = separable(4, 40, 3, 0.1)
    g = np.min(y * (X @ u))                      # (u / g: margin 1 on every row)
    c = certify(AROW(covariance="full"), X, y, passes=3, u=u / g)
    mist, upd = arow_rows(np.vstack([X] * 3), np.concatenate([y] * 3))
    assert c.observed == mist.sum() == c.quantities["M"]
    assert c.quantities["U"] == upd.sum() - mist.sum()
    XA = np.vstack([X] * 3)[upd]
    assert c.quantities["log_det"] == pytest.approx(log_det(XA.T @ XA, 1.0), rel=1e-9)
    assert c.quantities["hinge"] == pytest.approx(0.0, abs=1e-9) and c.holds


def test_second_order_perceptron_certificate_counts_its_mistakes_only():
    X, y, u = noisy(5, 90, 4, flip=0.1)
    a = 0.5
    mist = sop_rows(X, y, a)
    assert 0 < mist.sum() < len(y)
    gamma = 0.05
    c = certify(SecondOrderPerceptron(a=a, covariance="full"), X, y, u=u, gamma=gamma)
    q = c.quantities
    XM = X[mist]
    lam = np.linalg.eigvalsh(XM @ XM.T)          # (the m x m side: its nonzero eigenvalues)
    assert c.observed == mist.sum() == q["M"]
    assert q["sum_log"] == pytest.approx(np.log1p(np.clip(lam, 0, None) / a).sum(), rel=1e-9)
    assert q["sum_log"] != pytest.approx(np.log1p(np.linalg.eigvalsh(X.T @ X) / a).sum(),
                                         rel=1e-3)
    m = y * (X @ u)
    assert q["D"] == pytest.approx(np.maximum(0.0, gamma - m[mist]).sum(), rel=1e-9)
    assert q["D"] > 0 and q["D"] != pytest.approx(np.maximum(0.0, gamma - m).sum(), rel=1e-3)
    assert q["uXu"] == pytest.approx(((XM @ u) ** 2).sum(), rel=1e-9)
    want = q["D"] / gamma + math.sqrt((a * (u @ u) + q["uXu"]) * q["sum_log"]) / gamma
    assert c.bound == pytest.approx(want, rel=1e-12)
    assert c.holds and c.verified


def test_alma_certificate_counts_its_updates():
    X, y, u = separable(6, 200, 4, 0.15, scale="mixed")
    mist, upd = alma2_rows(X, y, 0.5)
    assert mist.sum() < upd.sum() < len(y)          # updates are neither mistakes nor rows
    c = certify(ALMA(alpha=0.5), X, y, u=u)
    assert c.counted == "updates" and c.observed == upd.sum()
    g = np.min(y * (X @ u) / np.linalg.norm(X, axis=1))
    assert c.quantities["gamma"] == pytest.approx(g, rel=1e-9)
    assert c.bound == pytest.approx(2.0 / (0.25 * g * g) + 16.0 - 4.0, rel=1e-12)
    assert c.holds and c.verified


def test_a_bound_below_the_count_is_reported_as_a_bug(monkeypatch):
    """The check is live: a bound (wrongly) below the run's count raises."""
    import mbcore.certificates.second_order as so
    X, y, u = separable(7, 60, 3, 0.1)
    monkeypatch.setattr(so, "arow_bound", lambda *a, **k: 0.5)
    with pytest.raises(BoundViolationError, match="above the bound"):
        certify(AROW(covariance="full"), X, y, u=u)


# -- certificates hold: real data and synthetic separable streams ------------------------------

@pytest.mark.parametrize("learner", [
    AROW(covariance="full"), AROW(covariance="full", r=0.1, a=2.0, fit_intercept=True),
    SecondOrderPerceptron(covariance="full"),
    SecondOrderPerceptron(covariance="full", a=0.5, fit_intercept=True),
    ALMA(), ALMA(alpha=0.5, fit_intercept=True)])
def test_certificates_hold_on_the_mushrooms(learner):
    X, y = load_mushrooms()                 # separable (margin about 0.26 through the origin)
    c = certify(learner, X, y)
    assert c.bound is not None and c.verified and c.holds, c.summary()
    assert c.quantities["gamma"] > 0


def test_arow_and_sop_certificates_on_data_no_u_separates():
    X, y = load_breast_cancer()             # not separable
    for learner in (AROW(covariance="full", fit_intercept=True),
                    SecondOrderPerceptron(covariance="full", fit_intercept=True)):
        c = certify(learner, X, y)
        assert c.bound is not None and c.verified and c.holds, c.summary()
        assert any("not separated" in text for text, _ in c.assumptions)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_certificates_hold_with_a_known_u(seed):
    X, y, u = separable(seed, 150, 5, 0.1, scale="mixed")
    g = np.min(y * (X @ u))
    a = certify(AROW(covariance="full", r=2.0), X, y, u=u / g)      # margin 1: no hinge loss
    assert a.verified and a.holds and a.quantities["hinge"] == pytest.approx(0.0, abs=1e-9)
    s = certify(SecondOrderPerceptron(covariance="full"), X, y, u=u, gamma=g)
    assert s.verified and s.holds and s.quantities["D"] == pytest.approx(0.0, abs=1e-12)
    for p in (2.0, 3.0):
        c = certify(ALMA(p=p, alpha=0.7), X, y, u=u, passes=3)
        assert c.verified and c.holds and c.quantities["gamma"] > 0


def test_trusted_margins():
    X, y, u = separable(8, 100, 3, 0.2)
    for learner in (AROW(covariance="full"), SecondOrderPerceptron(covariance="full"),
                    ALMA(p=3.0)):
        c = certify(learner, X, y, gamma=0.2)
        assert c.bound is not None and c.holds and not c.verified
        assert TRUSTED in [s for _, s in c.assumptions]


# -- no bound, with the reason -------------------------------------------------------------------

def test_violated_assumptions_give_no_bound_with_the_reason():
    X, y, u = separable(9, 80, 3, 0.2)
    for learner, why in ((ALMA(B=2.0), "proved for B = 1/alpha and C = sqrt(2)"),
                         (ALMA(C=1.0), "proved for B = 1/alpha and C = sqrt(2)"),
                         (AROW(), "AROW's bound for the full covariance"),
                         (SecondOrderPerceptron(), "full correlation matrix")):
        c = certify(learner, X, y, u=u)
        assert c.bound is None and why in c.reason, (learner, c.reason)
        assert VIOLATED in [s for _, s in c.assumptions]
    c = certify(ALMA(p=3.0), X, y)
    assert c.bound is None and "give u (checked) or gamma (trusted)" in c.reason
    c = certify(ALMA(), X, y, u=-u)
    assert c.bound is None and "does not separate" in c.reason


@pytest.mark.parametrize("name", ["ConfidenceWeighted", "SCW", "NHERD", "NAROW"])
def test_learners_whose_bound_is_not_checked_say_why(name):
    X, y, _ = separable(10, 40, 3, 0.2)
    cls = getattr(mbcore, name)
    c = certify(cls(), X, y)
    assert c.bound is None and c.reason == cls._TAGS.no_bound
    assert "the notes give no mistake bound" not in c.reason and f"none for {name}" in c.reason
    Xk = np.vstack([X, X + 5.0])
    yk = np.concatenate([y, np.full(len(y), 2)])
    assert certify(cls(), Xk, yk).reason == cls._TAGS.no_bound       # K = 3 classes too


def test_no_bound_tag_cannot_sit_beside_a_rule():
    from mbcore._tags import LearnerTags
    with pytest.raises(TypeError, match="no_bound=.* with a bound rule"):
        LearnerTags(takes="features", bound="arow", no_bound="why").check(
            mbcore.AROW, mbcore.base.OnlineLearner)


# -- K >= 3 classes: the sum of the binary bounds -----------------------------------------------

def three_classes(seed, n=150):
    rng = np.random.default_rng(seed)
    centres = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]])
    y = rng.integers(0, 3, size=n)
    X = centres[y] + rng.uniform(-1.0, 1.0, size=(n, 3))
    return X, y


@pytest.mark.parametrize("learner", [
    AROW(covariance="full", multi_class="ovr", fit_intercept=True),
    SecondOrderPerceptron(covariance="full", fit_intercept=True),
    ALMA(fit_intercept=True)])
def test_one_vs_rest_sums_the_binary_bounds(learner):
    X, y = three_classes(11)
    c = certify(learner, X, y)
    assert c.bound is not None and c.verified and c.holds, c.summary()
    assert c.bound == pytest.approx(sum(c.quantities["binary bounds"]), rel=1e-12)
    # each binary certificate is of the binary learner of the one-vs-rest problem, which is
    # the K-class learner's learner k (same state after the same rows)
    fitted = mbcore.clone(learner).partial_fit(X, y)
    for k in range(3):
        yk = np.where(y == k, 1, -1)
        binary = mbcore.clone(learner).partial_fit(X, yk)
        assert np.array_equal(binary.coef_, fitted.coef_[k])
        one = certify(learner, X, yk)
        assert one.bound == pytest.approx(c.quantities["binary bounds"][k], rel=1e-12)
    counted = c.quantities["binary " + c.counted]
    assert c.observed <= sum(counted)


def test_the_single_constraint_k_class_form_has_no_bound():
    X, y = three_classes(12)
    c = certify(AROW(), X, y)                      # multi_class="multiclass", diagonal
    assert c.bound is None and "multi_class='ovr'" in c.reason
    c = certify(AROW(multi_class="ovr"), X, y)     # diagonal: no binary bound
    assert c.bound is None and "full covariance" in c.reason
