# The package as a whole: every public name documented, config read from TGC_FLAGS at start.
import os
import subprocess
import sys

import pytest

import tgc
import tgc.printing
import tgc.tensor
import tgc.theano
import tgc.theano.tensor

MODULES = [tgc, tgc.tensor, tgc.printing, tgc.theano, tgc.theano.tensor]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_public_name_has_a_docstring(module):
    undocumented = []
    for name in dir(module):
        value = getattr(module, name)
        if name.startswith("_") or isinstance(value, (str, int, float, type(None))) or value is tgc.config:
            continue
        if isinstance(value, type(tgc)):  # submodules are checked on their own
            continue
        if not (getattr(value, "__doc__", None) or "").strip():
            undocumented.append(name)
    assert undocumented == []


def test_public_methods_of_the_classes_have_docstrings():
    for cls in (tgc.tensor.Var, tgc.tensor.SharedVariable, tgc.Function, tgc.DeviceArray):
        missing = [n for n, v in vars(cls).items() if not n.startswith("_") and not (v.__doc__ or "").strip()]
        assert missing == [], cls.__name__


def test_config_is_read_from_tgc_flags():
    env = dict(os.environ, TGC_FLAGS="floatX=float64,allow_gc=false")
    out = subprocess.run([sys.executable, "-c", "import tgc, tgc.tensor as T; "
                          "print(tgc.config.floatX, tgc.config.allow_gc, T.vector().dtype)"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["float64", "False", "float64"]


def test_a_bad_tgc_flags_value_is_a_config_error_when_config_is_first_read():
    env = dict(os.environ, TGC_FLAGS="floatX=float8")
    done = subprocess.run([sys.executable, "-c", "import tgc; tgc.config.floatX"], env=env,
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "tgc.ConfigError" in done.stderr and "floatX" in done.stderr
