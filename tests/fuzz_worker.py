"""The child side of tests/safety/test_fuzz.py: fuzz cases rebuilt from their ids, run one at a
time.

tests/safety/test_fuzz.py starts this file as a persistent child process (``python
fuzz_worker.py``, from an empty directory, with the parent's environment) and sends it one request
per line on stdin; the child answers one JSON line per request on its original stdout.  A crash (a
signal, an abort from AddressSanitizer) kills the child, not pytest: the parent sees the pipe
close, fails that one test naming the signal and the case, and starts a new child for the next one.

Requests
--------
``{"case": "<learner>-<method>-<kind>"}``
    A case of the table below.  ``kind`` is a bad input (BAD_KINDS) or a valid unusual
    layout (LAYOUTS); the child builds the learner and the input from the id alone
    (everything is seeded), runs the call and reports the facts the parent checks.
``{"fuzz": "<family>", "learner": "<learner>", "method": "<method>", "payload": "<base64>"}``
    A hypothesis example: the parent generated the arrays and sends them pickled; the child
    rebuilds the input (a corrupted CSR matrix, packed rows, point indices) and runs it.

Replies
-------
Bad input: ``{"runs": [...]}``, one entry per learner state tried ("unfitted", "fitted"):
the outcome ("raised" or "returned"), the exception's type, its base classes, message and
where it was raised, whether the learner's state and the inputs are exactly as before.
Valid layout: ``{"runs": [...]}`` with, per state, whether the unusual layout gave exactly
the plain array's result (learner state and returned value) and left its input unchanged.
The parent makes every assertion; this file only observes.
"""

import base64
import json
import math
import os
import pickle
import sys
import traceback

import numpy as np

import mbcore

import _cases           # (this file's folder, tests/, is first on sys.path: it runs as a script)

try:                                    # scipy and pandas are optional for the package
    import scipy.sparse as sp
except ImportError:                     # pragma: no cover - scipy is a test requirement
    sp = None
try:
    import pandas as pd
except ImportError:                     # pragma: no cover
    pd = None


# ------------------------------------------------------------------------------------------------
# Fingerprints: a learner's state and an input, as values that compare with ==
# ------------------------------------------------------------------------------------------------

def state_fp(obj, depth=0):
    """Everything a learner keeps, deeply: arrays by dtype, shape and bytes (as in
    tests/safety/test_interrupts.py::fingerprint), learners through ``__getstate__`` (which leaves
    out the kernels' bindings), the concept class by its table.  Cache objects (an ``at 0x``
    repr, e.g. SOA's memo) count by their kind only."""
    if depth > 30:
        return "..."
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "O":
            return ("objects", obj.shape, tuple(state_fp(v, depth + 1) for v in obj.ravel()))
        return ("array", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(state_fp(v, depth + 1) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple(sorted((repr(k), state_fp(v, depth + 1)) for k, v in obj.items())))
    if isinstance(obj, mbcore.ConceptClass):
        return ("ConceptClass", obj.name, obj.n_concepts, obj.n_points, obj._cols.tobytes(),
                state_fp(obj.points, depth + 1))
    if isinstance(obj, (mbcore.OnlineLearner, mbcore.Conservative)):
        return ("learner", type(obj).__name__, state_fp(obj.__getstate__(), depth + 1))
    if isinstance(obj, float):
        return ("float", repr(obj))                # nan == nan, -0.0 != 0.0
    text = repr(obj)
    if " at 0x" in text:
        return ("object", type(obj).__name__)
    return ("value", type(obj).__name__, text)


def input_fp(v, depth=0):
    """An input as it is: arrays with their dtype, shape, strides and contents, sparse
    matrices by their index and value arrays, DataFrames by their values and labels."""
    if depth > 30:
        return "..."
    if isinstance(v, np.ndarray):
        head = ("ndarray", v.dtype.str, v.shape, v.strides, v.flags.writeable)
        if v.dtype.kind == "O":
            return head + (tuple(input_fp(x, depth + 1) for x in v.ravel()),)
        return head + (v.tobytes(),)
    if pd is not None and isinstance(v, (pd.DataFrame, pd.Series)):
        cols = list(v.columns) if isinstance(v, pd.DataFrame) else [v.name]
        return ("pandas", type(v).__name__, repr(cols), repr(list(v.index)), repr(v.dtypes),
                input_fp(v.to_numpy(copy=True), depth + 1))
    if hasattr(v, "format") and hasattr(v, "shape") and not isinstance(v, np.ndarray):
        parts = [("format", getattr(v, "format", None)), ("shape", repr(getattr(v, "shape")))]
        for a in ("data", "indices", "indptr", "row", "col", "blocksize"):
            if a in getattr(v, "__dict__", {}) or hasattr(type(v), a) or hasattr(v, a):
                try:
                    parts.append((a, input_fp(getattr(v, a), depth + 1)))
                except Exception as exc:        # a property that raises on broken data
                    parts.append((a, "raises " + type(exc).__name__))
        return ("sparse", type(v).__name__, tuple(parts))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(input_fp(x, depth + 1) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), input_fp(x, depth + 1)) for k, x in v.items()))
    if hasattr(v, "__dict__") and not isinstance(v, type):
        return (type(v).__name__, tuple((k, input_fp(x, depth + 1))
                                        for k, x in sorted(vars(v).items())))
    return ("value", type(v).__name__, repr(v))


def result_fp(v):
    """What a call returned: a learner (its state), an OnlineRun (its record), an array, a
    number."""
    if isinstance(v, (mbcore.OnlineLearner, mbcore.Conservative)):
        return ("learner", state_fp(v))
    if isinstance(v, mbcore.OnlineRun):
        return ("run",) + tuple(state_fp(getattr(v, a)) for a in
                                ("predictions", "errors", "updated", "mistakes", "updates"))
    return state_fp(v)


# ------------------------------------------------------------------------------------------------
# Hand-made containers
# ------------------------------------------------------------------------------------------------

class DuckCSR:
    """A CSR matrix as four attributes, exactly as given: no checks, no conversion (the
    arrays may contradict each other, which is the point)."""

    format = "csr"

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, shape


class DuckIncomplete:
    """Looks like a CSR matrix at a glance (indptr, indices, shape) but has no data."""

    format = "csr"

    def __init__(self, indices, indptr, shape):
        self.indices, self.indptr, self.shape = indices, indptr, shape


def csr_parts(D, index_dtype=np.int32, data_dtype=None):
    """(data, indices, indptr) of a dense 2-D array, by a plain loop over the rows."""
    D = np.asarray(D)
    indptr, indices, data = [0], [], []
    for i in range(D.shape[0]):
        nz = [j for j in range(D.shape[1]) if D[i, j] != 0]
        indices += nz
        data += [D[i, j] for j in nz]
        indptr.append(len(indices))
    dt = D.dtype if data_dtype is None else data_dtype
    return (np.array(data, dtype=dt), np.array(indices, dtype=index_dtype),
            np.array(indptr, dtype=index_dtype))


def duck_csr(D, index_dtype=np.int32, data_dtype=None):
    D = np.asarray(D)
    return DuckCSR(*csr_parts(D, index_dtype, data_dtype), D.shape)


def dense_of_csr(data, indices, indptr, shape):
    """The dense matrix of a valid CSR structure, by a plain loop (the test's own reading)."""
    out = np.zeros(shape, dtype=np.float64)
    for i in range(shape[0]):
        for k in range(int(indptr[i]), int(indptr[i + 1])):
            out[i, int(indices[k])] = data[k]
    return out


