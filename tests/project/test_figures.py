"""The figures are legible by default (issue 15): ``mbcore plot``, ``OnlineRun.plot`` and the
figures of ``bench/experiments`` are checked on their matplotlib objects, not on pixels.

The rules, checked by :func:`problems` (and :func:`experiment_problems` for the experiments):

* ``mbcore plot`` draws small multiples: one panel per learner drawn, sharing the x axis, each
  titled with its learner, with its curve and its bound (dashed, the curve's colour, labelled);
* a panel's count axis is logarithmic exactly when what it shows (each curve's total and each
  bound) spans more than a decade, else linear;
* no two curves (series) have the same colour;
* a legend, if there is one, lies outside the data area of its Axes;
* the axes are labelled, and the title puts "pass" in the right number ("1 pass", "3 passes";
  never "pass(es)").

The checkers are shown to fail on a figure drawn the old way (one panel, linear, repeated
colours, the legend over the data, "1 pass(es)"), so a passing test means something.
Skipped without matplotlib; drawn with the Agg backend.
"""

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import mbcore  # noqa: E402
from mbcore import _cli_teaching, cli  # noqa: E402
from mbcore.datasets import load_mushrooms  # noqa: E402
from mbcore.online import BOUND_GID, CURVE_GID, distinct_colours, plural  # noqa: E402

EXPERIMENTS = Path(__file__).resolve().parents[2] / "bench" / "experiments"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- the checkers ---------------------------------------------------------------------------------

def _curves(ax):
    return [ln for ln in ax.lines if ln.get_gid() == CURVE_GID]


def _bounds(ax):
    return [ln for ln in ax.lines if ln.get_gid() == BOUND_GID]


def span(ax):
    """Largest over smallest of the positive levels the panel shows: each curve's total and
    each bound (computed here from the lines, independently of mbcore's own rule)."""
    levels = [float(np.max(ln.get_ydata())) for ln in _curves(ax) + _bounds(ax)]
    levels = [v for v in levels if v > 0]
    return max(levels) / min(levels) if levels else 1.0


def legend_outside(ax):
    """None when ``ax`` has no legend or its legend lies outside the data area, else the
    overlap."""
    leg = ax.get_legend()
    if leg is None:
        return None
    ax.figure.canvas.draw()
    lb, ab = leg.get_window_extent(), ax.get_window_extent()
    if lb.overlaps(ab):
        box = lambda b: "x {:.0f}..{:.0f}, y {:.0f}..{:.0f}".format(b.x0, b.x1, b.y0, b.y1)
        return f"legend ({box(lb)}) overlaps the data area ({box(ab)})"
    return None


def _title(fig):
    parts = [_suptitle(fig)]
    parts += [ax.get_title(loc) for ax in fig.axes for loc in ("center", "left", "right")]
    return " ".join(parts)


def _suptitle(fig):
    """The figure's title on one line (it may be wrapped)."""
    return " ".join(fig._suptitle.get_text().split()) if fig._suptitle is not None else ""


def plural_problem(text):
    if re.search(r"\w\((s|es)\)", text):
        return f"'(s)' or '(es)' instead of a plural: {text!r}"
    if re.search(r"\b1 passes\b|\b(0|[2-9]|\d\d+) pass\b", text):
        return f"a count and 'pass' disagree: {text!r}"
    return None


def problems(fig):
    """Every way ``fig`` (drawn by mbcore) breaks the layout rules; [] when it keeps them."""
    out = []
    colours = []
    for i, ax in enumerate(fig.axes):
        curves, bounds = _curves(ax), _bounds(ax)
        want = "log" if span(ax) > 10 else "linear"
        if ax.get_yscale() != want:
            out.append(f"panel {i}: {ax.get_yscale()} y scale, span {span(ax):.3g}: want {want}")
        colours += [to_hex(c.get_color()) for c in curves]
        if len(curves) == 1:
            for b in bounds:
                if to_hex(b.get_color()) != to_hex(curves[0].get_color()):
                    out.append(f"panel {i}: the bound's colour is not its curve's")
                if b.get_linestyle() != "--":
                    out.append(f"panel {i}: the bound is not dashed")
        why = legend_outside(ax)
        if why:
            out.append(f"panel {i}: {why}")
        if not ax.get_ylabel():
            out.append(f"panel {i}: no y label")
    if len(set(colours)) != len(colours):
        out.append(f"repeated colours: {colours}")
    if not any(ax.get_xlabel() for ax in fig.axes):
        out.append("no x label")
    why = plural_problem(_title(fig))
    if why:
        out.append(why)
    return out


