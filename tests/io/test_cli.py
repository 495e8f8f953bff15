"""The installed `mbcore` command, run as a user would (a subprocess on the console script)."""

import json
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import mbcore
import mbcore.cli
from mbcore.datasets import load_mushrooms

# where pip puts this interpreter's commands (an environment's bin/, on PATH only once it is
# activated: `venv/bin/python -m pytest` runs without), else wherever PATH finds it
EXE = shutil.which("mbcore", path=sysconfig.get_path("scripts")) or shutil.which("mbcore")


def run_cli(*args):
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300)


@pytest.mark.smoke
def test_console_script_is_installed():
    assert EXE is not None, "pip install should put the `mbcore` command on PATH"


@pytest.mark.smoke
def test_run_json_matches_the_library():
    r = run_cli("run", "--learner", "Perceptron", "--learner", "MarginPerceptron", "--json",
                "--twin-rows", "200")
    assert r.returncode == 0, r.stderr
    rows = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    X, y = load_mushrooms()
    for name in ("Perceptron", "MarginPerceptron"):
        run = mbcore.run_online(getattr(mbcore, name)(), X, y)
        assert rows[name]["mistakes"] == run.mistakes
        assert rows[name]["updates"] == run.updates
        assert rows[name]["twin_agrees"] is True
    # mushrooms is separable: the Perceptron's bound is reported, and it holds.
    assert rows["Perceptron"]["bound"] is not None
    assert rows["Perceptron"]["mistakes"] <= rows["Perceptron"]["bound"]


@pytest.mark.smoke
def test_run_default_table_names_every_learner():
    r = run_cli("run", "--twin-rows", "100")
    assert r.returncode == 0, r.stderr
    for name in mbcore.__all__[:5]:
        assert name in r.stdout


def test_run_on_a_csv_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 5))
    y = np.where(X[:, 0] | X[:, 2], 1, 0)
    path = tmp_path / "d.csv"
    np.savetxt(path, np.column_stack([y, X]), fmt="%d", delimiter=",")
    r = run_cli("run", "--learner", "perceptron", "--dataset", str(path), "--format", "csv",
                "--label-column", "0", "--json", "--twin-rows", "60")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["mistakes"] == mbcore.run_online(mbcore.Perceptron(), X, y).mistakes


@pytest.mark.parametrize("args", [("run", "--learner", "nope"),
                                  ("run", "--dataset", "no-such-file.svm"),
                                  ("run", "--param", "eta=-1", "--learner", "perceptron")])
def test_errors_are_one_line_and_non_zero(args):
    r = run_cli(*args)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mbcore: error:"), r.stderr
    assert "Traceback" not in r.stderr


def test_datasets_lists_mushrooms_with_provenance():
    r = run_cli("datasets")
    assert r.returncode == 0, r.stderr
    assert "mushrooms" in r.stdout and "UCI" in r.stdout


