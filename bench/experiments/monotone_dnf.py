"""Monotone DNF is exactly learnable with equivalence and membership queries.

Published result
----------------
Angluin's lecture 24 (after Valiant 1984): start from the empty formula; on a counterexample x
(necessarily positive), Minimize it with membership queries (turn each 1 off in turn, keep it
off while MQ stays 1, never retest a 1 within one call: at most n MQs) and add the term of the
minimal positive point found.  Each term found is a term of the reduced target, so at most
(terms + 1) equivalence queries and n x terms membership queries are asked, and the final
formula equals the target.  The lecture's worked example, target x1x2 + x3: counterexample 111,
MQ(011) = 1, MQ(001) = 1, MQ(000) = 0, term x3; counterexample 110, MQ(010) = 0,
MQ(100) = 0, term x1x2; EQ(x3 + x1x2) is answered "yes".

Design
------
* **Worked example**: replayed exactly with ``mbcore.queries.learn_monotone_dnf`` and the
  ``"adversarial"`` EQ strategy (whose first counterexample to h = 0 is the positive point
  with the most 1s, 111, and then 110, the only disagreement left); the membership oracle keeps
  the points it was asked (``history``), and the hypotheses asked about are recorded.
* **Random targets**: for each n (8..16 in the full run) and number of terms t (2, 4, 6, 8), a
  target is t distinct terms of 1 to 4 variables drawn at random, redrawn until its reduced
  form has exactly t terms; ``--targets`` targets per cell (default 20; ``--small``: 5, n in
  {8, 10}, t in {2, 4}); each target learned with each EQ strategy ("first", "random",
  "adversarial") over the whole domain {0,1}^n.
* Queries are counted by the oracles (``calls``).

Claims (computed from the runs just made):
* the worked example is replayed exactly: the MQs are [011, 001, 000, 010, 100], the
  hypotheses asked are 0, x3, x1x2 + x3, and 3 EQs are asked;
* every random target is learned exactly (the reduced formulas are equal);
* EQs <= terms + 1 and MQs <= n x terms in every run (and EQs = terms + 1 exactly: every
  counterexample yields a new term of the target).

Run: ``python bench/experiments/monotone_dnf.py [--small] [--out DIR] [--seed N]
[--targets T]``.
"""

import sys
import time
from pathlib import Path

import numpy as np

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:          # importable by path too, not only when run as a script
    sys.path.insert(0, _HERE)

import _common  # noqa: E402

from mbcore.queries import (EquivalenceOracle, MembershipOracle, MonotoneDNF,  # noqa: E402
                            learn_monotone_dnf)

NAME = "monotone_dnf"
COLUMNS = ["n", "terms", "strategy", "targets", "exact", "max_eqs", "eq_bound", "mean_mqs",
           "max_mqs", "mq_bound"]
STRATEGIES = ("first", "random", "adversarial")
GOLDEN_MQS = [(0, 1, 1), (0, 0, 1), (0, 0, 0), (0, 1, 0), (1, 0, 0)]
GOLDEN_HYPS = ["0", "x3", "x1x2 + x3"]


class Recording:
    """An equivalence oracle that records the hypotheses it is asked about."""

    def __init__(self, eq):
        self.eq = eq
        self.asked = []

    @property
    def calls(self):
        return self.eq.calls

    def __call__(self, h):
        self.asked.append(str(h))
        return self.eq(h)


def golden():
    target = MonotoneDNF([[0, 1], [2]], n=3)
    mq = MembershipOracle(target)
    eq = Recording(EquivalenceOracle(target, n=3, strategy="adversarial"))
    res = learn_monotone_dnf(mq, eq, 3)
    return res, mq.history, eq.asked


def random_target(rng, n, t, max_len=4):
    while True:
        terms = [rng.choice(n, size=int(rng.integers(1, max_len + 1)), replace=False).tolist()
                 for _ in range(t)]
        f = MonotoneDNF(terms, n)
        if f.n_terms == t:
            return f


def extra(p):
    p.add_argument("--targets", type=int, default=None,
                   help="random targets per (n, terms) (default 20; --small: 5)")


