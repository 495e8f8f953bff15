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
from mbcore.datasets import (DATASETS, describe, load_a9a, load_breast_cancer, load_mnist,
                             load_monks, load_mushrooms, load_spect, load_tictactoe)

# (the subset every built wheel is tested with: pytest -m smoke)
pytestmark = pytest.mark.smoke

KEYS = ("summary", "description", "citation", "source", "changes", "labels", "license", "file",
        "loader", "n_samples", "n_features")
NEW = ("spect", "breast-cancer", "mnist", "a9a")


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
    ("a9a.gz", 2329875, "fb3596510d780aaf76a06dc721d49662"),
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


# -- a9a (UCI Adult, LIBSVM encoding) ----------------------------------------------------------

def _a9a_rows():
    """(labels, sets of 1-based indices) read from the bundled file with plain Python."""
    labels, rows = [], []
    for line in _raw("a9a.gz").decode("ascii").splitlines():
        if line.strip():
            label, *pairs = line.split()
            labels.append(int(label))
            rows.append({int(pair.split(":")[0]) for pair in pairs})
            assert all(pair.split(":")[1] == "1" for pair in pairs)
    return labels, rows


def test_a9a_counts():
    X, y = load_a9a()
    assert X.shape == (32561, 123) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.dtype == np.int64 and y.shape == (32561,)
    assert int((y == -1).sum()) == 24720 and int((y == 1).sum()) == 7841   # LIBSVM / UCI Adult
    assert set(np.unique(X).tolist()) == {0.0, 1.0}
    assert X[:, 0].any() and X[:, 122].any()            # indices 1 and 123 both occur
    # UCI Adult: 30162 of the 32561 training rows have no missing value (14 active indicators)
    assert np.bincount(X.sum(axis=1).astype(int)).tolist()[11:] == [27, 1809, 563, 30162]


def test_a9a_matches_the_file():
    labels, rows = _a9a_rows()
    X, y = load_a9a()
    assert y.tolist() == labels
    expected = np.zeros((len(rows), 123))
    for i, row in enumerate(rows):
        expected[i, [j - 1 for j in row]] = 1.0
    assert np.array_equal(X, expected)
    # line 1: -1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1
    assert int(y[0]) == -1
    assert (np.flatnonzero(X[0]) + 1).tolist() == [3, 11, 14, 19, 39, 42, 55, 64, 67, 73, 75,
                                                   76, 80, 83]


def test_a9a_is_not_separable():
    """7614 rows repeat an earlier feature vector; 1785 of them carry another label than that
    vector's first occurrence (as recorded in the provenance)."""
    X, y = load_a9a(encoding="boolean")
    first, repeats, conflicts = {}, 0, 0
    for row, label in zip(X, y.tolist()):
        key = row.tobytes()
        if key in first:
            repeats += 1
            conflicts += first[key] != label
        else:
            first[key] = label
    assert (repeats, conflicts) == (7614, 1785)
    assert "7614" in DATASETS["a9a"]["description"] and "1785" in DATASETS["a9a"]["description"]
    clf = mbcore.Perceptron(max_epochs=3).fit(X.astype(np.float64), y)
    assert not clf.converged_


def test_a9a_boolean_encoding():
    X, y = load_a9a()
    B, yb = load_a9a(encoding="boolean")
    assert B.shape == (32561, 123) and B.dtype == np.uint8 and B.flags.c_contiguous
    assert np.array_equal(B, X) and np.array_equal(yb, y)
    assert set(np.unique(B).tolist()) == {0, 1}


def test_a9a_as_frame():
    pd = pytest.importorskip("pandas")
    F, s = load_a9a(encoding="boolean", as_frame=True)
    X, y = load_a9a(encoding="boolean")
    assert isinstance(F, pd.DataFrame) and isinstance(s, pd.Series) and s.name == "label"
    assert list(F.columns) == [f"x{j}" for j in range(1, 124)]
    assert np.array_equal(F.to_numpy(), X) and np.array_equal(s.to_numpy(), y)


@pytest.mark.parametrize("loader", [load_a9a, load_mushrooms])
def test_as_frame_without_pandas_names_the_loader(loader, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)     # import pandas fails
    with pytest.raises(ImportError, match=rf"^{loader.__name__}\(as_frame=True\) needs pandas"):
        loader(as_frame=True)


@pytest.mark.parametrize("kwargs", [dict(encoding="bool"), dict(encoding="categorical"),
                                    dict(encoding=None), dict(as_frame=1), dict(as_frame="yes")])
def test_a9a_bad_parameters(kwargs):
    with pytest.raises(ValueError, match="load_a9a: parameter"):
        load_a9a(**kwargs)


def test_a9a_describe():
    text = describe("a9a")
    assert text.startswith("a9a: UCI Adult")
    assert "32561 rows x 123 features (loader: mbcore.datasets.load_a9a)" in text
    for fact in ("ankitagarwal/magic@6880669c239c4eeec251f34ab18f092bcb39bce2",
                 "fb3596510d780aaf76a06dc721d49662", "Platt", "Kohavi", "LIBSVM",
                 "income >50K (7841 rows)", "None stated"):
        assert fact in text


# -- a learner on each --------------------------------------------------------------------------

def _binary_views():
    """(name, X, y) for every bundled dataset, in the encodings the learners need."""
    yield "mushrooms/boolean", *load_mushrooms(encoding="boolean")
    yield "a9a/boolean", *load_a9a(encoding="boolean")
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
