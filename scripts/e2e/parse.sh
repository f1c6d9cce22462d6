#!/usr/bin/env bash
# ib-parse end to end: every sample book in every format; several inputs with
# failures in between (one stderr line each, no records for a failed book, the
# others written, exit 1); hostile files; stdin; encodings; URLs over a local
# HTTP server (exit 4 when only URLs fail).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
books="$root/shared/fixtures/books"
tmp=$(mktemp -d); server_pid=
trap 'rm -rf "$tmp"; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# check FILE.jsonl: one book record first per book, then pages 1..page_count of that book.
check() {
  python3 - "$1" <<'PY'
import json, sys
book = None; expect = 0; books = 0
for n, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    if r["type"] == "book":
        if book is not None and expect != book["page_count"] + 1: sys.exit(f"line {n}: previous book had {expect - 1} pages, said {book['page_count']}")
        book, expect, books = r, 1, books + 1
        assert len(r["id"]) == 16 and r["sha256"].startswith(r["id"]) and r["title"], f"line {n}: bad book record"
    elif r["type"] == "page":
        if book is None or r["book_id"] != book["id"]: sys.exit(f"line {n}: page before its book")
        if r["page"] != expect: sys.exit(f"line {n}: page {r['page']}, expected {expect}")
        expect += 1
if book is not None and expect != book["page_count"] + 1: sys.exit(f"last book had {expect - 1} pages, said {book['page_count']}")
print(books)
PY
}

# 1. Every sample book in every format.
for book in sherlock devils-dictionary; do
  for ext in txt md html docx epub pdf; do
    ib-parse "$books/$book.$ext" > "$tmp/out.jsonl" 2> "$tmp/err" || fail "$book.$ext: exit $?: $(cat "$tmp/err")"
    [ -s "$tmp/err" ] && fail "$book.$ext: unexpected stderr: $(head -2 "$tmp/err")"
    n=$(check "$tmp/out.jsonl") || fail "$book.$ext: $n"
    format=$(head -1 "$tmp/out.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])')
    want=$(case $ext in txt) echo text;; md) echo markdown;; *) echo $ext;; esac)
    [ "$format" = "$want" ] || fail "$book.$ext: format $format, expected $want"
  done
done
# Sections: EPUB spine titles, PDF outline titles.
ib-parse "$books/sherlock.epub" | python3 -c '
import json,sys
t={r["section_title"] for r in map(json.loads,sys.stdin) if r["type"]=="page"}
assert "The Redheaded League" in t, t' || fail "sherlock.epub: section titles"
ib-parse "$books/sherlock.pdf" | python3 -c '
import json,sys
p=[r for r in map(json.loads,sys.stdin) if r["type"]=="page"]
assert len(p)==260, len(p)
assert any(r["section_title"]=="The Redheaded League" for r in p)' || fail "sherlock.pdf: pages or sections"

# 2. Several inputs, failures in between.
: > "$tmp/empty.txt"; mkdir "$tmp/dir"
printf 'caf\xe9\n' > "$tmp/latin1.txt"
ib-parse "$books/sherlock.txt" "$tmp/empty.txt" "$tmp/missing.txt" "$books/devils-dictionary.md" "$tmp/dir" "$tmp/latin1.txt" \
  > "$tmp/multi.jsonl" 2> "$tmp/multi.err"
rc=$?
[ $rc = 1 ] || fail "mixed inputs: exit $rc, expected 1"
[ "$(wc -l < "$tmp/multi.err")" = 4 ] || fail "mixed inputs: expected 4 stderr lines, got: $(cat "$tmp/multi.err")"
for f in empty.txt missing.txt dir latin1.txt; do grep -q "$f" "$tmp/multi.err" || fail "mixed inputs: no line names $f"; done
grep -q "byte offset 3" "$tmp/multi.err" || fail "latin1.txt: no byte offset in: $(grep latin1 "$tmp/multi.err")"
[ "$(check "$tmp/multi.jsonl")" = 2 ] || fail "mixed inputs: expected exactly 2 books"
ib-parse --encoding latin1 "$tmp/latin1.txt" | grep >/dev/null '"text":"café"' || fail "--encoding latin1"

# 3. stdin, --format, --title.
ib-parse --format markdown --title "From stdin" - < "$books/devils-dictionary.md" > "$tmp/stdin.jsonl" || fail "stdin: exit $?"
head -1 "$tmp/stdin.jsonl" | grep >/dev/null '"title":"From stdin".*"format":"markdown"' || fail "stdin: book record $(head -1 "$tmp/stdin.jsonl" | cut -c1-200)"
cat "$books/sherlock.epub" | ib-parse - > "$tmp/stdin2.jsonl"
head -1 "$tmp/stdin2.jsonl" | grep >/dev/null '"format":"epub"' || fail "stdin: EPUB detected by content"

