"""Boolean concept learners, literally from the rules stated in mbcore.boolean (pure Python,
the specification).

Conventions shared with mbcore.boolean (the compiled side matches them exactly)
-------------------------------------------------------------------------------
* Labels: the two classes are sorted, ``classes_[1]`` is the positive label ("1"), as for every
  other learner.  The ``b`` of a DecisionList rule name ``x_i -> b`` is 0 / 1 (1 meaning
  ``classes_[1]``); ``GreedyDecisionList.rules_`` holds the labels themselves.
* X: rows of 0/1 values (bool, ints or floats equal to 0 or 1), dense, or a CSR matrix (densified
  row by row; an explicitly stored 0 is a 0).  Any other number (0.5, 2, -1, NaN, inf) is a
  ValueError naming the row; a non-numeric value (a string, None) is a TypeError, as everywhere in
  the library.  n = the number of columns, fixed by the first call.
* All or nothing: on any error (bad input, or ``on_inconsistent="raise"``) the learner is left
  exactly as it was before the call; inputs are never modified.
* ``fit(X, y, classes=None)`` = forget everything, then cycle through the data until a pass without
  an update, or ``max_epochs`` passes (``converged_``, ``cycled_``, ``n_iter_``,
  ``epoch_mistakes_``, ``epoch_updates_`` as for every learner).  Conjunction and Disjunction stop
  after at most 2 passes on any data (after one pass every positive example satisfies h, resp.
  every negative one falsifies it, so the second pass updates nothing; its inconsistent rounds are
  counted again in ``mistakes_`` and ``n_inconsistent_``).  DecisionList stops on data labelled by
  a decision list, and may run all ``max_epochs`` passes otherwise.
* ``decision_function`` is h(x) as a float: 1.0 where the prediction is positive, 0.0 elsewhere.
* Variables are 0-based: ``x0 .. x{n-1}``; the negated literal of ``x{i}`` is written ``~x{i}``.
"""

import copy
import numbers

from .base import OnlineLearner, is_csr, check_labels, check_rows, empty_error, infer_classes
from .exceptions import warn_failure

__all__ = ["Conjunction", "Disjunction", "DecisionList", "most_specific_conjunction",
           "greedy_decision_list", "GreedyDecisionList", "ConjunctionAdversary"]

_ON_INCONSISTENT = ("flag", "raise")
_LITERALS = ("monotone", "all")


def _check_choice(owner, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{owner}: parameter {name} must be one of {list(choices)}, got {value!r}")


def _check_max_epochs(owner, m):
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
        raise ValueError(f"{owner}: parameter max_epochs must be an integer >= 1, got {m!r}")


def _boolean_rows(owner, rows, d):
    """Rows from check_rows (lists of floats or CSR (idx, val) tuples) -> lists of ints 0/1."""
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, tuple):
            row = [0] * d
            for j, v in zip(*r):
                if v == 1.0:
                    row[j] = 1
                elif v != 0.0:
                    raise ValueError(f"{owner}: X must be Boolean (0 or 1), got {v!r} in row {i}")
        else:
            row = []
            for v in r:
                if v == 1.0:
                    row.append(1)
                elif v == 0.0:
                    row.append(0)
                else:
                    raise ValueError(f"{owner}: X must be Boolean (0 or 1), got {v!r} in row {i}")
        out.append(row)
    return out


def _literal_names(pos, neg):
    out = []
    for i, (p, q) in enumerate(zip(pos, neg)):
        if p:
            out.append(f"x{i}")
        if q:
            out.append(f"~x{i}")
    return out


def _check_packing(owner, packed, n_features):
    if not isinstance(packed, bool):
        raise ValueError(f"{owner}: parameter packed must be a bool, got {packed!r}")
    if n_features is not None and (isinstance(n_features, bool) or
                                   not isinstance(n_features, numbers.Integral) or
                                   n_features < 1):
        raise ValueError(f"{owner}: parameter n_features must be an integer >= 1 or None, got "
                         f"{n_features!r}")
    if packed and n_features is None:
        raise ValueError(f"{owner}: parameter n_features must be given with packed=True (the "
                         "number of variables before packing)")


