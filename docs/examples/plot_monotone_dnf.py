"""
Monotone DNF with queries: x1x2 + x3, query by query
====================================================

Angluin's lecture 24 learns a monotone DNF exactly with equivalence queries (EQ: "is h the
target?", answered yes or with a counterexample) and membership queries (MQ: "what is the label
of x?").  The learner starts from the empty formula h = 0, so every counterexample is positive.
It *minimizes* each counterexample with MQs: it turns the 1s off one at a time and keeps a bit
off while the point stays positive; the minimal positive point it reaches is a term of the
target, which it adds to h.  The lecture's worked example is the target x1x2 + x3.  This
script replays it with :func:`mbcore.learn_monotone_dnf` and checks every query.
"""

# %%
# The target and the two oracles
# ------------------------------
#
# :class:`mbcore.MonotoneDNF` takes the terms as lists of 0-based variables.  The
# ``"adversarial"`` equivalence oracle answers h = 0 with the positive point with the most 1s,
# 111, the worst case for Minimize.  The membership oracle keeps the points it was asked; a
# small wrapper around the equivalence oracle keeps the hypotheses.

import matplotlib.pyplot as plt
import numpy as np

from mbcore import EquivalenceOracle, MembershipOracle, MonotoneDNF, learn_monotone_dnf

target = MonotoneDNF([[0, 1], [2]], n=3)
mq = MembershipOracle(target)
eq = EquivalenceOracle(target, n=3, strategy="adversarial")


class Recording:
    """Pass the questions on to ``eq`` and keep the hypotheses asked."""

    def __init__(self, eq):
        self.eq, self.asked = eq, []

    @property
    def calls(self):
        return self.eq.calls

    def __call__(self, h):
        self.asked.append(str(h))
        return self.eq(h)


rec = Recording(eq)
res = learn_monotone_dnf(mq, rec, 3)
print("learned:", res.formula, "  EQs:", res.equivalence_queries,
      "  MQs:", res.membership_queries)

# %%
# The queries
# -----------
#
# Each EQ with its answer, then the MQs of the Minimize it triggered.


def s(x):
    return "".join(str(int(v)) for v in x)


answers = [int(v) for v in target(np.array(mq.history, dtype=np.uint8))]
queries = list(zip(map(s, mq.history), answers))
k = 0
for i, h in enumerate(rec.asked):
    if i < len(res.counterexamples):
        x, label = res.counterexamples[i]
        print(f"EQ({h}) -> counterexample {s(x)} (label {label})")
        m = sum(int(v) for v in x)            # Minimize tests each 1 of x once
        for q, a in queries[k:k + m]:
            print(f"    MQ({q}) = {a}")
        k += m
    else:
        print(f"EQ({h}) -> yes")

# %%
# The numbers of the notes
# ------------------------
#
# Counterexample 111: MQ(011) = 1, MQ(001) = 1, MQ(000) = 0, so the term is x3.  Counterexample
# 110: MQ(010) = 0, MQ(100) = 0, so the term is x1x2.  The third EQ, x1x2 + x3, is answered
# yes: 3 EQs and 5 MQs, within terms + 1 = 3 and n × terms = 6.

assert queries == [("011", 1), ("001", 1), ("000", 0), ("010", 0), ("100", 0)]
assert [(s(x), label) for x, label in res.counterexamples] == [("111", 1), ("110", 1)]
assert rec.asked == ["0", "x3", "x1x2 + x3"]
assert res.formula == target and str(res.formula) == "x1x2 + x3"
assert (res.equivalence_queries, res.membership_queries) == (3, 5)

# %%
# Minimize, written out
# ---------------------
#
# The same MQs follow from the rule: for each bit that is 1, in order, ask the point with that
# bit off, and keep it off if the answer is 1.


def minimize(x):
    x, asked = list(x), []
    for i in range(len(x)):
        if x[i]:
            q = x[:i] + [0] + x[i + 1:]
            a = int(target(np.array([q], dtype=np.uint8))[0])
            asked.append((s(q), a))
            if a:
                x = q
    return s(x), asked


moves = []
for x, _ in res.counterexamples:
    term_point, asked = minimize([int(v) for v in x])
    moves.append((s(x), asked, term_point))
    print(f"{s(x)} -> minimal positive point {term_point}")
