"""The command line as a new user meets it, on files the project does not bundle (issue 36).

Each test is an edge a user met with mbcore 0.2.0 (the new-user trial): a model that forgot how
its data was read and predicted wrong with exit 0, errors naming the wrong row, the README's
own warm-start command failing, a model file answered with NumPy's advice to unpickle it, and
the small ways a message sent the user the wrong way.  Everything runs through the installed
``mbcore`` command in a subprocess, as a user runs it; the files are written by scikit-learn
(``dump_svmlight_file``) and pandas (``to_csv``) where a user's would be.
"""

import os
import pickle
import re
import shutil
import subprocess
import sysconfig
import sys
import tempfile

import numpy as np
import pytest

import mbcore
from mbcore.streaming import predict_file, train_file

EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")


def cli(*args, stdin=None, cwd=None):
    # (run outside the repository, as a user runs it: from its root, "python -m mbcore" would
    # import the source tree, whose kernels are not built when the package is installed)
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore"]
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, timeout=300,
                          input=stdin, cwd=tempfile.gettempdir() if cwd is None else cwd)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return r


def error(r, status=1):
    """The one line of a failed command (exit status ``status``)."""
    assert r.returncode == status, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    lines = r.stderr.decode().strip().splitlines()
    assert lines and lines[-1].startswith("mbcore: error: "), r.stderr
    assert not any("Traceback" in line for line in lines), r.stderr
    return lines[-1]


def labels_of(path):
    return [line.split()[0] for line in open(path) if line.strip() and not line.startswith("#")]


