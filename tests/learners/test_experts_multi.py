"""Experts with multi-valued labels (Blum's calendar setting).

``WeightedMajority`` and ``RandomizedWeightedMajority`` with K >= 3 classes (``classes_`` sorted):
the advice matrix P holds labels; WM predicts the class with the largest total weight, ties to the
LATER class in ``classes_``; every wrong expert is multiplied by beta after each round.  For a
power-of-two beta the decision is exact on the sums of 2**l_i.  Randomized WM draws u from
splitmix64 and predicts the first v, going down from K-1 to 1, with
u < (q_{K-1} + ... + q_v) / T, else class 0.  ``decision_function`` gives the (rounds, K) weight
shares q_v / T.

Sections
--------
1. Golden cases worked out by hand (4 experts, 3 labels, 7 rounds; ties to the later class,
   three-way ties, unused classes given by ``classes=``, string labels as in Blum's rooms), and the
   randomized rule replayed with an independent splitmix64 and exact fractions.
2. Parity mbcore vs mbref (``==``) for K = 3..6 and beta in {1/2, 1/4, 0.3, 0.9}: seeded streams
   fed whole and in chunks, label layouts, hypothesis cases, the uint8 (K <= 255) and int32
   (K > 255) code paths, unused classes (a metamorphic check), renormalisation, pickling.
3. Exact decisions for power-of-two beta: crafted near ties (exact three-way ties, differences of
   2**-60 ... 2**-1100 relative, all weights far below 2**-1074) where float64 summation decides
   wrongly, and long random streams against an integer oracle.
4. ``wm_multi_pass`` (the compiled multi-class kernel) on K = 2 data equals the binary kernel:
   predictions, log2 weights, cache, offset, generator, counters, predict and shares.
5. Mistake bounds on multi-valued streams (WM deterministic bound; randomized WM's expected bound).
6. Long runs: 4 * 10**5 rounds x 100 experts, 4 labels, every expert wrong ~70% of the time
   (weights thousands of binary orders below 2**-1074 relative to the start), exact at sampled
   rounds, and the twin on a prefix; a non-power-of-two beta run as well.
7. Bad input: advice or labels outside the classes, bad ``classes=``, wrong expert counts: a
   ValueError, all or nothing, inputs unchanged.
8. A pool of learners with 3 labels (stub learners and ``PairSpecialists``): both twins equal a
   hand-rolled WM loop with exact fractions, and each other.

Golden values are worked out by hand (comments) or computed in this file from the stream
(mistakes replayed from the advice, sums of powers of two with Python integers / Fractions),
never copied from the code under test.
"""

import copy
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
from mbcore._kernels import experts as kexp
from conftest import as_list, chunk_bounds
from _experts_common import (MODS, expert_stream, mod_param, module, new, online, rwm_bound,
                             same_input, state, wm_bound)

# The tests marked checked (the golden cases, parity and bad input) run on the debug build too;
# the long runs need the release build (tests/README.md).

CLASSES = ("WeightedMajority", "RandomizedWeightedMajority")


def make(modname, learner, beta):
    """learner: "WM" or ("RWM", seed)."""
    if learner == "WM":
        return new(modname, "WeightedMajority", beta=beta)
    return new(modname, "RandomizedWeightedMajority", beta=beta, random_state=learner[1])


def learner_id(lr):
    return "WM" if lr == "WM" else f"RWM(rs={lr[1]})"


def is_pow2(beta):
    m, _ = math.frexp(beta)
    return m == 0.5


def log2_beta(beta):
    return float(math.frexp(beta)[1] - 1) if is_pow2(beta) else math.log2(beta)


# ------------------------------------------------------------------------------------------------
# Oracles (independent of both implementations)
# ------------------------------------------------------------------------------------------------


def last_argmax(S):
    best = 0
    for v in range(1, len(S)):
        if S[v] >= S[best]:
            best = v
    return best


def int_sums(log2w, codes, K):
    """S_v = sum_{codes_i = v} 2**l_i scaled by 2**-min l: exact Python integers (integer l_i)."""
    ls = [int(v) for v in log2w]
    lo = min(ls)
    S = [0] * K
    for l, v in zip(ls, codes):
        S[int(v)] += 1 << (l - lo)
    return S


def exact_multi(log2w, codes, K):
    """The last class v maximising S_v = sum_{codes_i = v} 2**l_i, exactly (integer l_i)."""
    return last_argmax(int_sums(log2w, codes, K))


def exact_sums(log2w, codes, K):
    S = [Fraction(0)] * K
    for l, v in zip(log2w, codes):
        S[int(v)] += Fraction(2) ** int(l)
    return S


def fraction_multi(log2w, codes, K):
    return last_argmax(exact_sums(log2w, codes, K))


def naive_float_multi(log2w, codes, K):
    """A float64 WM: 2.0**l summed left to right per class (what exact mode must not do)."""
    S = [0.0] * K
    for l, v in zip(log2w, codes):
        S[int(v)] += 2.0 ** l
    return last_argmax(S)


def mistakes_before(A, y):
    """m[t, i] = mistakes of expert i on rounds 0..t-1."""
    wrong = (A != y[:, None]).astype(np.int64)
    m = np.zeros_like(wrong)
    m[1:] = np.cumsum(wrong, axis=0)[:-1]
    return m


_MASK = (1 << 64) - 1


def splitmix_uniforms(seed, k):
    """The splitmix64 generator (Steele, Lea & Flood 2014), uniforms (z >> 11) * 2**-53."""
    s = seed & _MASK
    out = []
    for _ in range(k):
        s = (s + 0x9E3779B97F4A7C15) & _MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        out.append((z >> 11) * 2.0 ** -53)
    return out


def rwm_oracle(P, y, K, seed, beta=Fraction(1, 2)):
    """Randomized WM literally, with exact weights (valid while every sum is a float64 exactly,
    i.e. few experts and few rounds): u < (S_{K-1} + ... + S_v) / T, first v from K-1 down."""
    n = len(P[0])
    w = [Fraction(1)] * n
    us = splitmix_uniforms(seed, len(P))
    preds = []
    for p, t, u in zip(P, y, us):
        S = [Fraction(0)] * K
        for wi, v in zip(w, p):
            S[v] += wi
        T = sum(S)
        acc, pred = Fraction(0), 0
        for v in range(K - 1, 0, -1):
            acc += S[v]
            if u < float(acc / T):
                pred = v
                break
        preds.append(pred)
        w = [wi * beta if v != t else wi for wi, v in zip(w, p)]
    return preds


def tie_stream(seed, n, T, K):
    """Advice rich in exact ties: a random base class b_t; expert i < K votes b_t + i (mod K),
    so those experts always disagree, and experts i >= K copy expert i - K.  The label is one of
    the voted classes (or, 1 time in 5, any class): the weights of the disagreeing experts random
    walk around each other and meet often (S_u == S_v exactly)."""
    rng = np.random.default_rng(seed)
    b = rng.integers(0, K, size=T)
    A = (b[:, None] + (np.arange(n) % K)[None, :]) % K
    y = (b + rng.integers(0, min(n, K), size=T)) % K
    anyc = rng.random(T) < 0.2
    y[anyc] = rng.integers(0, K, size=int(anyc.sum()))
    return A.astype(np.int64), y.astype(np.int64)


