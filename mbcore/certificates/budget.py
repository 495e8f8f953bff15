"""Certificates of the budget kernel Perceptrons (:mod:`mbcore.budget`): the self-tuned
Forgetron's bound (Dekel, Shalev-Shwartz & Singer 2008) and the Projectron's (Orabona, Keshet &
Caputo 2009, for Projectron++ too), each against a comparator g of the kernel's space.

The comparator: g = c f, f of unit norm in the kernel's space, c >= 0 chosen to minimise the
bound within the theorem's range (c <= U for the Forgetron, eta c < 1 for the Projectron).
Every c gives a valid bound, so the choice only makes it tighter.  f is the best-margin
direction of the rows in the kernel's space (``mbcore.margins.best_margin`` on the Gram matrix,
at most 4096 rows), whose values on the rows are computed here, so that the hinge losses
L(g) = sum_t max(0, 1 - c y_t f(x_t)) are counted on the data (over every pass); or, with
``gamma`` given, some unit f of margin gamma taken on trust (L(g) = n max(0, 1 - c gamma) per
pass).
"""

import math

import numpy as np

from .. import _params as params
from .._messages import spell
from ..bounds import forgetron_bound, forgetron_norm_cap, projectron_bound
from ..margins import best_margin
from ._core import TRUSTED, VERIFIED, VIOLATED, gram, gram_diag, rule

_GRAM_MAX = 4096
_FORGETRON_SOURCE = ("Dekel, Shalev-Shwartz & Singer 2008 (SIAM J. Computing 37(5)), the "
                     "self-tuned Forgetron's bound (mbcore.bounds.forgetron_bound)")
_PROJECTRON_SOURCE = ("Orabona, Keshet & Caputo 2009 (JMLR 10), Theorem 1 "
                      "(mbcore.bounds.projectron_bound)")


def _unit_kernel(cert, ctx):
    """K(x_t, x_t) <= 1 on every row (the theorems' assumption); False when it fails."""
    top = float(np.max(gram_diag(ctx.L, ctx.X))) if np.shape(ctx.X)[0] else 0.0
    cert.quantities["max K(x, x)"] = top
    ok = top <= 1.0
    cert.assume("K(x, x) <= 1 on every row (the RBF kernel's is 1)", VERIFIED if ok else VIOLATED)
    if not ok:
        cert.no_bound(f"K(x, x) reaches {top:.6g} > 1 on these rows: the theorem assumes "
                      "K(x, x) <= 1 (the RBF kernel, or rows scaled so that it holds)")
    return ok


def _margins(cert, ctx):
    """The values y_t f(x_t) of a unit f on the rows (None with a trusted gamma: then the
    float gamma), or False when neither is at hand."""
    n = np.shape(ctx.X)[0]
    if ctx.gamma is not None:
        g = params.positive("certify", "gamma", ctx.gamma)
        cert.assume("some unit f of the kernel's space has margin gamma on every row (given)",
                    TRUSTED)
        return g
    if n > _GRAM_MAX:
        cert.no_bound(f"{n} examples are too many for the Gram matrix (at most {_GRAM_MAX}): "
                      "give " + spell("gamma", "--margin GAMMA (a margin in feature space, "
                                               "trusted)"))
        return False
    K = gram(ctx.L, ctx.X)
    y = ctx.signs()
    r = best_margin(None, y, tol=ctx.tol, max_iter=ctx.max_iter, gram=K)
    a = np.asarray(r.coef, dtype=np.float64)
    norm2 = float(a @ K @ a)
    if not norm2 > 0.0:
        return np.zeros(n)
    m = y * (K @ a) / math.sqrt(norm2)
    cert.quantities["gamma"] = float(np.min(m)) if n else 0.0
    cert.assume("f: the best-margin direction of the rows in the kernel's space (found by "
                "best_margin), its values computed on the rows", VERIFIED)
    return m


