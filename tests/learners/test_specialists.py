"""Specialists (sleeping experts) and Blum's pair specialists.

The rule under test (Blum 1997; Angluin lecture 20): in each
round the awake specialists vote for a class (entries of sleeping specialists are ignored); the
learner predicts the class with the largest total awake weight, ties going to the later class in
``classes_``; with no voter it predicts the most frequent label so far (ties -> later class, none
seen -> the last class) and the round is not covered.  On a mistake of the learner, wrong voters
are multiplied by ``demote`` and right voters by ``promote``; nothing changes otherwise.  A round
is covered when a voter exists and q_top >= threshold * (total awake weight).  A specialist whose
weight falls below ``prune_below`` never votes again.  ``PairSpecialists`` creates one
specialist per pair of conditions (a = x_a, b = x_b), a < b, on first sight (weight 1, empty
history, abstains), ids in order of first occurrence; each votes the most frequent of its last
``history`` labels (ties -> the most recent of the tied labels); every awake specialist gets the
round's label pushed to its history, mistake or not.

Sections
--------
1. Golden cases worked out by hand in the comments (two and three labels, several label types):
   predictions, who is demoted / promoted, log2 weights (log2(3/2), log2(3/4), ...),
   expert_mistakes_, ties to the later class, the no-voter default rule, threshold coverage,
   pruning (and its strict boundary); PairSpecialists ids, specialists_, histories (history 1, 2,
   3, 5 and the tie-to-most-recent rule), abstention on first sight, predictions.
2. Parity mbcore vs mbref (``==``, no tolerance): seeded grids and hypothesis over K = 2..5,
   int / str labels, exact mode (promote 1 or 2, demote 1/2 or 1/4), non-power-of-two factors,
   thresholds, pruning; chunked partial_fit == one call; exact-mode near ties built through the
   protocol, checked against a ``fractions.Fraction`` oracle; PairSpecialists on random
   categorical streams, MONK and tic-tac-toe; Specialists on the mushrooms.
3. The bound M <= r log(n) / log(promote) (demote + promote <= 2) on planted streams, against an
   adaptive adversary, on a categorical stream decided by one pair, and on MONK-3 (every point
   of its noise-free domain is decided by some pure pair of conditions).  MONK-1 has no such
   cover (its negatives need three attributes), so there only the observed claim is tested: with
   the default history 5, repeated passes over its test set reach 0 mistakes (as on MONK-3).
4. Bad input: ValueError / TypeError naming the class; all or nothing; inputs never modified;
   a failed first call leaves the learner unfitted.
5. Numerics: 10**6 rounds in exact mode with log2 weights reaching +-10**5 and beyond, every
   prediction checked against an exact recomputation (integer exponents, Python integers near
   ties); a long non-power-of-two run beyond float64's range compared with the twin.
6. predict / predict_covered / score leave the state alone; pickling; fit resets.

Expected values come from hand computation or from independent recomputation in this file (the
stream, integer exponents, Fractions), never from the code under test.  Known defects found
while writing this file were fixed; their tests stay as regression tests.
"""

import copy
import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mbcore
import mbref
from conftest import as_list

# CI runs this file on the debug build too (tests/README.md)
pytestmark = pytest.mark.checked

MODS = ("mbcore", "mbref")
mod_param = pytest.mark.parametrize("modname", MODS)


def module(modname):
    return mbcore if modname == "mbcore" else mbref


def new(modname, name, **params):
    return getattr(module(modname), name)(**params)


def modname_of(clf):
    return "mbcore" if type(clf).__module__.startswith("mbcore") else "mbref"


# ------------------------------------------------------------------------------------------------
# Reading state and records as plain Python values
# ------------------------------------------------------------------------------------------------


def state(clf):
    """Everything observable about a fitted (Pair)Specialists learner, comparable with ==."""
    s = {"n_seen_": int(clf.n_seen_), "mistakes_": int(clf.mistakes_),
         "updates_": int(clf.updates_), "classes_": as_list(clf.classes_),
         "expert_mistakes_": as_list(clf.expert_mistakes_),
         "log2_weights_": as_list(clf.log2_weights_), "weights_": as_list(clf.weights_),
         "pruned_": [bool(v) for v in as_list(clf.pruned_)],
         "coverage_": float(clf.coverage_), "n_covered_": int(clf.n_covered_),
         "covered_mistakes_": int(clf.covered_mistakes_)}
    if type(clf).__name__ == "PairSpecialists":
        s["specialists_"] = as_list(clf.specialists_)
        s["n_specialists_"] = int(clf.n_specialists_)
    else:
        s["n_experts_"] = int(clf.n_experts_)
    return s


def online(clf, P, y, awake=None, classes=None):
    """The online record (predictions before each label, errors, updated, totals).

    mbcore: ``mbcore.run_online``; mbref: ``mbref.run_online`` (both take ``awake=``)."""
    is_pair = type(clf).__name__ == "PairSpecialists"
    if modname_of(clf) == "mbcore":
        kw = {} if is_pair or awake is None else {"awake": awake}
        r = mbcore.run_online(clf, P, y, classes=classes, **kw)
        return {"predictions": as_list(r.predictions), "errors": [bool(e) for e in r.errors],
                "updated": [bool(u) for u in r.updated], "mistakes": int(r.mistakes),
                "updates": int(r.updates)}
    kw = {} if is_pair or awake is None else {"awake": awake}
    r = mbref.run_online(clf, P, y, classes=classes, **kw)
    return {"predictions": r.predictions, "errors": [bool(e) for e in r.errors],
            "updated": list(r.updated), "mistakes": int(r.mistakes),
            "updates": int(r.updates)}


def py(v):
    return v.item() if isinstance(v, np.generic) else v


def specs(clf):
    """specialists_ as a list of ((a, value_a), (b, value_b)) with plain Python values."""
    return [tuple((int(a), py(v)) for a, v in s) for s in clf.specialists_]


def same_input(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and all(u is w or u == w or (u != u and w != w)
                        for u, w in zip(a.ravel().tolist(), b.ravel().tolist())))
    return repr(a) == repr(b)


def covered_list(res):
    labels, cov = res
    return as_list(labels), [bool(c) for c in as_list(cov)]


def assert_unfitted(modname, clf, P=((1, 0),)):
    nfe = module(modname).NotFittedError
    with pytest.raises(nfe):
        clf.mistakes_
    with pytest.raises(nfe):
        clf.log2_weights_
    with pytest.raises(nfe):
        clf.predict_covered([list(r) for r in P])


# ================================================================================================
# 1. Golden cases, by hand
# ================================================================================================

# --- Two labels (demote 1/2, promote 3/2), specialists s0, s1, s2; (neg, pos) = (0, 1) ---------
# R1  P (1,0,1) awake (1,1,0): q1 = 1 (s0), q0 = 1 (s1): tie -> the later class 1.  y = 0: mistake,
#     s0 wrong x1/2, s1 right x3/2, s2 asleep.  w = (1/2, 3/2, 1).  wrong votes (1,0,0).
# R2  P (1,1,0) all awake: q1 = 1/2 + 3/2 = 2 > q0 = 1 -> 1.  y = 1: right, no change.
#     s2 voted wrong: (1,0,1).
# R3  nobody awake: the most frequent label so far: 0 and 1 once each -> tie -> later class 1.
#     y = 0: a mistake with no voter: no update, not covered.
# R4  P (1,0,0) awake (1,0,1): q1 = 1/2 < q0 = 1 -> 0.  y = 1: mistake; s0 right -> 3/4,
#     s2 wrong -> 1/2.  wrong votes (1,0,2).
# R5  P (1,0,1) all awake: q1 = 3/4 + 1/2 = 5/4 < q0 = 3/2 -> 0.  y = 0: right.  (2,0,3).
# Totals: predictions 1,1,1,0,0; mistakes R1,R3,R4 = 3; updates R1,R4 = 2 (updated T,F,F,T,F);
# log2 w = (log2 3/4, log2 3/2, -1); weights_ relative to 3/2: (1/2, 1, 1/3).
# Coverage with threshold 0: R1,R2,R4,R5 covered (4 of 5), covered mistakes R1,R4 = 2.
# threshold 0.6: R1 1/2 < .6 no; R2 2/3 yes; R4 1/(3/2) = 2/3 yes; R5 (3/2)/(11/4) = 6/11 no:
# 2 covered rounds, 1 covered mistake (R4); learning is identical.
TWO_P = [[1, 0, 1], [1, 1, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1]]
TWO_W = [[1, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 1], [1, 1, 1]]
TWO_Y = [0, 1, 0, 1, 0]
TWO_PRED = [1, 1, 1, 0, 0]
TWO_UPDATED = [True, False, False, True, False]
TWO_LOG2 = [-1 + math.log2(1.5), math.log2(1.5), -1.0]
TWO_WEIGHTS = [0.5, 1.0, 1 / 3]
TWO_EM = [2, 0, 3]

LABELINGS2 = {"01": (0, 1), "pm1": (-1, 1), "str": ("no", "yes")}


def relabel(v, labels):
    if isinstance(v, list):
        return [relabel(u, labels) for u in v]
    return labels[v]


def approx_list(v, abs_=1e-12):
    return pytest.approx(v, rel=0, abs=abs_)


@mod_param
@pytest.mark.parametrize("labeling", list(LABELINGS2))
@pytest.mark.parametrize("threshold", [0.0, 0.6])
def test_golden_two_labels(modname, labeling, threshold):
    labs = LABELINGS2[labeling]
    P, y = relabel(TWO_P, labs), relabel(TWO_Y, labs)
    sp = new(modname, "Specialists", threshold=threshold)
    r = online(sp, P, y, awake=TWO_W)
    assert r["predictions"] == relabel(TWO_PRED, labs)
    assert r["errors"] == [True, False, True, True, False]
    assert r["updated"] == TWO_UPDATED
    assert (r["mistakes"], r["updates"]) == (3, 2)
    assert (sp.mistakes_, sp.updates_, sp.n_seen_, sp.n_experts_) == (3, 2, 5, 3)
    assert as_list(sp.classes_) == list(labs)
    assert as_list(sp.log2_weights_) == approx_list(TWO_LOG2)
    assert as_list(sp.weights_) == approx_list(TWO_WEIGHTS)
    assert as_list(sp.expert_mistakes_) == TWO_EM
    assert [bool(v) for v in as_list(sp.pruned_)] == [False] * 3
    if threshold == 0.0:
        assert (sp.n_covered_, sp.covered_mistakes_) == (4, 2)
        assert sp.coverage_ == pytest.approx(0.8)
    else:
        assert (sp.n_covered_, sp.covered_mistakes_) == (2, 1)
        assert sp.coverage_ == pytest.approx(0.4)


@mod_param
def test_golden_two_labels_row_by_row_equals_whole(modname):
    a = new(modname, "Specialists")
    b = new(modname, "Specialists")
    for t in range(5):
        a.partial_fit(TWO_P[t:t + 1], TWO_Y[t:t + 1], awake=TWO_W[t:t + 1],
                      classes=[0, 1] if t == 0 else None)
    b.partial_fit(TWO_P, TWO_Y, awake=TWO_W)
    assert state(a) == state(b)


