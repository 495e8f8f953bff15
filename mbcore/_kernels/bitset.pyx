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


def split_counts(const unsigned long long[:, ::1] cols, const unsigned long long[::1] v,
                 long long[::1] out):
    """out[j] = the number of set bits of cols[j] & v, for every row j of cols (points): how
    many concepts of the set v label point j with 1, for all points in one pass.  Returns the
    number of set bits of v.  The caller checks the shapes (cols.shape[1] == v.shape[0],
    out.shape[0] == cols.shape[0])."""
    cdef Py_ssize_t j, w, W = v.shape[0]
    cdef long long s, size = 0
    if cols.shape[1] != W or out.shape[0] != cols.shape[0]:
        raise ValueError("split_counts: the shapes of cols, v and out disagree")
    with nogil:
        for w in range(W):
            size += mb_popcount64(v[w])
        for j in range(cols.shape[0]):
            s = 0
            for w in range(W):
                s += mb_popcount64(cols[j, w] & v[w])
            out[j] = s
    return size


def nonzero_words(const unsigned long long[::1] a, int[::1] out):
    """The indices of the non-zero words into out; returns how many."""
    cdef Py_ssize_t w, k = 0
    with nogil:
        for w in range(a.shape[0]):
            if a[w] != 0:
                out[k] = <int>w
                k += 1
    return k


from ._spec cimport mb_spec_pass, spec_tuning_impl, volatile_load


def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)


cdef struct HvJob:
    # One Halving pass, for mb_spec_pass: the class, the rows, the state (alive, the index of
    # its non-zero words, their number and the alive count), the outputs and the pass's counters.
    const unsigned long long* cols
    Py_ssize_t W                # words per point
    const long long* idx
    const signed char* y        # (NULL without update)
    unsigned long long* alive
    int* Z
    long long* nnz
    long long* alive_count
    signed char* pred           # or NULL
    unsigned char* upd          # or NULL
    long long mistakes          # mistakes of the rows judged with a non-empty version space
    Py_ssize_t empty_from       # the version space is empty from this row on (or rows)
    int conservative
    int update


cdef inline int hv_judge(const HvJob* j, const unsigned long long* col, Py_ssize_t m,
                         long long total, Py_ssize_t t, int* pr, long long* q1out) noexcept nogil:
    """Row t (its point's words col) with the current state (m non-zero words, total alive):
    the prediction into pr (0/1), the alive concepts labelling it 1 into q1out; returns 1 iff
    the row would change the state.  (With a non-empty version space every mistake changes it;
    with an empty one nothing does.)  hv_run acts on it; the speculative scans (hv_scan) call it
    alone, so that both judge a row by the same arithmetic."""
    cdef const int* Z = j.Z
    cdef const unsigned long long* alive = j.alive
    cdef long long q1 = 0, q0, newtotal
    cdef Py_ssize_t k
    cdef int yt
    for k in range(m):
        q1 += mb_popcount64(alive[Z[k]] & col[Z[k]])
    q0 = total - q1
    q1out[0] = q1
    pr[0] = 1 if q1 >= q0 else 0
    if not j.update:
        return 0
    yt = j.y[t] > 0
    if j.conservative and pr[0] == yt:
        return 0
    newtotal = q1 if yt else q0
    return newtotal != total


