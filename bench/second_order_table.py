"""SOL's published one-pass mistake rates on a1a (and its mnist claim), reproduced (issue 38).

SOL (``LIBOL/SOL`` README, "Comparison of Online Learning Algorithms") reports, for a1a, the
training accuracy of one online pass over each of 10 shuffles of the 1,605 training rows, the
parameters chosen by cross validation from the grids of its ``experiments/opts/a1a.py``.  The
online mistake rate is 1 - that accuracy: AROW 17.89 %, CW 20.87 % (ECCW, the exact form,
20.50 %), SOP 21.84 %, PA-I 19.89 %, PA-II 20.87 %, Perceptron 22.87 %.  This script runs the
same protocol:

* a1a (LIBSVM, 1,605 x 123, 0/1 features, labels +-1) as CSR rows (the stored values only, as
  SOL reads them); no intercept (SOL's ``bias_eta`` is 0 by default);
* 10 shuffles (``np.random.default_rng([seed, k]).permutation``), one online pass of a new
  learner over each; the online mistake rate of a pass = its mistakes / its rows;
* each learner's parameters chosen on the first shuffle (k = 0) from SOL's grids: the grid
  value of the fewest mistakes (the first in grid order on a tie); then the mean and the
  standard deviation (ddof = 1, as SOL's script) over the 10 shuffles;
* SOL's grids: AROW r = 2^-5..2^8 (``np.logspace(-5, 8, 11, base=2)``); CW a = 2^-4..2^0 and
  phi = 0..2 (9 values; phi = 0 is eta = Phi(0) = 0.5, which the learners refuse (eta must be
  in (0.5, 1)): it is skipped, leaving 8); PA-I and PA-II C = 2^-4..2^4; SOP a = 2^-4..2^4;
  the Perceptron has none.  CW's eta = Phi(phi) (``statistics.NormalDist().cdf``); SOL's ``a``
  of CW is the initial variance, the learners' ``a`` (Sigma_0 = a I);
* the tie of SOL (``Loss::Sign``: a score >= 0 predicts +1): ``tie="positive"`` (``--tie``).

Each second-order learner is ``mbcore.<Name>`` when mbcore has it, else the twin
``mbref.<Name>`` (the two are equal bit for bit; the script prints which ran).  PA-I, PA-II and
the Perceptron are ``mbcore.PassiveAggressive`` and ``mbcore.Perceptron``.  A learner is
"within" when |mean - SOL's mean| <= 2 x SOL's standard deviation.

mnist (``--mnist``): SOL's mnist row (60,000 training images of LIBSVM's ``mnist.scale``, one
shuffle) has AROW at 9.49 % against the Perceptron's 15.40 %.  The data here is the 10,000-image
test file (pixels / 255, 10 classes), so the claim checked is only "AROW below the Perceptron":
one shuffle, one pass each; AROW's single-constraint K-class form (SOL's ``maxscore-hinge``)
for every r of SOL's mnist grid (2^-5..2^5), the chosen r the one of the fewest mistakes; the
K-class Perceptron.  It needs the compiled ``mbcore.AROW`` (the twin is too slow for
10,000 x 784 x 10) and is skipped without it.

The data directory: ``--data DIR`` or the environment variable MBCORE_DATA, laid out as
``a1a/a1a`` and ``mnist-t10k/t10k-{images-idx3,labels-idx1}-ubyte.gz`` (as bench/conftest.py's
``shared_data``).  From the repository root, with mbcore importable (3 s with mbcore's classes,
the twin about as long on a1a; ``--seeds 10`` repeats the whole protocol for 10 seeds and adds
a summary, 30 s with the twin):

    MBCORE_DATA=DIR python bench/second_order_table.py [--mnist] [--seeds N] [--json OUT.json]
"""

import argparse
import gzip
import json
import os
import platform
import sys
import time
from statistics import NormalDist

import numpy as np
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.datasets.formats import load_svmlight

# SOL's a1a row (README @ 37f2b02a): train accuracy mean +- std over 10 shuffles
SOL_A1A = {"AROW": (0.8211, 0.0061), "CW": (0.7913, 0.0065), "ECCW": (0.7950, 0.0067),
           "SOP": (0.7816, 0.0073), "PA-I": (0.8011, 0.0058), "PA-II": (0.7913, 0.0062),
           "Perceptron": (0.7713, 0.0054)}
# SOL's mnist row (one shuffle of mnist.scale): train accuracy
SOL_MNIST = {"AROW": 0.9051, "Perceptron": 0.8460}

