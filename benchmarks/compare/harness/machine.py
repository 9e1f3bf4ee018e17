"""The machine's name for the report: CPU model, core count and GPU model (nvidia-smi), plus
the OS line and the load average that says how quiet the machine was."""

import os
import platform
import shutil
import subprocess


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_model():
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [l.strip() for l in out.stdout.splitlines() if l.strip()]
    if out.returncode != 0 or not names:
        return None
    return names[0] if len(names) == 1 else f"{len(names)}x {names[0]}"


def describe():
    cores = os.cpu_count() or 1
    cpu, gpu = cpu_model(), gpu_model()
    name = f"{cpu}, {cores} cores" + (f", {gpu}" if gpu else "")
    try:
        os_line = platform.freedesktop_os_release().get("PRETTY_NAME", platform.platform())
    except OSError:
        os_line = platform.platform()
    return {"name": name, "cpu": cpu, "cores": cores, "gpu": gpu, "os": f"{os_line}, Python {platform.python_version()}"}


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None
