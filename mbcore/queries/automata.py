"""Deterministic finite automata (Angluin's lectures 26-27; Angluin 1987): :class:`DFA`, with
batch runs in a compiled kernel, Hopcroft minimization to a canonical form, shortest
counterexamples to equivalence, seeded random automata, safe ``.npz`` persistence and drawing.

The learner of DFAs from membership and equivalence queries (L*) and its oracles are in
``mbcore.queries.regular``; every public name of both modules is importable from
:mod:`mbcore.queries`.  The pure-Python twin is ``mbref.queries`` (the specification: the same
names and results, lists instead of arrays).

Conventions
-----------
* States are 0..n-1; ``delta[q, i]`` is the state reached from q on the letter
  ``alphabet[i]`` (an (n, k) int32 array); ``accepting`` is a bool array; ``start`` a state.
* The alphabet is a tuple of distinct hashable letters, usually one-character strings (a
  string ``"ab"`` given as the alphabet means the letters ``("a", "b")``).
* A *word* is a sequence of letters: a tuple, a list, or a string when the letters are
  characters.  Words returned (counterexamples) are tuples of letters.
* "The least word among the shortest" orders words of equal length by the positions of their
  letters in the alphabet (lexicographically).

Examples
--------
The two-state automaton of the words over {a, b} with an even number of a's:

>>> from mbcore.queries import DFA
>>> even_a = DFA("ab", delta=[[1, 0], [0, 1]], accepting=[True, False])
>>> even_a.accepts("abba"), even_a.accepts("ab"), even_a.accepts("")
(True, False, True)
>>> even_a.accepts_many(["", "a", "aa", "bab"]).tolist()
[True, False, True, False]
>>> odd_b = DFA("ab", delta=[[0, 1], [1, 0]], accepting=[False, True])
>>> even_a.equivalent(odd_b)               # the shortest word they disagree on
()
>>> even_a.equivalent(DFA("ab", [[1, 0], [2, 1], [1, 2]], [True, False, False]))
('a', 'a')
"""

import json
import math
import os

import numpy as np

from .._kernels import automata as _k
from ._common import hashable as _hashable, is_int as _is_int

__all__ = ["DFA"]

FORMAT_NAME = "mbcore.dfa"
FORMAT_VERSION = 1
_JSON_LETTER = (str, int)


def check_alphabet(owner, alphabet):
    """The alphabet as a tuple of distinct hashable letters (a str gives its characters)."""
    if isinstance(alphabet, str):
        alphabet = tuple(alphabet)
    try:
        letters = tuple(alphabet)
    except TypeError:
        raise TypeError(f"{owner}: parameter alphabet must be a sequence of distinct hashable "
                        f"letters, got {type(alphabet).__name__} ({alphabet!r})") from None
    if not letters:
        raise ValueError(f"{owner}: parameter alphabet must hold at least one letter, got "
                         f"{alphabet!r}")
    seen = set()
    for c in letters:
        if not _hashable(c):
            raise TypeError(f"{owner}: parameter alphabet holds the unhashable letter {c!r}")
        if isinstance(c, np.generic):
            c = c.item()
        if c in seen:
            raise ValueError(f"{owner}: parameter alphabet holds the letter {c!r} twice "
                             f"(alphabet {letters!r})")
        seen.add(c)
    return tuple(c.item() if isinstance(c, np.generic) else c for c in letters)


