"""The reference parser of Vowpal Wabbit's text format, and VW's feature hashing (standard library
only).

It defines what ``mbcore``'s compiled parser (``mbcore._kernels.vw``, through
``mbcore.streaming.iter_vw``) must give: the same rows, columns, values (bit for bit), labels,
importance weights and error messages.

**Lines.**  The text is bytes; lines end with ``\\n``, ``\\r\\n`` or ``\\r`` and are numbered
from 1.  A UTF-8 byte order mark at the start of a line is dropped (VW does so).  A line holding
only spaces, tabs, vertical tabs or form feeds is skipped.  There are no comments (``#`` is an
ordinary byte in VW, so it is here).

**A line** is ``label [importance [base]] ['tag]|namespace[:weight] feature[:value] ... |...``.
The part before the first ``|`` is the label part: if it holds a tab, what precedes the first
tab is dropped (as VW does); it is split on spaces into words; the last word is a tag (and is
dropped) if it starts with ``'`` or touches the ``|`` (``1|a x`` has the tag ``1`` and no
label, as in VW).  What is left must be one to three numbers: the label, the importance weight
(default 1, at least 0) and the base, VW's initial prediction, which must be 0 (mbcore's
learners have no counterpart).  The labels are returned as written (``-1``/``1``, or ``1..K``
for ``--oaa``).

**Features.**  Each ``|`` opens a namespace: its name is what follows up to a space, tab,
``:`` or ``|`` (none: the anonymous namespace ``| f``), with an optional ``:weight``; then
features separated by spaces or tabs, each ``name[:value]`` (value 1 by default; ``:value``
with no name is an anonymous feature).  A namespace hashes to ``h = hashstring(name, seed)``
(the anonymous one to 0 for the seed 0, ``murmurhash3_32(b"", seed)`` otherwise); a feature
to ``hashstring(name, h)``, an anonymous one to ``h + k`` (the k-th anonymous feature of this
``|``, from 0); ``hashstring`` is VW's: the name without leading and trailing bytes
``0x00``-``0x20``, then, if it is all digits, its value plus the seed (modulo 2**32), else
MurmurHash3 x86_32 of it seeded with the seed.  The column is the hash masked to ``bits``
bits.  The value is the namespace weight times the feature's value (float64); a feature of
value 0 is dropped (VW drops it); repeated columns of a line are summed in the order written
(VW's linear model adds them), and each row is sorted by column.

**Numbers** are ASCII ``[+-]`` digits with an optional ``.`` and fraction (at least one digit)
and an optional exponent ``[eE][+-]digits``, read as Python's ``float()`` (correctly rounded),
and must be finite.  (VW keeps float32 values; these are float64.)

**Not supported** (each is an error naming the line, never a guess): ``name:string`` features
(VW's chained hashing), label-dependent, cost-sensitive and contextual-bandit labels (a ``:`` in
the label), multiline examples (``shared``), a non-zero base, a value that is not a finite
number.  VW's options ``--hash all``, ``--redefine``, ``--affix``, ``--spelling``,
``--dictionary``, quadratic / cubic interactions and the constant feature have no counterpart
(mbcore's learners have their own intercept).

Examples
--------
>>> murmurhash3_32(b"", 0), murmurhash3_32(b"", 1)
(0, 1364076727)
>>> labels, weights, rows, lines, skipped = read_vw(b"1 2.0 |a 7 x:0.5\\n-1 | y\\n", "t.vw")
>>> labels, weights, lines
([1.0, -1.0], [2.0, 1.0], [1, 2])
>>> rows[1] == [(feature_index(b"", b"y"), 1.0)]
True
"""

import math
import re

__all__ = ["murmurhash3_32", "hashstring", "namespace_hash", "feature_index", "read_vw"]

_M32 = 0xFFFFFFFF
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_BLANK = b" \t\v\f"
_BOM = b"\xef\xbb\xbf"


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & _M32


