"""Group testing (Angluin's lecture 28): find the defective items among 0..n-1 with tests of
groups, each saying whether the group holds a defective (the heavy coin of lecture 28): the
game of :mod:`mbcore.queries.graphs` with single items instead of edges.

* :func:`find_defective` (one defective, adaptive binary search or the non-adaptive bit design,
  ceil(log2 n) tests, and one more, only when n is a power of two, to test alone an item that
  no positive test held) and :func:`find_defectives` (d defectives by binary splitting).

A test is a callable ``test(S) -> bool`` called with S a tuple of items; its answers are
checked as the edge-detecting oracle's are (:class:`InconsistentOracleError`, naming the
test), and ``max_tests`` caps a run (:class:`QueryBudgetExceeded`).  Every name here is
importable from :mod:`mbcore.queries.graphs` too (their home before 0.2) and from
:mod:`mbcore.queries`.

Examples
--------
Lecture 28's heavy coin: 8 coins, weighed in the groups "first bit 0", "second bit 0", "third
bit 0"; the coin is in the third group only, so its number is 110 = 6.

>>> res = find_defective(8, lambda S: 6 in S, adaptive=False)
>>> [list(S) for S, _ in res.record], res.defectives, res.tests
([[0, 1, 2, 3], [0, 1, 4, 5], [0, 2, 4, 6]], (6,), 3)
"""

from typing import List, Tuple

import numpy as np

from ..bounds import group_testing_bound
from ._asking import (QueryBudgetExceeded, _answer, _budget, _halves, _inconsistent,
                      _log2_ceil, _show)
from ._common import check_callable, check_int

__all__ = ["GroupTestResult", "find_defective", "find_defectives"]


class GroupTestResult:
    """What :func:`find_defective` and :func:`find_defectives` return.

    Attributes
    ----------
    defectives : tuple of int
        Sorted.
    tests : int
        Tests asked.
    bound : int
        The most tests the method asks (:func:`mbcore.bounds.group_testing_bound`):
        ``group_testing_bound(n + 1, d)`` = d ceil(log2(n + 1)) for :func:`find_defective`
        (d = 1) and :func:`find_defectives` with d known, whose searches also tell "none" from
        the n items; ``group_testing_bound(n, d, known=False)`` with d unknown, at the number
        of defectives found.
    held : bool
        ``tests <= bound``.
    adaptive : bool
    record : list of (group, answer)
        Every test in order: the group as a tuple of items, the answer as a bool.

    Examples
    --------
    >>> find_defective(4, lambda S: 2 in S)
    GroupTestResult(defectives=(2,), tests=2, bound=3, held=True)
    """

    def __init__(self, defectives, tests, bound, adaptive, record):
        self.defectives = defectives
        self.tests = tests
        self.bound = bound
        self.held = tests <= bound
        self.adaptive = adaptive
        self.record = record

    def __repr__(self):
        return (f"GroupTestResult(defectives={self.defectives!r}, tests={self.tests}, "
                f"bound={self.bound}, held={self.held})")


def _unseen(o, ask, x, searched, where, fits):
    """Test the item x alone: a search named it though no positive test held it (the
    ``searched`` tests of the search, if any, were all negative), so nothing yet says it is
    defective.  A negative answer means that the answers fit no defective there:
    InconsistentOracleError, naming the test."""
    S = (x,)
    if not ask(S, f"the test of item {x} alone"):
        if searched:
            told = (f"the {searched} test{'s' if searched > 1 else ''} {where} "
                    f"{'were all' if searched > 1 else 'was'} negative, and so was the test "
                    f"of item {x} alone, the one item those answers leave")
        else:
            told = f"item {x} is the only candidate, and its test alone was negative"
        raise _inconsistent(f"{o}: {told}: {fits} (does the test ever answer True?)",
                            S, False)


