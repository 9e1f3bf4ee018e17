"""tgc.theano.sandbox: the parts of Theano's sandbox that tutorial programs use (cuda)."""

from . import cuda  # noqa: F401
