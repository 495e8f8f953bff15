"""A call that raises leaves the learner exactly as it was: also when a KeyboardInterrupt (Ctrl-C)
arrives between two kernel calls of one pass, or right after a kernel call returns.

CPython delivers a signal only between bytecodes, so an interrupt "during" a kernel call (which
runs without the GIL) surfaces as soon as that call returns.  The tests simulate exactly that:
every function of the kernel modules is wrapped so that its k-th call runs and then raises
KeyboardInterrupt, for k = 1, 2, ... until the call under test completes without reaching k.
After each interrupted call the learner's state must equal the state before the call, and the
learner must go on exactly like one that was never interrupted.
"""

import copy

import numpy as np
import pytest

import mbcore
from mbcore._kernels import (bitset, boolean, checks, experts, kernel, linear, multiclass,
                             multiplicative, multiplicative_mc)

# CI runs this file on the AddressSanitizer build too (tests/README.md)
pytestmark = pytest.mark.sanitized

KERNEL_MODULES = (linear, multiclass, kernel, checks, multiplicative, multiplicative_mc, experts,
                  boolean, bitset)


def fingerprint(obj, depth=0):
    """A comparable summary of a learner's state (arrays by dtype, shape and bytes)."""
    if depth > 20:
        return "..."
    if isinstance(obj, np.ndarray):
        return ("array", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(fingerprint(v, depth + 1) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple(sorted((repr(k), fingerprint(v, depth + 1))
                                     for k, v in obj.items())))
    if isinstance(obj, mbcore.OnlineLearner):
        return ("learner", type(obj).__name__, fingerprint(obj.__getstate__(), depth + 1))
    if isinstance(obj, mbcore.ConceptClass):
        return ("ConceptClass", obj.name, obj.n_concepts, obj.n_points)
    text = repr(obj)
    if " at 0x" in text:           # a cache object (e.g. SOA's memo): its kind only
        return ("object", type(obj).__name__)
    return ("value", text)


class Interrupter:
    """Wrap every kernel function; the k-th call (counting from 1) runs, then raises."""

    def __init__(self, monkeypatch, k):
        self.k = k
        self.calls = 0
        for mod in KERNEL_MODULES:
            for name in dir(mod):
                fn = getattr(mod, name)
                if name.startswith("__") or not callable(fn) or isinstance(fn, type):
                    continue
                monkeypatch.setattr(mod, name, self._wrap(fn))

    def _wrap(self, fn):
        def wrapped(*args, **kwargs):
            out = fn(*args, **kwargs)
            self.calls += 1
            if self.calls == self.k:
                raise KeyboardInterrupt
            return out
        return wrapped


def _data(seed, n=60, d=6, kind="real"):
    rng = np.random.default_rng(seed)
    if kind == "bool":
        X = (rng.random((n, d)) < 0.4).astype(np.uint8)
        y = np.where(X[:, 0] | X[:, 2], 1, -1)
        return X, y
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _advice(seed, n=60, m=7, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    y = rng.choice(labels, size=n)
    P = np.where(rng.random((n, m)) < 0.7, y[:, None], rng.choice(labels, size=(n, m)))
    return P, y


def _cases():
    def real(L):
        return L, _data(1), _data(2)

    def boolean_(L):
        return L, _data(1, kind="bool"), _data(2, kind="bool")

    cases = {
        "Perceptron": real(lambda: mbcore.Perceptron()),
        "MarginPerceptron": real(lambda: mbcore.MarginPerceptron(gamma=0.5)),
        "AveragedPerceptron-average": real(lambda: mbcore.AveragedPerceptron()),
        "AveragedPerceptron-vote": real(lambda: mbcore.AveragedPerceptron(mode="vote")),
        "KernelPerceptron": real(lambda: mbcore.KernelPerceptron()),
        "KernelPerceptron-budget": real(lambda: mbcore.KernelPerceptron(budget=5)),
        "OnlineHingeSVM": real(lambda: mbcore.OnlineHingeSVM()),
        "Winnow": boolean_(lambda: mbcore.Winnow()),
        "BalancedWinnow": boolean_(lambda: mbcore.BalancedWinnow()),
        "Winnow-real": real(lambda: mbcore.Winnow(features="real")),
        "Conjunction": boolean_(lambda: mbcore.Conjunction()),
        "Disjunction": boolean_(lambda: mbcore.Disjunction()),
        "DecisionList": boolean_(lambda: mbcore.DecisionList()),
        "WeightedMajority": (lambda: mbcore.WeightedMajority(), _advice(1), _advice(2)),
        "WeightedMajority-3": (lambda: mbcore.WeightedMajority(), _advice(1, labels=(0, 1, 2)),
                               _advice(2, labels=(0, 1, 2))),
        "RandomizedWeightedMajority": (lambda: mbcore.RandomizedWeightedMajority(
            random_state=3), _advice(1), _advice(2)),
        "Specialists": (lambda: mbcore.Specialists(), _advice(1), _advice(2)),
    }
    pool = lambda: mbcore.WeightedMajority(experts=[mbcore.Perceptron(), mbcore.Winnow(
        features="real"), mbcore.OnlineHingeSVM()])
    cases["WeightedMajority-pool"] = (pool, _data(1, n=15), _data(2, n=15))
    from mbcore.datasets import load_monks
    Xm, ym = load_monks(1)
    cases["PairSpecialists"] = (lambda: mbcore.PairSpecialists(), (Xm[:60], ym[:60]),
                                (Xm[60:120], ym[60:120]))
    C = mbcore.ConceptClass.all_conjunctions(4)
    pts = np.array(C.points)
    yv = np.array([1 if p[0] and not p[3] else 0 for p in pts])
    order = np.random.default_rng(5).permutation(len(pts))
    halves = (pts[order[:8]], yv[order[:8]]), (pts[order[8:]], yv[order[8:]])
    cases["Halving"] = (lambda: mbcore.Halving(C), *halves)
    # SOA on a smaller class: its Littlestone dimensions take ~10**5 small kernel calls at n=4
    C3 = mbcore.ConceptClass.all_conjunctions(3)
    p3 = np.array(C3.points)
    y3 = np.array([1 if p[0] and not p[2] else 0 for p in p3])
    cases["SOA"] = (lambda: mbcore.SOA(C3), (p3[:4], y3[:4]), (p3[4:], y3[4:]))
    return cases


CASES = _cases()


def _interrupted_call(monkeypatch, learner, call):
    """Run call(learner) with an interrupt after the k-th kernel call, k = 1, 2, ...: the
    state after each interrupted call equals the state before.  Returns how many kernel
    calls the uninterrupted call made."""
    before = fingerprint(learner)
    k = 1
    while k < 100_000:
        with monkeypatch.context() as m:
            it = Interrupter(m, k)
            try:
                call(learner)
            except KeyboardInterrupt:
                assert fingerprint(learner) == before, f"state changed by an interrupt after " \
                                                       f"kernel call {k}"
                # every position for the first 40 calls, then ever sparser (SOA's Littlestone
                # dimensions make thousands of small kernel calls)
                k = k + 1 if k < 40 else int(k * 1.25)
                continue
        return it.calls
    raise AssertionError("the call never completed")


@pytest.mark.parametrize("name", sorted(CASES))
def test_interrupted_partial_fit_changes_nothing(monkeypatch, name):
    make, (X1, y1), (X2, y2) = CASES[name]
    learner = make().partial_fit(X1, y1)
    twin = make().partial_fit(X1, y1)
    calls = _interrupted_call(monkeypatch, learner, lambda L: L.partial_fit(X2, y2))
    assert calls >= 1
    # the interrupted learner, then completed, goes on exactly like one never interrupted
    twin.partial_fit(X2, y2)
    assert fingerprint(learner) == fingerprint(twin)
    assert np.array_equal(np.asarray(learner.predict(X1)), np.asarray(twin.predict(X1)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_interrupted_fit_changes_nothing(monkeypatch, name):
    make, (X1, y1), (X2, y2) = CASES[name]
    learner = make().partial_fit(X1, y1)
    twin = copy.deepcopy(learner)
    _interrupted_call(monkeypatch, learner, lambda L: L.fit(X2, y2))
    assert fingerprint(learner) == fingerprint(twin.fit(X2, y2))


@pytest.mark.parametrize("name", sorted(CASES))
def test_interrupted_first_call_leaves_unfitted(monkeypatch, name):
    make, (X1, y1), _ = CASES[name]
    learner = make()
    _interrupted_call(monkeypatch, learner, lambda L: mbcore.run_online(L, X1, y1))
    assert fingerprint(learner) == fingerprint(make().partial_fit(X1, y1))


def test_vote_counts_stay_in_step_with_n_seen(monkeypatch):
    """The case of the report: Ctrl-C during an AveragedPerceptron(mode="vote") pass."""
    (X1, y1), (X2, y2) = _data(1), _data(2)
    ap = mbcore.AveragedPerceptron(mode="vote").partial_fit(X1, y1)
    with monkeypatch.context() as m:
        Interrupter(m, 2)          # after the pass, before the vote vectors are recorded
        with pytest.raises(KeyboardInterrupt):
            ap.partial_fit(X2, y2)
    counts = np.concatenate(ap._vote_c)
    assert counts.sum() == ap.n_seen_ == len(y1)
