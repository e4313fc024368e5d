"""ops.real, imag, conj, angle, polar, view_as_real, sgn on complex tensors.

Expected values, dtypes and errors are MindSpore 2.10 (CPU)'s for the same expressions."""

from _ops_math_oracle import INF, NAN, check_table  # noqa: F401


CPLX = [
    ("ops.real(T([1+2j, -3.5+0j], 'complex64'))",
     ('float32', [1.0, -3.5])),
    ("ops.real(T([1+2j], 'complex128'))",
     ('float64', [1.0])),
    ('ops.real(T([1.5, -2.0]))',
     ('float32', [1.5, -2.0])),
    ("ops.real(T([1, 2], 'int32'))",
     ('int32', [1, 2])),
    ("T([1+2j], 'complex64').real()",
     ('float32', [1.0])),
    ("ops.imag(T([1+2j, -3.5-1j], 'complex64'))",
     ('float32', [2.0, -1.0])),
    ("ops.imag(T([1+2j], 'complex128'))",
     ('float64', [2.0])),
    ('ops.imag(T([1.5, -2.0]))',
     ('float32', [0.0, 0.0])),
    ("ops.imag(T([1, 2], 'int64'))",
     ('int64', [0, 0])),
    ("T([1+2j], 'complex64').imag()",
     ('float32', [2.0])),
    ("ops.conj(T([1+2j, -3.5-1j], 'complex64'))",
     ('complex64', [[1.0, -3.5], [-2.0, 1.0]])),
    ('ops.conj(T([1.5, -2.0]))',
     ('float32', [1.5, -2.0])),
    ("ops.conj(T([1, 2], 'int32'))",
     ('int32', [1, 2])),
    ("T([1+2j], 'complex128').conj()",
     ('complex128', [[1.0], [-2.0]])),
    ("ops.angle(T([1+1j, -1+0j, -1j, 0j], 'complex64'))",
     ('float32', [0.7853981852531433, 3.1415927410125732, -1.5707963705062866, 0.0])),
    ("ops.angle(T([1+1j], 'complex128'))",
     ('float64', [0.7853981633974483])),
    ("T([1j], 'complex64').angle()",
     ('float32', [1.5707963705062866])),
    ('ops.polar(T([1.0, 2.0]), T([0.0, 1.5707963267948966]))',
     ('complex64', [[1.0, -8.742277657347586e-08], [0.0, 2.0]])),
    ("ops.polar(T([1.0, 2.0], 'float64'), T([3.141592653589793, 0.5], 'float64'))",
     ('complex128', [[-1.0, 1.7551651237807455], [1.2246467991473532e-16, 0.958851077208406]])),
    ("ops.polar(T([1, 2], 'int32'), T([0.0, 1.0]))",
     ('raises', TypeError)),
    ("ops.view_as_real(T([1+2j, 3-4j], 'complex64'))",
     ('float32', [[1.0, 2.0], [3.0, -4.0]])),
    ("ops.view_as_real(T([[1+2j]], 'complex128'))",
     ('float64', [[[1.0, 2.0]]])),
    ('ops.view_as_real(T([1.0]))',
     ('raises', TypeError)),
    ("ops.sgn(T([3+4j, 0j], 'complex64'))",
     ('complex64', [[0.6000000238418579, 0.0], [0.800000011920929, 0.0]])),
    ('grad(lambda a: ops.conj(a).sum())(T([1.0, 2.0]))',
     ('float32', [1.0, 1.0])),
    ('grad(lambda a: (ops.imag(a) + a).sum())(T([1.0, 2.0]))',
     ('float32', [1.0, 1.0])),
]


def test_cplx():
    check_table(CPLX)


def test_real_grad_is_real():
    # MindSpore 2.10 returns a complex64 gradient for ops.real of a float32 tensor; here it stays float32.
    from _ops_math_oracle import T, grad
    from mscustom import ops
    g = grad(lambda a: ops.real(a).sum())(T([1.0, 2.0]))
    assert str(g.dtype) == "Float32" and g.asnumpy().tolist() == [1.0, 1.0]
