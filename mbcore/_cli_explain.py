"""``mbcore explain``: why a saved model predicts what it does on one line of a file (see
:mod:`mbcore.cli`, which wires it into its parser with :func:`add_explain_parser`).

``mbcore explain --model M.npz --data FILE --line N [--top K] [--json]`` reads FILE as the
model's training data was read (its recorded reading, as ``mbcore predict`` does), explains the
example on line N with :func:`mbcore.explain`, and prints the prediction, the score, the
features that weigh most in it and, when the model recorded its updates (``mbcore train ...
--param record_updates=true``), the training examples that made it, by their line in FILE.
FILE must be the file the model was trained on, read in its order (no ``--shuffle``): the
record names the rows of the training stream, and row r of a run of K passes is line
``lines[r mod n]`` of FILE's n examples.  Lines are counted as the readers count them in their
error messages (from 1; every line break, comments and blank lines included).

Like :mod:`mbcore.cli`, this module names no learner: what it needs the learner declares
(``record_updates`` among its parameters, its explanation).
"""

import json
import math
import os

import numpy as np

from ._cli_common import UsageError, emit, positive_int

__all__ = ["add_explain_parser"]


def add_explain_parser(sub):
    p = sub.add_parser(
        "explain", help="why a saved model predicts what it does on one line of a file",
        description="Explain a saved model's prediction on the example at line N of FILE: the "
                    "prediction, the score, the features with the largest parts of the score "
                    "and, for a model trained with --param record_updates=true, the training "
                    "examples (by their line in FILE, which must be the training file, read "
                    "in order) with their parts and shares.  FILE is read as the model's "
                    "training data was (its recorded format and options).")
    p.add_argument("--model", required=True, metavar="M.npz", help="a model saved by train")
    p.add_argument("--data", required=True, metavar="FILE",
                   help="the file the model was trained on (plain or gzip; not standard "
                        "input: it is read whole, to map the record's rows to its lines)")
    p.add_argument("--line", required=True, type=positive_int, metavar="N",
                   help="the line of FILE holding the example to explain (counting from 1, "
                        "as the readers' error messages do)")
    p.add_argument("--top", type=positive_int, default=10, metavar="K",
                   help="how many features and training examples to show (default 10)")
    p.add_argument("--features-only", action="store_true",
                   help="leave the training examples out (a model trained without "
                        "--param record_updates=true has none to show)")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    p.set_defaults(handler=_cmd_explain)


def _read_rows(model, path):
    """FILE's examples as the model reads them: (X, lines), X dense or CSR of the model's
    width, lines the 1-based line of each row."""
    import scipy.sparse as sp
    from .workflow import read_chunks, reading_options
    fmt = (getattr(model, "reading_", None) or {}).get("format")
    if fmt is None:
        from ._cli_common import sniff_format
        fmt = sniff_format(path)
    fmt, options, _ = reading_options("explain", model, path, fmt, {})
    if fmt == "svmlight":
        options["n_features"] = model.n_features_in_
    Xs, lines = [], []
    for X, _, ln in read_chunks(path, fmt, 8192, lines=True, **options):
        Xs.append(X.to_scipy() if hasattr(X, "to_scipy") else X)
        lines.append(np.asarray(ln, dtype=np.int64))
    if not Xs:
        return None, np.zeros(0, dtype=np.int64), fmt, options
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.concatenate(lines), fmt, options


def _file_lines(path):
    """The lines of FILE (gzip read as the readers read it), split at every line break."""
    from ._readers import line_blocks
    with open(path, "rb") as f:
        data = b"".join(bytes(b) for b in line_blocks(f, "explain", path, lambda: 0))
    return data.splitlines()


def _not_an_example(path, n, text, fmt, options):
    """Why line n of FILE (its bytes ``text``) holds no example."""
    body = text.strip()
    if not body:
        what = "blank"
    elif body.startswith(b"#"):
        what = "a comment"
    elif fmt == "csv" and n == 1:
        what = "the header"
    else:
        what = "not an example"
    return ValueError(f"--line {n}: line {n} of {path} is {what}; give the line of an example")


def _csv_names(path, lines, options, d):
    """The feature columns' names from a CSV header (line 1 when it holds no example), each
    with its column in the file (counting from 0, as --label-column does); else the columns."""
    cols = list(range(d + 1))
    label = options.get("label_column")
    if label is not None:
        del cols[label % (d + 1)]
    names = [f"column {c}" for c in cols]
    if lines.size and lines[0] > 1:
        head = _file_lines(path)[0].decode("utf-8", "replace")
        fields = [f.strip().strip('"') for f in head.split(options.get("delimiter") or ",")]
        if len(fields) == d + 1:
            names = [f"{fields[c]} (column {c})" for c in cols]
    return names


def _feature_label(e, i, fmt, options, csv_names=None):
    """How a feature is named: by the model's feature names, else as FILE writes it (svmlight:
    the index as written, one-based unless the file is zero-based; CSV: the header's name and
    the column)."""
    if e.feature_names is not None and not isinstance(i, (int, np.integer)):
        return str(i)
    i = int(i)
    if fmt == "svmlight":
        return f"{i if options.get('zero_based') else i + 1}"
    if fmt == "csv" and csv_names is not None:
        return csv_names[i]
    return f"hashed column {i}"


