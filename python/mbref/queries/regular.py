"""Angluin's L* and its oracles, written from the papers (twin of ``mbcore.queries.regular``;
standard library only).

The rule (Angluin 1987, "Learning regular sets from queries and counterexamples", Information
and Computation 75; Angluin's lectures 26-27).  An *observation table* has a prefix-closed
list S of access words, a suffix-closed list E of tests (both start as the empty word), and a
row for every word u of S and of S.Sigma: ``row(u) = (MQ(u e) for e in E)``.  It is *closed*
when every row of S.Sigma is the row of some word of S, *consistent* when two words of S with
equal rows keep equal rows after any letter.  A closed, consistent table is an automaton: its
states are the distinct rows of S, the start is ``row(empty)``, a state accepts when its
entry under the empty test is 1, the letter a leads from ``row(s)`` to ``row(s a)``.  L*
fills the table, closes it (moving a word of S.Sigma with a new row into S), makes it
consistent (adding the test ``a e`` that tells two equal rows apart), conjectures the
automaton, and uses the equivalence oracle's counterexample z in one of three ways:

* ``"angluin"``: every prefix of z joins S (Angluin 1987);
* ``"rivest-schapire"``: with u_i the access word of the state the hypothesis is in after
  reading ``z[:i]``, ``alpha(i) = MQ(u_i z[i:])`` runs from ``alpha(0) = MQ(z)`` to the
  hypothesis's own answer on z, which differ; a binary search finds a place where alpha
  changes and the single test ``z[i+1:]`` joins E (Rivest & Schapire 1993, "Inference of
  finite automata using homing sequences", Information and Computation 103).  When the next
  hypothesis still gets z wrong, z is used again without asking the equivalence oracle;
* ``"suffixes"``: every suffix of z joins E, shortest first (Maler & Pnueli 1995).

mbcore's tests demand from both twins the same words asked in the same order, the same
counterexamples, tables and hypotheses; the ties that fix them are those mbcore's module
docstring states, and each is written where it applies below.  The membership oracle is asked
through :class:`_Membership`: one *fill* of the table at a time (a batch), each word once.

mbcore runs the words of a batch through a compiled kernel (``run_batch``, ``run_traces``)
and keeps words as bytes and rows as bit masks; here words are tuples of letters and rows are
tuples of answers, exactly as the paper writes them.  The W-method oracle (Chow 1978;
Vasilevskii 1973) is pure Python in mbcore too; it is written here from its definition.
"""

import itertools
import math
import random as _random

from ..exceptions import InconsistentOracleError
from ._common import alphabet_of, hashable, is_int
from .automata import DFA

__all__ = ["lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
           "DFAEquivalenceOracle", "SamplingEquivalenceOracle", "WMethodEquivalenceOracle",
           "lstar_equivalence_bound", "lstar_membership_bound", "eq_test_sample_size",
           "run_dfa_demo", "PROCESSINGS", "DEFAULT_MAX_STATES"]

PROCESSINGS = ("rivest-schapire", "angluin", "suffixes")
DEFAULT_MAX_STATES = 100_000


# -- bounds ----------------------------------------------------------------------------------------

def _at_least(owner, name, value, low):
    if not is_int(value) or value < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")
    return int(value)


def lstar_equivalence_bound(n):
    """n: every counterexample adds a state to the hypothesis, which never has more states
    than the minimal target's n, so at most n - 1 conjectures are wrong (Angluin 1987)."""
    return _at_least("lstar_equivalence_bound", "n", n, 1)


