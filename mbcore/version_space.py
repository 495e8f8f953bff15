"""Finite classes and version spaces: ``ConceptClass`` stored
column-wise as 64-bit-word bitsets, the Halving algorithm, the Standard Optimal Algorithm,
the Littlestone and VC dimensions, and the half-interval adversary, each with its twin of the
same name in ``mbref.version_space``.
"""

import numbers
from typing import List, Tuple

import numpy as np

from . import _params as params, _registry
from ._kernels import bitset as _k
from ._validation import Batch, empty_error, is_sparse
from ._state import COMMON, I4, I8, U8, arr, failure, need, py, shape, two_labels
from ._threads import N_JOBS, pass_threads
from .base import OnlineLearner
from ._tags import tags
from .exceptions import warn_failure
from .mistake_tree import MistakeTree
from .online import play_against

__all__ = ["ConceptClass", "Halving", "SOA", "littlestone_dimension", "vc_dimension",
           "HalfIntervalAdversary"]

_BIT_LIMIT = 2 ** 31          # n_concepts * n_points
_DIM_LIMIT = 4096             # littlestone_dimension / vc_dimension: concepts and points


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _max_n(bits_of):
    n = 0
    while bits_of(n + 1) <= _BIT_LIMIT:
        n += 1
    return n


def _check_size(owner, m, N, what, var=None, bits_of=None):
    """ValueError if an m x N table is over the limit; ``what`` spells the product."""
    if m * N > _BIT_LIMIT:
        use = f"; use {var} <= {_max_n(bits_of)}" if var else ""
        raise ValueError(f"{owner}: {what} = {m * N} bits is over the limit of 2**31 bits "
                         f"(256 MB){use}")


def _binary_points(n):
    """{0,1}^n, point j = the binary digits of j, most significant first."""
    j = np.arange(2 ** n, dtype=np.int64)
    return ((j[:, None] >> (n - 1 - np.arange(n))) & 1).astype(np.uint8)


