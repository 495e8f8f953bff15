"""One example at a time on dict features: mbcore's ``predict_one`` + ``learn_one`` (and its
river classifier, ``mbcore.river``) against river's own ``linear_model.Perceptron``.  What each
one times is in bench/README.md, section "One-example streams and river".

Progressive validation, as river runs it: for each example, ``predict_one(x)`` then
``learn_one(x, y)``; one round is a whole stream on a fresh model (made in ``setup``, not
timed); the figure is microseconds per example.  Two streams:

* river's bundled phishing stream (``river.datasets.Phishing()``: 1,250 examples of 9
  features, bool labels), read into a list once;
* a9a rows as dicts (``mbcore.datasets.load_a9a()``, the first 10,000 rows): the non-zero
  features only, ``{"x<i>": 1.0}`` (11 to 14 of 123 per row), labels ``y == 1`` (bool).

The targets: mbcore (``mbcore.river.Perceptron(fit_intercept=True)``, the same rule as river's
Perceptron up to the tie: river updates on y·s <= 0, mbcore on a wrong prediction) >= 3x faster
than river's on phishing, >= 10x on a9a; the accuracies of both are printed (not asserted
beyond sanity: never timed assertions).  Also timed: the mbcore learner itself, without the
river wrapper, and the twin (mbref) on phishing.

Not part of the default test run; skipped without river.  From the repository root:

    python -m pytest bench/test_bench_river.py -p no:cacheprovider --benchmark-only
"""

import numpy as np
import pytest

import mbcore
import mbref

river = pytest.importorskip("river")
from river import datasets, linear_model  # noqa: E402

import mbcore.river as mriver  # noqa: E402

ROUNDS = 5
ACCURACY = {}


@pytest.fixture(scope="module")
def phishing():
    return list(datasets.Phishing())


@pytest.fixture(scope="module")
def a9a():
    X, y = mbcore.datasets.load_a9a()
    X, y = X[:10_000], y[:10_000]
    rows = []
    for i in range(X.shape[0]):
        nz = np.flatnonzero(X[i])
        rows.append(({f"x{j + 1}": 1.0 for j in nz}, bool(y[i] == 1)))
    return rows


def progressive(model, data):
    right = 0
    for x, y in data:
        right += model.predict_one(x) == y
        model.learn_one(x, y)
    return right


MODELS = {
    "river.linear_model.Perceptron": lambda: linear_model.Perceptron(),
    "mbcore.river.Perceptron": lambda: mriver.Perceptron(fit_intercept=True),
    "mbcore.Perceptron": lambda: mbcore.Perceptron(fit_intercept=True),
}


def _run(benchmark, data, make, name, stream):
    out = {}

    def go(model):
        out["right"] = progressive(model, data)

    benchmark.pedantic(go, setup=lambda: ((make(),), {}), rounds=ROUNDS, iterations=1)
    acc = out["right"] / len(data)
    ACCURACY[(stream, name)] = acc
    benchmark.extra_info["accuracy"] = acc
    benchmark.extra_info["us_per_example_min"] = benchmark.stats.stats.min / len(data) * 1e6
    assert 0.5 < acc <= 1.0


@pytest.mark.parametrize("name", list(MODELS) + ["mbref.Perceptron"])
def test_phishing(benchmark, phishing, name):
    make = MODELS.get(name) or (lambda: mbref.Perceptron(fit_intercept=True))
    _run(benchmark, phishing, make, name, "phishing")


@pytest.mark.parametrize("name", list(MODELS))
def test_a9a_dicts(benchmark, a9a, name):
    _run(benchmark, a9a, MODELS[name], name, "a9a")
