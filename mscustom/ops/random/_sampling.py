"""Random sampling with MindSpore 2.10's names: ``rand``, ``randn``, ``randint`` (and their ``*_like``),
``normal``, ``laplace``, ``standard_laplace``, ``random_gamma``, ``random_poisson``, ``bernoulli``,
``multinomial``, ``multinomial_with_replacement``, ``random_categorical``, ``randperm``, ``shuffle``,
``choice_with_mask``, ``uniform_candidate_sampler``, ``log_uniform_candidate_sampler``.

Numbers come from ``ms.set_seed``'s generator; a call given its own ``seed`` draws from a generator
keyed by that seed and the global seed, so a program that sets both repeats its numbers (the values
are not MindSpore's: its generator is another). Draws are host ops, so graph-mode replays draw anew.
"""

import math

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ... import dtype as _dt
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg

_SEEDED = {}            # seed -> (the global generator it was made under, the generator of calls given that seed)


def _generator(seed):
    """The NumPy Generator a call draws from."""
    from ...nn.init import get_seed, rng
    glob = rng()
    if seed is None:
        return glob
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    made = _SEEDED.get(int(seed))
    if made is None or made[0] is not glob:         # set_seed made a new global generator: start afresh
        if len(_SEEDED) > 256:
            _SEEDED.clear()
        made = _SEEDED[int(seed)] = (glob, np.random.default_rng([int(seed), get_seed() or 0]))
    return made[1]


def _draw(make, *tensors):
    """A Tensor from ``make(*arrays)`` (a NumPy array from the arrays of ``tensors``), drawn as a host op:
    a graph replay draws again, from that call's values of ``tensors``."""
    return _capture.host_op(lambda *arrays: (np.array(make(*arrays), order="C"),), tensors, Tensor._wrap)[0]


def _shape(size, name):
    if isinstance(size, Tensor):
        size = tuple(int(v) for v in size._data.reshape(-1))
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (int(size),)
    if not isinstance(size, (tuple, list)) or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                      and s >= 0 for s in size):
        raise TypeError(f"op '{name}': shape must be a tuple of non-negative ints, got {size!r}")
    return tuple(int(s) for s in size)


def _sizes(size, name):
    if not size:            # no size at all: one sample of shape (1,), as MindSpore (an empty tuple gives a 0-d one)
        return (1,)
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    return _shape(tuple(size), name)


def _float_dtype(dtype, name, default=_dt.float32):
    d = default if dtype is None else _dt.dtype_from_any(dtype)
    if not _dt.is_floating(d):
        raise TypeError(f"op '{name}': dtype must be a float type, got {d}")
    return d


