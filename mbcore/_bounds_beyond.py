"""The mistake bounds of the learners beyond the lecture notes: the second-order family (AROW,
the second-order Perceptron), ALMA, selective sampling and the budget kernel Perceptrons.

Re-exported by :mod:`mbcore.bounds`, the one public home of the bounds (this private module
keeps that file within the project's length limit); the conventions are that module's.
"""

import math

from . import _params as params

__all__ = ["arow_bound", "second_order_perceptron_bound", "alma_bound",
           "selective_sampling_bound", "forgetron_bound", "forgetron_norm_cap", "projectron_bound"]


def arow_bound(r, u_norm, uXu, log_det, hinge=0.0, U=0, a=1.0) -> float:
    """AROW's mistake bound (Crammer, Kulesza & Dredze, NIPS 2009 and Machine Learning 2013, the
    binary bound, which assumes no separability), for the full covariance.

    The rule (:class:`mbcore.AROW`, ``covariance="full"``): w = 0, Sigma = a I; on a row with
    m = y w . x < 1, ``w += (1 - m) y Sigma x / (v + r)`` (v = x' Sigma x) and
    ``Sigma^-1 += x x' / r``.  Let A be the rows it updates on and M of them the mistakes,
    ``U = |A| - M`` the updates that were not mistakes, ``X_A`` the sum of x x' over A and, for
    any vector u, ``hinge = sum over A of max(0, 1 - y u . x)``.  Then::

        M <= sqrt(r ||u||^2 / a + u' X_A u) sqrt(log det(I + a X_A / r) + U) + hinge - U

    (the paper's Sigma_0 = I is a = 1).  U counts updates, ``hinge`` is u's loss: two
    quantities.  Any u will do (u = 0 gives M <= M); a u of margin 1 has ``hinge = 0``.  The
    diagonal form (``covariance="diagonal"``) is not covered.

    Proof.  With theta = Sigma^-1 w, an update gives theta += y x / r exactly (the step's
    coefficients cancel), so ``theta_T = sum_A y x / r`` and ``u . theta_T >= (M + U - hinge)
    / r``.  ``w' Sigma^-1 w`` grows on an update by ``v / (r (r + v)) + m (2 - m) / (r + v)``,
    where ``m (2 - m) <= 0`` on a mistake and ``< 1`` otherwise, and ``v / (r + v) = 1 -
    det(Sigma_old^-1) / det(Sigma_new^-1)`` is at most the log of that ratio: so
    ``r w' Sigma^-1 w <= log det(I + a X_A / r) + U``, while ``u' Sigma^-1 u = ||u||^2 / a +
    u' X_A u / r``.  Cauchy-Schwarz, ``u . theta <= sqrt(u' Sigma^-1 u) sqrt(theta' Sigma
    theta)``, gives the bound.  (With a != 1 it is the paper's on the rows sqrt(a) x, which
    the rule with Sigma_0 = a I runs exactly as the rule with Sigma_0 = I runs on them.)
    The statement is this derivation's; the paper's text could not be read while it was
    written (see the class's docstring).

    Parameters
    ----------
    r : float
        AROW's r, > 0.
    u_norm : float
        ||u||, >= 0 (u in the learner's coordinates: the intercept last, with one).
    uXu : float
        u' X_A u, the sum of (u . x)^2 over the updates, >= 0.
    log_det : float
        log det(I + a X_A / r), >= 0.
    hinge : float, default=0.0
        The hinge losses of u on the updates, summed, >= 0.
    U : float, default=0
        The updates that were not mistakes, >= 0.
    a : float, default=1.0
        The initial covariance a I, > 0.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If a value is out of its range or not a finite real.

    Examples
    --------
    >>> import math
    >>> arow_bound(1.0, 1.0, 3.0, math.log(4.0))         # sqrt(1 + 3) sqrt(log 4)
    2.3548200450309493
    >>> arow_bound(1.0, 1.0, 3.0, math.log(4.0), hinge=0.5, U=2)   # 2 sqrt(log 4 + 2) - 1.5
    2.180377350826891
    """
    owner = "arow_bound"
    rr = params.positive(owner, "r", r)
    n = params.nonnegative(owner, "u_norm", u_norm)
    q = params.nonnegative(owner, "uXu", uXu)
    ld = params.nonnegative(owner, "log_det", log_det)
    h = params.nonnegative(owner, "hinge", hinge)
    uu = params.nonnegative(owner, "U", U)
    aa = params.positive(owner, "a", a)
    return math.sqrt(rr * n * n / aa + q) * math.sqrt(ld + uu) + h - uu


