"""The compiled svmlight / CSV readers against their twin, mbref.formats: the same rows, values
(bit for bit), labels, and the same error naming the same line; on_error="skip" skips and
counts exactly the bad lines."""

import contextlib
import gzip
import io
import os
import struct
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mbcore import _readers
from mbcore.datasets import load_csv, load_svmlight
from mbcore.streaming import iter_csv, iter_svmlight
from mbref.formats import parse_number, read_csv, read_svmlight

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.smoke, pytest.mark.checked, pytest.mark.sanitized]

DATA = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "mbcore", "datasets",
                    "data")


def _bits(values):
    # (text labels: as a NumPy str array holds them, without trailing NULs)
    return [struct.pack("<d", v) if isinstance(v, float) else v.rstrip("\x00") for v in values]


class OneLineAtATime:
    """A binary stream that delivers one line per read, as a pipe fed a line at a time does
    (``read1`` waits only for the next line)."""

    def __init__(self, data, name="<stream>"):
        self._lines = iter(data.splitlines(True))
        self.name = name

    def read1(self, n=-1):
        return next(self._lines, b"")

    read = read1


@contextlib.contextmanager
def small_blocks(block=16, group=40):
    """Tiny blocks and groups, so that small files cross many of both (and lines longer
    than a block occur)."""
    old = _readers.BLOCK, _readers.GROUP
    _readers.BLOCK, _readers.GROUP = block, group
    try:
        yield
    finally:
        _readers.BLOCK, _readers.GROUP = old


def _compiled_svm(path, n_features, zero_based, chunk_size=7, on_error="raise", mode="chunks",
                  labeled=True):
    """(labels, rows as [(col, value)], skipped, lines) from iter_svmlight in CSR chunks.  ``mode``:
    "chunks" (sequential), "parallel" (two threads, tiny groups) or "interactive" (the file's
    bytes delivered one line per read)."""
    kw = dict(chunk_size=chunk_size, n_features=n_features, zero_based=zero_based,
              on_error=on_error, lines=True, labeled=labeled)
    with contextlib.ExitStack() as stack:
        if mode == "parallel":
            stack.enter_context(small_blocks())
            reader = iter_svmlight(path, workers=2, **kw)
        elif mode == "interactive":
            with open(path, "rb") as f:
                data = f.read()
            reader = iter_svmlight(OneLineAtATime(data, path), interactive=True, **kw)
        else:
            reader = iter_svmlight(path, **kw)
        chunks = list(reader)
    labels, rows, lines = [], [], []
    for X, y, at in chunks:
        assert 0 < len(y) <= chunk_size and at.dtype == np.int64 and at.shape == y.shape
        labels += y.tolist()
        lines += at.tolist()
        for i in range(len(y)):
            a, b = X.indptr[i], X.indptr[i + 1]
            rows.append(list(zip(X.indices[a:b].tolist(), X.data[a:b].tolist())))
    return labels, rows, reader.skipped, lines


def _same_rows(a, b):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert [c for c, _ in ra] == [c for c, _ in rb]
        assert _bits([v for _, v in ra]) == _bits([v for _, v in rb])


def _check_svm(tmp_path, data, n_features=1000, zero_based=False, compress=False,
               labeled=True):
    path = str(tmp_path / ("f.svm.gz" if compress else "f.svm"))
    with open(path, "wb") as f:
        f.write(gzip.compress(data, mtime=0) if compress else data)
    modes = [(size, "chunks") for size in (1, 3, 1000)] + [(3, "parallel")]
    if not compress:
        modes.append((1000, "interactive"))
    try:
        want = read_svmlight(data, path, n_features=n_features, zero_based=zero_based,
                             labeled=labeled)
    except ValueError as e:
        for chunk_size, mode in modes:
            with pytest.raises(ValueError) as info:
                _compiled_svm(path, n_features, zero_based, chunk_size, mode=mode,
                              labeled=labeled)
            assert str(info.value) == str(e), mode
        return None
    for chunk_size, mode in modes:
        labels, rows, _, lines = _compiled_svm(path, n_features, zero_based, chunk_size,
                                               mode=mode, labeled=labeled)
        if not ((chunk_size < len(labels) or mode == "interactive") and
                any(v != v for v in labels) and any(isinstance(v, str) for v in want[0])):
            # (rows without a label before the first text label: NaN in the chunks yielded
            # before the labels' kind is known; interactive reading yields each line's rows
            # as soon as the line arrives, whatever chunk_size)
            assert _bits(labels) == _bits(want[0]), mode
        _same_rows(rows, want[1])
        assert lines == want[2], mode             # each row's line in the file
    return want


# -- numbers ------------------------------------------------------------------------------------

NUMBERS = [b"1", b"-1", b"+1", b"2.5", b"0", b"-0", b"1e5", b"1E-5", b".5", b"5.", b"1e308",
           b"1e309", b"1e-400", b"4.9406564584124654e-324", b"0.1", b"0.30000000000000004",
           b"123456789012345678901234567890", b"9007199254740993", b"1.7976931348623157e308",
           b"inf", b"-Infinity", b"nan", b"-NaN", b"0." + b"0" * 200 + b"1"]
NOT_NUMBERS = [b"", b"+", b"-", b".", b"e5", b"1e", b"1e+", b"1_0", b"0x10", b"1.2.3", b"in",
               b"nan(1)", b"1 ", b"\xd9\xa1", b"--1", b"1d5", b"infinit"]


def test_number_grammar_compiled_equals_twin():
    from mbcore._kernels.readers import parse_number as compiled
    for tok in NUMBERS:
        assert _bits([compiled(tok)]) == _bits([parse_number(tok)]) == _bits([float(tok)]), tok
    for tok in NOT_NUMBERS:
        assert compiled(tok) is None and parse_number(tok) is None, tok


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False), st.sampled_from(["r", ".17g", ".3e", ".0f", ".6f"]))
def test_numbers_round_like_float(x, fmt):
    from mbcore._kernels.readers import parse_number as compiled
    tok = (repr(x) if fmt == "r" else format(x, fmt)).encode()
    assert _bits([compiled(tok)]) == _bits([float(tok)])


