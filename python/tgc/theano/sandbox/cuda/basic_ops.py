"""tgc.theano.sandbox.cuda.basic_ops: gpu_from_host, as in the tutorial's check2.py.

gpu_from_host(x) asks for x on the function's device: as an output it stays there (the call
returns it without copying it back); on device=cpu it changes nothing. From Python, a
device result is currently brought to the host as a NumPy array (see docs/python.md).
"""

from ...._tgc import gpu_from_host  # noqa: F401
