"""Plain records of what the host reports (attribute access, equality, repr
and ``as_dict()``), with no imports, so that ``import omnirt`` stays fast."""


class Record:
    """Fields given as keyword arguments, in order."""

    __slots__ = ("_fields",)

    def __init__(self, **fields):
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, name):
        if name == "_fields":  # not set yet (copy, unpickling)
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other):
        return type(other) is type(self) and other._fields == self._fields

    __hash__ = None

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({fields})"

    def as_dict(self):
        """The fields as a dict (nested records as dicts too)."""
        def plain(value):
            if isinstance(value, Record):
                return value.as_dict()
            if isinstance(value, list):
                return [plain(v) for v in value]
            return value
        return {k: plain(v) for k, v in self._fields.items()}


class BackendInfo(Record):
    """A loaded backend as omnirt-probe shows it: name, plugin_version,
    abi_version, path, priority, available, reason (why not available),
    vendor, device_type, dl_device_type, device_count, features, dtypes,
    module_formats, op_sets [(name, version)], overridden_ops, devices
    [DeviceInfo] (available backends only) and errors (questions it failed
    to answer)."""
    __slots__ = ()


class DeviceInfo(Record):
    """One device: index, name, arch, compute_units, total_memory_bytes,
    free_memory_bytes (None where the backend has no mem_info)."""
    __slots__ = ()


class Candidate(Record):
    """A candidate plugin file: path, real_path, source (api, environment,
    config, installed), stage reached (found, dlopen, entry_symbol,
    negotiate, validate, available), loaded, status, reason, backend_name,
    abi_version and load_time_ms."""
    __slots__ = ()


class SearchDir(Record):
    """One entry of the plugin search path: path, source, searched, note."""
    __slots__ = ()


class Capabilities(Record):
    """What a backend can do: vendor, device_type, dl_device_type,
    device_count, features, dtypes, module_formats, op_sets,
    overridden_ops."""
    __slots__ = ()


class Attempt(Record):
    """One attempt of wrap_module's fallback chain, as the run report has it:
    tier (compile, override, eager), ok, selected, status, reason,
    elapsed_ms."""
    __slots__ = ()
