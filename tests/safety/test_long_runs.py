"""Runs of 10**8 steps (issue: multiplicative family and experts, "Numerics"): Weighted Majority
with 1,000 experts, Winnow2 and Balanced Winnow, on noisy and on adversarial streams, stay
finite, keep predicting exactly like the exact algorithm, and still meet their bounds.

The streams are fed in chunks (the same few chunks cycled where the stream allows it, so no
memory beyond a chunk is needed).  Nothing here is compared with numbers taken from the code:
the states are replayed from the stream itself (integer mistake counts and log-weights), and the
decisions sampled along the way are recomputed exactly by binary carry-addition in Python
(``exact_ge``), independent of the library's own exact arithmetic.

These are the slowest tests (about 4½ minutes of one core together): a plain ``pytest`` leaves
them out (pyproject's addopts), with the other long runs marked the same way (tests/README.md);
``pytest -m longrun`` runs them, and CI does.
"""

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import mbcore
import mbcore.bounds
from _winnow_replay import adversarial_chunks, log2_as_int, noisy_chunks, run_and_replay

pytestmark = pytest.mark.longrun

TOTAL = 10 ** 8


def binary_digits(exponents):
    """The set bits of sum_k 2**e_k (integers), highest first: carry-addition on a Counter."""
    d = Counter(int(e) for e in exponents)
    if not d:
        return []
    keys = sorted(d)
    out, carry, i, e = [], 0, 0, keys[0]
    while i < len(keys) or carry:
        c = carry
        if i < len(keys) and keys[i] == e:
            c += d[keys[i]]
            i += 1
        if c & 1:
            out.append(e)
        carry = c >> 1
        if carry:
            e += 1
        elif i < len(keys):
            e = keys[i]
    return out[::-1]


def exact_ge(exps1, exps0):
    """sum 2**exps1 >= sum 2**exps0, exactly (highest set bits compared first)."""
    return binary_digits(exps1) >= binary_digits(exps0)


def test_exact_ge_by_hand():
    assert binary_digits([0, 0, 1]) == [2]                  # 1 + 1 + 2 = 4
    assert binary_digits([-3, -3, -2, 5]) == [5, -1]        # 1/8 + 1/8 + 1/4 = 1/2
    assert exact_ge([10], [9, 9])                           # tie: >= holds
    assert not exact_ge([9, 8], [10])
    assert exact_ge([-10 ** 7], [-10 ** 7 - 1, -10 ** 7 - 2, -10 ** 7 - 3])
    assert not exact_ge([], [-5 * 10 ** 7])


# -- Weighted Majority, 10**8 rounds x 1,000 experts ---------------------------------------------

N_EXPERTS, CHUNK, DISTINCT = 1000, 10_000, 8


