"""Asking an oracle, what the learners of :mod:`mbcore.queries.graphs` and
:mod:`mbcore.queries.group_testing` share: an answer checked (True/False, or a count), a query
shown in a message, the error naming the query an answer contradicts, the budget and the error
that stops a run at it (:class:`QueryBudgetExceeded`, public in both modules, shown and pickled
under its home ``mbcore.queries.graphs``), and the halves of a set.
"""

import numpy as np

from ..exceptions import InconsistentOracleError
from ._common import check_int, is_int

__all__ = ["QueryBudgetExceeded"]


def _inconsistent(message, query=None, answer=None):
    """The InconsistentOracleError (mbcore.exceptions) naming a query (a sorted tuple)."""
    return InconsistentOracleError(message, None if query is None else
                                   tuple(int(v) for v in query), answer)


class QueryBudgetExceeded(RuntimeError):
    """A learner reached its query budget (``max_queries`` / ``max_tests``) before finishing.

    Attributes
    ----------
    budget : int
    where : str
        The step that wanted one more query.

    Examples
    --------
    >>> Q = EdgeDetectingOracle([(0, 1), (5, 9)], n=10)
    >>> try:
    ...     learn_graph(10, Q, max_queries=3)
    ... except QueryBudgetExceeded as exc:
    ...     print(exc.budget, Q.calls)
    3 3
    """

    def __init__(self, message, budget=None, where=None):
        super().__init__(message)
        self.budget = budget
        self.where = where


# (defined here, for both modules; its home, as before, is mbcore.queries.graphs, which
# re-exports it: its name in a traceback and in a pickle)
QueryBudgetExceeded.__module__ = "mbcore.queries.graphs"


def _answer(owner, a, S, counting=False):
    if isinstance(a, np.generic):
        a = a.item()
    if counting:
        if not is_int(a) or a < 0:
            raise _inconsistent(
                f"{owner}: the edge-counting oracle answered {a!r} for the query {_show(S)}, "
                "expected an integer >= 0", S, a)
        return int(a)
    if isinstance(a, bool) or (is_int(a) and a in (0, 1)):
        return bool(a)
    raise _inconsistent(f"{owner}: the oracle answered {a!r} for the query "
                                  f"{_show(S)}, expected True/False (or 1/0)", S, a)


def _show(S, k=12):
    S = [int(v) for v in S]
    if len(S) <= k:
        return "{" + ", ".join(map(str, S)) + "}"
    return "{" + ", ".join(map(str, S[:k])) + f", ... ({len(S)} vertices)" + "}"


def _log2_ceil(n):
    return (n - 1).bit_length() if n > 1 else 0


def _budget(owner, name, value):
    return None if value is None else check_int(owner, name, value, 0)


def _halves(X):
    h = (len(X) + 1) // 2
    return X[:h], X[h:]
