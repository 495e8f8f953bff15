# cython: language_level=3
"""The kernel values of the kernel Perceptrons, shared by ``kernel.pyx`` (KernelPerceptron) and
``budget.pyx`` (the budget kernel Perceptrons): the kernel's parameters (``KParams``), the
squared distance of a row to a stored support vector and the kernel value K(z, x), in the
twin's arithmetic (``mbref.kernel.KernelPerceptron._k``).  Only inline functions, types and
constants: nothing here exists at run time as a module of its own."""

from libc.math cimport exp

from ._arith cimport floating, index_t, dot_row, sumsq_vals


cdef enum:
    K_LINEAR = 0
    K_POLY = 1
    K_RBF = 2


cdef struct KParams:
    int kind
    int degree
    int tie_pos
    double gamma
    double coef0


cdef inline double sqdist_row(const double* z, double zz, const floating* v, const index_t* ix,
                              Py_ssize_t n) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, t0, t1, t2, t3, r
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if ix == NULL:
        for k in range(0, n4, 4):
            t0 = v[k] - z[k]
            t1 = v[k + 1] - z[k + 1]
            t2 = v[k + 2] - z[k + 2]
            t3 = v[k + 3] - z[k + 3]
            s0 += t0 * t0
            s1 += t1 * t1
            s2 += t2 * t2
            s3 += t3 * t3
        if n4 < n:
            t0 = v[n4] - z[n4]
            s0 += t0 * t0
        if n4 + 1 < n:
            t1 = v[n4 + 1] - z[n4 + 1]
            s1 += t1 * t1
        if n4 + 2 < n:
            t2 = v[n4 + 2] - z[n4 + 2]
            s2 += t2 * t2
        return (s0 + s1) + (s2 + s3)
    r = (sumsq_vals(v, n) + zz) - 2.0 * dot_row(z, v, ix, n)
    return r if r > 0.0 else 0.0


cdef inline double kval(const KParams* kp, const double* z, double zz, const floating* v,
                        const index_t* ix, Py_ssize_t n) noexcept nogil:
    cdef double base, r
    cdef int e
    if kp.kind == K_LINEAR:
        return dot_row(z, v, ix, n)
    if kp.kind == K_POLY:
        base = kp.gamma * dot_row(z, v, ix, n) + kp.coef0
        r = base
        for e in range(kp.degree - 1):
            r = r * base
        return r
    return exp(-kp.gamma * sqdist_row(z, zz, v, ix, n))


cdef inline KParams make_kparams(int kind, int degree, bint tie_pos, double gamma,
                                 double coef0) noexcept:
    cdef KParams kp
    kp.kind = kind
    kp.degree = degree
    kp.tie_pos = tie_pos
    kp.gamma = gamma
    kp.coef0 = coef0
    return kp
