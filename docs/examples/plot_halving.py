r"""
Halving: the table of lecture 25 and a version space shrinking
==============================================================

The Halving algorithm keeps the *version space* V: the concepts of a finite class C that agree
with every label seen so far.  It predicts the label of the majority of V (ties → 1), so each
mistake removes at least half of V and there are at most :math:`\lfloor \log_2 |C| \rfloor`
mistakes.  Angluin's lecture 25 works it out on five concepts c1..c5 over four points x1..x4.
This script replays that table with :class:`mbcore.Halving`, checks its numbers, and then
watches V shrink over two larger classes.
"""

# %%
# The class of lecture 25
# -----------------------
#
# :meth:`mbcore.ConceptClass.from_matrix` takes one row per concept and one column per point.
# Halving learns from point indices (0 for x1, ..., 3 for x4) or from feature vectors.

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from mbcore import ConceptClass, HalfIntervalAdversary, Halving, run_online
from mbcore.bounds import halving_bound

TABLE = np.array([[1, 0, 0, 1],      # c1
                  [0, 1, 1, 1],      # c2
                  [0, 0, 0, 1],      # c3
                  [0, 1, 1, 0],      # c4
                  [1, 0, 1, 1]])     # c5
C = ConceptClass.from_matrix(TABLE)
points = [0, 1, 2, 3]


def bits(labels):
    return "".join(str(int(v)) for v in labels)


def names(concepts):
    return "{" + ", ".join(f"c{c + 1}" for c in concepts) + "}"


# %%
# The first hypothesis
# --------------------
#
# Before any example V = C, and the majority vote on each point gives h0: x1 and x2 are 1 for
# two of the five concepts (→ 0), x3 for three and x4 for four (→ 1).  A learner that has seen
# nothing cannot predict yet, so h0 is read as the first prediction of a fresh learner on each
# point (``run_online`` records it before the label).

h0 = [int(run_online(Halving(C), [j], [0], classes=[0, 1]).predictions[0]) for j in points]
print("h0 =", bits(h0))
assert bits(h0) == "0011"

# %%
# The counterexample x3
# ---------------------
#
# h0 says 1 on x3; the target says 0.  Halving makes a mistake and keeps the concepts that
# label x3 with 0: V = {c1, c3}.  On x1 they disagree (a tie, → 1), on x4 both say 1, so
# h1 = 1001, which is c1 itself.

h = Halving(C)
step = run_online(h, [2], [0], classes=[0, 1])
h1 = h.predict(points)
print("after x3 labelled 0: V =", names(h.alive_concepts_), " h1 =", bits(h1))
assert step.predictions.tolist() == [1] and step.mistakes == 1
assert list(h.alive_concepts_) == [0, 2] and bits(h1) == "1001" == bits(TABLE[0])
V1 = list(h.alive_concepts_)

# %%
# If the target is c3, the next counterexample is x1 (h1 says 1, c3 says 0), which leaves
# V = {c3}: two mistakes, within ⌊log2 5⌋ = 2, and Halving now predicts c3 everywhere.

run_online(h, [0], [0])
h2 = h.predict(points)
print("after x1 labelled 0: V =", names(h.alive_concepts_), " h2 =", bits(h2))
assert list(h.alive_concepts_) == [2] and bits(h2) == "0001" and h.mistakes_ == 2
assert h.mistakes_ <= halving_bound(C) == 2
V2 = list(h.alive_concepts_)

# %%
# The three version spaces as a figure: the concepts still in V are dark, the others grey;
# the bottom row is the majority vote h, and the framed column is the counterexample that
# produced the panel.

fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
panels = [(list(range(5)), h0, None, "V = C, hypothesis h0"),
          (V1, bits(h1), 2, "after x3 labelled 0: h1 = c1"),
          (V2, bits(h2), 0, "after x1 labelled 0: h2 = c3")]
