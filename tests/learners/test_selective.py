"""Selective sampling (``mbcore.SelectiveSampler``, twin ``mbref.SelectiveSampler``).

* The compiled pass equals the twin bit for bit (what is asked, predicted, learned; the
  weights), for each learner it takes, fixed and adaptive b, dense and CSR rows.
* It equals a NumPy implementation of the selective-sampling Perceptron written here from the
  paper (Cesa-Bianchi, Gentile & Zaniboni 2006, Fig. 1), with its own splitmix64.
* A seeded run replays exactly, in one call or in several (the generator's state is kept);
  b so large that every row is asked is the Perceptron itself.
* Labels from a callable: called for the asked rows only, in order; the same run as the
  simulation; a callable that raises or answers a label outside the classes leaves everything
  as it was.
* The expected mistake bound (the paper's Theorem 1) holds on average over seeds on a stream
  built to meet it, and its function's values worked by hand.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from mbcore.bounds import selective_sampling_bound

pytestmark = [pytest.mark.checked, pytest.mark.sanitized]

LEARNERS = [("Perceptron", {}), ("MarginPerceptron", {"gamma": 0.2}),
            ("OnlineHingeSVM", {"lam": 0.01}), ("PassiveAggressive", {"C": 0.5}),
            ("Perceptron", {"fit_intercept": True, "normalize": True}),
            ("SecondOrderPerceptron", {}), ("SecondOrderPerceptron", {"covariance": "full"}),
            ("AROW", {"fit_intercept": True}), ("AROW", {"covariance": "full"}),
            ("ConfidenceWeighted", {}), ("SCW", {"variant": "SCW-II"}), ("NHERD", {}),
            ("NAROW", {})]
IDS = ["Perceptron", "MarginPerceptron", "OnlineHingeSVM", "PA", "Perceptron-icpt-norm",
       "SOP", "SOP-full", "AROW-icpt", "AROW-full", "CW", "SCW-II", "NHERD", "NAROW"]


def _stream(seed, n=600, d=12, density=0.5):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 4) / 4
    X[rng.random((n, d)) > density] = 0.0
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def _state(S):
    L = S.learner_
    return (np.asarray(L.coef_, dtype=float).ravel().tolist(),
            np.asarray(L.intercept_, dtype=float).ravel().tolist(), int(L.n_seen_),
            int(L.updates_))


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("adaptive,b", [(False, 1.0), (False, 0.2), (True, 0.05)],
                         ids=["b1", "b0.2", "adaptive"])
@pytest.mark.parametrize("name,params", LEARNERS, ids=IDS)
def test_equals_the_twin(name, params, adaptive, b, layout):
    X, y = _stream(1)
    Xc = sp.csr_matrix(X) if layout == "csr" else X
    a = mbcore.SelectiveSampler(getattr(mbcore, name)(**params), b=b, adaptive=adaptive,
                                random_state=7)
    t = mbref.SelectiveSampler(getattr(mbref, name)(**params), b=b, adaptive=adaptive,
                               random_state=7)
    for lo, hi in ((0, 250), (250, 600)):           # two calls: the generator's state carries
        ra = a.run_online(Xc[lo:hi], y[lo:hi])
        rt = t.run_online(sp.csr_matrix(X[lo:hi]) if layout == "csr" else X[lo:hi].tolist(),
                          y[lo:hi].tolist())
        assert ra.asked.tolist() == rt.asked
        assert list(ra.predictions) == rt.predictions
        assert ra.updated.tolist() == rt.updated
        assert ra.errors.astype(bool).tolist() == [bool(e) for e in rt.errors]
        assert 0 < ra.labels_asked < hi - lo or b == 1.0
    assert _state(a) == _state(t)
    assert (a.n_seen_, a.labels_asked_, a.mistakes_, a.updates_) == \
        (t.n_seen_, t.labels_asked_, t.mistakes_, t.updates_)


K_LEARNERS = [("Perceptron", {"multi_class": "ovr"}), ("Perceptron", {}),
              ("MarginPerceptron", {"multi_class": "ovr", "gamma": 0.2}),
              ("PassiveAggressive", {"C": 0.5}), ("OnlineHingeSVM", {"multi_class": "ovr"}),
              ("AROW", {"multi_class": "ovr"}),
              ("AROW", {"multi_class": "ovr", "covariance": "full", "fit_intercept": True}),
              ("SecondOrderPerceptron", {}), ("NAROW", {}),
              ("SCW", {"multi_class": "ovr", "variant": "SCW-II"})]
K_IDS = ["Perceptron-ovr", "Perceptron-multiclass", "MarginPerceptron-ovr", "PA-multiclass",
         "OnlineHingeSVM-ovr", "AROW-ovr", "AROW-ovr-full", "SOP-ovr", "NAROW-ovr",
         "SCW-II-ovr"]


def _k_stream(seed, n=500, d=10, K=4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) * 4) / 4
    X[rng.random((n, d)) > 0.6] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, K)) + 0.4 * rng.normal(size=(n, K)), axis=1) * 10
    return X, y


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("adaptive,b", [(False, 2.0), (True, 0.01)], ids=["b2", "adaptive"])
@pytest.mark.parametrize("name,params", K_LEARNERS, ids=K_IDS)
def test_k_classes_equal_the_twin(name, params, adaptive, b, layout):
    """Three classes or more: one coin per row on the gap between the two highest values the
    learner predicts the argmax of; an asked row is the learner's K-class step."""
    X, y = _k_stream(2)
    Xc = sp.csr_matrix(X) if layout == "csr" else X
    a = mbcore.SelectiveSampler(getattr(mbcore, name)(**params), b=b, adaptive=adaptive,
                                random_state=9)
    t = mbref.SelectiveSampler(getattr(mbref, name)(**params), b=b, adaptive=adaptive,
                               random_state=9)
    for lo, hi in ((0, 200), (200, 500)):
        ra = a.run_online(Xc[lo:hi], y[lo:hi])
        rt = t.run_online(sp.csr_matrix(X[lo:hi]) if layout == "csr" else X[lo:hi].tolist(),
                          y[lo:hi].tolist())
        assert ra.asked.tolist() == rt.asked
        assert [int(v) for v in ra.predictions] == rt.predictions
        assert ra.updated.tolist() == rt.updated
        assert ra.scores.shape == (hi - lo, 4)
    assert 0 < a.labels_asked_ < 500
    assert np.array_equal(np.asarray(a.learner_.coef_, dtype=float),
                          np.asarray(t.learner_.coef_, dtype=float))
    assert (a.n_seen_, a.labels_asked_, a.mistakes_, a.updates_) == \
        (t.n_seen_, t.labels_asked_, t.mistakes_, t.updates_)
    assert (a.learner_.n_seen_, a.learner_.mistakes_, a.learner_.updates_) == \
        (t.learner_.n_seen_, t.learner_.mistakes_, t.learner_.updates_)


