"""The seeded generator the twins share: splitmix64 (Steele, Lea & Flood 2014).

Both twins draw from it, so that a seeded run of a randomized learner (Randomized Weighted
Majority, the selective sampler) replays exactly in either: ``uniform()`` is k * 2**-53 for the
top 53 bits k of the next output, the same double in C (``mbcore._kernels._rng``).
"""

_MASK = (1 << 64) - 1

__all__ = ["SplitMix64"]


class SplitMix64:
    """The splitmix64 generator (Steele, Lea & Flood 2014); uniform() gives k * 2**-53."""

    def __init__(self, seed):
        self.state = int(seed) & _MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)
