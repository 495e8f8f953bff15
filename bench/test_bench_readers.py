"""Throughput of the compiled readers from the user's entry point (iter_svmlight / iter_csv over
a file): a9a- and w8a-shaped svmlight text (generated; the real files when the environment
variable MBCORE_DATA names the datasets' directory), numeric CSV, gzip against zlib alone, and
scikit-learn's load_svmlight_file on the same file.  MB/s are in extra_info."""

import gzip
import os
import time
import zlib

import numpy as np
import pytest

from mbcore.streaming import iter_csv, iter_svmlight

SHAPE = {"a9a": (32561, 123, 14), "w8a": (49749, 300, 12)}     # rows, features, pairs per row


def _svm_text(name, real):
    if real is not None:
        return gzip.open(real).read() * 4
    rows, d, k = SHAPE[name]
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(rows * 4):
        idx = np.sort(rng.choice(d, k, replace=False)) + 1
        lines.append(("+1 " if rng.random() < 0.3 else "-1 ") + " ".join(f"{i}:1" for i in idx))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module", params=["a9a", "w8a"])
def svm_file(request, tmp_path_factory, shared_data):
    text = _svm_text(request.param, shared_data(request.param, f"{request.param}.gz"))
    path = tmp_path_factory.mktemp("b") / f"{request.param}.svm"
    path.write_bytes(text)
    gz = tmp_path_factory.mktemp("b") / f"{request.param}.svm.gz"
    gz.write_bytes(gzip.compress(text, 6))
    return request.param, str(path), str(gz), len(text)


def _drain(chunks):
    return sum(len(item[1]) for item in chunks)


def _best(fn, n=3):
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def test_svmlight_throughput(benchmark, svm_file):
    name, path, gz, size = svm_file
    one_pass = dict(n_features=SHAPE[name][1], zero_based=False)
    t_scan = _best(lambda: _drain(iter_svmlight(path, chunk_size=10_000)))
    t_gz = _best(lambda: _drain(iter_svmlight(gz, chunk_size=10_000, **one_pass)))
    blob = open(gz, "rb").read()
    t_zlib = _best(lambda: zlib.decompressobj(31).decompress(blob))
    t_par = _best(lambda: _drain(iter_svmlight(path, chunk_size=10_000, workers=2,
                                               **one_pass)))
    benchmark.pedantic(lambda: _drain(iter_svmlight(path, chunk_size=10_000, **one_pass)),
                       rounds=3, iterations=1)
    t_one = benchmark.stats.stats.min
    info = benchmark.extra_info
    info["MB/s one pass"] = round(size / t_one / 1e6)
    info["MB/s with the first pass"] = round(size / t_scan / 1e6)
    info["MB/s two threads (workers=2)"] = round(size / t_par / 1e6)
    info["gzip / (zlib + parse)"] = round(t_gz / (t_zlib + t_one), 2)
    try:
        from sklearn.datasets import load_svmlight_file
    except ImportError:
        return
    t_sk = _best(lambda: load_svmlight_file(path), 1)
    info["x sklearn (one pass)"] = round(t_sk / t_one, 1)
    info["x sklearn (first pass)"] = round(t_sk / t_scan, 1)
    info["x sklearn (two threads)"] = round(t_sk / t_par, 1)


def test_csv_throughput(benchmark, tmp_path):
    rng = np.random.default_rng(1)
    A = np.round(rng.normal(size=(200_000, 20)), 4)
    A[:, -1] = rng.integers(0, 2, 200_000)
    path = tmp_path / "n.csv"
    np.savetxt(path, A, fmt="%.4f", delimiter=",")
    size = os.path.getsize(path)
    benchmark.pedantic(lambda: _drain(iter_csv(str(path), chunk_size=10_000)), rounds=3,
                       iterations=1)
    benchmark.extra_info["MB/s"] = round(size / benchmark.stats.stats.min / 1e6)


def test_svmlight_lines_cost(benchmark, svm_file):
    """lines=True (each row's line in the file, for errors found later by a learner): one
    int64 store per row in the parser; the default (lines=False) passes no array at all."""
    name, path, _, size = svm_file
    one_pass = dict(n_features=SHAPE[name][1], zero_based=False, chunk_size=10_000)
    t_with = _best(lambda: _drain(iter_svmlight(path, lines=True, **one_pass)), 5)
    benchmark.pedantic(lambda: _drain(iter_svmlight(path, **one_pass)), rounds=5, iterations=1)
    t_without = benchmark.stats.stats.min
    benchmark.extra_info["MB/s lines=False"] = round(size / t_without / 1e6)
    benchmark.extra_info["lines=True / lines=False"] = round(t_with / t_without, 3)
