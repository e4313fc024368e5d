"""``ms.DatasetHelper``: a dataset's batches, one epoch per iteration, as the inputs of a step.

Only the host mode (``dataset_sink_mode=False``) exists: the device-queue ("sink") mode needs a
device data channel, which MindSpore's CPU target lacks too (it raises a RuntimeError there).

Example::

    helper = ms.DatasetHelper(dataset, dataset_sink_mode=False)
    for inputs in helper:
        loss = train_step(*inputs)
"""

__all__ = ["DatasetHelper"]


class DatasetHelper:
    """Iterating gives the rows (tuples of Tensors) of one epoch of ``dataset``; ``epoch_num`` is
    the number of epochs the helper will be iterated for."""

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"The input value must be a bool, but got {type(dataset_sink_mode).__name__}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int):
            raise TypeError(f"DatasetHelper: sink_size must be an int, got {type(sink_size).__name__}")
        if isinstance(epoch_num, bool) or not isinstance(epoch_num, int) or epoch_num <= 0:
            raise ValueError(f"DatasetHelper: epoch_num must be a positive int, got {epoch_num!r}")
        if not hasattr(dataset, "create_tuple_iterator"):
            raise AttributeError(f"DatasetHelper: '{type(dataset).__name__}' object has no attribute "
                                 f"'get_dataset_size' (a dataset is needed)")
        if dataset_sink_mode:
            raise RuntimeError("DatasetHelper: dataset_sink_mode=True needs a device data queue, which the CPU "
                               "target does not have; use dataset_sink_mode=False")
        self.dataset = dataset
        self.epoch_num = epoch_num
        self._sink_size = sink_size

    def __iter__(self):
        iterator = self.dataset.create_tuple_iterator(num_epochs=1)
        try:
            for row in iterator:
                yield tuple(row)
        finally:
            stop = getattr(iterator, "stop", None)
            if stop is not None:
                stop()
