"""
From a mistake bound to a PAC learner
=====================================

Kanade's Theorem 4: run the conservative form of a learner with mistake bound B on examples
drawn from a distribution D, and stop after s = ⌈(1/ε) ln(B/δ)⌉ consecutive correct
predictions (or after B mistakes).  A hypothesis whose error is at least ε survives s examples
with probability at most (1 − ε)^s ≤ δ/B, and at most B hypotheses are ever tried, so with
probability at least 1 − δ the hypothesis returned has error below ε, from at most B·s examples.
:func:`mbcore.online_to_pac` is that conversion.  This is a small version of
``bench/experiments/online_to_pac.py`` (200 trials per setting in the full run).
"""

# %%
# Learners, targets and the exact error
# -------------------------------------
#
# Three learners, each on its own kind of target over n Boolean variables, with examples from
# the product distribution P(x_i = 1) = p (:class:`mbcore.ExampleOracle`):
#
# * ``Winnow()`` on a monotone disjunction of k ∈ {1, 2, 3} of n = 10 variables, p = 0.2,
#   B = ⌊2 + 3k(1 + log2 n)⌋;
# * ``Conjunction()`` on a conjunction of 2 or 3 literals (one negated in half the trials) of
#   n = 10 variables, p = 0.75, B = n + 1;
# * ``Halving`` over the 256 monotone conjunctions of n = 8 variables, target 1 to 3 of them,
#   p = 1/2, B = ⌊log2 256⌋ = 8.
#
# The error of the hypothesis returned is computed exactly: the probability under D of the
# points of {0,1}^n on which it and the target disagree.

import math

import matplotlib.pyplot as plt
import numpy as np

from mbcore import ConceptClass, Conjunction, ExampleOracle, Halving, MonotoneDNF, Winnow
from mbcore import online_to_pac
from mbcore.bounds import (conjunction_bound, halving_bound, online_to_pac_run_length,
                           online_to_pac_sample_size, winnow_bound)


def cube(n):
    """{0,1}^n, row j = the bits of j (x1 the most significant)."""
    j = np.arange(2 ** n)
    return ((j[:, None] >> (n - 1 - np.arange(n))) & 1).astype(np.uint8)


def conjunction(literals):
    """The conjunction of (variable, sign) literals as a function of a 2-D 0/1 array."""
    def c(X):
        out = np.ones(len(X), dtype=bool)
        for i, sign in literals:
            out &= X[:, i] == sign
        return out.astype(np.uint8)
    return c


def make(kind, rng):
    """(learner, target, n, p, B) for one trial."""
    if kind == "Winnow":
        n, k = 10, int(rng.integers(1, 4))
        rel = rng.choice(n, size=k, replace=False)
        return Winnow(), MonotoneDNF([[int(i)] for i in rel], n), n, 0.2, \
            math.floor(winnow_bound(k, n))
    if kind == "Conjunction":
        n, k = 10, int(rng.integers(2, 4))
        lits = [(int(i), 1) for i in rng.choice(n, size=k, replace=False)]
        if rng.random() < 0.5:
            lits[0] = (lits[0][0], 0)
        return Conjunction(), conjunction(lits), n, 0.75, conjunction_bound(n)
    n = 8
    C = ConceptClass.monotone_conjunctions(n)
    rel = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    return Halving(C), conjunction([(int(i), 1) for i in rel]), n, 0.5, halving_bound(C)


def trial(kind, seed, eps, delta):
    rng = np.random.default_rng(seed)
    learner, target, n, p, B = make(kind, rng)
    ex = ExampleOracle(target, n=n, p=p, seed=int(rng.integers(2 ** 63)))
    res = online_to_pac(learner, ex, B, eps, delta)
    D = cube(n)
    prob = np.prod(np.where(D == 1, p, 1 - p), axis=1)
    error = float(prob[res.hypothesis.predict(D) != target(D)].sum())
    return error, res.samples, online_to_pac_sample_size(B, eps, delta), res.stopped, B


# %%
# The trials
# ----------
#
# Forty trials for each learner and each (ε, δ), every one with its own target and seed.

