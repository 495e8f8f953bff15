"""Margins and separators: the data quantities of the bounds, and the search for the best margin.

One home for the question "what is the best margin of these data?": the quantities a bound of
:mod:`mbcore.bounds` is computed from (:func:`radius`, :func:`margin`, :func:`total_distance`,
:func:`multiclass_margin`, :func:`multiclass_winnow_margin`, :func:`attribute_errors`), the
bracket of the best margin through the origin (:func:`best_margin`, pairwise Frank-Wolfe), and
the searches :func:`mbcore.certify` runs when it needs a separator: :func:`search_margin`
(Frank-Wolfe, then a linear program solved by SciPy's HiGHS, :func:`lp_separator`, or without
SciPy a Perceptron run until its own bound says it must have converged), and, with K >= 3
classes, the Kesler search (:func:`kesler_margin`, :func:`kesler_lp`,
:func:`multiclass_search`).  Whatever proposes a separator, its margin is recomputed on the
data: a margin returned here is a proven lower bound on the best one, never a solver's word.

Everything accepts a dense 2-D array-like or a sparse matrix in CSR layout (any object with
``data``, ``indices``, ``indptr`` and ``shape``, such as ``scipy.sparse.csr_array``; other scipy
formats are converted with ``tocsr()``), uses NumPy only (SciPy where an LP is asked for, when
it is installed) and computes in float64, so a quantity is exact up to the rounding of float64
arithmetic.  Labels are -1/+1 for the binary quantities; ``u`` is a candidate separator in the
learner's own feature space (append the constant 1 to every row yourself when the learner uses
``fit_intercept=True``, and the intercept to ``u``).  The multi-class quantities take any
labels, among sorted classes, and a matrix U with one row per class.  :mod:`mbcore.bounds`
re-exports the data quantities and :func:`best_margin` under their old names.

Examples
--------
>>> import numpy as np
>>> X = np.array([[2.0, 1.0], [-1.0, -3.0], [1.0, 2.0]])
>>> y = np.array([1, -1, 1])
>>> u = np.array([1.0, 1.0])
>>> round(radius(X), 4), round(margin(X, y, u), 4)
(3.1623, 2.1213)
"""

import math
from collections import OrderedDict
from typing import NamedTuple, Optional

import numpy as np

from . import _params as params
from ._rows import (CSR, check_rows, check_separator, check_signs, dense_rows, row_dots,
                    row_sqnorms, row_vector, segment_sums)

__all__ = ["radius", "margin", "total_distance", "multiclass_margin", "multiclass_winnow_margin",
           "attribute_errors", "best_margin", "BestMargin", "search_margin", "SeparatorSearch",
           "lp_separator", "cycled_separator", "kesler_margin", "kernel_kesler_margin", "kesler_lp",
           "multiclass_search"]

# The Kesler search works on the Gram matrix of the Kesler vectors: at most this many of them
# (n rows x (K - 1) rival classes), and a dense view of at most KESLER_CELLS entries.
KESLER_MAX = 2048
KESLER_CELLS = 4_000_000
# The one-vs-rest separators are searched (K best_margin runs) on at most this many rows.
STACK_MAX_ROWS = 20_000


# -- data quantities ------------------------------------------------------------------------------

def radius(X) -> float:
    """The largest Euclidean norm of a row of X: R = max_t ||x_t||.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The examples, as the learner sees them.

    Returns
    -------
    float
        R >= 0.

    Raises
    ------
    ValueError
        If X is not 2-D, is empty, or holds NaN or infinity.
    """
    return float(math.sqrt(row_sqnorms(check_rows("radius", X)).max()))


def margin(X, y, u, normalize=False) -> float:
    """The margin of the hyperplane u . x = 0 on the labelled data.

    ``gamma = min_t y_t (u . x_t) / ||u||``.  A positive value means u separates the data with that
    margin (the gamma of the Perceptron bound, Novikoff/Block; Kanade Thm 9); zero or negative
    means it does not.  With ``normalize=True`` every row is first scaled to unit length, giving
    Balcan's ``min_t y_t (u . x_t) / (||u|| ||x_t||)``, the margin for learners that normalise
    their examples (Balcan lecture 3, Theorems 1 and 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        The separator; any non-zero length (the margin divides by ||u||).
    normalize : bool, default=False
        Scale each row to unit length first.  Rows equal to zero have no direction and are left
        out; note that a learner still errs on such a row whenever the tie rule goes against its
        label, so bounds built on this margin assume there are no zero rows.

    Returns
    -------
    float
        The margin; in [-1, 1] when ``normalize=True``.

    Raises
    ------
    ValueError
        On bad shapes, NaN or infinity, labels outside {-1, +1}, ``u = 0``, or (with
        ``normalize=True``) when every row is zero.
    """
    rows = check_rows("margin", X)
    yy = check_signs("margin", y, rows[0])
    uu = check_separator("margin", u, rows[1])
    scores = yy * row_dots(rows, uu) / np.linalg.norm(uu)
    if normalize:
        norms = np.sqrt(row_sqnorms(rows))
        keep = norms > 0.0
        if not keep.any():
            raise ValueError("margin: every row of X is zero, so normalize=True leaves no example")
        scores = scores[keep] / norms[keep]
    return float(scores.min()) + 0.0  # + 0.0 turns -0.0 into 0.0


