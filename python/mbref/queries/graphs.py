"""Learning a hidden graph with edge-detecting queries, and group testing (twin of
``mbcore.queries.graphs``; standard library only).

Same names, parameters, results and exceptions as mbcore; the same queries in the same order
(the randomised algorithm draws from splitmix64, the generator both twins share).  The one
difference: the learners here hand the oracle a sorted *tuple* of vertices (mbcore: a sorted
int64 NumPy array).  Written literally from the rules stated in mbcore's docstrings (Angluin's
lectures 28-31; Angluin & Chen 2008); read it as the specification.
"""

import math
import numbers

from ..exceptions import InconsistentOracleError

__all__ = ["EdgeDetectingOracle", "GraphResult", "GroupTestResult", "InconsistentOracleError",
           "QueryBudgetExceeded", "learn_graph", "find_edge", "find_defective",
           "find_defectives", "edge_detecting_bound", "group_testing_bound"]

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_METHODS = ("adaptive", "five_round", "counting")


# -- errors ------------------------------------------------------------------------------------

class QueryBudgetExceeded(RuntimeError):
    """A learner reached its query budget (``max_queries``) before it finished; ``budget``
    is the budget, ``where`` the step that wanted one more query."""

    def __init__(self, message, budget=None, where=None):
        super().__init__(message)
        self.budget = budget
        self.where = where


# -- checks --------------------------------------------------------------------------------------

def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and \
        type(v).__name__ != "bool_"


def _check_int(owner, name, value, low):
    if not _is_int(value) or value < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_callable(owner, name, f, what):
    if not callable(f):
        raise TypeError(f"{owner}: parameter {name} must be {what}, got "
                        f"{type(f).__name__} ({f!r})")
    return f


def _vertex_set(owner, S, n, what="S"):
    """A collection of vertices (set, list, tuple, range or 1-D array of integers in [0, n))
    as a sorted tuple of distinct ints."""
    if S is None or isinstance(S, (str, bytes, dict)) or not hasattr(S, "__iter__"):
        raise TypeError(f"{owner}: {what} must be a collection of vertices (a set, list, tuple "
                        f"or 1-D array of integers), got {type(S).__name__} ({S!r})")
    if getattr(S, "ndim", 1) != 1:
        raise ValueError(f"{owner}: {what} must be 1-D, got ndim={S.ndim}")
    out = set()
    for v in S:
        if not _is_int(v):
            raise TypeError(f"{owner}: {what} holds {v!r} of type {type(v).__name__}; vertices "
                            f"are integers in [0, {n})")
        if not 0 <= v < n:
            raise ValueError(f"{owner}: {what} holds the vertex {int(v)}, outside [0, {n})")
        out.add(int(v))
    return tuple(sorted(out))


def _answer(owner, a, S, counting=False):
    """An oracle's answer as a bool (or a count >= 0 for an edge-counting oracle)."""
    if type(a).__name__ in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                            "uint32", "uint64"):
        a = a.item()
    if counting:
        if not _is_int(a) or a < 0:
            raise InconsistentOracleError(
                f"{owner}: the edge-counting oracle answered {a!r} for the query "
                f"{_show(S)}, expected an integer >= 0", S, a)
        return int(a)
    if isinstance(a, bool) or (_is_int(a) and a in (0, 1)):
        return bool(a)
    raise InconsistentOracleError(f"{owner}: the oracle answered {a!r} for the query "
                                  f"{_show(S)}, expected True/False (or 1/0)", S, a)


def _show(S, k=12):
    S = tuple(S)
    if len(S) <= k:
        return "{" + ", ".join(map(str, S)) + "}"
    return "{" + ", ".join(map(str, S[:k])) + f", ... ({len(S)} vertices)" + "}"


def _log2_ceil(n):
    return (n - 1).bit_length() if n > 1 else 0


# -- the oracle ----------------------------------------------------------------------------------

