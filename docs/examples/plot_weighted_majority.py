"""
Weighted Majority: the three experts of lecture 20
==================================================

Weighted Majority keeps a weight for each expert, all 1 at the start.  In each round it adds
up the weights of the experts that predict 1 (q1) and of those that predict 0 (q0), predicts 1
when q1 ≥ q0, and, once the label is known, multiplies the weight of every expert that was
wrong by β = 1/2.  Angluin's lecture 20 runs it on three experts for three rounds; their
weights go (1, 1, 1) → (1/2, 1/2, 1) → (1/4, 1/2, 1/2) → (1/8, 1/2, 1/2).  This script
replays the example with :class:`mbcore.WeightedMajority` and checks every number.
"""

# %%
# The experts' advice
# -------------------
#
# The advice is a matrix: one row per round, one column per expert (A1, A2, A3).

from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

from mbcore import WeightedMajority, run_online
from mbcore.bounds import weighted_majority_bound

P = np.array([[1, 1, 0],
              [0, 1, 0],
              [0, 1, 1]])
y = np.array([0, 1, 1])

# %%
# Three rounds, one at a time
# ---------------------------
#
# ``log2_weights_`` is the learner's exact state (the weights are kept as base-2 logarithms,
# so none ever underflows); 2 to that power is the weight of the notes.

wm = WeightedMajority(beta=0.5)
weights = [np.ones(3)]
q1s, q0s, predictions = [], [], []
for t in range(3):
    w = weights[-1]
    q1s.append(float(w[P[t] == 1].sum()))
    q0s.append(float(w[P[t] == 0].sum()))
    step = run_online(wm, P[t:t + 1], y[t:t + 1], classes=[0, 1] if t == 0 else None)
    predictions.append(int(step.predictions[0]))
    weights.append(2.0 ** wm.log2_weights_)


def frac(v):
    return str(Fraction(v).limit_denominator())


print("round  advice  q1   q0   predict  label  wrong experts  weights after")
for t in range(3):
    wrong = [f"A{i + 1}" for i in range(3) if P[t, i] != y[t]]
    print(f"{t + 1:>5}  {''.join(map(str, P[t])):>6}  {frac(q1s[t]):>3}  {frac(q0s[t]):>3}  "
          f"{predictions[t]:>7}  {y[t]:>5}  {', '.join(wrong):>13}  "
          f"({', '.join(frac(v) for v in weights[t + 1])})")
print("expert mistakes:", wm.expert_mistakes_.tolist(), " WM mistakes:", wm.mistakes_)

# %%
# The numbers of the notes
# ------------------------
#
# Round 1: q1 = 2 ≥ q0 = 1, WM predicts 1 and is wrong; round 2: q1 = 1/2 < q0 = 3/2, it
# predicts 0 and is wrong again; round 3: q1 = 1 ≥ q0 = 1/4, it predicts 1 and is right, but
# A1 is wrong once more.

h = Fraction(1, 2)
NOTES_W = [[1, 1, 1], [h, h, 1], [h ** 2, h, h], [h ** 3, h, h]]
assert [[Fraction(v) for v in w] for w in weights] == NOTES_W
assert q1s == [2, 0.5, 1] and q0s == [1, 1.5, 0.25]
assert predictions == [1, 0, 1]
assert wm.expert_mistakes_.tolist() == [3, 1, 1] and wm.mistakes_ == 2
assert wm.log2_weights_.tolist() == [-3.0, -1.0, -1.0]

# %%
# The mistake bound
# -----------------
#
# For every expert i with m_i mistakes, WM makes at most
# (m_i log2(1/β) + log2 n) / log2(2/(1 + β)) mistakes; with the best expert here (m_i = 1,
# n = 3) that is 6.23, against the 2 it made.

bound = weighted_majority_bound(int(wm.expert_mistakes_.min()), 3, beta=0.5)
print(f"bound with the best expert: {bound:.3f}; WM made {wm.mistakes_}")
assert wm.mistakes_ <= bound

# %%
# The weights as a figure
# -----------------------
#
# Left: each expert's weight after each round, on a base-2 logarithmic scale (each mistake of
# an expert is one step down).  Right: the two totals q1 and q0 that decide each prediction.

fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
rounds = np.arange(4)
W = np.array(weights)
styles = [dict(color="C0", marker="o", ms=8, ls="-"),
          dict(color="C1", marker="s", ms=11, ls="-"),
          dict(color="C2", marker="^", ms=7, ls="--")]   # A2 and A3 coincide from round 2
for i, st in enumerate(styles):
    m = int(wm.expert_mistakes_[i])
    ax.plot(rounds, W[:, i], lw=2, label=f"expert A{i + 1} ({m} mistake{'s' * (m != 1)})",
            **st)
ax.set_yscale("log", base=2)
ax.set_yticks([1, 0.5, 0.25, 0.125], ["1", "1/2", "1/4", "1/8"])
ax.set_ylim(0.09, 1.5)
ax.set_xticks(rounds, ["start"] + [f"after round {t}" for t in (1, 2, 3)])
ax.set_xlim(-0.3, 3.6)
ax.set_ylabel(r"weight (log scale: each mistake $\times\beta = 1/2$)")
ax.set_title("The experts' weights", fontsize=10)
ax.legend(loc="lower left", fontsize=8, frameon=False)

x = np.arange(1, 4)
bx.bar(x - 0.18, q1s, 0.36, color="C4", label="q1: weight predicting 1")
bx.bar(x + 0.18, q0s, 0.36, color="C7", label="q0: weight predicting 0")
for t in range(3):
    ok = predictions[t] == y[t]
    bx.text(x[t], max(q1s[t], q0s[t]) + 0.08,
            f"predict {predictions[t]}, label {y[t]}\n" + ("right" if ok else "mistake"),
            ha="center", va="bottom", fontsize=8.5, color="black" if ok else "C3")
bx.set_xticks(x, [f"round {t}\nadvice {''.join(map(str, P[t - 1]))}" for t in x])
bx.set_ylabel("total weight")
bx.set_ylim(0, 2.8)
bx.set_title("The vote in each round (predict 1 iff q1 ≥ q0)", fontsize=10)
bx.legend(loc="upper right", fontsize=8, frameon=False)
fig.tight_layout()
plt.show()
