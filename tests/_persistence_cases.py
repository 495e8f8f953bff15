"""The persistence tests' shared cases (not a test module: pytest does not collect it).

``EXTRA``: every learner that is not one of the additive learners (``_cases.ADDITIVE``), with
data it takes: the Winnow family, the experts and specialists, the Boolean learners, Halving and
SOA, with nested learners, random generators and caches (``SAVED_0_1_0``, the cases whose files
mbcore 0.1.0 wrote: fixtures/files-0.1.0), and any learner registered since, one case per entry
of its ``_unit_test_params()`` with the data its class declares (``_learner_data``).  ``learner_state`` reads a learner's state
bit for bit; ``fit_params``, ``record`` and ``_observe`` feed and compare.  ``read_file`` and
``write_file`` take a saved file apart and write one back with every digest recomputed (from the
format's description), so that only the consistency checks can refuse it.  Used by
test_persistence.py, test_persistence_crafted.py, test_persistence_fixtures.py,
test_specialists_limits.py and fixtures/make_files.py.
"""

import copy
import hashlib
import io
import json

import numpy as np

import mbcore
from conftest import as_list, real_stream
from _cases import is_additive, learners, unit_params
from _learner_data import data as declared_data


# ------------------------------------------------------------------------------------------------
# Comparing states bit for bit
# ------------------------------------------------------------------------------------------------

_DERIVED = {"_kstate", "_fast", "_y1", "_ldim", "_classes_given"}


