"""The cost of the record of updates (``record_updates=True``) of the Winnow family and the
Weighted Majority pools: one online pass recorded against the same pass unrecorded.

* a9a: the bundled LIBSVM ``a9a`` (32,561 rows, 123 indicators, ``load_a9a``), as 0/1 uint8
  dense and as CSR;
* mnist: the bundled 1,000 MNIST test digits (``load_mnist(encoding="boolean")``), the ten
  classes (the K-class record: two entries per mistake);
* experts: the bundled mushrooms (8,124 rounds) with 224 experts ("edible iff indicator j is
  on", and "iff off"), the advice matrix of the WeightedMajority docstring; and a9a's 246
  likewise.

Each pass is ``partial_fit`` of the whole set on a new learner (built outside the timing), one
thread (``n_jobs=1`` where the learner has threads); ``--rounds`` rounds alternate recorded and
unrecorded, and the table gives the min and the median of each and their ratio (the target:
recorded <= 1.10 x unrecorded).

Usage::

    python bench/explain_mw_bench.py [--rounds 21]
"""

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

import mbcore
from mbcore.datasets import load_a9a, load_mnist, load_mushrooms


def datasets():
    Xa, ya = load_a9a(encoding="boolean")
    Xm, ym = load_mnist(encoding="boolean")
    Xs, ys = load_mushrooms(encoding="boolean")
    Ps = np.where(np.hstack([Xs, 1 - Xs]) == 1, 1, -1)
    Pa = np.where(np.hstack([Xa, 1 - Xa]) == 1, 1, -1)
    return {"a9a-dense": (Xa, ya), "a9a-csr": (sp.csr_matrix(Xa), ya), "mnist-10": (Xm, ym),
            "mushrooms-experts": (Ps, ys), "a9a-experts": (Pa, ya)}


CASES = [("a9a-dense", "Winnow"), ("a9a-csr", "Winnow"), ("a9a-dense", "BalancedWinnow"),
         ("a9a-csr", "WinnowStar"), ("mnist-10", "Winnow"), ("mnist-10", "BalancedWinnow"),
         ("mushrooms-experts", "WeightedMajority"), ("a9a-experts", "WeightedMajority"),
         ("a9a-experts", "RandomizedWeightedMajority")]


def one_pass(name, X, y, record):
    cls = getattr(mbcore, name)
    kw = {"n_jobs": 1} if "n_jobs" in cls().get_params() else {}
    clf = cls(record_updates=record, **kw)
    t = time.perf_counter()
    clf.partial_fit(X, y)
    return time.perf_counter() - t, clf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    data = datasets()
    print("| data | learner | rows | updates | record entries | unrecorded min / median (ms) "
          "| recorded min / median (ms) | ratio of the medians |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for dname, name in CASES:
        X, y = data[dname]
        off, on = [], []
        for _ in range(args.rounds):
            off.append(one_pass(name, X, y, False)[0])
            t, clf = one_pass(name, X, y, True)
            on.append(t)
        mo, mr = statistics.median(off), statistics.median(on)
        print(f"| {dname} | {name} | {X.shape[0]:,} | {clf.updates_:,} | "
              f"{clf.update_record_[0].size:,} | {1e3 * min(off):.2f} / {1e3 * mo:.2f} | "
              f"{1e3 * min(on):.2f} / {1e3 * mr:.2f} | {mr / mo:.3f} |")


if __name__ == "__main__":
    main()