class ConceptClass:
    """A finite concept class over a finite domain, stored column-wise as bitsets.

    For each point j the set of concepts labelling it 1 is a row of 64-bit words (concept c is
    bit c % 64 of word c // 64; the bits past the last concept are always zero).  Build one with
    ``from_matrix``, ``from_functions`` or a built-in: ``all_conjunctions``,
    ``monotone_conjunctions``, ``monotone_disjunctions``, ``half_intervals``, ``dictators``.

    Attributes
    ----------
    n_concepts, n_points : int
    points : list of tuples of 0/1 (or of the domain's values), or None
    name : str

    Examples
    --------
    >>> C = ConceptClass.half_intervals(3)          # c_t(x) = 1 iff x <= t on {1..8}
    >>> len(C), C.n_points, C.labels(3)
    (9, 8, [1, 1, 1, 0, 0, 0, 0, 0])
    """

    def __init__(self, cols, n_concepts, points=None, name="class"):
        self._cols = cols
        self.n_concepts = int(n_concepts)
        self.n_points = int(cols.shape[0])
        self.points = points
        self.name = name
        self._index = None

    def __len__(self) -> int:
        return self.n_concepts

    def __repr__(self):
        return (f"ConceptClass({self.name!r}, n_concepts={self.n_concepts}, "
                f"n_points={self.n_points})")

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def _from_bool(cls, M, points, name):
        """M: concepts x points, bool."""
        m, N = M.shape
        packed = np.packbits(np.ascontiguousarray(M.T), axis=1, bitorder="little")
        W = (m + 63) // 64
        buf = np.zeros((N, 8 * W), dtype=np.uint8)
        buf[:, :packed.shape[1]] = packed
        cols = buf.view("<u8").astype(np.uint64, copy=False)
        return cls(np.ascontiguousarray(cols), m, points, name)

    @classmethod
    def from_matrix(cls, M, points=None, name="matrix") -> "ConceptClass":
        """From a 0/1 matrix of shape (n_concepts, n_points)."""
        o = "ConceptClass.from_matrix"
        A = np.asarray(M)
        if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
            raise ValueError(f"{o}: M must be a non-empty 2-D matrix (concepts x points), got "
                             f"shape {A.shape}")
        _check_size(o, A.shape[0], A.shape[1], f"{A.shape[0]} x {A.shape[1]}")
        if A.dtype.kind not in "biuf":
            raise TypeError(f"{o}: M must hold 0/1 values, got dtype {A.dtype}")
        ok = (A == 0) | (A == 1)
        if not ok.all():
            r, c = np.argwhere(~ok)[0]
            raise ValueError(f"{o}: M must be 0/1, got {A[r, c].item()!r} in row {r}")
        pts = None if points is None else [tuple(int(v) for v in p) for p in points]
        if pts is not None and len(pts) != A.shape[1]:
            raise ValueError(f"{o}: {len(pts)} points for {A.shape[1]} columns")
        return cls._from_bool(A.astype(bool), pts, name)

    @classmethod
    def from_functions(cls, functions, points, name="functions") -> "ConceptClass":
        """Concept c labels point j with bool(functions[c](points[j]))."""
        o = "ConceptClass.from_functions"
        fs, pts = list(functions), [tuple(int(v) for v in p) for p in points]
        if not fs or not pts:
            raise ValueError(f"{o}: need at least one function and one point")
        _check_size(o, len(fs), len(pts), f"{len(fs)} x {len(pts)}")
        M = np.array([[bool(f(p)) for p in pts] for f in fs], dtype=bool)
        return cls._from_bool(M, pts, name)

    @classmethod
    def all_conjunctions(cls, n) -> "ConceptClass":
        """The 3**n conjunctions over n variables on {0,1}**n (concept c in base 3, most
        significant digit first: 0 = variable absent, 1 = x_i, 2 = ~x_i)."""
        o = "ConceptClass.all_conjunctions"
        n = _positive_n(o, n)
        _check_size(o, 3 ** n, 2 ** n, f"3**{n} x 2**{n}", "n", lambda k: 6 ** k)
        X = _binary_points(n)
        c = np.arange(3 ** n, dtype=np.int64)
        digits = (c[:, None] // (3 ** (n - 1 - np.arange(n)))) % 3      # concepts x n
        M = np.ones((3 ** n, 2 ** n), dtype=bool)
        for i in range(n):
            xi = X[:, i].astype(bool)
            M &= ~((digits[:, i:i + 1] == 1) & ~xi[None, :])
            M &= ~((digits[:, i:i + 1] == 2) & xi[None, :])
        return cls._from_bool(M, [tuple(r) for r in X.tolist()], f"all_conjunctions({n})")

    @classmethod
    def monotone_conjunctions(cls, n) -> "ConceptClass":
        """The 2**n monotone conjunctions on {0,1}**n (concept c = the variables i with bit
        n-1-i of c set)."""
        o = "ConceptClass.monotone_conjunctions"
        n = _positive_n(o, n)
        _check_size(o, 2 ** n, 2 ** n, f"2**{n} x 2**{n}", "n", lambda k: 4 ** k)
        c = np.arange(2 ** n, dtype=np.int64)
        x = np.arange(2 ** n, dtype=np.int64)
        M = (c[:, None] & ~x[None, :]) == 0            # S subset of the ones of x
        X = _binary_points(n)
        return cls._from_bool(M, [tuple(r) for r in X.tolist()], f"monotone_conjunctions({n})")

    @classmethod
    def monotone_disjunctions(cls, n) -> "ConceptClass":
        """The 2**n monotone disjunctions on {0,1}**n (the empty one is false everywhere)."""
        o = "ConceptClass.monotone_disjunctions"
        n = _positive_n(o, n)
        _check_size(o, 2 ** n, 2 ** n, f"2**{n} x 2**{n}", "n", lambda k: 4 ** k)
        c = np.arange(2 ** n, dtype=np.int64)
        x = np.arange(2 ** n, dtype=np.int64)
        M = (c[:, None] & x[None, :]) != 0
        X = _binary_points(n)
        return cls._from_bool(M, [tuple(r) for r in X.tolist()], f"monotone_disjunctions({n})")

    @classmethod
    def half_intervals(cls, k) -> "ConceptClass":
        """c_t(x) = 1 iff x <= t, t = 0..2**k, on the points 1..2**k."""
        o = "ConceptClass.half_intervals"
        if not _is_int(k) or k < 0:
            raise ValueError(f"{o}: parameter k must be an integer >= 0, got {k!r}")
        N = 2 ** int(k)
        _check_size(o, N + 1, N, f"(2**{k} + 1) x 2**{k}", "k",
                    lambda q: (2 ** q + 1) * 2 ** q)
        t = np.arange(N + 1)
        x = np.arange(1, N + 1)
        return cls._from_bool(x[None, :] <= t[:, None], [(int(v),) for v in x],
                              f"half_intervals({k})")

    @classmethod
    def dictators(cls, n, domain="basis") -> "ConceptClass":
        """c_i(x) = x_i, i = 0..n-1, on the basis vectors ("basis") or on {0,1}**n ("cube")."""
        o = "ConceptClass.dictators"
        n = _positive_n(o, n)
        if domain == "basis":
            _check_size(o, n, n, f"{n} x {n}", "n", lambda q: q * q)
            X = np.eye(n, dtype=np.uint8)
        elif domain == "cube":
            _check_size(o, n, 2 ** n, f"{n} x 2**{n}", "n", lambda q: q * 2 ** q)
            X = _binary_points(n)
        else:
            raise ValueError(f"{o}: parameter domain must be one of ['basis', 'cube'], got "
                             f"{domain!r}")
        return cls._from_bool(X.T.astype(bool), [tuple(r) for r in X.tolist()],
                              f"dictators({n}, {domain})")

    # -- access --------------------------------------------------------------------------------
    def matrix(self) -> np.ndarray:
        """The table as a (n_concepts, n_points) uint8 matrix."""
        bits = np.unpackbits(self._cols.view(np.uint8), axis=1, bitorder="little")
        return np.ascontiguousarray(bits[:, :self.n_concepts].T)

    def labels(self, c) -> List[int]:
        """Concept c's labels on the points, as a list of 0/1."""
        if not _is_int(c) or not 0 <= c < self.n_concepts:
            raise ValueError(f"ConceptClass: concept index {c!r} out of range "
                             f"[0, {self.n_concepts})")
        w, b = divmod(int(c), 64)
        return ((self._cols[:, w] >> np.uint64(b)) & np.uint64(1)).astype(int).tolist()

    def littlestone_dimension(self) -> int:
        """The class's Littlestone dimension (:func:`littlestone_dimension`), which
        :func:`mbcore.bounds.soa_bound` asks of a class it is given."""
        return littlestone_dimension(self)

    def point_index(self, x) -> int:
        """The index of a feature vector in the domain."""
        if self.points is None:
            raise ValueError(f"ConceptClass {self.name!r}: the domain has no feature vectors; "
                             "give point indices")
        if self._index is None:
            self._index = {p: j for j, p in enumerate(self.points)}
        try:
            key = _vector_key(x)
        except (TypeError, ValueError):
            key = None
        j = self._index.get(key) if key is not None else None
        if j is None:
            raise ValueError(f"ConceptClass {self.name!r}: {list(x)!r} is not a point of the "
                             "domain")
        return j

    def _indices(self, owner, X):
        """Rows as point indices: a 1-D sequence of indices or a 2-D array of feature vectors
        (the same checks and messages as the twin; a NumPy integer array of indices takes a
        vectorised path)."""
        if isinstance(X, np.ndarray) and X.ndim == 1 and X.dtype.kind in "iu" and X.shape[0]:
            bad = np.flatnonzero((X < 0) | (X >= self.n_points))
            if bad.size:
                raise ValueError(f"{owner}: point index {X[bad[0]].item()!r} in row {bad[0]} is "
                                 f"out of range [0, {self.n_points})")
            return X.astype(np.int64)
        return np.asarray(_point_rows(owner, self, X), dtype=np.int64)


def _is_numeric(v):
    if isinstance(v, (bool, numbers.Real)):
        return True
    return hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "biuf"


def _as_list(v):
    if hasattr(v, "to_numpy") and hasattr(v, "columns"):      # a DataFrame: its rows
        v = v.to_numpy()
    return v.tolist() if hasattr(v, "tolist") else list(v)


def _vector_key(row):
    """A feature vector as a tuple of ints; TypeError for a non-numeric value, ValueError for a
    value that is not an integer-valued real."""
    if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
        raise TypeError("not a feature vector")
    key = []
    for v in _as_list(row):
        if not _is_numeric(v):
            raise TypeError(f"a value of type {type(v).__name__} ({v!r})")
        if isinstance(v, (bool, np.bool_)) or _is_int(v):
            key.append(int(v))
            continue
        f = float(v)
        if f != f or f in (float("inf"), float("-inf")) or not f.is_integer():
            raise ValueError(f"{v!r}")
        key.append(int(f))
    return tuple(key)


def _point_rows(owner, C, X):
    """Validate X against the class C; return the list of point indices."""
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{owner}: X must be a 1-D sequence of point indices or a 2-D array of "
                        f"feature vectors, got {type(X).__name__}")
    if is_sparse(X):
        raise TypeError(f"{owner}: X must be point indices or dense feature vectors; sparse "
                        "matrices are not supported")
    ndim = getattr(X, "ndim", None)
    if ndim is not None and ndim not in (1, 2):
        raise ValueError(f"{owner}: X must be 1-D (point indices) or 2-D (feature vectors), got "
                         f"ndim={ndim}")
    try:
        raw = _as_list(X)
    except TypeError:
        raise TypeError(f"{owner}: X must be a 1-D sequence of point indices or a 2-D array of "
                        f"feature vectors, got {type(X).__name__}") from None
    if not raw:
        raise empty_error(owner)
    N = C.n_points
    out = []
    vectors = None
    width = None if C.points is None else len(C.points[0])
    for i, r in enumerate(raw):
        if isinstance(r, (str, bytes)):
            raise TypeError(f"{owner}: X must hold point indices or feature vectors, got a value "
                            f"of type {type(r).__name__} ({r!r}) in row {i}")
        # (a dict or a set is no feature vector: it is refused as a point index below)
        is_vec = (hasattr(r, "__len__") or hasattr(r, "__iter__")) and \
            not isinstance(r, (dict, set, frozenset))
        if vectors is None:
            vectors = is_vec
        elif vectors != is_vec:
            raise ValueError(f"{owner}: X mixes point indices and feature vectors (row {i})")
        if not is_vec:
            if not _is_int(r):
                raise TypeError(f"{owner}: point indices must be integers (not bool), got "
                                f"{r!r} of type {type(r).__name__} in row {i}")
            if not 0 <= r < N:
                raise ValueError(f"{owner}: point index {r!r} in row {i} is out of range "
                                 f"[0, {N})")
            out.append(int(r))
            continue
        if C.points is None:
            raise ValueError(f"{owner}: the class {C.name!r} has no feature vectors (points is "
                             f"None); use point indices (row {i} is a feature vector)")
        vals = _as_list(r)
        if len(vals) != width:
            raise ValueError(f"{owner}: row {i} of X has {len(vals)} values, the points of "
                             f"{C.name!r} have {width}")
        try:
            key = _vector_key(vals)
        except TypeError:
            bad = next(v for v in vals if not _is_numeric(v))
            raise TypeError(f"{owner}: X must hold real numbers, got a value of type "
                            f"{type(bad).__name__} ({bad!r}) in row {i}") from None
        except ValueError:
            key = None
        if C._index is None:
            C._index = {p: j for j, p in enumerate(C.points)}
        j = None if key is None else C._index.get(key)
        if j is None:
            raise ValueError(f"{owner}: row {i} of X ({vals!r}) is not a point of the domain "
                             f"of {C.name!r}")
        out.append(j)
    return out


