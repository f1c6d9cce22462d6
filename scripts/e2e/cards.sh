#!/usr/bin/env bash
# Quote cards, charts, the status picture and suggestions end to end:
#  - every card style as PNG (cairo) and SVG (rendered again by rsvg-convert):
#    each PNG decodes at the requested size and tesseract reads back the quote
#    and its attribution (English and Chinese); a 600-character quote's last
#    words are read; `card today` works;
#  - bad input: no such quote (exit 1), a bad --style or --size (exit 2), an
#    -o in a missing folder (exit 1, nothing left behind);
#  - every chart and the status picture in both renderers, read back; --private
#    keeps the quote off the picture;
#  - suggest: ten evenings at 21:00, then IB_NOW at 20:55 on the eleventh puts
#    "continue" first; a bad IB_NOW is exit 2; the waybar tooltip carries them;
#  - a plain capture never loads cairo or pango; export --format cards writes
#    1,000 cards (the rate is printed).
# The pictures stay in .build/cards-e2e/ for anyone to look at.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
for lib in libcairo.so.2 libpangocairo-1.0.so.0; do
  ldconfig -p | grep -q "$lib" || { echo "SKIP: cards e2e: $lib absent (scripts/install-deps run)"; exit 0; }
done
for tool in rsvg-convert tesseract; do
  command -v "$tool" > /dev/null || { echo "SKIP: cards e2e: $tool absent (scripts/install-deps test)"; exit 0; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out="$root/.build/cards-e2e"; rm -rf "$out"; mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
export IB_DB="$tmp/library.db" TZ=UTC
unset IB_TODAY IB_NOW

# read_back EXPECTED FILE LANG: tesseract's reading of FILE holds EXPECTED's letters, in order, at >= 90%.
read_back() {
  tesseract "$2" - -l "$3" 2> /dev/null > "$tmp/ocr.txt"
  python3 - "$1" "$tmp/ocr.txt" <<'PY'
import sys
def letters(s): return [c for c in s.lower() if c.isalnum()]
a, b = letters(sys.argv[1]), letters(open(sys.argv[2]).read())
row = [0] * (len(b) + 1)
for x in a:
    diag = 0
    for j in range(1, len(b) + 1):
        up = row[j]
        row[j] = diag + 1 if x == b[j - 1] else max(row[j], row[j - 1])
        diag = up
share = row[len(b)] / max(1, len(a))
sys.exit(0 if share >= 0.9 else 1)
PY
}
# png_size FILE W H: a PNG that decodes (zlib stream checked) at W x H.
png_size() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
i, idat = 8, b""
while i < len(data):
    n, t = struct.unpack(">I4s", data[i:i + 8]); idat += data[i + 8:i + 8 + n] if t == b"IDAT" else b""; i += 12 + n
raw = zlib.decompress(idat)
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), (w, h)
assert len(raw) >= h * (w + 1), "short image data"
PY
}
# both NAME W H EXPECTED LANG: NAME.png (cairo) and NAME.svg (through rsvg-convert) each decode at W x H and read back EXPECTED.
both() {
  rsvg-convert "$out/$1.svg" -o "$out/$1.rsvg.png" || { fail "$1: rsvg-convert failed"; return; }
  for f in "$out/$1.png" "$out/$1.rsvg.png"; do
    png_size "$f" "$2" "$3" || fail "$(basename "$f"): not a ${2}x$3 PNG"
    read_back "$4" "$f" "$5" || fail "$(basename "$f"): OCR did not read back '$4': $(tr '\n' ' ' < "$tmp/ocr.txt")"
  done
}

