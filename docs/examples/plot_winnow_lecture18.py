"""
Winnow, step by step: the table of lecture 18
=============================================

Angluin's lecture 18 runs Winnow on n = 5 variables: every weight starts at 1, the threshold
is θ = n = 5, the learner predicts 1 when the active weights add up to at least θ, doubles the
active weights after a false negative and halves them after a false positive.  The notes print,
for each of six examples, the weights before it, the sum, the prediction and the label.  This
script replays that table with :class:`mbcore.Winnow` (its defaults are the notes' α = 2,
β = 1/2, θ = n) and checks every number of it.
"""

# %%
# The six examples and their labels
# ---------------------------------
#
# Rows are the examples x = x1 x2 x3 x4 x5 of the notes, in order.

from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

from mbcore import Winnow, run_online

X = np.array([[0, 1, 1, 1, 1],
              [0, 0, 1, 1, 0],
              [1, 0, 0, 0, 1],
              [0, 1, 0, 1, 0],
              [1, 0, 0, 1, 0],
              [0, 1, 0, 1, 0]], dtype=np.uint8)
y = np.array([1, 1, 1, 0, 1, 0])

# %%
# Replaying the table row by row
# ------------------------------
#
# Before each example we read the weights (``coef_``; a fresh learner has not seen the number
# of variables yet, so its weights are the starting ones, all 1) and the sum Σ w_i x_i;
# ``decision_function`` returns that sum less θ (positive exactly where the learner predicts 1,
# 0 at a tie).  Then :func:`mbcore.run_online` shows the example to the
# learner, records its prediction, reveals the label and lets it update (as ``partial_fit``
# would).  ``classes=[0, 1]`` tells the first call that both labels exist.

clf = Winnow()
weights = [np.ones(5)]           # the weights before example 1
sums, predictions = [], []
for t in range(len(y)):
    row = X[t:t + 1]
    w = weights[-1]
    sums.append(float(w @ row[0]))
    if t > 0:                                           # the learner's own view agrees
        assert clf.decision_function(row)[0] == sums[-1] - clf.theta_
    step = run_online(clf, row, y[t:t + 1], classes=[0, 1] if t == 0 else None)
    predictions.append(int(step.predictions[0]))
    weights.append(clf.coef_.copy())


def frac(v):
    return str(Fraction(v).limit_denominator())


print(f"theta = {clf.theta_:g}")
print(f"{'w before':>20}  {'x':>5}  {'sum':>4}  pred  label  update")
for t in range(len(y)):
    active = [i + 1 for i in np.flatnonzero(X[t])]
    what = "double" if y[t] == 1 else "halve"
    row = "".join(map(str, X[t]))
    print(f"{' '.join(frac(v) for v in weights[t]):>20}  {row:>5}  {frac(sums[t]):>4}  "
          f"{predictions[t]:>4}  {y[t]:>5}  {what} w{', w'.join(map(str, active))}")
print(f"{' '.join(frac(v) for v in weights[-1]):>20}  (after the sixth example)")

# %%
# The numbers of the notes
# ------------------------
#
# Every example is a mistake: the first three and the fifth are false negatives (the sum is
# below 5), the fourth and the sixth false positives.  The sixth is the tie 1 + 4 = 5 ≥ θ,
# which predicts 1.  The weights end at 4, 1/2, 4, 2, 4.

NOTES_W = [[1, 1, 1, 1, 1], [1, 2, 2, 2, 2], [1, 2, 4, 4, 2], [2, 2, 4, 4, 4],
           [2, 1, 4, 2, 4], [4, 1, 4, 4, 4], [4, 0.5, 4, 2, 4]]
NOTES_SUMS = [4, 4, 3, 6, 4, 5]
NOTES_PRED = [0, 0, 0, 1, 0, 1]
assert clf.theta_ == 5.0
assert [w.tolist() for w in weights] == [[float(v) for v in r] for r in NOTES_W]
assert sums == NOTES_SUMS and predictions == NOTES_PRED
assert (clf.n_seen_, clf.mistakes_, clf.updates_) == (6, 6, 6)
assert clf.log2_coef_.tolist() == [2.0, -1.0, 2.0, 1.0, 2.0]   # the exact state: log2 w

# %%
# The same run in one call
# ------------------------
#
# :func:`mbcore.run_online` makes the same pass over the whole table at once and records the
# prediction made before each label.  A second pass over the table makes no mistake:
# ``fit`` stops after two epochs.

run = run_online(Winnow(), X, y)
print("predictions:", run.predictions.tolist(), " mistakes:", run.mistakes)
assert run.predictions.tolist() == NOTES_PRED and run.mistakes == 6
fitted = Winnow().fit(X, y)
print("fit: epochs", fitted.n_iter_, " mistakes per epoch", list(fitted.epoch_mistakes_))
assert fitted.n_iter_ == 2 and list(fitted.epoch_mistakes_) == [6, 0]

# %%
# The table as a figure
# ---------------------
#
# Left: the weights before each example (rows) and after the last one; the colour is
# log2 w, the active variables of each example are framed.  Right: the sum Σ w_i x_i of each
# example against the threshold θ = 5; a hollow bar is a false negative (label 1, sum below θ),
# a hatched one a false positive (label 0, sum at least θ).

W = np.array(weights)
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4.2), width_ratios=[1.1, 1])
im = ax.imshow(np.log2(W), cmap="RdBu_r", vmin=-4, vmax=4, aspect="auto")
for t in range(W.shape[0]):
    for i in range(5):
        ax.text(i, t, frac(W[t, i]), ha="center", va="center", fontsize=11)
        if t < len(y) and X[t, i]:
            ax.add_patch(plt.Rectangle((i - 0.45, t - 0.45), 0.9, 0.9, fill=False, lw=2.2,
                                       ec="black"))
ax.set_xticks(range(5), [f"$w_{i + 1}$" for i in range(5)])
ax.set_yticks(range(W.shape[0]),
              [f"before {t + 1}: x = {''.join(map(str, X[t]))}, y = {y[t]}"
               for t in range(len(y))] + ["after the sixth example"], fontsize=9)
ax.set_title("Winnow's weights (framed: the example's active variables)", fontsize=10)
cb = fig.colorbar(im, ax=ax, ticks=[-4, -2, -1, 0, 1, 2, 4], fraction=0.05)
cb.ax.set_yticklabels(["1/16", "1/4", "1/2", "1", "2", "4", "16"])
cb.set_label("weight (colour scale: log2 w)")

ex = np.arange(1, len(y) + 1)
fn = y == 1
bx.bar(ex[fn], np.array(sums)[fn], color="white", edgecolor="C0", lw=1.8,
       label="label 1 predicted 0 (false negative: double)")
bx.bar(ex[~fn], np.array(sums)[~fn], color="C3", alpha=0.35, edgecolor="C3", hatch="//",
       lw=1.8, label="label 0 predicted 1 (false positive: halve)")
bx.axhline(clf.theta_, color="black", ls="--", lw=1.2, label=r"threshold $\theta = n = 5$")
for t, s in zip(ex, sums):
    bx.text(t, s + 0.1, f"{s:g}", ha="center", va="bottom", fontsize=10)
bx.set_xticks(ex, [f"{t}\n{''.join(map(str, X[t - 1]))}" for t in ex])
bx.set_xlabel("example (and its x)")
bx.set_ylabel(r"sum $\Sigma_i\, w_i x_i$ before the update")
bx.set_ylim(0, 8.5)
bx.set_title("Six examples, six mistakes", fontsize=10)
bx.legend(loc="upper left", fontsize=8, frameon=False)
fig.tight_layout()
plt.show()
