"""The compiled second-order learners (mbcore.second_order) against their twins
(mbref.second_order), bit for bit: online predictions, mistakes, updates, the means and the
covariances, then predict and decision_function, on the bundled a9a's first rows (a1a-like: 123
indicators) and on MNIST digits (ten classes), dense and CSR, float32 and float64, int32 and
int64 indices, with and without intercept, diagonal and full.  Then partial_fit in chunks
against one call, a failed call that leaves the learner as it was, pickling and the file format,
sample weights where the twin takes them and the refusals where it refuses.

Every expected value comes from the twin (plain Python, written from the papers; its own tests
compare it with NumPy rules in test_second_order_paper.py), never from mbcore.
"""

import io
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.datasets import load_a9a, load_mnist

pytestmark = pytest.mark.checked

# (name, params): every rule and variant, with parameters off their defaults where they enter
# the arithmetic (a non-dyadic r, phi from eta, C caps)
RULES = [
    ("AROW", {"r": 0.7}),
    ("ConfidenceWeighted", {"eta": 0.8}),
    ("SCW", {"C": 0.5, "eta": 0.75, "variant": "SCW-I"}),
    ("SCW", {"C": 0.3, "eta": 0.9, "variant": "SCW-II"}),
    ("NHERD", {"C": 0.3}),
    ("NAROW", {"b": 0.8}),
    ("NAROW", {"b": 3.0}),
    ("SecondOrderPerceptron", {"a": 0.6}),
]

A9A_X, A9A_Y = load_a9a()
_MX, _MY = load_mnist()
# ten classes, 200 digits, 40 of the 784 pixels (the twin's full matrices stay small)
MN_X = np.ascontiguousarray(_MX[:200, 300:500:5])
MN_Y = _MY[:200]


def a1a(n):
    return np.ascontiguousarray(A9A_X[:n]), A9A_Y[:n]


def fmt(X, how):
    """The same values as dense float64/float32 or CSR with int32/int64 indices (float64 or
    float32 data)."""
    if how == "dense64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if how == "dense32":
        return np.ascontiguousarray(X, dtype=np.float32)
    dtype = np.float32 if how.endswith("32") else np.float64
    C = sp.csr_matrix(X.astype(dtype))
    C.indices = C.indices.astype(np.int64 if "i64" in how else np.int32)
    C.indptr = C.indptr.astype(np.int64 if "i64" in how else np.int32)
    return C


FORMATS = ("dense64", "dense32", "csr_i32_f64", "csr_i64_f32")


def lst(v):
    return np.asarray(v, dtype=np.float64).tolist()


def state(clf):
    """What must be equal, as plain Python values (compared with ==)."""
    return {"mistakes": clf.mistakes_, "updates": clf.updates_, "seen": clf.n_seen_,
            "coef": lst(clf.coef_), "intercept": lst(clf.intercept_),
            "cov": lst(clf.covariance_)}


def record(run):
    return {"pred": np.asarray(run.predictions).tolist(),
            "updated": np.asarray(run.updated).astype(bool).tolist()}


def pair(name, params, **more):
    p = dict(params, **more)
    return getattr(mbcore, name)(**p), getattr(mbref, name)(**p)


def assert_same(clf, ref, Xn):
    assert state(clf) == state(ref)
    assert lst(clf.decision_function(Xn)) == lst(ref.decision_function(Xn))
    assert np.asarray(clf.predict(Xn)).tolist() == np.asarray(ref.predict(Xn)).tolist()


def ids(cases):
    return [n + "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")" for n, p in cases]


rules = pytest.mark.parametrize("case", RULES, ids=ids(RULES))


# -- two classes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("intercept", (False, True), ids=("", "intercept"))
@pytest.mark.parametrize("how", FORMATS)
@rules
def test_binary_diagonal_equals_the_twin(case, how, intercept):
    X, y = a1a(600)
    Xf, Xn = fmt(X[:500], how), fmt(X[500:], how)
    clf, ref = pair(*case, fit_intercept=intercept)
    assert record(mbcore.run_online(clf, Xf, y[:500])) == \
        record(mbref.run_online(ref, Xf, y[:500]))
    assert_same(clf, ref, Xn)
    assert clf.updates_ > 0 and clf.mistakes_ > 0


