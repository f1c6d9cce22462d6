#!/usr/bin/env bash
# ib-mcp end to end, with the official MCP Python SDK (pip install mcp, in
# scripts/.venv-mcp) as the client: scripts/e2e/lib/mcp-client.py says what is
# checked (every tool and resource against ib-search, ib-index show and
# ib-capture status on the same library; bad messages, unknown methods and
# tools, wrong argument types and ambiguous books on one connection; no
# spoilers; a server killed mid-write), once in each protocol era. Also: --help and the man page; stdout
# holds protocol messages only; a 70 MiB message is a parse error; a bad command line is exit 2.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
export IB_DB="$tmp/library.db"

python=$("$here/lib/mcp-venv.sh") || { echo "FAIL: cannot install the MCP Python SDK"; exit 1; }

# The sample book (with vectors), and two small books whose titles are alike.
ib-parse "$root/shared/fixtures/books/sherlock.epub" | ib-chunk | ib-embed | ib-index -q || fail "indexing sherlock.epub"
python3 - "$tmp/valley.jsonl" <<'PY'
import hashlib, json, sys
out = []
for title in ["The Valley of Fear", "The Valley of Fear and Other Tales"]:
    sha = hashlib.sha256(title.encode()).hexdigest()
    book = {"type": "book", "id": sha[:16], "title": title, "authors": ["Arthur Conan Doyle"], "language": "en",
            "format": "text", "source": "/tmp/" + title, "sha256": sha, "page_count": 2}
    out += [book] + [{"type": "page", "book_id": book["id"], "page": p, "text": f"page {p}"} for p in (1, 2)]
    out.append({"type": "chunk", "book_id": book["id"], "index": 0, "start_page": 1, "end_page": 2,
                "start_offset": 0, "end_offset": 0, "token_count": 12, "text": f"A valley in the fog, from {title}."})
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in out))
PY
ib-embed < "$tmp/valley.jsonl" | ib-index -q || fail "indexing the valley books"
holmes=$(ib-index show "Sherlock Holmes" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
valleys=$(sqlite3 "$IB_DB" "SELECT id FROM books WHERE title LIKE 'The Valley%'")

# Each era's session on its own copy of the library (the sessions write).
for mode in modern legacy; do
  sqlite3 "$IB_DB" ".backup '$tmp/$mode.db'" || fail "copying the library"
  "$python" "$here/lib/mcp-client.py" "$mode" "$tmp/$mode.db" "$holmes" $valleys || status=1
done

# stdout: protocol messages only, each one JSON object on its line (stderr has the diagnostics).
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' \
  'not json' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_library","arguments":{"query":"Irene Adler"}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_books","arguments":{}}}' \
  | ib-mcp --model-dir "$tmp/no-model" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "ib-mcp exit $rc when stdin closed"
[ "$(wc -l < "$tmp/out")" -eq 4 ] || fail "expected 4 answers on stdout: $(cat "$tmp/out")"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" || fail "stdout has a line that is not JSON"
grep -q '"id":2,"result".*"warnings":\["[^]]' "$tmp/out" || fail "a missing model: no warning with the search"
[ -s "$tmp/err" ] || fail "no diagnostics on stderr"
ib-mcp --db "$tmp/missing.db" < /dev/null || fail "ib-mcp with a missing library and no input: not exit 0"
[ ! -e "$tmp/missing.db" ] || fail "ib-mcp created a library"

# A 70 MiB message is answered with a parse error, without holding it or ending the server.
python3 -c 'import sys; sys.stdout.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"" + "a" * (70 << 20) + "\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")' \
  | /usr/bin/time -f %M -o "$tmp/rss" ib-mcp > "$tmp/out" 2>/dev/null || fail "ib-mcp ended on a 70 MiB message"
grep -q '"id":null,"error":{"code":-32700' "$tmp/out" && grep -q '"id":2,"result"' "$tmp/out" \
  || fail "a 70 MiB message: no parse error, or no answer to the next: $(head -c 300 "$tmp/out")"
[ "$(tail -1 "$tmp/rss")" -le 262144 ] 2>/dev/null || fail "a 70 MiB message: peak RSS $(tail -1 "$tmp/rss") KB > 256 MB"

# command line
ib-mcp extra < /dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "an argument is not exit 2"
ib-mcp --bogus < /dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown option is not exit 2"
ib-mcp --help | grep -q "search_library" || fail "--help does not name the tools"

[ $status -eq 0 ] && echo "mcp e2e: ok"
exit $status
