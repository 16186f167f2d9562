#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ (clang, -DKEYWISE_FUZZ=ON)
# and runs them (docs/reliability.md, "Fuzzing").
#
#   fuzz/run.sh TARGET RUNS     run fuzz_TARGET for RUNS inputs
#   fuzz/run.sh TARGET -t SECS  run fuzz_TARGET for SECS seconds
#   fuzz/run.sh --ci SECS       every target for SECS seconds each, two at
#                               a time (what scripts/test.sh runs)
#   fuzz/run.sh --build         build every target, run none
#   fuzz/run.sh --list          the target names
#
# A run starts from the target's committed seeds (fuzz/corpus/TARGET) and
# the inputs earlier runs found (build-fuzz/corpus/TARGET, where new ones
# go). A crash, leak, UBSan report, timeout (10 s per input), a single
# allocation over 64 MB (no input of a few KB needs one) or out-of-memory
# stops the run and exits non-zero, leaving the input in
# build-fuzz/artifacts/ (reproduce: build-fuzz/fuzz/fuzz_TARGET FILE).
# The last lines of each run give the inputs executed (#N DONE) and the
# seconds taken; KEYWISE_FUZZ_BUILD_DIR names another build directory than
# build-fuzz. The whole output is in build-fuzz/logs/TARGET.PID.log.
# KEYWISE_JOBS sets build parallelism (default 2); builds
# and runs are niced.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

targets=(cql_parser value_codec paging_state tablet_route native_frame
         messaging)
build_dir=${KEYWISE_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${KEYWISE_JOBS:-2}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

build() {
  if [[ ! -f $build_dir/build.ninja ]]; then
    CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEYWISE_FUZZ=ON \
      -DKEYWISE_TESTS=OFF -DKEYWISE_BENCH=OFF -DCMAKE_UNITY_BUILD=ON \
      >/dev/null || return 1
  fi
  nice -n 10 cmake --build "$build_dir" -j "$jobs" --target fuzzers
}

# run_target NAME LIBFUZZER-LIMIT...: one run, summary on stderr.
run_target() {
  local name=$1
  shift
  local corpus=$build_dir/corpus/$name
  local log=$build_dir/logs/$name.$$.log
  mkdir -p "$corpus" "$build_dir/artifacts" "$build_dir/logs"
  local start=$SECONDS
  echo "=== fuzz/run.sh: $name $*" >&2
  nice -n 10 "$build_dir/fuzz/fuzz_$name" "$@" -timeout=10 \
    -malloc_limit_mb=64 \
    -print_final_stats=1 -artifact_prefix="$build_dir/artifacts/$name-" \
    "$corpus" "fuzz/corpus/$name" 2>"$log"
  local rc=$?
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units' \
    "$log" >&2
  echo "fuzz/run.sh: $name exit $rc after $((SECONDS - start)) s" >&2
  if [[ $rc -ne 0 ]]; then
    grep -E -A30 'ERROR: |runtime error|SUMMARY' "$log" \
      | head -60 >&2
  fi
  return $rc
}

known() {
  local t
  for t in "${targets[@]}"; do [[ $t == "$1" ]] && return 0; done
  return 1
}

case "${1:-}" in
  --list)
    printf '%s\n' "${targets[@]}"
    ;;
  --build)
    build
    ;;
  --ci)
    [[ $# -eq 2 ]] || usage
    build || exit 1
    # Two lanes of targets at once (CI machines have two cores).
    lane() {
      local i rc=0
      for ((i = $1; i < ${#targets[@]}; i += 2)); do
        run_target "${targets[i]}" -max_total_time="$2" || rc=1
      done
      return $rc
    }
    lane 0 "$2" &
    first=$!
    lane 1 "$2"
    second=$?
    wait $first
    [[ $? -eq 0 && $second -eq 0 ]]
    exit $?
    ;;
  *)
    [[ $# -ge 2 ]] && known "$1" || usage
    name=$1
    build || exit 1
    if [[ $2 == -t ]]; then
      [[ $# -eq 3 ]] || usage
      run_target "$name" -max_total_time="$3"
    else
      [[ $# -eq 2 ]] || usage
      run_target "$name" -runs="$2"
    fi
    ;;
esac
