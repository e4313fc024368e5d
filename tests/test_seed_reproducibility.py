"""``ms.set_seed`` as MindSpore 2.10 defines it: one seed for initializers, Dropout, random ops, the
dataset pipeline's shuffles, Python's ``random`` and NumPy's global generator.

Facts from MindSpore 2.10 (CPU), used as the oracle:

    mindspore.get_seed()                    -> None before any set_seed
    mindspore.set_seed(5)
    mindspore.get_seed(), mindspore.dataset.config.get_seed()   -> 5, 5
    random.random()                         -> 0.6229016948897019   (== random.seed(5); random.random())
    np.random.rand()                        -> 0.22199317108973948  (== np.random.seed(5); np.random.rand())
    two NumpySlicesDataset(shuffle=True) built after set_seed(5)  -> the same order
    [3, 8, 5, 2, 4, 6, 7, 1, 9, 0] each time; epoch 2 of one iterator -> another order;
    set_seed(5) again -> that order again; set_seed(6) -> another order
    without set_seed: two shuffled datasets -> two different orders
    set_seed(-1)    -> ValueError;  set_seed(2**32) -> ValueError "Seed must be between 0 and 2**32 - 1"
    set_seed(2**32 - 1) -> accepted;  set_seed(1.5) / set_seed(True) -> TypeError
    mindspore.dataset.config.set_seed(7) leaves mindspore.get_seed() at 5 (the global seed is not changed)

The shuffled orders themselves are MindSpore's generator's and are not reproduced: only their
behaviour under a seed is.
"""

import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mscustom as ms
import mscustom.dataset as ds
from mscustom import nn, ops


def order(n=10, epochs=1):
    data = ds.NumpySlicesDataset({"x": np.arange(n)}, shuffle=True)
    it = data.create_dict_iterator(output_numpy=True, num_epochs=epochs)
    return [[int(r["x"]) for r in it] for _ in range(epochs)]


def test_set_seed_seeds_the_dataset_pipeline_python_and_numpy():
    ms.set_seed(5)
    assert ms.get_seed() == 5 and ds.config.get_seed() == 5
    assert random.random() == 0.6229016948897019                  # MindSpore's values: plain reseeds
    assert np.random.rand() == 0.22199317108973948
    ds.config.set_seed(7)
    assert ms.get_seed() == 5 and ds.config.get_seed() == 7     # as MindSpore: the global seed stays


def test_shuffle_order_follows_set_seed():
    ms.set_seed(5)
    first = order()[0]
    assert order()[0] == first                  # a second dataset built after set_seed: the same order
    assert sorted(first) == list(range(10)) and first != list(range(10))
    epoch1, epoch2 = order(epochs=2)
    assert epoch1 == first and epoch2 != first  # each epoch reshuffles
    ms.set_seed(5)
    assert order()[0] == first                  # set_seed again restarts the sequence
    ms.set_seed(6)
    assert order()[0] != first                  # another seed, another order


def test_ops_initializers_and_dropout_restart_with_set_seed():
    def draw():
        dense = nn.Dense(8, 4)
        drop = nn.Dropout(p=0.5)
        drop.set_train(True)
        return (dense.weight.asnumpy().copy(), dense.bias.asnumpy().copy(),
                drop(ms.Tensor(np.ones((4, 8), np.float32))).asnumpy(), ops.standard_normal((5,)).asnumpy())
    ms.set_seed(3)
    a = draw()
    ms.set_seed(3)
    b = draw()
    ms.set_seed(4)
    c = draw()
    for x, y in zip(a, b):
        assert x.tobytes() == y.tobytes()
    assert a[0].tobytes() != c[0].tobytes() and a[3].tobytes() != c[3].tobytes()


def test_set_seed_argument_checks_like_mindspore():
    ms.set_seed(2 ** 32 - 1)
    assert ms.get_seed() == 2 ** 32 - 1 and ds.config.get_seed() == 2 ** 32 - 1
    with pytest.raises(ValueError, match=r"set_seed: seed must be between 0 and 2\*\*32 - 1, got 4294967296"):
        ms.set_seed(2 ** 32)
    assert ms.get_seed() == 2 ** 32 - 1                          # a refused seed changes nothing
    with pytest.raises(ValueError, match="set_seed: seed must be a non-negative int, got -1"):
        ms.set_seed(-1)
    with pytest.raises(TypeError, match="set_seed: seed must be an int, got float 1.5"):
        ms.set_seed(1.5)


_TRAIN_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import mscustom as ms
    import mscustom.dataset as ds
    from mscustom import nn

    ms.set_seed(int(sys.argv[1]))
    x = np.linspace(-1, 1, 96, dtype=np.float32).reshape(24, 4)
    y = (np.arange(24) % 3).astype(np.int32)
    data = ds.NumpySlicesDataset({"x": x, "y": y, "i": np.arange(24)}, shuffle=True).batch(6)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dropout(p=0.3), nn.Dense(16, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train(True)
    order, batches = [], data.create_tuple_iterator(num_epochs=2)
    for epoch in range(2):
        for xb, yb, ib in batches:
            order.extend(int(v) for v in ib.asnumpy())
            step(xb, yb)
    np.savez(sys.argv[2], order=np.array(order), **{p.name: p.asnumpy() for p in net.trainable_params()})
""")


def _train_in_subprocesses(tmp_path, seeds):
    """Run the training script once per seed, the processes side by side; the saved arrays of each run."""
    script = tmp_path / "train.py"
    script.write_text(_TRAIN_SCRIPT)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    runs = []
    for k, seed in enumerate(seeds):
        out = tmp_path / f"run{k}.npz"
        runs.append((out, subprocess.Popen([sys.executable, str(script), str(seed), str(out)], env=env,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    results = []
    for out, proc in runs:
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        assert proc.returncode == 0, err[-2000:]
        with np.load(out) as f:
            results.append({k: f[k] for k in f.files})
    return results


def test_two_processes_with_one_seed_train_bit_for_bit_alike(tmp_path):
    a, b = _train_in_subprocesses(tmp_path, [17, 17])
    assert sorted(a) == sorted(b) and len(a) == 5                # the order and four parameters
    for name in a:
        assert a[name].dtype == b[name].dtype and a[name].tobytes() == b[name].tobytes(), name
    first, second = a["order"][:24].tolist(), a["order"][24:].tolist()
    assert sorted(first) == list(range(24)) and first != list(range(24)) and second != first  # shuffled per epoch