def unpack_rows(A, n):
    """Rows packed 8 variables per byte, first variable in the highest bit -> 0/1 rows (a
    plain loop, the test's own reading of numpy.packbits)."""
    out = np.zeros((A.shape[0], n), dtype=np.int64)
    for i in range(A.shape[0]):
        for j in range(n):
            out[i, j] = (int(A[i, j // 8]) >> (7 - j % 8)) & 1
    return out


# ------------------------------------------------------------------------------------------------
# Data families: the valid inputs each learner takes (seeded), from which every case is made
# ------------------------------------------------------------------------------------------------

class Family:
    """The valid data of one kind of learner.

    ``X, y, kw``: the batch that the cases corrupt (BAD_ROW is a row of it); ``X_fit, y_fit,
    kw_fit``: what a "fitted" learner has seen.  ``kind`` says how the rows are read:
    "real", "bool" (0/1), "packed" (0/1 rows packed 8 per byte), "advice" (labels), "categorical",
    "points" (1-D point indices) or "vectors" (feature vectors of the class's points)."""

    def __init__(self, kind, X, y, X_fit, y_fit, kw=None, kw_fit=None, labels=(-1, 1)):
        self.kind, self.X, self.y, self.X_fit, self.y_fit = kind, X, y, X_fit, y_fit
        self.kw, self.kw_fit = kw or {}, kw_fit or {}
        self.labels = list(labels)

    @property
    def two_d(self):
        return self.X.ndim == 2


BAD_ROW = 2             # the row every corrupted value goes to (not the first: "row 2" is news)
FOREIGN = 7             # a label no family uses
N_PACKED = 10           # variables before packing: 2 bytes per row, 6 padding bits
CONCEPTS = None         # the concept class of Halving and SOA (made once)
PAIR_LIMIT = 200        # max_specialists of the limited PairSpecialists (its fitted state: < 60)


def _both_labels(y, labels):
    """Make sure both (all) labels occur early, so that classes are inferred from y."""
    y = np.array(y)
    for k, v in enumerate(labels):
        y[k] = v
    return y


def _family_real(seed=7):
    rng = np.random.default_rng(seed)
    u = np.array([1.0, -2.0, 0.5, 1.0])
    # multiples of 1/4 in [-3, 3]: exact in float16, float32 and as integers times 4
    Xf = rng.integers(-12, 13, (12, 4)) / 4
    X = rng.integers(-12, 13, (6, 4)) / 4
    lab = lambda A: np.where(A @ u > 0, 1, -1)
    return Family("real", X, _both_labels(lab(X), [-1, 1]), Xf, _both_labels(lab(Xf), [-1, 1]))


def _family_real3(seed=17):
    """Real rows with three classes (0, 1, 2: the argmax of three linear scores)."""
    rng = np.random.default_rng(seed)
    U = np.array([[1.0, -2.0, 0.5, 1.0], [-1.0, 1.0, 1.0, 0.0], [0.0, 0.5, -1.0, 2.0]])
    Xf = rng.integers(-12, 13, (12, 4)) / 4
    X = rng.integers(-12, 13, (6, 4)) / 4
    X[1, 0] = 3.0       # row 1 (class 1) is a mistake of a fresh learner that makes |w_0| = 3,
    Xf[1, 0] = 3.0      # (likewise in the fitted learner's data), so a huge value at
    #                     (BAD_ROW, 0) overflows that row's score
    lab = lambda A: np.argmax(A @ U.T, axis=1)
    return Family("real", X, _both_labels(lab(X), [0, 1, 2]), Xf,
                  _both_labels(lab(Xf), [0, 1, 2]), labels=(0, 1, 2))


def _family_bool3(seed=18):
    """0/1 rows with three classes (0, 1, 2: which of three own features is on)."""
    rng = np.random.default_rng(seed)

    def make(n):
        c = rng.integers(0, 3, n)
        A = (rng.random((n, 6)) < 0.3).astype(np.int64)
        A[:, :3] = 0
        A[np.arange(n), c] = 1
        return A, c

    Xf, yf = make(16)
    X, y = make(6)
    return Family("bool", X, _both_labels(y, [0, 1, 2]), Xf, _both_labels(yf, [0, 1, 2]),
                  labels=(0, 1, 2))


def _family_bool(seed=8):
    rng = np.random.default_rng(seed)
    Xf = (rng.random((16, 6)) < 0.4).astype(np.int64)
    X = (rng.random((6, 6)) < 0.4).astype(np.int64)
    lab = lambda A: np.where(A[:, 0] | A[:, 2], 1, -1)
    return Family("bool", X, _both_labels(lab(X), [-1, 1]), Xf, _both_labels(lab(Xf), [-1, 1]))


def _family_packed(seed=9):
    rng = np.random.default_rng(seed)
    Bf = rng.random((16, N_PACKED)) < 0.4
    B = rng.random((6, N_PACKED)) < 0.4
    lab = lambda A: np.where(A[:, 0] | A[:, 3], 1, -1)
    return Family("packed", np.packbits(B, axis=1), _both_labels(lab(B), [-1, 1]),
                  np.packbits(Bf, axis=1), _both_labels(lab(Bf), [-1, 1]))


def _family_advice(seed=10, labels=(0, 1), awake=False):
    rng = np.random.default_rng(seed)
    lab = np.array(labels)

    def make(n):
        y = rng.choice(lab, size=n)
        P = np.where(rng.random((n, 5)) < 0.7, y[:, None], rng.choice(lab, size=(n, 5)))
        return P.astype(np.int64), y.astype(np.int64)

    Pf, yf = make(12)
    P, y = make(6)
    yf, y = _both_labels(yf, labels), _both_labels(y, labels)
    if not awake:
        return Family("advice", P, y, Pf, yf, labels=labels)
    Wf = rng.random(Pf.shape) < 0.6
    W = rng.random(P.shape) < 0.6
    return Family("advice", P, y, Pf, yf, kw={"awake": W}, kw_fit={"awake": Wf}, labels=labels)


def _family_categorical(seed=11):
    rng = np.random.default_rng(seed)
    Xf = rng.integers(0, 3, (14, 4))
    X = rng.integers(0, 3, (6, 4))
    lab = lambda A: (A[:, 0] == A[:, 1]).astype(np.int64)
    return Family("categorical", X, _both_labels(lab(X), [0, 1]), Xf,
                  _both_labels(lab(Xf), [0, 1]), labels=(0, 1))


def concept_class():
    global CONCEPTS
    if CONCEPTS is None:
        CONCEPTS = mbcore.ConceptClass.all_conjunctions(3)      # 27 concepts, 8 points
    return CONCEPTS


def _family_points(vectors, seed=12):
    C = concept_class()
    rng = np.random.default_rng(seed)
    target = np.array(C.labels(5), dtype=np.int64)     # concept 5: x1 and not x2
    idx_f = rng.integers(0, C.n_points, 10)
    idx_f[0] = int(np.flatnonzero(target == 0)[0])     # both labels among the first rows
    idx_f[1] = int(np.flatnonzero(target == 1)[0])
    idx = np.array([1, 0, 3, 6, 2, 7])                 # labels 0, 0, 0, 1, 1, 0
    if not vectors:
        return Family("points", idx, target[idx], idx_f, target[idx_f], labels=(0, 1))
    pts = np.array(C.points, dtype=np.int64)
    return Family("vectors", pts[idx], target[idx], pts[idx_f], target[idx_f], labels=(0, 1))


FAMILIES = {}


def family(name):
    if name not in FAMILIES:
        FAMILIES[name] = {
            "real": _family_real, "real3": _family_real3, "bool": _family_bool,
            "bool3": _family_bool3,
            "packed": _family_packed,
            "advice": _family_advice,
            "advice3": lambda: _family_advice(labels=(0, 1, 2)),
            "awake": lambda: _family_advice(awake=True),
            "categorical": _family_categorical,
            "points": lambda: _family_points(False),
            "vectors": lambda: _family_points(True),
        }[name]()
    return FAMILIES[name]


# ------------------------------------------------------------------------------------------------
# The learners: every public one, with the options that change how input is read (the table
# below for the learners that existed; any other registered learner is added from what its
# class declares: _derived)
# ------------------------------------------------------------------------------------------------

def _pool():
    return [mbcore.Perceptron(), mbcore.Winnow(features="real"), mbcore.OnlineHingeSVM()]


# id -> (family, factory, multi): ``multi`` when the learner takes more than two labels (True:
# any labels, one alone included; "classes": two or more classes that are not a regression
# target, as the linear learners, which take the binary rules with two)
LEARNERS = {
    "Perceptron": ("real", lambda: mbcore.Perceptron(), "classes"),
    "Perceptron(normalize,intercept)": (
        "real", lambda: mbcore.Perceptron(normalize=True, fit_intercept=True), "classes"),
    "MarginPerceptron": ("real", lambda: mbcore.MarginPerceptron(gamma=0.2), "classes"),
    "AveragedPerceptron(average)": ("real", lambda: mbcore.AveragedPerceptron(), "classes"),
    "AveragedPerceptron(vote)": ("real", lambda: mbcore.AveragedPerceptron(mode="vote"), False),
    "KernelPerceptron(rbf)": ("real", lambda: mbcore.KernelPerceptron(kernel="rbf"), "classes"),
    "KernelPerceptron(poly,budget=3)": (
        "real", lambda: mbcore.KernelPerceptron(kernel="poly", degree=2, budget=3), "classes"),
    "KernelPerceptron(poly,3 classes)": (
        "real3", lambda: mbcore.KernelPerceptron(kernel="poly", degree=2), "classes"),
    "KernelPerceptron(ovr,budget=3,3 classes)": (
        "real3", lambda: mbcore.KernelPerceptron(multi_class="ovr", budget=3), "classes"),
    "OnlineHingeSVM": ("real", lambda: mbcore.OnlineHingeSVM(), "classes"),
    "PassiveAggressive": ("real", lambda: mbcore.PassiveAggressive(), "classes"),
    "PassiveAggressive(II,3 classes)": (
        "real3", lambda: mbcore.PassiveAggressive(variant="PA-II"), "classes"),
    "PassiveAggressive(plain,ovr,3 classes)": (
        "real3", lambda: mbcore.PassiveAggressive(variant="PA", multi_class="ovr"), "classes"),
    # the linear learners with three classes (the weight matrix; both strategies)
    "Perceptron(3 classes)": ("real3", lambda: mbcore.Perceptron(), "classes"),
    "Perceptron(ovr,intercept,3 classes)": (
        "real3", lambda: mbcore.Perceptron(multi_class="ovr", fit_intercept=True), "classes"),
    "MarginPerceptron(3 classes)": (
        "real3", lambda: mbcore.MarginPerceptron(gamma=0.2), "classes"),
    "MarginPerceptron(ovr,3 classes)": (
        "real3", lambda: mbcore.MarginPerceptron(gamma=0.2, multi_class="ovr"), "classes"),
    "AveragedPerceptron(normalize,3 classes)": (
        "real3", lambda: mbcore.AveragedPerceptron(normalize=True), "classes"),
    "OnlineHingeSVM(3 classes)": ("real3", lambda: mbcore.OnlineHingeSVM(), "classes"),
    "OnlineHingeSVM(ovr,3 classes)": (
        "real3", lambda: mbcore.OnlineHingeSVM(multi_class="ovr"), "classes"),
    "Winnow": ("bool", lambda: mbcore.Winnow(), "classes"),
    "Winnow(real)": ("real", lambda: mbcore.Winnow(features="real"), "classes"),
    "EliminationWinnow": ("bool", lambda: mbcore.EliminationWinnow(), "classes"),
    "WinnowStar": ("bool", lambda: mbcore.WinnowStar(), "classes"),
    "BalancedWinnow": ("bool", lambda: mbcore.BalancedWinnow(), "classes"),
    "BalancedWinnow(real)": (
        "real", lambda: mbcore.BalancedWinnow(features="real"), "classes"),
    # the Winnow family with three classes (K weight vectors; both strategies)
    "Winnow(3 classes)": ("bool3", lambda: mbcore.Winnow(), "classes"),
    "Winnow(ovr,3 classes)": ("bool3", lambda: mbcore.Winnow(multi_class="ovr"), "classes"),
    "EliminationWinnow(3 classes)": ("bool3", lambda: mbcore.EliminationWinnow(), "classes"),
    "WinnowStar(ovr,3 classes)": (
        "bool3", lambda: mbcore.WinnowStar(multi_class="ovr"), "classes"),
    "BalancedWinnow(real,3 classes)": (
        "real3", lambda: mbcore.BalancedWinnow(features="real"), "classes"),
    "WeightedMajority": ("advice", lambda: mbcore.WeightedMajority(), True),
    "WeightedMajority(3 labels)": ("advice3", lambda: mbcore.WeightedMajority(), True),
    "RandomizedWeightedMajority": (
        "advice", lambda: mbcore.RandomizedWeightedMajority(random_state=3), True),
    # (a pool takes the classes its learners take; its learners keep what they learned when
    # the pool starts again, so new labels for a fitted pool are refused by them)
    "WeightedMajority(pool)": ("real", lambda: mbcore.WeightedMajority(experts=_pool()), "pool"),
    "RandomizedWeightedMajority(pool)": (
        "real", lambda: mbcore.RandomizedWeightedMajority(experts=_pool()), "pool"),
    "Specialists": ("awake", lambda: mbcore.Specialists(), True),
    "PairSpecialists": ("categorical", lambda: mbcore.PairSpecialists(), True),
    "PairSpecialists(limited)": (
        "categorical", lambda: mbcore.PairSpecialists(max_specialists=PAIR_LIMIT), True),
    "Conjunction": ("bool", lambda: mbcore.Conjunction(), False),
    "Disjunction": ("bool", lambda: mbcore.Disjunction(), False),
    "Disjunction(all)": ("bool", lambda: mbcore.Disjunction(literals="all"), False),
    "DecisionList": ("bool", lambda: mbcore.DecisionList(), False),
    "DecisionList(packed)": (
        "packed", lambda: mbcore.DecisionList(packed=True, n_features=N_PACKED), False),
    "Conjunction(packed)": (
        "packed", lambda: mbcore.Conjunction(packed=True, n_features=N_PACKED), False),
    "Halving(points)": ("points", lambda: mbcore.Halving(concept_class()), False),
    "Halving(vectors)": ("vectors", lambda: mbcore.Halving(concept_class()), False),
    "SOA(points)": ("points", lambda: mbcore.SOA(concept_class()), False),
    "SOA(vectors)": ("vectors", lambda: mbcore.SOA(concept_class()), False),
    "Conservative(Perceptron)": (
        "real", lambda: mbcore.Conservative(mbcore.Perceptron()), "classes"),
    "Conservative(Conjunction)": (
        "bool", lambda: mbcore.Conservative(mbcore.Conjunction()), False),
}


def class_name(learner_id):
    return learner_id.split("(")[0]


_FAMILY_OF = {"advice": "advice", "awake advice": "awake", "categorical": "categorical",
              "points": "points"}


def _derived():
    """Every registered learner the table above does not name (a learner added since): one
    case per entry of its ``_unit_test_params()``, and for one that takes K classes the same
    with three, the input family from its tags (tests/_cases.py: real values for the additive
    learners, 0/1 features for the other feature learners); a ConceptClass parameter becomes
    this file's concept class."""
    covered = {class_name(lid) for lid in LEARNERS}
    out = {}
    for name, cls in _cases.learners():
        if name in covered:
            continue
        takes = _cases.tag(cls, "takes")
        fam = _FAMILY_OF.get(takes, "real" if _cases.takes_tie(cls) else "bool")
        multi = True if takes in ("advice", "awake advice", "categorical") else \
            "classes" if _cases.tag(cls, "k_classes") else False
        for i, p in enumerate(_cases.unit_params(cls)):
            def factory(cls=cls, p=p):
                return cls(**{k: concept_class() if isinstance(v, mbcore.ConceptClass) else v
                              for k, v in p.items()})
            out[f"{name}(unit{i})"] = (fam, factory, multi)
            if multi == "classes" and fam in ("real", "bool"):
                out[f"{name}(unit{i},3 classes)"] = (fam + "3", factory, multi)
    return out


LEARNERS.update(_derived())


def names_allowed(learner_id):
    """The class names a message may start with: the learner's, and for the wrapper also the
    wrapped learner's (its errors are the wrapped learner's own)."""
    name = class_name(learner_id)
    if name == "Conservative":
        return [name, learner_id[len(name) + 1:-1]]
    return [name]


def make_learner(learner_id, fitted):
    fam_name, factory, _ = LEARNERS[learner_id]
    L = factory()
    if fitted:
        fam = family(fam_name)
        L.partial_fit(fam.X_fit, fam.y_fit, **fam.kw_fit)
    return L


# ------------------------------------------------------------------------------------------------
# Methods
# ------------------------------------------------------------------------------------------------

X_METHODS = ("partial_fit", "fit", "predict", "decision_function", "score", "run_online",
             "certify")
NOT_FIT = tuple(m for m in X_METHODS if m != "fit")      # fit starts again: any width is fine
Y_METHODS = ("partial_fit", "fit", "score", "run_online", "certify")
CLASSES_METHODS = ("partial_fit", "fit", "run_online", "certify")
LABELS_IN = {"partial_fit", "fit", "score", "run_online", "certify"}
AWAKE_IN = {"partial_fit", "fit", "predict", "score", "run_online", "certify"}


def has_method(learner_id, method):
    L = LEARNERS[learner_id][1]()
    if method in ("run_online", "certify"):
        return True
    return hasattr(L, method)


def call(L, method, inp):
    """Run one method with the input (X, y, keywords: classes=, awake=)."""
    X, y, kw = inp["X"], inp["y"], dict(inp["kw"])
    if method not in ("partial_fit", "fit", "run_online", "certify"):
        kw.pop("classes", None)
    if method == "partial_fit":
        return L.partial_fit(X, y, **kw)
    if method == "fit":
        return L.fit(X, y, **kw)
    if method == "predict":
        return L.predict(X, **kw)
    if method == "decision_function":
        return L.decision_function(X, **kw)
    if method == "score":
        return L.score(X, y, **kw)
    if method == "run_online":
        return mbcore.run_online(L, X, y, **kw)
    if method == "certify":
        return mbcore.certify(L, X, y, **kw)
    raise AssertionError(method)


def states_for(method):
    """The learner states a call is tried from: a first call also from an unfitted learner;
    predict, decision_function and score need a fitted one; certify runs a clone."""
    if method in ("partial_fit", "fit", "run_online"):
        return ("unfitted", "fitted")
    return ("fitted",)


# ------------------------------------------------------------------------------------------------
# Bad inputs.  Each kind makes an input from a family (or None: the kind does not apply), and
# says what the message must name (regular expressions, all of which must match).
# ------------------------------------------------------------------------------------------------

KEEP = object()         # "the family's own value" (None is a bad input of its own)


def _inp(fam, X=KEEP, y=KEEP, **kw):
    out = {"X": fam.X.copy() if X is KEEP else X, "y": fam.y.copy() if y is KEEP else y,
           "kw": {k: np.array(v) for k, v in fam.kw.items()}}
    out["kw"].update(kw)
    return out


def _put(fam, value, dtype=None):
    """The family's X with ``value`` at (BAD_ROW, 0), in ``dtype`` (float64 by default, object
    for a value NumPy would otherwise convert)."""
    if fam.kind == "points" and (dtype is None or np.dtype(dtype).kind in "fcO"):
        rows = fam.X.tolist()
        rows[BAD_ROW] = value
        return rows
    X = fam.X.astype(np.float64 if dtype is None else dtype)
    if X.ndim == 2:
        X[BAD_ROW, 0] = value
    else:
        X[BAD_ROW] = value
    return X


def _put_array(fam, value):
    """The family's X as a float64 array with ``value`` at BAD_ROW (for the layouts)."""
    X = fam.X.astype(np.float64)
    if X.ndim == 2:
        X[BAD_ROW, 0] = value
    else:
        X[BAD_ROW] = value
    return X


def _as_list(fam, value=KEEP, row_len=None):
    rows = fam.X.tolist()
    if value is not KEEP:
        if fam.two_d:
            rows[BAD_ROW][0] = value
        else:
            rows[BAD_ROW] = value
    if row_len is not None:
        rows[BAD_ROW] = rows[BAD_ROW][:row_len]
    return rows


ROW = r"\brow %d\b|\bround %d\b" % (BAD_ROW, BAD_ROW)     # advice and awake masks have rounds
ANY_ROW = r"\brow \d|\bround \d"
NONFINITE = r"nan|inf"
NOT_REAL = r"str|real number|numbers|integer|0/1|label|categor|bytes"
SHAPE_2D = r"2-D|ndim|dimension|reshape"
EMPTY = r"empty|0 rows"
NO_COLS = r"0 feature|0 attribute|0 expert|0 specialist|0 values|features|attributes|0 bytes"
FEATURES = r"feature|attribute|expert|specialist|values|bytes|width"
SPARSE = r"csr|csc|coo|bsr|sparse|indptr|ind(ex|ices)"
INDPTR = r"indptr"      # a broken indptr is reported as such (not as some row's indices)
NONE = r"none"
LABEL = r"\by\b|label"
CLASSES = r"classes"


class Kind:
    """A bad input: ``make(fam, learner_id)`` -> input dict or None; ``expect``: regexes the
    message must match; ``methods``: which methods it is sent to; ``states``: the learner
    states ("unfitted"/"fitted") it is bad for; ``valid(lid, method, state)``: True where the
    input is in fact valid (a new label for a learner that takes any number of them);
    ``may_return``: the input is unusual but may be valid for some learners (then a return
    with a sane result is accepted too)."""

    def __init__(self, make, expect=(), methods=X_METHODS, states=("unfitted", "fitted"),
                 may_return=False, valid=None):
        self.make, self.expect, self.methods = make, tuple(expect), methods
        self.states, self.may_return = states, may_return
        self.valid = valid or (lambda lid, method, state: False)

    def bad_in(self, lid, method):
        """The learner states in which this input is bad for that call (certify runs an
        unfitted clone of the learner it is given: the input must be bad for that one)."""
        out = []
        for s in states_for(method):
            seen = "unfitted" if method == "certify" else s
            if seen in self.states and not self.valid(lid, method, seen):
                out.append(s)
        return out


def _multi(lid):
    return LEARNERS[lid][2]


def _advice_first(lid, method, state):
    """A new value in the advice of a learner that has seen nothing (or starts again: fit) is
    a new label."""
    return (state == "unfitted" or method == "fit") and \
        LEARNERS[lid][0] in ("advice", "advice3", "awake")


def _refit_any(lid, method, state):
    """fit starts again: a learner taking any labels (one alone, or real values) takes it."""
    return method == "fit" and _multi(lid) is True


def _refit_multi(lid, method, state):
    """fit starts again: a learner taking any number of labels takes the new one."""
    return method == "fit" and _multi(lid) in (True, "classes")


def _only(*kinds):
    """Restrict a maker to families of the given kinds."""
    def wrap(make):
        def inner(fam, lid):
            return make(fam, lid) if fam.kind in kinds else None
        return inner
    return wrap


NUMERIC = ("real", "bool", "packed", "advice", "points", "vectors")      # not categorical
TWO_D = ("real", "bool", "packed", "advice", "categorical", "vectors")
ROWS_01 = ("bool", "vectors")


def _sparse_source(fam):
    """A 2-D numeric matrix to build sparse inputs from (point indices as one column)."""
    X = fam.X if fam.two_d else fam.X[:, None]
    return np.asarray(X, dtype=np.float64)


def _bad_csr(fam, change, index_dtype=np.int32):
    data, indices, indptr = csr_parts(_sparse_source(fam), index_dtype)
    shape = _sparse_source(fam).shape
    changed = change(data, indices, indptr, shape)
    return None if changed is None else DuckCSR(*changed)


def _row_start(indptr, row):
    """The first stored value of a row with at least one (from ``row`` on)."""
    for r in range(row, indptr.shape[0] - 1):
        if indptr[r + 1] > indptr[r]:
            return int(indptr[r]), r
    raise AssertionError("no stored value")


def _set_index(value, row=BAD_ROW):
    def change(data, indices, indptr, shape):
        k, _ = _row_start(indptr, row)
        indices = indices.copy()
        indices[k] = value
        return data, indices, indptr, shape
    return change


def _csr_index(value_of_d, dtype=np.int32):
    def make(fam, lid):
        d = _sparse_source(fam).shape[1]
        return _inp(fam, X=_bad_csr(fam, _set_index(value_of_d(d)), dtype))
    return make


def _csr_change(change, dtype=np.int32):
    def make(fam, lid):
        X = _bad_csr(fam, change, dtype)
        return None if X is None else _inp(fam, X=X)
    return make


def _unsorted(data, indices, indptr, shape):
    for r in range(shape[0]):
        a, b = int(indptr[r]), int(indptr[r + 1])
        if b - a >= 2:
            indices = indices.copy()
            indices[a], indices[a + 1] = indices[a + 1], indices[a]
            return data, indices, indptr, shape
    return None                         # (point indices: one column)


def _duplicate(data, indices, indptr, shape):
    for r in range(shape[0]):
        a, b = int(indptr[r]), int(indptr[r + 1])
        if b - a >= 2:
            indices = indices.copy()
            indices[a + 1] = indices[a]
            return data, indices, indptr, shape
    return None                         # (point indices: one column)


def _indptr(fn):
    def change(data, indices, indptr, shape):
        return data, indices, fn(indptr.copy(), indices.shape[0]), shape
    return change


def _decreasing(p, nnz):
    # a row whose end comes before its start (and the rows after it still end at nnz)
    p[BAD_ROW + 1] = p[BAD_ROW] - 1 if p[BAD_ROW] > 0 else 0
    if p[BAD_ROW] == 0:
        p[BAD_ROW] = 1
    return p


def _scipy_csr_mutated(what):
    """A scipy CSR matrix made valid, then changed in place (scipy trusts its arrays)."""
    def make(fam, lid):
        if sp is None:
            return None
        X = sp.csr_array(_sparse_source(fam))
        if what == "indices":
            k, _ = _row_start(X.indptr, BAD_ROW)
            X.indices[k] = X.shape[1] + 5
        else:
            X.indptr[BAD_ROW + 1] = X.indptr[-1] + 7
        return _inp(fam, X=X)
    return make


def _csc_bad(what):
    def make(fam, lid):
        if sp is None:
            return None
        X = sp.csc_array(_sparse_source(fam))
        if what == "index":
            X.indices[0] = X.shape[0] + 3
        else:
            X.indptr[1] = X.indptr[-1] + 2
        return _inp(fam, X=X)
    return make


def _coo_bad(what):
    def make(fam, lid):
        if sp is None:
            return None
        X = sp.coo_array(_sparse_source(fam))
        if what == "column":
            X.col[0] = X.shape[1] + 4
        elif what == "row":
            X.row[0] = -1
        else:
            X.data = np.append(X.data, 1.0)
        return _inp(fam, X=X)
    return make


def _bsr_bad(what):
    def make(fam, lid):
        if sp is None:
            return None
        S = _sparse_source(fam)
        X = sp.bsr_array(S, blocksize=(1, 1))
        if what == "index":
            X.indices[0] = S.shape[1] + 2
        else:
            X.data = X.data.reshape(-1)[:, None, None].repeat(2, axis=1)   # 2x1 blocks
        return _inp(fam, X=X)
    return make


def _wider(fam, k):
    """X with k more columns (k < 0: fewer), in the family's own encoding."""
    X = fam.X
    if k < 0:
        return X[:, :X.shape[1] + k].copy() if X.shape[1] + k > 0 else None
    return np.hstack([X, X[:, :k]])


def _packed_change(fn):
    @_only("packed")
    def make(fam, lid):
        return _inp(fam, X=fn(fam.X.copy()))
    return make


def _pad_bits(A):
    A[BAD_ROW, -1] |= 1                 # the last of the 6 padding bits of the second byte
    return A


def _packed_int(value):
    def fn(A):
        B = A.astype(np.int16)
        B[BAD_ROW, 0] = value
        return B
    return fn


def _points(make):
    return _only("points")(make)


def _awake(make):
    def inner(fam, lid):
        if "awake" not in fam.kw:
            return None
        return make(fam, lid)
    return inner


def _awake_with(value, dtype):
    def make(fam, lid):
        W = fam.kw["awake"].astype(dtype)
        W[BAD_ROW, 1] = value
        return _inp(fam, awake=W)
    return make


def _pandas(make):
    def inner(fam, lid):
        return None if pd is None else make(fam, lid)
    return inner


BAD_KINDS = {
    # -- values --------------------------------------------------------------------------------
    "nan": Kind(lambda fam, lid: _inp(fam, X=_put(fam, math.nan)), [ROW, NONFINITE]),
    # (a one-row partial_fit of a fitted linear learner takes a shortcut of its own; one label
    # alone does not tell the classes to an unfitted one, or to fit)
    "one_row_nan": Kind(lambda fam, lid: _one_row_bad(fam, math.nan),
                        [r"\brow 0\b|\bround 0\b", NONFINITE], states=("fitted",),
                        methods=NOT_FIT),
    "inf": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_put(fam, math.inf))),
                [ROW, NONFINITE], valid=_advice_first),
    "neg_inf": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_put(fam, -math.inf))),
                    [ROW, NONFINITE], valid=_advice_first),
    "huge_1e308": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_put(fam, 1e308))),
                       [ROW], may_return=True, valid=_advice_first),
    "bool_value_2": Kind(_only(*ROWS_01)(lambda fam, lid: _inp(fam, X=_put(fam, 2, np.int64))),
                         [ROW, r"\b2\b"]),
    "bool_value_half": Kind(_only(*ROWS_01)(lambda fam, lid: _inp(fam, X=_put(fam, 0.5))),
                            [ROW, r"0\.5"]),
    "bool_value_negative": Kind(
        _only(*ROWS_01)(lambda fam, lid: _inp(fam, X=_put(fam, -1, np.int64))), [ROW, r"-1\b"]),
    "complex": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_put(fam, 1 + 1j, complex))),
                    [r"complex|real|integer|label|0/1|bytes"]),
    "strings_array": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=fam.X.astype(str))),
                          [NOT_REAL]),
    "strings_list": Kind(
        _only(*NUMERIC)(lambda fam, lid: _inp(fam, X=np.asarray(fam.X).astype(str).tolist())),
        [NOT_REAL]),
    "object_str_value": Kind(
        _only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_put(fam, "1", object))), [NOT_REAL]),
    "none_in_list": Kind(_only(*NUMERIC)(lambda fam, lid: _inp(fam, X=_as_list(fam, None))),
                         [r"none|real|integer|label|0/1|bytes"]),
    "object_dict_value": Kind(lambda fam, lid: _inp(fam, X=_put(fam, {}, object)),
                              [r"dict|real|hashable|integer|label|0/1|bytes"]),
    "datetime_array": Kind(
        _only(*NUMERIC)(lambda fam, lid: _inp(fam, X=np.zeros(fam.X.shape, "datetime64[s]"))),
        [r"datetime|dtype|real|integer|label|0/1|bytes"]),
    # -- shapes --------------------------------------------------------------------------------
    "X_none": Kind(lambda fam, lid: _inp(fam, X=None), [NONE]),
    "X_string": Kind(lambda fam, lid: _inp(fam, X="0,1,0"), [r"\bstr|string"]),
    "X_scalar": Kind(lambda fam, lid: _inp(fam, X=3.0), [SHAPE_2D + r"|float|sequence"]),
    "empty_X": Kind(lambda fam, lid: _inp(fam, X=fam.X[:0], y=fam.y[:0],
                                          **({"awake": fam.kw["awake"][:0]} if fam.kw else {})),
                    [EMPTY]),
    "zero_columns": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=fam.X[:, :0], **({"awake": fam.kw["awake"][:, :0]} if fam.kw else {}))),
        [NO_COLS]),
    # (1-D 0/1 values are point indices for the version-space learners; a wrapper counts the
    # values of a 1-D X as its rows)
    "one_d": Kind(_only(*(k for k in TWO_D if k != "vectors"))(lambda fam, lid: _inp(
        fam, X=fam.X[0].copy())), [SHAPE_2D + r"|\brows\b"]),
    "three_d": Kind(lambda fam, lid: _inp(fam, X=fam.X.reshape(fam.X.shape[:1] + (-1, 1, 1))
                                          .copy()), [SHAPE_2D]),
    "ragged_list": Kind(_only(*TWO_D)(lambda fam, lid: _inp(fam, X=_as_list(fam, row_len=1))),
                        [r"ragged|length|inhomogeneous|sequence|shape|row|2-D"]),
    "features_plus_one": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=_wider(fam, 1), **({"awake": np.hstack([fam.kw["awake"]] * 2)[:, :6]}
                                  if fam.kw else {}))),
        [FEATURES, r"\b%s\b"], states=("fitted",), methods=NOT_FIT),
    "features_minus_one": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=_wider(fam, -1), **({"awake": fam.kw["awake"][:, :-1]} if fam.kw else {}))),
        [FEATURES, r"\b%s\b"], states=("fitted",), methods=NOT_FIT),
    # -- PairSpecialists: inputs it refuses before creating any specialist ---------------------
    # (a zero-stride view of 2049 columns: its pairs cannot be numbered in 21 bits; 40 rows of
    # new values: 6 pairs x 40 could be new, past the limited learner's max_specialists)
    "attributes_past_2048": Kind(_only("categorical")(lambda fam, lid: _inp(
        fam, X=np.broadcast_to(fam.X[:, :1], (fam.X.shape[0], 2049)))),
        [r"\b2049 attributes", r"at most 2048"]),
    "specialists_past_limit": Kind(
        lambda fam, lid: _inp(fam, X=np.arange(160).reshape(40, 4) + 10, y=np.arange(40) % 2)
        if lid == "PairSpecialists(limited)" else None,
        [r"max_specialists=%d\b" % PAIR_LIMIT, r"specialists to \d+"],
        methods=("partial_fit", "fit", "run_online", "certify")),
    # -- unusual layouts holding a bad value -----------------------------------------------------
    # (every row is the bad one: any row may be named; a sleeping specialist's entry is not read)
    "broadcast_nan": Kind(_only(*TWO_D)(lambda fam, lid: _inp(fam, X=np.broadcast_to(
        _put_array(fam, math.nan)[BAD_ROW], fam.X.shape))), [ANY_ROW, NONFINITE]),
    "bigendian_nan": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=_put_array(fam, math.nan).astype(">f8"))), [ROW, NONFINITE]),
    "fortran_nan": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=np.asfortranarray(_put_array(fam, math.nan)))), [ROW, NONFINITE]),
    "strided_nan": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=np.repeat(_put_array(fam, math.nan), 2, axis=0)[::2])), [ROW, NONFINITE]),
    "pandas_nan": Kind(_only(*TWO_D)(_pandas(lambda fam, lid: _inp(
        fam, X=pd.DataFrame(_put_array(fam, math.nan))))), [ROW, NONFINITE]),
    # -- sparse structure (duck-typed CSR unless named) ------------------------------------------
    "csr_nan": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=duck_csr(_put_array(fam, math.nan)))), [ROW, NONFINITE]),
    "csr_index_out_of_range": Kind(_csr_index(lambda d: d), [SPARSE, ROW]),
    "csr_index_negative": Kind(_csr_index(lambda d: -1), [SPARSE, ROW]),
    "csr_index_int64_huge": Kind(_csr_index(lambda d: 2 ** 40, np.int64), [SPARSE]),
    "csr_index_uint64_huge": Kind(_csr_index(lambda d: 2 ** 63 + 5, np.uint64), [SPARSE]),
    "csr_indices_unsorted": Kind(_csr_change(_unsorted), [SPARSE, r"sort|order|row"]),
    "csr_indices_duplicate": Kind(_csr_change(_duplicate),
                                  [SPARSE, r"duplicate|repeat|sort|row"]),
    "csr_indptr_past_data": Kind(_csr_change(_indptr(lambda p, nnz: p + (
        np.arange(p.shape[0]) >= BAD_ROW + 1) * 3)), [INDPTR]),
    "csr_indptr_decreasing": Kind(_csr_change(_indptr(_decreasing)), [INDPTR]),
    "csr_indptr_short": Kind(_csr_change(_indptr(lambda p, nnz: p[:-2])), [INDPTR]),
    "csr_indptr_long": Kind(_csr_change(_indptr(lambda p, nnz: np.append(p, [nnz] * 2)
                                                .astype(p.dtype))), [INDPTR]),
    "csr_indptr_start_not_zero": Kind(_csr_change(_indptr(lambda p, nnz: np.where(
        np.arange(p.shape[0]) == 0, 1, p).astype(p.dtype))), [INDPTR]),
    "csr_data_longer": Kind(_csr_change(lambda d, i, p, s: (np.append(d, 1.0), i, p, s)),
                            [SPARSE + r"|values|data"]),
    "csr_indices_longer": Kind(_csr_change(lambda d, i, p, s: (d, np.append(i, 0).astype(
        i.dtype), p, s)), [SPARSE + r"|values|data"]),
    "csr_float_indices": Kind(_csr_change(lambda d, i, p, s: (d, i.astype(np.float64), p, s)),
                              [SPARSE + r"|integer"]),
    "csr_2d_data": Kind(_csr_change(lambda d, i, p, s: (d[:, None], i, p, s)),
                        [SPARSE + r"|data|1-D"]),
    "csr_bad_shape": Kind(_csr_change(lambda d, i, p, s: (d, i, p, (s[0],))),
                          [r"shape"]),
    "csr_negative_shape": Kind(_csr_change(lambda d, i, p, s: (d, i, p, (s[0], -3))),
                               [r"shape"]),
    "csr_int64_index_out_of_range": Kind(_csr_index(lambda d: d + 1, np.int64), [SPARSE, ROW]),
    "scipy_csr_indices_changed": Kind(_scipy_csr_mutated("indices"), [SPARSE, ROW]),
    "scipy_csr_indptr_changed": Kind(_scipy_csr_mutated("indptr"), [INDPTR]),
    "csc_index_out_of_range": Kind(_csc_bad("index"), [SPARSE]),
    "csc_indptr_past_data": Kind(_csc_bad("indptr"), [INDPTR]),
    "coo_column_out_of_range": Kind(_coo_bad("column"), [SPARSE]),
    "coo_row_negative": Kind(_coo_bad("row"), [SPARSE]),
    "coo_lengths_differ": Kind(_coo_bad("lengths"), [SPARSE]),
    "bsr_index_out_of_range": Kind(_bsr_bad("index"), [SPARSE]),
    "bsr_blocks_wrong_shape": Kind(_bsr_bad("blocks"), [SPARSE + r"|block"]),
    "duck_csr_without_data": Kind(lambda fam, lid: _inp(fam, X=DuckIncomplete(
        *csr_parts(_sparse_source(fam))[1:], _sparse_source(fam).shape)), []),
    "csr_features_plus_one": Kind(_only(*TWO_D)(lambda fam, lid: _inp(
        fam, X=duck_csr(np.hstack([fam.X, fam.X[:, :1]]).astype(np.float64)))),
        [FEATURES, r"\b%s\b"], states=("fitted",), methods=NOT_FIT),
    # -- family inputs -------------------------------------------------------------------------
    "packed_width_plus_one": Kind(_packed_change(lambda A: np.hstack([A, A[:, :1]])),
                                  [r"byte|width|packed"]),
    "packed_width_minus_one": Kind(_packed_change(lambda A: A[:, :1].copy()),
                                   [r"byte|width|packed"]),
    "packed_padding_bits": Kind(_packed_change(_pad_bits), [ROW, r"padding"]),
    "packed_negative_byte": Kind(_packed_change(_packed_int(-1)), [ROW, r"-1\b"]),
    "packed_byte_256": Kind(_packed_change(_packed_int(256)), [ROW, r"\b256\b"]),
    "packed_float_bytes": Kind(_packed_change(lambda A: A.astype(np.float64)),
                               [r"byte|integer|packed"]),
    "point_out_of_range": Kind(_points(lambda fam, lid: _inp(
        fam, X=_put(fam, concept_class().n_points, np.int64))), [ROW, r"\b8\b"]),
    "point_negative": Kind(_points(lambda fam, lid: _inp(fam, X=_put(fam, -1, np.int64))),
                           [ROW, r"-1\b"]),
    "point_uint64_huge": Kind(_points(lambda fam, lid: _inp(
        fam, X=_put(fam, 2 ** 63 + 1, np.uint64))), [ROW]),
    "point_float": Kind(_points(lambda fam, lid: _inp(fam, X=_put(fam, 2.5))), [ROW, r"2\.5"]),
    "point_float_integral": Kind(_points(lambda fam, lid: _inp(fam, X=fam.X.astype(float))),
                                 [r"integer"]),
    "point_bool": Kind(_points(lambda fam, lid: _inp(fam, X=_as_list(fam, True))),
                       [ROW, r"integer|bool"]),
    "point_list_out_of_range": Kind(_points(lambda fam, lid: _inp(fam, X=_as_list(fam, 99))),
                                    [ROW, r"\b99\b"]),
    "point_huge_python_int": Kind(_points(lambda fam, lid: _inp(fam, X=_as_list(fam, 2 ** 70))),
                                  [ROW]),
    "point_mixed_with_vector": Kind(_points(lambda fam, lid: _inp(
        fam, X=_as_list(fam, [0, 1, 0]))), [ROW]),
    "vector_not_in_domain": Kind(_only("vectors")(lambda fam, lid: _inp(
        fam, X=_put(fam, 3, np.int64))), [ROW]),
    "categorical_unhashable": Kind(_only("categorical")(lambda fam, lid: _inp(
        fam, X=_put(fam, [1, 2], object))), [r"hashable|list"]),
    "categorical_one_attribute": Kind(_only("categorical")(lambda fam, lid: _inp(
        fam, X=fam.X[:, :1].copy())), [r"attribute|pair"]),
    "advice_foreign_label": Kind(_only("advice")(lambda fam, lid: _inp(
        fam, X=_put(fam, FOREIGN, np.int64))), [ROW, r"\b7\b"], states=("fitted",),
        valid=_refit_multi),
    "awake_wrong_shape": Kind(_awake(lambda fam, lid: _inp(
        fam, awake=fam.kw["awake"][:, :-1].copy())), [r"awake", r"shape"],
        methods=tuple(AWAKE_IN)),
    "awake_value_2": Kind(_awake(_awake_with(2, np.int64)), [r"awake", r"\b2\b"],
                          methods=tuple(AWAKE_IN)),
    "awake_value_half": Kind(_awake(_awake_with(0.5, np.float64)), [r"awake", r"0\.5"],
                             methods=tuple(AWAKE_IN)),
    "awake_nan": Kind(_awake(_awake_with(math.nan, np.float64)), [r"awake", NONFINITE],
                      methods=tuple(AWAKE_IN)),
    "awake_strings": Kind(_awake(lambda fam, lid: _inp(
        fam, awake=fam.kw["awake"].astype(str))), [r"awake"], methods=tuple(AWAKE_IN)),
    "awake_none": Kind(_awake(lambda fam, lid: _inp(fam, awake=_awake_none(fam))),
                       [r"awake"], methods=tuple(AWAKE_IN)),
    "awake_1d": Kind(_awake(lambda fam, lid: _inp(fam, awake=fam.kw["awake"][0].copy())),
                     [r"awake"], methods=tuple(AWAKE_IN)),
    # -- y ----------------------------------------------------------------------------------------
    "y_none": Kind(lambda fam, lid: _inp(fam, y=None), [NONE], methods=Y_METHODS),
    "y_scalar": Kind(lambda fam, lid: _inp(fam, y=fam.labels[1]), [LABEL],
                     methods=Y_METHODS),
    "y_string": Kind(lambda fam, lid: _inp(fam, y="ab"), [LABEL], methods=Y_METHODS),
    "y_short": Kind(lambda fam, lid: _inp(fam, y=fam.y[:-1].copy()), [LABEL, r"\b5\b"],
                    methods=Y_METHODS),
    "y_long": Kind(lambda fam, lid: _inp(fam, y=np.append(fam.y, fam.y[:1])), [LABEL, r"\b7\b"],
                   methods=Y_METHODS),
    "y_2d": Kind(lambda fam, lid: _inp(fam, y=fam.y[:, None].copy()), [LABEL, SHAPE_2D],
                 methods=Y_METHODS),
    "y_nan": Kind(lambda fam, lid: _inp(fam, y=_y_with(fam, math.nan)), [LABEL, NONFINITE],
                  methods=Y_METHODS),
    "y_foreign_label": Kind(lambda fam, lid: _inp(fam, y=_y_with(fam, FOREIGN, np.int64)),
                            [LABEL, r"\b7\b"], methods=Y_METHODS, states=("fitted",),
                            valid=_refit_multi),
    "y_all_seven": Kind(lambda fam, lid: _inp(fam, y=[FOREIGN] * len(fam.y)),
                        [r"\b7\b"], methods=Y_METHODS,
                        valid=lambda lid, m, s: _advice_first(lid, m, s) or
                        (_refit_any(lid, m, s) and LEARNERS[lid][0] != "categorical")),
    "y_fraction": Kind(lambda fam, lid: _inp(fam, y=_y_with(fam, 0.5)), [LABEL, r"0\.5"],
                       methods=Y_METHODS, states=("fitted",), valid=_refit_any),
    "y_complex": Kind(lambda fam, lid: _inp(fam, y=fam.y + 1j), [LABEL], methods=Y_METHODS),
    "y_ragged": Kind(lambda fam, lid: _inp(fam, y=[[v] * (1 + k % 2) for k, v in
                                                  enumerate(fam.y.tolist())]),
                     [LABEL], methods=Y_METHODS),
    "y_mixed_kinds": Kind(lambda fam, lid: _inp(fam, y=[fam.y[0].item(), "a"] +
                                                fam.y[2:].tolist()),
                          [LABEL], methods=Y_METHODS),
    # -- classes= -------------------------------------------------------------------------------
    "classes_scalar": Kind(lambda fam, lid: _inp(fam, classes=1), [CLASSES],
                           methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_one_label": Kind(lambda fam, lid: _inp(fam, classes=fam.labels[1:2]), [CLASSES],
                              methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_three_labels": Kind(lambda fam, lid: None if LEARNERS[lid][2] else _inp(
        fam, classes=[-1, 0, 1]), [CLASSES], methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_nan": Kind(lambda fam, lid: _inp(fam, classes=[math.nan, 1.0]), [CLASSES],
                        methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_2d": Kind(lambda fam, lid: _inp(fam, classes=[fam.labels[:2]]), [CLASSES],
                       methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_string": Kind(lambda fam, lid: _inp(fam, classes="ab"), [CLASSES],
                           methods=CLASSES_METHODS, states=("unfitted",)),
    "classes_not_matching_y": Kind(lambda fam, lid: _inp(fam, classes=[3, 4]),
                                   [r"classes|label"], methods=CLASSES_METHODS,
                                   states=("unfitted",)),
    "classes_changed": Kind(lambda fam, lid: _inp(fam, classes=[3, 4]), [CLASSES],
                            methods=("partial_fit", "run_online"), states=("fitted",)),
}


