#!/usr/bin/env bash
# ib-search end to end, with the real tools and model:
#  - the thesaurus file is sorted and has the synonyms search relies on;
#  - the first evaluation set (scripts/eval/search --check), a regression check:
#    fails when hybrid recall@5 is below 0.86 (0.84 without the thesaurus) or
#    below either mode, when hybrid MRR@5 does not beat both, when the held-out
#    questions give hybrid below 0.86 or not above both modes,
#    or when a reading position lets a hidden passage or any later page through;
#  - an unsegmented Chinese query finds its passage (text and hybrid);
#  - a chunk spanning pages 5-6 is hidden at page 5 (--page and the reading
#    position), shown at 6 and with --all-pages, in every mode;
#  - nothing found: no output, exit 0; empty library: stderr, exit 0; no library: exit 1;
#  - a hybrid query about nothing in the library (no word hit, nearest cosine < 0.35): nothing;
#  - --queries FILE: each line's results those of its own process, with query_line;
#    a line not UTF-8 or over 64 KiB, a missing file, a QUERY beside it: one line, exit 1/1/2/2;
#  - a plain diary's day ("2nd." under "SEPTEMBER 1666") is found by its date;
#  - the model's packed weights: the first search keeps them in the cache folder,
#    the next maps them, the results byte for byte the same; no cache folder: the same;
#  - --kind books; --help and the man page list the same options;
#  - ib-search starts light: linked at a fixed address (no PIE relocations at
#    start) and without Foundation's ICU half (a stray `import Foundation` for
#    log() had put 57 MB and ~2.5 ms of start-up into every search).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
export IB_DB="$tmp/library.db"

# --- start-up: what the binary carries
bin=$(command -v ib-search)
if command -v nm >/dev/null && command -v readelf >/dev/null; then
  nm "$bin" | grep -q FoundationInternationalization && fail "ib-search links Foundation (ICU); use Glibc or FoundationEssentials"
  readelf -h "$bin" | grep -q 'Type: *EXEC' || fail "ib-search is position-independent (Package.swift's -no-pie is missing)"
else
  echo "search e2e: nm/readelf not installed: start-up checks skipped"
fi

# --- CJK
ib-parse "$root/shared/fixtures/eval/chinese.txt" | ib-chunk --size 64 | ib-embed | ib-index -q || fail "indexing chinese.txt"
for mode in text hybrid; do
  out=$(ib-search --json -k 1 --mode "$mode" "侦探检查脚印皮靴")
  echo "$out" | grep >/dev/null "花园里的脚印" || fail "CJK ($mode): the footprint passage was not first: $out"
  echo "$out" | grep >/dev/null "«" || fail "CJK ($mode): no marked term in the snippet"
  # The TXT's "第二章" line is its structure: the passage's section, and what "第二章里" names.
  echo "$out" | grep >/dev/null '"section":\["第二章"\]' || fail "CJK ($mode): the passage's section is not 第二章: $out"
done
out=$(ib-search --json -k 1 --mode text "月亮兔子故事")
echo "$out" | grep >/dev/null "月亮和兔子的故事" || fail "CJK: the moon-rabbit passage was not found"

# --- a plain text as Project Gutenberg writes it: its CHAPTER lines, a journal's header (a voice)
# and the days written as paragraphs ("_4 May._--Measured the old stone bridge") are its structure.
ib-parse "$root/shared/fixtures/eval/plain-journal.txt" | ib-chunk --size 64 | ib-embed | ib-index -q || fail "indexing plain-journal.txt"
for mode in text hybrid; do
  out=$(ib-search --json -k 1 --mode "$mode" "the leaning arches and the washed out mortar of the pier")
  echo "$out" | grep >/dev/null "Measured the old stone bridge" || fail "plain text ($mode): the bridge passage was not first: $out"
  echo "$out" | grep >/dev/null '"section":\["CHAPTER I","THE SURVEYOR'"'"'S JOURNAL",' || fail "plain text ($mode): not in CHAPTER I's journal: $out"
  echo "$out" | grep >/dev/null '"voice":"THE SURVEYOR"' || fail "plain text ($mode): no voice: $out"
done
out=$(ib-search --json -k 1 --mode hybrid "what did the surveyor write on 10 May about carts crossing")
echo "$out" | grep >/dev/null '"section":\["CHAPTER II",' && echo "$out" | grep >/dev/null "_10 May._" \
  || fail "plain text: the entry of 10 May, in CHAPTER II, was not first: $out"

