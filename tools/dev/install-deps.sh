#!/usr/bin/env bash
# Installs the Debian 12 packages OmniRT builds and tests with. Does nothing
# when they are all present, so it is cheap to call before every build.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config file
  libyaml-cpp-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev libdlpack-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgloo-dev                                      # cpu collectives (libomnirt_cpu_gloo.so)
  libtorch-dev python3-torch python3-torchvision   # cpu TorchScript engine and test models
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
