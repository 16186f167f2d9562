#!/usr/bin/env bash
# Keywise next to RocksDB's db_bench and PostgreSQL 15, measured in one run on
# this machine with the same row shape (pk bigint, ck bigint, 100-byte value,
# PRIMARY KEY (pk, ck), 100 rows per partition), the same key space of ROWS
# rows, the same number of requests in flight and the same run length.
#
#   bash bench/side_by_side.sh [ROWS] [DURATION_S] [CONCURRENCY]
#        defaults:               1000000  30          64
#   bash bench/side_by_side.sh 200000 10        (a quick check, ~2 minutes)
#
# Per system, for DURATION_S seconds each:
#   write  random row of the key space (an upsert: keys repeat)
#          db_bench fillrandom | pgbench INSERT .. ON CONFLICT DO UPDATE |
#          keywise bench --workload write
#   read   point read of an existing row by full primary key (ROWS rows loaded
#          first, 100% found)
#          db_bench readrandom | pgbench SELECT by (pk, ck) | --workload read
#   scan   100 rows from the head of a random partition
#          db_bench seekrandom --seek_nexts=100 | pgbench SELECT .. LIMIT 100 |
#          --workload scan --scan-rows 100
# db_bench runs CONCURRENCY threads; pgbench CONCURRENCY clients (-M prepared,
# 2 threads); keywise bench CONCURRENCY requests in flight (4 connections, 1
# thread). PostgreSQL runs with synchronous_commit=off (matches Keywise's
# periodic commit-log sync); db_bench writes its WAL without fsync.
#
# Prints a markdown table of ops/s, p99, the ratios keywise/PostgreSQL and
# keywise/db_bench, server CPU per operation, and server memory, plus keywise
# at half its peak rate and 100-row scans in DESC order, and writes it into
# docs/performance.md between the side_by_side:begin/end markers.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ROWS=${1:-1000000}
DURATION=${2:-30}
CONCURRENCY=${3:-64}
ROWS_PER_PARTITION=100
PARTITIONS=$(( (ROWS + ROWS_PER_PARTITION - 1) / ROWS_PER_PARTITION ))
ROWS=$(( PARTITIONS * ROWS_PER_PARTITION ))
VALUE_SIZE=100
PG_BIN=/usr/lib/postgresql/15/bin
KEYWISE=$ROOT/build-release/keywise
CLK_TCK=$(getconf CLK_TCK)

die() { echo "side_by_side: $*" >&2; exit 1; }
log() { echo "side_by_side: $*" >&2; }

# ---------------------------------------------------------------- cleanup
WORK=$(mktemp -d /tmp/kw-side-by-side.XXXXXX)
chmod 755 "$WORK"
KW_PID=""
PG_DATA=""
SAMPLER_PID=""
cleanup() {
  set +e
  [[ -n $SAMPLER_PID ]] && kill "$SAMPLER_PID" 2>/dev/null && wait "$SAMPLER_PID" 2>/dev/null
  if [[ -n $KW_PID ]] && kill -0 "$KW_PID" 2>/dev/null; then
    kill "$KW_PID"; wait "$KW_PID" 2>/dev/null
  fi
  if [[ -n $PG_DATA && -f $PG_DATA/postmaster.pid ]]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- helpers
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_port PORT PID NAME: until PORT accepts connections; fail if PID dies.
wait_port() {
  local port=$1 pid=$2 name=$3 i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || die "$name (pid $pid) exited during startup"
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "$name did not open port $port within 30 s"
}
# CPU seconds*CLK_TCK of a process: utime+stime (+ reaped children's time).
proc_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
proc_ticks_with_children() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
vm_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
# p99 of a column of numbers on stdin
p99() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) {print "nan"; exit}
  i = int(NR * 0.99 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; print v[i]}'; }
json_num() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# results are kept as lines "system workload key value" in $WORK/results
put() { echo "$1 $2 $3 $4" >>"$WORK/results"; }
get() { awk -v s="$1" -v w="$2" -v k="$3" '$1 == s && $2 == w && $3 == k {v = $4} END {print v}' "$WORK/results"; }

