"""The real datasets bundled with mbcore: the registry :data:`DATASETS` with each file's
provenance, :func:`describe`, and the ``load_*`` loaders of the files in ``mbcore/datasets/data``
(found with :mod:`importlib.resources`).

All are re-exported by :mod:`mbcore.datasets`.
"""

import gzip
import importlib.resources
import numbers

import numpy as np

from .formats import parse_svmlight

__all__ = ["DATASETS", "describe", "load_mushrooms", "load_a9a", "load_tictactoe",
           "load_monks", "load_spect", "load_breast_cancer", "load_mnist"]

_PACKAGE = __name__.rpartition(".")[0]   # mbcore.datasets, whose data/ directory holds the files


DATASETS = {
    "mushrooms": {
        "summary": ("UCI Mushroom (Schlimmer 1987) as LIBSVM 'mushrooms' (Chang & Lin), from "
                    "ambroiseodt/tsim@c80abbd; 112 binary features, separable"),
        "description": ("UCI Mushroom as the LIBSVM 'mushrooms' file: 8124 rows, 112 binary "
                        "one-hot features (21 active per row), +1 = edible (4208), "
                        "-1 = poisonous (3916); linearly separable."),
        "citation": ("Schlimmer, J. (1987). Mushroom [Dataset]. UCI Machine Learning Repository "
                     "(Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, Irvine, CA: "
                     "University of California, School of Information and Computer Science). "
                     "LIBSVM data page 'mushrooms': Chang, C.-C. and Lin, C.-J. (2011), LIBSVM: a "
                     "library for support vector machines, ACM TIST 2(3), 27:1-27:27."),
        "source": ("GitHub ambroiseodt/tsim@c80abbd765cdaa57ad2b598583251850ded28e62:"
                   "data/mushrooms.txt (repository license MIT, for its code); checked against "
                   "the UCI and LIBSVM row and class counts."),
        "changes": ("CRLF line endings converted to LF and a final newline added; content "
                    "otherwise unchanged. Stored compressed with gzip -9n."),
        "labels": "LIBSVM label 1 = poisonous (3916 rows), 2 = edible (4208 rows).",
        "license": ("None stated by the file or the LIBSVM data page; UCI generally lists its "
                    "datasets under CC BY 4.0 (not checked for this one)."),
        "file": "mushrooms.svm.gz",
        "loader": "load_mushrooms",
        "n_samples": 8124,
        "n_features": 112,
    },
    "a9a": {
        "summary": ("UCI Adult (Becker & Kohavi 1996) as LIBSVM 'a9a' (Platt's 123 binary "
                    "indicators; Chang & Lin), from ankitagarwal/magic@6880669; not separable"),
        "description": ("UCI Adult (1994 US Census extract) as the LIBSVM 'a9a' training file: "
                        "32561 rows, 123 binary indicators (Platt's preprocessing of the 14 "
                        "attributes: continuous ones cut into quantiles, categorical ones "
                        "one-hot; 11 to 14 active per row), +1 = income >50K (7841), "
                        "-1 = income <=50K (24720); not linearly separable: 7614 rows repeat "
                        "an earlier row's feature vector, 1785 of them with a label other "
                        "than that vector's first occurrence."),
        "citation": ("Becker, B. and Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning "
                     "Repository (Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, "
                     "Irvine, CA: University of California, School of Information and Computer "
                     "Science). Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes "
                     "classifiers: a decision-tree hybrid. Proceedings of the Second "
                     "International Conference on Knowledge Discovery and Data Mining (KDD-96). "
                     "Platt, J. C. (1998). Fast training of support vector machines using "
                     "sequential minimal optimization. In Schoelkopf, B., Burges, C. J. C. and "
                     "Smola, A. J. (eds.), Advances in Kernel Methods: Support Vector Learning, "
                     "MIT Press. LIBSVM data page 'a9a': Chang, C.-C. and Lin, C.-J. (2011), "
                     "LIBSVM: a library for support vector machines, ACM TIST 2(3), 27:1-27:27."),
        "source": ("GitHub ankitagarwal/magic@6880669c239c4eeec251f34ab18f092bcb39bce2:a9a (no "
                   "license stated); an identical copy (same md5) is in "
                   "Astraeus-Q/SVM-Classifier:a9a.txt; checked against the LIBSVM row and class "
                   "counts."),
        "changes": ("None: the file is the repository's, byte for byte (32561 rows, 2,329,875 "
                    "bytes, md5 fb3596510d780aaf76a06dc721d49662). Stored compressed with "
                    "gzip -9n (197,533 bytes)."),
        "labels": ("LIBSVM label -1 = income <=50K (24720 rows), +1 = income >50K (7841 rows); "
                   "loaded as -1 / +1."),
        "license": ("None stated by the file, the source repository or the LIBSVM data page; "
                    "UCI generally lists its datasets under CC BY 4.0 (not checked for this "
                    "one)."),
        "file": "a9a.gz",
        "loader": "load_a9a",
        "n_samples": 32561,
        "n_features": 123,
    },
    "tic-tac-toe": {
        "summary": ("UCI Tic-Tac-Toe Endgame (Aha 1991), from AkashKumaravel/Dataset@6c637f2; "
                    "9 squares x/o/b, 958 boards"),
        "description": ("UCI Tic-Tac-Toe Endgame: 958 end positions, 9 categorical squares "
                        "(x, o, b = blank), +1 = x has three in a row (626), -1 otherwise (332); "
                        "not linearly separable in the 27 one-hot indicators."),
        "citation": ("Aha, D. (1991). Tic-Tac-Toe Endgame [Dataset]. UCI Machine Learning "
                     "Repository (Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, "
                     "Irvine, CA: University of California, School of Information and Computer "
                     "Science)."),
        "source": ("GitHub AkashKumaravel/Dataset@6c637f2f809cd28360cc4c769c6073245675d80a:"
                   "tic-tac-toe.data; checked against the UCI row and class counts."),
        "changes": ("The repository owner's header line was removed (958 rows, 25,866 bytes, "
                    "md5 94ad0bb3bc7f39a2fd101ef86d173b65). Stored compressed with gzip -9n."),
        "labels": "'positive' (626 rows) and 'negative' (332 rows); loaded as +1 / -1.",
        "license": ("None stated by the file; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "tic-tac-toe.data.gz",
        "loader": "load_tictactoe",
        "n_samples": 958,
        "n_features": 9,
    },
    "monks": {
        "summary": ("UCI MONK's Problems 1-3 (Thrun et al. 1991), from "
                    "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b; 6 categorical attributes"),
        "description": ("UCI MONK's Problems: three targets over 6 categorical attributes "
                        "(a1, a2, a4 in 1..3; a3, a6 in 1..2; a5 in 1..4); training sets of "
                        "124 / 169 / 122 rows and test sets of all 432 points. MONK-1 = "
                        "(a1 = a2) or (a5 = 1); MONK-2 = exactly two of ai = 1; MONK-3 = "
                        "(a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3), 5% class noise in its "
                        "training set."),
        "citation": ("Thrun, S. et al. (1991). The MONK's Problems: a performance comparison of "
                     "different learning algorithms. CMU-CS-91-197. UCI Machine Learning "
                     "Repository (Dua, D. and Graff, C. (2019))."),
        "source": ("GitHub vishwesh-D-kumar/NaiveBayesClassifier@"
                   "e6aea3b308f2d73ac09aef48dd4e649f744a556a: monks-{1,2,3}.{train,test}; "
                   "monks-1 checked identical to depoale/monk_1's copies."),
        "changes": ("The owner's fake header line was removed from every file. Stored "
                    "compressed with gzip -9n."),
        "labels": "class 1 / 0 per the UCI files; loaded as +1 / -1.",
        "license": ("None stated by the files; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "monks-{problem}.{split}.gz",
        "loader": "load_monks",
        "n_samples": "124 / 169 / 122 (train), 432 (test)",
        "n_features": 6,
    },
    "spect": {
        "summary": ("UCI SPECT Heart (Kurgan, Cios et al. 2001), from "
                    "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b; 22 binary features"),
        "description": ("UCI SPECT Heart: cardiac SPECT images of 267 patients summarised as 22 "
                        "binary features F1..F22; label 1 = abnormal, 0 = normal; a training "
                        "set of 80 rows (40 / 40) and a test set of 187 rows (172 abnormal, "
                        "15 normal); not linearly separable (each file has conflicting "
                        "duplicates)."),
        "citation": ("Cios, K. J., Kurgan, L. A. and Goodenday, L. S. (2001). SPECT Heart "
                     "[Dataset]. UCI Machine Learning Repository (Dua, D. and Graff, C. (2019), "
                     "UCI Machine Learning Repository, Irvine, CA: University of California, "
                     "School of Information and Computer Science). Kurgan, L. A., Cios, K. J., "
                     "Tadeusiewicz, R., Ogiela, M. and Goodenday, L. S. (2001). Knowledge "
                     "discovery approach to automated cardiac SPECT diagnosis. Artificial "
                     "Intelligence in Medicine, 23(2), 149-169."),
        "source": ("GitHub vishwesh-D-kumar/NaiveBayesClassifier@"
                   "e6aea3b308f2d73ac09aef48dd4e649f744a556a: SPECT.train, SPECT.test; the test "
                   "file matches andreaschuch/incremental_mdl_decision_tree's copy except for "
                   "its final newline (that repository's train file has lost its first row)."),
        "changes": ("The owner's fake header line was removed and CRLF line endings were "
                    "converted to LF (3,680 and 8,602 bytes, md5 "
                    "a9a82817255e43a5b77ed29f80bfed7b and f249c04d637dbc917afa0481dfbc4a5c). "
                    "Stored compressed with gzip -9n."),
        "labels": ("column 1: 1 = abnormal (40 train, 172 test rows), 0 = normal (40 train, "
                   "15 test rows); loaded as 1 / 0."),
        "license": ("None stated by the files; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "SPECT.{split}.gz",
        "loader": "load_spect",
        "n_samples": "80 (train), 187 (test)",
        "n_features": 22,
    },
    "breast-cancer": {
        "summary": ("UCI Breast Cancer Wisconsin (Original) (Wolberg 1992), from "
                    "cdvel/Datasets@ab37c4c; 9 scores 1..10, 683 complete rows"),
        "description": ("UCI Breast Cancer Wisconsin (Original): 699 fine-needle aspirates, 9 "
                        "cytology scores from 1 to 10 (clump thickness, uniformity of cell "
                        "size, uniformity of cell shape, marginal adhesion, single epithelial "
                        "cell size, bare nuclei, bland chromatin, normal nucleoli, mitoses) and "
                        "the class (2 = benign, 4 = malignant); 16 rows lack the bare-nuclei "
                        "score ('?'). The 683 complete rows hold 444 benign and 239 malignant "
                        "cases; not linearly separable on the raw scores."),
        "citation": ("Wolberg, W. H. (1992). Breast Cancer Wisconsin (Original) [Dataset]. UCI "
                     "Machine Learning Repository (Dua, D. and Graff, C. (2019)). Data from the "
                     "University of Wisconsin Hospitals, Madison, Dr. William H. Wolberg; the "
                     "file's citation request names: Wolberg, W. H. and Mangasarian, O. L. "
                     "(1990). Multisurface method of pattern separation for medical diagnosis "
                     "applied to breast cytology. Proceedings of the National Academy of "
                     "Sciences, U.S.A., 87, 9193-9196; and Mangasarian, O. L. and Wolberg, W. H. "
                     "(1990). Cancer diagnosis via linear programming. SIAM News, 23(5), 1 & 18."),
        "source": ("GitHub cdvel/Datasets@ab37c4c4ffbae70c7d14fa83a6654f55976e331d:"
                   "breast-cancer-wisconsin.data; the attribute list and citation request are "
                   "from 1013mbar/KNN@4d03705d4b2dccd1bea9a335e9ddf1492c634ecb:"
                   "breast-cancer-wisconsin.names; two other copies (1013mbar/KNN, "
                   "jagwarrx/PracticeDatasets) hold the same rows under different added headers; "
                   "checked against the UCI row and class counts."),
        "changes": ("The owner's added header line (id,a,b,...,class) was removed (699 rows, "
                    "19,889 bytes, md5 52b89051b9bd37a91a54e8570b963719). Stored compressed "
                    "with gzip -9n."),
        "labels": ("class 2 = benign (458 rows, 444 complete), 4 = malignant (241 rows, 239 "
                   "complete); loaded as 0 = benign, 1 = malignant."),
        "license": ("None stated by the files; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "breast-cancer-wisconsin.data.gz",
        "loader": "load_breast_cancer",
        "n_samples": 683,
        "n_features": 9,
    },
    "mnist": {
        "summary": ("the first 1,000 images of the MNIST test set (LeCun, Cortes & Burges), "
                    "from ambroiseodt/tsim@c80abbd; 784 pixels, digits 0..9"),
        "description": ("The first 1,000 images of the MNIST test set (t10k): 28 x 28 "
                        "grey-level handwritten digits, 784 pixels (0..255) row by row, digits "
                        "0..9 (85, 126, 116, 107, 110, 87, 87, 99, 89, 94 of each). On this "
                        "slice every digit against the rest is linearly separable, with "
                        "pixels/255 and with pixels >= 128 (a Perceptron converges); on the "
                        "whole test set digits 0, 1, 2, 3, 4, 6, 7 are (LP test)."),
        "citation": ("LeCun, Y., Cortes, C. and Burges, C. J. C. The MNIST database of "
                     "handwritten digits, http://yann.lecun.com/exdb/mnist/. LeCun, Y., "
                     "Bottou, L., Bengio, Y. and Haffner, P. (1998). Gradient-based learning "
                     "applied to document recognition. Proceedings of the IEEE, 86(11), "
                     "2278-2324."),
        "source": ("GitHub ambroiseodt/tsim@c80abbd765cdaa57ad2b598583251850ded28e62:"
                   "data/MNIST/raw/t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz "
                   "(repository license MIT, for its code); their md5 sums "
                   "9fb629c4189551a2d022fa330f9573f3 and ec29112dd5afa0611ce80d1b7f02629c are "
                   "the official ones of the MNIST test files."),
        "changes": ("Only the first 1,000 images and labels were kept, in the IDX format with "
                    "the item count in each header changed from 10000 to 1000 (784,016 and "
                    "1,008 bytes, md5 bac4371a484d0b5651e81d99305acb5a and "
                    "556860b2f10365a8f7444c1e79c7e9af). Stored compressed with gzip -9n "
                    "(157,323 and 526 bytes)."),
        "labels": ("the digits 0..9, loaded as int64; with digit=d, one-vs-rest labels "
                   "1 (digit d) / 0 (any other digit)."),
        "license": "None stated by the files; not checked.",
        "file": "mnist-t10k-{images,labels}-first1000.idx{3,1}-ubyte.gz",
        "loader": "load_mnist",
        "n_samples": 1000,
        "n_features": 784,
    },
}

_TTT_VALUES = ("x", "o", "b")
_MONKS_SIZES = {1: (124, 62), 2: (169, 64), 3: (122, 60)}   # train rows, positives
_MONKS_VALUES = (3, 3, 2, 3, 4, 2)


def _one_hot(C, values_per_column):
    """Categorical codes (0-based, per column) -> uint8 one-hot columns, column by column."""
    out = np.zeros((C.shape[0], sum(values_per_column)), dtype=np.uint8)
    start = 0
    for j, k in enumerate(values_per_column):
        out[np.arange(C.shape[0]), start + C[:, j]] = 1
        start += k
    return out


def load_tictactoe(encoding="categorical"):
    """Load the bundled UCI Tic-Tac-Toe Endgame data.

    958 final boards of games in which x moved first; each of the 9 squares (row by row) is
    ``"x"``, ``"o"`` or ``"b"`` (blank).  The label is +1 when x has three in a row.
    Provenance and citation: ``describe("tic-tac-toe")``.

    Parameters
    ----------
    encoding : {"categorical", "boolean"}, default="categorical"
        ``"categorical"``: X is an array of one-letter strings, shape (958, 9).  ``"boolean"``:
        27 uint8 one-hot columns, column 3*i + k meaning "square i holds ("x", "o", "b")[k]".

    Returns
    -------
    X : ndarray, y : ndarray of int64 (+1 positive: 626 rows, -1 negative: 332 rows)

    Examples
    --------
    >>> X, y = load_tictactoe()
    >>> X.shape, X[0].tolist(), int(y[0])
    ((958, 9), ['x', 'x', 'x', 'x', 'o', 'o', 'x', 'o', 'o'], 1)
    >>> load_tictactoe(encoding="boolean")[0].shape
    (958, 27)
    """
    if encoding not in ("categorical", "boolean"):
        raise ValueError(f"load_tictactoe: parameter encoding must be 'categorical' or "
                         f"'boolean', got {encoding!r}")
    info = DATASETS["tic-tac-toe"]
    with _bundled(info["file"]).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    ok = len(rows) == info["n_samples"] and all(
        len(r) == 10 and set(r[:9]) <= set(_TTT_VALUES) and r[9] in ("positive", "negative")
        for r in rows)
    if not ok:
        raise OSError(f"the bundled file {info['file']} is damaged; reinstall mbcore")
    X = np.array([r[:9] for r in rows])
    y = np.array([1 if r[9] == "positive" else -1 for r in rows], dtype=np.int64)
    if encoding == "boolean":
        codes = np.searchsorted(np.array(["b", "o", "x"]), X)   # b=0, o=1, x=2
        codes = 2 - codes                                        # x=0, o=1, b=2
        return _one_hot(codes, [3] * 9), y
    return X, y


def load_monks(problem=1, split="train", encoding="categorical"):
    """Load one of the bundled UCI MONK's Problems.

    Six categorical attributes a1..a6 (a1, a2, a4 in 1..3; a3, a6 in 1..2; a5 in 1..4) and a
    known target: MONK-1 = (a1 = a2) or (a5 = 1); MONK-2 = exactly two of the ai equal 1;
    MONK-3 = (a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3), with 5% label noise in its training
    set.  Each test set is the whole 432-point domain.  Provenance: ``describe("monks")``.

    Parameters
    ----------
    problem : {1, 2, 3}, default=1
    split : {"train", "test"}, default="train"
    encoding : {"categorical", "boolean"}, default="categorical"
        ``"categorical"``: X holds the values (int64, 1-based as in the UCI files), shape
        (n, 6).  ``"boolean"``: 17 uint8 one-hot columns, attribute by attribute, value by
        value (a1 = 1, a1 = 2, a1 = 3, a2 = 1, ...).

    Returns
    -------
    X : ndarray, y : ndarray of int64 (+1 = class 1, -1 = class 0)

    Examples
    --------
    >>> X, y = load_monks(1)
    >>> X.shape, int((y == 1).sum())
    ((124, 6), 62)
    >>> bool(np.all((y == 1) == ((X[:, 0] == X[:, 1]) | (X[:, 4] == 1))))
    True
    """
    if problem not in (1, 2, 3) or isinstance(problem, bool):
        raise ValueError(f"load_monks: parameter problem must be 1, 2 or 3, got {problem!r}")
    if split not in ("train", "test"):
        raise ValueError(f"load_monks: parameter split must be 'train' or 'test', got "
                         f"{split!r}")
    if encoding not in ("categorical", "boolean"):
        raise ValueError(f"load_monks: parameter encoding must be 'categorical' or 'boolean', "
                         f"got {encoding!r}")
    name = f"monks-{problem}.{split}.gz"
    with _bundled(name).open("rb") as raw, gzip.open(raw, "rt", encoding="ascii") as f:
        rows = [line.split() for line in f if line.strip()]
    n = _MONKS_SIZES[problem][0] if split == "train" else 432
    try:
        y = np.array([int(r[0]) for r in rows], dtype=np.int64)
        X = np.array([[int(v) for v in r[1:7]] for r in rows], dtype=np.int64)
    except (ValueError, IndexError):
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore") from None
    if X.shape != (n, 6) or not np.isin(y, (0, 1)).all() or \
            not ((X >= 1) & (X <= np.array(_MONKS_VALUES))).all():
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    y = np.where(y == 1, 1, -1).astype(np.int64)
    if encoding == "boolean":
        return _one_hot(X - 1, list(_MONKS_VALUES)), y
    return X, y


_SPECT_SIZES = {"train": (80, 40), "test": (187, 172)}     # rows, label-1 rows
_BC_COMPLETE, _BC_ALL = (683, 239), (699, 241)             # rows, malignant rows
_MNIST_ROWS, _MNIST_PIXELS = 1000, 784
_MNIST_FILES = ("mnist-t10k-images-first1000.idx3-ubyte.gz",
                "mnist-t10k-labels-first1000.idx1-ubyte.gz")


def _bundled_lines(name):
    """The non-blank lines of a bundled gzip text file."""
    with _bundled(name).open("rb") as raw, gzip.open(raw, "rt", encoding="ascii") as f:
        return [line.strip() for line in f if line.strip()]


def _check_choice(owner, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{owner}: parameter {name} must be one of {list(choices)}, got "
                         f"{value!r}")


def load_spect(split="train", encoding="boolean"):
    """Load the bundled UCI SPECT Heart data.

    Cardiac single-photon emission computed tomography (SPECT) images of 267 patients, each
    summarised by 22 binary features F1..F22 (Kurgan et al. 2001); the label is the overall
    diagnosis, 1 = abnormal, 0 = normal.  The UCI split is kept: a balanced training set of 80
    rows and a test set of 187 rows (172 abnormal).  Small and all-Boolean, so it suits Winnow,
    the elimination learners and Halving; neither file is linearly separable (each has
    duplicate rows with both labels).  Provenance: ``describe("spect")``.

    Parameters
    ----------
    split : {"train", "test", "all"}, default="train"
        ``"all"`` is the training rows followed by the test rows (267).
    encoding : {"boolean", "real"}, default="boolean"
        ``"boolean"``: X as uint8 zeros and ones (for the Boolean learners and Winnow);
        ``"real"``: the same values as float64.

    Returns
    -------
    X : ndarray of shape (n, 22), C-contiguous
    y : ndarray of shape (n,), dtype int64
        1 = abnormal (train 40, test 172), 0 = normal (train 40, test 15), as in the UCI files.

    References
    ----------
    Kurgan, L. A., Cios, K. J., Tadeusiewicz, R., Ogiela, M. and Goodenday, L. S. (2001).
    Knowledge discovery approach to automated cardiac SPECT diagnosis. Artificial Intelligence
    in Medicine, 23(2), 149-169.  Data: Cios, K. J., Kurgan, L. A. and Goodenday, L. S.
    (2001), SPECT Heart, UCI Machine Learning Repository.

    Examples
    --------
    >>> X, y = load_spect()
    >>> X.shape, X.dtype.name, int((y == 1).sum()), int((y == 0).sum())
    ((80, 22), 'uint8', 40, 40)
    >>> X, y = load_spect("test", encoding="real")
    >>> X.shape, X.dtype.name, int((y == 1).sum())
    ((187, 22), 'float64', 172)
    """
    _check_choice("load_spect", "split", split, ("train", "test", "all"))
    _check_choice("load_spect", "encoding", encoding, ("boolean", "real"))
    parts = [_spect_part(s) for s in (("train", "test") if split == "all" else (split,))]
    X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    y = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
    if encoding == "real":
        X = X.astype(np.float64)
    return np.ascontiguousarray(X), y


def _spect_part(split):
    name = f"SPECT.{split}.gz"
    n, positives = _SPECT_SIZES[split]
    rows = [line.split(",") for line in _bundled_lines(name)]
    if len(rows) != n or any(len(r) != 23 or not set(r) <= {"0", "1"} for r in rows):
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    A = np.array(rows, dtype=np.uint8)
    if int(A[:, 0].sum()) != positives:
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    return np.ascontiguousarray(A[:, 1:]), A[:, 0].astype(np.int64)


def load_breast_cancer(encoding="real", missing="drop"):
    """Load the bundled UCI Breast Cancer Wisconsin (Original) data.

    699 fine-needle aspirates of breast masses (Wolberg, University of Wisconsin Hospitals,
    1989-1991), each scored by a physician from 1 to 10 on 9 cytological characteristics, in this
    column order: clump thickness, uniformity of cell size, uniformity of cell shape, marginal
    adhesion, single epithelial cell size, bare nuclei, bland chromatin, normal nucleoli,
    mitoses.  The sample id of the UCI file is dropped.  16 rows lack the bare-nuclei score;
    they are dropped by default, leaving 683 rows (444 benign, 239 malignant), which are not
    linearly separable.  This is not scikit-learn's ``load_breast_cancer`` (UCI WDBC, 569 rows
    of 30 real features).  Provenance and citation: ``describe("breast-cancer")``.

    Parameters
    ----------
    encoding : {"real", "boolean"}, default="real"
        ``"real"``: the scores as float64, shape (n, 9), for the additive learners.
        ``"boolean"``: a thermometer code for the Boolean learners and Winnow, 81 uint8
        columns, column ``9 * j + (v - 2)`` being 1 when score j is at least v, for
        v = 2..10 (v = 1 would be constant).  The scores are ordinal (higher = more abnormal),
        so the literals "score j >= v" are the natural Boolean features: a monotone
        disjunction or conjunction of them ("bare nuclei >= 6 or cell size >= 5") is a
        threshold rule, which a one-hot code of the ten values could only state as a
        disjunction of several value literals.  Row sums equal the sum of (score - 1).
    missing : {"drop", "keep"}, default="drop"
        ``"keep"`` keeps the 16 incomplete rows (699 in all) with NaN for the missing score;
        it is only allowed with ``encoding="real"`` (the learners reject NaN, so impute
        first).

    Returns
    -------
    X : ndarray, C-contiguous; float64 (n, 9) or uint8 (n, 81)
    y : ndarray of shape (n,), dtype int64
        0 = benign (UCI class 2; 444 of the 683 rows), 1 = malignant (UCI class 4; 239).

    References
    ----------
    Wolberg, W. H. and Mangasarian, O. L. (1990). Multisurface method of pattern separation for
    medical diagnosis applied to breast cytology. Proceedings of the National Academy of
    Sciences, U.S.A., 87, 9193-9196.  Data: Wolberg, W. H. (1992), Breast Cancer Wisconsin
    (Original), UCI Machine Learning Repository.

    Examples
    --------
    >>> X, y = load_breast_cancer()
    >>> X.shape, int((y == 0).sum()), int((y == 1).sum())
    ((683, 9), 444, 239)
    >>> B, _ = load_breast_cancer(encoding="boolean")
    >>> B.shape, B.dtype.name, bool((B.sum(axis=1) == (X - 1).sum(axis=1)).all())
    ((683, 81), 'uint8', True)
    """
    _check_choice("load_breast_cancer", "encoding", encoding, ("real", "boolean"))
    _check_choice("load_breast_cancer", "missing", missing, ("drop", "keep"))
    if missing == "keep" and encoding != "real":
        raise ValueError("load_breast_cancer: missing='keep' needs encoding='real' (a missing "
                         "score has no Boolean code)")
    name = DATASETS["breast-cancer"]["file"]
    rows = [line.split(",") for line in _bundled_lines(name)]
    try:
        if len(rows) != _BC_ALL[0] or any(len(r) != 11 for r in rows):
            raise ValueError
        A = np.array([[np.nan if v == "?" else float(int(v)) for v in r[1:]] for r in rows])
    except ValueError:
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore") from None
    X, c = A[:, :9], A[:, 9]
    complete = ~np.isnan(X).any(axis=1)
    scores = X[complete]
    if not np.isin(c, (2.0, 4.0)).all() or int((c == 4).sum()) != _BC_ALL[1] or \
            int(complete.sum()) != _BC_COMPLETE[0] or \
            int((c[complete] == 4).sum()) != _BC_COMPLETE[1] or \
            not ((scores >= 1) & (scores <= 10)).all():
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    y = (c == 4).astype(np.int64)
    if missing == "drop":
        X, y = X[complete], y[complete]
    if encoding == "boolean":
        thresholds = np.arange(2, 11)
        return np.ascontiguousarray(
            (X[:, :, None] >= thresholds).reshape(X.shape[0], -1).astype(np.uint8)), y
    return np.ascontiguousarray(X), y


def load_mnist(n=1000, digit=None, encoding="real"):
    """Load the bundled slice of MNIST: the first 1,000 images of its test set.

    28 x 28 grey-level images of handwritten digits (LeCun, Cortes & Burges), flattened row by
    row into 784 pixels.  Only the first 1,000 of the 10,000 test images are bundled (157 kB
    compressed); the digits 0..9 occur 85, 126, 116, 107, 110, 87, 87, 99, 89 and 94 times.  On
    this slice each digit against the rest is linearly separable in both encodings (a
    Perceptron converges), so the Perceptron convergence theorem applies.  Provenance and
    citation: ``describe("mnist")``.

    Parameters
    ----------
    n : int, default=1000
        How many images to return, from the first (1 <= n <= 1000).
    digit : int or None, default=None
        None: the labels are the digits 0..9 (for the multi-class learners).  An integer d in
        0..9: one-vs-rest labels, 1 for digit d and 0 for the others (for the binary learners).
    encoding : {"real", "boolean"}, default="real"
        ``"real"``: pixels / 255 as float64 in [0, 1].  ``"boolean"``: pixel >= 128 as uint8
        zeros and ones (for Winnow and the Boolean learners).

    Returns
    -------
    X : ndarray of shape (n, 784), C-contiguous, float64 or uint8
    y : ndarray of shape (n,), dtype int64

    References
    ----------
    LeCun, Y., Bottou, L., Bengio, Y. and Haffner, P. (1998). Gradient-based learning applied
    to document recognition. Proceedings of the IEEE, 86(11), 2278-2324.  Data: LeCun, Y.,
    Cortes, C. and Burges, C. J. C., The MNIST database of handwritten digits.

    Examples
    --------
    >>> X, y = load_mnist()
    >>> X.shape, X.dtype.name, np.bincount(y).tolist()
    ((1000, 784), 'float64', [85, 126, 116, 107, 110, 87, 87, 99, 89, 94])
    >>> from mbcore import Perceptron
    >>> X, y = load_mnist(digit=0, encoding="boolean")
    >>> clf = Perceptron(max_epochs=100).fit(X, y)    # digit 0 vs rest: separable here
    >>> clf.converged_, int(y.sum())
    (True, 85)
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not \
            1 <= n <= _MNIST_ROWS:
        raise ValueError(f"load_mnist: parameter n must be an integer from 1 to {_MNIST_ROWS} "
                         f"(the bundled slice), got {n!r}")
    if digit is not None and (isinstance(digit, bool) or not isinstance(digit, numbers.Integral)
                              or not 0 <= digit <= 9):
        raise ValueError(f"load_mnist: parameter digit must be None or an integer from 0 to 9, "
                         f"got {digit!r}")
    _check_choice("load_mnist", "encoding", encoding, ("real", "boolean"))
    images, labels = (_idx(name, magic) for name, magic in zip(_MNIST_FILES, (2051, 2049)))
    pixels = images[:n].reshape(n, _MNIST_PIXELS)
    X = pixels / 255.0 if encoding == "real" else (pixels >= 128).astype(np.uint8)
    y = labels[:n].astype(np.int64)
    if digit is not None:
        y = (y == digit).astype(np.int64)
    return np.ascontiguousarray(X), y


def _idx(name, magic):
    """The data of a bundled IDX file (big-endian header: magic, then one count per axis)."""
    with _bundled(name).open("rb") as raw, gzip.open(raw, "rb") as f:
        data = f.read()
    dims = magic & 0xFF
    header = 4 + 4 * dims
    head = np.frombuffer(data[:header], dtype=">u4") if len(data) >= header else None
    shape = (_MNIST_ROWS, 28, 28) if dims == 3 else (_MNIST_ROWS,)
    if head is None or int(head[0]) != magic or tuple(int(v) for v in head[1:]) != shape or \
            len(data) != header + int(np.prod(shape)):
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    a = np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)
    if dims == 1 and int(a.max()) > 9:
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    return a


def describe(name):
    """Return the provenance of a bundled dataset as readable text.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`, for example ``"mushrooms"``.  Each entry of :data:`DATASETS` is
        a dict with the keys ``summary`` (one line), ``description``, ``citation``, ``source``,
        ``changes``, ``labels``, ``license``, ``file``, ``loader`` (the name of the function in
        this module that loads it), ``n_samples`` and ``n_features``.

    Returns
    -------
    str
        Several lines: the description, the shape, the source repository and commit, the changes
        made to the file, the labels, the license situation and the citation.

    Raises
    ------
    ValueError
        If ``name`` is not a bundled dataset.
    """
    info = _info(name)
    lines = [
        f"{name}: {info['description']}",
        f"  shape: {info['n_samples']} rows x {info['n_features']} features "
        f"(loader: mbcore.datasets.{info['loader']})",
        f"  source: {info['source']}",
        f"  changes: {info['changes']}",
        f"  labels: {info['labels']}",
        f"  license: {info['license']}",
        f"  cite: {info['citation']}",
    ]
    return "\n".join(lines)


def _info(name):
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset name={name!r}; bundled datasets are "
                         f"{sorted(DATASETS)}")
    return DATASETS[name]


def load_mushrooms(encoding="real", as_frame=False):
    """Load the bundled UCI Mushroom data (LIBSVM ``mushrooms``).

    8124 mushrooms described by 22 nominal attributes, one-hot encoded by LIBSVM into 112 binary
    indicators; every row has exactly 21 active indicators.  The data is linearly separable, so it
    satisfies the assumptions of the Perceptron convergence theorem.  Provenance and citation:
    ``describe("mushrooms")``.

    Parameters
    ----------
    encoding : {"real", "boolean"}, default="real"
        ``"real"`` returns X as float64 (for the additive learners); ``"boolean"`` returns X as
        uint8 zeros and ones (for the Boolean learners).
    as_frame : bool, default=False
        If True, return a ``pandas.DataFrame`` (columns ``x1`` .. ``x112``, the LIBSVM indices) and
        a ``pandas.Series`` named ``label``.  Needs pandas, which mbcore does not require.

    Returns
    -------
    X : ndarray of shape (8124, 112)
        C-contiguous; float64 for ``encoding="real"``, uint8 for ``encoding="boolean"``.  LIBSVM
        index *i* is column *i* - 1.
    y : ndarray of shape (8124,), dtype int64
        +1 = edible (LIBSVM label 2, 4208 rows), -1 = poisonous (LIBSVM label 1, 3916 rows).

    Raises
    ------
    ValueError
        If ``encoding`` or ``as_frame`` has an invalid value.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Examples
    --------
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> X.dtype.name, sorted(set(X.sum(axis=1).tolist()))
    ('uint8', [21])
    """
    return _load_libsvm("load_mushrooms", "mushrooms", encoding, as_frame, (2.0, 1.0),
                        values01=False)


def load_a9a(encoding="real", as_frame=False):
    """Load the bundled UCI Adult data as the LIBSVM training file ``a9a``.

    32561 adults from the 1994 US Census (Becker & Kohavi 1996), described by 14 attributes that
    Platt binarised into 123 indicators (continuous attributes cut into quantiles, categorical
    ones one-hot); every row has 11 to 14 active indicators.  The label is +1 when the income is
    above 50K.  The data is not linearly separable: 7614 rows repeat an earlier row's feature
    vector, and 1785 of those carry a label other than that vector's first occurrence, so no
    learner makes zero mistakes on it.  Only the training file is bundled (not ``a9a.t``).
    Provenance and citation: ``describe("a9a")``.

    Parameters
    ----------
    encoding : {"real", "boolean"}, default="real"
        ``"real"`` returns X as float64 (for the additive learners); ``"boolean"`` returns X as
        uint8 zeros and ones (for the Boolean learners).
    as_frame : bool, default=False
        If True, return a ``pandas.DataFrame`` (columns ``x1`` .. ``x123``, the LIBSVM indices) and
        a ``pandas.Series`` named ``label``.  Needs pandas, which mbcore does not require.

    Returns
    -------
    X : ndarray of shape (32561, 123)
        C-contiguous; float64 for ``encoding="real"``, uint8 for ``encoding="boolean"``.  LIBSVM
        index *i* is column *i* - 1.
    y : ndarray of shape (32561,), dtype int64
        +1 = income >50K (7841 rows), -1 = income <=50K (24720 rows), as in the LIBSVM file.

    Raises
    ------
    ValueError
        If ``encoding`` or ``as_frame`` has an invalid value.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    References
    ----------
    Platt, J. C. (1998). Fast training of support vector machines using sequential minimal
    optimization. In Advances in Kernel Methods: Support Vector Learning, MIT Press.  Data:
    Becker, B. and Kohavi, R. (1996), Adult, UCI Machine Learning Repository; LIBSVM Data:
    Classification (Binary Class), ``a9a`` (Chang & Lin).

    Examples
    --------
    >>> X, y = load_a9a()
    >>> X.shape, X.dtype.name, int((y == 1).sum()), int((y == -1).sum())
    ((32561, 123), 'float64', 7841, 24720)
    >>> Xb, _ = load_a9a(encoding="boolean")
    >>> Xb.dtype.name, sorted(set(Xb.sum(axis=1).tolist()))
    ('uint8', [11, 12, 13, 14])
    """
    return _load_libsvm("load_a9a", "a9a", encoding, as_frame, (1.0, -1.0), values01=True)


def _load_libsvm(owner, name, encoding, as_frame, labels, values01):
    """A bundled LIBSVM file as (X, y): ``labels`` = (the file's positive label, its negative
    one), y = +1 / -1; ``values01``: the damage check also wants every value 0 or 1."""
    if encoding not in ("real", "boolean"):
        raise ValueError(f"{owner}: parameter encoding must be 'real' or 'boolean', "
                         f"got {encoding!r}")
    if not isinstance(as_frame, bool):
        raise ValueError(f"{owner}: parameter as_frame must be a bool, got {as_frame!r}")
    info = DATASETS[name]
    with _bundled(info["file"]).open("rb") as raw:      # gzip, recognised by its magic bytes
        X, found = parse_svmlight(raw, info["file"], info["n_features"], False)
    if X.shape != (info["n_samples"], info["n_features"]) or \
            not np.isin(found, labels).all() or (values01 and not np.isin(X, (0.0, 1.0)).all()):
        raise OSError(f"the bundled file {info['file']} is damaged: got shape {X.shape}; "
                      "reinstall mbcore")
    y = np.where(found == labels[0], 1, -1).astype(np.int64)
    if encoding == "boolean":
        X = X.astype(np.uint8)
    if as_frame:
        return _as_frame(X, y, owner)
    return X, y


def _as_frame(X, y, owner):
    """(DataFrame with columns x1..xd, Series named label); ``owner`` names the loader."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{owner}(as_frame=True) needs pandas, which is not installed; "
                          "use as_frame=False for NumPy arrays") from None
    columns = [f"x{j + 1}" for j in range(X.shape[1])]
    return pd.DataFrame(X, columns=columns), pd.Series(y, name="label")


def _bundled(filename):
    """The bundled file as an importlib.resources Traversable, wherever the package lives."""
    return importlib.resources.files(_PACKAGE).joinpath("data").joinpath(filename)
