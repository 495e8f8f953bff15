"""Mistake trees: the witnesses of the Littlestone dimension, their checker, their drawing, and
the check of a shattered set (the witness of the VC dimension); the twin of the same name is
``mbref.mistake_tree``.

A *mistake tree* of depth d over a finite class C (Littlestone 1988) is a complete binary tree
of depth d whose internal nodes hold points of the domain, the two children of a node being the
subtrees for the labels 0 and 1 of its point, and whose leaves hold concepts of C: the concept at
a leaf labels every point of its path (root to leaf) as the path does.  Ldim(C) is the largest
depth of a mistake tree over C: an adversary that walks the tree, showing the node's point and
answering the opposite of the learner's prediction, forces d mistakes on any deterministic
learner and still ends with a concept of C consistent with every answer.

A point never repeats on a path of a mistake tree: after its first answer b every concept
left labels it b, so the subtree under a repetition for the label 1 - b could hold no
consistent concept.  The checker names a repetition as such (it is the first thing wrong with
such a tree).

This module names no learner and does not import :mod:`mbcore.version_space`: it reads a
ConceptClass through its public attributes (``n_concepts``, ``n_points``, ``points``, ``name``,
``matrix``).  :func:`mbcore.littlestone_dimension` builds the canonical witness with
``witness=True``.
"""

from typing import Iterator, List, Tuple

import numpy as np

from .online import require_matplotlib

__all__ = ["MistakeTree", "check_mistake_tree", "shattering_concepts"]

_OWNER = "MistakeTree"


def _is_index(v):
    """An integer (Python or NumPy), not a bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _need_class(owner, C):
    """TypeError unless C looks like a ConceptClass (duck-typed: this module does not import
    mbcore.version_space, which imports it)."""
    if not all(hasattr(C, a) for a in ("n_concepts", "n_points", "points", "name", "matrix")):
        raise TypeError(f"{owner}: parameter concepts must be a ConceptClass, got "
                        f"{type(C).__name__}")
    return C


def _path_text(labels):
    """The path of a node: its labels from the root."""
    return "path [" + ", ".join(str(b) for b in labels) + "]" + \
        (" (the root)" if not labels else "")


# -- names -----------------------------------------------------------------------------------

def _point_name(C, j):
    """How a point is written: its values as a bit string for a point of {0,1}^n (n > 1), the
    value itself for a one-value point, the tuple otherwise, ``#j`` without feature vectors."""
    if C.points is None or not (_is_index(j) and 0 <= j < C.n_points):
        return f"#{j}"
    p = C.points[j]
    if len(p) == 1:
        return str(p[0])
    if all(v in (0, 1) for v in p):
        return "".join(str(v) for v in p)
    return "(" + ", ".join(str(v) for v in p) + ")"


def _builtin(C):
    """(kind, argument) of a built-in class, recognised by its name and its size; else None."""
    name = C.name if isinstance(C.name, str) else ""
    kind, _, rest = name.partition("(")
    arg = rest.split(",")[0].rstrip(")").strip()
    if not arg.isdigit():
        return None
    n = int(arg)
    sizes = {"monotone_conjunctions": (2 ** n, 2 ** n), "monotone_disjunctions": (2 ** n, 2 ** n),
             "all_conjunctions": (3 ** n, 2 ** n), "half_intervals": (2 ** n + 1, 2 ** n),
             "dictators": (n, None)}
    if kind not in sizes or n > 64:
        return None
    m, N = sizes[kind]
    if C.n_concepts != m or (N is not None and C.n_points != N):
        return None
    return kind, n


