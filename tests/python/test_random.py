# tgc.RandomStreams from Python (Theano's RandomStreams): each call draws anew, seed() starts
# again, no_default_updates repeats, the numbers are the C++ API's (Philox's first block), and
# Theano's import paths reach it.
import numpy as np

import tgc
import tgc.tensor as T


def test_each_call_draws_anew_and_seed_starts_again():
    rng = tgc.RandomStreams(1234)
    u = rng.uniform((5,), dtype="float32")
    f = tgc.function([], u)
    a, b = f(), f()
    assert a.dtype == np.float32 and a.shape == (5,)
    assert not np.array_equal(a, b)
    rng.seed(1234)
    np.testing.assert_array_equal(f(), a)
    np.testing.assert_array_equal(f(), b)


def test_no_default_updates_repeats():
    rng = tgc.RandomStreams(3)
    z = rng.normal((4,), avg=1.0, std=0.0, dtype="float64")
    np.testing.assert_array_equal(tgc.function([], z)(), np.ones(4))
    n = rng.normal((4,), dtype="float64")
    g = tgc.function([], n, no_default_updates=True)
    np.testing.assert_array_equal(g(), g())


def test_dropout_mask_follows_the_batch():
    rng = tgc.RandomStreams(9)
    h = T.matrix("h")
    f = tgc.function([h], h * rng.binomial(h, n=1, p=0.5, dtype=h.dtype))
    out = f(np.ones((6, 7), dtype=h.dtype))
    assert out.shape == (6, 7)
    assert set(np.unique(out)) <= {0.0, 1.0}


def test_integers_choice_and_permutation():
    rng = tgc.RandomStreams(2)
    f = tgc.function([], [rng.randint((1000,), 3, 6), rng.choice((2, 3), 6, replace=False), rng.permutation(8),
                          rng.random_integers((50,), 1, 2)])
    r, c, p, ri = f()
    assert set(np.unique(r)) == {3, 4, 5}
    assert len(set(c.ravel())) == 6
    assert sorted(p) == list(range(8))
    assert set(np.unique(ri)) <= {1, 2}


def test_weighted_choice():
    rng = tgc.RandomStreams(4)
    c = tgc.function([], rng.choice((20000,), 3, p=np.array([0.5, 0.0, 0.5])))()
    assert set(np.unique(c)) == {0, 2}
    assert abs((c == 0).mean() - 0.5) < 0.02


def test_default_updates_of_any_shared_variable():
    count = tgc.shared(np.zeros(1), name="count")
    tgc.set_default_update(count, count + 1)
    assert tgc.default_update(count) is not None
    f = tgc.function([], count * 2)
    f()
    f()
    assert count.get_value()[0] == 2
    tgc.clear_default_update(count)
    assert tgc.default_update(count) is None


def test_theano_import_paths():
    from tgc.theano.sandbox.rng_mrg import MRG_RandomStreams
    from tgc.theano.tensor.shared_randomstreams import RandomStreams
    import tgc.theano as theano
    assert RandomStreams is tgc.RandomStreams and MRG_RandomStreams is tgc.RandomStreams
    srng = RandomStreams(seed=234)
    rv_u = srng.uniform((2, 2))
    f = theano.function([], rv_u)
    g = theano.function([], rv_u, no_default_updates=True)
    assert not np.array_equal(f(), f())
    np.testing.assert_array_equal(g(), g())
