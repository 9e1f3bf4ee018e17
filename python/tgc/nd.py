"""Eager arrays on a device: mxnet's ``nd`` and PyCUDA's ``gpuarray`` on tgc's compiler.

    import numpy as np
    import tgc.nd as nd

    a = nd.array(np.random.randn(4, 4).astype(np.float32), device="cuda")  # gpuarray.to_gpu
    c = a * 2 + a * a          # recorded; runs as one fused kernel when read
    print(c.get())             # PyCUDA's get(); mxnet's asnumpy() also works

Arrays are ``tgc.DeviceArray``: operators (``+ - * / // % ** @``, comparisons, unary ``-``),
methods (``sum mean max min prod``, ``reshape``, ``.T``, ``astype``, indexing), and the
functions below. Any function of ``tgc.tensor`` applies through ``nd.eager(fn, *arrays)``. A
DeviceArray is an argument of a ``tgc.function`` for its device without a copy, and
``device_result=True`` functions return DeviceArrays. Elementwise work is fused lazily until
a value is needed (``TGC_FLAGS=eager_fusion=off`` runs each operation at once). See
docs/eager.md.
"""
from . import _tgc
from . import tensor as _T

__all__ = [
    "array", "to_gpu", "to_device", "empty", "zeros", "ones", "full", "arange", "uniform", "normal", "seed", "eager",
    "exp", "log", "log1p", "expm1", "sqrt", "square", "sin", "cos", "tanh", "sigmoid", "abs", "floor", "ceil",
    "sign", "maximum", "minimum", "where", "clip", "dot", "sum", "mean", "max", "min", "argmax", "argmin",
    "softmax", "log_softmax", "concatenate", "stack",
]


def array(value, device="cpu"):
    """A copy of value (a NumPy array, list, number or DeviceArray) on device ("cpu", "cuda",
    "cuda:1", "opencl"); mxnet's nd.array(value, ctx)."""
    return _tgc._nd_array(value, device)


def to_device(value, device):
    """array(value, device)."""
    return _tgc._nd_array(value, device)


def to_gpu(value, device="cuda"):
    """PyCUDA's gpuarray.to_gpu: a copy of value on a CUDA device."""
    return _tgc._nd_array(value, device)


def _shape(shape):
    return [int(shape)] if isinstance(shape, int) else [int(d) for d in shape]


def empty(shape, dtype=None, device="cpu"):
    """An uninitialised array (dtype: floatX)."""
    return _tgc._nd_empty(_shape(shape), dtype, device)


def full(shape, value, dtype=None, device="cpu"):
    """An array holding value everywhere, filled on the device."""
    return _tgc._nd_full(_shape(shape), float(value), dtype, device)


def zeros(shape, dtype=None, device="cpu"):
    return full(shape, 0, dtype, device)


def ones(shape, dtype=None, device="cpu"):
    return full(shape, 1, dtype, device)


def arange(start, stop=None, step=1, dtype=None, device="cpu"):
    """NumPy's arange, made on the device."""
    if stop is None:
        start, stop = 0, start
    return _tgc._nd_arange(float(start), float(stop), float(step), dtype, device)


def uniform(shape, low=0.0, high=1.0, dtype=None, device="cpu"):
    """Uniform values in [low, high), drawn on the device (Philox; the same numbers on every
    device for the same seed and sequence of draws)."""
    return _tgc._nd_uniform(_shape(shape), float(low), float(high), dtype, device)


def normal(shape, mean=0.0, std=1.0, dtype=None, device="cpu"):
    """Normal values mean + std * z, drawn on the device."""
    return _tgc._nd_normal(_shape(shape), float(mean), float(std), dtype, device)


def seed(value):
    """Starts every device's eager random stream again from value."""
    _tgc._nd_seed(int(value))


def eager(fn, *arrays):
    """fn applied to the arrays now: fn takes one tgc Var per array and returns an expression
    of tgc.tensor's functions, e.g. nd.eager(lambda x: tgc.tensor.logsumexp(x, axis=1), a)."""
    return _tgc._eager(fn, *arrays)


def _unary(name):
    op = getattr(_T, name)

    def f(x):
        return _tgc._eager(op, x)
    f.__name__ = name
    f.__doc__ = "tgc.tensor.%s on an array, now (lazily fused when elementwise)." % name
    return f


exp, log, log1p, expm1, sqrt, square = (_unary(n) for n in ("exp", "log", "log1p", "expm1", "sqrt", "square"))
sin, cos, tanh, sigmoid, abs, floor, ceil, sign = (  # noqa: A001 - NumPy's names
    _unary(n) for n in ("sin", "cos", "tanh", "sigmoid", "abs", "floor", "ceil", "sign"))


def maximum(a, b):
    return _tgc._eager(_T.maximum, a, b)


def minimum(a, b):
    return _tgc._eager(_T.minimum, a, b)


def where(cond, a, b):
    return _tgc._eager(_T.where, cond, a, b)


def clip(x, lo, hi):
    return _tgc._eager(lambda v: _T.clip(v, lo, hi), x)


def dot(a, b):
    return _tgc._eager(_T.dot, a, b)


def sum(x, axis=None, keepdims=False):  # noqa: A001 - NumPy's name
    return x.sum(axis, keepdims)


def mean(x, axis=None, keepdims=False):
    return x.mean(axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return x.max(axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return x.min(axis, keepdims)


def argmax(x, axis=None, keepdims=False):
    return _tgc._eager(lambda v: _T.argmax(v, axis=axis, keepdims=keepdims), x)


def argmin(x, axis=None, keepdims=False):
    return _tgc._eager(lambda v: _T.argmin(v, axis=axis, keepdims=keepdims), x)


def softmax(x, axis=-1):
    return _tgc._eager(lambda v: _T.softmax(v, axis=axis), x)


def log_softmax(x, axis=-1):
    return _tgc._eager(lambda v: _T.log_softmax(v, axis=axis), x)


def concatenate(arrays, axis=0):
    return _tgc._eager(lambda *v: _T.concatenate(list(v), axis=axis), *arrays)


def stack(arrays, axis=0):
    return _tgc._eager(lambda *v: _T.stack(list(v), axis=axis), *arrays)
