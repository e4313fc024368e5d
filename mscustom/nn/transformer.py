"""MindSpore's attention and Transformer layers: ``MultiheadAttention``, ``TransformerEncoderLayer``,
``TransformerEncoder``, ``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer``.

Signatures, defaults, parameter names and shapes are MindSpore 2.10's, so its
checkpoints of these layers load (``in_proj_weight (3E, E)``, ``in_proj_bias``,
``out_proj.weight``, ``dense1``/``dense2``, ``norm1.gamma`` ...). The attention
itself is one fused op (``ops.nn.attention``): the in-projection of a
self-attention gives one ``(L, N, 3E)`` array (``(N, L, 3E)`` with
``batch_first``), the op reads the heads' queries, keys and values as views of
it and writes its output in the layout the out-projection takes, so no head
split or merge is copied; its gradient is one op writing one ``(L, N, 3E)``
array.

Masks follow MindSpore: ``attn_mask`` (L, S) or (N * num_heads, L, S), bool
(True masks a position out; uint8 counts as bool) or float (added to the
scores); ``key_padding_mask`` (N, S), bool or float. With both given, a bool
``attn_mask`` is or-ed with the key padding mask (any nonzero element masks),
a float one has the key padding mask added (a bool one adds 1.0, as MindSpore
does). A row with every key masked gives NaN (MindSpore's CPU kernel gives
unspecified values there).

Differences from MindSpore, on purpose: ``activation`` accepts the instances
``nn.ReLU()`` / ``nn.GELU()`` that MindSpore's documentation lists (its code
refuses them); a float mask of another float dtype than the inputs is used as
it is (MindSpore refuses float64 masks with float32 inputs).

Example::

    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True)
    y = layer(ms.Tensor(np.random.rand(2, 5, 16).astype(np.float32)))      # (2, 5, 16)
"""

import copy
import math

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..ops import functional as F
from .._core.tape import STATE as _STATE
from ..ops.nn.attention import attention
from ..ops.nn.layer_norm_last import layer_norm_last
from ..ops.math.elementwise import matmul_t
from ..tensor import Parameter, Tensor
from . import init as _init
from .activation import GELU
from .cell import Cell, CellList
from .layers import Dense, Dropout, ReLU
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]


def _linear(x, w, b):
    """``x @ w.T + b`` (one op; ``b`` may be None)."""
    return ops.dense(x, w, b) if b is not None else matmul_t(x, w, transpose_b=True)


def _rows(t, start, stop):
    """Rows ``start:stop`` of a weight or bias (None stays None)."""
    return None if t is None else F.getitem(t, slice(start, stop))


def _is_float(t):
    return t._data.dtype.kind == "f"


def _norm(cell, x):
    """``cell(x)``; a plain ``nn.LayerNorm((C,))`` over ``x``'s last axis runs as one fused op.

    The fused op (``ops/nn/layer_norm_last.py``) computes what the LayerNorm's composed ops
    compute, in two passes each way instead of about thirty; a LayerNorm with other axes, another
    dtype, mixed precision, a declared input signature or a subclass is called as it is.
    """
    if type(cell) is LayerNorm and cell._mixed_dtype is None and cell._input_signature is None and \
            cell.begin_norm_axis == -1 and cell.begin_params_axis == -1 and len(cell.normalized_shape) == 1 and \
            isinstance(x, Tensor) and x.ndim >= 1 and x.shape[-1] == cell.normalized_shape[0] and \
            x.dtype == cell.gamma.dtype == cell.beta.dtype and _is_float(x):
        cap = _STATE.capture
        if cap is not None:             # a graph record depends on this Cell, as when it is called
            cap.cells.append(cell)
        return layer_norm_last(x, cell.gamma, cell.beta, cell.epsilon)
    return cell(x)


def _pad_column(mask):
    """``mask`` with one more column of zeros (False) at the end, as MindSpore pads masks for bias_k / zero_attn."""
    zeros = Tensor(np.zeros(mask.shape[:-1] + (1,), mask._data.dtype))
    return ops.concat((mask, zeros), -1)


