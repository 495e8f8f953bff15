"""Crafted model files: a file whose digests are consistent is still untrusted.

Whoever can write a file can recompute its SHA-256 digests, so the digests prove nothing about
a file from elsewhere.  This suite takes a saved file of every learner (every class, nested
learners, concept classes) and changes it as an attacker would, one thing at a time, always
with the digests recomputed: every array's shape (shorter, longer, empty, another number of
dimensions), its dtype, its values (zeros, -1, the extremes of the dtype, NaN and infinity,
random indices, a permutation), every integer and string of the JSON state, every parameter,
the labels.  The digests are computed from the format's description (module docstring of
``mbcore.persistence``; ``write_file`` in _persistence_cases.py), not with the library's own
functions.

Each crafted file is then loaded **in a child process** (so that a crash fails the test instead
of killing the run; CI also runs this file under AddressSanitizer, which reports a write or read
outside an array even where it would not crash), and, if the load accepts it, used: predict,
decision_function, partial_fit on valid data and save.  What must hold:

* the child never dies;
* ``load`` either returns a learner or raises ``FormatError`` (never another exception);
* a learner that ``load`` accepted works: its calls on valid data return, or raise a
  ValueError / TypeError that names the class (e.g. an overflow of weights the file set to
  1e308), never IndexError, KeyError, OverflowError, MemoryError, SystemError or a crash;
* a change of an array's shape or dtype is always refused (no kernel ever sees it).

Separately: the size limits (an entry that inflates past ``max_meta_bytes`` / ``max_bytes`` is
refused from its header, before it is read), and non-seekable streams longer than the limit.
"""

import copy
import io
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import textwrap
import zipfile

import numpy as np
import pytest

import mbcore
from mbcore.persistence import FormatError
from conftest import make, real_stream
from _cases import ADDITIVE, entry_id
# every learner outside the registry, and files written with consistent digests
from _persistence_cases import EXTRA, read_file, write_file

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

X, Y = real_stream(17, 60, 6)

# A few of the additive learners' cases (every class; the others differ only in parameters the
# JSON mutations below change anyway): these for the learners that existed, the first case of
# any other (tests/_cases.py), and every other learner.
_CHOSEN = ("Perceptron", "Perceptron(fit_intercept=True)", "MarginPerceptron(gamma=0.1)",
           "AveragedPerceptron(mode=average)", "AveragedPerceptron(mode=vote)",
           "KernelPerceptron(kernel=linear)", "KernelPerceptron(kernel=rbf,gamma=0.3,budget=5)",
           "OnlineHingeSVM(lam=0.1)", "PassiveAggressive(variant=PA,fit_intercept=True)")
_CHOSEN_CLASSES = {i.split("(")[0] for i in _CHOSEN}
LINEAR = [e for e in ADDITIVE if entry_id(e) in _CHOSEN] + \
    [e for k, e in enumerate(ADDITIVE) if e[0] not in _CHOSEN_CLASSES
     and all(f[0] != e[0] for f in ADDITIVE[:k])]
LEARNERS = [(entry_id(e), (lambda e=e: make(mbcore, e)), (lambda: (X, Y, {})))
            for e in LINEAR] + [e for e in EXTRA if e[0] != "Winnow-str-labels"]
IDS = [e[0] for e in LEARNERS]


def test_every_class_is_crafted():
    from mbcore.persistence import _classes
    assert {e[0].split("-")[0].split("(")[0] for e in LEARNERS} == set(_classes())


# ------------------------------------------------------------------------------------------------
# Mutations
# ------------------------------------------------------------------------------------------------

_DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8, np.uint64, np.bool_]


def shape_mutations(a):
    n = a.shape[0] if a.ndim else 1
    out = [("empty", a.reshape(-1)[:0]), ("one", a.reshape(-1)[:1]),
           ("2-D", a.reshape(1, -1) if a.ndim == 1 else a.reshape(-1)),
           ("longer", np.concatenate([a, a[:1] if n else np.zeros((1,) + a.shape[1:], a.dtype)])),
           ("much-longer", np.concatenate([a] * 3 + [a[:1]]) if n else
            np.zeros((9,) + a.shape[1:], a.dtype))]
    if n > 1:
        out.append(("shorter", a[:-1]))
    if a.ndim == 2 and a.shape[1] > 0:
        out.append(("narrower", a[:, :-1]))
        out.append(("wider", np.concatenate([a, a[:, :1]], axis=1)))
    return [(k, np.ascontiguousarray(v)) for k, v in out if v.shape != a.shape]