# ---------------------------------------------------------------- db_bench
run_db_bench() {
  command -v db_bench >/dev/null || die "db_bench not found (apt-get install rocksdb-tools)"
  local db=$WORK/rocksdb
  local common=(--num="$ROWS" --key_size=16 --value_size="$VALUE_SIZE"
    --compression_type=lz4 --compression_ratio=1.0 --bloom_bits=10
    --cache_size=67108864 --write_buffer_size=67108864 --db="$db"
    --statistics=false --histogram=1)
  local timed=(--threads="$CONCURRENCY" --duration="$DURATION")
  db_bench_one() {  # workload-name benchmark args...
    local name=$1 bench=$2 out; shift 2
    out=$WORK/db_bench_$name.txt
    log "db_bench $bench ($name)"
    db_bench "${common[@]}" --benchmarks="$bench" "$@" >"$out" 2>&1 ||
      { cat "$out" >&2; die "db_bench $bench failed"; }
    put db_bench "$name" ops "$(awk -v b="$bench" '$1 == b {for (i = 1; i <= NF; i++) if ($i == "ops/sec") print $(i-1)}' "$out" | head -1)"
    put db_bench "$name" p99_ms "$(awk '$1 == "Percentiles:" {for (i = 1; i <= NF; i++) if ($i == "P99:") {printf "%.3f\n", $(i+1) / 1000; exit}}' "$out")"
  }
  db_bench_one write fillrandom "${timed[@]}"
  log "db_bench fillseq: loading $ROWS rows"
  db_bench "${common[@]}" --benchmarks=fillseq --threads=1 >"$WORK/db_bench_load.txt" 2>&1 ||
    { cat "$WORK/db_bench_load.txt" >&2; die "db_bench fillseq failed"; }
  db_bench_one read readrandom "${timed[@]}" --use_existing_db=1
  db_bench_one scan seekrandom "${timed[@]}" --use_existing_db=1 --seek_nexts=100
  rm -rf "$db"
}

