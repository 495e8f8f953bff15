"""The version of the installed distribution, read from its metadata (a leaf: imports nothing of
mbcore, so that a module such as :mod:`mbcore.persistence` can write the version into a file
without importing the package).

``pyproject.toml`` is the one place the version is written; ``mbref`` is part of the same
distribution, ``mbcore``.
"""

from importlib.metadata import PackageNotFoundError, version


def installed_version():
    """The version of the installed distribution ``mbcore``, or ``"0+unknown"`` when imported
    from a source tree that was never installed."""
    try:
        return version("mbcore")
    except PackageNotFoundError:    # imported from a source tree that was never installed
        return "0+unknown"


__version__ = installed_version()
