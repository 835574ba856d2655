"""OmniRT from Python: the host, its backends and wrapped modules.

    import omnirt, torch
    rt = omnirt.Runtime()
    b = rt.backend("auto")
    m = b.wrap_module(torch.nn.Linear(4, 2), tag="head")
    y = m(torch.randn(1, 4))            # torch in, torch out, no copies

Tensors cross through DLPack without copying; the GIL is released while a
module, op or collective runs. ``b.comm(omnirt.FileStore(dir), rank=r,
nranks=n)`` joins a group of ranks for collectives (docs/collectives.md). ``omnirt.compat.BackendRuntime`` implements the OmniRT
Python project's BackendRuntime contract over the native host.
``import omnirt`` loads neither torch nor numpy.
"""
from ._omnirt import Communicator, FileStore, Module, Tensor, abi_version, library_version
from ._records import Attempt, BackendInfo, Candidate, Capabilities, DeviceInfo, SearchDir
from .errors import *  # noqa: F401,F403 (the exception classes)
from .errors import __all__ as _errors
from .runtime import Backend, Report, Runtime

__version__ = library_version()

__all__ = [
    "Runtime", "Backend", "Module", "Tensor", "Report", "FileStore", "Communicator",
    "BackendInfo", "DeviceInfo", "Candidate", "SearchDir", "Capabilities", "Attempt",
    "library_version", "abi_version", *_errors,
]
