"""The VW text parser's kernel alone, two builds A/B in one process: the whole file in one
buffer, parsed into arrays allocated (and touched) once, the two kernels in alternation, each
round timed; min and median of the rounds in MB/s.  With ``--svmlight FILE`` the svmlight
kernel of this checkout also parses FILE (the same rows as svmlight text) in the same rounds.

    python bench/vw_parse_ab.py OLD_VW_SO NEW_VW_SO FILE.vw [--svmlight FILE.svm]
        [--rounds 21]
    python bench/vw_parse_ab.py OLD_VW_SO NEW_VW_SO --a9a DIR/a9a/a9a.gz [--rounds 21]

``--a9a`` writes the texts of ``bench/test_bench_vw.py`` (a9a x 4 as ``label |f idx ...`` and
as svmlight) in memory and parses those, the svmlight kernel included.

OLD_VW_SO and NEW_VW_SO are built ``mbcore/_kernels/vw*.so`` files (e.g. of ``main`` and of a
branch); both signatures of ``vw_parse`` are understood (before issue 27: int64 indices and no
scratch; after: int32 indices and the sorting scratch).  Every round's rows are checked equal
between the two kernels (columns, values, indptr).
"""

import argparse
import importlib.util
import statistics
import time

import numpy as np


def load(path):
    spec = importlib.util.spec_from_file_location("vw", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parser_of(module, buf, rows):
    """A function parsing ``buf`` with ``module.vw_parse``: (seconds, indices, data, indptr)."""
    n = buf.shape[0]
    labels, weights = np.zeros(rows), np.zeros(rows)
    indptr = np.zeros(rows + 1, dtype=np.int64)
    data = np.zeros(n)
    new = "keys" in (module.vw_parse.__doc__ or "")
    indices = np.zeros(n, dtype=np.int32 if new else np.int64)
    keys, vals = np.zeros(1 << 16, dtype=np.int64), np.zeros(1 << 16)

    def parse():
        st = np.zeros(13 if new else 12, dtype=np.int64)
        t = time.perf_counter()
        if new:
            status = module.vw_parse(buf, st, labels, weights, indptr, indices, data, keys,
                                     vals, rows, 18, 0, False)
        else:
            status = module.vw_parse(buf, st, labels, weights, indptr, indices, data, rows, 18,
                                     0, False)
        t = time.perf_counter() - t
        if status != 0:
            raise SystemExit(f"vw_parse returned {status}")
        m, nnz = int(st[2]), int(st[3])
        return t, indices[:nnz], data[:nnz], indptr[:m + 1]

    return parse


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("file", nargs="?")
    ap.add_argument("--svmlight")
    ap.add_argument("--a9a", help="a9a.gz: parse the texts of bench/test_bench_vw.py")
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    stext = None
    if args.a9a:
        from test_bench_vw import _a9a_rows        # (this script's folder is on sys.path)
        rows = _a9a_rows(args.a9a)
        text = "".join(f"{y} |f " + " ".join(map(str, idx)) + "\n" for y, idx in rows).encode()
        stext = "".join(f"{y} " + " ".join(f"{i}:1" for i in idx) + "\n"
                        for y, idx in rows).encode()
    elif args.file:
        text = open(args.file, "rb").read()
        if args.svmlight:
            stext = open(args.svmlight, "rb").read()
    else:
        ap.error("give FILE or --a9a")
    if not text.endswith(b"\n"):
        text += b"\n"
    buf = np.frombuffer(text, dtype=np.uint8)
    rows = text.count(b"\n") + 1
    runs = {"A (old)": parser_of(load(args.old), buf, rows),
            "B (new)": parser_of(load(args.new), buf, rows)}
    sizes = {k: len(text) for k in runs}
    if stext is not None:
        from mbcore._kernels.readers import svmlight_parse
        sbuf = np.frombuffer(stext, dtype=np.uint8)
        srows = stext.count(b"\n") + 1
        slabels, sindptr = np.zeros(srows), np.zeros(srows + 1, dtype=np.int64)
        sind, sdata = np.zeros(len(stext), dtype=np.int32), np.zeros(len(stext))

        def svm():
            st = np.zeros(16, dtype=np.int64)
            st[4], st[5] = np.iinfo(np.int64).max, -1
            t = time.perf_counter()
            svmlight_parse(sbuf, st, slabels, sindptr, sind, sdata, srows, 1, 1 << 30, False)
            return (time.perf_counter() - t,)

        runs["svmlight kernel (its text)"] = svm
        sizes["svmlight kernel (its text)"] = len(stext)
    a, b = runs["A (old)"](), runs["B (new)"]()
    for x, y in zip(a[1:], b[1:]):
        if not np.array_equal(x, y):
            raise SystemExit("the two kernels give different rows")
    times = {k: [] for k in runs}
    for _ in range(args.rounds):
        for k, run in runs.items():
            times[k].append(run()[0])
    for k, ts in times.items():
        lo, med = min(ts), statistics.median(ts)
        print(f"{k}: min {lo * 1e3:.2f} ms ({sizes[k] / lo / 1e6:.0f} MB/s), median "
              f"{med * 1e3:.2f} ms ({sizes[k] / med / 1e6:.0f} MB/s)")


if __name__ == "__main__":
    main()