# 4. Hostile files: exit 1, one stderr line naming the file, nothing on stdout.
python3 - "$tmp/h" "$books" <<'PY'
import os, sys, zipfile, shutil
d, books = sys.argv[1], sys.argv[2]
os.makedirs(d)
def epub(name, files, **kw):
    z = zipfile.ZipFile(os.path.join(d, name), "w")
    z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
    z.writestr("META-INF/container.xml", '<container><rootfiles><rootfile full-path="o.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
    for k, v in files.items(): z.writestr(k, v, compress_type=zipfile.ZIP_DEFLATED)
    z.close()
opf = '<package xmlns="http://www.idpf.org/2007/opf"><metadata/><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>'
epub("bomb.epub", {"o.opf": opf, "c.xhtml": b"<html><body>" + b" " * (300 << 20)})
epub("ratio.epub", {"o.opf": opf, "c.xhtml": b"<html><body>" + b" " * (60 << 20)})
epub("dotdot.epub", {"o.opf": opf, "c.xhtml": "<p>x</p>", "../../evil": "x"})
epub("absolute.epub", {"o.opf": opf, "c.xhtml": "<p>x</p>", "/tmp/evil": "x"})
lol = '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
epub("lol.epub", {"o.opf": opf, "c.xhtml": '<?xml version="1.0"?>' + lol + "<html><body>&d;</body></html>"})
epub("xxe.epub", {"o.opf": '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + opf.replace("<metadata/>", "<metadata><title>&x;</title></metadata>"), "c.xhtml": "<p>x</p>"})
open(os.path.join(d, "deep.html"), "w").write("<html><body>" + "<div>" * 100000 + "deep" + "</div>" * 100000 + "</body></html>")
data = open(os.path.join(books, "sherlock.epub"), "rb").read()
open(os.path.join(d, "truncated.epub"), "wb").write(data[: len(data) // 2])
data = open(os.path.join(books, "sherlock.docx"), "rb").read()
open(os.path.join(d, "truncated.docx"), "wb").write(data[: len(data) // 2])
data = open(os.path.join(books, "sherlock.pdf"), "rb").read()
open(os.path.join(d, "truncated.pdf"), "wb").write(data[: len(data) // 20])
open(os.path.join(d, "garbage.pdf"), "wb").write(b"%PDF-1.5\n" + os.urandom(3000))
open(os.path.join(d, "empty.epub"), "wb").write(b"")
open(os.path.join(d, "binary.txt"), "wb").write(b"\x7fELF\x02\x01\x01\x00" + os.urandom(64))
os.makedirs(os.path.join(d, "folder.pdf"))
shutil.copy(os.path.join(books, "sherlock.epub"), os.path.join(d, "lying.pdf"))
PY
for f in bomb.epub ratio.epub dotdot.epub absolute.epub lol.epub xxe.epub truncated.epub truncated.docx truncated.pdf garbage.pdf empty.epub binary.txt folder.pdf missing.epub; do
  timeout 60 ib-parse "$tmp/h/$f" > "$tmp/h.out" 2> "$tmp/h.err"; rc=$?
  [ $rc = 1 ] || fail "$f: exit $rc, expected 1 ($(head -c 300 "$tmp/h.err"))"
  [ -s "$tmp/h.out" ] && fail "$f: wrote records"
  [ "$(wc -l < "$tmp/h.err")" = 1 ] || fail "$f: expected one stderr line, got: $(head -5 "$tmp/h.err")"
  grep -q "$f" "$tmp/h.err" || fail "$f: message does not name the file: $(cat "$tmp/h.err")"
done
[ -e /tmp/evil ] && fail "a ZIP entry was written to /tmp/evil"
timeout 60 ib-parse "$tmp/h/deep.html" > "$tmp/h.out" 2>&1 && grep -q '"text":"deep"' "$tmp/h.out" || fail "deep.html: $(head -c 300 "$tmp/h.out")"
ib-parse "$tmp/h/lying.pdf" > "$tmp/lying.jsonl"
head -1 "$tmp/lying.jsonl" | grep >/dev/null '"format":"epub"' || fail "lying.pdf: not parsed as EPUB"

# 5. URLs over a local server.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$books" && exec python3 -m http.server "$port" --bind 127.0.0.1) > /dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null && break; sleep 0.1; done
ib-parse "http://127.0.0.1:$port/sherlock.html" "http://127.0.0.1:$port/devils-dictionary.pdf" > "$tmp/url.jsonl" 2> "$tmp/url.err" || fail "URL: exit $?: $(cat "$tmp/url.err")"
[ "$(check "$tmp/url.jsonl")" = 2 ] || fail "URL: expected 2 books"
grep -q '"title":"The Adventures of Sherlock Holmes".*"format":"html","source":"http://127.0.0.1' "$tmp/url.jsonl" || fail "URL: HTML book record"
ib-parse "http://127.0.0.1:$port/nothing-here.html" > "$tmp/url.out" 2> "$tmp/url.err"; rc=$?
[ $rc = 4 ] || fail "URL 404: exit $rc, expected 4"
grep -q "HTTP 404" "$tmp/url.err" || fail "URL 404: message $(cat "$tmp/url.err")"
[ -s "$tmp/url.out" ] && fail "URL 404: wrote records"

[ $status = 0 ] && echo "parse e2e: ok"
exit $status
