"""The oracles of the query models (Kanade section 2; Angluin lectures 24 and 25): EX(c, D)
draws labelled examples, MQ(c) answers membership queries and EQ(c) equivalence queries over a
finite domain, each counting its calls.

The conventions (points, targets and hypotheses) are those of :mod:`mbcore.queries`, which
re-exports every name of this module.
"""

from typing import Any, Optional, Tuple

import numpy as np

from ._common import check_callable, check_int, evaluate, is_int, scalar

__all__ = ["ExampleOracle", "MembershipOracle", "EquivalenceOracle"]


_MAX_CUBE_N = 20          # EquivalenceOracle(n=...): {0,1}^n is enumerated
_STRATEGIES = ("first", "random", "adversarial")


def _check_concept(owner, name, value):
    """A target or hypothesis: a callable on 2-D arrays or an object with ``predict``."""
    if isinstance(value, type):
        raise TypeError(f"{owner}: parameter {name} must be a callable or an object with a "
                        f"predict method, got the class {value.__name__}; pass an instance")
    if not (callable(value) or callable(getattr(value, "predict", None))):
        raise TypeError(f"{owner}: parameter {name} must be a callable or an object with a "
                        f"predict method, got {type(value).__name__} ({value!r})")
    return value


def _make_rng(owner, seed):
    if isinstance(seed, (bool, np.bool_, float, str, bytes)):
        raise ValueError(f"{owner}: parameter seed must be None, an integer >= 0 or a "
                         f"numpy Generator, got {seed!r}")
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: parameter seed must be None, an integer >= 0 or a "
                         f"numpy Generator, got {seed!r}") from None


def _as_points(owner, points, name="points"):
    """A private C-contiguous copy of a non-empty 2-D numeric array of points."""
    if points is None or isinstance(points, (str, bytes)):
        raise TypeError(f"{owner}: parameter {name} must be a 2-D array of points, got "
                        f"{type(points).__name__}")
    try:
        P = np.array(points)
    except ValueError:
        raise ValueError(f"{owner}: parameter {name} must be a 2-D array of points (rows of "
                         "equal length)") from None
    if P.ndim != 2 or P.shape[0] == 0 or P.shape[1] == 0:
        raise ValueError(f"{owner}: parameter {name} must be a non-empty 2-D array of points, "
                         f"got shape {P.shape}")
    if P.dtype.kind not in "biuf":
        raise TypeError(f"{owner}: parameter {name} must hold numbers, got dtype {P.dtype}")
    if P.dtype.kind == "f" and not np.isfinite(P).all():
        r = int(np.argwhere(~np.isfinite(P))[0][0])
        raise ValueError(f"{owner}: parameter {name} holds a NaN or infinite value in row {r}")
    return np.ascontiguousarray(P)


def _binary_cube(n):
    """{0,1}^n as uint8 rows: row j = the bits of j, x1 the most significant bit."""
    j = np.arange(2 ** n, dtype=np.int64)
    return ((j[:, None] >> (n - 1 - np.arange(n))) & 1).astype(np.uint8)


# -- oracles --------------------------------------------------------------------------------------