def _capture_cli(monkeypatch, capsys, *argv):
    """Run ``mbcore plot`` in-process and return (its Figure, its stdout)."""
    figs = []
    monkeypatch.setattr(_cli_teaching, "_save_figure", lambda fig, out: figs.append(fig))
    assert cli.main(["plot", *argv]) == 0
    (fig,) = figs
    return fig, capsys.readouterr().out


# -- the checkers can fail ------------------------------------------------------------------------

def test_the_checkers_reject_a_figure_drawn_the_old_way():
    X, y = load_mushrooms()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in cli.LEARNERS:                      # one panel, the default colour cycle
        cert = mbcore.certify(getattr(mbcore, name)(), X, y)
        curve = cert.run.update_curve if cert.counted == "updates" else cert.run.mistake_curve
        line, = ax.plot(np.arange(1, len(curve) + 1), curve, label=name)
        line.set_gid(CURVE_GID)
        if cert.bound is not None:
            ax.axhline(cert.bound, color=line.get_color(), linestyle="--").set_gid(BOUND_GID)
    ax.legend(fontsize=8)                          # matplotlib's "best": inside the Axes
    ax.set_ylabel("cumulative mistakes")
    ax.set_xlabel("examples seen")
    ax.set_title("mushrooms: cumulative mistakes and mistake bounds (1 pass(es))")
    found = " | ".join(problems(fig))
    assert "y scale" in found and "want log" in found          # 18,900 over 35: linear
    assert "repeated colours" in found                          # tab10 for 12 learners
    assert "overlaps the data area" in found
    assert "pass(es)" in found
    assert plural_problem("3 pass") and plural_problem("1 passes")
    assert plural_problem("1 pass") is None and plural_problem("3 passes over 8,124") is None


def test_plural():
    assert plural(1, "pass") == "1 pass" and plural(3, "pass") == "3 passes"
    assert plural(0, "mistake") == "0 mistakes" and plural(8124, "example") == "8,124 examples"
    assert plural(1, "update") == "1 update"


@pytest.mark.parametrize("n", [1, 10, 12, 25, 40])
def test_distinct_colours_never_repeat(n):
    cols = distinct_colours(n)
    assert len(cols) == n and len(set(cols)) == n
    assert cols[:min(n, 10)] == [to_hex(c) for c in
                                 matplotlib.colormaps["tab10"].colors][:min(n, 10)]


# -- mbcore plot ----------------------------------------------------------------------------------

def test_cli_plot_default_is_one_panel_per_learner(monkeypatch, capsys):
    fig, out = _capture_cli(monkeypatch, capsys, "--out", "unused.png")
    assert "wrote unused.png" in out
    names = list(cli.LEARNERS)                      # all of them take mushrooms
    assert len(fig.axes) == len(names)
    assert problems(fig) == []
    for ax, name in zip(fig.axes, names):
        assert ax.get_title(loc="left").startswith(f"{name}: ")
        assert len(_curves(ax)) == 1 and len(_bounds(ax)) <= 1
        assert ax.get_shared_x_axes().joined(fig.axes[0], ax)
        if _bounds(ax):                             # the bound is labelled, in its colour
            texts = [t for t in ax.texts if t.get_text().startswith("bound ")]
            assert len(texts) == 1
            assert to_hex(texts[0].get_color()) == to_hex(_curves(ax)[0].get_color())
        else:
            assert any("no bound" in t.get_text() for t in ax.texts)
    panel = dict(zip(names, fig.axes))
    # the rule both ways on this data: 18,900 over 35 mistakes; 319 over 54
    assert panel["DecisionList"].get_yscale() == "log" and span(panel["DecisionList"]) > 100
    assert panel["Perceptron"].get_yscale() == "linear" and span(panel["Perceptron"]) < 10
    assert "updates" in panel["MarginPerceptron"].get_ylabel()
    assert all(ax.get_legend() is None for ax in fig.axes)      # titled panels, no legend
    title = _suptitle(fig)
    assert "1 pass " in title and "8,124 examples" in title
    assert all(ax.get_xlabel() == "examples seen" for ax in fig.axes[-4:])