# -- hypothesis files ---------------------------------------------------------------------------

_value = st.one_of(st.integers(-10**6, 10**6).map(str),
                   st.floats(allow_nan=False, allow_infinity=False).map(repr),
                   st.tuples(st.integers(-999, 999), st.integers(-30, 30)).map(
                       lambda t: f"{t[0]}e{t[1]}"),
                   st.sampled_from(["0.5", "-.25", "1.", "1E+2", "inf", "NaN"]))
_label = st.sampled_from(["1", "-1", "+1", "3", "2.5", "0", "-7e1"])
_space = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def _svm_text(draw):
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["row", "row", "row", "blank", "comment"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
            continue
        if kind == "comment":
            lines.append("# " + draw(st.text(alphabet="ab 1:2#", max_size=8)))
            continue
        idx = draw(st.lists(st.integers(1, 60), unique=True, max_size=6))
        toks = [draw(_label)]
        if draw(st.booleans()):
            toks.append(f"qid:{draw(st.integers(0, 99))}")
        toks += [f"{i}:{draw(_value)}" for i in idx]
        line = "".join(t + draw(_space) for t in toks).rstrip(" \t") if draw(st.booleans()) \
            else " ".join(toks)
        if draw(st.booleans()):
            line += " # " + draw(st.text(alphabet="xyz :1", max_size=6))
        lines.append(line)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from(["", end]))).encode()


