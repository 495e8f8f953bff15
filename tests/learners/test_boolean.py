"""Boolean concept learners: Conjunction, Disjunction, DecisionList, the PAC
learners most_specific_conjunction / greedy_decision_list, and the lower-bound adversary.

Sections
--------
1. Golden cases worked out by hand in the comments (never read from the code under test), run on
   both sides: Balcan's decision-list example (both level lists of the notes), lecture 7's A-D
   example, lecture 4's most specific conjunction, small conjunction / disjunction runs with the
   literals after every step, the inconsistency flag and the "raise" option.
2. Properties of the twin: mistake bounds on random targets and orders (Conjunction <= n + 1,
   monotone Disjunction <= n - r, DecisionList <= (4n + 2)(L + 1) with the level invariant of the
   notes), the duality Disjunction(literals="all") = Conjunction on flipped labels, online vs batch
   conjunction, the greedy list's guarantees, chunked calls = one call, fit = one pass.
3. The adversary: exactly n mistakes on Conjunction, Disjunction, DecisionList and Winnow (mbcore's
   and the twin's), and a target consistent with every label it gave.
4. Bad input: ValueError naming the row (non-Boolean values, NaN, inf) or the parameter,
   TypeError for non-numeric data, wrong width; all or nothing; inputs never modified.
5. Real data: MONK's 1-3, tic-tac-toe and mushrooms (boolean encodings), facts checked
   independently with NumPy (MONK's targets are known; mushrooms is not a conjunction but is a
   1-decision list; MONK-3's clean target is a 1-decision list of length 5).
6. Parity mbcore vs mbref: predictions and run_online records, every state attribute, PAC results,
   the adversary, chunked calls, many input layouts and label types, hypothesis streams.

The compiled classes are looked up when a test runs (not at collection), so while mbcore has no
``boolean`` module its cases fail and the mbref cases run.  Nothing is skipped.
"""

import copy
import importlib
import inspect
import itertools
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
import mbref.boolean as ref_boolean
from conftest import (as_list, chunk_bounds, csr_from_dense, run_isolated, run_record,
                      take_rows)

# CI runs this file on the debug build too (tests/README.md)
pytestmark = pytest.mark.checked

MODS = ("mbcore", "mbref")
mod_param = pytest.mark.parametrize("modname", MODS)
NAMES = ("Conjunction", "Disjunction", "DecisionList", "most_specific_conjunction",
         "greedy_decision_list", "GreedyDecisionList", "ConjunctionAdversary")


def bmod(modname):
    """The boolean module of a side, looked up at run time (a missing one fails the test)."""
    if modname == "mbref":
        return ref_boolean
    return importlib.import_module("mbcore.boolean")


def top(modname):
    return mbcore if modname == "mbcore" else mbref


def new(modname, name, **params):
    return getattr(bmod(modname), name)(**params)


def run_online(modname, clf, X, y, classes=None):
    return run_record(top(modname).run_online(clf, X, y, classes=classes))


def state(clf):
    """Everything observable about a fitted Boolean learner, as plain comparable values."""
    s = {"n_seen_": int(clf.n_seen_), "mistakes_": int(clf.mistakes_),
         "updates_": int(clf.updates_), "classes_": as_list(clf.classes_),
         "n_features_in_": int(clf.n_features_in_)}
    if type(clf).__name__ == "DecisionList":
        s["levels_"] = [int(v) for v in clf.levels_]
        s["level_lists"] = [[str(r) for r in lvl] for lvl in clf.level_lists()]
    else:
        s["positive_"] = [bool(v) for v in clf.positive_]
        s["negative_"] = [bool(v) for v in clf.negative_]
        s["literals_"] = [str(v) for v in clf.literals_]
        s["inconsistent_"] = bool(clf.inconsistent_)
        s["n_inconsistent_"] = int(clf.n_inconsistent_)
    return s


def frozen(clf):
    return copy.deepcopy(state(clf))


def rules(g):
    return [(str(a), as_list(b)) for a, b in g.rules_]


def canon(v):
    return as_list(v)


# ------------------------------------------------------------------------------------------------
# Streams and targets
# ------------------------------------------------------------------------------------------------


def rand_X(rng, m, n, p=0.5):
    return (rng.random((m, n)) < p).astype(np.uint8)


def random_conjunction(rng, n):
    """A literal set: lits[i] in {None, 1 (x_i), 0 (~x_i)}."""
    return [rng.choice([None, None, 1, 0]) for _ in range(n)]


def conj_stream(rng, m, n, lits, pos_frac=0.5):
    """Rows half drawn from the satisfying assignments, labelled by the conjunction (0/1)."""
    X = rand_X(rng, m, n)
    for t in range(m):
        if rng.random() < pos_frac:
            for i, v in enumerate(lits):
                if v is not None:
                    X[t, i] = v
    y = np.array([int(all(v is None or X[t, i] == v for i, v in enumerate(lits)))
                  for t in range(m)], dtype=np.int64)
    return X, y


def disj_stream(rng, m, n, S, neg_frac=0.5):
    X = rand_X(rng, m, n)
    for t in range(m):
        if rng.random() < neg_frac:
            X[t, list(S)] = 0
    y = (X[:, list(S)].sum(axis=1) > 0).astype(np.int64) if S else np.zeros(m, np.int64)
    return X, y


def random_dlist(rng, n, k):
    """k rules (i, s, b): literal x_i (s = 0) or ~x_i (s = 1) -> b, then the default b."""
    body = [(int(rng.integers(n)), int(rng.integers(2)), int(rng.integers(2))) for _ in range(k)]
    return body, int(rng.integers(2))


def eval_dlist(dl, x):
    body, default = dl
    for i, s, b in body:
        if (x[i] == 1) == (s == 0):
            return b
    return default


def dl_stream(rng, m, n, dl):
    X = rand_X(rng, m, n)
    y = np.array([eval_dlist(dl, x) for x in X], dtype=np.int64)
    return X, y


def dl_rule_index(i, s, b):
    """Index of the rule (x_i -> b) / (~x_i -> b) in the learner's fixed order."""
    return 4 * i + 2 * s + b


# ================================================================================================
# 1. Golden cases
# ================================================================================================

# Balcan §2.2, n = 2 (the notes' x1, x2 are our x0, x1), rules in order
#   0 x0->0, 1 x0->1, 2 ~x0->0, 3 ~x0->1, 4 x1->0, 5 x1->1, 6 ~x1->0, 7 ~x1->1, 8 T->0, 9 T->1.
# a) 01 labelled 0.  Firing at level 0: ~x0->0, ~x0->1, x1->0, x1->1, T->0, T->1: a 3-3 tie ->
#    predict 1, wrong: the firing ->1 rules ~x0->1, x1->1, T->1 go to level 1.  The notes' lists:
#    {x1=>T, x1=>F, ~x1=>F, x2=>F, ~x2=>T, ~x2=>F, T=>F}, else {~x1=>T, x2=>T, T=>T}.
# b) 00 labelled 1.  Firing: ~x0->0 (L0), ~x0->1 (L1), ~x1->0 (L0), ~x1->1 (L0), T->0 (L0),
#    T->1 (L1).  Level 0: three ->0 against one ->1 -> predict 0, wrong: ~x0->0, ~x1->0, T->0 go
#    to level 1.  The notes: {x1=>T, x1=>F, x2=>F, ~x2=>T}, else {~x1=>T, ~x1=>F, x2=>T, ~x2=>F,
#    T=>T, T=>F}.
# Going on with the notes' target (x0 -> 0, else ~x1 -> 1, else 0):
# c) 10 labelled 0.  Level 0 firing: x0->0, x0->1, ~x1->1 -> 2 against 1 -> predict 1, wrong:
#    x0->1 and ~x1->1 go to level 1.  Level 0 = {x0->0, x1->0}.
# d) 00 labelled 1.  No level-0 rule fires (x0->0 needs x0 = 1, x1->0 needs x1 = 1).  Level 1
#    firing: ~x0->0, ~x0->1, ~x1->0, ~x1->1, T->0, T->1: a tie -> 1, right.
# e) 11 labelled 0.  Level 0 firing: x0->0, x1->0 -> predict 0, right.
# f) 01 labelled 0.  Level 0 firing: x1->0 -> 0, right.
BALCAN_X = np.array([[0, 1], [0, 0], [1, 0], [0, 0], [1, 1], [0, 1]], dtype=np.uint8)
BALCAN_Y = [0, 1, 0, 1, 0, 0]
BALCAN_PRED = [1, 0, 1, 1, 0, 0]
BALCAN_LISTS = [
    [["x0->0", "x0->1", "~x0->0", "x1->0", "~x1->0", "~x1->1", "T->0"],
     ["~x0->1", "x1->1", "T->1"]],
    [["x0->0", "x0->1", "x1->0", "~x1->1"],
     ["~x0->0", "~x0->1", "x1->1", "~x1->0", "T->0", "T->1"]],
    [["x0->0", "x1->0"],
     ["x0->1", "~x0->0", "~x0->1", "x1->1", "~x1->0", "~x1->1", "T->0", "T->1"]],
]
BALCAN_LEVELS = [[0, 0, 0, 1, 0, 1, 0, 0, 0, 1],
                 [0, 0, 1, 1, 0, 1, 1, 0, 1, 1],
                 [0, 1, 1, 1, 0, 1, 1, 1, 1, 1]]
# decision_function is h(x): 1.0 where the prediction is positive, else 0.0.
BALCAN_SCORES = [float(p) for p in BALCAN_PRED]


