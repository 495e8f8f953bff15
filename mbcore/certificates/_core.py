"""The parts of a certificate that every family's rules share: the :class:`Certificate`, the
:class:`BoundViolationError`, the statuses of an assumption, the context a rule reads, and the
registry of rules (:func:`rule`), which the family modules fill as they are imported.
"""

import functools
from typing import Any, Dict, NamedTuple, Optional

import numpy as np

from .._rows import CSR, check_rows, row_sqnorms
from .._validation import is_sparse, sparse_to_dense

VERIFIED, TRUSTED, UNVERIFIED, VIOLATED = "verified", "trusted", "unverified", "violated"


class BoundViolationError(AssertionError):
    """A learner exceeded a mistake bound whose assumptions were verified on the data: a bug in
    mbcore.  ``certificate`` holds the evidence."""

    def __init__(self, certificate):
        c = certificate
        super().__init__(
            f"mbcore bug: {c.learner} made {c.observed:g} {c.counted}, above the bound "
            f"{c.bound:g} of {c.bound_name} ({c.source}), whose assumptions were verified on "
            f"these data ({c.quantities_text()}). Please report it with the data.")
        self.certificate = c


class Certificate:
    """What :func:`certify` found.

    Attributes
    ----------
    learner : str
        The learner's class name.
    bound_name, source : str
        The theorem used and where the notes state it ("" when none applies).
    bound : float or None
        The bound; None when no theorem of the notes covers the learner as configured, or when
        an assumption is violated.
    counted : str
        What the bound counts: "mistakes", "updates" (Margin Perceptron) or "expected mistakes"
        (randomized Weighted Majority, computed exactly from the run's weights).
    observed : float
        That count on the run.
    quantities : dict
        The data quantities the bound used (R, gamma, k, A_c, m_best, ...).
    assumptions : list of (str, str)
        Each assumption and its status: "verified", "trusted", "unverified" or "violated".
    verified : bool
        Every assumption was verified on the data.
    holds : bool or None
        ``observed <= bound`` (None without a bound).
    reason : str
        Why there is no bound, when there is none.
    alternatives : list of (str, float)
        Other bounds that apply (the tightest is reported).
    run : OnlineRun
        The record of the run (all passes).
    """

    def __init__(self, learner, run, observed, counted="mistakes"):
        self.learner = learner
        self.run = run
        self.observed = observed
        self.counted = counted
        self.bound_name, self.source, self.bound, self.reason = "", "", None, ""
        self.quantities = {}
        self.assumptions = []
        self.alternatives = []

    @property
    def verified(self) -> bool:
        return bool(self.assumptions) and all(s == VERIFIED for _, s in self.assumptions)

    @property
    def holds(self) -> Optional[bool]:
        if self.bound is None:
            return None
        return bool(self.observed <= self.bound * (1.0 + 1e-12) + 1e-9)

    def quantities_text(self) -> str:
        """The quantities on one line: ``name=value, ...``."""
        return ", ".join(f"{k}={_fmt(v)}" for k, v in self.quantities.items())

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready summary."""
        return {"learner": self.learner, "bound_name": self.bound_name, "source": self.source,
                "bound": self.bound, "counted": self.counted, "observed": self.observed,
                "holds": self.holds, "verified": self.verified, "reason": self.reason,
                "quantities": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                               for k, v in self.quantities.items()},
                "assumptions": [list(a) for a in self.assumptions],
                "alternatives": [list(a) for a in self.alternatives],
                "n_examples": self.run.n}

    def summary(self) -> str:
        """A readable multi-line report."""
        lines = [f"{self.learner}: {self.observed:g} {self.counted} on {self.run.n} examples"]
        if self.bound is None:
            lines.append(f"  no bound: {self.reason}")
        else:
            lines.append(f"  bound {self.bound:g} ({self.bound_name}; {self.source}): "
                         + ("holds" if self.holds else "EXCEEDED"))
        if self.quantities:
            lines.append(f"  quantities: {self.quantities_text()}")
        for text, status in self.assumptions:
            lines.append(f"  [{status}] {text}")
        for name, value in self.alternatives:
            lines.append(f"  also: {name} = {value:g}")
        return "\n".join(lines)

    def __repr__(self):
        b = "none" if self.bound is None else f"{self.bound:g}"
        return (f"Certificate({self.learner}: {self.observed:g} {self.counted}, bound {b}, "
                f"holds={self.holds}, verified={self.verified})")

    def plot(self, ax=None, **style):
        """Draw the run's cumulative count with this certificate's bound
        (:meth:`mbcore.OnlineRun.plot`); needs matplotlib."""
        return self.run.plot(ax=ax, bound=self, label=self.learner,
                             updates=self.counted == "updates", **style)

    # -- building ------------------------------------------------------------------------------
    def assume(self, text, status):
        """Record an assumption with its status ("verified", "trusted", "unverified" or
        "violated") and return the status (used by :func:`certify` while it builds the
        certificate)."""
        self.assumptions.append((text, status))
        return status

    def set_bound(self, name, value, source):
        """Claim the bound ``value`` of the theorem ``name``, stated in ``source``."""
        self.bound_name, self.bound, self.source = name, float(value), source

    def no_bound(self, reason):
        """Claim no bound, for the given ``reason``."""
        self.bound, self.reason = None, reason


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)) and len(v) > 8:
        return f"[{', '.join(map(str, v[:8]))}, ...] ({len(v)})"
    return str(v)


class Context:
    """What a rule reads: the fresh learner run (``fresh``), the learner whose bound applies
    (``L``: the wrapped one for a wrapper), the data, and the options of :func:`certify`."""

    def __init__(self, fresh, inner, X, y, fit_params, passes, u, gamma, target, tol,
                 max_iter):
        self.fresh, self.L, self.X, self.y = fresh, inner, X, y
        self.fit_params, self.passes = fit_params, passes
        self.u, self.gamma, self.target = u, gamma, target
        self.tol, self.max_iter = tol, max_iter
        self.positive_label = None            # one-vs-rest: the class against the rest

    def positive(self):
        """The labels as a bool array: True for the learner's positive class (with
        ``positive_label`` set, for that class)."""
        label = self.fresh.classes_[1] if self.positive_label is None else self.positive_label
        return np.asarray(self.y) == label

    def signs(self):
        """The labels as -1.0/+1.0 (see :meth:`positive`)."""
        return np.where(self.positive(), 1.0, -1.0)


# -- the rules ----------------------------------------------------------------------------------

class Rule(NamedTuple):
    """A registered rule: ``check(cert, ctx)`` sets the certificate's bound (or says why there
    is none) for the learners that declare ``name``; ``k_classes`` the numbers of classes it
    covers (False: two, True: K >= 3, "any": any); ``params`` the rule's own parameters, passed
    to ``check`` as keywords and readable by other rules."""
    name: str
    k_classes: Any
    check: Any
    params: Dict[str, Any]


# the rules by the bound names the classes declare (their bound tag for two classes,
# multi_bound for K >= 3); filled by @rule as the family modules are imported
_RULES: Dict[str, Rule] = {}


def rule(name, k_classes=False, **params):
    """Register the decorated function as the rule for the bound ``name``, the name a class
    declares (its ``bound`` tag for two classes, ``multi_bound`` for K >= 3), called as
    ``check(cert, ctx, **params)``.  ``k_classes``: False for a rule of two classes, True for
    one of K >= 3 classes, "any" for a bound that holds for any number of labels.  Decorators
    stack: one function may serve several names, each with its own parameters.  A name
    registered twice is an error."""
    if k_classes not in (False, True, "any"):
        raise ValueError(f"certificates: k_classes must be False, True or 'any', got "
                         f"{k_classes!r}")

    def register(fn):
        if name in _RULES:
            raise ValueError(f"certificates: the rule {name!r} is registered twice")
        check = functools.partial(fn, **params) if params else fn
        _RULES[name] = Rule(name, k_classes, check, dict(params))
        return fn
    return register


def find_rule(name, k_classes=False) -> Optional[Rule]:
    """The rule registered for the bound ``name`` that covers two classes (``k_classes``
    False) or K >= 3 (True); None when there is none."""
    r = _RULES.get(name)
    if r is None or r.k_classes not in ("any", bool(k_classes)):
        return None
    return r


def n_classes(L):
    """The learner's number of classes (0 when it has none yet)."""
    try:
        return len(L.classes_)
    except (AttributeError, TypeError):        # no classes (NotFittedError is an AttributeError)
        return 0


