"""Safe persistence: save a learner to an ``.npz`` file that needs no pickle, and load it back.

``learner.save(file)`` writes one NumPy ``.npz`` archive (uncompressed by default,
``compress=True`` for ``np.savez_compressed``); ``mbcore.load(file)`` (or ``Cls.load(file)``,
which also checks the class) reads it with ``np.load(allow_pickle=False)``.  The loaded learner
continues bit for bit like the one that was saved: the same predictions, mistakes, updates and
state on any further data.  Pickle keeps working as before; this format is for files that may
come from elsewhere: loading one never runs code from it and never imports a name from it.

The format (``FORMAT_NAME`` = "mbcore.learner", ``FORMAT_VERSION`` = 1)
-----------------------------------------------------------------------
Entries of the archive:

* ``__meta__``: a 1-D uint8 array holding a UTF-8 JSON document (below);
* one entry per NumPy array of the learner's state, named by where it sits: ``state/_w``,
  ``state/_votes/0``, ``params/concepts/cols``, ``params/experts/1/state/_l``, ...  Only
  numeric, bool and fixed-width string arrays are stored (never object arrays).

The JSON document::

    {"format": "mbcore.learner", "format_version": 1,
     "mbcore_version": "0.1.0", "numpy_version": "2.4.6",
     "learner": {"class": "Perceptron",
                 "params": {"eta": 1.0, "tie": "negative", ...},
                 "state": {"_w": {"$": "array", "key": "state/_w"}, "_d": 6, ...} or null},
     "arrays": {"state/_w": {"dtype": "<f8", "shape": [6], "sha256": "..."}, ...},
     "digest": "sha256:..."}

``state`` is null for an unfitted learner (parameters only).  Values are JSON numbers, strings,
booleans, null and lists, or one of these tagged objects (the tag is the key ``"$"``):
``array`` (an archive entry), ``float`` (nan, inf, -inf), ``tuple``, ``scalar`` (a NumPy scalar
with its dtype), ``objects`` (an object array of JSON-able values, e.g. mixed labels),
``learner`` (a nested learner, e.g. the experts of WeightedMajority, stored the same way with its
arrays under its own prefix) and ``ConceptClass`` (the bitset table as an array, plus
``n_concepts``, ``points`` and ``name``).  Each array's ``sha256`` covers its dtype, shape and
bytes; ``digest`` is the SHA-256 of the JSON document itself (without ``digest``, keys sorted,
compact separators), so a changed byte anywhere is detected.  The digests detect corruption and
tampering by accident; they are not a signature (whoever can write the file can recompute
them): safety against a malicious file comes from the format (no pickle, a fixed list of
classes, no names imported) and from the checks below.

Loading checks, in order: the archive (a valid zip of ``.npy`` entries, no pickled data), the
``__meta__`` entry and its JSON, the format name and version (a newer version is refused with a
message to upgrade mbcore), the digests, that the entries are exactly those listed, that each
array has the dtype and shape declared, the class (one of mbcore's learners, looked up in a
fixed table; ``Cls.load`` also requires an instance of ``Cls``), the parameter names, the names
and types of the state attributes, and the state's consistency (array shapes against
``n_features_in_`` and the parameters, derived values recomputed from the parameters, index
ranges of the bitsets and hash tables the kernels trust, then the learner's own parameter
validation).  Every failure raises :class:`FormatError` (a ValueError) naming the file; a
missing file raises the usual OSError.

What is stored, per learner
---------------------------
* Perceptron, AveragedPerceptron (its list of vote arrays), MarginPerceptron, OnlineHingeSVM,
  KernelPerceptron, Winnow, EliminationWinnow, WinnowStar, BalancedWinnow, Conjunction,
  Disjunction, DecisionList, Specialists: every state array and scalar as it is.
* WeightedMajority, RandomizedWeightedMajority: the weights, mistake counts and the random
  generator's state (a splitmix64 uint64 word, stored exactly, so the draws continue).
  ``experts=[...]`` of mbcore learners are saved structurally, each as a nested learner;
  experts that are not mbcore learners (any other object) are refused (TypeError naming the
  class, the parameter and the expert), and so is a pool that holds the same learner twice.
* PairSpecialists: its state arrays and the categories seen per attribute
  (``_cat_values``: values must be JSON-able: str, int, float, bool, None, NumPy scalars or
  tuples of these; anything else is refused); the value -> code dictionaries are rebuilt.
* Halving, SOA: the ConceptClass parameter is stored structurally (its bitset table as an
  array, ``n_concepts``, ``points``, ``name``); the learner's link to it and SOA's memo of
  Littlestone dimensions are rebuilt.
* Derived caches are never stored and are rebuilt on demand: the kernels' bound state
  (``_kstate``), the one-row fast path (``_fast``), label buffers, ConceptClass point indexes.
* ``classes_`` is stored as an array (numbers, bools, strings); object labels are stored as
  JSON values when they are str, int, float or bool, and refused otherwise.

A learner with an attribute the format does not know (set by hand), a subclass defined
outside mbcore, or a fitted learner whose parameters no longer pass its validation, is refused
by ``save`` with a message saying why (pickle may still store it).

``file`` may be a path (str or os.PathLike; written exactly at that path, through a temporary
file in the same directory and an atomic rename, so an interrupted save never leaves a
truncated file behind) or a binary file object (open for writing / reading; a non-seekable one
is read into memory first).

Examples
--------
A Perceptron saved half-way through the mushrooms and loaded goes on exactly as the one that
never stopped:

>>> import io
>>> import mbcore
>>> from mbcore.datasets import load_mushrooms
>>> X, y = load_mushrooms()
>>> clf = mbcore.Perceptron().partial_fit(X[:4000], y[:4000])
>>> buf = io.BytesIO()
>>> clf.save(buf)
>>> _ = buf.seek(0)
>>> again = mbcore.load(buf)
>>> a = mbcore.run_online(clf, X[4000:], y[4000:])
>>> b = mbcore.run_online(again, X[4000:], y[4000:])
>>> a.mistakes == b.mistakes, bool((clf.coef_ == again.coef_).all())
(True, True)
>>> mbcore.Winnow.load(io.BytesIO(buf.getvalue()))
Traceback (most recent call last):
...
mbcore.persistence.FormatError: <BytesIO> is not a valid mbcore learner file: it holds a ...
"""

