"""The drivers of the compiled text readers (``mbcore._kernels.readers``), shared by
:mod:`mbcore.streaming` and :mod:`mbcore.datasets.formats`.

A source (a path, or a binary file object such as ``sys.stdin.buffer``) is read in blocks of
256 KiB, gzip-decompressed with :mod:`zlib` when its first two bytes are gzip's magic number, cut
into blocks of whole lines, and each block is handed to the compiled parser, which fills the
arrays of one chunk.  Memory is O(chunk + block).  The semantics (tokens, numbers, errors and
their messages) are those of the pure-Python twin ``mbref.formats``.
"""

import collections
import contextlib
import os
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._kernels.readers import csv_parse, last_line_end, svmlight_parse, svmlight_scan

__all__ = ["Reader", "Arrivals", "open_source", "source_name", "is_file_object", "line_blocks",
           "grow", "svmlight_chunks", "svmlight_scan_file", "csv_chunks", "ON_ERROR",
           "parallel_groups", "count_lines", "GROUP", "svmlight_parallel"]

BLOCK = 1 << 18
_GZIP_MAGIC = b"\x1f\x8b"
_INT64_MAX = np.iinfo(np.int64).max
_INT32_MAX = np.iinfo(np.int32).max
ON_ERROR = ("raise", "skip")

# svmlight state (see readers.pyx)
_POS, _LINE, _ROW, _NNZ, _MIN, _MAX, _MAXLINE, _CODE, _ELINE, _TOK0, _TOK1, _COL, _SKIPPED, \
    _FIRSTSKIP = range(14)
# CSV state
_C_POS, _C_LINE, _C_ROW, _C_CODE, _C_ELINE, _C_TOK0, _C_TOK1, _C_COL, _C_SKIPPED, _C_FIRSTSKIP, \
    _C_NONNUM = range(11)


class Reader:
    """An iterator of ``(X, y)`` chunks read from a file, as :func:`mbcore.streaming.iter_svmlight`
    and :func:`~mbcore.streaming.iter_csv` return.

    Attributes
    ----------
    name : str
        The file (or the file object's name) that messages name.
    skipped : int
        The number of malformed lines skipped so far (``on_error="skip"``; always 0 with
        ``on_error="raise"``, which raises at the first one).
    first_skipped_line : int or None
        The line number of the first line skipped, if any.
    rows : int
        The number of rows yielded so far.
    """

    __slots__ = ("name", "skipped", "first_skipped_line", "rows", "_gen")

    def __init__(self, name, make):
        self.name = name
        self.skipped = 0
        self.first_skipped_line = None
        self.rows = 0
        self._gen = make(self)

    def __iter__(self):
        return self

    def __next__(self):
        X, y = next(self._gen)
        self.rows += y.shape[0]
        return X, y

    def close(self):
        """Stop reading (closes the file it opened)."""
        self._gen.close()

    def __repr__(self):
        return f"Reader({self.name!r}, rows={self.rows}, skipped={self.skipped})"


def is_file_object(source):
    return hasattr(source, "read") and not isinstance(source, (str, bytes, os.PathLike))


def source_name(source, owner):
    if is_file_object(source):
        name = getattr(source, "name", None)
        return name if isinstance(name, str) else "<stream>"
    if isinstance(source, (str, bytes, os.PathLike)):
        return os.fsdecode(os.fspath(source))
    raise TypeError(f"{owner}: path must be a str, os.PathLike or a binary file object, got "
                    f"{type(source).__name__}")


@contextlib.contextmanager
def open_source(source, interactive=False):
    """A binary file object for a path (closed afterwards) or the file object itself; with
    ``interactive``, wrapped in :class:`Arrivals`."""
    if is_file_object(source):
        yield Arrivals(source) if interactive else source
    else:
        with open(source, "rb") as f:
            yield Arrivals(f) if interactive else f


