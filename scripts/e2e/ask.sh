#!/usr/bin/env bash
# ib-ask end to end with the release binaries: a real library built by
# ib-parse | ib-chunk | ib-embed | ib-index from the sample book, the offline
# extractive answer (cited, stored, spoiler-free), and a fake Anthropic server
# on 127.0.0.1 (Python, documented SSE events) for the agent loop, retries,
# and the failures that must exit 4 without storing anything. The agent-loop checks
# count requests, so they turn off the provider-assisted search (--no-expand
# --no-rerank; IBAskTests cover it, scripts/e2e/search.sh runs it end to end).
# Needs ib-parse ib-chunk ib-embed ib-index ib-ask on PATH, python3, sqlite3.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
for t in ib-parse ib-chunk ib-embed ib-index ib-ask; do
  command -v "$t" >/dev/null || { echo "ask.sh: $t not on PATH" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/ib-e2e-ask.XXXXXX)
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "ask.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ask.sh: ok: $*" >&2; }
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL OLLAMA_HOST IB_PROVIDER IB_MODEL
export IB_DB="$tmp/library.db"
q() { sqlite3 "$IB_DB" "$1"; }

# The first 120 kB of the sample book (about 60 pages, 150 chunks).
head -c 120000 "$root/shared/fixtures/books/sherlock.txt" > "$tmp/sherlock.txt"
ib-parse "$tmp/sherlock.txt" | ib-chunk | ib-embed | ib-index -q || { echo "ask.sh: building the library failed" >&2; exit 1; }

# 1. Offline: extractive, cited, stored.
out=$(ib-ask --format text "Who is Irene Adler?" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "extractive exit $rc: $(cat "$tmp/err")"
head -1 <<<"$out" | grep >/dev/null '^Extractive answer' || fail "extractive answer does not say so: $out"
grep -q 'Irene Adler' <<<"$out" && grep -Eq '\(pp?\. [0-9]+(-[0-9]+)?\)' <<<"$out" || fail "no cited sentence: $out"
[ "$(q "SELECT count(*) FROM conversations")" = 1 ] || fail "extractive turn not stored"
[ "$(q "SELECT group_concat(role, ',') FROM (SELECT role FROM chat_messages ORDER BY rowid)")" = "user,tool_result,assistant" ] || fail "stored roles"
[ "$(q "SELECT title FROM conversations")" = "Who is Irene Adler?" ] || fail "conversation title"
ok "extractive answer: $(sed -n 2p <<<"$out" | cut -c1-80)"

# 2. --json, and no spoilers: at page 10 nothing past page 10 is used.
ib-index set-page sherlock 10 >/dev/null
ib-ask --json "Irene Adler married Godfrey Norton" >"$tmp/json" 2>"$tmp/err" || fail "json exit: $(cat "$tmp/err")"
python3 - "$tmp/json" <<'PY' || fail "--json object / page bound"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
for key in ("answer", "citations", "sources", "usage", "conversation_id"):
    assert key in o, key
assert o["sources"], "no sources"
assert all(s["pages"][1] <= 10 for s in o["sources"]), [s["pages"] for s in o["sources"]]
assert all(c["supported"] for c in o["citations"]), o["citations"]
assert o["current_page"] == 10
PY
ok "--json, bounded by the reading position"
ib-index set-page sherlock 0 >/dev/null

# 2b. Offline answers: no answer from front matter, none to a question about
# another book (the passages are shown instead, "answered": false), and a
# --page past the end is a usage error naming the page count.
out=$(ib-ask --format text "Who produced this ebook?" 2>"$tmp/err") || fail "front matter question: $(cat "$tmp/err")"
grep -qi 'ebook\|public domain\|Standard Ebooks' <<<"$(sed -n '2,$p' <<<"$out" | grep '^“')" && fail "quoted the imprint: $out"
ib-ask --json "Why does Captain Ahab hunt the white whale that took his leg?" >"$tmp/json" 2>"$tmp/err" || fail "weak question: $(cat "$tmp/err")"
python3 - "$tmp/json" <<'PY' || fail "a question about another book was answered: $(cat "$tmp/json")"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["answered"] is False, o["answered"]
assert o["answer"].startswith("No offline answer"), o["answer"]
assert "(p. " in o["answer"] and o["sources"], o["answer"]
PY
ib-ask --json "Who is Irene Adler?" 2>/dev/null | python3 -c 'import json,sys; assert json.load(sys.stdin)["answered"] is True' || fail "answered: true"
pages=$(q "SELECT page_count FROM books")
ib-ask --page 999 "Who is Irene Adler?" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--page" "$tmp/err" && grep -q "($pages pages)" "$tmp/err" || fail "--page 999 of $pages pages: exit $rc: $(cat "$tmp/err")"
ok "offline: no front matter, no answer to another book's question, --page past the end (exit 2)"

# 2c. The cast list is not an answer (Hamlet, from ../shared/books/long when it is there).
hamlet="$root/../shared/books/long/hamlet.epub"
if [ -f "$hamlet" ]; then
  ib-parse "$hamlet" | ib-chunk | ib-embed | IB_DB="$tmp/hamlet.db" ib-index -q || fail "building the Hamlet library"
  IB_DB="$tmp/hamlet.db" ib-ask --json "Who killed Hamlet's father?" >"$tmp/json" 2>"$tmp/err" || fail "Hamlet: $(cat "$tmp/err")"
  python3 - "$tmp/json" <<'PY' || fail "Hamlet: answered from the cast list: $(cat "$tmp/json")"
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert "Ghost of Hamlet’s father”" not in o["answer"], o["answer"]
assert o["sources"], "no passages"
PY
  ok "offline: no answer from Hamlet's cast list"
else
  echo "ask.sh: skipped the Hamlet check: no $hamlet" >&2
fi

# 3. Piped questions share one conversation; --list shows it.
before=$(q "SELECT count(*) FROM conversations")
printf 'What is in the photograph?\nWhere does Irene Adler live?\n' | ib-ask --format text >"$tmp/out" 2>"$tmp/err" || fail "piped: $(cat "$tmp/err")"
[ "$(grep -c '^Extractive answer' "$tmp/out")" = 2 ] || fail "two piped answers: $(cat "$tmp/out")"
[ "$(q "SELECT count(*) FROM conversations")" = $((before + 1)) ] || fail "piped questions should share one conversation"
ib-ask --list | grep >/dev/null 'What is in the photograph?' || fail "--list"
ok "piped session and --list"

# 4. A fake Anthropic server.
cat > "$tmp/server.py" <<'PY'
# The first path segment is the mode: /ok (search_book, then an answer citing
# the first retrieved page), /e401, /flaky (429 with Retry-After: 1 once),
# /drop (cut mid-answer). Requests are logged as JSON lines.
import json, re, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
LOG, PORTFILE = sys.argv[1], sys.argv[2]
lock = threading.Lock(); flaky = {"n": 0}
def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()
def start(): return {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 50, "output_tokens": 1}}}
def text(t): return [{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}},
                     {"type": "content_block_stop", "index": 0}]