def test_cli_plot_passes_and_the_log_option(monkeypatch, capsys):
    fig, _ = _capture_cli(monkeypatch, capsys, "--learner", "perceptron", "winnow",
                          "--passes", "3", "--out", "unused.png")
    assert len(fig.axes) == 2 and problems(fig) == []
    assert "3 passes" in _suptitle(fig)
    assert "(dotted: a new pass)" in fig.axes[0].get_xlabel()
    assert fig.axes[0].get_xlim()[1] == 3 * 8124
    fig, _ = _capture_cli(monkeypatch, capsys, "--learner", "perceptron", "--log",
                          "--out", "unused.png")
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"                 # --log: every panel, whatever its span
    assert "1 pass " in _suptitle(fig)


@pytest.mark.longrun       # (25 s: every K-class learner's default run on mnist, plotted)
def test_cli_plot_mnist_leaves_out_the_learners_that_do_not_take_it(monkeypatch, capsys):
    fig, out = _capture_cli(monkeypatch, capsys, "--dataset", "mnist", "--out", "unused.png")
    drawn = [ax.get_title(loc="left").split(":")[0] for ax in fig.axes]
    assert problems(fig) == []
    (note,) = [" ".join(t.get_text().split()) for t in fig.texts
               if t.get_text().startswith("Not drawn")]
    assert "Winnow" in note and "DecisionList" in note
    for name in cli.LEARNERS:                       # each learner drawn, or named in the note
        assert (name in drawn) != bool(re.search(rf"\b{name}\b", note)), name
    panel = dict(zip(drawn, fig.axes))
    assert panel["Perceptron"].get_yscale() == "log"        # 1.76e7 over 350
    assert panel["MarginPerceptron"].get_yscale() == "linear"   # 2,400 over 610


def test_cli_plot_named_na_learner_is_left_out_with_a_note(monkeypatch, capsys):
    fig, out = _capture_cli(monkeypatch, capsys, "--dataset", "mnist", "--learner",
                            "perceptron", "decisionlist", "--out", "unused.png")
    assert [ax.get_title(loc="left").split(":")[0] for ax in fig.axes] == ["Perceptron"]
    assert any(t.get_text().startswith("Not drawn") and "DecisionList" in t.get_text()
               for t in fig.texts)
    assert "not drawn: DecisionList" in out
    assert problems(fig) == []


# -- OnlineRun.plot -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mushrooms():
    return load_mushrooms()


def test_online_run_plot_log_iff_a_decade(mushrooms):
    X, y = mushrooms
    run = mbcore.run_online(mbcore.Perceptron(), X, y)        # 54 mistakes
    fig, ax = plt.subplots()
    run.plot(ax=ax, bound=300.0, label="Perceptron")
    assert ax.get_yscale() == "linear" and problems(fig) == []
    fig, ax = plt.subplots()
    run.plot(ax=ax, bound=18_900.0, label="Perceptron")
    assert ax.get_yscale() == "log" and problems(fig) == []
    fig, ax = plt.subplots()
    run.plot(ax=ax, bound=18_900.0, yscale="linear")          # the caller's choice wins
    assert ax.get_yscale() == "linear"


def test_online_run_plot_legend_outside_and_labels(mushrooms):
    X, y = mushrooms
    cert = mbcore.certify(mbcore.Perceptron(), X, y)
    fig, ax = plt.subplots(figsize=(6, 4))
    cert.plot(ax=ax)
    leg = ax.get_legend()
    assert leg is not None and legend_outside(ax) is None
    texts = [t.get_text() for t in leg.get_texts()]
    assert texts[0] == "Perceptron" and texts[1].startswith("Perceptron bound 319: Novikoff")
    assert ax.get_xlabel() == "examples seen" and ax.get_ylabel() == "cumulative mistakes"
    fig.savefig(_sink(), format="png")               # the legend is inside the image
    fig_box = fig.bbox
    lb = leg.get_window_extent()
    assert fig_box.x0 <= lb.x0 and lb.x1 <= fig_box.x1 + 1
    plt.figure()                                     # ax=None: the current Axes
    ax2 = mbcore.run_online(mbcore.MarginPerceptron(), X, y).plot(updates=True, bound=500.0)
    assert ax2.get_ylabel() == "cumulative updates"
    assert [t.get_text() for t in ax2.get_legend().get_texts()] == ["bound 500"]