class Arrivals:
    """A binary stream read as its data arrives: ``read(n)`` returns what one read of the
    underlying stream gives (``read1``: at most ``n`` bytes, waiting only while none has
    arrived), or one line for a stream without ``read1``.  So a reader never waits for a full
    block of a pipe that is fed a line at a time."""

    __slots__ = ("_read",)

    def __init__(self, f):
        read1 = getattr(f, "read1", None)
        self._read = read1 if read1 is not None else (lambda n: f.readline(n))

    def read(self, n):
        return self._read(n)


def _read(f, n, owner, name):
    buf = f.read(n)
    if buf is None:
        buf = b""
    if not isinstance(buf, (bytes, bytearray)):
        raise TypeError(f"{owner}: {name} must be opened in binary mode (read gave "
                        f"{type(buf).__name__}); use sys.stdin.buffer or open(path, 'rb')")
    return buf


def _raw_blocks(f, owner, name, where, room=None):
    """The bytes of the file in blocks of about BLOCK, gzip-decompressed by magic bytes.

    With ``room`` (``room(n)``: a writable view of at least n bytes), a plain file object that
    has ``readinto`` is read straight into it, and the number of bytes read is yielded instead
    of the bytes (no copy, no allocation per block)."""
    first = _read(f, BLOCK, owner, name)
    while len(first) < 2:
        more = _read(f, BLOCK, owner, name)
        if not more:
            break
        first += more
    if first[:2] != _GZIP_MAGIC:
        if first:
            yield first
        readinto = getattr(f, "readinto", None) if room is not None else None
        while True:
            if readinto is not None:
                k = readinto(room(BLOCK))
                if not k:
                    return
                yield k
                continue
            buf = _read(f, BLOCK, owner, name)
            if not buf:
                return
            yield buf

    def damaged(detail):
        return OSError(f"{owner}: {name}, line {where() + 1}: the gzip data is truncated or "
                       f"damaged ({detail})")

    d = zlib.decompressobj(31)
    data = first
    while True:
        try:
            out = d.decompress(data, BLOCK)
        except zlib.error as e:
            raise damaged(e) from None
        if out:
            yield out
        if d.eof:
            rest = d.unused_data or _read(f, BLOCK, owner, name)
            if not rest or not rest.strip(b"\0"):     # the end (gzip tolerates zero padding)
                return
            if rest[:2] != _GZIP_MAGIC:
                raise damaged("data after the end of the compressed stream")
            d, data = zlib.decompressobj(31), rest     # the next member
        elif d.unconsumed_tail:
            data = d.unconsumed_tail
        else:
            data = _read(f, BLOCK, owner, name)
            if not data:
                raise damaged("the compressed stream ends early")


def line_blocks(f, owner, name, where):
    """Blocks of whole lines, each ending with a line break (one is added after the last line
    of the file if it has none).

    Each block is a view of one reused buffer (no allocation per block): it is valid until the
    next block is asked for, so a consumer parses it before it moves on."""
    buf = np.empty(2 * BLOCK, dtype=np.uint8)
    pend = 0                                   # the start of a line, kept at the front

    def room(k):
        nonlocal buf
        if pend + k > buf.shape[0]:            # a line longer than a block
            buf = grow(buf, 2 * (pend + k), pend)
        return memoryview(buf)[pend:pend + k]

    for piece in _raw_blocks(f, owner, name, where, room):
        if isinstance(piece, int):             # read into the buffer already
            total = pend + piece
        else:
            total = pend + len(piece)
            room(len(piece))[:] = piece
        cut = last_line_end(buf, pend, total)
        if not cut:
            pend = total
            continue
        yield buf[:cut]
        pend = total - cut
        if pend:
            buf[:pend] = buf[cut:total]
    if pend:
        if pend == buf.shape[0]:
            buf = grow(buf, pend + 1, pend)
        buf[pend] = 10
        yield buf[:pend + 1]


def count_lines(text):
    """The number of line breaks (\\n, \\r\\n or a lone \\r) in bytes of whole lines."""
    n = text.count(b"\n")
    if text.find(b"\r") >= 0:
        n += text.count(b"\r") - text.count(b"\r\n")
    return n


GROUP = 4 * BLOCK


