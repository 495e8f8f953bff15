"""Adversaries: a mistake tree walked against any learner, and the notes' lower bounds as
programs.

The online protocol is a game (Kanade §1): the learner predicts, then the adversary reveals the
label.  An adversary that sees the prediction first labels against it, so every round is a
mistake; it only has to keep some concept of the class consistent with its answers.
:class:`~mbcore.TreeAdversary` does that on a complete mistake tree (the witness of the
Littlestone dimension: ``littlestone_dimension(C, witness=True)``), so it forces Ldim(C)
mistakes on any deterministic learner, and Ldim(C)/2 in expectation on a randomized one, whose
prediction it cannot see (it labels by a fair coin).  The demonstrations play the notes' lower
bounds:

- :func:`~mbcore.adversary.ldim_demonstration`: Halving and SOA meet Ldim(C) (SOA's upper
  bound is Ldim(C));
- :func:`~mbcore.adversary.winnow_demonstration`: k⌊log₂⌊n/k⌋⌋ mistakes forced on Winnow (or
  any learner) by a disjunction of k of n variables, against Winnow's O(k log n);
- :func:`~mbcore.adversary.weighted_majority_demonstration`: two experts that disagree on every
  round; Weighted Majority errs on every round, the best expert on at most half of them: the
  factor 2 of the bound's 2.41 (β = 1/2), (2 + ε) as β → 1, is needed;
- :func:`~mbcore.adversary.perceptron_demonstration`: d orthogonal vectors force (R/γ)² = d
  mistakes, the Perceptron's bound, met exactly.

Each returns a :class:`~mbcore.Demonstration` whose numbers are checked (``holds``), not only
printed.  The twin of every name is in ``mbref.adversary``.

Examples
--------
>>> from mbcore.adversary import perceptron_demonstration
>>> perceptron_demonstration(9)
Demonstration(learner='Perceptron', mistakes=9, bound=9, upper=9, holds=True)
"""

import copy
import math

import numpy as np

from . import _params as params
from ._locking import holding
from .base import OnlineLearner
from .mistake_tree import MistakeTree, check_mistake_tree
from .online import run_online

__all__ = ["TreeAdversary", "AdversaryGame", "Demonstration", "Round", "ldim_demonstration",
           "winnow_demonstration", "weighted_majority_demonstration",
           "perceptron_demonstration"]

_MASK = (1 << 64) - 1


class _Coin:
    """Fair coins from splitmix64 (Steele, Lea & Flood 2014): the top bit of each output (the
    generator the twins share, ``mbref._rng``), from a start mixed from the seed."""

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


def _check_learner(owner, learner):
    """TypeError for an object that cannot play: it needs predict and partial_fit."""
    missing = [m for m in ("predict", "partial_fit") if not callable(getattr(learner, m, None))]
    if missing:
        raise TypeError(f"{owner}: the learner ({_name(learner)}) must have predict and "
                        f"partial_fit methods; it has no {' and no '.join(missing)}")


def _labels_of(owner, learner):
    """The learner's two labels (its classes_ once it has learned, else [0, 1]) and whether it
    has learned."""
    cl = getattr(learner, "classes_", None)
    if cl is None:
        return [0, 1], False
    labels = list(cl)
    if len(labels) != 2:
        raise ValueError(f"{owner}: the learner ({_name(learner)}) has {len(labels)} classes; "
                         "the game has two labels")
    return labels, True


def _prediction(owner, learner, row):
    """The learner's online prediction on ``row`` (0/1, 1 = its positive class), without
    changing it, and its labels.  For an mbcore learner it is the prediction its online pass
    makes (what ``mistakes_`` counts; not always ``predict``'s: the averaged Perceptron
    predicts with its average), read from a copy that learns (row, 0); any other object: its
    ``predict``, or, before it has learned anything, a copy that learns (row, 0) and predicted 1
    iff its ``mistakes_`` became 1 (the protocol of ``play_against``)."""
    labels, fitted = _labels_of(owner, learner)
    if isinstance(learner, OnlineLearner):
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


def _online_prediction(learner, row, label, labels):
    """One round of a randomized learner: it learns (row, label) and the prediction it drew in
    that pass is returned (0/1)."""
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


def _against(owner, learner, row):
    """One round against a deterministic learner: read its prediction, label ``row`` with the
    opposite, let it learn that.  Returns (prediction, label), both 0/1."""
    with holding(learner, write=True):
        p, labels = _prediction(owner, learner, row)
        label = 1 - p
        learner.partial_fit(row, [labels[label]], classes=labels)
    return p, label


