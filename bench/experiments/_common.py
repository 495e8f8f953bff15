"""What every experiment script shares: its command line, and writing its table, its claims
and its plot.

Each script under ``bench/experiments/`` reproduces one published result.  Its ``main(argv)``
computes a table of rows and a list of *claims* (the published statement, checked on the rows
just computed), then calls :func:`finish`, which writes, into the output folder:

``<name>.md``    the table (Markdown) followed by the claims and whether each held,
``<name>.csv``   the same table,
``<name>.json``  rows, claims and the command's parameters,
``<name>.png``   the plot (matplotlib, the optional extra ``mbcore[plot]``).

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
            fig = plt.figure(figsize=(6.4, 4.4))
            plot(plt)
            fig.tight_layout()
            fig.savefig(out / f"{name}.png", dpi=110)
            plt.close(fig)
            print(f"wrote {out / (name + '.png')}")
    failed = [c["claim"] for c in claims if not c["holds"]]
    if failed:
        print(f"{name}: {len(failed)} claim(s) did not hold: " + "; ".join(failed),
              file=sys.stderr)
        return 1
    return 0