def parallel_groups(f, owner, name, parse, workers):
    """Groups of whole lines (about GROUP bytes each) parsed by ``workers`` threads at once,
    their results yielded in the order of the file.

    ``parse(blocks, line0, lines)`` parses one group (a list of bytes holding ``lines`` lines,
    the first being line ``line0 + 1`` of the file) and returns its result; an exception it
    raises is raised here when its group's turn comes, after every earlier group's result was
    yielded.  At most
    ``workers + 1`` groups are read ahead, so memory is O(workers * GROUP + their results).
    When the caller stops early, the groups not started are dropped and the threads joined."""
    line = 0
    pending = collections.deque()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mbcore-parse")
    try:
        group, size = [], 0
        for block in line_blocks(f, owner, name, lambda: line):
            block = bytes(block)               # the view's buffer is reused
            group.append(block)
            size += len(block)
            if size >= GROUP:
                lines = sum(count_lines(b) for b in group)
                pending.append(pool.submit(parse, group, line, lines))
                line += lines
                group, size = [], 0
                while len(pending) > workers:
                    yield pending.popleft().result()
        if group:
            pending.append(pool.submit(parse, group, line, sum(count_lines(b) for b in group)))
        while pending:
            yield pending.popleft().result()
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True)


def grow(a, n, keep):
    """A new array with room for ``n`` entries along the first axis, holding ``a[:keep]``
    at its front (the rest uninitialised): the chunk arrays' growth, one copy of what is used."""
    out = np.empty((n,) + a.shape[1:], dtype=a.dtype)
    out[:keep] = a[:keep]
    return out


def _short(text, limit=30):
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _line_of(block, start, end):
    """The bytes of the line holding block[start:end] (without its line break)."""
    b = bytes(block)
    s = max(b.rfind(b"\n", 0, start), b.rfind(b"\r", 0, start)) + 1
    e = len(b)
    for br in (b"\n", b"\r"):
        k = b.find(br, end)
        if k >= 0:
            e = min(e, k)
    return b[s:e]


def _utf8_error(owner, name, where, line):
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as e:
        return ValueError(f"{owner}: {name}, {where}: not UTF-8 text ({e.reason} at byte "
                          f"{e.start} of the line)")
    return None


# -- svmlight -----------------------------------------------------------------------------------

_SVM_REASONS = {
    1: lambda tok, col, d: f"the label {_short(tok)} is not a number",
    2: lambda tok, col, d: f"expected idx:value, got {tok!r}",
    3: lambda tok, col, d: f"the index in {tok!r} is not a non-negative integer",
    4: lambda tok, col, d: f"the value {_short(tok)} is not a number",
    5: lambda tok, col, d: f"the qid in {tok!r} is not an integer",
    6: lambda tok, col, d: "has index 0 but zero_based=False; pass zero_based=True or 'auto'",
    7: lambda tok, col, d: f"uses column {col} (counting from 0) but n_features={d}",
    8: lambda tok, col, d: f"column {col} (counting from 0) appears more than once",
    9: lambda tok, col, d: "an index has more than 18 digits",
}


def svmlight_error(owner, name, block, st, n_features, column_of=None, widening=False):
    """The ValueError for the bad line the parser reported in ``st``; ``widening``: the stream is
    read width-free (``n_features`` is then its cap, ``max_features``, and one-based unless
    zero_based=True), which two of the messages say."""
    code, line = int(st[_CODE]), int(st[_ELINE])
    t0, t1 = int(st[_TOK0]), int(st[_TOK1])
    where = f"line {line}"
    bad = _utf8_error(owner, name, where, _line_of(block, t0, t1))
    if bad is not None:
        return bad
    tok = bytes(block[t0:t1]).decode("utf-8")
    col = int(st[_COL]) if column_of is None else column_of(int(st[_COL]))
    if widening and code == 6:
        return ValueError(f"{owner}: {name}, {where}: has index 0, but a stream read without "
                          "its width is one-based unless told otherwise (the index 0 cannot be "
                          "known before it arrives); pass zero_based=True (--zero-based)")
    if widening and code == 7:
        return ValueError(f"{owner}: {name}, {where}: uses column {col:,} (counting from 0), "
                          f"more than the {n_features:,} columns a stream of unknown width may "
                          f"grow to (max_features={n_features}); pass a larger max_features "
                          "(--max-features) or the width (n_features, --n-features)")
    if owner == "load_svmlight" and code == 6:
        return ValueError(f"{owner}: {name} has index 0 but zero_based=False; pass "
                          "zero_based=True or 'auto'")
    return ValueError(f"{owner}: {name}, {where}: {_SVM_REASONS[code](tok, col, n_features)}")


