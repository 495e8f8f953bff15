"""The driver of the compiled Vowpal Wabbit text parser (``mbcore._kernels.vw``), for
:func:`mbcore.streaming.iter_vw`.

A source (a path, or a binary file object) is read in blocks of 256 KiB, gzip-decompressed when
its first two bytes are gzip's magic number, cut into blocks of whole lines
(``mbcore._readers``), and each block is handed to the compiled parser, which fills the arrays
of one chunk.  Memory is O(chunk + block).  The semantics (grammar, hashing, values, errors and
their messages) are those of the pure-Python twin ``mbref.vw``.
"""


import numpy as np

from . import _readers
from ._kernels.vw import vw_parse

__all__ = ["VWReader", "vw_chunks", "VW_STATE"]

# the state array of vw_parse (see vw.pyx)
_POS, _LINE, _ROW, _NNZ, _CODE, _ELINE, _TOK0, _TOK1, _AUX0, _AUX1, _SKIPPED, \
    _FIRSTSKIP, _NEED = range(13)
VW_STATE = 13

_OVERFLOW = ("a value overflows: a feature's value times its namespace weight, or the sum of a "
             "repeated feature, is not a finite float64")


def _short(text, limit=30):
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _tok(block, s, e):
    return _short(bytes(block[s:e]).decode("utf-8", "backslashreplace"))


def _reason(code, block, st):
    t0, t1, a0, a1 = (int(st[i]) for i in (_TOK0, _TOK1, _AUX0, _AUX1))
    tok = _tok(block, t0, t1)
    if code == 1:
        return ("no '|' (a VW line is: label [importance [base]] ['tag]|namespace features "
                "...)")
    if code == 2:
        hint = (" (VW reads a word written directly before '|' as a tag: put a space between "
                "the label and '|')") if a0 else ""
        return f"no label before '|'{hint}"
    if code == 3:
        return ("'shared' examples (multiline examples with label-dependent features) are not "
                "supported")
    if code == 4:
        return (f"the label {tok} holds ':': label-dependent, cost-sensitive and "
                "contextual-bandit labels are not supported (only label [importance [base]])")
    if code == 5:
        return f"{a0} words before '|'; a label is: label [importance [base]] ['tag]"
    if code == 6:
        return f"the label {tok} is not a finite number"
    if code == 7:
        return f"the importance weight {tok} is not a finite number >= 0"
    if code == 8:
        return (f"the base {tok} is not supported: only 0 (VW's initial prediction has no "
                "counterpart in mbcore)")
    if code == 9:
        return "a namespace needs a name before its ':weight'"
    if code == 10:
        return f"the namespace weight {tok} is not a finite number"
    if code == 11:
        return (f"the value {tok} of feature {_tok(block, a0, a1)} is not a finite number "
                "(name:string features are not supported)")
    return _OVERFLOW


class VWReader(_readers.Reader):
    """The iterator :func:`mbcore.streaming.iter_vw` returns: chunks ``(X, y)`` or ``(X, y, w)``,
    with the attributes of ``mbcore._readers.Reader`` (``skipped``, ``first_skipped_line``,
    ``rows``)."""

    __slots__ = ()

    def __next__(self):
        item = next(self._gen)
        self.rows += item[1].shape[0]
        return item


def vw_chunks(source, reader, owner, chunk_size, bits, seed, skip, interactive=False,
              lines=False):
    """Yield (labels, weights, indptr, indices, data, lines) per chunk of ``chunk_size`` rows
    (int64 indptr, int32 indices: every column is below 2**31; ``lines`` the 1-based line of
    each row, int64, or None unless ``lines``); ``interactive``: the source is read as it
    arrives (``_readers.Arrivals``) and a chunk also ends with each arrival."""
    name = reader.name
    st = np.zeros(VW_STATE, dtype=np.int64)
    cap = min(chunk_size, 1 << 10)
    # the parser's scratch for sorting a long row that does not come sorted (grown as needed;
    # never part of a chunk)
    keys, vals = np.empty(0, dtype=np.int64), np.empty(0)

    def fresh(cap, cap_nnz):
        indptr = np.empty(cap + 1, dtype=np.int64)
        indptr[0] = 0
        return (np.empty(cap), np.empty(cap), indptr, np.empty(cap_nnz, dtype=np.int32),
                np.empty(cap_nnz), np.empty(cap, dtype=np.int64) if lines else None)

    def cut():
        """The chunk of the rows parsed so far; new arrays for the next ones."""
        nonlocal labels, weights, indptr, indices, data, rl
        m, nnz = int(st[_ROW]), int(st[_NNZ])
        out = labels[:m], weights[:m], indptr[:m + 1], indices[:nnz], data[:nnz], \
            rl[:m] if lines else None
        labels, weights, indptr, indices, data, rl = fresh(cap, max(indices.shape[0], 16))
        st[_ROW] = st[_NNZ] = 0
        return out

    labels, weights, indptr, indices, data, rl = fresh(cap, cap * 16)
    with _readers.open_source(source, interactive) as f:
        for block in _readers.line_blocks(f, owner, name, lambda: int(st[_LINE])):
            st[_POS] = 0
            while True:
                status = vw_parse(block, st, labels, weights, indptr, indices, data, keys, vals,
                                  cap, bits, seed, skip, rl)
                if status == 0:
                    break
                if status == 1:
                    if cap < chunk_size:               # grow the rows
                        m = int(st[_ROW])
                        cap = min(chunk_size, 4 * cap)
                        labels, weights = _readers.grow(labels, cap, m), \
                            _readers.grow(weights, cap, m)
                        indptr = _readers.grow(indptr, cap + 1, m + 1)
                        if lines:
                            rl = _readers.grow(rl, cap, m)
                        continue
                    yield cut()
                elif status == 2:                      # grow the pairs: 2x, or as the rows say
                    m, nnz = int(st[_ROW]), int(st[_NNZ])
                    more = 2 * indices.shape[0] + 16
                    if m:
                        more = max(more, min(nnz * chunk_size // m + nnz // 8, 4 * more))
                    indices, data = _readers.grow(indices, more, nnz), \
                        _readers.grow(data, more, nnz)
                elif status == 4:                      # grow the scratch
                    need = max(int(st[_NEED]), 2 * keys.shape[0])
                    keys, vals = np.empty(need, dtype=np.int64), np.empty(need)
                else:
                    code = int(st[_CODE])
                    raise ValueError(f"{owner}: {name}, line {int(st[_ELINE])}: "
                                     f"{_reason(code, block, st)}")
            if st[_SKIPPED]:
                reader.skipped = int(st[_SKIPPED])
                reader.first_skipped_line = int(st[_FIRSTSKIP])
            if interactive and st[_ROW]:
                yield cut()
    m, nnz = int(st[_ROW]), int(st[_NNZ])
    if m:
        yield labels[:m], weights[:m], indptr[:m + 1], indices[:nnz], data[:nnz], \
            rl[:m] if lines else None