@settings(max_examples=150, deadline=None)
@given(_svm_text())
def test_svmlight_parity_on_generated_files(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("svm")
    try:
        _check_svm(tmp, data)
    except ValueError as e:           # no data rows: both say so
        assert "holds no data rows" in str(e)


def test_svmlight_parity_on_bundled_mushrooms(tmp_path):
    data = gzip.decompress(open(os.path.join(DATA, "mushrooms.svm.gz"), "rb").read())
    want = _check_svm(tmp_path, data, n_features=112, zero_based=False, compress=True)
    assert len(want[0]) == 8124
    X, y = load_svmlight(str(tmp_path / "f.svm.gz"))
    assert X.shape == (8124, 112) and y.tolist() == want[0]


# -- malformed lines ----------------------------------------------------------------------------

SVM_BAD = [
    (b"+1 1:1\nx 2:1\n", 2, "the label 'x' is not a number"),
    (b"+1 1:1\n-1 2:\n", 2, "expected idx:value, got '2:'"),
    (b"+1 1:1\n-1 :5\n", 2, "expected idx:value, got ':5'"),
    (b"+1 1:1\n-1 -3:5\n", 2, "the index in '-3:5' is not a non-negative integer"),
    (b"+1 1:1\n-1 4:1 4:2\n", 2, "column 3 (counting from 0) appears more than once"),
    (b"+1 1:1\n-1 4:1x\n", 2, "the value '1x' is not a number"),
    (b"+1 1:1\n-1 qid:a 4:1\n", 2, "the qid in 'qid:a' is not an integer"),
    (b"+1 1:1\r\n\r\n-1 0:1\r\n", 3, "has index 0 but zero_based=False"),
    (b"+1 1:1\n-1 2000:1\n", 2, "uses column 1999 (counting from 0) but n_features=1000"),
    (b"+1 1:1\n-1 2:\xff\n", 2, "not UTF-8 text"),
]


@pytest.mark.parametrize("data, line, reason", SVM_BAD)
def test_svmlight_malformed_lines(tmp_path, data, line, reason):
    path = str(tmp_path / "f.svm")
    with pytest.raises(ValueError) as info:
        read_svmlight(data, path, n_features=1000, zero_based=False)
    assert str(info.value).startswith(f"iter_svmlight: {path}, line {line}: {reason}")
    _check_svm(tmp_path, data)                       # the compiled reader: the same message
    # skip: exactly the bad line goes, and is counted
    good = b"".join(x for i, x in enumerate(data.splitlines(True), 1) if i != line)
    want = read_svmlight(good, path, n_features=1000, zero_based=False)
    for mode in ("chunks", "parallel", "interactive"):
        labels, rows, skipped, lines = _compiled_svm(path, 1000, False, on_error="skip",
                                                     mode=mode)
        assert skipped == 1 and labels == want[0], mode
        assert lines == [n for n in want[2] if n < line] + [n + 1 for n in want[2] if n >= line]
        _same_rows(rows, want[1])
    assert read_svmlight(data, path, n_features=1000, zero_based=False,
                         on_error="skip")[3] == 1


def test_nothing_from_the_chunk_with_the_bad_line_is_yielded(tmp_path):
    path = str(tmp_path / "f.svm")
    with open(path, "wb") as f:
        f.write(b"+1 1:1\n-1 2:1\n+1 3:1\n-1 4:x\n")
    got = []
    with pytest.raises(ValueError, match="line 4"):
        for X, y in iter_svmlight(path, chunk_size=2, n_features=5, zero_based=False):
            got.append(len(y))
    assert got == [2]


def _svm_lines(n, bad=None):
    out = []
    for i in range(1, n + 1):
        value = "x" if i == bad else f"{i % 7 + 0.5}"
        out.append(f"{(-1) ** i} {i % 50 + 1}:{value} {i % 50 + 60}:1\n")
    return "".join(out).encode()


def test_parallel_reader_over_many_groups(tmp_path):
    """Two and three threads over a file of many groups: the rows and their order of the
    sequential reader; chunks of at most chunk_size rows; an error names the right line and
    nothing after the groups before it is yielded; skipped lines are counted across groups."""
    path = str(tmp_path / "g.svm")
    with open(path, "wb") as f:
        f.write(_svm_lines(3000))
    want = _compiled_svm(path, 200, False, chunk_size=1000)
    with small_blocks(block=512, group=2000):
        for workers in (2, 3):
            got = _compiled_svm(path, 200, False, chunk_size=50, mode="chunks")
            assert got[0] == want[0]
            reader = iter_svmlight(path, chunk_size=50, n_features=200, zero_based=False,
                                   workers=workers)
            chunks = list(reader)
            assert len(chunks) > 20 and all(len(y) <= 50 for _, y in chunks)
            assert sum((y.tolist() for _, y in chunks), []) == want[0]
            assert reader.rows == 3000
    with open(path, "wb") as f:
        f.write(_svm_lines(3000, bad=2345))
    with small_blocks(block=512, group=2000):
        seen = 0
        with pytest.raises(ValueError, match=r"line 2345: the value 'x' is not a number"):
            for _, y in iter_svmlight(path, chunk_size=50, n_features=200, zero_based=False,
                                      workers=2):
                seen += len(y)
        assert seen < 2345
        reader = iter_svmlight(path, chunk_size=50, n_features=200, zero_based=False,
                               workers=2, on_error="skip")
        assert sum(len(y) for _, y in reader) == 2999
        assert reader.skipped == 1 and reader.first_skipped_line == 2345


def test_parallel_reader_stops_its_threads_when_the_caller_stops(tmp_path):
    path = str(tmp_path / "g.svm")
    with open(path, "wb") as f:
        f.write(_svm_lines(5000))
    before = threading.active_count()
    with small_blocks(block=512, group=2000):
        reader = iter_svmlight(path, chunk_size=10, n_features=200, zero_based=False, workers=2)
        next(reader)
        reader.close()
    assert threading.active_count() == before
    for bad in (0, 1.5, True, 1000):
        with pytest.raises(ValueError, match="parameter workers must be an integer"):
            iter_svmlight(path, n_features=200, zero_based=False, workers=bad)
    with pytest.raises(ValueError, match="interactive=True reads one arrival"):
        iter_svmlight(path, n_features=200, zero_based=False, workers=2, interactive=True)


def test_interactive_reading_yields_each_arrival_without_waiting(tmp_path):
    """A pipe written a line at a time: each line's row comes out before the next line is
    written (the reader never waits for a full block)."""
    r, w = os.pipe()
    out = []
    with open(r, "rb") as source, open(w, "wb", buffering=0) as sink:
        reader = iter_svmlight(source, n_features=5, zero_based=False, interactive=True)
        for i, line in enumerate([b"+1 1:1\n", b"-1 2:1 3:4\n", b"+1 5:2\n"]):
            sink.write(line)
            X, y = next(reader)              # would block forever if the reader waited
            out.append((y.tolist(), X.toarray().tolist()))
    assert out == [([1.0], [[1, 0, 0, 0, 0]]), ([-1.0], [[0, 1, 4, 0, 0]]),
                   ([1.0], [[0, 0, 0, 0, 2]])]


def test_a_binary_file_object_in_one_pass(tmp_path):
    data = b"+1 1:1 3:2\n-1 2:0.5\n"
    blob = gzip.compress(data)
    for raw in (data, blob):
        chunks = list(iter_svmlight(io.BytesIO(raw), n_features=3, zero_based=False))
        assert chunks[0][0].toarray().tolist() == [[1, 0, 2], [0, 0.5, 0]]
    with pytest.raises(ValueError, match="not a regular file"):
        iter_svmlight(io.BytesIO(data))
    with pytest.raises(ValueError, match="on_error must be"):
        iter_svmlight(io.BytesIO(data), n_features=3, zero_based=False, on_error="ignore")


# -- CSV ----------------------------------------------------------------------------------------

def _compiled_csv(path, chunk_size=10**6, on_error="raise", **kw):
    reader = iter_csv(path, chunk_size=chunk_size, on_error=on_error, **kw)
    X, y = [], []
    for a, b in reader:
        X += a.tolist()
        y += b.tolist()
    return X, y, reader.skipped


@st.composite
def _csv_text(draw):
    n = draw(st.integers(2, 5))
    lines = []
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from(["", "# note", "  "])))
            continue
        cells = [draw(_value) for _ in range(n - 1)] + [draw(_label)]
        lines.append(",".join(draw(st.sampled_from(["", " "])) + c for c in cells))
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=100, deadline=None)
@given(_csv_text())
def test_csv_parity_on_generated_files(tmp_path_factory, data):
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    with open(path, "wb") as f:
        f.write(data)
    try:
        X, y, _ = read_csv(data, path)
    except ValueError as e:
        with pytest.raises(ValueError) as info:
            _compiled_csv(path)
        assert str(info.value) == str(e)
        return
    if not X:
        return
    Xc, yc, _ = _compiled_csv(path, chunk_size=3)
    assert _bits(sum(Xc, [])) == _bits(sum(X, [])) and _bits(yc) == _bits(y)
    # read as it arrives, a line at a time: the rows of one-row chunks
    try:
        Xi, yi, _ = _compiled_csv(OneLineAtATime(data, path), interactive=True)
    except ValueError as e:              # the label kind is decided by the first chunk
        with pytest.raises(ValueError) as info:
            _compiled_csv(path, chunk_size=1)
        assert str(info.value) == str(e)
    else:
        assert _bits(sum(Xi, [])) == _bits(sum(X, [])) and _bits(yi) == _bits(y)
    Xl, yl = load_csv(path)
    assert _bits(Xl.ravel().tolist()) == _bits(sum(X, []))


CSV_BAD = [
    (b"1,2,0\n3,x,1\n", 2, "line 2, column 1 (counting from 0) holds 'x', which is not a number"),
    (b"1,2,0\n3,4\n", 2, "line 2: 2 columns, but line 1 has 3"),
    (b"1,2,0\n3,4, \n", 2, "line 2: the label field is empty"),
]