def svmlight_chunks(blocks, reader, owner, chunk_size, n_features, shift, skip,
                    column_of=None, st=None, name=None, flush=False, capacity=None,
                    widening=False):
    """Yield (labels, indptr, indices, data) per chunk of ``chunk_size`` rows (int64 indptr,
    int32 indices when ``n_features`` is given and below 2**31, else int64; columns = written
    index - shift).  ``st`` (the parser state, for its counters) may be given;
    ``n_features`` None: no range check.  ``reader`` None: messages name ``name`` and the
    skipped lines are only counted in ``st``.  ``flush``: a chunk also ends with each block
    (the rows of each arrival, for an interactive stream).  ``capacity``: (rows, pairs) to
    allocate first, when the caller knows bounds (else small, grown as needed).  ``widening``:
    ``n_features`` is the cap of a stream read width-free (its messages say so), and each
    chunk comes with the largest column of the rows parsed so far (-1: none) as a fifth item."""
    if st is None:
        st = np.zeros(14, dtype=np.int64)
    st[_MIN], st[_MAX] = _INT64_MAX, -1
    d = -1 if n_features is None else int(n_features)
    cap = min(chunk_size, 1 << 10 if capacity is None else max(capacity[0], 1))
    itype = np.int32 if 0 <= d <= _INT32_MAX else np.int64

    def fresh(cap, cap_nnz):
        indptr = np.empty(cap + 1, dtype=np.int64)
        indptr[0] = 0
        return (np.empty(cap, dtype=np.float64), indptr, np.empty(cap_nnz, dtype=itype),
                np.empty(cap_nnz, dtype=np.float64))

    def cut():
        """The chunk of the rows parsed so far; new arrays for the next ones."""
        nonlocal labels, indptr, indices, data
        m, nnz = int(st[_ROW]), int(st[_NNZ])
        out = labels[:m], indptr[:m + 1], indices[:nnz], data[:nnz]
        if widening:
            out += (int(st[_MAX]),)
        labels, indptr, indices, data = fresh(cap, max(indices.shape[0], 16))
        st[_ROW] = st[_NNZ] = 0
        return out

    labels, indptr, indices, data = fresh(cap, cap * 16 if capacity is None else
                                         max(capacity[1], 16))
    for block in blocks:
        st[_POS] = 0
        while True:
            status = svmlight_parse(block, st, labels, indptr, indices, data, cap, shift, d, skip)
            if status == 0:
                break
            if status == 1:
                if cap < chunk_size:               # grow the rows
                    m = int(st[_ROW])
                    cap = min(chunk_size, 4 * cap)
                    labels, indptr = grow(labels, cap, m), grow(indptr, cap + 1, m + 1)
                    continue
                yield cut()
            elif status == 2:                      # grow the pairs: 2x, or as the rows so far say
                m, nnz = int(st[_ROW]), int(st[_NNZ])
                more = 2 * indices.shape[0] + 16
                if m:
                    more = max(more, min(nnz * chunk_size // m + nnz // 8, 4 * more))
                indices, data = grow(indices, more, nnz), grow(data, more, nnz)
            else:
                raise svmlight_error(owner, reader.name if reader is not None else name, block,
                                     st, n_features, column_of, widening)
        if reader is not None and st[_SKIPPED]:
            reader.skipped, reader.first_skipped_line = int(st[_SKIPPED]), int(st[_FIRSTSKIP])
        if flush and st[_ROW]:
            yield cut()
    m, nnz = int(st[_ROW]), int(st[_NNZ])
    if m:
        out = labels[:m], indptr[:m + 1], indices[:nnz], data[:nnz]
        yield out + (int(st[_MAX]),) if widening else out


def svmlight_parallel(f, reader, owner, chunk_size, n_features, shift, skip, workers, finish,
                      widening=False):
    """The chunks of ``svmlight_chunks`` parsed by ``workers`` threads, a group of whole lines
    each (:func:`parallel_groups`): ``finish(labels, indptr, indices, data)`` turns a chunk's
    arrays into what is yielded, in the worker.  A chunk holds at most ``chunk_size`` rows and
    never crosses a group's end.  Line numbers, errors and skipped lines are those of the
    sequential reader (``widening``: as :func:`svmlight_chunks`, ``finish`` then also takes the
    largest column of its group so far)."""
    name = reader.name

    def parse(blocks, line0, lines):
        st = np.zeros(14, dtype=np.int64)
        st[_LINE] = line0
        bound = (lines, sum(b.count(b":") for b in blocks))    # a row a line, a pair a ':'
        items = [finish(*parts) for parts in svmlight_chunks(
            iter(blocks), None, owner, chunk_size, n_features, shift, skip, st=st, name=name,
            capacity=bound, widening=widening)]
        return items, int(st[_SKIPPED]), int(st[_FIRSTSKIP])

    for items, skipped, first in parallel_groups(f, owner, name, parse, workers):
        if skipped:
            if reader.first_skipped_line is None:
                reader.first_skipped_line = first
            reader.skipped += skipped
        yield from items


def svmlight_scan_file(source, owner, name, workers=None):
    """(smallest, largest) index written in the file (-1, -1 if none).

    A plain file of 16 MiB or more is cut at line starts into ``workers`` ranges (default: the
    cores, at most 4; nothing else runs during this pass) scanned by as many threads at once;
    an error names the same line as the scan of the whole file would."""
    if workers is None:
        workers = max(1, min(4, os.cpu_count() or 1))
    if workers > 1 and not is_file_object(source):
        cuts = _range_cuts(source, workers)
        if cuts is not None:
            return _scan_ranges(source, owner, name, cuts, workers)
    return _scan(source, owner, name)


def _scan(f_or_source, owner, name, st=None):
    """(smallest, largest) index of one source, by one thread; ``st`` keeps the error line."""
    st = np.zeros(4, dtype=np.int64) if st is None else st
    st[0], st[1], st[2] = -1, -1, 0
    with open_source(f_or_source) as f:
        for block in line_blocks(f, owner, name, lambda: int(st[2])):
            if svmlight_scan(block, st):
                raise ValueError(f"{owner}: {name}, line {int(st[3])}: an index has more than "
                                 "18 digits")
    return int(st[0]), int(st[1])


def _range_cuts(path, parts):
    """Offsets that cut a plain file into ``parts`` ranges at line starts, or None (gzip, or
    under 64 blocks, 16 MiB: too small for threads to pay for their buffers, about 0.8 MiB
    each)."""
    size = os.path.getsize(path)
    if size < 64 * BLOCK:
        return None
    cuts = [0]
    with open(path, "rb") as f:
        if f.read(2) == _GZIP_MAGIC:
            return None
        for k in range(1, parts):
            f.seek(max(size * k // parts - 1, cuts[-1]))
            f.readline()                       # to the start of the next line
            cuts.append(min(f.tell(), size))
    cuts.append(size)
    return cuts


class _Range:
    """The bytes [start, end) of a file, as a binary file object for line_blocks."""

    def __init__(self, path, start, end):
        self._f = open(path, "rb")
        self._f.seek(start)
        self._left = end - start

    def read(self, n=-1):
        n = self._left if n < 0 else min(n, self._left)
        data = self._f.read(n) if n > 0 else b""
        self._left -= len(data)
        return data

    def close(self):
        self._f.close()


def _scan_ranges(path, owner, name, cuts, workers):
    def scan(k):
        st = np.zeros(4, dtype=np.int64)
        r = _Range(path, cuts[k], cuts[k + 1])
        try:
            return "ok", _scan(r, owner, name, st)
        except ValueError:
            return "bad", int(st[3])
        finally:
            r.close()

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mbcore-scan") as pool:
        results = list(pool.map(scan, range(len(cuts) - 1)))
    low, high = -1, -1
    for k, (kind, value) in enumerate(results):
        if kind == "bad":                      # its line in the whole file
            before, last = 0, b""
            with open(path, "rb") as f:
                left = cuts[k]
                while left:
                    chunk = f.read(min(left, BLOCK))
                    left -= len(chunk)
                    before += count_lines(chunk) - (last == b"\r" and chunk[:1] == b"\n")
                    last = chunk[-1:]
            raise ValueError(f"{owner}: {name}, line {before + value}: an index has more than "
                             "18 digits")
        a, b = value
        if a >= 0 and (low < 0 or a < low):
            low = a
        high = max(high, b)
    return low, high


def to_csr_parts(indptr, indices, d, nnz):
    """CSR indices and indptr of one integer type: int32 when the width and the pairs allow."""
    itype = np.int32 if max(d, nnz) <= _INT32_MAX else np.int64
    return indices.astype(itype, copy=False), indptr.astype(itype)


def to_dense(m, d, indptr, indices, data):
    X = np.zeros((m, d), dtype=np.float64)
    X[np.repeat(np.arange(m), np.diff(indptr)), indices] = data
    return X


# -- CSV ----------------------------------------------------------------------------------------

def _first_line_end(block):
    b = bytes(block[:1 << 16]) if len(block) > 1 << 16 else bytes(block)
    ends = [k for k in (b.find(b"\n"), b.find(b"\r")) if k >= 0]
    if not ends:
        k = bytes(block).find(b"\n")
        return len(block) if k < 0 else k + 1
    k = min(ends)
    if b[k:k + 2] == b"\r\n":
        return k + 2
    return k + 1


class CsvState:
    """What the first data line decides (width, label column) and the label kind."""

    __slots__ = ("n_cols", "first_line", "label", "label_kind", "rows")

    def __init__(self):
        self.n_cols = self.first_line = self.label = self.label_kind = None
        self.rows = 0


def csv_chunks(blocks, reader, owner, chunk_size, label_column, delimiter, skip_header, skip,
               row_name, too_few_columns, decide_kind=True, line_counter=None, flush=False):
    """Yield (X, y) per chunk.  ``row_name(line, data_row)`` names a row in messages;
    ``too_few_columns(n)`` is the error for a width under 2; ``flush``: a chunk also ends
    with each block."""
    name = reader.name
    delim = -1 if delimiter is None else ord(delimiter)
    st = np.zeros(11, dtype=np.int64)
    cs = CsvState()
    cap = min(chunk_size, 1 << 10)
    X = y = loff = None
    strs = []                                # the label strings of the chunk (kind not float)

    def take_labels(block, start, stop, line0):
        for r in range(start, stop):
            s, e = int(loff[r, 0]), int(loff[r, 1])
            try:
                strs.append(bytes(block[s:e]).decode("utf-8").strip())
            except UnicodeDecodeError as err:
                line = line0 + len((bytes(block[:s]) + b"x").splitlines())
                raise ValueError(f"{owner}: {name}, {row_name(line, cs.rows + r + 1)}: not "
                                 f"UTF-8 text ({err.reason} in the label)") from None

    def finish(m):
        nonlocal strs
        if cs.label_kind is None and decide_kind:
            cs.label_kind = "float" if st[_C_NONNUM] < 0 else "str"
        if cs.label_kind == "str" or (not decide_kind and st[_C_NONNUM] >= 0):
            labels = np.array(strs, dtype=str)
        else:
            labels = y[:m]
        strs = []
        return X[:m], labels

    def cut(m):
        """The chunk of the first m rows; fresh arrays for the next rows."""
        nonlocal X, y, loff
        out = finish(m)
        cs.rows += m
        X, y = np.empty((cap, cs.n_cols - 1)), np.empty(cap)
        loff = np.empty((cap, 2), dtype=np.int64)
        st[_C_ROW] = 0
        st[_C_NONNUM] = -1
        return out

    first = True
    for block in blocks:
        st[_C_POS] = 0
        if first:
            first = False
            if skip_header:
                st[_C_POS] = _first_line_end(block)
                st[_C_LINE] = 1
        taken = int(st[_C_ROW])
        line0 = int(st[_C_LINE])
        if line_counter is not None:
            line_counter[0] = line0
        while True:
            if cs.n_cols is None:
                status = csv_parse(block, st, delim, -1, 0, np.empty((0, 1)), np.empty(0),
                                   np.empty((0, 2), dtype=np.int64), 0, False, skip)
                if status == 0:
                    break
                n_cols = int(st[_C_COL])
                if n_cols < 2:
                    raise too_few_columns(n_cols)
                if not -n_cols <= label_column < n_cols:
                    raise ValueError(f"{owner}: label_column={label_column} is out of range for "
                                     f"{name}, which has {n_cols} columns")
                cs.n_cols, cs.first_line, cs.label = n_cols, int(st[_C_ELINE]), \
                    label_column % n_cols
                X = np.empty((cap, n_cols - 1))
                y = np.empty(cap)
                loff = np.empty((cap, 2), dtype=np.int64)
                st[_C_NONNUM] = -1
                continue
            status = csv_parse(block, st, delim, cs.n_cols, cs.label, X, y, loff, cap,
                               cs.label_kind == "float", skip)
            if cs.label_kind != "float":
                take_labels(block, taken, int(st[_C_ROW]), line0)
                taken = int(st[_C_ROW])
            if status == 0:
                break
            if status == 1:
                m = int(st[_C_ROW])
                if cap < chunk_size:
                    cap = min(chunk_size, 4 * cap)
                    X, y, loff = grow(X, cap, m), grow(y, cap, m), grow(loff, cap, m)
                    continue
                yield cut(m)
                taken = 0
            else:
                raise _csv_error(owner, name, block, st, cs, skip_header, row_name)
        if reader is not None and st[_C_SKIPPED]:
            reader.skipped = int(st[_C_SKIPPED])
            reader.first_skipped_line = int(st[_C_FIRSTSKIP])
        if flush and st[_C_ROW]:
            yield cut(int(st[_C_ROW]))
    m = int(st[_C_ROW])
    if m:
        out = finish(m)
        cs.rows += m
        yield out


def _csv_error(owner, name, block, st, cs, skip_header, row_name):
    code, line = int(st[_C_CODE]), int(st[_C_ELINE])
    data_row = cs.rows + int(st[_C_ROW]) + 1
    where = row_name(line, data_row)
    t0, t1 = int(st[_C_TOK0]), int(st[_C_TOK1])
    if code == 1:
        return ValueError(f"{owner}: {name}, {where}: {int(st[_C_COL])} columns, but "
                          f"{row_name(cs.first_line, 1)} has {cs.n_cols}")
    if code == 3:
        return ValueError(f"{owner}: {name}, {where}: the label field is empty")
    tok = bytes(block[t0:t1])
    try:
        text = tok.decode("utf-8")
    except UnicodeDecodeError:
        text = tok.decode("utf-8", "backslashreplace")
    if code == 2:
        hint = " (if the first line is a header, pass skip_header=True)" \
            if data_row == 1 and not skip_header else ""
        return ValueError(f"{owner}: {name}: {where}, column {int(st[_C_COL])} (counting from 0) "
                          f"holds {text!r}, which is not a number; only the label column may "
                          f"hold text{hint}")
    return ValueError(f"{owner}: {name}, {where}: the label {text!r} is not a number, but every "
                      "label of the first chunk was, so the labels were read as numbers")


def check_on_error(owner, on_error):
    if not isinstance(on_error, str) or on_error not in ON_ERROR:
        raise ValueError(f"{owner}: parameter on_error must be 'raise' or 'skip', got "
                         f"{on_error!r}")
    return on_error == "skip"

