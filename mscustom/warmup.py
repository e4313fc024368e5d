"""Fill Numba's disk cache with the built-in kernels' loops ahead of time: ``python -m mscustom.warmup``.

The built-in kernels' Numba loops (convolutions, pooling, BatchNorm,
LayerNorm, attention's softmax, graph replays' row loops, and the drivers
that split them among threads) compile the first time a machine runs them,
seconds each, and load from Numba's disk cache (next to the sources) in
later processes. A deployment (an image build, a job's setup step) can pay
that once, ahead: this runs each of them on small float32 and float64
inputs, on one thread and on a split budget, which compiles and caches every
signature the kernels use. ``make test`` runs it beside the test suite, on
the core the tests leave idle, so the suite's first uses find the loops
cached.

Values are not affected: it only fills the cache. Options: ``--quiet``.
"""

import sys
import time

__all__ = ["main", "warm"]


def _lift_split_thresholds():
    """Every splitting kernel's size threshold set to 0 (small inputs split too); returns a restorer."""
    from .nn.optim import _adam_pass
    from .ops.graph_mode import loops
    from .ops.nn import attention_loops, batch_norm, conv, conv_direct, norm_loops
    saved = [(m, name, getattr(m, name)) for m, name in (
        (conv, "_MIN_SPLIT_BYTES"), (conv_direct, "MIN_SPLIT_BYTES"), (batch_norm, "_MIN_SPLIT_BYTES"),
        (norm_loops, "_MIN_SPLIT_BYTES"), (attention_loops, "_MIN_SPLIT_BYTES"), (loops, "SPLIT_BYTES"),
        (_adam_pass, "SPLIT_SIZE"))]
    for m, name, _ in saved:
        setattr(m, name, 0)

    def restore():
        for m, name, value in saved:
            setattr(m, name, value)
    return restore


def _run_ops(dtype):
    """A small CNN step's and a Transformer layer's kernels, forward and backward, in ``dtype``."""
    import numpy as np

    import mscustom as ms
    from mscustom import ops
    from mscustom.ops.nn.attention import attention
    from mscustom.ops.nn.batch_norm import batch_norm_train
    from mscustom.ops.nn.layer_norm_last import layer_norm_last

    rng = np.random.default_rng(0)
    t = lambda *shape: ms.Tensor(rng.standard_normal(shape).astype(dtype))      # noqa: E731
    x, w3, w1, g4, b4 = t(2, 4, 12, 12), t(4, 4, 3, 3), t(4, 4, 1, 1), t(4), t(4)

    def cnn(x, w3, w1, g4, b4):
        y = ops.conv2d(x, w3, pad_mode="pad", padding=1) + ops.conv2d(x, w1)
        y = ops.conv2d(y, w3, stride=2, pad_mode="pad", padding=1)
        y = ops.relu(batch_norm_train(y, g4, b4, 1e-5)[0])
        return ops.max_pool2d(y, 2, 2).sum() + ops.avg_pool2d(y, 2, 2).sum()
    ms.grad(cnn, (0, 1, 2, 3, 4))(x, w3, w1, g4, b4)
    ops.relu_grad(t(1024), t(1024))         # relu's gradient over a large array (graph_mode/loops.py)
    from mscustom import nn
    from mscustom.nn.optim import _adam_pass
    w = ms.Parameter(t(_adam_pass.MIN_SIZE), name="w")
    nn.AdamW([w])((t(_adam_pass.MIN_SIZE),))    # AdamW's one-pass update (nn/optim/_adam_pass.py)

    src, gamma, beta = t(6, 2, 24), t(24), t(24)

    def layer(src, gamma, beta):
        h = layer_norm_last(src, gamma, beta, 1e-5)
        out, _ = attention((h,), ((0, 0, 8), (0, 8, 16), (0, 16, 24)), 2, "lne", weights_grad=False)
        return (out * out).sum()
    ms.grad(layer, (0, 1, 2))(src, gamma, beta)
    if dtype == np.float32:                 # the recurrent layers' sequence ops (float32 parameters)
        for cell in (nn.LSTM(3, 4, batch_first=True), nn.GRU(3, 4, batch_first=True)):
            seq = t(2, 5, 3)
            ms.grad(lambda s: cell(s)[0].sum())(seq)


def warm(verbose=False):
    """Compile (or load) the built-in loops for float32 and float64, on one thread and on two."""
    import numpy as np

    import mscustom as ms
    from mscustom.ops import _loop_loader

    start = time.perf_counter()
    _loop_loader.load()                     # the registered loop sets (graph replays' row loops, ...)
    restore = _lift_split_thresholds()
    try:
        for threads in (1, 2):
            ms.set_context(runtime_num_threads=threads)
            for dtype in (np.float32, np.float64):
                _run_ops(dtype)
                if verbose:
                    print(f"warmup: {np.dtype(dtype).name} on {threads} thread(s) done "
                          f"({time.perf_counter() - start:.1f} s)", flush=True)
    finally:
        restore()
        ms.set_context(runtime_num_threads=0)
    return time.perf_counter() - start


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    seconds = warm(verbose="--quiet" not in argv)
    if "--quiet" not in argv:
        print(f"warmup: the built-in loops are in Numba's cache ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
