"""The cases of tests/test_transformer_layers.py, as data that both sides read.

Each case builds one layer with MindSpore's constructor arguments, sets every
Parameter (in ``get_parameters()`` order) to ``weight(shape, index)``, and calls
it on inputs made by ``make(spec)``. ``bench/ms_transformer_oracle.py`` runs the
same cases on real MindSpore 2.10 and prints the values that
``test_transformer_layers.py`` holds as literals. This module imports NumPy only.

Input specs: ``("x", shape, seed)`` a float32 ``sin`` pattern; ``("lit", dtype, values)``
an array written out; ``("same", name)`` the very Tensor of an earlier input
(so ``key is query``, as a self-attention call passes it).
"""

import numpy as np

E, H, FF = 8, 2, 16            # embed size, heads, feed-forward size
L, S, N = 3, 4, 2              # query length, key length, batch

BOOL_LS = [[False, True, False, False], [False, False, True, False], [True, False, False, True]]
BOOL_NS = [[False, False, False, True], [False, True, False, False]]
BOOL_LL = [[False, True, True], [False, False, True], [False, False, False]]      # causal, 3x3
FLOAT_LS = [[0.0, -1.5, 0.25, 0.5], [0.75, 0.0, -0.5, 1.0], [-0.25, 0.5, 0.0, -2.0]]
FLOAT_NS = [[0.0, 0.5, -1.0, 0.25], [1.5, 0.0, 0.0, -0.75]]
SPARSE_NS = [[0.0, 0.0, 0.0, 0.5], [0.0, 1.5, 0.0, 0.0]]           # nonzero = masked when or-ed with a bool mask
FLOAT_NHLS = np.round(np.sin(np.arange(N * H * L * S) * 1.3) * 2.0, 3).reshape(N * H, L, S).tolist()


def weight(shape, index):
    """The value every test gives the ``index``-th Parameter (float32)."""
    n = int(np.prod(shape)) if shape else 1
    return (0.35 * np.sin(0.37 * np.arange(n) + 0.9 * index + 0.3)).astype(np.float32).reshape(shape)


def make(spec):
    """A NumPy array from an input spec (``("same", name)`` is resolved by the caller)."""
    kind = spec[0]
    if kind == "x":
        shape, seed = spec[1], spec[2]
        n = int(np.prod(shape))
        return np.sin(0.9 * np.arange(n) + seed).astype(np.float32).reshape(shape)
    if kind == "lit":
        return np.array(spec[2], dtype=spec[1])
    raise ValueError(f"unknown input spec {spec!r}")


def _x(*shape, seed=0.0):
    return ("x", tuple(shape), seed)


