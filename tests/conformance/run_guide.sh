#!/usr/bin/env bash
# Runs every ```sh block of a Markdown guide, in order, as one bash script in
# an empty folder, with OMNIRT_PREFIX set to an installed OmniRT: the guide's
# commands are tested exactly as written.
# usage: run_guide.sh GUIDE.md PREFIX WORKDIR
set -euo pipefail
guide=$1 prefix=$2 work=$3

rm -rf "$work"
mkdir -p "$work/empty"
script="$work/guide.sh"
{
  echo 'set -euxo pipefail'
  awk '/^```sh$/ { inside = 1; next } /^```/ { inside = 0 } inside' "$guide"
} > "$script"
if [ "$(wc -l < "$script")" -le 1 ]; then
  echo "run_guide.sh: no sh blocks in $guide" >&2
  exit 1
fi
cd "$work/empty"
env -u OMNIRT_PLUGIN_PATH -u OMNIRT_CONFIG OMNIRT_PREFIX="$prefix" bash "$script"