@mod_param
def test_balcan_decision_list_example(modname):
    clf = new(modname, "DecisionList")
    for t in range(6):
        row = BALCAN_X[t:t + 1]
        if t:
            assert canon(clf.decision_function(row)) == [BALCAN_SCORES[t]], t
            assert canon(clf.predict(row)) == [BALCAN_PRED[t]], t
        rec = run_online(modname, clf, row, BALCAN_Y[t:t + 1], classes=[0, 1] if t == 0 else None)
        assert rec["predictions"] == [BALCAN_PRED[t]], t
        assert rec["updated"] == [BALCAN_PRED[t] != BALCAN_Y[t]], t
        s = state(clf)
        k = min(t, 2)
        assert s["level_lists"] == BALCAN_LISTS[k], t
        assert s["levels_"] == BALCAN_LEVELS[k], t
    assert (clf.n_seen_, clf.mistakes_, clf.updates_) == (6, 3, 3)
    assert canon(clf.predict(BALCAN_X)) == BALCAN_Y     # the target is learnt on these points


@mod_param
def test_balcan_decision_list_whole_batch(modname):
    clf = new(modname, "DecisionList")
    rec = run_online(modname, clf, BALCAN_X[:2], BALCAN_Y[:2], classes=[0, 1])
    assert rec["predictions"] == [1, 0] and rec["mistake_curve"] == [1, 2]
    assert state(clf)["level_lists"] == BALCAN_LISTS[1]
    # as -1/+1 labels and a bool array: the same run
    clf = new(modname, "DecisionList")
    rec = run_online(modname, clf, BALCAN_X.astype(bool), [-1, 1, -1, 1, -1, -1])
    assert rec["predictions"] == [1, -1, 1, 1, -1, -1]
    assert state(clf)["level_lists"] == BALCAN_LISTS[2]


@mod_param
def test_decision_list_initial_state_and_names(modname):
    """n = 3: 14 rules at level 0; the first prediction is the 4-4 tie -> positive."""
    clf = new(modname, "DecisionList")
    rec = run_online(modname, clf, np.array([[1, 0, 1]]), [1], classes=[0, 1])
    assert rec["predictions"] == [1] and rec["mistakes"] == 0
    assert state(clf)["levels_"] == [0] * 14
    assert state(clf)["level_lists"] == [["x0->0", "x0->1", "~x0->0", "~x0->1", "x1->0", "x1->1",
                                          "~x1->0", "~x1->1", "x2->0", "x2->1", "~x2->0",
                                          "~x2->1", "T->0", "T->1"]]


@mod_param
def test_decision_list_empty_intermediate_level(modname):
    """n = 1.  1 labelled 0: firing x0->0, x0->1, T->0, T->1 (tie -> 1, wrong) -> x0->1, T->1 to
    level 1.  1 labelled 1: level 0 firing x0->0, T->0 -> 0, wrong -> both to level 1; level 0
    keeps ~x0->0, ~x0->1.  1 labelled 0: no level-0 rule fires; level 1 firing: x0->0, x0->1,
    T->0, T->1: tie -> 1, wrong -> x0->1, T->1 to level 2.  0 labelled 1: level 0 firing ~x0->0,
    ~x0->1: tie -> 1 right.  0 labelled 0: tie -> 1 wrong -> ~x0->1 to level 1."""
    clf = new(modname, "DecisionList")
    rec = run_online(modname, clf, np.array([[1], [1], [1], [0], [0]]), [0, 1, 0, 1, 0],
                     classes=[0, 1])
    assert rec["predictions"] == [1, 0, 1, 1, 1]
    assert state(clf)["levels_"] == [1, 2, 0, 1, 1, 2]
    assert state(clf)["level_lists"] == [["~x0->0"], ["x0->0", "~x0->1", "T->0"],
                                         ["x0->1", "T->1"]]
    # a level can become empty: 0 labelled 1 now fires ~x0->0 alone at level 0 -> 0, wrong ->
    # ~x0->0 to level 1, and level 0 is empty
    run_online(modname, clf, np.array([[0]]), [1])
    assert state(clf)["level_lists"] == [[], ["x0->0", "~x0->0", "~x0->1", "T->0"],
                                         ["x0->1", "T->1"]]
    assert state(clf)["levels_"] == [1, 2, 1, 1, 1, 2]


# Angluin lecture 7, examples A-D over x_1..x_4 (our x0..x3), - = 0, + = 1:
#   A 0010 -, B 0011 +, C 0110 -, D 0000 +.
# Greedy, literals in the order x0, ~x0, x1, ~x1, x2, ~x2, x3, ~x3:
#   x0 is true on nothing; ~x0 on all four (mixed); x1 on C only (-) -> (x1 -> 0), drop C.
#   Left A-, B+, D+: x0, ~x0 (mixed), x1 (nothing), ~x1 (mixed), x2 on A-, B+ (mixed),
#   ~x2 on D only (+) -> (~x2 -> 1), drop D.
#   Left A-, B+: ... x2 mixed, ~x2 nothing, x3 on B only -> (x3 -> 1), drop B.
#   Left A- alone: one label -> (T -> 0).
# The notes' own list (x4 -> 1, x3 -> 0, else 1) is also consistent: B by x3; A, C by x2; D by T.
L7_X = np.array([[0, 0, 1, 0], [0, 0, 1, 1], [0, 1, 1, 0], [0, 0, 0, 0]], dtype=np.uint8)
L7_Y = [0, 1, 0, 1]
L7_RULES = [("x1", 0), ("~x2", 1), ("x3", 1), ("T", 0)]


@mod_param
def test_lecture7_greedy_decision_list(modname):
    g = bmod(modname).greedy_decision_list(L7_X, L7_Y)
    assert type(g).__name__ == "GreedyDecisionList"
    assert rules(g) == L7_RULES
    assert bool(g.consistent_) is True
    assert canon(g.predict(L7_X)) == L7_Y
    # the notes' list, evaluated by hand-written code, is consistent too (data transcribed right)
    notes = ([(3, 0, 1), (2, 0, 0)], 1)
    assert [eval_dlist(notes, x) for x in L7_X] == L7_Y
    # labels as strings: the rules carry the labels themselves
    g = bmod(modname).greedy_decision_list(L7_X, ["neg", "pos", "neg", "pos"])
    assert rules(g) == [("x1", "neg"), ("~x2", "pos"), ("x3", "pos"), ("T", "neg")]
    assert as_list(g.classes_) == ["neg", "pos"] and int(g.n_features_in_) == 4
    assert canon(g.predict(np.array([[0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))) == \
        ["neg", "pos", "neg"]
    # -1/+1 labels
    g = bmod(modname).greedy_decision_list(L7_X, [-1, 1, -1, 1])
    assert rules(g) == [("x1", -1), ("~x2", 1), ("x3", 1), ("T", -1)]


@mod_param
def test_greedy_terminal_cases(modname):
    f = bmod(modname).greedy_decision_list
    # all one label: the list is the default alone
    g = f(np.array([[1, 0], [0, 1]]), [1, 1], classes=[0, 1])
    assert rules(g) == [("T", 1)] and bool(g.consistent_) is True
    g = f(np.array([[1, 0]]), [0], classes=[0, 1])
    assert rules(g) == [("T", 0)]
    # the same point with both labels: no literal qualifies; majority of the 3 left (1, 0, 1) = 1
    g = f(np.array([[1, 0], [1, 0], [1, 0]]), [1, 0, 1])
    assert rules(g) == [("T", 1)] and bool(g.consistent_) is False
    # a 1-1 tie among the remaining -> 1
    g = f(np.array([[1, 0], [1, 0]]), [0, 1])
    assert rules(g) == [("T", 1)] and bool(g.consistent_) is False
    # progress, then stuck: 11 -> 1, 10 -> 0, 10 -> 1, 00 -> 0.  x0 is true on 11, 10, 10 (mixed);
    # ~x0 on 00 only (0) -> (~x0 -> 0); left 11 (1), 10 (0), 10 (1): x0 mixed, ~x0 nothing,
    # x1 on 11 only (1) -> (x1 -> 1); left 10 (0), 10 (1): nothing qualifies -> tie -> (T, 1)
    g = f(np.array([[1, 1], [1, 0], [1, 0], [0, 0]]), [1, 0, 1, 0])
    assert rules(g) == [("~x0", 0), ("x1", 1), ("T", 1)] and bool(g.consistent_) is False
    assert canon(g.predict(np.array([[1, 1], [1, 0], [1, 0], [0, 0]]))) == [1, 1, 1, 0]


# Angluin lecture 4: x1..x5 (our x0..x4); 10110 -, 11010 +, 01101 -, 11000 +.  The positives agree
# on x1 = 1, x2 = 1, x3 = 0, x5 = 0: h = x1 x2 ~x3 ~x5 = ["x0", "x1", "~x2", "~x4"].  Neither
# negative satisfies it (x2 = 0 in the first, x1 = 0 in the third).
L4_X = np.array([[1, 0, 1, 1, 0], [1, 1, 0, 1, 0], [0, 1, 1, 0, 1], [1, 1, 0, 0, 0]])
L4_Y = [0, 1, 0, 1]


@mod_param
def test_lecture4_most_specific_conjunction(modname):
    c = bmod(modname).most_specific_conjunction(L4_X, L4_Y)
    assert type(c).__name__ == "Conjunction"
    s = state(c)
    assert s["literals_"] == ["x0", "x1", "~x2", "~x4"]
    assert s["positive_"] == [True, True, False, False, False]
    assert s["negative_"] == [False, False, True, False, True]
    assert (s["inconsistent_"], s["n_inconsistent_"]) == (False, 0)
    assert (s["n_seen_"], s["mistakes_"], s["updates_"]) == (4, 0, 0)
    assert canon(c.predict(L4_X)) == L4_Y
    # two negative copies of 11010 satisfy h (inconsistent, 2); the negative 11100 does not
    c = bmod(modname).most_specific_conjunction(
        np.vstack([L4_X, [[1, 1, 0, 1, 0], [1, 1, 0, 1, 0], [1, 1, 1, 0, 0]]]), L4_Y + [0, 0, 0])
    assert (bool(c.inconsistent_), int(c.n_inconsistent_)) == (True, 2)
    # no positive example: all 2n literals
    c = bmod(modname).most_specific_conjunction(np.array([[0, 1]]), [0], classes=[0, 1])
    assert state(c)["literals_"] == ["x0", "~x0", "x1", "~x1"]
    assert not c.inconsistent_
    # it goes on online
    run_online(modname, c, np.array([[1, 0]]), [1])
    assert state(c)["literals_"] == ["x0", "~x1"] and c.mistakes_ == 1


# Conjunction, n = 3, worked by hand (literals after each step):
#  1. 101 y=1: h = all literals -> 0, FN: drop the literals false on 101: ~x0, x1, ~x2
#                                            -> x0 ~x1 x2
#  2. 111 y=1: ~x1 false -> 0, FN: drop ~x1 -> x0 x2
#  3. 001 y=0: x0 false -> 0, right.   4. 101 y=1: 1, right.   5. 100 y=0: x2 false -> 0, right.
#  6. 111 y=0: 1 -> false positive: no consistent conjunction; h unchanged.
CONJ_X = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 0, 1], [1, 0, 0], [1, 1, 1]])
CONJ_Y = [1, 1, 0, 1, 0, 0]
CONJ_PRED = [0, 0, 0, 1, 0, 1]
CONJ_LITS = [["x0", "~x1", "x2"], ["x0", "x2"], ["x0", "x2"], ["x0", "x2"], ["x0", "x2"],
             ["x0", "x2"]]


