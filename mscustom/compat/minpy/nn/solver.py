"""``minpy.nn.solver.Solver``: train a ``ModelBase`` with an update rule from ``optim``.

minpy's Solver (cs231n's): ``init()`` draws each parameter with its
``init_rule`` (``'xavier'`` by default), ``train()`` runs ``num_epochs``
epochs of ``grad_and_loss`` + the update rule, checking train and validation
accuracy after each epoch and keeping the best parameters.
Where this differs: ``check_accuracy`` counts only real samples (minpy also
counted the padding of the last batch).

Example::

    solver = Solver(model, train_iter, test_iter, num_epochs=5, update_rule="sgd_momentum",
                    optim_config={"learning_rate": 1e-2, "momentum": 0.9})
    solver.init()
    solver.train()
"""

import time

import numpy as _onp

from .. import core
from . import init, optim

__all__ = ["Solver"]


class Solver:
    """Trains ``model`` over ``train_dataiter``, validating on ``test_dataiter``."""

    def __init__(self, model, train_dataiter, test_dataiter, **kwargs):
        self.model, self.train_dataiter, self.test_dataiter = model, train_dataiter, test_dataiter
        self.init_rule = kwargs.pop("init_rule", "xavier")
        self.init_config = kwargs.pop("init_config", {})
        self.update_rule = kwargs.pop("update_rule", "sgd")
        self.optim_config = kwargs.pop("optim_config", {})
        self.lr_decay = kwargs.pop("lr_decay", 1.0)
        self.num_epochs = kwargs.pop("num_epochs", 10)
        self.train_acc_num_samples = kwargs.pop("train_acc_num_samples", 1000)
        self.print_every = kwargs.pop("print_every", 10)
        self.verbose = kwargs.pop("verbose", True)
        if kwargs:
            raise ValueError("Unrecognized arguments " + ", ".join(f'"{k}"' for k in kwargs))
        if not hasattr(optim, self.update_rule):
            raise ValueError(f'Invalid update_rule "{self.update_rule}"; available: {optim.__all__}')
        self.update_rule = getattr(optim, self.update_rule)
        self._reset()

    def _reset(self):
        self.epoch, self.best_val_acc, self.best_params = 0, 0, {}
        self.loss_history, self.train_acc_history, self.val_acc_history = [], [], []
        self.train_dataiter.reset()
        self.test_dataiter.reset()
        self.optim_configs = {p: dict(self.optim_config) for p in self.model.param_configs}
        self.init_rules, self.init_configs = {}, {}
        for p, cfg in self.model.param_configs.items():
            rule = cfg.get("init_rule", self.init_rule)
            conf = dict(cfg.get("init_config", {}) if "init_rule" in cfg else self.init_config)
            if not hasattr(init, rule):
                raise ValueError(f'Invalid init_rule "{rule}"; available: {init.__all__}')
            self.init_rules[p], self.init_configs[p] = getattr(init, rule), conf

    def init(self):
        """Draw every parameter with its init rule."""
        for name, config in self.model.param_configs.items():
            self.model.params[name] = self.init_rules[name](config["shape"], self.init_configs[name])
        for name, value in self.model.aux_param_configs.items():
            self.model.aux_params[name] = value

    def _step(self, batch):
        x_batch, y_batch = batch.data[0], batch.label[0]

        def loss_func(*params):
            return self.model.loss(self.model.forward(x_batch, mode="train"), y_batch)

        keys = list(self.model.params.keys())
        arrays = [self.model.params[k] for k in keys]
        grads, loss = core.grad_and_loss(loss_func, argnum=range(len(arrays)))(*arrays)
        self.loss_history.append(float(loss.asnumpy()))
        for k, dw in zip(keys, grads):
            w, self.optim_configs[k] = self.update_rule(self.model.params[k], dw, self.optim_configs[k])
            w._node = None
            self.model.params[k] = w

    def check_accuracy(self, dataiter, num_samples=None):
        """Fraction of samples whose argmax prediction equals the label."""
        check = dataiter.getsubiter(num_samples) if num_samples is not None and dataiter.num_data > num_samples \
            else dataiter
        check.reset()
        correct = total = 0
        for batch in check:
            pred = self.model.forward(batch.data[0], mode="test").asnumpy()
            keep = len(pred) - batch.pad
            correct += int(_onp.sum(_onp.argmax(pred[:keep], axis=1) == batch.label[0][:keep]))
            total += keep
        return correct / max(total, 1)

    def train(self):
        """Run the epochs; ``model.params`` ends as the best parameters seen on validation."""
        num_iterations = self.train_dataiter.getnumiterations() * self.num_epochs
        t = 0
        for epoch in range(self.num_epochs):
            start = time.time()
            self.epoch = epoch + 1
            for batch in self.train_dataiter:
                self._step(batch)
                if self.verbose and t % self.print_every == 0:
                    print(f"(Iteration {t + 1} / {num_iterations}) loss: {self.loss_history[-1]:f}")
                t += 1
            train_acc = self.check_accuracy(self.train_dataiter, num_samples=self.train_acc_num_samples)
            val_acc = self.check_accuracy(self.test_dataiter)
            self.train_acc_history.append(train_acc)
            self.val_acc_history.append(val_acc)
            self.train_dataiter.reset()
            self.test_dataiter.reset()
            if self.verbose:
                print(f"(Epoch {self.epoch} / {self.num_epochs}) train acc: {train_acc}, val_acc: {val_acc}, "
                      f"time: {time.time() - start}.")
            if val_acc > self.best_val_acc:
                self.best_val_acc = val_acc
                self.best_params = dict(self.model.params)
            for k in self.optim_configs:
                self.optim_configs[k]["learning_rate"] = self.optim_configs[k].get("learning_rate", 1e-2) * self.lr_decay
        if self.best_params:
            self.model.params = self.best_params
