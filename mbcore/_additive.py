"""What the additive family's modules share (``mbcore.linear`` and ``mbcore.kernel``): the
parameter domains of the tie and the multi-class rules, ``class_weight`` and its file codec, the
weights of a pass's rows, and the error of a failed pass."""

import numpy as np

from ._params import Custom
from ._validation import (CLASS_WEIGHT_DOMAIN, check_class_weight, check_sample_weight,
                          class_weights, csr_index_error, row_error)
from . import _registry

_TIES = ("negative", "positive")
_MULTI = ("multiclass", "ovr")


def _raise_status(owner, batch, status, bad):
    if status:
        # 3, 4: a CSR row's column indices, checked as the pass read it (csr_check's 1, 2)
        raise csr_index_error(owner, batch.d, status - 2, bad) if status in (3, 4) else \
            row_error(owner, batch, bad)


_CLASS_WEIGHT = Custom(check_class_weight, CLASS_WEIGHT_DOMAIN,
                       refused=["Balanced", 1.0, [1.0, 2.0], {1: -1.0}, {1: float("nan")},
                                {1: "2"}])


def _row_weights(learner, sample_weight, yy, n, fitting):
    """The weights of the rows of a pass of an additive learner (float64, finite, >= 0):
    ``sample_weight`` times the weight of each row's class under ``class_weight`` (as
    scikit-learn multiplies them); None when both are None (the unweighted pass, unchanged)."""
    cw = learner.class_weight
    if sample_weight is None and cw is None:
        return None
    o = learner._owner
    sw = None if sample_weight is None else check_sample_weight(o, sample_weight, n)
    if cw is not None:
        idx = yy.astype(np.intp) if learner._K() > 1 else (yy > 0).astype(np.intp)
        rw = class_weights(o, cw, learner.classes_, idx, fitting)[idx]
        sw = rw if sw is None else rw * sw
    if fitting and n and not sw.any():
        raise _all_zero(o)
    return sw


def _all_zero(owner):
    """fit with every row of weight 0 (nothing to learn; scikit-learn refuses it too)."""
    return ValueError(f"{owner}: parameter sample_weight must give fit at least one non-zero "
                      "weight (times class_weight), got every row's weight zero")


def _encode_dict(v, enc, problem):
    """The file format's fields of a dict parameter (class_weight): its keys and values."""
    return {"keys": enc(list(v.keys()), "keys"), "values": enc(list(v.values()), "values")}


def _decode_dict(v, dec, bad):
    keys, values = dec(v.get("keys")), dec(v.get("values"))
    if not (isinstance(keys, list) and isinstance(values, list) and len(keys) == len(values)):
        raise bad("a dict whose keys and values are not two lists of one length")
    try:
        out = dict(zip(keys, values))
    except TypeError:
        raise bad("a dict with a key that cannot be one") from None
    if len(out) != len(keys):
        raise bad("a dict whose keys repeat")
    return out


_registry.register_codec("dict", dict, _encode_dict, _decode_dict)


_EXAMPLE_DATA = """
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()          # 8124 x 112 one-hot, y = +1 edible / -1 poisonous"""
