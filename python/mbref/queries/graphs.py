"""Learning a hidden graph with edge-detecting queries, and group testing, written from the
lectures (twin of ``mbcore.queries.graphs``; standard library only).

The vertices are 0..n-1; an edge-detecting query Q(S) says whether some edge has both ends in
the set S, an edge-counting query how many do; a group test says whether a group holds a
defective item (Angluin's lectures 28-31; Angluin & Chen 2008, "Learning a hidden graph using
O(log n) queries per edge", Journal of Computer and System Sciences 74).  The rules:

* one edge (lecture 28): halve the set while a half holds an edge; when neither does, every
  edge crosses the halves, and the two sides are halved together, following the first union
  of a half of each side that holds an edge;
* the bipartite search: the edges between two edge-free sides A, B are found by asking the
  unions of a half of A and a half of B and recursing into each union answered 1, down to
  single vertices (at most 4 m ceil(log2 n) + 1 queries with a known bipartition);
* any graph (lecture 29): learn the edges inside each half, colour each half's graph so that
  the colour classes form a clique (first fit, then merge classes with no edge between them),
  and run the bipartite search on every pair of classes, one from each half, whose union holds
  an edge (at most 12 m ceil(log2 n) + 1 queries);
* with edge-counting queries, the edges across the halves are counted: a union's count minus
  the edges already known inside its two sides (at most 6 m ceil(log2 n) + 1);
* the five-round algorithm after Angluin & Chen: sets drawn at random certify non-edges (a
  set answered 0 holds none), in rounds whose sizes mbcore's ``learn_graph`` states, with the
  splitmix64 generator (Steele, Lea & Flood 2014) both twins draw from;
* group testing (binary search, the non-adaptive bit design, binary splitting): in
  ``mbref.queries.group_testing``, importable from here too.

The searches ask the same sets in the same order as mbcore, and check the answers the same
way (an answer that fits no graph raises InconsistentOracleError naming the query), with
mbcore's messages word for word.  The learners hand the oracle a sorted tuple of vertices
(mbcore: a sorted read-only int64 NumPy array).  mbcore keeps its sets in NumPy arrays and the
five-round algorithm's certificates in packed bit arrays; here a set is a tuple and the
vertices certified non-adjacent to u are a Python set.
"""

import itertools
import math
import os

from ..exceptions import InconsistentOracleError
from ._asking import (QueryBudgetExceeded, _answer, _ceil_log2, _flag, _halves, _integer,
                      _oracle, _show)
from ._common import is_int
# group testing, in mbref.queries.group_testing (as in mbcore): importable from here, as before
from .group_testing import (GroupTestResult, find_defective, find_defectives,
                            group_testing_bound)

__all__ = ["EdgeDetectingOracle", "GraphResult", "GroupTestResult", "InconsistentOracleError",
           "QueryBudgetExceeded", "learn_graph", "find_edge", "find_defective",
           "find_defectives", "edge_detecting_bound", "group_testing_bound"]

_METHODS = ("adaptive", "five_round", "counting")


# -- checks and small helpers -----------------------------------------------------------------------

def _vertices(owner, S, n, what="S"):
    """A collection of vertices (set, list, tuple, range, 1-D array) as a sorted tuple of
    distinct ints: first every item must be an integer, then every one must be in [0, n)."""
    if S is None or isinstance(S, (str, bytes, dict)) or not hasattr(S, "__iter__"):
        raise TypeError(f"{owner}: {what} must be a collection of vertices (a set, list, tuple "
                        f"or 1-D array of integers), got {type(S).__name__} ({S!r})")
    if getattr(S, "ndim", 1) != 1:
        raise ValueError(f"{owner}: {what} must be 1-D, got ndim={S.ndim}")
    items = list(S)
    for v in items:
        if not is_int(v):
            raise TypeError(f"{owner}: {what} holds {v!r} of type {type(v).__name__}; vertices "
                            f"are integers in [0, {n})")
    for v in items:
        if v < 0 or v >= n:
            raise ValueError(f"{owner}: {what} holds the vertex {int(v)}, outside [0, {n})")
    return tuple(sorted({int(v) for v in items}))


