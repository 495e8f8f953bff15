"""Bad input: a clear error, never a crash, never a silent wrong answer.

Every check runs on the compiled learners (mbcore) and, where the twin takes the same input, on
the twins (mbref), which must raise the same exception type.  After a failing call the learner
must be exactly as it was before (all or nothing), and no call may modify its inputs.
"""

import copy
import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from conftest import (DuckCSR, as_list, csr_from_dense, real_stream, run_isolated, snapshot)
from _cases import entry_id, is_additive, kept_or_derived

# CI runs this file on the debug build and the AddressSanitizer build too (tests/README.md)
pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

# The additive learners (tests/_cases.py): these finer cases for the ones that existed, every
# other one by its _unit_test_params().
FINER = {
    "Perceptron": [{}, {"normalize": True, "fit_intercept": True}],
    "MarginPerceptron": [{}],
    "AveragedPerceptron": [{}, {"mode": "vote"}],
    "KernelPerceptron": [{"kernel": "rbf"}, {"kernel": "poly", "budget": 4}],
    "OnlineHingeSVM": [{}, {"eta": 0.1, "fit_intercept": True}],
    "PassiveAggressive": [{}, {"variant": "PA-II", "fit_intercept": True}],
}
LEARNERS = kept_or_derived(is_additive, FINER)
LEARNER_IDS = [entry_id(e) for e in LEARNERS]
MODULES = [mbcore, mbref]

learner_param = pytest.mark.parametrize("spec", LEARNERS, ids=LEARNER_IDS)
mod_param = pytest.mark.parametrize("mod", MODULES, ids=["mbcore", "mbref"])


def new(mod, spec, **extra):
    name, params = spec
    return getattr(mod, name)(**dict(params, **extra))


X0, Y0 = real_stream(5, 30, 4)
XB, YB = real_stream(6, 8, 4)          # the batch fed after X0


def fitted(mod, spec, **extra):
    return new(mod, spec, **extra).partial_fit(X0, Y0)


def frozen(clf):
    """A deep snapshot of everything observable (copies: mbcore may return views)."""
    return copy.deepcopy(snapshot(clf))


def with_bad(X, row, col, value):
    X = np.array(X, dtype=np.float64, copy=True)
    X[row, col] = value
    return X


def layout(X, kind):
    if kind == "dense":
        return X
    return csr_from_dense(X, np.int32)


# -- NaN and infinity ------------------------------------------------------------------------------

