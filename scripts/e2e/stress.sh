#!/usr/bin/env bash
# The short form of scripts/stress (12 kills); run scripts/stress by hand for the full 50.
exec "$(dirname "$0")/../stress" --short
