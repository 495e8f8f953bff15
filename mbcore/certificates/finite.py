"""The rules of the finite classes: the Boolean learners (conjunctions, disjunctions and
decision lists by elimination) and the version spaces (Halving, SOA), each checked for a
consistent target on the data.
"""

import numpy as np

from ..boolean import boolean_rows, greedy_decision_list, most_specific_conjunction, unpack_rows
from ..bounds import conjunction_bound, decision_list_bound, disjunction_bound, halving_bound
from ._core import VERIFIED, VIOLATED, rule


def _bool_matrix(ctx):
    L = ctx.L
    if getattr(L, "packed", False):
        return unpack_rows("certify", ctx.X, L.n_features_in_)
    return boolean_rows("certify", ctx.X, None)


@rule("conjunction")
def _conjunction(cert, ctx):
    A = _bool_matrix(ctx)
    c = most_specific_conjunction(A, ctx.positive().astype(np.int8), classes=[0, 1])
    n = A.shape[1]
    cert.quantities.update(n=n, most_specific=c.literals_)
    cert.assume("some conjunction labels every example (the most specific one is consistent)",
                VIOLATED if c.inconsistent_ else VERIFIED)
    cert.set_bound("conjunction elimination n + 1", conjunction_bound(n),
                   "Balcan lecture 3, section 2.1; Kanade Thm 1")


@rule("disjunction")
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
    cert.set_bound("disjunction elimination", disjunction_bound(n, r, ctx.L.literals),
                   "Angluin lecture 18")


@rule("decision list")
def _decision_list(cert, ctx):
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
    cert.set_bound("decision lists (4n + 2)(L + 1)", decision_list_bound(n, L_),
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


@rule("halving", soa=False)
@rule("soa", soa=True)
def _finite_class(cert, ctx, soa):
    C = ctx.L.concepts
    consistent = _consistent_concepts(C, ctx.X, ctx.positive())
    cert.quantities.update(size=C.n_concepts, consistent=consistent)
    cert.assume("some concept of the class labels every example",
                VERIFIED if consistent else VIOLATED)
    if soa:
        try:
            d = C.littlestone_dimension()
        except ValueError:
            cert.quantities["Ldim <= floor(log2 |C|)"] = halving_bound(C.n_concepts)
            cert.set_bound("SOA <= Ldim <= floor(log2 |C|)", halving_bound(C.n_concepts),
                           "Littlestone 1988; Angluin lecture 25")
            return
        cert.quantities["Ldim"] = d
        cert.set_bound("SOA Ldim(C)", d, "Littlestone 1988; Angluin lecture 25")
    else:
        cert.set_bound("Halving floor(log2 |C|)", halving_bound(C.n_concepts),
                       "Kanade Thm 8; Angluin lecture 25")
