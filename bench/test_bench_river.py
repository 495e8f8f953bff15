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


def _interleaved(data, rounds):
    """Alternating rounds (river, the mbcore river classifier, the mbcore learner; a fresh
    model each), so that the ratios are measured side by side under the same load: per model
    the min over rounds (µs per example), and per mbcore model the median of per-round
    ratios."""
    import statistics
    import time
    times = {k: [] for k in MODELS}
    for _ in range(rounds):
        for k, make in MODELS.items():
            m = make()
            t0 = time.perf_counter()
            progressive(m, data)
            times[k].append((time.perf_counter() - t0) / len(data) * 1e6)
    river_t = times["river.linear_model.Perceptron"]
    out = {"us_min": {k: min(v) for k, v in times.items()}}
    for k in ("mbcore.river.Perceptron", "mbcore.Perceptron"):
        out[k] = {"ratio_of_mins": min(river_t) / min(times[k]),
                  "median_ratio": statistics.median(a / b for a, b in zip(river_t, times[k]))}
    return out


@pytest.mark.parametrize("stream, rounds", [("phishing", 40), ("a9a", 10)])
def test_interleaved_ratios(benchmark, phishing, a9a, stream, rounds):
    data = phishing if stream == "phishing" else a9a
    res = {}
    benchmark.pedantic(lambda: res.update(_interleaved(data, rounds)), rounds=1, iterations=1)
    benchmark.extra_info.update(res)
    print(f"\n{stream}: {res}")
    assert res["us_min"]["mbcore.river.Perceptron"] > 0


def test_a9a_protocol_floor(benchmark, a9a):
    """What reading each dict costs with no learning: iterating it in Python, one fill of a
    trained learner's name index, two fills (river's protocol reads each dict twice)."""
    import time
    m = mbcore.Perceptron(fit_intercept=True)
    m.learn_one(a9a[0][0], a9a[0][1], classes=[False, True])
    for x, y in a9a:
        m.learn_one(x, y)
    idx = m._one[0]

    def iterate():
        for x, _ in a9a:
            for _k, _v in x.items():
                pass

    def fill1():
        for x, _ in a9a:
            idx.fill(x, 1)

    def fill2():
        for x, _ in a9a:
            idx.fill(x, 1)
            idx.fill(x, 1)

    res = {}

    def go():
        for name, f in (("iterate", iterate), ("fill", fill1), ("fill_twice", fill2)):
            best = float("inf")
            for _ in range(10):
                t0 = time.perf_counter()
                f()
                best = min(best, time.perf_counter() - t0)
            res[name] = best / len(a9a) * 1e6

    benchmark.pedantic(go, rounds=1, iterations=1)
    benchmark.extra_info["us_per_example"] = res
    print(f"\na9a floor (µs per example): {res}")
    assert res["fill_twice"] > 0


# -- ALMA_2 against river's ALMAClassifier (issue 38's target: >= 5x on Phishing dicts) --------
# river's StandardScaler-free ALMAClassifier() and mbcore's with the same parameters (p = 2,
# alpha = 0.9, B = 1/alpha, C = sqrt(2)); the rules differ where the paper and river differ
# (mbcore normalises each row; see mbcore.ALMA), so the accuracies differ a little.

ALMA_MODELS = {
    "river.linear_model.ALMAClassifier": lambda: linear_model.ALMAClassifier(),
    "mbcore.river.ALMA": lambda: mriver.ALMA(),
    "mbcore.ALMA": lambda: mbcore.ALMA(),
}


@pytest.mark.parametrize("name", list(ALMA_MODELS))
def test_phishing_alma(benchmark, phishing, name):
    _run(benchmark, phishing, ALMA_MODELS[name], name, "phishing")


def test_phishing_alma_interleaved(benchmark, phishing):
    """Alternating rounds of the three ALMA models on Phishing (as _interleaved): per model the
    min over rounds (us per example) and the ratios to river's."""
    import statistics
    import time
    times = {k: [] for k in ALMA_MODELS}

    def go():
        for _ in range(40):
            for k, make in ALMA_MODELS.items():
                m = make()
                t0 = time.perf_counter()
                progressive(m, phishing)
                times[k].append((time.perf_counter() - t0) / len(phishing) * 1e6)

    benchmark.pedantic(go, rounds=1, iterations=1)
    river_t = times["river.linear_model.ALMAClassifier"]
    res = {"us_min": {k: min(v) for k, v in times.items()}}
    for k in ("mbcore.river.ALMA", "mbcore.ALMA"):
        res[k] = {"ratio_of_mins": min(river_t) / min(times[k]),
                  "median_ratio": statistics.median(a / b for a, b in zip(river_t, times[k]))}
    benchmark.extra_info.update(res)
    print(f"\nphishing ALMA: {res}")
    assert res["us_min"]["mbcore.river.ALMA"] > 0
