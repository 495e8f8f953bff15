"""Type stubs for mbcore._kernels.multiplicative_mc (compiled; not a public API): K >= 3 classes.

The types and flags read as in multiplicative.pyi (``_V``, ``_I``: the .pyx's fused value and
index types; C-contiguous arrays; ``upd``, ``scores`` None where the kernel skips them).
"""

from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import NDArray

_V = NDArray[Union[np.uint8, np.float32, np.float64]]
_I = NDArray[Union[np.int32, np.int64]]
_Rows = Union[_V, Tuple[_V, _I, _I]]       # as multiplicative.pyi's
_Status = Tuple[int, int]

def mc_winnow_pass(variant: int, exact: bool, la: float, lb: float, theta: float, K: int,
                   ovr: bool, l: NDArray[np.float64], w: NDArray[np.float64],
                   ln: NDArray[np.float64], wn: NDArray[np.float64], X: _Rows, n_cols: int,
                   boolean: bool, limit: float, y: Optional[NDArray[np.int32]],
                   pred: NDArray[np.int32], upd: Optional[NDArray[np.uint8]],
                   counts: NDArray[np.int64], update: bool,
                   scores: Optional[NDArray[np.float64]] = ..., threads: int = ...,
                   check: bool = ..., check_values: bool = ...) -> _Status: ...
def spec_tuning(seq_gap: Optional[int] = ..., min_rows: Optional[int] = ...,
                max_rows: Optional[int] = ...,
                stretch: Optional[int] = ...) -> Tuple[int, int, int, int]: ...