# --- spoilers: a hand-made book whose chunk 1 spans pages 5-6
python3 - "$tmp/book.jsonl" <<'EOF'
import json, sys
texts = ["The butler polished the silver in the pantry on a quiet morning.",
         "The gardener confessed that he had buried the stolen emerald necklace under the rose bushes.",
         "On the last page the detective walked home through the fog."]
book = {"type": "book", "id": "00112233aabbccdd", "title": "Spoiler Test", "authors": ["Ann Author"], "language": "en",
        "format": "text", "source": "/tmp/spoiler.txt", "sha256": "00112233aabbccdd" + "0" * 48, "page_count": 8}
out = [book] + [{"type": "page", "book_id": book["id"], "page": p, "label": str(p + 100), "section_index": None,
                 "section_title": None, "text": f"page {p}"} for p in range(1, 9)]
spans = [(1, 4), (5, 6), (7, 8)]
for i, (t, (a, b)) in enumerate(zip(texts, spans)):
    out.append({"type": "chunk", "book_id": book["id"], "index": i, "start_page": a, "end_page": b,
                "start_offset": 0, "end_offset": 0, "token_count": 20, "text": t})
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in out))
EOF
ib-embed < "$tmp/book.jsonl" | ib-index -q || fail "indexing the spoiler book"
q="where was the emerald necklace hidden"
for mode in text vector hybrid; do
  [ -z "$(ib-search --json --mode "$mode" --book "Spoiler Test" --page 5 "$q" | grep emerald)" ] || fail "$mode: pages 5-6 leaked at --page 5"
  ib-search --json --mode "$mode" --book "Spoiler Test" --page 6 "$q" | grep >/dev/null emerald || fail "$mode: not found at --page 6"
done
ib-index set-page "Spoiler Test" 5 >/dev/null || fail "set-page"
for mode in text vector hybrid; do
  out=$(ib-search --json --mode "$mode" -k 20 "$q")
  [ -z "$(echo "$out" | grep emerald)" ] || fail "$mode: the reading position (5) let pages 5-6 through"
  echo "$out" | grep >/dev/null '"end_page":[78]' && echo "$out" | grep >/dev/null 00112233aabbccdd && fail "$mode: pages 7-8 leaked"
  ib-search --json --mode "$mode" --all-pages "$q" | grep >/dev/null emerald || fail "$mode: --all-pages did not lift the position"
done
ib-search --json --all-pages -k 1 "$q" | grep >/dev/null '"start_label":"105","end_label":"106"' || fail "page labels missing"
ib-index set-page "Spoiler Test" 0 >/dev/null

# --- --queries: one process, each line's results the same as its own process's,
# tagged with its line; blank lines skipped; the reading position holds; bad input
printf '%s\n' "$q" "" "侦探检查脚印皮靴" "the butler polished the silver" "xylophonequasar" > "$tmp/queries.txt"
ib-index set-page "Spoiler Test" 5 >/dev/null
for mode in text vector hybrid; do
  ib-search --json --mode "$mode" -k 3 --queries "$tmp/queries.txt" > "$tmp/batch.jsonl" || fail "--queries ($mode): exit $?"
  python3 - "$tmp/batch.jsonl" "$tmp/queries.txt" "$mode" <<'EOF' || fail "--queries ($mode): not what separate searches give"
import json, subprocess, sys
batch = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
lines = open(sys.argv[2], encoding="utf-8").read().split("\n")
assert 2 not in {r["query_line"] for r in batch}, "results for a blank line"
for n, line in enumerate(lines, 1):
    if not line.strip(): continue
    alone = subprocess.run(["ib-search", "--json", "--mode", sys.argv[3], "-k", "3", line], capture_output=True, text=True, check=True).stdout
    alone = [json.loads(l) for l in alone.splitlines()]
    mine = [{k: v for k, v in r.items() if k != "query_line"} for r in batch if r["query_line"] == n]
    assert mine == alone, f"line {n}: {mine} != {alone}"
    assert not any("emerald" in r["text"] for r in mine), f"line {n}: past the reading position"
EOF
done
ib-index set-page "Spoiler Test" 0 >/dev/null
printf 'the butler\n' | ib-search --json -k 1 --queries - | grep >/dev/null '"query_line":1' || fail "--queries -: standard input"
printf 'the butler\n\xff\xfe\nthe gardener\n' > "$tmp/bad.txt"
out=$(ib-search --json -k 1 --queries "$tmp/bad.txt" 2>"$tmp/bad.err"); rc=$?
[ $rc -eq 1 ] && grep -q "bad.txt:2: not UTF-8" "$tmp/bad.err" && [ "$(echo "$out" | grep -c '"query_line":1')" -eq 1 ] \
  && ! echo "$out" | grep -q '"query_line":3' || fail "--queries, a line not UTF-8: exit $rc, $(cat "$tmp/bad.err")"
