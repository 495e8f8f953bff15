"""The rules of the second-order learners (``mbcore.second_order``): AROW and the second-order
Perceptron with the full covariance, ALMA_p, and one-vs-rest with K >= 3 classes (the sum of
the binary bounds).

AROW's and the second-order Perceptron's bounds hold for every comparison vector u (and, for
the second-order Perceptron, every gamma > 0): their quantities are counted on the run itself
(the rows it updated on, its mistakes) and a u is only a choice, given or found.  ALMA's bound
needs a margin, checked (a given u), trusted (a given gamma) or searched (p = 2).
"""

import math

import numpy as np

from .. import _params as params
from .._messages import spell
from .._rows import check_rows, dense_rows
from ..base import clone
from ..bounds import alma_bound, arow_bound, ovr_bound, second_order_perceptron_bound
from ..margins import search_margin
from ..online import OnlineRun, run_online
from ._core import (TRUSTED, UNVERIFIED, VERIFIED, VIOLATED, BoundViolationError, Certificate,
                    Context, find_rule, rule)

_SQRT2 = math.sqrt(2.0)

# the scales c of a found u tried on data it does not separate (any u is allowed: the bound is
# the smallest over them)
_SCALES = np.logspace(-4.0, 4.0, 81)


def _view(L, X):
    """The rows as the learner sees them, dense float64: the constant 1 appended with
    ``fit_intercept``."""
    V = dense_rows(check_rows(type(L).__name__, X))
    if L.fit_intercept:
        V = np.hstack([V, np.ones((V.shape[0], 1))])
    return V


def _row_counts(mask, n):
    """How many times each of the n rows is in ``mask``, a mask over the run (all passes)."""
    return np.bincount(np.flatnonzero(mask) % n, minlength=n).astype(np.float64)


def _given_u(ctx, D):
    """The given u as a finite vector of the learner's D coordinates."""
    u = np.asarray(ctx.u, dtype=np.float64)
    if u.shape != (D,):
        extra = " (the intercept last)" if ctx.L.fit_intercept else ""
        raise ValueError(f"certify: u must have shape ({D},) to match the rows as the learner "
                         f"sees them{extra}, got {u.shape}")
    if not np.isfinite(u).all():
        raise ValueError("certify: u contains NaN or infinity")
    return u


def _directions(ctx, found):
    """Unit candidates for u on rows no u separates: the search's u (when it found one) and
    the learner's own final weights (the mean, the intercept last)."""
    L = ctx.fresh
    w = np.append(np.ravel(L.coef_), L.intercept_) if L.fit_intercept else np.ravel(L.coef_)
    out = []
    for v in (found, np.asarray(w, dtype=np.float64)):
        if v is not None and np.isfinite(v).all() and np.linalg.norm(v) > 0:
            out.append(v / np.linalg.norm(v))
    return out


def _intercept_text(L):
    return ("the rows as the learner sees them (x with the constant 1 appended: fit_intercept)"
            if L.fit_intercept else "the rows as the learner sees them (x, no intercept)")


def _full_form(cert, L, reason):
    """Whether the learner keeps the full covariance (the theorem's form); else no bound."""
    full = L.covariance == "full"
    cert.assume("the covariance is full (covariance='full': the theorem's form)",
                VERIFIED if full else VIOLATED)
    if not full:
        cert.no_bound(reason)
    return full


_AROW_DIAGONAL = ("Crammer, Kulesza & Dredze prove AROW's bound for the full covariance; the "
                  "diagonal form (covariance='diagonal') keeps only the diagonal of each "
                  "update and no bound of it is proved: use covariance='full' for one")
_SOP_DIAGONAL = ("Cesa-Bianchi, Conconi & Gentile's bound is for the full correlation matrix; "
                 "the diagonal form (covariance='diagonal') is not in the paper and no bound "
                 "of it is proved: use covariance='full' for one")
_AROW_SOURCE = ("Crammer, Kulesza & Dredze 2009 (NIPS) and 2013 (Machine Learning), the binary "
                "bound (mbcore.bounds.arow_bound)")
