// Certificates made with OpenSSL's API (no openssl binary): a self-signed
// CA and the certificates it issues, for a cluster that brings its own
// (`keywise cluster start --ssl`, docs/security.md 5.5).
//
// Every key is EC P-256 and every signature ECDSA with SHA-256. The CA has
// basicConstraints CA:TRUE and keyUsage keyCertSign, cRLSign, both
// critical. An issued certificate has basicConstraints CA:FALSE, keyUsage
// digitalSignature, extendedKeyUsage serverAuth and clientAuth (a node is
// the TLS server of its ports and the TLS client of other nodes and of
// etcd), its subjectAltNames, subject and authority key identifiers, and a
// random 159-bit serial. Validity starts an hour ago (clocks of a
// machine's processes agree; others may lag a little) and lasts `validity`
// days, capped at the CA's own end.
//
// Keys and certificates travel as PEM text, so this header includes no
// OpenSSL: a private key as unencrypted PKCS#8 ("BEGIN PRIVATE KEY"), a
// certificate as "BEGIN CERTIFICATE".
//
// Contract: plain functions, thread-safe. Errors are Status values carrying
// OpenSSL's reason; nothing throws.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"

namespace keywise::net {

// A private key and the certificate of its public key.
struct CertifiedKey {
  std::string key_pem;
  std::string cert_pem;
};

// What an issued certificate names.
struct CertificateSubject {
  std::string common_name;
  // subjectAltName entries: IPv4 or IPv6 addresses as text, DNS names.
  std::vector<std::string> ip_addresses;
  std::vector<std::string> dns_names;
};

// Ten years: a local cluster's certificates never expire under a test.
inline constexpr std::chrono::days kDefaultCertificateValidity{3650};

// A new self-signed CA named `common_name`. REQUIRES: validity > 0.
Result<CertifiedKey> MakeCertificateAuthority(
    const std::string& common_name,
    std::chrono::days validity = kDefaultCertificateValidity);

// A new key and its certificate for `subject`, signed by `ca`. Returns
// Invalid for a malformed IP address, ConfigError when `ca` does not parse
// or its key does not match its certificate.
Result<CertifiedKey> IssueCertificate(
    const CertifiedKey& ca, const CertificateSubject& subject,
    std::chrono::days validity = kDefaultCertificateValidity);

// Who may read a written file: kPrivate (mode 0600) for anything holding a
// private key, kPublic (0644) for certificates.
enum class PemFileAccess { kPublic, kPrivate };

// Writes `pem` to `path`, replacing it at once (written to `path`.tmp,
// then renamed), with the mode of `access`. ServerError naming the file on failure.
Status WritePemFile(const std::string& path, const std::string& pem,
                    PemFileAccess access);

// The text of `path`. ConfigError naming the file when it cannot be read.
Result<std::string> ReadPemFile(const std::string& path);

}  // namespace keywise::net
