#!/usr/bin/env bash
# Builds and runs menudeck's libFuzzer targets (Fuzz/<target>.swift) with this toolchain.
#
#   Scripts/fuzz.sh build                 build every target (and the library modules once)
#   Scripts/fuzz.sh run TARGET SECONDS    fuzz one target for SECONDS, one job, one worker
#   Scripts/fuzz.sh all SECONDS           fuzz every target in turn, SECONDS each
#   Scripts/fuzz.sh seeds                 regenerate the seed corpora (Scripts/fuzz-seeds.py)
#   Scripts/fuzz.sh list                  the targets
#
# SwiftPM's executables define `main`, which libFuzzer defines too, so the library modules are
# compiled here with swiftc, in dependency order (DeckBase, DeckCore, DeckStrategies,
# DeckPlugins, DeckIO, DeckEvaluation, DeckSimulation, DeckReports, DeckCommandLine,
# MenuDeckCLI), each into a static library with
# -sanitize=fuzzer,address (coverage and AddressSanitizer) and -enable-testing (the targets reach internal API with
# @testable import). Each target is Fuzz/Support.swift plus its own file, linked with them.
#
# Output goes to Fuzz/.build (ignored by git): modules and binaries in Fuzz/.build/bin, the
# corpus a run grows in Fuzz/.build/corpus/TARGET (the checked-in seeds in Fuzz/corpus/TARGET
# are read, never written), crashing inputs in Fuzz/findings/TARGET (ignored by git: turn each
# into a regression test, then delete it), and each run's log in Fuzz/.build/logs.
#
# Environment: FUZZ_OPT (default -O; -Onone builds faster and fuzzes slower), FUZZ_MAX_LEN
# (default 16384 bytes), FUZZ_ARGS (more libFuzzer flags), FUZZ_TARGETS (the targets of `all`,
# space-separated), FUZZ_NO_BUILD=1 (run the binaries as built, e.g. while sources change).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/Fuzz/.build"
bin="$out/bin"
modules=(DeckBase DeckCore DeckStrategies DeckPlugins DeckIO DeckEvaluation DeckSimulation DeckReports DeckCommandLine MenuDeckCLI)
opt="${FUZZ_OPT:--O}"
max_len="${FUZZ_MAX_LEN:-16384}"
# One package name, as SwiftPM gives: the modules share `package` declarations (DeckBase's).
common=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -g "$opt" -package-name menudeck)

targets() {
  for f in "$root"/Fuzz/*.swift; do
    local name
    name=$(basename "$f" .swift)
    [[ "$name" == "Support" ]] || echo "$name"
  done
}

# Rebuilds a module when one of its sources (or a module below it) is newer than its library.
build_module() {
  local module=$1 lib="$bin/lib$1.a"
  local sources
  mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
  if [[ -f "$lib" ]]; then
    local newer
    newer=$(find "Sources/$module" -name '*.swift' -newer "$lib" | head -1)
    if [[ -z "$newer" && -z "${rebuilt:-}" ]]; then return; fi
  fi
  echo "fuzz: compiling $module (${#sources[@]} files)"
  swiftc "${common[@]}" -wmo -enable-testing -module-name "$module" -I "$bin" \
    -emit-module -emit-module-path "$bin/$module.swiftmodule" \
    -emit-library -static -o "$lib" "${sources[@]}"
  rebuilt=1  # every module above a rebuilt one is rebuilt too
}

build() {
  mkdir -p "$bin"
  rebuilt=
  for m in "${modules[@]}"; do build_module "$m"; done
  local libs=()
  for ((k = ${#modules[@]} - 1; k >= 0; k--)); do libs+=("-l${modules[k]}"); done
  for t in $(targets); do
    local exe="$bin/fuzz-$t"
    if [[ -f "$exe" && -z "$rebuilt" && ! "Fuzz/$t.swift" -nt "$exe" \
      && ! Fuzz/Support.swift -nt "$exe" ]]; then
      continue
    fi
    echo "fuzz: linking $t"
    # ld.gold warns about ASan's local symbols it cannot export; harmless.
    swiftc "${common[@]}" -I "$bin" -L "$bin" -module-name "Fuzz_$t" \
      Fuzz/Support.swift "Fuzz/$t.swift" "${libs[@]}" -o "$exe" 2> >(grep -v "Cannot export local symbol" >&2)
  done
}

# Runs one target: prints its executions and findings.
run() {
  local t=$1 seconds=$2
  [[ -x "$bin/fuzz-$t" ]] || { echo "fuzz: no target '$t' built (Scripts/fuzz.sh build)" >&2; exit 64; }
  local work="$out/corpus/$t" findings="$root/Fuzz/findings/$t" logs="$out/logs"
  mkdir -p "$work" "$findings" "$logs"
  local seeds=()
  [[ -d "Fuzz/corpus/$t" ]] && seeds=("Fuzz/corpus/$t")
  local dict=()
  [[ -f "Fuzz/dict/$t.dict" ]] && dict=("-dict=Fuzz/dict/$t.dict")
  local log="$logs/$t.log"
  local before
  before=$(find "$findings" -type f | wc -l)
  echo "fuzz: $t for ${seconds}s (log $log)"
  set +e
  # The Swift runtime's backtracer would wait on a crashing target; libFuzzer reports crashes.
  # shellcheck disable=SC2086
  # One process on one core, which is what -jobs=1 -workers=1 amount to (without the log file
  # they make libFuzzer write into the current directory).
  SWIFT_BACKTRACE=enable=no "$bin/fuzz-$t" -max_total_time="$seconds" -max_len="$max_len" \
    -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
    "${dict[@]}" ${FUZZ_ARGS:-} "$work" "${seeds[@]}" >"$log" 2>&1
  local code=$?
  set -e
  local execs per_second
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -ao '[0-9]*$' | tail -1)
  per_second=$(grep -ao 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -ao '[0-9]*$' | tail -1)
  local after
  after=$(find "$findings" -type f | wc -l)
  echo "fuzz: $t: ${execs:-?} executions, ${per_second:-?}/s, exit $code," \
    "$((after - before)) new finding(s) in Fuzz/findings/$t"
  if ((code != 0)); then
    grep -a -m1 -E "ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY" "$log" || true
    return 1
  fi
}

case "${1:-}" in
  build) build ;;
  run)
    [[ $# -eq 3 ]] || { echo "usage: Scripts/fuzz.sh run TARGET SECONDS" >&2; exit 64; }
    [[ -n "${FUZZ_NO_BUILD:-}" ]] || build
    run "$2" "$3"
    ;;
  all)
    [[ $# -eq 2 ]] || { echo "usage: Scripts/fuzz.sh all SECONDS" >&2; exit 64; }
    [[ -n "${FUZZ_NO_BUILD:-}" ]] || build
    failed=0
    for t in ${FUZZ_TARGETS:-$(targets)}; do run "$t" "$2" || failed=1; done
    exit $failed
    ;;
  seeds) python3 Scripts/fuzz-seeds.py ;;
  list) targets ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 64
    ;;
esac
