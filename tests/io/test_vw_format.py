"""Vowpal Wabbit's text format: MurmurHash3 against published test vectors, the hashed columns
against Vowpal Wabbit's own (when the ``vowpalwabbit`` package is installed), the compiled parser
(``mbcore._kernels.vw`` through ``iter_vw``) against its twin ``mbref.vw`` on hypothesis files
and on malformed lines (the same rows bit for bit, or the same message and line), the kernel's
own paths (rows that come sorted and are stored as read, short and long rows that are sorted
and merged, the scratch and the arrays regrown, crafted buffers in small arrays), and a learner
fed from VW text against the same columns read from svmlight.
"""

import gzip
import io
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

import mbcore
from mbcore import Perceptron
from mbcore._kernels import vw as kvw
from mbcore.datasets import load_mushrooms
from mbcore.streaming import iter_svmlight, iter_vw, run_stream
from mbref import vw as rvw

try:
    from vowpalwabbit import pyvw
except ImportError:  # pragma: no cover - vowpalwabbit is in the test extra
    pyvw = None

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.smoke, pytest.mark.checked, pytest.mark.sanitized]

needs_vw = pytest.mark.skipif(pyvw is None, reason="vowpalwabbit is not installed")

# -- MurmurHash3 x86_32 -------------------------------------------------------------------------

# Published verification values of MurmurHash3_x86_32 (SMHasher's reference implementation;
# the table of test vectors widely reproduced, e.g. with the MurmurHash3 article on Wikipedia
# and in ports' test suites): (data, seed, hash).
MURMUR_VECTORS = [
    (b"", 0, 0),
    (b"", 1, 0x514E28B7),
    (b"", 0xFFFFFFFF, 0x81F16F39),
    (b"\xff\xff\xff\xff", 0, 0x76293B50),
    (b"\x21\x43\x65\x87", 0, 0xF55B516B),
    (b"\x21\x43\x65\x87", 0x5082EDEE, 0x2362F9DE),
    (b"\x21\x43\x65", 0, 0x7E4A8634),             # tails of 3, 2 and 1 bytes
    (b"\x21\x43", 0, 0xA0F7B07A),
    (b"\x21", 0, 0x72661CF4),
    (b"\x00\x00\x00\x00", 0, 0x2362F9DE),
    (b"\x00\x00\x00", 0, 0x85F0B427),
    (b"\x00\x00", 0, 0x30F4C306),
    (b"\x00", 0, 0x514E28B7),
    (b"aaaa", 0x9747B28C, 0x5A97808A),
    (b"aaa", 0x9747B28C, 0x283E0130),
    (b"aa", 0x9747B28C, 0x5D211726),
    (b"a", 0x9747B28C, 0x7FA09EA6),
    (b"abcd", 0x9747B28C, 0xF0478627),
    (b"abc", 0x9747B28C, 0xC84A62DD),
    (b"ab", 0x9747B28C, 0x74875592),
    (b"Hello, world!", 0x9747B28C, 0x24884CBA),
    ("ππππππππ".encode("utf-8"), 0x9747B28C, 0xD58063C1),    # non-ASCII UTF-8
    (b"a" * 256, 0x9747B28C, 0x37405BDC),
    (b"The quick brown fox jumps over the lazy dog", 0x9747B28C, 0x2FA826CD),
]


@pytest.mark.parametrize("data, seed, expected", MURMUR_VECTORS)
def test_murmurhash3_known_answers(data, seed, expected):
    assert rvw.murmurhash3_32(data, seed) == expected
    assert kvw.murmurhash3_32(data, seed) == expected


