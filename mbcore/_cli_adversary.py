"""The ``mbcore adversary`` command: the lower bound Ldim(C) played against a learner.

``mbcore adversary --class monotone_conjunctions:3 --learner perceptron [--json]`` builds the
class, its witness tree (a complete mistake tree of depth Ldim(C):
``littlestone_dimension(C, witness=True)``), and walks it against the learner with
:class:`mbcore.TreeAdversary`: one line per round (the point shown, the prediction, the label
given), then the total against Ldim(C), and the leaf's concept, consistent with every label.

The learners are those of the registry whose rows the tree can give (its tags: points of the
class, the concepts' labels as experts' advice, or the class's points as feature vectors); this
module names none.  A learner with a parameter ``concepts`` is given the class.

Exit status: 0; 1 for a class over the size limit of the witness search (its message); 2 for a
usage error; 3 when a deterministic learner was not forced exactly Ldim(C) mistakes, or the
leaf's concept is not consistent with the labels (a bug in mbcore).
"""

import inspect
import json

from . import _registry
from ._cli_common import UsageError, did_you_mean, emit, param

__all__ = ["add_adversary_parser", "AdversaryBugFound"]

# the classes, by the name of their ConceptClass constructor, with their default size
_CLASSES = {"half_intervals": 3, "monotone_conjunctions": 3, "monotone_disjunctions": 3,
            "all_conjunctions": 2, "dictators": 8, "dictators_cube": 8}
_SIZE = {"half_intervals": "k: the points 1..2**k", "monotone_conjunctions": "n variables",
         "monotone_disjunctions": "n variables", "all_conjunctions": "n variables",
         "dictators": "n: x_i on the n basis vectors",
         "dictators_cube": "n: x_i on {0,1}**n"}
_TAKES = ("points", "advice", "features")


class AdversaryBugFound(Exception):
    """A deterministic learner was not forced Ldim mistakes, or the leaf is inconsistent
    (exit status 3)."""


def _learners():
    return [n for n, c in _registry.learners() if c._TAGS.takes in _TAKES]


def _learner(text):
    import argparse
    names = _learners()
    for name in names:
        if text.lower() == name.lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown learner {text!r}{did_you_mean(text, names)}; "
                                     f"choose from {', '.join(names)}")


def _concept_class(text):
    """``NAME[:size]``: a built-in class and its size."""
    import argparse
    name, sep, size = text.strip().partition(":")
    key = name.strip().lower().replace("-", "_")
    if key not in _CLASSES:
        raise argparse.ArgumentTypeError(
            f"unknown class {name!r}{did_you_mean(key, list(_CLASSES))}; choose from "
            f"{', '.join(_CLASSES)} (NAME or NAME:SIZE)")
    if not sep:
        return key, _CLASSES[key]
    try:
        n = int(size)
    except ValueError:
        n = -1
    low = 0 if key == "half_intervals" else 1
    if n < low:
        raise argparse.ArgumentTypeError(f"the size of {key} ({_SIZE[key]}) must be an integer "
                                         f">= {low}, got {size!r}")
    return key, n


def add_adversary_parser(sub):
    """Add ``mbcore adversary`` to the top-level subparsers ``sub``."""
    classes = "; ".join(f"{k} ({v}; default {_CLASSES[k]})" for k, v in _SIZE.items())
    p = sub.add_parser(
        "adversary", help="force Ldim mistakes on a learner with a mistake tree",
        description="Build a finite class and a mistake tree of depth Ldim(C) (the witness of "
                    "its Littlestone dimension), and play it against a learner: show each "
                    "node's point, label it against the learner's prediction, descend. A "
                    "deterministic learner makes exactly Ldim(C) mistakes (Littlestone 1988); a "
                    "randomized one is labelled by fair coins, Ldim(C)/2 in expectation. "
                    "Prints the game, one line per round, and the total against Ldim(C).")
    p.add_argument("--class", dest="concept_class", type=_concept_class, required=True,
                   metavar="NAME[:SIZE]", help=f"the class: {classes}")
    p.add_argument("--learner", type=_learner, required=True, metavar="NAME",
                   help="the learner (case-insensitive): " + ", ".join(_learners()))
    p.add_argument("--param", "-p", type=param, action="append", default=[],
                   metavar="NAME=VALUE", help="a parameter of the learner (repeatable)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seeds the fair coins that label a randomized learner (default: 0)")
    p.add_argument("--json", action="store_true", help="print the game as JSON")
    p.set_defaults(handler=_cmd_adversary)