def murmurhash3_32(data, seed=0):
    """MurmurHash3 x86_32 (Austin Appleby's, as in SMHasher) of ``data`` (bytes), an int in
    [0, 2**32)."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _M32
    n = len(data)
    nblocks = n // 4
    for i in range(nblocks):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * c1) & _M32
        k = _rotl(k, 15)
        k = (k * c2) & _M32
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _M32
    tail = data[4 * nblocks:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = (k * c1) & _M32
        k = _rotl(k, 15)
        k = (k * c2) & _M32
        h ^= k
    h ^= n & _M32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return h


def hashstring(name, seed):
    """VW's hash of a name: stripped of bytes 0x00-0x20 at both ends; all digits: its value
    plus ``seed`` modulo 2**32; otherwise ``murmurhash3_32(name, seed)``."""
    s, e = 0, len(name)
    while s < e and name[s] <= 0x20:
        s += 1
    while e > s and name[e - 1] <= 0x20:
        e -= 1
    name = name[s:e]
    if all(0x30 <= c <= 0x39 for c in name):
        return (int(name or b"0") + seed) & _M32
    return murmurhash3_32(name, seed)


def namespace_hash(namespace, seed=0):
    """The hash of a namespace's name (b"": the anonymous namespace)."""
    if not namespace:
        return 0 if seed == 0 else murmurhash3_32(b"", seed)
    return hashstring(namespace, seed)


def feature_index(namespace, feature, bits=18, seed=0):
    """The column of the feature named ``feature`` (bytes, not empty) in ``namespace``."""
    return hashstring(feature, namespace_hash(namespace, seed)) & ((1 << bits) - 1)


def _short(text, limit=30):
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _text(token):
    return _short(token.decode("utf-8", "backslashreplace"))


class _Bad(Exception):
    def __init__(self, reason):
        self.reason = reason


def _number(token):
    if not _NUMBER.match(token):
        return None
    v = float(token)
    return v if math.isfinite(v) else None


_OVERFLOW = ("a value overflows: a feature's value times its namespace weight, or the sum of a "
             "repeated feature, is not a finite float64")


def _label_part(part):
    """(label, importance) of the text before the first '|'."""
    tab = part.find(b"\t")
    if tab >= 0:
        part = part[tab + 1:]
    words = [w for w in part.split(b" ") if w]
    bare_tag = False
    if words and (not part.endswith(b" ") or words[-1].startswith(b"'")):
        bare_tag = not words[-1].startswith(b"'")
        words.pop()
    if not words:
        hint = (" (VW reads a word written directly before '|' as a tag: put a space between "
                "the label and '|')") if bare_tag else ""
        raise _Bad(f"no label before '|'{hint}")
    if words[0] == b"shared":
        raise _Bad("'shared' examples (multiline examples with label-dependent features) are not "
                   "supported")
    if b":" in words[0]:
        raise _Bad(f"the label {_text(words[0])} holds ':': label-dependent, cost-sensitive and "
                   "contextual-bandit labels are not supported (only label [importance [base]])")
    if len(words) > 3:
        raise _Bad(f"{len(words)} words before '|'; a label is: label [importance [base]] "
                   "['tag]")
    label = _number(words[0])
    if label is None:
        raise _Bad(f"the label {_text(words[0])} is not a finite number")
    weight = 1.0
    if len(words) >= 2:
        weight = _number(words[1])
        if weight is None or weight < 0:
            raise _Bad(f"the importance weight {_text(words[1])} is not a finite number >= 0")
    if len(words) == 3:
        base = _number(words[2])
        if base is None or base != 0:
            raise _Bad(f"the base {_text(words[2])} is not supported: only 0 (VW's initial "
                       "prediction has no counterpart in mbcore)")
    return label, weight


def _cut(body, p, stops):
    """The end of the token of ``body`` starting at ``p``: the first byte of ``stops``."""
    n = len(body)
    while p < n and body[p] not in stops:
        p += 1
    return p


