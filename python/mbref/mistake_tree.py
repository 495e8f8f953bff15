"""Mistake trees, their checker and the check of a shattered set, literally from the
definitions (pure Python, the specification of ``mbcore.mistake_tree``).

* A mistake tree of depth d over a class C (Littlestone 1988): a complete binary tree of depth
  d; an internal node holds a point index, its children are the subtrees for the labels 0 and
  1 of that point; a leaf holds a concept index whose concept labels every point of the leaf's
  path as the path does.  A point repeated on a path makes one subtree under the repetition
  impossible (no concept left takes the other label), so the checker refuses it by name.
* ``check_mistake_tree(tree, concepts=None)`` checks the nodes in pre-order (root, subtree 0,
  subtree 1), carrying the path, and raises ValueError at the first node that is wrong, naming
  its path (the labels from the root): a leaf at another depth than the first leaf met, a
  point index outside [0, n_points), a point already asked on the path, a concept index
  outside [0, n_concepts), a leaf concept that labels a point of its path otherwise.  Returns
  the depth; -1 for None (the witness of an empty class).
* ``shattering_concepts(C, points)``: for each labelling of the points (tuples of 0/1 in
  increasing binary order, the first point most significant) the lowest concept index giving
  it; ValueError naming the first labelling that no concept gives.
* Names in texts: a point of {0,1}^n (n > 1) as a bit string, a one-value point as its value,
  other points as a tuple, ``#j`` without points; a concept of a built-in class (recognised by
  its name and size) by its formula (x0∧x2, x0∨x1, ¬x1, x≤t, x3), ``c<index>`` otherwise.
"""

import numbers

__all__ = ["MistakeTree", "check_mistake_tree", "shattering_concepts"]

_OWNER = "MistakeTree"


