"""Learners that can no longer follow their rule say so: ``LearnerWarning`` and ``failure_``.

Halving (both forms) and SOA whose version space becomes empty, and Conjunction / Disjunction
(both literal sets) meeting an example that no hypothesis of their class fits under
``on_inconsistent="flag"``, warn once per learner, at that example, and record
``failure_ = (index, reason)``: the example's 0-based position in the whole stream the learner
has seen (``n_seen_`` before the call + the row), over calls and epochs.

1. Hand-made streams, the example worked out in the comments (never read from the code): one
   warning over several calls, the index, the message word for word, on both sides.
2. ``fit``: the index counts the epochs; every ``fit`` starts over; ``clone`` too.
3. No warning and ``failure_`` None on consistent streams; ``on_inconsistent="raise"`` raises
   instead; the warning turned into an error leaves the learner as before the call.
4. The twin: the same ``failure_`` and messages on random streams in random chunks, and for
   Halving on several threads.
5. Persistence: ``save``/``load`` (mid-stream, before and after), files without ``failure_``
   (those of 0.1.0: the default), refused inconsistent files; pickling and copies.
6. The public name: exported by both packages, a UserWarning, attributed to the caller.
"""

import copy
import io
import json
import os
import pickle
import warnings

import numpy as np
import pytest

import mbcore
import mbcore._threads as mthreads
import mbref
from conftest import FILES_0_1_0, as_list
from mbcore._kernels import bitset
from mbcore.persistence import FormatError, _meta_digest

MODS = {"mbcore": mbcore, "mbref": mbref}
mod_param = pytest.mark.parametrize("modname", list(MODS))
EMPTY = "no concept of the class is consistent with the examples"
FALLBACK_VS = ("predicts classes_[1] for every example and learns nothing (use a class that "
               "holds the target concept, or check the labels for noise)")
FALLBACK_EL = ("passes over such examples (counted in n_inconsistent_) and its mistake bound no "
               "longer holds (check the labels for noise, or use on_inconsistent=\"raise\" to "
               "stop at the first one)")
FIXTURES = FILES_0_1_0


def rows(modname, X):
    """X as each side takes it: NumPy arrays for mbcore, lists for the twin."""
    if modname == "mbcore":
        return np.asarray(X)
    return as_list(X)


