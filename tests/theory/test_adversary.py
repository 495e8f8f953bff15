"""Adversaries (mbcore.adversary and its twin mbref.adversary): the lower-bound demonstrations,
each number compared with its formula computed here; the tree adversary against every learner
family of the notes (exact mistakes = the tree's depth, a consistent leaf), randomized learners
(a mean near depth/2 within the binomial spread), bad input, and the twin's games."""

import math

import numpy as np
import pytest

import mbcore
import mbref
from mbcore import adversary as adv
from mbref import adversary as ref_adv


# -- Winnow: k blocks, binary search inside each ----------------------------------------------

def _k_log(n, k):
    """k * floor(log2(floor(n / k))), by counting halvings."""
    m, h = n // k, 0
    while m >= 2:
        m //= 2
        h += 1
    return k * h


@pytest.mark.parametrize("n,k", [(64, 4), (100, 3), (1024, 1), (17, 17), (1000, 10)])
def test_winnow_demonstration_forces_k_log_n_over_k_and_stays_under_winnows_bound(n, k):
    d = adv.winnow_demonstration(n, k)
    want = _k_log(n, k)
    assert d.mistakes == want == d.bound
    assert d.upper == 2 + 3 * k * (1 + math.log2(n))            # Winnow2 (Angluin lecture 18)
    assert d.holds
    # the labels are the disjunction of the targets' variables: one per block
    target = d.details["target"]
    m = n // k
    assert [t // m for t in target] == list(range(k))
    for ones, label in zip(d.details["rows"], d.details["labels"]):
        assert label == int(any(i in target for i in ones))
    assert d.details["k_log_n_over_k"] == pytest.approx(k * math.log2(n / k))


def test_winnow_demonstration_on_any_learner():
    SkPerceptron = pytest.importorskip("sklearn.linear_model").Perceptron
    sk = SkPerceptron().partial_fit(np.zeros((1, 32)), [0], classes=[0, 1])
    for learner in (mbcore.Perceptron(), mbcore.Disjunction(), sk, mbcore.EliminationWinnow(),
                    mbcore.BalancedWinnow(), mbref.Winnow()):
        d = adv.winnow_demonstration(32, 2, learner=learner)
        assert d.mistakes == _k_log(32, 2) == 8
        assert d.upper is None and d.holds


# -- Weighted Majority: two experts that disagree ---------------------------------------------

@pytest.mark.parametrize("T", [2, 3, 10, 1001])
@pytest.mark.parametrize("beta", [0.5, 0.9, 0.999])
def test_weighted_majority_errs_every_round_and_the_best_expert_half(T, beta):
    d = adv.weighted_majority_demonstration(T, beta=beta)
    assert d.mistakes == T
    assert sorted(d.details["expert_mistakes"]) == [T // 2, T - T // 2]
    m = T // 2
    assert d.details["m_best"] == m and d.bound == 2 * m
    assert d.details["ratio"] == T / m >= 2
    factor = math.log2(1 / beta) / math.log2(2 / (1 + beta))
    assert d.details["factor"] == pytest.approx(factor, rel=1e-15)
    assert d.upper == pytest.approx((m * math.log2(1 / beta) + 1) / math.log2(2 / (1 + beta)))
    assert d.holds and T <= d.upper


def test_weighted_majority_ratio_approaches_two_and_the_factor_is_2_41_at_one_half():
    ratios = [adv.weighted_majority_demonstration(T).details["ratio"] for T in (3, 11, 101, 1001)]
    assert ratios == [3 / 1, 11 / 5, 101 / 50, 1001 / 500]
    assert all(a > b for a, b in zip(ratios, ratios[1:])) and ratios[-1] - 2 < 0.01
    assert adv.weighted_majority_demonstration(4).details["factor"] == \
        pytest.approx(1 / math.log2(4 / 3))                      # 2.409...: the notes' 2.41
    factors = [adv.weighted_majority_demonstration(4, beta=b).details["factor"]
               for b in (0.5, 0.9, 0.99, 0.999)]
    assert all(a > b > 2 for a, b in zip(factors, factors[1:]))  # (2 + eps) as beta -> 1
    assert factors[-1] - 2 < 0.001


# -- the Perceptron: orthogonal vectors --------------------------------------------------------

@pytest.mark.parametrize("d,R", [(1, 1.0), (7, 1.0), (25, 2.0), (100, 0.3)])
def test_perceptron_meets_r_over_gamma_squared_on_orthogonal_vectors(d, R):
    dem = adv.perceptron_demonstration(d, R=R)
    assert dem.mistakes == d
    labels = np.array(dem.details["labels"])
    X = np.eye(d) * R
    y = np.where(labels == 1, 1.0, -1.0)
    # R and gamma measured by NumPy here, and by mbcore.bounds
    R_np = np.sqrt((X ** 2).sum(axis=1)).max()
    u = y / np.sqrt(d)
    g_np = (y * (X @ u) / np.linalg.norm(u)).min()
    assert dem.details["R"] == pytest.approx(R_np, rel=1e-15)
    assert dem.details["gamma"] == pytest.approx(g_np, rel=1e-14)
    assert mbcore.bounds.margin(X, y, u) == pytest.approx(dem.details["gamma"], rel=1e-14)
    assert (R_np / g_np) ** 2 == pytest.approx(d, rel=1e-12)
    assert dem.bound == dem.upper == pytest.approx(d, abs=1e-9) and dem.holds
    # the Perceptron (tie -> -1 at w.x = 0) is labelled +1 every round
    assert labels.tolist() == [1] * d


def test_perceptron_demonstration_on_any_learner():
    p = mbcore.Perceptron(tie="positive")
    dem = adv.perceptron_demonstration(6, learner=p)
    assert dem.mistakes == 6 and dem.details["labels"] == [0] * 6 and p.mistakes_ == 6
    dem = adv.perceptron_demonstration(6, learner=mbcore.PassiveAggressive())
    assert dem.mistakes == 6 and dem.upper is None and dem.holds


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda m: m.winnow_demonstration(0, 1), "winnow_demonstration: parameter n"),
    (lambda m: m.winnow_demonstration(4, 5), "winnow_demonstration: parameter k must be an "
                                             "integer in \\[1, n = 4\\], got 5"),
    (lambda m: m.winnow_demonstration(4, 1.5), "parameter k"),
    (lambda m: m.weighted_majority_demonstration(1), "parameter rounds"),
    (lambda m: m.weighted_majority_demonstration(5, beta=1.0), "parameter beta"),
    (lambda m: m.perceptron_demonstration(0), "perceptron_demonstration: parameter d"),
    (lambda m: m.perceptron_demonstration(3, R=-1.0), "parameter R"),
])
@pytest.mark.parametrize("module", [adv, ref_adv], ids=["mbcore", "mbref"])
def test_demonstrations_refuse_bad_parameters(module, call, match):
    with pytest.raises(ValueError, match=match):
        call(module)