quote="You have power over your mind, not outside events. Realize this, and you will find strength."
ib-capture --create "Reading Meditations by Marcus Aurelius, 254 pages" > /dev/null 2>&1
ib-capture "Quote p. 47 of Meditations: \"$quote\"" > /dev/null || fail "quote not stored"
ib-capture --create '摘录 第12页：「人类的历史就是一部想象的历史，我们因为相信同样的故事而合作。」——《人类简史》' > /dev/null 2>&1
long="It is not that we have a short time to live, but that we waste a lot of it. Life is long enough, and a sufficiently generous amount has been given to us for the highest achievements if it were all well invested. But when it is wasted in heedless luxury and spent on no good activity, we are forced at last by death's final constraint to realize that it has passed away before we knew it was passing. So it is: we are not given a short life but we make it short, and we are not ill-supplied but wasteful of it. Just as great and princely wealth is squandered the moment it falls to a careless and bad owner."
ib-capture "Quote p. 3 of Meditations: \"$long\"" > /dev/null || fail "long quote not stored"

for style in minimal serif modern literary; do
  ib-capture card 1 --style "$style" -o "$out/card-$style.png" > "$tmp/rec" || fail "card $style png: exit $?"
  grep -q '"width":1080,"height":1080' "$tmp/rec" || fail "card $style: record $(cat "$tmp/rec")"
  ib-capture card 1 --style "$style" --format svg -o "$out/card-$style.svg" > /dev/null || fail "card $style svg"
  both "card-$style" 1080 1080 "$quote Meditations Marcus Aurelius p. 47" eng
done
ib-capture card 2 --style serif --size 1080x1350 -o "$out/card-zh.png" > /dev/null && ib-capture card 2 --size 1080x1350 -o "$out/card-zh.svg" > /dev/null
both card-zh 1080 1350 "人类的历史就是一部想象的历史，我们因为相信同样的故事而合作。人类简史第12页" chi_sim
ib-capture card 3 --style minimal -o "$out/card-long.png" > /dev/null && ib-capture card 3 --style minimal -o "$out/card-long.svg" > /dev/null
both card-long 1080 1080 "falls to a careless and bad owner. Meditations" eng
ib-capture card today -o "$tmp/today.svg" > /dev/null && grep -q '<svg' "$tmp/today.svg" || fail "card today"

