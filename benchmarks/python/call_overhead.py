"""The cost of one Python call of a small compiled function, next to the same call from C++
and, where they are installed, from PyTensor (pytensor.function) and JAX (jax.jit).

The function is call_overhead_bench's pure one (x * 2 + 1 on 16 float32 values), so the time
is the per-call work: argument conversion, the call, wrapping the result. Given the path of
build/benchmarks/call_overhead_bench, the C++ time is measured in the same run. Each time is
the best of 7 repeats (the machine's noise only adds).

    PYTHONPATH=build/python python3 benchmarks/python/call_overhead.py build/benchmarks/call_overhead_bench
"""

import json
import subprocess
import sys
import timeit

import numpy as np

import tgc
import tgc.tensor as T


def best_us(call, repeats=7, number=100_000):
    call()
    return min(timeit.repeat(call, repeat=repeats, number=number)) / number * 1e6


def python_call_us():
    x = T.fvector("x")
    f = tgc.function([x], x * 2.0 + 1.0)
    arg = np.zeros(16, np.float32)
    return best_us(lambda: f(arg))


def pytensor_call_us():
    import pytensor
    import pytensor.tensor as pt
    x = pt.fvector("x")
    f = pytensor.function([x], x * 2.0 + 1.0)
    arg = np.zeros(16, np.float32)
    return best_us(lambda: f(arg))


def jax_call_us():
    import jax
    f = jax.jit(lambda x: x * 2.0 + 1.0)
    arg = np.zeros(16, np.float32)
    return best_us(lambda: f(arg).block_until_ready())


def cpp_call_us(bench):
    out = subprocess.run([bench, "--benchmark_filter=BM_SmallCall/0$", "--benchmark_format=json",
                          "--benchmark_repetitions=7", "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, check=True).stdout
    runs = json.loads(out)["benchmarks"]
    return min(r["real_time"] for r in runs if r.get("aggregate_name") in ("min", "median", "mean"))


def main():
    py = python_call_us()
    print(f"tgc, Python call:  {py:.3f} us")
    if len(sys.argv) > 1:
        cpp = cpp_call_us(sys.argv[1])
        print(f"tgc, C++ call:     {cpp:.3f} us  (Python adds {py - cpp:.3f} us)")
    for name, measure in (("pytensor.function", pytensor_call_us), ("jax.jit", jax_call_us)):
        try:
            print(f"{name + ':':18} {measure():.3f} us")
        except ImportError:
            print(f"{name + ':':18} not installed")


if __name__ == "__main__":
    main()