cdef Py_ssize_t hv_run(HvJob* j, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (outputs, mistakes, updates): the number of rows
    that changed the state."""
    cdef Py_ssize_t t, k, w, m, m2, W = j.W
    cdef const unsigned long long* col
    cdef unsigned long long* alive = j.alive
    cdef int* Z = j.Z
    cdef long long total, q1, newtotal, mistakes = 0, changed = 0
    cdef unsigned long long a, keep
    cdef int pr = 0, yt, ch
    for t in range(lo, hi):
        col = j.cols + j.idx[t] * W
        m = j.nnz[0]
        total = j.alive_count[0]
        ch = hv_judge(j, col, m, total, t, &pr, &q1)
        if j.pred != NULL:
            j.pred[t] = 1 if pr else -1
        if not j.update:
            continue
        yt = j.y[t] > 0
        if total > 0:
            mistakes += pr != yt        # (an empty version space's: halving_pass counts)
        if ch:
            # keep the agreeing concepts, dropping words that become zero
            newtotal = q1 if yt else total - q1
            m2 = 0
            for k in range(m):
                w = Z[k]
                keep = col[w] if yt else ~col[w]
                a = alive[w] & keep
                alive[w] = a
                if a != 0:
                    Z[m2] = <int>w
                    m2 += 1
            j.nnz[0] = m2
            j.alive_count[0] = newtotal
            changed += 1
            if newtotal == 0:
                j.empty_from = t + 1
        if j.upd != NULL:
            j.upd[t] = ch
    j.mistakes += mistakes
    return changed


cdef Py_ssize_t hv_scan(HvJob* j, Py_ssize_t lo, Py_ssize_t hi,
                        const Py_ssize_t* stop) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that would change it, or hi; the outputs of the rows before it."""
    cdef Py_ssize_t t, m = j.nnz[0], W = j.W
    cdef long long total = j.alive_count[0], q1
    cdef int pr = 0
    for t in range(lo, hi):
        if (t & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        if hv_judge(j, j.cols + j.idx[t] * W, m, total, t, &pr, &q1) != 0:
            return t
        if j.pred != NULL:
            j.pred[t] = 1 if pr else -1
        if j.upd != NULL:
            j.upd[t] = 0
    return hi


cdef Py_ssize_t hv_run_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi,
                          Py_ssize_t* bad) noexcept nogil:
    return hv_run(<HvJob*>ctx, lo, hi)


cdef Py_ssize_t hv_scan_cb(void* ctx, int slot, Py_ssize_t lo, Py_ssize_t hi,
                           const Py_ssize_t* stop) noexcept nogil:
    return hv_scan(<HvJob*>ctx, lo, hi, stop)


def halving_pass(const unsigned long long[:, ::1] cols, const long long[::1] idx,
                 const signed char[::1] y, unsigned long long[::1] alive, int[::1] nz,
                 long long[::1] nnz, long long[::1] alive_count, signed char[::1] pred,
                 unsigned char[::1] upd, long long[::1] counts, bint conservative,
                 bint update, int threads=1):
    """Rows of the Halving algorithm.  Row t is the point idx[t]; predict 1 iff the alive
    concepts labelling it 1 are at least as many as those labelling it 0 (ties -> 1).  With
    update, keep only the concepts that agree with the label: after every example, or only after
    mistakes when conservative.  nz[:nnz[0]] lists the non-zero words of alive (kept compact);
    alive_count[0] is its popcount.  On up to ``threads`` threads (mb_spec_pass: the rows
    between two changes are judged at once, the same results, bit for bit, for any number)."""
    cdef HvJob j
    cdef Py_ssize_t t, rows = idx.shape[0], changed, bad = -1
    cdef long long tail = 0
    if rows == 0:
        return
    if update and y.shape[0] < rows:
        raise ValueError("halving_pass: y is shorter than idx")
    if pred is not None and pred.shape[0] < rows:
        raise ValueError("halving_pass: pred is shorter than idx")
    if upd is not None and upd.shape[0] < rows:
        raise ValueError("halving_pass: upd is shorter than idx")
    j.cols = &cols[0, 0]
    j.W = cols.shape[1]
    j.idx = &idx[0]
    j.y = &y[0] if update else NULL
    j.alive = &alive[0]
    j.Z = &nz[0]
    j.nnz = &nnz[0]
    j.alive_count = &alive_count[0]
    j.pred = &pred[0] if pred is not None else NULL
    j.upd = &upd[0] if upd is not None else NULL
    j.mistakes = 0
    j.empty_from = 0 if alive_count[0] == 0 else rows
    j.conservative = conservative
    j.update = update
    with nogil:
        changed = mb_spec_pass(threads, rows, &j, hv_scan_cb, hv_run_cb, NULL, &bad)
        if update:
            # an empty version space predicts 1 and never changes: its mistakes are its 0 labels
            for t in range(j.empty_from, rows):
                tail += j.y[t] <= 0
            counts[0] += rows
            counts[1] += j.mistakes + tail
            counts[2] += changed
