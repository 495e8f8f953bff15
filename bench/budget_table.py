"""The budget kernel Perceptrons at B = 100 and 500 (issue 39's memory target), beside the
kernel Perceptron without a budget, in the protocol of the BSGD paper's Table 3 (Wang, Crammer
& Vucetic: one pass over the training rows in a shuffled order, accuracy on the test rows,
mean and spread over 5 shuffles, the RBF kernel).

Data:

* a9a: the LIBSVM files ``$MBCORE_DATA/a9a/a9a.gz`` (32,561 training rows, 123 indicators) and
  ``a9a.t.gz`` (16,281 test rows), the BSGD table's "Adult" (its 21K-row a8a-like split);
* mnist-t10k: the 10,000 test images of ``$MBCORE_DATA/mnist-t10k`` (pixels / 255), the first
  8,000 to learn from and the last 2,000 to test on, ten classes (one-vs-rest).

Kernel: RBF, gamma = 1 / d for a9a (1/123, the learners' default) and 0.02 for mnist (the
usual width for pixels in [0, 1]).  Learners (their defaults but the budget): ``Stoptron``,
``RandomizedBudgetPerceptron``, ``Forgetron``, ``Projectron(eta=...)`` and ``ProjectronPP``
(budget=B, eta=0.1), ``BPA_S(C=1)``, and ``KernelPerceptron()`` without a budget.

For each run: the test accuracy after one pass, the online mistake rate of the pass, the
support vectors kept, the pass's time; then, on the first shuffle, the time per row over
successive chunks of 2,000 rows once the budget is full (flat in n: the last chunk's time over
the first's), and the time of B kernel evaluations of the same rows (the scores of a
``KernelPerceptron`` holding B support vectors, one compiled call): the target is a budget
learner's time per row within 1.5x of it.

    MBCORE_DATA=DIR python bench/budget_table.py [--data a9a mnist] [--budgets 100 500]
                                                 [--shuffles 5]
"""

import argparse
import gzip
import os
import statistics
import sys
import time

import numpy as np

import mbcore

LEARNERS = ("Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
            "BPA_S")
CHUNK = 2000


