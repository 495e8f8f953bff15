"""The class declares what it is, once: one frozen LearnerTags per learner class (mbcore._tags),
checked when the class is written and when it registers, and the prose that lists learners
made from the tags (mbcore.distributed's docstring, the command line's help)."""

import dataclasses
import re

import pytest

import mbcore
import mbcore._registry as registry
import mbcore.cli
import mbcore.distributed as dist
from mbcore import _tags
from mbcore._cli_common import K_CLASS_LEARNERS, LEARNERS
from mbcore._tags import LearnerTags, tags
from mbcore.base import OnlineLearner

ALL = mbcore.all_learners()


def _words(text):
    """The text with its lines joined (a help or docstring wraps names across lines)."""
    return " ".join(text.split())


# -- the tags object ------------------------------------------------------------------------------

def test_every_learner_has_one_frozen_tags_object():
    for name, cls in ALL:
        t = cls._TAGS
        assert type(t) is LearnerTags, name
        with pytest.raises(dataclasses.FrozenInstanceError):
            t.bound = "soa"
        with pytest.raises(TypeError):
            t.bound_params["alpha"] = 3.0      # (read-only)
        t.check(cls, OnlineLearner)              # (what registration checked)
        assert t == _tags.merged(cls), name


def test_the_tags_merge_along_the_bases():
    """A subclass declares only what differs; the rest comes from its bases (as _PARAMETERS)."""
    P, A = mbcore.Perceptron._TAGS, mbcore.AveragedPerceptron._TAGS
    assert A.mix is None and "average over the whole sequence" in A.no_mix and A.peer is None
    assert dataclasses.replace(A, mix=P.mix, no_mix=P.no_mix, peer=P.peer) == P
    assert mbcore.Perceptron._TAGS.k_classes         # from ManyClasses
    assert not mbcore.Conjunction._TAGS.k_classes


def test_the_old_flat_attributes_are_gone():
    """_TAKES, _BOUND, ... (mbcore._tags.FLAT) were replaced by _TAGS: no class has them, and
    a class may not declare one."""
    for name, cls in ALL:
        for old in _tags.FLAT:
            assert not hasattr(cls, old), (name, old)
    with pytest.raises(TypeError, match="declare bound in _TAGS"):
        type("Mine", (mbcore.Perceptron,), {"_BOUND": "perceptron"})


@pytest.mark.parametrize("changes, error, match", [
    (dict(bund="perceptron"), TypeError, "unknown tag 'bund'"),
    (dict(bound="perceptorn"), ValueError, "bound must be None or one of the rules"),
    (dict(multi_bound="multi"), ValueError, "multi_bound must be None or one of the rules"),
    (dict(mix="averaged"), ValueError, "mix must be None or one of"),
    (dict(takes="feature"), ValueError, "takes must be one of"),
    (dict(bound_counts="errors"), ValueError, "bound_counts must be one of"),
    (dict(dict_features="grows"), ValueError, "dict_features must be one of"),
    (dict(grows="yes"), ValueError, "grows must be True or False"),
    (dict(no_mix=""), ValueError, "no_mix must be None or the reason"),
    (dict(peer="sklearn.linear_model.Perceptron"), ValueError, "peer must be None or"),
])
def test_a_misspelt_tag_fails_where_it_is_written(changes, error, match):
    with pytest.raises(error, match=match):
        tags(**changes)
    if "bund" not in changes:
        with pytest.raises(error, match=match):
            LearnerTags(**changes)


def _define(name, bases, tag_changes, module="mbcore.linear", **body):
    """Define a learner class as if in a family module (so it registers)."""
    return type(name, bases, {"__module__": module, "_TAGS": tags(**tag_changes), **body})


