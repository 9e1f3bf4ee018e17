"""The workloads written once against the NumPy API, for NumPy and CuPy (`xp` is either module).
Each make() returns a step: one call, returning the call's outputs. Training steps keep their
parameters in the closure; their gradients are written out by hand, and the cross-entropies in
the stable form that tgc's optimizer substitutes for the tutorial's literal formula."""


def make(kind, xp, data):
    d = {k: xp.asarray(v) for k, v in data.items()}
    if kind in ("check1", "check2"):
        x = d["x"]
        return lambda: [xp.exp(x)]
    if kind == "chain":
        a, b, c = d["a"], d["b"], d["c"]
        return lambda: [a * xp.exp(-b) + c * xp.tanh(a) - 0.5 * b * c]
    if kind == "sumsq":
        a = d["a"]
        return lambda: [xp.sum(a * a)]
    if kind == "sgemm":
        x, y = d["x"], d["y"]
        return lambda: [x @ y]
    if kind == "logreg":
        return _logreg(xp, d)
    if kind == "mlp":
        return _mlp(xp, d)
    raise ValueError(kind)


def _logreg(xp, d):
    x, y = d["x"], d["y"]
    state = {"w": d["w"].copy(), "b": d["b"].copy()}
    n = x.shape[0]

    def step():
        w, b = state["w"], state["b"]
        z = x @ w + b
        p = 0.5 * (1 + xp.tanh(0.5 * z))       # the sigmoid, without exp's overflow
        xent = y * xp.logaddexp(0, -z) + (1 - y) * xp.logaddexp(0, z)
        dz = (p - y) / n                       # d mean(xent) / dz
        state["w"] = w - 0.01 * (x.T @ dz + 0.02 * w)
        state["b"] = b - 0.01 * dz.sum()
        return [p > 0.5, xent]
    return step


def _mlp(xp, d):
    x, y1h = d["x"], d["y1h"]
    p = {k: d[k].copy() for k in ("w1", "b1", "w2", "b2")}
    batch = x.shape[0]

    def step():
        hp = x @ p["w1"] + p["b1"]
        h = xp.maximum(hp, 0)
        logits = h @ p["w2"] + p["b2"]
        m = logits.max(axis=1, keepdims=True)
        e = xp.exp(logits - m)
        s = e.sum(axis=1, keepdims=True)
        loss = -(y1h * (logits - m - xp.log(s))).sum(axis=1).mean()
        dlogits = (e / s - y1h) / batch
        dh = (dlogits @ p["w2"].T) * (hp > 0)
        p["w2"] = p["w2"] - 0.1 * (h.T @ dlogits)
        p["b2"] = p["b2"] - 0.1 * dlogits.sum(axis=0)
        p["w1"] = p["w1"] - 0.1 * (x.T @ dh)
        p["b1"] = p["b1"] - 0.1 * dh.sum(axis=0)
        return [loss, logits]
    return step
