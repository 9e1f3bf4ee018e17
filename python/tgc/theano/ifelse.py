"""tgc.theano.ifelse: Theano's theano.ifelse module (from theano.ifelse import ifelse).

ifelse(cond, then_branch, else_branch) computes only the branch the scalar cond picks;
lists of values choose several results by one condition (docs/control-flow.md).
"""

from .._tgc import ifelse  # noqa: F401

__all__ = ["ifelse"]
