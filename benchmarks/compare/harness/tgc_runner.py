"""tgc's two implementations of every workload: the `tgc run` CLI (one process per repetition,
timed by the CLI's own "Looping N times took X seconds" line, so only the calls count) and the
C++ API through tgc_compare_driver (one process serving all repetitions). Also the cold and
warm (disk-cache) compile times of the logistic regression."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from .impl import Impl, Unavailable

REPO = Path(__file__).resolve().parents[3]

# The .tg programs of the workloads that are not examples/ files; inputs are the .npy files
# beside them (load() is relative to the .tg file). Outputs of the compute-bound ones stay on
# the device, as in the driver and the peers.
TG_SOURCES = {
    "chain": '''a = shared(load("a.npy"), name="a")
b = shared(load("b.npy"), name="b")
c = shared(load("c.npy"), name="c")
chain = function([], a * exp(-b) + c * tanh(a) - 0.5 * b * c, device_result=true)
''',
    "sumsq": '''a = shared(load("a.npy"), name="a")
sumsq = function([], sum(a * a), device_result=true)
''',
    "sgemm": '''x = shared(load("x.npy"), name="x")
y = shared(load("y.npy"), name="y")
sgemm = function([], dot(x, y), device_result=true)
''',
    "mlp": '''x = shared(load("x.npy"), name="x")
y1h = shared(load("y1h.npy"), name="y1h")
w1 = shared(load("w1.npy"), name="w1")
b1 = shared(load("b1.npy"), name="b1")
w2 = shared(load("w2.npy"), name="w2")
b2 = shared(load("b2.npy"), name="b2")
h = maximum(dot(x, w1) + b1, 0)
logits = dot(h, w2) + b2
loss = -mean(sum(y1h * log_softmax(logits), axis=1))
gw1, gb1, gw2, gb2 = grad(loss, [w1, b1, w2, b2])
mlp = function([], [loss, logits], device_result=true,
               updates=[(w1, w1 - 0.1 * gw1), (b1, b1 - 0.1 * gb1), (w2, w2 - 0.1 * gw2), (b2, b2 - 0.1 * gb2)])
''',
    "bigmlp": '''x = shared(load("x.npy"), name="x")
y1h = shared(load("y1h.npy"), name="y1h")
w1 = shared(load("w1.npy"), name="w1")
b1 = shared(load("b1.npy"), name="b1")
w2 = shared(load("w2.npy"), name="w2")
b2 = shared(load("b2.npy"), name="b2")
w3 = shared(load("w3.npy"), name="w3")
b3 = shared(load("b3.npy"), name="b3")
h1 = maximum(dot(x, w1) + b1, 0)
h2 = maximum(dot(h1, w2) + b2, 0)
logits = dot(h2, w3) + b3
loss = -mean(sum(y1h * log_softmax(logits), axis=1))
gw1, gb1, gw2, gb2, gw3, gb3 = grad(loss, [w1, b1, w2, b2, w3, b3])
bigmlp = function([], [loss, logits], device_result=true,
                  updates=[(w1, w1 - 0.1 * gw1), (b1, b1 - 0.1 * gb1), (w2, w2 - 0.1 * gw2),
                           (b2, b2 - 0.1 * gb2), (w3, w3 - 0.1 * gw3), (b3, b3 - 0.1 * gb3)])
''',
    "bow": '''tokens = shared(load("tokens.npy"), name="tokens")
y1h = shared(load("y1h.npy"), name="y1h")
emb = shared(load("emb.npy"), name="emb")
w = shared(load("w.npy"), name="w")
b = shared(load("b.npy"), name="b")
rows = take(emb, tokens, axis=0)
feat = concatenate([mean(rows, axis=1), max(rows, axis=1)], axis=1)
logits = dot(feat, w) + b
loss = -mean(sum(y1h * log_softmax(logits), axis=1))
gemb, gw, gb = grad(loss, [emb, w, b])
bow = function([], [loss, logits], device_result=true,
               updates=[(emb, emb - 0.1 * gemb), (w, w - 0.1 * gw), (b, b - 0.1 * gb)])
''',
}

LOOP_RE = re.compile(r"Looping (\d+) times took ([0-9.eE+-]+) seconds")
ONCE_RE = re.compile(r"Calling \S+ once took ([0-9.eE+-]+) seconds")


def parse_cli_time(stdout):
    """Seconds of the calls from `tgc run`'s timing line."""
    m = LOOP_RE.search(stdout) or ONCE_RE.search(stdout)
    if not m:
        raise ValueError(f"no timing line in tgc's output: {stdout[:200]!r}")
    return float(m.groups()[-1])


def tg_program(kind, folder):
    """(path of the .tg file, function name) that `tgc run` runs for a workload of this kind."""
    if kind in ("check1", "check2"):
        return REPO / "examples" / f"{kind}.tg", kind
    if kind == "logreg":
        return REPO / "examples" / "logreg.tg", "train"
    path = Path(folder) / f"{kind}.tg"
    path.write_text(f"# Written by benchmarks/compare/run.\n{TG_SOURCES[kind]}")
    return path, kind


def first_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or ["(no output)"])[0]


