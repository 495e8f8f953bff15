"""The cross-cutting test cases, derived from what each learner class declares.

Not a test module (no ``test_`` prefix: pytest collects nothing here).  The tests that run
over many learners (the additive learners' parity and contract, bad input, the fuzzing, the
sign of ``decision_function``, scikit-learn's checks, persistence, the registry's facts) take
their learners from here, and this module takes them from the registry
(``mbcore.all_learners()``, that is ``mbcore._registry``) and from what each class declares:

* its tags (``_TAKES``, ``_K_CLASSES``, ``_PEER``, ``_MIX``, ``_BOUND``, ...), read ONLY
  through :func:`tag`;
* its small test parameters, ``_unit_test_params()`` (river's pattern), through
  :func:`unit_params`;
* the facts only the tests need, declared on the class beside its rule and read through
  :func:`declared`: ``_FITTED`` (the fitted attributes that raise NotFittedError before
  ``fit``), ``_INTEGER_EXACT`` (its state stays exact on small integer data: every summation
  order gives the same sums), ``_TIE_AT_ZERO`` and ``_DECISION_INDICATOR`` (where a
  ``decision_function`` of exactly 0 goes when the class has no ``tie`` parameter, and whether
  ``decision_function`` is the 1.0 / 0.0 indicator of the prediction).

So a learner added to mbcore needs nothing in tests/ beyond its own test file: each derived
table gives it the cases its declarations call for (tests/README.md, "Beside the folders").

``finer`` tables: some tests keep, for the learners that existed when their tables were
derived (``EXISTING``), the finer cases their hand tables held (more option combinations,
values chosen for an edge of the arithmetic); :func:`kept_or_derived` gives every other
learner its ``_unit_test_params()``.  A new learner is never required in one of them.
"""

import inspect

import mbcore

__all__ = ["EXISTING", "tag", "declared", "learners", "unit_params", "entry_id", "takes_tie",
           "is_additive",
           "kept_or_derived", "ADDITIVE", "ADDITIVE_IDS", "ADDITIVE_NAMES", "integer_exact",
           "rows_kind", "default_param"]

# The learners registered when the hand tables became derived ones (issue 37): a fixed fact
# the registry's checks keep (each stays registered, in this order), never a list a new
# learner joins.
EXISTING = ("Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
            "OnlineHingeSVM", "PassiveAggressive", "WeightedMajority",
            "RandomizedWeightedMajority", "Specialists", "PairSpecialists", "Winnow",
            "EliminationWinnow", "WinnowStar", "BalancedWinnow", "Conjunction", "Disjunction",
            "DecisionList", "Halving", "SOA")


# ------------------------------------------------------------------------------------------------
# What a class declares
# ------------------------------------------------------------------------------------------------

def tag(cls, name):
    """The tag ``name`` a learner class declares ("takes", "k_classes", "peer", "mix",
    "bound", "multi_bound", "bound_counts", ...: the fields of ``mbcore._tags.LearnerTags``).
    The tests read tags only through this."""
    return getattr(cls._TAGS, name)


def declared(cls, name, default=None):
    """A fact a class declares for the tests (``_FITTED``, ``_INTEGER_EXACT``,
    ``_TIE_AT_ZERO``, ``_DECISION_INDICATOR``), or ``default`` where it declares none."""
    return getattr(cls, name, default)


def learners():
    """``[(name, class), ...]``: the registry, in its order."""
    return mbcore.all_learners()


def unit_params(cls):
    """The class's own small test parameter sets (copies)."""
    return [dict(p) for p in cls._unit_test_params()]


def default_param(cls, name):
    """The default of a constructor parameter (inspect.Parameter.empty if it has none)."""
    return inspect.signature(cls.__init__).parameters[name].default


def takes_tie(cls):
    """A learner with a ``tie`` parameter (the additive learners' "as for Perceptron")."""
    return "tie" in cls._parameter_constraints()


def rows_kind(cls):
    """What a row of X is, by the class's tag: "features", "advice", "awake advice",
    "categorical" or "points"."""
    return tag(cls, "takes")


