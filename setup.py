"""Build the compiled kernels of mbcore.

One Extension per kernel module under ``mbcore/_kernels``.  Directives for the whole project:
boundscheck, wraparound and initializedcheck off, cdivision on.  ``MBCORE_DEBUG=1`` at build time
turns the checks back on (and ``-O0 -g``) for a debug build that the test suite also passes;
``MBCORE_NO_SIMD=1`` builds the scalar versions of the vector loops (same results).
``MBCORE_ASAN=1`` builds the kernels with AddressSanitizer (``-fsanitize=address``, the release
directives, ``-O1``) for CI's sanitizer run: the interpreter is not instrumented, so run it with
the sanitizer's runtime preloaded (``LD_PRELOAD=$(gcc -print-file-name=libasan.so)``,
``ASAN_OPTIONS=detect_leaks=0``); any read or write outside an array then aborts the process.
No ``-march=native`` and no ``-ffast-math``: wheels must run anywhere and NaN checks must work;
``-ffp-contract=off`` forbids fused multiply-adds so the kernels round exactly like the
pure-Python twin (mbref).
"""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

def _flag(name):
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


DEBUG = _flag("MBCORE_DEBUG")
# MBCORE_NO_SIMD=1 builds the scalar versions of the vector loops (the results are the same;
# CI's debug build uses it so that every path is tested).
NO_SIMD = _flag("MBCORE_NO_SIMD")
ASAN = _flag("MBCORE_ASAN")
KERNELS = ["linear", "multiplicative", "experts", "boolean", "bitset", "readers", "vw"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

if sys.platform == "win32":
    compile_args = ["/O2", "/fp:precise"]
else:
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
    compile_args += ["-ffp-contract=off", "-fno-fast-math"]
link_args = []
if ASAN:
    if sys.platform == "win32":
        raise SystemExit("MBCORE_ASAN=1: the AddressSanitizer build is for gcc or clang")
    compile_args = ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer",
                    "-ffp-contract=off", "-fno-fast-math"]
    link_args = ["-fsanitize=address"]

if sys.platform != "win32":
    # the speculative passes (mbcore/_kernels/_spec.h) run a team of POSIX threads
    compile_args = compile_args + ["-pthread"]
    link_args = link_args + ["-pthread"]

extensions = [
    Extension(
        f"mbcore._kernels.{name}",
        [f"mbcore/_kernels/{name}.pyx"],
        # the kernels' own headers (_text.h, _wm_simd.h), found wherever the C is generated
        include_dirs=["mbcore/_kernels"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")] +
        ([("MBCORE_NO_SIMD", "1")] if NO_SIMD else []),
    )
    for name in KERNELS
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        # The debug and release builds must not share generated C.
        build_dir="build/cython-debug" if DEBUG else "build/cython-asan" if ASAN else
        "build/cython",
    ),
)