_SOP_SOURCE = ("Cesa-Bianchi, Conconi & Gentile 2005 (SIAM J. Comput. 34(3)), the mistake "
               "bound of the second-order Perceptron (mbcore.bounds."
               "second_order_perceptron_bound)")


@rule("arow")
def _arow(cert, ctx):
    """AROW, full covariance: M <= sqrt(r ||u||^2 / a + u' X_A u) sqrt(log det(I + a X_A / r)
    + U) + hinge - U, X_A and U counted on the run's updates (mbcore.bounds.arow_bound)."""
    L = ctx.L
    if not _full_form(cert, L, _AROW_DIAGONAL):
        return
    V = _view(L, ctx.X)
    n, D = V.shape
    yy = ctx.signs()
    r, a = float(L.r), float(L.a)
    run = cert.run
    # A: the rows it updated on; a mistake it did not update on (a zero row, or a confidence
    # v <= a 2**-52 ||x'||^2: the covariance is certain along x') left the state as it was,
    # and the proof's sum runs over the updates: such mistakes are added to the bound as they
    # are (S)
    c = _row_counts(run.updated, n)
    M = int(np.count_nonzero(run.errors))
    S = int(np.count_nonzero(run.errors & ~run.updated))
    U = int(np.count_nonzero(run.updated & ~run.errors))
    XA = V.T @ (V * c[:, None])
    sign, log_det = np.linalg.slogdet(np.eye(D) + (a / r) * XA)
    log_det = max(float(log_det), 0.0)
    cert.quantities.update(r=r, a=a, M=M, U=U, updates=int(np.count_nonzero(run.updated)),
                           not_updated=S, log_det=log_det)
    cert.assume(f"the {type(L).__name__} starts from w = 0, Sigma = a I (a fresh learner)",
                VERIFIED)
    cert.assume(_intercept_text(L), VERIFIED)
    cert.assume("U and X_A counted on the run: X_A sums x x' over the rows updated on, U counts "
                "the updates that were not mistakes, and the mistakes not updated on are added "
                "to the bound (not_updated)", VERIFIED)
    if a != 1.0:
        cert.assume("Sigma_0 = a I: the paper's Sigma_0 = I on the rows sqrt(a) x, which the "
                    "rule runs exactly alike", VERIFIED)

    def bound_of(u):
        g = np.maximum(0.0, 1.0 - yy * (V @ u))
        q = float(c @ (V @ u) ** 2)
        h = float(c @ g)
        return arow_bound(r, float(np.linalg.norm(u)), q, log_det, h, U, a) + S, q, h

    if ctx.u is not None:
        u = _given_u(ctx, D)
        cert.assume("the given u (the theorem holds for every u)", VERIFIED)
    elif ctx.gamma is not None:
        # a unit u* of margin gamma on every row: u = u* / gamma has no hinge loss, ||u|| =
        # 1/gamma and u' X_A u <= lambda_max(X_A) / gamma^2
        g = params.positive("certify", "gamma", ctx.gamma)
        lam = float(np.linalg.eigvalsh(XA)[-1]) if D else 0.0
        cert.quantities.update(gamma=g, lambda_max=lam, hinge=0.0)
        cert.assume("some unit u* separates the rows with margin gamma (given): u = u* / gamma, "
                    "u' X_A u <= lambda_max(X_A) / gamma^2", TRUSTED)
        cert.set_bound("AROW, full covariance", arow_bound(r, 1.0 / g, lam / g ** 2, log_det,
                                                           0.0, U, a) + S, _AROW_SOURCE)
        return
    else:
        gam, upper, us, how, stopped = search_margin(V, yy, ctx.tol, ctx.max_iter)
        cert.quantities.update(gamma=gam, gamma_upper=upper)
        if gam > 0.0:
            u = us / gam
            cert.assume(f"u = u* / gamma, u* the unit separator found by {how}: margin 1 on "
                        "every row (the theorem holds for every u)", VERIFIED)
        else:
            cands = [s * v for v in _directions(ctx, us) for s in _SCALES] or [np.zeros(D)]
            u = min(cands, key=lambda v: bound_of(v)[0])
            cert.assume(f"the rows are not separated (best margin <= {upper:.3g}): u = c u*, "
                        "u* the unit u of the margin search or the learner's final weights, c "
                        f"one of {len(_SCALES)} scales, the best of them (the theorem holds "
                        "for every u)", VERIFIED)
    value, q, h = bound_of(u)
    cert.quantities.update(u_norm=float(np.linalg.norm(u)), uXu=q, hinge=h)
    cert.set_bound("AROW, full covariance", value, _AROW_SOURCE)



