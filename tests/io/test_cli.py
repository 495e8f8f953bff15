"""The installed `mbcore` command, run as a user would (a subprocess on the console script)."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mbcore
from mbcore.datasets import load_mushrooms

EXE = shutil.which("mbcore")


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
