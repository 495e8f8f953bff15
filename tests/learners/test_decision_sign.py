"""decision_function against predict: scikit-learn's sign convention, on every binary learner.

scikit-learn's meta-estimators read a binary classifier's ``decision_function`` by its sign:
``decision_function(X) > 0`` exactly where ``predict(X)`` gives ``classes_[1]``, and ``< 0``
where it gives ``classes_[0]``; a score of exactly 0 is a tie, and goes where the learner's
documented tie rule sends it.

1. The learners are found, not listed: every public class of ``mbcore.__all__`` that is a
   subclass of ``mbcore.base.OnlineLearner`` and has a ``decision_function`` (asked of an
   instance, as scikit-learn asks: ``Specialists`` answers with a property that raises
   AttributeError), and in ``mbref`` the classes of the same names (its experts do not derive
   from ``mbref.base.OnlineLearner``; a twin written before its compiled class, such as
   ``mbref.budget``'s, is checked by its own tests).
   A learner found that ``SETTINGS`` below does not know gets its settings from its class
   (``settings_of``: one per entry of its ``_unit_test_params()``, the tie outcome from its
   ``tie`` parameter or its declared ``_TIE_AT_ZERO``, tests/_cases.py); one that declares
   neither fails (``test_every_learner_is_known``, and its own case in the property test), so a
   new learner cannot slip through untested, and needs no line here.
2. For each learner and each of its settings, hypothesis streams (labels {-1, +1}, {0, 1} or
   "no"/"yes"; the input kind the learner takes) are learned with ``partial_fit`` in chunks (and
   with ``fit`` where the setting says so), and after every call, on the rows learned and on
   fresh rows: the shape of ``decision_function`` ((n,) for two classes), and, row by row,
   ``df > 0`` => ``classes_[1]``, ``df < 0`` => ``classes_[0]``, ``df == 0`` => the documented
   tie outcome (``tie`` of the setting, with where it is documented).
3. RandomizedWeightedMajority is no function of its score: its predictions are draws.  It is
   checked against what it documents instead (``_check_randomized``).

The tie outcomes, and where they are documented:

* Perceptron, AveragedPerceptron (average and vote), MarginPerceptron, OnlineHingeSVM,
  KernelPerceptron: the ``tie`` parameter ("negative": a score of 0 predicts ``classes_[0]``,
  "positive": ``classes_[1]``; Perceptron's docstring, the others "as for Perceptron").
* Winnow, EliminationWinnow, WinnowStar, BalancedWinnow: decision_function = score - theta, 0 is
  the tie score >= theta, predicted ``classes_[1]`` (``Winnow``'s docstring, "see Winnow" in the
  others; ``mbref.multiplicative``'s).
* WeightedMajority: "predict positive iff q1 >= q0", ties to the later class: ``classes_[1]``.
* Specialists, PairSpecialists (the twin's only: mbcore's have no decision_function): ties to
  the later class in ``classes_``: ``classes_[1]``.
* Conjunction, Disjunction, DecisionList, Halving, SOA: decision_function is 1.0 where the
  prediction is positive and 0.0 elsewhere (mbcore.boolean, mbref.boolean and
  mbref.version_space): a 0 is documented as ``classes_[0]``, and the values are only 0.0/1.0.
  (So they never give a negative score: scikit-learn's own check, ``df > 0`` iff
  ``classes_[1]``, holds.)

Known failures, left failing on purpose (the library is not changed here):

* WeightedMajority (mbcore and mbref): decision_function is the positive label's share of the
  weight, q1 / (q0 + q1) in [0, 1] (its docstring), and the prediction is positive iff the share
  is >= 1/2: every row with a share in (0, 1/2) has a positive score and predicts ``classes_[0]``,
  and a share of 0 (no weight on the positive label) predicts ``classes_[0]``, not the tie's
  ``classes_[1]``.
* mbref.Specialists and mbref.PairSpecialists: they inherit ``_Pool.decision_function`` (the
  Weighted Majority share, computed from a state it does not read rightly), where mbcore's
  classes have none; Specialists' values disagree with its predictions, PairSpecialists' raises
  ValueError on the rows it was fitted on.

Hypothesis: a modest number of examples per case, no deadline, no example database, no
shrinking (the failure names the rows, their scores and their predictions).
"""