@rule("second order perceptron")
def _second_order_perceptron(cert, ctx):
    """The second-order Perceptron, full form: M <= D/gamma + (1/gamma) sqrt((a ||u||^2 +
    u' X_M' X_M u) sum ln(1 + lambda_i / a)), on the run's mistakes
    (mbcore.bounds.second_order_perceptron_bound)."""
    L = ctx.L
    if not _full_form(cert, L, _SOP_DIAGONAL):
        return
    every = getattr(L, "update", "mistakes") == "every"
    cert.assume("the steps are on the mistakes only (update='mistakes': the theorem's rule)",
                VIOLATED if every else VERIFIED)
    if every:
        cert.no_bound("update='every' steps on every row, right or wrong (the regularized least "
                      "squares classifier); Cesa-Bianchi, Conconi & Gentile's bound is for the "
                      "steps on mistakes: use update='mistakes' for one")
        return
    V = _view(L, ctx.X)
    n, D = V.shape
    yy = ctx.signs()
    a = float(L.a)
    run = cert.run
    # (every mistake is an update, a zero row's adding 0; one that were not would have left
    # the state as it was, and is added to the bound as it is: not_updated)
    c = _row_counts(run.errors & run.updated, n)
    S = int(np.count_nonzero(run.errors & ~run.updated))
    XM = V.T @ (V * c[:, None])
    lam = np.clip(np.linalg.eigvalsh(XM), 0.0, None) if D else np.zeros(0)
    cert.quantities.update(a=a, M=int(np.count_nonzero(run.errors)), not_updated=S,
                           sum_log=float(np.log1p(lam / a).sum()))
    cert.assume(f"the {type(L).__name__} starts from theta = 0, A = a I (a fresh learner)",
                VERIFIED)
    cert.assume(_intercept_text(L), VERIFIED)
    cert.assume("X_M and D counted on the run's mistakes (the rows it updated on)", VERIFIED)

    def bound_of(u, g):
        m = yy * (V @ u)
        d = float(c @ np.maximum(0.0, g - m))
        q = float(c @ (V @ u) ** 2)
        return second_order_perceptron_bound(g, float(np.linalg.norm(u)), q, lam, d, a) + S, \
            q, d

    def best_gamma(u):
        """The gamma that minimises the bound for this u: the bound is affine in 1/gamma
        between the margins of the mistakes, so the best is one of them."""
        m = (yy * (V @ u))[c > 0]
        cands = np.unique(m[m > 0])
        if cands.size == 0:
            return 1.0
        return float(min(cands, key=lambda g: bound_of(u, float(g))[0]))

    if ctx.u is not None:
        u = _given_u(ctx, D)
        if ctx.gamma is not None:
            g = params.positive("certify", "gamma", ctx.gamma)
            cert.assume("the given u and gamma (the theorem holds for every u and gamma > 0)",
                        VERIFIED)
        else:
            g = best_gamma(u)
            cert.assume("the given u, gamma the best for it among the margins of the mistakes "
                        "(the theorem holds for every u and gamma > 0)", VERIFIED)
    elif ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        top = float(lam[-1]) if lam.size else 0.0
        cert.quantities.update(gamma=g, lambda_max=top, D=0.0)
        cert.assume("some unit u separates the rows with margin gamma (given): D = 0, "
                    "u' X_M' X_M u <= lambda_max", TRUSTED)
        cert.set_bound("second-order Perceptron, full form",
                       second_order_perceptron_bound(g, 1.0, top, lam, 0.0, a) + S, _SOP_SOURCE)
        return
    else:
        gam, upper, u, how, stopped = search_margin(V, yy, ctx.tol, ctx.max_iter)
        cert.quantities["gamma_upper"] = upper
        if gam > 0.0:
            g = float(gam)
            cert.assume(f"a unit u found by {how} with margin gamma on every row: D = 0 (the "
                        "theorem holds for every u and gamma > 0)", VERIFIED)
        else:
            cands = [(v, best_gamma(v)) for v in _directions(ctx, u)] or [(np.zeros(D), 1.0)]
            u, g = min(cands, key=lambda vg: bound_of(*vg)[0])
            cert.assume(f"the rows are not separated (best margin <= {upper:.3g}): u the unit u "
                        "of the margin search or the learner's final weights, the better, and "
                        "gamma the best for it among the margins of the mistakes (the theorem "
                        "holds for every u and gamma > 0)", VERIFIED)
    value, q, d = bound_of(u, g)
    cert.quantities.update(gamma=g, u_norm=float(np.linalg.norm(u)), uXu=q, D=d)
    cert.set_bound("second-order Perceptron, full form", value, _SOP_SOURCE)



