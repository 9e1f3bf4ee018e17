"""The workloads of the comparison: what each computes, its sizes (full and --quick), how many
calls one timed repetition makes, its tolerance, and its input data (.npy files that every
implementation reads, drawn with NumPy's RandomState exactly as the .tg examples draw them)."""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Workload:
    id: str            # unique in a run, e.g. "chain-1048576"
    kind: str          # check1, check2, logreg, chain, sumsq, sgemm, mlp, bigmlp, bow
    title: str         # the table's row label
    iters: int         # calls per timed repetition
    per: str           # how times are shown: "loop" (the whole repetition) or "call"
    tol: float         # largest accepted relative error against the reference
    check_calls: int   # calls made before comparing outputs (training steps for stateful kinds)
    size: int = 0
    bytes_per_call: int = 0   # memory traffic, for GB/s
    flops_per_call: int = 0   # for GFLOP/s
    outputs_on_host: bool = True  # False: outputs stay on the device, synchronised per repetition
    params: tuple = ()  # trained parameters (input names), compared after the check calls too
    dims: dict = field(default_factory=dict)  # the sizes arrays_for draws (bigmlp, bow)
    data: dict = field(default_factory=dict)  # name -> path of its .npy, filled by make_data


def bigmlp_flops(batch, hidden, n_in=784, n_out=10):
    """Multiply-adds x2 of one step of the 784-H-H-10 MLP: the forward products, then the
    backward ones (each weight's gradient, and the input gradients of layers 2 and 3)."""
    fwd = n_in * hidden + hidden * hidden + hidden * n_out
    bwd = n_in * hidden + 2 * hidden * hidden + 2 * hidden * n_out
    return 2 * batch * (fwd + bwd)


