"""The compiled budget kernel Perceptrons (``mbcore.budget``) against their twins
(``mbref.budget``, the specification, itself held to NumPy implementations of the papers in
``test_budget_twin.py``), bit for bit: the online predictions, mistakes and updates, every slot
(support vectors, squared norms, self-kernel values, coefficients), the Forgetron's ring, Q, M
and labels, the Projectrons' inverse Gram matrices and the Randomized Budget Perceptron's
generator; on a9a (the first 400 rows) (dense and CSR, float32 and float64, RBF, polynomial and linear kernels, a
budget small enough to evict often) and on mnist (ten classes, one-vs-rest); in chunks as in
one call; across a save and a load.  Two small streams worked by hand.  Bad input: the
parameters, a row with NaN or infinity or one that overflows (the error names the row, the
learner is left as it was), a label outside the classes, a state whose sizes do not match.
And a hypothesis fuzz of small streams against the twin.
"""

import io

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mbcore
import mbref
from conftest import run_record
from mbcore._kernels import budget as _bk
from mbcore.datasets import load_a9a, load_mnist

pytestmark = pytest.mark.checked

NAMES = ("Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
         "BPA_S")
# (class, parameters): budgets of 20 (evicting often on 400 rows), the Projectron without a
# budget too (its slots grow past the 16 first allocated)
CONFIGS = {
    "Stoptron": ("Stoptron", dict(budget=20)),
    "RBP": ("RandomizedBudgetPerceptron", dict(budget=20, random_state=7)),
    "Forgetron": ("Forgetron", dict(budget=20)),
    "Projectron": ("Projectron", dict(eta=0.3)),
    "Projectron-B": ("Projectron", dict(budget=20, eta=0.3)),
    "ProjectronPP": ("ProjectronPP", dict(budget=20, eta=0.5)),
    "BPA_S": ("BPA_S", dict(budget=20, C=0.5)),
}
KERNELS = {"rbf": dict(kernel="rbf", gamma=0.05),
           "poly": dict(kernel="poly", degree=2, gamma=0.05, coef0=1.0),
           "linear": dict(kernel="linear")}
ROWS = 400


@pytest.fixture(scope="module")
def a9a():
    X, y = load_a9a()
    return np.ascontiguousarray(X[:ROWS + 100]), y[:ROWS + 100]


@pytest.fixture(scope="module")
def mnist():
    X, y = load_mnist()
    return np.ascontiguousarray(X[:300]), y[:300]


def layout(X, how):
    if how == "dense64":
        return np.ascontiguousarray(X, dtype=np.float64)
    if how == "dense32":
        return np.ascontiguousarray(X, dtype=np.float32)
    A = sp.csr_matrix(X, dtype=np.float32 if "32" in how else np.float64)
    if how.endswith("-i64"):
        A.indices = A.indices.astype(np.int64)
        A.indptr = A.indptr.astype(np.int64)
    return A


def bits(v):
    """The bits of every float of v (so that -0.0 and 0.0, or two NaNs, are told apart)."""
    return np.asarray(v, dtype=np.float64).ravel().view(np.uint64).tolist()


def assert_same_state(a, b):
    """Compiled learner a and twin b hold the same state, bit for bit."""
    name = type(a).__name__
    m = a._K()
    assert len(b._m) == m
    cap = a._sv.shape[0] // m
    for k, s in enumerate(b._m):
        n = int(a._meta[3 * k])
        assert n == len(s.sv)
        sl = slice(k * cap, k * cap + n)
        assert bits(a._sv[sl]) == bits(s.sv)
        assert bits(a._svn[sl]) == bits(s.svn)
        assert bits(a._kd[sl]) == bits(s.kd)
        assert bits(a._coef[sl]) == bits(s.coef)
        if name == "Forgetron":
            assert (int(a._meta[3 * k + 1]), int(a._meta[3 * k + 2])) == (s.head, s.M)
            assert bits(a._Q[k]) == bits(s.Q)
            assert a._lab[sl].tolist() == s.lab
        else:
            assert (int(a._meta[3 * k + 1]), int(a._meta[3 * k + 2])) == (0, 0)
        if name in ("Projectron", "ProjectronPP"):
            K = a._kinv[k * cap * cap:(k + 1) * cap * cap].reshape(cap, cap)[:n, :n]
            assert bits(K) == bits(s.kinv)
    if name == "RandomizedBudgetPerceptron":
        assert int(a._rng[0]) == b._rng.state
    assert bits(a.gamma_) == bits(b.gamma_)
    assert (a.n_seen_, a.mistakes_, a.updates_) == (b.n_seen_, b.mistakes_, b.updates_)