def _cmd_explain(args):
    from ._cli_workflow import _load_model
    from .explain import explain
    model = _load_model(args.model, "--model")
    if not model._is_fitted():
        raise ValueError(f"{args.model} holds an unfitted {type(model).__name__}: train it first")
    inner = getattr(model, "learner_", None)
    if inner is not None and getattr(type(model), "_explanation", None) is None:
        model = inner                   # (a saved selective sampler: its learner predicts)
        if not model._is_fitted():
            raise ValueError(f"{args.model} holds a selective sampler whose learner has "
                             "learned nothing: nothing to explain")
    if not os.path.exists(args.data):
        raise OSError(f"--data {args.data!r}: no such file")
    if os.path.isdir(args.data):
        raise OSError(f"--data {args.data!r} is a folder, not a file")
    name = type(model).__name__
    if getattr(type(model), "_explanation", None) is None:
        raise ValueError(f"{args.model}: {name}'s predictions have no explanation (explain "
                         "splits the scores of the additive learners, the Winnow family and the "
                         "expert pools)")
    params = model.get_params()
    recorded = bool(params.get("record_updates", False))
    examples = not args.features_only
    if examples and "record_updates" not in params:
        raise ValueError(f"{args.model}: {name} keeps no record of its updates (its score "
                         "splits over the features only): give --features-only")
    if examples and not recorded:
        raise ValueError(f"{args.model}: {name} was trained without the record of its "
                         "updates, so its training examples cannot be named: train it with "
                         "--param record_updates=true, or give --features-only")
    X, lines, fmt, options = _read_rows(model, args.data)
    n = 0 if X is None else X.shape[0]
    at = np.flatnonzero(lines == args.line)
    if at.size == 0:
        text = _file_lines(args.data)
        if args.line > len(text):
            raise ValueError(f"--line {args.line}: {args.data} has {len(text):,} line"
                             f"{'' if len(text) == 1 else 's'}")
        raise _not_an_example(args.data, args.line, text[args.line - 1], fmt, options)
    r = int(at[0])
    x = X[r:r + 1]
    train = None
    period = n
    if examples:
        seen = int(model.n_seen_)
        if n == 0 or seen % n:
            raise ValueError(f"the model in {args.model} learned from {seen:,} examples, not a "
                             f"whole number of passes over the {n:,} of {args.data}: give the "
                             "file it was trained on (or --features-only)")
        passes = seen // n
        if passes > 1:
            import scipy.sparse as sp
            train = sp.vstack([X] * passes, format="csr") if sp.issparse(X) else \
                np.vstack([X] * passes)
        else:
            train = X
    e = explain(model, x, train)
    out = _report(e, args, lines, period, fmt, options)
    if args.json:
        emit(json.dumps(out, indent=2, default=_plain))
    else:
        _print(out, args)
    return 0


def _plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return str(v)


def _num(v):
    v = float(v)
    return None if math.isnan(v) else v


def _report(e, args, lines, period, fmt, options):
    score = e.score
    names = _csv_names(args.data, lines, options, np.shape(e.feature_parts)[0]) \
        if fmt == "csv" else None
    out = {"data": args.data, "line": args.line, "model": args.model, "learner": e.learner,
           "prediction": _label(e.prediction),
           "score": score.tolist() if isinstance(score, np.ndarray) else float(score),
           "check": bool(e.check()),
           "top_features": [{"feature": _feature_label(e, f, fmt, options, names), "part": p,
                             "share": _num(s)} for f, p, s in e.top_features(args.top)
                            if p != 0.0]}
    if not args.features_only:
        units = e.extra.get("example_units", "parts of the score")
        out["example_units"] = units
        out["top_examples"] = _by_row(e, lines, period, args.top)
    return out


def _by_row(e, lines, period, k):
    """The training examples' parts summed per row of FILE (a run of several passes meets each
    row once per pass), the k largest |part| first, with their lines and shares."""
    every = e.top_examples(1 << 62)
    parts, shares = {}, {}
    for i, p, s in every:
        r = int(i) % period
        parts.setdefault(r, []).append(p)
        shares.setdefault(r, []).append(s)
    parts = {r: p for r, p in parts.items() if any(u != 0.0 for u in p)}   # (x's part)
    rows = sorted(parts, key=lambda r: (-abs(math.fsum(parts[r])) if all(
        math.isfinite(p) for p in parts[r]) else -math.inf, r))[:k]
    out = []
    for r in rows:
        fin = all(math.isfinite(p) for p in parts[r])
        part = math.fsum(parts[r]) if fin else -math.inf
        share = math.fsum(shares[r]) if fin and not any(math.isnan(s) for s in shares[r]) \
            else None
        out.append({"line": int(lines[r]), "row": r, "part": part, "share": share})
    return out


def _label(v):
    """A label as FILE writes it (svmlight reads labels as floats: '+1' is shown 1)."""
    v = _plain(v)
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _share(s):
    return "" if s is None else f"{100.0 * s:.1f}%"


def _print(out, args):
    score = out["score"]
    shown = ", ".join(f"{v:.6g}" for v in score) if isinstance(score, list) else f"{score:.6g}"
    emit(f"{out['learner']} on line {out['line']} of {out['data']}: predicts "
         f"{out['prediction']} (score {shown})")
    emit("top features (part of the score, share):")
    for f in out["top_features"]:
        emit(f"  {f['feature']:>12}  {f['part']:+.6g}  {_share(f['share'])}")
    if "top_examples" in out:
        emit(f"top training examples by line of {out['data']} ({out['example_units']}, "
             "share):")
        if not out["top_examples"]:
            emit("  (none: the model made no update)")
        for x in out["top_examples"]:
            emit(f"  line {x['line']:>8}  {x['part']:+.6g}  {_share(x['share'])}")
    if not out["check"]:
        emit("mbcore: warning: the parts do not add up to the score within their bound")
