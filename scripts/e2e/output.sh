#!/usr/bin/env bash
# End-to-end: what a new user meets every day (issue 30), with the built tools
# and a real library made of hand-written records (no model needed):
#  - one output rule: ib-index list/show/get/stats, ib-search, ib-capture
#    (a line, status, suggest, export) and ib-ask print text on a terminal
#    (`script` gives them one) and JSON Lines in a pipe; --json and
#    --format text|json choose; --json with --format text is exit 2;
#  - one book resolver: "mobydick", "moby dik" and "melville" name Moby Dick in
#    ib-index show, ib-search --book, ib-ask --book and ib-capture export;
#    two editions of one title are told apart in the candidate list (format,
#    file, pages), exit 3;
#  - no silent no-ops: export BOOK exports that book only; export without
#    --format is Markdown on a terminal (said on stderr) and JSON in a pipe;
#    a search with no match says so on a terminal; a search bounded by the
#    reading position says so (stderr on a terminal, up_to_page in JSON);
#  - ib-search --min-score and --page with a printed label;
#  - ib-ask without --book in a library of several books: the question picks
#    the book (said on stderr); questions on stdin still need --book (exit 3).
# Needs the tools on PATH (scripts/test puts $IB_BIN there), python3, script.
set -uo pipefail
tmp=$(mktemp -d /tmp/ib-e2e-output.XXXXXX); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "output.sh: FAIL: $*" >&2; status=1; }
export IB_DB="$tmp/library.db" LC_ALL=C NO_COLOR=1
command -v script >/dev/null || { echo "output.sh: skipped (no script(1) for a terminal)" >&2; exit 0; }

# tty CMD...: runs CMD with stdout on a terminal; stdout in $tmp/tty.out, stderr in $tmp/tty.err.
tty() {
  printf '%q ' "$@" > "$tmp/cmd"
  script -qec "$(cat "$tmp/cmd") 2>$tmp/tty.err; echo \"exit=\$?\" >$tmp/tty.rc" /dev/null < /dev/null | tr -d '\r' > "$tmp/tty.out"
}
is_json() { python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin if l.strip()] or sys.exit(1)' 2>/dev/null; }

# Three books: two editions of Moby Dick (text and EPUB), and Dracula with printed labels i..viii.
python3 - "$tmp/books.jsonl" <<'EOF'
import json, sys
def book(bid, title, author, fmt, source, pages, texts, labels=None):
    out = [{"type": "book", "id": bid, "title": title, "authors": [author], "language": "en", "format": fmt,
            "source": source, "sha256": (bid * 4)[:64], "page_count": pages}]
    for p in range(1, pages + 1):
        out.append({"type": "page", "book_id": bid, "page": p, "label": labels[p - 1] if labels else str(p),
                    "section_index": None, "section_title": None, "text": f"page {p}"})
    for i, t in enumerate(texts):
        last = pages if i == len(texts) - 1 else i + 1   # the last chunk reaches the book's end
        out.append({"type": "chunk", "book_id": bid, "index": i, "start_page": i + 1, "end_page": last,
                    "start_offset": 0, "end_offset": 0, "token_count": 12, "text": t})
    return out
whale = ["Call me Ishmael, said the sailor by the harbour.", "The white whale rose from the grey sea.",
         "Queequeg carved his coffin from a great log.", "The harpoon flew and the whale was gone."]
recs = book("aa00aa00aa00aa00", "Moby Dick; or, The Whale", "Herman Melville", "text", "/books/moby.txt", 8, whale)
recs += book("bb11bb11bb11bb11", "Moby Dick; or, The Whale", "Herman Melville", "epub", "/books/moby-dick.epub", 9, whale)
recs += book("cc22cc22cc22cc22", "Dracula", "Bram Stoker", "text", "/books/dracula.txt", 8,
             ["Jonathan Harker kept a journal in the castle.", "The count climbed down the castle wall like a lizard.",
              "Mina wrote letters to Lucy by the sea.", "Van Helsing brought garlic to the sick room.",
              "The ship ran aground at Whitby in the storm."],
             labels=["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"])
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in recs))
EOF
ib-index -q "$tmp/books.jsonl" || { echo "output.sh: FAIL: storing the books" >&2; exit 1; }
ib-capture 'Quote p. 2 of Dracula: "Like a lizard."' >/dev/null || fail "capture a Dracula quote"
ib-capture 'Quote p. 3 of aa00aa00aa00aa00: "A coffin for a lifebuoy."' >/dev/null || fail "capture a Moby Dick quote"

