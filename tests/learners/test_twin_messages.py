"""The twin (mbref) raises mbcore's input-validation errors word for word.

mbcore words some of its input errors the way scikit-learn's estimator checks look for them:
the feature-count mismatch, X with 0 features, X that is not 2-D, a value that is not a real
number, more than two labels (at most ten shown, with a hint when y looks continuous), a single
label that does not name its pair ("(one class)"), and Winnow's NaN / infinity message.  For each,
the same bad input goes to the same method of a compiled learner and of its twin: both must raise
the same exception type with the identical message (``str(exc)``).  The message must also carry
the new wording, so that two equal but unrelated errors cannot pass.
"""

import decimal

import numpy as np
import pytest
import scipy.sparse as sp

import mbcore
import mbref

NAN, INF = float("nan"), float("inf")

# Learners validating X with mbcore._validation.check_X (the Winnow family with its own value
# check) and y with infer_classes.
DENSE = [
    ("Perceptron", {}),
    ("Perceptron", {"fit_intercept": True, "normalize": True}),
    ("MarginPerceptron", {}),
    ("AveragedPerceptron", {}),
    ("KernelPerceptron", {}),
    ("OnlineHingeSVM", {}),
    ("Winnow", {}),
    ("Winnow", {"features": "real"}),
    ("EliminationWinnow", {}),
    ("WinnowStar", {}),
    ("BalancedWinnow", {"theta": 1.0}),
]
# The Boolean learners check X themselves (mbcore.boolean) but share the label messages.
BOOLEAN = [("Conjunction", {}), ("Disjunction", {}), ("DecisionList", {})]
WINNOWS = [spec for spec in DENSE if "Winnow" in spec[0]]


def _ids(specs):
    return [n + ("(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")" if p else "")
            for n, p in specs]


dense_param = pytest.mark.parametrize("spec", DENSE, ids=_ids(DENSE))
# The shape of X: one check (mbcore._validation.check_2d) for every learner, Boolean ones included.
shape_param = pytest.mark.parametrize("spec", DENSE + BOOLEAN, ids=_ids(DENSE + BOOLEAN))
labels_param = pytest.mark.parametrize("spec", DENSE + BOOLEAN, ids=_ids(DENSE + BOOLEAN))
winnow_param = pytest.mark.parametrize("spec", WINNOWS, ids=_ids(WINNOWS))

X4 = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 1]], dtype=np.float64)
Y4 = [1, -1, 1, -1]


def new(mod, spec):
    name, params = spec
    return getattr(mod, name)(**params)


def fitted(mod, spec):
    return new(mod, spec).partial_fit(X4, Y4)


def same_error(call, *pieces):
    """call(mod) raises on both modules: same type, same message; returns the message."""
    out = []
    for mod in (mbcore, mbref):
        with pytest.raises(Exception) as exc:
            call(mod)
        out.append((type(exc.value), str(exc.value)))
    (tc, mc), (tr, mr) = out
    assert mr == mc, f"\nmbcore: {mc}\nmbref:  {mr}"
    assert tr is tc and tc in (ValueError, TypeError), (tc, tr)
    for p in pieces:
        assert p in mc, (p, mc)
    return mc


def expecting(owner, d, n):
    return (f"{owner}: X has {d} features, but {owner} is expecting {n} features as input "
            "(the number it was fitted with)")


RESHAPE = ("Reshape your data: X.reshape(1, -1) for a single row, X.reshape(-1, 1) for a "
           "single feature")
SUFFIX = ("; each argument must be a real number (bool, int or float), not a string (even one "
          "that spells a number) nor another object")
BINARY = "Only binary classification is supported: these learners are binary"
CONTINUOUS = "; y looks continuous (real values that are not integers): a regression target?"


# ------------------------------------------------------------------------------------------------
# X: the feature count
# ------------------------------------------------------------------------------------------------

