"""Balanced Winnow on the exact arithmetic, and the Winnow family's decision_function.

Balanced Winnow with Boolean features and power-of-two alpha and w0 keeps integral log-weights,
and its prediction is the exact ``sum 2**l+ - sum 2**l- >= theta`` for any run length: checked
here pass after pass against an independent reference written with Python integers from the
documented rule (not the twin), on one-hot rows of a few hundred features and a target that no
weights separate, where the weights drift far apart (and, with a large w0, past float64's range,
where a float64 score cancels to nothing).  The twin and the compiled kernel agree with it, on one
thread and on two, dense and CSR, for two and three classes.  In float mode (features='real', or
factors that are not powers of two) a score that cannot be decided raises with its row.
"""

import numpy as np
import pytest

import mbcore
import mbref

sp = pytest.importorskip("scipy.sparse")


def one_hot(n, attributes, values, seed):
    """n rows of `attributes` categorical attributes with `values` values each, one-hot 0/1."""
    rng = np.random.default_rng(seed)
    cats = rng.integers(0, values, (n, attributes))
    X = np.zeros((n, attributes * values), np.uint8)
    X[np.arange(n)[:, None], np.arange(attributes) * values + cats] = 1
    return X, cats, rng


def noisy_target(cats, rng, noise=0.15):
    """+1/-1 from a few attributes, with label noise: no weights separate it."""
    s = (cats[:, 0] < 5).astype(int) + (cats[:, 1] < 3) - (cats[:, 2] > 6)
    flip = rng.random(len(s)) < noise
    return np.where((s > 0.5) != flip, 1, -1)


class ExactBalanced:
    """The documented rule with Python integers: weights 2**a (a integral), predict 1 iff
    sum 2**a+ - sum 2**a- >= theta over the active features; false negative: a+ += k, a- -= k
    (alpha = 2**k), false positive the reverse.  Classes: the binary rule per class ('ovr'),
    or argmax with ties to the smallest index, y promoted and the prediction demoted."""

    def __init__(self, d, K=1, k=1, lw0=0, theta=1):
        self.ap = [[lw0] * d for _ in range(K)]
        self.an = [[lw0] * d for _ in range(K)]
        self.k, self.theta, self.K = k, theta, K

    def _value(self, c, act):
        """sum 2**a+ - sum 2**a- as an exact (numerator, shift): value = num / 2**shift."""
        exps = [self.ap[c][j] for j in act] + [self.an[c][j] for j in act]
        shift = max(0, -min(exps)) if exps else 0
        num = sum(1 << (self.ap[c][j] + shift) for j in act) - \
            sum(1 << (self.an[c][j] + shift) for j in act)
        return num, shift

    def _positive(self, c, act):
        num, shift = self._value(c, act)
        return num >= self.theta * (1 << shift)      # theta an integer here

    def _update(self, c, act, sign):
        sign = int(sign)                 # Python integers throughout: no int64 wrap-around
        for j in act:
            self.ap[c][j] += sign * self.k
            self.an[c][j] -= sign * self.k

    def step(self, x, y):
        act = np.flatnonzero(x).tolist()
        y = int(y)
        if self.K == 1:
            p = 1 if self._positive(0, act) else -1
            if p != y:
                self._update(0, act, y)
            return p
        vals = [self._value(c, act) for c in range(self.K)]
        top = max(v[1] for v in vals)
        scaled = [n << (top - s) for n, s in vals]
        p = max(range(self.K), key=lambda c: (scaled[c], -c))
        return p

    def step_multiclass(self, x, y):
        act = np.flatnonzero(x).tolist()
        p = self.step(x, y)
        if p != y:
            self._update(y, act, 1)
            self._update(p, act, -1)
        return p

    def step_ovr(self, x, y):
        act = np.flatnonzero(x).tolist()
        p = self.step(x, y)
        flips = [(c, 1 if c == y else -1) for c in range(self.K)
                 if (1 if self._positive(c, act) else -1) != (1 if c == y else -1)]
        for c, s in flips:
            self._update(c, act, s)
        return p


