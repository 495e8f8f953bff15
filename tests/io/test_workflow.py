"""The train -> model -> predict workflow, from the shell and from Python.

Through the installed `mbcore` command (a subprocess, as a user runs it): `train` saves a model
equal bit for bit to the learner trained in memory on the same rows; `predict` writes exactly
`learner.predict` (or, with --raw, `decision_function`, to the last bit), from a file or from
standard input to standard output; `evaluate` reports the progressive mistakes at 1, 2, 4, ...
examples, the counts of `mbcore.run_online` on the same rows; a warm start continues exactly
like one longer run; errors are one line with the documented exit status.  In Python:
`train_file`, `predict_file`, `evaluate_file` and the background reader `prefetch`.
"""

import io
import json
import shutil
import subprocess
import sysconfig
import sys
import threading

import numpy as np
import pytest

import mbcore
from mbcore.streaming import prefetch
from mbcore.datasets import load_svmlight
from mbcore.streaming import evaluate_file, iter_svmlight, predict_file, train_file

EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")


def cli(*args, stdin=None):
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, timeout=300,
                          input=stdin)


def write_svmlight(path, n=3000, d=40, seed=0, labels=(-1, 1)):
    """A noisy linear problem in svmlight text (one-based indices, some rows empty)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    lines = []
    for _ in range(n):
        k = int(rng.integers(0, 8))
        cols = np.sort(rng.choice(d, size=k, replace=False))
        vals = np.round(rng.normal(size=k), 3)
        s = float(vals @ u[cols]) if k else 0.0
        lab = labels[1] if (s > 0) != (rng.random() < 0.05) else labels[0]
        lines.append(f"{lab} " + " ".join(f"{c + 1}:{v:g}" for c, v in zip(cols, vals)))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The file, and its rows as the readers give them (CSR: the learners sum a CSR row in its
    own order, which on real values may differ in the last bit from the dense row's)."""
    path = write_svmlight(tmp_path_factory.mktemp("wf") / "train.svm")
    (X, y), = iter_svmlight(str(path), chunk_size=10 ** 6, n_features=40, zero_based=False)
    D, yd = load_svmlight(str(path), n_features=40, zero_based=False)
    assert np.array_equal(X.toarray(), D) and np.array_equal(y, yd)
    return path, X.to_scipy(), y


def trained(X, y, name="Perceptron", **params):
    return getattr(mbcore, name)(**params).partial_fit(X, y)


