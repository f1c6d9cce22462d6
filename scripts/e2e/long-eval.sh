#!/usr/bin/env bash
# The long-book evaluation (scripts/eval/long) as a gate: builds a library of
# War and Peace, Bleak House, Moby-Dick and Meditations from ../shared/books/long
# (about 8,600 chunks; 2-3 minutes on 2 cores), runs the 225 frozen questions in
# every mode and scope beside the rank_bm25 reference, ib-ask extractive, and the
# no-spoiler cases, and fails when a figure falls below
# shared/fixtures/eval/long/floors.json (set just under what was reached), when
# hybrid falls more than one question below a single mode or BM25 in any part,
# kind or book, or when anything past a reading position comes back.
# Skips (exit 0, with a line on stderr) when ../shared is not there.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ ! -d "$root/../shared/books/long" ]; then
  echo "e2e long-eval: skipped: no ../shared/books/long beside the checkout" >&2
  exit 0
fi
"$root/scripts/eval/long" --check "$root/shared/fixtures/eval/long/floors.json" || { echo "FAIL: long-book evaluation"; exit 1; }
# The readers' set: questions naming when and where, on Dracula, Hamlet, the
# Voyage of the Beagle and Walden, in a library of all eight long books (the
# first four re-embedded from ib-embed's cache).
eight=$(mktemp -d)
trap 'rm -rf "$eight"' EXIT
"$root/scripts/eval/long" --set reader --db "$eight/library.db" --check "$root/shared/fixtures/eval/reader/floors.json" || { echo "FAIL: readers' evaluation"; exit 1; }
# The second readers' set (the first set's four books, asked the readers' way),
# in the same library; search only (ib-ask is gated by the two sets above).
"$root/scripts/eval/long" --set reader2 --db "$eight/library.db" --no-ask --check "$root/shared/fixtures/eval/reader2/floors.json" || { echo "FAIL: second readers' evaluation"; exit 1; }
# The third readers' set (fresh questions on the readers' set's books, nobody tuned on),
# in the same library: hybrid only, a regression gate.
"$root/scripts/eval/long" --set reader3 --db "$eight/library.db" --no-ask --modes hybrid --check "$root/shared/fixtures/eval/reader3/floors.json" || { echo "FAIL: third readers' evaluation"; exit 1; }
# The same set's references moved by one (a reader who remembers the place one off):
# the parts and days either side of the one named must still count.
"$root/scripts/eval/long" --set reader3 --db "$eight/library.db" --no-ask --modes hybrid --one-off --check "$root/shared/fixtures/eval/reader3/floors-one-off.json" || { echo "FAIL: third readers' evaluation, references one off"; exit 1; }
# The fourth readers' set (fresh questions on the first set's books, nobody tuned on),
# in the same library: hybrid only, a regression gate.
"$root/scripts/eval/long" --set reader4 --db "$eight/library.db" --no-ask --modes hybrid --check "$root/shared/fixtures/eval/reader4/floors.json" || { echo "FAIL: fourth readers' evaluation"; exit 1; }
# The fifth readers' set (fresh questions on Dracula and Hamlet, nobody tuned on),
# in the same library: hybrid only, a regression gate.
"$root/scripts/eval/long" --set reader5 --db "$eight/library.db" --no-ask --modes hybrid --check "$root/shared/fixtures/eval/reader5/floors.json" || { echo "FAIL: fifth readers' evaluation"; exit 1; }
# The sixth readers' set (short questions, 4-14 words, on all eight books, nobody tuned on),
# in the same library: hybrid only, a regression gate.
"$root/scripts/eval/long" --set reader6 --db "$eight/library.db" --no-ask --modes hybrid --check "$root/shared/fixtures/eval/reader6/floors.json" || { echo "FAIL: sixth readers' evaluation"; exit 1; }
echo "e2e long-eval: ok"
