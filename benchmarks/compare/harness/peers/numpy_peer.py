"""NumPy: every workload written as a NumPy user would, gradients by hand (NumPy has no
autodiff). Host only."""

import numpy as np

from ..impl import Impl, Unavailable
from . import formulas

NAME = "numpy"


def probe(device):
    if device != "cpu":
        raise Unavailable("NumPy runs on the CPU only")
    return np.__version__


class NumpyImpl(Impl):
    def __init__(self, w, data):
        super().__init__()
        self.step = formulas.make(w.kind, np, data)

    def call(self):
        self.last = self.step()

    def params(self):
        return [np.array(a) for a in self.step.params()] if hasattr(self.step, "params") else None


def build(w, data, device):
    return NumpyImpl(w, data)
