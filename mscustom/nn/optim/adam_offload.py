"""``AdamOffload``: MindSpore's Adam whose update runs on the host (CPU); here every update does."""

from .adam import Adam

__all__ = ["AdamOffload"]


class AdamOffload(Adam):
    """Adam (see ``Adam``) with MindSpore's ``AdamOffload`` signature; states ``moment1.<name>``, ``moment2.<name>``.

    Example::

        opt = nn.AdamOffload(net.trainable_params(), learning_rate=1e-3)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)