def caught(call):
    """(call's result, the messages of the LearnerWarnings it emitted, their file names)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = call()
    lw = [w for w in got if issubclass(w.category, (mbcore.LearnerWarning,
                                                    mbref.LearnerWarning))]
    return out, [str(w.message) for w in lw], [w.filename for w in lw]


def observed(clf):
    """What both sides show of a learner, as plain values (None before it is fitted)."""
    if not clf._is_fitted():
        return None
    out = {"n_seen_": int(clf.n_seen_), "mistakes_": int(clf.mistakes_),
           "updates_": int(clf.updates_), "inconsistent_": bool(clf.inconsistent_),
           "failure_": clf.failure_}
    if hasattr(clf, "alive_concepts_"):
        out["alive_concepts_"] = [int(c) for c in clf.alive_concepts_]
    else:
        out["literals_"] = list(clf.literals_)
        out["n_inconsistent_"] = int(clf.n_inconsistent_)
    return out


# ================================================================================================
# 1. Hand-made streams
# ================================================================================================

# Three concepts over three points:   c0 = (1, 1, 0), c1 = (0, 1, 1), c2 = (1, 0, 1).
CM = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]
PTS = [1, 0, 2, 2, 1, 0]
LAB = [1, 1, 1, 0, 0, 0]
# Halving (version space after every example):
#   row 0, point 1: q1 = |{c0, c1}| = 2 >= q0 = 1 -> 1, right; V = {c0, c1}
#   row 1, point 0: q1 = |{c0}| = 1 >= q0 = |{c1}| = 1 -> 1 (tie), right; V = {c0}
#   row 2, point 2: q1 = 0 < q0 = 1 -> 0, label 1: V = {c in {c0} : c(2) = 1} = {}  -> example 2
# Halving, conservative (only after mistakes):
#   rows 0, 1, 2 (points 1, 0, 2): two of the three concepts say 1 each time -> 1, right
#   row 3, point 2, label 0: mistake; V = {c0}
#   row 4, point 1, label 0: c0(1) = 1 -> 1, mistake; V = {}                        -> example 4
# SOA:
#   row 0, point 1: V1 = {c0, c1} (point 0 splits it: Ldim 1), V0 = {c2} (Ldim 0) -> 1, right
#   row 1, point 0: V1 = {c0}, V0 = {c1}: Ldim 0 and 0 -> 1 (tie), right; V = {c0}
#   row 2, point 2: V1 = {} (Ldim -1), V0 = {c0} (Ldim 0) -> 0, label 1: V = {}    -> example 2
VS_CASES = [("Halving", {}, 2), ("Halving", {"conservative": True}, 4), ("SOA", {}, 2)]

# Boolean rows over n = 3 variables.
XB = [[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0], [1, 0, 0]]
# Conjunction, h = every literal (false everywhere):
#   row 0 (+): h false, false negative: keep the literals true on 110: h = x0 x1 ~x2
#   row 1 (+): x1 false, false negative: h = x0 ~x2
#   row 2 (-): x0 false -> -, right;  row 3 (-): ~x2 false -> -, right
#   row 4 (-): h(100) = 1: labelled negative but satisfies h                         -> example 4
#   row 5: the same again (a second inconsistent example, no second warning)
YC = [1, 1, -1, -1, -1, -1]
# Disjunction, monotone, h = x0 v x1 v x2:
#   row 0 (-): h(110) = 1, false positive: drop x0, x1: h = x2
#   row 1 (-): h(100) = 0, right;  rows 2, 3 (+): x2 = 1, right
#   row 4 (+): h(100) = 0, labelled positive but falsifies h (row 1 is 100 labelled -) -> 4
YD = [-1, -1, 1, 1, 1, 1]
# Disjunction, all 2n literals (h true everywhere):
#   row 0 (-): false positive on 110: drop x0, x1, ~x2: h = ~x0 v ~x1 v x2
#   row 1 (+): ~x1 -> 1, right;  row 2 (+): ~x0 -> 1, right
#   row 3 (-): ~x1 -> 1, false positive on 101: drop ~x1, x2: h = ~x0
#   row 4 (+): h(100) = 0: x0, ~x1, ~x2 are true on 100, and each is true on a negative
#              (110 or 101): no disjunction fits                                     -> 4
YA = [-1, 1, 1, -1, 1, 1]
EL_CASES = [("Conjunction", {}, YC, "no conjunction is consistent with the examples",
             "negative but satisfies"),
            ("Disjunction", {}, YD, "no monotone disjunction is consistent with the examples",
             "positive but falsifies"),
            ("Disjunction", {"literals": "all"}, YA, "no disjunction is consistent with the "
             "examples", "positive but falsifies")]


def vs_learner(modname, name, params, M=CM):
    m = MODS[modname]
    C = m.ConceptClass.from_matrix(np.array(M) if modname == "mbcore" else M)
    return getattr(m, name)(C, **params)


def _ids(cases):
    return [c[0] + "".join(f"-{v}" for v in c[1].values()) for c in cases]


@pytest.mark.parametrize("case", VS_CASES, ids=_ids(VS_CASES))
@mod_param
def test_version_space_by_hand(modname, case):
    name, params, index = case
    clf = vs_learner(modname, name, params)
    pts = rows(modname, PTS)

    def calls():
        # three calls: the example falls in the second (Halving, SOA) or third (conservative)
        clf.partial_fit(pts[:1], LAB[:1], classes=[0, 1])
        assert clf.failure_ is None
        clf.partial_fit(pts[1:4], LAB[1:4])
        clf.partial_fit(pts[4:], LAB[4:])
        return clf
    _, msgs, _ = caught(calls)
    assert msgs == [f"{name}: {EMPTY}: example {index} left the version space empty; from now "
                    f"on the learner {FALLBACK_VS}"]
    assert clf.failure_ == (index, EMPTY)
    assert type(clf.failure_[0]) is int
    assert clf.inconsistent_ and clf.alive_count_ == 0
    # the fallback the message names: classes_[1] everywhere, and nothing more is learned
    assert as_list(clf.predict(rows(modname, [0, 1, 2]))) == [1, 1, 1]
    _, msgs, _ = caught(lambda: clf.partial_fit(pts, LAB))
    assert msgs == [] and clf.failure_ == (index, EMPTY)


@pytest.mark.parametrize("case", EL_CASES, ids=_ids(EL_CASES))
@mod_param
def test_elimination_by_hand(modname, case):
    name, params, y, reason, detail = case
    clf = getattr(MODS[modname], name)(**params)
    X = rows(modname, XB)

    def calls():
        clf.partial_fit(X[:3], y[:3], classes=[-1, 1])
        clf.partial_fit(X[3:], y[3:])           # the example is row 1 of this call: 3 + 1
        return clf
    _, msgs, _ = caught(calls)
    assert msgs == [f"{name}: {reason}: example 4 is labelled {detail} the hypothesis; from now "
                    f"on the learner {FALLBACK_EL}"]
    assert clf.failure_ == (4, reason)
    assert clf.inconsistent_ and clf.n_inconsistent_ == 2      # rows 4 and 5
    # the whole stream again: rows 4 and 5 again, and for literals="all" (h = ~x0) row 1 too
    _, msgs, _ = caught(lambda: clf.partial_fit(X, y))
    again = 3 if params.get("literals") == "all" else 2
    assert msgs == [] and clf.failure_ == (4, reason) and clf.n_inconsistent_ == 2 + again


@pytest.mark.parametrize("case", EL_CASES, ids=_ids(EL_CASES))
def test_elimination_record_is_the_flag_pass(case):
    """Stopping at the first inconsistent row and going on gives the record of one pass: the
    predictions, errors and updates of a learner that had already failed (which runs the pass
    in one go)."""
    name, params, y, _, _ = case
    X = np.array(XB * 3)
    yy = y * 3
    a = getattr(mbcore, name)(**params)
    ra, _, _ = caught(lambda: mbcore.run_online(a, X, yy, classes=[-1, 1]))
    b = getattr(mbcore, name)(**params)
    caught(lambda: b.partial_fit(X[:6], yy[:6], classes=[-1, 1]))       # failed in this call
    rb = mbcore.run_online(b, X[6:], yy[6:])
    ref = getattr(mbref, name)(**params)
    rr, _, _ = caught(lambda: mbref.run_online(ref, XB * 3, yy, classes=[-1, 1]))
    for key in ("predictions", "errors", "updated"):
        assert as_list(getattr(ra, key)) == as_list(getattr(rr, key)), key
        assert as_list(getattr(ra, key))[6:] == as_list(getattr(rb, key)), key
    assert observed(a) == observed(ref) == observed(b)


# ================================================================================================
# 2. fit and clone
# ================================================================================================

# C = {c0 = (1, 1), c1 = (0, 1)}; the stream is point 0 labelled 1, then point 0 labelled 0.
#   Halving and SOA: row 0 keeps {c0} (a tie -> 1, right), row 1 contradicts it: example 1.
#   Conservative Halving, epoch 1: row 0 is a tie -> 1, right (no update); row 1 -> 1, a
#   mistake: V = {c1}.  Epoch 2: row 0 -> 0 (c1(0) = 0), a mistake: V = {}: example 2 + 0 = 2.
FIT_VS = [("Halving", {}, 1), ("Halving", {"conservative": True}, 2), ("SOA", {}, 1)]


@pytest.mark.parametrize("case", FIT_VS, ids=_ids(FIT_VS))
@mod_param
def test_fit_counts_epochs_and_starts_over(modname, case):
    name, params, index = case
    clf = vs_learner(modname, name, params, M=[[1, 1], [0, 1]])
    pts = rows(modname, [0, 0])
    _, msgs, _ = caught(lambda: clf.fit(pts, [1, 0], classes=[0, 1]))
    assert len(msgs) == 1 and f"example {index} left" in msgs[0]
    assert clf.failure_ == (index, EMPTY)
    # a second fit starts over: it warns again, with the same record
    _, again, _ = caught(lambda: clf.fit(pts, [1, 0], classes=[0, 1]))
    assert again == msgs and clf.failure_ == (index, EMPTY)
    # and on data that c0 labels, nothing is left of the failure
    _, msgs, _ = caught(lambda: clf.fit(pts, [1, 1], classes=[0, 1]))
    assert msgs == [] and clf.failure_ is None and not clf.inconsistent_


@mod_param
def test_fit_conjunction_fails_in_the_second_epoch(modname):
    # rows 11 (-), 11 (+).  Epoch 1: row 0 -> -, right; row 1, a false negative: h = x0 x1.
    # Epoch 2: row 0: h(11) = 1, labelled negative: example 2 + 0 = 2.
    clf = MODS[modname].Conjunction(max_epochs=5)
    X = rows(modname, [[1, 1], [1, 1]])
    _, msgs, _ = caught(lambda: clf.fit(X, [-1, 1]))
    assert len(msgs) == 1 and "example 2 is labelled negative" in msgs[0]
    assert clf.failure_ == (2, "no conjunction is consistent with the examples")
    assert clf.n_iter_ == 2 and clf.n_inconsistent_ == 1


def test_clone_starts_over():
    for clf, X, y, cl in [(vs_learner("mbcore", "Halving", {}), np.array(PTS), LAB, [0, 1]),
                          (mbcore.Conjunction(), np.array(XB), YC, [-1, 1])]:
        _, first, _ = caught(lambda: clf.partial_fit(X, y, classes=cl))
        fresh = mbcore.clone(clf)
        with pytest.raises(mbcore.NotFittedError):
            fresh.failure_
        _, second, _ = caught(lambda: fresh.partial_fit(X, y, classes=cl))
        assert len(first) == 1 and second == first and fresh.failure_ == clf.failure_


# ================================================================================================
# 3. Consistent streams, "raise", the warning as an error
# ================================================================================================

@mod_param
def test_no_warning_on_consistent_streams(modname):
    m = MODS[modname]
    rng = np.random.default_rng(5)
    M = rng.integers(0, 2, size=(40, 12))
    for cls, params in (("Halving", {}), ("Halving", {"conservative": True}), ("SOA", {})):
        C = m.ConceptClass.from_matrix(M if modname == "mbcore" else M.tolist())
        for t in (0, 17, 39):
            pts = rng.integers(0, 12, size=60)
            y = [int(M[t, j]) for j in pts]
            clf = getattr(m, cls)(C, **params)
            _, msgs, _ = caught(lambda: clf.partial_fit(rows(modname, pts), y, classes=[0, 1]))
            assert msgs == [] and clf.failure_ is None and not clf.inconsistent_
            _, msgs, _ = caught(lambda: clf.fit(rows(modname, pts), y))
            assert msgs == [] and clf.failure_ is None
    X = (rng.random((200, 8)) < 0.6).astype(np.uint8)
    for cls, params, y in (("Conjunction", {}, np.where(X[:, 1] & (1 - X[:, 4]), 1, -1)),
                           ("Disjunction", {}, np.where(X[:, 0] | X[:, 6], 1, -1)),
                           ("Disjunction", {"literals": "all"},
                            np.where(X[:, 2] | (1 - X[:, 3]), 1, -1))):
        clf = getattr(m, cls)(**params)
        _, msgs, _ = caught(lambda: clf.fit(rows(modname, X), y.tolist()))
        assert msgs == [] and clf.failure_ is None and not clf.inconsistent_


@pytest.mark.parametrize("case", EL_CASES, ids=_ids(EL_CASES))
@mod_param
def test_raise_mode_raises_and_records_nothing(modname, case):
    name, params, y, _, _ = case
    clf = getattr(MODS[modname], name)(on_inconsistent="raise", **params)
    X = rows(modname, XB)
    clf.partial_fit(X[:3], y[:3], classes=[-1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="row 1 is labelled"):
            clf.partial_fit(X[3:], y[3:])
    assert clf.failure_ is None and clf.n_seen_ == 3


def _failing_calls(modname):
    """(make, first call's args, the call that fails) for each learner."""
    out = []
    for name, params, _ in VS_CASES:
        pts = rows(modname, PTS)
        out.append((lambda n=name, p=params: vs_learner(modname, n, p),
                    (pts[:1], LAB[:1], [0, 1]), (pts[1:], LAB[1:])))
    for name, params, y, _, _ in EL_CASES:
        X = rows(modname, XB)
        out.append((lambda n=name, p=params: getattr(MODS[modname], n)(**p),
                    (X[:3], y[:3], [-1, 1]), (X[3:], y[3:])))
    return out


@mod_param
def test_warning_as_an_error_leaves_the_learner_as_before(modname):
    """A call that raises leaves the learner unchanged, the LearnerWarning included; a first
    call leaves it unfitted."""
    m = MODS[modname]
    for make, first, failing in _failing_calls(modname):
        clf = make()
        clf.partial_fit(first[0], first[1], classes=first[2])
        before = copy.deepcopy(observed(clf))
        with warnings.catch_warnings():
            warnings.simplefilter("error", m.LearnerWarning)
            with pytest.raises(m.LearnerWarning):
                clf.partial_fit(*failing)
            assert observed(clf) == before
            fresh = make()
            with pytest.raises(m.LearnerWarning):
                fresh.fit(np.concatenate([first[0], failing[0]]) if modname == "mbcore"
                          else first[0] + failing[0], list(first[1]) + list(failing[1]))
            assert observed(fresh) is None
        _, msgs, _ = caught(lambda: clf.partial_fit(*failing))   # then it warns as usual
        assert len(msgs) == 1 and clf.failure_ is not None


# ================================================================================================
# 4. The twin
# ================================================================================================

def _random_case(seed):
    rng = np.random.default_rng(seed)
    m, N = int(rng.integers(3, 70)), int(rng.integers(2, 9))
    M = rng.integers(0, 2, size=(m, N))
    t = int(rng.integers(0, m))
    pts = rng.integers(0, N, size=60)
    y = np.array([M[t, j] for j in pts])
    flip = rng.random(60) < [0.0, 0.02, 0.1][seed % 3]
    y = np.where(flip, 1 - y, y)
    cuts = sorted(set(rng.integers(1, 60, size=4).tolist()))
    return M, pts, y, list(zip([0] + cuts, cuts + [60]))


def _chunks(clf, X, y, bounds, classes):
    for k, (a, b) in enumerate(bounds):
        clf.partial_fit(X[a:b], y[a:b], classes=classes if k == 0 else None)
    return clf


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("case", VS_CASES, ids=_ids(VS_CASES))
def test_twin_version_space_random(case, seed):
    name, params, _ = case
    M, pts, y, bounds = _random_case(seed)
    a = vs_learner("mbcore", name, params, M=M)
    b = vs_learner("mbref", name, params, M=M.tolist())
    _, ma, _ = caught(lambda: _chunks(a, pts, y, bounds, [0, 1]))
    _, mb, _ = caught(lambda: _chunks(b, pts.tolist(), y.tolist(), bounds, [0, 1]))
    assert ma == mb and len(ma) == int(a.inconsistent_)
    assert observed(a) == observed(b)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("case", EL_CASES, ids=_ids(EL_CASES))
def test_twin_elimination_random(case, seed):
    name, params, _, _, _ = case
    rng = np.random.default_rng(100 + seed)
    X = (rng.random((80, 6)) < 0.5).astype(np.uint8)
    y = np.where(X[:, 0] & X[:, 2] if name == "Conjunction" else X[:, 0] | X[:, 2], 1, -1)
    y = np.where(rng.random(80) < [0.0, 0.03, 0.1][seed % 3], -y, y)
    bounds = [(0, 7), (7, 8), (8, 50), (50, 80)]
    a = getattr(mbcore, name)(**params)
    b = getattr(mbref, name)(**params)
    _, ma, _ = caught(lambda: _chunks(a, X, y, bounds, [-1, 1]))
    _, mb, _ = caught(lambda: _chunks(b, X.tolist(), y.tolist(), bounds, [-1, 1]))
    assert ma == mb and len(ma) == int(a.inconsistent_)
    assert observed(a) == observed(b)
    _, fa, _ = caught(lambda: a.fit(X, y))
    _, fb, _ = caught(lambda: b.fit(X.tolist(), y.tolist()))
    assert fa == fb and observed(a) == observed(b)


def test_twin_most_specific_conjunction():
    # positives 101, 100: h = x0 ~x1; negatives 110 (x1 = 1: falsifies h), 100 (satisfies h),
    # 101 (satisfies): the first negative that satisfies it is row 3
    X = [[1, 0, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0], [1, 0, 1]]
    y = [1, -1, 1, -1, -1]
    a, wa, _ = caught(lambda: mbcore.most_specific_conjunction(np.array(X), y))
    b, wb, _ = caught(lambda: mbref.most_specific_conjunction(X, y))
    assert wa == wb == []          # a batch result: it says so itself
    assert a.failure_ == b.failure_ == (3, "no conjunction is consistent with the examples")
    assert a.n_inconsistent_ == b.n_inconsistent_ == 2
    buf = io.BytesIO()
    a.save(buf)
    assert mbcore.load(io.BytesIO(buf.getvalue())).failure_ == a.failure_
    good = mbcore.most_specific_conjunction(np.array(X[:3]), y[:3])
    assert good.failure_ is None


@pytest.mark.parametrize("conservative", [False, True])
def test_halving_threads(conservative, monkeypatch):
    """The speculative passes (n_jobs, small streams forced through the threads) find the same
    example: the last row that changed the version space."""
    monkeypatch.setattr(mthreads, "SPEC_MIN_VALUES", 0)
    old = bitset.spec_tuning(0, 1, None, 1)
    try:
        for seed in range(10):
            M, pts, y, bounds = _random_case(seed)
            ref = vs_learner("mbref", "Halving", {"conservative": conservative}, M=M.tolist())
            _, want, _ = caught(lambda: _chunks(ref, pts.tolist(), y.tolist(), bounds, [0, 1]))
            for jobs in (1, 2, 4):
                clf = vs_learner("mbcore", "Halving", {"conservative": conservative,
                                                       "n_jobs": jobs}, M=M)
                _, got, _ = caught(lambda: _chunks(clf, pts, y, bounds, [0, 1]))
                assert got == want and observed(clf) == observed(ref), (seed, jobs)
    finally:
        bitset.spec_tuning(*old)


# ================================================================================================
# 5. Persistence, pickling, copies
# ================================================================================================

def _saved(clf):
    buf = io.BytesIO()
    clf.save(buf)
    return buf.getvalue()


def _edited(data, edit):
    """The file with its state (the JSON document) changed by ``edit``, digests recomputed."""
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        entries = {k: npz[k] for k in npz.files}
    meta = json.loads(entries["__meta__"].tobytes().decode("utf-8"))
    edit(meta["learner"]["state"])
    meta["digest"] = _meta_digest(meta)
    entries["__meta__"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **entries)
    return buf.getvalue()


def _mbcore_cases():
    out = []
    for name, params, index in VS_CASES:
        out.append((f"{name}{params}", lambda n=name, p=params: vs_learner("mbcore", n, p),
                    np.array(PTS), LAB, [0, 1], (index, EMPTY)))
    for name, params, y, reason, _ in EL_CASES:
        out.append((f"{name}{params}", lambda n=name, p=params: getattr(mbcore, n)(**p),
                    np.array(XB), y, [-1, 1], (4, reason)))
    return out


CASES = _mbcore_cases()
case_param = pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])


