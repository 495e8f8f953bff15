"""Mistake bounds as functions: one theorem each, of every family (additive, multiplicative,
experts, Boolean, finite classes, the conversions and the query learners).

Every bound here is a theorem with assumptions; each docstring states them, and a run that
satisfies them and exceeds the bound is a bug in the learner.  The module holds the theorems
only, and imports nothing of mbcore but its parameter checks (``mbcore._params``): the data
quantities a bound is computed from (the radius, the margins, the total distance, the
attribute errors, the best margin) are in :mod:`mbcore.margins`, re-exported here under their
old names, and :func:`mbcore.certify` checks a run against the bound that applies.  Most of
the module is prose: the assumptions, the sources and the examples of each theorem.

Conventions: R is the radius of the data (the largest norm of a row, :func:`mbcore.margins.radius`);
gamma a margin of a unit separator (:func:`mbcore.margins.margin`); labels are -1/+1.

Examples
--------
>>> import numpy as np
>>> from mbcore.margins import margin, radius
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

from . import _params as params
from ._params import mistake_bound as _budget
# the data quantities, at home in mbcore.margins: re-exported here for the old imports
from .margins import (BestMargin, attribute_errors, best_margin, margin,  # noqa: F401
                      multiclass_margin, multiclass_winnow_margin, radius, total_distance)
# the bounds of the learners beyond the notes (second-order, ALMA, selective sampling)
from ._bounds_beyond import (alma_bound, arow_bound, forgetron_bound,  # noqa: F401
                             forgetron_norm_cap, projectron_bound,
                             second_order_perceptron_bound, selective_sampling_bound)

for _f in (alma_bound, arow_bound, second_order_perceptron_bound, selective_sampling_bound,
           forgetron_bound, forgetron_norm_cap, projectron_bound):
    _f.__module__ = __name__        # documented, and doctested, as functions of this module
del _f

__all__ = ["radius", "margin", "total_distance", "best_margin", "BestMargin", "attribute_errors",
           "perceptron_bound", "margin_perceptron_bound", "td_bound", "kernel_perceptron_bound",
           "multiclass_margin", "multiclass_perceptron_bound",
           "multiclass_margin_perceptron_bound", "ovr_bound", "arow_bound",
           "selective_sampling_bound", "forgetron_bound", "forgetron_norm_cap",
           "projectron_bound", "second_order_perceptron_bound", "alma_bound", "multiclass_winnow_margin",
           "multiclass_winnow_bound", "winnow_bound", "elimination_winnow_bound",
           "winnow_star_bound", "weighted_majority_bound", "randomized_wm_bound",
           "specialists_bound", "halving_bound", "soa_bound", "conjunction_bound",
           "disjunction_bound", "decision_list_bound", "equivalence_query_bound",
           "online_to_pac_run_length", "online_to_pac_sample_size", "eq_test_sample_size",
           "passive_aggressive_bound", "weighted_perceptron_bound", "edge_detecting_bound",
           "group_testing_bound", "lstar_equivalence_bound", "lstar_membership_bound"]


# -- bounds ---------------------------------------------------------------------------------------

def perceptron_bound(R, gamma, u_norm=1.0) -> float:
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
    r = params.nonnegative("perceptron_bound", "R", R)
    g = params.positive("perceptron_bound", "gamma", gamma)
    n = params.positive("perceptron_bound", "u_norm", u_norm)
    return (n * r / g) ** 2


def weighted_perceptron_bound(R, gamma, s_min, s_max, u_norm=1.0) -> float:
    """A mistake bound for the Perceptron with sample weights (``sample_weight``): the number
    of mistakes on rows of positive weight is at most
    ``(u_norm R / gamma)^2 (s_max / s_min)^2``.

    The notes give no weighted form of the Perceptron; this is Novikoff's argument carried
    through with the weights, proved here.  The rule: w = 0; on a mistake on row t of weight
    s_t > 0, ``w += eta s_t y_t x_t`` (a row of weight 0 never updates: its mistakes are not
    bounded at all, and are not counted here).  Assumptions: every row of positive weight has
    ``||x_t|| <= R`` and ``s_min <= s_t <= s_max`` (``0 < s_min``), and some u with
    ``||u|| = u_norm`` has ``y_t u . x_t >= gamma > 0`` on every such row.

    Proof.  Let the k-th update be on row t(k) and S_k = s_t(1) + ... + s_t(k).  Each update adds
    ``eta s_t y_t u . x_t >= eta s_t gamma`` to u . w, so u . w_k >= eta gamma S_k; and since a
    mistake has ``y_t w . x_t <= 0``, ``||w_{k+1}||^2 <= ||w_k||^2 + eta^2 s_t^2 R^2``, so
    ``||w_k||^2 <= eta^2 R^2 Q_k`` with Q_k the sum of the s_t^2.  Cauchy-Schwarz,
    ``u . w_k <= u_norm ||w_k||``, gives ``gamma^2 S_k^2 <= u_norm^2 R^2 Q_k``.  With
    ``S_k >= k s_min`` and ``Q_k <= k s_max^2``: ``k <= (u_norm R / gamma)^2 (s_max/s_min)^2``.
    (The same lines give the weighted form ``S_k <= s_max (u_norm R / gamma)^2``, as
    ``Q_k <= s_max S_k``.)  With every weight equal it is :func:`perceptron_bound`.

    Parameters
    ----------
    R, gamma, u_norm : float
        As for :func:`perceptron_bound`, over the rows of positive weight.
    s_min, s_max : float
        The smallest and the largest positive weight, ``0 < s_min <= s_max``.

    Returns
    -------
    float
        The bound on the number of mistakes on rows of positive weight (``updates_`` of a
        Perceptron run).

    Raises
    ------
    ValueError
        If ``gamma <= 0``, ``R < 0``, ``u_norm <= 0``, ``s_min <= 0``, ``s_max < s_min``, or a
        value is not a finite real.

    Examples
    --------
    >>> from mbcore.bounds import weighted_perceptron_bound
    >>> weighted_perceptron_bound(1.0, 0.5, 1.0, 1.0)      # equal weights: (R/gamma)^2
    4.0
    >>> weighted_perceptron_bound(1.0, 0.5, 0.5, 2.0)
    64.0
    """
    r = params.nonnegative("weighted_perceptron_bound", "R", R)
    g = params.positive("weighted_perceptron_bound", "gamma", gamma)
    n = params.positive("weighted_perceptron_bound", "u_norm", u_norm)
    lo = params.positive("weighted_perceptron_bound", "s_min", s_min)
    hi = params.positive("weighted_perceptron_bound", "s_max", s_max)
    if hi < lo:
        raise ValueError(f"weighted_perceptron_bound: s_max must be >= s_min, got s_max={s_max!r}, "
                         f"s_min={s_min!r}")
    return (n * r / g) ** 2 * (hi / lo) ** 2


_PA_VARIANTS = ("PA", "PA-I", "PA-II")


def passive_aggressive_bound(R, u_norm, variant="PA-I", C=1.0, loss=0.0) -> float:
    """The mistake bounds of the Passive-Aggressive algorithms PA, PA-I and PA-II (Crammer,
    Dekel, Keshet, Shalev-Shwartz & Singer 2006, "Online Passive-Aggressive Algorithms", JMLR 7).

    The rules: predict sign(w . x); with the hinge loss l_t = max{0, 1 - y_t w . x_t}, update
    ``w += tau_t y_t x_t`` with ``tau_t = l_t / ||x_t||^2`` (PA), ``min(C, l_t / ||x_t||^2)``
    (PA-I) or ``l_t / (||x_t||^2 + 1/(2C))`` (PA-II), from w = 0.  A mistake has l_t >= 1.
    Against any vector u, with l*_t = max{0, 1 - y_t u . x_t} its hinge loss on the same
    examples and every ``||x_t|| <= R``:

    * PA (Theorem 2, u with l*_t = 0 on every example): the squared losses, so the mistakes,
      are at most ``||u||^2 R^2``;
    * PA-I (Theorem 4): the mistakes are at most ``max{R^2, 1/C} (||u||^2 + 2 C sum_t l*_t)``;
    * PA-II (Theorem 5): the squared losses, so the mistakes, are at most
      ``(R^2 + 1/(2C)) (||u||^2 + 2 C sum_t (l*_t)^2)``.

    A unit u with margin gamma on the examples gives u / gamma, of norm 1/gamma with every
    l*_t = 0: ``u_norm = 1/gamma``, ``loss = 0``.  The multi-class rule (the binary step on the
    Kesler vector (e_y - e_r) (x) x of the top rival r, of squared norm 2 ||x||^2) has the same
    bounds with R replaced by sqrt(2) R and u by a matrix U with u_y . x - u_k . x >= 1.

    Parameters
    ----------
    R : float
        Radius of the data, >= 0 (with an intercept, of the rows with the constant 1 appended).
    u_norm : float
        ||u||, > 0.
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    C : float, default=1.0
        The aggressiveness parameter, > 0 (PA-I and PA-II).
    loss : float, default=0.0
        The comparison's cumulative loss: sum_t l*_t for PA-I, sum_t (l*_t)^2 for PA-II; it must
        be 0 for PA (its bound with a positive loss needs unit-length examples).

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If a value is out of its range or not a finite real, or ``loss > 0`` for PA.

    Examples
    --------
    >>> passive_aggressive_bound(1.0, 10.0, "PA")        # margin 0.1 on unit-length rows
    100.0
    >>> passive_aggressive_bound(2.0, 10.0, "PA-I", C=0.1)   # max(4, 10) * 100
    1000.0
    >>> passive_aggressive_bound(2.0, 10.0, "PA-II", C=0.5)  # (4 + 1) * 100
    500.0
    """
    owner = "passive_aggressive_bound"
    r = params.nonnegative(owner, "R", R)
    n = params.positive(owner, "u_norm", u_norm)
    if not isinstance(variant, str) or variant not in _PA_VARIANTS:
        raise ValueError(f"{owner}: parameter variant must be one of {list(_PA_VARIANTS)}, got "
                         f"{variant!r}")
    c = params.positive(owner, "C", C)
    lo = params.nonnegative(owner, "loss", loss)
    if variant == "PA":
        if lo > 0.0:
            raise ValueError(f"{owner}: the PA bound is proved for a u with no hinge loss "
                             f"(loss=0); got loss={loss!r}")
        return (n * r) ** 2
    if variant == "PA-I":
        return max(r * r, 1.0 / c) * (n * n + 2.0 * c * lo)
    return (r * r + 0.5 / c) * (n * n + 2.0 * c * lo)


def margin_perceptron_bound(gamma) -> float:
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
    g = params.positive("margin_perceptron_bound", "gamma", gamma)
    if g > 1.0:
        raise ValueError(f"margin_perceptron_bound: parameter gamma must be in (0, 1] (the margin "
                         f"of unit-length examples), got {gamma!r}")
    return 12.0 / g ** 2


def td_bound(gamma, td) -> float:
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
    g = params.positive("td_bound", "gamma", gamma)
    t = params.nonnegative("td_bound", "td", td)
    return 1.0 / g ** 2 + 2.0 * t / g


def kernel_perceptron_bound(R2, gamma) -> float:
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
    r2 = params.nonnegative("kernel_perceptron_bound", "R2", R2)
    g = params.positive("kernel_perceptron_bound", "gamma", gamma)
    return r2 / g ** 2


def multiclass_perceptron_bound(R, gamma) -> float:
    """The multi-class Perceptron's mistake bound 2 R**2 / gamma**2 (Kesler's construction).

    Assumptions: the multi-class Perceptron (``multi_class="multiclass"``: predict the class of
    the largest score ``w_k . x``; on a mistake, ``w_y += eta x`` and ``w_yhat -= eta x``) starts
    from W = 0 (any learning rate), every example has ``||x_t|| <= R``, and some K x d matrix U
    with unit Frobenius norm has ``u_{y_t} . x_t - u_k . x_t >= gamma > 0`` for every t and every
    class ``k != y_t`` (see :func:`multiclass_margin`).  Then on any ordering of the examples,
    with any number of passes, the number of mistakes is at most ``2 R^2 / gamma^2``.

    Proof (Kesler's construction, Duda & Hart 1973, section 5.12; the uniform update of Crammer &
    Singer 2003, "Ultraconservative online algorithms for multiclass problems"): read W and U as
    vectors of length K d, and a mistake on (x, y) predicted as yhat as the example
    ``z = (e_y - e_yhat) (x) x``.  Then ``W . z = w_y . x - w_yhat . x <= 0`` (yhat scored at
    least as high), the update is the binary Perceptron's ``W += eta z``,
    ``||z||^2 = 2 ||x||^2 <= 2 R^2`` and ``U . z >= gamma``: Novikoff's argument
    (:func:`perceptron_bound`) with radius ``sqrt(2) R`` gives ``(sqrt(2) R / gamma)^2``.

    Parameters
    ----------
    R : float
        Radius of the data, >= 0 (see :func:`radius`; with an intercept, of the rows with the
        constant 1 appended).
    gamma : float
        The multi-class margin of a unit-Frobenius-norm U, > 0.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If ``gamma <= 0``, ``R < 0``, or a value is not a finite real.

    Examples
    --------
    >>> multiclass_perceptron_bound(1.0, 0.5)
    8.0
    """
    r = params.nonnegative("multiclass_perceptron_bound", "R", R)
    g = params.positive("multiclass_perceptron_bound", "gamma", gamma)
    return 2.0 * r ** 2 / g ** 2


def multiclass_margin_perceptron_bound(gamma) -> float:
    """The bound 24 / gamma**2 on the updates of the multi-class Margin Perceptron(gamma).

    Assumptions: the examples are scaled to unit length (none is zero), some K x d matrix U with
    unit Frobenius norm has multi-class margin ``u_{y_t} . x_t - u_k . x_t >= gamma`` for every t
    and ``k != y_t`` on the unit-length examples (:func:`multiclass_margin`), and the learner
    (``multi_class="multiclass"``) is run with that gamma and ``margin_fraction=0.5``: it updates
    ``w_y += x``, ``w_r -= x`` (r the best-scoring other class) whenever it errs or
    ``(w_y . x - w_r . x) / ||W||_F < gamma / 2``.  Then the number of updates (mistakes plus
    margin mistakes) is at most ``24 / gamma^2`` on any ordering, with any number of passes.

    Derivation (Kesler's construction, Duda & Hart 1973; Balcan lecture 3, Theorem 2): the
    Kesler vector ``z = (e_y - e_r) (x) x / sqrt(2)`` of a unit-length x is unit length; U, read
    as a unit vector, has ``U . z >= gamma' = gamma / sqrt(2)``; the update is ``W += sqrt(2) z``
    (a constant step from W = 0, which only scales W), and the learner's test
    ``(w_y . x - w_r . x) / ||W|| < gamma / 2`` is ``W . z / ||W|| < gamma' / 2``.  This is
    Balcan's Margin Perceptron(gamma') on the Kesler vectors, whose bound ``12 / gamma'^2`` is
    ``24 / gamma^2``.  (A wrong prediction has r = yhat and ``W . z <= 0``.)

    Parameters
    ----------
    gamma : float
        The multi-class margin, in (0, sqrt(2)] (gamma' = gamma / sqrt(2) is a unit vector's
        margin on unit vectors, at most 1).

    Returns
    -------
    float
        The bound on the number of updates.

    Raises
    ------
    ValueError
        If gamma is not a finite real in (0, sqrt(2)].

    Examples
    --------
    >>> multiclass_margin_perceptron_bound(0.5)
    96.0
    """
    g = params.positive("multiclass_margin_perceptron_bound", "gamma", gamma)
    if g > math.sqrt(2.0):
        raise ValueError(f"multiclass_margin_perceptron_bound: parameter gamma must be in "
                         f"(0, sqrt(2)] (the multi-class margin of unit-length examples), got "
                         f"{gamma!r}")
    return 24.0 / g ** 2


def ovr_bound(bounds) -> float:
    """The one-vs-rest bound: the sum of the K binary bounds.

    Assumptions: the learner runs ``multi_class="ovr"``: K binary learners, learner k on the
    labels ``+1 if y == class k else -1``, each updated by its own binary rule, and
    ``bounds[k]`` bounds the mistakes (or, for the Margin Perceptron, the updates) of learner k
    on its binary problem (:func:`perceptron_bound`, :func:`margin_perceptron_bound`, ... with
    that problem's separator and margin).  A multi-class mistake needs a binary one: if every
    binary learner is right, only class y scores above zero (or at zero, with ``tie="positive"``)
    and the rest below, so the largest score is y's; and a row counts as an update only when some
    binary learner updated.  So the multi-class count is at most the sum of the binary counts,
    hence of their bounds.

    Parameters
    ----------
    bounds : iterable of float
        The binary bounds, at least one, each >= 0 (``inf`` allowed: the sum is then ``inf``).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If bounds is not an iterable of numbers >= 0 (NaN included), or is empty.

    Examples
    --------
    >>> ovr_bound([4.0, 9.0, 2.25])
    15.25
    """
    owner = "ovr_bound"
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__iter__"):
        raise ValueError(f"{owner}: parameter bounds must be an iterable of numbers >= 0, got "
                         f"{bounds!r}")
    total, count = 0.0, 0
    for i, b in enumerate(bounds):
        count += 1
        if isinstance(b, numbers.Real) and not isinstance(b, (bool, np.bool_)) and b == math.inf:
            total = math.inf
            continue
        v = params.nonnegative(owner, f"bounds[{i}]", b)
        total += v
    if count == 0:
        raise ValueError(f"{owner}: parameter bounds must hold at least one bound (one per "
                         f"class), got none")
    return total


# -- the second-order learners and ALMA ------------------------------------------------------------

def winnow_bound(k, n, attribute_errors=0) -> float:
    """Winnow2's mistake bound 2 + 3(A_c + k(1 + log2 n)) (Angluin lectures 18 and 19).

    Assumptions: Winnow with its defaults (alpha = 2, beta = 1/2, theta = n, weights 1) on
    Boolean examples, and c any monotone disjunction of k of the n variables with A_c
    attribute errors on the sequence (:func:`attribute_errors`; 0 when c labels every example,
    which gives lecture 18's 2 + 3k(1 + log2 n)).

    Lecture 19 states O(A_c + k log n) without the constant; lecture 18's argument gives it.
    With u promotions (false negatives) and v demotions (false positives): the total weight
    starts at n, grows by less than theta = n on a promotion and falls by at least n/2 on a
    demotion, and stays positive, so v <= 2u + 1.  The sum of log2 w_i over c's variables starts
    at 0, never exceeds k(1 + log2 n) (a weight >= n on an active variable already makes the
    prediction 1), gains at least 1 on a promotion with a variable of c set, and loses the
    number of c's variables set on a demotion; the promotions with none of c's variables set
    and those losses are counted by A_c.  So u <= A_c + k(1 + log2 n) and
    M = u + v <= 2 + 3(A_c + k(1 + log2 n)).

    Examples
    --------
    >>> winnow_bound(2, 1024)
    68.0
    >>> winnow_bound(2, 1024, attribute_errors=5)
    83.0
    """
    k = params.integer("winnow_bound", "k", k, 0)
    n = params.integer("winnow_bound", "n", n, 1)
    a = params.integer("winnow_bound", "attribute_errors", attribute_errors, 0)
    return 2.0 + 3.0 * (a + k * (1.0 + math.log2(n)))


def elimination_winnow_bound(k, n) -> float:
    """The elimination Winnow's bound 2k log2 n + 2 (Kanade, Theorem 12): threshold n/2,
    promotion x2, demotion to zero, on a monotone disjunction of k of n variables.

    Examples
    --------
    >>> elimination_winnow_bound(3, 256)
    50.0
    """
    k = params.integer("elimination_winnow_bound", "k", k, 0)
    n = params.integer("elimination_winnow_bound", "n", n, 1)
    return 2.0 * k * math.log2(n) + 2.0


def winnow_star_bound(n, adversary_cost) -> float:
    """Winnow*'s bound 4 + 5(1 + log2 2n) C_a on drifting monotone disjunctions (Angluin
    lecture 19), C_a the adversary's cost (variables added to and removed from the target,
    counting the first target's variables).

    Examples
    --------
    >>> winnow_star_bound(512, 2)
    114.0
    """
    n = params.integer("winnow_star_bound", "n", n, 1)
    c = params.nonnegative("winnow_star_bound", "adversary_cost", adversary_cost)
    return 4.0 + 5.0 * (1.0 + math.log2(2 * n)) * c


def multiclass_winnow_bound(n, K, delta, alpha=2.0) -> float:
    """The multi-class Winnow bound ln(n K) / (delta ln(alpha) - ln((alpha + 1/alpha) / 2)).

    Assumptions: Winnow with ``multi_class="multiclass"`` (Mesterharm's Committee rule on
    attributes: predict the class of the largest vote ``w_k . x``; on a mistake with true class
    y and predicted class yhat, ``w_{y,i} *= alpha**x_i`` and ``w_{yhat,i} *= beta**x_i`` for
    every feature i) with ``beta = 1/alpha``, all K n weights starting equal (any common
    value), examples in ``[0, 1]^n`` (Boolean examples are), and a nonnegative K x n target
    matrix M whose entries sum to 1 with ``m_y . x - m_k . x >= delta`` for every example and
    every class ``k != y`` (:func:`multiclass_winnow_margin`).  Then on any ordering, with any
    number of passes, the number of mistakes is at most
    ``ln(n K) / (delta ln(alpha) - ln((alpha + 1/alpha) / 2))``, provided the denominator is
    positive (``delta > ln((alpha + 1/alpha)/2) / ln(alpha)``; 0.3219 for alpha = 2).  With
    ``alpha = sqrt((1 + delta)/(1 - delta))`` (delta < 1) the denominator is
    ``((1 + delta) ln(1 + delta) + (1 - delta) ln(1 - delta)) / 2 >= delta^2 / 2``, so the bound
    is at most ``2 ln(n K) / delta^2`` (Mesterharm 1999, "A multi-class linear learning
    algorithm related to Winnow", Theorems 1-2, which state it with ln n).

    Proof (relative entropy).  Let Z be the total weight, p = W / Z the normalised weights and
    ``Phi = KL(M || p) = sum M_ki ln(M_ki / p_ki) >= 0``.  At the start p is uniform, so
    ``Phi <= ln(n K) - H(M) <= ln(n K)``.  On a mistake, only rows y and yhat change, so
    ``Phi - Phi' = sum_ki M_ki ln(W'_ki / W_ki) - ln(Z'/Z)
    = ln(alpha) (m_y . x - m_yhat . x) - ln(Z'/Z) >= delta ln(alpha) - ln(Z'/Z)`` (the entries of
    M sum to 1).  By convexity of ``alpha**e`` in e, ``alpha**e <= 1 + e (alpha - 1)`` and
    ``alpha**(-e) <= 1 - e (1 - 1/alpha)`` on ``e in [0, 1]``; with the votes ``a = w_y . x`` and
    ``b = w_yhat . x`` this gives ``Z' - Z <= (alpha - 1) a - (1 - 1/alpha) b``.  The predicted
    class's vote is at least the true class's (``b >= a``), and ``a + b <= Z`` (x in [0, 1],
    two distinct rows), so ``a <= Z/2`` and
    ``Z' - Z <= (alpha + 1/alpha - 2) a <= (alpha + 1/alpha - 2) Z / 2``:
    ``Z'/Z <= (alpha + 1/alpha) / 2``.  Each mistake lowers Phi by at least the denominator,
    and Phi starts at most ln(n K) and stays >= 0.

    Parameters
    ----------
    n : int
        The number of features, >= 1.
    K : int
        The number of classes, >= 2.
    delta : float
        The margin of the target, in (0, 1].
    alpha : float, default=2.0
        The learner's promotion factor, a finite real > 1 (its demotion is 1/alpha).

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        On a bad argument, and when the denominator is not positive (delta too small for this
        alpha): the message names the delta this alpha needs.  (A ValueError rather than inf: the
        theorem says nothing then, and a larger alpha's denominator may still be positive.)

    Examples
    --------
    >>> round(multiclass_winnow_bound(4, 3, 0.5, math.sqrt(3.0)), 4)   # alpha for delta = 1/2
    18.996
    >>> round(2 * math.log(12) / 0.5 ** 2, 4)                          # 2 ln(n K) / delta^2
    19.8793
    """
    owner = "multiclass_winnow_bound"
    n = params.integer(owner, "n", n, 1)
    K = params.integer(owner, "K", K, 2)
    d = params.positive(owner, "delta", delta)
    if d > 1.0:
        raise ValueError(f"{owner}: parameter delta must be in (0, 1] (the margin of a target "
                         f"summing to 1 on examples in [0, 1]), got {delta!r}")
    a = params.real(owner, "alpha", alpha, what="a finite real number")
    if not a > 1.0:
        raise ValueError(f"{owner}: parameter alpha must be > 1, got {alpha!r}")
    la = math.log(a)
    loss = math.log((a + 1.0 / a) / 2.0)
    denom = d * la - loss
    if not denom > 0.0:
        hint = (f"; alpha = sqrt((1 + delta)/(1 - delta)) = "
                f"{math.sqrt((1.0 + d) / (1.0 - d)):.6g} suits this delta" if d < 1.0 else "")
        raise ValueError(f"{owner}: delta ln(alpha) - ln((alpha + 1/alpha)/2) must be > 0: "
                         f"alpha={alpha!r} needs delta > ln((alpha + 1/alpha)/2) / ln(alpha) = "
                         f"{loss / la:.6g}, got delta={delta!r}{hint}")
    return math.log(n * K) / denom


def weighted_majority_bound(m_best, n, beta=0.5) -> float:
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
    m = params.nonnegative("weighted_majority_bound", "m_best", m_best)
    n = params.integer("weighted_majority_bound", "n", n, 1)
    b = params.open_unit("weighted_majority_bound", "beta", beta)
    return (m * math.log2(1.0 / b) + math.log2(n)) / math.log2(2.0 / (1.0 + b))


def randomized_wm_bound(m_best, n, beta=0.5) -> float:
    """Randomized Weighted Majority's expected-mistake bound (m ln(1/beta) + ln n) / (1 - beta)
    (Littlestone & Warmuth 1994; Angluin lecture 20 remark), m the mistakes of any expert.

    Examples
    --------
    >>> round(randomized_wm_bound(10, 100), 3)
    23.073
    """
    m = params.nonnegative("randomized_wm_bound", "m_best", m_best)
    n = params.integer("randomized_wm_bound", "n", n, 1)
    b = params.open_unit("randomized_wm_bound", "beta", beta)
    return (m * math.log(1.0 / b) + math.log(n)) / (1.0 - b)


def specialists_bound(r, n, promote=1.5, demote=0.5) -> float:
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
    r = params.integer("specialists_bound", "r", r, 0)
    n = params.integer("specialists_bound", "n", n, 1)
    p = params.real("specialists_bound", "promote", promote, what="a finite real number")
    d = params.real("specialists_bound", "demote", demote, what="a finite real number")
    if not (0.0 < d < 1.0 < p) or d + p > 2.0:
        raise ValueError(f"specialists_bound: needs 0 < demote < 1 < promote and demote + "
                         f"promote <= 2, got demote={demote!r}, promote={promote!r}")
    return r * math.log(n) / math.log(p)


# -- finite classes, Boolean learners and the conversions -------------------------------------------

def halving_bound(size) -> int:
    """The Halving algorithm's bound ``floor(log2 |C|)`` (Kanade Thm 8; Angluin lecture 25).

    Assumptions: the stream is labelled by a concept of the finite class C (``size = |C|``,
    or a :class:`mbcore.ConceptClass`); each mistake removes at least half of the version
    space, in Angluin's form and in Kanade's conservative form alike.

    Examples
    --------
    >>> halving_bound(1000)
    9
    """
    if hasattr(size, "n_concepts"):
        size = size.n_concepts
    m = params.integer("halving_bound", "size", size, 1)
    return m.bit_length() - 1


def soa_bound(concepts) -> int:
    """SOA's bound Ldim(C), the optimal mistake bound of the class (Littlestone 1988).

    Assumptions: the stream is labelled by a concept of C.  ``concepts`` is the Littlestone
    dimension, an integer >= 0, or the class itself: any object with a method
    ``littlestone_dimension()``, such as :class:`mbcore.ConceptClass` (whose method computes it,
    within the limits of :func:`mbcore.littlestone_dimension`), is asked for its dimension
    (this module imports no family).

    Examples
    --------
    >>> soa_bound(3)
    3
    >>> from mbcore import ConceptClass
    >>> soa_bound(ConceptClass.half_intervals(5))
    5
    """
    if callable(getattr(concepts, "littlestone_dimension", None)):
        return concepts.littlestone_dimension()
    return params.integer("soa_bound", "concepts", concepts, 0)


def conjunction_bound(n) -> int:
    """Elimination's bound n + 1 for conjunctions over n variables (Balcan lecture 3 section 2.1;
    Kanade Thm 1): the first mistake removes n of the 2n literals, every later one at least one.

    Assumptions: the stream is labelled by a conjunction of literals over the n variables.

    Examples
    --------
    >>> conjunction_bound(10)
    11
    """
    return params.integer("conjunction_bound", "n", n, 1) + 1


def disjunction_bound(n, r, literals="monotone") -> int:
    """Elimination's bound for disjunctions (Angluin lecture 18, end): ``n - r`` mistakes on a
    monotone disjunction of r of the n variables (``literals="monotone"``; every mistake is a
    false positive that removes at least one of the n - r variables outside the target), and
    ``2n - r`` when the learner starts from all 2n literals (``literals="all"``, r literals in
    the target).

    Examples
    --------
    >>> disjunction_bound(100, 3)
    97
    """
    n = params.integer("disjunction_bound", "n", n, 1)
    if literals not in ("monotone", "all"):
        raise ValueError(f"disjunction_bound: parameter literals must be 'monotone' or 'all', "
                         f"got {literals!r}")
    top = n if literals == "monotone" else 2 * n
    r = params.integer("disjunction_bound", "r", r, 0)
    if r > top:
        raise ValueError(f"disjunction_bound: parameter r must be <= {top} (the number of "
                         f"{'variables' if top == n else 'literals'}), got {r!r}")
    return top - r


def decision_list_bound(n, L) -> int:
    """The mistake-bound decision-list learner's bound (4n + 2)(L + 1) (Balcan lecture 3,
    section 2.2): each mistake moves at least one of the 4n + 2 rules down a level, and no rule
    of the target list's level-i rule ever sinks below level i + 1.

    Assumptions: the stream is labelled by a 1-decision list of length L over n variables.

    Examples
    --------
    >>> decision_list_bound(2, 1)
    20
    """
    n = params.integer("decision_list_bound", "n", n, 1)
    L = params.integer("decision_list_bound", "L", L, 0)
    return (4 * n + 2) * (L + 1)


def equivalence_query_bound(B) -> int:
    """A mistake bound B gives an exact learner with at most B + 1 equivalence queries
    (Kanade Prop. 6): each counterexample is a mistake, and one more query confirms the last
    hypothesis.  (Conversely, Q equivalence queries give the mistake bound Q: Prop. 7.)  A real
    B counts as its integer part.

    Examples
    --------
    >>> equivalence_query_bound(11)
    12
    """
    return _budget("equivalence_query_bound", "B", B, 0) + 1


def online_to_pac_run_length(B, epsilon, delta) -> int:
    """The run of consecutive correct predictions after which the online-to-PAC conversion
    stops (Kanade Thm 4): ``s = ceil((1/epsilon) ln(B/delta))``.

    A hypothesis with error >= epsilon survives s independent examples with probability
    ``(1 - epsilon)^s <= exp(-epsilon s) <= delta/B``; a conservative learner with mistake
    bound B shows at most B hypotheses that can be stopped on, so a union bound gives
    confidence 1 - delta.

    Parameters
    ----------
    B : int or float
        The mistake bound, >= 1 (a real bound such as ``winnow_bound(k, n)`` counts as its
        integer part: the most mistakes it allows).
    epsilon, delta : float
        Accuracy and confidence, each in (0, 1).

    Examples
    --------
    >>> online_to_pac_run_length(10, 0.1, 0.05)
    53
    """
    B = _budget("online_to_pac_run_length", "B", B, 1)
    e = params.open_unit("online_to_pac_run_length", "epsilon", epsilon)
    d = params.open_unit("online_to_pac_run_length", "delta", delta)
    return max(1, math.ceil(math.log(B / d) / e))


def online_to_pac_sample_size(B, epsilon, delta) -> int:
    """The most examples the online-to-PAC conversion draws: ``B * s`` with s from
    :func:`online_to_pac_run_length`, which is ``O((B/epsilon) log(B/delta))`` (Kanade Thm 4).

    Each of the at most B hypotheses before the last mistake is used on at most s examples
    (s - 1 correct, then the mistake), and a run of s correct ends it; so whichever way the
    conversion stops, it has drawn at most ``B s`` examples.

    Examples
    --------
    >>> online_to_pac_sample_size(10, 0.1, 0.05)
    530
    """
    return _budget("online_to_pac_sample_size", "B", B, 1) * online_to_pac_run_length(
        B, epsilon, delta)


def eq_test_sample_size(i, epsilon, delta, budget="geometric") -> int:
    """Examples to test the i-th hypothesis when equivalence queries are simulated by sampling
    (Angluin lecture 25): ``ceil((1/epsilon) ln(1/delta_i))`` with ``delta_i = delta / 2^i``
    (``budget="geometric"``) or ``6 delta / (pi^2 i^2)`` (``budget="basel"``).  The delta_i sum
    to at most delta, so every hypothesis accepted with error > epsilon is accepted with
    probability at most delta overall.

    Parameters
    ----------
    i : int
        The query's number, >= 1.
    epsilon, delta : float
        Accuracy and confidence, each in (0, 1).
    budget : {"geometric", "basel"}

    Examples
    --------
    >>> eq_test_sample_size(1, 0.1, 0.05), eq_test_sample_size(1, 0.1, 0.05, "basel")
    (37, 35)
    """
    i = params.integer("eq_test_sample_size", "i", i, 1)
    e = params.open_unit("eq_test_sample_size", "epsilon", epsilon)
    d = params.open_unit("eq_test_sample_size", "delta", delta)
    if budget == "geometric":
        log_inv = i * math.log(2.0) - math.log(d)
    elif budget == "basel":
        log_inv = math.log(math.pi ** 2 * i * i / (6.0 * d))
    else:
        raise ValueError(f"eq_test_sample_size: parameter budget must be 'geometric' or 'basel', "
                         f"got {budget!r}")
    return max(1, math.ceil(log_inv / e))


# -- edge-detecting queries and group testing (Angluin lectures 28-29) -----------------------------

def _log2_ceil(n):
    return (n - 1).bit_length() if n > 1 else 0


def edge_detecting_bound(n, m, graph="general", counting=False) -> int:
    """Edge-detecting queries that learn a hidden graph with m edges on n vertices (Angluin
    lectures 28-29; Angluin & Chen 2008): ``4 m ceil(log2 n) + 1`` for a bipartite graph with
    known sides, ``12 m ceil(log2 n) + 1`` for any graph, ``6 m ceil(log2 n) + 1`` for any
    graph with edge-counting queries (``counting=True``).

    The lecture's 4 m log n and 12 m log n, with log2 n rounded up (sets of odd size are halved
    into ceil and floor halves) and one query more: the first query, Q(V), which tells whether
    there is any edge (m = 0 needs it too).  Proofs, for :func:`mbcore.queries.learn_graph`:
    bipartite: each level of the search tree holds at most m pairs answered 1, each asks at
    most ``2 ([len(A) > 1] + [len(B) > 1])`` unions, over ``ceil(log2 len(A)) +
    ceil(log2 len(B))`` levels at most.  General: at each level of the recursion at most m
    sets answered 1; each asks <= 2 queries of its halves; its c1 c2 pairs of colour classes (c_i <= sqrt(2 m_i) + 1) cost
    <= (2 + sqrt 2) times its edges; the bipartite searches cost <= 4 (ceil(log2 n) - 1) per
    edge: in all <= (8 + sqrt 2) m ceil(log2 n) + 1.  Counting: 2 m ceil(log2 n) for the
    halves and 4 m (ceil(log2 n) - 1) for the searches.

    Assumptions: the oracle answers as a graph with m edges on n vertices does.

    Examples
    --------
    >>> edge_detecting_bound(1024, 100), edge_detecting_bound(1024, 100, "bipartite")
    (12001, 4001)
    """
    o = "edge_detecting_bound"
    n = params.integer(o, "n", n, 1)
    m = params.integer(o, "m", m, 0)
    if graph not in ("bipartite", "general"):
        raise ValueError(f"{o}: parameter graph must be 'bipartite' or 'general', got {graph!r}")
    if not isinstance(counting, (bool, np.bool_)):
        raise ValueError(f"{o}: parameter counting must be a bool, got {counting!r}")
    top = n * (n - 1) // 2
    if m > top:
        raise ValueError(f"{o}: parameter m must be <= n(n-1)/2 = {top} (a graph on {n} "
                         f"vertices), got {m}")
    c = 4 if graph == "bipartite" else (6 if counting else 12)
    return c * m * _log2_ceil(n) + 1


def group_testing_bound(n, d=1, known=True) -> int:
    """Tests that find d defectives among n items (Angluin lecture 28): binary splitting needs
    ``d ceil(log2 n)`` when d is known (``ceil(log2 n)`` for the one heavy coin, which is
    optimal: fewer tests cannot tell the n possibilities apart), and ``d (ceil(log2 n) + 1) + 1``
    when it is not (one more test per defective to see that some remain, and a last one to see
    that none do).

    Examples
    --------
    >>> group_testing_bound(8), group_testing_bound(1000, 3), group_testing_bound(1000, 3, False)
    (3, 30, 34)
    """
    o = "group_testing_bound"
    n = params.integer(o, "n", n, 1)
    d = params.integer(o, "d", d, 0)
    if d > n:
        raise ValueError(f"{o}: parameter d must be <= n = {n}, got {d}")
    if not isinstance(known, (bool, np.bool_)):
        raise ValueError(f"{o}: parameter known must be a bool, got {known!r}")
    if known:
        return d * _log2_ceil(n)
    return d * (_log2_ceil(n) + 1) + 1


def lstar_equivalence_bound(n) -> int:
    """L* asks at most n equivalence queries for a target whose minimal DFA has n states
    (Angluin 1987, Theorem 6): every counterexample makes the next hypothesis have at least
    one more state, a hypothesis never has more states than the target's minimal DFA, and the
    first has at least one; so at most n - 1 conjectures are wrong, and the n-th is right.

    Examples
    --------
    >>> lstar_equivalence_bound(4)
    4
    """
    return params.integer("lstar_equivalence_bound", "n", n, 1)


def lstar_membership_bound(n, k, m, processing="angluin") -> int:
    """The most membership queries (distinct words) L* asks for a target whose minimal DFA has
    n states, over k letters, when the longest counterexample has length m.

    * ``"angluin"`` (every prefix of a counterexample joins S; Angluin 1987, Theorem 6):
      ``(k + 1) (n + m (n - 1)) n``.  S grows by at most n - 1 moves that close the table
      (each adds a distinct row) and at most m words per counterexample (n - 1 of them), so
      ``|S| <= n + m(n - 1)``, ``|S.Sigma| <= k |S|``; E grows only to make the table consistent,
      each time adding a distinct row, so ``|E| <= n``; every word asked is a cell of the table.
    * ``"rivest-schapire"`` (one suffix per counterexample, Rivest & Schapire 1993):
      ``(k + 1) n^2 + (n - 1) (1 + ceil(log2 m))``.  The rows of S stay distinct, so ``|S| <= n``;
      each use of a counterexample adds one suffix and at least one state, so ``|E| <= n`` and
      there are at most n - 1 uses, each asking the counterexample and at most
      ceil(log2 m) words of its binary search outside the table.
    * ``"suffixes"`` (every suffix of a counterexample joins E, Maler & Pnueli 1995):
      ``(k + 1) n (1 + (n - 1) m)``: ``|S| <= n``, ``|E| <= 1 + (n - 1) m``.

    Parameters
    ----------
    n : int >= 1
    k : int >= 1
    m : int >= 0
    processing : {"angluin", "rivest-schapire", "suffixes"}

    Examples
    --------
    >>> lstar_membership_bound(4, 2, 2), lstar_membership_bound(4, 2, 2, "rivest-schapire")
    (120, 54)
    """
    o = "lstar_membership_bound"
    n = params.integer(o, "n", n, 1)
    k = params.integer(o, "k", k, 1)
    m = params.integer(o, "m", m, 0)
    if processing == "angluin":
        return (k + 1) * (n + m * (n - 1)) * n
    if processing == "rivest-schapire":
        steps = math.ceil(math.log2(m)) if m > 1 else 0
        return (k + 1) * n * n + (n - 1) * (1 + steps)
    if processing == "suffixes":
        return (k + 1) * n * (1 + (n - 1) * m)
    raise ValueError(f"{o}: parameter processing must be one of ('rivest-schapire', "
                     f"'angluin', 'suffixes'), got {processing!r}")
