"""
Every mistake bound against the mistakes observed
=================================================

Each learner of the notes comes with a mistake bound that holds under assumptions on the data
(a separator with a margin, a target disjunction, an expert with few mistakes, a target in the
class, ...).  :func:`mbcore.certify` runs a fresh copy of a learner, checks the assumptions on
the data, computes the bound from the quantities it measured and compares it with the count it
observed.  This is a small version of ``bench/experiments/bounds_vs_observed.py`` (whose full
run certifies 680 random instances, with no violation): three random instances for each of
sixteen learners.
"""

# %%
# Random instances that meet each theorem's assumptions
# -----------------------------------------------------
#
# Each generator below returns examples that satisfy the assumptions of one theorem: Gaussian
# rows with a margin around a random unit vector; k-of-n monotone disjunctions (with label noise
# for the agnostic Winnow bound); experts of which one is rarely wrong; conjunctions, decision
# lists and concepts of a finite class as targets.

import matplotlib.pyplot as plt
import numpy as np

import mbcore


def separable(rng, n, d, gamma):
    """Gaussian rows whose normalised margin around a random unit u is at least gamma."""
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * n, d))
    X = X[np.abs(X @ u) / np.linalg.norm(X, axis=1) >= gamma][:n]
    return X, np.where(X @ u > 0, 1, -1)


def disjunction(rng, m, n, k, flip=0.0):
    X = (rng.random((m, n)) < 1 - 2 ** (-1 / k)).astype(np.uint8)
    t = rng.choice(n, size=k, replace=False)
    y = X[:, t].any(axis=1).astype(int)
    f = rng.random(m) < flip
    y[f] = 1 - y[f]
    return X, y, t


def decision_list(rng, m, n, length):
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = np.full(m, rng.integers(0, 2))
    done = np.zeros(m, dtype=bool)
    for _ in range(length - 1):
        i, v, b = rng.integers(0, n), rng.integers(0, 2), rng.integers(0, 2)
        fire = (X[:, i] == v) & ~done
        y[fire] = b
        done |= fire
    return X, y


def instances(rng):
    """(learner name, learner, X, y, keyword arguments of certify)."""
    d, g = int(rng.integers(3, 12)), float(rng.uniform(0.05, 0.3))
    X, y = separable(rng, 300, d, g)
    yield "Perceptron", mbcore.Perceptron(), X, y, {"passes": 2}
    yield "Perceptron (normalize)", mbcore.Perceptron(normalize=True), X, y, {"passes": 2}
    yield "MarginPerceptron", mbcore.MarginPerceptron(gamma=g), X, y, {"passes": 2}
    yield "KernelPerceptron (rbf)", mbcore.KernelPerceptron(), X[:200], y[:200], {}
    n, k = int(rng.choice([32, 128, 512])), int(rng.integers(1, 6))
    Xb, yb, t = disjunction(rng, 1500, n, k, flip=float(rng.choice([0.02, 0.1])))
    yield "Winnow (label noise)", mbcore.Winnow(), Xb, yb, {"target": t}
    Xc, yc, t = disjunction(rng, 1500, n, k)
    yield "Winnow", mbcore.Winnow(), Xc, yc, {"passes": 2}
    yield "EliminationWinnow", mbcore.EliminationWinnow(), Xc, yc, {"target": t}
    yield "WinnowStar", mbcore.WinnowStar(), Xc, yc, {"target": t}
    experts, rounds = int(rng.integers(5, 200)), 800
    yl = rng.choice([-1, 1], rounds)
    P = np.where(rng.random((rounds, experts)) < rng.uniform(0.2, 0.5), -yl[:, None],
                 yl[:, None])
    good = int(rng.integers(0, experts))
    P[:, good] = np.where(rng.random(rounds) < rng.uniform(0, 0.1), -yl, yl)
    yield "WeightedMajority", mbcore.WeightedMajority(), P, yl, {}
    yield "RandomizedWeightedMajority", mbcore.RandomizedWeightedMajority(random_state=0), \
        P, yl, {}
    awake = rng.random(P.shape) < 0.5
    P2 = P.copy()
    P2[:, good] = yl                              # two never-wrong specialists that cover
    P2[:, (good + 1) % experts] = yl              # every round between them
    awake[:, (good + 1) % experts] = ~awake[:, good]
    yield "Specialists", mbcore.Specialists(), P2, yl, {"awake": awake}
    Xk = (rng.random((1500, n)) < 0.9).astype(np.uint8)
    lits = rng.choice(n, size=3, replace=False)
    yk = (Xk[:, lits[0]] & Xk[:, lits[1]] & (1 - Xk[:, lits[2]])).astype(int)
    yield "Conjunction", mbcore.Conjunction(), Xk, yk, {"passes": 2}
    Xd, yd, _ = disjunction(rng, 1500, n, k)
    yield "Disjunction", mbcore.Disjunction(), Xd, yd, {"passes": 2}
    Xl, yl2 = decision_list(rng, 1500, 20, int(rng.integers(1, 6)))
    yield "DecisionList", mbcore.DecisionList(), Xl, yl2, {"passes": 2}
    C = mbcore.ConceptClass.all_conjunctions(int(rng.integers(3, 7)))
    pts = rng.integers(0, C.n_points, 400)
    yield "Halving", mbcore.Halving(C), pts, C.matrix()[int(rng.integers(0, len(C))), pts], {}
    H = mbcore.ConceptClass.half_intervals(int(rng.integers(2, 6)))
    hp = rng.integers(0, H.n_points, 200)
    yield "SOA", mbcore.SOA(H), hp, H.matrix()[int(rng.integers(0, len(H))), hp], {}