def find_defective(n, test, adaptive=True) -> GroupTestResult:
    """Find the one defective item (the heavy coin) among 0..n-1 (Angluin lecture 28).

    Adaptive: binary search; test the first ceil(k/2) of the k candidates and keep the half
    that holds the defective.  Non-adaptive: number the items with K = ceil(log2 n) bits, most
    significant first; test k (k = 1..K) is the group of items whose k-th bit is 0, and the
    answers spell the defective's number (bit k = 1 where test k is 0).  The lecture's
    example: of 8 coins, the heavy one outside the first two groups and inside the third is
    110 = 6, found in 3 tests.

    An item is named only when a positive test held it.  When every answer is negative (a
    test that never fires, or no defective at all), the answers point at the one item that no
    test held: the last item for binary search, 11...1 = n - 1 for the bit design when n is a
    power of two (for other n that number is not an item, and the answers are refused at
    once); n = 1 asks no search test.  That item is then tested alone, and a negative answer
    raises :class:`InconsistentOracleError`.  Under the lecture's promise of exactly one
    defective, ceil(log2 n) tests are optimal; telling the n items from "none" as well is
    n + 1 possibilities, and both forms use at most ceil(log2(n + 1)) tests (one more than
    ceil(log2 n) only when n is a power of two, and only for the last item).

    Parameters
    ----------
    n : int >= 1
    test : callable
        ``test(S) -> bool``: whether the group S (a tuple of items) holds the defective.
    adaptive : bool, default=True

    Returns
    -------
    GroupTestResult
        ``defectives`` (one item), ``tests``, ``bound`` = ceil(log2(n + 1)) (that is
        :func:`mbcore.bounds.group_testing_bound` ``(n + 1)``: the n items and "none"),
        ``held``, ``record``.

    Raises
    ------
    InconsistentOracleError
        An answer other than True/False; answers that fit no single defective: non-adaptive
        answers that spell a number >= n, or every answer negative including the test of the
        one item they leave.

    Examples
    --------
    >>> find_defective(8, lambda S: 6 in S, adaptive=False).defectives
    (6,)
    >>> res = find_defective(1000, lambda S: 417 in S)
    >>> res.defectives, res.tests, res.bound
    ((417,), 10, 10)

    A test that never fires: binary search ends at the last item, which no test held, and
    tests it alone.

    >>> try:
    ...     find_defective(20, lambda S: False)
    ... except InconsistentOracleError as exc:
    ...     print(exc.query, exc.answer)
    (19,) False
    """
    o = "find_defective"
    n = check_int(o, "n", n, 1)
    check_callable(o, "test", test, "a test test(S) -> bool")
    if not isinstance(adaptive, (bool, np.bool_)):
        raise ValueError(f"{o}: parameter adaptive must be a bool, got {adaptive!r}")
    adaptive = bool(adaptive)
    k = _log2_ceil(n)
    record: List[Tuple[Tuple[int, ...], bool]] = []

    def ask(S, where=None):
        a = _answer(o, test(S), S)
        record.append((S, a))
        return a

    if adaptive:
        lo, hi = 0, n
        while hi - lo > 1:
            mid = lo + (hi - lo + 1) // 2
            S = tuple(range(lo, mid))
            lo, hi = (lo, mid) if ask(S) else (mid, hi)
        x = lo
    else:
        x = 0
        groups = [tuple(i for i in range(n) if not (i >> (k - 1 - b)) & 1) for b in range(k)]
        for b, S in enumerate(groups):
            if not ask(S):
                x |= 1 << (k - 1 - b)
        if x >= n:
            raise _inconsistent(
                f"{o}: the answers {[int(a) for _, a in record]} spell the item {x}, but there "
                f"are only {n} items (0..{n - 1}): no single defective fits them",
                record[-1][0], record[-1][1])
    if not any(a for _, a in record):
        _unseen(o, ask, x, len(record), "of the binary search" if adaptive else "of the design",
                "no single defective fits the answers")
    return GroupTestResult((x,), len(record), group_testing_bound(n + 1, 1), adaptive, record)


