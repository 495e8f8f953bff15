"""The additive kernels of two builds, A/B in one process (issue 37's kernel split).

The compiled passes and scores of the floor and Passive-Aggressive benchmarks
(bench/test_bench_floor.py, bench/test_bench_pa.py), called on a bound state exactly as
mbcore.linear calls them, with the ``linear`` (and, where it exists, ``multiclass``) kernel
modules of two builds loaded by path into this process: every round runs every workload with
both builds, the order of the workloads rotated and the two builds alternated from round to
round, so that both see the same machine.  Per workload: min and median over the rounds, and
the ratio new / old (min / min, and the median of the per-round ratios).  Every round checks
that the two builds give the same weights, counters and scores, bit for bit.

    python bench/kernel_split_ab.py OLD_KERNELS_DIR NEW_KERNELS_DIR [--rounds 25] [--only TEXT]

OLD_KERNELS_DIR and NEW_KERNELS_DIR are built ``mbcore/_kernels`` directories (e.g. of a
worktree of ``main`` built in place, and of this branch).  Run it from the new tree (its
``mbcore`` is imported for the data and the shared ``names`` kernel).  Both APIs are
understood: before the split (``linear`` holds everything; Passive-Aggressive's C and 1/(2C)
in ``eta``/``lam``) and after it, with dense and CSR entry points or one per operation.

Workloads (the data of bench/conftest.py):

* dense 200,000 x 100 float64 (``make_dense(margin=0.05)``): the Perceptron's pass on a fresh
  state on one thread and on two (the default ``n_jobs``), and the scores of 200,000 rows;
* CSR 100,000 x 10,000, 50 non-zeros per row (``make_csr``): the Perceptron's pass, one thread;
* a9a (32,561 x 123, dense float64 and CSR): PA-I's (C = 1) pass, one thread and two;
* 20,000 rows of the dense data with 10 classes: the K-class Perceptron's pass, one thread.
"""

import argparse
import glob
import importlib.util
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))


