"""The ResNet-18 training step of examples/cpp/resnet18.cpp in JAX (jit, state donated), for the
side-by-side timing of issue 24 (docs/performance.md), as resnet18_torch.py does for PyTorch:
3x3 stem, four stages of two basic blocks, batch norm (training form, running statistics kept)
after every conv, projected 1x1 shortcuts, global average pooling, dense; softmax
cross-entropy, SGD with momentum 0.9. NHWC activations (XLA chooses its own layouts), float32
at full precision unless --tf32 (XLA's default "tensorfloat32" precision for convolutions and
products). Prints the loss of each step and the time per step after the first two.
    python3 benchmarks/cnn/resnet18_jax.py [STEPS [BATCH]] [--tf32]
"""
import sys
import time

import jax
import jax.numpy as jnp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps = int(args[0]) if args else 20
    batch = int(args[1]) if len(args) > 1 else 32
    precision = jax.lax.Precision.DEFAULT if "--tf32" in sys.argv else jax.lax.Precision.HIGHEST
    key = jax.random.PRNGKey(7)
    k_pat, k_lab, k_noise, k_init = jax.random.split(key, 4)
    patterns = jax.random.normal(k_pat, (10, 32, 32, 3))
    labels = jax.random.randint(k_lab, (batch,), 0, 10)
    x = patterns[labels] + jax.random.normal(k_noise, (batch, 32, 32, 3))
    y = labels

    keys = iter(jax.random.split(k_init, 64))
    params, stats = {}, {}

    def conv_bn(name, cin, cout, k):
        params[name + "w"] = jax.random.normal(next(keys), (k, k, cin, cout)) * jnp.sqrt(2.0 / (cin * k * k))
        params[name + "g"] = jnp.ones(cout)
        params[name + "b"] = jnp.zeros(cout)
        stats[name + "m"] = jnp.zeros(cout)
        stats[name + "v"] = jnp.ones(cout)

    conv_bn("stem", 3, 64, 3)
    blocks, cin = [], 64
    for width in (64, 128, 256, 512):
        for i in range(2):
            stride = 2 if (i == 0 and width != cin) else 1
            name = f"b{len(blocks)}"
            conv_bn(name + "c1", cin, width, 3)
            conv_bn(name + "c2", width, width, 3)
            if stride != 1 or cin != width:
                conv_bn(name + "s", cin, width, 1)
            blocks.append((name, cin, width, stride))
            cin = width
    params["dw"] = jax.random.normal(next(keys), (512, 10)) * 0.01
    params["db"] = jnp.zeros(10)

    def apply_conv_bn(p, new_stats, s, name, h, stride, k):
        pad = k // 2
        h = jax.lax.conv_general_dilated(h, p[name + "w"], (stride, stride), ((pad, pad), (pad, pad)),
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=precision)
        mean = jnp.mean(h, axis=(0, 1, 2))
        var = jnp.mean(jnp.square(h - mean), axis=(0, 1, 2))
        n = h.shape[0] * h.shape[1] * h.shape[2]
        new_stats[name + "m"] = 0.9 * s[name + "m"] + 0.1 * mean
        new_stats[name + "v"] = 0.9 * s[name + "v"] + 0.1 * var * n / (n - 1)
        return (h - mean) * jax.lax.rsqrt(var + 1e-5) * p[name + "g"] + p[name + "b"]

    def loss_fn(p, s):
        new_stats = {}
        h = jax.nn.relu(apply_conv_bn(p, new_stats, s, "stem", x, 1, 3))
        for name, bin_, width, stride in blocks:
            r = jax.nn.relu(apply_conv_bn(p, new_stats, s, name + "c1", h, stride, 3))
            r = apply_conv_bn(p, new_stats, s, name + "c2", r, 1, 3)
            sc = apply_conv_bn(p, new_stats, s, name + "s", h, stride, 1) if name + "sw" in p else h
            h = jax.nn.relu(r + sc)
        logits = jnp.dot(jnp.mean(h, axis=(1, 2)), p["dw"], precision=precision) + p["db"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1)), new_stats

    def step(p, v, s):
        (loss, new_stats), g = jax.value_and_grad(loss_fn, has_aux=True)(p, s)
        v = {k: 0.9 * v[k] - 0.05 * g[k] for k in p}
        p = {k: p[k] + v[k] for k in p}
        return p, v, new_stats, loss

    step = jax.jit(step, donate_argnums=(0, 1, 2))
    velocity = {k: jnp.zeros_like(w) for k, w in params.items()}
    print(f"JAX {jax.__version__} ResNet-18 on {jax.devices()[0].platform}, batch {batch}")
    t0 = None
    for s in range(steps):
        if s == 2:
            t0 = time.perf_counter()
        params, velocity, stats, loss = step(params, velocity, stats)
        print(f"step {s:3d}  loss {float(loss):.4f}")
    if steps > 2:
        print(f"{(time.perf_counter() - t0) * 1000 / (steps - 2):.2f} ms per step (steps 2 to {steps - 1})")


if __name__ == "__main__":
    main()
