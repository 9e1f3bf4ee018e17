"""What every implementation of a workload provides to the harness (tgc through its CLI or its
C++ API, or a peer library), and the exception that reports one as not available."""

import time


class Unavailable(Exception):
    """This implementation cannot run this workload here; the message says why, for the table."""


class Impl:
    """One compiled workload of one implementation. Subclasses set compile_s (seconds to
    compile or jit, None where the library has no such step) and implement call(), one call
    whose outputs are kept as self.last, and sync(), waiting for device work to finish."""

    compile_s = None

    def __init__(self):
        self.last = None

    def call(self):
        raise NotImplementedError

    def sync(self):
        pass

    def run(self, iters):
        """Seconds for `iters` calls, device work included."""
        start = time.perf_counter()
        for _ in range(iters):
            self.call()
        self.sync()
        return time.perf_counter() - start

    def outputs(self, calls):
        """The outputs (NumPy arrays on the host) after `calls` calls from the initial state."""
        self.run(calls)
        return [self.to_numpy(o) for o in self.last]

    def params(self):
        """The trained parameters now (NumPy arrays, in the workload's `params` order), or None
        where this implementation cannot read them back (the CLI)."""
        return None

    @staticmethod
    def to_numpy(value):
        import numpy as np
        return np.asarray(value)

    def close(self):
        pass
