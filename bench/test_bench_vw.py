"""Vowpal Wabbit against mbcore, from the file, on the same rows: a9a-shaped data (the real a9a
when the environment variable MBCORE_DATA names the datasets' directory; generated otherwise),
written as VW text and as svmlight text.  iter_vw's throughput; and, when the ``vowpalwabbit``
package is installed, VW reading and learning its own format (``-d FILE --loss_function hinge``,
through pyvw) against mbcore reading and learning (one Perceptron pass) its own format
(``train_file`` on the svmlight text, the workflow's default reader) and VW's (``train_file``
on the VW text).  MB/s and examples/s are in extra_info and printed; all from one run."""

import gzip
import time

import numpy as np
import pytest

from mbcore import Perceptron
from mbcore.streaming import iter_vw, train_file

COPIES = 4


def _a9a_rows(real):
    """(label, [index, ...]) of a9a (every value is 1), or of generated rows of its shape."""
    rows = []
    if real is not None:
        for raw in gzip.open(real).read().decode().splitlines():
            tok = raw.split()
            if tok:
                rows.append((int(float(tok[0])), [int(t.split(":")[0]) for t in tok[1:]]))
    else:
        rng = np.random.default_rng(0)
        for _ in range(32561):
            rows.append((1 if rng.random() < 0.24 else -1,
                         (np.sort(rng.choice(123, 14, replace=False)) + 1).tolist()))
    return rows * COPIES


@pytest.fixture(scope="module")
def vw_file(tmp_path_factory, shared_data):
    rows = _a9a_rows(shared_data("a9a", "a9a.gz"))
    where = tmp_path_factory.mktemp("vw")
    vw = "".join(f"{y} |f " + " ".join(map(str, idx)) + "\n" for y, idx in rows).encode()
    svm = "".join(f"{y} " + " ".join(f"{i}:1" for i in idx) + "\n" for y, idx in rows).encode()
    (where / "a9a.vw").write_bytes(vw)
    (where / "a9a.svm").write_bytes(svm)
    return str(where / "a9a.vw"), len(vw), len(rows), str(where / "a9a.svm")


def _drain(chunks):
    return sum(len(y) for _, y in chunks)


def test_vw_read_throughput(benchmark, vw_file):
    path, size, rows, _ = vw_file
    benchmark.pedantic(lambda: _drain(iter_vw(path, chunk_size=10_000)), rounds=3,
                       iterations=1)
    t = benchmark.stats.stats.min
    benchmark.extra_info["MB/s"] = round(size / t / 1e6)
    benchmark.extra_info["examples/s"] = round(rows / t)
    print(f"\niter_vw: {size / t / 1e6:.0f} MB/s, {rows / t:,.0f} examples/s ({rows} rows, "
          f"{size / 1e6:.1f} MB)")


def _best(fn, n=5):
    best, out = float("inf"), None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def test_vw_against_vowpal_wabbit(benchmark, vw_file):
    pyvw = pytest.importorskip("vowpalwabbit.pyvw")
    path, size, rows, svm = vw_file

    def vw_pass():
        ws = pyvw.Workspace(f"-d {path} --loss_function hinge -b 18 --quiet")
        ws.finish()

    def mbcore_svm():
        return train_file(Perceptron(), svm, n_features=123, zero_based=False)

    def mbcore_vw():
        return train_file(Perceptron(), path, format="vw", classes=[-1, 1])

    # best of several runs for each, in alternating blocks of three runs, so that all see the
    # same machine (its speed changes from minute to minute); the ratios are of the minima
    t_vw = t_vwfile = t = float("inf")
    for _ in range(3):
        t_vw = min(t_vw, _best(vw_pass, 3)[0])
        t_vwfile = min(t_vwfile, _best(mbcore_vw, 3)[0])
        t = min(t, _best(mbcore_svm, 3)[0])
    stats = benchmark.pedantic(mbcore_svm, rounds=3, iterations=1)
    t = min(t, benchmark.stats.stats.min)
    info = benchmark.extra_info
    info["mbcore examples/s (svmlight: read + Perceptron)"] = round(rows / t)
    info["mbcore examples/s (VW text: read + Perceptron)"] = round(rows / t_vwfile)
    info["vw examples/s (VW text: read + hinge SGD)"] = round(rows / t_vw)
    info["mbcore (own format) / vw (own format)"] = round(t_vw / t, 2)
    info["mbcore (VW text) / vw (VW text)"] = round(t_vw / t_vwfile, 2)
    print(f"\nmbcore train_file on svmlight: {rows / t:,.0f} examples/s ({stats.mistakes} "
          f"mistakes); on the VW text: {rows / t_vwfile:,.0f}; vw -d --loss_function hinge: "
          f"{rows / t_vw:,.0f} examples/s; mbcore is {t_vw / t:.2f}x vw's speed in each's own "
          f"format, {t_vw / t_vwfile:.2f}x on VW's")