class MultiheadAttention(Cell):
    """Multi-head attention (MindSpore's ``nn.MultiheadAttention``).

    ``embed_dim`` is split over ``num_heads`` heads. ``dropout`` drops attention
    weights in training mode. ``kdim``/``vdim`` other than ``embed_dim`` give
    separate ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` instead of the
    packed ``in_proj_weight``. ``add_bias_kv`` appends learned ``bias_k``/
    ``bias_v`` rows to the keys and values, ``add_zero_attn`` a row of zeros.
    Inputs are ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched
    ``(L, E)``.

    ``construct(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True)`` returns ``(output, weights)``,
    or ``(output,)`` when ``need_weights`` is False; the weights are averaged over
    the heads ``(N, L, S)`` unless ``average_attn_weights`` is False
    ``(N, num_heads, L, S)``.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=_dt.float32):
        super().__init__()
        for what, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"MultiheadAttention: {what} must be a positive int, got {v!r}")
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout < 1:
            raise ValueError(f"MultiheadAttention: dropout must be in [0, 1), got {dropout!r}")
        dtype = _dt.float32 if dtype is None else dtype
        self.embed_dim = int(embed_dim)
        self.kdim = int(kdim) if kdim is not None else self.embed_dim
        self.vdim = int(vdim) if vdim is not None else self.embed_dim
        self._qkv_same_embed_dim = self.kdim == self.embed_dim and self.vdim == self.embed_dim
        self.num_heads = int(num_heads)
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.head_dim = self.embed_dim // self.num_heads
        if self.head_dim * self.num_heads != self.embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        e = self.embed_dim
        xavier = _init.XavierUniform()
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_init.initializer(xavier, (3 * e, e), dtype), "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(_init.initializer(xavier, (e, e), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(_init.initializer(xavier, (e, self.kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(_init.initializer(xavier, (e, self.vdim), dtype), "v_proj_weight")
            self.in_proj_weight = None
        if has_bias:
            self.in_proj_bias = Parameter(_init.initializer("zeros", (3 * e,), dtype), "in_proj_bias")
        else:
            self.in_proj_bias = None
        self.out_proj = Dense(e, e, has_bias=has_bias, weight_init=_init.HeUniform(math.sqrt(5)),
                              bias_init=_init.Uniform(1 / math.sqrt(e)), dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_init.initializer(_init.XavierNormal(), (1, 1, e), dtype), "bias_k")
            self.bias_v = Parameter(_init.initializer(_init.XavierNormal(), (1, 1, e), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = bool(add_zero_attn)
        self.dtype = dtype

    def extend_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, "
                f"batch_first={self.batch_first}")

    # ------------------------------------------------------------------ checks
    def _check(self, query, key, value, key_padding_mask, attn_mask):
        for what, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention: {what} must be a Tensor, got {type(t).__name__}")
        qn, kn, vn = query.ndim, key.ndim, value.ndim
        if qn == 3:
            if kn != 3 or vn != 3:
                raise ValueError(f"For batched `query`, the `key` and `value` must be 3D tensor, "
                                 f"but got `key` with {kn}D and `value` with {vn}D.")
        elif qn == 2:
            if kn != 2 or vn != 2:
                raise ValueError(f"For unbatched `query`, the `key` and `value` must be 2D tensor, "
                                 f"but got `key` with {kn}D and `value` with {vn}D.")
        else:
            raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, "
                             f"but got `query` with {qn}D.")
        if key_padding_mask is not None:
            if not isinstance(key_padding_mask, Tensor):
                raise TypeError(f"MultiheadAttention: key_padding_mask must be a Tensor, got "
                                f"{type(key_padding_mask).__name__}")
            if key_padding_mask.dtype != _dt.bool_ and not _is_float(key_padding_mask):
                raise ValueError("only bool and floating types of key_padding_mask are supported")
            want = 2 if qn == 3 else 1
            if key_padding_mask.ndim != want:
                raise ValueError(f"For {'batched' if qn == 3 else 'unbatched'} `query`, the `key_padding_mask` "
                                 f"must be `None` or {want}D, but got `key_padding_mask` with "
                                 f"{key_padding_mask.ndim}D.")
        if attn_mask is not None:
            if not isinstance(attn_mask, Tensor):
                raise TypeError(f"MultiheadAttention: attn_mask must be a Tensor, got {type(attn_mask).__name__}")
            d = attn_mask._data.dtype
            if d != np.bool_ and d != np.uint8 and d.kind != "f":
                raise ValueError(f"`attn_mask` only support float, byte, and bool types, "
                                 f"but got not {attn_mask.dtype}.")
            if attn_mask.ndim not in (2, 3):
                raise ValueError(f"For {'batched' if qn == 3 else 'unbatched'} `query`, the `attn_mask` must be "
                                 f"`None`, 2-D or 3-D, but got `attn_mask` with{attn_mask.ndim}D.")

    # ------------------------------------------------------------------ forward
    def _project(self, query, key, value):
        """(sources, cols, k and v apart): the projections the attention op reads its q, k, v from."""
        e = self.embed_dim
        b = self.in_proj_bias
        if not self._qkv_same_embed_dim:
            bq, bk, bv = (_rows(b, 0, e), _rows(b, e, 2 * e), _rows(b, 2 * e, 3 * e))
            return [_linear(query, self.q_proj_weight, bq), _linear(key, self.k_proj_weight, bk),
                    _linear(value, self.v_proj_weight, bv)], ((0, 0, e), (1, 0, e), (2, 0, e))
        w = self.in_proj_weight
        apart = self.bias_k is not None or self.add_zero_attn      # keys and values get rows appended
        if not apart and key is value:
            if query is key:                # self-attention: one (L, N, 3E) projection
                return [_linear(query, w, b)], ((0, 0, e), (0, e, 2 * e), (0, 2 * e, 3 * e))
            return [_linear(query, _rows(w, 0, e), _rows(b, 0, e)),
                    _linear(key, _rows(w, e, 3 * e), _rows(b, e, 3 * e))], ((0, 0, e), (1, 0, e), (1, e, 2 * e))
        return [_linear(query, _rows(w, 0, e), _rows(b, 0, e)), _linear(key, _rows(w, e, 2 * e), _rows(b, e, 2 * e)),
                _linear(value, _rows(w, 2 * e, 3 * e), _rows(b, 2 * e, 3 * e))], ((0, 0, e), (1, 0, e), (2, 0, e))

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        self._check(query, key, value, key_padding_mask, attn_mask)
        batched = query.ndim == 3
        if not batched:                     # one sequence: a batch of one, sequence-first
            same_k, same_v, kv = key is query, value is query, value is key
            query = F.reshape(query, (query.shape[0], 1, query.shape[1]))
            key = query if same_k else F.reshape(key, (key.shape[0], 1, key.shape[1]))
            value = query if same_v else key if kv else F.reshape(value, (value.shape[0], 1, value.shape[1]))
            if key_padding_mask is not None:
                key_padding_mask = F.reshape(key_padding_mask, (1,) + tuple(key_padding_mask.shape))
        layout = "nle" if self.batch_first and batched else "lne"
        seq = 0 if layout == "lne" else 1
        tgt_len, bsz, embed = query.shape[seq], query.shape[1 - seq], query.shape[2]
        src_len = key.shape[seq]
        if embed != self.embed_dim:
            raise ValueError(f"The `embed_dim` should be {self.embed_dim}, but got {embed}.")
        if self._qkv_same_embed_dim:
            if key.shape != value.shape:
                raise ValueError(f"The shape of `key` {key.shape} does not match `value` {value.shape}.")
        elif key.shape[:2] != value.shape[:2]:
            raise ValueError(f"The sequence length and batch dims of `key`: {key.shape[:2]} do not match "
                             f"`value`: {value.shape[:2]}.")
        if key.shape[1 - seq] != bsz:
            raise ValueError(f"MultiheadAttention: query and key must have the same batch size, got {bsz} and "
                             f"{key.shape[1 - seq]}")
        h = self.num_heads
        if attn_mask is not None:
            if attn_mask.ndim == 2 and attn_mask.shape != (tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, "
                                 f"but got {attn_mask.shape}.")
            if attn_mask.ndim == 3 and attn_mask.shape != (bsz * h, tgt_len, src_len):
                if batched:
                    raise ValueError(f"The shape of the `attn_mask` should be {(bsz * h, tgt_len, src_len)}, "
                                     f"but got {attn_mask.shape}.")
                raise ValueError(f"The shape of `attn_mask` must to be {(h, tgt_len, src_len)}, "
                                 f"but got {attn_mask.shape}.")
        sources, cols = self._project(query, key, value)
        if self.bias_k is not None or self.add_zero_attn:
            sources, attn_mask, key_padding_mask = self._extend_keys(sources, seq, bsz, attn_mask, key_padding_mask)
            src_len = sources[1].shape[seq]
        if key_padding_mask is not None and key_padding_mask.shape != (bsz, src_len):
            raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, "
                             f"but got {key_padding_mask.shape}.")
        out, weights = attention(sources, cols, h, layout, self._masks(attn_mask, key_padding_mask, bsz),
                                 None, self.dropout if self.training else 0.0, weights_grad=bool(need_weights))
        out = _linear(out, self.out_proj.weight, self.out_proj.bias)
        if not batched:
            out = F.reshape(out, (tgt_len, self.embed_dim))
        if not need_weights:
            return (out,)
        if average_attn_weights:
            weights = F.div(F.reduce_sum(weights, 1), float(h))
        if not batched:
            weights = F.reshape(weights, weights.shape[1:])
        return out, weights

    def _extend_keys(self, sources, seq, bsz, attn_mask, key_padding_mask):
        """Append ``bias_k``/``bias_v`` rows, then a zero row, to the projected keys and values (and masks)."""
        q, k, v = sources
        if self.bias_k is not None:
            rep = (1, bsz, 1) if seq == 0 else (bsz, 1, 1)
            bk, bv = self.bias_k, self.bias_v
            if seq == 1:
                bk, bv = F.reshape(bk, (1, 1, -1)), F.reshape(bv, (1, 1, -1))
            k = ops.concat((k, ops.tile(bk, rep)), seq)
            v = ops.concat((v, ops.tile(bv, rep)), seq)
            attn_mask = None if attn_mask is None else _pad_column(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_column(key_padding_mask)
        if self.add_zero_attn:
            shape = list(k.shape)
            shape[seq] = 1
            k = ops.concat((k, Tensor(np.zeros(shape, k._data.dtype))), seq)
            shape = list(v.shape)
            shape[seq] = 1
            v = ops.concat((v, Tensor(np.zeros(shape, v._data.dtype))), seq)
            attn_mask = None if attn_mask is None else _pad_column(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_column(key_padding_mask)
        return [q, k, v], attn_mask, key_padding_mask

    def _masks(self, attn_mask, key_padding_mask, bsz):
        """The masks as the attention op takes them: (tensor, mode, view shape), with MindSpore's merge rule."""
        masks = []
        h = self.num_heads
        add = attn_mask is not None and _is_float(attn_mask)
        if attn_mask is not None:
            view = None if attn_mask.ndim == 2 else (bsz, h) + tuple(attn_mask.shape[1:])
            masks.append((attn_mask, "add" if add else "fill", view))
        if key_padding_mask is not None:
            # alone: bool masks, float adds; with a bool attn_mask: or-ed (nonzero masks); with a float one: added
            kadd = add if attn_mask is not None else _is_float(key_padding_mask)
            masks.append((key_padding_mask, "add" if kadd else "fill", (bsz, 1, 1, key_padding_mask.shape[1])))
        return masks