def second_order_perceptron_bound(gamma, u_norm, uXu, eigenvalues, D=0.0, a=1.0) -> float:
    """The second-order Perceptron's mistake bound (Cesa-Bianchi, Conconi & Gentile, SIAM J.
    Comput. 34(3), 2005), for the full correlation matrix; no separability assumed.

    The rule (:class:`mbcore.SecondOrderPerceptron`, ``covariance="full"``): theta = the sum
    of y x over the mistakes, A = a I + the sum of x x' over the mistakes, and a row is
    predicted by the sign of ``x' (A + x x')^-1 theta``; only mistakes update.  With X_M the
    matrix of the mistakes' rows, lambda_i the eigenvalues of its correlation matrix (the sum
    of x x' over the mistakes; its nonzero eigenvalues are those of X_M X_M'), and for any u
    and gamma > 0, ``D = sum over the mistakes of max(0, gamma - y u . x)``, the number of
    mistakes is at most::

        D / gamma + (1 / gamma) sqrt((a ||u||^2 + u' X_M' X_M u) sum_i ln(1 + lambda_i / a))

    (the paper writes D_gamma(u) over the whole sequence, which is at least this sum).
    Scaling u and gamma together leaves it unchanged: a unit u with margin gamma on the
    data has D = 0.  The diagonal form is not the paper's and is not covered.

    Proof.  ``u . theta_M >= gamma M - D``.  On a mistake ``y x' A_new^-1 theta_old <= 0``
    (the prediction's sign), so ``theta' A^-1 theta`` grows by at most ``x' A_new^-1 x = 1 -
    det(A_old) / det(A_new) <= ln(det(A_new) / det(A_old))``: ``theta_M' A_M^-1 theta_M <=
    sum_i ln(1 + lambda_i / a)``; and ``u' A_M u = a ||u||^2 + u' X_M' X_M u``.
    Cauchy-Schwarz in A_M's metric gives the bound.  The statement is this derivation's; the
    paper's text (its Theorem 1) could not be read while it was written.

    Parameters
    ----------
    gamma : float
        The margin the losses are measured at, > 0.
    u_norm : float
        ||u||, >= 0 (the intercept last, with one).
    uXu : float
        The sum of (u . x)^2 over the mistakes, >= 0.
    eigenvalues : iterable of float
        The eigenvalues lambda_i of the mistakes' correlation matrix, each >= 0 (zeros may be
        left out: they add nothing).
    D : float, default=0.0
        The sum over the mistakes of max(0, gamma - y u . x), >= 0.
    a : float, default=1.0
        The learner's a (A = a I at the start), > 0.

    Returns
    -------
    float
        The bound on the number of mistakes.

    Raises
    ------
    ValueError
        If a value is out of its range or not a finite real.

    Examples
    --------
    >>> second_order_perceptron_bound(0.5, 1.0, 3.0, [3.0, 0.0])   # 2 sqrt(4 ln 4)
    4.709640090061899
    """
    owner = "second_order_perceptron_bound"
    g = params.positive(owner, "gamma", gamma)
    n = params.nonnegative(owner, "u_norm", u_norm)
    q = params.nonnegative(owner, "uXu", uXu)
    d = params.nonnegative(owner, "D", D)
    aa = params.positive(owner, "a", a)
    if isinstance(eigenvalues, (str, bytes)) or not hasattr(eigenvalues, "__iter__"):
        raise ValueError(f"{owner}: parameter eigenvalues must be an iterable of numbers >= 0, "
                         f"got {eigenvalues!r}")
    s = 0.0
    for i, lam in enumerate(eigenvalues):
        s += math.log1p(params.nonnegative(owner, f"eigenvalues[{i}]", lam) / aa)
    return d / g + math.sqrt((aa * n * n + q) * s) / g