def _unpack_rows(owner, X, n):
    """Rows packed 8 variables per byte (numpy.packbits(X, axis=1): the first variable in the
    highest bit) -> lists of 0/1 ints; the padding bits of the last byte must be 0."""
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{owner}: X must be a 2-D array-like of packed bytes, got "
                        f"{type(X).__name__}")
    if is_csr(X) or hasattr(X, "tocsr"):
        raise TypeError(f"{owner}: packed X must be a dense 2-D array of bytes "
                        "(numpy.packbits(X, axis=1)), got a sparse matrix")
    if getattr(X, "ndim", 2) != 2:
        raise ValueError(f"{owner}: packed X must be 2-D (n_samples, ceil(n_features / 8)), got "
                         f"ndim={X.ndim}")
    width = (n + 7) // 8
    rows = []
    for i, r in enumerate(X):
        if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
            raise ValueError(f"{owner}: packed X must be 2-D (n_samples, ceil(n_features / 8))")
        r = r.tolist() if hasattr(r, "tolist") else list(r)
        if len(r) != width:
            raise ValueError(f"{owner}: packed row {i} has {len(r)} bytes; {n} variables need "
                             f"{width}")
        rows.append(r)
    # The values of all rows, a wrong value (NaN, 256, "1") before a byte of another type
    # (1.0, True); then the padding bits.
    for wrong in (_NOT_A_BYTE, _BYTE_OF_ANOTHER_TYPE):
        for i, r in enumerate(rows):
            for b in r:
                if _byte_of(b) == wrong:
                    raise ValueError(f"{owner}: packed X must hold bytes (integers 0..255), got "
                                     f"{b!r} in row {i}")
    out = []
    for i, r in enumerate(rows):
        row = []
        for b in r:
            row.extend((int(b) >> (7 - k)) & 1 for k in range(8))
        if any(row[n:]):
            raise ValueError(f"{owner}: packed row {i} has padding bits set past variable "
                             f"{n - 1}")
        out.append(row[:n])
    if not out:
        raise empty_error(owner)
    return out


_BYTE, _BYTE_OF_ANOTHER_TYPE, _NOT_A_BYTE = 0, 1, 2


def _byte_of(v):
    """A packed byte: an integer (not a bool) in 0..255; a float or bool of such a value is a
    byte of another type; anything else (NaN, 0.5, 256, a string, None) is not a byte."""
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()                          # a NumPy scalar held in an object array
    if isinstance(v, bool) or isinstance(v, float):
        whole = v == v and float(v).is_integer() and 0 <= v <= 255
        return _BYTE_OF_ANOTHER_TYPE if whole else _NOT_A_BYTE
    if isinstance(v, numbers.Integral):
        return _BYTE if v in range(256) else _NOT_A_BYTE
    return _NOT_A_BYTE


class _Boolean(OnlineLearner):
    """Shared machinery: Boolean rows (or packed bytes), predict, decision_function."""

    # (sample_weight: refused, OnlineLearner._refuse_weights)
    _NO_WEIGHTS = ("a mistake removes literals or moves rules outright, and the notes "
                   "give no weighted form of the rule")

    _boolean_x = True  # value errors worded for 0/1 values, as mbcore.boolean's

    def _unpacked(self, X):
        _check_packing(self._owner, self.packed, self.n_features)
        if not self.packed:
            return X
        return _unpack_rows(self._owner, X, int(self.n_features))

    def _prepare(self, X, y, classes, check_values=False):
        rows, yy = super()._prepare(self._unpacked(X), y, classes)
        return _boolean_rows(self._owner, rows, self.n_features_in_), yy

    def _rows(self, X, what="predict"):
        self._check_fitted(what)
        self._validate_params()
        rows, d = check_rows(self._owner, self._unpacked(X), self.n_features_in_,
                             boolean=True)
        return _boolean_rows(self._owner, rows, d)

    def predict(self, X):
        """The predicted label of each row (no state change)."""
        neg, pos = self.classes_ if self._is_fitted() else (None, None)
        return [pos if self._h(x) else neg for x in self._rows(X)]

    def decision_function(self, X):
        """h(x) of each row as a float: 1.0 where the prediction is positive, else 0.0."""
        return [1.0 if self._h(x) else 0.0 for x in self._rows(X, "decision_function")]

    def _score(self, x):
        return 1.0 if self._h(x) else 0.0


