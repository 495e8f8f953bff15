"""Small checks the twin's query modules share (integers, dict keys, alphabets); a private
module made for sharing: its names are its API inside ``mbref.queries``."""

import numbers

__all__ = ["is_int", "hashable", "alphabet_of"]


def is_int(v):
    """An integer that is not a bool (NumPy's integers count, its bool does not; known by
    name, the twin imports no NumPy)."""
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and \
        type(v).__name__ != "bool_"


def hashable(c):
    """Whether c can be a dict key."""
    try:
        return hash(c) is not None
    except TypeError:
        return False


def alphabet_of(owner, alphabet):
    """The letters of an alphabet, as a tuple: a str stands for its characters; every letter
    must be hashable and appear once, and there must be one at least."""
    letters = tuple(alphabet) if isinstance(alphabet, str) else alphabet
    try:
        letters = tuple(letters)
    except TypeError:
        raise TypeError(f"{owner}: parameter alphabet must be a sequence of distinct hashable "
                        f"letters, got {type(alphabet).__name__} ({alphabet!r})") from None
    if len(letters) == 0:
        shown = tuple(alphabet) if isinstance(alphabet, str) else alphabet
        raise ValueError(f"{owner}: parameter alphabet must hold at least one letter, got "
                         f"{shown!r}")
    for j, c in enumerate(letters):
        if not hashable(c):
            raise TypeError(f"{owner}: parameter alphabet holds the unhashable letter {c!r}")
        if c in letters[:j]:
            raise ValueError(f"{owner}: parameter alphabet holds the letter {c!r} twice "
                             f"(alphabet {letters!r})")
    return letters