def _one_row_bad(fam, value):
    inp = _inp(fam, X=_put(fam, value)[BAD_ROW:BAD_ROW + 1], y=fam.y[BAD_ROW:BAD_ROW + 1].copy())
    if "awake" in inp["kw"]:
        inp["kw"]["awake"] = inp["kw"]["awake"][BAD_ROW:BAD_ROW + 1].copy()
    return inp


def _y_with(fam, value, dtype=np.float64):
    y = fam.y.astype(dtype)
    y[BAD_ROW] = value
    return y


def _awake_none(fam):
    W = fam.kw["awake"].astype(object)
    W[BAD_ROW, 1] = None
    return W


# ------------------------------------------------------------------------------------------------
# Valid unusual layouts: make(fam) -> (variant input, plain input); both must give the same result
# ------------------------------------------------------------------------------------------------

def _pair(fam, variant, plain=None, y=KEEP, y_plain=KEEP, **kw):
    a = _inp(fam, X=variant, y=y)
    b = _inp(fam, X=plain if plain is not None else np.ascontiguousarray(fam.X), y=y_plain)
    for k, (v, p) in kw.items():
        a["kw"][k], b["kw"][k] = v, p
    return a, b


def _noncontig_columns(fam):
    X = fam.X
    if X.ndim == 1:
        big = np.zeros(2 * X.shape[0], dtype=X.dtype)
        big[::2] = X
        return _pair(fam, big[::2])
    big = np.zeros((X.shape[0], 2 * X.shape[1]), dtype=X.dtype)
    big[:, ::2] = X
    return _pair(fam, big[:, ::2])


