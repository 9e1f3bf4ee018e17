# tgc.scan from Python: Theano's calling conventions (taps dicts, None in outputs_info, the
# (outputs, updates) pair, until), gradients through the loop, and the scan tutorial's
# programs written as Theano wrote them.
import numpy as np
import pytest

import tgc
import tgc.theano as theano
import tgc.theano.tensor as T


def test_cumulative_sum_and_polynomial_as_in_theanos_tutorial():
    v = T.dvector("v")
    acc, updates = theano.scan(lambda x, total: total + x, sequences=[v], outputs_info=[T.zeros_like(v[0])])
    f = theano.function([v], acc)
    np.testing.assert_allclose(f(np.arange(1.0, 6.0)), [1, 3, 6, 10, 15])

    coefficients = T.dvector("coefficients")
    x = T.dscalar("x")
    components, updates = theano.scan(fn=lambda c, power, free: c * (free ** power), outputs_info=None,
                                      sequences=[coefficients, T.arange(10000)], non_sequences=x)
    poly = theano.function([coefficients, x], components.sum())
    assert poly(np.array([1.0, 0.0, 2.0]), 3.0) == pytest.approx(19.0)


def test_taps_until_and_updates():
    v = T.dvector("v")
    out, _ = tgc.scan(lambda a, b, prev2, prev1: a + b + prev2 + prev1,
                      sequences=[dict(input=v, taps=[0, 1])],
                      outputs_info=[dict(initial=T.zeros_like(v[:2]), taps=[-2, -1])])
    f = tgc.function([v], out)
    np.testing.assert_allclose(f(np.array([1.0, 2.0, 3.0])), [3, 8])

    x0 = T.dscalar("x0")
    doubling, _ = tgc.scan(lambda h: (h * 2, tgc.until(h * 2 > 20)), outputs_info=[x0], n_steps=100)
    np.testing.assert_allclose(tgc.function([x0], doubling)(1.0), [2, 4, 8, 16, 32])

    count = tgc.shared(np.float64(0.0), name="count")
    seen, updates = tgc.scan(lambda: (count * 10, {count: count + 1}), n_steps=3)
    g = tgc.function([], seen, updates=updates)
    np.testing.assert_allclose(g(), [0, 10, 20])
    assert count.get_value() == 3.0


def test_gradient_through_an_rnn_matches_finite_differences():
    rng = np.random.RandomState(0)
    x = T.dtensor3("x")
    w = tgc.shared(rng.uniform(-0.5, 0.5, (3, 4)), name="w")
    h0 = T.dmatrix("h0")
    h, _ = tgc.scan(lambda x_t, h_prev: T.tanh(T.dot(x_t, w) + h_prev), sequences=[x], outputs_info=[h0])
    cost = (h ** 2).sum()
    gw = tgc.grad(cost, w)
    f = tgc.function([x, h0], [cost, gw])
    xv, hv = rng.randn(5, 2, 3), rng.randn(2, 4)
    c, g = f(xv, hv)
    eps = 1e-6
    wv = w.get_value()
    numeric = np.zeros_like(wv)
    for i in range(3):
        for j in range(4):
            for sign in (1, -1):
                wp = wv.copy()
                wp[i, j] += sign * eps
                w.set_value(wp)
                numeric[i, j] += sign * f(xv, hv)[0] / (2 * eps)
    w.set_value(wv)
    np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7)


def test_errors_are_tgc_errors_with_hints():
    v = T.fvector("v")
    with pytest.raises(tgc.TypeError, match="astype"):
        tgc.scan(lambda x, acc: (acc + x).astype("float64"), sequences=[v], outputs_info=[T.fscalar("h0")])
    with pytest.raises(tgc.InputError, match="give n_steps"):
        tgc.scan(lambda h: h, outputs_info=[T.dscalar("h0")])
