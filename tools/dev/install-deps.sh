#!/usr/bin/env bash
# Installs the Debian 12 packages OmniRT builds and tests with. Does nothing
# when they are all present, so it is cheap to call before every build.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config file
  # the Triton server in ../shared/triton (integrations/triton/tests) and its test's pytest
  libb64-0d libevent-2.1-7 libevent-core-2.1-7 libevent-openssl-2.1-7 libevhtp0 libnuma1 libonig5
  libprotobuf32 libre2-9 libssl3 python3-pytest
  libyaml-cpp-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev libdlpack-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libfuzzer-14-dev libclang-rt-14-dev   # fuzz targets (tests/fuzz)
  libgloo-dev                                      # cpu collectives (libomnirt_cpu_gloo.so)
  libtorch-dev python3-torch python3-torchvision   # cpu TorchScript engine and test models
  pybind11-dev python3-dev python3-numpy python3-pytest   # the Python package omnirt and its tests
  lintian   # packaging.debs: the Debian packages are lintian-clean at the error level
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
