"""Adversaries, literally (pure Python, the specification of ``mbcore.adversary``).

Conventions shared with mbcore.adversary (the compiled side matches them exactly)
----------------------------------------------------------------------------------
* A round against a deterministic learner: read its prediction on the row (0/1, 1 = its
  ``classes_[1]``), label the row with the opposite, let it learn that (``partial_fit([row],
  [label], classes=labels)``).  Labels are the learner's ``classes_`` once it has learned, else
  [0, 1].  The prediction of a learner of this package is its online one (what ``mistakes_``
  counts): the prediction ``run_online`` records on a deep copy that learns (row, labels[0]).
  Any other object: ``predict([row])[0]`` once it has learned; before, a deep copy learns
  (row, 0) and it predicted 1 iff the copy's ``mistakes_`` became 1 (a learner without
  ``mistakes_`` is a ValueError).
* ``TreeAdversary(tree, features=None, randomized=None, random_state=0)`` walks a complete
  mistake tree (``tree.is_leaf``, ``tree.point``, ``tree.child(label)``, ``tree.concept``,
  ``tree.depth``, ``tree.concepts``).  A randomized learner (``randomized=True``, or None and
  the learner's class has ``_randomized = True``) is labelled by fair coins: the top bit of
  each splitmix64 output seeded with ``random_state``; its prediction is the one it draws in
  its own pass (``run_online``).
* What a learner is shown at a node of point j: ``features[j]`` when features were given; else
  the index j for a learner over a class's points (Halving, SOA), the concepts' labels at j
  (one expert per concept) for a learner of experts' advice, else the class's point j as
  floats.
* The demonstrations play the same streams in the same order and return the same numbers
  (:class:`Demonstration`; lists where mbcore has arrays).
"""

import copy
import math
import numbers

from .version_space import SOA, Halving
from ._advice import AdviceLearner
from .online import run_online
from .base import OnlineLearner
from .mistake_tree import MistakeTree, check_mistake_tree

__all__ = ["TreeAdversary", "AdversaryGame", "Demonstration", "Round", "ldim_demonstration",
           "winnow_demonstration", "weighted_majority_demonstration",
           "perceptron_demonstration"]

_MASK = (1 << 64) - 1


