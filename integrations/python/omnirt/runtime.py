"""Runtime and Backend: the OmniRT host and its backends from Python."""
import contextlib
import math
import os

from . import _omnirt
from ._records import BackendInfo, Candidate, Capabilities, DeviceInfo, SearchDir
from ._sources import module_source
from .errors import AlreadyExists, Error, InvalidArgument

__all__ = ["Runtime", "Backend", "Report"]

_CAPABILITY_FIELDS = ("vendor", "device_type", "dl_device_type", "device_count", "features",
                      "dtypes", "module_formats", "op_sets", "overridden_ops")


def _backend_info(facts):
    facts = dict(facts)
    facts["devices"] = [DeviceInfo(**d) for d in facts["devices"]]
    return BackendInfo(**facts)


class Runtime:
    """An OmniRT host: finds and loads the backend plugins, hands out backends.

    ``plugin_paths``: plugin files or directories searched first (then
    ``OMNIRT_PLUGIN_PATH``, the config's ``plugin_dirs`` and the installed
    plugin directory). ``config``: a YAML configuration file (else
    ``OMNIRT_CONFIG``). ``ignore_environment`` skips both variables;
    ``skip_installed`` the installed directory. ``outputs``: what runs
    return: ``"auto"`` (torch tensors when torch can be imported, else
    :class:`omnirt.Tensor`), ``"torch"``, ``"numpy"`` or ``"dlpack"``
    (:class:`omnirt.Tensor`). Also a context manager.

    Backends, modules, communicators and tensors handed out keep the host
    loaded: closing or deleting the Runtime first is safe.
    """

    def __init__(self, plugin_paths=(), config=None, *, ignore_environment=False,
                 skip_installed=False, outputs="auto"):
        if isinstance(plugin_paths, (str, os.PathLike)):
            plugin_paths = [plugin_paths]
        flags = ((_omnirt.HOST_IGNORE_ENVIRONMENT if ignore_environment else 0)
                 | (_omnirt.HOST_SKIP_INSTALLED_DIR if skip_installed else 0))
        self._host = _omnirt.Host([os.fspath(p) for p in plugin_paths],
                                  None if config is None else os.fspath(config), flags, outputs)
        self._backends = {}

    def _native(self):
        if self._host is None:
            raise InvalidArgument("this Runtime is closed")
        return self._host

    def backends(self):
        """Every loaded backend (available or not), in selection order, as
        :class:`BackendInfo` — what ``omnirt-probe`` shows."""
        return [_backend_info(f) for f in self._native().backends()]

    def candidates(self):
        """Every plugin file the host looked at, loaded or not, as :class:`Candidate`."""
        return [Candidate(**f) for f in self._native().candidates()]

    def rejected(self):
        """The candidates that did not load, each with the stage reached and why."""
        return [c for c in self.candidates() if not c.loaded]

    def search_path(self):
        """The plugin search path, as :class:`SearchDir`."""
        return [SearchDir(**f) for f in self._native().search_path()]

    def backend(self, name="auto"):
        """The backend called ``name``; ``"auto"`` picks the first available by
        priority, then name. The same :class:`Backend` object every time.

        Raises NotFound for an unknown name, the rejected plugin's status
        (with its reason) for a plugin that did not load, Unavailable (with
        the reason) for one that cannot run here."""
        state = self._native().backend(None if name is None else str(name))
        backend = self._backends.get(state.key)
        if backend is None:
            backend = self._backends[state.key] = Backend(state)
        return backend

    def close(self):
        """Lets go of the host; it is unloaded once the backends, modules,
        communicators and tensors handed out are gone too. Idempotent."""
        self._host = None
        self._backends = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self._host is None:
            return "omnirt.Runtime(closed)"
        names = [b.name + ("" if b.available else " (unavailable)") for b in self.backends()]
        return f"omnirt.Runtime(backends={names})"


class Report(dict):
    """A run report (docs/run-report.md) as a dict; ``json()`` is the host's JSON text."""

    def __init__(self, text):
        import json
        super().__init__(json.loads(text))
        self._text = text

    def json(self):
        return self._text


