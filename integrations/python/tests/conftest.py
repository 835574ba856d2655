"""Fixtures of the omnirt package's tests.

Paths come from the paths.json that CMake generates (OMNIRT_PYTHON_TEST_PATHS,
set by CTest); the package itself from PYTHONPATH=<build>/python. Tests that
take ``backend`` run once per backend in BACKENDS and skip where it is not
available; the cuda ones carry the ``cuda`` mark (``pytest -m cuda``).
"""
import ctypes
import json
import os

import pytest

import omnirt

BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)]


@pytest.fixture(scope="session")
def paths():
    where = os.environ.get("OMNIRT_PYTHON_TEST_PATHS")
    if not where:
        pytest.skip("OMNIRT_PYTHON_TEST_PATHS is not set (run through ctest, or set it to "
                    "<build>/integrations/python/tests/paths.json)")
    with open(where) as f:
        return json.load(f)


@pytest.fixture
def rt():
    """A runtime over the in-tree plugins only (the environment is ignored)."""
    with omnirt.Runtime(ignore_environment=True) as runtime:
        yield runtime


@pytest.fixture(params=BACKENDS)
def backend(request, rt):
    """Each in-tree backend with modules, skipped where it cannot run here."""
    infos = {b.name: b for b in rt.backends()}
    info = infos.get(request.param)
    if info is None:
        pytest.skip(f"backend '{request.param}' is not built")
    if not info.available:
        pytest.skip(f"backend '{request.param}' is unavailable here: {info.reason}")
    return rt.backend(request.param)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def np():
    return pytest.importorskip("numpy")


def torch_device(backend):
    """The torch device of a backend's device 0."""
    return {"cpu": "cpu", "cuda": "cuda:0"}[backend.capabilities.device_type]


def synchronize(backend, torch):
    """Waits for the backend and for torch, before reading results on the host."""
    backend.synchronize()
    if backend.capabilities.device_type == "cuda":
        torch.cuda.synchronize()


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class ForeignTensor:
    """A DLPack producer that says its float32 numpy buffer lives on another
    device (``device_type`` a DLPack code: 2 is CUDA): a tensor on the wrong
    device, for the host's checks. It owns its memory (no deleter)."""

    _NAME = b"dltensor"

    def __init__(self, array, device_type, device_id=0):
        self.array = array
        self.device = (device_type, device_id)
        self._shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        self._managed = _DLManagedTensor()
        t = self._managed.dl_tensor
        t.data = array.ctypes.data
        t.device = _DLDevice(device_type, device_id)
        t.ndim = array.ndim
        t.dtype = _DLDataType(2, 32, 1)  # kDLFloat, 32 bits
        t.shape = self._shape

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        return _capsule_new(ctypes.addressof(self._managed), self._NAME, None)
