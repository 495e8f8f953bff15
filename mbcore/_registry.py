"""The learners of mbcore, as the classes declare themselves.

Every public learner class of mbcore enters this table when it is defined
(``OnlineLearner.__init_subclass__`` calls :func:`register`): a subclass of ``OnlineLearner``
defined in a module of mbcore, whose name is public.  A user's or a test's subclass never enters
it, so a name read from a file (``mbcore.persistence``) can only ever name mbcore's own classes.

What a learner is lives on its class, beside its rule, as one frozen object of tags
(``cls._TAGS``, an ``mbcore._tags.LearnerTags``: what a row of its X is, whether it takes three
classes or more, its peer, how its state mixes, its bound, whether it grows and takes sample
weights, ...), and the modules that serve every learner (the command line, persistence,
``mbcore.distributed``, ``certify``) look it up here instead of keeping lists.  A class's tags
are checked when it registers (``cls._TAGS.check``): a contradiction, or a method a tag asks
for that the class lacks, fails at import.

The tables made from the registry (the command line's lists, ``mbcore.river``'s classes) are
complete when every family module has been imported: :func:`learners` imports them first (the
modules named in :data:`FAMILIES`), so the answer never depends on what was imported before.

Value types that the safe file format stores besides arrays and learners (``ConceptClass``)
register a codec with :func:`register_codec`, beside the class they encode.

This module imports nothing of mbcore: every other module may import it.
"""

import importlib
import sys
from typing import Any, Callable, Dict, List, Tuple

__all__ = ["register", "learners", "learner", "register_codec", "codecs", "set_learner_base",
           "learner_base", "FAMILIES"]

# The modules that define learners, in the families' order: a new family module is added here
# (and to mbcore/__init__.py).  learners() imports every one first, so a table made from the
# registry holds every learner whatever was imported before it.
FAMILIES = ("mbcore.linear", "mbcore.kernel", "mbcore.budget", "mbcore.second_order", "mbcore.experts",
            "mbcore.specialists", "mbcore.multiplicative", "mbcore.boolean", "mbcore.version_space")

_LEARNERS: Dict[str, type] = {}     # name -> class, in the order the classes were defined
_BASE: List[type] = []              # the class every learner derives from (OnlineLearner)
_DONE: List[bool] = []              # [True] once every family module has been imported
# tag -> (class, encode, decode): see register_codec
_CODECS: Dict[str, Tuple[type, Callable[..., Any], Callable[..., Any]]] = {}


def _ours(cls):
    return cls.__module__.split(".")[0] == "mbcore" and not cls.__name__.startswith("_")


def register(cls):
    """Enter a learner class (``OnlineLearner.__init_subclass__``); a class that is not one of
    mbcore's public classes is left out.  A second class of the same name, a class outside
    the family modules (:data:`FAMILIES`) and tags that cannot hold
    (``mbcore._tags.LearnerTags.check``) are errors, raised at import."""
    if not _ours(cls):
        return
    name = cls.__name__
    if _LEARNERS.get(name, cls) is not cls:
        raise RuntimeError(f"two learner classes are named {name}: "
                           f"{_LEARNERS[name].__module__} and {cls.__module__}")
    if cls.__module__ not in FAMILIES:
        raise RuntimeError(f"the learner class {name} is defined in {cls.__module__}, which is "
                           "not one of the family modules of mbcore._registry.FAMILIES: add it "
                           "there (the tables made from the registry import those modules)")
    cls._TAGS.check(cls, learner_base())     # (mbcore._tags: a contradiction fails at import)
    _LEARNERS[name] = cls


def _rank(item):
    """The order of the learners: as the family modules list them (:data:`FAMILIES` in order,
    each module's ``__all__``), a class listed by a family module other than its own (a class
    moved to a module of its own and re-exported where it was) keeping that place."""
    name, cls = item
    for i, mod in enumerate(FAMILIES):
        names = list(getattr(sys.modules.get(mod), "__all__", ()))
        if name in names:
            return (i, names.index(name))
    return (FAMILIES.index(cls.__module__), 0)


def _complete():
    """Import every family module (once): then every learner of mbcore is registered."""
    if not _DONE:
        for mod in FAMILIES:
            if mod not in sys.modules:
                importlib.import_module(mod)
        _DONE.append(True)


def learners():
    """``[(name, class), ...]`` of every registered learner, by family and as each family
    module lists them (every family module imported first)."""
    _complete()
    return sorted(_LEARNERS.items(), key=_rank)


def learner(name):
    """The registered class called ``name`` (exact), or None (every family module imported
    first)."""
    _complete()
    return _LEARNERS.get(name)


def set_learner_base(cls):
    """The base class of every learner (set once by ``mbcore.base``)."""
    _BASE[:] = [cls]


def learner_base():
    """The base class of every learner, or None before ``mbcore.base`` is loaded."""
    return _BASE[0] if _BASE else None


def register_codec(tag, cls, encode, decode):
    """A value type the file format may store.  ``encode(value, enc, problem)`` gives a dict of
    fields, each field's value passed through ``enc(x, field)`` (arrays, strings, ...), and
    raises ``problem(text)`` for a value it cannot store; ``decode(fields, dec, bad)`` gives
    the value back, each field read through ``dec(raw)``, and raises ``bad(text)`` for a
    malformed one."""
    if _CODECS.get(tag, (cls,))[0] is not cls:
        raise RuntimeError(f"two codecs are tagged {tag}")
    _CODECS[tag] = (cls, encode, decode)


def codecs():
    """``{tag: (class, encode, decode)}``."""
    return dict(_CODECS)
