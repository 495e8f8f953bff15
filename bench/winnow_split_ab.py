"""The Winnow kernels of two builds, A/B in one process (issue 37's split of multiplicative.pyx).

``mbcore.Winnow`` / ``BalancedWinnow`` fitted through the Python layer of this tree, with the
compiled modules it calls (``mbcore.multiplicative``'s ``_k`` and ``_kmc``) swapped between two
builds loaded by path: before the split ``multiplicative`` holds the binary and the K-class
passes, after it ``multiplicative`` the binary ones and ``multiplicative_mc`` the K-class ones.
Every round runs every workload with both builds (the order of the workloads rotated, the two
builds alternated from round to round) and checks that they give the same state and
predictions, bit for bit.  Per workload: min and median over the rounds, and new / old (min /
min, and the median of the per-round ratios).

    python bench/winnow_split_ab.py OLD_KERNELS_DIR NEW_KERNELS_DIR [--rounds 21] [--only TEXT]

Workloads: the CSR data of bench/test_bench_winnow.py (100,000 x 10,000 Boolean, 50 active per
row; float64 and uint8 values), one pass of Winnow on one thread and on two; Balanced Winnow's
pass on its first 20,000 rows; and 20,000 of its rows with 10 classes (``multi_class`` the
argmax and "ovr"), dense float64 (the first 1,000 columns) and CSR.
"""

import argparse
import pickle
import sys
import time

import numpy as np
import scipy.sparse as sp

import mbcore
import mbcore.multiplicative as mm

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from kernel_split_ab import load, report, same  # noqa: E402  (bench/ is not a package)


class OldEntryPoints:
    """A build from before issue 37's last step (a dense and a CSR entry point per pass) under
    the entry points this tree's Python layer calls (one per pass, X a 2-D array or the CSR
    triple), with the Python work the old layer did (max_row from indptr)."""

    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        return getattr(self.module, name)

    @staticmethod
    def _max_row(indptr):
        return int(np.diff(indptr).max()) if indptr.shape[0] > 1 else 0

    def winnow_pass(self, *args, scores=None, threads=1, check=True, check_values=True,
                    ones=False):
        head, (X, n_cols, boolean, limit, y, pred, counts, update) = args[:9], args[9:17]
        if len(args) > 17:
            scores = args[17]
        if not isinstance(X, tuple):
            code, row = self.module.winnow_dense(*head, X, boolean, limit, y, pred, counts,
                                                 update, scores, threads=threads,
                                                 check_values=check_values)
            return code, row, False
        return self.module.winnow_csr(*head, *X, self._max_row(X[2]), n_cols, boolean, limit, y,
                                      pred, counts, update, scores, threads=threads,
                                      check=check, check_values=check_values, ones=ones)

    def mc_winnow_pass(self, *args, scores=None, threads=1, check=True, check_values=True):
        head, (X, n_cols, boolean, limit, y, pred, upd, counts, update) = args[:11], args[11:20]
        if len(args) > 20:
            scores = args[20]
        if not isinstance(X, tuple):
            return self.module.mc_winnow_dense(*head, X, boolean, limit, y, pred, upd, counts,
                                               update, scores, threads=threads,
                                               check_values=check_values)
        return self.module.mc_winnow_csr(*head, *X, self._max_row(X[2]), n_cols, boolean, limit,
                                         y, pred, upd, counts, update, scores, threads=threads,
                                         check=check, check_values=check_values)


class Build:
    def __init__(self, directory):
        self.k = load(directory, "multiplicative")
        self.kmc = load(directory, "multiplicative_mc") or self.k
        if not hasattr(self.k, "winnow_pass"):
            self.k, self.kmc = OldEntryPoints(self.k), OldEntryPoints(self.kmc)

    def use(self):
        mm._k, mm._kmc = self.k, self.kmc


def data():
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import test_bench_winnow as tb
    rng = np.random.default_rng(tb.SEED)
    N, D, K = tb.N, tb.D, tb.K
    cols = (np.arange(K) * (D // K) + rng.integers(0, D // K, size=(N, K))).astype(np.int32)
    indptr = np.arange(0, N * K + 1, K, dtype=np.int32)
    X = sp.csr_matrix((np.ones(N * K), cols.ravel(), indptr), shape=(N, D))
    X8 = sp.csr_matrix((np.ones(N * K, dtype=np.uint8), cols.ravel(), indptr), shape=(N, D))
    rel = rng.choice(D, tb.RELEVANT, replace=False)
    y = (np.asarray(X[:, rel].sum(axis=1)).ravel() > 0).astype(np.int64)
    Xm = X[:20_000]
    ym = np.asarray(Xm[:, :2000].sum(axis=1)).ravel().astype(np.int64) % 10
    Xmd = np.ascontiguousarray(Xm[:, :1000].toarray())
    return X, X8, y, Xm, ym, Xmd


def workloads(X, X8, y, Xm, ym, Xmd):
    def fit(make, X, y, classes):
        def run():
            est = make()
            est.partial_fit(X, y, classes=classes)
            return est.__getstate__(), est.predict(X[:2000])
        return run

    two = [0, 1]
    ten = list(range(10))
    return {
        "CSR f64 Winnow pass, 1 thread": fit(lambda: mbcore.Winnow(n_jobs=1), X, y, two),
        "CSR f64 Winnow pass, 2 threads": fit(lambda: mbcore.Winnow(n_jobs=2), X, y, two),
        "CSR u8 Winnow pass, 1 thread": fit(lambda: mbcore.Winnow(n_jobs=1), X8, y, two),
        "CSR Balanced pass, 20k rows": fit(lambda: mbcore.BalancedWinnow(n_jobs=1), Xm, y[:20_000],
                                           two),
        "CSR K=10 argmax pass, 1 thread": fit(lambda: mbcore.Winnow(n_jobs=1), Xm, ym, ten),
        "CSR K=10 ovr pass, 1 thread": fit(lambda: mbcore.Winnow(multi_class="ovr", n_jobs=1),
                                           Xm, ym, ten),
        "dense K=10 argmax pass, 1 thread": fit(lambda: mbcore.Winnow(n_jobs=1), Xmd, ym, ten),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    builds = {"old": Build(args.old), "new": Build(args.new)}
    saved = (mm._k, mm._kmc)
    work = workloads(*data())
    names = [n for n in work if args.only in n]
    times = {(n, b): [] for n in names for b in builds}
    try:
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            arms = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for n in order:
                got = {}
                for arm in arms:
                    builds[arm].use()
                    t = time.perf_counter()
                    got[arm] = work[n]()
                    times[(n, arm)].append(time.perf_counter() - t)
                if not same(got["old"][1], got["new"][1]) or \
                        pickle.dumps(got["old"][0]) != pickle.dumps(got["new"][0]):
                    raise SystemExit(f"round {r}, {n}: the two builds disagree")
    finally:
        mm._k, mm._kmc = saved
    report(args, names, times)


if __name__ == "__main__":
    main()