def pair(name, params):
    return getattr(mbcore, name)(**params), getattr(mbref, name)(**params)


def run_and_compare(name, params, X, y, Xt):
    a, b = pair(name, params)
    ra, rb = mbcore.run_online(a, X, y), mbref.run_online(b, X, y)
    assert run_record(ra) == run_record(rb)
    assert_same_state(a, b)
    assert bits(a.decision_function(Xt)) == bits(b.decision_function(Xt))
    assert a.predict(Xt).tolist() == list(b.predict(Xt))
    return a, b


# -- parity on real data -----------------------------------------------------------------------

@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("config", CONFIGS)
def test_a9a_parity_per_kernel(a9a, config, kernel):
    X, y = a9a
    name, params = CONFIGS[config]
    a, _ = run_and_compare(name, dict(params, **KERNELS[kernel]), X[:ROWS], y[:ROWS],
                           X[ROWS:])
    if params.get("budget"):
        assert a.n_support_ == params["budget"]    # the budget was reached (evictions ran)


@pytest.mark.parametrize("how", ["csr64", "dense32", "csr32-i64"])
@pytest.mark.parametrize("config", CONFIGS)
def test_a9a_parity_per_layout(a9a, config, how):
    X, y = a9a
    name, params = CONFIGS[config]
    Xl = layout(X, how)
    run_and_compare(name, dict(params, **KERNELS["rbf"]), Xl[:ROWS], y[:ROWS], Xl[ROWS:])


# (three in a plain run, the rest with the long runs: the twin's pure Python takes 1-3 s each)
MNIST = [c if c in ("RBP", "Forgetron", "BPA_S") else pytest.param(c, marks=pytest.mark.longrun)
         for c in CONFIGS]


@pytest.mark.parametrize("config", MNIST)
def test_mnist_ten_classes_one_vs_rest(mnist, config):
    """Ten learners of ten slots each (CSR rows: the twin's pure Python is faster on them;
    dense rows for one rule)."""
    X, y = mnist
    name, params = CONFIGS[config]
    params = dict(params, gamma=0.02)
    if "budget" in params:
        params["budget"] = 10
    how = "dense64" if config == "RBP" else "csr64"
    Xl = layout(X, how)
    a, b = run_and_compare(name, params, Xl[:250], y[:250], Xl[250:])
    assert len(a.n_support_) == 10 and a.n_support_ == b.n_support_


@pytest.mark.parametrize("config", CONFIGS)
def test_chunks_equal_one_call(a9a, config):
    X, y = a9a
    name, params = CONFIGS[config]
    params = dict(params, **KERNELS["rbf"])
    whole, b = pair(name, params)
    rec = run_record(mbcore.run_online(whole, X[:ROWS], y[:ROWS]))
    mbref.run_online(b, X[:ROWS], y[:ROWS])
    parts = getattr(mbcore, name)(**params)
    preds, cuts = [], [0, 1, 2, 97, 250, 251, 330, ROWS]
    for lo, hi in zip(cuts, cuts[1:]):
        preds += mbcore.run_online(parts, X[lo:hi], y[lo:hi], classes=[-1, 1]).predictions.tolist()
    assert preds == rec["predictions"]
    assert_same_state(parts, b)
    assert_same_state(whole, b)


@pytest.mark.parametrize("config", CONFIGS)
def test_fit_epochs_as_the_twin(a9a, config):
    X, y = a9a
    name, params = CONFIGS[config]
    params = dict(params, max_epochs=3, **KERNELS["poly"])
    a, b = pair(name, params)
    a.fit(X[:150], y[:150])
    b.fit(X[:150], y[:150])
    assert (a.n_iter_, a.epoch_mistakes_, a.epoch_updates_, a.converged_) == \
        (b.n_iter_, b.epoch_mistakes_, b.epoch_updates_, b.converged_)
    assert_same_state(a, b)


@pytest.mark.parametrize("config", CONFIGS)
def test_save_and_load_continue_bit_for_bit(a9a, config):
    X, y = a9a
    name, params = CONFIGS[config]
    params = dict(params, **KERNELS["rbf"])
    a, b = pair(name, params)
    a.partial_fit(X[:200], y[:200])
    f = io.BytesIO()
    a.save(f)
    f.seek(0)
    c = mbcore.load(f)
    assert type(c) is type(a)
    c.partial_fit(X[200:ROWS], y[200:ROWS])
    a.partial_fit(X[200:ROWS], y[200:ROWS])
    b.partial_fit(X[:ROWS], y[:ROWS])
    assert_same_state(c, b)
    assert_same_state(a, b)