def test_reference_can_tell_float_from_exact():
    """The check below can fail: a float64 score cancels where the exact one does not."""
    ref = ExactBalanced(3, lw0=600)
    ref.ap[0] = [601, 600, 600]
    ref.an[0] = [600, 600, 600]
    x = np.array([1, 1, 1])
    num, shift = ref._value(0, [0, 1, 2])
    assert num == 2 ** 600 and ref._positive(0, [0, 1, 2])
    w = [2.0 ** a - 2.0 ** b for a, b in zip(ref.ap[0], ref.an[0])]
    assert sum(w) - 1.0 == 2.0 ** 600 - 1.0 == 2.0 ** 600       # fine here, but:
    assert (2.0 ** 601 + 1.0) - 2.0 ** 601 == 0.0                # theta vanishes in float64
    assert x.sum() == 3


@pytest.mark.parametrize("w0_log", [0, 600])
def test_balanced_winnow_100_passes_equal_the_exact_rule(w0_log):
    """One-hot rows (20 attributes x 10 values = 200 features), a noisy target; 100 passes of
    the compiled learner (dense, then CSR on a copy, then two threads) equal the integer
    reference row by row; with w0 = 2**600 every sum cancels far below float64's resolution."""
    n = 300 if w0_log == 0 else 150
    X, cats, rng = one_hot(n, 20, 10, seed=11)
    y = noisy_target(cats, rng)
    ref = ExactBalanced(X.shape[1], lw0=w0_log)
    clf = mbcore.BalancedWinnow(w0=2.0 ** w0_log, n_jobs=1)
    csr = mbcore.BalancedWinnow(w0=2.0 ** w0_log, n_jobs=1)
    two = mbcore.BalancedWinnow(w0=2.0 ** w0_log, n_jobs=2)
    Xc = sp.csr_matrix(X)
    passes = 100 if w0_log == 0 else 40
    for ep in range(passes):
        expected = [ref.step(X[i], y[i]) for i in range(n)]
        for c, data in ((clf, X), (csr, Xc), (two, X)):
            run = mbcore.run_online(c, data, y)
            assert np.array_equal(run.predictions, expected), (ep, c)
    lp = np.array(ref.ap[0], float)
    assert np.array_equal(clf.log2_coef_, lp) and np.array_equal(csr.log2_coef_, lp)
    assert np.array_equal(two.log2_coef_, lp)
    assert np.array_equal(clf.log2_coef_neg_, np.array(ref.an[0], float))
    if w0_log == 0:
        assert np.abs(lp).max() > 100                # the weights drifted far apart
    # the scores' signs are the exact rule's (decision_function = score - theta)
    df = clf.decision_function(X)
    pred = clf.predict(X)
    assert ((df > 0) <= (pred == 1)).all() and ((df < 0) <= (pred == -1)).all()


def test_twin_equals_the_exact_rule_and_the_kernel():
    """The twin (Fractions) on the same rows: the same predictions, pass after pass, as the
    reference and the compiled learner, beyond float64's range (w0 = 2**1020: weights past
    2**1023, whose float64 cache is inf)."""
    X, cats, rng = one_hot(80, 10, 6, seed=5)
    y = noisy_target(cats, rng, noise=0.3)
    ref = ExactBalanced(X.shape[1], lw0=1020)
    twin = mbref.BalancedWinnow(w0=2.0 ** 1020)
    clf = mbcore.BalancedWinnow(w0=2.0 ** 1020)
    rows = X.tolist()
    for ep in range(8):
        expected = [ref.step(X[i], y[i]) for i in range(len(y))]
        assert list(mbref.run_online(twin, rows, y.tolist()).predictions) == expected, ep
        assert np.array_equal(mbcore.run_online(clf, X, y).predictions, expected), ep
    assert np.isinf(clf.coef_).any()                 # past float64's range, still exact
    assert np.array_equal(clf.log2_coef_, np.array(twin.log2_coef_))
    assert np.array_equal(clf.decision_function(X), np.array(twin.decision_function(rows)),
                          equal_nan=True)


