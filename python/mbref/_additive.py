"""What the additive family's twins share (``mbref.linear`` and ``mbref.kernel``): the parameter
checks, the tie rule's domain and the argmax of the multi-class rules."""

import math
import numbers

_TIES = ("negative", "positive")


def _check_choice(owner, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{owner}: parameter {name} must be one of {list(choices)}, got {value!r}")


def _check_real(owner, name, value, low=None, high=None, low_open=True, high_open=False):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and \
        math.isfinite(float(value))
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        lo = "" if low is None else ("(" if low_open else "[") + str(low)
        hi = "" if high is None else str(high) + (")" if high_open else "]")
        rng = f" in {lo}, {hi}" if low is not None and high is not None else (
            f" > {low}" if low is not None and low_open else
            f" >= {low}" if low is not None else "")
        raise ValueError(f"{owner}: parameter {name} must be a finite real{rng}, got {value!r}")


def _argmax(scores, skip=None):
    """The smallest index k (k != skip) with the largest score: scan k = 0..K-1, replacing the
    best only on a strictly greater score."""
    best = None
    for k, v in enumerate(scores):
        if k == skip:
            continue
        if best is None or v > scores[best]:
            best = k
    return best


def _check_int(owner, name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")
