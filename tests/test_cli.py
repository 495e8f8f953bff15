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


def test_console_script_is_installed():
    assert EXE is not None, "pip install should put the `mbcore` command on PATH"


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
