#!/usr/bin/env bash
# The README's main command: installs what is needed, builds OmniRT, installs
# it (prefix /usr/local: the host, plugins, tools and the Python package
# omnirt), lists the backends with omnirt-probe and from Python, and runs a
# real model (resnet18, random weights) on the cpu backend, printing latency
# and the run report with its timeline.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DOMNIRT_BUILD_TESTS=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF
cmake --build build/release -j"$(nproc)"

echo "== install into /usr/local (the Python package goes to Debian python3's dist-packages there)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo cmake --install build/release

echo "== the Python package, from a clean environment"
env -i PATH=/usr/bin:/bin /usr/bin/python3 -c '
import omnirt
for b in omnirt.Runtime().backends():
    state = "available, runs: " + (", ".join(b.module_formats) or "named ops only") if b.available \
        else "unavailable (omnirt-probe below says why)"
    print(f"{b.name:10} {state}")'

echo "== omnirt-probe"
build/release/bin/omnirt-probe || true   # exit 1 only means "no backend available"

echo "== omnirt-run resnet18 on cpu"
/usr/bin/python3 examples/models/make_models.py build/release/models
build/release/bin/omnirt-run build/release/models/resnet18.pt --backend cpu \
  --input 1x3x224x224:f32 --seed 0 --warmup 3 --iters 20
