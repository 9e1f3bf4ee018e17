"""The ResNet-18 training step of examples/cpp/resnet18.cpp in PyTorch, for the side-by-side
timing of issue 24 (docs/performance.md): the same network (3x3 stem, four stages of two basic
blocks, batch norm after every conv, projected 1x1 shortcuts, global average pooling, dense),
softmax cross-entropy, SGD with momentum 0.9, float32 with TF32 off, NCHW, cuDNN with
benchmark mode off (PyTorch's default; --benchmark: on, cuDNN's algorithms chosen by timing as
tgc's are), cuDNN's deterministic mode off as PyTorch's default
(--deterministic: on, the counterpart of tgc's default config deterministic=true). Prints the
loss of each step and the time per step after the first two, as the C++ example does.
(--tf32: TF32 tensor cores for convolutions and products, tgc's cuda_tf32=true).
    python3 benchmarks/cnn/resnet18_torch.py [STEPS [BATCH]] [--compile] [--channels-last] [--deterministic] [--tf32] [--benchmark]
"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, 0, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        h = self.b2(self.c2(h))
        return F.relu(h + (x if self.short is None else self.short(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64))
        blocks, cin = [], 64
        for width in (64, 128, 256, 512):
            blocks += [Block(cin, width, 1 if width == cin else 2), Block(width, width, 1)]
            cin = width
        self.blocks = nn.Sequential(*blocks)
        self.dense = nn.Linear(512, classes)

    def forward(self, x):
        h = self.blocks(F.relu(self.stem(x)))
        return self.dense(h.mean(dim=(2, 3)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps = int(args[0]) if args else 20
    batch = int(args[1]) if len(args) > 1 else 32
    torch.backends.cuda.matmul.allow_tf32 = "--tf32" in sys.argv
    torch.backends.cudnn.allow_tf32 = "--tf32" in sys.argv
    torch.backends.cudnn.benchmark = "--benchmark" in sys.argv  # cuDNN algorithms chosen by timing, as tgc's are
    torch.backends.cudnn.deterministic = "--deterministic" in sys.argv
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(7)
    patterns = torch.randn(10, 3, 32, 32)
    labels = torch.randint(0, 10, (batch,))
    x = (patterns[labels] + torch.randn(batch, 3, 32, 32)).to(dev)
    y = labels.to(dev)
    model = ResNet18().to(dev)
    if "--channels-last" in sys.argv:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if "--compile" in sys.argv:
        step = torch.compile(step)
    print(f"PyTorch {torch.__version__} ResNet-18 on {dev}, batch {batch}")
    t0 = None
    for s in range(steps):
        if s == 2:
            if dev == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
        loss = step()
        print(f"step {s:3d}  loss {loss.item():.4f}")
    if steps > 2:
        print(f"{(time.perf_counter() - t0) * 1000 / (steps - 2):.2f} ms per step (steps 2 to {steps - 1})")


if __name__ == "__main__":
    main()
