"""Streams of unknown width (issue 25): svmlight read without its width and without a first
pass, for files and pipes alike, and learners whose state grows as the features arrive.

* the reader (``iter_svmlight(grow=True)``): every chunk as wide as the largest column read so
  far, rows equal to the twin's (``mbref.formats.read_svmlight``), one-based unless told
  ``zero_based=True`` (an index 0 then names its line), a cap (``max_features``) that refuses a
  huge index before anything is allocated for it;
* the learners: a model trained width-free equals, bit for bit (weights, accumulators, norms,
  counts), the model trained with the width given from the start and the model of one
  ``partial_fit`` over the rows in memory; the learners that need n up front say so, naming
  themselves and the option; a chunk that fails leaves the learner as it was;
* the command: ``cat file | mbcore train --data -`` without ``--n-features``;
* the order: ``--shuffle --seed`` reproducible, other seeds other orders; the warning when the
  labels arrive sorted (``LabelRuns``), on spambase-like data.
"""

import io
import json
import shutil
import subprocess
import sysconfig
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import mbcore
from mbcore.datasets import load_svmlight
from mbcore.streaming import (LabelRuns, CSRChunk, evaluate_file, iter_svmlight, predict_file,
                              run_stream, shuffle_chunks, train_file)
from mbref.formats import read_svmlight, read_svmlight_growing

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")


def cli_cmd():
    return [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]


def cli(*args, stdin=None):
    return subprocess.run(cli_cmd() + [str(a) for a in args], capture_output=True, timeout=300,
                          input=stdin)