def _readonly(fam):
    X = fam.X.copy()
    X.flags.writeable = False
    return _pair(fam, X)


def _as_dtype(dt, kinds):
    def make(fam):
        if fam.kind not in kinds:
            return None
        X = fam.X
        if fam.kind == "real":                    # the values times 4 are small integers
            if np.dtype(dt).kind in "iu":
                V = (X * 4).astype(dt)
                return _pair(fam, V, V.astype(np.float64))
            return _pair(fam, X.astype(dt), X.astype(dt).astype(np.float64))
        return _pair(fam, X.astype(dt))
    return make


def _bool_dtype(fam):
    if fam.kind == "real":
        return _pair(fam, fam.X > 0, (fam.X > 0).astype(np.float64))
    if fam.kind in ("bool", "vectors"):
        return _pair(fam, fam.X.astype(bool), fam.X.astype(np.int64))
    return None


def _broadcast(fam):
    V = np.broadcast_to(fam.X[1], fam.X.shape)
    return _pair(fam, V, np.array(V))


def _pandas_frame(fam):
    if pd is None:
        return None
    if fam.two_d:
        return _pair(fam, pd.DataFrame(fam.X))
    return _pair(fam, pd.Series(fam.X))


def _pandas_y(fam):
    if pd is None:
        return None
    return _pair(fam, fam.X.copy(), y=pd.Series(fam.y), y_plain=fam.y.copy())


