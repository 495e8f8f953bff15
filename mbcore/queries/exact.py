"""Exact learning with queries (Angluin lecture 24): monotone DNF formulas
(:class:`MonotoneDNF`) and Angluin's learner of them with equivalence and membership queries
(:func:`monotone_dnf_learner`, run to the end by :func:`learn_monotone_dnf`).

The conventions (points, targets, the EQ-learner generator protocol) are those of
:mod:`mbcore.queries`, which re-exports every name of this module.
"""

import numbers

import numpy as np

from ._common import check_callable, check_int, is_int, scalar

__all__ = ["MonotoneDNF", "DNFResult", "monotone_dnf_learner", "learn_monotone_dnf"]


# -- monotone DNF ---------------------------------------------------------------------------------

class MonotoneDNF:
    """A monotone DNF formula over n Boolean variables, kept reduced (Angluin lecture 24).

    The satisfying assignments of a monotone DNF are an upward-closed set of the lattice
    {0,1}^n; the terms of the *reduced* formula are its minimal points.  The constructor drops
    duplicate terms and every term that contains another one, and sorts the terms
    (lexicographically, as tuples of variable indices), so two formulas are equal exactly when
    their reduced forms are.

    Parameters
    ----------
    terms : iterable of iterables of int
        Each term is a set of 0-based variable indices (a conjunction of those variables); an
        empty term is the constant 1, no terms the constant 0.
    n : int >= 1
        The number of variables.

    Attributes
    ----------
    terms : tuple of tuples of int
        The reduced terms, each sorted, in sorted order.
    n : int
    n_terms : int

    Notes
    -----
    ``f(X)`` evaluates the formula on the rows of a 2-D 0/1 array with one matrix product (a row
    satisfies a term when it has no 0 on the term's variables), or on one 1-D point.  ``str(f)``
    writes 1-based variables: ``x1x2 + x3``; ``0`` for the empty formula, ``1`` for an empty
    term.  Formulas are hashable and compare by (n, reduced terms).

    Examples
    --------
    >>> import numpy as np
    >>> f = MonotoneDNF([[2], [1, 0], [0, 1, 2], [2]], n=3)      # x3 + x1x2 + x1x2x3 + x3
    >>> f.terms, str(f), f.n_terms
    (((0, 1), (2,)), 'x1x2 + x3', 2)
    >>> f(np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1]]))
    array([1, 0, 1], dtype=uint8)
    >>> f == MonotoneDNF([(0, 1), (2,)], 3), str(MonotoneDNF([], 3)), str(MonotoneDNF([[]], 3))
    (True, '0', '1')
    """

    def __init__(self, terms, n):
        o = "MonotoneDNF"
        n = check_int(o, "n", n, 1)
        if terms is None or isinstance(terms, (str, bytes)) or not hasattr(terms, "__iter__"):
            raise TypeError(f"{o}: parameter terms must be an iterable of terms (iterables of "
                            f"variable indices), got {type(terms).__name__} ({terms!r})")
        cleaned = set()
        for k, t in enumerate(terms):
            if t is None or isinstance(t, (str, bytes)) or not hasattr(t, "__iter__"):
                raise TypeError(f"{o}: parameter terms: term {k} must be an iterable of "
                                f"variable indices, got {type(t).__name__} ({t!r})")
            idx = set()
            for v in t:
                if not is_int(v):
                    raise TypeError(f"{o}: parameter terms: term {k} holds {v!r} of type "
                                    f"{type(v).__name__}; variable indices are integers")
                if not 0 <= v < n:
                    raise ValueError(f"{o}: parameter terms: term {k} holds the variable index "
                                     f"{int(v)}, outside [0, {n}) (indices are 0-based)")
                idx.add(int(v))
            cleaned.add(tuple(sorted(idx)))
        kept = []
        for t in sorted(cleaned, key=len):          # shorter terms first: a term is dropped
            s = set(t)                               # when it contains a kept one
            if not any(s.issuperset(u) for u in kept):
                kept.append(t)
        self.terms = tuple(sorted(kept))
        self.n = n
        self._T = None

    @property
    def n_terms(self):
        """The number of terms of the reduced formula."""
        return len(self.terms)

    def _matrix(self):
        if self._T is None:
            dt = np.float32 if self.n < (1 << 24) else np.float64
            T = np.zeros((self.n, len(self.terms)), dtype=dt)
            for k, t in enumerate(self.terms):
                T[list(t), k] = 1
            self._T = T
        return self._T

    def __call__(self, X):
        """The formula's value (uint8 0/1) on each row of a 2-D 0/1 array, or on one point."""
        o = "MonotoneDNF"
        A = np.asarray(X)
        one = A.ndim == 1
        if one:
            A = A[None, :]
        if A.ndim != 2:
            raise ValueError(f"{o}: X must be a 2-D array of points (or one 1-D point), got "
                             f"ndim={A.ndim}")
        if A.shape[1] != self.n:
            raise ValueError(f"{o}: X has {A.shape[1]} columns, the formula has {self.n} "
                             "variables")
        if A.dtype.kind not in "biuf":
            raise TypeError(f"{o}: X must hold 0/1 values, got dtype {A.dtype}")
        if A.dtype.kind != "b":
            ok = (A == 0) | (A == 1)
            if not ok.all():
                r, c = np.argwhere(~ok)[0]
                raise ValueError(f"{o}: X must hold 0/1 values, got {scalar(A[r, c])!r} in "
                                 f"row {r}")
        if not self.terms:
            out = np.zeros(A.shape[0], dtype=np.uint8)
        else:
            T = self._matrix()
            missing = (A == 0).astype(T.dtype) @ T          # zeros on each term's variables
            out = (missing == 0).any(axis=1).astype(np.uint8)
        return out[0] if one else out

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_T"] = None
        return state

    def __eq__(self, other):
        if not isinstance(other, MonotoneDNF):
            return NotImplemented
        return self.n == other.n and self.terms == other.terms

    def __hash__(self):
        return hash((self.n, self.terms))

    def __str__(self):
        if not self.terms:
            return "0"
        return " + ".join("".join(f"x{i + 1}" for i in t) or "1" for t in self.terms)

    def __repr__(self):
        return f"MonotoneDNF({list(self.terms)!r}, n={self.n})"


