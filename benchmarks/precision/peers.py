#!/usr/bin/env python3
"""The peers of gpu_bench's BM_BigMlpTrainStep{,Bf16} (issue 29): one SGD step of the MLP
784-4096-4096-10 at batch 4096 (relu, softmax cross-entropy, learning rate 0.1, He
initialisation, float32 parameters), in PyTorch with torch.autocast(bfloat16) with and without
torch.compile, PyTorch in float32, and JAX with bfloat16 products (float32 parameters cast to
bfloat16 in the step, preferred_element_type float32 for the logits' softmax). Prints
milliseconds per step: the median of 5 batches of 10 steps, synchronised at each batch's end.

    python3 benchmarks/precision/peers.py [--only torch,jax]
"""
import argparse
import statistics
import time

BATCH, WIDTHS, STEPS, REPS = 4096, [784, 4096, 4096, 10], 10, 5


def timed(step, sync):
    for _ in range(3):
        step()
    sync()
    per = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(STEPS):
            step()
        sync()
        per.append((time.perf_counter() - t0) / STEPS)
    return 1e3 * statistics.median(per)


def torch_runs():
    import torch
    import torch.nn.functional as F
    dev = "cuda"
    g = torch.Generator(device="cpu").manual_seed(7)
    x = torch.randn(BATCH, 784, generator=g).to(dev)
    y = torch.randint(0, 10, (BATCH,), generator=g).to(dev)
    params = []
    for a, b in zip(WIDTHS, WIDTHS[1:]):
        params += [(torch.randn(a, b, generator=g) * (2.0 / a) ** 0.5).to(dev).requires_grad_(),
                   torch.zeros(b, device=dev, requires_grad=True)]

    def loss_of(amp):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            h = x
            for i in range(0, len(params) - 2, 2):
                h = F.relu(h @ params[i] + params[i + 1])
            logits = h @ params[-2] + params[-1]
            return F.cross_entropy(logits.float(), y)

    def make_step(amp, compiled):
        def step():
            loss = loss_of(amp)
            grads = torch.autograd.grad(loss, params)
            with torch.no_grad():
                for p, gr in zip(params, grads):
                    p.sub_(0.1 * gr)
            return loss
        return torch.compile(step) if compiled else step

    out = {}
    for label, amp, compiled in [("PyTorch float32", False, False), ("PyTorch autocast bf16", True, False),
                                 ("PyTorch autocast bf16 + torch.compile", True, True)]:
        try:
            out[label] = timed(make_step(amp, compiled), torch.cuda.synchronize)
        except Exception as e:  # noqa: BLE001 - a peer that fails is reported, not fatal
            out[label] = f"failed: {type(e).__name__}: {e}"[:200]
    return out


def jax_runs():
    import jax
    import jax.numpy as jnp
    key = jax.random.PRNGKey(7)
    keys = jax.random.split(key, 8)
    x = jax.random.normal(keys[0], (BATCH, 784), jnp.float32)
    y = jax.nn.one_hot(jax.random.randint(keys[1], (BATCH,), 0, 10), 10)
    params = []
    for i, (a, b) in enumerate(zip(WIDTHS, WIDTHS[1:])):
        params += [jax.random.normal(keys[2 + i], (a, b), jnp.float32) * (2.0 / a) ** 0.5, jnp.zeros(b, jnp.float32)]

    def make(dtype):
        def loss_fn(ps):
            h = x
            for i in range(0, len(ps) - 2, 2):
                h = jax.nn.relu(jnp.dot(h.astype(dtype), ps[i].astype(dtype),
                                        preferred_element_type=jnp.float32) + ps[i + 1])
            logits = jnp.dot(h.astype(dtype), ps[-2].astype(dtype), preferred_element_type=jnp.float32) + ps[-1]
            return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), 1))

        @jax.jit
        def step(ps):
            loss, grads = jax.value_and_grad(loss_fn)(ps)
            return [p - 0.1 * g for p, g in zip(ps, grads)], loss
        return step

    out = {}
    for label, dtype in [("JAX float32", jnp.float32), ("JAX bf16 products", jnp.bfloat16)]:
        step = make(dtype)
        state = {"ps": params}

        def run():
            state["ps"], state["loss"] = step(state["ps"])
        try:
            out[label] = timed(run, lambda: state["loss"].block_until_ready())
        except Exception as e:  # noqa: BLE001
            out[label] = f"failed: {type(e).__name__}: {e}"[:200]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="torch,jax")
    args = ap.parse_args()
    results = {}
    if "torch" in args.only:
        results.update(torch_runs())
    if "jax" in args.only:
        results.update(jax_runs())
    for k, v in results.items():
        print(f"{k:45s} {v:.3f} ms per step" if isinstance(v, float) else f"{k:45s} {v}")


if __name__ == "__main__":
    main()
