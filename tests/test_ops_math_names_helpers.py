"""ops.scalar_*, bool_*, tuple_*/list_*, make_*, dict helpers, shape helpers, augassign_*, hyper_add, mixed_precision_cast ...: MindSpore 2.10's Python-level results.

Expected values, dtypes and errors are MindSpore 2.10 (CPU)'s for the same expressions."""

from _ops_math_oracle import INF, NAN, check_table  # noqa: F401


HELPERS = [
    ('ops.scalar_add(2, 3)',
     ('py', 5)),
    ('ops.scalar_add(2.5, 3)',
     ('py', 5.5)),
    ('ops.scalar_sub(2, 3.5)',
     ('py', -1.5)),
    ('ops.scalar_mul(2, 3)',
     ('py', 6)),
    ('ops.scalar_div(7, 2)',
     ('py', 3.5)),
    ('ops.scalar_div(6, 3)',
     ('py', 2.0)),
    ('ops.scalar_div(7.0, 2)',
     ('py', 3.5)),
    ('ops.scalar_floordiv(7, 2)',
     ('py', 3)),
    ('ops.scalar_floordiv(-7, 2)',
     ('py', -4)),
    ('ops.scalar_floordiv(7.5, 2)',
     ('py', 3.0)),
    ('ops.scalar_mod(7, 3)',
     ('py', 1)),
    ('ops.scalar_mod(-7, 3)',
     ('py', 2)),
    ('ops.scalar_mod(7.5, 2)',
     ('py', 1.5)),
    ('ops.scalar_pow(2, 10)',
     ('py', 1024)),
    ('ops.scalar_pow(2.0, 0.5)',
     ('py', 1.4142135623730951)),
    ('ops.scalar_pow(2, -1)',
     ('py', 0.5)),
    ('ops.scalar_log(8.0)',
     ('py', 2.0794415416798357)),
    ('ops.scalar_log(1)',
     ('py', 0.0)),
    ('ops.scalar_eq(2, 2.0)',
     ('py', True)),
    ('ops.scalar_gt(2, 3)',
     ('py', False)),
    ('ops.scalar_ge(3, 3)',
     ('py', True)),
    ('ops.scalar_lt(2, 3)',
     ('py', True)),
    ('ops.scalar_le(4, 3)',
     ('py', False)),
    ('ops.scalar_max(2, 3.5)',
     ('py', 3.5)),
    ('ops.scalar_min(2, 3.5)',
     ('py', 2)),
    ('ops.scalar_uadd(-3)',
     ('py', -3)),
    ('ops.scalar_usub(3)',
     ('py', -3)),
    ('ops.scalar_usub(2.5)',
     ('py', -2.5)),
    ('ops.scalar_cast(3.7, ms.int32)',
     ('raises', ValueError)),
    ('ops.scalar_cast(3, ms.float32)',
     ('raises', ValueError)),
    ('ops.scalar_cast(0, ms.bool_)',
     ('py', False)),
    ('ops.scalar_to_tensor(3)',
     ('float32', 3.0)),
    ('ops.scalar_to_tensor(3.5, ms.float64)',
     ('float64', 3.5)),
    ('ops.scalar_to_tensor(True, ms.int32)',
     ('int32', 1)),
    ('ops.tuple_to_array((1, 2, 3))',
     ('int32', [1, 2, 3])),
    ('ops.tuple_to_array((1.0, 2.0))',
     ('float32', [1.0, 2.0])),
    ('ops.tuple_to_array((1, 2.5))',
     ('int32', [1, 2])),
    ('ops.bool_not(True)',
     ('bool', False)),
    ('ops.tuple_getitem((1, 2, 3), 1)',
     ('py', 2)),
    ('ops.tuple_getitem((1, 2, 3), -1)',
     ('py', 3)),
    ('ops.tuple_setitem((1, 2, 3), 1, 9)',
     ('tuple', [('py', 1), ('py', 9), ('py', 3)])),
    ('ops.tuple_len((1, 2, 3))',
     ('py', 3)),
    ('ops.tuple_equal((1, 2), (1, 2))',
     ('py', True)),
    ('ops.tuple_equal((1, 2), (1, 3))',
     ('py', False)),
    ('ops.tuple_reversed((1, 2, 3))',
     ('tuple', [('py', 3), ('py', 2), ('py', 1)])),
    ('ops.tuple_div((6, 8), (2, 4))',
     ('tuple', [('py', 3), ('py', 2)])),
    ('ops.tuple_div((7, 8), (2, 4))',
     ('raises', RuntimeError)),
    ('ops.list_getitem([1, 2, 3], 2)',
     ('py', 3)),
    ('ops.list_setitem([1, 2, 3], 0, 5)',
     ('list', [('py', 5), ('py', 2), ('py', 3)])),
    ('ops.list_len([1, 2])',
     ('py', 2)),
    ('ops.list_equal([1, 2], [1, 2])',
     ('py', True)),
    ('ops.make_tuple(1, 2, 3)',
     ('tuple', [('py', 1), ('py', 2), ('py', 3)])),
    ('ops.make_list(1, 2)',
     ('list', [('py', 1), ('py', 2)])),
    ('ops.make_range(5)',
     ('tuple', [('py', 0), ('py', 1), ('py', 2), ('py', 3), ('py', 4)])),
    ('ops.make_range(1, 5)',
     ('tuple', [('py', 1), ('py', 2), ('py', 3), ('py', 4)])),
    ('ops.make_range(1, 10, 3)',
     ('tuple', [('py', 1), ('py', 4), ('py', 7)])),
    ('ops.shape_mul((2, 3, 4))',
     ('py', 24)),
    ('ops.shape_mul(())',
     ('py', 1)),
    ("ops.in_dict('a', {'a': 1})",
     ('py', True)),
    ("ops.not_in_dict('a', {'a': 1})",
     ('py', False)),
    ("ops.dict_getitem({'a': 1}, 'a')",
     ('py', 1)),
    ('ops.is_(None, None)',
     ('py', True)),
    ('ops.is_not(1, None)',
     ('py', True)),
    ('ops.shape_(T([[1.0, 2.0]]))',
     ('tuple', [('py', 1), ('py', 2)])),
    ('ops.dyn_shape(T([[1.0, 2.0]]))',
     ('int64', [1, 2])),
    ('ops.isconstant(1)',
     ('py', True)),
    ('ops.reduced_shape((2, 3, 4), (1,))',
     ('tuple', [('py', 2), ('py', 1), ('py', 4)])),
    ('ops.reduced_shape((2, 3, 4), ())',
     ('tuple', [('py', 1), ('py', 1), ('py', 1)])),
    ('ops.partial(ops.scalar_add, 1)(2)',
     ('py', 3)),
    ('ops.switch(True, 1, 2)',
     ('py', 1)),
    ('ops.mixed_precision_cast(ms.float16, T([1.5]))',
     ('float16', [1.5])),
    ("ops.mixed_precision_cast(ms.float16, (T([1.5]), T([1], 'int32')))",
     ('tuple', [('float16', [1.5]), ('int32', [1])])),
    ('ops.is_sequence_value_unknown((1, 2))',
     ('py', False)),
    ('ops.is_sequence_shape_unknown((1, 2))',
     ('py', False)),
    ('ops.augassign_add(1, 2)',
     ('py', 3)),
    ('ops.augassign_sub(T([1.0]), T([2.0]))',
     ('float32', [-1.0])),
    ('ops.augassign_mul(3, 2)',
     ('py', 6)),
    ('ops.augassign_div(3, 2)',
     ('py', 1.5)),
    ('ops.augassign_floordiv(7, 2)',
     ('py', 3)),
    ('ops.augassign_mod(7, 3)',
     ('py', 1)),
    ('ops.hyper_add(1, 2)',
     ('py', 3)),
    ('ops.hyper_add((1, T([1.0])), (2, T([2.0])))',
     ('tuple', [('py', 3), ('float32', [3.0])])),
    ('ops.broadcast_gradient_args((2, 3), (3,))',
     ('tuple', [('tuple', []), ('tuple', [('py', 0)])])),
]


