"""AKG ir_builder kernels for the tests (func_type="akg"); ``tvm`` is provided by ops.Custom, never imported."""
# ruff: noqa: F821  (tvm comes from the kernel's namespace, as under AKG)


def vadd(inputs, attrs):
    """Element-wise sum of two tensors of any rank."""
    def body(out, lhs, rhs):
        ib = tvm.ir_builder.create()
        with ib.for_range_n(lhs.shape, "k") as idx:
            ib.store(out, idx, ib.load(lhs, idx) + ib.load(rhs, idx))
        return ib.get()
    lhs, rhs = inputs
    return tvm.extern(lhs.shape, [lhs, rhs], lambda ins, outs: body(outs[0], ins[0], ins[1]),
                      name="vadd", dtype=lhs.dtype)


def row_sums(inputs, attrs):
    """Sum of each row of a matrix, accumulated in a scratch buffer."""
    x = inputs[0]
    rows, cols = x.shape

    def body(out, src):
        ib = tvm.ir_builder.create()
        acc = ib.allocate(src.dtype, (1,), name="acc", scope="local")
        with ib.for_range(0, rows, name="r") as r:
            acc[0] = tvm.const(0, src.dtype)
            with ib.for_range(0, cols, name="c") as c:
                acc[0] = acc[0] + ib.load(src, [r, c])
            ib.store(out, r, acc[0])
        return ib.get()
    return tvm.extern((rows,), [x], lambda ins, outs: body(outs[0], ins[0]), name="row_sums", dtype=x.dtype)


def leaky_clip(inputs, attrs):
    """x * 2 where that exceeds 3, else a leak of x * alpha (alpha from the reg info's attribute)."""
    x = inputs[0]
    alpha = attrs.get("alpha", 0.25)

    def body(out, src):
        ib = tvm.ir_builder.create()
        n = src.shape[0]
        twice = ib.allocate(src.dtype, n, name="twice")
        with ib.for_range(0, n, name="i") as i:
            twice[i] = ib.load(src, i) * tvm.const(2, src.dtype)
        with ib.for_range(0, n, name="i") as i:
            with ib.if_scope(twice[i] > tvm.const(3, src.dtype)):
                ib.store(out, i, twice[i])
            with ib.else_scope():
                ib.store(out, i, ib.load(src, i) * tvm.const(alpha, src.dtype))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="leaky_clip", dtype=x.dtype)


def sum_all(inputs, attrs):
    """The sum of any number of same-shape tensors (a dynamic input)."""
    def body(out, srcs):
        ib = tvm.ir_builder.create()
        with ib.for_range_n(srcs[0].shape, "i") as i:
            total = ib.load(srcs[0], i)
            for s in srcs[1:]:
                total = total + ib.load(s, i)
            ib.store(out, i, total)
        return ib.get()
    return tvm.extern(inputs[0].shape, list(inputs), lambda ins, outs: body(outs[0], ins),
                      name="sum_all", dtype=inputs[0].dtype)


def soft_gate(inputs, attrs):
    """exp(x) where 0 <= x < 1, sqrt(|x|) elsewhere, through tvm.if_then_else and tvm.all; flat pointers."""
    x = inputs[0]
    size = 1
    for s in x.shape:
        size *= s

    def body(out, src):
        ib = tvm.ir_builder.create()
        dst, val = ib.buffer_ptr(out), ib.buffer_ptr(src)
        with ib.for_range(0, size, name="f") as f:
            v = val[f]
            inside = tvm.all(v >= tvm.const(0, src.dtype), v < tvm.const(1, src.dtype))
            dst[f] = tvm.if_then_else(inside, tvm.exp(v), tvm.sqrt(tvm.abs(v)))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="soft_gate", dtype=x.dtype)


