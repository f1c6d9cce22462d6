#!/usr/bin/env bash
# pinned-venv.sh NAME PACKAGE VERSION: prints the folder of scripts/.venv-NAME,
# a venv holding PACKAGE==VERSION (made or brought to that version on first
# use: python3 -m venv, pip install). The test clients that must be the real
# thing (the MCP Python SDK, Simon Willison's llm) each keep one.
# Exits 1 with pip's last line when pip cannot install it (no network).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: pinned-venv.sh NAME PACKAGE VERSION" >&2; exit 2; }
name=$1 package=$2 version=$3
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="$root/scripts/.venv-$name"
if ! "$venv/bin/python" -c "import importlib.metadata as m; assert m.version('$package') == '$version'" 2>/dev/null; then
  python3 -m venv "$venv" >&2
  log=$(mktemp); trap 'rm -f "$log"' EXIT
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "$package==$version" >"$log" 2>&1; then
    echo "pinned-venv: pip could not install $package==$version: $(grep -v '^ *$' "$log" | tail -1)" >&2
    exit 1
  fi
fi
echo "$venv"