# ---------------------------------------------------------------- PostgreSQL
PG_PORT=""
pg_install() {
  if [[ ! -x $PG_BIN/postgres || ! -x $PG_BIN/pgbench ]]; then
    log "installing postgresql-15"
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql-15 >"$WORK/apt.log" 2>&1 ||
      { cat "$WORK/apt.log" >&2; die "apt-get install postgresql-15 failed"; }
  fi
  id postgres >/dev/null 2>&1 || die "no postgres user after installing postgresql-15"
}
pg_start() {
  # initdb and the server run as user postgres, so their directory is its own
  install -d -o postgres -g postgres "$WORK/pg"
  PG_DATA=$WORK/pg/data
  PG_PORT=$(free_port)
  runuser -u postgres -- "$PG_BIN/initdb" -D "$PG_DATA" -A trust -U postgres \
    --no-sync >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
  cat >>"$PG_DATA/postgresql.conf" <<EOF
port = $PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_DATA'
synchronous_commit = off
max_connections = $((CONCURRENCY + 20))
shared_buffers = 128MB
EOF
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$WORK/pg/postgres.log" -w -t 60 start \
    >"$WORK/pg_ctl.log" 2>&1 ||
    { cat "$WORK/pg_ctl.log" "$WORK/pg/postgres.log" >&2; die "PostgreSQL did not start"; }
  wait_port "$PG_PORT" "$(pg_pid)" PostgreSQL
}
pg_pid() { head -1 "$PG_DATA/postmaster.pid"; }
psql_c() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres "$@"; }
# CPU ticks of the whole server: the postmaster, the children it has reaped
# (backends of finished pgbench runs), and the children still alive.
pg_ticks() {
  local pm total c
  pm=$(pg_pid)
  total=$(proc_ticks_with_children "$pm")
  for c in $(pgrep -P "$pm"); do total=$((total + $(proc_ticks "$c" 2>/dev/null || echo 0))); done
  echo "$total"
}
# "sum_VmRSS_kB sum_Pss_kB" over the postmaster and its children
pg_mem() {
  local pm rss=0 pss=0 p r s
  pm=$(pg_pid)
  for p in "$pm" $(pgrep -P "$pm"); do
    r=$(vm_kb "$p" VmRSS 2>/dev/null || echo 0)
    s=$(awk '$1 == "Pss:" {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
    rss=$((rss + ${r:-0})); pss=$((pss + ${s:-0}))
  done
  echo "$rss $pss"
}
pg_one() {  # workload-name: runs $WORK/pg_<name>.sql with pgbench
  local name=$1 before after out
  out=$WORK/pgbench_$name.txt
  log "pgbench $name"
  before=$(pg_ticks)
  ( while :; do pg_mem >>"$WORK/pg_mem.txt"; sleep 1; done ) &
  SAMPLER_PID=$!
  "$PG_BIN/pgbench" -n -M prepared -h 127.0.0.1 -p "$PG_PORT" -U postgres \
    -c "$CONCURRENCY" -j 2 -T "$DURATION" -f "$WORK/pg_$name.sql" \
    -l --log-prefix="$WORK/pglog_$name" postgres >"$out" 2>&1 ||
    { cat "$out" >&2; die "pgbench $name failed"; }
  kill "$SAMPLER_PID"; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=""
  sleep 0.5  # let the postmaster reap the backends
  after=$(pg_ticks)
  local ops tps
  ops=$(awk -F': ' '/number of transactions actually processed/ {split($2, a, "/"); print a[1]}' "$out")
  tps=$(awk '/^tps = / {print $3; exit}' "$out")
  [[ -n $ops && $ops -gt 0 ]] || { cat "$out" >&2; die "pgbench $name processed no transactions"; }
  put postgres "$name" ops "$tps"
  put postgres "$name" p99_ms "$(cat "$WORK"/pglog_"$name".* | awk '{print $3}' | p99 | awk '{printf "%.3f\n", $1 / 1000}')"
  put postgres "$name" cpu_us "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ops" 'BEGIN {printf "%.1f\n", t / hz * 1e6 / n}')"
  rm -f "$WORK"/pglog_"$name".*
}
run_postgres() {
  pg_install
  pg_start
  local value
  value=$(head -c "$VALUE_SIZE" /dev/urandom | od -An -tx1 -v | tr -d ' \n')
  psql_c -c "CREATE TABLE kv (pk bigint, ck bigint, v bytea, PRIMARY KEY (pk, ck))"
  cat >"$WORK/pg_write.sql" <<EOF
\set row random(0, $((ROWS - 1)))
\set pk :row / $ROWS_PER_PARTITION
\set ck :row % $ROWS_PER_PARTITION
INSERT INTO kv (pk, ck, v) VALUES (:pk, :ck, '\\x$value') ON CONFLICT (pk, ck) DO UPDATE SET v = EXCLUDED.v;
EOF
  cat >"$WORK/pg_read.sql" <<EOF
\set row random(0, $((ROWS - 1)))
\set pk :row / $ROWS_PER_PARTITION
\set ck :row % $ROWS_PER_PARTITION
SELECT v FROM kv WHERE pk = :pk AND ck = :ck;
EOF
  cat >"$WORK/pg_scan.sql" <<EOF
\set pk random(0, $((PARTITIONS - 1)))
SELECT ck, v FROM kv WHERE pk = :pk AND ck >= 0 ORDER BY ck LIMIT 100;
EOF
  pg_one write
  log "PostgreSQL: loading $ROWS rows"
  psql_c -c "TRUNCATE kv" \
    -c "INSERT INTO kv SELECT g / $ROWS_PER_PARTITION, g % $ROWS_PER_PARTITION, '\\x$value'::bytea FROM generate_series(0, $((ROWS - 1))) g" \
    -c "VACUUM ANALYZE kv" -c "CHECKPOINT"
  pg_one read
  pg_one scan
  local peak
  peak=$(awk 'BEGIN {r = 0; p = 0} {if ($1 > r) r = $1; if ($2 > p) p = $2} END {printf "%d %d\n", r / 1024, p / 1024}' "$WORK/pg_mem.txt")
  put postgres all rss_mb "${peak% *}"
  put postgres all pss_mb "${peak#* }"
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
  PG_DATA=""
}

