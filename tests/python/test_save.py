# tgc.save / tgc.load_function / checkpoints from Python (docs/save.md): a function saved and
# loaded in a new Python process computes the same bits; shared variables of a loaded pair are
# shared; errors arrive as tgc's exceptions.
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tgc
import tgc.tensor as T


def logreg():
    rng = np.random.default_rng(3)
    x, y = T.matrix("x"), T.vector("y")
    w = tgc.shared(rng.standard_normal(5).astype(np.float32), name="w")
    b = tgc.shared(np.float32(0.0), name="b")
    p = 1 / (1 + T.exp(-T.dot(x, w) - b))
    cost = T.mean(-y * T.log(p) - (1 - y) * T.log(1 - p))
    gw, gb = tgc.grad(cost, [w, b])
    train = tgc.function([x, y], cost, updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)], name="train")
    predict = tgc.function([x], p > 0.5, name="predict")
    data = rng.standard_normal((20, 5)).astype(np.float32), (rng.random(20) > 0.5).astype(np.float32)
    return train, predict, w, data


def test_a_loaded_function_in_a_new_process_gives_the_same_bits(tmp_path):
    train, predict, w, (dx, dy) = logreg()
    path = tmp_path / "model.tgf"
    tgc.save([train, predict], path)
    assert tgc.saved_function_names(path) == ["train", "predict"]
    np.save(tmp_path / "x.npy", dx)
    np.save(tmp_path / "y.npy", dy)
    script = textwrap.dedent(f"""
        import numpy as np, tgc
        train, predict = tgc.load_functions({str(path)!r})
        x, y = np.load({str(tmp_path / 'x.npy')!r}), np.load({str(tmp_path / 'y.npy')!r})
        costs = [train(x, y) for _ in range(5)]
        np.save({str(tmp_path / 'costs.npy')!r}, np.array(costs))
        np.save({str(tmp_path / 'w.npy')!r}, [v for v in train.shared_variables if v.name == "w"][0].get_value())
    """)
    subprocess.run([sys.executable, "-c", script], check=True)
    costs = np.array([train(dx, dy) for _ in range(5)])
    np.testing.assert_array_equal(np.load(tmp_path / "costs.npy"), costs)
    np.testing.assert_array_equal(np.load(tmp_path / "w.npy"), w.get_value())


def test_one_output_returns_one_array_and_binding_shared_variables(tmp_path):
    _, predict, w, (dx, _) = logreg()
    tgc.save(predict, tmp_path / "p.tgf")
    mine = tgc.shared(np.ones(5, np.float32), name="w")
    loaded = tgc.load_function(tmp_path / "p.tgf", shared=[mine])
    assert isinstance(loaded(dx), np.ndarray)
    w.set_value(np.ones(5, np.float32))
    np.testing.assert_array_equal(loaded(dx), predict(dx))


def test_checkpoints_and_errors(tmp_path):
    train, _, w, _ = logreg()
    tgc.save_shared(train.shared_variables, tmp_path / "ckpt.tgc")
    w2 = tgc.shared(np.zeros(5, np.float32), name="w")
    tgc.load_shared([w2], tmp_path / "ckpt.tgc")
    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    with pytest.raises(tgc.IOError, match="has no value for shared variable 'v'"):
        tgc.load_shared([tgc.shared(np.zeros(2), name="v")], tmp_path / "ckpt.tgc")
    with pytest.raises(tgc.IOError, match="is not a saved function"):
        tgc.load_function(tmp_path / "ckpt.tgc")
    with pytest.raises(tgc.IOError, match="missing.tgf"):
        tgc.load_function(tmp_path / "missing.tgf")
    with pytest.raises(tgc.TypeError):
        tgc.save([1, 2], tmp_path / "x.tgf")


def test_a_function_written_as_a_tg_program_runs_from_the_cli(tmp_path):
    train, _, _, (dx, dy) = logreg()
    tgc.save_tg(train, tmp_path / "train.tg")
    text = (tmp_path / "train.tg").read_text()
    assert "train = function([x, y]" in text and "op('SumToLike'" in text
    assert (tmp_path / "train_w.npy").exists()
