"""PyTorch, eager (no torch.compile: it has no compile step to time here): training steps by
autograd, the cross-entropies in the stable form. float32 matrix products without TF32."""

import numpy as np

from ..impl import Impl, Unavailable

NAME = "torch"


def _torch():
    try:
        import torch
    except ImportError as e:
        raise Unavailable(f"not installed ({e})")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch


def _device(torch, device):
    if device == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise Unavailable(f"torch {torch.__version__} sees no CUDA device")
    return torch.device(device)


def probe(device):
    torch = _torch()
    _device(torch, device)
    return torch.__version__


def _sgd(torch, loss, params, logits):
    """Backward, one SGD step with rate 0.1 on params; returns the step's outputs."""
    loss.backward()
    with torch.no_grad():
        for p in params:
            p.sub_(0.1 * p.grad)
            p.grad = None
    return [loss.detach(), logits.detach()]


def _step(kind, torch, d):
    F = torch.nn.functional
    if kind in ("check1", "check2"):
        return lambda: [torch.exp(d["x"])]
    if kind == "chain":
        a, b, c = d["a"], d["b"], d["c"]
        return lambda: [a * torch.exp(-b) + c * torch.tanh(a) - 0.5 * b * c]
    if kind == "sumsq":
        return lambda: [torch.sum(d["a"] * d["a"])]
    if kind == "sgemm":
        return lambda: [d["x"] @ d["y"]]
    if kind == "logreg":
        x, y, w, b = d["x"], d["y"], d["w"].requires_grad_(), d["b"].requires_grad_()

        def step():
            z = x @ w + b
            xent = y * F.softplus(-z) + (1 - y) * F.softplus(z)
            cost = xent.mean() + 0.01 * (w ** 2).sum()
            cost.backward()
            with torch.no_grad():
                w.sub_(0.01 * w.grad)
                b.sub_(0.01 * b.grad)
                w.grad = None
                b.grad = None
            return [torch.sigmoid(z.detach()) > 0.5, xent.detach()]
        return step
    if kind in ("mlp", "bigmlp"):
        x, y1h = d["x"], d["y1h"]
        layers = 2 if kind == "mlp" else 3
        params = [d[f"{k}{i}"].requires_grad_() for i in range(1, layers + 1) for k in ("w", "b")]

        def step():
            a = x
            for i in range(0, 2 * layers - 2, 2):
                a = torch.relu(a @ params[i] + params[i + 1])
            logits = a @ params[-2] + params[-1]
            loss = -(y1h * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
            return _sgd(torch, loss, params, logits)
        return step
    if kind == "bow":
        tokens, y1h = d["tokens"].long(), d["y1h"]  # embedding indices as torch users keep them
        params = [d[k].requires_grad_() for k in ("emb", "w", "b")]
        emb, w, b = params

        def step():
            rows = F.embedding(tokens, emb)  # dense gradient: the rows used, scatter-added
            feat = torch.cat([rows.mean(dim=1), rows.amax(dim=1)], dim=1)
            logits = feat @ w + b
            loss = -(y1h * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
            return _sgd(torch, loss, params, logits)
        return step
    raise ValueError(kind)


class TorchImpl(Impl):
    def __init__(self, w, data, device):
        super().__init__()
        self.torch = torch = _torch()
        self.dev = _device(torch, device)
        d = {k: torch.from_numpy(np.array(v)).to(self.dev) for k, v in data.items()}
        self.step = _step(w.kind, torch, d)
        self.trained = [d[n] for n in w.params]
        self.to_host = w.outputs_on_host

    def call(self):
        self.last = self.step()
        if self.to_host:
            self.last = [o.cpu() for o in self.last]

    def sync(self):
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize(self.dev)

    def params(self):
        return [p.detach().cpu().numpy() for p in self.trained] if self.trained else None

    def to_numpy(self, value):
        return value.detach().cpu().numpy()


def build(w, data, device):
    return TorchImpl(w, data, device)
