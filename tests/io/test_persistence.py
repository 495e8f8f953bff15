"""Safe persistence (mbcore.persistence): ``learner.save(file)`` writes an ``.npz`` archive of
the state arrays plus a JSON document (parameters, scalars, digests); ``mbcore.load(file)`` and
``Cls.load(file)`` read it with ``np.load(allow_pickle=False)``.

1. Bit-for-bit continuation: every additive learner's cases (tests/_cases.py: ADDITIVE) and
   every other learner (EXTRA, in _persistence_cases.py: the Winnow family, the experts and
   specialists, the Boolean learners, Halving and SOA, with nested learners, random generators
   and caches), saved mid-stream, loaded and fed the rest, gives exactly the online record, the
   state (every attribute, bit for bit, derived caches excepted), the predictions and the
   scores of the uninterrupted run, and of a pickled copy.  Unfitted learners round-trip too.
2. Files: a path as str or pathlib.Path, binary file objects (seekable or not), compressed
   archives; the learner and its inputs are unchanged by save; an interrupted or refused save
   leaves an existing file as it was.
3. Refused files (FormatError, a ValueError naming the file; never a raw zipfile/KeyError):
   tampered bytes (in an array, in the JSON, with or without recomputed digests), truncations
   at many lengths, files that are not .npz archives, archives with pickled object arrays (never
   unpickled), missing or extra entries, unknown classes, the wrong class for ``Cls.load``, a
   newer format version, and crafted states that would make a kernel read out of bounds.
4. Refused learners (on save, naming the class and the parameter): experts that are not mbcore
   learners, a learner held twice, attributes the format does not know, subclasses defined
   elsewhere, values JSON cannot hold (object labels of other types, exotic categories).
"""

import copy
import hashlib
import io
import json
import os
import pathlib
import pickle
import zipfile
from fractions import Fraction

import numpy as np
import pytest

import mbcore
from mbcore.persistence import FORMAT_VERSION, FormatError
from conftest import (ADDITIVE, ADDITIVE_IDS, as_list, make, real_stream, snapshot,
                      whole_record)
# the learners outside the registry (EXTRA) and the bit-for-bit comparison, shared with the
# other persistence tests
from _persistence_cases import (C_HALF, EXTRA, EXTRA_IDS, _advice, _awake, _bool_data, _cats,
                                _observe, _points, canon, fit_params, learner_state, record)

X, Y = real_stream(17, 120, 6)
XT, _ = real_stream(18, 30, 6)


def test_every_learner_is_covered():
    """Every learner class mbcore exports can be saved, and is exercised below."""
    exported = {n for n in mbcore.__all__ if isinstance(getattr(mbcore, n), type) and
                issubclass(getattr(mbcore, n), mbcore.OnlineLearner) and
                getattr(mbcore, n) is not mbcore.OnlineLearner}
    from mbcore.persistence import _classes
    assert exported == set(_classes())
    tested = {e[0] for e in ADDITIVE} | {e[0].split("-")[0] for e in EXTRA}
    assert exported == tested


def take(A, a, b):
    return A[a:b]


def roundtrip(clf, how="bytes", tmp_path=None, compress=False):
    if how == "bytes":
        buf = io.BytesIO()
        clf.save(buf, compress=compress)
        buf.seek(0)
        return mbcore.load(buf)
    path = tmp_path / "model.npz"
    clf.save(str(path) if how == "str" else path, compress=compress)
    if how == "fileobj":
        with open(path, "rb") as f:
            return mbcore.load(f)
    return mbcore.load(str(path) if how == "str" else path)


