# tgc's warnings as Python warnings (tgc.TgcWarning): given from the call that made them, so a
# warnings filter applies and the warning points at the caller's line; other messages still go
# to stderr.
import warnings

import numpy as np
import pytest

import tgc
import tgc.tensor as T


def test_a_compile_warning_is_a_python_warning_at_the_callers_line():
    x = T.vector("x")
    y = T.cast(x, "float64") * 2
    with pytest.warns(tgc.TgcWarning, match="float64") as seen:
        f = tgc.function([x], y, warn_float64=True)
    assert seen[0].filename == __file__
    np.testing.assert_array_equal(f(np.ones(2, np.float32)), [2.0, 2.0])


def test_warnings_filters_apply():
    x = T.vector("x")
    with warnings.catch_warnings():
        warnings.simplefilter("error", tgc.TgcWarning)
        with pytest.raises(tgc.TgcWarning):
            tgc.function([x], T.cast(x, "float64") + 1, warn_float64=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", tgc.TgcWarning)
        tgc.function([x], T.cast(x, "float64") + 3, warn_float64=True)
    assert caught == []


def test_a_function_without_warnings_gives_none():
    x = T.vector("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tgc.function([x], x * 2)
    assert [w for w in caught if issubclass(w.category, tgc.TgcWarning)] == []
