"""PyTensor (Theano's successor): the workloads written as the Theano tutorial writes them,
literal cross-entropy included (PyTensor's rewrites stabilise it, as tgc's do). Compile time is
pytensor.function's; its C-module cache (~/.pytensor) may already hold the code. CPU only."""

import os
import time

from ..impl import Impl, Unavailable

NAME = "pytensor"


def _pytensor():
    os.environ.setdefault("PYTENSOR_FLAGS", "floatX=float32")
    try:
        import pytensor
    except ImportError as e:
        raise Unavailable(f"not installed ({e})")
    return pytensor


def probe(device):
    if device != "cpu":
        raise Unavailable("PyTensor has no CUDA backend")
    return _pytensor().__version__


def _graph(kind, pt, s):
    """(outputs, updates) of a workload over the shared variables s."""
    if kind in ("check1", "check2"):
        return [pt.exp(s["x"])], []
    if kind == "chain":
        a, b, c = s["a"], s["b"], s["c"]
        return [a * pt.exp(-b) + c * pt.tanh(a) - 0.5 * b * c], []
    if kind == "sumsq":
        return [pt.sum(s["a"] * s["a"])], []
    if kind == "sgemm":
        return [pt.dot(s["x"], s["y"])], []
    if kind == "logreg":  # the tutorial's code
        x, y, w, b = s["x"], s["y"], s["w"], s["b"]
        p_1 = 1 / (1 + pt.exp(-pt.dot(x, w) - b))
        prediction = p_1 > 0.5
        xent = -y * pt.log(p_1) - (1 - y) * pt.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw, gb = pt.grad(cost, [w, b])
        return [prediction, xent], [(w, w - 0.01 * gw), (b, b - 0.01 * gb)]
    if kind in ("mlp", "bigmlp"):
        from pytensor.tensor.special import log_softmax
        x, y1h = s["x"], s["y1h"]
        layers = 2 if kind == "mlp" else 3
        params = [s[f"{k}{i}"] for i in range(1, layers + 1) for k in ("w", "b")]
        a = x
        for i in range(1, layers):
            a = pt.maximum(pt.dot(a, s[f"w{i}"]) + s[f"b{i}"], 0)
        logits = pt.dot(a, s[f"w{layers}"]) + s[f"b{layers}"]
        loss = -pt.mean(pt.sum(y1h * log_softmax(logits, axis=1), axis=1))
        grads = pt.grad(loss, params)
        return [loss, logits], [(p, p - 0.1 * g) for p, g in zip(params, grads)]
    if kind == "bow":
        from pytensor.tensor.special import log_softmax
        tokens, y1h, emb, w, b = s["tokens"], s["y1h"], s["emb"], s["w"], s["b"]
        rows = emb[tokens]  # advanced indexing: its gradient is an AdvancedIncSubtensor
        feat = pt.concatenate([pt.mean(rows, axis=1), pt.max(rows, axis=1)], axis=1)
        logits = pt.dot(feat, w) + b
        loss = -pt.mean(pt.sum(y1h * log_softmax(logits, axis=1), axis=1))
        params = [emb, w, b]
        grads = pt.grad(loss, params)
        return [loss, logits], [(p, p - 0.1 * g) for p, g in zip(params, grads)]
    raise ValueError(kind)


class PytensorImpl(Impl):
    def __init__(self, w, data):
        super().__init__()
        pytensor = _pytensor()
        import pytensor.tensor as pt
        shared = {k: pytensor.shared(v.copy(), name=k) for k, v in data.items()}
        self.trained = [shared[n] for n in w.params]
        outputs, updates = _graph(w.kind, pt, shared)
        start = time.perf_counter()
        self.fn = pytensor.function([], outputs, updates=updates)
        self.compile_s = time.perf_counter() - start

    def call(self):
        self.last = self.fn()

    def params(self):
        return [p.get_value() for p in self.trained] if self.trained else None


def build(w, data, device):
    return PytensorImpl(w, data)
