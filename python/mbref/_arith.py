"""The arithmetic contract shared by mbref and the compiled kernels of mbcore.

Every floating-point operation that can change a prediction is defined here, in the order the
compiled kernels perform it, so that the twin and the kernels agree bit for bit on any data.

Rows
----
A row is either dense (a list of ``d`` floats) or sparse (``(indices, values)`` with strictly
increasing indices, the CSR layout).  Values are IEEE doubles: float32 inputs are promoted exactly.

Summation order (``dot``, ``sumsq``)
------------------------------------
Four interleaved partial sums.  Term ``k`` of the row (``k`` = the coordinate ``j`` for a dense row,
the position inside the row's non-zeros for a sparse row) is added, left to right, to the partial sum
``s[k % 4]``; the result is ``(s0 + s1) + (s2 + s3)``.  Products are rounded before they are added
(no fused multiply-add; the kernels are compiled with ``-ffp-contract=off``).

Updates (``axpy``)
------------------
``w[j] = w[j] + c * x[j]`` for every coordinate of a dense row, and for every stored non-zero of a
sparse row; ``c`` is computed once per update by the caller.

Second-order learners (``mbref.second_order``)
----------------------------------------------
``sum4(terms)`` is that order over any sequence of rounded terms (the k-th term into ``s[k % 4]``).
``wsumsq(sigma, x)`` is ``sum_j sigma_j x_j^2`` in the same four-partial order, term ``k`` being
``(sigma[j] * x_k) * x_k`` (the variance times the value first, then times the value again).
A dense vector (``u = Sigma x``, ``theta``) goes to ``axpy`` and ``dot`` as a dense row:
``axpy(w, c, u)`` is ``w[i] = w[i] + c * u[i]`` for every ``i < len(u)``, ``dot(u, z)`` the
four-partial sum over all of ``z``'s coordinates.  The covariance updates built on these are
written in ``mbref._covariance``.
"""

import math

__all__ = ["dot", "sumsq", "axpy", "row_inv", "dense_sumsq", "sqdist", "wsumsq", "sum4",
           "row_pairs"]


def dot(w, row):
    """w . x with the four-partial-sum order."""
    s0 = s1 = s2 = s3 = 0.0
    if isinstance(row, tuple):
        idx, val = row
        for k in range(len(idx)):
            p = w[idx[k]] * val[k]
            r = k & 3
            if r == 0:
                s0 += p
            elif r == 1:
                s1 += p
            elif r == 2:
                s2 += p
            else:
                s3 += p
    else:
        for k in range(len(row)):
            p = w[k] * row[k]
            r = k & 3
            if r == 0:
                s0 += p
            elif r == 1:
                s1 += p
            elif r == 2:
                s2 += p
            else:
                s3 += p
    return (s0 + s1) + (s2 + s3)


def _sumsq_values(vals):
    s0 = s1 = s2 = s3 = 0.0
    for k in range(len(vals)):
        p = vals[k] * vals[k]
        r = k & 3
        if r == 0:
            s0 += p
        elif r == 1:
            s1 += p
        elif r == 2:
            s2 += p
        else:
            s3 += p
    return (s0 + s1) + (s2 + s3)


def sumsq(row):
    """||x||^2 of a row with the four-partial-sum order (over the stored values)."""
    if isinstance(row, tuple):
        return _sumsq_values(row[1])
    return _sumsq_values(row)


def dense_sumsq(w, d):
    """||w[:d]||^2 of a dense weight vector with the four-partial-sum order."""
    return _sumsq_values(w[:d])


def axpy(w, c, row):
    """w[j] += c * x[j] over the row's support; returns False if a weight became non-finite."""
    ok = True
    if isinstance(row, tuple):
        idx, val = row
        for k in range(len(idx)):
            j = idx[k]
            v = w[j] + c * val[k]
            w[j] = v
            if not math.isfinite(v):
                ok = False
    else:
        for j in range(len(row)):
            v = w[j] + c * row[j]
            w[j] = v
            if not math.isfinite(v):
                ok = False
    return ok


NORM_LOW = math.ldexp(1.0, -1000)


def row_inv(row, intercept):
    """1/||x'|| for the row x' = x (or (x, 1) with an intercept); 0.0 for a zero vector.

    ``ss = sumsq(x) (+ 1.0)``; if ``2**-1000 <= ss < inf`` the result is ``1.0 / sqrt(ss)``.
    Otherwise (||x||^2 overflows or underflows) the row is first divided by its largest
    magnitude m (at least 1.0 with an intercept): ``ss' = sumsq(x / m) (+ (1/m) * (1/m))`` and
    the result is ``1.0 / (m * sqrt(ss'))``.  A NaN or infinite value gives NaN.
    """
    ss = sumsq(row)
    if intercept:
        ss = ss + 1.0
    if NORM_LOW <= ss < math.inf:
        return 1.0 / math.sqrt(ss)
    vals = row[1] if isinstance(row, tuple) else row
    m = 0.0
    for v in vals:
        a = abs(v)
        if not a <= m:  # also true for NaN
            m = a
    if intercept and m < 1.0:
        m = 1.0
    if m == 0.0:
        return 0.0
    if not m < math.inf:
        return float("nan")
    ss = _sumsq_values([v / m for v in vals])
    if intercept:
        t = 1.0 / m
        ss = ss + t * t
    return 1.0 / (m * math.sqrt(ss))


def sqdist(row, z, zz):
    """||x - z||^2 for a support vector z (dense list) whose ||z||^2 is zz.

    Dense rows: the four-partial-sum order over (x[j] - z[j])**2.  Sparse rows:
    ``max(0, (||x||^2 + zz) - 2 * (x . z))`` with each piece in the four-partial-sum order.
    """
    if isinstance(row, tuple):
        xx = sumsq(row)
        r = (xx + zz) - 2.0 * dot(z, row)
        return r if r > 0.0 else 0.0
    s0 = s1 = s2 = s3 = 0.0
    for k in range(len(row)):
        t = row[k] - z[k]
        p = t * t
        r = k & 3
        if r == 0:
            s0 += p
        elif r == 1:
            s1 += p
        elif r == 2:
            s2 += p
        else:
            s3 += p
    return (s0 + s1) + (s2 + s3)


def sum4(terms):
    """The four-partial-sum order over a sequence of rounded terms: term k is added to
    ``s[k % 4]``, the result is ``(s0 + s1) + (s2 + s3)`` (what ``dot`` and ``sumsq`` do)."""
    s = [0.0, 0.0, 0.0, 0.0]
    for k, p in enumerate(terms):
        s[k & 3] += p
    return (s[0] + s[1]) + (s[2] + s[3])


def row_pairs(row):
    """(coordinate, value) of each stored value of a row, in the row's order."""
    return list(zip(*row)) if isinstance(row, tuple) else list(enumerate(row))


def wsumsq(sigma, row):
    """sum_j sigma_j x_j^2 over the row's stored values: term k is ``(sigma[j] * x_k) * x_k``
    (j the coordinate of the k-th stored value), in the order of ``sum4``."""
    return sum4((sigma[j] * xk) * xk for j, xk in row_pairs(row))
