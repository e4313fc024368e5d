"""Random generators: ``ms.Generator``, ``ms.default_generator`` and ``ms.manual_seed`` /
``ms.seed`` / ``ms.initial_seed`` / ``ms.get_rng_state`` / ``ms.set_rng_state``.

``default_generator`` is the generator behind initializers, Dropout and the random ops (the one
``ms.set_seed`` also reseeds). A state is a uint8 Tensor holding the whole generator state
(NumPy's PCG64: 37 bytes; MindSpore's Philox state is 16), so restoring it repeats the draws made
after it was taken.

Example::

    ms.manual_seed(5)
    state = ms.get_rng_state()
    a = ms.ops.rand(3)
    ms.set_rng_state(state)
    b = ms.ops.rand(3)           # == a
"""

import secrets

import numpy as np

from .nn import init as _init
from .tensor import Tensor

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state"]

_STATE_BYTES = 37           # PCG64: state (16) + increment (16) + has_uint32 (1) + uinteger (4)


def _check_seed(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("Seed must be an integer.")
    value = int(value)
    if not -(1 << 63) <= value < (1 << 64):
        raise RuntimeError(f"Seed {value} is out of the range of a 64-bit integer.")
    return value


def _pack(bit_generator):
    st = bit_generator.state
    if st.get("bit_generator") != "PCG64":
        raise RuntimeError(f"get_state: unsupported bit generator {st.get('bit_generator')}")
    raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
           + bytes([st["has_uint32"]]) + int(st["uinteger"]).to_bytes(4, "little"))
    return Tensor(np.frombuffer(raw, np.uint8).copy())


def _unpack(state):
    if not isinstance(state, Tensor):
        raise RuntimeError(f"Invalid tensor input: State (got {type(state).__name__})")
    arr = state.asnumpy()
    if arr.dtype != np.uint8:
        raise RuntimeError(f"State data type must be UInt8, but got {state.dtype}")
    if arr.size != _STATE_BYTES:
        raise RuntimeError(f"State data size must be {_STATE_BYTES}, but got {arr.size}")
    raw = arr.reshape(-1).tobytes()
    return {"bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[:16], "little"), "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}


class Generator:
    """A random generator: its seed (``manual_seed``, ``seed``, ``initial_seed``) and its state
    (``get_state``, ``set_state``). A new Generator is seeded with 0."""

    def __init__(self):
        self._seed = 0
        self._np = np.random.default_rng(0)

    def _numpy(self):
        return self._np

    def _reseed(self, value):
        self._np = np.random.default_rng(value % (1 << 64))

    def manual_seed(self, seed):
        """Seed the generator (an int); returns the generator."""
        seed = _check_seed(seed)
        self._seed = seed
        self._reseed(seed)
        return self

    def seed(self):
        """Seed the generator with a fresh random seed and return it."""
        value = secrets.randbelow(1 << 31)
        self.manual_seed(value)
        return value

    def initial_seed(self):
        """The seed last given to ``manual_seed`` (or ``seed``); 0 for a new generator."""
        return self._seed

    def get_state(self):
        """The generator's state, a uint8 Tensor."""
        return _pack(self._numpy().bit_generator)

    def set_state(self, state):
        """Restore a state ``get_state`` gave."""
        self._numpy().bit_generator.state = _unpack(state)


class _DefaultGenerator(Generator):
    """The generator the library draws from (``nn.init``'s; ``ms.set_seed`` reseeds it too)."""

    def __init__(self):
        self._seed = 0

    def _numpy(self):
        return _init.rng()

    def _reseed(self, value):
        _init._STATE["rng"] = np.random.default_rng(value % (1 << 64))


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Seed ``default_generator``; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    """Seed ``default_generator`` with a fresh random seed and return it."""
    return default_generator.seed()


def initial_seed():
    """``default_generator``'s seed (0 until ``manual_seed`` or ``seed``)."""
    return default_generator.initial_seed()


def get_rng_state():
    """``default_generator``'s state, a uint8 Tensor."""
    return default_generator.get_state()


def set_rng_state(state):
    """Restore ``default_generator``'s state from ``get_rng_state``."""
    default_generator.set_state(state)
