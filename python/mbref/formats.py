"""The reference parsers of the svmlight / libsvm and numeric CSV formats (standard library only).

They define what ``mbcore``'s compiled readers (``mbcore._kernels.readers``, through
``mbcore.streaming.iter_svmlight`` / ``iter_csv`` and ``mbcore.datasets.load_svmlight`` /
``load_csv``) must give: the same rows, labels, values (bit for bit) and error messages.

The text is bytes.  Lines end with ``\\n``, ``\\r\\n`` or ``\\r`` and are numbered from 1.
Anything from ``#`` to the end of a line is a comment; a line with nothing else but ASCII
whitespace (space, tab, vertical tab, form feed) is skipped.  A number is, in ASCII,
``[+-]`` digits with an optional ``.`` and fraction (at least one digit in all) and an optional
exponent ``[eE][+-]digits``, or ``inf``, ``infinity`` or ``nan`` in any case; its value is
Python's ``float()`` of it (correctly rounded).  A parser stops at the first bad line and raises
one ``ValueError`` naming the file and the line; with ``on_error="skip"`` it drops every bad
line instead and counts it.

svmlight: the indices are zero-based when the leading comment lines declare it, as
scikit-learn's ``dump_svmlight_file`` writes (``# Column indices are zero-based``, or
``one-based``), with ``zero_based=None``; an index 0 read one-based is a bad line.  The labels
are numbers or text: the first row read with a label decides, and a later label of the other
kind is a bad line.  A line whose first token holds ':' starts with a feature: a bad line, or,
with ``labeled="auto"``, a row without a label (NaN, or '' among text labels).

CSV: ``skip_header="auto"`` skips the first data line when some of its fields outside the label
column are not numbers and the next data line has a number in one of those columns, or when
only its label is text and the next data line's label is a number;
``label_column=None`` reads every column as a feature (the labels are NaN).
"""

import re

__all__ = ["parse_number", "read_svmlight", "read_svmlight_growing", "read_csv",
           "declared_zero_based", "zero_reason"]

_NUMBER = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                     rb"|(?i:inf|infinity|nan))\Z")
_QID = re.compile(rb"[+-]?[0-9]+\Z")


def parse_number(token):
    """The value of a token (bytes) by the grammar above, or None."""
    return float(token) if _NUMBER.match(token) else None


def _short(text, limit=30):
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


class _Bad(Exception):
    def __init__(self, reason):
        self.reason = reason


def _utf8_reason(line):
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text ({e.reason} at byte {e.start} of the line)"
    return None


_DECLARED = re.compile(rb"#\s*column\s+indices\s+are\s+(zero|one)-based\s*\Z", re.I)


def declared_zero_based(data):
    """True (zero-based), False (one-based) or None (nothing): what the comment lines at the
    top of ``data`` (bytes; blank lines may come between them) declare."""
    lines = (line.strip() for line in data.splitlines())
    for text in (t for t in lines if t):              # blank lines say nothing
        if text[:1] != b"#":                          # the first row: the comments are over
            break
        found = _DECLARED.match(text)
        if found is not None:
            return found.group(1).lower() == b"zero"
    return None


def zero_reason(zero_based, declared, grow=False):
    """Why a stream is read one-based (None: it is read zero-based): ``zero_based`` as given
    (True, False, None or "auto"), ``declared`` what the file declares."""
    told = zero_based is True or zero_based is False      # (False: a message of its own)
    if told or (declared and zero_based in (None, "auto")):
        return None
    if declared is False:                                  # the file says one-based
        return "the file declares them one-based"
    if grow and zero_based == "auto":
        return ("a stream read without its width is one-based unless told otherwise: the index "
                "0 cannot be known before it arrives")
    return ("the file does not declare them zero-based, as scikit-learn's comment "
            "'# Column indices are zero-based' does")


