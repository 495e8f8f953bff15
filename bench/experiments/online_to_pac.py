"""Online -> PAC: a mistake bound B gives a PAC learner with O((B/epsilon) log(B/delta)) examples.

Published result
----------------
Kanade's lecture notes, Theorem 4 (with Proposition 3): run the conservative form of a learner
with mistake bound B on examples from EX(c, D), and stop after s = ceil((1/epsilon) ln(B/delta))
consecutive correct predictions or after B mistakes.  A hypothesis with error >= epsilon
survives s examples with probability <= (1 - epsilon)^s <= delta/B, and at most B hypotheses can
be stopped on, so with probability >= 1 - delta the output has error < epsilon; the conversion
uses at most B s examples (``mbcore.bounds.online_to_pac_sample_size``).

Design
------
* **Learners and classes** (all over n Boolean variables, D the product distribution with
  P(x_i = 1) = p):

  - ``Winnow()`` on a monotone disjunction of k of n = 10 variables, k uniform in {1, 2, 3}
    per trial, p = 0.2; B = floor(2 + 3k(1 + log2 n)) (``winnow_bound``);
  - ``Conjunction()`` (elimination) on a conjunction of 2 or 3 literals of n = 10 variables,
    one of them negated in half the trials, p = 0.75; B = n + 1 (``conjunction_bound``);
  - ``Halving`` over a random class of 256 concepts on {0,1}^8 (each concept labels each point
    1 with probability 1/2), the target a random member, p = 0.5 (uniform on the cube);
    B = floor(log2 256) = 8 (``halving_bound``).  Random concepts are far apart (any two
    differ on about half the cube), so a wrong hypothesis is caught at once and the error is
    almost always exactly 0;
  - ``Halving`` over the 256 monotone conjunctions on {0,1}^8
    (``ConceptClass.monotone_conjunctions(8)``), the target a conjunction of 1 to 3 variables,
    p = 0.5; B = 8 ("Halving-conj": here hypotheses with small non-zero error exist).

* **The conversion**: ``mbcore.queries.online_to_pac(learner, ExampleOracle(...), B, epsilon,
  delta)``, a fresh learner and a seeded oracle per trial.
* **Error**: computed *exactly*: the sum of D(x) over the points x of {0,1}^n on which the
  returned hypothesis and the target disagree (2^10 or 2^8 points), no sampling.
* **Trials**: 200 per (learner, epsilon, delta) in the full run (30 with ``--small``), each with
  its own target and oracle seed (``numpy.random.SeedSequence([seed, setting, trial])``).

The union bound of Thm 4 is loose: measured while designing this (1000 trials per learner and
setting, seed 99), the fraction of trials with error > epsilon was at most 0.4% in every
setting, far below delta >= 1%, so the first claim below does not hold by luck of the draw.

Claims (computed from the trials just run):
* in every row, the fraction of trials with error <= epsilon is >= 1 - delta (Thm 4);
* in every trial, the examples used are <= B s (``online_to_pac_sample_size``);
* in every trial that stopped on a run, the record ends with s consecutive correct predictions
  and has no earlier run of s (the stopping rule), and every trial stopped on a run or after
  exactly B mistakes.

Run: ``python bench/experiments/online_to_pac.py [--small] [--out DIR] [--seed N]
[--trials T]``.
"""

import math
import sys
import time
from pathlib import Path

import numpy as np

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:          # importable by path too, not only when run as a script
    sys.path.insert(0, _HERE)

import _common  # noqa: E402

from mbcore import ConceptClass, Conjunction, Halving, Winnow  # noqa: E402
from mbcore.bounds import (conjunction_bound, halving_bound, online_to_pac_run_length,  # noqa: E402
                           online_to_pac_sample_size, winnow_bound)
from mbcore.queries import ExampleOracle, MonotoneDNF, online_to_pac  # noqa: E402

NAME = "online_to_pac"
COLUMNS = ["learner", "target", "n", "p", "epsilon", "delta", "B", "s", "trials",
           "frac_good", "need", "mean_error", "max_error", "mean_samples", "max_samples",
           "sample_bound", "stopped_run", "stopped_mistakes"]
SETTINGS_FULL = [(0.1, 0.1), (0.05, 0.05), (0.2, 0.01)]
SETTINGS_SMALL = [(0.1, 0.1), (0.2, 0.05)]


def cube(n):
    """{0,1}^n, row j = the bits of j (x1 the most significant)."""
    j = np.arange(2 ** n, dtype=np.int64)
    return ((j[:, None] >> (n - 1 - np.arange(n))) & 1).astype(np.uint8)