class _NoFit:
    def predict(self, X):
        return [0]


@pytest.mark.parametrize("module", [adv, ref_adv], ids=["mbcore", "mbref"])
def test_a_learner_without_partial_fit_is_refused(module):
    with pytest.raises(TypeError, match=r"winnow_demonstration: the learner \(_NoFit\) must "
                                        r"have predict and partial_fit methods; it has no "
                                        r"partial_fit"):
        module.winnow_demonstration(8, 2, learner=_NoFit())


def test_a_learner_that_cannot_predict_yet_and_counts_no_mistakes_is_told_what_to_do():
    SkPerceptron = pytest.importorskip("sklearn.linear_model").Perceptron
    with pytest.raises(ValueError, match=r"cannot predict before its first example.*"
                                         r"classes=\[0, 1\]"):
        adv.perceptron_demonstration(3, learner=SkPerceptron())


# -- the twin ------------------------------------------------------------------------------------

def test_the_twins_demonstrations_give_the_same_numbers():
    for a, b in [(adv.winnow_demonstration(100, 3), ref_adv.winnow_demonstration(100, 3)),
                 (adv.weighted_majority_demonstration(21, beta=0.7),
                  ref_adv.weighted_majority_demonstration(21, beta=0.7)),
                 (adv.perceptron_demonstration(13, R=1.7),
                  ref_adv.perceptron_demonstration(13, R=1.7))]:
        assert a.to_dict() == b.to_dict()


# -- the tree adversary ---------------------------------------------------------------------------