# -- monotone DNF with EQ + MQ (Angluin lecture 24) ---------------------------------------------

def monotone_dnf_learner(mq, n):
    """Angluin's EQ + MQ learner for monotone DNF, as an EQ-learner generator (lecture 24).

    Start from the empty formula h = 0.  A counterexample x to h must be positive (every term
    of h is an implicant of a monotone target); Minimize turns it into a minimal positive
    point: scan the variables 1..n, and for each i with x_i = 1 ask MQ(x with x_i = 0); when
    the answer is 1 keep the bit off.  A bit tested and kept is never tested again within the
    call (a smaller point below a negative one is negative), so Minimize asks at most n
    membership queries, and its result is a minimal positive point: a term of the reduced
    target.  Add it to h and yield the new h.

    Bounds: at most (number of terms of the target) + 1 equivalence queries, and at most n
    membership queries per counterexample.

    Parameters
    ----------
    mq : callable
        The membership oracle (e.g. :class:`MembershipOracle`): ``mq(x)`` returns 0 or 1.
    n : int >= 1
        The number of variables.

    Returns
    -------
    generator
        ``next(gen)`` is the empty :class:`MonotoneDNF`; ``gen.send((x, label))`` returns the
        hypothesis after the counterexample.  ValueError for a negative counterexample (the
        target is not a monotone DNF) or a point that is not a counterexample.

    Examples
    --------
    >>> import numpy as np
    >>> mq = MembershipOracle(MonotoneDNF([[0, 1], [2]], n=3))
    >>> gen = monotone_dnf_learner(mq, 3)
    >>> str(next(gen)), str(gen.send((np.array([1, 1, 1]), 1)))
    ('0', 'x3')
    >>> mq.history
    [(0, 1, 1), (0, 0, 1), (0, 0, 0)]
    """
    o = "monotone_dnf_learner"
    check_callable(o, "mq", mq, "a membership oracle mq(x) -> 0 or 1")
    n = check_int(o, "n", n, 1)
    return _monotone_dnf_gen(mq, n)


