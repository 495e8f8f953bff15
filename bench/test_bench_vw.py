"""Throughput of the Vowpal Wabbit text reader (iter_vw) on a9a-shaped VW text (the real a9a,
converted on the fly, when /work/shared/data holds it; generated otherwise), and, when the
``vowpalwabbit`` package is installed, VW reading and learning the same file (``-d FILE
--loss_function hinge``, through pyvw) against mbcore reading it and running one Perceptron
pass.  MB/s and examples/s are in extra_info and printed; all from one run."""

import gzip
import os
import time

import numpy as np
import pytest

from mbcore import Perceptron
from mbcore.streaming import iter_vw, run_stream

A9A = "/work/shared/data/a9a/a9a.gz"
COPIES = 4


def _a9a_vw_text():
    """a9a as VW text: 'label |f idx idx ...' (the values are all 1), COPIES times."""
    if os.path.exists(A9A):
        lines = []
        for raw in gzip.open(A9A).read().decode().splitlines():
            tok = raw.split()
            if tok:
                lines.append(f"{int(float(tok[0]))} |f " +
                             " ".join(t.split(":")[0] for t in tok[1:]))
    else:
        rng = np.random.default_rng(0)
        lines = [("1" if rng.random() < 0.24 else "-1") + " |f " +
                 " ".join(map(str, np.sort(rng.choice(123, 14, replace=False)) + 1))
                 for _ in range(32561)]
    return ("\n".join(lines * COPIES) + "\n").encode()


@pytest.fixture(scope="module")
def vw_file(tmp_path_factory):
    text = _a9a_vw_text()
    path = tmp_path_factory.mktemp("vw") / "a9a.vw"
    path.write_bytes(text)
    return str(path), len(text), text.count(b"\n")


def _drain(chunks):
    return sum(len(y) for _, y in chunks)


def test_vw_read_throughput(benchmark, vw_file):
    path, size, rows = vw_file
    benchmark.pedantic(lambda: _drain(iter_vw(path, chunk_size=10_000)), rounds=3,
                       iterations=1)
    t = benchmark.stats.stats.min
    benchmark.extra_info["MB/s"] = round(size / t / 1e6)
    benchmark.extra_info["examples/s"] = round(rows / t)
    print(f"\niter_vw: {size / t / 1e6:.0f} MB/s, {rows / t:,.0f} examples/s ({rows} rows, "
          f"{size / 1e6:.1f} MB)")


def test_vw_against_vowpal_wabbit(benchmark, vw_file):
    pyvw = pytest.importorskip("vowpalwabbit.pyvw")
    path, size, rows = vw_file

    def mbcore_pass():
        return run_stream(Perceptron(), iter_vw(path, chunk_size=10_000), classes=[-1, 1])

    def vw_pass():
        ws = pyvw.Workspace(f"-d {path} --loss_function hinge -b 18 --quiet")
        ws.finish()

    best_vw = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        vw_pass()
        best_vw = min(best_vw, time.perf_counter() - t0)
    stats = benchmark.pedantic(mbcore_pass, rounds=3, iterations=1)
    t = benchmark.stats.stats.min
    info = benchmark.extra_info
    info["mbcore examples/s (read + Perceptron)"] = round(rows / t)
    info["vw examples/s (read + hinge SGD)"] = round(rows / best_vw)
    info["mbcore / vw speed"] = round(best_vw / t, 2)
    print(f"\nmbcore iter_vw + Perceptron: {rows / t:,.0f} examples/s "
          f"({stats.mistakes} mistakes); vw -d --loss_function hinge: {rows / best_vw:,.0f} "
          f"examples/s; mbcore is {best_vw / t:.2f}x vw's speed")