def _witness(C):
    """(Ldim(C), a complete mistake tree of that depth as nested data), by the recursion of
    the definition over frozensets of concepts (written here, independent of mbcore's search;
    small classes only)."""
    import functools
    M = C.matrix().astype(int)
    m, N = M.shape

    def split(V, j):
        V1 = frozenset(c for c in V if M[c, j])
        return V - V1, V1

    @functools.lru_cache(maxsize=None)
    def ldim(V):
        if len(V) <= 1:
            return len(V) - 1
        best = 0
        for j in range(N):
            V0, V1 = split(V, j)
            if V0 and V1:
                best = max(best, 1 + min(ldim(V0), ldim(V1)))
        return best

    def tree(V, d):
        if d == 0:
            return min(V)
        for j in range(N):
            V0, V1 = split(V, j)
            if ldim(V0) >= d - 1 and ldim(V1) >= d - 1:
                return (j, tree(V0, d - 1), tree(V1, d - 1))
        raise AssertionError("no split")

    V = frozenset(range(m))
    return ldim(V), tree(V, ldim(V))


# (name, constructor, its Ldim worked by hand: binary search on 8 thresholds; the 3 variables
# of a monotone conjunction or disjunction (n of them: the points "all but x_i"); dictators on
# the cube: log2 8; the 9 conjunctions of 2 variables: 3 = floor(log2 9))
CLASSES = {"half_intervals(3)": (lambda M: M.ConceptClass.half_intervals(3), 3),
           "monotone_conjunctions(3)": (lambda M: M.ConceptClass.monotone_conjunctions(3), 3),
           "monotone_disjunctions(3)": (lambda M: M.ConceptClass.monotone_disjunctions(3), 3),
           "dictators(8, cube)": (lambda M: M.ConceptClass.dictators(8, domain="cube"), 3),
           "all_conjunctions(2)": (lambda M: M.ConceptClass.all_conjunctions(2), 3)}


def _tree(name, module=mbcore):
    make, _ = CLASSES[name]
    C = make(module)
    _, nested = _witness(C)
    return module.MistakeTree.from_nested(nested, C)


def _kind(cls):
    return cls._TAGS.takes


def _players():
    """Every registered learner the tree can be shown to (points, advice, feature vectors)."""
    return [(n, c) for n, c in mbcore.all_learners()
            if _kind(c) in ("points", "advice", "features")]


def _boolean_input(cls):
    """The learners whose rows must be 0/1 (the Winnow and Boolean families)."""
    return cls.__module__ in ("mbcore.multiplicative", "mbcore.boolean")


def _make(cls, C):
    return cls(concepts=C) if _kind(cls) == "points" else cls()


def test_the_witness_of_this_file_is_a_mistake_tree_of_the_hand_worked_depth():
    for name, (make, ldim) in CLASSES.items():
        C = make(mbcore)
        d, nested = _witness(C)
        assert d == ldim == mbcore.littlestone_dimension(C), name
        assert mbcore.check_mistake_tree(nested, C) == d


@pytest.mark.parametrize("cname", sorted(CLASSES))
def test_every_deterministic_learner_makes_exactly_depth_mistakes(cname):
    import warnings
    T = _tree(cname)
    C, depth = T.concepts, T.depth
    adversary = adv.TreeAdversary(T)
    played = []
    for name, cls in _players():
        if getattr(cls, "_randomized", False):
            continue
        if _boolean_input(cls) and cname == "half_intervals(3)":
            continue                                   # (its points are 1..8)
        learner = _make(cls, C)
        with warnings.catch_warnings():
            # (Disjunction warns where the labels are no monotone disjunction's)
            warnings.simplefilter("ignore", mbcore.LearnerWarning)
            game = adversary.run(learner)
        assert game.mistakes == depth == 3, name
        assert not game.randomized and game.consistent, name
        assert learner.mistakes_ == depth, name
        # the rounds are a path of the tree, each label the opposite of the prediction, and
        # the leaf's concept labels the points as the game did (read from the table here)
        node, row = T, C.matrix()[game.concept]
        for r in game.rounds:
            assert r.point == node.point and r.label == 1 - r.prediction
            assert row[r.point] == r.label
            node = node.child(r.label)
        assert node.is_leaf and node.concept == game.concept
        played.append(name)
    # Halving, SOA, the Boolean learners, Winnow's family, the linear learners, Weighted Majority
    need = {"Halving", "SOA", "WeightedMajority", "Perceptron", "MarginPerceptron",
            "KernelPerceptron", "PassiveAggressive", "AROW", "ALMA"}
    if cname != "half_intervals(3)":
        need |= {"Conjunction", "Disjunction", "DecisionList", "Winnow", "EliminationWinnow",
                 "WinnowStar", "BalancedWinnow"}
    assert need <= set(played)


