"""The limits of PairSpecialists, and the keyword-only ``awake`` of Specialists.

1. ``max_specialists``: before a batch creates any specialist, PairSpecialists counts how many
   it could hold afterwards, Σ_{a<b} min(h_ab + min(u_a u_b, m), S_a S_b) (m rows, u_a distinct
   values of attribute a in the batch, S_a values of a known once the batch is read, h_ab the
   specialists held for the pair (a, b)), and refuses the batch past the limit: a ValueError
   naming the class, the parameter, the count and the limit, the same in the twin, the learner
   and the input unchanged.  The count is recomputed here from the stream (sets of the pairs of
   values seen), never read from the code under test; it is checked to be at least the number
   the learner reaches, and to be that number where the docstring says it is exact.
2. Wide inputs: a zero-stride view of 10**6 columns (which once grew past 20 GB) and one of
   2048 columns whose pairs of values would be 10**7 specialists are refused at once, with a
   small peak of memory (tracemalloc); 2049 attributes (a pair index past 21 bits: once a
   crash) are refused; 2048 pass that check.
3. A batch of many rows runs a block of rows at a time: the same records, state and
   predictions as one block and as the twin.
4. Persistence: a file of 0.1.0 (no max_specialists) loads with the default; a file claiming
   more than 2048 attributes is refused.
5. ``Specialists``: ``classes`` is the third positional argument of partial_fit and fit (as for
   every learner), ``awake`` keyword-only everywhere; a mask passed where classes goes is
   refused with a message saying so (both twins).
"""

import copy
import inspect
import io
import itertools
import os
import pickle
import tracemalloc

import numpy as np
import pytest

import mbcore
import mbref

MODS = (mbcore, mbref)
mod_param = pytest.mark.parametrize("mod", MODS, ids=["mbcore", "mbref"])
DEFAULT = 10 ** 7


def frozen(clf):
    """The learner's whole state, as bytes (an unfitted learner: its parameters only)."""
    return pickle.dumps(clf)


def same_error(call):
    """call(mod) raises on both twins: the same type and message; returns the message."""
    out = []
    for mod in MODS:
        with pytest.raises((ValueError, TypeError)) as exc:
            call(mod)
        out.append((type(exc.value), str(exc.value)))
    assert out[0] == out[1], out
    return out[0][1]


def too_many(total, limit):
    return (f"PairSpecialists: X could bring the number of specialists to {total} (those held "
            f"and the pairs of values X may add, counted before creating any), more than the "
            f"parameter max_specialists={limit}; raise max_specialists or pass fewer rows or "
            "attributes")


class Count:
    """The specialists of a stream, recomputed from its rows: the set of (a, b, x_a, x_b)."""

    def __init__(self):
        self.keys = set()

    def bound(self, rows):
        """The documented count for the next batch ``rows``."""
        m, d = len(rows), len(rows[0])
        u = [len({r[a] for r in rows}) for a in range(d)]
        S = [len({r[a] for r in rows} | {k[2] for k in self.keys if k[0] == a} |
                 {k[3] for k in self.keys if k[1] == a}) for a in range(d)]
        total = 0
        for a, b in itertools.combinations(range(d), 2):
            h = sum(1 for k in self.keys if k[:2] == (a, b))
            total += min(h + min(u[a] * u[b], m), S[a] * S[b])
        return total

    def add(self, rows):
        for r in rows:
            for a, b in itertools.combinations(range(len(r)), 2):
                self.keys.add((a, b, r[a], r[b]))
        return len(self.keys)


def stream(seed, n=60, d=4, values=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (n, d))
    y = (X[:, 0] == X[:, 1]).astype(int)
    return X, y


# ------------------------------------------------------------------------------------------------
# 1. max_specialists
# ------------------------------------------------------------------------------------------------

@mod_param
def test_parameter_default_and_get_params(mod):
    ps = mod.PairSpecialists()
    assert ps.get_params()["max_specialists"] == DEFAULT
    assert ps.set_params(max_specialists=50).get_params()["max_specialists"] == 50
    assert mod.PairSpecialists(max_specialists=7).max_specialists == 7
    sig = inspect.signature(mod.PairSpecialists.__init__)
    assert list(sig.parameters)[-1] == "max_specialists"        # the old order kept
    assert sig.parameters["max_specialists"].default == DEFAULT
    if mod is mbcore:
        assert repr(mbcore.PairSpecialists()) == "PairSpecialists()"
        assert "max_specialists" in mbcore.PairSpecialists._NEW_PARAMS


@pytest.mark.parametrize("bad", [0, -1, 1.5, 1e7, True, "10", None, [10]])
def test_bad_max_specialists(bad):
    X, y = stream(1)
    msg = same_error(lambda mod: mod.PairSpecialists(max_specialists=bad).partial_fit(X, y))
    assert msg == (f"PairSpecialists: parameter max_specialists must be an integer >= 1, got "
                   f"{bad!r}")


