"""The threading contract (README "Threads"; ``OnlineLearner``'s docstring).

* Calls that change a learner (``partial_fit``, ``fit``, ``run_online``, ``set_params``) are
  serialised: the result equals the result of the same calls made one after another, in the
  order in which they took the learner's lock (recorded by the lock's ``trace``), with no lost
  counts.
* Reading calls (``predict``, ``decision_function``, ``score``, pickling) running beside a
  ``partial_fit`` see the state before or after each whole batch, never a torn one.
* Reading calls run together: shown by two predicts that wait for each other inside the lock
  (a barrier that only two readers holding the lock at once can pass), not by timing.
* Nested calls (``fit`` -> ``partial_fit``, ``score`` -> ``predict``, a pool -> its experts,
  ``certify``, ``run_online``) do not deadlock; a call that raises (KeyboardInterrupt too)
  releases the lock; the lock is never pickled, copied or saved.

Every threaded call runs under ``run_threads``, which fails the test (instead of hanging it)
when a thread does not finish: the long timeout only guards against a deadlock, no assertion
depends on how fast the machine is.
"""

import copy
import io
import itertools
import os
import pickle
import threading

import numpy as np
import pytest

import mbcore
from mbcore._kernels import linear as linear_kernels

# seconds: only to turn a deadlock into a failure (lower it to try a broken lock quickly)
DEADLOCK = float(os.environ.get("MBCORE_TEST_DEADLOCK", "120"))


def run_threads(*targets):
    """Start one thread per callable, all released together; re-raise the first error."""
    start = threading.Barrier(len(targets))
    errors = []

    def body(fn):
        try:
            start.wait(DEADLOCK)
            fn()
        except BaseException as exc:  # noqa: B902 (reported to the main thread)
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(fn,), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLOCK)
        assert not t.is_alive(), "a thread did not finish: deadlock"
    if errors:
        raise errors[0]


def state(learner):
    """A comparable summary of the whole state (arrays by dtype, shape and bytes; nested
    learners included)."""
    def fp(v):
        if isinstance(v, np.ndarray):
            return ("a", v.dtype.str, v.shape, v.tobytes())
        if isinstance(v, (list, tuple)):
            return tuple(fp(e) for e in v)
        if isinstance(v, dict):
            return tuple(sorted((repr(k), fp(e)) for k, e in v.items()))
        if hasattr(v, "partial_fit") and hasattr(v, "__getstate__"):
            return ("learner", type(v).__name__, fp(v.__getstate__()))
        if isinstance(v, mbcore.ConceptClass):
            return ("C", v.name)
        text = repr(v)
        return ("o", type(v).__name__) if " at 0x" in text else text
    return fp(learner.__getstate__())


# -- the learners and their data ----------------------------------------------------------

def _real(rng, n, d=40):
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + X[:, 1] + 0.8 * rng.standard_normal(n) > 0, 1, -1)  # noisy: updates
    return X, y


def _bool(rng, n, d=60):
    X = (rng.random((n, d)) < 0.3).astype(np.uint8)
    y = (X[:, 0] | X[:, 3] | X[:, 7]).astype(np.int64)
    flip = rng.random(n) < 0.05
    return X, np.where(flip, 1 - y, y)


def _advice(rng, n, k=200):
    y = rng.integers(0, 2, n)
    good = rng.random((n, k)) < np.linspace(0.55, 0.95, k)
    return np.where(good, y[:, None], 1 - y[:, None]).astype(np.int64), y


_C = mbcore.ConceptClass.monotone_conjunctions(10)


def _points(rng, n):
    pts = rng.integers(0, _C.n_points, n)
    return pts, np.asarray(_C.labels(37))[pts]


CASES = {
    # name: (factory, data(rng, n), rows per batch)
    "Perceptron": (lambda: mbcore.Perceptron(), _real, 40_000),
    "Winnow": (lambda: mbcore.Winnow(), _bool, 40_000),
    "WeightedMajority": (lambda: mbcore.WeightedMajority(), _advice, 20_000),
    "WeightedMajority(pool)": (
        lambda: mbcore.WeightedMajority(experts=[mbcore.Perceptron(), mbcore.Perceptron(eta=2.0)]),
        lambda rng, n: _real(rng, n, 5), 150),
    "Conjunction": (lambda: mbcore.Conjunction(), _bool, 40_000),   # noisy: flagged rows
    "DecisionList": (lambda: mbcore.DecisionList(), _bool, 20_000),
    "Halving": (lambda: mbcore.Halving(_C), _points, 1_000_000),   # (a fast kernel)
    "Conservative(Perceptron)": (lambda: mbcore.Conservative(mbcore.Perceptron()), _real, 5_000),
}