head -c 70000 /dev/zero | tr '\0' 'a' > "$tmp/long.txt"
ib-search --json --queries "$tmp/long.txt" >/dev/null 2>"$tmp/long.err"; rc=$?
[ $rc -eq 1 ] && grep -q "long.txt:1: line is longer than 65536 bytes" "$tmp/long.err" || fail "--queries, a 70 kB line: exit $rc, $(cat "$tmp/long.err")"
ib-search --queries "$tmp/queries.txt" "and a query" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--queries with a QUERY is not exit 2"
ib-search --queries "$tmp/no-such-file" >/dev/null 2>"$tmp/nofile.err"; rc=$?
[ $rc -eq 2 ] && grep -q "no-such-file" "$tmp/nofile.err" || fail "--queries, a missing file: exit $rc, $(cat "$tmp/nofile.err")"

# --- the model's packed weights, kept in the cache folder: the first search writes
# them after its results, the next maps them; the results are the same byte for
# byte, and a cache folder that cannot be written changes nothing.
packed_cache="$tmp/packed-cache"; mkdir -p "$packed_cache"
pq="why does the butler hide the letter"
first=$(XDG_CACHE_HOME="$packed_cache" IB_SEARCH_TIMING=1 ib-search --json --explain "$pq" 2>"$tmp/packed1.err")
n=$(ls "$packed_cache/ib/packed/" 2>/dev/null | grep -c '\.f32$')
[ "$n" -eq 1 ] || fail "packed weights: the first search left $n files in \$XDG_CACHE_HOME/ib/packed"
grep -q "timing: embed (weights packed)" "$tmp/packed1.err" && fail "packed weights: the first search had them already"
second=$(XDG_CACHE_HOME="$packed_cache" IB_SEARCH_TIMING=1 ib-search --json --explain "$pq" 2>"$tmp/packed2.err")
grep -q "timing: embed (weights packed)" "$tmp/packed2.err" || fail "packed weights: the second search did not map them: $(grep timing "$tmp/packed2.err" | tr '\n' ' ')"
[ -n "$first" ] && [ "$first" = "$second" ] || fail "packed weights: the results differ with them"
: > "$tmp/a-file"   # a cache folder under a file: nothing can be written there, even by root
third=$(XDG_CACHE_HOME="$tmp/a-file/cache" ib-search --json --explain "$pq" 2>"$tmp/packed3.err"); rc=$?
[ $rc -eq 0 ] && [ "$third" = "$first" ] && [ ! -s "$tmp/packed3.err" ] || fail "packed weights: a cache folder that cannot be made: exit $rc, $(cat "$tmp/packed3.err")"

# --- nothing found, books, bad BOOK, empty and missing libraries
out=$(ib-search --json --mode text "xylophonequasar"); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || fail "a query that finds nothing: exit $rc, output '$out'"
# A hybrid search about nothing in the library (no word in any passage, the nearest far in
# meaning) shows nothing; --min-score shows what the fusion ranked anyway.
off="bitcoin mining rig gpu"
[ -z "$(ib-search --json "$off")" ] || fail "a query about nothing in the library: results shown"
[ -n "$(ib-search --json --min-score -1000000 "$off")" ] || fail "--min-score -1000000: the fused results not shown"
ib-search --json --kind books "spoil tes" | grep >/dev/null '"kind":"book".*"title":"Spoiler Test"' || fail "--kind books"
ib-search --book "no such book at all" "x" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "unknown --book: exit $rc, expected 1"
ib-search --bogus x >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown option is not exit 2"
ib-index -q --db "$tmp/empty.db" < /dev/null || fail "an empty library: ib-index with no records"  # stats would not create one
err=$(ib-search --db "$tmp/empty.db" "anything" 2>&1 >/dev/null); rc=$?
[ $rc -eq 0 ] && echo "$err" | grep >/dev/null "no books" || fail "empty library: exit $rc, stderr '$err'"
ib-search --db "$tmp/missing.db" "anything" >/dev/null 2>&1; [ $? -eq 1 ] || fail "a missing library is not exit 1"
[ ! -e "$tmp/missing.db" ] || fail "ib-search created a library"