class Round(tuple):
    """One round of an :class:`~mbcore.AdversaryGame`: the tuple (point, prediction, label),
    also read as the attributes of those names; prediction and label are 0/1 (1 = the
    learner's ``classes_[1]``).

    Examples
    --------
    >>> from mbcore import ConceptClass, Halving, MistakeTree, TreeAdversary
    >>> C = ConceptClass.half_intervals(1)           # x <= 0 or x <= 1 on the point 1
    >>> r = TreeAdversary(MistakeTree.from_nested((0, 0, 1), C)).run(Halving(C)).rounds[0]
    >>> r.point, r.prediction, r.label
    (0, 1, 0)
    """

    __slots__ = ()

    def __new__(cls, point, prediction, label):
        return tuple.__new__(cls, (point, prediction, label))

    point = property(lambda self: self[0])
    prediction = property(lambda self: self[1])
    label = property(lambda self: self[2])

    def __repr__(self):
        return (f"Round(point={self[0]}, prediction={self[1]}, label={self[2]})")


class AdversaryGame:
    """The record of a :class:`~mbcore.TreeAdversary` game.

    Attributes
    ----------
    rounds : list of Round
        Per round the point shown (its index in the class), the learner's prediction and the
        label given (0/1; 1 = the learner's positive class, ``classes_[1]``).
    mistakes : int
        Rounds where the prediction was not the label.
    depth : int
        The tree's depth: the mistakes forced on a deterministic learner.
    concept : int
        The leaf's concept (an index in the class).
    consistent : bool
        Whether that concept labels every point shown as the game labelled it (checked on the
        class's table).
    randomized : bool
        Whether the labels were fair coins (a randomized learner) rather than the opposite of
        the prediction.
    learner : str
        The learner's class name.

    Examples
    --------
    >>> from mbcore import ConceptClass, SOA, TreeAdversary, littlestone_dimension
    >>> C = ConceptClass.monotone_disjunctions(3)
    >>> ldim, tree = littlestone_dimension(C, witness=True)
    >>> game = TreeAdversary(tree).run(SOA(C))
    >>> game.mistakes == ldim == 3, game.consistent, len(game.to_dict()["rounds"])
    (True, True, 3)
    """

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
        """The game as plain values (what ``mbcore adversary --json`` prints)."""
        return {"learner": self.learner, "mistakes": self.mistakes, "depth": self.depth,
                "concept": self.concept, "consistent": self.consistent,
                "randomized": self.randomized,
                "rounds": [{"point": r.point, "prediction": r.prediction, "label": r.label}
                           for r in self.rounds]}


def _takes(learner):
    tags = getattr(type(learner), "_TAGS", None)
    return getattr(tags, "takes", None)


