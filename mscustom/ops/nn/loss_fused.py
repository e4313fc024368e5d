"""Fused sparse softmax cross entropy: one op for the loss, one for its gradient.

``sparse_softmax_cross_entropy(logits, labels, reduction, ignore_index)``
computes ``logsumexp(logits) - logits[label]`` per sample (logits ``(..., C)``
floats, labels ``(...)`` integer class indices), then the reduction. Built
from separate ops (log_softmax, one_hot, mul, reduce_sum, neg, mean) the same
loss costs six op calls forward and as many gradients backward; fused, it is
one kernel each way, and the gradient is the textbook
``(softmax(logits) - onehot(labels)) * dloss`` (divided by the count for
"mean"). ``nn.SoftmaxCrossEntropyWithLogits(sparse=True)``,
``nn.CrossEntropyLoss`` (class indices, no weight, no label smoothing, 2-d
logits) and the ``SparseSoftmaxCrossEntropyWithLogits`` primitive use it.

``ignore_index``: None, or a label value whose samples count nothing (their
loss and gradient are 0; "mean" divides by the number of the others, or by 1
when there are none). The kernels expect labels in ``[0, C)`` (or equal to
``ignore_index``); both functional forms check them through
``capture.check``, so graph-mode replays check them again.

Both ops are differentiable again: the gradient op's own gradient is built
from ops (softmax's Jacobian-vector product, linear in ``dloss``).

Example::

    loss = sparse_softmax_cross_entropy(logits, ms.Tensor([0, 2, 1]), "mean")   # a scalar
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.dispatch import call
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, float_only, tensor_arg
from .. import _loop_loader

__all__ = ["sparse_softmax_cross_entropy", "sparse_softmax_cross_entropy_grad", "LabelRange"]

_REDUCTIONS = ("none", "mean", "sum")
_add_reduce = np.add.reduce
_max_reduce = np.maximum.reduce


# ------------------------------------------------------------------ rules
def _check_pair(name, shapes):
    logits, labels = shapes[0], shapes[1]
    if len(logits) < 1:
        raise ValueError(f"op '{name}': logits must have a class axis, got a 0-d tensor")
    if list(labels) != list(logits[:-1]):
        raise ValueError(f"op '{name}': labels must have shape {list(logits[:-1])} for logits of shape "
                         f"{list(logits)}, got {list(labels)}")


def _loss_shape(attrs, shapes):
    _check_pair("sparse_softmax_cross_entropy", shapes)
    out = list(shapes[1]) if attrs["reduction"] == "none" else []
    return shapes, [out]


def _grad_shape(attrs, shapes):
    _check_pair("sparse_softmax_cross_entropy_grad", shapes)
    want = list(shapes[1]) if attrs["reduction"] == "none" else []
    if list(shapes[2]) != want:
        raise ValueError(f"op 'sparse_softmax_cross_entropy_grad': dloss must have shape {want}, "
                         f"got {list(shapes[2])}")
    return shapes, [list(shapes[0])]


def _types(name, n_inputs):
    floats = float_only(name, promote=False)

    def infer(attrs, dtypes):
        if dtypes[1].name == "bool" or dtypes[1].np_dtype.kind not in "iu":
            raise TypeError(f"op '{name}': labels must be integer class indices, got {dtypes[1].name}")
        ins, outs = floats(attrs, [dtypes[0]])
        if n_inputs == 3 and dtypes[2] != dtypes[0]:
            raise TypeError(f"op '{name}': dloss must have the logits' dtype {dtypes[0].name}, "
                            f"got {dtypes[2].name}")
        return dtypes, outs
    return infer


# ------------------------------------------------------------------ kernels
def _keep(labels, ignore_index):
    """(safe labels, mask of the counted samples or None, count for "mean")."""
    if ignore_index is None:
        return labels, None, labels.size
    keep = labels != ignore_index
    return np.where(keep, labels, 0), keep, max(int(np.count_nonzero(keep)), 1)


_STARTS = {}
_MAX_STARTS = 64                # (n, c) pairs kept; batch sizes that keep changing start the cache over


def _picks(labels, c):
    """Flat indices ``row * c + label`` of each sample's labelled logit in a C-contiguous ``(n, c)`` array.

    One flat gather or scatter with these is several times cheaper than
    indexing with the pair ``(np.arange(n), labels)``.
    """
    n = labels.size
    starts = _STARTS.get((n, c))
    if starts is None:
        if len(_STARTS) >= _MAX_STARTS:
            _STARTS.clear()
        starts = _STARTS[(n, c)] = np.arange(0, n * c, c, dtype=np.intp)
    return np.add(starts, labels.reshape(-1))


def _exp_shifted(x2, p):
    """``p = exp(x2 - rowmax)``; returns (rowmax, rowsum of p), both (n, 1)."""
    m = _max_reduce(x2, 1, None, None, True)
    np.subtract(x2, m, out=p)
    np.exp(p, out=p)
    return m, _add_reduce(p, 1, None, None, True)


def _per_sample_from(x2, m, s, picks, keep, out=None):
    """``log(s) - (x2[label] - m)`` per sample (flat), written into ``out`` when given."""
    picked = x2.take(picks)
    picked -= m.reshape(-1)
    loss = np.log(s.reshape(-1), out=out)
    loss -= picked
    if keep is not None:
        loss *= keep.reshape(-1)
    return loss


def _reduce_loss(loss, red, count, dtype, n):
    """The reduced loss (a 0-d array of ``dtype``) from the per-sample losses."""
    total = _add_reduce(loss, None)
    if red == "sum":
        return np.asarray(total, dtype)
    if not n:
        return np.asarray(np.nan, dtype)        # the mean of no samples, as np.mean (without its warning)
    return np.asarray(total / count, dtype)


def loss_into(attrs, ins, out=None):
    """The loss kernel: per-sample losses into ``out`` (allocated when None) or the reduced scalar."""
    x, labels = ins
    if _rows_fit(attrs, x, labels):
        return _loss_rows(x, labels, attrs["reduction"])
    safe, keep, count = _keep(labels, attrs["ignore_index"])
    red = attrs["reduction"]
    c = x.shape[-1]
    x2 = x.reshape(-1, c)
    m, s = _exp_shifted(x2, np.empty(x2.shape, x2.dtype))
    if red == "none" and out is not None and not out.flags.c_contiguous:
        np.copyto(out, loss_into(attrs, ins))     # the flat view below must be out itself
        return out
    flat_out = None if red != "none" or out is None else out.reshape(-1)
    loss = _per_sample_from(x2, m, s, _picks(safe, c), keep, flat_out)
    if red == "none":
        return loss.reshape(labels.shape) if out is None else out
    return _reduce_loss(loss, red, count, x.dtype, labels.size)


def _finish_grad(p, picks, keep, count, dloss, red):
    """``p`` holds softmax rows: subtract the one-hot labels, scale by ``dloss`` (/ count for "mean")."""
    p.reshape(-1)[picks] -= 1
    if red == "none":
        scale = dloss if keep is None else dloss * keep
        p *= scale.reshape(-1, 1)
    else:
        p *= dloss / count if red == "mean" else dloss
        if keep is not None:
            p *= keep.reshape(-1, 1)


def grad_into(attrs, ins, o):
    """``(softmax(x) - onehot(labels)) * scale`` into ``o`` (the gradient kernel's body)."""
    x, labels, dloss = ins
    if not o.flags.c_contiguous:            # the row-wise view below must be o itself
        np.copyto(o, grad_into(attrs, ins, np.empty(o.shape, o.dtype)))
        return o
    if _rows_fit(attrs, x, labels) and dloss.dtype == x.dtype:
        _grad_rows(x, labels, dloss, attrs["reduction"], o)
        return o
    safe, keep, count = _keep(labels, attrs["ignore_index"])
    if x.size == 0:
        return o
    c = x.shape[-1]
    p = o.reshape(-1, c)
    _, s = _exp_shifted(x.reshape(-1, c), p)
    p /= s
    _finish_grad(p, _picks(safe, c), keep, count, dloss, attrs["reduction"])
    return o


# ------------------------------------------------------------------ the fused kernel's row loops (Numba)
# For small batches the fused kernel is some twenty NumPy calls on tiny arrays; two Numba loops do the
# per-row work (row max and shift; the per-sample loss, the division by the row sums, the one-hot
# subtraction and the scaling) in NumPy's per-element operations and order, while exp, log and the
# reductions stay NumPy's own (so the results are bit-identical to the NumPy path; tests check it).
# Graph replays ask for them (``_loop_loader``: loaded in a background thread, NumPy serving until
# then); eager calls use them (the loss and the gradient each alone) only once they are loaded (a large
# model's SGD update asks for them), so small eager programs never load Numba. Disk-cached.
_ROW_LOOPS = []
_ROW_LOOP_MAX = 1 << 16         # elements; larger logits: NumPy's vectorised loops win
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ONE = {dt: dt.type(1) for dt in _FLOATS}


def _shift_rows(x, p, m):
    n, c = x.shape
    for i in range(n):
        mx = x[i, 0]
        for j in range(1, c):
            if mx != mx:                    # NaN: the row maximum stays NaN (as np.maximum)
                break
            v = x[i, j]
            if not mx >= v:
                mx = v
        m[i] = mx
        for j in range(c):
            p[i, j] = x[i, j] - mx


def _finish_rows(x, labels, m, s, ls, p, loss, k, one):
    n, c = p.shape
    for i in range(n):
        lab = labels[i]
        if lab < 0 or lab >= c:
            return i                        # out of range: nothing indexed, the caller raises
        loss[i] = ls[i] - (x[i, lab] - m[i])
        si = s[i]
        for j in range(c):
            p[i, j] = p[i, j] / si
        p[i, lab] = p[i, lab] - one
        for j in range(c):
            p[i, j] = p[i, j] * k
    return -1


def _loss_rows_only(x, labels, m, ls, loss):
    n, c = x.shape
    for i in range(n):
        lab = labels[i]
        if lab < 0 or lab >= c:
            return i
        loss[i] = ls[i] - (x[i, lab] - m[i])
    return -1


def _grad_rows_only(labels, s, p, k, one):
    n, c = p.shape
    for i in range(n):
        lab = labels[i]
        if lab < 0 or lab >= c:
            return i
        si = s[i]
        for j in range(c):
            p[i, j] = p[i, j] / si
        p[i, lab] = p[i, lab] - one
        for j in range(c):
            p[i, j] = p[i, j] * k
    return -1


def _compile_rows():
    return tuple(_loop_loader.njit(f) for f in (_shift_rows, _finish_rows, _loss_rows_only, _grad_rows_only))


def _row_loops():
    """``(shift, finish, loss only, gradient only)``, loaded now if need be."""
    if not _ROW_LOOPS:
        _ROW_LOOPS[:] = _compile_rows()
    return _ROW_LOOPS


def _load_rows():
    """The row loops, each called once per float dtype and int32/int64 labels (``_loop_loader``)."""
    loops = _compile_rows()
    shift, finish, loss_only, grad_only = loops
    for dt in _FLOATS:
        for lt in (np.int32, np.int64):
            x, labels, p = np.zeros((1, 2), dt), np.zeros(1, lt), np.empty((1, 2), dt)
            m, s, ls = np.empty(1, dt), np.ones(1, dt), np.zeros(1, dt)
            shift(x, p, m)
            finish(x, labels, m, s, ls, p, np.empty(1, dt), dt.type(1), _ONE[dt])
            loss_only(x, labels, m, ls, np.empty(1, dt))
            grad_only(labels, s, p, dt.type(1), _ONE[dt])
    return loops


def _publish_rows(loops):
    if not _ROW_LOOPS:
        _ROW_LOOPS[:] = loops


_loop_loader.register(_load_rows, _publish_rows)


def _rows_ready():
    """Whether the row loops are loaded; if not, asks for them (loaded in the background) and says False."""
    if _ROW_LOOPS:
        return True
    _loop_loader.request()
    return bool(_ROW_LOOPS)


def _rows_fit(attrs, x, labels):
    """Whether an eager loss or gradient call takes the row loops (see above)."""
    return attrs["reduction"] != "none" and attrs["ignore_index"] is None and x.ndim == 2 \
        and 0 < x.size <= _ROW_LOOP_MAX and x.dtype in _FLOATS and x.flags.c_contiguous \
        and labels.flags.c_contiguous and labels.dtype.kind in "iu" and bool(_ROW_LOOPS)


def _bad_label(labels, bad, c):
    return ValueError(f"op 'sparse_softmax_cross_entropy': label {int(labels[bad])} is out of range for "
                      f"{c} classes (expected 0 <= label < {c})")


def _loss_rows(x2, labels, red):
    """The loss kernel for 2-D logits, no ignore_index, "mean" or "sum", with the row loops."""
    n, dt = x2.shape[0], x2.dtype
    shift, _, loss_only, _ = _row_loops()
    m = np.empty(n, dt)
    p = np.empty(x2.shape, dt)
    shift(x2, p, m)
    np.exp(p, out=p)
    ls = np.log(_add_reduce(p, 1))
    loss = np.empty(n, dt)
    bad = loss_only(x2, labels, m, ls, loss)
    if bad >= 0:
        raise _bad_label(labels, bad, x2.shape[1])
    total = _add_reduce(loss, None)
    return np.asarray(total / n if red == "mean" else total, dt)


def _grad_rows(x2, labels, dloss, red, p):
    """The gradient kernel for 2-D logits, no ignore_index, "mean" or "sum", with the row loops."""
    n, dt = x2.shape[0], x2.dtype
    shift, _, _, grad_only = _row_loops()
    shift(x2, p, np.empty(n, dt))
    np.exp(p, out=p)
    d = dloss[()]
    bad = grad_only(labels, _add_reduce(p, 1), p, d / n if red == "mean" else d, _ONE[dt])
    if bad >= 0:
        raise _bad_label(labels, bad, x2.shape[1])


def _loss_and_grad_rows(x2, labels, dloss, red, loss_out, p):
    """The fused kernel for 2-D logits, no ignore_index, "mean" or "sum", with the Numba row loops."""
    n, dt = x2.shape[0], x2.dtype
    shift, finish = _row_loops()[:2]
    m = np.empty(n, dt)
    shift(x2, p, m)
    np.exp(p, out=p)
    s = _add_reduce(p, 1)
    ls = np.log(s)
    loss = np.empty(n, dt)
    d = dloss[()]                                       # a NumPy scalar of dt: scalar arithmetic is cheaper
    k = d / n if red == "mean" else d                   # what _finish_grad multiplies by (the same rounding)
    bad = finish(x2, labels, m, s, ls, p, loss, k, _ONE[dt])
    if bad >= 0:
        raise _bad_label(labels, bad, x2.shape[1])
    total = _add_reduce(loss, None)                     # _reduce_loss's sum and division (n > 0 here)
    loss_out[()] = total / n if red == "mean" else total


def loss_and_grad_into(attrs, ins, loss_out, grad_out):
    """The loss and its gradient together, sharing the shifted exponentials (graph mode fuses the two ops).

    ``ins`` = (logits, labels, dloss); writes exactly what ``loss_into`` and
    ``grad_into`` give: the loss into ``loss_out`` (per sample or 0-d), the
    gradient into ``grad_out``.
    """
    x, labels, dloss = ins
    red = attrs["reduction"]
    if red != "none" and attrs["ignore_index"] is None and x.ndim == 2 and 0 < x.size <= _ROW_LOOP_MAX \
            and x.dtype in _FLOATS and dloss.dtype == x.dtype and x.flags.c_contiguous \
            and grad_out.flags.c_contiguous and labels.flags.c_contiguous and labels.dtype.kind in "iu" \
            and _rows_ready():
        _loss_and_grad_rows(x, labels, dloss, red, loss_out, grad_out)
        return
    if x.size == 0 or not grad_out.flags.c_contiguous:
        if red == "none":
            loss_into(attrs, ins[:2], loss_out)
        else:
            loss_out[...] = loss_into(attrs, ins[:2])
        grad_into(attrs, ins, grad_out)
        return
    safe, keep, count = _keep(labels, attrs["ignore_index"])
    c = x.shape[-1]
    x2, p = x.reshape(-1, c), grad_out.reshape(-1, c)
    m, s = _exp_shifted(x2, p)
    picks = _picks(safe, c)
    if red == "none":
        _per_sample_from(x2, m, s, picks, keep, loss_out.reshape(-1))
    else:
        loss_out[...] = _reduce_loss(_per_sample_from(x2, m, s, picks, keep), red, count, x.dtype, labels.size)
    p /= s
    _finish_grad(p, picks, keep, count, dloss, red)


def _loss_compute(attrs, ins):
    return loss_into(attrs, ins)


def _grad_compute(attrs, ins):
    return grad_into(attrs, ins, np.empty(ins[0].shape, ins[0].dtype))


# ------------------------------------------------------------------ gradients
def _loss_gradient(ins, outs, g, attrs):
    return [call(_GRAD, (ins[0], ins[1], g[0]), attrs), None]     # the same attrs: no conversions


def _unit_scale(logits, labels, attrs):
    """The per-sample factor of the gradient with ``dloss`` = 1, shaped to broadcast against logits."""
    dt = logits._data.dtype
    ig = attrs["ignore_index"]
    keep = None if ig is None else F.expand_dims(F.cast(F.not_equal(labels, ig), dt), -1)
    if attrs["reduction"] != "mean":
        return keep
    if keep is None:
        return Tensor._wrap(np.asarray(1.0 / max(labels._data.size, 1), dt))
    return F.div(keep, F.maximum(F.reduce_sum(keep), Tensor._wrap(np.asarray(1, dt))))


def _grad_gradient(ins, outs, g, attrs):
    """Gradient of ``out = (softmax(x) - onehot) * unit * dloss`` for the incoming ``v``."""
    logits, labels, dloss = ins
    v = g[0]
    dt = logits._data.dtype
    p = F.softmax(logits, -1)
    hot = F.one_hot(labels, logits._data.shape[-1], Tensor._wrap(np.ones((), dt)),
                    Tensor._wrap(np.zeros((), dt)))
    unit = _unit_scale(logits, labels, attrs)
    per_sample = attrs["reduction"] == "none"
    w = F.expand_dims(dloss, -1) if per_sample else dloss
    if unit is not None:
        w = F.mul(w, unit)
    vw = F.mul(v, w)
    dlogits = F.mul(p, F.sub(vw, F.reduce_sum(F.mul(vw, p), -1, True)))     # softmax's JVP of v * w
    vd = F.mul(v, F.sub(p, hot))
    if unit is not None:
        vd = F.mul(vd, unit)
    ddloss = F.reduce_sum(vd, -1 if per_sample else None)
    return [dlogits, None, ddloss]


_LOSS = defop("sparse_softmax_cross_entropy", 2, _loss_compute, _loss_shape,
              _types("sparse_softmax_cross_entropy", 2), _loss_gradient,
              doc="logsumexp(logits) - logits[label] per sample, then the reduction",
              arg_names=("logits", "labels"))
_GRAD = defop("sparse_softmax_cross_entropy_grad", 3, _grad_compute, _grad_shape,
              _types("sparse_softmax_cross_entropy_grad", 3), _grad_gradient,
              doc="(softmax(logits) - onehot(labels)) * dloss (/ count for mean)",
              arg_names=("logits", "labels", "dloss"))


# ------------------------------------------------------------------ functional forms
_UNSIGNED = {np.dtype(t): np.dtype(t.replace("int", "uint")) for t in ("int8", "int16", "int32", "int64")}
_UNSIGNED.update({np.dtype(t): np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64")})


class LabelRange:
    """Raises when a class index is out of range (a check that graph-mode replays repeat)."""

    def __init__(self, who, n_classes, ignore_index=None):
        self.who, self.n_classes, self.ignore_index = who, n_classes, ignore_index

    def __call__(self, data):
        if self.ignore_index is None and data.size:
            # one pass: negative labels read as unsigned are huge, so max < n_classes means all in range
            unsigned = _UNSIGNED.get(data.dtype)
            if unsigned is not None and _max_reduce(data.view(unsigned), None) < self.n_classes:
                return
        valid = data if self.ignore_index is None else data[data != self.ignore_index]
        if valid.size and (valid.min() < 0 or valid.max() >= self.n_classes):
            bad = valid.min() if valid.min() < 0 else valid.max()
            also = "" if self.ignore_index is None else f", or ignore_index={self.ignore_index}"
            raise ValueError(f"{self.who}: label {int(bad)} is out of range for {self.n_classes} classes "
                             f"(expected 0 <= label < {self.n_classes}{also})")


_ATTRS = {}


def _attrs(reduction, ignore_index, who):
    """The op's attribute dict, one shared per (reduction, ignore_index) pair."""
    attrs = _ATTRS.get((reduction, ignore_index))
    if attrs is None:
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{who}: reduction must be one of {list(_REDUCTIONS)}, got {reduction!r}")
        ig = None if ignore_index is None else int(ignore_index)
        attrs = _ATTRS[(reduction, ignore_index)] = {"reduction": reduction, "ignore_index": ig}
    return attrs


_CHECKS = {}


def _label_check(who, n_classes, ignore_index):
    """One shared ``LabelRange`` per (who, classes, ignore_index)."""
    check = _CHECKS.get((who, n_classes, ignore_index))
    if check is None:
        check = _CHECKS[(who, n_classes, ignore_index)] = LabelRange(who, n_classes, ignore_index)
    return check


def sparse_softmax_cross_entropy(logits, labels, reduction="mean", ignore_index=None,
                                 who="op 'sparse_softmax_cross_entropy'"):
    """Softmax cross entropy of ``logits`` (..., C) against integer ``labels`` (...), fused.

    ``reduction``: "mean" (over samples), "sum" or "none" (one loss per
    sample). Labels out of ``[0, C)`` (other than ``ignore_index``) raise a
    ValueError naming ``who``, now and in every graph-mode replay.
    """
    if type(logits) is not Tensor or type(labels) is not Tensor:
        logits = tensor_arg(logits, "sparse_softmax_cross_entropy")
        labels = tensor_arg(labels, "sparse_softmax_cross_entropy")
    attrs = _attrs(reduction, ignore_index, who)
    if logits._data.ndim and labels._data.dtype.kind in "iu":
        _capture.check(_label_check(who, logits._data.shape[-1], attrs["ignore_index"]), labels)
    return call(_LOSS, (logits, labels), attrs)


def sparse_softmax_cross_entropy_grad(logits, labels, dloss, reduction="mean", ignore_index=None):
    """``(softmax(logits) - onehot(labels)) * dloss``, divided by the counted samples for "mean".

    The gradient of ``sparse_softmax_cross_entropy`` with respect to the
    logits, as an op (so it is differentiable again). ``dloss`` has the loss's
    shape: per sample for "none", a scalar otherwise. Labels out of range
    raise a ValueError naming the op, now and in every graph-mode replay.
    """
    logits = tensor_arg(logits, "sparse_softmax_cross_entropy_grad")
    labels = tensor_arg(labels, "sparse_softmax_cross_entropy_grad")
    dloss = tensor_arg(dloss, "sparse_softmax_cross_entropy_grad")
    who = "op 'sparse_softmax_cross_entropy_grad'"
    attrs = _attrs(reduction, ignore_index, who)
    if logits._data.ndim and labels._data.dtype.kind in "iu":
        _capture.check(_label_check(who, logits._data.shape[-1], attrs["ignore_index"]), labels)
    return call(_GRAD, (logits, labels, dloss), attrs)
