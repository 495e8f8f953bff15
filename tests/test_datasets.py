"""The bundled datasets: registry and provenance, shapes, dtypes, label counts and encodings
checked against the shared data README (and the UCI / MNIST originals), the bundled bytes against
the md5 sums recorded in their provenance, and a learner run on each."""

import gzip
import hashlib
import importlib.resources
import re

import numpy as np
import pytest

import mbcore
from mbcore import datasets
from mbcore.datasets import (DATASETS, describe, load_breast_cancer, load_mnist, load_monks,
                             load_mushrooms, load_spect, load_tictactoe)

KEYS = ("summary", "description", "citation", "source", "changes", "labels", "license", "file",
        "loader", "n_samples", "n_features")
NEW = ("spect", "breast-cancer", "mnist")


def _raw(name):
    path = importlib.resources.files("mbcore.datasets").joinpath("data").joinpath(name)
    with path.open("rb") as f:
        return gzip.decompress(f.read())


# -- registry and provenance --------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(DATASETS))
def test_registry_entry_is_complete_and_loadable(name):
    info = DATASETS[name]
    assert set(KEYS) <= set(info)
    assert all(isinstance(info[k], str) and info[k] for k in KEYS[:8])
    X, y = getattr(datasets, info["loader"])()       # the defaults, as `mbcore run` calls it
    assert X.shape[0] == y.shape[0] > 0
    if isinstance(info["n_samples"], int):
        assert X.shape[0] == info["n_samples"]
    assert X.shape[1] == info["n_features"]
    assert X.flags.c_contiguous and y.dtype == np.int64


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_describe_gives_provenance_and_citation(name):
    text = describe(name)
    info = DATASETS[name]
    for key in ("source", "changes", "labels", "license", "citation"):
        assert info[key] in text
    assert re.search(r"[\w.-]+/[\w.-]+@[0-9a-f]{7,40}", info["source"]), "repo@commit"
    assert "gzip -9n" in info["changes"]
    assert "/work" not in text and "/tmp" not in text          # no machine paths


def test_new_datasets_are_listed_by_the_command(capsys):
    from mbcore.cli import main
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in NEW:
        assert name in out
    assert main(["datasets", "mnist"]) == 0
    assert "LeCun" in capsys.readouterr().out


def test_describe_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown dataset"):
        describe("spect-heart")


@pytest.mark.parametrize("name, size, md5", [
    ("SPECT.train.gz", 3680, "a9a82817255e43a5b77ed29f80bfed7b"),
    ("SPECT.test.gz", 8602, "f249c04d637dbc917afa0481dfbc4a5c"),
    ("breast-cancer-wisconsin.data.gz", 19889, "52b89051b9bd37a91a54e8570b963719"),
    ("mnist-t10k-images-first1000.idx3-ubyte.gz", 784016, "bac4371a484d0b5651e81d99305acb5a"),
    ("mnist-t10k-labels-first1000.idx1-ubyte.gz", 1008, "556860b2f10365a8f7444c1e79c7e9af"),
])
def test_bundled_bytes_match_their_recorded_provenance(name, size, md5):
    data = _raw(name)
    assert len(data) == size and hashlib.md5(data).hexdigest() == md5
    entry = [k for k, v in DATASETS.items() if md5 in v["changes"]]
    assert len(entry) == 1, "the md5 is recorded in the registry"
    readme = importlib.resources.files("mbcore.datasets").joinpath("data/README.md").read_text(
        encoding="utf-8")
    assert md5 in readme


# -- SPECT --------------------------------------------------------------------------------------

@pytest.mark.parametrize("split, n, ones", [("train", 80, 40), ("test", 187, 172),
                                            ("all", 267, 212)])
def test_spect_counts(split, n, ones):
    X, y = load_spect(split)
    assert X.shape == (n, 22) and X.dtype == np.uint8 and X.flags.c_contiguous
    assert set(np.unique(X).tolist()) == {0, 1}
    assert y.dtype == np.int64 and int((y == 1).sum()) == ones and int((y == 0).sum()) == n - ones
    Xr, yr = load_spect(split, encoding="real")
    assert Xr.dtype == np.float64 and np.array_equal(Xr, X) and np.array_equal(yr, y)


def test_spect_all_is_train_then_test():
    Xa, ya = load_spect("all")
    Xt, yt = load_spect("train")
    Xs, ys = load_spect("test")
    assert np.array_equal(Xa, np.vstack([Xt, Xs])) and np.array_equal(ya, np.r_[yt, ys])


def test_spect_first_row_as_in_the_file():
    # SPECT.train line 1: 1,0,0,0,1,0,0,0,1,1,0,0,0,1,1,0,0,0,0,0,0,0,0
    X, y = load_spect()
    assert int(y[0]) == 1
    assert X[0].tolist() == [0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]


# -- breast cancer ------------------------------------------------------------------------------

def test_breast_cancer_counts():
    X, y = load_breast_cancer()
    assert X.shape == (683, 9) and X.dtype == np.float64 and X.flags.c_contiguous
    assert int((y == 0).sum()) == 444 and int((y == 1).sum()) == 239
    assert np.array_equal(X, np.round(X)) and X.min() == 1 and X.max() == 10
    # first row of the UCI file: 1000025,5,1,1,1,2,1,3,1,1,2 (benign)
    assert X[0].tolist() == [5, 1, 1, 1, 2, 1, 3, 1, 1] and int(y[0]) == 0