class EdgeDetectingOracle:
    """Q(S) for a known graph: does some edge have both ends in S (``counting=True``: how many
    edges do)?  Counts its calls; checks every S (integers in [0, n))."""

    def __init__(self, edges, n, counting=False):
        o = "EdgeDetectingOracle"
        self.n = _check_int(o, "n", n, 1)
        if not isinstance(counting, bool):
            raise ValueError(f"{o}: parameter counting must be a bool, got {counting!r}")
        self.counting = counting
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
                if not _is_int(w):
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
        self.calls = 0

    @property
    def m(self):
        """The number of edges."""
        return len(self.edges)

    def __call__(self, S):
        T = set(_vertex_set("EdgeDetectingOracle", S, self.n))
        self.calls += 1
        if self.counting:
            return sum(1 for u, v in self.edges if u in T and v in T)
        return any(u in T and v in T for u, v in self.edges)

    def __repr__(self):
        return (f"EdgeDetectingOracle(n={self.n}, m={self.m}, counting={self.counting}, "
                f"calls={self.calls})")


# -- results -------------------------------------------------------------------------------------

class GraphResult:
    """What :func:`learn_graph` returns: ``edges`` (a set of pairs u < v), ``queries``,
    ``rounds``, ``bound`` and ``held`` (None when the method has no worst-case bound),
    ``method``, ``n`` and ``record`` (a dict of the run's details)."""

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


class GroupTestResult:
    """What :func:`find_defective` and :func:`find_defectives` return: ``defectives`` (a
    sorted tuple), ``tests``, ``bound``, ``held``, ``adaptive`` and ``record``."""

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


# -- bounds --------------------------------------------------------------------------------------

def edge_detecting_bound(n, m, graph="general", counting=False):
    """4 m ceil(log2 n) + 1 (bipartite), 12 m ceil(log2 n) + 1 (general), 6 m ceil(log2 n) + 1
    (general, edge-counting queries)."""
    o = "edge_detecting_bound"
    n = _check_int(o, "n", n, 1)
    m = _check_int(o, "m", m, 0)
    if graph not in ("bipartite", "general"):
        raise ValueError(f"{o}: parameter graph must be 'bipartite' or 'general', got {graph!r}")
    if not isinstance(counting, bool):
        raise ValueError(f"{o}: parameter counting must be a bool, got {counting!r}")
    top = n * (n - 1) // 2
    if m > top:
        raise ValueError(f"{o}: parameter m must be <= n(n-1)/2 = {top} (a graph on {n} "
                         f"vertices), got {m}")
    c = 4 if graph == "bipartite" else (6 if counting else 12)
    return c * m * _log2_ceil(n) + 1


def group_testing_bound(n, d=1, known=True):
    """Binary splitting: d ceil(log2 n) tests when d is known (ceil(log2 n) for the one heavy
    coin), d (ceil(log2 n) + 1) + 1 when it is not."""
    o = "group_testing_bound"
    n = _check_int(o, "n", n, 1)
    d = _check_int(o, "d", d, 0)
    if d > n:
        raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    if not isinstance(known, bool):
        raise ValueError(f"{o}: parameter known must be a bool, got {known!r}")
    if known:
        return d * _log2_ceil(n)
    return d * (_log2_ceil(n) + 1) + 1


# -- the query counter ---------------------------------------------------------------------------

class _Asker:
    """Asks the oracle, counts, enforces max_queries, and checks each answer against the edges
    already found (a 0 for a set holding a found edge fits no graph)."""

    def __init__(self, owner, oracle, budget, counting=False):
        self.owner = owner
        self.oracle = oracle
        self.budget = budget
        self.counting = counting
        self.queries = 0
        self.found = set()

    def __call__(self, S, where):
        if self.budget is not None and self.queries >= self.budget:
            raise QueryBudgetExceeded(
                f"{self.owner}: max_queries={self.budget} reached ({where} needed query "
                f"{self.queries + 1}, on {_show(S)})", self.budget, where)
        self.queries += 1
        a = _answer(self.owner, self.oracle(S), S, self.counting)
        if len(S) < 2 and a:
            raise InconsistentOracleError(
                f"{self.owner}: the oracle answered {a!r} for the query {_show(S)} ({where}), "
                "but an edge needs two vertices", S, a)
        if self.found and (not a or self.counting):
            T = set(S)
            inside = sum(1 for u, v in self.found if u in T and v in T)
            if (self.counting and a < inside) or (not self.counting and inside):
                raise InconsistentOracleError(
                    f"{self.owner}: the oracle answered {a!r} for the query {_show(S)} "
                    f"({where}), but that set holds {inside} edge(s) found from earlier "
                    "answers", S, a)
        return a


# -- one edge, bipartite, general (lectures 28-29) ----------------------------------------------

def _halves(X):
    h = (len(X) + 1) // 2
    return X[:h], X[h:]


