# tgc.function and tgc.shared: calls, single and list outputs, updates, shared values,
# argument checks, the profile, config, and the GIL released while a call runs.
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tgc
import tgc.tensor as T


def test_one_output_gives_an_array_a_list_gives_a_list():
    x = T.vector("x")
    a = np.arange(3, dtype=np.float32)
    assert isinstance(tgc.function([x], x + 1)(a), np.ndarray)
    out = tgc.function([x], [x + 1, x * 2])(a)
    assert isinstance(out, list) and len(out) == 2


def test_shared_values_and_updates():
    w = tgc.shared(np.zeros(3, np.float32), name="w")
    assert w.name == "w" and w.dtype == "float32"
    step = tgc.function([], w.sum(), updates=[(w, w + 1)])
    assert step() == 0
    assert step() == 3
    np.testing.assert_array_equal(w.get_value(), [2, 2, 2])
    w.set_value(np.full(3, 10, np.float32))
    assert step() == 30
    dict_step = tgc.function([], [], updates={w: w * 0})
    dict_step()
    np.testing.assert_array_equal(w.get_value(), [0, 0, 0])


def test_get_value_is_a_copy_unless_borrowed():
    w = tgc.shared(np.arange(3, dtype=np.float64))
    v = w.get_value()
    v[0] = 7
    assert w.get_value()[0] == 0
    assert np.shares_memory(w.get_value(borrow=True), w.get_value(borrow=True))


def test_shared_borrow_uses_the_array():
    a = np.arange(3, dtype=np.float64)
    w = tgc.shared(a, borrow=True)
    assert np.shares_memory(w.get_value(borrow=True), a)
    c = tgc.shared(a)
    assert not np.shares_memory(c.get_value(borrow=True), a)


def test_python_numbers_are_converted_to_the_input_dtype():
    s = T.fscalar("s")
    f = tgc.function([s], s * 2)
    r = f(1.5)
    assert r.dtype == np.float32 and r == 3.0


def test_wrong_argument_dtype_names_the_input():
    x = T.fvector("x")
    f = tgc.function([x], x + 1, name="inc")
    with pytest.raises(tgc.InputError, match="x") as e:
        f(np.zeros(3, np.float64))
    assert isinstance(e.value, TypeError)
    with pytest.raises(tgc.InputError, match="takes 1 argument"):
        f()


