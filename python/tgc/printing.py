"""tgc.printing: reading a graph (Theano's theano.printing)."""

from . import _tgc


def debugprint(obj, file=None, print_type=False):
    """Prints a compiled function's nodes in execution order (one line each, Theano's
    Elemwise{exp}(x) notation), or a variable's expression; returns the text printed.

    obj: a tgc.Function or a symbolic variable. file: where to print (None: stdout;
    'str': return the text without printing). print_type: add each variable's type.
    """
    if isinstance(obj, _tgc.Function):
        lines = [f"{i} {node}" for i, node in enumerate(obj.toposort())]
    elif isinstance(obj, _tgc.Var):
        lines = [str(obj) + (f" [{obj.type}]" if print_type else "")]
    else:
        raise TypeError(f"debugprint takes a tgc.Function or a variable, got {type(obj).__name__}")
    text = "\n".join(lines)
    if file == "str":
        return text
    print(text, file=file)
    return text
