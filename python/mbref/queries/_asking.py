"""Asking an oracle, what the twins of :mod:`mbref.queries.graphs` and
:mod:`mbref.queries.group_testing` share (as mbcore's ``mbcore.queries._asking``): the checks of
the parameters, an answer read (a bool, or a count), a set shown in a message, the halves of a
set, and the error of a run that reaches its budget (:class:`QueryBudgetExceeded`, whose home,
as before, is ``mbref.queries.graphs``).
"""

from ..exceptions import InconsistentOracleError
from ._common import is_int

__all__ = ["QueryBudgetExceeded"]


class QueryBudgetExceeded(RuntimeError):
    """A learner reached its query budget (``max_queries`` / ``max_tests``); ``budget`` is
    the budget, ``where`` the step that wanted one more query."""

    def __init__(self, message, budget=None, where=None):
        super().__init__(message)
        self.budget, self.where = budget, where


# (defined here, for both modules; shown and pickled under its home, which re-exports it)
QueryBudgetExceeded.__module__ = "mbref.queries.graphs"


def _integer(owner, name, value, low):
    if is_int(value) and value >= low:
        return int(value)
    raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")


def _flag(owner, name, value):
    if not isinstance(value, bool):
        raise ValueError(f"{owner}: parameter {name} must be a bool, got {value!r}")
    return value


def _oracle(owner, name, f, what):
    if callable(f):
        return f
    raise TypeError(f"{owner}: parameter {name} must be {what}, got {type(f).__name__} ({f!r})")


def _show(S, k=12):
    """A set as the messages name it: ``{0, 1, 2}``, the first 12 and a count when longer."""
    shown = [str(int(v)) for v in S]
    if len(shown) > k:
        shown = shown[:k] + [f"... ({len(shown)} vertices)"]
    return "{" + ", ".join(shown) + "}"


def _plain(a):
    """A NumPy scalar as the Python number it holds (the twin imports no NumPy)."""
    return a.item() if type(a).__module__ == "numpy" and hasattr(a, "item") else a


def _answer(owner, a, S, counting=False):
    """An oracle's answer: a bool (True/False or 1/0), or for a counting oracle an int >= 0."""
    a = _plain(a)
    if counting and is_int(a) and a >= 0:
        return int(a)
    if counting:
        raise InconsistentOracleError(
            f"{owner}: the edge-counting oracle answered {a!r} for the query {_show(S)}, "
            "expected an integer >= 0", S, a)
    if isinstance(a, bool) or (is_int(a) and a in (0, 1)):
        return bool(a)
    raise InconsistentOracleError(f"{owner}: the oracle answered {a!r} for the query "
                                  f"{_show(S)}, expected True/False (or 1/0)", S, a)


def _ceil_log2(n):
    """The least L with 2^L >= n (the depth of halving n items down to one)."""
    L = 0
    while (1 << L) < n:
        L += 1
    return L


def _halves(X):
    """The first ceil(len/2) items and the rest."""
    cut = len(X) - len(X) // 2
    return X[:cut], X[cut:]