SPARSE_FAMILIES = ("real", "bool", "advice")


def _sparse_layout(convert):
    def make(fam):
        if sp is None or fam.kind not in SPARSE_FAMILIES:
            return None
        D = np.asarray(fam.X, dtype=np.float64)
        return _pair(fam, convert(D), sp.csr_array(D))
    return make


def _one_row(convert):
    """The first row alone (the linear learners take a one-row partial_fit by a shortcut of
    its own), in an unusual layout."""
    def make(fam):
        out = []
        for X in (convert(fam.X[:1].copy()), fam.X[:1].copy()):
            d = _inp(fam, X=X, y=fam.y[:1].copy())
            if "awake" in d["kw"]:
                d["kw"]["awake"] = d["kw"]["awake"][:1].copy()
            out.append(d)
        return tuple(out)
    return make


def _read_only(X):
    X.flags.writeable = False
    return X


def _awake_layout(convert):
    def make(fam):
        if "awake" not in fam.kw:
            return None
        W = fam.kw["awake"]
        return _pair(fam, fam.X.copy(), awake=(convert(W), W.copy()))
    return make


LAYOUTS = {
    "noncontiguous_columns": _noncontig_columns,
    "noncontiguous_rows": lambda fam: _pair(fam, np.repeat(fam.X, 2, axis=0)[::2]),
    "negative_strides": lambda fam: _pair(fam, np.ascontiguousarray(fam.X[::-1])[::-1]),
    "fortran": lambda fam: _pair(fam, np.asfortranarray(fam.X)) if fam.two_d else None,
    "bigendian": lambda fam: _pair(fam, fam.X.astype(fam.X.dtype.newbyteorder(">"))),
    "readonly": _readonly,
    "broadcast": _broadcast,
    "list_of_lists": lambda fam: _pair(fam, fam.X.tolist()),
    "tuple_of_tuples": lambda fam: _pair(fam, tuple(tuple(r) for r in fam.X.tolist())
                                         if fam.two_d else tuple(fam.X.tolist())),
    "float32": _as_dtype(np.float32, ("real", "bool", "vectors")),
    "float16": _as_dtype(np.float16, ("real", "bool", "vectors")),
    "int32": _as_dtype(np.int32, ("real", "bool", "advice", "points", "vectors",
                                  "categorical", "packed")),
    "int8": _as_dtype(np.int8, ("real", "bool", "advice", "points", "vectors", "categorical")),
    "uint8": _as_dtype(np.uint8, ("bool", "advice", "points", "vectors", "categorical")),
    "bool": _bool_dtype,
    "pandas_dataframe": _pandas_frame,
    "pandas_y": _pandas_y,
    "y_list": lambda fam: _pair(fam, fam.X.copy(), y=fam.y.tolist(), y_plain=fam.y.copy()),
    # (the classes take y's dtype: the plain y is a native int32 one)
    "y_int32_bigendian": lambda fam: _pair(fam, fam.X.copy(), y=fam.y.astype(">i4"),
                                           y_plain=fam.y.astype(np.int32)),
    "y_noncontiguous": lambda fam: _pair(fam, fam.X.copy(), y=np.repeat(fam.y, 2)[::2],
                                         y_plain=fam.y.copy()),
    "csr_matrix": _sparse_layout(lambda D: sp.csr_matrix(D)),
    "csr_int64_float32": _sparse_layout(lambda D: duck_csr(D, np.int64, np.float32)),
    "csc_array": _sparse_layout(lambda D: sp.csc_array(D)),
    "coo_array": _sparse_layout(lambda D: sp.coo_array(D)),
    "coo_matrix": _sparse_layout(lambda D: sp.coo_matrix(D)),
    "bsr_array": _sparse_layout(lambda D: sp.bsr_array(D)),
    "lil_array": _sparse_layout(lambda D: sp.lil_array(D)),
    "dok_array": _sparse_layout(lambda D: sp.dok_array(D)),
    "one_row_bigendian": _one_row(lambda X: X.astype(X.dtype.newbyteorder(">"))),
    "one_row_readonly": _one_row(_read_only),
    "one_row_broadcast": _one_row(lambda X: np.broadcast_to(X[0], X.shape)),
    "awake_int": _awake_layout(lambda W: W.astype(np.int64)),
    "awake_list": _awake_layout(lambda W: W.tolist()),
    "awake_fortran": _awake_layout(lambda W: np.asfortranarray(W)),
}