@pytest.mark.parametrize("intercept", (False, True), ids=("", "intercept"))
@pytest.mark.parametrize("how", ("dense64", "csr_i64_f32"))
@rules
def test_binary_full_equals_the_twin(case, how, intercept):
    X, y = a1a(180)
    Xf, Xn = fmt(X[:150], how), fmt(X[150:], how)
    clf, ref = pair(*case, covariance="full", fit_intercept=intercept)
    assert record(mbcore.run_online(clf, Xf, y[:150])) == \
        record(mbref.run_online(ref, Xf, y[:150]))
    assert_same(clf, ref, Xn)
    S = clf.covariance_
    assert S.shape == (123 + intercept,) * 2 and (S == S.T).all()


@rules
def test_binary_tie_positive_and_initial_scale(case):
    X, y = a1a(300)
    clf, ref = pair(*case, tie="positive", a=0.3)
    assert record(mbcore.run_online(clf, X, y)) == record(mbref.run_online(ref, X, y))
    assert_same(clf, ref, X[:50])


# -- three classes or more -----------------------------------------------------------------------

@pytest.mark.parametrize("intercept", (False, True), ids=("", "intercept"))
@pytest.mark.parametrize("how", ("dense64", "csr_i32_f64", "csr_i64_f32"))
@pytest.mark.parametrize("multi", ("multiclass", "ovr"))
@rules
def test_k_classes_diagonal_equals_the_twin(case, multi, how, intercept):
    name = case[0]
    Xf, Xn = fmt(MN_X[:160], how), fmt(MN_X[160:], how)
    clf, ref = pair(*case, multi_class=multi, fit_intercept=intercept)
    if multi == "multiclass" and name in ("NAROW", "SecondOrderPerceptron"):
        # no single-constraint form in the paper: refused, in the twin's words
        msg = same_error(lambda m: getattr(m, name)(**case[1], multi_class=multi)
                         .partial_fit(Xf, MN_Y[:160]))
        assert "multi_class='ovr'" in msg
        return
    assert record(mbcore.run_online(clf, Xf, MN_Y[:160])) == \
        record(mbref.run_online(ref, Xf, MN_Y[:160]))
    assert_same(clf, ref, Xn)
    assert clf.coef_.shape == (10, MN_X.shape[1])


@pytest.mark.parametrize("how", ("dense64", "csr_i32_f64"))
@rules
def test_k_classes_full_ovr_equals_the_twin(case, how):
    Xf, Xn = fmt(MN_X[:100, :20], how), fmt(MN_X[160:, :20], how)
    clf, ref = pair(*case, multi_class="ovr", covariance="full", fit_intercept=True)
    assert record(mbcore.run_online(clf, Xf, MN_Y[:100])) == \
        record(mbref.run_online(ref, Xf, MN_Y[:100]))
    assert_same(clf, ref, Xn)
    assert clf.covariance_.shape == (10, 21, 21)


# -- chunks, fit, failures, persistence ------------------------------------------------------------

CHUNKED = [(c, k) for c in RULES for k in ({}, {"multi_class": "ovr"},
                                           {"covariance": "full", "fit_intercept": True})]


@pytest.mark.parametrize("case,more", CHUNKED, ids=[i + str(m) for i, (_, m) in
                                                    zip(ids([c for c, _ in CHUNKED]), CHUNKED)])
def test_partial_fit_in_chunks_equals_one_call_and_one_epoch_of_fit(case, more):
    name, params = case
    X, y = (MN_X[:120, :20], MN_Y[:120]) if more.get("multi_class") == "ovr" else a1a(120)
    if more.get("covariance") == "full":
        X = X[:, :40]
    whole = getattr(mbcore, name)(**params, **more).partial_fit(X, y)
    chunks = getattr(mbcore, name)(**params, **more)
    for a, b in ((0, 1), (1, 8), (8, 50), (50, 51), (51, 120)):
        chunks.partial_fit(X[a:b], y[a:b], classes=np.unique(y))
    assert state(chunks) == state(whole)
    fitted = getattr(mbcore, name)(**params, **more, max_epochs=1).fit(X, y)
    assert state(fitted) == state(whole)
    ref = getattr(mbref, name)(**params, **more, max_epochs=2).fit(X, y)
    assert state(getattr(mbcore, name)(**params, **more, max_epochs=2).fit(X, y)) == state(ref)


