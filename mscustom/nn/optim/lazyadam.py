"""``LazyAdam``: MindSpore's Adam variant that updates only the rows a sparse gradient touches.

Gradients here are dense, so every row is touched: the update is Adam's (bias corrections
folded into the step size), with the same state names ``moment1.<name>``, ``moment2.<name>``.
"""

from .adam import Adam

__all__ = ["LazyAdam"]


class LazyAdam(Adam):
    """Adam's update on dense gradients (see ``Adam``); ``use_nesterov`` as in Adam.

    Example::

        opt = nn.LazyAdam(net.trainable_params(), learning_rate=1e-3)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)