def multi_stream(seed, n, T, K, lo=0.2, hi=0.7):
    """Class-index advice (T x n, int64) and labels.  Expert i is right with probability in
    [lo, hi], else predicts a uniformly chosen wrong class.  For n >= 3, expert 1 copies expert 0
    (equal weights) and expert 2 predicts expert 0's class + 1 (mod K)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=T)
    acc = rng.uniform(lo, hi, size=n)
    other = (y[:, None] + rng.integers(1, K, size=(T, n))) % K
    A = np.where(rng.random((T, n)) < acc, y[:, None], other)
    if n >= 3:
        A[:, 1] = A[:, 0]
        A[:, 2] = (A[:, 0] + 1) % K
    return A.astype(np.int64), y.astype(np.int64)


# ================================================================================================
# 1. Golden cases, worked out by hand
# ================================================================================================

# Four experts, classes (0, 1, 2), beta = 1/2; weights w = 2**l.
#  R1 P=(0,1,2,2) y=1: w=(1,1,1,1): S=(1,1,2) -> 2 (wrong).  Wrong: 0,2,3 -> l=(-1,0,-1,-1)
#  R2 P=(0,1,2,0) y=0: S0=1/2+1/2=1, S1=1, S2=1/2: tie 0/1 -> the later, 1 (wrong).
#     Wrong: 1,2 -> l=(-1,-1,-2,-1)
#  R3 P=(1,0,0,0) y=0: S0=1/2+1/4+1/2=5/4 > S1=1/2 -> 0 (right).  Wrong: 0 -> l=(-2,-1,-2,-1)
#  R4 P=(0,1,0,2) y=0: S0=1/4+1/4, S1=1/2, S2=1/2: three-way tie -> 2 (wrong).
#     Wrong: 1,3 -> l=(-2,-2,-2,-2)
#  R5 P=(2,2,1,1) y=1: S1=S2=1/2 -> 2 (wrong).  Wrong: 0,1 -> l=(-3,-3,-2,-2)
#  R6 P=(0,0,1,2) y=2: S0=1/8+1/8=1/4=S1=S2: three-way tie -> 2 (right).
#     Wrong: 0,1,2 -> l=(-4,-4,-3,-2)
#  R7 P=(2,2,2,2) y=2: unanimous -> 2 (right); nobody wrong (no update).
GOLD_P = [[0, 1, 2, 2], [0, 1, 2, 0], [1, 0, 0, 0], [0, 1, 0, 2], [2, 2, 1, 1], [0, 0, 1, 2],
          [2, 2, 2, 2]]
GOLD_Y = [1, 0, 0, 0, 1, 2, 2]
GOLD_PRED = [2, 1, 0, 2, 2, 2, 2]
GOLD_L = [[-1, 0, -1, -1], [-1, -1, -2, -1], [-2, -1, -2, -1], [-2, -2, -2, -2],
          [-3, -3, -2, -2], [-4, -4, -3, -2], [-4, -4, -3, -2]]
GOLD_MISTAKES = [1, 2, 2, 3, 4, 4, 4]       # cumulative
GOLD_UPDATES = [1, 2, 3, 4, 5, 6, 6]        # cumulative
# Fresh advice on the final weights (1/16, 1/16, 1/8, 1/4), total of every row 1/2:
#   (0,1,2,2): S=(1/16, 1/16, 3/8)  -> shares (1/8, 1/8, 3/4) -> 2
#   (2,1,0,0): S=(3/8, 1/16, 1/16)  -> shares (3/4, 1/8, 1/8) -> 0
#   (0,0,1,1): S=(1/8, 3/8, 0)      -> shares (1/4, 3/4, 0)   -> 1
#   (1,1,1,0): S=(1/4, 1/4, 0)      -> a tie 0/1              -> 1
#   (0,0,0,2): S=(1/4, 0, 1/4)      -> a tie 0/2              -> 2
#   (2,2,0,1): S=(1/8, 1/4, 1/8)    -> shares (1/4, 1/2, 1/4) -> 1
GOLD_F = [[0, 1, 2, 2], [2, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 0], [0, 0, 0, 2], [2, 2, 0, 1]]
GOLD_F_PRED = [2, 0, 1, 1, 2, 1]
GOLD_F_SHARE = [[1 / 8, 1 / 8, 3 / 4], [3 / 4, 1 / 8, 1 / 8], [1 / 4, 3 / 4, 0.0],
                [1 / 2, 1 / 2, 0.0], [1 / 2, 0.0, 1 / 2], [1 / 4, 1 / 2, 1 / 4]]

# Label sets (sorted as listed): code v -> LABELS[name][v].
LABELS = {"int": (0, 1, 2), "neg": (-5, 3, 10), "rooms": ("room1", "room2", "room3"),
          "float": (-0.5, 0.25, 7.0)}


def relabel(v, labels):
    if isinstance(v, (list, tuple)):
        return [relabel(u, labels) for u in v]
    return labels[v]


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("labeling", list(LABELS))
@pytest.mark.parametrize("given_classes", [False, True], ids=["inferred", "classes="])
def test_golden_row_by_row(modname, labeling, given_classes):
    lab = LABELS[labeling]
    wm = new(modname, "WeightedMajority")
    preds = []
    for t in range(len(GOLD_Y)):
        cl = list(lab) if (given_classes and t == 0) else None
        r = online(modname, wm, [relabel(GOLD_P[t], lab)], [lab[GOLD_Y[t]]], classes=cl)
        preds += r["predictions"]
        assert as_list(wm.log2_weights_) == [float(v) for v in GOLD_L[t]], t
        assert as_list(wm.expert_mistakes_) == [-v for v in GOLD_L[t]], t
        assert wm.mistakes_ == GOLD_MISTAKES[t] and wm.updates_ == GOLD_UPDATES[t], t
        assert wm.n_seen_ == t + 1
    assert preds == relabel(GOLD_PRED, lab)
    assert as_list(wm.classes_) == list(lab)
    assert wm.n_experts_ == 4
    assert as_list(wm.weights_) == [0.25, 0.25, 0.5, 1.0]
    assert as_list(wm.predict(relabel(GOLD_F, lab))) == relabel(GOLD_F_PRED, lab)
    assert as_list(wm.decision_function(relabel(GOLD_F, lab))) == GOLD_F_SHARE


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("labeling", ["int", "rooms"])
def test_golden_whole_batch_and_layouts(modname, labeling):
    lab = LABELS[labeling]
    for layout in ("list", "array", "object"):
        P = relabel(GOLD_P, lab)
        if layout == "array":
            P = np.array(P)
        elif layout == "object":
            P = np.array(P, dtype=object)
        y = relabel(GOLD_Y, lab)
        wm = new(modname, "WeightedMajority")
        r = online(modname, wm, P, y)
        assert r["predictions"] == relabel(GOLD_PRED, lab), layout
        assert r["errors"] == [True, True, False, True, True, False, False]
        assert r["mistakes"] == 4 and wm.updates_ == 6 and wm.n_seen_ == 7
        assert as_list(wm.log2_weights_) == [-4.0, -4.0, -3.0, -2.0]
        assert as_list(wm.expert_mistakes_) == [4, 4, 3, 2]


# Ties: (advice of one round on fresh weights 1, the classes, the predicted class).  Every expert
# has weight 1, so S_v is the number of experts voting v; the later of the tied leaders wins.
TIES = {
    "three_way_1_1_1": ([0, 1, 2], 3, 2),
    "three_way_reversed_experts": ([2, 1, 0], 3, 2),
    "tie_0_1_above_2": ([0, 0, 1, 1, 2], 3, 1),
    "tie_0_2_above_1": ([0, 2, 1, 0, 2], 3, 2),
    "tie_1_2": ([2, 1], 3, 2),
    "five_way": ([4, 0, 3, 1, 2], 5, 4),
    "four_way_below_nothing": ([3, 0, 1, 2, 3, 0, 1, 2], 4, 3),
    "tie_0_3_of_4": ([0, 3, 0, 3, 1], 4, 3),
    "tie_0_1_of_6": ([1, 0, 5, 0, 1, 2], 6, 1),
    "unused_later_class": ([0, 1], 3, 1),      # class 2 has no vote (S2 = 0): not a leader
    "no_tie": ([0, 0, 2], 3, 0),
}


@mod_param
@pytest.mark.parametrize("labeling", ["int", "rooms"])
@pytest.mark.parametrize("case", list(TIES))
def test_ties_go_to_the_later_class(modname, labeling, case):
    p, K, want = TIES[case]
    lab = {"int": [10 * v for v in range(K)],
           "rooms": [f"room{v + 1}" for v in range(K)]}[labeling]
    # predict on a fitted learner with all weights 1: fit one round where nobody is wrong.
    wm = new(modname, "WeightedMajority")
    wm.partial_fit([[lab[0]] * len(p)], [lab[0]], classes=lab)
    assert as_list(wm.predict([relabel(p, lab)])) == [lab[want]]
    counts = [p.count(v) for v in range(K)]
    assert as_list(wm.decision_function([relabel(p, lab)])) == [[c / len(p) for c in counts]]
    r = online(modname, wm, [relabel(p, lab)], [lab[want]])
    assert r["predictions"] == [lab[want]] and r["mistakes"] == 0
    # and as the very first round of a fresh learner
    wm = new(modname, "WeightedMajority")
    r = online(modname, wm, [relabel(p, lab)], [lab[0]], classes=lab)
    assert r["predictions"] == [lab[want]]


@mod_param
def test_classes_given_with_labels_never_seen(modname):
    # The golden stream with its codes 0, 1, 2 mapped to 'a', 'b', 'd' and classes a, b, c, d:
    # 'c' (between them) and 'e' (after them) never occur.  Nobody votes for them (S = 0), so
    # every decision is the golden one (ties 1/2 -> 'd', three-way ties -> 'd'); the shares have
    # zero columns for 'c' and 'e'.
    lab = ("a", "b", "d")
    wm = new(modname, "WeightedMajority")
    r = online(modname, wm, relabel(GOLD_P, lab), relabel(GOLD_Y, lab),
               classes=["e", "d", "c", "b", "a"])
    assert as_list(wm.classes_) == ["a", "b", "c", "d", "e"]
    assert r["predictions"] == relabel(GOLD_PRED, lab)
    assert as_list(wm.log2_weights_) == [-4.0, -4.0, -3.0, -2.0]
    df = as_list(wm.decision_function(relabel(GOLD_F, lab)))
    assert df == [[a, b, 0.0, c, 0.0] for a, b, c in GOLD_F_SHARE]
    assert as_list(wm.predict(relabel(GOLD_F, lab))) == relabel(GOLD_F_PRED, lab)
    # An advice value or label equal to an unseen class is accepted later.
    r = online(modname, wm, [["c", "c", "e", "a"]], ["e"])
    # weights (1/16, 1/16, 1/8, 1/4): S_a = 1/4, S_c = 1/8, S_e = 1/8 -> 'a'
    assert r["predictions"] == ["a"]
    assert as_list(wm.expert_mistakes_) == [5, 5, 3, 3]


@mod_param
def test_classes_inferred_from_advice_and_labels(modname):
    # y only holds two labels; the advice holds a third: three classes, the multi-valued rule.
    P = [[0, 1, 2], [2, 2, 0]]
    y = [1, 0]
    wm = new(modname, "WeightedMajority")
    r = online(modname, wm, P, y)
    assert as_list(wm.classes_) == [0, 1, 2]
    # R1: tie of three -> 2; wrong 0, 2.  R2: w = (1/2, 1, 1/2): S2 = 3/2 > S0 = 1/2 -> 2;
    # label 0: wrong 0, 1 -> l = (-2, -1, -1).
    assert r["predictions"] == [2, 2]
    assert as_list(wm.log2_weights_) == [-2.0, -1.0, -1.0]
    assert len(as_list(wm.decision_function([[0, 1, 2]]))[0]) == 3


@pytest.mark.checked
@mod_param
def test_randomized_golden_replayed_with_splitmix64(modname):
    # Each seed's run equals the rule replayed here with exact fractions and an independent
    # splitmix64: the first v from K-1 down with u < (S_{K-1} + ... + S_v) / T, else 0.
    for seed in list(range(25)) + [2 ** 63 + 5, 2 ** 64 - 1]:
        want = rwm_oracle(GOLD_P, GOLD_Y, 3, seed)
        r = new(modname, "RandomizedWeightedMajority", random_state=seed)
        rec = online(modname, r, GOLD_P, GOLD_Y)
        assert rec["predictions"] == want, seed
        assert r.mistakes_ == sum(a != b for a, b in zip(want, GOLD_Y))
        # The weights do not depend on the draws: as for WM.
        assert as_list(r.log2_weights_) == [-4.0, -4.0, -3.0, -2.0]
        assert as_list(r.expert_mistakes_) == [4, 4, 3, 2]
        assert r.updates_ == 6 and r.n_seen_ == 7
        assert as_list(r.decision_function(GOLD_F)) == GOLD_F_SHARE
        # predict draws from a copy of the generator: the next uniform of the stream.
        u = splitmix_uniforms(seed, 8)[7]
        row = GOLD_F[0]                   # shares (1/8, 1/8, 3/4)
        expect = 2 if u < 0.75 else (1 if u < 0.875 else 0)
        assert as_list(r.predict([row])) == [expect]
        assert as_list(r.predict([row])) == [expect]      # the generator did not advance


def test_splitmix_reference_equals_the_kernels_generator():
    for seed in (0, 1, 42, 2 ** 64 - 1):
        st_ = np.array([seed], dtype=np.uint64)
        out = np.empty(20)
        kexp.splitmix_uniforms(st_, out)
        assert out.tolist() == splitmix_uniforms(seed, 20)


@mod_param
def test_randomized_frequencies_first_round(modname):
    # Round 1 of the golden stream: weights 1, S = (1, 1, 2), T = 4: P(2) = 1/2, P(1) = 1/4,
    # P(0) = 1/4.  Frequencies over K seeds within 4.5 binomial standard errors.
    K = 3000 if modname == "mbcore" else 1500
    counts = [0, 0, 0]
    for s in range(K):
        r = new(modname, "RandomizedWeightedMajority", random_state=s)
        counts[online(modname, r, GOLD_P[:1], GOLD_Y[:1])["predictions"][0]] += 1
    for v, p in enumerate((0.25, 0.25, 0.5)):
        assert abs(counts[v] / K - p) <= 4.5 * math.sqrt(p * (1 - p) / K), (v, counts)


# ================================================================================================
# 2. Parity mbcore vs mbref
# ================================================================================================

BETAS = (0.5, 0.25, 0.3, 0.9)
LEARNERS = ("WM", ("RWM", 0), ("RWM", 2 ** 63 + 5))
N_T = ((1, 300), (5, 400), (40, 120))
LABEL_SETS = {
    "int": [0, 1, 2, 3, 4, 5],
    "neg": [-7, -2, 0, 5, 11, 40],
    "rooms": ["room1", "room2", "room3", "room4", "room5", "room6"],
    "float": [-1.5, 0.25, 2.0, 3.5, 7.0, 9.75],
}


def encode(A, y, K, labels):
    lab = np.array(labels[:K])
    return lab[A], lab[y], list(labels[:K])


def check_against_stream(clf, A, y, beta, K):
    wrong = A != y[:, None]
    assert as_list(clf.expert_mistakes_) == wrong.sum(axis=0).tolist()
    assert clf.n_seen_ == A.shape[0]
    assert clf.updates_ == int(wrong.any(axis=1).sum())
    if is_pow2(beta):
        k = log2_beta(beta)
        assert as_list(clf.log2_weights_) == [k * m for m in wrong.sum(axis=0).tolist()]


def parity_case(K, n, T, beta, learner, seed, labels="int", chunkings=("whole", 1, 7, "random")):
    A, y = multi_stream(seed, n, T, K)
    P, Y, classes = encode(A, y, K, LABEL_SETS[labels])
    F = encode(np.random.default_rng(seed + 99).integers(0, K, size=(30, n)), y[:30], K,
               LABEL_SETS[labels])[0]
    P0, Y0 = P.copy(), Y.copy()
    ref = make("mbref", learner, beta)
    rec_ref = online("mbref", ref, P, Y, classes=classes)
    st_ref = state(ref)
    fresh_ref = (as_list(ref.predict(F)), as_list(ref.decision_function(F)))
    check_against_stream(ref, A, y, beta, K)
    if learner == "WM" and is_pow2(beta):
        m = mistakes_before(A, y)
        k = log2_beta(beta)
        want = [classes[exact_multi(k * m[t], A[t], K)] for t in range(T)]
        assert rec_ref["predictions"] == want
    for chunking in chunkings:
        bounds = chunk_bounds(T, chunking, seed)
        clf = make("mbcore", learner, beta)
        rec = {"predictions": [], "errors": [], "mistakes": 0}
        for j, (a, b) in enumerate(bounds):
            r = online("mbcore", clf, P[a:b], Y[a:b], classes=classes if j == 0 else None)
            for key in rec:
                rec[key] += r[key]
        assert rec == rec_ref, chunking
        assert state(clf) == st_ref, chunking
        assert (as_list(clf.predict(F)), as_list(clf.decision_function(F))) == fresh_ref
        clf2 = make("mbcore", learner, beta)
        for j, (a, b) in enumerate(bounds):
            assert clf2.partial_fit(P[a:b], Y[a:b], classes=classes if j == 0 else None) is clf2
        assert state(clf2) == st_ref, chunking
    assert same_input(P, P0) and same_input(Y, Y0)
    return rec_ref


@pytest.mark.checked
@pytest.mark.parametrize("learner", LEARNERS, ids=learner_id)
@pytest.mark.parametrize("beta", BETAS, ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("K", (3, 4, 5, 6), ids=lambda k: f"K={k}")
def test_parity_streams(K, beta, learner):
    for n, T in N_T:
        parity_case(K, n, T, beta, learner, seed=10 * K + n)


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 3)), ids=learner_id)
@pytest.mark.parametrize("labels", ["neg", "rooms", "float"])
def test_parity_label_sets(labels, learner):
    for K, beta in ((3, 0.5), (5, 0.3)):
        parity_case(K, 6, 200, beta, learner, seed=K, labels=labels, chunkings=("whole", 13))


@pytest.mark.checked
@pytest.mark.parametrize("layout", ["list", "object", "int8", "float64"])
def test_parity_advice_layouts(layout):
    K, n, T = 4, 7, 150
    A, y = multi_stream(5, n, T, K)
    lab = [-3, 0, 2, 9]
    P = np.array(lab)[A]
    Y = np.array(lab)[y]
    if layout == "list":
        P, Y = P.tolist(), Y.tolist()
    elif layout == "object":
        P = P.astype(object)
    else:
        P, Y = P.astype(layout), Y.astype(layout)
    for learner in ("WM", ("RWM", 1)):
        out = []
        for modname in MODS:
            clf = make(modname, learner, 0.5)
            out.append((online(modname, clf, P, Y), state(clf)))
        assert out[0] == out[1]
        # the same as int64 advice
        clf = make("mbcore", learner, 0.5)
        r = online("mbcore", clf, np.array(lab)[A], np.array(lab)[y])
        assert [float(v) for v in r["predictions"]] == [float(v) for v in
                                                         out[0][0]["predictions"]]


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 5)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.25, 0.3), ids=lambda b: f"beta={b}")
def test_parity_through_renormalisation(beta, learner):
    # Poor experts (right 5%..20%): every weight falls below 2**-600 (checked from the replayed
    # mistakes), so the cache is renormalised (several times) on both sides.
    K, n, T, seed = 3, 4, 1500, 17
    A, y = multi_stream(seed, n, T, K, lo=0.05, hi=0.2)
    m = mistakes_before(A, y)
    assert (log2_beta(beta) * m.min(axis=1) + math.log2(n) < -700).any()
    out = []
    for modname in MODS:
        clf = make(modname, learner, beta)
        r = online(modname, clf, A, y, classes=[0, 1, 2])
        F = np.random.default_rng(1).integers(0, K, size=(20, n))
        out.append((r, state(clf), as_list(clf.predict(F)), as_list(clf.decision_function(F))))
    assert out[0] == out[1]
    if learner == "WM" and is_pow2(beta):
        k = log2_beta(beta)
        assert out[0][0]["predictions"] == [exact_multi(k * m[t], A[t], K) for t in range(T)]


_HLABELS = [list(range(6)), [-7, -2, 0, 5, 11, 40], ["a", "b", "c", "d", "e", "f"],
            [-1.5, 0.25, 2.0, 3.5, 7.0, 9.75]]


@st.composite
def multi_cases(draw):
    K = draw(st.integers(3, 6))
    n = draw(st.integers(1, 8))
    T = draw(st.integers(1, 30))
    A = draw(st.lists(st.lists(st.integers(0, K - 1), min_size=n, max_size=n), min_size=T,
                      max_size=T))
    y = draw(st.lists(st.integers(0, K - 1), min_size=T, max_size=T))
    F = draw(st.lists(st.lists(st.integers(0, K - 1), min_size=n, max_size=n), min_size=1,
                      max_size=6))
    labels = draw(st.sampled_from(_HLABELS))[:K]
    beta = draw(st.sampled_from((0.5, 0.25, 0.3, 0.9, 2.0 ** -60)))
    learner = draw(st.sampled_from(("WM", ("RWM", 0), ("RWM", 12345))))
    cuts = sorted(set(draw(st.lists(st.integers(1, max(T - 1, 1)), max_size=4)))) if T > 1 else []
    bounds = list(zip([0] + cuts, cuts + [T]))
    # classes= may be left out only when the first chunk shows every label used anywhere (else
    # a later label would rightly be rejected as outside the fitted classes).
    a, b = bounds[0]
    first = {v for r in A[a:b] for v in r} | set(y[a:b])
    used = {v for r in A + F for v in r} | set(y)
    given_cl = True if (len(first) < 2 or not used <= first) else draw(st.booleans())
    as_lists = draw(st.booleans())
    return K, A, y, F, labels, beta, learner, bounds, given_cl, as_lists


@pytest.mark.checked
@settings(max_examples=70, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(multi_cases())
def test_hypothesis_parity(case):
    K, A, y, F, labels, beta, learner, bounds, given_cl, as_lists = case
    lab = np.array(labels)
    P, Y, Fl = lab[np.array(A)], lab[np.array(y)], lab[np.array(F)]
    if as_lists:
        P, Y, Fl = P.tolist(), Y.tolist(), Fl.tolist()
    out = []
    for modname in MODS:
        clf = make(modname, learner, beta)
        rec = []
        for j, (a, b) in enumerate(bounds):
            rec.append(online(modname, clf, P[a:b], Y[a:b],
                              classes=list(labels) if (given_cl and j == 0) else None))
        out.append((rec, state(clf), as_list(clf.predict(Fl)),
                    as_list(clf.decision_function(Fl))))
    assert out[0] == out[1]
    # Golden facts from the stream.
    An, yn = np.array(A), np.array(y)
    wrong = An != yn[:, None]
    assert out[0][1]["expert_mistakes_"] == wrong.sum(axis=0).tolist()
    assert out[0][1]["updates_"] == int(wrong.any(axis=1).sum())
    if learner == "WM" and is_pow2(beta) and given_cl:
        k = log2_beta(beta)
        m = mistakes_before(An, yn)
        preds = [p for r in out[0][0] for p in r["predictions"]]
        assert preds == [labels[exact_multi(k * m[t], An[t], K)] for t in range(len(y))]


@pytest.mark.checked
@pytest.mark.parametrize("K", (255, 256, 300), ids=lambda k: f"K={k}")
@pytest.mark.parametrize("learner", ("WM", ("RWM", 9)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.3), ids=lambda b: f"beta={b}")
def test_parity_many_classes_uint8_and_int32_codes(K, learner, beta):
    # K <= 255 uses uint8 codes, K > 255 int32: the high codes (K-1 = 254, 255, 299) are used.
    n, T = 24, 50
    rng = np.random.default_rng(K)
    hot = np.array([0, 1, K // 2, K - 2, K - 1])
    A = hot[rng.integers(0, 5, size=(T, n))]
    A[:, 3] = rng.integers(0, K, size=T)          # one expert all over the classes
    y = hot[rng.integers(0, 5, size=T)]
    y[::7] = K - 1
    F = hot[rng.integers(0, 5, size=(10, n))]
    out = []
    for modname in MODS:
        clf = make(modname, learner, beta)
        r = online(modname, clf, A, y, classes=list(range(K)))
        out.append((r, state(clf), as_list(clf.predict(F)), as_list(clf.decision_function(F))))
    assert out[0] == out[1]
    assert len(out[0][3][0]) == K
    check_against_stream(mbref_fit(learner, beta, A, y, K), A, y, beta, K)
    if learner == "WM" and is_pow2(beta):
        m = mistakes_before(A, y)
        assert out[0][0]["predictions"] == [exact_multi(-m[t], A[t], K) for t in range(T)]


def mbref_fit(learner, beta, A, y, K):
    clf = make("mbref", learner, beta)
    clf.partial_fit(A.tolist(), y.tolist(), classes=list(range(K)))
    return clf


@mod_param
@pytest.mark.parametrize("learner", ("WM", ("RWM", 4)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.3), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("embed", ("interleaved_12", "int32_300"))
def test_unused_classes_change_nothing(modname, learner, beta, embed):
    # Metamorphic: the same stream with its K = 3 classes embedded among unused ones (never voted
    # for, never a label) gives the same predictions (mapped), weights and mistakes: S = 0 for
    # the unused classes, and the randomized draw adds their zeros to the same partial sums.
    K, n, T = 3, 6, 120 if modname == "mbcore" else 60
    A, y = multi_stream(23, n, T, K)
    # Class 0 stays class 0: randomized WM falls through to class 0 when no upper class is drawn.
    big, where = (12, [0, 6, 10]) if embed == "interleaved_12" else (300, [0, 150, 298])
    mp = np.array(where)
    small = make(modname, learner, beta)
    r_small = online(modname, small, A, y, classes=[0, 1, 2])
    large = make(modname, learner, beta)
    r_large = online(modname, large, mp[A], mp[y], classes=list(range(big)))
    assert r_large["predictions"] == [where[v] for v in r_small["predictions"]]
    assert r_large["errors"] == r_small["errors"]
    s_small, s_large = state(small), state(large)
    for key in ("log2_weights_", "expert_mistakes_", "mistakes_", "updates_", "weights_"):
        assert s_small[key] == s_large[key], key
    F = np.random.default_rng(2).integers(0, K, size=(15, n))
    assert as_list(large.predict(mp[F])) == [where[v] for v in as_list(small.predict(F))]
    d_small, d_large = as_list(small.decision_function(F)), as_list(large.decision_function(mp[F]))
    for a, b in zip(d_small, d_large):
        assert [b[w] for w in where] == a
        assert sum(b) == sum(a)                  # the other columns are exactly 0.0


@mod_param
@pytest.mark.parametrize("learner", ("WM", ("RWM", 4)), ids=learner_id)
def test_pickle_mid_stream_then_continue(modname, learner):
    K, n, T = 4, 9, 200
    A, y = multi_stream(31, n, T, K)
    whole = make(modname, learner, 0.5)
    rec_whole = online(modname, whole, A, y, classes=list(range(K)))
    for cut in (1, 120):
        clf = make(modname, learner, 0.5)
        r1 = online(modname, clf, A[:cut], y[:cut], classes=list(range(K)))
        for clone in (pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf)):
            r2 = online(modname, clone, A[cut:], y[cut:])
            assert r1["predictions"] + r2["predictions"] == rec_whole["predictions"]
            assert state(clone) == state(whole)


@mod_param
def test_randomized_predict_does_not_advance_and_matches_next_round(modname):
    K, n = 5, 6
    A, y = multi_stream(41, n, 160, K)
    F = np.random.default_rng(3).integers(0, K, size=(100, n))
    r = new(modname, "RandomizedWeightedMajority", random_state=77)
    online(modname, r, A[:100], y[:100], classes=list(range(K)))
    p1 = as_list(r.predict(F))
    assert p1 == as_list(r.predict(F))
    assert len(set(p1)) >= 2
    for t0 in range(100, 115):
        p = as_list(r.predict(A[t0:t0 + 1]))
        assert online(modname, r, A[t0:t0 + 1], y[t0:t0 + 1])["predictions"] == p


# ================================================================================================
# 3. Exact near ties (power-of-two beta)
# ================================================================================================

# name -> (k = log2(1/beta), mistakes per expert, query advice (class per expert), exact answer).
# The log2 weight of expert i is -k * m_i; K = 3.  Worked out by hand:
_G60 = list(range(1, 61))
NEAR_TIES = {
    # S0 = 1, S1 = 1 + 2**-60, S2 = 1/2 + 1/2 = 1 -> 1.  float64: S1 = 1.0, a three-way tie -> 2.
    "one_tiny_tips_class1": (1, [0, 0, 60, 1, 1], [0, 1, 1, 2, 2], 1),
    # S2 = 2**-1 + ... + 2**-60 + 2**-60 = 1 = S0 = S1 (= 2**-1 + 2**-1): a three-way tie -> 2.
    "three_way_exact_tie_geometric": (1, [0, 1, 1] + _G60 + [60], [0, 1, 1] + [2] * 61, 2),
    # S2 = 1 - 2**-60 < S0 = S1 = 1: a tie 0/1 -> 1.  float64: S2 rounds up to 1.0 -> 2.
    "geometric_just_below": (1, [0, 1, 1] + _G60, [0, 1, 1] + [2] * 60, 1),
    # S0 = 1 + 2**-60 > S2 = 2**-1 + ... + 2**-60 + 2**-60 = 1 = S1 -> 0.  float64: ties -> 2.
    "tiny_over_geometric_one": (1, [0, 60, 0] + _G60 + [60], [0, 0, 1] + [2] * 61, 0),
    # S0 = 1 + 300 * 2**-60 > S1 = S2 = 1 + 2**-52 (= 1 + 256 * 2**-60) -> 0.  float64 left to
    # right loses every 2**-60 against 1: S0 = 1.0 -> a tie 1/2 -> 2.
    "many_tiny_beat_one_bit": (1, [0] + [60] * 300 + [0, 52, 0, 52],
                               [0] + [0] * 300 + [1, 1, 2, 2], 0),
    # S2 = 1 + 256 * 2**-60 = S0 = 1 + 2**-52 > S1 = 1: a tie 0/2 -> 2.  float64: S2 = 1.0 -> 0.
    "many_tiny_tie_with_one_bit": (1, [0, 52, 0] + [0] + [60] * 256,
                                   [0, 0, 1] + [2] + [2] * 256, 2),
    # S0 = 1 + 2**-59 > S1 = 1 + 2**-60 + 2**-61 > S2 = 1 + 2**-60 -> 0.  float64: all 1.0 -> 2.
    "three_close_first_wins": (1, [0, 59, 0, 60, 61, 0, 60], [0, 0, 1, 1, 1, 2, 2], 0),
    # S0 = 1 + 2**-1074 > S1 = S2 = 1 -> 0.  float64: 1 + 2**-1074 == 1.0 -> 2.
    "tail_2**-1074": (1, [0, 1074, 0, 0], [0, 0, 1, 2], 0),
    # S1 = 1 + 2**-1075 > S0 = S2 = 1 -> 1 (2**-1075 is not even a float64).  float64 -> 2.
    "tail_2**-1075": (1, [0, 0, 1075, 0], [0, 1, 1, 2], 1),
    # S1 = 1 + 5 * 2**-1100 > S0 = S2 = 1 -> 1.  float64 -> 2.
    "tail_5x2**-1100": (1, [0, 0] + [1100] * 5 + [0], [0, 1] + [1] * 5 + [2], 1),
    # Every weight far below 2**-1074 (renormalised): S0 = 2**-1200 + 2**-1260 > S1 = S2 =
    # 2**-1200 -> 0.  float64: all 0.0 -> a three-way tie -> 2.
    "all_deep": (1, [1200, 1260, 1200, 1200], [0, 0, 1, 2], 0),
    # beta = 2**-100: l = -1200, -1300, -1200, -1200: S0 = 2**-1200 + 2**-1300 -> 0.
    "deep_beta_2**-100": (100, [12, 13, 12, 12], [0, 0, 1, 2], 0),
    # beta = 1/4: l = (0, -120, 0, -2, -2): S0 = 1 + 2**-120 > S1 = 1 > S2 = 1/2 -> 0.
    # float64: S0 = 1.0 = S1 -> 1.
    "beta_quarter": (2, [0, 60, 0, 1, 1], [0, 0, 1, 2, 2], 0),
    # beta = 1/4: S1 = S2 = 1 + 2**-120 (l = 0, -120 each) > S0 = 1 -> a tie 1/2 -> 2 (float64
    # gets this one right by a three-way tie).
    "beta_quarter_tie": (2, [0, 0, 60, 0, 60], [0, 1, 1, 2, 2], 2),
}


def build_state(modname, mistakes, k, name="WeightedMajority", K=3):
    """A learner (beta = 2**-k, classes 0..K-1) whose expert i has been wrong exactly
    mistakes[i] times: label 1 every round; in round r expert i predicts 0 while r < mistakes[i],
    else 1."""
    R = max(mistakes)
    P = [[0 if r < m else 1 for m in mistakes] for r in range(R)]
    clf = new(modname, name, beta=2.0 ** -k)
    clf.partial_fit(P, [1] * R, classes=list(range(K)))
    assert as_list(clf.expert_mistakes_) == list(mistakes)
    return clf


@mod_param
@pytest.mark.parametrize("case", list(NEAR_TIES))
def test_exact_decision_on_crafted_near_ties(modname, case):
    k, mistakes, p, want = NEAR_TIES[case]
    K = 3
    lw = [-k * m for m in mistakes]
    # The hand-worked answer is the exact one (Fractions), and float64 left to right decides
    # otherwise (a real near tie), except for the exact ties that float64 happens to get.
    assert fraction_multi(lw, p, K) == want == exact_multi(lw, p, K)
    if case not in ("three_way_exact_tie_geometric", "beta_quarter_tie"):
        assert naive_float_multi(lw, p, K) != want, case
    S = exact_sums(lw, p, K)
    rng = np.random.default_rng(len(case))
    for trial in range(3):
        perm = np.arange(len(mistakes)) if trial == 0 else rng.permutation(len(mistakes))
        ms = [mistakes[i] for i in perm]
        ps = [p[i] for i in perm]
        clf = build_state(modname, ms, k)
        assert as_list(clf.log2_weights_) == [-float(k * m) for m in ms]
        assert as_list(clf.predict([ps])) == [want], trial
        assert as_list(clf.predict([[1] * len(ps), ps]))[1] == want
        # the shares: the exact shares up to float rounding
        df = as_list(clf.decision_function([ps]))[0]
        for v in range(K):
            exact = float(S[v] / sum(S))
            assert abs(df[v] - exact) <= 1e-13 * exact, (v, df, exact)
        r = online(modname, clf, [ps, ps], [want, want])
        assert r["predictions"] == [want, want] and r["mistakes"] == 0, trial


@pytest.mark.parametrize("extra", (2999, 3072, 3073))
def test_exact_decision_with_thousands_of_experts(extra):
    # A wide pool (the float filter's error bound grows with n): S0 = 1 + extra * 2**-60,
    # S1 = 1 + 2**-49 + 2**-50 = 1 + 3072 * 2**-60, S2 = 1.  extra = 2999 -> 1; 3072 -> a tie
    # 0/1 -> 1; 3073 -> 0.  The twin is checked on the identity order (it is slow here).
    ms = [0] + [60] * extra + [0, 49, 50] + [0]
    codes = [0] + [0] * extra + [1, 1, 1] + [2]
    want = {2999: 1, 3072: 1, 3073: 0}[extra]
    assert fraction_multi([-m for m in ms], codes, 3) == want
    rng = np.random.default_rng(extra)
    for modname, trials in (("mbcore", 3), ("mbref", 1)):
        for trial in range(trials):
            perm = np.arange(len(ms)) if trial == 0 else rng.permutation(len(ms))
            clf = build_state(modname, [ms[i] for i in perm], 1)
            ps = [codes[i] for i in perm]
            assert as_list(clf.predict([ps])) == [want], (modname, trial)
            r = online(modname, clf, [ps], [want])
            assert r["predictions"] == [want], (modname, trial)


@pytest.mark.parametrize("K", (3, 4, 6), ids=lambda k: f"K={k}")
@pytest.mark.parametrize("beta", (0.5, 0.25), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("n", (2, 3, 7), ids=lambda n: f"n={n}")
def test_exact_decision_on_long_random_streams(K, beta, n):
    # Every online prediction equals the exact decision from the replayed integer state; the
    # streams give exact ties between the leading classes (ties to the later class) and drive
    # the weights below 2**-600 (renormalisation).
    k = log2_beta(beta)
    for stream in (multi_stream, tie_stream):
        ties = 0
        for modname, T in (("mbcore", 4000), ("mbref", 600)):
            A, y = stream(100 * K + n, n, T, K)
            m = mistakes_before(A, y)
            clf = new(modname, "WeightedMajority", beta=beta)
            preds = online(modname, clf, A, y, classes=list(range(K)))["predictions"]
            assert preds == [exact_multi(k * m[t], A[t], K) for t in range(T)], stream
            assert as_list(clf.log2_weights_) == (k * (m[-1] + (A[-1] != y[-1]))).tolist()
            for t in range(T):
                S = int_sums(k * m[t], A[t], K)
                ties += sum(1 for s in S if s == max(S)) >= 2
        if stream is tie_stream:
            assert ties >= 20, ties          # the tie rule was exercised


# ================================================================================================
# 4. The multi-class kernel on K = 2 data equals the binary kernel
# ================================================================================================


def kernel_multi_run(A01, y01, beta, randomized, seed, code_dtype, bounds):
    n = A01.shape[1]
    st_ = {"l": np.zeros(n), "m": np.zeros(n, dtype=np.int64), "c": np.ones(n),
           "aux": np.zeros(1), "rng": np.array([seed], dtype=np.uint64),
           "counts": np.zeros(3, dtype=np.int64)}
    preds = []
    for a, b in bounds:
        adv = np.ascontiguousarray(A01[a:b], dtype=code_dtype)
        yy = np.ascontiguousarray(y01[a:b], dtype=np.int32)
        pred = np.empty(b - a, dtype=np.int32)
        kexp.wm_multi_pass(adv, yy, st_["l"], st_["m"], st_["c"], st_["aux"], st_["rng"],
                           st_["counts"], log2_beta(beta), float(beta), is_pow2(beta),
                           randomized, 2, pred, True)
        preds += pred.tolist()
    return preds, st_


@pytest.mark.parametrize("code_dtype", (np.uint8, np.int32), ids=("uint8", "int32"))
@pytest.mark.parametrize("learner", ("WM", ("RWM", 0), ("RWM", 2 ** 64 - 3)), ids=learner_id)
@pytest.mark.parametrize("beta", (0.5, 0.25, 0.3, 0.9), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("n", (1, 2, 7, 37), ids=lambda n: f"n={n}")
def test_multi_kernel_on_binary_data_equals_binary_kernel(n, beta, learner, code_dtype):
    T = 2500
    A, y = expert_stream(n, n, T)            # 0/1 advice with duplicates / complements: ties
    randomized = learner != "WM"
    seed = 0 if learner == "WM" else learner[1]
    wm = make("mbcore", learner, beta)
    rec = online("mbcore", wm, A, y, classes=[0, 1])
    for chunking in ("whole", 333):
        preds, s = kernel_multi_run(A, y, beta, randomized, seed, code_dtype,
                                    chunk_bounds(T, chunking))
        assert preds == rec["predictions"], chunking
        assert s["l"].tolist() == as_list(wm.log2_weights_)
        assert s["m"].tolist() == as_list(wm.expert_mistakes_)
        assert s["counts"].tolist() == [wm.n_seen_, wm.mistakes_, wm.updates_]
        # the cache, its offset and the generator: the same bits as the binary kernel's
        assert s["c"].tolist() == wm._c.tolist()
        assert s["aux"].tolist() == wm._aux.tolist()
        assert s["rng"].tolist() == wm._rng.tolist()
    # The stream went through renormalisation for the small betas (the offset moved).
    if beta in (0.25, 0.3):
        assert s["aux"][0] < -600
    # Predict mode (no update) and shares, on fresh advice, with a copy of the generator.
    F = expert_stream(n + 500, n, 60)[0]
    before = {k: v.copy() for k, v in s.items()}
    pred = np.empty(F.shape[0], dtype=np.int32)
    kexp.wm_multi_pass(np.ascontiguousarray(F, dtype=code_dtype), None, s["l"], s["m"], s["c"],
                       s["aux"], s["rng"].copy(), s["counts"], log2_beta(beta), float(beta),
                       is_pow2(beta), randomized, 2, pred, False)
    assert pred.tolist() == as_list(wm.predict(F))
    share = np.empty((F.shape[0], 2))
    kexp.wm_multi_pass(np.ascontiguousarray(F, dtype=code_dtype), None, s["l"], s["m"], s["c"],
                       s["aux"], s["rng"].copy(), s["counts"], log2_beta(beta), float(beta),
                       is_pow2(beta), randomized, 2, None, False, share)
    df = np.asarray(as_list(wm.decision_function(F)))
    if randomized:
        assert share[:, 1].tolist() == df.tolist()         # the share: the probability of 1
    else:
        # Weighted Majority: 2 share - 1, with the sign of its prediction (0 a tie: q1 >= q0)
        want = 2.0 * share[:, 1] - 1.0
        want[(pred == 1) & ~(want >= 0)] = 0.0
        want[(pred == 0) & ~(want < 0)] = -5e-324
        assert df.tolist() == want.tolist()
    assert np.all(np.abs(share.sum(axis=1) - 1.0) <= 1e-15)
    assert all(np.array_equal(before[k], s[k]) for k in s)     # predict mode changed nothing


# ================================================================================================
# 5. Mistake bounds on multi-valued streams
# ================================================================================================


def good_multi_stream(seed, n, T, K):
    """Random experts (right 15%..50%) and one good one (right 85%..95%)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, size=T)
    acc = rng.uniform(0.15, 0.5, size=n)
    acc[rng.integers(0, n)] = rng.uniform(0.85, 0.95)
    other = (y[:, None] + rng.integers(1, K, size=(T, n))) % K
    A = np.where(rng.random((T, n)) < acc, y[:, None], other)
    return A, y


