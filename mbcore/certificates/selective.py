"""The selective sampler's certificate: its runs beside the expected mistake bound of
Cesa-Bianchi, Gentile & Zaniboni (2006, JMLR 7, Theorem 1).

For the selective-sampling Perceptron with a fixed query parameter b, over any sequence of rows
of norm at most R and for any u,

    E[mistakes] <= (1 + R^2 / (2 b)) L(u) + (2 b + R^2)^2 ||u||^2 / (8 b),

L(u) the hinge losses max(0, 1 - y u . x) of u summed over every row (asked or not), the
expectation over the coin tosses (:func:`mbcore.bounds.selective_sampling_bound`).  It is a
bound on an expectation: one run may exceed it (a coin that asks rarely can be unlucky) without
contradicting it, so :func:`certify_selective` reports the run's mistakes (or their mean over
several seeds) beside it and never raises :class:`BoundViolationError`.

Since the bound holds for every u, the certificate takes the best it can prove on the data:
a given u (its hinge losses computed), or a given margin gamma (trusted: u of norm 1 / gamma,
no hinge loss), or the direction of the best separator found by :func:`mbcore.margins.
search_margin`; along a direction, the scale that minimises the bound (a convex function of the
scale, minimised exactly over its pieces) gives the bound reported.
"""

import math

import numpy as np

from .. import _params as params
from .._rows import check_rows, row_dots, row_sqnorms
from ..bounds import selective_sampling_bound
from ..margins import search_margin
from ..online import OnlineRun
from ._core import TRUSTED, VERIFIED, Certificate, linear_view

__all__ = ["certify_selective", "SelectiveCertificate"]

SOURCE = "Cesa-Bianchi, Gentile & Zaniboni 2006, JMLR 7, Theorem 1"
NAME = "selective-sampling Perceptron (1 + R^2/2b) L(u) + (2b + R^2)^2 ||u||^2 / 8b"


class SelectiveCertificate(Certificate):
    """A :class:`~mbcore.certificates.Certificate` whose bound is on the expected mistakes
    (over the sampler's coin): ``observed`` is the mistakes of the run (the mean over the
    seeded runs with ``repeats``), which one run may exceed without contradicting the bound.
    ``runs`` holds each run's mistakes and labels asked."""

    expectation = True

    def summary(self) -> str:
        text = super().summary()
        if self.bound is None:
            return text
        head, _, rest = text.partition("\n")
        line, _, tail = rest.partition("\n")
        verdict = ("below it" if self.holds else
                   "above it (one run may exceed a bound on the expectation)")
        line = (f"  bound {self.bound:g} on the expected mistakes ({self.bound_name}; "
                f"{self.source}): {verdict}")
        return "\n".join(x for x in (head, line, tail) if x)

    def to_dict(self):
        out = super().to_dict()
        out["expectation"] = True
        out["runs"] = [list(r) for r in self.runs]
        return out


def best_scale(m, A, B, passes):
    """The scale c >= 0 minimising f(c) = A passes sum_t max(0, 1 - c m_t) + B c^2 (B > 0):
    f is convex and piecewise quadratic, its derivative 2 B c - A passes S(c), S(c) the sum
    of the m_t still in their hinge (c m_t < 1: every m_t <= 0, and m_t > 0 until c = 1 / m_t),
    so the minimum is where that derivative crosses zero, found piece by piece."""
    m = np.asarray(m, dtype=float)
    pos = np.sort(m[m > 0])[::-1]           # leave the hinge at c = 1/m: largest m first
    S = float(m.sum())
    lo = 0.0
    for k in range(pos.size + 1):
        hi = 1.0 / pos[k] if k < pos.size else math.inf
        if S <= 0.0:
            return lo
        c = A * passes * S / (2.0 * B)
        if c < hi:
            return max(c, lo)
        S -= pos[k]
        lo = hi
    return lo


