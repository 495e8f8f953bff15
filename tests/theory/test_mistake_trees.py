"""Mistake trees (issue 40): ``MistakeTree``, ``check_mistake_tree``, the witnesses of
``littlestone_dimension(C, witness=True)`` and ``vc_dimension(C, witness=True)``,
``shattering_concepts`` and the drawing, against hand-worked trees, an independent brute-force
Littlestone dimension and shattering check written here, and the twin ``mbref``.

Hand-worked classes used below:

* ``half_intervals(2)``: points 1..4 (indices 0..3), concepts t = 0..4 with c_t(x) = 1 iff
  x <= t.  The binary-search tree (1, (0, 0, 1), (2, 2, 3)) asks x = 2, then x = 1 or x = 3;
  its leaves are the thresholds t = 0, 1, 2, 3 its paths leave.
* ``monotone_conjunctions(2)``: points 00, 01, 10, 11 (indices 0..3), concepts 0 = true,
  1 = x1, 2 = x0, 3 = x0∧x1.  The tree (1, (2, 3, 2), (2, 1, 0)) asks 01: label 0 leaves
  {x0, x0∧x1}, split by 10 (x0∧x1 says 0, x0 says 1); label 1 leaves {true, x1}, split by 10
  (x1 says 0, true says 1).
"""

import itertools
import json

import pytest

import mbcore
import mbref
from mbcore import ConceptClass, MistakeTree, check_mistake_tree, shattering_concepts

PAIRS = [(mbcore, "mbcore"), (mbref, "mbref")]

HALF = (1, (0, 0, 1), (2, 2, 3))
CONJ = (1, (2, 3, 2), (2, 1, 0))


def half2(pkg=mbcore):
    return pkg.ConceptClass.half_intervals(2)


def conj2(pkg=mbcore):
    return pkg.ConceptClass.monotone_conjunctions(2)


# -- the tree --------------------------------------------------------------------------------

