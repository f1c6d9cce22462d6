#!/usr/bin/env bash
# End-to-end: ib-capture on a fresh library: books, quotes, notes, progress,
# plans, ambiguity (exit 3, nothing written), unknown books, status, export,
# Readwise CSV round trip, Chinese messages, pages that are no page, authors
# of several books.
set -uo pipefail
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export IB_DB="$dir/library.db" XDG_CACHE_HOME="$dir/cache" IB_TODAY=2026-11-22 LANG=C.UTF-8 LC_ALL= LC_MESSAGES=
fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then :; else echo "FAIL: $name" >&2; fail=1; fi
}
has() { grep -q -- "$2" <<<"$1"; }
cap() { ib-capture --now 2026-11-22T10:00:00Z "$@"; }

out=$(ib-capture --dry-run 'Quote p. 47: "The obstacle is the way."')
check "dry-run quote" has "$out" '"type":"quote","book":null,"text":"The obstacle is the way.","page":47'
[ ! -e "$IB_DB" ]; check "dry-run writes nothing" test $? -eq 0

out=$(cap 'Reading Meditations by Marcus Aurelius, 254 pages'); check "book" has "$out" '"status":"reading"'
cap 'Want to read Meditations on First Philosophy by Descartes' >/dev/null
cap 'Started Sapiens (443 pages)' >/dev/null
out=$(cap 'read 20 pages'); check "current book" has "$out" '"book_title":"Sapiens","id":'
check "progress page" has "$out" '"page":20'
out=$(cap '"Waste no more time arguing" - Meditations, p. 12'); check "exact title wins" has "$out" '"book_title":"Meditations","id"'
before=$(sqlite3 "$IB_DB" 'SELECT count(*) FROM notes')
out=$(cap --json 'Note about Meditat: which one?' 2>"$dir/err"); rc=$?
check "ambiguous exit 3" test $rc -eq 3
check "ambiguous candidates json" has "$out" '"type":"ambiguous"'
check "ambiguous lists candidates" grep -q 'Meditations on First Philosophy' "$dir/err"
check "ambiguous writes nothing" test "$(sqlite3 "$IB_DB" 'SELECT count(*) FROM notes')" = "$before"
out=$(cap 'Descartes'); check "a second line settles it" has "$out" '"book_title":"Meditations on First Philosophy","id":1,"text":"which one?"'
out=$(cap 'Note about Meditations on First Philosophy: the cogito'); check "specific line" has "$out" '"book_title":"Meditations on First Philosophy"'
cap '"Fear is the mind-killer" - Dune, p. 8' >/dev/null 2>"$dir/err"; rc=$?
check "unknown book exit 1" test $rc -eq 1
check "unknown book suggests --create" grep -q -- '--create' "$dir/err"
out=$(cap --create '"Fear is the mind-killer" - Dune, p. 8'); check "--create" has "$out" '"book_title":"Dune"'
out=$(cap 'on page 120 of Meditations'); check "position" has "$out" '"page":120'
check "reading position column" test "$(sqlite3 "$IB_DB" "SELECT current_page FROM books WHERE title = 'Meditations'")" = 120
out=$(cap 'Plan: finish Meditations and Sapiens by 2026-12-01'); check "plan pages/day" has "$out" '"pages_per_day":56'
printf '%s\n' '正在读《人类简史》' '读了20页' '笔记：货币是一种信任 #经济' | cap --create >/dev/null 2>&1
check "chinese" test "$(sqlite3 "$IB_DB" "SELECT count(*) FROM notes WHERE text = '货币是一种信任'")" = 1
out=$(ib-capture status --json); check "status version" has "$out" '"version":1'
check "status streak" has "$out" '"streak_days":1'
out=$(ib-capture status --format waybar --private)
for k in text tooltip class percentage; do check "waybar $k" has "$out" "\"$k\":"; done
check "private hides quote" bash -c "! grep -q 'mind-killer' <<<'$out'"
out=$(LANG=zh_CN.UTF-8 ib-capture status --format text); check "chinese status" has "$out" '今天读了'
err=$(LANG=zh_CN.UTF-8 ib-capture --dry-run 'asdfgh' 2>&1); check "chinese error" has "$err" '无法理解'
ib-capture export --format csv > "$dir/h.csv"
check "csv header" test "$(head -1 "$dir/h.csv")" = "Highlight,Title,Author,Note,Location,Location Type,Date"
ib-capture export --format markdown | grep >/dev/null '^# Meditations$'; check "markdown" test $? -eq 0
ib-capture export --format json | grep >/dev/null '"type":"book_export"'; check "json export" test $? -eq 0
IB_DB="$dir/other.db" ib-capture import "$dir/h.csv" 2>/dev/null
check "readwise import" test "$(sqlite3 "$dir/other.db" 'SELECT count(*) FROM quotes')" = "$(sqlite3 "$IB_DB" 'SELECT count(*) FROM quotes')"
ib-capture --dry-run 'Quote:' >/dev/null 2>&1; check "empty quote is an error" test $? -eq 1
# --ask: the question is stored, then ib-ask answers it (offline, extractive) about the current book.
askdb="$dir/ask.db"
printf 'The Lighthouse\n\nThe keeper polished the great brass lamp every evening before sunset.\n\nIn the storm he rowed out and saved three sailors from the wreck on the rocks.\n' > "$dir/lighthouse.txt"
IB_DB="$askdb" bash -c "ib-parse '$dir/lighthouse.txt' | ib-chunk | ib-embed | ib-index -q"
IB_DB="$askdb" cap 'Reading The Lighthouse' >/dev/null
out=$(IB_DB="$askdb" IB_PROVIDER=extractive cap --ask 'What did the keeper polish?' 2>"$dir/err"); rc=$?
check "--ask exit 0" test $rc -eq 0
check "--ask prints the question record" has "$out" '"type":"question"'
check "--ask forwards to ib-ask" has "$out" 'brass lamp'
check "--ask answer is cited" has "$out" '(p. 1)'
check "--ask question stored" test "$(sqlite3 "$askdb" "SELECT count(*) FROM notes WHERE kind = 'question'")" = 1
check "--ask conversation stored" test "$(sqlite3 "$askdb" 'SELECT count(*) FROM conversations')" = 1

