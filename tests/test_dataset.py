"""mscustom.dataset: sources, operations, iterators and the background loader, against NumPy."""

import gc
import threading
import time

import numpy as np
import pytest

import mscustom as ms
import mscustom.dataset as ds
from mscustom.dataset import transforms, vision


def rows(data, **kw):
    return [tuple(a.tolist() for a in r) for r in data.create_tuple_iterator(output_numpy=True, num_epochs=1, **kw)]


def test_generator_function_iterable_and_random_access_sources():
    def gen():
        for i in range(5):
            yield np.array([i, i + 1], np.float32), np.array(i % 2)
    d = ds.GeneratorDataset(gen, column_names=["x", "y"])
    assert d.get_col_names() == ["x", "y"] and d.get_dataset_size() == 5 and d.get_batch_size() == 1
    assert rows(d) == [([i, i + 1], i % 2) for i in range(5)]

    class Source:                                   # random access: shuffled by default
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return np.array(i), np.array(-i)
    shuffled = rows(ds.GeneratorDataset(Source(), ["a", "b"]))
    assert sorted(shuffled) == [(i, -i) for i in range(6)]
    assert rows(ds.GeneratorDataset(Source(), ["a", "b"], shuffle=False)) == [(i, -i) for i in range(6)]
    assert rows(ds.GeneratorDataset(range(4), "c", shuffle=False)) == [(0,), (1,), (2,), (3,)]   # one column
    one_shot = ds.GeneratorDataset(iter([1, 2]), "c", shuffle=False)
    assert rows(one_shot) == [(1,), (2,)]
    with pytest.raises(ValueError, match="the source is an iterator that the previous epoch used up"):
        rows(one_shot)


def test_sharding_splits_rows_between_shards_and_num_samples():
    src = list(range(10))
    shards = [rows(ds.GeneratorDataset(src, "v", shuffle=False, num_shards=3, shard_id=k)) for k in range(3)]
    assert [len(s) for s in shards] == [4, 4, 4]                     # ceil(10 / 3), wrapping around
    assert sorted({v for s in shards for (v,) in s}) == src
    ds.config.set_seed(5)
    shuffled = [rows(ds.GeneratorDataset(src, "v", shuffle=True, num_shards=2, shard_id=k)) for k in range(2)]
    assert sorted(v for s in shuffled for (v,) in s) == src          # disjoint shards of one permutation
    assert ds.GeneratorDataset(src, "v", num_shards=3, shard_id=0).get_dataset_size() == 4
    assert rows(ds.GeneratorDataset(src, "v", shuffle=False, num_samples=3)) == [(0,), (1,), (2,)]


def test_numpy_slices_dataset_columns():
    x, y = np.arange(12.0).reshape(6, 2), np.arange(6)
    assert ds.NumpySlicesDataset({"x": x, "y": y}).get_col_names() == ["x", "y"]
    assert ds.NumpySlicesDataset((x, y)).get_col_names() == ["column_0", "column_1"]
    d = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    assert d.get_col_names() == ["column_0"] and rows(d) == [([1, 2],), ([3, 4],)]
    got = rows(ds.NumpySlicesDataset((x, y), column_names=["a", "b"], shuffle=False))
    assert got == [(x[i].tolist(), int(y[i])) for i in range(6)]
    with pytest.raises(ValueError, match="NumpySlicesDataset: the columns have different lengths"):
        ds.NumpySlicesDataset((x, y[:3]))


