"""The comparison's report: medians, ratios (peer time / tgc time), relative errors and compile
times as Markdown tables, in one section per machine and device of docs/performance.md that a
re-run replaces. Standard library only, so its tests run anywhere (tests/benchmarks/compare/)."""

import re
import statistics

INSERT_ANCHOR = "<!-- compare:insert-here -->"
LABELS = {"tgc": "tgc (C++ API)", "tgc-cli": "tgc CLI"}


def label(impl):
    return LABELS.get(impl, impl)


def slug(text):
    """A file- and marker-safe key: "Intel(R) Xeon(R), 2 cores" -> "intel-r-xeon-r-2-cores"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def median(values):
    return statistics.median(values) if values else None


def fmt_time(seconds):
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}×"


def shown_time(w, res):
    """The time a table shows: the whole loop for 'loop' workloads, else one call."""
    if res.get("median_s") is None:
        return None
    return res["median_s"] if w["per"] == "loop" else res["median_s"] / w["iters"]


def reference_of(w):
    """The implementation that ratios and errors are taken against: tgc's C++ API, else its CLI."""
    for impl in ("tgc", "tgc-cli"):
        if w["results"].get(impl, {}).get("status") == "ok":
            return impl
    return None


def ratio(w, impl):
    """Peer median / reference median: above 1, tgc is faster."""
    ref = reference_of(w)
    if ref is None or impl == ref:
        return None
    a, b = w["results"].get(impl, {}).get("median_s"), w["results"][ref].get("median_s")
    return a / b if a and b else None


def mismatches(results):
    """(workload id, impl, error, tolerance) of every output beyond its workload's tolerance."""
    found = []
    for w in results["workloads"]:
        for impl, res in w["results"].items():
            err = res.get("rel_err")
            if err is not None and not err <= w["tol"]:  # a NaN error is a mismatch too
                found.append((w["id"], impl, err, w["tol"]))
    return found


def columns(results):
    """Implementations that ran at least one workload, in the table's order."""
    order = [i["name"] for i in results["implementations"]]
    ran = {impl for w in results["workloads"] for impl, r in w["results"].items() if r.get("status") == "ok"}
    return [i for i in order if i in ran]


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _row_title(w):
    return f"{w['title']} (per {'loop' if w['per'] == 'loop' else 'call'})"


def times_table(results):
    cols = columns(results)
    rows = []
    for w in results["workloads"]:
        row = [_row_title(w)]
        for impl in cols:
            res = w["results"].get(impl, {})
            if res.get("status") != "ok":
                row.append("n/a")
                continue
            cell = fmt_time(shown_time(w, res))
            r = ratio(w, impl)
            row.append(cell if r is None else f"{cell} ({fmt_ratio(r)})")
        rows.append(row)
    return _table(["workload"] + [label(c) for c in cols], rows)


def throughput_table(results):
    cols = columns(results)
    rows = []
    for w in results["workloads"]:
        if not (w.get("bytes_per_call") or w.get("flops_per_call")):
            continue
        row = [w["title"]]
        for impl in cols:
            res = w["results"].get(impl, {})
            per_call = res["median_s"] / w["iters"] if res.get("median_s") else None
            if per_call is None:
                row.append("n/a")
            elif w.get("flops_per_call"):
                flops = w["flops_per_call"] / per_call
                row.append(f"{flops / 1e12:.3g} TFLOP/s" if flops >= 1e12 else f"{flops / 1e9:.3g} GFLOP/s")
            else:
                row.append(f"{w['bytes_per_call'] / per_call / 1e9:.3g} GB/s")
        rows.append(row)
    return _table(["workload"] + [label(c) for c in cols], rows) if rows else ""


def fmt_err(err, tol):
    if err is None:
        return "—"
    text = f"{err:.1e}"
    return text if err <= tol else f"**MISMATCH {text} > {tol:.0e}**"


def errors_table(results):
    cols = columns(results)
    rows = []
    for w in results["workloads"]:
        ref = w.get("error_reference") or reference_of(w)
        row = [w["title"], label(ref) if ref else "none", f"{w['tol']:.0e}"]
        for impl in cols:
            res = w["results"].get(impl, {})
            row.append("reference" if impl == ref else fmt_err(res.get("rel_err"), w["tol"])
                       if res.get("status") == "ok" else "n/a")
        rows.append(row)
    return _table(["workload", "reference", "tolerance"] + [label(c) for c in cols], rows)


