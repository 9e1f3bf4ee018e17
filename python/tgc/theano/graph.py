"""Theano's view of a compiled graph (f.maker.fgraph.toposort()) over tgc's node list.

tgc names its nodes as Theano printed them -- 'Elemwise{exp}(x)', 'Gemv(...)' -- so each
node becomes an Apply whose op is an instance of a class of that name: programs that test
isinstance(node.op, T.Elemwise) or node.op.__class__.__name__ == 'Gemv' work unchanged.
tgc fuses elementwise work into Composite kernels, which count as Elemwise here (as
Theano's own fused Composite ops were Elemwise ops). A node that runs on a GPU (or OpenCL)
device is named with Theano's Gpu prefix -- GpuElemwise, GpuGemv -- and is no Elemwise,
so the tutorial's checks print "Used the gpu" there; transfers keep tgc's names
(HostToDevice, DeviceToHost).
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


_TRANSFERS = ("HostToDevice", "DeviceToHost")


class Apply:
    """One node of a compiled graph: .op, printed as tgc prints the node (with Theano's Gpu
    prefix when it runs on the device)."""

    def __init__(self, text, on_device=False):
        name = text
        for stop in "{(":
            name = name.split(stop, 1)[0]
        if on_device and name not in _TRANSFERS:
            name = "Gpu" + ("Elemwise" if name == "Composite" else name)
            text = "Gpu" + text
        self.text = text
        self.op = op_class(name)(text.split("(", 1)[0])

    def __repr__(self):
        return self.text


class FunctionGraph:
    """The compiled graph of a function (Theano's fgraph)."""

    def __init__(self, function):
        self._function = function

    def toposort(self):
        """The nodes in execution order, as Apply objects."""
        return [Apply(text, on_device)
                for text, on_device in zip(self._function.toposort(), self._function.on_device())]


class FunctionMaker:
    """What made a function (Theano's f.maker): here only its graph, .fgraph."""

    def __init__(self, function):
        self.fgraph = FunctionGraph(function)