def dtype_mutations(a):
    out = []
    for dt in _DTYPES:
        if np.dtype(dt) == a.dtype or a.dtype.kind in "US":
            continue
        with np.errstate(all="ignore"):
            out.append((f"as-{np.dtype(dt).name}", a.astype(dt)))
    if a.dtype.itemsize > 1 and a.dtype.kind in "iuf":
        out.append(("byteswapped", a.astype(a.dtype.newbyteorder())))
    return out


def value_mutations(a, rng):
    if a.size == 0 or a.dtype.kind not in "biuf":
        return []
    out = [("zeros", np.zeros_like(a)), ("reversed", a[::-1].copy())]
    if a.dtype.kind == "b":
        return out + [("ones", np.ones_like(a))]
    info = np.finfo(a.dtype) if a.dtype.kind == "f" else np.iinfo(a.dtype)
    out += [("max", np.full_like(a, info.max)), ("min", np.full_like(a, info.min))]
    if a.dtype.kind in "if":
        out.append(("minus-one", np.full_like(a, -1)))
    if a.dtype.kind == "f":
        out += [("nan", np.full_like(a, np.nan)), ("inf", np.full_like(a, np.inf)),
                ("-inf", np.full_like(a, -np.inf)), ("huge", np.full_like(a, 1e300)),
                ("tiny", np.full_like(a, 5e-324)), ("half", a / 2.0)]
    lo = -3 if a.dtype.kind != "u" else 0
    hi = max(8, 3 * a.size)
    out.append(("random-indices", rng.integers(lo, hi, a.shape).astype(a.dtype)))
    out.append(("one-big", _poke(a, info.max)))
    out.append(("plus-one", (a + 1).astype(a.dtype) if a.dtype.kind != "f" else a + 1.0))
    if a.ndim == 1 and a.size > 1:
        out.append(("permuted", a[rng.permutation(a.size)]))
    return out


def _poke(a, v):
    b = a.copy()
    b.reshape(-1)[-1] = v
    return b


def json_mutations(x):
    """Replacements for one JSON scalar of the state or the parameters."""
    if isinstance(x, bool):
        return [not x, 0, "yes", None]
    if isinstance(x, int):
        return [x + 1, x - 1, -1, 0, 2 ** 31, 2 ** 63 - 1, -2 ** 63, 2 ** 70, float(x) + 0.5,
                str(x), None, True]
    if isinstance(x, float):
        return [-x, 0.0, 1e308, -1e308, {"$": "float", "v": "nan"}, {"$": "float", "v": "inf"},
                int(x) if abs(x) < 1e18 else 0, "x", None]
    if isinstance(x, str):
        return ["", x + "?", 0, None]
    if x is None:
        return [0, -1, 1, 2 ** 40, "None", []]
    return []