class TgcEnv:
    """Paths and environment shared by tgc's implementations in one run."""

    def __init__(self, build_dir, device, cache_dir):
        self.tgc = Path(build_dir) / "tgc"
        self.driver = Path(build_dir) / "benchmarks" / "tgc_compare_driver"
        self.device = device
        self.cache_dir = Path(cache_dir)
        self.env = self.env_with_cache(self.cache_dir)

    @staticmethod
    def env_with_cache(cache_dir):
        return dict(os.environ, TGC_FLAGS=f"cache_dir={cache_dir}")

    def version(self):
        if not self.tgc.exists():
            raise Unavailable(f"{self.tgc} is not built")
        out = subprocess.run([str(self.tgc), "--version"], capture_output=True, text=True)
        return out.stdout.strip()

    def check_device(self):
        """Raises Unavailable when this tgc build cannot use the device (tgc devices says why)."""
        if self.device == "cpu":
            return
        out = subprocess.run([str(self.tgc), "devices"], capture_output=True, text=True, env=self.env).stdout
        kind = self.device.split(":")[0]
        # Lines read "cuda:0   available  (...)" (or "cuda  unavailable (why)" without a device).
        line = next((l for l in out.splitlines() if l.split()[:1] and l.split()[0].split(":")[0] == kind), "")
        if line.split()[1:2] != ["available"]:
            raise Unavailable(f"tgc cannot use {self.device} in this build: {' '.join(line.split()) or out.strip()}")


class TgcCli(Impl):
    """`tgc run FILE --iters N`, one process per repetition."""

    def __init__(self, env, w, folder):
        super().__init__()
        self.env, self.w = env, w
        if not env.tgc.exists():
            raise Unavailable(f"{env.tgc} is not built")
        env.check_device()
        self.path, self.fn = tg_program(w.kind, folder)
        self.out_dir = Path(folder) / "tgc-cli-out"

    def _run(self, iters, save):
        cmd = [str(self.env.tgc), "run", str(self.path), "--fn", self.fn, "--iters", str(iters),
               "--device", self.env.device]
        if save:
            cmd += ["--out", str(self.out_dir)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self.env.env)
        if proc.returncode != 0:
            raise Unavailable(f"tgc run failed (exit {proc.returncode}): {first_error_line(proc.stderr + proc.stdout)}")
        return proc.stdout

    def run(self, iters):
        return parse_cli_time(self._run(iters, save=False))

    def outputs(self, calls):
        shutil.rmtree(self.out_dir, ignore_errors=True)
        self._run(calls, save=True)
        files = sorted(self.out_dir.glob(f"{self.fn}_*.npy"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
        return [np.load(p) for p in files]


class TgcDriver(Impl):
    """tgc_compare_driver: the workload compiled once through the C++ API, run on request."""

    def __init__(self, env, w, folder, cache_env=None):
        super().__init__()
        if not env.driver.exists():
            raise Unavailable(f"{env.driver} is not built (target tgc_compare_driver)")
        self.folder = Path(folder)
        cmd = [str(env.driver), "--workload", w.kind, "--data", str(folder), "--device", env.device]
        # stderr to a file: a pipe nobody reads could fill up and stall the driver.
        self.stderr_path = self.folder / "tgc-driver-stderr.log"
        with open(self.stderr_path, "w") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         text=True, env=cache_env or env.env)
        reply = self._reply()
        self.compile_s = reply["compile_s"]

    def _reply(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            err = self.stderr_path.read_text()
            raise Unavailable(f"tgc_compare_driver exited {self.proc.returncode}: {first_error_line(err)}")
        reply = json.loads(line)
        if "error" in reply:
            self.proc.wait()
            raise Unavailable(f"tgc: {first_error_line(reply['error'])}")
        return reply

    def _ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def run(self, iters):
        return self._ask(f"run {iters}")["seconds"]

    def outputs(self, calls):
        self.run(calls)
        out = Path(tempfile.mkdtemp(prefix="driver-out-", dir=self.folder))
        n = self._ask(f"save {out}")["saved"]
        return [np.load(out / f"out_{i}.npy") for i in range(n)]

    def params(self):
        out = Path(tempfile.mkdtemp(prefix="driver-params-", dir=self.folder))
        n = self._ask(f"params {out}")["saved"]
        return [np.load(out / f"param_{i}.npy") for i in range(n)] if n else None

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()


def compile_times(env, w, folder, scratch):
    """Cold and warm compile of workload w with an empty, then the same, kernel cache: through
    the C++ API (function() alone) and through the CLI (the whole `tgc run --iters 1` process)."""
    result = {}
    cache = Path(scratch) / "tgc-cache-coldwarm"
    shutil.rmtree(cache, ignore_errors=True)
    cache_env = TgcEnv.env_with_cache(cache)
    for phase in ("cold", "warm"):
        d = TgcDriver(env, w, folder, cache_env=cache_env)
        result[f"api_{phase}_s"] = d.compile_s
        d.close()
    shutil.rmtree(cache, ignore_errors=True)
    path, fn = tg_program(w.kind, folder)
    for phase in ("cold", "warm"):
        start = time.perf_counter()
        proc = subprocess.run([str(env.tgc), "run", str(path), "--fn", fn, "--iters", "1", "--device", env.device],
                              capture_output=True, text=True, env=cache_env)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise Unavailable(f"tgc run failed: {first_error_line(proc.stderr)}")
        result[f"cli_{phase}_s"] = wall - parse_cli_time(proc.stdout)
    shutil.rmtree(cache, ignore_errors=True)
    return result