def _split(X):
    return _halves(X) if len(X) > 1 else (X,)


def _union(A, B):
    return tuple(sorted(A + B))


def _edge(u, v):
    return (u, v) if u < v else (v, u)


def _two(e):
    """e as a pair (u, v), or None when it is not a sequence of two items."""
    try:
        u, v = e
    except (TypeError, ValueError):
        return None
    return u, v


def _inside(edges, S):
    """How many of the edges have both ends in S."""
    S = set(S)
    return sum(u in S and v in S for u, v in edges)


# -- the oracle ---------------------------------------------------------------------------------------

class EdgeDetectingOracle:
    """Q(S) for a known graph: whether an edge has both ends in S (``counting=True``: how many
    do).  Checks every S (integers in [0, n)) and counts its calls."""

    def __init__(self, edges, n, counting=False):
        o = "EdgeDetectingOracle"
        self.n = _integer(o, "n", n, 1)
        self.counting = _flag(o, "counting", counting)
        if edges is None or isinstance(edges, (str, bytes)) or not hasattr(edges, "__iter__"):
            raise TypeError(f"{o}: parameter edges must be an iterable of pairs (u, v), got "
                            f"{type(edges).__name__}")
        self.edges = frozenset(self._edge(o, k, e) for k, e in enumerate(edges))
        self.calls = 0

    def _edge(self, o, k, e):
        pair = _two(e)
        if pair is None:
            raise ValueError(f"{o}: parameter edges: edge {k} must be a pair (u, v), got "
                             f"{e!r}")
        u, v = pair
        for w in pair:
            if not is_int(w):
                raise TypeError(f"{o}: parameter edges: edge {k} holds {w!r} of type "
                                f"{type(w).__name__}; vertices are integers")
            if w < 0 or w >= self.n:
                raise ValueError(f"{o}: parameter edges: edge {k} holds the vertex {int(w)}, "
                                 f"outside [0, {self.n})")
        if u == v:
            raise ValueError(f"{o}: parameter edges: edge {k} is a loop ({int(u)}, {int(v)}); "
                             "a graph's edges join two distinct vertices")
        return _edge(int(u), int(v))

    @property
    def m(self):
        """The number of edges."""
        return len(self.edges)

    def __call__(self, S):
        count = _inside(self.edges, _vertices("EdgeDetectingOracle", S, self.n))
        self.calls += 1
        return count if self.counting else count > 0

    def __repr__(self):
        return (f"EdgeDetectingOracle(n={self.n}, m={self.m}, counting={self.counting}, "
                f"calls={self.calls})")


# -- results ------------------------------------------------------------------------------------------

class GraphResult:
    """What :func:`learn_graph` returns: ``edges`` (pairs u < v), ``queries``, ``rounds``,
    ``bound`` and ``held`` (None without a worst-case bound), ``method``, ``n``, ``record``."""

    def __init__(self, edges, queries, rounds, bound, method, n, record):
        self.edges, self.queries, self.rounds, self.bound = edges, queries, rounds, bound
        self.held = queries <= bound if bound is not None else None
        self.method, self.n, self.record = method, n, record

    def __repr__(self):
        return (f"GraphResult(method='{self.method}', n={self.n}, m={self.m}, "
                f"queries={self.queries}, rounds={self.rounds}, bound={self.bound}, "
                f"held={self.held})")

    @property
    def m(self):
        """The number of edges learned."""
        return len(self.edges)


# -- bounds -------------------------------------------------------------------------------------------

