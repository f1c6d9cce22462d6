#!/usr/bin/env bash
# End-to-end test of ib-embed with the native model: the record stream,
# --query/--text, encodings, the precision a library records (with ib-index and
# ib-search), and each bad-input case (clear error, no crash).
# Needs the model (scripts/fetch-model) and ib-embed, ib-index, ib-search on PATH ($IB_BIN).
set -uo pipefail
cd "$(dirname "$0")/../.."
[ -n "${IB_BIN:-}" ] && export PATH="$IB_BIN:$PATH"
model=$(
  if [ -n "${IB_MODEL_DIR:-}" ]; then echo "$IB_MODEL_DIR"
  else echo "${XDG_DATA_HOME:-$HOME/.local/share}/ib/models/all-MiniLM-L6-v2"; fi
)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" IB_MODEL_DIR="$model"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*" >&2; }

# 1. --query: one embedding record, 384 values of unit length.
ib-embed --query "why is the sky blue" > "$tmp/q.jsonl" 2> "$tmp/q.err" || fail "--query exited $?: $(cat "$tmp/q.err")"
python3 - "$tmp/q.jsonl" <<'PY' && ok "--query" || fail "--query output"
import json, math, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
r = json.loads(lines[0])
assert r["type"] == "embedding" and r["text"] == "why is the sky blue", r
assert r["model"] == "all-MiniLM-L6-v2" and r["dim"] == 384 and len(r["embedding"]) == 384
assert abs(math.sqrt(sum(x * x for x in r["embedding"])) - 1) < 1e-5
PY

# 2. The record stream: chunks get model/dim/embedding, everything else passes through in place.
cat > "$tmp/in.jsonl" <<'J'
{"type":"book","id":"0123456789abcdef","title":"T","authors":["A"],"language":"en","format":"txt","source":"t.txt","sha256":"00","page_count":1}
{"type":"chunk","book_id":"0123456789abcdef","index":0,"start_page":1,"end_page":1,"start_offset":0,"end_offset":19,"token_count":7,"text":"why is the sky blue"}
{"type":"note","what":"kept  as is", "n": 1.50}
{"type":"chunk","book_id":"0123456789abcdef","index":1,"start_page":1,"end_page":1,"start_offset":19,"end_offset":39,"token_count":6,"text":"capital of australia"}
{"type":"page","book_id":"0123456789abcdef","page":1,"label":null,"section_index":null,"section_title":null,"text":"p"}
J
for enc in floats base64; do
  ib-embed --encoding $enc --batch 1 --threads 2 "$tmp/in.jsonl" > "$tmp/out-$enc.jsonl" 2> "$tmp/err" || fail "stream ($enc) exited $?: $(cat "$tmp/err")"
done
python3 - "$tmp/in.jsonl" "$tmp/out-floats.jsonl" "$tmp/out-base64.jsonl" "$tmp/q.jsonl" <<'PY' && ok "record stream, floats and base64" || fail "record stream"
import base64, json, struct, sys
src = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2]).read().splitlines()
b64 = open(sys.argv[3]).read().splitlines()
query = json.loads(open(sys.argv[4]).read())["embedding"]
assert len(out) == len(src) == len(b64), (len(out), len(src))
for a, b, c in zip(src, out, b64):
    ra, rb, rc = json.loads(a), json.loads(b), json.loads(c)
    if ra["type"] != "chunk":
        assert a == b == c, (a, b)           # byte for byte
        continue
    for k, v in ra.items():
        assert rb[k] == v and rc[k] == v, k
    assert rb["model"] == "all-MiniLM-L6-v2" and rb["dim"] == 384 and len(rb["embedding"]) == 384
    floats = struct.unpack("<384f", base64.b64decode(rc["embedding"]))
    assert max(abs(x - y) for x, y in zip(floats, rb["embedding"])) < 1e-6
first = json.loads(out[1])["embedding"]
assert max(abs(x - y) for x, y in zip(first, query)) < 1e-6, "chunk and --query vectors differ"
PY

