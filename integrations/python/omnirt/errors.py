"""Exceptions of the omnirt package: one class per OmniRT status code.

Every failure of the host arrives as a subclass of :class:`Error` carrying
what ``omnirt_last_error()`` said: ``status`` (the number), ``status_name``
(``"NOT_SUPPORTED"``), ``message`` (the host's), ``backend`` (``""`` when the
host itself failed) and ``native_code`` (the vendor's, or 0). Where a
built-in exception means the same, the class also derives from it, so
``except ValueError`` catches :class:`InvalidArgument`.
"""

__all__ = [
    "Error", "InvalidArgument", "NotFound", "NotSupported", "Unavailable", "OutOfMemory",
    "Incompatible", "Internal", "NotReady", "AlreadyExists", "OutOfRange", "DeviceLost", "Timeout",
]


class Error(Exception):
    """A failed OmniRT call. Subclasses name the status."""

    #: The status code this class stands for (abi/include/omnirt/status.h).
    code = None
    #: Its name, as omnirt_status_name() gives it.
    name = None

    def __init__(self, message, *, status=None, backend="", native_code=0):
        super().__init__(message)
        self.message = message
        self.status = self.code if status is None else status
        self.backend = backend
        self.native_code = native_code

    @property
    def status_name(self):
        """``"NOT_SUPPORTED"`` and so on; ``"UNKNOWN"`` for a code this package does not know."""
        cls = _BY_STATUS.get(self.status)
        return cls.name if cls is not None else "UNKNOWN"

    def __str__(self):
        where = f" (backend '{self.backend}')" if self.backend else ""
        native = f" [native code {self.native_code}]" if self.native_code else ""
        return f"{self.status_name}{where}: {self.message}{native}"


class InvalidArgument(Error, ValueError):
    """An argument is wrong (bad tensor, dtype, shape, device, option)."""
    code, name = 1, "INVALID_ARGUMENT"


class NotFound(Error, LookupError):
    """A named thing (backend, op, tag, device, file) does not exist."""
    code, name = 2, "NOT_FOUND"


class NotSupported(Error, NotImplementedError):
    """The backend does not implement this; its capability bit is clear."""
    code, name = 3, "NOT_SUPPORTED"


class Unavailable(Error):
    """The backend exists but cannot run here (no driver, no device, no SDK)."""
    code, name = 4, "UNAVAILABLE"


class OutOfMemory(Error, MemoryError):
    """A device or host allocation failed."""
    code, name = 5, "OUT_OF_MEMORY"


class Incompatible(Error):
    """Versions or struct layouts do not match (a plugin of another ABI major)."""
    code, name = 6, "INCOMPATIBLE"


class Internal(Error):
    """A bug or an unexpected failure (an exception caught at the ABI, say)."""
    code, name = 7, "INTERNAL"


class NotReady(Error):
    """Asynchronous work has not finished yet."""
    code, name = 8, "NOT_READY"


class AlreadyExists(Error):
    """The thing to create already exists (an override for that tag)."""
    code, name = 9, "ALREADY_EXISTS"


class OutOfRange(Error, IndexError):
    """A value is outside its valid range (device index, too many outputs)."""
    code, name = 10, "OUT_OF_RANGE"


class DeviceLost(Error):
    """The device failed or was lost; its state is undefined."""
    code, name = 11, "DEVICE_LOST"


class Timeout(Error, TimeoutError):
    """A wait ran past its time limit (a collective whose peers did not all arrive)."""
    code, name = 12, "TIMEOUT"


_BY_STATUS = {cls.code: cls for cls in (
    InvalidArgument, NotFound, NotSupported, Unavailable, OutOfMemory, Incompatible, Internal,
    NotReady, AlreadyExists, OutOfRange, DeviceLost, Timeout)}


def error_class(status):
    """The Error subclass of a status code; Internal for codes this package
    does not know (status.h: treat them like INTERNAL)."""
    return _BY_STATUS.get(status, Internal)


def _from_native(status, message, backend, native_code):
    """The exception for a failure reported by the host (called by _omnirt)."""
    return error_class(status)(message, status=status, backend=backend, native_code=native_code)
