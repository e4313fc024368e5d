"""``Optimizer``: parameters, parameter groups, learning rates, weight decay and loss scale.

An optimizer is a Cell: ``opt(grads)`` takes a tuple of gradients aligned
with ``opt.parameters`` and updates the parameters in place. Updates run on
the NumPy arrays directly (in-place ufuncs with ``out=``), off the tape: they
are not differentiated and allocate nothing per step but a few temporaries.

``params`` is a list (or generator) of Parameters, or MindSpore-style groups:
a list of dicts with "params" and optionally "lr", "weight_decay" and
"grad_centralization", plus at most one ``{"order_params": [...]}`` that
fixes the parameter (and gradient) order. Weight decay applies, when the
parameters are not grouped, to those whose names contain neither "beta" nor
"gamma", as in MindSpore; in a group it applies to every parameter of the group.

``learning_rate`` (and a group's "lr") is a number, a list / 1-D Tensor with
one value per step, or a ``LearningRateSchedule`` called with the step. Step
``t`` (counted from 0 in ``global_step``) uses entry ``t`` of a list, as
MindSpore does; a step past the end of the list is an error here (MindSpore
reads past the end of its lr Tensor).

Per step, MindSpore's order is kept: weight decay is added to the (still
loss-scaled) gradient, gradient centralization is applied, and only then is
the gradient divided by ``loss_scale``.

Example::

    opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    loss, grads = ms.value_and_grad(forward, None, weights=opt.parameters)(x, y)
    opt(grads)
"""

import math

import numpy as np

from ..._core import capture as _capture
from ...tensor import Parameter, ParameterTuple, Tensor
from ..cell import Cell
from . import _gemm_update
from ._one_pass import sub_scaled, sub_scaled_all

__all__ = ["Optimizer"]


def _number(value, what, who, low=None, high=None, low_open=False, high_open=False):
    """``value`` as a float, checked to lie in the given interval."""
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise ValueError(f"{who}: {what} must be a number, got a Tensor of shape {list(value.shape)}")
        value = value._data.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{who}: {what} must be a number, got {type(value).__name__}")
    value = float(value)
    ok = math.isfinite(value)
    if low is not None:
        ok = ok and (value > low if low_open else value >= low)
    if high is not None:
        ok = ok and (value < high if high_open else value <= high)
    if not ok:
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        interval = f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        raise ValueError(f"{who}: {what} must be in {interval}, got {value!r}")
    return value


def _lr_tensor(value):
    return Tensor._wrap(np.asarray(value, np.float32))


class _LR:
    """One learning rate: a constant, a per-step array, or a schedule Cell; ``at(step)`` gives a float."""

    __slots__ = ("kind", "value", "who", "what")

    def __init__(self, value, who, what="learning_rate"):
        from ..learning_rate_schedule import LearningRateSchedule
        self.who, self.what = who, what
        if isinstance(value, LearningRateSchedule):
            self.kind, self.value = "schedule", value
            return
        if isinstance(value, (list, tuple)) or (isinstance(value, Tensor) and value._data.ndim == 1) \
                or (isinstance(value, np.ndarray) and value.ndim == 1):
            arr = value._data if isinstance(value, Tensor) else value
            try:
                arr = np.asarray(arr, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"{who}: {what} as a list must hold numbers, got {value!r}") from None
            if arr.ndim != 1 or arr.size == 0:
                raise ValueError(f"{who}: {what} as a list must be a non-empty 1-D sequence of numbers, "
                                 f"got shape {list(arr.shape)}")
            if not np.all(np.isfinite(arr)) or np.any(arr < 0):
                raise ValueError(f"{who}: every {what} in the list must be finite and >= 0, got {arr.tolist()}")
            self.kind, self.value = "list", arr
            return
        self.kind, self.value = "const", _number(value, what, who, low=0)

    def at(self, step):
        if self.kind == "const":
            return self.value
        if self.kind == "list":
            if step >= self.value.size:
                raise ValueError(f"{self.who}: {self.what} lists {self.value.size} values (one per step) but "
                                 f"step {step + 1} was asked for; give at least as many values as training "
                                 "steps")
            return float(self.value[step])
        lr = self.value(step)
        return float(lr._data) if isinstance(lr, Tensor) else float(lr)

    def public(self):
        if self.kind == "list":
            return Tensor._wrap(self.value.astype(np.float32))
        return self.value