def edge_detecting_bound(n, m, graph="general", counting=False):
    """Queries to learn m edges on n vertices, from the lectures' counts per edge: each edge
    costs at most 4 queries per halving of the bipartite search, 12 with the colour classes of
    a general graph, 6 with edge-counting queries; ceil(log2 n) halvings; plus the first
    Q(V)."""
    o = "edge_detecting_bound"
    n = _integer(o, "n", n, 1)
    m = _integer(o, "m", m, 0)
    if graph not in ("bipartite", "general"):
        raise ValueError(f"{o}: parameter graph must be 'bipartite' or 'general', got {graph!r}")
    _flag(o, "counting", counting)
    pairs = n * (n - 1) // 2
    if m > pairs:
        raise ValueError(f"{o}: parameter m must be <= n(n-1)/2 = {pairs} (a graph on {n} "
                         f"vertices), got {m}")
    per_halving = {"bipartite": 4, "general": 6 if counting else 12}[graph]
    return per_halving * m * _ceil_log2(n) + 1


# -- asking the oracle --------------------------------------------------------------------------------

class _Queries:
    """The oracle behind a counter, a budget and the consistency checks: a set of fewer than
    two vertices holds no edge, and a set holding edges already learned cannot answer 0 (nor,
    counting, fewer than it holds)."""

    def __init__(self, owner, oracle, budget, counting=False):
        self.owner, self.oracle, self.budget, self.counting = owner, oracle, budget, counting
        self.queries = 0
        self.found = set()

    def __call__(self, S, where):
        o = self.owner
        if self.budget is not None and self.queries == self.budget:
            raise QueryBudgetExceeded(f"{o}: max_queries={self.budget} reached ({where} needed "
                                      f"query {self.queries + 1}, on {_show(S)})",
                                      self.budget, where)
        self.queries += 1
        a = _answer(o, self.oracle(S), S, self.counting)
        if a and len(S) < 2:
            raise InconsistentOracleError(
                f"{o}: the oracle answered {a!r} for the query {_show(S)} ({where}), but an "
                "edge needs two vertices", S, a)
        known = _inside(self.found, S) if self.found and (self.counting or not a) else 0
        if known and (not self.counting or a < known):
            raise InconsistentOracleError(
                f"{o}: the oracle answered {a!r} for the query {_show(S)} ({where}), but that "
                f"set holds {known} edge(s) found from earlier answers", S, a)
        return a

    def learned(self, u, v, edges):
        e = _edge(u, v)
        edges.add(e)
        self.found.add(e)


# -- one edge, bipartite search, any graph (lectures 28-29) -----------------------------------------

