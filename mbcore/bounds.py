"""Mistake bounds of the additive learners as functions, and the data quantities they need.

Every bound here is a theorem with assumptions; each docstring states them, and a run that
satisfies them and exceeds the bound is a bug in the learner (ALGORITHMS.md, sections 1 and 7).
Data quantities (``radius``, ``margin``, ``total_distance``) accept a dense 2-D array-like or a
sparse matrix in CSR layout (any object with ``data``, ``indices``, ``indptr`` and ``shape``, such
as ``scipy.sparse.csr_array``; other scipy formats are converted with ``tocsr()``).  They use NumPy
only and compute in float64, so a quantity is exact up to the rounding of float64 arithmetic.

Conventions: labels are -1/+1; ``u`` is a candidate separator in the learner's own feature space
(append the constant 1 to every row yourself when the learner uses ``fit_intercept=True``, and the
intercept to ``u``).

Examples
--------
>>> import numpy as np
>>> X = np.array([[2.0, 1.0], [-1.0, -3.0], [1.0, 2.0]])
>>> y = np.array([1, -1, 1])
>>> u = np.array([1.0, 1.0])
>>> R, g = radius(X), margin(X, y, u)
>>> round(R, 4), round(g, 4), round(perceptron_bound(R, g), 4)
(3.1623, 2.1213, 2.2222)
"""

import math
import numbers

import numpy as np

__all__ = ["radius", "margin", "total_distance", "perceptron_bound", "margin_perceptron_bound",
           "td_bound", "kernel_perceptron_bound", "winnow_bound", "elimination_winnow_bound",
           "winnow_star_bound", "weighted_majority_bound", "randomized_wm_bound",
           "specialists_bound"]


# -- data quantities ------------------------------------------------------------------------------

def radius(X):
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
    return float(math.sqrt(_row_sqnorms(_rows("radius", X)).max()))


def margin(X, y, u, normalize=False):
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
    rows = _rows("margin", X)
    yy = _labels("margin", y, rows[0])
    uu = _separator("margin", u, rows[1])
    scores = yy * _row_dots(rows, uu) / np.linalg.norm(uu)
    if normalize:
        norms = np.sqrt(_row_sqnorms(rows))
        keep = norms > 0.0
        if not keep.any():
            raise ValueError("margin: every row of X is zero, so normalize=True leaves no example")
        scores = scores[keep] / norms[keep]
    return float(scores.min()) + 0.0  # + 0.0 turns -0.0 into 0.0


