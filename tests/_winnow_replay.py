"""The Winnow tests' shared helpers (not a test module: pytest does not collect it).

The learners by name on both sides (``module``, ``learner_cls``, ``new``, ``make``), and the
exact replay of long runs in NumPy: ``log2_as_int`` reads the compiled state as integer
exponents, ``exact_decisions`` decides sum 2**l >= theta exactly, ``replay_winnow`` and
``replay_star`` check a recorded chunk against the rule, and ``run_and_replay`` feeds the long
streams (``noisy_chunks``, ``adversarial_chunks``) chunk by chunk against that replay.  Used by
test_winnow.py and test_long_runs.py.
"""

import math
from fractions import Fraction

import numpy as np

import mbcore
import mbref
import mbref.multiplicative as mbref_mult
from conftest import as_list


# ------------------------------------------------------------------------------------------------
# The learners, by name, on both sides
# ------------------------------------------------------------------------------------------------

def module(modname):
    return mbcore if modname == "mbcore" else mbref


def learner_cls(modname, name):
    """The class, looked up at run time: a missing compiled class fails the test (no skip)."""
    if modname == "mbref":
        return getattr(mbref_mult, name)
    return getattr(mbcore, name)


def new(modname, name, **params):
    return learner_cls(modname, name)(**params)


def make(modname, entry, **extra):
    name, params = entry
    return new(modname, name, **dict(params, **extra))


# ------------------------------------------------------------------------------------------------
# Replaying long runs in NumPy
# ------------------------------------------------------------------------------------------------

def _exp2(v):
    m, e = math.frexp(v)
    assert m == 0.5, v
    return e - 1


NEG = -(1 << 60)          # stands for log2 0 = -inf in integer arrays


def log2_as_int(log2, allow_zero=False):
    """The compiled state as int64 exponents: finite values must be integers (exact mode)."""
    L = np.asarray(as_list(log2), dtype=np.float64)
    assert not np.isnan(L).any() and not (L == np.inf).any()
    fin = np.isfinite(L)
    if not allow_zero:
        assert fin.all(), "a weight became 0"
    assert (L[fin] == np.round(L[fin])).all(), "a log-weight is not an integer"
    out = np.full(L.shape, NEG, dtype=np.int64)
    out[fin] = L[fin].astype(np.int64)
    return out