def wm_chunks(kind, seed):
    """DISTINCT chunks of CHUNK rounds, cycled.  adversarial: random advice, each label the
    opposite of the majority of the advice (every expert wrong in about 51% of the rounds, so
    all weights fall about 5*10**7 halvings below 1, far past float64's 2**-1074).  noisy: a
    random truth, experts with error rates uniform in [0.1, 0.5] (expert 17: 0.05) and 10% label
    noise."""
    rng = np.random.default_rng(seed)
    err = rng.uniform(0.1, 0.5, size=N_EXPERTS)
    err[17] = 0.05
    out = []
    for _ in range(DISTINCT):
        if kind == "adversarial":
            A = np.unpackbits(rng.integers(0, 256, size=(CHUNK, N_EXPERTS // 8), dtype=np.uint8),
                              axis=1)
            y = (2 * A.sum(axis=1, dtype=np.int64) < N_EXPERTS).astype(np.uint8)
        else:
            z = rng.integers(0, 2, size=CHUNK).astype(np.uint8)
            A = ((rng.random((CHUNK, N_EXPERTS)) < err) ^ z[:, None].astype(bool)).astype(np.uint8)
            y = z ^ (rng.random(CHUNK) < 0.1).astype(np.uint8)
        wrong = A != y[:, None]
        out.append((A, y, wrong, wrong.sum(axis=0, dtype=np.int64)))
    return out


@pytest.mark.parametrize("kind", ["adversarial", "noisy"])
def test_weighted_majority_1e8_rounds_1000_experts(kind):
    chunks = wm_chunks(kind, 2026 if kind == "adversarial" else 77)
    wm = mbcore.WeightedMajority()
    m = np.zeros(N_EXPERTS, dtype=np.int64)        # the expert mistakes, replayed
    pick = np.random.default_rng(5)
    n_chunks = TOTAL // CHUNK
    for k in range(n_chunks):
        A, y, wrong, wsum = chunks[k % DISTINCT]
        sampled = k % 1000 == 0 or k == n_chunks - 1
        if sampled:
            run = mbcore.run_online(wm, A, y, classes=[0, 1] if k == 0 else None)
            cum = m.copy()
            pos = 0
            for t in sorted(pick.integers(0, CHUNK, size=2).tolist()):
                cum += wrong[pos:t].sum(axis=0, dtype=np.int64)
                pos = t
                l = -cum                                    # beta = 1/2: log2 w = -m
                want = exact_ge(l[A[t] == 1], l[A[t] == 0])
                assert run.predictions[t] == int(want), (k, t)
        else:
            wm.partial_fit(A, y)
        m += wsum
        if sampled or k % 100 == 0:
            assert np.array_equal(wm.expert_mistakes_, m), k
    L = wm.log2_weights_
    assert np.all(np.isfinite(L)) and np.array_equal(L, -m.astype(np.float64))
    assert wm.n_seen_ == TOTAL
    if kind == "adversarial":
        assert m.min() > 4 * 10 ** 7                # every weight far below 2**-1074
    else:
        assert int(np.argmin(m)) == 17
    bound = mbcore.bounds.weighted_majority_bound(int(m.min()), N_EXPERTS)
    assert wm.mistakes_ <= bound


# -- Winnow2, 10**8 steps -------------------------------------------------------------------------

def test_winnow_1e8_adversarial_steps():
    """The adversarial stream of test_winnow (every label contradicts the prediction after a
    warm-up; 31 weights halve every two steps, to 2**-50,000,000): the state after 10**8 steps is
    known by hand, every prediction after the warm-up is a mistake, and the first chunk and the
    last are replayed exactly."""
    chunk = 100_000
    X, y = next(adversarial_chunks(chunk, chunk=chunk))
    clf = mbcore.Winnow()
    for k in range(TOTAL // chunk):
        if k in (0, TOTAL // chunk - 1):
            run = mbcore.run_online(clf, X, y, classes=[0, 1] if k == 0 else None)
            assert run.errors[20 if k == 0 else 0:].all()
        else:
            clf.partial_fit(X, y)
    L = log2_as_int(clf.log2_coef_)
    assert clf.n_seen_ == TOTAL
    assert L[1] == 4
    others = np.delete(L, 1)
    assert (others == -(1 + (TOTAL - 12) // 2 + 1)).all()
    # every step from step 12 on is a mistake (steps 0..11 by hand: 0, 1, 2, 3, 5, 7, 9, 11)
    assert clf.mistakes_ == TOTAL - 12 + 8


def test_winnow_1e8_noisy_steps():
    """10**8 steps, n = 32, a 3-variable disjunction with 10% label noise: the state after every
    chunk of 10**6 rows equals the replay of the chunk, and the predictions of every 10th chunk
    are the exact decisions of the replayed state."""
    clf, _ = run_and_replay("mbcore", ("Winnow", {}),
                            noisy_chunks(2026, TOTAL, chunk=10 ** 6), every=10)
    assert clf.n_seen_ == TOTAL
    L = log2_as_int(clf.log2_coef_)
    assert L.max() <= 5                                  # w < theta before every doubling


# -- Balanced Winnow, 10**8 steps -----------------------------------------------------------------

def balanced_decisions(Lt, act, theta):
    """sum_{act} (2**a - 2**-a) >= theta for each row (w0 = 1, alpha = 2: l- = -l+), exactly: a
    float64 sum decides where it is far from theta, Fractions the rows near it."""
    E = np.clip(Lt, -1100, 1100).astype(np.int32)
    with np.errstate(over="ignore", invalid="ignore"):
        P = np.where(act, np.ldexp(1.0, E), 0.0).sum(axis=1)
        N = np.where(act, np.ldexp(1.0, -E), 0.0).sum(axis=1)
        F = P - N
        out = F >= theta
        near = ~(np.abs(F - theta) > (P + N + theta) * 2.0 ** -40)    # NaN and inf too
    for r in np.flatnonzero(near):
        out[r] = sum((Fraction(2) ** int(a) - Fraction(2) ** -int(a) for a in Lt[r][act[r]]),
                     Fraction(0)) >= Fraction(theta)
    return out


def replay_balanced(X, y, pred, L0, theta, check=True, block=25_000):
    """Check a recorded Balanced Winnow chunk (alpha = 2, w0 = 1) against the rule: the state
    before each row is L0 plus the earlier mistakes' updates (+1 on a false negative, -1 on a
    false positive, on the active features); every recorded prediction must be the exact
    decision.  Returns the final log2 w+ (log2 w- is its negation)."""
    L = L0.copy()
    for a in range(0, X.shape[0], block):
        Xb = X[a:a + block].astype(bool)
        yb, pb = y[a:a + block], pred[a:a + block]
        step = np.where(pb == yb, 0, np.where(yb == 1, 1, -1)).astype(np.int64)
        U = Xb * step[:, None]
        if check:
            Lt = L + np.cumsum(U, axis=0, dtype=np.int64) - U
            want = balanced_decisions(Lt, Xb, theta)
            bad = np.flatnonzero((pb == 1) != want)
            assert bad.size == 0, f"row {a + bad[0]}: predicted {int(pb[bad[0]])}"
        L = L + U.sum(axis=0, dtype=np.int64)
    return L


def test_balanced_winnow_1e8_noisy_steps():
    """10**8 steps of Balanced Winnow (n = 32, a 3-variable disjunction with 10% label noise):
    after every chunk of 10**6 rows the state equals the replay of the chunk (log2 w- = -log2
    w+ throughout), and the predictions of every 10th chunk are the exact decisions of the
    replayed state."""
    clf = mbcore.BalancedWinnow()
    L = np.zeros(32, dtype=np.int64)
    for k, (X, y) in enumerate(noisy_chunks(2027, TOTAL, chunk=10 ** 6)):
        run = mbcore.run_online(clf, X, y, classes=[0, 1] if k == 0 else None)
        pred = np.asarray(run.predictions, dtype=np.int64)
        L = replay_balanced(X, y, pred, L, 1.0, check=(k % 10 == 0 or k == 99))
        assert np.array_equal(log2_as_int(clf.log2_coef_), L), k
        assert np.array_equal(log2_as_int(clf.log2_coef_neg_), -L), k
    assert clf.n_seen_ == TOTAL
    assert np.isfinite(clf.decision_function(X)).all()
