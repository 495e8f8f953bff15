"""Group testing, written from lecture 28 (twin of ``mbcore.queries.group_testing``; standard
library only): find the defective items among 0..n-1 with tests of groups, each saying whether
the group holds a defective.

* one defective (the heavy coin): binary search, or the non-adaptive design "group k = the
  items whose k-th bit is 0", the answers spelling the defective's number;
* several: binary splitting (test the remaining items, binary-search one defective in them,
  remove it, repeat).

The tests are asked in the same order as mbcore's, with mbcore's messages word for word; every
name here is importable from ``mbref.queries.graphs`` too, as before.
"""

from ..exceptions import InconsistentOracleError
from ._asking import (QueryBudgetExceeded, _answer, _ceil_log2, _flag, _halves, _integer,
                      _oracle, _show)

__all__ = ["GroupTestResult", "find_defective", "find_defectives", "group_testing_bound"]


class GroupTestResult:
    """What :func:`find_defective` and :func:`find_defectives` return: ``defectives`` (sorted
    tuple), ``tests``, ``bound``, ``held``, ``adaptive`` and ``record`` ((group, answer) in
    order)."""

    def __init__(self, defectives, tests, bound, adaptive, record):
        self.defectives, self.tests, self.bound = defectives, tests, bound
        self.held = tests <= bound
        self.adaptive, self.record = adaptive, record

    def __repr__(self):
        return (f"GroupTestResult(defectives={self.defectives!r}, tests={self.tests}, "
                f"bound={self.bound}, held={self.held})")


def group_testing_bound(n, d=1, known=True):
    """Tests of binary splitting for d defectives among n items: a binary search costs
    ceil(log2 n); with d known, d searches; with d unknown, each search is preceded by a
    positive test of the remaining items, and one last test finds them clean."""
    o = "group_testing_bound"
    n = _integer(o, "n", n, 1)
    d = _integer(o, "d", d, 0)
    if d > n:
        raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    _flag(o, "known", known)
    search = _ceil_log2(n)
    return d * search if known else d * (1 + search) + 1


def _alone(o, ask, x, searched, where, fits):
    """Test x alone: a search ended at x though no positive test held it (its ``searched``
    tests were all negative); a negative answer leaves no defective the answers fit."""
    S = (x,)
    if ask(S, f"the test of item {x} alone"):
        return
    if searched == 0:
        told = f"item {x} is the only candidate, and its test alone was negative"
    else:
        tests = "1 test" if searched == 1 else f"{searched} tests"
        were = "was" if searched == 1 else "were all"
        told = (f"the {tests} {where} {were} negative, and so was the test of item {x} alone, "
                "the one item those answers leave")
    raise InconsistentOracleError(f"{o}: {told}: {fits} (does the test ever answer True?)",
                                  S, False)


def find_defective(n, test, adaptive=True):
    """The one defective among 0..n-1 (the heavy coin, lecture 28): binary search (test the
    first ceil(k/2) of the k candidates), or the non-adaptive design of K = ceil(log2 n)
    groups, group b holding the items whose bit K-1-b is 0 (a negative answer sets that bit
    of the defective's number).  With no positive answer the item named is tested alone.  The
    bound: ceil(log2(n + 1)) (the n items and "none")."""
    o = "find_defective"
    n = _integer(o, "n", n, 1)
    _oracle(o, "test", test, "a test test(S) -> bool")
    adaptive = _flag(o, "adaptive", adaptive)
    record = []

    def ask(S, where=None):
        record.append((S, _answer(o, test(S), S)))
        return record[-1][1]

    if adaptive:
        candidates = range(n)
        while len(candidates) > 1:
            first = candidates[:len(candidates) - len(candidates) // 2]
            candidates = first if ask(tuple(first)) else candidates[len(first):]
        x = candidates[0]
    else:
        K = _ceil_log2(n)
        bits = [K - 1 - b for b in range(K)]            # most significant first
        groups = [tuple(i for i in range(n) if not i >> bit & 1) for bit in bits]
        x = sum(1 << bit for bit, S in zip(bits, groups) if not ask(S))
        if x >= n:
            spelled = [int(a) for _, a in record]
            last_group, last_answer = record[-1]
            raise InconsistentOracleError(
                f"{o}: the answers {spelled} spell the item {x}, but there are only {n} items "
                f"(0..{n - 1}): no single defective fits them", last_group, last_answer)
    if True not in (a for _, a in record):          # no positive test held x: test it alone
        where = "of the binary search" if adaptive else "of the design"
        _alone(o, ask, x, len(record), where, "no single defective fits the answers")
    bound = group_testing_bound(n + 1, 1)           # the n items and "none"
    return GroupTestResult((x,), len(record), bound, adaptive, record)


def _binary_search(ask, X):
    """One item of X by halving: the first half is tested and kept when positive, else the
    second half is kept; also whether some test was positive."""
    positive = False
    while len(X) > 1:
        first, second = _halves(X)
        keep = ask(first, "binary search: first half")
        positive = positive or keep
        X = first if keep else second
    return X[0], positive


def find_defectives(n, test, d=None, max_tests=None):
    """Every defective among 0..n-1 by binary splitting (lecture 28): test the remaining items
    (not with d given: they still hold one), binary-search one defective inside them (the
    first half tested), remove it, repeat; every answer is checked against the defectives
    found at the end.  Bounds: d ceil(log2(n + 1)) with d known, d (ceil(log2 n) + 1) + 1
    otherwise."""
    o = "find_defectives"
    n = _integer(o, "n", n, 1)
    _oracle(o, "test", test, "a test test(S) -> bool")
    d = None if d is None else _integer(o, "d", d, 0)
    if d is not None and d > n:
        raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    budget = None if max_tests is None else _integer(o, "max_tests", max_tests, 0)
    record = []

    def ask(S, where):
        if budget is not None and len(record) == budget:
            raise QueryBudgetExceeded(f"{o}: max_tests={budget} reached ({where} needed test "
                                      f"{len(record) + 1}, on {_show(S)})", budget, where)
        record.append((S, _answer(o, test(S), S)))
        return record[-1][1]

    remaining = list(range(n))
    found = []
    while remaining and (d is None or len(found) < d):
        S = tuple(remaining)
        if d is None and not ask(S, "the remaining items"):
            break
        before = len(record)
        x, positive = _binary_search(ask, S)
        if not positive and d is not None:      # d given, and no positive test held x
            items = "items hold" if len(S) > 1 else "item holds"
            defectives = "defectives" if d > 1 else "defective"
            fits = (f"the remaining {items} no defective, so the answers fit no set of {d} "
                    f"{defectives} (d={d} was given; {len(found)} found before)")
            where = f"of the binary search among the {len(S)} remaining items"
            _alone(o, ask, x, len(record) - before, where, fits)
        found.append(x)
        remaining.remove(x)
    D = set(found)
    for S, a in record:                 # a positive test holds a defective, a negative none
        if a == D.isdisjoint(S):
            some = "" if d is None else f"{d} "
            which = (f"none of the defectives found, {sorted(D)}" if a else
                     f"the defectives found {sorted(D.intersection(S))}")
            raise InconsistentOracleError(
                f"{o}: the test of {_show(S)} answered {a}, but it holds {which}: no set of "
                f"{some}defectives fits the answers", S, a)
    bound = group_testing_bound(n + 1, len(found)) if d is not None else \
        group_testing_bound(n, len(found), known=False)
    return GroupTestResult(tuple(sorted(found)), len(record), bound, True, record)