def late_features(path, n=600, d=50, seed=0, labels=(-1, 1), binary=False):
    """A linear problem whose features arrive late: row i uses only the indices below
    10 + i * d / n (one-based), so the width grows through the whole file.  Returns the
    largest index written."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    high = 0
    with open(path, "w") as f:
        for i in range(n):
            top = min(d, 10 + i * d // n)
            cols = np.sort(rng.choice(top, size=int(rng.integers(0, 6)), replace=False))
            vals = [1] * cols.shape[0] if binary else \
                rng.normal(size=cols.shape[0]).round(3).tolist()
            s = float(u[cols] @ np.array(vals, dtype=float)) + 0.1 * rng.normal()
            if len(labels) == 2:
                lab = labels[1] if s > 0 else labels[0]
            else:
                lab = labels[int(abs(s) * 7) % len(labels)]
            f.write(f"{lab} " + " ".join(f"{c + 1}:{v!r}" for c, v in zip(cols, vals)) + "\n")
            if cols.shape[0]:
                high = max(high, int(cols[-1]) + 1)
    return high


GROWING = [
    (mbcore.Perceptron, {}),
    (mbcore.Perceptron, {"fit_intercept": False, "normalize": True}),
    (mbcore.AveragedPerceptron, {}),
    (mbcore.AveragedPerceptron, {"mode": "vote"}),
    (mbcore.MarginPerceptron, {}),
    (mbcore.OnlineHingeSVM, {}),
    (mbcore.PassiveAggressive, {}),
]


def _state(learner, lists=True):
    """The learner's persistent state, arrays as bytes (bit for bit: -0.0 and NaN payloads
    included); ``lists=False`` leaves out the lists of arrays (the voted Perceptron's vote
    vectors, kept one array per call: a chunked run and one call differ in how they cut it)."""
    out = {"n_features_in_": learner.n_features_in_, "counts": learner._counts.tolist()}
    for name in learner._STATE:
        v = getattr(learner, name, None)
        if isinstance(v, np.ndarray):
            out[name] = v.tobytes()
        elif isinstance(v, list):
            if lists:
                out[name] = [a.tobytes() for a in v]
        elif not isinstance(v, (type(None),)) and name != "classes_":
            out[name] = v
    return out


@pytest.mark.parametrize("cls, params", GROWING,
                         ids=[f"{c.__name__}-{'-'.join(map(str, p.values())) or 'default'}"
                              for c, p in GROWING])
@pytest.mark.parametrize("labels", [(-1, 1), (1, 2, 3)], ids=["binary", "3-class"])
def test_width_free_equals_width_given_bit_for_bit(tmp_path, cls, params, labels):
    if labels == (1, 2, 3) and params.get("mode") == "vote":
        pytest.skip("the voted Perceptron takes two classes")
    path = str(tmp_path / "late.svm")
    d = late_features(path, labels=labels)
    X, y = load_svmlight(path, n_features=d, zero_based=False)

    # the rows in memory, width known, as CSR (a dense row's norm, normalize=True, sums its
    # zeros too, in another order)
    memory = cls(**params).partial_fit(sp.csr_array(X), y)
    given_ = cls(**params)
    train_file(given_, path, n_features=d, chunk_size=37)
    free = cls(**params)
    stats = train_file(free, path, chunk_size=37)            # width-free: grows ~ 40 times
    free1 = cls(**params)
    train_file(free1, path, chunk_size=37, workers=1, ahead=False)

    assert free.n_features_in_ == d
    assert _state(free) == _state(given_) == _state(free1)
    assert _state(free, lists=False) == _state(memory, lists=False)
    assert stats.mistakes == memory.mistakes_
    assert np.array_equal(free.predict(X), memory.predict(X))


def test_evaluate_width_free_equals_width_given(tmp_path):
    path = str(tmp_path / "late.svm")
    d = late_features(path, n=900)
    a, b = mbcore.Perceptron(), mbcore.Perceptron()
    ra = evaluate_file(a, path, chunk_size=50)
    rb = evaluate_file(b, path, chunk_size=50, n_features=d)
    assert ra.lines == rb.lines and _state(a) == _state(b)


def test_the_chunks_widen_with_the_largest_column_so_far(tmp_path):
    path = str(tmp_path / "late.svm")
    late_features(path, n=400)
    data = open(path, "rb").read()
    labels, rows, lines, _ = read_svmlight(data, path, n_features=None, zero_based=False)
    assert read_svmlight_growing(data, path)[:4] == (labels, rows, lines, 0)
    for workers in (1, 3):
        got, widths, seen = [], [], 0
        for X, yy in iter_svmlight(path, chunk_size=17, grow=True, workers=workers):
            assert isinstance(X, CSRChunk)
            for r in range(X.shape[0]):
                cols = X.indices[X.indptr[r]:X.indptr[r + 1]].tolist()
                got.append(list(zip(cols, X.data[X.indptr[r]:X.indptr[r + 1]].tolist())))
                if cols:
                    seen = max(seen, cols[-1] + 1)
            widths.append(X.shape[1])
            assert X.shape[1] == seen                        # the largest column so far + 1
        assert got == rows and len(got) == len(labels)
        assert widths == sorted(widths) and widths[0] < widths[-1]


def test_a_wider_warm_start_reads_narrower_chunks_at_its_width(tmp_path):
    path = str(tmp_path / "late.svm")
    d = late_features(path)
    X, y = load_svmlight(path, n_features=d, zero_based=False)
    warm = mbcore.Perceptron().partial_fit(X, y)
    again = mbcore.Perceptron().partial_fit(X, y).partial_fit(X, y)
    train_file(warm, path, chunk_size=40)                    # its first chunks are narrower
    assert _state(warm) == _state(again)


# -- the learners that need n up front ------------------------------------------------------------

def test_every_feature_learner_grows_or_says_why_it_cannot():
    grows = set()
    for name, cls in mbcore.all_learners():
        if cls._TAGS.takes != "features":
            continue
        assert isinstance(cls._TAGS.grows, bool), name
        if cls._TAGS.grows:
            grows.add(name)
            assert cls._TAGS.needs_width is None, name
            assert any("_grow_state" in vars(base) for base in cls.__mro__
                       if base is not mbcore.OnlineLearner), name
        else:
            assert isinstance(cls._TAGS.needs_width, str) and cls._TAGS.needs_width, name
    assert {"Perceptron", "AveragedPerceptron", "MarginPerceptron", "OnlineHingeSVM",
            "PassiveAggressive"} <= grows
    assert not grows & {"Winnow", "BalancedWinnow", "KernelPerceptron", "Conjunction"}


@pytest.mark.parametrize("name", ["Winnow", "BalancedWinnow", "KernelPerceptron", "Conjunction"])
def test_learners_that_need_the_width_say_so(tmp_path, name):
    path = str(tmp_path / "late.svm")
    d = late_features(path, binary=True)
    learner = getattr(mbcore, name)()
    with open(path, "rb") as f:                     # a stream: it cannot be read twice
        with pytest.raises(ValueError, match=rf"{name} needs the number of features up front.*"
                                             r"n_features=D \(--n-features D"):
            train_file(learner, f)
    assert not learner._is_fitted()
    with open(path, "rb") as f:
        train_file(learner, f, n_features=d)
    assert learner.n_features_in_ == d
    # a fitted one continues at its own width, no option needed
    with open(path, "rb") as f:
        train_file(learner, f)
    assert learner.n_features_in_ == d
    # from a file (read twice: a first pass finds the width), as the width given
    fresh, given_ = getattr(mbcore, name)(), getattr(mbcore, name)()
    train_file(fresh, path)
    train_file(given_, path, n_features=d)
    assert _state(fresh) == _state(given_)


def test_the_command_names_the_learner_and_the_option(tmp_path):
    path = tmp_path / "late.svm"
    late_features(str(path))
    r = cli("train", "--learner", "winnow", "--data", "-", "--model", tmp_path / "m.npz",
            stdin=path.read_bytes())
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "Winnow needs --n-features" in err and len(err.strip().splitlines()) == 1


def test_a_failed_chunk_leaves_the_learner_as_before_its_growth(tmp_path):
    learner = mbcore.Perceptron()
    narrow = CSRChunk(np.array([1.0, 2.0]), np.array([0, 1], dtype=np.int32),
                      np.array([0, 1, 2], dtype=np.int32), (2, 2))
    run_stream(learner, [(narrow, np.array([1, -1]))], grow=True)
    before = _state(learner)
    wide = CSRChunk(np.array([1.0, 3.0]), np.array([0, 5], dtype=np.int32),
                    np.array([0, 1, 2], dtype=np.int32), (2, 6))
    with pytest.raises(ValueError):
        run_stream(learner, [(wide, np.array([1, 7]))], grow=True)   # 7: not a class
    assert _state(learner) == before and learner.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):    # without grow: the usual check
        run_stream(learner, [(wide, np.array([1, -1]))])
    assert _state(learner) == before


# -- zero- or one-based, and the cap --------------------------------------------------------------

def test_one_based_unless_told_and_index_zero_names_its_line(tmp_path):
    path = tmp_path / "z.svm"
    path.write_text("1 1:1 3:2\n-1 2:1\n1 0:1 2:1\n")
    with pytest.raises(ValueError, match=r"line 3: has index 0.*pass zero_based=True"):
        list(iter_svmlight(str(path), grow=True))
    with mbcore._messages.command_line(), \
            pytest.raises(ValueError, match=r"line 3: has index 0.*pass --zero-based"):
        list(iter_svmlight(str(path), grow=True))
    with pytest.raises(ValueError, match=r"line 3: has index 0"):
        list(iter_svmlight(str(path), grow=True, zero_based="auto"))
    (X, y), = list(iter_svmlight(str(path), grow=True, zero_based=True))
    assert X.shape == (3, 4) and X.toarray().tolist() == [[0, 1, 0, 2], [0, 0, 1, 0],
                                                          [1, 0, 1, 0]]
    path.write_text("1 1:1 3:2\n-1 2:1\n")
    (X, y), = list(iter_svmlight(str(path), grow=True))
    assert X.shape == (2, 3) and X.toarray().tolist() == [[1, 0, 2], [0, 1, 0]]
    r = cli("train", "--learner", "perceptron", "--data", "-", "--model", tmp_path / "m.npz",
            stdin=b"1 1:1\n-1 0:1\n")
    assert r.returncode == 1 and b"line 2: has index 0" in r.stderr


@pytest.mark.parametrize("index", [2 ** 40, 10 ** 18 - 1, 2 ** 26 + 1])
def test_a_huge_index_is_a_clear_error_not_an_allocation(tmp_path, index):
    path = tmp_path / "huge.svm"
    path.write_text(f"1 1:1\n-1 2:1 {index}:1\n")
    learner = mbcore.Perceptron()
    with pytest.raises(ValueError, match=rf"line 2: uses column {index - 1:,}.*"
                                         r"max_features=67108864"):
        train_file(learner, str(path))
    assert not learner._is_fitted()
    with pytest.raises(ValueError, match=rf"line 2: uses column {index - 1:,}"):
        list(iter_svmlight(str(path), grow=True, workers=3))      # the parallel reader
    r = cli("train", "--learner", "perceptron", "--data", "-", "--model", tmp_path / "m.npz",
            stdin=path.read_bytes())
    assert r.returncode == 1 and b"line 2" in r.stderr and b"max_features" in r.stderr


def test_max_features_sets_the_cap(tmp_path):
    path = tmp_path / "f.svm"
    path.write_text("1 1:1\n-1 9:1\n")
    with pytest.raises(ValueError, match="line 2: uses column 8 .*max_features=5"):
        list(iter_svmlight(str(path), grow=True, max_features=5))
    assert [X.shape for X, _ in iter_svmlight(str(path), grow=True, max_features=9)] == [(2, 9)]
    r = cli("train", "--learner", "perceptron", "--data", path, "--model", tmp_path / "m.npz",
            "--max-features", "5")
    assert r.returncode == 1 and b"max_features=5" in r.stderr


def test_seed_is_checked(tmp_path):
    r = cli("run", "--learner", "perceptron", "--shuffle", "--seed", "-1")
    assert r.returncode == 2 and b"--seed" in r.stderr
    with pytest.raises(ValueError, match="shuffle_chunks: parameter seed"):
        list(shuffle_chunks([], seed=-1))


def test_grow_refuses_what_it_cannot_do(tmp_path):
    path = tmp_path / "f.svm"
    path.write_text("1 1:1\n")
    with pytest.raises(ValueError, match="n_features=None"):
        iter_svmlight(str(path), grow=True, n_features=3)
    with pytest.raises(ValueError, match="dense=False"):
        iter_svmlight(str(path), grow=True, dense=True)


# -- a real pipe -----------------------------------------------------------------------------------

def test_cat_file_into_train_without_the_width(tmp_path):
    path = str(tmp_path / "late.svm")
    d = late_features(path, n=3000, d=80)
    model = tmp_path / "m.npz"
    cat = subprocess.Popen(["cat", path], stdout=subprocess.PIPE)
    try:
        r = subprocess.run(cli_cmd() + ["train", "--learner", "perceptron", "--data", "-",
                                        "--model", str(model), "--json", "--chunk-size", "100"],
                           stdin=cat.stdout, capture_output=True, timeout=300)
    finally:
        cat.stdout.close()
        cat.wait()
    assert r.returncode == 0, r.stderr
    X, y = load_svmlight(path, n_features=d, zero_based=False)
    want = mbcore.Perceptron().partial_fit(X, y)
    got = mbcore.load(str(model))
    assert _state(got) == _state(want)
    assert json.loads(r.stdout)["mistakes"] == want.mistakes_
    # the same through evaluate, from the pipe again
    r = cli("evaluate", "--learner", "perceptron", "--data", "-", "--json",
            stdin=open(path, "rb").read())
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mistakes"] == want.mistakes_


# -- predicting a file wider than the model ----------------------------------------------------

@pytest.mark.parametrize("cls, params", [
    (mbcore.Perceptron, {}), (mbcore.Perceptron, {"normalize": True, "fit_intercept": True}),
    (mbcore.PassiveAggressive, {}), (mbcore.AveragedPerceptron, {})])
def test_predict_a_file_wider_than_the_model(tmp_path, cls, params):
    # a test file with indices past the training file's last (a9a's test set has one more
    # feature than its training set): predicted as the model trained with that width from the
    # start predicts it (new weights 0; the norm of x counts the new values), not refused
    rng = np.random.default_rng(5)
    Xtr = sp.random(300, 20, density=0.3, random_state=1, format="csr")
    ytr = np.where(rng.random(300) < 0.5, -1, 1)
    Xte = sp.random(200, 26, density=0.3, random_state=2, format="csr")
    train, test = str(tmp_path / "train.svm"), str(tmp_path / "test.svm")
    for path, X, y in ((train, Xtr, ytr), (test, Xte, np.ones(200, dtype=int))):
        with open(path, "w") as f:
            for i in range(X.shape[0]):
                row = X.getrow(i)
                f.write(f"{y[i]} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in
                                               zip(row.indices, row.data)) + "\n")
    model = cls(**params)
    train_file(model, train)
    d = model.n_features_in_
    state = _state(model)
    for raw in (False, True):
        out = io.BytesIO()
        assert predict_file(model, test, out, raw=raw, chunk_size=64) == 200
        want = cls(**params).partial_fit(
            sp.hstack([Xtr[:, :d], sp.csr_matrix((300, 26 - d))]).tocsr(), ytr)
        expect = want.decision_function(Xte) if raw else want.predict(Xte)
        got = out.getvalue().decode().split()
        if raw:
            assert [float(v) for v in got] == expect.tolist()
        else:
            assert [int(v) for v in got] == expect.tolist()
    assert model.n_features_in_ == d and _state(model) == state      # the model unchanged
    with pytest.raises(ValueError, match="n_features"):             # the width checked
        predict_file(model, test, io.BytesIO(), n_features=d)


def _files(tmp_path, train, test):
    """A training and a test file with these contents; their paths."""
    paths = str(tmp_path / "train.svm"), str(tmp_path / "test.svm")
    for path, text in zip(paths, (train, test)):
        with open(path, "w") as f:
            f.write(text)
    return paths


def test_predict_a_wider_file_from_the_command(tmp_path):
    train, test = _files(tmp_path, "1 1:1 2:1\n-1 2:1 3:1\n1 1:2\n",
                         "1 1:1 5:1\n-1 3:1 9:2\n")
    model = str(tmp_path / "m.npz")
    r = cli("train", "--learner", "perceptron", "--data", train, "--model", model)
    assert r.returncode == 0, r.stderr
    r = cli("predict", "--model", model, "--data", test)
    assert r.returncode == 0, r.stderr
    m = mbcore.load(model)
    assert r.stdout.decode().split() == [str(int(v)) for v in m.predict(np.array([[1, 0, 0],
                                                                             [0, 0, 1]]))]


def test_learners_of_a_fixed_width_still_refuse_a_wider_file(tmp_path):
    train, test = _files(tmp_path, "1 1:1 2:1\n-1 2:1 3:1\n", "1 1:1 5:1\n")
    w = mbcore.Winnow()
    train_file(w, train)
    with pytest.raises(ValueError, match="line 1"):
        predict_file(w, test, io.BytesIO())


# -- shuffle --------------------------------------------------------------------------------------

def _rows(chunks):
    ys, xs = [], []
    for X, y in chunks:
        ys += np.asarray(y).tolist()
        dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        xs += [tuple(r) for r in dense.tolist()]
    return xs, ys


@pytest.mark.parametrize("csr", [False, True])
def test_shuffle_is_a_permutation_reproducible_by_seed(csr):
    rng = np.random.default_rng(1)
    n, d = 1000, 6
    X = (rng.random((n, d)) < 0.3) * rng.integers(1, 9, size=(n, d)).astype(float)
    y = np.arange(n)

    def chunks(sizes):
        at = 0
        for s in sizes:
            block = X[at:at + s]
            if csr:
                nz = block != 0
                indptr = np.concatenate([[0], np.cumsum(nz.sum(1))]).astype(np.int32)
                block = CSRChunk(block[nz], np.nonzero(nz)[1].astype(np.int32), indptr,
                                 (block.shape[0], d))
            yield block, y[at:at + s]
            at += s

    one = _rows(shuffle_chunks(chunks([1000]), seed=3, buffer_size=100, chunk_size=64))
    other_cut = _rows(shuffle_chunks(chunks([7, 500, 1, 492]), seed=3, buffer_size=100,
                                     chunk_size=64))
    again = _rows(shuffle_chunks(chunks([1000]), seed=3, buffer_size=100, chunk_size=64))
    other_seed = _rows(shuffle_chunks(chunks([1000]), seed=4, buffer_size=100, chunk_size=64))
    assert one == again == other_cut
    assert one[1] != other_seed[1]
    assert sorted(one[1]) == list(range(n)) and one[1] != list(range(n))
    for xs, ys in (one, other_seed):       # every row keeps its features
        assert all(x == tuple(X[i]) for x, i in zip(xs, ys))
    # the buffer bounds how early a row can leave: at most buffer_size + chunk_size ahead
    pos = np.empty(n, dtype=int)
    pos[one[1]] = np.arange(n)
    assert (np.arange(n) - pos).max() <= 100 + 64
    whole = _rows(shuffle_chunks(chunks([1000]), seed=3, buffer_size=5000))
    assert sorted(whole[1]) == list(range(n))


def spambase_like(path, seed=0):
    """Rows sorted by label as UCI spambase is: 1,813 rows of label 1, then 2,788 of 0."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for label, count in ((1, 1813), (0, 2788)):
            for _ in range(count):
                x = rng.random(5) + 0.3 * label
                f.write(",".join(f"{v:.4f}" for v in x) + f",{label}\n")


