"""
Monotone DNF with queries: random targets
=========================================

Angluin's learner for monotone DNF (lecture 24) asks an equivalence query, minimizes each
counterexample with at most n membership queries and adds the term it finds.  Each term found
is a term of the target, so it asks at most (terms + 1) equivalence queries and n × terms
membership queries, and it ends with the target itself.  This is a small version of
``bench/experiments/monotone_dnf.py`` (1,200 random targets in the full run, n up to 16);
the worked example x1x2 + x3 is replayed query by query in another example of this gallery.
"""

# %%
# Random targets
# --------------
#
# A target is t distinct terms of 1 to 4 of the n variables, drawn again until its reduced form
# (:class:`mbcore.MonotoneDNF` drops every term that contains another) keeps all t terms.

import matplotlib.pyplot as plt
import numpy as np

from mbcore import EquivalenceOracle, MembershipOracle, MonotoneDNF, learn_monotone_dnf


def random_target(rng, n, t, max_len=4):
    while True:
        terms = [rng.choice(n, size=int(rng.integers(1, max_len + 1)), replace=False).tolist()
                 for _ in range(t)]
        f = MonotoneDNF(terms, n)
        if f.n_terms == t:
            return f


# %%
# Learning them with each counterexample strategy
# -----------------------------------------------
#
# The equivalence oracle answers over the whole domain {0,1}^n and picks its counterexample
# among the disagreements in one of three ways: the first in counting order, one at random, or
# adversarially (far from the counterexamples it has already given; the first one with the
# most 1s, the worst case for Minimize).  The oracles count their calls.

STRATEGIES = ("first", "random", "adversarial")
NS, TS, TARGETS = [8, 10, 12], [2, 4, 8], 5
runs = []
for n in NS:
    for t in TS:
        rng = np.random.default_rng(np.random.SeedSequence([0, n, t]))
        targets = [random_target(rng, n, t) for _ in range(TARGETS)]
        for si, strategy in enumerate(STRATEGIES):
            for k, f in enumerate(targets):
                mq = MembershipOracle(f)
                eq = EquivalenceOracle(f, n=n, strategy=strategy,
                                       seed=np.random.SeedSequence([0, n, t, si, k]))
                res = learn_monotone_dnf(mq, eq, n)
                runs.append(dict(n=n, t=t, strategy=strategy, exact=res.formula == f,
                                 eqs=res.equivalence_queries, mqs=res.membership_queries))

print(f"{'n':>3} {'terms':>5} {'strategy':>12} {'exact':>6} {'EQs':>4} {'EQ bound':>8} "
      f"{'mean MQs':>8} {'max MQs':>7} {'MQ bound':>8}")
for n in NS:
    for t in TS:
        for s in STRATEGIES:
            c = [r for r in runs if (r["n"], r["t"], r["strategy"]) == (n, t, s)]
            print(f"{n:>3} {t:>5} {s:>12} {all(r['exact'] for r in c)!s:>6} "
                  f"{max(r['eqs'] for r in c):>4} {t + 1:>8} "
                  f"{np.mean([r['mqs'] for r in c]):>8.1f} {max(r['mqs'] for r in c):>7} "
                  f"{n * t:>8}")

# %%
# The claims
# ----------
#
# Every target is learned exactly, with exactly terms + 1 equivalence queries (every
# counterexample yields a new term) and at most n × terms membership queries.

assert all(r["exact"] for r in runs)
assert all(r["eqs"] == r["t"] + 1 for r in runs)
assert all(r["mqs"] <= r["n"] * r["t"] for r in runs)
print(f"{len(runs)} runs; largest MQs / (n × terms) = "
      f"{max(r['mqs'] / (r['n'] * r['t']) for r in runs):.3f}")

# %%
# Membership queries against their bound
# --------------------------------------
#
# Each run's membership queries against n × terms (the markers of the three strategies are
# shifted sideways a little, as many runs share a value of n × terms).  Minimize asks one
# query per 1 of the counterexample: the "first" strategy, which counts up from 00…0, hands
# out points with few 1s and costs the least; random and adversarial counterexamples have
# more 1s and cost more, still well within the bound.

fig, ax = plt.subplots(figsize=(9, 4.8))
marks = {"first": "o", "random": "s", "adversarial": "^"}
jitter = np.random.default_rng(1)
for i, s in enumerate(STRATEGIES):
    rs = [r for r in runs if r["strategy"] == s]
    x = np.array([r["n"] * r["t"] for r in rs], dtype=float) + (i - 1) * 1.2
    ax.scatter(x + jitter.uniform(-0.3, 0.3, len(x)), [r["mqs"] for r in rs], marker=marks[s],
               s=22, alpha=0.6, color=f"C{i}", label=f"counterexamples: {s}")
top = max(r["n"] * r["t"] for r in runs)
ax.plot([0, top + 4], [0, top + 4], color="C3", ls="--", lw=1.3,
        label="bound: MQs = n × terms")
ax.set_xlim(0, top + 6)
ax.set_ylim(0, top + 6)
ax.set_xlabel("n × terms")
ax.set_ylabel("membership queries")
ax.set_title(f"{len(runs)} random targets, all learned exactly "
             "with terms + 1 equivalence queries", fontsize=10)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5, frameon=False)
fig.tight_layout()
plt.show()
