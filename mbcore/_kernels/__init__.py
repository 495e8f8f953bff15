"""Compiled kernels (Cython).  Not a public API: use the classes in mbcore."""