def total_distance(X, y, u, gamma) -> float:
    """Balcan's total distance TD_gamma = sum_t max(0, gamma - y_t u . x_t), unit-length x_t and u.

    The total distance the examples would have to move for the unit vector u to separate them
    with margin gamma (Balcan lecture 3, section 1); ``TD_gamma / gamma`` is the total hinge loss
    of u.  Rows are scaled to unit length and u to unit norm first; a zero row stays zero and
    adds gamma (the Perceptron errs on it without progress, which the bound of
    :func:`~mbcore.bounds.td_bound` allows for).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The examples.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    u : array-like of shape (n_features,)
        The comparison vector (non-zero; scaled to unit norm).
    gamma : float
        The target margin, > 0.

    Returns
    -------
    float
        TD_gamma >= 0; it is 0 exactly when u separates the unit-length examples with margin
        at least gamma.

    Raises
    ------
    ValueError
        On bad shapes, NaN or infinity, labels outside {-1, +1}, ``u = 0`` or ``gamma <= 0``.
    """
    g = params.positive("total_distance", "gamma", gamma)
    rows = check_rows("total_distance", X)
    yy = check_signs("total_distance", y, rows[0])
    uu = check_separator("total_distance", u, rows[1])
    norms = np.sqrt(row_sqnorms(rows))
    scaled = np.divide(row_dots(rows, uu), norms, out=np.zeros_like(norms), where=norms > 0.0)
    scores = yy * scaled / np.linalg.norm(uu)
    return float(np.maximum(0.0, g - scores).sum())


def multiclass_margin(X, y, U, classes=None) -> float:
    """The multi-class margin of the K linear scores U x on the labelled data.

    ``gamma = min_t (u_{y_t} . x_t - max_{k != y_t} u_k . x_t)`` with U first scaled to unit
    Frobenius norm: the margin of Kesler's construction (Duda & Hart 1973, section 5.12), in
    which U, read as one vector, scores the vector ``(e_{y_t} - e_k) (x) x_t`` by
    ``u_{y_t} . x_t - u_k . x_t``.  A positive value means that the scores ``u_k . x`` put every
    example's own class strictly first, by at least gamma; it is the gamma of
    :func:`~mbcore.bounds.multiclass_perceptron_bound` and (on unit-length rows) of
    :func:`~mbcore.bounds.multiclass_margin_perceptron_bound`.  Rows are used as given: append
    the constant 1 yourself (and the intercepts to U as its last column) for a learner with
    ``fit_intercept=True``, and scale the rows to unit length yourself for a normalising one.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The examples.
    y : array-like of shape (n_samples,)
        The labels, each one of ``classes``.
    U : array-like of shape (n_classes, n_features)
        Row k scores class ``classes[k]``; any non-zero matrix (the margin divides by its
        Frobenius norm).
    classes : array-like of shape (n_classes,), optional
        The labels of U's rows, sorted and distinct, at least two (as a learner's
        ``classes_``); by default the sorted distinct labels of y.

    Returns
    -------
    float
        The margin; at most ``sqrt(2) max_t ||x_t||``.

    Raises
    ------
    ValueError
        On bad shapes, NaN or infinity, ``U = 0``, classes that are not sorted and distinct,
        fewer than two classes, or a label that is not one of the classes.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])     # ||U||_F = 2
    >>> multiclass_margin(X, ["a", "b", "c"], U)                 # min(2 - 0, 1 - 0, 2 + 1) / 2
    0.5
    """
    gap, UU = _multiclass_gaps("multiclass_margin", X, y, U, classes, "U")
    return float(gap / np.linalg.norm(UU)) + 0.0


def multiclass_winnow_margin(X, y, M, classes=None) -> float:
    """The margin delta of a nonnegative target matrix M for the multi-class Winnow bound.

    ``delta = min_t (m_{y_t} . x_t - max_{k != y_t} m_k . x_t)`` with M first scaled so that its
    entries sum to 1 (:func:`multiclass_margin` scales to unit Frobenius norm instead): the
    delta of :func:`~mbcore.bounds.multiclass_winnow_bound`.  On examples in ``[0, 1]^n`` it is
    at most 1.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The examples (the bound needs them in ``[0, 1]``; not checked here).
    y : array-like of shape (n_samples,)
        The labels, each one of ``classes``.
    M : array-like of shape (n_classes, n_features)
        Row k is class ``classes[k]``'s target weights; nonnegative and not all zero.
    classes : array-like of shape (n_classes,), optional
        The labels of M's rows, sorted and distinct, at least two; by default the sorted
        distinct labels of y.

    Returns
    -------
    float
        delta; positive exactly when the scores ``m_k . x`` put every example's own class
        strictly first.

    Raises
    ------
    ValueError
        As :func:`multiclass_margin` (with M for U), and when M has a negative entry.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 0]])
    >>> M = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])   # each class owns a feature
    >>> round(multiclass_winnow_margin(X, [0, 1, 2], M), 6)        # (1 - 0) / 3
    0.333333
    """
    gap, MM = _multiclass_gaps("multiclass_winnow_margin", X, y, M, classes, "M",
                               nonnegative=True)
    return float(gap / MM.sum()) + 0.0


