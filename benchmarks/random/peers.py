"""The peers' side of benchmarks/random_bench: 2^28 float32 uniforms on the GPU with
torch.rand, jax.random.uniform and cupy.random (each where it imports), timed as random_bench
times tgc (batches of calls, the median of several, ending with a device sync), one JSON line
each. The generation's bandwidth counts the 4 bytes written per element.
Usage: python benchmarks/random/peers.py [--log2n 28] [--calls 20]"""
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


def report(peer, n, s):
    print(json.dumps({"bench": "philox_uniform", "peer": peer, "n": n, "seconds": round(s, 6),
                      "GBps": round(4 * n / s / 1e9, 1)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2n", type=int, default=28)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--repeats", type=int, default=7)
    a = p.parse_args()
    n = 1 << a.log2n
    try:
        import torch
        g = torch.Generator(device="cuda").manual_seed(1)  # Philox4x32-10 (curand's), as tgc's
        box = [None]

        def draw():
            box[0] = None
            box[0] = torch.rand(n, device="cuda", dtype=torch.float32, generator=g)
        report("torch.rand", n, timed(draw, torch.cuda.synchronize, a.calls, a.repeats))
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        print(json.dumps({"bench": "philox_uniform", "peer": "torch.rand", "skipped": str(e)[:200]}), flush=True)
    try:
        import jax
        import jax.numpy as jnp
        key = [jax.random.PRNGKey(1)]
        uniform = jax.jit(lambda k: jax.random.uniform(k, (n,), dtype=jnp.float32))
        box = [None]

        def draw():
            key[0], sub = jax.random.split(key[0])
            box[0] = uniform(sub)
        report("jax.random.uniform (threefry)", n,
               timed(draw, lambda: box[0].block_until_ready(), a.calls, a.repeats))
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"bench": "philox_uniform", "peer": "jax.random.uniform", "skipped": str(e)[:200]}), flush=True)
    try:
        import cupy
        rs = cupy.random.RandomState(1, method=cupy.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
        box = [None]

        def draw():
            box[0] = None
            box[0] = rs.random_sample(n, dtype=cupy.float32)
        report("cupy.random (curand philox)", n,
               timed(draw, cupy.cuda.runtime.deviceSynchronize, a.calls, a.repeats))
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"bench": "philox_uniform", "peer": "cupy.random", "skipped": str(e)[:200]}), flush=True)


if __name__ == "__main__":
    main()
