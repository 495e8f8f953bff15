# cython: language_level=3
"""Compiled kernel of the deterministic finite automata of :mod:`mbcore.queries.automata`: run
a ragged batch of words (letter positions, concatenated, with offsets) through a transition
table with the GIL released, one table read per letter and no Python object in the loop.
Mirrors ``mbref.queries.DFA.accepts``.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t


def run_batch(const int32_t[:, ::1] delta, const uint8_t[::1] accepting, int32_t start,
              const int64_t[::1] offsets, const int32_t[::1] letters, uint8_t[::1] out):
    """out[w] = accepting[state reached from start on letters[offsets[w]:offsets[w+1]]].

    The caller has checked everything: delta entries in [0, n), 0 <= letters < delta.shape[1],
    offsets non-decreasing from 0 to len(letters), len(offsets) == len(out) + 1.
    """
    cdef Py_ssize_t w, i, nw = out.shape[0]
    cdef int32_t q
    with nogil:
        for w in range(nw):
            q = start
            for i in range(offsets[w], offsets[w + 1]):
                q = delta[q, letters[i]]
            out[w] = accepting[q]


def run_states(const int32_t[:, ::1] delta, int32_t start, const int64_t[::1] offsets,
               const int32_t[::1] letters, int32_t[::1] out):
    """out[w] = the state reached from start on word w (same layout as run_batch)."""
    cdef Py_ssize_t w, i, nw = out.shape[0]
    cdef int32_t q
    with nogil:
        for w in range(nw):
            q = start
            for i in range(offsets[w], offsets[w + 1]):
                q = delta[q, letters[i]]
            out[w] = q


def run_traces(const int32_t[:, ::1] delta, const uint8_t[::1] accepting, int32_t start,
               const int64_t[::1] offsets, const int32_t[::1] letters, uint8_t[::1] out):
    """The answers after every prefix of every word (trace queries): word w's
    len(w) + 1 answers go to out[offsets[w] + w : offsets[w + 1] + w + 1], shortest prefix
    first; len(out) == len(letters) + number of words.  Same layout checks as run_batch."""
    cdef Py_ssize_t w, i, at, nw = offsets.shape[0] - 1
    cdef int32_t q
    with nogil:
        for w in range(nw):
            q = start
            at = offsets[w] + w
            out[at] = accepting[q]
            for i in range(offsets[w], offsets[w + 1]):
                q = delta[q, letters[i]]
                at += 1
                out[at] = accepting[q]