# ---------------------------------------------------------------- Keywise
KW_PORT=""
kw_build() {
  if [[ ! -x $KEYWISE ]]; then
    log "building $KEYWISE"
    { cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DKEYWISE_TESTS=OFF &&
      cmake --build build-release --target keywise -j2; } >"$WORK/build.log" 2>&1 ||
      { tail -50 "$WORK/build.log" >&2; die "building keywise failed"; }
  fi
}
kw_start() {
  KW_PORT=$(free_port)
  mkdir -p "$WORK/keywise-data"
  "$KEYWISE" server --data-dir "$WORK/keywise-data" --port "$KW_PORT" >"$WORK/keywise.log" 2>&1 &
  KW_PID=$!
  wait_port "$KW_PORT" "$KW_PID" "keywise server" ||
    { tail -20 "$WORK/keywise.log" >&2; exit 1; }
  local i
  for ((i = 0; i < 100; i++)); do
    "$KEYWISE" shell 127.0.0.1 "$KW_PORT" -e 'SELECT key FROM system.local' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  tail -20 "$WORK/keywise.log" >&2
  die "keywise server on port $KW_PORT does not answer queries"
}
kw_bench() {  # output-file extra-args...
  local out=$1; shift
  "$KEYWISE" bench --port "$KW_PORT" --json --quiet --concurrency "$CONCURRENCY" \
    --partitions "$PARTITIONS" --rows-per-partition "$ROWS_PER_PARTITION" \
    --value-size "$VALUE_SIZE" "$@" >"$out" 2>"$out.err" ||
    { cat "$out" "$out.err" >&2; die "keywise bench $* failed"; }
}
kw_one() {  # workload-name extra-args...
  local name=$1 before after out; shift
  out=$WORK/keywise_$name.json
  log "keywise bench $name"
  before=$(proc_ticks "$KW_PID")
  kw_bench "$out" --duration "${DURATION}s" "$@"
  after=$(proc_ticks "$KW_PID")
  local ops
  ops=$(json_num "$out" ops)
  [[ $ops -gt 0 ]] || { cat "$out" >&2; die "keywise bench $name did no operations"; }
  [[ $(json_num "$out" errors) == 0 ]] || log "WARNING: keywise $name had $(json_num "$out" errors) errors"
  put keywise "$name" ops "$(json_num "$out" ops_per_sec)"
  put keywise "$name" p99_ms "$(json_num "$out" p99_ms)"
  put keywise "$name" cpu_us "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ops" 'BEGIN {printf "%.1f\n", t / hz * 1e6 / n}')"
  put keywise "$name" client_cpu_us "$(json_num "$out" cpu_per_op_us)"
}
# Half of a measured peak, as a --rate value.
half_rate() { awk -v r="$(get keywise "$1" ops)" 'BEGIN {printf "%d\n", r / 2}'; }
run_keywise() {
  kw_build
  kw_start
  kw_one write --workload write
  kw_one write_half --workload write --rate "$(half_rate write)"
  log "keywise: loading $ROWS rows"
  kw_bench "$WORK/keywise_load.json" --workload read --duration 100ms
  kw_one read --workload read --no-load
  kw_one read_half --workload read --no-load --rate "$(half_rate read)"
  kw_one scan --workload scan --scan-rows 100 --no-load
  kw_one scan_desc --workload scan --scan-rows 100 --order desc --no-load
  put keywise all rss_mb "$(( $(vm_kb "$KW_PID" VmRSS) / 1024 ))"
  put keywise all hwm_mb "$(( $(vm_kb "$KW_PID" VmHWM) / 1024 ))"
  kill "$KW_PID"; wait "$KW_PID" 2>/dev/null || true; KW_PID=""
}

