# cython: language_level=3
"""Compiled kernels over concept bitsets: a finite class is stored
column-wise, for each point the 64-bit words of the set of concepts labelling it 1 (tail bits
zero); the version space is one such bitset.  Halving counts the alive concepts on each side with
word-level popcounts over the non-zero words of the version space only (their list is compacted
after every update), so the cost per example falls as the version space shrinks.  Mirrors
``mbref.version_space``.
"""

# Popcounts, chosen at run time: on x86 the loops are compiled twice, for any x86-64 CPU (where
# GCC's __builtin_popcountll calls the libgcc routine __popcountdi2, no popcnt instruction) and
# with target("popcnt"), and the module's first import takes the second where the CPU has the
# instruction (CPUID: _cpu.h), so one wheel serves old and new CPUs.  Elsewhere (other
# architectures, MSVC's __popcnt64) one version.  Both give the same counts.
cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    #define MB_POP(x) ((long long)__popcnt64(x))
    #else
    #define MB_POP(x) ((long long)__builtin_popcountll(x))
    #endif
    #if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && !defined(MB_NO_POPCNT_DISPATCH)
    #define MB_POPCNT_DISPATCH 1
    #endif
    #include "_cpu.h"

    /* the loops: set bits of a (the words Z[0..m-1]); of a & b (the words Z[...]); of a & b
       (all W words) */
    #define MB_COUNT_FNS(SUF, ATTR)                                                        \
    ATTR static long long mb_count_##SUF(const unsigned long long *a, Py_ssize_t W) {     \
        long long s = 0; Py_ssize_t w;                                                     \
        for (w = 0; w < W; w++) s += MB_POP(a[w]);                                         \
        return s;                                                                          \
    }                                                                                      \
    ATTR static long long mb_and_count_z_##SUF(const unsigned long long *a,               \
                                               const unsigned long long *b, const int *Z,  \
                                               Py_ssize_t m) {                             \
        long long s = 0; Py_ssize_t k;                                                     \
        for (k = 0; k < m; k++) s += MB_POP(a[Z[k]] & b[Z[k]]);                            \
        return s;                                                                          \
    }                                                                                      \
    ATTR static long long mb_and_count_##SUF(const unsigned long long *a,                 \
                                             const unsigned long long *b, Py_ssize_t W) {  \
        long long s = 0; Py_ssize_t w;                                                     \
        for (w = 0; w < W; w++) s += MB_POP(a[w] & b[w]);                                  \
        return s;                                                                          \
    }
    MB_COUNT_FNS(generic, )
    #ifdef MB_POPCNT_DISPATCH
    MB_COUNT_FNS(popcnt, __attribute__((target("popcnt"))))
    #endif

    static long long (*mb_count)(const unsigned long long *, Py_ssize_t) = mb_count_generic;
    static long long (*mb_and_count_z)(const unsigned long long *, const unsigned long long *,
                                       const int *, Py_ssize_t) = mb_and_count_z_generic;
    static long long (*mb_and_count)(const unsigned long long *, const unsigned long long *,
                                     Py_ssize_t) = mb_and_count_generic;

    /* 1: the popcnt versions, 0: the generic ones, -1: the best this CPU has.  Returns 1 if
       the popcnt versions are in use. */
    static int mb_popcount_choose(int want) {
    #ifdef MB_POPCNT_DISPATCH
        int has = mb_cpu_has_popcnt();
        if (want < 0) want = has;
        if (want && has) {
            mb_count = mb_count_popcnt; mb_and_count_z = mb_and_count_z_popcnt;
            mb_and_count = mb_and_count_popcnt;
            return 1;
        }
    #endif
        mb_count = mb_count_generic; mb_and_count_z = mb_and_count_z_generic;
        mb_and_count = mb_and_count_generic;
        return 0;
    }
    static int mb_popcount_dispatches(void) {
    #ifdef MB_POPCNT_DISPATCH
        return 1;
    #else
        return 0;
    #endif
    }
    """
    long long mb_count(const unsigned long long* a, Py_ssize_t W) nogil
    long long mb_and_count_z(const unsigned long long* a, const unsigned long long* b,
                             const int* Z, Py_ssize_t m) nogil
    long long mb_and_count(const unsigned long long* a, const unsigned long long* b,
                           Py_ssize_t W) nogil
    int mb_popcount_choose(int want)
    int mb_popcount_dispatches()


_POPCNT = mb_popcount_choose(-1)


def popcount_impl(kind=None):
    """Which popcount loops the kernels use: "popcnt" (the CPU's instruction) or "generic"
    (portable code).  ``kind`` ("popcnt", "generic" or "best") switches them, for tests and
    benchmarks; the counts are the same.  Returns the one in use."""
    global _POPCNT
    if kind is not None:
        if kind not in ("popcnt", "generic", "best"):
            raise ValueError(f"popcount_impl: kind must be 'popcnt', 'generic' or 'best', "
                             f"got {kind!r}")
        _POPCNT = mb_popcount_choose({"popcnt": 1, "generic": 0, "best": -1}[kind])
    return "popcnt" if _POPCNT else "generic"


def popcount_dispatches():
    """Whether this build chooses its popcount loops at run time (x86 with GCC or Clang)."""
    return bool(mb_popcount_dispatches())


def popcount_words(const unsigned long long[::1] a):
    """The number of set bits."""
    cdef long long s = 0
    if a.shape[0]:
        with nogil:
            s = mb_count(&a[0], a.shape[0])
    return s


def split_counts(const unsigned long long[:, ::1] cols, const unsigned long long[::1] v,
                 long long[::1] out):
    """out[j] = the number of set bits of cols[j] & v, for every row j of cols (points): how
    many concepts of the set v label point j with 1, for all points in one pass.  Returns the
    number of set bits of v.  The caller checks the shapes (cols.shape[1] == v.shape[0],
    out.shape[0] == cols.shape[0])."""
    cdef Py_ssize_t j, W = v.shape[0]
    cdef long long size = 0
    if cols.shape[1] != W or out.shape[0] != cols.shape[0]:
        raise ValueError("split_counts: the shapes of cols, v and out disagree")
    if W == 0:
        out[:] = 0
        return 0
    with nogil:
        size = mb_count(&v[0], W)
        for j in range(cols.shape[0]):
            out[j] = mb_and_count(&cols[j, 0], &v[0], W)
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
    cdef long long q1, q0, newtotal
    cdef int yt
    q1 = mb_and_count_z(alive, col, Z, m)
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