@pytest.mark.parametrize("multi_class", ["multiclass", "ovr"])
@pytest.mark.parametrize("w0_log", [0, 600])
def test_three_classes_equal_the_exact_rule(multi_class, w0_log):
    X, cats, rng = one_hot(150, 12, 8, seed=3)
    y = (cats[:, 0] % 3 + (rng.random(150) < 0.2)) % 3
    ref = ExactBalanced(X.shape[1], K=3, lw0=w0_log)
    step = ref.step_ovr if multi_class == "ovr" else ref.step_multiclass
    clf = mbcore.BalancedWinnow(w0=2.0 ** w0_log, multi_class=multi_class, n_jobs=1)
    two = mbcore.BalancedWinnow(w0=2.0 ** w0_log, multi_class=multi_class, n_jobs=2)
    twin = mbref.BalancedWinnow(w0=2.0 ** w0_log, multi_class=multi_class)
    for ep in range(12):
        expected = [step(X[i], y[i]) for i in range(len(y))]
        assert np.array_equal(mbcore.run_online(clf, X, y).predictions, expected), ep
        assert np.array_equal(mbcore.run_online(two, sp.csr_matrix(X), y).predictions,
                              expected), ep
        if ep < 3:
            assert list(mbref.run_online(twin, X.tolist(), y.tolist()).predictions) == \
                expected, ep
    assert np.array_equal(clf.log2_coef_, np.array(ref.ap, float))
    assert np.array_equal(clf.log2_coef_neg_, np.array(ref.an, float))
    if multi_class == "ovr":
        # each column is learner k's score - theta, its sign that learner's exact decision
        df = clf.decision_function(X)
        for k in range(3):
            pos = np.array([ref._positive(k, np.flatnonzero(x).tolist()) for x in X])
            assert ((df[:, k] > 0) <= pos).all() and ((df[:, k] < 0) <= ~pos).all()


def test_exact_ties_are_decided_exactly():
    """sum 2**l+ - sum 2**l- == theta exactly (a tie, predicted 1) although the float64 terms
    cancel: w+ = (2**600 + 1 ... ) is built by hand through the state."""
    for mod in (mbcore, mbref):
        clf = mod.BalancedWinnow(w0=2.0 ** 600, theta=1.0)
        clf.partial_fit([[0, 0, 0]], [1], classes=[-1, 1])     # a row with nothing active
        st = clf.log2_coef_, clf.log2_coef_neg_
        assert list(np.ravel(st[0])) == [600.0] * 3
    # by the learning rule: row {0} is a false negative (0 < 1): l+0 = 601, l-0 = 599;
    # then {0, 1, 2}: (2**601 + 2**600 + 2**600) - (2**599 + 2**600 + 2**600) = 3 * 2**599 >= 1
    # and {1, 2}: 0 < 1 -> -1; {0}: 2**601 - 2**599 >= 1 -> 1.
    for mod in (mbcore, mbref):
        clf = mod.BalancedWinnow(w0=2.0 ** 600, theta=1.0)
        clf.partial_fit([[1, 0, 0]], [1], classes=[-1, 1])
        assert list(clf.predict([[1, 1, 1], [0, 1, 1], [1, 0, 0]])) == [1, -1, 1]
        df = list(clf.decision_function([[0, 1, 1]]))
        assert df == [-1.0]                        # (2**600 - 2**600) * 2 - 1, exact here


def test_exact_mode_is_the_default_and_persists(tmp_path):
    clf = mbcore.BalancedWinnow().partial_fit(np.eye(4, dtype=np.uint8), [1, -1, 1, -1])
    assert clf._exact_mode
    assert not mbcore.BalancedWinnow(alpha=3.0).partial_fit(np.eye(2), [1, -1])._exact_mode
    assert not mbcore.BalancedWinnow(features="real").partial_fit(np.eye(2), [1, -1])._exact_mode
    path = tmp_path / "bw.npz"
    clf.save(path)
    back = mbcore.load(path)
    assert back._exact_mode and np.array_equal(back.log2_coef_, clf.log2_coef_)


