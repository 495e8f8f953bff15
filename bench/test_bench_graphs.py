"""Benchmarks of learning a hidden graph with edge-detecting queries (issue 26):
``mbcore.queries.learn_graph`` on seeded random graphs with m = 100 edges on n = 10^2, 10^3 and
10^4 vertices, both methods (adaptive, five_round).

Three timings per (method, n):

* ``total``: learn_graph with an :class:`EdgeDetectingOracle` (the oracle's time included);
* ``learner``: learn_graph with an oracle that replays the recorded answers in order (O(1) a
  query): the learner's own time;
* ``oracle``: the recorded queries answered by a fresh EdgeDetectingOracle, nothing else.

"rows" in the ratio table is the number of queries of the run.
"""

import random

import pytest

from mbcore.queries import EdgeDetectingOracle, learn_graph

M, SEED = 100, 20261128
NS = (100, 1000, 10_000)
METHODS = ("adaptive", "five_round")


def _graph(n):
    rnd = random.Random(SEED + n)
    E = set()
    while len(E) < M:
        u, v = rnd.sample(range(n), 2)
        E.add((min(u, v), max(u, v)))
    return E


class _Recorder:
    def __init__(self, oracle):
        self.oracle = oracle
        self.queries = []
        self.answers = []

    def __call__(self, S):
        a = self.oracle(S)
        self.queries.append(S.copy())
        self.answers.append(a)
        return a


class _Replay:
    def __init__(self, answers):
        self.answers = answers
        self.i = 0

    def __call__(self, S):
        a = self.answers[self.i]
        self.i += 1
        return a


@pytest.fixture(scope="session")
def graph_runs():
    """(n, method) -> (edges, recorded queries, recorded answers), one run each."""
    out = {}
    for n in NS:
        E = _graph(n)
        for method in METHODS:
            rec = _Recorder(EdgeDetectingOracle(E, n))
            res = learn_graph(n, rec, method=method, seed=0)
            assert res.edges == E
            out[n, method] = (E, rec.queries, rec.answers)
    return out


def _rounds(n, method):
    return 3 if (n == 10_000 and method == "five_round") else 5


@pytest.mark.benchmark(group="graphs")
@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("method", METHODS)
def test_learn_graph_total(benchmark, record, graph_runs, method, n):
    E, qs, _ = graph_runs[n, method]
    record(f"graph.{method}.n{n}.total", len(qs))

    def setup():
        return (EdgeDetectingOracle(E, n),), {}
    res = benchmark.pedantic(lambda O: learn_graph(n, O, method=method, seed=0), setup=setup,
                             rounds=_rounds(n, method), warmup_rounds=1)
    assert res.edges == E and res.queries == len(qs)


@pytest.mark.benchmark(group="graphs")
@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("method", METHODS)
def test_learn_graph_learner_only(benchmark, record, graph_runs, method, n):
    E, qs, answers = graph_runs[n, method]
    record(f"graph.{method}.n{n}.learner", len(qs))

    def setup():
        return (_Replay(answers),), {}
    res = benchmark.pedantic(lambda O: learn_graph(n, O, method=method, seed=0), setup=setup,
                             rounds=_rounds(n, method), warmup_rounds=1)
    assert res.edges == E


@pytest.mark.benchmark(group="graphs")
@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("method", METHODS)
def test_oracle_only(benchmark, record, graph_runs, method, n):
    E, qs, answers = graph_runs[n, method]
    record(f"graph.{method}.n{n}.oracle", len(qs))

    def answer_all(O):
        return [O(S) for S in qs]

    def setup():
        return (EdgeDetectingOracle(E, n),), {}
    out = benchmark.pedantic(answer_all, setup=setup, rounds=5, warmup_rounds=1)
    assert out == answers
