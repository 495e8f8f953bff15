"""Finite classes and version spaces, literally from the rules stated in mbcore.version_space
(pure Python, the specification of ``mbcore.version_space``).

Conventions shared with mbcore.version_space (the compiled side matches them exactly)
-------------------------------------------------------------------------------------
* A :class:`ConceptClass` holds m concepts over N points.  Here it is stored column-wise: for
  each point j a Python int whose bit c is set iff concept c labels point j with 1.  Every
  constructor checks the size first: a table of more than 2**31 bits (n_concepts * n_points) is a
  ValueError naming the constructor, the numbers and the largest n (k) allowed.
* Built-in domains: {0,1}^n with point j = the binary digits of j, most significant first
  (x_i = (j >> (n-1-i)) & 1).  ``points`` is a list of tuples of Python ints, or None when the
  domain is only indexed (``from_matrix`` without points).  Names: "matrix", "functions" (or the
  name given), "all_conjunctions(n)", "monotone_conjunctions(n)", "monotone_disjunctions(n)",
  "half_intervals(k)", "dictators(n, basis)", "dictators(n, cube)".
* The learners' rows X are either a 1-D sequence of point indices (integers in [0, N); bool,
  float or anything else is a TypeError naming the row; out of range is a ValueError naming the
  row) or a 2-D sequence of feature vectors (each must be a point of the domain: wrong width, a
  value that is not an integer-valued real (0.5, NaN) or a vector outside the domain is a
  ValueError naming the row; a non-numeric value is a TypeError naming the row; a class without
  points refuses feature vectors with a ValueError).  The kind is decided by the first row; a
  later row of the other kind is a ValueError naming it.  Sparse matrices are a TypeError.
* Labels as for every learner: two classes, sorted, ``classes_[1]`` is the positive label ("1").
  ``decision_function`` is 1.0 where the prediction is positive, 0.0 elsewhere (as the Boolean
  learners).  ``n_features_in_`` is the width of the points (1 for an indexed-only domain).
* ``fit(X, y, classes=None)`` = forget everything, then the base's epoch loop: passes until one
  without an update, or ``max_epochs`` passes (``converged_``, ``cycled_`` (always False),
  ``n_iter_``, ``epoch_mistakes_``, ``epoch_updates_``).  The version space only shrinks, so the
  loop always ends; Halving (conservative=False) and SOA stop after at most 2 passes.
* All or nothing: on any error the learner is left exactly as before the call; a failed first
  call leaves it unfitted.  Inputs (X, y, the ConceptClass) are never modified.
* ``concepts`` must be a ConceptClass of this module (TypeError otherwise).  Replacing it with
  ``set_params`` on a fitted learner is refused (ValueError naming concepts) until ``fit`` starts
  over; changing ``conservative`` is allowed and applies from the next example.
"""

import copy
import itertools
import numbers
import sys

from .base import OnlineLearner, check_labels, check_n_jobs, empty_error, infer_classes
from .exceptions import warn_failure
from .mistake_tree import MistakeTree

__all__ = ["ConceptClass", "Halving", "SOA", "littlestone_dimension", "vc_dimension",
           "HalfIntervalAdversary"]

BIT_LIMIT = 2 ** 31        # n_concepts * n_points of a ConceptClass
DIM_LIMIT = 4096           # concepts and points for littlestone_dimension / vc_dimension / SOA

if hasattr(int, "bit_count"):
    def _popcount(v):
        return v.bit_count()
else:  # pragma: no cover - Python 3.9
    def _popcount(v):
        return bin(v).count("1")


