"""
Streaming a file: the progressive mistake curve
===============================================

An online learner never needs the whole data set in memory: :mod:`mbcore.streaming` reads a
file in chunks and runs each chunk through the online protocol (predict each example, then
learn its label), so the mistakes it counts are *progressive*: every example was predicted
before the learner saw its label, which makes the running error rate an honest estimate of the
error on unseen data.  This example writes the bundled mushroom data to an svmlight file,
streams it through two learners and draws their progressive mistake curves.
"""

# %%
# An svmlight file from a bundled dataset
# ---------------------------------------
#
# :func:`mbcore.datasets.load_mushrooms` gives the 8,124 mushrooms, one-hot encoded (112
# features of value 0 or 1), labelled +1 (edible) or −1 (poisonous).  An svmlight line is
# ``label index:value ...`` with 1-based indices of the non-zero features.

import os
import shutil
import tempfile

import matplotlib.pyplot as plt
import numpy as np

from mbcore import Perceptron, Winnow, run_online
from mbcore.datasets import load_mushrooms
from mbcore.streaming import evaluate_file, iter_svmlight, run_stream, train_file

X, y = load_mushrooms()
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "mushrooms.svm")
with open(path, "w") as f:
    for row, label in zip(X, y):
        f.write(f"{label:+d} " + " ".join(f"{j + 1}:1" for j in np.flatnonzero(row)) + "\n")
print(f"mushrooms.svm: {os.path.getsize(path):,} bytes, {len(y):,} lines")
with open(path) as f:
    print("first line:", f.readline().strip())

# %%
# Streaming it through two learners
# ---------------------------------
#
# :func:`mbcore.streaming.iter_svmlight` yields (X, y) chunks of 256 rows in CSR form;
# :func:`mbcore.streaming.run_stream` runs each chunk through the learner and keeps only the
# counts of each chunk, so memory does not grow with the file.  Giving ``n_features`` and
# ``zero_based`` lets the reader read the file in one pass.

learners = {"Perceptron": Perceptron(), "Winnow": Winnow()}
stats = {}
for name, learner in learners.items():
    chunks = iter_svmlight(path, chunk_size=256, n_features=X.shape[1], zero_based=False)
    stats[name] = run_stream(learner, chunks)
    s = stats[name]
    print(f"{name}: {s.n:,} examples in {s.n_chunks} chunks, {s.mistakes} mistakes "
          f"(progressive error {s.error_rate:.2%})")

# %%
# The same run as in memory
# -------------------------
#
# Streaming changes nothing of the learning: one :func:`mbcore.run_online` pass over the
# arrays makes exactly the same mistakes, and the learners end in the same state.

for name, learner in learners.items():
    twin = type(learner)()
    run = run_online(twin, X, y)
    assert run.mistakes == stats[name].mistakes
    assert np.array_equal(twin.coef_, learner.coef_)
    assert np.array_equal(np.cumsum(run.errors)[stats[name].n_curve - 1],
                          stats[name].mistake_curve)
print("streamed = in memory: same mistakes, same weights")

# %%
# Progressive validation, Vowpal Wabbit style
# -------------------------------------------
#
# :func:`mbcore.streaming.evaluate_file` does the same from a path and reports the mistakes at
# 1, 2, 4, 8, ... examples (the report of ``mbcore evaluate``);
# :func:`mbcore.streaming.train_file` trains a learner on the file (here three passes) and
# returns the counts.

report = evaluate_file(Perceptron(), path)
print(f"{'examples':>9} {'mistakes':>9} {'since last':>11}")
for n_ex, m, since_n, since_m in report.lines:
    print(f"{n_ex:>9,} {m:>9} {since_m:>5} / {since_n:<5}")
assert report.stats.mistakes == stats["Perceptron"].mistakes

trained = Perceptron()
passes = train_file(trained, path, passes=3)
print(f"train_file, 3 passes: {passes.n:,} examples, {passes.mistakes} mistakes "
      f"({passes.mistakes - stats['Perceptron'].mistakes} after the first pass)")
assert passes.n == 3 * len(y)

# %%
# The progressive mistake curves
# ------------------------------
#
# Left: the cumulative mistakes at the end of each chunk.  The file keeps the order of the
# LIBSVM data set, which is not random: after about 4,000 examples come mushrooms unlike the
# earlier ones, and both learners make a burst of mistakes.  Right: the progressive error rate
# (mistakes so far / examples so far) at the report's doubling counts, on logarithmic axes;
# it falls from 1/2 to below 1 %, and rises a little with that burst.

fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
for (name, s), color, mark in zip(stats.items(), ["C0", "C1"], ["o", "s"]):
    ax.plot(np.concatenate([[0], s.n_curve]), np.concatenate([[0], s.mistake_curve]),
            color=color, lw=2, label=f"{name}: {s.mistakes} mistakes")
ax.set_xlabel("examples streamed")
ax.set_ylabel("cumulative mistakes")
ax.set_title("Mushrooms, one pass, chunks of 256 rows", fontsize=10)
ax.legend(loc="lower right", fontsize=9)

for (name, learner), color, mark in zip(learners.items(), ["C0", "C1"], ["o", "s"]):
    rep = evaluate_file(type(learner)(), path)
    n_ex = np.array([line[0] for line in rep.lines])
    m = np.array([line[1] for line in rep.lines])
    keep = m > 0                                  # no mistake yet: nothing to draw on a log axis
    bx.plot(n_ex[keep], m[keep] / n_ex[keep], marker=mark, color=color, lw=2, label=name)
bx.set_xscale("log")
bx.set_yscale("log")
bx.set_xlabel("examples seen (log scale)")
bx.set_ylabel("progressive error rate (log scale)")
bx.set_title("Mistakes so far / examples so far", fontsize=10)
bx.legend(loc="lower left", fontsize=9)
fig.tight_layout()
plt.show()

# %%
# The temporary folder is removed at the end.

shutil.rmtree(tmp)