@learner_param
@mod_param
@pytest.mark.parametrize("kind", ["dense", "csr"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_non_finite_values_name_the_row(spec, mod, kind, value):
    bad = layout(with_bad(XB, 3, 1, value), kind)
    # partial_fit in the middle of a stream: ValueError naming the row, and no change at all.
    clf = fitted(mod, spec)
    before = frozen(clf)
    with pytest.raises(ValueError, match=r"row 3\b"):
        clf.partial_fit(bad, YB)
    assert frozen(clf) == before
    # ... and the learner carries on exactly as one that never saw the failing batch.
    clf.partial_fit(XB, YB)
    assert frozen(clf) == frozen(fitted(mod, spec).partial_fit(XB, YB))
    # fit, predict, decision_function.
    with pytest.raises(ValueError, match=r"row 3\b"):
        new(mod, spec).fit(bad, YB)
    with pytest.raises(ValueError, match=r"row 3\b"):
        clf.predict(bad)
    with pytest.raises(ValueError, match=r"row 3\b"):
        clf.decision_function(bad)
    assert frozen(clf) == frozen(fitted(mod, spec).partial_fit(XB, YB))


@learner_param
@mod_param
def test_run_online_failure_is_all_or_nothing(spec, mod):
    clf = fitted(mod, spec)
    before = frozen(clf)
    with pytest.raises(ValueError, match=r"row 7\b"):
        mod.run_online(clf, with_bad(XB, 7, 0, math.nan), YB)
    assert frozen(clf) == before


@learner_param
@mod_param
def test_failed_first_partial_fit_leaves_learner_unfitted(spec, mod):
    """"The learner was left as before the call": before the first call it was unfitted, so it
    must still be unfitted (and a later first call must start from scratch)."""
    clf = new(mod, spec)
    with pytest.raises(ValueError, match=r"row 2\b"):
        clf.partial_fit(with_bad(XB, 2, 0, math.nan), YB)
    with pytest.raises(mod.NotFittedError):
        clf.predict(XB)
    with pytest.raises(mod.NotFittedError):
        clf.n_seen_


# -- overflow --------------------------------------------------------------------------------------

OVERFLOW = [
    ("Perceptron", {"eta": 1e10}),
    ("Perceptron", {"eta": 1e10, "fit_intercept": True}),
    ("AveragedPerceptron", {"eta": 1e10}),
    ("AveragedPerceptron", {"eta": 1e10, "mode": "vote"}),
    ("KernelPerceptron", {"kernel": "poly", "degree": 3}),
    ("OnlineHingeSVM", {"eta": 1e9, "lam": 1e-10}),
]
OVERFLOW_IDS = [f"{n}{p}" for n, p in OVERFLOW]


@pytest.mark.parametrize("spec", OVERFLOW, ids=OVERFLOW_IDS)
@mod_param
def test_overflow_raises_and_keeps_state(spec, mod):
    clf = fitted(mod, spec)
    before = frozen(clf)
    big = np.vstack([XB[:1], np.full((1, 4), 1e300), XB[1:3]])
    yb = np.array([YB[0], -YB[0], YB[1], YB[2]])
    with pytest.raises(ValueError, match=r"row 1\b"):
        clf.partial_fit(big, yb)
    assert frozen(clf) == before


@pytest.mark.parametrize("spec,hint", [
    (("Perceptron", {"eta": 1e10}), "scale X down or lower eta"),
    (("AveragedPerceptron", {"eta": 1e10}), "scale X down or lower eta"),
    (("OnlineHingeSVM", {"eta": 1e9, "lam": 1e-10}), "scale X down or raise lam"),
    (("KernelPerceptron", {"kernel": "poly", "degree": 3}), "scale X down)"),
])
def test_the_overflow_error_names_what_helps_this_learner(spec, hint):
    """The hint of an overflow names the learner's own step parameter, and no parameter the
    learner does not have (the kernel Perceptron has no eta)."""
    clf = fitted(mbcore, spec)
    big = np.vstack([XB[:1], np.full((1, 4), 1e300), XB[1:3]])
    with pytest.raises(ValueError, match=r"row 1\b") as err:
        clf.partial_fit(big, np.array([YB[0], -YB[0], YB[1], YB[2]]))
    assert hint in str(err.value)


def _overflowing_row(clf):
    """A finite row whose exact score is astronomically large (|score| >> 1e308) for clf."""
    if type(clf).__name__ == "KernelPerceptron":
        z = np.array(as_list(clf.support_vectors_))[0]       # (g z.x + c0)^3 with |z.x| ~ 1e300
        return 1e300 * np.where(z >= 0, 1.0, -1.0)
    w = np.array(as_list(clf.coef_))
    assert np.abs(w).max() > 1.0                              # the eta = 1e10 / 1e9 weights
    return 1e300 * np.where(w >= 0, 1.0, -1.0)


@pytest.mark.parametrize("spec", [s for s in OVERFLOW if s[1].get("mode") != "vote"],
                         ids=[i for s, i in zip(OVERFLOW, OVERFLOW_IDS)
                              if s[1].get("mode") != "vote"])
@mod_param
def test_overflowing_score_raises_in_predict(spec, mod):
    clf = fitted(mod, spec)
    before = frozen(clf)
    X = np.vstack([XB[:2], _overflowing_row(clf)])
    with pytest.raises(ValueError, match=r"row 2\b"):
        clf.decision_function(X)
    with pytest.raises(ValueError, match=r"row 2\b"):
        clf.predict(X)
    assert frozen(clf) == before


def test_voted_scores_on_overflow_agree_between_twins():
    """The voted score is sum_k c_k sign(v_k . x): both twins must treat an overflowing
    v_k . x the same way (both raise ValueError, or both return the same votes)."""
    spec = ("AveragedPerceptron", {"eta": 1e10, "mode": "vote"})
    out = []
    for mod in MODULES:
        clf = fitted(mod, spec)
        X = np.vstack([XB[:2], _overflowing_row(clf)])
        try:
            out.append(("values", as_list(clf.decision_function(X)), as_list(clf.predict(X))))
        except ValueError:
            out.append(("ValueError",))
    assert out[0] == out[1]


@mod_param
@pytest.mark.parametrize("spec", [("Perceptron", {"normalize": True}), ("MarginPerceptron", {})],
                         ids=["Perceptron(normalize)", "MarginPerceptron"])
@pytest.mark.parametrize("v", [1e200, 1e-200])
def test_normalisation_of_extreme_rows_is_not_silently_zero(spec, mod, v):
    """x = (v, v) is a non-zero vector whose unit vector (1, 1)/sqrt(2) is representable, but
    ||x||^2 overflows (v = 1e200) or underflows (v = 1e-200).  The numerics rule: normalize
    "scales each x to unit length (a zero vector stays zero)".  Either the learner uses the unit
    vector (w = y x/||x|| after the first update), or it refuses the row with ValueError; it must
    not treat the row as the zero vector and count an update that changed nothing."""
    clf = new(mod, spec)
    try:
        clf.partial_fit([[v, v]], [1], classes=[-1, 1])
    except ValueError:
        return
    assert as_list(clf.coef_) == pytest.approx([2 ** -0.5, 2 ** -0.5], rel=1e-12)


# -- shapes and sizes ------------------------------------------------------------------------------

@learner_param
@mod_param
def test_wrong_ndim(spec, mod):
    for X in (np.ones(4), np.ones((2, 3, 4))):
        with pytest.raises(ValueError):
            new(mod, spec).partial_fit(X, [1, -1][:len(X)] if X.ndim == 1 else [1, -1])
        with pytest.raises(ValueError):
            fitted(mod, spec).predict(X)
    clf = fitted(mod, spec)
    before = frozen(clf)
    with pytest.raises(ValueError):
        clf.partial_fit(np.ones(4), [1])
    assert frozen(clf) == before


@learner_param
@mod_param
@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_wrong_feature_count(spec, mod, kind):
    clf = fitted(mod, spec)
    before = frozen(clf)
    for d in (3, 5):
        X = layout(real_stream(1, 6, d)[0], kind)
        with pytest.raises(ValueError, match="features"):
            clf.partial_fit(X, YB[:6])
        with pytest.raises(ValueError, match="features"):
            clf.predict(X)
        with pytest.raises(ValueError, match="features"):
            clf.decision_function(X)
    assert frozen(clf) == before


@learner_param
@mod_param
def test_empty_X(spec, mod):
    for X, y in ((np.zeros((0, 4)), []), (np.zeros((3, 0)), [1, -1, 1]),
                 (DuckCSR(np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int32), (0, 4)), []),
                 (DuckCSR(np.zeros(0), np.zeros(0, np.int32), np.zeros(3, np.int32), (2, 0)),
                  [1, -1])):
        with pytest.raises(ValueError):
            new(mod, spec).partial_fit(X, y, classes=[-1, 1])
        with pytest.raises(ValueError):
            new(mod, spec).fit(X, y, classes=[-1, 1])
    clf = fitted(mod, spec)
    with pytest.raises(ValueError):
        clf.predict(np.zeros((0, 4)))
    with pytest.raises(ValueError):
        clf.partial_fit(np.zeros((0, 4)), [])


# -- labels ----------------------------------------------------------------------------------------

@learner_param
@mod_param
def test_bad_labels(spec, mod):
    X3 = XB[:3]
    # (the class declares whether it takes three classes; the vote mode does not)
    multi = getattr(mbcore, spec[0])._TAGS.k_classes and spec[1].get("mode") != "vote"
    if multi:                            # three classes are taken; a regression target is not
        with pytest.raises(ValueError):
            new(mod, spec).partial_fit(X3, [0.5, -1.5, 2.5])
    else:
        with pytest.raises(ValueError):
            new(mod, spec).partial_fit(X3, [1, -1, 2])             # three labels
    with pytest.raises(ValueError):
        new(mod, spec).partial_fit(X3, [1, -1])                    # length mismatch
    with pytest.raises(ValueError):
        new(mod, spec).partial_fit(X3, [1.0, -1.0, math.nan])      # NaN label
    with pytest.raises(ValueError):
        new(mod, spec).partial_fit(X3, [1, -1, 1], classes=[0, 1])  # outside the given pair
    clf = fitted(mod, spec)
    before = frozen(clf)
    for y in ([1, -1, 2], [0, 1, 1], [1, -1], [1, -1, 1, 1], [1.0, math.nan, -1.0],
              ["a", "b", "a"]):
        with pytest.raises(ValueError):
            clf.partial_fit(X3, y)
    for y in ([2], [math.nan], [0]):                               # one-row batches too
        with pytest.raises(ValueError):
            clf.partial_fit(X3[:1], y)
    with pytest.raises(ValueError):
        clf.partial_fit(X3, [1, -1, 1], classes=[0, 1])             # classes changed
    assert frozen(clf) == before
    # Long label arrays (other code paths): the odd label at the very end.
    Xl = np.repeat(XB, 13, axis=0)[:100]
    base = np.where(np.arange(100) % 2 == 0, 1, -1)
    for y in (np.append(base[:-1], 2), np.append(base[:-1], 2).astype(np.int8),
              np.append(base[:-1].astype(float), math.nan), np.append(base[:-1], 0),
              np.append(base[:-1].astype(np.float32), 0.5)):
        with pytest.raises(ValueError):
            clf.partial_fit(Xl, y)
        if not (multi and np.isfinite(y).all() and (y == np.round(y)).all()):
            with pytest.raises(ValueError):
                new(mod, spec).partial_fit(Xl, y)                    # three labels / NaN
    assert frozen(clf) == before


@learner_param
@mod_param
def test_single_ambiguous_label(spec, mod):
    x = XB[:1]
    with pytest.raises(ValueError, match="classes"):
        new(mod, spec).partial_fit(x, [1])
    clf = new(mod, spec).partial_fit(x, [1], classes=[0, 1])
    assert as_list(clf.classes_) == [0, 1]
    assert set(as_list(clf.predict(XB))) <= {0, 1}
    # A single label that names its pair is enough: -1 -> (-1, 1), 0 -> (0, 1), bool.
    assert as_list(new(mod, spec).partial_fit(x, [-1]).classes_) == [-1, 1]
    assert as_list(new(mod, spec).partial_fit(x, [0]).classes_) == [0, 1]
    assert as_list(new(mod, spec).partial_fit(x, [True]).classes_) == [False, True]


# -- dtypes and memory layouts ---------------------------------------------------------------------

NON_NUMERIC = {
    "str": lambda: np.array([["1", "2"], ["3", "4"]]),
    "complex": lambda: np.array([[1 + 1j, 2.0], [3.0, 4.0]]),
    "object-None": lambda: np.array([[1.0, None], [3.0, 4.0]], dtype=object),
    "list-None": lambda: [[1.0, None], [3.0, 4.0]],
    "object-str": lambda: np.array([["1", "2"], ["3", "4"]], dtype=object),
    "list-str": lambda: [["1", "2"], ["3", "4"]],
}


@learner_param
@mod_param
@pytest.mark.parametrize("what", list(NON_NUMERIC))
def test_non_numeric_X_is_a_type_error(spec, mod, what):
    with pytest.raises(TypeError):
        new(mod, spec).partial_fit(NON_NUMERIC[what](), [1, -1])
    clf = new(mod, spec).partial_fit([[1.0, 2.0], [0.5, -1.0]], [1, -1])
    before = frozen(clf)
    with pytest.raises(TypeError):
        clf.partial_fit(NON_NUMERIC[what](), [1, -1])
    with pytest.raises(TypeError):
        clf.predict(NON_NUMERIC[what]())
    assert frozen(clf) == before


@learner_param
@mod_param
def test_non_contiguous_and_fortran_inputs(spec, mod):
    big, y = real_stream(8, 40, 8)
    views = {
        "strided-columns": big[:, ::2],
        "strided-rows": np.repeat(big[:, ::2], 2, axis=0)[::2],
        "fortran": np.asfortranarray(big[:, ::2]),
        "negative-strides": np.ascontiguousarray(big[::-1, ::2])[::-1],
        "read-only": np.ascontiguousarray(big[:, ::2]),
    }
    views["read-only"].flags.writeable = False
    ref = np.ascontiguousarray(big[:, ::2])
    want = new(mod, spec).partial_fit(ref, y)
    want_scores = as_list(want.decision_function(ref))
    for name, X in views.items():
        assert not np.shares_memory(X, ref)
        clf = new(mod, spec).partial_fit(X, y)
        assert frozen(clf) == frozen(want), name
        assert as_list(clf.decision_function(X)) == want_scores, name


@learner_param
@mod_param
def test_integer_bool_and_small_float_X(spec, mod):
    rng = np.random.default_rng(3)
    Xi = rng.integers(-3, 4, size=(30, 4))
    y = np.where(Xi.sum(axis=1) > 0, 1, -1)
    want = new(mod, spec).partial_fit(Xi.astype(np.float64), y)
    for dt in (np.int64, np.int32, np.int8, np.float16):
        clf = new(mod, spec).partial_fit(Xi.astype(dt), y)
        assert frozen(clf) == frozen(want), dt
    as_list_input = new(mod, spec).partial_fit(Xi.tolist(), y.tolist())
    assert frozen(as_list_input) == frozen(want)
    Xb = Xi > 0
    want_b = new(mod, spec).partial_fit(Xb.astype(np.float64), y)
    clf = new(mod, spec).partial_fit(Xb, y)
    assert frozen(clf) == frozen(want_b)
    assert as_list(clf.predict(Xb)) == as_list(want_b.predict(Xb.astype(np.float64)))


# -- invalid CSR -----------------------------------------------------------------------------------

def _csr(indices, indptr, shape, data=None, dtype=np.int32):
    indices = np.asarray(indices, dtype=dtype)
    data = np.ones(len(indices)) if data is None else np.asarray(data, dtype=np.float64)
    return DuckCSR(data, indices, np.asarray(indptr, dtype=dtype), shape)


BAD_CSR = {
    "unsorted": lambda dt: _csr([0, 2, 1], [0, 1, 3], (2, 4), dtype=dt),
    "duplicate": lambda dt: _csr([0, 1, 1], [0, 1, 3], (2, 4), dtype=dt),
    "out-of-range": lambda dt: _csr([0, 4], [0, 1, 2], (2, 4), dtype=dt),
    "negative-index": lambda dt: _csr([0, -1], [0, 1, 2], (2, 4), dtype=dt),
    "indptr-decreasing": lambda dt: _csr([0, 1], [0, 2, 1, 2], (3, 4), dtype=dt),
    "indptr-too-short": lambda dt: _csr([0, 1], [0, 2], (2, 4), dtype=dt),
    "data-length": lambda dt: DuckCSR(np.ones(3), np.array([0, 1], dt), np.array([0, 1, 2], dt),
                                      (2, 4)),
}


@learner_param
@mod_param
@pytest.mark.parametrize("what", list(BAD_CSR))
@pytest.mark.parametrize("dt", [np.int32, np.int64], ids=["i32", "i64"])
def test_invalid_csr(spec, mod, what, dt):
    with pytest.raises(ValueError):
        new(mod, spec).partial_fit(BAD_CSR[what](dt), [1, -1, 1][:BAD_CSR[what](dt).shape[0]])
    clf = fitted(mod, spec)
    before = frozen(clf)
    X = BAD_CSR[what](dt)
    with pytest.raises(ValueError):
        clf.partial_fit(X, [1, -1, 1][:X.shape[0]])
    with pytest.raises(ValueError):
        clf.predict(X)
    assert frozen(clf) == before


def test_scipy_unsorted_and_duplicate_indices_are_refused():
    X = sp.csr_array((np.array([1.0, 2.0]), np.array([2, 0], dtype=np.int32),
                      np.array([0, 2], dtype=np.int32)), shape=(1, 3))
    assert not X.has_sorted_indices
    with pytest.raises(ValueError, match="row 0"):
        mbcore.Perceptron().partial_fit(X, [1], classes=[-1, 1])
    X.sort_indices()
    mbcore.Perceptron().partial_fit(X, [1], classes=[-1, 1])


@learner_param
@pytest.mark.parametrize("fmt", ["coo_array", "coo_matrix", "csc_array", "csc_matrix",
                                 "csr_matrix", "lil_array", "dok_array", "bsr_array"])
def test_other_scipy_formats_are_converted(spec, fmt):
    X, y = real_stream(2, 25, 4)
    X[X < 0.2] = 0.0
    Xt, _ = real_stream(3, 10, 4)
    want = new(mbcore, spec).partial_fit(sp.csr_array(X), y)
    conv = getattr(sp, fmt)
    clf = new(mbcore, spec).partial_fit(conv(X), y)
    assert frozen(clf) == frozen(want)
    assert as_list(clf.decision_function(conv(Xt))) == as_list(
        want.decision_function(sp.csr_array(Xt)))


# -- the kernel Perceptron on CSR batches without stored values -----------------------------------

def test_kernel_perceptron_csr_batch_without_values():
    """An all-zero CSR batch (no stored values: data and indices are empty) is valid input.
    Run out of process: it used to crash the interpreter."""
    code = """
        import numpy as np, scipy.sparse as sp, mbcore
        Z = sp.csr_array(np.zeros((2, 3)))
        for kernel in ("linear", "poly", "rbf"):
            k = mbcore.KernelPerceptron(kernel=kernel)
            k.partial_fit(Z, [1, 1], classes=[-1, 1])
            print(kernel, k.n_support_, k.mistakes_)
    """
    rc, out, err = run_isolated(code)
    assert rc == 0, f"the interpreter died (return code {rc}): {err[-500:]}"
    # Each learner starts empty: f = 0 -> -1, a mistake, the zero row becomes a support vector;
    # linear and poly give K(0, 0) = 0 and 1 resp., rbf K = 1 (so the second row is correct
    # for poly and rbf, wrong again for linear).
    assert out.split("\n")[:3] == ["linear 2 2", "poly 1 1", "rbf 1 1"]


@mod_param
def test_kernel_scores_on_csr_batch_without_values(mod):
    """K(0, z) for a CSR zero row must equal the dense value: rbf exp(-g ||z||^2), poly c0^d."""
    X = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])
    for params in ({"kernel": "rbf", "gamma": 1.0}, {"kernel": "poly", "degree": 2},
                   {"kernel": "linear"}):
        k = mod.KernelPerceptron(**params).partial_fit(X, [1, -1])
        dense = as_list(k.decision_function(np.zeros((2, 3))))
        for Z in (sp.csr_array(np.zeros((2, 3))), csr_from_dense(np.zeros((2, 3)), np.int64)):
            assert as_list(k.decision_function(Z)) == dense, params
        if params["kernel"] == "rbf":
            assert dense[0] == pytest.approx(math.exp(-5.0) - math.exp(-10.0), rel=1e-12)


