"""Typing: the .pyi stubs of the compiled kernels match the compiled modules, mypy is clean on
the package and on a typed client of the public API, and annotated return types hold at run
time.

The stub tests need only the build.  The mypy tests need mypy (the test extra); they are skipped
without it.  mypy runs from the repository root (so it checks the source tree, stubs included),
with the ``[tool.mypy]`` section of pyproject.toml when there is one, else with the same
settings given here (``MYPY_CONFIG``), and with its cache in a temporary directory.
"""

import ast
import importlib
import importlib.machinery
import inspect
import re
import textwrap
import typing
from pathlib import Path

import numpy as np
import pytest

import mbcore
from mbcore import bounds

try:
    from mypy import api as mypy_api
except ImportError:  # pragma: no cover - mypy is in the test extra
    mypy_api = None

KERNEL_DIR = Path(importlib.import_module("mbcore._kernels").__file__).parent
ROOT = Path(__file__).resolve().parents[2]
# the kernel modules, as their stubs name them (test_every_kernel_module_has_a_stub checks them
# against the compiled modules and setup.py's KERNELS: a new kernel needs no edit here)
KERNELS = sorted(p.stem for p in KERNEL_DIR.glob("*.pyi"))

# The settings for pyproject.toml's [tool.mypy] (used when pyproject.toml has none).
MYPY_CONFIG = """\
[tool.mypy]
packages = ["mbcore"]
warn_unused_ignores = true
no_implicit_optional = true
warn_redundant_casts = true
strict_equality = true
extra_checks = true

[[tool.mypy.overrides]]
module = ["mbref", "mbref.*", "sklearn", "sklearn.*", "scipy", "scipy.*", "pandas", "pandas.*"]
ignore_missing_imports = true
"""

needs_mypy = pytest.mark.skipif(
    mypy_api is None, reason="mypy is not installed (pip install mypy, or the test extra)")


# -- the stubs of the compiled kernels ------------------------------------------------------------

def _stub(name):
    path = KERNEL_DIR / f"{name}.pyi"
    assert path.is_file(), f"mbcore/_kernels/{name}.pyi is missing"
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _stub_defs(tree):
    """The public top-level functions and classes of a stub (imports and _aliases left out)."""
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
            and not node.name.startswith("_")}


def _compiled_public(module):
    return {n for n in dir(module)
            if not n.startswith("_") and not inspect.ismodule(getattr(module, n))}


