"""Deterministic finite automata and Angluin's L* (twin of ``mbcore.queries.automata`` and
``mbcore.queries.regular``; standard library only).

This module is the specification: the same names, parameters and results as mbcore, written
literally from the rules (Angluin 1987, "Learning regular sets from queries and
counterexamples", Information and Computation 75; Rivest & Schapire 1993, "Inference of finite
automata using homing sequences", Information and Computation 103; Maler & Pnueli 1995 for
the processing that adds every suffix; Angluin's lectures 25-27).  mbcore's tests demand the
same hypothesis, the same query counts and the same counterexamples from both.

Words are tuples of letters (a ``str`` is accepted wherever a word is read, as the tuple of its
characters, when the letters are characters).  A DFA here keeps ``delta`` as a list of lists
and ``accepting`` as a list of bools.
"""

import itertools
import math
import random as _random
from collections import deque

from .exceptions import InconsistentOracleError

__all__ = ["DFA", "lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
           "DFAEquivalenceOracle", "SamplingEquivalenceOracle", "WMethodEquivalenceOracle",
           "lstar_equivalence_bound", "lstar_membership_bound", "eq_test_sample_size",
           "run_dfa_demo", "PROCESSINGS", "DEFAULT_MAX_STATES"]

PROCESSINGS = ("rivest-schapire", "angluin", "suffixes")
DEFAULT_MAX_STATES = 100_000


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_alphabet(owner, alphabet):
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
        try:
            hash(c)
        except TypeError:
            raise TypeError(f"{owner}: parameter alphabet holds the unhashable letter "
                            f"{c!r}") from None
        if c in seen:
            raise ValueError(f"{owner}: parameter alphabet holds the letter {c!r} twice "
                             f"(alphabet {letters!r})")
        seen.add(c)
    return letters


