"""Checks and helpers shared by the modules of :mod:`mbcore.queries`: integers, callables,
concepts evaluated on arrays of points, NumPy scalars.  A private module made for sharing: its
names are its API within the subpackage."""

import numbers

import numpy as np

from .._params import integer as check_int

__all__ = ["is_int", "check_int", "hashable", "check_callable", "evaluate", "scalar"]


# -- checks ----------------------------------------------------------------------------------------

def is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def hashable(c):
    """Whether c can be a dict key."""
    try:
        hash(c)
    except TypeError:
        return False
    return True


def check_callable(owner, name, value, what="a callable"):
    if not callable(value):
        raise TypeError(f"{owner}: parameter {name} must be {what}, got "
                        f"{type(value).__name__} ({value!r})")
    return value


def evaluate(owner, name, f, X):
    """Labels of the rows of X under f (``f.predict(X)`` or ``f(X)``), as a 1-D array."""
    g = getattr(f, "predict", None)
    out = np.asarray(g(X) if callable(g) else f(X))
    m = X.shape[0]
    if out.shape != (m,):
        raise ValueError(f"{owner}: {name} must map {m} points to {m} labels (a 1-D array), "
                         f"got shape {out.shape}")
    return out


def scalar(v):
    return v.item() if isinstance(v, np.generic) else v
