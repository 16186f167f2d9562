#!/usr/bin/env bash
# Builds a Release `keywise` binary in build-release/ and runs a node on
# 127.0.0.1:9042 with its data in ./data. Quick when nothing changed.
# Extra arguments are passed to `keywise server` (e.g. --config FILE).
# Warnings are not errors here: at -O3 GCC 12 reports false positives
# (-Wrestrict in std::string code) that must not stop a user from running a
# node; scripts/test.sh builds with -Werror.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh

jobs=${KEYWISE_JOBS:-$(nproc)}
cmake -S . -B build-release -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DKEYWISE_WERROR=OFF \
  -DKEYWISE_TESTS=OFF -DKEYWISE_BENCH=OFF >/dev/null
cmake --build build-release --target keywise -j "$jobs"

exec build-release/keywise server --data-dir ./data --port 9042 \
  --listen-address 127.0.0.1 "$@"
