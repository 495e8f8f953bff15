"""Threads and the compiled one-example step (``mbcore._kernels.names.OneFast``).

The step of a plain example (str names, float/int/bool values, no new name, a bool/int/float/str
label) runs without taking the learner's lock when no thread is inside it: it runs no Python
code, so under the GIL no other thread can run in between, and it is one indivisible call.
Anything that could run Python code (a NumPy scalar, a key or a label of another type, a new
name) goes to the locked step.  These tests show both halves: the plain step does not need the
lock's mutex, and every example that runs Python code does so while the lock is held; then many
threads on one learner lose nothing.
"""

import sys
import threading

import numpy as np
import pytest

import mbcore
from mbcore._locking import get_ident

pytestmark = [pytest.mark.sanitized]


# the families with a compiled one-example step: the linear learners' (OneLinear) and the
# second-order ones' (OneSecondOrder: a covariance, a full matrix, ALMA's theta)
MAKERS = {"Perceptron": lambda: mbcore.Perceptron(fit_intercept=True),
          "AROW": lambda: mbcore.AROW(fit_intercept=True),
          "SecondOrderPerceptron-full": lambda: mbcore.SecondOrderPerceptron(covariance="full"),
          "ALMA": lambda: mbcore.ALMA(fit_intercept=True)}


def _fitted(make=MAKERS["Perceptron"]):
    p = make()
    p.learn_one({"a": 1.0, "b": -1.0}, True)
    p.learn_one({"a": -1.0, "b": 1.0}, False)
    p.predict_one({"a": 1.0})           # (binds the compiled step)
    return p


def _runs_while_mutex_is_held(p, call, wait=10.0):
    """Whether call() finishes within ``wait`` seconds while this test holds the lock's mutex
    (raw, no owner set); it finishes in any case once the mutex is released."""
    done = threading.Event()
    p._rw.w.acquire()
    try:
        t = threading.Thread(target=lambda: (call(), done.set()), daemon=True)
        t.start()
        finished = done.wait(wait)
    finally:
        p._rw.w.release()
    t.join(10.0)
    assert done.is_set()
    return finished


@pytest.mark.skipif(getattr(sys, "_is_gil_enabled", lambda: True)() is False,
                    reason="free-threaded build: the step always takes the lock")
@pytest.mark.parametrize("name", list(MAKERS))
def test_a_plain_example_needs_no_lock(name):
    p = _fitted(MAKERS[name])
    assert _runs_while_mutex_is_held(p, lambda: p.learn_one({"a": 0.5, "b": 2}, False))
    assert _runs_while_mutex_is_held(p, lambda: p.predict_one({"a": 0.5, "b": True}))
    assert p.n_seen_ == 3


@pytest.mark.parametrize("x, y", [
    ({"a": np.float64(0.5)}, True),         # a NumPy scalar: float() runs its code
    ({"a": 2 ** 70}, True),                 # an int beyond 64 bits
    ({"c": 1.0}, True),                     # a new name
    ({"a": 1.0}, np.bool_(True)),           # a label of another type
])
def test_what_could_run_python_code_waits_for_the_lock(x, y):
    p = _fitted()
    assert not _runs_while_mutex_is_held(p, lambda: p.learn_one(x, y), wait=0.3)
    assert p.n_seen_ == 3


class _Key(str):
    """A str whose hash and equality run Python code (and look at the lock)."""
    seen = []

    def __hash__(self):
        _Key.seen.append(_Key.learner._rw.owner == get_ident())
        return str.__hash__(self)

    def __eq__(self, other):
        _Key.seen.append(_Key.learner._rw.owner == get_ident())
        return str.__eq__(self, other)


class _Real(float):
    """A float whose conversion runs Python code (and looks at the lock)."""
    seen = []

    def __float__(self):
        _Real.seen.append(_Real.learner._rw.owner == get_ident())
        return float.__float__(self)


def test_python_code_of_keys_and_values_runs_under_the_lock():
    p = _fitted()
    _Key.learner = _Real.learner = p
    x1, x2 = {_Key("a"): 1.0, "b": _Real(2.0)}, {_Key("b"): _Real(-1.0)}
    _Key.seen, _Real.seen = [], []      # (making the dicts hashed the keys, outside)
    p.learn_one(x1, True)
    p.predict_one(x2)
    assert _Key.seen and _Real.seen
    assert all(_Key.seen) and all(_Real.seen)


@pytest.mark.filterwarnings("ignore:.*X does not have valid feature names")
@pytest.mark.parametrize("name", list(MAKERS))
def test_many_threads_lose_nothing(name):
    # threads in the plain lock-free step, in the locked step (NumPy scalars every 7th
    # example), and a thread with whole batches (partial_fit and predict, whose kernels release
    # the GIL), on one learner, switching as often as the interpreter allows
    rng = np.random.default_rng(3)
    names = [f"f{j}" for j in range(20)]
    p = MAKERS[name]()
    p.learn_one({"f0": 1.0}, True, classes=[False, True])
    for k in names:                      # every name known: the plain step takes the rest
        p.learn_one({k: 0.0}, False)
    n0 = p.n_seen_
    X = rng.normal(size=(4000, 20))
    y = X @ rng.normal(size=20) > 0
    xs = [{names[j]: (np.float64(v) if i % 7 == 0 else float(v))
           for j, v in enumerate(row) if abs(v) > 0.5} for i, row in enumerate(X)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors = []

    def one(lo, hi):
        try:
            for i in range(lo, hi):
                p.predict_one(xs[i])
                p.learn_one(xs[i], bool(y[i]))
        except BaseException as e:      # pragma: no cover (reported below)
            errors.append(e)

    def batch():
        try:
            for _ in range(20):
                p.partial_fit(X[:500], y[:500])
                p.predict(X)
        except BaseException as e:      # pragma: no cover
            errors.append(e)

    try:
        ts = [threading.Thread(target=one, args=(k * 1000, (k + 1) * 1000)) for k in range(4)]
        ts.append(threading.Thread(target=batch))
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors
    assert p.n_seen_ == n0 + 4000 + 20 * 500
    w = p.coef_
    assert np.all(np.isfinite(w))
