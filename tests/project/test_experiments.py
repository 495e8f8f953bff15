"""The experiment scripts of bench/experiments: each one runs (``--small``), writes its table,
claims and plot, and every claim it makes holds.

Every ``bench/experiments/*.py`` whose name does not start with ``_`` is discovered and run in a
fresh interpreter (as a user would run it); the outputs are then read back and checked.  A few
facts of ``perceptron_vs_winnow`` are checked again here from its CSV, independently of the
script's own claims, and the claim mechanism of ``_common`` is shown to be able to fail.

In an installed-package-only layout (no ``bench`` folder beside ``tests``) everything here is
skipped.
"""

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mbcore.bounds import winnow_bound

EXPERIMENTS = Path(__file__).resolve().parents[2] / "bench" / "experiments"
NO_FOLDER = (f"no experiment scripts: {EXPERIMENTS} does not exist (installed-package-only "
             "layout; the scripts live in the source tree)")
TIMEOUT = 300          # seconds per script; --small runs are meant to take well under 15 s
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _scripts():
    if not EXPERIMENTS.is_dir():
        return []
    return sorted(p for p in EXPERIMENTS.glob("*.py") if not p.name.startswith("_"))


def _params():
    scripts = _scripts()
    if not scripts:
        reason = NO_FOLDER if not EXPERIMENTS.is_dir() else \
            f"no experiment scripts in {EXPERIMENTS}"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="none")]
    return [pytest.param(p, id=p.stem) for p in scripts]


def _matplotlib():
    return importlib.util.find_spec("matplotlib") is not None


@pytest.fixture(scope="module")
def run_script(tmp_path_factory):
    """Run a script once with ``--small`` into its own folder; later calls reuse the run."""
    done = {}

    def run(script):
        if script.stem not in done:
            out = tmp_path_factory.mktemp(script.stem)
            env = dict(os.environ, MPLBACKEND="Agg")
            try:
                proc = subprocess.run([sys.executable, str(script), "--small", "--out", str(out)],
                                      capture_output=True, text=True, timeout=TIMEOUT,
                                      cwd=str(out), env=env)
            except subprocess.TimeoutExpired as exc:
                pytest.fail(f"{script.name} --small did not finish in {TIMEOUT} s\n"
                            f"stdout:\n{exc.stdout}\nstderr:\n{exc.stderr}")
            done[script.stem] = (proc, out)
        return done[script.stem]

    return run


def _report(proc):
    return (f"exit status {proc.returncode}\n--- stdout ---\n{proc.stdout[-6000:]}\n"
            f"--- stderr ---\n{proc.stderr[-6000:]}")


def _read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("script", _params())
def test_experiment_runs_and_its_claims_hold(script, run_script):
    proc, out = run_script(script)
    name = script.stem
    assert proc.returncode == 0, f"{script.name} --small failed: " + _report(proc)
    for ext in ("md", "csv", "json"):
        assert (out / f"{name}.{ext}").is_file(), \
            f"{script.name} did not write {name}.{ext}\n" + _report(proc)
    data = json.loads((out / f"{name}.json").read_text())
    claims = data["claims"]
    assert len(claims) >= 1, f"{script.name} makes no claim"
    failed = [c for c in claims if not c["holds"]]
    assert not failed, f"{script.name}: claims that did not hold: {failed}"
    assert len(data["rows"]) >= 1, f"{script.name} computed no rows"
    rows = _read_csv(out / f"{name}.csv")
    assert len(rows) == len(data["rows"]), \
        f"{name}.csv has {len(rows)} data rows, {name}.json has {len(data['rows'])}"
    md = (out / f"{name}.md").read_text()
    assert "- [ ]" not in md and md.count("- [x]") == len(claims), md


@pytest.mark.parametrize("script", _params())
def test_experiment_draws_its_plot(script, run_script):
    if not _matplotlib():
        pytest.skip("matplotlib is not installed, so the scripts draw no plot "
                    "(pip install 'mbcore[plot]')")
    proc, out = run_script(script)      # drawn even when a claim fails (exit status 1)
    png = out / f"{script.stem}.png"
    assert png.is_file(), f"{script.name} did not write {png.name}\n" + _report(proc)
    head = png.read_bytes()[:8]
    assert head == PNG_MAGIC, f"{png.name} is not a PNG file (starts with {head!r})"