@mod_param
def test_conjunction_by_hand(modname):
    clf = new(modname, "Conjunction")
    for t in range(6):
        rec = run_online(modname, clf, CONJ_X[t:t + 1], CONJ_Y[t:t + 1],
                         classes=[0, 1] if t == 0 else None)
        assert rec["predictions"] == [CONJ_PRED[t]], t
        assert state(clf)["literals_"] == CONJ_LITS[t], t
        assert state(clf)["inconsistent_"] is (t == 5), t
    s = state(clf)
    assert s["positive_"] == [True, False, True] and s["negative_"] == [False, False, False]
    assert (s["mistakes_"], s["updates_"], s["n_seen_"], s["n_inconsistent_"]) == (3, 2, 6, 1)
    assert canon(clf.decision_function(np.array([[1, 0, 1], [0, 1, 1]]))) == [1.0, 0.0]
    # the same stream in one call, and once more: the flag counts every false positive
    clf = new(modname, "Conjunction")
    rec = run_online(modname, clf, CONJ_X, CONJ_Y)
    assert rec["predictions"] == CONJ_PRED and rec["updated"] == [True, True] + [False] * 4
    run_online(modname, clf, CONJ_X, CONJ_Y)
    assert (clf.mistakes_, clf.updates_, clf.n_inconsistent_) == (4, 2, 2)


@mod_param
def test_balcan_conjunction_first_mistake(modname):
    """Balcan §2.1: 'if the first mistake is on 1001, the new h will be x1 ~x2 ~x3 x4'."""
    clf = new(modname, "Conjunction").partial_fit(np.array([[1, 0, 0, 1]]), [1], classes=[0, 1])
    assert state(clf)["literals_"] == ["x0", "~x1", "~x2", "x3"]
    assert clf.mistakes_ == 1


@mod_param
def test_conjunction_raise(modname):
    clf = new(modname, "Conjunction", on_inconsistent="raise")
    msg = r"no consistent conjunction: row 5 is labelled negative but satisfies the hypothesis"
    with pytest.raises(ValueError, match=msg):
        clf.partial_fit(CONJ_X, CONJ_Y)
    with pytest.raises(top(modname).NotFittedError):
        clf.predict(CONJ_X)                           # the failed first call left it unfitted
    clf.partial_fit(CONJ_X[:5], CONJ_Y[:5])
    before = frozen(clf)
    for call in (lambda: clf.partial_fit(CONJ_X[3:], CONJ_Y[3:]),
                 lambda: top(modname).run_online(clf, CONJ_X[3:], CONJ_Y[3:])):
        with pytest.raises(ValueError, match=msg.replace("row 5", "row 2")):
            call()
        assert frozen(clf) == before
    assert before["literals_"] == ["x0", "x2"] and before["inconsistent_"] is False
    with pytest.raises(ValueError, match="Conjunction: no consistent conjunction"):
        new(modname, "Conjunction", on_inconsistent="raise").fit(CONJ_X, CONJ_Y)
    # switching to "flag" lets the run go on
    clf.set_params(on_inconsistent="flag")
    clf.partial_fit(CONJ_X[5:], CONJ_Y[5:])
    assert (clf.inconsistent_, clf.n_inconsistent_, clf.mistakes_) == (True, 1, 3)


# Monotone Disjunction, n = 4:  h = x0 v x1 v x2 v x3
#  1. 0110 y=0: 1, FP: drop x1, x2 -> x0 x3.   2. 1000 y=1: 1 right.
#  3. 0001 y=0: 1, FP: drop x3 -> x0.          4. 0100 y=0: 0 right.
#  5. 0000 y=1: 0 -> false negative: no consistent disjunction (flag).
DISJ_X = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]])
DISJ_Y = [0, 1, 0, 0, 1]
DISJ_PRED = [1, 1, 1, 0, 0]
DISJ_LITS = [["x0", "x3"], ["x0", "x3"], ["x0"], ["x0"], ["x0"]]

# Disjunction(literals="all"), n = 2:  h = x0 v ~x0 v x1 v ~x1 (1 everywhere)
#  1. 10 y=0: FP: drop the literals true on 10: x0, ~x1 -> ~x0 x1.
#  2. 00 y=1: ~x0 -> 1 right.  3. 01 y=1: 1 right.
#  4. 11 y=0: x1 -> 1, FP: drop x1 (and x0, already out) -> ~x0.
#  5. 10 y=0: 0 right.         6. 11 y=1: 0 -> false negative (flag).
DALL_X = np.array([[1, 0], [0, 0], [0, 1], [1, 1], [1, 0], [1, 1]])
DALL_Y = [0, 1, 1, 0, 0, 1]
DALL_PRED = [1, 1, 1, 1, 0, 0]
DALL_LITS = [["~x0", "x1"], ["~x0", "x1"], ["~x0", "x1"], ["~x0"], ["~x0"], ["~x0"]]


@mod_param
def test_disjunction_by_hand(modname):
    clf = new(modname, "Disjunction")
    for t in range(5):
        rec = run_online(modname, clf, DISJ_X[t:t + 1], DISJ_Y[t:t + 1],
                         classes=[0, 1] if t == 0 else None)
        assert rec["predictions"] == [DISJ_PRED[t]], t
        assert state(clf)["literals_"] == DISJ_LITS[t], t
    s = state(clf)
    assert s["positive_"] == [True, False, False, False] and s["negative_"] == [False] * 4
    assert (s["mistakes_"], s["updates_"], s["inconsistent_"], s["n_inconsistent_"]) == \
        (3, 2, True, 1)
    clf = new(modname, "Disjunction", literals="all")
    for t in range(6):
        rec = run_online(modname, clf, DALL_X[t:t + 1], DALL_Y[t:t + 1],
                         classes=[0, 1] if t == 0 else None)
        assert rec["predictions"] == [DALL_PRED[t]], t
        assert state(clf)["literals_"] == DALL_LITS[t], t
    s = state(clf)
    assert s["positive_"] == [False, False] and s["negative_"] == [True, False]
    assert (s["mistakes_"], s["updates_"], s["n_inconsistent_"]) == (3, 2, 1)
    # raise
    clf = new(modname, "Disjunction", on_inconsistent="raise")
    with pytest.raises(ValueError, match=r"Disjunction: no consistent disjunction: row 4 is "
                                         r"labelled positive but falsifies the hypothesis"):
        clf.partial_fit(DISJ_X, DISJ_Y)
    clf.partial_fit(DISJ_X[:4], DISJ_Y[:4])
    assert state(clf)["literals_"] == ["x0"] and clf.inconsistent_ is not True


@mod_param
def test_initial_hypotheses(modname):
    """Before any update: Conjunction is 0 everywhere, Disjunction 1 everywhere (monotone: on
    every non-zero row; the zero row gives 0)."""
    X = np.array(list(itertools.product([0, 1], repeat=3)))
    c = new(modname, "Conjunction").partial_fit(X[:1], [0], classes=[0, 1])
    assert canon(c.predict(X)) == [0] * 8
    assert state(c)["literals_"] == ["x0", "~x0", "x1", "~x1", "x2", "~x2"]
    d = new(modname, "Disjunction").partial_fit(X[1:2], [1], classes=[0, 1])
    assert canon(d.predict(X)) == [0] + [1] * 7
    assert state(d)["literals_"] == ["x0", "x1", "x2"] and state(d)["negative_"] == [False] * 3
    d = new(modname, "Disjunction", literals="all").partial_fit(X[:1], [1], classes=[0, 1])
    assert canon(d.predict(X)) == [1] * 8


# ================================================================================================
# 2. Properties of the twin: bounds, invariants, dualities
# ================================================================================================


@pytest.mark.parametrize("seed", range(40))
def test_conjunction_bound_random_targets(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 13))
    lits = random_conjunction(rng, n)
    X, y = conj_stream(rng, 150, n, lits)
    clf = ref_boolean.Conjunction(on_inconsistent="raise")
    rec = mbref.run_online(clf, X, y, classes=[0, 1])
    assert rec.mistakes <= n + 1
    assert not clf.inconsistent_ and clf.n_inconsistent_ == 0
    # invariant: every target literal is still in h; every positive seen satisfies h
    for i, v in enumerate(lits):
        if v == 1:
            assert clf.positive_[i]
        elif v == 0:
            assert clf.negative_[i]
    assert all(p == 1 for p, t in zip(clf.predict(X), y) if t == 1)
    # only false negatives are mistakes, each an update
    assert rec.updates == rec.mistakes


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_conjunction_bound_attained(n):
    """Target: the empty conjunction (always 1).  0...0 first (h -> ~x0 .. ~x{n-1}), then each
    unit vector e_i removes ~x_i alone: n + 1 mistakes, the bound."""
    X = np.vstack([np.zeros((1, n), np.uint8), np.eye(n, dtype=np.uint8)])
    clf = ref_boolean.Conjunction().partial_fit(X, np.ones(n + 1, np.int64), classes=[0, 1])
    assert clf.mistakes_ == n + 1 and clf.literals_ == []