GRID_R = np.logspace(-5, 8, 11, base=2)          # AROW, a1a
GRID_CW_A = np.logspace(-4, 0, 5, base=2)        # CW's a (initial variance)
GRID_CW_PHI = np.linspace(0, 2, 9)               # CW's phi (0 skipped: eta = 0.5)
GRID_C = np.logspace(-4, 4, 9, base=2)           # PA-I, PA-II
GRID_SOP_A = np.logspace(-4, 4, 9, base=2)       # SOP
GRID_R_MNIST = np.logspace(-5, 5, 11, base=2)    # AROW, mnist


def implementation(name):
    """``(class, "mbcore")`` when mbcore has ``name``, else ``(class, "mbref")``."""
    if hasattr(mbcore, name):
        return getattr(mbcore, name), "mbcore"
    return getattr(mbref, name), "mbref"


def learners(tie):
    """Per row of SOL's table: (implementation, [(parameter text, factory), ...] in grid
    order)."""
    arow, arow_impl = implementation("AROW")
    cw, cw_impl = implementation("ConfidenceWeighted")
    sop, sop_impl = implementation("SecondOrderPerceptron")
    common = {"tie": tie}
    mb = {"tie": tie, "n_jobs": 1}
    cw_grid = []
    for a in GRID_CW_A:
        for phi in GRID_CW_PHI[1:]:                  # phi = 0: eta = 0.5, refused
            eta = NormalDist().cdf(float(phi))
            cw_grid.append((f"a={a:g}, phi={phi:g} (eta={eta:.4f})",
                            lambda a=a, eta=eta: cw(eta=eta, a=float(a), **common)))
    return {
        "AROW": (arow_impl, [(f"r={r:g}", lambda r=r: arow(r=float(r), **common))
                             for r in GRID_R]),
        "CW": (cw_impl, cw_grid),
        "SOP": (sop_impl, [(f"a={a:g}", lambda a=a: sop(a=float(a), **common))
                           for a in GRID_SOP_A]),
        "PA-I": ("mbcore", [(f"C={C:g}", lambda C=C: mbcore.PassiveAggressive(
            C=float(C), variant="PA-I", **mb)) for C in GRID_C]),
        "PA-II": ("mbcore", [(f"C={C:g}", lambda C=C: mbcore.PassiveAggressive(
            C=float(C), variant="PA-II", **mb)) for C in GRID_C]),
        "Perceptron": ("mbcore", [("-", lambda: mbcore.Perceptron(**mb))]),
    }


def data_dir(arg):
    root = arg or os.environ.get("MBCORE_DATA")
    if not root:
        raise SystemExit("second_order_table: give the datasets' directory with --data DIR or "
                         "the environment variable MBCORE_DATA")
    return root


def load_a1a(root):
    X, y = load_svmlight(os.path.join(root, "a1a", "a1a"), n_features=123)
    X = sp.csr_matrix(X)                      # the stored values only, sorted int32 indices
    return X, np.where(y > 0, 1, -1).astype(np.int64)