def _union(A, B):
    return tuple(sorted(A + B))


def _bipartite(ask, A, B, where, edges):
    """Edges between the independent sets A and B, given Q(A u B) = 1 (depth first; the pairs
    of halves in the order (A1,B1), (A1,B2), (A2,B1), (A2,B2))."""
    if len(A) == 1 and len(B) == 1:
        e = (min(A[0], B[0]), max(A[0], B[0]))
        edges.add(e)
        ask.found.add(e)
        return
    As = _halves(A) if len(A) > 1 else (A,)
    Bs = _halves(B) if len(B) > 1 else (B,)
    hit = False
    for a in As:
        for b in Bs:
            S = _union(a, b)
            if ask(S, where):
                hit = True
                _bipartite(ask, a, b, where, edges)
    if not hit:
        S = _union(A, B)
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle answered 1 for {_show(S)} ({where}) but 0 for each union "
            "of halves of its two sides, which hold no edge (or, with parts given, the sides "
            "are not independent)", S, True)


def _colour(vertices, edges):
    """Colour classes (lists, each in vertex order) of the graph (vertices, edges): greedy
    first-fit in vertex order, then, while two classes have no edge between them, the later
    one is merged into the earlier (the lecture's collapsing of non-adjacent vertices), so the
    classes end as a clique: k(k - 1)/2 <= |edges|."""
    nbr = {v: set() for v in vertices}
    for u, v in edges:
        nbr[u].add(v)
        nbr[v].add(u)
    classes = []
    for v in vertices:
        for c in classes:
            if not (nbr[v] & c[1]):
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
                if not any(nbr[v] & ci[1] for v in cj[0]):
                    ci[0].extend(cj[0])
                    ci[0].sort()
                    ci[1].update(cj[1])
                    del classes[j]
                    merged = True
                    break
            if merged:
                break
    return [tuple(c[0]) for c in classes]


def _general(ask, V, known, edges):
    """All edges inside V (sorted tuple); ``known`` is Q(V) when already asked."""
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
    C1, C2 = _colour(V1, E1), _colour(V2, E2)
    for L in C1:
        for R in C2:
            S = L + R
            if len(C1) == 1 and len(C2) == 1:
                hit = True                         # L u R = V, whose answer is known
            else:
                hit = ask(S, "general: a pair of colour classes")
            if hit:
                _bipartite(ask, L, R, "general: bipartite search", edges)


def _counting(ask, V, known, edges):
    """All edges inside V with edge-counting queries: the edges across the halves are found
    by the bipartite search, a pair's count of crossing edges being Q(A u B) minus the edges
    already known inside A and inside B."""
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
    inner = E1 | E2
    cross = a - len(E1) - len(E2)
    if cross < 0:
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle counted {a} edges in {_show(V)} but its halves hold "
            f"{len(E1) + len(E2)}", V, a)
    if cross:
        _count_bip(ask, V1, V2, cross, inner, edges)


def _count_bip(ask, A, B, cross, inner, edges):
    if len(A) == 1 and len(B) == 1:
        if cross != 1:
            S = _union(A, B)
            raise InconsistentOracleError(
                f"{ask.owner}: the oracle's counts put {cross} edges on the pair {_show(S)}",
                S, cross)
        e = (min(A[0], B[0]), max(A[0], B[0]))
        edges.add(e)
        ask.found.add(e)
        return
    As = _halves(A) if len(A) > 1 else (A,)
    Bs = _halves(B) if len(B) > 1 else (B,)
    total = 0
    for a in As:
        sa = set(a)
        ka = sum(1 for u, v in inner if u in sa and v in sa)
        for b in Bs:
            sb = set(b)
            kb = sum(1 for u, v in inner if u in sb and v in sb)
            S = _union(a, b)
            c = ask(S, "counting: bipartite search") - ka - kb
            if c < 0:
                raise InconsistentOracleError(
                    f"{ask.owner}: the oracle counted fewer edges in {_show(S)} than are "
                    "known inside its two sides", S, c + ka + kb)
            total += c
            if c:
                _count_bip(ask, a, b, c, inner, edges)
    if total != cross:
        S = _union(A, B)
        raise InconsistentOracleError(
            f"{ask.owner}: the oracle's counts of the four unions of halves of {_show(S)} add "
            f"up to {total} crossing edges, not {cross}", S, cross)