FEWER = {
    "list": lambda: [[1, 0]],
    "dense": lambda: np.zeros((2, 5)),
    "float32": lambda: np.zeros((2, 2), dtype=np.float32),
    "fortran": lambda: np.asfortranarray(np.zeros((3, 4))),
    "csr": lambda: sp.csr_matrix(np.eye(2, 5)),
    "coo": lambda: sp.coo_matrix(np.eye(2, 4)),
}


@shape_param
@pytest.mark.parametrize("method", ["predict", "decision_function", "partial_fit"])
@pytest.mark.parametrize("layout", sorted(FEWER))
def test_feature_count(spec, method, layout):
    def call(mod):
        clf = fitted(mod, spec)
        X = FEWER[layout]()
        if method == "partial_fit":
            return clf.partial_fit(X, [1] * X.shape[0] if hasattr(X, "shape") else [1])
        return getattr(clf, method)(X)
    X = FEWER[layout]()
    d = X.shape[1] if hasattr(X, "shape") else len(X[0])
    same_error(call, expecting(spec[0], d, 3))


@winnow_param
@pytest.mark.parametrize("X", [[[1.0, 0.0], [0.0, 1.0]], np.zeros((2, 4)), sp.csr_matrix((2, 2))],
                         ids=["list", "dense", "csr"])
def test_feature_count_winnow_n_features_on_the_first_call(spec, X):
    """With n_features set, the first fit already expects that many features (before the
    values and the labels are looked at)."""
    d = X.shape[1] if hasattr(X, "shape") else 2
    name, params = spec
    for y in ([1, -1], [1, 2, 3]):
        same_error(lambda mod: getattr(mod, name)(**params, n_features=3).fit(X, y),
                   expecting(name, d, 3))
    Xn = [[1, NAN], [0, 1]]
    same_error(lambda mod: getattr(mod, name)(**params, n_features=3).fit(Xn, [1, -1]),
               expecting(name, 2, 3))


# ------------------------------------------------------------------------------------------------
# X: no features
# ------------------------------------------------------------------------------------------------

ZERO = {
    "dense": lambda: np.zeros((3, 0)),
    "list": lambda: [[], [], []],
    "one-row-list": lambda: [[]],
    "csr": lambda: sp.csr_matrix((3, 0)),
    "csc": lambda: sp.csc_matrix((3, 0)),
}


@shape_param
@pytest.mark.parametrize("layout", sorted(ZERO))
def test_zero_features(spec, layout):
    X = ZERO[layout]()
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    msg = f"{spec[0]}: X has 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required."
    y = [1, -1, 1][:n]
    assert same_error(lambda mod: new(mod, spec).fit(ZERO[layout](), y)) == msg
    assert same_error(lambda mod: new(mod, spec).partial_fit(ZERO[layout](), y)) == msg


@shape_param
@pytest.mark.parametrize("method", ["predict", "decision_function"])
def test_zero_features_after_fitting(spec, method):
    msg = f"{spec[0]}: X has 0 feature(s) (shape=(2, 0)) while a minimum of 1 is required."
    for X in (np.zeros((2, 0)), [[], []], sp.csr_matrix((2, 0))):
        assert same_error(lambda mod: getattr(fitted(mod, spec), method)(X)) == msg


# ------------------------------------------------------------------------------------------------
# X: not 2-D
# ------------------------------------------------------------------------------------------------

NOT_2D = {
    "1d-array": (lambda: np.array([1.0, 0.0, 1.0]), 1),
    "1d-list": (lambda: [1.0, 0.0, 1.0], 1),
    "1d-list-of-str": (lambda: ["ab", "cd"], 1),
    "empty-list": (lambda: [], 1),
    "3d-array": (lambda: np.zeros((2, 2, 2)), 3),
    "3d-list": (lambda: [[[0, 1], [1, 0]], [[0, 1], [1, 0]]], 3),
    "list-of-2d-arrays": (lambda: [np.zeros((1, 2)), np.zeros((1, 2))], 3),
    "0d-array": (lambda: np.array(5.0), 0),
    "scalar": (lambda: 5, 0),
}


