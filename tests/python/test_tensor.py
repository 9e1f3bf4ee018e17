# Building graphs from Python: constructors, types, operators (reflected ones with Python
# numbers and arrays), .T, indexing, reductions with axis=/keepdims=, and build-time errors.
import numpy as np
import pytest

import tgc
import tgc.tensor as T


def run(inputs, output, *args):
    return tgc.function(inputs, output)(*args)


def test_constructors_and_their_types():
    assert T.matrix("x").dtype == "float32"
    assert T.matrix("x").ndim == 2
    assert T.dvector().dtype == "float64"
    assert T.iscalar().dtype == "int32" and T.iscalar().ndim == 0
    assert T.btensor3().dtype == "int8"
    assert T.fmatrix("m").type == "TensorType(float32, matrix)"
    assert T.tensor("float32", (None, 784)).static_shape == (None, 784)
    assert T.matrix("x", dtype=np.float64).dtype == "float64"
    tgc.config.floatX = "float64"
    assert T.vector().dtype == "float64"


def test_names():
    x = T.vector("x")
    assert x.name == "x" and repr(x) == "x"
    y = T.exp(x)
    y.name = "y"
    assert y.name == "y"


def test_operators_with_numbers_keep_the_tensor_dtype():
    x = T.vector("x")
    for expr in (x + 1, 1 + x, x - 1, 1 - x, x * 0.5, 0.5 * x, x / 2, 2 / x, x ** 2, 2 ** x, -x, abs(x)):
        assert expr.dtype == "float32"
    a = np.array([1, 2, 4], np.float32)
    got = run([x], [1 - x, 2 / x, 2 ** x, x // 2, 7 % x, -x], a)
    want = [1 - a, 2 / a, 2 ** a, a // 2, 7 % a, -a]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_numpy_arrays_are_constants_of_their_dtype_on_either_side():
    x = T.vector("x")
    c = np.array([1.0, 2.0, 3.0], np.float32)
    a = np.array([3, 4, 5], np.float32)
    left, right = run([x], [c - x, x - c], a)
    np.testing.assert_array_equal(left, c - a)
    np.testing.assert_array_equal(right, a - c)
    assert (c - x).dtype == "float32"


def test_comparisons_and_logic_give_bools():
    x = T.vector("x")
    m = (x > 1) & (x < 3) | ~(x >= 0)
    assert m.dtype == "bool"
    np.testing.assert_array_equal(run([x], m, np.array([-1, 2, 5], np.float32)), [True, True, False])
    np.testing.assert_array_equal(run([x], T.eq(x, 2), np.array([2, 3], np.float32)), [True, False])


def test_a_symbolic_truth_value_is_an_error():
    with pytest.raises(tgc.TypeError, match="truth value"):
        bool(T.vector() > 0)


def test_transpose_reshape_dimshuffle():
    m = T.matrix("m")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, r, d = run([m], [m.T, m.reshape((3, -1)), m.dimshuffle(1, "x", 0)], a)
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(r, a.reshape(3, 2))
    np.testing.assert_array_equal(d, a.T[:, None, :])


def test_symbolic_shape_in_arithmetic():
    # Theano's x.shape: a symbolic int64 vector, read on each call.
    m = T.matrix("m")
    assert m.shape.dtype == "int64" and m.shape.ndim == 1
    f = tgc.function([m], [m.shape, T.shape(m)[1], m.sum(axis=0) / m.shape[0]])
    s, cols, mean = f(np.arange(6, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(s, [3, 2])
    assert cols == 2
    np.testing.assert_allclose(mean, [2, 3])
    s, _, _ = f(np.ones((5, 4), dtype=np.float32))
    np.testing.assert_array_equal(s, [5, 4])


def test_a_draw_of_size_x_shape_takes_xs_shape():
    # Theano's dropout idiom: srng.binomial(size=h.shape, p=0.5) draws one value per element of h.
    h = T.matrix("h")
    rng = tgc.RandomStreams(3)
    mask = rng.binomial(size=h.shape, p=0.5, dtype="float32")
    out = tgc.function([h], h * mask)(np.ones((4, 5), dtype=np.float32))
    assert out.shape == (4, 5)
    assert set(np.unique(out)) <= {0.0, 1.0}


def test_theanos_negative_log_likelihood():
    # The deep learning tutorial's cost: -mean(log(p)[arange(y.shape[0]), y]).
    p = T.dmatrix("p")
    y = T.lvector("y")
    nll = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    f = tgc.function([p, y], [nll, tgc.grad(nll, p)])
    pv = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]])
    cost, g = f(pv, np.array([0, 1]))
    np.testing.assert_allclose(cost, -(np.log(0.5) + np.log(0.8)) / 2)
    np.testing.assert_allclose(g, [[-1, 0, 0], [0, -0.625, 0]])
    with pytest.raises(tgc.TypeError, match="not a dim of a tensor"):
        T.arange(T.lscalar("n"))


def test_new_tensors_with_a_dim_read_when_the_function_runs():
    # Theano's zeros((x.shape[1], n_hidden)): a recurrent net's first state for a batch.
    x = T.tensor3("x")  # (time, batch, features)
    h0 = T.zeros((x.shape[1], 5))
    both = T.ones((2, x.shape[0], x.shape[2]), dtype="int64")
    f = tgc.function([x], [h0, both, T.alloc(np.float32(7), x.shape[1])])
    a, b, c = f(np.zeros((4, 3, 2), dtype=np.float32))
    assert a.shape == (3, 5) and a.dtype == np.float32 and not a.any()
    assert b.shape == (2, 4, 2) and b.dtype == np.int64 and (b == 1).all()
    np.testing.assert_array_equal(c, [7, 7, 7])
    with pytest.raises(tgc.TypeError, match="zeros_like"):
        T.zeros(x.shape)


def test_a_symbolic_size_is_a_clear_error():
    m = T.matrix("m")
    for build in (lambda: T.arange(1, m.shape[0]), lambda: m.reshape((m.shape[0], -1)),
                  lambda: T.reshape(m, (m.shape[1], -1))):
        with pytest.raises(tgc.TypeError, match="a size is a symbolic value") as info:
            build()
        assert "static_shape" in str(info.value)


def test_indexing():
    m = T.matrix("m")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = T.lvector("idx")
    got = run([m, idx], [m[1], m[:, 0], m[1:, ::2], m[None, 0], m[..., -1], m[idx], m[np.array([2, 0])]],
              a, np.array([2, 2, 0]))
    want = [a[1], a[:, 0], a[1:, ::2], a[None, 0], a[..., -1], a[[2, 2, 0]], a[[2, 0]]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_an_index_out_of_range_is_an_index_error():
    x = T.tensor("float32", (3,))
    with pytest.raises(IndexError) as e:
        x[5]
    assert isinstance(e.value, tgc.Error)


def test_reductions_with_axis_and_keepdims():
    m = T.matrix("m")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = run([m], [m.sum(), m.sum(axis=0), T.mean(m, axis=1, keepdims=True), m.max(axis=(0, 1)),
                    T.argmax(m, axis=1), m.prod(axis=-1)], a)
    want = [a.sum(), a.sum(axis=0), a.mean(axis=1, keepdims=True), a.max(), a.argmax(axis=1), a.prod(axis=-1)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
        assert np.shape(g) == np.shape(w)


def test_math_linear_algebra_and_softmax():
    x = T.matrix("x")
    w = T.vector("w")
    a = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    v = np.array([0.5, -1, 2], np.float32)
    d, s, e = run([x, w], [T.dot(x, w), T.softmax(x), T.exp(x).sum(axis=1)], a, v)
    np.testing.assert_allclose(d, a @ v, rtol=1e-5)
    np.testing.assert_allclose(s, np.exp(a) / np.exp(a).sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(e, np.exp(a).sum(axis=1), rtol=1e-5)


def test_shape_errors_carry_the_message_and_hint():
    x = T.tensor("float32", (400, 784))
    w = T.tensor("float32", (785,))
    with pytest.raises(ValueError) as e:
        T.dot(x, w)
    assert isinstance(e.value, tgc.ShapeError)
    assert "not aligned" in str(e.value)
    assert e.value.hint
    assert str(e.value).startswith(e.value.what)


def test_type_errors_are_python_type_errors():
    with pytest.raises(TypeError) as e:
        T.dot(T.tensor3(), T.tensor3())
    assert isinstance(e.value, tgc.TypeError)


def test_grad():
    x = T.dvector("x")
    cost = (x ** 2).sum()
    g = T.grad(cost, x)
    assert g.dtype == "float64"
    a = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(run([x], g, a), 2 * a)
    gs = tgc.grad(cost, [x])
    assert isinstance(gs, list) and len(gs) == 1


def test_name_none_means_unnamed_as_in_theano():
    assert T.matrix(None).name == ""
    assert tgc.shared(np.zeros(2), name=None).name == ""
