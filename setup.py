"""Build the compiled kernels of mbcore.

One Extension per kernel module under ``mbcore/_kernels``; every build first writes the includes
generated from ``mbcore/_kernels/_dispatch.pxi.tp`` (Cython.Tempita: the dtype dispatch of the
speculative passes, written once), which are not tracked.  Directives for the whole project:
boundscheck, wraparound and initializedcheck off, cdivision on.  ``MBCORE_DEBUG=1`` at build time
turns the checks back on (and ``-O0 -g``) for a debug build that the test suite also passes;
``MBCORE_NO_SIMD=1`` builds the scalar versions of the vector loops (same results).
``MBCORE_ASAN=1`` builds the kernels with AddressSanitizer (``-fsanitize=address``, the release
directives, ``-O1``) for CI's sanitizer run: the interpreter is not instrumented, so run it with
the sanitizer's runtime preloaded (``LD_PRELOAD=$(gcc -print-file-name=libasan.so)``,
``ASAN_OPTIONS=detect_leaks=0``); any read or write outside an array then aborts the process.
A release build strips its modules (Linux, macOS).
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
KERNELS = ["linear", "multiclass", "kernel", "budget", "second_order", "checks", "multiplicative",
           "multiplicative_mc", "experts", "boolean", "bitset", "readers", "vw", "names",
           "automata"]
# the kernel modules that include a _dispatch_<name>.pxi generated from _dispatch.pxi.tp
DISPATCH = ["linear", "multiclass", "kernel", "second_order", "multiplicative",
            "multiplicative_mc"]

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


def render_templates():
    """Write mbcore/_kernels/_dispatch_<name>.pxi from _dispatch.pxi.tp (Cython.Tempita) for each
    module in DISPATCH, before cythonize: the dtype dispatch of the speculative passes, written
    once (see the template).  The .pxi files are build products, not tracked; a file whose text
    is unchanged is not written again, so that cythonize does not rebuild its module."""
    from Cython import Tempita

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mbcore", "_kernels")
    path = os.path.join(here, "_dispatch.pxi.tp")
    with open(path, encoding="utf-8") as f:
        template = Tempita.Template(f.read(), name=path)
    for name in DISPATCH:
        text = template.substitute(module=name)
        out = os.path.join(here, f"_dispatch_{name}.pxi")
        try:
            with open(out, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        with open(out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


render_templates()

if sys.platform != "win32":
    # the speculative passes (mbcore/_kernels/_spec.h) run a team of POSIX threads
    compile_args = compile_args + ["-pthread"]
    link_args = link_args + ["-pthread"]
if not (DEBUG or ASAN):
    # A release build's modules are stripped: Python's own CFLAGS carry -g, which makes the
    # modules five times larger (about 10 MB in all) for debug information no user of a wheel
    # reads.  The exported symbols (PyInit_*) stay: they live in the dynamic symbol table.
    if sys.platform.startswith("linux"):
        link_args = link_args + ["-s"]
    elif sys.platform == "darwin":
        link_args = link_args + ["-Wl,-S,-x"]

# The modules whose hot loops start on a 32-byte boundary (gcc, release builds).  Otherwise where
# a loop lands depends on all the code before it in the module: the K-class Perceptron pass of
# `multiclass` ran 13% slower, or not, on an AMD EPYC after edits elsewhere in the module (the
# A/B is in bench/README.md).  Not every module: the same flag made the K-class Winnow passes
# 2-3% slower.
ALIGNED_LOOPS = ["multiclass"]


def module_args(name):
    if name in ALIGNED_LOOPS and sys.platform.startswith("linux") and not (DEBUG or ASAN):
        return compile_args + ["-falign-loops=32"]
    return compile_args


extensions = [
    Extension(
        f"mbcore._kernels.{name}",
        [f"mbcore/_kernels/{name}.pyx"],
        # the kernels' own headers (_text.h, _wm_simd.h), found wherever the C is generated
        include_dirs=["mbcore/_kernels"],
        extra_compile_args=module_args(name),
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
