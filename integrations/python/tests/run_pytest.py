"""Runs pytest on the given files for CTest; exits 77 (CTest: skipped),
saying why, where this interpreter has no pytest (Debian: python3-pytest)."""
import os
import shutil
import sys
import tempfile

try:
    import pytest
except ImportError as e:
    print(f"skipped: pytest is not available to {sys.executable}: {e}")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
# -p no:cacheprovider: nothing is written into the source tree. --basetemp: the
# tests' tmp_path directories go into a directory of this run's own, removed
# afterwards (pytest would keep $TMPDIR/pytest-of-<user>/ behind).
basetemp = tempfile.mkdtemp(prefix="omnirt-pytest-")
try:
    status = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", "--rootdir", here,
                          "--basetemp", basetemp, *sys.argv[1:]])
finally:
    shutil.rmtree(basetemp, ignore_errors=True)
sys.exit(status)
