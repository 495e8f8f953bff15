"""``mbcore evaluate --ask B``: selective sampling from the command line (the labels asked
against the mistakes), run as a user would (a subprocess on the console script)."""

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
    a, b = got["curve"]
    assert a["labels_asked"] < b["labels_asked"]


def test_the_table_names_each_b_and_its_share_of_the_labels(a9a_file):
    out = run_cli("evaluate", "--data", a9a_file[0], "--ask", "1", "--learner",
                  "PassiveAggressive", "--param", "C=0.5")
    assert out.returncode == 0, out.stderr
    assert "PassiveAggressive, --ask 1:" in out.stdout
    assert "labels asked" in out.stdout and "% of the labels)" in out.stdout


@pytest.mark.parametrize("args,match", [
    (["--ask", "0"], "expected a real number > 0, got '0'"),
    (["--ask", "nan"], "expected a real number > 0, got 'nan'"),
    (["--ask", "1", "--model", "m.npz"], "--ask and --model"),
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