def class_codes(ctx):
    """(classes, codes): the learner's sorted classes and each label's index among them."""
    cl = np.asarray(ctx.L.classes_)
    return cl, np.searchsorted(cl, np.asarray(ctx.y))


def tightest(cert, options):
    """Claim the smallest of the bounds ``options`` (``[(name, value, source), ...]``; not
    changed) and list the others as alternatives."""
    ranked = sorted(options, key=lambda o: o[1])
    name, value, source = ranked[0]
    cert.set_bound(name, value, source)
    cert.alternatives.extend((n, v) for n, v, _ in ranked[1:])


# -- kernel learners: the Gram matrix of the rows -----------------------------------------------

def _dense(L, X):
    """X as a dense float64 array (a sparse X's structure checked before it is read)."""
    if is_sparse(X):
        return sparse_to_dense(type(L).__name__, X)
    return np.asarray(X, dtype=np.float64)


def gram(L, X):
    """The kernel matrix K(x_s, x_t) of the rows under a kernel learner's kernel (its kernel,
    degree, gamma, coef0)."""
    A = _dense(L, X)
    kind, deg, g, c0 = L.kernel, int(L.degree), _kernel_gamma(L, A.shape[1]), float(L.coef0)
    dots = A @ A.T
    if kind == "linear":
        return dots
    if kind == "poly":
        return (g * dots + c0) ** deg
    sq = np.einsum("ij,ij->i", A, A)
    return np.exp(-g * np.maximum(sq[:, None] + sq[None, :] - 2.0 * dots, 0.0))


