# pytest setup for the Python package's tests: every test starts from floatX=float32 (the
# default), whatever an earlier test set.
import pytest

import tgc


@pytest.fixture(autouse=True)
def default_float_x():
    saved = tgc.config.floatX
    yield
    tgc.config.floatX = saved
