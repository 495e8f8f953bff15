"""Deterministic finite automata, written from their definitions (twin of
``mbcore.queries.automata``; standard library only).

A DFA over the letters ``alphabet[0..k-1]`` has the states 0..n-1; reading the letter
``alphabet[i]`` in state q moves to ``delta[q][i]``; a word is accepted when the state reached
from ``start`` accepts (Angluin's lectures 26-27).  Here ``delta`` is a list of lists and
``accepting`` a list of bools; mbcore keeps NumPy arrays and runs batches in a compiled kernel.
The twin is written from the definitions, not from mbcore's code:

* the minimal automaton by Moore's partition refinement (split the classes "accepting" and
  "rejecting" by the classes their letters lead to, until no class splits; Moore 1956), where
  mbcore uses Hopcroft's algorithm: the minimal DFA is unique up to renaming (Myhill-Nerode),
  and both number its states the same canonical way (breadth-first from the start, letters in
  the alphabet's order), so the tables are identical;
* the shortest word on which two automata differ by a breadth-first search over pairs of
  states, level by level, carrying each pair's word;
* seeded random automata from the draws mbcore documents (``random.Random(seed)``).
"""

import random as _random

from ._common import alphabet_of, hashable, is_int

__all__ = ["DFA"]


class DFA:
    """A deterministic finite automaton (twin of ``mbcore.queries.DFA``).

    Parameters
    ----------
    alphabet : sequence of distinct hashable letters (or a str of distinct characters)
    delta : sequence of n sequences of k states
        ``delta[q][i]``: the state after the letter ``alphabet[i]`` in state q.
    accepting : sequence of n bools (or 0/1)
    start : int, default 0

    Attributes
    ----------
    alphabet : tuple
    delta : list of list of int
    accepting : list of bool
    start : int
    n_states : int
    """

    def __init__(self, alphabet, delta, accepting, start=0):
        letters = alphabet_of("DFA", alphabet)
        table = _transition_table(letters, delta)
        self.alphabet = letters
        self.delta = table
        self.accepting = _acceptance(len(table), accepting)
        self.start = _start_state(len(table), start)
        self._index = {c: i for i, c in enumerate(letters)}

    @property
    def n_states(self):
        """The number of states n."""
        return len(self.delta)

    # -- running words -----------------------------------------------------------------------

    def _positions(self, owner, word):
        """The positions in the alphabet of the letters of word (ValueError naming the first
        letter that is not one)."""
        out = []
        for j, c in enumerate(word):
            if not hashable(c) or c not in self._index:
                raise ValueError(f"{owner}: the letter {c!r} (position {j} of the word) is not "
                                 f"in the alphabet {self.alphabet!r}")
            out.append(self._index[c])
        return out

    def _walk(self, q, positions):
        for i in positions:
            q = self.delta[q][i]
        return q

    def state_of(self, word):
        """The state reached from ``start`` on word."""
        return self._walk(self.start, self._positions("DFA.state_of", word))

    def accepts(self, word):
        """Whether the state reached from ``start`` on word accepts."""
        return self.accepting[self._walk(self.start, self._positions("DFA.accepts", word))]

    def accepts_many(self, words):
        """``[self.accepts(w) for w in words]`` (mbcore: a bool array from one compiled run)."""
        return [self.accepts(w) for w in words]

    # -- minimization and equivalence ---------------------------------------------------------

    def minimize(self):
        """The minimal DFA of the same language, numbered canonically: the states reachable
        from the start, merged into Moore's classes, numbered in breadth-first order from the
        start's class (letters in the alphabet's order); the start is 0."""
        cls = _moore_classes(self.delta, self.accepting, _reachable(self.delta, self.start))
        number = {cls[self.start]: 0}
        member = {cls[self.start]: self.start}     # one state of each class, by number
        order = [cls[self.start]]
        for c in order:
            for t in self.delta[member[c]]:
                if cls[t] not in number:
                    number[cls[t]] = len(order)
                    member[cls[t]] = t
                    order.append(cls[t])
        delta = [[number[cls[t]] for t in self.delta[member[c]]] for c in order]
        accepting = [self.accepting[member[c]] for c in order]
        return DFA(self.alphabet, delta, accepting, 0)

    def equivalent(self, other):
        """None when both automata accept the same language, else a shortest word on which they
        differ, the least among the shortest in the order of alphabet positions."""
        if not isinstance(other, DFA):
            raise TypeError(f"DFA.equivalent: parameter other must be a DFA, got "
                            f"{type(other).__name__}")
        theirs = tuple(other.alphabet)
        if theirs != self.alphabet:
            raise ValueError(f"DFA.equivalent: the alphabets differ: {self.alphabet!r} and "
                             f"{theirs!r}")
        return self._first_difference(self.start, other, other.start)

    def distinguishing_word(self, p, q):
        """A shortest word (the least among the shortest) accepted from exactly one of the
        states p and q, or None when they are equivalent."""
        for name, v in (("p", p), ("q", q)):
            if not is_int(v) or not 0 <= v < self.n_states:
                raise ValueError(f"DFA.distinguishing_word: parameter {name} must be a state in "
                                 f"[0, {self.n_states}), got {v!r}")
        return self._first_difference(int(p), self, int(q))

    def _first_difference(self, p, other, q):
        """Breadth-first over the pairs (state of self, state of other) reachable from (p, q):
        level L holds the pairs first reached by a word of length L, in the order of their
        words (letters by alphabet position); the first pair whose states disagree on
        acceptance gives the word."""
        seen = {(p, q)}
        level = [((p, q), ())]
        while level:
            for (a, b), word in level:
                if self.accepting[a] != other.accepting[b]:
                    return word
            following = []
            for (a, b), word in level:
                for c, a2, b2 in zip(self.alphabet, self.delta[a], other.delta[b]):
                    if (a2, b2) not in seen:
                        seen.add((a2, b2))
                        following.append(((a2, b2), word + (c,)))
            level = following
        return None

    # -- generation ---------------------------------------------------------------------------

    @classmethod
    def random(cls, n, alphabet, seed=0, minimal=False, max_tries=1000):
        """A seeded random DFA with n states, every one reachable from the start 0.

        Draws from ``random.Random(seed)``, as mbcore documents them: for each state i =
        1..n-1, one transition still free among those of the states 0..i-1 (the free ones kept
        in the order they became free: by state, then letter) is drawn uniformly and pointed at
        i; then every transition still free, by state then letter, goes to a uniform state;
        then each state accepts with probability 1/2, by state.  ``minimal=True`` draws again
        (same generator) until the minimized automaton keeps n states, and returns it.
        """
        if not is_int(n) or n < 1:
            raise ValueError(f"DFA.random: parameter n must be an integer >= 1, got {n!r}")
        letters = alphabet_of("DFA.random", alphabet)
        rng = _random.Random(seed)
        for _ in range(max_tries):
            d = cls(letters, *_draw_tables(rng, n, len(letters)), 0)
            if minimal:
                d = d.minimize()
            if not minimal or d.n_states == n:
                return d
        raise ValueError(f"DFA.random: no minimal DFA with {n} states over {len(letters)} "
                         f"letters in {max_tries} draws (parameter max_tries)")

    # -- drawing ------------------------------------------------------------------------------

    def to_dot(self):
        """The automaton in Graphviz's dot language: a point for the start arrow, a circle per
        state (double when accepting), one edge per (state, target) labelled with its letters
        in alphabet order."""
        text = ["digraph DFA {", "  rankdir=LR;", '  __start [shape=point, label=""];']
        text += [f'  {q} [shape={"doublecircle" if a else "circle"}, label="{q}"];'
                 for q, a in enumerate(self.accepting)]
        text.append(f"  __start -> {self.start};")
        for q, row in enumerate(self.delta):
            by_target = {}
            for c, t in zip(self.alphabet, row):
                by_target.setdefault(t, []).append(str(c))
            text += [f'  {q} -> {t} [label="{_dot_quoted(",".join(cs))}"];'
                     for t, cs in by_target.items()]
        return "\n".join(text + ["}"]) + "\n"

    def __repr__(self):
        return f"DFA(n_states={self.n_states}, alphabet={self.alphabet!r}, start={self.start})"


