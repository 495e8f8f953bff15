# cython: language_level=3
"""Compiled kernels over concept bitsets: a finite class is stored
column-wise, for each point the 64-bit words of the set of concepts labelling it 1 (tail bits
zero); the version space is one such bitset.  Halving counts the alive concepts on each side with
word-level popcounts over the non-zero words of the version space only (their list is compacted
after every update), so the cost per example falls as the version space shrinks.  Mirrors
``mbref.version_space``.
"""

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int mb_popcount64(unsigned long long x) { return (int)__popcnt64(x); }
    #else
    static inline int mb_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    #endif
    """
    int mb_popcount64(unsigned long long x) nogil


def popcount_words(const unsigned long long[::1] a):
    """The number of set bits."""
    cdef Py_ssize_t w
    cdef long long s = 0
    with nogil:
        for w in range(a.shape[0]):
            s += mb_popcount64(a[w])
    return s


def nonzero_words(const unsigned long long[::1] a, int[::1] out):
    """The indices of the non-zero words into out; returns how many."""
    cdef Py_ssize_t w, k = 0
    with nogil:
        for w in range(a.shape[0]):
            if a[w] != 0:
                out[k] = <int>w
                k += 1
    return k


def halving_pass(const unsigned long long[:, ::1] cols, const long long[::1] idx,
                 const signed char[::1] y, unsigned long long[::1] alive, int[::1] nz,
                 long long[::1] nnz, long long[::1] alive_count, signed char[::1] pred,
                 unsigned char[::1] upd, long long[::1] counts, bint conservative,
                 bint update):
    """Rows of the Halving algorithm.  Row t is the point idx[t]; predict 1 iff the alive
    concepts labelling it 1 are at least as many as those labelling it 0 (ties -> 1).  With
    update, keep only the concepts that agree with the label: after every example, or only after
    mistakes when conservative.  nz[:nnz[0]] lists the non-zero words of alive (kept compact);
    alive_count[0] is its popcount."""
    cdef Py_ssize_t t, k, w, rows = idx.shape[0], m, m2
    cdef const unsigned long long* col
    cdef long long q1, q0, total, newtotal
    cdef unsigned long long a, keep
    cdef int pr, yt, changed
    cdef int* Z = &nz[0]
    with nogil:
        for t in range(rows):
            col = &cols[idx[t], 0]
            m = nnz[0]
            total = alive_count[0]
            q1 = 0
            for k in range(m):
                w = Z[k]
                q1 += mb_popcount64(alive[w] & col[w])
            q0 = total - q1
            pr = 1 if q1 >= q0 else 0
            if pred is not None:
                pred[t] = 1 if pr else -1
            if not update:
                continue
            yt = y[t] > 0
            counts[0] += 1
            counts[1] += pr != yt
            changed = 0
            if not conservative or pr != yt:
                newtotal = q1 if yt else q0
                changed = newtotal != total
                if changed:
                    # keep the agreeing concepts, dropping words that become zero
                    m2 = 0
                    for k in range(m):
                        w = Z[k]
                        keep = col[w] if yt else ~col[w]
                        a = alive[w] & keep
                        alive[w] = a
                        if a != 0:
                            Z[m2] = <int>w
                            m2 += 1
                    nnz[0] = m2
                    alive_count[0] = newtotal
            counts[2] += changed
            if upd is not None:
                upd[t] = changed
