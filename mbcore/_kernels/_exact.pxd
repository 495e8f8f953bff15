# cython: language_level=3
"""Powers of two, exactly: 2**x as the twins define it, and exact arithmetic on sums of powers of
two.  Shared by the multiplicative and experts kernels.

A sum S = sum_k 2**e[k] (integer exponents) is turned into its binary representation (the
strictly increasing list of its set bits) by sorting the exponents and adding with carries; two
such representations, or one and a float64, then compare exactly from the top bit down.
"""

from libc.stdlib cimport qsort
from libc.math cimport floor, frexp, ldexp, pow, INFINITY


cdef inline double term(double x) noexcept nogil:
    """2**x as float64 (mbref.multiplicative._term): exact for an integer x, 0.0 below 2**-1074,
    inf above 2**1023, pow(2, x) otherwise."""
    if x == -INFINITY:
        return 0.0
    if x == floor(x):
        if x > 1023.0:
            return INFINITY
        if x >= -1074.0:
            return ldexp(1.0, <int>x)
        return 0.0
    return pow(2.0, x)


cdef inline int _cmp_ll(const void* a, const void* b) noexcept nogil:
    cdef long long x = (<const long long*>a)[0], y = (<const long long*>b)[0]
    return (x > y) - (x < y)


cdef inline Py_ssize_t carry_bits(long long* e, Py_ssize_t m, long long* bits) noexcept nogil:
    """The set bits of sum_k 2**e[k], ascending, into bits (m + 64 entries); returns how many.
    Sorts e in place."""
    cdef Py_ssize_t i = 0, r = 0
    cdef long long cur, c, carry = 0
    if m == 0:
        return 0
    qsort(e, m, sizeof(long long), _cmp_ll)
    cur = e[0]
    while i < m or carry > 0:
        c = carry
        while i < m and e[i] == cur:
            c += 1
            i += 1
        if c & 1:
            bits[r] = cur
            r += 1
        carry = c >> 1
        if carry > 0:
            cur += 1
        elif i < m:
            cur = e[i]
    return r


cdef inline int bits_ge_double(const long long* bits, Py_ssize_t r, double theta) noexcept nogil:
    """(the sum whose set bits are bits[:r]) >= theta > 0, exactly."""
    cdef int E, ti = 52
    cdef double f = frexp(theta, &E)
    cdef long long M = <long long>ldexp(f, 53), q = E - 53, tpos
    cdef Py_ssize_t si = r - 1
    while True:
        while ti >= 0 and not ((M >> ti) & 1):
            ti -= 1
        if si < 0:
            return 1 if ti < 0 else 0
        if ti < 0:
            return 1
        tpos = q + ti
        if bits[si] > tpos:
            return 1
        if bits[si] < tpos:
            return 0
        si -= 1
        ti -= 1


cdef inline int bits_ge_bits(const long long* a, Py_ssize_t ra, const long long* b,
                             Py_ssize_t rb) noexcept nogil:
    """(sum with set bits a[:ra]) >= (sum with set bits b[:rb]), exactly."""
    cdef Py_ssize_t i = ra - 1, j = rb - 1
    while i >= 0 and j >= 0:
        if a[i] != b[j]:
            return 1 if a[i] > b[j] else 0
        i -= 1
        j -= 1
    return 1 if j < 0 else 0