def test_a_learner_that_has_learned_before_is_still_forced_depth_mistakes():
    T = _tree("monotone_conjunctions(3)")
    C = T.concepts
    halving = mbcore.Halving(C).partial_fit([7], [1], classes=[0, 1])     # x = 111: positive
    p = mbcore.Perceptron().partial_fit(np.ones((2, 3)), [-1, 1])
    assert adv.TreeAdversary(T).run(halving).mistakes == 3
    game = adv.TreeAdversary(T).run(p)
    assert game.mistakes == 3 and p.mistakes_ == 3 + 1


def test_any_object_with_predict_and_partial_fit_plays():
    SkPerceptron = pytest.importorskip("sklearn.linear_model").Perceptron
    T = _tree("monotone_disjunctions(3)")
    sk = SkPerceptron().partial_fit(np.zeros((1, 3)), [0], classes=[0, 1])
    game = adv.TreeAdversary(T).run(sk)
    assert game.mistakes == 3 and game.consistent and game.learner == "Perceptron"
    # the labels it learned are the game's (its classes_ are 0/1)
    assert list(sk.classes_) == [0, 1]
    with pytest.raises(ValueError, match=r"TreeAdversary: the learner \(Perceptron\) cannot "
                                         r"predict before its first example"):
        adv.TreeAdversary(T).run(SkPerceptron())


def test_explicit_features_and_labels_other_than_0_1():
    T = _tree("half_intervals(3)")
    # the points 1..8 as one-hot vectors: a learner over features plays the same tree
    game = adv.TreeAdversary(T, features=np.eye(8)).run(mbcore.Winnow())
    assert game.mistakes == 3 and game.consistent
    p = mbcore.Perceptron().partial_fit([[1.0] * 8, [0.0] * 8], ["no", "yes"])
    game = adv.TreeAdversary(T, features=np.eye(8)).run(p)
    assert game.mistakes == 3 and list(p.classes_) == ["no", "yes"]


@pytest.mark.parametrize("cname", ["monotone_conjunctions(3)", "dictators(8, cube)"])
def test_randomized_learner_makes_half_the_depth_in_expectation(cname):
    T = _tree(cname)
    C, depth = T.concepts, T.depth
    n = 300
    counts = []
    for seed in range(n):
        rwm = mbcore.RandomizedWeightedMajority(random_state=seed)
        game = adv.TreeAdversary(T, random_state=seed).run(rwm)
        assert game.randomized and game.consistent
        assert rwm.mistakes_ == game.mistakes
        counts.append(game.mistakes)
    # each round is a mistake with probability 1/2 whatever the learner draws: the total is
    # Binomial(depth, 1/2), mean depth/2, standard deviation sqrt(depth)/2; the mean of n
    # games is within 4 standard errors of depth/2
    se = math.sqrt(depth) / 2 / math.sqrt(n)
    assert abs(np.mean(counts) - depth / 2) < 4 * se
    assert set(counts) <= set(range(depth + 1)) and len(set(counts)) > 1


def test_randomized_labels_are_seeded_coins_and_randomized_can_be_forced():
    T = _tree("monotone_conjunctions(3)")
    C = T.concepts
    g1 = adv.TreeAdversary(T, randomized=True, random_state=5).run(mbcore.Halving(C))
    g2 = adv.TreeAdversary(T, randomized=True, random_state=5).run(mbcore.SOA(C))
    assert [r.label for r in g1.rounds] == [r.label for r in g2.rounds]
    # seeded: another seed gives other coins somewhere among 20 seeds
    assert len({tuple(r.label for r in adv.TreeAdversary(T, randomized=True, random_state=s)
                      .run(mbcore.Halving(C)).rounds) for s in range(20)}) > 1
    # and a randomized learner can be played as a deterministic one: its prediction is read
    # first (a copy draws it), so this is exact only for a deterministic one
    wm = mbcore.WeightedMajority()
    assert adv.TreeAdversary(T, randomized=False).run(wm).mistakes == 3


