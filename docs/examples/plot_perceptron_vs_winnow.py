"""
Perceptron versus Winnow on sparse disjunctions
===============================================

Littlestone (1988) showed that Winnow learns a monotone disjunction of k of n variables with
at most 2 + 3k(1 + log2 n) mistakes: logarithmic in n.  Kivinen, Warmuth and Auer (1997) showed
that the Perceptron can be forced to make Ω(kn) mistakes on the same targets, and that on
simple random data its count grows almost linearly with n.  This is a small version of
``bench/experiments/perceptron_vs_winnow.py`` (its full run goes to n = 4096 with 10 trials,
and its results are in ``bench/README.md``), written with the public API only.
"""

# %%
# The data
# --------
#
# Each trial draws a target of k = 3 of the n variables and N = 8n examples (at least 256)
# whose bits are independent with P(1) = p = 1 - 2^(-1/k), so that about half of the examples
# are positive.  These are *dense* examples: about p·n ≈ 0.2 n bits are on.

import matplotlib.pyplot as plt
import numpy as np

from mbcore import Perceptron, Winnow
from mbcore.bounds import margin, perceptron_bound, radius, winnow_bound

K = 3
NS = [16, 32, 64, 128, 256, 512, 1024]
TRIALS = 3


def draw(rng, n, k, N):
    p = 1 - 2 ** (-1 / k)
    X = (rng.random((N, n)) < p).astype(np.uint8)
    rel = rng.choice(n, size=k, replace=False)
    y = X[:, rel].any(axis=1).astype(np.int64)
    return X, y, rel


# %%
# One trial
# ---------
#
# Both learners cycle through the same sample, in the same order, with ``fit`` until a pass
# without a mistake; ``mistakes_`` counts the mistakes of all passes.  Repeating a sample is a
# legitimate sequence for both mistake bounds, so each count must stay within its bound.
#
# The Perceptron needs a threshold, so it gets ``fit_intercept=True``.  For its bound, the
# vector u = (indicator of the k variables, intercept −1/2) separates the examples with a 1
# appended: u·(x, 1) ≥ 1/2 on positives and = −1/2 on negatives.  :func:`mbcore.margins.radius`
# and :func:`mbcore.margins.margin` measure R and γ on the sample, and the bound is (R/γ)².


def trial(rng, n, k):
    X, y, rel = draw(rng, n, k, max(256, 8 * n))
    w = Winnow(max_epochs=10_000).fit(X, y)
    pc = Perceptron(fit_intercept=True, max_epochs=10_000).fit(X.astype(np.float64), y)
    assert w.converged_ and pc.converged_
    Xa = np.hstack([X, np.ones((len(y), 1))])
    u = np.zeros(n + 1)
    u[rel], u[n] = 1.0, -0.5
    pbound = perceptron_bound(radius(Xa), margin(Xa, 2 * y - 1, u))
    return w.mistakes_, pc.mistakes_, pbound


rng = np.random.default_rng(0)
rows = []
for n in NS:
    res = np.array([trial(rng, n, K) for _ in range(TRIALS)])
    wb = winnow_bound(K, n)
    assert (res[:, 0] <= wb).all() and (res[:, 1] <= res[:, 2]).all()    # the two theorems
    rows.append(dict(n=n, w=res[:, 0], p=res[:, 1], wb=wb, pb=res[:, 2].min()))

print(f"{'n':>5} {'Winnow mean':>12} {'bound':>7} {'Perceptron mean':>16} {'bound':>8} "
      f"{'ratio':>6}")
for r in rows:
    print(f"{r['n']:>5} {r['w'].mean():>12.1f} {r['wb']:>7.1f} {r['p'].mean():>16.1f} "
          f"{r['pb']:>8.0f} {r['p'].mean() / r['w'].mean():>6.1f}")

# %%
# The shape of the growth
# -----------------------
#
# Winnow's mean should follow a line in log2 n whose slope is at most 3k, the slope of its
# bound; the Perceptron's should grow polynomially: the slope of log(mistakes) against log(n)
# is close to 1 in the full run.

lx = np.log2(NS)
wm = np.array([r["w"].mean() for r in rows])
pm = np.array([r["p"].mean() for r in rows])
w_slope = np.polyfit(lx, wm, 1)[0]
p_slope = np.polyfit(np.log(NS), np.log(pm), 1)[0]
print(f"Winnow: +{w_slope:.1f} mistakes per doubling of n (bound's slope {3 * K})")
print(f"Perceptron: log-log slope {p_slope:.2f}")
assert w_slope <= 3 * K and p_slope >= 0.5
assert rows[-1]["p"].mean() > rows[-1]["w"].mean()

# %%
# The figure
# ----------
#
# Mean mistakes (band: the smallest to the largest trial) and the two bounds, on logarithmic
# axes, where a count proportional to n is a straight line of slope 1: the Perceptron's count
# and bound follow one, while Winnow's grow like log n and flatten.

fig, ax = plt.subplots(figsize=(9, 4.8))
for key, bkey, name, color, mark in (("w", "wb", "Winnow", "C0", "o"),
                                     ("p", "pb", "Perceptron", "C3", "s")):
    mean = [r[key].mean() for r in rows]
    ax.plot(NS, mean, marker=mark, color=color, lw=2,
            label=f"{name}: mean of {TRIALS} trials (band: min to max)")
    ax.fill_between(NS, [r[key].min() for r in rows], [r[key].max() for r in rows],
                    color=color, alpha=0.2)
    blabel = ("2 + 3k(1 + log2 n)" if key == "w" else
              r"$(R/\gamma)^2$, smallest over the trials")
    ax.plot(NS, [r[bkey] for r in rows], ls="--", color=color, lw=1.3,
            label=f"{name}'s bound {blabel}")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(NS, [str(n) for n in NS])
ax.set_xlabel("n (number of variables)")
ax.set_ylabel("mistakes until a clean pass")
ax.set_title(f"Monotone disjunctions of k = {K} of n variables:\n"
             "Winnow's mistakes grow like log n, the Perceptron's like n", fontsize=10)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5, frameon=False)
fig.tight_layout()
plt.show()
