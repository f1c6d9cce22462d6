#!/usr/bin/env bash
# Docs move with code: every long option a tool's --help names is in its man
# page, and every option the man page names is in --help.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
status=0
for tool in ib-parse ib-chunk ib-embed ib-index ib-search ib-ask ib-capture ib-mcp ib-transcribe; do
  page="$root/man/man1/$tool.1"
  [ -f "$page" ] || { echo "FAIL: $tool has no man page"; status=1; continue; }
  help=$("$tool" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  man=$(sed 's/\\-/-/g' "$page" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  only_help=$(comm -23 <(echo "$help") <(echo "$man") | tr '\n' ' ')
  only_man=$(comm -13 <(echo "$help") <(echo "$man") | tr '\n' ' ')
  [ -z "${only_help// }" ] || { echo "FAIL: $tool --help names options its man page lacks: $only_help"; status=1; }
  [ -z "${only_man// }" ] || { echo "FAIL: $tool(1) names options --help lacks: $only_man"; status=1; }
done
# README's table of what each tool prints (terminal, pipe, --json/--format) is the tools' own word.
"$root/scripts/gen-output-table" --check || status=1
[ $status -eq 0 ] && echo "docs e2e: --help and man pages agree for every tool; README's output table is current"
exit $status
