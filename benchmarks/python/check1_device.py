# The tutorial's check1 loop on CUDA with each result left on the device (device_result=True):
# no copy to the host and no wait per call; the last result is copied to the host inside the
# timing, as `tgc run` waits for its last call. docs/performance.md, "check1's loop from
# Python", compares it with `tgc run --device cuda examples/check1.tg --iters 1000`.
#   PYTHONPATH=build/python python3 benchmarks/python/check1_device.py
import time

import numpy

import tgc
import tgc.tensor as T

vlen = 10 * 30 * 768
iters = 1000
rng = numpy.random.RandomState(22)
x = tgc.shared(numpy.asarray(rng.rand(vlen), "float32"), name="x")
f = tgc.function([], T.exp(x), device="cuda", device_result=True)
t0 = time.time()
for i in range(iters):
    r = f()
last = numpy.asarray(r)
t1 = time.time()
print("Looping %d times took %f seconds" % (iters, t1 - t0))
print("Result is %s" % (last,))
