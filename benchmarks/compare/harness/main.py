"""The comparison run: builds tgc's targets, probes the peers, then for each workload writes
its inputs, compiles it in every implementation, checks their outputs against tgc's, times
them interleaved (A B C A B C ...) after a warm-up, and writes results.json, the chart and the
machine's section of docs/performance.md."""

import datetime
import importlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from . import chart, machine, report, workloads
from .impl import Unavailable
from .options import parse_args
from .peers import PEERS
from .peers import formulas
from .tgc_runner import REPO, TgcCli, TgcDriver, TgcEnv, compile_times

DOC = REPO / "docs" / "performance.md"


def build_tgc(build_dir):
    """Configures (with benchmarks) and builds the two targets the comparison runs; None or the
    reason it failed."""
    if not (build_dir / "CMakeCache.txt").exists():
        cfg = ["cmake", "-S", str(REPO), "-B", str(build_dir), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
               "-DTGC_BUILD_BENCHMARKS=ON", "-DTGC_BUILD_TESTS=OFF", "-DTGC_BUILD_EXAMPLES=OFF"]
        if subprocess.run(cfg).returncode != 0:
            return "cmake configure failed"
    elif "TGC_BUILD_BENCHMARKS:BOOL=ON" not in (build_dir / "CMakeCache.txt").read_text():
        # The driver is a benchmark target: turn them on in this build folder.
        if subprocess.run(["cmake", "-B", str(build_dir), "-DTGC_BUILD_BENCHMARKS=ON"]).returncode != 0:
            return "cmake -DTGC_BUILD_BENCHMARKS=ON failed"
    if subprocess.run(["cmake", "--build", str(build_dir), "--target", "tgc_cli", "tgc_compare_driver"]).returncode:
        return "the build of tgc_cli and tgc_compare_driver failed"
    return None


def relative_error(outputs, reference):
    """max over outputs of max|a - b| / max|b|; inf when the outputs do not line up."""
    if len(outputs) != len(reference):
        return math.inf
    worst = 0.0
    for a, b in zip(outputs, reference):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return math.inf
        scale = max(float(np.max(np.abs(b))) if b.size else 0.0, 1e-30)
        diff = float(np.max(np.abs(a - b))) if a.size else 0.0
        if math.isnan(diff):
            return math.nan
        worst = max(worst, diff / scale)
    return worst


class Implementations:
    """The implementations of this run and whether each is available, probed once."""

    def __init__(self, args, tgc_env, build_error):
        self.args, self.tgc_env = args, tgc_env
        self.info = []  # report order
        self.install = (json.loads(os.environ.get("TGC_COMPARE_INSTALL", "null")) or {}).get("packages", {})
        self.modules = {}
        for name in ("tgc", "tgc-cli"):
            self.info.append(self._probe_tgc(name, build_error))
        wanted = args.peers.split(",") if args.peers else PEERS
        for name in PEERS:
            if name in wanted:
                self.info.append(self._probe_peer(name))

    def _probe_tgc(self, name, build_error):
        try:
            if build_error:
                raise Unavailable(build_error)
            version = self.tgc_env.version()
            self.tgc_env.check_device()
            if name == "tgc" and not self.tgc_env.driver.exists():
                raise Unavailable(f"{self.tgc_env.driver} is not built")
            return {"name": name, "available": True, "version": version}
        except Unavailable as e:
            return {"name": name, "available": False, "reason": str(e)}

    def _probe_peer(self, name):
        try:
            module = importlib.import_module(f".peers.{name}_peer", __package__)
            version = module.probe(self.args.device)
            self.modules[name] = module
            return {"name": name, "available": True, "version": version}
        except Unavailable as e:
            reason = str(e)
            failed = [v for k, v in self.install.items() if k.startswith(name) and v != "installed"]
            if failed:  # say why it is not installed
                reason = failed[0]
            return {"name": name, "available": False, "reason": reason}
        except Exception as e:  # a broken install: report it, never skip silently
            return {"name": name, "available": False, "reason": f"import failed: {type(e).__name__}: {e}"}

    def available(self):
        return [i["name"] for i in self.info if i["available"]]

    def build(self, name, w, folder, data):
        if name == "tgc":
            return TgcDriver(self.tgc_env, w, folder)
        if name == "tgc-cli":
            return TgcCli(self.tgc_env, w, folder)
        return self.modules[name].build(w, data, self.args.device)


