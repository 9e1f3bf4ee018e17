"""tgc.theano: Theano's module layout over tgc, so Theano programs run with only their
import lines changed::

    from tgc.theano import function, config, shared, sandbox   # was: from theano import ...
    import tgc.theano.tensor as T                             # was: import theano.tensor as T

What tgc does not copy from Theano fails with a clear error rather than silently
differing: givens=, modes other than FAST_RUN/FAST_COMPILE, test values (x.tag.test_value
is stored but never computed, as with Theano's default compute_test_value='off').
"""

import numpy as _np

from .. import _tgc
from .. import function as _function
from ..config import config
from .._tgc import shared, grad  # noqa: F401  (Theano's theano.shared, theano.grad)
from . import tensor, printing, sandbox  # noqa: F401
from .graph import FunctionMaker

__all__ = ["function", "config", "shared", "grad", "tensor", "printing", "sandbox"]

_MODES = {None: {}, "FAST_RUN": {}, "FAST_COMPILE": {"optimizer": "fast_compile"}}


def function(inputs, outputs=None, mode=None, updates=None, givens=None, name=None,
             profile=None, allow_input_downcast=None, on_unused_input=None, **unsupported):
    """Theano's theano.function: tgc.function with Theano's keywords.

    mode: None, 'FAST_RUN' or 'FAST_COMPILE'. allow_input_downcast=True converts arguments
    to the inputs' dtypes (NumPy's astype) before each call. The result has f.maker.fgraph
    for programs that inspect the compiled graph. Other Theano keywords (no_default_updates,
    accept_inplace, rebuild_strict) are not supported: a TypeError names them.
    """
    if unsupported:
        raise TypeError(f"tgc.theano.function does not support {', '.join(sorted(unsupported))}")
    if mode not in _MODES:
        raise _tgc.ValueError(f"mode {mode!r} is not supported: use None, 'FAST_RUN' or 'FAST_COMPILE'")
    del on_unused_input  # tgc compiles functions with unused inputs without complaint
    f = _function(inputs, outputs, updates=updates, givens=givens, name=name,
                  profile=bool(profile), **_MODES[mode])
    if allow_input_downcast:
        f = _Downcasting(f, [i.dtype for i in inputs])
    f.maker = FunctionMaker(f)
    return f


class _Downcasting:
    """A function whose arguments are converted to its inputs' dtypes first."""

    def __init__(self, function, dtypes):
        self._function = function
        self._dtypes = dtypes

    def __call__(self, *args):
        return self._function(*[_np.asarray(a).astype(d, copy=False) for a, d in zip(args, self._dtypes)])

    def toposort(self):
        return self._function.toposort()

    def __getattr__(self, name):
        return getattr(self._function, name)
