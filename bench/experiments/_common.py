"""What every experiment script shares: its command line, and writing its table, its claims
and its plot.

Each script under ``bench/experiments/`` reproduces one published result.  Its ``main(argv)``
computes a table of rows and a list of *claims* (the published statement, checked on the rows
just computed), then calls :func:`finish`, which writes, into the output folder:

``<name>.md``    the table (Markdown) followed by the claims and whether each held,
``<name>.csv``   the same table,
``<name>.json``  rows, claims and the command's parameters,
``<name>.png``   the plot (matplotlib, the optional extra ``mbcore[plot]``): a distinct colour
                per series, the legend outside the data (:func:`legend_outside`), a log
                count axis where the values span more than a decade.

The exit status is 0 when every claim held and 1 otherwise, so a run is also a check.
``--small`` runs a quick version (the test suite runs every script that way).
"""

import argparse
import csv
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def parse_args(description, argv=None, extra=None):
    """The shared command line: ``--out DIR``, ``--small``, ``--seed N``; ``extra(parser)`` may
    add the script's own options."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", type=Path, default=RESULTS,
                   help="folder for the table, claims and plot (default: %(default)s)")
    p.add_argument("--small", action="store_true",
                   help="a quick version with fewer sizes and trials (what the tests run)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice")
    if extra is not None:
        extra(p)
    return p.parse_args(argv)


def claim(text, holds, detail=""):
    """One published statement and whether the rows just computed bear it out."""
    return {"claim": text, "holds": bool(holds), "detail": detail}


def _cell(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v).replace("|", "\\|")


def plural(count, word, many=None):
    """``"1 trial"``, ``"3 trials"``: the count and the word, in the right number."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def log_if_wide(plt, axis="y"):
    """Put ``axis`` of the current Axes on a log scale when its data's positive values span
    more than a decade (largest over smallest > 10); leave it linear otherwise.  Returns
    whether it is logarithmic."""
    from matplotlib import ticker
    ax = plt.gca()
    lim = ax.dataLim
    lo, hi = (lim.minposy, lim.y1) if axis == "y" else (lim.minposx, lim.x1)
    wide = 0 < lo < float("inf") and hi / lo > 10
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log" if wide else "linear")
    if wide and hi / lo < 1000:             # 1-3 decades: 2, 5, 10, 20, ... as plain numbers
        target = ax.yaxis if axis == "y" else ax.xaxis
        subs = (1.0, 2.0, 5.0) if hi / lo >= 100 else (1.0, 2.0, 3.0, 5.0)
        target.set_major_locator(ticker.LogLocator(subs=subs))
        target.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        target.set_minor_formatter(ticker.NullFormatter())
    return wide


def legend_outside(plt, **kw):
    """The legend of the current Axes, to their right (never over the data)."""
    kw = {"fontsize": 7.5, "loc": "upper left", "bbox_to_anchor": (1.02, 1.0),
          "borderaxespad": 0.0, **kw}
    return plt.legend(**kw)


def finish(name, args, title, columns, rows, claims, plot=None):
    """Write ``<name>.md/.csv/.json`` (and ``.png`` through ``plot(plt)``, which draws on the
    current figure) into ``args.out``; print the table; return the exit status."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(_cell(r[c]) for c in columns) + " |" for r in rows]
    checks = [f"- [{'x' if c['holds'] else ' '}] {c['claim']}" + (f" ({c['detail']})"
                                                                  if c["detail"] else "")
              for c in claims]
    md = "\n".join([f"# {title}", "", head, rule, *body, "", "Claims:", *checks, ""])
    (out / f"{name}.md").write_text(md)
    with open(out / f"{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    params = {k: v for k, v in vars(args).items() if k != "out"}   # no machine paths
    (out / f"{name}.json").write_text(json.dumps(
        {"name": name, "title": title, "params": params, "columns": list(columns),
         "rows": rows, "claims": claims}, indent=1, default=float))
    print(md)
    if plot is not None:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print(f"{name}: matplotlib is not installed, so {name}.png was not drawn; "
                  "pip install 'mbcore[plot]' (or matplotlib) to draw it", file=sys.stderr)
        else:
            # constrained layout makes room for a legend outside the data (right of the
            # Axes, where every script puts it); bbox_inches="tight" keeps it in the image
            fig = plt.figure(figsize=(8.6, 4.6), layout="constrained")
            plot(plt)
            fig.savefig(out / f"{name}.png", dpi=110, bbox_inches="tight", pad_inches=0.08)
            plt.close(fig)
            print(f"wrote {out / (name + '.png')}")
    failed = [c["claim"] for c in claims if not c["holds"]]
    if failed:
        many = "claim did" if len(failed) == 1 else "claims did"
        print(f"{name}: {len(failed)} {many} not hold: " + "; ".join(failed),
              file=sys.stderr)
        return 1
    return 0