def layout_applies(lid, layout):
    return LAYOUTS[layout](family(LEARNERS[lid][0])) is not None


# ------------------------------------------------------------------------------------------------
# The case table
# ------------------------------------------------------------------------------------------------

def bad_cases():
    """Every (learner, method, kind) that makes sense: the method exists, and the kind
    applies to the learner's family and is bad in at least one state the method is tried
    from."""
    out = []
    for lid, (fam_name, _, _) in LEARNERS.items():
        fam = family(fam_name)
        for method in X_METHODS:
            if not has_method(lid, method):
                continue
            for kname, kind in BAD_KINDS.items():
                if method not in kind.methods:
                    continue
                if method in ("predict", "decision_function") and kname.startswith("y_"):
                    continue
                if not kind.bad_in(lid, method):
                    continue
                if kind.make(fam, lid) is None:
                    continue
                if method == "certify" and kind.may_return:
                    continue
                out.append(f"{lid}-{method}-{kname}")
    return out


LAYOUT_METHODS = ("partial_fit", "fit", "predict", "decision_function", "score", "run_online")


def layout_cases():
    out = []
    for lid in LEARNERS:
        for method in LAYOUT_METHODS:
            if not has_method(lid, method):
                continue
            for layout in LAYOUTS:
                if layout.startswith("y_") or layout == "pandas_y":
                    if method not in LABELS_IN:
                        continue
                if not layout_applies(lid, layout):
                    continue
                out.append(f"{lid}-{method}-{layout}")
    return out


