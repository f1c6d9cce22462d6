#!/usr/bin/env bash
# Batch ingestion: the Makefile recipe on a generated tree of 60 documents in
# six formats (all arrive; a re-run does nothing; one changed file redoes only
# that file; INDEX_AT_END=1), the GNU parallel recipe (local jobs, and jobs on
# a stand-in ssh host on 127.0.0.1), and a three-way merge of libraries.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap '[ -f "$tmp/ssh/sshd.pid" ] && kill "$(cat "$tmp/ssh/sshd.pid")" 2>/dev/null; rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
books() { ib-index --db "$1" list | python3 -c "import sys; print(sum(1 for l in sys.stdin if l.strip()))"; }

python3 "$here/lib/make-corpus.py" "$tmp/tree" 60
mk=(make -s -f "$root/scripts/batch/ib.mk" SRC="$tmp/tree" OUT="$tmp/out" DB="$tmp/make.db")

"${mk[@]}" -j4 > "$tmp/make1.log" 2>&1 || { fail "make -j4"; tail -5 "$tmp/make1.log"; }
n=$(books "$tmp/make.db"); [ "$n" = 60 ] || fail "make: $n of 60 books"

# A folder of links to books (the recipe follows them: find -L), and make install ships the recipe.
mkdir "$tmp/links"; find "$tmp/tree/shelf1" -type f | sort | head -3 | xargs -I{} ln -s {} "$tmp/links/"; ln -s "$tmp/tree/shelf2" "$tmp/links/shelf"
want=$(( 3 + $(find "$tmp/tree/shelf2" -type f | wc -l) ))
n=$(make -s -n -f "$root/scripts/batch/ib.mk" SRC="$tmp/links" OUT="$tmp/lout" DB="$tmp/links.db" | grep -c '^ib-parse')
[ "$n" = "$want" ] || fail "a folder of links: make would parse $n of $want documents"
installed=$(make -s -C "$root" installed-files PREFIX=/usr)
for f in share/ib/ib.mk lib/ib/parallel-ingest; do
  grep -qx "/usr/$f" <<<"$installed" || fail "make install does not install $f"
done

# Nothing changed: nothing to do.
"${mk[@]}" -j4 -q || fail "make -q says work remains after a full run"

# One file changed: only it is redone, and the library holds its new version.
python3 - "$tmp/tree/shelf1/doc0001.md" <<'PY'
import sys; p = sys.argv[1]; open(p, "a").write("\nA new closing paragraph about lighthouses and tides.\n")
PY
"${mk[@]}" -j4 -n | grep -c '^ib-parse' > "$tmp/redo" || true
[ "$(cat "$tmp/redo")" = 1 ] || fail "after one change, make would redo $(cat "$tmp/redo") documents"
"${mk[@]}" -j4 > /dev/null 2>&1 || fail "make after a change"
n=$(books "$tmp/make.db"); [ "$n" = 60 ] || fail "after a change: $n books (the old version must be replaced)"
ib-index --db "$tmp/make.db" export | grep >/dev/null 'lighthouses and tides' || fail "the changed document's new text is not in the library"

# GNU parallel: shards by jobs, merged by one ib-index; a bad file does not stop the others.
printf '%%PDF-1.7\n1 0 obj\n<< /Type /Catalog' > "$tmp/tree/shelf0/broken.pdf"
find "$tmp/tree" -type f | "$root/scripts/batch/parallel-ingest" -j 3 "$tmp/parallel.db" - 2> "$tmp/parallel.err"
code=$?
[ "$code" -ne 0 ] || fail "parallel-ingest: a broken file must make the exit status non-zero"
grep -q 'broken.pdf' "$tmp/parallel.err" || fail "parallel-ingest: the failure does not name the file"
n=$(books "$tmp/parallel.db"); [ "$n" = 60 ] || fail "parallel: $n of 60 books"
grep -q 'chunks/s' "$tmp/parallel.err" && fail "parallel-ingest: a progress line although stderr is not a terminal"
mapfile -t three < <(find "$tmp/tree" -type f -name 'doc*' | sort | head -3)
IB_PROGRESS=1 "$root/scripts/batch/parallel-ingest" -j 2 "$tmp/progress.db" "${three[@]}" 2> "$tmp/progress.err" \
  || fail "parallel-ingest with progress"
grep -q '3/3 documents, [0-9]* chunks, [0-9]* chunks/s, ETA' "$tmp/progress.err" || fail "no progress line: $(cat "$tmp/progress.err")"
rm "$tmp/tree/shelf0/broken.pdf"

# Across a host: GNU parallel copies each document to a stand-in remote host
# (sshd on 127.0.0.1 that cannot see this side's shard folder), the job makes
# its shard there, and --return brings it back.
export TMPDIR="$tmp/local-tmp"; mkdir -p "$TMPDIR"
if host=$("$here/lib/ssh-host.sh" "$tmp/ssh" "$TMPDIR" "$(dirname "$(command -v ib-parse)")"); then
  ( cd "$tmp/tree/shelf1" && PARALLEL_SSH=$(sed -n 1p <<<"$host") \
      "$root/scripts/batch/parallel-ingest" -S "$(sed -n 2p <<<"$host")" "$tmp/remote.db" $(ls | head -4) ) > "$tmp/remote.log" 2>&1 \
    || fail "parallel-ingest over ssh: $(tail -3 "$tmp/remote.log")"
  n=$(books "$tmp/remote.db"); [ "$n" = 4 ] || fail "parallel-ingest over ssh: $n of 4 books"
else
  echo "batch: skipped the ssh host check (no sshd, rsync or mount namespaces here)" >&2
fi
unset TMPDIR

# One ib-index run at the end instead of one per document (the shards are already made).
"${mk[@]}" DB="$tmp/end.db" INDEX_AT_END=1 -n > "$tmp/end.plan"
grep -q '^ib-parse' "$tmp/end.plan" && fail "INDEX_AT_END=1 would parse documents again"
[ "$(grep -c '^ib-index' "$tmp/end.plan")" = 1 ] || fail "INDEX_AT_END=1 must plan one ib-index run: $(head -c 300 "$tmp/end.plan")"
"${mk[@]}" DB="$tmp/end.db" INDEX_AT_END=1 > "$tmp/end.log" 2>&1 || { fail "make INDEX_AT_END=1"; tail -5 "$tmp/end.log"; }
n=$(books "$tmp/end.db"); [ "$n" = 60 ] || fail "INDEX_AT_END=1: $n of 60 books"

# Three libraries built apart, merged by export | ib-index.
for k in 0 1 2; do
  find "$tmp/out" -name "doc*.jsonl" | sort | awk -v k=$k 'NR % 3 == k' | xargs ib-index --db "$tmp/part$k.db" || fail "part $k"
done
for k in 0 1 2; do ib-index --db "$tmp/part$k.db" export | ib-index --db "$tmp/merged.db" || fail "merge $k"; done
n=$(books "$tmp/merged.db"); [ "$n" = 60 ] || fail "three-way merge: $n of 60 books"
ib-index --db "$tmp/part0.db" export | ib-index --db "$tmp/merged.db" || fail "re-merge"
n=$(books "$tmp/merged.db"); [ "$n" = 60 ] || fail "re-merging is not a no-op: $n books"
exit $status