# name -> (class name, constructor kwargs, inputs (name -> spec, in call order), call kwargs naming inputs)
# Positional inputs come first in the dict; "kw:" names are passed by keyword.
CASES = {
    "mha_self": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                 {"q": _x(L, N, E), "k": ("same", "q"), "v": ("same", "q")}, {}),
    "mha_self_batch_first_per_head": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, batch_first=True),
                                      {"q": _x(N, L, E), "k": ("same", "q"), "v": ("same", "q"),
                                       "kw:average_attn_weights": False}, {}),
    "mha_cross": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                  {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k")}, {}),
    "mha_qkv_apart": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                      {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": _x(S, N, E, seed=2.0)}, {}),
    "mha_bool_masks": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                       {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                        "kw:attn_mask": ("lit", "bool", BOOL_LS), "kw:key_padding_mask": ("lit", "bool", BOOL_NS)},
                       {}),
    "mha_float_masks": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                        {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                         "kw:attn_mask": ("lit", "float32", FLOAT_NHLS),
                         "kw:key_padding_mask": ("lit", "float32", FLOAT_NS)}, {}),
    "mha_float_attn_bool_padding": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                                    {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                                     "kw:attn_mask": ("lit", "float32", FLOAT_LS),
                                     "kw:key_padding_mask": ("lit", "bool", BOOL_NS)}, {}),
    "mha_bool_attn_float_padding": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                                    {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                                     "kw:attn_mask": ("lit", "bool", BOOL_LS),
                                     "kw:key_padding_mask": ("lit", "float32", SPARSE_NS)}, {}),
    "mha_uint8_mask": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                       {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                        "kw:attn_mask": ("lit", "uint8", np.array(BOOL_LS, np.uint8).tolist())}, {}),
    "mha_unbatched": ("MultiheadAttention", dict(embed_dim=E, num_heads=H),
                      {"q": _x(L, E), "k": _x(S, E, seed=1.0), "v": ("same", "k"),
                       "kw:attn_mask": ("lit", "float32", np.array(FLOAT_NHLS[:H])),
                       "kw:key_padding_mask": ("lit", "bool", BOOL_NS[0])}, {}),
    "mha_kdim_vdim": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, kdim=4, vdim=6),
                      {"q": _x(L, N, E), "k": _x(S, N, 4, seed=1.0), "v": _x(S, N, 6, seed=2.0),
                       "kw:key_padding_mask": ("lit", "bool", BOOL_NS)}, {}),
    "mha_bias_kv_zero_attn": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, add_bias_kv=True,
                                                         add_zero_attn=True),
                              {"q": _x(L, N, E), "k": _x(S, N, E, seed=1.0), "v": ("same", "k"),
                               "kw:attn_mask": ("lit", "bool", BOOL_LS),
                               "kw:key_padding_mask": ("lit", "bool", BOOL_NS)}, {}),
    "mha_bias_kv_batch_first": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, add_bias_kv=True,
                                                           batch_first=True),
                                {"q": _x(N, L, E), "k": _x(N, S, E, seed=1.0), "v": _x(N, S, E, seed=2.0)}, {}),
    "mha_no_bias_no_weights": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, has_bias=False),
                               {"q": _x(L, N, E), "k": ("same", "q"), "v": ("same", "q"),
                                "kw:need_weights": False}, {}),
    "encoder_layer_masks": ("TransformerEncoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF),
                            {"src": _x(L, N, E), "kw:src_mask": ("lit", "bool", BOOL_LL),
                             "kw:src_key_padding_mask": ("lit", "bool", [[False, False, True], [False, True, False]])},
                            {}),
    "encoder_layer_norm_first_gelu_batch_first": (
        "TransformerEncoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF, activation="gelu", norm_first=True,
                                        batch_first=True, layer_norm_eps=1e-6),
        {"src": _x(N, L, E), "kw:src_mask": ("lit", "float32", np.array(FLOAT_LS)[:, :L].tolist())}, {}),
    "encoder_layer_unbatched": ("TransformerEncoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF),
                                {"src": _x(L, E)}, {}),
    "decoder_layer_masks": ("TransformerDecoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF),
                            {"tgt": _x(L, N, E), "memory": _x(S, N, E, seed=1.0),
                             "kw:tgt_mask": ("lit", "bool", BOOL_LL),
                             "kw:memory_key_padding_mask": ("lit", "bool", BOOL_NS)}, {}),
    "decoder_layer_norm_first_gelu_batch_first": (
        "TransformerDecoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF, activation="gelu", norm_first=True,
                                        batch_first=True),
        {"tgt": _x(N, L, E), "memory": _x(N, S, E, seed=1.0),
         "kw:memory_mask": ("lit", "float32", FLOAT_LS)}, {}),
    "encoder_stack": ("TransformerEncoder", dict(num_layers=2, norm=True, d_model=E, nhead=H, dim_feedforward=FF),
                      {"src": _x(L, N, E), "kw:src_key_padding_mask": ("lit", "bool",
                                                                       [[False, False, True], [False, True, False]])},
                      {}),
    "decoder_stack": ("TransformerDecoder", dict(num_layers=2, norm=True, d_model=E, nhead=H, dim_feedforward=FF),
                      {"tgt": _x(L, N, E), "memory": _x(S, N, E, seed=1.0),
                       "kw:tgt_mask": ("lit", "bool", BOOL_LL)}, {}),
    "transformer": ("Transformer", dict(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=1,
                                        dim_feedforward=FF, batch_first=True),
                    {"src": _x(N, S, E), "tgt": _x(N, L, E, seed=1.0), "kw:tgt_mask": ("lit", "bool", BOOL_LL),
                     "kw:memory_key_padding_mask": ("lit", "bool", BOOL_NS)}, {}),
}

# cases whose gradients are pinned too: d(sum(output * weight(out shape, 99)))/d(inputs named, every Parameter)
GRAD_CASES = {"mha_float_masks": ("q", "kw:attn_mask", "kw:key_padding_mask"),
              "encoder_layer_masks": ("src",)}


def build(nn, name):
    """The layer of case ``name`` from the ``nn`` namespace (MindSpore's or mscustom's), in eval mode."""
    cls, kwargs, _, _ = CASES[name]
    kwargs = dict(kwargs)
    if cls in ("TransformerEncoder", "TransformerDecoder"):
        layer_cls = nn.TransformerEncoderLayer if cls == "TransformerEncoder" else nn.TransformerDecoderLayer
        num_layers, norm = kwargs.pop("num_layers"), kwargs.pop("norm")
        layer = layer_cls(**kwargs)
        net = getattr(nn, cls)(layer, num_layers, nn.LayerNorm((kwargs["d_model"],)) if norm else None)
    else:
        net = getattr(nn, cls)(**kwargs)
    net.set_train(False)
    return net


def inputs(Tensor, name):
    """(positional args, keyword args) of case ``name`` as ``Tensor``s (the same object where "same")."""
    _, _, specs, _ = CASES[name]
    made, args, kwargs = {}, [], {}
    for key, spec in specs.items():
        if isinstance(spec, tuple) and spec and spec[0] == "same":
            value = made[spec[1]]
        elif isinstance(spec, tuple) and spec and spec[0] in ("x", "lit"):
            value = Tensor(make(spec))
        else:
            value = spec                  # a plain Python value (need_weights=False ...)
        made[key] = value
        if key.startswith("kw:"):
            kwargs[key[3:]] = value
        else:
            args.append(value)
    return args, kwargs, made
