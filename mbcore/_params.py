"""Parameter checks, one place for every family: each raises a ValueError of one shape,
``"<Class>: parameter <name> must be <what>, got <value>"``, naming the class, the parameter
and the value received (validate once, in Python, with messages a user can act on).
"""

import abc
import math
import numbers

import numpy as np

__all__ = ["bad", "real", "integer", "choice", "flag", "mistake_bound", "positive", "nonnegative",
           "open_unit", "Constraint", "Real",
           "Integer", "Choice", "Flag", "Custom", "parameter_table"]


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
        raise bad(owner, name, value,
                  _real_range(low, high, low_inclusive, high_inclusive) if what is None else what)
    return float(value)


def _real_range(low, high, low_inclusive, high_inclusive):
    """"a finite real" with its range in words."""
    what = "a finite real"
    if low is not None and high is not None:
        what += (f" in {'[' if low_inclusive else '('}{low}, "
                 f"{high}{']' if high_inclusive else ')'}")
    elif low is not None:
        what += f" {'>=' if low_inclusive else '>'} {low}"
    elif high is not None:
        what += f" {'<=' if high_inclusive else '<'} {high}"
    return what


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


# -- the numbers of the theory's functions (mbcore.bounds, mbcore.margins, mbcore.certify): first
# "a finite real number", then the range, each with its own message.

def positive(owner, name, value):
    """A finite real number > 0, as a float."""
    real(owner, name, value, what="a finite real number")
    return real(owner, name, value, 0.0, what="> 0")


def nonnegative(owner, name, value):
    """A finite real number >= 0, as a float."""
    real(owner, name, value, what="a finite real number")
    return real(owner, name, value, 0.0, low_inclusive=True, what=">= 0")


def open_unit(owner, name, value):
    """A finite real number in (0, 1), as a float."""
    real(owner, name, value, what="a finite real number")
    return real(owner, name, value, 0.0, 1.0, high_inclusive=False, what="in (0, 1)")

# -- the parameters as data ---------------------------------------------------------------------
#
# Each learner class declares the domain of each of its parameters once, in ``_PARAMETERS``
# (merged along the class's bases, as scikit-learn's ``_parameter_constraints``):
# ``OnlineLearner._validate_params`` checks them, with the messages above; the tests draw the
# values each domain refuses from ``invalid()`` (tests/learners/test_parameters.py, against the
# class and its twin); the documentation's table of parameters is made from ``describe()``
# (:func:`parameter_table`).  What involves two parameters at once (``eta * lam <= 1``) stays in
# the class's ``_validate_params``, after the declared checks.

_NAN, _INF = float("nan"), float("inf")


class Constraint(abc.ABC):
    """The domain of one parameter: ``check(owner, name, value)`` returns the value (as the
    learner uses it) or raises the ValueError of :func:`bad`; ``describe()`` is the domain in
    words (the message's and the documentation's); ``invalid()`` gives values it refuses."""

    what = ""

    @abc.abstractmethod
    def check(self, owner, name, value):
        """The value as the learner uses it, or the ValueError of :func:`bad`."""

    def describe(self):
        return self.what

    def invalid(self):
        return []

    def __repr__(self):
        return f"{type(self).__name__}({self.describe()!r})"


class Real(Constraint):
    """A finite real in the given range (see :func:`real`); None too with ``none``."""

    def __init__(self, low=None, high=None, *, low_inclusive=False, high_inclusive=True,
                 none=False, what=None):
        self.low, self.high = low, high
        self.low_inclusive, self.high_inclusive = low_inclusive, high_inclusive
        self.none = none
        if what is None:
            what = _real_range(low, high, low_inclusive, high_inclusive) + \
                (" or None" if none else "")
        self.what = what

    def check(self, owner, name, value):
        if self.none and value is None:
            return None
        return real(owner, name, value, self.low, self.high, low_inclusive=self.low_inclusive,
                    high_inclusive=self.high_inclusive, what=self.what)

    def invalid(self):
        out = [_NAN, _INF, "1", True]
        if not self.none:
            out.append(None)
        if self.low is not None:
            out.append(self.low - max(1.0, abs(self.low)))
            if not self.low_inclusive:
                out.append(self.low)
        if self.high is not None:
            out.append(self.high + max(1.0, abs(self.high)))   # (+ 1 would round away at 2**64)
            if not self.high_inclusive:
                out.append(self.high)
        return out


class Integer(Constraint):
    """An integer (not a bool) in [low, high]; None too with ``none`` (see :func:`integer`)."""

    def __init__(self, low, high=None, *, none=False, what=None):
        self.low, self.high, self.none = low, high, none
        if what is None:
            what = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
            if none:
                what += " or None"
        self.what = what

    def check(self, owner, name, value):
        if self.none and value is None:
            return None
        ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Integral) \
            and value >= self.low and (self.high is None or value <= self.high)
        if not ok:
            raise bad(owner, name, value, self.what)
        return int(value)

    def invalid(self):
        out = [self.low - 1, 1.5, "1", True]
        if not self.none:
            out.append(None)
        if self.high is not None:
            out.append(self.high + 1)
        return out


class Choice(Constraint):
    """One of the strings ``choices`` (see :func:`choice`)."""

    def __init__(self, *choices):
        self.choices = tuple(choices)
        self.what = f"one of {list(self.choices)}"

    def check(self, owner, name, value):
        return choice(owner, name, value, self.choices)

    def invalid(self):
        return ["", self.choices[0].upper() + "?", None, 1]


class Flag(Constraint):
    """A bool (see :func:`flag`)."""

    what = "a bool"

    def check(self, owner, name, value):
        return flag(owner, name, value)

    def invalid(self):
        return [1, 0, "yes", None]


class Custom(Constraint):
    """A domain checked by a function ``check(owner, name, value)`` that raises the ValueError
    itself; ``what`` describes it, ``refused`` lists values it refuses."""

    def __init__(self, check, what, refused=()):
        self._check, self.what, self._refused = check, what, list(refused)

    def check(self, owner, name, value):
        return self._check(owner, name, value)

    def invalid(self):
        return list(self._refused)


def parameter_table(classes):
    """reStructuredText of the declared parameters of ``classes`` (``[(name, class), ...]``): one
    section per class, a row per parameter with its default and its domain."""
    import inspect
    lines = []
    for name, cls in classes:
        decl = cls._parameter_constraints()
        if not decl:
            continue
        sig = inspect.signature(cls.__init__).parameters
        lines += [name, "-" * len(name), "",
                  f".. list-table:: :class:`~mbcore.{name}`",
                  "   :header-rows: 1", "   :widths: 20 20 60", "",
                  "   * - parameter", "     - default", "     - domain"]
        for p, c in decl.items():
            default = sig[p].default if p in sig else inspect.Parameter.empty
            shown = "" if default is inspect.Parameter.empty else f"``{default!r}``"
            lines += [f"   * - ``{p}``", f"     - {shown}", f"     - {c.describe()}"]
        lines.append("")
    return "\n".join(lines) + "\n"
