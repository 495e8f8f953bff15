"""Type stubs for mbcore._kernels.experts (compiled; not a public API).

Fused types of the .pyx as unions: ``label_t`` -> ``_Label`` (int8, uint8, int16, int32, int64,
float32, float64), ``code_t`` -> ``_Code`` (uint8, int32); every array is C-contiguous.
Arguments typed Optional may be None (the kernel skips them; labels are read only with ``update``).
"""

from typing import Optional, Union

import numpy as np
from numpy.typing import NDArray

_Label = NDArray[Union[np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32,
                       np.float64]]
_Code = NDArray[Union[np.uint8, np.int32]]
_Scalar = Union[int, float, np.integer, np.floating]

def wm_pass(adv: NDArray[np.uint8], y: Optional[NDArray[np.int8]], l: NDArray[np.float64],
            m: NDArray[np.int64], c: NDArray[np.float64], aux: NDArray[np.float64],
            rng: NDArray[np.uint64], counts: NDArray[np.int64], lb: float, beta: float,
            exact: bool, randomized: bool, pred: Optional[NDArray[np.int8]], update: bool,
            share: Optional[NDArray[np.float64]] = ...,
            updated: Optional[NDArray[np.uint8]] = ...) -> None: ...
def wm_multi_pass(adv: _Code, y: Optional[NDArray[np.int32]], l: NDArray[np.float64],
                  m: NDArray[np.int64], c: NDArray[np.float64], aux: NDArray[np.float64],
                  rng: NDArray[np.uint64], counts: NDArray[np.int64], lb: float, beta: float,
                  exact: bool, randomized: bool, K: int, pred: Optional[NDArray[np.int32]],
                  update: bool, share: Optional[NDArray[np.float64]] = ...,
                  updated: Optional[NDArray[np.uint8]] = ...) -> None: ...
def specialists_pass(indptr: NDArray[np.int64], ids: NDArray[np.int64],
                     codes: Optional[NDArray[np.int32]], y: Optional[NDArray[np.int32]],
                     nd: NDArray[np.int64], npr: NDArray[np.int64], l: NDArray[np.float64],
                     e: NDArray[np.float64], c: NDArray[np.float64], alive: NDArray[np.uint8],
                     m: NDArray[np.int64], label_counts: NDArray[np.int64],
                     counts: NDArray[np.int64], ld: float, lp: float, exact: bool,
                     threshold: float, prune: bool, prune_l: float, K: int,
                     pred: Optional[NDArray[np.int32]], covered: Optional[NDArray[np.uint8]],
                     update: bool, hist: Optional[NDArray[np.int32]] = ...,
                     hcnt: Optional[NDArray[np.int32]] = ...,
                     hnext: Optional[NDArray[np.int32]] = ...,
                     updated: Optional[NDArray[np.uint8]] = ...) -> None: ...
def terms(x: NDArray[np.float64], out: NDArray[np.float64]) -> None: ...
def splitmix_uniforms(state: NDArray[np.uint64], out: NDArray[np.float64]) -> None: ...
def encode_advice(A: _Label, neg: _Scalar, pos: _Scalar, out: NDArray[np.uint8]) -> int: ...
def simd_level(force: Optional[int] = ...) -> int: ...
def pair_lookup(keys: NDArray[np.int64], tkeys: NDArray[np.int64], tids: NDArray[np.int64],
                by_id: NDArray[np.int64], n_ids: NDArray[np.int64], out: NDArray[np.int64],
                start: int, create: bool) -> int: ...
def pair_rehash(by_id: NDArray[np.int64], n: int, tkeys: NDArray[np.int64],
                tids: NDArray[np.int64]) -> None: ...