@shape_param
@pytest.mark.parametrize("case", sorted(NOT_2D))
def test_not_2d(spec, case):
    make, ndim = NOT_2D[case]
    msg = f"{spec[0]}: X must be 2-D (n_samples, n_features), got ndim={ndim}. {RESHAPE}"
    assert same_error(lambda mod: new(mod, spec).fit(make(), [1, -1])) == msg
    assert same_error(lambda mod: fitted(mod, spec).predict(make())) == msg
    assert same_error(lambda mod: fitted(mod, spec).decision_function(make())) == msg


# ------------------------------------------------------------------------------------------------
# X: a value that is not a real number
# ------------------------------------------------------------------------------------------------

NOT_REAL = {
    "none": (lambda: [[1, None], [0, 1]], "NoneType (None)"),
    "none-first": (lambda: [[None, 0], [0, 1]], "NoneType (None)"),
    "str-then-none": (lambda: [[1, "1.5"], [None, 1]], "str ('1.5')"),
    "decimal": (lambda: [[1, 0], [decimal.Decimal("0.5"), 1]], "Decimal (Decimal('0.5'))"),
    "object-array": (lambda: np.array([[1, 0], [0, object]], dtype=object),
                     "type (<class 'object'>)"),
}


@dense_param
@pytest.mark.parametrize("case", sorted(NOT_REAL))
def test_not_a_real_number(spec, case):
    make, what = NOT_REAL[case]
    msg = f"{spec[0]}: X must hold real numbers, got a value of type {what}{SUFFIX}"
    assert same_error(lambda mod: new(mod, spec).fit(make(), [1, -1])) == msg
    fit2 = lambda mod: getattr(mod, spec[0])(**spec[1]).partial_fit(  # noqa: E731
        [[0, 1], [1, 0]], [1, -1])
    assert same_error(lambda mod: fit2(mod).predict(make())) == msg


STRINGS = {  # NumPy reads these as arrays of strings: mbcore names the dtype
    "list-str": (lambda: [["1", "2"], ["3", "4"]], "<U1 ('U')"),
    "list-int-str": (lambda: [[1, "1.5"], [0, 1]], "<U21 ('U')"),
    "list-float-str": (lambda: [[1.5, "abc"], [0.0, 1.0]], "<U32 ('U')"),
    "list-bool-bytes": (lambda: [[True, b"a"], [False, True]], "|S5 ('S')"),
    "str-array": (lambda: np.array([["1", "2"], ["3", "4"]]), "<U1 ('U')"),
    "complex-array": (lambda: np.array([[1 + 1j, 0], [0, 1]]), "complex128 ('c')"),
}


@pytest.mark.parametrize("spec", DENSE[:1] + WINNOWS[:1], ids=_ids(DENSE[:1] + WINNOWS[:1]))
@pytest.mark.parametrize("case", sorted(STRINGS))
def test_strings_name_the_dtype(spec, case):
    make, dtype = STRINGS[case]
    msg = f"{spec[0]}: X must hold real numbers (bool, int or float), got dtype {dtype}"
    assert same_error(lambda mod: new(mod, spec).fit(make(), [1, -1])) == msg


# ------------------------------------------------------------------------------------------------
# y: more than two labels
# ------------------------------------------------------------------------------------------------

def _many(n, shown, more=None, hint=False):
    s = f"y has more than two labels ({n}: {shown}"
    s += f" and {more} more). " if more else "). "
    return s + BINARY + (CONTINUOUS if hint else "")