def accuracy(pred_bytes, truth):
    pred = pred_bytes.decode().split()
    assert len(pred) == len(truth)
    return float(np.mean([float(a) == float(b) for a, b in zip(pred, truth)]))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Digits written by scikit-learn, zero-based (pixel 0 is always 0: no "0:" anywhere, so
    nothing in the rows tells the base), and a boolean problem in one-based svmlight."""
    sk = pytest.importorskip("sklearn.datasets")
    d = tmp_path_factory.mktemp("user")
    Xd, yd = sk.load_digits(return_X_y=True)
    sk.dump_svmlight_file(Xd, yd, str(d / "digits0.svm"), zero_based=True)
    rng = np.random.default_rng(0)
    B = (rng.random((3000, 30)) < 0.15).astype(np.int64)
    yb = B[:, 0] | B[:, 1]
    sk.dump_svmlight_file(B, yb, str(d / "bool.svm"), zero_based=False)
    return d


# -- 1. a model remembers how its data was read ----------------------------------------------

def test_predict_reads_as_the_model_was_trained_zero_based(files, tmp_path):
    """0.2.0: trained with --zero-based, predicted without it: every feature one column off,
    accuracy 0.34 instead of 0.86, exit 0."""
    data = files / "digits0.svm"
    model = tmp_path / "dz.npz"
    ok(cli("train", "--learner", "perceptron", "--data", data, "--zero-based", "--passes", 3,
           "--model", model))
    plain = ok(cli("predict", "--model", model, "--data", data)).stdout
    flagged = ok(cli("predict", "--model", model, "--data", data, "--zero-based")).stdout
    assert plain == flagged
    assert accuracy(plain, labels_of(data)) > 0.8
    learner = mbcore.load(str(model))
    assert learner.reading_ == {"format": "svmlight", "zero_based": True}
    out = tmp_path / "api.txt"
    predict_file(learner, str(data), str(out))          # the Python API follows it too
    assert out.read_bytes() == plain


def test_vw_bits_are_recorded_and_a_contradicting_flag_is_refused(tmp_path):
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(40)]
    lines = []
    for _ in range(1500):
        act = [w for w in words if rng.random() < 0.15]
        lab = 1 if set(act) & {"w1", "w2", "w3"} else -1
        lines.append(f"{lab} | {' '.join(act)}")
    data = tmp_path / "t.vw"
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "v4.npz"
    ok(cli("train", "--learner", "perceptron", "--data", data, "--bits", 4, "--model", model))
    same = ok(cli("predict", "--model", model, "--data", data, "--bits", 4)).stdout
    default = ok(cli("predict", "--model", model, "--data", data)).stdout
    assert default == same
    line = error(cli("predict", "--model", model, "--data", data, "--bits", 18))
    assert "--bits 4" in line and "--bits 18" in line and "--override-reading" in line
    forced = ok(cli("predict", "--model", model, "--data", data, "--bits", 18,
                    "--override-reading")).stdout
    assert len(forced.split()) == 1500 and forced != same
    # and a model read from VW is not fed svmlight by mistake
    line = error(cli("predict", "--model", model, "--data", data, "--format", "csv"))
    assert "--format vw" in line and "--format csv" in line


def test_a_model_that_does_not_record_its_reading_says_so_once(files, tmp_path):
    """Files of 0.2.0 (and models trained from arrays) load; how their data was read is
    unknown: said once on stderr when a reading option is not given."""
    data = files / "bool.svm"
    model = tmp_path / "old.npz"
    X, y = mbcore.datasets.load_svmlight(str(data), n_features=30, zero_based=False)
    mbcore.Perceptron().fit(X, y).save(str(model))
    r = ok(cli("predict", "--model", model, "--data", data))
    warnings = [w for w in r.stderr.decode().splitlines() if w.startswith("mbcore: warning:")]
    assert len(warnings) == 1 and "does not record how its training data was read" in \
        warnings[0] and "--zero-based" in warnings[0]
    r = ok(cli("predict", "--model", model, "--data", data, "--zero-based"))
    assert b"does not record" not in r.stderr


def test_files_of_0_1_0_still_predict(tmp_path):
    from conftest import FILES_0_1_0
    paths = sorted(p for p in os.listdir(FILES_0_1_0) if p.endswith(".npz"))
    assert paths
    learner = mbcore.load(os.path.join(FILES_0_1_0, paths[0]))
    assert getattr(learner, "reading_", None) is None


# -- 2. an error the learner finds names the file and the line -------------------------------
# (the readers give each row's line: tests/io/test_readers.py; here the path a user meets)

def _bad_copy(src, dst, lineno, value):
    lines = open(src).read().splitlines()
    parts = lines[lineno - 1].split()
    parts[1] = parts[1].split(":")[0] + ":" + value
    lines[lineno - 1] = " ".join(parts)
    dst.write_text("\n".join(lines) + "\n")
    return dst


@pytest.mark.parametrize("learner,value", [("winnow", "2"), ("perceptron", "nan"),
                                           ("conjunction", "2"), ("perceptron", "inf")])
def test_an_error_of_the_learner_names_the_file_and_line(files, tmp_path, learner, value):
    """0.2.0 said "row 4153" of the current chunk (or of a shuffled buffer)."""
    data = _bad_copy(files / "bool.svm", tmp_path / "bad.svm", 2346, value)
    model = tmp_path / "m.npz"
    line = error(cli("train", "--learner", learner, "--data", data, "--model", model,
                     "--chunk-size", 1000))
    assert f"bad.svm, line 2,346" in line, line
    assert "row" not in line and "left as before" not in line
    assert "no model was written" in line
    assert not model.exists()


def test_the_shuffled_line_is_the_original_one(files, tmp_path):
    data = _bad_copy(files / "bool.svm", tmp_path / "bad.svm", 1717, "nan")
    for cmd in (["evaluate"], ["train", "--model", tmp_path / "m.npz"]):
        line = error(cli(*cmd, "--learner", "perceptron", "--data", data, "--shuffle",
                         "--seed", 5, "--chunk-size", 500))
        assert "bad.svm, line 1,717" in line, line


def test_predict_names_the_line_of_a_value_it_cannot_score(files, tmp_path):
    model = tmp_path / "m.npz"
    ok(cli("train", "--learner", "perceptron", "--data", files / "bool.svm", "--model", model))
    data = _bad_copy(files / "bool.svm", tmp_path / "bad.svm", 99, "nan")
    line = error(cli("predict", "--model", model, "--data", data))
    assert "bad.svm, line 99" in line, line


# -- 3. warm start ----------------------------------------------------------------------------

def test_the_readmes_warm_start_command(files, tmp_path):
    """`mbcore train --warm-start a9a.npz --data more.svm --model a9a2.npz` exited 2 with
    "--learner is required"; it continues the run exactly as one longer run."""
    data = files / "bool.svm"
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    ok(cli("train", "--learner", "winnow", "--data", data, "--model", first))
    ok(cli("train", "--warm-start", first, "--data", data, "--model", second))
    whole = mbcore.Winnow()
    train_file(whole, str(data), passes=2)
    again = mbcore.load(str(second))
    assert np.array_equal(again.coef_, whole.coef_) and again.n_seen_ == 6000
    line = error(cli("train", "--warm-start", first, "--learner", "perceptron", "--data",
                     data, "--model", second), 2)
    assert "Winnow" in line and "Perceptron" in line


def test_a_warm_start_on_other_data_is_refused_naming_both(files, tmp_path):
    """0.2.0 warm-started a 64-feature digits model on 30-feature data without a word."""
    model = tmp_path / "d.npz"
    ok(cli("train", "--learner", "perceptron", "--data", files / "digits0.svm", "--zero-based",
           "--model", model))
    out = tmp_path / "m.npz"
    line = error(cli("train", "--warm-start", model, "--data", files / "bool.svm", "--model",
                     out))
    assert "64" in line and "30" in line and not out.exists()
    line = error(cli("evaluate", "--warm-start", model, "--data", files / "bool.svm"))
    assert "64" in line and "30" in line


# -- 5. a file that is not a model ------------------------------------------------------------

@pytest.mark.parametrize("kind", ["text", "pickle", "svmlight", "empty"])
def test_a_file_that_is_not_a_model_is_named_for_what_it_is(files, tmp_path, kind):
    path = tmp_path / "m.npz"
    if kind == "text":
        path.write_text("hello\n")
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"a": 1}))
    elif kind == "svmlight":
        path = files / "bool.svm"
    else:
        path.write_bytes(b"")
    line = error(cli("predict", "--model", path, "--data", files / "bool.svm"))
    assert "allow_pickle" not in line and "pickle.load" not in line
    expected = {"text": "text file", "pickle": "a Python pickle", "svmlight": "text file",
                "empty": "empty"}[kind]
    assert expected in line, line
    with pytest.raises(mbcore.persistence.FormatError) as info:
        mbcore.load(str(path))
    assert "allow_pickle" not in str(info.value) and expected in str(info.value)


# -- the command line's edges -----------------------------------------------------------------

def test_classes_that_start_with_a_minus(files, tmp_path):
    """`--classes -1,1` was taken by argparse for an option (exit 2)."""
    data = tmp_path / "pm.svm"
    data.write_text("".join(f"{'1' if i % 7 else '-1'} 1:{i % 5} 2:1\n" for i in range(50)))
    ok(cli("train", "--learner", "perceptron", "--data", data, "--classes", "-1,1",
           "--chunk-size", 5, "--model", tmp_path / "m.npz"))
    assert mbcore.load(str(tmp_path / "m.npz")).classes_.tolist() == [-1.0, 1.0]


def test_train_warns_of_sorted_labels_and_shuffles(files, tmp_path):
    data = tmp_path / "sorted.svm"
    rows = sorted(open(files / "bool.svm").read().splitlines(), key=lambda s: s.split()[0])
    data.write_text("\n".join(rows) + "\n")
    r = ok(cli("train", "--learner", "perceptron", "--data", data, "--model",
               tmp_path / "m.npz"))
    assert b"mbcore: warning: the labels of" in r.stderr and b"--shuffle" in r.stderr
    r = ok(cli("train", "--learner", "perceptron", "--data", data, "--model",
               tmp_path / "m2.npz", "--shuffle", "--seed", 3))
    assert b"arrive sorted" not in r.stderr
    a, b = mbcore.load(str(tmp_path / "m.npz")), mbcore.load(str(tmp_path / "m2.npz"))
    assert not np.array_equal(a.coef_, b.coef_)
    ok(cli("train", "--learner", "perceptron", "--data", data, "--model",
           tmp_path / "m3.npz", "--shuffle", "--seed", 3))
    assert np.array_equal(mbcore.load(str(tmp_path / "m3.npz")).coef_, b.coef_)


@pytest.mark.parametrize("cmd", [["evaluate", "--learner", "perceptron"],
                                 ["train", "--learner", "perceptron", "--model", "x.npz"],
                                 ["run", "--no-twin", "--learner", "perceptron"]])
def test_seed_without_shuffle_is_a_usage_error(files, tmp_path, cmd):
    """0.2.0 ignored it silently."""
    data_option = "--dataset" if cmd[0] == "run" else "--data"
    line = error(cli(*cmd, data_option, files / "bool.svm", "--seed", 3, cwd=tmp_path), 2)
    assert "--shuffle" in line
    assert not (tmp_path / "x.npz").exists()


def test_predict_into_a_pipe_that_closes_exits_0_quietly(files, tmp_path):
    model = tmp_path / "m.npz"
    ok(cli("train", "--learner", "perceptron", "--data", files / "bool.svm", "--model", model))
    big = tmp_path / "big.svm"
    big.write_text(open(files / "bool.svm").read() * 20)
    cmd = " ".join([EXE or f"{sys.executable} -m mbcore", "predict", "--model", str(model),
                    "--data", str(big)])
    r = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd} | head -1"],
                       capture_output=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == b"" and len(r.stdout.split()) == 1


def test_python_dash_m_mbcore(tmp_path):
    # (from an empty folder, as a user runs it: from the repository root, -m would find the
    # source tree, whose kernels are not built when the package is installed)
    r = subprocess.run([sys.executable, "-m", "mbcore", "--version"], capture_output=True,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.decode().startswith("mbcore "), r.stderr


def test_an_unwritable_model_path_fails_before_training(files, tmp_path):
    """0.2.0 trained first, then named an internal temporary file."""
    missing = tmp_path / "no" / "such" / "m.npz"
    line = error(cli("train", "--learner", "perceptron", "--data", files / "bool.svm",
                     "--model", missing))
    assert str(missing) in line and ".tmp" not in line
    line = error(cli("train", "--learner", "perceptron", "--data", files / "bool.svm",
                     "--model", tmp_path))
    assert "is a folder" in line


def test_a_learner_warning_is_one_line(files):
    r = ok(cli("evaluate", "--learner", "conjunction", "--data", files / "bool.svm"))
    err = r.stderr.decode().splitlines()
    warned = [line for line in err if "LearnerWarning" in line or "warning" in line.lower()]
    assert warned and all(line.startswith("mbcore: warning: Conjunction:") for line in warned)
    assert not any("sys.exit" in line or "main()" in line for line in err)


_PYTHON_NAME = re.compile(r"\b(iter_svmlight|iter_csv|iter_vw|run_stream|train_file|"
                          r"predict_file|evaluate_file|read_chunks|load_svmlight|load_csv|"
                          r"load_[a-z]+|shuffle_chunks|zero_based=|skip_header=|"
                          r"label_column=|n_features=|classes=)")


def test_no_message_names_a_python_function(files, tmp_path):
    bc = tmp_path / "idx0.svm"
    bc.write_text("1 0:1 2:1\n-1 1:1\n")
    text = tmp_path / "t.csv"
    text.write_text("1,2,3\n4,x,6\n")
    twos = tmp_path / "twos.svm"
    twos.write_text("2 1:1\n2 1:1\n3 2:1\n")
    runs = [
        cli("train", "--learner", "perceptron", "--data", bc, "--model", tmp_path / "a.npz"),
        cli("train", "--learner", "perceptron", "--data", text, "--model", tmp_path / "a.npz"),
        cli("train", "--learner", "winnow", "--data", "-", "--model", tmp_path / "a.npz",
            stdin=b"1 1:1\n"),
        cli("train", "--learner", "perceptron", "--data", twos, "--chunk-size", 1, "--model",
            tmp_path / "a.npz"),
    ]
    for r, status in zip(runs, (1, 1, 2, 1)):
        line = error(r, status)
        assert not _PYTHON_NAME.search(line), line


# -- a new user's path, end to end ------------------------------------------------------------

def test_a_new_users_path_end_to_end(tmp_path):
    """Files the project does not bundle: scikit-learn's svmlight (zero-based, declared in its
    comment, then a test file that declares nothing), pandas' CSV (a header, the label first,
    then a test file without labels), Vowpal Wabbit's text hashed into 2**10 columns, and a
    pipe: train, predict, evaluate and warm start through the command, each prediction equal
    to the Python API's on the same files."""
    sk = pytest.importorskip("sklearn.datasets")
    pd = pytest.importorskip("pandas")
    from mbcore.streaming import evaluate_file, iter_svmlight, iter_csv
    d = tmp_path
    X, y = sk.load_breast_cancer(return_X_y=True)
    names = list(sk.load_breast_cancer().feature_names)
    a, b, t = slice(0, 300), slice(300, 450), slice(450, None)

    # 1. scikit-learn's svmlight, zero-based: its comment says so; the test file says nothing
    sk.dump_svmlight_file(X[a], y[a], str(d / "a.svm"), zero_based=True, comment="part a")
    sk.dump_svmlight_file(X[b], y[b], str(d / "b.svm"), zero_based=True, comment="part b")
    sk.dump_svmlight_file(X[t], y[t], str(d / "t.svm"), zero_based=True)
    ok(cli("train", "--learner", "passiveaggressive", "--data", d / "a.svm", "--model",
           d / "m1.npz"))
    ok(cli("train", "--warm-start", d / "m1.npz", "--data", "-", "--model", d / "m2.npz",
           stdin=(d / "b.svm").read_bytes()))                               # a pipe
    pred = ok(cli("predict", "--model", d / "m2.npz", "--data", d / "t.svm")).stdout
    learner = mbcore.PassiveAggressive()
    train_file(learner, str(d / "a.svm"))
    train_file(learner, str(d / "b.svm"))
    assert learner.reading_["zero_based"] is True
    (Xt, _), = iter_svmlight(str(d / "t.svm"), chunk_size=10 ** 6, n_features=30,
                             zero_based=True)
    assert pred.decode().split() == [str(int(p)) for p in learner.predict(Xt)]
    assert accuracy(pred, [str(int(v)) for v in y[t]]) > 0.8
    report = ok(cli("evaluate", "--warm-start", d / "m2.npz", "--data", d / "t.svm",
                    "--json")).stdout
    import json
    again = mbcore.load(str(d / "m2.npz"))
    ev = evaluate_file(again, str(d / "t.svm"))
    assert json.loads(report)["mistakes"] == ev.stats.mistakes

    # 2. pandas' CSV: a header, the label first; the test rows without labels
    frame = pd.DataFrame(X, columns=names)
    frame.insert(0, "label", y)
    frame.iloc[:450].to_csv(d / "bc.csv", index=False)
    frame.iloc[450:, 1:].to_csv(d / "bc_test.csv", index=False)
    ok(cli("train", "--learner", "perceptron", "--data", d / "bc.csv", "--label-column", 0,
           "--model", d / "c.npz"))
    assert mbcore.load(str(d / "c.npz")).n_features_in_ == 30
    pred = ok(cli("predict", "--model", d / "c.npz", "--data", d / "bc_test.csv",
                  "--no-label")).stdout
    learner = mbcore.Perceptron()
    train_file(learner, str(d / "bc.csv"), format="csv", label_column=0)
    (Xc, _), = iter_csv(str(d / "bc_test.csv"), chunk_size=10 ** 6, label_column=None)
    assert pred.decode().split() == [str(int(p)) for p in learner.predict(Xc)]

    # 3. Vowpal Wabbit's text in 2**10 columns: predict needs no --bits
    with open(d / "bc.vw", "w") as f:
        for row, label in zip(X, y):
            f.write(f"{2 * label - 1} |f " + " ".join(f"{n.replace(' ', '_')}:{float(v)!r}"
                                                     for n, v in zip(names, row)) + "\n")
    ok(cli("train", "--learner", "perceptron", "--data", d / "bc.vw", "--bits", 10,
           "--model", d / "v.npz"))
    pred = ok(cli("predict", "--model", d / "v.npz", "--data", "-",      # the format recorded
                  stdin=(d / "bc.vw").read_bytes())).stdout
    learner = mbcore.Perceptron()
    train_file(learner, str(d / "bc.vw"), format="vw", bits=10)
    out = d / "api.txt"
    predict_file(learner, str(d / "bc.vw"), str(out))
    assert pred == out.read_bytes() and learner.n_features_in_ == 1024


