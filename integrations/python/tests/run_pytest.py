"""Runs pytest on the given files for CTest; exits 77 (CTest: skipped),
saying why, where this interpreter has no pytest (Debian: python3-pytest)."""
import os
import sys

try:
    import pytest
except ImportError as e:
    print(f"skipped: pytest is not available to {sys.executable}: {e}")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
# -p no:cacheprovider: nothing is written into the source tree.
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", "--rootdir", here, *sys.argv[1:]]))