def load(directory, name):
    """The kernel module ``name`` of the build in ``directory`` (None if it has none)."""
    paths = glob.glob(os.path.join(directory, f"{name}.cpython-*.so")) + \
        glob.glob(os.path.join(directory, f"{name}.*.pyd"))
    if not paths:
        return None
    spec = importlib.util.spec_from_file_location(name, paths[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Build:
    """One build's entry points, under the names of the calls mbcore.linear makes."""

    def __init__(self, directory):
        self.lin = load(directory, "linear")
        self.mc = load(directory, "multiclass") or self.lin
        self.new_params = "pa_lam" in (self.lin.LinearState.__init__.__doc__ or "") or \
            "pa_lam" in (self.lin.LinearState.__doc__ or "")

    def state(self, d, algo, eta=1.0, C=np.inf, pa_lam=0.0):
        w, u = np.zeros(d), np.zeros(0)
        aux, counts = np.array([1.0, 0.0]), np.zeros(3, dtype=np.int64)
        if self.new_params:
            st = self.lin.LinearState(w, u, aux, counts, d, algo, False, False, False, False,
                                      False, eta, 0.0, 0.0, C=C, pa_lam=pa_lam)
        elif algo == 3:
            st = self.lin.LinearState(w, u, aux, counts, d, algo, False, False, False, False,
                                      False, C, 0.0, pa_lam)
        else:
            st = self.lin.LinearState(w, u, aux, counts, d, algo, False, False, False, False,
                                      False, eta, 0.0, 0.0)
        return st, (w, aux, counts)

    def mc_state(self, d, K):
        W, U = np.zeros(d * K), np.zeros(0)
        aux, counts = np.concatenate([[1.0, 0.0], np.zeros(K)]), np.zeros(3, dtype=np.int64)
        st = self.mc.MultiState(W, U, aux, counts, d, K, 0, False, False, False, False, False,
                                1.0, 0.0, 0.0, False)
        return st, (W, aux, counts)

    # (the entry points: one per operation since issue 37's last step, X a 2-D array or the
    # CSR triple; before it, a dense and a CSR variant)
    def pass_dense(self, st, X, y, threads):
        if hasattr(self.lin, "lin_pass_dense64"):
            return self.lin.lin_pass_dense64(st, X, y, None, None, threads)
        return self.lin.lin_pass(st, X, y, None, None, False, threads)

    def pass_csr(self, st, X, y, threads):
        if hasattr(self.lin, "lin_pass_csr"):
            return self.lin.lin_pass_csr(st, X.data, X.indices, X.indptr, y, None, None, True,
                                         threads)
        return self.lin.lin_pass(st, (X.data, X.indices, X.indptr), y, None, None, True,
                                 threads)

    def scores_dense(self, w, X, out):
        fn = getattr(self.lin, "lin_scores_dense", None) or self.lin.lin_scores
        return fn(w, 1.0, X.shape[1], False, False, X, out)

    def mc_pass_dense(self, st, X, y):
        if hasattr(self.mc, "mc_pass_dense"):
            return self.mc.mc_pass_dense(st, X, y, None, None, 1)
        return self.mc.mc_pass(st, X, y, None, None, False, 1)


def workloads(dense, csr, a9a, a9a_csr, mc):
    """{name: (setup(build) -> state, run(build, state) -> result to compare)}."""
    Xd, yd = dense.X, dense.y.astype(np.int8)
    Xc, yc = csr.X, csr.y.astype(np.int8)
    Xa, ya = a9a.X, a9a.y.astype(np.int8)
    Xm, ym = mc
    w_fit = np.ascontiguousarray(dense.w)
    out = np.empty(Xd.shape[0])

    def lin_pass(X, y, algo, threads, kind, **kw):
        def setup(b):
            return b.state(X.shape[1], algo, **kw)

        def run(b, s):
            st, arrays = s
            res = (b.pass_dense if kind == "dense" else b.pass_csr)(st, X, y, threads)
            return res, arrays
        return setup, run

    def scores(b, _):
        b.scores_dense(w_fit, Xd, out)
        return out.copy()

    def mc_pass(b, s):
        st, arrays = s
        return b.mc_pass_dense(st, Xm, ym), arrays

    return {
        "dense Perceptron pass, 1 thread": lin_pass(Xd, yd, 0, 1, "dense"),
        "dense Perceptron pass, 2 threads": lin_pass(Xd, yd, 0, 2, "dense"),
        "dense scores (decision_function)": (lambda b: None, scores),
        "CSR Perceptron pass, 1 thread": lin_pass(Xc, yc, 0, 1, "csr"),
        "a9a PA-I pass, 1 thread": lin_pass(Xa, ya, 3, 1, "dense", C=1.0),
        "a9a PA-I pass, 2 threads": lin_pass(Xa, ya, 3, 2, "dense", C=1.0),
        "a9a CSR PA-I pass, 1 thread": lin_pass(a9a_csr, ya, 3, 1, "csr", C=1.0),
        "K=10 Perceptron pass, 1 thread": (lambda b: b.mc_state(Xm.shape[1], 10), mc_pass),
    }


def same(a, b):
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--only", default="", help="run the workloads whose name contains this")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    import conftest                                     # bench/conftest.py: the data
    from mbcore.datasets import load_a9a

    builds = {"old": Build(args.old), "new": Build(args.new)}
    dense = conftest.make_dense(margin=0.05)
    csr = conftest.make_csr()
    Xa, ya = load_a9a()
    a9a = type(dense)(X=np.ascontiguousarray(Xa, dtype=np.float64), y=np.asarray(ya))
    a9a_csr = sp.csr_matrix(a9a.X)
    a9a_csr.indices = a9a_csr.indices.astype(np.int32)
    rng = np.random.default_rng(5)
    Xm = dense.X[:20_000]
    ym = np.argmax(Xm @ rng.standard_normal((Xm.shape[1], 10)), axis=1).astype(np.int32)
    work = workloads(dense, csr, a9a, a9a_csr, (Xm, ym))
    names = [n for n in work if args.only in n]
    times = {(n, b): [] for n in names for b in builds}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        arms = ["old", "new"] if r % 2 == 0 else ["new", "old"]
        for n in order:
            setup, run = work[n]
            got = {}
            for arm in arms:
                s = setup(builds[arm])
                t = time.perf_counter()
                got[arm] = run(builds[arm], s)
                times[(n, arm)].append(time.perf_counter() - t)
            if not same(got["old"], got["new"]):
                raise SystemExit(f"round {r}, {n}: the two builds disagree")
    report(args, names, times)


def report(args, names, times):
    """Print the table: per workload, the min and median of each build and new / old."""
    print(f"{args.rounds} rounds; old = {args.old}, new = {args.new}")
    print(f"  {'workload':36s} {'old min':>9s} {'new min':>9s} {'old med':>9s} {'new med':>9s}"
          f"  new/old (min)  new/old (median of rounds)")
    for n in names:
        o, w = times[(n, "old")], times[(n, "new")]
        print(f"  {n:36s} {min(o) * 1e3:7.2f}ms {min(w) * 1e3:7.2f}ms "
              f"{statistics.median(o) * 1e3:7.2f}ms {statistics.median(w) * 1e3:7.2f}ms"
              f"  {min(w) / min(o):13.3f}  {statistics.median(b / a for a, b in zip(o, w)):10.3f}")


if __name__ == "__main__":
    main()
