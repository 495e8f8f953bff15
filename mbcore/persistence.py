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
and types of the state attributes (each class's ``_STATE`` declaration), and the state's
consistency (the class's ``_check_state``: array shapes against ``n_features_in_`` and the
parameters, derived values recomputed from the parameters, index ranges of the bitsets and
hash tables the kernels trust), then the learner's own parameter validation.  Every failure
raises :class:`FormatError` (a ValueError) naming the file; a missing file raises the usual
OSError.  Sizes are bounded before anything is read: the JSON document by ``max_meta_bytes``
(:data:`MAX_META_BYTES`) and all entries together by ``max_bytes`` (:data:`MAX_LOAD_BYTES`).

Who owns what: this module is the format only (the archive, the JSON document, the digests, the
table of loadable classes, the generic readers and writers).  Each learner family declares its
own state beside the code that creates it (``_STATE``, ``_DERIVED`` and ``_check_state`` on the
class, with the shared checkers of ``mbcore._state``), so a new learner adds its declaration to
its own class and its name to its family module's ``__all__`` (where the table of loadable
classes is read from), and nothing here.

What is stored, per learner
---------------------------
* Every learner of ``mbcore.all_learners()``: every state array and scalar its class declares
  (``_STATE``), as it is (lists of arrays included, such as AveragedPerceptron's vote arrays);
  what some learners store besides, or rebuild, follows.
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
* SelectiveSampler (``mbcore.selective``, a wrapper, not a learner of the registry): its
  parameters (the wrapped learner's as a nested learner), the learner it trains (a nested
  learner, its whole state), the generator's state (one splitmix64 word, exact), the largest
  squared norm of the adaptive variant and its counts [rows, labels asked, mistakes, updates],
  so a loaded sampler asks and predicts as the one that never stopped.
* ``reading_``, for a learner trained from a file (``mbcore.streaming.train_file``,
  ``evaluate_file``, the ``mbcore`` command): how the file was read (its format and the
  options that decide the features), a JSON object of (name, value) pairs checked on loading;
  ``predict_file`` and the command read the same way.  Files written before it existed have
  none (their reading is unknown).
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

from . import _messages, _registry
from ._version import __version__
from ._state import FIT_STATE, ONE_STATE, READ_STATE, StateError

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


class FormatError(ValueError):
    """A file that is not a valid mbcore learner file (or not one of the expected class)."""


class _Bad(Exception):
    """Internal: a check failed while reading (turned into FormatError naming the file)."""


# ------------------------------------------------------------------------------------------------
# The learner classes (a fixed table: nothing is ever imported by a name read from a file)
# ------------------------------------------------------------------------------------------------

def _classes():
    """Name -> class of every learner the format loads: the learner classes mbcore defines,
    as they registered themselves (``mbcore._registry``); a name from a file is only ever
    looked up here, never imported."""
    return dict(_registry.learners())


def _is_learner(obj):
    base = _registry.learner_base()
    return (base is not None and isinstance(obj, base)) or type(obj) in _WRAPPERS.values()


# Classes that are not learners of the registry but are saved and loaded as a learner is (their
# own _STATE, _check_state and parameters), each registered by its module when it is defined
# (mbcore.selective.SelectiveSampler): a name from a file is looked up here too, never imported.
_WRAPPERS: dict = {}


def register_wrapper(cls):
    """Make ``cls`` (a class of mbcore that wraps a learner) savable and loadable."""
    _WRAPPERS[cls.__name__] = cls


def _loadable(name):
    """The class a file may name: one of the registry's learners, or a registered wrapper."""
    return _classes().get(name) or _WRAPPERS.get(name)


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
        cls = type(obj)
        name = cls.__name__
        if _loadable(name) is not cls:
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
            skip = cls._TRANSIENT | cls._FOREIGN_ATTRS | cls._DERIVED | \
                frozenset(cls._get_param_names())
            state = {}
            for k, v in obj.__dict__.items():
                if k in skip:
                    continue
                if k == "reading_" and isinstance(v, dict):     # stored as (name, value) pairs
                    v = tuple(sorted(v.items()))
                if k not in cls._STATE and k not in FIT_STATE and k not in ONE_STATE and \
                        k not in READ_STATE:
                    raise ValueError(f"{name}.save: attribute {k!r} is not part of {name}'s "
                                     "state, and the safe format stores nothing else (delete "
                                     "it, or use pickle)")
                state[k] = self.value(v, f"{prefix}state/{k}", name, f"attribute {k}", depth)
        return {"class": name, "params": params, "state": state}

    def value(self, v, path, owner, what, depth):
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
        if _is_learner(v):
            out = self.learner(v, path + "/", depth + 1)
            out["$"] = "learner"
            return out
        for tag, (cls, encode, _) in _registry.codecs().items():
            if type(v) is cls:
                out = encode(v, lambda x, field: self.value(x, f"{path}/{field}", owner, what,
                                                           depth + 1),
                             lambda problem: TypeError(f"{owner}.save: {what} is a "
                                                       f"{cls.__name__} {problem}"))
                out["$"] = tag
                return out
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
    if not _is_learner(learner):
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
        codec = _registry.codecs().get(tag) if isinstance(tag, str) else None
        if codec is not None:
            return codec[2](v, lambda raw: self.value(raw, depth + 1), _Bad)
        raise _Bad(f"unknown value tag {tag!r}")

    def learner(self, v, depth, expected=None):
        if depth > _MAX_DEPTH:
            raise _Bad(f"learners nested more than {_MAX_DEPTH} deep")
        if not isinstance(v, dict):
            raise _Bad("the learner entry is not a JSON object")
        name = v.get("class")
        cls = _loadable(name) if isinstance(name, str) else None
        if cls is None:
            raise _Bad(f"unknown learner class {name!r} (not one of mbcore's learners)")
        if expected is not None and not issubclass(cls, expected):
            raise _Bad(f"it holds a {name}, not a {expected.__name__}",)
        params, state = v.get("params"), v.get("state")
        names = cls._get_param_names()
        # parameters a class gained after files were written (its _NEW_PARAMS) may be absent:
        # they take their defaults, which reproduce the behaviour of the older version
        newer = getattr(cls, "_NEW_PARAMS", frozenset())
        if not isinstance(params, dict) or sorted(params) != sorted(
                k for k in names if k in params or k not in newer):
            got = sorted(params) if isinstance(params, dict) else params
            raise _Bad(f"{name}: parameters {got!r} are not {name}'s {names!r}")
        kwargs = {k: self.value(params[k], depth + 1) for k in names if k in params}
        obj = cls(**kwargs)
        if state is None:
            return obj
        if not isinstance(state, dict):
            raise _Bad(f"{name}: the state is not a JSON object")
        spec = cls._STATE
        values = {}
        for k, raw in state.items():
            check = spec.get(k) or FIT_STATE.get(k) or ONE_STATE.get(k) or READ_STATE.get(k)
            if check is None:
                raise _Bad(f"{name}: unknown state attribute {k!r}")
            val = self.value(raw, depth + 1)
            problem = check(val)
            if problem:
                raise _Bad(f"{name}: state attribute {k} {problem}")
            if k == "reading_" and val is not None:
                val = dict(val)
            values[k] = val
        # state a class gained after files were written (its _NEW_STATE) may be absent: its
        # _check_state sets the value that the rest of the state implies
        missing = sorted(set(spec) - set(values) - getattr(cls, "_NEW_STATE", frozenset()))
        if missing:
            raise _Bad(f"{name}: the state lacks {missing}")
        names = values.get("_feature_names")
        if names is not None and len(names) != values.get("n_features_in_"):
            raise _Bad(f"{name}: {len(names)} feature names for "
                       f"{values.get('n_features_in_')!r} features")
        fits = [k for k in FIT_STATE if k in values]
        if fits and len(fits) != len(FIT_STATE):
            raise _Bad(f"{name}: the state has some of fit's attributes ({fits}) but not all")
        if fits and any(len(values[k]) != values["n_iter_"]
                        for k in ("epoch_mistakes_", "epoch_updates_")):
            raise _Bad(f"{name}: the epoch counts do not have n_iter_ entries")
        obj.__dict__.update(values)
        if cls not in _WRAPPERS.values():
            obj._kstate = None
            obj._fast = None
        try:
            obj._check_state(values)        # the family's own checks (shapes, ranges, caches)
            obj._validate_params()
        except StateError as exc:
            raise _Bad(str(exc)) from None
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

    not_npz = _not_an_archive(f)
    if not_npz is not None:
        raise bad(not_npz)
    return _read_archive(f, bad, lambda npz: _read(npz, expected, max_bytes, max_meta))


def _read_archive(f, bad, read):
    """``read(npz)`` of the .npz archive ``f``, opened without pickles and closed after.  Every
    way the file can fail raises ``bad(why)`` (the caller's error naming the file): not an
    archive, a single .npy array, a check of ``read`` (``_Bad``), truncation, zip and npy
    header errors; a FormatError of ``read`` passes as it is."""
    try:
        npz = np.load(f, allow_pickle=False)
    except Exception as exc:      # noqa: BLE001 - every way a file can fail to be an archive
        raise bad(f"not a NumPy .npz archive ({type(exc).__name__}: {exc})") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise bad("it is a single NumPy array (.npy), not an .npz archive")
    with npz:
        try:
            return read(npz)
        except _Bad as exc:
            raise bad(str(exc)) from None
        except FormatError:
            raise
        except Exception as exc:      # noqa: BLE001 - truncation, zip and npy header errors
            raise bad(f"{type(exc).__name__}: {exc}") from None


_SAVE_SPELLING = ("mbcore.load reads the .npz archives that learner.save writes",
                  "--model takes the .npz file that 'mbcore train --model' writes")


def _not_an_archive(f):
    """What the file is, from its first bytes, when it is not a zip archive (an .npz) nor a
    .npy array (np.load's own messages would pass a pickle's advice through): None for those
    two, else the reason.  The position of ``f`` is left where it was."""
    try:
        at = f.tell()
        head = f.read(512)
        f.seek(at)
    except (AttributeError, OSError, ValueError):
        return None
    if not isinstance(head, bytes):
        return None
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"\x93NUMPY")):
        return None
    if not head:
        return "the file is empty"
    saves = _messages.spell(*_SAVE_SPELLING)
    if head[:1] == b"\x80" and len(head) > 1 and 2 <= head[1] <= 5:
        return (f"it is a Python pickle, not an .npz archive; mbcore never loads pickled data "
                f"from a file (loading a pickle can run any code): {saves}")
    if head.startswith(b"\x1f\x8b"):
        return f"it is gzip-compressed data, not an .npz archive; {saves}"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = head[:exc.start].decode("utf-8") if exc.start > 64 else None
    if text is not None and all(c.isprintable() or c in "\r\n\t" for c in text):
        first = text.splitlines()[0] if text.splitlines() else text
        if len(first) > 40:
            first = first[:37] + "..."
        return (f"it is a text file (it starts {first!r}), not an .npz archive: a data file "
                f"given as a model? {saves}")
    return f"it is neither an .npz archive nor a .npy array (it starts {head[:8]!r}); {saves}"


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
# For the other archives mbcore writes (mbcore.queries.DFA): the same digests, limits and
# checked reads, under names that are this module's interface to them (not a public API).
# ------------------------------------------------------------------------------------------------

array_digest = _array_digest            # sha256 of an array's dtype, shape and bytes
meta_digest = _meta_digest              # sha256 of a JSON document without its "digest" key
check_limit = _limit                    # (value, default, what) -> a byte limit, checked
open_archive = _open                    # (file, limit) -> (file object, name, close it?)
read_entry = _entry                     # (npz, key, max_bytes) -> the array, bounded
read_archive = _read_archive            # (file, bad, read) -> read(npz); failures -> bad(why)
ArchiveCheckFailed = _Bad               # raised by read_entry; the caller names the file
ZIP_SLACK = _ZIP_SLACK                  # bytes of zip and .npy headers beyond the arrays