def find_edge(n, edge_detecting, max_queries=None):
    """One edge by binary search (lecture 28), or None when Q(V) = 0; returns
    ``(edge, queries)``; at most 4 ceil(log2 n) + 1 queries."""
    o = "find_edge"
    n = _integer(o, "n", n, 1)
    _oracle(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    budget = None if max_queries is None else _integer(o, "max_queries", max_queries, 0)
    ask = _Queries(o, edge_detecting, budget)
    V = tuple(range(n))
    if n < 2 or not ask(V, "is there an edge"):
        return None, ask.queries
    while True:                         # V holds an edge: keep a half that holds one
        V1, V2 = _halves(V)
        if len(V1) > 1 and ask(V1, "binary search: first half"):
            V = V1
        elif len(V2) > 1 and ask(V2, "binary search: second half"):
            V = V2
        else:
            break
    A, B = V1, V2                       # every edge of V crosses from A to B
    while len(A) > 1 or len(B) > 1:
        pairs = itertools.product(_split(A), _split(B))
        hit = next((ab for ab in pairs if ask(_union(*ab), "binary search: unions of halves")),
                   None)
        if hit is None:
            S = _union(A, B)
            raise InconsistentOracleError(
                f"{o}: the oracle answered 1 for {_show(S)} but 0 for each union of halves of "
                "its two edge-free sides", S, True)
        A, B = hit
    return _edge(A[0], B[0]), ask.queries


def _cross_edges(ask, A, B, where, edges):
    """The bipartite search: the edges between the edge-free sides A and B, knowing that
    Q(A u B) = 1.  The unions of a half of A and a half of B are asked in the order (A1, B1),
    (A1, B2), (A2, B1), (A2, B2), and each answered 1 is searched at once (depth first)."""
    if len(A) == 1 and len(B) == 1:
        ask.learned(A[0], B[0], edges)
        return
    positive = False
    for a, b in itertools.product(_split(A), _split(B)):
        if ask(_union(a, b), where):
            positive = True
            _cross_edges(ask, a, b, where, edges)
    if positive:
        return
    raise InconsistentOracleError(
        f"{ask.owner}: the oracle answered 1 for {_show(_union(A, B))} ({where}) but 0 for "
        "each union of halves of its two sides, which hold no edge (or, with parts given, the "
        "sides are not independent)", _union(A, B), True)


def _clique_classes(vertices, edges):
    """Colour classes of the graph (vertices, edges) that form a clique (lecture 29): each
    vertex, in order, joins the first class holding none of its neighbours (or starts one);
    then, as long as two classes have no edge between them, the first such pair (i < j, in
    order) is merged into class i, kept sorted.  Classes as tuples."""
    near = {v: set() for v in vertices}
    for u, v in edges:
        near[u].add(v)
        near[v].add(u)
    classes = []
    for v in vertices:
        home = next((c for c in classes if near[v].isdisjoint(c)), None)
        if home is None:
            classes.append([v])
        else:
            home.append(v)

    def apart(X, Y):
        return all(near[v].isdisjoint(X) for v in Y)

    while True:
        pair = next(((i, j) for i in range(len(classes)) for j in range(i + 1, len(classes))
                     if apart(classes[i], classes[j])), None)
        if pair is None:
            return [tuple(c) for c in classes]
        i, j = pair
        classes[i] = sorted(classes[i] + classes.pop(j))


def _edges_within(ask, V):
    """Every edge inside V (lecture 29): Q(V); if 1, the edges inside each half, then the
    bipartite search between every pair of their clique colour classes whose union answers 1
    (not asked when each half is one class: that union is V)."""
    if len(V) < 2 or not ask(V, "general: is there an edge in the set"):
        return set()
    V1, V2 = _halves(V)
    E1, E2 = _edges_within(ask, V1), _edges_within(ask, V2)
    edges = E1 | E2
    C1, C2 = _clique_classes(V1, E1), _clique_classes(V2, E2)
    whole = len(C1) == 1 and len(C2) == 1
    for L, R in itertools.product(C1, C2):
        if whole or ask(_union(L, R), "general: a pair of colour classes"):
            _cross_edges(ask, L, R, "general: bipartite search", edges)
    return edges


def _edges_counted(ask, V):
    """Every edge inside V with edge-counting queries: the count of V, the edges inside each
    half, and the crossing ones (the count minus those inside the halves) by a bipartite
    search on counts."""
    if len(V) < 2:
        return set()
    count = ask(V, "counting: edges in the set")
    if count == 0:
        return set()
    V1, V2 = _halves(V)
    E1, E2 = _edges_counted(ask, V1), _edges_counted(ask, V2)
    inner = E1 | E2
    crossing = count - len(E1) - len(E2)
    if crossing < 0:
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle counted {count} edges in {_show(V)} but its halves hold "
            f"{len(E1) + len(E2)}", V, count)
    edges = set(inner)
    if crossing:
        _cross_counted(ask, V1, V2, crossing, inner, edges)
    return edges


def _cross_counted(ask, A, B, crossing, inner, edges):
    """The ``crossing`` edges between A and B: each union of a half of each side is counted,
    the edges of ``inner`` inside its two sides subtracted, and the rest searched."""
    if len(A) == 1 and len(B) == 1:
        if crossing != 1:
            S = _union(A, B)
            raise InconsistentOracleError(
                f"{ask.owner}: the oracle's counts put {crossing} edges on the pair {_show(S)}",
                S, crossing)
        ask.learned(A[0], B[0], edges)
        return
    seen = 0
    for a, b in itertools.product(_split(A), _split(B)):
        S = _union(a, b)
        known = _inside(inner, a) + _inside(inner, b)
        answer = ask(S, "counting: bipartite search")
        if answer < known:
            raise InconsistentOracleError(
                f"{ask.owner}: the oracle counted fewer edges in {_show(S)} than are known "
                "inside its two sides", S, answer)
        seen += answer - known
        if answer > known:
            _cross_counted(ask, a, b, answer - known, inner, edges)
    if seen != crossing:
        S = _union(A, B)
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle's counts of the four unions of halves of {_show(S)} add "
            f"up to {seen} crossing edges, not {crossing}", S, crossing)