# --- a library without vectors: hybrid falls back to text (a note on stderr), vector fails
ib-parse "$root/shared/fixtures/eval/chinese.txt" | ib-chunk | ib-index -q --db "$tmp/novec.db" 2>/dev/null
out=$(ib-search --db "$tmp/novec.db" --json "月亮兔子" 2>"$tmp/novec.err"); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep >/dev/null "兔子" && grep -q "text search only" "$tmp/novec.err" || fail "no vectors: hybrid did not fall back to text (exit $rc)"
ib-search --db "$tmp/novec.db" --mode vector "月亮兔子" >/dev/null 2>&1; [ $? -eq 1 ] || fail "no vectors: --mode vector is not exit 1"

# --- --expand/--rerank (through ib-ask --search) against a stand-in OpenAI-compatible
# server on 127.0.0.1: the question goes out, the rewrites are searched, the model's
# order is kept, nothing past the reading position reaches it; a dead provider or
# none configured: one warning and the plain results, exit 0.
ib-index set-page "Spoiler Test" 6 >/dev/null   # pages 7-8 (the fog) are past the reader
python3 "$here/lib/stub-openai.py" "$tmp/provider" $'butler silver pantry\nthe butler cleaning silver\nThe butler polished the silver.' "2" &
server=$!
for _ in $(seq 50); do [ -s "$tmp/provider/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/provider/port" 2>/dev/null)
out=$(OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=k ib-search --provider openai --expand --rerank --json -k 2 \
      --book "Spoiler Test" "$q" 2>"$tmp/assist.err"); rc=$?
wait $server
[ $rc -eq 0 ] && [ ! -s "$tmp/assist.err" ] || fail "--expand --rerank: exit $rc, stderr $(cat "$tmp/assist.err")"
[ -f "$tmp/provider/request1.json" ] || fail "--expand --rerank: the provider was not asked twice"
grep -q "where was the emerald necklace hidden" "$tmp/provider/request0.json" 2>/dev/null || fail "--expand: the question was not sent"
grep -q '\[1\] ' "$tmp/provider/request1.json" 2>/dev/null || fail "--rerank: no numbered passages were sent"
grep -q "fog" "$tmp/provider/request1.json" 2>/dev/null && fail "--rerank: a passage past the reading position reached the provider"
grep -q "emerald" "$tmp/provider/request1.json" 2>/dev/null || fail "--rerank: the passage the question names was not a candidate"
python3 - "$tmp/provider/request1.json" "$(echo "$out" | head -1)" <<'PY' || fail "--expand --rerank: the model's first choice (its 2) is not first: $out"
import json, re, sys
prompt = json.load(open(sys.argv[1]))["messages"][-1]["content"]
second = re.search(r"\[2\] (.*?)(?:\n\n|$)", prompt, re.S).group(1)
assert json.loads(sys.argv[2])["text"][:40] in second, (second, sys.argv[2])
PY
err=$(OPENAI_BASE_URL="http://127.0.0.1:9/v1" OPENAI_API_KEY=k ib-search --provider openai --expand --rerank --json \
      --book "Spoiler Test" "butler" 2>&1 >"$tmp/plain.out"); rc=$?
[ $rc -eq 0 ] && [ "$(echo "$err" | grep -c .)" -eq 1 ] && grep -q butler "$tmp/plain.out" \
  || fail "a dead provider: exit $rc, stderr '$err' (want one warning and the plain results)"
err=$(env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u IB_PROVIDER ib-search --rerank --json --book "Spoiler Test" "butler" 2>&1 >/dev/null); rc=$?
[ $rc -eq 0 ] && echo "$err" | grep -q "need a provider" || fail "no provider: exit $rc, stderr '$err'"
ib-index set-page "Spoiler Test" 0 >/dev/null

# --- a plain diary: days written as paragraphs under month headings ("2nd. ..." under
# "SEPTEMBER 1666"), every day in the same words, so only its date can find it; each
# paragraph carries a tag ("ref 1666-09-02") the question does not name, to check by.
diary_db="$tmp/diary.db"
python3 - "$tmp/diary.md" <<'EOF_DIARY'
import sys
said = ["Up betimes and to the office, where all the morning upon business.",
        "Thence by water to White Hall, and there walked a great while in the gallery.",
        "At noon home to dinner, and after dinner to my chamber to read.",
        "In the evening walked in the garden with my wife, and so home to supper and to bed."]
