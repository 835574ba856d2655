#!/usr/bin/env bash
# Runs every test: a normal build with all tests; the host, plugins and tools
# again under AddressSanitizer + UndefinedBehaviorSanitizer; the host, cpu and
# wrap tests under ThreadSanitizer; and the fuzz targets for a bounded time.
# Every test run must leave its temp directory empty. This is the README's
# test command and what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh

jobs=$(nproc)

# Line tables only (-g1) in every build: backtraces and sanitizer reports keep
# their file:line, and a translation unit compiles 25-47% faster than with
# full -g (the builds are most of this script's time).
line_tables=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
             -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1)

# ctest in build dir $1 (further arguments go to ctest) with a TMPDIR of its
# own, which must be empty afterwards (tests clean up what they create), and
# a plugin vetting cache of the build's own, not the user's (docs/vetting.md).
checked_ctest() {
  local build=$1
  shift
  local tmp left status=0
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/omnirt-tests.XXXXXX")
  TMPDIR="$tmp" XDG_CACHE_HOME="$PWD/$build/xdg-cache" \
    ctest --test-dir "$build" --output-on-failure -j"$jobs" "$@" || status=$?
  left=$(find "$tmp" -mindepth 1 -maxdepth 1 -printf '  %f\n' | head -20)
  rm -rf "$tmp"
  if [ -n "$left" ]; then
    printf 'tests in %s left files in their temp directory:\n%s\n' "$build" "$left" >&2
    status=1
  fi
  return "$status"
}

cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}"
cmake --build build/ci -j"$jobs"
checked_ctest build/ci

# libtorch is not instrumented, so the sanitizer builds leave the Torch engines
# out; everything the host and the plugins do themselves is covered. The cuda
# plugin's kernels never run here (no GPU): one architecture of them will do.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug "${line_tables[@]}" -DOMNIRT_SANITIZE=ON \
  -DOMNIRT_BUILD_TORCH_ENGINES=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF -DOMNIRT_BUILD_EXAMPLES=OFF \
  -DOMNIRT_CUDA_ARCHITECTURES=90
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  checked_ctest build/asan

# ThreadSanitizer on the code with threads of its own: the host (vetting
# children waited for together, hosts made concurrently, the routed calls and
# their thread-local errors), the cpu backend (streams, events, its pool) and
# wrap_module. Only the targets those tests need are built: no Torch engines
# (as above: uninstrumented libtorch thread pools would be reported falsely),
# no cuda/vendor plugins, which these tests do not load.
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}" \
  -DOMNIRT_SANITIZE_THREAD=ON \
  -DOMNIRT_BUILD_TORCH_ENGINES=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF -DOMNIRT_BUILD_EXAMPLES=OFF \
  -DOMNIRT_BUILD_BACKEND_CUDA=OFF -DOMNIRT_BUILD_BACKEND_ASCEND=OFF -DOMNIRT_BUILD_BACKEND_CAMBRICON=OFF
cmake --build build/tsan -j"$jobs" --target omnirt_host_tests omnirt_core_tests omnirt_cpu_tests \
  omnirt_cpu_host_tests wrap_fake_tests wrap_ops_tests wrap_run_support_tests wrap_cpu_tests \
  wrap_no_torch_at_discovery
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
checked_ctest build/tsan -R '^(host|core|cpu)\.'
checked_ctest build/tsan -L wrap
unset TSAN_OPTIONS

# libFuzzer (clang 14, with ASan + UBSan) on the configuration reader, the .npy
# reader and the host's reading of plugin text: 20 s each from the seed corpus
# kept in tests/fuzz/corpus.
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}" \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DOMNIRT_BUILD_FUZZERS=ON \
  -DOMNIRT_BUILD_TORCH_ENGINES=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF -DOMNIRT_BUILD_EXAMPLES=OFF \
  -DOMNIRT_BUILD_BACKEND_CUDA=OFF
cmake --build build/fuzz -j"$jobs" --target fuzz_config fuzz_npy fuzz_plugin_text
tests/fuzz/run_fuzzers.sh build/fuzz 20