def test_label_runs_rule():
    assert LabelRuns().add([1] * 50).add([1] * 49 + [0]).sorted        # 2 runs, 100 rows
    assert not LabelRuns().add([1] * 50).add([1] * 48 + [0]).sorted    # 99 rows
    r = LabelRuns().add([0] * 40).add([1] * 40).add([0] * 40).add([1] * 40)
    assert r.runs == 4 and r.sorted                                     # 4 runs of 2 labels
    r.add([0] * 40)
    assert r.runs == 5 and not r.sorted
    alternating = LabelRuns()
    for _ in range(10):
        alternating.add(np.array([1, 0] * 50))
    assert alternating.runs == 1000 and not alternating.sorted
    three = LabelRuns().add(np.repeat(["a", "b", "c"], 100))
    assert three.runs == 3 and three.sorted


@pytest.mark.longrun       # (8 s of child processes)
def test_sorted_labels_warn_and_shuffle_silences_them(tmp_path):
    path = tmp_path / "spambase.data"
    spambase_like(str(path))
    base = ["run", "--dataset", path, "--learner", "perceptron", "--no-twin", "--json"]
    r = cli(*base)
    assert r.returncode == 0, r.stderr
    warn = [line for line in r.stderr.decode().splitlines() if "warning" in line]
    assert len(warn) == 1 and "arrive sorted (2 runs of 2 labels over 4,601 rows)" in warn[0]
    sorted_mistakes = json.loads(r.stdout)[0]["mistakes"]

    a, b, c = (cli(*base, "--shuffle", "--seed", s) for s in (1, 1, 2))
    assert all(p.returncode == 0 and b"warning" not in p.stderr for p in (a, b, c))
    ma, mb, mc = (json.loads(p.stdout)[0]["mistakes"] for p in (a, b, c))
    assert ma == mb and sorted_mistakes < ma
    # the order itself differs by seed (the learner's mistakes may or may not)
    X = np.loadtxt(path, delimiter=",")
    o1 = np.random.default_rng(1).permutation(X.shape[0])
    o2 = np.random.default_rng(2).permutation(X.shape[0])
    assert not np.array_equal(o1, o2)
    want = mbcore.Perceptron().partial_fit(X[o1, :-1], X[o1, -1])
    assert ma == want.mistakes_

    for extra in ([], ["--chunk-size", "500", "--classes", "0,1"]):   # certify; a streamed run
        cmd = ["certify", "--dataset", path, "--learner", "perceptron"] if not extra else \
            base + extra
        r = cli(*cmd)
        assert r.returncode == 0 and r.stderr.decode().count("arrive sorted") == 1, r.stderr
        r = cli(*cmd, "--shuffle")
        assert r.returncode == 0 and b"arrive sorted" not in r.stderr

    r = cli("run", "--dataset", "mushrooms", "--learner", "perceptron", "--no-twin")
    assert r.returncode == 0 and b"arrive sorted" not in r.stderr