def load_mnist_t10k(root):
    d = os.path.join(root, "mnist-t10k")
    with gzip.open(os.path.join(d, "t10k-images-idx3-ubyte.gz")) as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
    with gzip.open(os.path.join(d, "t10k-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    return np.ascontiguousarray(X / 255.0), y


def shuffles(n, count, seed):
    return [np.random.default_rng([seed, k]).permutation(n) for k in range(count)]


def one_pass(make, X, y):
    """Mistakes of one online pass of a new learner over (X, y), or None when the pass fails
    (the learner refuses a row: a covariance that collapsed, a non-finite step)."""
    learner = make()
    try:
        learner.partial_fit(X, y)
    except (ValueError, ArithmeticError) as e:
        FAILURES.append(f"{type(learner).__name__}({_params(learner)}): "
                        f"{type(e).__name__}: {e}")
        return None
    return int(learner.mistakes_)


def _params(learner):
    keys = ("r", "eta", "a", "C", "variant")
    return ", ".join(f"{k}={getattr(learner, k)!r}" for k in keys if hasattr(learner, k))


FAILURES = []


def run_a1a(args, seed, quiet=False):
    X, y = load_a1a(data_dir(args.data))
    n = X.shape[0]
    perms = shuffles(n, args.shuffles, seed)
    refused = len(FAILURES)
    first = perms[0]
    X0, y0 = X[first], y[first]
    rows = []
    for name, (impl, grid) in learners(args.tie).items():
        t0 = time.perf_counter()
        tried = [(label, make, one_pass(make, X0, y0)) for label, make in grid]
        done = [i for i in range(len(tried)) if tried[i][2] is not None]
        if done:
            best = min(done, key=lambda i: tried[i][2])            # first on a tie
            label, make, first_rate = tried[best][0], tried[best][1], tried[best][2] / n
            rates = [m / n for m in (one_pass(make, X[p], y[p]) for p in perms)
                     if m is not None]
        else:                                   # every grid value refused shuffle 0
            label, first_rate, rates = "every grid value refused", None, []
        mean = float(np.mean(rates)) if rates else float("nan")
        std = float(np.std(rates, ddof=1)) if len(rates) > 1 else 0.0
        sol_acc, sol_std = SOL_A1A[name]
        sol_rate = 1.0 - sol_acc
        row = {"learner": name, "implementation": impl, "grid_size": len(grid),
               "chosen": label, "first_shuffle_rate": first_rate,
               "grid_rates": {lab: None if m is None else m / n for lab, _, m in tried},
               "grid_failed": len(tried) - len(done), "failed": len(perms) - len(rates),
               "rates": rates, "mean": mean, "std": std,
               "sol_mean": sol_rate, "sol_std": sol_std,
               "deviations": (mean - sol_rate) / sol_std,
               "within_2std": abs(mean - sol_rate) <= 2 * sol_std and len(rates) == len(perms),
               "seconds": time.perf_counter() - t0}
        if name == "CW":
            eacc, estd = SOL_A1A["ECCW"]
            row["sol_eccw_mean"], row["sol_eccw_std"] = 1.0 - eacc, estd
            row["eccw_deviations"] = (mean - (1.0 - eacc)) / estd
        rows.append(row)
        if not quiet:
            print(f"  {name}: {impl}, {len(grid)} grid values, chosen {label}, "
                  f"{100 * mean:.2f} +- {100 * std:.2f} % ({row['seconds']:.1f} s)",
                  file=sys.stderr)
    return {"n": n, "shuffles": args.shuffles, "seed": seed, "tie": args.tie, "rows": rows,
            "refused": FAILURES[refused:]}


def run_mnist(args):
    if not hasattr(mbcore, "AROW"):
        print("mnist: skipped, mbcore has no compiled AROW yet (the twin is too slow for "
              "10,000 x 784 x 10)", file=sys.stderr)
        return None
    X, y = load_mnist_t10k(data_dir(args.data))
    p = shuffles(X.shape[0], 1, args.seed)[0]
    X, y = np.ascontiguousarray(X[p]), y[p]
    n = X.shape[0]
    arow = {}
    for r in GRID_R_MNIST:
        t0 = time.perf_counter()
        m = one_pass(lambda r=r: mbcore.AROW(r=float(r), tie=args.tie,
                                             multi_class="multiclass"), X, y)
        if m is not None:
            arow[f"r={r:g}"] = m / n
        print(f"  mnist AROW r={r:g}: {'refused' if m is None else f'{100 * m / n:.2f} %'} "
              f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    perceptron = one_pass(lambda: mbcore.Perceptron(tie=args.tie, n_jobs=1), X, y) / n
    if not arow:
        raise SystemExit("mnist: AROW refused the pass at every r")
    chosen = min(arow, key=arow.get)
    return {"n": n, "seed": args.seed, "arow": arow, "chosen": chosen,
            "arow_rate": arow[chosen], "perceptron_rate": perceptron,
            "arow_below": arow[chosen] < perceptron,
            "r_below": sum(v < perceptron for v in arow.values()),
            "sol_arow": 1.0 - SOL_MNIST["AROW"], "sol_perceptron": 1.0 - SOL_MNIST["Perceptron"]}


def markdown(a1a, mnist):
    return "\n\n".join(([markdown_a1a(a1a)] if a1a is not None else []) +
                       ([markdown_mnist(mnist)] if mnist is not None else []))


def markdown_a1a(a1a):
    out = [f"a1a: {a1a['n']} rows, {a1a['shuffles']} shuffles (seed {a1a['seed']}), "
           f"tie={a1a['tie']!r}, parameters chosen on shuffle 0", "",
           "| learner | run with | grid | chosen | mistake rate, mean +- std | SOL's | "
           "(mean - SOL) / SOL's std | within 2 std |",
           "|---|---|---|---|---|---|---|---|"]
    for r in a1a["rows"]:
        grid = f"{r['grid_size']}" + (f" ({r['grid_failed']} refused)" if r["grid_failed"] else "")
        refused = f" ({r['failed']} of {a1a['shuffles']} passes refused)" if r["failed"] else ""
        out.append(f"| {r['learner']} | {r['implementation']} | {grid} | "
                   f"{r['chosen']} | {100 * r['mean']:.2f} +- {100 * r['std']:.2f} %{refused} | "
                   f"{100 * r['sol_mean']:.2f} +- {100 * r['sol_std']:.2f} % | "
                   f"{r['deviations']:+.2f} | {'yes' if r['within_2std'] else 'no'} |")
    cw = next(r for r in a1a["rows"] if r["learner"] == "CW")
    out += ["", f"CW against SOL's ECCW (the exact closed form, as ConfidenceWeighted): "
            f"{100 * cw['sol_eccw_mean']:.2f} +- {100 * cw['sol_eccw_std']:.2f} %, "
            f"(mean - ECCW) / std = {cw['eccw_deviations']:+.2f}"]
    refused = a1a["refused"]
    if refused:
        out += ["", f"Passes refused ({len(refused)}, each a grid value on a shuffle):"]
        out += [f"* {f}" for f in refused[:12]]
        if len(refused) > 12:
            out.append(f"* ... and {len(refused) - 12} more")
    return "\n".join(out)


def markdown_mnist(mnist):
    rates = ", ".join(f"{k} {100 * v:.2f} %" for k, v in mnist["arow"].items())
    return (f"mnist-t10k ({mnist['n']} rows, one shuffle, seed {mnist['seed']}): AROW "
            f"({mnist['chosen']}) {100 * mnist['arow_rate']:.2f} % against the Perceptron's "
            f"{100 * mnist['perceptron_rate']:.2f} % (SOL's mnist: "
            f"{100 * mnist['sol_arow']:.2f} % and {100 * mnist['sol_perceptron']:.2f} %); "
            f"AROW below: {'yes' if mnist['arow_below'] else 'no'} "
            f"({mnist['r_below']} of {len(mnist['arow'])} r values).\n\nAROW over r: {rates}")


def seeds_summary(runs):
    """Per learner, over several seeds of the whole protocol: in how many the mean was within
    two of SOL's standard deviations, the range of the means, and the parameters chosen."""
    out = [f"The protocol with seeds {runs[0]['seed']}..{runs[-1]['seed']} "
           f"({len(runs)} runs of {runs[0]['shuffles']} shuffles each):", "",
           "| learner | within 2 std | mean rate, lowest .. highest | (mean - SOL) / SOL's std, "
           "lowest .. highest | chosen (times) |", "|---|---|---|---|---|"]
    for i, r0 in enumerate(runs[0]["rows"]):
        rows = [run["rows"][i] for run in runs]
        means = [r["mean"] for r in rows]
        devs = [r["deviations"] for r in rows]
        chosen = {}
        for r in rows:
            chosen[r["chosen"]] = chosen.get(r["chosen"], 0) + 1
        picks = "; ".join(f"{k} ({v})" for k, v in sorted(chosen.items(), key=lambda kv: -kv[1]))
        out.append(f"| {r0['learner']} | {sum(r['within_2std'] for r in rows)} of {len(rows)} | "
                   f"{100 * min(means):.2f} .. {100 * max(means):.2f} % | "
                   f"{min(devs):+.2f} .. {max(devs):+.2f} | {picks} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="the datasets' directory (default: $MBCORE_DATA)")
    ap.add_argument("--shuffles", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=1,
                    help="run the whole protocol for seeds SEED .. SEED + N - 1 and add a "
                         "summary (the first seed's table is printed in full)")
    ap.add_argument("--tie", default="positive", choices=("positive", "negative"),
                    help="the prediction at a score of 0 (SOL's: positive)")
    ap.add_argument("--mnist", action="store_true", help="also the mnist-t10k claim")
    ap.add_argument("--no-a1a", action="store_true", help="only the mnist claim")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args(argv)
    print(f"mbcore {getattr(mbcore, '__version__', '?')} from "
          f"{os.path.dirname(mbcore.__file__)}; Python {platform.python_version()}, "
          f"NumPy {np.__version__}", file=sys.stderr)
    a1a = None if args.no_a1a else run_a1a(args, args.seed)
    runs = [a1a] + [run_a1a(args, args.seed + k, quiet=True) for k in range(1, args.seeds)] \
        if a1a is not None and args.seeds > 1 else None
    mnist = run_mnist(args) if args.mnist else None
    if a1a is not None or mnist is not None:
        print(markdown(a1a, mnist))
    if runs:
        print()
        print(seeds_summary(runs))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"a1a": a1a, "a1a_seeds": runs, "mnist": mnist, "refused": FAILURES},
                      fh, indent=1)
    ok = (a1a is None or all(r["within_2std"] for r in a1a["rows"])) and \
        (mnist is None or mnist["arow_below"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
