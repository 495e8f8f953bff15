"""The experts tests' shared helpers (not a test module: pytest does not collect it).

Both sides by name (``module``, ``new``, ``mod_param``), the online record and the state of an
experts learner as plain values (``online``, ``state``), the 0/1 advice streams
(``expert_stream``), the comparison of inputs (``same_input``) and the two mistake bounds
(``wm_bound``, ``rwm_bound``).  Used by test_experts.py and test_experts_multi.py.
"""

import math

import numpy as np
import pytest

import mbcore
import mbref
from conftest import as_list


# ------------------------------------------------------------------------------------------------
# Both sides, the online record and the state
# ------------------------------------------------------------------------------------------------

MODS = ("mbcore", "mbref")
mod_param = pytest.mark.parametrize("modname", MODS)


def module(modname):
    return mbcore if modname == "mbcore" else mbref


def new(modname, name, **params):
    return getattr(module(modname), name)(**params)


def record(run):
    """An mbcore.OnlineRun or an mbref.OnlineRun (same attributes) as plain lists
    (predictions, errors, mistakes)."""
    return {"predictions": as_list(run.predictions),
            "errors": [bool(e) for e in as_list(run.errors)], "mistakes": int(run.mistakes)}


def online(modname, clf, P, y, classes=None):
    return record(module(modname).run_online(clf, P, y, classes=classes))


def state(clf, with_weights=True):
    """Everything observable about a fitted experts learner, comparable with ==."""
    s = {"n_seen_": int(clf.n_seen_), "mistakes_": int(clf.mistakes_),
         "updates_": int(clf.updates_), "n_experts_": int(clf.n_experts_),
         "classes_": as_list(clf.classes_), "expert_mistakes_": as_list(clf.expert_mistakes_),
         "log2_weights_": as_list(clf.log2_weights_)}
    if with_weights:
        s["weights_"] = as_list(clf.weights_)
    return s


# ------------------------------------------------------------------------------------------------
# Streams
# ------------------------------------------------------------------------------------------------

def expert_stream(seed, n, T, lo=0.4, hi=0.6):
    """0/1 advice (T x n, uint8) and 0/1 labels.  Expert i errs independently with a rate drawn in
    [lo, hi]; for n >= 2 some experts are exact copies or complements of others, so equal weights
    and exact ties q1 == q0 occur."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=T).astype(np.uint8)
    err = rng.uniform(lo, hi, size=n)
    A = ((rng.random((T, n)) < err) ^ y[:, None].astype(bool)).astype(np.uint8)
    if n == 2:
        A[:, 1] = 1 - A[:, 0]                      # complements: ties whenever m0 == m1
    elif n >= 3:
        k = max(1, n // 5)
        src = rng.integers(0, n, size=2 * k)
        dst = rng.choice(n, size=2 * k, replace=False)
        for j in range(k):
            if src[j] != dst[j]:
                A[:, dst[j]] = A[:, src[j]]        # duplicates
        for j in range(k, 2 * k):
            if src[j] != dst[j]:
                A[:, dst[j]] = 1 - A[:, src[j]]    # complements
    return A, y


# ------------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------------

def same_input(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a == b


# ------------------------------------------------------------------------------------------------
# Mistake bounds
# ------------------------------------------------------------------------------------------------

def wm_bound(m_best, n, beta):
    return (m_best * math.log2(1 / beta) + math.log2(n)) / math.log2(2 / (1 + beta))


def rwm_bound(m_best, n, beta):
    return (m_best * math.log(1 / beta) + math.log(n)) / (1 - beta)
