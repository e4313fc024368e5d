"""Code that relies on Numba's private internals, kept in one place.

Modules here (``aot_caller``: the Numba-compiled caller of aot symbols) use
APIs Numba does not promise to keep. They were written for Numba 0.68.x;
``supported()`` says whether the installed Numba is that series, and callers
take the public path (cffi) otherwise.
"""

__all__ = ["supported", "WRITTEN_FOR"]

WRITTEN_FOR = (0, 68)          # the Numba release series this package was written against


def supported():
    """Whether the installed Numba is the series this package was written for (reads its metadata only).

    Example::

        from mscustom import _numba_private
        if _numba_private.supported():
            from mscustom._numba_private import aot_caller
    """
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            found = version("numba")
        except PackageNotFoundError:
            return False
        major, minor = (int(p) for p in found.split(".")[:2])
    except (ValueError, ImportError):
        return False
    return (major, minor) == WRITTEN_FOR