def test_a_leaf_is_a_game_of_no_rounds():
    C = mbcore.ConceptClass.half_intervals(2)
    game = adv.TreeAdversary(mbcore.MistakeTree.leaf(C, 2)).run(mbcore.Halving(C))
    assert game.rounds == [] and game.mistakes == 0 == game.depth and game.consistent


# -- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_tree_adversary_refuses_what_is_not_a_mistake_tree(module):
    A = adv if module is mbcore else ref_adv
    C = module.ConceptClass.half_intervals(2)
    with pytest.raises(TypeError, match="TreeAdversary: parameter tree must be a MistakeTree, "
                                        "got tuple"):
        A.TreeAdversary((1, (0, 0, 1), (2, 2, 3)))
    wrong = module.MistakeTree.from_nested((1, (0, 0, 1), (2, 2, 1)), C)     # leaf 1 says x=2 is 1
    with pytest.raises(ValueError, match=r"TreeAdversary: parameter tree is not a complete "
                                         r"mistake tree: .*path \[1, 1\]"):
        A.TreeAdversary(wrong)
    ragged = module.MistakeTree.from_nested((1, 0, (2, 2, 3)), C)
    with pytest.raises(ValueError, match="not a complete mistake tree"):
        A.TreeAdversary(ragged)


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_tree_adversary_refuses_bad_features_parameters_and_learners(module):
    A = adv if module is mbcore else ref_adv
    nested = _witness(mbcore.ConceptClass.monotone_conjunctions(3))[1]
    T = module.MistakeTree.from_nested(nested, module.ConceptClass.monotone_conjunctions(3))
    with pytest.raises(ValueError, match="TreeAdversary: parameter features has 3 rows; the "
                                         "class 'monotone_conjunctions\\(3\\)' has 8 points"):
        A.TreeAdversary(T, features=np.eye(3))
    for bad in ([[1.0, 0.0]] * 7 + [[1.0]], [1.0] * 8, [["a", "b"]] * 8):
        with pytest.raises(ValueError, match="TreeAdversary: parameter features must be a 2-D "
                                             "array"):
            A.TreeAdversary(T, features=bad)
    with pytest.raises(ValueError, match="TreeAdversary: parameter randomized must be True, "
                                         "False or None, got 'yes'"):
        A.TreeAdversary(T, randomized="yes")
    with pytest.raises(ValueError, match="TreeAdversary: parameter random_state"):
        A.TreeAdversary(T, random_state=-1)
    with pytest.raises(TypeError, match=r"TreeAdversary: the learner \(_NoFit\) must have "
                                        r"predict and partial_fit"):
        A.TreeAdversary(T).run(_NoFit())
    bare = module.ConceptClass.from_matrix([[0, 1], [1, 1]])       # no points
    Tb = module.MistakeTree.from_nested((0, 0, 1), bare)
    with pytest.raises(ValueError, match="TreeAdversary: the class 'matrix' has no feature "
                                         "vectors .* give parameter features"):
        A.TreeAdversary(Tb).run(module.Perceptron())
    assert A.TreeAdversary(Tb, features=[[1.0], [-1.0]]).run(module.Perceptron()).mistakes == 1


# -- the twin's games ------------------------------------------------------------------------------

@pytest.mark.parametrize("cname", ["monotone_conjunctions(3)", "dictators(8, cube)",
                                   "half_intervals(3)"])
def test_the_twins_adversary_plays_the_twins_learners_to_the_same_game(cname):
    import warnings
    nested = _witness(CLASSES[cname][0](mbcore))[1]
    trees = {M: M.MistakeTree.from_nested(nested, CLASSES[cname][0](M)) for M in (mbcore, mbref)}
    names = ["Halving", "SOA", "WeightedMajority", "RandomizedWeightedMajority", "Perceptron",
             "PassiveAggressive", "AROW"]
    if cname != "half_intervals(3)":
        names += ["Winnow", "BalancedWinnow", "Conjunction", "Disjunction", "DecisionList"]
    for name in names:
        games = []
        for M, A in ((mbcore, adv), (mbref, ref_adv)):
            cls = getattr(M, name)
            C = trees[M].concepts
            learner = cls(concepts=C) if name in ("Halving", "SOA") else (
                cls(random_state=7) if name.startswith("Randomized") else cls())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                games.append(A.TreeAdversary(trees[M], random_state=3).run(learner).to_dict())
        assert games[0] == games[1], name


