#!/usr/bin/env bash
# End-to-end: where a library may be, and reading one that may not be written.
#   - reading commands never create a library: a missing file is "no library at
#     PATH" (exit 1) and nothing appears, not even the folder;
#   - --db naming a folder, a device (/dev/null) or a FIFO is refused before SQLite
#     opens it (exit 2, one line naming --db and the path), and so is a new
#     library in a folder that does not exist;
#   - a library in a read-only folder (WAL mode, closed cleanly: no -wal, no -shm)
#     is read by every reading command, and nothing is written beside it. Root
#     ignores file modes, so as root the readers run as nobody (setpriv).
# Needs the ib tools on PATH (scripts/test puts $IB_BIN there), sqlite3.
set -uo pipefail
work=$(mktemp -d /tmp/ib-e2e-access.XXXXXX)
cleanup() { chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
chmod 755 "$work"
export XDG_CACHE_HOME="$work/cache" XDG_DATA_HOME="$work/data" IB_TODAY=2026-11-22 LANG=C.UTF-8 LC_ALL=
unset IB_DB
failures=0
fail() { echo "library-access.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "library-access.sh: ok: $*" >&2; }
# expect CODE TEXT COMMAND...: the exit code, and TEXT in stderr's one line (a usage
# error adds the tools' usual "Try ... --help" line).
expect() {
  local code=$1 text=$2; shift 2
  "$@" > "$work/out" 2> "$work/err"; local got=$?
  [ "$got" = "$code" ] || { fail "$*: exit $got, not $code ($(head -c 200 "$work/err"))"; return; }
  grep -qF -- "$text" "$work/err" || { fail "$*: no '$text' in: $(head -c 200 "$work/err")"; return; }
  [ "$(grep -vc "^Try '" "$work/err")" = 1 ] || fail "$*: more than one line on stderr: $(cat "$work/err")"
}

# Readers on a missing library: a clear line, nothing created.
for reader in "ib-capture --db $work/typo/lib.db status" "ib-capture --db $work/typo/lib.db export --format json" \
              "ib-index --db $work/typo/lib.db list" "ib-index --db $work/typo/lib.db show x" \
              "ib-index --db $work/typo/lib.db export" "ib-search --db $work/typo/lib.db word" \
              "ib-ask --db $work/typo/lib.db --provider extractive --book x why"; do
  # shellcheck disable=SC2086
  expect 1 "no library at $work/typo/lib.db" $reader
done
IB_DB="$work/missing.db" expect 1 "no library at $work/missing.db" ib-capture status
[ -z "$(ls -A "$work" | grep -v '^out$\|^err$')" ] || fail "a reader created something: $(ls -A "$work")"
ok "readers on a missing library"

# What cannot be a library, refused before SQLite opens it (SQLite would make /dev/null-journal).
mkfifo "$work/fifo"
expect 2 "--db /dev/null: not a regular file" ib-capture --db /dev/null status
expect 2 "--db /dev/null: not a regular file" ib-capture --db /dev/null 'Reading Dune, 400 pages'
expect 2 "--db /dev/null: not a regular file" ib-index --db /dev/null list
expect 2 "--db $work: a folder" ib-capture --db "$work" 'Reading Dune, 400 pages'
expect 2 "--db $work/fifo: not a regular file" ib-search --db "$work/fifo" word
IB_DB=/dev/null expect 2 "IB_DB=/dev/null: not a regular file" ib-capture 'Reading Dune, 400 pages'
[ ! -e /dev/null-journal ] || fail "/dev/null-journal exists"
# A writer makes a new library in an existing folder only (the default location's folder is made).
expect 2 "--db $work/typo/lib.db: no folder $work/typo" ib-capture --db "$work/typo/lib.db" 'Reading Dune, 400 pages'
[ ! -e "$work/typo" ] || fail "a writer created the folder of a mistyped --db"
ib-capture --db "$work/lib.db" 'Reading Meditations by Marcus Aurelius, 254 pages' > /dev/null || fail "a new library in an existing folder"
ib-capture 'Reading Dune, 400 pages' > /dev/null && [ -f "$XDG_DATA_HOME/ib/library.db" ] || fail "the default location was not made"
ok "paths that are not a library"

# A library in a read-only folder.
db="$work/lib.db"
ib-capture --db "$db" 'Want to read Meditations on First Philosophy by Descartes' > /dev/null
ib-capture --db "$db" 'Quote p. 12 of Meditations on First Philosophy: "I think, therefore I am"' > /dev/null || fail "quote"
ro="$work/ro"; mkdir "$ro"; sqlite3 "$db" ".backup '$ro/lib.db'"
[ "$(sqlite3 "$ro/lib.db" 'PRAGMA journal_mode')" = wal ] || fail "the copy is not in WAL mode"
rm -f "$ro/lib.db-wal" "$ro/lib.db-shm"; chmod 755 "$ro"; chmod a-w "$ro/lib.db" "$ro"
as_reader() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work" XDG_CACHE_HOME="$work/nobody" "$@"
  else "$@"; fi
}
# The check is real: the folder really cannot be written by the reader.
as_reader touch "$ro/probe" 2>/dev/null && fail "the read-only folder can be written: this test proves nothing"
reads=0
check_read() {  # check_read TEXT COMMAND...
  local text=$1; shift
  as_reader "$@" > "$work/out" 2> "$work/err" || { fail "read-only folder: $* exit $?: $(head -c 200 "$work/err")"; return; }
  grep -qF -- "$text" "$work/out" || { fail "read-only folder: $*: no '$text' in $(head -c 200 "$work/out")"; return; }
  reads=$((reads + 1))
}
check_read "I think, therefore I am" ib-capture --db "$ro/lib.db" status
check_read "I think, therefore I am" ib-capture --db "$ro/lib.db" export --format markdown
check_read "Meditations on First Philosophy" ib-index --db "$ro/lib.db" list
check_read "Descartes" ib-index --db "$ro/lib.db" show 'Meditations on First Philosophy'
check_read '"type":"quote"' ib-index --db "$ro/lib.db" export
as_reader ib-search --db "$ro/lib.db" therefore > "$work/out" 2> "$work/err" && reads=$((reads + 1)) \
  || fail "read-only folder: ib-search exit $?: $(head -c 200 "$work/err")"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_books","arguments":{}}}' \
  | as_reader ib-mcp --db "$ro/lib.db" > "$work/out" 2> "$work/err"
grep '"id":2' "$work/out" | grep -q 'Meditations on First Philosophy' && reads=$((reads + 1)) \
  || fail "read-only folder: ib-mcp list_books: $(head -c 300 "$work/out")"
# A write says plainly that it cannot write; the library is unchanged.
as_reader ib-capture --db "$ro/lib.db" 'Note about Meditations on First Philosophy: more' > /dev/null 2> "$work/err" \
  && fail "a capture into a read-only library reported success"
grep -q "cannot write the library $ro/lib.db" "$work/err" || fail "read-only capture: unclear error: $(head -c 200 "$work/err")"
[ "$(ls -A "$ro")" = "lib.db" ] || fail "files appeared in the read-only folder: $(ls -A "$ro")"
ok "read-only folder: $reads of 7 reading commands worked, nothing written"

[ "$failures" = 0 ] && echo "library-access.sh: all passed" >&2
exit $((failures > 0))
