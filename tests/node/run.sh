#!/usr/bin/env bash
# Installs the npm packages (cassandra-driver) if needed and runs the tests.
set -euo pipefail
if [[ -n "${KEYWISE_BIN:-}" ]]; then
  KEYWISE_BIN=$(realpath "$KEYWISE_BIN")
  export KEYWISE_BIN
fi
cd "$(dirname "$0")"
if [[ ! -d node_modules/cassandra-driver ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
exec node --test .