MANY = {  # name -> (y, expected message after the owner)
    "ints": ([0, 1, 2, 3], _many(4, "[0, 1, 2, 3]")),
    "int-array": (np.array([3, 1, 2, 1]), _many(3, "[1, 2, 3]")),
    "floats-integral": ([0.0, 1.0, 2.0, 3.0], _many(4, "[0.0, 1.0, 2.0, 3.0]")),
    "floats": ([0.5, 1.0, 2.0, 3.0], _many(4, "[0.5, 1.0, 2.0, 3.0]", hint=True)),
    "int-and-float": ([1, 2.5, 3, 3], _many(3, "[1.0, 2.5, 3.0]", hint=True)),
    "negative-half": ([-1.5, 0.0, 3.0, 0.0], _many(3, "[-1.5, 0.0, 3.0]", hint=True)),
    "float32": (np.array([0.1, 1, 2, 1], dtype=np.float32),
                _many(3, "[0.10000000149011612, 1.0, 2.0]", hint=True)),
    "with-inf": ([INF, 1.0, 2.0, 1.0], _many(3, "[1.0, 2.0, inf]")),
    "huge": ([1e300, 2.5, 1, 1], _many(3, "[1.0, 2.5, 1e+300]", hint=True)),
    "bool-and-int": ([True, 2, 3, 2], _many(3, "[1, 2, 3]")),
    "object-array": (np.array([1, 2.5, 3, 3], dtype=object), _many(3, "[1, 2.5, 3]")),
    "strings": (["a", "b", "c", "a"], _many(3, "['a', 'b', 'c']")),
    "str-array": (np.array(["b", "a", "c", "a"]), _many(3, "['a', 'b', 'c']")),
    "bytes-array": (np.array([b"b", b"a", b"c", b"a"]), _many(3, "[b'a', b'b', b'c']")),
    "column": (np.array([[1], [2], [3], [1]]), _many(3, "[1, 2, 3]")),
}


# The learners that take more than two classes (mbcore.linear): the others keep the binary
# message.
MULTI_CLASS = ("Perceptron", "MarginPerceptron", "AveragedPerceptron", "OnlineHingeSVM",
               "KernelPerceptron", "Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow")
BINARY_ONLY = [spec for spec in DENSE + BOOLEAN if spec[0] not in MULTI_CLASS]
MULTI_SPECS = [spec for spec in DENSE if spec[0] in MULTI_CLASS]


@pytest.mark.parametrize("spec", BINARY_ONLY, ids=_ids(BINARY_ONLY))
@pytest.mark.parametrize("case", sorted(MANY))
def test_more_than_two_labels(spec, case):
    y, tail = MANY[case]
    n = len(y)
    X = np.eye(n, 3)
    msg = same_error(lambda mod: new(mod, spec).fit(X, y))
    assert msg == f"{spec[0]}: {tail}"
    assert same_error(lambda mod: new(mod, spec).partial_fit(X, y)) == msg


@pytest.mark.parametrize("spec", MULTI_SPECS, ids=_ids(MULTI_SPECS))
@pytest.mark.parametrize("case", sorted(MANY))
def test_more_than_two_labels_multi_class(spec, case):
    """The multi-class learners take the labels as classes, except real values that are not
    integers (a regression target, as scikit-learn's classifiers say) and 2-D y; both twins
    agree on the classes or the message."""
    y, tail = MANY[case]
    X = np.eye(len(y), 3)
    if case == "column":
        msg = same_error(lambda mod: new(mod, spec).fit(X, y))
        assert msg == f"{spec[0]}: y must be 1-D, got ndim=2"
    elif "continuous" in tail:
        msg = same_error(lambda mod: new(mod, spec).fit(X, y))
        assert msg.startswith(f"{spec[0]}: y looks continuous (real values that are not "
                              "integers: ")
    else:
        a, b = new(mbcore, spec).fit(X, y), new(mbref, spec).fit(X, y)
        assert [repr(v) for v in np.asarray(a.classes_).tolist()] == \
            [repr(v) for v in np.asarray(b.classes_, dtype=object).tolist()] or \
            np.asarray(a.classes_).tolist() == list(b.classes_)
        assert len(a.classes_) == len(b.classes_) >= 3


@pytest.mark.parametrize("k", [3, 9, 10, 11, 12, 40, 64])
@pytest.mark.parametrize("kind", ["int", "float", "half", "str"])
def test_at_most_ten_labels_shown(k, kind):
    vals = {"int": list(range(k)), "float": [float(i) for i in range(k)],
            "half": [i + 0.5 for i in range(k)], "str": [f"c{i:02d}" for i in range(k)]}[kind]
    X = np.eye(k, 3)
    for spec in (("Conjunction", {}), ("Disjunction", {}), ("DecisionList", {})):
        msg = same_error(lambda mod: new(mod, spec).fit(X, vals))
        shown = repr(vals[:10]) + (f" and {k - 10} more" if k > 10 else "")
        assert msg == (f"{spec[0]}: y has more than two labels ({k}: {shown}). {BINARY}"
                       + (CONTINUOUS if kind == "half" else ""))


