"""The rules of the experts: Weighted Majority, its randomized form (a bound on the expected
mistakes, computed exactly from the run's weights) and the Specialists, in the best expert's
mistakes counted on the advice.
"""

import math

import numpy as np

from ..bounds import randomized_wm_bound, specialists_bound, weighted_majority_bound
from ._core import VERIFIED, VIOLATED, rule


def _advice(ctx):
    """(P, wrong) for an advice matrix: wrong[t, i] = expert i was wrong in round t."""
    P = np.asarray(ctx.X)
    y = np.asarray(ctx.y)
    return P, P != y[:, None]


@rule("weighted majority", k_classes="any")
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
    cert.set_bound("Weighted Majority", weighted_majority_bound(best, n, beta),
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


@rule("randomized weighted majority", k_classes="any")
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
    cert.set_bound("randomized Weighted Majority (expected)", randomized_wm_bound(best, n, beta),
                   "Littlestone & Warmuth 1994; Angluin lecture 20")


@rule("specialists", k_classes="any")
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
    cert.set_bound("Specialists r log n / log promote", specialists_bound(r, n, p, d),
                   "Blum 1997; Angluin lecture 20")
