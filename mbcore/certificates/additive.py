"""The rules of the additive family (the Perceptron and its relatives, the kernel Perceptron),
binary and with K >= 3 classes: a bound in the radius R of the rows as the learner sees them
and a margin gamma, given (trusted), checked (a given u) or searched (:mod:`mbcore.margins`).
"""

import copy
import math

import numpy as np

from .. import _params as params
from .._messages import spell
from .._rows import check_rows, row_sqnorms
from ..bounds import (kernel_perceptron_bound, margin_perceptron_bound,
                      multiclass_margin_perceptron_bound, multiclass_perceptron_bound, ovr_bound,
                      td_bound)
from ..margins import (KESLER_MAX, best_margin, kernel_kesler_margin, margin, multiclass_margin,
                       multiclass_search, radius, search_margin, total_distance)
from ._core import (TRUSTED, UNVERIFIED, VERIFIED, VIOLATED, Certificate, gram, gram_diag,
                    linear_view, rule, tightest)

_SQRT2 = math.sqrt(2.0)


def _margin_of(cert, ctx, view, yy, what):
    """gamma for the Perceptron bounds: from u (checked), from gamma (trusted) or searched."""
    if ctx.u is not None:
        g = margin(view, yy, ctx.u)
        cert.quantities["gamma"] = g
        st = cert.assume(f"the given u separates the {what} with margin gamma > 0",
                         VERIFIED if g > 0 else VIOLATED)
        return g if st == VERIFIED else None
    if ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        cert.quantities["gamma"] = g
        cert.assume(f"some unit u separates the {what} with margin gamma (given)", TRUSTED)
        return g
    g, upper, _, how, stopped = search_margin(view, yy, ctx.tol, ctx.max_iter)
    cert.quantities["gamma"] = g
    cert.quantities["gamma_upper"] = upper
    if g > 0.0:
        cert.assume(f"a unit u (found by {how}) separates the {what} with margin gamma > 0",
                    VERIFIED)
        return g
    cert.assume(f"the {what} are linearly separable (best margin <= {upper:.3g}"
                + (f"; {stopped})" if stopped else ")"),
                VIOLATED if upper <= 0.0 else UNVERIFIED)
    return None


@rule("margin")
@rule("perceptron", td=True)
def _margin(cert, ctx, td=False):
    """A linear learner's bound in the radius R of its rows and a margin gamma (its class's
    ``_margin_bound``); ``td``: with a normalising learner given u and gamma, Balcan's bound in
    the total distance TD_gamma too (the Perceptron's rule)."""
    L = ctx.L
    view = linear_view(L, ctx.X)
    yy = ctx.signs()
    R = radius(view)
    cert.quantities["R"] = R
    cert.assume(f"the {type(L).__name__} starts from w = 0 (a fresh learner)", VERIFIED)
    options = []
    if td and L._normalizes() and ctx.u is not None and ctx.gamma is not None:
        # Balcan's bound holds for any unit u: nothing to assume beyond the computed TD_gamma;
        # the given u's own margin, when positive, adds Novikoff's bound as an alternative
        gt = params.positive("certify", "gamma", ctx.gamma)
        td = total_distance(view, yy, ctx.u, gt) * ctx.passes
        cert.quantities.update(gamma=gt, TD_gamma=td)
        cert.assume("TD_gamma of the given u computed on the unit-length examples", VERIFIED)
        options.append(("Balcan 1/gamma^2 + 2 TD_gamma/gamma", td_bound(gt, td),
                        "Balcan lecture 3, section 1"))
        g = margin(view, yy, ctx.u)
        g = g if g > 0 else None
    else:
        g = _margin_of(cert, ctx, view, yy, "examples")
    if g is not None:
        options.append(L._margin_bound(R, g))
    if not options:
        cert.no_bound("no margin established: " + spell("give u (checked) or gamma (trusted)",
                                                        "give --margin GAMMA (trusted)"))
        return
    tightest(cert, options)


