"""
Which mushrooms taught it that this one is poisonous
=====================================================

The Perceptron's weights are the sum of its updates, ``w = sum_j y_j x_j`` over the examples
it got wrong, so its score of a new mushroom ``x`` is an exact sum twice over: over the
features, ``sum_i w_i x_i``, and over the training mushrooms that caused updates,
``sum_j y_j <x_j, x>``.  With ``record_updates=True`` the learner keeps, per update, the index
of the example and its coefficient (one index and one float); :func:`mbcore.explain` then names
the features and the training mushrooms behind a prediction, and checks that the parts add up
to ``decision_function`` (here to the last bit: the data and the rule are integers).
"""

# %%
# The features' names
# -------------------
#
# The bundled ``mushrooms`` is LIBSVM's one-hot encoding of UCI's 22 nominal attributes, 112
# indicators, one per attribute value.  The file keeps no names, but its columns fall into
# 21 consecutive groups with exactly one indicator on in every row: UCI's attributes in their
# order, with ``stalk-root`` (the one attribute with missing values) left out.  The group
# sizes are the attributes' numbers of values; the order of the values inside a group is
# LIBSVM's, so a feature is named by its attribute and its place in the group.

import matplotlib.pyplot as plt
import numpy as np

import mbcore
from mbcore.datasets import load_mushrooms

X, y = load_mushrooms()                  # 8124 x 112, float64 0/1; +1 edible, -1 poisonous

ATTRIBUTES = [("cap-shape", 6), ("cap-surface", 4), ("cap-color", 10), ("bruises", 2),
              ("odor", 9), ("gill-attachment", 2), ("gill-spacing", 2), ("gill-size", 2),
              ("gill-color", 12), ("stalk-shape", 2), ("stalk-surface-above-ring", 4),
              ("stalk-surface-below-ring", 4), ("stalk-color-above-ring", 9),
              ("stalk-color-below-ring", 9), ("veil-type", 1), ("veil-color", 4),
              ("ring-number", 3), ("ring-type", 5), ("spore-print-color", 9),
              ("population", 6), ("habitat", 7)]
names, start = [], 0
for attribute, k in ATTRIBUTES:
    group = X[:, start:start + k]
    assert (group.sum(axis=1) == 1).all()      # one value of the attribute in every row
    names += [f"{attribute} #{v + 1}" for v in range(k)]
    start += k
assert start == X.shape[1] == len(names)

# %%
# Train with the record, explain a poisonous test mushroom
# --------------------------------------------------------
#
# The first 4,000 mushrooms train the Perceptron (``fit`` cycles until a clean pass: the data
# is separable); a poisonous mushroom among the others is explained.

X_train, y_train = X[:4000], y[:4000]
clf = mbcore.Perceptron(record_updates=True).fit(X_train, y_train)
print(f"{clf.n_iter_} epochs, {clf.mistakes_} mistakes, {clf.updates_} updates")

test = 4000 + int(np.flatnonzero((y[4000:] == -1) & (clf.predict(X[4000:]) == -1))[0])
e = mbcore.explain(clf, X[test], X_train=X_train)
print(f"mushroom {test}: predicted {e.prediction} (poisonous), score {e.score:g}")

# The parts add up to the score exactly: integer data, eta = 1.
assert e.check()
assert e.feature_score() == e.score == clf.decision_function(X[test:test + 1])[0]
assert e.example_score() == e.score

# %%
# Its top features
# ----------------
#
# Each active indicator contributes its weight ``w_i`` (``x_i = 1``); the negative ones push
# towards poisonous.  A mushroom has 21 active indicators, so 21 parts (and the intercept,
# none here) make the whole score.

top_f = e.top_features(8)
for i, part, share in top_f:
    has = X[:, i] == 1
    print(f"  {names[i]:>28}  {part:+5.0f}  ({100 * share:5.1f}% of the score); "
          f"{int(has.sum()):>4} mushrooms have it, {100 * np.mean(y[has] == -1):5.1f}% "
          "poisonous")

# %%
# The training mushrooms that pushed it
# -------------------------------------
#
# Each training mushroom ``j`` that caused an update contributes ``y_j <x_j, x>`` (summed over
# its updates in every epoch): the number of attribute values it shares with the test
# mushroom, signed by its label.  The poisonous ones that resemble this mushroom most taught
# the learner its verdict; the edible look-alikes argued against it.

top_e = e.top_examples(8)
for j, part, share in top_e:
    shared = int(X_train[j] @ X[test])
    label = "edible" if y_train[j] > 0 else "poisonous"
    print(f"  training row {j:>4} ({label:>9}, {shared:>2} values shared): {part:+4.0f}  "
          f"({100 * share:5.1f}%)")
pushers = [j for j, part, _ in top_e if part < 0]
assert all(y_train[j] == -1 for j in pushers)     # a negative part comes from a poisonous row

# %%
# The two splits side by side
# ---------------------------

fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.4), layout="constrained")
labels = [names[i] for i, _, _ in top_f][::-1]
parts = [p for _, p, _ in top_f][::-1]
a1.barh(labels, parts, color=["tab:red" if p < 0 else "tab:green" for p in parts])
a1.axvline(0, color="black", lw=0.8)
a1.set_title("top features: w_i x_i")
a1.set_xlabel("part of the score (< 0: towards poisonous)")
labels = [f"row {j} ({'edible' if y_train[j] > 0 else 'poisonous'})"
          for j, _, _ in top_e][::-1]
parts = [p for _, p, _ in top_e][::-1]
a2.barh(labels, parts, color=["tab:red" if p < 0 else "tab:green" for p in parts])
a2.axvline(0, color="black", lw=0.8)
a2.set_title("training mushrooms: y_j <x_j, x>")
a2.set_xlabel("part of the score (< 0: towards poisonous)")
fig.suptitle(f"Why the Perceptron calls mushroom {test} poisonous (score {e.score:g})")
plt.show()