def _concept_name(C, c):
    """How a concept is written: its formula for a built-in class (``x0∧x2``, ``x≤5``, ``x3``),
    ``c<index>`` otherwise."""
    b = _builtin(C) if _is_index(c) and 0 <= c < C.n_concepts else None
    if b is None:
        return f"c{c}"
    kind, n = b
    c = int(c)
    if kind in ("monotone_conjunctions", "monotone_disjunctions"):
        vs = [f"x{i}" for i in range(n) if (c >> (n - 1 - i)) & 1]
        if kind == "monotone_conjunctions":
            return "∧".join(vs) if vs else "true"
        return "∨".join(vs) if vs else "false"
    if kind == "all_conjunctions":
        lits = []
        for i in range(n):
            d = (c // 3 ** (n - 1 - i)) % 3
            if d:
                lits.append(("" if d == 1 else "¬") + f"x{i}")
        return "∧".join(lits) if lits else "true"
    if kind == "half_intervals":
        return f"x≤{c}"
    return f"x{c}"                                   # dictators


# -- the tree --------------------------------------------------------------------------------

class MistakeTree:
    """A binary tree over a finite class: points at the internal nodes, a concept at each leaf.

    An internal node holds a point index; its children are the subtrees for the labels 0 and 1
    of that point.  A leaf holds a concept index.  A *mistake tree* of depth d over C
    (Littlestone 1988) is such a tree that is complete (every leaf at depth d) and whose every
    leaf concept labels each point of its path as the path does; :func:`check_mistake_tree`
    checks exactly that, so a tree can be built first (from nested data, a dict, or node by
    node) and checked after.  The witness of :func:`mbcore.littlestone_dimension` with
    ``witness=True`` is one of depth Ldim(C), which proves Ldim(C) >= d: an adversary that
    walks it, answering each point with the label the learner did not predict, forces d
    mistakes on any deterministic learner and ends at a leaf, a concept of C consistent with
    every answer.

    Build one with :meth:`leaf`, :meth:`node`, :meth:`from_nested` or :meth:`from_dict`; a
    tree's shape (an int or a (point, subtree 0, subtree 1) triple at every node) is checked
    as it is built, what it says about the class is left to :func:`check_mistake_tree`.

    Attributes
    ----------
    concepts : ConceptClass
        The class the indices refer to (shared by every node).
    point : int or None
        The point index at an internal node; None at a leaf.
    concept : int or None
        The concept index at a leaf; None at an internal node.
    depth : int
        The height of the subtree: 0 at a leaf, 1 + the larger child's depth at a node (for a
        complete tree, the number of points on every path).

    See Also
    --------
    check_mistake_tree, mbcore.littlestone_dimension

    Examples
    --------
    The half-intervals on {1, 2, 3, 4} (c_t(x) = 1 iff x <= t): ask 2, then 1 or 3.

    >>> from mbcore import ConceptClass, MistakeTree, check_mistake_tree
    >>> C = ConceptClass.half_intervals(2)
    >>> T = MistakeTree.from_nested((1, (0, 0, 1), (2, 2, 3)), C)
    >>> T.depth, T.point, T.child(1).point, T.child(1).child(0).concept
    (2, 1, 2, 2)
    >>> check_mistake_tree(T)
    2
    >>> print(T)
    mistake tree of depth 2 over half_intervals(2)
    point 1 (2)
      0: point 0 (1)
        0: concept 0 (x≤0)
        1: concept 1 (x≤1)
      1: point 2 (3)
        0: concept 2 (x≤2)
        1: concept 3 (x≤3)
    """

    __slots__ = ("concepts", "point", "concept", "depth", "_children")

    def __init__(self, concepts, point=None, children=None, concept=None):
        _need_class(_OWNER, concepts)
        self.concepts = concepts
        if (point is None) == (concept is None) or (point is None) != (children is None):
            raise ValueError(f"{_OWNER}: a node is either a leaf (a concept, no point, no "
                             "children) or an internal node (a point and two children)")
        if concept is not None:
            if not _is_index(concept):
                raise ValueError(f"{_OWNER}: a leaf's concept must be a concept index (an "
                                 f"integer), got {concept!r}")
            self.point, self.concept, self.depth, self._children = None, int(concept), 0, None
            return
        if not _is_index(point):
            raise ValueError(f"{_OWNER}: a node's point must be a point index (an integer), got "
                             f"{point!r}")
        kids = tuple(children)
        if len(kids) != 2 or not all(isinstance(k, MistakeTree) for k in kids):
            raise ValueError(f"{_OWNER}: an internal node has two children (MistakeTree "
                             f"subtrees for the labels 0 and 1), got {children!r}")
        if any(k.concepts is not concepts for k in kids):
            raise ValueError(f"{_OWNER}: the subtrees are over another ConceptClass")
        self.point, self.concept, self._children = int(point), None, kids
        self.depth = 1 + max(kids[0].depth, kids[1].depth)

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def leaf(cls, concepts, concept) -> "MistakeTree":
        """A leaf holding ``concept`` (a concept index)."""
        return cls(concepts, concept=concept)

    @classmethod
    def node(cls, concepts, point, child0, child1) -> "MistakeTree":
        """An internal node asking ``point``, with the subtrees for its labels 0 and 1."""
        return cls(concepts, point=point, children=(child0, child1))

    @classmethod
    def from_nested(cls, data, concepts) -> "MistakeTree":
        """From nested data: a concept index (a leaf) or ``(point, subtree0, subtree1)``;
        a ValueError names the path (the labels from the root) of a node of another shape."""
        _need_class(_OWNER, concepts)

        def build(d, labels):
            if _is_index(d):
                return cls(concepts, concept=d)
            if isinstance(d, (tuple, list)) and len(d) == 3 and _is_index(d[0]):
                return cls(concepts, point=d[0],
                           children=(build(d[1], labels + (0,)), build(d[2], labels + (1,))))
            raise ValueError(f"{_OWNER}: at {_path_text(labels)}: a node must be a concept "
                             f"index (a leaf) or (point index, subtree for 0, subtree for 1), "
                             f"got {d!r}")
        return build(data, ())

    @classmethod
    def from_dict(cls, data, concepts) -> "MistakeTree":
        """From :meth:`to_dict`'s form, over ``concepts`` (which must have the numbers of
        concepts and points the dict records)."""
        _need_class(_OWNER, concepts)
        if not isinstance(data, dict) or "tree" not in data:
            raise ValueError(f"{_OWNER}: from_dict needs the dict of to_dict (with the keys "
                             f"'class', 'n_concepts', 'n_points', 'tree'), got {data!r:.80}")
        for key, have in (("n_concepts", concepts.n_concepts), ("n_points", concepts.n_points)):
            if key in data and data[key] != have:
                raise ValueError(f"{_OWNER}: the tree was written for a class of {key} = "
                                 f"{data[key]!r}; the class given has {have}")

        def build(d, labels):
            if isinstance(d, dict) and set(d) == {"concept"}:
                return cls(concepts, concept=d["concept"]) if _is_index(d["concept"]) \
                    else bad(d, labels)
            if isinstance(d, dict) and set(d) == {"point", "children"} and \
                    isinstance(d["children"], list) and len(d["children"]) == 2 and \
                    _is_index(d["point"]):
                return cls(concepts, point=d["point"],
                           children=(build(d["children"][0], labels + (0,)),
                                     build(d["children"][1], labels + (1,))))
            return bad(d, labels)

        def bad(d, labels):
            raise ValueError(f"{_OWNER}: at {_path_text(labels)}: a node must be "
                             "{'concept': index} or {'point': index, 'children': [subtree 0, "
                             f"subtree 1]}}, got {d!r:.80}")
        return build(data["tree"], ())

    # -- access --------------------------------------------------------------------------------
    @property
    def is_leaf(self) -> bool:
        """True at a leaf (a concept), False at an internal node (a point)."""
        return self._children is None

    def child(self, label) -> "MistakeTree":
        """The subtree for the label 0 or 1 of this node's point."""
        if self._children is None:
            raise ValueError(f"{_OWNER}: a leaf (concept {self.concept}) has no children")
        if label not in (0, 1) or isinstance(label, float):
            raise ValueError(f"{_OWNER}: parameter label must be 0 or 1, got {label!r}")
        return self._children[int(label)]

    def walk(self) -> Iterator[Tuple[Tuple[int, ...], "MistakeTree"]]:
        """Every node, root first, then the subtree for 0, then the one for 1 (pre-order), as
        (the labels from the root, the node)."""
        stack = [((), self)]
        while stack:
            labels, t = stack.pop()
            yield labels, t
            if t._children is not None:
                stack.append((labels + (1,), t._children[1]))
                stack.append((labels + (0,), t._children[0]))

    def paths(self) -> Iterator[Tuple[Tuple[Tuple[int, int], ...], int]]:
        """Every leaf, left (0) to right (1), as (its path: the (point, label) pairs from the
        root, its concept)."""
        stack: List[Tuple[Tuple[Tuple[int, int], ...], MistakeTree]] = [((), self)]
        while stack:
            path, t = stack.pop()
            if t._children is None:
                yield path, t.concept
            else:
                stack.append((path + ((t.point, 1),), t._children[1]))
                stack.append((path + ((t.point, 0),), t._children[0]))

    def to_nested(self):
        """The tree as nested data: a concept index at a leaf, (point, subtree0, subtree1) at a
        node (what :meth:`from_nested` reads)."""
        if self._children is None:
            return self.concept
        return (self.point, self._children[0].to_nested(), self._children[1].to_nested())

    def to_dict(self) -> dict:
        """A JSON-safe dict: the class's name and size, and the tree as ``{"concept": c}`` at a
        leaf and ``{"point": j, "children": [subtree 0, subtree 1]}`` at a node."""
        def node(t):
            if t._children is None:
                return {"concept": t.concept}
            return {"point": t.point, "children": [node(t._children[0]), node(t._children[1])]}
        C = self.concepts
        return {"class": str(C.name), "n_concepts": int(C.n_concepts),
                "n_points": int(C.n_points), "tree": node(self)}

    def point_label(self, j) -> str:
        """How the tree writes point j: its values as a bit string for a point of {0,1}^n
        (n > 1), the value itself for a one-value point, the tuple otherwise, ``#j`` for a class
        without feature vectors."""
        return _point_name(self.concepts, j)

    def concept_label(self, c) -> str:
        """How the tree writes concept c: its formula for a class built by a ConceptClass
        constructor (``x0∧x2``, ``x0∨x1``, ``¬x1``, ``x≤5``, ``x3``), ``c<index>`` otherwise."""
        return _concept_name(self.concepts, c)

    def plot(self, ax=None, max_depth=None, fontsize=9):
        """Draw the tree, root on the left: the points at the nodes (as :meth:`point_label`
        writes them), the edges labelled 0 and 1 (0 above), the concepts at the leaves (as
        :meth:`concept_label` writes them).

        Without ``ax`` a new figure is made, sized so that no two labels overlap (about 0.3
        inch per leaf row and 1.3 inch per level): legible at depth 5 (32 leaves) and 6; a
        deeper tree is better drawn to ``max_depth`` levels.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure of the tree's size).
        max_depth : int, optional
            Draw this many levels; a subtree cut there is drawn as one box, "subtree of
            depth k".  Default: the whole tree.
        fontsize : float, default=9

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install 'mbcore[plot]'``).

        Notes
        -----
        ``littlestone_dimension(ConceptClass.monotone_conjunctions(5), witness=True)[1].plot()``
        draws the figure of the documentation's page on mistake trees (the gallery example
        "A mistake tree, drawn").
        """
        plt = require_matplotlib("MistakeTree.plot")
        if max_depth is not None and (not _is_index(max_depth) or max_depth < 0):
            raise ValueError(f"{_OWNER}.plot: parameter max_depth must be an integer >= 0 or "
                             f"None, got {max_depth!r}")
        show = self.depth if max_depth is None else min(int(max_depth), self.depth)
        rows = [0]
        # (level, row, node, cut here, the parent's entry, the label from the parent), the
        # children before their parent; a parent sits halfway between its children's rows
        placed = []

        def place_all(t, level, label):
            if t.is_leaf or (level == show):
                row = float(rows[0])
                rows[0] += 1
                placed.append([level, row, t, not t.is_leaf, None, label])
                return len(placed) - 1
            i0 = place_all(t.child(0), level + 1, 0)
            i1 = place_all(t.child(1), level + 1, 1)
            row = (placed[i0][1] + placed[i1][1]) / 2
            placed.append([level, row, t, False, None, label])
            me = len(placed) - 1
            placed[i0][4] = placed[i1][4] = me
            return me
        place_all(self, 0, None)
        n_rows = rows[0]
        texts = [self._box_text(e[2], e[3]) for e in placed]
        wide = max((len(t) for e, t in zip(placed, texts) if e[2].is_leaf or e[3]),
                   default=4)
        per_level = 1.3                                  # inches per level
        right = (0.6 + 0.085 * wide * fontsize / 9) / per_level     # the leaves' text, levels
        title = (f"mistake tree of depth {self.depth} over {self.concepts.name}"
                 + (f" (first {show} levels)" if show < self.depth else ""))
        if ax is None:
            height = 0.3 * n_rows * fontsize / 9 + 0.9
            width = max(per_level * (show + 0.8 + right),
                        0.09 * len(title) * (fontsize + 1) / 9 + 0.4)
            fig = plt.figure(figsize=(width, height))
            ax = fig.add_axes((0.01, 0.02, 0.98, 1 - 0.02 - 0.45 / height))   # title: 0.45 in
        ax.set_xlim(-0.45, show + right)
        ax.set_ylim(n_rows - 0.5, -0.5)
        ax.set_axis_off()
        ax.set_title(title, fontsize=fontsize + 1)
        for e, text in zip(placed, texts):
            level, row, t, cut, parent, label = e
            if parent is not None:
                pl, pr = placed[parent][0], placed[parent][1]
                ax.plot([pl, level], [pr, row], color="0.55", linewidth=1, zorder=1,
                        gid="mistake-tree-edge")
                ax.text(pl + 0.5 * (level - pl), pr + 0.5 * (row - pr), str(label),
                        fontsize=fontsize - 1, ha="center", va="center", zorder=3,
                        color="0.25", gid="mistake-tree-edge-label",
                        bbox=dict(boxstyle="circle,pad=0.12", fc="white", ec="none"))
            if t.is_leaf or cut:
                ax.text(level, row, text, fontsize=fontsize, ha="left", va="center", zorder=4,
                        gid="mistake-tree-cut" if cut else "mistake-tree-concept",
                        bbox=dict(boxstyle="round,pad=0.25", fc="#e3f1e0" if not cut else
                                  "#eeeeee", ec="#5a8f50" if not cut else "0.5", lw=0.8))
            else:
                ax.text(level, row, text, fontsize=fontsize, ha="center", va="center", zorder=4,
                        gid="mistake-tree-point", family="monospace",
                        bbox=dict(boxstyle="round,pad=0.3", fc="#dde8f6", ec="#4a6fa5",
                                  lw=0.8))
        return ax

    def _box_text(self, t, cut):
        if cut:
            return f"subtree of depth {t.depth}"
        return self.concept_label(t.concept) if t.is_leaf else self.point_label(t.point)

    def __repr__(self):
        return (f"MistakeTree(depth={self.depth}, over {self.concepts.name!r}, "
                f"{'leaf' if self.is_leaf else 'root point ' + str(self.point)})")

    def __str__(self):
        C = self.concepts
        lines = [f"mistake tree of depth {self.depth} over {C.name}"]
        for labels, t in self.walk():
            pad = "  " * len(labels) + (f"{labels[-1]}: " if labels else "")
            if t.is_leaf:
                lines.append(f"{pad}concept {t.concept} ({_concept_name(C, t.concept)})")
            else:
                lines.append(f"{pad}point {t.point} ({_point_name(C, t.point)})")
        return "\n".join(lines)


# -- the checker -----------------------------------------------------------------------------

def check_mistake_tree(tree, concepts=None) -> int:
    """Check that ``tree`` is a mistake tree over ``concepts``; return its depth.

    A mistake tree of depth d (Littlestone 1988): a complete binary tree (every leaf at depth
    d) whose internal nodes hold points of the class, no point twice on one path (a repeated
    point could not split the concepts its first answer left: one subtree under it would hold
    no consistent concept), and whose leaves hold concepts of the class, each labelling every
    point of its path as the path does.  Such a tree proves Ldim(C) >= d.

    Parameters
    ----------
    tree : MistakeTree, or nested data or a dict
        A :class:`MistakeTree`, or what :meth:`MistakeTree.from_nested` or
        :meth:`MistakeTree.from_dict` reads (then ``concepts`` is required).
    concepts : ConceptClass, optional
        The class to check against (default: the tree's own).

    Returns
    -------
    int
        The tree's depth d (-1 for ``None``, the witness of an empty class).

    Raises
    ------
    ValueError
        The first thing wrong, in pre-order (root, subtree 0, subtree 1), with the path of the
        node (its labels from the root): a leaf at another depth than the first leaf, a point or
        concept index out of range, a point repeated on a path, a leaf concept that labels a
        point of its path otherwise than the path does.
    TypeError
        ``concepts`` is not a ConceptClass.

    Examples
    --------
    >>> from mbcore import ConceptClass, check_mistake_tree
    >>> C = ConceptClass.half_intervals(2)           # c_t(x) = 1 iff x <= t on {1..4}
    >>> check_mistake_tree((1, (0, 0, 1), (2, 2, 3)), C)
    2
    >>> check_mistake_tree((1, (0, 0, 1), (2, 2, 1)), C)
    Traceback (most recent call last):
    ...
    ValueError: check_mistake_tree: the leaf at path [1, 1]: concept 1 (x≤1) labels point 1 (2) with 0, the path gives it 1
    """
    owner = "check_mistake_tree"
    if tree is None:
        return -1
    if isinstance(tree, MistakeTree):
        C = tree.concepts if concepts is None else _need_class(owner, concepts)
    else:
        if concepts is None:
            raise ValueError(f"{owner}: a tree given as nested data or a dict needs the class: "
                             "pass concepts")
        C = _need_class(owner, concepts)
        tree = (MistakeTree.from_dict if isinstance(tree, dict) else MistakeTree.from_nested)(
            tree, C)
    M = np.asarray(C.matrix())                      # concepts x points
    m, N = int(C.n_concepts), int(C.n_points)
    depth = None
    first = None
    # pre-order, carrying the (point, label) pairs of the path
    stack: list = [((), (), tree)]
    while stack:
        labels, path, t = stack.pop()
        where = _path_text(labels)
        if t.is_leaf:
            if depth is None:
                depth, first = len(labels), where
            elif len(labels) != depth:
                raise ValueError(f"{owner}: the leaf at {where} has depth {len(labels)}, the "
                                 f"leaf at {first} has depth {depth}: a mistake tree is "
                                 "complete (every leaf at the same depth)")
            c = t.concept
            if not 0 <= c < m:
                raise ValueError(f"{owner}: the leaf at {where} holds concept {c}, not a concept "
                                 f"of {C.name} (indices 0..{m - 1})")
            for j, b in path:
                if M[c, j] != b:
                    raise ValueError(f"{owner}: the leaf at {where}: concept {c} "
                                     f"({_concept_name(C, c)}) labels point {j} "
                                     f"({_point_name(C, j)}) with {int(M[c, j])}, the path gives "
                                     f"it {b}")
            continue
        j = t.point
        if not 0 <= j < N:
            raise ValueError(f"{owner}: the node at {where} holds point {j}, not a point of "
                             f"{C.name} (indices 0..{N - 1})")
        for k, (i, _) in enumerate(path):
            if i == j:
                raise ValueError(f"{owner}: the node at {where} asks point {j} "
                                 f"({_point_name(C, j)}) again (the node at "
                                 f"{_path_text(labels[:k])} asked it): after its first answer "
                                 "no concept left can take the other label, so a subtree under "
                                 "the repetition has no consistent concept")
        stack.append((labels + (1,), path + ((j, 1),), t.child(1)))
        stack.append((labels + (0,), path + ((j, 0),), t.child(0)))
    return depth


def shattering_concepts(concepts, points) -> dict:
    """For each labelling of ``points``, the lowest-index concept of the class that gives it;
    a ValueError if some labelling has none (the points are not shattered).

    The witness of :func:`mbcore.vc_dimension` with ``witness=True`` is a set of points this
    function accepts: its 2**d labellings each come from a concept of the class.

    Parameters
    ----------
    concepts : ConceptClass
    points : sequence of int
        Distinct point indices.

    Returns
    -------
    dict
        ``{labels: concept}``: the labels a tuple of 0/1 in the order of ``points``, all 2**d
        of them, in increasing binary order (the first point's label most significant).

    Examples
    --------
    >>> from mbcore import ConceptClass, shattering_concepts
    >>> C = ConceptClass.monotone_conjunctions(2)    # points 00, 01, 10, 11
    >>> shattering_concepts(C, [1, 2])               # x0 ∧ x1 needs both: 01 and 10 shattered
    {(0, 0): 3, (0, 1): 2, (1, 0): 1, (1, 1): 0}
    >>> shattering_concepts(C, [3])
    Traceback (most recent call last):
    ...
    ValueError: shattering_concepts: no concept of monotone_conjunctions(2) gives the labels (0,) to the points [3]: they are not shattered
    """
    owner = "shattering_concepts"
    C = _need_class(owner, concepts)
    if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
        raise ValueError(f"{owner}: parameter points must be a sequence of point indices, got "
                         f"{points!r}")
    pts = list(points)
    for j in pts:
        if not _is_index(j) or not 0 <= j < C.n_points:
            raise ValueError(f"{owner}: parameter points must hold point indices in "
                             f"[0, {C.n_points}), got {j!r}")
    if len(set(int(j) for j in pts)) != len(pts):
        raise ValueError(f"{owner}: parameter points repeats a point: {pts!r}")
    pts = [int(j) for j in pts]
    M = np.asarray(C.matrix())[:, pts].astype(np.int64)
    d = len(pts)
    codes = M @ (1 << np.arange(d - 1, -1, -1, dtype=np.int64)) if d else \
        np.zeros(M.shape[0], dtype=np.int64)
    first = {}
    for c, code in enumerate(codes.tolist()):
        first.setdefault(code, c)
    out = {}
    for code in range(2 ** d):
        labels = tuple((code >> (d - 1 - i)) & 1 for i in range(d))
        if code not in first:
            raise ValueError(f"{owner}: no concept of {C.name} gives the labels {labels} to the "
                             f"points {pts}: they are not shattered")
        out[labels] = first[code]
    return out