@rule("margin perceptron")
def _margin_perceptron(cert, ctx):
    L = ctx.L
    if float(L.margin_fraction) != 0.5:
        cert.no_bound("Balcan's 12/gamma^2 is proved for margin_fraction=0.5 only")
        return
    view = linear_view(L, ctx.X)
    yy = ctx.signs()
    lg = float(L.gamma)
    cert.quantities["learner gamma"] = lg
    if ctx.u is not None:
        g = margin(view, yy, ctx.u)
        cert.quantities["data margin"] = g
        cert.assume("the given u has margin >= the learner's gamma on the unit-length examples",
                    VERIFIED if g >= lg else VIOLATED)
    else:
        g, upper, _, how, _ = search_margin(view, yy, ctx.tol, ctx.max_iter)
        cert.quantities["data margin"] = g
        cert.quantities["data margin upper"] = upper
        cert.assume(("a unit u (found by " + how + ")" if g >= lg else "some unit u")
                    + " has margin >= the learner's gamma on the unit-length examples",
                    VERIFIED if g >= lg else VIOLATED if upper < lg else UNVERIFIED)
    if (row_sqnorms(check_rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    cert.set_bound("Margin Perceptron 12/gamma^2", margin_perceptron_bound(min(lg, 1.0)),
                   "Balcan lecture 3, Theorem 2")


@rule("kernel perceptron")
def _kernel_perceptron(cert, ctx):
    L = ctx.L
    if L.budget is not None:
        cert.no_bound("a support-vector budget forgets mistakes and voids the bound")
        return
    n = np.shape(ctx.X)[0]
    if ctx.gamma is not None:
        K = None
        g = params.positive("certify", "gamma", ctx.gamma)
        cert.assume("some unit f in feature space has margin gamma (given)", TRUSTED)
    elif n > 4096:
        cert.no_bound(f"{n} examples are too many for the Gram matrix (at most 4096): give "
                      + spell("gamma", "--margin GAMMA (a margin in feature space, trusted)"))
        return
    else:
        K = gram(L, ctx.X)
        r = best_margin(None, ctx.signs(), tol=ctx.tol, max_iter=ctx.max_iter, gram=K)
        g = r.gamma
        cert.quantities["gamma_upper"] = r.upper
        if not r.separable:
            cert.assume("the examples are separable in the kernel's feature space",
                        VIOLATED if r.upper <= 0 else UNVERIFIED)
            cert.quantities["gamma"] = g
            return
        cert.assume("a unit f in feature space (found by best_margin) has margin gamma > 0",
                    VERIFIED)
    R2 = float(np.max(gram_diag(L, ctx.X) if K is None else np.diag(K)))
    cert.quantities.update(R2=R2, gamma=g)
    cert.set_bound("kernel Perceptron R2/gamma^2", kernel_perceptron_bound(R2, g),
                   "Kakade lecture 9 (kernelized Perceptron)")


# -- the additive family with K >= 3 classes ----------------------------------------------------

def _given_matrix(ctx, K, D):
    """The given u as a (K, D) matrix, one row per class."""
    U = np.asarray(ctx.u, dtype=np.float64)
    if U.shape != (K, D):
        extra = " (the intercepts as its last column)" if ctx.L.fit_intercept else ""
        raise ValueError(f"certify: u must have shape ({K}, {D}) with {K} classes: one row per "
                         f"class of classes_{extra}, got {U.shape}")
    return U


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


def _fitted_candidate(ctx, make):
    """The caller's candidate for :func:`mbcore.margins.multiclass_search`: the weights of the
    learner ``make()`` fitted to the data (None if the fit fails)."""
    def candidate():
        sep = make()
        W = _fitted_matrix(ctx, sep)
        return None if W is None else (W, f"the weights of a {type(sep).__name__} fitted to "
                                          "the data")
    return candidate


def _kesler(cert, ctx):
    """K >= 3 classes, multi_class="multiclass": the class's ``_kesler_bound`` in the radius R
    and the multi-class margin gamma (given, checked or searched)."""
    L = ctx.L
    K = len(L.classes_)
    view = linear_view(L, ctx.X)
    R = radius(view)
    cert.quantities.update(K=K, R=R)
    cert.assume(f"the multi-class {type(L).__name__} starts from W = 0 (a fresh learner)",
                VERIFIED)
    what = "the examples"
    if ctx.u is not None:
        U = _given_matrix(ctx, K, view.shape[1])
        g = multiclass_margin(view, ctx.y, U, L.classes_)
        cert.quantities["gamma"] = g
        st = cert.assume(f"the given U separates {what} with multi-class margin gamma > 0",
                         VERIFIED if g > 0 else VIOLATED)
        if st != VERIFIED:
            cert.no_bound("the given U does not separate the classes (its multi-class margin "
                          f"is {g:.3g})")
            return
    elif ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        cert.quantities["gamma"] = g
        cert.assume(f"some U of unit Frobenius norm separates {what} with multi-class margin "
                    "gamma (given)", TRUSTED)
    else:
        g, upper, how = multiclass_search(view, ctx.y, L.classes_, 0.0, ctx.tol, ctx.max_iter,
                                           _fitted_candidate(ctx, L._search_learner))
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
    view = linear_view(L, ctx.X)
    lg = float(L.gamma)
    cert.quantities.update(K=K)
    cert.quantities["learner gamma"] = lg
    text = "{} has multi-class margin >= the learner's gamma on the unit-length examples"
    if ctx.u is not None:
        U = _given_matrix(ctx, K, view.shape[1])
        g = multiclass_margin(view, ctx.y, U, L.classes_)
        cert.quantities["data margin"] = g
        cert.assume(text.format("the given U"), VERIFIED if g >= lg else VIOLATED)
    else:
        g, upper, how = multiclass_search(view, ctx.y, L.classes_, lg, ctx.tol, ctx.max_iter,
                                           _fitted_candidate(ctx, L._search_learner))
        upper = _SQRT2 if upper is None else min(upper, _SQRT2)   # unit U on unit rows
        g = max(g, 0.0) if math.isfinite(g) else 0.0
        cert.quantities["data margin"] = g
        cert.quantities["data margin upper"] = upper
        cert.assume(text.format(f"a U of unit Frobenius norm ({how})" if g >= lg else
                                "some U of unit Frobenius norm"),
                    VERIFIED if g >= lg else VIOLATED if upper < lg else UNVERIFIED)
    if (row_sqnorms(check_rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    cert.set_bound("multi-class Margin Perceptron 24/gamma^2 (Kesler)",
                   multiclass_margin_perceptron_bound(min(lg, _SQRT2)),
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
    view = linear_view(L, ctx.X)
    labels = np.asarray(ctx.y)
    need = float(L.gamma) if margin_learner else 0.0
    cert.quantities["K"] = K
    if margin_learner:
        cert.quantities["learner gamma"] = need
    else:
        R = radius(view)
        cert.quantities["R"] = R
        cert.assume(f"every one-vs-rest {type(L).__name__} starts from w = 0 (a fresh learner)",
                    VERIFIED)
    U = _given_matrix(ctx, K, view.shape[1]) if ctx.u is not None else None
    trusted = ctx.gamma is not None and U is None and not margin_learner
    gammas, uppers, status, hows = [], [], [], set()
    for k in range(K):
        yk = np.where(labels == cl[k], 1.0, -1.0)
        if U is not None:
            g, up = margin(view, yk, U[k]), None
        elif trusted:
            g, up = params.positive("certify", "gamma", ctx.gamma), None
        else:
            g, up, _, h, _ = search_margin(view, yk, ctx.tol, ctx.max_iter)
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
    if margin_learner and (row_sqnorms(check_rows("certify", view)) == 0).any():
        cert.assume("no example is zero (it has no direction)", VIOLATED)
    if margin_learner:
        each = margin_perceptron_bound(min(need, 1.0))
        cert.set_bound("one-vs-rest: sum of Margin Perceptron 12/gamma^2",
                       ovr_bound([each] * K), "Balcan lecture 3, Theorem 2, for each class")
        return
    if bad:
        cert.no_bound(f"no margin established for the one-vs-rest problem of class"
                      f"{'es' if len(bad) > 1 else ''} {names}")
        return
    each = [L._margin_bound(R, g) for g in gammas]
    cert.set_bound(f"one-vs-rest: sum of {each[0][0].replace('gamma', 'gamma_k')}",
                   ovr_bound([b[1] for b in each]), f"{each[0][2]}, for each class")


@rule("multiclass", k_classes=True)
def _multiclass(cert, ctx):
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr(cert, ctx)
    else:
        _kesler(cert, ctx)


@rule("multiclass margin perceptron", k_classes=True)
def _multiclass_margin(cert, ctx):
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr(cert, ctx, margin_learner=True)
    else:
        _multiclass_margin_perceptron(cert, ctx)


@rule("multiclass kernel", k_classes=True)
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
        cert.set_bound("one-vs-rest: sum of kernel Perceptron R2/gamma_k^2", ovr_bound(bounds),
                       "Kakade lecture 9 (kernelized Perceptron), for each class")
        return
    n = np.shape(ctx.X)[0]
    cert.assume("the multi-class kernel Perceptron starts with no support vector (a fresh "
                "learner)", VERIFIED)
    if ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        R2 = float(np.max(gram_diag(L, ctx.X)))
        cert.assume("some U of unit norm in feature space has multi-class margin gamma (given)",
                    TRUSTED)
    elif n * (K - 1) > KESLER_MAX:
        cert.no_bound(f"{n} examples x {K - 1} rivals are too many Kesler vectors for the Gram "
                      f"matrix (at most {KESLER_MAX}): give "
                      + spell("gamma", "--margin GAMMA (a multi-class margin in feature space, "
                              "trusted)"))
        return
    else:
        G = gram(L, ctx.X)
        R2 = float(np.max(np.diag(G)))
        r = kernel_kesler_margin(G, ctx.y, L.classes_, ctx.tol, ctx.max_iter)
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
                   multiclass_perceptron_bound(math.sqrt(R2), g),
                   "Kesler's construction (Duda & Hart 1973); Kakade lecture 9")
