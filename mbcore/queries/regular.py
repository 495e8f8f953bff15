"""Angluin's L*: learning a regular language exactly from membership and equivalence
queries (Angluin 1987; lectures 26-27), with three ways of using a counterexample, the
oracles it needs (membership from a DFA; equivalence exact, by sampling, or by the W-method),
and its query bounds checked on every run.

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
  MQ(z) to alpha(len(z)) = the hypothesis's answer on z, which differ; a binary search finds i
  with alpha(i) != alpha(i+1) in at most ceil(log2 len(z)) queries and adds the one suffix
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
``many`` method, and never twice (a cache keyed by word).  An oracle with a ``prefixes``
method answers trace queries (every prefix of a word in one call): each batch is then asked
longest word first, and a word already answered as a prefix is not asked.

Bounds (checked on every exact run, :attr:`LStarResult.bounds`): for a target whose minimal
DFA has n states, over k letters, with longest counterexample m: at most n equivalence
queries (n - 1 wrong conjectures: each counterexample adds a state); membership queries (the
distinct words asked) at most (k+1)(n + m(n-1)) n with Angluin's processing (at most
n + m(n-1) words in S, k times as many in S.Sigma, n in E; Angluin 1987, Theorem 6),
(k+1) n^2 + (n-1)(1 + ceil(log2 m)) with Rivest-Schapire's (at most n words in S and n in E,
plus the counterexample and the binary search), and (k+1) n (1 + (n-1) m) with all suffixes
(at most n words in S and 1 + (n-1) m in E).
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
(2, [('1', '0')])
>>> res.bounds_held
True
"""

import itertools
import random as _random

import numpy as np

from .. import _params
from ..bounds import eq_test_sample_size, lstar_equivalence_bound, lstar_membership_bound
from ..exceptions import InconsistentOracleError
from .._kernels.automata import run_traces as _run_traces
from .automata import DFA, check_alphabet as _check_alphabet
from ._common import hashable as _hashable, is_int as _is_int

__all__ = ["lstar", "LStarResult", "BoundCheck", "DFAMembershipOracle", "DFATraceOracle",
           "DFAEquivalenceOracle",
           "SamplingEquivalenceOracle", "WMethodEquivalenceOracle", "run_dfa_demo",
           "PROCESSINGS", "DEFAULT_MAX_STATES"]

PROCESSINGS = ("rivest-schapire", "angluin", "suffixes")
"""The ways :func:`lstar` uses a counterexample."""

DEFAULT_MAX_STATES = 100_000
"""The bound on the hypothesis's states when ``max_states=None`` (a safety net: a target that
is not regular, or an adversarial oracle, would otherwise keep the table growing)."""


class BoundCheck:
    """One bound checked on a run of :func:`lstar`: ``held`` is ``observed <= bound``.

    Attributes
    ----------
    name : str
        ``"equivalence_queries"`` or ``"membership_queries"``.
    observed, bound : int
    held : bool
        False would be a bug in mbcore (the run met the theorem's assumptions: it ended with
        an exact hypothesis, and n is that hypothesis's number of states).
    """

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
    """The membership oracle of a known DFA: ``MQ(w) = target.accepts(w)``.

    ``calls`` counts the words asked (one per word, also in a batch).  ``many(words)`` answers a
    batch at once (one compiled run); :func:`lstar` uses it to ask each fill of its table as
    one batch.

    Parameters
    ----------
    target : DFA

    Examples
    --------
    >>> mq = DFAMembershipOracle(DFA("ab", [[1, 0], [0, 1]], [True, False]))
    >>> mq("aa"), mq.many(["a", "b"]), mq.calls
    (True, [False, True], 3)
    """

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

    def _many_encoded(self, offsets, positions):
        # the batch as lstar encodes it (letter positions; see DFA.encode); counts every word
        self.calls += len(offsets) - 1
        return self.target.accepts_many(offsets=offsets, positions=positions).tolist()

    def _few_encoded(self, words):
        # a few words of letter positions, run in Python (no batch overhead); counts them
        self.calls += len(words)
        t = self.target
        d, acc = t._as_lists()
        out = []
        for w in words:
            q = t.start
            for i in w:
                q = d[q][i]
            out.append(acc[q])
        return out


