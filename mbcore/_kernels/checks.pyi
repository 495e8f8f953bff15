"""Type stubs for mbcore._kernels.checks (compiled; not a public API).

Fused types of the .pyx as unions: ``small_t`` -> ``_Small`` (int8, uint8, int16, int32, int64),
``code_out_t`` -> ``_Code`` (uint8, int32); every array is C-contiguous.
"""

from typing import Tuple, Union

import numpy as np
from numpy.typing import NDArray

_I = NDArray[np.integer]
_Status = Tuple[int, int]
_Small = NDArray[Union[np.int8, np.uint8, np.int16, np.int32, np.int64]]
_Code = NDArray[Union[np.uint8, np.int32]]

def csr_check(indices: _I, indptr: _I, n_cols: int) -> _Status: ...
def indptr_check(indptr: _I) -> int: ...
def encode_labels(y: np.ndarray, neg: object, pos: object, out: NDArray[np.int8]) -> int: ...
def distinct_labels(y: np.ndarray) -> Tuple[int, int, int]: ...
def encode_small(a: _Small, lo: int, table: NDArray[np.int32], out: _Code) -> int: ...