def find_defectives(n, test, d=None, max_tests=None) -> GroupTestResult:
    """Find every defective among 0..n-1 by binary splitting (group testing, lecture 28).

    Repeat: test the remaining items (skipped when d is given: they still hold a defective);
    when the test is positive, binary-search one defective inside them (test the first half;
    keep it when positive, else the second half), remove it from the remaining items.  When d
    is given and every test of a search is negative, the item the search ends at was held by
    no positive test: it is tested alone, and a negative answer raises
    :class:`InconsistentOracleError` (the remaining items hold no defective, so the answers fit
    no d defectives; a test that never fires is caught).  A search among r items thus costs at
    most ceil(log2(r + 1)) tests with d known and ceil(log2 r) after the positive test of the
    remaining items; the bound is d ceil(log2(n + 1)) when d is known and
    d (ceil(log2 n) + 1) + 1 when it is not (one test of the remaining items per defective and
    a last negative one).  This is plain binary splitting, not Hwang's generalised binary
    splitting (about d log2(n/d) + d tests).

    At the end every answer is checked against the defectives found (a negative test holds
    none of them, a positive one holds one).  The searches find whatever set of defectives the
    answers fit, so a mismatch means that no set fits them: :class:`InconsistentOracleError`,
    naming the test.

    Parameters
    ----------
    n : int >= 1
    test : callable
        ``test(S) -> bool``: whether the group S (a tuple of items) holds a defective.
    d : int, optional
        The number of defectives, when known.
    max_tests : int, optional
        Raise :class:`QueryBudgetExceeded` rather than test more.

    Returns
    -------
    GroupTestResult
        ``bound``: :func:`mbcore.bounds.group_testing_bound` ``(n + 1, d)`` with d known,
        ``group_testing_bound(n, k, known=False)`` for the k found otherwise.

    Raises
    ------
    InconsistentOracleError
        An answer other than True/False; with d given, answers that fit no d defectives.

    Examples
    --------
    >>> res = find_defectives(100, lambda S: bool({3, 50, 77} & set(S)), d=3)
    >>> res.defectives, res.tests <= 3 * 7, res.bound
    ((3, 50, 77), True, 21)
    """
    o = "find_defectives"
    n = check_int(o, "n", n, 1)
    check_callable(o, "test", test, "a test test(S) -> bool")
    if d is not None:
        d = check_int(o, "d", d, 0)
        if d > n:
            raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    budget = _budget(o, "max_tests", max_tests)
    record: List[Tuple[Tuple[int, ...], bool]] = []

    def ask(S, where):
        if budget is not None and len(record) >= budget:
            raise QueryBudgetExceeded(f"{o}: max_tests={budget} reached ({where} needed test "
                                      f"{len(record) + 1}, on {_show(S)})", budget, where)
        a = _answer(o, test(S), S)
        record.append((S, a))
        return a

    rest = list(range(n))
    found: List[int] = []
    while rest and (d is None or len(found) < d):
        S = tuple(rest)
        if d is None and not ask(S, "the remaining items"):
            break
        seen = d is None                  # the remaining items were tested positive
        X, asked = S, len(record)
        while len(X) > 1:
            X1, X2 = _halves(X)
            if ask(X1, "binary search: first half"):
                X, seen = X1, True
            else:
                X = X2
        if not seen:
            _unseen(o, ask, X[0], len(record) - asked,
                    f"of the binary search among the {len(S)} remaining items",
                    f"the remaining item{'s hold' if len(S) > 1 else ' holds'} no "
                    f"defective, so the answers fit no set of {d} defective"
                    f"{'s' if d > 1 else ''} (d={d} was given; {len(found)} found before)")
        found.append(X[0])
        rest.remove(X[0])
    # the answers must fit the defectives found: a negative test may hold none of them (not
    # even one found by a later search), a positive test must hold one
    D = set(found)
    for S, a in record:
        if a == D.isdisjoint(S):
            some = f"{d} " if d is not None else ""
            raise _inconsistent(
                f"{o}: the test of {_show(S)} answered {a}, but it holds "
                f"{'none of the defectives found, ' if a else 'the defectives found '}"
                f"{sorted(D) if a else sorted(D.intersection(S))}: no set of "
                f"{some}defectives fits the answers", S, a)
    k = len(found)
    bound = group_testing_bound(n + 1, k) if d is not None else \
        group_testing_bound(n, k, known=False)
    return GroupTestResult(tuple(sorted(found)), len(record), bound, True, record)
