"""Per-class mistakes in the online record (issue 40): ``OnlineRun`` keeps the true class of
each example and counts, for each class, its examples and the mistakes made on them, so that a
stream where 2 % of the examples are positive cannot hide that every positive was a mistake.

The expected counts are worked by hand or computed here with NumPy from the labels and the
predictions (never read from the record under test); the twin (``mbref``) computes the same,
chunked runs add up, and the streaming paths (``run_stream``, ``evaluate_file``,
``train_file``, ``evaluate_asking``, ``certify``'s passes) count what one in-memory run counts.
"""

import math

import numpy as np
import pytest

import mbcore
import mbref
from conftest import chunk_bounds, integer_stream
from mbcore.streaming import evaluate_file, run_stream, train_file
from mbcore.workflow import evaluate_asking


def by_hand(y, pred, classes):
    """(examples, mistakes) of each class, from the labels and the predictions (NumPy)."""
    y, pred = np.asarray(y), np.asarray(pred)
    counts = [int(np.sum(y == c)) for c in classes]
    mistakes = [int(np.sum((y == c) & (pred != y))) for c in classes]
    return counts, mistakes


def same_floats(a, b):
    """Equal lists of floats, NaN equal to NaN (bit for bit otherwise)."""
    return len(a) == len(b) and all((x != x and y != y) or x == y for x, y in zip(a, b))


def per_class_of(run):
    """Every per-class attribute of a record (mbcore's or the twin's) as plain Python values."""
    def plain(v):
        return None if v is None else (v.tolist() if hasattr(v, "tolist") else list(v))
    return {"classes": plain(run.classes), "true_codes": plain(run.true_codes),
            "class_counts": plain(run.class_counts), "class_mistakes": plain(run.class_mistakes),
            "class_error_rates": plain(run.class_error_rates),
            "balanced_error_rate": run.balanced_error_rate,
            "false_positive_rate": run.false_positive_rate,
            "false_negative_rate": run.false_negative_rate}


def assert_same_per_class(a, b):
    pa, pb = per_class_of(a), per_class_of(b)
    for key in ("classes", "true_codes", "class_counts", "class_mistakes"):
        assert pa[key] == pb[key], key
    assert same_floats(pa["class_error_rates"], pb["class_error_rates"])
    for key in ("balanced_error_rate", "false_positive_rate", "false_negative_rate"):
        assert same_floats([pa[key]], [pb[key]]), key


# -- the stream the issue names ---------------------------------------------------------------