# -- bad parameters --------------------------------------------------------------------------------
# (every refused value of every parameter of every learner, from partial_fit, fit and set_params
# after fit, on both twins: learners/test_parameters.py, from the declared domains)


@mod_param
def test_eta_times_lam_above_one(mod):
    clf = mod.OnlineHingeSVM(lam=1.0, eta=2.0)
    with pytest.raises(ValueError) as exc:
        clf.partial_fit(X0, Y0)
    msg = str(exc.value)
    assert "OnlineHingeSVM" in msg and "eta" in msg and "lam" in msg
    assert "2.0" in msg and "1.0" in msg
    mod.OnlineHingeSVM(lam=1.0, eta=1.0).partial_fit(X0, Y0)      # eta * lam = 1 is allowed


# -- inputs are never modified ---------------------------------------------------------------------

def _inputs():
    X, y = real_stream(12, 20, 4)
    X[X < 0] = 0.0
    return {
        "dense64": (X, y),
        "dense32-labels-str": (X.astype(np.float32), np.where(y > 0, "spam", "ham")),
        "fortran": (np.asfortranarray(X), y.astype(np.int32)),
        "int": (np.round(X * 3).astype(np.int64), y.astype(np.float64)),
        "csr-scipy": (sp.csr_array(X), y),
        "csr-i64": (csr_from_dense(X, np.int64, np.float32), y),
    }