@pytest.mark.parametrize("more", ({}, {"multi_class": "ovr"}, {"covariance": "full"},
                                  {"multi_class": "multiclass"}),
                         ids=("binary", "ovr", "full", "multiclass"))
@rules
def test_a_failed_call_leaves_the_learner_unchanged(case, more):
    name, params = case
    if more.get("multi_class") == "multiclass" and name in ("NAROW", "SecondOrderPerceptron"):
        return                      # (refused: test_k_classes_diagonal_equals_the_twin)
    X, y = (MN_X[:80, :20], MN_Y[:80]) if "multi_class" in more else a1a(80)
    X, cl = X.copy(), np.unique(MN_Y if "multi_class" in more else y)
    clf = getattr(mbcore, name)(**params, **more).partial_fit(X[:40], y[:40], classes=cl)
    ref = getattr(mbref, name)(**params, **more).partial_fit(X[:40], y[:40], classes=cl)
    before = state(clf)
    bad = X[40:].copy()
    bad[17, 3] = np.nan
    with pytest.raises(ValueError, match="row 17") as e:
        clf.partial_fit(bad, y[40:])
    with pytest.raises(ValueError, match="row 17"):
        ref.partial_fit(bad, y[40:])
    assert "NaN" in str(e.value)
    assert state(clf) == before
    # and it goes on as if the call had not been made
    clf.partial_fit(X[40:], y[40:])
    ref.partial_fit(X[40:], y[40:])
    assert state(clf) == state(ref)
    for C in (sp.csr_matrix(bad),):
        with pytest.raises(ValueError, match="row 17"):
            clf.fit(C, y[40:])
        assert state(clf) == state(ref)


@pytest.mark.parametrize("how", ("pickle", "save"))
@pytest.mark.parametrize("more", ({}, {"multi_class": "ovr", "covariance": "full"},
                                  {"fit_intercept": True}), ids=("binary", "ovr-full", "icpt"))
@rules
def test_a_round_trip_continues_identically(case, more, how):
    name, params = case
    X, y = (MN_X[:100, :15], MN_Y[:100]) if more.get("multi_class") else a1a(100)
    clf = getattr(mbcore, name)(**params, **more).partial_fit(X[:50], y[:50],
                                                              classes=np.unique(y))
    if how == "pickle":
        back = pickle.loads(pickle.dumps(clf))
    else:
        buf = io.BytesIO()
        clf.save(buf)
        buf.seek(0)
        back = mbcore.load(buf)
    assert type(back) is type(clf) and state(back) == state(clf)
    r1 = record(mbcore.run_online(clf, X[50:], y[50:]))
    r2 = record(mbcore.run_online(back, X[50:], y[50:]))
    assert r1 == r2 and state(back) == state(clf)


@rules
def test_learn_one_with_new_names_equals_the_twin(case):
    X, y = a1a(150)
    clf, ref = pair(*case)
    for i in range(150):
        x = {f"f{j}": float(X[i, j]) for j in np.flatnonzero(X[i])}   # names appear over time
        assert clf.predict_one(x) == ref.predict_one(x)
        clf.learn_one(x, int(y[i]))
        ref.learn_one(x, int(y[i]))
    assert state(clf) == state(ref)
    assert clf.n_features_in_ == ref.n_features_in_ > 20


# -- refusals, with the twin's words ---------------------------------------------------------------

def same_error(make, kind=ValueError):
    """Both twins raise ``kind`` with one message; returns it."""
    msgs = []
    for mod in (mbcore, mbref):
        with pytest.raises(kind) as e:
            make(mod)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    return msgs[0]


def test_full_covariance_over_the_memory_limit_is_refused():
    d = 11586              # 11586**2 = 134235396 > 2**27 = 134217728
    X = np.zeros((1, d))
    X[0, 0] = 1.0
    msg = same_error(lambda m: m.AROW(covariance="full").partial_fit(X, [1], classes=[0, 1]))
    assert "AROW" in msg and "covariance='diagonal'" in msg


def test_full_covariance_with_the_single_constraint_form_is_refused():
    msg = same_error(lambda m: m.AROW(covariance="full").partial_fit(MN_X[:20], MN_Y[:20]))
    assert "multi_class='ovr'" in msg and "covariance='diagonal'" in msg