def test_evaluate_shuffle_reproducible_and_warning(tmp_path):
    path = tmp_path / "sorted.svm"
    rng = np.random.default_rng(0)
    with open(path, "w") as f:
        for label in (1, -1):
            for _ in range(300):
                cols = np.sort(rng.choice(20, 4, replace=False)) + 1
                f.write(f"{label} " + " ".join(f"{c}:1" for c in cols) + "\n")
    r = cli("evaluate", "--learner", "perceptron", "--data", path, "--json")
    assert r.returncode == 0 and r.stderr.decode().count("arrive sorted") == 1
    runs = [cli("evaluate", "--learner", "perceptron", "--data", path, "--json", "--shuffle",
                "--seed", s, "--shuffle-buffer", "100") for s in (5, 5, 6)]
    assert all(p.returncode == 0 and b"arrive sorted" not in p.stderr for p in runs)
    reports = [json.loads(p.stdout)["report"] for p in runs]
    assert reports[0] == reports[1]
    # the same shuffle in Python gives the same mistakes
    want = mbcore.Perceptron()
    chunks = shuffle_chunks(iter_svmlight(str(path), grow=True, chunk_size=8192), seed=5,
                            buffer_size=100, chunk_size=8192)
    stats = run_stream(want, chunks, grow=True)
    assert stats.mistakes == json.loads(runs[0].stdout)["mistakes"]


