"""``mbcore evaluate --ask B``: selective sampling from the command line (the labels asked
against the mistakes), run as a user would (a subprocess on the console script); the sampler
saved (``--model``), continued (``--warm-start``, ``train --ask``) and predicting (``predict``)."""

import json
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
from mbcore.datasets import load_a9a

EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")


def run_cli(*args):
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def a9a_file(tmp_path_factory):
    """The first 3,000 rows of the bundled a9a as a one-based svmlight file."""
    X, y = load_a9a()[:2]
    X = sp.csr_matrix(X)[:3000]
    y = np.asarray(y[:3000])
    path = tmp_path_factory.mktemp("ask") / "a9a-3000.svm"
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            f.write(f"{int(y[i])} " + " ".join(f"{j + 1}:{v:g}" for j, v in
                                              zip(X.indices[a:b], X.data[a:b])) + "\n")
    return str(path), X, y


def test_the_curve_is_the_librarys(a9a_file):
    path, X, y = a9a_file
    out = run_cli("evaluate", "--data", path, "--ask", "0.5", "--ask", "5", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert [c["b"] for c in got["curve"]] == [0.5, 5.0]
    for c in got["curve"]:
        run = mbcore.SelectiveSampler(mbcore.Perceptron(), b=c["b"]).run_online(X, y)
        assert (c["examples"], c["labels_asked"], c["mistakes"]) == \
            (3000, run.labels_asked, run.mistakes)
        assert c["report"][-1] == [3000, run.labels_asked, run.mistakes]
        assert [r[0] for r in c["report"][:4]] == [1, 2, 4, 8]
        # the mistakes on each true class (every row's label is in the file)
        wrong = np.asarray(run.predictions) != y
        want = [{"class": float(k), "examples": int(np.sum(y == k)),
                 "mistakes": int(np.sum(wrong & (y == k))),
                 "error_rate": int(np.sum(wrong & (y == k))) / int(np.sum(y == k))}
                for k in (-1, 1)]
        assert c["per_class"] == want
        assert c["false_negative_rate"] == want[1]["error_rate"]
    a, b = got["curve"]
    assert a["labels_asked"] < b["labels_asked"]


def test_the_table_names_each_b_and_its_share_of_the_labels(a9a_file):
    out = run_cli("evaluate", "--data", a9a_file[0], "--ask", "1", "--learner",
                  "PassiveAggressive", "--param", "C=0.5")
    assert out.returncode == 0, out.stderr
    assert "PassiveAggressive, --ask 1:" in out.stdout
    assert "labels asked" in out.stdout and "% of the labels)" in out.stdout
    lines = out.stdout.splitlines()
    at = lines.index("error rate on each true class, in % (mistakes / examples of the class), "
                     "and their mean (balanced):")
    assert lines[at + 1].split() == ["class", "-1", "1", "balanced"]
    y = a9a_file[2]
    assert lines[at + 2].split() == ["examples", f"{int(np.sum(y == -1)):,}",
                                     f"{int(np.sum(y == 1)):,}"]
    assert lines[at + 3].split()[:3] == ["b", "=", "1"]


@pytest.mark.parametrize("args,match", [
    (["--ask", "0"], "expected a real number > 0, got '0'"),
    (["--ask", "nan"], "expected a real number > 0, got 'nan'"),
    (["--ask", "1", "--ask", "2", "--model", "m.npz"], "--model saves one selective sampler"),
    (["--ask", "1", "--shuffle"], "the sampler draws its coin row by row in the order of the "
                                  "source"),
    (["--adaptive"], "--adaptive goes with --ask B"),
    (["--ask", "1", "--learner", "Winnow"], "parameter learner must be one of"),
])
def test_what_it_refuses_it_says_in_one_line(a9a_file, args, match):
    extra = [] if "--learner" in args or args == ["--adaptive"] else []
    out = run_cli("evaluate", "--data", a9a_file[0], *args,
                  *(["--learner", "Perceptron"] if args == ["--adaptive"] else extra))
    assert out.returncode != 0
    assert match in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_bad_row_is_named_by_its_line(tmp_path):
    path = tmp_path / "bad.svm"
    path.write_text("1 1:0.5 2:1\n-1 1:1 2:nan\n1 2:1\n")
    out = run_cli("evaluate", "--data", str(path), "--ask", "100")
    assert out.returncode != 0
    assert "line 2" in out.stderr, out.stderr


def test_a_file_is_read_as_evaluate_reads_it(tmp_path):
    """The file scikit-learn writes (dump_svmlight_file: zero-based) is refused at its first
    line naming --zero-based, as evaluate refuses it, and read with it; a pipe needs its
    width (--n-features) and one B."""
    from sklearn.datasets import dump_svmlight_file, make_classification
    X, y = make_classification(n_samples=400, n_features=6, random_state=0)
    path = tmp_path / "sk.svm"
    dump_svmlight_file(X, y, str(path))
    out = run_cli("evaluate", "--data", str(path), "--ask", "1")
    assert out.returncode != 0 and "line 1" in out.stderr and "--zero-based" in out.stderr
    out = run_cli("evaluate", "--data", str(path), "--ask", "1", "--zero-based", "--json")
    assert out.returncode == 0, out.stderr
    run = mbcore.SelectiveSampler(b=1.0).run_online(X, y)
    assert json.loads(out.stdout)["curve"][0]["labels_asked"] == run.labels_asked
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    text = path.read_bytes()
    piped = subprocess.run(cmd + ["evaluate", "--data", "-", "--zero-based", "--ask", "1"],
                           input=text, capture_output=True, timeout=300)
    assert piped.returncode != 0 and b"--n-features D" in piped.stderr
    piped = subprocess.run(cmd + ["evaluate", "--data", "-", "--zero-based", "--n-features",
                                  "6", "--ask", "1", "--json"], input=text, capture_output=True,
                           timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["curve"][0]["labels_asked"] == run.labels_asked
    piped = subprocess.run(cmd + ["evaluate", "--data", "-", "--zero-based", "--ask", "1",
                                  "--ask", "2"], input=text, capture_output=True, timeout=300)
    assert piped.returncode != 0 and b"give a file, not standard input" in piped.stderr


# -- the sampler saved, continued, predicting -----------------------------------------------------
def _halves(tmp_path, X, y):
    """The a9a rows in two files, each of them one-based svmlight."""
    out = []
    for name, lo, hi in (("first.svm", 0, 1700), ("second.svm", 1700, 3000)):
        path = tmp_path / name
        with open(path, "w") as f:
            for i in range(lo, hi):
                a, b = X.indptr[i], X.indptr[i + 1]
                f.write(f"{int(y[i])} " + " ".join(f"{j + 1}:{v:g}" for j, v in
                                                  zip(X.indices[a:b], X.data[a:b])) + "\n")
        out.append(str(path))
    return out


def _same_sampler(S, T):
    assert (S.n_seen_, S.labels_asked_, S.mistakes_, S.updates_) == \
        (T.n_seen_, T.labels_asked_, T.mistakes_, T.updates_)
    assert int(S._rng[0]) == int(T._rng[0]) and float(S._x2[0]) == float(T._x2[0])
    assert np.asarray(S.learner_.coef_).tobytes() == np.asarray(T.learner_.coef_).tobytes()
    assert np.asarray(S.learner_.intercept_).tobytes() == \
        np.asarray(T.learner_.intercept_).tobytes()


def test_model_saves_the_sampler_of_the_run(a9a_file, tmp_path):
    path, X, y = a9a_file
    out_file = tmp_path / "s.npz"
    out = run_cli("evaluate", "--data", path, "--ask", "0.7", "--adaptive", "--learner", "AROW",
                  "--param", "r=2", "--seed", "11", "--model", str(out_file), "--json",
                  "--n-features", "123")
    assert out.returncode == 0, out.stderr
    S = mbcore.load(out_file)
    ref = mbcore.SelectiveSampler(mbcore.AROW(r=2), b=0.7, adaptive=True, random_state=11)
    run = ref.run_online(X, y)
    assert isinstance(S, mbcore.SelectiveSampler) and repr(S) == repr(ref)
    _same_sampler(S, ref)
    got = json.loads(out.stdout)
    assert got["model"] == str(out_file) and got["curve"][0]["labels_asked"] == run.labels_asked
    assert S.learner_.reading_ == {"format": "svmlight", "zero_based": False}
    # predict with the saved sampler: its learner's predictions
    pred = run_cli("predict", "--data", path, "--model", str(out_file))
    assert pred.returncode == 0, pred.stderr
    assert [int(v) for v in pred.stdout.split()] == [int(v) for v in ref.predict(X)]


@pytest.mark.parametrize("command", ["evaluate", "train"])
def test_a_warm_start_continues_the_run_exactly(a9a_file, tmp_path, command):
    """The first rows with --model, the others with --warm-start: the sampler of one run over
    every row (the same labels asked, mistakes, generator and weights)."""
    _, X, y = a9a_file
    first, second = _halves(tmp_path, X, y)
    half, whole = tmp_path / "half.npz", tmp_path / "whole.npz"
    out = run_cli(command, "--data", first, "--ask", "0.4", "--n-features", "123",
                  "--model", str(half), "--json")
    assert out.returncode == 0, out.stderr
    out = run_cli(command, "--data", second, "--warm-start", str(half), "--n-features", "123",
                  "--model", str(whole), "--json")
    assert out.returncode == 0, out.stderr
    ref = mbcore.SelectiveSampler(b=0.4)
    ref.run_online(X[:1700], y[:1700])
    rest = ref.run_online(X[1700:], y[1700:])
    _same_sampler(mbcore.load(whole), ref)
    got = json.loads(out.stdout)
    asked = got["labels_asked"] if command == "train" else got["curve"][0]["labels_asked"]
    assert asked == rest.labels_asked and got["warm_start"] == str(half)


def test_a_warm_start_reads_a_pipe_at_the_samplers_width(a9a_file, tmp_path):
    _, X, y = a9a_file
    first, second = _halves(tmp_path, X, y)
    half = tmp_path / "half.npz"
    assert run_cli("train", "--data", first, "--ask", "2", "--n-features", "123", "--model",
                   str(half)).returncode == 0
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    with open(second, "rb") as f:
        piped = subprocess.run(cmd + ["evaluate", "--data", "-", "--warm-start", str(half),
                                      "--json"], input=f.read(), capture_output=True,
                               timeout=300)
    assert piped.returncode == 0, piped.stderr
    ref = mbcore.SelectiveSampler(b=2.0)
    ref.run_online(X[:1700], y[:1700])
    rest = ref.run_online(X[1700:], y[1700:])
    assert json.loads(piped.stdout)["curve"][0]["labels_asked"] == rest.labels_asked


def test_train_ask_with_passes_is_one_longer_run(a9a_file, tmp_path):
    path, X, y = a9a_file
    out_file = tmp_path / "t.npz"
    out = run_cli("train", "--data", path, "--ask", "1", "--passes", "2", "--model",
                  str(out_file), "--learner", "PassiveAggressive", "--param", "C=0.1",
                  "--n-features", "123")
    assert out.returncode == 0, out.stderr
    assert "labels asked" in out.stdout and "saved to" in out.stdout
    ref = mbcore.SelectiveSampler(mbcore.PassiveAggressive(C=0.1), b=1.0)
    ref.run_online(X, y)
    ref.run_online(X, y)
    _same_sampler(mbcore.load(out_file), ref)


def test_seed_seeds_the_coin(a9a_file):
    path, X, y = a9a_file
    out = run_cli("evaluate", "--data", path, "--ask", "1", "--seed", "5", "--json")
    assert out.returncode == 0, out.stderr
    runs = {s: mbcore.SelectiveSampler(b=1.0, random_state=s).run_online(X, y).labels_asked
            for s in (0, 5)}
    assert runs[0] != runs[5]
    assert json.loads(out.stdout)["curve"][0]["labels_asked"] == runs[5]


@pytest.fixture(scope="module")
def saved_models(a9a_file, tmp_path_factory):
    path = a9a_file[0]
    where = tmp_path_factory.mktemp("saved")
    sampler, plain = where / "sampler.npz", where / "plain.npz"
    assert run_cli("evaluate", "--data", path, "--ask", "1", "--model",
                   str(sampler)).returncode == 0
    assert run_cli("train", "--data", path, "--learner", "Perceptron", "--model",
                   str(plain)).returncode == 0
    return str(sampler), str(plain)


@pytest.mark.parametrize("command,args,match", [
    ("evaluate", ["--ask", "2"], "holds a selective sampler of B 1: leave --ask out"),
    ("evaluate", ["--learner", "AROW"], "holds a selective sampler of a Perceptron"),
    ("evaluate", ["--param", "eta=2"], "--param and --warm-start"),
    ("train", ["--ask", "1", "--seed", "3"], "--seed and --warm-start"),
    ("evaluate", ["--adaptive"], "holds a selective sampler with a fixed B"),
    ("evaluate", ["--shuffle"], "the sampler draws its coin row by row"),
    ("evaluate", ["--ask", "1", "plain"], "which holds a Perceptron, not a selective sampler"),
    ("train", ["--ask", "1", "--ask", "2"], "train --ask saves one selective sampler"),
])
def test_a_warm_start_refuses_what_contradicts_the_file(a9a_file, saved_models, tmp_path,
                                                         command, args, match):
    sampler, plain = saved_models
    warm = plain if "plain" in args else sampler
    args = [a for a in args if a != "plain"]
    model = ["--model", str(tmp_path / "out.npz")] if command == "train" else []
    out = run_cli(command, "--data", a9a_file[0], "--warm-start", warm, *model, *args)
    assert out.returncode != 0
    assert match in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.npz").exists()
