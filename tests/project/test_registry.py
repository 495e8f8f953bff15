"""The learners declare themselves: mbcore.all_learners() and the facts the command line and
persistence look up (mbcore._registry) instead of keeping lists."""

import inspect

import numpy as np
import pytest

import mbcore
import mbcore._cli_common
import mbcore._registry as registry
import mbcore.cli
import mbcore.persistence
from mbcore.base import OnlineLearner

from _cases import EXISTING, tag

FAMILIES = ("mbcore.linear", "mbcore.multiplicative", "mbcore.experts", "mbcore.specialists",
            "mbcore.boolean", "mbcore.version_space")


def exported_learners():
    """Every OnlineLearner subclass a module of mbcore exports, found without the registry."""
    import importlib
    out = {}
    for modname in FAMILIES + ("mbcore", "mbcore.queries"):
        mod = importlib.import_module(modname)
        for n in mod.__all__:
            obj = getattr(mod, n)
            if inspect.isclass(obj) and issubclass(obj, OnlineLearner) and obj is not OnlineLearner:
                out[n] = obj
    return out


def test_all_learners_is_every_exported_learner():
    got = mbcore.all_learners()
    assert dict(got) == exported_learners()
    assert len({n for n, _ in got}) == len(got)
    assert all(cls.__name__ == n for n, cls in got)
    # the learners that existed stay registered, in their order (a new one adds itself)
    names = [n for n, _ in got]
    assert [n for n in names if n in EXISTING] == list(EXISTING)


def test_the_families_order():
    names = [n for n, _ in mbcore.all_learners()]
    assert names[:5] == ["Perceptron", "MarginPerceptron", "AveragedPerceptron",
                         "KernelPerceptron", "OnlineHingeSVM"]
    assert names.index("Winnow") < names.index("Conjunction") < names.index("Halving")


def test_a_subclass_outside_mbcore_is_not_registered():
    class Mine(mbcore.Perceptron):
        pass
    assert "Mine" not in dict(mbcore.all_learners())
    assert dict(mbcore.all_learners())["Perceptron"] is mbcore.Perceptron
    with pytest.raises(TypeError, match="only mbcore's own learner classes"):
        import io
        Mine().partial_fit(np.eye(2), [1, -1]).save(io.BytesIO())


def test_a_second_class_of_the_same_name_is_refused():
    class Fake:
        pass
    Fake.__module__ = "mbcore.fake"
    Fake.__name__ = "Perceptron"
    with pytest.raises(RuntimeError, match="two learner classes are named Perceptron"):
        registry.register(Fake)
    assert registry.learner("Perceptron") is mbcore.Perceptron


def test_every_learner_declares_what_its_rows_are():
    kinds = {"features", "advice", "awake advice", "categorical", "points"}
    for name, cls in mbcore.all_learners():
        assert tag(cls, "takes") in kinds, name
        assert isinstance(tag(cls, "k_classes"), bool), name
        peer = tag(cls, "peer")
        assert peer is None or (isinstance(peer[0], str) and callable(peer[1]))


def test_the_command_line_lists_come_from_the_classes():
    got = mbcore.all_learners()
    takes = tuple(n for n, c in got if tag(c, "takes") == "features")
    assert set(mbcore.cli.LEARNERS) == set(takes)
    assert mbcore.cli.LEARNERS == takes                 # in the registry's order
    assert set(mbcore._cli_common.K_CLASS_LEARNERS) == {
        n for n, c in got if tag(c, "takes") == "features" and tag(c, "k_classes")}
    assert set(mbcore.cli._PEERS) == {n for n, c in got if tag(c, "peer") is not None}
    # what the learners that existed declare (fixed facts; a new learner adds nothing here)
    old = [n for n in mbcore.cli.LEARNERS if n in EXISTING]
    assert old == ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
                   "OnlineHingeSVM", "PassiveAggressive", "Winnow", "EliminationWinnow",
                   "WinnowStar", "BalancedWinnow", "Conjunction", "Disjunction", "DecisionList"]
    assert {n for n in mbcore._cli_common.K_CLASS_LEARNERS if n in EXISTING} == {
        "Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
        "OnlineHingeSVM", "PassiveAggressive", "Winnow", "EliminationWinnow", "WinnowStar",
        "BalancedWinnow"}
    assert {n for n in mbcore.cli._PEERS if n in EXISTING} == {
        "Perceptron", "OnlineHingeSVM", "PassiveAggressive"}


