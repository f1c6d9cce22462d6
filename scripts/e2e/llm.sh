#!/usr/bin/env bash
# ib-ask --provider llm end to end: the real `llm` command (Simon Willison's,
# pinned in scripts/.venv-llm by lib/llm-venv.sh; $IB_LLM names another),
# configured by an extra-openai-models.yaml in a temporary LLM_USER_PATH that
# points at a stand-in OpenAI server on 127.0.0.1 (lib/stub-openai.py), over a
# real library built from the sample book. Checks: the retrieved passages are
# in the prompt llm sent, the printed answer is the server's with its (p. N)
# citation, nothing is logged by llm, questions piped on stdin do not hang,
# ib-search --expand and --summarize through llm, and the failures (llm
# missing, llm failing, a stalled model, --base-url) exit as documented.
# Skips (exit 0) only when pip cannot install llm (no network).
# Needs ib-parse ib-chunk ib-embed ib-index ib-ask on PATH, python3, sqlite3.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
for t in ib-parse ib-chunk ib-embed ib-index ib-ask; do
  command -v "$t" >/dev/null || { echo "llm.sh: $t not on PATH" >&2; exit 1; }
done
if [ -z "${IB_LLM:-}" ]; then
  IB_LLM=$("$here/lib/llm-venv.sh") || { echo "llm.sh: SKIP: pip cannot install llm here (no network?)" >&2; exit 0; }
fi
export IB_LLM
tmp=$(mktemp -d /tmp/ib-e2e-llm.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "llm.sh: FAIL: $*" >&2; failures=$((failures + 1)); }
mark=0
ok() { [ $failures -eq $mark ] && echo "llm.sh: ok: $*" >&2; mark=$failures; }  # only when its section passed
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL OLLAMA_HOST IB_PROVIDER IB_MODEL IB_LLM_LOG
export IB_DB="$tmp/library.db" LLM_USER_PATH="$tmp/llm"
mkdir -p "$LLM_USER_PATH"
q() { sqlite3 "$IB_DB" "$1"; }

# point_llm_at PORTFILE: llm's model `ib-stub` is the server's `stub-model` (waits for the file).
point_llm_at() {
  for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.1; done
  printf -- '- model_id: ib-stub\n  model_name: stub-model\n  api_base: "http://127.0.0.1:%s/v1"\n' \
    "$(cat "$1")" > "$LLM_USER_PATH/extra-openai-models.yaml"
}
# stub NAME ANSWER...: a stand-in server answering in turn, with llm pointed at it.
stub() {
  local name=$1; shift
  python3 "$here/lib/stub-openai.py" "$tmp/$name" "$@" & pids+=($!)
  point_llm_at "$tmp/$name/port"
}
llm_ask=(ib-ask --provider llm --model ib-stub --no-expand --no-rerank)

head -c 120000 "$root/shared/fixtures/books/sherlock.txt" > "$tmp/sherlock.txt"
ib-parse "$tmp/sherlock.txt" | ib-chunk | ib-embed | ib-index -q || { echo "llm.sh: building the library failed" >&2; exit 1; }
ib-index set-page sherlock 30 >/dev/null

# 1. A question: the passages go into llm's prompt, the reply comes back cited.
reply="Irene Adler is the woman Holmes admires (p. 12)."
STUB_OPENAI_USAGE=321,12 stub answer "$reply"
ib-ask --provider llm --model ib-stub --no-expand --no-rerank --json "Who is Irene Adler?" </dev/null >"$tmp/a.json" 2>"$tmp/err" \
  || fail "ask exit $?: $(cat "$tmp/err")"
python3 - "$tmp/a.json" "$tmp/answer/request0.json" "$reply" <<'PY' || fail "prompt / answer through llm"
import json, sys
answer = json.loads(open(sys.argv[1]).read())
request = json.load(open(sys.argv[2]))
reply = sys.argv[3]
assert request["model"] == "stub-model", request["model"]
system, user = request["messages"][0], request["messages"][-1]
assert system["role"] == "system" and "(p. N)" in system["content"], system
assert answer["sources"], "no passage retrieved"
for s in answer["sources"]:
    assert s["pages"][1] <= 30, s["pages"]
    assert f'{s["citation"]}\n{s["text"]}' in user["content"], f'source {s["chunk"]} not in the prompt'
assert "Who is Irene Adler?" in user["content"]
assert answer["answer"] == reply, answer["answer"]
assert [c["text"] for c in answer["citations"]] == ["(p. 12)"], answer["citations"]
assert answer["provider"] == "llm" and answer["model"] == "ib-stub", (answer["provider"], answer["model"])
assert answer["usage"]["input_tokens"] == 321 and answer["usage"]["output_tokens"] == 12, answer["usage"]
PY
[ "$(q "SELECT count(*) FROM conversations")" = 1 ] || fail "the turn was not stored"
ok "passages in llm's prompt, the cited reply in the answer, usage from llm -u"