@pytest.mark.parametrize("data, line, reason", CSV_BAD)
def test_csv_malformed_lines(tmp_path, data, line, reason):
    path = str(tmp_path / "f.csv")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(ValueError) as want:
        read_csv(data, path)
    assert reason in str(want.value)
    with pytest.raises(ValueError) as got:
        _compiled_csv(path)
    assert str(got.value) == str(want.value)
    X, y, skipped = _compiled_csv(path, on_error="skip")
    assert skipped == 1 and (X, y) == read_csv(data, path, on_error="skip")[:2] == \
        ([[1.0, 2.0]], [0.0])


def test_csv_string_labels_and_header(tmp_path):
    data = b"a;b;class\n1;2; yes\n3;4;no\n"
    path = str(tmp_path / "s.csv")
    with open(path, "wb") as f:
        f.write(data)
    want = read_csv(data, path, delimiter=";", skip_header=True, label_column=2)
    X, y = load_csv(path, delimiter=";", skip_header=True, label_column=2)
    assert X.tolist() == want[0] and y.tolist() == want[1] == ["yes", "no"]


# -- fuzz: random bytes from the format's alphabet, every reading mode against the twin --------

_SVM_ALPHABET = b"0123456789:+-. \t\n\r#eEqidnaf\x00\xff"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list(_SVM_ALPHABET)), max_size=120).map(bytes))
def test_svmlight_fuzz_every_mode_agrees_with_the_twin(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("fuzz")
    for labeled in (True, "auto"):
        try:
            _check_svm(tmp, data, n_features=50, labeled=labeled)
        except ValueError as e:           # no data rows: both say so
            assert "holds no data rows" in str(e)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=50),
       st.lists(st.binary(max_size=5), min_size=4, max_size=4))
def test_join_labels_is_the_python_join(codes, texts):
    from mbcore._kernels.readers import join_labels
    a = np.array(codes, dtype=np.int64)
    assert join_labels(a, texts) == b"".join(texts[k] + b"\n" for k in codes)
    with pytest.raises(ValueError, match="not in"):
        join_labels(np.array([0, 4], dtype=np.int64), texts)
    with pytest.raises(ValueError, match="not in"):
        join_labels(np.array([-1], dtype=np.int64), texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=24),
       st.integers(1, 3))
def test_join_scores_is_repr(values, width):
    from mbcore._kernels.readers import join_scores
    values = values[:len(values) // width * width]
    a = np.array(values, dtype=np.float64).reshape(-1, width)
    want = b"".join((" ".join(repr(float(v)) for v in row) + "\n").encode() for row in a)
    assert join_scores(a) == want
    assert [float(t) for t in join_scores(a).split()] == \
        [v if v == v else pytest.approx(float("nan"), nan_ok=True) for v in a.ravel().tolist()]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40).map(lambda b: b.replace(b"x", b"\n")), st.data())
def test_last_line_end(data, draw):
    from mbcore._kernels.readers import last_line_end
    end = draw.draw(st.integers(0, len(data)))
    head = data[:end]
    # the position after the last \n, else after the last \r that is not the final byte, else 0
    want = head.rfind(b"\n") + 1 or head.rfind(b"\r", 0, max(end - 1, 0)) + 1
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(0, dtype=np.uint8)
    assert last_line_end(buf, 0, end) == want
    with pytest.raises(ValueError):
        last_line_end(buf, 0, len(data) + 1)


@settings(max_examples=150, deadline=None)
@given(_svm_text())
def test_svmlight_width_found_by_the_first_pass(tmp_path_factory, data):
    """Without n_features and with zero_based="auto", the first pass finds the largest index and
    whether index 0 occurs, as the whole file says (the twin's rows)."""
    path = str(tmp_path_factory.mktemp("scan") / "f.svm")
    with open(path, "wb") as f:
        f.write(data)
    try:
        labels, rows, _, _ = read_svmlight(data, path, n_features=None, zero_based=True)
    except ValueError:
        return
    cols = [c for row in rows for c, _ in row]
    if not rows:
        return
    zero_based = bool(cols) and min(cols) == 0
    shift = 0 if zero_based or not cols else 1
    width = (max(cols) + 1 if zero_based else max(cols)) if cols else 0
    got_labels, got_rows = [], []
    for X, y in iter_svmlight(path, chunk_size=5):
        assert X.shape[1] == width
        got_labels += y.tolist()
        for i in range(len(y)):
            a, b = X.indptr[i], X.indptr[i + 1]
            got_rows.append(list(zip(X.indices[a:b].tolist(), X.data[a:b].tolist())))
    assert _bits(got_labels) == _bits(labels)
    _same_rows(got_rows, [[(c - shift, v) for c, v in row] for row in rows])


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_width_scan_in_parallel_ranges(tmp_path, monkeypatch, end):
    """The first pass over a file of many blocks, cut into ranges scanned by threads: the same
    width as one scan, and an over-long index named at its line in the whole file."""
    monkeypatch.setattr(_readers, "BLOCK", 16)
    lines = [f"{(-1) ** i} {i % 37 + 2}:1 {i % 11 + 40}:0.5".encode() for i in range(400)]
    lines[123] = b"+1 0:1 3:1"
    lines[377] = b"-1 5:1 99:2 # 777:1 in a comment"
    path = tmp_path / "w.svm"
    path.write_bytes(end.join(lines) + end)
    assert _readers._range_cuts(str(path), 3) is not None       # the parallel path is taken
    for workers in (1, 2, 3, 4):
        assert _readers.svmlight_scan_file(str(path), "o", "w", workers) == (0, 99)
    lines[301] = b"+1 1234567890123456789:1"
    path.write_bytes(end.join(lines) + end)
    for workers in (1, 3):
        with pytest.raises(ValueError, match=r"w, line 302: an index has more than 18 digits"):
            _readers.svmlight_scan_file(str(path), "o", "w", workers)
    gz = tmp_path / "w.svm.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert _readers._range_cuts(str(gz), 3) is None               # gzip: one sequential scan


