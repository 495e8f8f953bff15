"""The docstrings: their examples run (doctest), and every learner documents its parameters,
an example and its mistake bound (numpydoc docstrings with the update rule, the bound,
a reference to the notes, and an Examples section that runs as a doctest)."""

import doctest
import importlib
import inspect

import pytest

import mbcore

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# mbcore.linear is the core module and must have examples; the others are checked when they
# are part of the build (an ImportError there is reported by the import test below instead).
# The modules of a subpackage are listed with it: doctest finds in a module only what that module
# defines, so each one is run on its own.
OPTIONAL = ("mbcore.online", "mbcore.bounds", "mbcore.datasets", "mbcore.datasets.bundled",
            "mbcore.datasets.formats", "mbcore.queries", "mbcore.queries.oracles",
            "mbcore.queries.conversions", "mbcore.queries.exact", "mbcore.certificates",
            "mbcore.streaming", "mbcore.persistence", "mbcore.distributed")


def _run(module):
    # A module of a subpackage is documented in its package's namespace: its examples may use
    # any name the package exports (as ``from mbcore.datasets import *`` would give them), not
    # only the names of the module itself.
    package, _, _ = module.__name__.rpartition(".")
    extraglobs = {}
    if package != "mbcore":
        pkg = importlib.import_module(package)
        extraglobs = {name: getattr(pkg, name) for name in getattr(pkg, "__all__", ())
                      if name not in vars(module)}
    res = doctest.testmod(module, extraglobs=extraglobs, optionflags=FLAGS, verbose=False,
                          report=True)
    return res.failed, res.attempted


@pytest.mark.parametrize("name", ["mbcore.linear", "mbcore.multiplicative", "mbcore.experts",
                                  "mbcore.boolean", "mbcore.version_space"])
def test_doctests_learner_modules(name):
    failed, attempted = _run(importlib.import_module(name))
    assert attempted > 0
    assert failed == 0


@pytest.mark.parametrize("name", OPTIONAL)
def test_doctests_other_modules(name):
    if name == "mbcore.distributed":
        pytest.importorskip("dask", reason="the optional extra mbcore[dask] is not installed")
    module = importlib.import_module(name)
    failed, attempted = _run(module)
    assert failed == 0
    if name != "mbcore.online":        # online.py has no examples of its own (yet)
        assert attempted > 0


def _learners():
    out = []
    for name in mbcore.__all__:
        obj = getattr(mbcore, name)
        if inspect.isclass(obj) and issubclass(obj, mbcore.OnlineLearner) and \
                obj is not mbcore.OnlineLearner:
            out.append(name)
    return out


def test_every_learner_is_found():
    names = _learners()
    for expected in ("Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
                     "OnlineHingeSVM"):
        assert expected in names


@pytest.mark.parametrize("name", _learners())
def test_learner_docstring_sections(name):
    doc = inspect.getdoc(getattr(mbcore, name)) or ""
    lines = [ln.strip() for ln in doc.splitlines()]
    for section in ("Parameters", "Examples"):
        i = lines.index(section) if section in lines else -1
        assert i >= 0, f"{name}: no {section!r} section"
        assert lines[i + 1].startswith("---"), f"{name}: {section!r} is not a numpydoc heading"
    assert "bound" in doc.lower(), f"{name}: the docstring does not state its bound"
    assert ">>>" in doc.split("Examples", 1)[1], f"{name}: the Examples section has no example"
    # Every constructor parameter is documented.
    params = [p for p in inspect.signature(getattr(mbcore, name).__init__).parameters
              if p != "self"]
    section = doc.split("Parameters", 1)[1]
    for p in params:
        assert p in section, f"{name}: parameter {p!r} is not documented"
