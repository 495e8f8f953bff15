"""Numerics shared by the multiplicative families (the twin of ``mbcore._numerics``):
weights kept as base-2 logarithms, and the tests that decide the exact mode."""

import math
import numbers

__all__ = ["pow2_exponent", "term", "finite"]


def pow2_exponent(v):
    """k if v == 2**k exactly (v > 0), else None."""
    m, e = math.frexp(v)
    return e - 1 if m == 0.5 else None


def term(l):
    """2**l as a float64 (an integer l gives an exact power of two, or 0 / inf out of range)."""
    if l == -math.inf:
        return 0.0
    if l == int(l):
        li = int(l)
        if li > 1023:
            return math.inf
        return math.ldexp(1.0, li) if li >= -1074 else 0.0
    try:
        return 2.0 ** l
    except OverflowError:  # C's pow gives inf
        return math.inf


def finite(v):
    """A real number that is finite as a float64 (a huge int is not)."""
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False
