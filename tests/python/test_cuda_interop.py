# CUDA arrays between tgc and PyTorch / CuPy through DLPack, without copies (issue 22): a tgc
# result read by torch.from_dlpack / cupy.from_dlpack at the same device address, and their
# arrays passed to tgc functions and read in place (a view of the argument comes back at
# the argument's address). Needs a CUDA device and the peer libraries: skipped otherwise.
import numpy as np
import pytest

import tgc

T = tgc.tensor

CUDA = any(line.startswith("cuda") and " available" in line for line in tgc.devices())
pytestmark = pytest.mark.skipif(not CUDA, reason="no CUDA device in this build or machine")


def address(a):
    return a.__cuda_array_interface__["data"][0]


def test_a_result_is_a_torch_tensor_at_the_same_address_and_back():
    torch = pytest.importorskip("torch")
    x = T.vector("x")
    f = tgc.function([x], x * 2 + 1, device="cuda", device_result=True)
    r = f(np.arange(4, dtype=np.float32))
    t = torch.from_dlpack(r)
    assert t.is_cuda and t.data_ptr() == address(r)
    np.testing.assert_array_equal(t.cpu().numpy(), [1, 3, 5, 7])
    view = tgc.function([x], x[1:], device="cuda", device_result=True, borrow=True)
    back = view(t)
    assert address(back) == t.data_ptr() + 4, "the argument was copied"
    np.testing.assert_array_equal(np.asarray(back), [3, 5, 7])


def test_a_torch_tensor_still_being_written_is_read_after_its_writes():
    # torch's kernel runs on its own stream; DLPack's handshake makes tgc's stream wait for it.
    torch = pytest.importorskip("torch")
    x = T.vector("x")
    f = tgc.function([x], x * 2 + 1, device="cuda", device_result=True)
    for _ in range(3):
        big = torch.rand(1 << 24, device="cuda")
        u = (big * 3).sqrt()  # queued, likely still running when tgc reads u
        got = torch.from_dlpack(f(u))
        torch.testing.assert_close(got, u * 2 + 1)


def test_cupy_arrays_both_ways():
    cupy = pytest.importorskip("cupy")
    x = T.vector("x")
    f = tgc.function([x], x * 2 + 1, device="cuda", device_result=True)
    r = f(np.arange(4, dtype=np.float32))
    c = cupy.from_dlpack(r)
    assert c.data.ptr == address(r)
    np.testing.assert_array_equal(cupy.asnumpy(c), [1, 3, 5, 7])
    view = tgc.function([x], x[1:], device="cuda", device_result=True, borrow=True)
    back = view(c)
    assert address(back) == c.data.ptr + 4, "the argument was copied"
    np.testing.assert_array_equal(np.asarray(back), [3, 5, 7])


def test_a_cuda_array_to_a_cpu_function_is_copied_to_the_host():
    torch = pytest.importorskip("torch")
    x = T.vector("x")
    f = tgc.function([x], x + 1, device="cpu")
    np.testing.assert_array_equal(f(torch.arange(3, dtype=torch.float32, device="cuda")), [1, 2, 3])
