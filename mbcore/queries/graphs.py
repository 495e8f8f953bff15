"""Learning a hidden graph with edge-detecting queries, and group testing (Angluin's lectures
28-31; Angluin & Chen 2008).

The vertices are 0..n-1 and a hidden graph has m edges.  An *edge-detecting query* Q(S) asks
whether some edge has both ends in the vertex set S; an *edge-counting query* asks how many do
(lecture 28).  Group testing is the same game with single items: a test of a group says whether
it holds a defective (the heavy coin of lecture 28).

* :func:`learn_graph` learns the graph exactly: ``method="adaptive"`` (lectures 28-29: halves,
  colour classes, the bipartite search; at most 12 m ceil(log2 n) + 1 queries, 4 m ceil(log2 n)
  + 1 for a known bipartition), ``"counting"`` (the same recursion with edge-counting queries,
  which subtract the edges already known, as lecture 28 remarks; 6 m ceil(log2 n) + 1) and
  ``"five_round"`` (a Las Vegas algorithm in 5 rounds of non-adaptive queries after Angluin &
  Chen's, lectures 29-31; they prove O(m log n + sqrt(m) log^2 n) queries in expectation for
  theirs; this reading of it is measured, not proved).
* :func:`find_edge`: one edge by binary search (lecture 28), at most 4 ceil(log2 n) + 1 queries.
* :func:`find_defective` and :func:`find_defectives`: group testing, in
  :mod:`mbcore.queries.group_testing` (importable from here too, as before).
* :class:`EdgeDetectingOracle`: Q (or the edge count) for a known graph, counting its calls.

Conventions
-----------
* An oracle is a callable ``Q(S) -> bool`` (``int`` for edge counting).  The learners here call
  it with S a sorted 1-D ``int64`` NumPy array of distinct vertices (read-only; its twin in
  ``mbref`` passes a sorted tuple); :class:`EdgeDetectingOracle` accepts any collection of
  integer vertices (set, list, tuple, range or 1-D integer array).
* Answers are checked: an answer other than True/False/0/1 (a count >= 0 for counting), a 1
  for a set of fewer than 2 vertices, a 0 for a set that holds an edge already found, or
  answers that contradict each other in the searches raise :class:`InconsistentOracleError`,
  naming the query.  ``max_queries`` caps a run (:class:`QueryBudgetExceeded`, naming the step
  that wanted one more query); the adaptive searches end by themselves (they only ever split
  sets), so no cap is needed for termination.
* Randomness (``five_round``): splitmix64 seeded with ``seed``, the generator both twins share;
  the same seed asks the same queries in the same order in mbcore and mbref.

Examples
--------
A path 0 - 1 - 2 and a lone edge 5 - 9 among ten vertices, learned with edge-detecting queries:

>>> res = learn_graph(10, EdgeDetectingOracle([(0, 1), (1, 2), (5, 9)], n=10))
>>> sorted(res.edges), res.queries <= res.bound
([(0, 1), (1, 2), (5, 9)], True)
"""

import math
import os
from typing import Any, Dict, Set, Tuple

import numpy as np

from ..bounds import edge_detecting_bound
from ..exceptions import InconsistentOracleError
from ._asking import (QueryBudgetExceeded, _answer, _budget, _halves, _inconsistent,
                      _log2_ceil, _show)
from ._common import check_callable, check_int, is_int
# group testing, in mbcore.queries.group_testing since 0.2: importable from here, as before
from .group_testing import GroupTestResult, find_defective, find_defectives