class TreeAdversary:
    """An adversary that walks a complete mistake tree against any learner.

    Protocol: from the root, show the node's point to the learner, label it with the opposite
    of the learner's prediction (``play_against``'s protocol), descend to that label's child;
    at the leaf the game ends, and the leaf's concept labels every point shown as the game
    did (a mistake tree keeps at every leaf a concept consistent with its path), which
    :class:`~mbcore.AdversaryGame` checks on the class's table.  A deterministic learner thus makes
    one mistake per level: ``depth`` mistakes, Ldim(C) on the witness tree of
    ``littlestone_dimension(C, witness=True)``, the lower bound of Littlestone (1988) that SOA
    meets.

    A randomized learner's prediction is a draw the adversary cannot see before it labels
    (Angluin lecture 20's remark on randomized WM), so it labels by a fair coin (splitmix64
    seeded with ``random_state``): each round is a mistake with probability 1/2 whatever the
    learner draws, depth/2 mistakes in expectation, and the leaf is still consistent.  A learner
    is judged randomized when its class says its predictions are draws (``_randomized = True``:
    :class:`~mbcore.RandomizedWeightedMajority`) unless ``randomized`` says otherwise.

    What the learner is shown at a node of point j: the index j for a learner over the class's
    points (Halving, SOA); the concepts' labels at j, one expert per concept, for a learner
    over experts' advice (Weighted Majority); else the feature vector ``features[j]``
    (by default the class's points: the Boolean vectors of the conjunction and disjunction
    classes), for the Perceptron, Winnow, the Boolean learners or any object with ``predict``
    and ``partial_fit`` (a scikit-learn classifier that has learned one example with
    ``classes=[0, 1]``).  Labels are the learner's ``classes_`` (0/1 before it learned).

    Parameters
    ----------
    tree : MistakeTree
        A complete mistake tree (checked by ``check_mistake_tree``).
    features : array-like of shape (n_points, n_features), optional
        The feature vector of each point of the tree's class; default: the class's points.
    randomized : bool or None, default=None
        Label by fair coins; None: as the learner's class declares.
    random_state : int >= 0, default=0
        The coins' seed.

    Raises
    ------
    ValueError
        A tree that is not a complete mistake tree; features whose number of rows is not the
        class's number of points, or rows of unequal length.
    TypeError
        (in ``run``) a learner without ``predict`` or ``partial_fit``.

    Examples
    --------
    The half-intervals on {1, 2, 3, 4} (c_t(x) = 1 iff x <= t): ask 2, then 1 or 3 (binary
    search, a mistake tree of depth 2 = Ldim).

    >>> from mbcore import ConceptClass, MistakeTree, Halving, Perceptron
    >>> C = ConceptClass.half_intervals(2)
    >>> tree = MistakeTree.from_nested((1, (0, 0, 1), (2, 2, 3)), C)
    >>> game = TreeAdversary(tree).run(Halving(C))
    >>> game.rounds, game.mistakes, game.concept, game.consistent
    ([Round(point=1, prediction=1, label=0), Round(point=0, prediction=1, label=0)], 2, 0, True)
    >>> TreeAdversary(tree, features=[[1, 0], [1, 1], [0, 1], [0, 0]]).run(Perceptron()).mistakes
    2
    """

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
        if randomized is not None and not isinstance(randomized, (bool, np.bool_)):
            raise ValueError(f"{o}: parameter randomized must be True, False or None, got "
                             f"{randomized!r}")
        params.integer(o, "random_state", random_state, 0)
        self.tree = tree
        self.features = None if features is None else _features(o, tree.concepts, features)
        self.randomized = randomized
        self.random_state = int(random_state)
        self._advice = None            # (the concepts' labels per point, made once)

    def __repr__(self):
        return (f"TreeAdversary(depth={self.tree.depth}, randomized={self.randomized!r}, "
                f"random_state={self.random_state})")

    def _row(self, learner, j):
        C = self.tree.concepts
        if self.features is not None:
            return self.features[j:j + 1]
        takes = _takes(learner)
        if takes == "points":
            return [j]
        if takes == "advice":
            if self._advice is None:
                self._advice = np.ascontiguousarray(C.matrix().T, dtype=np.float64)
            return self._advice[j:j + 1]
        if C.points is None:
            raise ValueError(f"TreeAdversary: the class {C.name!r} has no feature vectors "
                             f"(points is None) and the learner ({_name(learner)}) takes "
                             "feature vectors; give parameter features")
        return np.asarray([C.points[j]], dtype=np.float64)

    def run(self, learner):
        """Play the game against ``learner`` (it learns every round, in place).

        Returns
        -------
        AdversaryGame
        """
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
                with holding(learner, write=True):
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


def _features(owner, C, features):
    try:
        F = np.asarray(features.toarray() if hasattr(features, "toarray") else features,
                       dtype=np.float64)
    except (ValueError, TypeError):
        raise ValueError(f"{owner}: parameter features must be a 2-D array of numbers (one "
                         "row per point of the class, rows of one length)") from None
    if F.ndim != 2:
        raise ValueError(f"{owner}: parameter features must be a 2-D array (one row per point "
                         f"of the class), got ndim={F.ndim}")
    if F.shape[0] != C.n_points:
        raise ValueError(f"{owner}: parameter features has {F.shape[0]} rows; the class "
                         f"{C.name!r} has {C.n_points} points (one row per point)")
    if F.shape[1] == 0 or not np.isfinite(F).all():
        raise ValueError(f"{owner}: parameter features must hold finite values in at least "
                         "one column")
    return np.ascontiguousarray(F)


# -- the demonstrations ------------------------------------------------------------------------