def test_persistence_loads_exactly_the_registered_classes():
    assert mbcore.persistence._classes() == dict(mbcore.all_learners())
    # (the dict: the linear learners' class_weight parameter)
    assert set(registry.codecs()) == {"ConceptClass", "dict"}
    assert registry.codecs()["ConceptClass"][0] is mbcore.ConceptClass
    assert registry.codecs()["dict"][0] is dict


def test_no_module_serving_every_learner_imports_a_family():
    """persistence and the command line (cli and its modules) find the learners in the
    registry."""
    import ast
    import os
    root = os.path.dirname(mbcore.__file__)
    for mod in ("persistence.py", "cli.py", "_cli_common.py", "_cli_workflow.py",
                "_cli_teaching.py", "_cli_data.py"):
        with open(os.path.join(root, mod), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
                for t in targets:
                    assert t.split(".")[0] not in {f.split(".")[1] for f in FAMILIES}, (mod, t)


def test_every_learner_declares_how_its_state_mixes():
    """mbcore.distributed mixes what the classes declare mixable, and refuses the others with
    their own reason."""
    import mbcore.distributed as dist
    mix = {n: tag(c, "mix") for n, c in mbcore.all_learners()}
    # the list distributed names: every learner that declares a mixing, in the registry's order
    assert dist._supported() == ", ".join(n for n, m in mix.items() if m is not None)
    # what the learners that existed declare (fixed facts; a new learner adds nothing here)
    old = {n: m for n, m in mix.items() if n in EXISTING}
    assert {n for n, m in old.items() if m == "additive"} == {
        "Perceptron", "MarginPerceptron", "OnlineHingeSVM", "PassiveAggressive"}
    assert {n for n, m in old.items() if m == "multiplicative"} == {
        "Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow"}
    assert ", ".join(n for n, m in old.items() if m is not None) == (
        "Perceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive, Winnow, "
        "EliminationWinnow, WinnowStar, BalancedWinnow")
    for name, why in (("AveragedPerceptron", "average over the whole sequence"),
                      ("KernelPerceptron", "support vectors"),
                      ("Halving", "not a weight vector")):
        with pytest.raises(TypeError, match=why):
            dist._family("ipm_fit", dict(mbcore.all_learners())[name].__new__(
                dict(mbcore.all_learners())[name]))


def test_every_learner_names_a_bound_certify_knows():
    """certify finds the bound by the name a class declares; a K-class run only ever by its
    multi_bound tag (never a binary bound for K classes)."""
    import mbcore.certificates as certs
    for name, cls in mbcore.all_learners():
        for key in (tag(cls, "bound"), tag(cls, "multi_bound")):
            assert key is None or key in certs._RULES, (name, key)
        assert tag(cls, "bound_counts") in ("mistakes", "updates")
        if tag(cls, "k_classes") and tag(cls, "bound") is not None:
            assert tag(cls, "multi_bound") is not None, name     # or certify says "no bound"
    # (the learners that existed without a bound: fixed facts)
    assert {n for n, c in mbcore.all_learners() if n in EXISTING and tag(c, "bound") is None} \
        == {"OnlineHingeSVM", "BalancedWinnow", "PairSpecialists"}


@pytest.mark.parametrize("multi", [False, True])
def test_an_unknown_rule_code_is_refused_by_the_kernel(multi):
    """The linear kernels name every rule code they run: a code none of their branches knows
    is refused when the state is bound, so it can never run another rule's arithmetic."""
    from mbcore._kernels import linear as k, multiclass as kmc
    counts = np.zeros(3, dtype=np.int64)
    for code, ok in [(0, True), (2, True), (-1, False), (99, False)]:
        if multi:
            make = lambda: kmc.MultiState(np.zeros(9), np.zeros(0),
                                          np.array([1.0, 0, 0, 0, 0]), counts, 3, 3, code,
                                          False, False, False, False, False, 1.0, 0.0, 0.01,
                                          False)
        else:
            make = lambda: k.LinearState(np.zeros(3), np.zeros(0), np.array([1.0, 0.0]), counts,
                                         3, code, False, False, False, False, False, 1.0, 0.0,
                                         0.01)
        if ok:
            make()
        else:
            with pytest.raises(ValueError, match="unknown rule code"):
                make()