def _is_index(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and \
        type(v).__name__ != "bool_"


def _need_class(owner, C):
    if not all(hasattr(C, a) for a in ("n_concepts", "n_points", "points", "name", "labels")):
        raise TypeError(f"{owner}: parameter concepts must be a ConceptClass, got "
                        f"{type(C).__name__}")
    return C


def _path_text(labels):
    return "path [" + ", ".join(str(b) for b in labels) + "]" + \
        (" (the root)" if not labels else "")


def _point_name(C, j):
    if C.points is None or not (_is_index(j) and 0 <= j < C.n_points):
        return f"#{j}"
    p = C.points[j]
    if len(p) == 1:
        return str(p[0])
    if all(v in (0, 1) for v in p):
        return "".join(str(v) for v in p)
    return "(" + ", ".join(str(v) for v in p) + ")"


def _builtin(C):
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
    b = _builtin(C) if _is_index(c) and 0 <= c < C.n_concepts else None
    if b is None:
        return f"c{c}"
    kind, n = b
    c = int(c)
    if kind == "monotone_conjunctions":
        vs = [f"x{i}" for i in range(n) if (c >> (n - 1 - i)) & 1]
        return "∧".join(vs) if vs else "true"
    if kind == "monotone_disjunctions":
        vs = [f"x{i}" for i in range(n) if (c >> (n - 1 - i)) & 1]
        return "∨".join(vs) if vs else "false"
    if kind == "all_conjunctions":
        lits = []
        for i in range(n):
            d = (c // 3 ** (n - 1 - i)) % 3
            if d == 1:
                lits.append(f"x{i}")
            elif d == 2:
                lits.append(f"¬x{i}")
        return "∧".join(lits) if lits else "true"
    if kind == "half_intervals":
        return f"x≤{c}"
    return f"x{c}"


class MistakeTree:
    """A binary tree over a finite class (twin of mbcore.MistakeTree): a point index at each
    internal node (children: the subtrees for its labels 0 and 1), a concept index at each leaf.
    ``depth`` is 0 at a leaf and 1 + the larger child's depth at a node.  The shape is checked
    as the tree is built (ValueError); what it says about the class, by check_mistake_tree."""

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

    @classmethod
    def leaf(cls, concepts, concept):
        return cls(concepts, concept=concept)

    @classmethod
    def node(cls, concepts, point, child0, child1):
        return cls(concepts, point=point, children=(child0, child1))

    @classmethod
    def from_nested(cls, data, concepts):
        _need_class(_OWNER, concepts)
        return _from_nested(cls, data, concepts, ())

    @classmethod
    def from_dict(cls, data, concepts):
        _need_class(_OWNER, concepts)
        if not isinstance(data, dict) or "tree" not in data:
            raise ValueError(f"{_OWNER}: from_dict needs the dict of to_dict (with the keys "
                             f"'class', 'n_concepts', 'n_points', 'tree'), got {data!r:.80}")
        for key, have in (("n_concepts", concepts.n_concepts), ("n_points", concepts.n_points)):
            if key in data and data[key] != have:
                raise ValueError(f"{_OWNER}: the tree was written for a class of {key} = "
                                 f"{data[key]!r}; the class given has {have}")
        return _from_dict(cls, data["tree"], concepts, ())

    @property
    def is_leaf(self):
        return self._children is None

    def child(self, label):
        if self._children is None:
            raise ValueError(f"{_OWNER}: a leaf (concept {self.concept}) has no children")
        if label not in (0, 1) or isinstance(label, float):
            raise ValueError(f"{_OWNER}: parameter label must be 0 or 1, got {label!r}")
        return self._children[int(label)]

    def walk(self, labels=()):
        """(labels from the root, node) for every node, in pre-order (root, 0, 1)."""
        yield labels, self
        if self._children is not None:
            yield from self._children[0].walk(labels + (0,))
            yield from self._children[1].walk(labels + (1,))

    def paths(self, path=()):
        """(the (point, label) pairs from the root, the concept) for every leaf, 0 before 1."""
        if self._children is None:
            yield path, self.concept
            return
        yield from self._children[0].paths(path + ((self.point, 0),))
        yield from self._children[1].paths(path + ((self.point, 1),))

    def to_nested(self):
        if self._children is None:
            return self.concept
        return (self.point, self._children[0].to_nested(), self._children[1].to_nested())

    def _node_dict(self):
        if self._children is None:
            return {"concept": self.concept}
        return {"point": self.point,
                "children": [self._children[0]._node_dict(), self._children[1]._node_dict()]}

    def to_dict(self):
        C = self.concepts
        return {"class": str(C.name), "n_concepts": int(C.n_concepts),
                "n_points": int(C.n_points), "tree": self._node_dict()}

    def point_label(self, j):
        return _point_name(self.concepts, j)

    def concept_label(self, c):
        return _concept_name(self.concepts, c)

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


def _from_nested(cls, d, C, labels):
    if _is_index(d):
        return cls(C, concept=d)
    if isinstance(d, (tuple, list)) and len(d) == 3 and _is_index(d[0]):
        return cls(C, point=d[0], children=(_from_nested(cls, d[1], C, labels + (0,)),
                                            _from_nested(cls, d[2], C, labels + (1,))))
    raise ValueError(f"{_OWNER}: at {_path_text(labels)}: a node must be a concept index (a "
                     f"leaf) or (point index, subtree for 0, subtree for 1), got {d!r}")


def _from_dict(cls, d, C, labels):
    if isinstance(d, dict) and set(d) == {"concept"} and _is_index(d["concept"]):
        return cls(C, concept=d["concept"])
    if isinstance(d, dict) and set(d) == {"point", "children"} and \
            isinstance(d["children"], list) and len(d["children"]) == 2 and \
            _is_index(d["point"]):
        return cls(C, point=d["point"],
                   children=(_from_dict(cls, d["children"][0], C, labels + (0,)),
                             _from_dict(cls, d["children"][1], C, labels + (1,))))
    raise ValueError(f"{_OWNER}: at {_path_text(labels)}: a node must be "
                     "{'concept': index} or {'point': index, 'children': [subtree 0, "
                     f"subtree 1]}}, got {d!r:.80}")


def check_mistake_tree(tree, concepts=None):
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
        if isinstance(tree, dict):
            tree = MistakeTree.from_dict(tree, C)
        else:
            tree = MistakeTree.from_nested(tree, C)
    state = {"depth": None, "first": None}
    _check_node(owner, C, tree, (), (), state)
    return state["depth"]


def _check_node(owner, C, t, labels, path, state):
    where = _path_text(labels)
    if t.is_leaf:
        if state["depth"] is None:
            state["depth"], state["first"] = len(labels), where
        elif len(labels) != state["depth"]:
            raise ValueError(f"{owner}: the leaf at {where} has depth {len(labels)}, the leaf "
                             f"at {state['first']} has depth {state['depth']}: a mistake tree "
                             "is complete (every leaf at the same depth)")
        c = t.concept
        if not 0 <= c < C.n_concepts:
            raise ValueError(f"{owner}: the leaf at {where} holds concept {c}, not a concept of "
                             f"{C.name} (indices 0..{C.n_concepts - 1})")
        row = C.labels(c)
        for j, b in path:
            if row[j] != b:
                raise ValueError(f"{owner}: the leaf at {where}: concept {c} "
                                 f"({_concept_name(C, c)}) labels point {j} "
                                 f"({_point_name(C, j)}) with {row[j]}, the path gives it {b}")
        return
    j = t.point
    if not 0 <= j < C.n_points:
        raise ValueError(f"{owner}: the node at {where} holds point {j}, not a point of "
                         f"{C.name} (indices 0..{C.n_points - 1})")
    for k, (i, _) in enumerate(path):
        if i == j:
            raise ValueError(f"{owner}: the node at {where} asks point {j} ({_point_name(C, j)}) "
                             f"again (the node at {_path_text(labels[:k])} asked it): after its "
                             "first answer no concept left can take the other label, so a "
                             "subtree under the repetition has no consistent concept")
    _check_node(owner, C, t.child(0), labels + (0,), path + ((j, 0),), state)
    _check_node(owner, C, t.child(1), labels + (1,), path + ((j, 1),), state)


def shattering_concepts(concepts, points):
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
    first = {}
    for c in range(C.n_concepts):
        row = C.labels(c)
        first.setdefault(tuple(row[j] for j in pts), c)
    out = {}
    d = len(pts)
    for code in range(2 ** d):
        labels = tuple((code >> (d - 1 - i)) & 1 for i in range(d))
        if labels not in first:
            raise ValueError(f"{owner}: no concept of {C.name} gives the labels {labels} to the "
                             f"points {pts}: they are not shattered")
        out[labels] = first[labels]
    return out
