"""The Tensor methods and properties that the deferred ops bind (``mscustom/_core/deferred.py``).

``tensor.py`` puts a placeholder under each name, so ``x.lgamma()``, ``Tensor.add_`` and
``hasattr(Tensor, "nan_to_num")`` load the deferred ops on their first lookup. Kept in step
with the ops by ``tests/test_import_lazy.py``, which prints the new list when it differs.
"""

NAMES = (
    'H', 'absolute', 'acos', 'acosh', 'add_', 'addbmm', 'addcdiv', 'addcmul', 'addmv', 'addr', 'adjoint',
    'allclose', 'amax', 'amin', 'aminmax', 'angle', 'approximate_equal', 'arccos', 'arccosh', 'arcsin',
    'arcsinh', 'arctan', 'arctan2', 'arctanh', 'argmax_with_value', 'argmin_with_value', 'argwhere', 'asin',
    'asinh', 'atan', 'atanh', 'bernoulli', 'bernoulli_', 'bfloat16', 'bincount', 'bitwise_and',
    'bitwise_left_shift', 'bitwise_or', 'bitwise_right_shift', 'bitwise_xor', 'byte', 'cauchy', 'cholesky',
    'cholesky_inverse', 'cholesky_solve', 'clamp_', 'clip', 'col2im', 'conj', 'copysign', 'cos', 'cosh',
    'count_nonzero', 'cov', 'cross', 'cummax', 'cummin', 'data', 'data_ptr', 'deg2rad', 'det', 'device', 'diag',
    'diagflat', 'diagonal_scatter', 'diff', 'digamma', 'div', 'div_', 'divide', 'double', 'dsplit', 'eigvals',
    'eq', 'equal', 'erf', 'erfc', 'erfinv', 'erfinv_', 'exp_', 'expand', 'expm1', 'exponential_', 'fill_',
    'fliplr', 'flipud', 'float_power', 'floor_', 'floor_divide_', 'fmax', 'fmin', 'fmod', 'fold', 'frac', 'gcd',
    'ge', 'geqrf', 'ger', 'greater', 'greater_equal', 'gt', 'half', 'hardshrink', 'has_init', 'heaviside',
    'histc', 'hsplit', 'hypot', 'i0', 'igamma', 'igammac', 'imag', 'index_add', 'index_add_', 'index_fill',
    'index_fill_', 'index_select', 'init', 'init_flag', 'inner', 'inplace_update', 'inv', 'inverse', 'invert',
    'is_complex', 'is_contiguous', 'is_floating_point', 'is_pinned', 'is_shared', 'is_signed', 'isfinite',
    'isinf', 'isneginf', 'isposinf', 'isreal', 'itemset', 'itemsize', 'lcm', 'ldexp', 'le', 'less',
    'less_equal', 'lgamma', 'log10', 'log1p', 'log2', 'log_', 'log_matrix_determinant', 'log_normal',
    'logaddexp', 'logaddexp2', 'logcumsumexp', 'logdet', 'logical_and', 'logical_not', 'logical_or',
    'logical_xor', 'logit', 'long', 'lstsq', 'lt', 'lu_solve', 'mH', 'mT', 'masked_fill_', 'matrix_determinant',
    'matrix_power', 'maximum', 'median', 'mm', 'move_to', 'moveaxis', 'movedim', 'msort', 'mul', 'mul_',
    'multinomial', 'multiply', 'mvlgamma', 'nan_to_num', 'nanmean', 'nanmedian', 'nansum', 'narrow', 'nbytes',
    'ndimension', 'ne', 'negative', 'new_empty', 'new_ones', 'new_zeros', 'nextafter', 'nonzero', 'normal_',
    'not_equal', 'orgqr', 'positive', 'ptp', 'qr', 'rad2deg', 'random_', 'random_categorical', 'real',
    'reciprocal', 'remainder', 'remainder_', 'renorm', 'reshape_as', 'resize', 'reverse', 'reverse_sequence',
    'rot90', 'rsqrt', 'scatter', 'scatter_', 'scatter_add', 'scatter_add_', 'scatter_div', 'scatter_max',
    'scatter_min', 'scatter_mul', 'scatter_sub', 'searchsorted', 'select', 'select_scatter', 'sgn', 'short',
    'sigmoid_', 'sign_', 'signbit', 'sin', 'sinc', 'sinh', 'slice_scatter', 'slogdet', 'soft_shrink',
    'storage_offset', 'stride', 'strides', 'sub', 'sub_', 'subtract', 'sum_to_size', 'svd', 'swapdims', 't',
    'tan', 'tanh_', 'tensor_split', 'to_coo', 'to_csr', 'top_k', 'true_divide', 'trunc', 'type', 'type_as',
    'unbind', 'unfold', 'uniform', 'uniform_', 'unique_consecutive', 'unique_with_pad', 'unsorted_segment_max',
    'unsorted_segment_min', 'unsorted_segment_prod', 'view_as', 'vsplit', 'xdivy', 'xlogy', 'zero_',
)