def _positive_n(owner, n):
    if not _is_int(n) or n < 1:
        raise ValueError(f"{owner}: parameter n must be an integer >= 1, got {n!r}")
    return int(n)


def _concepts(owner, C):
    if not isinstance(C, ConceptClass):
        raise TypeError(f"{owner}: parameter concepts must be a ConceptClass, got "
                        f"{type(C).__name__}")
    return C


# -- learners ----------------------------------------------------------------------------------------

# failure_ of an emptied version space: (the example, this reason); the LearnerWarning's words
_EMPTY = "no concept of the class is consistent with the examples"
_EMPTIED = "left the version space empty"
_FALLBACK = ("predicts classes_[1] for every example and learns nothing (use a class that holds "
             "the target concept, or check the labels for noise)")


class _VersionSpace(OnlineLearner):
    """Shared machinery: point rows, the alive bitset, its attributes."""

    # sample_weight refused (OnlineLearner._refuse_weights)
    _TAGS = tags(takes="points",
                 no_weights=("the version space keeps or removes each concept: there is "
                             "nothing to scale, and the notes give no weighted form of the "
                             "rule"))

    _PARAMETERS = {"concepts": params.Custom(lambda owner, name, value: _concepts(owner, value),
                                             "a ConceptClass", refused=(None, [[0, 1]], "C")),
                   "max_epochs": params.Integer(1)}

    def _validate_params(self):
        super()._validate_params()
        fitted = self.__dict__.get("_fitted_concepts")
        if fitted is not None and fitted is not self.concepts:
            raise ValueError(f"{self._owner}: parameter concepts was changed after fitting; call "
                             "fit, or clone the learner")

    def _check_X(self, X, n_features):
        self._validate_params()
        idx = self.concepts._indices(self._owner, X)
        C = self.concepts
        return Batch(X=idx, n=idx.shape[0], d=len(C.points[0]) if C.points else 1)

    def _init_state(self, d):
        C = self.concepts
        self._fitted_concepts = C
        W = C._cols.shape[1]
        alive = np.zeros(W, dtype=np.uint64)
        full, rest = divmod(C.n_concepts, 64)
        alive[:full] = np.uint64(0xFFFFFFFFFFFFFFFF)
        if rest:
            alive[full] = np.uint64((1 << rest) - 1)
        self._alive = alive
        self._nz = np.zeros(W, dtype=np.int32)
        self._nnz = np.array([_k.nonzero_words(alive, self._nz)], dtype=np.int64)
        self._count = np.array([C.n_concepts], dtype=np.int64)
        self._failure = None

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names; the
    # ConceptClass parameter is stored structurally by the format) --------------------------
    _STATE = dict(COMMON, _alive=arr(U8, 1), _nz=arr(I4, 1), _nnz=arr(I8, 1), _count=arr(I8, 1),
                  _failure=py(tuple, type(None)))
    _DERIVED = frozenset(("_fitted_concepts", "_ldim"))
    # (_failure came after 0.1.0: files of 0.1.0 lack it, and _check_state sets what the alive
    # count implies, with the example unknown (None) for an emptied version space)
    _NEW_STATE = frozenset(("_failure",))

    def _check_state(self, st):
        o = self._owner
        two_labels(self, st)
        C = self.concepts
        need(isinstance(C, ConceptClass), f"{o}: concepts is not a ConceptClass")
        self.__dict__["_fitted_concepts"] = C
        W = C._cols.shape[1]
        need(st["n_features_in_"] == (len(C.points[0]) if C.points else 1),
             f"{o}: n_features_in_ does not match")
        for k in ("_alive", "_nz"):
            shape(self, k, (W,))
        shape(self, "_nnz", (1,))
        shape(self, "_count", (1,))
        alive = st["_alive"]
        m = C.n_concepts
        if m % 64:
            need(not (alive[-1] >> np.uint64(m % 64)), f"{o}: alive bits past the last concept")
        nnz = int(st["_nnz"][0])
        need(0 <= nnz <= W and ((st["_nz"][:nnz] >= 0) & (st["_nz"][:nnz] < W)).all(),
             f"{o}: the index of non-zero words is out of range")
        if isinstance(self, Halving):      # (SOA does not use the index)
            nz = np.zeros(W, dtype=np.int32)
            k = _k.nonzero_words(alive, nz)
            need(nnz == k and np.array_equal(st["_nz"][:k], nz[:k]),
                 f"{o}: the index of non-zero words does not match the version space")
        need(int(st["_count"][0]) == _k.popcount_words(alive),
             f"{o}: the alive count does not match the version space")
        failure(self, st, int(st["_count"][0]) == 0, _EMPTY)
        if isinstance(self, SOA):
            self._validate_params()
            self.__dict__["_ldim"] = _Ldim(C)


    @property
    def alive_count_(self):
        """How many concepts are consistent with what was learned."""
        self._check_fitted("alive_count_")
        return int(self._count[0])

    @property
    def alive_concepts_(self):
        """The indices of the surviving concepts, sorted."""
        self._check_fitted("alive_concepts_")
        bits = np.unpackbits(self._alive.view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[:self.concepts.n_concepts]).tolist()

    @property
    def inconsistent_(self):
        """True once no concept is left (the labels contradict every concept)."""
        self._check_fitted("inconsistent_")
        return int(self._count[0]) == 0

    @property
    def failure_(self):
        """None while some concept is consistent with the examples; else (the example that
        emptied the version space, its 0-based position in the whole stream seen, or None if
        unknown, from a file of mbcore 0.1.0; the reason)."""
        self._check_fitted("failure_")
        return self._failure

    def _failed(self, index):
        """Example ``index`` emptied the version space: record it and warn (once)."""
        self._failure = (index, _EMPTY)
        warn_failure(self._owner, index, _EMPTY, _EMPTIED, _FALLBACK)

    def _scores(self, batch):
        return self._predict_flags(batch).astype(np.float64)

    # (for the tests: tests/_cases.py) decision_function is the prediction's indicator
    _TIE_AT_ZERO = "negative"
    _DECISION_INDICATOR = True

    def _cycle_key(self):
        return None


