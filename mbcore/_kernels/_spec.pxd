# cython: language_level=3
"""The speculative block passes of _spec.h (exact online passes on several threads), declared
once for the kernels that use them (linear, multiplicative, bitset)."""

cdef extern from "_spec.h" nogil:
    ctypedef Py_ssize_t (*mb_scan_fn)(void* ctx, int slot, Py_ssize_t lo, Py_ssize_t hi,
                                      const Py_ssize_t* stop) noexcept nogil
    ctypedef Py_ssize_t (*mb_run_fn)(void* ctx, Py_ssize_t lo, Py_ssize_t hi,
                                     Py_ssize_t* bad) noexcept nogil
    ctypedef void (*mb_touch_fn)(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    Py_ssize_t mb_spec_pass(int threads, Py_ssize_t n, void* ctx, mb_scan_fn scan,
                            mb_run_fn run, mb_touch_fn touch, Py_ssize_t* bad)
    # row splitting (K classes: a row's scores in parts on the team; see _spec.h)
    ctypedef Py_ssize_t (*mb_part_fn)(void* ctx, int part) noexcept nogil
    ctypedef struct mb_split:
        int parts
        long long rows
        long long steals
        long long stretches
        long long late
        int serving
    mb_split* mb_split_new(mb_part_fn part, void* ctx, int parts)
    void mb_split_free(mb_split* sp)
    bint mb_split_serving(const mb_split* sp)
    void mb_split_row(mb_split* sp)
    Py_ssize_t mb_spec_pass_split(int threads, Py_ssize_t n, void* ctx, mb_scan_fn scan,
                                  mb_run_fn run, mb_touch_fn touch, mb_split* sp,
                                  Py_ssize_t* bad)
    void mb_touch_bytes(const void* p, Py_ssize_t nbytes)
    Py_ssize_t volatile_load "mb_volatile_load" (const Py_ssize_t* p)
    void store_release "mb_store_release" (Py_ssize_t* p, Py_ssize_t v)
    Py_ssize_t load_acquire "mb_load_acquire" (const Py_ssize_t* p)
    void atomic_add "mb_atomic_add" (Py_ssize_t* p, Py_ssize_t v)
    ctypedef struct mb_spec_cfg:
        Py_ssize_t seq_gap
        Py_ssize_t min_rows
        Py_ssize_t max_rows
        Py_ssize_t stretch
    mb_spec_cfg mb_spec_tuning
    void mb_spec_set_tuning(Py_ssize_t seq_gap, Py_ssize_t min_rows, Py_ssize_t max_rows,
                            Py_ssize_t stretch)
    int MB_SPEC_MAXT


cdef inline tuple spec_tuning_impl(seq_gap, min_rows, max_rows, stretch):
    """The block sizes of the calling module's speculative passes, as (seq_gap, min_rows,
    max_rows, stretch); the arguments that are not None replace them (each module that includes
    _spec.h has its own copy).  For tests (seq_gap=0, min_rows=1, stretch=1 send every row
    through the blocks); not thread-safe: set it before the passes."""
    cdef mb_spec_cfg c = mb_spec_tuning
    old = (c.seq_gap, c.min_rows, c.max_rows, c.stretch)
    mb_spec_set_tuning(old[0] if seq_gap is None else seq_gap,
                       old[1] if min_rows is None else min_rows,
                       old[2] if max_rows is None else max_rows,
                       old[3] if stretch is None else stretch)
    return old


cdef inline void touch_rows(const void* val, Py_ssize_t value_bytes, const void* ix,
                            int index_bytes, const void* indptr, Py_ssize_t row_len,
                            Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Read rows lo..hi-1 into the caches (the read-ahead of mb_spec_pass): dense rows of
    row_len values (indptr NULL), or CSR rows (their values and column indices; indptr of
    index_bytes, 4 or 8, like the indices)."""
    cdef Py_ssize_t a, b
    if indptr == NULL:
        mb_touch_bytes(<const char*>val + lo * row_len * value_bytes,
                       (hi - lo) * row_len * value_bytes)
        return
    if index_bytes == 8:
        a = (<const long long*>indptr)[lo]
        b = (<const long long*>indptr)[hi]
    else:
        a = (<const int*>indptr)[lo]
        b = (<const int*>indptr)[hi]
    if b <= a:
        return
    mb_touch_bytes(<const char*>val + a * value_bytes, (b - a) * value_bytes)
    mb_touch_bytes(<const char*>ix + a * index_bytes, (b - a) * index_bytes)