def check_continuation(mk, A, y, extra, cut=50, how="bytes", tmp_path=None, compress=False):
    n = len(y)
    ref = mk()
    first = record(mbcore.run_online(ref, take(A, 0, cut), y[:cut],
                                     **fit_params(extra, 0, cut, True)))
    ref.partial_fit(take(A, cut, cut + 1), y[cut:cut + 1],
                    **fit_params(extra, cut, cut + 1, False))
    rest = record(mbcore.run_online(ref, take(A, cut + 1, n), y[cut + 1:],
                                    **fit_params(extra, cut + 1, n, False)))

    clf = mk()
    assert record(mbcore.run_online(clf, take(A, 0, cut), y[:cut],
                                    **fit_params(extra, 0, cut, True))) == first
    before = learner_state(clf)
    pickled = pickle.dumps(clf)
    loaded = roundtrip(clf, how, tmp_path, compress)
    assert learner_state(clf) == before and pickle.dumps(clf) == pickled   # save changes nothing
    assert type(loaded) is type(clf) and loaded is not clf
    assert learner_state(loaded) == before
    via_pickle = pickle.loads(pickled)
    for c in (loaded, via_pickle):
        c.partial_fit(take(A, cut, cut + 1), y[cut:cut + 1],
                      **fit_params(extra, cut, cut + 1, False))
        assert record(mbcore.run_online(c, take(A, cut + 1, n), y[cut + 1:],
                                        **fit_params(extra, cut + 1, n, False))) == rest
        assert learner_state(c) == learner_state(ref)
    probe = take(A, 0, 40)
    assert _observe(loaded, probe, fit_params(extra, 0, 40, False)) == \
        _observe(ref, probe, fit_params(extra, 0, 40, False))
    return ref, loaded


# ------------------------------------------------------------------------------------------------
# 1. Bit-for-bit continuation
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_registry_saved_mid_stream_continues_bit_for_bit(entry):
    ref, loaded = check_continuation(lambda: make(mbcore, entry), X, Y, {})
    assert snapshot(loaded) == snapshot(ref)                 # the contract tests' helper
    assert as_list(loaded.decision_function(XT)) == as_list(ref.decision_function(XT))
    assert as_list(loaded.predict(XT)) == as_list(ref.predict(XT))


@pytest.mark.parametrize("name, mk, data", EXTRA, ids=EXTRA_IDS)
def test_other_learners_saved_mid_stream_continue_bit_for_bit(name, mk, data):
    A, y, extra = data()
    check_continuation(mk, A, y, extra)


@pytest.mark.parametrize("entry", ADDITIVE, ids=ADDITIVE_IDS)
def test_registry_after_fit_and_unfitted(entry):
    e = (entry[0], dict(entry[1], max_epochs=3))
    a = make(mbcore, e).fit(X[:60], Y[:60])
    b = roundtrip(a)
    assert snapshot(a) == snapshot(b) and learner_state(a) == learner_state(b)
    for attr in ("converged_", "cycled_", "n_iter_", "epoch_mistakes_", "epoch_updates_"):
        assert as_list(getattr(a, attr)) == as_list(getattr(b, attr))
    a.partial_fit(X[60:], Y[60:])
    b.partial_fit(X[60:], Y[60:])
    assert learner_state(a) == learner_state(b)
    u = roundtrip(make(mbcore, entry))
    assert u.get_params() == make(mbcore, entry).get_params()
    with pytest.raises(mbcore.NotFittedError):
        u.predict(XT)
    u.partial_fit(X[:30], Y[:30])
    assert snapshot(u) == snapshot(make(mbcore, entry).partial_fit(X[:30], Y[:30]))


@pytest.mark.parametrize("name, mk, data", EXTRA, ids=EXTRA_IDS)
def test_other_learners_unfitted(name, mk, data):
    clf = roundtrip(mk())
    assert type(clf) is type(mk())
    assert canon(clf.get_params()) == canon(mk().get_params())
    with pytest.raises(mbcore.NotFittedError):
        clf.predict(data()[0][:3])


def test_reset_learner_saves_as_unfitted():
    clf = mbcore.Perceptron()
    with pytest.raises(ValueError):
        clf.partial_fit([[np.nan, 1.0]], [1], classes=[-1, 1])    # a failed first call resets
    assert not roundtrip(clf)._is_fitted()


def test_randomized_weighted_majority_generator_continues():
    """The generator's state is saved exactly: the draws after loading are those of the
    uninterrupted run, for many seeds (including seeds past 2**63)."""
    P, y, _ = _advice(n=300, m=5)
    for seed in (0, 1, 2**32 + 7, 2**64 - 1):
        ref = mbcore.RandomizedWeightedMajority(random_state=seed).partial_fit(P[:100], y[:100])
        clf = roundtrip(copy.deepcopy(ref))
        assert as_list(clf.predict(P)) == as_list(ref.predict(P))
        assert record(mbcore.run_online(clf, P[100:], y[100:])) == \
            record(mbcore.run_online(ref, P[100:], y[100:]))
        assert clf.get_params() == ref.get_params()