def test_k_classes_from_a_callable():
    X, y = _k_stream(3)
    ref = mbcore.SelectiveSampler(mbcore.Perceptron(multi_class="ovr"), b=1.0, random_state=2)
    sim = ref.run_online(X, y)
    calls = []
    S = mbcore.SelectiveSampler(mbcore.Perceptron(multi_class="ovr"), b=1.0, random_state=2)
    run = S.run_online(X, lambda i: (calls.append(i), y[i])[1], classes=[0, 10, 20, 30])
    assert calls == np.flatnonzero(sim.asked).tolist()
    assert S.learner_.coef_.tolist() == ref.learner_.coef_.tolist()
    assert run.mistakes == int(sim.errors[sim.asked].sum())


# -- an independent implementation from the paper ----------------------------------------------
class _SplitMix:
    """splitmix64 (Steele, Lea & Flood 2014), written again here."""

    def __init__(self, seed):
        self.s = seed % 2 ** 64

    def uniform(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) % 2 ** 64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2 ** 64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2 ** 64
        z ^= z >> 31
        return (z >> 11) / 2.0 ** 53


def _paper(X, y, b, seed):
    """CBGZ 2006, Fig. 1: p = w . x, predict sign(p) (0 -> -1), Z ~ Bernoulli(b / (b + |p|));
    if Z = 1 ask y, and on a mistake w += y x.  The dot product in the four interleaved
    partial sums of the library's arithmetic contract (its documented order), so that the
    comparison can be exact."""
    w = np.zeros(X.shape[1])
    g = _SplitMix(seed)
    asked, mistakes = [], 0
    for x, t in zip(X, np.where(y == 1, 1, -1)):
        prods = w * x
        parts = [0.0] * 4
        for k, v in enumerate(prods):
            parts[k % 4] += v
        p = (parts[0] + parts[1]) + (parts[2] + parts[3])
        yhat = 1 if p > 0 else -1
        mistakes += yhat != t
        z = g.uniform() < b / (b + abs(p))
        asked.append(z)
        if z and yhat != t:
            w = w + t * x
    return w, asked, mistakes