def test_winnow_bounds_reported_on_a_disjunction(tmp_path):
    """Labels from x0 OR x2: a monotone disjunction with k <= 2, so the Winnow bounds apply."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(300, 8))
    y = (X[:, 0] | X[:, 2]).astype(int)
    path = tmp_path / "disj.csv"
    np.savetxt(path, np.column_stack([y, X]), fmt="%d", delimiter=",")
    r = run_cli("run", "--learner", "Winnow", "--learner", "EliminationWinnow", "--learner",
                "WinnowStar", "--dataset", str(path), "--format", "csv", "--label-column", "0",
                "--json", "--twin-rows", "100")
    assert r.returncode == 0, r.stderr
    recs = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    n = 8
    # k found by the greedy cover is at most 2 here (x0, x2 cover every positive row)
    limits = {"Winnow": 2 + 3 * 2 * (1 + np.log2(n)),
              "EliminationWinnow": 2 * 2 * np.log2(n) + 2,
              "WinnowStar": 4 + 5 * (1 + np.log2(2 * n)) * 2}
    for name, limit in limits.items():
        rec = recs[name]
        assert rec["bound"] is not None and rec["bound"] <= limit + 1e-9
        assert rec["mistakes"] <= rec["bound"]
        assert rec["mistakes"] == mbcore.run_online(getattr(mbcore, name)(), X, y).mistakes


# -- certify, plot, bench -------------------------------------------------------------------------

def test_certify_json_matches_the_library(tmp_path):
    r = run_cli("certify", "--learner", "Winnow", "Perceptron", "--passes", "2", "--json")
    assert r.returncode == 0, r.stderr
    recs = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    X, y = load_mushrooms()
    for name in ("Winnow", "Perceptron"):
        cert = mbcore.certify(getattr(mbcore, name)(), X, y, passes=2)
        assert recs[name]["observed"] == cert.observed
        assert recs[name]["bound"] == pytest.approx(cert.bound)
        assert recs[name]["holds"] is True and recs[name]["verified"] is True
        assert recs[name]["n_examples"] == 2 * len(y)


def test_certify_table_names_the_bound_and_its_assumptions():
    r = run_cli("certify", "--learner", "conjunction", "decisionlist")
    assert r.returncode == 0, r.stderr
    assert "Conjunction" in r.stdout and "no bound" in r.stdout and "[violated]" in r.stdout
    assert "DecisionList" in r.stdout and "(4n + 2)(L + 1)" in r.stdout and "holds" in r.stdout


def test_a_bound_violation_exits_3_with_one_line(monkeypatch, capsys):
    from mbcore import cli

    def broken(learner, X, y, **kw):
        cert = mbcore.certificates.Certificate("Perceptron", mbcore.run_online(
            mbcore.Perceptron(), X[:3], y[:3]), 999)
        cert.set_bound("Novikoff", 1.0, "Kanade Thm 9")
        raise mbcore.BoundViolationError(cert)

    monkeypatch.setattr(mbcore, "certify", broken)
    assert cli.main(["certify", "--learner", "perceptron"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mbcore: error: mbcore bug: Perceptron made 999")


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "m.png"
    r = run_cli("plot", "--learner", "perceptron", "winnow", "--out", str(out), "--log")
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_how_to_install(monkeypatch, capsys, tmp_path):
    from mbcore import cli
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    assert cli.main(["plot", "--learner", "perceptron", "--out", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'mbcore[plot]'" in err[0]
    assert not (tmp_path / "x.png").exists()


def test_bench_json_reports_twin_and_peer_speedups():
    r = run_cli("bench", "--learner", "perceptron", "winnow", "--twin-rows", "200", "--json")
    assert r.returncode == 0, r.stderr
    recs = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    for rec in recs.values():
        assert rec["examples_per_second"] > 0 and rec["speedup_vs_twin"] > 1
        assert rec["twin_agrees"] is True and rec["twin_rows"] == 200
    try:
        import sklearn  # noqa: F401
    except ImportError:
        assert recs["Perceptron"]["peer"] is None
    else:
        assert recs["Perceptron"]["peer"] == "sklearn Perceptron"
        assert recs["Perceptron"]["speedup_vs_peer"] > 0
    assert recs["Winnow"]["peer"] is None


@pytest.mark.parametrize("cmd", ["run", "certify", "plot", "bench"])
def test_every_data_command_reports_a_bad_file_in_one_line(cmd):
    r = run_cli(cmd, "--dataset", "no-such-file.svm")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mbcore: error:") and "no-such-file" in lines[0]


def test_online_run_plot_draws_the_curve_and_the_bound():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    X, y = load_mushrooms()
    cert = mbcore.certify(mbcore.Perceptron(), X, y)
    fig, ax = plt.subplots()
    cert.plot(ax=ax)
    curve, bound = ax.lines[0], ax.lines[1]
    assert list(curve.get_ydata()) == list(cert.run.mistake_curve)
    assert curve.get_xdata()[-1] == len(y)
    assert bound.get_ydata()[0] == pytest.approx(cert.bound)
    assert "Novikoff" in ax.get_legend().get_texts()[1].get_text()
    plt.close(fig)
    ax2 = mbcore.run_online(mbcore.MarginPerceptron(), X, y).plot(updates=True, bound=50.0)
    assert ax2.get_ylabel() == "cumulative updates"
    plt.close("all")


def test_online_run_plot_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    run = mbcore.run_online(mbcore.Perceptron(), [[1.0], [-1.0]], [1, -1])
    with pytest.raises(ImportError, match=r"OnlineRun.plot needs matplotlib.*mbcore\[plot\]"):
        run.plot()


# -- streamed runs --------------------------------------------------------------------------------

def write_svmlight(path, n, d=200, seed=0, gz=False):
    import gzip
    rng = np.random.default_rng(seed)
    opener = gzip.open if gz else open
    with opener(path, "wt") as f:
        for _ in range(n):
            idx = np.sort(rng.choice(d, 12, replace=False))
            label = 1 if (idx < 4).any() else -1
            f.write(f"{label} " + " ".join(f"{j + 1}:1" for j in idx) + "\n")


@pytest.mark.parametrize("gz", [False, True])
def test_streamed_run_matches_the_in_memory_run(tmp_path, gz):
    path = tmp_path / ("s.data" if gz else "s.svm")          # gzip found by its magic bytes
    write_svmlight(path, 3000, gz=gz)
    r = run_cli("run", "--dataset", str(path), "--chunk-size", "700", "--learner", "winnow",
                "perceptron", "--json", "--twin-rows", "150", "--progress")
    assert r.returncode == 0, r.stderr
    X, y = mbcore.datasets.load_svmlight(path)
    for rec in json.loads(r.stdout):
        run = mbcore.run_online(getattr(mbcore, rec["learner"])(), X, y)
        assert (rec["mistakes"], rec["updates"], rec["n_samples"], rec["chunks"]) == \
            (run.mistakes, run.updates, 3000, 5)
        assert rec["bound"] is None and rec["twin_agrees"] is True
    assert "Winnow: " in r.stderr and "rows/s" in r.stderr     # the progress line


@pytest.mark.parametrize("streamed", [False, True], ids=["in-memory", "streamed"])
def test_run_reports_the_error_rate_on_each_class(tmp_path, streamed):
    # issue 40: 2 % positives, every one a mistake (rows whose only feature is 0: the
    # Perceptron scores 0, predicts -1 on the tie and never moves); the overall rate is 2 %
    path = tmp_path / "rare.svm"
    y = np.full(500, -1)
    y[np.random.default_rng(1).choice(500, 10, replace=False)] = 1
    path.write_text("".join(f"{v:+d} 1:0\n" for v in y))
    extra = ["--chunk-size", "64"] if streamed else []
    r = run_cli("run", "--dataset", str(path), "--learner", "perceptron", "--no-twin", "--json",
                *extra)
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["mistakes"] == 10 and rec["n_samples"] == 500
    assert rec["per_class"] == [
        {"class": -1.0, "examples": 490, "mistakes": 0, "error_rate": 0.0},
        {"class": 1.0, "examples": 10, "mistakes": 10, "error_rate": 1.0}]
    assert (rec["false_positive_rate"], rec["false_negative_rate"],
            rec["balanced_error_rate"]) == (0.0, 1.0, 0.5)
    r = run_cli("run", "--dataset", str(path), "--learner", "perceptron", "--no-twin", *extra)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index("error rate on each true class, in % (mistakes / examples of the class), "
                     "and their mean (balanced):")
    assert [ln.split() for ln in lines[at + 1:at + 4]] == [
        ["class", "-1", "1", "balanced"], ["examples", "490", "10"],
        ["Perceptron", "0.00", "100.00", "50.00"]]
    assert lines[at + 4].endswith("on 1 the false negative rate")


def test_streamed_run_of_a_csv_with_a_one_label_first_chunk(tmp_path):
    path = tmp_path / "d.csv"
    X = np.random.default_rng(1).integers(0, 2, size=(400, 6))
    y = np.r_[np.ones(100), (X[100:, 0] | X[100:, 3])].astype(int)
    np.savetxt(path, np.column_stack([X, y]), fmt="%d", delimiter=",")
    r = run_cli("run", "--dataset", str(path), "--chunk-size", "50", "--learner", "winnow",
                "--json", "--no-twin")
    assert r.returncode == 1 and "classes" in r.stderr and len(r.stderr.splitlines()) == 1
    r = run_cli("run", "--dataset", str(path), "--chunk-size", "50", "--learner", "winnow",
                "--json", "--no-twin", "--classes", "0,1")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["mistakes"] == mbcore.run_online(mbcore.Winnow(), X, y, classes=[0, 1]).mistakes


def _peak_rss_mb(*args):
    """Peak resident memory (MB) of the installed command, measured by the OS."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
            "stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN)"
            ".ru_maxrss / 1024)")
    cmd = [EXE] if EXE else [sys.executable, "-m", "mbcore.cli"]
    out = subprocess.run([sys.executable, "-c", code, *cmd, *args], capture_output=True,
                         text=True, timeout=600, check=True)
    return float(out.stdout.strip())