def test_breast_cancer_missing_kept():
    X, y = load_breast_cancer(missing="keep")
    assert X.shape == (699, 9)
    assert int((y == 0).sum()) == 458 and int((y == 1).sum()) == 241
    missing = np.isnan(X)
    assert int(missing.any(axis=1).sum()) == 16 and missing[:, :5].sum() == 0 and \
        missing[:, 6:].sum() == 0                      # only bare nuclei (column 6) is missing
    assert np.array_equal(X[~missing.any(axis=1)], load_breast_cancer()[0])


def test_breast_cancer_thermometer_code():
    X, y = load_breast_cancer()
    B, yb = load_breast_cancer(encoding="boolean")
    assert B.shape == (683, 81) and B.dtype == np.uint8 and np.array_equal(y, yb)
    T = B.reshape(683, 9, 9)                           # [row, feature j, threshold v - 2]
    assert np.array_equal(T, (X[:, :, None] >= np.arange(2, 11)).astype(np.uint8))
    assert (np.diff(T.astype(int), axis=2) <= 0).all()  # x >= v+1 implies x >= v
    assert np.array_equal(B.sum(axis=1), (X - 1).sum(axis=1))


@pytest.mark.parametrize("kwargs", [dict(encoding="onehot"), dict(missing="mean"),
                                    dict(encoding="boolean", missing="keep")])
def test_breast_cancer_bad_parameters(kwargs):
    with pytest.raises(ValueError, match="load_breast_cancer"):
        load_breast_cancer(**kwargs)


# -- MNIST --------------------------------------------------------------------------------------

COUNTS = [85, 126, 116, 107, 110, 87, 87, 99, 89, 94]


def test_mnist_slice():
    X, y = load_mnist()
    assert X.shape == (1000, 784) and X.dtype == np.float64 and X.flags.c_contiguous
    assert X.min() == 0.0 and X.max() == 1.0
    assert np.bincount(y).tolist() == COUNTS and y.dtype == np.int64
    pixels = np.rint(X * 255)
    assert np.array_equal(pixels / 255.0, X)
    B, yb = load_mnist(encoding="boolean")
    assert B.dtype == np.uint8 and np.array_equal(B, (pixels >= 128).astype(np.uint8))
    assert np.array_equal(y, yb)
    assert y[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]   # the known t10k labels


@pytest.mark.parametrize("digit", range(10))
def test_mnist_one_vs_rest(digit):
    X, y = load_mnist(n=300, digit=digit)
    full = load_mnist()[1][:300]
    assert X.shape == (300, 784) and np.array_equal(y, (full == digit).astype(np.int64))


@pytest.mark.parametrize("kwargs", [dict(n=0), dict(n=1001), dict(n=True), dict(n=2.0),
                                    dict(digit=10), dict(digit=-1), dict(digit=True),
                                    dict(digit="3"), dict(encoding="bits")])
def test_mnist_bad_parameters(kwargs):
    with pytest.raises(ValueError, match="load_mnist: parameter"):
        load_mnist(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(split="valid"), dict(encoding="onehot"),
                                    dict(split=1)])
def test_spect_bad_parameters(kwargs):
    with pytest.raises(ValueError, match="load_spect: parameter"):
        load_spect(**kwargs)


# -- a learner on each --------------------------------------------------------------------------

def _binary_views():
    """(name, X, y) for every bundled dataset, in the encodings the learners need."""
    yield "mushrooms/boolean", *load_mushrooms(encoding="boolean")
    yield "tic-tac-toe/boolean", *load_tictactoe(encoding="boolean")
    yield "monks-1/boolean", *load_monks(1, encoding="boolean")
    yield "spect/boolean", *load_spect("all")
    yield "breast-cancer/boolean", *load_breast_cancer(encoding="boolean")
    yield "mnist-3/boolean", *load_mnist(digit=3, encoding="boolean")


@pytest.mark.parametrize("name, X, y", list(_binary_views()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_learners_run_on_each_dataset(name, X, y):
    n = X.shape[0]
    for learner, Xs in ((mbcore.Winnow(), X), (mbcore.Perceptron(), X.astype(np.float64))):
        run = mbcore.run_online(learner, Xs, y)
        assert run.n == n and 0 <= run.mistakes <= n and run.updates >= run.mistakes
        assert np.isfinite(learner.decision_function(Xs[:5])).all()


def test_perceptron_on_real_encodings():
    for X, y in (load_breast_cancer(), load_mnist(digit=7), load_spect(encoding="real")):
        run = mbcore.run_online(mbcore.Perceptron(), X, y)
        assert 0 < run.mistakes < X.shape[0]


def test_mnist_digit_zero_is_separable_on_the_slice():
    """Separable on the slice (checked for every digit when the slice was made), so the
    Perceptron converges: a clean pass, every training point right."""
    for encoding in ("real", "boolean"):
        X, y = load_mnist(digit=0, encoding=encoding)
        clf = mbcore.Perceptron(max_epochs=200).fit(X, y)
        assert clf.converged_ and (clf.predict(X) == y).all()


def test_mushrooms_still_loads_as_before():
    X, y = load_mushrooms()
    assert X.shape == (8124, 112) and int((y == 1).sum()) == 4208
