"""Numerics shared by the multiplicative families (Winnow, Weighted Majority, Specialists):
one definition, mirrored once in ``mbref._numerics``.

Those families keep weights as base-2 logarithms and run in an *exact mode* when their factors
are powers of two (integer log-weights, exact predictions for any run length); these helpers
decide which mode a parameter allows.
"""

import math
import numbers

import numpy as np

__all__ = ["pow2_exponent", "is_real", "finite"]


def pow2_exponent(v):
    """k if the float v is exactly 2**k, else None (v > 0)."""
    m, e = math.frexp(v)
    return e - 1 if m == 0.5 else None


def is_real(v):
    """A real number (a bool is not one)."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def finite(v):
    """A real number that is finite as a float64 (a huge int is not)."""
    if not is_real(v):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False