def run_workload(w, impls, args, data_root):
    """Results of one workload for every available implementation."""
    folder = workloads.make_data(w, data_root)
    data = workloads.load(w)
    results, built, outputs, params = {}, {}, {}, {}
    for name in impls.available():
        try:
            built[name] = impls.build(name, w, folder, data)
            outputs[name] = built[name].outputs(w.check_calls)
            if w.params:
                params[name] = built[name].params()
            results[name] = {"status": "ok", "compile_s": built[name].compile_s}
        except Unavailable as e:
            results[name] = {"status": "unavailable", "reason": str(e)}
        except Exception as e:
            traceback.print_exc()
            results[name] = {"status": "failed", "reason": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
        if name in results and results[name]["status"] != "ok" and name in built:
            built.pop(name).close()
    reference = next((n for n in ("tgc", "tgc-cli") if n in outputs), None)
    if reference:
        ref_out, ref_params = outputs[reference], params.get(reference)
    else:  # no tgc here: check the peers against the NumPy formulas on the host
        reference = "numpy formulas (host)"
        step = formulas.make(w.kind, np, data)
        for _ in range(w.check_calls):
            ref_out = step()
        ref_params = step.params() if w.params else None
    for name, out in outputs.items():
        if name != reference:
            results[name]["rel_err"] = relative_error(out, ref_out)
            # The trained parameters after the same steps, where both can read them back; the
            # table's error is the worse of the outputs' and the parameters'.
            if ref_params is not None and params.get(name) is not None:
                perr = relative_error(params[name], ref_params)
                results[name]["param_err"] = perr
                results[name]["rel_err"] = max(results[name]["rel_err"], perr) \
                    if not math.isnan(perr) else math.nan
    times = {name: [] for name in built}

    def timed(name):
        """One repetition of `name`; a failure drops it from the run with the reason."""
        try:
            return built[name].run(w.iters)
        except Exception as e:
            traceback.print_exc()
            results[name] = {"status": "failed", "reason": f"timing failed: {type(e).__name__}: {e}"}
            built.pop(name).close()
            times.pop(name)
            return None

    for name in list(built):  # warm-up
        timed(name)
    for _ in range(args.reps):
        for name in list(built):
            t = timed(name)
            if t is not None:
                times[name].append(t)
    for name, ts in times.items():
        results[name].update(times_s=ts, median_s=report.median(ts))
    for b in built.values():
        b.close()
    return {"id": w.id, "kind": w.kind, "title": w.title, "iters": w.iters, "per": w.per, "tol": w.tol,
            "size": w.size, "bytes_per_call": w.bytes_per_call, "flops_per_call": w.flops_per_call,
            "error_reference": reference, "results": results}


def print_progress(w):
    for name, res in w["results"].items():
        if res.get("status") == "ok":
            err = res.get("rel_err")
            perr = res.get("param_err")
            print(f"  {name:9s} {report.fmt_time(report.shown_time(w, res)):>10s}"
                  f"{'' if err is None else f'   rel err {err:.1e}'}"
                  f"{'' if perr is None else f' (parameters {perr:.1e})'}", flush=True)
        else:
            print(f"  {name:9s} not available ({res.get('reason')})", flush=True)


def main(argv):
    args = parse_args(argv)
    started = time.time()
    args.out.mkdir(parents=True, exist_ok=True)
    info = machine.describe()
    load_before = machine.load_average()
    print(f"compare: {info['name']}, device {args.device}{' (--quick)' if args.quick else ''}", flush=True)
    build_error = None if args.no_build else build_tgc(args.build_dir)
    tgc_env = TgcEnv(args.build_dir, args.device, args.out / "tgc-cache")
    impls = Implementations(args, tgc_env, build_error)
    for i in impls.info:
        print(f"  {i['name']:9s} " + (i["version"] if i["available"] else f"not available ({i['reason']})"), flush=True)
    plan = workloads.plan(args.quick, args.device)
    if args.only:
        keep = set(args.only.split(","))
        plan = [w for w in plan if w.id in keep or w.kind in keep]
    results = {
        "machine": info, "device": args.device, "quick": args.quick, "reps": args.reps,
        "command": "benchmarks/compare/run " + shlex.join(argv), "note": args.note,
        "date": datetime.date.today().isoformat(), "load_before": load_before,
        "install": json.loads(os.environ.get("TGC_COMPARE_INSTALL", "null")),
        "implementations": impls.info, "workloads": [],
    }
    for w in plan:
        print(w.title, flush=True)
        results["workloads"].append(run_workload(w, impls, args, args.out / "data"))
        print_progress(results["workloads"][-1])
    logreg = next((w for w in plan if w.kind == "logreg"), None)
    if logreg and "tgc" in impls.available():
        try:
            results["cold_warm"] = {"title": logreg.title,
                                    **compile_times(tgc_env, logreg, args.out / "data" / logreg.id, args.out)}
        except Unavailable as e:
            results["cold_warm"] = {"error": str(e)}
    results["load_after"] = machine.load_average()
    results["duration_s"] = time.time() - started
    return finish(results, args)


def finish(results, args):
    (args.out / "results.json").write_text(json.dumps(results, indent=1, default=float))
    if not report.columns(results):
        print("compare: no implementation ran any workload; docs left alone", file=sys.stderr)
        for line in report.unavailable_lines(results):
            print(line, file=sys.stderr)
        return 1
    key = report.section_key(results)
    chart_name = f"compare-{key}.png"
    chart_file = (REPO / "docs" / "img" if not args.no_docs else args.out) / chart_name
    chart_file.parent.mkdir(parents=True, exist_ok=True)
    has_chart = chart.save(results, chart_file)
    section = report.markdown_section(results, f"img/{chart_name}" if has_chart and not args.no_docs else None)
    (args.out / "section.md").write_text(section)
    if not args.no_docs:
        DOC.write_text(report.replace_section(DOC.read_text(), key, section))
        print(f"compare: wrote the section '{report.heading(results)}' of {DOC.relative_to(REPO)}")
    print("\n" + section)
    print(f"compare: results in {args.out / 'results.json'}, {results['duration_s'] / 60:.1f} min")
    bad = report.mismatches(results)
    for wid, impl, err, tol in bad:
        print(f"compare: MISMATCH: {wid}: {impl} differs from the reference by {err:.2e} (tolerance {tol:.0e})",
              file=sys.stderr)
    return 3 if bad else 0