class _Elimination(_Boolean):
    """Conjunction / Disjunction: two literal lists, an inconsistency flag."""

    _kind = ""

    def _validate_params(self):
        _check_packing(self._owner, self.packed, self.n_features)
        _check_choice(self._owner, "on_inconsistent", self.on_inconsistent, _ON_INCONSISTENT)
        _check_max_epochs(self._owner, self.max_epochs)

    def _init_state(self, d):
        self._pos = [True] * d
        self._neg = [True] * d
        self._inc = False
        self._ninc = 0
        self._failure = None

    def _state_dict(self):
        return {"pos": self._pos, "neg": self._neg, "inc": self._inc, "ninc": self._ninc,
                "failure": self._failure}

    def _load_state_dict(self, s):
        self._pos, self._neg, self._inc, self._ninc = s["pos"], s["neg"], s["inc"], s["ninc"]
        self._failure = s["failure"]

    def _cycle_key(self):
        return tuple(self._pos) + tuple(self._neg)

    def _inconsistent(self, i, what):
        if self.on_inconsistent == "raise":
            k = self._kind
            raise ValueError(f"{self._owner}: no consistent {k}: row {i} is labelled {what} the "
                             "hypothesis; the learner was left as before the call")
        self._inc = True
        self._ninc += 1
        if self._failure is None:
            # the first example that no hypothesis fits: recorded, and warned of once
            index, why = self.n_seen_ - 1, self._reason()
            self._failure = (index, why)
            warn_failure(self._owner, index, why, f"is labelled {what} the hypothesis",
                         "passes over such examples (counted in n_inconsistent_) and its "
                         "mistake bound no longer holds (check the labels for noise, or use "
                         "on_inconsistent=\"raise\" to stop at the first one)")

    def _reason(self):
        """failure_'s reason: no hypothesis of the class fits the examples."""
        mono = getattr(self, "_literals", None) == "monotone"
        return f"no {'monotone disjunction' if mono else self._kind} is consistent with the " \
            "examples"

    @property
    def positive_(self):
        """positive_[i]: the literal x_i is in h."""
        self._check_fitted("positive_")
        return list(self._pos)

    @property
    def negative_(self):
        """negative_[i]: the literal ~x_i is in h."""
        self._check_fitted("negative_")
        return list(self._neg)

    @property
    def literals_(self):
        """The literals of h as strings, i = 0..n-1, "x{i}" before "~x{i}"."""
        self._check_fitted("literals_")
        return _literal_names(self._pos, self._neg)

    @property
    def inconsistent_(self):
        """True once an example contradicted every hypothesis of the class (flag mode)."""
        self._check_fitted("inconsistent_")
        return self._inc

    @property
    def n_inconsistent_(self):
        """How many examples contradicted the class (flag mode)."""
        self._check_fitted("n_inconsistent_")
        return self._ninc

    @property
    def failure_(self):
        """None until an example contradicts every hypothesis of the class (flag mode); then
        (that example's 0-based position in the whole stream seen, the reason)."""
        self._check_fitted("failure_")
        return self._failure


class Conjunction(_Elimination):
    """Elimination for conjunctions of literals (twin of mbcore.Conjunction).

    h starts as x0 ~x0 x1 ~x1 ... (all 2n literals, 0 everywhere).  Predict h(x).  On a false
    negative remove every literal false on x.  A false positive means no conjunction is consistent:
    ``on_inconsistent="flag"`` sets ``inconsistent_`` and counts it in ``n_inconsistent_`` (h is
    unchanged, the round is a mistake but not an update); ``"raise"`` raises ValueError and leaves
    the learner as before the call.  At most n + 1 mistakes on a stream labelled by a conjunction
    (Balcan section 2.1, Kanade Alg. 1).
    """

    _kind = "conjunction"

    def __init__(self, on_inconsistent="flag", max_epochs=100, packed=False, n_features=None):
        self.on_inconsistent = on_inconsistent
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features

    def _h(self, x):
        for p, q, v in zip(self._pos, self._neg, x):
            if (p and not v) or (q and v):
                return False
        return True

    def _step(self, x, y, i):
        p = 1 if self._h(x) else -1
        if p == y:
            return p, False
        if y > 0:  # false negative: drop every literal false on x
            for j, v in enumerate(x):
                if v:
                    self._neg[j] = False
                else:
                    self._pos[j] = False
            return p, True
        self._inconsistent(i, "negative but satisfies")
        return p, False