def test_save_and_load_one_vs_rest_keeps_the_generator(mnist):
    """Ten learners drawing from one generator: a reloaded learner draws what the original
    would have."""
    X, y = mnist
    params = dict(budget=5, gamma=0.02, random_state=2 ** 64 + 11)     # (seed modulo 2**64)
    a, b = pair("RandomizedBudgetPerceptron", params)
    a.partial_fit(X[:120], y[:120])
    f = io.BytesIO()
    a.save(f)
    f.seek(0)
    c = mbcore.load(f)
    c.partial_fit(X[120:200], y[120:200])
    b.partial_fit(X[:200], y[:200])
    assert_same_state(c, b)


# -- worked by hand ----------------------------------------------------------------------------

def test_bpa_s_by_hand():
    """Linear kernel, C = 1, budget 2.  Row 1, (1, 0) y = +1: f = 0 (a mistake: the tie is
    negative), loss 1, K = 1, tau = min(1, 1) = 1: append a = 1.  Row 2, (0, 2) y = -1: f = 0,
    right, loss 1, K = 4, tau = 1/4: append a = -0.25.  Row 3, (1, 1) y = -1: f = 1 - 0.5 =
    0.5, a mistake, loss 1.5, K = 2, tau = 0.75; removal costs a_r^2 (K_rr - K_r^2 / 2): slot 0
    1 (1 - 1/2) = 0.5, slot 1 1/16 (4 - 4/2) = 0.125, so slot 1 goes; its coefficient becomes
    (-0.25 * 2) / 2 - 0.75 = -1."""
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = [1, -1, -1]
    for mod in (mbcore, mbref):
        clf = mod.BPA_S(budget=2, C=1.0, kernel="linear")
        run = mod.run_online(clf, X, y)
        assert list(run.predictions) == [-1, -1, 1]
        assert (clf.mistakes_, clf.updates_) == (2, 3)
        assert np.asarray(clf.support_vectors_).tolist() == [[1.0, 0.0], [1.0, 1.0]]
        assert np.asarray(clf.dual_coef_).tolist() == [1.0, -1.0]


