"""tgc: a symbolic tensor-graph compiler with Theano's vocabulary.

Build a graph from symbolic variables (tgc.tensor), compile it with tgc.function, call the
result with NumPy arrays::

    import numpy as np
    import tgc
    import tgc.tensor as T

    x = T.vector("x")
    f = tgc.function([x], T.exp(x))
    f(np.arange(3, dtype=tgc.config.floatX))

The Theano spelling of the same program runs through tgc.theano (see docs/python.md).
"""

import atexit as _atexit
import warnings as _warnings

from . import _tgc
from ._tgc import (  # noqa: F401  (the package's public names)
    Error, TypeError, ShapeError, ValueError, IndexError, InputError, ConfigError, IOError,
    DeviceError, CommError, InternalError, Function, DeviceArray, shared, version, ifelse, scan, until,
    RandomStreams, set_default_update, clear_default_update, default_update,
)


class TgcWarning(UserWarning):
    """A warning of tgc's (a kernel-cache directory it cannot use, float64 in a float32 graph
    under warn_float64=True, ...): the work goes on. Filter it with the warnings module."""


def _warn_kept(stacklevel=3):
    # tgc keeps its warnings while C++ runs (docs/python.md, "Warnings"); they are given to
    # Python here, from the call that made them, so that they point at the caller's line.
    for text in _tgc._take_warnings():
        _warnings.warn(text, TgcWarning, stacklevel=stacklevel)


_tgc._route_warnings(True)
_atexit.register(_tgc._route_warnings, False)  # tgc's last words (profiles) go to stderr
from .config import config
from . import tensor, printing, nd

__version__ = version()

__all__ = [
    "Error", "TypeError", "ShapeError", "ValueError", "IndexError", "InputError", "ConfigError",
    "IOError", "DeviceError", "CommError", "InternalError", "Function", "DeviceArray", "function", "shared",
    "grad", "ifelse", "scan", "until", "config", "tensor", "printing", "nd", "devices", "version",
    "RandomStreams", "set_default_update", "clear_default_update", "default_update", "TgcWarning",
    "save", "load_function", "load_functions", "saved_function_names", "save_shared", "load_shared", "save_tg",
]


def grad(cost, wrt):
    """d cost / d wrt (Theano's grad): cost a 0-d float tensor, wrt a variable or a list of
    them (then a list of gradients). Each gradient has its variable's dtype and rank."""
    try:
        return _tgc.grad(cost, wrt)
    finally:
        _warn_kept()


def function(inputs, outputs=None, updates=None, givens=None, name=None, profile=False,
             device=None, borrow=False, device_result=False, no_default_updates=False, **flags):
    """Compiles a function from symbolic inputs to outputs (Theano's theano.function).

    inputs: a list of symbolic variables, one argument each.
    outputs: a variable (the call returns one array) or a list of them (a list of arrays).
    updates: (shared variable, new value) pairs or a dict; applied together after a call
        succeeded, computed from the values before it.
    name: shown in errors and profiles. profile: time every node; f.profile_report() gives
        the report, which is also printed when the function is freed.
    device: 'cpu', 'cuda', 'cuda:1', 'opencl' (default: config.device).
    borrow: results may alias arguments, shared values or each other (no defensive copy).
    device_result: on a GPU device, every result stays there and is returned as a
        tgc.DeviceArray (DLPack and __cuda_array_interface__, no copy; numpy.asarray(r)
        copies it to the host). Outputs marked with gpu_from_host stay there anyway.
    no_default_updates: leave out the default updates of the shared variables the function
        reaches (a tgc.RandomStreams draw then repeats its numbers on every call).
    flags: further config keys for this function only, e.g. allow_gc=False.
    givens: {variable: replacement} (or (variable, replacement) pairs): the function reads
        the replacement wherever the outputs and updates read the variable, e.g.
        givens={x: data[i]} to train on the row of a shared dataset picked by an index input.
        Same dtype and rank; an input of the function cannot be replaced.

    Compiling releases the GIL; so does every call of the result.
    """
    text_flags = {k: _flag_text(v) for k, v in flags.items()}
    try:
        return _tgc.function(inputs, outputs, updates, givens, name or "", bool(profile), device,
                             bool(borrow), bool(device_result), text_flags, bool(no_default_updates))
    finally:
        _warn_kept()


def _flag_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def devices():
    """The devices this build of tgc can run on, one line each (what `tgc devices` prints)."""
    return _tgc.devices()


def save(functions, path):
    """Writes a tgc.Function, or a list of them sharing their shared variables, to one file
    (docs/save.md): each function's graphs, configuration, shared values and compiled kernels.
    tgc.load_function in another process loads it without optimizing or compiling again."""
    return _tgc.save(functions, str(path))


def load_function(path, name=None, shared=None, **flags):
    """The function `name` of a saved file (None: the file must hold one). `shared`: shared
    variables of this process to use instead of the file's of the same name. flags: config
    keys on top of the saved ones (cache_dir=..., device=...). A loaded function with one
    output returns one array."""
    text_flags = {k: _flag_text(v) for k, v in flags.items()}
    try:
        return _tgc.load_function(str(path), name or "", text_flags, list(shared or []))
    finally:
        _warn_kept()


def load_functions(path, shared=None, **flags):
    """Every function of a saved file, in the order saved, over one set of shared variables."""
    text_flags = {k: _flag_text(v) for k, v in flags.items()}
    try:
        return _tgc.load_functions(str(path), text_flags, list(shared or []))
    finally:
        _warn_kept()


def saved_function_names(path):
    """The names of the functions a saved file holds."""
    return _tgc.saved_function_names(str(path))


def save_shared(variables, path):
    """A checkpoint: the values of named shared variables (each name once) to `path`."""
    return _tgc.save_shared(list(variables), str(path))


def load_shared(variables, path):
    """Sets each shared variable from the checkpoint's value of its name; all or none."""
    return _tgc.load_shared(list(variables), str(path))


def save_tg(functions, path):
    """Writes a tgc.Function (or a list) as a readable .tg program at `path`, their shared values
    and larger constants as .npy files beside it; `tgc run path` builds the functions again."""
    return _tgc.save_tg(functions, str(path))
