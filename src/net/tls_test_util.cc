#include "net/tls_test_util.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <fstream>
#include <stdexcept>

#include "net/certificates.h"

namespace keywise::net::testing {
namespace {

// `key_pem` encrypted with `password` (AES-128-CBC).
std::string EncryptKey(const std::string& key_pem,
                       const std::string& password) {
  BIO* in = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(in, nullptr, nullptr, nullptr);
  BIO_free(in);
  if (key == nullptr) throw std::runtime_error("bad test key");
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(
      out, key, EVP_aes_128_cbc(),
      reinterpret_cast<unsigned char*>(const_cast<char*>(password.data())),
      static_cast<int>(password.size()), nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(out);
  EVP_PKEY_free(key);
  return pem;
}

}  // namespace

TestCert MakeTestCert(const std::string& common_name, CertKind kind,
                      const TestCert* issuer,
                      const std::string& key_password) {
  Result<CertifiedKey> made = Status::Invalid("a leaf needs an issuer");
  if (kind == CertKind::kCa) {
    made = MakeCertificateAuthority(common_name, std::chrono::days(2));
  } else if (issuer != nullptr) {
    CertificateSubject subject;
    subject.common_name = common_name;
    subject.ip_addresses = {"127.0.0.1"};
    subject.dns_names = {"localhost"};
    made = IssueCertificate({issuer->key_pem, issuer->cert_pem}, subject,
                            std::chrono::days(1));
  }
  if (!made.ok()) throw std::runtime_error(made.status().ToString());
  TestCert out{std::move(made->key_pem), std::move(made->cert_pem)};
  if (!key_password.empty()) out.key_pem = EncryptKey(out.key_pem, key_password);
  return out;
}

void WriteTestFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace keywise::net::testing
