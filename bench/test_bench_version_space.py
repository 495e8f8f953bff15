"""Benchmarks of the Halving algorithm (issue: finite classes and Boolean learners).

|C| = 2**18 random concepts on 1,024 points (32 MB of bitsets), a stream of 2,000 examples
labelled by one of the concepts: one ``Halving(C).partial_fit`` pass, a NumPy implementation
with ``np.bitwise_count`` on the packed words (the same rule, whole words every example), and the
twin (Python ints as bitsets).  "Concept evaluations" counts |C| per example (what a plain
table scan would evaluate).
"""

import numpy as np
import pytest

import mbcore
import mbref

M, N, ROWS, SEED = 2 ** 18, 1024, 2000, 20261122


@pytest.fixture(scope="session")
def halving_data():
    rng = np.random.default_rng(SEED)
    words = rng.integers(0, 2 ** 63, size=(N, M // 64), dtype=np.uint64) ^ \
        (rng.integers(0, 2, size=(N, M // 64), dtype=np.uint64) << np.uint64(63))
    C = mbcore.ConceptClass(np.ascontiguousarray(words), M, None, "random")
    target = int(rng.integers(0, M))
    pts = rng.integers(0, N, ROWS)
    w, b = divmod(target, 64)
    y = ((words[pts, w] >> np.uint64(b)) & np.uint64(1)).astype(np.int64)
    return C, pts, y


def _numpy_halving(cols, pts, y):
    """Halving with np.bitwise_count over every word of the version space."""
    alive = np.full(cols.shape[1], np.uint64(0xFFFFFFFFFFFFFFFF))
    total = cols.shape[1] * 64
    mistakes = 0
    for j, t in zip(pts.tolist(), y.tolist()):
        col = cols[j]
        q1 = int(np.bitwise_count(alive & col).sum())
        pred = 1 if 2 * q1 >= total else 0
        mistakes += pred != t
        alive &= col if t else ~col
        total = q1 if t else total - q1
    return mistakes


@pytest.mark.benchmark(group="halving")
def test_halving_pass(benchmark, record, halving_data):
    C, pts, y = halving_data
    record("halving.mbcore", ROWS)

    def setup():
        return (mbcore.Halving(C),), {}
    benchmark.pedantic(lambda h: h.partial_fit(pts, y, classes=[0, 1]), setup=setup,
                       rounds=20, warmup_rounds=2)


@pytest.mark.benchmark(group="halving")
def test_halving_numpy(benchmark, record, halving_data):
    C, pts, y = halving_data
    record("halving.numpy_bitwise_count", ROWS)
    benchmark.pedantic(_numpy_halving, args=(C._cols, pts, y), rounds=5, warmup_rounds=1)


@pytest.mark.benchmark(group="halving")
def test_halving_twin(benchmark, record, halving_data):
    C, pts, y = halving_data
    record("halving.twin", ROWS)
    Cref = mbref.ConceptClass.from_matrix(C.matrix()) if hasattr(mbref, "ConceptClass") else None

    def setup():
        return (mbref.Halving(Cref),), {}
    benchmark.pedantic(lambda h: h.partial_fit(pts.tolist(), y.tolist(), classes=[0, 1]),
                       setup=setup, rounds=3, warmup_rounds=1)