@pytest.mark.parametrize("seed", range(40))
def test_monotone_disjunction_bound_random_targets(seed):
    rng = np.random.default_rng(seed + 100)
    n = int(rng.integers(1, 13))
    r = int(rng.integers(0, n + 1))
    S = sorted(rng.choice(n, size=r, replace=False).tolist())
    X, y = disj_stream(rng, 150, n, S)
    clf = ref_boolean.Disjunction(on_inconsistent="raise")
    rec = mbref.run_online(clf, X, y, classes=[0, 1])
    assert rec.mistakes <= n - r
    assert all(clf.positive_[i] for i in S)               # target variables are never removed
    assert clf.negative_ == [False] * n


@pytest.mark.parametrize("n", [1, 4, 8])
def test_monotone_disjunction_bound_attained(n):
    """Target x0 (r = 1): the unit vectors e_1..e_{n-1} labelled 0 each remove one variable."""
    X = np.eye(n, dtype=np.uint8)[1:]
    clf = ref_boolean.Disjunction()
    rec = mbref.run_online(clf, X if n > 1 else np.zeros((1, 1), np.uint8),
                           [0] * max(n - 1, 1), classes=[0, 1])
    assert rec.mistakes == n - 1
    assert clf.literals_ == ["x0"]


@pytest.mark.parametrize("seed", range(20))
def test_disjunction_all_is_the_dual_of_conjunction(seed):
    """h_disj over literal set S = NOT h_conj over the negated literals: on flipped labels the
    two runs mirror each other step by step (predictions complemented, positive_ <-> negative_),
    on any stream, consistent or not."""
    rng = np.random.default_rng(seed + 200)
    n = int(rng.integers(1, 8))
    X = rand_X(rng, 60, n)
    y = rng.integers(0, 2, size=60)
    d = ref_boolean.Disjunction(literals="all")
    c = ref_boolean.Conjunction()
    rd = mbref.run_online(d, X, y, classes=[0, 1])
    rc = mbref.run_online(c, X, 1 - y, classes=[0, 1])
    assert rd.predictions == [1 - p for p in rc.predictions]
    assert rd.updated == rc.updated
    assert d.positive_ == c.negative_ and d.negative_ == c.positive_
    assert d.n_inconsistent_ == c.n_inconsistent_


@pytest.mark.parametrize("seed", range(20))
def test_disjunction_all_bound(seed):
    """A disjunction of literals as target: at most n + 1 mistakes (the dual of the conjunction
    bound)."""
    rng = np.random.default_rng(seed + 300)
    n = int(rng.integers(1, 10))
    lits = random_conjunction(rng, n)
    X, yc = conj_stream(rng, 150, n, lits)       # y = 1 - conj(x) is a disjunction of literals
    clf = ref_boolean.Disjunction(literals="all", on_inconsistent="raise")
    rec = mbref.run_online(clf, X, 1 - yc, classes=[0, 1])
    assert rec.mistakes <= n + 1


@pytest.mark.parametrize("seed", range(40))
def test_decision_list_bound_and_level_invariant(seed):
    """Target: k literal rules + a default, L = k + 1 rules.  Mistakes <= (4n + 2)(L + 1), and
    the j-th rule of the target (0-based) never sits below level j (Balcan's invariant); several
    passes over the data end with a clean pass."""
    rng = np.random.default_rng(seed + 400)
    n = int(rng.integers(1, 9))
    k = int(rng.integers(0, 6))
    dl = random_dlist(rng, n, k)
    X, y = dl_stream(rng, 120, n, dl)
    clf = ref_boolean.DecisionList()
    target_rules = [dl_rule_index(i, s, b) for i, s, b in dl[0]] + [4 * n + dl[1]]
    total = 0
    for epoch in range(50):
        for a, b in chunk_bounds(len(y), 13):
            rec = mbref.run_online(clf, X[a:b], y[a:b], classes=[0, 1])
            total += rec.mistakes
            lv = clf.levels_
            for j, r in enumerate(target_rules):
                assert lv[r] <= j, (epoch, j)
        if clf.predict(X) == y.tolist():
            break
    else:
        raise AssertionError("no clean pass")
    assert total <= (4 * n + 2) * (k + 2)
    assert clf.updates_ == clf.mistakes_ == total


@pytest.mark.parametrize("seed", range(15))
def test_online_conjunction_equals_most_specific(seed):
    """After one online pass (flag mode) h is the most specific conjunction of the positives:
    every positive predicted 1 already satisfied h, and h only shrinks.  A negative flagged online
    satisfied a larger literal set, so it satisfies the final h too: n_inconsistent online <=
    batch."""
    rng = np.random.default_rng(seed + 500)
    n = int(rng.integers(1, 9))
    X = rand_X(rng, 80, n, p=0.7)
    y = rng.integers(0, 2, size=80)
    on = ref_boolean.Conjunction().partial_fit(X, y, classes=[0, 1])
    b = ref_boolean.most_specific_conjunction(X, y, classes=[0, 1])
    assert on.positive_ == b.positive_ and on.negative_ == b.negative_
    assert on.n_inconsistent_ <= b.n_inconsistent_
    # the batch flag, checked with NumPy: the negatives that satisfy h
    pos, neg = np.array(b.positive_), np.array(b.negative_)
    sat = ((X[:, pos] == 1).all(axis=1)) & ((X[:, neg] == 0).all(axis=1))
    assert b.n_inconsistent_ == int((sat & (y == 0)).sum())
    assert b.inconsistent_ == bool((sat & (y == 0)).any())
    assert (b.mistakes_, b.updates_, b.n_seen_) == (0, 0, 80)


def check_greedy(g, X, y):
    """Independent check of a greedy list (NumPy): replay the rules, the examples each takes, and
    what consistent_ claims.  y: 0/1 (1 = classes_[1])."""
    X = np.asarray(X)
    y = np.asarray(y)
    alive = np.ones(len(y), dtype=bool)
    pos_label = as_list(g.classes_)[1]
    rs = [(a, int(b == pos_label)) for a, b in rules(g)]
    for name, b in rs[:-1]:
        neg = name.startswith("~")
        i = int(name.lstrip("~x"))
        hit = alive & ((X[:, i] == 0) if neg else (X[:, i] == 1))
        assert hit.any(), name                            # true on some remaining example
        assert (y[hit] == b).all(), name                  # all of one label
        alive &= ~hit
    assert rs[-1][0] == "T"
    left = y[alive]
    if bool(g.consistent_):
        assert len(left) and (left == rs[-1][1]).all()
        pred = np.array(as_list(g.predict(X)))
        assert ((pred == pos_label).astype(int) == y).all()
    else:
        assert len(set(left.tolist())) == 2
        for i in range(X.shape[1]):                      # no literal qualifies
            for lit in (X[alive, i] == 1, X[alive, i] == 0):
                assert not lit.any() or len(set(left[lit].tolist())) == 2
        assert rs[-1][1] == int(2 * left.sum() >= len(left))


@pytest.mark.parametrize("seed", range(30))
def test_greedy_decision_list_properties(seed):
    rng = np.random.default_rng(seed + 600)
    n = int(rng.integers(1, 9))
    dl = random_dlist(rng, n, int(rng.integers(0, 6)))
    X, y = dl_stream(rng, 60, n, dl)
    g = ref_boolean.greedy_decision_list(X, y, classes=[0, 1])
    assert g.consistent_ is True                    # a consistent 1-DL exists (lecture 7)
    check_greedy(g, X, y)
    Xr = rand_X(rng, 40, n)
    yr = rng.integers(0, 2, size=40)
    check_greedy(ref_boolean.greedy_decision_list(Xr, yr, classes=[0, 1]), Xr, yr)


@pytest.mark.parametrize("name,params", [("Conjunction", {}), ("Disjunction", {}),
                                         ("Disjunction", {"literals": "all"}),
                                         ("DecisionList", {})])
@pytest.mark.parametrize("chunking", [1, 7, "random"])
def test_chunked_equals_one_call(name, params, chunking):
    rng = np.random.default_rng(7)
    X = rand_X(rng, 90, 6, p=0.6)
    y = rng.integers(0, 2, size=90)
    whole = getattr(ref_boolean, name)(**params)
    rw = mbref.run_online(whole, X, y, classes=[0, 1])
    parts = getattr(ref_boolean, name)(**params)
    preds = []
    for k, (a, b) in enumerate(chunk_bounds(90, chunking, seed=3)):
        preds += mbref.run_online(parts, X[a:b], y[a:b],
                                  classes=[0, 1] if k == 0 else None).predictions
    assert preds == rw.predictions
    assert state(parts) == state(whole)
    # fit = forget, then passes until one without an update (or max_epochs); fit twice = once
    f = getattr(ref_boolean, name)(**params).fit(X, y)
    manual = getattr(ref_boolean, name)(**params)
    ups = []
    for _ in range(100):
        u0 = manual.updates_ if ups else 0
        manual.partial_fit(X, y, classes=[0, 1])
        ups.append(manual.updates_ - u0)
        if ups[-1] == 0:
            break
    assert state(f) == state(manual)
    assert f.converged_ is (ups[-1] == 0) and f.n_iter_ == len(ups) and f.epoch_updates_ == ups
    if name != "DecisionList":                      # elimination: pass 2 never updates
        assert ups[1:] == [0] and f.literals_ == whole.literals_
    f.fit(X, y)
    assert state(f) == state(manual)
    g = getattr(ref_boolean, name)(max_epochs=1, **params).fit(X, y)
    assert state(g) == state(whole) and g.n_iter_ == 1