def fitted(name, seed=0):
    """(a learner fitted on a first small batch, three more batches, the ids of the batches)"""
    factory, data, n = CASES[name]
    rng = np.random.default_rng(seed)
    X0, y0 = data(rng, 50)
    learner = factory().partial_fit(X0, y0)
    batches = [data(rng, n) for _ in range(3)]
    return learner, batches


def _order(trace, who):
    """The batches in the order their threads took the write lock."""
    return [who[ident] for kind, step, ident in trace if kind == "w" and step == 1]


@pytest.mark.parametrize("name", list(CASES))
def test_concurrent_partial_fit_equals_a_serial_order(name):
    for seed in range(3):
        learner, batches = fitted(name, seed)
        start = copy.deepcopy(learner)
        n0 = learner.n_seen_
        serial = {}
        for perm in itertools.permutations(range(3)):
            c = copy.deepcopy(start)
            for i in perm:
                c.partial_fit(*batches[i])
            serial[perm] = state(c)
        # (elimination learners end at the same hypothesis in any order: there the counts
        # tell a race)
        assert len(set(serial.values())) > 1 or name in ("Conjunction", "Halving"), \
            "the orders must give different states, or the test could not see a race"

        learner._rw.trace = trace = []
        who = {}

        def train(i):
            def go():
                who[threading.get_ident()] = i
                learner.partial_fit(*batches[i])
            return go
        run_threads(*(train(i) for i in range(3)))
        learner._rw.trace = None

        order = tuple(_order(trace, who))
        assert sorted(order) == [0, 1, 2]
        assert learner.n_seen_ == n0 + sum(len(b[1]) for b in batches)     # no lost counts
        assert state(learner) == serial[order]       # exactly the serial run in lock order


def test_concurrent_fit_and_run_online_are_serialised():
    rng = np.random.default_rng(5)
    batches = [_real(rng, 30_000) for _ in range(3)]
    clf = mbcore.Perceptron(max_epochs=3)
    clf.partial_fit(*_real(rng, 10))
    start = copy.deepcopy(clf)
    calls = [lambda: clf.fit(*batches[0]), lambda: mbcore.run_online(clf, *batches[1]),
             lambda: clf.partial_fit(*batches[2])]
    clf._rw.trace = trace = []
    who = {}

    def tagged(i):
        def go():
            who[threading.get_ident()] = i
            calls[i]()
        return go
    run_threads(*(tagged(i) for i in range(3)))
    clf._rw.trace = None
    order = _order(trace, who)
    ref = copy.deepcopy(start)
    replay = [lambda: ref.fit(*batches[0]), lambda: mbcore.run_online(ref, *batches[1]),
              lambda: ref.partial_fit(*batches[2])]
    for i in order:
        replay[i]()
    assert state(clf) == state(ref)


@pytest.mark.parametrize("name", ["Perceptron", "Winnow", "WeightedMajority", "DecisionList",
                                  "Conservative(Perceptron)"])