@pytest.mark.parametrize("b", [0.3, 2.0])
def test_equals_the_paper_written_in_numpy(b):
    X, y = _stream(2, n=400, d=9)
    w, asked, mistakes = _paper(X, y, b, 11)
    S = mbcore.SelectiveSampler(mbcore.Perceptron(), b=b, random_state=11)
    run = S.run_online(X, y)
    assert run.asked.tolist() == asked
    assert run.mistakes == mistakes
    assert S.learner_.coef_.ravel().tolist() == w.tolist()


# -- replay, the limits -------------------------------------------------------------------------
def test_a_seeded_run_replays_and_chunks_do_not_matter():
    X, y = _stream(3)
    one = mbcore.SelectiveSampler(b=0.5, random_state=5).run_online(X, y)
    again = mbcore.SelectiveSampler(b=0.5, random_state=5).run_online(X, y)
    assert one.asked.tolist() == again.asked.tolist()
    S = mbcore.SelectiveSampler(b=0.5, random_state=5)
    parts = [S.run_online(X[a:a + 100], y[a:a + 100]) for a in range(0, 600, 100)]
    assert np.concatenate([p.asked for p in parts]).tolist() == one.asked.tolist()
    other = mbcore.SelectiveSampler(b=0.5, random_state=6).run_online(X, y)
    assert other.asked.tolist() != one.asked.tolist()


def test_asking_every_label_is_the_perceptron():
    X, y = _stream(4)
    S = mbcore.SelectiveSampler(mbcore.Perceptron(), b=1e300)
    run = S.run_online(X, y)
    P = mbcore.Perceptron()
    ref = mbcore.run_online(P, X, y)
    assert run.labels_asked == len(y)
    assert run.mistakes == ref.mistakes and S.learner_.coef_.tolist() == P.coef_.tolist()


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_adaptive_asks_while_only_zero_rows_were_seen(mod):
    """b_t = b X_t^2 sqrt(1 + K_t) is 0 while every row so far was zero, and so is the margin:
    the coin's probability is 1 (the learner knows nothing), not 0 / 0."""
    X = np.zeros((5, 3))
    X[3] = [1.0, 0.0, 2.0]
    y = np.array([0, 1, 0, 1, 1])
    run = mod.SelectiveSampler(b=0.001, adaptive=True).run_online(
        X.tolist() if mod is mbref else X, y.tolist() if mod is mbref else y)
    assert list(run.asked)[:3] == [True, True, True]


def test_fewer_labels_with_smaller_b():
    X, y = _stream(5, n=2000)
    asked = [mbcore.SelectiveSampler(b=b, random_state=1).run_online(X, y).labels_asked
             for b in (0.01, 0.1, 1.0, 10.0)]
    assert asked == sorted(asked) and asked[0] < asked[-1]


# -- labels from a callable ---------------------------------------------------------------------
def test_a_callable_is_asked_only_for_the_asked_rows_and_gives_the_same_run():
    X, y = _stream(6)
    sim = mbcore.SelectiveSampler(b=0.5, random_state=2)
    ref = sim.run_online(X, y)
    calls = []

    def label(i):
        calls.append(i)
        return y[i]
    S = mbcore.SelectiveSampler(b=0.5, random_state=2)
    run = S.run_online(X, label, classes=[0, 1])
    assert calls == np.flatnonzero(ref.asked).tolist()
    assert run.asked.tolist() == ref.asked.tolist()
    assert S.learner_.coef_.tolist() == sim.learner_.coef_.tolist()
    assert np.isnan(run.errors[~run.asked]).all()
    assert run.mistakes == int(ref.errors[ref.asked].sum()) == S.mistakes_
    t = mbref.SelectiveSampler(b=0.5, random_state=2)
    rt = t.run_online(X.tolist(), lambda i: int(y[i]), classes=[0, 1])
    assert rt.asked == run.asked.tolist() and rt.mistakes == run.mistakes


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_a_failing_callable_leaves_everything_as_it_was(mod):
    X, y = _stream(7)
    S = mod.SelectiveSampler(b=0.5, random_state=2)
    S.partial_fit(X[:100].tolist() if mod is mbref else X[:100], y[:100])
    before = (_state(S), S.n_seen_, S.labels_asked_, S.mistakes_)

    def boom(i):
        if i > 20:
            raise KeyError("no label today")
        return y[100 + i]
    with pytest.raises(KeyError):
        S.partial_fit(X[100:300].tolist() if mod is mbref else X[100:300], boom)
    assert (_state(S), S.n_seen_, S.labels_asked_, S.mistakes_) == before
    with pytest.raises(ValueError, match="outside the fitted classes"):
        S.partial_fit(X[100:300].tolist() if mod is mbref else X[100:300], lambda i: 7)
    assert (_state(S), S.n_seen_, S.labels_asked_, S.mistakes_) == before
    # and the generator too: the next call is the one an untouched sampler makes
    fresh = mod.SelectiveSampler(b=0.5, random_state=2)
    fresh.partial_fit(X[:100].tolist() if mod is mbref else X[:100], y[:100])
    r1 = S.run_online(X[100:300].tolist() if mod is mbref else X[100:300], y[100:300])
    r2 = fresh.run_online(X[100:300].tolist() if mod is mbref else X[100:300], y[100:300])
    assert list(r1.asked) == list(r2.asked)


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,match", [
    ({"b": 0.0}, "parameter b must be a finite real > 0, got 0.0"),
    ({"b": float("nan")}, "parameter b must be a finite real > 0"),
    ({"b": -1}, "parameter b must be a finite real > 0, got -1"),
    ({"random_state": -3}, "parameter random_state must be an integer >= 0, got -3"),
    ({"adaptive": "yes"}, "parameter adaptive must be a bool"),
])
@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_bad_parameters_are_named(mod, kw, match):
    X, y = _stream(8, n=20)
    with pytest.raises(ValueError, match="SelectiveSampler: " + match):
        mod.SelectiveSampler(**kw).partial_fit(X.tolist() if mod is mbref else X, y)


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_a_learner_it_cannot_wrap_is_refused(mod):
    X, y = _stream(8, n=20)
    Xm = X.tolist() if mod is mbref else X
    for other in (mod.Winnow(), mod.ALMA(), mod.KernelPerceptron()):
        with pytest.raises(TypeError, match="parameter learner must be one of"):
            mod.SelectiveSampler(other).partial_fit(Xm, y)
    with pytest.raises(ValueError, match="class_weight is not taken"):
        mod.SelectiveSampler(mod.SCW(class_weight={1: 2.0})).partial_fit(Xm, y)
    Xk, yk = _k_stream(4, n=30)
    with pytest.raises(ValueError, match="AROW with K classes is sampled one-vs-rest only"):
        mod.SelectiveSampler(mod.AROW()).partial_fit(Xk.tolist() if mod is mbref else Xk, yk)