@pytest.mark.parametrize("base, changes, match", [
    ("Perceptron", dict(mix=None), "exactly one of mix and no_mix"),
    ("Perceptron", dict(no_weights="no"), "exactly one of weighted and no_weights"),
    ("Conjunction", dict(grows=True, needs_width=None), "grows=True needs the class to define "
                                                        "_grow_state"),
    ("Conjunction", dict(mix="additive", no_mix=None), "needs the class to define _mix_state"),
    ("Conjunction", dict(dict_features="grow"), "needs the class to define _grow_features"),
    ("Winnow", dict(bound_params=dict(alpah=2.0)), r"bound_params names \['alpah'\]"),
    ("Specialists", dict(multi_bound=None), "needs multi_bound"),
])
def test_tags_that_cannot_hold_fail_when_the_class_registers(base, changes, match):
    before = registry.learners()
    with pytest.raises(TypeError, match=match):
        _define("Broken", (getattr(mbcore, base),), changes)
    assert registry.learners() == before


def test_a_learner_outside_the_family_modules_fails_at_import():
    with pytest.raises(RuntimeError, match="not one of the family modules"):
        _define("Elsewhere", (mbcore.Perceptron,), {}, module="mbcore.elsewhere")
    assert registry.learner("Elsewhere") is None


def test_the_family_modules_are_those_of_the_learners():
    """learners() imports every module of FAMILIES first (no table made from the registry
    depends on what was imported before it) and lists the learners as those modules do."""
    assert {cls.__module__ for _, cls in ALL} == set(registry.FAMILIES)
    import importlib
    listed = [n for mod in registry.FAMILIES for n in importlib.import_module(mod).__all__
              if registry.learner(n) is not None]
    assert [n for n, _ in ALL] == list(dict.fromkeys(listed))


# -- the modules that give a value its meaning cover its set ------------------------------------

def test_distributed_mixes_every_kind_the_tags_allow():
    assert set(dist._MIXED) == set(_tags.MIXES)


def test_certify_has_a_rule_for_every_bound_the_tags_allow():
    import mbcore.certificates as certs
    assert set(certs._RULES) == set(_tags.BOUNDS)


# -- the prose made from the tags -----------------------------------------------------------------

def test_the_distributed_docstring_lists_each_learner_by_its_tags():
    doc = _words(dist.__doc__)
    additive = re.search(r'\(``mix="additive"``: ([^)]*)\)', doc).group(1)
    multiplicative = re.search(r'\(``mix="multiplicative"``: ([^)]*)\)', doc).group(1)
    refused = doc[doc.index("**Not supported**"):doc.index("Examples")]
    for name, cls in ALL:
        if cls._TAGS.mix is None:
            assert f"({cls._TAGS.no_mix})" in refused, name
    names = refused
    for reason in {c._TAGS.no_mix for _, c in ALL}:
        names = names.replace(f"({reason})", "")        # (a reason may name a learner)
    for name, cls in ALL:
        listed = {"additive": additive, "multiplicative": multiplicative, None: names}
        for mix, text in listed.items():
            assert (re.search(rf"\b{name}\b", text) is not None) == (cls._TAGS.mix == mix), \
                (name, mix)
    assert "{" + "additive}" not in dist.__doc__ and "{" + "refused}" not in dist.__doc__
    assert dist._supported() == ", ".join(n for n, c in ALL if c._TAGS.mix is not None)


def test_the_command_line_help_lists_each_learner_by_its_tags(capsys):
    def help_of(command):
        assert mbcore.cli.main([command, "--help"]) == 0
        return _words(capsys.readouterr().out)

    bench = help_of("bench")
    for name, cls in ALL:
        peer = cls._TAGS.peer
        if peer is not None:
            assert re.search(rf"{re.escape(peer[0])} for [^;)]*\b{name}\b", bench), name
    run = help_of("run")
    k_list = run[run.index("learners that take K classes"):]
    for name in LEARNERS:
        assert name in run, name
        assert (re.search(rf"\b{name}\b", k_list.split(")")[0]) is not None) == \
            (name in K_CLASS_LEARNERS), name
    assert set(K_CLASS_LEARNERS) == {n for n, c in ALL
                                     if c._TAGS.takes == "features" and c._TAGS.k_classes}
    train = help_of("train")
    width = train[train.index("need the width up front"):train.index("find it by a first pass")]
    for name, cls in ALL:
        fixed = cls._TAGS.takes == "features" and not cls._TAGS.grows
        assert (re.search(rf"\b{name}\b", width) is not None) == fixed, name