@mod_param
def test_first_batch_count_is_exact_on_monk(mod):
    """MONK-1's test set is its whole domain: every pair of values occurs, 119 specialists,
    and the count of a first batch is exact; a second pass holds them all (the S_a S_b term),
    so its count is 119 again."""
    from mbcore.datasets import load_monks
    X, y = load_monks(1, split="test")
    ps = mod.PairSpecialists(max_specialists=119)
    mod.run_online(ps, X, y)
    mod.run_online(ps, X, y)
    assert ps.n_specialists_ == 119
    with pytest.raises(ValueError) as exc:
        mod.PairSpecialists(max_specialists=118).fit(X, y)
    assert str(exc.value) == too_many(119, 118)


@pytest.mark.parametrize("seed", range(6))
def test_count_against_the_stream(seed):
    """Batch after batch (sizes 1 to 20, values from few to many): the refusal names the
    recomputed count exactly when the limit is one below it, both twins, nothing changed;
    at the limit the batch is taken, and the learner then holds no more than the count."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 6))
    learners = [mod.PairSpecialists(history=3) for mod in MODS]
    ref = Count()
    for t in range(8):
        m = int(rng.integers(1, 21))
        X = rng.integers(0, int(rng.integers(1, 8)), (m, d))
        y = rng.integers(0, 2, m)
        rows = X.tolist()
        total = ref.bound(rows)
        X0 = X.copy()
        for ps in learners:
            if total > 1:
                ps.set_params(max_specialists=total - 1)
                before = frozen(ps)
                with pytest.raises(ValueError) as exc:
                    ps.partial_fit(X, y, classes=[0, 1])
                assert str(exc.value) == too_many(total, total - 1)
                assert frozen(ps) == before
                assert np.array_equal(X, X0)
            ps.set_params(max_specialists=total)
            ps.partial_fit(X, y, classes=[0, 1])
        n = ref.add(rows)
        assert [ps.n_specialists_ for ps in learners] == [n, n]
        assert n <= total


@mod_param
def test_refusal_is_all_or_nothing_in_every_call(mod):
    """partial_fit, fit and run_online refuse a batch past the limit and leave the learner as
    it was: fitted (a fit that fails keeps the old state) or not fitted at all."""
    X, y = stream(2, n=30)
    big = np.arange(400).reshape(100, 4) + 10        # every value new: 6 x 100 could be new
    yb = np.arange(100) % 2
    fresh = mod.PairSpecialists(max_specialists=300)
    for held, call in ((True, lambda c: c.partial_fit(big, yb)), (False, lambda c: c.fit(big, yb)),
                       (True, lambda c: mod.run_online(c, big, yb))):
        before = frozen(fresh)
        with pytest.raises(ValueError, match="max_specialists=300"):
            call(fresh)
        assert frozen(fresh) == before
        assert not hasattr(fresh, "classes_") or fresh.__dict__.get("classes_") is None
        ps = mod.PairSpecialists(max_specialists=300).partial_fit(X, y)
        before, n = frozen(ps), ps.n_specialists_
        with pytest.raises(ValueError) as exc:
            call(ps)
        assert str(exc.value) == too_many(n * held + 600, 300)      # (fit starts again)
        assert frozen(ps) == before
        assert ps.partial_fit(X, y).n_specialists_ == n          # and it goes on


# ------------------------------------------------------------------------------------------------
# 2. Wide inputs
# ------------------------------------------------------------------------------------------------

def peak_of(call):
    """(the exception raised by call(), the peak of memory traced during it, in bytes)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        with pytest.raises(ValueError) as exc:
            call()
        return exc.value, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_a_million_zero_stride_columns_are_refused_at_once():
    """The input that once grew past 20 GB: 3 rows of 10**6 columns, 24 bytes of data.  Every
    call refuses it with the width limit (no max_specialists could make its 5 * 10**11 pairs of
    attributes fit), with a peak of memory far below one copy of its 3 * 10**6 values."""
    V = np.broadcast_to(np.arange(3)[:, None], (3, 10 ** 6))
    assert V.strides[1] == 0
    msg = ("PairSpecialists: X has 1000000 attributes; at most 2048 (the pairs of attributes "
           "are numbered in 21 bits)")
    X, y = stream(3, n=10)
    fitted = mbcore.PairSpecialists().partial_fit(X, y)
    before = frozen(fitted)
    for call in (lambda: mbcore.PairSpecialists().partial_fit(V, [0, 1, 0]),
                 lambda: mbcore.PairSpecialists().fit(V, [0, 1, 0]),
                 lambda: mbcore.run_online(mbcore.PairSpecialists(), V, [0, 1, 0]),
                 lambda: fitted.partial_fit(V, [0, 1, 0]),
                 lambda: fitted.fit(V, [0, 1, 0]),
                 lambda: fitted.predict(V)):
        exc, peak = peak_of(call)
        assert str(exc) == msg
        assert peak < 4 * 10 ** 6, peak
    assert frozen(fitted) == before