# ------------------------------------------------------------------ encoder and decoder layers
def _activation(activation):
    """The activation function of a Transformer layer: "relu"/"gelu", ops.relu/ops.gelu, nn.ReLU()/nn.GELU()."""
    if not isinstance(activation, (str, Cell)) and not callable(activation):
        raise ValueError(f"The argument 'activation' must be str, callable or Cell instance,"
                         f" but get {activation}.")
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise ValueError(f"The argument 'activation' must be nn.ReLU or nn.GELU instance,"
                             f" but get {activation}.")
        return activation
    if isinstance(activation, str):
        if activation == "relu":
            return ops.relu
        if activation == "gelu":
            return ops.gelu
        raise ValueError(f"The activation must be relu/gelu, but get {activation}")
    if activation is not ops.relu and activation is not ops.gelu:
        raise ValueError(f"The argument 'activation' must be ops.relu or ops.gelu instance,"
                         f" but get {activation}.")
    return activation


def _feedforward(cell, d_model, dim_feedforward, dtype):
    cell.dense1 = Dense(d_model, dim_feedforward, weight_init=_init.HeUniform(math.sqrt(5)),
                        bias_init=_init.Uniform(1 / math.sqrt(d_model)), dtype=dtype)
    cell.dropout = Dropout(p=cell.dropout_num)
    cell.dense2 = Dense(dim_feedforward, d_model, weight_init=_init.HeUniform(math.sqrt(5)),
                        bias_init=_init.Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)


