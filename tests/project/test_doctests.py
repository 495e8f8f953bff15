"""The docstrings: their examples run (doctest), and every learner documents its parameters,
an example and its mistake bound (numpydoc docstrings with the update rule, the bound,
a reference to the notes, and an Examples section that runs as a doctest)."""

import doctest
import importlib
import inspect
import re

import pytest

import mbcore

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Every module of mbcore is run (found by walking the package, so a new module joins without an
# edit here); a family module (mbcore._registry.FAMILIES) must have examples.  The modules of a
# subpackage are run one by one: doctest finds in a module only what that module defines.  The
# examples of the API pages are these docstrings: the site's doctest build runs the pages' own
# examples only (docs/conf.py, doctest_test_doctest_blocks).
NEEDS = {"mbcore.distributed": "dask"}       # a module that imports an optional extra


def _modules():
    import pkgutil
    names = ["mbcore"] + [m.name for m in pkgutil.walk_packages(mbcore.__path__, "mbcore.")
                          if ".__main__" not in m.name and "._kernels" not in m.name]
    return sorted(names)


MODULES = _modules()


def _run(module):
    # A module of a subpackage is documented in its package's namespace: its examples may use
    # any name the package exports (as ``from mbcore.datasets import *`` would give them), not
    # only the names of the module itself.
    package, _, _ = module.__name__.rpartition(".")
    extraglobs = {}
    if package not in ("", "mbcore"):
        pkg = importlib.import_module(package)
        extraglobs = {name: getattr(pkg, name) for name in getattr(pkg, "__all__", ())
                      if name not in vars(module)}
    res = doctest.testmod(module, extraglobs=extraglobs, optionflags=FLAGS, verbose=False,
                          report=True)
    return res.failed, res.attempted


def test_the_walk_finds_the_families_and_the_new_homes():
    """The walk is the list: it has every family module and the modules issue 37 made."""
    from mbcore import _registry
    assert set(_registry.FAMILIES) <= set(MODULES)
    assert {"mbcore.kernel", "mbcore.margins", "mbcore.workflow", "mbcore.certificates.additive",
            "mbcore.queries.graphs"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    from mbcore import _registry
    if name in NEEDS:
        pytest.importorskip(NEEDS[name], reason=f"the optional extra of {name} is not installed")
    failed, attempted = _run(importlib.import_module(name))
    assert failed == 0
    if name in _registry.FAMILIES:
        assert attempted > 0, f"{name}: a family module without examples"


# -- the Parameters section, read as numpydoc writes it ----------------------------------------

_ENTRY = re.compile(r"(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::\s|:$|$)")


def _headings(lines):
    """The indices of the numpydoc section headings: a line underlined by dashes."""
    return [i for i in range(len(lines) - 1) if lines[i].strip() and
            len(lines[i + 1].strip()) >= 3 and set(lines[i + 1].strip()) == {"-"}]


def _headings_named(doc, title):
    lines = doc.splitlines()
    return [i for i in _headings(lines) if lines[i].strip() == title]


def documented_parameters(doc):
    """The names the numpydoc Parameters section of ``doc`` (as ``inspect.getdoc`` gives it)
    has entries for: the lines of the section that are not indented, ``name : type`` or a
    bare ``name`` (``a, b : int`` documents both; ``*args``, ``**kwargs`` are read without
    their stars).  The section ends at the next heading; the rest of the docstring (Notes,
    Examples, the prose above) documents nothing here, whatever names it mentions."""
    lines = doc.splitlines()
    heads = _headings(lines)
    names = set()
    for k, h in enumerate(heads):
        if lines[h].strip() != "Parameters":
            continue
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        for line in lines[h + 2:end]:
            if not line.strip() or line[0].isspace():
                continue                              # a description line, or a blank one
            m = _ENTRY.match(line.rstrip())
            if m:
                names.update(n.strip().lstrip("*") for n in m.group(1).split(","))
    return names


def undocumented_parameters(cls):
    """The parameters of ``cls.__init__`` (but self) without an entry in the Parameters
    section of the class docstring, in signature order."""
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    documented = documented_parameters(inspect.getdoc(cls) or "")
    return [p for p in params if p not in documented]


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
    # Every constructor parameter has an entry in the Parameters section.
    missing = undocumented_parameters(getattr(mbcore, name))
    assert not missing, f"{name}: parameter(s) {missing} have no entry in its Parameters section"


def _with_parameters_section():
    """The public classes that are not learners but document parameters (the wrappers of
    mbcore.queries, the oracles, the adversaries)."""
    learners = set(_learners())
    return [name for name in mbcore.__all__ if inspect.isclass(getattr(mbcore, name)) and
            name not in learners and
            _headings_named(inspect.getdoc(getattr(mbcore, name)) or "", "Parameters")]


@pytest.mark.parametrize("name", _with_parameters_section())
def test_every_parameters_section_is_complete(name):
    missing = undocumented_parameters(getattr(mbcore, name))
    assert not missing, f"{name}: parameter(s) {missing} have no entry in its Parameters section"


# -- the check of the Parameters section, checked ------------------------------------------------

class _MentionedElsewhere:
    """A made-up learner whose docstring names each parameter, but documents only ``eta``.

    The update rule w += eta * y * x; the ties go to the negative label (see ``tie``).

    Parameters
    ----------
    eta : float, default=1.0
        The learning rate; with budget=None (no budget) nothing is forgotten.

    Notes
    -----
    tie : the Notes are not the Parameters section.

    Examples
    --------
    >>> learner = _MentionedElsewhere(eta=2.0, tie="positive", budget=3)
    """

    def __init__(self, eta=1.0, tie="negative", budget=None):
        self.eta, self.tie, self.budget = eta, tie, budget


class _Documented:
    """A made-up learner that documents its parameters as numpydoc allows.

    Parameters
    ----------
    eta, margin : float
        Two entries on one line.
    tie
        An entry without a type.
    *args : ignored
    **fit_params : dict
        Stars are not part of the name.

    Returns
    -------
    budget : int
        Not the Parameters section.
    """

    def __init__(self, eta, margin, tie, *args, budget=None, **fit_params):
        pass


def test_the_parameters_check_reads_the_section_only():
    """A parameter whose name appears in the docstring but not as an entry of its Parameters
    section is undocumented (the old check, a search of the docstring after the word
    "Parameters", counted any mention: it passed ``_MentionedElsewhere``)."""
    doc = inspect.getdoc(_MentionedElsewhere)
    assert all(p in doc.split("Parameters", 1)[1] for p in ("eta", "tie", "budget"))
    assert documented_parameters(doc) == {"eta"}
    assert undocumented_parameters(_MentionedElsewhere) == ["tie", "budget"]
    assert documented_parameters(inspect.getdoc(_Documented)) == \
        {"eta", "margin", "tie", "args", "fit_params"}
    assert undocumented_parameters(_Documented) == ["budget"]
    assert documented_parameters("No sections at all; eta : float") == set()


def test_the_parameters_check_agrees_with_numpydoc():
    """Where numpydoc (the docs build's reader, in the test extra from Python 3.10) is
    installed, it reads the same entries from every docstring checked here."""
    docscrape = pytest.importorskip("numpydoc.docscrape",
                                    reason="numpydoc (the test extra, Python >= 3.10) is not "
                                    "installed")
    names = _learners() + _with_parameters_section()
    for name in names + ["_MentionedElsewhere", "_Documented"]:
        cls = getattr(mbcore, name) if name in names else globals()[name]
        doc = inspect.getdoc(cls) or ""
        theirs = set()
        for entry in docscrape.NumpyDocString(doc)["Parameters"]:
            theirs.update(n.strip().lstrip("*") for n in entry.name.split(","))
        assert documented_parameters(doc) == theirs, name