def _zero_based(data, zero_based, grow):
    """(read zero-based, why not) for the value given."""
    declared = declared_zero_based(data) if zero_based is None or zero_based == "auto" else None
    why = zero_reason(zero_based, declared, grow)
    if declared is not None:
        return declared, why
    if zero_based == "auto" and not grow:
        zero = any(_has_zero(line) for line in data.splitlines())
        return zero, None if zero else why
    return zero_based is True, why


def _has_zero(line):
    body = line.split(b"#", 1)[0]
    return any(tok.partition(b":")[0].lstrip(b"0") == b"" and tok.partition(b":")[0] != b""
               and tok.partition(b":")[1] for tok in body.split())


class _Kind:
    """The labels' kind: 0 not known yet, 1 numbers, 2 text; ``line`` the line that decided."""

    def __init__(self):
        self.kind = self.line = 0


def _label(tokens, kind, labeled):
    """(label, the tokens of the pairs, the label's kind: 0 none, 1 number, 2 text), raising
    _Bad."""
    tok = tokens[0]
    if b":" in tok:
        if labeled != "auto":
            raise _Bad(f"starts with {tok.decode('utf-8')!r}, a feature, not a label; every line "
                       "needs a label here (pass labeled='auto' to read rows without one)")
        return None, tokens, 0
    value = parse_number(tok)
    if value is not None:
        if kind.kind == 2:
            raise _Bad(f"the label {_short(tok.decode('utf-8'))} is a number, but the labels "
                       f"are text (the first, line {kind.line}, is not a number): the labels of "
                       "a file are all numbers or all text")
        return value, tokens[1:], 1
    if kind.kind == 1:
        raise _Bad(f"the label {_short(tok.decode('utf-8'))} is not a number, but the labels "
                   f"are numbers (the first, line {kind.line}, is one): the labels of a file "
                   "are all numbers or all text")
    return tok, tokens[1:], 2


def _svmlight_line(body, shift, n_features, growing=False, kind=None, labeled=True, why=None):
    """(label, sorted [(column, value)], label kind) of one data line, raising _Bad.
    ``growing``: the stream is read without its width, ``n_features`` being its cap
    (max_features).  ``kind``: the labels' kind so far (_Kind); ``why``: why the stream is
    read one-based (an index 0's message)."""
    tokens = body.split()
    label, tokens, lk = _label(tokens, _Kind() if kind is None else kind, labeled)
    pairs = []
    for tok in tokens:
        key, sep, value = tok.partition(b":")
        text = tok.decode("utf-8")
        if not sep or not key or not value:
            raise _Bad(f"expected idx:value, got {text!r}")
        if key == b"qid":
            if not _QID.match(value):
                raise _Bad(f"the qid in {text!r} is not an integer")
            continue
        if not key.isdigit():
            raise _Bad(f"the index in {text!r} is not a non-negative integer")
        if len(key) > 18:
            raise _Bad("an index has more than 18 digits")
        v = parse_number(value)
        if v is None:
            raise _Bad(f"the value {_short(value.decode('utf-8'))} is not a number")
        idx = int(key)
        if idx < shift:
            raise _Bad("has index 0 but zero_based=False; pass zero_based=True or 'auto'"
                       if why is None else f"has index 0, but the indices are read one-based "
                       f"({why}); pass zero_based=True if they count from 0")
        col = idx - shift
        if n_features is not None and col >= n_features:
            if growing:
                raise _Bad(f"uses column {col:,} (counting from 0), more than the "
                           f"{n_features:,} columns a stream of unknown width may grow to "
                           f"(max_features={n_features}); pass a larger max_features "
                           "(--max-features) or the width (n_features, --n-features)")
            raise _Bad(f"uses column {col} (counting from 0) but n_features={n_features}")
        pairs.append((col, v))
    pairs.sort(key=lambda p: p[0])
    for a, b in zip(pairs, pairs[1:]):
        if a[0] == b[0]:
            raise _Bad(f"column {a[0]} (counting from 0) appears more than once")
    return label, pairs, lk