__all__ = ["EdgeDetectingOracle", "GraphResult", "GroupTestResult", "InconsistentOracleError",
           "QueryBudgetExceeded", "learn_graph", "find_edge", "find_defective",
           "find_defectives"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_METHODS = ("adaptive", "five_round", "counting")
_I64 = np.int64

# the five-round algorithm's constants (the twin has the same)
_R1 = 6          # sets per level in round 1
_C2 = 3.0        # round 2: t2 = ceil(C2 ln n / p^2)
_R3 = 4          # sets per density in round 3
_C4 = 3.0        # round 4: ceil(C4 ln(|B| + 1) / q) sets per heavy vertex


# -- checks --------------------------------------------------------------------------------------

def _vertex_array(owner, S, n, what="S"):
    """A collection of vertices as a 1-D int64 array (unsorted, as given) after checks."""
    if isinstance(S, np.ndarray):
        A = S
    else:
        if S is None or isinstance(S, (str, bytes, dict)) or not hasattr(S, "__iter__"):
            raise TypeError(f"{owner}: {what} must be a collection of vertices (a set, list, "
                            f"tuple or 1-D array of integers), got {type(S).__name__} ({S!r})")
        items = list(S)
        for v in items:
            if not is_int(v):
                raise TypeError(f"{owner}: {what} holds {v!r} of type {type(v).__name__}; "
                                f"vertices are integers in [0, {n})")
        A = np.array(items, dtype=object).astype(_I64) if items else np.zeros(0, _I64)
        if items and any(not 0 <= v < n for v in (min(items), max(items))):
            bad = next(v for v in items if not 0 <= v < n)
            raise ValueError(f"{owner}: {what} holds the vertex {int(bad)}, outside [0, {n})")
        return A
    if A.ndim != 1:
        raise ValueError(f"{owner}: {what} must be 1-D, got ndim={A.ndim}")
    if A.size == 0:
        return A.astype(_I64)
    if A.dtype.kind not in "iu":
        bad = A.reshape(-1)[0]
        raise TypeError(f"{owner}: {what} holds {bad!r} of type {A.dtype}; vertices are "
                        f"integers in [0, {n})")
    lo, hi = A.min(), A.max()
    if lo < 0 or hi >= n:
        raise ValueError(f"{owner}: {what} holds the vertex {int(lo if lo < 0 else hi)}, "
                         f"outside [0, {n})")
    return A.astype(_I64, copy=False)


# -- the oracle ----------------------------------------------------------------------------------

class EdgeDetectingOracle:
    """The edge-detecting (or edge-counting) oracle of a known graph, counting its calls.

    ``Q(S)`` is True when some edge has both ends in S (lecture 28); with ``counting=True`` it
    is the number of such edges.  Each call checks S and answers with a boolean mask over the
    vertices and one vectorised look at the edge list: ``O(len(S) + m)``.

    Parameters
    ----------
    edges : iterable of pairs (u, v)
        The hidden graph's edges, u != v, vertices in [0, n); duplicates and the order within
        a pair do not matter.
    n : int >= 1
        The number of vertices.
    counting : bool, default=False
        Answer edge-counting queries (an int) instead of edge-detecting ones.

    Attributes
    ----------
    edges : frozenset of (u, v) with u < v
    n, m : int
    counting : bool
    calls : int
        Queries answered so far.

    Examples
    --------
    >>> Q = EdgeDetectingOracle([(0, 1), (2, 3)], n=4)
    >>> Q({0, 1}), Q([1, 2]), Q(range(4)), Q.calls
    (True, False, True, 3)
    >>> EdgeDetectingOracle([(0, 1), (2, 3)], n=4, counting=True)([0, 1, 2, 3])
    2
    """

    def __init__(self, edges, n, counting=False):
        o = "EdgeDetectingOracle"
        self.n = check_int(o, "n", n, 1)
        if not isinstance(counting, (bool, np.bool_)):
            raise ValueError(f"{o}: parameter counting must be a bool, got {counting!r}")
        self.counting = bool(counting)
        if edges is None or isinstance(edges, (str, bytes)) or not hasattr(edges, "__iter__"):
            raise TypeError(f"{o}: parameter edges must be an iterable of pairs (u, v), got "
                            f"{type(edges).__name__}")
        E = set()
        for k, e in enumerate(edges):
            try:
                u, v = e
            except (TypeError, ValueError):
                raise ValueError(f"{o}: parameter edges: edge {k} must be a pair (u, v), got "
                                 f"{e!r}") from None
            for w in (u, v):
                if not is_int(w):
                    raise TypeError(f"{o}: parameter edges: edge {k} holds {w!r} of type "
                                    f"{type(w).__name__}; vertices are integers")
                if not 0 <= w < self.n:
                    raise ValueError(f"{o}: parameter edges: edge {k} holds the vertex "
                                     f"{int(w)}, outside [0, {self.n})")
            if u == v:
                raise ValueError(f"{o}: parameter edges: edge {k} is a loop ({int(u)}, "
                                 f"{int(v)}); a graph's edges join two distinct vertices")
            E.add((min(int(u), int(v)), max(int(u), int(v))))
        self.edges = frozenset(E)
        srt = sorted(E)
        self._u = np.array([e[0] for e in srt], dtype=_I64)
        self._v = np.array([e[1] for e in srt], dtype=_I64)
        self._mask = np.zeros(self.n, dtype=bool)
        self.calls = 0

    @property
    def m(self):
        """The number of edges."""
        return len(self.edges)

    def __call__(self, S):
        A = _vertex_array("EdgeDetectingOracle", S, self.n)
        self.calls += 1
        mask = self._mask
        mask[A] = True
        try:
            both = mask[self._u] & mask[self._v]
            return int(np.count_nonzero(both)) if self.counting else bool(both.any())
        finally:
            mask[A] = False

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_mask"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._mask = np.zeros(self.n, dtype=bool)

    def __repr__(self):
        return (f"EdgeDetectingOracle(n={self.n}, m={self.m}, counting={self.counting}, "
                f"calls={self.calls})")


# -- results -------------------------------------------------------------------------------------

class GraphResult:
    """What :func:`learn_graph` returns.

    Attributes
    ----------
    edges : set of (u, v) with u < v
        The learned graph (exact: equal to the hidden one when the oracle is consistent).
    queries : int
        Queries asked.
    rounds : int or None
        Rounds of non-adaptive queries (5 for ``five_round``; None for the adaptive methods).
    bound : int or None
        The worst-case bound of the method (:func:`mbcore.bounds.edge_detecting_bound` at the
        learned m); None for ``five_round``, whose guarantee is on the expectation.
    held : bool or None
        ``queries <= bound``.
    method : str
    n : int
    record : dict
        Details: ``graph`` and ``bound_formula``; for ``five_round`` also ``round_queries``
        (queries per round), ``p`` (round 2's inclusion probability), ``m_estimate``,
        ``heavy`` (the vertices of round 3 and 4), ``final_pairs`` (the pairs asked one by
        one) and ``pairs_round`` (the round they were asked in: 5, or an earlier one where
        they were no more than that round's queries; None when none was needed).
    m : int (property)
        The number of learned edges.

    Examples
    --------
    The edge (1, 3) on 4 vertices: Q(V) = 1, Q({0, 1}) = Q({2, 3}) = 0, then the four unions
    {0, 2}, {0, 3}, {1, 2}, {1, 3} of a vertex of each half: 7 queries.

    >>> res = learn_graph(4, EdgeDetectingOracle([(1, 3)], 4))
    >>> res.edges, res.queries, res.bound, res.held
    ({(1, 3)}, 7, 25, True)
    """

    def __init__(self, edges, queries, rounds, bound, method, n, record):
        self.edges = edges
        self.queries = queries
        self.rounds = rounds
        self.bound = bound
        self.held = None if bound is None else queries <= bound
        self.method = method
        self.n = n
        self.record = record

    @property
    def m(self):
        return len(self.edges)

    def __repr__(self):
        return (f"GraphResult(method='{self.method}', n={self.n}, m={self.m}, "
                f"queries={self.queries}, rounds={self.rounds}, bound={self.bound}, "
                f"held={self.held})")


# -- the query counter ---------------------------------------------------------------------------

class _Asker:
    """Asks the oracle (a read-only sorted int64 array), counts, enforces the budget and checks
    each answer against the edges already found."""

    def __init__(self, owner, oracle, budget, n, counting=False):
        self.owner = owner
        self.oracle = oracle
        self.budget = budget
        self.counting = counting
        self.queries = 0
        self.found = []
        self._fu = self._fv = None
        self._mask = np.zeros(n, dtype=bool)

    def add(self, u, v):
        self.found.append((u, v))
        self._fu = None

    def inside(self, S, pairs=None):
        """How many found edges (or of ``pairs`` = (U, V) arrays) lie inside S."""
        if pairs is None:
            if not self.found:
                return 0
            if self._fu is None:
                self._fu = np.array([e[0] for e in self.found], dtype=_I64)
                self._fv = np.array([e[1] for e in self.found], dtype=_I64)
            pairs = (self._fu, self._fv)
        U, W = pairs
        if U.size == 0:
            return 0
        mask = self._mask
        mask[S] = True
        k = int(np.count_nonzero(mask[U] & mask[W]))
        mask[S] = False
        return k

    def __call__(self, S, where):
        if self.budget is not None and self.queries >= self.budget:
            raise QueryBudgetExceeded(
                f"{self.owner}: max_queries={self.budget} reached ({where} needed query "
                f"{self.queries + 1}, on {_show(S)})", self.budget, where)
        self.queries += 1
        view = S.view()
        view.flags.writeable = False
        a = _answer(self.owner, self.oracle(view), S, self.counting)
        if len(S) < 2 and a:
            raise _inconsistent(
                f"{self.owner}: the oracle answered {a!r} for the query {_show(S)} ({where}), "
                "but an edge needs two vertices", S, a)
        if self.found and (not a or self.counting):
            k = self.inside(S)
            if (self.counting and a < k) or (not self.counting and k):
                raise _inconsistent(
                    f"{self.owner}: the oracle answered {a!r} for the query {_show(S)} "
                    f"({where}), but that set holds {k} edge(s) found from earlier answers",
                    S, a)
        return a


# -- one edge, bipartite, general (lectures 28-29) ----------------------------------------------

def _union(A, B):
    if len(A) == 0:
        return B
    if len(B) == 0:
        return A
    if A[-1] < B[0]:
        return np.concatenate((A, B))
    return np.sort(np.concatenate((A, B)))


def _split(X):
    return _halves(X) if len(X) > 1 else (X,)


def _bipartite(ask, A, B, where, edges):
    if len(A) == 1 and len(B) == 1:
        u, v = int(A[0]), int(B[0])
        e = (min(u, v), max(u, v))
        edges.add(e)
        ask.add(*e)
        return
    hit = False
    for a in _split(A):
        for b in _split(B):
            if ask(_union(a, b), where):
                hit = True
                _bipartite(ask, a, b, where, edges)
    if not hit:
        S = _union(A, B)
        raise _inconsistent(
            f"{ask.owner}: the oracle answered 1 for {_show(S)} ({where}) but 0 for each union "
            "of halves of its two sides, which hold no edge (or, with parts given, the sides "
            "are not independent)", S, True)


def _colour(vertices, edges):
    """Colour classes (sorted int64 arrays) of the graph (vertices, edges): greedy first-fit in
    vertex order, then, while two classes have no edge between them, the later is merged into
    the earlier (lecture 29's collapsing of non-adjacent vertices), so that the classes end as
    a clique: k (k - 1) / 2 <= |edges|, k <= 2 sqrt(|edges|) + 1."""
    nbr = {}
    for u, v in edges:
        nbr.setdefault(u, set()).add(v)
        nbr.setdefault(v, set()).add(u)
    classes = []
    for v in vertices:
        nv = nbr.get(v)
        for c in classes:
            if not nv or not (nv & c[1]):
                c[0].append(v)
                c[1].add(v)
                break
        else:
            classes.append(([v], {v}))
    merged = True
    while merged:
        merged = False
        for i in range(len(classes)):
            for j in range(i + 1, len(classes)):
                ci, cj = classes[i], classes[j]
                if not any(nbr.get(v, set()) & ci[1] for v in cj[0]):
                    ci[0].extend(cj[0])
                    ci[0].sort()
                    ci[1].update(cj[1])
                    del classes[j]
                    merged = True
                    break
            if merged:
                break
    return [np.array(c[0], dtype=_I64) for c in classes]


def _general(ask, V, known, edges):
    if len(V) < 2:
        return
    a = known if known is not None else ask(V, "general: is there an edge in the set")
    if not a:
        return
    V1, V2 = _halves(V)
    E1, E2 = set(), set()
    _general(ask, V1, None, E1)
    _general(ask, V2, None, E2)
    edges.update(E1)
    edges.update(E2)
    C1, C2 = _colour(V1.tolist(), E1), _colour(V2.tolist(), E2)
    for L in C1:
        for R in C2:
            if len(C1) == 1 and len(C2) == 1:
                hit = True                         # L u R = V, whose answer is known
            else:
                hit = ask(_union(L, R), "general: a pair of colour classes")
            if hit:
                _bipartite(ask, L, R, "general: bipartite search", edges)


def _counting(ask, V, known, edges):
    if len(V) < 2:
        return
    a = known if known is not None else ask(V, "counting: edges in the set")
    if a == 0:
        return
    V1, V2 = _halves(V)
    E1, E2 = set(), set()
    _counting(ask, V1, None, E1)
    _counting(ask, V2, None, E2)
    edges.update(E1)
    edges.update(E2)
    cross = a - len(E1) - len(E2)
    if cross < 0:
        raise _inconsistent(
            f"{ask.owner}: the oracle counted {a} edges in {_show(V)} but its halves hold "
            f"{len(E1) + len(E2)}", V, a)
    if cross:
        inner = sorted(E1 | E2)
        pairs = (np.array([e[0] for e in inner], dtype=_I64),
                 np.array([e[1] for e in inner], dtype=_I64))
        _count_bip(ask, V1, V2, cross, pairs, edges)


def _count_bip(ask, A, B, cross, inner, edges):
    if len(A) == 1 and len(B) == 1:
        S = _union(A, B)
        if cross != 1:
            raise _inconsistent(
                f"{ask.owner}: the oracle's counts put {cross} edges on the pair {_show(S)}",
                S, cross)
        u, v = int(S[0]), int(S[1])
        edges.add((u, v))
        ask.add(u, v)
        return
    total = 0
    for a in _split(A):
        ka = ask.inside(a, inner)
        for b in _split(B):
            kb = ask.inside(b, inner)
            S = _union(a, b)
            c = ask(S, "counting: bipartite search") - ka - kb
            if c < 0:
                raise _inconsistent(
                    f"{ask.owner}: the oracle counted fewer edges in {_show(S)} than are "
                    "known inside its two sides", S, c + ka + kb)
            total += c
            if c:
                _count_bip(ask, a, b, c, inner, edges)
    if total != cross:
        S = _union(A, B)
        raise _inconsistent(
            f"{ask.owner}: the oracle's counts of the four unions of halves of {_show(S)} add "
            f"up to {total} crossing edges, not {cross}", S, cross)


def find_edge(n, edge_detecting, max_queries=None):
    """Find one edge of a hidden graph by binary search (Angluin lecture 28).

    Ask Q(V); if it is 0 there is no edge.  Otherwise, while the current set V holds an edge:
    ask Q(V1) for its first half (then Q(V2)) and continue in a half answered 1; when both
    halves answer 0, every edge of V crosses them, and from then on the two sides are halved
    together, asking the unions of a half of each side (in the order (A1,B1), (A1,B2), (A2,B1),
    (A2,B2)) and following the first one answered 1, down to one vertex on each side.

    Bound: at most 4 ceil(log2 n) + 1 queries (at most 4 per halving, one more for Q(V)).

    Parameters
    ----------
    n : int >= 1
        The vertices are 0..n-1.
    edge_detecting : callable
        ``Q(S) -> bool`` (S a sorted read-only int64 array).
    max_queries : int, optional
        Raise :class:`QueryBudgetExceeded` rather than ask more.

    Returns
    -------
    (edge, queries)
        ``edge`` is a pair (u, v) with u < v, or None when the graph has no edge.

    Examples
    --------
    A graph with the one edge (17, 80) on 100 vertices: found with at most 4 * 7 + 1 queries.

    >>> edge, queries = find_edge(100, EdgeDetectingOracle([(17, 80)], 100))
    >>> edge, queries <= 4 * 7 + 1
    ((17, 80), True)
    """
    o = "find_edge"
    n = check_int(o, "n", n, 1)
    check_callable(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    ask = _Asker(o, edge_detecting, _budget(o, "max_queries", max_queries), n)
    V = np.arange(n, dtype=_I64)
    if n < 2 or not ask(V, "is there an edge"):
        return None, ask.queries
    while len(V) > 1:
        V1, V2 = _halves(V)
        if len(V1) > 1 and ask(V1, "binary search: first half"):
            V = V1
            continue
        if len(V2) > 1 and ask(V2, "binary search: second half"):
            V = V2
            continue
        A, B = V1, V2
        while len(A) > 1 or len(B) > 1:
            for a in _split(A):
                for b in _split(B):
                    if ask(_union(a, b), "binary search: unions of halves"):
                        A, B = a, b
                        break
                else:
                    continue
                break
            else:
                S = _union(A, B)
                raise _inconsistent(
                    f"{o}: the oracle answered 1 for {_show(S)} but 0 for each union of "
                    "halves of its two edge-free sides", S, True)
        u, v = int(A[0]), int(B[0])
        return (min(u, v), max(u, v)), ask.queries
    raise _inconsistent(f"{o}: the oracle answered 1 for a single vertex", V, True)


# -- the five-round randomised algorithm (Angluin & Chen 2008; lectures 29-31) -----------------

def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class _SplitMix64:
    """splitmix64, vectorised: the k-th output depends on seed + k * gamma only."""

    _CHUNK = 1 << 22

    def __init__(self, seed):
        self.state = int(seed) & _MASK

    def block(self, k):
        s0 = np.uint64(self.state)
        c = np.arange(1, k + 1, dtype=np.uint64)
        with np.errstate(over="ignore"):
            z = _mix(s0 + c * np.uint64(_GAMMA))
        self.state = (self.state + k * _GAMMA) & _MASK
        return z

    def subsets(self, count, size, p):
        """A (count, size) bool matrix: row r keeps item i iff its draw (row-major order) is
        below ceil(p 2**53) after >> 11."""
        thr = np.uint64(math.ceil(p * 9007199254740992.0))
        if count * size == 0:
            return np.zeros((count, size), dtype=bool)
        return (self.block(count * size) >> np.uint64(11)).reshape(count, size) < thr


def _popcount(words):
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
    b = words.view(np.uint8)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    return table[b].sum(axis=-1, dtype=np.int64)


class _Cover:
    """For each vertex u the bitset cov[u] of u and the vertices certified non-adjacent to it
    (they shared a set answered 0)."""

    def __init__(self, n):
        self.n = n
        self.nw = (n + 63) // 64
        self.cov = np.zeros((n, self.nw), dtype=np.uint64)
        u = np.arange(n)
        self.cov[u, u >> 6] = np.uint64(1) << (u & 63).astype(np.uint64)

    def pack(self, Z):
        """Bool rows (k, n) -> uint64 words (k, nw), bit v of word v >> 6."""
        k = Z.shape[0]
        P = np.zeros((k, self.nw * 8), dtype=np.uint8)
        P[:, :(self.n + 7) // 8] = np.packbits(Z, axis=1, bitorder="little")
        return P.view("<u8").astype(np.uint64, copy=False)

    def add_rows(self, Zs):
        """Many sets answered 0, as blocks of bool rows: for each vertex, the OR of the rows
        that hold it (one pass over the vertices)."""
        Zs = [Z for Z in Zs if Z.shape[0]]
        if not Zs:
            return
        P = np.concatenate([self.pack(Z) for Z in Zs])
        ZT = np.concatenate([Z.T for Z in Zs], axis=1)
        cov = self.cov
        for u in np.nonzero(ZT.any(axis=1))[0].tolist():
            cov[u] |= np.bitwise_or.reduce(P[ZT[u].nonzero()[0]], axis=0)

    def add_set(self, S):
        row = np.zeros(self.nw, dtype=np.uint64)
        np.bitwise_or.at(row, S >> 6, np.uint64(1) << (S & 63).astype(np.uint64))
        self.cov[S] |= row

    def free(self):
        """Per vertex: the number of vertices not certified (u itself excluded)."""
        return self.n - _popcount(self.cov)

    def cands(self, u):
        bits = np.unpackbits(self.cov[u].astype("<u8").view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[:self.n] == 0)


def _estimate_m(levels, answers, n):
    """The m on the grid 2^(j/4), 1 <= m <= n(n-1)/2, of largest likelihood under the model
    P[Q(S_p) = 0] = exp(-m p^2) (ties: the smallest m)."""
    top = max(1, n * (n - 1) // 2)
    best, arg, j = None, 1.0, 0
    while True:
        m = 2.0 ** (j / 4.0)
        if m > top:
            break
        ll = 0.0
        for p, block in zip(levels, answers):
            lam = m * p * p
            ones = sum(1 for a in block if a)
            ll -= lam * (len(block) - ones)
            if ones:
                ll += ones * math.log(-math.expm1(-lam))
        if best is None or ll > best:
            best, arg = ll, m
        j += 1
    return arg


def _five_round(ask, n, seed, rec, m_known=None):
    if n < 2:
        rec.update(round_queries=[0, 0, 0, 0, 0], p=None, m_estimate=0, heavy=(),
                   final_pairs=0, pairs_round=None)
        return set()
    rng = _SplitMix64(seed)
    L = max(1, _log2_ceil(n))
    V = np.arange(n, dtype=_I64)
    cover = _Cover(n)
    ones = []                                   # bool rows of the sets answered 1
    per_round = []
    p, m_est, heavy = None, None, np.zeros(0, dtype=_I64)

    def run_rows(Z, rnd):
        """Ask the sets given as bool rows over the vertices."""
        ans = np.zeros(Z.shape[0], dtype=bool)
        where = f"five_round: round {rnd}"
        for i in range(Z.shape[0]):
            ans[i] = ask(Z[i].nonzero()[0], where)
        return ans

    def left():
        """The pairs not yet certified (no set answered 0 holds both)."""
        return int(cover.free().sum()) // 2

    # Before each of rounds 1-4: when the round would ask at least as many queries as there
    # are pairs left uncertified, ask those pairs instead, in that round (as round 5 would),
    # and end; so a small graph (n(n-1)/2 at most round 1's size) is learned pair by pair.
    levels = [] if m_known is not None else [2.0 ** (-i / 2.0)
                                             for i in range(1, 2 * L + 2)]
    last = 5
    if 1 + _R1 * len(levels) >= n * (n - 1) // 2:
        last = 1
    else:
        # round 1: Q(V), then _R1 sets at each p_i = 2^(-i/2), i = 1 .. 2L + 1
        Z = np.concatenate([np.ones((1, n), dtype=bool)]
                           + [rng.subsets(_R1, n, p) for p in levels])
        ans = run_rows(Z, 1)
        per_round.append(len(ans))
        ones.append(Z[ans])
        if not ans[0]:
            if ans.any():
                S = np.flatnonzero(Z[int(np.flatnonzero(ans)[0])])
                raise _inconsistent(
                    f"{ask.owner}: the oracle answered 1 for {_show(S)} but 0 for all the "
                    "vertices", S, True)
            if m_known:
                raise _inconsistent(
                    f"{ask.owner}: m={m_known} was given, but the oracle answered 0 for all "
                    "the vertices", V, False)
            per_round.extend([0, 0, 0, 0])
            rec.update(round_queries=per_round, p=None, m_estimate=0, heavy=(),
                       final_pairs=0, pairs_round=None)
            return set()
        if m_known == 0:
            raise _inconsistent(
                f"{ask.owner}: m=0 was given, but the oracle answered 1 for all the vertices",
                V, True)
        cover.add_rows([Z[~ans]])
        if m_known is not None:
            m_est = float(m_known)
        else:
            m_est = _estimate_m(levels, [ans[1 + i * _R1: 1 + (i + 1) * _R1].tolist()
                                         for i in range(len(levels))], n)
        p = min(1.0, 1.0 / math.sqrt(2.0 * m_est))
        t2 = math.ceil(_C2 * math.log(max(n, 2)) / (p * p))
        if t2 >= left():
            last = 2
    if last > 2:
        # round 2: t2 sets S_p, asked in chunks of rows
        zeros = []
        chunk = max(1, (1 << 22) // n)
        done = 0
        while done < t2:
            k = min(chunk, t2 - done)
            Z = rng.subsets(k, n, p)
            a = run_rows(Z, 2)
            ones.append(Z[a])
            zeros.append(Z[~a])
            done += k
        per_round.append(t2)
        cover.add_rows(zeros)
        del zeros
        free = cover.free()
        h = max(math.ceil(2.0 / p), 4 * L)
        heavy = np.flatnonzero(free > h)
        hmask = np.zeros(n, dtype=bool)
        hmask[heavy] = True
        Bs = []
        for u in heavy.tolist():
            c = cover.cands(u)
            Bs.append(c[~hmask[c]])
        size3 = _R3 * sum(max(1, _log2_ceil(len(B))) for B in Bs)
        if 0 < size3 and size3 >= left():
            last = 3
    if last > 3:
        # round 3: degree estimates of the heavy vertices
        plan = []
        for u, B in zip(heavy.tolist(), Bs):
            J = max(1, _log2_ceil(len(B)))
            blocks = [rng.subsets(_R3, len(B), 2.0 ** -j) for j in range(1, J + 1)]
            plan.append((u, B, blocks))
        q3 = 0
        qs = {}
        for u, B, blocks in plan:
            q = None
            for j, Zb in enumerate(blocks, start=1):
                a = np.zeros(Zb.shape[0], dtype=bool)
                for i in range(Zb.shape[0]):
                    S = np.sort(np.append(B[Zb[i]], u))
                    a[i] = ask(S, "five_round: round 3")
                    if a[i]:
                        row = np.zeros((1, n), dtype=bool)
                        row[0, S] = True
                        ones.append(row)
                    else:
                        cover.add_set(S)
                q3 += Zb.shape[0]
                if q is None and 4 * int(np.count_nonzero(~a)) >= Zb.shape[0]:
                    q = 2.0 ** -j
            qs[u] = 2.0 ** -len(blocks) if q is None else q
        per_round.append(q3)
        Bs, ts = [], []
        for u in heavy.tolist():
            c = cover.cands(u)
            B = c[~hmask[c]]
            Bs.append(B)
            ts.append(math.ceil(_C4 * math.log(len(B) + 1) / qs[u]) if len(B) else 0)
        if 0 < sum(ts) and sum(ts) >= left():
            last = 4
    if last > 4:
        # round 4: certify each heavy vertex's light candidates at density q_u
        sets = []
        for u, B, t in zip(heavy.tolist(), Bs, ts):
            if t:
                Zb = rng.subsets(t, len(B), qs[u])
                for i in range(t):
                    sets.append(np.sort(np.append(B[Zb[i]], u)))
        for S in sets:
            if ask(S, "five_round: round 4"):
                row = np.zeros((1, n), dtype=bool)
                row[0, S] = True
                ones.append(row)
            else:
                cover.add_set(S)
        per_round.append(len(sets))
    # round 5 (or the round the pairs were cheaper in): every pair not yet certified
    free = cover.free()
    pairs = []
    for u in np.flatnonzero(free > 0).tolist():
        c = cover.cands(u)
        pairs.extend((u, int(w)) for w in c[c > u])
    edges = set()
    for u, w in pairs:
        if ask(np.array([u, w], dtype=_I64), f"five_round: round {last}"):
            edges.add((u, w))
    per_round.append(len(pairs))
    per_round.extend([0] * (5 - len(per_round)))
    if edges:
        eu = np.array([e[0] for e in sorted(edges)], dtype=_I64)
        ev = np.array([e[1] for e in sorted(edges)], dtype=_I64)
    for Z in ones:
        if Z.shape[0] == 0:
            continue
        hit = (Z[:, eu] & Z[:, ev]).any(axis=1) if edges else np.zeros(Z.shape[0], bool)
        if not hit.all():
            S = np.flatnonzero(Z[int(np.flatnonzero(~hit)[0])])
            raise _inconsistent(
                f"{ask.owner}: the oracle answered 1 for {_show(S)}, but the answers of the "
                "later rounds leave no edge inside it", S, True)
    if m_known is not None and len(edges) != m_known:
        raise _inconsistent(
            f"{ask.owner}: m={m_known} was given, but the answers fit exactly "
            f"{len(edges)} edges", None, None)
    rec.update(round_queries=per_round, p=p, m_estimate=m_est,
               heavy=tuple(int(u) for u in heavy), final_pairs=len(pairs), pairs_round=last)
    return edges


def _seed(owner, seed):
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if not is_int(seed) or seed < 0:
        raise ValueError(f"{owner}: parameter seed must be None or an integer >= 0, got "
                         f"{seed!r}")
    return int(seed)


def _parts(owner, parts, n):
    try:
        A, B = parts
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: parameter parts must be a pair (A, B) of vertex sets, got "
                         f"{parts!r}") from None
    A = np.unique(_vertex_array(owner, A, n, "parts[0]"))
    B = np.unique(_vertex_array(owner, B, n, "parts[1]"))
    common = np.intersect1d(A, B)
    if common.size:
        raise ValueError(f"{owner}: parameter parts: the sides share the vertices "
                         f"{common[:10].tolist()}")
    return A, B


def _formula(graph, method):
    if graph is None:
        return "none (Angluin & Chen: O(m log n + sqrt(m) log^2 n) expected)"
    c = 4 if graph == "bipartite" else (6 if method == "counting" else 12)
    return f"{c} m ceil(log2 n) + 1"


def learn_graph(n, edge_detecting, method="adaptive", seed=None, max_queries=None,
                parts=None, m=None) -> GraphResult:
    """Learn a hidden graph on the vertices 0..n-1 exactly with edge-detecting queries.

    ``method="adaptive"`` (Angluin lectures 28-29; Angluin & Chen 2008): to learn
    the edges inside a vertex set V (sorted), ask Q(V) and stop if it is 0; otherwise split V
    into its first ``ceil(len(V)/2)`` vertices V1 and the rest V2, learn the edges inside each
    half recursively, and colour each half's learned graph: greedy first-fit in vertex order,
    then merge any two classes with no edge between them (the lecture's collapsing of non-adjacent
    vertices) until the classes form a clique, so a half with m_i edges has at most
    2 sqrt(m_i) + 1 classes.  A colour class holds no edge, so for every pair (L, R) of a class
    of V1 and a class of V2, ask Q(L u R) (known already when both halves have one class) and,
    when it is 1, run the *bipartite search*: halve both sides, ask the four unions of a half
    of each, and recurse into every union answered 1, down to single vertices, which are
    edges.  Bounds: at most 12 m ceil(log2 n) + 1 queries; with a known bipartition
    (``parts``) only the bipartite search runs, at most 4 m ceil(log2 n) + 1 (the lecture's
    4 m log n and 12 m log n, with log2 n rounded up for halves of odd size and one query for
    the first Q(V), which m = 0 needs too).

    ``method="counting"``: the oracle answers edge-*counting* queries (how many edges lie in
    S).  The same recursion, but the edges crossing the halves are counted, not detected: a
    union's count minus the edges already known inside its two sides (lecture 28's remark
    that counting queries let one subtract the known edges), so no colouring is needed.  At
    most 6 m ceil(log2 n) + 1 queries.

    ``method="five_round"``: a Las Vegas algorithm in 5 rounds of non-adaptive queries after
    Angluin & Chen (2008), "Learning a hidden graph using O(log n) queries per edge"; the
    lectures give its first step, sets S_p drawing each vertex with probability
    p = 1/sqrt(2m), so that P[Q(S_p) = 1] <= m p^2 = 1/2.  A set answered 0 certifies every
    pair inside it as a non-edge.  Round 1: Q(V), and 6 sets S_p for each p = 2^(-i/2),
    i = 1..2L+1 (L = ceil(log2 n)), whose answers estimate m (maximum likelihood under
    P[Q(S_p) = 0] = exp(-m p^2); with ``m`` given, Q(V) alone); round 2:
    ceil(3 ln(n) / p^2) sets S_p with p = 1/sqrt(2 m_est); the vertices with more than
    max(2/p, 4L) uncertified partners are *heavy*.  Round 3: for each heavy u, 4 sets
    {u} u T at each density 2^-j over u's uncertified light partners, to find the density
    q_u ~ 1/deg(u); round 4:
    ``ceil(3 ln(len(B)+1) / q_u)`` sets {u} u T at density q_u (B: u's light candidates);
    round 5: one query Q({u, v}) for every pair still uncertified.  A round (1 to 4) that
    would ask at least as many queries as there are pairs left uncertified is not asked:
    those pairs are asked in its place, and the run ends there (so for n(n-1)/2 at most
    round 1's size, n <= 11 without ``m``, every pair is asked at once).  The answer is always
    exact; the number of queries is random.  Angluin & Chen prove O(m log n + sqrt(m) log^2 n)
    queries in expectation for their algorithm; the rounds' details here (the estimate of m,
    the constants, the heavy vertices' densities) are this library's reading of the paper,
    not quoted from it, and come with no proof of that bound: the tests check the average
    over seeds against 8 (m log2 n + sqrt(m) log2^2 n) on random graphs and a star.  Every
    set answered 1 must hold a learned edge (checked at the end).

    Parameters
    ----------
    n : int >= 1
        The vertices are 0..n-1.
    edge_detecting : callable
        ``Q(S) -> bool`` (``int`` for ``method="counting"``), S a sorted read-only int64
        array of distinct vertices; e.g. :class:`EdgeDetectingOracle`.
    method : {"adaptive", "counting", "five_round"}, default="adaptive"
    seed : int >= 0 or None
        ``five_round`` only: seeds splitmix64 (None: a seed from the operating system).
    max_queries : int, optional
        Raise :class:`QueryBudgetExceeded` rather than ask more.
    parts : pair (A, B) of vertex sets, optional
        ``adaptive`` only: a known bipartition (every edge joins A and B); runs the bipartite
        search alone.
    m : int, optional
        ``five_round`` only: the number of edges, when known.  Round 1 then asks Q(V) alone
        and round 2 uses the lectures' p = 1/sqrt(2m); answers that fit another number of
        edges raise :class:`InconsistentOracleError`.

    Returns
    -------
    GraphResult
        ``edges``, ``queries``, ``rounds``, ``bound``, ``held`` and ``record``.

    Raises
    ------
    InconsistentOracleError
        Answers that no graph gives (named query).  A run that returns has learned a graph
        that answers every query asked as the oracle did (the searches only split sets
        answered 1 and check the answers named above; ``five_round`` checks at the end that
        every set answered 1 holds a learned edge).
    QueryBudgetExceeded
        ``max_queries`` reached.

    Examples
    --------
    A path 0-1-2-3 on 8 vertices; the adaptive algorithm stays within 12 m ceil(log2 n) + 1,
    the bipartite search (sides: even and odd vertices) within 4 m ceil(log2 n) + 1:

    >>> path = [(0, 1), (1, 2), (2, 3)]
    >>> res = learn_graph(8, EdgeDetectingOracle(path, 8))
    >>> sorted(res.edges), res.bound, res.held
    ([(0, 1), (1, 2), (2, 3)], 109, True)
    >>> bip = learn_graph(8, EdgeDetectingOracle(path, 8), parts=([0, 2, 4, 6], [1, 3, 5, 7]))
    >>> sorted(bip.edges) == sorted(path), bip.bound, bip.held
    (True, 37, True)
    >>> five = learn_graph(8, EdgeDetectingOracle(path, 8), method="five_round", seed=0)
    >>> sorted(five.edges) == sorted(path), five.rounds, len(five.record["round_queries"])
    (True, 5, 5)
    """
    o = "learn_graph"
    n = check_int(o, "n", n, 1)
    check_callable(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"{o}: parameter method must be one of {list(_METHODS)}, got "
                         f"{method!r}")
    budget = _budget(o, "max_queries", max_queries)
    if parts is not None and method != "adaptive":
        raise ValueError(f"{o}: parameter parts (a known bipartition) needs method='adaptive', "
                         f"got method={method!r}")
    if m is not None:
        if method != "five_round":
            raise ValueError(f"{o}: parameter m (the number of edges, when known) needs "
                             f"method='five_round', got method={method!r}")
        top = n * (n - 1) // 2
        if not is_int(m) or not 0 <= m <= top:
            raise ValueError(f"{o}: parameter m must be None or an integer in [0, {top}] "
                             f"(n(n-1)/2), got {m!r}")
        m = int(m)
    s = _seed(o, seed) if method == "five_round" else None
    ask = _Asker(o, edge_detecting, budget, n, counting=(method == "counting"))
    edges: Set[Tuple[int, int]] = set()
    rec: Dict[str, Any] = {}
    rounds = None
    V = np.arange(n, dtype=_I64)
    if parts is not None:
        A, B = _parts(o, parts, n)
        graph = "bipartite"
        if len(A) and len(B) and ask(_union(A, B), "bipartite: is there an edge"):
            _bipartite(ask, A, B, "bipartite search", edges)
    elif method == "adaptive":
        graph = "general"
        _general(ask, V, None, edges)
    elif method == "counting":
        graph = "general"
        _counting(ask, V, None, edges)
    else:
        graph = None
        rounds = 5
        edges = _five_round(ask, n, s, rec, m)
    bound = None
    if graph is not None:
        bound = edge_detecting_bound(n, len(edges), graph, counting=(method == "counting"))
    rec.update(graph=graph, bound_formula=_formula(graph, method))
    return GraphResult(set(edges), ask.queries, rounds, bound, method, n, rec)
