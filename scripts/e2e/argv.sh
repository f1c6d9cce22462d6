#!/usr/bin/env bash
# End-to-end: arguments. The known cases by name (a bad number or an empty
# --db is exit 2 with one line naming the option), then scripts/fuzz/argv:
# every option of every tool with hostile values, no crash, no hang.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export IB_DB="$dir/library.db" XDG_CACHE_HOME="$dir/cache" OLLAMA_HOST=127.0.0.1:9 \
  OPENAI_BASE_URL=http://127.0.0.1:9 ANTHROPIC_BASE_URL=http://127.0.0.1:9
fail=0
usage() {  # usage NAME OPTION COMMAND...: exit 2, and stderr's first line names OPTION
  local name=$1 option=$2; shift 2
  timeout 10 "$@" </dev/null >/dev/null 2>"$dir/err"; local rc=$?
  if [ $rc -ne 2 ] || ! head -1 "$dir/err" | grep -q -- "$option"; then
    echo "FAIL: $name: exit $rc (want 2 naming $option): $(head -1 "$dir/err" | cut -c1-160)" >&2; fail=1
  fi
}
usage "ib-parse --timeout inf" --timeout ib-parse --timeout inf http://127.0.0.1:9/x
usage "ib-parse --timeout 0.0004" --timeout ib-parse --timeout 0.0004 http://127.0.0.1:9/x
usage "ib-parse --max-bytes 1e308" --max-bytes ib-parse --max-bytes 1e308 http://127.0.0.1:9/x
usage "ib-chunk --overlap 60%" --overlap ib-chunk --overlap 60% /dev/null
usage "ib-embed --timeout nan" --timeout ib-embed --provider ollama --timeout nan --query x
usage "ib-embed --batch 0" --batch ib-embed --batch 0 --query x
usage "ib-search --rrf-k -1" --rrf-k ib-search --rrf-k -1 q
usage "ib-search --rrf-k nan" --rrf-k ib-search --rrf-k nan q
usage "ib-search -k 99999999999999999999" --count ib-search -k 99999999999999999999 q
usage "ib-ask --max-tokens inf" --max-tokens ib-ask --max-tokens inf q
usage "ib-ask --timeout 0" --timeout ib-ask --timeout 0 q
usage "ib-index set-page BOOK -1" set-page ib-index set-page x -1
# An unknown subcommand close to a known one: exit 2 with the suggestion.
usage "ib-index lst" "did you mean list?" ib-index lst
usage "ib-index shwo" "did you mean show?" ib-index shwo
usage "ib-capture statsu" "did you mean status?" ib-capture statsu
for tool in ib-index ib-search ib-ask ib-capture ib-mcp; do
  args=(list); [ $tool = ib-index ] || args=(q); [ $tool = ib-mcp ] && args=()
  usage "$tool --db ''" --db $tool --db '' "${args[@]}"
done
[ $fail -eq 0 ] && echo "argv e2e: bad numbers and an empty --db are usage errors naming the option"
"$here/../fuzz/argv" || fail=1
exit $fail
