#!/usr/bin/env bash
# Installs the Debian 12 packages Keywise needs to build, test and run.
#
# Idempotent: checks each package with dpkg-query first; when everything is
# present it makes no network access and returns at once. Runs apt-get as
# root, or through sudo when not root.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ ccache pkg-config
  # libraries
  librocksdb-dev libyaml-cpp-dev libcli11-dev libfmt-dev libssl-dev libcrypt-dev
  liblz4-dev libsnappy-dev libboost-dev libboost-context-dev libxxhash-dev libedit-dev
  nlohmann-json3-dev libjemalloc-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev rocksdb-tools
  python3-cassandra python3-pytest python3-pytest-timeout python3-lz4
  python3-snappy python3-prometheus-client
  # the TLS tests' certificates (tests/make_test_certs.sh)
  openssl
  # the web console's browser test (tests/python/test_console.py): headless
  # Chromium driven over the DevTools protocol
  chromium python3-websocket
  # the Go driver tests (tests/go: gocql from Debian, built in GOPATH mode)
  golang-go golang-github-gocql-gocql-dev
  # etcd for the cluster tests (they start their own on free loopback ports;
  # the package's own service, if the system starts it, is not used)
  etcd-server
  # fuzzing (fuzz/, scripts/test.sh's fuzz step): clang 14 with libFuzzer
  # and the sanitizer runtimes; llvm-symbolizer (llvm) for readable reports
  clang libclang-rt-14-dev llvm
  # the cluster fault test cuts nodes off each other and from etcd with
  # firewall rules on loopback (it skips those faults without root)
  nftables
)
# Node.js (for the JavaScript-driver tests) only when no node is installed:
# a node from elsewhere (nvm, NodeSource) must not be replaced.
if ! command -v node >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$package")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "setup.sh: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
