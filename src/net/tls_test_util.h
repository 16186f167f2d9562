// Test certificates (net/certificates.h): a CA, or a leaf signed by a test
// CA with SAN IP:127.0.0.1 and DNS:localhost, its key optionally
// encrypted.
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

// A certificate for `common_name`: kCa is self-signed (issuer ignored);
// kLeaf is signed by `issuer` (REQUIRES: not null). `key_password`:
// encrypts key_pem (AES-128-CBC) when not empty. Throws on failure.
TestCert MakeTestCert(const std::string& common_name, CertKind kind,
                      const TestCert* issuer,
                      const std::string& key_password = "");

// Writes `text` to `path` (replacing it).
void WriteTestFile(const std::string& path, const std::string& text);

}  // namespace keywise::net::testing
