"""The package as built: what the extension links, what `import omnirt`
loads, and omnirt.Tensor's surface."""
import json
import os
import re
import subprocess
import sys

import pytest

import omnirt

# What any C++ extension needs from the system, besides libomnirt.
SYSTEM_LIBRARIES = {"libstdc++.so.6", "libgcc_s.so.1", "libc.so.6", "libm.so.6",
                    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def test_extension_links_only_libomnirt(paths):
    if not paths["readelf"]:
        pytest.skip("no readelf")
    dynamic = subprocess.run([paths["readelf"], "-d", "-W", paths["extension"]],
                             capture_output=True, text=True, check=True, timeout=60).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    assert "libomnirt.so.1" in needed
    assert needed - {"libomnirt.so.1"} <= SYSTEM_LIBRARIES, needed
    assert not any("python" in n or "torch" in n for n in needed)
    runpath = re.search(r"\(RUNPATH\)\s+Library runpath: \[([^\]]*)\]", dynamic).group(1)
    assert runpath.startswith("$ORIGIN/")


def test_import_and_runtime_load_no_torch():
    """``import omnirt`` + ``Runtime()`` over every in-tree plugin: torch and
    numpy are not imported and no libtorch is mapped (the time is the
    benchmark's to judge: bench/bench_overhead.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "bench", "import_cost.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert "cpu" in facts["backends"]
    assert not facts["torch_imported"] and not facts["numpy_imported"]
    assert facts["libtorch_mapped"] == []


def test_torch_is_imported_only_for_outputs(np):
    code = ("import sys, numpy as np, omnirt\n"
            "rt = omnirt.Runtime(ignore_environment=True, outputs='dlpack')\n"
            "t = rt.backend('cpu').op('softmax', np.zeros(4, dtype=np.float32))\n"
            "print(type(t).__name__, 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Tensor", "False"]


@pytest.fixture
def dlpack_rt():
    with omnirt.Runtime(ignore_environment=True, outputs="dlpack") as rt:
        yield rt


def test_tensor_surface(dlpack_rt, np):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = dlpack_rt.backend("cpu").op("softmax", x)
    assert isinstance(t, omnirt.Tensor)
    assert (t.shape, t.strides, t.ndim, t.dtype, t.device, t.nbytes) == (
        (2, 3), (3, 1), 2, "float32", "cpu:0", 24)
    assert t.__dlpack_device__() == (1, 0)
    assert repr(t) == "omnirt.Tensor(shape=(2, 3), dtype=float32, device=cpu:0)"
    first, second = np.from_dlpack(t), np.from_dlpack(t)  # each export is its own capsule
    addresses = {a.__array_interface__["data"][0] for a in (first, second)}
    assert addresses == {t.data_ptr}
    assert np.allclose(first.sum(axis=1), 1.0)
    with pytest.raises(BufferError, match="copy=True"):
        t.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="another device"):
        t.__dlpack__(dl_device=(2, 0))
    capsule = t.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert type(capsule).__name__ == "PyCapsule"


def test_tensor_as_input(dlpack_rt, np):
    b = dlpack_rt.backend("cpu")
    t = b.op("softmax", np.zeros((2, 2), dtype=np.float32))
    again = b.op("softmax", t, out=t)  # an omnirt.Tensor in, in place
    assert again is t and np.allclose(np.from_dlpack(t), 0.5)


def test_output_kinds(np):
    x = np.zeros(4, dtype=np.float32)
    with omnirt.Runtime(ignore_environment=True, outputs="numpy") as rt:
        out = rt.backend("cpu").op("softmax", x)
        assert isinstance(out, np.ndarray) and np.allclose(out, 0.25)
    torch = pytest.importorskip("torch")
    for kind in ("torch", "auto"):
        with omnirt.Runtime(ignore_environment=True, outputs=kind) as rt:
            assert isinstance(rt.backend("cpu").op("softmax", x), torch.Tensor)