@case_param
def test_save_and_load_keep_the_record(case):
    _, make, X, y, cl, record = case
    # saved after the failure: the record comes back, and no second warning
    clf = make()
    caught(lambda: clf.partial_fit(X, y, classes=cl))
    back = mbcore.load(io.BytesIO(_saved(clf)))
    assert back.failure_ == record and type(back.failure_) is tuple
    _, msgs, _ = caught(lambda: back.partial_fit(X, y))
    assert msgs == [] and back.failure_ == record
    # saved before it: the loaded learner warns at the same example as one never saved
    early = make().partial_fit(X[:2], y[:2], classes=cl)
    back = mbcore.load(io.BytesIO(_saved(early)))
    assert back.failure_ is None
    _, msgs, _ = caught(lambda: back.partial_fit(X[2:], y[2:]))
    assert len(msgs) == 1 and back.failure_ == record


@case_param
def test_files_without_the_record_load_with_the_default(case):
    """A file written before ``failure_`` existed: None if the learner still follows its rule,
    else (None, reason): the example is unknown."""
    _, make, X, y, cl, record = case
    fine = make().partial_fit(X[:2], y[:2], classes=cl)
    failed = make()
    caught(lambda: failed.partial_fit(X, y, classes=cl))
    for clf, want in ((fine, None), (failed, (None, record[1]))):
        back = mbcore.load(io.BytesIO(_edited(_saved(clf), lambda st: st.pop("_failure"))))
        assert back.failure_ == want
        _, msgs, _ = caught(lambda: back.partial_fit(X, y))
        assert len(msgs) == (want is None)


