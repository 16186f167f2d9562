#!/usr/bin/env bash
# Builds and runs every test Keywise has:
#   1. build/      RelWithDebInfo, warnings as errors: all CTest tests.
#   2. build-asan/ AddressSanitizer + UBSan, unity build: the unit tests.
#   3. build-fuzz/ clang libFuzzer targets (fuzz/): each run for
#      KEYWISE_FUZZ_SECONDS seconds (default 20) from its seeds; any crash,
#      leak or UBSan report fails. KEYWISE_FUZZ_SECONDS=0 skips the step.
# Exits non-zero if any step fails; the last line is a one-line summary.
# Quick when nothing changed (ninja + ccache). KEYWISE_JOBS sets parallelism.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh || { echo "test.sh: FAIL (setup.sh failed)"; exit 1; }

jobs=${KEYWISE_JOBS:-$(nproc)}
results=()
failed=0

# step NAME COMMAND...: runs the command, records pass/fail under NAME.
step() {
  local name=$1
  shift
  echo "=== test.sh: $name" >&2
  if "$@"; then
    results+=("$name ok")
  else
    results+=("$name FAILED")
    failed=1
  fi
}

build_main() {
  cmake -S . -B build -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEYWISE_WERROR=ON \
    -DCMAKE_UNITY_BUILD=ON >/dev/null &&
    cmake --build build -j "$jobs"
}

build_asan() {
  cmake -S . -B build-asan -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKEYWISE_SANITIZE=ON \
    -DKEYWISE_BENCH=OFF -DCMAKE_UNITY_BUILD=ON >/dev/null &&
    cmake --build build-asan -j "$jobs"
}

step build build_main
if [[ $failed -eq 0 ]]; then
  step tests ctest --test-dir build --output-on-failure -j 2
fi

step asan-build build_asan
if [[ "${results[-1]}" == "asan-build ok" ]]; then
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  step asan-unit-tests ctest --test-dir build-asan --output-on-failure -j 2 \
    -L unit
fi

fuzz_seconds=${KEYWISE_FUZZ_SECONDS:-20}
if [[ $fuzz_seconds -gt 0 ]]; then
  step fuzz env KEYWISE_JOBS="$jobs" bash fuzz/run.sh --ci "$fuzz_seconds"
fi

summary=$(IFS=,; echo "${results[*]}")
if [[ $failed -eq 0 ]]; then
  echo "test.sh: PASS (${summary//,/, })"
else
  echo "test.sh: FAIL (${summary//,/, })"
fi
exit $failed
