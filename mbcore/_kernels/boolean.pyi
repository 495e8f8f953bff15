"""Type stubs for mbcore._kernels.boolean (compiled; not a public API).

Rows are C-contiguous uint8 0/1; ``y``/``pred``/``upd`` may be None where the kernel skips
them (``y`` is read only with ``update``).
"""

from typing import Optional

import numpy as np
from numpy.typing import NDArray

def elimination_pass(mode: int, X: NDArray[np.uint8], y: Optional[NDArray[np.int8]],
                     P: NDArray[np.uint8], N: NDArray[np.uint8],
                     pred: Optional[NDArray[np.int8]], upd: Optional[NDArray[np.uint8]],
                     counts: NDArray[np.int64], n_incons: NDArray[np.int64], update: bool,
                     stop_on_inconsistent: bool) -> int: ...
def decision_list_pass(X: NDArray[np.uint8], y: Optional[NDArray[np.int8]],
                       levels: NDArray[np.int32], pred: Optional[NDArray[np.int8]],
                       upd: Optional[NDArray[np.uint8]], counts: NDArray[np.int64],
                       update: bool) -> None: ...
