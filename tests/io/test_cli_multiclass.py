"""The shell workflow on data of K >= 3 classes, through the installed `mbcore` command.

`run`/`certify`/`plot`/`bench --dataset mnist` without --digit run the ten digits (the learners
that take K classes; the two-class learners are left out with a note, or marked n/a when named);
`--digit D` still gives digit D against the rest; `train`/`predict`/`evaluate` on 3-class
svmlight (numeric labels) and CSV (string labels) files save, predict (labels, or with --raw
the K scores per line in the order of classes_) and count exactly what the library gives on
the same rows; `--classes` takes every label when the first chunk shows one.
"""

import json
import re
import shutil
import subprocess
import sysconfig
import sys

import numpy as np
import pytest

import mbcore
from mbcore.cli import LEARNERS
from mbcore.datasets import load_csv, load_mnist
from mbcore.streaming import iter_svmlight

from _cases import EXISTING

EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")
NAMES = np.array(["cat", "dog", "emu"])
FIRST = 50                   # the files start with this many rows of the label 2 ("dog")


def cli(*args):
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True,
                          timeout=300)


def one_line_error(r, status, *words):
    assert r.returncode == status, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mbcore: error:"), r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 3-class problem (labels 1, 2, 3: the argmax of three linear scores) as svmlight with
    numeric labels and as CSV with the labels cat, dog, emu; the first FIRST rows all of label
    2.  Returns the paths and the rows as the readers give them."""
    tmp = tmp_path_factory.mktemp("mc")
    rng = np.random.default_rng(7)
    n, d = 600, 6
    X = np.round(rng.normal(size=(n, d)), 3)
    X[rng.random(size=(n, d)) < 0.2] = 0.0
    y = np.argmax(X @ rng.normal(size=(3, d)).T, axis=1) + 1
    two = np.flatnonzero(y == 2)[:FIRST]
    order = np.r_[two, np.setdiff1d(np.arange(n), two)]
    X, y = X[order], y[order]
    svm, csv = tmp / "three.svm", tmp / "three.csv"
    svm.write_text("".join(f"{lab} " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row)
                                                 if v != 0) + "\n"
                           for row, lab in zip(X, y)))
    csv.write_text("".join(",".join(f"{v:g}" for v in row) + f",{NAMES[lab - 1]}\n"
                           for row, lab in zip(X, y)))
    (Xs, ys), = iter_svmlight(str(svm), chunk_size=10 ** 6, n_features=d, zero_based=False)
    Xc, yc = load_csv(str(csv))
    assert sorted(set(ys.tolist())) == [1.0, 2.0, 3.0]
    assert yc.tolist() == NAMES[y - 1].tolist()
    return {"svm": svm, "csv": csv, "X": Xs.to_scipy(), "y": ys, "Xc": Xc, "yc": yc, "tmp": tmp}


# -- run / certify / plot / bench on mnist ------------------------------------------------------

def test_run_mnist_is_ten_classes_and_counts_what_the_library_counts():
    r = cli("run", "--dataset", "mnist", "--learner", "Perceptron", "OnlineHingeSVM", "--json",
            "--twin-rows", "50")
    assert r.returncode == 0, r.stderr
    recs = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    X, y = load_mnist()
    for name in ("Perceptron", "OnlineHingeSVM"):
        rec = recs[name]
        ref = mbcore.run_online(getattr(mbcore, name)(), X, y)
        assert rec["applicable"] is True and rec["n_classes"] == 10
        assert (rec["mistakes"], rec["updates"]) == (ref.mistakes, ref.updates)
        assert 0 < ref.mistakes < len(y)
        cert = mbcore.certify(getattr(mbcore, name)(), X, y, classes=list(range(10)))
        if cert.bound is None:                       # the bound column shows what certify says
            assert rec["bound"] is None and rec["bound_note"].startswith(cert.reason)
        else:
            assert rec["bound"] == pytest.approx(cert.bound)
            assert rec["within_bound"] is (rec[rec["bound_counts"]] <= cert.bound)
        assert rec["twin_agrees"] is True and rec["twin_rows"] == 50


@pytest.mark.longrun       # (28 s of child processes: every K-class learner's default run)
def test_run_mnist_default_runs_the_k_class_learners_and_names_the_others():
    r = cli("run", "--dataset", "mnist", "--no-twin")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "10 classes" in out.splitlines()[0]
    X, y = load_mnist()
    table = out.split("\n\n")[1]              # (the learners' table; the per-class one follows)
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()
            and line.split()[0] in LEARNERS}
    note = next(line for line in out.splitlines() if line.startswith("Not run on mnist (10 "
                                                                     "classes): "))
    # every learner of the command either ran or is named in the note (a new one too), and
    # the learners that existed ran as before (fixed facts)
    assert set(rows) == {n for n in LEARNERS if not re.search(rf"\b{n}\b", note)}
    assert {n for n in rows if n in EXISTING} == {
        "Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
        "OnlineHingeSVM", "PassiveAggressive"}
    for name, cells in rows.items():
        ref = mbcore.run_online(getattr(mbcore, name)(), X, y)
        assert (int(cells[1]), int(cells[2])) == (ref.mistakes, ref.updates)
    # (the note's lists of names read as for the learners that existed: fixed sentences)
    note = re.sub(r"((?:[A-Z]\w*, )*[A-Z]\w*)(?= take )", lambda m: ", ".join(
        n for n in m.group(1).split(", ") if n in EXISTING), note)
    assert "Conjunction, Disjunction, DecisionList take two classes only" in note
    assert "--digit D" in note
    # the Winnow family takes the ten classes, but 0/1 features only: each with the options
    # that would include it (Winnow and BalancedWinnow also take real values)
    assert ("Winnow, BalancedWinnow take 0/1 features and the data is real-valued "
            "(--encoding boolean or --param features=real)") in note
    assert ("EliminationWinnow, WinnowStar take 0/1 features and the data is real-valued "
            "(--encoding boolean)") in note


def test_run_mnist_boolean_runs_the_winnow_family_on_ten_classes():
    r = cli("run", "--dataset", "mnist", "--encoding", "boolean", "--learner", "winnow",
            "balancedwinnow", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    X, y = load_mnist(encoding="boolean")
    for rec in json.loads(r.stdout):
        ref = mbcore.run_online(getattr(mbcore, rec["learner"])(), X, y)
        assert rec["applicable"] is True and rec["n_classes"] == 10
        assert (rec["mistakes"], rec["updates"]) == (ref.mistakes, ref.updates)


def test_run_mnist_json_lists_the_two_class_learners_as_not_applicable():
    r = cli("run", "--dataset", "mnist", "--learner", "perceptron", "decisionlist",
            "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    perc, win = json.loads(r.stdout)
    assert perc["learner"] == "Perceptron" and perc["applicable"] is True
    assert win["learner"] == "DecisionList" and win["applicable"] is False
    assert win["mistakes"] is None and "two classes only" in win["reason"]
    assert win["reason"].startswith("not applicable to 10 classes")


def test_run_mnist_digit_is_still_one_against_the_rest():
    r = cli("run", "--dataset", "mnist", "--digit", "3", "--encoding", "boolean", "--learner",
            "perceptron", "winnow", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    X, y = load_mnist(digit=3, encoding="boolean")
    assert sorted(set(y.tolist())) == [0, 1]
    recs = json.loads(r.stdout)
    assert [rec["learner"] for rec in recs] == ["Perceptron", "Winnow"]
    for rec in recs:
        ref = mbcore.run_online(getattr(mbcore, rec["learner"])(), X, y)
        assert rec["applicable"] is True and rec["n_classes"] == 2
        assert (rec["mistakes"], rec["updates"]) == (ref.mistakes, ref.updates)
        assert rec["bound"] is not None and rec["mistakes"] <= rec["bound"]


def test_certify_mnist_multiclass():
    r = cli("certify", "--dataset", "mnist", "--learner", "perceptron", "decisionlist",
            "--json")
    assert r.returncode == 0, r.stderr
    perc, win = json.loads(r.stdout)
    X, y = load_mnist()
    cert = mbcore.certify(mbcore.Perceptron(), X, y, classes=list(range(10)))
    assert perc["observed"] == cert.observed == mbcore.run_online(mbcore.Perceptron(), X,
                                                                  y).mistakes
    assert perc["bound"] == (None if cert.bound is None else pytest.approx(cert.bound))
    assert perc["n_classes"] == 10 and win["applicable"] is False
    table = cli("certify", "--dataset", "mnist", "--learner", "perceptron", "decisionlist")
    assert table.returncode == 0, table.stderr
    assert f"Perceptron: {cert.observed} mistakes on 1000 examples" in table.stdout
    assert ("DecisionList: not applicable to 10 classes: DecisionList takes two classes only"
            in table.stdout)


def test_plot_mnist_multiclass(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "m.png"
    r = cli("plot", "--dataset", "mnist", "--learner", "perceptron", "decisionlist", "--out",
            out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "not drawn: DecisionList: not applicable to 10 classes" in r.stdout


def test_bench_mnist_multiclass():
    r = cli("bench", "--dataset", "mnist", "--learner", "perceptron", "conjunction",
            "--twin-rows", "50", "--json")
    assert r.returncode == 0, r.stderr
    perc, conj = json.loads(r.stdout)
    assert perc["applicable"] is True and perc["examples_per_second"] > 0
    assert conj["applicable"] is False and "two classes only" in conj["reason"]


# -- a two-class learner on 3-class data --------------------------------------------------------

def test_a_two_class_learner_on_three_classes_is_a_clear_line(files):
    svm = files["svm"]
    r = cli("run", "--dataset", svm, "--learner", "decisionlist", "perceptron", "--no-twin")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("DecisionList"))
    assert row.split()[1:4] == ["-", "-", "n/a"]
    mark = row.split()[4]                                     # the footnote, e.g. [2]
    note = next(line for line in r.stdout.splitlines() if line.startswith(mark + " "))
    assert note == f"{mark} not applicable to 3 classes: DecisionList takes two classes only"
    perc = next(line for line in r.stdout.splitlines() if line.startswith("Perceptron"))
    ref = mbcore.run_online(mbcore.Perceptron(), *mbcore.datasets.load_svmlight(str(svm)))
    assert int(perc.split()[1]) == ref.mistakes
    # only two-class learners: nothing ran, exit 1 with one line naming the way out
    one_line_error(cli("run", "--dataset", svm, "--learner", "conjunction", "decisionlist"), 1,
                   "three.svm has 3 classes", "Conjunction, DecisionList take two classes only",
                   "Perceptron")
    one_line_error(cli("train", "--learner", "averagedperceptron", "--param", "mode=vote",
                       "--data", svm, "--model", files["tmp"] / "w.npz"), 1,
                   "AveragedPerceptron", "more than two labels")
    one_line_error(cli("evaluate", "--learner", "averagedperceptron", "--param", "mode=vote",
                       "--data", files["csv"]), 1, "AveragedPerceptron", "more than two labels")
    r = cli("run", "--dataset", svm, "--learner", "averagedperceptron", "perceptron",
            "--param", "mode=vote", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    avg, perc = json.loads(r.stdout)
    assert avg["applicable"] is False and "mode='vote'" in avg["reason"]
    assert perc["mistakes"] == ref.mistakes


# -- train -> predict -> evaluate -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["Perceptron", "MarginPerceptron", "OnlineHingeSVM",
                                  "AveragedPerceptron"])
def test_svmlight_three_classes_train_predict_evaluate(files, name):
    svm, X, y, tmp = files["svm"], files["X"], files["y"], files["tmp"]
    model = tmp / f"{name}.npz"
    r = cli("train", "--learner", name, "--data", svm, "--model", model, "--chunk-size", 64,
            "--json")
    assert r.returncode == 0, r.stderr
    ref = getattr(mbcore, name)().partial_fit(X, y)
    got = mbcore.load(model)
    assert got.classes_.tolist() == [1.0, 2.0, 3.0]
    assert got.coef_.shape == (3, X.shape[1])
    assert np.array_equal(got.coef_, ref.coef_) and np.array_equal(got.intercept_,
                                                                   ref.intercept_)
    assert json.loads(r.stdout)["mistakes"] == ref.mistakes_
    # predict: the labels as written, one per line
    r = cli("predict", "--model", model, "--data", svm)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")[:-1]
    assert set(lines) <= {"1", "2", "3"} and len(set(lines)) >= 2
    assert np.array_equal(np.array(lines, dtype=float), ref.predict(X))
    # --raw: the K scores of each row, in the order of classes_, exact to the last bit
    r = cli("predict", "--model", model, "--data", svm, "--raw")
    assert r.returncode == 0, r.stderr
    scores = np.array([[float(t) for t in line.split(" ")] for line in
                       r.stdout.split("\n")[:-1]])
    assert scores.shape == (len(y), 3)
    assert np.array_equal(scores, ref.decision_function(X))
    assert np.array_equal(got.classes_[np.argmax(scores, axis=1)], ref.predict(X))
    # evaluate: progressive mistakes, as run_online counts them
    r = cli("evaluate", "--learner", name, "--data", svm, "--chunk-size", 100, "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    curve = mbcore.run_online(getattr(mbcore, name)(), X, y).mistake_curve
    assert summary["mistakes"] == int(curve[-1]) == ref.mistakes_
    assert all(m == int(curve[n - 1]) for n, m, _, _ in summary["report"])


def test_csv_string_labels_train_predict_evaluate(files):
    csv, X, y, tmp = files["csv"], files["Xc"], files["yc"], files["tmp"]
    model = tmp / "c.npz"
    r = cli("train", "--learner", "perceptron", "--data", csv, "--model", model)
    assert r.returncode == 0, r.stderr
    ref = mbcore.Perceptron().partial_fit(X, y)
    got = mbcore.load(model)
    assert got.classes_.tolist() == ["cat", "dog", "emu"]
    assert np.array_equal(got.coef_, ref.coef_)
    out = tmp / "pred.txt"
    r = cli("predict", "--model", model, "--data", csv, "--out", out)
    assert r.returncode == 0, r.stderr
    pred = out.read_text().split("\n")[:-1]
    assert pred == ref.predict(X).tolist() and set(pred) == {"cat", "dog", "emu"}
    r = cli("predict", "--model", model, "--data", csv, "--raw")
    scores = np.array([line.split(" ") for line in r.stdout.split("\n")[:-1]], dtype=float)
    assert scores.shape == (len(y), 3) and np.array_equal(scores, ref.decision_function(X))
    r = cli("evaluate", "--learner", "perceptron", "--data", csv, "--json")
    assert r.returncode == 0, r.stderr
    run = mbcore.run_online(mbcore.Perceptron(), X, y)
    summary = json.loads(r.stdout)
    assert summary["mistakes"] == run.mistakes == ref.mistakes_
    assert summary["report"][-1][:2] == [len(y), run.mistakes]
    # warm start on the same file: like two passes of partial_fit
    r = cli("train", "--learner", "perceptron", "--warm-start", model, "--data", csv,
            "--model", tmp / "c2.npz")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(mbcore.load(tmp / "c2.npz").coef_,
                          mbcore.Perceptron().partial_fit(X, y).partial_fit(X, y).coef_)


# -- --classes ------------------------------------------------------------------------------------

def test_classes_with_three_labels_when_the_first_chunk_holds_one(files):
    svm, X, y, tmp = files["svm"], files["X"], files["y"], files["tmp"]
    assert set(y[:FIRST].tolist()) == {2.0}
    chunked = ("--chunk-size", 20, "--workers", 1)
    one_line_error(cli("train", "--learner", "perceptron", "--data", svm, "--model",
                       tmp / "x.npz", *chunked), 1, "first chunk holds a single label",
                   "--classes")
    assert not (tmp / "x.npz").exists()
    model = tmp / "k.npz"
    r = cli("train", "--learner", "perceptron", "--data", svm, "--model", model, *chunked,
            "--classes", "1,2,3")
    assert r.returncode == 0, r.stderr
    ref = mbcore.Perceptron().partial_fit(X, y)
    got = mbcore.load(model)
    assert got.classes_.tolist() == [1.0, 2.0, 3.0] and np.array_equal(got.coef_, ref.coef_)
    r = cli("evaluate", "--learner", "perceptron", "--data", svm, *chunked, "--classes",
            "3,1,2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mistakes"] == ref.mistakes_
    # a streamed run (--chunk-size), and the CSV's string labels
    r = cli("run", "--dataset", svm, "--chunk-size", 20, "--learner", "perceptron",
            "marginperceptron", "--classes", "1,2,3", "--json", "--twin-rows", 40)
    assert r.returncode == 0, r.stderr
    for rec in json.loads(r.stdout):
        run = mbcore.run_online(getattr(mbcore, rec["learner"])(), X, y)
        assert (rec["mistakes"], rec["updates"], rec["n_classes"]) == (run.mistakes,
                                                                        run.updates, 3)
    r = cli("train", "--learner", "perceptron", "--data", files["csv"], "--model",
            tmp / "kc.npz", "--chunk-size", 20, "--classes", "cat,dog,emu")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(mbcore.load(tmp / "kc.npz").coef_,
                          mbcore.Perceptron().partial_fit(files["Xc"], files["yc"]).coef_)


def test_a_label_first_seen_after_the_first_chunk_asks_for_classes(files):
    """The first 60 rows show 2 labels only: a learner that took its classes from them meets
    the third later; the message says to pass --classes."""
    svm, tmp = files["svm"], files["tmp"]
    lines = svm.read_text().splitlines(keepends=True)
    ones, twos, threes = ([ln for ln in lines if ln.split()[0] == c] for c in "123")
    two = [ln for pair in zip(ones, twos) for ln in pair]          # 1, 2, 1, 2, ...
    path = tmp / "late.svm"
    path.write_text("".join(two[:60] + threes[:5] + two[60:]))
    one_line_error(cli("train", "--learner", "perceptron", "--data", path, "--model",
                       tmp / "late.npz", "--chunk-size", 30, "--workers", 1), 1,
                   "[3.0]", "earlier chunks did not show", "--classes")


@pytest.mark.parametrize("text", ["1", "1,1", "1,,2"])
def test_classes_needs_two_or_more_labels(files, text):
    one_line_error(cli("train", "--learner", "perceptron", "--data", files["svm"], "--model",
                       files["tmp"] / "z.npz", "--classes", text), 2, "--classes")


def test_classes_must_be_numbers_for_numeric_labels(files):
    one_line_error(cli("train", "--learner", "perceptron", "--data", files["svm"], "--model",
                       files["tmp"] / "z.npz", "--classes", "cat,2,3"), 1, "'cat'",
                   "not a number")
