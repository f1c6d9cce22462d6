#!/usr/bin/env bash
# End-to-end: ambiguous captures answered by real parallel processes. 20
# ambiguous quote lines are captured at once (each waits in the library), then
# 20 answers ("1") run at once: every quote is stored exactly once, none is
# lost, nothing is left waiting. Then a NUL in a line is refused, nothing stored.
set -uo pipefail
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export IB_DB="$dir/library.db" XDG_CACHE_HOME="$dir/cache" IB_TODAY=2026-11-22 LANG=C.UTF-8 LC_ALL= LC_MESSAGES=
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then :; else echo "FAIL: $name" >&2; fail=1; fi
}
q() { sqlite3 "$IB_DB" "$1"; }

ib-capture 'Reading Meditations by Marcus Aurelius' >/dev/null 2>&1
ib-capture 'Want to read Meditations on First Philosophy by Descartes' >/dev/null 2>&1
pids=()
for i in $(seq 1 20); do
  ib-capture "Quote p. $i of Meditat: \"line $i\"" >/dev/null 2>"$dir/amb$i" & pids+=($!)
done
ambiguous=0
for p in "${pids[@]}"; do wait "$p"; [ $? -eq 3 ] && ambiguous=$((ambiguous + 1)); done
check "20 ambiguous lines exit 3" test "$ambiguous" -eq 20
check "nothing stored before the answers" test "$(q 'SELECT count(*) FROM quotes')" = 0
pids=()
for i in $(seq 1 20); do ib-capture 1 >"$dir/ans$i" 2>&1 & pids+=($!); done
answered=0
for p in "${pids[@]}"; do wait "$p"; [ $? -eq 0 ] && answered=$((answered + 1)); done
check "20 answers succeed" test "$answered" -eq 20
check "20 quotes stored" test "$(q 'SELECT count(*) FROM quotes')" = 20
check "each quote once" test "$(q 'SELECT count(DISTINCT text) FROM quotes')" = 20
check "all under the first candidate" test "$(q "SELECT count(*) FROM quotes q JOIN books b ON b.id = q.book_id WHERE b.title = 'Meditations'")" = 20
check "nothing left waiting" test "$(q 'SELECT count(*) FROM pending_captures')" = 0
out=$(ib-capture 1 2>&1); rc=$?
check "a 21st answer settles nothing" test $rc -ne 0
check "still 20 quotes" test "$(q 'SELECT count(*) FROM quotes')" = 20

before=$(q 'SELECT count(*) FROM notes')
printf 'Note: A\000hidden tail\n' | ib-capture >/dev/null 2>"$dir/nul"; rc=$?
check "NUL line refused" test $rc -eq 1
check "NUL named" grep -q 'NUL' "$dir/nul"
check "NUL stores nothing" test "$(q 'SELECT count(*) FROM notes')" = "$before"
exit $fail