def canon(v):
    """A learner's state as nested tuples comparable with == (arrays by dtype, shape and bytes,
    floats by their hex form, nested learners and ConceptClass structurally)."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "O":
            return ("O", v.shape, tuple(canon(x) for x in v.ravel().tolist()))
        return ("A", v.dtype.str, v.shape, np.ascontiguousarray(v).tobytes())
    if isinstance(v, np.generic):
        return ("S", v.dtype.str, v.tobytes())
    if type(v) is float:
        return ("f", v.hex())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(canon(x) for x in v))
    if isinstance(v, dict):
        return ("D", tuple(sorted((repr(k), type(k).__name__, canon(x)) for k, x in v.items())))
    if isinstance(v, mbcore.OnlineLearner):
        return ("L", type(v).__name__, learner_state(v))
    if isinstance(v, mbcore.ConceptClass):
        return ("C", canon(v._cols), v.n_concepts, canon(v.points), v.name)
    return (type(v).__name__, v)


def learner_state(clf):
    out = []
    for k in sorted(clf.__dict__):
        if k in _DERIVED:
            continue
        v = clf.__dict__[k]
        if k == "_fitted_concepts":
            out.append((k, v is clf.concepts))
            continue
        out.append((k, canon(v)))
    return tuple(out)


# ------------------------------------------------------------------------------------------------
# Every learner that is not in the contract registry, with data it takes
# ------------------------------------------------------------------------------------------------

def _bool_data(seed=3, n=120, d=10, labels=None):
    rng = np.random.default_rng(seed)
    Xb = (rng.random((n, d)) < 0.35).astype(np.uint8)
    y = np.where(Xb[:, 0] | Xb[:, 3], 1, -1)
    y = np.where(rng.random(n) < 0.05, -y, y)
    if labels is not None:
        y = np.where(y > 0, labels[1], labels[0])
    return Xb, y, {}


def _advice(seed=4, n=120, m=7, classes=(-1, 1)):
    rng = np.random.default_rng(seed)
    cl = np.array(classes)
    y = cl[rng.integers(0, len(cl), n)]
    P = cl[rng.integers(0, len(cl), (n, m))]
    good = rng.random(n) < 0.85
    P[good, 0] = y[good]
    return P, y, {}


def _awake(seed=5, n=120, m=9):
    P, y, _ = _advice(seed, n, m, (0, 1, 2))
    awake = np.random.default_rng(seed + 1).random((n, m)) < 0.6
    awake[:, 0] = True
    return P, y, {"awake": awake}


def _cats(seed=6, n=120):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, (n, 4))
    Xc = [[int(a[i, 0]), ["red", "green", "blue"][a[i, 1]], bool(a[i, 2] % 2), float(a[i, 3])]
          for i in range(n)]
    y = np.where((a[:, 0] == a[:, 1]) | (a[:, 2] == 1), "yes", "no")
    return Xc, y, {}


def _points(seed=7, n=120, k=5, noise=0.05):
    C = mbcore.ConceptClass.half_intervals(k)
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, C.n_points, n)
    lab = np.array(C.labels(11))
    y = lab[pts]
    y = np.where(rng.random(n) < noise, 1 - y, y)
    return pts, y, {"classes": [0, 1]}


def _vectors(seed=8, n=120):
    C = mbcore.ConceptClass.monotone_conjunctions(4)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, C.n_points, n)
    Xv = np.array(C.points)[idx]
    y = np.array(C.labels(5))[idx]
    return Xv, y, {"classes": [0, 1]}


C_HALF = mbcore.ConceptClass.half_intervals(5)
C_MONO = mbcore.ConceptClass.monotone_conjunctions(4)
C_MATRIX = mbcore.ConceptClass.from_matrix(
    np.random.default_rng(9).integers(0, 2, (70, 32)))       # points None: indices only

SAVED_0_1_0 = [
    ("Winnow", lambda: mbcore.Winnow(), _bool_data),
    ("Winnow-alpha3-beta.25-theta4", lambda: mbcore.Winnow(alpha=3.0, beta=0.25, theta=4.0,
                                                          w0=0.5), _bool_data),
    ("Winnow-beta0", lambda: mbcore.Winnow(beta=0.0), _bool_data),
    ("Winnow-real", lambda: mbcore.Winnow(features="real"), lambda: real_stream(21, 120, 6)
     + ({},)),
    ("Winnow-n_features", lambda: mbcore.Winnow(n_features=10), _bool_data),
    ("Winnow-str-labels", lambda: mbcore.Winnow(),
     lambda: _bool_data(labels=np.array(["ham", "spam"]))),
    ("EliminationWinnow", lambda: mbcore.EliminationWinnow(), _bool_data),
    ("WinnowStar", lambda: mbcore.WinnowStar(alpha=4.0), _bool_data),
    ("BalancedWinnow", lambda: mbcore.BalancedWinnow(), _bool_data),
    ("BalancedWinnow-real", lambda: mbcore.BalancedWinnow(features="real", alpha=1.5,
                                                          theta=0.5),
     lambda: real_stream(22, 120, 6) + ({},)),
    ("WeightedMajority", lambda: mbcore.WeightedMajority(), _advice),
    ("WeightedMajority-beta.7", lambda: mbcore.WeightedMajority(beta=0.7), _advice),
    ("WeightedMajority-multi", lambda: mbcore.WeightedMajority(),
     lambda: _advice(classes=("a", "b", "c"))),
    ("RandomizedWeightedMajority", lambda: mbcore.RandomizedWeightedMajority(random_state=12),
     _advice),
    ("RandomizedWeightedMajority-multi",
     lambda: mbcore.RandomizedWeightedMajority(random_state=2**63 + 5, beta=0.3),
     lambda: _advice(classes=(0, 1, 2, 3))),
    ("WeightedMajority-experts",
     lambda: mbcore.WeightedMajority(experts=[mbcore.Perceptron(), mbcore.Winnow(),
                                              mbcore.Conjunction(), mbcore.DecisionList()]),
     _bool_data),
    ("RandomizedWeightedMajority-experts",
     lambda: mbcore.RandomizedWeightedMajority(random_state=3, experts=[
         mbcore.AveragedPerceptron(mode="vote"),
         mbcore.WeightedMajority(experts=[mbcore.EliminationWinnow(), mbcore.Perceptron()])]),
     _bool_data),
    ("Specialists", lambda: mbcore.Specialists(), _awake),
    ("Specialists-options", lambda: mbcore.Specialists(demote=0.25, promote=2.0, threshold=0.6,
                                                       prune_below=0.1), _awake),
    ("PairSpecialists", lambda: mbcore.PairSpecialists(history=3), _cats),
    ("Conjunction", lambda: mbcore.Conjunction(), _bool_data),
    ("Disjunction", lambda: mbcore.Disjunction(), _bool_data),
    ("Disjunction-all", lambda: mbcore.Disjunction(literals="all"), _bool_data),
    ("DecisionList", lambda: mbcore.DecisionList(), _bool_data),
    ("Halving", lambda: mbcore.Halving(C_HALF), _points),
    ("Halving-conservative", lambda: mbcore.Halving(C_MONO, conservative=True), _vectors),
    ("Halving-matrix", lambda: mbcore.Halving(C_MATRIX),
     lambda: (np.random.default_rng(10).integers(0, 32, 120),
              np.random.default_rng(11).integers(0, 2, 120), {"classes": [0, 1]})),
    ("SOA", lambda: mbcore.SOA(C_HALF), _points),
]


def _since():
    """A case per ``_unit_test_params()`` entry of every registered learner that neither the
    additive cases nor SAVED_0_1_0 cover."""
    covered = {e[0].split("-")[0] for e in SAVED_0_1_0}
    return [(f"{name}-unit{i}", (lambda cls=cls, p=p: cls(**p)),
             (lambda cls=cls: declared_data(cls)))
            for name, cls in learners() if not is_additive(cls) and name not in covered
            for i, p in enumerate(unit_params(cls))]


EXTRA = SAVED_0_1_0 + _since()
EXTRA_IDS = [e[0] for e in EXTRA]


# ------------------------------------------------------------------------------------------------
# Feeding a learner a part of its data, and what is compared
# ------------------------------------------------------------------------------------------------

def fit_params(extra, a, b, first):
    out = {}
    for k, v in extra.items():
        if k == "classes":
            if first:
                out[k] = v
        else:
            out[k] = v[a:b]
    return out


def record(run):
    return {"predictions": as_list(run.predictions), "errors": as_list(run.errors),
            "updated": as_list(run.updated), "mistakes": run.mistakes, "updates": run.updates}


def _observe(clf, A, extra):
    if isinstance(clf, mbcore.Specialists) and not isinstance(clf, mbcore.PairSpecialists):
        return as_list(clf.predict(A, awake=extra.get("awake")))
    out = {"predict": as_list(clf.predict(A))}
    if not isinstance(clf, (mbcore.PairSpecialists, mbcore.Halving, mbcore.SOA)):
        out["scores"] = as_list(clf.decision_function(A))
    return out


# ------------------------------------------------------------------------------------------------
# Writing files with consistent digests (from the format's description)
# ------------------------------------------------------------------------------------------------

def array_digest(a):
    h = hashlib.sha256()
    h.update(a.dtype.str.encode("ascii") + b"|" + json.dumps(list(a.shape)).encode("ascii")
             + b"|" + np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def document_digest(meta):
    body = {k: v for k, v in meta.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False,
                      ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def read_file(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(arrays.pop("__meta__").tobytes().decode("utf-8"))
    return meta, arrays


def write_file(meta, arrays, compress=False):
    """An archive with every digest recomputed: only the consistency checks can refuse it."""
    meta = copy.deepcopy(meta)
    meta["arrays"] = {k: {"dtype": a.dtype.str, "shape": list(a.shape),
                          "sha256": array_digest(a)} for k, a in arrays.items()}
    meta["digest"] = document_digest(meta)
    text = json.dumps(meta).encode("utf-8")
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(
        buf, __meta__=np.frombuffer(text, dtype=np.uint8), **arrays)
    return buf.getvalue()
