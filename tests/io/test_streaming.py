"""Streaming file input (mbcore.streaming): chunks equal the whole-file loaders exactly, gzip
equals plain, errors name the file and line, memory does not grow with the file, and run_stream
is run_online over the concatenated chunks."""

import doctest
import gzip
import hashlib
import os
import random
import re
import stat
import threading
import tracemalloc

import numpy as np
import pytest

import mbcore
from mbcore import _readers, streaming
from mbcore.datasets import load_csv, load_svmlight
from mbcore.streaming import CSRChunk, StreamRun, iter_csv, iter_svmlight, run_stream


# -- files --------------------------------------------------------------------------------------

def _svm_lines(seed, n, d=40, binary=False, tricky=True):
    """svmlight lines with a known content; ``tricky`` adds what the format allows: unsorted
    indices, comments, blank lines, qid, tabs, label-only rows, odd number spellings."""
    rng = random.Random(seed)
    values = ["1"] if binary else ["1", "0.5", "-2", "1e-3", "+3", "7.", ".25", "1E2", "0",
                                   "0.1", "123456789.125"]
    out = []
    for _ in range(n):
        idx = rng.sample(range(1, d + 1), rng.randint(0, 8))
        if not tricky or rng.random() < 0.7:
            idx.sort()
        toks = [f"{i}:{rng.choice(values)}" for i in idx]
        if tricky and rng.random() < 0.05:
            toks.insert(0, "qid:7")
        sep = rng.choice([" ", "  ", "\t"]) if tricky else " "
        line = rng.choice(["+1", "-1"]) + (sep if toks else "") + sep.join(toks)
        if tricky and rng.random() < 0.05:
            line += "  # a comment 99:1"
        if tricky and rng.random() < 0.03:
            out.append(rng.choice(["", "   ", "# a comment line"]))
        out.append(line)
    return out


def _write(path, text, compress=False):
    data = text.encode() if isinstance(text, str) else text
    with open(path, "wb") as f:
        f.write(gzip.compress(data, compresslevel=1, mtime=0) if compress else data)
    return str(path)


def _concat(chunks):
    Xs, ys = zip(*chunks)
    dense = [X.toarray() if isinstance(X, CSRChunk) else X for X in Xs]
    return np.vstack(dense), np.concatenate(ys)


def _csr(X, keep_zeros_of=None):
    """A dense array as a CSRChunk built without the reader: the non-zeros, and with
    ``keep_zeros_of`` the entries written in that (one-based) svmlight file, zeros included."""
    mask = X != 0
    if keep_zeros_of is not None:
        text = gzip.open(keep_zeros_of, "rt") if keep_zeros_of.endswith(".gz") else \
            open(keep_zeros_of)
        with text as f:
            rows = (line.split("#")[0].split() for line in f)
            for i, toks in enumerate(t for t in rows if t):
                for key in (tok.partition(":")[0] for tok in toks[1:]):
                    if key != "qid":
                        mask[i, int(key) - 1] = True
    rows, cols = np.nonzero(mask)
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=X.shape[0]))]
    return CSRChunk(X[rows, cols], cols.astype(np.int32), indptr.astype(np.int32), X.shape)


@pytest.fixture(scope="module")
def svm_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("svm")
    return _write(tmp / "data.svm", "\n".join(_svm_lines(1, 300)) + "\n")


# -- chunks equal the whole file ----------------------------------------------------------------

@pytest.mark.parametrize("chunk_size", [1, 7, 64, 299, 300, 10_000])
@pytest.mark.parametrize("dense", [False, True])
def test_svmlight_chunks_equal_the_whole_file(svm_file, chunk_size, dense):
    X, y = load_svmlight(svm_file)
    chunks = list(iter_svmlight(svm_file, chunk_size=chunk_size, dense=dense))
    sizes = [c[0].shape[0] for c in chunks]
    assert sizes[:-1] == [chunk_size] * (len(sizes) - 1) and sum(sizes) == X.shape[0]
    assert all(c[0].shape[1] == X.shape[1] for c in chunks)
    Xs, ys = _concat(chunks)
    assert np.array_equal(Xs, X) and np.array_equal(ys, y) and ys.dtype == np.float64
    for Xc, _ in chunks:
        if dense:
            assert Xc.dtype == np.float64 and Xc.flags.c_contiguous
        else:
            assert isinstance(Xc, CSRChunk) and Xc.indices.dtype == np.int32
            for i in range(Xc.shape[0]):
                row = Xc.indices[Xc.indptr[i]:Xc.indptr[i + 1]]
                assert (np.diff(row) > 0).all()          # sorted and distinct within rows


