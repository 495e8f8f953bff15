"""The record of updates and the explanations of the Winnow family and the Weighted Majority
pools (mbcore.explain): golden cases worked by hand, the record replayed against the weights,
the twins' identical records, save/load, reset, the errors."""

import io
import math
import os

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref
from conftest import FILES_0_1_0
from mbref.explain import explain as ref_explain

# (the experts kernels' record output and the Winnow pass's record: also on the debug build)
pytestmark = pytest.mark.checked

WINNOWS = ["Winnow", "BalancedWinnow", "WinnowStar", "EliminationWinnow"]
POOLS = ["WeightedMajority", "RandomizedWeightedMajority"]

# -- golden case: a 4-row Winnow stream, worked by hand ---------------------------------------
# n = 4 features, theta = n = 4, alpha = 2, beta = 1/2, w0 = 1
#   row 0: x = 1100, y = +1: score 2 < 4, predicts -1: promote f0, f1 -> w = 2 2 1 1
#   row 1: x = 1010, y = -1: score 3 < 4, predicts -1: right, no update
#   row 2: x = 1110, y = -1: score 5 >= 4, predicts +1: demote f0, f1, f2 -> w = 1 1 .5 1
#   row 3: x = 1101, y = +1: score 3 < 4, predicts -1: promote f0, f1, f3 -> w = 2 2 .5 2
X4 = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0], [1, 1, 0, 1]], dtype=np.uint8)
Y4 = np.array([1, -1, -1, 1])
X_NEW = np.array([1, 0, 1, 1], dtype=np.uint8)    # score 2 + .5 + 2 = 4.5 >= 4: +1


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_winnow_golden_record(mod):
    clf = mod.Winnow(record_updates=True).partial_fit(X4[:2].tolist(), Y4[:2].tolist())
    clf.partial_fit(X4[2:].tolist(), Y4[2:].tolist())     # the stream goes on: rows 2, 3
    idx, dirs = clf.update_record_
    assert list(idx) == [0, 2, 3] and list(dirs) == [1.0, -1.0, 1.0]
    assert list(clf.log2_coef_) == [1.0, 1.0, -1.0, 1.0]
    assert (clf.mistakes_, clf.updates_) == (3, 3)


def test_winnow_golden_explanation():
    clf = mbcore.Winnow(record_updates=True).partial_fit(X4, Y4)
    e = mbcore.explain(clf, X_NEW, X_train=X4)
    assert e.prediction == 1 and e.score == 0.5 == clf.decision_function(X_NEW[None])[0]
    assert e.feature_parts.tolist() == [2.0, 0.0, 0.5, 2.0] and e.intercept_part == -4.0
    assert e.feature_score() == e.score and e.check()
    x = e.extra
    assert x["active_features"] == [0, 2, 3]
    assert x["log2_weights"] == [1.0, -1.0, 1.0] == x["log_alpha_weights"]
    # promotions / demotions of features 0, 2, 3 and the rows that made them
    assert x["promotions"] == [2, 0, 1] and x["demotions"] == [1, 1, 0]
    assert x["rows"] == [[0, 2, 3], [2], [3]]
    # w_i = w0 * alpha ** (promotions - demotions), exactly
    assert [2.0 ** (p - d) for p, d in zip(x["promotions"], x["demotions"])] == \
        clf.coef_[[0, 2, 3]].tolist()
    assert e.replay_exact is True
    # each update's part: what it added to log2 w over x's active features 0, 2, 3
    #   row 0: f0 +1; row 2: f0 -1, f2 -1; row 3: f0 +1, f3 +1
    assert e.top_examples() == [(2, -2.0, -2.0), (3, 2.0, 2.0), (0, 1.0, 1.0)]
    d = e.to_dict()
    assert d["top_examples"][0] == [2, -2.0, -2.0] and d["replay_exact"] is True


def test_winnow_counts_without_training_rows():
    clf = mbcore.Winnow(record_updates=True).partial_fit(X4, Y4)
    e = mbcore.explain(clf, X_NEW)
    assert e.check() and e.replay_exact is None and e.top_examples() == []
    assert "promotions" not in e.extra


