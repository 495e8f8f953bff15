# cython: language_level=3
"""Compiled kernels of the Boolean concept learners: conjunction and
disjunction elimination over literal masks, and the mistake-bound decision-list learner over its
4n + 2 rules with levels.  Rows are dense uint8 0/1 (validated in Python); every loop over the n
variables is branch-free so the compiler vectorises it.  Mirrors ``mbref.boolean``.
"""

cdef enum:
    CONJ = 0
    DISJ_MONOTONE = 1
    DISJ_ALL = 2


cdef inline int conj_value(const unsigned char* x, const unsigned char* P,
                           const unsigned char* N, Py_ssize_t n) noexcept nogil:
    """1 iff every literal of the conjunction holds on x."""
    cdef Py_ssize_t i
    cdef unsigned char viol = 0
    for i in range(n):
        viol |= (P[i] & (x[i] ^ 1)) | (N[i] & x[i])
    return viol == 0


cdef inline int disj_value(const unsigned char* x, const unsigned char* P,
                           const unsigned char* N, Py_ssize_t n, int all_literals) noexcept nogil:
    """1 iff some literal of the disjunction holds on x."""
    cdef Py_ssize_t i
    cdef unsigned char hit = 0
    if all_literals:
        for i in range(n):
            hit |= (P[i] & x[i]) | (N[i] & (x[i] ^ 1))
    else:
        for i in range(n):
            hit |= P[i] & x[i]
    return hit != 0


def elimination_pass(int mode, const unsigned char[:, ::1] X, const signed char[::1] y,
                     unsigned char[::1] P, unsigned char[::1] N, signed char[::1] pred,
                     unsigned char[::1] upd, long long[::1] counts, long long[::1] n_incons,
                     bint update, bint stop_on_inconsistent):
    """Rows of conjunction (mode 0) or disjunction (1: monotone, 2: all 2n literals)
    elimination.  pred gets +-1.  With update: a false negative of a conjunction removes the
    literals false on x, a false positive of a disjunction removes those true on x; the other
    kind of mistake is an inconsistency (no hypothesis of the class fits): counted in
    n_incons, or, with stop_on_inconsistent, the pass stops and returns that row (the caller
    restores the state).  Returns -1 after a full pass."""
    cdef Py_ssize_t t, i, n = X.shape[1], rows = X.shape[0]
    cdef const unsigned char* x
    cdef unsigned char* Pp = &P[0] if P.shape[0] > 0 else NULL
    cdef unsigned char* Np = &N[0] if N.shape[0] > 0 else NULL
    cdef int h, yt, changed
    cdef unsigned char removed, nb
    cdef Py_ssize_t bad = -1
    with nogil:
        for t in range(rows):
            x = &X[t, 0]
            if mode == CONJ:
                h = conj_value(x, Pp, Np, n)
            else:
                h = disj_value(x, Pp, Np, n, mode == DISJ_ALL)
            if pred is not None:
                pred[t] = 1 if h else -1
            if not update:
                continue
            yt = y[t] > 0
            changed = 0
            counts[0] += 1
            if h != yt:
                counts[1] += 1
                if (mode == CONJ and yt) or (mode != CONJ and not yt):
                    removed = 0
                    if mode == CONJ:
                        # false negative: drop the literals false on x
                        for i in range(n):
                            nb = Pp[i] & x[i]
                            removed |= Pp[i] ^ nb
                            Pp[i] = nb
                            nb = Np[i] & (x[i] ^ 1)
                            removed |= Np[i] ^ nb
                            Np[i] = nb
                    else:
                        # false positive: drop the literals true on x
                        for i in range(n):
                            nb = Pp[i] & (x[i] ^ 1)
                            removed |= Pp[i] ^ nb
                            Pp[i] = nb
                        if mode == DISJ_ALL:
                            for i in range(n):
                                nb = Np[i] & x[i]
                                removed |= Np[i] ^ nb
                                Np[i] = nb
                    changed = removed != 0
                else:
                    if stop_on_inconsistent:
                        bad = t
                        break
                    n_incons[0] += 1
            counts[2] += changed
            if upd is not None:
                upd[t] = changed
    return bad


def decision_list_pass(const unsigned char[:, ::1] X, const signed char[::1] y,
                       int[::1] levels, signed char[::1] pred, unsigned char[::1] upd,
                       long long[::1] counts, bint update):
    """Rows of the mistake-bound decision-list learner.  Rule 4i + 2(1 - x_i) + b is the rule
    (x_i -> b) or (~x_i -> b) that fires on x; rules 4n, 4n + 1 are (T -> 0), (T -> 1).  Predict
    the majority value (ties -> 1) of the firing rules on the lowest level that has one; on a
    mistake those of them that predicted wrongly move one level down."""
    cdef Py_ssize_t t, i, n = X.shape[1], rows = X.shape[0], r
    cdef const unsigned char* x
    cdef int* L = &levels[0]
    cdef int lo, c0, c1, a, b, yt, pr, mist
    with nogil:
        for t in range(rows):
            x = &X[t, 0]
            lo = L[4 * n]
            if L[4 * n + 1] < lo:
                lo = L[4 * n + 1]
            for i in range(n):
                r = 4 * i + 2 * (1 - x[i])
                a = L[r]
                b = L[r + 1]
                if a < lo:
                    lo = a
                if b < lo:
                    lo = b
            c0 = (L[4 * n] == lo)
            c1 = (L[4 * n + 1] == lo)
            for i in range(n):
                r = 4 * i + 2 * (1 - x[i])
                c0 += L[r] == lo
                c1 += L[r + 1] == lo
            pr = 1 if c1 >= c0 else 0
            if pred is not None:
                pred[t] = 1 if pr else -1
            if not update:
                continue
            yt = y[t] > 0
            mist = pr != yt
            counts[0] += 1
            counts[1] += mist
            counts[2] += mist
            if upd is not None:
                upd[t] = mist
            if mist:
                # the firing rules of level lo with value pr (the wrong one) move down
                for i in range(n):
                    r = 4 * i + 2 * (1 - x[i]) + pr
                    L[r] += L[r] == lo
                L[4 * n + pr] += L[4 * n + pr] == lo
