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
* A function that takes a learner reads its state only while it holds the lock, across
  everything that must see one state (``run_online``'s pass and the mapping of its codes to
  labels through ``classes_``; ``predict_file``'s predictions and the classes it writes them
  with; ...): shown by a learner that records every read made without it, and by a stress
  test that runs ``fit``, ``run_online``, ``partial_fit`` and ``predict`` together many times
  with the interpreter switching threads as often as it can.

Every threaded call runs under ``run_threads``, which fails the test (instead of hanging it)
when a thread does not finish: the long timeout only guards against a deadlock, no assertion
depends on how fast the machine is.
"""

import copy
import io
import itertools
import os
import pickle
import sys
import threading
import time

import numpy as np
import pytest

import mbcore
import mbcore.distributed
import mbcore.online
import mbcore.streaming
from mbcore._kernels import linear as linear_kernels

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

# seconds: only to turn a deadlock into a failure (lower it to try a broken lock quickly)
DEADLOCK = float(os.environ.get("MBCORE_TEST_DEADLOCK", "120"))

# CI's debug build (MBCORE_DEBUG=1 MBCORE_NO_SIMD=1: -O0, bounds checks, scalar loops; .ci/run
# sets MBCORE_TEST_BUILD=debug for its tests) leaves out the races of the big batches (several
# seconds each in the release build, which CI runs in full): the kernels at -O0 with bounds
# checks would make them minutes.
SCALAR_BUILD = os.environ.get("MBCORE_TEST_BUILD") == "debug"
not_in_debug_build = pytest.mark.skipif(
    SCALAR_BUILD, reason="the debug build (scalar loops, -O0, bounds checks): big batches, "
    "run by the release build")


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


# (release build: Perceptron, DecisionList and Conjunction under a second each, the others
# 3 to 10 seconds)
HEAVY = ("Winnow", "WeightedMajority", "WeightedMajority(pool)", "Halving",
         "Conservative(Perceptron)")


@pytest.mark.parametrize("name", [pytest.param(n, marks=not_in_debug_build) if n in HEAVY else n
                                  for n in CASES])
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
    real = linear_kernels.lin_pass

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt
    monkeypatch.setattr(linear_kernels, "lin_pass", interrupted)
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


# -- reads of the state outside the lock -----------------------------------------------------

_UNLOCKED = {}      # id(learner) -> [(attribute, function, file)] read without the lock


def _lock_held(learner):
    rw = object.__getattribute__(learner, "_rw")
    me = threading.get_ident()
    return rw.owner == me or me in rw.readers


class Watched(mbcore.Perceptron):
    """A Perceptron that records every read of its fitted state (an attribute of the instance
    other than a parameter: ``classes_``, ``n_features_in_``, the arrays) made by a thread that
    holds neither its read nor its write lock.  Only the instances registered in ``_UNLOCKED``
    are watched (not the copies a function makes for itself)."""

    def __getattribute__(self, name):
        seen = _UNLOCKED.get(id(self))
        if seen is not None and not name.startswith("__"):
            d = object.__getattribute__(self, "__dict__")
            if name in d and name not in type(self)._param_names() and not _lock_held(self):
                caller = sys._getframe(1).f_code
                seen.append((name, caller.co_name, os.path.basename(caller.co_filename)))
        return object.__getattribute__(self, name)


def _svmlight(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:+d} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row)
                                              if v != 0.0) + "\n")
    return path


def _dask_array(X):
    da = pytest.importorskip("dask.array", reason="the optional extra mbcore[dask] is not "
                             "installed")
    return da.from_array(X, chunks=(25, X.shape[1]))


ENTRY_POINTS = {
    # name: call(learner, X, y, path of the same rows as svmlight, tmp_path)
    "fit": lambda w, X, y, f, tmp: w.fit(X, y),
    "partial_fit": lambda w, X, y, f, tmp: w.partial_fit(X, y),
    "predict": lambda w, X, y, f, tmp: w.predict(X),
    "decision_function": lambda w, X, y, f, tmp: w.decision_function(X),
    "score": lambda w, X, y, f, tmp: w.score(X, y),
    "run_online": lambda w, X, y, f, tmp: mbcore.run_online(w, X, y),
    "play_against": lambda w, X, y, f, tmp: mbcore.online.play_against(w, X[0]),
    "run_stream": lambda w, X, y, f, tmp: mbcore.run_stream(
        w, ((X[i:i + 20], y[i:i + 20]) for i in range(0, len(y), 20))),
    "train_file": lambda w, X, y, f, tmp: mbcore.streaming.train_file(w, f, ahead=False),
    "evaluate_file": lambda w, X, y, f, tmp: mbcore.streaming.evaluate_file(w, f, ahead=False),
    "predict_file": lambda w, X, y, f, tmp: mbcore.streaming.predict_file(
        w, f, tmp / "out.txt", ahead=False),
    "predict_file(raw)": lambda w, X, y, f, tmp: mbcore.streaming.predict_file(
        w, f, tmp / "out.txt", raw=True, ahead=False),
    "certify": lambda w, X, y, f, tmp: mbcore.certify(w, X, y),
    "pickle": lambda w, X, y, f, tmp: pickle.dumps(w),
    "clone": lambda w, X, y, f, tmp: mbcore.clone(w),
    "properties": lambda w, X, y, f, tmp: (w.coef_, w.mistakes_, w.n_seen_, w.updates_),
    "distributed.predict": lambda w, X, y, f, tmp: mbcore.distributed.predict(
        w, _dask_array(X)).compute(),
    "distributed.decision_function": lambda w, X, y, f, tmp:
        mbcore.distributed.decision_function(w, _dask_array(X)).compute(),
    "distributed.ipm_fit": lambda w, X, y, f, tmp: mbcore.distributed.ipm_fit(
        w, _dask_array(X), _dask_array(y[:, None])[:, 0]),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_functions_read_the_state_only_under_the_lock(entry, tmp_path):
    """Every public entry point, given a fitted learner, reads its state only while holding its
    lock: a read outside it could see a state another thread's ``fit`` has half reset (the
    race ``run_online`` had: its labels mapped from ``classes_`` after the pass had released
    the lock)."""
    rng = np.random.default_rng(8)
    X, y = _real(rng, 100, 6)
    f = _svmlight(tmp_path / "rows.svm", X, y)
    w = Watched().partial_fit(X, y)
    _UNLOCKED[id(w)] = seen = []
    try:
        ENTRY_POINTS[entry](w, X, y, f, tmp_path)
    finally:
        del _UNLOCKED[id(w)]
    assert seen == [], f"{entry} read the learner's state without its lock: {seen}"


def test_the_watch_sees_a_read_outside_the_lock():
    """(The check above can fail: a read of ``classes_`` outside the lock is recorded, one
    inside it is not.)"""
    rng = np.random.default_rng(9)
    w = Watched().partial_fit(*_real(rng, 20, 3))
    _UNLOCKED[id(w)] = seen = []
    try:
        with w.reading():
            w.classes_
        assert seen == []
        w.classes_
    finally:
        del _UNLOCKED[id(w)]
    assert [name for name, _, _ in seen] == ["classes_"]


# -- stress: fit, run_online, partial_fit and predict together, many times ---------------------

# rounds of the stress test (each a few milliseconds); MBCORE_TEST_STRESS_ROUNDS overrides
STRESS_ROUNDS = int(os.environ.get("MBCORE_TEST_STRESS_ROUNDS", "200"))
CALLS = 4           # calls per thread and round


def _outcome(call):
    """What a call gave: ("ok", its result as bytes) or ("error", type, message) for the
    error a serial order gives too (labels that are not among the learner's classes)."""
    try:
        out = call()
    except ValueError as exc:
        return ("error", type(exc).__name__, str(exc))
    if isinstance(out, mbcore.OnlineRun):
        out = (out.predictions, out.errors, out.updated)
    elif isinstance(out, mbcore.OnlineLearner):
        out = ()
    elif isinstance(out, np.ndarray):
        out = (out,)
    return ("ok", tuple((a.dtype.str, a.tobytes()) for a in out))


class Yielding(mbcore.Perceptron):
    """A Perceptron that lets the other threads run (sleeps ``PAUSE[0]`` seconds, releasing
    the interpreter) at the points where a call that is not locked as a whole lets another
    thread's call in: before it maps codes to labels (``_record_labels``, ``_labels``: the
    labels of ``run_online``, ``predict``) and between a ``fit``'s reset and the new
    ``classes_`` (``_prepare``).  Its results are the Perceptron's; only the interleavings
    that a few microseconds would rarely give become frequent."""

    def _record_labels(self, pred):
        _pause()
        return super()._record_labels(pred)

    def _labels(self, positive):
        _pause()
        return super()._labels(positive)

    def _prepare(self, X, y, classes):
        _pause()
        return super()._prepare(X, y, classes)


PAUSE = [0.0]


def _pause():
    if PAUSE[0]:
        time.sleep(PAUSE[0])


def _stress_round(rng, k):
    """One round: four threads, released together, each making CALLS calls on one learner:
    ``fit`` on labels A and B in turn (so each fit resets ``classes_`` and most replace it),
    ``run_online`` on labels A and B in turn, ``partial_fit`` on labels A, and ``predict``.
    Every call's outcome (its result, or the ValueError of labels the learner does not hold),
    and the final state, must be those of the same calls made one after another in the order
    in which they took the lock (recorded by its trace: a thread's i-th entry is its i-th
    call)."""
    d = 5
    A = [-1, 1] if k == 2 else [0, 1, 2]
    B = [0, 1] if k == 2 else [5, 6, 7]

    def data(n, labels):
        return rng.standard_normal((n, d)), np.asarray(labels)[rng.integers(0, len(labels), n)]

    clf = Yielding(max_epochs=2).partial_fit(*data(10, A), classes=A)
    start = copy.deepcopy(clf)
    fits = [data(12, (A, B)[i % 2]) for i in range(CALLS)]
    runs = [data(12, (A, B)[i % 2]) for i in range(CALLS)]
    parts = [data(12, A) for i in range(CALLS)]
    Xt = rng.standard_normal((20, d))
    calls = {"fit": [lambda c, b=b: c.fit(*b) for b in fits],
             "run_online": [lambda c, b=b: mbcore.run_online(c, *b) for b in runs],
             "partial_fit": [lambda c, b=b: c.partial_fit(*b) for b in parts],
             "predict": [lambda c: c.predict(Xt)] * CALLS}
    got, who = {}, {}

    def thread(name):
        def go():
            who[threading.get_ident()] = name
            for i, call in enumerate(calls[name]):
                got[name, i] = _outcome(lambda: call(clf))
        return go
    clf._rw.trace = trace = []
    PAUSE[0] = 20e-6
    try:
        run_threads(*(thread(name) for name in calls))
    finally:
        PAUSE[0] = 0.0
    clf._rw.trace = None
    made = dict.fromkeys(calls, 0)
    order = []
    for _, step, ident in trace:      # (one entry per call: writes "w", predicts "r")
        if step == 1:
            name = who[ident]
            order.append((name, made[name]))
            made[name] += 1
    assert made == dict.fromkeys(calls, CALLS), made
    ref = copy.deepcopy(start)
    want = {(name, i): _outcome(lambda: calls[name][i](ref)) for name, i in order}
    assert got == want, [c for c in order if got[c] != want[c]]
    assert state(clf) == state(ref)


def test_stress_fit_run_online_partial_fit_and_predict_interleaved():
    """Many small rounds of ``_stress_round`` (two classes and three), with the interpreter
    asked to switch threads every microsecond so that the calls interleave at as many points
    as it can.  Before ``run_online`` held the lock across its label mapping, nearly every run
    of this test failed (a ``fit`` had reset ``classes_`` between the pass and the mapping:
    AttributeError; or replaced it: labels of the wrong classes)."""
    rng = np.random.default_rng(10)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for r in range(STRESS_ROUNDS):
            _stress_round(rng, 2 + r % 2)
    finally:
        sys.setswitchinterval(interval)