class DFATraceOracle(DFAMembershipOracle):
    """A membership oracle of a DFA that also answers *trace queries*: ``prefixes(word)`` is the
    list of the answers for every prefix of the word, shortest first (``len(word) + 1``
    bools), for one call.

    A system that is run letter by letter gives these answers at the cost of one run (AALpy's
    queries are of this kind).  :func:`lstar` uses ``prefixes`` when the oracle has it: it asks
    the words of each fill longest first and never asks a word already answered as a prefix,
    so ``membership_queries`` counts runs; the table, the hypotheses and the counterexamples
    are the same as with one word per query (the answers are the same).

    Parameters
    ----------
    target : DFA

    Examples
    --------
    >>> mq = DFATraceOracle(DFA("ab", [[1, 0], [0, 1]], [True, False]))
    >>> mq.prefixes("aba"), mq.calls
    ([True, False, False, True], 1)
    """

    def prefixes(self, word):
        """The answers for every prefix of word, shortest first (one call)."""
        t = self.target
        return self._prefixes_encoded(t._encode("DFATraceOracle.prefixes", word))

    def _prefixes_many_encoded(self, words, as_bytes):
        # a batch of words of letter positions: every word's answers after each prefix, from
        # one compiled run; counts one call per word
        self.calls += len(words)
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if as_bytes:
            positions = np.frombuffer(b"".join(words), dtype=np.uint8).astype(np.int32)
        else:
            positions = np.fromiter(itertools.chain.from_iterable(words), dtype=np.int32,
                                    count=int(offsets[-1]))
        t = self.target
        off, pos = t._check_batch("DFATraceOracle", offsets, positions)
        out = np.empty(pos.shape[0] + len(words), dtype=np.uint8)
        _run_traces(t.delta, t.accepting.view(np.uint8), t.start, off, pos, out)
        flat = out.view(bool).tolist()
        starts = (offsets + np.arange(len(words) + 1)).tolist()
        return [flat[starts[j]:starts[j + 1]] for j in range(len(words))]

    def _prefixes_encoded(self, word):
        # word as letter positions (lstar's inner form); counts one call
        self.calls += 1
        t = self.target
        d, acc = t._as_lists()
        q = t.start
        out = [acc[q]]
        for i in word:
            q = d[q][i]
            out.append(acc[q])
        return out