# ---------------------------------------------------------------- report
print_table() {
  local w label ratio
  echo
  echo "Command: bash bench/side_by_side.sh $ROWS $DURATION $CONCURRENCY" \
    "($(nproc) CPUs, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "| workload ($ROWS rows, $PARTITIONS partitions x $ROWS_PER_PARTITION, value $VALUE_SIZE B, concurrency $CONCURRENCY, ${DURATION} s) | keywise ops/s | keywise p99 ms | PostgreSQL ops/s | PostgreSQL p99 ms | db_bench ops/s | db_bench p99 ms | keywise/PostgreSQL | keywise/db_bench | server CPU us/op keywise | server CPU us/op PostgreSQL |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for w in write read scan; do
    case $w in
      write) label="single-row write (fillrandom / INSERT ON CONFLICT)" ;;
      read) label="point read by primary key (readrandom / SELECT)" ;;
      scan) label="100-row range (seekrandom+100 nexts / SELECT LIMIT 100)" ;;
    esac
    awk -v l="$label" -v k="$(get keywise $w ops)" -v kp="$(get keywise $w p99_ms)" \
      -v p="$(get postgres $w ops)" -v pp="$(get postgres $w p99_ms)" \
      -v d="$(get db_bench $w ops)" -v dp="$(get db_bench $w p99_ms)" \
      -v kc="$(get keywise $w cpu_us)" -v pc="$(get postgres $w cpu_us)" \
      'function r(a, b) {return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "n/a"}
       BEGIN {printf "| %s | %.0f | %.3f | %.0f | %.3f | %.0f | %.4f | %s | %s | %s | %s |\n",
         l, k, kp, p, pp, d, dp, r(k, p), r(k, d), kc, pc}'
  done
  echo
  echo "keywise at half its peak rate (fixed-rate mode, latency from each operation's intended start):" \
    "write $(get keywise write_half ops) ops/s, p99 $(get keywise write_half p99_ms) ms;" \
    "read $(get keywise read_half ops) ops/s, p99 $(get keywise read_half p99_ms) ms." \
    "100-row scan in DESC order: $(get keywise scan_desc ops) ops/s, p99 $(get keywise scan_desc p99_ms) ms" \
    "($(get keywise scan_desc cpu_us) us server CPU per op)."
  echo
  echo "Server memory: keywise VmRSS $(get keywise all rss_mb) MB after the runs (peak VmHWM $(get keywise all hwm_mb) MB);" \
    "PostgreSQL peak over its runs, postmaster + backends: sum of VmRSS $(get postgres all rss_mb) MB" \
    "(counts shared_buffers once per process), sum of Pss $(get postgres all pss_mb) MB."
  echo "keywise bench client CPU per op (us): write $(get keywise write client_cpu_us), read $(get keywise read client_cpu_us), scan $(get keywise scan client_cpu_us)."
}

main() {
  [[ $ROWS -gt 0 && $DURATION -gt 0 && $CONCURRENCY -gt 0 ]] || die "usage: $0 [ROWS] [DURATION_S] [CONCURRENCY]"
  [[ $(id -u) == 0 ]] || die "run as root (PostgreSQL is installed with apt-get and run as user postgres)"
  : >"$WORK/results"
  log "rows $ROWS, ${DURATION} s per run, concurrency $CONCURRENCY, work dir $WORK"
  run_db_bench
  run_postgres
  run_keywise
  print_table | tee "$WORK/table.md"
  write_docs "$WORK/table.md"
}

# Replaces the text between the markers in docs/performance.md with the
# table of this run.
write_docs() {
  local doc=$ROOT/docs/performance.md
  grep -q '^<!-- side_by_side:begin -->$' "$doc" && grep -q '^<!-- side_by_side:end -->$' "$doc" ||
    { log "no side_by_side markers in $doc: not updated"; return 0; }
  awk -v table="$1" '
    /^<!-- side_by_side:begin -->$/ {print; while ((getline line < table) > 0) print line; skip = 1; next}
    /^<!-- side_by_side:end -->$/ {skip = 0}
    !skip {print}' "$doc" >"$WORK/performance.md"
  cp "$WORK/performance.md" "$doc"
  log "wrote the table to docs/performance.md (see git diff)"
}
main