def parse(case):
    lid, method, kind = case.split("-")
    return lid, method, kind


# ------------------------------------------------------------------------------------------------
# Running a case
# ------------------------------------------------------------------------------------------------

REFUSE_SPARSE = ("packed", "points", "vectors")     # these rows cannot come as a sparse matrix


def _raised(exc):
    tb = traceback.extract_tb(exc.__traceback__)
    where = [f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in tb[-3:]]
    return {"outcome": "raised", "type": type(exc).__name__,
            "mro": [c.__name__ for c in type(exc).__mro__],
            "message": str(exc), "where": where}


def _sane(L, method, out):
    """For a call that returned on an unusual input: is what it returned sane (labels among
    the classes, finite scores)?"""
    if method == "predict":
        return all(v in list(L.classes_) for v in np.asarray(out).tolist())
    if method == "decision_function":
        return bool(np.isfinite(np.asarray(out, dtype=np.float64)).all())
    if method == "score":
        return 0.0 <= out <= 1.0
    return True


def run_bad(case):
    lid, method, kname = parse(case)
    kind = BAD_KINDS[kname]
    fam = family(LEARNERS[lid][0])
    runs = []
    for state in kind.bad_in(lid, method):
        L = make_learner(lid, state == "fitted")
        inp = kind.make(fam, lid)
        shape = getattr(inp["X"], "shape", None)
        cols = shape[1] if shape is not None and len(shape) == 2 else None
        expect = [e.replace("%s", str(cols)) for e in kind.expect]
        if kname.startswith(("csr", "csc", "coo", "bsr", "scipy")) and fam.kind in REFUSE_SPARSE:
            expect = [r"sparse"]        # refused as a whole, whatever is wrong inside
        before, inp_before = state_fp(L), input_fp(inp)
        try:
            out = call(L, method, inp)
        except Exception as exc:
            rec = _raised(exc)
        else:
            rec = {"outcome": "returned", "sane": _sane(L, method, out) if kind.may_return
                   else None}
        rec.update(state=state, state_same=state_fp(L) == before,
                   input_same=input_fp(inp) == inp_before)
        runs.append(rec)
    return {"runs": runs, "expect": expect, "may_return": kind.may_return,
            "names": names_allowed(lid)}


