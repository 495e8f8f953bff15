"""Benchmarks of streaming file input (issue: svmlight/libsvm and CSV files read in chunks).

One svmlight file of N = 200,000 rows, n = 1,000 features and 30 non-zeros per row (one
column drawn in each of 30 bands of 33, so the indices are sorted and distinct; values printed
with ``%.6g`` from 4,096 uniform draws; labels +1/-1): about 78 MB plain and 31 MB with
``gzip -6``; the same rows with every value ``1`` (Boolean data); and a numeric CSV of 200,000
rows x 20 features.  Written once per session in a temporary directory.

Each benchmark reads the whole file once, chunk by chunk (10,000 rows, or byte ranges of about
as many rows for scikit-learn), keeping nothing: mbcore's reader (``iter_svmlight`` with
``n_features`` and ``zero_based`` given, so one pass; and with the first pass that finds them),
scikit-learn's ``load_svmlight_file`` on byte ranges (``offset``/``length``: plain files only)
and on blocks of lines (the only way it can stream a gzip file), scikit-learn on the whole
file (not a stream: the library's own speed), the I/O floors (reading or decompressing the
bytes, nothing parsed), and ``run_stream`` with a Perceptron (reading + learning).
"""

import gzip
import io
import itertools
import os

import numpy as np
import pytest

import mbcore
from mbcore.streaming import iter_csv, iter_svmlight, run_stream

N, D, NNZ, CHUNK, SEED = 200_000, 1_000, 30, 10_000, 20261122
CSV_N, CSV_D = 200_000, 20


def _write_svmlight(path, binary, seed=SEED):
    rng = np.random.default_rng(seed)
    band = D // NNZ
    vocab = ["1"] if binary else [f"{v:.6g}" for v in rng.random(4096)]
    with open(path, "w") as f:
        for start in range(0, N, CHUNK):
            m = min(CHUNK, N - start)
            idx = (np.arange(NNZ) * band + rng.integers(0, band, size=(m, NNZ)) + 1).tolist()
            vid = rng.integers(0, len(vocab), size=(m, NNZ)).tolist()
            lab = np.where(rng.random(m) < 0.5, "+1", "-1").tolist()
            f.write("".join(f"{lb} " + " ".join([f"{i}:{vocab[v]}" for i, v in zip(ir, vr)])
                            + "\n" for lb, ir, vr in zip(lab, idx, vid)))


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("streaming")
    plain, gz, binary = tmp / "real.svm", tmp / "real.svm.gz", tmp / "binary.svm"
    _write_svmlight(plain, binary=False)
    _write_svmlight(binary, binary=True)
    with open(plain, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
        for block in iter(lambda: src.read(1 << 20), b""):
            dst.write(block)
    rng = np.random.default_rng(SEED + 1)
    csv = tmp / "real.csv"
    A = np.column_stack([rng.standard_normal((CSV_N, CSV_D)).round(6),
                         rng.integers(0, 2, CSV_N)])
    np.savetxt(csv, A, fmt=["%.6g"] * CSV_D + ["%d"], delimiter=",")
    return {"plain": str(plain), "gzip": str(gz), "binary": str(binary), "csv": str(csv)}


# -- the readers compared -----------------------------------------------------------------------

def _drain(chunks):
    rows = 0
    for X, y in chunks:
        rows += X.shape[0]
    assert rows == N
    return rows


def sklearn_ranges(path, length):
    """scikit-learn's reader on byte ranges of the (uncompressed) file, aligned by it to lines."""
    from sklearn.datasets import load_svmlight_file
    size = os.path.getsize(path)
    for offset in range(0, size, length):
        yield load_svmlight_file(path, n_features=D, zero_based=False, offset=offset,
                                 length=length)


def sklearn_lines(path, chunk_size=CHUNK):
    """scikit-learn's reader on blocks of lines (gzip or not): what streaming a gzip file with
    it takes, since its byte ranges need a seekable uncompressed file."""
    from sklearn.datasets import load_svmlight_file
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        while True:
            lines = list(itertools.islice(f, chunk_size))
            if not lines:
                return
            yield load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=D,
                                     zero_based=False)


def _range_length(path):
    return max(1, os.path.getsize(path) // (N // CHUNK))     # about CHUNK rows per range


def _read_floor(path):
    opener = gzip.open if path.endswith(".gz") else open
    total = 0
    with opener(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 18), b""):
            total += len(block)
    return total


def test_readers_agree(files):
    """Not timed: mbcore's chunks and scikit-learn's byte ranges hold the same rows."""
    pytest.importorskip("sklearn")
    ours = list(iter_svmlight(files["plain"], chunk_size=50_000, n_features=D,
                              zero_based=False))
    theirs = list(sklearn_ranges(files["plain"], _range_length(files["plain"])))
    assert sum(X.shape[0] for X, _ in ours) == sum(X.shape[0] for X, _ in theirs) == N
    a_data = np.concatenate([X.data for X, _ in ours])
    b_data = np.concatenate([X.data for X, _ in theirs])
    a_idx = np.concatenate([X.indices for X, _ in ours])
    b_idx = np.concatenate([X.indices for X, _ in theirs])
    assert np.array_equal(a_data, b_data) and np.array_equal(a_idx, b_idx)
    assert np.array_equal(np.concatenate([y for _, y in ours]),
                          np.concatenate([y for _, y in theirs]))


# -- svmlight, plain ----------------------------------------------------------------------------