def test_more_than_two_labels_in_a_long_y():
    """Past 64 labels mbcore's compiled scan stops at three distinct values; the message
    still counts them all."""
    y = [i % 12 for i in range(100)]
    X = np.eye(100, 3)
    msg = same_error(lambda mod: mod.Conjunction().fit(X, y))
    assert "(12: " in msg


def test_more_than_two_labels_in_a_long_y_of_strings():
    """Strings do not take mbcore's compiled distinct-label scan: all labels are counted."""
    y = [f"c{i % 12:02d}" for i in range(100)]
    X = np.eye(100, 3)
    msg = same_error(lambda mod: mod.Conjunction().fit(X, y))
    assert "(12: ['c00', " in msg and " and 2 more)" in msg


def test_nan_label_before_the_label_count():
    for y in ([1.0, NAN, 2.0], [1, NAN, 2, 3], np.array([0.5, NAN, 1.5])):
        X = np.eye(len(y), 3)
        assert same_error(lambda mod: mod.Perceptron().fit(X, y)) == "Perceptron: y contains NaN"


# ------------------------------------------------------------------------------------------------
# y: one label that does not name its pair
# ------------------------------------------------------------------------------------------------

ONE = {
    "int": ([2, 2, 2], "[2]"),
    "int-and-float": ([2, 2.0, 2], "[2.0]"),
    "float": ([2.5, 2.5, 2.5], "[2.5]"),
    "str": (["a", "a", "a"], "['a']"),
    "str-array": (np.array(["spam"] * 3), "['spam']"),
    "a-string": ("abc", "['abc']"),      # NumPy reads a lone string as one label
    "bytes": (b"ab", "[b'ab']"),
}


def _one(owner, shown):
    return (f"{owner}: cannot tell the two classes from y={shown} alone (one class); pass "
            "classes=[-1, 1], classes=[0, 1] or the two labels to the first partial_fit")


@labels_param
@pytest.mark.parametrize("case", sorted(ONE))
def test_one_class(spec, case):
    y, shown = ONE[case]
    X = np.eye(3)
    assert same_error(lambda mod: new(mod, spec).fit(X, y)) == _one(spec[0], shown)
    assert same_error(lambda mod: new(mod, spec).partial_fit(X, y)) == _one(spec[0], shown)


def test_one_class_other_families():
    """The experts, specialists, version spaces and PAC learners share the message."""
    P = [[2, 2, 2], [2, 2, 2]]
    for name in ("WeightedMajority", "RandomizedWeightedMajority"):
        assert same_error(lambda mod: getattr(mod, name)().partial_fit(P, [2, 2])) == \
            _one(name, "[2]")
    assert same_error(lambda mod: mod.Specialists().partial_fit(P, [2, 2])) == \
        _one("Specialists", "[2]")
    assert same_error(lambda mod: mod.PairSpecialists().partial_fit(
        [["a", "b"], ["a", "c"]], ["x", "x"])) == _one("PairSpecialists", "['x']")

    def halving(mod):
        return mod.Halving(mod.ConceptClass.from_matrix([[0, 1], [1, 0]])).partial_fit(
            [0, 1], [3, 3])
    assert same_error(halving) == _one("Halving", "[3]")
    for fn in ("most_specific_conjunction", "greedy_decision_list"):
        msg = same_error(lambda mod: getattr(mod, fn)(np.eye(2), ["u", "u"]))
        assert msg.endswith(_one("", "['u']")), msg


# ------------------------------------------------------------------------------------------------
# Winnow: NaN, infinity and values out of the domain
# ------------------------------------------------------------------------------------------------

def _bool_nan(owner, v, row):
    return (f"{owner}: X contains NaN or infinity ({v}) in row {row}; X must be Boolean (0/1) "
            "with features='boolean'")


