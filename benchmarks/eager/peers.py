"""The peers' side of benchmarks/eager_bench (issue 28): the same measurements with NumPy
(host), PyTorch eager (host and cuda) and CuPy (cuda), each where it imports, timed as
eager_bench times tgc (batches ending with a device sync, the median of several), one JSON line
each:
  small_op  c = a + b on 1024 float32, per operation
  chain     c = a * 2 + b * 3 - a * b on 2^log2n float32 (several kernels for these peers;
            its GB/s counts the 12 bytes per element a fused kernel moves)
  copy      a device-to-device copy (torch, cupy), counting bytes read and written
Usage: python benchmarks/eager/peers.py [--device cpu|cuda] [--log2n 26] [--calls 20]"""
import argparse
import json
import statistics
import time


def timed(call, sync, calls, repeats):
    for _ in range(3):
        call()
    sync()
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        sync()
        t.append((time.perf_counter() - t0) / calls)
    return statistics.median(t)


def report(bench, peer, device, s, nbytes=0):
    line = {"bench": bench, "peer": peer, "device": device, "seconds": round(s, 9)}
    if nbytes:
        line["GBps"] = round(nbytes / s / 1e9, 1)
    print(json.dumps(line), flush=True)


def run(peer, device, xp, make, sync, n, a):
    x, y = make(1024, 1.0), make(1024, 2.0)
    box = [None]

    def small():
        box[0] = x + y
    report("small_op", peer, device, timed(small, sync, 2000, a.repeats))
    p, q = make(n, 1.5), make(n, 0.5)

    def chain():
        box[0] = None
        box[0] = p * 2 + q * 3 - p * q
    report("chain", peer, device, timed(chain, sync, a.calls, a.repeats), 12 * n)
    if device == "cuda":
        dst = make(n, 0.0)

        def copy():
            dst[...] = p
        report("copy", peer, device, timed(copy, sync, a.calls, a.repeats), 8 * n)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--log2n", type=int, default=26)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--repeats", type=int, default=7)
    a = p.parse_args()
    n = 1 << a.log2n
    if a.device == "cpu":
        try:
            import numpy as np
            run("numpy", "cpu", np, lambda k, v: np.full(k, v, dtype=np.float32), lambda: None, n, a)
        except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
            print(json.dumps({"peer": "numpy", "skipped": str(e)[:200]}), flush=True)
    try:
        import torch
        dev = "cuda" if a.device == "cuda" else "cpu"
        sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
        run("torch", dev, torch, lambda k, v: torch.full((k,), v, dtype=torch.float32, device=dev), sync, n, a)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"peer": "torch", "skipped": str(e)[:200]}), flush=True)
    if a.device == "cuda":
        try:
            import cupy as cp
            run("cupy", "cuda", cp, lambda k, v: cp.full(k, v, dtype=cp.float32),
                cp.cuda.runtime.deviceSynchronize, n, a)
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"peer": "cupy", "skipped": str(e)[:200]}), flush=True)


if __name__ == "__main__":
    main()
