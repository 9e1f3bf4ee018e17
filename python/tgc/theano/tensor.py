"""tgc.theano.tensor: Theano's theano.tensor over tgc.tensor, plus the op classes Theano
programs test nodes against (Elemwise) and the nnet names (T.nnet.sigmoid)."""

import types as _types

from ..tensor import *  # noqa: F401,F403  (Theano's names are tgc.tensor's names)
from ..tensor import sigmoid as _sigmoid, softplus as _softplus, softmax as _softmax
from .graph import Elemwise  # noqa: F401

nnet = _types.SimpleNamespace(sigmoid=_sigmoid, softplus=_softplus, softmax=_softmax)

# theano.tensor.shared_randomstreams (tensor is a module here, so the submodule is registered
# under its dotted name: `from tgc.theano.tensor.shared_randomstreams import RandomStreams`).
import sys as _sys  # noqa: E402
from . import shared_randomstreams  # noqa: E402,F401

_sys.modules[__name__ + ".shared_randomstreams"] = shared_randomstreams
