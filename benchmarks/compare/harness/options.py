"""The options of benchmarks/compare/run (standard library only: `run --help` and the venv
setup read them before anything is installed)."""

import argparse
from pathlib import Path

from .peers import PEERS

HERE = Path(__file__).resolve().parents[1]
REPO = HERE.parents[1]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="benchmarks/compare/run",
                                description="tgc against NumPy, JAX, PyTensor, PyTorch and CuPy on this machine.")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where every implementation runs")
    p.add_argument("--quick", action="store_true", help="few repetitions and small sizes, for smoke runs")
    p.add_argument("--reps", type=int, help="timed repetitions per implementation (default 7, --quick 3)")
    p.add_argument("--out", type=Path, default=HERE / "out", help="results.json, inputs and logs go here")
    p.add_argument("--no-install", action="store_true",
                   help="use the python that runs this script as it is (no virtualenv, no pip)")
    p.add_argument("--build-dir", type=Path, default=REPO / "build",
                   help="tgc's CMake build folder (configured with benchmarks if it does not exist)")
    p.add_argument("--no-build", action="store_true", help="use the tgc binaries in --build-dir as they are")
    p.add_argument("--only", help="comma-separated workload ids or kinds (check1,logreg,chain,...)")
    p.add_argument("--peers", help=f"comma-separated subset of {','.join(PEERS)}")
    p.add_argument("--no-docs", action="store_true", help="leave docs/ alone (results.json and the chart go to --out)")
    p.add_argument("--note", help="a line for the machine's section of docs/performance.md")
    args = p.parse_args(argv)
    if args.reps is None:
        args.reps = 3 if args.quick else 7
    if args.reps < 1:
        p.error("--reps must be at least 1")
    return args
