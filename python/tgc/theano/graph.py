"""Theano's view of a compiled graph (f.maker.fgraph.toposort()) over tgc's node list.

tgc names its nodes as Theano printed them -- 'Elemwise{exp}(x)', 'Gemv(...)' -- so each
node becomes an Apply whose op is an instance of a class of that name: programs that test
isinstance(node.op, T.Elemwise) or node.op.__class__.__name__ == 'Gemv' work unchanged.
tgc fuses elementwise work into Composite kernels, which count as Elemwise here (as
Theano's own fused Composite ops were Elemwise ops).
"""


class Op:
    """The operation of a node; its class is named after tgc's op name ('Gemv', 'Dot', ...)."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__


class Elemwise(Op):
    """An elementwise operation on the host (Theano's T.Elemwise): tgc's Elemwise and fused
    Composite nodes."""


_op_classes = {"Elemwise": Elemwise, "Composite": Elemwise}


def op_class(name):
    """The Op subclass for a tgc op name, made on first use."""
    if name not in _op_classes:
        _op_classes[name] = type(name, (Op,), {"__doc__": f"tgc's {name} operation."})
    cls = _op_classes[name]
    return cls


class Apply:
    """One node of a compiled graph: .op, printed as tgc prints the node."""

    def __init__(self, text):
        self.text = text
        name = text
        for stop in "{(":
            name = name.split(stop, 1)[0]
        self.op = op_class(name)(text.split("(", 1)[0])

    def __repr__(self):
        return self.text


class FunctionGraph:
    """The compiled graph of a function (Theano's fgraph)."""

    def __init__(self, function):
        self._function = function

    def toposort(self):
        """The nodes in execution order, as Apply objects."""
        return [Apply(text) for text in self._function.toposort()]


class FunctionMaker:
    """What made a function (Theano's f.maker): here only its graph, .fgraph."""

    def __init__(self, function):
        self.fgraph = FunctionGraph(function)