# --- Three labels a < b < c, four specialists (demote 1/2, promote 3/2) -------------------------
# R1  P (a,b,c,c) awake (1,1,1,0): q_a = q_b = q_c = 1: tie -> the last class c.  y = b: mistake;
#     s0, s2 wrong -> 1/2, s1 right -> 3/2.  w = (1/2, 3/2, 1/2, 1); wrong votes (1,0,1,0).
# R2  P (b,a,b,a) all awake: q_b = 1/2 + 1/2 = 1, q_a = 3/2 + 1 = 5/2 -> a.  y = a: right.
#     wrong votes (2,0,2,0).
# R3  P (c,c,a,b) awake (1,0,1,1): q_c = 1/2, q_a = 1/2, q_b = 1 -> b.  y = c: mistake;
#     s0 right -> 3/4, s2 wrong -> 1/4, s3 wrong -> 1/2.  wrong votes (2,0,3,1).
# R4  P (c,b,c,b) awake (1,0,1,0): q_c = 3/4 + 1/4 = 1 -> c.  y = c: right.
# R5  nobody awake: labels so far b, a, c, c -> c.  y = a: mistake, no update, not covered.
# Totals: predictions c,a,b,c,c; mistakes 3; updates 2; log2 w = (log2 3/4, log2 3/2, -2, -1);
# weights_ / (3/2) = (1/2, 1, 1/6, 1/3).
# Coverage: threshold 0 -> R1..R4 (4), covered mistakes R1, R3 (2).  threshold 1/2: R1 1/3 no;
# R2 5/7 yes; R3 q_b / total = 1 / 2 -> yes (>=); R4 yes -> 3 covered, 1 covered mistake (R3).
# threshold 1: only R4 (all the awake weight on c) -> 1 covered, 0 covered mistakes.
THREE_P = [["a", "b", "c", "c"], ["b", "a", "b", "a"], ["c", "c", "a", "b"],
           ["c", "b", "c", "b"], ["a", "a", "a", "a"]]
THREE_W = [[1, 1, 1, 0], [1, 1, 1, 1], [1, 0, 1, 1], [1, 0, 1, 0], [0, 0, 0, 0]]
THREE_Y = ["b", "a", "c", "c", "a"]
THREE_PRED = ["c", "a", "b", "c", "c"]
THREE_LOG2 = [-1 + math.log2(1.5), math.log2(1.5), -2.0, -1.0]
THREE_WEIGHTS = [0.5, 1.0, 1 / 6, 1 / 3]
THREE_EM = [2, 0, 3, 1]
THREE_COVER = {0.0: (4, 2), 0.5: (3, 1), 1.0: (1, 0)}

LABELINGS3 = {"str": {"a": "a", "b": "b", "c": "c"},
              # numeric order differs from the string order of these values
              "int": {"a": 2, "b": 10, "c": 30},
              "neg_int": {"a": -7, "b": 0, "c": 5}}


def relabel3(v, m):
    if isinstance(v, list):
        return [relabel3(u, m) for u in v]
    return m[v]


@mod_param
@pytest.mark.parametrize("labeling", list(LABELINGS3))
@pytest.mark.parametrize("threshold", sorted(THREE_COVER))
def test_golden_three_labels(modname, labeling, threshold):
    m = LABELINGS3[labeling]
    P, y = relabel3(THREE_P, m), relabel3(THREE_Y, m)
    sp = new(modname, "Specialists", threshold=threshold)
    r = online(sp, P, y, awake=THREE_W)
    assert r["predictions"] == relabel3(THREE_PRED, m)
    assert r["errors"] == [True, False, True, False, True]
    assert r["updated"] == [True, False, True, False, False]
    assert as_list(sp.classes_) == [m["a"], m["b"], m["c"]]
    assert (sp.mistakes_, sp.updates_, sp.n_seen_) == (3, 2, 5)
    assert as_list(sp.log2_weights_) == approx_list(THREE_LOG2)
    assert as_list(sp.weights_) == approx_list(THREE_WEIGHTS)
    assert as_list(sp.expert_mistakes_) == THREE_EM
    assert (sp.n_covered_, sp.covered_mistakes_) == THREE_COVER[threshold]
    assert sp.coverage_ == pytest.approx(THREE_COVER[threshold][0] / 5)
    # predict_covered on the state reached (w = 3/4, 3/2, 1/4, 1/2):
    #  q1: s1 "a" 3/2 vs s3 "b" 1/2 -> a, share 3/4;  q2: s0 "b" 3/4 vs s2 "c" 1/4 + s3 "c" 1/2 ->
    #  tie 3/4 = 3/4 -> the later class c, share 1/2;  q3: nobody -> default: a, b, c, c, a ->
    #  a and c twice -> the later c, never covered.
    Q = relabel3([["a", "a", "a", "b"], ["b", "a", "c", "c"], ["a", "a", "a", "a"]], m)
    QW = [[0, 1, 0, 1], [1, 0, 1, 1], [0, 0, 0, 0]]
    labels, cov = covered_list(sp.predict_covered(Q, awake=QW))
    assert labels == relabel3(["a", "c", "c"], m)
    assert cov == [0.75 >= threshold, 0.5 >= threshold, False]
    assert as_list(sp.predict(Q, awake=QW)) == labels


@mod_param
def test_default_rule_without_voters(modname):
    # Nobody is ever awake: the prediction is the most frequent label so far, ties -> later
    # class, none seen -> the last class.  classes a < b < c; labels a, b, a, c, c:
    #  R1 none seen -> c; R2 {a:1} -> a; R3 {a:1,b:1} -> b; R4 {a:2,b:1} -> a;
    #  R5 {a:2,b:1,c:1} -> a; then {a:2,b:1,c:2} -> c.  No update, nothing covered.
    P = [["a", "a"]] * 5
    W = [[0, 0]] * 5
    y = ["a", "b", "a", "c", "c"]
    sp = new(modname, "Specialists")
    r = online(sp, P, y, awake=W, classes=["a", "b", "c"])
    assert r["predictions"] == ["c", "a", "b", "a", "a"]
    assert r["updated"] == [False] * 5
    # every prediction differs from its label: 5 mistakes
    assert (sp.mistakes_, sp.updates_, sp.n_covered_, sp.coverage_) == (5, 0, 0, 0.0)
    assert as_list(sp.log2_weights_) == [0.0, 0.0]
    assert as_list(sp.expert_mistakes_) == [0, 0]
    assert covered_list(sp.predict_covered([["b", "b"]], awake=[[0, 0]])) == (["c"], [False])
    # A voter, even a light one, overrides the default.
    assert as_list(sp.predict([["b", "b"]], awake=[[1, 0]])) == ["b"]


# --- Pruning (prune_below = 0.3, demote 1/2, promote 3/2), two labels ---------------------------
# R1  P (0,1,1) all awake: q1 = 2 > q0 = 1 -> 1; y = 0: s0 right -> 3/2, s1, s2 wrong -> 1/2.
# R2  P (0,1,1) awake (0,1,1): q1 = 1 -> 1; y = 0: s1, s2 -> 1/4 < 0.3: pruned.
# R3  P (1,1,1) all awake: only s0 still votes: 1; y = 0: mistake, s0 -> 3/4.  s1, s2 do not
#     vote: their wrong votes stay at 2.
# R4  P (0,1,1) awake (0,1,1): no live voter -> the default 0 (labels 0,0,0); y = 1: mistake, no
#     update, not covered.
# Totals: predictions 1,1,1,0; mistakes 4; updates 3; log2 w = (log2 3/4, -2, -2);
# pruned (F, T, T); wrong votes (1, 2, 2); covered R1..R3: 3, covered mistakes 3.
# Without pruning: R3 all vote 1 -> mistake, all demoted: (3/4, 1/8, 1/8); R4 s1, s2 vote 1 ->
# 1 = y: right.  mistakes 3, updates 3, wrong votes (1, 3, 3).
PRUNE_P = [[0, 1, 1], [0, 1, 1], [1, 1, 1], [0, 1, 1]]
PRUNE_W = [[1, 1, 1], [0, 1, 1], [1, 1, 1], [0, 1, 1]]
PRUNE_Y = [0, 0, 0, 1]


@mod_param
def test_golden_pruning(modname):
    sp = new(modname, "Specialists", prune_below=0.3)
    r = online(sp, PRUNE_P, PRUNE_Y, awake=PRUNE_W)
    assert r["predictions"] == [1, 1, 1, 0]
    assert r["updated"] == [True, True, True, False]
    assert (sp.mistakes_, sp.updates_) == (4, 3)
    assert as_list(sp.log2_weights_) == approx_list([math.log2(0.75), -2.0, -2.0])
    assert [bool(v) for v in as_list(sp.pruned_)] == [False, True, True]
    assert as_list(sp.expert_mistakes_) == [1, 2, 2]
    assert (sp.n_covered_, sp.covered_mistakes_) == (3, 3)
    # A pruned specialist never votes again, even alone and awake.
    assert covered_list(sp.predict_covered([[1, 1, 1]], awake=[[0, 1, 1]])) == ([0], [False])
    before = state(sp)
    online(sp, [[0, 1, 1]], [1], awake=[[0, 1, 1]])
    assert as_list(sp.log2_weights_) == before["log2_weights_"]
    assert as_list(sp.expert_mistakes_) == before["expert_mistakes_"]


@mod_param
def test_golden_pruning_contrast(modname):
    sp = new(modname, "Specialists")
    r = online(sp, PRUNE_P, PRUNE_Y, awake=PRUNE_W)
    assert r["predictions"] == [1, 1, 1, 1]
    assert (sp.mistakes_, sp.updates_) == (3, 3)
    assert as_list(sp.log2_weights_) == approx_list([math.log2(0.75), -3.0, -3.0])
    assert [bool(v) for v in as_list(sp.pruned_)] == [False] * 3
    assert as_list(sp.expert_mistakes_) == [1, 3, 3]


@mod_param
def test_golden_pruning_boundary(modname):
    # prune_below = 1/4: after R2 s1, s2 weigh exactly 1/4, which is not *below*: still alive,
    # they vote (1/4 + 1/4 for class 1, covered).  R3: all vote 1, y = 0: all demoted, s1, s2 ->
    # 1/8 < 1/4: pruned now.  R4: no live voter -> the default 0; y = 1: mistake, no update.
    # predictions 1,1,1,0; mistakes 4; updates 3; wrong votes (1, 3, 3); log2 (log2 3/4, -3, -3).
    sp = new(modname, "Specialists", prune_below=0.25)
    r = online(sp, PRUNE_P[:2], PRUNE_Y[:2], awake=PRUNE_W[:2])
    assert as_list(sp.log2_weights_) == approx_list([math.log2(1.5), -2.0, -2.0])
    assert [bool(v) for v in as_list(sp.pruned_)] == [False] * 3
    assert covered_list(sp.predict_covered([[0, 1, 1]], awake=[[0, 1, 1]])) == ([1], [True])
    r2 = online(sp, PRUNE_P[2:], PRUNE_Y[2:], awake=PRUNE_W[2:])
    assert r["predictions"] + r2["predictions"] == [1, 1, 1, 0]
    assert (sp.mistakes_, sp.updates_) == (4, 3)
    assert [bool(v) for v in as_list(sp.pruned_)] == [False, True, True]
    assert as_list(sp.expert_mistakes_) == [1, 3, 3]
    assert as_list(sp.log2_weights_) == approx_list([math.log2(0.75), -3.0, -3.0])


@mod_param
def test_golden_exact_mode_and_non_dyadic_factors(modname):
    # demote 1/4, promote 2 (exact mode), two specialists voting 0 and 1, labels 0:
    #  R1 tie -> 1, y = 0: s0 x2 -> 2, s1 x1/4 -> 1/4.  R2 q0 = 2 > 1/4 -> 0 right.
    #  log2 = (1, -2), wrong votes (0, 2).
    sp = new(modname, "Specialists", demote=0.25, promote=2.0)
    r = online(sp, [[0, 1], [0, 1]], [0, 0])
    assert r["predictions"] == [1, 0]
    assert as_list(sp.log2_weights_) == [1.0, -2.0]
    assert as_list(sp.expert_mistakes_) == [0, 2]
    # demote 0.7, promote 1.3: after the same first round, log2 = (log2 1.3, log2 0.7).
    sp = new(modname, "Specialists", demote=0.7, promote=1.3)
    r = online(sp, [[0, 1], [0, 1]], [0, 0])
    assert r["predictions"] == [1, 0]
    assert as_list(sp.log2_weights_) == approx_list([math.log2(1.3), math.log2(0.7)])
    assert as_list(sp.weights_) == approx_list([1.0, 0.7 / 1.3])


