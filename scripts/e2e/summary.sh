#!/usr/bin/env bash
# ib-ask --summarize / --recap end to end (issue 26) with the release binaries,
# on the sample book (EPUB: chapters; plain text: runs of pages) at page 40:
# the offline summary cites at least one sentence per section and nothing past
# p. 40; a stand-in provider on 127.0.0.1 (scripts/e2e/lib/stub-openai.py, which
# keeps every request body) receives nothing from past the position, nothing
# on a second call, and at a later page only the new and grown sections; a
# provider that cannot be reached gives one warning and the offline summary
# (exit 0); a range past the position is a usage error.
# Needs ib-parse ib-chunk ib-embed ib-index ib-ask on PATH, python3, sqlite3.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
for t in ib-parse ib-chunk ib-embed ib-index ib-ask; do
  command -v "$t" >/dev/null || { echo "summary.sh: $t not on PATH" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/ib-e2e-summary.XXXXXX)
stub_pid=""
trap '[ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "summary.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "summary.sh: ok: $*" >&2; }
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL OLLAMA_HOST IB_PROVIDER IB_MODEL
books="$root/shared/fixtures/books"

for format in epub txt; do
  export IB_DB="$tmp/$format.db"
  ib-parse "$books/sherlock.$format" | ib-chunk | ib-embed | ib-index -q || { echo "summary.sh: building the $format library failed" >&2; exit 1; }
  ib-index set-page sherlock 40 >/dev/null
  # 1. Offline at page 40: every section up to p. 40 has a cited sentence, no citation past it.
  ib-ask --summarize --json >"$tmp/offline.json" 2>"$tmp/err" || fail "$format offline: $(cat "$tmp/err")"
  python3 - "$tmp/offline.json" "$format" <<'PY' || fail "$format: offline summary at p. 40: $(head -c 600 "$tmp/offline.json")"
import json, re, sys
o = json.load(open(sys.argv[1]))
assert o["language_model"] is False and "No language model was used" in o["summary"], o["summary"][:200]
assert o["cached"] is False and o["up_to_page"] == 40
assert o["citations"] and all(c["supported"] and max(c["pages"]) <= 40 for c in o["citations"]), o["citations"]
sections = o["sections"]
assert sections and sections[-1]["end_page"] == 40 and sections[-1]["partial"], sections[-1]
for a, b in zip(sections, sections[1:]):   # no section up to p. 40 is missing
    assert b["start_page"] <= a["end_page"] + 1, (a["title"], b["title"])
for s in sections:
    cited = [int(p) for p in re.findall(r"\((?:p|pp)\. (\d+)", s["summary"])]
    assert cited and all(s["start_page"] <= p <= 40 for p in cited), (s["title"], s["summary"])
if sys.argv[2] == "epub":
    titles = [s["title"] for s in sections]
    assert titles[:3] == ["A Scandal in Bohemia — I", "A Scandal in Bohemia — II", "A Scandal in Bohemia — III"], titles
    assert titles[3].startswith("The Redheaded League"), titles
PY
  ok "$format: offline summary at p. 40, $(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(len(o["sections"]), "sections,", len(o["citations"]), "citations")' "$tmp/offline.json")"
done

# 2. Recap offline: the last sections, the people, where the reader stopped.
out=$(ib-ask --recap --format text 2>"$tmp/err") || fail "recap: $(cat "$tmp/err")"
grep -q "^Extractive recap of" <<<"$out" && grep -q "People who matter so far: Holmes" <<<"$out" \
  && grep -q "You stopped at p. 40: “" <<<"$out" || fail "offline recap: $out"
ok "offline recap"

# 3. Bounds: a range past the position, a section that starts after it.
ib-ask --summarize --pages 30-60 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "past the reading position" "$tmp/err" || fail "--pages 30-60 at p. 40: exit $rc: $(cat "$tmp/err")"
ib-ask --summarize --pages 20-30 --json 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert all(20 <= p <= 30 for c in o["citations"] for p in c["pages"]) and o["citations"], o["citations"]' || fail "--pages 20-30"
ok "--pages within and past the position"