def test_projectron_by_hand():
    """Linear kernel, eta = 0.5.  (1, 0) +1: a mistake, nothing to project on, delta = 1:
    added, Kinv = [[1]].  (2, 0) +1: f = 2, right.  (1, 1) -1: f = 1, a mistake; d = [1],
    N = 1, Delta = 2 - 1 = 1 > 0.25: added, Kinv = [[2, -1], [-1, 1]] (the inverse of
    [[1, 1], [1, 2]]).  (0, 1) +1: f = -1, a mistake; k = [0, 1], d = [-1, 1], N = 1,
    Delta = 0: (0, 1) is in the span, projected: a = [1, -1] + [-1, 1] = [0, 0]."""
    X = np.array([[1.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    y = [1, 1, -1, 1]
    for mod in (mbcore, mbref):
        clf = mod.Projectron(eta=0.5, kernel="linear")
        run = mod.run_online(clf, X, y)
        assert list(run.predictions) == [-1, 1, 1, -1]
        assert (clf.mistakes_, clf.updates_, clf.n_support_) == (3, 3, 2)
        assert np.asarray(clf.dual_coef_).tolist() == [0.0, 0.0]
    assert clf._m[0].kinv == [[2.0, -1.0], [-1.0, 1.0]]
    a = mbcore.Projectron(eta=0.5, kernel="linear")
    mbcore.run_online(a, X, y)
    assert a._kinv.reshape(16, 16)[:2, :2].tolist() == [[2.0, -1.0], [-1.0, 1.0]]


def test_forgetron_exposes_q_and_m(a9a):
    X, y = a9a
    fg = mbcore.Forgetron(budget=10, gamma=0.05).partial_fit(X[:300], y[:300])
    assert fg.M_ == fg.mistakes_ and fg.n_support_ == 10
    assert 0.0 <= fg.Q_ <= 15 / 32 * fg.M_


# -- bad input ---------------------------------------------------------------------------------

BAD_PARAMS = [
    ("Stoptron", "budget", 0), ("Stoptron", "budget", -3), ("Stoptron", "budget", 1.5),
    ("Stoptron", "budget", True), ("Stoptron", "budget", "5"), ("Forgetron", "budget", None),
    ("RandomizedBudgetPerceptron", "budget", 0), ("BPA_S", "budget", 2.0),
    ("Projectron", "budget", 0), ("ProjectronPP", "budget", 0.5),
    ("Forgetron", "gamma", 0.0), ("Projectron", "gamma", -1.0), ("BPA_S", "gamma", np.inf),
    ("Projectron", "eta", -0.1), ("ProjectronPP", "eta", np.nan),
    ("BPA_S", "C", 0.0), ("BPA_S", "C", -1.0),
    ("RandomizedBudgetPerceptron", "random_state", -1),
    ("Forgetron", "degree", 0), ("Stoptron", "kernel", "sigmoid"),
]


@pytest.mark.sanitized
@pytest.mark.parametrize("name, param, value", BAD_PARAMS)
def test_bad_parameters_are_refused_naming_them(name, param, value):
    X, y = np.array([[0.0, 1.0], [1.0, 0.0]]), [1, -1]
    for mod in (mbcore, mbref):
        clf = getattr(mod, name)(**{param: value})
        with pytest.raises(ValueError, match=f"{name}: parameter {param} must be .*got "):
            clf.partial_fit(X, y)
        assert "classes_" not in vars(clf) or getattr(clf, "classes_", None) is None


def saved(clf):
    """Everything a call may change, as bits."""
    return {k: (v.tobytes(), v.dtype.str, v.shape) if isinstance(v, np.ndarray) else repr(v)
            for k, v in vars(clf).items() if not k.startswith("_rw")}


@pytest.mark.sanitized
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_row_with_nan_or_infinity_is_named_and_changes_nothing(a9a, config, bad):
    X, y = a9a
    name, params = CONFIGS[config]
    clf = getattr(mbcore, name)(**params, gamma=0.05).partial_fit(X[:100], y[:100])
    before = saved(clf)
    Xb = X[100:110].copy()
    Xb[4, 7] = bad
    for rows in (Xb, sp.csr_matrix(Xb)):
        with pytest.raises(ValueError, match="row 4"):
            clf.partial_fit(rows, y[100:110])
        assert saved(clf) == before
    with pytest.raises(ValueError, match="row 4"):
        getattr(mbref, name)(**params, gamma=0.05).partial_fit(Xb, y[100:110])


@pytest.mark.sanitized
@pytest.mark.parametrize("name", NAMES)
def test_an_overflowing_row_is_named_as_the_twin_refuses_it(name):
    """A linear kernel on a row of 1e200: its self-kernel value (or its score) overflows where
    the rule stores it or scores it; both twins refuse the same calls, the compiled learner
    naming the row and left as it was."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1e200, 1e200], [1.0, 1.0]])
    y = [1, -1, 1, -1, 1]
    a = getattr(mbcore, name)(budget=2, kernel="linear").partial_fit(X[:3], y[:3])
    b = getattr(mbref, name)(budget=2, kernel="linear").partial_fit(X[:3], y[:3])
    before = saved(a)
    raised = []
    for clf in (a, b):
        try:
            clf.partial_fit(X[3:], y[3:])
            raised.append(False)
        except ValueError as e:
            raised.append(True)
            if clf is a:
                assert "row 0" in str(e) and "left as before the call" in str(e)
    assert raised[0] == raised[1]
    if raised[0]:
        assert saved(a) == before
    else:
        assert_same_state(a, b)


@pytest.mark.sanitized
@pytest.mark.parametrize("name", NAMES)
def test_a_label_outside_the_classes_changes_nothing(a9a, name):
    X, y = a9a
    clf = getattr(mbcore, name)(budget=5, gamma=0.05).partial_fit(X[:50], y[:50])
    before = saved(clf)
    yb = np.array(y[50:60]).copy()
    yb[3] = 7
    with pytest.raises(ValueError):
        clf.partial_fit(X[50:60], yb)
    assert saved(clf) == before


@pytest.mark.sanitized
@pytest.mark.parametrize("name, param, value", [
    ("Forgetron", "budget", 6), ("BPA_S", "budget", 4), ("Projectron", "budget", 3),
    ("Projectron", "gamma", 0.5), ("ProjectronPP", "kernel", "poly"),
    ("Projectron", "coef0", 2.0), ("ProjectronPP", "degree", 4)])
def test_parameters_changed_after_fitting_are_refused_as_the_twin_refuses_them(a9a, name,
                                                                                param, value):
    X, y = a9a
    for mod in (mbcore, mbref):
        clf = getattr(mod, name)(budget=5, gamma=0.05).partial_fit(X[:40], y[:40])
        setattr(clf, param, value)
        with pytest.raises(ValueError, match=f"{name}: parameter {param} was changed"):
            clf.partial_fit(X[40:50], y[40:50])


def test_the_kernel_refuses_arrays_that_do_not_match():
    """A state whose sizes or counts do not match (as a crafted file could hold) never reaches
    the pass."""
    d, cap = 3, 4
    sv, v = np.zeros((cap, d)), np.zeros(cap)
    X = np.zeros((2, d))
    y, p, u = np.ones(2, np.int32), np.zeros(2, np.int32), np.zeros(2, np.uint8)

    def call(meta, lab=None, Q=None, kinv=None, rng=None, rule=0, budget=4, X=X):
        return _bk.bk_pass(rule, 2, 3, False, 1.0, 1.0, budget, 0.1, 1.0, sv, v.copy(),
                           v.copy(), v.copy(), meta, lab, Q, kinv, rng,
                           np.zeros(3, np.int64), X, 0, y, p, u)
    assert call(np.zeros(3, np.int64)) == (0, 2)
    for meta in ([5, 0, 0], [-1, 0, 0], [0, 4, 0], [0, 0, -1], [0, 0]):
        with pytest.raises(ValueError, match="do not match"):
            call(np.array(meta, np.int64))
    with pytest.raises(ValueError, match="do not match"):        # the Forgetron's arrays
        call(np.zeros(3, np.int64), np.zeros(cap - 1, np.int8), np.zeros(1), rule=2)
    with pytest.raises(ValueError, match="do not match"):        # the inverse Gram matrix
        call(np.zeros(3, np.int64), kinv=np.zeros(cap * cap - 1), rule=3)
    with pytest.raises(ValueError, match="do not match"):        # slots beyond the budget
        call(np.zeros(3, np.int64), budget=3)
    with pytest.raises(ValueError, match="do not match"):        # rows of another width
        call(np.zeros(3, np.int64), X=np.zeros((2, d + 1)))


@pytest.mark.sanitized
@pytest.mark.parametrize("name", ["Forgetron", "Projectron"])
def test_a_loaded_state_out_of_range_is_refused(a9a, name):
    X, y = a9a
    clf = getattr(mbcore, name)(budget=5, gamma=0.05).partial_fit(X[:60], y[:60])
    clf._meta[0] = 99                       # more slots held than allocated
    f = io.BytesIO()
    clf.save(f)
    f.seek(0)
    with pytest.raises(ValueError, match="99 support vectors"):
        mbcore.load(f)


# -- fuzz --------------------------------------------------------------------------------------

VALUES = st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1e-3, 0.25])


@st.composite
def streams(draw):
    name = draw(st.sampled_from(NAMES))
    n, d = draw(st.integers(1, 24)), draw(st.integers(1, 4))
    K = draw(st.sampled_from([2, 2, 3]))
    X = np.array(draw(st.lists(VALUES, min_size=n * d, max_size=n * d))).reshape(n, d)
    y = draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n))
    params = {"kernel": draw(st.sampled_from(["rbf", "poly", "linear"])),
              "gamma": draw(st.sampled_from([None, 0.5, 2.0])),
              "degree": draw(st.integers(1, 3)), "tie": draw(st.sampled_from(["negative",
                                                                              "positive"]))}
    budget = draw(st.integers(1, 4))
    if name.startswith("Projectron"):
        params["budget"] = draw(st.sampled_from([None, budget]))
        params["eta"] = draw(st.sampled_from([0.0, 0.1, 0.7]))
    else:
        params["budget"] = budget
    if name == "BPA_S":
        params["C"] = draw(st.sampled_from([0.1, 1.0, 10.0]))
    if name == "RandomizedBudgetPerceptron":
        params["random_state"] = draw(st.integers(0, 2 ** 64 - 1))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return name, params, X, y, draw(st.booleans()), cuts


@pytest.mark.sanitized
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_fuzz_small_streams_against_the_twin(case):
    name, params, X, y, csr, cuts = case
    classes = sorted(set(y) | {0, 1})
    a, b = pair(name, params)
    Xa = sp.csr_matrix(X) if csr else X
    for lo, hi in zip([0] + cuts, cuts + [len(y)]):
        if lo == hi:
            continue
        a.partial_fit(Xa[lo:hi], y[lo:hi], classes=classes)
        b.partial_fit(Xa[lo:hi], y[lo:hi], classes=classes)
    assert_same_state(a, b)
    assert bits(a.decision_function(Xa)) == bits(b.decision_function(Xa))