def _encode_concepts(v, enc, problem):
    """ConceptClass -> the file format's fields (mbcore.persistence): the bitset table as an
    array, the number of concepts, the points and the name."""
    cols = v._cols
    if not (isinstance(cols, np.ndarray) and cols.dtype == np.uint64 and cols.ndim == 2):
        raise problem("whose table is not a 2-D uint64 array")
    return {"cols": enc(cols, "cols"), "n_concepts": int(v.n_concepts),
            "points": enc(v.points, "points"), "name": enc(v.name, "name")}


def _decode_concepts(v, dec, bad):
    """The file format's fields -> ConceptClass, every field checked."""
    cols = dec(v.get("cols"))
    m, points, name = v.get("n_concepts"), dec(v.get("points")), dec(v.get("name"))
    if not (isinstance(cols, np.ndarray) and cols.dtype == np.uint64 and cols.ndim == 2):
        raise bad("a ConceptClass table that is not a 2-D uint64 array")
    N, W = cols.shape
    if type(m) is not int or m < 1 or N < 1 or W != (m + 63) // 64:
        raise bad(f"a ConceptClass of {m!r} concepts with a table of shape {cols.shape}")
    if m % 64 and (cols[:, -1] >> np.uint64(m % 64)).any():
        raise bad("a ConceptClass table with bits set past the last concept")
    if not isinstance(name, str):
        raise bad("a ConceptClass name that is not a string")
    if points is not None:
        if not (isinstance(points, list) and len(points) == N and
                all(isinstance(p, tuple) and len(p) == len(points[0]) and
                    all(type(x) is int for x in p) for p in points)):
            raise bad("ConceptClass points that are not one tuple of ints per point")
        if len(set(points)) != N:
            raise bad("ConceptClass points that repeat")
    return ConceptClass(np.ascontiguousarray(cols), m, points, name)