def alma_bound(gamma, alpha, p=2.0) -> float:
    """ALMA_p's bound on its corrections (updates), 2 (p - 1) / (alpha^2 gamma^2) + 8/alpha - 4
    (Gentile, JMLR 2, 2001, "A new approximate maximal margin classification algorithm").

    Assumptions: ALMA_p(alpha; B, C) with B = 1 / alpha and C = sqrt(2) (the values the paper
    proves it for; :class:`mbcore.ALMA`'s defaults), run from w = 0 on rows normalised in
    p-norm (``x / ||x||_p``; the learner does it, the constant 1 appended first with an
    intercept; a zero row is skipped and changes nothing), and some u with ``||u||_q = 1``
    (q = p / (p - 1)) has ``y u . x / ||x||_p >= gamma > 0`` on every (nonzero) row.  Then
    the number of corrections (the rows on which it updates, mistakes or not) is at most
    ``2 (p - 1) / (alpha^2 gamma^2) + 8 / alpha - 4`` on any ordering, with any number of
    passes.

    Source: the paper's abstract gives the order, O((p - 1) / (alpha^2 gamma^2)) corrections
    with gamma the normalised p-norm margin; these constants are the statement the class's
    docstring quotes (its Theorem 3), which could not be checked against the paper's text
    while this was written.

    Parameters
    ----------
    gamma : float
        The normalised p-norm margin of a unit q-norm u, in (0, 1] (Hölder: at most 1).
    alpha : float
        ALMA's alpha, in (0, 1].
    p : float, default=2.0
        The norm, >= 2.

    Returns
    -------
    float
        The bound on the number of corrections.

    Raises
    ------
    ValueError
        If a value is out of its range or not a finite real.

    Examples
    --------
    >>> alma_bound(0.5, 1.0)                    # 2 / 0.25 + 8 - 4
    12.0
    >>> alma_bound(0.5, 0.5, p=3.0)             # 4 / (0.25 * 0.25) + 16 - 4
    76.0
    """
    owner = "alma_bound"
    g = params.positive(owner, "gamma", gamma)
    if g > 1.0:
        raise ValueError(f"{owner}: parameter gamma must be in (0, 1] (the margin of a unit "
                         f"q-norm u on rows of unit p-norm), got {gamma!r}")
    al = params.real(owner, "alpha", alpha, 0.0, 1.0)
    pp = params.real(owner, "p", p, 2.0, low_inclusive=True)
    return 2.0 * (pp - 1.0) / (al * al * g * g) + 8.0 / al - 4.0


# -- the multiplicative family and the experts ----------------------------------------------------


def selective_sampling_bound(b, R, hinge=0.0, u_norm=1.0) -> float:
    """The selective-sampling Perceptron's bound on its expected mistakes (Cesa-Bianchi, Gentile
    & Zaniboni 2006, JMLR 7, Theorem 1): with a fixed query parameter b > 0, on any sequence of
    rows of norm at most R and for any u,

        E[mistakes] <= (1 + R^2 / (2 b)) L(u) + (2 b + R^2)^2 ||u||^2 / (8 b),

    L(u) = ``hinge``, the hinge losses max(0, 1 - y u . x) of u summed over the rows (all of
    them, asked or not), the expectation over the learner's coin tosses.  At b = R^2 / 2 and
    L(u) = 0 (u separates with margin 1: ||u|| = 1 / gamma for a unit separator of margin
    gamma) it is R^2 ||u||^2, the Perceptron's (R / gamma)^2.

    Parameters
    ----------
    b : float
        The query parameter, > 0.
    R : float
        The largest norm of a row, >= 0.
    hinge : float, default=0.0
        L(u), >= 0.
    u_norm : float, default=1.0
        ||u||, >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> selective_sampling_bound(0.5, 1.0, hinge=0.0, u_norm=10.0)   # (1 + 1)^2 100 / 4
    100.0
    >>> selective_sampling_bound(2.0, 2.0, hinge=3.0, u_norm=1.0)    # 2 * 3 + 64 / 16
    10.0
    """
    owner = "selective_sampling_bound"
    bb = params.positive(owner, "b", b)
    r = params.nonnegative(owner, "R", R)
    h = params.nonnegative(owner, "hinge", hinge)
    n = params.nonnegative(owner, "u_norm", u_norm)
    r2 = r * r
    return (1.0 + r2 / (2.0 * bb)) * h + (2.0 * bb + r2) ** 2 * (n * n) / (8.0 * bb)


# -- the budget kernel Perceptrons ----------------------------------------------------------------