# 3. --text: one record per line; a text over 256 tokens is truncated with one warning.
{ echo "first line"; python3 -c "print('word ' * 600)"; python3 -c "print('again ' * 400)"; } > "$tmp/lines.txt"
ib-embed --text --no-cache < "$tmp/lines.txt" > "$tmp/t.jsonl" 2> "$tmp/t.err" || fail "--text exited $?"
[ "$(wc -l < "$tmp/t.jsonl")" = 3 ] && ok "--text" || fail "--text wrote $(wc -l < "$tmp/t.jsonl") lines"
[ "$(grep -c 'warning: 2 texts were longer than 256 tokens' "$tmp/t.err")" = 1 ] && ok "one truncation warning" \
  || fail "truncation warning: $(cat "$tmp/t.err")"

# expect_error NAME CODE PATTERN COMMAND...: the command fails with CODE and a message matching PATTERN.
expect_error() {
  local name=$1 code=$2 pattern=$3; shift 3
  "$@" > "$tmp/e.out" 2> "$tmp/e.err" < "${STDIN:-/dev/null}"
  local got=$?
  if [ "$got" != "$code" ]; then fail "$name: exit $got, expected $code: $(cat "$tmp/e.err")"; return; fi
  if ! grep -qE "$pattern" "$tmp/e.err"; then fail "$name: message '$(cat "$tmp/e.err")' lacks /$pattern/"; return; fi
  if grep -qiE "fatal error|stack dump|segmentation" "$tmp/e.err"; then fail "$name: crashed"; return; fi
  ok "$name: $(head -1 "$tmp/e.err")"
}

# int8: close to fp32 (the cosine bar itself is Int8Tests'), IB_PRECISION chooses it, bad values are usage errors.
ib-embed --no-cache --query "the hound of the baskervilles" > "$tmp/q32.jsonl"
ib-embed --no-cache --precision int8 --query "the hound of the baskervilles" > "$tmp/q8.jsonl"
IB_PRECISION=int8 ib-embed --no-cache --query "the hound of the baskervilles" > "$tmp/q8env.jsonl"
python3 - "$tmp/q32.jsonl" "$tmp/q8.jsonl" "$tmp/q8env.jsonl" <<'PY' && ok "--precision int8 and IB_PRECISION=int8" || fail "int8 query vectors"
import json, sys
a, b, c = (json.loads(open(p).read())["embedding"] for p in sys.argv[1:4])
cos = sum(x * y for x, y in zip(a, b))
assert len(b) == 384 and 0.999 < cos < 0.9999999, cos
assert b == c, "IB_PRECISION=int8 is --precision int8"
PY
expect_error "--precision int4" 2 'precision.*int8' ib-embed --precision int4 --query x
expect_error "IB_PRECISION=int4" 2 'IB_PRECISION' env IB_PRECISION=int4 ib-embed --query x
expect_error "bad IB_INT8_PLAN" 2 'IB_INT8_PLAN' env IB_INT8_PLAN=keep=nothing ib-embed --precision int8 --query x

# The library records the precision: ib-embed --precision int8 | ib-index makes an
# int8 library (show, stats); an fp32 book is then refused (exit 1, nothing of it
# stored) unless --mixed-precision, and ib-search embeds its queries in int8.
ib-embed --no-cache --precision int8 "$tmp/in.jsonl" | ib-index --db "$tmp/p8.db" 2> "$tmp/i8.err" \
  || fail "ib-embed --precision int8 | ib-index: $(cat "$tmp/i8.err")"
ib-index --db "$tmp/p8.db" show --json 0123456789abcdef > "$tmp/show8.json"
ib-index --db "$tmp/p8.db" stats --json > "$tmp/stats8.json"
python3 - "$tmp/out-floats.jsonl" "$tmp/show8.json" "$tmp/stats8.json" <<'PY' && ok "int8 library: show and stats say int8" || fail "int8 library precision"
import json, sys
fp32 = [json.loads(l) for l in open(sys.argv[1])]
assert all("precision" not in r for r in fp32), "fp32 records carry no precision"
show, stats = (json.load(open(p)) for p in sys.argv[2:4])
assert show["precision"] == "int8" and stats["precision"] == "int8", (show.get("precision"), stats.get("precision"))
assert "mixed_precision" not in stats
PY
sed 's/0123456789abcdef/fedcba9876543210/; s/"t.txt"/"t2.txt"/' "$tmp/out-floats.jsonl" > "$tmp/fp32-book.jsonl"
expect_error "fp32 book into an int8 library" 1 'book fedcba9876543210: fp32 embeddings, but the library holds int8 vectors' \
  ib-index --db "$tmp/p8.db" "$tmp/fp32-book.jsonl"