# -- fuzz: the width-free reader against the twin, and the learner that grows with it -----------

_ALPHABET = b"0123456789:+-. \t\n\r#eEqid\x00\xff"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list(_ALPHABET)), max_size=160).map(bytes),
       st.sampled_from([1, 2, 5, 1000]), st.booleans())
def test_fuzz_width_free_reader_and_growth(tmp_path_factory, data, chunk_size, zero_based):
    tmp = tmp_path_factory.mktemp("wfuzz")
    path = str(tmp / "f.svm")
    with open(path, "wb") as f:
        f.write(data)
    cap = 40
    try:
        want = read_svmlight_growing(data, path, max_features=cap, zero_based=zero_based)
    except ValueError as e:
        with pytest.raises(ValueError) as info:
            list(iter_svmlight(path, chunk_size=chunk_size, grow=True, zero_based=zero_based,
                               max_features=cap))
        assert str(info.value) == str(e)                 # word for word, the line named
        return
    if not want[0]:
        with pytest.raises(ValueError, match="no data rows"):
            list(iter_svmlight(path, grow=True, zero_based=zero_based, max_features=cap))
        return
    chunks = list(iter_svmlight(path, chunk_size=chunk_size, grow=True, zero_based=zero_based,
                                max_features=cap))
    rows = []
    for X, _ in chunks:
        assert X.shape[1] == want[4][len(rows) + X.shape[0] - 1]   # the twin's width so far
        for r in range(X.shape[0]):
            a, b = X.indptr[r], X.indptr[r + 1]
            rows.append(list(zip(X.indices[a:b].tolist(), X.data[a:b].tolist())))
            assert all(c < X.shape[1] for c in X.indices[a:b].tolist())
    assert [[(c, repr(v)) for c, v in r] for r in rows] == \
        [[(c, repr(v)) for c, v in r] for r in want[1]]
    labels = np.concatenate([y for _, y in chunks])
    if labels.dtype.kind == "U":                         # text labels (a str array: no NULs)
        assert labels.tolist() == [w.rstrip("\x00") for w in want[0]]
    else:
        assert np.array_equal(labels, want[0], equal_nan=True)
    if labels.dtype.kind == "f" and np.all(np.isfinite(labels)) and len(set(labels.tolist())) == 2 and all(
            np.all(np.isfinite(X.data)) for X, _ in chunks):
        classes = sorted(set(labels.tolist()))
        grown = mbcore.Perceptron()
        run_stream(grown, chunks, classes=classes, grow=True)
        d = max(1, max(X.shape[1] for X, _ in chunks))       # (a learner takes 1 at least)
        whole = [(CSRChunk(X.data, X.indices, X.indptr, (X.shape[0], d)), y) for X, y in chunks]
        given_ = mbcore.Perceptron()
        run_stream(given_, whole, classes=classes)
        assert _state(grown) == _state(given_)