class Disjunction(_Elimination):
    """Elimination for disjunctions (twin of mbcore.Disjunction), the dual of Conjunction.

    ``literals="monotone"``: h starts as x0 v x1 v ... (``negative_`` stays all False);
    ``literals="all"``: h starts as the OR of all 2n literals (1 everywhere).  Predict h(x).  On a
    false positive remove every literal true on x.  A false negative means no disjunction of that
    kind is consistent: flag or raise as for Conjunction.  At most n - r mistakes for a monotone
    target of r variables (Angluin, lecture 18, end); n + 1 for ``literals="all"``.
    """

    _kind = "disjunction"

    def __init__(self, literals="monotone", on_inconsistent="flag", max_epochs=100,
                 packed=False, n_features=None):
        self.literals = literals
        self.on_inconsistent = on_inconsistent
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features

    def _validate_params(self):
        _check_choice(self._owner, "literals", self.literals, _LITERALS)
        super()._validate_params()
        lit = getattr(self, "_literals", None)
        if self._is_fitted() and lit is not None and lit != self.literals:
            raise ValueError(f"{self._owner}: parameter literals was changed to "
                             f"{self.literals!r} after fitting with {lit!r}; call fit, or clone "
                             "the learner")

    def _init_state(self, d):
        super()._init_state(d)
        self._literals = self.literals
        if self.literals == "monotone":
            self._neg = [False] * d

    def _h(self, x):
        for p, q, v in zip(self._pos, self._neg, x):
            if (p and v) or (q and not v):
                return True
        return False

    def _step(self, x, y, i):
        p = 1 if self._h(x) else -1
        if p == y:
            return p, False
        if y < 0:  # false positive: drop every literal true on x
            for j, v in enumerate(x):
                if v:
                    self._pos[j] = False
                else:
                    self._neg[j] = False
            return p, True
        self._inconsistent(i, "positive but falsifies")
        return p, False


def _rule_name(r, d):
    if r >= 4 * d:
        return f"T->{r & 1}"
    i, k = divmod(r, 4)
    return f"{'~' if k >= 2 else ''}x{i}->{k & 1}"


class DecisionList(_Boolean):
    """The mistake-bound learner for 1-decision lists (twin of mbcore.DecisionList; Balcan 2.2).

    Rules, in this fixed order: 4i + 0 = (x_i -> 0), 4i + 1 = (x_i -> 1), 4i + 2 = (~x_i -> 0),
    4i + 3 = (~x_i -> 1) for i = 0..n-1, then 4n = (T -> 0), 4n + 1 = (T -> 1); the value of rule r
    is r % 2.  ``levels_[r]`` is the level of rule r (all 0 at the start).  Predict with the
    smallest level holding a rule that fires on x: the majority value of its firing rules, ties ->
    1.  On a mistake every firing rule of that level with the wrong value moves one level down
    (level + 1).  At most (4n + 2)(L + 1) mistakes for a target list of length L.
    """

    def __init__(self, max_epochs=100, packed=False, n_features=None):
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features

    def _validate_params(self):
        _check_packing(self._owner, self.packed, self.n_features)
        _check_max_epochs(self._owner, self.max_epochs)

    def _cycle_key(self):
        return tuple(self._lv)

    def _init_state(self, d):
        self._lv = [0] * (4 * d + 2)

    def _state_dict(self):
        return {"lv": self._lv}

    def _load_state_dict(self, s):
        self._lv = s["lv"]

    def _decide(self, x):
        """(level, firing rules of that level, n0, n1)."""
        lv = self._lv
        best = None
        rules = []
        fire = []
        for i, v in enumerate(x):
            r = 4 * i if v else 4 * i + 2
            fire.append(r)
            fire.append(r + 1)
        fire.append(4 * len(x))
        fire.append(4 * len(x) + 1)
        for r in fire:
            lr = lv[r]
            if best is None or lr < best:
                best = lr
                rules = [r]
            elif lr == best:
                rules.append(r)
        n1 = sum(r & 1 for r in rules)
        return best, rules, len(rules) - n1, n1

    def _h(self, x):
        _, _, n0, n1 = self._decide(x)
        return n1 >= n0

    def _step(self, x, y, i):
        level, rules, n0, n1 = self._decide(x)
        p = 1 if n1 >= n0 else -1
        if p == y:
            return p, False
        wrong = 1 if p > 0 else 0  # the rules that voted for the wrong value
        for r in rules:
            if (r & 1) == wrong:
                self._lv[r] = level + 1
        return p, True

    @property
    def levels_(self):
        """The level of each of the 4n + 2 rules (0 = the first level)."""
        self._check_fitted("levels_")
        return list(self._lv)

    def rule_names(self):
        """The names of the 4n + 2 rules in ``levels_`` order."""
        self._check_fitted("rule_names")
        d = self.n_features_in_
        return [_rule_name(r, d) for r in range(4 * d + 2)]

    def level_lists(self):
        """One list per level, 0 .. the deepest nonempty level (empty levels in between are []),
        of the rule names ("x{i}->{b}", "~x{i}->{b}", "T->{b}") in rule order."""
        self._check_fitted("level_lists")
        names = self.rule_names()
        out = [[] for _ in range(max(self._lv) + 1)]
        for r, lr in enumerate(self._lv):
            out[lr].append(names[r])
        return out


