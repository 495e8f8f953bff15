"""``mbcore explain``, run as a user would (a child process), on a small svmlight file with a
comment and a blank line: the example's line, the training examples by their lines, --json,
the errors.  (A few cases: each is a child process.)"""

import json
import subprocess
import sys

import numpy as np
import pytest

import mbcore

# y = +1 iff feature 1 or feature 2 is on (a disjunction Winnow learns), 4 features
ROWS = [([1], 1), ([3], -1), ([2, 3], 1), ([4], -1), ([3, 4], -1), ([1, 4], 1), ([2], 1),
        ([3], -1)]
# the file's lines: a comment (1), the rows 0-3 (lines 2-5), a blank line (6), rows 4-7 (7-10)
LINE_OF_ROW = [2, 3, 4, 5, 7, 8, 9, 10]


def _write(path):
    text = ["# a disjunction of features 1 and 2"]
    for r, (feats, y) in enumerate(ROWS):
        if r == 4:
            text.append("")
        text.append(f"{y:+d} " + " ".join(f"{j}:1" for j in feats))
    path.write_text("\n".join(text) + "\n")


def _dense():
    X = np.zeros((len(ROWS), 4), dtype=np.uint8)
    for r, (feats, _) in enumerate(ROWS):
        X[r, [j - 1 for j in feats]] = 1
    return X, np.array([y for _, y in ROWS])


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "mbcore", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("explain")
    _write(d / "d.svm")
    r = cli("train", "--learner", "winnow", "--data", "d.svm", "--model", "w.npz",
            "--n-features", "4", "--param", "record_updates=true", "--param", "theta=2",
            cwd=d)
    assert r.returncode == 0, r.stderr
    return d


def test_json_names_the_training_examples_by_their_lines(trained):
    r = cli("explain", "--model", "w.npz", "--data", "d.svm", "--line", "9", "--json",
            cwd=trained)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # the same run in the library, row by row: the record's rows, mapped to the file's lines
    X, y = _dense()
    w = mbcore.Winnow(theta=2, record_updates=True).partial_fit(X, y)
    e = mbcore.explain(w, X[6], X_train=X)
    assert out["prediction"] == 1 and out["score"] == e.score and out["check"] is True
    want = {LINE_OF_ROW[i]: p for i, p, _ in e.top_examples()}
    assert {x["line"]: x["part"] for x in out["top_examples"]} == want
    assert set(want) <= set(LINE_OF_ROW) and 6 not in want and 1 not in want
    # features as the file writes them (one-based): row 6 is "+1 2:1"
    assert [f["feature"] for f in out["top_features"]] == ["2"]


def test_text_output_and_the_errors(trained):
    r = cli("explain", "--model", "w.npz", "--data", "d.svm", "--line", "9", "--top", "2",
            cwd=trained)
    assert r.returncode == 0, r.stderr
    assert "on line 9 of d.svm: predicts 1" in r.stdout
    assert "top training examples by line of d.svm" in r.stdout
    for line, msg in ((1, "--line 1: line 1 of d.svm is a comment"),
                      (6, "--line 6: line 6 of d.svm is blank"),
                      (11, "--line 11: d.svm has 10 lines")):
        r = cli("explain", "--model", "w.npz", "--data", "d.svm", "--line", str(line),
                cwd=trained)
        assert r.returncode == 1 and msg in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_a_model_without_the_record(trained):
    r = cli("train", "--learner", "winnow", "--data", "d.svm", "--model", "plain.npz",
            "--n-features", "4", cwd=trained)
    assert r.returncode == 0, r.stderr
    r = cli("explain", "--model", "plain.npz", "--data", "d.svm", "--line", "2", cwd=trained)
    assert r.returncode == 1
    assert "Winnow was trained without the record of its updates" in r.stderr
    assert "--param record_updates=true" in r.stderr and "pickle" not in r.stderr
    r = cli("explain", "--model", "plain.npz", "--data", "d.svm", "--line", "2",
            "--features-only", cwd=trained)
    assert r.returncode == 0, r.stderr
    assert "top training examples" not in r.stdout


def test_an_additive_model_of_two_passes_sums_each_line(trained):
    r = cli("train", "--learner", "perceptron", "--data", "d.svm", "--model", "p.npz",
            "--n-features", "4", "--param", "record_updates=true", "--passes", "2",
            cwd=trained)
    assert r.returncode == 0, r.stderr
    r = cli("explain", "--model", "p.npz", "--data", "d.svm", "--line", "3", "--json",
            cwd=trained)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # the library on the stream the model read: the file's rows twice
    X, y = _dense()
    X = X.astype(float)
    p = mbcore.Perceptron(record_updates=True).partial_fit(X, y).partial_fit(X, y)
    e = mbcore.explain(p, X[1], X_train=np.vstack([X, X]))
    per_line = {}
    for i, part, _ in e.top_examples(100):
        per_line.setdefault(LINE_OF_ROW[i % len(ROWS)], []).append(part)
    # each line's parts summed; a line whose updates are orthogonal to x (all parts 0) is left
    # out
    want = {line: sum(p) for line, p in per_line.items() if any(p)}
    assert {x["line"]: x["part"] for x in out["top_examples"]} == want
    assert len(want) < len(per_line)          # (this stream has such a line)
    assert out["score"] == e.score and out["check"] is True


def test_csv_features_named_by_the_header(tmp_path):
    (tmp_path / "d.csv").write_text("label,a,b,c,d\n1,1,0,0,0\n-1,0,0,1,0\n1,0,1,1,0\n"
                                     "-1,0,0,0,1\n")
    r = cli("train", "--learner", "perceptron", "--data", "d.csv", "--model", "p.npz",
            "--label-column", "0", "--param", "record_updates=true", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = cli("explain", "--model", "p.npz", "--data", "d.csv", "--line", "4", "--json",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # which features weigh: the library's explanation of the same run; their names by hand
    # (the label is column 0, so feature i is the file's column i + 1, named by the header)
    X = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1]], dtype=float)
    e = mbcore.explain(mbcore.Perceptron(record_updates=True).partial_fit(
        X, [1, -1, 1, -1]), X[2], X_train=X)
    named = {0: "a (column 1)", 1: "b (column 2)", 2: "c (column 3)", 3: "d (column 4)"}
    assert [f["feature"] for f in out["top_features"]] == \
        [named[i] for i, p, _ in e.top_features() if p != 0.0]
    r = cli("explain", "--model", "p.npz", "--data", "d.csv", "--line", "1", cwd=tmp_path)
    assert r.returncode == 1 and "line 1 of d.csv is the header" in r.stderr
