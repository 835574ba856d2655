"""The OmniRT Python project's ``BackendRuntime`` contract over the native host.

Code written against that contract switches to the native host by changing
one import (``from omnirt.compat import BackendRuntime, resolve_backend``).
Each method, and what it does here:

==========================================  ======================================================
seed ``BackendRuntime``                     here
==========================================  ======================================================
``name``, ``device_name``                   the backend's name (``"cpu"``, ``"cuda"``); its
                                            torch device type (``"cpu"``, ``"cuda"``, ``"npu"``,
                                            ``"mlu"``)
``is_available()``                          whether the host found the backend and it can run
                                            here; never raises (``unavailable_reason`` says why)
``capabilities()``                          :class:`Capabilities`: ``dtype_options``
                                            (``"fp32"``, ``"fp16"``, ``"bf16"``, ...),
                                            ``compile_available`` (the COMPILE feature),
                                            ``supports_graph_mode`` (GRAPH_CAPTURE), ``device``,
                                            ``device_count``
``_compile(module, tag)``                   raises NotImplementedError: the native compile tier
                                            runs inside ``wrap_module`` (the backend plugin's)
``prepare_pipeline(pipeline, ...)``         returns the pipeline unchanged
``wrap_module(module, tag)``                ``Backend.wrap_module``: compile -> kernel_override
                                            -> eager (or the tag's YAML policy), appending a
                                            :class:`BackendTimelineEntry` with every level to
                                            ``backend_timeline``; returns an ``omnirt.Module``.
                                            Where the host can take no tier (a module that is
                                            not TorchScript, say), the seed's eager level runs
                                            the module itself in Python, saying so in the reason
``register_override(tag, override)``        ``Backend.register_override`` (a callable, or the
                                            name of a named op); ``get_override(tag)`` as the seed
``reset_memory_stats()``, ``memory_stats()`` the backend's statistics in bytes (``peak_bytes``,
                                            ``allocated_bytes``, ``reserved_bytes``,
                                            ``alloc_count``, ``free_count``: those it knows);
                                            ``{}`` / no-op where it keeps none
``available_memory_gb()``                   free device memory in GiB (``mem_info``), else None
``synchronize()``                           ``Backend.synchronize(device)``
``to_device(x, dtype=None)``                ``x.to(device, dtype)`` for anything with ``.to``
                                            (dtype a torch dtype or ``"fp16"``/``"bf16"``/...),
                                            else ``x`` unchanged
==========================================  ======================================================
"""
from . import errors
from .runtime import Runtime

__all__ = ["BackendRuntime", "BackendAttempt", "BackendTimelineEntry", "Capabilities",
           "resolve_backend"]

#: Seed level names of the host's tiers.
_LEVELS = {"compile": "compile", "override": "kernel_override", "eager": "eager"}
#: Seed dtype names of the host's.
_DTYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}
_TORCH_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64"}
#: torch's device type for backends whose memory DLPack calls kDLExtDev, by vendor
#: (torch_npu's and torch_mlu's names).
_EXT_DEVICES = {"huawei-ascend": "npu", "cambricon": "mlu"}


class _Plain:
    """A small record with keyword fields, equality and repr."""

    _fields = ()

    def __init__(self, *args, **kwargs):
        values = dict(zip(self._fields, args), **kwargs)
        for name, default in self._defaults().items():
            values.setdefault(name, default)
        missing = [f for f in self._fields if f not in values]
        if missing:
            raise TypeError(f"{type(self).__name__} needs {', '.join(missing)}")
        self.__dict__.update(values)

    @classmethod
    def _defaults(cls):
        return {}

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class BackendAttempt(_Plain):
    """One level of a wrap: ``level`` (compile, kernel_override, eager), ``ok``,
    ``reason`` (why it failed or was skipped; None when ok), ``selected``."""
    _fields = ("level", "ok", "reason", "selected")

    @classmethod
    def _defaults(cls):
        return {"reason": None, "selected": False}


class BackendTimelineEntry(_Plain):
    """One wrap_module call: ``module`` (the tag) and its ``attempts``."""
    _fields = ("module", "attempts")


class Capabilities(_Plain):
    """``device``, ``dtype_options``, ``compile_available``,
    ``supports_graph_mode``, ``device_count``."""
    _fields = ("device", "dtype_options", "compile_available", "supports_graph_mode",
               "device_count")