# 2. Questions piped on stdin, printed as text: no hang, and llm does not eat the
# second line (its stdin is the prompt); the follow-up is rewritten first, then
# answered with the earlier turn in the prompt. llm logged nothing.
reply2="She kept the photograph (p. 14)."
stub piped "$reply" "Irene Adler photograph" "$reply2"
out=$(printf 'Who is Irene Adler?\nWhat did she keep?\n' | timeout 120 "${llm_ask[@]}" --format text 2>"$tmp/err"); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$reply"$'\n'"$reply2" ] || fail "piped questions: exit $rc, out '$out': $(cat "$tmp/err")"
grep -q "Earlier in this conversation" "$tmp/piped/request2.json" && grep -q "What did she keep?" "$tmp/piped/request2.json" \
  || fail "the follow-up's prompt lacks the earlier turn"
# llm's own account of its log ("No log database found" when it never logged).
logged() { "$IB_LLM" logs list -n 0 --json 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' 2>/dev/null || echo 0; }
[ "$(logged)" = 0 ] || fail "llm logged $(logged) prompt(s) despite --no-log"
stub logged "$reply"
IB_LLM_LOG=1 "${llm_ask[@]}" --json "Who is Irene Adler?" >/dev/null 2>"$tmp/err" || fail "IB_LLM_LOG=1: $(cat "$tmp/err")"
[ "$(logged)" = 1 ] || fail "IB_LLM_LOG=1: llm logged $(logged) prompts, not 1"
ok "two piped questions answered as text, the second with the first as context; nothing in llm's log unless IB_LLM_LOG=1"

# 3. ib-search --expand through llm (ib-ask --search), and a summary.
stub expand $'Irene Adler photograph\nthe woman'
ib-ask --search --expand --provider llm --model ib-stub --json "Who is the woman?" >"$tmp/s.json" 2>"$tmp/err" \
  || fail "--search --expand: $(cat "$tmp/err")"
[ -s "$tmp/expand/request0.json" ] && grep -q "Who is the woman?" "$tmp/expand/request0.json" || fail "--expand sent nothing to llm"
[ -s "$tmp/s.json" ] && ! grep -q "warning" "$tmp/err" || fail "--expand: no results or a warning: $(cat "$tmp/err")"
answers=(); for _ in $(seq 12); do answers+=("Holmes takes the case (p. 5)."); done
stub summary "${answers[@]}"
ib-ask --summarize --provider llm --model ib-stub --json >"$tmp/sum.json" 2>"$tmp/err" || fail "--summarize: $(cat "$tmp/err")"
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["language_model"] is True and o["provider"] == "llm", o' "$tmp/sum.json" || fail "summary not by llm: $(head -c 300 "$tmp/sum.json")"
ok "ib-search --expand and --summarize through llm"

# 4. Failures: llm missing, llm failing, a stalled model, --base-url; nothing stored.
before=$(q "SELECT count(*) FROM chat_messages")
IB_LLM=/nonexistent/llm "${llm_ask[@]}" "Who is Irene Adler?" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 4 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "pipx install llm, or pip install llm" "$tmp/err" \
  || fail "llm missing: exit $rc: $(cat "$tmp/err")"
(unset IB_LLM; PATH="$(dirname "$(command -v ib-ask)"):/usr/bin:/bin" "${llm_ask[@]}" "Who?" >/dev/null 2>"$tmp/err2"); rc=$?
[ $rc -eq 4 ] && grep -q "not installed or not on PATH" "$tmp/err2" || fail "llm not on PATH: exit $rc: $(cat "$tmp/err2")"
ib-ask --provider llm --model no-such-model --no-expand --no-rerank "Who is Irene Adler?" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 4 ] && grep -q "^ib-ask: llm failed (exit status 1): Error: .*no-such-model" "$tmp/err" || fail "llm failing: exit $rc: $(cat "$tmp/err")"
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$tmp/silent-port" & pids+=($!)
point_llm_at "$tmp/silent-port"
start=$SECONDS
"${llm_ask[@]}" --timeout 2 "Who is Irene Adler?" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 4 ] && grep -q "llm wrote nothing for 2 s (--timeout)" "$tmp/err" && [ $((SECONDS - start)) -lt 30 ] \
  || fail "stalled model: exit $rc after $((SECONDS - start)) s: $(cat "$tmp/err")"
ib-ask --provider llm --base-url http://127.0.0.1:1 "Who?" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "--base-url with llm: exit $rc: $(cat "$tmp/err")"
[ "$(q "SELECT count(*) FROM chat_messages")" = "$before" ] || fail "a failed answer was stored"
ok "llm missing, failing, stalled: exit 4 with one line; --base-url: exit 2; nothing stored"

[ $failures -eq 0 ] || exit 1
echo "llm.sh: all passed" >&2