def _copy_input(X):
    if isinstance(X, np.ndarray):
        return X.copy(order="K")
    return (X.data.copy(), X.indices.copy(), X.indptr.copy())


def _same_input(X, saved):
    if isinstance(X, np.ndarray):
        return X.dtype == saved.dtype and X.flags.f_contiguous == saved.flags.f_contiguous and \
            np.array_equal(X, saved)
    return all(a.dtype == b.dtype and np.array_equal(a, b)
               for a, b in zip((X.data, X.indices, X.indptr), saved))


@learner_param
@mod_param
@pytest.mark.parametrize("which", ["dense64", "dense32-labels-str", "fortran", "int", "csr-scipy",
                                   "csr-i64"])
def test_inputs_are_never_modified(spec, mod, which):
    X, y = _inputs()[which]
    sX, sy = _copy_input(X), y.copy()
    calls = [
        lambda c: c.partial_fit(X, y),
        lambda c: c.partial_fit(X, y),
        lambda c: c.predict(X),
        lambda c: c.decision_function(X),
        lambda c: mod.run_online(c, X, y),
        lambda c: c.fit(X, y),
        lambda c: c.score(X, y) if hasattr(c, "score") else None,
    ]
    clf = new(mod, spec, max_epochs=3)
    for k, call in enumerate(calls):
        call(clf)
        assert _same_input(X, sX), k
        assert np.array_equal(y, sy) and y.dtype == sy.dtype, k