class Demonstration:
    """A lower bound played: the mistakes forced, the bound they meet, and the check.

    Attributes
    ----------
    claim : str
        The claim of the notes, in words, with its source.
    learner : str
        The learner's class name.
    mistakes : int
        The mistakes the adversary forced.
    bound : float
        The lower bound's value, computed from its formula.
    upper : float or None
        The learner's mistake bound on the same stream (its assumptions hold), when the notes
        give one.
    holds : bool
        ``bound <= mistakes`` (and ``mistakes <= upper`` when there is an upper bound), and the
        adversary's labels are a concept's of the class (checked where the game has a tree).
    details : dict
        The other numbers of the demonstration (named in each function's docstring).

    Examples
    --------
    A disjunction of 2 of 16 variables: 2⌊log₂ 8⌋ = 6 mistakes forced on Winnow, whose
    bound is 2 + 3·2·(1 + log₂ 16) = 32.

    >>> from mbcore.adversary import winnow_demonstration
    >>> d = winnow_demonstration(16, 2)
    >>> d.mistakes, d.bound, d.upper, d.holds
    (6, 6, 32.0, True)
    """

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
        """The demonstration as plain values (its ``details`` as they are)."""
        return {"claim": self.claim, "learner": self.learner, "mistakes": self.mistakes,
                "bound": self.bound, "upper": self.upper, "holds": self.holds,
                "details": dict(self.details)}


def _int(owner, name, value, low):
    return params.integer(owner, name, value, low)


