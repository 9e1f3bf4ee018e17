# The tutorial's programs (examples/python: check1.py, check2.py and the logistic regression,
# their imports changed to tgc.theano) print what the tutorial prints on the CPU.
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tgc
import tgc.theano as theano
import tgc.theano.tensor as T

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")
# check1's result as the tutorial prints it (floatX=float32, device=cpu).
TUTORIAL_FIRST = [1.23178029, 1.61879337, 1.52278066]
TUTORIAL_LAST = [2.20771813, 2.29967761, 1.62323284]


def run_example(name, theano_flags=None):
    env = dict(os.environ)
    if theano_flags:
        env["THEANO_FLAGS"] = theano_flags
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def printed_values(line):
    return [float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", line.split("[", 1)[1])]


def within_an_ulp(printed, tutorial):
    got = np.array(printed, np.float32)
    want = np.array(tutorial, np.float32)
    return np.all(np.abs(got - want) <= np.spacing(want))


def check_result_line(line):
    values = printed_values(line)
    assert "..." in line
    assert within_an_ulp(values[:3], TUTORIAL_FIRST), line
    assert within_an_ulp(values[-3:], TUTORIAL_LAST), line


def test_check1_prints_the_tutorials_result():
    out = run_example("check1.py").splitlines()
    assert out[0].startswith("[Elemwise{exp") or out[0].startswith("[Composite")
    assert re.fullmatch(r"Looping 1000 times took [0-9.]+ seconds", out[1])
    check_result_line(out[2])
    assert out[3] == "Used the cpu"


def test_check2_prints_the_tutorials_result_on_the_cpu():
    out = run_example("check2.py").splitlines()
    check_result_line(out[2])
    assert out[3].startswith("Numpy result is [")
    check_result_line(out[3])
    assert out[4] == "Used the cpu"


OPENCL = any(line.startswith("opencl") and " available" in line for line in tgc.devices())


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device in this build or machine")
def test_check1_and_check2_on_an_opencl_device_say_they_used_the_gpu():
    # A device that is not the host (PoCL's CPU device on a machine without a GPU): the
    # device's nodes are Theano's Gpu ops, check2's result stays there as a DeviceArray.
    out = run_example("check1.py", "device=opencl").splitlines()
    assert out[0].startswith("[GpuComposite{exp")
    check_result_line(out[2])
    assert out[3] == "Used the gpu"
    out = run_example("check2.py", "device=opencl").splitlines()
    assert out[2] == "Result is <tgc.DeviceArray float32 (230400,) on opencl:0:0>"
    check_result_line(out[3])
    assert out[4] == "Used the gpu"


def test_logistic_regression_learns_its_data():
    out = run_example("logreg.py")
    lines = out.splitlines()
    assert lines[0] == "Used the cpu"
    assert "target values for D" in lines
    assert "prediction on D" in lines
    # The program prints both vectors; every prediction must match its target.
    text = out.split("target values for D\n", 1)[1]
    target, prediction = text.split("prediction on D\n")
    target_values = [float(v) for v in re.findall(r"[01]\.", target)]
    predicted = [v == "True" for v in re.findall(r"True|False", prediction)]
    assert len(target_values) == len(predicted) == 400  # NumPy prints all 400, unsummarised
    assert [t == 1.0 for t in target_values] == predicted  # training accuracy 1.0


def test_tag_test_value_is_kept():
    x = T.matrix("x")
    x.tag.test_value = np.zeros((2, 2), np.float32)
    assert x.tag.test_value.shape == (2, 2)


def test_theano_function_keywords():
    x = T.vector("x")
    f = theano.function([x], T.exp(x), mode="FAST_COMPILE", allow_input_downcast=True)
    np.testing.assert_allclose(f(np.zeros(2)), [1, 1])
    assert all(isinstance(n.op, T.Elemwise) for n in f.maker.fgraph.toposort())


def import_with_theano_flags(flags, code):
    env = dict(os.environ, THEANO_FLAGS=flags)
    return subprocess.run([sys.executable, "-c", "import tgc.theano as theano; " + code], env=env,
                          capture_output=True, text=True)


def test_theano_flags_as_the_tutorial_sets_them():
    done = import_with_theano_flags("mode=FAST_RUN,device=gpu1,floatX=float64",
                                    "print(theano.config.device, theano.config.floatX, theano.config.optimizer)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["cuda:1", "float64", "fast_run"]


def test_theano_flags_that_tgc_does_not_copy_fail_clearly():
    done = import_with_theano_flags("mode=DebugMode", "")
    assert done.returncode != 0 and "mode 'DebugMode' is not supported" in done.stderr
    done = import_with_theano_flags("floatX=float8", "")
    assert done.returncode != 0 and "tgc.ConfigError" in done.stderr


def test_lazy_ifelse_from_theano_ifelse():
    from tgc.theano.ifelse import ifelse
    a, b = T.dscalar("a"), T.dscalar("b")
    x, y = T.dmatrix("x"), T.dmatrix("y")
    z_lazy = ifelse(T.lt(a, b), T.mean(x), T.mean(y))
    f = theano.function([a, b, x, y], z_lazy)
    ones, twos = np.ones((3, 2)), np.full((3, 2), 2.0)
    assert f(1.0, 2.0, ones, twos) == pytest.approx(1.0)
    assert f(2.0, 1.0, ones, twos) == pytest.approx(2.0)
    first, second = ifelse(T.lt(a, b), [T.mean(x), T.sum(x)], [T.mean(y), T.sum(y)])
    g = theano.function([a, b, x, y], [first, second])
    assert [float(v) for v in g(2.0, 1.0, ones, twos)] == pytest.approx([2.0, 12.0])
    assert tgc.ifelse is ifelse