def test_soa_cache_and_pair_dictionaries_are_rebuilt_not_stored():
    A, y, extra = _points()
    soa = mbcore.SOA(C_HALF).partial_fit(A[:60], y[:60], **extra)
    assert soa._ldim.memo
    meta = _meta(_saved(soa))
    assert "_ldim" not in meta["learner"]["state"] and "_fitted_concepts" not in \
        meta["learner"]["state"]
    back = roundtrip(soa)
    assert back._fitted_concepts is back.concepts and not back._ldim.memo
    Xc, yc, _ = _cats()
    ps = mbcore.PairSpecialists().partial_fit(Xc[:60], yc[:60])
    assert "_cats" not in _meta(_saved(ps))["learner"]["state"]
    assert canon(roundtrip(ps)._cats) == canon(ps._cats)


def test_fast_path_cache_is_rebuilt():
    clf = mbcore.Perceptron().partial_fit(X[:10], Y[:10])
    assert clf._fast is not None
    back = roundtrip(clf)
    assert back._fast is None and back._kstate is None
    back.partial_fit(X[10:11], Y[10:11])
    assert back._fast is not None
    assert snapshot(back) == snapshot(clf.partial_fit(X[10:11], Y[10:11]))


@pytest.mark.parametrize("labels", [
    np.array([-1, 1]), np.array([0, 1], dtype=np.uint8), np.array([False, True]),
    np.array([-0.5, 2.5]), np.array([-0.5, 2.5], dtype=np.float32), np.array(["ham", "spam"]),
    np.array([b"no", b"yes"]), np.array(["ham", "spam"], dtype=object),
    np.array([3, 7], dtype=object)], ids=lambda a: f"{a.dtype}-{a[0]!r}")
def test_label_types_round_trip(labels):
    y = np.where(Y > 0, labels[1], labels[0]).astype(labels.dtype)
    clf = mbcore.Perceptron().partial_fit(X[:60], y[:60])
    back = roundtrip(clf)
    assert back.classes_.dtype == clf.classes_.dtype
    assert [type(v) for v in back.classes_.tolist()] == [type(v) for v in clf.classes_.tolist()]
    assert canon(back.classes_) == canon(clf.classes_)
    assert canon(back.predict(XT)) == canon(clf.predict(XT))
    back.partial_fit(X[60:], y[60:])
    assert snapshot(back) == snapshot(clf.partial_fit(X[60:], y[60:]))


def test_numpy_scalar_parameters_keep_their_type():
    clf = mbcore.KernelPerceptron(kernel="poly", degree=np.int64(2), budget=np.int32(5),
                                  gamma=np.float64(0.5)).partial_fit(X[:50], Y[:50])
    back = roundtrip(clf)
    for k in ("degree", "budget", "gamma"):
        assert type(back.get_params()[k]) is type(clf.get_params()[k])
    assert learner_state(back) == learner_state(clf)


# -- pickle and save/load agree --------------------------------------------------------------------

@pytest.mark.parametrize("entry", ADDITIVE[::4], ids=ADDITIVE_IDS[::4])
def test_pickle_and_save_load_give_identical_continuations(entry):
    clf = make(mbcore, entry).partial_fit(X[:50], Y[:50])
    a, b = pickle.loads(pickle.dumps(clf)), roundtrip(clf)
    ra = whole_record(mbcore.run_online(a, X[50:], Y[50:]))
    rb = whole_record(mbcore.run_online(b, X[50:], Y[50:]))
    assert ra == rb and learner_state(a) == learner_state(b)
    # ... and pickling a loaded learner works as before.
    c = pickle.loads(pickle.dumps(roundtrip(clf)))
    assert whole_record(mbcore.run_online(c, X[50:], Y[50:])) == ra


# ------------------------------------------------------------------------------------------------
# 2. Files
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["str", "pathlib", "fileobj", "bytes"])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "compressed"])
@pytest.mark.parametrize("entry", [ADDITIVE[0], ADDITIVE[12], ADDITIVE[20]],
                         ids=[ADDITIVE_IDS[0], ADDITIVE_IDS[12], ADDITIVE_IDS[20]])