# -- golden case: three experts, Weighted Majority with beta = 1/2, worked by hand -------------
#   round 0: P = 1 0 1, y = 1: q1 = 2 >= q0 = 1, predicts 1; expert 1 loses: l = 0 -1 0
#   round 1: P = 0 0 1, y = 0: q0 = 1.5 > q1 = 1, predicts 0; expert 2 loses: l = 0 -1 -1
#   round 2: P = 1 1 1, y = 1: nobody loses (no update)
#   round 3: P = 0 1 1, y = 1: q1 = 1 >= q0 = 1 (the tie goes to 1); expert 0 loses
#   round 4: P = 1 0 0, y = 0: q0 = 1 > q1 = .5, predicts 0; expert 0 loses: l = -2 -1 -1
P5 = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 1, 1], [1, 0, 0]])
Y5 = np.array([1, 0, 1, 1, 0])


@pytest.mark.parametrize("mod", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_weighted_majority_golden_record(mod):
    wm = mod.WeightedMajority(record_updates=True).partial_fit(P5.tolist(), Y5.tolist())
    idx, lab = wm.update_record_
    assert list(idx) == [0, 1, 3, 4] and list(lab) == [1.0, 0.0, 1.0, 0.0]
    assert list(wm.expert_mistakes_) == [2, 1, 1] and list(wm.log2_weights_) == [-2, -1, -1]
    assert (wm.mistakes_, wm.updates_) == (0, 4)


def test_weighted_majority_golden_explanation():
    wm = mbcore.WeightedMajority(record_updates=True).fit(P5, Y5)
    e = mbcore.explain(wm, [1, 0, 1], X_train=P5)
    # weights relative to the best: .5 1 1; q1 = 1.5 (experts 0, 2), q0 = 1, T = 2.5
    assert e.prediction == 1 and e.extra["sums"] == [1.0, 1.5]
    assert e.extra["weights"] == [0.5, 1.0, 1.0] and e.extra["votes"] == [1, 0, 1]
    assert e.feature_parts.tolist() == [0.5 / 2.5, -1.0 / 2.5, 1.0 / 2.5]
    assert e.score == wm.decision_function([[1, 0, 1]])[0] == pytest.approx(0.2)
    assert e.check()
    assert e.extra["rounds_lost"] == [[3, 4], [0], [1]]
    # weight = beta ** (rounds lost), exactly: log2 w_i = -(rounds lost)
    assert e.extra["log2_weights_from_counts"] == e.extra["log2_weights"] == [-2.0, -1.0, -1.0]
    assert e.extra["counts_exact"] is True and e.replay_exact is True
    # a round's part: log2(beta) per loss of a supporter (experts 0, 2), -log2(beta) per
    # loss of an opponent (expert 1): rounds 0: +1, 1: -1, 3: -1, 4: -1
    assert sorted(e.top_examples()) == [(0, 1.0, -0.5), (1, -1.0, 0.5), (3, -1.0, 0.5),
                                        (4, -1.0, 0.5)]


# -- the record replayed: the counts give the weights exactly ----------------------------------
def _mushrooms(n):
    X, y = mbcore.datasets.load_mushrooms(encoding="boolean")
    return X[:n], y[:n]


@pytest.mark.parametrize("name", WINNOWS)
@pytest.mark.parametrize("how", ["partial_fit", "fit", "csr"])
def test_winnow_replay_reproduces_the_weights(name, how):
    X, y = _mushrooms(600)
    clf = getattr(mbcore, name)(record_updates=True)
    if how == "fit":
        clf.fit(X[:300], y[:300])
        train = X[:300]
    else:
        A = sp.csr_matrix(X) if how == "csr" else X
        clf.partial_fit(A[:250], y[:250]).partial_fit(A[250:500], y[250:500])
        train = A[:500]
    per = clf.update_record_[0].size
    assert per == clf.updates_
    for row in (X[550], X[590]):
        e = mbcore.explain(clf, sp.csr_matrix(row) if how == "csr" else row, X_train=train)
        assert e.check() and e.replay_exact is True
        assert e.feature_score() == pytest.approx(e.score, abs=1e-9)
        x = e.extra
        P, D = np.array(x["promotions"]), np.array(x["demotions"])
        L = np.array(x["log2_weights"])
        if name == "Winnow" or name == "BalancedWinnow":
            assert (L == P - D).all()           # w0 = 1, alpha = 2: log2 w = P - D, exactly
        elif name == "EliminationWinnow":
            assert (L[D > 0] == -np.inf).all() and (L[D == 0] == P[D == 0]).all()
        else:                                    # Winnow*: the demotions that applied
            assert (L == P - D).all() and (L >= -1).all()
        assert [len(r) for r in x["rows"]] == (P + D + np.array(x["skipped_demotions"])).tolist()


def test_winnow_real_features_replay_is_bit_exact():
    rng = np.random.default_rng(3)
    X = rng.random((300, 9)) * 3
    y = np.where(X[:, 0] + X[:, 3] > 3, 1, -1)
    clf = mbcore.Winnow(features="real", alpha=1.5, record_updates=True).fit(X, y)
    e = mbcore.explain(clf, X[7], X_train=X)
    assert e.replay_exact is True and e.check()


def test_winnow_k_classes_record():
    X, y = mbcore.datasets.load_mnist(encoding="boolean")
    X, y = X[:200], y[:200]
    a = mbcore.Winnow(record_updates=True).partial_fit(X, y)
    b = mbref.Winnow(record_updates=True).partial_fit(X.tolist(), y.tolist())
    idx, dirs = a.update_record_
    assert idx.tolist() == b.update_record_[0] and dirs.tolist() == b.update_record_[1]
    assert idx.size == 2 * a.updates_
    # a mistake: +(true class + 1), then -(predicted class + 1)
    assert (dirs[0::2] == y[idx[0::2]] + 1).all() and (dirs[1::2] < 0).all()
    e = mbcore.explain(a, X[150], X_train=X)
    assert e.replay_exact is True and e.check()
    assert e.prediction == a.predict(X[150:151])[0]


# -- the twins keep the same record --------------------------------------------------------------
@pytest.mark.parametrize("name", WINNOWS)
def test_winnow_twin_records_the_same(name):
    X, y = _mushrooms(400)
    a, b = getattr(mbcore, name)(record_updates=True), getattr(mbref, name)(record_updates=True)
    for s in (slice(0, 130), slice(130, 131), slice(131, 400)):
        a.partial_fit(X[s], y[s])
        b.partial_fit(X[s].tolist(), y[s].tolist())
    assert a.update_record_[0].tolist() == b.update_record_[0]
    assert a.update_record_[1].tolist() == b.update_record_[1]
    a.fit(X, y)
    b.fit(X.tolist(), y.tolist())
    assert a.update_record_[0].tolist() == b.update_record_[0]
    assert a.update_record_[1].tolist() == b.update_record_[1]


@pytest.mark.parametrize("name", POOLS)
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("beta", [0.5, 0.3])
def test_pool_twin_records_the_same_and_replay(name, K, beta):
    rng = np.random.default_rng(K)
    y = rng.integers(0, K, 150)
    P = np.where(rng.random((150, 6)) < 0.7, y[:, None], rng.integers(0, K, (150, 6)))
    a = getattr(mbcore, name)(beta=beta, record_updates=True)
    b = getattr(mbref, name)(beta=beta, record_updates=True)
    for s in (slice(0, 60), slice(60, 150)):
        a.partial_fit(P[s], y[s])
        b.partial_fit(P[s].tolist(), y[s].tolist())
    assert a.update_record_[0].tolist() == b.update_record_[0]
    assert a.update_record_[1].tolist() == b.update_record_[1]
    e = mbcore.explain(a, P[5], X_train=P)
    assert e.replay_exact is True and e.extra["counts_exact"] is True and e.check()
    assert [len(r) for r in e.extra["rounds_lost"]] == a.expert_mistakes_.tolist()
    if beta == 0.5:       # a power of two: log2 w = -(rounds lost), exactly
        assert e.extra["log2_weights"] == [-float(m) for m in a.expert_mistakes_]


_WINNOW_KEYS = ("active_features", "log2_weights", "log_alpha_weights", "promotions",
                "demotions", "skipped_demotions", "rows", "threshold", "complete_record")
_POOL_KEYS = ("votes", "log2_weights", "weights", "sums", "expert_mistakes",
              "log2_weights_from_counts", "counts_bound", "counts_exact", "rounds_lost")


def _same_explanation(a, b, keys):
    assert np.asarray(a.feature_parts).tolist() == b.feature_parts
    assert np.asarray(a.score).tolist() == b.score and a.prediction == b.prediction
    assert {k: a.extra[k] for k in keys} == {k: b.extra[k] for k in keys}
    assert a.replay_exact is b.replay_exact is True
    assert a.log_indices.tolist() == b.log_indices and a.log_parts.tolist() == b.log_parts
    assert a.check() and b.check()


@pytest.mark.parametrize("name", WINNOWS)
def test_winnow_twin_explains_the_same(name):
    X, y = _mushrooms(450)
    a = getattr(mbcore, name)(record_updates=True).partial_fit(X[:400], y[:400])
    b = getattr(mbref, name)(record_updates=True).partial_fit(X[:400].tolist(),
                                                             y[:400].tolist())
    _same_explanation(mbcore.explain(a, X[420], X_train=X[:400]),
                      ref_explain(b, X[420].tolist(), X[:400].tolist()), _WINNOW_KEYS)


def test_winnow_twin_explains_ten_classes_the_same():
    X, y = mbcore.datasets.load_mnist(encoding="boolean")
    X, y = X[:120], y[:120]
    a = mbcore.Winnow(record_updates=True).partial_fit(X, y)
    b = mbref.Winnow(record_updates=True).partial_fit(X.tolist(), y.tolist())
    _same_explanation(mbcore.explain(a, X[7], X_train=X), ref_explain(b, X[7].tolist(),
                                                                      X.tolist()), _WINNOW_KEYS)


@pytest.mark.parametrize("name", POOLS)
@pytest.mark.parametrize("K", [2, 3])
def test_pool_twin_explains_the_same(name, K):
    rng = np.random.default_rng(10 + K)
    y = rng.integers(0, K, 120)
    P = np.where(rng.random((120, 5)) < 0.7, y[:, None], rng.integers(0, K, (120, 5)))
    a = getattr(mbcore, name)(beta=0.3, record_updates=True).fit(P, y)
    b = getattr(mbref, name)(beta=0.3, record_updates=True).fit(P.tolist(), y.tolist())
    _same_explanation(mbcore.explain(a, P[9], X_train=P),
                      ref_explain(b, P[9].tolist(), P.tolist()), _POOL_KEYS)


# -- persistence, copy, reset ----------------------------------------------------------------------
@pytest.mark.parametrize("name", WINNOWS + POOLS)
def test_record_survives_save_and_load_and_reset_clears_it(name):
    if name in POOLS:
        X, y = P5, Y5
    else:
        X, y = X4, Y4
    clf = getattr(mbcore, name)(record_updates=True).partial_fit(X, y)
    buf = io.BytesIO()
    clf.save(buf)
    buf.seek(0)
    back = type(clf).load(buf)
    for u, v in zip(clf.update_record_, back.update_record_):
        assert np.array_equal(u, v)
    back.partial_fit(X, y)
    clf.partial_fit(X, y)
    for u, v in zip(clf.update_record_, back.update_record_):
        assert np.array_equal(u, v)
    assert mbcore.clone(clf).get_params()["record_updates"] is True
    clf.fit(X[:2], y[:2])      # fit starts a new record
    assert clf.update_record_[0].size <= clf.updates_
    import copy
    c = copy.deepcopy(clf)
    assert np.array_equal(c.update_record_[0], clf.update_record_[0])


@pytest.mark.parametrize("fname", ["Winnow.npz", "WeightedMajority.npz"])
def test_files_without_a_record_load(fname):
    clf = mbcore.load(os.path.join(FILES_0_1_0, fname))
    assert clf.record_updates is False and clf.update_record_[0].size == 0


def test_no_record_by_default():
    clf = mbcore.Winnow().partial_fit(X4, Y4)
    assert clf.update_record_[0].size == 0 and clf.updates_ == 3


# -- errors ------------------------------------------------------------------------------------------
def test_errors():
    clf = mbcore.Winnow().partial_fit(X4, Y4)
    with pytest.raises(ValueError, match="Winnow: parameter X_train was given, but the learner "
                                         "did not record all its updates"):
        mbcore.explain(clf, X_NEW, X_train=X4)
    rec = mbcore.Winnow(record_updates=True).partial_fit(X4, Y4)
    with pytest.raises(ValueError, match="Winnow: the record names row 3 of the training "
                                         "stream, but X_train has 2 rows"):
        mbcore.explain(rec, X_NEW, X_train=X4[:2])
    with pytest.raises(ValueError, match="Winnow: X has 3 features"):
        mbcore.explain(rec, X_NEW[:3])
    with pytest.raises(ValueError, match="Winnow: explain takes one row, got 2"):
        mbcore.explain(rec, X4[:2])
    with pytest.raises(mbcore.NotFittedError, match="Winnow"):
        mbcore.explain(mbcore.Winnow(), X_NEW)
    X, y = mbcore.datasets.load_mnist(encoding="boolean")
    for mod in (mbcore, mbref):
        with pytest.raises(ValueError, match="Winnow: record_updates=True takes two classes or "
                                             "multi_class='multiclass', got multi_class='ovr'"):
            mod.Winnow(record_updates=True, multi_class="ovr").partial_fit(X[:20], y[:20])
        with pytest.raises(ValueError, match="parameter record_updates must be a bool, got "
                                             "'yes'"):
            mod.Winnow(record_updates="yes").partial_fit(X4, Y4)
        with pytest.raises(ValueError, match="parameter record_updates must be a bool"):
            mod.WeightedMajority(record_updates=1).partial_fit(P5, Y5)
    wm = mbcore.WeightedMajority(record_updates=True).partial_fit(P5, Y5)
    with pytest.raises(ValueError, match=r"WeightedMajority: the record names round 4, but "
                                         r"X_train has 3 rounds"):
        mbcore.explain(wm, P5[0], X_train=P5[:3])
    pool = mbcore.WeightedMajority(record_updates=True,
                                   experts=[mbcore.Perceptron(), mbcore.Winnow()])
    Xb = X4.astype(float)
    pool.partial_fit(Xb, Y4)
    assert pool.update_record_[0].size == pool.updates_
    assert mbcore.explain(pool, Xb[0]).check()
    with pytest.raises(ValueError, match="WeightedMajority: X_train must be the experts' advice"):
        mbcore.explain(pool, Xb[0], X_train=Xb)


def test_a_record_started_late_is_refused_for_the_examples():
    clf = mbcore.Winnow().partial_fit(X4[:1], Y4[:1], classes=[-1, 1])
    clf.set_params(record_updates=True)
    clf.partial_fit(X4[1:], Y4[1:])
    assert clf.update_record_[0].tolist() == [2, 3]
    with pytest.raises(ValueError, match="did not record all its updates"):
        mbcore.explain(clf, X_NEW, X_train=X4)
    assert math.isfinite(mbcore.explain(clf, X_NEW).score)


def test_k_label_tie_explains_the_predicted_class():
    # three experts, three labels, each expert right in one round and wrong in two: equal
    # weights, so each label gets one vote (shares 1/3); the tie goes to the later class, 2,
    # which expert 1 votes for
    P = np.array([[0, 1, 2], [2, 1, 0], [0, 1, 2]])
    wm = mbcore.WeightedMajority().fit(P, np.array([0, 1, 2]))
    e = mbcore.explain(wm, [0, 2, 1])
    assert e.prediction == 2 and e.score.tolist() == [1 / 3] * 3
    assert e.top_features(1) == [("expert 1", 1 / 3, 1.0)]


@pytest.mark.parametrize("name", ["Winnow", "BalancedWinnow"])
def test_one_row_at_a_time_and_learn_one_record_the_same(name):
    X, y = _mushrooms(200)
    whole = getattr(mbcore, name)(record_updates=True).partial_fit(X, y)
    rows = getattr(mbcore, name)(record_updates=True)
    one = getattr(mbcore, name)(record_updates=True)
    for i in range(200):
        rows.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
        one.learn_one({j: 1 for j in np.flatnonzero(X[i])}, int(y[i]), classes=[-1, 1],
                      features=list(range(112)))
    for other in (rows, one):
        for u, v in zip(whole.update_record_, other.update_record_):
            assert np.array_equal(u, v)


def test_pool_one_round_at_a_time_records_the_same():
    P, y = P5, Y5
    whole = mbcore.WeightedMajority(record_updates=True).partial_fit(P, y)
    rounds = mbcore.WeightedMajority(record_updates=True)
    for t in range(len(y)):
        rounds.partial_fit(P[t:t + 1], y[t:t + 1], classes=[0, 1])
    for u, v in zip(whole.update_record_, rounds.update_record_):
        assert np.array_equal(u, v)


@pytest.mark.parametrize("name", ["Winnow", "BalancedWinnow", "WinnowStar"])
def test_the_record_is_the_same_for_any_number_of_threads(name):
    X, y = mbcore.datasets.load_a9a(encoding="boolean")
    one = getattr(mbcore, name)(n_jobs=1, record_updates=True).partial_fit(X, y)
    two = getattr(mbcore, name)(n_jobs=2, record_updates=True).partial_fit(X, y)
    assert one.update_record_[0].size == one.updates_ > 1000
    for u, v in zip(one.update_record_, two.update_record_):
        assert np.array_equal(u, v)