# -- construction checks ----------------------------------------------------------------------------

def _transition_table(letters, delta):
    k = len(letters)
    try:
        table = [list(row) for row in delta]
    except TypeError:
        raise TypeError(f"DFA: parameter delta must be an n x {k} table of states, got "
                        f"{type(delta).__name__}") from None
    n = len(table)
    if n == 0:
        raise ValueError("DFA: parameter delta must have at least one state (row), got 0")
    for q, row in enumerate(table):
        if len(row) != k:
            raise ValueError(f"DFA: parameter delta must have shape ({n}, {k}) (states x "
                             f"letters), row {q} has {len(row)} entries")
        for i, t in enumerate(row):
            if not is_int(t):
                raise TypeError(f"DFA: parameter delta holds {t!r} at ({q}, {i}); states are "
                                "integers")
            if t < 0 or t >= n:
                raise ValueError(f"DFA: parameter delta holds the state {t} at ({q}, {i}), "
                                 f"outside [0, {n})")
            row[i] = int(t)
    return table


def _acceptance(n, accepting):
    flags = list(accepting)
    if len(flags) != n:
        raise ValueError(f"DFA: parameter accepting must have length {n} (one per state), got "
                         f"{len(flags)}")
    for q, a in enumerate(flags):
        if type(a).__name__ not in ("bool", "bool_") and not (is_int(a) and a in (0, 1)):
            raise ValueError(f"DFA: parameter accepting must hold booleans (or 0/1), got {a!r} "
                             f"at state {q}")
    return [bool(a) for a in flags]


