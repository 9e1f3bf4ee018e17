# tgc.nd and tgc.DeviceArray's eager operations (docs/eager.md) on the host: values against
# NumPy, lazy fusion, creation, arguments of compiled functions, errors. (The CUDA path is the
# C++ one, tested in tests/backends/cuda/eager_gpu_test.cpp.)
import numpy as np
import pytest

import tgc
import tgc.nd as nd
import tgc.tensor as T


def test_arithmetic_matches_numpy():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = nd.array(x)
    np.testing.assert_array_equal((a * 2 + 1).get(), x * 2 + 1)
    np.testing.assert_array_equal((1 - a).asnumpy(), 1 - x)
    np.testing.assert_array_equal((a * a - a / 2).get(), x * x - x / 2)
    np.testing.assert_array_equal((-a).get(), -x)
    np.testing.assert_array_equal((a < 2).get(), x < 2)
    np.testing.assert_allclose(nd.exp(a).get(), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal((a @ a.T).get(), x @ x.T)
    np.testing.assert_array_equal(np.asarray(a + np.ones(3, np.float32)), x + 1)


def test_chains_are_pending_until_read():
    a = nd.array(np.ones(4, np.float32))
    c = a * 2 + a * 3
    assert c.is_pending and "pending" in repr(c)
    assert c.shape == (4,) and c.dtype == "float32"
    np.testing.assert_array_equal(c.get(), np.full(4, 5, np.float32))
    assert not c.is_pending


def test_reductions_indexing_and_creation():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    a = nd.array(x)
    np.testing.assert_array_equal(a.sum(axis=1).get(), x.sum(axis=1))
    assert a.mean().get() == x.mean()
    np.testing.assert_array_equal(a[1, 1:3].get(), x[1, 1:3])
    np.testing.assert_array_equal(nd.argmax(a, axis=0).get(), x.argmax(axis=0))
    np.testing.assert_array_equal(nd.zeros((2, 2)).get(), np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(nd.full(3, 7, dtype="int32").get(), np.full(3, 7, np.int32))
    np.testing.assert_array_equal(nd.arange(5).get(), np.arange(5))
    np.testing.assert_allclose(nd.eager(lambda v: T.logsumexp(v, axis=1), a).get(),
                               np.log(np.exp(x).sum(axis=1)), rtol=1e-12)


def test_arrays_are_arguments_of_functions():
    x = T.vector("x")
    f = tgc.function([x], x * 10)
    a = nd.array(np.array([1, 2], np.float32)) + 1  # pending
    np.testing.assert_array_equal(f(a), [20, 30])


def test_errors_are_tgc_errors():
    with pytest.raises(tgc.ShapeError):
        nd.array(np.ones(3, np.float32)) + nd.array(np.ones(2, np.float32))
    with pytest.raises(tgc.ConfigError, match="names no CUDA device"):
        nd.zeros(2, device="cuda:x")


def test_random_values_repeat_for_a_seed():
    nd.seed(3)
    a = nd.uniform((100,), 2, 4).get()
    nd.seed(3)
    np.testing.assert_array_equal(nd.uniform(100, 2, 4).get(), a)
    assert a.min() >= 2 and a.max() < 4
    assert nd.normal((2, 3), dtype="float64").dtype == "float64"


def test_half_arrays_compute_in_float32_and_round_once():
    a = nd.ones((3,), dtype="float16")
    b = a * 2.5 + 1
    assert b.dtype == "float16"
    np.testing.assert_array_equal(b.get(), np.full(3, 3.5, np.float16))
    c = nd.array(np.array([0.1, 0.2], np.float16))
    # float32 sum of the two halves, rounded once: NumPy's float16 rounding of the same sum.
    expected = np.float16(np.float32(np.float16(0.1)) + np.float32(np.float16(0.2)))
    assert nd.sum(c).get() == expected


OPENCL = any(line.startswith("opencl") and " available" in line for line in tgc.devices())


@pytest.mark.parametrize("device", ["cpu", pytest.param("opencl", marks=pytest.mark.skipif(
    not OPENCL, reason="no OpenCL device in this build or machine"))])
def test_setitem_writes_into_the_array(device):
    want = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = nd.array(want, device=device)
    lazy = a * 2  # recorded before the writes: keeps the values it read
    for key, value in [(1, -1.0), ((slice(None), 2), np.float32(7)), (([0, 2], 0), np.array([100, 200])),
                       (slice(0, 2), np.ones(4, dtype=np.float64))]:
        a[key] = value
        want[key] = value
        np.testing.assert_array_equal(np.asarray(a), want)
    np.testing.assert_array_equal(np.asarray(lazy), np.arange(12, dtype=np.float32).reshape(3, 4) * 2)
    b = a + 1  # a pending result gets memory of its own, then takes the write
    b[0, 0] = -5
    assert np.asarray(b)[0, 0] == -5 and np.asarray(a)[0, 0] == want[0, 0]


def test_in_place_operators_write_into_the_array():
    a = nd.array(np.arange(4, dtype=np.float32))
    same = a
    exported = np.from_dlpack(a)  # a view of a's memory (host arrays)
    a += 1
    a *= nd.array(np.full(4, 2, dtype=np.float32))
    assert a is same
    np.testing.assert_array_equal(np.asarray(a), [2, 4, 6, 8])
    np.testing.assert_array_equal(exported, [2, 4, 6, 8])
    i = nd.array(np.arange(3))
    i += 2
    np.testing.assert_array_equal(np.asarray(i), [2, 3, 4])
    with pytest.raises(tgc.TypeError, match="same_kind"):
        i /= 2
    np.testing.assert_array_equal(np.asarray(i), [2, 3, 4])