@mod_param
def test_golden_sleeping_entries_ignored(modname):
    # The two-label golden stream with every sleeping entry replaced by junk (None, 7, "x"):
    # the same run.  Classes inferred from the awake advice and y only.
    junk = [None, 7, "x"]
    P = [[v if w else junk[(t + i) % 3] for i, (v, w) in enumerate(zip(row, wrow))]
         for t, (row, wrow) in enumerate(zip(TWO_P, TWO_W))]
    P0 = copy.deepcopy(P)
    sp = new(modname, "Specialists")
    r = online(sp, P, TWO_Y, awake=TWO_W)
    assert r["predictions"] == TWO_PRED
    assert as_list(sp.classes_) == [0, 1]
    assert as_list(sp.log2_weights_) == approx_list(TWO_LOG2)
    assert as_list(sp.expert_mistakes_) == TWO_EM
    assert P == P0


def _exact_pred(log2w, votes, awake, K):
    """The class with the largest sum of 2**l over awake voters (ties -> later); None if none."""
    S = [Fraction(0)] * K
    any_voter = False
    for l, v, a in zip(log2w, votes, awake):
        if a:
            any_voter = True
            S[v] += Fraction(2) ** int(l) if float(l).is_integer() else Fraction(2 ** l)
    if not any_voter:
        return None
    best = 0
    for k in range(1, K):
        if S[k] >= S[best]:
            best = k
    return best


@mod_param
def test_golden_sleeping_nan_float_advice(modname):
    # After the golden stream w = (3/4, 3/2, 1/2).  Advice (1, NaN, 0) with s1 asleep:
    # q1 = 3/4 > q0 = 1/2 -> 1.  Advice (0, NaN, 1), s1 asleep: q0 = 3/4 > q1 = 1/2 -> 0.
    sp = new(modname, "Specialists").partial_fit(TWO_P, TWO_Y, awake=TWO_W)
    Pf = np.array([[1.0, np.nan, 0.0], [0.0, np.nan, 1.0]])
    assert as_list(sp.predict(Pf, awake=[[1, 0, 1], [1, 0, 1]])) == [1, 0]
    before = state(sp)
    r = online(sp, Pf, [1, 0], awake=np.array([[1, 0, 1], [1, 0, 1]], dtype=bool))
    assert r["predictions"] == [1, 0] and r["mistakes"] == 0
    assert as_list(sp.log2_weights_) == before["log2_weights_"]
    # s0 right twice, s2 wrong twice: wrong votes (2, 0, 5).
    assert as_list(sp.expert_mistakes_) == [2, 0, 5]
    # None (and an unknown label) in sleeping entries of a later call: ignored.
    twin = copy.deepcopy(sp)
    a = online(sp, [[1, None, 0], [0, 9, 1]], [0, 0], awake=[[1, 0, 1], [1, 0, 1]])
    b = online(twin, [[1, 0, 0], [0, 0, 1]], [0, 0], awake=[[1, 0, 1], [1, 0, 1]])
    assert a == b and state(sp) == state(twin)


# --- PairSpecialists, d = 3, labels A < B, history 5 ---------------------------------------------
# Row 0 (p,q,r) y=A: pairs (0,1)=(p,q) id0, (0,2)=(p,r) id1, (1,2)=(q,r) id2: all new, abstain.
#       No voter: nothing seen yet -> the last class B.  Mistake, no update.  hist id0..2 = [A].
# Row 1 (p,q,s) y=B: id0 votes A (hist [A]); (p,s) new id3, (q,s) new id4 abstain -> A.
#       Mistake: id0 wrong -> 1/2.  hist id0 [A,B], id3 [B], id4 [B].
# Row 2 (p,t,s) y=B: (p,t) new id5; id3 votes B; (t,s) new id6 -> B, right.
#       hist id3 [B,B], id5 [B], id6 [B].
# Row 3 (p,q,r) y=A: id0 hist [A,B]: a tie -> the most recent, B (w 1/2); id1 [A] -> A (1);
#       id2 [A] -> A (1): q_A = 2 > q_B = 1/2 -> A, right.  id0 voted wrong (2nd time).
#       hist id0 [A,B,A], id1 [A,A], id2 [A,A].
# Row 4 (p,q,s) y=A: id0 [A,B,A] -> A (1/2); id3 [B,B] -> B (1); id4 [B] -> B (1):
#       q_B = 2 > 1/2 -> B.  Mistake: id0 right -> 3/4, id3, id4 wrong -> 1/2.
# Totals: predictions B,A,B,A,B; mistakes 3 (rows 0, 1, 4); updates 2; 7 specialists;
# log2 w = (log2 3/4, 0, 0, -1, -1, 0, 0); wrong votes (2, 0, 0, 1, 1, 0, 0);
# covered rows 1..4 (a voter each), covered mistakes 2 (rows 1 and 4).
PAIR_X = [["p", "q", "r"], ["p", "q", "s"], ["p", "t", "s"], ["p", "q", "r"], ["p", "q", "s"]]
PAIR_Y = ["A", "B", "B", "A", "A"]
PAIR_SPECS = [((0, "p"), (1, "q")), ((0, "p"), (2, "r")), ((1, "q"), (2, "r")),
              ((0, "p"), (2, "s")), ((1, "q"), (2, "s")), ((0, "p"), (1, "t")),
              ((1, "t"), (2, "s"))]


@mod_param
@pytest.mark.parametrize("as_array", [False, True], ids=["lists", "ndarray"])
def test_golden_pair_specialists(modname, as_array):
    X = np.array(PAIR_X) if as_array else PAIR_X
    ps = new(modname, "PairSpecialists")
    r = online(ps, X, PAIR_Y)
    assert r["predictions"] == ["B", "A", "B", "A", "B"]
    assert r["updated"] == [False, True, False, False, True]
    assert (ps.mistakes_, ps.updates_, ps.n_seen_, ps.n_specialists_) == (3, 2, 5, 7)
    assert specs(ps) == PAIR_SPECS
    assert as_list(ps.log2_weights_) == approx_list([math.log2(0.75), 0, 0, -1, -1, 0, 0])
    assert as_list(ps.expert_mistakes_) == [2, 0, 0, 1, 1, 0, 0]
    assert (ps.n_covered_, ps.covered_mistakes_) == (4, 2)
    # predict creates nothing: unseen values -> no voter -> the default (labels A,B,B,A,A -> A).
    before = state(ps)
    assert covered_list(ps.predict_covered([["z", "z", "z"]])) == (["A"], [False])
    # (p,q,z): only id0 (hist [A,B,A,A]... after row 4: [A,B,A,A] -> A) votes.
    assert as_list(ps.predict([["p", "q", "z"]])) == ["A"]
    # (p,t,r): id5 (p,t) hist [B] -> B votes; (p,r) id1 hist [A,A] -> A; (t,r) unknown.
    # w(id5) = 1 = w(id1): tie -> the later class B.
    assert as_list(ps.predict([["p", "t", "r"]])) == ["B"]
    assert state(ps) == before


@mod_param
@pytest.mark.parametrize("history, votes", [
    # Labels of one pair's rows: A, B, B, A, C, C, A.  The vote after each prefix:
    (1, ["A", "B", "B", "A", "C", "C", "A"]),
    # last two: [A] [A,B]->tie->B [B,B] [B,A]->A [A,C]->C [C,C] [C,A]->A
    (2, ["A", "B", "B", "A", "C", "C", "A"]),
    # last three: [A] [A,B]->B [A,B,B]->B [B,B,A]->B [B,A,C]->C [A,C,C]->C [C,C,A]->C
    (3, ["A", "B", "B", "B", "C", "C", "C"]),
    # last five: [A] [A,B]->B [A,B,B]->B [A,B,B,A]->tie, most recent A
    # [A,B,B,A,C]->A,B tie: A more recent; [B,B,A,C,C]->B,C tie: C; [B,A,C,C,A]->A,C tie: A
    (5, ["A", "B", "B", "A", "A", "C", "A"]),
])
def test_golden_pair_history_votes(modname, history, votes):
    # d = 2: one specialist per value pair.  The only specialist of (u, v) votes its history's
    # label, so predict([[u, v]]) reads its vote (no state change).
    labels = ["A", "B", "B", "A", "C", "C", "A"]
    ps = new(modname, "PairSpecialists", history=history)
    # Round 1: the specialist is created and abstains: no label yet -> the last class C.
    r = online(ps, [["u", "v"]], labels[:1], classes=["A", "B", "C"])
    assert r["predictions"] == ["C"] and r["updated"] == [False]
    got = [as_list(ps.predict([["u", "v"]]))[0]]
    for t in range(1, len(labels)):
        r = online(ps, [["u", "v"]], labels[t:t + 1])
        # online, the prediction is the vote of the history before this label
        assert r["predictions"] == [got[-1]], t
        got.append(as_list(ps.predict([["u", "v"]]))[0])
    assert got == votes
    assert ps.n_specialists_ == 1
    # the mistakes of the single specialist are its wrong votes (rounds 2..7)
    assert as_list(ps.expert_mistakes_) == [sum(v != y for v, y in zip(got[:-1], labels[1:]))]


@mod_param
def test_pair_history_pushed_even_without_mistake(modname):
    # d = 2, one specialist (u, v), history 3, labels A, B, B, A, A (classes A < B):
    #  R1 created, abstains: nothing seen -> the last class B; y = A: mistake, no update.  [A]
    #  R2 votes A; y = B: mistake, demoted (1/2).                                        [A,B]
    #  R3 [A,B] tie -> the most recent B; y = B: right -- the label is pushed anyway.  [A,B,B]
    #  R4 B (2 to 1); y = A: mistake (1/4).                                           [B,B,A]
    #  R5 B (2 to 1); y = A: mistake (1/8).                                           [B,A,A]
    # (Pushing only after mistakes would give [A,B,A] before R5 and a right vote A there.)
    ps = new(modname, "PairSpecialists", history=3)
    r = online(ps, [["u", "v"]] * 5, ["A", "B", "B", "A", "A"])
    assert r["predictions"] == ["B", "A", "B", "B", "B"]
    assert r["updated"] == [False, True, False, True, True]
    assert as_list(ps.log2_weights_) == [-3.0]
    assert as_list(ps.expert_mistakes_) == [3]
    assert as_list(ps.predict([["u", "v"]])) == ["A"]


@mod_param
def test_pair_ids_in_order_of_first_occurrence(modname):
    # d = 4, pairs in lexicographic order (0,1),(0,2),(0,3),(1,2),(1,3),(2,3) within a row.
    X = [[1, 2, 3, 4], [1, 2, 9, 4], [5, 2, 3, 4]]
    # row 0: all six new.  row 1: (0,1)=(1,2) old; (0,2)=(1,9) new; (0,3)=(1,4) old;
    # (1,2)=(2,9) new; (1,3)=(2,4) old; (2,3)=(9,4) new.  row 2: (5,2),(5,3),(5,4) new;
    # (2,3),(2,4),(3,4) old.
    want = [((0, 1), (1, 2)), ((0, 1), (2, 3)), ((0, 1), (3, 4)), ((1, 2), (2, 3)),
            ((1, 2), (3, 4)), ((2, 3), (3, 4)),
            ((0, 1), (2, 9)), ((1, 2), (2, 9)), ((2, 9), (3, 4)),
            ((0, 5), (1, 2)), ((0, 5), (2, 3)), ((0, 5), (3, 4))]
    for chunks in ([(0, 3)], [(0, 1), (1, 3)], [(0, 1), (1, 2), (2, 3)]):
        ps = new(modname, "PairSpecialists")
        for a, b in chunks:
            ps.partial_fit(X[a:b], [0, 1, 0][a:b], classes=[0, 1])
        assert specs(ps) == want, chunks
        assert ps.n_specialists_ == 12


# ================================================================================================
# 2. Parity mbcore vs mbref
# ================================================================================================

