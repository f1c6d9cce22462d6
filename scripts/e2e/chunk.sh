#!/usr/bin/env bash
# ib-parse | ib-chunk on the sample books: every chunk fits the model, its text
# is its pages' span, its page range is exact, the overlap matches; and bad
# input gets one clear line on stderr and a non-zero exit.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

for book in sherlock devils-dictionary; do
  ib-parse "$root/shared/fixtures/books/$book.txt" | ib-chunk > "$tmp/$book.jsonl" || fail "$book: pipeline failed"
  grep '"type":"chunk"' "$tmp/$book.jsonl" | ib-chunk --tokenize > "$tmp/$book.recount.jsonl"
  python3 "$here/lib/check-chunks.py" "$tmp/$book.jsonl" "$tmp/$book.recount.jsonl" 256 38 || fail "$book: chunk check"
  # Smaller chunks and a larger overlap obey the flags too.
  ib-parse "$root/shared/fixtures/books/$book.txt" | ib-chunk --size 128 --overlap 25% > "$tmp/$book.128.jsonl"
  grep '"type":"chunk"' "$tmp/$book.128.jsonl" | ib-chunk --tokenize > "$tmp/$book.128.recount.jsonl"
  python3 "$here/lib/check-chunks.py" "$tmp/$book.128.jsonl" "$tmp/$book.128.recount.jsonl" 128 32 || fail "$book: --size 128"
done

# Several books in one stream: chunks never cross books.
ib-parse "$root/shared/fixtures/books/sherlock.txt" "$root/shared/fixtures/books/devils-dictionary.txt" | ib-chunk --no-pages > "$tmp/two.jsonl"
books=$(python3 -c "
import json,sys
seen=[];cur=None
for l in open('$tmp/two.jsonl'):
    r=json.loads(l)
    if r['type']=='book': cur=r['id']; seen.append(cur)
    elif r['type']=='chunk' and r['book_id']!=cur: sys.exit('chunk of another book')
    elif r['type']=='page': sys.exit('page kept despite --no-pages')
print(len(seen))") || fail "two books: $books"
[ "$books" = 2 ] || fail "two books: saw $books"

# Words mode needs no model.
ib-parse "$root/shared/fixtures/books/sherlock.txt" | IB_MODEL_DIR=/nonexistent ib-chunk --tokenizer words --size 300 --no-pages \
  | python3 -c "
import json,sys
n=0
for l in sys.stdin:
    r=json.loads(l)
    if r['type']=='chunk':
        n+=1
        assert len(r['text'].split())<=300, r['token_count']
assert n>50, n" || fail "words mode"

# Bad input: one line on stderr naming the place, non-zero exit, no crash.
expect_error() {  # expect_error NAME PATTERN < input
  local name=$1 pattern=$2
  ib-chunk > "$tmp/out" 2> "$tmp/err"; local code=$?
  local lines; lines=$(wc -l < "$tmp/err")
  if [ "$code" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$tmp/err"; then
    fail "$name: exit $code, stderr: $(head -c 300 "$tmp/err")"
  fi
}
printf '{"type":"book","id":"b","title":"t"}\n{"type":"page",\n' | expect_error "malformed JSON" '<stdin>:2: malformed JSON'
printf '{"type":"page","book_id":"x","page":1,"text":"hi"}\n' | expect_error "unannounced book" "<stdin>:1: page for book 'x'"
printf '{"type":"book","id":"b","title":"t"}\n{"type":"page","book_id":"b","page":1,"text":"\xff\xfe"}\n' | expect_error "non-UTF-8" '<stdin>:2: .*UTF-8'
head -c 100000000 /dev/zero | tr '\0' 'a' | expect_error "100 MB line" '<stdin>:1: line is longer than'
: | ib-chunk > "$tmp/out" 2> "$tmp/err" || fail "empty stream exit code"
[ -s "$tmp/out" ] && fail "empty stream wrote output"
[ -s "$tmp/err" ] && fail "empty stream wrote to stderr"
exit $status