@pytest.mark.parametrize("name", [n for n, _ in RULES if n in ("AROW", "ConfidenceWeighted",
                                                              "NAROW", "SecondOrderPerceptron")])
def test_sample_weight_is_refused_where_the_paper_has_no_weighted_form(name):
    X, y = a1a(10)
    msg = same_error(lambda m: getattr(m, name)().partial_fit(X, y, sample_weight=np.ones(10)),
                     TypeError)
    assert "sample_weight" in msg
    same_error(lambda m: getattr(m, name)().fit(X, y, sample_weight=np.ones(10)), TypeError)


@rules
def test_covariance_changed_after_fitting_is_refused(case):
    X, y = a1a(20)

    def run(m):
        clf = getattr(m, case[0])(**case[1]).partial_fit(X, y)
        clf.set_params(covariance="full")
        clf.partial_fit(X, y)

    assert "covariance" in same_error(run)


# -- sample weights (SCW, NHERD: C times the row's weight) -----------------------------------------

WEIGHTED = [c for c in RULES if c[0] in ("SCW", "NHERD")]


@pytest.mark.parametrize("more", ({}, {"covariance": "full", "fit_intercept": True},
                                  {"multi_class": "ovr"}, {"multi_class": "multiclass"}),
                         ids=("diag", "full", "ovr", "multiclass"))
@pytest.mark.parametrize("case", WEIGHTED, ids=ids(WEIGHTED))
def test_sample_and_class_weights_equal_the_twin(case, more):
    rng = np.random.default_rng(5)
    if "multi_class" in more:
        X, y = MN_X[:120], MN_Y[:120]
        cw = {int(k): float(v) for k, v in zip(range(10), rng.uniform(0.5, 2.0, 10))}
    else:
        X, y = a1a(200)
        X = X[:, :60] if "covariance" in more else X
        cw = {-1: 0.4, 1: 1.7}
    sw = rng.uniform(0.0, 3.0, X.shape[0])
    sw[rng.random(X.shape[0]) < 0.2] = 0.0              # rows of weight 0 change nothing
    for extra in ({}, {"class_weight": cw}, {"class_weight": "balanced"}):
        clf, ref = pair(*case, **more, **extra)
        if extra.get("class_weight") == "balanced":     # (fit only: same_error below)
            same_error(lambda m: getattr(m, case[0])(**case[1], **more, **extra)
                       .partial_fit(X, y, sample_weight=sw))
        else:
            assert record(mbcore.run_online(clf, X, y, sample_weight=sw)) == \
                record(mbref.run_online(ref, X, y, sample_weight=sw))
            assert_same(clf, ref, X[:30])
        clf, ref = pair(*case, **more, **extra, max_epochs=2)
        clf.fit(X, y, sample_weight=sw)
        ref.fit(X, y, sample_weight=sw)
        assert_same(clf, ref, X[:30])


@pytest.mark.parametrize("case", WEIGHTED, ids=ids(WEIGHTED))
def test_a_row_of_weight_zero_is_no_row(case):
    X, y = a1a(100)
    sw = np.ones(100)
    sw[::3] = 0.0
    weighted = getattr(mbcore, case[0])(**case[1]).partial_fit(X, y, sample_weight=sw)
    keep = sw > 0
    plain = getattr(mbcore, case[0])(**case[1]).partial_fit(X[keep], y[keep])
    s1, s2 = state(weighted), state(plain)
    assert s1["seen"] == 100 and s2["seen"] == keep.sum()
    del s1["seen"], s2["seen"], s1["mistakes"], s2["mistakes"]
    assert s1 == s2


# -- the CW rule on a9a: the variance floor -----------------------------------------------------

def test_confidence_weighted_on_dense_a9a_runs_through_and_equals_the_twin():
    """The exact CW's diagonal precision grows like 1/v^2 on a mistake, so the variances fall
    doubly exponentially (1e-212 after 4677 rows of a9a, eta 0.7).  With a floor at the
    smallest normal double the step's coefficient then overflowed and inf * 0 on a dense row's
    zero made the update NaN: both twins refused row 4677, a finite row.  The floor a * 2**-52
    keeps every step finite: both run through, equal, and the floor is what held."""
    X, y = A9A_X[:4700], A9A_Y[:4700]
    a, b = (mod.ConfidenceWeighted().partial_fit(X, y) for mod in (mbcore, mbref))
    assert state(a) == state(b)
    assert a.n_seen_ == 4700
    S = a.covariance_
    assert np.all(np.isfinite(S)) and S.min() == 2.0 ** -52