class DFA:
    """A deterministic finite automaton over a finite alphabet (twin of mbcore's DFA).

    States are 0..n-1; ``delta[q][i]`` is the state reached from q on the letter
    ``alphabet[i]``; ``accepting[q]`` says whether q accepts; ``start`` is the initial state.
    """

    def __init__(self, alphabet, delta, accepting, start=0):
        o = "DFA"
        self.alphabet = _check_alphabet(o, alphabet)
        k = len(self.alphabet)
        try:
            rows = [list(r) for r in delta]
        except TypeError:
            raise TypeError(f"{o}: parameter delta must be an n x {k} table of states, got "
                            f"{type(delta).__name__}") from None
        n = len(rows)
        if n == 0:
            raise ValueError(f"{o}: parameter delta must have at least one state (row), got 0")
        for q, r in enumerate(rows):
            if len(r) != k:
                raise ValueError(f"{o}: parameter delta must have shape ({n}, {k}) (states x "
                                 f"letters), row {q} has {len(r)} entries")
            for i, t in enumerate(r):
                if not _is_int(t):
                    raise TypeError(f"{o}: parameter delta holds {t!r} at ({q}, {i}); states "
                                    "are integers")
                if not 0 <= t < n:
                    raise ValueError(f"{o}: parameter delta holds the state {t} at ({q}, {i}), "
                                     f"outside [0, {n})")
        acc = list(accepting)
        if len(acc) != n:
            raise ValueError(f"{o}: parameter accepting must have length {n} (one per state), "
                             f"got {len(acc)}")
        for q, a in enumerate(acc):
            if not (isinstance(a, bool) or (_is_int(a) and a in (0, 1))):
                raise ValueError(f"{o}: parameter accepting must hold booleans (or 0/1), got "
                                 f"{a!r} at state {q}")
        if not _is_int(start):
            raise TypeError(f"{o}: parameter start must be an integer state, got {start!r}")
        if not 0 <= start < n:
            raise ValueError(f"{o}: parameter start must be a state in [0, {n}), got {start}")
        self.delta = rows
        self.accepting = [bool(a) for a in acc]
        self.start = start
        self._pos = {c: i for i, c in enumerate(self.alphabet)}

    @property
    def n_states(self):
        return len(self.delta)

    # -- running words -----------------------------------------------------------------------

    def _encode(self, owner, word):
        pos = self._pos
        out = []
        for j, c in enumerate(word):
            i = pos.get(c) if _hashable(c) else None
            if i is None:
                raise ValueError(f"{owner}: the letter {c!r} (position {j} of the word) is not "
                                 f"in the alphabet {self.alphabet!r}")
            out.append(i)
        return out

    def state_of(self, word):
        """The state reached from start on word."""
        q = self.start
        d = self.delta
        for i in self._encode("DFA.state_of", word):
            q = d[q][i]
        return q

    def accepts(self, word):
        """Whether the automaton accepts word (a sequence of letters)."""
        q = self.start
        d = self.delta
        for i in self._encode("DFA.accepts", word):
            q = d[q][i]
        return self.accepting[q]

    def accepts_many(self, words):
        """[accepts(w) for w in words]."""
        return [self.accepts(w) for w in words]

    # -- minimization and equivalence ---------------------------------------------------------

    def minimize(self):
        """The minimal DFA of the same language: unreachable states removed, equivalent states
        merged (Hopcroft), states numbered in breadth-first order from the start (letters in
        the alphabet's order), so equal languages give identical tables."""
        return DFA(self.alphabet, *_minimize(self.delta, self.accepting, self.start,
                                             len(self.alphabet)))

    def equivalent(self, other):
        """None when both automata accept the same language, else a shortest word on which they
        differ, the least in the order of alphabet positions among the shortest."""
        if not isinstance(other, DFA):
            raise TypeError(f"DFA.equivalent: parameter other must be a DFA, got "
                            f"{type(other).__name__}")
        if tuple(other.alphabet) != self.alphabet:
            raise ValueError(f"DFA.equivalent: the alphabets differ: {self.alphabet!r} and "
                             f"{tuple(other.alphabet)!r}")
        w = _product_bfs(self.delta, self.accepting, self.start,
                         other.delta, other.accepting, other.start, len(self.alphabet))
        return None if w is None else tuple(self.alphabet[i] for i in w)

    def distinguishing_word(self, p, q):
        """A shortest word (least in alphabet order) accepted from exactly one of the states p,
        q, or None when they are equivalent."""
        w = _product_bfs(self.delta, self.accepting, p, self.delta, self.accepting, q,
                         len(self.alphabet))
        return None if w is None else tuple(self.alphabet[i] for i in w)

    # -- generation ---------------------------------------------------------------------------

    @classmethod
    def random(cls, n, alphabet, seed=0, minimal=False, max_tries=1000):
        """A seeded random DFA with n states, all reachable from the start 0.

        The draws (Python's ``random.Random(seed)``): for states 1..n-1 in order, a free
        transition (q, letter) with q < i, chosen uniformly among the free ones in the order
        (state, letter), is pointed at i (so every state is reachable); then every remaining
        transition, in (state, letter) order, goes to a uniform state; then each state accepts
        with probability 1/2 (``rng.random() < 0.5``, in state order).  ``minimal=True``
        repeats the whole draw with the same generator until the automaton is minimal (its
        minimization keeps n states; at most ``max_tries`` draws, else ValueError) and returns
        the minimized (canonically numbered) automaton.
        """
        o = "DFA.random"
        if not _is_int(n) or n < 1:
            raise ValueError(f"{o}: parameter n must be an integer >= 1, got {n!r}")
        letters = _check_alphabet(o, alphabet)
        rng = _random.Random(seed)
        for _ in range(max_tries):
            delta, acc = _random_tables(rng, n, len(letters))
            d = cls(letters, delta, acc, 0)
            if not minimal:
                return d
            m = d.minimize()
            if m.n_states == n:
                return m
        raise ValueError(f"{o}: no minimal DFA with {n} states over {len(letters)} letters in "
                         f"{max_tries} draws (parameter max_tries)")

    # -- drawing ------------------------------------------------------------------------------

    def to_dot(self):
        """The automaton as graphviz text."""
        return _to_dot(self.n_states, self.start, self.accepting,
                       lambda q, i: self.delta[q][i], self.alphabet)

    def __repr__(self):
        return f"DFA(n_states={self.n_states}, alphabet={self.alphabet!r}, start={self.start})"


