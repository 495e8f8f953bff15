"""Labels against mistakes: the selective-sampling Perceptron over a grid of b, beside the
fully supervised Perceptron and Vowpal Wabbit's own active learning (issue 39's target).

For each dataset, one pass in the file's order (the online protocol):

* ``mbcore.SelectiveSampler(Perceptron(), b=b, random_state=s)`` for each b of the grid and
  seeds s = 0..4: the labels asked and the mistakes on every row (asked or not), as rates,
  mean and spread over the seeds;
* ``mbcore.Perceptron()``: every label, its online mistake rate;
* Vowpal Wabbit (``vowpalwabbit``, optional): ``--active --simulation --mellowness m --binary``
  for each m of its grid, the same rows in the same order, each row predicted before it is
  learned from; its labels asked are the "total queries" it reports.

``--bbq``: BBQ instead (``SelectiveSampler(query="bbq", kappa=k)``, Cesa-Bianchi, Gentile &
Orabona 2009) around ``SecondOrderPerceptron(covariance="full", update="every")`` (the
regularized least squares classifier; one-vs-rest on mnist) for each kappa of its grid,
deterministic (no seeds), beside that learner given every label.

The target: at some b, at most half the labels and an online mistake rate within 1 point of
the Perceptron's.

    MBCORE_DATA=DIR python bench/selective_curve.py [--data a9a w8a] [--seeds 5]

a9a is the bundled one (``mbcore.datasets.load_a9a``); w8a is read from
``$MBCORE_DATA/w8a/w8a.gz``; ``mnist-ovr`` and ``mnist-multiclass`` are the 10,000 test images
of ``$MBCORE_DATA/mnist-t10k`` (pixels / 255, dense) with ``Perceptron(multi_class=...)`` and
the K-class coin (the gap between the two highest scores), b over a wider grid; Vowpal
Wabbit's active learning is binary and is not run there.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

import mbcore

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402  (bench/ is not a package: its shared loaders)

B_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
B_GRID_K = (0.3, 1.0, 3.0, 10.0, 30.0, 50.0, 100.0, 200.0)
M_GRID = (0.001, 0.01, 0.1, 1.0)
KAPPA_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def bbq(name, X, y, grid=KAPPA_GRID):
    """BBQ's curve over kappa beside its learner given every label."""
    n = X.shape[0]

    def make():
        return mbcore.SecondOrderPerceptron(covariance="full", update="every")
    t = time.perf_counter()
    full = mbcore.run_online(make(), X, y).mistakes / n
    t = time.perf_counter() - t
    print(f"\n### {name} ({n:,} rows, {X.shape[1]} features), BBQ around "
          f"SecondOrderPerceptron(covariance='full', update='every'): every label: "
          f"{100 * full:.2f} % mistakes ({t:.1f} s)\n")
    print("| kappa | labels asked, % | mistakes, % | within 1 point, at most half the labels "
          "| one run |")
    print("|---|---|---|---|---|")
    for k in grid:
        t = time.perf_counter()
        r = mbcore.SelectiveSampler(make(), query="bbq", kappa=k).run_online(X, y)
        t = time.perf_counter() - t
        asked, mist = r.labels_asked / n, r.mistakes / n
        ok = asked <= 0.5 and mist <= full + 0.01
        print(f"| {k:g} | {100 * asked:.1f} | {100 * mist:.2f} | "
              f"{'**yes**' if ok else 'no'} | {t:.1f} s |")


def load(name):
    if name.startswith("mnist"):
        return _data.mnist_t10k()
    if name == "a9a":
        from mbcore.datasets import load_a9a
        X, y = load_a9a()[:2]
    else:
        from mbcore.datasets.formats import load_svmlight
        path = os.path.join(os.environ.get("MBCORE_DATA", ""), name, f"{name}.gz")
        if not os.path.exists(path):
            return None
        X, y = load_svmlight(path, n_features=300 if name == "w8a" else None)[:2]
    return sp.csr_matrix(X, dtype=np.float64), np.asarray(y)