class DFAEquivalenceOracle:
    """The exact equivalence oracle of a known DFA: ``EQ(h)`` is None when h accepts the
    target's language, else a shortest word on which they differ, the least among the shortest
    in the order of alphabet positions (:meth:`DFA.equivalent`, a breadth-first search over
    the product automaton).  ``calls`` counts the queries.

    Parameters
    ----------
    target : DFA

    Examples
    --------
    >>> even_a = DFA("ab", [[1, 0], [0, 1]], [True, False])
    >>> eq = DFAEquivalenceOracle(even_a)
    >>> eq(DFA("ab", [[0, 0]], [True])), eq(even_a), eq.calls
    (('a',), None, 2)
    """

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
    """An equivalence oracle simulated by sampling (EQ -> PAC, Angluin lecture 25).

    The i-th query (i = 1, 2, ...) draws ``m_i = ceil((1/epsilon) ln(2^i / delta))`` random
    words (:func:`mbcore.bounds.eq_test_sample_size`: confidence delta_i = delta / 2^i, which
    sum to delta) and returns the first one the hypothesis classifies differently from the
    target, or None when it agrees on all of them.  A hypothesis with error > epsilon under
    the word distribution survives its test with probability at most (1 - epsilon)^m_i <=
    delta_i, so when L* stops, its hypothesis has error at most epsilon with probability at
    least 1 - delta (over the draws).

    The word distribution: the length is uniform on {0, ..., max_length}, then each letter is
    uniform over the alphabet, independently; every draw comes from Python's
    ``random.Random(seed)`` in that order (so the twin draws the same words).

    Parameters
    ----------
    target : DFA or callable word -> bool
        Labels the sample (the example oracle EX(c, D) of the PAC model; not counted as
        membership queries).
    alphabet : sequence of letters
    epsilon, delta : float in (0, 1), default 0.05
    seed : int or None, default 0
    max_length : int >= 0, default 20

    Attributes
    ----------
    calls : int
        Equivalence queries answered.
    examples : int
        Words drawn in all.

    Examples
    --------
    >>> target = DFA("ab", [[1, 0], [0, 1]], [True, False])
    >>> eq = SamplingEquivalenceOracle(target, "ab", epsilon=0.1, delta=0.1, seed=1)
    >>> res = lstar("ab", DFAMembershipOracle(target), eq)
    >>> res.exact, target.equivalent(res.hypothesis), eq.calls, eq.examples
    (True, None, 1, 30)
    """

    def __init__(self, target, alphabet, epsilon=0.05, delta=0.05, seed=0, max_length=20):
        o = "SamplingEquivalenceOracle"
        if not (isinstance(target, DFA) or callable(target)):
            raise TypeError(f"{o}: parameter target must be a DFA or a callable word -> bool, "
                            f"got {type(target).__name__}")
        self.alphabet = _check_alphabet(o, alphabet)
        for name, v in (("epsilon", epsilon), ("delta", delta)):
            _params.real(o, name, v, 0.0, 1.0, high_inclusive=False, what="in (0, 1)")
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
    """An equivalence oracle by the W-method conformance test (Chow 1978; Vasilevskii 1973).

    With the hypothesis minimized to n states and a bound ``max_states`` on the number of
    states of the target's minimal DFA, test every word p.x.w with p in the transition cover P
    (the access words of the states in breadth-first order, then each of them followed by
    every letter), x in Sigma^j for j = 0..max_states - n (by j, then in the order of
    alphabet positions) and w in the characterization set W (the empty word, then a shortest
    distinguishing word for the first two states of the first class not yet split, until
    every class is a single state).  The first word on which hypothesis and target differ is
    the counterexample.  The test is exact whenever the target has at most ``max_states``
    states: a target that passes it is equivalent to the hypothesis.

    Parameters
    ----------
    target : DFA or callable word -> bool
    max_states : int >= 1

    Attributes
    ----------
    calls : int
        Equivalence queries answered.
    tests : int
        Words tested in all.

    Examples
    --------
    >>> target = DFA("ab", [[1, 2], [0, 3], [3, 0], [2, 1]], [True, False, False, False])
    >>> eq = WMethodEquivalenceOracle(target, max_states=4)
    >>> res = lstar("ab", DFAMembershipOracle(target), eq)
    >>> res.hypothesis.n_states, target.equivalent(res.hypothesis)
    (4, None)
    """

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
    """What :func:`lstar` returns: the hypothesis and the record of the run.

    Attributes
    ----------
    hypothesis : DFA or None
        The last hypothesis (states numbered in the order of S's distinct rows; start 0).
        When ``exact``, it is the minimal DFA of the target's language.  None when a bound
        stopped the run before the first hypothesis.
    exact : bool
        The equivalence oracle answered yes to the hypothesis.
    stopped : None or str
        None after a yes; else the bound that stopped the run: ``"max_states"`` (the table
        had more distinct rows than allowed) or ``"max_rounds"`` (as many equivalence queries
        as allowed had been answered with counterexamples).
    membership_queries : int
        Calls to the membership oracle (each word once, plus the re-asked counterexamples
        with ``recheck=True``; with trace queries, one per trace).
    distinct_membership_queries : int
        Distinct words answered (the cache's size; with trace queries it includes every
        prefix of every trace).
    trace_queries : bool
        The oracle answered trace queries (``prefixes``).
    rechecks : int
    equivalence_queries : int
    counterexamples : list of tuple
        The equivalence oracle's counterexamples, as tuples of letters.
    counterexample_lengths : list of int
    table_sizes : list of (int, int, int)
        ``(len(S), len(S.Sigma minus S), len(E))`` when each hypothesis was built.
    prefixes, suffixes : list of tuple
        S and E at the end, in insertion order.
    processing : str
    bounds : dict of str -> BoundCheck
        ``"equivalence_queries"`` and ``"membership_queries"`` against
        :func:`mbcore.bounds.lstar_equivalence_bound` and
        :func:`mbcore.bounds.lstar_membership_bound` (n = the hypothesis's states, m = the
        longest counterexample); empty when the run was not exact.
    bounds_held : bool
    """

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
    """Learn a regular language exactly with membership and equivalence queries (Angluin's
    L*; the rule, the ties and the bounds are in the docstring of the module
    ``mbcore.queries.regular`` and in :ref:`algorithms-queries`).

    Parameters
    ----------
    alphabet : sequence of distinct hashable letters (or a str of characters)
    membership : callable word -> bool
        ``membership(word)`` with word a tuple of letters; answers must be bools (or 0/1).
        When it has a ``many(words)`` method, each fill of the table is asked as one batch
        (the same words, in the same order, counted the same).  When it has a
        ``prefixes(word)`` method (trace queries, e.g. :class:`DFATraceOracle`), that is used
        instead: one call answers every prefix of a word, the words of each fill are asked
        longest first, and a word already answered as a prefix is not asked.
    equivalence : callable DFA -> word or None
        None accepts the hypothesis; otherwise a counterexample (a sequence of letters).
    counterexamples : {"rivest-schapire", "angluin", "suffixes"}, default "rivest-schapire"
    max_states : int or None, default None
        Stop (``stopped="max_states"``) when the table has more distinct rows than this;
        None means ``DEFAULT_MAX_STATES`` (100,000).
    max_rounds : int or None, default None
        Stop (``stopped="max_rounds"``) instead of asking equivalence query number
        ``max_rounds + 1``.
    recheck : bool, default False
        Ask the membership oracle again for every counterexample and compare with the first
        answer (one more call each), so that an oracle whose answers change is caught.

    Returns
    -------
    LStarResult

    Raises
    ------
    InconsistentOracleError
        The oracles contradicted themselves: an answer that is not a bool, a changed answer
        (``recheck``), a counterexample that the hypothesis already classifies as the
        membership oracle does, a counterexample with a letter outside the alphabet, or one
        that adds no state (which consistent answers cannot do).  The message names the word.

    Examples
    --------
    >>> target = DFA("ab", [[1, 0], [0, 1]], [True, False])      # an even number of a's
    >>> res = lstar("ab", DFAMembershipOracle(target), DFAEquivalenceOracle(target))
    >>> res.hypothesis.n_states, res.equivalence_queries, res.membership_queries
    (2, 1, 5)
    >>> res.table_sizes, res.bounds["membership_queries"]
    ([(2, 3, 1)], BoundCheck('membership_queries', observed=5, bound=13, held=True))
    """
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
                  max_rounds, recheck).run()


