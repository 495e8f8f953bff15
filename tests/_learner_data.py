"""The data of every learner, from what its class declares its rows to be (``_TAKES``): shared
by the contract suite (learners/test_learners_contract.py) and the parameter tests
(learners/test_parameters.py)."""

import numpy as np

from _cases import tag

N = 60


def data(cls, seed=0):
    """(rows, labels, keyword arguments of partial_fit/predict) for the kind of rows the class
    declares."""
    rng = np.random.default_rng(seed)
    kind = tag(cls, "takes")
    if kind == "features":
        X = (rng.random((N, 8)) < 0.4).astype(np.float64)
        y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + (rng.random(N) < 0.1) > 0.5, 1, -1)
        return X, y, {}
    if kind in ("advice", "awake advice"):
        y = rng.integers(0, 2, N)
        P = np.where(rng.random((N, 5)) < 0.7, y[:, None], 1 - y[:, None]).astype(np.int64)
        if kind == "advice":
            return P, y, {}
        return P, y, {"awake": rng.random((N, 5)) < 0.6}
    if kind == "categorical":
        X = rng.integers(0, 3, (N, 4))
        return X, (X[:, 0] == X[:, 1]).astype(np.int64), {}
    if kind == "points":
        pts = rng.integers(0, 12, N)
        # labelled by concept 5 of the test class: bit p of 5 on points 0-3, the parity
        # (popcount(5) + p - 4) % 2 = p % 2 on points 4-11
        y = np.array([(5 >> p) & 1 if p < 4 else p % 2 for p in pts])
        return pts, y, {}
    raise AssertionError(f"{cls.__name__}: no data for rows of kind {kind!r}")