def test_wide_view_past_the_default_limit_is_refused_at_once():
    """5 rows of 2048 zero-stride columns: 5 * C(2048, 2) = 10,480,640 specialists (each row
    a new value in every column), past the default 10**7, which would have held 1.2 GB or
    more.  Refused before any is created: the peak of memory stays near the input's codes."""
    V = np.broadcast_to(np.arange(5)[:, None], (5, 2048))
    exc, peak = peak_of(lambda: mbcore.PairSpecialists().fit(V, [0, 1, 0, 1, 0]))
    assert str(exc) == too_many(5 * (2048 * 2047 // 2), DEFAULT)
    assert peak < 4 * 10 ** 6, peak
    # the twin counts the same
    assert same_error(lambda mod: mod.PairSpecialists().fit(V, [0, 1, 0, 1, 0])) == str(exc)


def test_2049_attributes_are_refused():
    """C(2049, 2) > 2**21: the pair index would overflow the specialist's key (a crash before
    the check); both twins refuse it, fitted or not, and 2048 attributes pass the check."""
    W = np.zeros((1, 2049), dtype=np.int64)
    msg = same_error(lambda mod: mod.PairSpecialists().partial_fit(W, [0], classes=[0, 1]))
    assert msg == ("PairSpecialists: X has 2049 attributes; at most 2048 (the pairs of "
                   "attributes are numbered in 21 bits)")
    X, y = stream(4, n=10)
    for mod in MODS:
        ps = mod.PairSpecialists().partial_fit(X, y)
        before = frozen(ps)
        for call in (lambda: ps.partial_fit(W, [0]), lambda: ps.predict(W),
                     lambda: ps.score(W, [0])):
            with pytest.raises(ValueError) as exc:
                call()
            assert str(exc.value) == msg
        assert frozen(ps) == before
    # 2048: past the width check, refused by the count (one row: C(2048, 2) new pairs)
    msg = same_error(lambda mod: mod.PairSpecialists(max_specialists=1).partial_fit(
        W[:, :2048], [0], classes=[0, 1]))
    assert msg == too_many(2048 * 2047 // 2, 1)


# ------------------------------------------------------------------------------------------------
# 3. Blocks of rows
# ------------------------------------------------------------------------------------------------

def run_record(run):
    return (list(np.asarray(run.predictions).tolist()), list(np.asarray(run.errors).tolist()),
            list(np.asarray(run.updated).tolist()))


def test_blocks_of_rows_change_nothing(monkeypatch):
    """With blocks of one or two rows (a tiny _BLOCK_ENTRIES), the online record, the
    specialists, their weights and the predictions are those of one block and of the twin."""
    X, y = stream(5, n=150, d=5, values=4)
    T, _ = stream(6, n=40, d=5, values=5)             # with values never seen
    whole = mbcore.PairSpecialists(history=2)
    twin = mbref.PairSpecialists(history=2)
    rw = run_record(mbcore.run_online(whole, X, y))
    rt = run_record(mbref.run_online(twin, X, y))
    monkeypatch.setattr(mbcore.PairSpecialists, "_BLOCK_ENTRIES", 15)
    small = mbcore.PairSpecialists(history=2)
    assert len(small._blocks(X)) == 150 // (15 // 10)
    rs = run_record(mbcore.run_online(small, X, y))
    assert rs == rw
    assert [int(p) for p in rw[0]] == [int(p) for p in rt[0]] and rw[1:] == rt[1:]
    assert small.specialists_ == whole.specialists_ == twin.specialists_
    assert np.array_equal(small.log2_weights_, whole.log2_weights_)
    assert small.predict(T).tolist() == whole.predict(T).tolist() == twin.predict(T)
    assert small.predict_covered(T)[1].tolist() == whole.predict_covered(T)[1].tolist()


def test_memory_of_a_long_batch_is_that_of_a_block(monkeypatch):
    """4000 rows of 30 binary attributes: 1.74 * 10**6 (row, pair) entries, listed at once a
    peak of 57 MB (int64 keys, codes, ids); by blocks of 2**16 entries 5 MB."""
    monkeypatch.setattr(mbcore.PairSpecialists, "_BLOCK_ENTRIES", 1 << 16)
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (4000, 30))
    y = (X[:, 0] == X[:, 1]).astype(int)
    tracemalloc.start()
    try:
        ps = mbcore.PairSpecialists().partial_fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ps.n_specialists_ == 4 * (30 * 29 // 2)
    assert peak < 12 * 10 ** 6, peak


# ------------------------------------------------------------------------------------------------
# 4. Files saved before max_specialists
# ------------------------------------------------------------------------------------------------

def test_a_file_of_0_1_0_loads_with_the_default():
    from conftest import FILES_0_1_0
    path = os.path.join(FILES_0_1_0, "PairSpecialists.npz")
    ps = mbcore.load(path)
    assert ps.get_params()["max_specialists"] == DEFAULT
    assert ps.n_specialists_ > 0


def test_a_file_claiming_too_many_attributes_is_refused():
    """A crafted file (digests recomputed) with 10**5 attributes: refused by the state check
    before anything lists their 5 * 10**9 pairs."""
    from mbcore.persistence import FormatError
    from _persistence_cases import read_file, write_file
    X, y = stream(8, n=10, d=3)
    buf = io.BytesIO()
    mbcore.PairSpecialists().partial_fit(X, y).save(buf)
    meta, arrays = read_file(buf.getvalue())
    st = meta["learner"]["state"]
    st["n_attributes_"] = st["n_features_in_"] = 10 ** 5
    st["_cat_values"] = st["_cat_values"] + [[0]] * (10 ** 5 - 3)
    with pytest.raises(FormatError,
                       match="PairSpecialists: n_attributes_ = 100000, more than 2048"):
        mbcore.load(io.BytesIO(write_file(meta, arrays)))


# ------------------------------------------------------------------------------------------------
# 5. Specialists: classes third, awake keyword-only
# ------------------------------------------------------------------------------------------------

P = [[0, 1, 2], [1, 1, 0], [2, 0, 0], [0, 2, 1]]
Y = [0, 1, 2, 0]
W = [[True, True, False], [False, True, True], [True, True, True], [True, False, True]]


@mod_param
def test_awake_is_keyword_only(mod):
    for name in ("partial_fit", "fit", "predict", "predict_covered", "score"):
        params = inspect.signature(getattr(mod.Specialists, name)).parameters
        assert params["awake"].kind is inspect.Parameter.KEYWORD_ONLY, name
    for name in ("partial_fit", "fit"):
        params = list(inspect.signature(getattr(mod.Specialists, name)).parameters.values())
        assert [p.name for p in params[:4]] == ["self", "P", "y", "classes"], name
        assert params[3].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    a = mod.Specialists().partial_fit(P, Y, [0, 1, 2, 3], awake=W)
    b = mod.Specialists().partial_fit(P, Y, classes=[0, 1, 2, 3], awake=W)
    c = mod.Specialists().fit(P, Y, [0, 1, 2, 3], awake=W)
    assert list(a.classes_) == list(b.classes_) == list(c.classes_) == [0, 1, 2, 3]
    assert list(a.predict(P, awake=W)) == list(b.predict(P, awake=W)) == \
        list(c.predict(P, awake=W))
    assert a.score(P, Y, awake=W) == b.score(P, Y, awake=W)
    with pytest.raises(TypeError):
        a.predict(P, W)
    with pytest.raises(TypeError):
        a.score(P, Y, W)


@pytest.mark.parametrize("mask", [W, np.array(W), [tuple(r) for r in W]],
                         ids=["lists", "array", "tuples"])
@pytest.mark.parametrize("method", ["partial_fit", "fit"])
def test_a_mask_where_classes_go_is_refused(mask, method):
    """The old positional call partial_fit(P, y, W): refused, the message telling why."""
    fitted = {mod: mod.Specialists().partial_fit(P, Y, awake=W) for mod in MODS}
    before = {mod: frozen(c) for mod, c in fitted.items()}
    msg = same_error(lambda mod: getattr(fitted[mod], method)(P, Y, mask))
    assert msg == ("Specialists: classes must be a 1-D list of labels, got a 2-D mask; the "
                   "awake mask is keyword-only: partial_fit(P, y, awake=W)")
    assert all(frozen(c) == before[mod] for mod, c in fitted.items())
    assert same_error(lambda mod: getattr(mod.Specialists(), method)(P, Y, mask)) == msg


def test_twins_agree_with_awake_by_keyword():
    a = mbcore.Specialists(threshold=0.5)
    b = mbref.Specialists(threshold=0.5)
    ra = run_record(mbcore.run_online(a, P, Y, [0, 1, 2], awake=W))
    rb = run_record(mbref.run_online(b, P, Y, [0, 1, 2], awake=W))
    assert [int(p) for p in ra[0]] == [int(p) for p in rb[0]] and ra[1:] == rb[1:]
    assert copy.deepcopy(list(a.predict(P, awake=W))) == list(b.predict(P, awake=W))