_registry.register_codec("ConceptClass", ConceptClass, _encode_concepts, _decode_concepts)


def _test_concepts():
    """A small class for the contract suite: the 16 concepts over 4 points, and 8 more points
    each concept labels by its parity (12 points in all)."""
    M = [[(c >> p) & 1 for p in range(4)] + [(bin(c).count("1") + k) % 2 for k in range(8)]
         for c in range(16)]
    return ConceptClass.from_matrix(M)


class Halving(_VersionSpace):
    __doc__ = """The Halving algorithm over a finite concept class.

    Update rule (Kanade Alg. 2; Angluin lecture 25): predict the majority label of the alive
    concepts on x, ties → 1; then keep only the concepts that agree with the label, after every
    example (Angluin's version space, the default) or only after mistakes
    (``conservative=True``, Kanade).  Counts are word-level popcounts over the non-zero words of
    the version space only, so an example costs less as it shrinks.

    Mistake bound: ``⌊log₂ |C|⌋`` on any stream labelled by a concept of C (each mistake at
    least halves the version space).

    Parameters
    ----------
    concepts : ConceptClass
    conservative : bool, default=False
    max_epochs : int, default=100
    n_jobs : int or None, default=None
        Threads of the online pass (``fit``, ``partial_fit``): None takes the environment
        variable ``MBCORE_NUM_THREADS`` if set, else every core; -1 every core.  The results are
        the same for any number (exact speculative passes).

    Attributes
    ----------
    alive_count_ : int
    alive_concepts_ : list of int
    inconsistent_ : bool
    failure_ : tuple (int, str) or None
        None while some concept of the class is consistent with the examples; then
        ``(index, reason)``: the example that emptied the version space (its 0-based position
        in the whole stream seen, over calls and epochs; None in a learner loaded from a file of
        mbcore 0.1.0) and why.  At that example the learner emits a
        :class:`~mbcore.LearnerWarning`, once (``fit`` and ``clone`` start over); from then on
        it predicts ``classes_[1]`` for every example and learns nothing.
    mistakes_, updates_ (rounds in which the version space shrank), n_seen_, classes_

    Warns
    -----
    LearnerWarning
        Once per learner, at the example that empties the version space (see ``failure_``).

    Examples
    --------
    The dictators x_i on the cube {0,1}^16: Halving needs at most log₂ 16 = 4 mistakes.

    >>> import numpy as np
    >>> from mbcore import ConceptClass, Halving, run_online
    >>> C = ConceptClass.dictators(16, domain="cube")
    >>> pts = np.random.default_rng(0).integers(0, C.n_points, 200)
    >>> y = [C.labels(11)[j] for j in pts]                # the target is x_11
    >>> run = run_online(Halving(C), pts, y, classes=[0, 1])
    >>> run.mistakes <= 4
    True
    """

    # (n_jobs came after 0.1.0: files of 0.1.0 lack it)
    _NEW_PARAMS = frozenset(("n_jobs",))

    _TAGS = tags(bound="halving")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"concepts": _test_concepts()},
                {"concepts": _test_concepts(), "conservative": True}]

    def __init__(self, concepts, conservative=False, max_epochs=100, n_jobs=None):
        self.concepts = concepts
        self.conservative = conservative
        self.max_epochs = max_epochs
        self.n_jobs = n_jobs

    _PARAMETERS = {"conservative": params.Flag(), "n_jobs": N_JOBS}

    def _pass_threads(self, rows):
        """The threads of a learning pass over ``rows`` points: the rule of
        OnlineLearner._threads, with the words of the class read per point as the values."""
        return pass_threads(self._owner, self.n_jobs, rows,
                            rows * self.concepts._cols.shape[1])

    def _run(self, idx, yy, pred, upd, counts, update, threads=1):
        _k.halving_pass(self.concepts._cols, idx, yy, self._alive, self._nz, self._nnz,
                        self._count, pred, upd, counts, bool(self.conservative), update,
                        threads)

    def _pass(self, batch, yy, pred, upd):
        # the parameters were checked with X (_check_X)
        live = self._count[0] > 0
        if live and upd is None:        # (the update flags tell the row that emptied it)
            upd = np.empty(batch.n, dtype=np.uint8)
        seen = int(self._counts[0])
        self._run(batch.X, yy, pred, upd, self._counts, True, self._pass_threads(batch.n))
        if live and self._count[0] == 0:
            # an emptied version space never changes again: the last row that changed it
            self._failed(seen + int(np.flatnonzero(upd[:batch.n])[-1]))

    def _predict_flags(self, batch):
        pred = np.empty(batch.n, dtype=np.int8)
        self._run(batch.X, None, pred, None, np.zeros(3, dtype=np.int64), False)
        return pred > 0