class ExampleOracle:
    """EX(c, D): each call draws x from D and returns (x, c(x)) (Kanade section 2).

    Exactly one of ``n``, ``points`` and ``sampler`` gives D.

    Parameters
    ----------
    target : callable or object with ``predict``
        The concept c: maps a 2-D array of points to their labels.
    n : int >= 1, optional
        D is the product distribution on {0,1}^n with P(x_i = 1) = p (uint8 rows).
    points : 2-D array, optional
        D is uniform over the rows of ``points`` (or follows ``weights``).
    p : float or array of shape (n,), default=0.5
        With ``n``: the probability of a 1 in each coordinate, in [0, 1].
    weights : array of shape (len(points),), optional
        With ``points``: non-negative weights (normalised to sum to 1).
    sampler : callable, optional
        ``sampler(rng, m)`` returns an (m, d) array of points drawn from D.
    seed : None, int or numpy Generator
        Seeds ``numpy.random.default_rng``: the same seed gives the same draws.

    Attributes
    ----------
    calls : int
        Examples drawn so far.
    rng : numpy.random.Generator
    n, p, points, weights, sampler, target
        As given (``p`` as a float64 array; ``weights`` normalised).

    Examples
    --------
    >>> ex = ExampleOracle(MonotoneDNF([[0], [1, 2]], n=3), n=3, p=0.5, seed=0)
    >>> X, y = ex.draw(4)
    >>> X.shape, X.dtype, y.tolist() == [int(a or (b and c)) for a, b, c in X.tolist()]
    ((4, 3), dtype('uint8'), True)
    >>> x, label = ex()
    >>> ex.calls
    5
    """

    def __init__(self, target, n=None, points=None, p=0.5, weights=None, sampler=None,
                 seed=None):
        o = "ExampleOracle"
        self.target = _check_concept(o, "target", target)
        given = [k for k, v in (("n", n), ("points", points), ("sampler", sampler))
                 if v is not None]
        if len(given) != 1:
            raise ValueError(f"{o}: give exactly one of the parameters n, points and sampler "
                             f"(the distribution D), got {given if given else 'none'}")
        if weights is not None and points is None:
            raise ValueError(f"{o}: parameter weights needs points (weights over its rows), got "
                             f"weights={weights!r} without points")
        self.n = self.points = self.weights = self.sampler = None
        self.p = None
        if n is not None:
            self.n = check_int(o, "n", n, 1)
            if isinstance(p, (bool, np.bool_, str, bytes)):
                raise ValueError(f"{o}: parameter p must be a probability or {self.n} "
                                 f"probabilities, got {p!r}")
            try:
                pa = np.array(p, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"{o}: parameter p must be a probability or {self.n} "
                                 f"probabilities, got {p!r}") from None
            if pa.shape not in ((), (self.n,)) or not np.isfinite(pa).all() or \
                    (pa < 0).any() or (pa > 1).any():
                raise ValueError(f"{o}: parameter p must be a probability in [0, 1] or {self.n} "
                                 f"of them, got {p!r}")
            self.p = pa
        elif points is not None:
            self.points = _as_points(o, points)
            if weights is not None:
                try:
                    w = np.array(weights, dtype=np.float64)
                except (TypeError, ValueError):
                    raise ValueError(f"{o}: parameter weights must be {self.points.shape[0]} "
                                     f"non-negative numbers, got {weights!r}") from None
                if w.shape != (self.points.shape[0],) or not np.isfinite(w).all() or \
                        (w < 0).any() or not w.sum() > 0:
                    raise ValueError(f"{o}: parameter weights must be {self.points.shape[0]} "
                                     f"finite non-negative numbers with a positive sum, got "
                                     f"{weights!r}")
                self.weights = w / w.sum()
        else:
            self.sampler = check_callable(o, "sampler", sampler,
                                          "a callable sampler(rng, m) -> (m, d) array")
        self.rng = _make_rng(o, seed)
        self.calls = 0

    def draw(self, m) -> Tuple[np.ndarray, np.ndarray]:
        """Draw m examples.

        Parameters
        ----------
        m : int >= 1

        Returns
        -------
        X : ndarray of shape (m, d)
        y : ndarray of shape (m,), the target's labels
        """
        o = "ExampleOracle.draw"
        m = check_int(o, "m", m, 1)
        if self.n is not None:
            X = (self.rng.random((m, self.n)) < self.p).astype(np.uint8)
        elif self.points is not None:
            N = self.points.shape[0]
            idx = (self.rng.choice(N, size=m, p=self.weights) if self.weights is not None
                   else self.rng.integers(0, N, size=m))
            X = self.points[idx]
        else:
            X = np.asarray(self.sampler(self.rng, m))
            if X.ndim != 2 or X.shape[0] != m:
                raise ValueError(f"ExampleOracle: parameter sampler must return an (m, d) array "
                                 f"of points; asked for m={m}, got shape {X.shape}")
        y = evaluate("ExampleOracle", "target", self.target, X)
        self.calls += m
        return X, y

    def __call__(self) -> Tuple[np.ndarray, Any]:
        """One example (x, c(x)): x a 1-D array, the label a scalar."""
        X, y = self.draw(1)
        return X[0], scalar(y[0])

    def __repr__(self):
        d = (f"n={self.n}" if self.n is not None else
             f"points={self.points.shape[0]}" if self.points is not None else "sampler")
        return f"ExampleOracle({d}, calls={self.calls})"