class DFA:
    """A deterministic finite automaton over a finite alphabet.

    A DFA reads a word letter by letter from ``start``, moving from q to ``delta[q, i]`` on
    the letter ``alphabet[i]``; it accepts the word when the last state is accepting.  Every
    regular language has a unique minimal DFA up to the numbering of states (Myhill-Nerode);
    :meth:`minimize` numbers it canonically, so equal languages give identical arrays.

    Parameters
    ----------
    alphabet : sequence of distinct hashable letters (or a str of distinct characters)
    delta : array-like of int, shape (n, k)
        The transition table: n >= 1 states, k = len(alphabet) letters, entries in [0, n).
    accepting : array-like of bool (or 0/1), shape (n,)
    start : int, default 0

    Attributes
    ----------
    alphabet : tuple
    delta : ndarray of int32, shape (n, k) (read-only)
    accepting : ndarray of bool, shape (n,) (read-only)
    start : int
    n_states : int

    Notes
    -----
    :meth:`accepts_many` runs a whole batch in a compiled kernel with the GIL released: the
    words are encoded once (letter positions concatenated, with offsets) and the kernel reads
    one table entry per letter.  :meth:`accepts` runs one word in Python.  Invalid input
    raises ValueError/TypeError naming the class, the parameter and the value.  The twin is
    ``mbref.queries.DFA``.

    Sources: Angluin, lectures 26-27 (finite automata, L*); Angluin (1987), "Learning regular
    sets from queries and counterexamples"; Hopcroft (1971), "An n log n algorithm for
    minimizing states in a finite automaton".

    Examples
    --------
    >>> d = DFA("ab", [[1, 2], [1, 1], [2, 2]], [False, True, False])   # words starting with a
    >>> d.accepts("ab"), d.accepts("ba"), d.n_states
    (True, False, 3)
    >>> m = DFA("ab", [[1, 2], [3, 3], [2, 2], [3, 3]], [False, True, False, True]).minimize()
    >>> m.n_states, m.delta.tolist(), m.accepting.tolist()
    (3, [[1, 2], [1, 1], [2, 2]], [False, True, False])
    >>> m.equivalent(d) is None
    True
    """

    def __init__(self, alphabet, delta, accepting, start=0):
        o = "DFA"
        letters = check_alphabet(o, alphabet)
        k = len(letters)
        try:
            D = np.asarray(delta)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{o}: parameter delta must be an n x {k} table of states "
                            f"({exc})") from None
        if D.ndim != 2 or D.shape[1] != k:
            raise ValueError(f"{o}: parameter delta must have shape (n, {k}) (states x "
                             f"letters), got shape {D.shape}")
        n = D.shape[0]
        if n == 0:
            raise ValueError(f"{o}: parameter delta must have at least one state (row), got 0")
        if n > np.iinfo(np.int32).max:
            raise ValueError(f"{o}: parameter delta has {n} states, more than int32 holds")
        whole_floats = D.dtype.kind == "f" and bool(np.isfinite(D).all()) and \
            bool((D == np.floor(D)).all())
        if D.dtype.kind not in "iu" and not whole_floats:
            raise TypeError(f"{o}: parameter delta must hold integer states, got dtype "
                            f"{D.dtype}")
        bad = (D < 0) | (D >= n)
        if bad.any():
            q, i = (int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"{o}: parameter delta holds the state {D[q, i].item()!r} at "
                             f"({q}, {i}), outside [0, {n})")
        A = np.asarray(accepting)
        if A.shape != (n,):
            raise ValueError(f"{o}: parameter accepting must have shape ({n},) (one per "
                             f"state), got shape {A.shape}")
        if A.dtype.kind != "b":
            if A.dtype.kind not in "iuf" or not ((A == 0) | (A == 1)).all():
                raise ValueError(f"{o}: parameter accepting must hold booleans (or 0/1), got "
                                 f"{A.tolist()[:8]!r}")
        if not _is_int(start):
            raise TypeError(f"{o}: parameter start must be an integer state, got {start!r}")
        if not 0 <= start < n:
            raise ValueError(f"{o}: parameter start must be a state in [0, {n}), got {start}")
        self.alphabet = letters
        self.delta = np.ascontiguousarray(D, dtype=np.int32)
        self.delta.flags.writeable = False
        self.accepting = np.ascontiguousarray(A, dtype=bool)
        self.accepting.flags.writeable = False
        self.start = int(start)
        self._pos = {c: i for i, c in enumerate(letters)}
        self._lists = None

    @classmethod
    def _trusted(cls, alphabet, delta, accepting, start=0):
        """A DFA from tables mbcore built itself (lists, already valid: L*'s hypotheses),
        without the constructor's checks."""
        self = cls.__new__(cls)
        self.alphabet = alphabet
        self.delta = np.array(delta, dtype=np.int32).reshape(len(delta), len(alphabet))
        self.delta.flags.writeable = False
        self.accepting = np.array(accepting, dtype=bool)
        self.accepting.flags.writeable = False
        self.start = start
        self._pos = {c: i for i, c in enumerate(alphabet)}
        self._lists = (delta, accepting)
        return self

    @property
    def n_states(self):
        """The number of states n."""
        return self.delta.shape[0]

    def _as_lists(self):
        if self._lists is None:
            self._lists = (self.delta.tolist(), self.accepting.tolist())
        return self._lists

    # -- running words -----------------------------------------------------------------------

    def _encode(self, owner, word):
        pos = self._pos
        out = []
        if isinstance(word, (bytes, bytearray)) or not hasattr(word, "__iter__"):
            raise TypeError(f"{owner}: a word must be a sequence of letters, got "
                            f"{type(word).__name__} ({word!r})")
        for j, c in enumerate(word):
            i = pos.get(c) if _hashable(c) else None
            if i is None:
                raise ValueError(f"{owner}: the letter {c!r} (position {j} of the word) is not "
                                 f"in the alphabet {self.alphabet!r}")
            out.append(i)
        return out

    def state_of(self, word):
        """The state reached from ``start`` on word."""
        d, _ = self._as_lists()
        q = self.start
        for i in self._encode("DFA.state_of", word):
            q = d[q][i]
        return q

    def accepts(self, word):
        """Whether the automaton accepts word (a sequence of letters).

        ValueError naming the letter for a letter outside the alphabet.
        """
        d, acc = self._as_lists()
        q = self.start
        for i in self._encode("DFA.accepts", word):
            q = d[q][i]
        return acc[q]

    def encode(self, words):
        """A batch of words as ``(offsets, positions)``: the letters' positions in the
        alphabet (int32), concatenated, and int64 offsets (``len(words) + 1``; word j is
        ``positions[offsets[j]:offsets[j+1]]``).  One pass in Python; when every letter and
        every word is a str, NumPy does the mapping."""
        o = "DFA.encode"
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise TypeError(f"{o}: parameter words must be a sequence of words, got "
                            f"{type(words).__name__} ({words!r})")
        words = list(words)
        lengths = np.fromiter((len(w) if hasattr(w, "__len__") else -1 for w in words),
                              dtype=np.int64, count=len(words))
        if (lengths < 0).any():
            j = int(np.flatnonzero(lengths < 0)[0])
            raise TypeError(f"{o}: word {j} must be a sequence of letters, got "
                            f"{type(words[j]).__name__} ({words[j]!r})")
        offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        chars = all(isinstance(c, str) and len(c) == 1 for c in self.alphabet)
        if chars and all(isinstance(w, str) for w in words):
            text = "".join(words)
            codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
            keys = np.array([ord(c) for c in self.alphabet], dtype=np.uint32)
            order = np.argsort(keys)
            at = np.searchsorted(keys[order], codes)
            at = np.minimum(at, len(keys) - 1)
            ok = keys[order][at] == codes
            if not ok.all():
                p = int(np.flatnonzero(~ok)[0])
                j = int(np.searchsorted(offsets, p, side="right") - 1)
                raise ValueError(f"{o}: the letter {text[p]!r} (position {p - offsets[j]} of "
                                 f"word {j}) is not in the alphabet {self.alphabet!r}")
            positions = order[at].astype(np.int32)
        else:
            pos = self._pos
            try:
                if any(isinstance(w, (bytes, bytearray)) for w in words):
                    raise TypeError
                flat = [pos[c] for w in words for c in w]
            except (KeyError, TypeError):
                flat = self._encode_slowly(o, words)
            positions = np.array(flat, dtype=np.int32)
        return offsets, positions

    def _encode_slowly(self, o, words):
        """The letter positions of a batch, letter by letter, naming the first bad one."""
        pos = self._pos
        flat = []
        for j, w in enumerate(words):
            if isinstance(w, (bytes, bytearray)):
                raise TypeError(f"{o}: word {j} must be a sequence of letters, got "
                                f"{type(w).__name__}")
            for t, c in enumerate(w):
                i = pos.get(c) if _hashable(c) else None
                if i is None:
                    raise ValueError(f"{o}: the letter {c!r} (position {t} of word {j}) "
                                     f"is not in the alphabet {self.alphabet!r}")
                flat.append(i)
        return flat

    def accepts_many(self, words=None, *, offsets=None, positions=None):
        """Whether each word of a batch is accepted, as a bool array (compiled, GIL released).

        Give either ``words`` (a sequence of words: encoded once with :meth:`encode`) or the
        encoded batch ``offsets`` (int, non-decreasing from 0 to ``len(positions)``) and
        ``positions`` (ints in [0, k)), which are checked and then trusted by the kernel.
        """
        o = "DFA.accepts_many"
        if words is not None:
            if offsets is not None or positions is not None:
                raise TypeError(f"{o}: give words or (offsets, positions), not both")
            offsets, positions = self.encode(words)
        elif offsets is None or positions is None:
            raise TypeError(f"{o}: give words, or both offsets and positions")
        off, pos = self._check_batch(o, offsets, positions)
        out = np.empty(off.shape[0] - 1, dtype=np.uint8)
        _k.run_batch(self.delta, self.accepting.view(np.uint8), self.start, off, pos, out)
        return out.view(bool)

    def _check_batch(self, o, offsets, positions):
        off = np.asarray(offsets)
        pos = np.asarray(positions)
        for name, a in (("offsets", off), ("positions", pos)):
            if a.ndim != 1:
                raise ValueError(f"{o}: parameter {name} must be 1-D, got shape {a.shape}")
            if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind == "f"):
                raise TypeError(f"{o}: parameter {name} must hold integers, got dtype "
                                f"{a.dtype}")
        if off.shape[0] < 1 or off[0] != 0 or off[-1] != pos.shape[0]:
            raise ValueError(f"{o}: parameter offsets must start at 0 and end at "
                             f"len(positions) = {pos.shape[0]}, got {off[:1].tolist()} ... "
                             f"{off[-1:].tolist()}")
        if off.shape[0] > 1 and (np.diff(off) < 0).any():
            raise ValueError(f"{o}: parameter offsets must be non-decreasing")
        k = len(self.alphabet)
        if pos.size and (pos.min() < 0 or pos.max() >= k):
            bad = int(np.flatnonzero((pos < 0) | (pos >= k))[0])
            raise ValueError(f"{o}: parameter positions holds {pos[bad].item()} at {bad}, "
                             f"outside [0, {k}) (positions of letters in the alphabet)")
        return (np.ascontiguousarray(off, dtype=np.int64),
                np.ascontiguousarray(pos, dtype=np.int32))

    # -- minimization and equivalence ---------------------------------------------------------

    def minimize(self):
        """The minimal DFA of the same language, numbered canonically.

        Unreachable states are removed (a breadth-first search from the start), equivalent
        states are merged by Hopcroft's partition refinement (refine by the predecessors of a
        splitter block on each letter; O(k n log n)), and the classes are numbered in
        breadth-first order from the start, following the letters in the alphabet's order.
        Two automata accept the same language exactly when their minimized forms have
        identical ``delta``, ``accepting`` and ``start`` (always 0).

        Examples
        --------
        >>> d = DFA("ab", [[1, 2], [0, 3], [3, 0], [2, 1], [4, 4]], [1, 0, 0, 1, 1])
        >>> m = d.minimize()          # state 4 is unreachable; 0~3 and 1~2 (even length)
        >>> m.n_states, m.delta.tolist(), m.accepting.tolist()
        (2, [[1, 1], [0, 0]], [True, False])
        """
        d, acc = self._as_lists()
        return DFA(self.alphabet, *_minimize(d, acc, self.start, len(self.alphabet)))

    def equivalent(self, other):
        """None when both automata accept the same language, else a shortest word on which they
        differ (the least among the shortest, in the order of alphabet positions).

        A breadth-first search over the pairs of states reachable in the product automaton,
        following the letters in the alphabet's order; the first pair found with different
        acceptance ends it, and its access path is the word.  O(n1 n2 k) at most.
        """
        if not isinstance(other, DFA):
            raise TypeError(f"DFA.equivalent: parameter other must be a DFA, got "
                            f"{type(other).__name__}")
        if tuple(other.alphabet) != self.alphabet:
            raise ValueError(f"DFA.equivalent: the alphabets differ: {self.alphabet!r} and "
                             f"{tuple(other.alphabet)!r}")
        d1, a1 = self._as_lists()
        d2, a2 = other._as_lists()
        w = _product_bfs(d1, a1, self.start, d2, a2, other.start, len(self.alphabet))
        return None if w is None else tuple(self.alphabet[i] for i in w)

    def distinguishing_word(self, p, q):
        """A shortest word (the least among the shortest) accepted from exactly one of the
        states p and q, or None when they are equivalent."""
        n = self.n_states
        for name, v in (("p", p), ("q", q)):
            if not _is_int(v) or not 0 <= v < n:
                raise ValueError(f"DFA.distinguishing_word: parameter {name} must be a state in "
                                 f"[0, {n}), got {v!r}")
        d, acc = self._as_lists()
        w = _product_bfs(d, acc, int(p), d, acc, int(q), len(self.alphabet))
        return None if w is None else tuple(self.alphabet[i] for i in w)

    # -- generation ---------------------------------------------------------------------------

    @classmethod
    def random(cls, n, alphabet, seed=0, minimal=False, max_tries=1000):
        """A seeded random DFA with n states, every one reachable from the start 0.

        The draws come from Python's ``random.Random(seed)`` (so the twin draws the same
        automaton): for the states i = 1..n-1 in order, one free transition (q, letter) with
        q < i, uniform among the free ones listed in (state, letter) order, is pointed at i
        (a random spanning tree: every state is reachable); then every remaining transition,
        in (state, letter) order, goes to a uniform state; then each state accepts with
        probability 1/2 (in state order).

        Parameters
        ----------
        n : int >= 1
        alphabet : sequence of letters
        seed : int or None
        minimal : bool, default False
            Draw again (with the same generator) until the automaton is minimal, and return its
            canonical minimized form: exactly n states, a minimal DFA.
        max_tries : int, default 1000
            The most draws with ``minimal=True``; ValueError after that.

        Examples
        --------
        >>> d = DFA.random(20, "ab", seed=3, minimal=True)
        >>> d.n_states, d.minimize().n_states, d.start
        (20, 20, 0)
        """
        import random as _random

        o = "DFA.random"
        if not _is_int(n) or n < 1:
            raise ValueError(f"{o}: parameter n must be an integer >= 1, got {n!r}")
        if not _is_int(max_tries) or max_tries < 1:
            raise ValueError(f"{o}: parameter max_tries must be an integer >= 1, got "
                             f"{max_tries!r}")
        letters = check_alphabet(o, alphabet)
        rng = _random.Random(seed)
        for _ in range(max_tries):
            delta, acc = _random_tables(rng, int(n), len(letters))
            d = cls(letters, delta, acc, 0)
            if not minimal:
                return d
            m = d.minimize()
            if m.n_states == n:
                return m
        raise ValueError(f"{o}: no minimal DFA with {n} states over {len(letters)} letters in "
                         f"{max_tries} draws (parameter max_tries)")

    # -- persistence --------------------------------------------------------------------------

    def save(self, file, *, compress=False):
        """Write the automaton to an ``.npz`` archive (no pickle).

        Entries: ``delta`` (int32, (n, k)), ``accepting`` (bool, (n,)) and ``__meta__`` (a
        uint8 array holding a UTF-8 JSON document: ``{"format": "mbcore.dfa",
        "format_version": 1, "alphabet": [...], "start": q, "arrays": {name: {"dtype",
        "shape", "sha256"}}, "digest": "sha256:..."}``, the digests computed as for the
        learners' files, :mod:`mbcore.persistence`: a changed byte is detected).  The letters
        must be str or int (what JSON keeps exactly); anything else raises TypeError naming
        the letter.
        """
        for c in self.alphabet:
            if not isinstance(c, _JSON_LETTER) or isinstance(c, bool):
                raise TypeError(f"DFA.save: the letter {c!r} of type {type(c).__name__} cannot "
                                "be saved (letters must be str or int)")
        from .. import persistence as P

        arrays = {"delta": self.delta, "accepting": self.accepting}
        meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
                "alphabet": list(self.alphabet), "start": self.start,
                "arrays": {k: {"dtype": a.dtype.str, "shape": list(a.shape),
                               "sha256": P.array_digest(a)} for k, a in arrays.items()}}
        meta["digest"] = P.meta_digest(meta)
        blob = np.frombuffer(json.dumps(meta, ensure_ascii=True).encode("ascii"), dtype=np.uint8)
        writer = np.savez_compressed if compress else np.savez
        if isinstance(file, (str, os.PathLike)):
            with open(file, "wb") as f:
                writer(f, __meta__=blob, delta=self.delta, accepting=self.accepting)
        else:
            writer(file, __meta__=blob, delta=self.delta, accepting=self.accepting)

    @classmethod
    def load(cls, file, *, max_bytes=None):
        """Read an automaton written by :meth:`save` (a path or a binary file object).

        Every check is made before the automaton is built: a valid archive without pickled
        data, exactly the entries ``__meta__``, ``delta`` and ``accepting``, the format name
        and version, the digests (of the JSON document and of each array, with its dtype and
        shape as declared), the alphabet (distinct str/int letters), the dtypes and shapes,
        delta entries in range, start in range.  The digests catch accidents, not forgery:
        the checks after them are what make a crafted file safe.  Anything else raises
        :class:`mbcore.persistence.FormatError` (a ValueError) naming the file; ``max_bytes``
        (default 4 GiB) bounds what the entries may hold before anything is read.

        Examples
        --------
        >>> import io
        >>> buf = io.BytesIO()
        >>> DFA("ab", [[1, 0], [0, 1]], [True, False]).save(buf)
        >>> _ = buf.seek(0)
        >>> DFA.load(buf).delta.tolist()
        [[1, 0], [0, 1]]
        """
        from .. import persistence as P

        limit = P.check_limit(max_bytes, P.MAX_LOAD_BYTES, "max_bytes")
        f, name, close = P.open_archive(file, limit + P.ZIP_SLACK)
        try:
            return _load(cls, f, name, limit)
        finally:
            if close:
                f.close()

    # -- drawing ------------------------------------------------------------------------------

    def to_dot(self):
        """The automaton as graphviz ``dot`` text: accepting states are double circles, an
        arrow from a point marks the start, parallel letters share one edge label.

        Examples
        --------
        >>> print(DFA("ab", [[1, 0], [0, 1]], [True, False]).to_dot())   # doctest: +ELLIPSIS
        digraph DFA {
          rankdir=LR;
        ...
          0 -> 1 [label="a"];
          0 -> 0 [label="b"];
        ...
        """
        d, acc = self._as_lists()
        return _to_dot(self.n_states, self.start, acc, lambda q, i: d[q][i], self.alphabet)

    def plot(self, ax=None):
        """Draw the automaton with matplotlib (an optional dependency), for automata of at
        most 12 states.

        The states sit on a circle, clockwise from the start state at the left, where an
        arrow marked "start" comes in; accepting states have a double ring.  An edge q -> t
        carries the letters that lead from q to t (three or more consecutive letters of the
        alphabet as a range, "a-d"), and bends to the right of its direction, so q -> t and
        t -> q are two arcs; a self-loop sits outside the circle.  Every label is placed at
        the first of a list of spots along its edge (the middle first, then towards the ends,
        on the edge and to either side) whose text box, measured as drawn in ``ax``, keeps
        clear of every state's circle and of the labels placed before (in a smaller font
        when no spot does): a label never covers a state or another label.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (when None, a new figure of 5 x 5 inches up to 8 states, 0.4 inch
            more per state above).  Its limits and aspect are set.

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        ValueError
            More than 12 states: a drawing that size is not legible (state numbers and
            labels crowd each other); :meth:`to_dot` gives Graphviz text for any size.  Also
            when a label fits nowhere clear of the states and the other labels even in the
            smaller font (many letters on many edges, e.g. 26 letters on 6 states; nothing is
            left drawn then).
        ImportError
            matplotlib is not installed.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> ax = DFA("ab", [[1, 0], [0, 1]], [True, False]).plot()
        >>> DFA.random(13, "ab", seed=0).plot()
        Traceback (most recent call last):
          ...
        ValueError: DFA.plot draws at most 12 states legibly, and this automaton has 13: ...
        """
        if self.n_states > _PLOT_MAX_STATES:
            raise ValueError(f"DFA.plot draws at most {_PLOT_MAX_STATES} states legibly, and "
                             f"this automaton has {self.n_states}: use DFA.to_dot() "
                             "(Graphviz) for larger automata")
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("DFA.plot needs matplotlib (pip install mbcore[plot])") from None
        if ax is None:
            side = 5.0 + 0.4 * max(0, self.n_states - 8)   # more room from 9 states on
            _, ax = plt.subplots(figsize=(side, side))
        d, acc = self._as_lists()
        _draw_dfa(ax, self.n_states, self.start, d, acc, self.alphabet)
        return ax

    def __repr__(self):
        return f"DFA(n_states={self.n_states}, alphabet={self.alphabet!r}, start={self.start})"

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_lists"] = None
        return state