def test_a_nan_row_names_the_row_and_changes_nothing():
    X, y = _stream(9)
    S = mbcore.SelectiveSampler(b=0.5).partial_fit(X[:50], y[:50])
    before = (_state(S), S.n_seen_)
    Xb = X[50:100].copy()
    Xb[17, 3] = np.nan
    with pytest.raises(ValueError, match=r"row 17\b"):
        S.partial_fit(Xb, y[50:100])
    assert (_state(S), S.n_seen_) == before


def test_a_callable_needs_classes_on_the_first_call():
    X, y = _stream(10, n=20)
    with pytest.raises(ValueError, match="give classes= on the first call"):
        mbcore.SelectiveSampler().partial_fit(X, lambda i: y[i])


# -- the bound ----------------------------------------------------------------------------------
def test_the_bound_function_by_hand():
    # (1 + R^2/(2b)) L + (2b + R^2)^2 ||u||^2 / (8b)
    assert selective_sampling_bound(0.5, 1.0, 0.0, 10.0) == 100.0       # 2^2 * 100 / 4
    assert selective_sampling_bound(2.0, 2.0, 3.0, 1.0) == 10.0         # 2 * 3 + 64 / 16
    assert selective_sampling_bound(1.0, 0.0, 4.0, 2.0) == 4.0 + 4 * 4 / 8
    # at b = R^2 / 2 with no hinge loss: the Perceptron's R^2 ||u||^2
    assert selective_sampling_bound(4.5, 3.0, 0.0, 2.0) == pytest.approx(36.0)
    with pytest.raises(ValueError, match="b"):
        selective_sampling_bound(0.0, 1.0)


@pytest.mark.parametrize("b", [0.1, 0.5, 2.0])
def test_the_expected_mistakes_stay_under_the_bound(b):
    """Rows of norm <= R = 1 separated by u with margin 1 (L(u) = 0, ||u|| = 1 / gamma):
    the mistakes averaged over 40 seeds (an estimate of the expectation, whose spread over
    seeds is shown by the check against the largest run) stay under the bound."""
    rng = np.random.default_rng(12)
    d, gamma = 6, 0.2
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(6000, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    keep = np.abs(X @ u) >= gamma
    X = X[keep][:1500]
    y = np.where(X @ u > 0, 1, 0)
    runs = [mbcore.SelectiveSampler(b=b, random_state=s).run_online(X, y).mistakes
            for s in range(40)]
    bound = selective_sampling_bound(b, 1.0, 0.0, 1.0 / gamma)
    assert np.mean(runs) <= bound
    assert max(runs) <= 2 * bound
    assert math.isfinite(bound) and bound > 0


# -- fuzzing ------------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FUZZ_LEARNERS = [("Perceptron", {}), ("PassiveAggressive", {"C": 2.0}),
                  ("MarginPerceptron", {}), ("SecondOrderPerceptron", {}),
                  ("AROW", {"covariance": "full"}), ("NAROW", {})]


