"""Certificates: run a learner and check its mistakes against the bound that applies.

``certify(learner, X, y)`` runs a fresh copy of the learner (its parameters, no state) over the
examples, finds the theorem of the notes that covers it, computes the
quantities the theorem needs from the data (radius, margin, attribute errors, the best expert's
mistakes, a consistent target ...), and returns a :class:`Certificate`.  Each assumption is
marked *verified* (checked on these data), *trusted* (a value the caller supplied that cannot be
checked here), *unverified* (could not be established either way) or *violated* (the data break
it, so the theorem says nothing).  A run that exceeds a bound whose assumptions were all verified
is a bug in mbcore, and :func:`certify` raises :class:`BoundViolationError` saying so.
"""

import copy
import math
from typing import Any, Dict, Optional

import numpy as np

from ._messages import spell
from ._validation import is_index_lists, is_sparse, sparse_to_dense

from . import bounds as B
from .base import clone
from .online import OnlineRun, run_online

__all__ = ["certify", "Certificate", "BoundViolationError"]

VERIFIED, TRUSTED, UNVERIFIED, VIOLATED = "verified", "trusted", "unverified", "violated"


class BoundViolationError(AssertionError):
    """A learner exceeded a mistake bound whose assumptions were verified on the data: a bug in
    mbcore.  ``certificate`` holds the evidence."""

    def __init__(self, certificate):
        c = certificate
        super().__init__(
            f"mbcore bug: {c.learner} made {c.observed:g} {c.counted}, above the bound "
            f"{c.bound:g} of {c.bound_name} ({c.source}), whose assumptions were verified on "
            f"these data ({c.quantities_text()}). Please report it with the data.")
        self.certificate = c