class _Coin:
    """Fair coins: the top bit of each splitmix64 output, from the state
    seed * 0xD1B54A32D192ED03 + 0x2545F4914F6CDD1D (mod 2**64): a learner seeded with the same
    number (randomized WM draws from splitmix64 seeded with its random_state) draws other
    numbers."""

    def __init__(self, seed):
        # the start is the seed mixed (odd multiplier, offset), so that a learner seeded with
        # the same number (randomized WM draws from splitmix64 too) draws other numbers
        self.state = (int(seed) * 0xD1B54A32D192ED03 + 0x2545F4914F6CDD1D) & _MASK

    def flip(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return (z ^ (z >> 31)) >> 63


def _name(learner):
    return type(learner).__name__


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _integer(owner, name, v, low):
    if not _is_int(v) or v < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {v!r}")
    return int(v)


def _check_learner(owner, learner):
    missing = [m for m in ("predict", "partial_fit") if not callable(getattr(learner, m, None))]
    if missing:
        raise TypeError(f"{owner}: the learner ({_name(learner)}) must have predict and "
                        f"partial_fit methods; it has no {' and no '.join(missing)}")


def _labels_of(owner, learner):
    cl = getattr(learner, "classes_", None)
    if cl is None:
        return [0, 1], False
    labels = list(cl)
    if len(labels) != 2:
        raise ValueError(f"{owner}: the learner ({_name(learner)}) has {len(labels)} classes; "
                         "the game has two labels")
    return labels, True


def _prediction(owner, learner, row):
    labels, fitted = _labels_of(owner, learner)
    if isinstance(learner, OnlineLearner):
        # the online prediction (what mistakes_ counts), read from a copy that learns (row, 0)
        probe = copy.deepcopy(learner)
        run = run_online(probe, row, [labels[0]], classes=labels)
        return (1 if run.predictions[0] == labels[1] else 0), labels
    if fitted:
        return (1 if learner.predict(row)[0] == labels[1] else 0), labels
    probe = copy.deepcopy(learner)
    probe.partial_fit(row, [0], classes=labels)
    m = getattr(probe, "mistakes_", None)
    if m is None:
        raise ValueError(f"{owner}: the learner ({_name(learner)}) cannot predict before its "
                         "first example and keeps no count of its mistakes (mistakes_), so its "
                         "first prediction cannot be read; let it learn one example first "
                         "(partial_fit with classes=[0, 1])")
    return (1 if int(m) > 0 else 0), labels


def _against(owner, learner, row):
    p, labels = _prediction(owner, learner, row)
    label = 1 - p
    learner.partial_fit(row, [labels[label]], classes=labels)
    return p, label


def _online_prediction(learner, row, label, labels):
    if isinstance(learner, OnlineLearner):
        run = run_online(learner, row, [labels[label]], classes=labels)
        return 1 if run.predictions[0] == labels[1] else 0
    fitted = getattr(learner, "classes_", None) is not None
    p = None
    if fitted:
        p = 1 if learner.predict(row)[0] == labels[1] else 0
    before = getattr(learner, "mistakes_", None) if fitted else 0
    learner.partial_fit(row, [labels[label]], classes=labels)
    if p is None:
        after = getattr(learner, "mistakes_", None)
        if after is None or before is None:
            raise ValueError(f"TreeAdversary: the learner ({_name(learner)}) cannot predict "
                             "before its first example and keeps no count of its mistakes "
                             "(mistakes_); let it learn one example first (partial_fit with "
                             "classes=[0, 1])")
        p = label if int(after) == int(before) else 1 - label
    return p


class Round(tuple):
    """One round: (point, prediction, label), prediction and label 0/1."""

    __slots__ = ()

    def __new__(cls, point, prediction, label):
        return tuple.__new__(cls, (point, prediction, label))

    point = property(lambda self: self[0])
    prediction = property(lambda self: self[1])
    label = property(lambda self: self[2])

    def __repr__(self):
        return f"Round(point={self[0]}, prediction={self[1]}, label={self[2]})"


class AdversaryGame:
    """The record of a game (twin of mbcore.AdversaryGame)."""

    def __init__(self, rounds, depth, concept, consistent, randomized, learner):
        self.rounds = rounds
        self.mistakes = sum(r.prediction != r.label for r in rounds)
        self.depth = depth
        self.concept = concept
        self.consistent = consistent
        self.randomized = randomized
        self.learner = learner

    def __repr__(self):
        return (f"AdversaryGame(learner={self.learner!r}, mistakes={self.mistakes}, "
                f"depth={self.depth}, concept={self.concept}, consistent={self.consistent}, "
                f"randomized={self.randomized})")

    def to_dict(self):
        return {"learner": self.learner, "mistakes": self.mistakes, "depth": self.depth,
                "concept": self.concept, "consistent": self.consistent,
                "randomized": self.randomized,
                "rounds": [{"point": r.point, "prediction": r.prediction, "label": r.label}
                           for r in self.rounds]}


def _features(owner, C, features):
    try:
        rows = [list(r) for r in
                (features.tolist() if hasattr(features, "tolist") else features)]
    except TypeError:
        rows = None
    if not rows:
        raise ValueError(f"{owner}: parameter features must be a 2-D array (one row per point "
                         "of the class)")
    if len(rows) != C.n_points:
        raise ValueError(f"{owner}: parameter features has {len(rows)} rows; the class "
                         f"{C.name!r} has {C.n_points} points (one row per point)")
    out = []
    for r in rows:
        try:
            vals = [float(v) for v in r]
        except (TypeError, ValueError):
            vals = None
        if vals is None or len(r) != len(rows[0]):
            raise ValueError(f"{owner}: parameter features must be a 2-D array of numbers "
                             "(one row per point of the class, rows of one length)")
        if not r:
            raise ValueError(f"{owner}: parameter features must hold finite values in at "
                             "least one column")
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"{owner}: parameter features must hold finite values in at "
                             "least one column")
        out.append(vals)
    return out


