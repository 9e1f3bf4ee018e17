"""tgc.theano: Theano's module layout over tgc, so Theano programs run with only their
import lines changed::

    from tgc.theano import function, config, shared, sandbox   # was: from theano import ...
    import tgc.theano.tensor as T                             # was: import theano.tensor as T

THEANO_FLAGS is honoured as the tutorial uses it (THEANO_FLAGS=mode=FAST_RUN,device=gpu,
floatX=float32 python check1.py): on import, its settings are applied on top of tgc's own
(~/.tgcrc, TGC_FLAGS), with Theano's device names gpu/gpuN/cuda meaning tgc's cuda/cuda:N.

What tgc does not copy from Theano fails with a clear error rather than silently
differing: modes other than FAST_RUN/FAST_COMPILE, test values (x.tag.test_value
is stored but never computed, as with Theano's default compute_test_value='off').
"""

import os as _os

import numpy as _np

from .. import _tgc
from .. import function as _function
from .. import grad  # noqa: F401  (Theano's theano.grad; tgc's warnings come as Python warnings)
from ..config import config
from .._tgc import shared, scan  # noqa: F401  (Theano's theano.shared, theano.scan)
from . import tensor, printing, sandbox, ifelse  # noqa: F401
from .graph import FunctionMaker

__all__ = ["function", "config", "shared", "grad", "scan", "scan_module", "tensor", "printing", "sandbox", "ifelse",
           "apply_theano_flags"]

_MODES = {None: {}, "FAST_RUN": {}, "FAST_COMPILE": {"optimizer": "fast_compile"}}


def _tgc_device(name):
    """Theano's device name as tgc's: gpu, gpuN, cuda, cudaN -> cuda, cuda:N; others as given."""
    for prefix in ("gpu", "cuda"):
        if name.startswith(prefix) and name[len(prefix):].lstrip(":").isdigit():
            return "cuda:" + name[len(prefix):].lstrip(":")
        if name == prefix:
            return "cuda"
    return name


def apply_theano_flags(flags):
    """Applies Theano's "key=value,..." flags to tgc.config: mode FAST_RUN / FAST_COMPILE
    (tgc's optimizer fast_run / fast_compile), device (Theano's names), and any tgc key
    (floatX, allow_gc, profile, ...). An unknown key or bad value is a tgc.ConfigError."""
    for item in filter(None, (part.strip() for part in flags.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise _tgc.ConfigError(f"THEANO_FLAGS item {item!r} has no '='")
        key, value = key.strip(), value.strip()
        if key == "mode":
            if value not in ("FAST_RUN", "FAST_COMPILE"):
                raise _tgc.ConfigError(f"THEANO_FLAGS mode {value!r} is not supported: use FAST_RUN or FAST_COMPILE")
            key, value = "optimizer", value.lower()
        elif key == "device":
            value = _tgc_device(value)
        _tgc.config_set(key, value)


apply_theano_flags(_os.environ.get("THEANO_FLAGS", ""))


def function(inputs, outputs=None, mode=None, updates=None, givens=None, name=None,
             profile=None, allow_input_downcast=None, on_unused_input=None, no_default_updates=False,
             **unsupported):
    """Theano's theano.function: tgc.function with Theano's keywords.

    mode: None, 'FAST_RUN' or 'FAST_COMPILE'. allow_input_downcast=True converts arguments
    to the inputs' dtypes (NumPy's astype) before each call. The result has f.maker.fgraph
    for programs that inspect the compiled graph. no_default_updates=True leaves out the
    default updates (True only; Theano's list of variables is not supported). Other Theano
    keywords (accept_inplace, rebuild_strict) are not supported: a TypeError names them.
    """
    if unsupported:
        raise TypeError(f"tgc.theano.function does not support {', '.join(sorted(unsupported))}")
    if mode not in _MODES:
        raise _tgc.ValueError(f"mode {mode!r} is not supported: use None, 'FAST_RUN' or 'FAST_COMPILE'")
    del on_unused_input  # tgc compiles functions with unused inputs without complaint
    if no_default_updates not in (True, False):
        raise TypeError("no_default_updates takes True or False (a list of variables is not supported)")
    f = _function(inputs, outputs, updates=updates, givens=givens, name=name,
                  profile=bool(profile), no_default_updates=no_default_updates, **_MODES[mode])
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

    def on_device(self):
        return self._function.on_device()

    def __getattr__(self, name):
        return getattr(self._function, name)


class scan_module:  # noqa: N801  (Theano's theano.scan_module.until)
    """theano.scan_module: `until(cond)` ends a scan after the step where cond is true."""
    from .._tgc import until
    until = staticmethod(until)