import inspect
import math
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, reject, settings
from hypothesis import strategies as st

import mbcore
import mbcore.base
import mbref
import mbref.base
from mbcore.exceptions import LearnerWarning as CoreLearnerWarning
from mbref.exceptions import LearnerWarning as RefLearnerWarning

from _cases import declared, default_param, learners, rows_kind, takes_tie, unit_params

MODULES = {"mbcore": mbcore, "mbref": mbref}
BASES = {"mbcore": mbcore.base.OnlineLearner, "mbref": mbref.base.OnlineLearner}

MAX_EXAMPLES = 20
# (no shrinking: a failing case stops at its first counterexample, which keeps the file's time
# bounded; the failure names the rows, their scores and predictions)
HYPOTHESIS = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
                      phases=(Phase.explicit, Phase.generate),
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                             HealthCheck.filter_too_much])

# label encodings (negative, positive): sorted, so classes_ == [neg, pos]
ENCODINGS = ((-1, 1), (0, 1), ("no", "yes"))


# ================================================================================================
# 1. The learners, found
# ================================================================================================

def _has_decision_function(cls):
    """Whether an instance has decision_function (scikit-learn's ``hasattr`` on the estimator;
    a class-level look-up would see Specialists' raising property as present)."""
    return hasattr(cls.__new__(cls), "decision_function")


def _core_learner_names():
    base = BASES["mbcore"]
    return [n for n in mbcore.__all__
            if not n.startswith("_") and inspect.isclass(getattr(mbcore, n))
            and getattr(mbcore, n) is not base and issubclass(getattr(mbcore, n), base)]


def learners_with_decision_function(modname):
    """The public learner classes of the module that have decision_function, by name."""
    mod, base = MODULES[modname], BASES[modname]
    core = set(_core_learner_names())
    out = []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if name.startswith("_") or not inspect.isclass(obj) or obj is base:
            continue
        if not (issubclass(obj, base) or name in core):
            continue
        if modname == "mbref" and name not in core:
            continue        # a twin written before its compiled class: its own tests check it
        if _has_decision_function(obj):
            out.append(name)
    return out


# ================================================================================================
# 2. The data factory: per learner, its settings (parameters, input kind, tie outcome)
# ================================================================================================

NEG, POS = 0, 1          # the tie outcome: an index into classes_
RANDOM = "random"        # no function of the score (RandomizedWeightedMajority)

CONCEPTS = object()      # parameter placeholder: the ConceptClass of the stream, in the module
POOL = object()          # parameter placeholder: a pool of learners of the module


@dataclass(frozen=True)
class Setting:
    label: str
    params: dict
    kind: str                      # real, bool, advice, awake, categorical, points, vectors
    tie: object                    # NEG, POS or RANDOM
    modes: tuple = ("partial",)    # how it learns: partial_fit in chunks, and/or fit
    indicator: bool = False        # decision_function documented as 1.0 / 0.0


def S(label, params, kind, tie, modes=("partial",), indicator=False):
    return Setting(label, params, kind, tie, modes, indicator)


BOTH = ("partial", "fit")

