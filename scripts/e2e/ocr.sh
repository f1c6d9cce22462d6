#!/usr/bin/env bash
# OCR end to end (ib-parse on images and scanned PDFs, with worker processes):
#  - every image fixture parses to a book whose pages say "ocr": true with a confidence;
#  - bad images (empty, truncated, junk after a signature, 50,000 x 50,000 pixels, no
#    text): one stderr line naming the file each, no records, exit 1, peak RSS < 200 MB;
#  - --ocr never leaves a scan's pages empty; --ocr and --lang refuse bad values (exit 2);
#  - a scanned Sherlock PDF (4 pages from scripts/gen/ocr-images) through
#    ib-parse | ib-chunk | ib-embed | ib-index: word recall >= 0.97 and a search for a
#    sentence of page 3 finds page 3;
#  - ib-capture --image: a quote found by retyped words; a corrupt image or a weak
#    match stores nothing (exit 1).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
fixtures="$root/shared/fixtures/ocr"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
export IB_DB="$tmp/library.db"

for f in page.png photo.jpg rotated.png two-pages.tif page.webp chinese.png scanned.pdf; do
  ib-parse "$fixtures/$f" > "$tmp/out.jsonl" 2> "$tmp/err" || fail "$f: exit $?: $(cat "$tmp/err")"
  [ -s "$tmp/err" ] && fail "$f: unexpected stderr: $(head -2 "$tmp/err")"
  python3 - "$tmp/out.jsonl" <<'PY' || fail "$f: records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
book, pages = recs[0], recs[1:]
assert book["type"] == "book" and book["page_count"] == len(pages) >= 1
for p in pages:
    assert p["ocr"] is True and 0 <= p["ocr_confidence"] <= 100 and p["text"], p
PY
done

# Bad images.
: > "$tmp/empty.png"
head -c 20000 "$fixtures/page.png" > "$tmp/cut.png"
printf '\xff\xd8\xff\xe0junkjunkjunk' > "$tmp/junk.jpg"
python3 - "$tmp" <<'PY'
import struct, zlib, sys
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
def png(w, h, rows=b""):
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1] + "/huge.png", "wb").write(png(50000, 50000, b"\0" * 100000))
open(sys.argv[1] + "/white.png", "wb").write(png(400, 300, (b"\0" + b"\xff" * 400) * 300))
PY
for f in empty.png cut.png junk.jpg huge.png white.png; do
  /usr/bin/time -f "%M" -o "$tmp/rss" ib-parse "$tmp/$f" > "$tmp/out" 2> "$tmp/err"; code=$?
  [ "$code" = 1 ] || fail "$f: exit $code, expected 1"
  [ -s "$tmp/out" ] && fail "$f: records written"
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "^ib-parse: $tmp/$f: " "$tmp/err" || fail "$f: stderr not one line naming the file: $(cat "$tmp/err")"
  [ "$(tail -1 "$tmp/rss")" -lt 204800 ] || fail "$f: peak RSS $(tail -1 "$tmp/rss") KB"
done

ib-parse --ocr never "$fixtures/scanned.pdf" | python3 -c '
import json, sys
pages = [json.loads(l) for l in sys.stdin][1:]
assert len(pages) == 2 and all(p["text"] == "" and "ocr" not in p for p in pages), pages' || fail "--ocr never"
ib-parse --ocr sometimes "$fixtures/page.png" 2>/dev/null; [ $? = 2 ] || fail "--ocr sometimes: not a usage error"
ib-parse --lang 'eng;rm' "$fixtures/page.png" 2>/dev/null; [ $? = 2 ] || fail "--lang eng;rm: not a usage error"

# The scanned Sherlock end to end (workers: ib-parse is single-threaded here, 2+ CPUs).
PAGES=4 IB_PARSE="$(command -v ib-parse)" "$root/scripts/gen/ocr-images" "$tmp/images" 2>/dev/null || fail "ocr-images"
ib-parse "$tmp/images/sherlock-scan.pdf" > "$tmp/scan.jsonl" || fail "ib-parse scan"
python3 - "$tmp/scan.jsonl" "$tmp/images/sherlock-scan.txt" <<'PY' || fail "scan recall"
import json, sys, collections, re
pages = [json.loads(l) for l in open(sys.argv[1])][1:]
truth = open(sys.argv[2]).read().split("\f")
words = lambda t: collections.Counter(w for w in (re.sub(r"[^\w]", "", x.lower()) for x in t.replace("\u2014", " ").split()) if w)
hit = total = 0
for p, t in zip(pages, truth):
    a, b = words(t), words(p["text"]); hit += sum(min(n, b[w]) for w, n in a.items()); total += sum(a.values())
print(f"scanned PDF: {len(pages)} pages, word recall {hit / total:.4f}")
assert len(pages) == len(truth) and hit / total >= 0.97
PY
ib-chunk < "$tmp/scan.jsonl" | ib-embed | ib-index -q || fail "indexing the scan"
sentence=$(python3 -c '
import sys
lines = open(sys.argv[1]).read().split("\f")[2].split("\n")
print(" ".join(lines[len(lines) // 2].split()[:9]))' "$tmp/images/sherlock-scan.txt")
ib-search --json -k 1 --mode hybrid "$sentence" | grep -q '"start_page":3' || fail "search for '$sentence' did not find page 3: $(ib-search --json -k 1 "$sentence" | head -c 300)"
# ib-capture --image: the photo fixture quoted by a few retyped words, page from the line;
# a corrupt image and a low-confidence read store nothing.
ib-capture "Reading The Adventures of Sherlock Holmes" > /dev/null 2>&1 || fail "ib-capture Reading"
out=$(ib-capture --image "$fixtures/photo.jpg" --text "this marriage rather simplifies matters" p. 3) || fail "ib-capture --image: exit $?"
echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["type"] == "quote" and r["page"] == 3 and "this marriage rather simplifies matters" in r["text"], r' || fail "ib-capture --image record: $out"
before=$(ib-capture status --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')
ib-capture --image "$tmp/cut.png" > /dev/null 2>&1; [ $? = 1 ] || fail "ib-capture --image corrupt: not exit 1"
ib-capture --image "$fixtures/photo.jpg" --text "elementary my dear watson the game is afoot" > "$tmp/out" 2>/dev/null; [ $? = 1 ] || fail "weak --text match: not exit 1"
[ -s "$tmp/out" ] && fail "weak --text match printed a record"
after=$(ib-capture status --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))')
[ "$before" = "$after" ] || fail "a refused --image capture changed the library"

[ $status -eq 0 ] && echo "ocr e2e: images, bad images, --ocr never, scanned PDF end to end (search finds its page)"
exit $status