def find_edge(n, edge_detecting, max_queries=None):
    """One edge by binary search (lecture 28): None when Q(V) = 0; at most 4 ceil(log2 n) + 1
    queries.  Returns ``(edge, queries)``."""
    o = "find_edge"
    n = _check_int(o, "n", n, 1)
    _check_callable(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    budget = None if max_queries is None else _check_int(o, "max_queries", max_queries, 0)
    ask = _Asker(o, edge_detecting, budget)
    V = tuple(range(n))
    if n < 2 or not ask(V, "is there an edge"):
        return None, ask.queries
    while len(V) > 1:                      # an edge lies inside V
        V1, V2 = _halves(V)
        if len(V1) > 1 and ask(V1, "binary search: first half"):
            V = V1
            continue
        if len(V2) > 1 and ask(V2, "binary search: second half"):
            V = V2
            continue
        A, B = V1, V2                      # every edge of V crosses the halves
        while len(A) > 1 or len(B) > 1:
            As = _halves(A) if len(A) > 1 else (A,)
            Bs = _halves(B) if len(B) > 1 else (B,)
            for a in As:
                for b in Bs:
                    if ask(_union(a, b), "binary search: unions of halves"):
                        A, B = a, b
                        break
                else:
                    continue
                break
            else:
                S = _union(A, B)
                raise InconsistentOracleError(
                    f"{o}: the oracle answered 1 for {_show(S)} but 0 for each union of "
                    "halves of its two edge-free sides", S, True)
        return (min(A[0], B[0]), max(A[0], B[0])), ask.queries
    raise InconsistentOracleError(f"{o}: the oracle answered 1 for a single vertex", V, True)


# -- the five-round randomised algorithm (Angluin & Chen 2008; lectures 29-31) -----------------

class _SplitMix64:
    def __init__(self, seed):
        self.state = int(seed) & _MASK

    def next(self):
        self.state = (self.state + _GAMMA) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def subset(self, items, p):
        """Each item kept with probability p (one draw per item, in order): kept iff
        (z >> 11) < ceil(p 2**53)."""
        thr = math.ceil(p * 9007199254740992.0)
        return tuple(v for v in items if (self.next() >> 11) < thr)


def _bits(S):
    b = 0
    for v in S:
        b |= 1 << v
    return b


def _five_round(ask, n, seed, rec, m_known=None):
    if n < 2:
        rec.update(round_queries=[0, 0, 0, 0, 0], p=None, m_estimate=0, heavy=(),
                   final_pairs=0, pairs_round=None)
        return set()
    rng = _SplitMix64(seed)
    L = max(1, _log2_ceil(n))
    V = tuple(range(n))
    cov = [1 << u for u in range(n)]       # cov[u]: u and the vertices certified non-adjacent
    ones = []                              # sets answered 1 (checked against the result)
    per_round = []
    full = (1 << n) - 1
    p = m_est = None
    heavy = ()

    def run(sets, rnd):
        ans = [ask(S, f"five_round: round {rnd}") for S in sets]
        for S, a in zip(sets, ans):
            if a:
                ones.append(S)
            else:
                b = _bits(S)
                for u in S:
                    cov[u] |= b
        per_round.append(len(sets))
        return ans

    def cands(u):
        return [w for w in range(n) if not (cov[u] >> w) & 1]

    def left():
        # the pairs no set answered 0 holds
        return sum(n - bin(cov[u] & full).count("1") for u in range(n)) // 2

    # Rounds 1-4 each run only when they would ask fewer queries than the pairs left
    # uncertified; otherwise those pairs are asked in that round, and the run ends.
    levels = [] if m_known is not None else [2.0 ** (-i / 2.0)
                                             for i in range(1, 2 * L + 2)]
    last = 5
    if 1 + _R1 * len(levels) >= n * (n - 1) // 2:
        last = 1
    if last == 5:
        # round 1: Q(V) and R1 sets at each p_i = 2^(-i/2), i = 1 .. 2L + 1: the estimate of m
        sets = [V] + [rng.subset(V, p) for p in levels for _ in range(_R1)]
        ans = run(sets, 1)
        if not ans[0]:
            if ones:
                S = ones[0]
                raise InconsistentOracleError(
                    f"{ask.owner}: the oracle answered 1 for {_show(S)} but 0 for all the "
                    "vertices", S, True)
            if m_known:
                raise InconsistentOracleError(
                    f"{ask.owner}: m={m_known} was given, but the oracle answered 0 for all "
                    "the vertices", V, False)
            per_round.extend([0, 0, 0, 0])
            rec.update(round_queries=per_round, p=None, m_estimate=0, heavy=(),
                       final_pairs=0, pairs_round=None)
            return set()
        if m_known == 0:
            raise InconsistentOracleError(
                f"{ask.owner}: m=0 was given, but the oracle answered 1 for all the vertices",
                V, True)
        if m_known is not None:
            m_est = float(m_known)
        else:
            m_est = _estimate_m(levels, [ans[1 + i * _R1: 1 + (i + 1) * _R1] for i in
                                         range(len(levels))], n)
        p = min(1.0, 1.0 / math.sqrt(2.0 * m_est))
        # round 2: t2 = ceil(C2 ln(n) / p^2) sets S_p: their 0-answers certify non-edges
        t2 = math.ceil(_C2 * math.log(max(n, 2)) / (p * p))
        if t2 >= left():
            last = 2
    if last == 5:
        run([rng.subset(V, p) for _ in range(t2)], 2)
        h = max(math.ceil(2.0 / p), 4 * L)
        heavy = tuple(u for u in range(n) if n - bin(cov[u] & full).count("1") > h)
        hs = set(heavy)
        # round 3: for each heavy u, sets {u} u T, T drawn from u's light candidates with
        # q_j = 2^-j, j = 1 .. ceil(log2 |B_u|), R3 sets each; q_u = the first q_j answered 0
        # at least a quarter of the time (about 1/deg(u): the density that certifies fastest)
        Bs = [[w for w in cands(u) if w not in hs] for u in heavy]
        Js = [max(1, _log2_ceil(len(B))) for B in Bs]
        if sum(Js) > 0 and _R3 * sum(Js) >= left():
            last = 3
    if last == 5:
        plan = []
        for u, B, J in zip(heavy, Bs, Js):
            plan.append((u, [[_union((u,), rng.subset(B, 2.0 ** -j)) for _ in range(_R3)]
                             for j in range(1, J + 1)]))
        ans = run([S for _, blocks in plan for blk in blocks for S in blk], 3)
        qs = {}
        k = 0
        for u, blocks in plan:
            q = None
            for j, blk in enumerate(blocks, start=1):
                zeros = sum(1 for a in ans[k: k + len(blk)] if not a)
                k += len(blk)
                if q is None and 4 * zeros >= len(blk):
                    q = 2.0 ** -j
            qs[u] = 2.0 ** -len(blocks) if q is None else q
        # round 4: for each heavy u, ceil(C4 ln(|B'_u| + 1) / q_u) sets {u} u T at density q_u
        Bs = [[w for w in cands(u) if w not in hs] for u in heavy]
        ts = [math.ceil(_C4 * math.log(len(B) + 1) / qs[u]) if B else 0
              for u, B in zip(heavy, Bs)]
        if sum(ts) > 0 and sum(ts) >= left():
            last = 4
    if last == 5:
        sets = []
        for u, B, t in zip(heavy, Bs, ts):
            sets.extend(_union((u,), rng.subset(B, qs[u])) for _ in range(t))
        run(sets, 4)
    # round 5 (or the round where the pairs were no dearer): every pair not yet certified
    pairs = [(u, w) for u in range(n) for w in cands(u) if w > u]
    ans = run([pr for pr in pairs], last)
    per_round.extend([0] * (5 - len(per_round)))
    edges = {pr for pr, a in zip(pairs, ans) if a}
    for S in ones:
        T = set(S)
        if not any(u in T and v in T for u, v in edges):
            raise InconsistentOracleError(
                f"{ask.owner}: the oracle answered 1 for {_show(S)}, but the answers of the "
                "later rounds leave no edge inside it", S, True)
    if m_known is not None and len(edges) != m_known:
        raise InconsistentOracleError(
            f"{ask.owner}: m={m_known} was given, but the answers fit exactly "
            f"{len(edges)} edges", None, None)
    rec.update(round_queries=per_round, p=p, m_estimate=m_est, heavy=heavy,
               final_pairs=len(pairs), pairs_round=last)
    return edges


_R1 = 6          # sets per level in round 1
_C2 = 3.0        # round 2: t2 = ceil(C2 ln n / p^2)
_R3 = 4          # sets per density in round 3
_C4 = 3.0        # round 4: ceil(C4 ln(|B| + 1) / q) sets per heavy vertex


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


def _seed(owner, seed):
    if seed is None:
        import os
        return int.from_bytes(os.urandom(8), "little")
    if not _is_int(seed) or seed < 0:
        raise ValueError(f"{owner}: parameter seed must be None or an integer >= 0, got "
                         f"{seed!r}")
    return int(seed)


def _parts(owner, parts, n):
    try:
        A, B = parts
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: parameter parts must be a pair (A, B) of vertex sets, got "
                         f"{parts!r}") from None
    A = _vertex_set(owner, A, n, "parts[0]")
    B = _vertex_set(owner, B, n, "parts[1]")
    if set(A) & set(B):
        raise ValueError(f"{owner}: parameter parts: the sides share the vertices "
                         f"{sorted(set(A) & set(B))[:10]}")
    return A, B