# ---------------------------------------------------------------- one output rule
# ib-ask's offline answers need the sentence model; without one its line is skipped.
ask=""
if [ -f "${IB_MODEL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/all-MiniLM-L6-v2}/config.json" ]; then
  ask="ib-ask --provider extractive --book Dracula 'Who climbed down the castle wall?'"
else
  echo "output.sh: ib-ask's output rule skipped (no sentence model)" >&2
fi
# Each: the command; piped it is JSON Lines, on a terminal it is not.
while IFS= read -r line; do
  [ -n "$line" ] || continue
  eval "set -- $line"
  out=$("$@" 2>/dev/null); [ -n "$out" ] && is_json <<<"$out" || fail "piped, $line: not JSON Lines: ${out:0:120}"
  out=$("$@" --format text 2>/dev/null); [ -n "$out" ] && ! is_json <<<"$out" || fail "piped, $line --format text: not text: ${out:0:120}"
  tty "$@"; [ -s "$tmp/tty.out" ] && ! is_json < "$tmp/tty.out" || fail "terminal, $line: not text: $(head -c 120 "$tmp/tty.out")"
  tty "$@" --json; is_json < "$tmp/tty.out" || fail "terminal, $line --json: not JSON: $(head -c 120 "$tmp/tty.out")"
  "$@" --json --format text >/dev/null 2>&1; rc=$?
  [ $rc = 2 ] || fail "$line --json --format text: exit $rc, not 2"
done <<EOF
ib-index list
ib-index stats
ib-index show Dracula
ib-index get Dracula:2
ib-search --mode text --all-pages castle
ib-capture status
ib-capture suggest
ib-capture --dry-run 'Note p. 4 of Dracula: garlic again'
$ask
EOF
echo "output.sh: ok: one output rule (text on a terminal, JSON Lines in a pipe, --json, --format)" >&2

# ---------------------------------------------------------------- one book resolver
for name in mobydick "moby dik" melville; do
  ib-index show "$name" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 3 ] && grep -q "aa00aa00aa00aa00  Moby Dick; or, The Whale by Herman Melville (text, moby.txt, 8 pages)" "$tmp/err" \
    && grep -q "bb11bb11bb11bb11  Moby Dick; or, The Whale by Herman Melville (epub, moby-dick.epub, 9 pages)" "$tmp/err" \
    || fail "ib-index show '$name': exit $rc, two editions not told apart: $(cat "$tmp/err")"
done
for tool in "ib-index show" "ib-search --mode text --all-pages --json castle --book" "ib-ask --list --book" "ib-capture export --format json"; do
  eval "set -- $tool"
  "$@" stoker >/dev/null 2>"$tmp/err" || fail "$tool stoker (an author's name): $(cat "$tmp/err")"
  "$@" dracual >/dev/null 2>"$tmp/err" || fail "$tool dracual (a typo): $(cat "$tmp/err")"
  "$@" melville >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 3 ] && grep -q "(epub, moby-dick.epub, 9 pages)" "$tmp/err" || fail "$tool melville: exit $rc: $(cat "$tmp/err")"
done
ib-capture 'Quote p. 2 of mobydick: "Call me Ishmael."' >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && grep -q "aa00aa00aa00aa00  Moby Dick; or, The Whale — Herman Melville (text, moby.txt, 8 pages)" "$tmp/err" \
  && grep -q "(epub, moby-dick.epub, 9 pages)" "$tmp/err" || fail "ib-capture: editions not told apart: exit $rc: $(cat "$tmp/err")"
echo "output.sh: ok: one book resolver (words run together, typos, authors; editions told apart)" >&2

