"""The OmniRT host's C API (abi/include/omnirt/host.h) through ctypes, for
benchmarks that run OmniRT in the same process as PyTorch: wrap a module on
a backend and run it on torch tensors. Only what the benchmarks use; the
Python integration (integrations/python) is the supported binding.

DLTensor is DLPack's (0.6 and later): data, device, ndim, dtype, shape,
strides, byte_offset.
"""
import ctypes
from ctypes import POINTER, byref, c_char_p, c_int32, c_int64, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

import torch

OK = 0
HOST_IGNORE_ENVIRONMENT = 1 << 0
HOST_SKIP_INSTALLED_DIR = 1 << 1
WRAP_DISABLE_COMPILE = 1 << 0
KDLCPU = 1
KDLCUDA = 2
KDLFLOAT = 2


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DELETER)]


class HostOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("config_path", c_char_p), ("plugin_paths", POINTER(c_char_p)),
                ("num_plugin_paths", c_size_t), ("flags", c_uint32)]


class ModuleSource(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("format", c_char_p), ("data", c_void_p), ("size", c_size_t),
                ("path", c_char_p)]


class WrapOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("device", c_int32), ("flags", c_uint32), ("attrs", c_void_p),
                ("num_attrs", c_size_t)]


class ErrorInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("status", c_int32), ("native_code", c_int64),
                ("message", c_char_p), ("backend", c_char_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, c_char_p, c_void_p]


class Host:
    """A host that finds only the given plugin files; its cuda backend."""

    def __init__(self, library, plugins):
        self.lib = ctypes.CDLL(library)
        lib = self.lib
        lib.omnirt_last_error.restype = POINTER(ErrorInfo)
        lib.omnirt_host_create.argtypes = [POINTER(HostOptions), POINTER(c_void_p)]
        lib.omnirt_host_get_backend.argtypes = [c_void_p, c_char_p, POINTER(c_void_p)]
        lib.omnirt_wrap_module.argtypes = [c_void_p, POINTER(ModuleSource), c_char_p, POINTER(WrapOptions),
                                           c_void_p, POINTER(c_void_p)]
        lib.omnirt_module_run.argtypes = [c_void_p, POINTER(DLTensor), c_size_t, c_void_p,
                                          POINTER(POINTER(DLManagedTensor)), c_size_t, POINTER(c_size_t),
                                          c_void_p]
        lib.omnirt_module_destroy.argtypes = [c_void_p]
        lib.omnirt_host_destroy.argtypes = [c_void_p]
        paths = (c_char_p * len(plugins))(*[p.encode() for p in plugins])
        options = HostOptions(ctypes.sizeof(HostOptions), None, paths, len(plugins),
                              HOST_IGNORE_ENVIRONMENT | HOST_SKIP_INSTALLED_DIR)
        self.host = c_void_p()
        self._check(lib.omnirt_host_create(byref(options), byref(self.host)), "omnirt_host_create")

    def _check(self, status, what):
        if status != OK:
            e = self.lib.omnirt_last_error().contents
            raise RuntimeError(f"{what}: status {status}: {e.message.decode(errors='replace')}")

    def wrap(self, backend, path, fmt, tag, compile_tier):
        b = c_void_p()
        self._check(self.lib.omnirt_host_get_backend(self.host, backend.encode(), byref(b)),
                    f"select backend {backend}")
        source = ModuleSource(ctypes.sizeof(ModuleSource), fmt.encode(), None, 0, str(path).encode())
        options = WrapOptions(ctypes.sizeof(WrapOptions), 0, 0 if compile_tier else WRAP_DISABLE_COMPILE, None, 0)
        module = c_void_p()
        self._check(self.lib.omnirt_wrap_module(b, byref(source), tag.encode(), byref(options), None,
                                                byref(module)), f"wrap {path} ({fmt})")
        return Module(self, module)

    def close(self):
        self.lib.omnirt_host_destroy(self.host)


class Module:
    """A wrapped module run on fixed tensors (kept alive by the caller)."""

    def __init__(self, host, handle):
        self.host, self.handle = host, handle
        self.outputs = (POINTER(DLManagedTensor) * 8)()
        self.count = c_size_t()

    def bind(self, *tensors):
        """The inputs of every later run: contiguous float32 tensors (CUDA, or host memory for cpu)."""
        self.shapes = [(c_int64 * t.dim())(*t.shape) for t in tensors]
        views = []
        for t, shape in zip(tensors, self.shapes):
            assert t.is_contiguous() and t.dtype == torch.float32
            device = DLDevice(KDLCUDA, t.device.index or 0) if t.is_cuda else DLDevice(KDLCPU, 0)
            views.append(DLTensor(t.data_ptr(), device, t.dim(), DLDataType(KDLFLOAT, 32, 1), shape, None, 0))
        self.inputs = (DLTensor * len(views))(*views)

    def run(self):
        """One run, enqueued on the default stream; its outputs released at once (stream-ordered)."""
        self.host._check(self.host.lib.omnirt_module_run(self.handle, self.inputs, len(self.inputs), None,
                                                         self.outputs, 8, byref(self.count), None),
                         "omnirt_module_run")
        for i in range(self.count.value):
            self.outputs[i].contents.deleter(self.outputs[i])

    def run_to_tensor(self):
        """One run; output 0 as a torch tensor that owns it (DLPack), the others released."""
        self.host._check(self.host.lib.omnirt_module_run(self.handle, self.inputs, len(self.inputs), None,
                                                         self.outputs, 8, byref(self.count), None),
                         "omnirt_module_run")
        for i in range(1, self.count.value):
            self.outputs[i].contents.deleter(self.outputs[i])
        capsule = _capsule_new(ctypes.cast(self.outputs[0], c_void_p), b"dltensor", None)
        return torch.utils.dlpack.from_dlpack(capsule)  # calls the deleter when freed

    def close(self):
        self.host.lib.omnirt_module_destroy(self.handle)