def run_layout(case):
    lid, method, layout = parse(case)
    fam = family(LEARNERS[lid][0])
    runs = []
    for state in states_for(method):
        variant, plain = LAYOUTS[layout](fam)
        results = []
        for inp in (plain, variant):
            L = make_learner(lid, state == "fitted")
            inp_before = input_fp(inp)
            try:
                out = call(L, method, inp)
            except Exception as exc:
                results.append(dict(_raised(exc), input_same=input_fp(inp) == inp_before))
                continue
            results.append({"outcome": "returned", "result": result_fp(out),
                            "learner": state_fp(L), "input_same": input_fp(inp) == inp_before})
        p, v = results
        rec = {"state": state, "plain": p.get("outcome"), "variant": v.get("outcome"),
               "plain_error": p.get("message"), "variant_error": v.get("message"),
               "variant_error_type": v.get("type"), "input_same": v["input_same"]}
        if p["outcome"] == v["outcome"] == "returned":
            rec["same_result"] = p["result"] == v["result"]
            rec["same_learner"] = p["learner"] == v["learner"]
        runs.append(rec)
    return {"runs": runs}


# ------------------------------------------------------------------------------------------------
# Hypothesis examples (arrays generated by the parent)
# ------------------------------------------------------------------------------------------------

def run_fuzz(req):
    """One generated input, with the parent's verdict on its validity: run it on the learner
    (fitted, or not for "fit_unfitted"), and for a valid one also its plain equivalent on a
    second learner, reporting whether both gave the same result and the same state."""
    lid, method = req["learner"], req["method"]
    payload = pickle.loads(base64.b64decode(req["payload"]))
    X, plain = build_fuzz_input(req["fuzz"], payload)
    fam = family(LEARNERS[lid][0])
    y = np.resize(fam.y, int(payload["n_rows"]))
    fitted = method != "fit_unfitted"
    m = "partial_fit" if method == "fit_unfitted" else method
    L = make_learner(lid, fitted)
    inp = {"X": X, "y": y, "kw": {}}
    before, inp_before = state_fp(L), input_fp(inp)
    try:
        out = call(L, m, inp)
    except Exception as exc:
        rec = _raised(exc)
    else:
        rec = {"outcome": "returned"}
    rec.update(state_same=state_fp(L) == before, input_same=input_fp(inp) == inp_before,
               names=names_allowed(lid))
    if plain is not None and rec["outcome"] == "returned":
        L2 = make_plain_learner(lid, fitted)
        try:
            out2 = call(L2, m, {"X": plain, "y": y, "kw": {}})
        except Exception as exc:
            rec["plain_error"] = f"{type(exc).__name__}: {exc}"
        else:
            rec["same"] = _comparable(L2) == _comparable(L) and \
                (m == "partial_fit" or result_fp(out) == result_fp(out2))
    return rec


def make_plain_learner(lid, fitted):
    """The learner a plain input goes to: the same one, or for packed rows the learner that
    reads them unpacked (fitted on the same rows, unpacked)."""
    if lid not in UNPACKED:
        return make_learner(lid, fitted)
    L = UNPACKED[lid]()
    if fitted:
        fam = family(LEARNERS[lid][0])
        L.partial_fit(unpack_rows(fam.X_fit, N_PACKED), fam.y_fit)
    return L


UNPACKED = {"DecisionList(packed)": lambda: mbcore.DecisionList(),
            "Conjunction(packed)": lambda: mbcore.Conjunction()}


def _comparable(L):
    """A learner's state without its constructor parameters (a packed learner and a plain
    one differ in those only)."""
    st = dict(L.__getstate__())
    for k in L.get_params(deep=False):
        st.pop(k, None)
    return state_fp(st)


def build_fuzz_input(kind, p):
    """(the input as generated, its plain equivalent or None when the parent found it
    invalid)."""
    if kind == "csr":
        X = DuckCSR(p["data"], p["indices"], p["indptr"], tuple(p["shape"]))
        if p["scipy"] and sp is not None:
            # a valid scipy matrix whose arrays are then replaced (scipy does not re-check)
            X = sp.csr_array(tuple(p["shape"]))
            X.data, X.indices, X.indptr = p["data"], p["indices"], p["indptr"]
        plain = dense_of_csr(p["data"], p["indices"], p["indptr"], tuple(p["shape"])) \
            if p["valid"] else None
        return X, plain
    if kind == "packed":
        return p["rows"], unpack_rows(p["rows"], N_PACKED) if p["valid"] else None
    if kind == "points":
        return p["rows"], np.array(p["plain"], dtype=np.int64) if p["valid"] else None
    raise AssertionError(kind)


# ------------------------------------------------------------------------------------------------
# The loop
# ------------------------------------------------------------------------------------------------

_SPEC_MODULES = ("linear", "multiclass", "multiplicative", "multiplicative_mc", "bitset")
_SPEC_DEFAULTS = {}


def pass_mode(parallel):
    """Every other request runs its learners' passes on two threads with every row sent
    through the speculative blocks (mbcore/_kernels/_spec.h); the others on one thread, the
    sequential pass: bad input meets both."""
    import importlib
    from mbcore import _threads
    _SPEC_DEFAULTS.setdefault("min_values", _threads.SPEC_MIN_VALUES)
    _threads.SPEC_MIN_VALUES = 0 if parallel else _SPEC_DEFAULTS["min_values"]
    os.environ["MBCORE_NUM_THREADS"] = "2" if parallel else "1"
    for name in _SPEC_MODULES:
        tune = getattr(importlib.import_module(f"mbcore._kernels.{name}"), "spec_tuning", None)
        if tune is not None:
            old = tune()
            _SPEC_DEFAULTS.setdefault(name, old)
            tune(*((0, 1, None, 1) if parallel else _SPEC_DEFAULTS[name]))


def serve():
    # The protocol owns the original stdout; anything the library prints goes to stderr.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import warnings
    warnings.simplefilter("ignore")
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    for count, line in enumerate(sys.stdin):
        req = json.loads(line)
        pass_mode(count % 2 == 1)
        try:
            if "case" in req:
                lid, method, kind = parse(req["case"])
                reply = run_bad(req["case"]) if kind in BAD_KINDS else run_layout(req["case"])
            elif "fuzz" in req:
                reply = run_fuzz(req)
            elif "crash" in req:                 # the suite's own check of its crash handling
                import ctypes
                ctypes.string_at(0)
                reply = {}
            else:
                raise ValueError(f"unknown request {req!r}")
        except BaseException:
            reply = {"worker_error": traceback.format_exc()}
        out.write(json.dumps(reply, default=_jsonable) + "\n")


def _jsonable(v):
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, (np.generic,)):
        return v.item()
    return repr(v)


if __name__ == "__main__":
    serve()
