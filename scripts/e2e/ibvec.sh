#!/usr/bin/env bash
# End-to-end: the loadable ibvec.so in the sqlite3 shell, as the README shows:
# builds it with scripts/build-ibvec, checks the functions and their errors,
# then an ibvec_knn search over a vector_blocks table made with the writer
# helpers (book scope, end_page filter, k rows, int8/binary modes, kernels).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
expect() {  # expect NAME WANT SQL...: runs sqlite3 with ibvec loaded, compares stdout
  local name=$1 want=$2; shift 2
  local got; got=$(cd "$tmp" && sqlite3 "$tmp/lib.db" '.load ./ibvec' "$@" 2>&1)
  [ "$got" = "$want" ] || fail "$name: want [$want] got [$got]"
}
expect_error() {  # expect_error NAME PATTERN SQL: the statement must fail with PATTERN
  local name=$1 pat=$2; shift 2
  local got; got=$(cd "$tmp" && sqlite3 "$tmp/lib.db" '.load ./ibvec' "$@" 2>&1) && fail "$name: no error"
  echo "$got" | grep >/dev/null -- "$pat" || fail "$name: error [$got] lacks [$pat]"
}

"$root/scripts/build-ibvec" "$tmp/ibvec.so" > /dev/null || { echo "FAIL: build-ibvec"; exit 1; }

expect json "[1,2.5,-3]" "SELECT vec_json(vec_f32('[1, 2.5, -3]'))"
expect dims 3 "SELECT vec_dims('[1,2,3]')"
expect cosine "1.0|5.0|-11.0" "SELECT vec_distance_cosine('[1,0]','[0,1]'), vec_distance_l2('[0,0]','[3,4]'), vec_distance_dot('[1,2]','[3,4]')"
expect normalize "[0.6,0.8]" "SELECT vec_json(vec_normalize('[3,4]'))"
expect quantize "7FC000|05|2" "SELECT hex(vec_quantize_i8('[1,-0.5,0]')), hex(vec_quantize_bits('[1,-1,1]')), vec_distance_hamming(vec_quantize_bits('[1,-1,1]'), vec_quantize_bits('[1,1,-1]'))"
# int8 ties round to even, the rule ib-embed's window codes use (IBModelTests WindowTests pins the same bytes)
expect quantize-ties "7F0CF804FE|7F00020200FEFE" "SELECT hex(vec_quantize_i8('[127,12.5,-8.5,4.5,-2.5]')), hex(vec_quantize_i8('[127,0.5,1.5,2.5,-0.5,-1.5,-2.5]'))"
expect_error nan "NaN" "SELECT vec_f32('[1, NaN]')"
expect_error malformed "malformed JSON" "SELECT vec_f32('[1, 2')"
expect_error bloblen "multiple of 4" "SELECT vec_f32(x'010203')"
expect_error dims "dimension mismatch" "SELECT vec_distance_cosine('[1]', '[1,2]')"