@mod_param
def test_copy_and_pickle_resume_identically(modname):
    rng = np.random.default_rng(8)
    X = rand_X(rng, 60, 5)
    y = rng.integers(0, 2, size=60)
    for name, params in (("Conjunction", {}), ("Disjunction", {"literals": "all"}),
                         ("DecisionList", {})):
        a = new(modname, name, **params).partial_fit(X[:30], y[:30], classes=[0, 1])
        for b in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
            assert state(b) == state(a)
            rb = run_online(modname, b, X[30:], y[30:])
            ra = run_online(modname, copy.deepcopy(a), X[30:], y[30:])
            assert rb == ra
        c = new(modname, name, **params).partial_fit(X, y, classes=[0, 1])
        a.partial_fit(X[30:], y[30:])
        assert state(a) == state(c)


@mod_param
def test_params_and_not_fitted(modname):
    m = bmod(modname)
    packing = {"packed": False, "n_features": None}
    assert m.Conjunction().get_params() == {"on_inconsistent": "flag", "max_epochs": 100,
                                            **packing}
    assert m.Disjunction().get_params() == {"literals": "monotone", "on_inconsistent": "flag",
                                            "max_epochs": 100, **packing}
    assert m.DecisionList().get_params() == {"max_epochs": 100, **packing}
    NF = top(modname).NotFittedError
    X = np.array([[1, 0]])
    for clf in (m.Conjunction(), m.Disjunction(), m.DecisionList()):
        with pytest.raises(NF):
            clf.predict(X)
        with pytest.raises(NF):
            clf.decision_function(X)
        with pytest.raises(NF):
            clf.mistakes_
        attrs = ("levels_",) if type(clf).__name__ == "DecisionList" else (
            "positive_", "negative_", "literals_", "inconsistent_", "n_inconsistent_")
        for a in attrs:
            with pytest.raises(NF):
                getattr(clf, a)
        if type(clf).__name__ == "DecisionList":
            with pytest.raises(NF):
                clf.level_lists()
            with pytest.raises(NF):
                clf.rule_names()


# ================================================================================================
# 3. The adversary
# ================================================================================================

def adversary_learners():
    return [
        ("mbref.Conjunction", lambda: ref_boolean.Conjunction()),
        ("mbref.Conjunction(raise)", lambda: ref_boolean.Conjunction(on_inconsistent="raise")),
        ("mbref.Disjunction", lambda: ref_boolean.Disjunction()),
        ("mbref.DecisionList", lambda: ref_boolean.DecisionList()),
        ("mbref.Winnow", lambda: mbref.Winnow()),
        ("mbcore.Winnow", lambda: mbcore.Winnow()),
        ("mbcore.EliminationWinnow", lambda: mbcore.EliminationWinnow()),
        ("mbcore.Perceptron", lambda: mbcore.Perceptron()),
        # predict uses the average, the online prediction the current vector: the adversary
        # must label against the online one (what mistakes_ counts)
        ("mbcore.AveragedPerceptron", lambda: mbcore.AveragedPerceptron()),
        ("mbref.AveragedPerceptron", lambda: mbref.AveragedPerceptron()),
    ]


@pytest.mark.parametrize("lib", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_both_adversaries_count_the_online_mistakes_of_the_averaged_perceptron(lib):
    # the adversary claims as many mistakes as the learner itself counted, new or fitted
    n = 6
    clf = lib.AveragedPerceptron()
    res = lib.ConjunctionAdversary(n).run(clf)
    assert res["mistakes"] == n == int(clf.mistakes_)
    fitted = lib.AveragedPerceptron().fit([[1.0] * n, [0.0] * n], [1, 0])
    before = int(fitted.mistakes_)
    res = lib.ConjunctionAdversary(n).run(fitted)
    assert res["mistakes"] == n == int(fitted.mistakes_) - before


@pytest.mark.parametrize("n", [1, 2, 3, 6, 11])
@pytest.mark.parametrize("which", range(len(adversary_learners())),
                         ids=[a for a, _ in adversary_learners()])
def test_adversary_forces_n_mistakes(which, n):
    label_, factory = adversary_learners()[which]
    learner = factory()
    res = ref_boolean.ConjunctionAdversary(n).run(learner)
    assert set(res) == {"mistakes", "target"}
    assert res["mistakes"] == n
    assert int(learner.mistakes_) == n and int(learner.n_seen_) == n   # the probe is a copy
    T = res["target"]
    assert T == sorted(set(T)) and all(0 <= i < n for i in T)
    # the monotone conjunction of T labels x^(i) (all ones but bit i) 0 iff i in T: it is exactly
    # the opposite of what the learner predicted before each update, replayed on a fresh copy
    fresh = factory()
    for i in range(n):
        x = [1.0] * n
        x[i] = 0.0
        label = 0 if i in T else 1
        before = int(fresh.mistakes_) if i else 0
        fresh.partial_fit([x], [label], classes=[0, 1] if i == 0 else None)
        assert int(fresh.mistakes_) == before + 1, i
    if "Conjunction" in label_:
        assert learner.n_inconsistent_ == 0


def test_adversary_targets_by_hand():
    """Conjunction, n = 4: h = all literals predicts 0 on x^(0) = 0111 (label 1: h = ~x0 x1 x2 x3);
    x^(1) = 1011 falsifies ~x0 and x1 -> 0 (label 1: h = x2 x3), then x2, x3 go the same way: all
    labelled 1, target [].  Monotone Disjunction, n = 3: x^(0) = 011 -> 1, label 0, drop x1, x2
    (h = x0); x^(1) = 101 -> 1, label 0, drop x0 (h empty); x^(2) = 110 -> 0, label 1 (no
    consistent disjunction, flagged).  Target [0, 1]: x0 x1 is 0 on 011, 101 and 1 on 110."""
    assert ref_boolean.ConjunctionAdversary(4).run(ref_boolean.Conjunction())["target"] == []
    d = ref_boolean.Disjunction()
    assert ref_boolean.ConjunctionAdversary(3).run(d) == {"mistakes": 3, "target": [0, 1]}
    assert d.literals_ == [] and d.n_inconsistent_ == 1
    # DecisionList, n = 1: x = 0: 2-2 tie -> 1, labelled 0
    assert ref_boolean.ConjunctionAdversary(1).run(ref_boolean.DecisionList())["target"] == [0]


def test_adversary_on_a_fitted_learner_and_bad_n():
    c = ref_boolean.Conjunction().partial_fit([[1, 1, 1]], [1], classes=[0, 1])
    res = ref_boolean.ConjunctionAdversary(3).run(c)     # h = x0 x1 x2 predicts 0 everywhere
    assert res == {"mistakes": 3, "target": []} and c.mistakes_ == 1 + 3
    with pytest.raises(ValueError):                       # wrong width
        ref_boolean.ConjunctionAdversary(4).run(c)
    for bad in (0, -1, 2.5, True, "3", None):
        with pytest.raises(ValueError, match="parameter n"):
            ref_boolean.ConjunctionAdversary(bad)
    assert ref_boolean.ConjunctionAdversary(np.int64(2)).n == 2


# ================================================================================================
# 4. Bad input
# ================================================================================================

ENTRIES = [("Conjunction", {}), ("Conjunction", {"on_inconsistent": "raise"}),
           ("Disjunction", {}), ("Disjunction", {"literals": "all", "on_inconsistent": "raise"}),
           ("DecisionList", {})]
ENTRY_IDS = [n + "".join(f"-{v}" for v in p.values()) for n, p in ENTRIES]
entry_param = pytest.mark.parametrize("entry", ENTRIES, ids=ENTRY_IDS)

_rg = np.random.default_rng(50)
XG = rand_X(_rg, 30, 5)
YG = XG[:, 0].astype(np.int64)          # y = x0: a conjunction and a disjunction (never raises)
XB = rand_X(_rg, 8, 5)
YB = XB[:, 0].astype(np.int64)


def make(modname, entry):
    name, params = entry
    return new(modname, name, **params)


def fitted(modname, entry):
    return make(modname, entry).partial_fit(XG, YG, classes=[0, 1])


def with_value(X, row, col, value, dtype=np.float64):
    X = np.array(X, dtype=dtype, copy=True)
    X[row, col] = value
    return X


def assert_all_or_nothing(modname, entry, bad, match=None, exc=ValueError):
    clf = fitted(modname, entry)
    before = frozen(clf)
    with pytest.raises(exc, match=match):
        clf.partial_fit(bad, YB)
    assert frozen(clf) == before
    with pytest.raises(exc, match=match):
        top(modname).run_online(clf, bad, YB)
    assert frozen(clf) == before
    with pytest.raises(exc, match=match):
        clf.predict(bad)
    with pytest.raises(exc, match=match):
        clf.decision_function(bad)
    assert frozen(clf) == before
    clf.partial_fit(XB, YB)
    assert frozen(clf) == frozen(fitted(modname, entry).partial_fit(XB, YB))
    fresh = make(modname, entry)
    with pytest.raises(exc, match=match):
        fresh.fit(bad, YB)
    with pytest.raises(top(modname).NotFittedError):
        fresh.predict(XB)
    fresh = make(modname, entry)
    with pytest.raises(exc, match=match):
        fresh.partial_fit(bad, YB, classes=[0, 1])
    with pytest.raises(top(modname).NotFittedError):
        fresh.n_seen_


@pytest.mark.parametrize("value", (0.5, 2.0, -1.0, 1.0 + 2.0 ** -52, 1e-300, math.nan, math.inf,
                                   -math.inf),
                         ids=("0.5", "2", "-1", "1+ulp", "1e-300", "nan", "inf", "-inf"))
@entry_param
@mod_param
def test_non_boolean_values(modname, entry, value):
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 2, value), match=r"row 3\b")


