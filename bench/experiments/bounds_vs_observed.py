"""Every mistake bound of the notes against the mistakes observed, over random instances.

For each learner family, random instances that satisfy the theorem's assumptions (a separable
sample with a margin, a k-of-n disjunction with label noise counted as attribute errors, a pool
of experts with one good expert, a random conjunction, decision list or concept of a finite
class, ...) are drawn, and ``mbcore.certify`` runs the learner, verifies the assumptions on the
data and compares the observed count with the bound.  Published claim (the theorems
behind ``mbcore.bounds``, each cited there): no run exceeds its bound.  Reported:
instances, how many had every assumption verified, observed/bound (mean and max),
violations.

Run: ``python bench/experiments/bounds_vs_observed.py`` (``--small`` for a quick version).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

import mbcore  # noqa: E402
from mbcore.online import distinct_colours  # noqa: E402

NAME = "bounds_vs_observed"


def separable(rng, n, d, gamma):
    """Gaussian rows with normalised margin >= gamma from a random unit u."""
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * n, d))
    keep = np.abs(X @ u) / np.linalg.norm(X, axis=1) >= gamma
    X = X[keep][:n]
    return X, np.where(X @ u > 0, 1, -1), u


def disjunction(rng, n, d, k, flip=0.0):
    p = 1 - 2 ** (-1 / k)
    X = (rng.random((n, d)) < p).astype(np.uint8)
    t = rng.choice(d, size=k, replace=False)
    y = X[:, t].any(axis=1).astype(int)
    f = rng.random(n) < flip
    y[f] = 1 - y[f]
    return X, y, t


def decision_list(rng, n, d, length):
    """Rows and labels of a random 1-decision list of `length` rules (the last is T -> b)."""
    X = (rng.random((n, d)) < 0.5).astype(np.uint8)
    y = np.full(n, rng.integers(0, 2))
    done = np.zeros(n, dtype=bool)
    for _ in range(length - 1):
        i, v, b = rng.integers(0, d), rng.integers(0, 2), rng.integers(0, 2)
        fire = (X[:, i] == v) & ~done
        y[fire] = b
        done |= fire
    return X, y


def instances(rng, small):
    """(family, learner, X, y, certify keyword arguments) for random instances."""
    reps = 3 if small else 40
    for r in range(reps):
        d = int(rng.integers(3, 12))
        g = float(rng.uniform(0.05, 0.3))
        X, y, u = separable(rng, 300 if small else 1000, d, g)
        passes = int(rng.integers(1, 4))
        yield "Perceptron", mbcore.Perceptron(), X, y, {"passes": passes}
        yield "Perceptron (intercept)", mbcore.Perceptron(fit_intercept=True), X + 1.0, y, \
            {"passes": passes, "u": np.append(u, -float(u.sum()))}
        yield "Perceptron (normalize)", mbcore.Perceptron(normalize=True), X, y, {"passes": 2}
        yield "MarginPerceptron", mbcore.MarginPerceptron(gamma=g), X, y, {"passes": passes}
        yield "KernelPerceptron (rbf)", mbcore.KernelPerceptron(), X[:200], y[:200], {}
        n_var = int(rng.choice([32, 128, 512]))
        k = int(rng.integers(1, 6))
        m = 1500 if small else 5000
        Xb, yb, t = disjunction(rng, m, n_var, k, flip=float(rng.choice([0.0, 0.02, 0.1])))
        yield "Winnow (agnostic)", mbcore.Winnow(), Xb, yb, {"target": t, "passes": passes}
        Xc, yc, t = disjunction(rng, m, n_var, k)
        yield "Winnow", mbcore.Winnow(), Xc, yc, {"passes": passes}
        yield "EliminationWinnow", mbcore.EliminationWinnow(), Xc, yc, {"target": t}
        yield "WinnowStar", mbcore.WinnowStar(), Xc, yc, {"target": t}
        experts = int(rng.integers(5, 200))
        rounds = 800 if small else 3000
        yl = rng.choice([-1, 1], rounds)
        P = np.where(rng.random((rounds, experts)) < rng.uniform(0.2, 0.5), -yl[:, None],
                     yl[:, None])
        good = int(rng.integers(0, experts))
        P[:, good] = np.where(rng.random(rounds) < rng.uniform(0, 0.1), -yl, yl)
        beta = float(rng.choice([0.5, 0.25, 0.8]))
        yield "WeightedMajority", mbcore.WeightedMajority(beta=beta), P, yl, {}
        yield "RandomizedWeightedMajority (expected)", \
            mbcore.RandomizedWeightedMajority(beta=beta, random_state=r), P, yl, {}
        awake = rng.random(P.shape) < 0.5
        P2 = P.copy()
        P2[:, good] = yl
        P2[:, (good + 1) % experts] = yl
        awake[:, (good + 1) % experts] = ~awake[:, good]
        yield "Specialists", mbcore.Specialists(), P2, yl, {"awake": awake}
        Xk = (rng.random((m, n_var)) < 0.9).astype(np.uint8)
        lits = rng.choice(n_var, size=3, replace=False)
        yk = (Xk[:, lits[0]] & Xk[:, lits[1]] & (1 - Xk[:, lits[2]])).astype(int)
        yield "Conjunction", mbcore.Conjunction(), Xk, yk, {"passes": passes}
        Xd, yd, _ = disjunction(rng, m, n_var, k)
        yield "Disjunction", mbcore.Disjunction(), Xd, yd, {"passes": passes}
        Xl, yl2 = decision_list(rng, m, 20, int(rng.integers(1, 6)))
        yield "DecisionList", mbcore.DecisionList(), Xl, yl2, {"passes": passes}
        C = mbcore.ConceptClass.all_conjunctions(int(rng.integers(3, 7)))
        M = C.matrix()
        pts = rng.integers(0, C.n_points, 400)
        c = int(rng.integers(0, C.n_concepts))
        yield "Halving", mbcore.Halving(C), pts, M[c, pts], {"passes": passes}
        H = mbcore.ConceptClass.half_intervals(int(rng.integers(2, 6)))
        hp = rng.integers(0, H.n_points, 200)
        yield "SOA", mbcore.SOA(H), hp, H.matrix()[int(rng.integers(0, H.n_concepts)), hp], {}


def main(argv=None):
    args = _common.parse_args(__doc__.splitlines()[0], argv)
    rng = np.random.default_rng(args.seed)
    stats = {}
    points = []
    for family, learner, X, y, kw in instances(rng, args.small):
        s = stats.setdefault(family, {"bound": "", "n": 0, "verified": 0, "ratios": [],
                                      "violations": 0})
        s["n"] += 1
        if set(np.unique(y).tolist()) <= {0, 1}:
            kw = dict(kw, classes=[0, 1])                 # a stream may hold one label only
        try:
            cert = mbcore.certify(learner, X, y, **kw)
        except mbcore.BoundViolationError as e:               # a bug in mbcore: count it
            cert = e.certificate
            s["violations"] += 1
        s["bound"] = cert.bound_name
        if cert.bound is not None and cert.verified:
            s["verified"] += 1
            s["ratios"].append(cert.observed / cert.bound)
            points.append((family, cert.bound, max(cert.observed, 0.5)))
    rows = []
    for family, s in stats.items():
        r = np.array(s["ratios"]) if s["ratios"] else np.array([np.nan])
        rows.append({"learner": family, "bound": s["bound"], "instances": s["n"],
                     "verified": s["verified"], "mean observed/bound": float(np.mean(r)),
                     "max observed/bound": float(np.max(r)), "violations": s["violations"]})
    total = sum(s["n"] for s in stats.values())
    claims = [
        _common.claim("no run exceeds a bound whose assumptions were verified",
                      all(r["violations"] == 0 for r in rows) and
                      all(r["max observed/bound"] <= 1.0 for r in rows),
                      f"{total} runs"),
        _common.claim("every instance drawn satisfies its theorem's assumptions (checked on "
                      "the data), so every comparison counts",
                      all(r["verified"] == r["instances"] for r in rows)),
    ]

    def plot(plt):
        fams = sorted({p[0] for p in points})
        colours = distinct_colours(len(fams))                # never the same colour twice
        # the marker names the block of the palette (tab10, then darker, then lighter
        # colours), so two families of a similar hue never share a marker as well
        marks = "os^Dv"
        for i, f in enumerate(fams):
            b = [p[1] for p in points if p[0] == f]
            o = [p[2] for p in points if p[0] == f]
            mark = marks[min(0 if i < 10 else 1 if i < 15 else 2 + (i - 15) // 10, 4)]
            plt.scatter(b, o, s=16, color=colours[i], marker=mark,
                        alpha=0.85, linewidths=0, label=f"{f} ({len(b)})")
        lo = min(min(p[1] for p in points), min(p[2] for p in points))
        hi = max(p[1] for p in points)
        plt.plot([lo, hi], [lo, hi], "k--", lw=1, label="observed = bound")
        _common.log_if_wide(plt, "x")            # bounds from 1 to 10^5: log-log
        _common.log_if_wide(plt, "y")
        plt.xlabel("bound")
        plt.ylabel("observed mistakes, updates or\nexpected mistakes (0 drawn at 0.5)")
        plt.title(f"Mistake bounds vs observed counts ({_common.plural(len(points), 'run')})",
                  fontsize=10)
        _common.legend_outside(plt, fontsize=7, title="learner (runs)", title_fontsize=7.5)

    return _common.finish(NAME, args, "Mistake bounds against observed counts (random instances)",
                          ["learner", "bound", "instances", "verified", "mean observed/bound",
                           "max observed/bound", "violations"], rows, claims, plot)


if __name__ == "__main__":
    sys.exit(main())
