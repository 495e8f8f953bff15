"""Type stubs for mbcore._kernels.readers (compiled; not a public API).

Buffers are bytes-like objects of whole lines; ``st`` is the int64 state array the parsers
update in place (layout: the constants of ``mbcore._readers``).
"""

from typing import Optional

import numpy as np
from numpy.typing import NDArray

def parse_number(token: bytes) -> Optional[float]: ...
def svmlight_parse(buf: bytes, st: NDArray[np.int64], labels: NDArray[np.float64],
                   indptr: NDArray[np.int64], indices: NDArray[np.int32] | NDArray[np.int64],
                   data: NDArray[np.float64], max_rows: int, shift: int, n_features: int,
                   skip: bool, lines: NDArray[np.int64] | None = ...,
                   label_at: NDArray[np.int64] | None = ..., lmode: int = ...) -> int: ...
def last_line_end(buf: NDArray[np.uint8], start: int, end: int) -> int: ...
def svmlight_scan(buf: bytes, st: NDArray[np.int64]) -> int: ...
def csv_parse(buf: bytes, st: NDArray[np.int64], delim: int, n_cols: int, label: int,
              X: NDArray[np.float64], y: NDArray[np.float64], label_at: NDArray[np.int64],
              max_rows: int, label_numeric: bool, skip: bool,
              lines: NDArray[np.int64] | None = ...) -> int: ...
def join_labels(codes: NDArray[np.int64], texts: list[bytes]) -> bytes: ...
def join_scores(scores: NDArray[np.float64]) -> bytes: ...
