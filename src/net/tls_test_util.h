// Test certificates made with OpenSSL's API (no openssl binary): an EC
// P-256 key and an X.509 certificate, self-signed (a CA) or signed by
// another test certificate, with SAN IP:127.0.0.1 and DNS:localhost.
//
// Contract: test-only; thread-safe.
#pragma once

#include <string>

namespace keywise::net::testing {

struct TestCert {
  std::string key_pem;   // the private key, PEM
  std::string cert_pem;  // the certificate, PEM
};

enum class CertKind { kCa, kLeaf };

// A certificate for `common_name`, signed by `issuer` (self-signed when
// null). `key_password`: encrypts key_pem (AES-128-CBC) when not empty.
TestCert MakeTestCert(const std::string& common_name, CertKind kind,
                      const TestCert* issuer,
                      const std::string& key_password = "");

// Writes `text` to `path` (replacing it).
void WriteTestFile(const std::string& path, const std::string& text);

}  // namespace keywise::net::testing
