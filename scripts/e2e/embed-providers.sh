#!/usr/bin/env bash
# ib-embed's HTTP providers and its content cache, end to end: a fake OpenAI
# and Ollama server on 127.0.0.1 (Python, documented request and response
# shapes, a request log) behind ib-parse | ib-chunk | ib-embed.
# Checks: requests (path, Authorization, model, batches of at most --batch),
# every chunk embedded in order; a second run makes zero requests (cache);
# the cache is keyed on content (another book id, same text: no request);
# --no-cache; 429 + Retry-After then success; a 401 and a missing key name
# OPENAI_API_KEY; a timeout; a wrong dimension and a wrong vector count exit 4
# without writing the bad batch; the native provider goes through the cache too.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d)
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
export XDG_CACHE_HOME="$tmp/cache"
unset OPENAI_API_KEY OPENAI_BASE_URL OLLAMA_HOST IB_EMBED_PROVIDER IB_EMBED_MODEL

cat > "$tmp/server.py" <<'EOF'
# Modes are the first path segment: /ok, /flaky (one 429 with Retry-After: 1
# per distinct batch), /e401, /slow (3 s), /dim (3-dim vectors), /count (one
# vector short). Every request is appended to LOG as one JSON line.
import hashlib, json, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
LOG, PORTFILE = sys.argv[1], sys.argv[2]
lock = threading.Lock(); seen = set()
def vec(text, dim=16):
    h = hashlib.sha256(text.encode()).digest()
    return [round((h[i % 32] - 128) / 128.0, 6) for i in range(dim)]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, code, obj, headers=()):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body)))
        for k, v in headers: self.send_header(k, v)
        self.end_headers(); self.wfile.write(body)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        mode, _, api = self.path.lstrip("/").partition("/")
        with lock:
            with open(LOG, "a") as f:
                f.write(json.dumps({"mode": mode, "path": "/" + api, "auth": self.headers.get("Authorization"),
                                    "model": body.get("model"), "n": len(body.get("input", [])),
                                    "input": body.get("input"), "encoding_format": body.get("encoding_format")}) + "\n")
            key = json.dumps(body.get("input"))
            first = key not in seen; seen.add(key)
        texts = body.get("input", [])
        if mode == "e401":
            return self.send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})
        if mode == "flaky" and first:
            return self.send(429, {"error": {"message": "Rate limit reached"}}, [("Retry-After", "1")])
        if mode == "slow": time.sleep(3)
        dim = 3 if mode == "dim" else 16
        if mode == "count": texts = texts[:-1]
        if api == "v1/embeddings":
            data = [{"object": "embedding", "index": i, "embedding": vec(t, dim)} for i, t in enumerate(texts)]
            data.reverse()
            self.send(200, {"object": "list", "data": data, "model": body.get("model"), "usage": {"prompt_tokens": 1, "total_tokens": 1}})
        elif api == "api/embed":
            self.send(200, {"model": body.get("model"), "embeddings": [vec(t, dim) for t in texts]})
        else:
            self.send(404, {"error": "not found"})
class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address): pass  # clients that timed out and left
s = Server(("127.0.0.1", 0), H)
open(PORTFILE, "w").write(str(s.server_address[1]))
s.serve_forever()
EOF
python3 "$tmp/server.py" "$tmp/log.jsonl" "$tmp/port" & server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$tmp/port")"
touch "$tmp/log.jsonl"
requests() { wc -l < "$tmp/log.jsonl" | tr -d ' '; }

# The chunks of a small book (the first 60,000 bytes of Sherlock).
head -c 60000 "$root/shared/fixtures/books/sherlock.txt" > "$tmp/book.txt"
ib-parse "$tmp/book.txt" | ib-chunk > "$tmp/chunks.jsonl" || fail "ib-parse | ib-chunk failed"
nchunks=$(grep -c '"type":"chunk"' "$tmp/chunks.jsonl")
[ "$nchunks" -gt 20 ] || fail "expected more than 20 chunks, got $nchunks"