def end(reason): return [{"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 20}}, {"type": "message_stop"}]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, code, body, ctype="text/event-stream", headers=()):
        self.send_response(code); self.send_header("Content-Type", ctype); self.send_header("Content-Length", str(len(body)))
        for k, v in headers: self.send_header(k, v)
        self.end_headers(); self.wfile.write(body)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = self.path.split("/")[1]
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        if mode == "e401":
            return self.reply(401, b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', "application/json")
        if mode == "flaky":
            with lock:
                flaky["n"] += 1; first = flaky["n"] == 1
            if first:
                return self.reply(429, b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', "application/json", [("Retry-After", "1")])
        if mode == "drop":
            payload = sse([start()] + text("The photograph is")[:2])
            self.send_response(200); self.send_header("Content-Type", "text/event-stream"); self.send_header("Content-Length", str(len(payload) + 500))
            self.end_headers(); self.wfile.write(payload); self.wfile.flush()
            self.close_connection = True
            return
        last = body["messages"][-1]
        results = [b for b in (last["content"] if isinstance(last["content"], list) else []) if b.get("type") == "tool_result"]
        if results:
            m = re.search(r"\((pp?\. [^)]+)\)", results[0]["content"])
            cite = "(%s)" % m.group(1) if m else "(p. 1)"
            events = [start()] + text("Irene Adler is the woman Holmes admires %s." % cite) + end("end_turn")
        else:
            events = [start(), {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "search_book", "input": {}}},
                      {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"Irene"}},
                      {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": " Adler woman\"}"}},
                      {"type": "content_block_stop", "index": 0}] + end("tool_use")
        self.reply(200, sse(events))
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(PORTFILE, "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 "$tmp/server.py" "$tmp/requests.log" "$tmp/port" & server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
key="sk-ant-e2e-SECRET-9f8e7d"

before=$(q "SELECT count(*) FROM chat_messages")
out=$(ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=$base/ok ib-ask --format text --no-expand --no-rerank --verbose "Who is Irene Adler?" 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] || fail "anthropic exit $rc: $(cat "$tmp/err")"
grep -Eq '^Irene Adler is the woman Holmes admires \(pp?\. [0-9-]+\)\.$' <<<"$out" || fail "anthropic answer: $out"
grep -q 'search_book("Irene Adler woman"' "$tmp/err" || fail "verbose tool call: $(cat "$tmp/err")"
grep -q 'unsupported' "$tmp/err" && fail "the citation was retrieved: $(cat "$tmp/err")"
python3 - "$tmp/requests.log" <<'PY' || fail "requests seen by the server"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
h = {k.lower(): v for k, v in reqs[0]["headers"].items()}
assert h["anthropic-version"] == "2023-06-01" and h["x-api-key"].startswith("sk-ant-e2e"), h
assert reqs[0]["path"] == "/ok/v1/messages"
b = reqs[1]["body"]
assert b["tools"][0]["name"] == "search_book" and b["stream"] is True
assert [m["role"] for m in b["messages"]] == ["user", "assistant", "user"]
PY
grep -q "$key" "$tmp/err" && fail "the API key reached verbose output"
grep -c "$key" "$IB_DB" "$IB_DB-wal" 2>/dev/null | grep >/dev/null -v ':0$' && fail "the API key reached the library"
[ "$(q "SELECT count(*) FROM chat_messages")" = $((before + 3)) ] || fail "anthropic turn not stored"
ok "anthropic agent loop: $out"

out=$(ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=$base/ok ib-ask --format text --no-expand --no-rerank -c "And who is Godfrey Norton?" 2>"$tmp/err") || fail "-c: $(cat "$tmp/err")"
python3 - "$tmp/requests.log" <<'PY' || fail "-c replays the earlier turn"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
msgs = reqs[2]["body"]["messages"]
assert len(msgs) == 3 and "Who is Irene Adler?" in msgs[0]["content"] and "Passages retrieved" in msgs[0]["content"], msgs[0]
PY
ok "-c continues the conversation"

start=$(date +%s.%N)
ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=$base/flaky ib-ask "Who is Irene Adler?" >/dev/null 2>"$tmp/err" || fail "429 then success: $(cat "$tmp/err")"
python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 0.95 else 1)" "$start" "$(date +%s.%N)" || fail "Retry-After: 1 not honoured"
grep -q '429' "$tmp/err" || fail "the retry is reported"
ok "429 retried after Retry-After"

before=$(q "SELECT count(*) FROM chat_messages")
expect4() {  # expect4 NAME PATTERN CMD...: exit 4, message on stderr, nothing stored
  local name=$1 pattern=$2; shift 2
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  [ $rc -eq 4 ] || fail "$name: exit $rc, want 4: $(cat "$tmp/err")"
  grep -q "$pattern" "$tmp/err" || fail "$name: message: $(cat "$tmp/err")"
  [ "$(q "SELECT count(*) FROM chat_messages")" = "$before" ] || fail "$name: something was stored"
  grep -q "$key" "$tmp/err" && fail "$name: the key leaked"
  ok "$name -> exit 4: $(head -1 "$tmp/err" | cut -c1-100)"
}
expect4 "401" "ANTHROPIC_API_KEY" env ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=$base/e401 ib-ask "Q?"
expect4 "cut stream" "cut off" env ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=$base/drop ib-ask "Q?"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect4 "connection refused" "connection refused" env ANTHROPIC_API_KEY=$key ANTHROPIC_BASE_URL=http://127.0.0.1:$port ib-ask "Q?"
expect4 "missing key" "ANTHROPIC_API_KEY" ib-ask --provider anthropic "Q?"

ib-ask --provider nope "Q" >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown provider is a usage error"

# 5. An interactive session when stdin is a terminal (script gives it one).
if command -v script >/dev/null; then
  printf 'Who is Irene Adler?\n\n' > "$tmp/tty-in"
  before=$(q "SELECT count(*) FROM conversations")
  timeout 60 script -qec "ib-ask" /dev/null < "$tmp/tty-in" > "$tmp/tty-out" 2>&1
  grep -q 'Ask a question' "$tmp/tty-out" && grep -q '^> *Extractive answer' "$tmp/tty-out" || fail "interactive session: $(cat "$tmp/tty-out")"
  [ "$(q "SELECT count(*) FROM conversations")" = $((before + 1)) ] || fail "interactive turn not stored"
  ok "interactive session on a terminal"
fi

if [ $failures -eq 0 ]; then echo "ask.sh: all passed" >&2; exit 0; fi
echo "ask.sh: $failures failure(s)" >&2; exit 1