def _svmlight_rows(data, name, owner, n_features, shift, on_error, growing, labeled, why):
    """(labels, rows, lines, skipped) of svmlight text, its labels' kind decided by the first
    row read with a label."""
    kind = _Kind()
    labels, rows, lines, skipped = [], [], [], 0
    for no, line in enumerate(data.splitlines(), 1):
        body = line.split(b"#", 1)[0]
        if not body.split():
            continue
        try:
            label, pairs, lk = _svmlight_line(body, shift, n_features, growing, kind, labeled,
                                              why)
        except (_Bad, UnicodeDecodeError) as e:
            if on_error == "skip":
                skipped += 1
                continue
            reason = _utf8_reason(line) or e.reason
            raise ValueError(f"{owner}: {name}, line {no}: {reason}") from None
        if not kind.kind and lk:
            kind.kind, kind.line = lk, no
        if lk == 2:
            try:
                label = label.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"{owner}: {name}, line {no}: not UTF-8 text ({e.reason} in "
                                 "the label)") from None
        labels.append(label)
        rows.append(pairs)
        lines.append(no)
    if kind.kind == 2:
        labels = ["" if lab is None else lab for lab in labels]
    else:
        labels = [float("nan") if lab is None else lab for lab in labels]
    return labels, rows, lines, skipped


def read_svmlight(data, name, owner="iter_svmlight", n_features=None, zero_based=True,
                  on_error="raise", labeled=True):
    """Parse svmlight text.

    Parameters
    ----------
    data : bytes
    name : str
        The file, for messages.
    owner : str
        The function messages start with.
    n_features : int or None
        Columns (a larger column is an error); None: no limit.
    zero_based : bool, None or "auto"
        False: the written index 1 is column 0 (an index 0 is an error).  None: as the file
        declares, else False.  "auto": as the file declares, else True if an index 0 occurs.
    on_error : "raise" or "skip"
    labeled : True or "auto"
        "auto": a line that starts with a feature is a row without a label.

    Returns
    -------
    labels : list of float, or list of str (text labels)
    rows : list of list of (column, value), sorted by column
    lines : list of int, the line of each row
    skipped : int, the bad lines skipped

    Raises
    ------
    ValueError
        ``"<owner>: <name>, line <n>: <reason>"`` at the first bad line.
    """
    zero, why = _zero_based(data, zero_based, False)
    return _svmlight_rows(data, name, owner, n_features, 0 if zero else 1, on_error, False,
                          labeled, why)


def read_svmlight_growing(data, name, owner="iter_svmlight", max_features=1 << 26,
                          zero_based=False, on_error="raise", labeled=True):
    """Parse svmlight text as a stream of unknown width (``iter_svmlight(grow=True)``).

    The rows, labels, lines and errors of :func:`read_svmlight` with ``n_features`` the cap
    ``max_features``, and the two messages of such a stream (an index 0 read one-based; a
    column past the cap); plus ``widths``: after each row, the largest column of the rows so
    far + 1 (0 before any column): a chunk ending at that row is that wide.

    ``zero_based`` None or "auto": as the file declares, else one-based (decided before any
    row arrives).

    Returns
    -------
    labels, rows, lines, skipped : as :func:`read_svmlight`
    widths : list of int, one per row
    """
    zero, why = _zero_based(data, zero_based, True)
    labels, rows, lines, skipped = _svmlight_rows(data, name, owner, max_features,
                                                  0 if zero else 1, on_error, True, labeled, why)
    widths, width = [], 0
    for pairs in rows:
        if pairs:
            width = max(width, pairs[-1][0] + 1)
        widths.append(width)
    return labels, rows, lines, skipped, widths


def _csv_fields(body, delimiter):
    return body.split() if delimiter is None else \
        [f.strip() for f in body.split(delimiter.encode())]


