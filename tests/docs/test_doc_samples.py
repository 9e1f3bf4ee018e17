"""The doc test's own rules (doc_samples.py): elision, timed numbers, markers and coverage."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import doc_samples as d  # noqa: E402


def test_lines_match_literally_but_for_trailing_spaces():
    assert d.matches(["a b", "c"], ["a b  ", "c"])
    assert not d.matches(["a b", "c"], ["a b", "d"])
    assert not d.matches(["a"], ["a", "b"])


def test_an_elision_line_stands_for_any_number_of_lines():
    assert d.matches(["first", "<...>", "last"], ["first", "last"])
    assert d.matches(["first", "<...>", "last"], ["first", "x", "y", "last"])
    assert not d.matches(["first", "<...>", "last"], ["first", "x", "y"])


def test_an_elision_inside_a_line_stands_for_any_text():
    assert d.matches(["pid <...> exited"], ["pid 4242 exited"])
    assert not d.matches(["pid <...> exited"], ["pid 4242 stopped"])


def test_numbers_before_time_units_match_any_number():
    assert d.matches(["Looping 1000 times took 2.469086 seconds (0.002469 seconds per call)"],
                     ["Looping 1000 times took 0.000123 seconds (1.23e-07 seconds per call)"])
    assert d.matches(["compile 'train': 56.7 ms (setup 0.1 ms)"], ["compile 'train': 3.0 ms (setup 12 ms)"])
    assert not d.matches(["Looping 1000 times took 2.4 seconds"], ["Looping 999 times took 2.4 seconds"])
    assert not d.matches(["Result is [1.5 2.5]"], ["Result is [1.5 2.6]"])


def test_markers_and_coverage(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- doc-test -->\n```\n$ echo hi\nhi\n```\n\n```sh\nls\n```\n\n"
                    "<!-- doc-test: skip needs a GPU -->\n```sh\nnvidia-smi\n```\n\n```cpp\nint x;\n```\n")
    blocks = d.read_blocks(page)
    assert [b.marker for b in blocks] == ["run", None, "skip", None]
    assert blocks[0].is_console() and blocks[2].marker_arg == "needs a GPU"
    assert [b.needs_marker() for b in blocks] == [True, True, True, False]  # a cpp fragment is not a sample
