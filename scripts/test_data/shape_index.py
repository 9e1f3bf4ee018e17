#!/usr/bin/python3
"""Writes the NumPy-derived expected data of tests/ops/subtensor/ into tests/data/subtensor/.

Run with the system NumPy (Debian 12: numpy 1.24):  /usr/bin/python3 scripts/test_data/shape_index.py

Every case indexes X = np.arange(120).reshape(2, 3, 4, 5) (int64); the index arrays are
the small literals below, spelled the same way in advanced_subtensor_test.cpp and
inc_subtensor_test.cpp. Files:
  adv_<case>.npy  X[index] for NumPy's advanced indexing (placement rule of the broadcast
                  dims: in place when the array/integer entries are adjacent, else first)
  inc_<case>.npy  the result of set_subtensor / inc_subtensor on float64(X); increments
                  with repeated indices use np.add.at (Theano's accumulate semantics)
"""
import os
import shutil

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "subtensor")

X = np.arange(120, dtype=np.int64).reshape(2, 3, 4, 5)
A = np.array([1, 0, 1])
B = np.array([[0], [2]])
C = np.array([-1, 3])
D = np.array([[4, 0, 2]])
E = np.array([], dtype=np.int64)
Z = np.array(2)  # 0-d
R = np.array([0, 0, 2])  # repeated

ADVANCED = {
    "first": X[A],
    "adjacent_middle": X[:, B, C],
    "separated": X[:, B, :, C],
    "int_separated": X[1, :, C],
    "int_adjacent": X[:, 1, C],
    "slices_around": X[::-1, B, C, 1:4:2],
    "newaxis_between": X[:, B, None, C],
    "newaxis_before": X[None, :, :, C],
    "three_arrays": X[:, B, A, D],
    "zero_d": X[:, Z],
    "empty": X[E],
    "ints_then_array": X[0, 1, 2, C],
}


def inc_cases():
    xf = X.astype(np.float64)
    v4 = np.arange(40, dtype=np.float64).reshape(2, 4, 5) * 0.5  # for X[:, R] of shape (2, 3, 4, 5): broadcast
    out = {}
    y = xf.copy()
    np.add.at(y, (slice(None), R), v4[:, None])
    out["inc_repeated"] = y
    y = xf.copy()
    y[[1, 1, 0]] = np.stack([np.full((3, 4, 5), 7.0), np.full((3, 4, 5), 9.0), np.full((3, 4, 5), -1.0)])
    out["set_repeated"] = y
    y = xf.copy()
    y[0, 1:3] += np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out["inc_basic"] = y
    y = xf.copy()
    y[:, ::-2, 1] = -5.0
    out["set_basic"] = y
    y = xf.copy()
    np.add.at(y, (slice(None), B, slice(None), C), 100.0)
    out["inc_separated"] = y
    return out


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    for name, value in ADVANCED.items():
        np.save(os.path.join(ROOT, "adv_" + name + ".npy"), np.ascontiguousarray(value))
    for name, value in inc_cases().items():
        np.save(os.path.join(ROOT, name + ".npy"), value)


if __name__ == "__main__":
    main()
