"""Issue 23's RNN training step in the peers, the same model as benchmarks/rnn_bench.cpp:
h[t] = tanh(x[t] Wx + h[t-1] Wh + b) over 100 steps (hidden 512, batch 64, input 512),
loss = mean(h**2) over every step, SGD on Wx, Wh, b. JAX with lax.scan (jit, donated
parameters), PyTorch with a Python loop over the cell (eager). One JSON line per peer: the
median step time over batches of steps, the device work included (synchronised).
    python3 benchmarks/rnn/peers.py [--device cuda|cpu] [--hidden 512] [--seq 100] [--batch 64]
"""
import argparse
import json
import statistics
import time


def timed(step, sync, steps, reps):
    for _ in range(5):
        step()
    sync()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        out.append((time.perf_counter() - t0) / steps)
    return statistics.median(out) * 1e3, min(out) * 1e3


def jax_peer(a):
    import os
    if a.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    H, T, B = a.hidden, a.seq, a.batch
    x = jax.random.normal(k1, (T, B, H), jnp.float32)
    params = (jax.random.normal(k2, (H, H), jnp.float32) / H**0.5,
              jax.random.normal(k3, (H, H), jnp.float32) / H**0.5, jnp.zeros((H,), jnp.float32))

    def loss_fn(p, x):
        wx, wh, b = p
        def cell(h, xt):
            h = jnp.tanh(xt @ wx + h @ wh + b)
            return h, h
        _, hs = jax.lax.scan(cell, jnp.zeros((B, H), jnp.float32), x)
        return jnp.mean(hs * hs)

    @jax.jit
    def train(p, x):
        loss, g = jax.value_and_grad(loss_fn)(p, x)
        return tuple(w - 0.01 * gw for w, gw in zip(p, g)), loss

    train = jax.jit(train.__wrapped__ if hasattr(train, "__wrapped__") else train, donate_argnums=0)
    state = {"p": params, "loss": None}

    def step():
        state["p"], state["loss"] = train(state["p"], x)

    ms, best = timed(step, lambda: state["loss"].block_until_ready(), a.steps, a.reps)
    return {"bench": "rnn_step", "impl": "jax lax.scan", "device": a.device, "ms": round(ms, 3),
            "min_ms": round(best, 3), "jax": jax.__version__}


def torch_peer(a):
    import torch
    dev = torch.device("cuda" if a.device == "cuda" else "cpu")
    g = torch.Generator(device="cpu").manual_seed(0)
    H, T, B = a.hidden, a.seq, a.batch
    x = torch.randn(T, B, H, generator=g).to(dev)
    wx = (torch.randn(H, H, generator=g) / H**0.5).to(dev).requires_grad_()
    wh = (torch.randn(H, H, generator=g) / H**0.5).to(dev).requires_grad_()
    b = torch.zeros(H, device=dev, requires_grad=True)

    def step():
        h = torch.zeros(B, H, device=dev)
        hs = []
        for t in range(T):
            h = torch.tanh(x[t] @ wx + h @ wh + b)
            hs.append(h)
        loss = torch.stack(hs).pow(2).mean()
        loss.backward()
        with torch.no_grad():
            for w in (wx, wh, b):
                w -= 0.01 * w.grad
                w.grad = None

    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    ms, best = timed(step, sync, a.steps, a.reps)
    return {"bench": "rnn_step", "impl": "pytorch cell loop", "device": a.device, "ms": round(ms, 3),
            "min_ms": round(best, 3), "torch": torch.__version__}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda")
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--seq", type=int, default=100)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--peers", default="jax,torch")
    a = p.parse_args()
    for name in a.peers.split(","):
        try:
            print(json.dumps({"jax": jax_peer, "torch": torch_peer}[name](a)), flush=True)
        except Exception as e:  # a peer missing on this machine: say so, go on
            print(json.dumps({"bench": "rnn_step", "impl": name, "error": repr(e)}), flush=True)


if __name__ == "__main__":
    main()
