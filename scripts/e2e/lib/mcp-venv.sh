#!/usr/bin/env bash
# Prints the python of scripts/.venv-mcp, the official MCP Python SDK's own venv
# at a pinned version (pinned-venv.sh). Used by scripts/e2e/mcp.sh and
# scripts/bench/mcp, which drive ib-mcp with it as the client.
set -euo pipefail
venv=$("$(dirname "$0")/pinned-venv.sh" mcp mcp 2.3.0)
echo "$venv/bin/python"