def _header_line(lines, delimiter, label_column):
    """The line number of the header ``skip_header="auto"`` skips, or 0."""
    first = []
    for no, line in enumerate(lines, 1):
        body = line.split(b"#", 1)[0]
        if body.split():
            first.append((no, _csv_fields(body, delimiter)))
            if len(first) == 2:
                break
    if not first:
        return 0
    fields = first[0][1]
    n = len(fields)
    label = None if label_column is None or not -n <= label_column < n else label_column % n
    text = [j for j, f in enumerate(fields) if j != label and parse_number(f) is None]
    if not text:              # only a text label over a numeric one: pandas' integer names
        nxt = first[1][1] if len(first) > 1 else []
        header = label is not None and len(nxt) == n and fields[label] != b"" and \
            parse_number(fields[label]) is None and parse_number(nxt[label]) is not None
        return first[0][0] if header else 0
    if len(first) > 1:
        nxt = first[1][1]
        if len(nxt) != n or all(parse_number(nxt[j]) is None for j in text):
            return 0
    return first[0][0]


def read_csv(data, name, owner="iter_csv", label_column=-1, delimiter=",", skip_header="auto",
             on_error="raise", with_lines=False):
    """Parse delimited text of numeric features and one label column.

    Every field is stripped of ASCII whitespace; ``delimiter`` None splits on runs of it.  The
    first data line fixes the width (at least 2) and the label column (negative: from the end;
    None: no label column, every field a feature and the labels NaN); a line of another width,
    a feature that is not a number or an empty label is bad.  The labels are floats if every
    one is a number, else their stripped text.  ``skip_header``: True skips the first line,
    "auto" the first data line when it is a header (see the module docstring).

    Returns
    -------
    X : list of list of float
    y : list of float, or list of str
    skipped : int
    lines : list of int, the line of each row (with ``with_lines`` only)

    Raises
    ------
    ValueError
        At the first bad line, naming it.
    """
    lines = data.splitlines()
    if skip_header == "auto":
        start = _header_line(lines, delimiter, label_column)
    else:
        start = 1 if skip_header else 0
    n_cols = first = label = None
    X, y, rows_at, skipped = [], [], [], 0
    for no, line in enumerate(lines[start:], start + 1):
        body = line.split(b"#", 1)[0]
        if not body.split():
            continue
        fields = _csv_fields(body, delimiter)
        if n_cols is None:
            n_cols, first = len(fields), no
            if label_column is None:
                label = n_cols
            else:
                if n_cols < 2:
                    raise ValueError(f"{owner}: {name} has {n_cols} column per row; at least two "
                                     "are needed (features and a label); check the delimiter")
                if not -n_cols <= label_column < n_cols:
                    raise ValueError(f"{owner}: label_column={label_column} is out of range for "
                                     f"{name}, which has {n_cols} columns")
                label = label_column % n_cols
        try:
            if len(fields) != n_cols:
                raise _Bad(f"line {no}: {len(fields)} columns, but line {first} has {n_cols}")
            row = []
            for j, f in enumerate(fields):
                if j == label:
                    continue
                v = parse_number(f)
                if v is None:
                    hints = [f"if column {j} holds the labels, pass label_column={j}"]
                    if not X and skip_header is not True and not start:
                        hints.append("if the first line is a header, pass skip_header=True")
                    raise _Bad(f": line {no}, column {j} (counting from 0) holds "
                               f"{f.decode('utf-8', 'backslashreplace')!r}, which is not a "
                               f"number; only the label column may hold text "
                               f"({'; '.join(hints)})")
                row.append(v)
            if label < n_cols and not fields[label]:
                raise _Bad(f"line {no}: the label field is empty")
        except _Bad as e:
            if on_error == "skip":
                skipped += 1
                continue
            sep = "" if e.reason.startswith(":") else ", "
            raise ValueError(f"{owner}: {name}{sep}{e.reason}") from None
        X.append(row)
        y.append(fields[label] if label < n_cols else b"nan")
        rows_at.append(no)
    values = [parse_number(lab) for lab in y]
    if all(v is not None for v in values):
        out = X, values, skipped
    else:
        out = X, [lab.decode("utf-8").strip() for lab in y], skipped
    return out + (rows_at,) if with_lines else out