# (demote, promote, threshold, prune_below)
PARAMS = [
    dict(),                                                     # 1/2, 3/2
    dict(demote=0.5, promote=1.0),                              # exact
    dict(demote=0.5, promote=2.0),                              # exact
    dict(demote=0.25, promote=2.0),                             # exact
    dict(demote=0.25, promote=1.0, threshold=0.5),              # exact
    dict(demote=0.5, promote=2.0, threshold=0.75, prune_below=0.2),   # exact + pruning
    dict(demote=0.7, promote=1.3),
    dict(demote=0.3, promote=3.0, threshold=1 / 3),
    dict(demote=0.5, promote=1.5, threshold=1.0),
    dict(demote=0.5, promote=1.5, prune_below=0.3),
    dict(demote=0.6, promote=1.1, threshold=0.6, prune_below=0.5),
    dict(demote=0.5, promote=1.25, prune_below=0.05),
]
PARAM_IDS = ["-".join(f"{k[0]}{v:.3g}" for k, v in p.items()) or "default" for p in PARAMS]

LABEL_SETS = {"int": [-3, 0, 2, 7, 11], "str": ["ant", "bee", "cat", "dog", "eel"]}


def spec_stream(seed, T, n, K, kind, p_awake=0.6):
    """Advice P (T x n), labels y, awake mask W (T x n bool), the K labels.  Specialists have
    accuracies in [0.2, 0.95]; some columns copy or mirror others (equal weights: exact ties)."""
    rng = np.random.default_rng(seed)
    labels = LABEL_SETS[kind][:K]
    yc = rng.integers(0, K, size=T)
    acc = rng.uniform(0.2, 0.95, size=n)
    right = rng.random((T, n)) < acc
    other = (yc[:, None] + rng.integers(1, K, size=(T, n))) % K
    A = np.where(right, yc[:, None], other)
    W = rng.random((T, n)) < p_awake
    if n >= 3:
        A[:, 1] = A[:, 0]
        W[:, 1] = W[:, 0]
        A[:, 2] = (A[:, 0] + 1) % K
        W[:, 2] = W[:, 0]
    lab = np.array(labels, dtype=object)
    P = lab[A]
    y = lab[yc].tolist()
    if kind == "int":
        P = P.astype(np.int64)
    else:
        P = P.astype(str)
    # sleeping entries hold junk of the right type
    junk = -99 if kind == "int" else "zzz"
    P[~W] = junk
    return P, y, W, labels


def check_parity(params, P, y, W, classes, bounds, queries):
    if classes is None:
        bounds = [(0, len(y))]      # the classes are inferred from the first call: feed it all
    a = mbcore.Specialists(**params)
    b = mbref.Specialists(**params)
    ra = {"predictions": [], "errors": [], "updated": [], "mistakes": 0, "updates": 0}
    for k, (lo, hi) in enumerate(bounds):
        r = online(a, P[lo:hi], y[lo:hi], awake=W[lo:hi], classes=classes if k == 0 else None)
        for key in ra:
            ra[key] += r[key]
    rb = online(b, P, y, awake=W, classes=classes)
    assert ra == rb
    assert state(a) == state(b)
    # one call on each side gives the same state as the chunked / row-by-row runs
    for mod, ref in ((mbcore, a), (mbref, b)):
        c = mod.Specialists(**params).partial_fit(P, y, awake=W, classes=classes)
        assert state(c) == state(ref)
    # the updated flags follow the rule: a mistake with at least one voter
    assert ra["updates"] == state(a)["updates_"]
    assert all(u <= e for u, e in zip(ra["updated"], ra["errors"]))
    QP, QW = queries
    assert covered_list(a.predict_covered(QP, awake=QW)) == covered_list(
        b.predict_covered(QP, awake=QW))
    assert as_list(a.predict(QP, awake=QW)) == as_list(b.predict(QP, awake=QW))
    return a, b


def random_bounds(rng, T):
    k = int(rng.integers(1, min(T, 6) + 1))
    cuts = sorted(set(rng.integers(1, T, size=k - 1).tolist())) if T > 1 else []
    pts = [0] + cuts + [T]
    return list(zip(pts[:-1], pts[1:]))


@pytest.mark.parametrize("params", PARAMS, ids=PARAM_IDS)
def test_parity_seeded_streams(params):
    for K, kind, n, p_awake in ((2, "int", 7, 0.6), (3, "str", 9, 0.4), (5, "int", 12, 0.8),
                                (4, "str", 5, 1.0)):
        seed = 1000 * K + n
        P, y, W, labels = spec_stream(seed, 150, n, K, kind, p_awake)
        QP, _, QW, _ = spec_stream(seed + 1, 12, n, K, kind, p_awake)
        rng = np.random.default_rng(seed)
        check_parity(params, P, y, W, labels if K > 2 else None, random_bounds(rng, 150),
                     (QP, QW))


@settings(max_examples=50, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2 ** 32 - 1), T=st.integers(1, 40), n=st.integers(1, 8),
       K=st.integers(2, 5), kind=st.sampled_from(sorted(LABEL_SETS)),
       params=st.sampled_from(PARAMS), p_awake=st.sampled_from([0.15, 0.5, 0.9, 1.0]),
       given_classes=st.booleans())
def test_parity_hypothesis(seed, T, n, K, kind, params, p_awake, given_classes):
    P, y, W, labels = spec_stream(seed, T, n, K, kind, p_awake)
    seen = set(y) | set(np.asarray(P)[W].tolist())
    classes = labels if (given_classes or len(seen) < 2) else None
    QP, _, QW, _ = spec_stream(seed + 1, 5, n, K, kind, p_awake)
    rng = np.random.default_rng(seed)
    if classes is None:
        # the queries may only use labels the learners know
        known = sorted(seen)
        QP = np.where(np.isin(QP, known), QP, known[0])
    check_parity(params, P, y, W, classes, random_bounds(rng, T), (QP, QW))


def test_parity_without_awake_and_ref_run_online():
    # awake omitted = everyone awake; mbref.run_online works there and agrees.
    P, y, _, labels = spec_stream(5, 120, 6, 3, "str", 1.0)
    for params in PARAMS:
        a = mbcore.Specialists(**params)
        b = mbref.Specialists(**params)
        ra = online(a, P, y, classes=labels)
        rb = mbref.run_online(b, P, y, classes=labels)
        assert ra["predictions"] == rb.predictions
        assert ra["errors"] == [bool(e) for e in rb.errors]
        assert ra["mistakes"] == rb.mistakes
        assert state(a) == state(b)
        full = np.ones(P.shape, dtype=bool)
        assert state(mbcore.Specialists(**params).partial_fit(P, y, awake=full,
                                                              classes=labels)) == state(a)


# --- Exact mode near ties, built through the protocol ---------------------------------------------


def build_state(modname, exps, K=2, demote=0.5, promote=1.0, **kw):
    """A learner whose specialist i has log2 weight -k * exps[i] (demote = 2**-k): specialist i is
    the only voter in exps[i] rounds, votes class 0, the label is class 1 -> a mistake each."""
    n = len(exps)
    rows, W = [], []
    for i, m in enumerate(exps):
        for _ in range(m):
            rows.append([0] * n)
            W.append([j == i for j in range(n)])
    if not rows:                      # nothing to demote: one round with nobody awake
        rows, W = [[0] * n], [[False] * n]
    sp = new(modname, "Specialists", demote=demote, promote=promote, **kw)
    sp.partial_fit(rows, [1] * len(rows), awake=W, classes=list(range(K)))
    k = -(math.frexp(demote)[1] - 1)
    assert as_list(sp.log2_weights_) == [-float(k * m) for m in exps]
    return sp


# (exponents e_i: weight 2**-e_i, query votes, query awake, K, the exact answer) -- by hand
NEAR_TIES = {
    # q0 = 1 + 2**-60 > q1 = 1 -> 0.  float64: 1 + 2**-60 == 1: a tie -> 1.
    "tiny_tips_it": ([0, 60, 0], [0, 0, 1], [1, 1, 1], 2, 0),
    # q0 = 2**-1 + 2**-1 = 1 = q1: an exact tie -> the later class 1.
    "exact_tie_two_halves": ([1, 1, 0], [0, 0, 1], [1, 1, 1], 2, 1),
    # three classes: q0 = 1 + 2**-70, q1 = 1 (and a sleeper for 1), q2 = 2**-1 + 2**-2 -> 0.
    "three_classes_tiny": ([0, 70, 0, 0, 1, 2], [0, 0, 1, 1, 2, 2], [1, 1, 1, 0, 1, 1], 3, 0),
    # q1 = q2 = 1 exactly, q0 = 2**-1: the later class 2.
    "three_classes_tie": ([0, 0, 1], [1, 2, 0], [1, 1, 1], 3, 2),
    # q0 = 2**-1 + ... + 2**-60 = 1 - 2**-60 < q1 = 1 -> 1; float64 rounds the sum up: a tie.
    "geometric_below": (list(range(1, 61)) + [0], [0] * 60 + [1], [1] * 61, 2, 1),
    # ... plus one more 2**-60 on class 0: exactly 1 = q1, a tie -> 1.
    "geometric_tie": (list(range(1, 61)) + [60, 0], [0] * 61 + [1], [1] * 62, 2, 1),
    # q1 = 1 + 2**-60 (class 1 is later anyway) vs q0 = 1 + 2**-59 -> 0.
    "tiny_vs_tiny": ([0, 59, 0, 60], [0, 0, 1, 1], [1, 1, 1, 1], 2, 0),
    # weights far below float64's range relative to each other: q0 = 2**-1200 + 2**-1260 >
    # q1 = 2**-1200 -> 0.
    "all_deep": ([1200, 1260, 1200], [0, 0, 1], [1, 1, 1], 2, 0),
    # the leader asleep: q0 = 2**-5 > q1 = 2**-6 -> 0 although s0 (weight 1) votes 1 asleep.
    "leader_asleep": ([0, 5, 6], [1, 0, 1], [0, 1, 1], 2, 0),
}


@mod_param
@pytest.mark.parametrize("case", list(NEAR_TIES))
def test_exact_mode_near_ties(modname, case):
    exps, votes, aw, K, want = NEAR_TIES[case]
    assert _exact_pred([-e for e in exps], votes, aw, K) == want
    rng = np.random.default_rng(len(case))
    for trial in range(3):
        perm = np.arange(len(exps)) if trial == 0 else rng.permutation(len(exps))
        e = [exps[i] for i in perm]
        v = [votes[i] for i in perm]
        a = [aw[i] for i in perm]
        for promote in (1.0, 2.0):
            sp = build_state(modname, e, K=K, promote=promote)
            assert as_list(sp.predict([v], awake=[a])) == [want], (trial, promote)
            r = online(sp, [v, v], [want, want], awake=[a, a])
            assert r["predictions"] == [want, want] and r["mistakes"] == 0


@settings(max_examples=50, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_exact_mode_random_near_ties(data):
    # Random integer exponents from a small set (sums of powers of two tie often), random votes
    # and masks; the prediction must be the exact Fraction decision, on both twins, online too.
    n = data.draw(st.integers(2, 9))
    K = data.draw(st.integers(2, 4))
    pool = data.draw(st.sampled_from([(0, 1, 2), (0, 1, 2, 3, 55, 60), (0, 1, 1100, 1101)]))
    exps = data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    demote = data.draw(st.sampled_from([0.5, 0.25]))
    promote = data.draw(st.sampled_from([1.0, 2.0]))
    k = -(math.frexp(demote)[1] - 1)
    Q = data.draw(st.lists(st.lists(st.integers(0, K - 1), min_size=n, max_size=n),
                           min_size=1, max_size=6))
    QW = data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n),
                            min_size=len(Q), max_size=len(Q)))
    cores = build_state("mbcore", exps, K=K, demote=demote, promote=promote)
    refs = build_state("mbref", exps, K=K, demote=demote, promote=promote)
    lw = [-k * e for e in exps]
    # no voter: the default is the most frequent label so far; build_state's labels are all
    # class 1 (its rounds, or its single round with nobody awake)
    want = []
    for v, a in zip(Q, QW):
        p = _exact_pred(lw, v, a, K)
        want.append(1 if p is None else p)
    assert as_list(cores.predict(Q, awake=QW)) == want
    assert as_list(refs.predict(Q, awake=QW)) == want
    assert online(cores, Q, want, awake=QW) == online(refs, Q, want, awake=QW)
    assert state(cores) == state(refs)