import copy
import hashlib
import io
import json
import math
import numbers
import os
import secrets

import numpy as np

__all__ = ["save", "load", "FormatError", "FORMAT_NAME", "FORMAT_VERSION", "MAX_LOAD_BYTES",
           "MAX_META_BYTES"]

FORMAT_NAME = "mbcore.learner"
FORMAT_VERSION = 1
_META = "__meta__"
_MAX_DEPTH = 32                       # nested learners / values
MAX_META_BYTES = 16 << 20            # the JSON document: 16 MiB by default
MAX_LOAD_BYTES = 4 << 30             # all entries of one file, inflated: 4 GiB by default
_ZIP_SLACK = 1 << 20                 # zip and .npy headers beyond the arrays' bytes
_ARRAY_KINDS = "biufUS"
_BASE_SKIP = frozenset(("_kstate", "_fast", "_y1"))
_FIT_ATTRS = ("converged_", "cycled_", "n_iter_", "epoch_mistakes_", "epoch_updates_")


class FormatError(ValueError):
    """A file that is not a valid mbcore learner file (or not one of the expected class)."""


class _Bad(Exception):
    """Internal: a check failed while reading (turned into FormatError naming the file)."""


# ------------------------------------------------------------------------------------------------
# The learner classes (a fixed table: nothing is ever imported by a name read from a file)
# ------------------------------------------------------------------------------------------------

_TABLE = None


def _classes():
    global _TABLE
    if _TABLE is None:
        from . import boolean, experts, linear, multiplicative, version_space
        table = {}
        for mod, names in ((linear, linear.__all__), (multiplicative, multiplicative.__all__),
                           (experts, experts.__all__), (boolean, ("Conjunction", "Disjunction",
                                                                  "DecisionList")),
                           (version_space, ("Halving", "SOA"))):
            for n in names:
                table[n] = getattr(mod, n)
        _TABLE = table
    return _TABLE


def _derived(cls):
    """Attributes that are rebuilt on load, not stored."""
    n = cls.__name__
    if n in ("Halving", "SOA"):
        return frozenset(("_fitted_concepts", "_ldim"))
    if n == "PairSpecialists":
        return frozenset(("_cats",))
    return frozenset()


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------

def _array_digest(a):
    h = hashlib.sha256()
    h.update(a.dtype.str.encode("ascii"))
    h.update(b"|")
    h.update(json.dumps(list(a.shape)).encode("ascii"))
    h.update(b"|")
    h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _meta_digest(meta):
    body = {k: v for k, v in meta.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False,
                      ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.learners = []          # (id, path) of the learners written, for shared objects

    def learner(self, obj, prefix, depth):
        from .base import OnlineLearner
        cls = type(obj)
        name = cls.__name__
        if _classes().get(name) is not cls:
            raise TypeError(f"{name}.save: only mbcore's own learner classes can be saved in the "
                            f"safe format ({cls.__module__}.{cls.__qualname__} is not one of "
                            "them); use pickle for it")
        if depth > _MAX_DEPTH:
            raise ValueError(f"{name}.save: learners nested more than {_MAX_DEPTH} deep")
        for other_id, where in self.learners:
            if other_id == id(obj):
                raise ValueError(f"{name}.save: the same {name} object is held twice "
                                 f"({where or 'the learner itself'} and {prefix}); the format "
                                 "stores each learner once, so the copies would come back "
                                 "separate: use distinct learners")
        self.learners.append((id(obj), prefix))
        params = {}
        for k in cls._get_param_names():
            params[k] = self.value(getattr(obj, k), f"{prefix}params/{k}", name,
                                   f"parameter {k}", depth)
        state = None
        if obj._is_fitted():
            try:
                copy.copy(obj)._validate_params()     # (on a copy: it may set gamma_ etc.)
            except ValueError as exc:
                raise ValueError(f"{name}.save: the fitted learner's parameters are not valid "
                                 f"({exc}); fix them first") from None
            skip = _BASE_SKIP | OnlineLearner._FOREIGN_ATTRS | _derived(cls) | \
                frozenset(cls._get_param_names())
            allowed = _spec(cls)
            state = {}
            for k, v in obj.__dict__.items():
                if k in skip:
                    continue
                if k not in allowed and k not in _FIT_ATTRS:
                    raise ValueError(f"{name}.save: attribute {k!r} is not part of {name}'s "
                                     "state, and the safe format stores nothing else (delete "
                                     "it, or use pickle)")
                state[k] = self.value(v, f"{prefix}state/{k}", name, f"attribute {k}", depth)
        return {"class": name, "params": params, "state": state}

    def value(self, v, path, owner, what, depth):
        from .base import OnlineLearner
        from .version_space import ConceptClass
        if depth > _MAX_DEPTH:
            raise ValueError(f"{owner}.save: {what} is nested more than {_MAX_DEPTH} deep")
        if v is None or type(v) in (bool, str, int):
            return v
        if type(v) is float:
            return v if math.isfinite(v) else {"$": "float", "v": repr(v)}
        if isinstance(v, np.ndarray):
            if v.dtype.kind in _ARRAY_KINDS and v.dtype.fields is None:
                self.arrays[path] = v
                return {"$": "array", "key": path}
            if v.dtype.kind == "O":
                flat = v.ravel().tolist()
                for x in flat:
                    if not (x is None or type(x) in (bool, str, int, float) or
                            (isinstance(x, np.generic) and x.dtype.kind in _ARRAY_KINDS)):
                        raise TypeError(f"{owner}.save: {what} holds a {type(x).__name__} in an "
                                        "object array; the safe format stores object arrays "
                                        "(e.g. labels) of str, int, float, bool and None only")
                items = [self.value(x, f"{path}/{i}", owner, what, depth + 1)
                         for i, x in enumerate(flat)]
                return {"$": "objects", "shape": list(v.shape), "items": items}
            raise TypeError(f"{owner}.save: {what} is an array of dtype {v.dtype}, which the "
                            "safe format cannot store")
        if isinstance(v, np.generic):
            if v.dtype.kind in _ARRAY_KINDS:
                item = v.item()
                if isinstance(item, bytes):
                    item = item.hex()
                return {"$": "scalar", "dtype": v.dtype.str,
                        "v": self.value(item, path, owner, what, depth + 1)}
            raise TypeError(f"{owner}.save: {what} holds a NumPy {v.dtype} scalar, which the "
                            "safe format cannot store")
        if type(v) is list:
            return [self.value(x, f"{path}/{i}", owner, what, depth + 1) for i, x in enumerate(v)]
        if type(v) is tuple:
            return {"$": "tuple", "items": [self.value(x, f"{path}/{i}", owner, what, depth + 1)
                                            for i, x in enumerate(v)]}
        if isinstance(v, OnlineLearner):
            out = self.learner(v, path + "/", depth + 1)
            out["$"] = "learner"
            return out
        if type(v) is ConceptClass:
            cols = v._cols
            if not (isinstance(cols, np.ndarray) and cols.dtype == np.uint64 and cols.ndim == 2):
                raise TypeError(f"{owner}.save: {what} is a ConceptClass whose table is not a "
                                "2-D uint64 array")
            return {"$": "ConceptClass",
                    "cols": self.value(cols, f"{path}/cols", owner, what, depth + 1),
                    "n_concepts": int(v.n_concepts),
                    "points": self.value(v.points, f"{path}/points", owner, what, depth + 1),
                    "name": self.value(v.name, f"{path}/name", owner, what, depth + 1)}
        raise TypeError(f"{owner}.save: {what} holds a {type(v).__module__}."
                        f"{type(v).__qualname__} object, which the safe format cannot store "
                        "(it stores numbers, strings, bools, None, lists, tuples, NumPy arrays "
                        "and scalars, ConceptClass and mbcore learners); use pickle for it")


def _check_no_aliasing(arrays, owner):
    items = [(k, a) for k, a in arrays.items() if a.size]
    for i, (k1, a1) in enumerate(items):
        for k2, a2 in items[i + 1:]:
            if np.may_share_memory(a1, a2):
                raise ValueError(f"{owner}.save: {k1} and {k2} share memory; the format stores "
                                 "them separately, so the learner would not come back the same")


def _document(learner):
    from . import __version__
    w = _Writer()
    body = w.learner(learner, "", 0)
    _check_no_aliasing(w.arrays, type(learner).__name__)
    meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
            "mbcore_version": __version__, "numpy_version": np.__version__,
            "learner": body,
            "arrays": {k: {"dtype": a.dtype.str, "shape": list(a.shape),
                           "sha256": _array_digest(a)} for k, a in w.arrays.items()}}
    meta["digest"] = _meta_digest(meta)
    text = json.dumps(meta, allow_nan=False, ensure_ascii=True, indent=None)
    entries = {_META: np.frombuffer(text.encode("utf-8"), dtype=np.uint8)}
    entries.update((k, np.ascontiguousarray(a)) for k, a in w.arrays.items())
    return entries