def learn_graph(n, edge_detecting, method="adaptive", seed=None, max_queries=None, parts=None,
                m=None):
    """Learn a hidden graph on the vertices 0..n-1 exactly with edge-detecting queries
    (the rules and bounds are stated in mbcore.queries.learn_graph)."""
    o = "learn_graph"
    n = _check_int(o, "n", n, 1)
    _check_callable(o, "edge_detecting", edge_detecting, "an oracle Q(S) -> bool")
    if method not in _METHODS:
        raise ValueError(f"{o}: parameter method must be one of {list(_METHODS)}, got "
                         f"{method!r}")
    budget = None if max_queries is None else _check_int(o, "max_queries", max_queries, 0)
    if parts is not None and method != "adaptive":
        raise ValueError(f"{o}: parameter parts (a known bipartition) needs method='adaptive', "
                         f"got method={method!r}")
    if m is not None:
        if method != "five_round":
            raise ValueError(f"{o}: parameter m (the number of edges, when known) needs "
                             f"method='five_round', got method={method!r}")
        top = n * (n - 1) // 2
        if not _is_int(m) or not 0 <= m <= top:
            raise ValueError(f"{o}: parameter m must be None or an integer in [0, {top}] "
                             f"(n(n-1)/2), got {m!r}")
        m = int(m)
    ask = _Asker(o, edge_detecting, budget, counting=(method == "counting"))
    edges = set()
    rec = {}
    rounds = None
    V = tuple(range(n))
    if parts is not None:
        A, B = _parts(o, parts, n)
        graph = "bipartite"
        if A and B and ask(_union(A, B), "bipartite: is there an edge"):
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
        edges = _five_round(ask, n, _seed(o, seed), rec, m)
    bound = None
    if graph is not None:
        bound = edge_detecting_bound(n, len(edges), graph, counting=(method == "counting"))
    rec.update(graph=graph, bound_formula=_formula(graph, method))
    return GraphResult(set(edges), ask.queries, rounds, bound, method, n, rec)


