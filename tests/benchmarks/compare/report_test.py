"""Tests of benchmarks/compare's report (ratios, tables, mismatch flags, the replacement of a
machine's section in docs/performance.md) and of its requirement parsing. Standard library
only: no peers, no network. Run by ctest as compare_report_test."""

import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks" / "compare"))

from harness import env_setup, report  # noqa: E402


def workload(wid="chain-1048576", per="call", iters=10, tol=1e-5, results=None, **extra):
    return {"id": wid, "kind": wid.split("-")[0], "title": wid, "iters": iters, "per": per, "tol": tol,
            "size": 0, "bytes_per_call": 0, "flops_per_call": 0, "results": results or {}, **extra}


def ok(median_s, rel_err=None, compile_s=None):
    return {"status": "ok", "times_s": [median_s], "median_s": median_s, "rel_err": rel_err, "compile_s": compile_s}


def run_results(workloads, load=0.1, implementations=None):
    return {
        "machine": {"name": "Test CPU, 2 cores", "cpu": "Test CPU", "cores": 2, "gpu": None, "os": "TestOS"},
        "device": "cpu", "quick": True, "reps": 3, "command": "benchmarks/compare/run --quick",
        "date": "2025-01-01", "duration_s": 90.0, "load_before": load, "load_after": load, "note": None,
        "implementations": implementations or [
            {"name": "tgc", "available": True, "version": "0.1.0"},
            {"name": "tgc-cli", "available": True, "version": "0.1.0"},
            {"name": "numpy", "available": True, "version": "1.26.4"},
            {"name": "cupy", "available": False, "reason": "CuPy needs a CUDA GPU"}],
        "workloads": workloads,
    }


class FormatTest(unittest.TestCase):
    def test_slug_keeps_letters_and_digits(self):
        self.assertEqual(report.slug("Intel(R) Xeon(R) Processor, 2 cores — device cpu"),
                         "intel-r-xeon-r-processor-2-cores-device-cpu")

    def test_times_pick_a_readable_unit(self):
        self.assertEqual(report.fmt_time(1.5), "1.5 s")
        self.assertEqual(report.fmt_time(0.0241), "24.1 ms")
        self.assertEqual(report.fmt_time(3.1e-4), "310 µs")
        self.assertEqual(report.fmt_time(None), "—")

    def test_loop_workloads_show_the_loop_and_others_one_call(self):
        self.assertAlmostEqual(report.shown_time(workload(per="loop", iters=1000), ok(0.025)), 0.025)
        self.assertAlmostEqual(report.shown_time(workload(per="call", iters=10), ok(0.025)), 0.0025)


class RatioTest(unittest.TestCase):
    def test_ratio_is_peer_over_tgc(self):
        w = workload(results={"tgc": ok(0.01), "tgc-cli": ok(0.012), "numpy": ok(0.02)})
        self.assertEqual(report.reference_of(w), "tgc")
        self.assertAlmostEqual(report.ratio(w, "numpy"), 2.0)
        self.assertAlmostEqual(report.ratio(w, "tgc-cli"), 1.2)
        self.assertIsNone(report.ratio(w, "tgc"))

    def test_cli_is_the_reference_when_the_api_did_not_run(self):
        w = workload(results={"tgc": {"status": "unavailable", "reason": "x"}, "tgc-cli": ok(0.01),
                              "numpy": ok(0.005)})
        self.assertEqual(report.reference_of(w), "tgc-cli")
        self.assertAlmostEqual(report.ratio(w, "numpy"), 0.5)

    def test_no_ratio_without_tgc(self):
        w = workload(results={"numpy": ok(0.005)})
        self.assertIsNone(report.reference_of(w))
        self.assertIsNone(report.ratio(w, "numpy"))