def _two_percent_positive(n=500, seed=3):
    """n rows of zeros (the Perceptron scores 0, predicts the negative class on the tie and
    never moves: its update y x is 0), 2 % of them positive, in random order."""
    y = np.full(n, -1)
    y[np.random.default_rng(seed).choice(n, n // 50, replace=False)] = 1
    return np.zeros((n, 3)), y


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_two_percent_positives_every_one_a_mistake(module):
    X, y = _two_percent_positive()
    run = module.run_online(module.Perceptron(), X, y, classes=[-1, 1])
    assert run.mistakes == 10 and run.mistakes / run.n == 0.02          # 2 % overall ...
    assert list(run.class_counts) == [490, 10]
    assert list(run.class_mistakes) == [0, 10]
    assert run.false_negative_rate == 1.0                              # ... every positive
    assert run.false_positive_rate == 0.0
    assert list(run.class_error_rates) == [0.0, 1.0]
    assert run.balanced_error_rate == 0.5


# -- counts worked by hand --------------------------------------------------------------------

# The Perceptron (w = 0, no intercept, a score of 0 predicts the negative class):
#   x=( 1,0) y=+1: score 0 -> -1, mistake, w=(1,0)
#   x=( 0,1) y=-1: score 0 -> -1
#   x=(-1,0) y=-1: score -1 -> -1
#   x=( 0,1) y=+1: score 0 -> -1, mistake, w=(1,1)
#   x=( 1,1) y=-1: score 2 -> +1, mistake, w=(0,0)
#   x=( 2,0) y=+1: score 0 -> -1, mistake, w=(2,0)
# class -1: 3 examples, 1 mistake; class +1: 3 examples, 3 mistakes.
HAND_X = np.array([[1, 0], [0, 1], [-1, 0], [0, 1], [1, 1], [2, 0]], dtype=float)
HAND_Y = np.array([1, -1, -1, 1, -1, 1])


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_counts_by_hand_on_a_small_stream(module):
    run = module.run_online(module.Perceptron(), HAND_X, HAND_Y)
    assert list(run.predictions) == [-1, -1, -1, -1, 1, -1]
    assert list(run.classes) == [-1, 1]
    assert list(run.true_codes) == [1, 0, 0, 1, 0, 1]
    assert list(run.class_counts) == [3, 3] and list(run.class_mistakes) == [1, 3]
    assert list(run.class_error_rates) == [1 / 3, 1.0]
    assert run.false_positive_rate == 1 / 3 and run.false_negative_rate == 1.0
    assert run.balanced_error_rate == (1 / 3 + 1.0) / 2


def test_labels_that_are_not_numbers_keep_their_order():
    y = np.where(HAND_Y > 0, "yes", "no")
    run = mbcore.run_online(mbcore.Perceptron(), HAND_X, y)
    assert run.classes.tolist() == ["no", "yes"]
    assert run.per_class() == [
        {"class": "no", "examples": 3, "mistakes": 1, "error_rate": 1 / 3},
        {"class": "yes", "examples": 3, "mistakes": 3, "error_rate": 1.0}]


def test_a_class_without_examples_has_no_rate_and_is_left_out_of_the_balanced_rate():
    run = mbcore.run_online(mbcore.Perceptron(), HAND_X[:3], np.array([-1, -1, -1]),
                            classes=[-1, 1])
    assert run.class_counts.tolist() == [3, 0] and run.class_mistakes.tolist() == [0, 0]
    rates = run.class_error_rates
    assert rates[0] == 0.0 and math.isnan(rates[1])
    assert run.balanced_error_rate == 0.0
    assert run.per_class()[1] == {"class": 1, "examples": 0, "mistakes": 0, "error_rate": None}
    twin = mbref.run_online(mbref.Perceptron(), HAND_X[:3], [-1, -1, -1], classes=[-1, 1])
    assert_same_per_class(run, twin)
    assert twin.per_class() == run.per_class()


def test_a_record_without_the_true_classes_says_none():
    run = mbcore.OnlineRun(np.array([1, -1]), np.array([True, False]), np.array([True, False]))
    assert run.classes is None and run.true_codes is None and run.class_counts is None
    assert run.class_error_rates is None and run.balanced_error_rate is None
    assert run.false_positive_rate is None and run.false_negative_rate is None
    assert run.per_class() is None
    empty = mbcore.OnlineRun(np.empty(0), np.empty(0, dtype=bool), np.empty(0, dtype=bool),
                             np.empty(0, dtype=np.uint8), np.array([-1, 1]))
    assert empty.class_counts.tolist() == [0, 0] and math.isnan(empty.balanced_error_rate)
    with pytest.raises(ValueError, match="true_codes has 1 entries for 2 examples"):
        mbcore.OnlineRun(np.array([1, -1]), np.array([True, False]), np.array([True, False]),
                         np.array([0], dtype=np.uint8), np.array([-1, 1]))


def test_scikit_learn_reads_the_same_rates():
    metrics = pytest.importorskip("sklearn.metrics")
    X, y = integer_stream(11, 400, 6, noise=0.2)
    run = mbcore.run_online(mbcore.Perceptron(), X, y)
    assert run.false_negative_rate == pytest.approx(
        1 - metrics.recall_score(y, run.predictions, pos_label=1), abs=1e-15)
    assert run.balanced_error_rate == pytest.approx(
        1 - metrics.balanced_accuracy_score(y, run.predictions), abs=1e-15)
    cm = metrics.confusion_matrix(y, run.predictions, labels=[-1, 1])
    assert run.class_counts.tolist() == cm.sum(axis=1).tolist()
    assert run.class_mistakes.tolist() == (cm.sum(axis=1) - np.diag(cm)).tolist()


# -- K classes ----------------------------------------------------------------------------------

def _three_classes(n=300, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, 5)).astype(float)
    y = np.argmax(X[:, :3] + rng.normal(scale=1.0, size=(n, 3)), axis=1) * 10 + 7  # 7, 17, 27
    return X, y


@pytest.mark.parametrize("name", ["Perceptron", "MarginPerceptron", "Winnow"])
def test_k_classes_counts_from_labels_and_predictions(name):
    X, y = _three_classes()
    if name == "Winnow":
        X = (X > 0).astype(float)
    run = mbcore.run_online(getattr(mbcore, name)(), X, y)
    classes = [7, 17, 27]
    assert run.classes.tolist() == classes
    assert run.classes[run.true_codes].tolist() == y.tolist()
    counts, mistakes = by_hand(y, run.predictions, classes)
    assert run.class_counts.tolist() == counts and run.class_mistakes.tolist() == mistakes
    assert sum(mistakes) == run.mistakes > 0
    rates = [m / c for m, c in zip(mistakes, counts)]
    assert run.class_error_rates.tolist() == rates
    assert run.balanced_error_rate == math.fsum(rates) / 3
    assert run.false_positive_rate is None and run.false_negative_rate is None


def test_mnist_ten_classes():
    X, y = mbcore.datasets.load_mnist()
    run = mbcore.run_online(mbcore.Perceptron(), X[:2000], y[:2000])
    counts, mistakes = by_hand(y[:2000], run.predictions, list(range(10)))
    assert run.class_counts.tolist() == counts and run.class_mistakes.tolist() == mistakes
    assert len(run.per_class()) == 10


# -- the twin ---------------------------------------------------------------------------------

def _experts(n=200, k=2, seed=8):
    rng = np.random.default_rng(seed)
    P = rng.integers(0, k, size=(n, 7))
    good = rng.random(n) < 0.8
    y = np.where(good, P[:, 2], (P[:, 2] + 1) % k)
    return P, y


PARITY = [
    ("Perceptron", {}, lambda: integer_stream(5, 160, 5, noise=0.1)),
    ("Perceptron", {"tie": "positive", "fit_intercept": True},
     lambda: integer_stream(6, 160, 5, noise=0.1)),
    ("Perceptron", {}, _three_classes),
    ("Winnow", {}, lambda: ((_three_classes()[0] > 0).astype(float), _three_classes()[1])),
    ("WeightedMajority", {"beta": 0.5}, _experts),
    ("WeightedMajority", {"beta": 0.5}, lambda: _experts(k=3)),
]


@pytest.mark.parametrize("name,params,stream", PARITY,
                         ids=["Perceptron", "Perceptron(tie,intercept)", "Perceptron(K=3)",
                              "Winnow(K=3)", "WeightedMajority", "WeightedMajority(K=3)"])
@pytest.mark.parametrize("chunking", ["whole", 37, "random"])
def test_twin_counts_the_same_per_class(name, params, stream, chunking):
    X, y = stream()
    a, b = getattr(mbcore, name)(**params), getattr(mbref, name)(**params)
    classes = np.unique(y).tolist()
    for k, (lo, hi) in enumerate(chunk_bounds(len(y), chunking, seed=2)):
        cl = classes if k == 0 else None
        ra = mbcore.run_online(a, X[lo:hi], y[lo:hi], classes=cl)
        rb = mbref.run_online(b, X[lo:hi], y[lo:hi], classes=cl)
        assert [p.item() for p in ra.predictions] == list(rb.predictions)
        assert_same_per_class(ra, rb)
        assert ra.per_class() == rb.per_class()


# -- runs that add up ---------------------------------------------------------------------------

@pytest.mark.parametrize("stream", [lambda: integer_stream(9, 300, 6, noise=0.2),
                                    _three_classes], ids=["two", "three"])
def test_the_counts_of_two_runs_add_up_to_one_run(stream):
    X, y = stream()
    whole = mbcore.run_online(mbcore.Perceptron(), X, y)
    learner = mbcore.Perceptron()
    first = mbcore.run_online(learner, X[:111], y[:111])
    second = mbcore.run_online(learner, X[111:], y[111:])
    assert (first.class_counts + second.class_counts).tolist() == whole.class_counts.tolist()
    assert (first.class_mistakes + second.class_mistakes).tolist() == \
        whole.class_mistakes.tolist()
    joined = mbcore.OnlineRun.concatenate([first, second])
    assert_same_per_class(joined, whole)
    assert joined.mistake_curve.tolist() == whole.mistake_curve.tolist()


def test_concatenate_without_the_true_classes_keeps_none():
    X, y = integer_stream(9, 100, 6)
    run = mbcore.run_online(mbcore.Perceptron(), X, y)
    bare = mbcore.OnlineRun(run.predictions, run.errors, run.updated)
    joined = mbcore.OnlineRun.concatenate([run, bare])
    assert joined.n == 200 and joined.class_counts is None


def test_certify_passes_count_every_pass():
    X, y = integer_stream(4, 120, 5, noise=0.15)
    cert = mbcore.certify(mbcore.Perceptron(), X, y, passes=2)
    learner = mbcore.Perceptron()
    runs = [mbcore.run_online(learner, X, y), mbcore.run_online(learner, X, y)]
    pred = np.concatenate([r.predictions for r in runs])
    counts, mistakes = by_hand(np.r_[y, y], pred, [-1, 1])
    assert cert.run.class_counts.tolist() == counts
    assert cert.run.class_mistakes.tolist() == mistakes


# -- streams and files --------------------------------------------------------------------------

def _write_svmlight(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            feats = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v != 0)
            f.write(f"{label} {feats}".rstrip() + "\n")


@pytest.mark.parametrize("stream", [lambda: integer_stream(12, 700, 6, noise=0.2),
                                    _three_classes], ids=["two", "three"])
def test_files_and_streams_count_what_the_run_in_memory_counts(tmp_path, stream):
    X, y = stream()
    path = tmp_path / "data.svm"
    _write_svmlight(path, X, y)
    ref = mbcore.run_online(mbcore.Perceptron(), X, y)
    counts, mistakes = by_hand(y, ref.predictions, ref.classes)
    report = evaluate_file(mbcore.Perceptron(), str(path), chunk_size=64)
    stats = report.stats
    assert stats.classes.tolist() == ref.classes.tolist()
    assert stats.class_counts.tolist() == counts and stats.class_mistakes.tolist() == mistakes
    assert stats.balanced_error_rate == ref.balanced_error_rate
    chunks = ((X[a:a + 50], y[a:a + 50]) for a in range(0, len(y), 50))
    streamed = run_stream(mbcore.Perceptron(), chunks)
    assert streamed.class_counts.tolist() == counts
    assert streamed.class_mistakes.tolist() == mistakes
    # two passes: the second counted too, as one run over the rows twice
    twice = train_file(mbcore.Perceptron(), str(path), passes=2, chunk_size=64)
    learner = mbcore.Perceptron()
    runs = [mbcore.run_online(learner, X, y), mbcore.run_online(learner, X, y)]
    c2, m2 = by_hand(np.r_[y, y], np.concatenate([r.predictions for r in runs]), ref.classes)
    assert twice.class_counts.tolist() == c2 and twice.class_mistakes.tolist() == m2


def test_evaluate_asking_counts_every_row_per_class(tmp_path):
    X, y = integer_stream(13, 600, 6, noise=0.2)
    path = tmp_path / "data.svm"
    _write_svmlight(path, X, y)
    lines = evaluate_asking(mbcore.SelectiveSampler(mbcore.Perceptron(), b=2.0, random_state=4),
                            str(path), chunk_size=100, n_features=6)
    ref = mbcore.SelectiveSampler(mbcore.Perceptron(), b=2.0, random_state=4).run_online(X, y)
    counts, mistakes = by_hand(y, ref.predictions, [-1, 1])
    assert lines[-1] == (600, ref.labels_asked, ref.mistakes)
    assert lines.class_counts.tolist() == counts and lines.class_mistakes.tolist() == mistakes
    assert lines.false_negative_rate == mistakes[1] / counts[1]


# -- the plot -----------------------------------------------------------------------------------

def test_plot_by_class_draws_one_curve_per_class():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mbcore.online import CURVE_GID
    X, y = _two_percent_positive()
    run = mbcore.run_online(mbcore.Perceptron(), X, y, classes=[-1, 1])
    fig, ax = plt.subplots()
    run.plot(ax=ax, by_class=True, label="Perceptron", bound=20)
    curves = [ln for ln in ax.lines if ln.get_gid() == CURVE_GID]
    assert len(curves) == 2
    assert list(curves[0].get_ydata()) == [0] * 500                    # no negative missed
    assert list(curves[1].get_ydata()) == np.cumsum(y == 1).tolist()   # every positive
    assert curves[0].get_color() != curves[1].get_color()
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[:2] == ["Perceptron: class -1 (490 examples)",
                         "Perceptron: class 1 (10 examples)"]
    assert ax.get_ylabel() == "cumulative mistakes on each class"
    plt.close(fig)
    bare = mbcore.OnlineRun(run.predictions, run.errors, run.updated)
    with pytest.raises(ValueError, match="by_class=True needs the true class of each example"):
        bare.plot(by_class=True)


# -- every learner of the registry ------------------------------------------------------------

def _registry_cases():
    from _cases import learners, unit_params
    return [pytest.param(cls, unit_params(cls)[0], id=name) for name, cls in learners()]


@pytest.mark.parametrize("cls,params", _registry_cases())
def test_every_learner_records_the_true_classes_and_its_twin_the_same(cls, params):
    from _learner_data import data
    X, y, kw = data(cls)
    classes = [0, 1] if y.min() >= 0 else [-1, 1]
    run = mbcore.run_online(cls(**params), X, y, classes=classes, **kw)
    assert np.asarray(run.classes)[np.asarray(run.true_codes)].tolist() == y.tolist()
    counts, mistakes = by_hand(y, run.predictions, classes)
    assert run.class_counts.tolist() == counts and run.class_mistakes.tolist() == mistakes
    twin_cls = getattr(mbref, cls.__name__, None)
    plain = all(isinstance(v, (int, float, str, bool, type(None))) for v in params.values())
    if twin_cls is None or not plain:     # (a ConceptClass of mbcore's: test_version_space's)
        return
    twin = mbref.run_online(twin_cls(**params), X, y, classes=classes, **kw)
    assert_same_per_class(run, twin)