def _value(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


# ================================================================== uniform / normal / integers
def rand(*size, dtype=None, seed=None):
    """Uniform samples in [0, 1) of shape ``size`` (ints or one tuple), float32 unless ``dtype``."""
    shape = _sizes(size, "rand")
    d = _float_dtype(dtype, "rand").np_dtype
    return _draw(lambda: _generator(seed).random(shape).astype(d))


def rand_like(input, seed=None, *, dtype=None):  # noqa: A002 - MindSpore's names
    """``rand`` with ``input``'s shape (and dtype unless ``dtype``)."""
    x = tensor_arg(input, "rand_like")
    return rand(tuple(x.shape), dtype=x.dtype if dtype is None else dtype, seed=seed)


def randn(*size, dtype=None, seed=None):
    """Standard normal samples of shape ``size``, float32 unless ``dtype``."""
    shape = _sizes(size, "randn")
    d = _float_dtype(dtype, "randn").np_dtype
    return _draw(lambda: _generator(seed).standard_normal(shape).astype(d))


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002
    """``randn`` with ``input``'s shape (and dtype unless ``dtype``)."""
    x = tensor_arg(input, "randn_like")
    return randn(tuple(x.shape), dtype=x.dtype if dtype is None else dtype, seed=seed)


def _int_dtype(dtype, name, default=_dt.int64):
    d = default if dtype is None else _dt.dtype_from_any(dtype)
    if d.np_dtype.kind not in "iu":
        raise ValueError(f"op '{name}': dtype must be an int type, got {d}")
    return d


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform in ``[low, high)`` of shape ``size``, int64 unless ``dtype``."""
    for v in (low, high):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"op 'randint': low and high must be ints, got {low!r} and {high!r}")
    if not low < high:
        raise ValueError(f"op 'randint': low must be less than high, got {low} and {high}")
    shape = _shape(size, "randint")
    d = _int_dtype(dtype, "randint").np_dtype
    return _draw(lambda: _generator(seed).integers(low, high, shape).astype(d))


def randint_like(input, low, high, seed=None, *, dtype=None):  # noqa: A002
    """``randint`` with ``input``'s shape (and its integer dtype unless ``dtype``)."""
    x = tensor_arg(input, "randint_like")
    return randint(low, high, tuple(x.shape), seed, dtype=_int_dtype(x.dtype if dtype is None else dtype,
                                                                      "randint_like"))


def _dist_params(name, shape, *params):
    """The output shape (``shape`` broadcast with the parameters') and the parameters as arrays."""
    shape = _shape(shape, name)
    arrays = [_value(p).astype(np.float64) for p in params]
    try:
        out = np.broadcast_shapes(shape, *(a.shape for a in arrays))
    except ValueError:
        raise ValueError(f"op '{name}': shape {list(shape)} and the parameters' shapes "
                         f"{[list(a.shape) for a in arrays]} do not broadcast") from None
    return out, arrays


def normal(shape, mean, stddev, seed=None):
    """Normal samples ``mean + stddev * N(0, 1)`` of ``shape`` broadcast with the parameters'; float32."""
    out, (m, s) = _dist_params("normal", shape, mean, stddev)
    return _draw(lambda: (m + s * _generator(seed).standard_normal(out)).astype(np.float32))


def laplace(shape, mean, lambda_param, seed=None):
    """Laplace samples with location ``mean`` and scale ``lambda_param``; float32."""
    out, (m, b) = _dist_params("laplace", shape, mean, lambda_param)
    return _draw(lambda: _generator(seed).laplace(m, b, out).astype(np.float32))


def standard_laplace(shape, seed=None):
    """Laplace(0, 1) samples of ``shape``; float32."""
    shape = _shape(shape, "standard_laplace")
    return _draw(lambda: _generator(seed).laplace(0.0, 1.0, shape).astype(np.float32))


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) samples of shape ``shape + alpha.shape`` (``alpha``'s float dtype)."""
    a = tensor_arg(alpha, "random_gamma")
    if a._data.dtype.kind != "f":
        raise TypeError(f"op 'random_gamma': alpha must be a float tensor, got {a.dtype}")
    lead = _shape(shape, "random_gamma")
    return _draw(lambda alpha: _generator(seed).gamma(np.broadcast_to(alpha, lead + alpha.shape).astype(np.float64)
                                                      ).astype(alpha.dtype), a)


def random_poisson(shape, rate, seed=None, dtype=_dt.float32):
    """Poisson(rate) samples of shape ``shape + rate.shape``, in ``dtype``."""
    r = tensor_arg(rate, "random_poisson")
    lead = _shape(shape, "random_poisson")
    d = _dt.dtype_from_any(dtype).np_dtype
    return _draw(lambda rate: _generator(seed).poisson(np.broadcast_to(rate.astype(np.float64),
                                                                        lead + rate.shape)).astype(d), r)


# ================================================================== discrete
def bernoulli(input, p=0.5, seed=None):  # noqa: A002
    """0/1 samples with probability ``p`` (a float or a Tensor broadcast to ``input``), in ``input``'s
    shape and dtype."""
    x = tensor_arg(input, "bernoulli")
    pv = _value(p).astype(np.float64)
    if np.any((pv < 0) | (pv > 1)):
        raise ValueError(f"op 'bernoulli': p must be in [0, 1], got {p!r}")
    shape, d = tuple(x.shape), x._data.dtype
    if isinstance(p, Tensor):        # a replay reads that call's p
        return _draw(lambda pa: (_generator(seed).random(shape) < pa.astype(np.float64)).astype(d), p)
    return _draw(lambda: (_generator(seed).random(shape) < pv).astype(d))


def _categorical(probs, num, replacement, gen):
    """Row-wise samples of category indices (probabilities need not be normalized)."""
    out = np.zeros((probs.shape[0], num), np.int64)
    for i, row in enumerate(probs):
        total = row.sum()
        pr = row / total if total > 0 else np.full_like(row, 1.0 / len(row))
        if replacement:
            out[i] = np.minimum(np.searchsorted(np.cumsum(pr), gen.random(num), side="right"), len(row) - 1)
        else:
            out[i] = gen.choice(len(row), num, replace=False, p=pr)
    return out


def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """``num_samples`` category indices per row of the (unnormalized) probabilities ``input`` (1-D or
    2-D); int32."""
    x = tensor_arg(input, "multinomial")
    if x.ndim not in (1, 2):
        raise ValueError(f"op 'multinomial': input must be 1-D or 2-D, got shape {list(x.shape)}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples <= 0:
        raise ValueError(f"op 'multinomial': num_samples must be a positive int, got {num_samples!r}")
    probs = x._data.reshape((-1, x.shape[-1])).astype(np.float64)
    if np.any(probs < 0):
        raise ValueError("op 'multinomial': probabilities must be non-negative")
    if not replacement:
        if num_samples > x.shape[-1]:
            raise ValueError(f"op 'multinomial': num_samples ({num_samples}) must not exceed the number of "
                             f"categories ({x.shape[-1]}) without replacement")
        if np.any((probs > 0).sum(-1) < num_samples):
            raise ValueError("op 'multinomial': too few non-zero probabilities to sample without replacement")
    out_shape = tuple(x.shape[:-1]) + (int(num_samples),)
    return _draw(lambda a: _categorical(a.reshape((-1, a.shape[-1])).astype(np.float64), int(num_samples),
                                        replacement, _generator(seed)).reshape(out_shape).astype(np.int32), x)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """``multinomial`` with seed and offset Tensors (their sum keys the generator); int64."""
    t = tensor_arg(x, "multinomial_with_replacement")
    s = int(_value(seed).reshape(-1)[0]) + int(_value(offset).reshape(-1)[0])
    out = multinomial(t, numsamples, replacement, s if s else None)
    return F.cast(out, _dt.int64)


def random_categorical(logits, num_sample, seed=0, dtype=_dt.int64):
    """``num_sample`` category indices per row of the 2-D ``logits`` (log-probabilities), in ``dtype``."""
    x = tensor_arg(logits, "random_categorical")
    if x.ndim != 2:
        raise ValueError(f"op 'random_categorical': logits must be 2-D, got shape {list(x.shape)}")
    d = _int_dtype(dtype, "random_categorical").np_dtype
    def draw(logit_values):
        lg = logit_values.astype(np.float64)
        return _categorical(np.exp(lg - lg.max(-1, keepdims=True)), int(num_sample), True,
                            _generator(seed or None)).astype(d)
    return _draw(draw, x)


def randperm(n, seed=0, offset=0, dtype=_dt.int64):
    """A random permutation of ``0 .. n-1`` in ``dtype``."""
    if isinstance(n, Tensor):
        n = int(n.item())
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"op 'randperm': n must be a non-negative int, got {n!r}")
    d = _int_dtype(dtype, "randperm").np_dtype
    key = (seed + offset) or None
    return _draw(lambda: _generator(key).permutation(int(n)).astype(d))


def shuffle(x, seed=None):
    """``x`` with its first axis randomly permuted (differentiable: a gather)."""
    t = tensor_arg(x, "shuffle")
    if t.ndim == 0:
        return t
    perm = _draw(lambda: _generator(seed).permutation(t.shape[0]).astype(np.int64))
    return t[perm]


def choice_with_mask(input_x, count=256, seed=None):
    """``count`` random positions of the True elements of the bool ``input_x``: indices (count, rank)
    int32 and a mask (count,) telling the real picks from the zero padding."""
    x = tensor_arg(input_x, "choice_with_mask")
    if x._data.dtype != np.bool_ or not 1 <= x.ndim <= 5:
        raise TypeError(f"op 'choice_with_mask': input_x must be a bool tensor of rank 1 to 5, got {x.dtype} "
                        f"{list(x.shape)}")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count <= 0:
        raise ValueError(f"op 'choice_with_mask': count must be a positive int, got {count!r}")
    def make(a):                     # a host op: a replay picks from that call's True elements
        where = np.argwhere(a)
        picks = where[_generator(seed).permutation(len(where))[:count]]
        idx = np.zeros((count, x.ndim), np.int32)
        idx[:len(picks)] = picks
        return idx, np.arange(count) < min(len(where), count)
    idx, mask = _capture.host_op(make, (x,), Tensor._wrap)
    return idx, mask


# ================================================================== candidate samplers
def _candidates(name, true_classes, num_true, num_sampled, unique, range_max, seed, prob):
    t = tensor_arg(true_classes, name)
    if t.ndim != 2 or t.shape[1] != num_true:
        raise ValueError(f"op '{name}': true_classes must be (batch, num_true={num_true}), got shape "
                         f"{list(t.shape)}")
    if unique and num_sampled > range_max:
        raise ValueError(f"op '{name}': num_sampled ({num_sampled}) must not exceed range_max ({range_max}) "
                         f"when unique")
    p_all = prob(np.arange(range_max))

    def make():
        gen = _generator(seed or None)
        if not unique:
            return gen.choice(range_max, num_sampled, p=p_all).astype(np.int64), float(num_sampled)
        picked, seen, tries = [], set(), 0
        while len(picked) < num_sampled:
            c = int(gen.choice(range_max, p=p_all))
            tries += 1
            if c not in seen:
                seen.add(c)
                picked.append(c)
        return np.asarray(picked, np.int64), float(tries)
    def sample(true):                # a host op: every graph replay draws afresh and reads that call's classes
        sampled, tries = make()

        def expected(classes):
            p = p_all[np.clip(classes, 0, range_max - 1)]
            e = -np.expm1(tries * np.log1p(-p)) if unique else num_sampled * p
            return np.array(e, np.float32, order="C")
        return sampled, expected(true.astype(np.int64)), expected(sampled)
    return tuple(_capture.host_op(sample, (t,), Tensor._wrap))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """``num_sampled`` classes drawn uniformly from ``[0, range_max)`` and the expected counts of the
    true and the sampled classes (``unique``: without repeats)."""
    return _candidates("uniform_candidate_sampler", true_classes, num_true, num_sampled, unique, range_max, seed,
                       lambda k: np.full(k.shape, 1.0 / range_max))


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """Classes drawn with Zipf's law ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)`` and the
    expected counts of the true and the sampled classes."""
    return _candidates("log_uniform_candidate_sampler", true_classes, num_true, num_sampled, unique, range_max,
                       seed, lambda k: np.log((k + 2.0) / (k + 1.0)) / math.log(range_max + 1.0))


__all__ = ["rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "normal", "laplace",
           "standard_laplace", "random_gamma", "random_poisson", "bernoulli", "multinomial",
           "multinomial_with_replacement", "random_categorical", "randperm", "shuffle", "choice_with_mask",
           "uniform_candidate_sampler", "log_uniform_candidate_sampler"]

for _name in __all__:
    register_function(_name, globals()[_name], method=_name in ("multinomial", "random_categorical"))
del _name