def load(name):
    root = os.environ.get("MBCORE_DATA", "")
    if name == "a9a":
        from mbcore.datasets.formats import load_svmlight
        tr, te = (os.path.join(root, "a9a", f) for f in ("a9a.gz", "a9a.t.gz"))
        if not (os.path.exists(tr) and os.path.exists(te)):
            return None
        X, y = load_svmlight(tr, n_features=123)[:2]
        Xt, yt = load_svmlight(te, n_features=123)[:2]
        dense = (lambda A: np.ascontiguousarray(A.toarray()) if hasattr(A, "toarray")
                 else np.ascontiguousarray(A))
        return dense(X), np.asarray(y), dense(Xt), np.asarray(yt), 1.0 / 123
    d = os.path.join(root, "mnist-t10k")
    if not os.path.isdir(d):
        return None
    with gzip.open(os.path.join(d, "t10k-images-idx3-ubyte.gz")) as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784) / 255.0
    with gzip.open(os.path.join(d, "t10k-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    X = np.ascontiguousarray(X)
    return X[:8000], y[:8000], X[8000:], y[8000:], 0.02


def make(name, B, gamma):
    cls = getattr(mbcore, name)
    kw = {"kernel": "rbf", "gamma": gamma}
    if name == "KernelPerceptron":
        return cls(**kw)
    if name in ("Projectron", "ProjectronPP"):
        kw["eta"] = 0.1
    return cls(budget=B, **kw)


def one_pass(L, X, y, classes):
    t = time.perf_counter()
    run = mbcore.run_online(L, X, y, classes=classes)
    return run, time.perf_counter() - t


def chunk_times(L, X, y, classes, B):
    """Seconds per row of each chunk of CHUNK rows, from the first chunk that starts with
    the budget full."""
    out = []
    for lo in range(0, len(y), CHUNK):
        full = _n_support(L) >= B if lo else False
        t = time.perf_counter()
        L.partial_fit(X[lo:lo + CHUNK], y[lo:lo + CHUNK], classes=classes)
        dt = (time.perf_counter() - t) / len(y[lo:lo + CHUNK])
        if full and len(y[lo:lo + CHUNK]) == CHUNK:
            out.append(dt)
    return out


def _n_support(L):
    n = L.n_support_
    return min(n) if isinstance(n, list) else n


def kernel_evals_per_row(X, y, classes, B, gamma):
    """Seconds per row of B kernel evaluations of each row (times the binary learners kept:
    one, or K one-vs-rest): the scores of a KernelPerceptron holding B support vectors."""
    K = len(classes)
    kp = mbcore.KernelPerceptron(kernel="rbf", gamma=gamma, budget=B,
                                 multi_class="ovr" if K > 2 else "multiclass")
    for lo in range(0, len(y), 500):                     # fill the budget
        kp.partial_fit(X[lo:lo + 500], y[lo:lo + 500], classes=classes)
        if _n_support(kp) >= B:
            break
    rows = X[:CHUNK]
    best = np.inf
    for _ in range(3):
        t = time.perf_counter()
        kp.decision_function(rows)
        best = min(best, time.perf_counter() - t)
    return best / len(rows), _n_support(kp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="*", default=["a9a", "mnist"])
    ap.add_argument("--budgets", nargs="*", type=int, default=[100, 500])
    ap.add_argument("--shuffles", type=int, default=5)
    a = ap.parse_args()
    for name in a.data:
        got = load(name)
        if got is None:
            print(f"{name}: not found (set MBCORE_DATA)", file=sys.stderr)
            continue
        X, y, Xt, yt, gamma = got
        classes = np.unique(y)
        print(f"\n### {name}: {len(y):,} rows to learn from, {len(yt):,} to test, "
              f"{X.shape[1]} features, {len(classes)} classes; RBF gamma = {gamma:g}\n")
        print("| learner | B | test accuracy, % (mean ± sd) | online mistakes, % | support "
              "vectors | one pass, s |")
        print("|---|---|---|---|---|---|")
        orders = [np.random.default_rng(s).permutation(len(y)) for s in range(a.shuffles)]
        for B in [None] + list(a.budgets):
            for lname in (("KernelPerceptron",) if B is None else LEARNERS):
                acc, mis, nsv, secs = [], [], [], []
                for order in orders:
                    L = make(lname, B, gamma)
                    run, dt = one_pass(L, X[order], y[order], classes)
                    acc.append(100 * L.score(Xt, yt))
                    mis.append(100 * run.mistakes / len(y))
                    n = L.n_support_
                    nsv.append(sum(n) if isinstance(n, list) else n)
                    secs.append(dt)
                sd = statistics.stdev(acc) if len(acc) > 1 else 0.0
                print(f"| {lname} | {B if B else '-'} | {statistics.mean(acc):.2f} ± {sd:.2f} | "
                      f"{statistics.mean(mis):.2f} | {statistics.mean(nsv):,.0f} | "
                      f"{statistics.mean(secs):.2f} |", flush=True)
        print("\nTime per row once the budget is full (first shuffle; chunks of "
              f"{CHUNK:,} rows), beside B kernel evaluations of the same rows:\n")
        print("| learner | B | per row, first full chunk, µs | last chunk, µs | last / first | "
              "B kernel evaluations, µs | per row / B evaluations |")
        print("|---|---|---|---|---|---|---|")
        order = orders[0]
        for B in a.budgets:
            ev, held = kernel_evals_per_row(X[order], y[order], classes, B, gamma)
            for lname in LEARNERS:
                ts = chunk_times(make(lname, B, gamma), X[order], y[order], classes, B)
                if not ts:
                    print(f"| {lname} | {B} | (the budget is never full) | | | | |")
                    continue
                per = statistics.mean(ts)
                print(f"| {lname} | {B} | {1e6 * ts[0]:.1f} | {1e6 * ts[-1]:.1f} | "
                      f"{ts[-1] / ts[0]:.2f} | {1e6 * ev:.1f} (held {held}) | "
                      f"{per / ev:.2f} |", flush=True)


if __name__ == "__main__":
    main()