# --- PairSpecialists parity ----------------------------------------------------------------------


def cat_stream(seed, T, d, nvals, K, kind, noise=0.1):
    """Categorical rows (T x d) and labels decided by a hidden pair (a, b) with some noise."""
    rng = np.random.default_rng(seed)
    V = rng.integers(0, nvals, size=(T, d))
    a, b = sorted(rng.choice(d, size=2, replace=False).tolist())
    table = rng.integers(0, K, size=(nvals, nvals))
    yc = table[V[:, a], V[:, b]]
    flip = rng.random(T) < noise
    yc = np.where(flip, rng.integers(0, K, size=T), yc)
    labels = LABEL_SETS[kind][:K]
    y = [labels[c] for c in yc.tolist()]
    if kind == "int":
        X = V * 10 - 5                    # ints, negative ones too
    else:
        X = np.array([f"v{v}" for v in V.ravel()]).reshape(V.shape)
    return X, y, labels


def check_pair_parity(params, X, y, classes, bounds, queries):
    if classes is None:
        bounds = [(0, len(y))]
    a = mbcore.PairSpecialists(**params)
    b = mbref.PairSpecialists(**params)
    ra = {"predictions": [], "errors": [], "updated": [], "mistakes": 0, "updates": 0}
    for k, (lo, hi) in enumerate(bounds):
        r = online(a, X[lo:hi], y[lo:hi], classes=classes if k == 0 else None)
        for key in ra:
            ra[key] += r[key]
    rb = online(b, X, y, classes=classes)
    assert ra == rb
    assert state(a) == state(b)
    for mod, ref in ((mbcore, a), (mbref, b)):
        c = mod.PairSpecialists(**params).partial_fit(X, y, classes=classes)
        assert state(c) == state(ref)
    assert covered_list(a.predict_covered(queries)) == covered_list(b.predict_covered(queries))
    assert as_list(a.predict(queries)) == as_list(b.predict(queries))
    assert state(a) == state(b)                     # predict created nothing
    return a, b


PAIR_PARAMS = [dict(), dict(history=1), dict(history=2, threshold=0.5),
               dict(history=3, demote=0.5, promote=2.0),
               dict(history=7, demote=0.25, promote=1.0, prune_below=0.1),
               dict(history=4, demote=0.7, promote=1.3, threshold=0.9, prune_below=0.4)]


@pytest.mark.parametrize("params", PAIR_PARAMS, ids=lambda p: str(p) if p else "default")
def test_pair_parity_seeded(params):
    for d, nvals, K, kind in ((2, 3, 2, "int"), (3, 3, 3, "str"), (4, 2, 5, "int"),
                              (5, 3, 2, "str")):
        seed = 31 * d + nvals + K
        X, y, labels = cat_stream(seed, 120, d, nvals, K, kind)
        Q, _, _ = cat_stream(seed + 1, 10, d, nvals + 1, K, kind)    # unseen values too
        rng = np.random.default_rng(seed)
        check_pair_parity(params, X, y, labels if K > 2 else None, random_bounds(rng, 120), Q)


@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2 ** 32 - 1), T=st.integers(1, 40), d=st.integers(2, 5),
       nvals=st.integers(1, 4), K=st.integers(2, 5), kind=st.sampled_from(sorted(LABEL_SETS)),
       params=st.sampled_from(PAIR_PARAMS))
def test_pair_parity_hypothesis(seed, T, d, nvals, K, kind, params):
    X, y, labels = cat_stream(seed, T, d, nvals, K, kind)
    Q, _, _ = cat_stream(seed + 1, 4, d, nvals + 1, K, kind)
    rng = np.random.default_rng(seed)
    check_pair_parity(params, X, y, labels, random_bounds(rng, T), Q)


def test_pair_parity_monk_and_tictactoe():
    from mbcore.datasets import load_monks, load_tictactoe
    for X, y in (load_monks(1, split="test"), load_monks(2, split="train"), load_tictactoe()):
        for params in (dict(), dict(history=2, demote=0.5, promote=2.0, threshold=0.7)):
            a = mbcore.PairSpecialists(**params)
            b = mbref.PairSpecialists(**params)
            for _ in range(2):
                ra = mbcore.run_online(a, X, y)
                rb = mbref.run_online(b, X, y)
                assert as_list(ra.predictions) == rb.predictions
                assert ra.mistakes == rb.mistakes
            assert state(a) == state(b)


def test_specialists_parity_mushrooms():
    # The documented use: one specialist per (feature, label), awake where the feature is present.
    from mbcore.datasets import load_mushrooms
    X, y = load_mushrooms(encoding="boolean")
    X, y = X[:1500], y[:1500]
    d = X.shape[1]
    P = np.tile(np.r_[np.ones(d, int), -np.ones(d, int)], (len(y), 1))
    W = np.hstack([X, X]).astype(bool)
    for params in (dict(), dict(threshold=0.9, prune_below=0.01)):
        a = mbcore.Specialists(**params).partial_fit(P, y, awake=W)
        b = mbref.Specialists(**params).partial_fit(P, y, awake=W)
        assert state(a) == state(b)
        assert a.mistakes_ < 0.1 * len(y)


# ================================================================================================
# 3. The mistake bound M <= r log(n) / log(promote)
# ================================================================================================


def bound(r, n, promote):
    return r * math.log(n) / math.log(promote)


BOUND_FACTORS = [(0.5, 1.5), (0.25, 1.75), (0.5, 1.25), (0.75, 1.25), (0.4, 1.6)]