@pytest.mark.benchmark(group="stream-svmlight-plain")
def test_mbcore_plain(benchmark, record, files):
    """iter_svmlight, n_features and zero_based given: one pass, CSR chunks of 10,000 rows."""
    record("stream.mbcore.plain", N)
    benchmark.pedantic(lambda: _drain(iter_svmlight(files["plain"], CHUNK, n_features=D,
                                                    zero_based=False)),
                       rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-plain")
def test_mbcore_plain_with_scan(benchmark, record, files):
    """iter_svmlight with the defaults: a first pass finds n_features and zero_based."""
    record("stream.mbcore.plain_scan", N)
    benchmark.pedantic(lambda: _drain(iter_svmlight(files["plain"], CHUNK)), rounds=3,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-plain")
def test_sklearn_ranges(benchmark, record, files):
    """scikit-learn load_svmlight_file(offset=, length=) on 20 byte ranges (~10,000 rows)."""
    pytest.importorskip("sklearn")
    record("stream.sklearn.ranges", N)
    length = _range_length(files["plain"])
    benchmark.pedantic(lambda: _drain(sklearn_ranges(files["plain"], length)), rounds=3,
                       warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-plain")
def test_sklearn_whole_file(benchmark, record, files):
    """scikit-learn on the whole file at once (not a stream: memory grows with the file)."""
    sk = pytest.importorskip("sklearn.datasets")
    record("stream.sklearn.whole", N)
    benchmark.pedantic(lambda: sk.load_svmlight_file(files["plain"], n_features=D,
                                                     zero_based=False),
                       rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-plain")
def test_read_floor_plain(benchmark, record, files):
    """Reading the bytes in 256 KiB blocks, nothing parsed (the I/O floor)."""
    record("stream.floor.read_plain", N)
    benchmark.pedantic(_read_floor, args=(files["plain"],), rounds=3, warmup_rounds=1)


# -- svmlight, gzip -----------------------------------------------------------------------------

@pytest.mark.benchmark(group="stream-svmlight-gzip")
def test_mbcore_gzip(benchmark, record, files):
    """iter_svmlight on the gzip file, one pass."""
    record("stream.mbcore.gzip", N)
    benchmark.pedantic(lambda: _drain(iter_svmlight(files["gzip"], CHUNK, n_features=D,
                                                    zero_based=False)),
                       rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-gzip")
def test_sklearn_gzip_lines(benchmark, record, files):
    """scikit-learn on blocks of 10,000 lines of the gzip file."""
    pytest.importorskip("sklearn")
    record("stream.sklearn.gzip_lines", N)
    benchmark.pedantic(lambda: _drain(sklearn_lines(files["gzip"])), rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-gzip")
def test_read_floor_gzip(benchmark, record, files):
    """Decompressing the gzip file in 256 KiB blocks, nothing parsed."""
    record("stream.floor.read_gzip", N)
    benchmark.pedantic(_read_floor, args=(files["gzip"],), rounds=3, warmup_rounds=1)


# -- Boolean data (every value 1) ---------------------------------------------------------------

@pytest.mark.benchmark(group="stream-svmlight-binary")
def test_mbcore_binary(benchmark, record, files):
    """iter_svmlight on the file whose values are all 1 (one-digit values skip float parsing)."""
    record("stream.mbcore.binary", N)
    benchmark.pedantic(lambda: _drain(iter_svmlight(files["binary"], CHUNK, n_features=D,
                                                    zero_based=False)),
                       rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-svmlight-binary")
def test_sklearn_binary_ranges(benchmark, record, files):
    """scikit-learn on byte ranges of the same file."""
    pytest.importorskip("sklearn")
    record("stream.sklearn.binary_ranges", N)
    length = _range_length(files["binary"])
    benchmark.pedantic(lambda: _drain(sklearn_ranges(files["binary"], length)), rounds=3,
                       warmup_rounds=1)


# -- reading and learning -----------------------------------------------------------------------

@pytest.mark.benchmark(group="stream-run")
def test_run_stream_perceptron(benchmark, record, files):
    """run_stream(Perceptron(), iter_svmlight(plain)): progressive evaluation, read + learn."""
    record("stream.mbcore.run_perceptron", N)

    def run():
        stats = run_stream(mbcore.Perceptron(), iter_svmlight(files["plain"], CHUNK,
                                                              n_features=D, zero_based=False))
        assert stats.n == N
    benchmark.pedantic(run, rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-run")
def test_run_stream_winnow_binary(benchmark, record, files):
    """run_stream(Winnow(), iter_svmlight(binary)): Boolean data, read + learn."""
    record("stream.mbcore.run_winnow_binary", N)

    def run():
        stats = run_stream(mbcore.Winnow(), iter_svmlight(files["binary"], CHUNK,
                                                          n_features=D, zero_based=False))
        assert stats.n == N
    benchmark.pedantic(run, rounds=3, warmup_rounds=1)


# -- CSV ----------------------------------------------------------------------------------------

@pytest.mark.benchmark(group="stream-csv")
def test_mbcore_csv(benchmark, record, files):
    """iter_csv on 200,000 rows x 21 columns, chunks of 10,000 rows."""
    record("stream.mbcore.csv", CSV_N)
    benchmark.pedantic(lambda: _drain(iter_csv(files["csv"], CHUNK)), rounds=3, warmup_rounds=1)


@pytest.mark.benchmark(group="stream-csv")
def test_numpy_loadtxt_csv(benchmark, record, files):
    """numpy.loadtxt on the whole CSV file as float64 (not a stream)."""
    record("stream.numpy.loadtxt_csv", CSV_N)
    benchmark.pedantic(lambda: np.loadtxt(files["csv"], delimiter=","), rounds=3,
                       warmup_rounds=1)
