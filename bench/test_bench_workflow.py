"""Benchmarks of the file -> model -> predictions workflow (issue 13), from the user's entry
point: ``mbcore.streaming.train_file`` / ``predict_file`` on a text file (what ``mbcore train``
and ``mbcore predict`` run after their start-up), reading, parsing and learning included.

The data has the shape of LIBSVM's a9a (32,561 rows, 123 binary features, 14 active per row)
and w8a (49,749 rows, 300 binary features, about 12 active per row), generated (seeded) and
written once per session as svmlight text; each file is tiled 8 times so that one timed call
is long enough to time (260,488 and 397,992 rows).  Compared with scikit-learn reading the
same file (``load_svmlight_file``) and running one epoch of its ``Perceptron``.
"""

import io
import os

import numpy as np
import pytest

import mbcore
from mbcore.streaming import predict_file, train_file

SHAPES = {"a9a": (32_561, 123, 14), "w8a": (49_749, 300, 12)}
TILES = 8
SEED = 20261125


def _write(path, n, d, k, seed):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    lines = []
    for _ in range(n):
        cols = np.sort(rng.choice(d, size=int(rng.integers(k - 3, k + 4)), replace=False))
        lab = "+1" if u[cols].sum() + rng.normal() > 0 else "-1"
        lines.append(lab + " " + " ".join(f"{c + 1}:1" for c in cols) + "\n")
    text = "".join(lines)
    with open(path, "w") as f:
        for _ in range(TILES):
            f.write(text)
    return n * TILES, d


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("workflow")
    out = {}
    for i, (name, (n, d, k)) in enumerate(SHAPES.items()):
        path = str(where / f"{name}.svm")
        rows, width = _write(path, n, d, k, SEED + i)
        out[name] = (path, rows, width)
    return out


def _train(path, d):
    return train_file(mbcore.Perceptron(), path, n_features=d, zero_based=False)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_workflow_results_agree(files, name):
    """Not timed: the file trained through the workflow equals the rows trained in memory."""
    path, rows, d = files[name]
    clf = mbcore.Perceptron()
    stats = _train(path, d)
    X, y = mbcore.datasets.load_svmlight(path, n_features=d, zero_based=False)
    ref = clf.partial_fit(X, y)
    assert stats.n == rows == len(y) and stats.mistakes == ref.mistakes_


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_train_file(benchmark, record, files, name):
    """train_file: one Perceptron pass, file to trained model, width given (one pass)."""
    path, rows, d = files[name]
    record(f"workflow.mbcore.train_{name}", rows)
    benchmark.pedantic(lambda: _train(path, d), rounds=5, warmup_rounds=1)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_train_file_with_scan(benchmark, record, files, name):
    """train_file with the width found by a first pass (``grow=False``: what `mbcore train
    FILE` did before issue 25; it now reads width-free, bench/test_bench_width_free.py)."""
    path, rows, d = files[name]
    record(f"workflow.mbcore.train_scan_{name}", rows)
    benchmark.pedantic(lambda: train_file(mbcore.Perceptron(), path, grow=False), rounds=3,
                       warmup_rounds=1)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_sklearn_load_and_epoch(benchmark, record, files, name):
    """scikit-learn: load_svmlight_file, then one epoch of its Perceptron."""
    sk = pytest.importorskip("sklearn.datasets")
    from sklearn.linear_model import Perceptron
    path, rows, d = files[name]
    record(f"workflow.sklearn.load_epoch_{name}", rows)

    def run():
        X, y = sk.load_svmlight_file(path, n_features=d, zero_based=False)
        # its SGD kernels take 32-bit sparse indices (the loader gives 64-bit ones)
        X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
        Perceptron(tol=None, shuffle=False).partial_fit(X, y, classes=np.array([-1.0, 1.0]))
    benchmark.pedantic(run, rounds=3, warmup_rounds=1)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_predict_file(benchmark, record, files, name):
    """predict_file: every row's label written as text (in memory: no disk in the timing)."""
    path, rows, d = files[name]
    model = mbcore.Perceptron()
    _train_model = train_file(model, path, n_features=d, zero_based=False)
    assert _train_model.n == rows
    record(f"workflow.mbcore.predict_{name}", rows)
    benchmark.pedantic(lambda: predict_file(model, path, io.BytesIO()),
                       rounds=5, warmup_rounds=1)


class _OneLineAtATime:
    """A stream that delivers one line per read, as a pipe fed a line at a time does."""

    def __init__(self, lines):
        self._lines = iter(lines)

    def read1(self, n=-1):
        return next(self._lines, b"")

    read = read1


def test_predict_line_at_a_time(benchmark, record, files):
    """predict_file in line-buffered mode (for an interactive pipe) on input that arrives one
    line at a time: each line read, parsed, predicted, written and flushed before the next
    arrives; the time per line is the mode's whole overhead."""
    path, rows, d = files["a9a"]
    model = mbcore.Perceptron()
    train_file(model, path, n_features=d, zero_based=False)
    with open(path, "rb") as f:
        lines = [f.readline() for _ in range(2_000)]
    record("workflow.mbcore.predict_line", 2_000)
    benchmark.pedantic(lambda: predict_file(model, _OneLineAtATime(lines), io.BytesIO(),
                                            line_buffered=True), rounds=5, warmup_rounds=1)


def test_predict_line_buffered_burst(benchmark, record, files):
    """The same mode when the lines arrive together (a burst in the pipe): they are answered
    together, so the per-line cost falls to the chunked mode's."""
    path, rows, d = files["a9a"]
    model = mbcore.Perceptron()
    train_file(model, path, n_features=d, zero_based=False)
    with open(path, "rb") as f:
        head = b"".join(f.readline() for _ in range(2_000))
    record("workflow.mbcore.predict_line_burst", 2_000)
    benchmark.pedantic(lambda: predict_file(model, io.BytesIO(head), io.BytesIO(),
                                            line_buffered=True), rounds=5, warmup_rounds=1)


def test_train_file_memory_does_not_grow_with_the_file(benchmark, files, tmp_path):
    """Peak traced memory (tracemalloc: every NumPy and Python allocation, all threads) of
    train_file on the a9a-shape file and on the same text 10 times over (target: within 1.1x).
    Timed: the 10x file (info)."""
    import tracemalloc
    path, rows, d = files["a9a"]
    big = tmp_path / "a9a_x10.svm"
    with open(path, "rb") as f:
        text = f.read()
    with open(big, "wb") as f:
        for _ in range(10):
            f.write(text)

    def peak(p):
        train_file(mbcore.Perceptron(), p, n_features=d, zero_based=False)   # warm-up
        tracemalloc.start()
        try:
            train_file(mbcore.Perceptron(), p, n_features=d, zero_based=False)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    p1, p10 = peak(path), peak(str(big))
    info = benchmark.extra_info
    info["peak MB, file (19.5 MB)"] = round(p1 / 1e6, 1)
    info["peak MB, 10x file"] = round(p10 / 1e6, 1)
    info["10x / 1x peak (target <= 1.1)"] = round(p10 / p1, 3)
    print(f"\ntrain_file peak traced memory: {p1 / 1e6:.1f} MB (file), {p10 / 1e6:.1f} MB "
          f"(10x file): {p10 / p1:.3f}x")
    benchmark.pedantic(lambda: train_file(mbcore.Perceptron(), str(big), n_features=d,
                                          zero_based=False), rounds=1, iterations=1)
