#!/usr/bin/env bash
# Runs the gocql tests (Debian's golang-go and golang-github-gocql-gocql-dev,
# scripts/setup.sh) in GOPATH mode: no module proxy, gocql and its
# dependencies come from /usr/share/gocode. The build cache lives in a
# temporary directory unless $GOCACHE is set.
set -euo pipefail
if [[ -n "${KEYWISE_BIN:-}" ]]; then
  KEYWISE_BIN=$(realpath "$KEYWISE_BIN")
else
  KEYWISE_BIN=$(realpath "$(dirname "$0")/../../build/keywise")
fi
export KEYWISE_BIN
export GO111MODULE=off GOFLAGS= GOPROXY=off GOENV=off GOPATH=/usr/share/gocode
cleanup=""
if [[ -z "${GOCACHE:-}" ]]; then
  GOCACHE=$(mktemp -d -t keywise-gocache-XXXXXX)
  cleanup=$GOCACHE
fi
export GOCACHE
trap '[[ -z "$cleanup" ]] || rm -rf "$cleanup"' EXIT
cd "$(dirname "$0")"
go test -count=1 -v -timeout 300s "$@" .