def plan(quick, device="cpu"):
    """The workloads of a run. --quick shrinks only the sizes that take long (never in full mode)."""
    chain_sizes = [2**20, 2**22] if quick else [2**20, 2**26]
    gemm_sizes = [512, 1024] if quick else [4096, 8192]
    sumsq_n = 2000 if quick else 4000
    loop = 200 if quick else 1000
    w = [
        Workload("check1", "check1", f"check1: exp of 230400 float32, {loop} calls, result to host",
                 iters=loop, per="loop", tol=1e-5, check_calls=1, size=230400),
        Workload("check2", "check2", f"check2: as check1, result left on the device",
                 iters=loop, per="loop", tol=1e-5, check_calls=1, size=230400, outputs_on_host=False),
        Workload("logreg", "logreg", "logistic regression (400x784), one training step",
                 iters=50 if quick else 500, per="call", tol=1e-3, check_calls=5, size=400,
                 params=("w", "b")),
    ]
    for n in chain_sizes:
        w.append(Workload(f"chain-{n}", "chain", f"fused chain a*exp(-b)+c*tanh(a)-0.5*b*c, 2^{n.bit_length() - 1}",
                          iters=max(2, 2**24 // n) if quick else max(3, 2**26 // n), per="call", tol=1e-5,
                          check_calls=1, size=n, bytes_per_call=4 * 4 * n, outputs_on_host=False))
    w.append(Workload(f"sumsq-{sumsq_n}", "sumsq", f"sum of squares of {sumsq_n}x{sumsq_n}",
                      iters=5 if quick else 10, per="call", tol=1e-4, check_calls=1, size=sumsq_n,
                      bytes_per_call=4 * sumsq_n * sumsq_n, outputs_on_host=False))
    for n in gemm_sizes:
        w.append(Workload(f"sgemm-{n}", "sgemm", f"sgemm {n}x{n}",
                          iters=max(1, (4096 // n) ** 2) if not quick else max(2, (2048 // n) ** 2),
                          per="call", tol=1e-4, check_calls=1, size=n, flops_per_call=2 * n**3,
                          outputs_on_host=False))
    w.append(Workload("mlp", "mlp", "MLP 784-512-10, batch 256, one SGD step",
                      iters=10 if quick else 50, per="call", tol=1e-3, check_calls=5, size=256,
                      outputs_on_host=False, params=("w1", "b1", "w2", "b2")))
    # Issue 19's networks. The large MLP is matrix products (some 0.5 TFLOP per step at full
    # size: seconds on a CPU, so a full CPU run makes 2 steps per repetition).
    batch, hidden = (512, 1024) if quick else (4096, 4096)
    w.append(Workload("bigmlp", "bigmlp", f"MLP 784-{hidden}-{hidden}-10, batch {batch}, one SGD step",
                      iters=5 if quick else (2 if device == "cpu" else 20), per="call", tol=1e-3,
                      check_calls=5, size=batch, flops_per_call=bigmlp_flops(batch, hidden),
                      outputs_on_host=False, params=("w1", "b1", "w2", "b2", "w3", "b3"),
                      dims={"batch": batch, "hidden": hidden}))
    # The bag-of-words classifier: take (embedding rows), mean and max over the tokens,
    # concatenate, dense, softmax cross-entropy; the table's gradient is a scatter-add.
    vocab, dim, batch = (10000, 128, 256) if quick else (50000, 256, 512)
    w.append(Workload("bow", "bow", f"bag of words: vocabulary {vocab}, embedding {dim}, batch {batch}x16 "
                      f"tokens, one SGD step", iters=10 if quick else 20, per="call", tol=1e-3, check_calls=5,
                      size=batch, outputs_on_host=False, params=("emb", "w", "b"),
                      dims={"vocab": vocab, "dim": dim, "batch": batch, "tokens": 16, "classes": 20}))
    return w


def _save(folder, arrays):
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, a in arrays.items():
        path = folder / f"{name}.npy"
        np.save(path, a)  # not ascontiguousarray: it makes 0-d arrays 1-d
        paths[name] = path
    return paths


def arrays_for(w):
    """The inputs of workload w as float32 arrays, drawn as the .tg examples draw them."""
    f32 = np.float32
    if w.kind in ("check1", "check2"):  # examples/check1.tg
        return {"x": np.random.RandomState(22).rand(w.size).astype(f32)}
    if w.kind == "logreg":  # examples/logreg.tg: x, y, then w from one stream
        rng = np.random.RandomState(22)
        x = rng.randn(400, 784).astype(f32)
        y = rng.randint(size=400, low=0, high=2).astype(f32)
        return {"x": x, "y": y, "w": rng.randn(784).astype(f32), "b": np.array(0.0, f32)}
    if w.kind == "chain":
        return {k: np.random.RandomState(s).rand(w.size).astype(f32) for k, s in (("a", 1), ("b", 2), ("c", 3))}
    if w.kind == "sumsq":
        return {"a": np.random.RandomState(4).rand(w.size, w.size).astype(f32)}
    if w.kind == "sgemm":
        rng = np.random.RandomState(5)
        return {"x": rng.rand(w.size, w.size).astype(f32), "y": rng.rand(w.size, w.size).astype(f32)}
    if w.kind == "mlp":
        rng = np.random.RandomState(6)
        labels = rng.randint(0, 10, size=w.size)
        return {"x": rng.randn(w.size, 784).astype(f32), "y1h": np.eye(10, dtype=f32)[labels],
                "w1": (rng.randn(784, 512) * 0.05).astype(f32), "b1": np.zeros(512, f32),
                "w2": (rng.randn(512, 10) * 0.05).astype(f32), "b2": np.zeros(10, f32)}
    if w.kind == "bigmlp":
        rng = np.random.RandomState(7)
        b, h = w.dims["batch"], w.dims["hidden"]
        labels = rng.randint(0, 10, size=b)
        arrays = {"x": rng.randn(b, 784).astype(f32), "y1h": np.eye(10, dtype=f32)[labels]}
        for i, (n_in, n_out) in enumerate(((784, h), (h, h), (h, 10)), start=1):  # He initialisation
            arrays[f"w{i}"] = (rng.randn(n_in, n_out) * np.sqrt(2.0 / n_in)).astype(f32)
            arrays[f"b{i}"] = np.zeros(n_out, f32)
        return arrays
    if w.kind == "bow":
        rng = np.random.RandomState(8)
        d = w.dims
        # Distinct tokens within a row: a repeated token would tie in the max over tokens, and
        # libraries share a tied max's gradient differently (Theano and tgc give each the whole).
        tokens = np.stack([rng.choice(d["vocab"], d["tokens"], replace=False) for _ in range(d["batch"])])
        labels = rng.randint(0, d["classes"], size=d["batch"])
        return {"tokens": tokens.astype(np.int32), "y1h": np.eye(d["classes"], dtype=f32)[labels],
                "emb": (rng.randn(d["vocab"], d["dim"]) * 0.1).astype(f32),
                "w": (rng.randn(2 * d["dim"], d["classes"]) * 0.05).astype(f32),
                "b": np.zeros(d["classes"], f32)}
    raise ValueError(f"unknown workload kind {w.kind!r}")


def make_data(w, root):
    """Writes w's inputs under root/<id>/ (once) and returns the folder."""
    folder = Path(root) / w.id
    w.data = _save(folder, arrays_for(w))
    return folder


def load(w):
    """w's inputs as NumPy arrays (from the files every implementation reads)."""
    return {name: np.load(path) for name, path in w.data.items()}