# 4. A provider stand-in: nothing past p. 40 in any request; a second call sends nothing;
# page 60 (--page) re-sends only what is new or grew.
export IB_DB="$tmp/epub.db"
answer="Holmes takes the case (p. 5)."
answers=(); for _ in $(seq 12); do answers+=("$answer"); done
python3 "$here/lib/stub-openai.py" "$tmp/stub" "${answers[@]}" &
stub_pid=$!
for _ in $(seq 100); do [ -s "$tmp/stub/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/stub/port")/v1"
provider=(--provider openai --base-url "$base" --model stand-in)
ib-ask --summarize --json "${provider[@]}" >"$tmp/p1.json" 2>"$tmp/err" || fail "provider summary: $(cat "$tmp/err")"
first=$(ls "$tmp/stub" | grep -c '^request')
ib-ask --summarize --json "${provider[@]}" >"$tmp/p2.json" 2>"$tmp/err" || fail "second provider summary: $(cat "$tmp/err")"
second=$(ls "$tmp/stub" | grep -c '^request')
sqlite3 -json "$IB_DB" "SELECT page, text FROM pages WHERE book_id = (SELECT id FROM books) ORDER BY page" >"$tmp/pages.json"
python3 - "$tmp" "$first" "$second" <<'PY' || fail "provider summary bound / cache"
import json, os, re, sys
tmp, first, second = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pages = {r["page"]: r["text"] for r in json.load(open(os.path.join(tmp, "pages.json")))}
def sent(i):
    body = json.load(open(os.path.join(tmp, "stub", f"request{i}.json")))
    return "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
def flat(t): return " ".join(t.split())
assert first == 5, f"{first} requests at p. 40 (4 sections and their combination expected)"
assert second == first, f"the second call sent {second - first} requests"
texts = [flat(sent(i)) for i in range(first)]
for page, text in pages.items():
    words = flat(text)
    if page <= 41 or len(words) < 200:
        continue
    probe = words[len(words) // 2: len(words) // 2 + 60]   # mid-page: no chunk ending by p. 40 holds it
    assert not any(probe in t for t in texts), f"text of p. {page} was sent: {probe!r}"
labels = [int(n) for t in texts for n in re.findall(r"\(pp?\. (?:\d+-)?(\d+)\)", t)]
assert labels and max(labels) <= 40, max(labels)
p1, p2 = (json.load(open(os.path.join(tmp, f))) for f in ("p1.json", "p2.json"))
assert p1["language_model"] and not p1["cached"] and p2["cached"] and p2["summary"] == p1["summary"] and p2["requests"] == 0
PY
ok "provider: $first requests at p. 40, none past it; the second call sent $((second - first))"
ib-ask --summarize --json --page 60 "${provider[@]}" >"$tmp/p3.json" 2>"$tmp/err" || fail "provider summary at p. 60: $(cat "$tmp/err")"
third=$(ls "$tmp/stub" | grep -c '^request')
python3 - "$tmp/p3.json" "$second" "$third" <<'PY' || fail "page 60 extends: $(head -c 400 "$tmp/p3.json")"
import json, sys
o, before, after = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
cached = [s["cached"] for s in o["sections"]]
assert cached[:3] == [True, True, True] and not any(cached[3:]), cached
assert after - before == len(cached) - 3 + 1, (after - before, cached)
PY
ok "page 60: $((third - second)) requests, the three complete sections from the library"
kill "$stub_pid" 2>/dev/null; wait "$stub_pid" 2>/dev/null; stub_pid=""

# 5. A provider that cannot be reached: one warning, the offline summary, exit 0.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
out=$(ib-ask --summarize --format text --provider openai --base-url "http://127.0.0.1:$port/v1" --retries 0 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "offline (extractive) summary instead" "$tmp/err" \
  && grep -q "No language model was used" <<<"$out" || fail "unreachable provider: exit $rc, stderr: $(cat "$tmp/err")"
ok "unreachable provider: one warning, the offline summary, exit 0"

[ $failures -eq 0 ] && echo "summary e2e: all checks passed" >&2
exit $((failures > 0))
