#!/usr/bin/env bash
# End-to-end: the reader's own words outlive the book's text. Real ib-capture
# writes a quote, a note and progress; `ib-index --replace`, a re-ingest, a new
# version and `delete` keep every row (delete: detached, with the title, still
# exported and searched); only `delete --purge` removes them and says how many.
# A partial title is refused without --yes; a terminal is asked. Captures in a
# loop beside a --replace loop: every capture that reported success is there at
# the end. Text after a NUL is stored whole; bad record fields are FILE:LINE errors.
# Needs ib-index, ib-capture, ib-search on PATH (scripts/test puts $IB_BIN there), python3, sqlite3.
set -uo pipefail
command -v ib-index >/dev/null || { echo "keep.sh: ib-index not on PATH" >&2; exit 1; }
dir=$(mktemp -d /tmp/ib-e2e-keep.XXXXXX); trap 'rm -rf "$dir"' EXIT
export IB_DB="$dir/library.db" XDG_CACHE_HOME="$dir/cache" LANG=C.UTF-8 LC_ALL= LC_MESSAGES=
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then :; else echo "keep.sh: FAIL: $name" >&2; fail=1; fi
}
has() { grep -q -- "$2" <<<"$1"; }
q() { sqlite3 "$IB_DB" "$1"; }
counts() { q "SELECT (SELECT count(*) FROM quotes $1) || ' ' || (SELECT count(*) FROM notes $1) || ' ' || (SELECT count(*) FROM progress_events $1) || ' ' || (SELECT count(*) FROM reading_state $1)"; }

# book ID TITLE SOURCE [PAGE1_TEXT]: a whole book of 10 pages, a chunk per page.
book() {
  python3 - "$@" <<'PY'
import json, sys
bid, title, source = sys.argv[1:4]
first = sys.argv[4] if len(sys.argv) > 4 else "Call me Ishmael."
print(json.dumps({"type": "book", "id": bid, "title": title, "authors": ["Herman Melville"], "format": "txt",
                  "source": source, "sha256": bid * 4, "page_count": 10}))
for p in range(1, 11):
    text = first if p == 1 else f"Page {p} of the whale, with words."
    print(json.dumps({"type": "page", "book_id": bid, "page": p, "text": text}))
for p in range(1, 11):
    text = first if p == 1 else f"Page {p} of the whale, with words."
    print(json.dumps({"type": "chunk", "book_id": bid, "index": p - 1, "start_page": p, "end_page": p,
                      "start_offset": 0, "end_offset": len(text), "token_count": 5, "text": text}))
PY
}
book aaaa000000000001 "Moby Dick" /books/moby.txt >"$dir/moby.jsonl"
ib-index -q <"$dir/moby.jsonl" || fail=1
cap() { ib-capture "$@" >/dev/null; }
cap 'Quote p. 5 of Moby Dick: "keep me"'; check "capture quote" test $? -eq 0
cap 'Note about Moby Dick: my own thought'; check "capture note" test $? -eq 0
cap 'on page 7 of Moby Dick'; check "capture progress" test $? -eq 0
before=$(counts "WHERE book_id = 'aaaa000000000001'")
check "captured: $before" test "$before" = "1 1 1 1"

ib-index -q --replace <"$dir/moby.jsonl"; check "--replace exit 0" test $? -eq 0
check "--replace keeps: $(counts "WHERE book_id = 'aaaa000000000001'")" test "$(counts "WHERE book_id = 'aaaa000000000001'")" = "$before"
check "--replace keeps the position" test "$(q "SELECT current_page FROM books")" = 7
ib-index -q <"$dir/moby.jsonl"
check "re-ingest keeps" test "$(counts "WHERE book_id = 'aaaa000000000001'")" = "$before"
book aaaa000000000002 "Moby Dick" /books/moby.txt "Call me Ishmael, again." >"$dir/moby2.jsonl"
ib-index -q <"$dir/moby2.jsonl"
check "a new version keeps: $(counts "WHERE book_id = 'aaaa000000000002'")" test "$(counts "WHERE book_id = 'aaaa000000000002'")" = "$before"

