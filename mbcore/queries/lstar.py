"""Angluin's L*: learning a regular language exactly from membership and equivalence queries
(Angluin 1987; lectures 26-27), with three ways of using a counterexample, the oracles it
needs (membership from a DFA; equivalence exact, by sampling, or by the W-method), and its
query bounds checked on every run.

The rule
--------
L* keeps an *observation table*: a prefix-closed list S of access words, a suffix-closed list
E of test words (both start as the empty word), and for every u in S and S.Sigma the row
``row(u) = (MQ(u e))_{e in E}``.  The table is *closed* when every row of S.Sigma equals a row
of S, and *consistent* when rows of S that are equal stay equal after any letter.  A closed
and consistent table gives the hypothesis: the states are the distinct rows of S, the start
is row(empty), a state accepts when its entry under the empty suffix is 1, and reading a
from row(s) leads to row(s a).  L* fills the table, makes it closed (moving a row of S.Sigma
into S) and consistent (adding a suffix a.e to E), conjectures the hypothesis, and uses the
counterexample z of the equivalence oracle:

* ``"angluin"`` (Angluin 1987): add every prefix of z to S.
* ``"rivest-schapire"`` (Rivest & Schapire 1993): with u_i the access word of the state the
  hypothesis reaches after z[:i], the answers alpha(i) = MQ(u_i z[i:]) go from alpha(0) =
  MQ(z) to alpha(|z|) = the hypothesis's answer on z, which differ; a binary search finds i
  with alpha(i) != alpha(i+1) in at most ceil(log2 |z|) queries and adds the one suffix
  z[i+1:] to E.  S's rows then stay distinct (no consistency check is needed) and the next
  hypothesis has more states.  When the new hypothesis still misclassifies z, z is used again
  without a new equivalence query.
* ``"suffixes"`` (Maler & Pnueli 1995): add every suffix of z to E (shortest first).

Ties (the twin ``mbref.queries`` follows them, so both give the same hypothesis and the same
counts): S and E keep insertion order; the rows of S.Sigma are scanned in the order (s in S,
letter in alphabet order), and every one whose row is new is moved to S at once, in that
order; an inconsistency is looked for group by group of equal rows of S (in S order), each
member against the first, letters in order, and the suffix added is the letter followed by the
first suffix of E on which the two successors differ.  New words are asked in the order the
table needs them, new rows before new columns, each batch at once when the oracle has a
``many`` method, and never twice (a cache keyed by word).

Bounds (checked on every exact run, :attr:`LStarResult.bounds`): for a target whose minimal
DFA has n states, over k letters, with longest counterexample m: at most n equivalence
queries (n - 1 wrong conjectures: each counterexample adds a state); membership queries (the
distinct words asked) at most (k+1)(n + m(n-1)) n with Angluin's processing (|S| <= n +
m(n-1), |S.Sigma| <= k|S|, |E| <= n; Angluin 1987, Theorem 6), (k+1) n^2 + (n-1)(1 +
ceil(log2 m)) with Rivest-Schapire's (|S| <= n, |E| <= n, plus the counterexample and the
binary search), and (k+1) n (1 + (n-1) m) with all suffixes (|S| <= n, |E| <= 1 + (n-1) m).
See :func:`mbcore.bounds.lstar_membership_bound`.

Sources: Angluin (1987), "Learning regular sets from queries and counterexamples",
Information and Computation 75(2):87-106; Rivest & Schapire (1993), "Inference of finite
automata using homing sequences", Information and Computation 103(2):299-347; Maler & Pnueli
(1995), "On the learnability of infinitary regular sets", Information and Computation
118(2):316-326; Angluin's lecture 25 (equivalence queries simulated by sampling) and lectures
26-27 (L*); Chow (1978) and Vasilevskii (1973) for the W-method.

Examples
--------
The language of Angluin's example (1987, section 5): the words over {0, 1} with an even
number of 0's and an even number of 1's, a 4-state minimal DFA.

>>> from mbcore.queries import (DFA, DFAMembershipOracle, DFAEquivalenceOracle, lstar)
>>> target = DFA("01", delta=[[1, 2], [0, 3], [3, 0], [2, 1]],
...              accepting=[True, False, False, False])
>>> res = lstar("01", DFAMembershipOracle(target), DFAEquivalenceOracle(target),
...             counterexamples="angluin")
>>> res.hypothesis.n_states, res.exact, target.equivalent(res.hypothesis)
(4, True, None)
>>> res.equivalence_queries, res.counterexamples
(2, [('0', '0')])
>>> res.bounds_held
True
"""

import itertools
import math
import numbers

import numpy as np

from ..bounds import eq_test_sample_size, lstar_equivalence_bound, lstar_membership_bound
from ..exceptions import InconsistentOracleError
from .automata import DFA, check_alphabet as _check_alphabet

__all__ = ["lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFAEquivalenceOracle",
           "SamplingEquivalenceOracle", "WMethodEquivalenceOracle", "run_dfa_demo",
           "PROCESSINGS", "DEFAULT_MAX_STATES"]

PROCESSINGS = ("rivest-schapire", "angluin", "suffixes")
"""The ways :func:`lstar` uses a counterexample."""

DEFAULT_MAX_STATES = 100_000
"""The bound on the hypothesis's states when ``max_states=None`` (a safety net: a target that
is not regular, or an adversarial oracle, would otherwise keep the table growing)."""


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _hashable(c):
    try:
        hash(c)
    except TypeError:
        return False
    return True


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

def _letters_of(target):
    return tuple(target.alphabet)


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
        """The answers for a batch of words (one compiled run); counts every word."""
        words = list(words)
        self.calls += len(words)
        return self.target.accepts_many(words).tolist()


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
            return t.accepts_many(words).tolist()
        return [bool(t(w)) for w in words]

    def __call__(self, hypothesis):
        self.calls += 1
        m = eq_test_sample_size(self.calls, self.epsilon, self.delta)
        words = self._draw(m)
        self.examples += m
        h = hypothesis.accepts_many(words).tolist()
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
    d = h._as_lists()[0]
    acc = {h.start: ()}
    order = [h.start]
    for q in order:
        for i, c in enumerate(h.alphabet):
            t = d[q][i]
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
    d, acc = h._as_lists()
    for c in word:
        q = d[q][h._pos[c]]
    return acc[q]


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
    if isinstance(a, (bool, np.bool_)):
        return bool(a)
    if _is_int(a) and a in (0, 1):
        return bool(a)
    raise InconsistentOracleError(f"{owner}: the membership oracle answered {a!r} for the word "
                                  f"{word!r}; expected a bool (or 0/1)")


def lstar(alphabet, membership, equivalence, counterexamples="rivest-schapire",
          max_states=None, max_rounds=None, recheck=False):
    """Angluin's L* (see mbcore.queries.lstar for the full description)."""
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
        if new:
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

    def hypothesis(self):
        srows, rows = self.srows, self.rows
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
        lo, hi = 0, len(z)
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
                "membership_queries", len(self.cache),
                lstar_membership_bound(n, self.k, m, self.processing))
        return LStarResult(hypothesis=h, exact=exact, stopped=stopped,
                           membership_queries=self.calls,
                           distinct_membership_queries=len(self.cache),
                           rechecks=self.rechecks,
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
