#!/usr/bin/env python3
"""Runs the samples of a Markdown page (docs/*.md, README.md) and compares their output.

A fenced block is a sample when the line before its fence is a marker comment:

  <!-- doc-test -->              run it
  <!-- doc-test: output -->      (on the block after a cpp or python sample) the output it prints
  <!-- doc-test: skip REASON --> do not run it, for REASON (a GPU, a long benchmark, a fragment)

How each kind runs, from the repository root, with the built `tgc` first on PATH (and
`scripts/tgc` standing for it: that script only builds, then runs it), HOME in a scratch folder
(no ~/.tgcrc) and the kernel cache of the build's doc tests:

  console  (lines starting with "$ "): each command through bash, its stdout and stderr
           together compared with the lines after it, up to the next "$ " line;
  sh       (no "$ " lines): the whole block through bash -e, which must exit 0;
  cpp      a whole program (with main): compiled against the build tree and run, its output
           compared with the following output block when there is one;
  python   run with the built module importable, output compared likewise.

Comparing: trailing spaces are ignored; a line that is only "<...>" stands for any number of
lines; "<...>" inside a line for any text; a number followed by a time unit (seconds, ms, us,
µs, s, min) matches any number, since timings differ from run to run. A command's exit status
must be 0 unless the sample shows "# exits N" after it.

Coverage: every block that holds a "$ " line or is fenced as sh, console or bash, and every
cpp or python block holding a whole program, must carry a marker, so a new sample is either
run or skipped with a reason.

  doc_samples.py PAGE.md --build-dir BUILD [--python PYTHON] [--list]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!--\s*doc-test(?::\s*(output|skip)\b\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```+\s*([\w+-]*)")
TIME_UNIT = r"(?:seconds|second|ms|us|µs|s|min)\b"
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
TIMEOUT = 300


class Block:
    def __init__(self, page, line, info, text, marker, marker_arg):
        self.page, self.line, self.info, self.text = page, line, info, text
        self.marker, self.marker_arg = marker, marker_arg  # marker: None, "run", "output", "skip"

    def where(self):
        return f"{self.page}:{self.line}"

    def is_console(self):
        return any(l.startswith("$ ") for l in self.text.splitlines())

    def needs_marker(self):
        if self.is_console() or self.info in ("sh", "console", "bash", "shell"):
            return True
        return self.info in ("cpp", "c++", "python") and ("int main(" in self.text or "import tgc" in self.text)


def read_blocks(page):
    lines = Path(page).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2)
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        marker = marker_arg = None
        if start > 0:
            mm = MARKER.match(lines[start - 1].strip())
            if mm:
                marker = mm.group(1) or "run"
                marker_arg = (mm.group(2) or "").strip()
        blocks.append(Block(os.path.relpath(page, ROOT), start + 1, info, "\n".join(body), marker, marker_arg))
    return blocks


def line_pattern(expected):
    """A regex for one expected line: <...> is any text, a timed number any number."""
    out, pos = "", 0
    for m in re.finditer(r"<\.\.\.>|(" + NUMBER + r")(?=\s*" + TIME_UNIT + ")", expected):
        out += re.escape(expected[pos:m.start()])
        out += ".*" if m.group(0) == "<...>" else NUMBER
        pos = m.end()
    return re.compile(out + re.escape(expected[pos:]) + r"\Z")


def matches(expected_lines, actual_lines):
    """Whether the actual lines match the expected ones (a "<...>" line: any number of lines)."""
    exp = [l.rstrip() for l in expected_lines]
    act = [l.rstrip() for l in actual_lines]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()
    pats = [None if l == "<...>" else line_pattern(l) for l in exp]

    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(pats):
            r = j == len(act)
        elif pats[i] is None:
            r = any(at(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and pats[i].match(act[j]) is not None and at(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return at(0, 0)


def environment(build_dir, scratch, python_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TGC_") and k != "TGCRC"}
    bin_dir = scratch / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "tgc").unlink(missing_ok=True)
    (bin_dir / "tgc").symlink_to(Path(build_dir).resolve() / "tgc")
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
    env["HOME"] = str(scratch / "home")
    (scratch / "home").mkdir(exist_ok=True)
    env["TGC_FLAGS"] = f"cache_dir={Path(build_dir).resolve() / 'tests' / 'docs' / 'kernel_cache'}"
    env["PYTHONPATH"] = python_dir
    env["COLUMNS"] = "100"
    return env


def shell_command(command):
    # scripts/tgc builds, then runs the built binary: here the binary is built already.
    return re.sub(r"(^|[\s;|&(])scripts/tgc\b", r"\1tgc", command)


def run_console(block, env):
    lines = block.text.splitlines()
    failures, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + "\n" + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        want = 0
        m = re.search(r"#\s*exits\s+(\d+)\s*$", command)
        if m:
            want = int(m.group(1))
        p = subprocess.run(["bash", "-c", shell_command(command)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT)
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode != want:
            failures.append(f"{block.where()}: `{command}` exited {p.returncode}, the page says {want}:\n{out}")
        elif not matches(expected, out.splitlines()):
            failures.append(f"{block.where()}: `{command}` printed\n{out}\nthe page shows\n" + "\n".join(expected))
    return failures


def run_sh(block, env):
    p = subprocess.run(["bash", "-e", "-c", shell_command(block.text)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=TIMEOUT)
    if p.returncode != 0:
        return [f"{block.where()}: the block exited {p.returncode}:\n{p.stdout.decode('utf-8', 'replace')}"]
    return []


def compare_output(block, out, output_block):
    if output_block is None or matches(output_block.text.splitlines(), out.splitlines()):
        return []
    return [f"{block.where()}: the program printed\n{out}\nthe page shows ({output_block.where()})\n{output_block.text}"]


def run_cpp(block, env, build_dir, scratch, output_block):
    src, exe = scratch / f"sample_{block.line}.cpp", scratch / f"sample_{block.line}"
    src.write_text(block.text + "\n", encoding="utf-8")
    build = Path(build_dir).resolve()
    cxx = os.environ.get("CXX", "c++")
    compile_cmd = [cxx, "-std=c++20", "-O1", str(src), "-o", str(exe), f"-I{ROOT}", f"-I{ROOT / 'frontend' / 'include'}",
                   f"-L{build}", "-ltgc", f"-Wl,-rpath,{build}", "-lfmt"]
    p = subprocess.run(compile_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    if p.returncode != 0:
        return [f"{block.where()}: the program does not compile:\n{p.stdout.decode('utf-8', 'replace')}"]
    p = subprocess.run([str(exe)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=TIMEOUT)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        return [f"{block.where()}: the program exited {p.returncode}:\n{out}"]
    return compare_output(block, out, output_block)


def run_python(block, env, python, output_block):
    p = subprocess.run([python, "-c", block.text], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=TIMEOUT)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        return [f"{block.where()}: the program exited {p.returncode}:\n{out}"]
    return compare_output(block, out, output_block)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--python-dir", default="")
    ap.add_argument("--list", action="store_true", help="list the samples and their markers, run nothing")
    a = ap.parse_args()
    blocks = read_blocks(a.page)
    failures = []
    for b in blocks:
        if b.needs_marker() and b.marker is None:
            failures.append(f"{b.where()}: a sample without a marker: put <!-- doc-test --> (run it) or "
                            f"<!-- doc-test: skip REASON --> on the line before its fence")
        if b.marker == "skip" and not b.marker_arg:
            failures.append(f"{b.where()}: a skipped sample needs a reason (<!-- doc-test: skip REASON -->)")
    if a.list:
        for b in blocks:
            print(f"{b.where()} {b.info or '-'} {b.marker or ''} {b.marker_arg or ''}")
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="tgc-doc-test-"))
    ran = 0
    try:
        env = environment(a.build_dir, scratch, a.python_dir)
        for k, b in enumerate(blocks):
            if b.marker != "run":
                continue
            following = blocks[k + 1] if k + 1 < len(blocks) and blocks[k + 1].marker == "output" else None
            ran += 1
            if b.is_console():
                failures += run_console(b, env)
            elif b.info in ("cpp", "c++"):
                failures += run_cpp(b, env, a.build_dir, scratch, following)
            elif b.info == "python":
                failures += run_python(b, env, a.python, following)
            else:
                failures += run_sh(b, env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print(f"FAIL {f}\n")
    print(f"{a.page}: {ran} sample(s) run, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
