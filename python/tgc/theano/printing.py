"""tgc.theano.printing: Theano's theano.printing (debugprint, pydotprint)."""

from ..printing import debugprint, pydotprint  # noqa: F401
