"""The LeNet-5 training step of examples/lenet.tg in PyTorch, for the side-by-side timing of
issue 24 (docs/performance.md): generated 28x28 "digits" (a random pattern per class through
noise), conv 5x5 (6, same padding) -> relu -> 2x2 average pool -> conv 5x5 (16) -> relu -> 2x2
average pool -> dense 400-120 -> relu -> 120-84 -> relu -> 84-10, softmax cross-entropy, plain
SGD (rate 0.05); each step also computes the accuracy on a second batch, and reads the loss
and the accuracy back, as `tgc run examples/lenet.tg --iters N` does with its two results.
float32, TF32 off, cuDNN benchmark mode off, NCHW.
    python3 benchmarks/cnn/lenet_torch.py [STEPS [BATCH]] [--compile]
"""
import sys
import time

import torch
import torch.nn.functional as F


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps = int(args[0]) if args else 300
    batch = int(args[1]) if len(args) > 1 else 64
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(5)
    digits = torch.randn(10, 1, 28, 28, generator=g)

    def data():
        labels = torch.randint(0, 10, (batch,), generator=g)
        x = digits[labels] + 0.8 * torch.randn(batch, 1, 28, 28, generator=g)
        return x.to(dev), labels.to(dev)

    x, y = data()
    x_test, y_test = data()
    shapes = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]
    params = [(torch.randn(*s, generator=g) * 0.1).to(dev).requires_grad_() for s in shapes]

    def lenet(images, p):
        h = F.avg_pool2d(F.relu(F.conv2d(images, p[0], p[1], padding=2)), 2)
        h = F.avg_pool2d(F.relu(F.conv2d(h, p[2], p[3])), 2)
        h = F.relu(F.linear(h.flatten(1), p[4], p[5]))
        h = F.relu(F.linear(h, p[6], p[7]))
        return F.linear(h, p[8], p[9])

    def step():
        loss = F.cross_entropy(lenet(x, params), y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            accuracy = (lenet(x_test, params).argmax(1) == y_test).float().mean()
            for p, gp in zip(params, grads):
                p.sub_(0.05 * gp)
        return loss.detach(), accuracy

    if "--compile" in sys.argv:
        step = torch.compile(step)
    print(f"PyTorch {torch.__version__} LeNet-5 on {dev}, batch {batch}")
    t0 = None
    for s in range(steps):
        if s == 10:
            if dev == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
        loss, acc = step()
        loss, acc = loss.item(), acc.item()
        if s % 100 == 0 or s == steps - 1:
            print(f"step {s:4d}  loss {loss:.4f}  accuracy {acc:.3f}")
    print(f"{(time.perf_counter() - t0) * 1e6 / (steps - 10):.1f} us per step (steps 10 to {steps - 1})")


if __name__ == "__main__":
    main()