def planted_stream(seed, T, n, r, K, p_awake=0.5):
    """S = specialists 0..r-1 always right when awake, at least one awake per round; the others
    awake at random, voting a wrong class (all the same wrong class in half of the rounds)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=T)
    W = rng.random((T, n)) < p_awake
    S_awake = rng.random((T, r)) < 0.3
    S_awake[np.arange(T), rng.integers(0, r, size=T)] = True
    W[:, :r] = S_awake
    wrong = (y[:, None] + rng.integers(1, K, size=(T, n))) % K
    same = rng.random(T) < 0.5
    wrong = np.where(same[:, None], wrong[:, :1], wrong)
    P = wrong.copy()
    P[:, :r] = y[:, None]
    return P, y, W


@mod_param
@pytest.mark.parametrize("factors", BOUND_FACTORS, ids=lambda f: f"d={f[0]},p={f[1]}")
def test_bound_planted_streams(modname, factors):
    demote, promote = factors
    assert demote + promote <= 2
    T = 600 if modname == "mbref" else 3000
    for seed, n, r, K in ((1, 10, 1, 2), (2, 50, 2, 3), (3, 120, 3, 4), (4, 30, 1, 5)):
        P, y, W = planted_stream(seed, T, n, r, K)
        sp = new(modname, "Specialists", demote=demote, promote=promote)
        sp.partial_fit(P, y, awake=W, classes=list(range(K)))
        # the hypotheses hold: S never votes wrongly, and never loses weight
        assert as_list(sp.expert_mistakes_)[:r] == [0] * r
        assert all(v >= 0 for v in as_list(sp.log2_weights_)[:r])
        assert sp.mistakes_ <= bound(r, n, promote), (seed, sp.mistakes_, bound(r, n, promote))
        assert sp.mistakes_ > 0


@mod_param
@pytest.mark.parametrize("factors", [(0.5, 1.5), (0.25, 1.75), (0.5, 1.25)],
                         ids=lambda f: f"d={f[0]},p={f[1]}")
def test_bound_adaptive_adversary(modname, factors):
    """Each round: the lightest member s of S wakes up alone from S and votes class 0 (the label);
    the heaviest other specialists wake up, voting the last class, until their weight reaches
    s's: a tie or more goes to the wrong class, so every round is a mistake.  Stop when the others
    cannot outweigh s any more.  The mistakes come close to the bound and must not exceed it."""
    demote, promote = factors
    for n, r, K in ((10, 1, 2), (40, 1, 3), (40, 3, 2), (100, 2, 2)):
        sp = new(modname, "Specialists", demote=demote, promote=promote)
        S, others = list(range(r)), list(range(r, n))
        l = [0.0] * n
        rounds = 0
        while rounds < 2000:
            s = min(S, key=lambda i: l[i])
            tot, pick = Fraction(0), []
            done = False
            for i in sorted(others, key=lambda i: -l[i]):
                pick.append(i)
                tot += Fraction(2.0 ** (l[i] - l[s]))
                # a clear excess, or an exact tie of equal weights (ties go to the wrong class)
                if tot >= 1 + Fraction(1, 10 ** 9) or (len(pick) == 1 and l[i] == l[s]):
                    done = True
                    break
            if not done:
                break
            P = [[K - 1 if i in pick else 0 for i in range(n)]]
            W = [[i in pick or i == s for i in range(n)]]
            rec = online(sp, P, [0], awake=W, classes=list(range(K)) if rounds == 0 else None)
            assert rec["predictions"] == [K - 1], rounds
            rounds += 1
            l = [float(v) for v in as_list(sp.log2_weights_)]
        assert sp.mistakes_ == rounds
        b = bound(r, n, promote)
        assert sp.mistakes_ <= b, (n, r, sp.mistakes_, b)
        assert sp.mistakes_ >= 0.5 * b - 2                 # the adversary is not a strawman


def pure_cover(X, y):
    """The pair conditions ((a, u), (b, v)) that imply one label on the whole stream, and a greedy
    subset S of them covering every row that some pure condition covers."""
    X = [list(r) for r in X]
    d = len(X[0])
    labs = {}
    for x, t in zip(X, y):
        for a, b in itertools.combinations(range(d), 2):
            labs.setdefault(((a, x[a]), (b, x[b])), set()).add(t)
    pure = {k for k, v in labs.items() if len(v) == 1}
    rows_of = {k: set() for k in pure}
    for i, x in enumerate(X):
        for a, b in itertools.combinations(range(d), 2):
            k = ((a, x[a]), (b, x[b]))
            if k in rows_of:
                rows_of[k].add(i)
    todo = set().union(*rows_of.values()) if rows_of else set()
    S = []
    while todo:
        k = max(sorted(rows_of), key=lambda k: len(rows_of[k] & todo))
        S.append(k)
        todo -= rows_of[k]
    uncovered = [i for i in range(len(X)) if not any(i in rows_of[k] for k in S)]
    return S, uncovered


def rounds_without_S_vote(X, S, passes):
    """Rounds in which no member of S votes: every awake member of S is at its first sight."""
    S = set(S)
    seen = set()
    count = 0
    X = [list(r) for r in X]
    d = len(X[0])
    for _ in range(passes):
        for x in X:
            keys = [((a, x[a]), (b, x[b])) for a, b in itertools.combinations(range(d), 2)]
            if not any(k in S and k in seen for k in keys):
                count += 1
            seen.update(keys)
    return count


def test_bound_pair_specialists_monk3():
    """MONK-3's test set is its whole noise-free domain; every point is decided by a pure pair of
    conditions (e.g. a5 = 4 -> 0; a2 = 1 and a5 = 1 -> 1; a2 = 3 and a4 = 2 -> 0), so those
    specialists never vote wrongly (their histories hold one label).  With S a cover of pure
    specialists: M <= |S| log(n) / log(3/2) + (rounds where no member of S votes yet)."""
    from mbcore.datasets import load_monks
    X, y = load_monks(3, split="test")
    S, uncovered = pure_cover(X.tolist(), y.tolist())
    assert uncovered == [] and 5 <= len(S) <= 25
    passes = 4
    for modname in MODS:
        ps = new(modname, "PairSpecialists")
        for _ in range(passes):
            ps.partial_fit(X, y)
        n = ps.n_specialists_
        ids = specs(ps)
        em = as_list(ps.expert_mistakes_)
        assert all(em[ids.index(k)] == 0 for k in S)
        extra = rounds_without_S_vote(X.tolist(), S, passes)
        assert ps.mistakes_ <= bound(len(S), n, 1.5) + extra


@mod_param
def test_bound_pair_specialists_one_pair_decides(modname):
    # Labels are a function of (x0, x1) (3 x 3 values, K = 3); attributes 2..4 are noise.  S = the
    # nine (0,1) specialists: each sees one label only, votes in every round after its first.
    rng = np.random.default_rng(17)
    T = 1500 if modname == "mbcore" else 400
    V = rng.integers(0, 3, size=(T, 5))
    table = np.array([[0, 1, 2], [2, 0, 1], [1, 1, 0]])
    y = table[V[:, 0], V[:, 1]]
    ps = new(modname, "PairSpecialists")
    ps.partial_fit(V, y, classes=[0, 1, 2])
    S = [((0, u), (1, v)) for u in range(3) for v in range(3)]
    ids = specs(ps)
    em = as_list(ps.expert_mistakes_)
    assert all(em[ids.index(k)] == 0 for k in S)
    extra = rounds_without_S_vote(V.tolist(), S, 1)
    assert extra <= 9
    assert ps.mistakes_ <= bound(len(S), ps.n_specialists_, 1.5) + extra


@mod_param
@pytest.mark.parametrize("problem", [1, 3])
def test_pair_specialists_monk_passes_reach_zero(modname, problem):
    """Observed (and a consequence of the rule once a pass is clean: with history 5 every pair
    condition is awake on >= 5 rows per pass, so histories and weights repeat): repeated passes
    over the MONK-1 / MONK-3 test sets reach a pass without mistakes and stay there."""
    from mbcore.datasets import load_monks
    X, y = load_monks(problem, split="test")
    ps = new(modname, "PairSpecialists")
    per_pass = []
    for _ in range(6):
        per_pass.append(online_mistakes(ps, X, y))
    # number of specialists: sum over the 15 pairs of |values a| * |values b| (3,3,2,3,4,2)
    sizes = [3, 3, 2, 3, 4, 2]
    assert ps.n_specialists_ == sum(a * b for a, b in itertools.combinations(sizes, 2)) == 119
    assert per_pass[0] > 0
    first_zero = per_pass.index(0)
    assert first_zero <= 4, per_pass
    assert all(m == 0 for m in per_pass[first_zero:]), per_pass


def online_mistakes(clf, X, y):
    if modname_of(clf) == "mbcore":
        return mbcore.run_online(clf, X, y).mistakes
    return mbref.run_online(clf, X, y).mistakes


# ================================================================================================
# 4. Bad input
# ================================================================================================

GOOD_P = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]]
GOOD_W = [[1, 1, 0], [1, 1, 1], [0, 1, 1], [1, 0, 1]]
GOOD_Y = [1, 0, 1, 1]
MORE_P = [[1, 1, 1], [0, 1, 0], [1, 0, 0]]
MORE_W = [[1, 0, 1], [1, 1, 1], [0, 1, 1]]
MORE_Y = [0, 1, 1]


def fitted_specialists(modname, **params):
    return new(modname, "Specialists", **params).partial_fit(GOOD_P, GOOD_Y, awake=GOOD_W)


def continues_like_fresh(modname, clf, **params):
    ref = fitted_specialists(modname, **params)
    a = online(clf, MORE_P, MORE_Y, awake=MORE_W)
    b = online(ref, MORE_P, MORE_Y, awake=MORE_W)
    assert a == b and state(clf) == state(ref)



# name -> (P, y, awake, exception); on a learner fitted with 3 specialists, labels {0, 1}
LATER_BAD = {
    "awake_too_few_rows": ([[1, 0, 1], [0, 0, 1]], [1, 0], [[1, 1, 1]], ValueError),
    "awake_too_many_rows": ([[1, 0, 1]], [1], [[1, 1, 1], [1, 1, 1]], ValueError),
    "awake_too_narrow": ([[1, 0, 1]], [1], [[1, 1]], ValueError),
    "awake_too_wide": ([[1, 0, 1]], [1], [[1, 1, 1, 1]], ValueError),
    "awake_1d": ([[1, 0, 1]], [1], [1, 1, 1], ValueError),
    "awake_3d": ([[1, 0, 1]], [1], np.ones((1, 3, 1), dtype=bool), ValueError),
    "awake_value_2": ([[1, 0, 1], [0, 1, 1]], [1, 0], [[1, 1, 1], [1, 2, 1]], ValueError),
    "awake_value_minus_1": ([[1, 0, 1]], [1], [[1, -1, 1]], ValueError),
    "awake_value_half": ([[1, 0, 1]], [1], np.full((1, 3), 0.5), ValueError),
    "awake_value_str": ([[1, 0, 1]], [1], [["1", "1", "1"]], ValueError),
    "awake_value_none": ([[1, 0, 1]], [1], [[1, None, 1]], ValueError),
    "awake_a_string": ([[1, 0, 1]], [1], "111", ValueError),
    "advice_outside_awake": ([[1, 0, 2]], [1], [[1, 1, 1]], ValueError),
    "advice_outside_last_row": ([[1, 0, 1], [1, 1, 1], [0, 5, 0]], [1, 0, 1],
                                [[1, 1, 1]] * 3, ValueError),
    "advice_none_awake": ([[1, None, 1]], [1], [[1, 1, 1]], ValueError),
    "advice_nan_awake": (np.array([[1.0, np.nan, 0.0]]), [1], [[1, 1, 1]], ValueError),
    "advice_str_awake": ([["1", "0", "1"]], [1], [[1, 0, 1]], ValueError),
    "advice_wrong_width": ([[1, 0]], [1], None, ValueError),
    "advice_1d": ([1, 0, 1], [1], None, ValueError),
    "advice_3d": (np.zeros((1, 1, 3), dtype=np.int64), [1], None, ValueError),
    "advice_empty": (np.zeros((0, 3), dtype=np.int64), [], None, ValueError),
    "advice_none": (None, [1], None, TypeError),
    "y_too_long": ([[1, 0, 1]], [1, 0], [[1, 1, 1]], ValueError),
    "y_too_short": ([[1, 0, 1], [0, 0, 1]], [1], [[1, 1, 1]] * 2, ValueError),
    "y_outside_classes": ([[1, 0, 1]], [2], [[1, 1, 1]], ValueError),
    "y_none": ([[1, 0, 1]], None, [[1, 1, 1]], TypeError),
    "y_2d": ([[1, 0, 1]], [[1]], [[1, 1, 1]], ValueError),
    "y_2d_array": ([[1, 0, 1]], np.array([[1]]), [[1, 1, 1]], ValueError),
}

LATER_XFAIL = {}


def later_bad_params():
    out = []
    for modname in MODS:
        for case in LATER_BAD:
            marks = LATER_XFAIL.get((modname, case), ())
            out.append(pytest.param(modname, case, marks=marks, id=f"{modname}-{case}"))
    return out


@pytest.mark.parametrize("modname, case", later_bad_params())
def test_bad_input_on_a_fitted_learner(modname, case):
    P, y, W, exc = LATER_BAD[case]
    P0, y0, W0 = copy.deepcopy(P), copy.deepcopy(y), copy.deepcopy(W)
    clf = fitted_specialists(modname)
    before = state(clf)
    pred_before = as_list(clf.predict(MORE_P, awake=MORE_W))
    kw = {} if W is None else {"awake": W}
    with pytest.raises(exc, match="Specialists"):
        clf.partial_fit(P, y, **kw)
    if modname == "mbcore":
        with pytest.raises(exc, match="Specialists"):
            mbcore.run_online(clf, P, y, **kw)
    assert state(clf) == before
    assert as_list(clf.predict(MORE_P, awake=MORE_W)) == pred_before
    assert same_input(P, P0) and same_input(y, y0) and same_input(W, W0)
    continues_like_fresh(modname, clf)


# On a fresh learner: the first call fails and leaves it unfitted.
FIRST_BAD = {
    "awake_shape": ([[1, 0], [0, 1]], [1, 0], [[1, 1]], ValueError),
    "awake_value": ([[1, 0], [0, 1]], [1, 0], [[1, 3], [1, 1]], ValueError),
    "advice_outside_given_classes": ([[0, 1], [5, 1]], [0, 1], [[1, 1], [1, 1]], ValueError),
    "advice_none_awake_given_classes": ([[0, None]], [0], [[1, 1]], ValueError),
    "y_length": ([[0, 1], [0, 1]], [0, 1, 1], None, ValueError),
    "no_specialists": (np.zeros((2, 0), dtype=np.int64), [1, 0], None, ValueError),
    "advice_none": (None, [0, 1], None, TypeError),
    "one_label_no_classes": ([[1, 1]], [1], None, ValueError),
}


@mod_param
@pytest.mark.parametrize("case", list(FIRST_BAD))
def test_bad_first_call(modname, case):
    P, y, W, exc = FIRST_BAD[case]
    P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
    clf = new(modname, "Specialists")
    classes = [0, 1] if "given_classes" in case else None
    kw = {} if W is None else {"awake": W}
    with pytest.raises(exc, match="Specialists"):
        clf.partial_fit(P, y, classes=classes, **kw)
    assert_unfitted(modname, clf)
    assert same_input(P, P0) and y == y0
    clf.partial_fit(GOOD_P, GOOD_Y, awake=GOOD_W)
    continues_like_fresh(modname, clf)


@mod_param
@pytest.mark.parametrize("bad", [
    dict(demote=0), dict(demote=1), dict(demote=1.5), dict(demote=-0.5),
    dict(demote=float("nan")), dict(demote=True), dict(demote="0.5"), dict(demote=None),
    dict(promote=0.99), dict(promote=0), dict(promote=float("inf")), dict(promote=True),
    dict(promote=float("nan")), dict(promote="2"),
    dict(threshold=-0.1), dict(threshold=1.1), dict(threshold=float("nan")),
    dict(threshold=True), dict(threshold=None),
    dict(prune_below=0), dict(prune_below=1), dict(prune_below=1.5), dict(prune_below=-0.1),
    dict(prune_below=True), dict(prune_below=float("nan")), dict(prune_below="0.1"),
], ids=repr)
@pytest.mark.parametrize("name", ["Specialists", "PairSpecialists"])
def test_bad_parameters(modname, name, bad):
    key = next(iter(bad))
    if name == "Specialists":
        def fit(c, first):
            return c.partial_fit(GOOD_P if first else MORE_P, GOOD_Y if first else MORE_Y,
                                 awake=GOOD_W if first else MORE_W)
    else:
        def fit(c, first):
            return c.partial_fit([[1, 2], [1, 3], [2, 2]] if first else [[2, 3]],
                                 [0, 1, 1] if first else [0])
    clf = new(modname, name, **bad)
    with pytest.raises(ValueError, match=f"{name}.*{key}"):
        fit(clf, True)
    assert_unfitted(modname, clf, P=((1, 2),) if name == "PairSpecialists" else ((1, 0, 1),))
    # Set on a fitted learner: the next call fails and changes nothing.
    clf = fit(new(modname, name), True)
    before = state(clf)
    clf.set_params(**bad)
    with pytest.raises(ValueError, match=name):
        fit(clf, False)
    assert state(clf) == before


@mod_param
@pytest.mark.parametrize("history", [0, 256, -1, True, False, 2.0, "5", None, 5.5,
                                     np.bool_(True)], ids=repr)
def test_bad_history(modname, history):
    clf = new(modname, "PairSpecialists", history=history)
    with pytest.raises(ValueError, match="PairSpecialists.*history"):
        clf.partial_fit([[1, 2], [1, 3]], [0, 1])
    assert_unfitted(modname, clf, P=((1, 2),))


@mod_param
@pytest.mark.parametrize("history", [1, 255, np.int64(3)], ids=repr)
def test_history_bounds_accepted(modname, history):
    ps = new(modname, "PairSpecialists", history=history).partial_fit([[1, 2], [1, 2]], [0, 1])
    # the second row: the (1,2) specialist votes 0 (history [0]) -> mistake
    assert ps.mistakes_ == 2 and as_list(ps.log2_weights_) == [-1.0]


PAIR_X0 = [[1, 2, 3], [1, 3, 3], [2, 2, 1]]
PAIR_Y0 = ["A", "B", "A"]

# name -> (X, y, exception, xfail marks (mbcore, mbref)); first call on a fresh learner
PAIR_FIRST_BAD = {
    "nan_float": ([[1.0, np.nan], [1.0, 2.0]], [0, 1], ValueError, ((), ())),
    "nan_object_array": (np.array([["a", np.nan], ["a", "b"]], dtype=object), [0, 1],
                         ValueError, ((), ())),
    "nan_among_strings": ([["a", float("nan")], ["a", "b"]], [0, 1], ValueError,
                          ((), ())),
    "one_attribute": ([[1], [2]], [0, 1], ValueError, ((), ())),
    "no_attribute": (np.zeros((2, 0)), [0, 1], ValueError, ((), ())),
    "no_rows": (np.zeros((0, 3)), [], ValueError, ((), ())),
    "one_d": ([1, 2, 3], [0, 1, 0], ValueError, ((), ())),
    "ragged": ([[1, 2, 3], [1, 2]], [0, 1], ValueError, ((), ())),
    "unhashable_dict": (np.array([[1, {}], [1, 2]], dtype=object), [0, 1], TypeError, ((), ())),
    "unhashable_list_values": ([[[1], [2]], [[1], [3]]], [0, 1], TypeError,
                               ((), ())),
    "y_length": ([[1, 2], [1, 3]], [0, 1, 1], ValueError, ((), ())),
    "y_none": ([[1, 2], [1, 3]], None, TypeError, ((), ())),
    "x_none": (None, [0, 1], TypeError, ((), ())),
}


def pair_first_params():
    out = []
    for case, (_, _, _, marks) in PAIR_FIRST_BAD.items():
        for modname, m in zip(MODS, marks):
            out.append(pytest.param(modname, case, marks=m, id=f"{modname}-{case}"))
    return out


@pytest.mark.parametrize("modname, case", pair_first_params())
def test_pair_bad_first_call(modname, case):
    X, y, exc, _ = PAIR_FIRST_BAD[case]
    X0, y0 = copy.deepcopy(X), copy.deepcopy(y)
    ps = new(modname, "PairSpecialists")
    with pytest.raises(exc, match="PairSpecialists"):
        ps.partial_fit(X, y)
    assert_unfitted(modname, ps, P=((1, 2),))
    assert same_input(X, X0) and y == y0
    ps.partial_fit(PAIR_X0, PAIR_Y0)
    ref = new(modname, "PairSpecialists").partial_fit(PAIR_X0, PAIR_Y0)
    assert state(ps) == state(ref)


PAIR_LATER_BAD = {
    "nan": ([[1.0, 2.0, np.nan]], ["A"], ValueError),
    "fewer_attributes": ([[1, 2]], ["A"], ValueError),
    "more_attributes": ([[1, 2, 3, 4]], ["A"], ValueError),
    "one_attribute": ([[1]], ["A"], ValueError),
    "unhashable": (np.array([[1, 2, {}]], dtype=object), ["A"], TypeError),
    # new values in the rows, and a bad label in the last one: nothing may be created
    "y_outside_with_new_values": ([[7, 8, 9], [1, 8, 3]], ["A", "C"], ValueError),
    "y_length_with_new_values": ([[7, 8, 9]], ["A", "B"], ValueError),
    "unhashable_after_new_values": (np.array([[7, 8, 9], [1, 2, {}]], dtype=object),
                                    ["A", "B"], TypeError),
    "nan_after_new_values": ([[7.0, 8.0, 9.0], [1.0, np.nan, 3.0]], ["A", "B"], ValueError),
    "classes_differ": ([[1, 2, 3]], ["A"], ValueError),
}


@mod_param
@pytest.mark.parametrize("case", list(PAIR_LATER_BAD))
def test_pair_bad_input_on_a_fitted_learner(modname, case):
    X, y, exc = PAIR_LATER_BAD[case]
    X0, y0 = copy.deepcopy(X), copy.deepcopy(y)
    ps = new(modname, "PairSpecialists").partial_fit(PAIR_X0, PAIR_Y0)
    before = state(ps)
    Q = [[7, 8, 9], [1, 2, 3], [1, 8, 3]]
    pred_before = covered_list(ps.predict_covered(Q))
    kw = {"classes": ["A", "B", "C"]} if case == "classes_differ" else {}
    with pytest.raises(exc, match="PairSpecialists"):
        ps.partial_fit(X, y, **kw)
    assert state(ps) == before
    assert covered_list(ps.predict_covered(Q)) == pred_before
    assert same_input(X, X0) and y == y0
    # continues exactly like a learner that never saw the failed call (ids of new specialists too)
    ref = new(modname, "PairSpecialists").partial_fit(PAIR_X0, PAIR_Y0)
    more_X, more_y = [[7, 8, 9], [1, 8, 3], [7, 2, 3]], ["A", "B", "B"]
    assert online(ps, more_X, more_y) == online(ref, more_X, more_y)
    assert state(ps) == state(ref)


@mod_param
def test_bad_input_to_predict(modname):
    clf = fitted_specialists(modname)
    before = state(clf)
    for P, W, exc in (([[1, 0]], None, ValueError), ([[1, 0, 2]], None, ValueError),
                      ([[1, 0, 2]], [[1, 1, 1]], ValueError), ([1, 0, 1], None, ValueError),
                      ([[1, 0, 1]], [[1, 1]], ValueError), ([[1, 0, 1]], [[1, 5, 1]], ValueError),
                      (None, None, TypeError)):
        with pytest.raises(exc, match="Specialists"):
            clf.predict(P, awake=W)
        with pytest.raises(exc, match="Specialists"):
            clf.predict_covered(P, awake=W)
    # sleeping junk is fine in predict too
    assert as_list(clf.predict([[1, 0, 2]], awake=[[1, 1, 0]])) == as_list(
        clf.predict([[1, 0, 0]], awake=[[1, 1, 0]]))
    assert state(clf) == before
    ps = new(modname, "PairSpecialists").partial_fit(PAIR_X0, PAIR_Y0)
    before = state(ps)
    for X, exc in (([[1, 2]], ValueError), ([[1, 2, np.nan]], ValueError),
                   ([[1, 2, 3, 4]], ValueError), (None, TypeError),
                   (np.array([[1, 2, []]], dtype=object), TypeError)):
        with pytest.raises(exc, match="PairSpecialists"):
            ps.predict(X)
    assert state(ps) == before


@mod_param
@pytest.mark.parametrize("name", ["Specialists", "PairSpecialists"])
def test_predict_before_fit_raises_not_fitted(modname, name, request):
    clf = new(modname, name)
    with pytest.raises(module(modname).NotFittedError):
        clf.predict([[1, 2]])


@mod_param
def test_later_classes_must_match(modname):
    sp = fitted_specialists(modname)
    before = state(sp)
    with pytest.raises(ValueError, match="classes"):
        sp.partial_fit(MORE_P, MORE_Y, awake=MORE_W, classes=[0, 1, 2])
    assert state(sp) == before
    sp.partial_fit(MORE_P, MORE_Y, awake=MORE_W, classes=[1, 0])     # same set: fine


@mod_param
def test_inputs_never_modified(modname):
    P, y, W, labels = spec_stream(3, 60, 6, 3, "str")
    for variant in ("array", "list", "fortran"):
        if variant == "array":
            PP, WW = P, W
        elif variant == "list":
            PP, WW = P.tolist(), W.astype(int).tolist()
        else:
            PP, WW = np.asfortranarray(P), np.asfortranarray(W)
        P0, W0, y0 = copy.deepcopy(PP), copy.deepcopy(WW), copy.deepcopy(y)
        sp = new(modname, "Specialists")
        online(sp, PP, y, awake=WW, classes=labels)
        sp.partial_fit(PP, y, awake=WW)
        sp.predict(PP, awake=WW)
        sp.predict_covered(PP, awake=WW)
        for a, b in ((PP, P0), (WW, W0), (y, y0)):
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, b) and a.dtype == b.dtype
            else:
                assert a == b


# ================================================================================================
# Twin API (the brief's contract: same names, same results)
# ================================================================================================


def test_ref_run_online_accepts_awake():
    r = mbref.run_online(mbref.Specialists(), TWO_P, TWO_Y, awake=TWO_W)
    assert r.predictions == TWO_PRED


def test_ref_run_record_has_updated():
    r = mbref.run_online(mbref.Specialists(), TWO_P, TWO_Y)
    assert hasattr(r, "updated") and hasattr(r, "updates")


def test_ref_has_fit_and_score():
    sp = mbref.Specialists().fit(TWO_P, TWO_Y, awake=TWO_W)
    assert sp.score(TWO_P, TWO_Y, awake=TWO_W) == mbcore.Specialists().fit(
        TWO_P, TWO_Y, awake=TWO_W).score(TWO_P, TWO_Y, awake=TWO_W)


def test_pair_mixed_type_values_parity():
    X = [[1, "a"], ["1", "a"], [1.0, "a"], [2, "a"]]
    y = [0, 1, 0, 1]
    a = mbcore.PairSpecialists().partial_fit(X, y)
    b = mbref.PairSpecialists().partial_fit(X, y)
    assert as_list(a.specialists_) == as_list(b.specialists_)


# ================================================================================================
# 5. Numerics over long runs
# ================================================================================================


def exact_round_predictions(L, W, P, K, default):
    """The rule's prediction for every round from the log2 weights before it (T x n int64),
    exactly: float64 terms 2**(l - max) decide when the top two classes differ clearly, Python
    integers decide the near ties.  ``default`` gives the no-voter prediction of each round."""
    T, n = L.shape
    has = W.any(axis=1)
    E = np.where(W, L, np.iinfo(np.int64).min).max(axis=1)
    E = np.where(has, E, 0)
    diff = np.where(W, L - E[:, None], -3000).astype(np.float64)
    terms = np.where(W, np.exp2(np.maximum(diff, -1100.0)), 0.0)
    f = np.stack([(terms * (P == v)).sum(axis=1) for v in range(K)], axis=1)
    pred = K - 1 - np.argmax(f[:, ::-1], axis=1)          # last argmax
    srt = np.sort(f, axis=1)
    close = has & (srt[:, -1] - srt[:, -2] <= srt[:, -1] * 2.0 ** -40)
    for t in np.flatnonzero(close).tolist():
        idx = np.flatnonzero(W[t])
        ls = L[t, idx].tolist()
        lo = min(ls)
        S = [0] * K
        for li, i in zip(ls, idx.tolist()):
            S[int(P[t, i])] += 1 << (li - lo)
        best = 0
        for k in range(1, K):
            if S[k] >= S[best]:
                best = k
        pred[t] = best
    return np.where(has, pred, default), int(close.sum())


def default_predictions(y, K, counts0):
    """The no-voter prediction before each round: the most frequent label so far (later class on
    ties), counting ``counts0`` from earlier batches."""
    onehot = np.zeros((len(y), K), dtype=np.int64)
    onehot[np.arange(len(y)), y] = 1
    before = counts0[None, :] + np.cumsum(onehot, axis=0) - onehot
    return K - 1 - np.argmax(before[:, ::-1], axis=1), counts0 + onehot.sum(axis=0)


def test_million_rounds_exact_mode_beyond_float64():
    """Exact mode (demote 1/2, promote 4: log2 steps -1 and +2), K = 3, six specialists.
    Phase 1 (200,000 rounds): s0 votes 0, s1 votes 1, labels 0,1,0,1,...: a tie goes to 1 (wrong),
      then s0 = 4 > s1 = 1/2 predicts 0 (wrong), and so on: every round a mistake, both weights
      reach 2**100000 exactly (after 2k rounds both are 2**k).
    Phase 2 (100,000 rounds): s2 alone votes 0, labels 1: s2 falls to 2**-100000.
    Phase 3 (700,000 rounds): s3 always right (awake 70%), the others always wrong (each awake
      30%), random labels.  Every prediction is recomputed exactly from the integer exponents
      replayed from the recorded mistakes."""
    K, n = 3, 6
    T1, T2, T3 = 200_000, 100_000, 700_000
    rng = np.random.default_rng(11)
    sp = mbcore.Specialists(demote=0.5, promote=4.0)

    P1 = np.zeros((T1, n), dtype=np.int8)
    P1[:, 1] = 1
    W1 = np.zeros((T1, n), dtype=bool)
    W1[:, :2] = True
    y1 = (np.arange(T1) % 2).astype(np.int8)
    r1 = mbcore.run_online(sp, P1, y1, awake=W1, classes=[0, 1, 2])
    assert np.array_equal(r1.predictions, 1 - y1) and r1.mistakes == T1 == r1.updates
    assert as_list(sp.log2_weights_) == [1e5, 1e5, 0.0, 0.0, 0.0, 0.0]
    # tie -> 1, so s1's vote wins exactly when both are equal; predict agrees
    assert as_list(sp.predict([[0, 1, 0, 0, 0, 0]], awake=[[1, 1, 0, 0, 0, 0]])) == [1]

    P2 = np.zeros((T2, n), dtype=np.int8)
    W2 = np.zeros((T2, n), dtype=bool)
    W2[:, 2] = True
    y2 = np.ones(T2, dtype=np.int8)
    r2 = mbcore.run_online(sp, P2, y2, awake=W2)
    assert r2.mistakes == T2 and not np.any(r2.predictions)
    lw = as_list(sp.log2_weights_)
    assert lw == [1e5, 1e5, -1e5, 0.0, 0.0, 0.0]
    # a 2**200000 spread: s2 (2**-100000) alone vs nobody else; s0 + s2 vs s1 -> s0's class 0
    # wins by 2**-100000 exactly: a decision no float64 sum can make.
    Q = [[0, 1, 0, 2, 2, 2], [2, 1, 2, 0, 0, 0], [0, 1, 2, 2, 1, 0]]
    QW = [[1, 1, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0], [1, 0, 1, 1, 1, 1]]
    want = [_exact_pred(lw, v, a, K) for v, a in zip(Q, QW)]
    assert want == [0, 2, 0]
    assert as_list(sp.predict(Q, awake=QW)) == want

    y3 = rng.integers(0, K, size=T3).astype(np.int8)
    W3 = rng.random((T3, n)) < 0.3
    W3[:, 3] = rng.random(T3) < 0.7
    P3 = ((y3[:, None] + rng.integers(1, K, size=(T3, n))) % K).astype(np.int8)
    P3[:, 3] = y3
    l_start = np.array(lw, dtype=np.int64)
    r3 = mbcore.run_online(sp, P3, y3, awake=W3)
    err = np.asarray(r3.errors, dtype=bool)
    inc = np.where(W3 & err[:, None], np.where(P3 == y3[:, None], 2, -1), 0).astype(np.int64)
    csum = np.cumsum(inc, axis=0)
    L = l_start[None, :] + csum - inc
    counts0 = np.array([T1 // 2, T1 // 2 + T2, 0], dtype=np.int64)
    default, _ = default_predictions(y3.astype(np.int64), K, counts0)
    want3, n_close = exact_round_predictions(L, W3, P3, K, default)
    got3 = np.asarray(r3.predictions)
    bad = np.flatnonzero(got3 != want3)
    assert bad.size == 0, (bad[:10].tolist(), got3[bad[:10]].tolist(), want3[bad[:10]].tolist())
    assert np.array_equal(err, got3 != y3)
    final = (l_start + csum[-1]).astype(np.float64).tolist()
    assert as_list(sp.log2_weights_) == final
    # the weights really span far beyond float64's range, in both directions
    assert max(final) > 5e4 and min(final) < -1.5e5
    spread = np.where(W3, L, 0).max(axis=1) - np.where(W3, L, 0).min(axis=1)
    assert int((spread > 2000).sum()) > 1000
    # totals
    has = W3.any(axis=1)
    assert sp.mistakes_ == T1 + T2 + int(err.sum())
    assert sp.updates_ == T1 + T2 + int((err & has).sum())
    em = (W3 & (P3 != y3[:, None])).sum(axis=0)
    assert as_list(sp.expert_mistakes_) == [T1 // 2 + int(em[0]), T1 // 2 + int(em[1]),
                                            T2 + int(em[2])] + [int(v) for v in em[3:]]


def test_long_non_dyadic_run_beyond_float64_matches_twin():
    """demote 1/2, promote 3/2: a see-saw of two specialists (labels alternate, every round a
    mistake, the pair ties again every second round) drives both to 2**-1245; then random rounds
    with an always-right specialist and far lighter and heavier ones.  mbcore == mbref."""
    n, K = 5, 3
    rng = np.random.default_rng(3)
    T1, T2 = 6000, 6000
    P1 = np.zeros((T1, n), dtype=np.int64)
    P1[:, 1] = 1
    W1 = np.zeros((T1, n), dtype=bool)
    W1[:, :2] = True
    y1 = np.arange(T1) % 2
    y2 = rng.integers(0, K, size=T2)
    W2 = rng.random((T2, n)) < 0.4
    P2 = (y2[:, None] + rng.integers(1, K, size=(T2, n))) % K
    P2[:, 2] = y2
    a = mbcore.Specialists()
    b = mbref.Specialists()
    for P, y, W, cl in ((P1, y1, W1, [0, 1, 2]), (P2, y2, W2, None)):
        ra = mbcore.run_online(a, P, y, awake=W, classes=cl)
        rb = mbref.run_online(b, P, y, awake=W, classes=cl)
        assert as_list(ra.predictions) == rb.predictions
        assert state(a) == state(b)
    lw = as_list(a.log2_weights_)
    # after phase 1 both see-saw weights were (T1/2)(log2 3/2 - 1) = -1245.1...
    assert min(lw) < -1100


# ================================================================================================
# 6. State: predict is read-only, pickling, fit resets
# ================================================================================================


@mod_param
def test_predict_does_not_change_state(modname):
    P, y, W, labels = spec_stream(21, 80, 7, 4, "int", 0.5)
    Q, _, QW, _ = spec_stream(22, 30, 7, 4, "int", 0.5)
    a = new(modname, "Specialists", threshold=0.5, prune_below=0.2)
    b = new(modname, "Specialists", threshold=0.5, prune_below=0.2)
    for clf in (a, b):
        clf.partial_fit(P[:40], y[:40], awake=W[:40], classes=labels)
    before = state(a)
    first = as_list(a.predict(Q, awake=QW))
    for _ in range(3):
        assert as_list(a.predict(Q, awake=QW)) == first
        assert covered_list(a.predict_covered(Q, awake=QW))[0] == first
        if modname == "mbcore":
            acc = a.score(Q, [labels[0]] * 30, awake=QW)
            assert acc == sum(p == labels[0] for p in first) / 30
    assert state(a) == before
    assert online(a, P[40:], y[40:], awake=W[40:]) == online(b, P[40:], y[40:], awake=W[40:])
    assert state(a) == state(b)
    # PairSpecialists: predict on seen and unseen values creates nothing
    X, yy, labs = cat_stream(5, 60, 4, 3, 3, "str")
    Xq, _, _ = cat_stream(6, 20, 4, 5, 3, "str")
    c = new(modname, "PairSpecialists").partial_fit(X[:30], yy[:30], classes=labs)
    e = new(modname, "PairSpecialists").partial_fit(X[:30], yy[:30], classes=labs)
    before = state(c)
    for _ in range(2):
        c.predict(Xq)
        c.predict_covered(Xq)
    assert state(c) == before
    assert online(c, X[30:], yy[30:]) == online(e, X[30:], yy[30:])
    assert state(c) == state(e)


@mod_param
@pytest.mark.parametrize("name", ["Specialists", "PairSpecialists"])
def test_pickle_mid_stream(modname, name):
    if name == "Specialists":
        P, y, W, labels = spec_stream(8, 100, 6, 3, "str", 0.6)
        args = lambda lo, hi: (P[lo:hi], y[lo:hi], W[lo:hi])      # noqa: E731
    else:
        P, y, labels = cat_stream(8, 100, 4, 3, 3, "str")
        args = lambda lo, hi: (P[lo:hi], y[lo:hi], None)          # noqa: E731
    clf = new(modname, name, prune_below=0.1, threshold=0.4)
    Xa, ya, Wa = args(0, 50)
    online(clf, Xa, ya, awake=Wa, classes=labels)
    twin = pickle.loads(pickle.dumps(clf))
    assert type(twin) is type(clf) and state(twin) == state(clf)
    Xb, yb, Wb = args(50, 100)
    assert online(twin, Xb, yb, awake=Wb) == online(clf, Xb, yb, awake=Wb)
    assert state(twin) == state(clf)


@mod_param
@pytest.mark.parametrize("name", ["Specialists", "PairSpecialists"])
def test_the_experts_module_still_names_them(modname, name, monkeypatch):
    """The classes moved from the experts module to the specialists module: imports from the
    experts module still give them, and a pickle made before the move, which names the class
    in the experts module, still loads."""
    import importlib
    cls = getattr(importlib.import_module(f"{modname}.specialists"), name)
    experts = importlib.import_module(f"{modname}.experts")
    assert getattr(experts, name) is cls is getattr(module(modname), name)
    assert name in experts.__all__
    if name == "Specialists":
        P, y, W, labels = spec_stream(9, 60, 5, 3, "int", 0.6)
    else:
        (P, y, labels), W = cat_stream(9, 60, 4, 3, 3, "int"), None
    clf = new(modname, name)
    online(clf, P, y, awake=W, classes=labels)
    monkeypatch.setattr(cls, "__module__", f"{modname}.experts")   # as pickled before
    old = pickle.dumps(clf)
    monkeypatch.undo()
    assert f"{modname}.experts".encode() in old and f"{modname}.specialists".encode() not in old
    twin = pickle.loads(old)
    assert type(twin) is cls and state(twin) == state(clf)


@pytest.mark.parametrize("name", ["Specialists", "PairSpecialists"])
def test_fit_resets(name):
    if name == "Specialists":
        P1, y1, W1, l1 = spec_stream(1, 50, 5, 3, "int")
        P2, y2, W2, l2 = spec_stream(2, 40, 8, 2, "str")     # other width, other labels
        kw1, kw2 = {"awake": W1}, {"awake": W2}
    else:
        P1, y1, l1 = cat_stream(1, 50, 4, 3, 3, "int")
        P2, y2, l2 = cat_stream(2, 40, 3, 2, 2, "str")
        kw1 = kw2 = {}
    clf = getattr(mbcore, name)()
    clf.fit(P1, y1, **kw1)
    clf.fit(P2, y2, **kw2)
    fresh = getattr(mbcore, name)().partial_fit(P2, y2, **kw2)
    assert state(clf) == state(fresh)
    ref = getattr(mbref, name)().partial_fit(P2, y2, **kw2)
    assert state(clf) == state(ref)
    # fit with a failing input after a good fit: the learner is left as it was (the reset
    # is undone), in both twins
    for L in (clf, ref):
        before = state(L)
        with pytest.raises((ValueError, TypeError)):
            L.fit(P2, y2[:-1], **kw2)
        assert state(L) == before
