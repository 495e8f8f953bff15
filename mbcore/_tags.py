"""What a learner is, declared once on its class: one frozen :class:`LearnerTags`.

A class declares the facts that differ from its bases with ``_TAGS = tags(...)`` (the defaults
are :class:`LearnerTags`'s); ``OnlineLearner.__init_subclass__`` merges the declarations along
the bases, as it merges ``_PARAMETERS`` (a subclass's value replacing its base's), and leaves
the whole object on the class as ``_TAGS`` (a frozen :class:`LearnerTags`).  A misspelt tag or
a value outside its set fails where it is written (``tags(...)`` checks each field), and what
depends on the class (a method the tag asks for, a parameter a bound names) fails when the
class registers (``mbcore._registry.register`` calls :meth:`LearnerTags.check`): at import,
not in a test.

The modules that serve every learner read the tags, never a list of learners: the command line
(``takes``, ``k_classes``, ``peer``), ``mbcore.distributed`` (``mix``/``no_mix``),
``mbcore.certify`` (``bound``, ``multi_bound``, ``no_bound``, ``bound_counts``,
``bound_params``), ``mbcore.streaming`` (``grows``/``needs_width``), ``fit``/``partial_fit``
(``weighted``/``no_weights``), ``learn_one`` and ``mbcore.river`` (``dict_features``).  The
sets of valid values live here (:data:`TAKES`, :data:`MIXES`, :data:`BOUNDS`, ...); the modules
that give a value its meaning check at their import that they cover the set (the mixings of
``mbcore.distributed``, the rules of ``mbcore.certify``).

This module imports nothing of mbcore.
"""

import dataclasses
import inspect
import types
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

__all__ = ["LearnerTags", "tags", "TAKES", "MIXES", "BOUNDS", "BOUND_COUNTS", "DICT_FEATURES",
           "FLAT"]

# what a row of X is: a feature vector (real or 0/1, dense or CSR), the experts' predictions,
# the specialists' votes with an awake mask, rows of categorical attributes, points of a
# finite concept class
TAKES = ("features", "advice", "awake advice", "categorical", "points")
# how the state mixes across shards (mbcore.distributed): a weight vector (or matrix)
# averaged, or log-weights averaged in log space
MIXES = ("additive", "multiplicative")
# the rules of mbcore.certify that check a bound's assumptions on the data (two classes, then
# the rules for K >= 3 classes; a bound that holds for any number of labels is in both lists
# of its class's declaration, bound and multi_bound)
BOUNDS = ("margin", "perceptron", "margin perceptron", "kernel perceptron", "winnow",
          "elimination winnow", "winnow*", "weighted majority", "randomized weighted majority",
          "specialists", "conjunction", "disjunction", "decision list", "halving", "soa",
          "arow", "second order perceptron", "alma", "forgetron", "projectron",
          "multiclass", "multiclass margin perceptron", "multiclass kernel",
          "multiclass winnow", "one-vs-rest")
# what a bound counts
BOUND_COUNTS = ("mistakes", "updates")
# learn_one on dict features (mbcore._one): a new name is a new column ("grow"), the names are
# given up front ("fixed"), or None (the class's rows say: "fixed" for feature vectors and
# advice, else refused)
DICT_FEATURES = (None, "grow", "fixed")

# the methods a tag asks the class to define (overriding the base's refusal)
_METHODS = {
    "mix": ("_mix_state", "_mix_vectors", "_set_mixed", "_settle_mixed"),
    "grows": ("_grow_state",),
    "dict_features": ("_grow_features",),       # ("grow" only)
}


