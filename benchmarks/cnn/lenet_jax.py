"""The LeNet-5 training step of examples/lenet.tg in JAX (jit, parameters donated), for the
side-by-side timing of issue 24 (docs/performance.md), as benchmarks/cnn/lenet_torch.py does
for PyTorch: generated 28x28 "digits", conv 5x5 (6, same) -> relu -> 2x2 average pool -> conv
5x5 (16) -> relu -> 2x2 average pool -> dense 400-120-84-10, softmax cross-entropy, plain SGD
(0.05), the accuracy on a second batch each step, the loss and the accuracy read back each
step. float32 with full-precision convolutions and products (no TF32), NCHW.
    python3 benchmarks/cnn/lenet_jax.py [STEPS [BATCH]]
"""
import sys
import time

import jax
import jax.numpy as jnp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps = int(args[0]) if args else 300
    batch = int(args[1]) if len(args) > 1 else 64
    jax.config.update("jax_default_matmul_precision", "highest")
    key = jax.random.PRNGKey(5)
    k_digits, k_lab, k_noise, k_lab2, k_noise2, k_params = jax.random.split(key, 6)
    digits = jax.random.normal(k_digits, (10, 1, 28, 28))

    def data(kl, kn):
        labels = jax.random.randint(kl, (batch,), 0, 10)
        return digits[labels] + 0.8 * jax.random.normal(kn, (batch, 1, 28, 28)), labels

    x, y = data(k_lab, k_noise)
    x_test, y_test = data(k_lab2, k_noise2)
    shapes = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (400, 120), (120,), (120, 84), (84,), (84, 10), (10,)]
    keys = jax.random.split(k_params, len(shapes))
    params = [jax.random.normal(k, s) * 0.1 for k, s in zip(keys, shapes)]

    def conv(h, w, b, pad):
        out = jax.lax.conv_general_dilated(h, w, (1, 1), pad, dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                           precision=jax.lax.Precision.HIGHEST)
        return out + b[None, :, None, None]

    def pool(h):
        return jax.lax.reduce_window(h, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID") / 4.0

    def lenet(p, images):
        h = pool(jax.nn.relu(conv(images, p[0], p[1], ((2, 2), (2, 2)))))
        h = pool(jax.nn.relu(conv(h, p[2], p[3], ((0, 0), (0, 0)))))
        h = jax.nn.relu(h.reshape(h.shape[0], -1) @ p[4] + p[5])
        h = jax.nn.relu(h @ p[6] + p[7])
        return h @ p[8] + p[9]

    def loss_fn(p):
        logp = jax.nn.log_softmax(lenet(p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(p):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        accuracy = jnp.mean(jnp.argmax(lenet(p, x_test), axis=1) == y_test)
        return [w - 0.05 * g for w, g in zip(p, grads)], loss, accuracy

    step = jax.jit(step, donate_argnums=0)
    print(f"JAX {jax.__version__} LeNet-5 on {jax.devices()[0].platform}, batch {batch}")
    t0 = None
    for s in range(steps):
        if s == 10:
            t0 = time.perf_counter()
        params, loss, acc = step(params)
        loss, acc = float(loss), float(acc)
        if s % 100 == 0 or s == steps - 1:
            print(f"step {s:4d}  loss {loss:.4f}  accuracy {acc:.3f}")
    print(f"{(time.perf_counter() - t0) * 1e6 / (steps - 10):.1f} us per step (steps 10 to {steps - 1})")


if __name__ == "__main__":
    main()