def save(learner, file, *, compress=False):
    """Save ``learner`` to ``file`` (a path or a binary file object) in the safe format."""
    from .base import OnlineLearner
    if not isinstance(learner, OnlineLearner):
        raise TypeError(f"save: expected an mbcore learner, got {type(learner).__name__}")
    if not isinstance(compress, (bool, np.bool_)):
        raise TypeError(f"save: compress must be a bool, got {compress!r}")
    entries = _document(learner)
    writer = np.savez_compressed if compress else np.savez
    if hasattr(file, "write") and not isinstance(file, (str, bytes, os.PathLike)):
        writer(file, **entries)
        return
    path = os.fspath(file)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    folder, base = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp")
    # Created like open(path, "wb") would create it (mode 0o666 less the umask); an existing
    # file's mode is kept.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            writer(f, **entries)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------

def _no_constants(name):
    raise ValueError(f"the JSON holds {name}, which the format never writes")


class _Reader:
    def __init__(self, arrays):
        self.arrays = arrays        # key -> ndarray (checked against the digests)
        self.used = set()

    def value(self, v, depth):
        if depth > _MAX_DEPTH:
            raise _Bad(f"values nested more than {_MAX_DEPTH} deep")
        if v is None or isinstance(v, (bool, str, int, float)):
            return v
        if isinstance(v, list):
            return [self.value(x, depth + 1) for x in v]
        if not isinstance(v, dict):
            raise _Bad(f"unexpected JSON value of type {type(v).__name__}")
        tag = v.get("$")
        if tag == "array":
            key = v.get("key")
            if not isinstance(key, str) or key not in self.arrays:
                raise _Bad(f"the document refers to an array {key!r} that is not in the archive")
            if key in self.used:
                raise _Bad(f"the array {key!r} is referred to twice")
            self.used.add(key)
            return self.arrays[key]
        if tag == "float":
            s = v.get("v")
            if s not in ("nan", "inf", "-inf"):
                raise _Bad(f"bad special float {s!r}")
            return float(s)
        if tag == "tuple":
            items = v.get("items")
            if not isinstance(items, list):
                raise _Bad("a tuple without items")
            return tuple(self.value(x, depth + 1) for x in items)
        if tag == "scalar":
            try:
                dt = np.dtype(v.get("dtype"))
            except TypeError:
                raise _Bad(f"bad scalar dtype {v.get('dtype')!r}") from None
            if dt.kind not in _ARRAY_KINDS or dt.fields is not None:
                raise _Bad(f"bad scalar dtype {dt}")
            x = self.value(v.get("v"), depth + 1)
            if dt.kind == "S":
                if not isinstance(x, str):
                    raise _Bad("a bytes scalar that is not hex")
                x = bytes.fromhex(x)
            try:
                return np.array(x, dtype=dt)[()]
            except (TypeError, ValueError, OverflowError):
                raise _Bad(f"bad {dt} scalar {x!r}") from None
        if tag == "objects":
            shape, items = v.get("shape"), v.get("items")
            if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)
                    and isinstance(items, list) and len(items) == math.prod(shape)):
                raise _Bad("a malformed object array")
            vals = [self.value(x, depth + 1) for x in items]
            if any(isinstance(x, (list, tuple, np.ndarray)) for x in vals):
                raise _Bad("an object array holding containers")
            out = np.empty(len(vals), dtype=object)
            out[:] = vals
            return out.reshape(shape)
        if tag == "learner":
            return self.learner(v, depth + 1)
        if tag == "ConceptClass":
            return self.concepts(v, depth + 1)
        raise _Bad(f"unknown value tag {tag!r}")

    def concepts(self, v, depth):
        from .version_space import ConceptClass
        cols = self.value(v.get("cols"), depth)
        m, points, name = v.get("n_concepts"), self.value(v.get("points"), depth), \
            self.value(v.get("name"), depth)
        if not (isinstance(cols, np.ndarray) and cols.dtype == np.uint64 and cols.ndim == 2):
            raise _Bad("a ConceptClass table that is not a 2-D uint64 array")
        N, W = cols.shape
        if type(m) is not int or m < 1 or N < 1 or W != (m + 63) // 64:
            raise _Bad(f"a ConceptClass of {m!r} concepts with a table of shape {cols.shape}")
        if m % 64 and (cols[:, -1] >> np.uint64(m % 64)).any():
            raise _Bad("a ConceptClass table with bits set past the last concept")
        if not isinstance(name, str):
            raise _Bad("a ConceptClass name that is not a string")
        if points is not None:
            if not (isinstance(points, list) and len(points) == N and
                    all(isinstance(p, tuple) and len(p) == len(points[0]) and
                        all(type(x) is int for x in p) for p in points)):
                raise _Bad("ConceptClass points that are not one tuple of ints per point")
            if len(set(points)) != N:
                raise _Bad("ConceptClass points that repeat")
        return ConceptClass(np.ascontiguousarray(cols), m, points, name)

    def learner(self, v, depth, expected=None):
        if depth > _MAX_DEPTH:
            raise _Bad(f"learners nested more than {_MAX_DEPTH} deep")
        if not isinstance(v, dict):
            raise _Bad("the learner entry is not a JSON object")
        name = v.get("class")
        cls = _classes().get(name) if isinstance(name, str) else None
        if cls is None:
            raise _Bad(f"unknown learner class {name!r} (not one of mbcore's learners)")
        if expected is not None and not issubclass(cls, expected):
            raise _Bad(f"it holds a {name}, not a {expected.__name__}",)
        params, state = v.get("params"), v.get("state")
        names = cls._get_param_names()
        if not isinstance(params, dict) or sorted(params) != sorted(names):
            got = sorted(params) if isinstance(params, dict) else params
            raise _Bad(f"{name}: parameters {got!r} are not {name}'s {names!r}")
        kwargs = {k: self.value(params[k], depth + 1) for k in names}
        obj = cls(**kwargs)
        if state is None:
            return obj
        if not isinstance(state, dict):
            raise _Bad(f"{name}: the state is not a JSON object")
        spec = _spec(cls)
        values = {}
        for k, raw in state.items():
            if k in _FIT_ATTRS:
                check = _FIT_CHECKS[k]
            elif k in spec:
                check = spec[k]
            else:
                raise _Bad(f"{name}: unknown state attribute {k!r}")
            val = self.value(raw, depth + 1)
            problem = check(val)
            if problem:
                raise _Bad(f"{name}: state attribute {k} {problem}")
            values[k] = val
        missing = sorted(set(spec) - set(values))
        if missing:
            raise _Bad(f"{name}: the state lacks {missing}")
        fits = [k for k in _FIT_ATTRS if k in values]
        if fits and len(fits) != len(_FIT_ATTRS):
            raise _Bad(f"{name}: the state has some of fit's attributes ({fits}) but not all")
        obj.__dict__.update(values)
        obj._kstate = None
        obj._fast = None
        try:
            _consistent(obj, values)
            obj._validate_params()
        except _Bad:
            raise
        except (ValueError, TypeError, IndexError, KeyError, OverflowError) as exc:
            raise _Bad(f"{name}: inconsistent state ({exc})") from None
        return obj