def _is_int(v):
    """An integer (Python or NumPy), not a bool."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_numeric(v):
    if isinstance(v, (bool, numbers.Real)):
        return True
    return hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "biuf"


def _bits(indices, m):
    """The int whose bits are the given indices (each < m)."""
    buf = bytearray((m + 7) // 8)
    for c in indices:
        buf[c >> 3] |= 1 << (c & 7)
    return int.from_bytes(bytes(buf), "little")


def _members(v):
    """The indices of the set bits of v, increasing."""
    s = bin(v)[:1:-1]
    return [i for i, ch in enumerate(s) if ch == "1"]


def _check_size(owner, m, N, what, var=None, bits_of=None):
    """ValueError if an m x N table is over BIT_LIMIT; ``what`` spells the product, and the
    message names the largest ``var`` whose table ``bits_of(var)`` fits."""
    if m * N <= BIT_LIMIT:
        return
    use = ""
    if var:
        largest = next(n for n in itertools.count() if bits_of(n + 1) > BIT_LIMIT)
        use = f"; use {var} <= {largest}"
    raise ValueError(f"{owner}: {what} = {m * N} bits is over the limit of 2**31 bits "
                     f"(256 MB){use}")


def _check_n(owner, name, n, low):
    if not _is_int(n) or n < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {n!r}")
    return int(n)


def _cube(n):
    return [tuple((j >> (n - 1 - i)) & 1 for i in range(n)) for j in range(2 ** n)]


def _as_list(v):
    return v.tolist() if hasattr(v, "tolist") else list(v)


def _check_points(owner, points, N):
    """Feature vectors of 0/1 values, all of one width >= 1, distinct; -> list of int tuples."""
    if isinstance(points, (str, bytes)):
        raise TypeError(f"{owner}: points must be a list of feature vectors, got a string")
    try:
        raw = _as_list(points)
    except TypeError:
        raise TypeError(f"{owner}: points must be a list of feature vectors, got "
                        f"{type(points).__name__}") from None
    if N is not None and len(raw) != N:
        raise ValueError(f"{owner}: {len(raw)} points for {N} columns of M")
    if not raw:
        raise ValueError(f"{owner}: at least one point is required")
    out, seen, width = [], {}, None
    for j, p in enumerate(raw):
        if isinstance(p, (str, bytes)) or not hasattr(p, "__len__"):
            raise ValueError(f"{owner}: points[{j}] is not a feature vector ({p!r})")
        vals = []
        for v in _as_list(p):
            if not _is_numeric(v):
                raise TypeError(f"{owner}: points must hold 0/1 values, got a value of type "
                                f"{type(v).__name__} ({v!r}) in points[{j}]")
            if v == 1:
                vals.append(1)
            elif v == 0:
                vals.append(0)
            else:
                raise ValueError(f"{owner}: points must hold 0/1 values, got {v!r} in "
                                 f"points[{j}]")
        if width is None:
            width = len(vals)
            if width == 0:
                raise ValueError(f"{owner}: points[0] is empty; feature vectors need at least "
                                 "one value")
        elif len(vals) != width:
            raise ValueError(f"{owner}: points[{j}] has {len(vals)} values, points[0] has "
                             f"{width}")
        t = tuple(vals)
        if t in seen:
            raise ValueError(f"{owner}: points[{j}] repeats points[{seen[t]}] ({list(t)!r}); "
                             "the points must be distinct")
        seen[t] = j
        out.append(t)
    return out


class ConceptClass:
    """A finite concept class over a finite domain, stored column-wise as bitsets (twin of
    mbcore.ConceptClass).

    Build one with :meth:`from_matrix`, :meth:`from_functions` or a built-in:
    :meth:`all_conjunctions`, :meth:`monotone_conjunctions`, :meth:`monotone_disjunctions`,
    :meth:`half_intervals`, :meth:`dictators`.

    Attributes: ``n_concepts``, ``n_points``, ``points`` (list of tuples of ints, or None),
    ``name`` (str).  ``len(C)`` is ``n_concepts``.
    """

    def __init__(self, cols, n_concepts, points=None, name="class"):
        self._cols = list(cols)
        self.n_concepts = int(n_concepts)
        self.n_points = len(self._cols)
        self.points = points
        self.name = name
        self._index = None if points is None else {p: j for j, p in enumerate(points)}

    def __len__(self):
        return self.n_concepts

    def __repr__(self):
        return (f"ConceptClass({self.name!r}, n_concepts={self.n_concepts}, "
                f"n_points={self.n_points})")

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def from_matrix(cls, M, points=None, name="matrix"):
        """From a 0/1 matrix M of shape (n_concepts, n_points): M[c][j] = c(point j).

        Values: bool, int or float equal to 0 or 1 (a number that is not is a ValueError naming
        the row, a non-numeric value a TypeError naming the row).  ``points``: None (an indexed
        domain) or N distinct feature vectors of 0/1 of one width.
        """
        o = "ConceptClass.from_matrix"
        if not isinstance(name, str):
            raise ValueError(f"{o}: parameter name must be a string, got {name!r}")
        if M is None or isinstance(M, (str, bytes)):
            raise TypeError(f"{o}: M must be a 2-D matrix (concepts x points), got "
                            f"{type(M).__name__}")
        ndim = getattr(M, "ndim", None)
        if ndim is not None and ndim != 2:
            raise ValueError(f"{o}: M must be 2-D (concepts x points), got ndim={ndim}")
        try:
            rows = list(M)
        except TypeError:
            raise TypeError(f"{o}: M must be a 2-D matrix (concepts x points), got "
                            f"{type(M).__name__}") from None
        if not rows:
            raise ValueError(f"{o}: M has no rows; at least one concept is required")
        N = None
        for i, r in enumerate(rows):
            if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
                raise ValueError(f"{o}: M must be 2-D (concepts x points); row {i} is not a "
                                 "sequence")
            if N is None:
                N = len(r)
            elif len(r) != N:
                raise ValueError(f"{o}: M's rows have different lengths ({N} and {len(r)} in "
                                 f"row {i})")
        if N == 0:
            raise ValueError(f"{o}: M has no columns; at least one point is required")
        m = len(rows)
        _check_size(o, m, N, f"{m} x {N}")
        ones = [[] for _ in range(N)]
        for i, r in enumerate(rows):
            for j, v in enumerate(_as_list(r)):
                if not _is_numeric(v):
                    raise TypeError(f"{o}: M must hold 0/1 values, got a value of type "
                                    f"{type(v).__name__} ({v!r}) in row {i}")
                if v == 1:
                    ones[j].append(i)
                elif v != 0:
                    raise ValueError(f"{o}: M must hold 0/1 values, got {v!r} in row {i}")
        pts = None if points is None else _check_points(o, points, N)
        return cls([_bits(s, m) for s in ones], m, pts, name)

    @classmethod
    def from_functions(cls, functions, points, name="functions"):
        """Concept c labels point j with ``bool(functions[c](points[j]))``.

        ``points``: distinct feature vectors of 0/1 of one width; each function is called with
        the point as a tuple of Python ints, concept by concept (c outer, j inner).  Exceptions
        raised by a function propagate unchanged.
        """
        o = "ConceptClass.from_functions"
        if not isinstance(name, str):
            raise ValueError(f"{o}: parameter name must be a string, got {name!r}")
        if functions is None or isinstance(functions, (str, bytes)):
            raise TypeError(f"{o}: functions must be a list of callables, got "
                            f"{type(functions).__name__}")
        fs = list(functions)
        if not fs:
            raise ValueError(f"{o}: at least one function is required")
        for c, f in enumerate(fs):
            if not callable(f):
                raise TypeError(f"{o}: functions[{c}] is not callable ({f!r})")
        pts = _check_points(o, points, None)
        m, N = len(fs), len(pts)
        _check_size(o, m, N, f"{m} x {N}")
        ones = [[] for _ in range(N)]
        for c, f in enumerate(fs):
            for j, p in enumerate(pts):
                if f(p):
                    ones[j].append(c)
        return cls([_bits(s, m) for s in ones], m, pts, name)

    @classmethod
    def all_conjunctions(cls, n):
        """The 3**n conjunctions of literals on {0,1}^n: concept c in base 3, digit d_i (most
        significant first) for variable i: 0 = absent, 1 = x_i, 2 = ~x_i (concept 0 = true)."""
        o = "ConceptClass.all_conjunctions"
        n = _check_n(o, "n", n, 1)
        _check_size(o, 3 ** n, 2 ** n, f"3**{n} x 2**{n}", "n", lambda k: 6 ** k)
        m = 3 ** n
        pw = [3 ** (n - 1 - i) for i in range(n)]
        cols = []
        for x in _cube(n):
            # the concepts true on x: each digit is 0 or the literal x satisfies
            sat = [0]
            for i in range(n):
                lit = pw[i] * (1 if x[i] else 2)
                sat = sat + [c + lit for c in sat]
            cols.append(_bits(sat, m))
        return cls(cols, m, _cube(n), f"all_conjunctions({n})")

    @classmethod
    def monotone_conjunctions(cls, n):
        """The 2**n monotone conjunctions on {0,1}^n: concept c = the variables i with bit
        n-1-i of c set; 1 iff all of them are 1 (concept 0 is true everywhere)."""
        o = "ConceptClass.monotone_conjunctions"
        n = _check_n(o, "n", n, 1)
        _check_size(o, 2 ** n, 2 ** n, f"2**{n} x 2**{n}", "n", lambda k: 4 ** k)
        m = 2 ** n
        cols = [_bits([c for c in range(m) if c & ~j == 0], m) for j in range(m)]
        return cls(cols, m, _cube(n), f"monotone_conjunctions({n})")

    @classmethod
    def monotone_disjunctions(cls, n):
        """The 2**n monotone disjunctions on {0,1}^n (same indexing); 1 iff some variable of c
        is 1 (concept 0 is false everywhere)."""
        o = "ConceptClass.monotone_disjunctions"
        n = _check_n(o, "n", n, 1)
        _check_size(o, 2 ** n, 2 ** n, f"2**{n} x 2**{n}", "n", lambda k: 4 ** k)
        m = 2 ** n
        cols = [_bits([c for c in range(m) if c & j], m) for j in range(m)]
        return cls(cols, m, _cube(n), f"monotone_disjunctions({n})")

    @classmethod
    def half_intervals(cls, k):
        """c_t(x) = 1 iff x <= t, t = 0..2**k, on the points 1..2**k (point index x - 1,
        ``points`` = [(1,), ..., (2**k,)]); k >= 0."""
        o = "ConceptClass.half_intervals"
        k = _check_n(o, "k", k, 0)
        _check_size(o, 2 ** k + 1, 2 ** k, f"(2**{k} + 1) x 2**{k}", "k",
                    lambda q: (2 ** q + 1) * 2 ** q)
        N = 2 ** k
        m = N + 1
        full = (1 << m) - 1
        # point x (index x - 1): the thresholds t >= x
        cols = [full & ~((1 << x) - 1) for x in range(1, N + 1)]
        return cls(cols, m, [(x,) for x in range(1, N + 1)], f"half_intervals({k})")

    @classmethod
    def dictators(cls, n, domain="basis"):
        """c_i(x) = x_i, i = 0..n-1, on the basis vectors e_0..e_{n-1} (``domain="basis"``,
        point j = e_j) or on {0,1}^n (``domain="cube"``)."""
        o = "ConceptClass.dictators"
        n = _check_n(o, "n", n, 1)
        if not isinstance(domain, str) or domain not in ("basis", "cube"):
            raise ValueError(f"{o}: parameter domain must be one of ['basis', 'cube'], got "
                             f"{domain!r}")
        if domain == "basis":
            _check_size(o, n, n, f"{n} x {n}", "n", lambda q: q * q)
            pts = [tuple(1 if i == j else 0 for i in range(n)) for j in range(n)]
        else:
            _check_size(o, n, 2 ** n, f"{n} x 2**{n}", "n", lambda q: q * 2 ** q)
            pts = _cube(n)
        cols = [_bits([i for i in range(n) if p[i]], n) for p in pts]
        return cls(cols, n, pts, f"dictators({n}, {domain})")

    # -- access ------------------------------------------------------------------------------
    def matrix(self):
        """The table: n_concepts lists of n_points 0/1 ints (the concepts' rows)."""
        m = self.n_concepts
        strs = [format(col, f"0{m}b")[::-1] for col in self._cols]
        return [[1 if ch == "1" else 0 for ch in row] for row in zip(*strs)]

    def labels(self, c):
        """Concept c's labels on the points, a list of n_points 0/1 ints."""
        if not _is_int(c) or not 0 <= c < self.n_concepts:
            raise ValueError(f"ConceptClass {self.name!r}: concept index {c!r} out of range "
                             f"[0, {self.n_concepts})")
        c = int(c)
        return [(col >> c) & 1 for col in self._cols]

    def point_index(self, x):
        """The index of the feature vector x in the domain (ValueError if it is not a point)."""
        if self.points is None:
            raise ValueError(f"ConceptClass {self.name!r}: the domain has no feature vectors "
                             "(points is None); use point indices")
        try:
            key = _vector_key(x)
        except (TypeError, ValueError):
            key = None
        j = None if key is None else self._index.get(key)
        if j is None:
            raise ValueError(f"ConceptClass {self.name!r}: {x!r} is not a point of the domain")
        return j


def _vector_key(row):
    """A feature vector as a tuple of ints; TypeError for a non-numeric value, ValueError for a
    value that is not an integer-valued real."""
    if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
        raise TypeError("not a feature vector")
    key = []
    for v in _as_list(row):
        if not _is_numeric(v):
            raise TypeError(f"a value of type {type(v).__name__} ({v!r})")
        if isinstance(v, bool) or _is_int(v):
            key.append(int(v))
            continue
        f = float(v)
        if f != f or f in (float("inf"), float("-inf")) or not f.is_integer():
            raise ValueError(f"{v!r}")
        key.append(int(f))
    return tuple(key)


def _is_sparse(X):
    # (indptr first: reading ``data`` of a NumPy array of dates raises ValueError)
    return hasattr(X, "tocsr") or all(hasattr(X, a) for a in ("indptr", "indices", "data",
                                                                 "shape"))


def _point_rows(owner, C, X):
    """The point index of each row of X: X is a list of point indices of C, or of feature
    vectors of C's domain (never both).  The same refusals as mbcore's, in the same words."""
    what = f"X must be a 1-D sequence of point indices or a 2-D array of feature vectors, got " \
           f"{type(X).__name__}"
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{owner}: {what}")
    if _is_sparse(X):
        raise TypeError(f"{owner}: X must be point indices or dense feature vectors; sparse "
                        "matrices are not supported")
    ndim = getattr(X, "ndim", None)
    if ndim not in (None, 1, 2):
        raise ValueError(f"{owner}: X must be 1-D (point indices) or 2-D (feature vectors), got "
                         f"ndim={ndim}")
    try:
        rows = _as_list(X)
    except TypeError:
        raise TypeError(f"{owner}: {what}") from None
    if not rows:
        raise empty_error(owner)
    vectors = _row_kind(owner, 0, rows[0])
    out = []
    for i, r in enumerate(rows):         # row by row: the first bad row is the one named
        if _row_kind(owner, i, r) != vectors:
            raise ValueError(f"{owner}: X mixes point indices and feature vectors (row {i})")
        out.append((_vector_point if vectors else _index_point)(owner, C, i, r))
    return out


def _row_kind(owner, i, r):
    """True for a feature vector (a sequence that is not a dict, a set or a string), False for
    what can only be a point index; a string is neither."""
    if isinstance(r, (str, bytes)):
        raise TypeError(f"{owner}: X must hold point indices or feature vectors, got a value "
                        f"of type {type(r).__name__} ({r!r}) in row {i}")
    if isinstance(r, (dict, set, frozenset)):
        return False
    return hasattr(r, "__len__") or hasattr(r, "__iter__")


def _index_point(owner, C, i, r):
    """Row i given as a point index: an integer (not a bool) in [0, n_points)."""
    if not _is_int(r):
        raise TypeError(f"{owner}: point indices must be integers (not bool), got "
                        f"{r!r} of type {type(r).__name__} in row {i}")
    if r < 0 or r >= C.n_points:
        raise ValueError(f"{owner}: point index {r!r} in row {i} is out of range "
                         f"[0, {C.n_points})")
    return int(r)


def _vector_point(owner, C, i, r):
    """Row i given as a feature vector: the index of the equal point of C's domain."""
    if C.points is None:
        raise ValueError(f"{owner}: the class {C.name!r} has no feature vectors (points is "
                         f"None); use point indices (row {i} is a feature vector)")
    vals = _as_list(r)
    width = len(C.points[0])
    if len(vals) != width:
        raise ValueError(f"{owner}: row {i} of X has {len(vals)} values, the points of "
                         f"{C.name!r} have {width}")
    try:
        j = C._index.get(_vector_key(vals))
    except ValueError:          # NaN, an infinity or a fraction before any non-number
        j = None
    except TypeError:           # a value that is no real number, before any of those
        v = next(v for v in vals if not _is_numeric(v))
        raise TypeError(f"{owner}: X must hold real numbers, got a value of type "
                        f"{type(v).__name__} ({v!r}) in row {i}") from None
    if j is None:
        raise ValueError(f"{owner}: row {i} of X ({vals!r}) is not a point of the domain "
                         f"of {C.name!r}")
    return j


def _check_class(owner, C):
    if not isinstance(C, ConceptClass):
        raise TypeError(f"{owner}: parameter concepts must be a ConceptClass, got "
                        f"{type(C).__name__}")
    return C


def _dim_limit(owner, C):
    if C.n_concepts > DIM_LIMIT or C.n_points > DIM_LIMIT:
        raise ValueError(f"{owner}: the class has {C.n_concepts} concepts and {C.n_points} "
                         f"points; the exact computation is limited to {DIM_LIMIT} of each")


# ------------------------------------------------------------------------------------------------
# Dimensions
# ------------------------------------------------------------------------------------------------


def _ldim_rec(cols, memo, V):
    """Ldim of the subset V; a module-level function, so the recursion is Python-to-Python
    (no C stack) and the memo object stays picklable."""
    got = memo.get(V)
    if got is not None:
        return got
    size = _popcount(V)
    if size <= 1:
        memo[V] = size - 1
        return size - 1
    cap = size.bit_length() - 1                   # floor(log2 |V|)
    best = 0
    seen = set()
    for col in cols:
        a = V & col
        if a == 0 or a == V:
            continue
        b = V ^ a
        key = a if a < b else b
        if key in seen:
            continue
        seen.add(key)
        na, nb = _popcount(a), _popcount(b)
        if na > nb:
            a, b, na = b, a, nb
        if na.bit_length() <= best:              # 1 + floor(log2 na) <= best: no gain
            continue
        la = _ldim_rec(cols, memo, a)
        if la + 1 <= best:
            continue
        d = 1 + min(la, _ldim_rec(cols, memo, b))
        if d > best:
            best = d
            if best >= cap:
                break
    memo[V] = best
    return best


class _Ldim:
    """Littlestone dimension of subsets V (bitsets) of one class, memoised on V.

    Ldim(empty) = -1, Ldim({c}) = 0, Ldim(V) = max over the points x splitting V of
    1 + min(Ldim(V_0), Ldim(V_1)), 0 if no point splits V.  The search is pruned with
    Ldim(V) <= floor(log2 |V|), which cannot change the value.
    """

    def __init__(self, C):
        self.cols = C._cols
        self.memo = {}

    def __call__(self, V):
        return _deep(_ldim_rec, self.cols, self.memo, V)


def _deep(f, *args):
    """Run f with a recursion limit deep enough for chains of nested subsets."""
    old = sys.getrecursionlimit()
    need = 4 * DIM_LIMIT + 1000
    if old < need:
        sys.setrecursionlimit(need)
    try:
        return f(*args)
    finally:
        if old < need:
            sys.setrecursionlimit(old)


def _check_flag(owner, name, value):
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise ValueError(f"{owner}: parameter {name} must be True or False, got {value!r}")
    return bool(value)


def littlestone_dimension(concepts, witness=False):
    """The Littlestone dimension of a ConceptClass, exactly (memoised recursion).

    Ldim(empty) = -1, Ldim({c}) = 0, Ldim(V) = max over the points x that split V (V_0 and V_1
    both nonempty) of 1 + min(Ldim(V_0), Ldim(V_1)); 0 when no point splits V (identical
    concepts).  At most 4096 concepts and 4096 points (ValueError otherwise).

    ``witness=True`` returns (Ldim, tree): the canonical mistake tree of depth Ldim(C).  A node
    whose subtree must have depth d over the concepts V left by its path asks the lowest point
    index j with Ldim(V_0) >= d - 1 and Ldim(V_1) >= d - 1 (V_b: the concepts of V labelling
    j with b); a leaf (d = 0) holds the lowest concept index of V.  None for Ldim -1 (no
    concept).  ``witness`` must be a bool (ValueError otherwise).
    """
    owner = "littlestone_dimension"
    C = _check_class(owner, concepts)
    witness = _check_flag(owner, "witness", witness)
    _dim_limit(owner, C)
    ldim = _Ldim(C)
    full = (1 << C.n_concepts) - 1
    d = ldim(full)
    if not witness:
        return d
    return d, (None if d < 0 else _deep(_witness, C, ldim, full, d))


def _witness(C, ldim, V, d):
    """The canonical mistake tree of depth d over the subset V (Ldim(V) >= d)."""
    if d == 0:
        return MistakeTree.leaf(C, (V & -V).bit_length() - 1)
    need = 1 << (d - 1)                 # Ldim(U) >= d - 1 needs |U| >= 2**(d-1)
    for j, col in enumerate(C._cols):
        v1 = V & col
        v0 = V ^ v1
        if _popcount(v0) < need or _popcount(v1) < need:
            continue
        if ldim(v0) >= d - 1 and ldim(v1) >= d - 1:
            return MistakeTree.node(C, j, _witness(C, ldim, v0, d - 1),
                                    _witness(C, ldim, v1, d - 1))
    raise AssertionError("Ldim(V) >= d, yet no point splits V into parts of Ldim >= d - 1")


def vc_dimension(concepts, witness=False):
    """The VC dimension of a ConceptClass by brute force: the largest d such that some d points
    are shattered (0 if none is).  Shattered sets are closed under subsets, so they are grown
    depth first from shattered sets, in increasing point order; the search stops at
    floor(log2 n_concepts), the largest possible value.  At most 4096 concepts and 4096 points
    (ValueError otherwise).

    A branch is dropped when it cannot reach a size above the best so far: too few points
    left, or a part of the concepts (by their labels on the current set) holding fewer than
    2**k concepts where k more points would be needed (shattering k more points splits every
    part into 2**k nonempty pieces).

    ``witness=True`` returns (d, points): the first shattered set of size d in lexicographic
    order of the increasing point indices (the depth-first search in increasing order meets
    the sets of one size in that order, and the pruning drops only branches that cannot reach
    a size above the best so far), a tuple; () for d = 0.
    """
    owner = "vc_dimension"
    C = _check_class(owner, concepts)
    witness = _check_flag(owner, "witness", witness)
    _dim_limit(owner, C)
    cols = C._cols
    N = C.n_points
    cap = C.n_concepts.bit_length() - 1             # 2**d <= n_concepts
    best = 0
    best_set = ()
    # stack of (next point to try, the nonempty parts of the concepts by their labels on the
    # current set, the size of the smallest part); the set's size is len(stack) - 1
    stack = [[0, [(1 << C.n_concepts) - 1], C.n_concepts]]
    while stack and best < cap:
        top = stack[-1]
        depth = len(stack) - 1
        j = top[0]
        if j >= N or depth + (N - j) <= best or top[2] < (1 << (best + 1 - depth)):
            stack.pop()
            continue
        top[0] = j + 1
        col = cols[j]
        new = []
        small = top[2]
        for p in top[1]:
            a = p & col
            if a == 0 or a == p:
                break
            new.append(a)
            new.append(p ^ a)
            small = min(small, _popcount(a), _popcount(p ^ a))
        else:
            if depth + 1 > best:
                best = depth + 1
                best_set = tuple(s[0] - 1 for s in stack)   # (each entry's last point tried)
            stack.append([j + 1, new, small])
    return (best, best_set) if witness else best


# ------------------------------------------------------------------------------------------------
# Learners
# ------------------------------------------------------------------------------------------------


def _check_max_epochs(owner, m):
    if not _is_int(m) or m < 1:
        raise ValueError(f"{owner}: parameter max_epochs must be an integer >= 1, got {m!r}")


class _VersionSpace(OnlineLearner):
    """Shared machinery: point rows, the alive bitset and its attributes."""

    # (sample_weight: refused, OnlineLearner._refuse_weights)
    _NO_WEIGHTS = ("the version space keeps or removes each concept: there is nothing to "
                   "scale, and the notes give no weighted form of the rule")

    _TAKES = "points"           # rows are points of a concept class, not feature dicts
    _DICT_FEATURES = None

    def _validate_params(self):
        C = _check_class(self._owner, self.concepts)
        fitted_with = vars(self).get("_cc")
        if self._is_fitted() and fitted_with is not None and C is not fitted_with:
            raise ValueError(f"{self._owner}: parameter concepts was changed after fitting; call "
                             "fit, or clone the learner")
        _check_max_epochs(self._owner, self.max_epochs)

    def _prepare(self, X, y, classes, check_values=False):
        if not hasattr(self, "classes_"):
            self.classes_ = None
        self._validate_params()
        first = self.classes_ is None
        idx = _point_rows(self._owner, self.concepts, X)
        if first:
            if y is None:
                raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got None")
            cl = infer_classes(self._owner, y, classes)
            yy = check_labels(self._owner, y, len(idx), cl)
            C = self.concepts
            self._init_state(None)
            self.classes_ = cl
            self.n_features_in_ = 1 if C.points is None else len(C.points[0])
            self._counts = [0, 0, 0]
        else:
            if classes is not None:
                cl = infer_classes(self._owner, (), classes)
                if cl != list(self.classes_):
                    raise ValueError(f"{self._owner}: classes={cl!r} differs from the fitted "
                                     f"classes {list(self.classes_)!r}")
            yy = check_labels(self._owner, y, len(idx), self.classes_)
        return idx, yy

    def _init_state(self, d):
        C = self.concepts
        self._cc = C
        self._alive = (1 << C.n_concepts) - 1
        self._n_alive = C.n_concepts
        self._failure = None

    def _state_dict(self):
        return {"alive": self._alive, "n_alive": self._n_alive, "failure": self._failure}

    def _load_state_dict(self, s):
        self._alive, self._n_alive, self._failure = s["alive"], s["n_alive"], s["failure"]

    def _keep(self, new):
        """alive = new; returns whether it changed.  The example that empties the version space
        (0-based in the whole stream seen) goes into failure_, with a LearnerWarning."""
        changed = new != self._alive
        if changed:
            self._alive = new
            self._n_alive = _popcount(new)
            if new == 0:
                index, why = self.n_seen_ - 1, "no concept of the class is consistent with " \
                    "the examples"
                self._failure = (index, why)
                warn_failure(self._owner, index, why, "left the version space empty",
                             "predicts classes_[1] for every example and learns nothing (use a "
                             "class that holds the target concept, or check the labels for "
                             "noise)")
        return changed

    def _points(self, X, what):
        self._check_fitted(what)
        self._validate_params()
        return _point_rows(self._owner, self.concepts, X)

    def predict(self, X):
        """The predicted label of each row (no state change)."""
        neg, pos = self.classes_ if self._is_fitted() else (None, None)
        return [pos if self._h(j) else neg for j in self._points(X, "predict")]

    def decision_function(self, X):
        """1.0 where the prediction is positive, else 0.0 (no state change)."""
        return [1.0 if self._h(j) else 0.0 for j in self._points(X, "decision_function")]

    def _score(self, j):
        return 1.0 if self._h(j) else 0.0

    @property
    def alive_count_(self):
        """How many concepts are still alive (consistent with what was learned)."""
        self._check_fitted("alive_count_")
        return self._n_alive

    @property
    def alive_concepts_(self):
        """The indices of the alive concepts, sorted."""
        self._check_fitted("alive_concepts_")
        return _members(self._alive)

    @property
    def inconsistent_(self):
        """True once no concept is left alive (the labels contradict every concept)."""
        self._check_fitted("inconsistent_")
        return self._n_alive == 0

    @property
    def failure_(self):
        """None while some concept is alive; then (the example that emptied the version space,
        its 0-based position in the whole stream seen, the reason)."""
        self._check_fitted("failure_")
        return self._failure


class Halving(_VersionSpace):
    """The Halving algorithm over a finite concept class (twin of mbcore.Halving).

    Predict the majority label of the alive concepts on x: with q1 = the alive concepts labelling
    x with 1 and q0 = the others, predict 1 iff q1 >= q0 (ties -> 1, Angluin's table; an empty
    version space predicts 1).  Then keep only the alive concepts c with c(x) = y: after every
    example (``conservative=False``, Angluin's version space, lecture 25) or only after mistakes
    (``conservative=True``, Kanade Alg. 2).  ``updates_`` counts the rounds in which the version
    space changed.  Mistake bound: floor(log2 |C|) on any stream labelled by a concept of C
    (Kanade Thm 8).

    Parameters: ``concepts`` (a ConceptClass), ``conservative`` (bool, default False),
    ``max_epochs`` (int >= 1, default 100: the most passes of ``fit``), ``n_jobs`` (mbcore's
    threads of the online pass: checked with the same message, no effect: the twin is sequential).
    """

    def __init__(self, concepts, conservative=False, max_epochs=100, n_jobs=None):
        self.concepts = concepts
        self.conservative = conservative
        self.max_epochs = max_epochs
        self.n_jobs = n_jobs

    def _validate_params(self):
        super()._validate_params()
        c = self.conservative
        if not (isinstance(c, bool) or type(c).__name__ == "bool_"):
            raise ValueError(f"{self._owner}: parameter conservative must be a bool, got {c!r}")
        check_n_jobs(self._owner, self.n_jobs)

    def _h(self, j):
        q1 = _popcount(self._alive & self.concepts._cols[j])
        return q1 >= self._n_alive - q1

    def _step(self, j, y, i):
        col = self.concepts._cols[j]
        a = self._alive
        ones = a & col
        q1 = _popcount(ones)
        p = 1 if q1 >= self._n_alive - q1 else -1
        if p == y and self.conservative:
            return p, False
        return p, self._keep(ones if y > 0 else a ^ ones)


class SOA(_VersionSpace):
    """The Standard Optimal Algorithm (Littlestone; twin of mbcore.SOA).

    With V the alive concepts and V_b = {c in V : c(x) = b}: predict the b whose V_b has the
    larger Littlestone dimension, ties -> 1 (Ldim of an empty set is -1, so an empty V predicts
    1); after every example V = V_y.  Mistake bound: Ldim(C) on any stream labelled by a concept
    of C, the best possible for a deterministic learner.  The class may hold at most 4096 concepts
    and 4096 points (ValueError naming SOA at the first call otherwise).  Littlestone dimensions
    are memoised on the bitset for the learner's life (``fit`` starts a new memo).

    Parameters: ``concepts`` (a ConceptClass), ``max_epochs`` (int >= 1, default 100: the most
    passes of ``fit``).
    """

    def __init__(self, concepts, max_epochs=100):
        self.concepts = concepts
        self.max_epochs = max_epochs

    def _validate_params(self):
        super()._validate_params()
        _dim_limit(self._owner, self.concepts)

    def _init_state(self, d):
        super()._init_state(d)
        self._ldim = _Ldim(self.concepts)

    def _h(self, j):
        a = self._alive
        v1 = a & self.concepts._cols[j]
        return self._ldim(v1) >= self._ldim(a ^ v1)

    def _step(self, j, y, i):
        a = self._alive
        v1 = a & self.concepts._cols[j]
        v0 = a ^ v1
        p = 1 if self._ldim(v1) >= self._ldim(v0) else -1
        return p, self._keep(v1 if y > 0 else v0)


# ------------------------------------------------------------------------------------------------
# The lower bound: binary search as an adversary (Kanade section 3)
# ------------------------------------------------------------------------------------------------


class HalfIntervalAdversary:
    """k mistakes forced on any deterministic learner over ``ConceptClass.half_intervals(k)``,
    whose VC dimension is only 1 (twin of mbcore.HalfIntervalAdversary).

    ``run(learner)`` keeps the thresholds t in [lo, hi] consistent with its answers (initially
    0..2**k).  For k rounds it shows the point x = (lo + hi + 1) // 2 (lo < x <= hi, so both
    labels stay possible), as the point INDEX x - 1, to ``learner.predict([x - 1])[0]`` and then
    ``learner.partial_fit([x - 1], [label], classes=labels)`` with the opposite label: label 1
    keeps t >= x (lo = x), label 0 keeps t < x (hi = x - 1).  The labels are the learner's
    ``classes_`` once it is fitted, [0, 1] before; an unfitted learner cannot predict, so its
    first prediction is read from a deep copy: ``copy.partial_fit([x - 1], [0], classes=[0, 1])``
    predicted 1 iff the copy's ``mistakes_`` became 1.

    Returns ``{"mistakes": k, "threshold": lo}`` (the smallest threshold consistent with every
    label given).
    """

    def __init__(self, k):
        if not _is_int(k) or k < 0:
            raise ValueError(f"HalfIntervalAdversary: parameter k must be an integer >= 0, got "
                             f"{k!r}")
        self.k = int(k)

    def __repr__(self):
        return f"HalfIntervalAdversary(k={self.k})"

    def run(self, learner):
        lo, hi = 0, 2 ** self.k
        mistakes = 0
        for _ in range(self.k):
            x = (lo + hi + 1) // 2
            row = [x - 1]
            cl = getattr(learner, "classes_", None)
            labels = list(cl) if cl is not None else [0, 1]
            # the online prediction (what mistakes_ counts; the averaged Perceptron's predict
            # is another vector): a copy learns (row, labels[0]) and erred iff it predicted 1
            probe = copy.deepcopy(learner)
            before = int(probe.mistakes_) if cl is not None else 0
            probe.partial_fit(row, [labels[0]], classes=labels)
            pred = 1 if int(probe.mistakes_) > before else 0
            label = 1 - pred
            learner.partial_fit(row, [labels[label]], classes=labels)
            mistakes += label != pred
            if label:
                lo = x
            else:
                hi = x - 1
        return {"mistakes": mistakes, "threshold": lo}