def _monotone_dnf_gen(mq, n):
    o = "monotone_dnf_learner"
    terms = []
    h = MonotoneDNF(terms, n)
    while True:
        ce = yield h
        try:
            x, label = ce
        except (TypeError, ValueError):
            raise ValueError(f"{o}: send a counterexample (x, label), got {ce!r}") from None
        x = np.array(x)
        if x.shape != (n,) or x.dtype.kind not in "biuf" or not ((x == 0) | (x == 1)).all():
            raise ValueError(f"{o}: a counterexample must be a 0/1 point of length {n}, got "
                             f"{x.tolist()!r}")
        label = scalar(label)
        if isinstance(label, (str, bytes)) or label not in (0, 1):
            raise ValueError(f"{o}: a counterexample's label must be 0 or 1, got {label!r}")
        if label == 0:
            raise ValueError(f"{o}: negative counterexample {x.astype(int).tolist()} (label 0): "
                             "every term of the hypothesis is below a positive point of the "
                             "target, so a monotone target cannot be 0 there: the target is "
                             "not a monotone DNF")
        if h(x) == 1:
            raise ValueError(f"{o}: {x.astype(int).tolist()} with label 1 is not a "
                             f"counterexample to {h}")
        x = x.astype(np.uint8)
        for i in range(n):                      # Minimize: one pass, each 1 tested once
            if x[i]:
                x2 = x.copy()
                x2[i] = 0
                a = scalar(mq(x2))
                if isinstance(a, (str, bytes)) or a not in (0, 1):
                    raise ValueError(f"{o}: the membership oracle answered {a!r} for "
                                     f"{x2.tolist()}, expected 0 or 1")
                if a == 1:
                    x = x2
        terms.append(tuple(int(i) for i in np.flatnonzero(x)))
        h = MonotoneDNF(terms, n)


class DNFResult:
    """What :func:`learn_monotone_dnf` returns (Angluin lecture 24).

    Attributes
    ----------
    formula : MonotoneDNF
    equivalence_queries, membership_queries : int
        Queries asked (differences of the oracles' ``calls``; the final "yes" included).
    counterexamples : list of (x, label)

    Examples
    --------
    >>> target = MonotoneDNF([[1]], n=2)
    >>> learn_monotone_dnf(MembershipOracle(target), EquivalenceOracle(target, n=2), 2)
    DNFResult(formula='x2', equivalence_queries=2, membership_queries=1)
    """

    def __init__(self, formula, equivalence_queries, membership_queries, counterexamples):
        self.formula = formula
        self.equivalence_queries = equivalence_queries
        self.membership_queries = membership_queries
        self.counterexamples = counterexamples

    def __repr__(self):
        return (f"DNFResult(formula='{self.formula}', equivalence_queries="
                f"{self.equivalence_queries}, membership_queries={self.membership_queries})")


def learn_monotone_dnf(mq, eq, n) -> DNFResult:
    """Learn a monotone DNF exactly with equivalence and membership queries (Angluin
    lecture 24): :func:`monotone_dnf_learner` driven by ``eq`` until it says yes.

    At most (terms of the target) + 1 equivalence queries and n x terms membership queries.

    Parameters
    ----------
    mq : MembershipOracle (or a callable with a ``calls`` counter)
    eq : EquivalenceOracle (or a callable with a ``calls`` counter)
    n : int >= 1

    Returns
    -------
    DNFResult

    Examples
    --------
    >>> target = MonotoneDNF([[0, 3], [1, 2], [4]], n=5)
    >>> res = learn_monotone_dnf(MembershipOracle(target), EquivalenceOracle(target, n=5), 5)
    >>> res.formula == target, res.equivalence_queries, res.membership_queries <= 5 * 3
    (True, 4, True)
    """
    o = "learn_monotone_dnf"
    for name, f in (("mq", mq), ("eq", eq)):
        check_callable(o, name, f, "an oracle")
        if not isinstance(getattr(f, "calls", None), numbers.Integral):
            raise TypeError(f"{o}: parameter {name} must count its calls (a 'calls' attribute, "
                            f"as MembershipOracle and EquivalenceOracle do), got "
                            f"{type(f).__name__}")
    n = check_int(o, "n", n, 1)
    mq0, eq0 = mq.calls, eq.calls
    gen = monotone_dnf_learner(mq, n)
    h = next(gen)
    ces = []
    while True:
        ans = eq(h)
        if ans is None:
            break
        ces.append(ans)
        h = gen.send(ans)
    return DNFResult(h, eq.calls - eq0, mq.calls - mq0, ces)
