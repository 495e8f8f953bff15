"""The covariance arithmetic of the second-order learners (``mbref.second_order``), in the order
the compiled kernels follow bit for bit.

Coordinates.  A learner with ``d`` features keeps ``D = d`` coordinates, ``D = d + 1`` with an
intercept (the intercept is coordinate ``d``, its input value the constant 1.0).  The terms of a
row go through the four-partial-sum order of ``mbref._arith``; the intercept's term is added
after that sum, last (as the linear learners add their intercept ``b`` to ``w . x``).

Diagonal covariance: a list ``S`` of ``D`` variances.

* ``v = x' S x'`` is ``wsumsq(S, x)``, then ``v = v + S[d]`` with an intercept.
* The update with mean step ``ay`` (``alpha * y``) and precision coefficient ``c`` (the update
  adds ``c x x^T`` to the inverse covariance, kept on its diagonal), for every non-zero value
  ``x_j`` of the row (dense or sparse: a zero changes neither w_j nor S_j in exact
  arithmetic, and is skipped), in the row's order, then for the intercept with ``x_j = 1.0``::

      g = S[j] * x_j
      w[j] = w[j] + ay * g
      t = S[j] / (1.0 + c * (g * x_j))
      S[j] = t if t >= floor else floor

  With ``w`` None (NAROW) the mean line is skipped.  ``floor`` is the learner's
  ``variance_floor(a) = a * 2**-52``: a variance never falls below the initial one times the
  machine epsilon.  Without it the exact CW step, whose precision coefficient grows like
  m^2 phi^2 / v^2 as the confidence v shrinks, drove variances of the diagonal form to 0 in
  one pass over a9a; the next step then multiplied an infinite coefficient by a zero value
  (NaN) and the learner stopped on a finite row.  At the floor a variance is certain to
  working precision relative to the prior, v stays > 0 for any non-zero row and the steps
  stay finite; AROW's and NAROW's variances, which fall like 1/(n x^2 / r), meet it only
  after some 10**16 steps along one coordinate.

Full covariance: ``S`` a list of ``D`` lists (symmetric, positive definite).

* ``u = S x'`` row by row: ``u[i] = dot(S[i], x)``, then ``u[i] = u[i] + S[i][d]`` with an
  intercept.
* ``v = x' S x'`` is ``dot(u, x)``, then ``v = v + u[d]`` with an intercept.
* The update with mean step ``ay`` and covariance coefficient ``beta``
  (``S <- S - beta (S x)(S x)^T``): ``axpy(w, ay, u)`` (u dense: every coordinate), then for
  ``i = 0..D-1``: ``bi = beta * u[i]`` and for ``j = i..D-1``:
  ``S[i][j] = S[i][j] - bi * u[j]`` and ``S[j][i] = S[i][j]`` (the same value written in both
  triangles: symmetric by construction).  ``u`` is the vector of before the update.
* No clamp: the full form's positive definiteness rests on the downdate's coefficient
  (``beta v < 1`` in exact arithmetic for every rule); a diagonal entry that became non-finite
  is a row error.
* ``S z`` for a dense vector ``z`` (the mean ``w = S theta`` of the dual-form learners):
  ``dot(S[i], z)`` for each ``i`` (z dense: all ``D`` terms in the four-partial order).

Sparse rows: ``dot`` and ``wsumsq`` run over the stored values, so a stored zero is a term (its
product is +0.0 or -0.0 and changes no partial sum but a -0.0 one); ``u`` is always dense.
"""

import math

from ._arith import axpy, dot, row_pairs, wsumsq

__all__ = ["variance_floor", "new_cov", "diag_v", "diag_step", "full_u", "full_v", "full_step",
           "full_times", "widen_cov", "FULL_LIMIT", "full_downdate"]



def variance_floor(a):
    """The diagonal variances' floor of a learner started from Sigma_0 = a I: a * 2**-52 (the
    module docstring)."""
    return float(a) * math.ldexp(1.0, -52)

# Full covariance: at most this many matrix entries over all the learner's matrices (2**27
# doubles, 1 GiB): a wider learner is refused, naming covariance="diagonal".
FULL_LIMIT = 1 << 27


def new_cov(D, a, full):
    """Sigma_0 = a I: a list of D values a, or the D x D matrix."""
    if not full:
        return [float(a)] * D
    return [[float(a) if i == j else 0.0 for j in range(D)] for i in range(D)]


def widen_cov(S, d0, d, a, intercept, full):
    """The covariance of d0 features widened to d: the new features' variance a, no covariance
    with the others (what a learner given d from the start keeps for a feature never seen);
    the intercept stays the last coordinate."""
    n = d - d0
    if not full:
        return S[:d0] + [float(a)] * n + S[d0:]
    D = d + (1 if intercept else 0)
    out = new_cov(D, a, True)
    where = list(range(d0)) + ([d] if intercept else [])
    for i, ni in enumerate(where):
        for j, nj in enumerate(where):
            out[ni][nj] = S[i][j]
    return out


def diag_v(S, x, d, intercept):
    v = wsumsq(S, x)
    if intercept:
        v = v + S[d]
    return v


def diag_step(w, S, x, d, intercept, ay, c, floor):
    """The diagonal update (module docstring), for each stored value of the row in order, then
    the intercept with 1.0; with ``w`` None, the covariance alone (no mean step).  False if a
    value became non-finite."""
    pairs = [(j, xj) for j, xj in row_pairs(x) if xj != 0.0]
    if intercept:
        pairs.append((d, 1.0))
    ok = True
    for j, xj in pairs:
        g = S[j] * xj
        if w is not None:
            w[j] = w[j] + ay * g
            ok = ok and math.isfinite(w[j])
        t = S[j] / (1.0 + c * (g * xj))
        S[j] = t if t >= floor else floor
        ok = ok and math.isfinite(t)
    return ok


def full_v(u, x, d, intercept):
    """u . x' = dot(u, x), then + u[d] with an intercept (u a dense vector of D values)."""
    v = dot(u, x)
    if intercept:
        v = v + u[d]
    return v


def full_u(S, x, d, intercept):
    """Sigma x', row by row: u[i] = full_v(S[i], x, d, intercept)."""
    return [full_v(Si, x, d, intercept) for Si in S]


def full_step(w, S, u, ay, beta):
    """w += ay u; S -= beta u u^T (module docstring); False if a value became non-finite."""
    ok = axpy(w, ay, u)
    return full_downdate(S, u, beta) and ok


def full_downdate(S, u, beta):
    """S -= beta u u^T, both triangles from one expression (module docstring)."""
    ok = True
    D = len(u)
    for i in range(D):
        bi = beta * u[i]
        Si = S[i]
        for j in range(i, D):
            t = Si[j] - bi * u[j]
            Si[j] = t
            S[j][i] = t
            if not math.isfinite(t):
                ok = False
    return ok


def full_times(S, z):
    """S z for a dense z: dot(S[i], z) for each row i."""
    return [dot(S[i], z) for i in range(len(S))]