# -- the five-round randomised algorithm (Angluin & Chen 2008; lectures 29-31) ----------------------

_R1 = 6          # round 1: sets per density
_C2 = 3.0        # round 2: ceil(C2 ln n / p^2) sets
_R3 = 4          # round 3: sets per density and heavy vertex
_C4 = 3.0        # round 4: ceil(C4 ln(|B| + 1) / q) sets per heavy vertex


class _Draws:
    """splitmix64 (Steele, Lea & Flood 2014): state += 0x9E3779B97F4A7C15, then the output
    mix of the state, all mod 2^64."""

    def __init__(self, seed):
        self.state = seed % 2 ** 64

    def word(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) % 2 ** 64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2 ** 64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2 ** 64
        return z ^ (z >> 31)

    def sample(self, items, p):
        """Each item in order kept with probability p: a uniform 53-bit number (the word's
        top 53 bits) below ceil(p 2^53)."""
        below = math.ceil(p * 2.0 ** 53)
        return tuple(v for v in items if self.word() >> 11 < below)


def _likeliest_m(levels, answers, n):
    """The m on the grid 2^(j/4) (j = 0, 1, ...; 1 <= m <= max(1, n(n-1)/2)) of largest
    likelihood of the round-1 answers under P[Q(S_p) = 0] = exp(-m p^2); ties: the smallest."""
    tallies = [(p, sum(1 for a in block if a), len(block)) for p, block in zip(levels, answers)]

    def log_likelihood(m):
        total = 0.0
        for p, yes, size in tallies:
            rate = m * p * p                            # the expected edges inside S_p
            total -= rate * (size - yes)                # P[answer 0] = e^-rate
            total += yes * math.log(-math.expm1(-rate)) if yes else 0.0   # 1 - e^-rate
        return total

    top = max(1, n * (n - 1) // 2)
    grid = []
    while 2.0 ** (len(grid) / 4.0) <= top:
        grid.append(2.0 ** (len(grid) / 4.0))
    return max(grid, key=log_likelihood)


class _Certificates:
    """What the answers 0 say: ``apart[u]``, the vertices certified not adjacent to u (a set
    answered 0 certifies every pair inside it); the sets answered 1 are kept, to be checked
    against the learned edges at the end."""

    def __init__(self, n):
        self.n = n
        self.apart = [set() for _ in range(n)]
        self.positive = []
        self.sizes = []                 # queries per round

    def ask_round(self, ask, sets, number):
        answers = [ask(S, f"five_round: round {number}") for S in sets]
        for S, a in zip(sets, answers):
            if a:
                self.positive.append(S)
                continue
            for u in S:
                self.apart[u].update(S)
                self.apart[u].discard(u)
        self.sizes.append(len(sets))
        return answers

    def open(self, u):
        """The vertices not certified apart from u, in order."""
        return [w for w in range(self.n) if w != u and w not in self.apart[u]]

    def uncertain(self, u):
        return self.n - 1 - len(self.apart[u])

    def pairs_left(self):
        return sum(self.uncertain(u) for u in range(self.n)) // 2


def _five_round(ask, n, seed, rec, m_known=None):
    """The five rounds as mbcore's ``learn_graph`` docstring states them; a round (1 to 4)
    that would ask at least as many queries as there are uncertified pairs is replaced by
    those pairs, and the run ends there."""
    if n < 2:
        rec.update(round_queries=[0] * 5, p=None, m_estimate=0, heavy=(), final_pairs=0,
                   pairs_round=None)
        return set()
    draw = _Draws(seed)
    cert = _Certificates(n)
    L = max(1, _ceil_log2(n))
    V = tuple(range(n))
    p = m_est = None
    heavy = ()
    levels = [2.0 ** (-i / 2.0) for i in range(1, 2 * L + 2)] if m_known is None else []
    last = 1 if 1 + _R1 * len(levels) >= n * (n - 1) // 2 else None
    if last is None:
        # round 1: Q(V), then R1 sets at each density of ``levels``: the estimate of m
        answers = cert.ask_round(ask, [V] + [draw.sample(V, q) for q in levels
                                             for _ in range(_R1)], 1)
        if not answers[0]:
            return _nothing_at_all(ask, cert, V, m_known, rec)
        if m_known == 0:
            raise InconsistentOracleError(
                f"{ask.owner}: m=0 was given, but the oracle answered 1 for all the vertices",
                V, True)
        if m_known is None:
            blocks = [answers[1 + i * _R1: 1 + (i + 1) * _R1] for i in range(len(levels))]
            m_est = _likeliest_m(levels, blocks, n)
        else:
            m_est = float(m_known)
        p = min(1.0, 1.0 / math.sqrt(2.0 * m_est))
        t2 = math.ceil(_C2 * math.log(max(n, 2)) / (p * p))
        if t2 >= cert.pairs_left():
            last = 2
    if last is None:
        # round 2: t2 sets at density p; then the heavy vertices and their light candidates
        cert.ask_round(ask, [draw.sample(V, p) for _ in range(t2)], 2)
        threshold = max(math.ceil(2.0 / p), 4 * L)
        heavy = tuple(u for u in range(n) if cert.uncertain(u) > threshold)
        light = [[w for w in cert.open(u) if w not in heavy] for u in heavy]
        depths = [max(1, _ceil_log2(len(B))) for B in light]
        if heavy and _R3 * sum(depths) >= cert.pairs_left():
            last = 3
    if last is None:
        # round 3: R3 sets {u} u T at each density 2^-j (j = 1..depth) over u's light
        # candidates; q_u, the first density answered 0 at least a quarter of the time
        plan = [[[_union((u,), draw.sample(B, 2.0 ** -j)) for _ in range(_R3)]
                 for j in range(1, J + 1)] for u, B, J in zip(heavy, light, depths)]
        answers = iter(cert.ask_round(ask, [S for per_u in plan for blk in per_u
                                            for S in blk], 3))
        q = {}
        for u, per_u in zip(heavy, plan):
            zeros = [sum(1 for _ in blk if not next(answers)) for blk in per_u]
            q[u] = next((2.0 ** -j for j, z in enumerate(zeros, 1) if 4 * z >= _R3),
                        2.0 ** -len(per_u))
        light = [[w for w in cert.open(u) if w not in heavy] for u in heavy]
        counts = [math.ceil(_C4 * math.log(len(B) + 1) / q[u]) if B else 0
                  for u, B in zip(heavy, light)]
        if sum(counts) > 0 and sum(counts) >= cert.pairs_left():
            last = 4
    if last is None:
        # round 4: for each heavy u, counts[u] sets {u} u T at density q_u
        cert.ask_round(ask, [_union((u,), draw.sample(B, q[u]))
                             for u, B, t in zip(heavy, light, counts) for _ in range(t)], 4)
        last = 5
    # the last round: every pair not yet certified
    pairs = [(u, w) for u in range(n) for w in cert.open(u) if w > u]
    answers = cert.ask_round(ask, pairs, last)
    edges = {pair for pair, a in zip(pairs, answers) if a}
    empty = [S for S in cert.positive if not _inside(edges, S)]     # every 1 needs an edge
    if empty:
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle answered 1 for {_show(empty[0])}, but the answers of the "
            "later rounds leave no edge inside it", empty[0], True)
    if m_known not in (None, len(edges)):
        raise InconsistentOracleError(
            f"{ask.owner}: m={m_known} was given, but the answers fit exactly {len(edges)} "
            "edges", None, None)
    rec.update(round_queries=cert.sizes + [0] * (5 - len(cert.sizes)), p=p, m_estimate=m_est,
               heavy=heavy, final_pairs=len(pairs), pairs_round=last)
    return edges


