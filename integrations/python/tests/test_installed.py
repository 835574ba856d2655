"""The package as `cmake --install` lays it out (tests/install's install.tree
prefix): it imports from there alone, finds the installed libomnirt through
its RUNPATH and the installed plugins next to it."""
import json
import os
import subprocess
import sys

import pytest


def test_installed_package_runs_from_the_prefix(paths):
    package_dir = paths["installed_package_dir"]
    if not os.path.isdir(os.path.join(package_dir, "omnirt")):
        pytest.skip(f"no installed package in {package_dir} (run through ctest: install.tree)")
    # A clean environment: nothing from the build tree, no loader path.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": package_dir, "PYTHONNOUSERSITE": "1"}
    code = ("import json, omnirt\n"
            "rt = omnirt.Runtime(ignore_environment=True)\n"
            "print(json.dumps({'package': omnirt.__file__,\n"
            "                  'backends': [[b.name, b.path, b.available]\n"
            "                               for b in rt.backends()]}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    prefix = os.path.realpath(paths["installed_prefix"])
    assert os.path.realpath(facts["package"]).startswith(os.path.realpath(package_dir))
    backends = {name: (path, available) for name, path, available in facts["backends"]}
    assert "cpu" in backends and backends["cpu"][1]
    assert os.path.realpath(backends["cpu"][0]).startswith(prefix + os.sep)
