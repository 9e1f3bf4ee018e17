#!/usr/bin/python3
"""Writes the NumPy-derived expected data of tests/ops/{reduce,blas,nn}/ into tests/data/.

Run with the system NumPy (Debian 12: numpy 1.24):  /usr/bin/python3 scripts/test_data/reduce_blas_nn.py

  reduce/  inputs x_f64 (3, 4, 5) and x_i32 (3, 4, 5, small ints with zeros, so int64 products
           wrap) and <dtype>_<op>_<axes>.npy = np.<op>(x, axis=<axes>) for every op and several
           axis sets ("all" = None, "0_2" = (0, 2)); bcast_<op>_<axes>.npy for the stride-0 view
           np.broadcast_to(x_f64[:1], (3, 4, 5)).
  blas/    P (8, 10), Q (9, 6), v (10,), w (8,), Ab (4, 2, 3), Bb (4, 3, 5), Bt (4, 5, 3),
           Pi (4, 5) and Qi (5, 3) int32, and the products of slices, transposes and reversed
           views of them that blas tests rebuild as tgc views (each named in the code below).
  nn/      X (4, 6) and softmax / log_softmax / logsumexp of it along several axes, computed
           with SciPy's formulas (scipy.special, SciPy >= 1.5), written out here with NumPy
           because SciPy is not installed.
"""
import os
import shutil

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")


def save(family, name, array):
    d = os.path.join(DATA, family)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, name + ".npy"), np.asarray(array), allow_pickle=False)


def axes_name(axes):
    return "all" if axes is None else "_".join(str(a) for a in axes)


# ---- reduce -------------------------------------------------------------------------------

REDUCE_AXES = [None, (0,), (1,), (2,), (0, 2), (1, 2), (0, 1)]
ARG_AXES = [None, (0,), (1,), (2,)]


def write_reduce():
    x = np.random.RandomState(0).randn(3, 4, 5)
    xi = np.random.RandomState(1).randint(-4, 5, (3, 4, 5)).astype(np.int32)
    save("reduce", "x_f64", x)
    save("reduce", "x_i32", xi)
    for prefix, arr, ops in [("f64", x, ["sum", "prod", "max", "min", "mean"]),
                             ("i32", xi, ["sum", "prod", "max", "min", "mean", "all", "any"])]:
        for op in ops:
            for axes in REDUCE_AXES:
                with np.errstate(over="ignore"):
                    save("reduce", f"{prefix}_{op}_{axes_name(axes)}", getattr(np, op)(arr, axis=axes))
        for op in ["argmax", "argmin"]:
            for axes in ARG_AXES:
                axis = None if axes is None else axes[0]
                save("reduce", f"{prefix}_{op}_{axes_name(axes)}", getattr(np, op)(arr, axis=axis))
    b = np.broadcast_to(x[:1], (3, 4, 5))
    for op in ["sum", "max", "mean"]:
        for axes in [(0,), (1, 2), None]:
            save("reduce", f"bcast_{op}_{axes_name(axes)}", getattr(np, op)(b, axis=axes))


# ---- blas ---------------------------------------------------------------------------------

def write_blas():
    rs = np.random.RandomState(2)
    P, Q = rs.randn(8, 10), rs.randn(9, 6)
    v, w = rs.randn(10), rs.randn(8)
    Ab, Bb, Bt = rs.randn(4, 2, 3), rs.randn(4, 3, 5), rs.randn(4, 5, 3)
    Pi = rs.randint(-100, 100, (4, 5)).astype(np.int32)
    Qi = rs.randint(-100, 100, (5, 3)).astype(np.int32)
    for name, a in [("P", P), ("Q", Q), ("v", v), ("w", w), ("Ab", Ab), ("Bb", Bb), ("Bt", Bt),
                    ("Pi", Pi), ("Qi", Qi)]:
        save("blas", name, a)
    expected = {
        "mm": P[:, :9] @ Q,                                         # sliced columns: ld 10
        "mm_slices": P[1:6, 2:9] @ Q[1:8, 2:5],                     # both sliced: ld 10 and 6
        "mm_t": P[1:6, 2:9].T @ P[1:6, 2:6],                         # transposed slice: Trans, ld 10
        "mm_tt": Q.T @ P.T[:9, :],                                   # both transposed
        "mm_step": P[::2, ::3] @ Q[:4, :],                           # strides (20, 3): copied
        "mv": P[1:6, 2:9] @ v[1:8],
        "mv_t": P.T @ w,                                             # gemv Trans
        "mv_rev": P[1:6, 2:9] @ v[8:1:-1],                           # negative stride: copied
        "vm": w @ P,
        "vm_strided": v[::2] @ Q[:5, :],                             # incx 2
        "vv": v @ v,
        "vv_strided": v[::2] @ v[1::2],
        "bmm": Ab @ Bb,
        "bmm_b1": Ab @ Bb[:1],                                       # batch 1 broadcast
        "bmm_2d": Ab @ Q[:3, :5],                                    # 3-d by 2-d
        "bmm_2d_left": Q[:2, :3] @ Bb,                               # 2-d by 3-d
        "bmm_t": Ab @ Bt.transpose(0, 2, 1),                         # transposed batch entries
        "bmv": Ab @ v[:3],                                           # 3-d by 1-d: (4, 2)
        "vbm": w[7:1:-2] @ Bb[:, :, 1:],                             # reversed 1-d by 3-d: (4, 4)
        "mm_i32": Pi @ Qi,
        "mv_i32_f32": Pi.astype(np.float32) @ v[:5].astype(np.float32),  # int32 . float32 -> float32
    }
    for name, a in expected.items():
        save("blas", "exp_" + name, a)


# ---- nn -----------------------------------------------------------------------------------

def scipy_softmax(x, axis):
    x_max = np.amax(x, axis=axis, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def scipy_log_softmax(x, axis):
    x_max = np.amax(x, axis=axis, keepdims=True)
    x_max[~np.isfinite(x_max)] = 0
    tmp = x - x_max
    return tmp - np.log(np.sum(np.exp(tmp), axis=axis, keepdims=True))


def scipy_logsumexp(a, axis):
    a_max = np.amax(a, axis=axis, keepdims=True)
    a_max[~np.isfinite(a_max)] = 0
    out = np.log(np.sum(np.exp(a - a_max), axis=axis, keepdims=True))
    return np.squeeze(out + a_max, axis=axis) if axis is not None else (out + a_max).reshape(())


def write_nn():
    X = np.random.RandomState(3).randn(4, 6) * 3
    save("nn", "X", X)
    for axis in [0, 1]:
        save("nn", f"softmax_{axis}", scipy_softmax(X, axis))
        save("nn", f"log_softmax_{axis}", scipy_log_softmax(X, axis))
        save("nn", f"logsumexp_{axis}", scipy_logsumexp(X, axis))
    save("nn", "logsumexp_all", scipy_logsumexp(X, None))


if __name__ == "__main__":
    for family in ["reduce", "blas", "nn"]:
        shutil.rmtree(os.path.join(DATA, family), ignore_errors=True)
    write_reduce()
    write_blas()
    write_nn()
