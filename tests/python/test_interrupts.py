# Ctrl-C from Python (python/src/interrupts.cpp, docs/python.md "Ctrl-C"): a long call stops
# between two nodes with KeyboardInterrupt and changes no shared variable; the module's
# handler stands in front of Python's, which still raises the KeyboardInterrupt.
import os
import signal
import threading

import numpy as np
import pytest

import tgc
from tgc import _tgc

T = tgc.tensor


def long_step():
    """About a second of work in 1000 nodes: products of 300x300 matrices, one after the
    other; the update is the last product's sum, so it is written at the very end."""
    a = T.dmatrix("a")
    y = a
    for _ in range(1000):
        y = T.dot(y, a) * (1.0 / 300)
    done = tgc.shared(np.float64(0), name="done")
    return done, tgc.function([a], updates=[(done, y.sum())])


def after(seconds, action):
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


def test_ctrl_c_stops_a_long_call_and_changes_nothing():
    done, f = long_step()
    timer = after(0.05, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        f(np.ones((300, 300)))
    timer.join()
    assert done.get_value() == 0
    # Python's own handler is still behind the module's: a Ctrl-C between calls is the
    # usual KeyboardInterrupt, and the next function compiles and runs.
    x = T.dvector("x")
    np.testing.assert_array_equal(tgc.function([x], x + 1)(np.zeros(2)), [1, 1])


def test_a_request_without_a_signal_is_a_keyboard_interrupt_too():
    # Where no SIGINT came (another thread asked), the stopped call still reads as Ctrl-C.
    done, f = long_step()
    timer = after(0.05, _tgc._request_interrupt)
    with pytest.raises(KeyboardInterrupt):
        f(np.ones((300, 300)))
    timer.join()
    assert done.get_value() == 0

