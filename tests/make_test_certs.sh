#!/bin/bash
# Makes the TLS files of the driver tests (tests/python/test_tls.py,
# tests/go/tls_test.go, tests/node/tls.test.js) in DIR, with the openssl
# command (Debian's openssl, scripts/setup.sh); EC P-256 keys, valid two
# days:
#   ca.pem                    the test CA's certificate (truststore, clients' CA)
#   node.pem                  the node's key and certificate (keystore;
#                             SAN IP:127.0.0.1, DNS:localhost), signed by the CA
#   node-key.pem node-cert.pem   the same, apart
#   client-key.pem client-cert.pem   a client certificate signed by the CA
#   other-ca.pem              a CA that signed nothing here
# Usage: make_test_certs.sh DIR
set -euo pipefail
dir=${1:?usage: make_test_certs.sh DIR}
mkdir -p "$dir"
cd "$dir"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

ca() {  # NAME FILE-PREFIX
  key "$2-key.pem"
  openssl req -x509 -new -key "$2-key.pem" -subj "/CN=$1" -days 2 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$2.pem"
}

leaf() {  # NAME SUBJECT-ALT-NAMES
  key "$1-key.pem"
  openssl req -new -key "$1-key.pem" -subj "/CN=$1" -out "$1.csr"
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=%s\n' "$2" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca-key.pem \
    -CAcreateserial -days 2 -sha256 -extfile "$1.ext" -out "$1-cert.pem" \
    2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca "Keywise Test CA" ca
ca "Another CA" other-ca
leaf node "IP:127.0.0.1,DNS:localhost"
leaf client "DNS:client"
cat node-key.pem node-cert.pem > node.pem
rm -f ca.srl