@entry_param
@mod_param
def test_non_boolean_integers_and_csr(modname, entry):
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 1, 2, dtype=np.int64),
                          match=r"row 3\b")
    assert_all_or_nothing(modname, entry, with_value(XB, 3, 1, -1, dtype=np.int8),
                          match=r"row 3\b")
    assert_all_or_nothing(modname, entry, [[int(v) for v in r] for r in with_value(
        XB, 3, 4, 3, dtype=np.int64)], match=r"row 3\b")
    D = np.array(XB, dtype=np.float64)
    D[3, 1] = 0.25
    assert_all_or_nothing(modname, entry, sp.csr_array(D), match=r"row 3\b")


@mod_param
def test_pac_functions_bad_values(modname):
    m = bmod(modname)
    for f in (m.most_specific_conjunction, m.greedy_decision_list):
        with pytest.raises(ValueError, match=f.__name__ + r": .*row 3\b"):
            f(with_value(XB, 3, 2, 0.5), YB)
        with pytest.raises(ValueError):
            f(XB, YB[:-1])
        with pytest.raises(ValueError):
            f(np.zeros((0, 3)), [])
        with pytest.raises(TypeError):
            f(XB, None)
    g = m.greedy_decision_list(XG, YG)
    with pytest.raises(ValueError):
        g.predict(np.ones((2, 4), np.uint8))
    with pytest.raises(ValueError, match=r"row 1\b"):
        g.predict(with_value(XB[:2], 1, 0, 7))


@entry_param
@mod_param
def test_wrong_width_shape_and_labels(modname, entry):
    clf = fitted(modname, entry)
    before = frozen(clf)
    for bad in (np.ones((2, 6), np.uint8), np.ones((2, 4), np.uint8), np.ones(5, np.uint8),
                np.ones((2, 5, 1), np.uint8), np.zeros((0, 5), np.uint8)):
        with pytest.raises(ValueError):
            clf.partial_fit(bad, [0, 1][:len(bad)] if bad.ndim == 2 else [0] * 5)
        with pytest.raises(ValueError):
            clf.predict(bad)
        assert frozen(clf) == before
    for ybad in ([0, 1, 2, 0, 1, 0, 1, 0], [0, 1], [0.5] * 8):
        with pytest.raises(ValueError):
            clf.partial_fit(XB, ybad)
        assert frozen(clf) == before
    with pytest.raises(ValueError):
        clf.partial_fit(XB, YB, classes=[-1, 1])
    with pytest.raises(ValueError):
        make(modname, entry).partial_fit(XB, YB, classes=[0, 1, 2])
    assert frozen(clf) == before


@entry_param
@mod_param
def test_non_numeric_data(modname, entry):
    clf = fitted(modname, entry)
    before = frozen(clf)
    for bad in (np.array([["1", "0", "1", "0", "0"]] * 2), [[None, 0, 1, 0, 0], [0, 0, 1, 0, 0]]):
        with pytest.raises(TypeError):
            clf.partial_fit(bad, [0, 1])
        with pytest.raises(TypeError):
            clf.predict(bad)
        assert frozen(clf) == before
    with pytest.raises(TypeError):
        make(modname, entry).partial_fit(XG, None)


BAD_PARAMS = [("Conjunction", "on_inconsistent", v) for v in ("x", "Flag", None, 1)] + \
    [("Disjunction", "on_inconsistent", v) for v in ("ignore", None)] + \
    [("Disjunction", "literals", v) for v in ("negative", "Monotone", None, True)] + \
    [(c, "max_epochs", v) for c in ("Conjunction", "Disjunction", "DecisionList")
     for v in (0, -1, 1.5, True)]


@pytest.mark.parametrize("name,param,value", BAD_PARAMS,
                         ids=[f"{c}-{p}={v!r}" for c, p, v in BAD_PARAMS])
@mod_param
def test_bad_parameters(modname, name, param, value):
    clf = new(modname, name, **{param: value})
    with pytest.raises(ValueError, match=param):
        clf.partial_fit(XG, YG)
    with pytest.raises(top(modname).NotFittedError):
        clf.predict(XG)
    with pytest.raises(ValueError, match=param):
        new(modname, name, **{param: value}).fit(XG, YG)
    clf = new(modname, name).partial_fit(XG, YG)
    before = frozen(clf)
    clf.set_params(**{param: value})
    with pytest.raises(ValueError, match=param):
        clf.partial_fit(XB, YB)
    with pytest.raises(ValueError, match=param):
        top(modname).run_online(clf, XB, YB)
    assert frozen(clf) == before


_LITERALS_SWITCH = """
    import numpy as np, {mod} as m
    rng = np.random.default_rng(50)
    X = (rng.random((30, 5)) < 0.5).astype(np.uint8); y = X[:, 0].astype(np.int64)
    XB = (rng.random((8, 5)) < 0.5).astype(np.uint8); yB = XB[:, 0].astype(np.int64)
    for start, other in (("monotone", "all"), ("all", "monotone")):
        d = m.Disjunction(literals=start).partial_fit(X, y)
        before = (list(map(bool, d.positive_)), list(map(bool, d.negative_)), int(d.n_seen_))
        d.set_params(literals=other)
        try:
            d.partial_fit(XB, yB)
            print("accepted")
        except ValueError as exc:
            print("ValueError", "literals" in str(exc))
        after = (list(map(bool, d.positive_)), list(map(bool, d.negative_)), int(d.n_seen_))
        print("unchanged", before == after)
        d.fit(X, y)
        ref = m.Disjunction(literals=other).fit(X, y)
        print("refit", list(d.literals_) == list(ref.literals_))
"""


@mod_param
def test_literals_changed_after_fitting(modname):
    """literals decides the size of the state: switching it on a fitted Disjunction must be
    refused (ValueError naming literals, nothing changed) until fit starts over.  Run in a fresh
    interpreter: a kernel that reads the missing negative_ mask would crash the whole session."""
    rc, out, err = run_isolated(_LITERALS_SWITCH.format(mod=modname))
    assert rc == 0, f"interpreter died or raised (return code {rc}): {err[-800:]}"
    assert out.split("\n")[:-1] == ["ValueError True", "unchanged True", "refit True"] * 2
    with pytest.raises(ValueError, match="invalid parameter"):
        new(modname, "DecisionList").set_params(tie="positive")


@pytest.mark.parametrize("fmt", ("u8", "bool", "i64", "f64", "f32", "list", "csr"))
@mod_param
def test_inputs_never_modified(modname, fmt):
    rng = np.random.default_rng(60)
    X0 = rand_X(rng, 40, 6)
    y = rng.integers(0, 2, size=40)
    if fmt == "list":
        X = X0.tolist()
    elif fmt == "csr":
        X = sp.csr_array(X0.astype(np.float64))
    else:
        X = X0.astype({"u8": np.uint8, "bool": bool, "i64": np.int64, "f64": np.float64,
                       "f32": np.float32}[fmt])
    keep = copy.deepcopy(X)
    y_keep = y.copy()
    m = bmod(modname)
    for clf in (m.Conjunction(), m.Disjunction(literals="all"), m.DecisionList()):
        clf.partial_fit(X, y, classes=[0, 1])
        top(modname).run_online(clf, X, y)
        clf.predict(X)
        clf.decision_function(X)
        clf.fit(X, y)
    m.most_specific_conjunction(X, y).predict(X)
    m.greedy_decision_list(X, y).predict(X)
    if fmt == "list":
        assert X == keep
    elif fmt == "csr":
        assert (X != keep).nnz == 0
    else:
        assert (X == keep).all() and X.dtype == keep.dtype
    assert (y == y_keep).all()


# ================================================================================================
# 5. Real data
# ================================================================================================


def load(which):
    from mbcore import datasets
    kind, *args = which
    if kind == "monks":
        X, y = datasets.load_monks(args[0], args[1], encoding="boolean")
    elif kind == "tictactoe":
        X, y = datasets.load_tictactoe(encoding="boolean")
    else:
        X, y = datasets.load_mushrooms(encoding="boolean")
    return X, y


def np_most_specific(X, y):
    """Independent: literals true on every positive; the negatives that satisfy them."""
    P = X[y == 1]
    pos = (P == 1).all(axis=0) if len(P) else np.ones(X.shape[1], bool)
    neg = (P == 0).all(axis=0) if len(P) else np.ones(X.shape[1], bool)
    sat = (X[:, pos] == 1).all(axis=1) & (X[:, neg] == 0).all(axis=1)
    return pos, neg, int((sat & (y == -1)).sum())


REAL = [("monks", p, s) for p in (1, 2, 3) for s in ("train", "test")] + \
    [("tictactoe",), ("mushrooms",)]
REAL_IDS = ["-".join(str(v) for v in r) for r in REAL]


