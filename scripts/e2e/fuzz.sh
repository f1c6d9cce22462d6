#!/usr/bin/env bash
# End-to-end: a short run of every Swift libFuzzer harness (scripts/fuzz/run,
# harnesses in scripts/fuzz/swift/): the record reader and PageDecoder, the
# capture grammar, the ZIP reader and the EPUB, DOCX, HTML, Markdown and
# plain text readers, IB_FUZZ_SECONDS each (default 20: scripts/test keeps CI under 30 minutes;
# scripts/fuzz/run NAME runs one for 600), two at a time. Fails on any
# crash, trap, leak, hang or sanitizer report; skips (passing) with a message
# when the toolchain cannot build with -sanitize=fuzzer (e.g. not Linux).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
secs="${IB_FUZZ_SECONDS:-20}"
run="$root/scripts/fuzz/run"
names=($("$run" --list))
# Build first, one at a time (shared objects); 77 means no libFuzzer here.
for n in "${names[@]}"; do
  "$run" --build "$n"; rc=$?
  if [ "$rc" -eq 77 ]; then echo "fuzz e2e: skipped (this toolchain cannot build with -sanitize=fuzzer)"; exit 0; fi
  [ "$rc" -eq 0 ] || { echo "FAIL: building fuzz harness $n"; exit 1; }
done
status=0
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
i=0
while [ "$i" -lt "${#names[@]}" ]; do
  pids=()
  for n in "${names[@]:$i:2}"; do
    "$run" "$n" "$secs" > "$logs/$n" 2>&1 & pids+=("$!:$n")
  done
  for p in "${pids[@]}"; do
    wait "${p%%:*}" || { status=1; echo "FAIL: fuzz ${p#*:}"; }
    cat "$logs/${p#*:}"
  done
  i=$((i + 2))
done
[ "$status" -eq 0 ] && echo "fuzz e2e: ok (${#names[@]} harnesses, ${secs}s each)"
exit "$status"