def winnow_demonstration(n, k, learner=None):
    """Winnow's O(k log n) cannot be beaten: k⌊log₂⌊n/k⌋⌋ mistakes forced on any
    deterministic learner by a disjunction of k of the n variables.

    The claim: Kanade §5 calls Winnow's bound (Theorem 12, 2k log₂ n + 2; Angluin lecture 18's
    Winnow2, 2 + 3k(1 + log₂ n)) near optimal; the matching lower bound Ω(k log(n/k)) is
    Littlestone's (1988, the notes' reference).  The adversary: split the variables into k
    blocks of m = ⌊n/k⌋; in block b keep a set S of candidates (first the block), show the
    vector whose ones are the first half H of S (every other variable 0) and label it against
    the prediction: label 1 keeps S = H, label 0 keeps S \\ H; ⌊log₂ m⌋ rounds per block.
    The disjunction of one remaining candidate per block labels every row as given (a row's
    ones lie in one block), so the labels are a k-of-n disjunction's and every round is a
    mistake.

    Parameters
    ----------
    n : int >= 1
    k : int, 1 <= k <= n
    learner : default Winnow() (alpha 2, beta 1/2, threshold n)
        Any learner with predict and partial_fit on 0/1 vectors of length n.

    Returns
    -------
    Demonstration
        ``bound`` = k⌊log₂⌊n/k⌋⌋; ``upper`` = Winnow's 2 + 3k(1 + log₂ n)
        (:func:`mbcore.bounds.winnow_bound`) for the default learner, else None; ``details``:
        ``target`` (the disjunction's variables), ``rows`` and ``labels`` (the stream),
        ``k_log_n_over_k`` = k log₂(n/k).

    Examples
    --------
    >>> d = winnow_demonstration(64, 4)
    >>> d.mistakes, d.bound, d.upper, d.holds
    (16, 16, 86.0, True)
    """
    o = "winnow_demonstration"
    n = _int(o, "n", n, 1)
    k = _int(o, "k", k, 1)
    if k > n:
        raise ValueError(f"{o}: parameter k must be an integer in [1, n = {n}], got {k!r}")
    upper = None
    if learner is None:
        from .bounds import winnow_bound
        from .multiplicative import Winnow
        learner = Winnow()
        upper = winnow_bound(k, n)
    _check_learner(o, learner)
    m = n // k
    per_block = m.bit_length() - 1                 # floor(log2 m)
    rows, labels, target, mistakes = [], [], [], 0
    for b in range(k):
        S = list(range(b * m, (b + 1) * m))
        for _ in range(per_block):
            H = S[:len(S) // 2]
            x = np.zeros((1, n))
            x[0, H] = 1.0
            p, label = _against(o, learner, x)
            mistakes += p != label
            rows.append(H)
            labels.append(label)
            S = H if label == 1 else S[len(S) // 2:]
        target.append(S[0])
    bound = k * per_block
    return Demonstration(
        "a disjunction of k of n variables forces k*floor(log2(floor(n/k))) mistakes on any "
        "deterministic learner (Littlestone 1988; Winnow's O(k log n) is near optimal, "
        "Kanade §5)", _name(learner), mistakes, bound, upper,
        {"n": n, "k": k, "target": target, "rows": rows, "labels": labels,
         "k_log_n_over_k": k * math.log2(n / k)})


def weighted_majority_demonstration(rounds, beta=0.5, learner=None):
    """The factor 2 in Weighted Majority's bound is needed: two experts that disagree on every
    round, labels against the prediction.

    The claim (Angluin lecture 20): M <= (m log₂(1/β) + log₂ n) / log₂(2/(1+β)), which is
    2.41 (m + log₂ n) for β = 1/2, and whose factor log₂(1/β) / log₂(2/(1+β)) falls to 2 as
    β → 1 (the "(2 + ε)" of the notes).  No deterministic learner has a factor below 2: with
    expert A always predicting 1 and expert B always 0, the adversary labels every round
    against the learner, so the learner errs on every round while one of the experts is right;
    the two experts' mistakes add up to the rounds, and the better one has at most
    ⌊rounds/2⌋.  The ratio M / m_best = rounds / m_best is at least 2 and tends to 2.

    Parameters
    ----------
    rounds : int >= 2
    beta : float in (0, 1), default=0.5
    learner : default WeightedMajority(beta=beta)
        Any learner of two experts' advice (rows [1, 0]).

    Returns
    -------
    Demonstration
        ``mistakes`` = rounds; ``bound`` = 2 m_best (the lower bound: M >= 2 m_best);
        ``upper`` = the bound (m_best log₂(1/β) + 1) / log₂(2/(1+β)) for the default learner,
        else None; ``details``: ``expert_mistakes`` (A's and B's), ``m_best``, ``ratio`` =
        M / m_best, ``factor`` = log₂(1/β) / log₂(2/(1+β)) (2.409... at β = 1/2), ``beta``.

    Examples
    --------
    >>> d = weighted_majority_demonstration(1000)
    >>> d.mistakes, d.details["m_best"], d.details["ratio"], round(d.details["factor"], 3)
    (1000, 500, 2.0, 2.409)
    """
    o = "weighted_majority_demonstration"
    T = _int(o, "rounds", rounds, 2)
    b = params.open_unit(o, "beta", beta)
    upper_fn = None
    if learner is None:
        from .bounds import weighted_majority_bound
        from .experts import WeightedMajority
        learner = WeightedMajority(beta=b)
        upper_fn = weighted_majority_bound
    _check_learner(o, learner)
    advice = np.array([[1.0, 0.0]])
    mistakes, wrong = 0, [0, 0]
    for _ in range(T):
        p, label = _against(o, learner, advice)
        mistakes += p != label
        wrong[0] += label != 1             # expert A said 1
        wrong[1] += label != 0             # expert B said 0
    m_best = min(wrong)
    factor = math.log2(1.0 / b) / math.log2(2.0 / (1.0 + b))
    upper = None if upper_fn is None else upper_fn(m_best, 2, b)
    return Demonstration(
        "two experts that disagree on every round: a deterministic learner errs on every "
        "round, the best expert on at most half, so Weighted Majority's factor "
        "log2(1/beta)/log2(2/(1+beta)) (2.41 at beta = 1/2, Angluin lecture 20) cannot go "
        "below 2", _name(learner), mistakes, 2 * m_best, upper,
        {"expert_mistakes": wrong, "m_best": m_best,
         "ratio": mistakes / m_best if m_best else math.inf, "factor": factor, "beta": b})


def perceptron_demonstration(d, R=1.0, learner=None):
    """The Perceptron's (R/γ)² is tight: d orthogonal vectors force (R/γ)² = d mistakes.

    The claim (Novikoff 1962, Block 1962; Kanade Theorem 9 and its remark on a matching lower
    bound): mistakes <= (R/γ)² when ‖x_t‖ <= R and a unit u has y_t u·x_t >= γ.  The stream
    R e_1, ..., R e_d, each labelled against the learner's prediction: whatever the labels
    y_t, the unit vector u = Σ y_t e_t / √d separates them with margin γ = R/√d, so
    (R/γ)² = d, and every round is a mistake, on any deterministic learner.  The Perceptron
    meets its bound exactly (on it the labels do not matter: w stays in the span of the
    vectors seen, so w·x_t = 0 and every example is a mistake, as the tie rule goes).

    Parameters
    ----------
    d : int >= 1
    R : float > 0, default=1.0
    learner : default Perceptron()
        Any learner of real vectors of length d.

    Returns
    -------
    Demonstration
        ``bound`` = (R/γ)² with R the largest norm and γ = min_t y_t u·x_t / ‖u‖ on the
        stream played (what :func:`mbcore.bounds.radius` and :func:`mbcore.bounds.margin`
        measure), rounded to 9 decimals (it is d up to the last bits of √d); ``upper`` = the
        same (:func:`mbcore.bounds.perceptron_bound`) for the default learner; ``details``:
        ``R``, ``gamma``, ``labels``.

    Examples
    --------
    >>> p = perceptron_demonstration(25, R=2.0)
    >>> p.mistakes, round(p.bound, 9), p.holds
    (25, 25.0, True)
    """
    o = "perceptron_demonstration"
    d = _int(o, "d", d, 1)
    R = params.positive(o, "R", R)
    from .bounds import perceptron_bound
    perceptron = learner is None
    if perceptron:
        from .linear import Perceptron
        learner = Perceptron()
    _check_learner(o, learner)
    X = np.eye(d) * R
    labels = []
    mistakes = 0
    for t in range(d):
        p, label = _against(o, learner, X[t:t + 1])
        mistakes += p != label
        labels.append(label)
    # R = the largest norm; gamma = min_t y_t u.x_t / ||u|| with u = sum_t y_t e_t / sqrt(d)
    # (mbcore.bounds.radius and margin, in this order of operations, as the twin)
    s = math.sqrt(d)
    u = [(1.0 if lab == 1 else -1.0) / s for lab in labels]
    norm_u = math.sqrt(math.fsum(v * v for v in u))
    g = min((1.0 if lab == 1 else -1.0) * (u[t] * R) / norm_u
            for t, lab in enumerate(labels))
    r = R
    bound = perceptron_bound(r, g)
    # (the bound is d up to rounding: the lower bound compared is its value rounded to 9 digits)
    return Demonstration(
        "d orthogonal vectors of length R force (R/gamma)^2 = d mistakes on any deterministic "
        "learner: the Perceptron's bound (Novikoff/Block; Kanade Theorem 9) is "
        "tight", _name(learner), mistakes, round(bound, 9), round(bound, 9) if perceptron
        else None, {"R": r, "gamma": g, "labels": labels})


def ldim_demonstration(concepts, learners=None, tree=None):
    """Halving and SOA meet Ldim(C): a mistake tree of depth Ldim(C), walked by
    :class:`~mbcore.TreeAdversary`, forces Ldim(C) mistakes on each.

    The claim (Littlestone 1988; SOA and Ldim are named in Angluin lecture 25): no
    deterministic learner has a mistake bound below Ldim(C), and SOA's bound is Ldim(C), so
    SOA is optimal; Halving's bound is ⌊log₂ m⌋ >= Ldim(C) for the m concepts of C.  Each
    learner plays the tree from scratch.

    Parameters
    ----------
    concepts : ConceptClass
    learners : list of learners, optional
        Default: ``[Halving(C), SOA(C)]``.
    tree : MistakeTree, optional
        A mistake tree of depth Ldim(C) over C; default: the witness of
        ``littlestone_dimension(C, witness=True)``.

    Returns
    -------
    list of Demonstration
        One per learner: ``bound`` = Ldim(C); ``upper`` = SOA's Ldim(C) or Halving's
        ⌊log₂ m⌋ (m concepts) for the defaults; ``details``: ``game`` (the :class:`~mbcore.AdversaryGame`).

    Raises
    ------
    ValueError
        A tree over another class, or whose depth is not Ldim(C).

    Examples
    --------
    >>> from mbcore import ConceptClass, MistakeTree
    >>> C = ConceptClass.half_intervals(2)
    >>> tree = MistakeTree.from_nested((1, (0, 0, 1), (2, 2, 3)), C)
    >>> [(d.learner, d.mistakes, d.bound, d.upper, d.holds)
    ...  for d in ldim_demonstration(C, tree=tree)]
    [('Halving', 2, 2, 2, True), ('SOA', 2, 2, 2, True)]

    On the witness tree of the 256 monotone conjunctions of 8 variables (Ldim 8):

    >>> [(d.learner, d.mistakes, d.holds)
    ...  for d in ldim_demonstration(ConceptClass.monotone_conjunctions(8))]
    [('Halving', 8, True), ('SOA', 8, True)]
    """
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