# delete: a partial title is refused (exit 3, the book named), nothing deleted.
err=$(ib-index delete Moby </dev/null 2>&1); rc=$?
check "partial title: exit 3 ($rc)" test $rc -eq 3
check "partial title: names the book" has "$err" "aaaa000000000002 'Moby Dick'"
check "partial title: nothing deleted" test "$(q 'SELECT count(*) FROM books')" = 1
# On a terminal it asks; "n" keeps the book.
printf 'n\n' | script -qec "ib-index delete 'Moby Dick'" /dev/null >"$dir/tty" 2>&1
check "terminal: asks naming the book" grep -q "delete aaaa000000000002 'Moby Dick'.*\[y/N\]" "$dir/tty"
check "terminal: no keeps the book" test "$(q 'SELECT count(*) FROM books')" = 1
# Not a terminal: no question; the reader's words stay, detached, with the title.
err=$(ib-index delete 'moby dick' </dev/null 2>&1); rc=$?
check "delete exit 0 ($rc: $err)" test $rc -eq 0
check "delete says what it kept" has "$err" "kept the reader's 1 quote, 1 note, 1 progress event, 1 reading state"
check "delete removes the text" test "$(q 'SELECT count(*) FROM books') $(q 'SELECT count(*) FROM pages')" = "0 0"
check "delete keeps detached: $(counts "WHERE book_id IS NULL AND book_title = 'Moby Dick'")" test "$(counts "WHERE book_id IS NULL AND book_title = 'Moby Dick'")" = "$before"
check "kept words in ib-index export" has "$(ib-index export)" '"type":"quote".*"text":"keep me".*"book_title":"Moby Dick"'
check "kept words in ib-capture export" has "$(ib-capture export --format json)" '"title":"Moby Dick".*"keep me"'
check "kept words searched" has "$(ib-search --json --kind quotes 'keep' 2>&1)" '"title":"Moby Dick"'
check "ib-capture status works" ib-capture status >/dev/null
# --purge: removes them and says how many.
ib-index -q <"$dir/moby.jsonl"
cap 'Quote p. 3 of Moby Dick: "purge me"'; cap 'Quote p. 4 of Moby Dick: "and me"'   # quotes do not make a book current: no reading state
err=$(ib-index delete --purge aaaa000000000001 </dev/null 2>&1); rc=$?
check "purge exit 0" test $rc -eq 0
check "purge says how many: $err" has "$err" "removed the reader's 2 quotes, 0 notes, 0 progress events, 0 reading states"
check "purge removes them" test "$(q "SELECT count(*) FROM quotes WHERE text IN ('purge me', 'and me')")" = 0
check "purge leaves the detached ones" test "$(q 'SELECT count(*) FROM quotes WHERE book_id IS NULL')" = 1

# Captures in a loop while --replace runs in a loop: every reported capture stays.
ib-index -q <"$dir/moby.jsonl"
( for i in $(seq 1 60); do
    ib-capture "Quote p. $((i % 9 + 1)) of Moby Dick: \"loop $i\"" >/dev/null 2>&1 && echo "loop $i"
  done >"$dir/ok" ) &
capturer=$!
replaces=0
while kill -0 "$capturer" 2>/dev/null; do
  ib-index -q --replace <"$dir/moby.jsonl" || fail=1
  replaces=$((replaces + 1))
done
wait "$capturer"
reported=$(wc -l <"$dir/ok")
stored=$(q "SELECT count(*) FROM quotes WHERE text LIKE 'loop %' AND book_id = 'aaaa000000000001'")
check "concurrent: $reported reported, $stored stored, $replaces replaces" test "$reported" -gt 0 -a "$stored" = "$reported" -a "$replaces" -gt 1
echo "keep.sh: concurrent: $reported captures reported success, $stored stored, beside $replaces --replace runs" >&2

# Text after a NUL is stored whole.
rm -f "$IB_DB"*
python3 - >"$dir/nul.jsonl" <<'PY'
import json
t = "before\u0000after"
print(json.dumps({"type": "book", "id": "nul0000000000001", "title": "Nul", "page_count": 1}))
print(json.dumps({"type": "page", "book_id": "nul0000000000001", "page": 1, "text": t}))
print(json.dumps({"type": "chunk", "book_id": "nul0000000000001", "index": 0, "start_page": 1, "end_page": 1, "start_offset": 0, "end_offset": len(t), "token_count": 2, "text": t}))
PY
ib-index -q <"$dir/nul.jsonl"
out=$(ib-index export)
check "NUL: page whole" has "$out" '"type":"page".*"text":"before\\u0000after"'
check "NUL: chunk whole" has "$out" '"type":"chunk".*"text":"before\\u0000after"'
check "NUL: stored bytes" test "$(q 'SELECT length(CAST(text AS BLOB)) FROM pages')" = 12

# Bad record fields: FILE:LINE, exit 1, nothing of the book written.
for bad in '{"type":"page","book_id":"../../x","page":1,"text":"t"}' \
           '{"type":"chunk","book_id":"bad0000000000001","index":0,"start_page":1,"end_page":1,"start_offset":-5,"end_offset":1,"text":"t"}' \
           '{"type":"chunk","book_id":"bad0000000000001","index":0,"start_page":1,"end_page":1,"end_offset":1000000000000,"text":"t"}' \
           '{"type":"chunk","book_id":"bad0000000000001","index":0,"start_page":1,"end_page":1,"token_count":-100,"text":"t"}'; do
  err=$(printf '%s\n%s\n' '{"type":"book","id":"bad0000000000001","title":"Bad","page_count":1}' "$bad" | ib-index 2>&1); rc=$?
  check "bad field: exit 1 ($bad)" test $rc -eq 1
  check "bad field: <stdin>:2: ($err)" has "$err" '^ib-index: <stdin>:2: '
  check "bad field: one line" test "$(wc -l <<<"$err")" = 1
done
check "bad fields: nothing written" test "$(q "SELECT count(*) FROM books WHERE id = 'bad0000000000001'")" = 0

[ $fail -eq 0 ] && echo "keep e2e: ok"
exit $fail