OLD_FILES = {"Halving": EMPTY, "Halving-conservative": None, "Halving-matrix": EMPTY,
             "SOA": EMPTY, "Conjunction": "no conjunction is consistent with the examples",
             "Disjunction": "no monotone disjunction is consistent with the examples",
             "Disjunction-all": "no disjunction is consistent with the examples"}


@pytest.mark.parametrize("name", sorted(OLD_FILES))
def test_files_of_0_1_0(name):
    """The files of mbcore 0.1.0 (tests/io/test_persistence_fixtures.py): the learners that had
    failed load with (None, reason), the others with None."""
    clf = mbcore.load(os.path.join(FIXTURES, name + ".npz"))
    reason = OLD_FILES[name]
    assert clf.failure_ == (None if reason is None else (None, reason))
    assert clf.inconsistent_ == (reason is not None)


@case_param
def test_inconsistent_records_are_refused(case):
    _, make, X, y, cl, record = case
    fine = make().partial_fit(X[:2], y[:2], classes=cl)
    failed = make()
    caught(lambda: failed.partial_fit(X, y, classes=cl))
    tup = lambda *items: {"$": "tuple", "items": list(items)}    # noqa: E731
    bad = [(fine, lambda st: st.update(_failure=tup(1, record[1])), "failure_ does not match"),
           (failed, lambda st: st.update(_failure=None), "failure_ does not match"),
           (failed, lambda st: st.update(_failure=tup(len(y), record[1])), "failure_ is not"),
           (failed, lambda st: st.update(_failure=tup(-1, record[1])), "failure_ is not"),
           (failed, lambda st: st.update(_failure=tup(True, record[1])), "failure_ is not"),
           (failed, lambda st: st.update(_failure=tup(1, "something else")), "failure_ is not"),
           (failed, lambda st: st.update(_failure=tup(1)), "failure_ is not"),
           (failed, lambda st: st.update(_failure=[1, record[1]]), "_failure is a list")]
    for clf, edit, pattern in bad:
        with pytest.raises(FormatError, match=pattern):
            mbcore.load(io.BytesIO(_edited(_saved(clf), edit)))


