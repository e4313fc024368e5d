"""``ops``: the public ``mscustom.ops`` namespace, looked up when a function runs.

The modules of this package build on public ops (``gather``, ``flip``, ``pad`` ...) whose defining
modules import this package while ``mscustom.ops`` is still loading; naming them through ``ops``
at call time keeps the imports free of cycles and of the modules' current file layout.
"""

import sys


class _Ops:
    __slots__ = ()

    def __getattr__(self, name):
        return getattr(sys.modules["mscustom.ops"], name)


ops = _Ops()
