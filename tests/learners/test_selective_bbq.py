"""BBQ, the selective sampler of Cesa-Bianchi, Gentile & Orabona (2009, "Robust bounds for
classification via selective sampling"): ``SelectiveSampler(query="bbq", kappa=...)`` around the
second-order Perceptron with the full correlation matrix, and that learner's ``update="every"``
(the regularized least squares classifier of Vovk, Azoury & Warmuth, the paper's base learner).

The rule: chi = x'^T A^-1 x' (A = a I + the asked rows' x' x'^T, before the row), ask iff
chi / (1 + chi) > t^-kappa (t = 1, 2, ...: the rows seen, this one included); no coin.  Checked
by a stream worked by hand, by a NumPy implementation written here from the paper (A kept as a
matrix and solved, not inverted by Sherman-Morrison as the learners do), and against the twin
(``mbref.selective``) bit for bit.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import mbref
from mbcore import Perceptron, SecondOrderPerceptron, SelectiveSampler, certify
from mbcore.datasets import load_a9a, load_mnist

pytestmark = pytest.mark.checked


@pytest.fixture(scope="module")
def a9a():
    X, y = load_a9a()[:2]
    return np.ascontiguousarray(np.asarray(X[:500], dtype=np.float64)[:, :40]), y[:500]


def np_bbq(X, y, kappa, a=1.0, intercept=False, every=True, classes=None):
    """The paper's rule with A as a matrix (np.linalg.solve): (asked, predictions as class
    indices, labels asked).  K >= 3 classes: one-vs-rest learners on +1 iff class k, chi the
    largest of theirs, the prediction the first argmax of their scores."""
    X = np.asarray(X, dtype=np.float64)
    if intercept:
        X = np.hstack([X, np.ones((len(X), 1))])
    classes = np.unique(y) if classes is None else classes
    K = len(classes) if len(classes) >= 3 else 1
    D = X.shape[1]
    A = [a * np.eye(D) for _ in range(K)]
    theta = [np.zeros(D) for _ in range(K)]
    yi = np.searchsorted(classes, y)
    asked, preds = [], []
    for t, x in enumerate(X, start=1):
        chis, scores = [], []
        for k in range(K):
            chis.append(float(x @ np.linalg.solve(A[k], x)))
            scores.append(float(x @ np.linalg.solve(A[k] + np.outer(x, x), theta[k])))
        p = int(np.argmax(scores)) if K > 1 else int(scores[0] > 0)
        chi = max(chis)
        ask = chi / (1 + chi) > t ** -kappa
        asked.append(ask)
        preds.append(p)
        if ask:
            for k in range(K):
                s = (1 if yi[t - 1] == k else -1) if K > 1 else (1 if yi[t - 1] == 1 else -1)
                right = (scores[k] > 0) == (s > 0)
                if every or not right:
                    A[k] = A[k] + np.outer(x, x)
                    theta[k] = theta[k] + s * x
    return np.array(asked), np.array(preds)


# -- a stream worked by hand ------------------------------------------------------------------

def test_bbq_asks_where_the_hand_computation_says():
    # every row is x = (2, 0), a = 1: after j asked rows A_11 = 1 + 4 j, chi = 4 / (1 + 4 j)
    # and r = chi / (1 + chi) = 4 / (5 + 4 j); with kappa = 1/2 the row t is asked iff
    # t > ((5 + 4 j) / 4)^2: j = 0 asks at t = 2 (1.5625), then t = 6 (5.06), 11 (10.56),
    # 19 (18.06), 28 (27.56): rows 1, 5, 10, 18, 27 (from 0)
    X = np.zeros((30, 2))
    X[:, 0] = 2.0
    y = np.where(np.arange(30) % 2 == 0, 1, -1)
    for twin in (SelectiveSampler, mbref.selective.SelectiveSampler):
        run = twin(query="bbq", kappa=0.5).run_online(X if twin is SelectiveSampler
                                                      else X.tolist(), y.tolist())
        assert list(np.flatnonzero(run.asked)) == [1, 5, 10, 18, 27], twin
        assert run.labels_asked == 5 and run.updates == 5       # (update="every")


def test_kappa_zero_asks_nothing_and_kappa_one_asks_from_the_third_row():
    # r_t < 1 = t^0 always; with kappa = 1 and x = (1, 0): r = 1/2 at t = 1, 2 (1/2 is not
    # > 1/2), then after j asks r = 1/(2 + j) > 1/t = 1/(3 + j): every row from the third
    X = np.zeros((12, 2))
    X[:, 0] = 1.0
    y = np.ones(12, dtype=int)
    y[0] = -1
    assert SelectiveSampler(query="bbq", kappa=0.0).run_online(X, y).labels_asked == 0
    run = SelectiveSampler(query="bbq", kappa=1.0).run_online(X, y)
    assert list(np.flatnonzero(run.asked)) == list(range(2, 12))


# -- against NumPy, from the paper --------------------------------------------------------------

@pytest.mark.parametrize("kappa", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("every", [True, False])
def test_bbq_agrees_with_numpy_on_a9a(a9a, kappa, every):
    X, y = a9a
    L = SecondOrderPerceptron(covariance="full", update="every" if every else "mistakes")
    run = SelectiveSampler(L, query="bbq", kappa=kappa).run_online(X, y)
    asked, preds = np_bbq(X, y, kappa, every=every)
    assert np.array_equal(run.asked, asked)
    assert np.array_equal(run.predictions, np.unique(y)[preds])


def test_bbq_with_an_intercept_and_a_agrees_with_numpy(a9a):
    X, y = a9a
    L = SecondOrderPerceptron(covariance="full", update="every", a=0.5, fit_intercept=True)
    run = SelectiveSampler(L, query="bbq", kappa=0.6).run_online(X[:300], y[:300])
    asked, preds = np_bbq(X[:300], y[:300], 0.6, a=0.5, intercept=True)
    assert np.array_equal(run.asked, asked)
    assert np.array_equal(run.predictions, np.unique(y)[preds])


def test_bbq_one_vs_rest_agrees_with_numpy_and_the_twin():
    X, y = load_mnist()[:2]
    X = np.ascontiguousarray(np.asarray(X[:120], dtype=np.float64)[:, ::16])
    y = y[:120]
    run = SelectiveSampler(query="bbq", kappa=0.5).run_online(X, y)
    asked, preds = np_bbq(X, y, 0.5)
    assert np.array_equal(run.asked, asked)
    assert np.array_equal(run.predictions, np.unique(y)[preds])
    twin = mbref.selective.SelectiveSampler(query="bbq", kappa=0.5).run_online(X.tolist(),
                                                                              y.tolist())
    assert twin.asked == list(run.asked) and twin.predictions == list(run.predictions)


# -- the twin, bit for bit ------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["dense", "csr", "float32"])
def test_bbq_equals_its_twin_in_chunks(a9a, form):
    X, y = a9a
    Xm = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[form]
    s = SelectiveSampler(SecondOrderPerceptron(covariance="full", update="every"),
                         query="bbq", kappa=0.5)
    runs = [s.run_online(Xm[i:i + 125], y[i:i + 125]) for i in range(0, 500, 125)]
    t = mbref.selective.SelectiveSampler(
        mbref.SecondOrderPerceptron(covariance="full", update="every"), query="bbq", kappa=0.5)
    rows = sp.csr_matrix(X) if form == "csr" else \
        (X.astype(np.float32) if form == "float32" else X).astype(np.float64).tolist()
    twin = t.run_online(rows, y.tolist())
    assert [bool(a) for r in runs for a in r.asked] == twin.asked
    assert [p for r in runs for p in r.predictions] == twin.predictions
    assert [bool(u) for r in runs for u in r.updated] == twin.updated
    assert np.array_equal(s.learner_.coef_.ravel(), np.asarray(t.learner_.coef_, dtype=float))
    assert (s.n_seen_, s.labels_asked_, s.mistakes_, s.updates_) == \
        (t.n_seen_, t.labels_asked_, t.mistakes_, t.updates_)


def test_bbq_with_labels_from_a_callable_asks_the_same_rows(a9a):
    X, y = a9a
    seen = []

    def label(i):
        seen.append(i)
        return y[i]

    run = SelectiveSampler(query="bbq", kappa=0.5).run_online(X, label, classes=[-1, 1])
    whole = SelectiveSampler(query="bbq", kappa=0.5).run_online(X, y)
    assert seen == list(np.flatnonzero(whole.asked))
    assert np.array_equal(run.asked, whole.asked)


def test_bbq_draws_nothing_from_the_generator(a9a):
    X, y = a9a
    s = SelectiveSampler(query="bbq", kappa=0.5, random_state=7)
    s.run_online(X[:50], y[:50])
    assert int(s._rng[0]) == 7


# -- the learner's update="every" ---------------------------------------------------------------

@pytest.mark.parametrize("covariance", ["full", "diagonal"])
def test_update_every_steps_on_every_row_and_equals_its_twin(a9a, covariance):
    X, y = a9a
    L = SecondOrderPerceptron(covariance=covariance, update="every").partial_fit(X, y)
    T = mbref.SecondOrderPerceptron(covariance=covariance, update="every")
    T.partial_fit(X.tolist(), y.tolist())
    assert L.updates_ == len(y) == T.updates_ and L.mistakes_ == T.mistakes_
    assert np.array_equal(L.coef_.ravel(), np.asarray(T.coef_, dtype=float))


def test_update_every_is_least_squares(a9a):
    # theta = sum y x, A = I + sum x x^T over every row: w = A^-1 theta, the ridge solution
    X, y = a9a
    X, y = X[:200], y[:200]
    L = SecondOrderPerceptron(covariance="full", update="every").partial_fit(X, y)
    w = np.linalg.solve(np.eye(X.shape[1]) + X.T @ X, X.T @ y.astype(float))
    assert np.allclose(L.coef_.ravel(), w, rtol=1e-9, atol=1e-12)


def test_certify_claims_no_mistake_bound_for_update_every(a9a):
    X, y = a9a
    cert = certify(SecondOrderPerceptron(covariance="full", update="every"), X[:200], y[:200])
    assert cert.bound is None
    assert "update='every'" in cert.summary()


# -- what is refused ----------------------------------------------------------------------------

@pytest.mark.parametrize("kw, word", [
    ({"learner": Perceptron()}, "SecondOrderPerceptron"),
    ({"learner": SecondOrderPerceptron()}, "covariance='full'"),
    ({"adaptive": True}, "adaptive"),
    ({"kappa": 1.5}, "kappa"),
    ({"kappa": -0.1}, "kappa"),
    ({"kappa": math.nan}, "kappa"),
    ({"kappa": True}, "kappa"),
    ({"query": "margins"}, "query"),
])
def test_bad_bbq_parameters_are_refused_by_both_twins(a9a, kw, word):
    X, y = a9a
    kw = dict({"query": "bbq"}, **kw)
    with pytest.raises(ValueError, match=word):
        SelectiveSampler(**kw).run_online(X[:10], y[:10])
    tw = dict(kw)
    if "learner" in tw:
        tw["learner"] = getattr(mbref, type(tw["learner"]).__name__)(
            **tw["learner"].get_params())
    with pytest.raises(ValueError, match=word):
        mbref.selective.SelectiveSampler(**tw).run_online(X[:10].tolist(), y[:10].tolist())


def test_switching_to_bbq_after_a_perceptron_run_is_refused_and_changes_nothing(a9a):
    X, y = a9a
    s = SelectiveSampler(b=1.0).partial_fit(X[:100], y[:100])
    before = (s.learner_.coef_.copy(), s.n_seen_, s.labels_asked_, int(s._rng[0]))
    s.set_params(query="bbq")
    with pytest.raises(ValueError, match="covariance='full'"):
        s.partial_fit(X[100:200], y[100:200])
    after = (s.learner_.coef_, s.n_seen_, s.labels_asked_, int(s._rng[0]))
    assert np.array_equal(before[0], after[0]) and before[1:] == after[1:]


def test_the_update_parameter_is_checked():
    with pytest.raises(ValueError, match="update"):
        SecondOrderPerceptron(update="always").partial_fit([[1.0, 0.0]], [1], classes=[-1, 1])
    with pytest.raises(ValueError, match="update"):
        mbref.SecondOrderPerceptron(update="always").partial_fit([[1.0, 0.0]], [1],
                                                                 classes=[-1, 1])


def test_certify_claims_no_bound_for_bbq(a9a):
    X, y = a9a
    cert = certify(SelectiveSampler(query="bbq", kappa=0.5), X[:200], y[:200])
    assert cert.bound is None and "query='bbq'" in cert.summary()


def test_a_saved_bbq_sampler_continues_exactly(a9a, tmp_path):
    import mbcore
    X, y = a9a
    whole = SelectiveSampler(query="bbq", kappa=0.4).run_online(X, y)
    s = SelectiveSampler(query="bbq", kappa=0.4)
    first = s.run_online(X[:250], y[:250])
    s.save(tmp_path / "s.npz")
    t = mbcore.load(tmp_path / "s.npz")
    assert (t.query, t.kappa) == ("bbq", 0.4)
    rest = t.run_online(X[250:], y[250:])
    assert np.array_equal(np.concatenate([first.asked, rest.asked]), whole.asked)


def test_bbq_through_river_asks_the_rows_run_online_asks(a9a):
    river = pytest.importorskip("river")  # noqa: F841
    from mbcore.river import SelectiveSampler as RiverSampler
    X, y = a9a
    X, y = X[:150, :12], y[:150]
    whole = SelectiveSampler(query="bbq", kappa=0.6).run_online(X, y, classes=[-1, 1])
    from mbcore.river import SecondOrderPerceptron as RiverSOP
    model = RiverSampler(RiverSOP(covariance="full", update="every", fit_intercept=False,
                                  classes=[-1, 1]), query="bbq", kappa=0.6)
    asked = []
    for x, label in zip(X, y):
        row = {j: float(v) for j, v in enumerate(x)}
        _, ask = model.predict_one(row)
        asked.append(ask)
        if ask:
            model.learn_one(row, int(label))
    assert asked == [bool(a) for a in whole.asked]