class SOA(_VersionSpace):
    __doc__ = """The Standard Optimal Algorithm (Littlestone 1988; named in Angluin lecture 25).

    Update rule: predict the label b whose part V_b = {c alive : c(x) = b} of the version
    space has the larger Littlestone dimension, ties → 1; then keep V_y.

    Mistake bound: Ldim(C) on any stream labelled by a concept of C, the best possible for any
    deterministic learner.  Cost: the prediction decides "Ldim(V_1) >= Ldim(V_0)" through
    statements "Ldim(V) >= k" (a set of fewer than 2**k concepts answers no at once; a split
    answers yes when both parts reach k - 1), with bounds on Ldim memoised per bitset for the
    learner's life; exponential in the worst case, so the class may hold at most 4,096
    concepts and 4,096 points.

    Parameters
    ----------
    concepts : ConceptClass
    max_epochs : int, default=100

    Attributes
    ----------
    failure_ : tuple (int, str) or None
        As for ``Halving``: None while some concept is consistent with the examples, then
        ``(index, reason)`` of the example that emptied the version space (a
        :class:`~mbcore.LearnerWarning` is emitted there, once); from then on both parts have
        Littlestone dimension -1, so SOA predicts ``classes_[1]`` for every example.
    alive_count_, alive_concepts_, inconsistent_, mistakes_, updates_, n_seen_, classes_

    Warns
    -----
    LearnerWarning
        Once per learner, at the example that empties the version space (see ``failure_``).

    Examples
    --------
    >>> from mbcore import ConceptClass, SOA, littlestone_dimension
    >>> C = ConceptClass.half_intervals(4)
    >>> soa = SOA(C).partial_fit([7, 3, 12, 9], [1, 1, 0, 0], classes=[0, 1])
    >>> soa.mistakes_ <= littlestone_dimension(C) == 4
    True
    """

    _TAGS = tags(bound="soa")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"concepts": _test_concepts()}]

    def __init__(self, concepts, max_epochs=100):
        self.concepts = concepts
        self.max_epochs = max_epochs

    def _validate_params(self):
        super()._validate_params()
        _dim_limit(self._owner, self.concepts)

    def _init_state(self, d):
        super()._init_state(d)
        self._ldim = _Ldim(self.concepts)

    def _step_all(self, idx, yy, pred, upd, update):
        """The rows in order; returns the row that emptied the version space, or -1."""
        C = self.concepts
        cols = C._cols
        emptied = -1
        for t, j in enumerate(idx.tolist()):
            a = self._alive
            v1 = a & cols[j]
            v0 = a & ~cols[j]
            pr = 1 if self._ldim.ge(v1, self._ldim(v0)) else 0   # Ldim(V1) >= Ldim(V0)
            if pred is not None:
                pred[t] = 1 if pr else -1
            if not update:
                continue
            yt = 1 if yy[t] > 0 else 0
            keep = v1 if yt else v0
            n_keep = _k.popcount_words(keep)
            changed = n_keep != self._count[0]
            if changed and n_keep == 0:
                emptied = t
            self._alive = keep
            self._count[0] = n_keep
            self._counts[0] += 1
            self._counts[1] += pr != yt
            self._counts[2] += changed
            if upd is not None:
                upd[t] = changed
        return emptied

    def _pass(self, batch, yy, pred, upd):
        # the parameters were checked with X (_check_X)
        saved = (self._alive.copy(), self._count.copy(), self._counts.copy())
        try:
            emptied = self._step_all(batch.X, yy, pred, upd, True)
        except BaseException:
            self._alive, self._count, self._counts = saved
            raise
        if emptied >= 0:
            self._failed(int(saved[2][0]) + emptied)

    def _predict_flags(self, batch):
        pred = np.empty(batch.n, dtype=np.int8)
        self._step_all(batch.X, None, pred, None, False)
        return pred > 0


def _dim_limit(owner, C):
    if C.n_concepts > _DIM_LIMIT or C.n_points > _DIM_LIMIT:
        raise ValueError(f"{owner}: the class has {C.n_concepts} concepts and {C.n_points} "
                         f"points; the exact computation is limited to {_DIM_LIMIT} of each")


