#include "net/tls_test_util.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <fstream>
#include <stdexcept>

namespace keywise::net::testing {
namespace {

std::string ToPem(const EVP_PKEY* key, const std::string& password) {
  BIO* bio = BIO_new(BIO_s_mem());
  const EVP_CIPHER* cipher = password.empty() ? nullptr : EVP_aes_128_cbc();
  PEM_write_bio_PrivateKey(
      bio, key, cipher,
      reinterpret_cast<unsigned char*>(const_cast<char*>(password.data())),
      static_cast<int>(password.size()), nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  return pem;
}

std::string ToPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(n));
  BIO_free(bio);
  return pem;
}

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) throw std::runtime_error("bad test extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

TestCert MakeTestCert(const std::string& common_name, CertKind kind,
                      const TestCert* issuer,
                      const std::string& key_password) {
  static std::atomic<long> serial{1};
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);

  X509* issuer_cert = cert;
  EVP_PKEY* signing_key = key;
  if (issuer != nullptr) {
    BIO* bio = BIO_new_mem_buf(issuer->cert_pem.data(),
                               static_cast<int>(issuer->cert_pem.size()));
    issuer_cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    bio = BIO_new_mem_buf(issuer->key_pem.data(),
                          static_cast<int>(issuer->key_pem.size()));
    signing_key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
  }
  X509_set_issuer_name(cert, X509_get_subject_name(issuer_cert));
  if (kind == CertKind::kCa) {
    AddExtension(cert, issuer_cert, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(cert, issuer_cert, NID_key_usage,
                 "critical,keyCertSign,cRLSign");
  } else {
    AddExtension(cert, issuer_cert, NID_basic_constraints, "CA:FALSE");
    AddExtension(cert, issuer_cert, NID_subject_alt_name,
                 "IP:127.0.0.1,DNS:localhost");
  }
  X509_sign(cert, signing_key, EVP_sha256());

  TestCert out{ToPem(key, key_password), ToPem(cert)};
  if (issuer != nullptr) {
    X509_free(issuer_cert);
    EVP_PKEY_free(signing_key);
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  return out;
}

void WriteTestFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace keywise::net::testing