def _nothing_at_all(ask, cert, V, m_known, rec):
    """Q(V) = 0: no edge, unless a set of round 1 answered 1 or m > 0 was given."""
    if cert.positive:
        S = cert.positive[0]
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle answered 1 for {_show(S)} but 0 for all the vertices",
            S, True)
    if m_known:
        raise InconsistentOracleError(
            f"{ask.owner}: m={m_known} was given, but the oracle answered 0 for all the "
            "vertices", V, False)
    rec.update(round_queries=cert.sizes + [0] * 4, p=None, m_estimate=0, heavy=(),
               final_pairs=0, pairs_round=None)
    return set()


# -- learn_graph ------------------------------------------------------------------------------------

def _seed(owner, seed):
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    if is_int(seed) and seed >= 0:
        return int(seed)
    raise ValueError(f"{owner}: parameter seed must be None or an integer >= 0, got {seed!r}")


def _bipartition(owner, parts, n):
    sides = _two(parts)
    if sides is None:
        raise ValueError(f"{owner}: parameter parts must be a pair (A, B) of vertex sets, got "
                         f"{parts!r}")
    A, B = (_vertices(owner, X, n, f"parts[{i}]") for i, X in enumerate(sides))
    shared = sorted(set(A).intersection(B))
    if shared:
        raise ValueError(f"{owner}: parameter parts: the sides share the vertices "
                         f"{shared[:10]}")
    return A, B