def _multiclass_gaps(owner, X, y, U, classes, name, nonnegative=False):
    """(min_t (u_{y_t} . x_t - max_{k != y_t} u_k . x_t), U as float64), U unscaled."""
    rows = check_rows(owner, X)
    n, d, part = rows
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.shape[0] != n:
        raise ValueError(f"{owner}: y must be 1-D with one label per row of X ({n}), got shape "
                         f"{yy.shape}")
    if classes is None:
        cl = np.unique(yy)
    else:
        cl = np.asarray(classes)
        if cl.ndim != 1 or (cl.size > 1 and not bool((cl[1:] > cl[:-1]).all())):
            raise ValueError(f"{owner}: classes must be sorted and distinct (row k of {name} "
                             f"scores the k-th smallest label), got {cl.tolist()[:8]!r}")
    K = cl.shape[0]
    if K < 2:
        raise ValueError(f"{owner}: a multi-class margin needs at least two classes, got "
                         f"{cl.tolist()!r}")
    idx = np.searchsorted(cl, yy)
    inside = idx < K
    inside[inside] = cl[idx[inside]] == yy[inside]
    if not inside.all():
        raise ValueError(f"{owner}: y holds labels that are not among the classes "
                         f"{cl.tolist()[:8]!r}: {np.unique(yy[~inside])[:5].tolist()!r}")
    UU = np.asarray(U, dtype=np.float64)
    if UU.shape != (K, d):
        raise ValueError(f"{owner}: {name} must have shape ({K}, {d}) (one row per class, one "
                         f"column per feature of X), got {UU.shape}")
    if not np.isfinite(UU).all():
        raise ValueError(f"{owner}: {name} contains NaN or infinity")
    if nonnegative and (UU < 0).any():
        raise ValueError(f"{owner}: {name} must be nonnegative (a target of the multiplicative "
                         f"weights), got the entry {float(UU.min())!r}")
    if not UU.any():
        raise ValueError(f"{owner}: {name} is the zero matrix, which has no margin")
    if isinstance(part, tuple):
        S = np.column_stack([row_dots(rows, UU[k]) for k in range(K)])
    else:
        S = part @ UU.T                                       # S[t, k] = u_k . x_t
    own = S[np.arange(n), idx]
    S[np.arange(n), idx] = -np.inf
    return float((own - S.max(axis=1)).min()), UU


class BestMargin:
    """The result of :func:`best_margin`: a certified bracket ``gamma <= gamma* <= upper``.

    Attributes
    ----------
    gamma : float
        The margin of ``u`` (of the feature-space vector with dual coefficients ``coef`` when a
        Gram matrix was given), recomputed directly: a verified margin, > 0 exactly when
        ``separable``.
    upper : float
        An upper bound on the best margin (the norm of a point of the convex hull of the
        y_t x_t); 0.0 means the data are not separable through the origin.
    u : ndarray of shape (n_features,) or None
        The separator found (unit norm), None with a Gram matrix.
    coef : ndarray of shape (n_samples,)
        Its dual coefficients: u is proportional to ``sum_t coef[t] x_t`` (``coef[t]`` carries
        the sign of y_t).
    separable : bool
        ``gamma > 0``: u separates the data, a fact checked on the data.
    converged : bool
        ``upper - gamma <= tol * upper`` was reached (else ``max_iter`` stopped the search, and
        the bracket is still valid, only wider).
    iterations : int
    """

    __slots__ = ("gamma", "upper", "u", "coef", "separable", "converged", "iterations")

    def __init__(self, gamma, upper, u, coef, converged, iterations):
        self.gamma, self.upper, self.u, self.coef = gamma, upper, u, coef
        self.separable = gamma > 0.0
        self.converged, self.iterations = converged, iterations

    def __repr__(self):
        return (f"BestMargin(gamma={self.gamma:.6g}, upper={self.upper:.6g}, separable="
                f"{self.separable}, converged={self.converged}, iterations={self.iterations})")


def best_margin(X, y, tol=1e-3, max_iter=10_000, gram=None) -> BestMargin:
    """The largest margin of a hyperplane through the origin, bracketed: gamma* = max over unit u
    of min_t y_t u . x_t.

    Method: gamma* is the distance from the origin to the convex hull of the points
    z_t = y_t x_t (when positive; 0 when the hull holds the origin).  Pairwise Frank-Wolfe with
    exact line search (Lacoste-Julien & Jaggi 2015; linear convergence on a polytope) walks
    towards the hull's nearest point p; every iterate gives a certified bracket: the margin of
    u = p/||p|| (checked on the data) is a lower bound and ||p|| an upper bound.  It stops when
    ``upper - gamma <= tol * upper`` or after ``max_iter`` steps; the bracket is valid either
    way, so a bound built on ``gamma`` is a proven bound, only looser when the search stopped
    early.  Zero rows make the data non-separable (gamma = upper = 0).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix, or None with ``gram``
        The examples, as the learner sees them (append the constant 1 yourself for an
        intercept; scale rows to unit length yourself for a normalising learner).
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    tol : float, default=1e-3
        Relative width of the bracket at which to stop, in (0, 1).
    max_iter : int, default=10000
    gram : ndarray of shape (n_samples, n_samples), optional
        A kernel matrix K(x_s, x_t): the margin is then the feature-space margin of the kernel
        Perceptron's bound (:func:`~mbcore.bounds.kernel_perceptron_bound`), with ``u`` None and
        the solution in ``coef``.

    Returns
    -------
    BestMargin

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0]])
    >>> r = best_margin(X, [1, 1, -1])
    >>> r.separable, round(r.gamma, 3), round(r.upper, 3)
    (True, 1.414, 1.414)
    """
    owner = "best_margin"
    t = params.open_unit(owner, "tol", tol)
    iters = params.integer(owner, "max_iter", max_iter, 1)
    if gram is None:
        rows = check_rows(owner, X)
        n = rows[0]
        yy = check_signs(owner, y, n)
        diag = row_sqnorms(rows)                          # ||z_t||^2, z_t = y_t x_t
        if n <= 2048:                                      # the Gram matrix of the z_t, once
            dense = dense_rows(rows) * yy[:, None]
            G = dense @ dense.T
            col = lambda j: G[:, j]                        # noqa: E731
        else:                                              # columns on demand, O(nnz) each,
            col = _ColumnCache(lambda j: yy[j] * yy * row_dots(rows, row_vector(rows, j)),
                               n)                          # kept for the vertices in use
    else:
        G0 = np.asarray(gram, dtype=np.float64)
        if G0.ndim != 2 or G0.shape[0] != G0.shape[1] or G0.shape[0] == 0:
            raise ValueError(f"{owner}: gram must be a non-empty square matrix, got shape "
                             f"{G0.shape}")
        if not np.isfinite(G0).all():
            raise ValueError(f"{owner}: gram contains NaN or infinity")
        n = G0.shape[0]
        yy = check_signs(owner, y, n)
        G = G0 * np.outer(yy, yy)
        diag = np.diag(G).copy()
        col = lambda j: G[:, j]                            # noqa: E731
    lam = np.zeros(n)
    if (diag <= 0.0).any():                                # a zero point: the origin is in the hull
        lam[int(np.argmin(diag))] = 1.0
        return _margin_result(X, yy, gram, lam, 0.0, True, 0)
    j0 = int(np.argmin(diag))
    lam[j0] = 1.0
    g = col(j0).astype(np.float64, copy=True)             # g = G lam: z_t . p
    q = float(diag[j0])                                    # ||p||^2
    converged = False
    it = 0
    for it in range(1, iters + 1):
        norm = math.sqrt(max(q, 0.0))
        j = int(np.argmin(g))
        low = g[j] / norm if norm > 0.0 else 0.0
        if norm <= 0.0 or norm - low <= t * norm:
            converged = True
            break
        active = np.flatnonzero(lam > 0.0)
        a = int(active[np.argmax(g[active])])
        if a == j:
            converged = True
            break
        ca, cj = col(a), col(j)
        curv = float(diag[j] - 2.0 * cj[a] + diag[a])
        step = (g[a] - g[j]) / curv if curv > 0.0 else lam[a]
        step = min(max(step, 0.0), lam[a])
        if step <= 0.0:
            converged = True
            break
        lam[a] -= step
        lam[j] += step
        g += step * (cj - ca)
        q = float(lam @ g)
    return _margin_result(X, yy, gram, lam, math.sqrt(max(q, 0.0)), converged, it)