class MembershipOracle:
    """MQ(c): given a point x of the learner's choice, return c(x) (Kanade section 2; Angluin
    lecture 24).

    Parameters
    ----------
    target : callable or object with ``predict``
        The concept c (maps a 2-D array of points to labels).

    Attributes
    ----------
    calls : int
        Points queried so far (each row of ``query(X)`` counts one).
    history : list of tuples
        Every point queried, in order, as a tuple of Python numbers.

    Examples
    --------
    >>> import numpy as np
    >>> mq = MembershipOracle(MonotoneDNF([[0, 1], [2]], n=3))
    >>> mq(np.array([0, 1, 1])), mq.query(np.array([[1, 1, 0], [1, 0, 0]])).tolist()
    (1, [1, 0])
    >>> mq.calls, mq.history
    (3, [(0, 1, 1), (1, 1, 0), (1, 0, 0)])
    """

    def __init__(self, target):
        self.target = _check_concept("MembershipOracle", "target", target)
        self.calls = 0
        self.history = []

    def query(self, X) -> np.ndarray:
        """The labels of the rows of a 2-D array (one call per row)."""
        o = "MembershipOracle.query"
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"{o}: X must be a 2-D array of points, got {type(X).__name__}")
        A = np.asarray(X)
        if A.ndim != 2 or A.shape[0] == 0:
            raise ValueError(f"{o}: X must be a non-empty 2-D array of points, got shape "
                             f"{A.shape}")
        y = evaluate("MembershipOracle", "target", self.target, A)
        self.calls += A.shape[0]
        self.history.extend(map(tuple, A.tolist()))
        return y

    def __call__(self, x):
        """The label c(x) of one point (a 1-D array-like)."""
        if x is None or isinstance(x, (str, bytes)):
            raise TypeError(f"MembershipOracle: x must be one point (a 1-D array), got "
                            f"{type(x).__name__}")
        a = np.asarray(x)
        if a.ndim != 1 or a.shape[0] == 0:
            raise ValueError(f"MembershipOracle: x must be one point (a non-empty 1-D array), "
                             f"got shape {a.shape}")
        return scalar(self.query(a[None, :])[0])

    def __repr__(self):
        return f"MembershipOracle(calls={self.calls})"