# Bad input: one stderr line, the right exit, no file.
check() {  # check EXIT NAME ARGS...: exit status EXIT, one stderr line naming the problem (and usage's "Try" hint), nothing written
  local want=$1 name=$2; shift 2
  (cd "$tmp" && ib-capture "$@" > "$tmp/o" 2> "$tmp/e"); local got=$?
  [ "$got" = "$want" ] || fail "$name: exit $got, wanted $want ($(cat "$tmp/e"))"
  [ "$(grep -vc '^Try ' "$tmp/e")" = 1 ] || fail "$name: stderr is not one line: $(cat "$tmp/e")"
  [ -s "$tmp/o" ] && fail "$name: wrote to stdout: $(cat "$tmp/o")"
}
check 1 "no such quote" card 999 -o "$tmp/x.png"
check 2 "bad style" card 1 --style gothic -o "$tmp/x.png"
check 2 "bad size" card 1 --size 10x10 -o "$tmp/x.png"
check 2 "bad format" card 1 --format gif
check 1 "missing folder" card 1 -o "$tmp/nowhere/x.png"
check 2 "style without a picture" --style serif read 20 pages
[ -e "$tmp/x.png" ] && fail "a refused card left $tmp/x.png"
ls "$tmp"/nowhere* "$tmp"/*.tmp* 2> /dev/null | grep -q . && fail "a temporary file was left behind"

# Ten evenings at 21:00 (and a quote each); the eleventh at 20:55 suggests that book first.
for d in 01 02 03 04 05 06 07 08 09 10; do
  ib-capture --now "2026-11-${d}T21:00:00Z" --today "2026-11-$d" read 10 pages of Meditations > /dev/null || fail "progress $d"
done
IB_NOW=2026-11-11T20:55:00Z ib-capture suggest --json > "$tmp/s.json" || fail "suggest: exit $?"
python3 - "$tmp/s.json" <<'PY' || fail "suggest: $(cat "$tmp/s.json")"
import json, sys
s = json.load(open(sys.argv[1]))["suggestions"]
assert s[0]["kind"] == "continue" and s[0]["title"] == "Meditations" and s[0]["days"] == 10, s[0]
assert all(x["reason"] for x in s)
PY
IB_NOW=2026-11-11T20:55:00Z ib-capture suggest --format text | head -1 | grep -q "^Continue Meditations" || fail "suggest text"
IB_NOW=2026-11-11T20:55:00Z ib-capture status --format waybar | grep -q '→ Continue Meditations' || fail "waybar tooltip lacks the suggestion"
IB_NOW=later ib-capture suggest > /dev/null 2>&1; [ $? = 2 ] || fail "a bad IB_NOW is not exit 2"

# Charts and the status picture, both renderers, read back.
ib-capture 'Plan: finish Meditations by 2026-11-30' --now 2026-11-11T21:30:00Z --today 2026-11-11 > /dev/null || fail "plan"
export IB_TODAY=2026-11-20 IB_NOW=2026-11-20T21:00:00Z
for chart in "streak:Reading days" "pages:Pages per day" "plan:Reading plans" "progress:Books in progress"; do
  kind=${chart%%:*} title=${chart#*:}
  ib-capture chart "$kind" -o "$out/chart-$kind.png" > "$tmp/rec" && ib-capture chart "$kind" -o "$out/chart-$kind.svg" > /dev/null \
    || fail "chart $kind: exit $?"
  read -r w h < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["width"], r["height"])' "$tmp/rec")
  both "chart-$kind" "$w" "$h" "$title" eng
done
ib-capture status --format png -o "$out/status.png" > /dev/null && ib-capture status --format svg -o "$out/status.svg" > /dev/null
both status 900 420 "Meditations Today Streak" eng
ib-capture status --format png --private -o "$out/status-private.png" > /dev/null && ib-capture status --format svg --private -o "$out/status-private.svg" > /dev/null
both status-private 900 420 "Quote hidden" eng
grep -q "power over your mind\|历史\|squandered" "$out/status-private.svg" && fail "--private picture holds the quote"
unset IB_TODAY IB_NOW

# A plain capture never loads cairo or pango.
LD_DEBUG=libs ib-capture --dry-run read 20 pages 2> "$tmp/ld" > /dev/null
grep -qE "libcairo|libpango" "$tmp/ld" && fail "a plain capture loaded cairo or pango"
LD_DEBUG=libs ib-capture card 1 -o "$tmp/c.png" 2> "$tmp/ld" > /dev/null
grep -q "libpangocairo" "$tmp/ld" || fail "LD_DEBUG shows no pango load when drawing (the check above proves nothing)"

# 1,000 quotes to cards.
python3 -c '
for i in range(997): print(f"Quote p. {i % 250 + 1} of Meditations: \"Thought number {i}: the soul becomes dyed with the colour of its thoughts.\"")
' | ib-capture > /dev/null || fail "1,000 quotes"
start=$(date +%s.%N)
ib-capture export --format cards "$tmp/cards" --style modern 2> "$tmp/e" || fail "export cards: $(cat "$tmp/e")"
end=$(date +%s.%N)
n=$(ls "$tmp/cards" | grep -c '^quote-[0-9]*\.png$')
[ "$n" = 1000 ] || fail "export --format cards wrote $n cards, not 1000"
grep -q "wrote 1000 cards" "$tmp/e" || fail "export cards: stderr $(cat "$tmp/e")"
png_size "$tmp/cards/quote-500.png" 1080 1080 || fail "quote-500.png"
echo "cards e2e: export --format cards: $(python3 -c "print(f'{1000 / ($end - $start):.0f}')") cards/s (1,000 PNGs, 1080x1080)"

[ $status -eq 0 ] && echo "cards e2e: every card style, chart and the status picture drawn by cairo and rsvg-convert, read back by tesseract; suggestions; pictures in $out"
exit $status