def test_batch_shuffle_map_repeat_take_skip():
    x = np.arange(10, dtype=np.float32)
    base = ds.NumpySlicesDataset({"x": x, "i": np.arange(10)}, shuffle=False)
    b = base.batch(4)
    assert b.get_dataset_size() == 3 and b.get_batch_size() == 4
    got = rows(b)
    assert got[0] == ([0, 1, 2, 3], [0, 1, 2, 3]) and got[2] == ([8, 9], [8, 9])
    assert base.batch(4, drop_remainder=True).get_dataset_size() == 2 and len(rows(base.batch(4, True))) == 2

    ds.config.set_seed(1)
    sh = rows(base.shuffle(4))
    assert sorted(sh) == rows(base) and sh != rows(base)

    m = base.map(lambda v: v * 2 + 1, input_columns="x")
    assert [r[0] for r in rows(m)] == (x * 2 + 1).tolist()
    split = base.map(lambda v: (v, -v), input_columns="x", output_columns=["p", "n"])
    assert split.get_col_names() == ["p", "n", "i"] and rows(split)[3] == (3.0, -3.0, 3)
    chained = base.map([lambda v: v + 1, lambda v: v * 10], input_columns=["x"])
    assert rows(chained)[2][0] == 30.0

    r = base.repeat(3)
    assert r.get_dataset_size() == 30 and len(rows(r)) == 30
    assert [v for v, _ in rows(base.skip(7))] == [7.0, 8.0, 9.0]
    assert [v for v, _ in rows(base.take(2))] == [0.0, 1.0] and base.take(2).get_dataset_size() == 2
    assert rows(base.repeat().take(12))[11] == (1.0, 1)             # repeat() runs without end
    assert rows(base, columns=["i"])[0] == (0,)


def test_dict_iterator_tensors_and_epochs():
    d = ds.NumpySlicesDataset({"x": np.arange(4.0)}, shuffle=False).batch(2)
    it = d.create_dict_iterator(num_epochs=2)
    for _ in range(2):
        batches = [item["x"] for item in it]
        assert all(isinstance(t, ms.Tensor) for t in batches)
        np.testing.assert_array_equal(np.concatenate([t.asnumpy() for t in batches]), np.arange(4.0))
    assert list(it) == []                                           # two epochs served, then done
    row = next(iter(ds.GeneratorDataset([(np.float32(1.5), 2)], ["a", "b"]).create_tuple_iterator()))
    assert row[0].shape == () and row[0].dtype == ms.float32 and row[1].dtype == ms.int64   # scalars stay 0-d


def test_transforms_and_vision_against_numpy(rng):
    img = rng.integers(0, 256, size=(4, 5, 3)).astype(np.uint8)
    np.testing.assert_allclose(vision.Rescale(1 / 255, -0.5)(img), img / 255 - 0.5, atol=1e-6)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    np.testing.assert_allclose(vision.Normalize(mean, std)(img), (img - np.array(mean)) / np.array(std), rtol=1e-5)
    chw = vision.HWC2CHW()(img)
    assert chw.shape == (3, 4, 5) and np.array_equal(chw[1], img[:, :, 1])
    np.testing.assert_allclose(vision.Normalize(mean, std, is_hwc=False)(chw),
                               (chw - np.array(mean)[:, None, None]) / np.array(std)[:, None, None], rtol=1e-5)
    assert transforms.TypeCast(ms.int32)(np.array([1.7])).dtype == np.int32
    np.testing.assert_array_equal(transforms.OneHot(3)(np.array([2, 0])), [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_allclose(transforms.OneHot(4, smoothing_rate=0.2)(np.array(1)), [0.05, 0.85, 0.05, 0.05])
    both = transforms.Compose([vision.Rescale(2.0, 0.0), vision.HWC2CHW()])(img)
    np.testing.assert_allclose(both, img.transpose(2, 0, 1) * 2.0)
    d = ds.NumpySlicesDataset({"img": img[None].repeat(2, 0), "y": np.array([0, 2])}, shuffle=False)
    d = d.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], "img").map(transforms.OneHot(3), "y")
    first = next(iter(d.create_dict_iterator(output_numpy=True)))
    assert first["img"].shape == (3, 4, 5) and first["y"].tolist() == [1, 0, 0]
    with pytest.raises(ValueError, match=r"HWC2CHW: expected an image of shape <H, W, C>, got \[4, 5\]"):
        vision.HWC2CHW()(img[..., 0])
    with pytest.raises(ValueError, match=r"OneHot: labels must be in \[0, 3\)"):
        transforms.OneHot(3)(np.array([3]))