# The finer settings of the learners that existed (a new learner's come from its class:
# ``settings_of`` below)
SETTINGS = {
    # tie: the ``tie`` parameter (Perceptron's docstring; the others "as for Perceptron")
    "Perceptron": [
        S("default", {}, "real", NEG, BOTH),
        S("tie=positive", {"tie": "positive"}, "real", POS, BOTH),
        S("fit_intercept", {"fit_intercept": True}, "real", NEG),
        S("tie=positive,fit_intercept,normalize",
          {"tie": "positive", "fit_intercept": True, "normalize": True}, "real", POS),
    ],
    "MarginPerceptron": [
        S("default", {}, "real", NEG),
        S("tie=positive,gamma=0.5,fit_intercept",
          {"tie": "positive", "gamma": 0.5, "fit_intercept": True}, "real", POS),
    ],
    "AveragedPerceptron": [
        S("average", {}, "real", NEG, BOTH),
        S("average,tie=positive,fit_intercept", {"tie": "positive", "fit_intercept": True},
          "real", POS),
        S("vote", {"mode": "vote"}, "real", NEG, BOTH),
        S("vote,tie=positive", {"mode": "vote", "tie": "positive"}, "real", POS),
    ],
    "OnlineHingeSVM": [
        S("pegasos", {}, "real", NEG, BOTH),
        S("eta=0.5,lam=0.1,tie=positive,fit_intercept,normalize",
          {"eta": 0.5, "lam": 0.1, "tie": "positive", "fit_intercept": True, "normalize": True},
          "real", POS),
    ],
    "PassiveAggressive": [
        S("PA-I", {}, "real", NEG, BOTH),
        S("PA,tie=positive,fit_intercept", {"variant": "PA", "tie": "positive",
                                            "fit_intercept": True}, "real", POS),
        S("PA-II,C=0.1", {"variant": "PA-II", "C": 0.1}, "real", NEG, BOTH),
    ],
    "KernelPerceptron": [
        S("rbf", {}, "real", NEG),
        S("poly", {"kernel": "poly", "degree": 2}, "real", NEG),
        S("poly,tie=positive,budget=3", {"kernel": "poly", "degree": 3, "budget": 3,
                                         "tie": "positive"}, "real", POS),
        S("rbf,tie=positive,gamma=2", {"gamma": 2.0, "tie": "positive"}, "real", POS),
    ],
    # tie: decision_function = score - theta, 0 is score >= theta: classes_[1]
    "Winnow": [
        S("default", {}, "bool", POS, BOTH),
        S("alpha=1.5", {"alpha": 1.5}, "bool", POS),
        S("real", {"features": "real"}, "real", POS),
        S("real,alpha=1.5,theta=0.5", {"features": "real", "alpha": 1.5, "theta": 0.5},
          "real", POS),
        S("theta=1,w0=0.5", {"theta": 1.0, "w0": 0.5}, "bool", POS),
        # weights 2**27k spread past float64's 53 bits, theta among them
        S("alpha=2**27,theta=2**27", {"alpha": 2.0 ** 27, "theta": 2.0 ** 27}, "bool", POS),
    ],
    "EliminationWinnow": [
        S("default", {}, "bool", POS, BOTH),
        S("theta=1", {"theta": 1.0}, "bool", POS),
    ],
    "WinnowStar": [
        S("default", {}, "bool", POS, BOTH),
        S("alpha=4,theta=2", {"alpha": 4.0, "theta": 2.0}, "bool", POS),
    ],
    "BalancedWinnow": [
        S("default", {}, "bool", POS, BOTH),
        S("real", {"features": "real"}, "real", POS),
        # w0 = 2**600: the float sums of w+ - w- (terms near 2**600) carry errors far above
        # theta, so every comparison near a cancellation takes the exact path
        S("w0=2**600", {"w0": 2.0 ** 600}, "bool", POS, BOTH),
        # theta = w+ - w- of a weight promoted once (2 - 1/2, times w0): exact ties are reachable
        S("theta=1.5", {"theta": 1.5}, "bool", POS),
        S("w0=2**600,theta=1.5*2**600", {"w0": 2.0 ** 600, "theta": 1.5 * 2.0 ** 600}, "bool",
          POS),
        S("alpha=1.5,theta=0.5", {"alpha": 1.5, "theta": 0.5}, "bool", POS),
        # alpha = 2**27: a weight promoted once has w+ - w- = 2**27 - 2**-27, 54 bits, which
        # rounds to theta = 2**27 in float64 (the exact score is below it: the sign of score -
        # theta must still be the exact rule's)
        S("alpha=2**27,theta=2**27", {"alpha": 2.0 ** 27, "theta": 2.0 ** 27}, "bool", POS),
    ],
    # tie: "predict positive iff q1 >= q0" (docstring): classes_[1]
    "WeightedMajority": [
        S("beta=0.5", {}, "advice", POS, BOTH),
        S("beta=0.3", {"beta": 0.3}, "advice", POS),
        S("pool", {"experts": POOL}, "real", POS),
    ],
    # a draw, not a function of the score: checked against its documentation
    "RandomizedWeightedMajority": [
        S("random_state=0", {}, "advice", RANDOM, BOTH),
        S("beta=0.3,random_state=7", {"beta": 0.3, "random_state": 7}, "advice", RANDOM),
    ],
    # (mbcore's have no decision_function; the twin's inherit one.)  Ties to the later class.
    # Learned with awake masks (keyword-only); asked with every specialist awake, as the
    # inherited decision_function takes no mask.
    "Specialists": [
        S("default", {}, "awake", POS, BOTH),
        S("demote=0.25,promote=2", {"demote": 0.25, "promote": 2.0}, "awake", POS),
    ],
    "PairSpecialists": [
        S("default", {}, "categorical", POS),
    ],
    # decision_function documented as 1.0 where the prediction is positive, 0.0 elsewhere
    "Conjunction": [
        S("default", {}, "bool", NEG, BOTH, indicator=True),
    ],
    "Disjunction": [
        S("monotone", {}, "bool", NEG, BOTH, indicator=True),
        S("all", {"literals": "all"}, "bool", NEG, indicator=True),
    ],
    "DecisionList": [
        S("default", {}, "bool", NEG, BOTH, indicator=True),
    ],
    "Halving": [
        S("indices", {"concepts": CONCEPTS}, "points", NEG, BOTH, indicator=True),
        S("conservative,vectors", {"concepts": CONCEPTS, "conservative": True}, "vectors", NEG,
          indicator=True),
    ],
    "SOA": [
        S("indices", {"concepts": CONCEPTS}, "points", NEG, BOTH, indicator=True),
        S("vectors", {"concepts": CONCEPTS}, "vectors", NEG, indicator=True),
    ],
}


