"""The built-in kernels' Numba loops, loaded in a background thread (a fast first step).

Some built-in kernels have a one-pass Numba loop beside their NumPy form
(``graph_mode/loops``: a Dense layer's bias add and ReLU, relu's gradient and the
bias gradient; ``nn/optim/_one_pass``: plain SGD's update; ``comm/loops``: the
shared-memory all-reduce's sum) giving exactly the
NumPy form's values. Importing Numba and loading those loops from its disk
cache takes 0.4-1 s in a fresh process (several seconds the first time on a
machine, when they compile), so the first training step of a process would
pay that for loops that save microseconds per step.

Instead, each call that could use a loop asks for them (``request()``) and
goes on with NumPy. After ``REQUESTS`` such calls (a program past its first
few steps: a short one never pays for Numba, and the first steps run at full
speed instead of sharing the interpreter with Numba's import), one daemon
thread imports Numba and loads every loop set for the common signatures
(float32 and float64, contiguous, 1-D to 4-D where a loop takes any rank),
then marks them ready, and later calls take them. Results do not depend on when that happens: each loop gives the NumPy
form's values bit for bit (their tests check it). ``os.fork()`` waits for
the thread, so no child inherits Numba's locks held.

``MSCUSTOM_LOOPS`` (read when a loop is first asked for): ``background`` (the
default), ``now`` (load in the calling thread: the first step pays, later
steps are all fast, as benchmarks of the steady state want) or ``off``
(NumPy only).
"""

import os
import threading

__all__ = ["register", "request", "wait", "load", "ENV", "njit", "fits"]

ENV = "MSCUSTOM_LOOPS"
_SETS = []                      # (loader, on_ready): loader() loads a set, on_ready(result) publishes it
REQUESTS = 64                   # requests before the load starts (a short program's steps never wait on it)
_STATE = {"started": False, "thread": None, "policy": None, "countdown": REQUESTS}
_LOCK = threading.Lock()


def njit(fn, **options):
    """``numba.njit(nogil=True, cache=True, **options)(fn)``, compiled in memory only where Numba's
    disk cache has no writable location (the loops' one compile path)."""
    import numba
    try:
        return numba.njit(nogil=True, cache=True, **options)(fn)
    except Exception:       # no writable cache location
        return numba.njit(nogil=True, **options)(fn)


def fits(arrays, dtypes):
    """True when every array is C-contiguous with the first one's dtype, one of ``dtypes``: what the
    loops are compiled for (their callers take NumPy otherwise)."""
    dt = arrays[0].dtype
    if dt not in dtypes:
        return False
    for a in arrays:
        if a.dtype != dt or not a.flags.c_contiguous:
            return False
    return True


def register(loader, on_ready):
    """Add a loop set: ``loader()`` (in the loading thread) imports Numba, compiles or loads the loops
    and calls each for its common signatures; ``on_ready(result)`` then makes them visible."""
    _SETS.append((loader, on_ready))


def _policy():
    policy = os.environ.get(ENV, "background").strip().lower() or "background"
    if policy not in ("background", "now", "off"):
        raise ValueError(f"{ENV} must be 'background', 'now' or 'off', got {policy!r}")
    return policy


def _load_all():
    for loader, on_ready in _SETS:
        try:
            result = loader()
        except Exception:       # no Numba, or it cannot compile here: the NumPy forms stay
            continue
        on_ready(result)


def _run():
    try:
        _load_all()
    finally:
        _STATE["thread"] = None


def request():
    """Ask for the loops: under ``background`` the ``REQUESTS``-th request starts loading them in a
    daemon thread (once per process) and no request waits; under ``now`` the first one loads them."""
    if _STATE["started"]:
        return
    policy = _STATE["policy"]
    if policy is None:
        policy = _STATE["policy"] = _policy()
    if policy == "background":
        _STATE["countdown"] -= 1
        if _STATE["countdown"] > 0:
            return
    with _LOCK:
        if _STATE["started"]:
            return
        _STATE["started"] = True
        if policy == "off":
            return
        if policy == "now":
            _load_all()
            return
        _hook_fork()
        t = threading.Thread(target=_run, name="mscustom-numba-loops", daemon=True)
        _STATE["thread"] = t
        t.start()


def wait(timeout=None):
    """Wait for a background load in progress (before ``os.fork()``; tests that compare the paths)."""
    t = _STATE["thread"]
    if t is not None and t is not threading.current_thread():
        t.join(timeout)


def load():
    """Load the loops now (or wait for a load in progress): tests of the loops, steady-state benchmarks."""
    _STATE["countdown"] = 0
    request()
    wait()


def _hook_fork():
    """Make ``os.fork()`` wait for the loading thread (registered when the first thread starts)."""
    if not hasattr(os, "register_at_fork"):
        return
    # Modules that register fork hooks when imported must not first be imported by the loading
    # thread while the hooks run (their "after" hook would run without their "before"):
    # Numba's import chain brings logging and random, so they are imported here, before the thread.
    import logging  # noqa: F401
    import random  # noqa: F401
    os.register_at_fork(before=lambda: wait(60))