@pytest.mark.parametrize("which", REAL, ids=REAL_IDS)
def test_real_data_end_to_end(which):
    X, y = load(which)
    n = X.shape[1]
    # the batch conjunction, checked against NumPy
    b = ref_boolean.most_specific_conjunction(X, y)
    pos, neg, n_bad = np_most_specific(X, y)
    assert b.positive_ == pos.tolist() and b.negative_ == neg.tolist()
    assert b.n_inconsistent_ == n_bad and b.inconsistent_ == (n_bad > 0)
    # none of these targets is a conjunction of the one-hot literals (MONK's targets are known
    # disjunctions / counts; mushrooms and tic-tac-toe are checked by the count above)
    assert n_bad > 0
    # the online Conjunction: h ends equal to the batch one; flags are sound
    c = ref_boolean.Conjunction().partial_fit(X, y)
    assert c.positive_ == b.positive_ and c.negative_ == b.negative_
    assert c.n_inconsistent_ <= n_bad
    assert c.mistakes_ == c.updates_ + c.n_inconsistent_
    assert c.updates_ <= n + 1
    # monotone disjunction: the target variables of a consistent disjunction are never removed;
    # here the data are not a monotone disjunction: check with NumPy (a negative covering a
    # positive's active set means no monotone disjunction fits) only when the learner flagged it
    d = ref_boolean.Disjunction().partial_fit(X, y)
    assert d.mistakes_ == d.updates_ + d.n_inconsistent_
    assert d.updates_ <= n
    if d.inconsistent_:
        keep = ~(X[y == -1] == 1).any(axis=0)          # variables never 1 on a negative
        assert not (X[y == 1][:, keep] == 1).any(axis=1).all()
    # the greedy list, checked independently
    g = ref_boolean.greedy_decision_list(X, y)
    check_greedy(g, X, np.where(y == 1, 1, 0))
    # the online decision list runs; its mistakes are counted and are updates
    dl = ref_boolean.DecisionList()
    rec = mbref.run_online(dl, X, y)
    assert dl.mistakes_ == dl.updates_ == rec.mistakes > 0
    assert len(dl.levels_) == 4 * n + 2


def test_monks_known_targets_as_decision_lists():
    """On the full domains (the 432-point test sets):
    * MONK-3 (clean) = (a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3) is the 1-decision list
      a5=4 -> 0, a2!=3 -> 1, a5!=3 -> 0, a4!=1 -> 0, else 1 (L = 5 rules): greedy must find a
      consistent list (lecture 7), and the online DecisionList, cycled until a clean pass, makes at
      most (4n + 2)(L + 1) = 70 * 6 mistakes in all.
    * MONK-2 (exactly two ai = 1) is not: every literal (ai = v or ai != v) is true on points of
      both labels, so greedy stops at once with the default of the majority label.
    * MONK-1 = (a1 = a2) or (a5 = 1) is not: after a5 = 1 -> 1 every literal is still mixed."""
    from mbcore.datasets import load_monks
    Xc, y3 = load_monks(3, "test")
    X3, _ = load_monks(3, "test", encoding="boolean")
    a = Xc.T
    target = ((a[4] == 3) & (a[3] == 1)) | ((a[4] != 4) & (a[1] != 3))
    assert ((y3 == 1) == target).all()
    # our hand-written list over the one-hot columns (a1: 0-2, a2: 3-5, a3: 6-7, a4: 8-10,
    # a5: 11-14, a6: 15-16; so a2 = 3 is column 5, a4 = 1 is 8, a5 = 3 is 13, a5 = 4 is 14),
    # evaluated by hand-written code
    hand = ([(14, 0, 0), (5, 1, 1), (13, 1, 0), (8, 1, 0)], 1)
    assert [eval_dlist(hand, x) for x in X3] == np.where(y3 == 1, 1, 0).tolist()
    g = ref_boolean.greedy_decision_list(X3, y3)
    assert g.consistent_ is True
    check_greedy(g, X3, np.where(y3 == 1, 1, 0))
    dl = ref_boolean.DecisionList()
    target_rules = [dl_rule_index(i, s, b) for i, s, b in hand[0]] + [4 * 17 + 1]
    for _ in range(30):
        m0 = dl.mistakes_ if _ else 0
        dl.partial_fit(X3, y3)
        assert all(dl.levels_[r] <= j for j, r in enumerate(target_rules))
        if dl.mistakes_ == m0:
            break
    else:
        raise AssertionError("no clean pass")
    assert dl.mistakes_ <= (4 * 17 + 2) * (5 + 1)
    assert dl.predict(X3) == y3.tolist()
    f = ref_boolean.DecisionList().fit(X3, y3)            # fit = the same passes
    assert f.converged_ is True and state(f) == state(dl)
    # MONK-2 and MONK-1 on the full domain
    for p in (1, 2):
        X, y = load_monks(p, "test", encoding="boolean")
        g = ref_boolean.greedy_decision_list(X, y)
        assert g.consistent_ is False
        check_greedy(g, X, np.where(y == 1, 1, 0))
        if p == 2:
            maj = 1 if 2 * (y == 1).sum() >= len(y) else -1
            assert rules(g) == [("T", maj)]
        else:
            assert rules(g)[0] == ("x11", 1)            # a5 = 1 -> 1 is the first pure literal


def test_mushrooms_facts():
    """Mushrooms (edible = +1): not a conjunction (negatives satisfy the most specific one), but
    a 1-decision list fits it (greedy is consistent: checked row by row with NumPy)."""
    X, y = load(("mushrooms",))
    _, _, n_bad = np_most_specific(X, y)
    assert n_bad > 0
    g = ref_boolean.greedy_decision_list(X, y)
    assert g.consistent_ is True
    yy = np.where(y == 1, 1, 0)
    check_greedy(g, X, yy)
    out = np.zeros(len(y), dtype=np.int64)
    done = np.zeros(len(y), dtype=bool)
    for name, b in g.rules_:
        if name == "T":
            hit = ~done
        else:
            i = int(name.lstrip("~x"))
            hit = ~done & ((X[:, i] == 0) if name.startswith("~") else (X[:, i] == 1))
        out[hit] = b
        done |= hit
    assert done.all() and (out == y).all()


# ================================================================================================
# 6. Parity mbcore vs mbref
# ================================================================================================


def test_compiled_module_exports():
    mb = importlib.import_module("mbcore.boolean")
    for name in NAMES:
        assert getattr(mbcore, name) is getattr(mb, name), name
        assert name in mbcore.__all__, name
        assert getattr(mbref, name) is getattr(ref_boolean, name), name
    for name in ("Conjunction", "Disjunction", "DecisionList", "GreedyDecisionList"):
        ps = inspect.signature(getattr(mb, name)).parameters
        pr = inspect.signature(getattr(ref_boolean, name)).parameters
        assert [(k, v.default) for k, v in ps.items()] == [(k, v.default) for k, v in pr.items()]
    for f in ("most_specific_conjunction", "greedy_decision_list"):
        assert list(inspect.signature(getattr(mb, f)).parameters) == ["X", "y", "classes"]


PAR_ENTRIES = [("Conjunction", {}), ("Disjunction", {}), ("Disjunction", {"literals": "all"}),
               ("DecisionList", {})]
PAR_IDS = [n + "".join(f"-{v}" for v in p.values()) for n, p in PAR_ENTRIES]


def streams(seed, n, m=120):
    """A few labelled 0/1 streams over n variables: a conjunction, a disjunction, a decision list
    and random labels."""
    rng = np.random.default_rng(seed)
    out = [conj_stream(rng, m, n, random_conjunction(rng, n)),
           disj_stream(rng, m, n, sorted(rng.choice(n, size=int(rng.integers(0, n + 1)),
                                                    replace=False).tolist())),
           dl_stream(rng, m, n, random_dlist(rng, n, 3))]
    X = rand_X(rng, m, n)
    out.append((X, rng.integers(0, 2, size=m)))
    return out


def as_layout(X, fmt):
    X = np.asarray(X)
    if fmt == "list":
        return X.astype(int).tolist()
    return X.astype({"u8": np.uint8, "bool": bool, "i64": np.int64, "f64": np.float64,
                     "f32": np.float32}[fmt])


def compare_runs(entry, X, y, bounds, classes=None, Xp=None):
    name, params = entry
    a = new("mbcore", name, **params)
    b = new("mbref", name, **params)
    for k, (lo, hi) in enumerate(bounds):
        Xc = take_rows(X, lo, hi)
        cl = classes if k == 0 else None
        ra = run_online("mbcore", a, Xc, y[lo:hi], classes=cl)
        rb = run_online("mbref", b, Xc, y[lo:hi], classes=cl)
        assert ra == rb, (k, lo, hi)
        assert state(a) == state(b), (k, lo, hi)
    Xp = X if Xp is None else Xp
    assert canon(a.predict(Xp)) == canon(b.predict(Xp))
    assert [float(v) for v in a.decision_function(Xp)] == \
        [float(v) for v in b.decision_function(Xp)]
    return a, b


@pytest.mark.parametrize("chunking", ["whole", 1, 7, "random"])
@pytest.mark.parametrize("entry", PAR_ENTRIES, ids=PAR_IDS)
@pytest.mark.parametrize("seed", range(3))
def test_parity_streams(seed, entry, chunking):
    n = [1, 4, 9][seed]
    for X, y in streams(seed, n):
        compare_runs(entry, X, y, chunk_bounds(len(y), chunking, seed), classes=[0, 1])


@pytest.mark.parametrize("fmt", ("u8", "bool", "i64", "f64", "f32", "list"))
@pytest.mark.parametrize("entry", PAR_ENTRIES, ids=PAR_IDS)
def test_parity_layouts(entry, fmt):
    X, y = streams(11, 6)[3]
    compare_runs(entry, as_layout(X, fmt), y, chunk_bounds(len(y), "random", 5), classes=[0, 1])


@pytest.mark.parametrize("entry", PAR_ENTRIES, ids=PAR_IDS)
def test_parity_csr(entry):
    """CSR input (densified row by row; a stored 0 is a 0) gives the dense run."""
    X, y = streams(12, 7)[2]
    Xs = sp.csr_array(X.astype(np.float64))
    a, b = compare_runs(entry, Xs, y, [(0, len(y))], classes=[0, 1])
    d = new("mbref", entry[0], **entry[1]).partial_fit(X, y, classes=[0, 1])
    assert state(d) == state(b)
    D = csr_from_dense(X.astype(np.float64), np.int64, np.float32)
    compare_runs(entry, D, y, [(0, len(y))], classes=[0, 1])


