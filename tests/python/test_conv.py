# Convolutional layers from Python (tgc.tensor.conv2d, pooling, batch normalization):
# values against a NumPy convolution, the gradients through tgc.grad, PyTorch's argument
# forms, the running statistics' updates, and errors as tgc exceptions.
import numpy as np
import pytest

import tgc
import tgc.tensor as T


def numpy_conv2d(x, w, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return y


def test_conv2d_matches_numpy_in_both_layouts():
    rng = np.random.default_rng(1)
    xv, wv = rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((4, 3, 3, 2))
    x, w = T.tensor4("x", dtype="float64"), T.tensor4("w", dtype="float64")
    f = tgc.function([x, w], [T.conv2d(x, w, stride=2, padding=1),
                              T.conv2d(x.dimshuffle(0, 2, 3, 1), w.dimshuffle(0, 2, 3, 1), stride=2, padding=(1, 1),
                                       layout="NHWC")])
    y, yh = f(xv, wv)
    want = numpy_conv2d(xv, wv, stride=2, pad=1)
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(yh, want.transpose(0, 2, 3, 1), rtol=1e-12, atol=1e-12)


def test_gradients_pooling_and_transpose():
    rng = np.random.default_rng(2)
    x, w = T.tensor4("x", dtype="float64"), T.tensor4("w", dtype="float64")
    y = T.max_pool2d(T.conv2d(x, w, padding="same"), 2, ceil_mode=True)
    cost = T.sum(y * y) + T.sum(T.avg_pool2d(x, (3, 3), stride=1, padding=1, count_include_pad=False))
    gx, gw = tgc.grad(cost, [x, w])
    f = tgc.function([x, w], [y, gx, gw, T.conv_transpose2d(x, w, stride=2, output_padding=1)])
    xv, wv = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((2, 2, 3, 3))
    yv, gxv, gwv, tv = f(xv, wv)
    assert yv.shape == (1, 2, 3, 3) and gxv.shape == xv.shape and gwv.shape == wv.shape
    assert tv.shape == (1, 2, 12, 12)  # (5 - 1) * 2 + 3 + 1


def test_batch_normalization_updates_the_running_statistics():
    x = T.matrix("x", dtype="float64")
    rm = tgc.shared(np.zeros(2), name="rm")
    rv = tgc.shared(np.ones(2), name="rv")
    y, mean, var, updates = T.batch_normalization_train(x, np.ones(2), np.zeros(2), rm, rv, momentum=0.5)
    f = tgc.function([x], [y, mean], updates=updates)
    yv, mv = f(np.array([[1.0, 10.0], [3.0, 20.0]]))
    np.testing.assert_allclose(mv, [2.0, 15.0])
    np.testing.assert_allclose(rm.get_value(), [1.0, 7.5])
    np.testing.assert_allclose(yv[:, 0], [-1, 1], rtol=1e-4)
    t = tgc.function([x], T.batch_normalization_test(x, np.ones(2), np.zeros(2), rm, rv))
    assert t(np.ones((3, 2))).shape == (3, 2)


def test_errors_are_tgc_exceptions():
    x, w = T.tensor4("x"), T.tensor4("w")
    with pytest.raises(tgc.ValueError, match="valid"):
        T.conv2d(x, w, padding="full")
    with pytest.raises(tgc.ShapeError, match="channels"):
        T.conv2d(T.tensor("float32", (1, 3, 5, 5)), T.tensor("float32", (2, 2, 3, 3)))