class BackendRuntime:
    """A native OmniRT backend behind the seed's BackendRuntime contract.

    ``backend``: ``"auto"``, a backend name, or ``"cpu-stub"`` (the seed's name
    for the cpu backend). ``runtime``: an :class:`omnirt.Runtime` to use
    (default: a new one, made with ``runtime_options``). ``device``: the
    device index everything runs on. Never raises for a backend that cannot
    run here: :meth:`is_available` says so."""

    def __init__(self, backend="auto", *, runtime=None, device=0, **runtime_options):
        self.backend_timeline = []
        self._overrides = {}
        self.device = device
        self.unavailable_reason = ""
        self._backend = None
        requested = "cpu" if backend == "cpu-stub" else backend
        self.name = requested
        try:
            self._runtime = runtime if runtime is not None else Runtime(**runtime_options)
            self._backend = self._runtime.backend(requested)
            self.name = self._backend.name
        except errors.Error as e:
            self.unavailable_reason = e.message
        self._device_type = "cpu"
        if self._backend is not None:
            caps = self._backend.capabilities
            self._device_type = _EXT_DEVICES.get(caps.vendor, caps.device_type)

    @property
    def device_name(self):
        return self._device_type

    def _native(self):
        if self._backend is None:
            raise errors.Unavailable(
                f"backend '{self.name}' is not available: {self.unavailable_reason}")
        return self._backend

    def is_available(self):
        return self._backend is not None

    def capabilities(self):
        caps = self._native().capabilities
        return Capabilities(device=self.device_name,
                            dtype_options=[_DTYPES.get(d, d) for d in caps.dtypes],
                            compile_available="compile" in caps.features,
                            supports_graph_mode="graph_capture" in caps.features,
                            device_count=caps.device_count)

    def _compile(self, module, tag):
        raise NotImplementedError("the native host's compile tier runs inside wrap_module "
                                  f"(backend '{self.name}')")

    def prepare_pipeline(self, pipeline, *, model_spec=None, config=None):
        return pipeline

    def register_override(self, tag, override):
        self._native().register_override(tag, override)
        self._overrides[tag] = override

    def get_override(self, tag):
        return self._overrides.get(tag)

    def wrap_module(self, module, tag):
        backend = self._native()
        try:
            wrapped = backend.wrap_module(module, tag=tag, device=self.device)
            attempts = [self._attempt(a.tier, a.ok, a.reason, a.selected) for a in wrapped.timeline]
        except errors.Error as e:
            wrapped, attempts = self._python_fallback(backend, module, tag, e)
        tried = {a.level for a in attempts}
        selected = next((a.level for a in attempts if a.selected), None)
        for level in _LEVELS.values():
            if level not in tried:
                attempts.append(BackendAttempt(level, False, f"skipped: {selected} selected"))
        self.backend_timeline.append(BackendTimelineEntry(tag, attempts))
        return wrapped

    @staticmethod
    def _attempt(tier, ok, reason, selected):
        return BackendAttempt(_LEVELS.get(tier, tier), ok, reason or None, selected)

    def _python_fallback(self, backend, module, tag, error):
        """No native tier: the seed's chain in Python (override, else the
        module itself as eager), with the native failures as reasons."""
        timeline = backend.report()["timeline"]
        entry = timeline[-1] if timeline else None
        if entry is not None and entry["tag"] == (tag or "") and entry["selected_tier"] is None:
            attempts = [self._attempt(a["tier"], False, a["reason"], False)
                        for a in entry["attempts"]]
        else:  # the module never reached the host (not TorchScript)
            attempts = [BackendAttempt("compile", False, error.message)]
        failed = {a.level: a for a in attempts}
        override = self.get_override(tag)
        if "kernel_override" not in failed:
            if callable(override):
                attempts.append(BackendAttempt("kernel_override", True, None, True))
                return override, attempts
            attempts.append(BackendAttempt("kernel_override", False, "no override registered"))
        if not callable(module):
            raise error
        reason = f"native eager failed ({failed['eager'].reason}); " if "eager" in failed else ""
        attempts = [a for a in attempts if a.level != "eager"]
        reason += "running the module itself in Python"
        attempts.append(BackendAttempt("eager", True, reason, True))
        return module, attempts

    def reset_memory_stats(self):
        try:
            self._native().reset_memory_stats(self.device)
        except errors.NotSupported:
            pass

    def memory_stats(self):
        try:
            return self._native().memory_stats(self.device)
        except errors.NotSupported:
            return {}

    def available_memory_gb(self):
        try:
            free, _ = self._native().mem_info(self.device)
        except errors.NotSupported:
            return None
        return free / 1024 ** 3

    def synchronize(self):
        self._native().synchronize(self.device)

    def to_device(self, tensor_or_module, dtype=None):
        if not hasattr(tensor_or_module, "to"):
            return tensor_or_module
        device = "cpu" if self.device_name == "cpu" else f"{self.device_name}:{self.device}"
        kwargs = {}
        if dtype is not None:
            if isinstance(dtype, str):
                import torch
                dtype = getattr(torch, _TORCH_DTYPES.get(dtype, dtype))
            kwargs["dtype"] = dtype
        return tensor_or_module.to(device, **kwargs)

    def __repr__(self):
        state = "available" if self.is_available() else f"unavailable: {self.unavailable_reason}"
        return f"omnirt.compat.BackendRuntime('{self.name}', {state})"


def resolve_backend(name="auto", **options):
    """A :class:`BackendRuntime` for ``name`` (``"auto"``, ``"cuda"``,
    ``"ascend"``, ``"cpu-stub"``, ...), like the seed's
    ``omnirt.backends.resolve_backend``; raises omnirt.Unavailable (with
    the host's reason) when it cannot run here."""
    runtime = BackendRuntime(name, **options)
    if not runtime.is_available():
        raise errors.Unavailable(
            f"backend '{runtime.name}' is not available: {runtime.unavailable_reason}")
    return runtime
