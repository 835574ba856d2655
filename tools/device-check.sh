#!/usr/bin/env bash
# Builds the host and the cuda backend on a GPU machine against PyTorch's
# libtorch, then runs the cuda tests and benchmarks (docs/cuda.md).
#
#   tools/device-check.sh [STEP ...]     (default: all = build test bench)
#
# Steps, run in the order given:
#   build    configure and build (log: build.log)
#   test     ctest -L cuda and omnirt-probe (ctest.log, probe.txt)
#   bench    the allocator, copy and module benchmarks (bench_*.txt)
#   kernels  the named-op kernels against ATen: their GPU tests, then
#            cuda_kernel_bench (kernels.txt), then its --sweep of candidate
#            row kernels (sweep.txt; summary also in device-check.log)
#   aoti     AOTInductor packages: exports the test package, runs the AOTI and
#            engine GPU tests and omnirt-run on it (aoti.txt), then the goal
#            benchmark against torch.compile and cuda_aoti_bench (aoti_goal.txt)
#   timing   (after build) omnirt-run's resnet50 and MLP figures on the cuda
#            backend against PyTorch's own synchronized measurement
#            (tools/gpu/check_run_timing.py), into device-check.log
#   python   builds the Python package omnirt for this machine's python3
#            (PyTorch's) in the same build directory and runs its pytest
#            suite, cuda tests included (`pytest -m cuda` selects those), and
#            its overhead benchmark on the cpu and the cuda backend: logs
#            python.log, bench_python.txt. Run it as a call of its own: its
#            logs beside the others would pass $OUT's 8 files.
#
# Environment:
#   OUT    where logs go (default: build-device/out); at most 8 files
#   BUILD  build directory (default: /tmp/omnirt-device-build); kept by a
#          warm machine, so the build step first touches every source whose
#          content differs from what its last successful build there saw
#   DEPS   Debian libraries extracted with dpkg -x (default: .deps/root), for
#          machines without them installed: yaml-cpp, spdlog, fmt, GoogleTest,
#          Google Benchmark, DLPack, nlohmann-json, CLI11
#   JOBS   build parallelism (default: nproc)
#
# Where the whole tree does not configure, or does not include the cuda tests
# or benchmarks (work in progress elsewhere), those are built as a project of
# their own so that the cuda check still runs; the log says so.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$ROOT/build-device/out}
BUILD=${BUILD:-/tmp/omnirt-device-build}
DEPS=${DEPS:-$ROOT/.deps/root}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT" "$BUILD"
LOG=$OUT/device-check.log

say() { echo "== $*" | tee -a "$LOG"; }
# run <log name> <timeout s> <command...>: appends the command's output to $OUT/<log name>.
run() {
  local name=$1 limit=$2
  shift 2
  say "$* (log: $name)"
  timeout "$limit" "$@" >>"$OUT/$name" 2>&1
  local rc=$?
  say "exit $rc"
  return $rc
}

setup() {
  export PATH=/usr/local/cuda/bin:$PATH
  TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  export LD_LIBRARY_PATH=$DEPS/usr/lib/x86_64-linux-gnu:$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # DLPack alone on the include path: DEPS' include dir also holds fmt 9, which
  # must not shadow libtorch's own fmt in the engine's translation units.
  mkdir -p "$BUILD/dlpack-include"
  [ -d "$DEPS/usr/include/dlpack" ] && cp -r "$DEPS/usr/include/dlpack" "$BUILD/dlpack-include/"
  CMAKE_ARGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=$TORCH_PREFIX;$DEPS/usr"
    "-DCMAKE_C_FLAGS=-isystem $BUILD/dlpack-include" "-DCMAKE_CXX_FLAGS=-isystem $BUILD/dlpack-include"
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCUDAToolkit_ROOT=/usr/local/cuda
    -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_CUDA_ARCH_LIST=9.0 -DOMNIRT_CUDA_ARCHITECTURES=90
    -DOMNIRT_BUILD_BACKEND_ASCEND=OFF -DOMNIRT_BUILD_BACKEND_CAMBRICON=OFF)
}