_row = st.tuples(st.sampled_from([-1, 1]),
                 st.lists(st.integers(1, 30), unique=True, max_size=5),
                 st.lists(st.sampled_from([0.5, -1.0, 2.0, 0.0, 3.25]), min_size=5, max_size=5))


@settings(max_examples=60, deadline=None)
@given(st.lists(_row, min_size=1, max_size=80), st.integers(1, 9),
       st.sampled_from([c for c, _ in GROWING[:1]] + [mbcore.PassiveAggressive,
                                                      mbcore.MarginPerceptron]))
def test_fuzz_growth_equals_the_width_given(tmp_path_factory, rows, chunk_size, cls):
    tmp = tmp_path_factory.mktemp("grow")
    path = str(tmp / "f.svm")
    with open(path, "w") as f:
        for label, idx, vals in rows:
            f.write(f"{label} " + " ".join(f"{i}:{v}" for i, v in zip(sorted(idx), vals)) + "\n")
    d = max([max(idx) for _, idx, _ in rows if idx] + [1])
    free, given_ = cls(), cls()
    a = train_file(free, path, chunk_size=chunk_size, classes=[-1, 1])
    b = train_file(given_, path, chunk_size=chunk_size, classes=[-1, 1], n_features=d)
    assert _state(free) == _state(given_) and a.mistakes == b.mistakes