class _ColumnCache:
    """Gram columns computed on demand and kept (up to about 200 MB, least recently used
    first out): Frank-Wolfe keeps returning to the few points that hold the solution."""

    def __init__(self, compute, n):
        self.compute, self.store = compute, OrderedDict()
        self.limit = max(16, int(2e8 // (8 * n)))

    def __call__(self, j):
        c = self.store.get(j)
        if c is None:
            c = self.store[j] = self.compute(j)
            if len(self.store) > self.limit:
                self.store.popitem(last=False)
        else:
            self.store.move_to_end(j)
        return c


def _margin_result(X, yy, gram, lam, upper, converged, iterations):
    """Turn the hull weights into a checked margin: the margin is recomputed from the data."""
    coef = lam * yy
    if gram is None:
        rows = check_rows("best_margin", X)
        n, d, part = rows
        if isinstance(part, tuple):
            data, indices, indptr = part
            u = np.bincount(indices, weights=data * np.repeat(coef, np.diff(indptr)),
                            minlength=d)
        else:
            u = part.T @ coef
        nu = float(np.linalg.norm(u))
        if nu == 0.0:
            return BestMargin(0.0, 0.0, None, coef, converged, iterations)
        u /= nu
        gamma = margin(X, yy, u)
    else:
        G = np.asarray(gram, dtype=np.float64)
        f = G @ coef                                         # f(x_t) = sum_s coef_s K(x_s, x_t)
        nf2 = float(coef @ f)
        if nf2 <= 0.0:
            return BestMargin(0.0, 0.0, None, coef, converged, iterations)
        u = None
        gamma = float((yy * f).min()) / math.sqrt(nf2)
    gamma = gamma + 0.0
    return BestMargin(gamma, max(upper, gamma), u, coef, converged, iterations)


def attribute_errors(X, y, target) -> int:
    """Littlestone's attribute errors A_c of the monotone disjunction c on a labelled sequence
    (Angluin lecture 19): add 1 for every example labelled 1 on which no variable of c is 1,
    and k for every example labelled 0 on which exactly k variables of c are 1.

    ``m_c <= A_c <= r m_c`` for a disjunction of r variables with m_c mistakes, and A_c = 0
    exactly when c is consistent with the sequence.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) of 0/1, or CSR matrix
    y : array-like of shape (n_samples,)
        Labels 0/1 (or False/True).
    target : sequence of int
        The variables of c (0-based column indices; repeats count once).

    Returns
    -------
    int

    Examples
    --------
    >>> attribute_errors([[1, 0, 1], [0, 1, 0], [1, 1, 0]], [1, 1, 0], [0, 2])
    2
    """
    owner = "attribute_errors"
    rows = check_rows(owner, X)
    n, d, part = rows
    values = part[0] if isinstance(part, tuple) else part
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError(f"{owner}: X must hold 0/1 values (Boolean examples)")
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.shape[0] != n:
        raise ValueError(f"{owner}: y must be 1-D with one label per row of X ({n}), got shape "
                         f"{yy.shape}")
    if yy.dtype.kind not in "biuf" or not np.isin(yy, (0, 1)).all():
        raise ValueError(f"{owner}: y must hold labels 0 and 1 only, got "
                         f"{np.unique(yy)[:5].tolist()}")
    c = np.unique(np.asarray(list(target) if not isinstance(target, np.ndarray) else target))
    if c.size and (c.dtype.kind not in "iu" or c.min() < 0 or c.max() >= d):
        raise ValueError(f"{owner}: target must hold column indices in [0, {d}), got "
                         f"{c.tolist()[:5]!r}")
    on = np.zeros(d)
    on[c.astype(np.intp)] = 1.0
    k = np.rint(row_dots(rows, on)).astype(np.int64)     # variables of c that are 1
    pos = yy.astype(bool)
    return int((pos & (k == 0)).sum() + k[~pos].sum())



# -- the separator searches -----------------------------------------------------------------------

def _view(owner, X):
    """(rows, view): X checked (:func:`mbcore._rows.check_rows`), and the same rows as a dense
    float64 array or a :class:`mbcore._rows.CSR` of float64 values."""
    rows = check_rows(owner, X)
    n, d, part = rows
    return rows, (CSR(*part, (n, d)) if isinstance(part, tuple) else part)


def _signed(view, yy):
    """The rows z_t = y_t x_t of a view (dense or CSR)."""
    if isinstance(view, CSR):
        return CSR(view.data * np.repeat(yy, np.diff(view.indptr)), view.indices, view.indptr,
                   view.shape)
    return view * yy[:, None]


def _scipy():
    """(linprog, scipy.sparse), or None: SciPy is optional, imported when an LP is wanted."""
    try:
        from scipy import sparse
        from scipy.optimize import linprog
    except ImportError:
        return None
    return linprog, sparse


def _lp_direction(Z, linprog, sparse):
    """(u, lam) of the LP  max t  s.t.  z_t . u >= t for every row z_t of Z,  -1 <= u_j <= 1,
    t <= 1  (a sparse matrix; the rows are scaled to entries in [-1, 1] first), solved by
    SciPy's HiGHS (its interior-point method, with crossover to a vertex: on a three-class
    Kesler LP of the bundled MNIST rows, ten times faster than its simplex): t > 0 exactly when
    some u separates the z_t strictly.  lam: the weights of the rows in the dual solution,
    >= 0 and summing to 1 (None if they do not), so that Z^T lam is a point of the convex hull
    of the z_t.  None when HiGHS reports no optimum.  Only candidates: the caller checks u's
    margin on the data and takes the norm of Z^T lam as computed, whatever lam is."""
    Z = sparse.csr_matrix(Z)
    n, d = Z.shape
    top = float(abs(Z).max()) if Z.nnz else 0.0
    if top == 0.0:                          # every z_t is zero: no strict separator
        return None
    A = sparse.hstack([Z * (-1.0 / top), sparse.csr_matrix(np.ones((n, 1)))], format="csr")
    c = np.zeros(d + 1)
    c[d] = -1.0                             # the variables (u, t): maximise t
    res = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=[(-1.0, 1.0)] * d + [(None, 1.0)],
                  method="highs-ipm")
    if res.status != 0:
        return None
    lam = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    total = float(lam.sum())
    return np.asarray(res.x[:d], dtype=np.float64), lam / total if total > 0.0 else None


def lp_separator(X, y):
    """A candidate separator from the linear program  max t  s.t.  y_t u . x_t >= t,
    -1 <= u_j <= 1, t <= 1, solved by SciPy's HiGHS (its interior-point method).

    The optimum is positive exactly when the rows are strictly separable through the origin,
    so wherever they are (up to HiGHS's tolerances, about 1e-7 on rows scaled to entries in
    [-1, 1]) a separator is proposed.  Only a candidate: check its margin with :func:`margin`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.

    Returns
    -------
    (u, p) or None
        ``u`` of shape (n_features,), and ``p`` a point of the convex hull of the y_t x_t from
        the LP's dual solution (None when the dual gives none), whose norm bounds the best
        margin of a unit u from above.  None without SciPy, or when HiGHS reports no optimum.
    """
    rows, view = _view("lp_separator", X)
    yy = check_signs("lp_separator", y, rows[0])
    sp = _scipy()
    if sp is None:
        return None
    linprog, sparse = sp
    Z = _signed(view, yy)
    if isinstance(Z, CSR):
        Z = sparse.csr_matrix((Z.data, Z.indices, Z.indptr), shape=Z.shape)
    lp = _lp_direction(Z, linprog, sparse)
    if lp is None:
        return None
    u, lam = lp
    return u, None if lam is None else np.asarray(Z.T @ lam, dtype=np.float64).ravel()


class _Cycle(NamedTuple):
    """A Perceptron cycled over the rows z_t (:func:`_cycle`)."""
    w: np.ndarray
    updates: int
    passes: int
    clean: bool            # the last pass made no update: w . z_t > 0 on every row
    ceiling: float         # ||w|| / updates >= the best margin (inf before any update)
    reason: str            # why it stopped without a clean pass ("" with one)


def _cycle(rows, max_passes=None, max_updates=None, floor=0.0):
    """The Perceptron on the rows z_t of a :func:`mbcore._rows.check_rows` triple, each
    labelled +1 (every z_t with w . z_t <= 0 is an update, w += z_t), from w = 0, pass after
    pass in order, until a pass with no update, ``max_passes`` passes, ``max_updates``
    updates, or, at the end of a pass, until its own certificate puts the best margin at most
    ``floor``: after M updates w . u* >= M gamma* for the best unit separator u*, so
    gamma* <= ||w|| / M (and ||w||^2 <= M R^2, so that ceiling is at most R / sqrt(M)).
    NumPy only: the scores of the next rows are computed by blocks, and the block restarts
    after the row of each update (CSR rows are made dense first when they fit in
    ``KESLER_CELLS`` entries)."""
    n, d, part = rows
    if isinstance(part, tuple) and n * d <= KESLER_CELLS:
        part = dense_rows(rows)
    sparse = isinstance(part, tuple)
    if sparse:
        data, indices, indptr = part
    w = np.zeros(d)
    updates = passes = 0
    while True:
        if max_passes is not None and passes >= max_passes:
            return _Cycle(w, updates, passes, False, _ceiling(w, updates),
                          f"{passes} passes without a clean one")
        passes += 1
        clean, t, size = True, 0, 16
        while t < n:
            stop = min(n, t + size)
            if sparse:
                a, b = int(indptr[t]), int(indptr[stop])
                s = segment_sums(data[a:b] * w[indices[a:b]], indptr[t:stop + 1] - a, stop - t)
            else:
                s = part[t:stop] @ w
            hit = np.flatnonzero(s <= 0.0)
            if hit.size == 0:
                t, size = stop, min(2 * size, 4096)
                continue
            i = t + int(hit[0])
            if sparse:
                w[indices[indptr[i]:indptr[i + 1]]] += data[indptr[i]:indptr[i + 1]]
            else:
                w += part[i]
            updates += 1
            clean, t, size = False, i + 1, 16
            if max_updates is not None and updates >= max_updates:
                return _Cycle(w, updates, passes, False, _ceiling(w, updates), "")
        if clean:
            return _Cycle(w, updates, passes, True, _ceiling(w, updates), "")
        c = _ceiling(w, updates)
        if c <= floor:
            return _Cycle(w, updates, passes, False, c,
                          f"its updates prove the best margin <= ||w||/{updates} = {c:.3g}, "
                          f"below tol x the upper end ({floor:.3g})")


def _ceiling(w, updates):
    return float(np.linalg.norm(w)) / updates if updates else math.inf


def cycled_separator(Z, epochs):
    """The weights of a Perceptron cycled over the rows z_t of Z, each labelled +1, until a
    clean pass or ``epochs`` passes.

    Every z_t with ``w . z_t <= 0`` is an update ``w += z_t``, from w = 0, in the rows' order.
    A clean pass comes on data separable through the origin (Novikoff: after at most
    (R/gamma*)^2 updates).  NumPy only (the scores are computed by blocks of rows).

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_features) or CSR matrix
        The rows, already multiplied by their labels (z_t = y_t x_t).
    epochs : int
        The most passes, >= 1.

    Returns
    -------
    ndarray of shape (n_features,) or None
        The weights after the clean pass: ``w . z_t > 0`` on every row; None without one.

    Examples
    --------
    >>> import numpy as np
    >>> cycled_separator(np.array([[1.0, 0.5], [0.5, 1.0]]), 10)
    array([1. , 0.5])
    """
    rows = check_rows("cycled_separator", Z)
    run = _cycle(rows, max_passes=params.integer("cycled_separator", "epochs", epochs, 1))
    return run.w if run.clean else None


def _fallback(signed, tol, max_iter, upper):
    """The Perceptron of :func:`search_margin`'s fallback on the rows z_t = y_t x_t, run until
    its verdict: a clean pass; or its certificate gamma* <= ||w|| / M at most ``tol * upper``
    (the best margin is then below the bracket's tolerance); or ``1 / tol^2`` updates, after
    which its own bound (R / gamma)^2 says it must have converged if the best margin were at
    least ``tol * R`` (the ceiling is then at most R / sqrt(M) = tol R); or ``max_iter *
    n_samples`` updates, the stated cap (as many as ``max_iter`` passes that each update on
    every row).  The run's ``reason`` says which stopped it."""
    owner = "search_margin"
    t = params.open_unit(owner, "tol", tol)
    n = signed[0]
    novikoff = math.ceil(1.0 / (t * t))
    cap = params.integer(owner, "max_iter", max_iter, 1) * n
    run = _cycle(signed, max_updates=min(novikoff, cap), floor=t * upper)
    if run.clean or run.reason:
        return run
    R = math.sqrt(float(row_sqnorms(signed).max()))
    why = (f"its bound (R/gamma)^2 says it would have converged after {novikoff} = 1/tol^2 "
           f"updates if the best margin were >= tol x R = {t * R:.3g}" if novikoff <= cap else
           f"the cap of max_iter x n_samples = {cap} updates")
    return run._replace(reason=why)


class SeparatorSearch(NamedTuple):
    """The result of :func:`search_margin`: the best margin through the origin, bracketed."""
    gamma: float
    """The margin of ``u`` recomputed on the data: a proven lower bound on the best margin."""
    upper: float
    """An upper bound on the best margin (0.0: the data are not separable through the
    origin)."""
    u: Optional[np.ndarray]
    """The unit separator found (None when none was)."""
    how: str
    """What found ``u``: "best_margin", "an LP solved by SciPy's HiGHS" or "a Perceptron run
    to a clean pass"."""
    stopped: str
    """Why the Perceptron fallback stopped without a clean pass ("" when it did not run or
    found a separator)."""


def search_margin(X, y, tol=1e-3, max_iter=10_000, fw=None) -> SeparatorSearch:
    """The best margin through the origin of the labelled rows, bracketed by every means at
    hand: what :func:`mbcore.certify` runs for the Perceptron family.

    :func:`best_margin` (Frank-Wolfe) first; when it stops before its bracket closes
    (``max_iter``), the LP of :func:`lp_separator` (SciPy's HiGHS), which finds a separator
    whenever the data are separable (up to HiGHS's tolerances); without SciPy (or when HiGHS
    reports no optimum), when Frank-Wolfe found no positive margin, a Perceptron cycled over
    the rows y_t x_t, run until its own verdict: a clean pass, which comes on separable data
    (a separator); or its certificate gamma* <= ||w|| / M (after M updates) at most
    ``tol * upper``, the best margin then below the bracket's tolerance; or ``1 / tol^2``
    updates, after which its bound (R / gamma)^2 says it must have converged if the best margin
    were at least ``tol * R`` (about a second per 10^5 updates); or the stated cap of
    ``max_iter * n_samples`` updates (as many as ``max_iter`` passes that each update on every
    row).  ``stopped`` says which, and ``upper`` takes the certificate when it is lower.  So
    the verdict does not hang on a floating-point race in the Frank-Wolfe steps (whose
    iterates depend on the BLAS's rounding): wherever Frank-Wolfe stops, the Perceptron, which
    does not, decides.  The better u is kept, and its margin recomputed on the data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
        The rows as the learner sees them.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.
    tol, max_iter : float, int, default=1e-3, 10000
        :func:`best_margin`'s; ``max_iter`` also caps the Perceptron fallback (above).
    fw : BestMargin, optional
        The result of :func:`best_margin` on these data, when it is already known.

    Returns
    -------
    SeparatorSearch
        ``(gamma, upper, u, how, stopped)``: gamma the margin of the unit u found, upper >= the
        best margin (the distance from the origin to a point of the convex hull of the
        y_t x_t: Frank-Wolfe's, or the LP's dual solution's when nearer, or the Perceptron's
        certificate ||w|| / M when lower).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0]])
    >>> r = search_margin(X, [1, 1, -1])
    >>> round(r.gamma, 3), r.how
    (1.414, 'best_margin')
    """
    owner = "search_margin"
    rows, view = _view(owner, X)
    yy = check_signs(owner, y, rows[0])
    r = best_margin(view, yy, tol=tol, max_iter=max_iter) if fw is None else fw
    gamma, upper, best, how, stopped = r.gamma, r.upper, r.u, "best_margin", ""
    if upper <= 0.0 or (r.converged and r.separable):
        return SeparatorSearch(gamma, upper, best, how, stopped)
    u, lp = None, lp_separator(view, yy)
    if lp is not None:
        u, hull = lp
        if hull is not None:
            upper = min(upper, float(np.linalg.norm(hull)))
    elif not r.separable:
        run = _fallback(check_rows(owner, _signed(view, yy)), tol, max_iter, upper)
        if run.clean:
            u = run.w
        else:
            upper = min(upper, run.ceiling)
            stopped = (f"the Perceptron fallback stopped after {run.updates} updates in "
                       f"{run.passes} passes: {run.reason}")
    if u is not None and u.any():
        g = margin(view, yy, u)
        if g > gamma:
            gamma, best = g, u / np.linalg.norm(u)
            how = ("an LP solved by SciPy's HiGHS" if lp is not None else
                   "a Perceptron run to a clean pass")
    return SeparatorSearch(gamma, max(upper, gamma), best, how, stopped)


# -- K >= 3 classes: Kesler's construction -------------------------------------------------------

def _class_codes(owner, y, classes):
    """(classes, codes): the sorted classes and each label's index among them."""
    cl = np.asarray(classes)
    yy = np.asarray(y)
    codes = np.searchsorted(cl, yy)
    if cl.ndim != 1 or yy.ndim != 1 or cl.size < 2 or (codes >= cl.size).any() or \
            (cl[np.minimum(codes, cl.size - 1)] != yy).any():
        raise ValueError(f"{owner}: y must hold labels among the sorted classes "
                         f"{cl.tolist()[:8]!r}")
    return cl, codes


def _kesler_pairs(codes, n, K):
    """(T, E) for the Kesler vectors (e_y - e_k) (x) x_t of the n rows, one for every row t and
    every other class k: row i is that of row T[i], and E[i] = e_{y_t} - e_k (K entries)."""
    base = np.arange(K - 1)
    other = (base[None, :] + (base[None, :] >= codes[:, None])).ravel()   # the k != y_t
    T = np.repeat(np.arange(n), K - 1)
    m = T.shape[0]
    E = np.zeros((m, K))
    E[np.arange(m), codes[T]] = 1.0
    E[np.arange(m), other] -= 1.0
    return T, E


def kesler_margin(X, y, classes, tol=1e-3, max_iter=10_000):
    """The best multi-class margin, by :func:`best_margin` on the Kesler vectors.

    The Kesler vectors are (e_y - e_k) (x) x of every row and every other class k (Duda & Hart
    1973, section 5.12); their Gram matrix is ``((e_y - e_k) . (e_y' - e_k')) (x . x')``.  The
    U found is checked on the data (:func:`multiclass_margin`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
    y : array-like of shape (n_samples,)
        Labels among ``classes``.
    classes : array-like of shape (n_classes,)
        Sorted and distinct, at least two; row k of U scores ``classes[k]``.
    tol, max_iter : float, int
        :func:`best_margin`'s.

    Returns
    -------
    (gamma, upper, U) or None
        gamma the multi-class margin of U (verified on the data), upper a bound on the best
        one; None when there are more than ``KESLER_MAX`` Kesler vectors or more than
        4,000,000 entries in X.
    """
    rows, view = _view("kesler_margin", X)
    n, D, _ = rows
    cl, codes = _class_codes("kesler_margin", y, classes)
    K = cl.shape[0]
    m = n * (K - 1)
    if m > KESLER_MAX or n * D > KESLER_CELLS:
        return None
    A = dense_rows(rows)
    T, E = _kesler_pairs(codes, n, K)
    G = (E @ E.T) * (A @ A.T)[np.ix_(T, T)]
    r = best_margin(None, np.ones(m), tol=tol, max_iter=max_iter, gram=G)
    U = (E * r.coef[:, None]).T @ A[T]
    g = multiclass_margin(view, y, U, cl) if U.any() else 0.0
    return g, max(r.upper, g), U


def kernel_kesler_margin(gram, y, classes, tol=1e-3, max_iter=10_000) -> "BestMargin":
    """The best multi-class margin in a kernel's feature space, by :func:`best_margin` on the
    Kesler vectors.

    Their Gram matrix is ``((e_y - e_k) . (e_y' - e_k')) K(x, x')``.  The margin of the multi-class kernel Perceptron's bound
    (:func:`mbcore.bounds.multiclass_perceptron_bound` with R^2 = max K(x, x)).

    Parameters
    ----------
    gram : ndarray of shape (n_samples, n_samples)
        The kernel matrix K(x_s, x_t) of the rows.
    y : array-like of shape (n_samples,)
        Labels among ``classes``.
    classes : array-like of shape (n_classes,)
        Sorted and distinct, at least two.
    tol, max_iter : float, int
        :func:`best_margin`'s.

    Returns
    -------
    BestMargin
        With the dual coefficients of the n_samples x (n_classes - 1) Kesler vectors.
    """
    G = np.asarray(gram, dtype=np.float64)
    _, codes = _class_codes("kernel_kesler_margin", y, classes)
    T, E = _kesler_pairs(codes, G.shape[0], len(classes))
    return best_margin(None, np.ones(T.shape[0]), tol=tol, max_iter=max_iter,
                       gram=(E @ E.T) * G[np.ix_(T, T)])


def kesler_lp(X, y, classes):
    """A (K, n_features) separator from the LP of :func:`lp_separator` on the Kesler vectors
    (e_y - e_k) (x) x_t (every row and every other class k, as sparse rows): a U with a positive
    multi-class margin whenever one exists.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
    y : array-like of shape (n_samples,)
        Labels among ``classes``.
    classes : array-like of shape (n_classes,)
        Sorted and distinct, at least two.

    Returns
    -------
    ndarray of shape (n_classes, n_features) or None
        A candidate (check it with :func:`multiclass_margin`); None without SciPy or when
        HiGHS reports no optimum.
    """
    rows, view = _view("kesler_lp", X)
    cl, codes = _class_codes("kesler_lp", y, classes)
    sp = _scipy()
    if sp is None:
        return None
    linprog, sparse = sp
    n, D = view.shape
    K = cl.shape[0]
    Xs = (sparse.csr_matrix((view.data, view.indices, view.indptr), shape=view.shape)
          if isinstance(view, CSR) else sparse.csr_matrix(view))
    T, E = _kesler_pairs(codes, n, K)
    XT = Xs[T]
    # block c of the row (t, k): x_t when c = y_t, -x_t when c = k, else empty
    Z = sparse.hstack([sparse.diags(E[:, c]) @ XT for c in range(K)], format="csr")
    Z.eliminate_zeros()
    lp = _lp_direction(Z, linprog, sparse)
    return None if lp is None else lp[0].reshape(K, D)


def _stacked_margin(view, y, rows, classes):
    """The multi-class margin of the separators ``rows`` (one per class) stacked; -inf when a
    row is missing."""
    if any(u is None for u in rows):
        return -math.inf
    return multiclass_margin(view, y, np.vstack(rows), classes)


def multiclass_search(X, y, classes, need=0.0, tol=1e-3, max_iter=10_000, candidate=None):
    """The best multi-class margin found by every search at hand, and how.

    The Kesler search (:func:`kesler_margin`) runs on small data; when that search is too large
    or inconclusive, the better of ``candidate()`` (a separator proposed by the caller, such as
    a learner's weights fitted to the data) and the best one-vs-rest separators stacked
    (:func:`best_margin` for each class, on at most 20,000 rows).  When ``need`` is 0 and none of
    them has a positive margin: the one-vs-rest separators of :func:`search_margin` stacked (an
    LP for each class where Frank-Wolfe stopped early) and, on the data small enough for the
    Kesler search, the LP on the Kesler vectors (:func:`kesler_lp`; on larger data that LP can
    take many minutes).  Every margin is recomputed on the data (:func:`multiclass_margin`).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or CSR matrix
    y : array-like of shape (n_samples,)
        Labels among ``classes``.
    classes : array-like of shape (n_classes,)
        Sorted and distinct, at least two.
    need : float, default=0.0
        The margin wanted (0.0: any positive margin).
    tol, max_iter : float, int
        :func:`best_margin`'s.
    candidate : callable, optional
        ``candidate()`` returns ``(U, how)``, a (n_classes, n_features) matrix and its
        description, or None.

    Returns
    -------
    (gamma, upper, how)
        gamma the best multi-class margin found (-inf when none was), upper a bound on the best
        one (None when unknown), how the words for what found gamma.
    """
    rows, view = _view("multiclass_search", X)
    cl, _ = _class_codes("multiclass_search", y, classes)
    K = cl.shape[0]

    def enough(g):
        return g > 0.0 if need == 0.0 else g >= need

    g, upper, how = -math.inf, None, ""
    k = kesler_margin(view, y, cl, tol, max_iter)
    if k is not None:
        g, upper, _ = k
        how = "found by best_margin on the Kesler vectors"
        if enough(g) or (upper <= 0.0 if need == 0.0 else upper < need):
            return g, upper, how
    proposed = None if candidate is None else candidate()
    if proposed is not None:
        W, what = proposed
        gf = multiclass_margin(view, y, W, cl)
        if gf > g:
            g, how = gf, what
    if view.shape[0] <= STACK_MAX_ROWS:
        # the best one-vs-rest separators, stacked: often a far better multi-class margin
        # than a fitted learner's weights (each u_k maximises its class's own margin)
        signs = [np.where(np.asarray(y) == c, 1.0, -1.0) for c in cl]
        fws = [best_margin(view, s, tol=tol, max_iter=max_iter) for s in signs]
        gs = _stacked_margin(view, y, [r.u for r in fws], cl)
        if gs > g:
            g, how = gs, "the best one-vs-rest separators (best_margin), stacked"
        if need == 0.0 and not g > 0.0:
            # the whole binary search (an LP where Frank-Wolfe stopped early) for each class
            gs = _stacked_margin(view, y, [search_margin(view, s, tol, max_iter, r).u
                                           for s, r in zip(signs, fws)], cl)
            if gs > g:
                g, how = gs, ("the best one-vs-rest separators (best_margin, or an LP where "
                              "it stopped early), stacked")
    if k is not None and need == 0.0 and not g > 0.0 and upper > 0.0:
        U = kesler_lp(view, y, cl)
        if U is not None and U.any():
            gl = multiclass_margin(view, y, U, cl)
            if gl > g:
                g, how = gl, "found by an LP on the Kesler vectors, solved by SciPy's HiGHS"
    return g, upper, how