def product_probs(D, p):
    return np.prod(np.where(D == 1, p, 1.0 - p), axis=1)


class Conj:
    """A conjunction of literals: (variable, sign) pairs, sign 1 = x_i, 0 = not x_i."""

    def __init__(self, lits):
        self.lits = lits

    def __call__(self, X):
        out = np.ones(X.shape[0], dtype=bool)
        for i, sign in self.lits:
            out &= X[:, i] == sign
        return out.astype(np.uint8)

    def __str__(self):
        return " ".join(("" if s else "~") + f"x{i + 1}" for i, s in self.lits)


class Table:
    """A concept of a finite class on {0,1}^n, given by its labels on cube(n)."""

    def __init__(self, labels, n):
        self.labels = np.asarray(labels, dtype=np.uint8)
        self.weights = 1 << np.arange(n - 1, -1, -1)

    def __call__(self, X):
        return self.labels[X.astype(np.int64) @ self.weights]


def make_trial(kind, rng):
    """(learner, target, n, p, B, description) for one trial."""
    if kind == "Winnow":
        n, p = 10, 0.2
        k = int(rng.integers(1, 4))
        rel = sorted(rng.choice(n, size=k, replace=False).tolist())
        return Winnow(), MonotoneDNF([[i] for i in rel], n), n, p, \
            math.floor(winnow_bound(k, n)), "monotone k-disjunction, k in 1..3"
    if kind == "Conjunction":
        n, p = 10, 0.75
        k = int(rng.integers(2, 4))
        idx = rng.choice(n, size=k, replace=False).tolist()
        signs = [1] * k
        if rng.random() < 0.5:
            signs[0] = 0
        return Conjunction(), Conj(list(zip(idx, signs))), n, p, conjunction_bound(n), \
            "conjunction of 2..3 literals"
    if kind == "Halving":
        n, p, m = 8, 0.5, 256
        M = rng.integers(0, 2, size=(m, 2 ** n))
        D = cube(n)
        C = ConceptClass.from_matrix(M, points=D.tolist())
        c = int(rng.integers(m))
        return Halving(C), Table(M[c], n), n, p, halving_bound(C), \
            f"random class of {m} concepts on {{0,1}}^{n}"
    if kind == "Halving-conj":
        n, p = 8, 0.5
        C = ConceptClass.monotone_conjunctions(n)
        k = int(rng.integers(1, 4))
        c = sum(1 << (n - 1 - int(i)) for i in rng.choice(n, size=k, replace=False))
        return Halving(C), Table(C.labels(c), n), n, p, halving_bound(C), \
            f"monotone conjunctions on {{0,1}}^{n} (target: 1..3 variables)"
    raise AssertionError(kind)


def run_trial(kind, seed, epsilon, delta):
    rng = np.random.default_rng(seed)
    learner, target, n, p, B, desc = make_trial(kind, rng)
    ex = ExampleOracle(target, n=n, p=p, seed=rng.integers(2 ** 63))
    res = online_to_pac(learner, ex, B, epsilon, delta)
    D = cube(n)
    err = float(product_probs(D, p)[res.hypothesis.predict(D) != target(D)].sum())
    errors = res.record.errors.tolist()
    s = res.run_length
    best = cur = 0
    for e in errors[:-1]:
        cur = 0 if e else cur + 1
        best = max(best, cur)
    if res.stopped == "run":
        rule = (len(errors) >= s and not any(errors[-s:]) and best < s and res.mistakes < B)
    else:
        rule = res.stopped == "mistakes" and res.mistakes == B and errors[-1] and best < s
    return {"error": err, "samples": res.samples, "stopped": res.stopped, "B": B, "s": s,
            "n": n, "p": p, "desc": desc, "rule": bool(rule),
            "within": res.samples <= online_to_pac_sample_size(B, epsilon, delta)}


def extra(p):
    p.add_argument("--trials", type=int, default=None,
                   help="trials per (learner, epsilon, delta) (default 200; --small: 30)")