def walk_json(node, path=()):
    """(path, value) of every scalar in a JSON learner document, except array references and
    the class names."""
    if isinstance(node, dict):
        if node.get("$") == "array":
            return
        for k, v in node.items():
            if k in ("$", "class", "key"):
                continue
            yield from walk_json(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_json(v, path + (i,))
    else:
        yield path, node


def set_path(doc, path, value):
    doc = copy.deepcopy(doc)
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def crafted_files(data, seed):
    """Every crafted variant of one saved file: (description, bytes, must_refuse)."""
    rng = np.random.default_rng(seed)
    meta, arrays = read_file(data)
    out = []
    for key, a in arrays.items():
        for what, b in shape_mutations(a) + dtype_mutations(a):
            # What may change shape or dtype and still be a state some run reaches: the same
            # values in the other byte order (a file written on a big-endian machine), labels
            # of another dtype or fewer of them, a hash-key buffer of another capacity
            # (PairSpecialists grows it), a concept class over more or fewer points.
            must = not (what == "byteswapped" or
                        key.endswith("classes_") and what != "one" or
                        key.endswith(("/_keys", "concepts/cols")) and what in (
                            "shorter", "longer", "much-longer"))
            out.append((f"{key}:{what}", write_file(meta, dict(arrays, **{key: b})), must))
        values = value_mutations(a, rng)
        if key.startswith("params/experts/"):
            # a nested learner's own class is crafted on its own: here a sample of its values
            # (every shape and dtype change is kept, to reach the nested reader's checks)
            values = values[::3]
        for what, b in values:
            out.append((f"{key}:{what}", write_file(meta, dict(arrays, **{key: b})), False))
    for path, x in walk_json(meta["learner"]):
        changes = json_mutations(x)
        if "experts" in path:
            changes = changes[::3]
        for v in changes:
            doc = set_path(meta["learner"], path, v)
            out.append((f"{'/'.join(map(str, path))}={v!r}",
                        write_file(dict(meta, learner=doc), arrays), False))
    # an array referred to from another attribute, and the labels grown or shrunk
    state = meta["learner"].get("state") or {}
    refs = [k for k, v in state.items() if isinstance(v, dict) and v.get("$") == "array"]
    if len(refs) >= 2:
        doc = set_path(meta["learner"], ("state", refs[0]), state[refs[1]])
        out.append((f"state/{refs[0]}->{refs[1]}", write_file(dict(meta, learner=doc), {
            k: a for k, a in arrays.items() if k != state[refs[0]]["key"]}), True))
    if "state/classes_" in arrays:
        c = arrays["state/classes_"]
        out.append(("classes_:one", write_file(meta, dict(arrays, **{
            "state/classes_": c[:1]})), True))
        if c.dtype.kind in "iuf":
            out.append(("classes_:three", write_file(meta, dict(arrays, **{
                "state/classes_": np.concatenate([c, [c.max() + 1]]).astype(c.dtype)})), False))
    return out


# ------------------------------------------------------------------------------------------------
# The child process that loads and uses the files
# ------------------------------------------------------------------------------------------------

CHILD = r"""
import io, json, pickle, sys, traceback
import numpy as np
import mbcore
from mbcore.persistence import FormatError

def use(clf, A, y, extra):
    # Valid data of the learner's own kind, cut to the loaded learner's feature count where the
    # data has columns (the file may claim another count; then the calls must refuse cleanly).
    calls = []
    kw = {k: v for k, v in extra.items() if k != "classes"}
    sub = {k: (v[:8] if k == "awake" else v) for k, v in kw.items()}
    for name in ("predict", "decision_function"):
        f = getattr(clf, name, None)
        if f is not None:
            calls.append((name, lambda f=f: f(A[:8], **sub)))
    calls.append(("partial_fit", lambda: clf.partial_fit(A, y, **kw)))
    calls.append(("predict-after", lambda: clf.predict(A[:8], **sub)))
    calls.append(("save", lambda: clf.save(io.BytesIO())))
    out = []
    for name, call in calls:
        try:
            call()
            out.append([name, "ok", ""])
        except (ValueError, TypeError) as exc:
            out.append([name, type(exc).__name__, str(exc)[:300]])
        except Exception as exc:
            out.append([name, "BAD " + type(exc).__name__, str(exc)[:300]])
    return out

manifest = json.load(open(sys.argv[1]))
start = int(sys.argv[2])
datasets = {}
for i in range(start, len(manifest)):
    case = manifest[i]
    print("B", i, flush=True)
    if case["data"] not in datasets:
        with open(case["data"], "rb") as f:
            datasets[case["data"]] = pickle.load(f)
    A, y, extra = datasets[case["data"]]
    with open(case["file"], "rb") as f:
        blob = f.read()
    try:
        clf = mbcore.load(io.BytesIO(blob))
    except FormatError as exc:
        res = {"load": "refused", "msg": str(exc)[:300]}
    except BaseException as exc:
        res = {"load": "BAD " + type(exc).__name__, "msg": str(exc)[:300]}
    else:
        res = {"load": "accepted", "calls": use(clf, A, y, extra)}
    print("R", i, json.dumps(res), flush=True)
print("DONE", flush=True)
"""


def run_children(manifest_path, n_cases, timeout=600):
    """Run the child over every case, restarting it after a crash; returns {case: result}
    with {"load": "CRASH <code>"} for the case a child died in."""
    results = {}
    start = 0
    with tempfile.TemporaryDirectory() as where:       # not the source tree (see conftest)
        while start < n_cases:
            proc = subprocess.run([sys.executable, "-c", CHILD, manifest_path, str(start)],
                                  capture_output=True, text=True, cwd=where, timeout=timeout,
                                  env=os.environ.copy())
            current = None
            for line in proc.stdout.splitlines():
                if line.startswith("B "):
                    current = int(line.split()[1])
                elif line.startswith("R "):
                    _, i, payload = line.split(" ", 2)
                    results[int(i)] = json.loads(payload)
                    current = None
            if proc.returncode == 0 and "DONE" in proc.stdout:
                break
            if current is None:        # died between cases (or before the first)
                raise AssertionError(f"the child failed outside any case (exit "
                                     f"{proc.returncode}):\n{proc.stderr[-3000:]}")
            results[current] = {"load": f"CRASH {proc.returncode}",
                                "msg": proc.stderr[-3000:]}
            start = current + 1
    return results


def _fit(mk, data):
    A, y, extra = data()
    clf = mk()
    clf.partial_fit(A, y, **extra)
    return clf, (A, y, extra)


LEARNER_MESSAGE = re.compile("^(" + "|".join(
    n for n in mbcore.__all__ if isinstance(getattr(mbcore, n), type)) + "): ")


# the pool of a pool (about 18 s of child processes, a fifth of the module) is a long run
# (pytest -m longrun, which CI runs); the plain pytest crafts the one-level pool's files
# (and the one-level pool of Weighted Majority, 7.6 s, the pair specialists, 2.7 s, and the
# conservative Halving, 2.6 s: their siblings WeightedMajority, Specialists, Halving stay)
_LONG = ("RandomizedWeightedMajority-experts", "WeightedMajority-experts", "PairSpecialists",
         "Halving-conservative")


@pytest.mark.parametrize("name, mk, data", [
    pytest.param(*e, id=e[0], marks=[pytest.mark.longrun] if e[0] in _LONG else [])
    for e in LEARNERS])
def test_crafted_files_never_crash_and_are_refused_or_work(name, mk, data, tmp_path):
    clf, (A, y, extra) = _fit(mk, data)
    saved = io.BytesIO()
    clf.save(saved)
    cases = crafted_files(saved.getvalue(), seed=len(name))
    assert len(cases) > 40
    data_path = tmp_path / "data.pkl"
    with open(data_path, "wb") as f:
        pickle.dump((A, y, extra), f)
    manifest = []
    for i, (what, blob, _) in enumerate(cases):
        p = tmp_path / f"case{i}.npz"
        p.write_bytes(blob)
        manifest.append({"what": what, "file": str(p), "data": str(data_path)})
    mpath = tmp_path / "manifest.json"
    mpath.write_text(json.dumps(manifest))
    results = run_children(str(mpath), len(manifest))

    problems = []
    accepted = 0
    for i, (what, _, must_refuse) in enumerate(cases):
        r = results.get(i)
        if r is None:
            problems.append(f"{what}: no result")
            continue
        if r["load"].startswith(("CRASH", "BAD")):
            problems.append(f"{what}: load -> {r['load']}: {r.get('msg', '')[:500]}")
            continue
        if r["load"] == "refused":
            assert "is not a valid mbcore learner file" in r["msg"], r["msg"]
            continue
        accepted += 1
        if must_refuse:
            problems.append(f"{what}: a change of shape or dtype was accepted")
        for call, outcome, msg in r["calls"]:
            if outcome.startswith("BAD"):
                problems.append(f"{what}: {call} -> {outcome}: {msg}")
            elif outcome != "ok" and not LEARNER_MESSAGE.match(msg):
                # (a nested expert's error names the expert's class)
                problems.append(f"{what}: {call} -> {outcome} not naming a class: {msg}")
    assert not problems, f"{len(problems)} of {len(cases)} crafted files:\n" + \
        "\n".join(problems[:40])
    # the unchanged parts of the format still load (the mutations are not all refused blindly)
    assert accepted > 0


# ------------------------------------------------------------------------------------------------
# Size limits
# ------------------------------------------------------------------------------------------------

def _saved_perceptron():
    buf = io.BytesIO()
    mbcore.Perceptron().partial_fit(X, Y).save(buf)
    return buf.getvalue()


def test_inflating_json_document_is_refused_from_its_header():
    """A 130 KB file whose JSON document inflates to 128 MB is refused before it is read."""
    meta, arrays = read_file(_saved_perceptron())
    meta["padding"] = " " * (128 << 20)
    data = write_file(meta, arrays, compress=True)
    assert len(data) < 1 << 20
    code = textwrap.dedent(f"""
        import io, resource, sys
        import mbcore
        from mbcore.persistence import FormatError
        data = open(sys.argv[1], "rb").read()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            mbcore.load(io.BytesIO(data))
        except FormatError as exc:
            print("refused", exc)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print("grew_kb", after - before)
    """)
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "big-meta.npz")
        with open(path, "wb") as f:
            f.write(data)
        proc = subprocess.run([sys.executable, "-c", code, path], capture_output=True,
                              text=True, cwd=where, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "refused" in proc.stdout and "max_meta_bytes" in proc.stdout, proc.stdout
    grew = int(proc.stdout.split("grew_kb")[1])
    assert grew < 32 * 1024, proc.stdout         # far below the 128 MB the entry claims
    # a caller who trusts the file may raise the limit
    clf = mbcore.load(io.BytesIO(data), max_meta_bytes=256 << 20)
    assert isinstance(clf, mbcore.Perceptron)


def test_total_size_limit_is_checked_before_reading():
    data = _saved_perceptron()
    meta, arrays = read_file(data)
    with np.load(io.BytesIO(data)) as npz:
        need = sum(npz[k].nbytes for k in npz.files)       # the document and the arrays
    with pytest.raises(FormatError, match="max_bytes"):
        mbcore.load(io.BytesIO(data), max_bytes=need - 1)
    assert isinstance(mbcore.load(io.BytesIO(data), max_bytes=need), mbcore.Perceptron)
    assert isinstance(mbcore.load(io.BytesIO(data), max_bytes=1 << 20), mbcore.Perceptron)
    # an array entry whose header claims far more than the table says
    big = np.zeros(1 << 22)          # 32 MiB of zeros compress to a few KB
    entries = {k: a for k, a in arrays.items()}
    entries["state/_w"] = big
    buf = io.BytesIO()
    np.savez_compressed(buf, __meta__=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                        **entries)
    with pytest.raises(FormatError, match="larger"):
        mbcore.load(io.BytesIO(buf.getvalue()))
    # and a crafted table claiming the big array is refused by the total limit
    with pytest.raises(FormatError, match="max_bytes"):
        mbcore.load(io.BytesIO(write_file(meta, entries)), max_bytes=1 << 20)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "1", True])