def _hinge(m, c, n, passes):
    """L(c f) over the run: sum_t max(0, 1 - c y_t f(x_t)), every pass."""
    if isinstance(m, float):
        return passes * n * max(0.0, 1.0 - c * m)
    return passes * float(np.maximum(0.0, 1.0 - c * m).sum())


def _best_scale(value, top, m, n, passes, steps=400):
    """(c, L, bound): the scale c in [0, top] of the smallest bound value(c, L(c)) on a grid
    refined around its best point (any c is valid)."""
    best = None
    lo, hi = 0.0, top
    for _ in range(3):
        for c in np.linspace(lo, hi, steps + 1):
            c = float(c)
            L = _hinge(m, c, n, passes)
            v = value(c, L)
            if best is None or v < best[2]:
                best = (c, L, v)
        w = (hi - lo) / steps
        lo, hi = max(0.0, best[0] - w), min(top, best[0] + w)
    return best


@rule("forgetron")
def _forgetron(cert, ctx):
    """M <= 2 ||g||^2 + 4 L(g) for ||g|| <= U = sqrt((B + 1) / ln(B + 1)) / 4, B >= 83."""
    L = ctx.L
    B = int(L.budget)
    ok = B >= 83
    cert.assume(f"budget B = {B} >= 83 (the theorem's smallest)", VERIFIED if ok else VIOLATED)
    if not ok:
        cert.no_bound(f"the self-tuned Forgetron's bound is proved for budgets of 83 or more; "
                      f"budget={B}")
        return
    if not _unit_kernel(cert, ctx):
        return
    m = _margins(cert, ctx)
    if m is False:
        return
    U = forgetron_norm_cap(B)
    n = np.shape(ctx.X)[0]
    c, hinge, _ = _best_scale(lambda c, h: forgetron_bound(c, h, B), U, m, n, ctx.passes)
    cert.quantities.update(U=U, g_norm=c, hinge=hinge)
    cert.assume(f"the comparator g = c f with ||g|| = c <= U = {U:.6g} (the theorem's norm cap)",
                VERIFIED)
    cert.set_bound("self-tuned Forgetron, 2 ||g||^2 + 4 L(g)", forgetron_bound(c, hinge, B),
                   _FORGETRON_SOURCE)


@rule("projectron")
def _projectron(cert, ctx):
    """M <= ||g||^2 / (1 - eta ||g||)^2 + 2 L(g) / (1 - eta ||g||), eta ||g|| < 1, without a
    budget (every projected mistake within distance eta of the span)."""
    L = ctx.L
    name = type(L).__name__
    if L.budget is not None:
        cert.assume("no budget (budget=None: every projection within the threshold eta)",
                    VIOLATED)
        cert.no_bound(f"with budget={L.budget} a full {name} projects mistakes farther than "
                      "eta from the span of its support vectors, which the theorem does not "
                      "cover: use budget=None for its bound")
        return
    cert.assume("no budget (budget=None: every projection within the threshold eta)", VERIFIED)
    if not _unit_kernel(cert, ctx):
        return
    m = _margins(cert, ctx)
    if m is False:
        return
    eta = float(L.eta)
    n = np.shape(ctx.X)[0]
    # c ranges over [0, top], eta c < 1 (below 1/eta by a margin that keeps the bound finite)
    top = 1e6 if eta == 0.0 else (1.0 - 1e-9) / eta
    c, hinge, _ = _best_scale(lambda c, h: projectron_bound(eta, c, h), top, m, n, ctx.passes)
    cert.quantities.update(eta=eta, g_norm=c, hinge=hinge)
    cert.assume("the comparator g = c f with eta ||g|| < 1", VERIFIED)
    cert.set_bound(f"{name}, ||g||^2/(1 - eta||g||)^2 + 2 L(g)/(1 - eta||g||)",
                   projectron_bound(eta, c, hinge), _PROJECTRON_SOURCE)