@dataclasses.dataclass(frozen=True)
class LearnerTags:
    """What a learner class is (one frozen object per class, ``cls._TAGS``).

    Attributes
    ----------
    takes : str or None
        What a row of its X is, one of :data:`TAKES` (None only on the abstract base).
    k_classes : bool
        Whether it takes three classes or more (two always).
    peer : (str, callable) or None
        A peer that does the same job elsewhere, timed by ``mbcore bench``: its dotted path,
        and a function of the learner's parameters giving the peer's keyword arguments.
    mix, no_mix : str or None
        How its state mixes across shards (``mbcore.distributed``), one of :data:`MIXES`; or
        None, with the reason the refusal quotes in ``no_mix``.
    bound, multi_bound : str or None
        The rule of ``mbcore.certify`` that checks its mistake bound's assumptions on the data
        (one of :data:`BOUNDS`), for two classes and for K >= 3 classes (a class whose bound
        holds for any number of labels names it in both); None: the notes give none.  The
        rules "margin", "perceptron" and "multiclass" take the bound itself from the class, as
        code (``_margin_bound``, ``_kesler_bound``: ``mbcore.linear``); "one-vs-rest" sums the
        class's binary rule (its ``bound``) over the one-vs-rest problems.
    no_bound : str or None
        Why ``certify`` checks no bound for it (a sentence the certificate quotes), when its
        paper states one that no rule checks; None: the certificate says the notes give none.
    bound_counts : str
        What its bound counts, one of :data:`BOUND_COUNTS`.
    bound_params : mapping
        The parameter values its bound is proved for (read-only).
    grows, needs_width : bool, str or None
        Whether its state can grow with the width of a stream of unknown width
        (``mbcore.streaming``, ``grow=True``; the class defines ``_grow_state(d)``); else why it
        needs the number of features up front.
    weighted, no_weights : bool, str or None
        Whether ``fit``, ``partial_fit`` and ``run_online`` take ``sample_weight``; else why
        not (its rule has no weighted form).
    dict_features : str or None
        ``learn_one`` on dict features, one of :data:`DICT_FEATURES` (``mbcore._one``).
    """

    takes: Optional[str] = None
    k_classes: bool = False
    peer: Optional[Tuple[str, Callable[[Dict[str, Any]], Dict[str, Any]]]] = None
    mix: Optional[str] = None
    no_mix: Optional[str] = ("its state is not a weight vector that parameter mixing can "
                             "average")
    bound: Optional[str] = None
    multi_bound: Optional[str] = None
    no_bound: Optional[str] = None
    bound_counts: str = "mistakes"
    bound_params: Mapping[str, Any] = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}))
    grows: bool = False
    needs_width: Optional[str] = "its state is made for a fixed number of features"
    weighted: bool = False
    no_weights: Optional[str] = "its update rule has no weighted form in the notes"
    dict_features: Optional[str] = None

    def __post_init__(self):
        for f in dataclasses.fields(self):
            _check_value(f.name, getattr(self, f.name))
        if not isinstance(self.bound_params, types.MappingProxyType):
            object.__setattr__(self, "bound_params",
                               types.MappingProxyType(dict(self.bound_params)))

    def replace(self, **changes):
        """A copy with these fields changed (each checked)."""
        return dataclasses.replace(self, **changes)

    def check(self, cls, base):
        """Raise TypeError for what the class ``cls`` (a subclass of the learners' ``base``)
        declares that cannot hold: a pair of tags that contradict each other, or a method a
        tag asks for that the class does not define.  Called when the class registers."""
        name = cls.__name__

        def bad(text):
            return TypeError(f"{name}._TAGS: {text} (mbcore._tags)")

        if self.takes is None:
            raise bad(f"takes is not declared: one of {list(TAKES)}")
        for on, why in (("mix", "no_mix"), ("grows", "needs_width"),
                        ("weighted", "no_weights")):
            if bool(getattr(self, on)) == (getattr(self, why) is not None):
                raise bad(f"exactly one of {on} and {why} is declared: {on}="
                          f"{getattr(self, on)!r}, {why}={getattr(self, why)!r}")
        if self.no_bound is not None and (self.bound is not None or
                                          self.multi_bound is not None):
            raise bad(f"no_bound={self.no_bound!r} with a bound rule (bound={self.bound!r}, "
                      f"multi_bound={self.multi_bound!r}): the rule says why it has none")
        if self.k_classes and self.bound is not None and self.multi_bound is None:
            raise bad(f"bound={self.bound!r} with k_classes=True needs multi_bound (the rule "
                      "for K >= 3 classes; a binary bound never holds for K classes)")
        params = set(inspect.signature(cls.__init__).parameters) - {"self"}
        unknown = sorted(set(self.bound_params) - params)
        if unknown:
            raise bad(f"bound_params names {unknown}, which are not parameters of {name} "
                      f"({sorted(params)})")
        asks = dict(_METHODS)
        if not self.mix:
            del asks["mix"]
        if not self.grows:
            del asks["grows"]
        if self.dict_features != "grow":
            del asks["dict_features"]
        for tag, methods in asks.items():
            for m in methods:
                owner = next((k for k in cls.__mro__ if m in k.__dict__), None)
                if owner is None or not (issubclass(owner, base) and owner is not base):
                    raise bad(f"{tag}={getattr(self, tag)!r} needs the class to define {m}")