@st.composite
def _fuzz_case(draw):
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 7))
    vals = draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, 3.0, -2.25, 1e-3, 1e3]),
                         min_size=n * d, max_size=n * d))
    X = np.array(vals).reshape(n, d)
    K = draw(st.sampled_from([2, 2, 3]))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    name, params = draw(st.sampled_from(_FUZZ_LEARNERS if K == 2 else _FUZZ_LEARNERS[:3]))
    b = draw(st.sampled_from([1e-3, 0.1, 1.0, 50.0]))
    adaptive = draw(st.booleans())
    csr = draw(st.booleans())
    cut = draw(st.integers(0, n))
    seed = draw(st.integers(0, 2 ** 64 - 1))
    return X, y, K, name, params, b, adaptive, csr, cut, seed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_fuzz_case())
def test_fuzz_equals_the_twin(case):
    """Random small streams (zeros, tiny and large values, two or three classes, dense or CSR,
    a stream cut in two calls, any seed): the compiled sampler and its twin ask, predict and
    learn the same, or refuse the same call."""
    X, y, K, name, params, b, adaptive, csr, cut, seed = case
    classes = list(range(K))
    a = mbcore.SelectiveSampler(getattr(mbcore, name)(**params), b=b, adaptive=adaptive,
                                random_state=seed)
    t = mbref.SelectiveSampler(getattr(mbref, name)(**params), b=b, adaptive=adaptive,
                               random_state=seed)
    for lo, hi in ((0, cut), (cut, len(y))):
        if lo == hi:
            continue
        part = X[lo:hi]
        ea = et = None
        try:
            ra = a.run_online(sp.csr_matrix(part) if csr else part, y[lo:hi], classes=classes)
        except ValueError as e:
            ea = e
        try:
            rt = t.run_online(sp.csr_matrix(part) if csr else part.tolist(), y[lo:hi].tolist(),
                              classes=classes)
        except ValueError as e:
            et = e
        assert (ea is None) == (et is None), (ea, et)
        if ea is not None:
            return
        assert ra.asked.tolist() == rt.asked
        assert [int(v) for v in ra.predictions] == [int(v) for v in rt.predictions]
        assert ra.updated.tolist() == rt.updated
    if "_L" in a.__dict__ and a.__dict__["_L"].__dict__.get("classes_") is not None:
        assert np.array_equal(np.asarray(a.learner_.coef_, dtype=float),
                              np.asarray(t.learner_.coef_, dtype=float))


# -- threads ------------------------------------------------------------------------------------
def test_threads_train_one_sampler_without_losing_a_row_or_a_draw():
    """Four threads train one sampler on their own chunks while a fifth predicts: the calls
    are exclusive (each one's draws in order, all or nothing; the compiled pass runs without
    the GIL, so without the sampler's lock two passes would share the generator and the
    weights), so every row is seen once, the labels asked and the updates add up over the
    calls' runs, and the generator made exactly one draw per row (splitmix64's state advances
    by its constant at each draw)."""
    import threading
    n, chunk = 240_000, 6_000
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 8))
    y = (X @ rng.normal(size=8) + 0.5 * rng.normal(size=n) > 0).astype(int)
    S = mbcore.SelectiveSampler(b=5.0, random_state=1).partial_fit(X[:10], y[:10])
    first = mbcore.SelectiveSampler(b=5.0, random_state=1).run_online(X[:10], y[:10])
    runs, errors = [], []
    lock = threading.Lock()

    def train(k):
        try:
            for a in range(10 + k * chunk, n, 4 * chunk):
                r = S.run_online(X[a:a + chunk], y[a:a + chunk])
                with lock:
                    runs.append(r)
        except Exception as e:          # (reported below)
            errors.append(e)

    def read():
        try:
            for _ in range(200):
                assert S.predict(X[:5]).shape == (5,)
        except Exception as e:
            errors.append(e)
    threads = [threading.Thread(target=train, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=read))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert S.n_seen_ == n == 10 + sum(r.n for r in runs)
    assert S.labels_asked_ == sum(r.labels_asked for r in runs) + first.labels_asked
    assert S.updates_ == sum(r.updates for r in runs) + first.updates
    assert int(S._rng[0]) == (1 + n * 0x9E3779B97F4A7C15) % 2 ** 64