@pytest.mark.longrun       # (16-19 s of child processes on a ten times larger file)
def test_streaming_memory_stays_bounded_for_a_ten_times_larger_file(tmp_path):
    small, large = tmp_path / "small.svm.gz", tmp_path / "large.svm.gz"
    write_svmlight(small, 10_000, d=300, gz=True)
    write_svmlight(large, 100_000, d=300, gz=True)
    opts = ("--chunk-size", "5000", "--learner", "winnow", "--no-twin", "--json")
    a = _peak_rss_mb("run", "--dataset", str(small), *opts)
    b = _peak_rss_mb("run", "--dataset", str(large), *opts)
    assert b <= a * 1.15 + 10, (a, b)
    # loading the whole file instead grows with it: the measurement can tell
    c = _peak_rss_mb("run", "--dataset", str(large), "--learner", "winnow", "--no-twin",
                     "--json")
    assert c > b + 100, (b, c)


def test_bundled_dataset_options():
    # without --digit, mnist is its ten digits (tests/io/test_cli_multiclass.py)
    r = run_cli("run", "--dataset", "mnist", "--learner", "perceptron", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["n_classes"] == 10
    r = run_cli("run", "--dataset", "mnist", "--digit", "0", "--encoding", "boolean",
                "--learner", "perceptron", "winnow", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    X, y = mbcore.datasets.load_mnist(digit=0, encoding="boolean")
    for rec in json.loads(r.stdout):
        assert rec["mistakes"] == mbcore.run_online(getattr(mbcore, rec["learner"])(), X,
                                                    y).mistakes
    r = run_cli("run", "--dataset", "mushrooms", "--digit", "1", "--no-twin")
    assert r.returncode == 2 and "--digit applies to mnist" in r.stderr


# -- issue 36: every bundled dataset, the command line's words, plot formats, typos --------------

def _listed_datasets():
    """(name, rows) of each dataset `mbcore datasets` lists (the rows of its first split)."""
    r = run_cli("datasets")
    assert r.returncode == 0, r.stderr
    out = []
    for line in r.stdout.splitlines():
        name, rows = line.split()[:2]
        out.append((name, int(rows)))
    return out


def _skip_notes(out):
    return [line for line in out.splitlines() if line.startswith(("Not run on", "Not drawn"))]


@pytest.fixture(scope="module")
def listed_datasets():
    return _listed_datasets()


# one test per dataset (minutes of child processes in all, shared out among pytest's workers);
# a9a's (32,561 rows: 120 s of CPU, half of the whole), mnist's (10,000 x 784, 10 classes:
# 43 s, most of it the twins of the second-order learners on 784 features) and mushrooms'
# (8,124 rows: 33 s since the budget learners) are long runs (pytest -m longrun): the same
# commands run in the plain pytest on the other four, the non-separable ones among them, and
# mnist's K-class certify and plot in test_cli_multiclass.py
# (tic-tac-toe's, 9 s, and breast-cancer's, 6 s, too: the plain pytest runs monks and spect)
@pytest.mark.parametrize("dataset", [pytest.param(name, marks=pytest.mark.longrun)
                                     if name in ("a9a", "mnist", "mushrooms", "tic-tac-toe",
                                                 "breast-cancer") else name
                                     for name in sorted(mbcore.datasets.DATASETS)])
def test_every_bundled_dataset_runs_with_the_defaults_of_run_certify_and_plot(tmp_path, dataset,
                                                                           listed_datasets):
    """Defect 4: each dataset of `mbcore datasets` runs with the defaults of run, certify, plot
    and bench (tic-tac-toe's text
    squares included); a learner that cannot take the data is named with the option that would
    include it.  run with its defaults (the large a9a with --no-twin and a trusted --margin:
    no twin timing, no margin search); certify, plot and bench, whose data path is run's, with
    a trusted --margin, two learners for plot and 10 twin rows for bench, to keep it short."""
    listed = listed_datasets
    assert {name for name, _ in listed} == set(mbcore.datasets.DATASETS)
    for name, rows in listed:
        if name != dataset:
            continue
        fast = ("--no-twin", "--margin", "0.1") if rows > 10_000 else ()
        r = run_cli("run", "--dataset", name, *fast)
        assert r.returncode == 0, (name, r.stderr)
        for learner in mbcore.cli.LEARNERS:            # run, or named in the note
            assert learner in r.stdout, (name, learner)
        for note in _skip_notes(r.stdout):
            assert "(--" in note, note                  # the option that includes them
        r = run_cli("certify", "--dataset", name, "--margin", "0.1")
        assert r.returncode == 0, (name, r.stderr)
        for note in _skip_notes(r.stdout):
            assert "(--" in note, note
        r = run_cli("bench", "--dataset", name, "--twin-rows", "10")
        assert r.returncode == 0, (name, r.stderr)
        out = tmp_path / f"{name}.png"
        r = run_cli("plot", "--dataset", name, "--learner", "perceptron", "winnow", "--out",
                    str(out), "--margin", "0.1")
        assert r.returncode == 0, (name, r.stderr)
        assert out.read_bytes()[:4] == b"\x89PNG"


def test_tictactoe_reads_its_squares_as_indicators_by_default():
    r = run_cli("run", "--dataset", "tic-tac-toe", "--learner", "perceptron", "winnow",
                "--no-twin", "--json", "--encoding", "Boolean")
    assert r.returncode == 0, r.stderr
    given = json.loads(r.stdout)
    r = run_cli("run", "--dataset", "tic-tac-toe", "--learner", "perceptron", "winnow",
                "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    X, y = mbcore.datasets.load_tictactoe(encoding="boolean")
    for rec in json.loads(r.stdout):
        assert rec["n_features"] == 27
        assert rec["mistakes"] == mbcore.run_online(getattr(mbcore, rec["learner"])(), X,
                                                    y).mistakes
    assert [g["mistakes"] for g in given] == [d["mistakes"] for d in json.loads(r.stdout)]


def test_datasets_names_the_encoding_the_commands_read():
    r = run_cli("datasets", "tic-tac-toe")
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip().splitlines()[-1]
    assert line.startswith("Encodings (--encoding): ") and "boolean (the default)" in line
    assert "categorical (text" in line


def test_an_encoding_the_dataset_lacks_lists_its_encodings():
    r = run_cli("run", "--dataset", "tic-tac-toe", "--encoding", "onehot")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "--encoding onehot" in line and "categorical or boolean" in line
    assert "load_tictactoe" not in line and "parameter" not in line
    # the text encoding, asked for: no learner takes it, and the way out is named
    r = run_cli("run", "--dataset", "tic-tac-toe", "--encoding", "categorical",
                "--learner", "perceptron")
    assert r.returncode == 1
    (line,) = [x for x in r.stderr.strip().splitlines() if "error" in x]
    assert "holds text" in line and "--encoding boolean" in line and "dtype" not in line


def _svm(path, X, y, zero_based=False):
    from sklearn.datasets import dump_svmlight_file
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return str(path)


def test_a_user_file_names_the_real_reason_and_the_file_option(tmp_path):
    """C12: on a real-valued user file the Boolean learners are left out for their features
    (not 'two classes'), with --param features=real where it applies, never --encoding."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(80, 4)) > 0).astype(float)
    X[40, 2] = 0.5                          # 0/1 values until row 41: a real value there
    y = (X[:, 0] > 0).astype(int)
    path = _svm(tmp_path / "real.svm", X, y)
    out = tmp_path / "r.png"
    for cmd in (("run", "--no-twin"), ("certify",), ("plot", "--out", str(out)),
                ("bench", "--twin-rows", "10")):
        r = run_cli(*cmd, "--dataset", path, "--learner", "perceptron", "winnow", "conjunction")
        assert r.returncode == 0, r.stderr
        text = " ".join(r.stdout.split())
        assert "classes" not in text.replace("classes_", ""), text
        assert "--encoding" not in text
        assert "Winnow takes 0/1 features and the data is real-valued (--param features=real)" \
            in text
        assert "Conjunction takes 0/1 features and the data is real-valued" in text
    # a stream is asked about its first row
    X[:, 1] = rng.normal(size=80)
    path = _svm(tmp_path / "real2.svm", X, y)
    r = run_cli("run", "--dataset", path, "--learner", "perceptron", "winnow", "--chunk-size",
                "16", "--no-twin")
    assert r.returncode == 0, r.stderr
    assert "Winnow takes 0/1 features and the data is real-valued (--param features=real)" \
        in " ".join(r.stdout.split())
    # and the option named works
    r = run_cli("run", "--dataset", path, "--learner", "winnow", "--param", "features=real",
                "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["mistakes"] == mbcore.run_online(mbcore.Winnow(features="real"), X, y).mistakes


def test_param_that_means_two_things_is_refused_and_the_qualified_form_sets_one():
    r = run_cli("run", "--learner", "marginperceptron", "kernelperceptron", "--param",
                "gamma=0.05", "--no-twin")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "MarginPerceptron" in line and "KernelPerceptron" in line
    assert "--param MarginPerceptron.gamma=0.05" in line
    r = run_cli("run", "--learner", "marginperceptron", "kernelperceptron", "--param",
                "marginperceptron.gamma=0.05", "--no-twin", "--json", "--dataset", "spect")
    assert r.returncode == 0, r.stderr
    recs = {rec["learner"]: rec for rec in json.loads(r.stdout)}
    assert recs["MarginPerceptron"]["params"]["gamma"] == 0.05
    assert recs["KernelPerceptron"]["params"]["gamma"] is None
    # a name with one meaning still goes to every learner that has it
    r = run_cli("run", "--learner", "perceptron", "passiveaggressive", "--param",
                "fit_intercept=true", "--no-twin", "--json", "--dataset", "spect")
    assert r.returncode == 0, r.stderr
    assert all(rec["params"]["fit_intercept"] is True for rec in json.loads(r.stdout))
    # a qualified name the learner lacks, or a learner not selected
    for arg, words in (("Perceptron.gamma=1", "Perceptron has no parameter 'gamma'"),
                       ("winnow.alpha=3", "Winnow is not among the selected learners")):
        r = run_cli("run", "--learner", "perceptron", "--param", arg)
        assert r.returncode == 2 and words in r.stderr, r.stderr


@pytest.mark.parametrize("value", ["1", "yes", "0"])
def test_a_bool_param_names_true_and_false(value):
    r = run_cli("run", "--learner", "perceptron", "--param", f"fit_intercept={value}")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "true or false" in line and repr(value) in line


def test_class_weight_on_the_command_line(tmp_path):
    X, y = mbcore.datasets.load_breast_cancer()
    r = run_cli("run", "--dataset", "breast-cancer", "--learner", "perceptron", "--param",
                "class_weight=0:1,1:5", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    want = mbcore.run_online(mbcore.Perceptron(class_weight={0: 1, 1: 5}), X, y).mistakes
    assert rec["mistakes"] == want != mbcore.run_online(mbcore.Perceptron(), X, y).mistakes
    # balanced: the whole data's weights, as scikit-learn computes them
    sklearn_utils = pytest.importorskip("sklearn.utils")
    w = sklearn_utils.compute_class_weight("balanced", classes=np.array([0, 1]), y=y)
    r = run_cli("certify", "--dataset", "breast-cancer", "--learner", "perceptron", "--param",
                "class_weight=balanced", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    cert = mbcore.certify(mbcore.Perceptron(class_weight={0: w[0], 1: w[1]}), X, y)
    assert rec["observed"] == cert.observed
    # a stream cannot count the labels first
    r = run_cli("run", "--dataset", "breast-cancer", "--param", "class_weight=balanced",
                "--chunk-size", "100", "--learner", "perceptron")
    assert r.returncode == 2 and "class_weight=LABEL:WEIGHT" in r.stderr


def test_margin_is_certifys_trusted_gamma():
    r = run_cli("certify", "--dataset", "spect", "--learner", "perceptron", "--margin", "0.05",
                "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    X, y = mbcore.datasets.load_spect()
    cert = mbcore.certify(mbcore.Perceptron(), X, y, gamma=0.05)
    assert rec["bound"] == pytest.approx(cert.bound)
    assert any(status == "trusted" for _, status in rec["assumptions"])
    for bad in ("0", "-1", "nan", "x"):
        r = run_cli("certify", "--margin", bad)
        assert r.returncode == 2 and "--margin" in r.stderr


def _in_process(capsys, *argv):
    """`mbcore ARGV` in-process with the command line's spellings on (main switches them on
    for every command)."""
    from mbcore import _messages, cli
    with _messages.command_line():
        status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_no_margin_footnotes_name_the_option(capsys):
    """C11: 'give u (checked) or gamma (trusted)' and the Gram matrix's 'give gamma' name the
    command line's --margin."""
    status, out, _ = _in_process(capsys, "run", "--dataset", "breast-cancer", "--learner",
                                 "passiveaggressive", "--no-twin")
    assert status == 0
    assert "no margin established: give --margin GAMMA (trusted)" in " ".join(out.split())
    assert "give u" not in out
    status, out, _ = _in_process(capsys, "certify", "--learner", "kernelperceptron")
    assert status == 0                                  # mushrooms: 8124 rows
    text = " ".join(out.split())
    assert "too many for the Gram matrix (at most 4096): give --margin GAMMA" in text


def test_winnow_on_real_values_names_the_option(capsys, tmp_path):
    pytest.importorskip("sklearn")
    path = _svm(tmp_path / "r.svm", np.array([[0.5, 1.0], [1.0, 0.0]]), np.array([0, 1]))
    status, _, err = _in_process(capsys, "train", "--learner", "winnow", "--data", path,
                                 "--n-features", "2", "--model", str(tmp_path / "w.npz"))
    assert status == 1
    assert "--param features=real" in err and "features='boolean'" not in err


def test_typos_get_did_you_mean(capsys):
    r = run_cli("run", "--learner", "percepton")
    assert r.returncode == 2 and "did you mean Perceptron" in r.stderr
    r = run_cli("run", "--learner", "perceptron", "--param", "etaa=0.5")
    (line,) = r.stderr.strip().splitlines()
    assert r.returncode == 2 and "did you mean eta?" in line
    assert "their parameters: " in line and "fit_intercept" in line      # the valid names
    r = run_cli("run", "--dataset", "mushroom")
    assert r.returncode == 1 and "did you mean mushrooms?" in r.stderr
    r = run_cli("datasets", "spectt")
    assert r.returncode == 2 and "did you mean spect?" in r.stderr
    # argparse's invalid choice (a sub-command): for the parser's error handler
    from mbcore import cli
    with pytest.raises(cli.UsageError) as exc:
        cli._build_parser().parse_args(["rnu"])
    assert cli._with_suggestion(str(exc.value)).endswith("(did you mean run?)")
    assert cli._with_suggestion("argument --x: expected one argument") == \
        "argument --x: expected one argument"


def test_dataset_names_are_case_insensitive():
    a, b = run_cli("datasets", "MUSHROOMS"), run_cli("datasets", "mushrooms")
    assert a.returncode == 0 and a.stdout == b.stdout and "Schlimmer" in a.stdout
    assert "Encodings (--encoding): real (the default), boolean" in a.stdout
    r = run_cli("run", "--dataset", "Breast-Cancer", "--learner", "perceptron", "--no-twin",
                "--json")
    assert r.returncode == 0 and json.loads(r.stdout)[0]["dataset"] == "breast-cancer"


def test_datasets_listing_is_aligned():
    r = run_cli("datasets")
    starts = {line.index(mbcore.datasets.DATASETS[line.split()[0]]["summary"])
              for line in r.stdout.splitlines()}
    assert len(starts) == 1


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF"),
                                           (".png", b"\x89PNG")])
