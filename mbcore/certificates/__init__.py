"""Certificates: run a learner and check its mistakes against the bound that applies.

``certify(learner, X, y)`` runs a fresh copy of the learner (its parameters, no state) over the
examples, finds the theorem of the notes that covers it, computes the
quantities the theorem needs from the data (radius, margin, attribute errors, the best expert's
mistakes, a consistent target ...), and returns a :class:`Certificate`.  Each assumption is
marked *verified* (checked on these data), *trusted* (a value the caller supplied that cannot be
checked here), *unverified* (could not be established either way) or *violated* (the data break
it, so the theorem says nothing).  A run that exceeds a bound whose assumptions were all verified
is a bug in mbcore, and :func:`certify` raises :class:`BoundViolationError` saying so.

The rules live with their family (``additive``, ``winnow``, ``experts``, ``finite``: Boolean
learners and version spaces; ``second_order``: AROW, the second-order Perceptron, ALMA; ``budget``: the Forgetron and the
Projectrons) and
register themselves, by the bound names the classes declare, with the decorator
``rule(name, k_classes=...)``; the margin searches they run are those of :mod:`mbcore.margins`.
What they share (``Certificate``, ``BoundViolationError``, the statuses, the context a rule
reads, the registry) is defined in the private ``_core`` and exported here, so that no family
module imports this package's ``__init__``, which imports them all (no import cycle, even
counting the package's ``__init__`` as a module).
"""

import numpy as np

from .. import _params as params
from ..base import clone
from ..online import OnlineRun, run_online
from ._core import (TRUSTED, UNVERIFIED, VERIFIED, VIOLATED, BoundViolationError, Certificate,
                    Context, Rule, find_rule, n_classes, rule)
from ._core import _RULES  # noqa: F401  (the registry, by bound name)
# the families' rules, registered as their modules are imported
from . import additive, budget, experts, finite, second_order, winnow  # noqa: F401
from .. import _tags

if set(_RULES) != set(_tags.BOUNDS):      # a bound a class may declare has a rule, and back
    raise RuntimeError(f"mbcore.certificates: the rules {sorted(_RULES)} are not the bound "
                       f"names of mbcore._tags.BOUNDS {sorted(_tags.BOUNDS)}")

__all__ = ["certify", "Certificate", "BoundViolationError", "rule", "Rule", "find_rule",
           "VERIFIED", "TRUSTED", "UNVERIFIED", "VIOLATED"]


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
        margin is checked (:func:`mbcore.margins.multiclass_margin`), for ``"ovr"`` row k is the
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
        (:func:`mbcore.margins.multiclass_winnow_margin`) is checked on the data; by default
        one is searched for (equal mass on every class's own features: those active in the
        rows of that class only).
    tol, max_iter : float, int, default=1e-3, 10000
        The margin search's: passed to :func:`mbcore.margins.best_margin` (the bracket's
        relative width and its steps); both also stop the Perceptron the search falls back on
        without SciPy (see Notes).
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
    gamma.  First pairwise Frank-Wolfe (:func:`mbcore.margins.best_margin`); when it stops
    before its bracket closes, and SciPy is installed, the linear program
    max t s.t. y_t u . x_t >= t, -1 <= u_j <= 1, t <= 1, solved by SciPy's HiGHS (its
    interior-point method): its optimum is positive exactly when the rows are separable, so
    wherever they are (up to HiGHS's tolerances, about 1e-7 on rows scaled to entries in
    [-1, 1]) a separator is found.  Without SciPy, when Frank-Wolfe found no positive margin,
    a Perceptron cycled over the rows until a clean pass, which comes on separable data (after
    at most (R/gamma*)^2 updates), or until its own certificate (gamma* <= ||w||/M after M
    updates) puts the best margin below ``tol`` times the upper end, or after 1/tol^2 updates
    (when its bound says it would have converged on a margin of at least tol R), or at most
    ``max_iter`` x n_samples updates; the certificate says which stopped it
    (:func:`mbcore.margins.search_margin`).  Whatever proposes u, its margin is
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

    With K >= 3 classes, for the learners whose ``multi_bound`` tag is ``"multiclass"`` or
    ``"multiclass margin perceptron"`` (see :func:`mbcore.all_learners`), the multi-class
    bounds apply: for ``multi_class="multiclass"``, Kesler's 2 R^2 / gamma^2 on the mistakes
    (24 / gamma^2 on the Margin Perceptron's updates), with a separator U searched for when
    none is given (the best margin of the Kesler vectors on small data; else the larger margin
    of the weights of a fresh learner fitted to the data and of the best one-vs-rest
    separators stacked); for ``"ovr"``, the sum of the K binary bounds of the
    one-vs-rest problems (:func:`mbcore.bounds.ovr_bound`).  A learner whose tag is None has
    no bound.
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
    # a learner with a certificate of its own (mbcore.SelectiveSampler: a bound on the
    # expected mistakes) makes it through its hook _certificate()
    own = getattr(learner, "_certificate", None)
    if own is not None:
        return own(X, y, classes=classes, passes=passes, u=u, gamma=gamma, tol=tol,
                   max_iter=max_iter, **fit_params)
    passes = params.integer("certify", "passes", passes, 1)
    fresh = clone(learner)
    runs = [run_online(fresh, X, y, classes, **fit_params)]
    for _ in range(passes - 1):
        runs.append(run_online(fresh, X, y, None, **fit_params))
    # a wrapper (mbcore.queries.Conservative: Kanade Prop. 3) may keep the wrapped learner's
    # bound, whose quantities on the whole sequence bound those on the examples passed on (a
    # subsequence): it says so through its hook _wrapped_learner()
    hook = getattr(fresh, "_wrapped_learner", None)
    inner, why = hook() if hook is not None else (fresh, None)
    run = OnlineRun.concatenate(runs)
    # the bound the class declares (its bound tag; with K >= 3 classes its multi_bound tag,
    # never the binary one: a bound that holds for any number of labels is in both)
    multi = n_classes(inner) >= 3
    found = find_rule(inner._TAGS.multi_bound if multi else inner._TAGS.bound, k_classes=multi)
    counted = inner._TAGS.bound_counts
    cert = Certificate(type(learner).__name__, run,
                       run.updates if counted == "updates" else run.mistakes, counted)
    ctx = Context(fresh, inner, X, y, fit_params, passes, u, gamma, target, tol, max_iter)
    if why is not None:
        cert.assume(why, VERIFIED)
    if found is None:      # (the class's no_bound tag says why, where its paper states one)
        cert.no_bound(inner._TAGS.no_bound or
                      f"the notes give no mistake bound for {type(inner).__name__}")
    else:
        found.check(cert, ctx)
    if any(s == VIOLATED for _, s in cert.assumptions) and cert.bound is not None:
        cert.alternatives.append((cert.bound_name + " (void)", cert.bound))
        cert.no_bound("an assumption of " + cert.bound_name + " is violated on these data")
    if cert.bound is not None and cert.verified and not cert.holds:
        raise BoundViolationError(cert)
    return cert
