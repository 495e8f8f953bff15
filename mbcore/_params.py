"""Parameter checks, one place for every family: each raises a ValueError of one shape,
``"<Class>: parameter <name> must be <what>, got <value>"``, naming the class, the parameter
and the value received (validate once, in Python, with messages a user can act on).
"""

import math
import numbers

import numpy as np

__all__ = ["bad", "real", "integer", "choice", "flag", "mistake_bound"]


def bad(owner, name, value, what):
    """The error for parameter ``name`` of ``owner`` that is not ``what``."""
    return ValueError(f"{owner}: parameter {name} must be {what}, got {value!r}")


def _is_real(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:              # an int too large for a float64
        return False


def real(owner, name, value, low=None, high=None, *, low_inclusive=False,
         high_inclusive=True, what=None):
    """A finite real number, above ``low`` (or at it, with ``low_inclusive``) and at most
    ``high`` (or below it, without ``high_inclusive``); returned as a float.  ``what`` replaces
    the default description in the message ("a finite real in (0, 1]", ...)."""
    ok = _is_real(value)
    if ok and low is not None:
        ok = value >= low if low_inclusive else value > low
    if ok and high is not None:
        ok = value <= high if high_inclusive else value < high
    if not ok:
        if what is None:
            what = "a finite real"
            if low is not None and high is not None:
                what += (f" in {'[' if low_inclusive else '('}{low}, "
                         f"{high}{']' if high_inclusive else ')'}")
            elif low is not None:
                what += f" {'>=' if low_inclusive else '>'} {low}"
            elif high is not None:
                what += f" {'<=' if high_inclusive else '<'} {high}"
        raise bad(owner, name, value, what)
    return float(value)


def integer(owner, name, value, low, high=None, *, none=False, what=None):
    """An integer (not a bool) in [low, high]; None too with ``none``.  Returned as an int."""
    if none and value is None:
        return None
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Integral) and \
        value >= low and (high is None or value <= high)
    if not ok:
        if what is None:
            what = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
            if none:
                what += " or None"
        raise bad(owner, name, value, what)
    return int(value)


def choice(owner, name, value, choices):
    """One of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise bad(owner, name, value, f"one of {list(choices)}")
    return value


def flag(owner, name, value):
    """A bool (Python's or NumPy's)."""
    if not isinstance(value, (bool, np.bool_)):
        raise bad(owner, name, value, "a bool")
    return bool(value)


def mistake_bound(owner, name, value, low):
    """A mistake bound as the most mistakes it allows: an integer >= low, or the integer part
    of a finite real >= low."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        v = int(value)
    else:
        v = real(owner, name, value, what="a finite real number")
        v = math.floor(v) if v >= low else v
    if v < low:
        raise bad(owner, name, value, f"a mistake bound >= {low}")
    return int(v)
