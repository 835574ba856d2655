#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build for a bounded time on a copy of its
# seed corpus (the committed corpus is not changed), and fails on the first
# crash, leak or broken property; the input that found it is kept in
# <build>/fuzz-findings/ for `fuzz_<name> <file>` to replay.
#   tests/fuzz/run_fuzzers.sh <fuzz build dir> [seconds per target, default 20]
set -euo pipefail
build=$1
seconds=${2:-20}
source_dir="$(cd "$(dirname "$0")" && pwd)"
findings="$build/fuzz-findings"
work=$(mktemp -d "${TMPDIR:-/tmp}/omnirt-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$findings"
for target in "$build"/bin/fuzz_*; do
  name=$(basename "$target")
  name=${name#fuzz_}
  cp -r "$source_dir/corpus/$name" "$work/$name"
  echo "fuzzing $name for ${seconds}s"
  "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/$name-" "$work/$name" > "$work/$name.log" 2>&1 || {
      tail -60 "$work/$name.log" >&2
      echo "fuzz_$name failed; its input is in $findings/" >&2
      exit 1
    }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/$name.log" | sed 's/^/  /'
done
