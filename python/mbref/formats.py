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
"""

import re

__all__ = ["parse_number", "read_svmlight", "read_svmlight_growing", "read_csv"]

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


_ZERO_GROWING = ("has index 0, but a stream read without its width is one-based unless told "
                 "otherwise (the index 0 cannot be known before it arrives); pass "
                 "zero_based=True (--zero-based)")


def _svmlight_line(body, shift, n_features, growing=False):
    """(label, sorted [(column, value)]) of one data line, raising _Bad.  ``growing``: the
    stream is read without its width, ``n_features`` being its cap (max_features)."""
    tokens = body.split()
    label = parse_number(tokens[0])
    if label is None:
        raise _Bad(f"the label {_short(tokens[0].decode('utf-8'))} is not a number")
    pairs = []
    for tok in tokens[1:]:
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
            raise _Bad(_ZERO_GROWING if growing else
                       "has index 0 but zero_based=False; pass zero_based=True or 'auto'")
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
    return label, pairs


def read_svmlight(data, name, owner="iter_svmlight", n_features=None, zero_based=True,
                  on_error="raise"):
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
    zero_based : bool
        False: the written index 1 is column 0 (an index 0 is an error).
    on_error : "raise" or "skip"

    Returns
    -------
    labels : list of float
    rows : list of list of (column, value), sorted by column
    lines : list of int, the line of each row
    skipped : int, the bad lines skipped

    Raises
    ------
    ValueError
        ``"<owner>: <name>, line <n>: <reason>"`` at the first bad line.
    """
    shift = 0 if zero_based else 1
    labels, rows, lines, skipped = [], [], [], 0
    for no, line in enumerate(data.splitlines(), 1):
        body = line.split(b"#", 1)[0]
        if not body.split():
            continue
        try:
            label, pairs = _svmlight_line(body, shift, n_features)
        except (_Bad, UnicodeDecodeError) as e:
            if on_error == "skip":
                skipped += 1
                continue
            reason = _utf8_reason(line) or e.reason
            raise ValueError(f"{owner}: {name}, line {no}: {reason}") from None
        labels.append(label)
        rows.append(pairs)
        lines.append(no)
    return labels, rows, lines, skipped


def read_svmlight_growing(data, name, owner="iter_svmlight", max_features=1 << 26,
                          zero_based=False, on_error="raise"):
    """Parse svmlight text as a stream of unknown width (``iter_svmlight(grow=True)``).

    The rows, labels, lines and errors of :func:`read_svmlight` with ``n_features`` the cap
    ``max_features``, and the two messages of such a stream (an index 0 read one-based; a
    column past the cap); plus ``widths``: after each row, the largest column of the rows so
    far + 1 (0 before any column): a chunk ending at that row is that wide.

    Returns
    -------
    labels, rows, lines, skipped : as :func:`read_svmlight`
    widths : list of int, one per row
    """
    shift = 0 if zero_based else 1
    labels, rows, lines, widths, skipped = [], [], [], [], 0
    width = 0
    for no, line in enumerate(data.splitlines(), 1):
        body = line.split(b"#", 1)[0]
        if not body.split():
            continue
        try:
            label, pairs = _svmlight_line(body, shift, max_features, growing=True)
        except (_Bad, UnicodeDecodeError) as e:
            if on_error == "skip":
                skipped += 1
                continue
            reason = _utf8_reason(line) or e.reason
            raise ValueError(f"{owner}: {name}, line {no}: {reason}") from None
        if pairs:
            width = max(width, pairs[-1][0] + 1)
        labels.append(label)
        rows.append(pairs)
        lines.append(no)
        widths.append(width)
    return labels, rows, lines, skipped, widths


def read_csv(data, name, owner="iter_csv", label_column=-1, delimiter=",", skip_header=False,
             on_error="raise"):
    """Parse delimited text of numeric features and one label column.

    Every field is stripped of ASCII whitespace; ``delimiter`` None splits on runs of it.  The
    first data line fixes the width (at least 2) and the label column (negative: from the end);
    a line of another width, a feature that is not a number or an empty label is bad.  The
    labels are floats if every one is a number, else their stripped text.

    Returns
    -------
    X : list of list of float
    y : list of float, or list of str
    skipped : int

    Raises
    ------
    ValueError
        At the first bad line, naming it.
    """
    lines = data.splitlines()
    start = 1 if skip_header else 0
    n_cols = first = label = None
    X, y, skipped = [], [], 0
    for no, line in enumerate(lines[start:], start + 1):
        body = line.split(b"#", 1)[0]
        if not body.split():
            continue
        fields = body.split() if delimiter is None else \
            [f.strip() for f in body.split(delimiter.encode())]
        if n_cols is None:
            n_cols, first = len(fields), no
            if n_cols < 2:
                raise ValueError(f"{owner}: {name} has {n_cols} column per row; at least two are "
                                 "needed (features and a label); check the delimiter")
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
                    hint = " (if the first line is a header, pass skip_header=True)" \
                        if not X and not skipped and not skip_header and no == first else ""
                    raise _Bad(f": line {no}, column {j} (counting from 0) holds "
                               f"{f.decode('utf-8', 'backslashreplace')!r}, which is not a "
                               f"number; only the label column may hold text{hint}")
                row.append(v)
            if not fields[label]:
                raise _Bad(f"line {no}: the label field is empty")
        except _Bad as e:
            if on_error == "skip":
                skipped += 1
                continue
            sep = "" if e.reason.startswith(":") else ", "
            raise ValueError(f"{owner}: {name}{sep}{e.reason}") from None
        X.append(row)
        y.append(fields[label])
    values = [parse_number(lab) for lab in y]
    if all(v is not None for v in values):
        return X, values, skipped
    return X, [lab.decode("utf-8").strip() for lab in y], skipped