check_out() {  # check_out FILE MODEL DIM: every chunk embedded with MODEL, DIM, the server's vector, records in order
  python3 - "$tmp/chunks.jsonl" "$1" "$2" "$3" <<'EOF'
import hashlib, json, sys
src = [json.loads(l) for l in open(sys.argv[1])]
out = [json.loads(l) for l in open(sys.argv[2])]
model, dim = sys.argv[3], int(sys.argv[4])
def vec(text):
    h = hashlib.sha256(text.encode()).digest()
    return [round((h[i % 32] - 128) / 128.0, 6) for i in range(dim)]
assert len(src) == len(out), f"{len(out)} records out for {len(src)} in"
for a, b in zip(src, out):
    assert a["type"] == b["type"], "records out of order"
    if b["type"] != "chunk": assert a == b, "a non-chunk record changed"; continue
    assert b["text"] == a["text"] and b["index"] == a["index"], "chunk out of order"
    assert b["model"] == model and b["dim"] == dim, f"model/dim {b['model']}/{b['dim']}"
    assert all(abs(x - y) < 1e-6 for x, y in zip(b["embedding"], vec(b["text"]))) and len(b["embedding"]) == dim, "wrong vector"
EOF
}

# 1. OpenAI: requests, batching, order; then the cache.
OPENAI_API_KEY=sk-e2e ib-embed --provider openai --base-url "$base/ok" --batch 7 < "$tmp/chunks.jsonl" > "$tmp/openai.jsonl" \
  || fail "openai run failed"
check_out "$tmp/openai.jsonl" openai/text-embedding-3-small 16 || fail "openai output"
python3 - "$tmp/log.jsonl" "$nchunks" <<'EOF' || fail "openai requests"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert all(r["path"] == "/v1/embeddings" for r in reqs), "path"
assert all(r["auth"] == "Bearer sk-e2e" for r in reqs), "Authorization"
assert all(r["model"] == "text-embedding-3-small" and r["encoding_format"] == "float" for r in reqs), "model/encoding_format"
assert all(1 <= r["n"] <= 7 for r in reqs), "batch sizes %s" % [r["n"] for r in reqs]
assert len(reqs) >= int(sys.argv[2]) // 7, "too few requests"
EOF
sent=$(python3 -c "import json,sys; print(sum(json.loads(l)['n'] for l in open('$tmp/log.jsonl')))")
distinct=$(python3 -c "import json; print(len({json.loads(l)['text'] for l in open('$tmp/chunks.jsonl') if '\"type\":\"chunk\"' in l}))")
[ "$sent" = "$distinct" ] || fail "sent $sent texts for $distinct distinct chunk texts"

before=$(requests)
OPENAI_API_KEY=sk-e2e ib-embed --provider openai --base-url "$base/ok" < "$tmp/chunks.jsonl" > "$tmp/openai2.jsonl" || fail "cached run failed"
[ "$(requests)" = "$before" ] || fail "second run made $(( $(requests) - before )) requests (want 0)"
cmp -s "$tmp/openai.jsonl" "$tmp/openai2.jsonl" || fail "cached run output differs"
[ -f "$XDG_CACHE_HOME/ib/embeddings.db" ] || fail "no cache at \$XDG_CACHE_HOME/ib/embeddings.db"

# Keyed on content: the same texts under another book id make no request; a new text makes one.
sed 's/"book_id":"[0-9a-f]*"/"book_id":"ffffffffffffffff"/' "$tmp/chunks.jsonl" > "$tmp/other-book.jsonl"
printf '%s\n' '{"type":"chunk","book_id":"ffffffffffffffff","index":999,"start_page":1,"end_page":1,"start_offset":0,"end_offset":9,"token_count":3,"text":"brand new"}' >> "$tmp/other-book.jsonl"
OPENAI_API_KEY=sk-e2e ib-embed --provider openai --base-url "$base/ok" < "$tmp/other-book.jsonl" > /dev/null || fail "other book failed"
[ "$(requests)" = "$((before + 1))" ] || fail "other book: $(( $(requests) - before )) requests (want 1)"
tail -1 "$tmp/log.jsonl" | grep >/dev/null '"input": \["brand new"\]' || fail "other book: sent more than the new text"

# --no-cache sends everything again.
before=$(requests)
OPENAI_API_KEY=sk-e2e ib-embed --provider openai --base-url "$base/ok" --no-cache < "$tmp/chunks.jsonl" > /dev/null || fail "--no-cache failed"
[ "$(requests)" -gt "$before" ] || fail "--no-cache made no requests"