def test_helpers():
    check_table(HELPERS)


def test_graph_only_helpers_and_decorators(capsys):
    # scalar_ne, bool_and/or/eq, string_*, scalar_to_array, make_dict, dict_setitem, array-free helpers run
    # only inside a compiled graph in MindSpore 2.10 (PyNative raises); here they are the Python operations.
    import mscustom as ms
    from _ops_math_oracle import T
    from mscustom import ops
    assert ops.scalar_ne(2, 3) is True and ops.bool_and(True, False) is False and ops.bool_or(True, False) is True
    assert ops.bool_eq(True, True) is True and ops.string_concat("ab", "cd") == "abcd" and ops.string_eq("a", "a")
    s = ops.scalar_to_array(3)
    assert s.shape == () and str(s.dtype) == "Int64" and s.asnumpy() == 3
    assert ops.make_dict(("a", "b"), (1, 2)) == {"a": 1, "b": 2}
    d = {"a": 1}
    assert ops.dict_setitem(d, "b", 2) == {"a": 1, "b": 2} and d == {"a": 1}
    assert ops.make_slice(1, 5, 2) == slice(1, 5, 2)
    assert ops.zip_operation((1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert ops.iter_converter([1, 2]) == (1, 2) and ops.ms_next((1, 2)) == (1, (2,)) and ops.ms_hasnext((1,))
    assert ops.typeof(1) == ms.int64 and ops.typeof(T([1.0])) == ms.TensorType(ms.float32)
    ops.print_("hello", 3)
    assert capsys.readouterr().out == "hello 3\n"
    g0, g1 = T([1.0]), T([2.0])
    assert ops.get_grad(((0, g0), (1, g1)), 1) is g1
    assert ops.get_grad((((0, g0),), (("w", g1),)), ms.Parameter(T([0.0]), name="w")) is g1
    try:
        ops.get_grad(((0, g0),), 3)
        raise AssertionError("get_grad found a missing identifier")
    except RuntimeError:
        pass

    @ops.constexpr
    def twice(n):
        return 2 * n
    assert twice(4) == 8

    def f():
        return 1
    assert ops.add_flags(f, predict=True) is f and f._func_graph_flags == {"predict": True}
    assert ops.op_info_register({"op_name": "Abs"})(f) is f

    class Scale(ops.PrimitiveWithInfer):
        @ops.prim_arg_register
        def __init__(self, factor=2.0):
            pass
    assert Scale(3.0).attrs["factor"] == 3.0


def test_tensordump(tmp_path):
    # MindSpore 2.10 writes a_float32_0.npy for tensordump(".../a", x), b_float32_1.npy for ".../b.npy"
    import numpy as np
    from _ops_math_oracle import T
    from mscustom import ops
    x = T([[1.0, 2.0]])
    assert ops.tensordump(str(tmp_path / "a"), x) is None
    ops.tensordump(str(tmp_path / "b.npy"), x, "in")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2 and names[0].startswith("a_float32_") and names[1].startswith("b_float32_")
    assert int(names[1][len("b_float32_"):-4]) == int(names[0][len("a_float32_"):-4]) + 1
    np.testing.assert_array_equal(np.load(tmp_path / names[1]), [[1.0, 2.0]])
