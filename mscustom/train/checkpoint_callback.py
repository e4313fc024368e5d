"""``ModelCheckpoint`` and ``CheckpointConfig``: save the training network every N steps or seconds.

Files are named ``{prefix}-{epoch}_{step_in_epoch}.ckpt`` in ``directory``
(the working directory by default), as MindSpore names them; the oldest are
removed beyond ``keep_checkpoint_max``. What is saved is the training
network's parameters with its optimizer's state (moments, accumulators).
MindSpore's ``-graph.meta`` file, encryption and asynchronous saving are
not produced here.

Example::

    config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=3)
    model.train(5, data, callbacks=[ModelCheckpoint(prefix="lenet", directory="ckpt", config=config)])
"""

import os
import time

from .callback import Callback
from .serialization import save_checkpoint

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _count(value, what, allow_zero=True):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if allow_zero else 1):
        raise ValueError(f"CheckpointConfig: {what} must be an int >= {0 if allow_zero else 1}, got {value!r}")
    return value


class CheckpointConfig:
    """When to save and how many files to keep.

    ``save_checkpoint_steps`` (default 1) or ``save_checkpoint_seconds``
    (used when the steps are None or 0) choose the moments; at most
    ``keep_checkpoint_max`` files are kept; ``append_info`` adds
    ``"epoch_num"``/``"step_num"`` or a dict of named values to each file.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, format="ckpt",
                 **kwargs):
        self.save_checkpoint_steps = _count(save_checkpoint_steps, "save_checkpoint_steps")
        self.save_checkpoint_seconds = _count(save_checkpoint_seconds, "save_checkpoint_seconds")
        if not self.save_checkpoint_steps and not self.save_checkpoint_seconds:
            raise ValueError("CheckpointConfig: save_checkpoint_steps and save_checkpoint_seconds cannot both be "
                             "0 or None; say when to save")
        self.keep_checkpoint_max = _count(keep_checkpoint_max, "keep_checkpoint_max", allow_zero=False)
        self.keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        self.integrated_save = integrated_save
        self.saved_network = saved_network
        if async_save or enc_key is not None:
            raise ValueError("CheckpointConfig: async_save and enc_key are not supported by mscustom")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"CheckpointConfig: format must be 'ckpt' or 'safetensors', got {format!r}")
        self.format = format
        self.append_info = append_info
        self.exception_save = exception_save


class ModelCheckpoint(Callback):
    """Save checkpoints during training (see ``CheckpointConfig``); ``latest_ckpt_file_name`` is the last."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name str, got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got {type(config).__name__}")
        self._prefix = prefix
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        self._config = config if config is not None else CheckpointConfig()
        self._saved = []
        self._last_step = 0
        self._last_time = time.monotonic()
        self.latest_ckpt_file_name = None

    def _due(self, step):
        cfg = self._config
        if cfg.save_checkpoint_steps:
            return step % cfg.save_checkpoint_steps == 0
        return time.monotonic() - self._last_time >= cfg.save_checkpoint_seconds

    def _append(self, cb_params):
        info = self._config.append_info
        if not info:
            return None
        out = {}
        for item in info:
            if item == "epoch_num":
                out["epoch_num"] = int(cb_params.cur_epoch_num)
            elif item == "step_num":
                out["step_num"] = int(cb_params.cur_step_num)
            elif isinstance(item, dict):
                out.update(item)
            else:
                raise ValueError(f"CheckpointConfig: append_info entries must be 'epoch_num', 'step_num' or a "
                                 f"dict, got {item!r}")
        return out

    def _save(self, cb_params):
        step = cb_params.cur_step_num
        batch_num = cb_params.get("batch_num") or step
        in_epoch = (step - 1) % batch_num + 1
        name = f"{self._prefix}-{cb_params.cur_epoch_num}_{in_epoch}.{self._config.format}"
        path = os.path.join(self._directory, name)
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(network, path, append_dict=self._append(cb_params), format=self._config.format)
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        while len(self._saved) > self._config.keep_checkpoint_max:
            old = self._saved.pop(0)
            try:
                os.remove(old)
            except FileNotFoundError:
                pass
        self._last_step, self._last_time = step, time.monotonic()
        self.latest_ckpt_file_name = path

    def on_train_begin(self, run_context):
        self._last_step, self._last_time = 0, time.monotonic()

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        if self._due(cb_params.cur_step_num):
            self._save(cb_params)

    def on_train_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.get("cur_step_num", 0) > self._last_step:
            self._save(cb_params)