@rule("alma")
def _alma(cert, ctx):
    """ALMA_p(alpha; 1/alpha, sqrt 2): at most 2 (p - 1) / (alpha^2 gamma^2) + 8/alpha - 4
    corrections on rows of normalised p-norm margin gamma (mbcore.bounds.alma_bound)."""
    L = ctx.L
    alpha, B, C, p = float(L.alpha), float(L._B()), float(L.C), float(L.p)
    cert.quantities.update(p=p, alpha=alpha, B=B, C=C)
    ok = math.isclose(B, 1.0 / alpha, rel_tol=1e-12) and math.isclose(C, _SQRT2, rel_tol=1e-12)
    cert.assume(f"B = 1/alpha and C = sqrt(2), the values the bound is proved for (B={B:g}, "
                f"C={C:g})", VERIFIED if ok else VIOLATED)
    if not ok:
        cert.no_bound(f"Gentile's bound on ALMA's corrections is proved for B = 1/alpha and C = "
                      f"sqrt(2); this learner has B={B:g}, C={C:g} (1/alpha = {1.0 / alpha:g})")
        return
    V = _view(L, ctx.X)
    norms = np.sum(np.abs(V) ** p, axis=1) ** (1.0 / p)
    nz = norms > 0.0
    Vh = V[nz] / norms[nz, None]
    yy = ctx.signs()[nz]
    cert.assume(f"the {type(L).__name__} starts from w = 0, k = 1 (a fresh learner)", VERIFIED)
    cert.assume(_intercept_text(L) + f", normalised in {p:g}-norm"
                + (f"; {int(np.count_nonzero(~nz))} zero rows left out (ALMA skips them: they "
                   "change nothing)" if not nz.all() else ""), VERIFIED)
    q = p / (p - 1.0)
    if ctx.u is not None:
        u = _given_u(ctx, V.shape[1])
        uq = float(np.sum(np.abs(u) ** q) ** (1.0 / q))
        g = float(np.min(yy * (Vh @ u)) / uq) if uq > 0 and yy.size else 0.0
        cert.quantities["gamma"] = g
        st = cert.assume(f"the given u, scaled to unit {q:g}-norm, has margin gamma > 0 on the "
                         "normalised rows", VERIFIED if g > 0 else VIOLATED)
        if st != VERIFIED:
            cert.no_bound(f"the given u does not separate the normalised rows (its margin is "
                          f"{g:.3g})")
            return
    elif ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        cert.quantities["gamma"] = g
        cert.assume(f"some u of unit {q:g}-norm has margin gamma (given) on the normalised rows",
                    TRUSTED)
    elif p != 2.0:
        cert.no_bound(f"the {p:g}-norm margin is searched for p = 2 only: "
                      + spell("give u (checked) or gamma (trusted)",
                              "give --margin GAMMA (trusted)"))
        return
    else:
        g, upper, _, how, stopped = search_margin(Vh, yy, ctx.tol, ctx.max_iter)
        cert.quantities.update(gamma=g, gamma_upper=upper)
        if g <= 0.0:
            cert.assume(f"the normalised rows are linearly separable (best margin <= {upper:.3g}"
                        + (f"; {stopped})" if stopped else ")"),
                        VIOLATED if upper <= 0.0 else UNVERIFIED)
            cert.no_bound("no margin established on the normalised rows: "
                          + spell("give u (checked) or gamma (trusted)",
                                  "give --margin GAMMA (trusted)"))
            return
        cert.assume(f"a unit u (found by {how}) has margin gamma > 0 on the normalised rows",
                    VERIFIED)
    # (a computed margin is at most 1 by Hoelder's inequality, up to its rounding)
    g = min(g, 1.0) if ctx.gamma is None else g
    cert.set_bound("ALMA_p 2(p-1)/(alpha^2 gamma^2) + 8/alpha - 4", alma_bound(g, alpha, p),
                   "Gentile 2001 (JMLR 2), with B = 1/alpha, C = sqrt(2), as mbcore.bounds."
                   "alma_bound states it (its constants not checked against the paper's text)")


