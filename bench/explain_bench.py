"""The cost of the record of updates (``record_updates=True``, mbcore.explain's example parts):
one online pass recorded against the same pass unrecorded, per learner and dataset.

* a9a: the LIBSVM file ``$MBCORE_DATA/a9a/a9a.gz`` (32,561 rows, 123 indicators), as CSR
  float64 (as read) and as dense float64;
* mnist-t10k: the 10,000 test images of ``$MBCORE_DATA/mnist-t10k`` (pixels / 255), dense
  float64; two classes (digit 0 against the rest) for the binary learners, the ten digits for
  the K-class forms.

Learners: the Perceptron, Passive-Aggressive (PA-I), the multi-class (Kesler) Perceptron on
mnist, one-vs-rest Passive-Aggressive on mnist.  Each pass is ``partial_fit`` of the whole set
on a new learner (built outside the timing), one thread (``n_jobs=1``); ``--rounds`` rounds
alternate recorded and unrecorded, and the table gives the min and the median of each, their
ratios, and the median of the ratios of the pairs (a recorded pass over the unrecorded pass
just before it: the statistic least moved by a busy machine).  The target: recorded <= 1.10 x
unrecorded.

Usage::

    MBCORE_DATA=DIR python bench/explain_bench.py [--rounds 15]
"""

import argparse
import gzip
import os
import statistics
import time

import numpy as np
import scipy.sparse as sp

import mbcore


def load(name):
    root = os.environ.get("MBCORE_DATA", "")
    if name.startswith("a9a"):
        from mbcore.datasets.formats import load_svmlight
        path = os.path.join(root, "a9a", "a9a.gz")
        if not os.path.exists(path):
            return None
        X, y = load_svmlight(path, n_features=123)[:2]
        dense = np.ascontiguousarray(X.toarray() if hasattr(X, "toarray") else X)
        return (dense if name == "a9a-dense" else sp.csr_matrix(dense)), np.asarray(y)
    d = os.path.join(root, "mnist-t10k")
    if not os.path.isdir(d):
        return None
    with gzip.open(os.path.join(d, "t10k-images-idx3-ubyte.gz")) as f:
        X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784) / 255.0
    with gzip.open(os.path.join(d, "t10k-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    X = np.ascontiguousarray(X)
    if name == "mnist-2":
        y = np.where(y == 0, 1, -1)
    return X, y


CASES = [
    ("a9a", "Perceptron", {}),
    ("a9a", "PassiveAggressive", {}),
    ("a9a-dense", "Perceptron", {}),
    ("a9a-dense", "PassiveAggressive", {}),
    ("mnist-2", "Perceptron", {}),
    ("mnist-2", "PassiveAggressive", {}),
    ("mnist-10", "Perceptron", {"multi_class": "multiclass"}),
    ("mnist-10", "PassiveAggressive", {"multi_class": "ovr"}),
]


def one_pass(name, kw, X, y, record):
    clf = getattr(mbcore, name)(n_jobs=1, record_updates=record, **kw)
    t = time.perf_counter()
    clf.partial_fit(X, y)
    return time.perf_counter() - t, clf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    data = {}
    print("| data | learner | rows | updates | unrecorded min / median (ms) | "
          "recorded min / median (ms) | ratio min / median | paired ratio median |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for dname, name, kw in CASES:
        if dname not in data:
            data[dname] = load(dname)
        if data[dname] is None:
            print(f"| {dname} | (no data under $MBCORE_DATA) |")
            continue
        X, y = data[dname]
        one_pass(name, kw, X, y, False)             # warm-up (caches, the kernel's pages)
        one_pass(name, kw, X, y, True)
        plain, rec = [], []
        for _ in range(args.rounds):
            plain.append(one_pass(name, kw, X, y, False)[0])
            t, clf = one_pass(name, kw, X, y, True)
            rec.append(t)
        n_rec = clf._rec_idx.shape[0]
        label = name + ("" if not kw else f" ({kw['multi_class']})")
        p_min, p_med = min(plain), statistics.median(plain)
        r_min, r_med = min(rec), statistics.median(rec)
        print(f"| {dname} | {label} | {X.shape[0]} | {clf.updates_} ({n_rec} entries) | "
              f"{p_min * 1e3:.1f} / {p_med * 1e3:.1f} | {r_min * 1e3:.1f} / {r_med * 1e3:.1f} | "
              f"{r_min / p_min:.3f} / {r_med / p_med:.3f} | "
              f"{statistics.median(r / p for r, p in zip(rec, plain)):.3f} |")


if __name__ == "__main__":
    main()