# The cuda backend, its tests and benchmarks without the rest of the tree.
write_cuda_only_project() {
  mkdir -p "$BUILD/cuda-only-src"
  cat >"$BUILD/cuda-only-src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(omnirt VERSION 0.1.0 LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
include(GNUInstallDirs)
set(PROJECT_SOURCE_DIR "$ROOT")
set(OMNIRT_PLUGIN_INSTALL_DIR "\${CMAKE_INSTALL_LIBDIR}/omnirt/plugins")
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY "\${PROJECT_BINARY_DIR}/\${CMAKE_INSTALL_LIBDIR}")
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "\${PROJECT_BINARY_DIR}/\${CMAKE_INSTALL_BINDIR}")
set(OMNIRT_PLUGIN_OUTPUT_DIR "\${PROJECT_BINARY_DIR}/\${OMNIRT_PLUGIN_INSTALL_DIR}")
option(OMNIRT_BUILD_TORCH_ENGINES "" ON)
list(APPEND CMAKE_MODULE_PATH "$ROOT/cmake")
include(OmniRTBackend)
include(OmniRTWarnings)
find_package(CUDAToolkit REQUIRED)
enable_testing()
find_package(GTest REQUIRED)
include(GoogleTest)
add_subdirectory("$ROOT/abi" abi)
add_subdirectory("$ROOT/core" core)  # the host, for the host-API tests and benchmarks
add_subdirectory("$ROOT/plugins/cuda" plugins/cuda)
add_subdirectory("$ROOT/tests/collectives" tests/collectives)  # the cases cuda_collectives_test runs
add_subdirectory("$ROOT/tests/cuda" tests/cuda)
add_subdirectory("$ROOT/bench/cuda" bench/cuda)
EOF
}

# The device tool copies the working tree with its files' own times, and a
# machine kept warm keeps $BUILD: a source whose content differs from the one
# the outputs were built from can then be older than them, and ninja would
# rebuild nothing (measured once: a bench of the previous call's kernels).
# Sums of the sources the last successful build saw are kept in $BUILD;
# every file whose content differs from them is touched, and every file when
# there are none (a build that failed, or one from before this record).
SOURCE_SUMS=$BUILD/source-sums
source_sums() {
  (cd "$ROOT" && find . \( -path ./.git -o -path ./.deps -o -path './build*' \) -prune -o -type f -print0 |
    xargs -0 -r sha1sum | LC_ALL=C sort)
}
touch_changed_sources() {
  source_sums >"$SOURCE_SUMS.new"
  if [ -f "$SOURCE_SUMS" ]; then
    LC_ALL=C comm -13 "$SOURCE_SUMS" "$SOURCE_SUMS.new" | cut -c43-
  else
    cut -c43- "$SOURCE_SUMS.new"
  fi | (cd "$ROOT" && xargs -r -d '\n' touch --)
}

build() {
  touch_changed_sources
  if build_targets; then
    mv "$SOURCE_SUMS.new" "$SOURCE_SUMS"
  else
    rm -f "$SOURCE_SUMS" "$SOURCE_SUMS.new"
    return 1
  fi
}