class _Stop(Exception):
    def __init__(self, which):
        self.which = which


class _LStar:
    """The observation table and the loop (Angluin 1987; the counterexample processings of
    ``learn_dfa``).  Words are bytes of letter positions inside, rows are
    int bitmasks over E, and a DFA membership oracle is asked a whole batch of encoded words
    at once (its ``_many_encoded``: one compiled run)."""

    def __init__(self, letters, membership, equivalence, processing, max_states, max_rounds,
                 recheck):
        self.letters = letters
        self.k = len(letters)
        self.mq = membership
        self.many = getattr(membership, "many", None)
        self.encoded = getattr(membership, "_many_encoded", None)
        self.traces = getattr(membership, "prefixes", None)
        self.traces_encoded = getattr(membership, "_prefixes_encoded", None)
        self.eq = equivalence
        self.processing = processing
        self.max_states = max_states
        self.max_rounds = max_rounds
        self.recheck = recheck
        self.cache = {}
        self.calls = 0
        self.rechecks = 0
        # words are bytes of letter positions (tuples beyond 256 letters): cheap to join,
        # hash and hand to the kernel
        self.bytes = self.k <= 256
        self.empty = b"" if self.bytes else ()
        self.ext = [bytes((a,)) if self.bytes else (a,) for a in range(self.k)]
        self.S = [self.empty]
        self.Sset = {self.empty}
        self.E = [self.empty]
        self.rows = {}          # word -> int bitmask over E (bit j = MQ(word + E[j]))
        self.srows = {}         # row value -> first s in S with it
        self.reps = []

    def word(self, w):
        L = self.letters
        return tuple(L[i] for i in w)

    # -- membership ------------------------------------------------------------------------------

    def ask(self, words):
        """The answers (bools, in order) for every word; the new ones are asked in the order
        given, once each, as one batch when the oracle can take one."""
        cache = self.cache
        new = [w for w in dict.fromkeys(words) if w not in cache]
        if new and self.traces is not None:
            self.ask_traces(new)
        elif new:
            if self.encoded is not None and len(new) < 32:      # a few: no batch overhead
                cache.update(zip(new, self.mq._few_encoded(new)))
            elif self.encoded is not None:                       # a compiled batch
                lengths = np.fromiter(map(len, new), dtype=np.int64, count=len(new))
                offsets = np.zeros(len(new) + 1, dtype=np.int64)
                np.cumsum(lengths, out=offsets[1:])
                if self.bytes:
                    positions = np.frombuffer(b"".join(new), dtype=np.uint8).astype(np.int32)
                else:
                    positions = np.fromiter(itertools.chain.from_iterable(new),
                                            dtype=np.int32, count=int(offsets[-1]))
                cache.update(zip(new, self.encoded(offsets, positions)))
            else:
                if self.many is not None:
                    answers = list(self.many([self.word(w) for w in new]))
                    if len(answers) != len(new):
                        raise InconsistentOracleError(
                            f"lstar: the membership oracle's many() answered {len(answers)} "
                            f"words for {len(new)}")
                else:
                    mq, word = self.mq, self.word
                    answers = [mq(word(w)) for w in new]
                for w, a in zip(new, answers):
                    cache[w] = _answer("lstar", self.word(w), a)
            self.calls += len(new)

    def ask_traces(self, new):
        """Trace queries (the rule of the twin): the longest words first, stable; a word that
        is a prefix of a longer one of the batch (or known) is not asked; each trace's answers
        are kept from the longest prefix down to the first one already known, which must
        agree.  The known words are closed under prefixes, so the words to ask are known before
        asking: a DFA trace oracle answers them in one compiled batch."""
        cache = self.cache
        order = sorted(new, key=len, reverse=True)
        lex = sorted(new)
        inner = {x for x, y in zip(lex, lex[1:]) if y[:len(x)] == x}
        traces = [w for w in order if w not in inner]
        fast = self.traces_encoded
        if fast is not None and len(traces) >= 32:
            answers_of = self.mq._prefixes_many_encoded(traces, self.bytes)
        elif fast is not None:
            answers_of = [fast(w) for w in traces]
        else:
            answers_of = None
        word = self.word
        if answers_of is not None:                  # a DFA trace oracle: bools, right lengths
            get = cache.get
            for w, answers in zip(traces, answers_of):
                for i in range(len(w), -1, -1):
                    p = w[:i]
                    b = get(p)
                    if b is None:
                        cache[p] = answers[i]
                    elif b != answers[i]:
                        raise InconsistentOracleError(
                            f"lstar: the membership oracle answered {answers[i]} for the word "
                            f"{word(p)!r}, which it answered {b} before")
                    else:
                        break
            self.calls += len(traces)
            return
        for w in traces:
            answers = list(self.traces(word(w)))
            self.calls += 1
            if len(answers) != len(w) + 1:
                raise InconsistentOracleError(
                    f"lstar: the membership oracle's prefixes() answered {len(answers)} "
                    f"values for the word {word(w)!r}, expected {len(w) + 1} (one per prefix)")
            for i in range(len(w), -1, -1):
                p = w[:i]
                a = _answer("lstar", word(p), answers[i])
                b = cache.get(p)
                if b is None:
                    cache[p] = a
                    continue
                if b != a:
                    raise InconsistentOracleError(
                        f"lstar: the membership oracle answered {a} for the word "
                        f"{word(p)!r}, which it answered {b} before")
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
        cells = [u + e for u in new for e in E]
        self.ask(cells)
        answers = list(map(self.cache.__getitem__, cells))
        nE = len(E)
        rows = self.rows
        for i, u in enumerate(new):
            r = 0
            for j, a in enumerate(answers[i * nE:(i + 1) * nE]):
                if a:
                    r |= 1 << j
            rows[u] = r

    def add_columns(self, suffixes):
        rows = self.rows
        keys = list(rows)
        columns = [[u + e for u in keys] for e in suffixes]
        self.ask([c for cells in columns for c in cells])      # one batch, as the twin
        get = self.cache.__getitem__
        for e, cells in zip(suffixes, columns):
            bit = 1 << len(self.E)
            self.E.append(e)
            for u, a in zip(keys, map(get, cells)):
                if a:
                    rows[u] |= bit
        self.srows = {}
        for s in self.S:
            self.srows.setdefault(rows[s], s)

    def add_to_S(self, words):
        new = [s for s in words if s not in self.Sset]
        self.add_rows(new)
        for s in new:
            self.S.append(s)
            self.Sset.add(s)
            self.srows.setdefault(self.rows[s], s)
        ext = self.ext
        self.add_rows([s + x for s in new for x in ext])
        if len(self.srows) > self.max_states:
            raise _Stop("max_states")

    def close(self):
        k, ext = self.k, self.ext
        pending = list(self.S)
        while pending:
            rows, srows = self.rows, self.srows
            new = []
            vals = set()
            for s in pending:
                for a in range(k):
                    t = s + ext[a]
                    r = rows[t]
                    if r not in srows and r not in vals:
                        vals.add(r)
                        new.append(t)
            if not new:
                return
            self.add_to_S(new)
            pending = new

    def inconsistency(self):
        groups = {}
        for s in self.S:
            groups.setdefault(self.rows[s], []).append(s)
        rows, E = self.rows, self.E
        for g in groups.values():
            s1 = g[0]
            for s2 in g[1:]:
                for a in range(self.k):
                    r1, r2 = rows[s1 + self.ext[a]], rows[s2 + self.ext[a]]
                    if r1 != r2:
                        x = r1 ^ r2
                        j = (x & -x).bit_length() - 1
                        return self.ext[a] + E[j]
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
                raise InconsistentOracleError(f"lstar: the suffix {self.word(e)!r} is already "
                                              "in E")
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
        ext = self.ext
        delta = [[state[rows[s + x]] for x in ext] for s in reps]
        acc = [bool(rows[s] & 1) for s in reps]
        self.reps = reps
        return DFA._trusted(self.letters, delta, acc, 0), reps, delta, acc

    # -- counterexamples -----------------------------------------------------------------------

    def check_word(self, z):
        if isinstance(z, str):
            z = tuple(z)
        try:
            z = tuple(z)
        except TypeError:
            raise InconsistentOracleError(f"lstar: the equivalence oracle returned {z!r}, "
                                          "not a word (a sequence of letters) or None") from None
        pos = {c: i for i, c in enumerate(self.letters)}
        out = []
        for j, c in enumerate(z):
            i = pos.get(c) if _hashable(c) else None
            if i is None:
                raise InconsistentOracleError(
                    f"lstar: the counterexample {z!r} holds the letter {c!r} (position {j}), "
                    f"not in the alphabet {self.letters!r}")
            out.append(i)
        return z, (bytes(out) if self.bytes else tuple(out))

    def label(self, z):
        a = self.one(z)
        if self.recheck:
            b = _answer("lstar", self.word(z), self.mq(self.word(z)))
            self.calls += 1
            self.rechecks += 1
            if b != a:
                raise InconsistentOracleError(
                    f"lstar: the membership oracle answered {b} for the word "
                    f"{self.word(z)!r}, which it answered {a} before")
        return a

    def process_rs(self, z, delta):
        reps = self.reps
        qs = [0]
        for c in z:
            qs.append(delta[qs[-1]][c])
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
                f"lstar: the counterexample {self.word(z)!r} gives the suffix "
                f"{self.word(e)!r}, already in E: the membership answers are inconsistent")
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
            empty = self.empty
            self.add_rows([empty])
            self.srows = {self.rows[empty]: empty}
            self.add_rows(list(self.ext))
            self.stabilize()
            z = None
            while True:
                h, reps, delta, acc = self.hypothesis()
                record_sizes.append((len(self.S), len(self.rows) - len(self.S), len(self.E)))
                if z is None or _run(delta, acc, z) == self.cache[z]:
                    if self.max_rounds is not None and eqs >= self.max_rounds:
                        raise _Stop("max_rounds")
                    eqs += 1
                    zw = self.eq(h)
                    if zw is None:
                        exact = True
                        break
                    zw, z = self.check_word(zw)
                    ces.append(zw)
                    ce_lengths.append(len(z))
                    if self.label(z) == _run(delta, acc, z):
                        raise InconsistentOracleError(
                            f"lstar: the equivalence oracle's counterexample {zw!r} is "
                            f"classified by the hypothesis as the membership oracle does "
                            f"({self.cache[z]})")
                n_before = len(self.srows)
                if self.processing == "rivest-schapire":
                    self.add_columns(self.process_rs(z, delta))
                elif self.processing == "suffixes":
                    have = set(self.E)
                    self.add_columns([z[i:] for i in range(len(z) - 1, -1, -1)
                                      if z[i:] not in have])
                else:
                    self.add_to_S([z[:i] for i in range(1, len(z) + 1)])
                self.stabilize()
                if len({self.rows[s] for s in self.S}) <= n_before:
                    raise InconsistentOracleError(
                        f"lstar: the counterexample {self.word(z)!r} added no state: the "
                        "membership answers are inconsistent")
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
        w = self.word
        return LStarResult(hypothesis=h, exact=exact, stopped=stopped,
                           membership_queries=self.calls,
                           distinct_membership_queries=len(self.cache),
                           rechecks=self.rechecks,
                           trace_queries=self.traces is not None,
                           equivalence_queries=eqs, counterexamples=ces,
                           counterexample_lengths=ce_lengths, table_sizes=record_sizes,
                           suffixes=[w(e) for e in self.E], prefixes=[w(s) for s in self.S],
                           processing=self.processing, bounds=bounds,
                           bounds_held=all(b.held for b in bounds.values()))


def _run(delta, acc, z):
    q = 0
    for c in z:
        q = delta[q][c]
    return acc[q]


def run_dfa_demo(n_states, alphabet_size, seed, processing="rivest-schapire"):
    """Learn a seeded random minimal DFA with L* and an exact equivalence oracle, and say
    what it cost next to the bounds (for the command line: every value is printable).

    Parameters
    ----------
    n_states : int >= 1
    alphabet_size : int in [1, 26]
        The letters are the first ``alphabet_size`` of "abc...z".
    seed : int
    processing : {"rivest-schapire", "angluin", "suffixes"}

    Returns
    -------
    dict
        n_states, alphabet_size, seed, processing, exact, learned_states, equivalent (the
        hypothesis accepts the target's language), membership_queries, membership_bound,
        equivalence_queries, equivalence_bound, counterexample_lengths, bounds_held.

    Examples
    --------
    >>> d = run_dfa_demo(30, 2, seed=0)
    >>> d["learned_states"], d["equivalent"], d["bounds_held"]
    (30, True, True)
    """
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
