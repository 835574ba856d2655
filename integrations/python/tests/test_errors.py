"""One exception class per status of abi/include/omnirt/status.h, carrying
what omnirt_last_error() said."""
import os
import re

import pytest

import omnirt
from omnirt import _omnirt, errors


def status_codes(paths):
    header = os.path.join(paths["source_dir"], "abi", "include", "omnirt", "status.h")
    with open(header) as f:
        return {name: int(value) for name, value in
                re.findall(r"OMNIRT_STATUS_([A-Z_]+)\s*=\s*(\d+)", f.read())}


def test_every_status_has_its_class(paths):
    codes = status_codes(paths)
    assert len(codes) >= 13
    for name, code in codes.items():
        assert _omnirt.status_name(code) == name
        if code == 0:
            continue
        cls = errors.error_class(code)
        assert issubclass(cls, omnirt.Error) and cls is not omnirt.Error
        assert (cls.code, cls.name) == (code, name)
        camel = "".join(part.capitalize() for part in name.split("_"))
        assert getattr(omnirt, camel) is cls


def test_builtin_bases():
    assert issubclass(omnirt.InvalidArgument, ValueError)
    assert issubclass(omnirt.NotFound, LookupError)
    assert issubclass(omnirt.NotSupported, NotImplementedError)
    assert issubclass(omnirt.OutOfMemory, MemoryError)
    assert issubclass(omnirt.OutOfRange, IndexError)
    assert issubclass(omnirt.Timeout, TimeoutError)


def test_unknown_status_reads_as_internal():
    e = errors._from_native(99, "from the future", "cpu", 5)
    assert type(e) is omnirt.Internal and e.status == 99 and e.status_name == "UNKNOWN"
    assert str(e) == "UNKNOWN (backend 'cpu'): from the future [native code 5]"


def test_error_from_the_host_carries_its_detail():
    rt = omnirt.Runtime(ignore_environment=True)
    with pytest.raises(omnirt.Error) as caught:
        rt.backend("cpu").mem_info(device=3)
    e = caught.value
    assert isinstance(e, omnirt.OutOfRange)
    assert e.status == 10 and e.status_name == "OUT_OF_RANGE"
    assert "device" in e.message and e.native_code == 0
    assert str(e).startswith("OUT_OF_RANGE")
