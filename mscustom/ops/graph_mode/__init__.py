"""What graph-mode replays of the built-in ops run: kernels that write into given buffers (``kernels``),
the per-element expressions elementwise fusion compiles (``fusion_exprs``) and the one-pass Numba
row loops several of those kernels use (``loops``).

``mscustom.ops`` installs the kernels when it loads (``kernels.install()``); nothing here is public.
"""
