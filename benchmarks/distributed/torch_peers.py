"""PyTorch's side of issue 21's measurements, run under torch.distributed.run (one process per
GPU), printing one JSON line from rank 0 per measurement, as distributed_bench does:
  allreduce: torch.distributed.all_reduce of a float32 tensor (NCCL), bus bandwidth as nccl-tests
  mlp:       DistributedDataParallel training steps of the same 784-H-H-10 MLP (SGD, lr 0.01),
             the global batch split among the ranks and kept on the device; alone without DDP.
Usage: python -m torch.distributed.run --nproc_per_node=N torch_peers.py allreduce|mlp [--flags]
NCCL_NVLS_ENABLE=0 is kept (the machines are shared)."""
import argparse
import json
import os
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["allreduce", "mlp"])
    p.add_argument("--mib", type=int, default=1024)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--batch", type=int, default=8192)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    a = p.parse_args()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    if world > 1:
        dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    dev = torch.device("cuda", local)
    if a.what == "allreduce":
        x = torch.zeros(a.mib * (1 << 20) // 4, dtype=torch.float32, device=dev)
        for _ in range(3):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        per = (time.perf_counter() - t0) / a.iters
        alg = x.numel() * 4 / per / 1e9
        if rank == 0:
            print(json.dumps({"bench": "allreduce", "peer": "torch", "ranks": world, "bytes": x.numel() * 4,
                              "seconds": round(per, 6), "algbw_GBps": round(alg, 1),
                              "busbw_GBps": round(alg * 2 * (world - 1) / world, 1)}), flush=True)
    else:
        torch.manual_seed(1)
        h = a.hidden
        model = torch.nn.Sequential(torch.nn.Linear(784, h), torch.nn.ReLU(), torch.nn.Linear(h, h), torch.nn.ReLU(),
                                    torch.nn.Linear(h, 10)).to(dev)
        if world > 1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        rows = a.batch // world
        g = torch.Generator(device=dev).manual_seed(1000 + rank)
        x = torch.rand(rows, 784, device=dev, generator=g)
        y = torch.randint(0, 10, (rows,), device=dev, generator=g)
        lossf = torch.nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            loss = lossf(model(x), y)
            loss.backward()
            opt.step()
            return loss

        for _ in range(a.warmup):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.steps):
            loss = step()
        torch.cuda.synchronize()
        per = (time.perf_counter() - t0) / a.steps
        if rank == 0:
            print(json.dumps({"bench": "mlp", "peer": "torch" + ("-ddp" if world > 1 else ""), "ranks": world,
                              "batch": a.batch, "hidden": h, "step_ms": round(per * 1e3, 3),
                              "samples_per_s": round(a.batch / per), "loss": round(loss.item(), 6),
                              "tf32": torch.backends.cuda.matmul.allow_tf32}), flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
