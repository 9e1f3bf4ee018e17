"""The workloads written once against the NumPy API, for NumPy and CuPy (`xp` is either module).
Each make() returns a step: one call, returning the call's outputs. Training steps keep their
parameters in the closure (step.params() returns them); their gradients are written out by
hand, and the cross-entropies in the stable form that tgc's optimizer substitutes for the
tutorial's literal formula."""


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
        return _mlp(xp, d, layers=2)
    if kind == "bigmlp":
        return _mlp(xp, d, layers=3)
    if kind == "bow":
        return _bow(xp, d)
    raise ValueError(kind)


def _with_params(step, state, names):
    step.params = lambda: [state[n] for n in names]
    return step


def _softmax_xent(xp, logits, y1h):
    """(mean cross-entropy, its gradient with respect to logits), stably."""
    m = logits.max(axis=1, keepdims=True)
    e = xp.exp(logits - m)
    s = e.sum(axis=1, keepdims=True)
    loss = -(y1h * (logits - m - xp.log(s))).sum(axis=1).mean()
    return loss, (e / s - y1h) / logits.shape[0]


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
    return _with_params(step, state, ("w", "b"))


def _mlp(xp, d, layers):
    """784-H(-H)-10 with relu between the layers, softmax cross-entropy, SGD with rate 0.1."""
    x, y1h = d["x"], d["y1h"]
    names = [f"{k}{i}" for i in range(1, layers + 1) for k in ("w", "b")]
    p = {k: d[k].copy() for k in names}

    def step():
        acts, pre = [x], []  # the input of each layer; each hidden layer's pre-activation
        for i in range(1, layers):
            pre.append(acts[-1] @ p[f"w{i}"] + p[f"b{i}"])
            acts.append(xp.maximum(pre[-1], 0))
        logits = acts[-1] @ p[f"w{layers}"] + p[f"b{layers}"]
        loss, dz = _softmax_xent(xp, logits, y1h)
        for i in range(layers, 0, -1):  # dz: the gradient of the loss w.r.t. layer i's output
            dz_next = (dz @ p[f"w{i}"].T) * (pre[i - 2] > 0) if i > 1 else None
            p[f"w{i}"] = p[f"w{i}"] - 0.1 * (acts[i - 1].T @ dz)
            p[f"b{i}"] = p[f"b{i}"] - 0.1 * dz.sum(axis=0)
            dz = dz_next
        return [loss, logits]
    return _with_params(step, p, names)


def _scatter_add(xp, table, indices, values):
    """table[indices] += values with repeated indices accumulating, in place."""
    if xp.__name__ == "numpy":
        xp.add.at(table, indices, values)
    else:
        import cupyx
        cupyx.scatter_add(table, indices, values)


def _bow(xp, d):
    """Bag of words: the embedding rows of each example's tokens (take), their mean and their
    max over the tokens side by side (concatenate), a dense layer, softmax cross-entropy, SGD
    with rate 0.1. As a NumPy user writes it, the table's update adds to the rows used only
    (np.add.at), rather than forming the table-sized gradient the autodiff libraries form."""
    tokens, y1h = d["tokens"], d["y1h"]
    p = {k: d[k].copy() for k in ("emb", "w", "b")}
    n_tokens, dim = tokens.shape[1], p["emb"].shape[1]

    def step():
        rows = p["emb"][tokens]                          # (batch, tokens, dim)
        mx = rows.max(axis=1)
        feat = xp.concatenate([rows.mean(axis=1), mx], axis=1)
        logits = feat @ p["w"] + p["b"]
        loss, dz = _softmax_xent(xp, logits, y1h)
        dfeat = dz @ p["w"].T
        drows = (dfeat[:, None, :dim] / n_tokens + (rows == mx[:, None, :]) * dfeat[:, None, dim:])
        p["w"] = p["w"] - 0.1 * (feat.T @ dz)
        p["b"] = p["b"] - 0.1 * dz.sum(axis=0)
        _scatter_add(xp, p["emb"], tokens, -0.1 * drows)
        return [loss, logits]
    return _with_params(step, p, ("emb", "w", "b"))
