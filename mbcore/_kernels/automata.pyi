"""Type stubs for mbcore._kernels.automata (compiled; not a public API).

Words are a ragged batch: letter positions (int32) concatenated, with int64 offsets
(len = number of words + 1); the caller validates every index.
"""

import numpy as np
from numpy.typing import NDArray

def run_batch(delta: NDArray[np.int32], accepting: NDArray[np.uint8], start: int,
              offsets: NDArray[np.int64], letters: NDArray[np.int32],
              out: NDArray[np.uint8]) -> None: ...
def run_states(delta: NDArray[np.int32], start: int, offsets: NDArray[np.int64],
               letters: NDArray[np.int32], out: NDArray[np.int32]) -> None: ...
def run_traces(delta: NDArray[np.int32], accepting: NDArray[np.uint8], start: int,
               offsets: NDArray[np.int64], letters: NDArray[np.int32],
               out: NDArray[np.uint8]) -> None: ...