def _hashable(c):
    try:
        hash(c)
    except TypeError:
        return False
    return True


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
    """(delta, accepting, start) of the canonical minimal DFA (lists)."""
    # reachable states, in BFS order
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
    # Hopcroft's partition refinement
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
    # canonical numbering: BFS over blocks from the start's block
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
    """A shortest word (as letter positions; least among the shortest) leading the pair
    (s1, s2) to a pair with different acceptance, or None."""
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


# -- bounds ---------------------------------------------------------------------------------------

def lstar_equivalence_bound(n):
    """At most n equivalence queries (n - 1 wrong conjectures) for an n-state minimal target."""
    if not _is_int(n) or n < 1:
        raise ValueError(f"lstar_equivalence_bound: parameter n must be an integer >= 1, got "
                         f"{n!r}")
    return n


def lstar_membership_bound(n, k, m, processing="angluin"):
    """The most membership queries (distinct words) L* asks for an n-state minimal target over
    k letters when the longest counterexample has length m (see mbcore's docstring)."""
    o = "lstar_membership_bound"
    for name, v, low in (("n", n, 1), ("k", k, 1), ("m", m, 0)):
        if not _is_int(v) or v < low:
            raise ValueError(f"{o}: parameter {name} must be an integer >= {low}, got {v!r}")
    if processing == "angluin":
        return (k + 1) * (n + m * (n - 1)) * n
    if processing == "rivest-schapire":
        steps = math.ceil(math.log2(m)) if m > 1 else 0
        return (k + 1) * n * n + (n - 1) * (1 + steps)
    if processing == "suffixes":
        return (k + 1) * n * (1 + (n - 1) * m)
    raise ValueError(f"{o}: parameter processing must be one of {PROCESSINGS}, got "
                     f"{processing!r}")


def eq_test_sample_size(i, epsilon, delta):
    """ceil((1/epsilon) ln(2^i / delta)), at least 1 (Angluin lecture 25, delta_i = delta/2^i)."""
    return max(1, math.ceil((i * math.log(2.0) - math.log(delta)) / epsilon))


class BoundCheck:
    """One bound checked on a run: ``observed <= bound`` is ``held``."""

    def __init__(self, name, observed, bound):
        self.name = name
        self.observed = observed
        self.bound = bound
        self.held = observed <= bound

    def __repr__(self):
        return (f"BoundCheck({self.name!r}, observed={self.observed}, bound={self.bound}, "
                f"held={self.held})")


# -- oracles --------------------------------------------------------------------------------------

class DFAMembershipOracle:
    """MQ(w) = target.accepts(w); ``calls`` counts the words asked."""

    def __init__(self, target):
        if not isinstance(target, DFA):
            raise TypeError(f"DFAMembershipOracle: parameter target must be a DFA, got "
                            f"{type(target).__name__}")
        self.target = target
        self.calls = 0

    def __call__(self, word):
        self.calls += 1
        return self.target.accepts(word)

    def many(self, words):
        words = list(words)
        self.calls += len(words)
        return self.target.accepts_many(words)


class DFATraceOracle(DFAMembershipOracle):
    """A membership oracle of a DFA that also answers trace queries: ``prefixes(w)`` is the
    list of answers for every prefix of w, shortest first (one call; ``calls`` counts it
    once)."""

    def prefixes(self, word):
        self.calls += 1
        t = self.target
        q = t.start
        out = [t.accepting[q]]
        for i in t._encode("DFATraceOracle.prefixes", word):
            q = t.delta[q][i]
            out.append(t.accepting[q])
        return out