# -- Halving and SOA meet Ldim -----------------------------------------------------------------

@pytest.mark.parametrize("cname", sorted(CLASSES))
@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_halving_and_soa_meet_ldim_on_a_given_tree(module, cname):
    A = adv if module is mbcore else ref_adv
    make, ldim = CLASSES[cname]
    C = make(module)
    tree = module.MistakeTree.from_nested(_witness(make(mbcore))[1], C)
    demos = A.ldim_demonstration(C, tree=tree)
    assert [(d.learner, d.mistakes, d.bound) for d in demos] == [("Halving", ldim, ldim),
                                                                 ("SOA", ldim, ldim)]
    # SOA's bound is Ldim; Halving's floor(log2 |C|)
    assert [d.upper for d in demos] == [math.floor(math.log2(C.n_concepts)), ldim]
    assert all(d.holds and d.details["game"].consistent for d in demos)


@pytest.mark.parametrize("module", [mbcore, mbref], ids=["mbcore", "mbref"])
def test_ldim_demonstration_refuses_a_tree_of_another_depth_or_class(module):
    A = adv if module is mbcore else ref_adv
    C = module.ConceptClass.half_intervals(2)
    shallow = module.MistakeTree.from_nested((1, 0, 2), C)
    with pytest.raises(ValueError, match="ldim_demonstration: parameter tree has depth 1; Ldim "
                                         "of 'half_intervals\\(2\\)' is 2"):
        A.ldim_demonstration(C, tree=shallow)
    other = module.ConceptClass.half_intervals(2)
    with pytest.raises(ValueError, match="parameter tree is a tree over another class"):
        A.ldim_demonstration(other, tree=module.MistakeTree.from_nested(
            (1, (0, 0, 1), (2, 2, 3)), C))
    with pytest.raises(TypeError, match="ldim_demonstration: parameter concepts must be a "
                                        "ConceptClass, got list"):
        A.ldim_demonstration([[0, 1]])


# -- on the witness of littlestone_dimension(C, witness=True) --------------------------------------

@pytest.mark.parametrize("make,ldim", [
    (lambda M: M.ConceptClass.monotone_conjunctions(6), 6),      # the 64 concepts
    (lambda M: M.ConceptClass.monotone_conjunctions(8), 8),      # and its 256
    (lambda M: M.ConceptClass.monotone_disjunctions(6), 6),
    (lambda M: M.ConceptClass.all_conjunctions(3), 4),           # floor(log2 27) = 4
])
def test_every_deterministic_learner_is_forced_ldim_on_the_witness(make, ldim):
    import warnings
    C = make(mbcore)
    d, tree = mbcore.littlestone_dimension(C, witness=True)
    assert d == ldim == tree.depth
    if C.n_concepts <= 27:
        assert _witness(C)[0] == ldim
    adversary = adv.TreeAdversary(tree)
    for name, cls in _players():
        if getattr(cls, "_randomized", False):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mbcore.LearnerWarning)
            game = adversary.run(_make(cls, C))
        assert game.mistakes == ldim and game.consistent, name
    demos = adv.ldim_demonstration(C)
    assert [(x.learner, x.mistakes, x.bound, x.holds) for x in demos] == [
        ("Halving", ldim, ldim, True), ("SOA", ldim, ldim, True)]


def test_the_twins_ldim_demonstration_plays_the_same_games_on_the_witness():
    for n in (3, 5):
        a = adv.ldim_demonstration(mbcore.ConceptClass.monotone_conjunctions(n))
        b = ref_adv.ldim_demonstration(mbref.ConceptClass.monotone_conjunctions(n))
        assert [x.details["game"].to_dict() for x in a] == \
            [x.details["game"].to_dict() for x in b]
        assert [x.holds for x in a] == [x.holds for x in b] == [True, True]