_SEP = b" \t|"
_NAME_END = b" \t|:"


def _features(body, mask, seed):
    """The (column, value) pairs of the text from the first '|', in the order written."""
    anon_hash = 0 if seed == 0 else murmurhash3_32(b"", seed)
    pairs = []
    n, p = len(body), 0
    while p < n and body[p] == 0x7C:               # '|'
        p += 1
        anon, w = 0, 1.0
        if p == n or body[p] in _SEP:
            h = anon_hash
        elif body[p] == 0x3A:                      # ':'
            raise _Bad("a namespace needs a name before its ':weight'")
        else:
            e = _cut(body, p, _NAME_END)
            h = hashstring(body[p:e], seed)
            p = e
            if p < n and body[p] == 0x3A:
                e = _cut(body, p + 1, _SEP)
                w = _number(body[p + 1:e])
                if w is None:
                    raise _Bad(f"the namespace weight {_text(body[p + 1:e])} is not a finite "
                               "number")
                p = e
        while p < n and body[p] in b" \t":
            p += 1
            if p == n or body[p] in _SEP:
                continue
            e = _cut(body, p, _NAME_END)
            name = body[p:e]
            p = e
            x = 1.0
            if p < n and body[p] == 0x3A:
                e = _cut(body, p + 1, _SEP)
                x = _number(body[p + 1:e])
                if x is None:
                    raise _Bad(f"the value {_text(body[p + 1:e])} of feature {_text(name)} is "
                               "not a finite number (name:string features are not supported)")
                p = e
            if name:
                col = hashstring(name, h) & mask
            else:
                col = (h + anon) & mask
                anon += 1
            v = w * x
            if not math.isfinite(v):
                raise _Bad(_OVERFLOW)
            if v != 0:
                pairs.append((col, v))
    return pairs


def _merge(pairs):
    """Sorted by column (stable), repeated columns summed in the order written."""
    out = []
    for col, v in sorted(pairs, key=lambda cv: cv[0]):
        if out and out[-1][0] == col:
            out[-1] = (col, out[-1][1] + v)
        else:
            out.append((col, v))
    if not all(math.isfinite(v) for _, v in out):
        raise _Bad(_OVERFLOW)
    return out


def read_vw(data, name, owner="iter_vw", bits=18, hash_seed=0, on_error="raise"):
    """Parse Vowpal Wabbit text (see the module docstring).

    Parameters
    ----------
    data : bytes
    name : str
        The file, for messages.
    owner : str
        The function messages start with.
    bits : int
        Columns are hashes masked to ``bits`` bits (VW's ``-b``).
    hash_seed : int
        VW's ``--hash_seed``.
    on_error : "raise" or "skip"

    Returns
    -------
    labels : list of float
    weights : list of float, the importance weights
    rows : list of list of (column, value), sorted by column
    lines : list of int, the line of each row
    skipped : int, the bad lines skipped

    Raises
    ------
    ValueError
        ``"<owner>: <name>, line <n>: <reason>"`` at the first bad line.
    """
    mask = (1 << bits) - 1
    seed = hash_seed & _M32
    labels, weights, rows, lines, skipped = [], [], [], [], 0
    for no, line in enumerate(data.splitlines(), 1):
        if line.startswith(_BOM):
            line = line[3:]
        if not line.strip(_BLANK):
            continue
        try:
            bar = line.find(b"|")
            if bar < 0:
                raise _Bad("no '|' (a VW line is: label [importance [base]] ['tag]|namespace "
                           "features ...)")
            label, weight = _label_part(line[:bar])
            row = _merge(_features(line[bar:], mask, seed))
        except _Bad as e:
            if on_error == "skip":
                skipped += 1
                continue
            raise ValueError(f"{owner}: {name}, line {no}: {e.reason}") from None
        labels.append(label)
        weights.append(weight)
        rows.append(row)
        lines.append(no)
    return labels, weights, rows, lines, skipped