build_targets() {
  setup
  say "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores)"
  say "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
  say "torch: $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>&1)"
  local host=(omnirt omnirt-probe omnirt-run omnirt_backend_cpu)
  local cuda=(omnirt_backend_cuda omnirt_cuda_engine cuda_caching_allocator_test cuda_launch_plan_test
    cuda_plugin_test cuda_multi_device_test cuda_host_test cuda_torch_test cuda_aoti_test cuda_engine_memory_test
    cuda_multi_device_torch_test cuda_collectives_test cuda_allocator_core_bench cuda_alloc_bench
    cuda_memcpy_bench cuda_module_bench cuda_kernel_bench cuda_aoti_bench nccl_allreduce_bench)
  local dirs=()
  if run build.log 300 cmake -S "$ROOT" -B "$BUILD/full" "${CMAKE_ARGS[@]}"; then
    dirs+=(full)
    ninja -C "$BUILD/full" -t query cuda_alloc_bench >/dev/null 2>&1 || {
      say "the tree does not build the cuda benchmarks; building the cuda backend on its own too"
      dirs+=(cuda-only)
    }
  else
    say "the whole tree does not configure here; building the cuda backend on its own"
    dirs+=(cuda-only)
  fi
  if [[ " ${dirs[*]} " == *" cuda-only "* ]]; then
    write_cuda_only_project
    run build.log 300 cmake -S "$BUILD/cuda-only-src" -B "$BUILD/cuda-only" "${CMAKE_ARGS[@]}" || return 1
  fi
  for dir in "${dirs[@]}"; do
    local present=()
    for t in "${host[@]}" "${cuda[@]}"; do
      ninja -C "$BUILD/$dir" -t query "$t" >/dev/null 2>&1 && present+=("$t")
    done
    say "$dir targets: ${present[*]}"
    # -k 0: a target of another folder that fails must not hide the cuda results.
    run build.log 420 ninja -C "$BUILD/$dir" -j "$JOBS" -k 0 "${present[@]}"
  done
}

# The build dir that has `file` (relative), the whole tree's first.
built() {
  for dir in full cuda-only; do
    [ -e "$BUILD/$dir/$1" ] && { echo "$BUILD/$dir"; return 0; }
  done
  return 1
}

test_cuda() {
  setup
  local dir
  dir=$(built bin/cuda_plugin_test) || { say "the cuda tests were not built"; return 1; }
  run ctest.log 300 ctest --test-dir "$dir" -L cuda --output-on-failure --timeout 120
  grep -E "tests passed|tests failed|Skipped|Failed|\*\*\*" "$OUT/ctest.log" | tail -n 40 | tee -a "$LOG"
  if dir=$(built bin/omnirt-probe); then
    run probe.txt 60 "$dir/bin/omnirt-probe" --verbose
  else
    say "omnirt-probe was not built"
  fi
}

bench() {
  setup
  local dir
  for b in allocator_core alloc memcpy module; do
    if dir=$(built "bin/cuda_${b}_bench"); then
      # Both allocator benchmarks share a log: OUT holds at most 8 files.
      run "bench_${b/allocator_core/alloc}.txt" 200 "$dir/bin/cuda_${b}_bench" --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true --benchmark_counters_tabular=true
    else
      say "cuda_${b}_bench was not built"
    fi
  done
  # all_reduce through OmniRT vs. NCCL itself, over every GPU (one rank on one),
  # from one process; then, with several GPUs, from a process per GPU.
  if dir=$(built bin/nccl_allreduce_bench); then
    run bench_nccl_allreduce.txt 300 "$dir/bin/nccl_allreduce_bench"
    local gpus
    gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
    if [ "$gpus" -ge 2 ]; then
      run bench_nccl_allreduce.txt 300 "$dir/bin/nccl_allreduce_bench" --processes 1 --ranks "$gpus"
    fi
  else
    say "nccl_allreduce_bench was not built"
  fi
}

# The named-op kernels: correct against ATen on every case first, then timed.
kernels() {
  setup
  local dir
  dir=$(built bin/cuda_kernel_bench) || { say "cuda_kernel_bench was not built"; return 1; }
  run kernels.txt 300 ctest --test-dir "$dir" --output-on-failure --timeout 250 \
    -R 'LaunchPlan|CudaTorchTest\.(Kernels|OpsReject|EveryBenchmarkCase)'
  grep -E "tests passed|tests failed" "$OUT/kernels.txt" | tail -n 1 | tee -a "$LOG"
  run kernels.txt 300 "$dir/bin/cuda_kernel_bench"
  grep -E "^# " "$OUT/kernels.txt" | tail -n 1 | tee -a "$LOG"
  # Candidate configurations, access policies and grids of the row kernels,
  # each checked against ATen, timed side by side (bench/cuda/kernel_sweep.h).
  run sweep.txt 480 "$dir/bin/cuda_kernel_bench" --sweep
  sed -n '/^# summary/,$p' "$OUT/sweep.txt" | tee -a "$LOG"
}