def _bound_along(m, u_norm, b, R, passes):
    """(bound, hinge, ||u||) at the best scale of a direction whose rows' values y_t u . x_t
    are ``m`` (for ||u|| = ``u_norm``)."""
    A = 1.0 + R * R / (2.0 * b)
    B = (2.0 * b + R * R) ** 2 * u_norm ** 2 / (8.0 * b)
    c = best_scale(m, A, B, passes) if B > 0 else 0.0
    hinge = passes * float(np.maximum(0.0, 1.0 - c * m).sum())
    return selective_sampling_bound(b, R, hinge=hinge, u_norm=c * u_norm), hinge, c * u_norm


def certify_selective(sampler, X, y, *, classes=None, passes=1, u=None, gamma=None, tol=1e-3,
                      max_iter=10_000, repeats=1):
    """Run fresh copies of a :class:`mbcore.SelectiveSampler` over the examples and set their
    mistakes beside its expected mistake bound (see the module).

    Parameters
    ----------
    sampler : SelectiveSampler
        Its parameters only: fresh copies (no state) are run, seeded ``random_state``,
        ``random_state + 1``, ... (``repeats`` of them).
    X, y, classes, passes : as for :func:`mbcore.certify`
    u : array-like, optional
        Any vector in the learner's feature space (with ``fit_intercept``, the intercept's
        weight last): the bound at u (its hinge losses computed on the data) and at the best
        scale of u are taken.  Default: the direction of the best separator found.
    gamma : float, optional
        A margin to take on trust: u of norm 1 / gamma separating the rows with margin 1.
    tol, max_iter : the margin search's (as for :func:`mbcore.certify`)
    repeats : int, default=1
        How many seeded runs; ``observed`` is their mean mistakes.

    Returns
    -------
    SelectiveCertificate
        The bound (None, with the reason, where Theorem 1 does not cover the sampler: a
        learner other than the Perceptron, the adaptive variant, BBQ, three classes or more),
        the runs' mistakes and labels asked, the quantities (R, b, L(u), ||u||, ...).

    Examples
    --------
    >>> from mbcore import Perceptron, SelectiveSampler, certify
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()
    >>> cert = certify(SelectiveSampler(Perceptron(), b=4.0), X[:2000], y[:2000], repeats=5)
    >>> cert.counted, cert.holds, cert.observed < cert.bound
    ('mistakes (mean of 5 seeded runs)', True, True)
    """
    from ..base import clone
    passes = params.integer("certify", "passes", passes, 1)
    repeats = params.integer("certify", "repeats", repeats, 1)
    sampler._validate_params()
    seed0 = int(sampler.random_state)
    runs, first, fresh = [], None, None
    for k in range(repeats):
        S = clone(sampler)
        S.random_state = (seed0 + k) % 2 ** 63
        parts = [S.run_online(X, y, classes=classes)]
        parts += [S.run_online(X, y) for _ in range(passes - 1)]
        runs.append((sum(p.mistakes for p in parts), sum(p.labels_asked for p in parts)))
        if k == 0:
            fresh = S
            first = OnlineRun(np.concatenate([p.predictions for p in parts]),
                              np.concatenate([p.errors for p in parts]).astype(bool),
                              np.concatenate([p.updated for p in parts]))
    mean = float(np.mean([m for m, _ in runs]))
    counted = "mistakes (one seeded run)" if repeats == 1 else \
        f"mistakes (mean of {repeats} seeded runs)"
    L = fresh.learner_
    cert = SelectiveCertificate(f"SelectiveSampler({type(L).__name__})", first, mean, counted)
    cert.runs = runs
    cert.quantities["b"] = float(sampler.b)
    cert.quantities["labels asked"] = float(np.mean([a for _, a in runs]))
    if getattr(sampler, "query", "margin") != "margin":
        cert.no_bound("Theorem 1 is for the coin of probability b / (b + |p|); BBQ's "
                      "query (query='bbq') has no mistake bound checked here")
        return cert
    if type(L) not in sampler._THEOREM_1:     # (the learners Theorem 1 covers, as declared)
        cert.no_bound(f"Theorem 1 is the selective-sampling Perceptron's; no bound is checked "
                      f"for a {type(L).__name__}")
        return cert
    if sampler.adaptive:
        cert.no_bound("Theorem 1 is for a fixed b; the adaptive variant's bound is not checked")
        return cert
    if len(L.classes_) != 2:
        cert.no_bound("Theorem 1 is for two classes")
        return cert
    b = float(sampler.b) / float(L.eta)       # (w scales with eta: the coin of b / eta)
    view = linear_view(L, X)
    rows = check_rows("certify", view)
    yy = np.where(np.asarray(y) == L.classes_[1], 1.0, -1.0)
    R = float(np.sqrt(row_sqnorms(rows).max())) if rows[0] else 0.0
    cert.quantities.update({"R": R, "b/eta": b})
    cert.assume("the sampler starts from w = 0 (a fresh Perceptron) with a fixed b", VERIFIED)
    cert.assume("every row (as the Perceptron sees it) has norm at most R", VERIFIED)
    options = []
    if u is not None:
        uu = np.asarray(u, dtype=float).ravel()
        if uu.shape[0] != rows[1]:
            raise ValueError(f"certify: u has {uu.shape[0]} entries, the rows as the learner "
                             f"sees them have {rows[1]}")
        m = yy * row_dots(rows, uu)
        n_u = float(np.linalg.norm(uu))
        hinge = passes * float(np.maximum(0.0, 1.0 - m).sum())
        cert.assume("L(u) of the given u computed on the data (every pass)", VERIFIED)
        options.append((selective_sampling_bound(b, R, hinge=hinge, u_norm=n_u), hinge, n_u,
                        "the given u"))
        if n_u > 0:
            options.append(_bound_along(m / n_u, 1.0, b, R, passes) +
                           ("the given u at the scale that minimises the bound",))
    elif gamma is not None:
        g = params.positive("certify", "gamma", gamma)
        cert.assume("some u of norm 1/gamma separates the rows with margin 1 (gamma given)",
                    TRUSTED)
        options.append((selective_sampling_bound(b, R, hinge=0.0, u_norm=1.0 / g), 0.0,
                        1.0 / g, "gamma given"))
    else:
        found = search_margin(view, yy, tol, max_iter)
        cert.quantities["gamma"] = found.gamma
        cert.quantities["gamma_upper"] = found.upper
        if found.u is None or not np.any(found.u):
            options.append((selective_sampling_bound(b, R, hinge=passes * yy.size,
                                                     u_norm=0.0), passes * float(yy.size),
                            0.0, "u = 0 (no separator found)"))
        else:
            m = yy * row_dots(rows, np.asarray(found.u, dtype=float))
            options.append(_bound_along(m, float(np.linalg.norm(found.u)), b, R, passes) +
                           (f"u along the best separator found by {found.how}, at the "
                            "scale that minimises the bound",))
        # the run's own final weights are a direction too (on data that no u separates, one
        # of small hinge loss): the bound holds for every u, so the smaller is taken
        w = np.concatenate([np.ravel(L.coef_), np.ravel(L.intercept_)]) if L.fit_intercept \
            else np.ravel(L.coef_)
        if np.any(w):
            m = yy * row_dots(rows, np.asarray(w, dtype=float))
            options.append(_bound_along(m, float(np.linalg.norm(w)), b, R, passes) +
                           ("u along the first run's final weights, at the scale that "
                            "minimises the bound",))
        cert.assume("u: " + min(options, key=lambda o: o[0])[3] + "; L(u) computed on the "
                    "data (every pass)", VERIFIED)
    best = min(options, key=lambda o: o[0])
    value, hinge, n_u, how = best
    cert.quantities.update({"L(u)": hinge, "||u||": n_u})
    cert.set_bound(NAME, value, SOURCE)
    cert.alternatives.extend((f"the same bound, u: {o[3]}", o[0]) for o in options
                             if o is not best)
    return cert