def _check_value(field, value):
    """TypeError or ValueError for a value outside the field's set."""
    def wrong(allowed):
        return ValueError(f"mbcore._tags: {field} must be {allowed}, got {value!r}")

    if field == "takes" and value is not None and value not in TAKES:
        raise wrong(f"one of {list(TAKES)}")
    if field == "mix" and value is not None and value not in MIXES:
        raise wrong(f"None or one of {list(MIXES)}")
    if field in ("bound", "multi_bound") and value is not None and value not in BOUNDS:
        raise wrong(f"None or one of the rules of mbcore.certify {list(BOUNDS)}")
    if field == "bound_counts" and value not in BOUND_COUNTS:
        raise wrong(f"one of {list(BOUND_COUNTS)}")
    if field == "dict_features" and value not in DICT_FEATURES:
        raise wrong(f"one of {list(DICT_FEATURES)}")
    if field in ("k_classes", "grows", "weighted") and not isinstance(value, bool):
        raise wrong("True or False")
    if field in ("no_mix", "needs_width", "no_weights", "no_bound") and not (
            value is None or (isinstance(value, str) and value)):
        raise wrong("None or the reason, as a sentence the messages quote")
    if field == "peer" and value is not None and not (
            isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)
            and callable(value[1])):
        raise wrong("None or (dotted path, params -> keyword arguments)")
    if field == "bound_params" and not (isinstance(value, Mapping) and
                                        all(isinstance(k, str) for k in value)):
        raise wrong("a mapping of parameter names to values")


_FIELDS = tuple(f.name for f in dataclasses.fields(LearnerTags))


class TagChanges:
    """The tags a class declares (what :func:`tags` returns): merged over its bases' tags."""

    __slots__ = ("changes",)

    def __init__(self, changes):
        self.changes = types.MappingProxyType(dict(changes))

    def __repr__(self):
        return "tags(" + ", ".join(f"{k}={v!r}" for k, v in self.changes.items()) + ")"


def tags(**changes):
    """The tags a class declares, ``_TAGS = tags(takes="features", ...)``: the fields of
    :class:`LearnerTags` that differ from its bases', each checked here (a misspelt field or
    a value outside its set raises at once)."""
    for k, v in changes.items():
        if k not in _FIELDS:
            raise TypeError(f"mbcore._tags: unknown tag {k!r}; the tags are {list(_FIELDS)}")
        _check_value(k, v)
    return TagChanges(changes)


def merged(cls):
    """The whole tags of ``cls``: the declarations along its bases (``_TAGS``, a
    :class:`LearnerTags` or :func:`tags`), the most derived last."""
    out = None
    for k in reversed(cls.__mro__):
        # (a class already settled keeps its own declaration apart, None for none)
        own = k.__dict__["_TAGS_DECLARED"] if "_TAGS_DECLARED" in k.__dict__ else \
            k.__dict__.get("_TAGS")
        if isinstance(own, LearnerTags):
            out = own
        elif isinstance(own, TagChanges):
            out = (out or LearnerTags()).replace(**own.changes)
        elif own is not None:
            raise TypeError(f"{k.__name__}._TAGS must be mbcore._tags.tags(...) or a "
                            f"LearnerTags, got {type(own).__name__}")
    return out or LearnerTags()


# The flat class attributes the tags replaced (old name -> field): a class declaring one is
# refused with the field to declare instead.
FLAT = {"_TAKES": "takes", "_K_CLASSES": "k_classes", "_PEER": "peer", "_MIX": "mix",
        "_NO_MIX": "no_mix", "_BOUND": "bound", "_MULTI_BOUND": "multi_bound",
        "_BOUND_COUNTS": "bound_counts", "_BOUND_PARAMS": "bound_params", "_GROWS": "grows",
        "_NEEDS_WIDTH": "needs_width", "_WEIGHTED": "weighted", "_NO_WEIGHTS": "no_weights",
        "_DICT_FEATURES": "dict_features"}


def settle(cls):
    """Leave the merged tags on ``cls`` as ``_TAGS`` (its own declaration kept as
    ``_TAGS_DECLARED``); a flat tag attribute declared on the class is refused."""
    flat = sorted(set(FLAT) & set(cls.__dict__) - {"_TAGS"})
    if flat:
        raise TypeError(f"{cls.__name__} declares {', '.join(flat)}: declare "
                        f"{', '.join(FLAT[f] for f in flat)} in _TAGS = tags(...) "
                        "(mbcore._tags)")
    if "_TAGS_DECLARED" not in cls.__dict__:
        type.__setattr__(cls, "_TAGS_DECLARED", cls.__dict__.get("_TAGS"))
    type.__setattr__(cls, "_TAGS", merged(cls))