# AOTInductor packages: exported here (Inductor compiles: minutes), then
# tested, run through omnirt-run, and benchmarked against torch.compile.
aoti() {
  setup
  local dir work=$BUILD/aoti
  dir=$(built bin/cuda_aoti_test) || { say "cuda_aoti_test was not built"; return 1; }
  mkdir -p "$work"
  export AOTI_RUNTIME_CHECK_INPUTS=1 OMNIRT_TEST_AOTI_DIR=$work
  say "torch: $(python3 -c 'import torch; print(torch.__version__)' 2>&1); AOTInductor packages in $work"
  run aoti.txt 300 python3 "$ROOT/examples/models/export_aoti.py" "$work" mlp || return 1
  run aoti.txt 300 ctest --test-dir "$dir" --output-on-failure --timeout 250 \
    -R 'AotiTest|CudaEngineTest|CudaTorchTest\.ACaptureThatFails|CudaPluginTest\.Capabilities'
  grep -E "tests passed|tests failed" "$OUT/aoti.txt" | tail -n 1 | tee -a "$LOG"
  # omnirt-run takes the package (format from its entries): both tiers.
  local plugins=$dir/lib/omnirt/plugins
  run aoti.txt 120 "$dir/bin/omnirt-run" "$work/mlp.pt2" --backend cuda --plugin-dir "$plugins" \
    --input 8x256:f32 --warmup 5 --iters 50
  run aoti.txt 120 "$dir/bin/omnirt-run" "$work/mlp.pt2" --backend cuda --plugin-dir "$plugins" \
    --input 8x256:f32 --warmup 5 --iters 50 --no-compile
  # A TorchScript module no CUDA graph can hold: the report's notes say so.
  # (TorchScript defined from a string: `python3 -c` code has no source file to script.)
  python3 -c 'import sys, torch
sync = torch.jit.ScriptModule()
sync.define("def forward(self, x):\n    return x * float(x.sum())\n")
sync.save(sys.argv[1])' "$work/sync.pt" >>"$OUT/aoti.txt" 2>&1
  run aoti.txt 120 "$dir/bin/omnirt-run" "$work/sync.pt" --backend cuda --plugin-dir "$plugins" \
    --input 4x8:f32 --warmup 1 --iters 3
  run aoti_goal.txt 600 python3 "$ROOT/bench/cuda/aoti_goal.py" --omnirt "$dir/lib/libomnirt.so" \
    --plugin "$plugins/libomnirt_backend_cuda.so" --work "$work" --rounds 100
  grep -E "goal|MISMATCH|CRASHED|^# " "$OUT/aoti_goal.txt" | tee -a "$LOG"
  if [ -x "$dir/bin/cuda_aoti_bench" ]; then
    # Only the packages the goal benchmark exported (an export may have failed).
    local packages=()
    for p in resnet50_b8.pt2:8x3x224x224 transformer6.pt2:1x128x1024; do
      if [ -e "$work/${p%%:*}" ]; then
        packages+=("$work/$p")
      else
        say "cuda_aoti_bench: $work/${p%%:*} was not exported; skipped"
      fi
    done
    [ ${#packages[@]} -gt 0 ] && run aoti_goal.txt 300 "$dir/bin/cuda_aoti_bench" "${packages[@]}"
    grep -E "OmniRT over" "$OUT/aoti_goal.txt" | tee -a "$LOG"
  else
    say "cuda_aoti_bench was not built (needs PyTorch >= 2.7 with AOTInductor)"
  fi
}

# omnirt-run measures completed work: its medians for resnet50 and an MLP,
# each tier, next to PyTorch's synchronized ones; exit 1 unless they agree
# within 5%. Logged to device-check.log ($OUT holds at most 8 files).
timing() {
  setup
  local dir
  dir=$(built bin/omnirt-run) || { say "omnirt-run was not built (run the build step first)"; return 1; }
  local plugin
  plugin=$(find "$dir" -path '*/omnirt/plugins/libomnirt_backend_cuda.so' | head -n 1)
  [ -n "$plugin" ] && [ -e "$(dirname "$plugin")/libomnirt_cuda_engine.so" ] ||
    { say "the cuda plugin or its engine was not built"; return 1; }
  run device-check.log 600 python3 "$ROOT/tools/gpu/check_run_timing.py" --omnirt-run "$dir/bin/omnirt-run" \
    --plugin "$plugin" --work "$BUILD/timing-models"
}

# The Python package for this machine's python3: configured into the same
# tree (pybind11 from pip), built with the backends it runs on, tested
# (cpu and cuda), then benchmarked on both.
python_check() {
  setup
  local py pybind11_dir
  py=$(command -v python3)
  say "python: $py $("$py" -c 'import sys, torch, numpy; print(sys.version.split()[0], "torch", torch.__version__, "numpy", numpy.__version__)' 2>&1)"
  say "Python.h: $("$py" -c 'import os, sysconfig; h = os.path.join(sysconfig.get_paths()["include"], "Python.h"); print(h, os.path.exists(h))')"
  pybind11_dir=$("$py" -m pybind11 --cmakedir 2>/dev/null) || say "pybind11 is not importable by $py"
  run python.log 300 cmake -S "$ROOT" -B "$BUILD/full" "${CMAKE_ARGS[@]}" "-DPython3_EXECUTABLE=$py" \
    ${pybind11_dir:+"-Dpybind11_DIR=$pybind11_dir"} || return 1
  grep -m1 "python package omnirt" "$OUT/python.log" | tee -a "$LOG"
  local targets=()
  for t in omnirt_python omnirt_backend_cpu omnirt_cpu_engine omnirt_backend_cuda omnirt_cuda_engine \
           omnirt_backend_fake_noentry omnirt_backend_fake_abinew omnirt_backend_fake_createfail \
           omnirt_backend_fake_throwentry omnirt-probe; do
    ninja -C "$BUILD/full" -t query "$t" >/dev/null 2>&1 && targets+=("$t")
  done
  [[ " ${targets[*]} " == *" omnirt_python "* ]] || { say "the Python package is not built here"; return 1; }
  run python.log 420 ninja -C "$BUILD/full" -j "$JOBS" "${targets[@]}" || return 1
  export PYTHONPATH=$BUILD/full/python PYTHONDONTWRITEBYTECODE=1 \
    OMNIRT_PYTHON_TEST_PATHS=$BUILD/full/integrations/python/tests/paths.json
  local tests=$ROOT/integrations/python/tests
  run python.log 600 "$py" -m pytest -q -rs -p no:cacheprovider --rootdir "$tests" -m cuda "$tests"
  grep -E "passed|failed|error" "$OUT/python.log" | tail -n 1 | tee -a "$LOG"
  run python.log 600 "$py" -m pytest -q -rs -p no:cacheprovider --rootdir "$tests" -m "not cuda" "$tests"
  grep -E "passed|failed|error" "$OUT/python.log" | tail -n 1 | tee -a "$LOG"
  run bench_python.txt 300 "$py" "$ROOT/integrations/python/bench/bench_overhead.py" --device cpu
  run bench_python.txt 300 "$py" "$ROOT/integrations/python/bench/bench_overhead.py" --device cuda
  cat "$OUT/bench_python.txt" >>"$LOG"
}

status=0
for step in "${@:-all}"; do
  case "$step" in
    build) build || status=1 ;;
    test) test_cuda || status=1 ;;
    bench) bench || status=1 ;;
    kernels) kernels || status=1 ;;
    aoti) aoti || status=1 ;;
    timing) timing || status=1 ;;
    python) python_check || status=1 ;;
    all) { build && test_cuda; } || status=1; bench || status=1 ;;
    *) echo "usage: $0 [all|build|test|bench|kernels|aoti|timing|python ...]" >&2; exit 2 ;;
  esac
done
exit $status
