"""tgc.theano.printing: Theano's theano.printing (debugprint)."""

from ..printing import debugprint  # noqa: F401
