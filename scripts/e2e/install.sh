#!/usr/bin/env bash
# make install / make uninstall: `make install DESTDIR=$tmp PREFIX=/usr` writes
# exactly the files the README lists (between <!-- installed-files --> marks),
# the installed tools work from there without the checkout (--version's
# commit, the model hint, ibvec.so for sqlite3, man pages), and
# `make uninstall` leaves $tmp empty.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dest="$tmp/root"; mkdir "$dest"

make -s -C "$root" install DESTDIR="$dest" PREFIX=/usr >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make install"; }

# The README's list: brace patterns expanded, globs matched against the tree.
mapfile -t patterns < <(sed -n '/<!-- installed-files -->/,/<!-- \/installed-files -->/p' "$root/README.md" |
  grep '^/' | awk '{print $1}' | while read -r p; do eval "printf '%s\n' $(printf '%s' "$p" | sed 's/\*/\\*/g')"; done)
[ ${#patterns[@]} -gt 10 ] || fail "no installed-files list in README.md"
mapfile -t found < <(cd "$dest" && find . ! -type d | sed 's/^\.//' | sort)
for f in "${found[@]}"; do
  matched=0
  for p in "${patterns[@]}"; do [[ $f == $p ]] && { matched=1; break; }; done
  [ $matched = 1 ] || fail "installed but not documented: $f"
done
for p in "${patterns[@]}"; do
  n=0; for f in "${found[@]}"; do [[ $f == $p ]] && n=$((n + 1)); done
  [ $n -gt 0 ] || fail "documented but not installed: $p"
done
[ "$(ls "$dest/usr/share/ib/prompts" | wc -l)" = "$(ls "$root/shared/prompts" | wc -l)" ] || fail "not every prompt installed"
[ "$(ls "$dest/usr/share/ib/schema" | wc -l)" = "$(ls "$root/shared/schema" | wc -l)" ] || fail "not every migration installed"
[ "$(make -s -C "$root" installed-files PREFIX=/usr | wc -l)" = "${#found[@]}" ] || fail "make installed-files disagrees with the tree"

# The installed tools, away from the checkout.
bin="$dest/usr/bin"
commit=$(git -C "$root" rev-parse HEAD)
for t in ib-parse ib-chunk ib-embed ib-index ib-search ib-ask ib-capture ib-mcp ib-transcribe; do
  out=$(cd / && "$bin/$t" --version) || fail "$t --version"
  [ "$(sed -n 1p <<<"$out")" = "$t $(sed -n 's/^version=//p' "$dest/usr/lib/ib/build-info")" ] || fail "$t --version: $out"
  grep -q "^commit: $commit" <<<"$out" || fail "$t --version does not name commit $commit: $out"
  grep -q "^model: " <<<"$out" || fail "$t --version names no model"
done
msg=$(echo '{"type":"chunk"}' | IB_MODEL_DIR="$tmp/none" "$bin/ib-embed" 2>&1)
grep -qF "$dest/usr/lib/ib/fetch-model" <<<"$msg" || fail "ib-embed without a model does not name the installed fetch-model: $msg"
grep -qF "$dest/usr/lib/ib/build-thesaurus" <<<"$msg" || fail "ib-embed without a model does not name build-thesaurus: $msg"
[ "$(sqlite3 ':memory:' ".load $dest/usr/lib/ib/ibvec" "SELECT vec_dims('[1,2,3]')")" = 3 ] || fail "sqlite3 cannot .load the installed ibvec"
if command -v man >/dev/null; then
  [ -n "$(MANPATH="$dest/usr/share/man" man -w ib-search 2>/dev/null)" ] || fail "man does not find ib-search(1)"
fi
db="$tmp/lib.db"
(cd / && "$bin/ib-parse" "$root/shared/fixtures/books/sherlock.txt" | "$bin/ib-chunk" | "$bin/ib-embed" --no-cache |
  "$bin/ib-index" -q --db "$db") || fail "installed pipeline"
(cd / && "$bin/ib-search" --db "$db" -k 1 --all-pages "the red-headed league" | grep -q '"type":"result"') || fail "installed ib-search"

make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null || fail "make uninstall"
left=$(find "$dest" -mindepth 1)
[ -z "$left" ] || fail "make uninstall left: $(echo $left)"

[ $fails -eq 0 ] && echo "install e2e: ${#found[@]} files installed as documented; tools work from DESTDIR; uninstall leaves it empty"
[ $fails -eq 0 ]