@pytest.mark.parametrize("n_features, zero_based", [(None, "auto"), (50, "auto"), (None, False),
                                                    (45, False)])
def test_svmlight_width_rules_match_load_svmlight(svm_file, n_features, zero_based):
    X, y = load_svmlight(svm_file, n_features=n_features, zero_based=zero_based)
    Xs, ys = _concat(iter_svmlight(svm_file, chunk_size=50, n_features=n_features,
                                   zero_based=zero_based))
    assert np.array_equal(Xs, X) and np.array_equal(ys, y)


def test_zero_based_auto_is_decided_on_the_whole_file(tmp_path):
    # index 0 appears only in the last row: the first pass sees it, as load_svmlight does
    lines = [f"+1 {i % 5 + 1}:1" for i in range(50)] + ["-1 0:2 5:1"]
    path = _write(tmp_path / "z.svm", "\n".join(lines) + "\n")
    X, y = load_svmlight(path)
    Xs, ys = _concat(iter_svmlight(path, chunk_size=10))
    assert X.shape == (51, 6) and np.array_equal(Xs, X) and np.array_equal(ys, y)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("block", [1, 5, 64])
def test_block_boundaries_and_line_breaks(tmp_path, monkeypatch, newline, block):
    text = newline.join(_svm_lines(2, 40)) + newline
    path = tmp_path / "b.svm"
    path.write_bytes(text.encode())
    X, y = load_svmlight(str(path))
    monkeypatch.setattr(_readers, "BLOCK", block)      # the compiled readers' block size
    for chunk_size in (1, 6):
        Xs, ys = _concat(iter_svmlight(path, chunk_size=chunk_size))
        assert np.array_equal(Xs, X) and np.array_equal(ys, y)


def test_random_files_equal_load_svmlight_or_both_raise(tmp_path):
    """Seeded fuzzing: valid and invalid tokens mixed in; the stream gives load_svmlight's
    arrays, or both raise ValueError and the stream names a line of the file."""
    rng = random.Random(3)
    bad = ["3:", ":3", "3:x", "a:1", "3:1:2", "5", "-1:2", "+2:1", "1e1:3", "3:1-2", "²:1",
           "3:0x10", "3:nan(1)", "3:1_0", "4:inf", "qid:2", "3:1\x00"]
    path = tmp_path / "f.svm"
    for case in range(150):
        lines = []
        for _ in range(rng.randint(1, 25)):
            idx = sorted(rng.sample(range(1, 30), rng.randint(0, 5)))
            toks = [f"{i}:{rng.choice(['1', '0.5', '2'])}" for i in idx]
            if rng.random() < 0.08:
                toks.insert(rng.randint(0, len(toks)), rng.choice(bad))
            if rng.random() < 0.02 and toks:
                toks.append(toks[0])                              # a repeated index
            label = rng.choice(["+1", "-1", "x"] if rng.random() < 0.02 else ["+1", "-1"])
            lines.append(" ".join([label] + toks))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            X, y = load_svmlight(str(path))
        except ValueError:
            X = None
        for chunk_size in (1, 4, 100):
            if X is None:
                with pytest.raises(ValueError, match=r"iter_svmlight: .*f\.svm, line \d+: "):
                    list(iter_svmlight(path, chunk_size=chunk_size, dense=True))
            else:
                Xs, ys = _concat(iter_svmlight(path, chunk_size=chunk_size, dense=True))
                assert np.array_equal(Xs, X, equal_nan=True) and np.array_equal(ys, y), case