# %%
# Certify them all
# ----------------
#
# ``classes=[0, 1]`` is passed for 0/1 labels, in case a short stream holds one label only.
# :class:`mbcore.BoundViolationError` would mean a run above a bound whose assumptions were all
# verified: a bug in mbcore.

rng = np.random.default_rng(0)
results = {}
for rep in range(3):
    for name, learner, X, y, kw in instances(rng):
        if set(np.unique(y).tolist()) <= {0, 1}:
            kw = dict(kw, classes=[0, 1])
        cert = mbcore.certify(learner, X, y, **kw)
        assert cert.verified and cert.holds, cert.summary()
        results.setdefault(name, []).append(cert)

print(f"{'learner':<27} {'bound':<44} {'counts':<18} {'observed/bound':>14}")
for name, certs in results.items():
    ratios = [c.observed / c.bound for c in certs]
    print(f"{name:<27} {certs[0].bound_name[:43]:<44} {certs[0].counted:<18} "
          f"{min(ratios):>6.3f}..{max(ratios):.3f}")

# %%
# One certificate in full: what it found, from what, and which assumptions it checked.

print(results["Winnow (label noise)"][0].summary())

# %%
# Observed over bound
# -------------------
#
# One dot per instance: the count observed divided by the bound, on a logarithmic scale (the
# ratios span more than two decades); a run without a single mistake is drawn as an open
# circle at the left edge.  Every dot is left of 1.  The bounds are worst cases over every
# sequence, so most are far from the count of a random one; randomized Weighted Majority (an
# expectation, computed exactly), Halving, SOA and the Winnow family come closest.

names = sorted(results, key=lambda k: np.median([c.observed / c.bound for c in results[k]]))
fig, ax = plt.subplots(figsize=(9, 6.4))
edge = 1e-3
for i, name in enumerate(names):
    r = np.array([c.observed / c.bound for c in results[name]])
    dy = np.linspace(-0.15, 0.15, len(r))
    ax.scatter(r[r > 0], i + dy[r > 0], s=30, color="C0", zorder=3)
    ax.scatter(np.full((r == 0).sum(), edge), i + dy[r == 0], s=30, facecolor="white",
               edgecolor="C0", lw=1.5, zorder=3)
ax.scatter([], [], s=30, color="C0", label="one random instance")
ax.scatter([], [], s=30, facecolor="white", edgecolor="C0", lw=1.5,
           label="no mistake at all (drawn at the edge)")
ax.axvline(1.0, color="C3", lw=1.2, ls="--", label="observed = bound")
ax.set_xscale("log")
ax.set_xlim(edge / 1.5, 2)
ax.set_yticks(range(len(names)),
              [n if results[n][0].counted == "mistakes" else f"{n} ({results[n][0].counted})"
               for n in names], fontsize=8.5)
ax.set_xlabel("observed count / bound (log scale)")
ax.set_title("Sixteen learners, three random instances each: every run within its bound",
             fontsize=10)
ax.grid(axis="x", color="0.9", zorder=0)
ax.legend(loc="upper center", bbox_to_anchor=(0.4, -0.1), ncol=3, fontsize=8.5,
          frameon=False)
fig.tight_layout()
plt.show()