def lstar_membership_bound(n, k, m, processing="angluin"):
    """The most distinct words L* asks for an n-state minimal target over k letters when the
    longest counterexample has length m: (words of S and S.Sigma) x (tests of E).

    * Angluin's processing: S holds at most n + m(n-1) words (n states, each of the n - 1
      counterexamples adds at most m prefixes), S.Sigma k times as many, E at most n tests
      (each consistency fix adds a state): ``(k + 1)(n + m(n - 1)) n``.
    * Rivest-Schapire: S and E at most n words each, plus for each of the n - 1
      counterexamples the word itself and ceil(log2 m) words of the binary search:
      ``(k + 1) n^2 + (n - 1)(1 + ceil(log2 m))``.
    * All suffixes: S at most n words, E at most 1 + (n - 1) m tests:
      ``(k + 1) n (1 + (n - 1) m)``.
    """
    o = "lstar_membership_bound"
    n = _at_least(o, "n", n, 1)
    k = _at_least(o, "k", k, 1)
    m = _at_least(o, "m", m, 0)
    if processing == "angluin":
        S, E = n + m * (n - 1), n
    elif processing == "rivest-schapire":
        S, E = n, n
    elif processing == "suffixes":
        S, E = n, 1 + (n - 1) * m
    else:
        raise ValueError(f"{o}: parameter processing must be one of {PROCESSINGS}, got "
                         f"{processing!r}")
    words = (k + 1) * S * E                     # the rows of S and S.Sigma, one word per test
    if processing == "rivest-schapire":
        search = (m - 1).bit_length() if m > 1 else 0       # ceil(log2 m), exactly
        words += (n - 1) * (1 + search)
    return words


def eq_test_sample_size(i, epsilon, delta):
    """``ceil((1/epsilon) ln(1/delta_i))`` with ``delta_i = delta / 2^i`` (Angluin lecture 25:
    the delta_i sum to delta), at least 1; ``ln(1/delta_i)`` is computed as ``i ln 2 - ln
    delta``, the float arithmetic mbcore's ``bounds.eq_test_sample_size`` uses."""
    return max(1, math.ceil((i * math.log(2.0) - math.log(delta)) / epsilon))


class BoundCheck:
    """One bound checked on a run of :func:`lstar`: ``held`` is ``observed <= bound``."""

    def __init__(self, name, observed, bound):
        self.name, self.observed, self.bound = name, observed, bound
        self.held = observed <= bound

    def __repr__(self):
        return (f"BoundCheck({self.name!r}, observed={self.observed}, bound={self.bound}, "
                f"held={self.held})")


# -- oracles ---------------------------------------------------------------------------------------

def _target_dfa(owner, target):
    if not isinstance(target, DFA):
        raise TypeError(f"{owner}: parameter target must be a DFA, got {type(target).__name__}")
    return target


def _target_or_callable(owner, target):
    if not isinstance(target, DFA) and not callable(target):
        raise TypeError(f"{owner}: parameter target must be a DFA or a callable word -> bool, "
                        f"got {type(target).__name__}")
    if isinstance(target, DFA):
        return target.accepts
    return lambda w: bool(target(w))


class DFAMembershipOracle:
    """MQ(w) = ``target.accepts(w)``; ``calls`` counts the words, also those of a batch
    (``many``)."""

    def __init__(self, target):
        self.target = _target_dfa("DFAMembershipOracle", target)
        self.calls = 0

    def many(self, words):
        """The answers for a batch of words; counts every word."""
        words = list(words)
        self.calls += len(words)
        return self.target.accepts_many(words)

    def __call__(self, word):
        return self.many([word])[0]


class DFATraceOracle(DFAMembershipOracle):
    """A DFA's membership oracle that also answers trace queries: ``prefixes(w)`` lists the
    answers for every prefix of w, shortest first, as one call."""

    def prefixes(self, word):
        """The answers for ``word[:0], word[:1], ..., word`` (one call)."""
        t = self.target
        letters = t._positions("DFATraceOracle.prefixes", word)
        self.calls += 1
        q = t.start
        trace = [t.accepting[q]]
        for i in letters:
            q = t.delta[q][i]
            trace.append(t.accepting[q])
        return trace