@case_param
def test_pickle_and_copies_keep_the_record(case):
    _, make, X, y, cl, record = case
    clf = make()
    caught(lambda: clf.partial_fit(X, y, classes=cl))
    for other in (pickle.loads(pickle.dumps(clf)), copy.deepcopy(clf), copy.copy(clf)):
        assert other.failure_ == record
        _, msgs, _ = caught(lambda: other.partial_fit(X, y))
        assert msgs == []
    early = make().partial_fit(X[:2], y[:2], classes=cl)
    again = pickle.loads(pickle.dumps(early))
    _, msgs, _ = caught(lambda: again.partial_fit(X[2:], y[2:]))
    assert len(msgs) == 1 and again.failure_ == record


# ================================================================================================
# 6. The public name
# ================================================================================================

def test_exported_and_a_user_warning():
    for m in (mbcore, mbref):
        assert "LearnerWarning" in m.__all__
        assert issubclass(m.LearnerWarning, UserWarning)
    assert mbcore.LearnerWarning is mbcore.exceptions.LearnerWarning
    assert mbref.LearnerWarning is mbref.exceptions.LearnerWarning
    assert mbcore.exceptions.__all__ == ["LearnerWarning", "InconsistentOracleError"]
    assert mbref.exceptions.__all__ == mbcore.exceptions.__all__


