"""The ``mbcore queries`` command group (dfa, graph, coin), run as a user would: a subprocess on
``python -m mbcore.cli`` (the interpreter of this test session, from an empty folder), and the
entry point ``mbcore.cli.main`` in-process for the error paths."""

import json
import math
import subprocess
import sys
import tempfile

import pytest

import mbcore.cli as cli
from mbcore.queries import EdgeDetectingOracle, learn_graph


def run_cli(*args):
    # from an empty folder: `python -m` puts the current folder first on sys.path, and from
    # the source tree that would be the uncompiled package, not the installed one
    with tempfile.TemporaryDirectory() as where:
        return subprocess.run([sys.executable, "-m", "mbcore.cli"] + list(args),
                              capture_output=True, text=True, timeout=300, cwd=where)


def test_graph_json_reports_queries_within_the_bounds():
    r = run_cli("queries", "graph", "--n", "500", "--m", "40", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    rows = {rec["method"]: rec for rec in json.loads(r.stdout)}
    assert set(rows) == {"adaptive", "counting", "five_round"}
    L = math.ceil(math.log2(500))
    assert rows["adaptive"]["bound"] == 12 * 40 * L + 1
    assert rows["counting"]["bound"] == 6 * 40 * L + 1
    for rec in rows.values():
        assert rec["n"] == 500 and rec["m"] == 40 and rec["exact"] is True
    assert rows["adaptive"]["queries"] <= rows["adaptive"]["bound"]
    assert rows["five_round"]["rounds"] == 5 and rows["five_round"]["bound"] is None
    assert sum(rows["five_round"]["round_queries"]) == rows["five_round"]["queries"]


def test_graph_json_matches_the_library():
    """The command's five-round run is learn_graph's with the same seed on the same graph."""
    from mbcore._cli_queries import _random_graph
    r = run_cli("queries", "graph", "--n", "200", "--m", "15", "--seed", "7", "--method",
                "five_round", "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    E = _random_graph(200, 15, 7)
    assert len(E) == 15
    res = learn_graph(200, EdgeDetectingOracle(E, 200), method="five_round", seed=7)
    assert rec["queries"] == res.queries and rec["round_queries"] == res.record["round_queries"]


def test_graph_table():
    r = run_cli("queries", "graph", "--n", "64", "--m", "10", "--method", "adaptive")
    assert r.returncode == 0, r.stderr
    assert "adaptive" in r.stdout and "12 m ceil(log2 n) + 1" in r.stdout
    assert "five_round" not in r.stdout.split("bounds:")[0]


def test_coin_json_one_and_several_defectives():
    r = run_cli("queries", "coin", "--n", "1000", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    by = {rec["method"]: rec for rec in rows}
    for name in ("binary search", "bit design"):
        assert by[name]["bound"] == 10 and by[name]["tests"] <= 10 and by[name]["exact"]
    assert by["bit design"]["tests"] == 10
    r = run_cli("queries", "coin", "--n", "100", "--defectives", "5", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {rec["method"] for rec in rows} == {"binary splitting (d known)",
                                               "binary splitting (d unknown)"}
    for rec in rows:
        assert len(rec["found"]) == 5 and rec["exact"] and rec["tests"] <= rec["bound"]
    assert rows[0]["bound"] == 5 * 7


def test_coin_table():
    r = run_cli("queries", "coin", "--n", "8")
    assert r.returncode == 0, r.stderr
    assert "bit design" in r.stdout and "binary search" in r.stdout


@pytest.mark.parametrize("args,status", [
    (["queries"], 2),
    (["queries", "dfa", "--states", "0"], 2),
    (["queries", "dfa", "--processing", "kv"], 2),
    (["queries", "dfa", "--letters", "27"], 2),
    (["queries", "graph", "--n", "0"], 2),
    (["queries", "graph", "--method", "greedy"], 2),
    (["queries", "graph", "--n", "4", "--m", "7"], 2),
    (["queries", "coin", "--n", "3", "--defectives", "4"], 2),
    (["queries", "coin", "--defectives", "-1"], 2),
])
def test_errors_are_one_line(args, status, capsys):
    assert cli.main(args) == status
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mbcore: error:"), err


# Every option of every subcommand, given a value out of its range (alone, or against another
# option): a usage error, exit status 2 as the README says (--letters 27, --m beyond
# n(n-1)/2 and --defectives beyond --n exited 1; a size beyond what a run can hold crashed with
# a traceback or ran for minutes).
BAD = [
    (["queries"], "subcommand"),
    (["queries", "knapsack"], "SUBCOMMAND"),
    (["queries", "dfa", "--states", "0"], "--states"),
    (["queries", "dfa", "--states", "-2"], "--states"),
    (["queries", "dfa", "--states", "2.5"], "--states"),
    (["queries", "dfa", "--states", "20001"], "--states"),
    (["queries", "dfa", "--letters", "0"], "--letters"),
    (["queries", "dfa", "--letters", "27"], "--letters"),
    (["queries", "dfa", "--letters", "b"], "--letters"),
    (["queries", "dfa", "--seed", "-1"], "--seed"),
    (["queries", "dfa", "--seed", "x"], "--seed"),
    (["queries", "dfa", "--processing", "kv"], "--processing"),
    (["queries", "dfa", "--json", "yes"], "unrecognized arguments"),
    (["queries", "graph", "--n", "0"], "--n"),
    (["queries", "graph", "--n", "20001"], "--n"),
    (["queries", "graph", "--n", "1e3"], "--n"),
    (["queries", "graph", "--m", "-1"], "--m"),
    (["queries", "graph", "--m", "10001"], "--m"),
    (["queries", "graph", "--n", "5", "--m", "11"], "--m"),
    (["queries", "graph", "--n", "1", "--m", "1"], "--m"),
    (["queries", "graph", "--seed", "-3"], "--seed"),
    (["queries", "graph", "--method", "greedy"], "--method"),
    (["queries", "coin", "--n", "0"], "--n"),
    (["queries", "coin", "--n", "1000001"], "--n"),
    (["queries", "coin", "--defectives", "-1"], "--defectives"),
    (["queries", "coin", "--n", "3", "--defectives", "4"], "--defectives"),
    (["queries", "coin", "--seed", "1.5"], "--seed"),
    (["queries", "coin", "--bogus"], "unrecognized arguments"),
]


@pytest.mark.parametrize("args,names", BAD, ids=[" ".join(a[1:]) for a, _ in BAD])
def test_every_usage_error_exits_2(args, names):
    r = run_cli(*args)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert len(err) == 1 and err[0].startswith("mbcore: error:"), err
    assert names in err[0] and "Traceback" not in r.stderr and r.stdout == ""


def test_the_limits_are_accepted():
    # the largest values the options take still run (the limits are not off by one)
    r = run_cli("queries", "coin", "--n", "3", "--defectives", "3", "--json")
    assert r.returncode == 0, r.stderr
    r = run_cli("queries", "graph", "--n", "5", "--m", "10", "--json")
    assert r.returncode == 0, r.stderr
    assert all(rec["m"] == 10 and rec["exact"] for rec in json.loads(r.stdout))
    r = run_cli("queries", "dfa", "--states", "3", "--letters", "26", "--processing",
                "angluin", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["alphabet_size"] == 26


def test_help_lists_the_subcommands(capsys):
    assert cli.main(["queries", "--help"]) == 0
    out = capsys.readouterr().out
    assert "dfa" in out and "graph" in out and "coin" in out


def test_dfa_json_every_processing_within_the_bounds():
    # a random minimal DFA of 30 states over 3 letters, learned exactly by every processing;
    # the equivalence bound is n (Angluin 1987: at most n - 1 wrong conjectures)
    r = run_cli("queries", "dfa", "--states", "30", "--letters", "3", "--seed", "4", "--json")
    assert r.returncode == 0, r.stderr
    rows = {rec["processing"]: rec for rec in json.loads(r.stdout)}
    assert set(rows) == {"rivest-schapire", "angluin", "suffixes"}
    for rec in rows.values():
        assert rec["exact"] and rec["equivalent"] and rec["learned_states"] == 30
        assert rec["equivalence_bound"] == 30
        assert rec["equivalence_queries"] <= 30
        assert rec["membership_queries"] <= rec["membership_bound"]
        assert rec["bounds_held"] is True


def test_dfa_json_matches_the_library():
    from mbcore.queries import run_dfa_demo
    r = run_cli("queries", "dfa", "--states", "12", "--seed", "9", "--processing", "angluin",
                "--json")
    assert r.returncode == 0, r.stderr
    (rec,) = json.loads(r.stdout)
    want = run_dfa_demo(12, 2, 9, "angluin")
    assert {k: rec[k] for k in want} == want


def test_dfa_table():
    r = run_cli("queries", "dfa", "--states", "8", "--processing", "rivest-schapire")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "random minimal DFA: 8 states, 2 letters, seed 0"
    assert lines[2].split()[0] == "rivest-schapire" and "yes" in lines[2].split()
