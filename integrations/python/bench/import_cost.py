#!/usr/bin/python3
"""Prints, as JSON, what `import omnirt` + `Runtime()` over every in-tree
plugin costs this fresh interpreter: elapsed_ms, the backends, and whether
torch or numpy got imported or libtorch mapped (none may be). Run by
bench_overhead.py and by tests/test_package.py."""
import json
import sys
import time

start = time.perf_counter()
import omnirt  # noqa: E402 (timed)

backends = [b.name for b in omnirt.Runtime().backends()]
elapsed_ms = (time.perf_counter() - start) * 1e3
with open("/proc/self/maps") as f:
    mapped = sorted({line.split()[-1] for line in f if "libtorch" in line or "libc10" in line})
print(json.dumps({"elapsed_ms": elapsed_ms, "backends": backends,
                  "torch_imported": "torch" in sys.modules,
                  "numpy_imported": "numpy" in sys.modules, "libtorch_mapped": mapped}))