# ---------------------------------------------------------------- no silent no-ops
ib-capture export --format json Dracula > "$tmp/export.jsonl" || fail "export --format json Dracula"
[ "$(python3 -c 'import json,sys; print(",".join(json.loads(l)["title"] for l in open(sys.argv[1])))' "$tmp/export.jsonl")" = Dracula ] \
  || fail "export Dracula exported other books too: $(cat "$tmp/export.jsonl")"
ib-capture export > "$tmp/export.pipe" 2>"$tmp/err" || fail "export without --format in a pipe: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/export.pipe")" = 2 ] && is_json < "$tmp/export.pipe" || fail "export in a pipe: not a JSON line per book"
tty ib-capture export
grep -q "^# Dracula" "$tmp/tty.out" && grep -q "markdown" "$tmp/tty.err" || fail "export on a terminal: not Markdown said on stderr: $(cat "$tmp/tty.err")"
tty ib-search --mode text --all-pages zeppelin
grep -q "exit=0" "$tmp/tty.rc" && grep -q "no passage matched" "$tmp/tty.err" || fail "no match on a terminal: silent: $(cat "$tmp/tty.err")"
ib-index -q set-page Dracula 3
tty ib-search --mode text castle
grep -q "'Dracula' up to p. 3 (the reading position); --all-pages" "$tmp/tty.err" || fail "bounded search on a terminal: not said: $(cat "$tmp/tty.err")"
ib-search --mode text castle | grep -q '"up_to_page":3' || fail "bounded search in JSON: no up_to_page"
ib-search --mode text --all-pages castle | grep -q 'up_to_page' && fail "--all-pages: up_to_page set"
(cd "$tmp" && tty ib-capture chart streak --format svg -o streak.svg)
grep -q "^wrote streak.svg (svg, " "$tmp/tty.out" || fail "chart on a terminal: $(cat "$tmp/tty.out")"
(cd "$tmp" && ib-capture chart streak --format svg -o streak.svg) | is_json || fail "chart in a pipe: not its JSON record"
echo "output.sh: ok: export BOOK, export's default format, no match and the reading position said" >&2

# ---------------------------------------------------------------- --min-score, --page LABEL
[ -z "$(ib-search --mode text --all-pages --min-score 1000000 castle)" ] || fail "--min-score 1000000 kept results"
[ "$(ib-search --mode text --all-pages --min-score -1000000 castle | wc -l)" = "$(ib-search --mode text --all-pages castle | wc -l)" ] \
  || fail "--min-score -1000000 dropped results"
ib-search --mode text --min-score x castle >/dev/null 2>&1; [ $? = 2 ] || fail "--min-score x: not a usage error"
out=$(ib-search --mode text --book Dracula --page iv "garlic sick room") && grep -q '"end_page":4' <<<"$out" \
  || fail "--page iv: the passage on page iv not found: $out"
[ -z "$(ib-search --mode text --book Dracula --page iii "garlic sick room")" ] || fail "--page iii let page iv through"
ib-search --mode text --book Dracula --page xl castle >/dev/null 2>&1; [ $? = 2 ] || fail "--page xl: not a usage error"
echo "output.sh: ok: --min-score and --page LABEL" >&2

# ---------------------------------------------------------------- ib-ask without --book: the question picks the book
if [ -n "$ask" ]; then
  out=$(ib-ask --provider extractive --format text 'Who climbed down the castle wall like a lizard?' 2>"$tmp/err") \
    && grep -q "asking 'Dracula' (cc22cc22)" "$tmp/err" && grep -q "lizard" <<<"$out" \
    || fail "ib-ask without --book in a library of three books: $(cat "$tmp/err") $out"
  echo 'Who climbed the wall?' | ib-ask --provider extractive >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 3 ] && grep -q "choose one with --book" "$tmp/err" || fail "questions on stdin without --book: exit $rc: $(cat "$tmp/err")"
  echo "output.sh: ok: ib-ask without --book asks the book the question finds" >&2
fi

[ $status = 0 ] && echo "output e2e: one output rule, one book resolver, nothing silent"
exit $status
