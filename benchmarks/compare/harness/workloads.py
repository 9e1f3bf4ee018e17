"""The workloads of the comparison: what each computes, its sizes (full and --quick), how many
calls one timed repetition makes, its tolerance, and its input data (.npy files that every
implementation reads, drawn with NumPy's RandomState exactly as the .tg examples draw them)."""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Workload:
    id: str            # unique in a run, e.g. "chain-1048576"
    kind: str          # check1, check2, logreg, chain, sumsq, sgemm, mlp
    title: str         # the table's row label
    iters: int         # calls per timed repetition
    per: str           # how times are shown: "loop" (the whole repetition) or "call"
    tol: float         # largest accepted relative error against the reference
    check_calls: int   # calls made before comparing outputs (training steps for stateful kinds)
    size: int = 0
    bytes_per_call: int = 0   # memory traffic, for GB/s
    flops_per_call: int = 0   # for GFLOP/s
    outputs_on_host: bool = True  # False: outputs stay on the device, synchronised per repetition
    data: dict = field(default_factory=dict)  # name -> path of its .npy, filled by make_data


def plan(quick):
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
                 iters=50 if quick else 500, per="call", tol=1e-3, check_calls=5, size=400),
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
                      outputs_on_host=False))
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
    raise ValueError(f"unknown workload kind {w.kind!r}")


def make_data(w, root):
    """Writes w's inputs under root/<id>/ (once) and returns the folder."""
    folder = Path(root) / w.id
    w.data = _save(folder, arrays_for(w))
    return folder


def load(w):
    """w's inputs as NumPy arrays (from the files every implementation reads)."""
    return {name: np.load(path) for name, path in w.data.items()}
