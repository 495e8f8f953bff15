"""Benchmarks of Angluin's L* (issue 26): mbcore.queries.lstar vs its twin vs AALpy.

Targets: seeded random minimal DFAs (``DFA.random(n, letters, seed=SEED, minimal=True)``) with
n = 10, 50, 100, 500 states over 2 and 4 letters.  Every learner gets the same target, the
same membership answers and an exact equivalence oracle that returns the shortest
counterexample, least in alphabet order (``DFA.equivalent``), so that both learners see the
same counterexamples whenever their hypotheses agree:

* mbcore: ``lstar(..., counterexamples="rivest-schapire")`` with ``DFAMembershipOracle`` (each
  fill of the table is one compiled batch) and ``DFAEquivalenceOracle``;
* mbcore with trace queries: the same with ``DFATraceOracle`` (one call answers every prefix of
  a word: the kind of query AALpy counts);
* twin: ``mbref.queries.lstar``, the same in pure Python;
* AALpy (skipped when ``aalpy`` is not installed): ``run_Lstar(alphabet, sul, eq_oracle,
  automaton_type="dfa", cex_processing="rs")`` with its defaults otherwise (closing strategy
  "shortest_first", a single RS suffix per counterexample, its query cache on), the target
  as an ``AutomatonSUL`` over an AALpy ``Dfa``, and an ``Oracle`` subclass whose ``find_cex``
  converts AALpy's hypothesis to an mbcore DFA and calls ``target.equivalent`` (the
  conversion, O(n k), is in AALpy's time).

Each timed call is one whole run, equivalence queries included.  ``extra_info`` keeps the
membership queries: mbcore's and the twin's ``membership_queries`` (distinct words asked), and
AALpy's ``queries_learning`` (the queries that reached the SUL: one AALpy query returns the
output after every prefix of its word, its cache then answers every prefix of a word already
asked, and the empty word is not counted) and ``words_answered`` (the words whose answers its
cache holds at the end, the empty word included: what the same information costs in queries of
one word each, mbcore's unit), plus the equivalence queries.

Run::

    PYTHONPATH=. python -m pytest bench/test_bench_lstar.py --benchmark-only -q -p no:cacheprovider
"""

import importlib.util

import pytest

import mbref.queries as R
from mbcore.queries import (DFA, DFAEquivalenceOracle, DFAMembershipOracle, DFATraceOracle,
                            lstar)

SEED = 26
SIZES = [(10, 2), (10, 4), (50, 2), (50, 4), (100, 2), (100, 4), (500, 2), (500, 4)]
HAVE_AALPY = importlib.util.find_spec("aalpy") is not None


@pytest.fixture(scope="session")
def targets():
    out = {}
    for n, k in SIZES:
        letters = "abcd"[:k]
        out[n, k] = (DFA.random(n, letters, seed=SEED, minimal=True),
                     R.DFA.random(n, letters, seed=SEED, minimal=True))
    return out


def _rounds(n):
    return 5 if n >= 500 else 20


@pytest.mark.parametrize("n,k", SIZES)
@pytest.mark.benchmark(group="lstar")
def test_lstar_mbcore(benchmark, record, targets, n, k):
    target = targets[n, k][0]
    record(f"lstar.mbcore.{n}x{k}", 1)

    def run():
        return lstar(target.alphabet, DFAMembershipOracle(target), DFAEquivalenceOracle(target))

    res = benchmark.pedantic(run, rounds=_rounds(n), warmup_rounds=1)
    assert res.exact and res.hypothesis.n_states == n and res.bounds_held
    benchmark.extra_info["membership_queries"] = res.membership_queries
    benchmark.extra_info["equivalence_queries"] = res.equivalence_queries


@pytest.mark.parametrize("n,k", SIZES)
@pytest.mark.benchmark(group="lstar")
def test_lstar_mbcore_traces(benchmark, record, targets, n, k):
    """The same run with trace queries (DFATraceOracle: one call answers every prefix of a
    word, the kind of query AALpy counts)."""
    target = targets[n, k][0]
    record(f"lstar.mbcore_traces.{n}x{k}", 1)

    def run():
        return lstar(target.alphabet, DFATraceOracle(target), DFAEquivalenceOracle(target))

    res = benchmark.pedantic(run, rounds=_rounds(n), warmup_rounds=1)
    assert res.exact and res.hypothesis.n_states == n and res.bounds_held
    benchmark.extra_info["membership_queries"] = res.membership_queries
    benchmark.extra_info["equivalence_queries"] = res.equivalence_queries


@pytest.mark.parametrize("n,k", SIZES)
@pytest.mark.benchmark(group="lstar")
def test_lstar_twin(benchmark, record, targets, n, k):
    target = targets[n, k][1]
    record(f"lstar.twin.{n}x{k}", 1)

    def run():
        return R.lstar(target.alphabet, R.DFAMembershipOracle(target),
                       R.DFAEquivalenceOracle(target))

    res = benchmark.pedantic(run, rounds=max(3, _rounds(n) // 2), warmup_rounds=0)
    assert res.exact and res.hypothesis.n_states == n
    benchmark.extra_info["membership_queries"] = res.membership_queries
    benchmark.extra_info["equivalence_queries"] = res.equivalence_queries


def _aalpy_run(target):
    from aalpy.automata import Dfa, DfaState
    from aalpy.base import Oracle
    from aalpy.learning_algs import run_Lstar
    from aalpy.SULs import AutomatonSUL

    letters = list(target.alphabet)
    delta = target.delta.tolist()
    states = [DfaState(f"q{i}", bool(a)) for i, a in enumerate(target.accepting.tolist())]
    for i, s in enumerate(states):
        for j, c in enumerate(letters):
            s.transitions[c] = states[delta[i][j]]
    sul = AutomatonSUL(Dfa(states[target.start], states))

    class Exact(Oracle):
        def find_cex(self, hypothesis):
            self.num_queries += 1
            idx = {id(s): i for i, s in enumerate(hypothesis.states)}
            d = [[idx[id(s.transitions[c])] for c in letters] for s in hypothesis.states]
            acc = [bool(s.is_accepting) for s in hypothesis.states]
            h = DFA(letters, d, acc, idx[id(hypothesis.initial_state)])
            return target.equivalent(h)

    eq = Exact(letters, sul)
    h, info = run_Lstar(letters, sul, eq, automaton_type="dfa", cex_processing="rs",
                        return_data=True, print_level=0)
    # the words whose answers AALpy's cache holds (every prefix of every trace asked, and the
    # empty word): the number of word queries the same information costs a word -> bool oracle
    stack, nodes = [eq.sul.cache.root_node], 0
    while stack:
        node = stack.pop()
        nodes += 1
        stack.extend(node.children.values())
    info["words_answered"] = nodes
    return h, info


@pytest.mark.skipif(not HAVE_AALPY, reason="aalpy is not installed (pip install aalpy)")
@pytest.mark.parametrize("n,k", SIZES)
@pytest.mark.benchmark(group="lstar")
def test_lstar_aalpy(benchmark, record, targets, n, k):
    target = targets[n, k][0]
    record(f"lstar.aalpy.{n}x{k}", 1)
    h, info = benchmark.pedantic(_aalpy_run, args=(target,), rounds=max(3, _rounds(n) // 4),
                                 warmup_rounds=0)
    assert len(h.states) == n
    benchmark.extra_info["membership_queries"] = info["queries_learning"]
    benchmark.extra_info["words_answered"] = info["words_answered"]
    benchmark.extra_info["equivalence_queries"] = info["queries_eq_oracle"]