def _open(file, limit):
    """(binary file object, display name, close?); a stream that cannot seek is read into
    memory, at most ``limit`` bytes of it."""
    if hasattr(file, "read") and not isinstance(file, (str, bytes, os.PathLike)):
        name = getattr(file, "name", None)
        name = repr(name) if isinstance(name, (str, bytes)) else f"<{type(file).__name__}>"
        try:
            seekable = file.seekable()
        except (AttributeError, OSError, ValueError):
            seekable = False
        if not seekable:
            data = file.read(limit + 1)
            if not isinstance(data, bytes):
                raise TypeError(f"load: {name} must be open in binary mode (it gave "
                                f"{type(data).__name__}, not bytes)")
            if len(data) > limit:
                raise FormatError(f"{name} is not a valid mbcore learner file: the stream is "
                                  f"longer than the {limit} bytes that max_bytes allows")
            return io.BytesIO(data), name, False
        return file, name, False
    path = os.fspath(file)
    return open(path, "rb"), repr(os.fsdecode(path)), True


def _limit(value, default, what):
    if value is None:
        return default
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or \
            int(value) < 1:
        raise ValueError(f"load: {what} must be a whole number of bytes >= 1 or None, got "
                         f"{value!r}")
    return int(value)


def load(file, expected=None, *, max_bytes=None, max_meta_bytes=None):
    """Load a learner saved by ``save`` (a path or a binary file object).

    ``expected``: a class the learner must be an instance of (``Cls.load`` passes ``Cls``).
    ``max_bytes``: the most that all the file's entries together may hold once inflated
    (default :data:`MAX_LOAD_BYTES`, 4 GiB); ``max_meta_bytes``: the most its JSON document
    may hold (default :data:`MAX_META_BYTES`, 16 MiB).  Sizes are checked from the entries'
    headers before anything is read or allocated, so a small file cannot make ``load``
    inflate more than these.  Raises :class:`FormatError` (a ValueError) naming the file for
    anything that is not a valid mbcore learner file of the expected class, or that is
    larger than the limits.
    """
    max_bytes = _limit(max_bytes, MAX_LOAD_BYTES, "max_bytes")
    max_meta = min(_limit(max_meta_bytes, MAX_META_BYTES, "max_meta_bytes"), max_bytes)
    f, name, close = _open(file, max_bytes + _ZIP_SLACK)
    try:
        return _load(f, name, expected, max_bytes, max_meta)
    finally:
        if close:
            f.close()