def test_limits_are_checked(bad):
    with pytest.raises(ValueError, match="max_bytes"):
        mbcore.load(io.BytesIO(_saved_perceptron()), max_bytes=bad)
    with pytest.raises(ValueError, match="max_meta_bytes"):
        mbcore.Perceptron.load(io.BytesIO(_saved_perceptron()), max_meta_bytes=bad)


class _Stream(io.RawIOBase):
    """A non-seekable stream of ``n`` bytes of a valid file followed by endless zeros."""

    def __init__(self, head, endless=False):
        self.head, self.pos, self.endless = head, 0, endless

    def readable(self):
        return True

    def seekable(self):
        return False

    def read(self, n=-1):
        if n is None or n < 0:
            if self.endless:
                raise AssertionError("load read an endless stream without a limit")
            n = len(self.head) - self.pos
        chunk = self.head[self.pos:self.pos + n]
        self.pos += len(chunk)
        if self.endless and len(chunk) < n:
            chunk += bytes(n - len(chunk))
        return chunk


def test_non_seekable_streams_are_read_within_the_limit():
    data = _saved_perceptron()
    assert isinstance(mbcore.load(_Stream(data)), mbcore.Perceptron)
    with pytest.raises(FormatError, match="max_bytes"):
        mbcore.load(_Stream(data, endless=True), max_bytes=1 << 16)
