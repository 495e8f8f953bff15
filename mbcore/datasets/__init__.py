"""Real datasets bundled with mbcore, and small readers for svmlight and CSV files.

The bundled files live in ``mbcore/datasets/data`` (see the README there for their provenance) and
are found with :mod:`importlib.resources`, so they load from an installed wheel, a source tree or
a zip archive alike.  Nothing is downloaded and nothing is cached on disk.  Parsing uses the
standard library and NumPy only.

The loaders of the bundled data are in ``mbcore.datasets.bundled``, the svmlight and CSV
readers in ``mbcore.datasets.formats``; every name is importable from here.

Examples
--------
>>> from mbcore.datasets import load_mushrooms
>>> X, y = load_mushrooms()
>>> X.shape, X.dtype.name, int((y == 1).sum()), int((y == -1).sum())
((8124, 112), 'float64', 4208, 3916)
"""

from .bundled import (DATASETS, describe, load_a9a, load_breast_cancer, load_mnist, load_monks,
                      load_mushrooms, load_spect, load_tictactoe)
from .formats import load_csv, load_svmlight
# Not in __all__, but importable from here as before (mbcore.datasets.MAX_FEATURES, open_text...):
from .formats import MAX_FEATURES, check_width, empty_label, open_text  # noqa: F401

__all__ = ["DATASETS", "describe", "load_mushrooms", "load_a9a", "load_tictactoe", "load_monks",
           "load_spect", "load_breast_cancer", "load_mnist", "load_svmlight", "load_csv"]