def _kernel_gamma(L, d):
    """The kernel's gamma: the fitted one, else the parameter, else its default 1/d."""
    g = getattr(L, "gamma_", None)
    return float(g if g is not None else L.gamma if L.gamma is not None else 1.0 / d)


def gram_diag(L, X):
    """K(x_t, x_t) for every row."""
    A = _dense(L, X)
    sq = np.einsum("ij,ij->i", A, A)
    if L.kernel == "linear":
        return sq
    if L.kernel == "poly":
        return (_kernel_gamma(L, A.shape[1]) * sq + float(L.coef0)) ** int(L.degree)
    return np.ones_like(sq)


# -- linear learners: the rows as the learner sees them ------------------------------------------

def linear_view(L, X):
    """The rows as the linear learner sees them: intercept appended, scaled to unit length."""
    rows = check_rows(type(L).__name__, X)
    n, d, part = rows
    icpt = bool(getattr(L, "fit_intercept", False))
    if isinstance(part, tuple):
        data, indices, indptr = part
        if icpt:
            counts = np.diff(indptr) + 1
            new_ptr = np.concatenate([[0], np.cumsum(counts)])
            pos = new_ptr[1:] - 1
            keep = np.ones(new_ptr[-1], dtype=bool)
            keep[pos] = False
            nd, ni = np.empty(new_ptr[-1]), np.empty(new_ptr[-1], dtype=np.intp)
            nd[keep], ni[keep] = data, indices
            nd[pos], ni[pos] = 1.0, d
            data, indices, indptr, d = nd, ni, new_ptr, d + 1
        view = CSR(data, indices, indptr, (n, d))
    else:
        view = np.hstack([part, np.ones((n, 1))]) if icpt else np.asarray(part, dtype=float)
    if L._normalizes():
        norms = np.sqrt(row_sqnorms(check_rows("certify", view)))
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        if isinstance(view, CSR):
            view = CSR(view.data * np.repeat(scale, np.diff(view.indptr)), view.indices,
                        view.indptr, view.shape)
        else:
            view = view * scale[:, None]
    return view