def main(argv=None):
    args = _common.parse_args("Monotone DNF with equivalence and membership queries (Angluin "
                              "lecture 24): exact, within terms + 1 EQs and n x terms MQs",
                              argv, extra)
    ns = [8, 10] if args.small else [8, 10, 12, 14, 16]
    ts = [2, 4] if args.small else [2, 4, 6, 8]
    targets = args.targets or (5 if args.small else 20)
    t0 = time.perf_counter()

    res, mqs, asked = golden()
    rows = [{"n": 3, "terms": 2, "strategy": "adversarial (worked example x1x2 + x3)",
             "targets": 1, "exact": "yes" if res.formula == MonotoneDNF([[0, 1], [2]], 3)
             else "no", "max_eqs": res.equivalence_queries, "eq_bound": 3,
             "mean_mqs": float(res.membership_queries), "max_mqs": res.membership_queries,
             "mq_bound": 6}]
    runs = []
    for n in ns:
        for t in ts:
            rng = np.random.default_rng(np.random.SeedSequence([args.seed, n, t]))
            fs = [random_target(rng, n, t) for _ in range(targets)]
            for si, strategy in enumerate(STRATEGIES):
                cell = []
                for k, f in enumerate(fs):
                    mq = MembershipOracle(f)
                    eq = EquivalenceOracle(f, n=n, strategy=strategy,
                                           seed=np.random.SeedSequence([args.seed, n, t, si, k]))
                    r = learn_monotone_dnf(mq, eq, n)
                    cell.append({"n": n, "t": t, "strategy": strategy,
                                 "exact": r.formula == f, "eqs": r.equivalence_queries,
                                 "mqs": r.membership_queries})
                runs += cell
                rows.append({
                    "n": n, "terms": t, "strategy": strategy, "targets": targets,
                    "exact": "yes" if all(c["exact"] for c in cell) else "no",
                    "max_eqs": max(c["eqs"] for c in cell), "eq_bound": t + 1,
                    "mean_mqs": float(np.mean([c["mqs"] for c in cell])),
                    "max_mqs": max(c["mqs"] for c in cell), "mq_bound": n * t})
            print(f"n={n} terms={t}: done ({time.perf_counter() - t0:.1f} s)", flush=True)

    worst_mq = max(runs, key=lambda r: r["mqs"] / (r["n"] * r["t"]))
    claims = [
        _common.claim(
            "worked example (lecture 24): the MQs are exactly 011, 001, 000, 010, 100",
            mqs == GOLDEN_MQS, "asked: " + ", ".join("".join(map(str, q)) for q in mqs)),
        _common.claim(
            "worked example: the hypotheses asked are 0, x3, x1x2 + x3 (then 'yes'), 3 EQs",
            asked == GOLDEN_HYPS and res.equivalence_queries == 3,
            f"asked: {asked}; {res.equivalence_queries} EQs, {res.membership_queries} MQs"),
        _common.claim(
            "every random target is learned exactly (equal reduced formulas), with every EQ "
            "strategy",
            all(r["exact"] for r in runs), f"{len(runs)} runs"),
        _common.claim(
            "EQs <= terms + 1 in every run (in fact = terms + 1: each counterexample yields a new "
            "term of the target)",
            all(r["eqs"] <= r["t"] + 1 for r in runs),
            "equal in every run" if all(r["eqs"] == r["t"] + 1 for r in runs)
            else "not always equal"),
        _common.claim(
            "MQs <= n x terms in every run (Minimize tests each 1 of a counterexample once)",
            all(r["mqs"] <= r["n"] * r["t"] for r in runs),
            f"largest MQs / (n terms) = {worst_mq['mqs'] / (worst_mq['n'] * worst_mq['t']):.3f} "
            f"(n={worst_mq['n']}, terms={worst_mq['t']}, {worst_mq['strategy']})"),
    ]
    print(f"{NAME}: {len(runs)} runs in {time.perf_counter() - t0:.1f} s")
    title = ("Monotone DNF with EQ + MQ (Angluin lecture 24): the worked example and random "
             "targets (terms of 1..4 variables) over {0,1}^n, each EQ strategy")

    def plot(plt):
        marks = {"first": "o", "random": "s", "adversarial": "^"}
        colours = dict(zip(STRATEGIES, ("C0", "C1", "C2")))     # the bound: C3, no other
        rng = np.random.default_rng(0)
        low, top = np.inf, 0
        for s in STRATEGIES:
            rs = [r for r in runs if r["strategy"] == s]
            x = np.array([r["n"] * r["t"] for r in rs], dtype=float)
            x = x * (1 + 0.03 * (STRATEGIES.index(s) - 1)) + rng.uniform(-0.3, 0.3, len(x))
            plt.scatter(x, [r["mqs"] for r in rs], marker=marks[s], s=12, alpha=0.5,
                        color=colours[s], label=f"EQ strategy {s} ({len(rs)} targets)")
            top = max(top, max(r["n"] * r["t"] for r in rs))
            low = min(low, min(r["n"] * r["t"] for r in rs))
        plt.plot([low, top], [low, top], color="C3", ls="--", label="bound: MQs = n x terms")
        plt.xlabel("n x terms")
        plt.ylabel("membership queries")
        if _common.log_if_wide(plt):            # a few MQs to over a hundred: log, and log x
            from matplotlib import ticker       # too, so the bound stays a straight line and
            plt.xscale("log", base=2)           # the gap under it is the ratio to it
            xaxis = plt.gca().xaxis
            xaxis.set_major_locator(ticker.LogLocator(base=2, subs=(1.0, 1.5)))
            xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            xaxis.set_minor_formatter(ticker.NullFormatter())
        plt.title("Monotone DNF: membership queries per target", fontsize=10)
        _common.legend_outside(plt)

    return _common.finish(NAME, args, title, COLUMNS, rows, claims, plot)


if __name__ == "__main__":
    sys.exit(main())
