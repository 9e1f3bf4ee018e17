"""JAX's persistent compilation cache, measured the way benchmarks/start_bench.cpp measures tgc:
the cold compile (an empty cache directory) and the warm start (the same directory, a new
process) of the logistic regression's and the MLP's training steps of benchmarks/compare
(harness/peers/jax_peer.py: the same programs), each in a child process of its own.

    python benchmarks/start_jax.py [--device cpu|gpu] [--reps 5]

Needs jax (benchmarks/compare's environment has it). A start is
jax.jit(step).lower(*args).compile(): tracing, lowering and XLA's compile, or the cache's
executable; the arguments are on the device before it is timed. The first call is timed apart.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPARE = Path(__file__).resolve().parent / "compare"

# The shapes of benchmarks/compare's logreg and mlp workloads (examples/logreg.tg, mlp.tg).
SHAPES = {
    "logreg": {"w": (784,), "b": (), "x": (400, 784), "y": (400,)},
    "mlp": {"w1": (784, 512), "b1": (512,), "w2": (512, 10), "b2": (10,), "x": (256, 784), "y1h": (256, 10)},
}


def child(kind, cache_dir, device):
    # JAX names its NVIDIA platform "cuda" ("gpu" also tries ROCm, and fails where it is absent).
    os.environ["JAX_PLATFORMS"] = "cuda" if device == "gpu" else device
    import numpy as np
    import jax
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    # Cache every executable, however quick its compile or small its entry.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    sys.path.insert(0, str(COMPARE))
    from harness.peers import jax_peer
    jax = jax_peer._jax()
    import jax.numpy as jnp
    fn, state_names, data_names = jax_peer._programs(kind, jnp, jax)
    rng = np.random.default_rng(0)
    args = [jax.device_put(rng.standard_normal(SHAPES[kind][n]).astype(np.float32)) for n in state_names + data_names]
    jax.block_until_ready(args)
    start = time.perf_counter()
    lowered = jax.jit(fn).lower(*args)
    lower_s = time.perf_counter() - start
    compiled = lowered.compile()
    start_s = time.perf_counter() - start
    start = time.perf_counter()
    jax.block_until_ready(compiled(*args))
    first_s = time.perf_counter() - start
    print(json.dumps({"start_ms": 1e3 * start_s, "lower_ms": 1e3 * lower_s, "first_call_ms": 1e3 * first_s,
                      "jax": jax.__version__}))


def run_child(kind, cache_dir, device):
    out = subprocess.run([sys.executable, __file__, "--child", kind, cache_dir, device],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if out.returncode != 0:
        sys.exit(f"the JAX start child ({kind}, {device}) failed with exit status {out.returncode}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        return child(*sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    print("load average at start:", " ".join(open("/proc/loadavg").read().split()[:3]))
    for kind in ("logreg", "mlp"):
        cold, warm, first, lower = [], [], [], []
        for _ in range(a.reps):
            with tempfile.TemporaryDirectory(prefix="jax-start-") as cache:
                c = run_child(kind, cache, a.device)
                if not any(Path(cache).iterdir()):
                    raise SystemExit(f"the cold compile of {kind} wrote nothing to the cache {cache}")
                w = run_child(kind, cache, a.device)
            cold.append(c["start_ms"])
            warm.append(w["start_ms"])
            first.append(w["first_call_ms"])
            lower.append(w["lower_ms"])
        print(f"jax {c['jax']} {kind} on {a.device}: cold {statistics.median(cold):.1f} ms, "
              f"warm {statistics.median(warm):.2f} ms (of which tracing and lowering {statistics.median(lower):.2f} ms; "
              f"first call after it {statistics.median(first):.2f} ms); "
              f"median of {a.reps}; cold {[round(x, 1) for x in cold]}, warm {[round(x, 2) for x in warm]}")
    print("load average at end:", " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