# ------------------------------------------------------------------------------------------------
# PAC learners (Angluin, lectures 4 and 7)
# ------------------------------------------------------------------------------------------------


def _sample(owner, X, y, classes):
    """Validated rows (lists of 0/1), +-1 labels and the two classes of a batch sample."""
    rows, d = check_rows(owner, X, None, boolean=True)
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    cl = infer_classes(owner, y, classes)  # a string y: one label (or TypeError below)
    yy = check_labels(owner, y, len(rows), cl)
    return _boolean_rows(owner, rows, d), yy, cl, d


def most_specific_conjunction(X, y, classes=None):
    """The most specific conjunction consistent with the positive examples (Angluin, lecture 4).

    Returns a fitted ``Conjunction`` (default parameters) whose h is the conjunction of every
    literal true on all positive examples (all 2n literals if there is none), with
    ``inconsistent_`` True iff some negative example satisfies h (then no conjunction is
    consistent with the sample) and ``n_inconsistent_`` = how many do.  This is a batch learner:
    ``n_seen_`` = the number of rows, ``mistakes_`` = ``updates_`` = 0.  The learner can go on
    online with ``partial_fit``.  Errors name most_specific_conjunction.
    """
    rows, yy, cl, d = _sample("most_specific_conjunction", X, y, classes)
    c = Conjunction()
    c.classes_ = cl
    c.n_features_in_ = d
    c._counts = [len(rows), 0, 0]
    c._init_state(d)
    pos, neg = c._pos, c._neg
    for x, t in zip(rows, yy):
        if t > 0:
            for j, v in enumerate(x):
                if v:
                    neg[j] = False
                else:
                    pos[j] = False
    for i, (x, t) in enumerate(zip(rows, yy)):
        if t < 0 and c._h(x):
            c._inc = True
            c._ninc += 1
            if c._failure is None:          # (no warning: the result says so)
                c._failure = (i, c._reason())
    return c


class GreedyDecisionList:
    """A 1-decision list found by the greedy consistent method (Angluin, lecture 7); built by
    :func:`greedy_decision_list`.

    Attributes: ``rules_`` (list of (name, label) pairs: names "x{i}", "~x{i}" and "T" for the
    final default rule; labels are the two classes), ``consistent_`` (bool), ``classes_``,
    ``n_features_in_``.  ``predict`` returns, for each row, the label of the first rule whose
    literal is true on it ("T" always is).
    """

    def __init__(self, rules, consistent, classes, n_features):
        self.rules_ = rules
        self.consistent_ = consistent
        self.classes_ = classes
        self.n_features_in_ = n_features

    def __repr__(self):
        return f"GreedyDecisionList(rules={self.rules_!r}, consistent={self.consistent_})"

    def predict(self, X):
        """The label of the first rule whose literal is true on each row."""
        owner = "GreedyDecisionList"
        rows, d = check_rows(owner, X, self.n_features_in_, boolean=True)
        rows = _boolean_rows(owner, rows, d)
        tests = []
        for name, label in self.rules_:
            if name == "T":
                tests.append((-1, 0, label))
            else:
                neg = name.startswith("~")
                tests.append((int(name[2:] if neg else name[1:]), 0 if neg else 1, label))
        out = []
        for x in rows:
            for i, v, label in tests:
                if i < 0 or x[i] == v:
                    out.append(label)
                    break
        return out


