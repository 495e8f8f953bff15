"""``mbcore.certify`` of a SelectiveSampler: the expected mistake bound of Cesa-Bianchi, Gentile &
Zaniboni (2006, Theorem 1) beside the runs (``mbcore.certificates.selective``).

* The bound's value at a given u worked here in NumPy from the theorem's formula; the scale
  that minimises it along a direction equals a brute-force search over a fine grid.
* On a stream built to meet the theorem (separable with a known margin), the mean mistakes
  over many seeds stay under the bound; a single run above an (here, a wrongly trusted) bound
  is reported as such, never raised: the bound is on the expectation.
* Where Theorem 1 does not apply (a learner other than the Perceptron, the adaptive variant,
  three classes) there is no bound, and the reason says why.
* The Perceptron's eta scales its weights, so its coin with b is the eta = 1 coin with b / eta:
  the runs ask the same rows, and the bound uses b / eta.
"""

import math

import numpy as np
import pytest

import mbcore
from mbcore import Perceptron, SelectiveSampler, certify
from mbcore.certificates.selective import best_scale


def _separable(seed, n=400, d=6, gamma=0.25):
    """Rows in the unit ball, labelled by a unit u* with margin at least gamma (rows closer
    to the hyperplane dropped)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = []
    while len(X) < n:
        x = rng.normal(size=d)
        x *= rng.random() ** (1 / d) / np.linalg.norm(x)
        if abs(x @ u) >= gamma:
            X.append(x)
    X = np.array(X)
    return X, np.where(X @ u > 0, 1, -1), u


def _theorem(b, R, hinge, u_norm):
    return (1 + R * R / (2 * b)) * hinge + (2 * b + R * R) ** 2 * u_norm ** 2 / (8 * b)


def test_the_bound_at_a_given_u_is_the_theorems():
    X, y, u = _separable(1)
    cert = certify(SelectiveSampler(Perceptron(), b=0.3), X, y, u=2.0 * u)
    R = np.sqrt((X ** 2).sum(axis=1).max())
    hinge = np.maximum(0.0, 1 - y * (X @ (2.0 * u))).sum()
    at_u = _theorem(0.3, R, hinge, 2.0)
    values = [cert.bound] + [v for _, v in cert.alternatives]
    assert any(math.isclose(v, at_u, rel_tol=1e-12) for v in values)
    assert cert.bound <= at_u * (1 + 1e-12)
    assert math.isclose(cert.quantities["R"], R, rel_tol=1e-12)
    assert cert.counted == "mistakes (one seeded run)" and cert.verified


def test_the_scale_is_the_minimum_of_a_grid():
    rng = np.random.default_rng(3)
    for _ in range(20):
        m = rng.normal(size=50) + rng.choice([0.0, 0.8])
        A, B, P = rng.uniform(1, 5), rng.uniform(0.05, 3), int(rng.integers(1, 3))

        def f(c):
            return A * P * np.maximum(0.0, 1.0 - c * m).sum() + B * c * c
        c = best_scale(m, A, B, P)
        grid = np.linspace(0.0, 3.0 * max(c, 1.0), 20001)
        assert f(c) <= min(f(g) for g in grid) + 1e-9


def test_the_mean_of_many_runs_stays_under_the_expected_bound():
    X, y, _ = _separable(2, n=300, gamma=0.2)
    cert = certify(SelectiveSampler(Perceptron(), b=0.5), X, y, repeats=40)
    assert cert.counted == "mistakes (mean of 40 seeded runs)"
    assert len(cert.runs) == 40 and cert.observed == np.mean([m for m, _ in cert.runs])
    assert cert.quantities["gamma"] > 0.19          # (the margin search finds u*'s margin)
    assert cert.holds and cert.observed < cert.bound
    # the runs are the sampler's, seeded random_state, random_state + 1, ...
    again = [SelectiveSampler(Perceptron(), b=0.5, random_state=k).run_online(X, y)
             for k in (0, 1)]
    assert [(r.mistakes, r.labels_asked) for r in again] == cert.runs[:2]


def test_a_run_above_an_expectation_bound_is_reported_not_raised():
    """gamma taken on trust (wrongly, here) makes the bound tiny: the run is above it, the
    certificate says so, and nothing is raised: a bound on the expectation is not broken by
    one run."""
    X, y, _ = _separable(4)
    cert = certify(SelectiveSampler(Perceptron(), b=1.0), X, y, gamma=100.0)
    assert cert.holds is False and cert.bound < cert.observed
    assert ("trusted" in dict((s, t) for t, s in cert.assumptions))
    text = cert.summary()
    assert "on the expected mistakes" in text and "one run may exceed a bound on the " \
        "expectation" in text
    d = cert.to_dict()
    assert d["expectation"] is True and d["runs"] == [list(r) for r in cert.runs]


@pytest.mark.parametrize("sampler,why", [
    (SelectiveSampler(mbcore.AROW(), b=1.0), "no bound is checked for a AROW"),
    (SelectiveSampler(mbcore.MarginPerceptron(gamma=0.1)), "for a MarginPerceptron"),
    (SelectiveSampler(Perceptron(), adaptive=True), "the adaptive variant"),
])
def test_where_theorem_1_does_not_apply_there_is_no_bound(sampler, why):
    X, y, _ = _separable(5, n=100)
    cert = certify(sampler, X, y)
    assert cert.bound is None and why in cert.reason
    assert cert.observed == sampler.run_online(X, y).mistakes


def test_three_classes_have_no_bound():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(90, 4))
    y = np.argmax(X[:, :3], axis=1)
    cert = certify(SelectiveSampler(Perceptron()), X, y)
    assert cert.bound is None and "two classes" in cert.reason


def test_eta_is_b_over_eta():
    X, y, _ = _separable(7)
    a = SelectiveSampler(Perceptron(eta=2.0), b=2.0).run_online(X, y)
    b = SelectiveSampler(Perceptron(), b=1.0).run_online(X, y)
    assert a.asked.tolist() == b.asked.tolist() and a.mistakes == b.mistakes
    c2 = certify(SelectiveSampler(Perceptron(eta=2.0), b=2.0), X, y)
    c1 = certify(SelectiveSampler(Perceptron(), b=1.0), X, y)
    assert c2.quantities["b/eta"] == 1.0
    assert math.isclose(c2.bound, c1.bound, rel_tol=1e-9)


def test_passes_count_the_hinge_loss_of_every_pass():
    X, y, u = _separable(8, n=200)
    u = 0.5 * u                       # (margin 1/8 of u*'s scale: some hinge loss)
    one = certify(SelectiveSampler(Perceptron(), b=0.5), X, y, u=u)
    two = certify(SelectiveSampler(Perceptron(), b=0.5), X, y, u=u, passes=2)
    hinge = np.maximum(0.0, 1 - y * (X @ u)).sum()
    assert hinge > 0
    R = np.sqrt((X ** 2).sum(axis=1).max())
    given = [_theorem(0.5, R, k * hinge, np.linalg.norm(u)) for k in (1, 2)]
    for cert, value in zip((one, two), given):
        assert any(math.isclose(v, value, rel_tol=1e-12)
                   for v in [cert.bound] + [v for _, v in cert.alternatives])
    assert two.run.n == 2 * len(y)
    assert two.observed == sum(r.mistakes for r in (lambda S: [S.run_online(X, y),
                                                               S.run_online(X, y)])(
        SelectiveSampler(Perceptron(), b=0.5)))


def test_the_intercept_and_normalised_rows_are_the_learners():
    X, y, u = _separable(9, n=150)
    X = X * 3.0 + 0.5
    cert = certify(SelectiveSampler(Perceptron(fit_intercept=True, normalize=True), b=0.5), X, y)
    assert cert.quantities["R"] == pytest.approx(1.0)
    cert = certify(SelectiveSampler(Perceptron(fit_intercept=True), b=0.5), X, y)
    assert cert.quantities["R"] == pytest.approx(np.sqrt(((X ** 2).sum(axis=1) + 1).max()))
    with pytest.raises(ValueError, match="u has 6 entries, the rows as the learner sees them "
                                         "have 7"):
        certify(SelectiveSampler(Perceptron(fit_intercept=True), b=0.5), X, y, u=u)