def learn_graph(n, edge_detecting, method="adaptive", seed=None, max_queries=None, parts=None,
                m=None):
    """Learn a hidden graph on the vertices 0..n-1 exactly with edge-detecting queries (the
    parameters, rules and bounds of ``mbcore.queries.learn_graph``)."""
    o = "learn_graph"
    n = _integer(o, "n", n, 1)
    _oracle(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    if method not in _METHODS:
        raise ValueError(f"{o}: parameter method must be one of {list(_METHODS)}, got "
                         f"{method!r}")
    budget = None if max_queries is None else _integer(o, "max_queries", max_queries, 0)
    if parts is not None and method != "adaptive":
        raise ValueError(f"{o}: parameter parts (a known bipartition) needs method='adaptive', "
                         f"got method={method!r}")
    if m is not None and method != "five_round":
        raise ValueError(f"{o}: parameter m (the number of edges, when known) needs "
                         f"method='five_round', got method={method!r}")
    if m is not None and (not is_int(m) or not 0 <= m <= n * (n - 1) // 2):
        raise ValueError(f"{o}: parameter m must be None or an integer in "
                         f"[0, {n * (n - 1) // 2}] (n(n-1)/2), got {m!r}")
    m = None if m is None else int(m)
    ask = _Queries(o, edge_detecting, budget, counting=(method == "counting"))
    record = {}
    rounds = None
    if parts is not None:
        graph = "bipartite"
        A, B = _bipartition(o, parts, n)
        edges = set()
        if A and B and ask(_union(A, B), "bipartite: is there an edge"):
            _cross_edges(ask, A, B, "bipartite search", edges)
    elif method == "adaptive":
        graph, edges = "general", _edges_within(ask, tuple(range(n)))
    elif method == "counting":
        graph, edges = "general", _edges_counted(ask, tuple(range(n)))
    else:
        graph, rounds = None, 5
        edges = _five_round(ask, n, _seed(o, seed), record, m)
    if graph is None:
        bound, formula = None, "none (Angluin & Chen: O(m log n + sqrt(m) log^2 n) expected)"
    else:
        bound = edge_detecting_bound(n, len(edges), graph, counting=(method == "counting"))
        c = 4 if graph == "bipartite" else (6 if method == "counting" else 12)
        formula = f"{c} m ceil(log2 n) + 1"
    record.update(graph=graph, bound_formula=formula)
    return GraphResult(set(edges), ask.queries, rounds, bound, method, n, record)