def test_call_time_errors_leave_shared_values_unchanged():
    i = T.lscalar("i")
    n = tgc.shared(np.int64(5))
    f = tgc.function([i], n // i, updates=[(n, n + 1)])
    with pytest.raises(tgc.ValueError):
        f(0)
    assert n.get_value() == 5


def test_givens_trains_on_the_dataset_row_an_index_picks():
    data = tgc.shared(np.arange(6, dtype=np.float32).reshape(3, 2), name="data")
    w = tgc.shared(np.array([1, 0], np.float32), name="w")
    i = T.lscalar("i")
    x = T.vector("x")  # supplied by givens, never an argument
    f = tgc.function([i], (x * w).sum(), updates=[(w, w - 0.5 * x)], givens={x: data[i]})
    assert f(1) == pytest.approx(2.0)  # row 1 is (2, 3)
    np.testing.assert_allclose(w.get_value(), [0.0, -1.5])
    assert f(2) == pytest.approx(4 * 0.0 + 5 * -1.5)


def test_givens_accepts_pairs_and_constants_and_names_bad_replacements():
    x = T.vector("x")
    f = tgc.function([], x * 2, givens=[(x, np.ones(2, np.float32))])
    np.testing.assert_allclose(f(), [2, 2])
    with pytest.raises(tgc.TypeError, match="givens replaces 'x'"):
        tgc.function([], x * 2, givens={x: T.matrix("m")})
    with pytest.raises(tgc.InputError, match="is an input of the function"):
        tgc.function([x], x * 2, givens={x: x + 1})
    with pytest.raises(tgc.TypeError, match="givens must map symbolic variables"):
        tgc.function([], x * 2, givens={"x": x})


def test_pydotprint_writes_dot_and_renders_through_graphviz(tmp_path):
    import shutil

    x = T.vector("x")
    f = tgc.function([x], T.exp(x).sum(), name="e")
    path = tgc.printing.pydotprint(f, outfile=tmp_path / "g.dot", format="dot")
    assert open(path).read().startswith('digraph "e: optimized graph" {')
    assert f.graph_dot("raw").startswith('digraph "e: raw graph" {')
    assert "out0" in f.graph_text()
    with pytest.raises(tgc.ValueError, match="stage"):
        f.graph_text("final")
    if shutil.which("dot"):
        png = tgc.printing.pydotprint(f, outfile=tmp_path / "g.png")
        assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    else:
        with pytest.raises(tgc.IOError, match="Graphviz"):
            tgc.printing.pydotprint(f, outfile=tmp_path / "g.png")


def test_toposort_and_debugprint():
    x = T.vector("x")
    f = tgc.function([x], T.exp(x), name="e")
    assert any("exp" in n for n in f.toposort())
    text = tgc.printing.debugprint(f, file="str")
    assert text.startswith("0 ")


def test_profile_report():
    x = T.vector("x")
    f = tgc.function([x], T.exp(x), name="profiled", profile=True)
    f(np.zeros(10, np.float32))
    assert "profiled" in f.profile_report()
    assert tgc.function([x], x, name="plain").profile_report() == ""


def test_a_profiled_function_prints_its_report_when_it_is_freed():
    code = ("import numpy as np, tgc, tgc.tensor as T; x = T.vector('x'); "
            "f = tgc.function([x], T.exp(x), name='prof', profile=True); f(np.zeros(3, np.float32))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0
    assert "Function profiling" in done.stderr and "Message: prof" in done.stderr


def test_config_reads_and_checks():
    assert tgc.config.floatX == "float32"
    assert tgc.config.allow_gc is True
    assert "floatX" in dir(tgc.config)
    with pytest.raises(tgc.ConfigError):
        tgc.config.floatX = "float8"
    with pytest.raises(AttributeError):
        tgc.config.no_such_key


def test_devices_lists_the_cpu():
    assert tgc.devices()[0].startswith("cpu")


def test_the_gil_is_released_while_a_call_runs():
    # One long call on another thread: with the GIL released, this thread keeps running all
    # through it; holding the GIL would stop it for the whole call (one gap as long as the
    # call between two of its steps).
    x = T.dvector("x")
    f = tgc.function([x], T.exp(T.sin(x) + T.cos(x)).sum())
    n = 1_000_000
    a = np.random.RandomState(0).rand(n)
    while True:
        start = time.perf_counter()
        f(a)
        one_call = time.perf_counter() - start
        if one_call > 0.2 or n > 64_000_000:
            break
        n *= 2
        a = np.random.RandomState(0).rand(n)
    done = threading.Event()

    def work():
        f(a)
        done.set()

    thread = threading.Thread(target=work)
    last = time.perf_counter()
    thread.start()
    longest_gap = 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest_gap = max(longest_gap, now - last)
        last = now
    thread.join()
    assert longest_gap < 0.5 * one_call


def test_a_borrowed_shared_array_is_never_written():
    a = np.zeros(1000)
    a.setflags(write=False)  # a write would crash: the memory is read-only
    w = tgc.shared(a, borrow=True)
    assert np.shares_memory(w.get_value(borrow=True), a)
    step = tgc.function([], [], updates=[(w, w + 1)])
    step()
    step()
    np.testing.assert_array_equal(w.get_value(), np.full(1000, 2.0))
    assert not a.any()


def test_keyword_arguments_by_input_name():
    x = T.fvector("x")
    y = T.fvector("y")
    f = tgc.function([x, y], x - y, name="diff")
    a = np.ones(2, np.float32)
    b = np.full(2, 3, np.float32)
    np.testing.assert_array_equal(f(a, y=b), [-2, -2])
    np.testing.assert_array_equal(f(y=b, x=a), [-2, -2])
    with pytest.raises(tgc.InputError, match="no input named 'z'") as e:
        f(a, z=b)
    assert "x, y" in e.value.hint
    with pytest.raises(tgc.InputError, match="twice"):
        f(a, x=a)
    with pytest.raises(tgc.InputError, match="no value for input 2 \\('y'\\)"):
        f(x=a)
