"""The harness's virtualenv: created with `python3 -m venv`, filled one pinned requirement at a
time so that a peer the machine cannot install (no wheel, no network) is recorded, not fatal.
Standard library only: it runs before anything is installed."""

import hashlib
import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

STAMP = "tgc-compare-install.json"


def parse_requirements(text):
    """(pip options, requirement lines) of a requirements file; comments and blanks dropped."""
    options, reqs = [], []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        (options if line.startswith("-") else reqs).append(line)
    return options, reqs


def constraint_of(req):
    """The pin of a requirement without extras ("jax[cpu]==0.4.35" -> "jax==0.4.35"): pip
    refuses extras in a constraints file."""
    return re.sub(r"\[[^\]]*\]", "", req)


def package_name(req):
    return re.split(r"[\[=<>!~ ;]", req, maxsplit=1)[0].lower()


def pip_failure_reason(output, returncode):
    """One line saying why pip failed: its first ERROR line, and the index it could not reach."""
    lines = output.splitlines()
    errors = [l[len("ERROR: "):] for l in lines if l.startswith("ERROR: ")]
    reason = errors[0] if errors else f"exit {returncode}"
    unreachable = sorted({m.group(1) for l in lines
                          for m in [re.search(r"Failed to establish a new connection.*?'\)': (\S+)", l)] if m})
    if unreachable:
        reason += f" (could not reach the index for {', '.join(unreachable)})"
    return reason


def venv_python(venv_dir):
    return Path(venv_dir) / "bin" / "python"


def ensure_venv(venv_dir, requirements_file, log_path):
    """Creates venv_dir if needed and installs each requirement of requirements_file into it
    that an earlier run of the same file did not install. Returns {package: "installed" or
    the reason it could not be}."""
    venv_dir, requirements_file = Path(venv_dir), Path(requirements_file)
    text = requirements_file.read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()
    stamp = venv_dir / STAMP
    done = {}  # what an earlier run of the same file installed; what failed is tried again
    if stamp.exists():
        recorded = json.loads(stamp.read_text())
        if recorded.get("sha256") == digest:
            done = {k: v for k, v in recorded["packages"].items() if v == "installed"}
    if not venv_python(venv_dir).exists():
        print(f"compare: creating {venv_dir}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=False).create(venv_dir)
    options, reqs = parse_requirements(text)
    constraints = venv_dir / "constraints.txt"
    constraints.write_text("".join(constraint_of(r) + "\n" for r in reqs))
    py = str(venv_python(venv_dir))
    # Short network timeouts: an unreachable index should cost seconds, not minutes.
    base = [py, "-m", "pip", "install", "--disable-pip-version-check", "--retries", "1", "--timeout", "30",
            "-c", str(constraints), *sum((o.split(maxsplit=1) for o in options), [])]
    results = dict(done)
    with open(log_path, "a") as log:
        for req in reqs:
            if package_name(req) in done:
                continue
            print(f"compare: pip install {req}", flush=True)
            log.write(f"\n$ pip install {req}\n")
            log.flush()
            proc = subprocess.run(base + [req], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            log.write(proc.stdout)
            name = package_name(req)
            if proc.returncode == 0:
                results[name] = "installed"
            else:
                results[name] = f"pip install {req} failed: {pip_failure_reason(proc.stdout, proc.returncode)}"
                print(f"compare: could not install {req} ({results[name]})", flush=True)
    stamp.write_text(json.dumps({"sha256": digest, "packages": results}, indent=1))
    return results


def reexec_in_venv(venv_dir, argv, install_record):
    """Replaces this process with the harness under the venv's python, passing what the
    install could not do through the environment."""
    env = dict(os.environ, TGC_COMPARE_IN_VENV="1", TGC_COMPARE_INSTALL=json.dumps(install_record))
    py = str(venv_python(venv_dir))
    os.execve(py, [py, *argv], env)


def main_setup(here, device, argv, out_dir):
    """Entry point of `run` outside the venv: sets it up, then re-executes `run` inside it."""
    if os.environ.get("TGC_COMPARE_IN_VENV"):
        return
    venv_dir = here / ".venv"
    req = here / ("requirements-cuda.txt" if device == "cuda" else "requirements-cpu.txt")
    out_dir.mkdir(parents=True, exist_ok=True)
    record = ensure_venv(venv_dir, req, out_dir / "pip.log")
    reexec_in_venv(venv_dir, [str(here / "run"), *argv], {"requirements": str(req.name), "packages": record})
    sys.exit("compare: could not re-execute in the virtualenv")  # execve only returns on failure
