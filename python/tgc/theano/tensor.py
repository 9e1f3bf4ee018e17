"""tgc.theano.tensor: Theano's theano.tensor over tgc.tensor, plus the op classes Theano
programs test nodes against (Elemwise) and the nnet names (T.nnet.sigmoid)."""

import types as _types

from ..tensor import *  # noqa: F401,F403  (Theano's names are tgc.tensor's names)
from ..tensor import sigmoid as _sigmoid, softplus as _softplus, softmax as _softmax
from .graph import Elemwise  # noqa: F401

nnet = _types.SimpleNamespace(sigmoid=_sigmoid, softplus=_softplus, softmax=_softmax)