def _start_state(n, start):
    if not is_int(start):
        raise TypeError(f"DFA: parameter start must be an integer state, got {start!r}")
    if not 0 <= start < n:
        raise ValueError(f"DFA: parameter start must be a state in [0, {n}), got {start}")
    return int(start)


# -- the algorithms -----------------------------------------------------------------------------

def _reachable(delta, start):
    """The states reachable from start (a depth-first search; the order does not matter)."""
    found = {start}
    todo = [start]
    while todo:
        for t in delta[todo.pop()]:
            if t not in found:
                found.add(t)
                todo.append(t)
    return found


def _moore_classes(delta, accepting, states):
    """Moore's equivalence classes of ``states`` (closed under delta): state -> class label.

    Two states are equivalent when no word leads one to acceptance and the other not.  Round 0
    separates accepting from rejecting states; round r + 1 separates two states of a class of
    round r when some letter leads them into different classes of round r.  When a round
    splits nothing, the classes are the equivalence classes."""
    label = {q: (accepting[q],) for q in states}
    count = len(set(label.values()))
    while True:
        signature = {q: (label[q],) + tuple(label[t] for t in delta[q]) for q in states}
        ids = {}
        label = {q: ids.setdefault(signature[q], len(ids)) for q in states}
        if len(ids) == count:
            return label
        count = len(ids)


def _draw_tables(rng, n, k):
    """(delta, accepting) drawn as :meth:`DFA.random` says."""
    delta = [[None] * k for _ in range(n)]
    free = [(0, a) for a in range(k)]           # transitions not pointed yet, oldest first
    for i in range(1, n):
        q, a = free.pop(rng.randrange(len(free)))
        delta[q][a] = i
        free += [(i, a) for a in range(k)]
    for row in delta:
        for a, t in enumerate(row):
            if t is None:
                row[a] = rng.randrange(n)
    return delta, [rng.random() < 0.5 for _ in range(n)]


def _dot_quoted(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')
