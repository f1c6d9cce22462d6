#!/usr/bin/env bash
# End-to-end tests of ib-index with the release binary: subcommands, 8
# concurrent writers, SIGKILL at random moments, bad input with nothing
# half-written, a corrupt file, a newer schema, a full disk.
# Needs ib-index on PATH (scripts/test puts $IB_BIN there), python3, sqlite3.
set -uo pipefail
command -v ib-index >/dev/null || { echo "index.sh: ib-index not on PATH" >&2; exit 1; }
work=$(mktemp -d /tmp/ib-e2e-index.XXXXXX)
mounted=""
cleanup() { [ -n "$mounted" ] && umount "$mounted" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failures=0
fail() { echo "index.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "index.sh: ok: $*" >&2; }
q() { sqlite3 "$1" "$2"; }

# gen SEED BOOKS CHUNKS DIM [MODEL]: book/page/chunk records with random unit vectors.
gen() {
  python3 - "$@" <<'EOF'
import json, random, sys, math, hashlib, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # the reader may stop early (a refused stream)
seed, books, chunks, dim = (int(x) for x in sys.argv[1:5])
model = sys.argv[5] if len(sys.argv) > 5 else "all-MiniLM-L6-v2"
rnd = random.Random(seed)
w = sys.stdout.write
for b in range(books):
    sha = hashlib.sha256(f"{seed}/{b}".encode()).hexdigest()
    bid = sha[:16]
    pages = max(1, chunks // 2)
    w(json.dumps({"type": "book", "id": bid, "title": f"Book {seed}-{b}", "authors": [f"Author {b % 5}"],
                  "language": "en", "format": "txt", "source": f"/books/{seed}-{b}.txt", "sha256": sha,
                  "page_count": pages}) + "\n")
    for p in range(1, pages + 1):
        w(json.dumps({"type": "page", "book_id": bid, "page": p, "label": str(p), "section_index": 0,
                      "section_title": "One", "text": f"page {p} " + "lorem ipsum " * 40}) + "\n")
    for i in range(chunks):
        sp = min(pages, i // 2 + 1)
        v = [rnd.gauss(0, 1) for _ in range(dim)]
        n = math.sqrt(sum(x * x for x in v))
        # Like a real chunker: each chunk ends after the one before; two per page, the second at its end.
        end = len(f"page {sp} " + "lorem ipsum " * 40) if i % 2 else 100
        w(json.dumps({"type": "chunk", "book_id": bid, "index": i, "start_page": sp, "end_page": sp,
                      "start_offset": 0 if i % 2 == 0 else 100, "end_offset": end, "token_count": 60, "text": f"chunk {i} " + "lorem ipsum dolor " * 20,
                      "model": model, "dim": dim, "embedding": [round(x / n, 7) for x in v]}) + "\n")
EOF
}

# half_books DB CHUNKS: ready books that are not complete, plus books that are not ready.
half_books() {
  q "$1" "SELECT count(*) FROM books b WHERE b.status != 'ready' OR
            (SELECT count(*) FROM chunks c WHERE c.book_id = b.id) != $2 OR
            (SELECT coalesce(sum(count), 0) FROM vector_blocks v WHERE v.book_id = b.id) != $2 OR
            (SELECT count(*) FROM pages p WHERE p.book_id = b.id) != $2 / 2 OR
            (SELECT count(*) FROM chunks_fts f WHERE f.rowid IN (SELECT seq FROM chunks c WHERE c.book_id = b.id)) != $2"
}

# ---------------------------------------------------------------- basics
db=$work/basic.db
gen 1 3 10 32 > "$work/three.jsonl"
ib-index --db "$db" "$work/three.jsonl" 2>/dev/null || fail "store 3 books"
[ "$(ib-index --db "$db" list | wc -l)" = 3 ] || fail "list shows 3 books"
ib-index --db "$db" show "Book 1-1" | grep >/dev/null '"status":"ready"' || fail "show by title"
ib-index --db "$db" show "Book" >/dev/null 2>"$work/amb.err"; rc=$?
[ $rc = 3 ] && [ "$(grep -c 'Book 1-' "$work/amb.err")" = 3 ] || fail "ambiguous BOOK: exit 3 listing candidates (got $rc)"
ib-index --db "$db" set-page "Book 1-2" 4 2>/dev/null && [ "$(q "$db" "SELECT current_page FROM books WHERE title = 'Book 1-2'")" = 4 ] || fail "set-page"
ib-index --db "$db" export | ib-index --db "$work/copy.db" 2>/dev/null || fail "export | ib-index"
cmp -s <(ib-index --db "$db" export) <(ib-index --db "$work/copy.db" export) || fail "export of the copy equals the export"
ib-index --db "$db" delete "Book 1-0" 2>/dev/null && [ "$(ib-index --db "$db" list | wc -l)" = 2 ] || fail "delete"
ib-index --db "$db" stats | grep >/dev/null '"books":2' || fail "stats"
IB_DB=$db ib-index list | grep >/dev/null "Book 1-1" || fail "IB_DB"
ok "subcommands"
gen 2 1 4 32 > "$work/one.jsonl"
ib-index --db "$work/one.db" "$work/one.jsonl" 2>"$work/one.err" || fail "store 1 book"
grep -q '^ib-index: 1 book stored, 4 vectors ' "$work/one.err" || fail "summary of one book: $(cat "$work/one.err")"
ok "summary counts agree with their nouns"

# ---------------------------------------------------------------- get: a passage and its neighbours, bounded
db=$work/get.db
gen 3 1 10 32 > "$work/get.jsonl"    # 10 chunks on 5 pages: chunk i on page i/2+1
ib-index --db "$db" "$work/get.jsonl" 2>/dev/null || fail "get: store"
id=$(q "$db" "SELECT id FROM books")
ib-index --db "$db" set-page "$id" 2 2>/dev/null
out=$(ib-index --db "$db" get --format text --context 1 "$id:2" 2>"$work/get.err") || fail "get text: $(cat "$work/get.err")"
[ "$(grep -c '^── Book 3-0 · ' <<<"$out")" = 3 ] && grep -q "^── Book 3-0 · $id:2 · p. 2 (asked) ──$" <<<"$out" \
  && grep -q '^chunk 3 lorem' <<<"$out" || fail "get --context 1: three passages, the asked one marked: $out"
ib-index --db "$db" get --json --context 2 "$id:3" >"$work/get.json" 2>"$work/get.err" || fail "get --json: $(cat "$work/get.err")"
python3 - "$work/get.json" "$id" <<'PY' || fail "get --json: the passages up to the reading position"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["chunk_id"] for r in rows] == [sys.argv[2] + ":%d" % i for i in (1, 2, 3)], rows
assert [r["asked"] for r in rows] == [False, False, True] and all(r["end_page"] <= 2 for r in rows), rows
PY
grep -q 'past the reading position (page 2)' "$work/get.err" || fail "get: hidden neighbours not reported: $(cat "$work/get.err")"
ib-index --db "$db" get "$id:6" >/dev/null 2>"$work/get.err"; rc=$?
[ $rc = 1 ] && grep -q "ends on page 4, past the reading position (page 2).*--all-pages" "$work/get.err" || fail "get past the position: exit $rc: $(cat "$work/get.err")"
ib-index --db "$db" get --format text --all-pages "$id:6" | grep -q '^chunk 6 lorem' || fail "get --all-pages"
[ "$(ib-index --db "$db" get --json "Book 3-0:2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["chunk_id"])')" = "$id:2" ] || fail "get BOOK:PAGE"
ib-index --db "$db" get "Book 3-0:99" >/dev/null 2>"$work/get.err"; rc=$?
[ $rc = 2 ] && grep -q "(5 pages)" "$work/get.err" || fail "get BOOK:99: exit $rc: $(cat "$work/get.err")"
ok "get: passage and neighbours, bounded by the reading position"

# ---------------------------------------------------------------- 8 concurrent writers x 25 books
db=$work/concurrent.db
for s in 1 2 3 4 5 6 7 8; do gen $((100 + s)) 25 20 384 > "$work/w$s.jsonl"; done
start=$(date +%s.%N)
pids=()
for s in 1 2 3 4 5 6 7 8; do ib-index --db "$db" "$work/w$s.jsonl" 2>"$work/w$s.err" & pids+=($!); done
failed_writers=0
for p in "${pids[@]}"; do wait "$p" || failed_writers=$((failed_writers + 1)); done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
books=$(q "$db" "SELECT count(*) FROM books WHERE status = 'ready'")
[ "$failed_writers" = 0 ] || fail "$failed_writers of 8 concurrent writers failed: $(cat "$work"/w*.err | grep -v 'books stored' | head -3)"
grep -l "locked" "$work"/w*.err >/dev/null && fail "a writer reported 'database is locked'"
[ "$books" = 200 ] || fail "concurrent writers: $books of 200 books arrived"
[ "$(half_books "$db" 20)" = 0 ] || fail "concurrent writers: incomplete books"
[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "concurrent writers: integrity_check"
ok "8 concurrent writers: $books/200 books, $failed_writers failures, ${elapsed}s"

# ---------------------------------------------------------------- SIGKILL at random moments
db=$work/crash.db
gen 7 30 200 384 > "$work/crash.jsonl"
# One full run sets the time scale; each round then kills a --replace run
# (every book deleted and stored again) at a random moment within it.
t0=$(date +%s.%N); ib-index -q --db "$db" "$work/crash.jsonl" || fail "crash: the first full run"
full=$(echo "$(date +%s.%N) - $t0" | bc)
kills=0; bad=0
i=0
while [ "$kills" -lt 22 ] && [ "$i" -lt 80 ]; do   # until 22 kills have landed mid-run
  i=$((i + 1))
  # Every 6th round starts from no library at all: kills also land in the migrations.
  if [ $((i % 6)) = 1 ]; then rm -f "$db" "$db-wal" "$db-shm"; fi
  ib-index -q --replace --db "$db" "$work/crash.jsonl" 2>/dev/null &
  pid=$!
  sleep "$(python3 -c "import random; print(random.uniform(0.01, 0.8 * $full))")"
  if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
  wait "$pid" 2>/dev/null
  [ -e "$db" ] || continue
  ic=$(q "$db" "PRAGMA integrity_check" 2>&1)
  half=$(half_books "$db" 200 2>&1)
  if [ "$ic" != ok ] || [ "$half" != 0 ]; then bad=$((bad + 1)); fail "after kill $i: integrity_check=$ic, half books=$half"; fi
done
ib-index -q --db "$db" "$work/crash.jsonl" || fail "re-run after the kills"
[ "$(q "$db" "SELECT count(*) FROM books WHERE status = 'ready'")" = 30 ] || fail "re-run after kills: not all 30 books"
[ "$(half_books "$db" 200)" = 0 ] || fail "re-run after kills: incomplete books"
[ "$kills" -ge 20 ] || fail "only $kills kills landed (want >= 20)"
ok "SIGKILL: $kills kills within a ${full}s run, $bad bad states, re-run complete"

# ---------------------------------------------------------------- bad input: nothing half-written
db=$work/bad.db
gen 11 2 10 384 | ib-index -q --db "$db" || fail "store the good books"
before=$(ib-index --db "$db" export | sha256sum)
expect_refused() {  # NAME PATTERN: stdin is the bad stream
  local name=$1 pattern=$2 rc
  ib-index --db "$db" 2>"$work/bad.err" >/dev/null; rc=$?
  if [ $rc = 0 ]; then fail "$name: accepted"; return; fi
  grep -qi -- "$pattern" "$work/bad.err" || fail "$name: message '$(cat "$work/bad.err")' lacks '$pattern'"
  [ "$(ib-index --db "$db" export | sha256sum)" = "$before" ] || fail "$name: the library changed"
  [ "$(q "$db" "SELECT count(*) FROM books")" = 2 ] || fail "$name: a book was stored"
  ok "refused $name: $(head -c 160 "$work/bad.err" | head -1)"
}
gen 12 1 10 128 | expect_refused "wrong dimension" "dimension"
gen 13 1 10 384 other-model | expect_refused "other model" "other-model"
gen 14 1 10 384 | sed '$ s/"embedding": \[[-0-9.e]*,/"embedding": [1e999,/' | expect_refused "infinite value" "infinite"
gen 15 1 10 384 | sed '$ s/"embedding": \[[-0-9.e]*,/"embedding": [NaN,/' | expect_refused "NaN" "malformed JSON"
gen 16 1 10 384 | sed '$ s/"embedding": \[[-0-9.e]*,/"embedding": ["x",/' | expect_refused "a string in the vector" "embedding"
gen 17 1 10 384 | sed '$ s/"embedding": \[/"embedding": [[/' | expect_refused "nested vector" "malformed JSON\|embedding"
gen 18 1 10 384 | sed '$ s/"embedding": \[[^]]*\]/"embedding": "not base64!"/' | expect_refused "bad base64" "base64"
gen 19 1 10 384 | sed '$ s/, "embedding".*$/, "embedding": [0.1, 0.2/' | expect_refused "truncated JSON" "malformed JSON"
gen 23 1 10 384 | head -n -3 | expect_refused "a stream cut short (upstream killed)" "incomplete"
gen 24 1 10 384 | sed '3d' | expect_refused "a page missing" "pages arrived"

# An upstream stage killed mid-run: the stream ends at any line. No cut may leave a ready half book.
gen 25 1 40 384 > "$work/one.jsonl"
lines=$(wc -l < "$work/one.jsonl"); halves=0
for k in $(python3 -c "import random; print(*random.sample(range(1, $lines), 15))"); do
  rm -f "$work/cut.db"*
  head -n "$k" "$work/one.jsonl" | ib-index -q --db "$work/cut.db" 2>/dev/null
  [ "$(q "$work/cut.db" "SELECT count(*) FROM books")" = 0 ] || { halves=$((halves + 1)); fail "a stream cut after line $k of $lines stored a book"; }
done
ok "15 random cuts of a $lines-line stream: $halves books stored"

# A corrupt file, a file that is not a database, a newer schema.
head -c 100000 /dev/urandom > "$work/random.db"
ib-index --db "$work/random.db" list >/dev/null 2>"$work/err"; rc=$?
[ $rc = 1 ] && grep -q "not an ib library" "$work/err" || fail "random bytes: rc=$rc $(cat "$work/err")"
ok "random bytes: $(head -1 "$work/err")"
cp "$work/copy.db" "$work/corrupt.db"
python3 - "$work/corrupt.db" <<'EOF'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
page = int.from_bytes(data[16:18], "big")
page = 65536 if page == 1 else page     # the header stores 65536 as 1
for p in range(1, len(data) // page):   # every page but the first: garbage headers
    data[p * page: p * page + 64] = b"\xff" * 64
open(path, "wb").write(data)
EOF
ib-index --db "$work/corrupt.db" export >/dev/null 2>"$work/err"; rc=$?
[ $rc = 1 ] && grep -qi "is corrupt\|malformed" "$work/err" || fail "corrupt pages: rc=$rc $(cat "$work/err")"
ok "corrupt pages: $(head -1 "$work/err")"
cp "$work/copy.db" "$work/newer.db"
q "$work/newer.db" "INSERT INTO schema_migrations (version, name) VALUES (999, '999_future.sql')"
sum=$(sha256sum < "$work/newer.db")
gen 20 1 4 384 2>/dev/null | ib-index --db "$work/newer.db" >/dev/null 2>"$work/err"; rc=$?
[ $rc = 1 ] && grep -q "newer" "$work/err" && [ "$(sha256sum < "$work/newer.db")" = "$sum" ] || fail "newer schema: rc=$rc $(cat "$work/err")"
ok "newer schema: $(head -1 "$work/err")"

# ---------------------------------------------------------------- full disk
gen 21 2 10 384 > "$work/small.jsonl"
gen 22 1 3000 384 > "$work/big.jsonl"
full_check() {  # DB HOW
  local db=$1 how=$2
  [ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "full disk ($how): integrity_check"
  [ "$(q "$db" "SELECT count(*) FROM books")" = 2 ] || fail "full disk ($how): the big book is half there or the small ones are gone"
}
if mkdir -p "$work/tmpfs" && mount -t tmpfs -o size=12m tmpfs "$work/tmpfs" 2>/dev/null; then
  mounted=$work/tmpfs
  db=$mounted/full.db
  ib-index -q --db "$db" "$work/small.jsonl" || fail "tmpfs: store the small books"
  ib-index -q --db "$db" "$work/big.jsonl" 2>"$work/err"; rc=$?
  [ $rc = 1 ] && grep -q "full" "$work/err" || fail "tmpfs full: rc=$rc $(cat "$work/err")"
  full_check "$db" tmpfs
  ok "full disk (12 MB tmpfs): $(cat "$work/err")"
  umount "$mounted"; mounted=""
else
  echo "index.sh: cannot mount a tmpfs; the file-size limit test below covers the full disk" >&2
fi
db=$work/limit.db
ib-index -q --db "$db" "$work/small.jsonl" || fail "ulimit: store the small books"
(ulimit -f 8192; ib-index -q --db "$db" "$work/big.jsonl") 2>"$work/err"; rc=$?
[ $rc = 1 ] && grep -qi "full\|I/O error" "$work/err" || fail "file-size limit: rc=$rc $(cat "$work/err")"
full_check "$db" "ulimit -f"
ok "file-size limit (ulimit -f 8 MB): $(cat "$work/err")"

# ---------------------------------------------------------------- missing embeddings round trip
db=$work/missing.db
gen 30 2 10 384 | python3 -c '
import sys, json
for i, line in enumerate(sys.stdin):
    r = json.loads(line)
    if r["type"] == "chunk" and r["index"] % 3 == 0:
        for k in ("embedding", "model", "dim"): r.pop(k)
    print(json.dumps(r))' | ib-index --db "$db" 2>"$work/err" || fail "store without some embeddings"
grep -q "have no embedding" "$work/err" || fail "chunks without embeddings are reported"
n=$(ib-index --db "$db" export --missing-embeddings | grep -c '"type":"chunk"')
[ "$n" = 8 ] || fail "export --missing-embeddings: $n chunks, want 8"
ib-index --db "$db" export --missing-embeddings | python3 -c '
import sys, json, random, math
for line in sys.stdin:
    r = json.loads(line)
    if r["type"] == "chunk":
        v = [random.gauss(0, 1) for _ in range(384)]; n = math.sqrt(sum(x * x for x in v))
        r.update(model="all-MiniLM-L6-v2", dim=384, embedding=[x / n for x in v])
    print(json.dumps(r))' | ib-index -q --db "$db" || fail "fill the missing embeddings"
[ "$(ib-index --db "$db" export --missing-embeddings | wc -l)" = 0 ] || fail "embeddings still missing after the fill"
[ "$(q "$db" "SELECT sum(count) FROM vector_blocks")" = 20 ] || fail "vectors after the fill"
ok "export --missing-embeddings | embed | ib-index"

if [ $failures -gt 0 ]; then echo "index.sh: $failures failures" >&2; exit 1; fi
echo "index.sh: all passed" >&2