# -- issue 36: each row's line, the zero-based declaration, text labels, rows without a label,
#    the CSV header sniffed --------------------------------------------------------------------

def _write_bytes(path, data, compress=False):
    with open(path, "wb") as f:
        f.write(gzip.compress(data, mtime=0) if compress else data)
    return str(path)


def _rows_lines(chunks):
    """(dense rows, labels, lines) of (X, y, lines) chunks, checking each chunk's shapes."""
    X, y, lines = [], [], []
    for item in chunks:
        assert len(item) == 3
        a, b, at = item
        assert at.dtype == np.int64 and at.shape == (len(b),) == (a.shape[0],)
        X += (a.toarray() if hasattr(a, "toarray") else a).tolist()
        y += b.tolist()
        lines += at.tolist()
    return X, y, lines


SVM_WITH_LINES = (b"# written by hand\n\n+1 1:1 3:2\n-1 2:1 # tail\r\n\r\n+1 1:x\n"
                  b"-1 3:1\n+1 2:2\n")


def test_svmlight_lines_name_each_row_in_every_reading_mode(tmp_path):
    path = _write_bytes(tmp_path / "l.svm", SVM_WITH_LINES)
    gz = _write_bytes(tmp_path / "l.svm.gz", SVM_WITH_LINES, compress=True)
    want = read_svmlight(SVM_WITH_LINES, path, n_features=3, zero_based=False, on_error="skip")
    assert want[2] == [3, 4, 7, 8]      # line 6 is skipped; comments and blank lines count
    kw = dict(n_features=3, zero_based=False, on_error="skip", lines=True)
    readings = {f"chunk_size={c}": lambda c=c: iter_svmlight(path, chunk_size=c, **kw)
                for c in (1, 2, 100)}
    readings["dense"] = lambda: iter_svmlight(path, chunk_size=3, dense=True, **kw)
    readings["gzip"] = lambda: iter_svmlight(gz, chunk_size=3, **kw)
    readings["first pass"] = lambda: iter_svmlight(path, chunk_size=3, on_error="skip",
                                                   lines=True)
    readings["grow"] = lambda: iter_svmlight(path, chunk_size=3, grow=True, zero_based=False,
                                             on_error="skip", lines=True)
    readings["interactive"] = lambda: iter_svmlight(OneLineAtATime(SVM_WITH_LINES, path),
                                                    interactive=True, **kw)
    readings["file object"] = lambda: iter_svmlight(io.BytesIO(SVM_WITH_LINES), **kw)
    for label, make in readings.items():
        X, y, lines = _rows_lines(make())
        assert lines == want[2] and y == want[0], label
    with small_blocks():
        for grow in (False, True):
            extra = dict(grow=True) if grow else dict(n_features=3)
            chunks = iter_svmlight(path, chunk_size=2, zero_based=False, on_error="skip",
                                   lines=True, workers=2, **extra)
            assert _rows_lines(chunks)[2] == want[2], grow
    # lines=False: the chunks are (X, y), as before
    assert all(len(item) == 2 for item in iter_svmlight(path, chunk_size=2, on_error="skip",
                                                        n_features=3, zero_based=False))


def test_parallel_lines_over_many_groups(tmp_path):
    text = b"".join(b"# c\n" + f"{(-1) ** i} {i % 9 + 1}:1\n".encode() for i in range(600))
    path = _write_bytes(tmp_path / "g.svm", text)
    with small_blocks(block=64, group=300):
        chunks = iter_svmlight(path, chunk_size=7, n_features=9, zero_based=False, workers=3,
                               lines=True)
        assert _rows_lines(chunks)[2] == list(range(2, 1201, 2))


def test_csv_and_vw_lines(tmp_path):
    from mbcore.streaming import iter_vw, read_chunks
    from mbref.vw import read_vw
    data = b"a,b,label\n# note\n1,2,0\n\n3,4,1\r\n5,x,0\n6,7,1\n"
    path = _write_bytes(tmp_path / "l.csv", data)
    want = read_csv(data, path, on_error="skip", with_lines=True)
    assert want[3] == [3, 5, 7]         # the header, the comment, the blank and bad lines count
    for make in (lambda: iter_csv(path, chunk_size=1, on_error="skip", lines=True),
                 lambda: iter_csv(_write_bytes(tmp_path / "l.csv.gz", data, True),
                                  on_error="skip", lines=True),
                 lambda: iter_csv(OneLineAtATime(data, path), interactive=True, on_error="skip",
                                  lines=True),
                 lambda: read_chunks(path, "csv", chunk_size=2, on_error="skip", lines=True)):
        X, y, lines = _rows_lines(make())
        assert (X, y, lines) == (want[0], want[1], want[3])
    vw = b"1 |a x\n\n-1 2.0 |a y z\n1 |a\n"
    vpath = _write_bytes(tmp_path / "l.vw", vw)
    vwant = read_vw(vw, vpath)
    assert vwant[3] == [1, 3, 4]
    for chunk_size in (1, 10):
        got = list(iter_vw(vpath, chunk_size=chunk_size, lines=True, sample_weight=True))
        assert all(len(item) == 4 for item in got)
        assert sum((item[3].tolist() for item in got), []) == vwant[3]
    got = list(read_chunks(vpath, "vw", lines=True))
    assert sum((item[2].tolist() for item in got), []) == vwant[3]


