#!/usr/bin/python3
"""Writes the NumPy-derived expected outputs of the CLI's golden tests (tests/cli/) into
tests/data/cli/.

Run with the system NumPy (Debian 12: numpy 1.24):  /usr/bin/python3 scripts/test_data/cli.py

  two_x, two_y (4, 5) float32    RandomState(1).rand / RandomState(2).rand, the values that
                                 --input x="rand(4, 5, seed=1)" gives (float64, cast to float32)
  two_sum, two_diff              x + y and x - y: examples/two_outputs.tg's outputs
  mm_x (3, 4), mm_y (4, 5)       float32 randn of seeds 3 and 4
  mm_xy                          their product in float64, rounded to float32 (examples/matmul.tg)
  logreg_prediction, logreg_xent the outputs of the 20th call of train in examples/logreg.tg
                                 (tgc run examples/logreg.tg --fn train --iters 20): the
                                 tutorial's model trained in float64 on the float32 data drawn
                                 from RandomState(22) in the file's order, with the gradient
                                 written out by hand and the cross-entropy in its stable form
"""
import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "cli")


def save(name, array):
    os.makedirs(DATA, exist_ok=True)
    np.save(os.path.join(DATA, name + ".npy"), np.asarray(array), allow_pickle=False)


def softplus(z):
    return np.logaddexp(0.0, z)


# ---- two_outputs ----------------------------------------------------------------------------
x = np.random.RandomState(1).rand(4, 5).astype(np.float32)
y = np.random.RandomState(2).rand(4, 5).astype(np.float32)
save("two_x", x)
save("two_y", y)
save("two_sum", x + y)  # float32 arithmetic, as tgc computes it
save("two_diff", x - y)

# ---- matmul ---------------------------------------------------------------------------------
a = np.random.RandomState(3).randn(3, 4).astype(np.float32)
b = np.random.RandomState(4).randn(4, 5).astype(np.float32)
save("mm_x", a)
save("mm_y", b)
save("mm_xy", (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))

# ---- logreg ---------------------------------------------------------------------------------
N, feats, steps = 400, 784, 20
rng = np.random.RandomState(22)
dx = rng.randn(N, feats).astype(np.float32).astype(np.float64)
dy = rng.randint(size=N, low=0, high=2).astype(np.float32).astype(np.float64)
w = rng.randn(feats).astype(np.float32).astype(np.float64)
b = 0.0
for _ in range(steps):
    z = dx @ w + b
    p_1 = 1 / (1 + np.exp(-z))
    prediction = p_1 > 0.5
    xent = dy * softplus(-z) + (1 - dy) * softplus(z)  # = -y*log(p_1) - (1-y)*log(1-p_1)
    gz = (p_1 - dy) / N                                 # d mean(xent) / dz
    gw = dx.T @ gz + 0.02 * w                           # + d 0.01*sum(w**2) / dw
    gb = gz.sum()
    w, b = w - 0.01 * gw, b - 0.01 * gb
save("logreg_prediction", prediction)
save("logreg_xent", xent.astype(np.float32))
