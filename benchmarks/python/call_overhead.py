"""The cost of one Python call of a small compiled function, next to the same call from C++.

The function is call_overhead_bench's pure one (x * 2 + 1 on 16 float32 values), so the time
is the per-call work: argument conversion, the C++ call, wrapping the result. Given the path
of build/benchmarks/call_overhead_bench, the C++ time is measured in the same run.

    PYTHONPATH=build/python python3 benchmarks/python/call_overhead.py build/benchmarks/call_overhead_bench
"""

import json
import subprocess
import sys
import timeit

import numpy as np

import tgc
import tgc.tensor as T


def python_call_us(repeats=7, number=200_000):
    x = T.fvector("x")
    f = tgc.function([x], x * 2.0 + 1.0)
    arg = np.zeros(16, np.float32)
    f(arg)
    return min(timeit.repeat(lambda: f(arg), repeat=repeats, number=number)) / number * 1e6


def cpp_call_us(bench):
    out = subprocess.run([bench, "--benchmark_filter=BM_SmallCall/0$", "--benchmark_format=json",
                          "--benchmark_repetitions=7", "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, check=True).stdout
    runs = json.loads(out)["benchmarks"]
    return min(r["real_time"] for r in runs if r.get("aggregate_name") in ("min", "median", "mean"))


def main():
    py = python_call_us()
    print(f"python call: {py:.3f} us")
    if len(sys.argv) > 1:
        cpp = cpp_call_us(sys.argv[1])
        print(f"C++ call:    {cpp:.3f} us")
        print(f"difference:  {py - cpp:.3f} us")


if __name__ == "__main__":
    main()