# -- the common-case CSR check is only a shortcut -------------------------------------------

def _csr_variants(rng):
    """CSR inputs, valid and not: indices out of range or negative, unsorted or repeated,
    indptr decreasing, past the end or not from 0, mixed index types, non-native or
    non-contiguous arrays, integer values, wrong widths."""
    n, d = 4, 6
    dense = (rng.random((n, d)) < 0.5) * rng.normal(size=(n, d))
    base = sp.csr_matrix(dense)
    out = [base]
    for change in range(14):
        X = base.copy()
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
        nnz = X.indices.shape[0]
        if change == 0 and nnz:
            X.indices[0] = d
        elif change == 1 and nnz:
            X.indices[-1] = -1
        elif change == 2 and nnz > 1:
            X.indices[:2] = X.indices[1::-1]
        elif change == 3 and X.indptr[2] > X.indptr[1]:
            X.indptr[1] = X.indptr[2] + 1
        elif change == 4:
            X.indptr[-1] = nnz + 3
        elif change == 5:
            X.indptr = X.indptr.astype(np.int64)          # mixed index types
        elif change == 6:
            X.data = X.data.astype(">f8")
        elif change == 7:
            X.data = np.repeat(X.data, 2)[::2]
        elif change == 8:
            X.data = X.data.astype(np.int64)
        elif change == 9:
            X.indices = X.indices.astype(np.uint32)
        elif change == 10:
            X.data = X.data.astype(np.float32)
        elif change == 11:
            X.indptr = X.indptr + 1
        elif change == 12 and nnz:
            X.indices[:] = 0
        out.append(X)
    return out


@pytest.mark.parametrize("seed", range(25))
def test_the_fast_csr_check_agrees_with_the_general_one(seed):
    """Whatever the shortcut accepts, the general check accepts too and gives the same arrays;
    what it declines goes to the general path (which raises with its message)."""
    from mbcore import _validation as V
    taken = 0
    for X in _csr_variants(np.random.default_rng(seed)):
        for width in (None, 6, 7):
            fast = V._csr_common("owner", X, width)
            try:
                full = V._check_csr("owner", X, width)
            except (ValueError, TypeError):
                assert fast is None
                continue
            if fast is not None:
                taken += 1
                assert (fast.n, fast.d) == (full.n, full.d)
                for a, b in ((fast.data, full.data), (fast.indices, full.indices),
                             (fast.indptr, full.indptr)):
                    assert a.dtype == b.dtype and np.array_equal(a, b)
    assert taken >= 2                     # the shortcut is taken for the valid inputs
