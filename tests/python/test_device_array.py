# tgc.DeviceArray, the result type of values left on a device: its DLPack export, NumPy
# conversion and metadata, through a host-memory instance (this machine has no GPU; the CUDA
# path differs only in the device type and id the view reports, and in syncing first).
import numpy as np
import pytest

import tgc
from tgc import _tgc


def test_dlpack_export_shares_the_memory():
    a = _tgc._device_array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.__dlpack_device__() == (1, 0)  # kDLCPU, device 0
    b = np.from_dlpack(a)
    np.testing.assert_array_equal(b, np.arange(6).reshape(2, 3))
    assert np.shares_memory(b, np.from_dlpack(a))


def test_numpy_asarray_and_metadata():
    a = _tgc._device_array(np.arange(4, dtype=np.int64))
    assert a.shape == (4,) and a.dtype == "int64" and a.ndim == 1 and a.device == "cpu"
    np.testing.assert_array_equal(np.asarray(a), [0, 1, 2, 3])
    assert np.asarray(a, dtype=np.float64).dtype == np.float64
    assert repr(a) == "<tgc.DeviceArray int64 (4,) on cpu>"


def test_cuda_array_interface_is_only_for_cuda_memory():
    a = _tgc._device_array(np.zeros(2, np.float32))
    with pytest.raises(tgc.TypeError, match="only for results on a CUDA device"):
        a.__cuda_array_interface__


def test_host_results_are_numpy_arrays_even_with_device_result():
    x = tgc.tensor.vector("x")
    f = tgc.function([x], x + 1, device_result=True)
    assert isinstance(f(np.zeros(2, np.float32)), np.ndarray)


def test_other_dlpack_host_arrays_are_read_in_place():
    # A DeviceArray over host memory is a DLPack producer that is not a NumPy array (as a
    # torch CPU tensor would be): tgc reads its memory without a copy.
    a = _tgc._device_array(np.arange(5, dtype=np.float64))
    b = _tgc._roundtrip(a, borrow=True)
    assert np.shares_memory(b, np.from_dlpack(a))
    x = tgc.tensor.dvector("x")
    np.testing.assert_array_equal(tgc.function([x], x * 2)(a), [0, 2, 4, 6, 8])