def _load(f, name, expected, max_bytes, max_meta):
    def bad(why):
        return FormatError(f"{name} is not a valid mbcore learner file: {why}")

    try:
        npz = np.load(f, allow_pickle=False)
    except Exception as exc:      # noqa: BLE001 - every way a file can fail to be an archive
        raise bad(f"not a NumPy .npz archive ({type(exc).__name__}: {exc})") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise bad("it is a single NumPy array (.npy), not an .npz archive")
    with npz:
        try:
            learner = _read(npz, expected, max_bytes, max_meta)
        except _Bad as exc:
            raise bad(str(exc)) from None
        except FormatError:
            raise
        except Exception as exc:      # noqa: BLE001 - truncation, zip and npy header errors
            raise bad(f"{type(exc).__name__}: {exc}") from None
    return learner


def _entry(npz, key, max_bytes, what="declared"):
    """Read one .npy entry without trusting it: the header is checked (never an object array,
    never more data than ``max_bytes``) before any data is read or any memory allocated."""
    name = key + ".npy"
    try:
        info = npz.zip.getinfo(name)
    except KeyError:
        raise _Bad(f"the entry {key!r} is not a .npy array") from None
    if info.file_size > max_bytes + 65536:
        raise _Bad(f"the entry {key!r} is larger ({info.file_size} bytes) than {what}")
    with npz.zip.open(name) as fp:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise _Bad(f"the entry {key!r} has an unsupported .npy version {version}")
        if dtype.hasobject:
            raise _Bad(f"the entry {key!r} is a pickled object array (refused unread: the "
                       "format never pickles)")
        if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.subdtype:
            raise _Bad(f"the entry {key!r} has dtype {dtype}, which the format never writes")
        nbytes = dtype.itemsize * math.prod(shape)
        if nbytes > max_bytes:
            raise _Bad(f"the entry {key!r} holds a {dtype} array of shape {shape}, larger than "
                       f"{what}")
        data = fp.read(nbytes)
        if len(data) != nbytes:
            raise _Bad(f"the entry {key!r} is truncated")
        if fp.read(1):
            raise _Bad(f"the entry {key!r} has bytes past its array")
    a = np.frombuffer(data, dtype=dtype)
    a = a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
    return np.array(a, order="C")


