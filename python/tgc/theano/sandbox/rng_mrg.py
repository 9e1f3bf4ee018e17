"""tgc.theano.sandbox.rng_mrg: Theano's MRG_RandomStreams, here tgc.RandomStreams under that
name. Its draws run on the GPU as MRG's did, but come from Philox4x32-10: programs get
different numbers than Theano's MRG31k3p, with the same distributions (docs/random.md)."""

from ..._tgc import RandomStreams as MRG_RandomStreams  # noqa: F401

__all__ = ["MRG_RandomStreams"]