class TablesTest(unittest.TestCase):
    def setUp(self):
        self.results = run_results([
            workload("check1", per="loop", iters=1000, results={
                "tgc": ok(0.025, compile_s=0.01), "tgc-cli": ok(0.026, 0.0), "numpy": ok(0.05, 1e-7)}),
            workload("sgemm-512", iters=2, tol=1e-4, flops_per_call=2 * 512**3, results={
                "tgc": ok(0.02), "tgc-cli": {"status": "failed", "reason": "tgc run failed (exit 2)"},
                "numpy": ok(0.01, 3e-2)}),
        ])
        for w in self.results["workloads"]:
            w["error_reference"] = "tgc"

    def test_times_table_has_medians_ratios_and_na(self):
        table = report.times_table(self.results)
        self.assertIn("| tgc (C++ API) | tgc CLI | numpy |", table)
        self.assertIn("25 ms", table)
        self.assertIn("50 ms (2.00×)", table)  # the whole loop of check1
        self.assertIn("5 ms (0.50×)", table)   # one sgemm call
        self.assertIn("n/a", table)
        self.assertNotIn("cupy", table)  # never ran: listed as not available instead

    def test_throughput_only_for_workloads_with_work(self):
        table = report.throughput_table(self.results)
        self.assertIn("GFLOP/s", table)
        self.assertNotIn("check1", table)

    def test_mismatches_are_flagged(self):
        self.assertEqual(report.mismatches(self.results), [("sgemm-512", "numpy", 3e-2, 1e-4)])
        self.assertIn("**MISMATCH 3.0e-02 > 1e-04**", report.errors_table(self.results))
        self.assertIn("| 1.0e-07 |", report.errors_table(self.results))

    def test_nan_error_is_a_mismatch(self):
        self.results["workloads"][0]["results"]["numpy"]["rel_err"] = math.nan
        self.assertIn(("check1", "numpy"), [m[:2] for m in report.mismatches(self.results)])

    def test_section_names_machine_and_unavailable_peers(self):
        section = report.markdown_section(self.results, "img/chart.png")
        key = report.section_key(self.results)
        self.assertEqual(key, "test-cpu-2-cores-device-cpu")
        self.assertTrue(section.startswith(f"<!-- compare:begin {key} -->\n### Test CPU, 2 cores — device cpu"))
        self.assertTrue(section.rstrip().endswith(f"<!-- compare:end {key} -->"))
        self.assertIn("- cupy: not available (CuPy needs a CUDA GPU)", section)
        self.assertIn("- tgc CLI, sgemm-512: not available (tgc run failed (exit 2))", section)
        self.assertIn("![peer time / tgc time", section)
        self.assertNotIn("Noisy", section)

    def test_busy_machine_is_called_noisy(self):
        self.results["load_before"] = 4.0
        self.assertIn("**Noisy:**", report.markdown_section(self.results))


class ReplaceSectionTest(unittest.TestCase):
    def section(self, key, body):
        return f"<!-- compare:begin {key} -->\n### {key}\n{body}\n<!-- compare:end {key} -->\n"

    def test_rerun_replaces_only_its_own_section(self):
        doc = ("# Performance\n\n" + self.section("a", "old a") + "\n" + self.section("b", "old b")
               + "\n" + report.INSERT_ANCHOR + "\n\n## Later\n")
        new = report.replace_section(doc, "a", self.section("a", "new a"))
        self.assertIn("new a", new)
        self.assertNotIn("old a", new)
        self.assertIn("old b", new)
        self.assertEqual(new.count("<!-- compare:begin a -->"), 1)
        self.assertTrue(new.endswith("## Later\n"))
        self.assertEqual(report.replace_section(new, "a", self.section("a", "new a")), new)

    def test_new_machine_goes_before_the_anchor(self):
        doc = "# P\n\n" + self.section("a", "x") + "\n" + report.INSERT_ANCHOR + "\n\n## Later\n"
        new = report.replace_section(doc, "c", self.section("c", "y"))
        self.assertLess(new.index("### a"), new.index("### c"))
        self.assertLess(new.index("### c"), new.index(report.INSERT_ANCHOR))

    def test_without_anchor_appends(self):
        new = report.replace_section("# P\n", "c", self.section("c", "y"))
        self.assertEqual(new, "# P\n\n" + self.section("c", "y"))


class RequirementsTest(unittest.TestCase):
    def test_options_and_pins(self):
        options, reqs = env_setup.parse_requirements(
            "# comment\n--extra-index-url https://example.invalid/whl  # cpu wheels\n\nnumpy==1.26.4\njax[cpu]==0.4.35\n")
        self.assertEqual(options, ["--extra-index-url https://example.invalid/whl"])
        self.assertEqual(reqs, ["numpy==1.26.4", "jax[cpu]==0.4.35"])
        self.assertEqual(env_setup.constraint_of("jax[cpu]==0.4.35"), "jax==0.4.35")
        self.assertEqual(env_setup.package_name("jax[cpu]==0.4.35"), "jax")
        self.assertEqual(env_setup.package_name("torch==2.5.1+cpu"), "torch")

    def test_pip_failure_names_the_error_and_the_unreachable_index(self):
        output = ("WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError('<x>: "
                  "Failed to establish a new connection: [Errno -2] Name or service not known')': /whl/cpu/torch/\n"
                  "ERROR: Could not find a version that satisfies the requirement torch==2.5.1+cpu\n"
                  "ERROR: No matching distribution found for torch==2.5.1+cpu\n")
        self.assertEqual(env_setup.pip_failure_reason(output, 1),
                         "Could not find a version that satisfies the requirement torch==2.5.1+cpu "
                         "(could not reach the index for /whl/cpu/torch/)")
        self.assertEqual(env_setup.pip_failure_reason("", 2), "exit 2")


if __name__ == "__main__":
    unittest.main()