def _formula(graph, method):
    if graph is None:
        return "none (Angluin & Chen: O(m log n + sqrt(m) log^2 n) expected)"
    c = 4 if graph == "bipartite" else (6 if method == "counting" else 12)
    return f"{c} m ceil(log2 n) + 1"


# -- group testing (lecture 28) ------------------------------------------------------------------

def _test_alone(o, ask, x, searched, where, fits):
    """The search named x, but none of its ``searched`` tests was positive (no positive test
    held x): test x alone; a negative answer means the answers fit no defective there."""
    S = (x,)
    if ask(S, f"the test of item {x} alone"):
        return
    if searched == 0:
        told = f"item {x} is the only candidate, and its test alone was negative"
    elif searched == 1:
        told = (f"the 1 test {where} was negative, and so was the test of item {x} alone, "
                f"the one item those answers leave")
    else:
        told = (f"the {searched} tests {where} were all negative, and so was the test of item "
                f"{x} alone, the one item those answers leave")
    raise InconsistentOracleError(f"{o}: {told}: {fits} (does the test ever answer True?)",
                                  S, False)


def find_defective(n, test, adaptive=True):
    """The one defective among 0..n-1 (binary search, or the non-adaptive design: test k holds
    the items whose k-th bit, most significant first, is 0).  When every answer is negative,
    the item they name was held by no test: it is tested alone, and a negative answer raises
    InconsistentOracleError.  At most ceil(log2(n + 1)) tests, the bound reported."""
    o = "find_defective"
    n = _check_int(o, "n", n, 1)
    _check_callable(o, "test", test, "a test test(S) -> bool")
    if not isinstance(adaptive, bool):
        raise ValueError(f"{o}: parameter adaptive must be a bool, got {adaptive!r}")
    k = _log2_ceil(n)
    record = []

    def ask(S, where=None):
        a = _answer(o, test(S), S)
        record.append((S, a))
        return a

    if adaptive:
        lo, hi = 0, n
        while hi - lo > 1:
            mid = lo + (hi - lo + 1) // 2
            S = tuple(range(lo, mid))
            if ask(S):
                hi = mid
            else:
                lo = mid
        x = lo
    else:
        x = 0
        groups = [tuple(i for i in range(n) if not (i >> (k - 1 - b)) & 1) for b in range(k)]
        for b, S in enumerate(groups):
            if not ask(S):
                x |= 1 << (k - 1 - b)
        if x >= n:
            raise InconsistentOracleError(
                f"{o}: the answers {[int(a) for _, a in record]} spell the item {x}, but there "
                f"are only {n} items (0..{n - 1}): no single defective fits them",
                record[-1][0], record[-1][1])
    if True not in [a for _, a in record]:
        _test_alone(o, ask, x, len(record),
                    "of the binary search" if adaptive else "of the design",
                    "no single defective fits the answers")
    return GroupTestResult((x,), len(record), group_testing_bound(n + 1, 1), adaptive, record)