def _real_nan(owner, v, row):
    return (f"{owner}: X contains NaN or infinity ({v}) in row {row}; X must be finite with "
            "|x| <= 2**100 with features='real'")


NONFINITE = {
    "nan-list": (lambda: [[1, 0], [0, NAN]], "nan", 1),
    "inf-list": (lambda: [[1, INF], [0, 1]], "inf", 0),
    "-inf-dense": (lambda: np.array([[1.0, 0.0], [-INF, 1.0]]), "-inf", 1),
    "nan-float32": (lambda: np.array([[1, 0], [0, 1], [NAN, 0]], dtype=np.float32), "nan", 2),
    "nan-csr": (lambda: sp.csr_matrix(np.array([[1.0, 0.0], [0.0, NAN]])), "nan", 1),
    "inf-fortran": (lambda: np.asfortranarray([[1.0, 0.0], [INF, 1.0]]), "inf", 1),
}


@winnow_param
@pytest.mark.parametrize("case", sorted(NONFINITE))
def test_winnow_nan_or_infinity(spec, case):
    make, v, row = NONFINITE[case]
    name = spec[0]
    msg = (_real_nan if spec[1].get("features") == "real" else _bool_nan)(name, v, row)
    y = [1, -1, 1][:make().shape[0] if hasattr(make(), "shape") else len(make())]
    assert same_error(lambda mod: new(mod, spec).fit(make(), y)) == msg
    assert same_error(lambda mod: new(mod, spec).partial_fit(make(), y)) == msg

    def fitted2(mod):
        return new(mod, spec).partial_fit([[1, 0], [0, 1]], [1, -1])
    assert same_error(lambda mod: fitted2(mod).partial_fit(make(), y)) == msg
    assert same_error(lambda mod: fitted2(mod).predict(make())) == msg
    assert same_error(lambda mod: fitted2(mod).decision_function(make())) == msg


@winnow_param
def test_winnow_first_bad_value_of_the_first_bad_row(spec):
    """The message names the first value out of the domain in the first row that has one (as
    the compiled kernel meets it); a NaN later in that row or in a later row does not count."""
    name, real = spec[0], spec[1].get("features") == "real"
    big = 2.0 ** 101
    X = [[1, 0], [big if real else 2, NAN], [NAN, 0]]
    got = "2.535301200456459e+30" if real else "2.0"
    msg = (f"{name}: X must be finite with |x| <= 2**100 with features='real', got {got} in row 1"
           if real else
           f"{name}: X must be Boolean (0/1) with features='boolean', got {got} in row 1")
    assert same_error(lambda mod: new(mod, spec).fit(X, [1, -1, 1])) == msg
    X = [[1, 0], [NAN, big if real else 2]]
    assert same_error(lambda mod: new(mod, spec).fit(X, [1, -1])) == \
        (_real_nan if real else _bool_nan)(name, "nan", 1)


@winnow_param
def test_winnow_labels_before_values(spec):
    """The labels are checked before the values (as in mbcore: the kernel reads the values)."""
    X = [[1, 0], [0, NAN], [1, 1]]
    msg = same_error(lambda mod: new(mod, spec).fit(X, [0.5, 1.5, 2.5]))
    assert "y looks continuous" in msg            # (three classes are taken; these are not)
    msg = same_error(lambda mod: new(mod, spec).partial_fit(X, [1, -1, 1], classes=[0, 1]))
    assert "y has the label -1, outside the fitted classes [0, 1]" in msg


@pytest.mark.parametrize("name", ["Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow"])
def test_winnow_value_formatting_uint8(name):
    """uint8 (and Boolean) values are read as integers by mbcore: 2, not 2.0."""
    A = np.array([[1, 0], [2, 1]], dtype=np.uint8)
    for X in (A, sp.csr_matrix(A)):
        msg = same_error(lambda mod: getattr(mod, name)().fit(X, [1, -1]))
        assert msg == (f"{name}: X must be Boolean (0/1) with features='boolean', got 2 in "
                       "row 1")
    msg = same_error(lambda mod: getattr(mod, name)().fit(A.astype(np.int64), [1, -1]))
    assert msg.endswith("got 2.0 in row 1")