@pytest.mark.parametrize("pkg,_", PAIRS)
def test_accessors_on_the_binary_search_tree(pkg, _):
    C = half2(pkg)
    T = pkg.MistakeTree.from_nested(HALF, C)
    assert (T.depth, T.point, T.concept, T.is_leaf, T.concepts) == (2, 1, None, False, C)
    assert T.child(0).point == 0 and T.child(1).point == 2
    leaf = T.child(1).child(0)
    assert (leaf.is_leaf, leaf.concept, leaf.point, leaf.depth) == (True, 2, None, 0)
    assert list(T.paths()) == [(((1, 0), (0, 0)), 0), (((1, 0), (0, 1)), 1),
                               (((1, 1), (2, 0)), 2), (((1, 1), (2, 1)), 3)]
    assert [labels for labels, _ in T.walk()] == [(), (0,), (0, 0), (0, 1), (1,), (1, 0),
                                                  (1, 1)]
    assert T.to_nested() == HALF
    with pytest.raises(ValueError, match="a leaf"):
        leaf.child(0)
    for bad in (2, -1, 0.0, "0", None):
        with pytest.raises(ValueError, match="label must be 0 or 1"):
            T.child(bad)


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_node_by_node_equals_nested(pkg, _):
    C = conj2(pkg)
    L, N = pkg.MistakeTree.leaf, pkg.MistakeTree.node
    T = N(C, 1, N(C, 2, L(C, 3), L(C, 2)), N(C, 2, L(C, 1), L(C, 0)))
    assert T.to_nested() == CONJ
    assert pkg.check_mistake_tree(T) == 2


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_dict_round_trip_is_json_safe(pkg, _):
    C = conj2(pkg)
    T = pkg.MistakeTree.from_nested(CONJ, C)
    d = json.loads(json.dumps(T.to_dict()))
    assert d == {"class": "monotone_conjunctions(2)", "n_concepts": 4, "n_points": 4,
                 "tree": {"point": 1, "children": [
                     {"point": 2, "children": [{"concept": 3}, {"concept": 2}]},
                     {"point": 2, "children": [{"concept": 1}, {"concept": 0}]}]}}
    assert pkg.MistakeTree.from_dict(d, C).to_nested() == CONJ
    assert pkg.check_mistake_tree(d, C) == 2
    with pytest.raises(ValueError, match="n_concepts = 4; the class given has 5"):
        pkg.MistakeTree.from_dict(d, half2(pkg))


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_text_names_points_and_concepts(pkg, _):
    T = pkg.MistakeTree.from_nested(CONJ, conj2(pkg))
    assert str(T) == "\n".join([
        "mistake tree of depth 2 over monotone_conjunctions(2)",
        "point 1 (01)",
        "  0: point 2 (10)",
        "    0: concept 3 (x0∧x1)",
        "    1: concept 2 (x0)",
        "  1: point 2 (10)",
        "    0: concept 1 (x1)",
        "    1: concept 0 (true)"])
    # a class without feature vectors: points by index, concepts by index
    M = pkg.ConceptClass.from_matrix([[0, 1], [1, 0]])
    assert str(pkg.MistakeTree.from_nested((0, 1, 0), M)).splitlines()[1:] == [
        "point 0 (#0)", "  0: concept 1 (c1)", "  1: concept 0 (c0)"]


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_concept_labels_of_the_constructors(pkg, _):
    CC = pkg.ConceptClass
    lab = lambda C, c: pkg.MistakeTree.leaf(C, c).concept_label(c)
    assert lab(CC.monotone_disjunctions(3), 5) == "x0∨x2"
    assert lab(CC.monotone_disjunctions(3), 0) == "false"
    assert lab(CC.all_conjunctions(2), 5) == "x0∧¬x1"          # 5 = 12 in base 3
    assert lab(CC.all_conjunctions(2), 0) == "true"
    assert lab(CC.half_intervals(3), 6) == "x≤6"
    assert lab(CC.dictators(4), 2) == "x2"
    assert lab(CC.dictators(3, domain="cube"), 1) == "x1"
    # a matrix that merely carries a constructor's name but not its size: by index
    assert lab(CC.from_matrix([[1, 0]], name="half_intervals(1)"), 0) == "c0"


# -- the checker ------------------------------------------------------------------------------

@pytest.mark.parametrize("pkg,_", PAIRS)
def test_valid_trees_give_their_depth(pkg, _):
    assert pkg.check_mistake_tree(HALF, half2(pkg)) == 2
    assert pkg.check_mistake_tree(CONJ, conj2(pkg)) == 2
    assert pkg.check_mistake_tree(pkg.MistakeTree.from_nested(HALF, half2(pkg))) == 2
    for c in range(5):                                   # any concept is a depth-0 tree
        assert pkg.check_mistake_tree(c, half2(pkg)) == 0
    assert pkg.check_mistake_tree(None) == -1           # the witness of no concept


# (tree over half_intervals(2), the words of the error); every kind of wrong tree
BAD = [
    ((1, 0, (2, 2, 3)), "the leaf at path [1, 0] has depth 2, the leaf at path [0] has depth 1"),
    (((1, (0, 0, 1), 2)), "the leaf at path [1] has depth 1, the leaf at path [0, 0] has depth 2"),
    ((7, 0, 1), "the node at path [] (the root) holds point 7, not a point of half_intervals(2) "
                "(indices 0..3)"),
    ((-1, 0, 1), "holds point -1, not a point"),
    ((1, (0, 0, 1), (2, 2, 9)), "the leaf at path [1, 1] holds concept 9, not a concept of "
                                "half_intervals(2) (indices 0..4)"),
    ((1, (1, 0, 1), (2, 2, 3)), "the node at path [0] asks point 1 (2) again (the node at "
                                "path [] (the root) asked it)"),
    ((1, (0, 0, 1), (2, 2, 1)), "the leaf at path [1, 1]: concept 1 (x≤1) labels point 1 (2) "
                                "with 0, the path gives it 1"),
    ((0, 1, 0), "the leaf at path [0]: concept 1 (x≤1) labels point 0 (1) with 1, the path "
                "gives it 0"),
    ((1, (0, 1, 0), (2, 2, 3)), "the leaf at path [0, 0]: concept 1 (x≤1) labels point 0 (1) "
                                "with 1, the path gives it 0"),
]


