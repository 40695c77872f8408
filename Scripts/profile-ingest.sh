#!/bin/bash
# Counts the instructions (and simulated cache misses) of one event-log ingest of the bench's
# 2 M-event file under callgrind: a figure that, unlike time on a shared VM, does not drift, for
# comparing two builds of the reader. Usage: Scripts/profile-ingest.sh [csv|jsonl]
# Needs valgrind (Debian package `valgrind`). Takes about half a minute per run.
set -euo pipefail
format=${1:-csv}
case "$format" in csv | jsonl) ;; *) echo "usage: $0 [csv|jsonl]" >&2; exit 64 ;; esac
command -v valgrind >/dev/null || { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 69; }
cd "$(dirname "$0")/.."
swift build -c release --product menudeck-bench >&2
dir="${TMPDIR:-/tmp}/menudeck-bench-2000000"
mkdir -p "$dir"
out="${TMPDIR:-/tmp}/menudeck-ingest-$format.callgrind"
MENUDECK_BENCH_REPEATS=1 valgrind --tool=callgrind --cache-sim=yes \
  --toggle-collect='*ingestOnce*' --callgrind-out-file="$out" \
  .build/release/menudeck-bench --phase "ingest-$format" --dir "$dir" 2>&1 >/dev/null |
  awk -v f="$format" '/Collected/ {
      ir = $4; d1 = $8 + $9; ll = $11 + $12
      printf "ingest %s, per event: %.0f instructions, %.2f first-level data misses, %.3f last-level misses\n",
        f, ir / 2e6, d1 / 2e6, ll / 2e6
    }'
echo "per function and line: callgrind_annotate --auto=yes $out" >&2