class _Ldim:
    """Littlestone dimensions of subsets of a class (bitsets of concepts), by decisions.

    ``ge(V, k)`` decides "Ldim(V) >= k" without computing Ldim(V): |V| < 2**k answers no at
    once (Ldim(V) <= log2 |V|); otherwise yes exactly when some point splits V into two
    parts that both reach k - 1, and only points whose both parts hold at least 2**(k-1)
    concepts can (the split counts of every point come from one kernel pass,
    ``split_counts``; the most balanced points are tried first, each part's smaller side
    first).  Every answer tightens the bounds lo <= Ldim(V) <= hi kept per bitset (the memo,
    kept across rows: a learner's version spaces come back).  ``V`` exact: raise lo while
    ``ge(V, lo + 1)`` holds.  SOA needs only ``ge(V1, Ldim(V0))``: "Ldim(V1) >= Ldim(V0)"."""

    def __init__(self, C):
        self.cols = C._cols
        self.memo = {}               # bitset bytes -> [lo, hi, |V|]

    def _entry(self, v, key):
        b = self.memo.get(key)
        if b is None:
            size = _k.popcount_words(v)
            b = [-1, -1, 0] if size == 0 else [0, size.bit_length() - 1, size]
            self.memo[key] = b
        return b

    def ge(self, v, k):
        """Whether Ldim(v) >= k."""
        v = np.ascontiguousarray(v, dtype=np.uint64)
        b = self._entry(v, v.tobytes())
        if b[0] >= k:
            return True
        if b[1] < k:
            return False
        # here 1 <= k <= log2 |v|: a point must split v into parts of Ldim >= k - 1 each
        cols = self.cols
        n1 = np.empty(cols.shape[0], dtype=np.int64)
        size = _k.split_counts(cols, v, n1)
        need = 1 << (k - 1)
        small = np.minimum(n1, size - n1)
        cand = np.flatnonzero(small >= need)
        for j in cand[np.argsort(-small[cand], kind="stable")].tolist():
            v1 = cols[j] & v
            v0 = v & ~cols[j]
            first, second = (v1, v0) if n1[j] <= size - n1[j] else (v0, v1)
            if self.ge(first, k - 1) and self.ge(second, k - 1):
                b[0] = k
                return True
        b[1] = k - 1
        return False

    def __call__(self, v):
        """Ldim(v), exactly."""
        v = np.ascontiguousarray(v, dtype=np.uint64)
        b = self._entry(v, v.tobytes())
        while b[0] < b[1] and self.ge(v, b[0] + 1):
            pass
        return b[0]