@pytest.mark.parametrize("tree,words", BAD)
@pytest.mark.parametrize("pkg,_", PAIRS)
def test_every_kind_of_bad_tree_is_refused_by_name(pkg, _, tree, words):
    C = half2(pkg)
    with pytest.raises(ValueError) as e:
        pkg.check_mistake_tree(tree, C)
    assert str(e.value).startswith("check_mistake_tree: ")
    assert words in str(e.value)
    # the same tree as a MistakeTree and as a dict: the same message
    T = pkg.MistakeTree.from_nested(tree, C)
    for form in (T, T.to_dict()):
        with pytest.raises(ValueError) as e2:
            pkg.check_mistake_tree(form, None if form is T else C)
        assert str(e2.value) == str(e.value)


BAD_SHAPES = [((1, 0), "at path [] (the root): a node must be a concept index"),
              ((1, (0, 0), 1), "at path [0]: a node must be"),
              ((1, 0, "a"), "at path [1]: a node must be"),
              ((True, 0, 1), "at path [] (the root)"),
              ((1, 0, 1.0), "at path [1]"),
              ([], "a node must be")]


@pytest.mark.parametrize("tree,words", BAD_SHAPES)
@pytest.mark.parametrize("pkg,_", PAIRS)
def test_a_tree_of_another_shape_is_refused_by_path(pkg, _, tree, words):
    with pytest.raises(ValueError, match=r"^MistakeTree: .*" + words.replace("[", r"\[")
                       .replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")):
        pkg.check_mistake_tree(tree, half2(pkg))


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_bad_dicts_and_bad_parameters(pkg, _):
    C = half2(pkg)
    for d in ({"tree": {"point": 1}}, {"tree": {"point": 1, "children": [{"concept": 0}]}},
              {"tree": {"concept": "0"}}, {"tree": {"concept": 0, "point": 1}}):
        with pytest.raises(ValueError, match="at path"):
            pkg.check_mistake_tree(d, C)
    with pytest.raises(ValueError, match="the dict of to_dict"):
        pkg.MistakeTree.from_dict({"point": 1}, C)
    with pytest.raises(ValueError, match="needs the class: pass concepts"):
        pkg.check_mistake_tree(HALF)
    with pytest.raises(TypeError, match="parameter concepts must be a ConceptClass, got list"):
        pkg.check_mistake_tree(HALF, [[0, 1]])
    with pytest.raises(TypeError, match="parameter concepts must be a ConceptClass"):
        pkg.MistakeTree.leaf("C", 0)
    L = pkg.MistakeTree.leaf
    with pytest.raises(ValueError, match="two children"):
        pkg.MistakeTree(C, point=0, children=(L(C, 0),))
    with pytest.raises(ValueError, match="another ConceptClass"):
        pkg.MistakeTree.node(C, 0, L(C, 0), L(half2(pkg), 1))
    with pytest.raises(ValueError, match="either a leaf"):
        pkg.MistakeTree(C, point=0, concept=1)


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_checking_against_another_class(pkg, _):
    """A valid tree over one class is checked against another when asked."""
    T = pkg.MistakeTree.from_nested(CONJ, conj2(pkg))
    flipped = pkg.ConceptClass.from_matrix([[1 - v for v in r] for r in conj2(pkg).matrix()])
    with pytest.raises(ValueError, match="the leaf at path \\[0, 0\\]: concept 3"):
        pkg.check_mistake_tree(T, flipped)


def test_the_twins_give_the_same_messages():
    for tree, _ in BAD + BAD_SHAPES:
        got = []
        for pkg, _n in PAIRS:
            try:
                pkg.check_mistake_tree(tree, half2(pkg))
            except ValueError as e:
                got.append(str(e))
        assert len(got) == 2 and got[0] == got[1]


# -- the shattered set ------------------------------------------------------------------------

@pytest.mark.parametrize("pkg,_", PAIRS)
def test_shattering_concepts_by_hand(pkg, _):
    C = conj2(pkg)
    # on 01 and 10: x0∧x1 (3) says 00, x0 (2) says 01, x1 (1) says 10, true (0) says 11
    assert pkg.shattering_concepts(C, [1, 2]) == {(0, 0): 3, (0, 1): 2, (1, 0): 1, (1, 1): 0}
    assert pkg.shattering_concepts(C, []) == {(): 0}
    with pytest.raises(ValueError, match=r"gives the labels \(0,\) to the points \[3\]"):
        pkg.shattering_concepts(C, [3])                  # 11: every conjunction says 1
    with pytest.raises(ValueError, match="repeats a point"):
        pkg.shattering_concepts(C, [1, 1])
    for bad in ([4], [-1], [True], [1.0]):
        with pytest.raises(ValueError, match=r"point indices in \[0, 4\)"):
            pkg.shattering_concepts(C, bad)
    with pytest.raises(ValueError, match="sequence of point indices"):
        pkg.shattering_concepts(C, 3)


# -- the witnesses ----------------------------------------------------------------------------
# An independent Littlestone dimension, canonical tree and shattering search, written here from
# the definitions on the class's 0/1 matrix (concepts as rows, sets of concepts as frozensets).

def brute_ldim(M, V, memo):
    """Ldim of the set V of concept rows of M: -1 empty, else the max over points splitting V
    of 1 + min of the parts (0 if none splits)."""
    if V in memo:
        return memo[V]
    if not V:
        return -1
    best = 0
    for j in range(len(M[0])):
        V1 = frozenset(c for c in V if M[c][j])
        V0 = V - V1
        if V0 and V1:
            best = max(best, 1 + min(brute_ldim(M, V0, memo), brute_ldim(M, V1, memo)))
    memo[V] = best
    return best


def brute_tree(M, V, d, memo):
    """The canonical tree of depth d over V, as nested data: the lowest point whose two parts
    both have Ldim >= d - 1, the lowest concept at a leaf."""
    if d == 0:
        return min(V)
    for j in range(len(M[0])):
        V1 = frozenset(c for c in V if M[c][j])
        V0 = V - V1
        if brute_ldim(M, V0, memo) >= d - 1 and brute_ldim(M, V1, memo) >= d - 1:
            return (j, brute_tree(M, V0, d - 1, memo), brute_tree(M, V1, d - 1, memo))
    raise AssertionError("no point reaches the depth")


def brute_vc(M):
    """(VC dimension, the lexicographically first largest shattered set) by trying every set."""
    m, N = len(M), len(M[0])
    best = (0, ())
    for d in range(1, m.bit_length()):
        found = next((S for S in itertools.combinations(range(N), d)
                      if len({tuple(M[c][j] for j in S) for c in range(m)}) == 2 ** d), None)
        if found is None:
            break
        best = (d, found)
    return best


def _random_matrix(seed, m, N):
    import random
    r = random.Random(seed)
    return [[r.randint(0, 1) for _ in range(N)] for _ in range(m)]


# every constructor at small sizes (the name, how to build it from a package)
SWEEP = ([(f"half_intervals({k})", lambda P, k=k: P.ConceptClass.half_intervals(k))
          for k in range(0, 5)] +
         [(f"monotone_conjunctions({n})", lambda P, n=n: P.ConceptClass.monotone_conjunctions(n))
          for n in range(1, 5)] +
         [(f"monotone_disjunctions({n})", lambda P, n=n: P.ConceptClass.monotone_disjunctions(n))
          for n in range(1, 5)] +
         [(f"all_conjunctions({n})", lambda P, n=n: P.ConceptClass.all_conjunctions(n))
          for n in range(1, 4)] +
         [(f"dictators({n}, {dom})", lambda P, n=n, dom=dom: P.ConceptClass.dictators(n, dom))
          for n in (1, 2, 3, 5, 8) for dom in ("basis", "cube")
          if (n, dom) != (8, "cube")] +
         [(f"from_matrix(seed {s}, {m}x{N})",
           lambda P, s=s, m=m, N=N: P.ConceptClass.from_matrix(_random_matrix(s, m, N)))
          for s, m, N in ((0, 12, 6), (1, 30, 8), (2, 7, 3), (3, 40, 5), (4, 1, 4))] +
         [("from_matrix(repeated concepts)",
           lambda P: P.ConceptClass.from_matrix([[1, 0, 1], [1, 0, 1], [0, 0, 1], [0, 0, 1]])),
          ("from_functions(parity and majority on {0,1}^3)",
           lambda P: P.ConceptClass.from_functions(
               [lambda p: sum(p) % 2, lambda p: sum(p) >= 2, lambda p: p[0], lambda p: 1],
               list(itertools.product((0, 1), repeat=3))))])


@pytest.mark.parametrize("name,make", SWEEP, ids=[n for n, _ in SWEEP])
def test_the_witness_tree_is_the_canonical_one_and_passes_the_checker(name, make):
    C = make(mbcore)
    M = C.matrix().tolist()
    memo = {}
    every = frozenset(range(len(M)))
    want_d = brute_ldim(M, every, memo)
    want = brute_tree(M, every, want_d, memo)
    for P in (mbcore, mbref):
        CP = make(P)
        d, T = P.littlestone_dimension(CP, witness=True)
        assert d == want_d == P.littlestone_dimension(CP)
        assert T.to_nested() == want
        assert P.check_mistake_tree(T) == d == T.depth
        assert mbcore.check_mistake_tree(want, C) == d      # the independent tree, too


@pytest.mark.parametrize("name,make", SWEEP, ids=[n for n, _ in SWEEP])
def test_the_witness_set_is_the_first_largest_shattered_set(name, make):
    M = make(mbcore).matrix().tolist()
    want = brute_vc(M)
    for P in (mbcore, mbref):
        C = make(P)
        assert P.vc_dimension(C, witness=True) == want
        assert P.vc_dimension(C) == want[0]
        labels = P.shattering_concepts(C, want[1])
        assert len(labels) == 2 ** want[0]
        for lab, c in labels.items():                     # each concept gives its labelling,
            assert tuple(M[c][j] for j in want[1]) == lab  # and no lower one does
            assert all(tuple(M[b][j] for j in want[1]) != lab for b in range(c))


# the Littlestone dimensions the notes and Littlestone (1988) give (half_intervals(0) is two
# concepts on one point: 1)
KNOWN = [("half_intervals", k, k) for k in range(1, 7)] + [("half_intervals", 0, 1)] + \
        [("monotone_conjunctions", n, n) for n in range(1, 7)] + \
        [("monotone_disjunctions", n, n) for n in range(1, 7)] + \
        [("dictators", n, 1) for n in range(2, 9)] + \
        [("dictators-cube", n, n.bit_length() - 1) for n in range(1, 9)]


@pytest.mark.parametrize("kind,n,ldim", KNOWN)
def test_the_witness_has_the_known_depth(kind, n, ldim):
    C = (mbcore.ConceptClass.dictators(n, domain="cube") if kind == "dictators-cube"
         else getattr(mbcore.ConceptClass, kind)(n))
    d, T = mbcore.littlestone_dimension(C, witness=True)
    assert d == ldim and check_mistake_tree(T) == ldim


@pytest.mark.parametrize("n", [6, 8])
def test_monotone_conjunctions_of_6_and_8_variables(n):
    """The issue's sizes (64 and 256 concepts): depth n, checked, the same tree in the twin;
    its root asks a point with exactly one 0 (only those split 2**n conjunctions in halves:
    the conjunctions containing the 0 variable say 0), the lowest such point 0111...1."""
    C = mbcore.ConceptClass.monotone_conjunctions(n)
    d, T = mbcore.littlestone_dimension(C, witness=True)
    assert d == n and check_mistake_tree(T) == n
    assert C.points[T.point] == (0,) + (1,) * (n - 1)
    assert len(list(T.paths())) == 2 ** n
    d2, T2 = mbref.littlestone_dimension(mbref.ConceptClass.monotone_conjunctions(n),
                                         witness=True)
    assert (d2, T2.to_nested()) == (d, T.to_nested())


def test_one_concept_is_a_leaf_and_no_concept_is_none():
    for P in (mbcore, mbref):
        C = P.ConceptClass.from_matrix([[0, 1, 1]])
        d, T = P.littlestone_dimension(C, witness=True)
        assert (d, T.is_leaf, T.concept, P.check_mistake_tree(T)) == (0, True, 0, 0)
        assert P.vc_dimension(C, witness=True) == (0, ())
    # no constructor builds an empty class; the internal one shows the convention
    import numpy as np
    empty = mbcore.ConceptClass(np.zeros((2, 0), dtype=np.uint64), 0)
    assert mbcore.littlestone_dimension(empty, witness=True) == (-1, None)
    assert mbref.littlestone_dimension(mbref.ConceptClass([0, 0], 0), witness=True) == (-1, None)
    assert check_mistake_tree(None) == -1


@pytest.mark.parametrize("pkg,_", PAIRS)
def test_the_witness_parameter_is_a_flag(pkg, _):
    C = half2(pkg)
    for f in (pkg.littlestone_dimension, pkg.vc_dimension):
        for bad in (1, "yes", None, 0.0):
            with pytest.raises(ValueError, match=f"{f.__name__}: parameter witness must be "
                                                 "True or False"):
                f(C, witness=bad)
        assert f(C, witness=False) == f(C)


# -- the drawing ------------------------------------------------------------------------------

def _pyplot():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _texts(ax, gid):
    return [t for t in ax.texts if t.get_gid() == gid]


def tree_figure_problems(ax, n_points_drawn, n_leaves_drawn):
    """Every way a tree drawing is illegible: a missing node or edge label, an edge label other
    than 0/1, two labels overlapping, a label outside the figure."""
    out = []
    points = _texts(ax, "mistake-tree-point")
    leaves = _texts(ax, "mistake-tree-concept") + _texts(ax, "mistake-tree-cut")
    edges = _texts(ax, "mistake-tree-edge-label")
    if len(points) != n_points_drawn:
        out.append(f"{len(points)} point labels for {n_points_drawn} nodes")
    if len(leaves) != n_leaves_drawn:
        out.append(f"{len(leaves)} leaf labels for {n_leaves_drawn} leaves")
    if sorted(t.get_text() for t in edges) != ["0"] * n_points_drawn + ["1"] * n_points_drawn:
        out.append("the edges are not labelled 0 and 1, two per node")
    fig = ax.figure
    fig.canvas.draw()
    boxes = [(t.get_text(), t.get_bbox_patch().get_window_extent()) for t in
             points + leaves + edges] + [(ax.get_title(), ax.title.get_window_extent())]
    whole = fig.bbox
    for i, (a, ba) in enumerate(boxes):
        if ba.x0 < whole.x0 - 1 or ba.x1 > whole.x1 + 1 or ba.y0 < whole.y0 - 1 or \
                ba.y1 > whole.y1 + 1:
            out.append(f"{a!r} lies outside the figure")
        for b, bb in boxes[i + 1:]:
            if ba.overlaps(bb):
                out.append(f"{a!r} overlaps {b!r}")
    return out


def test_the_drawing_at_depth_5_is_legible():
    plt = _pyplot()
    try:
        C = ConceptClass.monotone_conjunctions(5)
        d, T = mbcore.littlestone_dimension(C, witness=True)
        ax = T.plot()
        assert tree_figure_problems(ax, 31, 32) == []
        assert ax.get_title() == "mistake tree of depth 5 over monotone_conjunctions(5)"
        # the labels name the points and concepts as the class does (written here from the
        # class's points and the constructor's indexing, not by the tree's own naming)
        internal = [t.point for _, t in T.walk() if not t.is_leaf]
        assert sorted(t.get_text() for t in _texts(ax, "mistake-tree-point")) == \
            sorted("".join(map(str, C.points[j])) for j in internal)
        names = ["∧".join(f"x{i}" for i in range(5) if (c >> (4 - i)) & 1) or "true"
                 for _, c in T.paths()]
        assert sorted(t.get_text() for t in _texts(ax, "mistake-tree-concept")) == sorted(names)
        # the root's 0 edge goes up (rows grow downwards), its 1 edge down
        root = next(t for t in _texts(ax, "mistake-tree-point")
                    if t.get_text() == "".join(map(str, C.points[T.point])))
        first_edges = sorted((t.get_position()[1], t.get_text())
                             for t in _texts(ax, "mistake-tree-edge-label")
                             if t.get_position()[0] == 0.5)
        assert [lab for _, lab in first_edges] == ["0", "1"]
        assert first_edges[0][0] < root.get_position()[1] < first_edges[1][0]
    finally:
        plt.close("all")


def test_the_drawing_cut_at_max_depth_and_small_trees():
    plt = _pyplot()
    try:
        d, T = mbcore.littlestone_dimension(ConceptClass.monotone_conjunctions(8), witness=True)
        ax = T.plot(max_depth=4)
        assert tree_figure_problems(ax, 15, 16) == []
        assert {t.get_text() for t in _texts(ax, "mistake-tree-cut")} == {"subtree of depth 4"}
        assert ax.get_title().endswith("(first 4 levels)")
        for C in (ConceptClass.monotone_conjunctions(1), ConceptClass.half_intervals(2),
                  ConceptClass.from_matrix([[1, 0]])):
            d, T = mbcore.littlestone_dimension(C, witness=True)
            assert tree_figure_problems(T.plot(), 2 ** d - 1, 2 ** d) == []
        fig, ax = plt.subplots()
        assert T.plot(ax=ax) is ax                    # an Axes given is drawn on
        for bad in (-1, 1.5, "2"):
            with pytest.raises(ValueError, match="max_depth must be an integer >= 0 or None"):
                T.plot(max_depth=bad)
    finally:
        plt.close("all")


def test_the_figure_checker_can_fail():
    plt = _pyplot()
    try:
        d, T = mbcore.littlestone_dimension(ConceptClass.monotone_conjunctions(4), witness=True)
        fig, ax = plt.subplots(figsize=(3, 2))        # far too small for 16 leaves
        T.plot(ax=ax)
        found = tree_figure_problems(ax, 15, 16)
        assert any("overlaps" in p for p in found)
        assert tree_figure_problems(ax, 14, 16)[0] == "15 point labels for 14 nodes"
        # a title wider than its figure
        d, T = mbcore.littlestone_dimension(ConceptClass.monotone_conjunctions(1), witness=True)
        fig, ax = plt.subplots(figsize=(1.5, 1))
        T.plot(ax=ax)
        assert any("lies outside the figure" in p for p in tree_figure_problems(ax, 1, 2))
    finally:
        plt.close("all")


def test_the_drawing_without_matplotlib_says_how_to_install_it(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    T = MistakeTree.from_nested(HALF, half2())
    with pytest.raises(ImportError, match=r"MistakeTree.plot needs matplotlib.*mbcore\[plot\]"):
        T.plot()
