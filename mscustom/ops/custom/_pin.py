"""An op whose reg infos name exactly one of CPU/GPU runs on that target, whatever the context says.

MindSpore's ``Custom`` sets ``primitive_target`` from the registered targets:
an aot op registered for "CPU" only (or "GPU" only) runs there even when
``set_context(device_target=...)`` names the other device (its graph then
copies data between devices). Here the op's kernels on the pinned target are
also entered for every other target; selected there, they bind and run the
pinned target's kernel. When that target cannot run on this machine (a GPU
kernel without CUDA), the error says the op is pinned and why it cannot run.

Pinning applies when every kernel of the op has a reg info naming a target
and, together, they name exactly one of "CPU" / "GPU". An op with kernels for
both, or with a kernel without a target, follows the context.
"""

import dataclasses

__all__ = ["pinned_target", "pin_kernels", "own_kernels"]

PINNABLE = ("CPU", "GPU")


def pinned_target(sources):
    """The one target the op's reg infos name, or None. ``sources``: ``(func, kind, infos, options)``."""
    targets = set()
    for _func, _kind, infos, _options in sources:
        if not infos:
            return None
        for info in infos:
            if info.target is None:
                return None
            targets.add(info.target)
    if len(targets) == 1 and next(iter(targets)) in PINNABLE:
        return targets.pop()
    return None


def pin_kernels(op, sources, targets):
    """Enter the pinned target's kernels of ``op`` under every other target of ``targets`` (idempotent)."""
    op.kernels = [k for k in op.kernels if getattr(k, "pinned_to", None) is None]
    pinned = pinned_target(sources)
    if pinned is None:
        return None
    own = [k for k in op.kernels if k.target == pinned]
    for other in targets:
        if other == pinned:
            continue
        for entry in own:
            twin = dataclasses.replace(entry, target=other, bind=_bind_on(entry, pinned, other, op.name))
            twin.pinned_to = pinned         # stats are shared with the pinned entry (the same dict)
            op.kernels.append(twin)
    op.plans.clear()
    return pinned


def _bind_on(entry, pinned, context_target, op_name):
    """The pinned kernel's bind, with an error that says why the op does not follow the context."""
    inner = entry.bind

    def bind(op, sig):
        try:
            return inner(op, sig) if inner is not None else entry.fn
        except RuntimeError as exc:
            raise RuntimeError(f"op '{op_name}': its reg info names only the target '{pinned}', so it runs "
                               f"on {pinned} even with device_target '{context_target}' (as MindSpore "
                               f"does), but {pinned} cannot run here: {exc}") from exc
    return bind


def own_kernels(opdef):
    """``opdef``'s kernels without the entries standing for a pinned kernel on other targets."""
    return [k for k in opdef.kernels if getattr(k, "pinned_to", None) is None]
