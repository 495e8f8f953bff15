"""Benchmarks of the dimension witnesses (issue 40): ``littlestone_dimension(C, witness=True)``
against the dimension alone, the checker, the twin, ``vc_dimension(C, witness=True)`` against
the breadth-first search it replaced, and the drawing.

Classes: the monotone conjunctions of 6 and 8 variables (64 and 256 concepts and points: the
issue's target, under 1 s with the witness), the monotone disjunctions of 8 variables, the 243
conjunctions of 5 variables, and the dictators on {0,1}^8 (8 concepts, 256 points).  Each call
starts from a fresh class object's memo (the functions build their own), min / median of a few
rounds.  Run with::

    python -m pytest bench/test_bench_mistake_trees.py -p no:cacheprovider --benchmark-only
"""

import numpy as np
import pytest

import mbcore
import mbref

CLASSES = {"mc6": ("monotone_conjunctions", (6,), 6),
           "mc8": ("monotone_conjunctions", (8,), 8),
           "md8": ("monotone_disjunctions", (8,), 8),
           "ac5": ("all_conjunctions", (5,), None),
           "dict8": ("dictators", (8, "cube"), 3)}


def _make(mod, key):
    name, args, _ = CLASSES[key]
    return getattr(mod.ConceptClass, name)(*args)


@pytest.mark.benchmark(group="ldim-witness")
@pytest.mark.parametrize("key", ["mc6", "mc8", "md8", "ac5", "dict8"])
@pytest.mark.parametrize("witness", [False, True])
def test_littlestone_dimension(benchmark, key, witness):
    C = _make(mbcore, key)
    got = benchmark.pedantic(lambda: mbcore.littlestone_dimension(C, witness=witness),
                             rounds=5, iterations=1, warmup_rounds=1)
    d = got[0] if witness else got
    if CLASSES[key][2] is not None:
        assert d == CLASSES[key][2]
    if witness:
        assert mbcore.check_mistake_tree(got[1]) == d


@pytest.mark.benchmark(group="ldim-witness")
@pytest.mark.parametrize("key", ["mc6", "mc8"])
def test_check_mistake_tree(benchmark, key):
    C = _make(mbcore, key)
    d, T = mbcore.littlestone_dimension(C, witness=True)
    assert benchmark.pedantic(lambda: mbcore.check_mistake_tree(T), rounds=5,
                              iterations=1) == d


@pytest.mark.benchmark(group="ldim-witness-twin")
@pytest.mark.parametrize("key", ["mc6", "mc8"])
def test_twin_littlestone_dimension_witness(benchmark, key):
    C = _make(mbref, key)
    d, T = benchmark.pedantic(lambda: mbref.littlestone_dimension(C, witness=True), rounds=3,
                              iterations=1)
    assert d == CLASSES[key][2] and mbref.check_mistake_tree(T) == d


def _vc_breadth_first(C):
    """vc_dimension as it was before issue 40: every shattered set of each size, level by
    level, one NumPy call per candidate set."""
    M = C.matrix().astype(np.int64)
    best = ()
    level = [()]
    while level:
        nxt = []
        for S in level:
            for j in range(S[-1] + 1 if S else 0, C.n_points):
                T = S + (j,)
                codes = M[:, list(T)] @ (1 << np.arange(len(T), dtype=np.int64))
                if np.unique(codes).shape[0] == 2 ** len(T):
                    nxt.append(T)
        if nxt:
            best = nxt[0]
        level = nxt
    return len(best), best


@pytest.mark.benchmark(group="vc-witness")
@pytest.mark.parametrize("key", ["mc6", "mc8", "md8", "ac5", "dict8"])
@pytest.mark.parametrize("impl", ["mbcore", "mbref"])
def test_vc_dimension_witness(benchmark, key, impl):
    mod = mbcore if impl == "mbcore" else mbref
    C = _make(mod, key)
    d, S = benchmark.pedantic(lambda: mod.vc_dimension(C, witness=True), rounds=3, iterations=1)
    assert len(mod.shattering_concepts(C, S)) == 2 ** d


@pytest.mark.benchmark(group="vc-witness")
@pytest.mark.parametrize("args", [("monotone_conjunctions", 5), ("monotone_conjunctions", 6),
                                  ("dictators", 6, "cube")])
def test_vc_dimension_before_issue_40(benchmark, args):
    C = getattr(mbcore.ConceptClass, args[0])(*args[1:])
    got = benchmark.pedantic(lambda: _vc_breadth_first(C), rounds=1, iterations=1)
    assert got == mbcore.vc_dimension(C, witness=True)


@pytest.mark.benchmark(group="tree-plot")
@pytest.mark.parametrize("n", [4, 5])
def test_plot(benchmark, n):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    d, T = mbcore.littlestone_dimension(mbcore.ConceptClass.monotone_conjunctions(n),
                                        witness=True)

    def draw():
        ax = T.plot()
        ax.figure.canvas.draw()
        plt.close(ax.figure)
    benchmark.pedantic(draw, rounds=3, iterations=1)
