# cython: language_level=3
"""The seeded generator the kernels share: splitmix64 (Steele, Lea & Flood 2014), the twin's
``mbref._rng.SplitMix64`` step for step: ``splitmix_uniform`` is k * 2**-53 for the top 53 bits
k of the next output.  Only inline functions: nothing here exists at run time as a module."""


cdef inline unsigned long long splitmix_next(unsigned long long* s) noexcept nogil:
    cdef unsigned long long z
    s[0] += 0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double splitmix_uniform(unsigned long long* s) noexcept nogil:
    return <double>(splitmix_next(s) >> 11) * (1.0 / 9007199254740992.0)