class DFAEquivalenceOracle:
    """EQ(h) = None when h accepts the target's language, else the shortest counterexample
    (least in alphabet order among the shortest); ``calls`` counts the queries."""

    def __init__(self, target):
        if not isinstance(target, DFA):
            raise TypeError(f"DFAEquivalenceOracle: parameter target must be a DFA, got "
                            f"{type(target).__name__}")
        self.target = target
        self.calls = 0

    def __call__(self, hypothesis):
        self.calls += 1
        return self.target.equivalent(hypothesis)


class SamplingEquivalenceOracle:
    """EQ simulated by sampling (Angluin lecture 25): the i-th query tests the hypothesis on
    ceil((1/epsilon) ln(2^i/delta)) random words; the first one it misclassifies is the
    counterexample, else None.  A word: its length uniform on 0..max_length, then each letter
    uniform; all from ``random.Random(seed)``."""

    def __init__(self, target, alphabet, epsilon=0.05, delta=0.05, seed=0, max_length=20):
        o = "SamplingEquivalenceOracle"
        if not (isinstance(target, DFA) or callable(target)):
            raise TypeError(f"{o}: parameter target must be a DFA or a callable word -> bool, "
                            f"got {type(target).__name__}")
        self.alphabet = _check_alphabet(o, alphabet)
        for name, v in (("epsilon", epsilon), ("delta", delta)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 < v < 1.0:
                raise ValueError(f"{o}: parameter {name} must be in (0, 1), got {v!r}")
        if not _is_int(max_length) or max_length < 0:
            raise ValueError(f"{o}: parameter max_length must be an integer >= 0, got "
                             f"{max_length!r}")
        self.target = target
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.max_length = max_length
        self._rng = _random.Random(seed)
        self.calls = 0
        self.examples = 0

    def _draw(self, m):
        rng, letters, L = self._rng, self.alphabet, self.max_length
        k = len(letters)
        out = []
        for _ in range(m):
            n = rng.randrange(L + 1)
            out.append(tuple(letters[rng.randrange(k)] for _ in range(n)))
        return out

    def _target_many(self, words):
        t = self.target
        if isinstance(t, DFA):
            return t.accepts_many(words)
        return [bool(t(w)) for w in words]

    def __call__(self, hypothesis):
        self.calls += 1
        m = eq_test_sample_size(self.calls, self.epsilon, self.delta)
        words = self._draw(m)
        self.examples += m
        h = hypothesis.accepts_many(words)
        c = self._target_many(words)
        for w, a, b in zip(words, h, c):
            if bool(a) != bool(b):
                return w
        return None


class WMethodEquivalenceOracle:
    """EQ by the W-method conformance test (Chow 1978; Vasilevskii 1973): with the hypothesis
    minimized to n states and a bound ``max_states`` >= the target's number of states, test
    every word p.x.w with p in the transition cover P (the BFS access words of the states,
    then each followed by every letter), x in Sigma^j for j = 0..max_states - n (in order of
    j, then of alphabet positions) and w in the characterization set W (shortest
    distinguishing words of pairs of states, collected while splitting the states into
    classes, plus the empty word).  The first word on which hypothesis and target differ is
    the counterexample; exact when the target has at most ``max_states`` states."""

    def __init__(self, target, max_states):
        o = "WMethodEquivalenceOracle"
        if not (isinstance(target, DFA) or callable(target)):
            raise TypeError(f"{o}: parameter target must be a DFA or a callable word -> bool, "
                            f"got {type(target).__name__}")
        if not _is_int(max_states) or max_states < 1:
            raise ValueError(f"{o}: parameter max_states must be an integer >= 1, got "
                             f"{max_states!r}")
        self.target = target
        self.max_states = max_states
        self.calls = 0
        self.tests = 0

    def _target(self, w):
        t = self.target
        return t.accepts(w) if isinstance(t, DFA) else bool(t(w))

    def __call__(self, hypothesis):
        self.calls += 1
        h = hypothesis.minimize()
        letters = h.alphabet
        P = _transition_cover(h)
        W = _characterization_set(h)
        depth = max(0, self.max_states - h.n_states)
        for j in range(depth + 1):
            for p in P:
                for x in itertools.product(letters, repeat=j):
                    for w in W:
                        word = p + x + w
                        self.tests += 1
                        if h.accepts(word) != self._target(word):
                            return word
        return None


def _access_words(h):
    acc = {h.start: ()}
    order = [h.start]
    for q in order:
        for i, c in enumerate(h.alphabet):
            t = h.delta[q][i]
            if t not in acc:
                acc[t] = acc[q] + (c,)
                order.append(t)
    return [acc[q] for q in order]


def _transition_cover(h):
    A = _access_words(h)
    return A + [a + (c,) for a in A for c in h.alphabet]


def _characterization_set(h):
    W = [()]
    n = h.n_states

    def classes():
        groups = {}
        for q in range(n):
            sig = tuple(_run_from(h, q, w) for w in W)
            groups.setdefault(sig, []).append(q)
        return list(groups.values())

    while True:
        split = next((g for g in classes() if len(g) > 1), None)
        if split is None:
            return W
        w = h.distinguishing_word(split[0], split[1])
        if w is None:        # equivalent states: h is minimal, so this does not happen
            return W
        W.append(w)


def _run_from(h, q, word):
    for c in word:
        q = h.delta[q][h._pos[c]]
    return h.accepting[q]


# -- L* -------------------------------------------------------------------------------------------

class LStarResult:
    """What :func:`lstar` returns (twin of mbcore's LStarResult)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        n = None if self.hypothesis is None else self.hypothesis.n_states
        return (f"LStarResult(states={n}, exact={self.exact}, equivalence_queries="
                f"{self.equivalence_queries}, membership_queries={self.membership_queries})")


def _answer(owner, word, a):
    if isinstance(a, bool):
        return a
    if _is_int(a) and a in (0, 1):
        return bool(a)
    if type(a).__name__ in ("bool_", "bool") and hasattr(a, "item"):   # a NumPy bool
        return bool(a.item())
    if hasattr(a, "item") and type(a).__module__ == "numpy":
        v = a.item()
        if _is_int(v) and v in (0, 1):
            return bool(v)
    raise InconsistentOracleError(f"{owner}: the membership oracle answered {a!r} for the word "
                                  f"{word!r}; expected a bool (or 0/1)")


def lstar(alphabet, membership, equivalence, counterexamples="rivest-schapire",
          max_states=None, max_rounds=None, recheck=False):
    """Angluin's L* (see mbcore.queries.regular for the full description)."""
    o = "lstar"
    letters = _check_alphabet(o, alphabet)
    if not callable(membership):
        raise TypeError(f"{o}: parameter membership must be a callable word -> bool, got "
                        f"{type(membership).__name__}")
    if not callable(equivalence):
        raise TypeError(f"{o}: parameter equivalence must be a callable dfa -> word or None, "
                        f"got {type(equivalence).__name__}")
    if counterexamples not in PROCESSINGS:
        raise ValueError(f"{o}: parameter counterexamples must be one of {PROCESSINGS}, got "
                         f"{counterexamples!r}")
    for name, v in (("max_states", max_states), ("max_rounds", max_rounds)):
        if v is not None and (not _is_int(v) or v < 1):
            raise ValueError(f"{o}: parameter {name} must be an integer >= 1 or None, got "
                             f"{v!r}")
    return _LStar(letters, membership, equivalence, counterexamples,
                  DEFAULT_MAX_STATES if max_states is None else max_states,
                  max_rounds, recheck, DFA).run()


class _Stop(Exception):
    def __init__(self, which):
        self.which = which


class _LStar:
    """The observation table and the loop; shared, line for line, with mbcore."""

    def __init__(self, letters, membership, equivalence, processing, max_states, max_rounds,
                 recheck, dfa_class):
        self.letters = letters
        self.k = len(letters)
        self.mq = membership
        self.many = getattr(membership, "many", None)
        self.traces = getattr(membership, "prefixes", None)
        self.eq = equivalence
        self.processing = processing
        self.max_states = max_states
        self.max_rounds = max_rounds
        self.recheck = recheck
        self.DFA = dfa_class
        self.cache = {}
        self.calls = 0
        self.rechecks = 0
        self.S = [()]
        self.Sset = {()}
        self.E = [()]
        self.rows = {}          # word -> int bitmask over E (bit j = MQ(word + E[j]))
        self.srows = {}         # row value -> first s in S with it

    # -- membership ------------------------------------------------------------------------------

    def ask(self, words):
        """Answer every word (cache first); the new ones are asked in the order given, as one
        batch when the oracle has ``many``."""
        cache = self.cache
        new = []
        seen = set()
        for w in words:
            if w not in cache and w not in seen:
                seen.add(w)
                new.append(w)
        if new and self.traces is not None:
            self.ask_traces(new)
        elif new:
            if self.many is not None:
                answers = list(self.many(new))
                if len(answers) != len(new):
                    raise InconsistentOracleError(
                        f"lstar: the membership oracle's many() answered {len(answers)} words "
                        f"for {len(new)}")
            else:
                mq = self.mq
                answers = [mq(w) for w in new]
            self.calls += len(new)
            for w, a in zip(new, answers):
                cache[w] = _answer("lstar", w, a)

    def ask_traces(self, new):
        """Trace queries: the longest words first (stable among equal lengths); a word already
        answered as a prefix of an earlier trace is not asked.  Each trace's answers are kept
        from the longest prefix down to the first prefix already known (the known words are
        closed under prefixes), whose answer must agree: else an inconsistency."""
        cache = self.cache
        for w in sorted(new, key=len, reverse=True):
            if w in cache:
                continue
            answers = list(self.traces(w))
            self.calls += 1
            if len(answers) != len(w) + 1:
                raise InconsistentOracleError(
                    f"lstar: the membership oracle's prefixes() answered {len(answers)} values "
                    f"for the word {w!r}, expected {len(w) + 1} (one per prefix)")
            for i in range(len(w), -1, -1):
                p = w[:i]
                a = _answer("lstar", p, answers[i])
                if p not in cache:
                    cache[p] = a
                    continue
                if cache[p] != a:
                    raise InconsistentOracleError(
                        f"lstar: the membership oracle answered {a} for the word {p!r}, which it "
                        f"answered {cache[p]} before")
                break

    def one(self, w):
        if w not in self.cache:
            self.ask([w])
        return self.cache[w]

    # -- the table -------------------------------------------------------------------------------

    def add_rows(self, words):
        new = [u for u in words if u not in self.rows]
        if not new:
            return
        E = self.E
        self.ask([u + e for u in new for e in E])
        cache = self.cache
        for u in new:
            r = 0
            for j, e in enumerate(E):
                if cache[u + e]:
                    r |= 1 << j
            self.rows[u] = r

    def add_columns(self, suffixes):
        rows = list(self.rows)
        self.ask([u + e for e in suffixes for u in rows])
        cache = self.cache
        for e in suffixes:
            j = len(self.E)
            self.E.append(e)
            bit = 1 << j
            for u in rows:
                if cache[u + e]:
                    self.rows[u] |= bit
        self.srows = {}
        for s in self.S:
            self.srows.setdefault(self.rows[s], s)

    def add_to_S(self, words):
        new = [s for s in words if s not in self.Sset]
        self.add_rows(new)
        for s in new:
            self.S.append(s)
            self.Sset.add(s)
            self.srows.setdefault(self.rows[s], s)
        letters = self.letters
        self.add_rows([s + (a,) for s in new for a in letters])
        if len(self.srows) > self.max_states:
            raise _Stop("max_states")

    def close(self):
        """Move every row of S.Sigma whose value is not a row of S into S (in table order),
        until the table is closed."""
        letters = self.letters
        pending = list(self.S)
        while pending:
            rows, srows = self.rows, self.srows
            new = []
            vals = set()
            for s in pending:
                for a in letters:
                    t = s + (a,)
                    r = rows[t]
                    if r not in srows and r not in vals:
                        vals.add(r)
                        new.append(t)
            if not new:
                return
            self.add_to_S(new)
            pending = new

    def inconsistency(self):
        """The first suffix a.e that makes the table consistent, or None: pairs of S with equal
        rows in S order (each against the first with its row), letters in order, E in order."""
        groups = {}
        for s in self.S:
            groups.setdefault(self.rows[s], []).append(s)
        rows, E = self.rows, self.E
        for g in groups.values():
            s1 = g[0]
            for s2 in g[1:]:
                for a in self.letters:
                    r1, r2 = rows[s1 + (a,)], rows[s2 + (a,)]
                    if r1 != r2:
                        x = r1 ^ r2
                        j = (x & -x).bit_length() - 1
                        return (a,) + E[j]
        return None

    def stabilize(self):
        while True:
            self.close()
            if self.processing != "angluin":
                return
            e = self.inconsistency()
            if e is None:
                return
            if e in self.E:
                raise InconsistentOracleError(f"lstar: the suffix {e!r} is already in E")
            self.add_columns([e])
            if len(self.srows) > self.max_states:
                raise _Stop("max_states")

    def hypothesis(self):
        rows = self.rows
        state = {}
        reps = []
        for s in self.S:
            r = rows[s]
            if r not in state:
                state[r] = len(reps)
                reps.append(s)
        delta = [[state[rows[s + (a,)]] for a in self.letters] for s in reps]
        acc = [bool(rows[s] & 1) for s in reps]
        self.reps = reps
        return self.DFA(self.letters, delta, acc, 0), reps, delta, acc

    # -- counterexamples -----------------------------------------------------------------------

    def check_word(self, z):
        if isinstance(z, str):
            z = tuple(z)
        try:
            z = tuple(z)
        except TypeError:
            raise InconsistentOracleError(f"lstar: the equivalence oracle returned {z!r}, "
                                          "not a word (a sequence of letters) or None") from None
        pos = set(self.letters)
        for j, c in enumerate(z):
            if not _hashable(c) or c not in pos:
                raise InconsistentOracleError(
                    f"lstar: the counterexample {z!r} holds the letter {c!r} (position {j}), "
                    f"not in the alphabet {self.letters!r}")
        return z

    def label(self, z):
        a = self.one(z)
        if self.recheck:
            b = _answer("lstar", z, self.mq(z))
            self.calls += 1
            self.rechecks += 1
            if b != a:
                raise InconsistentOracleError(
                    f"lstar: the membership oracle answered {b} for the word {z!r}, which it "
                    f"answered {a} before")
        return a

    def process_rs(self, z, delta, acc):
        reps = self.reps
        letters = {c: i for i, c in enumerate(self.letters)}
        qs = [0]
        for c in z:
            qs.append(delta[qs[-1]][letters[c]])
        a_lo = self.cache[z]
        lo, hi = 0, len(z) - 1      # alpha(|z|-1) = alpha(|z|): u_{|z|-1} z_|z| has u_|z|'s row
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.one(reps[qs[mid]] + z[mid:]) == a_lo:
                lo = mid
            else:
                hi = mid
        e = z[hi:]
        if e in self.E:
            raise InconsistentOracleError(
                f"lstar: the counterexample {z!r} gives the suffix {e!r}, already in E: the "
                "membership answers are inconsistent")
        return [e]

    def run(self):
        record_sizes = []
        ce_lengths = []
        ces = []
        stopped = None
        h = None
        eqs = 0
        exact = False
        try:
            self.add_rows([()])
            self.srows = {self.rows[()]: ()}
            self.add_rows([(a,) for a in self.letters])
            self.stabilize()
            z = None
            while True:
                h, reps, delta, acc = self.hypothesis()
                record_sizes.append((len(self.S), len(self.rows) - len(self.S), len(self.E)))
                if z is None or _run(delta, acc, self.letters, z) == self.cache[z]:
                    if self.max_rounds is not None and eqs >= self.max_rounds:
                        raise _Stop("max_rounds")
                    eqs += 1
                    z = self.eq(h)
                    if z is None:
                        exact = True
                        break
                    z = self.check_word(z)
                    ces.append(z)
                    ce_lengths.append(len(z))
                    if self.label(z) == _run(delta, acc, self.letters, z):
                        raise InconsistentOracleError(
                            f"lstar: the equivalence oracle's counterexample {z!r} is "
                            f"classified by the hypothesis as the membership oracle does "
                            f"({self.cache[z]})")
                n_before = len(self.srows)
                if self.processing == "rivest-schapire":
                    self.add_columns(self.process_rs(z, delta, acc))
                elif self.processing == "suffixes":
                    self.add_columns([z[i:] for i in range(len(z) - 1, -1, -1)
                                      if z[i:] not in set(self.E)])
                else:
                    self.add_to_S([z[:i] for i in range(1, len(z) + 1)])
                self.stabilize()
                if len({self.rows[s] for s in self.S}) <= n_before:
                    raise InconsistentOracleError(
                        f"lstar: the counterexample {z!r} added no state: the membership "
                        "answers are inconsistent")
        except _Stop as stop:
            stopped = stop.which
        n = None if h is None else h.n_states
        bounds = {}
        if exact:
            m = max(ce_lengths, default=0)
            bounds["equivalence_queries"] = BoundCheck(
                "equivalence_queries", eqs, lstar_equivalence_bound(n))
            bounds["membership_queries"] = BoundCheck(
                "membership_queries", self.calls - self.rechecks,
                lstar_membership_bound(n, self.k, m, self.processing))
        return LStarResult(hypothesis=h, exact=exact, stopped=stopped,
                           membership_queries=self.calls,
                           distinct_membership_queries=len(self.cache),
                           rechecks=self.rechecks,
                           trace_queries=self.traces is not None,
                           equivalence_queries=eqs, counterexamples=ces,
                           counterexample_lengths=ce_lengths, table_sizes=record_sizes,
                           suffixes=list(self.E), prefixes=list(self.S),
                           processing=self.processing, bounds=bounds,
                           bounds_held=all(b.held for b in bounds.values()))


def _run(delta, acc, letters, z):
    pos = {c: i for i, c in enumerate(letters)}
    q = 0
    for c in z:
        q = delta[q][pos[c]]
    return acc[q]


def run_dfa_demo(n_states, alphabet_size, seed, processing="rivest-schapire"):
    """Learn a random minimal DFA with L* and an exact equivalence oracle; a dict of the
    queries asked next to their bounds."""
    if not _is_int(alphabet_size) or not 1 <= alphabet_size <= 26:
        raise ValueError(f"run_dfa_demo: parameter alphabet_size must be an integer in "
                         f"[1, 26], got {alphabet_size!r}")
    letters = "abcdefghijklmnopqrstuvwxyz"[:alphabet_size]
    target = DFA.random(n_states, letters, seed=seed, minimal=True)
    mq = DFAMembershipOracle(target)
    eq = DFAEquivalenceOracle(target)
    res = lstar(letters, mq, eq, counterexamples=processing)
    learned = res.hypothesis.minimize()
    return {
        "n_states": n_states, "alphabet_size": alphabet_size, "seed": seed,
        "processing": processing, "exact": res.exact,
        "learned_states": res.hypothesis.n_states,
        "equivalent": target.equivalent(learned) is None,
        "membership_queries": res.membership_queries,
        "membership_bound": res.bounds["membership_queries"].bound,
        "equivalence_queries": res.equivalence_queries,
        "equivalence_bound": res.bounds["equivalence_queries"].bound,
        "counterexample_lengths": list(res.counterexample_lengths),
        "bounds_held": res.bounds_held,
    }