@rule("one-vs-rest", k_classes=True)
def _one_vs_rest(cert, ctx):
    """K >= 3 classes, multi_class="ovr": each class against the rest is the binary learner
    on its own labels, certified by the class's binary rule (its ``bound`` tag) on its own
    run; the K-class count is at most the sum of the binary counts (mbcore.bounds.ovr_bound)."""
    L = ctx.L
    name = type(L).__name__
    if getattr(L, "multi_class", "ovr") != "ovr":
        cert.no_bound(f"{name} with multi_class={L.multi_class!r} (the single-constraint K-class "
                      "form, diagonal only) has no mistake bound here: use multi_class='ovr' "
                      "(the sum of the binary bounds)")
        return
    binary = find_rule(L._TAGS.bound)
    cl = np.asarray(L.classes_)
    K = len(cl)
    labels = np.asarray(ctx.y)
    U = None
    if ctx.u is not None:
        U = np.asarray(ctx.u, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != K:
            raise ValueError(f"certify: u must have one row per class of classes_ ({K} rows) "
                             f"with {K} classes, got shape {U.shape}")
    counted = L._TAGS.bound_counts
    bounds, missing, observed, names, void = [], [], [], set(), False
    for k in range(K):
        yk = np.where(labels == cl[k], 1, -1)
        sub_learner = clone(L)
        runs = [run_online(sub_learner, ctx.X, yk, np.array([-1, 1]), **ctx.fit_params)]
        for _ in range(ctx.passes - 1):
            runs.append(run_online(sub_learner, ctx.X, yk, None, **ctx.fit_params))
        run = OnlineRun.concatenate(runs)
        sub = Certificate(name, run, run.updates if counted == "updates" else run.mistakes,
                          counted)
        sctx = Context(sub_learner, sub_learner, ctx.X, yk, ctx.fit_params, ctx.passes,
                       None if U is None else U[k], ctx.gamma, None, ctx.tol, ctx.max_iter)
        binary.check(sub, sctx)
        observed.append(sub.observed)
        if sub.bound is not None and all(s in (VERIFIED, TRUSTED) for _, s in sub.assumptions):
            if sub.verified and not sub.holds:
                raise BoundViolationError(sub)
            bounds.append(sub.bound)
            names.add(sub.bound_name)
        else:       # (then the sum has no bound: the other classes are not run)
            missing.append(f"{cl[k]} ({sub.reason or 'an assumption not established'})")
            void = any(s == VIOLATED for _, s in sub.assumptions)
            break
    cert.quantities.update(K=K, **{f"binary {counted}": observed})
    listed = "; ".join(missing)
    cert.assume("each class against the rest has its binary bound (the binary learner run on "
                "its own labels)" + (f"; not for class {listed}" if missing else ""),
                (VIOLATED if void else UNVERIFIED) if missing else
                TRUSTED if ctx.gamma is not None and U is None
                else VERIFIED)
    if missing:
        cert.no_bound(f"no binary bound for the one-vs-rest problem of class {listed}")
        return
    cert.quantities["binary bounds"] = bounds
    cert.set_bound(f"one-vs-rest: sum of {' / '.join(sorted(names))}", ovr_bound(bounds),
                   "the binary bound for each class (mbcore.bounds.ovr_bound)")