# A library: 3 books x 1500 chunks of 16 dims (blocks of up to 1024), chunk i ends on page i/10+1.
python3 - "$tmp/rows.sql" <<'PY'
import random, struct, sys
random.seed(5)
out = open(sys.argv[1], "w")
out.write("""PRAGMA page_size=65536;
CREATE TABLE vector_blocks (id INTEGER PRIMARY KEY, book_id TEXT NOT NULL, model TEXT NOT NULL,
  dim INTEGER NOT NULL, count INTEGER NOT NULL, keys BLOB NOT NULL, end_pages BLOB NOT NULL,
  vectors BLOB NOT NULL, vectors_i8 BLOB, scales BLOB, bits BLOB);
CREATE INDEX vector_blocks_book ON vector_blocks(book_id);
""")
for b in "abc":
    for s in range(0, 1500, 1024):
        n = min(1024, 1500 - s)
        keys = struct.pack("<%dq" % n, *range(s, s + n))
        ends = struct.pack("<%di" % n, *[i // 10 + 1 for i in range(s, s + n)])
        vec = struct.pack("<%df" % (n * 16), *[random.gauss(0, 1) for _ in range(n * 16)])
        out.write("INSERT INTO vector_blocks(book_id,model,dim,count,keys,end_pages,vectors) "
                  "VALUES('%s','m',16,%d,x'%s',x'%s',x'%s');\n" % (b, n, keys.hex(), ends.hex(), vec.hex()))
PY
sqlite3 "$tmp/lib.db" < "$tmp/rows.sql" || fail "creating the library"
expect quantise-columns "" "UPDATE vector_blocks SET vectors_i8 = vec_block_i8(vectors, dim), scales = vec_block_scales(vectors, dim), bits = vec_block_bits(vectors, dim)"

q="[0.3,-1,0.2,0.9,-0.4,1.1,0,0.5,-0.7,0.2,0.1,-0.3,0.8,-1.2,0.6,0.05]"
for mode in exact int8 binary; do
  # whole library: 10 rows, ascending
  expect "all $mode" "10|1" "SELECT count(*), (SELECT count(*) FROM (SELECT distance d, lag(distance) OVER () p FROM ibvec_knn('$q', 10, NULL, '$mode')) WHERE p IS NULL OR d >= p) = 10 FROM ibvec_knn('$q', 10, NULL, '$mode')"
  # book b up to page 3 (chunks 0..29): exactly k rows, all of book b, all ending by page 3
  expect "scope $mode" "10|10|10" "SELECT count(*), sum(book_id = 'b'), sum(end_page <= 3) FROM ibvec_knn('$q', 10, '{\"b\": 3}', '$mode')"
  # fewer pass than k: all 30 of them
  expect "few $mode" "30" "SELECT count(*) FROM ibvec_knn('$q', 50, '{\"b\": 3}', '$mode')"
done
# the results agree with a brute-force scan done with vec_distance_cosine over the blocks
expect brute-force "1" "WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM i WHERE n < 1023),
  v AS (SELECT b.book_id, b.id*10000+n AS k, vec_distance_cosine('$q', substr(b.vectors, n*64+1, 64)) AS d
        FROM vector_blocks b JOIN i ON n < b.count WHERE b.book_id = 'c'),
  want AS (SELECT group_concat(d) g FROM (SELECT d FROM v ORDER BY d LIMIT 5)),
  got AS (SELECT group_concat(distance) g FROM ibvec_knn('$q', 5, '{\"c\": null}'))
  SELECT want.g = got.g FROM want, got"
# every kernel the CPU has gives the same answer, in every mode (small pools: the
# int8 and bit kernels choose what is rescored); IBVEC_VNNI=0 runs AVX-512 without VNNI
for mode in exact int8:30 binary:30; do
  knn="SELECT group_concat(book_id||key||':'||distance) FROM ibvec_knn('$q', 20, NULL, '$mode')"
  ref=$(cd "$tmp" && sqlite3 "$tmp/lib.db" '.load ./ibvec' "SELECT ibvec_set_kernel('scalar')" "$knn" | tail -1)
  for k in avx2 avx512 avx512:novnni; do
    got=$(cd "$tmp" && IBVEC_VNNI=$([ "$k" = avx512:novnni ] && echo 0) sqlite3 "$tmp/lib.db" '.load ./ibvec' \
          "SELECT ibvec_set_kernel('${k%%:*}')" "$knn" 2>/dev/null | tail -1)
    [ -z "$got" ] || [ "$got" = "$ref" ] || fail "kernel $k differs from scalar in $mode"
  done
done
expect_error knn-dims "dimensions" "SELECT * FROM ibvec_knn('[1,2]', 10)"
expect_error knn-k "k must be" "SELECT * FROM ibvec_knn('$q', 0)"
expect_error knn-scope "scope" "SELECT * FROM ibvec_knn('$q', 5, 'nope')"

[ "$status" -eq 0 ] && echo "ibvec e2e: ok"
exit "$status"