def ordinal(d):
    return f"{d}{'th' if 10 <= d % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"
out = ["# The Diary of a Clerk", ""]
for year in (1664, 1665, 1666):
    out += [f"## SEPTEMBER {year}", ""]
    for d in range(1, 31):
        opening = f"Sept. {ordinal(d)}." if d == 1 else f"{ordinal(d)}."
        day = " ".join(said[(d + i) % 4] for i in range(8))   # about a chunk
        out += [f"{opening} {day} (ref {year}-09-{d:02d})", ""]
open(sys.argv[1], "w").write("\n".join(out))
EOF_DIARY
ib-parse "$tmp/diary.md" | ib-chunk | ib-embed | ib-index -q --db "$diary_db" || fail "indexing the plain diary"
top=$(ib-search --db "$diary_db" --json -k 5 --all-pages "What did he write on 2 September 1666?")
echo "$top" | grep >/dev/null "ref 1666-09-02" || fail "a plain diary's day: 2 September 1666 is not in the top 5: $(echo "$top" | grep -o 'ref [0-9-]*' | tr '\n' ' ')"

# --- docs: every long option of --help is in the man page, and the reverse
help_opts=$(ib-search --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
man_opts=$(grep -o -- '\\-\\-[a-z][a-z\\-]*' "$root/man/man1/ib-search.1" | sed 's/\\//g' | sort -u)
[ "$help_opts" = "$man_opts" ] || fail "--help and man/man1/ib-search.1 list different options: $(diff <(echo "$help_opts") <(echo "$man_opts") | tr '\n' ' ')"

# --- the thesaurus (scripts/build-thesaurus, from WordNet): the lines search relies on
thesaurus="${IB_THESAURUS:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/thesaurus.tsv}"
if [ -s "$thesaurus" ]; then
  grep -q "^forbearance	patience" "$thesaurus" || fail "thesaurus: forbearance has no patience"
  grep -q "^holy person	saint" "$thesaurus" || fail "thesaurus: holy person has no saint"
  LC_ALL=C cut -f1 "$thesaurus" | LC_ALL=C sort -c -u || fail "thesaurus: not sorted by bytes, or a word twice"
  if [ -z "${IB_THESAURUS:-}" ]; then   # never rebuild a file someone pointed us at
    out=$("$root/scripts/build-thesaurus" 2>&1) || fail "build-thesaurus re-run: $out"
    case "$out" in *"already built"*) ;; *) fail "build-thesaurus re-run rebuilt: $out" ;; esac
  fi
else
  echo "search e2e: no thesaurus at $thesaurus (scripts/build-thesaurus): synonyms untested here" >&2
fi

# --- the evaluation: recall@5 per mode on the sample books
if [ -z "${IB_E2E_SKIP_EVAL:-}" ]; then
  # The first set (two short books, questions written by the people tuning the
  # search) is now a regression check; the honest instrument is the long-book
  # set (scripts/e2e/long-eval.sh). Today hybrid 0.864 ties vector 0.864 (text
  # 0.610) and ranks better (MRR@5 0.729 vs 0.701). Score fusion traded 0.881 here
  # for 0.63 -> 0.73 on the long books' held-out part. The gate: hybrid no lower
  # than either mode, MRR above both, 0.86 with the thesaurus (0.84 without),
  # no spoiler.
  # (Without the file, the evaluation is told so: it refuses to measure without synonyms unasked.)
  if [ -s "$thesaurus" ] && [ "${IB_SEARCH_SYNONYMS:-1}" != 0 ]; then gate=(--min-recall 0.86); else gate=(--min-recall 0.84); export IB_SEARCH_SYNONYMS=0; fi
  "$root/scripts/eval/search" --check "${gate[@]}" --verbose || fail "evaluation (scripts/eval/search --check ${gate[*]})"
  # Held-out questions (other passages of the same books), written after the
  # paragraph windows landed: hybrid 0.93, vector 0.87, text 0.60 (0.90 / 0.87 /
  # 0.50 without synonyms; the synonym settings were chosen on the main set and
  # only checked here). Do not tune on them; write new ones when they stop being held out.
  IB_EVAL_QUESTIONS="$root/shared/fixtures/eval/search-heldout.jsonl" \
    "$root/scripts/eval/search" --check --strict --min-recall 0.86 --verbose || fail "held-out evaluation (scripts/eval/search --check --strict)"
fi

[ $status -eq 0 ] && echo "e2e search: ok"
exit $status
