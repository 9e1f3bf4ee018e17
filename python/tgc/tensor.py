"""tgc.tensor: symbolic tensors and the operations on them (Theano's theano.tensor).

Constructors: scalar, vector, matrix, tensor3, tensor4 (dtype defaults to config.floatX),
the typed ones b/w/i/l/f/d + scalar/vector/matrix/tensor3/tensor4 (int8, int16, int32,
int64, float32, float64: fmatrix, dvector, iscalar, ...), tensor(dtype, shape), constant.
Operations: elementwise math, comparisons, reductions (axis=, keepdims=), dot and friends,
shapes, indexing helpers, joining, creation; see each function's docstring.
"""

from . import _tgc
from ._tgc import (  # noqa: F401  (re-exported: the module's public names)
    Var, SharedVariable, scalar, vector, matrix, tensor3, tensor4, tensor, constant,
    neg, abs, sign, logical_not, isnan, isinf, exp, exp2, expm1, log, log2, log10, log1p,
    sqrt, rsqrt, square, sqr, sin, cos, tan, tanh, sinh, cosh, arcsin, arccos, arctan, erf,
    erfc, sigmoid, softplus, floor, ceil, round, trunc,
    add, sub, mul, true_div, floor_div, mod, pow, maximum, minimum, lt, le, gt, ge, eq, neq,
    logical_and, logical_or, logical_xor, arctan2, clip, where, switch, cast,
    sum, prod, mean, max, min, all, any, logsumexp, argmax, argmin,
    dot, batched_dot, matmul, outer, softmax, log_softmax,
    reshape, flatten, transpose, squeeze, expand_dims, shape, concatenate, stack, split,
    set_subtensor, inc_subtensor, take,
    alloc, zeros, ones, zeros_like, ones_like, fill, arange, eye,
    grad, stop_gradient, jacobian, hessian, Lop,
    conv2d, conv2d_grad_input, conv2d_grad_weights, conv_transpose2d, max_pool2d, avg_pool2d,
    batch_normalization_train, batch_normalization_test,
)

# Theano's names for the same things.
TensorVariable = Var
TensorSharedVariable = SharedVariable
sgn = sign
dimshuffle = Var.dimshuffle

_RANK_CONSTRUCTORS = {"scalar": scalar, "vector": vector, "matrix": matrix,
                      "tensor3": tensor3, "tensor4": tensor4}
_PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32", "d": "float64"}


def _typed(make, dtype, name):
    def constructor(name=""):
        return make(name, dtype)
    constructor.__name__ = name
    constructor.__qualname__ = name
    constructor.__doc__ = f"A symbolic {dtype} {make.__name__} (Theano's T.{name})."
    return constructor


for _prefix, _dtype in _PREFIXES.items():
    for _rank, _make in _RANK_CONSTRUCTORS.items():
        globals()[_prefix + _rank] = _typed(_make, _dtype, _prefix + _rank)
del _prefix, _dtype, _rank, _make


def inv(x):
    """1 / x per element."""
    return true_div(1, x)


def join(axis, *tensors):
    """Theano's join(axis, a, b, ...): concatenate((a, b, ...), axis)."""
    return concatenate(list(tensors), axis)