class Optimizer(Cell):
    """Base class: parameters and groups, learning rates, weight decay, loss scale and gradient checks.

    Subclasses define ``_update(i, param_array, grad_array, lr)``, which
    changes ``param_array`` in place; ``grad_array`` is a scratch copy of the
    gradient that may be overwritten. A subclass whose decay is decoupled
    from the gradient (AdamWeightDecay, AdamW) sets ``_decay_in_grad = False``
    and reads ``self._weight_decay[i]`` itself.
    """

    _decay_in_grad = True
    _plain_descent = False      # True: the update is exactly p -= lr * g (plain SGD), done in two passes
    _decay_filter = True        # ungrouped: no decay for names containing "beta" or "gamma"

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        who = type(self).__name__
        self._lr = _LR(learning_rate, who)
        weight_decay = _number(weight_decay, "weight_decay", who, low=0)
        self.loss_scale = _number(loss_scale, "loss_scale", who, low=0, low_open=True)
        params, lrs, wds, gcs = self._parse_params(parameters, weight_decay, who)
        self.parameters = ParameterTuple(params)
        self._group_lr = lrs                    # None: use self.learning_rate
        self.is_group_lr = any(lr is not None for lr in lrs)
        self._weight_decay = wds
        self._grad_centralization = gcs
        self.weight_decay = weight_decay
        self.global_step = 0
        self._work = [np.empty_like(p._data) for p in params]    # per-step gradient scratch
        # every parameter takes the base rate, undecayed and uncentralized (plain SGD: one loop per parameter)
        self._uniform = not self.is_group_lr and not any(wds) and not any(gcs)

    def _parse_params(self, parameters, weight_decay, who):
        if isinstance(parameters, Parameter):
            parameters = [parameters]
        try:
            items = list(parameters)
        except TypeError:
            raise TypeError(f"{who}: params must be a list of Parameters or of group dicts, got "
                            f"{type(parameters).__name__}") from None
        if not items:
            raise ValueError(f"{who}: params is empty; give the Parameters to optimize "
                             "(for example net.trainable_params())")
        grouped = isinstance(items[0], dict)
        self.is_group = grouped                 # MindSpore's attribute: parameters came as group dicts
        groups = items if grouped else [{"params": items}]
        order = None
        params, lrs, wds, gcs = [], [], [], []
        for g in groups:
            if isinstance(g, dict) and set(g) == {"order_params"}:
                if order is not None:
                    raise ValueError(f"{who}: 'order_params' is given in more than one group")
                order = list(g["order_params"])
                continue
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError(f"{who}: params must be all Parameters or all group dicts with a "
                                f"'params' key, got {type(g).__name__} among them")
            unknown = set(g) - {"params", "lr", "weight_decay", "grad_centralization"}
            if unknown:
                raise ValueError(f"{who}: unknown key(s) {sorted(unknown)} in a parameter group; expected "
                                 "'params', 'lr', 'weight_decay', 'grad_centralization' (or a dict holding "
                                 "only 'order_params')")
            lr = _LR(g["lr"], who, "a group's lr") if "lr" in g else None
            wd = _number(g["weight_decay"], "a group's weight_decay", who, low=0) \
                if "weight_decay" in g else weight_decay
            gc = g.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"{who}: a group's grad_centralization must be a bool, got {type(gc).__name__}")
            for p in g["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(f"{who}: every parameter must be a Parameter, got {type(p).__name__}")
                if any(p is q for q in params):
                    raise ValueError(f"{who}: parameter '{p.name}' is given more than once")
                name = p.name or ""
                params.append(p)
                lrs.append(lr)
                decays = grouped or not self._decay_filter or ("beta" not in name and "gamma" not in name)
                wds.append(wd if decays else 0.0)
                gcs.append(gc)
        if not params:
            raise ValueError(f"{who}: the parameter groups hold no Parameters")
        if order is not None:
            index = {id(p): i for i, p in enumerate(params)}
            missing = [getattr(p, "name", repr(p)) for p in order if id(p) not in index]
            if missing:
                raise ValueError(f"{who}: order_params lists {missing}, which no parameter group holds; every "
                                 "parameter in order_params must be in one of the groups")
            if len(order) != len(params) or len({id(p) for p in order}) != len(params):
                raise ValueError(f"{who}: order_params must list each of the {len(params)} grouped "
                                 f"parameters exactly once, got {len(order)} entries")
            perm = [index[id(p)] for p in order]
            params, lrs = [params[i] for i in perm], [lrs[i] for i in perm]
            wds, gcs = [wds[i] for i in perm], [gcs[i] for i in perm]
        return params, lrs, wds, gcs

    @property
    def learning_rate(self):
        """The learning rate of parameters whose group sets none: a float, a Tensor of per-step values,
        or the LearningRateSchedule; assignable."""
        return self._lr.public()

    @learning_rate.setter
    def learning_rate(self, value):
        self._lr = _LR(value, type(self).__name__)

    def get_lr(self):
        """The learning rate the next step uses: a float32 scalar Tensor, as MindSpore returns, or with
        group lrs a tuple with one per parameter. The call has no side effect (MindSpore's PyNative
        ``get_lr`` does not advance ``global_step`` either).
        """
        step = self.global_step
        if self.is_group_lr:
            return tuple(_lr_tensor((self._lr if lr is None else lr).at(step)) for lr in self._group_lr)
        return _lr_tensor(self._lr.at(step))

    @property
    def dynamic_lr(self):
        """Whether a learning rate changes by step (a list or a LearningRateSchedule, base or a group's)."""
        return any(lr is not None and lr.kind != "const" for lr in [self._lr] + list(self._group_lr))

    def decay_weight(self, gradients):
        """The gradients with weight decay added, ``g + weight_decay * loss_scale * p`` for each decayed
        parameter (MindSpore scales the decay by the loss scale, as the gradients are); a tuple."""
        from ... import ops
        out = []
        for g, p, wd in zip(gradients, self.parameters, self._weight_decay):
            out.append(ops.add(g, ops.mul(p, wd * self.loss_scale)) if wd else g)
        return tuple(out)

    def scale_grad(self, gradients):
        """The gradients divided by the loss scale (unchanged when it is 1); a tuple."""
        if self.loss_scale == 1.0:
            return tuple(gradients)
        from ... import ops
        return tuple(ops.div(g, self.loss_scale) for g in gradients)

    def get_lr_parameter(self, param):
        """The learning rate (a float32 scalar Tensor) the next step uses for one Parameter, or a list for
        a list of them."""
        if isinstance(param, (list, tuple)):
            return [self.get_lr_parameter(p) for p in param]
        for p, lr in zip(self.parameters, self._group_lr):
            if p is param:
                return _lr_tensor((self._lr if lr is None else lr).at(self.global_step))
        raise ValueError(f"{type(self).__name__}: parameter '{getattr(param, 'name', param)}' is not "
                         "optimized by this optimizer")

    # ------------------------------------------------------------------ checkpoint state
    _ckpt_scalars = ()          # attributes saved as float32 scalars under their own names ("momentum")
    _ckpt_powers = ()           # (name, attribute): saved as attribute ** global_step ("beta1_power")

    def checkpoint_scalars(self):
        """MindSpore's scalar state of this optimizer, as a checkpoint holds it: a dict name -> array.

        ``global_step`` (int32, shape (1,)), ``learning_rate`` (a constant or
        per-step list rate), the subclass's scalars (``momentum``) and Adam's
        ``beta1_power``/``beta2_power``; the moments are Parameters of their own.
        """
        out = {"global_step": np.array([self.global_step], np.int32)}
        if not self.is_group_lr and self._lr.kind != "schedule":
            out["learning_rate"] = np.asarray(self._lr.value, np.float32)
        for name in self._ckpt_scalars:
            out[name] = np.asarray(getattr(self, name), np.float32)
        for name, attr in self._ckpt_powers:
            out[name] = np.asarray(getattr(self, attr) ** self.global_step, np.float32)
        return out

    def restore_scalar(self, name, value):
        """Take one entry of ``checkpoint_scalars`` back from a checkpoint (resuming training continues
        the step count, hence the learning-rate schedule and Adam's bias correction)."""
        arr = np.asarray(value)
        if name == "global_step":
            self.global_step = int(arr.ravel()[0])
        elif name == "learning_rate":
            if arr.ndim == 0 or self._lr.kind == "list":
                self.learning_rate = arr.item() if arr.ndim == 0 else arr.astype(np.float64)
        elif name in self._ckpt_scalars:
            setattr(self, name, float(arr))
        # beta powers follow from global_step

    def _state(self, prefix, fill=0.0):
        """State like each parameter (filled with ``fill``), named ``prefix.<param name>``."""
        return ParameterTuple(
            Parameter(Tensor._wrap(np.full_like(p._data, fill)), name=f"{prefix}.{p.name}", requires_grad=False)
            for p in self.parameters)

    def construct(self, gradients):
        params = self.parameters
        who = type(self).__name__
        if not isinstance(gradients, (tuple, list)) or len(gradients) != len(params):
            got = f"{len(gradients)} gradient(s)" if isinstance(gradients, (tuple, list)) \
                else f"a {type(gradients).__name__}"
            raise ValueError(f"{who}: expected a tuple of {len(params)} gradient(s) "
                             f"aligned with its parameters, got {got}")
        for p, g in zip(params, gradients):
            shape = g._data.shape if isinstance(g, Tensor) else np.shape(g)
            if shape != p._data.shape:
                raise ValueError(f"{who}: the gradient for parameter '{p.name}' has "
                                 f"shape {list(shape)}, expected {list(p._data.shape)}")
        grads = [g if isinstance(g, Tensor) else Tensor._wrap(np.asarray(g)) for g in gradients]
        # an effect: graph mode repeats the update, with the learning rate of each replay's step
        _capture.effect(self._apply, *grads)
        return True

    def _takes_product(self, i, a, b, transpose_a, transpose_b):
        """Graph mode, when recording: may gradient ``i`` come as the product ``op(a) @ op(b)``?

        Yes for plain SGD on parameters of 32768+ elements where NumPy's BLAS
        adds the scaled product in place (``_gemm_update.fits``).
        """
        if not (self._plain_descent and self._uniform):
            return False
        return _gemm_update.fits(self.parameters[i]._data, a, b, transpose_a, transpose_b)

    def _apply(self, *grad_arrays, scratch=None, products=None):
        """The update of every parameter from its gradient array (in place).

        ``scratch``: None, or one flag per gradient (given by graph-mode
        replays only); a True flag says nobody reads that array afterwards (a
        dead arena buffer), so it is scaled in place instead of being copied
        to the work buffer first. Plain SGD updates large parameters in one
        pass (``_one_pass.sub_scaled``, bit-identical to the two NumPy passes).
        ``products``: ``(i, a, b, transpose_a, transpose_b)`` entries (graph
        mode, see ``_takes_product``) whose gradient ``i`` (None among the
        arrays) is ``op(a) @ op(b)``; plain SGD subtracts ``lr *`` the product
        with one GEMM (to rounding, not bit-identical: ``_gemm_update``).
        """
        params = self.parameters
        step = self.global_step
        base_lr = self._lr.at(step)
        self.global_step = step + 1             # the update of step t sees global_step == t + 1
        inv_scale = 1.0 / self.loss_scale
        plain = self._plain_descent
        if products:
            grad_arrays, scratch = self._take_products(products, grad_arrays, scratch, base_lr * inv_scale)
        if plain and self._uniform and sub_scaled_all(params, grad_arrays, base_lr * inv_scale):
            return                              # p -= lr * g for every parameter, one pass each (Numba)
        for i, (p, garr) in enumerate(zip(params, grad_arrays)):
            if garr is None:
                continue                        # updated from its product already
            parr = p._data
            work = self._work[i]
            if scratch is not None and scratch[i] and garr.dtype == work.dtype and garr.flags.c_contiguous:
                work = garr
            wd = self._weight_decay[i]
            lr = self._group_lr[i]
            if plain and not wd and not self._grad_centralization[i]:
                scale = (base_lr if lr is None else lr.at(step)) * inv_scale
                if sub_scaled(parr, garr, scale):
                    continue                    # a large array: one pass (Numba), the same values
                # p -= lr * g in two passes (the scaling doubles as the copy)
                np.multiply(garr, scale, out=work)
                np.subtract(parr, work, out=parr)
                continue
            if work is not garr:
                np.copyto(work, garr)
            if wd and self._decay_in_grad:
                # L2 weight decay on the scaled gradient: MindSpore scales the decay by loss_scale too,
                # so that after the division below it is wd * p whatever the loss scale
                work += (wd * self.loss_scale) * parr
            if self._grad_centralization[i] and work.ndim == 4:
                work -= work.mean(axis=(1, 2, 3), keepdims=True)
            if inv_scale != 1.0:
                work *= inv_scale
            self._update(i, parr, work, base_lr if lr is None else lr.at(step))

    def _take_products(self, products, grad_arrays, scratch, scale):
        """Update from each product with one GEMM where possible (its gradient stays None); otherwise
        compute the product into the work buffer, which is then that gradient (and scratch)."""
        grads, flags = list(grad_arrays), list(scratch) if scratch is not None else [False] * len(grad_arrays)
        simple = self._plain_descent and self._uniform
        for i, a, b, ta, tb in products:
            if simple and _gemm_update.sub_product(self.parameters[i]._data, a, b, ta, tb, scale):
                continue
            work = self._work[i]
            np.matmul(a.T if ta else a, b.T if tb else b, out=work)
            grads[i], flags[i] = work, True
        return grads, flags

    _apply.accepts_strided = True       # graph mode may pass gradients as strided views (copied first)
    _apply.accepts_scratch = True       # graph mode says which gradients are dead buffers (used as work)
    _apply.accepts_products = True      # graph mode may pass a weight gradient as its matmul's operands

    def _update(self, i, param, grad, lr):
        raise TypeError(f"{type(self).__name__} is an Optimizer subclass without an _update method; "
                        "define _update(i, param, grad, lr) to change param in place")

    def extend_repr(self):
        return f"learning_rate={self.learning_rate}, parameters={len(self.parameters)}"