# -- perceptron_vs_winnow, checked from its table, not from its own claims -------------------------

@pytest.fixture(scope="module")
def pvw_rows(run_script):
    script = EXPERIMENTS / "perceptron_vs_winnow.py"
    if not script.is_file():
        pytest.skip(NO_FOLDER if not EXPERIMENTS.is_dir() else f"{script} does not exist")
    proc, out = run_script(script)
    assert proc.returncode == 0, "perceptron_vs_winnow.py --small failed: " + _report(proc)
    rows = _read_csv(out / "perceptron_vs_winnow.csv")
    assert rows, "perceptron_vs_winnow.csv has no rows"
    return rows


def test_pvw_winnow_within_its_bound(pvw_rows):
    """Every Winnow count (the mean and the worst trial) is within 2 + 3k(1 + log2 n), the bound
    recomputed here with mbcore.bounds.winnow_bound."""
    for r in pvw_rows:
        n, k = int(r["n"]), int(r["k"])
        b = winnow_bound(k, n)
        assert float(r["winnow_bound"]) == b, r
        assert float(r["winnow_mean"]) <= float(r["winnow_max"]) <= b, r


def test_pvw_perceptron_bound_and_growth(pvw_rows):
    """With u = (indicator of the k variables, -1/2), 1/gamma^2 = 4k + 1 and R^2 = 1 + (ones in
    the fullest row), so the reported bound is (4k + 1)(1 + m) for an integer 0 <= m <= n; the
    Perceptron's worst trial is within it.  At the largest n the Perceptron makes more mistakes
    than Winnow on average, and its count grows by a larger factor than Winnow's over the range."""
    ks = sorted({int(r["k"]) for r in pvw_rows})
    for r in pvw_rows:
        n, k = int(r["n"]), int(r["k"])
        b = float(r["perceptron_bound"])
        m = b / (4 * k + 1) - 1
        assert abs(m - round(m)) < 1e-6 and 0 <= round(m) <= n, r
        assert float(r["perceptron_mean"]) <= float(r["perceptron_max"]) <= b * (1 + 1e-12), r
    for k in ks:
        kr = sorted((r for r in pvw_rows if int(r["k"]) == k), key=lambda r: int(r["n"]))
        lo, hi = kr[0], kr[-1]
        assert int(hi["n"]) > int(lo["n"]), kr
        assert float(hi["perceptron_mean"]) > float(hi["winnow_mean"]), hi
        p_growth = float(hi["perceptron_mean"]) / float(lo["perceptron_mean"])
        w_growth = float(hi["winnow_mean"]) / float(lo["winnow_mean"])
        assert p_growth > w_growth, (k, p_growth, w_growth)


# -- the claim mechanism itself ------------------------------------------------------------------

def test_a_false_claim_fails_the_run(tmp_path, capsys):
    path = EXPERIMENTS / "_common.py"
    if not path.is_file():
        pytest.skip(NO_FOLDER if not EXPERIMENTS.is_dir() else f"{path} does not exist")
    spec = importlib.util.spec_from_file_location("_common_under_test", path)
    common = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(common)
    args = common.parse_args("a run with a false claim", ["--out", str(tmp_path), "--small"])
    claims = [common.claim("one plus one is two", 1 + 1 == 2),
              common.claim("one plus one is three", 1 + 1 == 3, "it is 2")]
    status = common.finish("fake", args, "A false claim", ["a", "b"], [{"a": 1, "b": 2.5}],
                           claims)
    assert status == 1
    md = (tmp_path / "fake.md").read_text()
    assert "- [ ] one plus one is three (it is 2)" in md, md
    assert "- [x] one plus one is two" in md, md
    data = json.loads((tmp_path / "fake.json").read_text())
    assert [c["holds"] for c in data["claims"]] == [True, False]
    assert "did not hold" in capsys.readouterr().err