def test_plot_writes_the_format_of_its_suffix(tmp_path, suffix, magic):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"m{suffix.upper()}"
    r = run_cli("plot", "--dataset", "spect", "--learner", "perceptron", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:len(magic)] == magic


@pytest.mark.parametrize("name", ["m.foo", "m"])
def test_plot_refuses_an_unknown_suffix_before_any_work(tmp_path, name):
    out = tmp_path / name
    r = run_cli("plot", "--dataset", "no-such-file.svm", "--out", str(out))
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert ".png, .svg, .pdf" in line and "no-such-file" not in line
    assert not out.exists()


def test_zero_based_flag_of_the_data_commands(tmp_path):
    """--zero-based: index 0 is the first column, also in a file where column 0 is never
    written (here the file's width is only right with the flag)."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(60, 5)).astype(float)
    X[:, 0] = 0.0                              # no "0:" anywhere in the file
    y = np.where(X[:, 1] + X[:, 3] > 0, 1, -1)
    path = _svm(tmp_path / "z.svm", X, y, zero_based=True)
    r = run_cli("run", "--dataset", path, "--zero-based", "--learner", "perceptron",
                "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    assert rec["n_features"] == 5
    assert rec["mistakes"] == mbcore.run_online(mbcore.Perceptron(), X, y).mistakes
    r = run_cli("certify", "--dataset", path, "--zero-based", "--learner", "winnow", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["observed"] == mbcore.certify(mbcore.Winnow(), X, y).observed
    # a file that holds index 0
    X[:, 0] = 1.0
    path = _svm(tmp_path / "z0.svm", X, y, zero_based=True)
    r = run_cli("run", "--dataset", path, "--zero-based", "--chunk-size", "16", "--learner",
                "perceptron", "--no-twin", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["mistakes"] == \
        mbcore.run_online(mbcore.Perceptron(), X, y).mistakes
    out = tmp_path / "z.png"
    r = run_cli("plot", "--dataset", path, "--zero-based", "--learner", "perceptron", "--out",
                str(out))
    assert r.returncode == 0, r.stderr
    for args in (("--dataset", "spect"), ("--dataset", str(tmp_path / "z.csv"))):
        np.savetxt(tmp_path / "z.csv", np.column_stack([X, y]), delimiter=",")
        r = run_cli("run", *args, "--zero-based")
        assert r.returncode == 2 and "--zero-based appl" in r.stderr


def test_big_bounds_print_as_certify_prints_them(tmp_path):
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    path = _svm(tmp_path / "bc.svm", X, y)
    run = run_cli("run", "--dataset", path, "--learner", "kernelperceptron", "perceptron",
                  "--no-twin", "--margin", "1e-7")
    cert = run_cli("certify", "--dataset", path, "--learner", "kernelperceptron", "perceptron",
                   "--margin", "1e-7")
    assert run.returncode == 0 and cert.returncode == 0, run.stderr + cert.stderr
    bounds = [line.split()[1] for line in cert.stdout.splitlines()
              if line.startswith("  bound ")]
    assert len(bounds) == 2 and all("e+" in b for b in bounds)
    for b in bounds:
        assert f" {b} [" in run.stdout, (b, run.stdout)


@pytest.mark.filterwarnings("default::mbcore.exceptions.LearnerWarning")
def test_learner_hints_name_the_options(capsys, tmp_path):
    """C11: the hints the learners give name --param when the command line is the caller."""
    status, _, err = _in_process(capsys, "run", "--learner", "conjunction")
    assert status == 0
    (line,) = err.strip().splitlines()           # once, though the run is timed repeatedly
    assert line.startswith("mbcore: warning: Conjunction:")
    assert "use --param on_inconsistent=raise to stop" in line
    pytest.importorskip("sklearn")
    path = _svm(tmp_path / "b.svm", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1]))
    status, _, err = _in_process(capsys, "train", "--learner", "perceptron", "--param",
                                 "class_weight=balanced", "--data", path, "--model",
                                 str(tmp_path / "p.npz"))
    assert status == 1
    assert "--param class_weight=LABEL:WEIGHT,LABEL:WEIGHT" in err and "np.bincount" not in err
