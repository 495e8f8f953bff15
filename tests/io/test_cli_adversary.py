"""``mbcore adversary``: the witness tree of a class's Littlestone dimension played against a
learner, run as a user would (a subprocess on ``python -m mbcore.cli`` from an empty folder),
and the entry point ``mbcore.cli.main`` in-process for the error paths."""

import ast
import json
import os
import subprocess
import sys
import tempfile

import pytest

import mbcore
import mbcore.cli as cli
from mbcore import ConceptClass


def run_cli(*args):
    # from an empty folder: `python -m` puts the current folder first on sys.path
    with tempfile.TemporaryDirectory() as where:
        return subprocess.run([sys.executable, "-m", "mbcore.cli"] + list(args),
                              capture_output=True, text=True, timeout=300, cwd=where)


def _check_game(game, C, ldim):
    """Every round a mistake, the points distinct, the leaf's concept labels them as the game
    did (read from the class's table here)."""
    labels = C.labels(game["concept"])
    points = [r["point"] for r in game["rounds"]]
    assert len(set(points)) == len(points)
    for r in game["rounds"]:
        assert labels[r["point"]] == r["label"]
    assert game["consistent"] is True and game["ldim"] == ldim == game["depth"]


def test_json_soa_on_monotone_conjunctions_is_forced_ldim_mistakes():
    r = run_cli("adversary", "--class", "monotone_conjunctions:4", "--learner", "soa", "--json")
    assert r.returncode == 0, r.stderr
    game = json.loads(r.stdout)
    # Ldim of the monotone conjunctions of n variables is n: the points "all but x_i"
    assert game["learner"] == "SOA" and game["mistakes"] == 4 == len(game["rounds"])
    assert all(r["prediction"] != r["label"] for r in game["rounds"])
    assert game["class"] == "monotone_conjunctions(4)" and game["randomized"] is False
    _check_game(game, ConceptClass.monotone_conjunctions(4), 4)
    # the points named as bit strings of the cube
    C = ConceptClass.monotone_conjunctions(4)
    assert game["points"] == ["".join(map(str, C.points[r["point"]])) for r in game["rounds"]]


def test_text_prints_one_line_per_round_and_the_total_against_ldim():
    r = run_cli("adversary", "--class", "half_intervals:3", "--learner", "Perceptron")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("half_intervals(3): 9 concepts over 8 points, Ldim = 3")
    rounds = [ln for ln in lines if ln.startswith("round ")]
    assert len(rounds) == 3 and all(ln.endswith(", mistake") for ln in rounds)
    assert "Perceptron: 3 mistakes in 3 rounds; Ldim = 3: forced exactly Ldim" in lines
    assert lines[-1].startswith("leaf: concept ") and \
        lines[-1].endswith("consistent with every label")


def test_randomized_learner_is_labelled_by_seeded_coins():
    args = ("adversary", "--class", "monotone_disjunctions:4", "--learner",
            "RandomizedWeightedMajority", "--seed", "11", "--json")
    r1, r2 = run_cli(*args), run_cli(*args)
    assert r1.returncode == 0, r1.stderr
    g = json.loads(r1.stdout)
    assert g == json.loads(r2.stdout)                    # seeded: the same game
    assert g["randomized"] is True and 0 <= g["mistakes"] <= g["ldim"] == 4
    assert g["mistakes"] == sum(r["prediction"] != r["label"] for r in g["rounds"])
    _check_game(g, ConceptClass.monotone_disjunctions(4), 4)


@pytest.mark.parametrize("argv,status,message", [
    (["--class", "monotone_conjunctions:3", "--learner", "winow"], 2,
     "unknown learner 'winow' (did you mean Winnow or WinnowStar?)"),
    (["--class", "monotone", "--learner", "soa"], 2,
     "unknown class 'monotone' (did you mean monotone_conjunctions or monotone_disjunctions?)"),
    (["--class", "monotone_conjunctions:x", "--learner", "soa"], 2,
     "the size of monotone_conjunctions (n variables) must be an integer >= 1, got 'x'"),
    (["--class", "monotone_conjunctions:3", "--learner", "halving", "-p", "concepts=2"], 2,
     "the class is given by --class"),
    (["--class", "monotone_conjunctions:3", "--learner", "winnow", "-p", "alhpa=3"], 2,
     "Winnow has no parameter 'alhpa' (did you mean alpha?)"),
    (["--class", "monotone_conjunctions:3", "--learner", "winnow", "-p", "alpha=0.5"], 1,
     "Winnow: parameter alpha"),
    (["--class", "monotone_conjunctions:3", "--learner", "soa", "--seed", "-1"], 2,
     "--seed: expected an integer >= 0"),
    (["--class", "all_conjunctions:8", "--learner", "soa"], 1,
     "6561 concepts"),
])
def test_errors_name_the_argument(capsys, argv, status, message):
    assert cli.main(["adversary"] + argv) == status
    err = capsys.readouterr().err
    assert err.startswith("mbcore: error: ") and message in err, err
    assert "littlestone_dimension" not in err             # (no Python function names)


def test_the_command_names_no_learner_class():
    path = os.path.join(os.path.dirname(mbcore.__file__), "_cli_adversary.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    learners = {name for name, _ in mbcore.all_learners()}
    hits = [getattr(node, "id", None) or getattr(node, "attr", None) or
            getattr(node, "value", None) for node in ast.walk(tree)
            if isinstance(node, (ast.Name, ast.Attribute, ast.Constant))]
    assert not learners & {h for h in hits if isinstance(h, str)}