# -- drawing (DFA.plot) ---------------------------------------------------------------------------

_PLOT_MAX_STATES = 12     # 12 states on a circle still leave room between neighbours for labels
_PLOT_R = 0.13            # a state's radius; the states sit on the unit circle
_PLOT_LIM = 1.75          # the axes show [-1.75, 1.75]^2: the circle, its loops, their labels


def _letters_label(positions, alphabet):
    """The letters at these alphabet positions, joined by commas; three or more consecutive
    positions as a range "first-last"."""
    out, i = [], 0
    while i < len(positions):
        j = i
        while j + 1 < len(positions) and positions[j + 1] == positions[j] + 1:
            j += 1
        if j - i >= 2:
            out.append(f"{alphabet[positions[i]]}-{alphabet[positions[j]]}")
        else:
            out.extend(str(alphabet[p]) for p in positions[i:j + 1])
        i = j + 1
    return ",".join(out)


def _boxes_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _box_meets_disc(box, x, y, radius):
    """Whether the box (x0, y0, x1, y1) comes within ``radius`` of the point (x, y)."""
    cx, cy = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    return math.hypot(cx - x, cy - y) < radius


def _draw_dfa(ax, n, start, d, acc, alphabet):
    """DFA.plot's drawing on ``ax`` (see its docstring): states, edges, labels placed clear of
    the states.  Raises ValueError, removing what it drew, when a label fits nowhere."""
    from matplotlib.patches import Circle, FancyArrowPatch
    from matplotlib.path import Path

    r = _PLOT_R
    ax.set_xlim(-_PLOT_LIM, _PLOT_LIM)
    ax.set_ylim(-_PLOT_LIM, _PLOT_LIM)
    ax.set_aspect("equal")
    ax.axis("off")
    # clockwise from the start state at the left
    ang = [math.pi - 2 * math.pi * ((q - start) % n) / n for q in range(n)]
    xy = [(math.cos(a), math.sin(a)) if n > 1 else (0.0, 0.0) for a in ang]
    drawn = []

    def keep(artist):
        drawn.append(artist)
        return artist

    for q, (x, y) in enumerate(xy):
        keep(ax.add_patch(Circle((x, y), r, fill=False, lw=1.2, gid="dfa-state")))
        if acc[q]:
            keep(ax.add_patch(Circle((x, y), r * 0.78, fill=False, lw=1.0,
                                     gid="dfa-state-ring")))
        keep(ax.text(x, y, str(q), ha="center", va="center", fontsize=10,
                     gid="dfa-state-number"))
    # the start arrow, from the left, and its word
    sx, sy = xy[start]
    keep(ax.add_patch(FancyArrowPatch((sx - r - 0.42, sy), (sx - r, sy), arrowstyle="-|>",
                                      mutation_scale=12, lw=1.2, shrinkA=0, shrinkB=0)))
    labels = [(keep(ax.text(sx - r - 0.44, sy, "start", ha="right", va="center", fontsize=9,
                            gid="dfa-label")), [(sx - r - 0.44, sy)])]
    for q in range(n):
        by_target = {}
        for i in range(len(alphabet)):
            by_target.setdefault(d[q][i], []).append(i)
        for t, positions in by_target.items():
            text = _letters_label(positions, alphabet)
            (x0, y0), (x1, y1) = xy[q], xy[t]
            if t == q:
                # a loop outside the circle (the start state's turned up, away from its arrow)
                phi = ang[q] if n > 1 else math.pi / 2
                if q == start and n > 1:
                    phi -= math.pi / 4
                al, be, L = 0.55, 0.45, r + 0.42
                # a cubic Bezier leaving the circle at phi - al and coming back at phi + al
                P = [(x0 + rho * math.cos(phi + a), y0 + rho * math.sin(phi + a))
                     for rho, a in ((r, -al), (L, -be), (L, be), (r, al))]
                keep(ax.add_patch(FancyArrowPatch(
                    path=Path(P, [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4]),
                    arrowstyle="-|>", mutation_scale=10, lw=1.0)))
                apex = 0.25 * r * math.cos(al) + 0.75 * L * math.cos(be)
                spots = [(x0 + (apex + s) * math.cos(phi + w), y0 + (apex + s) * math.sin(phi + w))
                         for s in (0.09, 0.15, 0.22, 0.3) for w in (0.0, 0.35, -0.35)]
            else:
                dx, dy = x1 - x0, y1 - y0
                rad = 0.2
                cx, cy = (x0 + x1) / 2 + rad * dy, (y0 + y1) / 2 - rad * dx
                a0 = math.atan2(cy - y0, cx - x0)
                a1 = math.atan2(cy - y1, cx - x1)
                P0 = (x0 + r * math.cos(a0), y0 + r * math.sin(a0))
                P2 = (x1 + r * math.cos(a1), y1 + r * math.sin(a1))
                keep(ax.add_patch(FancyArrowPatch(
                    path=Path([P0, (cx, cy), P2], [Path.MOVETO, Path.CURVE3, Path.CURVE3]),
                    arrowstyle="-|>", mutation_scale=10, lw=1.0)))
                norm = math.hypot(dx, dy)
                nx, ny = dy / norm, -dx / norm            # the side the arc bends to
                spots = []
                for s in (0.0, 0.07, -0.07, 0.13, -0.13, 0.2, -0.2):
                    for tt in (0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74):
                        bx = (1 - tt) ** 2 * P0[0] + 2 * tt * (1 - tt) * cx + tt ** 2 * P2[0]
                        by = (1 - tt) ** 2 * P0[1] + 2 * tt * (1 - tt) * cy + tt ** 2 * P2[1]
                        spots.append((bx + s * nx, by + s * ny))
            label = keep(ax.text(*spots[0], text, ha="center", va="center", fontsize=9,
                                 gid="dfa-label",
                                 bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none")))
            labels.append((label, spots))
    _place_labels(ax, labels, xy, r, drawn)


def _place_labels(ax, labels, xy, r, drawn):
    """Move each label to its first spot whose box clears every state and the labels placed
    before; a smaller font when none does; ValueError (the drawing removed) when even that
    fails."""
    ax.apply_aspect()
    to_px = ax.transData.transform
    (px0, py0), (px1, py1) = to_px((0.0, 0.0)), to_px((1.0, 1.0))
    sx, sy = abs(px1 - px0), abs(py1 - py0)
    margin = 0.02
    placed = []
    for label, spots in labels:
        for size in (label.get_fontsize(), 7.0):
            label.set_fontsize(size)
            ext = label.get_window_extent()
            pad = 0.15 * size * ax.figure.dpi / 72.0 if label.get_bbox_patch() else 0.0
            w, h = (ext.width + 2 * pad) / sx, (ext.height + 2 * pad) / sy
            ha = label.get_horizontalalignment()

            def box(p):
                x0 = p[0] - w / 2 if ha == "center" else (p[0] - w if ha == "right" else p[0])
                return (x0, p[1] - h / 2, x0 + w, p[1] + h / 2)

            best = next((p for p in spots
                         if not any(_box_meets_disc(box(p), x, y, r + margin) for x, y in xy)
                         and not any(_boxes_overlap(box(p), b) for b in placed)), None)
            if best is not None:
                label.set_position(best)
                placed.append(box(best))
                break
        else:
            for artist in drawn:
                artist.remove()
            raise ValueError(f"DFA.plot: the label {label.get_text()!r} fits nowhere clear "
                             "of the states and the other labels (too many letters on too "
                             "many edges for a legible drawing); use DFA.to_dot() (Graphviz), "
                             "or a larger Axes")


# -- helpers: minimisation and the product search (the twin writes its own) ------------------

def _random_tables(rng, n, k):
    delta = [[-1] * k for _ in range(n)]
    free = [(0, a) for a in range(k)]
    for i in range(1, n):
        j = rng.randrange(len(free))
        q, a = free.pop(j)
        delta[q][a] = i
        free.extend((i, b) for b in range(k))
    for q in range(n):
        for a in range(k):
            if delta[q][a] < 0:
                delta[q][a] = rng.randrange(n)
    acc = [rng.random() < 0.5 for _ in range(n)]
    return delta, acc


def _minimize(delta, accepting, start, k):
    """(delta, accepting, start) of the canonical minimal DFA, as lists."""
    order = [start]
    seen = {start}
    for q in order:
        for a in range(k):
            t = delta[q][a]
            if t not in seen:
                seen.add(t)
                order.append(t)
    idx = {q: j for j, q in enumerate(order)}
    n = len(order)
    d = [[idx[delta[q][a]] for a in range(k)] for q in order]
    acc = [bool(accepting[q]) for q in order]
    inv = [[[] for _ in range(n)] for _ in range(k)]
    for p in range(n):
        for a in range(k):
            inv[a][d[p][a]].append(p)
    F = [q for q in range(n) if acc[q]]
    N = [q for q in range(n) if not acc[q]]
    blocks = [set(b) for b in (F, N) if b]
    block_of = [0] * n
    for b, members in enumerate(blocks):
        for q in members:
            block_of[q] = b
    work = set(range(len(blocks))) if len(blocks) == 1 else \
        {0 if len(blocks[0]) <= len(blocks[1]) else 1}
    while work:
        A = list(blocks[work.pop()])
        for a in range(k):
            inv_a = inv[a]
            touched = {}
            for q in A:
                for p in inv_a[q]:
                    touched.setdefault(block_of[p], set()).add(p)
            for b, X in touched.items():
                Y = blocks[b]
                if len(X) == len(Y):
                    continue
                rest = Y - X
                nb = len(blocks)
                if len(X) <= len(rest):
                    blocks[b], new = rest, X
                else:
                    blocks[b], new = X, rest
                blocks.append(new)
                for p in new:
                    block_of[p] = nb
                if b in work:
                    work.add(nb)
                else:
                    work.add(nb if len(new) <= len(blocks[b]) else b)
    rep = {}
    for q in range(n):
        rep.setdefault(block_of[q], q)
    num = {block_of[0]: 0}
    queue = [block_of[0]]
    for b in queue:
        q = rep[b]
        for a in range(k):
            t = block_of[d[q][a]]
            if t not in num:
                num[t] = len(queue)
                queue.append(t)
    out_d = [[num[block_of[d[rep[b]][a]]] for a in range(k)] for b in queue]
    out_acc = [acc[rep[b]] for b in queue]
    return out_d, out_acc, 0


def _product_bfs(d1, acc1, s1, d2, acc2, s2, k):
    """A shortest word (letter positions; the least among the shortest) leading the pair
    (s1, s2) to a pair with different acceptance, or None."""
    from collections import deque

    start = (s1, s2)
    parent = {start: None}
    queue = deque([start])
    while queue:
        pq = queue.popleft()
        p, q = pq
        if acc1[p] != acc2[q]:
            word = []
            while parent[pq] is not None:
                pq, a = parent[pq]
                word.append(a)
            word.reverse()
            return word
        r1, r2 = d1[p], d2[q]
        for a in range(k):
            t = (r1[a], r2[a])
            if t not in parent:
                parent[t] = (pq, a)
                queue.append(t)
    return None


def _to_dot(n, start, accepting, step, alphabet):
    lines = ["digraph DFA {", "  rankdir=LR;", '  __start [shape=point, label=""];']
    for q in range(n):
        shape = "doublecircle" if accepting[q] else "circle"
        lines.append(f'  {q} [shape={shape}, label="{q}"];')
    lines.append(f"  __start -> {start};")
    for q in range(n):
        labels = {}
        for i, c in enumerate(alphabet):
            labels.setdefault(step(q, i), []).append(str(c))
        for t, cs in labels.items():
            text = ",".join(cs).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {q} -> {t} [label="{text}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- loading ---------------------------------------------------------------------------------------

def _load(cls, f, name, limit):
    from .. import persistence as P

    def bad(why):
        return P.FormatError(f"{name} is not a valid mbcore DFA file: {why}")

    return P.read_archive(f, bad, lambda npz: _read(cls, npz, limit))


def _read(cls, npz, limit):
    from .. import persistence as P

    Bad = P.ArchiveCheckFailed
    files = sorted(npz.files)
    if files != ["__meta__", "accepting", "delta"]:
        raise Bad(f"the entries must be exactly __meta__, accepting and delta, got {files!r}")
    blob = P.read_entry(npz, "__meta__", min(limit, 1 << 24))
    if blob.dtype != np.uint8 or blob.ndim != 1:
        raise Bad(f"__meta__ must be a 1-D uint8 array, got {blob.dtype} of shape {blob.shape}")
    try:
        meta = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise Bad(f"__meta__ is not UTF-8 JSON ({exc})") from None
    keys = {"format", "format_version", "alphabet", "start", "arrays", "digest"}
    if not isinstance(meta, dict) or set(meta) != keys:
        raise Bad("__meta__ must be an object with exactly the keys " + ", ".join(sorted(keys)))
    if meta["digest"] != P.meta_digest(meta):
        raise Bad("the digest of the __meta__ document does not match (the file was changed "
                  "or damaged)")
    if meta["format"] != FORMAT_NAME:
        raise Bad(f"the format is {meta['format']!r}, not {FORMAT_NAME!r}")
    v = meta["format_version"]
    if not _is_int(v) or v < 1:
        raise Bad(f"format_version must be an integer >= 1, got {v!r}")
    if v > FORMAT_VERSION:
        raise Bad(f"format_version {v} is newer than this mbcore reads ({FORMAT_VERSION}): "
                  "upgrade mbcore")
    alphabet = meta["alphabet"]
    if not isinstance(alphabet, list) or not alphabet or \
            not all(isinstance(c, _JSON_LETTER) and not isinstance(c, bool) for c in alphabet):
        raise Bad(f"alphabet must be a non-empty list of str or int letters, got "
                  f"{str(alphabet)[:80]}")
    if len(set(alphabet)) != len(alphabet):
        raise Bad(f"alphabet holds a letter twice: {str(alphabet)[:80]}")
    k = len(alphabet)
    declared = meta["arrays"]
    if not isinstance(declared, dict) or set(declared) != {"delta", "accepting"}:
        raise Bad("arrays must describe exactly delta and accepting")
    got = {}
    for key in ("delta", "accepting"):
        info = declared[key]
        a = P.read_entry(npz, key, limit)
        if not isinstance(info, dict) or info.get("dtype") != a.dtype.str or \
                info.get("shape") != list(a.shape):
            raise Bad(f"the array {key!r} is not the dtype and shape declared")
        if P.array_digest(a) != info.get("sha256"):
            raise Bad(f"the digest of array {key!r} does not match (the file was changed or "
                      "damaged)")
        got[key] = a
    delta, acc = got["delta"], got["accepting"]
    if delta.dtype.kind not in "iu" or delta.ndim != 2 or delta.shape[1] != k or \
            delta.shape[0] < 1:
        raise Bad(f"delta must be an integer array of shape (n >= 1, {k}), got {delta.dtype} "
                  f"of shape {delta.shape}")
    n = delta.shape[0]
    if acc.dtype != np.bool_ or acc.shape != (n,):
        raise Bad(f"accepting must be a bool array of shape ({n},), got {acc.dtype} of shape "
                  f"{acc.shape}")
    if n > np.iinfo(np.int32).max or ((delta < 0) | (delta >= n)).any():
        raise Bad(f"delta holds a state outside [0, {n})")
    start = meta["start"]
    if not _is_int(start) or not 0 <= start < n:
        raise Bad(f"start must be a state in [0, {n}), got {start!r}")
    return cls(tuple(alphabet), delta, acc, start)
