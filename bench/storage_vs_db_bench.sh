#!/usr/bin/env bash
# Storage-only figures of Keywise next to RocksDB's own db_bench, measured in
# one run on this machine with equal key and value sizes.
#
#   bash bench/storage_vs_db_bench.sh [ROWS]        (default 1000000)
#
# Prints a table; paste it into docs/performance.md with this command line.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
bash scripts/setup.sh >/dev/null
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKEYWISE_TESTS=OFF -DKEYWISE_BENCH=ON >/dev/null
cmake --build build-release --target keywise_storage_bench -j2 >/dev/null

work=$(mktemp -d /tmp/kw-storage-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
out="$work/keywise.txt"
build-release/bench/keywise_storage_bench "$work/keywise" "$ROWS" 100 | tee "$out"
get() { awk -v k="$1" '$1 == k {print $2}' "$out"; }
ksize=$(get encoded_key_bytes)
vsize=$(get encoded_value_bytes)

common=(--num="$ROWS" --key_size="$ksize" --value_size="$vsize"
  --compression_type=lz4 --compression_ratio=1.0 --bloom_bits=10
  --cache_size=67108864 --write_buffer_size=67108864 --threads=1
  --db="$work/db_bench" --statistics=false)
db_bench "${common[@]}" --benchmarks=fillrandom >"$work/fill.txt" 2>&1
db_bench "${common[@]}" --benchmarks=readrandom --use_existing_db=1 \
  --reads="$ROWS" >"$work/read.txt" 2>&1
ops() { awk -v b="$1" '$1 == b {for (i = 1; i <= NF; i++) if ($i == "ops/sec") print $(i-1)}' "$2"; }
fill=$(ops fillrandom "$work/fill.txt")
read=$(ops readrandom "$work/read.txt")
kw_write=$(get write_ops_per_sec)
kw_read=$(get read_ops_per_sec)
kw_read_c=$(get read_after_compaction_ops_per_sec)
kw_read_63=$(get read_63pct_found_ops_per_sec)
found=$(grep -o '([0-9]* of [0-9]* found)' "$work/read.txt" || true)

printf '\n| measure (%s rows, key %s B, value %s B) | keywise | db_bench | ratio |\n' "$ROWS" "$ksize" "$vsize"
printf '|---|---|---|---|\n'
awk -v k="$kw_write" -v d="$fill" 'BEGIN {printf "| single-row write, ops/s | %d | %d (fillrandom) | %.2f |\n", k, d, k/d}'
awk -v k="$kw_read" -v d="$read" -v f="$found" 'BEGIN {printf "| point read of existing rows, ops/s | %d | %d (readrandom %s) | %.2f |\n", k, d, f, k/d}'
awk -v k="$kw_read_63" -v d="$read" -v f="$(get read_63pct_found_ops_per_sec_found)" 'BEGIN {printf "| point read, same hit rate as readrandom (%s found), ops/s | %d | %d | %.2f |\n", f, k, d, k/d}'
awk -v k="$kw_read_c" -v d="$read" 'BEGIN {printf "| point read after major compaction, ops/s | %d | | %.2f |\n", k, k/d}'
printf '| first 100 rows of a 1,000,000-row partition, us | %s | | |\n' "$(get head100_of_1M_rows_us)"
printf '| first 100 rows of a 100-row partition, us | %s | | %s |\n' "$(get head100_of_100_rows_us)" "$(get head100_ratio)"
