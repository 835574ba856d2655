#!/usr/bin/env bash
# Runs every test: a normal build with all tests, then the host, plugins and
# tools again under AddressSanitizer + UndefinedBehaviorSanitizer. This is the
# README's test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh

jobs=$(nproc)
cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/ci -j"$jobs"
ctest --test-dir build/ci --output-on-failure -j"$jobs"

# libtorch is not instrumented, so the sanitizer build leaves the Torch engines
# out; everything the host and the plugins do themselves is covered.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOMNIRT_SANITIZE=ON \
  -DOMNIRT_BUILD_TORCH_ENGINES=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF -DOMNIRT_BUILD_EXAMPLES=OFF
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"
