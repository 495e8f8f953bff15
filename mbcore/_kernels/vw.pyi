"""Type stubs for mbcore._kernels.vw (compiled; not a public API).

``buf`` is a bytes-like object of whole lines; ``st`` is the int64 state array the parser
updates in place (layout: the constants of ``mbcore._vw_format``).
"""

import numpy as np
from numpy.typing import NDArray

def murmurhash3_32(data: bytes, seed: int = ...) -> int: ...
def hashstring(data: bytes, seed: int) -> int: ...
def vw_parse(buf: bytes, st: NDArray[np.int64], labels: NDArray[np.float64],
             weights: NDArray[np.float64], indptr: NDArray[np.int64],
             indices: NDArray[np.int32], data: NDArray[np.float64], keys: NDArray[np.int64],
             vals: NDArray[np.float64], max_rows: int, bits: int, seed: int,
             skip: bool, lines: NDArray[np.int64] | None = ...) -> int: ...