@pytest.mark.parametrize("name", ["Perceptron", "OnlineHingeSVM", "AveragedPerceptron"])
def test_train_saves_the_learner_trained_in_memory(data, tmp_path, name):
    path, X, y = data
    model = tmp_path / "m.npz"
    r = cli("train", "--learner", name.lower(), "--data", path, "--model", model,
            "--n-features", 40, "--chunk-size", 700, "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    ref = trained(X, y, name)
    got = mbcore.load(model)
    assert summary["n_samples"] == len(y) and summary["mistakes"] == ref.mistakes_
    assert np.array_equal(got.coef_, ref.coef_) and got.n_seen_ == ref.n_seen_
    assert got.updates_ == ref.updates_


def test_predict_writes_exactly_what_predict_gives(data, tmp_path):
    path, X, y = data
    model = tmp_path / "m.npz"
    trained(X, y).save(model)
    ref = mbcore.load(model)
    out = tmp_path / "pred.txt"
    r = cli("predict", "--model", model, "--data", path, "--out", out, "--chunk-size", 512)
    assert r.returncode == 0, r.stderr
    got = np.array([float(t) for t in out.read_text().split()])
    assert got.shape == (len(y),) and np.array_equal(got, ref.predict(X))
    r = cli("predict", "--model", model, "--data", path, "--raw")
    assert r.returncode == 0, r.stderr
    scores = np.array([float(t) for t in r.stdout.split()])
    assert np.array_equal(scores, ref.decision_function(X))     # repr round-trips exactly


@pytest.mark.parametrize("line_buffered", [True, False], ids=["line", "chunks"])
def test_predict_from_stdin_to_stdout(data, tmp_path, line_buffered):
    path, X, y = data
    model = tmp_path / "m.npz"
    trained(X, y).save(model)
    flag = "--line-buffered" if line_buffered else "--no-line-buffered"
    r = cli("predict", "--model", model, "--data", "-", flag, stdin=b"".join(path.read_bytes().splitlines(keepends=True)[:587]))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().split()
    n = len(lines)
    assert n == 587
    assert np.array_equal(np.array([float(t) for t in lines]),
                          mbcore.load(model).predict(X[:n]))


def test_line_buffered_predict_answers_each_line_as_it_arrives(data, tmp_path):
    """A line written to the pipe is answered before the next one is sent."""
    path, X, y = data
    model = tmp_path / "m.npz"
    ref = trained(X, y)
    ref.save(model)
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    proc = subprocess.Popen(cmd + ["predict", "--model", str(model), "--data", "-",
                                   "--line-buffered"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = path.read_bytes().splitlines(keepends=True)[:5]
        for i, line in enumerate(lines):
            proc.stdin.write(line)
            proc.stdin.flush()
            answer = proc.stdout.readline()          # blocks until this line is answered
            assert float(answer) == ref.predict(X[i:i + 1])[0]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()


def test_evaluate_reports_progressive_mistakes_at_doubling_counts(data, tmp_path):
    path, X, y = data
    r = cli("evaluate", "--learner", "perceptron", "--data", path, "--chunk-size", 300,
            "--json", "--model", tmp_path / "e.npz")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    curve = mbcore.run_online(mbcore.Perceptron(), X, y).mistake_curve
    want, at, prev = [], 1, (0, 0)
    while at <= len(y):
        want.append([at, int(curve[at - 1]), at - prev[0], int(curve[at - 1]) - prev[1]])
        prev = (at, int(curve[at - 1]))
        at *= 2
    want.append([len(y), int(curve[-1]), len(y) - prev[0], int(curve[-1]) - prev[1]])
    assert summary["report"] == want
    assert summary["mistakes"] == int(curve[-1])
    assert np.array_equal(mbcore.load(tmp_path / "e.npz").coef_, trained(X, y).coef_)
    table = cli("evaluate", "--learner", "perceptron", "--data", path)
    assert table.returncode == 0
    report = table.stdout.decode().split("\n\n")[0]       # (then the per-class lines)
    assert len([ln for ln in report.splitlines() if ln.strip()]) == len(want) + 2


def _two_percent_positive_file(path, n=500, seed=1):
    """n rows whose only feature is 0 (the Perceptron scores 0, predicts -1 on the tie and
    never moves), 2 % of them +1."""
    y = np.full(n, -1)
    y[np.random.default_rng(seed).choice(n, n // 50, replace=False)] = 1
    path.write_text("".join(f"{v:+d} 1:0\n" for v in y))
    return y


def test_evaluate_reports_the_mistakes_on_each_class(tmp_path):
    # 2 % errors overall, and every positive a mistake: both rates printed (issue 40)
    path = tmp_path / "rare.svm"
    _two_percent_positive_file(path)
    r = cli("evaluate", "--learner", "perceptron", "--data", path, "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["error_rate"] == 0.02
    assert summary["per_class"] == [
        {"class": -1.0, "examples": 490, "mistakes": 0, "error_rate": 0.0},
        {"class": 1.0, "examples": 10, "mistakes": 10, "error_rate": 1.0}]
    assert summary["false_negative_rate"] == 1.0 and summary["false_positive_rate"] == 0.0
    assert summary["balanced_error_rate"] == 0.5
    text = cli("evaluate", "--learner", "perceptron", "--data", path)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.decode().splitlines()
    at = lines.index("class   examples   mistakes   error rate")
    assert [ln.split()[:4] for ln in lines[at + 1:at + 3]] == [
        ["-1", "490", "0", "0.000000"], ["1", "10", "10", "1.000000"]]
    assert "false positive rate" in lines[at + 1] and "false negative rate" in lines[at + 2]
    assert lines[at + 3] == "balanced error rate (the mean of the 2 classes' rates): 0.500000"


def test_evaluate_k_classes_one_line_per_class(tmp_path):
    path = tmp_path / "three.svm"
    rng = np.random.default_rng(4)
    D = rng.integers(-3, 4, size=(600, 8))
    labels = np.argmax(D[:, :3] + rng.normal(size=(600, 3)), axis=1) + 1
    path.write_text("".join(f"{c} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row) if v)
                            + "\n" for c, row in zip(labels, D)))
    (X, y), = iter_svmlight(str(path), chunk_size=10 ** 6, n_features=8, zero_based=False)
    r = cli("evaluate", "--learner", "perceptron", "--data", path, "--json")
    assert r.returncode == 0, r.stderr
    run = mbcore.run_online(mbcore.Perceptron(), X, y)
    got = json.loads(r.stdout)["per_class"]
    for c, entry in zip((1, 2, 3), got):
        wrong = int(np.sum((y == c) & (np.asarray(run.predictions) != y)))
        assert entry == {"class": float(c), "examples": int(np.sum(y == c)), "mistakes": wrong,
                         "error_rate": wrong / int(np.sum(y == c))}
    text = cli("evaluate", "--learner", "perceptron", "--data", path).stdout.decode()
    lines = text.splitlines()
    at = lines.index("class   examples   mistakes   error rate")
    assert [ln.split()[0] for ln in lines[at + 1:at + 4]] == ["1", "2", "3"]
    assert lines[at + 4].startswith("balanced error rate (the mean of the 3 classes' rates)")


def test_warm_start_continues_like_one_longer_run(data, tmp_path):
    path, X, y = data
    half = len(y) // 2
    text = path.read_text().splitlines(keepends=True)
    first, second = tmp_path / "a.svm", tmp_path / "b.svm"
    first.write_text("".join(text[:half]))
    second.write_text("".join(text[half:]))
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert cli("train", "--learner", "marginperceptron", "--param", "gamma=0.1", "--data", first,
               "--model", a, "--n-features", 40).returncode == 0
    r = cli("train", "--warm-start", a, "--learner", "MarginPerceptron", "--data", second,
            "--model", b, "--n-features", 40)
    assert r.returncode == 0, r.stderr
    whole = trained(X, y, "MarginPerceptron", gamma=0.1)
    got = mbcore.load(b)
    assert np.array_equal(got.coef_, whole.coef_) and got.mistakes_ == whole.mistakes_
    assert got.updates_ == whole.updates_ and got.n_seen_ == len(y)


def test_passes_equal_repeated_partial_fit(data, tmp_path):
    path, X, y = data
    model = tmp_path / "m.npz"
    assert cli("train", "--learner", "perceptron", "--data", path, "--model", model,
               "--passes", 3).returncode == 0
    ref = mbcore.Perceptron()
    for _ in range(3):
        ref.partial_fit(X, y)
    assert np.array_equal(mbcore.load(model).coef_, ref.coef_)


@pytest.mark.parametrize("args, status, words", [
    (["train", "--learner", "perceptron", "--data", "/no/such/file", "--model", "m.npz"], 1,
     "no such file"),
    (["train", "--learner", "nosuch", "--data", "x", "--model", "m.npz"], 2, "unknown learner"),
    (["train", "--data", "x", "--model", "m.npz"], 2, "--learner"),
    (["predict", "--model", "/no/such/model.npz", "--data", "x"], 1, "no/such/model.npz"),
    (["train", "--learner", "winnow", "--data", "-", "--model", "m.npz"], 2,
     "Winnow needs --n-features"),
    (["train", "--learner", "perceptron", "--data", "-", "--model", "m.npz", "--passes", "2",
      "--n-features", "3"], 2, "--passes"),
])
def test_errors_are_one_line_with_the_documented_status(args, status, words, tmp_path):
    r = subprocess.run(([EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]) + args,
                       capture_output=True, text=True, cwd=tmp_path, timeout=120, input="")
    assert r.returncode == status, (r.returncode, r.stderr)
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mbcore: error:") and words in err[0], err


def test_a_malformed_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.svm"
    path.write_text("1 1:1 2:1\n-1 2:1\n1 3:x\n")
    r = cli("train", "--learner", "perceptron", "--data", path, "--model", tmp_path / "m.npz")
    assert r.returncode == 1
    err = r.stderr.decode().strip()
    assert "bad.svm" in err and "line 3" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()


# -- Python ------------------------------------------------------------------------------------

def test_python_functions_match_the_learner(data, tmp_path):
    path, X, y = data
    clf = mbcore.Winnow(features="real")
    stats = train_file(clf, str(path), chunk_size=400, n_features=40, zero_based=False)
    ref = mbcore.Winnow(features="real").partial_fit(X, y)
    assert stats.n == len(y) and stats.mistakes == ref.mistakes_
    assert np.array_equal(clf.log2_coef_, ref.log2_coef_)
    buf = io.BytesIO()
    n = predict_file(clf, str(path), buf, chunk_size=333)
    assert n == len(y)
    assert np.array_equal(np.array([float(t) for t in buf.getvalue().split()]), ref.predict(X))
    rep = evaluate_file(mbcore.Perceptron(), str(path), chunk_size=1000, n_features=40,
                        zero_based=False)
    assert rep.stats.mistakes == mbcore.Perceptron().partial_fit(X, y).mistakes_
    assert rep.lines[0][:2] == (1, int(mbcore.run_online(mbcore.Perceptron(), X[:1],
                                                         y[:1]).mistakes))
    assert rep.text().count("\n") == len(rep.lines)


def test_prefetch_keeps_order_carries_errors_and_stops_its_thread():
    assert list(prefetch(iter(range(50)), depth=3)) == list(range(50))

    def failing():
        yield 1
        yield 2
        raise ValueError("bad line 3")
    got = []
    with pytest.raises(ValueError, match="bad line 3"):
        for v in prefetch(failing()):
            got.append(v)
    assert got == [1, 2]
    before = threading.active_count()
    gen = prefetch(iter(range(10 ** 9)), depth=2)
    assert next(gen) == 0
    gen.close()                         # the consumer stops early: the producer is joined
    assert threading.active_count() == before
    with pytest.raises(ValueError, match="depth"):
        list(prefetch(iter([]), depth=0))


def test_parallel_parsing_changes_no_result(data, tmp_path, monkeypatch):
    """train_file / evaluate_file / predict_file with 1, 2 or 3 parsing threads over a file cut
    into many groups: the same model, mistakes, report and predictions."""
    from mbcore import _readers
    path, X, y = data
    monkeypatch.setattr(_readers, "BLOCK", 512)
    monkeypatch.setattr(_readers, "GROUP", 1500)
    results = []
    for workers in (1, 2, 3):
        clf = mbcore.AveragedPerceptron()
        stats = train_file(clf, str(path), passes=2, chunk_size=70, n_features=40,
                           zero_based=False, workers=workers)
        rep = evaluate_file(mbcore.Perceptron(), str(path), chunk_size=70, n_features=40,
                            zero_based=False, workers=workers)
        buf = io.BytesIO()
        predict_file(clf, str(path), buf, chunk_size=70, workers=workers)
        results.append((stats.n, stats.mistakes, clf.coef_.tobytes(), rep.lines,
                        buf.getvalue()))
        if workers > 1:
            assert stats.n_chunks > 2 * len(y) // 70      # chunks end at the groups' ends
    assert results[0] == results[1] == results[2]
    ref = mbcore.AveragedPerceptron().partial_fit(X, y).partial_fit(X, y)
    assert results[0][2] == ref.coef_.tobytes()


def test_workers_option(data, tmp_path):
    path, X, y = data
    models = []
    for extra in ([], ["--workers", "1"], ["--workers", "3"]):
        model = tmp_path / f"m{len(models)}.npz"
        assert cli("train", "--learner", "perceptron", "--data", path, "--model", model,
                   *extra).returncode == 0
        models.append(mbcore.load(model).coef_.tobytes())
    assert models[0] == models[1] == models[2]
    csv = tmp_path / "d.csv"
    csv.write_text("1,0,1\n0,1,-1\n")
    r = cli("train", "--learner", "perceptron", "--data", csv, "--model", tmp_path / "c.npz",
            "--workers", "2")
    assert r.returncode == 2 and b"--workers applies to svmlight input" in r.stderr
