"""Benchmarks of ``classes=`` given on every call of a stream (issue 36), against not giving it.

The bundled mushrooms (8,124 rows, 112 Boolean features): a Perceptron that has learned the
first row (with ``classes=[-1, 1]``), then, per timed round, 1,000 calls over rows 1-1,000:

* ``learn_one`` on the rows as dicts of their non-zero entries (float values, built before);
* ``partial_fit`` of one row (a C-ordered (1, 112) float64 array and a 1-element label array);
* ``partial_fit`` of a batch of 100 rows (10 calls per round, for the batch path).

each three ways: no ``classes=`` (``none``), the same list object on every call, the one the
first call was given (``same``: ``cl = [-1, 1]`` made once, before the loop), and a new list of
the same labels on every call (``literal``: ``classes=[-1, 1]`` written in the loop, so the list
is built anew).
An unchanged ``classes=`` must cost at most 10% over not passing it (ratio table, keys
``classes_again.*``: target ``same / none <= 1.1``; ``literal / none`` is reported).  Each
learner starts from the same state and sees the same rows, so the three do the same work.

Not part of the default test run.  From the repository root (about 30 seconds):

    python -m pytest bench/test_bench_classes_again.py -p no:cacheprovider --benchmark-only

On a loaded machine the benchmarks, timed one after the other, move by +-10% between runs;
``python bench/test_bench_classes_again.py`` times the three ways interleaved in one loop
(``interleaved``) and prints the ratios, which a change of load cannot make.
"""

import numpy as np
import pytest

import mbcore
from mbcore.datasets import load_mushrooms

ROUNDS, N = 100, 1000


@pytest.fixture(scope="module")
def mushrooms():
    X, y = load_mushrooms()
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y)
    dicts = [{f"x{j}": float(X[i, j]) for j in np.flatnonzero(X[i])} for i in range(N + 1)]
    labels = [int(v) for v in y[:N + 1]]
    rows = [np.ascontiguousarray(X[i:i + 1]) for i in range(N + 1)]
    ys = [y[i:i + 1].copy() for i in range(N + 1)]
    return dicts, labels, rows, ys, X[:N + 1], y[:N + 1]


def _run(benchmark, f):
    benchmark.pedantic(f, rounds=ROUNDS, iterations=1, warmup_rounds=3)


@pytest.mark.parametrize("given", ["none", "same", "literal"])
def test_learn_one(benchmark, record, mushrooms, given):
    dicts, labels, _, _, _, _ = mushrooms
    cl = [-1, 1]
    clf = mbcore.Perceptron()
    clf.learn_one(dicts[0], labels[0], classes=cl)
    pairs = list(zip(dicts[1:], labels[1:]))
    learn = clf.learn_one
    if given == "none":
        def call():
            for x, t in pairs:
                learn(x, t)
    elif given == "same":
        def call():
            for x, t in pairs:
                learn(x, t, classes=cl)
    else:
        def call():
            for x, t in pairs:
                learn(x, t, classes=[-1, 1])
    record(f"classes_again.learn_one.{given}", N)
    _run(benchmark, call)


@pytest.mark.parametrize("given", ["none", "same", "literal"])
def test_partial_fit_one_row(benchmark, record, mushrooms, given):
    _, _, rows, ys, _, _ = mushrooms
    cl = [-1, 1]
    clf = mbcore.Perceptron().partial_fit(rows[0], ys[0], classes=cl)
    pairs = list(zip(rows[1:], ys[1:]))
    fit = clf.partial_fit
    if given == "none":
        def call():
            for x, t in pairs:
                fit(x, t)
    elif given == "same":
        def call():
            for x, t in pairs:
                fit(x, t, classes=cl)
    else:
        def call():
            for x, t in pairs:
                fit(x, t, classes=[-1, 1])
    record(f"classes_again.partial_fit.{given}", N)
    _run(benchmark, call)


@pytest.mark.parametrize("given", ["none", "same", "literal"])
def test_partial_fit_batch(benchmark, record, mushrooms, given):
    _, _, rows, ys, X, y = mushrooms
    cl = [-1, 1]
    clf = mbcore.Perceptron().partial_fit(rows[0], ys[0], classes=cl)
    batches = [(np.ascontiguousarray(X[a:a + 100]), y[a:a + 100].copy())
               for a in range(1, N + 1, 100)]
    fit = clf.partial_fit
    if given == "none":
        def call():
            for x, t in batches:
                fit(x, t)
    elif given == "same":
        def call():
            for x, t in batches:
                fit(x, t, classes=cl)
    else:
        def call():
            for x, t in batches:
                fit(x, t, classes=[-1, 1])
    record(f"classes_again.partial_fit_batch.{given}", N)
    _run(benchmark, call)


def interleaved(repeats=60):
    """The same three ways timed in one loop, alternately (``none``, ``same``, ``literal``, then
    again, ``repeats`` times; the min of each), so that a change of the machine's load between
    two benchmarks cannot make a ratio: {call: {way: ns per call}}."""
    import time
    X, y = load_mushrooms()
    X = np.ascontiguousarray(X, dtype=np.float64)
    dicts = [{f"x{j}": float(X[i, j]) for j in np.flatnonzero(X[i])} for i in range(N + 1)]
    labels = [int(v) for v in y[:N + 1]]
    rows = [np.ascontiguousarray(X[i:i + 1]) for i in range(N + 1)]
    ys = [np.asarray(y)[i:i + 1].copy() for i in range(N + 1)]
    calls = {}
    streams = (("learn_one", (dicts[0], labels[0]), list(zip(dicts[1:], labels[1:]))),
               ("partial_fit", (rows[0], ys[0]), list(zip(rows[1:], ys[1:]))))
    for call, first, data in streams:
        cl = [-1, 1]
        ways = {}
        for way in ("none", "same", "literal"):
            clf = mbcore.Perceptron()
            getattr(clf, call)(*first, classes=cl)
            f = getattr(clf, call)
            if way == "none":
                def run(f=f):
                    for a, b in data:
                        f(a, b)
            elif way == "same":
                def run(f=f):
                    for a, b in data:
                        f(a, b, classes=cl)
            else:
                def run(f=f):
                    for a, b in data:
                        f(a, b, classes=[-1, 1])
            ways[way] = run
        best = {way: float("inf") for way in ways}
        for _ in range(repeats):
            for way, run in ways.items():
                t0 = time.perf_counter()
                run()
                best[way] = min(best[way], time.perf_counter() - t0)
        calls[call] = {way: t / len(data) * 1e9 for way, t in best.items()}
    return calls


if __name__ == "__main__":
    for call, ns in interleaved().items():
        print(f"{call}: " + ", ".join(f"{w} {v:.0f} ns" for w, v in ns.items()) +
              f"; same / none {ns['same'] / ns['none']:.3f}, "
              f"new list / none {ns['literal'] / ns['none']:.3f}")