# Capture never guesses: a page below 1 or past the book's end is refused; an
# author of several books is asked about (exit 3), unless the current book is one.
at() { ib-capture --now "2026-11-22T11:$1:00Z" "${@:2}"; }
at 00 'Reading Crime and Punishment by Fyodor Dostoevsky, 500 pages' >/dev/null
at 01 'Reading The Idiot by Fyodor Dostoevsky, 600 pages' >/dev/null
at 02 'Reading Anna Karenina by Leo Tolstoy, 864 pages' >/dev/null
quotes=$(sqlite3 "$IB_DB" 'SELECT count(*) FROM quotes')
at 03 'Quote p. 9 of Dostoevsky: "Beauty will save the world"' >/dev/null 2>"$dir/err"; rc=$?
check "author of two books: exit 3" test $rc -eq 3
check "author of two books: candidates" bash -c "grep -q 'Crime and Punishment' '$dir/err' && grep -q 'The Idiot' '$dir/err'"
err=$(LANG=zh_CN.UTF-8 at 03 'Quote p. 9 of Dostoevsky: "Beauty will save the world"' 2>&1 >/dev/null); rc=$?
check "author of two books: exit 3 in Chinese" test $rc -eq 3
check "author of two books: Chinese message" has "$err" '书库中有 2 本'
check "author of two books: nothing written" test "$(sqlite3 "$IB_DB" 'SELECT count(*) FROM quotes')" = "$quotes"
at 04 'on page 20 of The Idiot' >/dev/null
out=$(at 05 'Quote p. 9 of Dostoevsky: "Beauty will save the world"' 2>"$dir/err"); rc=$?
check "author: the current book wins" has "$out" '"book_title":"The Idiot"'
check "author: stderr says so" grep -q 'using the current one, “The Idiot”' "$dir/err"
quotes=$(sqlite3 "$IB_DB" 'SELECT count(*) FROM quotes')
at 06 'Quote p. -3: "x"' >/dev/null 2>"$dir/err"; rc=$?
check "page -3: exit 1" test $rc -eq 1
check "page -3: named" grep -q 'page -3' "$dir/err"
at 06 'Quote p. 601: "past the end"' >/dev/null 2>"$dir/err"; rc=$?
check "page past the end: exit 1" test $rc -eq 1
check "page past the end: named" grep -q 'page 601 is past its end' "$dir/err"
err=$(LANG=zh_CN.UTF-8 ib-capture --dry-run '摘录 第0页：「零」' 2>&1); rc=$?
check "page 0 in Chinese: exit 1" test $rc -eq 1
check "page 0 in Chinese: named" has "$err" '没有第 0 页'
check "bad pages: nothing written" test "$(sqlite3 "$IB_DB" 'SELECT count(*) FROM quotes')" = "$quotes"

# --spoken: a typed transcript read as said (the text side of --audio; scripts/e2e/voice.sh has the audio).
out=$(ib-capture --dry-run --spoken "okay i'm on page two hundred and twelve")
check "spoken page in words" has "$out" '"page":212'
out=$(cap --spoken 'note for meditations um the present moment is all we have hashtag time')
check "spoken note for a book" has "$out" '"book_title":"Meditations","id"'
check "spoken note text and tag" has "$out" '"text":"the present moment is all we have"'
check "spoken tag" has "$out" '"tags":\["time"\]'
before=$(sqlite3 "$IB_DB" 'SELECT count(*) FROM notes')
cap --spoken 'note for middlemarch it is a narrow mind' > /dev/null 2>&1; rc=$?
check "spoken unknown book exit 1" test $rc -eq 1
check "spoken unknown book stores nothing" test "$(sqlite3 "$IB_DB" 'SELECT count(*) FROM notes')" = "$before"
out=$(cap 'listened to 2:15:00 of Meditations'); check "progress by time" has "$out" '"kind":"time","seconds":8100,"position":"2:15:00"'
check "seconds column" test "$(sqlite3 "$IB_DB" "SELECT CAST(seconds AS INTEGER) FROM progress_events WHERE kind = 'time'")" = 8100
[ $fail -eq 0 ] && echo "capture e2e: ok"
exit $fail