def _build_class(key, n):
    from .version_space import ConceptClass
    if key == "dictators":
        return ConceptClass.dictators(n, domain="basis")
    if key == "dictators_cube":
        return ConceptClass.dictators(n, domain="cube")
    return getattr(ConceptClass, key)(n)


def _build_learner(name, C, pairs):
    cls = _registry.learner(name)
    accepted = [k for k in inspect.signature(cls.__init__).parameters if k != "self"]
    kwargs = {"concepts": C} if "concepts" in accepted else {}
    for item in pairs:
        if item.learner is not None and item.learner != name:
            raise UsageError(f"argument --param {item.text}: {item.learner} is not the learner "
                             f"played ({name})")
        if item.name == "concepts":
            raise UsageError(f"argument --param {item.text}: the class is given by --class")
        if item.name not in accepted:
            known = [k for k in accepted if k != "concepts"]
            raise UsageError(f"argument --param {item.text}: {name} has no parameter "
                             f"{item.name!r}{did_you_mean(item.name, known)}; its parameters: "
                             f"{', '.join(known)}")
        kwargs[item.name] = item.value
    return cls(**kwargs)


def _cmd_adversary(args):
    import warnings
    from .adversary import TreeAdversary
    from .exceptions import LearnerWarning
    from .online import plural
    from .version_space import littlestone_dimension
    if args.seed < 0:
        raise UsageError(f"argument --seed: expected an integer >= 0, got {args.seed}")
    key, n = args.concept_class
    C = _build_class(key, n)
    ldim, tree = littlestone_dimension(C, witness=True)
    learner = _build_learner(args.learner, C, args.param)
    with warnings.catch_warnings():
        # (a learner whose own class does not hold the adversary's labels says so: the
        # game's line for the leaf says what the labels are)
        warnings.simplefilter("ignore", LearnerWarning)
        game = TreeAdversary(tree, random_state=args.seed).run(learner)
    exact = game.randomized or game.mistakes == ldim
    if args.json:
        out = game.to_dict()
        out.update({"class": C.name, "ldim": ldim, "seed": args.seed,
                    "concept_name": tree.concept_label(game.concept),
                    "points": [tree.point_label(r.point) for r in game.rounds]})
        emit(json.dumps(out, indent=2))
    else:
        emit(f"{C.name}: {C.n_concepts} concepts over {C.n_points} points, Ldim = {ldim}; "
             f"a mistake tree of depth {tree.depth} against {args.learner}")
        width = len(str(len(game.rounds)))
        for i, r in enumerate(game.rounds, 1):
            emit(f"round {i:>{width}}: point {r.point} ({tree.point_label(r.point)}), "
                 f"predicted {r.prediction}, label {r.label}"
                 f"{', mistake' if r.prediction != r.label else ''}")
        if game.randomized:
            emit(f"{args.learner}: {plural(game.mistakes, 'mistake')} in "
                 f"{plural(len(game.rounds), 'round')} (randomized: labels by fair coins, seed {args.seed}; Ldim/2 = {ldim / 2:g} "
                 f"expected)")
        else:
            emit(f"{args.learner}: {plural(game.mistakes, 'mistake')} in "
                 f"{plural(len(game.rounds), 'round')}; Ldim = {ldim}: " + ("forced exactly Ldim" if exact else "NOT Ldim"))
        emit(f"leaf: concept {game.concept} ({tree.concept_label(game.concept)}), "
             + ("consistent with every label" if game.consistent
                else "NOT consistent with the labels"))
    if not exact or not game.consistent:
        raise AdversaryBugFound(f"the adversary forced {plural(game.mistakes, 'mistake')} on "
                                f"{args.learner} over {C.name} (Ldim {ldim}), leaf "
                                f"{'consistent' if game.consistent else 'inconsistent'}: a "
                                "bug in mbcore")
    return 0
