#!/usr/bin/env bash
# Prints the path of Simon Willison's `llm` command in scripts/.venv-llm, its
# own venv at a pinned version (pinned-venv.sh). Used by scripts/e2e/llm.sh and
# IBAskTests' LLMProviderTests, which run ib-ask --provider llm against the real
# llm; scripts/install-deps test makes it. Exits 1 with pip's last line when pip
# cannot install it (no network).
set -euo pipefail
venv=$("$(dirname "$0")/pinned-venv.sh" llm llm 0.36)
echo "$venv/bin/llm"