@pytest.mark.parametrize("multi_class", ["multiclass", "ovr"])
@pytest.mark.parametrize("classes", [2, 3])
def test_float_mode_raises_on_a_score_it_cannot_decide(classes, multi_class):
    """alpha = 3 (not a power of two): float64 arithmetic; weights past 2**1023 make the score
    meaningless (inf, or inf - inf), and the call raises naming the row, the learner left as it
    was, in both implementations with the same message; predict and decision_function too."""
    X, cats, rng = one_hot(60, 5, 4, seed=2)
    y = (cats[:, 0] + (rng.random(60) < 0.3)) % classes       # noisy: mistakes go on
    outcomes = []
    for mod in (mbcore, mbref):
        clf = mod.BalancedWinnow(alpha=3.0, w0=2.0 ** 1018, multi_class=multi_class)
        data = X if mod is mbcore else X.tolist()
        labels = y if mod is mbcore else y.tolist()
        err = None
        for _ in range(40):
            before = (np.array(clf.log2_coef_).copy() if hasattr(clf, "classes_") and
                      clf.classes_ is not None else None, getattr(clf, "mistakes_", None))
            try:
                clf.partial_fit(data, labels, classes=list(range(classes)))
            except ValueError as e:
                err = str(e)
                if before[0] is not None:
                    assert np.array_equal(np.array(clf.log2_coef_), before[0])
                    assert clf.mistakes_ == before[1]
                break
        assert err is not None and "is not finite in float64 arithmetic" in err, err
        assert "features='boolean'" in err
        outcomes.append((err, np.array(clf.log2_coef_).tolist(), clf.mistakes_))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_float_mode_predict_raises_on_a_score_it_cannot_decide(mod, classes):
    """w0 = 2**1023, alpha = 3: row (1, 0) of class 1 is a false negative (0 < theta), so
    l+_0 = 1023 + log2 3 (w+_0 = inf in float64); its score inf - w-_0 is then no number the
    rule can compare: predict and decision_function raise naming row 1."""
    clf = mod.BalancedWinnow(alpha=3.0, w0=2.0 ** 1023)
    clf.partial_fit([[1.0, 0.0]], [1], classes=list(range(classes)))
    assert np.isinf(np.ravel(clf.coef_)).any()
    rows = [[0.0, 1.0], [1.0, 0.0]]
    for call in (clf.predict, clf.decision_function):
        with pytest.raises(ValueError, match=r"BalancedWinnow: the score of row 1 is not finite"):
            call(rows)
    # a row that avoids the weight is decided as usual
    assert len(clf.predict([[0.0, 1.0]])) == 1


@pytest.mark.parametrize("name,params", [
    ("Winnow", {}), ("Winnow", {"alpha": 1.5}), ("Winnow", {"features": "real"}),
    ("EliminationWinnow", {}), ("WinnowStar", {}), ("BalancedWinnow", {}),
    ("BalancedWinnow", {"features": "real", "alpha": 1.5}),
])
def test_decision_function_is_score_minus_theta(name, params):
    """decision_function = the score less theta_, in both implementations, bit for bit; its
    sign is the prediction's (0 a tie, predicted positive)."""
    rng = np.random.default_rng(4)
    X = (rng.random((120, 9)) < 0.4).astype(float)
    if params.get("features") == "real":
        X = X * rng.choice([0.5, 1.0, 2.0, -1.0], X.shape)
    y = np.where(X[:, 0] + X[:, 1] > X[:, 2] + 0.5, 1, -1)
    a = getattr(mbcore, name)(**params).partial_fit(X, y)
    b = getattr(mbref, name)(**params).partial_fit(X.tolist(), y.tolist())
    da, db = a.decision_function(X), np.array(b.decision_function(X.tolist()))
    assert np.array_equal(da, db)
    w = a.coef_
    if name == "BalancedWinnow" or params.get("features") == "real" or params.get("alpha"):
        score = X @ w
        assert np.allclose(da, score - a.theta_, rtol=1e-12, atol=1e-12)
    else:
        assert np.array_equal(da, (X @ w) - a.theta_)     # dyadic sums: exact
    pred = a.predict(X)
    assert ((da >= 0) == (pred == 1)).all()