def test_a_csv_whose_label_column_holds_reals_points_to_label_column(tmp_path):
    """pandas' CSV with the label first: 0.2.0 said to pass classes= (a Python spelling,
    and the wrong way: the labels are in another column)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    frame.insert(0, "label", (frame["a"] > 0).astype(int))
    frame.to_csv(tmp_path / "x.csv", index=False)
    line = error(cli("train", "--learner", "perceptron", "--data", tmp_path / "x.csv",
                     "--model", tmp_path / "m.npz"))
    assert "--label-column" in line and "classes=" not in line
    ok(cli("train", "--learner", "perceptron", "--data", tmp_path / "x.csv", "--label-column",
           0, "--model", tmp_path / "m.npz"))
    assert mbcore.load(str(tmp_path / "m.npz")).n_features_in_ == 4


def test_the_data_commands_name_the_line_and_follow_the_one_zero_based_rule(files, tmp_path):
    data = _bad_copy(files / "bool.svm", tmp_path / "bad.svm", 1234, "nan")
    for cmd in ("run", "certify", "plot"):
        extra = ["--out", tmp_path / "p.png"] if cmd == "plot" else []
        line = error(cli(cmd, "--dataset", data, "--learner", "perceptron", *extra))
        assert "bad.svm, line 1,234" in line, line
    idx0 = tmp_path / "idx0.svm"
    idx0.write_text("1 0:1 2:1\n-1 1:1\n" * 60)
    line = error(cli("run", "--dataset", idx0, "--learner", "perceptron", "--no-twin"))
    assert "line 1" in line and "--zero-based" in line
    ok(cli("run", "--dataset", idx0, "--learner", "perceptron", "--no-twin", "--zero-based"))


# -- the recorded reading in the file format --------------------------------------------------

def _with_reading(files, tmp_path):
    import io
    learner = mbcore.Perceptron()
    train_file(learner, str(files / "bool.svm"))
    buf = io.BytesIO()
    learner.save(buf)
    return learner, buf.getvalue()


def test_the_reading_round_trips_and_a_crafted_one_is_refused(files, tmp_path):
    """reading_ is state like any other: saved, loaded equal, and checked on loading (a crafted
    file whose digests are recomputed is refused when its reading is not one of the readers')."""
    import copy
    import io
    from _persistence_cases import read_file, write_file
    learner, data = _with_reading(files, tmp_path)
    assert mbcore.load(io.BytesIO(data)).reading_ == learner.reading_ == {
        "format": "svmlight", "zero_based": False}
    meta, arrays = read_file(data)
    stored = meta["learner"]["state"]["reading_"]
    assert stored["$"] == "tuple"
    bad_values = [
        {"$": "tuple", "items": [{"$": "tuple", "items": ["format", "svmlight"]},
                                 {"$": "tuple", "items": ["rm -rf", True]}]},     # unknown
        {"$": "tuple", "items": [{"$": "tuple", "items": ["zero_based", True]}]},  # no format
        {"$": "tuple", "items": [{"$": "tuple", "items": ["format", [1, 2]]}]},     # a list
        "svmlight",
    ]
    for bad in bad_values:
        crafted = copy.deepcopy(meta)
        crafted["learner"]["state"]["reading_"] = bad
        with pytest.raises(mbcore.persistence.FormatError, match="reading_"):
            mbcore.load(io.BytesIO(write_file(crafted, dict(arrays))))
    # a file without it (as 0.2.0 wrote) loads, its reading unknown
    crafted = copy.deepcopy(meta)
    del crafted["learner"]["state"]["reading_"]
    assert getattr(mbcore.load(io.BytesIO(write_file(crafted, dict(arrays)))), "reading_",
                   None) is None


def test_a_warm_start_refuses_a_reading_option_before_its_width(files, tmp_path):
    """The contradiction is what the user did: it is named, not a width it caused."""
    model = tmp_path / "b.npz"
    ok(cli("train", "--learner", "perceptron", "--data", files / "bool.svm", "--model", model))
    line = error(cli("train", "--warm-start", model, "--data", files / "bool.svm",
                     "--zero-based", "--model", tmp_path / "c.npz"))
    assert "--zero-based" in line and "one-based" in line and "largest index" not in line
    ok(cli("train", "--warm-start", model, "--data", files / "bool.svm", "--model",
           tmp_path / "c.npz"))


def test_predict_on_csv_rows_without_labels_points_to_no_label(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["label"] = (frame["a"] > 0).astype(int)
    frame.to_csv(tmp_path / "x.csv", index=False)
    frame[["a", "b", "c"]].to_csv(tmp_path / "x_test.csv", index=False)
    model = tmp_path / "m.npz"
    ok(cli("train", "--learner", "perceptron", "--data", tmp_path / "x.csv", "--model", model))
    line = error(cli("predict", "--model", model, "--data", tmp_path / "x_test.csv"))
    assert "--no-label" in line
    out = ok(cli("predict", "--model", model, "--data", tmp_path / "x_test.csv", "--no-label"))
    assert len(out.stdout.split()) == 120