_TIES = {"negative": NEG, "positive": POS, "random": RANDOM}
_KINDS = {"advice": "advice", "awake advice": "awake", "categorical": "categorical",
          "points": "points"}


def declared_tie(name, params):
    """The tie outcome the class of ``name`` declares for these parameters: its ``tie``
    parameter's, else its ``_TIE_AT_ZERO``; None if it declares neither."""
    cls = dict(learners())[name]
    if takes_tie(cls):
        return _TIES[params.get("tie", default_param(cls, "tie"))]
    return _TIES.get(declared(cls, "_TIE_AT_ZERO"))


def settings_of(name):
    """The settings of a learner: this file's finer ones, else one per entry of its
    ``_unit_test_params()`` (its rows by its tags: real values for the additive learners, 0/1
    features for the others; a ConceptClass parameter becomes the stream's); [None] when its
    class declares no tie outcome."""
    if name in SETTINGS:
        return SETTINGS[name]
    cls = dict(learners()).get(name)
    if cls is None:
        return [None]
    out = []
    for i, params in enumerate(unit_params(cls)):
        tie = declared_tie(name, params)
        if tie is None:
            return [None]
        kind = _KINDS.get(rows_kind(cls), "real" if takes_tie(cls) else "bool")
        params = {k: CONCEPTS if isinstance(v, mbcore.ConceptClass) else v
                  for k, v in params.items()}
        out.append(S(f"unit{i}", params, kind, tie, BOTH if hasattr(cls, "fit") else ("partial",),
                     indicator=bool(declared(cls, "_DECISION_INDICATOR", False))))
    return out


# -- the streams ---------------------------------------------------------------------------------

_REAL = st.one_of(
    st.integers(-3, 3).map(float),                  # exact ties (w . x == 0) are common
    st.sampled_from([0.5, -0.5, 0.25, 1e-3, -1e-3]),
    st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False),
)