def test_predict_beside_partial_fit_sees_whole_batches(name):
    learner, batches = fitted(name, 11)
    batches = batches + [(X[: len(y) // 2], y[: len(y) // 2]) for X, y in batches]
    Xt = batches[0][0][:2000]
    decide = hasattr(learner, "decision_function")
    # every state the learner goes through, batch by batch, and what it predicts there
    ref = copy.deepcopy(learner)
    allowed_pred = [ref.predict(Xt)]
    allowed_dec = [ref.decision_function(Xt)] if decide else []
    for b in batches:
        ref.partial_fit(*b)
        allowed_pred.append(ref.predict(Xt))
        if decide:
            allowed_dec.append(ref.decision_function(Xt))
    assert len({p.tobytes() for p in allowed_pred}) > 2, "the batches must change predictions"
    seen_pred, seen_dec, copies = [], [], []
    done = threading.Event()

    def train():
        try:
            for b in batches:
                learner.partial_fit(*b)
        finally:
            done.set()

    def watch():
        while True:
            finished = done.is_set()
            seen_pred.append(learner.predict(Xt))
            if decide:
                seen_dec.append(learner.decision_function(Xt))
            copies.append(copy.deepcopy(learner))     # pickling reads one whole state too
            if finished:
                return

    run_threads(train, watch, watch)
    assert state(learner) == state(ref)
    good = {p.tobytes() for p in allowed_pred}
    assert all(p.tobytes() in good for p in seen_pred)
    good = {d.tobytes() for d in allowed_dec}
    assert all(d.tobytes() in good for d in seen_dec)
    assert all(c.predict(Xt).tobytes() in {p.tobytes() for p in allowed_pred} for c in copies)
    assert seen_pred[-1].tobytes() == allowed_pred[-1].tobytes()


# -- readers share the lock -----------------------------------------------------------------

def _meeting(cls, barrier):
    """A subclass whose predict waits, inside the read lock, for a second predict to be inside
    too: two readers can pass only if they hold the lock at the same time."""
    class Meeting(cls):
        def predict(self, X, *args):
            barrier.wait(DEADLOCK)
            return super().predict(X, *args)
    Meeting.__name__ = cls.__name__
    return Meeting


@pytest.mark.parametrize("name", ["Perceptron", "WeightedMajority", "Halving"])
def test_concurrent_predicts_overlap(name):
    factory, data, _ = CASES[name]
    barrier = threading.Barrier(2)
    base = factory()
    learner = _meeting(type(base), barrier)(**base.get_params(deep=False))
    rng = np.random.default_rng(2)
    X, y = data(rng, 500)
    learner.partial_fit(X, y)
    expected = mbcore.clone(base).partial_fit(X, y).predict(X)
    learner._rw.trace = trace = []
    out = []
    run_threads(lambda: out.append(learner.predict(X)), lambda: out.append(learner.predict(X)))
    assert all((o == expected).all() for o in out)
    inside, most = 0, 0
    for kind, step, _ in trace:
        assert kind == "r"
        inside += step
        most = max(most, inside)
    assert most == 2                        # two readers held the lock at once


def test_a_writer_waits_for_the_readers_and_the_readers_for_the_writer():
    rng = np.random.default_rng(3)
    X, y = _real(rng, 1000)
    clf = mbcore.Perceptron().partial_fit(X, y)
    before = state(clf)
    t = threading.Thread(target=clf.partial_fit, args=(X, y), daemon=True)
    with clf.reading():
        t.start()
        t.join(0.5)
        assert t.is_alive() and state(clf) == before   # held back while a reader is inside
        assert (clf.predict(X) == clf.predict(X)).all()   # nested reads go on
    t.join(DEADLOCK)
    assert not t.is_alive() and clf.n_seen_ == 2000
    r = threading.Thread(target=clf.predict, args=(X,), daemon=True)
    with clf.writing():
        r.start()
        r.join(0.5)
        assert r.is_alive()                             # held back while a writer is inside
        clf.partial_fit(X, y)                           # nested write goes on
    r.join(DEADLOCK)
    assert not r.is_alive() and clf.n_seen_ == 3000


# -- nesting, errors, interrupts ------------------------------------------------------------

def test_nested_calls_do_not_deadlock():
    rng = np.random.default_rng(4)
    X, y = _real(rng, 300, 5)
    pool = mbcore.WeightedMajority(experts=[mbcore.Perceptron(), mbcore.Winnow(features="real")])
    sp = mbcore.Specialists()
    P, yp = _advice(rng, 200, 6)
    W = (rng.random(P.shape) < 0.7).astype(np.uint8)
    cons = mbcore.Conservative(mbcore.Perceptron())
    clf = mbcore.Perceptron()

    def calls():
        pool.fit(X, y)                                  # fit -> partial_fit -> the experts
        pool.score(X, y)                                # score -> predict -> the experts
        mbcore.run_online(pool, X, y)
        sp.fit(P, yp, awake=W)
        sp.score(P, yp, awake=W)
        mbcore.run_online(sp, P, yp, awake=W)
        cons.partial_fit(X, y)
        cons.predict(X)
        mbcore.run_online(cons, X, y)
        clf.fit(X, y)
        clf.score(X, y)
        mbcore.certify(clf, X, y)
        with clf.writing():
            clf.partial_fit(X, y)
            clf.score(X, y)
            with clf.reading():
                clf.predict(X)
        with clf.reading():
            clf.score(X, y)
            pickle.dumps(clf)
            with pytest.raises(RuntimeError, match="inside a reading call"):
                clf.partial_fit(X, y)                   # would wait for itself: refused
    run_threads(calls, calls)
    for lrn in (pool, sp, cons, clf, *pool.experts):
        assert lrn._rw.owner is None and not lrn._rw.readers and not lrn._rw.w.locked()


def test_a_call_that_raises_releases_the_lock(monkeypatch):
    rng = np.random.default_rng(6)
    X, y = _real(rng, 200)
    clf = mbcore.Perceptron().partial_fit(X, y)
    before = state(clf)
    with pytest.raises(ValueError):
        clf.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError):
        clf.predict(X[:, :3])
    real = linear_kernels.lin_pass_dense64

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt
    monkeypatch.setattr(linear_kernels, "lin_pass_dense64", interrupted)
    with pytest.raises(KeyboardInterrupt):
        clf.partial_fit(X, y)
    with pytest.raises(KeyboardInterrupt):
        clf.fit(X, y)
    monkeypatch.undo()
    assert state(clf) == before
    rw = clf._rw
    assert rw.owner is None and not rw.readers and not rw.w.locked()
    run_threads(lambda: clf.partial_fit(X, y), lambda: clf.predict(X))   # not stuck
    assert clf.n_seen_ == 400


# -- the lock is never stored ------------------------------------------------------------------

def test_the_lock_is_not_pickled_copied_or_saved():
    rng = np.random.default_rng(7)
    X, y = _real(rng, 100)
    pool = mbcore.WeightedMajority(experts=[mbcore.Perceptron()]).partial_fit(X[:, :4], y)
    for lrn in (mbcore.Perceptron().partial_fit(X, y), pool,
                mbcore.Conservative(mbcore.Perceptron()).partial_fit(X, y)):
        assert "_rw" not in lrn.__dict__ and "_rw" not in lrn.__getstate__()
        copies = [copy.deepcopy(lrn), copy.copy(lrn), mbcore.clone(lrn)]
        copies += [pickle.loads(pickle.dumps(lrn, protocol=p))
                   for p in range(pickle.HIGHEST_PROTOCOL + 1)]
        if isinstance(lrn, mbcore.OnlineLearner):
            buf = io.BytesIO()
            lrn.save(buf)
            buf.seek(0)
            copies.append(mbcore.load(buf))
        for c in copies:
            assert isinstance(c._rw, type(lrn._rw)) and c._rw is not lrn._rw
            assert c._rw.owner is None and not c._rw.readers and not c._rw.w.locked()
        for c in copies[:2] + copies[3:]:          # (the clone is unfitted)
            assert state(c) == state(lrn)
    for c in (copy.deepcopy(pool), mbcore.clone(pool), pickle.loads(pickle.dumps(pool))):
        assert c.experts[0]._rw is not pool.experts[0]._rw


def test_every_learner_class_is_guarded():
    """Every public learner class (and the Conservative wrapper) has its state-changing and
    reading methods wrapped by the lock, including the ones a family defines itself."""
    classes = [getattr(mbcore, n) for n in mbcore.__all__]
    learners = [c for c in classes if isinstance(c, type) and hasattr(c, "partial_fit")
                and hasattr(c, "_rw")]
    names = {c.__name__ for c in learners}
    assert {"Perceptron", "Winnow", "WeightedMajority", "Specialists", "PairSpecialists",
            "Conjunction", "DecisionList", "Halving", "SOA", "Conservative"} <= names
    for cls in learners:
        for meth in ("partial_fit", "fit", "_online", "set_params"):
            f = getattr(cls, meth, None)
            if f is not None:
                assert getattr(f, "_mbcore_lock", None) == "write", (cls, meth)
        for meth in ("predict", "decision_function", "score", "predict_covered"):
            f = cls.__dict__.get(meth) or getattr(cls, meth, None)
            if callable(f):
                assert getattr(f, "_mbcore_lock", None) == "read", (cls, meth)
