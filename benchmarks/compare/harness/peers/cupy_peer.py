"""CuPy: the NumPy formulas (formulas.py) on a CUDA GPU; results to the host where the
workload asks for it, else synchronised once per repetition."""

from ..impl import Impl, Unavailable
from . import formulas

NAME = "cupy"


def probe(device):
    if device == "cpu":
        raise Unavailable("CuPy needs a CUDA GPU (run with --device cuda)")
    try:
        import cupy
    except ImportError as e:
        raise Unavailable(f"not installed ({e})")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDARuntimeError when there is no driver or device
        raise Unavailable(f"no usable CUDA device ({e})")
    return cupy.__version__


class CupyImpl(Impl):
    def __init__(self, w, data, device):
        super().__init__()
        import cupy
        self.cp = cupy
        index = int(device.split(":")[1]) if ":" in device else 0
        self.dev = cupy.cuda.Device(index)
        self.dev.use()
        self.step = formulas.make(w.kind, cupy, data)
        self.to_host = w.outputs_on_host

    def call(self):
        self.last = self.step()
        if self.to_host:
            self.last = [o.get() for o in self.last]

    def sync(self):
        self.dev.synchronize()

    def params(self):
        return [a.get() for a in self.step.params()] if hasattr(self.step, "params") else None

    def to_numpy(self, value):
        return value.get() if hasattr(value, "get") else value


def build(w, data, device):
    return CupyImpl(w, data, device)
