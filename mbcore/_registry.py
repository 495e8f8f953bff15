"""The learners of mbcore, as the classes declare themselves.

Every public learner class of mbcore enters this table when it is defined
(``OnlineLearner.__init_subclass__`` calls :func:`register`): a subclass of ``OnlineLearner``
defined in a module of mbcore, whose name is public.  A user's or a test's subclass never enters
it, so a name read from a file (``mbcore.persistence``) can only ever name mbcore's own classes.

What a learner is lives on its class, beside its rule, and the modules that serve every learner
(the command line, persistence) look it up here instead of keeping lists:

* ``_TAKES``: what a row of its X is: ``"features"`` (a feature vector, real or 0/1, dense or
  CSR), ``"advice"`` (the experts' predictions), ``"awake advice"`` (the specialists' votes and
  an ``awake`` mask), ``"categorical"`` (rows of categorical attributes), ``"points"`` (points
  of a finite concept class);
* ``_K_CLASSES``: whether it takes three classes or more (two always);
* ``_PEER``: a peer that does the same job elsewhere, ``(dotted path, params -> keyword
  arguments)``, timed by ``mbcore bench`` (None: none).

Value types that the safe file format stores besides arrays and learners (``ConceptClass``)
register a codec with :func:`register_codec`, beside the class they encode.

This module imports nothing of mbcore: every other module may import it.
"""

import sys
from typing import Any, Callable, Dict, List, Tuple

__all__ = ["register", "learners", "learner", "register_codec", "codecs", "set_learner_base",
           "learner_base"]

_LEARNERS: Dict[str, type] = {}     # name -> class, in the order the classes were defined
_BASE: List[type] = []              # the class every learner derives from (OnlineLearner)
# tag -> (class, encode, decode): see register_codec
_CODECS: Dict[str, Tuple[type, Callable[..., Any], Callable[..., Any]]] = {}


def _ours(cls):
    return cls.__module__.split(".")[0] == "mbcore" and not cls.__name__.startswith("_")


def register(cls):
    """Enter a learner class (``OnlineLearner.__init_subclass__``); a class that is not one of
    mbcore's public classes is left out.  A second class of the same name is an error."""
    if not _ours(cls):
        return
    name = cls.__name__
    if _LEARNERS.get(name, cls) is not cls:
        raise RuntimeError(f"two learner classes are named {name}: "
                           f"{_LEARNERS[name].__module__} and {cls.__module__}")
    _LEARNERS[name] = cls


def _rank(item):
    """The order of the learners: by module in the order the modules were first seen, then
    as each module lists them (its ``__all__``).  A class listed by a module seen before its
    own (the family module that imports it from a module of its own) takes its place there."""
    name, cls = item
    order = list(dict.fromkeys(c.__module__ for c in _LEARNERS.values()))
    for k, module in enumerate(order):
        names = list(getattr(sys.modules.get(module), "__all__", ()))
        if name in names:
            return (k, names.index(name))
    return (order.index(cls.__module__), 0)


def learners():
    """``[(name, class), ...]`` of every registered learner, by family and as each family
    module lists them."""
    return sorted(_LEARNERS.items(), key=_rank)


def learner(name):
    """The registered class called ``name`` (exact), or None."""
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