def test_gzip_equals_plain_by_magic_bytes(tmp_path, svm_file):
    text = open(svm_file, "rb").read()
    gz = _write(tmp_path / "data.svm.gz", text, compress=True)
    hidden = _write(tmp_path / "data.txt", text, compress=True)        # gzip, not named .gz
    plain_named_gz = _write(tmp_path / "plain.gz", text)              # plain, named .gz
    X, y = load_svmlight(svm_file)
    for path in (gz, hidden, plain_named_gz):
        for dense in (False, True):
            Xs, ys = _concat(iter_svmlight(path, chunk_size=33, dense=dense))
            assert np.array_equal(Xs, X) and np.array_equal(ys, y)


def test_one_pass_mode_reads_a_pipe(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    text = "\n".join(_svm_lines(4, 200, tricky=False)) + "\n"
    plain = _write(tmp_path / "p.svm", text)
    X, y = load_svmlight(plain, n_features=40, zero_based=False)
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file.*n_features and zero_based"):
        iter_svmlight(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(text.encode()))
    writer.start()
    try:
        Xs, ys = _concat(iter_svmlight(fifo, chunk_size=64, n_features=40, zero_based=False))
    finally:
        writer.join(10)
    assert np.array_equal(Xs, X) and np.array_equal(ys, y)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# -- CSV ----------------------------------------------------------------------------------------

def _csv_text(seed, n, words=False, header=False, delimiter=","):
    rng = np.random.default_rng(seed)
    A = rng.integers(-5, 6, size=(n, 4)) / 4
    labels = rng.choice(["yes", "no"], n) if words else rng.integers(0, 2, n).astype(str)
    rows = [delimiter.join([repr(float(v)) for v in a] + [lab]) for a, lab in zip(A, labels)]
    if n > 5:
        rows.insert(3, "")                                         # a blank line
        rows[5] += "  # a comment"
    return ("a,b,c,d,class\n" if header else "") + "\n".join(rows) + "\n"


@pytest.mark.parametrize("chunk_size", [1, 5, 120, 1000])
@pytest.mark.parametrize("words, header", [(False, False), (True, True)])
def test_csv_chunks_equal_load_csv(tmp_path, chunk_size, words, header):
    path = _write(tmp_path / "d.csv", _csv_text(5, 120, words, header))
    X, y = load_csv(path, skip_header=header)
    chunks = list(iter_csv(path, chunk_size=chunk_size, skip_header=header))
    assert [c[0].shape[0] for c in chunks][:-1] == [chunk_size] * (len(chunks) - 1)
    Xs, ys = _concat(chunks)
    assert np.array_equal(Xs, X) and np.array_equal(ys, y)
    assert all(c[0].dtype == np.float64 and c[0].flags.c_contiguous for c in chunks)
    assert ys.dtype.kind == ("U" if words else "f")


@pytest.mark.parametrize("label_column, delimiter", [(0, ","), (2, None), (-3, ";")])
def test_csv_label_column_and_delimiter(tmp_path, label_column, delimiter):
    sep = " " if delimiter is None else delimiter
    path = _write(tmp_path / "d.txt", _csv_text(6, 60, delimiter=sep), compress=True)
    X, y = load_csv(_write(tmp_path / "d.csv", _csv_text(6, 60, delimiter=sep)),
                    label_column=label_column, delimiter=delimiter)
    Xs, ys = _concat(iter_csv(path, chunk_size=7, label_column=label_column,
                              delimiter=delimiter))
    assert np.array_equal(Xs, X) and np.array_equal(ys, y)


def test_csv_label_kind_is_decided_by_the_first_chunk(tmp_path):
    path = _write(tmp_path / "d.csv", "1,0,1\n0,1,0\n1,1,maybe\n")
    X, y = load_csv(path)
    assert y.dtype.kind == "U"                    # the whole file decides for load_csv
    with pytest.raises(ValueError, match=r"d\.csv, line 3: the label 'maybe' is not a number"):
        list(iter_csv(path, chunk_size=2))
    Xs, ys = _concat(iter_csv(path, chunk_size=3))
    assert np.array_equal(ys, y)


# -- bad input ----------------------------------------------------------------------------------

SVM_ERRORS = [
    ("+1 1:1\n-1 2:x\n", r"line 2: the value 'x' is not a number"),
    ("+1 1:1\n-1 2:1 7\n", r"line 2: expected idx:value, got '7'"),
    ("+1 1:1\n3:1 4:1\n", r"line 2: starts with '3:1', a feature, not a label"),     # label missing
    ("+1 1:1\n\n-1 2:1 a:1\n", r"line 3: the index in 'a:1' is not a non-negative integer"),
    ("+1 1:1\n-1 2:1 2:3\n", r"line 2: column 1 \(counting from 0\) appears more than once"),
    ("+1 1:1\n-1 2:1 3:1:2\n", r"line 2: the value '1:2' is not a number"),
    ("+1 1:1\n-1 1234567890123456789012:1\n", r"line 2: an index has more than 18 digits"),
    (b"+1 1:1\n-1 2:\xff\n", r"line 2: not UTF-8 text"),
]


@pytest.mark.parametrize("text, message", SVM_ERRORS)
def test_svmlight_errors_name_the_file_and_line(tmp_path, text, message):
    for compress in (False, True):
        path = _write(tmp_path / "bad.svm", text, compress)
        with pytest.raises(ValueError) as info:
            list(iter_svmlight(path, chunk_size=1))
        msg = str(info.value)
        assert msg.startswith(f"iter_svmlight: {path}, ") and "\n" not in msg
        assert re.search(message, msg), msg


def test_svmlight_width_errors_name_the_line(tmp_path):
    path = _write(tmp_path / "w.svm", "+1 1:1\n-1 2:1\n+1 9:1\n")
    with pytest.raises(ValueError, match=r"w\.svm, line 3: uses column 8 \(counting from 0\) "
                                         r"but n_features=5"):
        list(iter_svmlight(path, n_features=5))
    path = _write(tmp_path / "z.svm", "+1 1:1\n-1 0:1\n")
    with pytest.raises(ValueError, match=r"z\.svm, line 2: has index 0 but zero_based=False"):
        list(iter_svmlight(path, zero_based=False))
    with pytest.raises(ValueError, match=r"e\.svm holds no data rows"):
        list(iter_svmlight(_write(tmp_path / "e.svm", "# nothing\n\n")))


CSV_ERRORS = [
    ("1,2,0\n3,4,1\n5,6\n", r"line 3: 2 columns, but line 1 has 3"),          # a label missing
    ("1,2,0\n3,4,1,9\n", r"line 2: 4 columns, but line 1 has 3"),
    ("1,2,0\n\n3,x,1\n", r"line 3, column 1 \(counting from 0\) holds 'x', which is not a number"),
    ("a,b,c\nx,y,0\n", r"line 1, column 0 .*; if the first line is a header, pass "
                       r"skip_header=True\)"),       # (a header is sniffed: see test_readers)
    ("1\n2\n", r"has 1 column per row; at least two are needed"),
]


@pytest.mark.parametrize("text, message", CSV_ERRORS)
def test_csv_errors_name_the_file_and_line(tmp_path, text, message):
    for compress in (False, True):
        path = _write(tmp_path / "bad.csv", text, compress)
        for chunk_size in (1, 100):
            with pytest.raises(ValueError) as info:
                list(iter_csv(path, chunk_size=chunk_size))
            msg = str(info.value)
            assert msg.startswith(f"iter_csv: {path}") and "\n" not in msg
            assert re.search(message, msg), msg


@pytest.mark.parametrize("reader", [iter_svmlight, iter_csv])
def test_truncated_gzip_names_the_file_and_line(tmp_path, reader):
    if reader is iter_svmlight:
        text = "\n".join(_svm_lines(7, 20000, tricky=False)) + "\n"
    else:
        text = _csv_text(7, 20000)
    data = gzip.compress(text.encode(), mtime=0)
    path = _write(tmp_path / "cut.gz", data[:len(data) * 2 // 3])
    kwargs = dict(n_features=40, zero_based=False) if reader is iter_svmlight else {}
    with pytest.raises(OSError) as info:
        list(reader(path, chunk_size=1000, **kwargs))
    msg = str(info.value)
    assert re.match(rf"{reader.__name__}: {re.escape(path)}, line \d+: the gzip data is "
                    r"truncated or damaged", msg) and "\n" not in msg
    if reader is iter_svmlight:   # the first pass (n_features unknown) says it as well
        with pytest.raises(OSError, match=r"cut\.gz, line \d+: the gzip data is truncated"):
            list(reader(path))


@pytest.mark.parametrize("kwargs, message", [
    (dict(chunk_size=0), "chunk_size must be an integer >= 1"),
    (dict(chunk_size=2.5), "chunk_size must be an integer >= 1"),
    (dict(n_features=-1), "n_features must be None or an integer >= 0"),
    (dict(zero_based="yes"), "zero_based must be True, False or 'auto'"),
    (dict(dense=1), "dense must be a bool"),
])
def test_svmlight_parameters_are_checked_at_the_call(svm_file, kwargs, message):
    with pytest.raises(ValueError, match=f"iter_svmlight: parameter {message}"):
        iter_svmlight(svm_file, **kwargs)


def test_missing_files_raise_at_the_call(tmp_path):
    with pytest.raises(FileNotFoundError):
        iter_svmlight(tmp_path / "nope.svm")
    with pytest.raises(FileNotFoundError):
        iter_csv(tmp_path / "nope.csv")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        iter_csv(tmp_path)
    with pytest.raises(ValueError, match="iter_csv: parameter delimiter"):
        iter_csv(tmp_path / "nope.csv", delimiter=",,")
    with pytest.raises(ValueError, match=r"label_column=5 is out of range"):
        list(iter_csv(_write(tmp_path / "d.csv", "1,2\n"), label_column=5))


# -- run_stream ---------------------------------------------------------------------------------

@pytest.mark.parametrize("chunk_size", [1, 13, 300, 5000])
def test_run_stream_is_run_online_over_the_whole_file(tmp_path, chunk_size):
    real = _write(tmp_path / "r.svm", "\n".join(_svm_lines(8, 300)) + "\n")
    boolean = _write(tmp_path / "b.svm.gz", "\n".join(_svm_lines(9, 300, binary=True)) + "\n",
                     compress=True)
    for path, make in ((real, mbcore.Perceptron), (real, mbcore.MarginPerceptron),
                       (boolean, mbcore.Winnow), (boolean, mbcore.Perceptron)):
        X, y = load_svmlight(path, n_features=40)
        for dense in (False, True):
            # the reference: one run_online over the whole file in the same layout: CSR keeps
            # the explicit zeros of the file, and a stored zero may change the last bit of a
            # sum (MarginPerceptron), not a prediction
            whole = make()
            ref = mbcore.run_online(whole, X if dense else _csr(X, keep_zeros_of=path), y)
            seen = []
            learner = make()
            stats = run_stream(learner, iter_svmlight(path, chunk_size, n_features=40,
                                                      dense=dense),
                               classes=[-1, 1],      # a one-row first chunk holds one label
                               callback=lambda s: seen.append((s.n, s.mistakes)))
            assert (stats.n, stats.mistakes, stats.updates) == (ref.n, ref.mistakes,
                                                                ref.updates)
            ends = stats.n_curve
            assert np.array_equal(stats.mistake_curve, ref.mistake_curve[ends - 1])
            assert seen == list(zip(ends.tolist(), stats.mistake_curve.tolist()))
            assert np.array_equal(learner.coef_, whole.coef_)
            assert stats.n_chunks == -(-300 // chunk_size)
            assert stats.error_rate == ref.mistakes / ref.n
            assert np.array_equal(stats.chunk_updates.cumsum()[-1:], [ref.updates])


def test_run_stream_on_csv(tmp_path):
    path = _write(tmp_path / "d.csv", _csv_text(10, 200, words=True))
    X, y = load_csv(path)
    ref = mbcore.run_online(mbcore.Perceptron(), X, y)
    stats = run_stream(mbcore.Perceptron(), iter_csv(path, chunk_size=16))
    assert (stats.n, stats.mistakes, stats.updates) == (ref.n, ref.mistakes, ref.updates)


def test_run_stream_single_label_first_chunk_needs_classes():
    X = np.eye(4)
    chunks = [(X[:2], np.array([2, 2])), (X[2:], np.array([5, 2]))]
    with pytest.raises(ValueError, match=r"run_stream: the first chunk holds a single label; "
                                         r"pass classes="):
        run_stream(mbcore.Perceptron(), chunks)
    stats = run_stream(mbcore.Perceptron(), chunks, classes=[2, 5])
    ref = mbcore.run_online(mbcore.Perceptron(), X, [2, 2, 5, 2])
    assert stats.mistakes == ref.mistakes and stats.chunk_n.tolist() == [2, 2]


def test_run_stream_record_and_edge_cases():
    empty = run_stream(mbcore.Perceptron(), [])
    assert empty.n == 0 and empty.n_chunks == 0 and np.isnan(empty.error_rate)
    assert empty.mistake_curve.shape == (0,) and "StreamRun(n=0" in repr(empty)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    chunks = [(X[:0], np.array([])), (X, np.array([1, -1, 1])), (X[:1], [1])]
    stats = run_stream(mbcore.Perceptron(), chunks)
    assert stats.chunk_n.tolist() == [3, 1] and stats.n == 4
    assert stats.seconds >= stats.learn_seconds >= 0
    assert isinstance(stats, StreamRun) and stats.chunk_error_rates.shape == (2,)
    with pytest.raises(TypeError, match="run_stream: chunk 0 is not an \\(X, y\\) pair"):
        run_stream(mbcore.Perceptron(), [X])
    with pytest.raises(TypeError, match="callback must be callable"):
        run_stream(mbcore.Perceptron(), [], callback=3)


def test_inputs_are_not_modified(tmp_path, svm_file):
    before = hashlib.md5(open(svm_file, "rb").read()).hexdigest()
    chunks = [(X.copy() if not isinstance(X, CSRChunk) else X, y.copy())
              for X, y in iter_svmlight(svm_file, chunk_size=50, dense=True)]
    copies = [(X.copy(), y.copy()) for X, y in chunks]
    run_stream(mbcore.Perceptron(), chunks)
    assert all(np.array_equal(a, c) and np.array_equal(b, d)
               for (a, b), (c, d) in zip(chunks, copies))
    assert hashlib.md5(open(svm_file, "rb").read()).hexdigest() == before


def test_csr_chunks_work_with_every_kind_of_learner(tmp_path):
    path = _write(tmp_path / "b.svm", "\n".join(_svm_lines(11, 120, binary=True)) + "\n")
    (Xc, y), = list(iter_svmlight(path, chunk_size=1000, n_features=40))
    Xd = Xc.toarray()
    for make in (mbcore.Perceptron, mbcore.Winnow, mbcore.BalancedWinnow,
                 mbcore.AveragedPerceptron):
        a, b = mbcore.run_online(make(), Xc, y), mbcore.run_online(make(), Xd, y)
        assert np.array_equal(a.predictions, b.predictions) and a.updates == b.updates
    if pytest.importorskip("scipy.sparse"):
        assert np.array_equal(Xc.to_scipy().toarray(), Xd)
    assert len(Xc) == 120 and Xc.nnz == int((Xd != 0).sum()) and "CSRChunk" in repr(Xc)


def test_doctests():
    res = doctest.testmod(streaming, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


# -- memory -------------------------------------------------------------------------------------

def _traced_peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _within(small, large):
    """The rule the streams must meet: the 10x file's peak at most 1.5x the 1x file's."""
    return large < 1.5 * small


@pytest.fixture(scope="module")
def sized_files(tmp_path_factory):
    """20,000 rows (0.64 MB: two and a half 256 KiB blocks) and the same rows 10 times."""
    tmp = tmp_path_factory.mktemp("sized")
    one = ("\n".join(_svm_lines(12, 20_000, d=100, tricky=False)) + "\n").encode()
    out = {}
    for compress in (False, True):
        ext = ".svm.gz" if compress else ".svm"
        out[1, compress] = _write(tmp / f"x1{ext}", one, compress)
        out[10, compress] = _write(tmp / f"x10{ext}", one * 10, compress)
    return out


@pytest.mark.parametrize("compress", [False, True])
def test_memory_does_not_grow_with_the_file(sized_files, compress):
    def stream(path, dense):
        def run():
            chunks = iter_svmlight(path, chunk_size=2000, dense=dense)
            stats = run_stream(mbcore.Perceptron(), chunks, classes=[-1, 1])
            assert stats.n in (20_000, 200_000)
        return run

    small, large = sized_files[1, compress], sized_files[10, compress]
    for dense in (False, True):
        stream(small, dense)()                           # warm-up: one-time allocations
        p1, p10 = _traced_peak(stream(small, dense)), _traced_peak(stream(large, dense))
        assert _within(p1, p10) and p10 - p1 < 3e6, (p1, p10)   # a few MB at most


def test_memory_rule_fails_for_a_whole_file_load(sized_files, tmp_path):
    """The same rule applied to load_svmlight on a file and the same file 10x larger fails:
    a whole-file load grows with the file (here 2,000 vs 20,000 rows, to keep it quick)."""
    text = open(sized_files[1, False], "rb").read()
    tenth = _write(tmp_path / "tenth.svm", b"".join(text.splitlines(True)[:2000]))
    load_svmlight(tenth)
    p1 = _traced_peak(lambda: load_svmlight(tenth))
    p10 = _traced_peak(lambda: load_svmlight(sized_files[1, False]))
    assert not _within(p1, p10) and p10 > 5 * p1, (p1, p10)


def test_passes_leave_the_cores_of_the_background_reader(tmp_path, monkeypatch):
    # train_file and evaluate_file parse ahead in background threads: a pass whose n_jobs is
    # not set takes the cores less those threads (a larger team only makes both take turns);
    # an explicit n_jobs is kept; the results are the same whatever the team
    import mbcore._threads as th
    import mbcore.base as base
    from mbcore.streaming import evaluate_file, train_file
    rng = np.random.default_rng(0)
    path = str(tmp_path / "d.svm")
    X = rng.normal(size=(3000, 30))
    y = np.where(X @ rng.normal(size=30) > 0, 1, -1)
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in
                                           enumerate(row.tolist())) + "\n")
    monkeypatch.setattr(th, "SPEC_MIN_VALUES", 0)
    monkeypatch.setattr(th, "available_cores", lambda: 4)
    monkeypatch.delenv(th.ENV_THREADS, raising=False)
    seen = []
    real = base.pass_threads

    def spy(*a):
        seen.append(real(*a))
        return seen[-1]

    monkeypatch.setattr(base, "pass_threads", spy)
    monkeypatch.setattr(th, "resolve_n_jobs", lambda owner, n: 4 if n is None else n)
    models = []
    for n_jobs, workers, want in ((None, 3, 1), (None, 1, 3), (2, 3, 2)):
        seen.clear()
        m = mbcore.Perceptron(n_jobs=n_jobs)
        train_file(m, path, workers=workers, chunk_size=500)
        assert seen and set(seen) == {want}, (n_jobs, workers, seen)
        models.append(m.coef_.tobytes())
        seen.clear()
        evaluate_file(mbcore.Perceptron(n_jobs=n_jobs), path, workers=workers, chunk_size=500)
        assert seen and set(seen) == {want}
    seen.clear()
    train_file(mbcore.Perceptron(), path, workers=3, chunk_size=500, ahead=False)
    assert set(seen) == {4}                      # nothing reads ahead: every core
    assert len(set(models)) == 1
