#!/usr/bin/env bash
# Prints the python of scripts/.venv-mcp, the official MCP Python SDK's own venv
# (made on first use: python3 -m venv, pip install mcp). Used by
# scripts/e2e/mcp.sh and scripts/bench/mcp, which drive ib-mcp with it as the client.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="$root/scripts/.venv-mcp"
version=2.3.0
if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$version'" 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$version" >&2
fi
echo "$venv/bin/python"