class Certificate:
    """What :func:`certify` found.

    Attributes
    ----------
    learner : str
        The learner's class name.
    bound_name, source : str
        The theorem used and where the notes state it ("" when none applies).
    bound : float or None
        The bound; None when no theorem of the notes covers the learner as configured, or when
        an assumption is violated.
    counted : str
        What the bound counts: "mistakes", "updates" (Margin Perceptron) or "expected mistakes"
        (randomized Weighted Majority, computed exactly from the run's weights).
    observed : float
        That count on the run.
    quantities : dict
        The data quantities the bound used (R, gamma, k, A_c, m_best, ...).
    assumptions : list of (str, str)
        Each assumption and its status: "verified", "trusted", "unverified" or "violated".
    verified : bool
        Every assumption was verified on the data.
    holds : bool or None
        ``observed <= bound`` (None without a bound).
    reason : str
        Why there is no bound, when there is none.
    alternatives : list of (str, float)
        Other bounds that apply (the tightest is reported).
    run : OnlineRun
        The record of the run (all passes).
    """

    def __init__(self, learner, run, observed, counted="mistakes"):
        self.learner = learner
        self.run = run
        self.observed = observed
        self.counted = counted
        self.bound_name, self.source, self.bound, self.reason = "", "", None, ""
        self.quantities = {}
        self.assumptions = []
        self.alternatives = []

    @property
    def verified(self) -> bool:
        return bool(self.assumptions) and all(s == VERIFIED for _, s in self.assumptions)

    @property
    def holds(self) -> Optional[bool]:
        if self.bound is None:
            return None
        return bool(self.observed <= self.bound * (1.0 + 1e-12) + 1e-9)

    def quantities_text(self) -> str:
        """The quantities on one line: ``name=value, ...``."""
        return ", ".join(f"{k}={_fmt(v)}" for k, v in self.quantities.items())

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready summary."""
        return {"learner": self.learner, "bound_name": self.bound_name, "source": self.source,
                "bound": self.bound, "counted": self.counted, "observed": self.observed,
                "holds": self.holds, "verified": self.verified, "reason": self.reason,
                "quantities": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                               for k, v in self.quantities.items()},
                "assumptions": [list(a) for a in self.assumptions],
                "alternatives": [list(a) for a in self.alternatives],
                "n_examples": self.run.n}

    def summary(self) -> str:
        """A readable multi-line report."""
        lines = [f"{self.learner}: {self.observed:g} {self.counted} on {self.run.n} examples"]
        if self.bound is None:
            lines.append(f"  no bound: {self.reason}")
        else:
            lines.append(f"  bound {self.bound:g} ({self.bound_name}; {self.source}): "
                         + ("holds" if self.holds else "EXCEEDED"))
        if self.quantities:
            lines.append(f"  quantities: {self.quantities_text()}")
        for text, status in self.assumptions:
            lines.append(f"  [{status}] {text}")
        for name, value in self.alternatives:
            lines.append(f"  also: {name} = {value:g}")
        return "\n".join(lines)

    def __repr__(self):
        b = "none" if self.bound is None else f"{self.bound:g}"
        return (f"Certificate({self.learner}: {self.observed:g} {self.counted}, bound {b}, "
                f"holds={self.holds}, verified={self.verified})")

    def plot(self, ax=None, **style):
        """Draw the run's cumulative count with this certificate's bound
        (:meth:`mbcore.OnlineRun.plot`); needs matplotlib."""
        return self.run.plot(ax=ax, bound=self, label=self.learner,
                             updates=self.counted == "updates", **style)

    # -- building ------------------------------------------------------------------------------
    def assume(self, text, status):
        """Record an assumption with its status ("verified", "trusted", "unverified" or
        "violated") and return the status (used by :func:`certify` while it builds the
        certificate)."""
        self.assumptions.append((text, status))
        return status

    def set_bound(self, name, value, source):
        """Claim the bound ``value`` of the theorem ``name``, stated in ``source``."""
        self.bound_name, self.bound, self.source = name, float(value), source

    def no_bound(self, reason):
        """Claim no bound, for the given ``reason``."""
        self.bound, self.reason = None, reason


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)) and len(v) > 8:
        return f"[{', '.join(map(str, v[:8]))}, ...] ({len(v)})"
    return str(v)


def certify(learner, X, y, *, classes=None, passes=1, u=None, gamma=None, target=None,
            tol=1e-3, max_iter=10_000, **fit_params) -> Certificate:
    """Run a fresh copy of ``learner`` over the examples and check it against its mistake bound.

    Parameters
    ----------
    learner : an mbcore learner
        Only its parameters are used: a clone (no state) is run, so the bound's starting state
        (w = 0, weights 1, all literals, the whole version space) holds.
    X, y : the examples and labels, as for the learner's ``partial_fit``
    classes : the labels, optional (as for ``partial_fit``)
    passes : int, default=1
        How many times to run through the examples in order (the bounds hold over any
        sequence, so over repeated passes too; quantities that add up over the sequence,
        such as an expert's mistakes or attribute errors, are counted over all passes).
    u : array-like, optional
        A separator for the Perceptron family (in the learner's feature space: with
        ``fit_intercept`` the intercept is its last entry).  Its margin is checked on the data.
        With K >= 3 classes, a matrix of shape (K, n_features [+ 1]), row k for ``classes_[k]``
        (the intercepts as its last column): for ``multi_class="multiclass"`` its multi-class
        margin is checked (:func:`mbcore.bounds.multiclass_margin`), for ``"ovr"`` row k is the
        separator of class k against the rest.
    gamma : float, optional
        A margin to take on trust (for the Perceptron family when no u is given; with K >= 3
        classes the multi-class margin, or for ``"ovr"`` the margin of every one-vs-rest
        problem), or, with u and a normalising binary Perceptron, the gamma of Balcan's TD_gamma
        bound.
    target : sequence of int, optional
        For the Winnow family: the variables of a monotone disjunction (0-based) to measure
        against; by default a consistent one (or, for Winnow2, one with few attribute errors)
        is searched for greedily.  With K >= 3 classes: for ``multi_class="ovr"``, K such
        sequences (one per class of ``classes_``, against the rest); for Winnow's
        ``"multiclass"``, a nonnegative (K, n_features) target matrix M, whose margin
        (:func:`mbcore.bounds.multiclass_winnow_margin`) is checked on the data; by default
        one is searched for (equal mass on every class's own features: those active in the
        rows of that class only).
    tol, max_iter : float, int, default=1e-3, 10000
        The margin search's: passed to :func:`mbcore.bounds.best_margin` (the bracket's
        relative width and its steps); ``max_iter`` also caps the passes of the Perceptron the
        search falls back on without SciPy (see Notes).
    **fit_params : passed to the learner (``awake=`` for Specialists).

    Returns
    -------
    Certificate

    Raises
    ------
    BoundViolationError
        If the run exceeds a bound whose assumptions were all verified: a bug in mbcore.

    Notes
    -----
    The margin search (the Perceptron family without ``u`` or ``gamma``): the best margin
    through the origin of the rows as the learner sees them (the constant 1 appended with
    ``fit_intercept``, unit length for a normalising learner) is bracketed, and the
    certificate reports the bracket as ``gamma`` (found) and ``gamma_upper`` (for the Margin
    Perceptron, ``data margin`` and ``data margin upper``), with the bound built on the found
    gamma.  First pairwise Frank-Wolfe (:func:`mbcore.bounds.best_margin`); when it stops
    before its bracket closes, and SciPy is installed, the linear program
    max t s.t. y_t u . x_t >= t, -1 <= u_j <= 1, t <= 1, solved by SciPy's HiGHS (its
    interior-point method): its optimum is positive exactly when the rows are separable, so
    wherever they are (up to HiGHS's tolerances, about 1e-7 on rows scaled to entries in
    [-1, 1]) a separator is found.  Without SciPy, when Frank-Wolfe found no positive margin,
    a Perceptron cycled over the rows until a clean pass, which comes on separable data (after
    at most (R/gamma*)^2 updates), or ``max_iter`` passes.  Whatever proposes u, its margin is
    recomputed on the data after scaling u to unit length: the found gamma is a proven lower
    bound on the best margin, never a solver's word.  The upper end is the norm of a point of
    the convex hull of the y_t x_t (Frank-Wolfe's, or the LP's dual solution's when nearer),
    a valid upper bound on the best margin of a unit u.  The same search runs for every
    one-vs-rest problem (``multi_class="ovr"``, and the stacked one-vs-rest separators of the
    multi-class search).  The multi-class (Kesler) margin is searched by best_margin on the
    Kesler vectors on small data (at most 2048 of them), then by a fitted learner and the
    stacked one-vs-rest separators, and, when none has a positive margin, by the same LP on
    the Kesler vectors (small data only: on larger data that LP takes minutes); the kernel
    Perceptron's margin in feature space keeps best_margin with the Gram matrix (no LP).

    With K >= 3 classes (Perceptron, AveragedPerceptron, MarginPerceptron), the multi-class
    bounds apply: for ``multi_class="multiclass"``, Kesler's 2 R^2 / gamma^2 on the mistakes
    (24 / gamma^2 on the Margin Perceptron's updates), with a separator U searched for when
    none is given (the best margin of the Kesler vectors on small data; else the larger margin
    of the weights of a fresh learner fitted to the data and of the best one-vs-rest
    separators stacked); for ``"ovr"``, the sum of the K binary bounds of the
    one-vs-rest problems (:func:`mbcore.bounds.ovr_bound`).  OnlineHingeSVM has no bound.
    The Winnow family with K >= 3 classes: for ``"ovr"``, the sum of the binary bounds of the
    one-vs-rest problems, each certified as the binary learner would be (none unless every
    class has a verified one); for ``"multiclass"``, Winnow with beta = 1/alpha on examples in
    [0, 1] has Mesterharm's bound (:func:`mbcore.bounds.multiclass_winnow_bound`) when a target
    with a large enough margin is given or found, and EliminationWinnow, WinnowStar and
    BalancedWinnow have none.  A K-class run never gets a binary bound.

    X is read as the learner reads it: for the Winnow family with ``n_features`` set, lists of
    active indices (such as ``[[0, 1], [1, 2]]``) are rows of that many variables, converted
    by the learner's own input check.  DecisionList's bound needs a consistent 1-decision list;
    when the greedy construction (Angluin lecture 7) gets stuck, none exists, and the
    certificate says how far it got (``rules_built``, ``uncovered``) and claims no bound.

    Examples
    --------
    >>> from mbcore import Winnow, certify
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> cert = certify(Winnow(), X, y)
    >>> cert.holds, cert.bound_name
    (True, 'Winnow2, agnostic (Littlestone)')
    >>> cert.observed <= cert.bound
    True
    """
    passes = B._count("certify", "passes", passes, 1)
    fresh = clone(learner)
    from .queries import Conservative
    runs = [run_online(fresh, X, y, classes, **fit_params)]
    for _ in range(passes - 1):
        runs.append(run_online(fresh, X, y, None, **fit_params))
    # Kanade Prop. 3: the wrapper keeps the wrapped learner's bound, whose quantities on the
    # whole sequence bound those on the examples passed on (a subsequence)
    inner = fresh.learner_ if isinstance(fresh, Conservative) else fresh
    run = runs[0] if passes == 1 else OnlineRun(
        np.concatenate([r.predictions for r in runs]), np.concatenate([r.errors for r in runs]),
        np.concatenate([r.updated for r in runs]))
    # the bound the class declares (_BOUND; with K >= 3 classes _MULTI_BOUND, never the binary
    # one: a class whose bound holds for any number of labels declares it in both)
    rule = _RULES.get(inner._MULTI_BOUND if _n_classes(inner) >= 3 else inner._BOUND)
    counted = inner._BOUND_COUNTS
    cert = Certificate(type(learner).__name__, run,
                       run.updates if counted == "updates" else run.mistakes, counted)
    ctx = _Context(fresh, inner, X, y, fit_params, passes, u, gamma, target, tol, max_iter)
    if isinstance(fresh, Conservative):
        cert.assume("Conservative keeps the wrapped learner's bound (Kanade Prop. 3)", VERIFIED)
    if rule is None:
        cert.no_bound(f"the notes give no mistake bound for {type(inner).__name__}")
    else:
        rule(cert, ctx)
    if any(s == VIOLATED for _, s in cert.assumptions) and cert.bound is not None:
        cert.alternatives.append((cert.bound_name + " (void)", cert.bound))
        cert.no_bound("an assumption of " + cert.bound_name + " is violated on these data")
    if cert.bound is not None and cert.verified and not cert.holds:
        raise BoundViolationError(cert)
    return cert


class _Context:
    def __init__(self, fresh, inner, X, y, fit_params, passes, u, gamma, target, tol,
                 max_iter):
        self.fresh, self.L, self.X, self.y = fresh, inner, X, y
        self.fit_params, self.passes = fit_params, passes
        self.u, self.gamma, self.target = u, gamma, target
        self.tol, self.max_iter = tol, max_iter
        self.positive_label = None            # one-vs-rest: the class against the rest

    def positive(self):
        """The labels as a bool array: True for the learner's positive class (with
        ``positive_label`` set, for that class)."""
        label = self.fresh.classes_[1] if self.positive_label is None else self.positive_label
        return np.asarray(self.y) == label

    def signs(self):
        return np.where(self.positive(), 1.0, -1.0)


# -- the additive family --------------------------------------------------------------------------

def _linear_view(L, X):
    """The rows as the linear learner sees them: intercept appended, scaled to unit length."""
    rows = B._rows(type(L).__name__, X)
    n, d, part = rows
    icpt = bool(getattr(L, "fit_intercept", False))
    if isinstance(part, tuple):
        data, indices, indptr = part
        if icpt:
            counts = np.diff(indptr) + 1
            new_ptr = np.concatenate([[0], np.cumsum(counts)])
            pos = new_ptr[1:] - 1
            keep = np.ones(new_ptr[-1], dtype=bool)
            keep[pos] = False
            nd, ni = np.empty(new_ptr[-1]), np.empty(new_ptr[-1], dtype=np.intp)
            nd[keep], ni[keep] = data, indices
            nd[pos], ni[pos] = 1.0, d
            data, indices, indptr, d = nd, ni, new_ptr, d + 1
        view = _CSR(data, indices, indptr, (n, d))
    else:
        view = np.hstack([part, np.ones((n, 1))]) if icpt else part
    if L._normalizes():
        norms = np.sqrt(B._row_sqnorms(B._rows("certify", view)))
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        if isinstance(view, _CSR):
            view = _CSR(view.data * np.repeat(scale, np.diff(view.indptr)), view.indices,
                        view.indptr, view.shape)
        else:
            view = view * scale[:, None]
    return view


class _CSR:
    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, shape


def _signed(view, yy):
    """The rows z_t = y_t x_t of a view (dense or CSR)."""
    if isinstance(view, _CSR):
        return _CSR(view.data * np.repeat(yy, np.diff(view.indptr)), view.indices, view.indptr,
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


def _lp_separator(view, yy):
    """(u, p) from the LP of :func:`_lp_direction` on z_t = y_t x_t: a candidate separator u,
    and p, a point of the convex hull of the z_t (None when the dual gives none; any such
    point's norm bounds the best margin from above); None without SciPy or when HiGHS reports
    no optimum."""
    sp = _scipy()
    if sp is None:
        return None
    linprog, sparse = sp
    Z = _signed(view, yy)
    if isinstance(Z, _CSR):
        Z = sparse.csr_matrix((Z.data, Z.indices, Z.indptr), shape=Z.shape)
    lp = _lp_direction(Z, linprog, sparse)
    if lp is None:
        return None
    u, lam = lp
    return u, None if lam is None else np.asarray(Z.T @ lam, dtype=np.float64).ravel()


def _perceptron_separator(view, yy, epochs):
    """The weights of a Perceptron cycled over the rows z_t = y_t x_t, all labelled +1 (so that
    every z_t with w . z_t <= 0 is an update), until a clean pass, which comes on separable
    data (Novikoff: at most (R/gamma*)^2 updates), or ``epochs`` passes; None without one."""
    from .linear import cycled_separator
    return cycled_separator(_signed(view, yy), epochs)


def _search_margin(view, yy, ctx, fw=None):
    """The best margin through the origin of the rows of ``view`` labelled ``yy``, bracketed:
    (gamma, upper, u, how), gamma the margin of the unit u found (recomputed on the data: a
    proven lower bound on the best margin gamma*), upper >= gamma* (the distance from the
    origin to a point of the convex hull of the y_t x_t: Frank-Wolfe's, or the LP's dual
    solution's when nearer), ``how`` u was found.

    Frank-Wolfe (:func:`mbcore.bounds.best_margin`) first; when it stops before its bracket
    closes (``max_iter``), the LP of :func:`_lp_direction` (SciPy's HiGHS), which finds a
    separator whenever the data are separable (up to HiGHS's tolerances, about 1e-7 on rows
    scaled to entries in [-1, 1]); without SciPy (or when HiGHS reports no optimum), when
    Frank-Wolfe found no positive margin, a Perceptron cycled to a clean pass (at most
    ``max_iter`` passes).  The better u is kept.
    ``fw``: the result of best_margin on these data, when it is already known."""
    r = B.best_margin(view, yy, tol=ctx.tol, max_iter=ctx.max_iter) if fw is None else fw
    gamma, upper, best, how = r.gamma, r.upper, r.u, "best_margin"
    if upper <= 0.0 or (r.converged and r.separable):
        return gamma, upper, best, how
    u, lp = None, _lp_separator(view, yy)
    if lp is not None:
        u, hull = lp
        if hull is not None:
            upper = min(upper, float(np.linalg.norm(hull)))
    elif not r.separable:
        u = _perceptron_separator(view, yy, ctx.max_iter)
    if u is not None and u.any():
        g = B.margin(view, yy, u)
        if g > gamma:
            gamma, best = g, u / np.linalg.norm(u)
            how = ("an LP solved by SciPy's HiGHS" if lp is not None else
                   "a Perceptron run to a clean pass")
    return gamma, max(upper, gamma), best, how


def _margin_of(cert, ctx, view, yy, what):
    """gamma for the Perceptron bounds: from u (checked), from gamma (trusted) or searched."""
    if ctx.u is not None:
        g = B.margin(view, yy, ctx.u)
        cert.quantities["gamma"] = g
        st = cert.assume(f"the given u separates the {what} with margin gamma > 0",
                         VERIFIED if g > 0 else VIOLATED)
        return g if st == VERIFIED else None
    if ctx.gamma is not None:
        g = B._positive("certify", "gamma", ctx.gamma)
        cert.quantities["gamma"] = g
        cert.assume(f"some unit u separates the {what} with margin gamma (given)", TRUSTED)
        return g
    g, upper, _, how = _search_margin(view, yy, ctx)
    cert.quantities["gamma"] = g
    cert.quantities["gamma_upper"] = upper
    if g > 0.0:
        cert.assume(f"a unit u (found by {how}) separates the {what} with margin gamma > 0",
                    VERIFIED)
        return g
    cert.assume(f"the {what} are linearly separable (best margin <= {upper:.3g})",
                VIOLATED if upper <= 0.0 else UNVERIFIED)
    return None


def _margin(cert, ctx, td=False):
    """A linear learner's bound in the radius R of its rows and a margin gamma (its class's
    ``_margin_bound``); ``td``: with a normalising learner given u and gamma, Balcan's bound in
    the total distance TD_gamma too (the Perceptron's rule)."""
    L = ctx.L
    view = _linear_view(L, ctx.X)
    yy = ctx.signs()
    R = B.radius(view)
    cert.quantities["R"] = R
    cert.assume(f"the {type(L).__name__} starts from w = 0 (a fresh learner)", VERIFIED)
    options = []
    if td and L._normalizes() and ctx.u is not None and ctx.gamma is not None:
        # Balcan's bound holds for any unit u: nothing to assume beyond the computed TD_gamma;
        # the given u's own margin, when positive, adds Novikoff's bound as an alternative
        gt = B._positive("certify", "gamma", ctx.gamma)
        td = B.total_distance(view, yy, ctx.u, gt) * ctx.passes
        cert.quantities.update(gamma=gt, TD_gamma=td)
        cert.assume("TD_gamma of the given u computed on the unit-length examples", VERIFIED)
        options.append(("Balcan 1/gamma^2 + 2 TD_gamma/gamma", B.td_bound(gt, td),
                        "Balcan lecture 3, section 1"))
        g = B.margin(view, yy, ctx.u)
        g = g if g > 0 else None
    else:
        g = _margin_of(cert, ctx, view, yy, "examples")
    if g is not None:
        options.append(L._margin_bound(R, g))
    if not options:
        cert.no_bound("no margin established: " + spell("give u (checked) or gamma (trusted)",
                                                        "give --margin GAMMA (trusted)"))
        return
    _pick(cert, options)


def _pick(cert, options):
    options.sort(key=lambda o: o[1])
    name, value, source = options[0]
    cert.set_bound(name, value, source)
    cert.alternatives.extend((n, v) for n, v, _ in options[1:])


def _margin_perceptron(cert, ctx):
    L = ctx.L
    if float(L.margin_fraction) != 0.5:
        cert.no_bound("Balcan's 12/gamma^2 is proved for margin_fraction=0.5 only")
        return
    view = _linear_view(L, ctx.X)
    yy = ctx.signs()
    lg = float(L.gamma)
    cert.quantities["learner gamma"] = lg
    if ctx.u is not None:
        g = B.margin(view, yy, ctx.u)
        cert.quantities["data margin"] = g
        cert.assume("the given u has margin >= the learner's gamma on the unit-length examples",
                    VERIFIED if g >= lg else VIOLATED)
    else:
        g, upper, _, how = _search_margin(view, yy, ctx)
        cert.quantities["data margin"] = g
        cert.quantities["data margin upper"] = upper
        cert.assume(("a unit u (found by " + how + ")" if g >= lg else "some unit u")
                    + " has margin >= the learner's gamma on the unit-length examples",
                    VERIFIED if g >= lg else VIOLATED if upper < lg else UNVERIFIED)
    if (B._row_sqnorms(B._rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    cert.set_bound("Margin Perceptron 12/gamma^2", B.margin_perceptron_bound(min(lg, 1.0)),
                   "Balcan lecture 3, Theorem 2")


def _dense(L, X):
    """X as a dense float64 array (a sparse X's structure checked before it is read)."""
    if is_sparse(X):
        return sparse_to_dense(type(L).__name__, X)
    return np.asarray(X, dtype=np.float64)


def _gram(L, X):
    A = _dense(L, X)
    kind, deg, g, c0 = L.kernel, int(L.degree), _kernel_gamma(L, A.shape[1]), float(L.coef0)
    dots = A @ A.T
    if kind == "linear":
        return dots
    if kind == "poly":
        return (g * dots + c0) ** deg
    sq = np.einsum("ij,ij->i", A, A)
    return np.exp(-g * np.maximum(sq[:, None] + sq[None, :] - 2.0 * dots, 0.0))


def _kernel_gamma(L, d):
    """The kernel's gamma: the fitted one, else the parameter, else its default 1/d."""
    g = getattr(L, "gamma_", None)
    return float(g if g is not None else L.gamma if L.gamma is not None else 1.0 / d)


def _gram_diag(L, X):
    """K(x_t, x_t) for every row."""
    A = _dense(L, X)
    sq = np.einsum("ij,ij->i", A, A)
    if L.kernel == "linear":
        return sq
    if L.kernel == "poly":
        return (_kernel_gamma(L, A.shape[1]) * sq + float(L.coef0)) ** int(L.degree)
    return np.ones_like(sq)


def _kernel_perceptron(cert, ctx):
    L = ctx.L
    if L.budget is not None:
        cert.no_bound("a support-vector budget forgets mistakes and voids the bound")
        return
    n = np.shape(ctx.X)[0]
    if ctx.gamma is not None:
        K = None
        g = B._positive("certify", "gamma", ctx.gamma)
        cert.assume("some unit f in feature space has margin gamma (given)", TRUSTED)
    elif n > 4096:
        cert.no_bound(f"{n} examples are too many for the Gram matrix (at most 4096): give "
                      + spell("gamma", "--margin GAMMA (a margin in feature space, trusted)"))
        return
    else:
        K = _gram(L, ctx.X)
        r = B.best_margin(None, ctx.signs(), tol=ctx.tol, max_iter=ctx.max_iter, gram=K)
        g = r.gamma
        cert.quantities["gamma_upper"] = r.upper
        if not r.separable:
            cert.assume("the examples are separable in the kernel's feature space",
                        VIOLATED if r.upper <= 0 else UNVERIFIED)
            cert.quantities["gamma"] = g
            return
        cert.assume("a unit f in feature space (found by best_margin) has margin gamma > 0",
                    VERIFIED)
    R2 = float(np.max(_gram_diag(L, ctx.X) if K is None else np.diag(K)))
    cert.quantities.update(R2=R2, gamma=g)
    cert.set_bound("kernel Perceptron R2/gamma^2", B.kernel_perceptron_bound(R2, g),
                   "Kakade lecture 9 (kernelized Perceptron)")


# -- the additive family with K >= 3 classes ----------------------------------------------------

_SQRT2 = math.sqrt(2.0)
_KESLER_MAX = 2048          # Kesler vectors searched exactly (a Gram matrix of at most 2048^2)
_KESLER_CELLS = 4_000_000   # and a dense view of at most this many entries
_STACK_MAX_ROWS = 20_000    # one-vs-rest separators searched (K best_margin runs) up to this


def _n_classes(L):
    try:
        return len(L.classes_)
    except (AttributeError, TypeError):        # no classes (NotFittedError is an AttributeError)
        return 0


def _class_codes(ctx):
    """(classes, codes): the learner's sorted classes and each label's index among them."""
    cl = np.asarray(ctx.L.classes_)
    return cl, np.searchsorted(cl, np.asarray(ctx.y))


def _given_matrix(ctx, K, D):
    """The given u as a (K, D) matrix, one row per class."""
    U = np.asarray(ctx.u, dtype=np.float64)
    if U.shape != (K, D):
        extra = " (the intercepts as its last column)" if ctx.L.fit_intercept else ""
        raise ValueError(f"certify: u must have shape ({K}, {D}) with {K} classes: one row per "
                         f"class of classes_{extra}, got {U.shape}")
    return U


def _kesler_pairs(ctx, n, K):
    """(T, E) for the Kesler vectors (e_y - e_k) (x) x_t of the n rows, one for every row t and
    every other class k: row i is that of row T[i], and E[i] = e_{y_t} - e_k (K entries)."""
    _, codes = _class_codes(ctx)
    base = np.arange(K - 1)
    other = (base[None, :] + (base[None, :] >= codes[:, None])).ravel()   # the k != y_t
    T = np.repeat(np.arange(n), K - 1)
    m = T.shape[0]
    E = np.zeros((m, K))
    E[np.arange(m), codes[T]] = 1.0
    E[np.arange(m), other] -= 1.0
    return T, E


def _kesler_search(ctx, view, K):
    """The best multi-class margin, by best_margin on the Kesler vectors (e_y - e_k) (x) x of
    every row and every other class k, through their Gram matrix
    ``((e_y - e_k) . (e_y' - e_k')) (x . x')``: (gamma, upper, U), gamma recomputed on the data
    with the U found (verified), upper a bound on the best margin; None when too large."""
    rows = B._rows("certify", view)
    n, D, _ = rows
    m = n * (K - 1)
    if m > _KESLER_MAX or n * D > _KESLER_CELLS:
        return None
    cl, _ = _class_codes(ctx)
    A = B._dense_rows(rows)
    T, E = _kesler_pairs(ctx, n, K)
    G = (E @ E.T) * (A @ A.T)[np.ix_(T, T)]
    r = B.best_margin(None, np.ones(m), tol=ctx.tol, max_iter=ctx.max_iter, gram=G)
    U = (E * r.coef[:, None]).T @ A[T]
    g = B.multiclass_margin(view, ctx.y, U, cl) if U.any() else 0.0
    return g, max(r.upper, g), U


def _fitted_matrix(ctx, sep):
    """A candidate separator: ``sep`` fitted to the data, as a (K, D) matrix (None if the fit
    fails)."""
    try:
        sep.fit(ctx.X, ctx.y, classes=ctx.L.classes_)
    except ValueError:
        return None
    W = np.asarray(sep.coef_, dtype=np.float64)
    if ctx.L.fit_intercept:
        W = np.column_stack([W, np.asarray(sep.intercept_, dtype=np.float64)])
    return W if W.any() and np.isfinite(W).all() else None


def _kesler_lp(ctx, view, K):
    """A (K, D) separator from the LP of :func:`_lp_direction` on the Kesler vectors
    (e_y - e_k) (x) x_t (every row and every other class k, as sparse rows): a U with a positive
    multi-class margin whenever one exists.  None without SciPy or when HiGHS reports no
    optimum."""
    sp = _scipy()
    if sp is None:
        return None
    linprog, sparse = sp
    n, D = view.shape
    X = (sparse.csr_matrix((view.data, view.indices, view.indptr), shape=view.shape)
         if isinstance(view, _CSR) else sparse.csr_matrix(view))
    T, E = _kesler_pairs(ctx, n, K)
    XT = X[T]
    # block c of the row (t, k): x_t when c = y_t, -x_t when c = k, else empty
    Z = sparse.hstack([sparse.diags(E[:, c]) @ XT for c in range(K)], format="csr")
    Z.eliminate_zeros()
    lp = _lp_direction(Z, linprog, sparse)
    return None if lp is None else lp[0].reshape(K, D)


def _stacked_margin(ctx, view, rows):
    """The multi-class margin of the separators ``rows`` (one per class) stacked; -inf when a
    row is missing."""
    if any(u is None for u in rows):
        return -math.inf
    return B.multiclass_margin(view, ctx.y, np.vstack(rows), ctx.L.classes_)


def _multiclass_search(ctx, view, K, need, make):
    """(gamma, upper, how): the best multi-class margin found (verified on the data), an upper
    bound on the best one (None when unknown) and how gamma was found.  ``need`` is the margin
    the bound needs (0.0: any positive margin).  The Kesler search (best_margin on the Kesler
    vectors) runs on small data; when that search is too large or inconclusive, the better of
    the learner ``make()`` fitted to the data and the best one-vs-rest separators stacked
    (best_margin for each class).  When ``need`` is 0 and none of them has a positive margin:
    the one-vs-rest separators of :func:`_search_margin` stacked (an LP for each class where
    Frank-Wolfe stopped early) and, on the data small enough for the Kesler search, the LP on
    the Kesler vectors (:func:`_kesler_lp`; on larger data that LP can take many minutes)."""
    def enough(g):
        return g > 0.0 if need == 0.0 else g >= need

    g, upper, how = -math.inf, None, ""
    k = _kesler_search(ctx, view, K)
    if k is not None:
        g, upper, _ = k
        how = "found by best_margin on the Kesler vectors"
        if enough(g) or (upper <= 0.0 if need == 0.0 else upper < need):
            return g, upper, how
    sep = make()
    W = _fitted_matrix(ctx, sep)
    if W is not None:
        gf = B.multiclass_margin(view, ctx.y, W, ctx.L.classes_)
        if gf > g:
            g, how = gf, f"the weights of a {type(sep).__name__} fitted to the data"
    if view.shape[0] <= _STACK_MAX_ROWS:
        # the best one-vs-rest separators, stacked: often a far better multi-class margin
        # than a fitted learner's weights (each u_k maximises its class's own margin)
        signs = [np.where(np.asarray(ctx.y) == c, 1.0, -1.0) for c in ctx.L.classes_]
        fws = [B.best_margin(view, s, tol=ctx.tol, max_iter=ctx.max_iter) for s in signs]
        gs = _stacked_margin(ctx, view, [r.u for r in fws])
        if gs > g:
            g, how = gs, "the best one-vs-rest separators (best_margin), stacked"
        if need == 0.0 and not g > 0.0:
            # the whole binary search (an LP where Frank-Wolfe stopped early) for each class
            gs = _stacked_margin(ctx, view, [_search_margin(view, s, ctx, r)[2]
                                             for s, r in zip(signs, fws)])
            if gs > g:
                g, how = gs, ("the best one-vs-rest separators (best_margin, or an LP where "
                              "it stopped early), stacked")
    if k is not None and need == 0.0 and not g > 0.0 and upper > 0.0:
        U = _kesler_lp(ctx, view, K)
        if U is not None and U.any():
            gl = B.multiclass_margin(view, ctx.y, U, ctx.L.classes_)
            if gl > g:
                g, how = gl, "found by an LP on the Kesler vectors, solved by SciPy's HiGHS"
    return g, upper, how


def _kesler(cert, ctx):
    """K >= 3 classes, multi_class="multiclass": the class's ``_kesler_bound`` in the radius R
    and the multi-class margin gamma (given, checked or searched)."""
    L = ctx.L
    K = len(L.classes_)
    view = _linear_view(L, ctx.X)
    R = B.radius(view)
    cert.quantities.update(K=K, R=R)
    cert.assume(f"the multi-class {type(L).__name__} starts from W = 0 (a fresh learner)",
                VERIFIED)
    what = "the examples"
    if ctx.u is not None:
        U = _given_matrix(ctx, K, view.shape[1])
        g = B.multiclass_margin(view, ctx.y, U, L.classes_)
        cert.quantities["gamma"] = g
        st = cert.assume(f"the given U separates {what} with multi-class margin gamma > 0",
                         VERIFIED if g > 0 else VIOLATED)
        if st != VERIFIED:
            cert.no_bound("the given U does not separate the classes (its multi-class margin "
                          f"is {g:.3g})")
            return
    elif ctx.gamma is not None:
        g = B._positive("certify", "gamma", ctx.gamma)
        cert.quantities["gamma"] = g
        cert.assume(f"some U of unit Frobenius norm separates {what} with multi-class margin "
                    "gamma (given)", TRUSTED)
    else:
        g, upper, how = _multiclass_search(ctx, view, K, 0.0, L._search_learner)
        cert.quantities["gamma"] = max(g, 0.0) if math.isfinite(g) else 0.0
        if upper is not None:
            cert.quantities["gamma_upper"] = upper
        if g > 0:
            cert.assume(f"a U of unit Frobenius norm ({how}) separates {what} with "
                        "multi-class margin gamma > 0", VERIFIED)
        else:
            cert.assume("the classes are linearly separable (multi-class margin > 0)"
                        + (f"; best multi-class margin <= {upper:.3g}" if upper is not None
                           else "; no separator found"),
                        VIOLATED if upper is not None and upper <= 0.0 else UNVERIFIED)
            cert.no_bound("no multi-class margin established: the classes are not separable"
                          if upper is not None and upper <= 0.0 else
                          "no separator with a positive multi-class margin was found: give "
                          + spell("u (checked) or gamma (trusted)", "--margin GAMMA (trusted)"))
            return
    cert.set_bound(*L._kesler_bound(R, g))


def _multiclass_margin_perceptron(cert, ctx):
    L = ctx.L
    if float(L.margin_fraction) != 0.5:
        cert.no_bound("the multi-class 24/gamma^2 (Balcan's 12/gamma^2 on the Kesler vectors) is "
                      "proved for margin_fraction=0.5 only")
        return
    K = len(L.classes_)
    view = _linear_view(L, ctx.X)
    lg = float(L.gamma)
    cert.quantities.update(K=K)
    cert.quantities["learner gamma"] = lg
    text = "{} has multi-class margin >= the learner's gamma on the unit-length examples"
    if ctx.u is not None:
        U = _given_matrix(ctx, K, view.shape[1])
        g = B.multiclass_margin(view, ctx.y, U, L.classes_)
        cert.quantities["data margin"] = g
        cert.assume(text.format("the given U"), VERIFIED if g >= lg else VIOLATED)
    else:
        g, upper, how = _multiclass_search(ctx, view, K, lg, L._search_learner)
        upper = _SQRT2 if upper is None else min(upper, _SQRT2)   # unit U on unit rows
        g = max(g, 0.0) if math.isfinite(g) else 0.0
        cert.quantities["data margin"] = g
        cert.quantities["data margin upper"] = upper
        cert.assume(text.format(f"a U of unit Frobenius norm ({how})" if g >= lg else
                                "some U of unit Frobenius norm"),
                    VERIFIED if g >= lg else VIOLATED if upper < lg else UNVERIFIED)
    if (B._row_sqnorms(B._rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    cert.set_bound("multi-class Margin Perceptron 24/gamma^2 (Kesler)",
                   B.multiclass_margin_perceptron_bound(min(lg, _SQRT2)),
                   "Kesler's construction (Duda & Hart 1973); Balcan lecture 3, Theorem 2")


def _ovr(cert, ctx, margin_learner=False):
    """One-vs-rest: every class against the rest is a binary problem with its own bound; the
    multi-class count is at most the sum of the binary counts (mbcore.bounds.ovr_bound).
    ``margin_learner``: Balcan's Margin Perceptron (a margin of at least its gamma for every
    class), else a bound in R and each class's margin (the class's ``_margin_bound``)."""
    L = ctx.L
    if margin_learner and float(L.margin_fraction) != 0.5:
        cert.no_bound("Balcan's 12/gamma^2 is proved for margin_fraction=0.5 only")
        return
    cl = np.asarray(L.classes_)
    K = len(cl)
    view = _linear_view(L, ctx.X)
    labels = np.asarray(ctx.y)
    need = float(L.gamma) if margin_learner else 0.0
    cert.quantities["K"] = K
    if margin_learner:
        cert.quantities["learner gamma"] = need
    else:
        R = B.radius(view)
        cert.quantities["R"] = R
        cert.assume(f"every one-vs-rest {type(L).__name__} starts from w = 0 (a fresh learner)",
                    VERIFIED)
    U = _given_matrix(ctx, K, view.shape[1]) if ctx.u is not None else None
    trusted = ctx.gamma is not None and U is None and not margin_learner
    gammas, uppers, status, hows = [], [], [], set()
    for k in range(K):
        yk = np.where(labels == cl[k], 1.0, -1.0)
        if U is not None:
            g, up = B.margin(view, yk, U[k]), None
        elif trusted:
            g, up = B._positive("certify", "gamma", ctx.gamma), None
        else:
            g, up, _, h = _search_margin(view, yk, ctx)
            hows.add(h)
        gammas.append(g)
        uppers.append(up)
        ok = g >= need if margin_learner else g > 0
        if ok:
            status.append(TRUSTED if trusted else VERIFIED)
        elif U is not None or (up is not None and (up < need if margin_learner else up <= 0.0)):
            status.append(VIOLATED)
        else:
            status.append(UNVERIFIED)
    key = "data margin" if margin_learner else "gamma"
    cert.quantities[key] = gammas
    if U is None and not trusted:
        cert.quantities[key + (" upper" if margin_learner else "_upper")] = uppers
    how = ("the given rows of u" if U is not None else "given" if trusted else
           "found by " + " / ".join(sorted(hows)))
    cond = ("a unit u_k with margin >= the learner's gamma on the unit-length examples"
            if margin_learner else "a unit u_k with margin gamma_k > 0")
    bad = [str(cl[k]) for k in range(K) if status[k] != (TRUSTED if trusted else VERIFIED)]
    overall = (VIOLATED if VIOLATED in status else UNVERIFIED if UNVERIFIED in status else
               TRUSTED if trusted else VERIFIED)
    names = ", ".join(bad[:8]) + (", ..." if len(bad) > 8 else "")
    cert.assume(f"each class k against the rest is separated by {cond} ({how})"
                + (f"; not for class{'es' if len(bad) > 1 else ''} {names}" if bad else ""),
                overall)
    if margin_learner and (B._row_sqnorms(B._rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    if margin_learner:
        each = B.margin_perceptron_bound(min(need, 1.0))
        cert.set_bound("one-vs-rest: sum of Margin Perceptron 12/gamma^2",
                       B.ovr_bound([each] * K), "Balcan lecture 3, Theorem 2, for each class")
        return
    if bad:
        cert.no_bound(f"no margin established for the one-vs-rest problem of class"
                      f"{'es' if len(bad) > 1 else ''} {names}")
        return
    each = [L._margin_bound(R, g) for g in gammas]
    cert.set_bound(f"one-vs-rest: sum of {each[0][0].replace('gamma', 'gamma_k')}",
                   B.ovr_bound([b[1] for b in each]), f"{each[0][2]}, for each class")


def _multiclass(cert, ctx):
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr(cert, ctx)
    else:
        _kesler(cert, ctx)


def _multiclass_margin(cert, ctx):
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr(cert, ctx, margin_learner=True)
    else:
        _multiclass_margin_perceptron(cert, ctx)


def _multiclass_kernel(cert, ctx):
    """The kernel Perceptron with K >= 3 classes: Kesler's construction in feature space
    (2R^2/gamma^2, R^2 = max K(x, x)), or one-vs-rest (the sum of the binary bounds)."""
    L = ctx.L
    K = len(L.classes_)
    cert.quantities["K"] = K
    if L.budget is not None:
        cert.no_bound("a support-vector budget forgets mistakes and voids the bound")
        return
    if L.multi_class == "ovr":
        cl = np.asarray(L.classes_)
        bounds, missing = [], []
        for k in range(K):
            sub = Certificate(type(L).__name__, cert.run, 0.0)
            sctx = copy.copy(ctx)
            sctx.positive_label = cl[k]
            _kernel_perceptron(sub, sctx)
            if sub.bound is not None and all(st in (VERIFIED, TRUSTED)
                                             for _, st in sub.assumptions):
                bounds.append(sub.bound)
            else:
                missing.append(str(cl[k]))
        listed = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
        cert.assume("each class against the rest is separable in the kernel's feature space"
                    + (f"; not established for class{'es' if len(missing) > 1 else ''} {listed}"
                       if missing else ""), UNVERIFIED if missing else
                    TRUSTED if ctx.gamma is not None else VERIFIED)
        if missing:
            cert.no_bound(f"no binary bound for the one-vs-rest problem of class"
                          f"{'es' if len(missing) > 1 else ''} {listed}")
            return
        cert.set_bound("one-vs-rest: sum of kernel Perceptron R2/gamma_k^2", B.ovr_bound(bounds),
                       "Kakade lecture 9 (kernelized Perceptron), for each class")
        return
    n = np.shape(ctx.X)[0]
    cert.assume("the multi-class kernel Perceptron starts with no support vector (a fresh "
                "learner)", VERIFIED)
    if ctx.gamma is not None:
        g = B._positive("certify", "gamma", ctx.gamma)
        R2 = float(np.max(_gram_diag(L, ctx.X)))
        cert.assume("some U of unit norm in feature space has multi-class margin gamma (given)",
                    TRUSTED)
    elif n * (K - 1) > _KESLER_MAX:
        cert.no_bound(f"{n} examples x {K - 1} rivals are too many Kesler vectors for the Gram "
                      f"matrix (at most {_KESLER_MAX}): give "
                      + spell("gamma", "--margin GAMMA (a multi-class margin in feature space, "
                              "trusted)"))
        return
    else:
        G = _gram(L, ctx.X)
        R2 = float(np.max(np.diag(G)))
        T, E = _kesler_pairs(ctx, n, K)
        r = B.best_margin(None, np.ones(T.shape[0]), tol=ctx.tol, max_iter=ctx.max_iter,
                          gram=(E @ E.T) * G[np.ix_(T, T)])
        g = r.gamma
        cert.quantities["gamma_upper"] = r.upper
        if not r.separable:
            cert.quantities["gamma"] = g
            cert.assume("the classes are separable in the kernel's feature space (multi-class "
                        "margin > 0)", VIOLATED if r.upper <= 0 else UNVERIFIED)
            cert.no_bound("no multi-class margin established in the kernel's feature space")
            return
        cert.assume("a U of unit norm in feature space (found by best_margin on the Kesler "
                    "vectors) has multi-class margin gamma > 0", VERIFIED)
    cert.quantities.update(R2=R2, gamma=g)
    cert.set_bound("multi-class kernel Perceptron 2R2/gamma^2 (Kesler)",
                   B.multiclass_perceptron_bound(math.sqrt(R2), g),
                   "Kesler's construction (Duda & Hart 1973); Kakade lecture 9")


# -- Winnow ---------------------------------------------------------------------------------------

def _boolean_view(owner, X):
    """(rows, n, d) for 0/1 examples (dense or CSR), or None when some value is not 0/1."""
    rows = B._rows(owner, X)
    part = rows[2]
    values = part[0] if isinstance(part, tuple) else part
    if not np.isin(values, (0.0, 1.0)).all():
        return None
    return rows


def _column_counts(rows, select):
    """For each variable, the number of selected rows in which it is 1."""
    n, d, part = rows
    if isinstance(part, tuple):
        data, indices, indptr = part
        sel = np.repeat(select, np.diff(indptr))
        return np.bincount(indices[sel], weights=data[sel], minlength=d)
    return part[select].sum(axis=0)


def _rows_hit(rows, variables):
    """For each row, how many of the given variables are 1."""
    on = np.zeros(rows[1])
    on[list(variables)] = 1.0
    return np.rint(B._row_dots(rows, on)).astype(np.int64)


def _greedy_disjunction(rows, pos, agnostic):
    """A monotone disjunction with a small bound: consistent and few variables (greedy set
    cover of the positives by variables that are 0 on every negative), or, when ``agnostic``,
    one that greedily lowers A_c + k(1 + log2 n).  Returns the sorted variables."""
    n, d, _ = rows
    neg_hits = _column_counts(rows, ~pos)
    price = 1.0 + math.log2(d) if agnostic else 0.0
    chosen = []
    uncovered = pos.copy()
    while uncovered.any():
        gain = _column_counts(rows, uncovered) - (neg_hits if agnostic else
                                                  np.where(neg_hits > 0, np.inf, 0.0))
        j = int(np.argmax(gain))
        if not gain[j] > price:
            break
        chosen.append(j)
        uncovered &= _rows_hit(rows, [j]) == 0
    return sorted(chosen)


def _disjunction_target(cert, ctx, rows, exact):
    """(k, A_c) for the Winnow bounds, from the given target or a greedy search."""
    pos = ctx.positive()
    if ctx.target is not None:
        t, how = sorted(set(int(v) for v in ctx.target)), "given"
    else:
        t, how = _greedy_disjunction(rows, pos, agnostic=not exact), "found greedily"
    X01 = _CSR(*rows[2], rows[:2]) if isinstance(rows[2], tuple) else rows[2]
    a = B.attribute_errors(X01, pos.astype(np.int8), t) * ctx.passes
    cert.quantities.update(k=len(t), n=rows[1], target=t, A_c=a)
    if exact:
        cert.assume(f"the monotone disjunction of the {len(t)} variables ({how}) labels every "
                    "example", VERIFIED if a == 0 else VIOLATED)
    else:
        cert.assume(f"c = the monotone disjunction of the {len(t)} variables ({how}); A_c "
                    "counted on the data", VERIFIED)
    return len(t), a


def _winnow_family(cert, ctx, bound):
    """The binary bounds of the Winnow family (``bound``: the name the class declares), proved
    for the parameter values its class declares (``_BOUND_PARAMS``)."""
    L = ctx.L
    name = type(L).__name__
    p = L.get_params()
    defaults = L._BOUND_PARAMS
    changed = [k for k, v in defaults.items() if p[k] != v and not (
        k == "beta" and p[k] is not None and float(p[k]) == 1.0 / float(p["alpha"]))]
    if changed:
        cert.no_bound(f"the bound is proved for the default {', '.join(changed)} only")
        return
    rows = _boolean_view("certify", _winnow_X(ctx))
    if rows is None:
        cert.no_bound("the bound needs 0/1 examples as a dense or CSR matrix")
        return
    cert.assume(f"{name} runs with its defaults on 0/1 examples", VERIFIED)
    n = rows[1]
    if bound == "winnow":
        k, a = _disjunction_target(cert, ctx, rows, exact=False)
        cert.set_bound("Winnow2, agnostic (Littlestone)", B.winnow_bound(k, n, a),
                       "Angluin lectures 18-19")
    elif bound == "elimination winnow":
        k, _ = _disjunction_target(cert, ctx, rows, exact=True)
        cert.set_bound("elimination Winnow 2k log2 n + 2", B.elimination_winnow_bound(k, n),
                       "Kanade Thm 12")
    else:
        k, _ = _disjunction_target(cert, ctx, rows, exact=True)
        cert.quantities["C_a"] = k
        cert.set_bound("Winnow* with a fixed target (C_a = k)", B.winnow_star_bound(n, k),
                       "Angluin lecture 19")


# -- the Winnow family with K >= 3 classes --------------------------------------------------------

def _multiclass_winnow_family(cert, ctx):
    name = type(ctx.L).__name__
    K = len(ctx.L.classes_)
    cert.quantities["K"] = K
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr_winnow(cert, ctx, name, K)
    elif ctx.L._BOUND == "winnow":            # Mesterharm's bound is for Winnow's own rule
        _multiclass_winnow(cert, ctx, K)
    else:
        cert.no_bound(f"no mistake bound is proved for the {name} rule with K = {K} classes "
                      "(multi_class='multiclass')")


def _ovr_winnow(cert, ctx, name, K):
    """One-vs-rest: learner k is the binary learner on y == classes_[k]; each binary problem
    is certified by the binary rule, and the multi-class count is at most the sum of the binary
    counts (mbcore.bounds.ovr_bound)."""
    cl = np.asarray(ctx.L.classes_)
    binary = _RULES.get(ctx.L._BOUND)
    if binary is None:
        cert.no_bound(f"the notes give no mistake bound for {name}, so none for its K = {K} "
                      "one-vs-rest problems")
        return
    targets = None
    if ctx.target is not None:
        targets = list(ctx.target)
        if len(targets) != K or not all(np.ndim(t) == 1 for t in targets):
            raise ValueError(f"certify: with multi_class='ovr' and {K} classes, target must be "
                             f"{K} sequences of variables, one monotone disjunction per class "
                             "of classes_")
    bounds, missing, reasons, names, sources = [], [], [], set(), set()
    per_class = {}
    common = None
    for k in range(K):
        sub = Certificate(name, cert.run, 0.0)
        sctx = copy.copy(ctx)
        sctx.positive_label = cl[k]
        sctx.target = None if targets is None else targets[k]
        binary(sub, sctx)
        for key, value in sub.quantities.items():
            if key in ("n",):
                cert.quantities[key] = value
            else:
                per_class.setdefault(key, []).append(value)
        if sub.bound is None and not sub.assumptions:      # the parameters rule the bound out
            cert.no_bound(sub.reason)
            return
        common = sub.assumptions[0]
        if sub.bound is not None and all(st == VERIFIED for _, st in sub.assumptions):
            bounds.append(sub.bound)
            names.add(sub.bound_name)
            sources.add(sub.source)
        else:
            missing.append(str(cl[k]))
            reasons.append(f"class {cl[k]}: " + (sub.reason or "; ".join(
                f"{t} [{st}]" for t, st in sub.assumptions if st != VERIFIED)))
    cert.quantities.update({f"{key} per class": v for key, v in per_class.items()})
    cert.assume(common[0], common[1])
    many = "es" if len(missing) > 1 else ""
    listed = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
    cert.assume("each class against the rest has its binary bound (a monotone disjunction "
                + ("given" if targets is not None else "found greedily") + " per class)"
                + (f"; not for class{many} {listed}" if missing else ""),
                # (an agnostic binary bound is never violated, only unverified)
                VERIFIED if not missing else VIOLATED if ctx.L._BOUND != "winnow" else
                UNVERIFIED)
    if missing:
        cert.no_bound(f"no verified binary bound for the one-vs-rest problem of class{many} "
                      f"{listed} (first, {reasons[0]})")
        return
    cert.quantities["bounds per class"] = bounds
    cert.set_bound(f"one-vs-rest: sum of {' / '.join(sorted(names))}", B.ovr_bound(bounds),
                   f"{' / '.join(sorted(sources))}, for each class")


def _multiclass_winnow(cert, ctx, K):
    """Mesterharm's multi-class Winnow (beta = 1/alpha, x in [0, 1]): a nonnegative target M
    (K x n, sum 1) with margin delta gives ln(n K) / (delta ln alpha - ln((alpha + 1/alpha)/2))."""
    L = ctx.L
    alpha = float(L.alpha)
    if L.beta is not None and float(L.beta) != 1.0 / alpha:
        cert.no_bound("the multi-class Winnow bound is proved for beta = 1/alpha only")
        return
    rows = B._rows("certify", _winnow_X(ctx))
    n = rows[1]
    part = rows[2]
    values = part[0] if isinstance(part, tuple) else part
    if not ((values >= 0.0) & (values <= 1.0)).all():
        cert.no_bound("the multi-class Winnow bound needs examples in [0, 1]^n")
        return
    cert.assume("Winnow (multi-class) with beta = 1/alpha, all weights starting equal (a fresh "
                "learner), on examples in [0, 1]^n", VERIFIED)
    cl, codes = _class_codes(ctx)
    loss = math.log((alpha + 1.0 / alpha) / 2.0)
    need = loss / math.log(alpha)
    cert.quantities.update(n=n, alpha=alpha)
    X01 = _CSR(*part, rows[:2]) if isinstance(part, tuple) else part
    if ctx.target is not None:
        M = np.asarray(ctx.target, dtype=np.float64)
        if M.shape != (K, n):
            raise ValueError(f"certify: with {K} classes, target must be a nonnegative ({K}, {n}) "
                             f"matrix (one row per class of classes_) for multi-class Winnow, "
                             f"got shape {M.shape}")
        delta = B.multiclass_winnow_margin(X01, ctx.y, M, cl)
        cert.quantities["delta"] = delta
        st = cert.assume("the given target M (nonnegative, scaled to sum 1) labels every example "
                         "with margin delta > 0", VERIFIED if delta > 0 else VIOLATED)
        if st != VERIFIED:
            cert.no_bound(f"the given target does not label the examples with a positive margin "
                          f"(delta = {delta:.3g})")
            return
        how, fail = "given", VIOLATED
    else:
        active = (values != 0.0)
        if isinstance(part, tuple):
            data, indices, indptr = part
            row_of = np.repeat(np.arange(rows[0]), np.diff(indptr))
            on = active
            seen = np.zeros((K, n), dtype=bool)
            seen[codes[row_of[on]], indices[on]] = True
        else:
            seen = np.zeros((K, n), dtype=bool)
            for k in range(K):
                seen[k] = active[codes == k].any(axis=0)
        others = seen.sum(axis=0)
        own = seen & (others == 1)[None, :]               # active in class k's rows only
        M = own.astype(np.float64)
        hits = np.zeros(rows[0])
        for k in range(K):
            sel = codes == k
            if own[k].any() and sel.any():
                hits[sel] = B._row_dots(rows, M[k])[sel]
        bare = np.unique(cl[codes[hits <= 0.0]])
        cert.quantities["own features per class"] = own.sum(axis=1).tolist()
        if bare.size:
            names = ", ".join(map(str, bare[:8].tolist())) + (", ..." if bare.size > 8 else "")
            cert.assume("a target M: every example has a feature of its own class active "
                        "(features active in one class's rows only)", UNVERIFIED)
            cert.no_bound(f"no target found: examples of class{'es' if bare.size > 1 else ''} "
                          f"{names} have no feature of their own class active; give target= (a "
                          f"nonnegative ({K}, {n}) matrix)")
            return
        delta = B.multiclass_winnow_margin(X01, ctx.y, M, cl)
        cert.quantities["delta"] = delta
        cert.assume("the target M with equal mass on every class's own features (those active "
                    "in that class's rows only) labels every example with margin delta > 0",
                    VERIFIED if delta > 0 else UNVERIFIED)
        how, fail = "found", UNVERIFIED
    cert.quantities["delta needed"] = need
    if not delta * math.log(alpha) - loss > 0.0:
        cert.assume(f"delta ln(alpha) > ln((alpha + 1/alpha)/2), i.e. delta > {need:.4g} for "
                    f"alpha = {alpha:g} (target {how})", fail)
        better = (f"; alpha = sqrt((1 + delta)/(1 - delta)) = "
                  f"{math.sqrt((1 + delta) / (1 - delta)):.4g} would suit delta = {delta:.4g}"
                  if delta < 1.0 else "")
        cert.no_bound(f"the margin of the target {how} (delta = {delta:.4g}) is too small for "
                      f"alpha = {alpha:g}: the bound needs delta > {need:.4g}{better}")
        return
    cert.set_bound("multi-class Winnow ln(nK)/(delta ln alpha - ln((alpha + 1/alpha)/2))",
                   B.multiclass_winnow_bound(n, K, delta, alpha),
                   "Mesterharm 1999, Theorems 1-2 (relative entropy)")


def _winnow_X(ctx):
    """X as the Winnow learner reads it: with its parameter n_features set, lists of active
    indices (``is_index_lists``) become CSR rows through the learner's own input check; any
    other X as it is."""
    L = ctx.L
    if L.n_features is None or not is_index_lists(ctx.X):
        return ctx.X
    b = L._check_X(ctx.X, None)
    return _CSR(b.data, b.indices, b.indptr, (b.n, b.d))


# -- experts --------------------------------------------------------------------------------------

def _advice(ctx):
    """(P, wrong) for an advice matrix: wrong[t, i] = expert i was wrong in round t."""
    P = np.asarray(ctx.X)
    y = np.asarray(ctx.y)
    return P, P != y[:, None]


def _weighted_majority(cert, ctx):
    L = ctx.L
    beta = float(L.beta)
    if L.experts is not None:
        m = L.expert_mistakes_
        cert.assume("the experts' mistakes are those the pool recorded", VERIFIED)
    else:
        _, wrong = _advice(ctx)
        m = wrong.sum(axis=0) * ctx.passes
        cert.assume("the best expert's mistakes counted on the advice matrix", VERIFIED)
    best = int(np.min(m))
    n = int(len(m))
    cert.quantities.update(m_best=best, n=n, beta=beta)
    cert.set_bound("Weighted Majority", B.weighted_majority_bound(best, n, beta),
                   "Angluin lecture 20")


def _expected_mistakes(wrong, beta, passes):
    """E[mistakes] of randomized WM: the weights do not depend on its draws, so the expected
    count is the sum over rounds of the wrong experts' weight share."""
    lb = math.log(beta)
    before = np.zeros(wrong.shape[1])
    total = 0.0
    for _ in range(passes):
        for a in range(0, wrong.shape[0], 4096):
            w = wrong[a:a + 4096]
            c = before + np.cumsum(w, axis=0) - w               # mistakes before each round
            logw = c * lb
            logw -= logw.max(axis=1, keepdims=True)
            e = np.exp(logw)
            total += float(((e * w).sum(axis=1) / e.sum(axis=1)).sum())
            before = before + w.sum(axis=0)
    return total


def _randomized_wm(cert, ctx):
    L = ctx.L
    beta = float(L.beta)
    if L.experts is not None:
        cert.no_bound("with a pool of learners the experts' advice is not known in advance; "
                      "the bound is on the expected count, which needs it")
        return
    _, wrong = _advice(ctx)
    m = wrong.sum(axis=0) * ctx.passes
    best, n = int(m.min()), wrong.shape[1]
    cert.quantities.update(m_best=best, n=n, beta=beta, realized_mistakes=cert.run.mistakes)
    cert.observed = _expected_mistakes(wrong, beta, ctx.passes)
    cert.counted = "expected mistakes"
    cert.assume("the best expert's mistakes counted on the advice matrix", VERIFIED)
    cert.set_bound("randomized Weighted Majority (expected)", B.randomized_wm_bound(best, n, beta),
                   "Littlestone & Warmuth 1994; Angluin lecture 20")


def _specialists(cert, ctx):
    L = ctx.L
    d, p = float(L.demote), float(L.promote)
    if not (d < 1.0 < p and d + p <= 2.0):
        cert.no_bound("the bound needs demote < 1 < promote and demote + promote <= 2")
        return
    P, wrong = _advice(ctx)
    awake = ctx.fit_params.get("awake")
    awake = np.ones(P.shape, dtype=bool) if awake is None else np.asarray(awake).astype(bool)
    perfect = ~(awake & wrong).any(axis=0)
    cover = awake[:, perfect]
    ids = np.flatnonzero(perfect)
    uncovered = np.ones(P.shape[0], dtype=bool)
    chosen = []
    while uncovered.any():
        hits = cover[uncovered].sum(axis=0)
        j = int(np.argmax(hits)) if hits.size else 0
        if not hits.size or hits[j] == 0:
            break
        chosen.append(int(ids[j]))
        uncovered &= ~cover[:, j]
    r, n = len(chosen), P.shape[1]
    cert.quantities.update(r=r, n=n, promote=p, demote=d, perfect=chosen)
    cert.assume("r specialists never vote wrongly and one of them is awake in every round",
                VERIFIED if not uncovered.any() else VIOLATED)
    cert.set_bound("Specialists r log n / log promote", B.specialists_bound(r, n, p, d),
                   "Blum 1997; Angluin lecture 20")


# -- Boolean learners and version spaces ----------------------------------------------------------

def _bool_matrix(ctx):
    from .boolean import boolean_rows, unpack_rows
    L = ctx.L
    if getattr(L, "packed", False):
        return unpack_rows("certify", ctx.X, L.n_features_in_)
    return boolean_rows("certify", ctx.X, None)


def _conjunction(cert, ctx):
    from .boolean import most_specific_conjunction
    A = _bool_matrix(ctx)
    c = most_specific_conjunction(A, ctx.positive().astype(np.int8), classes=[0, 1])
    n = A.shape[1]
    cert.quantities.update(n=n, most_specific=c.literals_)
    cert.assume("some conjunction labels every example (the most specific one is consistent)",
                VIOLATED if c.inconsistent_ else VERIFIED)
    cert.set_bound("conjunction elimination n + 1", B.conjunction_bound(n),
                   "Balcan lecture 3, section 2.1; Kanade Thm 1")


def _disjunction(cert, ctx):
    A = _bool_matrix(ctx)
    pos = ctx.positive()
    lits = A if ctx.L.literals == "monotone" else np.hstack([A, 1 - A])
    allowed = ~lits[~pos].any(axis=0)                     # literals false on every negative
    covered = lits[pos][:, allowed].any(axis=1).all() if pos.any() else True
    r, n = int(allowed.sum()), A.shape[1]
    cert.quantities.update(n=n, r=r)
    cert.assume(f"the disjunction of the {r} literals false on every negative labels every "
                "positive", VERIFIED if covered else VIOLATED)
    cert.set_bound("disjunction elimination", B.disjunction_bound(n, r, ctx.L.literals),
                   "Angluin lecture 18")


def _decision_list(cert, ctx):
    from .boolean import greedy_decision_list
    A = _bool_matrix(ctx)
    dl = greedy_decision_list(A, ctx.positive().astype(np.int8), classes=[0, 1])
    n = A.shape[1]
    if not dl.consistent_:
        # stuck: the last rule is the default it ended with, not a rule it could build
        built = len(dl.rules_) - 1
        left = np.ones(A.shape[0], dtype=bool)          # the examples no rule built covers
        for name, _ in dl.rules_[:-1]:
            left &= A[:, int(name.lstrip("~x"))] == (1 if name.startswith("~") else 0)
        rules = f"{built} rule{'' if built == 1 else 's'}"
        cert.quantities.update(n=n, rules_built=built, uncovered=int(left.sum()))
        cert.assume(f"some 1-decision list labels every example (the greedy construction "
                    f"stopped after {rules}, with {int(left.sum())} examples of both labels "
                    "uncovered and no literal true on examples of one label only among them)",
                    VIOLATED)
        cert.no_bound(f"no 1-decision list labels these examples: the greedy construction "
                      f"stopped after {rules}, {int(left.sum())} examples left uncovered")
        return
    L_ = len(dl.rules_)
    cert.quantities.update(n=n, L=L_)
    cert.assume(f"a 1-decision list of length {L_} (greedy) labels every example", VERIFIED)
    cert.set_bound("decision lists (4n + 2)(L + 1)", B.decision_list_bound(n, L_),
                   "Balcan lecture 3, section 2.2")


def _consistent_concepts(C, X, pos):
    """How many concepts of C agree with every label (bitset AND over the examples' columns)."""
    idx = C._indices("certify", X)
    cols = C._cols
    full = np.zeros(cols.shape[1], dtype=np.uint64)
    full[:] = np.uint64(0xFFFFFFFFFFFFFFFF)
    tail = C.n_concepts % 64
    if tail:
        full[-1] = np.uint64((1 << tail) - 1)
    alive = full.copy()
    for sel, flip in ((idx[pos], False), (idx[~pos], True)):
        if sel.size:
            block = cols[np.unique(sel)]
            if flip:
                block = ~block & full
            alive &= np.bitwise_and.reduce(block, axis=0)
    return int(np.bitwise_count(alive).sum()) if hasattr(np, "bitwise_count") else \
        int(sum(bin(int(w)).count("1") for w in alive))


def _finite_class(cert, ctx, soa):
    C = ctx.L.concepts
    consistent = _consistent_concepts(C, ctx.X, ctx.positive())
    cert.quantities.update(size=C.n_concepts, consistent=consistent)
    cert.assume("some concept of the class labels every example",
                VERIFIED if consistent else VIOLATED)
    if soa:
        from .version_space import littlestone_dimension
        try:
            d = littlestone_dimension(C)
        except ValueError:
            cert.quantities["Ldim <= floor(log2 |C|)"] = B.halving_bound(C.n_concepts)
            cert.set_bound("SOA <= Ldim <= floor(log2 |C|)", B.halving_bound(C.n_concepts),
                           "Littlestone 1988; Angluin lecture 25")
            return
        cert.quantities["Ldim"] = d
        cert.set_bound("SOA Ldim(C)", d, "Littlestone 1988; Angluin lecture 25")
    else:
        cert.set_bound("Halving floor(log2 |C|)", B.halving_bound(C.n_concepts),
                       "Kanade Thm 8; Angluin lecture 25")


# The bounds by the names the classes declare (_BOUND, _MULTI_BOUND; mbcore._registry).
_RULES = {
    "margin": _margin,
    "perceptron": lambda c, x: _margin(c, x, td=True),
    "margin perceptron": _margin_perceptron,
    "kernel perceptron": _kernel_perceptron,
    "winnow": lambda c, x: _winnow_family(c, x, "winnow"),
    "elimination winnow": lambda c, x: _winnow_family(c, x, "elimination winnow"),
    "winnow*": lambda c, x: _winnow_family(c, x, "winnow*"),
    "weighted majority": _weighted_majority,
    "randomized weighted majority": _randomized_wm,
    "specialists": _specialists,
    "conjunction": _conjunction,
    "disjunction": _disjunction,
    "decision list": _decision_list,
    "halving": lambda c, x: _finite_class(c, x, False),
    "soa": lambda c, x: _finite_class(c, x, True),
    # K >= 3 classes
    "multiclass": _multiclass,
    "multiclass margin perceptron": _multiclass_margin,
    "multiclass kernel": _multiclass_kernel,
    "multiclass winnow": _multiclass_winnow_family,
}