def _stub_params(fn):
    """[(name, has_default)] of a stub function, self left out."""
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [False] * (len(pos) - len(a.defaults)) + [True] * len(a.defaults)
    out = list(zip([p.arg for p in pos], defaults))
    out += [(p.arg, d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    return [p for p in out if p[0] != "self"]


def _compiled_params(obj):
    return [(p.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(obj).parameters.values()]


def _embedded_init_params(cls):
    """A cdef class's __init__ parameters, from the signature Cython embeds in its docstring
    (embedsignature=True in setup.py): ``Name(double[::1] w, ..., int k=0)``."""
    first = (cls.__doc__ or "").strip().split("\n")[0]
    m = re.match(rf"{cls.__name__}\((.*)\)", first)
    assert m, f"{cls.__name__}: no embedded signature in its docstring"
    out = []
    for part in filter(None, (s.strip() for s in m.group(1).split(","))):
        head, eq, _ = part.partition("=")
        out.append((head.split()[-1], bool(eq)))
    return [p for p in out if p[0] != "self"]


def test_every_kernel_module_has_a_stub():
    compiled = {p.name.split(".")[0] for p in KERNEL_DIR.iterdir()
                if any(p.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)}
    stubs = {p.stem for p in KERNEL_DIR.glob("*.pyi")}
    assert stubs == compiled, "a kernel module without its stub, or a stub without its module"
    setup = ROOT / "setup.py"
    if setup.is_file():             # (a source tree: setup.py builds exactly these)
        tree = ast.parse(setup.read_text(encoding="utf-8"))
        listed = next(ast.literal_eval(node.value) for node in ast.walk(tree)
                      if isinstance(node, ast.Assign) and
                      any(getattr(t, "id", None) == "KERNELS" for t in node.targets))
        assert set(listed) == compiled, "setup.py's KERNELS and the compiled modules differ"
    assert (KERNEL_DIR.parent / "py.typed").is_file()


@pytest.mark.parametrize("name", KERNELS)
def test_stub_names_match_compiled_module(name):
    module = importlib.import_module(f"mbcore._kernels.{name}")
    defs = _stub_defs(_stub(name))
    compiled = _compiled_public(module)
    assert sorted(set(defs) - compiled) == [], "in the stub, not in the compiled module"
    assert sorted(compiled - set(defs)) == [], "in the compiled module, not in the stub"


@pytest.mark.parametrize("name", KERNELS)
def test_stub_signatures_match_compiled_module(name):
    """Parameter names, order and which have defaults (types are not visible at run time)."""
    module = importlib.import_module(f"mbcore._kernels.{name}")
    for fname, node in _stub_defs(_stub(name)).items():
        obj = getattr(module, fname)
        if isinstance(node, ast.FunctionDef):
            assert _stub_params(node) == _compiled_params(obj), f"{name}.{fname}"
            continue
        methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        public = {a for a in dir(obj) if not a.startswith("_")}
        assert {m for m in methods if not m.startswith("_")} == public, f"{name}.{fname}"
        if "__init__" in methods:
            assert _stub_params(methods["__init__"]) == _embedded_init_params(obj), \
                f"{name}.{fname}.__init__"
        for m in public:
            if any(isinstance(dec, ast.Name) and dec.id == "property"
                   for dec in methods[m].decorator_list):
                assert not callable(getattr(obj, m)), f"{name}.{fname}.{m} is not a property"
                continue
            # (a cdef class's method: its signature names self)
            assert _stub_params(methods[m]) == [p for p in _compiled_params(getattr(obj, m))
                                                if p[0] != "self"], f"{name}.{fname}.{m}"


# -- annotated return types hold at run time ------------------------------------------------------

def _check_return(fn, value):
    want = typing.get_type_hints(fn)["return"]
    if typing.get_origin(want) is typing.Union:     # e.g. int, or a tuple with a witness
        want = tuple(typing.get_origin(a) or a for a in typing.get_args(want))
    assert isinstance(value, want) and not isinstance(value, bool), (fn.__name__, value)


def _documented_calls(name):
    """The values the examples of ``bounds.<name>``'s docstring get from it: its examples run
    (doctest's parser) in the module's namespace, with the function wrapped to record what
    each call returns."""
    import doctest
    fn = getattr(bounds, name)
    got = []

    def recording(*args, **kwargs):
        value = fn(*args, **kwargs)
        got.append(value)
        return value

    ns = dict(vars(bounds), np=np, mbcore=mbcore)
    ns[name] = recording
    for example in doctest.DocTestParser().get_examples(fn.__doc__ or ""):
        exec(compile(example.source, f"<{name} example>", "exec"), ns)
    return got


def test_bounds_return_types():
    X = np.array([[2.0, 1.0], [-1.0, -3.0], [1.0, 2.0]])
    y, u = np.array([1, -1, 1]), np.array([1.0, 1.0])
    calls = {"radius": (X,), "margin": (X, y, u), "total_distance": (X, y, u, 0.5),
             "best_margin": (X, y), "attribute_errors": (X > 0, y > 0, [0]),
             "perceptron_bound": (2, 1), "margin_perceptron_bound": (0.5,),
             "td_bound": (0.5, 1.0), "kernel_perceptron_bound": (2, 0.5),
             "winnow_bound": (2, 16), "elimination_winnow_bound": (2, 16),
             "winnow_star_bound": (16, 3), "weighted_majority_bound": (3, 8),
             "randomized_wm_bound": (3, 8), "specialists_bound": (3, 8),
             "halving_bound": (16,), "soa_bound": (3,), "conjunction_bound": (3,),
             "disjunction_bound": (5, 2), "decision_list_bound": (2, 1),
             "equivalence_query_bound": (4.5,), "online_to_pac_run_length": (5.5, 0.1, 0.05),
             "online_to_pac_sample_size": (5, 0.1, 0.05), "eq_test_sample_size": (1, 0.1, 0.05),
             "multiclass_margin": (X, [0, 1, 2], np.eye(3, 2)),
             "multiclass_perceptron_bound": (2, 1), "multiclass_margin_perceptron_bound": (0.5,),
             "ovr_bound": ([1.0, 2.0],),
             "multiclass_winnow_margin": (X > 0, [0, 1, 2], np.eye(3, 2)),
             "multiclass_winnow_bound": (16, 3, 0.5),
             "passive_aggressive_bound": (2.0, 3.0, "PA-II", 0.5),
             "weighted_perceptron_bound": (2.0, 0.5, 1.0, 2.0),
             "edge_detecting_bound": (100, 10), "group_testing_bound": (100, 3),
             "lstar_equivalence_bound": (4,), "lstar_membership_bound": (4, 2, 3)}
    # every bound: the calls above (the bounds that existed), and every call of a bound's own
    # docstring examples (a bound added since needs an example, nothing here)
    documented = {n: _documented_calls(n) for n in bounds.__all__ if n != "BestMargin"}
    assert not [n for n, got in documented.items() if n not in calls and not got], \
        "a bound with neither a call here nor an example in its docstring"
    assert set(calls) <= set(documented)
    for name, args in calls.items():
        fn = getattr(bounds, name)
        _check_return(fn, fn(*args))
    for name, got in documented.items():
        for value in got:
            _check_return(getattr(bounds, name), value)
    _check_return(bounds.soa_bound, bounds.soa_bound(mbcore.ConceptClass.half_intervals(3)))


def test_version_space_and_queries_return_types():
    C = mbcore.ConceptClass
    for make, args in [(C.half_intervals, (3,)), (C.monotone_disjunctions, (3,)),
                       (C.from_matrix, ([[0, 1], [1, 1]],)), (C.dictators, (3,))]:
        _check_return(make, make(*args))
    H = C.half_intervals(3)
    _check_return(mbcore.littlestone_dimension, mbcore.littlestone_dimension(H))
    _check_return(mbcore.vc_dimension, mbcore.vc_dimension(H))
    _check_return(mbcore.littlestone_dimension, mbcore.littlestone_dimension(H, witness=True))
    _check_return(mbcore.vc_dimension, mbcore.vc_dimension(H, witness=True))
    assert all(type(v) is int for v in H.labels(2))
    target = mbcore.MonotoneDNF([[0, 1], [2]], n=3)
    X, y = mbcore.ExampleOracle(target, n=3, seed=0).draw(4)
    assert isinstance(X, np.ndarray) and isinstance(y, np.ndarray)
    eq = mbcore.EquivalenceOracle(target, n=3)
    ce = eq(lambda A: A[:, 0])
    assert ce is not None and isinstance(ce[0], np.ndarray)
    assert eq(target) is None


# -- mypy -----------------------------------------------------------------------------------------

CLIENT = '''
"""A typed client of mbcore's public API."""
from typing import List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

import mbcore
from mbcore import (SOA, AveragedPerceptron, BalancedWinnow, Certificate, ConceptClass,
                    Conjunction, Conservative, DecisionList, Disjunction, EliminationWinnow,
                    EquivalenceOracle, ExampleOracle, Halving, KernelPerceptron,
                    MarginPerceptron, MembershipOracle, MonotoneDNF, OnlineHingeSVM, OnlineRun,
                    Perceptron, RandomizedWeightedMajority, Specialists, WeightedMajority,
                    Winnow, WinnowStar, certify, learn_monotone_dnf, online_to_pac, run_online,
                    to_equivalence_learner)
from mbcore import bounds


def linear_family(X: NDArray[np.float64], y: NDArray[np.int64]) -> List[float]:
    scores: List[float] = []
    for learner in (Perceptron(), MarginPerceptron(), AveragedPerceptron(),
                    KernelPerceptron(), OnlineHingeSVM()):
        learner.partial_fit(X, y, classes=[0, 1])
        pred: np.ndarray = learner.predict(X)
        assert pred.shape == y.shape
        scores.append(float(learner.score(X, y)))
    return scores


def online(Xb: NDArray[np.uint8], y: NDArray[np.int64]) -> int:
    total = 0
    for learner in (Winnow(), EliminationWinnow(), WinnowStar(), BalancedWinnow(),
                    Conjunction(), Disjunction(), DecisionList()):
        run: OnlineRun = run_online(learner, Xb, y, classes=[0, 1])
        curve: np.ndarray = run.mistake_curve
        assert curve.shape[0] == run.n
        total += run.mistakes
    return total


def experts(P: NDArray[np.int64], y: NDArray[np.int64]) -> Tuple[int, int]:
    wm = WeightedMajority(beta=0.5).partial_fit(P, y, classes=[0, 1])
    rwm = RandomizedWeightedMajority(beta=0.5)
    rwm.partial_fit(P, y, classes=[0, 1])
    Specialists().partial_fit(P, y, classes=[0, 1])
    return int(wm.mistakes_), int(rwm.n_seen_)


def certificates(Xb: NDArray[np.uint8], y: NDArray[np.int64]) -> bool:
    cert: Certificate = certify(Winnow(), Xb, y)
    holds: Optional[bool] = cert.holds
    text: str = cert.summary()
    return bool(holds) and cert.verified and bool(text)


def bound_functions() -> float:
    b: float = bounds.perceptron_bound(2.0, 0.5) + bounds.winnow_bound(2, 16)
    b += bounds.weighted_majority_bound(3, 8) + bounds.margin(
        np.eye(2), np.array([1, -1]), np.array([1.0, -1.0]))
    n: int = bounds.halving_bound(16) + bounds.online_to_pac_run_length(5, 0.1, 0.05)
    return b + n + bounds.best_margin(np.eye(2), np.array([1, 1])).gamma


def version_spaces() -> int:
    C: ConceptClass = ConceptClass.half_intervals(3)
    D = ConceptClass.monotone_disjunctions(3)
    assert C.points is not None and D.points is not None
    h = Halving(C)
    h.partial_fit(np.array(C.points), C.labels(3), classes=[0, 1])
    s = SOA(D).partial_fit(np.array(D.points), D.labels(0), classes=[0, 1])
    ld: int = mbcore.littlestone_dimension(C)
    vc: int = mbcore.vc_dimension(D)
    d, tree = mbcore.littlestone_dimension(C, witness=True)
    depth: int = mbcore.check_mistake_tree(tree) if tree is not None else -1
    v, shattered = mbcore.vc_dimension(D, witness=True)
    first: Tuple[int, ...] = shattered
    return ld + vc + len(D) + int(h.alive_count_) + int(s.n_seen_) + d + depth + v + len(first)


def queries() -> int:
    target = MonotoneDNF([[0, 1], [2]], n=3)
    ex = ExampleOracle(target, n=3, seed=0)
    X, y = ex.draw(10)
    mq = MembershipOracle(target)
    labels: np.ndarray = mq.query(X)
    ce = EquivalenceOracle(target, n=3)(lambda A: A[:, 0])
    if ce is not None:
        x, label = ce
        assert x.shape == (3,)
    res = to_equivalence_learner(Winnow(), EquivalenceOracle(target, n=3))
    pac = online_to_pac(Conservative(Conjunction()), ExampleOracle(target, n=3, seed=1),
                        B=5, epsilon=0.2, delta=0.1)
    dnf = learn_monotone_dnf(MembershipOracle(target), EquivalenceOracle(target, n=3), 3)
    return (int(res.queries) + int(pac.samples) + int(dnf.membership_queries)
            + int(labels.sum()) + int(mq(np.array([0, 1, 1]))) + mq.calls + ex.calls)


def kernels() -> int:
    from mbcore._kernels import bitset, checks
    words = np.array([3, 0, 1], dtype=np.uint64)
    out = np.zeros(3, dtype=np.int32)
    status: Tuple[int, int] = checks.csr_check(np.array([0, 1], dtype=np.int32),
                                               np.array([0, 2], dtype=np.int32), 2)
    return bitset.popcount_words(words) + bitset.nonzero_words(words, out) + status[0]


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    Xb = rng.integers(0, 2, size=(40, 6)).astype(np.uint8)
    y = Xb[:, 0].astype(np.int64)
    print(linear_family(Xb.astype(np.float64), y), online(Xb, y), experts(Xb.astype(np.int64), y),
          certificates(Xb, y), bound_functions(), version_spaces(), queries(), kernels())
'''

# Misuses mypy must report: each line holds one (the stubs and annotations are in effect).
BAD_CLIENT = '''
import numpy as np
from mbcore import EquivalenceOracle, MonotoneDNF, Perceptron, certify, run_online
from mbcore import bounds
from mbcore._kernels import bitset, multiplicative

run: str = run_online(Perceptron(), np.eye(2), [0, 1])  # BAD
bitset.popcount_words("words")  # BAD
multiplicative.exact_sum_ge(np.array([1, 2], dtype=np.int64))  # BAD
n: str = bounds.halving_bound(8)  # BAD
holds: bool = certify(Perceptron(), np.eye(2), [0, 1]).holds  # BAD
x, label = EquivalenceOracle(MonotoneDNF([[0]], n=2), n=2)(lambda A: A[:, 0])  # BAD
'''


def _mypy(targets, tmp_dir):
    pyproject = ROOT / "pyproject.toml"
    if "[tool.mypy]" in pyproject.read_text(encoding="utf-8"):
        config = pyproject
    else:
        config = tmp_dir / "mypy.toml"
        config.write_text(MYPY_CONFIG, encoding="utf-8")
    stdout, stderr, status = mypy_api.run(
        ["--config-file", str(config), "--cache-dir", str(tmp_dir / "cache"),
         "--no-error-summary", "--hide-error-context", *targets])
    return stdout, stderr, status


@pytest.fixture(scope="module")
def mypy_dir(tmp_path_factory):
    """One cache for the module's mypy runs (the first run, numpy's stubs, is the slow one)."""
    if not (ROOT / "mbcore" / "__init__.py").is_file() or not (ROOT / "pyproject.toml").is_file():
        pytest.skip("the mypy tests run from a source checkout")
    return tmp_path_factory.mktemp("mypy")


@pytest.mark.longrun          # (about 18 s of one core: pytest -m longrun, which CI runs)
@needs_mypy
def test_mypy_package(mypy_dir, monkeypatch):
    monkeypatch.chdir(ROOT)
    stdout, stderr, status = _mypy(["-p", "mbcore"], mypy_dir)
    assert status == 0 and stdout.strip() == "", stdout + stderr


@needs_mypy
def test_mypy_typed_client(mypy_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    client = tmp_path / "client.py"
    client.write_text(textwrap.dedent(CLIENT), encoding="utf-8")
    stdout, stderr, status = _mypy([str(client)], mypy_dir)
    mine = [line for line in stdout.splitlines() if line.startswith(str(client))]
    assert mine == [], stdout + stderr


@needs_mypy
def test_mypy_reports_misuse(mypy_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    client = tmp_path / "bad_client.py"
    client.write_text(BAD_CLIENT, encoding="utf-8")
    stdout, stderr, _ = _mypy([str(client)], mypy_dir)
    flagged = {int(line[len(str(client)) + 1:].split(":")[0]) for line in stdout.splitlines()
               if line.startswith(str(client)) and ": error:" in line}
    expected = {i for i, line in enumerate(BAD_CLIENT.splitlines(), 1) if "# BAD" in line}
    assert flagged == expected, stdout + stderr


def test_typed_client_runs():
    """The client the mypy test checks is itself correct code."""
    ns = {"__name__": "client"}
    exec(compile(textwrap.dedent(CLIENT), "client.py", "exec"), ns)
    rng = np.random.default_rng(0)
    Xb = rng.integers(0, 2, size=(40, 6)).astype(np.uint8)
    y = Xb[:, 0].astype(np.int64)
    ns["linear_family"](Xb.astype(np.float64), y)
    ns["online"](Xb, y)
    ns["experts"](Xb.astype(np.int64), y)
    assert ns["certificates"](Xb, y)
    ns["bound_functions"]()
    ns["version_spaces"]()
    ns["queries"]()
    assert ns["kernels"]() == 3 + 2 + 0