class TreeAdversary:
    """The adversary that walks a complete mistake tree (twin of mbcore.TreeAdversary)."""

    def __init__(self, tree, features=None, randomized=None, random_state=0):
        o = "TreeAdversary"
        if not isinstance(tree, MistakeTree):
            raise TypeError(f"{o}: parameter tree must be a MistakeTree, got "
                            f"{type(tree).__name__}")
        try:
            check_mistake_tree(tree)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{o}: parameter tree is not a complete mistake tree: {exc}") \
                from None
        if randomized is not None and not isinstance(randomized, bool):
            raise ValueError(f"{o}: parameter randomized must be True, False or None, got "
                             f"{randomized!r}")
        _integer(o, "random_state", random_state, 0)
        self.tree = tree
        self.features = None if features is None else _features(o, tree.concepts, features)
        self.randomized = randomized
        self.random_state = int(random_state)

    def __repr__(self):
        return (f"TreeAdversary(depth={self.tree.depth}, randomized={self.randomized!r}, "
                f"random_state={self.random_state})")

    def _row(self, learner, j):
        C = self.tree.concepts
        if self.features is not None:
            return [list(self.features[j])]
        if isinstance(learner, (Halving, SOA)):
            return [j]
        if isinstance(learner, AdviceLearner):
            return [[float(C.labels(c)[j]) for c in range(C.n_concepts)]]
        if C.points is None:
            raise ValueError(f"TreeAdversary: the class {C.name!r} has no feature vectors "
                             f"(points is None) and the learner ({_name(learner)}) takes "
                             "feature vectors; give parameter features")
        return [[float(v) for v in C.points[j]]]

    def run(self, learner):
        o = "TreeAdversary"
        _check_learner(o, learner)
        randomized = self.randomized
        if randomized is None:
            randomized = getattr(type(learner), "_randomized", False) is True
        coin = _Coin(self.random_state)
        node = self.tree
        rounds = []
        while not node.is_leaf:
            j = int(node.point)
            row = self._row(learner, j)
            if randomized:
                label = coin.flip()
                labels, _ = _labels_of(o, learner)
                p = _online_prediction(learner, row, label, labels)
            else:
                p, label = _against(o, learner, row)
            rounds.append(Round(j, int(p), int(label)))
            node = node.child(label)
        concept = int(node.concept)
        truth = self.tree.concepts.labels(concept)
        consistent = all(truth[r.point] == r.label for r in rounds)
        return AdversaryGame(rounds, int(self.tree.depth), concept, consistent,
                             bool(randomized), _name(learner))


class Demonstration:
    """A lower bound played (twin of mbcore.Demonstration)."""

    def __init__(self, claim, learner, mistakes, bound, upper=None, details=None,
                 consistent=True):
        self.claim = claim
        self.learner = learner
        self.mistakes = int(mistakes)
        self.bound = bound
        self.upper = upper
        self.details = dict(details or {})
        self.holds = bool(consistent and bound <= self.mistakes and
                          (upper is None or self.mistakes <= upper))

    def __repr__(self):
        up = "" if self.upper is None else f", upper={self.upper:.6g}"
        return (f"Demonstration(learner={self.learner!r}, mistakes={self.mistakes}, "
                f"bound={self.bound:.6g}{up}, holds={self.holds})")

    def to_dict(self):
        return {"claim": self.claim, "learner": self.learner, "mistakes": self.mistakes,
                "bound": self.bound, "upper": self.upper, "holds": self.holds,
                "details": dict(self.details)}


