"""Benchmarks of one example at a time on a fitted learner: what a service pays per request.

A Perceptron fitted on 2,000 rows of the dense data of conftest.py (``make_dense``: 100
features, float64), then, per timed call, one dense C-ordered row of shape (1, 100):
``predict``, ``decision_function`` and ``partial_fit`` (with its label), the path a user takes by
default (no option).  The same for ``PassiveAggressive`` and, for comparison, scikit-learn's
``Perceptron`` (``predict`` and ``partial_fit`` of one row).  Reported by the ratio table
(bench/report.py, keys ``one_row.*``): predict / partial_fit (target <= 1.5), predict's time
(target <= 3 us), scikit-learn / mbcore.  Each call is about a microsecond: the rounds are
batched (``iterations``), pytest-benchmark's per-round time divided by them.

Not part of the default test run.  From the repository root (about 20 seconds):

    python -m pytest bench/test_bench_one_row.py -p no:cacheprovider --benchmark-only
"""

import warnings

import numpy as np
import pytest

import mbcore

sklearn_lm = pytest.importorskip("sklearn.linear_model")

ITER, ROUNDS = 2000, 30


@pytest.fixture(scope="module")
def rows(dense):
    X, y = dense.X, dense.y
    return X[:2000], y[:2000], np.ascontiguousarray(X[2000:2001]), y[2000:2001].copy()


def _run(benchmark, f):
    benchmark.pedantic(f, rounds=ROUNDS, iterations=ITER, warmup_rounds=2)


@pytest.mark.parametrize("name", ["Perceptron", "PassiveAggressive"])
@pytest.mark.parametrize("method", ["predict", "decision_function", "partial_fit"])
def test_one_row(benchmark, record, rows, name, method):
    X, y, x, y1 = rows
    clf = getattr(mbcore, name)().fit(X, y)
    if method == "partial_fit":
        def call():
            clf.partial_fit(x, y1)
    else:
        fn = getattr(clf, method)

        def call():
            fn(x)
    record(f"one_row.{name}.{method}", 1)
    _run(benchmark, call)


@pytest.mark.parametrize("method", ["predict", "partial_fit"])
def test_one_row_sklearn(benchmark, record, rows, method):
    X, y, x, y1 = rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = sklearn_lm.Perceptron(max_iter=5, tol=None).fit(X, y)
    if method == "partial_fit":
        def call():
            clf.partial_fit(x, y1)
    else:
        def call():
            clf.predict(x)
    record(f"one_row.sklearn.{method}", 1)
    _run(benchmark, call)
