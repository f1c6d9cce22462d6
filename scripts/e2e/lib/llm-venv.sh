#!/usr/bin/env bash
# Prints the path of Simon Willison's `llm` command in scripts/.venv-llm, its
# own venv (made on first use: python3 -m venv, pip install llm at a pinned
# version). Used by scripts/e2e/llm.sh and IBAskTests' LLMProviderTests, which
# run ib-ask --provider llm against the real llm; scripts/install-deps test
# makes it. Exits 1 with pip's last line when pip cannot install it (no network).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="$root/scripts/.venv-llm"
version=0.36
if ! "$venv/bin/python" -c "import importlib.metadata as m; assert m.version('llm') == '$version'" 2>/dev/null; then
  python3 -m venv "$venv" >&2
  log=$(mktemp)
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "llm==$version" >"$log" 2>&1; then
    echo "llm-venv: pip could not install llm==$version: $(grep -v '^ *$' "$log" | tail -1)" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
fi
echo "$venv/bin/llm"