@given(st.binary(max_size=40), st.integers(0, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_hashes_compiled_equal_twin(data, seed):
    assert kvw.murmurhash3_32(data, seed) == rvw.murmurhash3_32(data, seed)
    assert kvw.hashstring(data, seed) == rvw.hashstring(data, seed)


def test_hashstring_rules():
    # digits only: the value plus the seed, modulo 2**32; bytes <= 0x20 stripped at both ends
    assert rvw.hashstring(b"123", 10) == 133
    assert rvw.hashstring(b"007", 0) == 7
    assert rvw.hashstring(b"\x01 42\x0b", 1) == 43
    assert rvw.hashstring(b"4294967296", 5) == 5                # 2**32 wraps to 0
    assert rvw.hashstring(b"", 9) == 9
    # anything else: MurmurHash3 of the stripped name
    assert rvw.hashstring(b"-1", 0) == rvw.murmurhash3_32(b"-1", 0)
    assert rvw.hashstring(b" \x02ab ", 3) == rvw.murmurhash3_32(b"ab", 3)
    assert rvw.hashstring("é1".encode(), 3) == rvw.murmurhash3_32("é1".encode(), 3)
    for name, seed in [(b"123", 10), (b"\x01 42\x0b", 1), (b"4294967296", 5), (b" \x02ab ", 3)]:
        assert kvw.hashstring(name, seed) == rvw.hashstring(name, seed)
    # the anonymous namespace hashes to 0 (seed 0), else MurmurHash3 of b"" (not "0 + seed")
    assert rvw.namespace_hash(b"", 0) == 0
    assert rvw.namespace_hash(b"", 7) == rvw.murmurhash3_32(b"", 7) != 7


# -- helpers ------------------------------------------------------------------------------------

class _OneLineAtATime:
    """A binary stream that delivers one line per read (a pipe fed a line at a time)."""

    name = "<stream>"

    def __init__(self, data):
        self._lines = iter(data.splitlines(True))

    def read1(self, n=-1):
        return next(self._lines, b"")

    read = read1


def _read_compiled(text, chunk_size=3, bits=18, hash_seed=0, on_error="raise",
                   interactive=False):
    """(labels, weights, rows, skipped, lines) through iter_vw (bytes: on a file object; with
    ``interactive``, delivered one line per read)."""
    labels, weights, rows, lines = [], [], [], []
    if interactive:
        source = _OneLineAtATime(text)
    else:
        source = io.BytesIO(text) if isinstance(text, bytes) else text
    reader = iter_vw(source, chunk_size=chunk_size, bits=bits, hash_seed=hash_seed,
                     sample_weight=True, on_error=on_error, interactive=interactive, lines=True)
    try:
        for X, y, w, at in reader:
            assert X.shape == (len(y), 1 << bits) and at.shape == y.shape
            lines += at.tolist()
            for i in range(len(y)):
                s, e = X.indptr[i], X.indptr[i + 1]
                rows.append(list(zip(X.indices[s:e].tolist(), X.data[s:e].tolist())))
            labels += y.tolist()
            weights += w.tolist()
    except ValueError as e:
        if "holds no data rows" not in str(e):
            raise
    return labels, weights, rows, reader.skipped, lines


def _read_twin(text, bits=18, hash_seed=0, on_error="raise"):
    labels, weights, rows, lines, skipped = rvw.read_vw(text, "<stream>", bits=bits,
                                                        hash_seed=hash_seed, on_error=on_error)
    return labels, weights, rows, skipped, lines


def _outcome(read, *args, **kw):
    try:
        return ("ok", read(*args, **kw))
    except ValueError as e:
        return ("error", str(e))


def _bits_of(x):
    return [(c, float(v).hex()) for c, v in x]


def _same(a, b):
    assert a[0] == b[0], (a, b)
    if a[0] == "error":
        assert a[1] == b[1]
        return
    (la, wa, ra, sa, na), (lb, wb, rb, sb, nb) = a[1], b[1]
    assert na == nb                                   # each row's line
    assert [v.hex() for v in la] == [v.hex() for v in lb]
    assert [v.hex() for v in wa] == [v.hex() for v in wb]
    assert [_bits_of(r) for r in ra] == [_bits_of(r) for r in rb]
    assert sa == sb


# -- against Vowpal Wabbit itself ---------------------------------------------------------------

VW_LINES = [
    "1 |a 1 foo x:2 bar:-0.5",
    "-1 0.5 'tag1|user age:31 city=paris 12345 |item:2 hat shoe:0.25",
    "1 | anon 3 f:1.5 |b 0 99999999999 x",
    "2 |ns:0.5 :3 :1 q :2",
    "-1 |Alongname\tk1 k2:4\tk3 |é é1 π:2",
    "1 |a x x x:2 |a x",
    "3 |123 7 8:2 |digits_9 -1 +1 1.5",
    "-1 |a,b# weird#chars a=b c\"d",
]


def _vw_columns(workspace, line, bits):
    """{column: value} of one line as VW parses it (float32 values, summed)."""
    mask = (1 << bits) - 1
    ex = workspace.example(line)
    out = {}
    for i in range(ex.num_namespaces()):
        for j in range(ex.num_features_in(i)):          # i: the i-th namespace of the example
            col = ex.feature(i, j) & mask
            out[col] = out.get(col, 0.0) + ex.feature_weight(i, j)
    workspace.finish_example(ex)
    return out


@needs_vw
@pytest.mark.parametrize("bits, seed", [(18, 0), (24, 0), (12, 0), (18, 12345)])
def test_columns_match_vowpal_wabbit(bits, seed):
    workspace = pyvw.Workspace(f"--quiet --noconstant -b {bits} --hash_seed {seed}")
    try:
        text = "\n".join(VW_LINES).encode() + b"\n"
        labels, weights, rows, _, _ = _read_compiled(text, bits=bits, hash_seed=seed)
        assert labels == [1, -1, 1, 2, -1, 1, 3, -1]
        assert weights == [1, 0.5, 1, 1, 1, 1, 1, 1]
        for line, row in zip(VW_LINES, rows):
            ours = dict(row)
            theirs = {c: v for c, v in _vw_columns(workspace, line, bits).items() if v != 0}
            assert sorted(ours) == sorted(theirs), line
            for c in ours:
                assert math.isclose(ours[c], theirs[c], rel_tol=1e-6), (line, c)
    finally:
        workspace.finish()


@needs_vw
def test_hash_helpers_match_vowpal_wabbit():
    workspace = pyvw.Workspace("--quiet --noconstant -b 18")
    try:
        for ns in ["a", "user", "123", "é", "Alongname"]:
            h = workspace.hash_space(ns)
            assert rvw.namespace_hash(ns.encode()) == h
            for f in ["1", "foo", "007", "-1", "π", "x y"[:1], "99999999999"]:
                assert rvw.hashstring(f.encode(), h) & ((1 << 18) - 1) == \
                    workspace.hash_feature(f, h)
    finally:
        workspace.finish()


# -- compiled against twin ----------------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "1", "42", "007", "x", "é", "π2", "", "#", "a=b", "9" * 12])
_NUMS = st.sampled_from(["1", "-1", "0", "2.5", "-0", "1e3", ".5", "3.", "1e400", "nan", "x",
                         "", "0.1", "7e-320", "+4"])


@st.composite
def vw_lines(draw):
    label = draw(st.sampled_from(["1", "-1", "2", "", "x", "1:2", "shared", "1 2", "1 0.5 0",
                                  "1 1 3", "1 -2", "1 2 0 4", "1 'tag", "1 tag", "\t1"]))
    parts = [label + draw(st.sampled_from([" ", "", "  "]))]
    for _ in range(draw(st.integers(0, 3))):
        ns = draw(st.sampled_from(["", "a", "user", "12", "é", ":", "a:2", "a:0.5", "a:x"]))
        feats = []
        for _ in range(draw(st.integers(0, 5))):
            name = draw(_NAMES)
            if draw(st.booleans()):
                name += ":" + draw(_NUMS)
            feats.append(name)
        sep = draw(st.sampled_from([" ", "\t", "  "]))
        parts.append("|" + ns + "".join(sep + f for f in feats))
    return "".join(parts)


@st.composite
def vw_files(draw):
    lines = draw(st.lists(st.one_of(vw_lines(), st.sampled_from(["", "  ", "\ufeff1 |a x",
                                                                  "1 | x\ry", "no bar"])),
                          min_size=0, max_size=8))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return end.join(lines).encode("utf-8") + draw(st.sampled_from([b"", end.encode()]))


@given(vw_files(), st.sampled_from([1, 2, 5]), st.sampled_from([(18, 0), (4, 0), (20, 99)]),
       st.sampled_from(["raise", "skip"]))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parity_on_hypothesis_files(text, chunk_size, bits_seed, on_error):
    bits, seed = bits_seed
    _same(_outcome(_read_compiled, text, chunk_size, bits, seed, on_error),
          _outcome(_read_twin, text, bits, seed, on_error))


@given(st.binary(max_size=60).filter(lambda b: not b.startswith(b"\x1f\x8b")))   # not gzip
@settings(max_examples=300, deadline=None)
def test_parity_on_random_bytes(text):
    _same(_outcome(_read_compiled, text, 2), _outcome(_read_twin, text))
    _same(_outcome(_read_compiled, text, 2, on_error="skip"),
          _outcome(_read_twin, text, on_error="skip"))


def test_values_rules():
    # namespace weight x value; zero values dropped; repeated features summed in order written
    labels, weights, rows, _, _ = _read_twin(b"1 |a:0.5 x:3 y:0 x |b:0 z\n")
    hx = rvw.feature_index(b"a", b"x")
    assert rows == [[(hx, 2.0)]]
    # anonymous features: the namespace hash plus 0, 1, ... per '|'
    h = rvw.namespace_hash(b"n")
    _, _, rows, _, _ = _read_twin(b"1 |n :5 :0 :7 |n :1\n")
    assert rows == [sorted([(h & 0x3FFFF, 5.0 + 1.0), ((h + 2) & 0x3FFFF, 7.0)])]
    # a tag: quoted, or touching the '|'; BOM, tab in the label part (VW drops what precedes it)
    for line in [b"-1 'abc|a x", b"-1 abc|a x", b"\xef\xbb\xbf-1 |a x", b"junk\t-1 |a x",
                 b"-1 1 0 |a x"]:
        labels, weights, rows, _, _ = _read_twin(line)
        assert labels == [-1.0] and weights == [1.0], line
        assert _read_compiled(line)[:3] == (labels, weights, rows)


# -- the kernel's paths: rows that come sorted, rows that do not, the scratch --------------------

def _kernel(text, bits=18, seed=0, skip=False, cap=None, scratch=0, max_rows=None):
    """Everything vw_parse gives for ``text`` (whole lines) in one buffer, growing the arrays
    and the scratch as vw_chunks does: (labels, weights, rows, status, st, scratch grown)."""
    buf = np.frombuffer(text, dtype=np.uint8)
    rows_cap = max_rows or text.count(b"\n") + text.count(b"\r") + 1
    st = np.zeros(13, dtype=np.int64)
    labels, weights = np.empty(rows_cap), np.empty(rows_cap)
    indptr = np.zeros(rows_cap + 1, dtype=np.int64)
    cap = len(text) if cap is None else cap
    indices, data = np.empty(cap, dtype=np.int32), np.empty(cap)
    keys, vals = np.empty(scratch, dtype=np.int64), np.empty(scratch)
    grown = 0
    while True:
        status = kvw.vw_parse(buf, st, labels, weights, indptr, indices, data, keys, vals,
                              rows_cap, bits, seed, skip)
        if status == 2:
            nnz = int(st[3])
            indices = np.concatenate([indices[:nnz], np.empty(2 * len(indices) + 1, np.int32)])
            data = np.concatenate([data[:nnz], np.empty(2 * len(data) + 1)])
        elif status == 4:
            assert st[12] > len(keys)
            keys, vals = np.empty(int(st[12]), dtype=np.int64), np.empty(int(st[12]))
            grown += 1
        else:
            break
    m = int(st[2])
    rows = [list(zip(indices[indptr[i]:indptr[i + 1]].tolist(),
                     data[indptr[i]:indptr[i + 1]].tolist())) for i in range(m)]
    return labels[:m].tolist(), weights[:m].tolist(), rows, status, st, grown


def _twin_rows(text, bits=18, seed=0):
    labels, weights, rows, _, _ = rvw.read_vw(text, "t", bits=bits, hash_seed=seed)
    return labels, weights, rows


def _as_bits(rows):
    return [_bits_of(r) for r in rows]


def test_kernel_sorted_rows_skip_the_sort():
    # integer names in order: the columns come strictly increasing (the namespace hash plus
    # the name), and the row is stored as read
    text = b"1 |f 1 2 3 50 120\n-1 |f 7:0.5 9:-2 11:3.\n1 |f 2 |g 5\n"
    labels, weights, rows, status, _, _ = _kernel(text)
    assert status == 0
    assert (labels, weights, rows) == _twin_rows(text)
    h = rvw.namespace_hash(b"f")
    assert [c for c, _ in rows[0]] == [(h + i) & 0x3FFFF for i in (1, 2, 3, 50, 120)]


@pytest.mark.parametrize("names", [
    "3 1 2",                         # short, out of order
    "5 5 5:2 4",                     # repeats: summed in the order written
    "x y x:0.1 y:0.2 x:0.3 z",       # string names
    " ".join(str(i) for i in range(40, 0, -1)),                         # long, decreasing
    " ".join(f"n{i % 7}:{i / 10}" for i in range(60)),                  # long, repeats
    " ".join(f"{(i * 7919) % 31}:{i}.25" for i in range(100)),          # long, mixed
])
@pytest.mark.parametrize("bits", [18, 3])
def test_kernel_unsorted_rows_equal_twin(names, bits):
    # bits=3 folds every name onto 8 columns: repeats everywhere, and columns that wrap
    text = f"1 |a {names}\n-1 2 |b:0.5 {names} |a 1\n".encode()
    labels, weights, rows, status, _, grown = _kernel(text, bits=bits)
    assert status == 0
    twin = _twin_rows(text, bits=bits)
    assert (labels, weights) == twin[:2]
    assert _as_bits(rows) == _as_bits(twin[2])
    for row in rows:
        assert all(a < b for (a, _), (b, _) in zip(row, row[1:]))
    assert (grown > 0) == (len(names.split()) >= 24)         # long rows use the scratch


def test_kernel_scratch_and_capacity_regrowth():
    # a long unsorted row asks for scratch (status 4, st[VW_NEED]) and leaves its line unread;
    # pairs full (status 2) likewise; the result does not depend on either
    long_row = "1 |a " + " ".join(str(i) for i in range(100, 0, -1))
    text = ("\n".join([long_row, "1 |a 1 2", long_row]) + "\n").encode()
    want = _twin_rows(text)
    for cap, scratch in [(None, 0), (None, 10), (None, 100), (0, 0), (1, 0), (7, 30)]:
        labels, weights, rows, status, st, _ = _kernel(text, cap=cap, scratch=scratch)
        assert status == 0 and int(st[1]) == 3
        assert (labels, weights, rows) == want
    buf = np.frombuffer(text, dtype=np.uint8)
    st = np.zeros(13, dtype=np.int64)
    status = kvw.vw_parse(buf, st, np.empty(3), np.empty(3), np.zeros(4, np.int64),
                          np.empty(1000, np.int32), np.empty(1000), np.empty(0, np.int64),
                          np.empty(0), 3, 18, 0, False)
    assert status == 4 and st[12] == 100 and st[0] == 0 and st[1] == 0 and st[2] == 0


def test_kernel_namespaces_of_the_line_before():
    # the k-th namespace's hash is kept from the line before when the name is the same: names
    # of the same length that differ, swapped orders, more namespaces than are kept, weights
    lines = ["1 |ab x |cd y", "1 |cd x |ab y", "1 |ab:2 x |ab y |ab z |ab w |cd v |ab u",
             "1 |ba x |dc y", "1 |ab x | y |cd", "1 |abc x |ab y", "1 |a x |ab y", "1 |ab x",
             "1 |\x0bab x |ab\x0b y", "1 |12 3 |13 3", "1 |12 3 |12 3"]
    text = ("\n".join(lines) + "\n").encode()
    for seed in (0, 99):
        labels, weights, rows, status, _, _ = _kernel(text, seed=seed)
        assert status == 0
        assert _as_bits(rows) == _as_bits(_twin_rows(text, seed=seed)[2])


def test_kernel_digit_names_and_values():
    # all-digit names hash to their value plus the namespace hash, modulo 2**32 (long ones
    # wrap); a value in the one-pass form and the other forms agree with the twin
    names = ["0", "007", "4294967295", "4294967296", "99999999999999999999999", "12a", "a12",
             "1.5", "-3", "+3", "1e3", "\x0b12", "12\x0c"]
    values = ["", ":1", ":-0", ":0", ":+4", ":3.", ":.5", ":0.1", ":1e3", ":7e-320",
              ":12345678901234567890", ":9007199254740993", ":0.00000000000000000000001",
              ":1234567890123456789", ":-2.5"]
    lines = [f"1 |n {n}{v}" for n in names for v in values]
    lines += [f"1 |n {n}{v}|m {n}\t{n}{v}" for n in names[:4] for v in values[:6]]
    text = ("\n".join(lines) + "\n").encode()
    for seed in (0, 12345, 2**32 - 1):
        labels, weights, rows, status, _, _ = _kernel(text, seed=seed)
        assert status == 0
        twin = _twin_rows(text, seed=seed)
        assert labels == twin[0] and _as_bits(rows) == _as_bits(twin[2])


@pytest.mark.parametrize("text, code", [
    (b"1 |a x:1e308 x:1e308\n", 12),        # a sum overflows (the row is merged)
    (b"1 |a:1e300 x:1e300\n", 12),          # the namespace weight times the value
    (b"1 |a x:1:2\n", 11),                  # ':' ends a name, not a value
    (b"1 |a x:\n", 11),
])
def test_kernel_errors(text, code):
    _, _, _, status, st, _ = _kernel(text)
    assert (status, int(st[4]), int(st[5])) == (3, code, 1)
    with pytest.raises(ValueError):
        rvw.read_vw(text, "t")


def test_kernel_zero_sum_kept_and_zero_weight_namespace():
    # a repeat summing to 0 is kept (as the twin keeps it); a namespace of weight 0 (or -0)
    # drops its features, with or without a value
    text = b"1 |a x:1 x:-1 y |b:0 p q:3 |c:-0 r\n"
    labels, weights, rows, status, _, _ = _kernel(text)
    assert status == 0 and _as_bits(rows) == _as_bits(_twin_rows(text)[2])
    assert dict(rows[0]) == {rvw.feature_index(b"a", b"x"): 0.0,
                             rvw.feature_index(b"a", b"y"): 1.0}


def test_kernel_arguments():
    buf = np.frombuffer(b"1 |a x", dtype=np.uint8)        # no final line break
    st = np.zeros(13, dtype=np.int64)
    args = (np.empty(2), np.empty(2), np.zeros(3, np.int64), np.empty(8, np.int32),
            np.empty(8), np.empty(0, np.int64), np.empty(0), 2, 18, 0, False)
    with pytest.raises(ValueError, match="vw_parse: the buffer must end with a line break"):
        kvw.vw_parse(buf, st, *args)
    with pytest.raises(ValueError, match="vw_parse: inconsistent arguments"):
        kvw.vw_parse(np.frombuffer(b"1 |a x\n", dtype=np.uint8), np.zeros(12, np.int64),
                     *args)
    with pytest.raises(ValueError, match=r"vw_parse: bits must be in \[1, 31\]"):
        kvw.vw_parse(np.frombuffer(b"1 |a x\n", dtype=np.uint8), st, *args[:8], 32, 0, False)


@st.composite
def long_rows(draw):
    """Lines of many features: integer names in order (the sorted path), shuffled, repeated,
    folded by few bits, with values of every form; mixed namespaces."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        n = draw(st.integers(0, 70))
        first, step = draw(st.integers(0, 5)), draw(st.integers(1, 9))
        names = [str(first + step * i) for i in range(n)]
        order = draw(st.sampled_from(["sorted", "reversed", "shuffled", "repeats"]))
        if order == "reversed":
            names.reverse()
        elif order == "shuffled":
            names = draw(st.permutations(names))
        elif order == "repeats" and names:
            names = [draw(st.sampled_from(names + ["x", "y", ""])) for _ in range(n)]
        feats = []
        for name in names:
            v = draw(st.sampled_from(["", "", ":2", ":-1", ":0", ":0.5", ":1e300", ":3.",
                                      ":1e-5", ":x"]))
            feats.append(name + v if name else ":" + (v[1:] or "1"))
        ns = draw(st.sampled_from(["f", "", "g:2", "123"]))
        lines.append(draw(st.sampled_from(["1", "-1 2", "3 0.5 0"])) + f" |{ns} " +
                     draw(st.sampled_from([" ", "\t"])).join(feats))
    return ("\n".join(lines) + "\n").encode()


@given(long_rows(), st.sampled_from([(18, 0), (3, 0), (31, 7)]), st.sampled_from([1, 4]),
       st.sampled_from(["raise", "skip"]))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parity_on_long_rows(text, bits_seed, chunk_size, on_error):
    bits, seed = bits_seed
    _same(_outcome(_read_compiled, text, chunk_size, bits, seed, on_error),
          _outcome(_read_twin, text, bits, seed, on_error))


@given(st.binary(min_size=1, max_size=200), st.integers(0, 40), st.integers(0, 30),
       st.integers(1, 5))
@settings(max_examples=400, deadline=None)
def test_kernel_crafted_buffers(body, cap, scratch, max_rows):
    # any bytes (ended by a line break), small arrays: the kernel stays inside them and
    # reports a status; whatever it parsed agrees with the twin's rows of those lines
    text = body if body[-1:] in (b"\n", b"\r") else body + b"\n"
    buf = np.frombuffer(text, dtype=np.uint8)
    st_ = np.zeros(13, dtype=np.int64)
    labels, weights = np.full(max_rows + 1, -7.0), np.full(max_rows + 1, -7.0)
    indptr = np.zeros(max_rows + 2, dtype=np.int64)
    guard = 5                                              # a tail the kernel must not touch
    indices = np.full(cap + guard, -7, dtype=np.int32)
    data = np.full(cap + guard, -7.0)
    keys, vals = np.full(scratch + guard, -7, np.int64), np.full(scratch + guard, -7.0)
    status = kvw.vw_parse(buf, st_, labels, weights, indptr, indices[:cap], data[:cap],
                          keys[:scratch], vals[:scratch], max_rows, 18, 0, True)
    assert status in (0, 1, 2, 4)
    assert np.all(indices[cap:] == -7) and np.all(data[cap:] == -7.0)
    assert np.all(keys[scratch:] == -7) and np.all(vals[scratch:] == -7.0)
    assert labels[max_rows] == -7.0 and weights[max_rows] == -7.0
    m, nnz = int(st_[2]), int(st_[3])
    assert 0 <= m <= max_rows and 0 <= nnz <= cap and indptr[m] == nnz
    assert 0 <= st_[0] <= len(text)
    # the lines consumed, read by the twin (skipping bad ones, as the kernel did)
    tl, tw, trows, _, skipped = rvw.read_vw(text[:int(st_[0])], "t", on_error="skip")
    assert skipped == int(st_[10])
    rows = [list(zip(indices[indptr[i]:indptr[i + 1]].tolist(),
                     data[indptr[i]:indptr[i + 1]].tolist())) for i in range(m)]
    assert labels[:m].tolist() == tl and weights[:m].tolist() == tw
    assert _as_bits(rows) == _as_bits(trows)


# Malformed lines: (text, the reason expected after "iter_vw: <stream>, line N: ", N)
BAD = [
    (b"1 2 3\n", "no '|' (a VW line is: label [importance [base]] ['tag]|namespace features "
     "...)", 1),
    (b"1 |a x\n |a x\n", "no label before '|'", 2),
    (b"1|a x\n", "no label before '|' (VW reads a word written directly before '|' as a tag: "
     "put a space between the label and '|')", 1),
    (b"shared |u x\n", "'shared' examples (multiline examples with label-dependent features) "
     "are not supported", 1),
    (b"1:0.5:0.2 |a x\n", "the label '1:0.5:0.2' holds ':': label-dependent, cost-sensitive "
     "and contextual-bandit labels are not supported (only label [importance [base]])", 1),
    (b"1 2 0 4 |a x\n", "4 words before '|'; a label is: label [importance [base]] ['tag]", 1),
    (b"\n\nyes |a x\n", "the label 'yes' is not a finite number", 3),
    (b"nan |a x\n", "the label 'nan' is not a finite number", 1),
    (b"1 -2 |a x\n", "the importance weight '-2' is not a finite number >= 0", 1),
    (b"1 1 0.5 |a x\n", "the base '0.5' is not supported: only 0 (VW's initial prediction has "
     "no counterpart in mbcore)", 1),
    (b"1 |:2 x\n", "a namespace needs a name before its ':weight'", 1),
    (b"1 |a:w x\n", "the namespace weight 'w' is not a finite number", 1),
    (b"1 |a x:red\n", "the value 'red' of feature 'x' is not a finite number (name:string "
     "features are not supported)", 1),
    (b"1 |a x:1:2\n", "the value '1:2' of feature 'x' is not a finite number (name:string "
     "features are not supported)", 1),
    (b"1 |a x: 1\n", "the value '' of feature 'x' is not a finite number (name:string features "
     "are not supported)", 1),
    (b"1 |a x:1e999\n", "the value '1e999' of feature 'x' is not a finite number (name:string "
     "features are not supported)", 1),
    (b"1 |a:1e300 x:1e300\n", "a value overflows: a feature's value times its namespace "
     "weight, or the sum of a repeated feature, is not a finite float64", 1),
    (b"1 |a x:1e308 x:1e308\n", "a value overflows: a feature's value times its namespace "
     "weight, or the sum of a repeated feature, is not a finite float64", 1),
    (b"1 |a \xff:\xfe\n", "the value '\\\\xfe' of feature '\\\\xff' is not a finite number "
     "(name:string features are not supported)", 1),
]


@pytest.mark.parametrize("text, reason, line", BAD)
def test_malformed_lines(text, reason, line):
    expected = f"iter_vw: <stream>, line {line}: {reason}"
    for read in (_read_compiled, _read_twin,
                 lambda text: _read_compiled(text, interactive=True)):
        with pytest.raises(ValueError) as info:
            read(text)
        assert str(info.value) == expected
    # skipped and counted
    good = b"1 |a x\n"
    labels, _, rows, skipped, _ = _read_compiled(good + text + good, on_error="skip")
    assert _read_compiled(good + text + good, on_error="skip", interactive=True)[3] == skipped
    non_blank = [ln for ln in text.splitlines() if ln.strip()]
    assert (len(labels), skipped) == (2 + len(non_blank) - 1, 1)   # every other line is good
    assert _read_twin(good + text + good, on_error="skip") == \
        _read_compiled(good + text + good, on_error="skip")


# -- the stream: sources, chunks, parameters ----------------------------------------------------

def test_sources_and_chunking(tmp_path):
    lines = [f"{1 if i % 3 else -1} {i % 4 + 1} |f {i} w{i % 7}:{i / 8} |g:2 {i * 7919}"
             for i in range(3000)]
    text = ("\n".join(lines) + "\n").encode()
    plain, gz = tmp_path / "d.vw", tmp_path / "d.vw.anything"
    plain.write_bytes(text)
    gz.write_bytes(gzip.compress(text))
    expected = _read_twin(text)
    assert len(expected[0]) == 3000
    for chunk_size in (1, 7, 1000, 10_000):
        for source in (str(plain), gz, io.BytesIO(text), io.BytesIO(gz.read_bytes())):
            _same(("ok", _read_compiled(source, chunk_size)), ("ok", expected))
    _same(("ok", _read_compiled(text, 1000, interactive=True)), ("ok", expected))
    for path in (plain, gz):
        chunks = list(iter_vw(path, chunk_size=1000))
        assert [len(y) for _, y in chunks] == [1000, 1000, 1000]
        X = chunks[1][0]
        assert X.indices.dtype == np.int32 and X.shape == (1000, 1 << 18)
        assert np.all(np.diff(X.indptr) > 0)
        for i in range(1000):
            assert np.all(np.diff(X.indices[X.indptr[i]:X.indptr[i + 1]]) > 0)


def test_pipe():
    r, w = os.pipe()
    os.write(w, b"1 |a x\n-1 |a y\n")
    os.close(w)
    with os.fdopen(r, "rb") as f:
        chunks = list(iter_vw(f))
    assert [y.tolist() for _, y in chunks] == [[1.0, -1.0]]


def test_parameters_and_empty(tmp_path):
    p = tmp_path / "e.vw"
    p.write_bytes(b"\n  \n")
    with pytest.raises(ValueError, match=r"iter_vw: .*e\.vw holds no data rows"):
        list(iter_vw(p))
    for kw, msg in [({"bits": 0}, "bits must be an integer in"), ({"bits": 32}, "bits"),
                    ({"bits": True}, "bits"), ({"hash_seed": -1}, "hash_seed"),
                    ({"chunk_size": 0}, "chunk_size"), ({"on_error": "ignore"}, "on_error"),
                    ({"sample_weight": 1}, "sample_weight")]:
        with pytest.raises(ValueError, match=f"iter_vw: parameter {msg}"):
            iter_vw(p, **kw)
    with pytest.raises(FileNotFoundError):
        iter_vw(tmp_path / "missing.vw")
    with pytest.raises(TypeError, match="iter_vw: .* binary mode"):
        list(iter_vw(io.StringIO("1 |a x\n")))
    damaged = gzip.compress(b"1 |a x\n" * 1000)[:-30]
    p.write_bytes(damaged)
    with pytest.raises(OSError, match="iter_vw: .*gzip data is truncated or damaged"):
        list(iter_vw(p))
    assert "iter_vw" in mbcore.__all__ and mbcore.iter_vw is iter_vw


# -- a learner sees the columns computed --------------------------------------------------------

def test_mushrooms_perceptron_vw_equals_svmlight(tmp_path):
    X, y = load_mushrooms()
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    rows = X[:3000]
    labels = np.where(y[:3000] == y[0], 1, -1)
    vw_lines, svm_lines = [], []
    for r, lab in zip(rows, labels):
        nz = np.flatnonzero(r)
        # integer names in namespace "m", and string names in namespace "s" (duplicated data
        # with half the value, so both hashing rules and the namespace weight are used)
        vw_lines.append(f"{lab} |m " + " ".join(f"{j}:{float(r[j])!r}" for j in nz) +
                        " |s:0.5 " + " ".join(f"c{j}:{float(r[j])!r}" for j in nz))
        cols = {}
        for j in nz:
            for c, v in ((rvw.feature_index(b"m", str(j).encode()), float(r[j])),
                         (rvw.feature_index(b"s", f"c{j}".encode()), 0.5 * float(r[j]))):
                cols[c] = cols.get(c, 0.0) + v
        svm_lines.append(f"{lab} " + " ".join(f"{c}:{cols[c]!r}" for c in sorted(cols)))
    (tmp_path / "m.vw").write_text("\n".join(vw_lines) + "\n")
    (tmp_path / "m.svm").write_text("\n".join(svm_lines) + "\n")
    a = run_stream(Perceptron(), iter_vw(tmp_path / "m.vw", chunk_size=700), classes=[-1, 1])
    b = run_stream(Perceptron(), iter_svmlight(tmp_path / "m.svm", chunk_size=700,
                                               n_features=1 << 18, zero_based=True),
                   classes=[-1, 1])
    assert a.n == b.n == 3000
    assert a.mistakes == b.mistakes and a.mistake_curve.tolist() == b.mistake_curve.tolist()
    # and the integer names land on consecutive columns from the namespace hash, as VW does
    h = rvw.namespace_hash(b"m")
    assert rvw.feature_index(b"m", b"5") == (h + 5) & 0x3FFFF