class EquivalenceOracle:
    """EQ(c) over a finite domain: given a hypothesis h, answer None ("yes") when h equals the
    target on every point of the domain, else a counterexample (Kanade section 2; Angluin
    lecture 24).

    Parameters
    ----------
    target : callable or object with ``predict``
        The concept c; its labels on the domain are computed once, here.
    n : int in [1, 20], optional
        The domain is {0,1}^n, enumerated in binary counting order (row j = the bits of j,
        x1 the most significant bit), as uint8.
    points : 2-D array, optional
        The domain is the rows of ``points`` (exactly one of n and points).
    strategy : {"first", "random", "adversarial"} or callable, default="first"
        Which disagreement is returned:

        * ``"first"``: the first in domain order;
        * ``"random"``: uniform among the disagreements (seeded);
        * ``"adversarial"``: the one whose L1 distance to the nearest counterexample already
          returned (by this oracle) is largest, ties to the first in domain order; on the
          first call, the one with the largest L1 norm (on Boolean points: the most 1s, the
          worst case for the monotone-DNF learner's Minimize, which then asks the most
          membership queries);
        * a callable ``strategy(points, disagreements, rng) -> index``: ``disagreements`` is
          the sorted array of the row indices of ``points`` where h and c differ (``points``
          is read-only); it returns one of those row indices.
    seed : None, int or numpy Generator
        Seeds the ``"random"`` strategy (and is passed to a callable one as ``rng``).

    Attributes
    ----------
    points : ndarray, the domain; labels : ndarray, the target's labels on it
    calls : int
        Equivalence queries asked (answered) so far.
    counterexamples : list of (x, label)
        Every counterexample returned, in order.

    Notes
    -----
    ``eq(h)`` evaluates h on the whole domain with one call (``h.predict(points)`` or
    ``h(points)``) and compares with the stored labels.  It returns ``(x, label)``: the point
    (a copy, 1-D) and its true label c(x).

    Examples
    --------
    >>> target = MonotoneDNF([[0, 1], [2]], n=3)
    >>> eq = EquivalenceOracle(target, n=3, strategy="adversarial")
    >>> x, label = eq(MonotoneDNF([], n=3))        # h = 0: the positive point with most 1s
    >>> x.tolist(), label
    ([1, 1, 1], 1)
    >>> eq(MonotoneDNF([[2]], n=3))[0].tolist()    # h = x3 misses only 110
    [1, 1, 0]
    >>> eq(target) is None, eq.calls
    (True, 3)
    """

    def __init__(self, target, n=None, points=None, strategy="first", seed=None):
        o = "EquivalenceOracle"
        self.target = _check_concept(o, "target", target)
        if (n is None) == (points is None):
            raise ValueError(f"{o}: give exactly one of the parameters n and points (the "
                             f"domain), got {'both' if n is not None else 'neither'}")
        if n is not None:
            n = check_int(o, "n", n, 1)
            if n > _MAX_CUBE_N:
                raise ValueError(f"{o}: parameter n must be <= {_MAX_CUBE_N}: the domain "
                                 f"{{0,1}}^n is enumerated (2**{n} points); give the points "
                                 f"to test on instead, got n={n}")
            self.points = _binary_cube(n)
        else:
            self.points = _as_points(o, points)
        self.points.flags.writeable = False
        if isinstance(strategy, str):
            if strategy not in _STRATEGIES:
                raise ValueError(f"{o}: parameter strategy must be one of {list(_STRATEGIES)} or "
                                 f"a callable, got {strategy!r}")
        elif not callable(strategy):
            raise TypeError(f"{o}: parameter strategy must be one of {list(_STRATEGIES)} or a "
                            f"callable strategy(points, disagreements, rng) -> index, got "
                            f"{type(strategy).__name__} ({strategy!r})")
        self.strategy = strategy
        self.rng = _make_rng(o, seed)
        self.labels = evaluate(o, "target", self.target, self.points).copy()
        self.labels.flags.writeable = False
        self.calls = 0
        self.counterexamples = []
        self._mind = None

    def _choose(self, dis):
        s = self.strategy
        if s == "first":
            return int(dis[0])
        if s == "random":
            return int(dis[self.rng.integers(dis.shape[0])])
        if s == "adversarial":
            P = self.points
            if self._mind is None:
                score = np.abs(P[dis].astype(np.float64)).sum(axis=1)
            else:
                score = self._mind[dis]
            return int(dis[int(np.argmax(score))])          # argmax: the first maximum
        j = s(self.points, dis.copy(), self.rng)
        if not is_int(j) or not 0 <= j < self.points.shape[0] or \
                dis[min(np.searchsorted(dis, j), dis.shape[0] - 1)] != j:
            raise ValueError(f"EquivalenceOracle: parameter strategy must return the row index "
                             f"of a disagreement (one of {dis[:10].tolist()}"
                             f"{'...' if dis.shape[0] > 10 else ''}), got {j!r}")
        return int(j)

    def _update_distances(self, x):
        """The L1 distance of every point to its nearest counterexample, updated with x
        (in blocks of rows, so that the memory stays small for n = 20)."""
        P = self.points
        N = P.shape[0]
        if self._mind is None:
            self._mind = np.full(N, np.inf)
        xf = x.astype(np.float64)
        step = 1 << 16
        for a in range(0, N, step):
            d = np.abs(P[a:a + step].astype(np.float64) - xf).sum(axis=1)
            np.minimum(self._mind[a:a + step], d, out=self._mind[a:a + step])

    def __call__(self, h) -> Optional[Tuple[np.ndarray, Any]]:
        """Ask EQ(h): None if h equals the target on the domain, else (x, c(x))."""
        _check_concept("EquivalenceOracle", "h", h)
        pred = evaluate("EquivalenceOracle", "h", h, self.points)
        self.calls += 1
        dis = np.flatnonzero(pred != self.labels)
        if dis.shape[0] == 0:
            return None
        j = self._choose(dis)
        x = np.array(self.points[j])
        if self.strategy == "adversarial":
            self._update_distances(x)
        ce = (x, scalar(self.labels[j]))
        self.counterexamples.append(ce)
        return ce

    def __repr__(self):
        s = self.strategy if isinstance(self.strategy, str) else "callable"
        return (f"EquivalenceOracle(points={self.points.shape[0]}, strategy={s!r}, "
                f"calls={self.calls})")