def _flag(owner, name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{owner}: parameter {name} must be True or False, got {value!r}")
    return bool(value)


def littlestone_dimension(concepts, witness=False):
    """The Littlestone dimension of a finite class, exactly (memoised recursion), and with
    ``witness=True`` a mistake tree that proves it.

    Ldim(∅) = −1, Ldim({c}) = 0, Ldim(V) = max over points x splitting V of
    1 + min(Ldim(V₀), Ldim(V₁)) (0 when no point splits V) (Littlestone 1988; ALGORITHMS.md
    §5 of the project's notes).  At most 4,096 concepts and 4,096 points.

    The witness is a complete :class:`~mbcore.MistakeTree` of depth Ldim(C), the canonical
    one: a node whose subtree must have depth d over the concepts V left by its path asks the
    *lowest point index* j whose two parts V₀, V₁ both have Ldim >= d − 1 (such a j exists
    because Ldim(V) >= d), and a leaf holds the *lowest concept index* of V.  The rule depends
    only on the dimensions, not on the search, so ``mbref.littlestone_dimension`` returns the
    same tree.  A class of one concept (Ldim 0) has a single leaf as its witness;
    ``check_mistake_tree(None)`` is −1, the witness of no concept (a ConceptClass always holds
    one at least).  The search reuses the memo of the dimension's own computation and asks
    only "Ldim(V_b) >= d − 1" of parts with at least 2**(d−1) concepts: the 256 monotone
    conjunctions of 8 variables take a few milliseconds (bench/README.md).

    Parameters
    ----------
    concepts : ConceptClass
    witness : bool, default=False
        Also return the mistake tree.

    Returns
    -------
    int, or (int, MistakeTree) with ``witness=True``

    Examples
    --------
    >>> littlestone_dimension(ConceptClass.half_intervals(5))
    5
    >>> from mbcore import check_mistake_tree
    >>> d, tree = littlestone_dimension(ConceptClass.monotone_conjunctions(2), witness=True)
    >>> d, tree.depth, check_mistake_tree(tree)
    (2, 2, 2)
    >>> print(tree)
    mistake tree of depth 2 over monotone_conjunctions(2)
    point 1 (01)
      0: point 2 (10)
        0: concept 3 (x0∧x1)
        1: concept 2 (x0)
      1: point 0 (00)
        0: concept 1 (x1)
        1: concept 0 (true)
    """
    owner = "littlestone_dimension"
    C = _concepts(owner, concepts)
    witness = _flag(owner, "witness", witness)
    _dim_limit(owner, C)
    full = np.zeros(C._cols.shape[1], dtype=np.uint64)
    q, r = divmod(C.n_concepts, 64)
    full[:q] = np.uint64(0xFFFFFFFFFFFFFFFF)
    if r:
        full[q] = np.uint64((1 << r) - 1)
    ld = _Ldim(C)
    d = ld(full)
    if not witness:
        return d
    return d, (None if d < 0 else _ldim_witness(C, ld, full, d))


def _ldim_witness(C, ld, v, d):
    """The canonical mistake tree of depth d over the concepts of v (Ldim(v) >= d >= 0): a
    leaf holds the lowest concept of v, a node the lowest point whose parts both have
    Ldim >= d - 1 (only points whose parts hold 2**(d-1) concepts each can)."""
    if d == 0:
        w = int(np.flatnonzero(v)[0])
        word = int(v[w])
        return MistakeTree.leaf(C, 64 * w + (word & -word).bit_length() - 1)
    cols = C._cols
    n1 = np.empty(cols.shape[0], dtype=np.int64)
    size = _k.split_counts(cols, v, n1)
    need = 1 << (d - 1)
    for j in np.flatnonzero((n1 >= need) & (size - n1 >= need)).tolist():
        v1 = cols[j] & v
        v0 = v & ~cols[j]
        first, second = (v1, v0) if n1[j] <= size - n1[j] else (v0, v1)
        if ld.ge(first, d - 1) and ld.ge(second, d - 1):
            return MistakeTree.node(C, j, _ldim_witness(C, ld, v0, d - 1),
                                    _ldim_witness(C, ld, v1, d - 1))
    raise AssertionError("Ldim(v) >= d, yet no point splits v into parts of Ldim >= d - 1")


def vc_dimension(concepts, witness=False):
    """The VC dimension of a finite class, by a depth-first search over shattered sets (a
    shattered set's subsets are shattered, so sets are grown from shattered ones, in
    increasing point order), and with ``witness=True`` a largest shattered set.  At most 4,096
    concepts and 4,096 points.

    The search keeps the concepts' parts by their labels on the current set (as bitsets) and
    drops a branch that cannot beat the best size so far: too few points left, or a part
    holding fewer than 2**k concepts where k more points would be needed; it stops at
    ⌊log₂ |C|⌋, the largest possible value.

    The witness is the canonical shattered set: among the shattered sets of the largest size,
    the first in lexicographic order of the sorted point indices (``mbref.vc_dimension``
    returns the same); :func:`~mbcore.shattering_concepts` gives a concept for each of its
    labellings.  The empty set (VC dimension 0) when no point is shattered.

    Parameters
    ----------
    concepts : ConceptClass
    witness : bool, default=False
        Also return the shattered set.

    Returns
    -------
    int, or (int, tuple of int) with ``witness=True``: the point indices, increasing

    Examples
    --------
    >>> vc_dimension(ConceptClass.half_intervals(5)), vc_dimension(ConceptClass.monotone_conjunctions(3))
    (1, 3)
    >>> from mbcore import shattering_concepts
    >>> C = ConceptClass.monotone_conjunctions(2)
    >>> d, points = vc_dimension(C, witness=True)
    >>> d, points, [C.points[j] for j in points]
    (2, (1, 2), [(0, 1), (1, 0)])
    >>> shattering_concepts(C, points)
    {(0, 0): 3, (0, 1): 2, (1, 0): 1, (1, 1): 0}
    """
    owner = "vc_dimension"
    C = _concepts(owner, concepts)
    witness = _flag(owner, "witness", witness)
    _dim_limit(owner, C)
    # each point's concepts labelling it 1 as one Python int (the bitset's words, low first)
    cols = [int.from_bytes(c.astype("<u8").tobytes(), "little") for c in C._cols]
    N = C.n_points
    cap = C.n_concepts.bit_length() - 1             # 2**d <= n_concepts
    best, best_set = 0, ()
    # (next point to try, the nonempty parts of the concepts by their labels on the set, the
    # size of the smallest part); the set's size is len(stack) - 1
    stack = [[0, [(1 << C.n_concepts) - 1], C.n_concepts]]
    while stack and best < cap:
        top = stack[-1]
        depth = len(stack) - 1
        j = top[0]
        if j >= N or depth + (N - j) <= best or top[2] < (1 << (best + 1 - depth)):
            stack.pop()
            continue
        top[0] = j + 1
        new, small = [], top[2]
        for p in top[1]:
            a = p & cols[j]
            if a == 0 or a == p:
                break
            new += [a, p ^ a]
            small = min(small, bin(a).count("1"), bin(p ^ a).count("1"))
        else:
            if depth + 1 > best:        # (the first set of a size met is the least of it)
                best, best_set = depth + 1, tuple(s[0] - 1 for s in stack)
            stack.append([j + 1, new, small])
    return (best, best_set) if witness else best


class HalfIntervalAdversary:
    """Binary search as an adversary: k mistakes forced on any deterministic learner over
    ``ConceptClass.half_intervals(k)`` (whose VC dimension is only 1).

    For k rounds it keeps the thresholds t consistent with its answers (c_t(x) = 1 iff x <= t),
    shows the learner the middle point x of that range (as a point index, x − 1) and labels it
    against the learner's prediction (0/1): label 1 keeps t >= x, label 0 keeps t < x, so the
    range halves and every answer stays consistent.

    Examples
    --------
    >>> from mbcore import ConceptClass, Halving
    >>> HalfIntervalAdversary(6).run(Halving(ConceptClass.half_intervals(6)))["mistakes"]
    6
    """

    def __init__(self, k):
        params.integer("HalfIntervalAdversary", "k", k, 0)
        self.k = int(k)

    def run(self, learner):
        """Play k rounds (predict, then partial_fit with point indices); returns
        {"mistakes": k, "threshold": a threshold t consistent with every label}."""
        lo, hi = 0, 2 ** self.k          # the consistent thresholds: lo..hi
        mistakes = 0
        for _ in range(self.k):
            x = (lo + hi + 1) // 2       # lo < x <= hi: both labels stay possible
            label = play_against(learner, x - 1)      # a point index
            mistakes += 1
            if label == 1:
                lo = x
            else:
                hi = x - 1
        return {"mistakes": mistakes, "threshold": lo}