for ax, (alive, hyp, shown, title) in zip(axes, panels):
    ax.set_xlim(-0.5, 3.5)
    ax.set_ylim(6.6, -0.6)
    for c in range(5):
        on = c in alive
        ax.add_patch(plt.Rectangle((-0.5, c - 0.5), 4, 1, color="C0" if on else "0.92",
                                   alpha=0.25 if on else 1))
        for j in range(4):
            ax.text(j, c, str(TABLE[c, j]), ha="center", va="center", fontsize=12,
                    color="black" if on else "0.6", fontweight="bold" if on else "normal")
    ax.axhline(5.1, color="black", lw=1)
    for j in range(4):
        ax.text(j, 6, str(hyp[j]), ha="center", va="center", fontsize=12, fontweight="bold",
                color="C3")
    if shown is not None:
        ax.add_patch(plt.Rectangle((shown - 0.45, -0.55), 0.9, 7.05, fill=False, ec="C3",
                                   lw=2))
    ax.set_xticks(range(4), [f"x{j + 1}" for j in range(4)])
    ax.xaxis.tick_top()
    ax.set_yticks(list(range(5)) + [6], [f"c{c + 1}" for c in range(5)] + ["h"])
    ax.tick_params(length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    ax.set_title(title + f"\n|V| = {len(alive)}", fontsize=10, y=-0.2)
fig.tight_layout()
plt.show()

# %%
# A version space shrinking
# -------------------------
#
# Two larger classes, each with a target drawn from it and examples drawn at random:
#
# * the half-intervals c_t(x) = 1 iff x ≤ t on the points 1..1024 (1,025 concepts, at most
#   ⌊log2 1025⌋ = 10 mistakes), target t = 300, points uniform;
# * the monotone disjunctions of 12 variables (4,096 concepts, at most 12 mistakes), target
#   x2 ∨ x7 ∨ x11, points uniform on {0,1}^12.
#
# After each example we read ``alive_count_``, the size of V.

rng = np.random.default_rng(0)
T = 300
n = 12
target_vars = [1, 6, 10]                       # x2, x7, x11 (0-based)
classes = {
    "half-intervals on 1..1024, target x ≤ 300": (ConceptClass.half_intervals(10), T),
    "monotone disjunctions of 12 variables, target x2 ∨ x7 ∨ x11":
        (ConceptClass.monotone_disjunctions(n), sum(1 << (n - 1 - i) for i in target_vars)),
}
curves = {}
for name, (K, c) in classes.items():
    labels = np.array(K.labels(c))
    pts = rng.integers(0, K.n_points, 200)
    learner = Halving(K)
    sizes, mistakes_at = [len(K)], []
    for t, j in enumerate(pts):
        r = run_online(learner, [j], [labels[j]], classes=[0, 1] if t == 0 else None)
        if r.mistakes:
            mistakes_at.append(t + 1)
        sizes.append(int(learner.alive_count_))
    assert learner.mistakes_ <= halving_bound(K)
    assert c in learner.alive_concepts_
    curves[name] = (np.array(sizes), mistakes_at, len(K), halving_bound(K))
    print(f"{name}: {learner.mistakes_} mistakes (bound {halving_bound(K)}), "
          f"|V| = {sizes[-1]} after {len(pts)} examples")

# %%
# On the half-intervals a random stream is far from the worst case: the adversary of
# :class:`mbcore.HalfIntervalAdversary` asks the middle of the thresholds still possible each
# time and forces exactly 10 mistakes.

adv = HalfIntervalAdversary(10).run(Halving(ConceptClass.half_intervals(10)))
print("adversary:", adv["mistakes"], "mistakes forced")
assert adv["mistakes"] == 10

# %%
# Left: the size of V after each example (log scale), a marker at each mistake.  Right: the
# size of V just after each mistake against the guarantee :math:`|C| / 2^m` after m mistakes,
# which is why there can be no more than :math:`\lfloor \log_2 |C| \rfloor` of them.

fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
for (name, (sizes, at, size, bound)), color, mark in zip(curves.items(), ["C0", "C1"],
                                                         ["o", "s"]):
    ax.step(np.arange(len(sizes)), sizes, where="post", color=color, lw=2, label=name)
    ax.plot(at, sizes[at], mark, color=color, ms=7, mfc="white", mew=1.8)
    m = np.arange(len(at) + 1)
    bx.plot(m, np.concatenate([[size], sizes[at]]), marker=mark, color=color, lw=2,
            label=f"{name.split(',')[0]}: |V| after m mistakes")
    bx.plot(m, size / 2.0 ** m, ls="--", color=color, lw=1.2,
            label=f"{name.split(',')[0]}: guarantee " + r"$|C|\,/\,2^m$")
ax.plot([], [], "o", color="0.3", mfc="white", mew=1.8, label="a mistake")
ax.set_yscale("log", base=2)
ax.set_xscale("symlog", linthresh=1)
ax.set_xlim(0, 200)
ax.set_xlabel("examples seen (log scale past 1)")
ax.set_ylabel("|V|, concepts still consistent (log scale)")
ax.set_title("The version space shrinking", fontsize=10)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize=8, frameon=False)
bx.set_yscale("log", base=2)
bx.set_xlabel("mistakes m")
bx.xaxis.set_major_locator(MaxNLocator(integer=True))
bx.set_ylabel("|V| (log scale)")
bx.set_title("Each mistake at least halves V", fontsize=10)
bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize=8, frameon=False, ncol=1)
fig.tight_layout()
plt.show()