# ------------------------------------------------------------------------------------------------
# One 2-D input check: every matrix a learner reads, one set of words
# ------------------------------------------------------------------------------------------------
# Each entry point: (how to make the learner, how it reads a matrix, the matrix's name, what its
# rows and columns are called, a valid width-3 matrix and labels to fit it first).
_P3 = np.array([[1, -1, 1], [-1, -1, 1]])
ENTRY = {
    "Perceptron": (lambda m: m.Perceptron(), "X", "n_samples", "feature", X4, Y4),
    "Conjunction": (lambda m: m.Conjunction(), "X", "n_samples", "feature", X4, Y4),
    "Winnow(bool X)": (lambda m: m.Winnow(), "X", "n_samples", "feature", X4.astype(bool), Y4),
    "WeightedMajority": (lambda m: m.WeightedMajority(), "P", "n_rounds", "expert", _P3, [1, -1]),
    "Specialists": (lambda m: m.Specialists(), "P", "n_rounds", "specialist", _P3, [1, -1]),
    "PairSpecialists": (lambda m: m.PairSpecialists(), "X", "n_samples", "attribute",
                        np.array([[0, 1, 2], [1, 1, 0]]), [1, -1]),
}


def _words(owner, defect, name, rows, unit):
    """The message the notes of the one 2-D check give, written out here independently."""
    if defect == "none":
        return f"{owner}: {name} must be a 2-D array-like ({rows}, n_{unit}s) or a sparse " \
               "matrix, got None"
    if defect in ("ndim1", "ndim3"):
        nd = defect[-1]
        return (f"{owner}: {name} must be 2-D ({rows}, n_{unit}s), got ndim={nd}. Reshape your "
                f"data: {name}.reshape(1, -1) for a single row, {name}.reshape(-1, 1) for a "
                f"single {unit}")
    if defect == "no-rows":
        return f"{owner}: {name} is empty (0 rows); at least one row is required"
    if defect == "no-columns":
        return f"{owner}: {name} has 0 {unit}(s) (shape=(2, 0)) while a minimum of 1 is required."
    return (f"{owner}: {name} has 2 {unit}s, but {owner} is expecting 3 {unit}s as input (the "
            "number it was fitted with)")


DEFECTS = {
    "none": lambda X: None,
    "ndim1": lambda X: X[0],
    "ndim3": lambda X: X[None],
    "no-rows": lambda X: X[:0],
    "no-columns": lambda X: X[:2, :0],
    "width": lambda X: X[:, :2],
}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("entry", sorted(ENTRY))
def test_one_2d_check_for_every_matrix(entry, defect):
    """Linear, Boolean, Winnow's Boolean dense path, the experts' and specialists' advice and
    the pairs' attributes: the same defect, the same words, in mbcore and in its twin."""
    make, name, rows, unit, X, y = ENTRY[entry]
    owner = type(make(mbcore)).__name__
    bad = DEFECTS[defect](X)
    if defect == "width":
        call = lambda mod: make(mod).fit(X, y).predict(bad)  # noqa: E731
    else:
        call = lambda mod: make(mod).fit(bad, y[:2])  # noqa: E731
    assert same_error(call) == _words(owner, defect, name, rows, unit)


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.int64])
def test_winnow_non_boolean_value_is_shown_as_a_number(dtype):
    X = np.array([[0, 1], [2, 0]], dtype=dtype)
    msg = same_error(lambda mod: mod.Winnow().fit(X, [0, 1]))
    assert "in row 1" in msg and "np.uint" not in msg and "np.int" not in msg


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float64])
def test_winnow_non_boolean_value_in_csr_rows(dtype):
    sp = pytest.importorskip("scipy.sparse")
    X = sp.csr_array(np.array([[0, 1], [2, 0]], dtype=dtype))
    msg = same_error(lambda mod: mod.Winnow().fit(X, [0, 1]))
    assert "in row 1" in msg