# 2. Ollama through OLLAMA_HOST, separate cache entries (another model).
before=$(requests)
OLLAMA_HOST="$base/ok" IB_EMBED_PROVIDER=ollama ib-embed --batch 50 < "$tmp/chunks.jsonl" > "$tmp/ollama.jsonl" || fail "ollama run failed"
check_out "$tmp/ollama.jsonl" ollama/nomic-embed-text 16 || fail "ollama output"
tail -n +"$((before + 1))" "$tmp/log.jsonl" | python3 -c "
import json, sys
reqs = [json.loads(l) for l in sys.stdin]
assert reqs and all(r['path'] == '/api/embed' and r['model'] == 'nomic-embed-text' and r['auth'] is None and r['n'] <= 50 for r in reqs), reqs[:1]
" || fail "ollama requests"

# 3. 429 with Retry-After, then success.
OPENAI_API_KEY=sk-e2e ib-embed --provider openai --base-url "$base/flaky" --no-cache --query "retry me" > "$tmp/flaky.out" 2> "$tmp/flaky.err" \
  || fail "429 then success: exit $?"
grep -q '"dim":16' "$tmp/flaky.out" || fail "429 then success: no embedding"
grep -q "HTTP 429, retrying" "$tmp/flaky.err" || fail "429: no retry notice on stderr"

# 4. Errors: exit 4, one clear line, nothing written for the bad batch.
expect_error() {  # expect_error NAME PATTERN COMMAND...
  local name=$1 pattern=$2; shift 2
  "$@" < "$tmp/chunks.jsonl" > "$tmp/err.out" 2> "$tmp/err.err"; local rc=$?
  [ "$rc" = 4 ] || fail "$name: exit $rc, want 4 ($(cat "$tmp/err.err"))"
  grep -q -- "$pattern" "$tmp/err.err" || fail "$name: stderr lacks '$pattern': $(cat "$tmp/err.err")"
  if grep -q '"embedding"' "$tmp/err.out"; then fail "$name: embeddings were written"; fi
}
expect_error "missing key" OPENAI_API_KEY ib-embed --provider openai --base-url "$base/ok" --no-cache
expect_error "401" OPENAI_API_KEY env OPENAI_API_KEY=bad ib-embed --provider openai --base-url "$base/e401" --no-cache
expect_error "timeout" "did not answer in time" env OPENAI_API_KEY=k ib-embed --provider openai --base-url "$base/slow" --no-cache --timeout 1
expect_error "wrong dimension" "3 dimensions, expected 16" env OPENAI_API_KEY=k ib-embed --provider openai --base-url "$base/dim" --dim 16 --no-cache
expect_error "wrong count" "embeddings for" env OLLAMA_HOST="$base/count" ib-embed --provider ollama --no-cache
expect_error "connection refused" "cannot reach Ollama" env OLLAMA_HOST=127.0.0.1:1 ib-embed --provider ollama --no-cache
ib-embed --provider cohere --query x > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || fail "unknown provider: exit $rc, want 2"

# 5. The native provider goes through the cache too (same vectors, rows in the file).
if [ -d "${IB_MODEL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/all-MiniLM-L6-v2}" ]; then
  printf 'first line of text\nsecond line of text\n' > "$tmp/lines.txt"
  ib-embed --text "$tmp/lines.txt" > "$tmp/native1.jsonl" || fail "native --text failed"
  ib-embed --text "$tmp/lines.txt" > "$tmp/native2.jsonl" || fail "native --text (cached) failed"
  cmp -s "$tmp/native1.jsonl" "$tmp/native2.jsonl" || fail "native: cached vectors differ"
  ib-embed --text --no-cache "$tmp/lines.txt" > "$tmp/native3.jsonl" || fail "native --no-cache failed"
  cmp -s "$tmp/native1.jsonl" "$tmp/native3.jsonl" || fail "native: cached and fresh vectors differ"
  rows=$(sqlite3 "$XDG_CACHE_HOME/ib/embeddings.db" "SELECT count(*) FROM embeddings WHERE model = 'all-MiniLM-L6-v2' AND dim = 384")
  [ "$rows" = 2 ] || fail "native: $rows cache rows, want 2"
fi

[ "$status" = 0 ] && echo "embed-providers: ok ($nchunks chunks)"
exit "$status"