@mod_param
def test_attributed_to_the_caller(modname):
    """The warning points at the line that called the learner, whichever way it was called."""
    m = MODS[modname]
    pts = rows(modname, PTS)
    calls = [lambda: vs_learner(modname, "SOA", {}).partial_fit(pts, LAB, classes=[0, 1]),
             lambda: vs_learner(modname, "Halving", {}).fit(pts, LAB),
             lambda: m.run_online(m.Conjunction(), rows(modname, XB), YC, classes=[-1, 1])]
    for call in calls:
        _, msgs, files = caught(call)
        assert len(msgs) == 1 and files == [__file__]


@mod_param
def test_pytest_warns_once(modname):
    clf = vs_learner(modname, "SOA", {})
    pts = rows(modname, PTS)
    with pytest.warns(MODS[modname].LearnerWarning, match=r"^SOA: ") as rec:
        for a in range(0, 6, 2):
            clf.partial_fit(pts[a:a + 2], LAB[a:a + 2], classes=[0, 1])
        # one more warning: a fit starts over.  Points 2, 1, 0 labelled 0: row 0 keeps {c0}
        # (V1 = {c1, c2} has Ldim 1, V0 = {c0} Ldim 0: 1, a mistake), row 1 empties it (c0(1) = 1)
        clf.fit(pts[3:], LAB[3:])
    assert [str(w.message)[:34] for w in rec] == ["SOA: no concept of the class is co"] * 2
    assert "example 2 left" in str(rec[0].message) and "example 1 left" in str(rec[1].message)