def float64_rule(X, y, k):
    """The same rule with the score summed in float64 (the four-partial-sum order), as
    BalancedWinnow computed it before its exact mode: the predictions it makes."""
    d = X.shape[1]
    lp, ln = [0] * d, [0] * d
    out = []
    for x, yi in zip(X, y):
        act = np.flatnonzero(x).tolist()
        s = [0.0] * 4
        for m, j in enumerate(act):
            s[m % 4] += 2.0 ** lp[j] - 2.0 ** ln[j]
        p = 1 if (s[0] + s[1]) + (s[2] + s[3]) >= 1.0 else -1
        out.append(p)
        if p != yi:
            for j in act:
                lp[j] += int(yi) * k
                ln[j] -= int(yi) * k
    return out


def test_a_stream_where_float64_sums_leave_the_rule():
    """alpha = 2**60 on four features: by row 30 a row holds weights near 2**120 that cancel,
    and a float64 sum loses the 2**60 that decides it (the old arithmetic predicts otherwise
    from there on).  The exact rule, the twin and the kernel agree."""
    rng = np.random.default_rng(71)
    X = (rng.random((60, 4)) < 0.6).astype(np.uint8)
    y = rng.choice([-1, 1], 60)
    ref = ExactBalanced(4, k=60)
    expected = [ref.step(X[i], y[i]) for i in range(60)]
    old = float64_rule(X, y, 60)
    assert old[:30] == expected[:30] and old[30] != expected[30]
    clf = mbcore.BalancedWinnow(alpha=2.0 ** 60)
    assert np.array_equal(mbcore.run_online(clf, X, y).predictions, expected)
    twin = mbref.BalancedWinnow(alpha=2.0 ** 60)
    assert list(mbref.run_online(twin, X.tolist(), y.tolist()).predictions) == expected
    assert np.array_equal(clf.log2_coef_, np.array(ref.ap[0], float))


def test_files_written_before_the_exact_mode_go_on_exactly():
    """A BalancedWinnow saved by 0.1.0 (float mode then; integral logs, default parameters)
    loads in exact mode; one with features='real' stays in float mode."""
    import os
    from conftest import FILES_0_1_0 as folder
    old = mbcore.load(os.path.join(folder, "BalancedWinnow.npz"))
    assert old._exact_mode
    real = mbcore.load(os.path.join(folder, "BalancedWinnow-real.npz"))
    assert not real._exact_mode


@pytest.mark.longrun       # (6.5 s: the twin's pure Python, 100 passes)
def test_twin_100_passes_equal_the_exact_rule():
    """The twin's 100 passes over one-hot rows (a noisy target) equal the integer reference
    row by row, and its state the reference's, as the compiled learner's do."""
    X, cats, rng = one_hot(200, 20, 10, seed=11)
    y = noisy_target(cats, rng)
    ref = ExactBalanced(X.shape[1])
    twin = mbref.BalancedWinnow()
    clf = mbcore.BalancedWinnow()
    rows, labels = X.tolist(), y.tolist()
    for ep in range(100):
        expected = [ref.step(X[i], y[i]) for i in range(len(y))]
        assert list(mbref.run_online(twin, rows, labels).predictions) == expected, ep
        assert np.array_equal(mbcore.run_online(clf, X, y).predictions, expected), ep
    assert twin.log2_coef_ == [float(a) for a in ref.ap[0]]
    assert np.array_equal(clf.log2_coef_, np.array(ref.ap[0], float))
    assert max(abs(a) for a in ref.ap[0]) > 60          # the weights drifted far apart
