"""Runs of 10**7 steps of the second-order learners (issue 38, "Bad input": a covariance that
would underflow or lose positive definiteness over 10**7 steps stays finite and positive).

A noisy stream of sparse rows, fed in chunks: 10**7 rows of 40 features for the diagonal form
of every Gaussian learner and NAROW, and 10**6 rows of 12 features for the full form (a full
step costs D^2).  After the run: every weight finite; every diagonal variance finite and at
least the floor a * 2**-52; every full covariance symmetric, finite and positive definite
(its smallest eigenvalue above zero); the counts add up.  A plain ``pytest`` leaves these out; ``pytest -m longrun`` runs
them, and CI does.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore

pytestmark = pytest.mark.longrun

CHUNK = 200_000


def _chunks(total, d, seed, nnz=6):
    """Sparse rows of nnz values in [-2, 2] (a few huge and tiny), labels from a fixed
    separator flipped with probability 0.1."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    done = 0
    while done < total:
        n = min(CHUNK, total - done)
        cols = np.sort(rng.random((n, d)).argsort(axis=1)[:, :nnz], axis=1)
        vals = rng.uniform(-2, 2, size=(n, nnz))
        vals[rng.random((n, nnz)) < 1e-4] *= 1e6
        vals[rng.random((n, nnz)) < 1e-4] *= 1e-6
        X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                          shape=(n, d))
        y = np.where(X @ u > 0, 1, -1)
        y[rng.random(n) < 0.1] *= -1
        yield X, y
        done += n


DIAGONAL = [("AROW", {}), ("ConfidenceWeighted", {}), ("SCW", {"variant": "SCW-I"}),
            ("SCW", {"variant": "SCW-II"}), ("NHERD", {}), ("NAROW", {})]


@pytest.mark.parametrize("name,params", DIAGONAL, ids=[f"{n}-{i}" for i, (n, _) in
                                                       enumerate(DIAGONAL)])
def test_ten_million_steps_of_the_diagonal_form_stay_finite(name, params):
    clf = getattr(mbcore, name)(**params)
    total = 10 ** 7
    for k, (X, y) in enumerate(_chunks(total, 40, 1)):
        clf.partial_fit(X, y, classes=[-1, 1] if k == 0 else None)
    assert clf.n_seen_ == total and 0 < clf.mistakes_ < total // 2
    assert np.all(np.isfinite(clf.coef_))
    S = clf.covariance_
    assert np.all(np.isfinite(S)) and S.min() >= clf.a * 2.0 ** -52


FULL = [("AROW", {}), ("ConfidenceWeighted", {}), ("NHERD", {}),
        ("SecondOrderPerceptron", {})]


@pytest.mark.parametrize("name,params", FULL, ids=[n for n, _ in FULL])
def test_a_million_steps_of_the_full_form_stay_finite_and_symmetric(name, params):
    clf = getattr(mbcore, name)(covariance="full", **params)
    total = 10 ** 6
    for k, (X, y) in enumerate(_chunks(total, 12, 2)):
        clf.partial_fit(X, y, classes=[-1, 1] if k == 0 else None)
    assert clf.n_seen_ == total
    S = clf.covariance_
    assert np.all(np.isfinite(S)) and np.array_equal(S, S.T)
    assert np.all(np.diag(S) > 0.0) and np.all(np.isfinite(clf.coef_))
    # positive definite, not only a positive diagonal: every eigenvalue above zero
    assert np.linalg.eigvalsh(S).min() > 0.0