def forgetron_norm_cap(budget) -> float:
    """The largest comparator norm the self-tuned Forgetron's bound admits,
    U = (1/4) sqrt((B + 1) / ln(B + 1)) (Dekel, Shalev-Shwartz & Singer 2008).

    Parameters
    ----------
    budget : int
        B, >= 1 (the bound itself needs B >= 83).

    Returns
    -------
    float

    Examples
    --------
    >>> round(forgetron_norm_cap(100), 4)       # sqrt(101 / ln 101) / 4
    1.1695
    """
    B = params.integer("forgetron_norm_cap", "budget", budget, 1)
    return 0.25 * math.sqrt((B + 1.0) / math.log(B + 1.0))


def forgetron_bound(g_norm, hinge=0.0, budget=100) -> float:
    """The self-tuned Forgetron's mistake bound (Dekel, Shalev-Shwartz & Singer 2008, "The
    Forgetron: a kernel-based Perceptron on a budget", SIAM J. Computing 37(5)): M <= 2 ||g||^2
    + 4 L(g).

    Assumptions: K(x_t, x_t) <= 1 on every row (the RBF kernel's value is 1), a budget
    B >= 83, and a comparator g of the kernel's space with ||g|| <= U = (1/4) sqrt((B + 1) /
    ln(B + 1)) (:func:`forgetron_norm_cap`); L(g) = sum_t max(0, 1 - y_t g(x_t)) over the rows
    (an upper bound on the sum over the mistakes, which is what the proof uses).  The removal
    damage is kept at most 15/32 of the mistakes and the shrinking damage 1/32 of them by the
    norm cap; the Perceptron's progress 1 - 2 l_t then leaves M / 2.

    Parameters
    ----------
    g_norm : float
        ||g||, in [0, U].
    hinge : float, default=0.0
        L(g), >= 0.
    budget : int, default=100
        B, >= 83.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If B < 83, ||g|| > U, or a value is out of its range.

    Examples
    --------
    >>> forgetron_bound(1.0, hinge=2.5, budget=100)     # 2 + 10
    12.0
    """
    owner = "forgetron_bound"
    B = params.integer(owner, "budget", budget, 83, what="an integer >= 83 (the theorem's "
                       "smallest budget)")
    n = params.nonnegative(owner, "g_norm", g_norm)
    h = params.nonnegative(owner, "hinge", hinge)
    cap = forgetron_norm_cap(B)
    if n > cap:
        raise ValueError(f"{owner}: parameter g_norm must be at most U = (1/4) sqrt((B + 1) / "
                         f"ln(B + 1)) = {cap:.6g} for B = {B}, got {g_norm!r}")
    return 2.0 * n * n + 4.0 * h


def projectron_bound(eta, g_norm, hinge=0.0) -> float:
    """The Projectron's mistake bound (Orabona, Keshet & Caputo 2009, "Bounded kernel-based
    online learning", JMLR 10, Theorem 1): M <= ||g||^2 / (1 - eta ||g||)^2 +
    2 L(g) / (1 - eta ||g||).

    Assumptions: K(x_t, x_t) <= 1 on every row, the projection threshold eta on the distance
    delta_t from K(x_t, .) to the span of the support vectors (the Projectron without a budget:
    every projected mistake has delta_t <= eta), and a comparator g of the kernel's space with
    eta ||g|| < 1; L(g) = sum_t max(0, 1 - y_t g(x_t)) over the rows.  The proof: a projected
    mistake's progress against h = g / (1 - eta ||g||) is that of a stored one less
    2 ||h|| delta_t, and with this h each mistake's progress is at least 1 - 2 l_t(g) /
    (1 - eta ||g||).  It holds for Projectron++ too (its margin steps only add progress terms
    bounded by the same losses).

    Parameters
    ----------
    eta : float
        The threshold, >= 0.
    g_norm : float
        ||g||, >= 0 with eta ||g|| < 1.
    hinge : float, default=0.0
        L(g), >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> projectron_bound(0.0, 2.0)              # the Perceptron's ||g||^2
    4.0
    >>> projectron_bound(0.25, 2.0, hinge=1.0)  # 4 / 0.25 + 2 / 0.5
    20.0
    """
    owner = "projectron_bound"
    e = params.nonnegative(owner, "eta", eta)
    n = params.nonnegative(owner, "g_norm", g_norm)
    h = params.nonnegative(owner, "hinge", hinge)
    s = 1.0 - e * n
    if not s > 0.0:
        raise ValueError(f"{owner}: eta * g_norm must be < 1 (the bound needs it), got "
                         f"{e!r} * {n!r}")
    return n * n / (s * s) + 2.0 * h / s