def test_online_run_plot_many_runs_on_one_axes(mushrooms):
    X, y = mushrooms
    fig, ax = plt.subplots(figsize=(8, 5))
    for name in cli.LEARNERS:                      # twelve curves: more than tab10 has
        mbcore.certify(getattr(mbcore, name)(), X, y).plot(ax=ax)
    assert len(_curves(ax)) == len(cli.LEARNERS)
    assert problems(fig) == []                      # distinct colours, log (18,900), legend
    assert ax.get_yscale() == "log"


def _sink():
    import io
    return io.BytesIO()


# -- the experiments' figures ---------------------------------------------------------------------

def _scripts():
    if not EXPERIMENTS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="no bench/experiments"))]
    return [pytest.param(p, id=p.stem) for p in sorted(EXPERIMENTS.glob("*.py"))
            if not p.name.startswith("_")]


def _rgb(c):
    return to_hex(np.asarray(c, dtype=float).ravel()[:3])


def experiment_problems(fig):
    """The rules for a figure of bench/experiments: distinct colours per series (a scatter, a
    solid line, a set of bars or of short lines; the dashed or dotted bound of a series may
    share its colour), log y iff the data's positive values span more than a decade, the
    legend outside the data, plurals."""
    out = []
    for i, ax in enumerate(fig.axes):
        series = []
        for c in ax.collections:                    # scatters and hlines, not bands
            name = type(c).__name__
            col = c.get_facecolor() if name == "PathCollection" else \
                c.get_edgecolor() if name == "LineCollection" else []
            if len(col):
                series.append((name, _rgb(col[0])))
        for ln in ax.lines:
            if ln.get_linestyle() == "-" and ln.get_label() and \
                    not ln.get_label().startswith("_"):
                series.append(("line", _rgb(matplotlib.colors.to_rgba(ln.get_color()))))
        bars = {_rgb(p.get_facecolor()) for p in ax.patches}     # one colour per bar set
        series += [("bars", c) for c in bars]
        cols = [c for _, c in series]
        if len(set(cols)) != len(cols):
            out.append(f"axes {i}: repeated colours among the series {series}")
        lim = ax.dataLim
        if 0 < lim.minposy < np.inf:
            want = "log" if lim.y1 / lim.minposy > 10 else "linear"
            if ax.get_yscale() != want:
                out.append(f"axes {i}: {ax.get_yscale()} y for data "
                           f"{lim.minposy:.3g}..{lim.y1:.3g}: want {want}")
        why = legend_outside(ax)
        if why:
            out.append(f"axes {i}: {why}")
        if not (ax.get_xlabel() or ax.get_xticklabels()):
            out.append(f"axes {i}: an x axis without a label")
    if fig.axes and not any(ax.get_ylabel() for ax in fig.axes):
        out.append("no y label")
    why = plural_problem(_title(fig))
    if why:
        out.append(why)
    return out


def test_the_experiment_checker_can_fail():
    fig, ax = plt.subplots()
    for i in range(12):                             # the default cycle repeats after ten
        ax.scatter([1, 2, 3], [1 + i, 50 + i, 400 + i], label=f"s{i}")
    ax.legend(loc="center")
    ax.set_title("3 trial(s)")
    found = " | ".join(experiment_problems(fig))
    assert "repeated colours" in found and "want log" in found
    assert "overlaps the data area" in found and "trial(s)" in found


@pytest.mark.parametrize("script", _scripts())
def test_experiment_figure_keeps_the_rules(script, tmp_path, monkeypatch):
    figs = []
    original = Figure.savefig

    def keep(self, *args, **kwargs):
        figs.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    spec = importlib.util.spec_from_file_location(f"_fig_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    status = module.main(["--small", "--out", str(tmp_path)])
    assert status == 0
    assert len(figs) == 1 and (tmp_path / f"{script.stem}.png").is_file()
    assert experiment_problems(figs[0]) == []
    sys.modules.pop(f"_fig_{script.stem}", None)
