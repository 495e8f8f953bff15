"""The parameters as data: every learner declares the domain of each constructor parameter once
(``_PARAMETERS``, merged along its bases; mbcore._params), and the checks, the messages, these
bad-parameter tests and the documentation's table of parameters all come from it.

For every learner of ``mbcore.all_learners()``, every parameter and every value its domain
refuses (``Constraint.invalid()``): the first ``partial_fit`` raises, naming the class, the
parameter and the value, the learner is left unfitted, and the twin (``mbref``) raises the same
message word for word; ``fit`` refuses it with the same message, and so does the next call after
``set_params`` gave it to a fitted learner, whose state is then as it was (both twins).  A
learner that leaves a constructor parameter undeclared fails here.

These cases took over the hand table ``BAD_PARAMS`` of safety/test_bad_input.py: its rows whose
value a domain's ``invalid()`` does not give are kept below (``ALSO_REFUSED``, about the learners
that existed; a new learner adds nothing there).
"""

import math
import pickle

import numpy as np
import pytest

import mbcore
import mbref
from mbcore import _params

from _learner_data import data

LEARNERS = mbcore.all_learners()

pytestmark = pytest.mark.filterwarnings("ignore::mbcore.LearnerWarning",
                                        "ignore::mbref.LearnerWarning")


def _init_params(cls):
    import inspect
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


@pytest.mark.parametrize("name, cls", LEARNERS, ids=[n for n, _ in LEARNERS])
def test_every_constructor_parameter_is_declared(name, cls):
    declared = cls._parameter_constraints()
    assert list(declared) == _init_params(cls), name
    for p, c in declared.items():
        assert isinstance(c, _params.Constraint) and c.describe(), (name, p)
        assert c.invalid(), (name, p)          # every domain refuses something to test


# The values of the old hand table (safety/test_bad_input.py's BAD_PARAMS) that no domain's
# invalid() gives (its other 23 rows are among the generated cases): fixed facts about the
# learners that existed.
ALSO_REFUSED = [
    ("Perceptron", "tie", "x"), ("Perceptron", "eta", "fast"), ("Perceptron", "max_epochs", 2.5),
    ("Perceptron", "fit_intercept", "no"), ("MarginPerceptron", "gamma", -1),
    ("MarginPerceptron", "gamma", 0.0), ("MarginPerceptron", "margin_fraction", 2),
    ("MarginPerceptron", "margin_fraction", 0.0), ("MarginPerceptron", "tie", "both"),
    ("AveragedPerceptron", "mode", "median"), ("KernelPerceptron", "kernel", "x"),
    ("KernelPerceptron", "tie", "x"), ("OnlineHingeSVM", "lam", -0.5),
    ("PassiveAggressive", "C", "big"), ("PassiveAggressive", "variant", "PA-III"),
]


def _cases():
    out = []
    for name, cls in LEARNERS:
        base = cls._unit_test_params()[0]
        for p, c in cls._parameter_constraints().items():
            for i, v in enumerate(c.invalid()):
                out.append(pytest.param(name, cls, base, p, v, id=f"{name}-{p}-{i}"))
    classes = dict(LEARNERS)
    for j, (name, p, v) in enumerate(ALSO_REFUSED):
        cls = classes[name]
        out.append(pytest.param(name, cls, cls._unit_test_params()[0], p, v,
                                id=f"{name}-{p}-also{j}"))
    return out


def _twin_value(v):
    """A parameter value for the twin: mbcore's ConceptClass as mbref's (the same bitsets)."""
    if isinstance(v, mbcore.ConceptClass):
        cols = [sum(int(w) << (64 * k) for k, w in enumerate(row)) for row in v._cols]
        return mbref.ConceptClass(cols, v.n_concepts, v.points, v.name)
    return v


def _twin_data(X, kw):
    rows = X.tolist() if isinstance(X, np.ndarray) else X
    return rows, {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kw.items()}


@pytest.mark.parametrize("name, cls, base, param, value", _cases())
def test_a_refused_value_raises_naming_class_parameter_and_value(name, cls, base, param, value):
    X, y, kw = data(cls)
    clf = cls(**dict(base, **{param: value}))
    with pytest.raises((ValueError, TypeError)) as err:
        clf.partial_fit(X, y, **kw)
    msg = str(err.value)
    assert msg.startswith(f"{name}: "), msg
    if err.type is ValueError:
        assert f"parameter {param} " in msg and repr(value) in msg, msg
    assert not clf._is_fitted()
    # the twin refuses it with the same words
    twin = getattr(mbref, name)(**{k: _twin_value(v) for k, v in
                                   dict(base, **{param: value}).items()})
    rows, tkw = _twin_data(X, kw)
    with pytest.raises(err.type) as terr:
        twin.partial_fit(rows, y.tolist(), **tkw)
    assert str(terr.value) == msg