def total_distance(X, y, u, gamma):
    """Balcan's total distance TD_gamma = sum_t max(0, gamma - y_t u . x_t), unit-length x_t and u.

    The total distance the examples would have to move for the unit vector u to separate them
    with margin gamma (Balcan lecture 3, section 1); ``TD_gamma / gamma`` is the total hinge loss of
    u.  Rows are scaled to unit length and u to unit norm first; a zero row stays zero and adds
    gamma (the Perceptron errs on it without progress, which the bound of :func:`td_bound` allows
    for).

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
    g = _positive("total_distance", "gamma", gamma)
    rows = _rows("total_distance", X)
    yy = _labels("total_distance", y, rows[0])
    uu = _separator("total_distance", u, rows[1])
    norms = np.sqrt(_row_sqnorms(rows))
    scaled = np.divide(_row_dots(rows, uu), norms, out=np.zeros_like(norms), where=norms > 0.0)
    scores = yy * scaled / np.linalg.norm(uu)
    return float(np.maximum(0.0, g - scores).sum())


# -- bounds ---------------------------------------------------------------------------------------

def perceptron_bound(R, gamma, u_norm=1.0):
    """The Perceptron mistake bound (u_norm * R / gamma) ** 2 (Novikoff 1962, Block 1962).

    Assumptions: the Perceptron starts from w = 0 (any learning rate; it does not change a
    prediction then), every example has ``||x_t|| <= R``, and some vector u with ``||u|| = u_norm``
    has ``y_t u . x_t >= gamma > 0`` on every example.  Then on any ordering of the examples, with
    any number of passes, the number of mistakes is at most ``(u_norm R / gamma)^2``.  With a unit
    u this is ``(R/gamma)^2`` (Kanade Thm 9, which writes D for R); with unit-length examples
    (``R = 1``) it is Balcan's ``1/gamma^2``; the slides' unscaled form is ``(||u|| R / gamma)^2``;
    Kakade's margin-1 form with ``||x|| <= 1`` is ``||w*||^2`` (``R = gamma = 1``,
    ``u_norm = ||w*||``).  The tie rule does not matter.

    Parameters
    ----------
    R : float
        Radius of the data, >= 0 (see :func:`radius`).
    gamma : float
        Margin of u in the same units, > 0.  :func:`margin` returns it for a unit u, so keep
        ``u_norm=1`` with it.
    u_norm : float, default=1.0
        ||u|| when gamma is measured without dividing by it.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If ``gamma <= 0``, ``R < 0``, ``u_norm <= 0``, or a value is not a finite real.
    """
    r = _nonnegative("perceptron_bound", "R", R)
    g = _positive("perceptron_bound", "gamma", gamma)
    n = _positive("perceptron_bound", "u_norm", u_norm)
    return (n * r / g) ** 2


def margin_perceptron_bound(gamma):
    """Balcan's bound 12 / gamma**2 on the updates of Margin Perceptron(gamma).

    Assumptions (Balcan lecture 3, Theorem 2): the examples are scaled to unit length (a zero
    example cannot be), some unit vector w* has ``y_t w* . x_t >= gamma`` on every (unit-length)
    example, and the learner is run with that gamma and the threshold gamma/2
    (``margin_fraction=0.5``).  Then the number of updates, counting both wrong predictions and
    margin mistakes, is at most ``12/gamma^2`` on any ordering, with any number of passes.  If the
    data's normalised margin exceeds the learner's gamma, the theorem still applies with the
    learner's gamma.

    Parameters
    ----------
    gamma : float
        The margin, in (0, 1] (a unit vector cannot have a larger margin on unit examples).

    Returns
    -------
    float
        The bound on the number of updates (mistakes plus margin mistakes).

    Raises
    ------
    ValueError
        If gamma is not a finite real in (0, 1].
    """
    g = _positive("margin_perceptron_bound", "gamma", gamma)
    if g > 1.0:
        raise ValueError(f"margin_perceptron_bound: parameter gamma must be in (0, 1] (the margin "
                         f"of unit-length examples), got {gamma!r}")
    return 12.0 / g ** 2


def td_bound(gamma, td):
    """Balcan's bound for the Perceptron on data that need not be separable: 1/gamma^2 + 2 TD/gamma.

    Assumptions (Balcan lecture 3, section 1): the Perceptron starts from w = 0 and sees
    unit-length examples (``normalize=True``), u is any unit vector, gamma > 0, and
    ``td = TD_gamma`` of u on the sequence (see :func:`total_distance`).  Then the number of
    mistakes is at most ``1/gamma^2 + (2/gamma) TD_gamma`` (from ``sqrt(M) >= gamma M - TD``).
    With ``td = 0`` this is the separable bound ``1/gamma^2``.

    Parameters
    ----------
    gamma : float
        The margin, > 0.
    td : float
        The total distance TD_gamma, >= 0.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If ``gamma <= 0``, ``td < 0``, or a value is not a finite real.
    """
    g = _positive("td_bound", "gamma", gamma)
    t = _nonnegative("td_bound", "td", td)
    return 1.0 / g ** 2 + 2.0 * t / g


def kernel_perceptron_bound(R2, gamma):
    """The kernel Perceptron mistake bound R2 / gamma**2 (the Perceptron bound in feature space).

    Assumptions (Kakade lecture 9, "the algorithm can be kernelized"): K is a positive
    semi-definite kernel with feature map phi, ``R2 = max_t K(x_t, x_t) = max_t ||phi(x_t)||^2``,
    and some f in the kernel's feature space with ``||f|| = 1`` has ``y_t f(x_t) >= gamma > 0`` on
    every example.  The kernel Perceptron (no budget: a budget forgets support vectors and voids
    the bound) then makes at most ``R2 / gamma^2`` mistakes.  For the linear kernel this is
    exactly :func:`perceptron_bound` with ``R2 = R^2``; for the RBF kernel ``R2 = 1``.

    Parameters
    ----------
    R2 : float
        The largest kernel diagonal ``max_t K(x_t, x_t)``, >= 0 (a squared radius).
    gamma : float
        The margin of a unit-norm f in feature space, > 0.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If ``gamma <= 0``, ``R2 < 0``, or a value is not a finite real.
    """
    r2 = _nonnegative("kernel_perceptron_bound", "R2", R2)
    g = _positive("kernel_perceptron_bound", "gamma", gamma)
    return r2 / g ** 2


# -- the multiplicative family and the experts ----------------------------------------------------

def winnow_bound(k, n):
    """Winnow2's mistake bound 2 + 3k(1 + log2 n) (Angluin lecture 18).

    Assumptions: Winnow with its defaults (alpha = 2, beta = 1/2, theta = n, weights 1) on
    Boolean examples labelled by a monotone disjunction of k of the n variables.

    Examples
    --------
    >>> winnow_bound(2, 1024)
    68.0
    """
    k = _count("winnow_bound", "k", k)
    n = _count("winnow_bound", "n", n, 1)
    return 2.0 + 3.0 * k * (1.0 + math.log2(n))


def elimination_winnow_bound(k, n):
    """The elimination Winnow's bound 2k log2 n + 2 (Kanade, Theorem 12): threshold n/2,
    promotion x2, demotion to zero, on a monotone disjunction of k of n variables.

    Examples
    --------
    >>> elimination_winnow_bound(3, 256)
    50.0
    """
    k = _count("elimination_winnow_bound", "k", k)
    n = _count("elimination_winnow_bound", "n", n, 1)
    return 2.0 * k * math.log2(n) + 2.0


def winnow_star_bound(n, adversary_cost):
    """Winnow*'s bound 4 + 5(1 + log2 2n) C_a on drifting monotone disjunctions (Angluin
    lecture 19), C_a the adversary's cost (variables added to and removed from the target,
    counting the first target's variables).

    Examples
    --------
    >>> winnow_star_bound(512, 2)
    114.0
    """
    n = _count("winnow_star_bound", "n", n, 1)
    c = _nonnegative("winnow_star_bound", "adversary_cost", adversary_cost)
    return 4.0 + 5.0 * (1.0 + math.log2(2 * n)) * c


def weighted_majority_bound(m_best, n, beta=0.5):
    """Weighted Majority's bound (m log2(1/beta) + log2 n) / log2(2/(1+beta)) (Angluin
    lecture 20), m the mistakes of any one of the n experts; beta = 1/2 gives
    2.41 (m + log2 n).  It holds for multi-valued labels too: on a mistake the predicted
    (wrong) value holds at least as much weight as the right one, so at least half the weight
    is on wrong experts.

    Examples
    --------
    >>> round(weighted_majority_bound(0, 1024), 2)
    24.09
    """
    m = _nonnegative("weighted_majority_bound", "m_best", m_best)
    n = _count("weighted_majority_bound", "n", n, 1)
    b = _open_unit("weighted_majority_bound", "beta", beta)
    return (m * math.log2(1.0 / b) + math.log2(n)) / math.log2(2.0 / (1.0 + b))


def randomized_wm_bound(m_best, n, beta=0.5):
    """Randomized Weighted Majority's expected-mistake bound (m ln(1/beta) + ln n) / (1 - beta)
    (Littlestone & Warmuth 1994; Angluin lecture 20 remark), m the mistakes of any expert.

    Examples
    --------
    >>> round(randomized_wm_bound(10, 100), 3)
    23.073
    """
    m = _nonnegative("randomized_wm_bound", "m_best", m_best)
    n = _count("randomized_wm_bound", "n", n, 1)
    b = _open_unit("randomized_wm_bound", "beta", beta)
    return (m * math.log(1.0 / b) + math.log(n)) / (1.0 - b)


def specialists_bound(r, n, promote=1.5, demote=0.5):
    """The Specialists bound r log(n) / log(promote) (Blum 1997's argument for its Winnow
    variant; 1.71 r log2 n for the default 3/2).

    Assumptions: n specialists, each starting at weight 1; some r of them never vote wrongly
    and in every round at least one of those r votes; demote + promote <= 2, so a mistake never
    increases the awake weight (the predicted, wrong class holds at least as much weight as the
    right one).  Each mistake multiplies one of the r by ``promote``, and none can outgrow the
    total weight n.  Multi-valued labels, the coverage threshold and pruning below 1 keep it.

    Examples
    --------
    >>> round(specialists_bound(2, 64), 2)
    20.51
    """
    r = _count("specialists_bound", "r", r)
    n = _count("specialists_bound", "n", n, 1)
    p = _real("specialists_bound", "promote", promote)
    d = _real("specialists_bound", "demote", demote)
    if not (0.0 < d < 1.0 < p) or d + p > 2.0:
        raise ValueError(f"specialists_bound: needs 0 < demote < 1 < promote and demote + "
                         f"promote <= 2, got demote={demote!r}, promote={promote!r}")
    return r * math.log(n) / math.log(p)


# -- helpers --------------------------------------------------------------------------------------

def _open_unit(owner, name, value):
    v = _real(owner, name, value)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{owner}: parameter {name} must be in (0, 1), got {value!r}")
    return v


def _count(owner, name, value, low=0):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _real(owner, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(float(value)):
        raise ValueError(f"{owner}: parameter {name} must be a finite real number, got {value!r}")
    return float(value)


def _positive(owner, name, value):
    v = _real(owner, name, value)
    if v <= 0.0:
        raise ValueError(f"{owner}: parameter {name} must be > 0, got {value!r}")
    return v


def _nonnegative(owner, name, value):
    v = _real(owner, name, value)
    if v < 0.0:
        raise ValueError(f"{owner}: parameter {name} must be >= 0, got {value!r}")
    return v


def _rows(owner, X):
    """Validate X; return (n, d, dense) or (n, d, (data, indices, indptr)) for CSR input."""
    if hasattr(X, "tocsr") and getattr(X, "format", None) != "csr":
        X = X.tocsr()
    if all(hasattr(X, a) for a in ("data", "indices", "indptr", "shape")):
        if not getattr(X, "has_canonical_format", True):
            X = X.copy()
            X.sum_duplicates()
        n, d = (int(s) for s in X.shape)
        indptr = np.asarray(X.indptr, dtype=np.intp)
        nnz = int(indptr[-1]) if indptr.shape == (n + 1,) else -1
        indices = np.asarray(X.indices, dtype=np.intp)[:max(nnz, 0)]
        values = np.asarray(X.data, dtype=np.float64)[:max(nnz, 0)]
        if nnz < 0 or indptr[0] != 0 or (np.diff(indptr) < 0).any() or values.size != nnz or \
                indices.size != nnz or (nnz and (indices.min() < 0 or indices.max() >= d)):
            raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr, indices and data "
                             "disagree)")
        part = (values, indices, indptr)
    else:
        part = np.asarray(X, dtype=np.float64)
        if part.ndim != 2:
            raise ValueError(f"{owner}: X must be 2-D (n_samples, n_features), got "
                             f"ndim={part.ndim}")
        n, d = part.shape
        values = part
    if n == 0:
        raise ValueError(f"{owner}: X is empty (0 rows); at least one row is required")
    if not np.isfinite(values).all():
        raise ValueError(f"{owner}: X contains NaN or infinity")
    return n, d, part


def _labels(owner, y, n):
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.shape[0] != n:
        raise ValueError(f"{owner}: y must be 1-D with one label per row of X ({n}), got shape "
                         f"{yy.shape}")
    if yy.dtype.kind not in "biuf" or not np.isin(yy, (-1, 1)).all():
        raise ValueError(f"{owner}: y must hold labels -1 and +1 only, got "
                         f"{np.unique(yy)[:5].tolist()}")
    return yy.astype(np.float64)


def _separator(owner, u, d):
    uu = np.asarray(u, dtype=np.float64)
    if uu.shape != (d,):
        raise ValueError(f"{owner}: u must have shape ({d},) to match X, got {uu.shape}")
    if not np.isfinite(uu).all():
        raise ValueError(f"{owner}: u contains NaN or infinity")
    if not uu.any():
        raise ValueError(f"{owner}: u is the zero vector, which has no margin")
    return uu


def _segment_sums(values, indptr, n):
    """Per-row sums of CSR values; empty rows give 0 (np.add.reduceat alone would not)."""
    out = np.zeros(n, dtype=np.float64)
    starts = indptr[:-1]
    nonempty = indptr[1:] > starts
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values[:indptr[-1]], starts[nonempty])
    return out


def _row_sqnorms(rows):
    n, _, part = rows
    if isinstance(part, tuple):
        data, _, indptr = part
        return _segment_sums(data * data, indptr, n)
    return np.einsum("ij,ij->i", part, part)


def _row_dots(rows, u):
    n, _, part = rows
    if isinstance(part, tuple):
        data, indices, indptr = part
        return _segment_sums(data * u[indices], indptr, n)
    return part @ u