assert [q for _, asked, _ in moves for q in asked] == queries
assert [t for _, _, t in moves] == ["001", "110"]

# %%
# The queries on the cube
# -----------------------
#
# The eight points of {0,1}^3, by their number of 1s; the target's positive points are filled.
# From each counterexample (a thick ring) an arrow goes to every point asked: solid when the
# answer is 1 (Minimize moves there), dashed when it is 0 (it stays).  The numbers give the
# order of the MQs; the minimal points reached (double rings) are the terms.

pos = {}
for w, layer in enumerate([["000"], ["100", "010", "001"], ["110", "101", "011"], ["111"]]):
    for j, p in enumerate(layer):
        pos[p] = (j - (len(layer) - 1) / 2, w)
positive = {p for p in pos if target(np.array([[int(c) for c in p]], np.uint8))[0]}

fig, ax = plt.subplots(figsize=(8, 5.6))
for p in pos:                                   # the cube's edges
    for i in range(3):
        if p[i] == "0":
            q = p[:i] + "1" + p[i + 1:]
            ax.plot(*zip(pos[p], pos[q]), color="0.85", lw=1, zorder=0)
for p, (u, v) in pos.items():
    ax.scatter(u, v, s=900, color="C2" if p in positive else "white", ec="0.3", lw=1.2,
               zorder=2, alpha=0.55 if p in positive else 1)
    ax.text(u, v, p, ha="center", va="center", fontsize=11, zorder=3)
colors = ["C0", "C1"]
n_q = 0
for r, (start, asked, term_point) in enumerate(moves):
    ax.scatter(*pos[start], s=1500, facecolor="none", ec=colors[r], lw=3, zorder=1)
    ax.scatter(*pos[term_point], s=1300, facecolor="none", ec=colors[r], lw=1.5, zorder=4)
    ax.scatter(*pos[term_point], s=1900, facecolor="none", ec=colors[r], lw=1.5, zorder=4)
    cur = start
    for q, a in asked:
        n_q += 1
        (u0, v0), (u1, v1) = pos[cur], pos[q]
        ax.annotate("", xy=(u1, v1), xytext=(u0, v0), zorder=5,
                    arrowprops=dict(arrowstyle="-|>", color=colors[r], lw=2,
                                    ls="-" if a else "--", shrinkA=20, shrinkB=20))
        right = u1 > u0 or (u1 == u0 and u0 >= 0)     # the label on the arrow's outer side
        ax.text((u0 + u1) / 2 + (0.08 if right else -0.08), (v0 + v1) / 2, f"MQ {n_q} = {a}",
                color=colors[r], fontsize=9, fontweight="bold", zorder=6,
                ha="left" if right else "right", va="center",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
        if a:
            cur = q
handles = [plt.Line2D([], [], marker="o", ls="", ms=14, color="C2", alpha=0.55, mec="0.3",
                      label="positive point of x1x2 + x3"),
           plt.Line2D([], [], marker="o", ls="", ms=14, mfc="white", mec="0.3",
                      label="negative point")]
handles += [plt.Line2D([], [], color=colors[r], lw=2,
                       label=f"EQ {r + 1}: counterexample {m[0]} → term "
                             f"{'x3' if m[2] == '001' else 'x1x2'}")
            for r, m in enumerate(moves)]
handles += [plt.Line2D([], [], color="0.3", lw=2, label="MQ answered 1: Minimize moves there"),
            plt.Line2D([], [], color="0.3", lw=2, ls="--", label="MQ answered 0: it stays"),
            plt.Line2D([], [], marker="o", ls="", ms=18, mfc="none", mec="0.3", mew=3,
                       label="counterexample (thick ring)"),
            plt.Line2D([], [], marker="o", ls="", ms=18, mfc="none", mec="0.3", mew=1.2,
                       label="minimal point reached: a term\n(double ring)")]
ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9,
          frameon=False, labelspacing=1.2)
ax.set_xlim(-1.8, 1.6)
ax.set_ylim(-0.5, 3.5)
ax.set_yticks(range(4), ["no 1", "one 1", "two 1s", "three 1s"])
ax.set_xticks([])
for side in ("top", "right", "bottom"):
    ax.spines[side].set_visible(False)
ax.set_title(r"Minimize on the cube $\{0,1\}^3$: 5 membership queries", fontsize=10)
fig.tight_layout()
plt.show()