def test_argument_and_row_errors():
    with pytest.raises(ValueError, match="GeneratorDataset: column_names is required"):
        ds.GeneratorDataset([1, 2])
    with pytest.raises(ValueError, match="shuffle=True and num_shards need a random-access source"):
        ds.GeneratorDataset(lambda: iter([1]), "a", shuffle=True)
    with pytest.raises(ValueError, match=r"shard_id must be an int in \[0, 2\)"):
        ds.GeneratorDataset([1], "a", num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match=r"shuffle: buffer_size must be an int >= 2, got 1"):
        ds.GeneratorDataset([1], "a").shuffle(1)
    with pytest.raises(ValueError, match=r"map: input column\(s\) \['z'\] not in the dataset's columns \['a'\]"):
        ds.GeneratorDataset([1], "a").map(abs, input_columns="z")
    bad = ds.GeneratorDataset(lambda: iter([(1, 2, 3)]), ["a", "b"])
    with pytest.raises(ValueError, match=r"GeneratorDataset: the source gave a row of 3 value\(s\) for 2 column"):
        rows(bad)
    ragged = ds.GeneratorDataset(lambda: iter([np.zeros(2), np.zeros(3)]), "a").batch(2)
    with pytest.raises(ValueError, match="batch: column 'a' has rows of different shapes"):
        rows(ragged)


# ------------------------------------------------------------------ the background loader
def _wait_until(predicate, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.005)
    return predicate()


def test_loader_runs_ahead_within_the_prefetch_bound():
    produced = []

    def gen():
        for i in range(1000):
            produced.append(i)
            yield np.array(i)
    ds.config.set_prefetch_size(4)
    try:
        it = ds.GeneratorDataset(gen, "v").create_tuple_iterator(num_epochs=1, output_numpy=True)
        assert int(next(it)[0]) == 0
        assert _wait_until(lambda: len(produced) >= 5)              # ahead of the consumer...
        time.sleep(0.05)
        assert len(produced) <= 4 + 2                               # ...by at most the queue plus one in hand
        assert it._thread.is_alive()
    finally:
        ds.config.set_prefetch_size(16)
        it.stop()


def test_abandoned_iterator_ends_its_thread():
    data = ds.GeneratorDataset(lambda: (np.array(i) for i in range(10 ** 6)), "v").repeat()
    it = data.create_tuple_iterator()
    next(it)
    thread = it._thread
    assert thread.is_alive()
    del it
    gc.collect()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert not any(t is thread for t in threading.enumerate())


def test_source_exception_reaches_the_consumer_with_its_message():
    def gen():
        yield np.array(1)
        raise KeyError("row 7 is missing from the shard")
    it = ds.GeneratorDataset(gen, "v").create_tuple_iterator()
    next(it)
    with pytest.raises(KeyError, match="row 7 is missing from the shard"):
        next(it)
    it._thread.join(timeout=5)
    assert not it._thread.is_alive()
    failing_map = ds.GeneratorDataset([1, 2], "v", shuffle=False).map(lambda v: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        rows(failing_map)


def test_same_seed_same_shuffle_however_many_datasets_came_before():
    def shuffled_orders():
        ds.config.set_seed(7)
        base = ds.NumpySlicesDataset({"v": np.arange(20)}, shuffle=True)
        return rows(base), rows(base.shuffle(8))

    first = shuffled_orders()
    for _ in range(5):                                              # other datasets built in between
        ds.NumpySlicesDataset({"v": np.arange(3)}).shuffle(2).batch(1)
    assert shuffled_orders() == first
    ds.config.set_seed(8)
    assert rows(ds.NumpySlicesDataset({"v": np.arange(20)}, shuffle=True)) != first[0]


def test_config_set_seed_checks_like_mindspore_and_seeds_python_and_numpy():
    import random
    with pytest.raises(TypeError, match="dataset.config.set_seed: seed must be an int, got str '1'"):
        ds.config.set_seed("1")
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\*\*32\), got -1"):
        ds.config.set_seed(-1)
    ds.config.set_seed(3)
    first = (random.random(), np.random.rand())
    ds.config.set_seed(3)
    assert (random.random(), np.random.rand()) == first and ds.config.get_seed() == 3
