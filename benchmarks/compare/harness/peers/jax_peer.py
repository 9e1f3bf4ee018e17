"""JAX: each workload as one jax.jit function, compiled ahead (lower().compile(), timed as the
peer's compile time), gradients by jax.grad. float32 matrix products at full precision
(jax_default_matmul_precision=highest: no TF32 on GPUs), as tgc's."""

import time

import numpy as np

from ..impl import Impl, Unavailable

NAME = "jax"


def _jax():
    try:
        import jax
    except ImportError as e:
        raise Unavailable(f"not installed ({e})")
    jax.config.update("jax_default_matmul_precision", "highest")
    return jax


def _device(jax, device):
    platform = "cpu" if device == "cpu" else "gpu"
    try:
        devs = jax.devices(platform)
    except RuntimeError as e:
        raise Unavailable(f"JAX has no {platform} backend here ({str(e).splitlines()[0]})")
    index = int(device.split(":")[1]) if ":" in device else 0
    return devs[index]


def probe(device):
    jax = _jax()
    _device(jax, device)
    return jax.__version__


def _programs(kind, jnp, jax):
    """(fn, names of its state arguments, names of its data arguments); a stateful fn returns
    (new state, outputs), a stateless one its outputs."""
    if kind in ("check1", "check2"):
        return lambda x: jnp.exp(x), [], ["x"]
    if kind == "chain":
        return lambda a, b, c: a * jnp.exp(-b) + c * jnp.tanh(a) - 0.5 * b * c, [], ["a", "b", "c"]
    if kind == "sumsq":
        return lambda a: jnp.sum(a * a), [], ["a"]
    if kind == "sgemm":
        return lambda x, y: x @ y, [], ["x", "y"]
    if kind == "logreg":
        def parts(w, b, x, y):
            z = x @ w + b
            xent = y * jax.nn.softplus(-z) + (1 - y) * jax.nn.softplus(z)
            return jnp.mean(xent) + 0.01 * jnp.sum(w ** 2), (z, xent)

        def step(w, b, x, y):
            (_, (z, xent)), (gw, gb) = jax.value_and_grad(parts, argnums=(0, 1), has_aux=True)(w, b, x, y)
            return (w - 0.01 * gw, b - 0.01 * gb), (jax.nn.sigmoid(z) > 0.5, xent)
        return step, ["w", "b"], ["x", "y"]
    if kind in ("mlp", "bigmlp"):
        layers = 2 if kind == "mlp" else 3
        names = [f"{k}{i}" for i in range(1, layers + 1) for k in ("w", "b")]

        def loss_of(params, x, y1h):
            a = x
            for i in range(0, 2 * layers - 2, 2):
                a = jnp.maximum(a @ params[i] + params[i + 1], 0)
            logits = a @ params[-2] + params[-1]
            return -jnp.mean(jnp.sum(y1h * jax.nn.log_softmax(logits), axis=1)), logits

        def step(*args):
            params, (x, y1h) = args[:-2], args[-2:]
            (loss, logits), g = jax.value_and_grad(loss_of, has_aux=True)(params, x, y1h)
            return tuple(p - 0.1 * gp for p, gp in zip(params, g)), (loss, logits)
        return step, names, ["x", "y1h"]
    if kind == "bow":
        def loss_of(params, tokens, y1h):
            emb, w, b = params
            rows = jnp.take(emb, tokens, axis=0)  # the gradient is a scatter-add into the table
            feat = jnp.concatenate([jnp.mean(rows, axis=1), jnp.max(rows, axis=1)], axis=1)
            logits = feat @ w + b
            return -jnp.mean(jnp.sum(y1h * jax.nn.log_softmax(logits), axis=1)), logits

        def step(emb, w, b, tokens, y1h):
            params = (emb, w, b)
            (loss, logits), g = jax.value_and_grad(loss_of, has_aux=True)(params, tokens, y1h)
            return tuple(p - 0.1 * gp for p, gp in zip(params, g)), (loss, logits)
        return step, ["emb", "w", "b"], ["tokens", "y1h"]
    raise ValueError(kind)


class JaxImpl(Impl):
    def __init__(self, w, data, device):
        super().__init__()
        jax = _jax()
        import jax.numpy as jnp
        dev = _device(jax, device)
        fn, state_names, data_names = _programs(w.kind, jnp, jax)
        self.state = [jax.device_put(data[n], dev) for n in state_names]
        self.data = [jax.device_put(data[n], dev) for n in data_names]
        self.stateful = bool(state_names)
        start = time.perf_counter()
        self.fn = jax.jit(fn).lower(*self.state, *self.data).compile()
        self.compile_s = time.perf_counter() - start
        self.to_host = w.outputs_on_host

    def call(self):
        out = self.fn(*self.state, *self.data)
        if self.stateful:
            self.state, out = list(out[0]), out[1]
        out = list(out) if isinstance(out, tuple) else [out]
        self.last = [np.asarray(o) for o in out] if self.to_host else out

    def params(self):
        return [np.asarray(p) for p in self.state] if self.stateful else None

    def sync(self):
        for o in self.last:
            if hasattr(o, "block_until_ready"):
                o.block_until_ready()


def build(w, data, device):
    return JaxImpl(w, data, device)