def _rows(draw, kind, n, width, alphabet=None):
    if kind == "real":
        return [draw(st.lists(_REAL, min_size=width, max_size=width)) for _ in range(n)]
    if kind == "bool":
        return [draw(st.lists(st.integers(0, 1), min_size=width, max_size=width))
                for _ in range(n)]
    if kind in ("advice", "awake"):
        return [[alphabet[b] for b in draw(st.lists(st.integers(0, 1), min_size=width,
                                                     max_size=width))] for _ in range(n)]
    if kind == "categorical":
        return [draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=width, max_size=width))
                for _ in range(n)]
    raise AssertionError(kind)


@st.composite
def streams(draw, kind):
    """A stream of the input kind: X and y to learn (cut into chunks), Xq to ask about (the rows
    learned and fresh ones), the awake masks, the concept table."""
    enc = draw(st.sampled_from(ENCODINGS))
    n = draw(st.integers(1, 10))
    n_extra = draw(st.integers(0, 4))
    out = {"enc": enc, "awake": None, "table": None}
    if kind in ("points", "vectors"):
        N = draw(st.integers(2, 6))
        m = draw(st.integers(1, 6))
        M = [draw(st.lists(st.integers(0, 1), min_size=N, max_size=N)) for _ in range(m)]
        idx = draw(st.lists(st.integers(0, N - 1), min_size=n, max_size=n))
        extra = draw(st.lists(st.integers(0, N - 1), min_size=n_extra, max_size=n_extra))
        target = draw(st.one_of(st.none(), st.integers(0, m - 1)))   # None: any labels
        bits = [M[target][j] for j in idx] if target is not None else \
            draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        points = [((j >> 2) & 1, (j >> 1) & 1, j & 1) for j in range(N)]     # 0/1 vectors
        out["table"] = (M, points)
        if kind == "points":
            out["X"], out["Xq"] = idx, idx + extra
        else:
            out["X"] = [points[j] for j in idx]
            out["Xq"] = [points[j] for j in idx + extra]
    else:
        width = draw(st.integers(2, 3) if kind == "categorical" else
                     st.integers(1, 5) if kind in ("advice", "awake") else st.integers(1, 4))
        X = _rows(draw, kind, n, width, enc)
        out["X"] = X
        out["Xq"] = X + _rows(draw, kind, n_extra, width, enc)
        bits = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        if kind == "awake":
            out["awake"] = [draw(st.lists(st.booleans(), min_size=width, max_size=width))
                            for _ in range(n)]
    out["y"] = [enc[b] for b in bits]
    cuts = sorted(set(draw(st.lists(st.integers(1, n), max_size=3))) | {n})
    out["chunks"] = list(zip([0] + cuts[:-1], cuts))
    return out


def _as_input(modname, kind, rows):
    """The rows as the module takes them: NumPy arrays for mbcore's numeric rows, lists for the
    twin (standard library only) and for labels and categories."""
    if modname == "mbcore" and kind in ("real", "bool"):
        return np.array(rows, dtype=np.float64 if kind == "real" else np.int64)
    if kind == "points":
        return list(rows)
    if kind == "vectors":
        return [tuple(r) for r in rows]
    return [list(r) for r in rows]


def make_learner(modname, name, setting, stream):
    mod = MODULES[modname]
    params = {}
    for k, v in setting.params.items():
        if v is CONCEPTS:
            M, points = stream["table"]
            v = mod.ConceptClass.from_matrix(M, points=points)
        elif v is POOL:
            v = [mod.Perceptron(), mod.Winnow(features="real"), mod.OnlineHingeSVM()]
        params[k] = v
    return getattr(mod, name)(**params)


# ================================================================================================
# 3. The checks
# ================================================================================================

def _label(v):
    return v.item() if isinstance(v, np.generic) else v