def split_sign(inputs, attrs):
    """Two outputs: max(x, 0) and min(x, 0) (tvm.max / tvm.min), the second cast through astype."""
    x = inputs[0]

    def body(pos, neg, src):
        ib = tvm.ir_builder.create()
        with ib.for_range(0, src.shape[0], name="i") as i:
            v = ib.load(src, i)
            ib.store(pos, i, tvm.max(v, tvm.const(0, src.dtype)))
            ib.store(neg, i, tvm.min(v, tvm.const(0, src.dtype)).astype("int32"))
        return ib.get()
    return tvm.extern([x.shape, x.shape], [x], lambda ins, outs: body(outs[0], outs[1], ins[0]),
                      name="split_sign", dtype=[x.dtype, "int32"])


def uses_compute(inputs, attrs):
    """Outside the subset: a TVM compute expression inside an ir_builder kernel."""
    x = inputs[0]
    doubled = tvm.compute(x.shape, lambda i: x[i] * 2)

    def body(out, src):
        ib = tvm.ir_builder.create()
        return ib.get()
    return tvm.extern(x.shape, [doubled], lambda ins, outs: body(outs[0], ins[0]), name="uses_compute",
                      dtype=x.dtype)


def uses_pointer(inputs, attrs):
    """Outside the subset: ib.pointer."""
    x = inputs[0]

    def body(out, src):
        ib = tvm.ir_builder.create()
        p = ib.pointer("float32")
        p[0] = ib.load(src, 0)
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="uses_pointer", dtype=x.dtype)


def branches_on_data(inputs, attrs):
    """Outside the subset: a Python `if` on a loaded value (a traced expression has no truth value)."""
    x = inputs[0]

    def body(out, src):
        ib = tvm.ir_builder.create()
        with ib.for_range(0, src.shape[0], name="i") as i:
            if ib.load(src, i) > 0:
                ib.store(out, i, ib.load(src, i))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="branches", dtype=x.dtype)


# ---------------------------------------------------------------- kernels MindSpore 2.10 also runs on CPU
def clip_ifelse(inputs, attrs):
    """2x where x > 1, else 0: an if_scope / else_scope pair storing to the output."""
    x = inputs[0]

    def body(out, src):
        ib = tvm.ir_builder.create()
        with ib.for_range(0, src.shape[0], name="i") as i:
            with ib.if_scope(ib.load(src, i) > tvm.const(1, src.dtype)):
                ib.store(out, i, ib.load(src, i) * tvm.const(2, src.dtype))
            with ib.else_scope():
                ib.store(out, i, tvm.const(0, src.dtype))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="clip_ifelse", dtype=x.dtype)


def transpose2(inputs, attrs):
    """A matrix transpose through index lists on load and store."""
    x = inputs[0]
    rows, cols = x.shape

    def body(out, src):
        ib = tvm.ir_builder.create()
        with ib.for_range(0, rows, name="i") as i:
            with ib.for_range(0, cols, name="j") as j:
                ib.store(out, [j, i], ib.load(src, [i, j]))
        return ib.get()
    return tvm.extern((cols, rows), [x], lambda ins, outs: body(outs[0], ins[0]), name="transpose2",
                      dtype=x.dtype)


def gate(inputs, attrs):
    """exp(x) for x > 0, else x * x, with tvm.if_then_else."""
    x = inputs[0]

    def body(out, src):
        ib = tvm.ir_builder.create()
        with ib.for_range_n(src.shape, "i") as i:
            v = ib.load(src, i)
            ib.store(out, i, tvm.if_then_else(v > tvm.const(0, src.dtype), tvm.exp(v), v * v))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="gate", dtype=x.dtype)


def wrong_input_count(inputs, attrs):
    """Reads a third input the op is never given: a Python error while the program is built."""
    x = inputs[2]

    def body(out, src):
        ib = tvm.ir_builder.create()
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="wrong", dtype=x.dtype)


def lone_else(inputs, attrs):
    """An else_scope that follows no if_scope."""
    x = inputs[0]

    def body(out, src):
        ib = tvm.ir_builder.create()
        with ib.else_scope():
            ib.store(out, 0, ib.load(src, 0))
        return ib.get()
    return tvm.extern(x.shape, [x], lambda ins, outs: body(outs[0], ins[0]), name="lone_else", dtype=x.dtype)
