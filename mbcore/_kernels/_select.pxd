# cython: language_level=3
"""Selective sampling's coin, shared by the binary (``linear``) and K-class (``multiclass``)
passes of ``mbcore.selective`` (the twin: ``mbref.selective``).  Only inline functions and a
struct: nothing here exists at run time as a module."""

from libc.math cimport sqrt, pow, INFINITY

from ._rng cimport splitmix_uniform


cdef struct SelCtx:
    double b
    int adaptive
    unsigned long long* rng     # the generator's state (one word)
    double* x2                  # the largest ||x'||^2 seen (adaptive)
    long long* counts           # [rows seen, labels asked, mistakes where known, updates]
    int query                   # 0: the coin (CBGZ 2006); 1: BBQ's threshold (CBGO 2009)
    double kappa                # BBQ's exponent: ask iff r_t > t^-kappa


cdef inline void select_init(SelCtx* sc, double b, bint adaptive, unsigned long long* rng,
                             double* x2, long long* counts) noexcept nogil:
    """The coin's context of one selective pass (its arrays checked by the caller)."""
    sc.b = b
    sc.adaptive = adaptive
    sc.rng = rng
    sc.x2 = x2
    sc.counts = counts
    sc.query = 0
    sc.kappa = 0.0


cdef inline bint select_coin(SelCtx* sc, double margin, double sq,
                             long long updates) noexcept nogil:
    """One row's coin: heads (ask) with probability b_t / (b_t + margin), margin >= 0 (|p|, or
    with K classes the gap between the two highest scores), one draw of the generator;
    b_t = b, or adaptive b X_t^2 sqrt(1 + K_t) with X_t^2 the largest ||x'||^2 so far (sq:
    this row's) and K_t = ``updates``, the learner's updates before the row; probability 1
    when b_t + margin is 0 (only zero rows seen so far, adaptive) or b_t is infinite (the
    product overflowed).  Counts the row."""
    cdef double b = sc.b
    if sc.adaptive:
        if sq > sc.x2[0]:
            sc.x2[0] = sq
        b = (b * sc.x2[0]) * sqrt(1.0 + <double>updates)
    sc.counts[0] += 1
    # (b_t + margin = 0: a learner that has seen only zero rows, and an infinite b_t: ask)
    if b == INFINITY or b + margin == 0.0:
        splitmix_uniform(sc.rng)
        return True
    return splitmix_uniform(sc.rng) < b / (b + margin)


cdef inline bint select_bbq(SelCtx* sc, double chi) noexcept nogil:
    """One row's query by BBQ's rule (Cesa-Bianchi, Gentile & Orabona 2009): with
    chi = x'^T A^-1 x' (A the learner's correlation matrix before the row, chi >= 0),
    r_t = chi / (1 + chi) = x'^T (A + x' x'^T)^-1 x'; ask iff r_t > t^-kappa, t the rows seen
    so far this one included (1, 2, ...).  Deterministic: no draw.  Counts the row."""
    sc.counts[0] += 1
    return chi / (1.0 + chi) > pow(<double>sc.counts[0], -sc.kappa)


cdef inline bint select_ask(SelCtx* sc, double chi, double margin, double sq,
                            long long updates) noexcept nogil:
    """One row's query by the pass's rule: BBQ's threshold on ``chi`` when the sampler asked for
    it (``sc.query``), else the coin on ``margin`` (``sq`` and ``updates`` as ``select_coin``
    takes them).  Counts the row."""
    if sc.query:
        return select_bbq(sc, chi)
    return select_coin(sc, margin, sq, updates)