def _digits_like(n=40, d=8, seed=0):
    """Rows whose first column is always 0 (as digits' pixel 0): nothing in the data shows that
    the file is zero-based."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    X[:, 0] = 0
    X[0, -1] = 1
    return X, rng.integers(0, 2, size=n).astype(float)


def _dense_rows(chunks):
    return np.vstack([X.toarray() if hasattr(X, "toarray") else X for X, *_ in chunks])


def test_sklearn_declared_zero_based_file_is_read_zero_based(tmp_path):
    dump_svmlight_file = pytest.importorskip("sklearn.datasets").dump_svmlight_file
    X, y = _digits_like()
    path = str(tmp_path / "d.svm")
    dump_svmlight_file(X, y, path, zero_based=True, comment="digits-like")
    with open(path, "rb") as f:
        data = f.read()
    gz = _write_bytes(tmp_path / "d.svm.gz", data, compress=True)
    assert _readers.declared_zero_based(path) is True
    assert _readers.declared_zero_based(gz) is True
    Xl, yl = load_svmlight(path)
    assert Xl.shape == X.shape and np.array_equal(Xl, X) and np.array_equal(yl, y)
    for source in (path, gz):
        for kw in (dict(), dict(zero_based=None), dict(zero_based="auto", n_features=8),
                   dict(grow=True), dict(grow=True, zero_based=None)):
            got = _dense_rows(iter_svmlight(source, chunk_size=7, **kw))
            assert np.array_equal(got, X), (source, kw)
    with small_blocks():
        assert np.array_equal(_dense_rows(iter_svmlight(path, chunk_size=7, workers=2)), X)
    # the twin: the same rule
    labels, rows, _, _ = read_svmlight(data, path, zero_based=None)
    assert [[c for c, _ in r] for r in rows] == [np.flatnonzero(x).tolist() for x in X]
    # a one-based file that says so is read one-based, "auto" included
    one = str(tmp_path / "o.svm")
    dump_svmlight_file(X, y, one, zero_based=False, comment="one-based")
    assert _readers.declared_zero_based(one) is False
    for zb in ("auto", None):
        got = _dense_rows(iter_svmlight(one, zero_based=zb, n_features=8))
        assert np.array_equal(got, X)
    # scikit-learn writes the declaration only with a comment: without it, nothing is declared
    plain = str(tmp_path / "p.svm")
    dump_svmlight_file(X, y, plain, zero_based=True)
    assert _readers.declared_zero_based(plain) is None


def test_declaration_of_a_pipe_is_peeked_without_consuming_it(tmp_path):
    dump_svmlight_file = pytest.importorskip("sklearn.datasets").dump_svmlight_file
    X, y = _digits_like(seed=1)
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=True, comment="through a pipe")
    data = buf.getvalue()
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, data), os.close(w)))
    writer.start()
    try:
        with os.fdopen(r, "rb") as f:
            assert _readers.declared_zero_based(f) is True
            got = _dense_rows(iter_svmlight(f, n_features=8, zero_based=None))
    finally:
        writer.join(10)
    assert np.array_equal(got, X)
    # gzip data peeked
    packed = io.BufferedReader(io.BytesIO(gzip.compress(data)))
    assert _readers.declared_zero_based(packed) is True
    assert packed.read() == gzip.compress(data)           # nothing consumed
    assert _readers.declared_zero_based(OneLineAtATime(data)) is None     # no peek: cannot tell
    seekable = io.BytesIO(data)
    assert _readers.declared_zero_based(seekable) is True and seekable.tell() == 0


def test_index_zero_read_one_based_names_the_line_and_the_option(tmp_path):
    import mbcore._messages as messages
    data = b"# no declaration\n1 1:1\n-1 0:2 3:1\n"
    path = _write_bytes(tmp_path / "z.svm", data)
    for kw in (dict(zero_based=None, n_features=4), dict(zero_based=None),
               dict(grow=True, zero_based=None)):
        with pytest.raises(ValueError, match=r"z\.svm, line 3: has index 0, but the indices are "
                                             r"read one-based .*pass zero_based=True") as info:
            list(iter_svmlight(path, **kw))
        with pytest.raises(ValueError) as twin:
            read_svmlight(data, path, zero_based=None)
        if "grow" not in kw:
            assert str(info.value) == str(twin.value)
        with messages.command_line(), pytest.raises(ValueError, match="pass --zero-based"):
            list(iter_svmlight(path, **kw))
    with pytest.raises(ValueError, match="line 3: has index 0"):
        load_svmlight(path, zero_based=None)


TEXT_LABELS = b"zero 1:1\n# c\none 2:1 3:1\nzero 3:2\n"


def test_svmlight_text_labels(tmp_path):
    path = _write_bytes(tmp_path / "t.svm", TEXT_LABELS)
    want = read_svmlight(TEXT_LABELS, path, n_features=3, zero_based=False)
    assert want[0] == ["zero", "one", "zero"]
    for kw in (dict(chunk_size=1), dict(chunk_size=100), dict(dense=True),
               dict(grow=True, n_features=None)):
        kw = dict(dict(n_features=3, zero_based=False), **kw)
        chunks = list(iter_svmlight(path, **kw))
        assert all(y.dtype.kind == "U" for _, y in chunks)
        assert sum((y.tolist() for _, y in chunks), []) == want[0]
    assert _compiled_svm(path, 3, False, mode="interactive")[0] == want[0]
    assert _compiled_svm(path, 3, False, mode="parallel")[0] == want[0]
    X, y = load_svmlight(path)
    assert y.tolist() == want[0] and X.shape == (3, 3)


@pytest.mark.parametrize("data, line, reason", [
    (b"zero 1:1\n\n1 2:1\n", 3, "the label '1' is a number, but the labels are text (the first, "
                               "line 1, is not a number)"),
    (b"1 1:1\nzero 2:1\n", 2, "the label 'zero' is not a number, but the labels are numbers (the "
                              "first, line 2, is one)".replace("line 2", "line 1")),
])
def test_svmlight_labels_of_the_other_kind_name_their_line(tmp_path, data, line, reason):
    path = _write_bytes(tmp_path / "k.svm", data)
    with pytest.raises(ValueError) as want:
        read_svmlight(data, path, n_features=3, zero_based=False)
    assert str(want.value) == f"iter_svmlight: {path}, line {line}: {reason}: the labels of a " \
                              "file are all numbers or all text"
    _check_svm(tmp_path, data, n_features=3)        # every reading mode: the same message
    got = _compiled_svm(path, 3, False, on_error="skip")
    assert got[2] == 1 and len(got[0]) == 1


def test_text_labels_in_parallel_groups_that_decide_alone(tmp_path):
    """Groups parsed before the stream's label kind is known decide it alone; a group whose
    first label is of the other kind is parsed again with the stream's: the rows, errors and
    skipped lines of the sequential reader."""
    lines = [f"{'ab'[i % 2]}{i % 3} {i % 5 + 1}:1\n" for i in range(400)]
    for bad in (None, 150, 0):
        text = list(lines)
        if bad is not None:
            text[bad] = "7 1:1\n"                       # a number among text labels
        data = "".join(text).encode()
        path = _write_bytes(tmp_path / "p.svm", data)
        for on_error in ("raise", "skip"):
            try:
                want = _compiled_svm(path, 5, False, chunk_size=1000, on_error=on_error)
            except ValueError as e:
                with small_blocks(block=64, group=200), pytest.raises(ValueError) as info:
                    _compiled_svm(path, 5, False, chunk_size=9, on_error=on_error,
                                  mode="parallel")
                assert str(info.value) == str(e)
                continue
            with small_blocks(block=64, group=200):
                got = _compiled_svm(path, 5, False, chunk_size=9, on_error=on_error,
                                    mode="parallel")
            assert got[0] == want[0] and got[2] == want[2] and got[3] == want[3]


def test_rows_without_a_label(tmp_path):
    import mbcore._messages as messages
    dump_svmlight_file = pytest.importorskip("sklearn.datasets").dump_svmlight_file
    X, y = _digits_like(seed=2)
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=True)
    # the same rows without their labels, as a file to predict
    data = b"".join(line.split(b" ", 1)[1] for line in buf.getvalue().splitlines(True))
    path = _write_bytes(tmp_path / "u.svm", data)
    with pytest.raises(ValueError, match=r"line 1: starts with '.*', a feature, not a label; "
                                         r"every line needs a label here \(pass labeled='auto'"):
        list(iter_svmlight(path, zero_based=True, n_features=8))
    with messages.command_line(), pytest.raises(ValueError, match="mbcore predict reads rows"):
        list(iter_svmlight(path, zero_based=True, n_features=8))
    for kw in (dict(n_features=8), dict(grow=True), dict(n_features=8, dense=True)):
        chunks = list(iter_svmlight(path, zero_based=True, labeled="auto", chunk_size=7, **kw))
        got = _dense_rows(chunks)
        assert np.array_equal(got[:, :X.shape[1]], X)
        assert all(y.dtype == np.float64 and np.isnan(y).all() for _, y in chunks)
    # labelled and unlabelled rows mixed; text labels: '' for a row without one
    mixed = b"1 1:1\n2:1\n-1 3:1\n"
    mpath = _write_bytes(tmp_path / "m.svm", mixed)
    _check_svm(tmp_path, mixed, n_features=3, labeled="auto")
    (_, ym), = iter_svmlight(mpath, labeled="auto", n_features=3, zero_based=False)
    assert np.isnan(ym[1]) and ym[[0, 2]].tolist() == [1.0, -1.0]
    words = b"yes 1:1\n2:1\nno 3:1\n"
    _check_svm(tmp_path, words, n_features=3, labeled="auto")
    (_, yw), = iter_svmlight(_write_bytes(tmp_path / "w.svm", words), labeled="auto",
                             n_features=3, zero_based=False)
    assert yw.tolist() == ["yes", "", "no"]
    with pytest.raises(ValueError, match="labeled must be True or 'auto'"):
        iter_svmlight(mpath, labeled=False)
    Xl, yl = load_svmlight(path, zero_based=True, labeled="auto")
    assert np.array_equal(Xl[:, :X.shape[1]], X) and np.isnan(yl).all()
    with pytest.raises(ValueError, match=r"load_svmlight: .*line 1: starts with '.*', a feature"):
        load_svmlight(path, zero_based=True)


def test_csv_without_a_label_column(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.normal(size=(25, 4)).round(3), columns=list("abcd"))
    path = str(tmp_path / "x.csv")
    df.to_csv(path, index=False)                  # a header, no label
    with open(path, "rb") as f:
        data = f.read()
    for chunk_size in (4, 100):
        X, y, lines = _rows_lines(iter_csv(path, chunk_size=chunk_size, label_column=None,
                                           lines=True))
        assert np.array_equal(np.array(X), df.to_numpy()) and np.isnan(y).all()
        assert lines == list(range(2, 27))
    Xl, yl = load_csv(path, label_column=None)
    assert np.array_equal(Xl, df.to_numpy()) and yl.shape == (25,) and np.isnan(yl).all()
    want = read_csv(data, path, label_column=None)
    assert want[0] == df.to_numpy().tolist() and all(v != v for v in want[1])
    # a single column is a file of one feature
    one = _write_bytes(tmp_path / "one.csv", b"1.5\n2\n")
    (X1, y1), = iter_csv(one, label_column=None)
    assert X1.tolist() == [[1.5], [2.0]] and np.isnan(y1).all()


def _pandas_label_first(tmp_path, words=False):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.normal(size=(30, 3)).round(4), columns=["mean radius", "x", "y"])
    labels = rng.integers(0, 2, 30)
    df.insert(0, "label", np.where(labels, "benign", "malignant") if words else labels)
    path = str(tmp_path / ("s.csv" if words else "n.csv"))
    df.to_csv(path, index=False)
    return path, df


def test_csv_header_is_sniffed(tmp_path):
    import mbcore._messages as messages
    for words in (False, True):
        path, df = _pandas_label_first(tmp_path, words)
        with open(path, "rb") as f:
            data = f.read()
        X, y, lines = _rows_lines(iter_csv(path, label_column=0, chunk_size=8, lines=True))
        assert np.array_equal(np.array(X), df.iloc[:, 1:].to_numpy())
        assert y == df["label"].tolist() and lines == list(range(2, 32))
        Xl, yl = load_csv(path, label_column=0)
        assert np.array_equal(Xl, df.iloc[:, 1:].to_numpy()) and yl.tolist() == y
        want = read_csv(data, path, label_column=0)
        assert want[0] == X and want[1] == y
        # one line at a time: the first line alone decides (after comments and blank lines)
        Xi, yi, _ = _compiled_csv(OneLineAtATime(data, path), interactive=True, label_column=0)
        assert Xi == X and yi == y
        late = b"# from a pipe\n\n" + data
        got = list(iter_csv(OneLineAtATime(late, path), interactive=True, label_column=0,
                            lines=True))
        assert _rows_lines(got) == (X, y, list(range(4, 34)))
    # the label column wrong: the message names the CSV options, as the caller spells them
    path, _ = _pandas_label_first(tmp_path, words=True)
    with pytest.raises(ValueError, match=r"line 2, column 0 \(counting from 0\) holds "
                                         r"'(benign|malignant)'.*\(if column 0 holds the labels, "
                                         r"pass label_column=0\)$"):
        list(iter_csv(path))
    with messages.command_line(), \
            pytest.raises(ValueError, match=r"pass --label-column 0\)"):
        list(iter_csv(path))
    bad = b"a,b,c\nx,y,0\n"                          # not a header: the next line is text too
    bpath = _write_bytes(tmp_path / "b.csv", bad)
    with messages.command_line(), \
            pytest.raises(ValueError, match=r"line 1, column 0 .*pass --label-column 0; if "
                                            r"the first line is a header, pass --skip-header\)"):
        list(iter_csv(bpath))
    with pytest.raises(ValueError) as twin:
        read_csv(bad, bpath)
    with pytest.raises(ValueError) as got:
        list(iter_csv(bpath))
    assert str(got.value) == str(twin.value)


@pytest.mark.parametrize("data, rows, delimiter", [
    (b"1,2,0\n3,4,1\n", 2, ","),                # numbers: no header
    (b"a,b,label\n1,2,yes\n", 1, ","),          # a header holding the label column's name
    (b"\n# c\nf1,f2,y\n1,2,0\n3,4,1\n", 2, ","),  # after a comment and a blank line
    (b"a,b,c\n", 0, ","),                       # a header alone: no data rows
    (b"1,b,c\n1,2,0\n", 1, ","),                # one field of text is enough
    (b"label,a,b\nyes,1,2\nno,3,4\n", 2, ","),   # the labels first, not said: see below
    (b"a b c\n1 2 0\n", 1, None),               # whitespace-delimited
])
def test_csv_header_sniffing_agrees_with_the_twin(tmp_path, data, rows, delimiter):
    path = _write_bytes(tmp_path / "h.csv", data)
    column = 0 if data.startswith(b"label") else -1
    want = read_csv(data, path, delimiter=delimiter, label_column=column)
    assert len(want[0]) == rows
    if not rows:
        with pytest.raises(ValueError, match="holds no data rows"):
            list(iter_csv(path, delimiter=delimiter))
        return
    if data.startswith(b"label"):                   # the header skipped; then column 0 is text
        with pytest.raises(ValueError) as twin:
            read_csv(data, path, delimiter=delimiter, label_column=-1)
        with pytest.raises(ValueError, match=r"line 2, column 0 .* holds 'yes'.*\(if column 0 "
                                             r"holds the labels, pass label_column=0\)$") as got:
            list(iter_csv(path, delimiter=delimiter))
        assert str(got.value) == str(twin.value)
    X, y, _ = _compiled_csv(path, delimiter=delimiter, label_column=column)
    assert (X, y) == want[:2]
    X2, y2 = load_csv(path, delimiter=delimiter, label_column=column)
    assert X2.tolist() == X and y2.tolist() == y
    # skip_header=False keeps the old reading: a header is an error naming line 1
    if rows == 1 and data.startswith(b"a"):
        with pytest.raises(ValueError, match="skip_header=True"):
            list(iter_csv(path, delimiter=delimiter, skip_header=False))


def test_pandas_integer_column_names_are_a_header(tmp_path):
    """pandas' to_csv of a frame built from an array writes "0,1,...,label": only the label is
    text, over numeric labels, so it is the header (before, the line was read as a row with a
    third, text label); a text label over text labels stays a row."""
    pd = pytest.importorskip("pandas")
    X = np.array([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]])
    df = pd.DataFrame(X)
    df["label"] = [1, -1, 1]
    path = tmp_path / "a.csv"
    df.to_csv(path, index=False)
    data = path.read_bytes()
    assert data.startswith(b"0,1,label\n")
    Xl, yl = load_csv(str(path))
    assert np.array_equal(Xl.toarray() if hasattr(Xl, "toarray") else Xl, X)
    assert list(yl) == [1, -1, 1]
    Xr, yr, _ = read_csv(data, str(path))
    assert Xr == X.tolist() and yr == [1, -1, 1]
    chunks = list(iter_csv(str(path)))
    assert sum(len(y) for _, y in chunks) == 3
    # a text label over a text label: a data row, in both twins
    text = tmp_path / "t.csv"
    text.write_bytes(b"0,1,spam\n2,3,ham\n")
    assert len(load_csv(str(text))[1]) == 2 and len(read_csv(text.read_bytes(), "t.csv")[1]) == 2
