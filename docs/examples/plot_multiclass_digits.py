"""
Ten classes: MNIST digits, multi-class Perceptron and one-vs-rest
=================================================================

With K ≥ 3 classes the Perceptron keeps one weight vector per class and predicts the class of
the largest score.  ``multi_class="multiclass"`` (the default) is Kesler's construction: on a
mistake, add x to the true class's vector and subtract it from the predicted one's; its bound is
2R²/γ² for a separator of multi-class margin γ.  ``multi_class="ovr"`` runs K binary
Perceptrons, class k against the rest, and predicts the class of the highest score; its bound is
the sum of the K binary bounds.  This example runs both, once through the 1,000 bundled MNIST
digits, draws their progressive mistake curves and the bound :func:`mbcore.certify` finds for
each.
"""

# %%
# The data
# --------
#
# :func:`mbcore.datasets.load_mnist` gives the first 1,000 digits of the MNIST test set, 784
# pixels scaled to [0, 1], labels 0..9.

import matplotlib.pyplot as plt
import numpy as np

from mbcore import Perceptron, certify, run_online
from mbcore.bounds import best_margin
from mbcore.datasets import load_mnist

X, y = load_mnist()
print(X.shape, "digits:", np.bincount(y).tolist())

# %%
# One online pass each
# --------------------
#
# :func:`mbcore.run_online` predicts each digit before learning it, so its mistake curve is
# the progressive one.

learners = {"multi-class (Kesler)": Perceptron(),
            "one-vs-rest": Perceptron(multi_class="ovr")}
runs = {name: run_online(clf, X, y) for name, clf in learners.items()}
for name, run in runs.items():
    print(f"{name}: {run.mistakes} mistakes on {run.n} digits "
          f"(progressive accuracy {1 - run.mistakes / run.n:.1%})")

# %%
# Their bounds
# ------------
#
# :func:`mbcore.certify` runs a fresh copy of a learner, finds the theorem that covers it and
# checks it on the data.  Each digit against the rest is linearly separable on this slice:
# :func:`mbcore.margins.best_margin` finds, for each class k, a unit vector u_k with the best
# margin γ_k through the origin (within 0.1 %).  These separators give the one-vs-rest bound
# Σ_k (R/γ_k)², and, stacked as the rows of a matrix U scaled to unit Frobenius norm, a
# multi-class separator whose margin min (u_y − u_k)·x enters 2R²/γ².
#
# Without ``u``, certify searches for a multi-class separator itself: the weights of a
# Perceptron fitted to the data, and these stacked one-vs-rest separators; it keeps the one
# with the larger margin (here the stacked u_k: the fitted weights' margin is some fifteen
# times smaller, and their bound over 200 times looser).

U = np.array([best_margin(X, np.where(y == k, 1, -1)).u for k in range(10)])
certs = {"multi-class (Kesler)": certify(learners["multi-class (Kesler)"], X, y,
                                         u=U / np.linalg.norm(U)),
         "one-vs-rest": certify(learners["one-vs-rest"], X, y, u=U)}
default = certify(learners["multi-class (Kesler)"], X, y)      # certify's own search
for name, cert in certs.items():
    print(cert.summary())
    print()
    assert cert.verified and cert.holds
    assert cert.observed == runs[name].mistakes
print(f"multi-class bound with certify's own U: {default.bound:,.0f} "
      f"(gamma = {default.quantities['gamma']:.5f}); with the stacked u_k: "
      f"{certs['multi-class (Kesler)'].bound:,.0f} "
      f"(gamma = {certs['multi-class (Kesler)'].quantities['gamma']:.5f})")
assert default.holds and abs(default.bound / certs["multi-class (Kesler)"].bound - 1) < 1e-6

# %%
# Mistakes per digit
# ------------------
#
# Which digits each learner got wrong as it went (a mistake is counted under the true label).

per_digit = {name: np.bincount(y[run.errors], minlength=10) for name, run in runs.items()}
print("digit       " + " ".join(f"{d:>4}" for d in range(10)))
for name, counts in per_digit.items():
    print(f"{name[:11]:<11} " + " ".join(f"{c:>4}" for c in counts))

# %%
# The figure
# ----------
#
# Left: the progressive mistake curves and, dashed, each bound, on a logarithmic scale (the
# bounds are worst cases over every order of the data, so they sit orders of magnitude above a
# single pass).  Right: the mistakes per true digit, as a fraction of that digit's examples.

fig, (ax, bx) = plt.subplots(1, 2, figsize=(12.5, 5), width_ratios=[1.3, 1])
K_, O_ = "multi-class (Kesler)", "one-vs-rest"
t = np.arange(1, len(y) + 1)
ax.plot(t, runs[K_].mistake_curve, color="C0", lw=2, label=f"{K_}: {runs[K_].mistakes} mistakes")
ax.axhline(certs[K_].bound, color="C0", ls="--", lw=1.3,
           label=f"its bound, U from the u_k: {certs[K_].bound:,.0f}")
ax.plot(t, runs[O_].mistake_curve, color="C1", lw=2, label=f"{O_}: {runs[O_].mistakes} mistakes")
ax.axhline(certs[O_].bound, color="C1", ls="--", lw=1.3,
           label=f"its bound, the u_k: {certs[O_].bound:,.0f}")
ax.set_yscale("log")
ax.set_xlabel("digits seen")
ax.set_ylabel("cumulative mistakes (log scale)")
ax.set_title("One pass over 1,000 MNIST digits", fontsize=10)
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=8.5,
          frameon=False, columnspacing=3)

d = np.arange(10)
counts = np.bincount(y, minlength=10)
for i, (name, m) in enumerate(per_digit.items()):
    bx.bar(d + (i - 0.5) * 0.38, m / counts, 0.38, color=f"C{i}", label=name)
bx.set_xticks(d)
bx.set_xlabel("true digit")
bx.set_ylabel("fraction of the digit's examples mistaken")
bx.set_title("Progressive mistakes per digit", fontsize=10)
bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=8.5,
          frameon=False)
fig.tight_layout()
plt.show()