class _NamedOp:
    """An override that runs a named op through Backend.op."""

    def __init__(self, backend, op, attrs):
        self.backend, self.op, self.attrs = backend, op, attrs

    def __call__(self, *inputs):
        return self.backend.op(self.op, *inputs, **self.attrs)

    def __repr__(self):
        return f"named op '{self.op}' of backend '{self.backend.name}' {self.attrs}"


class Backend:
    """One backend of a :class:`Runtime` (``rt.backend("cpu")``)."""

    def __init__(self, state):
        self._state = state
        # Callables registered with the host, kept alive here, where Python's
        # garbage collector sees them (one may refer back to this backend).
        self._overrides = {}
        # Unregistered ones: modules wrapped while they were registered still call them.
        self._retired = []
        # Attributes of the named op that serves a tag of its own name.
        self._op_attrs = {}

    @property
    def name(self):
        return self._state.name

    @property
    def info(self):
        """Everything ``omnirt-probe`` shows about it, as :class:`BackendInfo`."""
        return _backend_info(self._state.facts())

    @property
    def devices(self):
        """Its devices, as :class:`DeviceInfo`."""
        return self.info.devices

    @property
    def capabilities(self):
        """What it can do, as :class:`Capabilities` (features and dtypes by name)."""
        facts = self._state.facts()
        return Capabilities(**{k: facts[k] for k in _CAPABILITY_FIELDS})

    def memory_stats(self, device=0):
        """Memory statistics in bytes and counts: the fields the backend knows
        of allocated_bytes, peak_bytes, reserved_bytes, alloc_count,
        free_count. NotSupported when it keeps none."""
        return self._state.memory_stats(device)

    def reset_memory_stats(self, device=0):
        """Resets the peak and the counters."""
        self._state.reset_memory_stats(device)

    def mem_info(self, device=0):
        """``(free_bytes, total_bytes)`` of a device."""
        return self._state.mem_info(device)

    def synchronize(self, device=0):
        """Waits for all work on a device (the GIL is released meanwhile)."""
        self._state.synchronize(device)

    def wrap_module(self, obj, tag=None, device=0, compile=True, *, attrs=None,
                    format="torchscript", record_runs=False):
        """Wraps a module: tries the tiers of the policy for ``tag`` (default
        compile -> override -> eager) and keeps the first that works.

        ``obj``: a ``torch.jit.ScriptModule``, a scriptable ``torch.nn.Module``
        (scripted here), the path of a saved module, or its bytes.
        ``compile=False`` skips the compile tier (OMNIRT_WRAP_DISABLE_COMPILE).
        ``attrs`` go to a named op serving as the override tier (default: those
        given to ``register_override(tag, tag, ...)``). ``record_runs`` records
        every run in :meth:`report`: such a run returns once its work has
        completed (to time it), and the report grows with each.

        Returns an :class:`omnirt.Module`; its ``timeline`` lists every attempt.
        When every tier fails, raises the last failure's error, whose message
        lists every attempt."""
        data, path = module_source(obj)
        if attrs is None:
            attrs = self._op_attrs.get(tag, {})
        flags = 0 if compile else _omnirt.WRAP_DISABLE_COMPILE
        return _omnirt.wrap_module(self._state, self, data, path, format, tag, int(device), flags,
                                   dict(attrs), bool(record_runs))

    def op(self, name, *inputs, out=None, **attrs):
        """Runs named op ``name`` (the backend's kernel, else the base
        implementation) on tensors with ``__dlpack__``, without copying.

        ``out``: the output tensor (or a tuple of them), written in place and
        returned; without it, one output shaped and typed like input 0 is
        allocated on the backend and returned. ``attrs``: the op's scalar
        attributes (``eps=1e-6``, ``dim=-1``). The GIL is released while it runs."""
        return _omnirt.run_op(self._state, name, inputs, out, attrs)

    def implementer(self, op):
        """Which backend runs op ``op`` for this one: its own name, or the
        base's. NotSupported (naming backend and op) when none can."""
        return self._state.op_implementer(op)

    def register_override(self, tag, override, **attrs):
        """Makes ``override`` the override tier of modules wrapped with ``tag``.

        A callable is called, with the GIL, with the module's inputs (torch
        tensors when torch is used, else omnirt.Tensor; views of the caller's
        memory) and returns a tensor or a tuple of tensors with
        ``__dlpack__`` in this backend's memory, taken without copying. An
        exception it raises becomes the run's error (its ``__cause__``).

        A string names an op. The op named like the tag itself already serves
        as that tag's override tier wherever no callable is registered (the
        host runs it, no Python involved); registering it checks that this
        backend can run it and keeps ``attrs`` for its wraps. Another op name
        registers a callable running that op through :meth:`op`.

        Raises AlreadyExists when the tag has a callable already, NotSupported
        when no backend runs the named op."""
        if isinstance(override, str):
            self.implementer(override)
            if override == tag:
                if tag in self._overrides:
                    raise AlreadyExists(f"tag '{tag}' has a Python override already; "
                                        "unregister_override() it first", backend=self.name)
                self._op_attrs[tag] = dict(attrs)
                return
            override = _NamedOp(self, override, dict(attrs))
        elif attrs:
            raise InvalidArgument("attributes apply to a named-op override only", backend=self.name)
        self._state.register_override(tag, override)
        self._overrides[tag] = override

    def unregister_override(self, tag):
        """Removes what register_override() set for ``tag``; modules wrapped
        before keep theirs. NotFound when there is nothing."""
        had_attrs = self._op_attrs.pop(tag, None) is not None
        if tag in self._overrides or not had_attrs:
            self._state.unregister_override(tag)
            self._retired.append(self._overrides.pop(tag))

    def report(self):
        """The backend's run report as a :class:`Report` (a dict; ``.json()``
        for the text): every wrap_module on this backend with its timeline,
        the runs of modules wrapped with ``record_runs=True``, stages added
        with :meth:`add_stage`, memory statistics sampled now, and errors."""
        return Report(self._state.report_json())

    def add_stage(self, name, milliseconds):
        """Adds a stage the embedder timed (``"preprocess"``, 1.25) to the report."""
        self._state.add_stage(name, float(milliseconds))

    def collectives_library(self):
        """The backend's collective library and version (``"gloo 0.5.0
        (TCP)"``, ``"NCCL 2.21.5 (...)"``). Raises Unavailable or
        NotSupported with the backend's reason where it has none here."""
        return _omnirt.collectives_library(self._state)

    def comm(self, store, *, rank, nranks, device=0, key_prefix="", timeout=None):
        """Joins rank ``rank`` of ``nranks`` on ``device``, meeting the other
        ranks (processes, here or on hosts sharing the directory) through
        ``store`` (an :class:`omnirt.FileStore`) under ``key_prefix``. Returns
        once all arrived, as an :class:`omnirt.Communicator`.

        ``timeout``: seconds for the rendezvous and for every rank to join
        each later collective (None: 60). A rank that does not come makes the
        others raise Timeout naming it."""
        return _omnirt.comm_create(self._state, store, int(rank), int(nranks), int(device),
                                   str(key_prefix), _timeout_ms(timeout))

    def local_comms(self, devices):
        """One communicator per device of this process, rank i on
        ``devices[i]`` (the cpu backend's only device is 0: ``[0, 0]`` is two
        ranks). Drive them from separate threads, or from one inside
        :meth:`group`."""
        return _omnirt.comm_create_local(self._state, [int(d) for d in devices])

    @contextlib.contextmanager
    def group(self):
        """``with b.group():`` the collectives this thread issues inside run
        together when the block ends (omnirt_group_start/end): one thread
        driving several local communicators, or a send and a recv between
        the same two ranks. Groups nest. When the block raises, the group is
        still ended and the block's exception is what propagates."""
        _omnirt.group_start(self._state)
        try:
            yield
        except BaseException:
            with contextlib.suppress(Error):
                _omnirt.group_end(self._state)
            raise
        _omnirt.group_end(self._state)

    def __repr__(self):
        return f"omnirt.Backend('{self.name}')"


def _timeout_ms(timeout):
    """Seconds (None: the host's default) as the C API's milliseconds (0: default)."""
    if timeout is None:
        return 0
    ms = math.ceil(float(timeout) * 1000)
    if not 0 < ms < 2**32:
        raise InvalidArgument(f"timeout must be a number of seconds > 0 and below 2**32 ms, "
                              f"got {timeout!r}")
    return ms
