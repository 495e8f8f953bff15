"""The rules of the Winnow family, binary and with K >= 3 classes: bounds in the number of
variables n and a monotone disjunction (given, or found greedily on the data), or, for
Mesterharm's multi-class Winnow, a nonnegative target matrix and its margin delta.
"""

import copy
import math

import numpy as np

from .._rows import CSR, check_rows, row_dots
from .._validation import is_index_lists
from ..bounds import (elimination_winnow_bound, multiclass_winnow_bound, ovr_bound,
                      winnow_bound, winnow_star_bound)
from ..margins import attribute_errors, multiclass_winnow_margin
from ._core import UNVERIFIED, VERIFIED, VIOLATED, Certificate, class_codes, find_rule, rule


def _boolean_view(owner, X):
    """(rows, n, d) for 0/1 examples (dense or CSR), or None when some value is not 0/1."""
    rows = check_rows(owner, X)
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
    return np.rint(row_dots(rows, on)).astype(np.int64)


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
    X01 = CSR(*rows[2], rows[:2]) if isinstance(rows[2], tuple) else rows[2]
    a = attribute_errors(X01, pos.astype(np.int8), t) * ctx.passes
    cert.quantities.update(k=len(t), n=rows[1], target=t, A_c=a)
    if exact:
        cert.assume(f"the monotone disjunction of the {len(t)} variables ({how}) labels every "
                    "example", VERIFIED if a == 0 else VIOLATED)
    else:
        cert.assume(f"c = the monotone disjunction of the {len(t)} variables ({how}); A_c "
                    "counted on the data", VERIFIED)
    return len(t), a


@rule("winnow", theorem="agnostic")
@rule("elimination winnow", theorem="elimination")
@rule("winnow*", theorem="fixed target")
def _winnow_family(cert, ctx, theorem):
    """The binary bounds of the Winnow family, proved for the parameter values its class
    declares (its ``bound_params`` tag).  ``theorem``, the rule's parameter: "agnostic" (Winnow2's
    bound in the attribute errors of any monotone disjunction, Littlestone), "elimination"
    (a consistent disjunction, Kanade Thm 12) or "fixed target" (Winnow*, Angluin lecture 19)."""
    L = ctx.L
    name = type(L).__name__
    p = L.get_params()
    defaults = L._TAGS.bound_params
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
    if theorem == "agnostic":
        k, a = _disjunction_target(cert, ctx, rows, exact=False)
        cert.set_bound("Winnow2, agnostic (Littlestone)", winnow_bound(k, n, a),
                       "Angluin lectures 18-19")
    elif theorem == "elimination":
        k, _ = _disjunction_target(cert, ctx, rows, exact=True)
        cert.set_bound("elimination Winnow 2k log2 n + 2", elimination_winnow_bound(k, n),
                       "Kanade Thm 12")
    else:
        k, _ = _disjunction_target(cert, ctx, rows, exact=True)
        cert.quantities["C_a"] = k
        cert.set_bound("Winnow* with a fixed target (C_a = k)", winnow_star_bound(n, k),
                       "Angluin lecture 19")


# -- the Winnow family with K >= 3 classes --------------------------------------------------------

@rule("multiclass winnow", k_classes=True)
def _multiclass_winnow_family(cert, ctx):
    name = type(ctx.L).__name__
    K = len(ctx.L.classes_)
    cert.quantities["K"] = K
    binary = find_rule(ctx.L._TAGS.bound)          # the class's binary rule, and its theorem
    agnostic = binary is not None and binary.params.get("theorem") == "agnostic"
    if getattr(ctx.L, "multi_class", "multiclass") == "ovr":
        _ovr_winnow(cert, ctx, name, K, binary, agnostic)
    elif agnostic:                      # Mesterharm's bound is for Winnow2's own (agnostic) rule
        _multiclass_winnow(cert, ctx, K)
    else:
        cert.no_bound(f"no mistake bound is proved for the {name} rule with K = {K} classes "
                      "(multi_class='multiclass')")


def _ovr_winnow(cert, ctx, name, K, binary, agnostic):
    """One-vs-rest: learner k is the binary learner on y == classes_[k]; each binary problem
    is certified by the binary rule (``binary``; ``agnostic``: its theorem is the agnostic
    one), and the multi-class count is at most the sum of the binary counts
    (mbcore.bounds.ovr_bound)."""
    cl = np.asarray(ctx.L.classes_)
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
        binary.check(sub, sctx)
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
                VERIFIED if not missing else UNVERIFIED if agnostic else VIOLATED)
    if missing:
        cert.no_bound(f"no verified binary bound for the one-vs-rest problem of class{many} "
                      f"{listed} (first, {reasons[0]})")
        return
    cert.quantities["bounds per class"] = bounds
    cert.set_bound(f"one-vs-rest: sum of {' / '.join(sorted(names))}", ovr_bound(bounds),
                   f"{' / '.join(sorted(sources))}, for each class")


def _multiclass_winnow(cert, ctx, K):
    """Mesterharm's multi-class Winnow (beta = 1/alpha, x in [0, 1]): a nonnegative target M
    (K x n, sum 1) with margin delta gives ln(n K) / (delta ln alpha - ln((alpha + 1/alpha)/2))."""
    L = ctx.L
    alpha = float(L.alpha)
    if L.beta is not None and float(L.beta) != 1.0 / alpha:
        cert.no_bound("the multi-class Winnow bound is proved for beta = 1/alpha only")
        return
    rows = check_rows("certify", _winnow_X(ctx))
    n = rows[1]
    part = rows[2]
    values = part[0] if isinstance(part, tuple) else part
    if not ((values >= 0.0) & (values <= 1.0)).all():
        cert.no_bound("the multi-class Winnow bound needs examples in [0, 1]^n")
        return
    cert.assume("Winnow (multi-class) with beta = 1/alpha, all weights starting equal (a fresh "
                "learner), on examples in [0, 1]^n", VERIFIED)
    cl, codes = class_codes(ctx)
    loss = math.log((alpha + 1.0 / alpha) / 2.0)
    need = loss / math.log(alpha)
    cert.quantities.update(n=n, alpha=alpha)
    X01 = CSR(*part, rows[:2]) if isinstance(part, tuple) else part
    if ctx.target is not None:
        M = np.asarray(ctx.target, dtype=np.float64)
        if M.shape != (K, n):
            raise ValueError(f"certify: with {K} classes, target must be a nonnegative ({K}, {n}) "
                             f"matrix (one row per class of classes_) for multi-class Winnow, "
                             f"got shape {M.shape}")
        delta = multiclass_winnow_margin(X01, ctx.y, M, cl)
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
                hits[sel] = row_dots(rows, M[k])[sel]
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
        delta = multiclass_winnow_margin(X01, ctx.y, M, cl)
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
                   multiclass_winnow_bound(n, K, delta, alpha),
                   "Mesterharm 1999, Theorems 1-2 (relative entropy)")


def _winnow_X(ctx):
    """X as the Winnow learner reads it: with its parameter n_features set, lists of active
    indices (``is_index_lists``) become CSR rows through the learner's own input check; any
    other X as it is."""
    L = ctx.L
    if L.n_features is None or not is_index_lists(ctx.X):
        return ctx.X
    b = L._check_X(ctx.X, None)
    return CSR(b.data, b.indices, b.indptr, (b.n, b.d))
