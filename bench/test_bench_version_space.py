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
def test_halving_popcount_ab(benchmark, halving_data):
    """The portable popcount loops against the CPU's popcnt instruction
    (``bitset.popcount_impl``, chosen at run time), alternating in one run, n_jobs=1, on two
    passes: the learning pass of the stream (its version space is down to one concept after
    19 updates, so set-up and the first rows dominate) and a popcount-bound pass, ``predict``
    of the 2,000 rows with half the class alive (one row learned: 2,041 of 4,096 words per
    row).  The predictions are the same."""
    import time
    from mbcore._kernels import bitset
    C, pts, y = halving_data
    if not bitset.popcount_dispatches():
        pytest.skip("this build has one popcount (not x86 with GCC or Clang)")
    times = {(p, k): [] for p in ("learn", "predict") for k in ("generic", "popcnt")}
    preds = {}
    half = mbcore.Halving(C, n_jobs=1).partial_fit(pts[:1], y[:1], classes=[0, 1])

    def go():
        try:
            for _ in range(7):
                for kind in ("generic", "popcnt"):
                    bitset.popcount_impl(kind)
                    h = mbcore.Halving(C, n_jobs=1)
                    t0 = time.perf_counter()
                    r = mbcore.run_online(h, pts, y, classes=[0, 1])
                    times[("learn", kind)].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    p = half.predict(pts)
                    times[("predict", kind)].append(time.perf_counter() - t0)
                    preds[kind] = r.predictions.tobytes() + p.tobytes()
        finally:
            bitset.popcount_impl("best")

    benchmark.pedantic(go, rounds=1, iterations=1)
    for p in ("learn", "predict"):
        g, q = min(times[(p, "generic")]), min(times[(p, "popcnt")])
        benchmark.extra_info[p] = {"generic_ms": g * 1e3, "popcnt_ms": q * 1e3, "ratio": g / q}
        print(f"\nHalving {p} pass: generic {g * 1e3:.2f} ms, popcnt {q * 1e3:.2f} ms: "
              f"{g / q:.2f}x")
    assert preds["generic"] == preds["popcnt"]


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


# -- SOA at teaching scale (issue 27) ---------------------------------------------------------
# Monotone conjunctions of n variables (2**n concepts, 2**n points), a stream of rows drawn
# uniformly, labelled by a random concept; one SOA(C).partial_fit pass on a fresh learner (a
# fresh memo), and littlestone_dimension(C).  The twin (the plain memoised recursion) at the
# sizes it finishes.  Target: n = 8, 300 rows, <= 1 s.

def _soa_stream(mod, n, rows, seed=7):
    C = mod.ConceptClass.monotone_conjunctions(n)
    rng = np.random.default_rng(seed)
    labels = C.labels(int(rng.integers(0, 2 ** n)))
    idx = rng.integers(0, 2 ** n, size=rows).tolist()
    return C, idx, [labels[j] for j in idx]


@pytest.mark.parametrize("n, rows", [(5, 50), (6, 50), (7, 300), (8, 300)])
def test_soa_teaching_scale(benchmark, n, rows):
    C, idx, y = _soa_stream(mbcore, n, rows)
    out = {}

    def go():
        soa = mbcore.SOA(C).partial_fit(np.array(idx), np.array(y), classes=[0, 1])
        out["mistakes"] = soa.mistakes_

    benchmark.pedantic(go, rounds=3, iterations=1)
    benchmark.extra_info.update(out)
    assert out["mistakes"] <= n


@pytest.mark.parametrize("n", [5, 6, 8])
def test_littlestone_dimension_teaching_scale(benchmark, n):
    C = mbcore.ConceptClass.monotone_conjunctions(n)
    got = benchmark.pedantic(lambda: mbcore.littlestone_dimension(C), rounds=3, iterations=1)
    assert got == n


@pytest.mark.parametrize("n, rows", [(4, 50), (5, 50)])
def test_soa_teaching_scale_twin(benchmark, n, rows):
    C, idx, y = _soa_stream(mbref, n, rows)
    benchmark.pedantic(lambda: mbref.SOA(C).partial_fit(idx, y, classes=[0, 1]), rounds=1,
                       iterations=1)