def exact_decisions(Lt, act, theta):
    """sum_{act} 2**Lt >= theta for each row, exactly: a float64 sum decides where it is far from
    theta (its error is below n * 2**-53 relative), integer arithmetic (exponents shifted to a
    common scale, in int64) near theta, and Fraction for what is left."""
    assert theta >= 2.0 ** -1000
    act = act & (Lt > NEG // 2)
    E = np.clip(Lt, -1100, 1100).astype(np.int32)
    with np.errstate(over="ignore"):
        terms = np.where(act, np.ldexp(1.0, E), 0.0)
        F = terms.sum(axis=1)
    out = F >= theta
    amb = np.flatnonzero(np.abs(F - theta) <= theta * 2.0 ** -40)
    if amb.size:
        _, e = math.frexp(theta)
        q = (e - 1) - 55
        scaled = Fraction(theta) / Fraction(2) ** q
        assert scaled.denominator == 1
        T = int(scaled)
        La, Aa = Lt[amb], act[amb]
        big = Aa & (La >= q)
        assert (La[big] - q <= 57).all()
        sh = np.where(big, La - q, 0)
        Sbig = np.where(big, np.left_shift(np.int64(1), sh), 0).sum(axis=1)
        small = (Aa & ~big).sum(axis=1)
        res = Sbig >= T
        for k in np.flatnonzero(~res & (2 * (T - Sbig) <= small)):
            r = amb[k]
            res[k] = sum((Fraction(2) ** int(v) for v in Lt[r][act[r]]), Fraction(0)) >= \
                Fraction(theta)
        out[amb] = res
    return out


def replay_winnow(X, y, pred, L0, la, lb, theta, check=True, block=25_000):
    """Check a recorded Winnow2 / elimination run chunk against the rule: the state before each
    row is L0 plus the updates of the earlier mistakes (cumulative sums); every recorded
    prediction must be the exact decision.  lb None = demotion to 0.  Returns the final state.
    With check=False only the final state is computed (the sum of the chunk's updates)."""
    L = L0.copy()
    for a in range(0, X.shape[0], block):
        Xb = X[a:a + block].astype(bool)
        yb, pb = y[a:a + block], pred[a:a + block]
        fn = (pb == 0) & (yb == 1)
        fp = (pb == 1) & (yb == 0)
        dead = L <= NEG // 2
        if check:
            P = Xb & fn[:, None]
            Dm = Xb & fp[:, None]
            cP = np.cumsum(P, axis=0, dtype=np.int64) - P
            cD = np.cumsum(Dm, axis=0, dtype=np.int64) - Dm
            if lb is None:
                Lt = np.where((cD > 0) | dead, NEG, L + la * cP)
            else:
                Lt = L + la * cP + lb * cD
            got = pb == 1
            want = exact_decisions(Lt, Xb, theta)
            bad = np.flatnonzero(got != want)
            assert bad.size == 0, f"row {a + bad[0]}: predicted {int(got[bad[0]])}, exact " \
                                  f"{int(want[bad[0]])}"
        nP = fn.astype(np.int64) @ Xb.astype(np.int64)
        nD = fp.astype(np.int64) @ Xb.astype(np.int64)
        if lb is None:
            L = np.where(dead | (nD > 0), NEG, L + la * nP)
        else:
            L = L + la * nP + lb * nD
    return L


def replay_star(X, y, pred, L0, la, lb, theta):
    """The same for Winnow* (demotion depends on the weight), looping over the mistakes only."""
    Xb = X.astype(bool)
    mist = np.flatnonzero(pred != y)
    states = [L0.copy()]
    L = L0.copy()
    for t in mist:
        if y[t] == 1:
            L[Xb[t]] += la
        else:
            L[Xb[t] & (L >= 0)] += lb
        states.append(L.copy())
    idx = np.searchsorted(mist, np.arange(X.shape[0]), side="left")
    Lt = np.asarray(states)[idx]
    got = pred == 1
    want = exact_decisions(Lt, Xb, theta)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"row {bad[0]}: predicted {int(got[bad[0]])}"
    return L


# ------------------------------------------------------------------------------------------------
# Long streams, and the run checked against the replay chunk by chunk
# ------------------------------------------------------------------------------------------------

def noisy_chunks(seed, total, n=32, chunk=100_000, k=3, p256=51, noise256=26):
    """A long noisy stream: each feature on with probability p256/256 (about 0.2), labelled by a
    k-variable disjunction, labels flipped with probability noise256/256 (about 0.1)."""
    rng = np.random.default_rng(seed)
    rel = rng.choice(n, size=k, replace=False)
    for a in range(0, total, chunk):
        b = min(a + chunk, total)
        X = (rng.integers(0, 256, size=(b - a, n), dtype=np.uint8) < p256).view(np.uint8)
        y = X[:, rel].any(axis=1).astype(np.int64)
        y ^= (rng.integers(0, 256, size=b - a, dtype=np.uint8) < noise256)
        yield X, y


def _rule(entry, n):
    name, p = entry
    alpha = p.get("alpha", 2.0)
    beta = p.get("beta", None)
    if name == "EliminationWinnow":
        return 1, None, p.get("theta") or n / 2.0
    beta = 1.0 / alpha if beta is None else beta
    return _exp2(alpha), _exp2(beta), p.get("theta") or float(n)


def _with_last(it):
    """(index, item, is_last) without materialising the generator (one item of look-ahead)."""
    it = iter(it)
    try:
        cur = next(it)
    except StopIteration:
        return
    k = 0
    for nxt in it:
        yield k, cur, False
        cur, k = nxt, k + 1
    yield k, cur, True


def run_and_replay(modname, entry, chunks, n=32, every=1):
    """Feed the chunks through run_online; replay each chunk from the state the learner reported
    before it: the state after every chunk must equal the replay, and the predictions of every
    ``every``-th chunk (and of the last) must be the exact decisions.  Returns the learner and
    the last chunk's record."""
    clf = make(modname, entry)
    la, lb, theta = _rule(entry, n)
    elim = entry[0] == "EliminationWinnow" or entry[1].get("beta") == 0.0
    rec = None
    L = None
    for k, (X, y), is_last in _with_last(chunks):
        rec = module(modname).run_online(clf, X, y, classes=[0, 1] if k == 0 else None)
        pred = np.asarray(as_list(rec.predictions), dtype=np.int64)
        if L is None:
            w0 = entry[1].get("w0", 1.0)
            L = np.full(n, _exp2(w0), dtype=np.int64)
        if entry[0] == "WinnowStar":
            L_end = replay_star(X, y, pred, L, la, lb, theta)
        else:
            L_end = replay_winnow(X, y, pred, L, la, lb, theta,
                                  check=(k % every == 0 or is_last))
        L = log2_as_int(clf.log2_coef_, allow_zero=elim)
        assert (L == L_end).all(), f"chunk {k}: final state differs from the replay"
    return clf, rec


def adversarial_chunks(total, n=32, chunk=100_000):
    """Alternating ({1}, 1) and (all features, 0).  Winnow2 (theta = n = 32): w1 climbs to 32,
    then every all-features example is a false positive (w1 = 32 alone reaches theta) that halves
    every weight, and every ({1}, 1) is a false negative that doubles w1 back: after a short
    warm-up every label contradicts the prediction, and the 31 other weights halve every two
    steps without end (2**-5,000,000 after 10**7 steps; far below float64)."""
    X = np.zeros((chunk, n), dtype=np.uint8)
    X[0::2, 1] = 1
    X[1::2, :] = 1
    y = np.zeros(chunk, dtype=np.int64)
    y[0::2] = 1
    for a in range(0, total, chunk):
        b = min(a + chunk, total)
        yield X[:b - a], y[:b - a]