def test_paths_file_objects_and_compression(entry, how, compress, tmp_path):
    check_continuation(lambda: make(mbcore, entry), X, Y, {}, how=how, tmp_path=tmp_path,
                       compress=compress)


def test_path_is_used_as_given_and_cls_load(tmp_path):
    clf = mbcore.Winnow().partial_fit(*_bool_data()[:2])
    path = tmp_path / "winnow.model"                  # no .npz suffix is added
    clf.save(path)
    assert sorted(os.listdir(tmp_path)) == ["winnow.model"]
    assert zipfile.is_zipfile(path)
    assert isinstance(mbcore.Winnow.load(path), mbcore.Winnow)
    assert isinstance(mbcore.OnlineLearner.load(path), mbcore.Winnow)
    with np.load(path, allow_pickle=False) as npz:     # a plain .npz: any NumPy reads it
        assert "__meta__" in npz.files and "state/_l" in npz.files
        assert np.array_equal(npz["state/_l"], clf.log2_coef_)


def test_non_seekable_file_objects(tmp_path):
    class Stream(io.RawIOBase):
        def __init__(self, data):
            self._b = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._b.readinto(b)

        def seekable(self):
            return False

    clf = mbcore.Perceptron().partial_fit(X, Y)
    data = _saved(clf)
    back = mbcore.load(Stream(data))
    assert snapshot(back) == snapshot(clf)
    with pytest.raises(FormatError):
        mbcore.load(Stream(data[:100]))


def test_save_leaves_inputs_and_learner_unchanged(tmp_path):
    Xc, Yc = X.copy(), Y.copy()
    for entry in ADDITIVE:
        clf = make(mbcore, entry).partial_fit(X, Y)
        clf.predict(XT)
        before, pickled = learner_state(clf), pickle.dumps(clf)
        ids = {k: id(v) for k, v in clf.__dict__.items()}
        clf.save(tmp_path / "m.npz")
        assert learner_state(clf) == before and pickle.dumps(clf) == pickled
        assert {k: id(v) for k, v in clf.__dict__.items()} == ids
    assert np.array_equal(X, Xc) and np.array_equal(Y, Yc)


def test_refused_save_keeps_the_existing_file(tmp_path):
    path = tmp_path / "m.npz"
    good = mbcore.Perceptron().partial_fit(X, Y)
    good.save(path)
    data = path.read_bytes()
    bad = mbcore.Perceptron().partial_fit(X, Y)
    bad.note = "not state"
    with pytest.raises(ValueError, match="note"):
        bad.save(path)
    assert path.read_bytes() == data and sorted(os.listdir(tmp_path)) == ["m.npz"]
    mbcore.Perceptron().save(path)                   # overwriting works
    assert not mbcore.load(path)._is_fitted()
    with pytest.raises(OSError):
        good.save(tmp_path / "missing-dir" / "m.npz")
    with pytest.raises(FileNotFoundError):
        mbcore.load(tmp_path / "nothing-here.npz")


# ------------------------------------------------------------------------------------------------
# 3. Refused files
# ------------------------------------------------------------------------------------------------

def _saved(clf, compress=False):
    buf = io.BytesIO()
    clf.save(buf, compress=compress)
    return buf.getvalue()


def _entries(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename[:-4]: z.read(i.filename) for i in z.infolist()}