def vw_run(X, y, m):
    from vowpalwabbit import pyvw
    yy = np.where(y == np.max(y), 1, -1)
    fd = os.dup(2)
    tmp = tempfile.TemporaryFile(mode="w+b")
    os.dup2(tmp.fileno(), 2)          # (VW writes its summary, the queries, to stderr)
    try:
        ws = pyvw.Workspace(f"--active --simulation --mellowness {m} --binary "
                            "--random_seed 0")
        mistakes = 0
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            ex = ws.parse(f"{yy[i]} | " + " ".join(
                f"f{j}:{v:.17g}" for j, v in zip(X.indices[a:b], X.data[a:b])))
            mistakes += (1 if ws.predict(ex) > 0 else -1) != yy[i]
            ws.learn(ex)
            ws.finish_example(ex)
        ws.finish()
    finally:
        os.dup2(fd, 2)
        os.close(fd)
    tmp.seek(0)
    queries = [int(line.split("=")[1]) for line in tmp.read().decode().splitlines()
               if "total queries" in line]
    return mistakes, queries[0] if queries else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="*", default=["a9a", "w8a"])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--no-vw", action="store_true")
    ap.add_argument("--bbq", action="store_true", help="BBQ's curve over kappa instead")
    ap.add_argument("--kappa", nargs="*", type=float, default=list(KAPPA_GRID),
                    help="BBQ's grid of kappa")
    ap.add_argument("--learner", default="Perceptron",
                    help="the learner sampled (Perceptron, SecondOrderPerceptron, AROW, ...), "
                         "its defaults; on mnist-ovr with multi_class='ovr' where it has one")
    a = ap.parse_args()
    for name in a.data:
        got = load(name)
        if got is None:
            print(f"{name}: not found (set MBCORE_DATA)", file=sys.stderr)
            continue
        X, y = got
        n = X.shape[0]
        if a.bbq:
            bbq(name, X, y, a.kappa)
            continue
        mc = name.split("-")[1] if name.startswith("mnist") else None

        def make():
            cls = getattr(mbcore, a.learner)
            if mc and "multi_class" in cls().get_params():
                return cls(multi_class=mc)
            return cls()
        full = mbcore.run_online(make(), X, y).mistakes / n
        who = a.learner
        print(f"\n### {name} ({n:,} rows, {X.shape[1]} features), {who}: every label: "
              f"{100 * full:.2f} % mistakes\n")
        print("| b | labels asked, % (mean over seeds) | mistakes, % (mean; min-max) | "
              "within 1 point, at most half the labels |")
        print("|---|---|---|---|")
        for b in (B_GRID_K if mc else B_GRID):
            asked, mist = [], []
            t = time.perf_counter()
            for s in range(a.seeds):
                r = mbcore.SelectiveSampler(make(), b=b, random_state=s).run_online(X, y)
                asked.append(r.labels_asked / n)
                mist.append(r.mistakes / n)
            t = (time.perf_counter() - t) / a.seeds
            ok = statistics.mean(asked) <= 0.5 and statistics.mean(mist) <= full + 0.01
            print(f"| {b:g} | {100 * statistics.mean(asked):.1f} | "
                  f"{100 * statistics.mean(mist):.2f}; {100 * min(mist):.2f}-{100 * max(mist):.2f}"
                  f" | {'**yes**' if ok else 'no'} |")
        print(f"\n(one run of the sampler: {1e3 * t:.1f} ms)")
        if a.no_vw or mc:
            continue
        try:
            import vowpalwabbit  # noqa: F401
        except ImportError:
            print("\n(Vowpal Wabbit not installed: pip install vowpalwabbit)")
            continue
        print("\nVowpal Wabbit `--active --simulation --binary`, the same rows and order:\n")
        print("| mellowness | labels asked, % | mistakes, % |")
        print("|---|---|---|")
        for m in M_GRID:
            mistakes, queries = vw_run(X, y, m)
            print(f"| {m:g} | {100 * queries / n:.1f} | {100 * mistakes / n:.2f} |")


if __name__ == "__main__":
    main()