# -- fit's initial means ------------------------------------------------------------------------

@pytest.mark.parametrize("intercept", (False, True), ids=("", "intercept"))
@rules
def test_coef_init_equals_the_twin_or_is_refused_as_the_twin_refuses_it(case, intercept):
    name, params = case
    rng = np.random.default_rng(3)
    for X, y, shape in ((a1a(80)[0], a1a(80)[1], (123,)), (MN_X[:160], MN_Y[:160], (10, 40))):
        c0 = rng.normal(size=shape) * 0.1
        b0 = rng.normal(size=shape[:-1]) * 0.1 if len(shape) == 2 else 0.25
        more = {"multi_class": "ovr"} if len(shape) == 2 else {}
        if name in ("NAROW", "SecondOrderPerceptron"):
            msg = same_error(lambda m: getattr(m, name)(**params, **more).fit(
                X, y, coef_init=c0.tolist()))
            assert "coef_init" in msg
            continue
        clf, ref = pair(name, params, max_epochs=2, fit_intercept=intercept, **more)
        clf.fit(X, y, coef_init=c0, intercept_init=b0)
        ref.fit(X, y, coef_init=c0.tolist(), intercept_init=np.atleast_1d(b0).tolist()
                if len(shape) == 2 else b0)
        assert_same(clf, ref, X[:20])


# -- a loaded state: what the kernels will trust is checked --------------------------------------

def _saved(clf):
    buf = io.BytesIO()
    clf.save(buf)
    return buf.getvalue()


def _key(arrays, attr):
    """The archive's name of the state attribute ``attr``."""
    keys = [k for k in arrays if k == attr or k.endswith("/" + attr) or k.endswith("." + attr)]
    assert len(keys) == 1, (attr, list(arrays))
    return keys[0]


@pytest.mark.parametrize("more", ({}, {"covariance": "full", "fit_intercept": True},
                                  {"multi_class": "ovr"}), ids=("diag", "full", "ovr"))
def test_a_crafted_state_is_refused(more):
    from _persistence_cases import read_file, write_file
    X, y = (MN_X[:60, :8], MN_Y[:60]) if more.get("multi_class") else a1a(60)
    X = X[:, :10]
    for name in ("AROW", "NAROW"):
        clf = getattr(mbcore, name)(**more).partial_fit(X, y, classes=np.unique(y))
        meta, arrays = read_file(_saved(clf))
        back = mbcore.load(io.BytesIO(write_file(meta, arrays)))     # the untouched file loads
        assert state(back) == state(clf)
        S = arrays[_key(arrays, "_S")]
        bad = []
        if more.get("covariance") == "full":
            D = int(round(np.sqrt(S.shape[0])))
            asym = S.copy()
            asym[1] += 1e-3                      # (row 0, column 1) only: not symmetric
            neg = S.copy()
            neg[D + 1] = -1.0                    # a diagonal entry below zero
            bad += [asym, neg]
        else:
            neg = S.copy()
            neg[0] = -1.0
            zero = S.copy()
            zero[3] = 0.0                        # a variance under the floor
            bad += [neg, zero]
        bad += [S[:-1], np.append(S, 1.0)]       # lengths that do not match d
        for a in bad:
            crafted = dict(arrays)
            crafted[_key(arrays, "_S")] = a
            with pytest.raises(ValueError):
                mbcore.load(io.BytesIO(write_file(meta, crafted)))
        w = arrays[_key(arrays, "_w")]
        crafted = dict(arrays)
        crafted[_key(arrays, "_w")] = np.append(w, 0.0)
        with pytest.raises(ValueError):
            mbcore.load(io.BytesIO(write_file(meta, crafted)))
        V = arrays[_key(arrays, "_V")]
        crafted = dict(arrays)
        crafted[_key(arrays, "_V")] = V[:-1] if V.shape[0] else np.zeros(3)
        with pytest.raises(ValueError):
            mbcore.load(io.BytesIO(write_file(meta, crafted)))