def winnow_demonstration(n, k, learner=None):
    """k floor(log2 floor(n/k)) mistakes forced by a disjunction of k of n variables."""
    o = "winnow_demonstration"
    n = _integer(o, "n", n, 1)
    k = _integer(o, "k", k, 1)
    if k > n:
        raise ValueError(f"{o}: parameter k must be an integer in [1, n = {n}], got {k!r}")
    upper = None
    if learner is None:
        from .multiplicative import Winnow
        learner = Winnow()
        upper = 2.0 + 3.0 * (k * (1.0 + math.log2(n)))
    _check_learner(o, learner)
    m = n // k
    per_block = m.bit_length() - 1
    rows, labels, target, mistakes = [], [], [], 0
    for b in range(k):
        S = list(range(b * m, (b + 1) * m))
        for _ in range(per_block):
            H = S[:len(S) // 2]
            x = [0.0] * n
            for i in H:
                x[i] = 1.0
            p, label = _against(o, learner, [x])
            mistakes += p != label
            rows.append(H)
            labels.append(label)
            S = H if label == 1 else S[len(S) // 2:]
        target.append(S[0])
    return Demonstration(
        "a disjunction of k of n variables forces k*floor(log2(floor(n/k))) mistakes on any "
        "deterministic learner (Littlestone 1988; Winnow's O(k log n) is near optimal, "
        "Kanade §5)", _name(learner), mistakes, k * per_block, upper,
        {"n": n, "k": k, "target": target, "rows": rows, "labels": labels,
         "k_log_n_over_k": k * math.log2(n / k)})


def weighted_majority_demonstration(rounds, beta=0.5, learner=None):
    """Two experts that disagree on every round, labels against the prediction."""
    o = "weighted_majority_demonstration"
    T = _integer(o, "rounds", rounds, 2)
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or \
            not math.isfinite(float(beta)) or not 0 < beta < 1:
        raise ValueError(f"{o}: parameter beta must be a finite real in (0, 1), got {beta!r}")
    b = float(beta)
    default = learner is None
    if default:
        from .experts import WeightedMajority
        learner = WeightedMajority(beta=b)
    _check_learner(o, learner)
    mistakes, wrong = 0, [0, 0]
    for _ in range(T):
        p, label = _against(o, learner, [[1.0, 0.0]])
        mistakes += p != label
        wrong[0] += label != 1
        wrong[1] += label != 0
    m_best = min(wrong)
    factor = math.log2(1.0 / b) / math.log2(2.0 / (1.0 + b))
    upper = ((m_best * math.log2(1.0 / b) + math.log2(2)) / math.log2(2.0 / (1.0 + b))
             if default else None)
    return Demonstration(
        "two experts that disagree on every round: a deterministic learner errs on every "
        "round, the best expert on at most half, so Weighted Majority's factor "
        "log2(1/beta)/log2(2/(1+beta)) (2.41 at beta = 1/2, Angluin lecture 20) cannot go "
        "below 2", _name(learner), mistakes, 2 * m_best, upper,
        {"expert_mistakes": wrong, "m_best": m_best,
         "ratio": mistakes / m_best if m_best else math.inf, "factor": factor, "beta": b})


def perceptron_demonstration(d, R=1.0, learner=None):
    """d orthogonal vectors of length R force (R/gamma)^2 = d mistakes."""
    o = "perceptron_demonstration"
    d = _integer(o, "d", d, 1)
    if isinstance(R, bool) or not isinstance(R, numbers.Real) or \
            not math.isfinite(float(R)) or not R > 0:
        raise ValueError(f"{o}: parameter R must be a finite real > 0, got {R!r}")
    R = float(R)
    perceptron = learner is None
    if perceptron:
        from .linear import Perceptron
        learner = Perceptron()
    _check_learner(o, learner)
    labels, mistakes = [], 0
    for t in range(d):
        x = [0.0] * d
        x[t] = R
        p, label = _against(o, learner, [x])
        mistakes += p != label
        labels.append(label)
    # R = the largest norm; gamma = min_t y_t u.x_t with u = sum y_t e_t / sqrt(d)
    # (mbcore.bounds.margin: y_t * (u . x_t) / ||u||, u's norm summed in order)
    s = math.sqrt(d)
    u = [(1.0 if lab == 1 else -1.0) / s for lab in labels]
    norm_u = math.sqrt(math.fsum(v * v for v in u))
    gamma = min((1.0 if lab == 1 else -1.0) * (u[t] * R) / norm_u
                for t, lab in enumerate(labels))
    bound = (R / gamma) ** 2
    return Demonstration(
        "d orthogonal vectors of length R force (R/gamma)^2 = d mistakes on any deterministic "
        "learner: the Perceptron's bound (Novikoff/Block; Kanade Theorem 9) is "
        "tight", _name(learner), mistakes, round(bound, 9), round(bound, 9) if perceptron
        else None, {"R": R, "gamma": gamma, "labels": labels})


def ldim_demonstration(concepts, learners=None, tree=None):
    """Halving and SOA meet Ldim(C) on a mistake tree of depth Ldim(C) (default: the witness
    of littlestone_dimension(C, witness=True))."""
    from .version_space import SOA, ConceptClass, Halving, littlestone_dimension
    o = "ldim_demonstration"
    if not isinstance(concepts, ConceptClass):
        raise TypeError(f"{o}: parameter concepts must be a ConceptClass, got "
                        f"{type(concepts).__name__}")
    if tree is None:
        ldim, tree = littlestone_dimension(concepts, witness=True)
    else:
        ldim = littlestone_dimension(concepts)
        if getattr(tree, "concepts", None) is not concepts:
            raise ValueError(f"{o}: parameter tree is a tree over another class than "
                             f"{concepts.name!r}")
        if tree.depth != ldim:
            raise ValueError(f"{o}: parameter tree has depth {tree.depth}; Ldim of "
                             f"{concepts.name!r} is {ldim}")
    defaults = learners is None
    if defaults:
        learners = [Halving(concepts), SOA(concepts)]
    adv = TreeAdversary(tree)
    out = []
    for L in learners:
        game = adv.run(L)
        upper = None
        if defaults:
            upper = ldim if isinstance(L, SOA) else concepts.n_concepts.bit_length() - 1
        out.append(Demonstration(
            "Ldim(C) mistakes are forced on any deterministic learner by the adversary that "
            "walks a mistake tree of depth Ldim(C) (Littlestone 1988); SOA's bound is Ldim(C), "
            "Halving's floor(log2 |C|)", game.learner, game.mistakes, ldim, upper,
            {"game": game}, consistent=game.consistent))
    return out