def compile_table(results):
    cols = [c for c in columns(results)
            if any(w["results"].get(c, {}).get("compile_s") is not None for w in results["workloads"])]
    rows = [[w["title"]] + [fmt_time(w["results"].get(c, {}).get("compile_s")) for c in cols]
            for w in results["workloads"]]
    return _table(["workload"] + [label(c) for c in cols], rows)


def cold_warm_lines(results):
    cw = results.get("cold_warm") or {}
    if "error" in cw:
        return [f"- tgc cold/warm compile: not measured ({cw['error']})"]
    if not cw:
        return []
    return [f"- {cw['title']}: tgc `function()` {fmt_time(cw['api_cold_s'])} with an empty kernel cache, "
            f"{fmt_time(cw['api_warm_s'])} warm from the disk cache (a new process); the whole "
            f"`tgc run --iters 1` process less its call: {fmt_time(cw['cli_cold_s'])} cold, "
            f"{fmt_time(cw['cli_warm_s'])} warm."]


def unavailable_lines(results):
    lines = []
    for i in results["implementations"]:
        if not i.get("available"):
            lines.append(f"- {label(i['name'])}: not available ({i['reason']})")
    dead = {i["name"] for i in results["implementations"] if not i.get("available")}
    for w in results["workloads"]:
        for impl, res in w["results"].items():
            if impl not in dead and res.get("status") != "ok":
                lines.append(f"- {label(impl)}, {w['title']}: not available ({res.get('reason')})")
    return lines


def heading(results):
    return f"{results['machine']['name']} — device {results['device']}"


def section_key(results):
    return slug(heading(results))


def markdown_section(results, chart_path=None):
    """The section of docs/performance.md for this machine and device, markers included."""
    key = section_key(results)
    m = results["machine"]
    versions = ", ".join(f"{label(i['name'])} {i['version']}" for i in results["implementations"]
                         if i.get("available") and i.get("version"))
    parts = [f"<!-- compare:begin {key} -->", f"### {heading(results)}", "",
             f"`{results['command']}` on {results['date']}, {results['duration_s'] / 60:.1f} min; "
             f"{'--quick sizes, ' if results['quick'] else ''}median of {results['reps']} interleaved "
             f"repetitions after a warm-up. {m['os']}; {versions}.", ""]
    lb, la, cores = results.get("load_before"), results.get("load_after"), m["cores"]
    if lb is not None and max(lb, la or 0) > 0.5 * cores:
        parts += [f"**Noisy:** the machine was busy (load average {lb:.1f} before, {la:.1f} after, on "
                  f"{cores} cores): read the ratios as rough, not the absolute times.", ""]
    if results.get("note"):
        parts += [results["note"], ""]
    parts += ["Median time (peer time / tgc time in brackets: above 1, tgc is faster):", "",
              times_table(results), ""]
    tp = throughput_table(results)
    if tp:
        parts += ["Throughput:", "", tp, ""]
    parts += ["Relative error of each output against the reference (max |a − b| / max |b|, after the "
              "workload's first calls; training workloads after 5 steps, their trained parameters "
              "included where the implementation can read them back, all but the tgc CLI):", "",
              errors_table(results), "",
              "Compile (or jit) time of each workload, where the implementation has one:", "",
              compile_table(results), ""]
    parts += cold_warm_lines(results)
    lines = unavailable_lines(results)
    if lines:
        parts += ["", "Not available in this run:", ""] + lines
    if chart_path:
        parts += ["", f"![peer time / tgc time, {heading(results)}]({chart_path})"]
    parts += [f"<!-- compare:end {key} -->"]
    return "\n".join(parts) + "\n"


def replace_section(doc, key, section):
    """doc with the section of `key` replaced by `section`; a new key goes before the insert
    anchor (or at the end). Other machines' sections are left as they are."""
    begin, end = f"<!-- compare:begin {key} -->", f"<!-- compare:end {key} -->"
    if begin in doc and end in doc:
        start = doc.index(begin)
        stop = doc.index(end, start) + len(end)
        if doc[stop:stop + 1] == "\n":
            stop += 1
        return doc[:start] + section + doc[stop:]
    if INSERT_ANCHOR in doc:
        at = doc.index(INSERT_ANCHOR)
        return doc[:at] + section + "\n" + doc[at:]
    return doc.rstrip("\n") + "\n\n" + section
