"""The second-order kernel of two builds, A/B in one process (issue 38's speed target).

The compiled binary pass ``so_pass`` of the seven second-order rules, called exactly as
mbcore.second_order calls it (fresh state, the classes' default parameters, no intercept),
with the ``second_order`` kernel modules of two builds loaded by path into this process, and
the Perceptron's compiled pass (one thread, ``lin_pass`` of the tree this runs from) as the
reference of the target (the diagonal pass <= 2x the Perceptron's).  Every round runs every
workload with both builds and the Perceptron, the builds alternated from round to round;
every round checks that the two builds give the same weights, covariance and counts, bit for
bit.  Per workload: min and median of each, the ratio new / old and each build / Perceptron
(min / min, and the median of the per-round ratios).

    MBCORE_DATA=DIR python bench/so_ab.py OLD_KERNELS_DIR NEW_KERNELS_DIR [--rounds 15] [--only TEXT]

Workloads: a9a dense float64, a9a CSR, w8a CSR (the targets' data).
"""

import argparse
import glob
import importlib.util
import os
import statistics
import time

import numpy as np
import scipy.sparse as sp

import mbcore
from mbcore._kernels import linear as _klin


def load(directory, name):
    paths = glob.glob(os.path.join(directory, f"{name}.cpython-*.so"))
    spec = importlib.util.spec_from_file_location(name, paths[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LEARNERS = [mbcore.AROW(), mbcore.ConfidenceWeighted(), mbcore.SCW(variant="SCW-I"),
            mbcore.SCW(variant="SCW-II"), mbcore.NHERD(), mbcore.NAROW(),
            mbcore.SecondOrderPerceptron()]


def data():
    from mbcore.datasets import load_a9a
    from mbcore.datasets.formats import load_svmlight
    root = os.environ.get("MBCORE_DATA")
    sets = [("a9a dense", load_a9a, True), ("a9a CSR", load_a9a, False)]
    if root and os.path.exists(os.path.join(root, "w8a", "w8a.gz")):
        sets.append(("w8a CSR", lambda: load_svmlight(os.path.join(root, "w8a", "w8a.gz"),
                                                      n_features=300), False))
    out = []
    for name, loader, dense in sets:
        X, y = loader()[:2]
        yy = np.where(y == np.max(y), 1, -1).astype(np.int8)
        X = sp.csr_matrix(X, dtype=np.float64)
        arrays = (np.ascontiguousarray(X.toarray()) if dense
                  else (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)))
        out.append((name, arrays, yy, X.shape[1], X, y))
    return out


def so_run(mod, L, arrays, yy, d):
    rule, p0, p1 = L._rule()
    w = np.zeros(d)
    S = np.full(d, L._cov0())
    V = np.zeros(d) if L._DUAL else None
    cnt = np.zeros(3, dtype=np.int64)
    t = time.perf_counter()
    st = mod.so_pass(rule, False, False, False, p0, p1, L._floor(), w, S, d, cnt, arrays, yy,
                     None, None, None, False, None, V)
    t = time.perf_counter() - t
    assert st[0] == 0, (type(L).__name__, st)
    return t, (w, S, cnt)


def perceptron_run(X, y, arrays, yy):
    p = mbcore.Perceptron(n_jobs=1).partial_fit(X[:2], y[:2], classes=np.unique(y))
    p._w[:] = 0
    st = p._state()
    t = time.perf_counter()
    _klin.lin_pass(st, arrays, yy, None, None, True, 1)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    old, new = load(a.old, "second_order"), load(a.new, "second_order")
    rows = []
    for name, arrays, yy, d, X, y in data():
        for L in LEARNERS:
            label = f"{name} {type(L).__name__}{'-' + L.variant if hasattr(L, 'variant') else ''}"
            if a.only and a.only not in label:
                continue
            to, tn, tp = [], [], []
            for r in range(a.rounds):
                order = (old, new) if r % 2 == 0 else (new, old)
                res = {}
                for mod in order:
                    t, state = so_run(mod, L, arrays, yy, d)
                    (to if mod is old else tn).append(t)
                    res[mod is old] = state
                for u, v in zip(res[True], res[False]):
                    assert np.array_equal(u.view(np.uint8), v.view(np.uint8)), label
                tp.append(perceptron_run(X, y, arrays, yy))
            rows.append((label, min(to), min(tn), min(tp),
                         statistics.median(n / o for n, o in zip(tn, to)),
                         statistics.median(o / p for o, p in zip(to, tp)),
                         statistics.median(n / p for n, p in zip(tn, tp))))
    print("| workload | old ms | new ms | Perceptron ms | new/old (min; median) "
          "| old/Perceptron (min; median) | new/Perceptron (min; median) |")
    print("|---|---|---|---|---|---|---|")
    for label, o, n, p, rno, rop, rnp in rows:
        print(f"| {label} | {o*1e3:.2f} | {n*1e3:.2f} | {p*1e3:.2f} | {n/o:.3f}; {rno:.3f} "
              f"| {o/p:.2f}; {rop:.2f} | {n/p:.2f}; {rnp:.2f} |")


if __name__ == "__main__":
    main()