def main(argv=None):
    args = _common.parse_args("Online -> PAC conversion (Kanade Thm 4): error <= epsilon with "
                              "probability >= 1 - delta, with at most B s examples", argv, extra)
    trials = args.trials or (30 if args.small else 200)
    settings = SETTINGS_SMALL if args.small else SETTINGS_FULL
    kinds = ["Winnow", "Conjunction", "Halving", "Halving-conj"]
    t0 = time.perf_counter()
    rows, per = [], {}
    for ki, kind in enumerate(kinds):
        for si, (eps, delta) in enumerate(settings):
            res = [run_trial(kind, np.random.SeedSequence([args.seed, ki, si, t]), eps, delta)
                   for t in range(trials)]
            per[(kind, eps, delta)] = res
            errs = np.array([r["error"] for r in res])
            samples = np.array([r["samples"] for r in res])
            Bs = sorted({r["B"] for r in res})
            B = max(Bs)
            good = float(np.mean(errs <= eps))
            rows.append({
                "learner": kind, "target": res[0]["desc"], "n": res[0]["n"], "p": res[0]["p"],
                "epsilon": eps, "delta": delta,
                "B": B if len(Bs) == 1 else f"{Bs[0]}..{Bs[-1]}",
                "s": online_to_pac_run_length(B, eps, delta) if len(Bs) == 1 else
                f"{online_to_pac_run_length(Bs[0], eps, delta)}.."
                f"{online_to_pac_run_length(Bs[-1], eps, delta)}",
                "trials": trials, "frac_good": good, "need": 1.0 - delta,
                "mean_error": float(errs.mean()), "max_error": float(errs.max()),
                "mean_samples": float(samples.mean()), "max_samples": int(samples.max()),
                "sample_bound": online_to_pac_sample_size(B, eps, delta),
                "stopped_run": sum(r["stopped"] == "run" for r in res),
                "stopped_mistakes": sum(r["stopped"] == "mistakes" for r in res),
            })
            print(f"{kind} eps={eps} delta={delta}: {good:.3f} good, mean samples "
                  f"{samples.mean():.0f} ({time.perf_counter() - t0:.1f} s)", flush=True)

    allres = [r for res in per.values() for r in res]
    worst = min(rows, key=lambda r: r["frac_good"] - r["need"])
    claims = [
        _common.claim(
            "in every row, the fraction of trials with (exact) error <= epsilon is >= 1 - delta "
            "(Kanade Thm 4)",
            all(r["frac_good"] >= r["need"] for r in rows),
            f"tightest: {worst['learner']} eps={worst['epsilon']} delta={worst['delta']}: "
            f"{worst['frac_good']:.3f} vs {worst['need']:.3f}"),
        _common.claim(
            "in every trial the examples used are <= B s = B ceil((1/epsilon) ln(B/delta))",
            all(r["within"] for r in allres),
            f"largest samples / bound: "
            f"{max(r['max_samples'] / r['sample_bound'] for r in rows):.3f}"),
        _common.claim(
            "every trial stopped as the theorem says: a final run of s correct predictions and "
            "no earlier one (fewer than B mistakes), or exactly B mistakes",
            all(r["rule"] for r in allres),
            f"{len(allres)} trials; {sum(r['stopped'] == 'run' for r in allres)} on a run"),
    ]
    print(f"{NAME}: {len(allres)} trials in {time.perf_counter() - t0:.1f} s")
    title = ("Online -> PAC (Kanade Thm 4): conservative learners stopped after s = "
             "ceil((1/eps) ln(B/delta)) consecutive correct predictions or B mistakes; error "
             "computed exactly over {0,1}^n under the product distribution")

    def plot(plt):
        labels = [f"{r['learner']} eps={r['epsilon']} delta={r['delta']}" for r in rows]
        x = np.arange(len(rows))
        plt.bar(x, [r["frac_good"] for r in rows], color="C0", alpha=0.7,
                label="fraction of trials with error <= epsilon")
        plt.hlines([r["need"] for r in rows], x - 0.4, x + 0.4, color="C3", lw=2, zorder=3,
                   label="1 - delta (Thm 4 guarantee)")
        worst = [r["max_error"] / r["epsilon"] for r in rows]
        plt.scatter(x, worst, marker="o", color="C2", zorder=3, clip_on=False,
                    label="worst error / epsilon")
        plt.axhline(1.0, color="0.6", lw=0.8, ls=":", zorder=1)
        plt.xticks(x, labels, fontsize=7, rotation=50, ha="right")
        _common.log_if_wide(plt)                 # fractions and ratios near 1: linear
        top = max(1.0, max(worst)) * 1.06
        plt.ylim(0, top)
        plt.yticks(np.arange(0, top, 0.2))
        plt.ylabel("fraction of trials / worst error over epsilon")
        plt.title(f"Online -> PAC: good trials per setting ({_common.plural(trials, 'trial')} "
                  "each)", fontsize=10)
        _common.legend_outside(plt)

    return _common.finish(NAME, args, title, COLUMNS, rows, claims, plot)


if __name__ == "__main__":
    sys.exit(main())