[ "$(ib-index --db "$tmp/p8.db" list | wc -l)" = 1 ] && ok "nothing of the refused book stored" || fail "the refused book was stored"
ib-index --db "$tmp/p8.db" --mixed-precision "$tmp/fp32-book.jsonl" 2> "$tmp/mixed.err" \
  && grep -q 'fp32 embeddings stored beside the library.s int8 vectors' "$tmp/mixed.err" \
  && [ "$(ib-index --db "$tmp/p8.db" stats --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["precision"], s["mixed_precision"], s["books"])')" = "int8 ['fp32'] 2" ] \
  && ok "--mixed-precision stores it; the library stays int8" || fail "--mixed-precision: $(cat "$tmp/mixed.err")"
IB_SEARCH_TIMING=1 ib-search --db "$tmp/p8.db" --json "why is the sky blue" > "$tmp/s8.jsonl" 2> "$tmp/s8.err"
grep -q 'timing: precision int8' "$tmp/s8.err" && [ -s "$tmp/s8.jsonl" ] && ok "ib-search embeds the query in int8" \
  || fail "ib-search on the int8 library: $(cat "$tmp/s8.err")"

# 4. Bad input.
printf '%s\n' '{"type":"chunk","book_id":"b","index":0,"start_page":1,"end_page":1}' > "$tmp/notext.jsonl"
expect_error "chunk without text" 1 'notext.jsonl:1: .*text' ib-embed --no-cache "$tmp/notext.jsonl"
expect_error "missing model folder" 1 'scripts/fetch-model' ib-embed --model-dir "$tmp/nowhere" --query x
expect_error "usage" 2 'encoding' ib-embed --encoding hex --query x

# A copy of the model folder to damage, one way at a time.
copy() {  # copy NAME: a fresh copy of the model folder at $tmp/NAME (weights copied, the rest linked)
  rm -rf "$tmp/$1"; mkdir -p "$tmp/$1/1_Pooling"
  for f in "$model"/*; do [ -f "$f" ] && ln -s "$f" "$tmp/$1/$(basename "$f")"; done
  ln -sf "$model/1_Pooling/config.json" "$tmp/$1/1_Pooling/config.json"
}
copy bad-sha; rm "$tmp/bad-sha/model.safetensors"; cp "$model/model.safetensors" "$tmp/bad-sha/"
printf '\x01' | dd of="$tmp/bad-sha/model.safetensors" bs=1 seek=60000000 conv=notrunc status=none
expect_error "wrong sha256" 1 'sha256' ib-embed --model-dir "$tmp/bad-sha" --query x
expect_error "wrong sha256 (--verify-model)" 1 'sha256' ib-embed --model-dir "$tmp/bad-sha" --verify-model --query x
copy truncated; rm "$tmp/truncated/model.safetensors"; head -c 50000000 "$model/model.safetensors" > "$tmp/truncated/model.safetensors"
expect_error "truncated safetensors" 1 'truncated' ib-embed --model-dir "$tmp/truncated" --query x
copy shape; rm "$tmp/shape/config.json"; sed 's/"intermediate_size": 1536/"intermediate_size": 1024/' "$model/config.json" > "$tmp/shape/config.json"
expect_error "tensor of the wrong shape" 1 "shape .*expected" ib-embed --model-dir "$tmp/shape" --query x
copy vocab; rm "$tmp/vocab/vocab.txt"; head -n 30000 "$model/vocab.txt" > "$tmp/vocab/vocab.txt"
expect_error "vocab size" 1 'vocab' ib-embed --model-dir "$tmp/vocab" --query x
copy nosafetensors; rm "$tmp/nosafetensors/model.safetensors"
expect_error "no weights" 1 'fetch-model' ib-embed --model-dir "$tmp/nosafetensors" --query x

if [ $failures -gt 0 ]; then echo "e2e embed: $failures failed" >&2; exit 1; fi
echo "e2e embed: all passed" >&2