@pytest.mark.parametrize("labels", ["01", "pm1", "bool", "str"])
@pytest.mark.parametrize("entry", PAR_ENTRIES, ids=PAR_IDS)
def test_parity_labels(entry, labels):
    X, y = streams(13, 5)[0]
    lab = {"01": y, "pm1": np.where(y == 1, 1, -1), "bool": y.astype(bool),
           "str": np.where(y == 1, "yes", "no")}[labels]
    a, b = compare_runs(entry, X, lab, [(0, 50), (50, len(y))],
                        classes=None if labels == "pm1" else sorted(set(lab.tolist())))
    assert as_list(a.classes_) == as_list(b.classes_)


@pytest.mark.parametrize("name", ["Conjunction", "Disjunction"])
def test_parity_raise(name):
    X, y = streams(14, 5)[3]
    a = new("mbcore", name, on_inconsistent="raise")
    b = new("mbref", name, on_inconsistent="raise")
    errs = []
    for clf, mod in ((a, "mbcore"), (b, "mbref")):
        for lo in range(0, len(y), 10):
            try:
                clf.partial_fit(X[lo:lo + 10], y[lo:lo + 10], classes=[0, 1])
            except ValueError as exc:
                m = str(exc)
                errs.append((mod, lo, m[:m.index("hypothesis") + len("hypothesis")]))
    got = {mod: [(lo, m) for md, lo, m in errs if md == mod] for mod in MODS}
    assert got["mbcore"] == got["mbref"] and got["mbref"]
    assert state(a) == state(b)


@pytest.mark.parametrize("seed", range(6))
def test_parity_pac(seed):
    for X, y in streams(seed + 20, [1, 3, 5, 8, 12, 20][seed], m=80):
        for cl in ((None, [0, 1]) if len(set(y.tolist())) == 2 else ([0, 1],)):
            a = mbcore.most_specific_conjunction(X, y, classes=cl)
            b = ref_boolean.most_specific_conjunction(X, y, classes=cl)
            assert state(a) == state(b)
            ga = mbcore.greedy_decision_list(X, y, classes=cl)
            gb = ref_boolean.greedy_decision_list(X, y, classes=cl)
            assert rules(ga) == rules(gb)
            assert bool(ga.consistent_) == gb.consistent_
            assert canon(ga.predict(X)) == canon(gb.predict(X))
            assert as_list(ga.classes_) == as_list(gb.classes_)
            assert int(ga.n_features_in_) == gb.n_features_in_


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_parity_adversary(n):
    for name in ("Conjunction", "Disjunction", "DecisionList"):
        ra = mbcore.ConjunctionAdversary(n).run(getattr(mbcore, name)())
        rb = ref_boolean.ConjunctionAdversary(n).run(getattr(ref_boolean, name)())
        assert {k: as_list(v) for k, v in ra.items()} == rb
        assert rb["mistakes"] == n
        # each side's adversary on the other side's learner gives the same answer
        assert ref_boolean.ConjunctionAdversary(n).run(getattr(mbcore, name)()) == rb
        # "works for any learner with predict/partial_fit": the compiled adversary on a twin
        ra = mbcore.ConjunctionAdversary(n).run(getattr(ref_boolean, name)())
        assert {k: as_list(v) for k, v in ra.items()} == rb
    ra = mbcore.ConjunctionAdversary(n).run(mbcore.Winnow())
    rb = ref_boolean.ConjunctionAdversary(n).run(mbcore.Winnow())
    assert {k: as_list(v) for k, v in ra.items()} == rb
    # a learner fitted with -1/+1 labels is answered in its own label space
    for side, m in (("mbcore", mbcore), ("mbref", ref_boolean)):
        c = m.Conjunction().partial_fit(np.ones((1, n), np.uint8), [1], classes=[-1, 1])
        assert {k: as_list(v) for k, v in m.ConjunctionAdversary(n).run(c).items()} == \
            {"mistakes": n, "target": []}, side
        assert int(c.mistakes_) == n + 1 and as_list(c.classes_) == [-1, 1]


@pytest.mark.parametrize("which", [("monks", 1, "train"), ("monks", 3, "test"), ("tictactoe",),
                                   pytest.param(("mushrooms",), marks=pytest.mark.longrun)],
                         ids=["monks1", "monks3test", "ttt", "mush"])
def test_parity_real_data(which):
    """Every Boolean learner equals its twin on the bundled real data (mushrooms, about half
    a minute of the twin's pure Python, is a long run: ``pytest -m longrun``)."""
    X, y = load(which)
    for entry in PAR_ENTRIES:
        compare_runs(entry, X, y, [(0, len(y) // 3), (len(y) // 3, len(y))], classes=[-1, 1])
    a = mbcore.most_specific_conjunction(X, y)
    b = ref_boolean.most_specific_conjunction(X, y)
    assert state(a) == state(b)
    assert rules(mbcore.greedy_decision_list(X, y)) == rules(ref_boolean.greedy_decision_list(X, y))


@st.composite
def boolean_cases(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 30))
    bits = draw(st.lists(st.integers(0, 1), min_size=m * n, max_size=m * n))
    X = np.array(bits, dtype=np.uint8).reshape(m, n)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)))
    cuts = sorted(set(draw(st.lists(st.integers(1, max(m - 1, 1)), max_size=4)))) if m > 1 else []
    pts = [0] + [c for c in cuts if 0 < c < m] + [m]
    entry = draw(st.sampled_from(PAR_ENTRIES))
    return entry, X, y, list(zip(pts[:-1], pts[1:]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boolean_cases())
def test_parity_hypothesis(case):
    entry, X, y, bounds = case
    compare_runs(entry, X, y, bounds, classes=[0, 1])
    a = mbcore.most_specific_conjunction(X, y, classes=[0, 1])
    b = ref_boolean.most_specific_conjunction(X, y, classes=[0, 1])
    assert state(a) == state(b)
    ga = mbcore.greedy_decision_list(X, y, classes=[0, 1])
    gb = ref_boolean.greedy_decision_list(X, y, classes=[0, 1])
    assert rules(ga) == rules(gb) and bool(ga.consistent_) == gb.consistent_


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boolean_cases())
def test_twin_hypothesis_invariants(case):
    """mbref alone: chunked = one call; most specific = online h; greedy passes its check."""
    entry, X, y, bounds = case
    name, params = entry
    whole = getattr(ref_boolean, name)(**params)
    rw = mbref.run_online(whole, X, y, classes=[0, 1])
    parts = getattr(ref_boolean, name)(**params)
    preds = []
    for k, (lo, hi) in enumerate(bounds):
        preds += mbref.run_online(parts, X[lo:hi], y[lo:hi],
                                  classes=[0, 1] if k == 0 else None).predictions
    assert preds == rw.predictions and state(parts) == state(whole)
    g = ref_boolean.greedy_decision_list(X, y, classes=[0, 1])
    check_greedy(g, X, y)


# ================================================================================================
# Rows packed 8 variables per byte (numpy.packbits)
# ================================================================================================

PACKED_LEARNERS = [("Conjunction", {}), ("Disjunction", {}), ("Disjunction", {"literals": "all"}),
                   ("DecisionList", {})]


@pytest.mark.parametrize("n", [1, 7, 8, 13, 64])
@pytest.mark.parametrize("entry", PACKED_LEARNERS, ids=lambda e: f"{e[0]}{e[1]}")
def test_packed_rows_give_the_same_run(n, entry):
    """packed=True with numpy.packbits rows is the same run as the 0/1 rows, on both twins."""
    name, kw = entry
    rng = np.random.default_rng(100 + n)
    X = (rng.random((60, n)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 60)
    Xp = np.packbits(X, axis=1)
    for mod in (mbcore, mbref):
        plain = getattr(mod, name)(**kw)
        packed = getattr(mod, name)(packed=True, n_features=n, **kw)
        a = mod.run_online(plain, X, y, classes=[0, 1])
        b = mod.run_online(packed, Xp.tolist() if mod is mbref else Xp, y, classes=[0, 1])
        pa, pb = as_list(a.predictions), as_list(b.predictions)
        assert pa == pb
        assert list(plain.predict(X[:10])) == list(packed.predict(Xp[:10]))
    # and the compiled packed run equals the twin's packed run
    c = getattr(mbcore, name)(packed=True, n_features=n, **kw)
    r = getattr(mbref, name)(packed=True, n_features=n, **kw)
    rc = mbcore.run_online(c, Xp, y, classes=[0, 1])
    rr = mbref.run_online(r, Xp.tolist(), y.tolist(), classes=[0, 1])
    assert rc.predictions.tolist() == rr.predictions
    assert c.mistakes_ == r.mistakes_ and c.updates_ == r.updates_


@pytest.mark.parametrize("modname", ["mbcore", "mbref"])
@pytest.mark.parametrize("case", ["padding", "width", "not_bytes", "no_n_features", "bad_packed"])
def test_packed_rows_bad_input(modname, case):
    mod = mbcore if modname == "mbcore" else mbref
    X = np.packbits(np.ones((2, 5), dtype=np.uint8), axis=1)      # 0b11111000
    kw = {"packed": True, "n_features": 5}
    if case == "padding":
        X = X.copy()
        X[1, 0] |= 1                                                # a bit past variable 4
    elif case == "width":
        X = np.zeros((2, 2), dtype=np.uint8)                        # 5 variables need 1 byte
    elif case == "not_bytes":
        X = [[248], [300]]
    elif case == "no_n_features":
        kw = {"packed": True}
    else:
        kw = {"packed": "yes", "n_features": 5}
    clf = mod.Conjunction(**kw)
    with pytest.raises(ValueError) as e:
        clf.partial_fit(X if modname == "mbcore" or isinstance(X, list) else X.tolist(), [1, 0],
                        classes=[0, 1])
    assert "Conjunction" in str(e.value)
    if case == "padding":
        assert "row 1" in str(e.value)