def find_defectives(n, test, d=None, max_tests=None):
    """Every defective among 0..n-1 by binary splitting: test the remaining items; when
    positive, binary-search one defective inside (the first half tested), remove it, repeat.
    With d given the remaining items are known to hold a defective and are not tested; a
    search whose tests were all negative tests the item it ends at alone (negative: the
    answers fit no d defectives).  Every answer is then checked against the defectives found
    (a mismatch: no set of defectives fits the answers).  At most d ceil(log2(n + 1)) tests
    with d known, otherwise d (ceil(log2 n) + 1) + 1."""
    o = "find_defectives"
    n = _check_int(o, "n", n, 1)
    _check_callable(o, "test", test, "a test test(S) -> bool")
    if d is not None:
        d = _check_int(o, "d", d, 0)
        if d > n:
            raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    budget = None if max_tests is None else _check_int(o, "max_tests", max_tests, 0)
    record = []

    def ask(S, where):
        if budget is not None and len(record) >= budget:
            raise QueryBudgetExceeded(f"{o}: max_tests={budget} reached ({where} needed test "
                                      f"{len(record) + 1}, on {_show(S)})", budget, where)
        a = _answer(o, test(S), S)
        record.append((S, a))
        return a

    rest = list(range(n))
    found = []
    while rest and (d is None or len(found) < d):
        S = tuple(rest)
        if d is None and not ask(S, "the remaining items"):
            break
        positive = d is None
        first = len(record)
        X = S
        while len(X) > 1:
            X1, X2 = _halves(X)
            if ask(X1, "binary search: first half"):
                X = X1
                positive = True
            else:
                X = X2
        if not positive:
            holds = "s hold" if len(S) > 1 else " holds"
            _test_alone(o, ask, X[0], len(record) - first,
                        f"of the binary search among the {len(S)} remaining items",
                        f"the remaining item{holds} no defective, so the answers fit no set "
                        f"of {d} defective{'s' if d > 1 else ''} (d={d} was given; "
                        f"{len(found)} found before)")
        found.append(X[0])
        rest.remove(X[0])
    # every answer must fit the defectives found
    D = set(found)
    for S, a in record:
        holds = any(x in D for x in S)
        if a != holds:
            some = "" if d is None else f"{d} "
            raise InconsistentOracleError(
                f"{o}: the test of {_show(S)} answered {a}, but it holds "
                f"{'none of the defectives found, ' if a else 'the defectives found '}"
                f"{sorted(D) if a else sorted(D.intersection(S))}: no set of "
                f"{some}defectives fits the answers", S, a)
    k = len(found)
    if d is not None:
        bound = group_testing_bound(n + 1, k)
    else:
        bound = group_testing_bound(n, k, known=False)
    return GroupTestResult(tuple(sorted(found)), len(record), bound, True, record)