class DFAEquivalenceOracle:
    """EQ(h) = None when h accepts the target's language, else the shortest word on which they
    differ, the least among the shortest (:meth:`DFA.equivalent`); ``calls`` counts."""

    def __init__(self, target):
        self.target = _target_dfa("DFAEquivalenceOracle", target)
        self.calls = 0

    def __call__(self, hypothesis):
        self.calls += 1
        return self.target.equivalent(hypothesis)


class SamplingEquivalenceOracle:
    """EQ simulated by sampling (Angluin lecture 25): query i draws
    :func:`eq_test_sample_size` (i, epsilon, delta) words and returns the first on which the
    hypothesis and the target disagree, else None.  A word: its length uniform on
    0..max_length, then each letter uniform, all from ``random.Random(seed)`` in that
    order."""

    def __init__(self, target, alphabet, epsilon=0.05, delta=0.05, seed=0, max_length=20):
        o = "SamplingEquivalenceOracle"
        self._label = _target_or_callable(o, target)
        self.target = target
        self.alphabet = alphabet_of(o, alphabet)
        for name, v in (("epsilon", epsilon), ("delta", delta)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 < v < 1.0:
                raise ValueError(f"{o}: parameter {name} must be in (0, 1), got {v!r}")
        self.epsilon, self.delta = float(epsilon), float(delta)
        if not is_int(max_length) or max_length < 0:
            raise ValueError(f"{o}: parameter max_length must be an integer >= 0, got "
                             f"{max_length!r}")
        self.max_length = max_length
        self._rng = _random.Random(seed)
        self.calls = 0
        self.examples = 0

    def _word(self):
        length = self._rng.randrange(self.max_length + 1)
        return tuple(self.alphabet[self._rng.randrange(len(self.alphabet))]
                     for _ in range(length))

    def __call__(self, hypothesis):
        self.calls += 1
        size = eq_test_sample_size(self.calls, self.epsilon, self.delta)
        sample = [self._word() for _ in range(size)]
        self.examples += size
        said = [bool(hypothesis.accepts(w)) for w in sample]
        truth = [self._label(w) for w in sample]
        return next((w for w, a, b in zip(sample, said, truth) if a != b), None)


class WMethodEquivalenceOracle:
    """EQ by the W-method conformance test (Chow 1978; Vasilevskii 1973).

    With h the minimized hypothesis (n states) and ``max_states`` a bound on the target's
    states, the test words are p x w for p in the transition cover P, x in Sigma^j and w in the
    characterization set W, by j = 0..max_states - n, then p, then x (in the order of alphabet
    positions), then w.  P: the access words of h's states, in breadth-first order from the
    start (letters in alphabet order), then each of them followed by each letter.  W: the
    empty word; then, while some class of states that W does not tell apart (classes in the
    order of their least state) has two states, the shortest least word telling its two least
    states apart.  The first test word on which h and the target disagree is returned; a
    target with at most ``max_states`` states that passes every test is equivalent to h.
    """

    def __init__(self, target, max_states):
        o = "WMethodEquivalenceOracle"
        self._label = _target_or_callable(o, target)
        self.target = target
        if not is_int(max_states) or max_states < 1:
            raise ValueError(f"{o}: parameter max_states must be an integer >= 1, got "
                             f"{max_states!r}")
        self.max_states = max_states
        self.calls = 0
        self.tests = 0

    def __call__(self, hypothesis):
        self.calls += 1
        h = hypothesis.minimize()
        for word in _w_method_words(h, max(0, self.max_states - h.n_states)):
            self.tests += 1
            if h.accepts(word) != self._label(word):
                return word
        return None


def _w_method_words(h, extra):
    access = _access_words(h)
    cover = access + [p + (c,) for p in access for c in h.alphabet]
    W = _characterizing_words(h)
    for j in range(extra + 1):
        for p in cover:
            for x in itertools.product(h.alphabet, repeat=j):
                for w in W:
                    yield p + x + w


def _access_words(h):
    """The shortest least word reaching each reachable state, in breadth-first order."""
    word = {h.start: ()}
    queue = [h.start]
    for q in queue:
        for c, t in zip(h.alphabet, h.delta[q]):
            if t not in word:
                word[t] = word[q] + (c,)
                queue.append(t)
    return [word[q] for q in queue]


def _characterizing_words(h):
    W = [()]
    while True:
        classes = {}
        for q in range(h.n_states):
            key = tuple(h.accepting[h._walk(q, (h._index[c] for c in w))] for w in W)
            classes.setdefault(key, []).append(q)
        pair = next((g[:2] for g in classes.values() if len(g) > 1), None)
        w = None if pair is None else h.distinguishing_word(*pair)
        if w is None:               # every class is one state (h is minimal)
            return W
        W.append(w)


# -- L* ----------------------------------------------------------------------------------------------

class LStarResult:
    """What :func:`lstar` returns (the attributes of mbcore's LStarResult)."""

    def __init__(self, **record):
        self.__dict__.update(record)

    def __repr__(self):
        h = self.hypothesis
        return (f"LStarResult(states={h and h.n_states}, exact={self.exact}, equivalence_queries="
                f"{self.equivalence_queries}, membership_queries={self.membership_queries})")


def _as_bool(word, a):
    """A membership answer as a bool: a bool, 0 or 1, or their NumPy scalars."""
    if type(a).__name__ in ("bool", "bool_"):
        return bool(a)
    if is_int(a) and a in (0, 1):
        return bool(a)
    raise InconsistentOracleError(f"lstar: the membership oracle answered {a!r} for the word "
                                  f"{word!r}; expected a bool (or 0/1)")


class _Stop(Exception):
    """A bound of the run (``max_states``, ``max_rounds``) was reached."""


class _Membership:
    """The membership oracle behind a memo: every word is asked once.  ``fill(words)`` asks
    the words not yet answered, in the order given, as one batch: one ``many`` call when the
    oracle has it, else one call per word; an oracle with ``prefixes`` (trace queries) is
    asked the batch's words longest first (a stable sort), skipping every word already
    answered as a prefix of an earlier trace."""

    def __init__(self, oracle):
        self.oracle = oracle
        self.many = getattr(oracle, "many", None)
        self.traces = getattr(oracle, "prefixes", None)
        self.answer = {}
        self.calls = 0
        self.rechecks = 0

    def fill(self, words):
        batch = [w for w in dict.fromkeys(words) if w not in self.answer]
        if not batch:
            return
        if self.traces is not None:
            for w in sorted(batch, key=len, reverse=True):
                if w not in self.answer:
                    self._trace(w)
            return
        if self.many is None:
            answers = [self.oracle(w) for w in batch]
        else:
            answers = list(self.many(batch))
            if len(answers) != len(batch):
                raise InconsistentOracleError(
                    f"lstar: the membership oracle's many() answered {len(answers)} words "
                    f"for {len(batch)}")
        self.calls += len(batch)
        for w, a in zip(batch, answers):
            self.answer[w] = _as_bool(w, a)

    def _trace(self, w):
        """One trace query; its answers are kept from the whole word down to the longest
        prefix already answered, which must get the same answer again."""
        trace = list(self.traces(w))
        self.calls += 1
        if len(trace) != len(w) + 1:
            raise InconsistentOracleError(
                f"lstar: the membership oracle's prefixes() answered {len(trace)} values for "
                f"the word {w!r}, expected {len(w) + 1} (one per prefix)")
        for i in reversed(range(len(w) + 1)):
            u, a = w[:i], _as_bool(w[:i], trace[i])
            if u not in self.answer:
                self.answer[u] = a
            elif self.answer[u] == a:
                return
            else:
                raise InconsistentOracleError(
                    f"lstar: the membership oracle answered {a} for the word {u!r}, which it "
                    f"answered {self.answer[u]} before")

    def __call__(self, w):
        self.fill([w])
        return self.answer[w]

    def ask_again(self, w):
        """``recheck``: the oracle asked once more for w (one more call), which must answer as
        it did before."""
        a = _as_bool(w, self.oracle(w))
        self.calls += 1
        self.rechecks += 1
        if a != self.answer[w]:
            raise InconsistentOracleError(
                f"lstar: the membership oracle answered {a} for the word {w!r}, which it "
                f"answered {self.answer[w]} before")


class _Table:
    """Angluin's observation table.  ``row`` maps every word of S and S.Sigma, in the order
    the table met it, to its row (a tuple: one answer per test of E, in E's order)."""

    def __init__(self, letters, mq, max_states):
        self.letters = letters
        self.mq = mq
        self.max_states = max_states
        self.S = []
        self.E = [()]
        self.row = {}

    def states(self):
        """The distinct rows of S, in S's order, each with the first word of S that has it."""
        first = {}
        for s in self.S:
            first.setdefault(self.row[s], s)
        return first

    def add_rows(self, words):
        """Rows for the words that have none: one batch, word by word, test by test."""
        words = [u for u in words if u not in self.row]
        self.mq.fill([u + e for u in words for e in self.E])
        for u in words:
            self.row[u] = tuple(self.mq.answer[u + e] for e in self.E)

    def add_tests(self, tests):
        """New tests in E: one batch, test by test, over every word of the table."""
        words = list(self.row)
        self.mq.fill([u + e for e in tests for u in words])
        for e in tests:
            self.E.append(e)
            for u in words:
                self.row[u] += (self.mq.answer[u + e],)

    def add_access_words(self, words):
        """New words in S (those not in S yet), then the rows of their one-letter
        extensions, as one batch; stop when S has more distinct rows than allowed."""
        new = [s for s in dict.fromkeys(words) if s not in self.S]
        self.add_rows(new)
        self.S += new
        self.add_rows([s + (a,) for s in new for a in self.letters])
        if len(self.states()) > self.max_states:
            raise _Stop("max_states")

    def close(self):
        """While some row of S.Sigma is no row of S: every word s a (s in S's order, then
        letters) whose row is new, the first with each new row, joins S at once."""
        rows_of_S = set(self.states())
        scan = list(self.S)
        while True:
            new = {}
            for s in scan:
                for a in self.letters:
                    r = self.row[s + (a,)]
                    if r not in rows_of_S:
                        new.setdefault(r, s + (a,))
            if not new:
                return
            self.add_access_words(list(new.values()))
            rows_of_S.update(new)
            scan = list(new.values())

    def inconsistency(self):
        """The first test ``a e`` that tells apart two words of S with equal rows: the words
        grouped by row (groups in the order of their first word), each compared with the
        first of its group, letters in order, e the first test of E on which ``s1 a`` and
        ``s2 a`` differ.  None when the table is consistent."""
        groups = {}
        for s in self.S:
            groups.setdefault(self.row[s], []).append(s)
        for s1, *others in groups.values():
            for s2 in others:
                for a in self.letters:
                    r1, r2 = self.row[s1 + (a,)], self.row[s2 + (a,)]
                    for e, x, y in zip(self.E, r1, r2):
                        if x != y:
                            return (a,) + e
        return None

    def make_closed_and_consistent(self, processing):
        """Close; with Angluin's processing also make consistent (each fix is checked against
        ``max_states``), and close again, until both hold.  The other processings keep the
        rows of S distinct, so their tables are always consistent."""
        while True:
            self.close()
            if processing != "angluin":
                return
            test = self.inconsistency()
            if test is None:
                return
            if test in self.E:
                raise InconsistentOracleError(f"lstar: the suffix {test!r} is already in E")
            self.add_tests([test])
            if len(self.states()) > self.max_states:
                raise _Stop("max_states")

    def hypothesis(self):
        """The automaton of the table: state j is the j-th distinct row of S; returns it and
        the access word of each state."""
        first = self.states()
        number = {r: j for j, r in enumerate(first)}
        access = list(first.values())
        delta = [[number[self.row[s + (a,)]] for a in self.letters] for s in access]
        accepting = [self.row[s][0] for s in access]
        return DFA(self.letters, delta, accepting, 0), access


def _rivest_schapire_test(mq, h, access, z, tests):
    """The test ``z[i+1:]`` of a place where ``alpha(i) = MQ(u_i z[i:])`` changes.

    alpha(0) = MQ(z), and alpha(|z| - 1) = alpha(|z|) = the hypothesis's answer on z (u of
    the state after ``z[:-1]`` followed by the last letter has the row of the state after z),
    which differs.  Binary search on [lo, hi] with alpha(lo) = alpha(0) != alpha(hi), from
    lo = 0, hi = |z| - 1, halving at mid = (lo + hi) // 2, one membership query each."""
    state_after = [h.state_of(z[:i]) for i in range(len(z) + 1)]
    lo, hi = 0, len(z) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mq(access[state_after[mid]] + z[mid:]) == mq.answer[z]:
            lo = mid
        else:
            hi = mid
    if z[hi:] in tests:
        raise InconsistentOracleError(
            f"lstar: the counterexample {z!r} gives the suffix {z[hi:]!r}, already in E: the "
            "membership answers are inconsistent")
    return z[hi:]


def _counterexample(answer, letters):
    """The equivalence oracle's answer as a tuple of letters of the alphabet."""
    try:
        z = tuple(answer)
    except TypeError:
        raise InconsistentOracleError(f"lstar: the equivalence oracle returned {answer!r}, "
                                      "not a word (a sequence of letters) or None") from None
    for j, c in enumerate(z):
        if not hashable(c) or c not in letters:
            raise InconsistentOracleError(
                f"lstar: the counterexample {z!r} holds the letter {c!r} (position {j}), not "
                f"in the alphabet {letters!r}")
    return z


def lstar(alphabet, membership, equivalence, counterexamples="rivest-schapire",
          max_states=None, max_rounds=None, recheck=False):
    """Angluin's L* (the parameters, results and errors of ``mbcore.queries.lstar``)."""
    o = "lstar"
    letters = alphabet_of(o, alphabet)
    for name, f, what in (("membership", membership, "a callable word -> bool"),
                          ("equivalence", equivalence, "a callable dfa -> word or None")):
        if not callable(f):
            raise TypeError(f"{o}: parameter {name} must be {what}, got {type(f).__name__}")
    if counterexamples not in PROCESSINGS:
        raise ValueError(f"{o}: parameter counterexamples must be one of {PROCESSINGS}, got "
                         f"{counterexamples!r}")
    caps = {"max_states": max_states, "max_rounds": max_rounds}
    bad = [name for name, v in caps.items() if v is not None and (not is_int(v) or v < 1)]
    if bad:
        raise ValueError(f"{o}: parameter {bad[0]} must be an integer >= 1 or None, got "
                         f"{caps[bad[0]]!r}")
    mq = _Membership(membership)
    table = _Table(letters, mq, DEFAULT_MAX_STATES if max_states is None else max_states)
    run = dict(hypothesis=None, exact=False, stopped=None, equivalence_queries=0,
               counterexamples=[], table_sizes=[])
    try:
        _learn(table, mq, equivalence, counterexamples, max_rounds, recheck, run)
    except _Stop as stop:
        run["stopped"] = stop.args[0]
    lengths = [len(z) for z in run["counterexamples"]]
    bounds = {}
    if run["exact"]:
        n = run["hypothesis"].n_states
        bounds["equivalence_queries"] = BoundCheck(
            "equivalence_queries", run["equivalence_queries"], lstar_equivalence_bound(n))
        bounds["membership_queries"] = BoundCheck(
            "membership_queries", mq.calls - mq.rechecks,
            lstar_membership_bound(n, len(letters), max(lengths, default=0), counterexamples))
    return LStarResult(membership_queries=mq.calls, distinct_membership_queries=len(mq.answer),
                       rechecks=mq.rechecks, trace_queries=mq.traces is not None,
                       counterexample_lengths=lengths, suffixes=list(table.E),
                       prefixes=list(table.S), processing=counterexamples, bounds=bounds,
                       bounds_held=all(b.held for b in bounds.values()), **run)


def _learn(table, mq, equivalence, processing, max_rounds, recheck, run):
    """The loop of L*, recording into ``run`` as it goes (a stop keeps what was recorded)."""
    letters = table.letters
    table.add_rows([()])
    table.S.append(())
    table.add_rows([(a,) for a in letters])
    table.make_closed_and_consistent(processing)
    z = None
    while True:
        h, access = table.hypothesis()
        run["hypothesis"] = h
        run["table_sizes"].append((len(table.S), len(table.row) - len(table.S), len(table.E)))
        if z is None or h.accepts(z) == mq.answer[z]:       # z is used up: ask for another
            if max_rounds is not None and run["equivalence_queries"] >= max_rounds:
                raise _Stop("max_rounds")
            run["equivalence_queries"] += 1
            answer = equivalence(h)
            if answer is None:
                run["exact"] = True
                return
            z = _counterexample(answer, letters)
            run["counterexamples"].append(z)
            mq(z)
            if recheck:
                mq.ask_again(z)
            if h.accepts(z) == mq.answer[z]:
                raise InconsistentOracleError(
                    f"lstar: the equivalence oracle's counterexample {z!r} is classified by "
                    f"the hypothesis as the membership oracle does ({mq.answer[z]})")
        states_before = len(table.states())
        if processing == "angluin":
            table.add_access_words([z[:i] for i in range(1, len(z) + 1)])
        elif processing == "rivest-schapire":
            table.add_tests([_rivest_schapire_test(mq, h, access, z, table.E)])
        else:
            table.add_tests([z[i:] for i in reversed(range(len(z))) if z[i:] not in table.E])
        table.make_closed_and_consistent(processing)
        if len(table.states()) <= states_before:
            raise InconsistentOracleError(
                f"lstar: the counterexample {z!r} added no state: the membership answers are "
                "inconsistent")


def run_dfa_demo(n_states, alphabet_size, seed, processing="rivest-schapire"):
    """Learn a seeded random minimal DFA with L* and an exact equivalence oracle; the dict of
    mbcore's ``run_dfa_demo`` (queries asked next to their bounds)."""
    if not is_int(alphabet_size) or not 1 <= alphabet_size <= 26:
        raise ValueError(f"run_dfa_demo: parameter alphabet_size must be an integer in "
                         f"[1, 26], got {alphabet_size!r}")
    letters = "abcdefghijklmnopqrstuvwxyz"[:alphabet_size]
    target = DFA.random(n_states, letters, seed=seed, minimal=True)
    res = lstar(letters, DFAMembershipOracle(target), DFAEquivalenceOracle(target),
                counterexamples=processing)
    mb, eb = res.bounds["membership_queries"], res.bounds["equivalence_queries"]
    return dict(n_states=n_states, alphabet_size=alphabet_size, seed=seed,
                processing=processing, exact=res.exact,
                learned_states=res.hypothesis.n_states,
                equivalent=target.equivalent(res.hypothesis.minimize()) is None,
                membership_queries=res.membership_queries, membership_bound=mb.bound,
                equivalence_queries=res.equivalence_queries, equivalence_bound=eb.bound,
                counterexample_lengths=list(res.counterexample_lengths),
                bounds_held=res.bounds_held)