def entry_id(entry):
    """``Name`` or ``Name(k=v,...)``: the id of a (name, params) case."""
    name, params = entry
    if not params:
        return name
    return name + "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


def kept_or_derived(select, finer):
    """``[(name, params), ...]`` over the registry, in its order: for each class that
    ``select(cls)`` accepts, the cases ``finer`` keeps for it (``{name: [params, ...]}``), else
    one per entry of its ``_unit_test_params()``."""
    out = []
    for name, cls in learners():
        if not select(cls):
            continue
        rows = finer.get(name)
        out += [(name, dict(p)) for p in (rows if rows is not None else unit_params(cls))]
    return out


# ------------------------------------------------------------------------------------------------
# The additive learners (feature rows and a ``tie`` parameter): their parity with the twin,
# their contract, persistence and sample weights
# ------------------------------------------------------------------------------------------------

def is_additive(cls):
    return tag(cls, "takes") == "features" and takes_tie(cls)


# the finer option combinations of the additive learners that existed (each line a reason:
# normalisation, intercept, dyadic and non-dyadic steps, the hinge's shrink, PA-I's cap)
ADDITIVE_FINER = {
    "Perceptron": [
        {}, {"tie": "positive"}, {"normalize": True}, {"fit_intercept": True}, {"eta": 0.37},
        {"eta": 2.5, "fit_intercept": True, "tie": "positive"},
        {"normalize": True, "fit_intercept": True, "tie": "positive"}],
    "MarginPerceptron": [
        {"gamma": 0.1}, {"gamma": 0.3, "margin_fraction": 0.9},
        {"gamma": 0.2, "fit_intercept": True},
        {"gamma": 0.05, "tie": "positive", "margin_fraction": 0.25}],
    "AveragedPerceptron": [
        {"mode": "average"}, {"mode": "vote"},
        {"mode": "average", "normalize": True, "eta": 0.7},
        {"mode": "vote", "fit_intercept": True, "normalize": True, "tie": "positive"},
        {"mode": "average", "fit_intercept": True}],
    "KernelPerceptron": [
        {"kernel": "linear"}, {"kernel": "poly", "degree": 2},
        {"kernel": "poly", "degree": 3, "gamma": 0.5, "coef0": 0.25, "tie": "positive"},
        {"kernel": "rbf"}, {"kernel": "rbf", "gamma": 0.3, "budget": 5},
        {"kernel": "poly", "degree": 2, "budget": 3}],
    "OnlineHingeSVM": [
        {"lam": 0.1}, {"lam": 0.01, "eta": 0.05}, {"lam": 0.05, "fit_intercept": True},
        {"lam": 0.2, "normalize": True, "tie": "positive"},
        {"lam": 1.0, "eta": 0.9},           # shrink 0.1 per step: the 1e-9 refold
        {"lam": 1.0, "eta": 1.0},           # shrink to exactly 0 every step
        {"lam": 0.5, "eta": 0.3, "fit_intercept": True, "normalize": True}],
    "PassiveAggressive": [
        {}, {"variant": "PA", "fit_intercept": True},
        {"variant": "PA-II", "C": 0.05, "tie": "positive"},
        {"C": 1e-3, "fit_intercept": True}],           # PA-I's cap on every step
}

ADDITIVE = kept_or_derived(is_additive, ADDITIVE_FINER)
ADDITIVE_IDS = [entry_id(e) for e in ADDITIVE]
ADDITIVE_NAMES = tuple(dict.fromkeys(name for name, _ in ADDITIVE))


def integer_exact(entry):
    """True when the learner's state stays exact on small integer data: its class declares it
    (``_INTEGER_EXACT``: no hinge shrink, no margin scaling), without normalisation and with a
    dyadic step, so every summation order, dense or CSR, gives the same results."""
    name, params = entry
    cls = dict(learners())[name]
    if not declared(cls, "_INTEGER_EXACT", False):
        return False
    if params.get("normalize"):
        return False
    eta = params.get("eta", default_param(cls, "eta") if "eta" in cls._parameter_constraints()
                     else 1.0)
    return (float(eta) * 1024.0).is_integer()        # a dyadic step keeps the weights exact
