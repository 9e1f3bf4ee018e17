# NumPy interop: arrays in (borrowed without a copy where dtype and layout allow, copied
# otherwise) and out (arrays that keep the tgc tensor alive), dtype mapping and errors.
import numpy as np
import pytest

import tgc
from tgc import _tgc


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64"])
def test_every_dtype_round_trips(dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    b = _tgc._roundtrip(a)
    assert b.dtype == a.dtype and b.shape == a.shape
    np.testing.assert_array_equal(a, b)


def test_borrowed_array_shares_memory():
    a = np.arange(6, dtype=np.float32)
    b = _tgc._roundtrip(a, borrow=True)
    assert np.shares_memory(a, b)
    c = _tgc._roundtrip(a, borrow=False)
    assert not np.shares_memory(a, c)


def test_strided_views_are_borrowed_with_their_strides():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (a.T, a[:, 1::2], a[::2]):
        b = _tgc._roundtrip(view, borrow=True)
        assert np.shares_memory(view, b)
        np.testing.assert_array_equal(view, b)


def test_negative_strides_are_copied():
    a = np.arange(5, dtype=np.int32)[::-1]
    np.testing.assert_array_equal(_tgc._roundtrip(a, borrow=True), a)


def test_zero_d_and_empty_arrays():
    assert _tgc._roundtrip(np.float32(2.5)).shape == ()
    assert _tgc._roundtrip(np.zeros((0, 3), np.float32)).shape == (0, 3)


def test_lists_and_numbers_convert_as_numpy_would():
    np.testing.assert_array_equal(_tgc._roundtrip([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    assert _tgc._roundtrip(1.5).dtype == np.float64


def test_unsupported_dtypes_say_how_to_convert():
    with pytest.raises(tgc.TypeError, match="arrays of dtype uint32 have no tgc dtype") as e:
        _tgc._roundtrip(np.zeros(3, np.uint32))
    assert "astype" in e.value.hint


def test_float16_arrays_round_trip():
    a = np.array([0.1, -2.5, 65504, np.inf], np.float16)
    back = _tgc._roundtrip(a)
    assert back.dtype == np.float16
    np.testing.assert_array_equal(back, a)


def test_output_keeps_the_tensor_alive_after_the_function_is_gone():
    x = tgc.tensor.vector("x")
    f = tgc.function([x], tgc.tensor.exp(x))
    r = f(np.zeros(1000, np.float32))
    del f
    np.testing.assert_array_equal(r, np.ones(1000, np.float32))
    r[0] = 5  # results belong to the caller
    assert r[0] == 5


def test_arguments_are_read_in_place_and_never_written():
    x = tgc.tensor.vector("x")
    f = tgc.function([x], x * 2)
    a = np.arange(4, dtype=np.float32)
    view = a[::2]
    np.testing.assert_array_equal(f(view), [0, 4])
    np.testing.assert_array_equal(a, [0, 1, 2, 3])


def test_bfloat16_arrays_are_ml_dtypes_arrays():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="scripts/setup installs ml_dtypes")
    a = np.array([0.1, -2.5, 3e38, np.inf], np.float32).astype(ml_dtypes.bfloat16)
    back = _tgc._roundtrip(a)
    assert back.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(back.view(np.uint16), a.view(np.uint16))
    x = tgc.tensor.vector("x")
    r = tgc.function([x], tgc.tensor.cast(x, "bfloat16"))(np.array([1.0, 1.00390625, 1.01171875], np.float32))
    assert r.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(r.astype(np.float32), [1.0, 1.0, 1.015625])  # ties to even