@pytest.mark.parametrize("name, cls", LEARNERS, ids=[n for n, _ in LEARNERS])
def test_the_test_parameters_are_inside_the_domains(name, cls):
    for params in cls._unit_test_params():
        clf = cls(**params)
        for p, c in cls._parameter_constraints().items():
            c.check(name, p, getattr(clf, p))


def test_constraints_refuse_and_accept():
    R = _params.Real(0, 1, high_inclusive=False)
    assert R.describe() == "a finite real in (0, 1)"
    assert R.check("X", "a", 0.5) == 0.5
    for v in R.invalid():
        with pytest.raises(ValueError, match=r"^X: parameter a must be a finite real in \(0, 1\)"):
            R.check("X", "a", v)
    I = _params.Integer(1, 10, none=True)
    assert I.check("X", "n", None) is None and I.check("X", "n", np.int64(3)) == 3
    assert I.describe() == "an integer in [1, 10] or None"
    for v in I.invalid():
        with pytest.raises(ValueError, match="must be an integer in"):
            I.check("X", "n", v)
    C = _params.Choice("a", "b")
    assert C.check("X", "c", "b") == "b" and C.describe() == "one of ['a', 'b']"
    with pytest.raises(ValueError):
        C.check("X", "c", "c")
    assert _params.Flag().check("X", "f", np.bool_(True)) is True


def test_the_documentation_table_comes_from_the_declarations():
    text = _params.parameter_table(LEARNERS)
    for name, cls in LEARNERS:
        assert f":class:`~mbcore.{name}`" in text
        for p, c in cls._parameter_constraints().items():
            assert f"``{p}``" in text and c.describe() in text
    assert "one of ['PA', 'PA-I', 'PA-II']" in text


def _state(clf):
    """Everything a learner keeps, as bytes (its pickle)."""
    return pickle.dumps(clf)


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
@pytest.mark.parametrize("name, cls, base, param, value", _cases())
def test_a_refused_value_is_refused_by_fit_and_after_fit_by_set_params(mod, name, cls, base,
                                                                       param, value, request):
    """``fit`` refuses a refused value as ``partial_fit`` does, naming the class, the parameter
    and the value, and leaves the learner unfitted; given to a fitted learner by
    ``set_params``, the next call refuses it naming the parameter, and with the valid value
    back the learner is exactly as it was."""
    X, y, kw = data(cls)
    if mod is mbref:
        X, kw = _twin_data(X, kw)
        y = y.tolist()
    conv = _twin_value if mod is mbref else (lambda v: v)
    make = getattr(mod, name)
    bad = {k: conv(v) for k, v in dict(base, **{param: value}).items()}
    messages = []
    for call in ("partial_fit", "fit"):
        clf = make(**bad)
        with pytest.raises((ValueError, TypeError)) as err:
            getattr(clf, call)(X, y, **kw)
        msg = str(err.value)
        messages.append((err.type, msg))
        assert msg.startswith(f"{name}: "), msg
        if err.type is ValueError:
            assert f"parameter {param} " in msg and repr(value) in msg, msg
        with pytest.raises(mod.NotFittedError):
            clf.predict(X, **kw)
    assert messages[0] == messages[1]
    # set_params on a fitted learner: the next call refuses, and the state is unchanged (read
    # back after restoring the valid value)
    if mod is mbcore and param == "class_weight" and isinstance(value, (int, float)):
        # found by these generated cases (issue 37): a number as class_weight given to a fitted
        # learner is not checked before use (TypeError "'float' object is not iterable"); the
        # twin names it.  strict: the fix turns this into a failure to remove the mark.
        request.applymarker(pytest.mark.xfail(strict=True, raises=AssertionError,
                                              reason="class_weight after fit is not checked"))
    clf = make(**{k: conv(v) for k, v in base.items()})
    clf.partial_fit(X, y, **kw)
    before = _state(clf)
    good = clf.get_params()[param]
    clf.set_params(**{param: conv(value)})
    with pytest.raises((ValueError, TypeError)) as err:
        clf.partial_fit(X, y, **kw)
    assert param in str(err.value)
    clf.set_params(**{param: good})
    assert _state(clf) == before