def _sign_violations(df, pred, classes, tie):
    """The rows that break the convention: (row, df, prediction, what was expected)."""
    neg, pos = classes
    bad = []
    for i, (s, p) in enumerate(zip(df, pred)):
        s, p = float(s), _label(p)
        if s > 0:
            want = pos
        elif s < 0:
            want = neg
        elif s == 0:
            want = classes[tie]
        else:
            bad.append((i, s, p, "a real score"))
            continue
        if p != want:
            bad.append((i, s, p, want))
    return bad


def _check_shape(modname, df, n):
    assert np.shape(df) == (n,), f"decision_function has shape {np.shape(df)}, expected ({n},)"
    if modname == "mbcore":   # documented: ndarray of shape (n_samples,), float64
        assert isinstance(df, np.ndarray) and df.dtype == np.float64, \
            (type(df), getattr(df, "dtype", None))


def _check_randomized(L, modname, Xq, last):
    """RandomizedWeightedMajority (docstring; docs/algorithms/experts.rst): decision_function
    is q1 / (q0 + q1), the positive label's share of the weight, and predict draws the positive
    label with that probability, from a copy of the generator (so predict changes nothing and
    repeats itself).  Its predictions are no function of the score, so the sign convention
    cannot hold; checked instead: the share is in [0, 1]; a share of 0 (1) always predicts
    classes_[0] (classes_[1]); predict twice gives the same; and (after the last call) the
    frequency of classes_[1] over many copies of one row matches the share (an exact binomial
    test at 1e-9: the draws are seeded, so the outcome is fixed for each example)."""
    neg, pos = (_label(c) for c in L.classes_)
    df = L.decision_function(Xq)
    _check_shape(modname, df, len(Xq))
    pred = [_label(p) for p in L.predict(Xq)]
    assert pred == [_label(p) for p in L.predict(Xq)], "predict changed the learner"
    for i, (s, p) in enumerate(zip(df, pred)):
        s = float(s)
        assert 0.0 <= s <= 1.0, f"row {i}: the share {s!r} is not in [0, 1]"
        if s == 0.0:
            assert p == neg, f"row {i}: share 0 but predicted {p!r}"
        if s == 1.0:
            assert p == pos, f"row {i}: share 1 but predicted {p!r}"
    s = float(df[0])
    if last and 0.0 < s < 1.0:
        reps = 300
        k = sum(_label(p) == pos for p in L.predict([list(Xq[0])] * reps))
        assert _binomial_p(k, reps, s) > 1e-9, \
            f"{k} of {reps} copies of row 0 predicted {pos!r}, the share is {s!r}"


def _binomial_p(k, n, p):
    """The exact two-sided p-value of k successes in n draws of probability p (the outcomes no
    more likely than k)."""
    def logpmf(i):
        return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                + i * math.log(p) + (n - i) * math.log1p(-p))
    cut = logpmf(k) + 1e-9
    return min(1.0, sum(math.exp(logpmf(i)) for i in range(n + 1) if logpmf(i) <= cut))


def check_learner(L, modname, setting, Xq, kw, last):
    if setting.tie == RANDOM:
        _check_randomized(L, modname, Xq, last)
        return
    try:
        df = L.decision_function(Xq, **kw)
    except ValueError as exc:
        # a refusal of the rows (MarginPerceptron cannot scale a subnormal row to unit length)
        # must be predict's too
        try:
            L.predict(Xq, **kw)
        except ValueError:
            return
        raise AssertionError(f"decision_function refused rows that predict answers: {exc}") \
            from exc
    _check_shape(modname, df, len(Xq))
    pred = L.predict(Xq, **kw)
    assert len(pred) == len(Xq)
    classes = [_label(c) for c in L.classes_]
    assert len(classes) == 2, classes
    if setting.indicator:
        assert set(float(v) for v in df) <= {0.0, 1.0}, f"documented 1.0/0.0, got {list(df)!r}"
    bad = _sign_violations(df, pred, classes, setting.tie)
    assert not bad, (
        f"decision_function's sign disagrees with predict (classes_={classes!r}, a 0 documented "
        f"as {classes[setting.tie]!r}): " + "; ".join(
            f"row {i}: df={s!r} predicted {p!r}, expected {w!r}" for i, s, p, w in bad[:5]))