def _check_padding_mask(mask):
    if mask is not None and mask.dtype != _dt.bool_ and not _is_float(mask):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class _LayerConfig(Cell):
    """The configuration every Transformer layer keeps (MindSpore's attribute names: TransformerEncoder
    rebuilds its layers from them)."""

    def _configure(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                   norm_first, dtype):
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout < 1:
            raise ValueError(f"{type(self).__name__}: dropout must be in [0, 1), got {dropout!r}")
        self.activation1 = activation
        self.activation = _activation(activation)
        self.d_model = d_model
        self.nhead = nhead
        self.dim_feedforward = dim_feedforward
        self.dropout_num = dropout
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.norm_first = norm_first
        self.dtype = dtype


class TransformerEncoderLayer(_LayerConfig):
    """One encoder layer: self-attention, then a feed-forward block, each with a residual and a LayerNorm
    (after them, or before with ``norm_first``). MindSpore's ``nn.TransformerEncoderLayer``.

    ``construct(src, src_mask=None, src_key_padding_mask=None)``; ``src`` is
    ``(S, N, E)`` (``(N, S, E)`` with ``batch_first``) or ``(S, E)``.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=_dt.float32):
        super().__init__()
        self._configure(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                        norm_first, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        _feedforward(self, d_model, dim_feedforward, dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)

    def _ff_block(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(_norm(self.norm1, x), src_mask, src_key_padding_mask)
            return x + self._ff_block(_norm(self.norm2, x))
        x = _norm(self.norm1, x + self._sa_block(x, src_mask, src_key_padding_mask))
        return _norm(self.norm2, x + self._ff_block(x))


class TransformerDecoderLayer(_LayerConfig):
    """One decoder layer: self-attention, attention over the encoder's ``memory``, a feed-forward block,
    each with a residual and a LayerNorm. MindSpore's ``nn.TransformerDecoderLayer``.

    ``construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=_dt.float32):
        super().__init__()
        self._configure(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                        norm_first, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        _feedforward(self, d_model, dim_feedforward, dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)

    def _ff_block(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(_norm(self.norm1, x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(_norm(self.norm2, x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff_block(_norm(self.norm3, x))
        x = _norm(self.norm1, x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = _norm(self.norm2, x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return _norm(self.norm3, x + self._ff_block(x))


# ------------------------------------------------------------------ stacks
_CONFIG = ("d_model", "nhead", "dim_feedforward", "dropout_num", "activation1", "layernorm_eps", "batch_first",
           "norm_first", "dtype")


def _stack(layer_cls, layer, num_layers, what):
    if not isinstance(num_layers, (int, np.integer)) or isinstance(num_layers, bool) or num_layers < 0:
        raise ValueError(f"{what}: num_layers must be a non-negative int, got {num_layers!r}")
    missing = [a for a in _CONFIG if not hasattr(layer, a)]
    if missing:
        raise TypeError(f"{what}: the layer must be a {layer_cls.__name__} (or have its configuration "
                        f"attributes), got {type(layer).__name__} without {missing}")
    # as MindSpore: a fresh layer of the same configuration, copied num_layers times (the given layer's
    # weights are not used; the copies start equal)
    config = [getattr(layer, a) for a in _CONFIG]
    fresh = layer_cls(*config[:-1], dtype=config[-1])
    return CellList([copy.deepcopy(fresh) for _ in range(int(num_layers))])


class TransformerEncoder(Cell):
    """``num_layers`` encoder layers of ``encoder_layer``'s configuration, then ``norm`` when given.
    MindSpore's ``nn.TransformerEncoder``: the layers are copies of one fresh layer (``encoder_layer``'s
    own weights are not used).

    ``construct(src, src_mask=None, src_key_padding_mask=None)``.
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(TransformerEncoderLayer, encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = int(num_layers)
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = _norm(self.norm, out)
        return out


class TransformerDecoder(Cell):
    """``num_layers`` decoder layers of ``decoder_layer``'s configuration, then ``norm`` when given.
    MindSpore's ``nn.TransformerDecoder`` (the layers are copies of one fresh layer).

    ``construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``.
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(TransformerDecoderLayer, decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = int(num_layers)
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            out = _norm(self.norm, out)
        return out


class Transformer(Cell):
    """An encoder and a decoder stack, each followed by a LayerNorm (MindSpore's ``nn.Transformer``).

    Every weight of rank 2 or more is initialized Xavier-uniform after the
    layers are built, as MindSpore does. ``construct(src, tgt, src_mask=None,
    tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)``.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=_dt.float32):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(_init.initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        if src.ndim == 3 and tgt.ndim == 3:
            axis = 0 if self.batch_first else 1
            if src.shape[axis] != tgt.shape[axis]:
                raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to `d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
