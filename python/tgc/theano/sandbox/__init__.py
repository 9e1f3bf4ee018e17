"""tgc.theano.sandbox: the parts of Theano's sandbox that tutorial programs use (cuda)."""

from . import cuda, rng_mrg  # noqa: F401