def learn_and_check(modname, name, setting, stream, mode):
    L = make_learner(modname, name, setting, stream)
    kind = setting.kind
    X = _as_input(modname, kind, stream["X"])
    Xq = _as_input(modname, kind, stream["Xq"])
    y = list(stream["y"])
    classes = list(stream["enc"])
    kw_pred = {}
    with warnings.catch_warnings():
        # an inconsistent stream (Conjunction, Halving, ...) warns once: a state like any other
        warnings.simplefilter("ignore", CoreLearnerWarning)
        warnings.simplefilter("ignore", RefLearnerWarning)
        if mode == "fit":
            kw = {"awake": stream["awake"]} if kind == "awake" else {}
            _learn(L.fit, X, y, classes, kw)
            check_learner(L, modname, setting, Xq, kw_pred, True)
            return
        chunks = stream["chunks"]
        for a, b in chunks:
            kw = {"awake": stream["awake"][a:b]} if kind == "awake" else {}   # keyword-only
            _learn(L.partial_fit, X[a:b], y[a:b], classes, kw)
            check_learner(L, modname, setting, Xq, kw_pred, b == chunks[-1][1])


def _learn(method, X, y, classes, kw):
    try:
        method(X, y, classes=classes, **kw)
    except ValueError as exc:
        # the documented refusals, all or nothing: a real-mode Winnow score past float64's range,
        # and an overflow of the linear learners (MarginPerceptron scaling a subnormal row to
        # unit length): not the subject here
        msg = str(exc)
        if "is not finite in float64 arithmetic" in msg or "overflow" in msg:
            reject()
        raise


# ================================================================================================
# The tests
# ================================================================================================

@pytest.mark.parametrize("modname", list(MODULES))
def test_every_learner_is_known(modname):
    """Every learner with decision_function has settings (a new one fails until its class
    declares its tie outcome: a ``tie`` parameter or ``_TIE_AT_ZERO``)."""
    found = learners_with_decision_function(modname)
    assert "Perceptron" in found and "Winnow" in found, found     # the discovery works
    unknown = sorted(n for n in found if settings_of(n) == [None])
    assert not unknown, (f"{modname}: learners with decision_function whose tie outcome this "
                         f"file cannot derive: {unknown}; declare _TIE_AT_ZERO on the class")


def test_the_declared_tie_outcomes_agree_with_the_finer_settings():
    """What each class declares (``tie``, ``_TIE_AT_ZERO``, ``_DECISION_INDICATOR``) gives the
    tie outcome and the indicator of every setting kept above."""
    classes = dict(learners())
    for name, settings_ in SETTINGS.items():
        for setting in settings_:
            assert declared_tie(name, setting.params) == setting.tie, (name, setting.label)
            assert bool(declared(classes[name], "_DECISION_INDICATOR", False)) == \
                setting.indicator, (name, setting.label)


def _cases():
    out = []
    for modname in MODULES:
        for name in learners_with_decision_function(modname):
            for setting in settings_of(name):
                label = setting.label if setting is not None else "UNKNOWN"
                out.append(pytest.param(modname, name, setting,
                                        id=f"{modname}-{name}-{label}"))
    return out


@pytest.mark.parametrize("modname,name,setting", _cases())
def test_decision_function_sign_matches_predict(modname, name, setting):
    if setting is None:
        pytest.fail(f"{modname}.{name} has decision_function but no setting: its class declares "
                    "no tie outcome (a tie parameter or _TIE_AT_ZERO)")

    # (fit where the class has one: the twin's Weighted Majorities have partial_fit only)
    cls = getattr(MODULES[modname], name)
    modes = [m for m in setting.modes if m == "partial" or hasattr(cls, "fit")]

    @HYPOTHESIS
    @given(stream=streams(setting.kind), mode=st.sampled_from(modes))
    def prop(stream, mode):
        learn_and_check(modname, name, setting, stream, mode)

    prop()
