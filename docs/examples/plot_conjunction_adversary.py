"""
The conjunction adversary: n mistakes forced
============================================

Balcan's lower bound for conjunctions: no deterministic learner can be sure of fewer than n
mistakes on conjunctions of n variables.  The adversary shows, for i = 1..n, the point that is
all ones except x_i, and labels it with the opposite of the learner's prediction.  Every answer
stays consistent with the monotone conjunction of the variables whose point it labelled 0 (that
point falsifies the conjunction only through x_i), so the learner errs n times on a stream that
some conjunction labels.  The elimination learner :class:`mbcore.Conjunction` makes at most
n + 1 mistakes, so the bound is tight up to one.  :class:`mbcore.ConjunctionAdversary` plays the
adversary against any mbcore learner.
"""

# %%
# Against the elimination learner, n = 5
# --------------------------------------
#
# ``run`` plays the n rounds and returns the mistakes and the target it committed to (0-based
# variables).  The elimination learner starts from h = x1 ¬x1 … x5 ¬x5, which is false
# everywhere, so it predicts 0 every time, is told 1 every time, and the target is the empty
# conjunction (true everywhere).

import matplotlib.pyplot as plt
import numpy as np

from mbcore import (ConceptClass, Conjunction, ConjunctionAdversary, DecisionList, Halving,
                    Perceptron, Winnow, run_online)
from mbcore.bounds import conjunction_bound, halving_bound

n = 5
result = ConjunctionAdversary(n).run(Conjunction())
print(result)
assert result == {"mistakes": n, "target": []}

# %%
# The same rounds, replayed
# -------------------------
#
# The adversary's stream is the n points "all ones but x_i", labelled by the target it
# returned.  A fresh learner run on that stream with :func:`mbcore.run_online` errs on every
# example, and after each mistake the learner drops the literals that the point falsifies.


def adversary_stream(n, target):
    X = 1 - np.eye(n, dtype=np.uint8)
    y = np.array([0 if i in target else 1 for i in range(n)])
    return X, y


X, y = adversary_stream(n, result["target"])
learner = Conjunction()
hypotheses, predictions = [], []
for i in range(n):
    r = run_online(learner, X[i:i + 1], y[i:i + 1], classes=[0, 1] if i == 0 else None)
    predictions.append(int(r.predictions[0]))
    lits = [s.replace("~", "¬") for s in learner.literals_]
    hypotheses.append(" ".join(f"{s[:-1]}{int(s[-1]) + 1}" for s in lits) or "true")
    print(f"x = {''.join(map(str, X[i]))}: predicted {predictions[-1]}, label {y[i]}, "
          f"h = {hypotheses[-1]}")
assert predictions == [0] * n and learner.mistakes_ == n
assert n <= conjunction_bound(n) == n + 1

# %%
# Every learner, every n
# ----------------------
#
# The adversary does not care how the learner works.  Here it plays n = 1..12 against the
# elimination learner, the decision-list learner, Winnow, the Perceptron (with an intercept),
# and Halving over the monotone conjunctions (2^n concepts, so at most ⌊log2 2^n⌋ = n
# mistakes: the adversary meets Halving's bound exactly) and over all 3^n conjunctions
# (n ≤ 8, to keep the class small).  Each replay checks that the target returned labels a
# stream on which a fresh copy of the learner errs every time.

learners = {
    "Conjunction (elimination)": lambda n: Conjunction(),
    "DecisionList": lambda n: DecisionList(),
    "Winnow": lambda n: Winnow(),
    "Perceptron (intercept)": lambda n: Perceptron(fit_intercept=True),
    "Halving, monotone conjunctions": lambda n: Halving(ConceptClass.monotone_conjunctions(n)),
    "Halving, all conjunctions": lambda n: Halving(ConceptClass.all_conjunctions(n)),
}
ns = np.arange(1, 13)
forced = {name: [] for name in learners}
for name, make in learners.items():
    for k in ns:
        if name == "Halving, all conjunctions" and k > 8:
            continue
        res = ConjunctionAdversary(int(k)).run(make(k))
        Xk, yk = adversary_stream(k, res["target"])
        replay = run_online(make(k), Xk, yk, classes=[0, 1])
        assert res["mistakes"] == k and replay.errors.all(), (name, k)
        forced[name].append((k, res["mistakes"]))
    print(f"{name}: mistakes forced for n = 1, 2, ...:", [m for _, m in forced[name]])
for k in ns:
    assert halving_bound(ConceptClass.monotone_conjunctions(int(k))) == k

# %%
# The rounds and the count as a figure
# ------------------------------------
#
# Left: the five points shown to the elimination learner, its prediction, the label and the
# hypothesis after the update.  Right: the mistakes forced against n, for every learner (the
# markers are shifted sideways a little so that they do not hide each other; every one of them
# is exactly n), between the lower bound n and the elimination learner's upper bound n + 1.

fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.6), width_ratios=[1, 1.15])
ax.imshow(X, cmap="Greys", vmin=-0.6, vmax=1.6, aspect="auto",
          extent=(-0.5, n - 0.5, n - 0.5, -0.5))
for i in range(n):
    for j in range(n):
        ax.text(j, i, str(X[i, j]), ha="center", va="center", fontsize=11,
                color="white" if X[i, j] else "black")
    ax.text(n - 0.25, i - 0.15, f"predict {predictions[i]}, label {y[i]}: mistake",
            va="center", fontsize=9, color="C3")
    ax.text(n - 0.25, i + 0.2, f"then h = {hypotheses[i]}", va="center", fontsize=9)
ax.set_xlim(-0.5, n + 4)
ax.set_xticks(range(n), [f"x{j + 1}" for j in range(n)])
ax.xaxis.tick_top()
ax.set_yticks(range(n), [f"round {i + 1}" for i in range(n)])
ax.tick_params(length=0)
for s in ax.spines.values():
    s.set_visible(False)
ax.set_title("The adversary against elimination, n = 5", fontsize=10, y=-0.1)

markers = ["o", "s", "^", "D", "v", "P"]
for (name, pts), m, dx in zip(forced.items(), markers, np.linspace(-0.25, 0.25, len(forced))):
    k, v = np.array(pts).T
    bx.plot(k + dx, v, m, ms=6, ls="", label=name)
bx.plot(ns, ns, color="0.3", lw=1.2, label="n: lower bound for any deterministic learner")
bx.plot(ns, ns + 1, color="C3", lw=1.2, ls="--", label="n + 1: elimination's mistake bound")
bx.set_xticks(ns)
bx.set_xlabel("n (number of variables)")
bx.set_ylabel("mistakes forced by the adversary")
bx.set_title("n mistakes against every learner", fontsize=10)
bx.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
fig.tight_layout(w_pad=3)
plt.show()
