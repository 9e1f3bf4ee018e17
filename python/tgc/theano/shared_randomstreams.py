"""tgc.theano.tensor.shared_randomstreams: Theano's RandomStreams, which is tgc.RandomStreams
(Philox4x32-10 draws in the graph; the same numbers on every device, not Theano's numbers)."""

from .._tgc import RandomStreams  # noqa: F401

__all__ = ["RandomStreams"]
