"""What Backend.wrap_module accepts, turned into what the host takes: the
bytes of a serialized module, or the path of one."""
import os
import sys

from .errors import InvalidArgument


def module_source(obj):
    """Returns ``(data, path)``, exactly one of them set.

    ``obj`` is a path (str or os.PathLike), bytes-like (a serialized module),
    a ``torch.jit.ScriptModule`` (saved to bytes) or a ``torch.nn.Module``
    (scripted with ``torch.jit.script``, then saved)."""
    if isinstance(obj, (str, os.PathLike)):
        return None, os.fspath(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj), None
    # A torch object means torch is imported already; never import it here.
    torch = sys.modules.get("torch")
    if torch is not None:
        if isinstance(obj, torch.jit.ScriptModule):
            return _save(torch, obj), None
        if isinstance(obj, torch.nn.Module):
            return _save(torch, _script(torch, obj)), None
    raise InvalidArgument(
        "wrap_module takes a torch.jit.ScriptModule, a scriptable torch.nn.Module, the path of a "
        "saved TorchScript module or its bytes; "
        f"got {type(obj).__module__}.{type(obj).__qualname__}")


def _script(torch, module):
    try:
        return torch.jit.script(module)
    except Exception as e:  # TorchScript's frontend raises many types
        lines = str(e).strip().splitlines()
        first = lines[0] if lines else type(e).__name__
        raise InvalidArgument(
            f"{type(module).__name__} is not scriptable (torch.jit.script failed: {first}). "
            "Make its forward TorchScript-compatible (annotate non-tensor arguments, avoid Python "
            "features TorchScript lacks), or trace it and pass the result: "
            "wrap_module(torch.jit.trace(module, example_inputs), ...)") from e


def _save(torch, scripted):
    import io
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    return buffer.getvalue()