def _meta(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        return json.loads(npz["__meta__"].tobytes().decode())


def _rezip(entries):
    """A new archive from raw .npy entries (consistent CRCs: only our digests can tell)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in entries.items():
            z.writestr(k + ".npy", v)
    return buf.getvalue()


def _npy(a):
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _with_meta(data, meta, redigest=True):
    from mbcore.persistence import _meta_digest
    meta = copy.deepcopy(meta)
    if redigest:
        meta["digest"] = _meta_digest(meta)
    entries = _entries(data)
    entries["__meta__"] = _npy(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    return _rezip(entries)


def _with_array(data, key, a, redigest=False):
    from mbcore.persistence import _array_digest
    entries = _entries(data)
    entries[key] = _npy(a)
    meta = _meta(data)
    if redigest:
        meta["arrays"][key] = {"dtype": a.dtype.str, "shape": list(a.shape),
                               "sha256": _array_digest(a)}
        return _with_meta(_rezip(entries), meta)
    return _rezip(entries)


def refused(data, *patterns):
    with pytest.raises(FormatError) as exc:
        mbcore.load(io.BytesIO(data))
    msg = str(exc.value)
    assert "is not a valid mbcore learner file" in msg, msg
    for p in patterns:
        assert p in msg, msg
    assert isinstance(exc.value, ValueError)
    return msg


@pytest.fixture(scope="module")
def saved():
    return _saved(mbcore.AveragedPerceptron(mode="vote").partial_fit(X, Y))


def test_good_file_loads(saved):
    assert isinstance(mbcore.load(io.BytesIO(saved)), mbcore.AveragedPerceptron)


def test_error_names_the_file(tmp_path, saved):
    path = tmp_path / "broken.npz"
    path.write_bytes(saved[:50])
    with pytest.raises(FormatError, match="broken.npz"):
        mbcore.load(path)
    with pytest.raises(FormatError, match="broken.npz"):
        mbcore.load(str(path))


def test_flipped_byte_in_an_array_is_detected(saved):
    w = mbcore.load(io.BytesIO(saved))._w
    raw = w.tobytes()
    at = saved.find(raw)
    assert at > 0
    for k in (0, 3, len(raw) - 1):
        data = bytearray(saved)
        data[at + k] ^= 0x01
        refused(bytes(data))              # the zip CRC or the array digest
    w2 = w.copy()
    w2[0] = np.nextafter(w2[0], np.inf)
    refused(_with_array(saved, "state/_w", w2), "digest of array", "state/_w")


def test_flipped_bytes_anywhere_are_detected(saved):
    step = max(1, len(saved) // 97)
    for at in range(0, len(saved), step):
        data = bytearray(saved)
        data[at] ^= 0x20
        try:
            clf = mbcore.load(io.BytesIO(bytes(data)))
        except FormatError:
            continue
        # A few bytes of a zip carry no information (e.g. timestamps, unused fields): the file
        # may then still load, but it must then be the very same learner.
        assert learner_state(clf) == learner_state(mbcore.load(io.BytesIO(saved))), at


def test_changed_json_is_detected(saved):
    meta = _meta(saved)
    meta["learner"]["params"]["eta"] = 2.0
    refused(_with_meta(saved, meta, redigest=False), "digest of the __meta__")
    text = json.dumps(_meta(saved))
    entries = _entries(saved)
    entries["__meta__"] = _npy(np.frombuffer(text.replace('"tie": "negative"',
                                                          '"tie": "positive"').encode(),
                                             dtype=np.uint8))
    refused(_rezip(entries), "digest")


def test_changed_array_with_recomputed_digests_fails_consistency(saved):
    """A deliberate tamperer can recompute the digests: the consistency checks still refuse
    states that do not fit together (and the kernels never see them)."""
    w = mbcore.load(io.BytesIO(saved))._w
    refused(_with_array(saved, "state/_w", np.zeros(w.shape[0] + 3), redigest=True), "_w")
    refused(_with_array(saved, "state/_w", w.astype(np.float32), redigest=True), "_w")
    refused(_with_array(saved, "state/_w", np.full(w.shape, np.nan), redigest=True), "NaN")
    refused(_with_array(saved, "state/_counts", np.array([1, 2], np.int64), redigest=True))
    # ... while a consistent change is the file's business: it loads (the digests are not a
    # signature, see the module docstring).
    mbcore.load(io.BytesIO(_with_array(saved, "state/_w", w + 1.0, redigest=True)))


CRAFTED = [
    # (learner, data, attribute, bad value): states a kernel would read out of bounds with
    ("KernelPerceptron", "real", "_meta", np.array([99, 0], np.int64)),
    ("KernelPerceptron", "real", "_sv", np.zeros((16, 2))),
    ("Perceptron", "real", "_aux", np.zeros(1)),
    ("Winnow", "bool", "_l", np.full(10, 0.5)),
    ("Winnow", "bool", "_w", np.full(10, 3.0)),
    ("WeightedMajority", "advice", "_rng", np.zeros(3, np.uint64)),
    ("WeightedMajority", "advice", "_l", np.zeros(2)),
    ("Specialists", "awake", "_alive", np.full(16, 7, np.uint8)),
    ("PairSpecialists", "cats", "_tkeys", np.arange(1024, dtype=np.int64)),
    ("PairSpecialists", "cats", "_hist", np.full((64, 5), 9, np.int32)),
    ("PairSpecialists", "cats", "_keys", np.full(512, 2**62, np.int64)),
    ("Conjunction", "bool", "_N", np.zeros(3, np.uint8)),
    ("DecisionList", "bool", "_levels", np.zeros(5, np.int32)),
    ("Halving", "points", "_nz", np.array([5], np.int32)),
    ("Halving", "points", "_nnz", np.array([7], np.int64)),
    ("Halving", "points", "_alive", np.array([2**40], np.uint64)),
    ("Halving", "points", "params/concepts/cols", np.zeros((32, 2), np.uint64)),
]


@pytest.mark.parametrize("name, kind, attr, value", CRAFTED,
                         ids=[f"{c[0]}-{c[2]}" for c in CRAFTED])
def test_crafted_states_are_refused(name, kind, attr, value):
    A, y, extra = {"real": lambda: (X, Y, {}), "bool": _bool_data, "advice": _advice,
                   "awake": _awake, "cats": _cats,
                   "points": lambda: _points(noise=0.0)}[kind]()
    clf = getattr(mbcore, name)(**({"concepts": C_HALF} if name == "Halving" else {}))
    clf.partial_fit(A, y, **extra)
    data = _saved(clf)
    key = attr if "/" in attr else "state/" + attr
    assert key in _entries(data)
    refused(_with_array(data, key, value, redigest=True))


@pytest.mark.parametrize("cut", [0, 1, 4, 30, 64, 200, 0.25, 0.5, 0.75, -200, -64, -22, -21,
                                 -10, -1])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "compressed"])
def test_truncated_files(cut, compress):
    data = _saved(mbcore.KernelPerceptron(budget=7).partial_fit(X, Y), compress=compress)
    n = int(len(data) * cut) if isinstance(cut, float) else (cut if cut >= 0 else len(data) + cut)
    refused(data[:n])


@pytest.mark.parametrize("what", ["empty", "text", "json", "npy", "zip-of-text", "npz-no-meta",
                                  "npz-meta-not-json", "npz-meta-wrong-dtype", "npz-meta-list",
                                  "npz-other-format"])
def test_not_mbcore_files(what):
    def npz(**arrays):
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    def z():
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as f:
            f.writestr("readme.txt", "hello")
        return buf.getvalue()

    data = {
        "empty": lambda: b"",
        "text": lambda: b"just some text\n" * 10,
        "json": lambda: json.dumps({"format": "mbcore.learner"}).encode(),
        "npy": lambda: _npy(np.arange(5)),
        "zip-of-text": z,
        "npz-no-meta": lambda: npz(w=np.arange(3.0)),
        "npz-meta-not-json": lambda: npz(__meta__=np.frombuffer(b"{not json", np.uint8)),
        "npz-meta-wrong-dtype": lambda: npz(__meta__=np.arange(4.0)),
        "npz-meta-list": lambda: npz(__meta__=np.frombuffer(b"[1, 2]", np.uint8)),
        "npz-other-format": lambda: npz(__meta__=np.frombuffer(
            json.dumps({"format": "something.else", "format_version": 1}).encode(), np.uint8)),
    }[what]()
    refused(data)


class _Boom:
    """Unpickling this sets a flag: the tests check it is never unpickled."""
    fired = False

    def __reduce__(self):
        return (_fire, ())


def _fire():
    _Boom.fired = True
    return "fired"


def test_pickled_object_arrays_are_refused_and_never_unpickled(saved):
    obj = np.array([_Boom(), 1], dtype=object)
    # 1. __meta__ itself is a pickled object array
    buf = io.BytesIO()
    np.savez(buf, __meta__=obj)
    refused(buf.getvalue(), "pickle")
    # 2. a valid file with one more entry that is a pickled object array
    entries = _entries(saved)
    pbuf = io.BytesIO()
    np.save(pbuf, obj, allow_pickle=True)
    entries["state/evil"] = pbuf.getvalue()
    refused(_rezip(entries), "unexpected entries")
    # 3. ... declared in the table (with the digest recomputed) and referred to by the state
    meta = _meta(saved)
    meta["arrays"]["state/_w"] = {"dtype": "|O", "shape": [2], "sha256": "0" * 64}
    entries = _entries(saved)
    entries["state/_w"] = pbuf.getvalue()
    refused(_with_meta(_rezip(entries), meta))
    # 4. a state entry swapped for a pickled array, digests untouched
    entries = _entries(saved)
    entries["state/_w"] = pbuf.getvalue()
    refused(_rezip(entries))
    assert not _Boom.fired


def test_missing_and_unexpected_entries(saved):
    entries = _entries(saved)
    del entries["state/_w"]
    refused(_rezip(entries), "missing entries", "state/_w")
    entries = _entries(saved)
    entries["state/extra"] = _npy(np.zeros(2))
    refused(_rezip(entries), "unexpected entries", "state/extra")


def test_unknown_class_and_names_are_refused(saved):
    for cls in ("os.system", "Perceptron2", "OnlineLearner", "_Linear", "ConceptClass", "",
                None, 3):
        meta = _meta(saved)
        meta["learner"]["class"] = cls
        refused(_with_meta(saved, meta), "unknown learner class")
    meta = _meta(saved)
    meta["learner"]["state"]["__class__"] = 1
    refused(_with_meta(saved, meta), "unknown state attribute")
    meta = _meta(saved)
    meta["learner"]["params"]["callback"] = "print"
    refused(_with_meta(saved, meta), "parameters")
    meta = _meta(saved)
    meta["learner"]["state"]["_d"] = {"$": "import", "v": "os"}
    refused(_with_meta(saved, meta), "unknown value tag")
    meta = _meta(saved)
    del meta["learner"]["state"]["_aux"]
    refused(_with_meta(saved, meta), "lacks")


def test_newer_format_version_is_refused(saved):
    meta = _meta(saved)
    meta["format_version"] = FORMAT_VERSION + 1
    msg = refused(_with_meta(saved, meta), "upgrade mbcore", f"version {FORMAT_VERSION + 1}")
    assert "digest" not in msg
    for v in (0, -1, "1", 1.0, None, True):
        meta["format_version"] = v
        refused(_with_meta(saved, meta), "format version")


def test_cls_load_checks_the_class(tmp_path):
    path = tmp_path / "p.npz"
    mbcore.Perceptron().partial_fit(X, Y).save(path)
    with pytest.raises(FormatError, match="holds a Perceptron, not a Winnow"):
        mbcore.Winnow.load(path)
    with pytest.raises(FormatError, match="not a AveragedPerceptron"):
        mbcore.AveragedPerceptron.load(path)
    assert type(mbcore.Perceptron.load(path)) is mbcore.Perceptron
    mbcore.AveragedPerceptron().partial_fit(X, Y).save(path)
    assert type(mbcore.Perceptron.load(path)) is mbcore.AveragedPerceptron   # a subclass


# ------------------------------------------------------------------------------------------------
# 4. Refused learners
# ------------------------------------------------------------------------------------------------

def test_experts_that_are_not_mbcore_learners_are_refused():
    class Duck:
        classes_ = None

        def predict(self, X):
            return [1] * len(X)

        def partial_fit(self, X, y, classes=None):
            return self

    wm = mbcore.WeightedMajority(experts=[mbcore.Perceptron(), Duck()])
    with pytest.raises(TypeError, match=r"WeightedMajority\.save: parameter experts holds a "
                                        r".*Duck object"):
        wm.save(io.BytesIO())
    sk = pytest.importorskip("sklearn.linear_model")
    wm = mbcore.WeightedMajority(experts=[sk.Perceptron()])
    with pytest.raises(TypeError, match="parameter experts"):
        wm.save(io.BytesIO())


def test_a_learner_held_twice_is_refused():
    p = mbcore.Perceptron()
    wm = mbcore.WeightedMajority(experts=[p, mbcore.Winnow(), p])
    with pytest.raises(ValueError, match="held twice"):
        wm.save(io.BytesIO())
    wm = mbcore.WeightedMajority()
    wm.experts = [wm]
    with pytest.raises(ValueError, match="held twice"):
        wm.save(io.BytesIO())


def test_foreign_classes_and_attributes_are_refused():
    class MyPerceptron(mbcore.Perceptron):
        pass

    with pytest.raises(TypeError, match="only mbcore's own learner classes"):
        MyPerceptron().save(io.BytesIO())
    clf = mbcore.Perceptron().partial_fit(X, Y)
    clf._extra = np.zeros(3)
    with pytest.raises(ValueError, match="_extra"):
        clf.save(io.BytesIO())
    clf = mbcore.Perceptron(eta=lambda: 1)                   # not a value the format holds
    with pytest.raises(TypeError, match="parameter eta"):
        clf.save(io.BytesIO())
    clf = mbcore.Perceptron().partial_fit(X, Y)
    clf.set_params(fit_intercept=True)                       # invalid for the fitted state
    with pytest.raises(ValueError, match="fit_intercept"):
        clf.save(io.BytesIO())


def test_labels_and_categories_json_cannot_hold_are_refused():
    y = np.array([Fraction(1, 2) if v > 0 else Fraction(1, 3) for v in Y], dtype=object)
    clf = mbcore.Perceptron().partial_fit(X, y)
    with pytest.raises(TypeError, match="attribute classes_ holds a Fraction"):
        clf.save(io.BytesIO())
    Xc, yc, _ = _cats()
    Xc = [[frozenset([r[0]])] + r[1:] for r in Xc]
    ps = mbcore.PairSpecialists().partial_fit(Xc, yc)
    with pytest.raises(TypeError, match="attribute _cat_values holds a .*frozenset"):
        ps.save(io.BytesIO())
    # tuples and NumPy scalars as categories are fine
    Xc, yc, _ = _cats()
    Xc = [[(r[0], "t")] + [np.int16(7)] + r[2:] for r in Xc]
    ps = mbcore.PairSpecialists().partial_fit(Xc[:60], yc[:60])
    back = roundtrip(ps)
    assert canon(back._cat_values) == canon(ps._cat_values)
    assert record(mbcore.run_online(back, Xc[60:], yc[60:])) == \
        record(mbcore.run_online(ps, Xc[60:], yc[60:]))


def test_format_document_fields(saved):
    meta = _meta(saved)
    assert meta["format"] == "mbcore.learner" and meta["format_version"] == FORMAT_VERSION
    assert meta["mbcore_version"] == mbcore.__version__
    assert meta["learner"]["class"] == "AveragedPerceptron"
    assert meta["learner"]["params"]["mode"] == "vote"
    assert meta["learner"]["state"]["_w"] == {"$": "array", "key": "state/_w"}
    entries = _entries(saved)
    assert set(entries) == {"__meta__"} | set(meta["arrays"])
    with np.load(io.BytesIO(saved), allow_pickle=False) as npz:
        for k, info in meta["arrays"].items():
            a = npz[k]
            h = hashlib.sha256(a.dtype.str.encode() + b"|" + json.dumps(list(a.shape)).encode()
                               + b"|" + a.tobytes()).hexdigest()
            assert info == {"dtype": a.dtype.str, "shape": list(a.shape), "sha256": h}


def test_readonly_state_arrays_are_copied_on_unpickle():
    """joblib may restore a learner with read-only (memory-mapped) arrays: the learner takes
    writable copies, so it can keep learning."""
    clf = mbcore.AveragedPerceptron(mode="vote").partial_fit(X[:50], Y[:50])
    state = copy.deepcopy(clf.__getstate__())
    for v in list(state.values()) + state["_votes"]:
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    other = mbcore.AveragedPerceptron.__new__(mbcore.AveragedPerceptron)
    other.__setstate__(state)
    other.partial_fit(X[50:], Y[50:])
    assert snapshot(other) == snapshot(copy.deepcopy(clf).partial_fit(X[50:], Y[50:]))


def test_pathlib_and_bytes_paths(tmp_path):
    clf = mbcore.Perceptron().partial_fit(X, Y)
    p = pathlib.Path(tmp_path) / "a.npz"
    clf.save(os.fsencode(str(p)))
    assert snapshot(mbcore.load(os.fsencode(str(p)))) == snapshot(clf)


def test_module_examples():
    import doctest
    import mbcore.persistence
    result = doctest.testmod(mbcore.persistence, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0
