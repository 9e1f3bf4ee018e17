"""tgc.theano.sandbox.cuda: Theano's old CUDA backend names, mapped to tgc's devices."""

from . import basic_ops  # noqa: F401