KINDS = ["Winnow", "Conjunction", "Halving"]
SETTINGS = [(0.1, 0.1), (0.2, 0.05)]
TRIALS = 40
rows = []
for ki, kind in enumerate(KINDS):
    for si, (eps, delta) in enumerate(SETTINGS):
        out = [trial(kind, np.random.SeedSequence([0, ki, si, t]), eps, delta)
               for t in range(TRIALS)]
        err = np.array([o[0] for o in out])
        used = np.array([o[1] / o[2] for o in out])
        Bs = sorted({o[4] for o in out})
        rows.append(dict(kind=kind, eps=eps, delta=delta, err=err, used=used,
                         good=float(np.mean(err <= eps)),
                         run=sum(o[3] == "run" for o in out), Bs=Bs))

print(f"{'learner':<12} {'eps':>5} {'delta':>5} {'B':>6} {'s':>9} {'error <= eps':>12} "
      f"{'1 - delta':>9} {'max error':>9} {'max samples / Bs':>16}")
for r in rows:
    B = f"{r['Bs'][0]}" if len(r["Bs"]) == 1 else f"{r['Bs'][0]}..{r['Bs'][-1]}"
    s = sorted({online_to_pac_run_length(b, r["eps"], r["delta"]) for b in r["Bs"]})
    s = f"{s[0]}" if len(s) == 1 else f"{s[0]}..{s[-1]}"
    print(f"{r['kind']:<12} {r['eps']:>5} {r['delta']:>5} {B:>6} {s:>9} {r['good']:>12.3f} "
          f"{1 - r['delta']:>9.2f} {r['err'].max():>9.4f} {r['used'].max():>16.3f}")

# %%
# What the theorem promises
# -------------------------
#
# In every row the fraction of trials with error at most ε is at least 1 − δ, and no trial
# used more than B·s examples.  (The union bound is loose: the full run's 2,400 trials had
# at least 99.5 % good ones in every setting.)

assert all(r["good"] >= 1 - r["delta"] for r in rows)
assert all((r["used"] <= 1).all() for r in rows)

# %%
# The figure
# ----------
#
# Left: the fraction of good trials against the guarantee 1 − δ.  Right: each trial's
# exact error as a fraction of ε (a trial is good when it is at most 1); most hypotheses are
# exactly the target (error 0).

labels = [f"{r['kind']}\nε = {r['eps']}\nδ = {r['delta']}" for r in rows]
x = np.arange(len(rows))
fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8))
ax.plot(x, [r["good"] for r in rows], "o", ms=9, color="C0",
        label="fraction of trials with error ≤ ε")
ax.plot(x, [1 - r["delta"] for r in rows], "_", ms=28, mew=2.5, color="C3",
        label="1 − δ, Theorem 4's guarantee")
for i, r in enumerate(rows):
    ax.vlines(i, 1 - r["delta"], r["good"], color="0.6", lw=1, zorder=0)
ax.set_xticks(x, labels, fontsize=8)
ax.set_xlim(-0.5, len(rows) - 0.5)
ax.set_ylim(0.85, 1.01)
ax.set_ylabel(f"fraction of the {TRIALS} trials")
ax.set_title("Good trials per setting (at least 1 − δ)", fontsize=10)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, fontsize=8.5, frameon=False)

rng = np.random.default_rng(1)
for i, r in enumerate(rows):
    bx.scatter(i + rng.uniform(-0.2, 0.2, TRIALS), r["err"] / r["eps"], s=14, alpha=0.6,
               color="C0", zorder=3)
bx.axhline(1.0, color="C3", lw=1.2, ls="--", label="error = ε")
bx.set_xticks(x, labels, fontsize=8)
bx.set_ylim(-0.05, 1.2)
bx.set_ylabel("exact error / ε")
bx.set_title("The error of each trial's hypothesis", fontsize=10)
bx.scatter([], [], s=14, color="C0", alpha=0.6, label="one trial")
bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, fontsize=8.5, frameon=False)
fig.tight_layout()
plt.show()