def greedy_decision_list(X, y, classes=None):
    """The greedy consistent 1-decision list of a sample (Angluin, lecture 7).

    With R = the remaining examples (all at the start), repeat:

    1. if every example of R has the same label: append ("T", that label) and stop;
    2. otherwise take the first literal in the order x0, ~x0, x1, ~x1, ... that is true on at
       least one example of R and whose examples of R where it is true all have one label;
       append (literal, that label) and remove those examples from R;
    3. if no literal qualifies: ``consistent_ = False``, append ("T", the majority label of R,
       ties -> the positive label classes_[1]) and stop.

    (R never becomes empty: a literal that would take all of R means R had one label, which step
    1 caught; the brief's "no example left -> (T, majority of all)" case cannot occur.)  If the
    sample is labelled by any 1-decision list, the result is consistent with it (lecture 7).
    Returns a :class:`GreedyDecisionList`.  Errors name greedy_decision_list.
    """
    rows, yy, cl, d = _sample("greedy_decision_list", X, y, classes)
    vals = [1 if t > 0 else 0 for t in yy]
    m = len(rows)
    # cnt[2*i + s][b]: remaining examples with value b on which x_i (s = 0) / ~x_i (s = 1) is true
    cnt = [[0, 0] for _ in range(2 * d)]
    for x, b in zip(rows, vals):
        for i, v in enumerate(x):
            cnt[2 * i + (0 if v else 1)][b] += 1
    alive = [True] * m
    left = [m - sum(vals), sum(vals)]
    rules = []
    consistent = True
    while True:
        if left[0] == 0 or left[1] == 0:
            rules.append(("T", cl[1] if left[1] else cl[0]))
            break
        pick = None
        for k in range(2 * d):
            c0, c1 = cnt[k]
            if (c0 > 0) != (c1 > 0):
                pick = k
                break
        if pick is None:
            consistent = False
            rules.append(("T", cl[1] if left[1] >= left[0] else cl[0]))
            break
        i, s = divmod(pick, 2)
        b = 1 if cnt[pick][1] else 0
        rules.append((("~" if s else "") + f"x{i}", cl[b]))
        for e in range(m):
            if alive[e] and rows[e][i] == 1 - s:
                alive[e] = False
                left[vals[e]] -= 1
                for j, v in enumerate(rows[e]):
                    cnt[2 * j + (0 if v else 1)][vals[e]] -= 1
    return GreedyDecisionList(rules, consistent, cl, d)


# ------------------------------------------------------------------------------------------------
# The lower bound (Balcan section 2.1)
# ------------------------------------------------------------------------------------------------


class ConjunctionAdversary:
    """The n examples "all ones except bit i", each labelled against the learner's prediction.

    ``run(learner)``: for i = 0..n-1 the row x = all ones except bit i (a list of the floats 1.0
    and 0.0) is shown to ``learner.predict([x])[0]``, then given to ``learner.partial_fit([x],
    [label], classes=...)`` with the opposite label: the negative class if the prediction was the
    positive one, else the positive class.  The classes are the learner's ``classes_`` once it is
    fitted, and [0, 1] for a learner that has seen nothing; such a learner cannot predict
    (NotFittedError), so its first prediction is read from a deep copy: ``copy.partial_fit([x],
    [0], classes=[0, 1])`` predicted 1 iff the copy's ``mistakes_`` became 1.  Every round is a
    mistake, and the monotone conjunction of the variables labelled negative is consistent with
    every label given.  Works for any learner with predict / partial_fit / mistakes_.

    Returns ``{"mistakes": n, "target": sorted list of the i labelled negative}``.
    """

    def __init__(self, n):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"ConjunctionAdversary: parameter n must be an integer >= 1, got "
                             f"{n!r}")
        self.n = int(n)

    def __repr__(self):
        return f"ConjunctionAdversary(n={self.n})"

    def run(self, learner):
        n = self.n
        mistakes = 0
        target = []
        for i in range(n):
            x = [1.0] * n
            x[i] = 0.0
            cl = getattr(learner, "classes_", None)
            labels = list(cl) if cl is not None else [0, 1]
            # the online prediction (what mistakes_ counts; the averaged Perceptron's predict
            # is another vector): a copy learns (x, labels[0]) and erred iff it predicted 1
            probe = copy.deepcopy(learner)
            before = int(probe.mistakes_) if cl is not None else 0
            probe.partial_fit([x], [labels[0]], classes=labels)
            pred = 1 if int(probe.mistakes_) > before else 0
            label = 1 - pred
            learner.partial_fit([x], [labels[label]], classes=labels)
            mistakes += label != pred
            if label == 0:
                target.append(i)
        return {"mistakes": mistakes, "target": target}