def _read(npz, expected, max_bytes, max_meta):
    files = list(npz.files)
    if _META not in files:
        raise _Bad(f"no {_META} entry (the archive holds {files[:8]!r})")
    raw = _entry(npz, _META, max_meta,
                 f"max_meta_bytes ({max_meta} bytes; raise it with load(..., max_meta_bytes=N) "
                 "for a file you trust)")
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _Bad(f"the {_META} entry is not a 1-D uint8 array")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _Bad(f"the {_META} entry is not valid JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise _Bad(f"the {_META} document is not a JSON object")
    if meta.get("format") != FORMAT_NAME:
        raise _Bad(f"the format is {meta.get('format')!r}, not {FORMAT_NAME!r}")
    version = meta.get("format_version")
    if type(version) is not int or version < 1:
        raise _Bad(f"bad format version {version!r}")
    if version > FORMAT_VERSION:
        raise _Bad(f"it was written in format version {version} (by mbcore "
                   f"{meta.get('mbcore_version')!r}); this mbcore reads versions up to "
                   f"{FORMAT_VERSION}: upgrade mbcore to load it")
    if meta.get("digest") != _meta_digest(meta):
        raise _Bad(f"the digest of the {_META} document does not match (the file was changed "
                   "or damaged)")
    table = meta.get("arrays")
    if not isinstance(table, dict):
        raise _Bad("no array table")
    present = set(files) - {_META}
    if set(table) != present:
        missing, extra = sorted(set(table) - present), sorted(present - set(table))
        raise _Bad((f"missing entries {missing[:5]!r}" if missing else "") +
                   (" and " if missing and extra else "") +
                   (f"unexpected entries {extra[:5]!r}" if extra else ""))
    declared = {}
    total = raw.nbytes
    for key, info in table.items():
        if not isinstance(info, dict):
            raise _Bad(f"bad description of array {key!r}")
        try:
            dt = np.dtype(info.get("dtype"))
        except TypeError:
            raise _Bad(f"array {key!r} has a bad dtype {info.get('dtype')!r}") from None
        shape = info.get("shape")
        if dt.kind not in _ARRAY_KINDS or dt.fields is not None or not (
                isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
            raise _Bad(f"array {key!r} is declared as {dt} {shape!r}")
        declared[key] = (dt, shape)
        total += dt.itemsize * math.prod(shape)
        if total > max_bytes:      # before any array is read or allocated
            raise _Bad(f"its arrays hold more than max_bytes ({max_bytes} bytes) once "
                       "inflated; raise it with load(..., max_bytes=N) for a file you trust")
    arrays = {}
    for key, info in table.items():
        dt, shape = declared[key]
        a = _entry(npz, key, dt.itemsize * math.prod(shape))
        if a.dtype != dt or list(a.shape) != shape:
            raise _Bad(f"array {key!r} is {a.dtype} {a.shape}, declared {dt} {tuple(shape)}")
        if _array_digest(a) != info.get("sha256"):
            raise _Bad(f"the digest of array {key!r} does not match (the file was changed or "
                       "damaged)")
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        arrays[key] = a
    reader = _Reader(arrays)
    obj = reader.learner(meta.get("learner"), 0, expected)
    unused = sorted(set(arrays) - reader.used)
    if unused:
        raise _Bad(f"arrays {unused[:5]!r} are not used by the learner")
    return obj


# ------------------------------------------------------------------------------------------------
# What each learner's state may hold (names and types), and its consistency
# ------------------------------------------------------------------------------------------------

def _arr(dtype, ndim):
    dt = np.dtype(dtype)

    def check(v):
        if not isinstance(v, np.ndarray):
            return f"is a {type(v).__name__}, not an array"
        if v.dtype != dt or v.ndim != ndim:
            return f"is a {v.dtype} array of {v.ndim} dimension(s), not {dt} of {ndim}"
        return None
    return check


def _arr_list(dtype, ndim):
    one = _arr(dtype, ndim)

    def check(v):
        if not isinstance(v, list) or not v:
            return "is not a non-empty list of arrays"
        for a in v:
            p = one(a)
            if p:
                return p
        return None
    return check


def _py(*types, low=None):
    def check(v):
        if type(v) not in types:
            return f"is a {type(v).__name__}, not {' or '.join(t.__name__ for t in types)}"
        if low is not None and type(v) is int and v < low:
            return f"is {v}, below {low}"
        return None
    return check


def _int_list(v):
    if not isinstance(v, list) or any(type(x) is not int or x < 0 for x in v):
        return "is not a list of integers >= 0"
    return None


def _labels(v):
    if not isinstance(v, np.ndarray) or v.ndim != 1 or v.shape[0] < 2:
        return "is not a 1-D array of at least two labels"
    if v.dtype.kind == "f" and np.isnan(v).any():
        return "holds NaN"
    try:
        ordered = all(v[i] < v[i + 1] for i in range(v.shape[0] - 1))
    except TypeError:
        ordered = False
    if not ordered:
        return "is not sorted with distinct labels"
    return None


def _values_list(v):
    if not isinstance(v, list) or any(not isinstance(vals, list) for vals in v):
        return "is not a list of lists of values"
    return None


def _budget(v):
    if v is None or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                     and int(v) >= 1):
        return None
    return "is not None or an integer >= 1"


_FIT_CHECKS = {"converged_": _py(bool), "cycled_": _py(bool), "n_iter_": _py(int, low=0),
               "epoch_mistakes_": _int_list, "epoch_updates_": _int_list}

_INT = _py(int, low=0)
_FLOAT = _py(float)
_BOOL = _py(bool)
_F8, _I8, _I4, _U1 = "<f8", "<i8", "<i4", "|u1"

_COMMON = {"classes_": _labels, "n_features_in_": _py(int, low=1), "_counts": _arr(_I8, 1)}
_LINEAR = dict(_COMMON, _d=_INT, _w=_arr(_F8, 1), _u=_arr(_F8, 1), _aux=_arr(_F8, 1))
_WINNOW = dict(_COMMON, _d=_INT, theta_=_FLOAT, _la=_FLOAT, _lb=_FLOAT, _exact_mode=_BOOL,
               _l=_arr(_F8, 1), _w=_arr(_F8, 1), _ln=_arr(_F8, 1), _wn=_arr(_F8, 1))
_POOL = dict(_COMMON, n_experts_=_INT, _lb=_FLOAT, _exact_mode=_BOOL, _l=_arr(_F8, 1),
             _m=_arr(_I8, 1), _c=_arr(_F8, 1), _aux=_arr(_F8, 1), _rng=_arr("<u8", 1),
             _multi=_BOOL)
_SPECIALISTS = dict(_COMMON, n_experts_=_INT, _ld=_FLOAT, _lp=_FLOAT, _exact_mode=_BOOL,
                    _prune_l=_FLOAT, _n=_INT, _nd=_arr(_I8, 1), _np=_arr(_I8, 1),
                    _l=_arr(_F8, 1), _e=_arr(_F8, 1), _c=_arr(_F8, 1), _alive=_arr(_U1, 1),
                    _m=_arr(_I8, 1), _label_counts=_arr(_I8, 1))
_PAIRS = dict({k: v for k, v in _SPECIALISTS.items() if k != "n_experts_"},
              n_attributes_=_py(int, low=2), _hist=_arr(_I4, 2), _hcnt=_arr(_I4, 1),
              _hnext=_arr(_I4, 1), _cat_values=_values_list, _tkeys=_arr(_I8, 1),
              _tids=_arr(_I8, 1), _nid=_arr(_I8, 1), _keys=_arr(_I8, 1))
_ELIMINATION = dict(_COMMON, _P=_arr(_U1, 1), _N=_arr(_U1, 1), _incons=_arr(_I8, 1),
                    _fitted_mode=_INT)
_VS = dict(_COMMON, _alive=_arr("<u8", 1), _nz=_arr(_I4, 1), _nnz=_arr(_I8, 1),
           _count=_arr(_I8, 1))

_SPECS = {
    "Perceptron": _LINEAR, "MarginPerceptron": _LINEAR, "OnlineHingeSVM": _LINEAR,
    "AveragedPerceptron": dict(_LINEAR, _votes=_arr_list(_F8, 2), _vote_c=_arr_list(_I8, 1)),
    "KernelPerceptron": dict(_COMMON, _d=_INT, gamma_=_FLOAT, _sv=_arr(_F8, 2),
                             _svn=_arr(_F8, 1), _coef=_arr(_F8, 1), _meta=_arr(_I8, 1),
                             _budget_fitted=_budget),
    "Winnow": _WINNOW, "EliminationWinnow": _WINNOW, "WinnowStar": _WINNOW,
    "BalancedWinnow": _WINNOW,
    "WeightedMajority": _POOL, "RandomizedWeightedMajority": _POOL,
    "Specialists": _SPECIALISTS, "PairSpecialists": _PAIRS,
    "Conjunction": _ELIMINATION, "Disjunction": _ELIMINATION,
    "DecisionList": dict(_COMMON, _levels=_arr(_I4, 1)),
    "Halving": _VS, "SOA": _VS,
}


def _spec(cls):
    spec = _SPECS.get(cls.__name__)
    if spec is None:          # pragma: no cover - every class in the table has a spec
        raise TypeError(f"{cls.__name__}: no persistence spec")
    return spec


def _need(cond, why):
    if not cond:
        raise _Bad(why)


def _shape(obj, name, shape):
    a = obj.__dict__[name]
    _need(a.shape == tuple(shape), f"{type(obj).__name__}: {name} has shape {a.shape}, expected "
                                   f"{tuple(shape)}")


def _finite(obj, *names):
    for n in names:
        _need(np.isfinite(obj.__dict__[n]).all(),
              f"{type(obj).__name__}: {n} holds NaN or infinity")


def _nonneg(obj, *names):
    for n in names:
        _need((obj.__dict__[n] >= 0).all(), f"{type(obj).__name__}: {n} holds negative values")


def _consistent(obj, st):
    """The checks that make a loaded state safe for the kernels (shapes, index ranges) and equal
    to what the parameters imply (derived values recomputed)."""
    from . import boolean, experts, linear, multiplicative, version_space
    o = type(obj).__name__
    cl = st["classes_"]
    d = st["n_features_in_"]
    if isinstance(obj, (linear._Linear, linear.KernelPerceptron, multiplicative._Winnow,
                        boolean._Boolean, version_space._VersionSpace)):
        _need(cl.shape[0] == 2, f"{o}: classes_ holds {cl.shape[0]} labels, not 2")
        _shape(obj, "_counts", (3,))
    _nonneg(obj, "_counts")
    for k in ("epoch_mistakes_", "epoch_updates_"):
        if k in st:
            _need(len(st[k]) == st["n_iter_"], f"{o}: {k} does not have n_iter_ entries")

    if isinstance(obj, linear._Linear):
        _need(st["_d"] == d, f"{o}: _d != n_features_in_")
        D = d + bool(obj.fit_intercept)
        _shape(obj, "_w", (D,))
        _shape(obj, "_u", (D,) if obj._averaging() else (0,))
        _shape(obj, "_aux", (2,))
        _finite(obj, "_w", "_u", "_aux")
        scale, sq = (float(v) for v in st["_aux"])
        # the hinge learner's lazy scale a is a product of factors in [0, 1], reset to 1 when
        # it reaches 0; the others keep a = 1.  ||w||^2 is the Margin Perceptron's, recomputed
        # after every update (its prediction divides by its square root).
        _need(0.0 < scale <= 1.0 if isinstance(obj, linear.OnlineHingeSVM) else scale == 1.0,
              f"{o}: the weight scale _aux[0] = {scale!r} is not one a run reaches")
        if isinstance(obj, linear.MarginPerceptron):
            _need(sq == linear._k.sqnorm(st["_w"], d, bool(obj.fit_intercept)),
                  f"{o}: _aux[1] is not the squared norm of the weights")
        if isinstance(obj, linear.AveragedPerceptron):
            V, C = st["_votes"], st["_vote_c"]
            _need(len(V) == len(C), f"{o}: _votes and _vote_c differ in length")
            for a, c in zip(V, C):
                _need(a.shape[1] == D and a.shape[0] == c.shape[0] >= 1 and (c >= 0).all() and
                      np.isfinite(a).all(), f"{o}: the vote arrays do not match the weights")
    elif isinstance(obj, linear.KernelPerceptron):
        _need(st["_d"] == d, f"{o}: _d != n_features_in_")
        sv = st["_sv"]
        cap = sv.shape[0]
        _need(cap >= 1 and sv.shape[1] == d, f"{o}: _sv has shape {sv.shape}")
        _shape(obj, "_svn", (cap,))
        _shape(obj, "_coef", (cap,))
        _shape(obj, "_meta", (2,))
        _finite(obj, "_sv", "_svn", "_coef")
        n_sv, head = (int(v) for v in st["_meta"])
        b = obj.budget
        _need(st["_budget_fitted"] == b, f"{o}: the budget fitted differs from the parameter")
        _need(0 <= n_sv <= cap, f"{o}: {n_sv} support vectors in {cap} slots")
        if b is None:
            _need(head == 0, f"{o}: ring position {head} without a budget")
        else:
            _need(cap <= b and (head == 0 if n_sv < b else 0 <= head < cap),
                  f"{o}: ring position {head} with {n_sv} of {b} slots")
    elif isinstance(obj, multiplicative._Winnow):
        _need(st["_d"] == d, f"{o}: _d != n_features_in_")
        _need(obj.n_features is None or obj.n_features == d,
              f"{o}: n_features_in_ != the parameter n_features")
        obj._validate_params()
        la, lb, lw0 = obj._logs()
        # the float mode is always allowed (a log-space mixture of shards, mbcore.distributed,
        # has non-integral logs); the exact mode only where the parameters allow it
        _need(st["theta_"] == obj._theta(d) and st["_la"] == la and st["_lb"] == lb and
              (not st["_exact_mode"] or obj._exact()),
              f"{o}: theta_ or the log factors do not match the parameters")
        balanced = isinstance(obj, multiplicative.BalancedWinnow)
        for n in ("_l", "_w"):
            _shape(obj, n, (d,))
        for n in ("_ln", "_wn"):
            _shape(obj, n, (d,) if balanced else (0,))
        for n in ("_l", "_ln"):
            a = st[n]
            _need(not np.isnan(a).any() and not (a == np.inf).any() and
                  (lb == -np.inf or np.isfinite(a).all()),
                  f"{o}: {n} holds values no run can reach")
            if st["_exact_mode"]:
                fin = a[np.isfinite(a)]
                _need((fin == np.round(fin)).all() and (np.abs(fin) < 2.0 ** 53).all(),
                      f"{o}: {n} is not integral in exact mode")
            w = np.empty_like(a)
            multiplicative._k.terms(np.ascontiguousarray(a), w)
            _need(np.array_equal(w, st["_w" if n == "_l" else "_wn"]),
                  f"{o}: the weight cache does not match the log-weights")
    elif isinstance(obj, experts._Pool):
        _shape(obj, "_counts", (3,))
        n = st["n_experts_"]
        _need(n == d and n >= 1, f"{o}: n_experts_ != n_features_in_")
        if obj.experts is not None:
            _need(isinstance(obj.experts, list) and len(obj.experts) == n,
                  f"{o}: {n} experts in the state, another number in the parameter")
        for k in ("_l", "_m", "_c"):
            _shape(obj, k, (n,))
        _shape(obj, "_aux", (1,))
        _shape(obj, "_rng", (1,))
        _finite(obj, "_c", "_aux")
        _need(not np.isnan(st["_l"]).any() and (st["_l"] < np.inf).all(),
              f"{o}: _l holds NaN or +inf")
        _nonneg(obj, "_m", "_c")
        _need(st["_multi"] == (cl.shape[0] > 2), f"{o}: _multi does not match classes_")
        b = float(obj.beta)
        k = multiplicative._pow2_exponent(b)
        _need(st["_lb"] == (float(k) if k is not None else math.log2(b)) and
              st["_exact_mode"] == (k is not None), f"{o}: the log of beta does not match")
    elif isinstance(obj, experts.Specialists):
        _specialists(obj, st, o, cl, d)
    elif isinstance(obj, boolean._Elimination):
        _need(st["_fitted_mode"] == obj._mode, f"{o}: the fitted literals differ")
        _shape(obj, "_P", (d,))
        _shape(obj, "_N", (0,) if obj._mode == boolean._DISJ_MONO else (d,))
        _shape(obj, "_incons", (1,))
        _need(((st["_P"] <= 1).all() and (st["_N"] <= 1).all()),
              f"{o}: literal masks that are not 0/1")
        _nonneg(obj, "_incons")
    elif isinstance(obj, boolean.DecisionList):
        _shape(obj, "_levels", (4 * d + 2,))
        _need((st["_levels"] >= 0).all() and (st["_levels"] <= st["_counts"][1]).all(),
              f"{o}: levels out of range")
    elif isinstance(obj, version_space._VersionSpace):
        C = obj.concepts
        _need(isinstance(C, version_space.ConceptClass), f"{o}: concepts is not a ConceptClass")
        obj.__dict__["_fitted_concepts"] = C
        W = C._cols.shape[1]
        _need(d == (len(C.points[0]) if C.points else 1), f"{o}: n_features_in_ does not match")
        for k in ("_alive", "_nz"):
            _shape(obj, k, (W,))
        _shape(obj, "_nnz", (1,))
        _shape(obj, "_count", (1,))
        alive = st["_alive"]
        m = C.n_concepts
        if m % 64:
            _need(not (alive[-1] >> np.uint64(m % 64)), f"{o}: alive bits past the last concept")
        nnz = int(st["_nnz"][0])
        _need(0 <= nnz <= W and ((st["_nz"][:nnz] >= 0) & (st["_nz"][:nnz] < W)).all(),
              f"{o}: the index of non-zero words is out of range")
        if isinstance(obj, version_space.Halving):      # (SOA does not use the index)
            nz = np.zeros(W, dtype=np.int32)
            k = version_space._k.nonzero_words(alive, nz)
            _need(nnz == k and np.array_equal(st["_nz"][:k], nz[:k]),
                  f"{o}: the index of non-zero words does not match the version space")
        _need(int(st["_count"][0]) == version_space._k.popcount_words(alive),
              f"{o}: the alive count does not match the version space")
        if isinstance(obj, version_space.SOA):
            obj._validate_params()
            obj.__dict__["_ldim"] = version_space._Ldim(C)
    else:                     # pragma: no cover
        raise _Bad(f"{o}: no consistency check")


def _specialists(obj, st, o, cl, d):
    from . import experts, multiplicative
    K = cl.shape[0]
    n = st["_n"]
    cap = st["_l"].shape[0]
    _need(n <= cap, f"{o}: {n} specialists in {cap} slots")
    for k in experts.Specialists._GROWN:
        _shape(obj, k, (cap,))
    _shape(obj, "_label_counts", (K,))
    _shape(obj, "_counts", (5,))
    _nonneg(obj, "_nd", "_np", "_m", "_label_counts")
    _need((st["_alive"] <= 1).all(), f"{o}: _alive is not 0/1")
    _finite(obj, "_l", "_e", "_c")
    obj._validate_params()
    kd = multiplicative._pow2_exponent(float(obj.demote))
    kp = multiplicative._pow2_exponent(float(obj.promote))
    _need(st["_ld"] == (float(kd) if kd is not None else math.log2(float(obj.demote))) and
          st["_lp"] == (float(kp) if kp is not None else math.log2(float(obj.promote))) and
          st["_exact_mode"] == (kd is not None and kp is not None) and
          st["_prune_l"] == (0.0 if obj.prune_below is None
                             else math.log2(float(obj.prune_below))),
          f"{o}: the log factors do not match the parameters")
    if not isinstance(obj, experts.PairSpecialists):
        _need(st["n_experts_"] == n == d, f"{o}: n_experts_, _n and n_features_in_ differ")
        return
    A = st["n_attributes_"]
    _need(A == d, f"{o}: n_attributes_ != n_features_in_")
    H = int(obj.history)
    _shape(obj, "_hist", (cap, H))
    _shape(obj, "_hcnt", (cap,))
    _shape(obj, "_hnext", (cap,))
    _need(((st["_hist"] >= 0) & (st["_hist"] < K)).all() and
          ((st["_hcnt"] >= 0) & (st["_hcnt"] <= H)).all() and
          ((st["_hnext"] >= 0) & (st["_hnext"] < H)).all(), f"{o}: label histories out of range")
    vals = st["_cat_values"]
    _need(len(vals) == A, f"{o}: _cat_values has {len(vals)} attributes, not {A}")
    cats = []
    for a, vs in enumerate(vals):
        try:
            dct = {v: k for k, v in enumerate(vs)}
        except TypeError:
            raise _Bad(f"{o}: a category of attribute {a} is not hashable") from None
        _need(len(dct) == len(vs) and len(vs) <= experts._CODE_MASK,
              f"{o}: the categories of attribute {a} repeat")
        cats.append(dct)
    _shape(obj, "_nid", (1,))
    _need(int(st["_nid"][0]) == n, f"{o}: _nid != _n")
    keys = st["_keys"]
    _need(keys.shape[0] >= max(n, 1), f"{o}: _keys is too short")
    pairs = obj._pairs()
    ks = keys[:n]
    p, ca, cb = ks >> 42, (ks >> 21) & experts._CODE_MASK, ks & experts._CODE_MASK
    ok = (ks >= 0).all() and (p < len(pairs)).all() and np.unique(ks).shape[0] == n
    if ok and n:
        ia = np.array([a for a, _ in pairs])[p]
        ib = np.array([b for _, b in pairs])[p]
        sizes = np.array([len(v) for v in vals])
        ok = bool((ca < sizes[ia]).all() and (cb < sizes[ib]).all())
    _need(ok, f"{o}: specialist keys out of range")
    T = st["_tkeys"].shape[0]
    _shape(obj, "_tids", (T,))
    _need(T >= 2 and T & (T - 1) == 0 and 2 * n <= T, f"{o}: a hash table of size {T}")
    tk, ti = np.full(T, -1, dtype=np.int64), np.zeros(T, dtype=np.int64)
    experts._k.pair_rehash(np.ascontiguousarray(keys), n, tk, ti)
    _need(np.array_equal(tk, st["_tkeys"]) and np.array_equal(ti, st["_tids"]),
          f"{o}: the hash table does not match the specialist keys")
    obj.__dict__["_cats"] = cats
