#!/usr/bin/env bash
# The shell completions (completions/: bash, zsh, fish) against the tools:
# they are what scripts/gen-completions makes from today's --help, and each
# shell, asked to complete "TOOL --", offers exactly the long options that
# TOOL --help names; subcommands, option values and book arguments (ids and
# titles from the library, by one read-only sqlite3 query) complete too.
# zsh and fish are tested when installed (scripts/install-deps installs them);
# zsh both through _ib with compadd stubbed and in a real interactive zsh (zpty).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
comp="$root/completions"
fails=0; checks=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { checks=$((checks + 1)); }
tools=(ib-parse ib-chunk ib-embed ib-index ib-search ib-ask ib-capture ib-mcp ib-transcribe)
bin="${IB_BIN:-$(dirname "$(command -v ib-parse)")}"

python3 "$root/scripts/gen-completions" --check "$bin" && ok || fail "completions/ are stale"

# The long options each --help names that the tool takes (ib-search's help also
# mentions ib-ask's --search): `TOOL --help --OPTION [x]` is exit 0 only for those.
long_options() {
  local opt
  for opt in $("$bin/$1" --help | grep -oE -- '(^|[^a-z-])--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    { "$bin/$1" --help "$opt" || "$bin/$1" --help "$opt" x; } </dev/null >/dev/null 2>&1 && echo "$opt"
  done
  # and a mode that must come first: "ib-ask --search ARGS... runs ib-search ..."
  "$bin/$1" --help | grep -oE "^$1 --[a-z][a-z0-9-]*" | cut -d' ' -f2
}

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
db="$tmp/lib.db"
"$bin/ib-parse" --title "The Adventures of Sherlock Holmes" "$root/shared/fixtures/books/sherlock.txt" |
  "$bin/ib-chunk" --tokenizer words | "$bin/ib-index" -q --db "$db" || fail "could not build a library"
id=$(sqlite3 "$db" "SELECT id FROM books")

# bash: the completion function, as bash-completion would call it, then COMPREPLY.
bash_complete() {  # bash_complete WORD... (the last is the word being completed)
  bash --norc -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    complete -p "$1" >/dev/null || exit 3
    _ib "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp/ib.bash" "$@"
}
# zsh: the completion function with compadd and _files stubbed to print what they would offer.
zsh_complete() {
  zsh -f -c 'autoload -Uz compinit; compinit -u -D 2>/dev/null; source "$1"; shift
    setopt extendedglob
    compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift; print -l -- ${(M)@:#(#i)${PREFIX}*}; }
    _files() { print -- "<files>"; }
    words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; _ib' _ "$comp/_ib" "$@"
}
# fish: its own completion engine on a command line (a last word with spaces is an open quote).
fish_complete() {
  local line="" w n=0
  for w in "$@"; do
    n=$((n + 1))
    if [[ $w == *" "* ]]; then w="'$w"; [ $n -lt $# ] && w="$w'"; fi
    line+="${line:+ }$w"
  done
  fish --no-config -c 'source $argv[1]; complete -C $argv[2] | string replace -r "\t.*" ""' "$comp/ib.fish" "$line"
}

shells=(bash)
command -v zsh >/dev/null && shells+=(zsh) || echo "completion e2e: zsh not installed, skipped"
command -v fish >/dev/null && shells+=(fish) || echo "completion e2e: fish not installed, skipped"

expect() {  # expect SHELL WANT(newline list) WORDS...: the completions are exactly WANT
  local shell=$1 want=$2; shift 2
  local got
  got=$("${shell}_complete" "$@" | grep -v '^<files>$' | grep -v '^$' | sort -u)
  want=$(printf '%s\n' "$want" | grep -v '^$' | sort -u)
  if [ "$got" = "$want" ]; then ok; else
    fail "$shell: '$*': got [$(echo $got)], want [$(echo $want)]"
  fi
}
contains() {  # contains SHELL WANT WORDS...: WANT is among the completions
  local shell=$1 want=$2; shift 2
  local got; got=$("${shell}_complete" "$@")
  if grep -qxF -- "$want" <<<"$got"; then ok; else fail "$shell: '$*' does not offer '$want'"; fi
}

for shell in "${shells[@]}"; do
  for tool in "${tools[@]}"; do
    expect "$shell" "$(long_options "$tool")" "$tool" --
  done
  for sub in list show delete set-page export stats vacuum quantize; do contains "$shell" "$sub" ib-index ""; done
  expect "$shell" "$(printf '%s\n' status suggest card chart export import)" ib-capture ""
  expect "$shell" "$(printf '%s\n' hybrid vector text)" ib-search --mode ""
  expect "$shell" "$(printf '%s\n' off i8 bits)" ib-index --db "$db" quantize ""
  expect "$shell" "$(printf '%s\n' bf16)" ib-embed --precision b
  expect "$shell" "--no-windows" ib-embed --no-w
  # Books from the library: an id prefix, and a title case-insensitively.
  expect "$shell" "$id" ib-index --db "$db" show "${id:0:3}"
  expect "$shell" "$id" ib-search --db "$db" --book "${id:0:3}"
  title="The Adventures of Sherlock Holmes"
  [ "$shell" = bash ] && title='The\ Adventures\ of\ Sherlock\ Holmes'
  contains "$shell" "$title" ib-ask --db "$db" --book "the adv"
  IB_DB="$db" contains "$shell" "$id" ib-index delete ""
done

# zsh's real completion system, in an interactive zsh on a pseudo-terminal
# (the checks above stub compadd and _files to read what _ib offers).
if command -v zsh >/dev/null; then
  while IFS='|' read -r line want; do
    (cd "$tmp" && zsh -f "$here/lib/zsh-complete.zsh" "$comp" "$line" "$want") 2>"$tmp/zpty.err" && ok ||
      fail "zsh (interactive): '$line<TAB>' does not show '$want': $(tail -1 "$tmp/zpty.err")"
  done <<LINES
ib-search --mod|ib-search --mode
ib-search --kind |quotes
ib-capture st|ib-capture status
ib-index --db $db show ${id:0:4}|$id
LINES
fi

# Book completion costs one sqlite3 query: time 20 of them through bash.
start=$(date +%s%N)
for _ in $(seq 20); do bash_complete ib-search --db "$db" --book "the" >/dev/null; done
per=$(( ($(date +%s%N) - start) / 20000000 ))
with_bash=$per
start=$(date +%s%N)
for _ in $(seq 20); do bash --norc -c 'source "$1"' _ "$root/completions/ib.bash"; done
per_bare=$(( ($(date +%s%N) - start) / 20000000 ))
echo "completion e2e: book completion ${with_bash} ms per bash run (bash alone, sourcing the file: ${per_bare} ms)"

[ $fails -eq 0 ] && echo "completion e2e: $checks checks passed (${shells[*]})"
[ $fails -eq 0 ]