@pytest.mark.parametrize("beta", (0.5, 0.25, 0.8, 0.95), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("K", (3, 5), ids=lambda k: f"K={k}")
@pytest.mark.parametrize("n", (3, 20, 100), ids=lambda n: f"n={n}")
def test_wm_bound_random_streams(n, K, beta):
    # A mistake puts the predicted class (a wrong one) at >= the label's weight, so at least
    # half of the weight is on wrong experts: the binary proof and bound carry over.
    for seed in range(3):
        A, y = good_multi_stream(seed, n, 2000, K)
        best = int((A != y[:, None]).sum(axis=0).min())
        wm = mbcore.WeightedMajority(beta=beta).partial_fit(A, y, classes=list(range(K)))
        assert wm.mistakes_ <= wm_bound(best, n, beta), (seed, wm.mistakes_, best)


@mod_param
@pytest.mark.parametrize("beta", (0.5, 0.25, 0.8), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("K", (3, 4), ids=lambda k: f"K={k}")
def test_wm_bound_adaptive_adversary(modname, beta, K):
    # Each label is the class with the least total weight among those WM did not predict (a
    # mistake in every round), with weights replayed here as exact integers: the bound must hold
    # for the best expert on that very sequence.
    n, T = 8, 200 if modname == "mbcore" else 90
    rng = np.random.default_rng(K)
    A = rng.integers(0, K, size=(T, n))
    wm = new(modname, "WeightedMajority", beta=beta)
    y = []
    for t in range(T):
        if t == 0:
            counts = [int((A[0] == v).sum()) for v in range(K)]
            p = last_argmax(counts)                       # all weights 1
        else:
            p = int(as_list(wm.predict(A[t:t + 1]))[0])
        wsum = [Fraction(0)] * K
        if t:
            for wi, v in zip(as_list(wm.weights_), A[t].tolist()):
                wsum[v] += Fraction(wi)
        label = min((v for v in range(K) if v != p), key=lambda v: (wsum[v], v))
        y.append(label)
        wm.partial_fit(A[t:t + 1], [label], classes=list(range(K)) if t == 0 else None)
    assert wm.mistakes_ == T
    best = int((A != np.array(y)[:, None]).sum(axis=0).min())
    assert T <= wm_bound(best, n, beta), (best, T)


def rwm_expected(A, y, beta, K):
    """Sum over rounds of P(mistake) = 1 - (weight on the label) / T, from the replayed
    mistakes (log domain, float64)."""
    m = mistakes_before(A, y).astype(np.float64)
    lw = m * math.log(beta)
    w = np.exp(lw - lw.max(axis=1, keepdims=True))
    right = (w * (A == y[:, None])).sum(axis=1) / w.sum(axis=1)
    return float((1.0 - right).sum())


@pytest.mark.parametrize("beta", (0.5, 0.8), ids=lambda b: f"beta={b}")
@pytest.mark.parametrize("stream", ("good_expert", "oblivious_adversary"))
def test_rwm_expected_bound(stream, beta):
    n, T, K, seeds = 20, 1000, 4, 30
    if stream == "good_expert":
        A, y = good_multi_stream(9, n, T, K)
    else:
        # Each label is the class with the least weight share (from the replayed weights), so
        # every round is a mistake with probability >= 3/4; oblivious: it ignores the coins.
        rng = np.random.default_rng(10)
        A = rng.integers(0, K, size=(T, n))
        y = np.zeros(T, dtype=np.int64)
        m = np.zeros(n)
        for t in range(T):
            lw = m * math.log(beta)
            w = np.exp(lw - lw.max())
            share = [float((w * (A[t] == v)).sum()) for v in range(K)]
            y[t] = int(np.argmin(share))
            m += A[t] != y[t]
    best = int((A != y[:, None]).sum(axis=0).min())
    B = rwm_bound(best, n, beta)
    total = 0
    for s in range(seeds):
        r = mbcore.RandomizedWeightedMajority(beta=beta, random_state=s)
        total += r.partial_fit(A, y, classes=list(range(K))).mistakes_
    mean = total / seeds
    # Var(M) <= E[M] <= B (independent Bernoullis, the weights ignore the draws): 4 standard
    # errors of the mean as the margin for sampling.
    assert mean <= B + 4 * math.sqrt(B / seeds), (mean, B)
    expected = rwm_expected(A, y, beta, K)
    assert expected <= B
    assert abs(mean - expected) <= 4 * math.sqrt(expected / seeds) + 1e-9


@mod_param
def test_rwm_expected_bound_small_on_both(modname):
    n, T, K, beta = 6, 250, 3, 0.5
    A, y = good_multi_stream(4, n, T, K)
    best = int((A != y[:, None]).sum(axis=0).min())
    B = rwm_bound(best, n, beta)
    total = 0
    for s in range(30):
        r = new(modname, "RandomizedWeightedMajority", beta=beta, random_state=s)
        total += r.partial_fit(A, y, classes=[0, 1, 2]).mistakes_
    assert total / 30 <= B + 4 * math.sqrt(B / 30)
    expected = rwm_expected(A, y, beta, K)
    assert abs(total / 30 - expected) <= 4 * math.sqrt(expected / 30) + 1e-9


# ================================================================================================
# 6. Long runs
# ================================================================================================


def hard_stream(rng, C, n, K, acc):
    """C rounds: the label is uniform; expert i is right with probability acc[i], else predicts
    a random wrong class; expert 1 copies expert 0 and expert 2 is expert 0 shifted by one."""
    y = rng.integers(0, K, size=C)
    other = (y[:, None] + rng.integers(1, K, size=(C, n))) % K
    A = np.where(rng.random((C, n)) < acc, y[:, None], other).astype(np.uint8)
    A[:, 1] = A[:, 0]
    A[:, 2] = (A[:, 0] + 1) % K
    return A, y.astype(np.uint8)


def test_long_run_exact_far_below_underflow():
    """4 * 10**5 rounds, 100 experts, 4 labels, every expert right only 5%..32% of the time:
    after ~1,600 rounds every weight is below 2**-1074 relative to the start, and at the end
    below 2**-260000.  A plain float64 WM (weights 0.5**m) then has all weights 0.0 and always
    predicts the last class; mbcore keeps deciding exactly (sampled rounds replayed with integer
    log weights), and the twin agrees on a prefix that crosses the underflow."""
    n, K, T, C = 100, 4, 400_000, 50_000
    rng = np.random.default_rng(2025)
    acc = rng.uniform(0.05, 0.3, size=n)
    pick = np.random.default_rng(8)
    wm = mbcore.WeightedMajority()
    rwm = mbcore.RandomizedWeightedMajority(random_state=1)
    m = np.zeros(n, dtype=np.int64)
    M = 0
    for c in range(T // C):
        A, y = hard_stream(rng, C, n, K, acc)
        run = mbcore.run_online(wm, A, y, classes=list(range(K)) if c == 0 else None)
        rwm.partial_fit(A, y, classes=list(range(K)) if c == 0 else None)
        pred = run.predictions
        M += int(run.mistakes)
        wrong = A != y[:, None]
        if c == 0:
            W, P0 = 3000, 1800
            mb = np.zeros((W, n), dtype=np.int64)
            mb[1:] = np.cumsum(wrong[:W - 1], axis=0)
            t0 = int(np.argmax(mb.min(axis=1) >= 1075))
            assert 1075 <= t0 < P0
            w = np.power(0.5, mb[t0:].astype(np.float64))
            assert np.all(w == 0.0)                                 # plain float64: all gone
            plain = np.array([last_argmax([(w[j] * (A[t0 + j] == v)).sum() for v in range(K)])
                              for j in range(0, W - t0, 50)])
            assert np.all(plain == K - 1)                           # degenerate
            assert (pred[t0:W] != K - 1).sum() > 100                # mbcore still decides
            for t in range(t0, W, 23):
                assert pred[t] == exact_multi(-mb[t], A[t], K), t
            # The twin on the prefix (crossing the underflow point t0).
            ref = mbref.WeightedMajority()
            rr = mbref.run_online(ref, A[:P0], y[:P0], classes=list(range(K)))
            assert rr.predictions == pred[:P0].tolist()
            assert ref.log2_weights_ == (-mb[P0 - 1] - wrong[P0 - 1]).astype(float).tolist()
            assert max(ref.log2_weights_) < -1074
        cur, pos = m.copy(), 0
        for t in sorted(set([0, C - 1] + pick.integers(0, C, size=20).tolist())):
            cur += wrong[pos:t].sum(axis=0)
            pos = t
            assert pred[t] == exact_multi(-cur, A[t], K), (c, t)
        m = cur + wrong[pos:].sum(axis=0)
        assert np.array_equal(wm.expert_mistakes_, m)
    l = wm.log2_weights_
    assert np.array_equal(l, -m.astype(np.float64))
    assert wm.n_seen_ == T and wm.mistakes_ == M
    assert m.min() > 0.65 * T                                    # all wrong most of the time
    best = int(m.min())
    assert M <= wm_bound(best, n, 0.5)
    assert np.array_equal(rwm.log2_weights_, l) and np.array_equal(rwm.expert_mistakes_, m)
    B = rwm_bound(best, n, 0.5)
    assert rwm.mistakes_ <= B + 4 * math.sqrt(B)


def test_long_run_non_power_of_two_beta():
    """beta = 0.9 over 2 * 10**5 rounds x 30 experts, 3 labels: weights end ~2**-20000 relative
    to the start.  The log2 weights are the sequential float sums of log2(0.9) (replayed with
    np.cumsum); every prediction whose top class leads the next by a factor > 1 + 1e-9 (from the
    replayed log weights) is that class; the twin agrees on a 12,000-round prefix."""
    n, K, T, C = 30, 3, 200_000, 50_000
    beta = 0.9
    lb = math.log2(beta)
    rng = np.random.default_rng(99)
    acc = rng.uniform(0.1, 0.3, size=n)
    wm = mbcore.WeightedMajority(beta=beta)
    l = np.zeros(n)
    checked = 0
    for c in range(T // C):
        A, y = hard_stream(rng, C, n, K, acc)
        run = mbcore.run_online(wm, A, y, classes=list(range(K)) if c == 0 else None)
        wrong = A != y[:, None]
        steps = np.where(wrong, lb, 0.0)
        steps[0] += l                                   # continue from the previous chunk
        L = np.cumsum(steps, axis=0)                    # sequential: l_{t+1} = l_t + lb or + 0
        before = np.vstack([l[None, :], L[:-1]])
        for t in range(0, C, 101):
            lw = before[t]
            w = np.exp2(lw - lw.max())
            S = sorted(((float((w * (A[t] == v)).sum()), v) for v in range(K)), reverse=True)
            if S[0][0] > S[1][0] * (1 + 1e-9):
                assert run.predictions[t] == S[0][1], (c, t)
                checked += 1
        l = L[-1]
        assert np.array_equal(wm.log2_weights_, l)
        if c == 0:
            P0 = 12_000
            ref = mbref.WeightedMajority(beta=beta)
            rr = mbref.run_online(ref, A[:P0], y[:P0], classes=list(range(K)))
            assert rr.predictions == run.predictions[:P0].tolist()
            assert ref.log2_weights_ == L[P0 - 1].tolist()
            assert max(ref.log2_weights_) < -1074
    assert checked > 1500
    assert l.max() < -15000


# ================================================================================================
# 7. Bad input
# ================================================================================================

GOOD_P = [[0, 1, 2, 2], [0, 1, 2, 0], [1, 0, 0, 0]]
GOOD_Y = [1, 0, 0]
MORE_P = [[0, 0, 1, 2], [2, 2, 1, 1], [1, 2, 0, 0]]
MORE_Y = [2, 1, 0]
FRESH = [[0, 1, 2, 2], [2, 2, 1, 0], [1, 1, 0, 0]]


def fitted(modname, name):
    clf = new(modname, name)
    clf.partial_fit(GOOD_P, GOOD_Y)
    assert as_list(clf.classes_) == [0, 1, 2]
    return clf


def observable(clf):
    return (state(clf), as_list(clf.predict(FRESH)), as_list(clf.decision_function(FRESH)))


def continues_like_fresh(modname, name, clf):
    ref = fitted(modname, name)
    assert online(modname, clf, MORE_P, MORE_Y) == online(modname, ref, MORE_P, MORE_Y)
    assert state(clf) == state(ref)


# name -> (advice, labels, classes, exception, message pieces); on a learner fitted with 4 experts
# and classes (0, 1, 2).
LATER_BAD = {
    "advice_outside_last_row": ([[0, 1, 2, 2], [1, 1, 1, 1], [2, 0, 1, 7]], [1, 1, 2], None,
                                ValueError, ("round 2", "7")),
    "advice_outside_first_row": (np.array([[0, 3, 2, 2], [1, 1, 1, 1]]), [1, 1], None,
                                 ValueError, ("round 0", "3")),
    "advice_negative": ([[0, 1, 2, 2], [-1, 1, 1, 1]], [1, 1], None, ValueError,
                        ("round 1", "-1")),
    "advice_string": ([[0, 1, 2, "2"]], [1], None, ValueError, ()),
    "advice_nan": (np.array([[0.0, 1.0, np.nan, 2.0]]), [1], None, ValueError, ("round 0",)),
    "y_outside_classes": ([[0, 1, 2, 2], [1, 1, 1, 1]], [1, 3], None, ValueError, ("3",)),
    "y_outside_first": ([[0, 1, 2, 2]], [-2], None, ValueError, ("-2",)),
    "classes_more": ([[0, 1, 2, 2]], [1], [0, 1, 2, 3], ValueError, ("classes",)),
    "classes_fewer": ([[0, 1, 2, 2]], [1], [0, 1], ValueError, ("classes",)),
    "classes_other": ([[0, 1, 2, 2]], [1], [0, 1, 5], ValueError, ("classes",)),
    "classes_one": ([[0, 1, 2, 2]], [1], [1], ValueError, ("classes",)),
    "three_experts": ([[0, 1, 2]], [1], None, ValueError, ("3", "4")),
    "five_experts": ([[0, 1, 2, 0, 1], [0, 1, 2, 0, 1]], [1, 2], None, ValueError, ("5", "4")),
    "y_too_long": ([[0, 1, 2, 2]], [1, 2], None, ValueError, ()),
    "y_too_short": ([[0, 1, 2, 2], [0, 0, 0, 0]], [1], None, ValueError, ()),
    "one_d_advice": ([0, 1, 2, 2], [1], None, ValueError, ()),
    "empty": (np.zeros((0, 4), dtype=np.int64), [], None, ValueError, ()),
    "none_advice": (None, [1], None, TypeError, ()),
}


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("case", list(LATER_BAD))
def test_bad_input_on_a_fitted_learner(modname, name, case):
    P, y, classes, exc, pieces = LATER_BAD[case]
    P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
    clf = fitted(modname, name)
    before = observable(clf)
    with pytest.raises(exc) as info:
        clf.partial_fit(P, y, classes=classes)
    for piece in pieces:
        assert piece in str(info.value), (piece, str(info.value))
    with pytest.raises(exc):
        module(modname).run_online(clf, P, y, classes=classes)
    assert observable(clf) == before
    assert same_input(P, P0) and same_input(y, y0)
    continues_like_fresh(modname, name, clf)


@pytest.mark.checked
def test_bad_advice_message_names_expert_and_round():
    # The compiled learner names the expert and the round of the first value outside the labels.
    wm = mbcore.WeightedMajority().partial_fit(GOOD_P, GOOD_Y)
    with pytest.raises(ValueError, match=r"expert 3 in round 2 is 7"):
        wm.partial_fit([[0, 1, 2, 2], [1, 1, 1, 1], [2, 0, 1, 7]], [1, 1, 2])
    with pytest.raises(ValueError, match=r"expert 1 in round 0 is 9"):
        wm.predict([[0, 9, 2, 2]])


FIRST_BAD = {
    "classes_one_label": (GOOD_P, GOOD_Y, [1], ValueError),
    "classes_duplicates": (GOOD_P, GOOD_Y, [2, 2, 2], ValueError),
    "classes_empty": (GOOD_P, GOOD_Y, [], ValueError),
    "classes_string": ([["a", "b", "c"]], ["a"], "abc", ValueError),
    "classes_missing_an_advice_label": (GOOD_P, GOOD_Y, [0, 1, 3], ValueError),
    "classes_missing_a_label": ([[0, 1, 2]], [3], [0, 1, 2], ValueError),
    "single_label_only": ([["room1", "room1"]], ["room1"], None, ValueError),
    "rows_of_different_lengths": ([[0, 1, 2], [0, 1]], [0, 1], None, ValueError),
    "y_length_mismatch": ([[0, 1, 2]], [0, 1], None, ValueError),
}


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("case", list(FIRST_BAD))
def test_bad_first_call(modname, name, case):
    P, y, classes, exc = FIRST_BAD[case]
    P0, y0 = copy.deepcopy(P), copy.deepcopy(y)
    clf = new(modname, name)
    with pytest.raises(exc):
        clf.partial_fit(P, y, classes=classes)
    assert same_input(P, P0) and same_input(y, y0)
    with pytest.raises(module(modname).NotFittedError):
        clf.mistakes_
    with pytest.raises(module(modname).NotFittedError):
        clf.predict(FRESH)
    clf.partial_fit(GOOD_P, GOOD_Y)
    continues_like_fresh(modname, name, clf)


@pytest.mark.checked
@mod_param
@pytest.mark.parametrize("name", CLASSES)
def test_bad_advice_to_predict_and_decision_function(modname, name):
    clf = fitted(modname, name)
    before = observable(clf)
    for P, exc in (([[0, 1, 2]], ValueError), ([[0, 1, 2, 5]], ValueError),
                   ([[0, 1, 2, 2], [0, 1, -3, 2]], ValueError), ([0, 1, 2, 2], ValueError),
                   (None, TypeError)):
        with pytest.raises(exc):
            clf.predict(P)
        with pytest.raises(exc):
            clf.decision_function(P)
    assert observable(clf) == before


@mod_param
def test_binary_learner_rejects_a_third_label_later(modname):
    # Fitted with two labels (the binary rule), a third label later is outside the classes.
    for name in CLASSES:
        clf = new(modname, name).partial_fit([[0, 1], [1, 1]], [1, 0])
        before = state(clf)
        with pytest.raises(ValueError):
            clf.partial_fit([[0, 2]], [0])
        with pytest.raises(ValueError):
            clf.partial_fit([[0, 1]], [2])
        with pytest.raises(ValueError, match="classes"):
            clf.partial_fit([[0, 1]], [1], classes=[0, 1, 2])
        assert state(clf) == before


@mod_param
@pytest.mark.parametrize("name", CLASSES)
def test_inputs_never_modified(modname, name):
    A, y = multi_stream(8, 7, 60, 4)
    for kind in ("int64", "str", "list", "float32"):
        if kind == "str":
            P, Y = np.array(["w", "x", "y", "z"])[A], np.array(["w", "x", "y", "z"])[y].tolist()
        elif kind == "list":
            P, Y = A.tolist(), y.tolist()
        elif kind == "float32":
            P, Y = A.astype(np.float32), y.astype(np.float32)
        else:
            P, Y = A.copy(), y.copy()
        P0, Y0 = copy.deepcopy(P), copy.deepcopy(Y)
        clf = new(modname, name)
        module(modname).run_online(clf, P, Y)
        clf.partial_fit(P, Y)
        clf.predict(P)
        clf.decision_function(P)
        assert same_input(P, P0) and same_input(Y, Y0), kind
        if isinstance(P, np.ndarray):
            Pf = np.asfortranarray(P)
            Pf0 = Pf.copy(order="F")
            assert as_list(clf.predict(Pf)) == as_list(clf.predict(P))
            assert np.array_equal(Pf, Pf0)


# ================================================================================================
# 8. A pool of learners with multi-valued labels
# ================================================================================================


class Fixed:
    """A stub expert: always predicts one label."""

    def __init__(self, label):
        self.label = label
        self.classes_ = None
        self.seen = 0

    def predict(self, X):
        return [self.label for _ in X]

    def partial_fit(self, X, y, classes=None):
        self.classes_ = list(classes) if classes is not None else sorted(set(y))
        self.seen += len(y)
        return self


class Column:
    """A stub expert: predicts the value of attribute j of the row."""

    def __init__(self, j):
        self.j = j
        self.classes_ = None
        self.seen = 0

    def predict(self, X):
        return [str(x[self.j]) for x in X]

    def partial_fit(self, X, y, classes=None):
        self.classes_ = list(classes)
        self.seen += len(y)
        return self


class LastLabel:
    """A stub expert that learns: predicts the last label it was told (unfitted at first, so the
    pool takes classes_[0] as its advice in the first round)."""

    def __init__(self):
        self.classes_ = None
        self.last = None

    def predict(self, X):
        return [self.last for _ in X]

    def partial_fit(self, X, y, classes=None):
        self.classes_ = list(classes)
        self.last = str(y[-1])
        return self


ROOMS = ["room1", "room2", "room3"]


def room_stream(seed, T=60, d=3):
    """Rows of d room names; the label is the room of attribute 0, except every fifth row the
    room of attribute 1, with 10% noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(T, d))
    y = X[:, 0].copy()
    y[::5] = X[::5, 1]
    noise = rng.random(T) < 0.1
    y[noise] = rng.integers(0, 3, size=int(noise.sum()))
    return [[ROOMS[v] for v in row] for row in X.tolist()], [ROOMS[v] for v in y.tolist()]


def stub_pool():
    return [Fixed("room2"), Column(0), Column(1), LastLabel(), Fixed("room3"), Column(2)]


def expert_fingerprint(e):
    if isinstance(e, (Fixed, Column, LastLabel)):
        return (type(e).__name__, e.classes_, vars(e).get("seen"), vars(e).get("last"))
    return (int(e.n_seen_), int(e.mistakes_), as_list(e.log2_weights_))


def hand_rolled_pool(experts, X, y, classes, beta=Fraction(1, 2)):
    """WM over a pool, literally: ask every expert (an unfitted one votes classes[0]), predict
    the last class with the largest exact weight, penalise the wrong experts, then every expert
    learns the label."""
    K = len(classes)
    index = {c: k for k, c in enumerate(classes)}
    w = [Fraction(1)] * len(experts)
    m = [0] * len(experts)
    preds = []
    for x, t in zip(X, y):
        adv = [str(e.predict([x])[0]) if getattr(e, "classes_", None) is not None
               else classes[0] for e in experts]
        S = [Fraction(0)] * K
        for wi, a in zip(w, adv):
            S[index[a]] += wi
        preds.append(classes[last_argmax(S)])
        for i, a in enumerate(adv):
            if a != t:
                w[i] *= beta
                m[i] += 1
        for e in experts:
            e.partial_fit([x], [t], classes=list(classes))
    return preds, w, m


@mod_param
@pytest.mark.parametrize("pool_kind", ("stubs", "pair_specialists"))
def test_pool_with_three_labels_equals_hand_rolled_loop(modname, pool_kind):
    X, y = room_stream(1)
    if pool_kind == "stubs":
        pool = stub_pool()
    else:
        mod = module(modname)
        pool = [mod.PairSpecialists(history=h) for h in (1, 3)] + [Column(0), Fixed("room1")]
    hand = copy.deepcopy(pool)
    X0, y0 = copy.deepcopy(X), copy.deepcopy(y)
    wm = new(modname, "WeightedMajority", experts=pool)
    r = online(modname, wm, X, y, classes=ROOMS)
    preds, w, m = hand_rolled_pool(hand, X, y, ROOMS)
    assert as_list(wm.classes_) == ROOMS
    assert r["predictions"] == preds
    assert as_list(wm.expert_mistakes_) == m
    assert [Fraction(2) ** int(v) for v in as_list(wm.log2_weights_)] == w
    assert wm.n_seen_ == len(y) and wm.mistakes_ == sum(a != b for a, b in zip(preds, y))
    assert [expert_fingerprint(e) for e in pool] == [expert_fingerprint(e) for e in hand]
    assert X == X0 and y == y0
    # predict / decision_function on fresh rows ask the experts, and change nothing.
    Xf, _ = room_stream(2, T=12)
    before = [expert_fingerprint(e) for e in pool]
    want_p, want_s = [], []
    for x in Xf:
        adv = [str(e.predict([x])[0]) for e in hand]
        S = [Fraction(0)] * 3
        for wi, a in zip(w, adv):
            S[ROOMS.index(a)] += wi
        want_p.append(ROOMS[last_argmax(S)])
        want_s.append([float(s / sum(S)) for s in S])
    assert as_list(wm.predict(Xf)) == want_p
    df = as_list(wm.decision_function(Xf))
    for got, want in zip(df, want_s):
        assert len(got) == 3
        assert all(abs(a - b) <= 1e-13 * b for a, b in zip(got, want))
    assert [expert_fingerprint(e) for e in pool] == before


@pytest.mark.checked
@pytest.mark.parametrize("learner", ("WM", ("RWM", 2), ("RWM", 11)), ids=learner_id)
@pytest.mark.parametrize("pool_kind", ("stubs", "pair_specialists"))
def test_pool_parity_three_labels(learner, pool_kind):
    X, y = room_stream(3, T=80)
    Xf, _ = room_stream(4, T=10)
    out = []
    for modname in MODS:
        mod = module(modname)
        if pool_kind == "stubs":
            pool = stub_pool()
        else:
            pool = [mod.PairSpecialists(history=h) for h in (1, 2, 5)] + [LastLabel()]
        wm = make(modname, learner, 0.5)
        wm.experts = pool
        r1 = online(modname, wm, X[:30], y[:30], classes=ROOMS)
        r2 = online(modname, wm, X[30:], y[30:])
        out.append((r1, r2, state(wm), [expert_fingerprint(e) for e in pool],
                    as_list(wm.predict(Xf)), as_list(wm.decision_function(Xf))))
    assert out[0] == out[1]


@mod_param
@pytest.mark.parametrize("name", CLASSES)
def test_pool_all_or_nothing_three_labels(modname, name):
    # Row 3 of the batch has the value 'attic' in attribute 2: the Column(2) expert predicts a
    # label outside the classes in round 3, after rounds 0..2 were learned; everything (the pool
    # learner and its experts) must be as before the call.
    X, y = room_stream(5, T=40)
    pool = stub_pool()
    wm = new(modname, name, experts=pool)
    wm.partial_fit(X[:20], y[:20], classes=ROOMS)
    before = (state(wm), [expert_fingerprint(e) for e in pool])
    Xb, yb = copy.deepcopy(X[20:26]), copy.deepcopy(y[20:26])
    Xb[3][2] = "attic"
    with pytest.raises(ValueError):
        wm.partial_fit(Xb, yb)
    assert (state(wm), [expert_fingerprint(e) for e in pool]) == before
    yb2 = copy.deepcopy(y[20:26])
    yb2[-1] = "attic"                     # a label outside the classes
    with pytest.raises(ValueError):
        wm.partial_fit(X[20:26], yb2)
    assert (state(wm), [expert_fingerprint(e) for e in pool]) == before
    # and it continues exactly like a learner that never saw the failed calls
    ref_pool = stub_pool()
    ref = new(modname, name, experts=ref_pool)
    ref.partial_fit(X[:20], y[:20], classes=ROOMS)
    assert online(modname, wm, X[20:], y[20:]) == online(modname, ref, X[20:], y[20:])
    assert state(wm) == state(ref)
