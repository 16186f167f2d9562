#include "net/certificates.h"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

namespace keywise::net {
namespace {

// Owners of OpenSSL objects: each frees with its own function.
template <auto kFree>
struct CertFree {
  template <typename T>
  void operator()(T* p) const {
    kFree(p);
  }
};
using CertKeyPtr = std::unique_ptr<EVP_PKEY, CertFree<&EVP_PKEY_free>>;
using CertX509Ptr = std::unique_ptr<X509, CertFree<&X509_free>>;
using CertBioPtr = std::unique_ptr<BIO, CertFree<&BIO_free_all>>;
using CertBnPtr = std::unique_ptr<BIGNUM, CertFree<&BN_free>>;
using CertNamesPtr =
    std::unique_ptr<GENERAL_NAMES, CertFree<&GENERAL_NAMES_free>>;

constexpr int kSerialBits = 159;  // positive, at most 20 bytes (RFC 5280)
constexpr long kBackdateSeconds = 3600;

// ServerError "Cannot make a certificate: <what>: <OpenSSL's reason>",
// clearing OpenSSL's error queue.
Status CertificateError(const std::string& what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  std::string reason = "unknown error";
  if (code != 0) {
    const char* text = ERR_reason_error_string(code);
    char buffer[256];
    if (text == nullptr) {
      ERR_error_string_n(code, buffer, sizeof(buffer));
      text = buffer;
    }
    reason = text;
  }
  return Status::ServerError("Cannot make a certificate: " + what + ": " +
                             reason);
}

Result<std::string> KeyToPem(EVP_PKEY* key) {
  CertBioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                               nullptr) != 1) {
    return CertificateError("writing the private key");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Result<std::string> CertToPem(X509* cert) {
  CertBioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return CertificateError("writing the certificate");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

// Adds the extension `nid` written as OpenSSL's configuration text
// ("critical,CA:TRUE"), with `issuer` for the authority key identifier.
Status AddTextExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr || X509_add_ext(cert, ext, -1) != 1) {
    X509_EXTENSION_free(ext);
    return CertificateError(std::string("extension ") + OBJ_nid2sn(nid) +
                            " = " + value);
  }
  X509_EXTENSION_free(ext);
  return Status::OK();
}

Status AddSubjectAltNames(X509* cert, const CertificateSubject& subject) {
  if (subject.ip_addresses.empty() && subject.dns_names.empty()) {
    return Status::OK();
  }
  CertNamesPtr names(sk_GENERAL_NAME_new_null());
  auto push = [&](int type, ASN1_STRING* value) {
    GENERAL_NAME* name = GENERAL_NAME_new();
    if (name == nullptr) {
      ASN1_STRING_free(value);
      return false;
    }
    GENERAL_NAME_set0_value(name, type, value);
    if (sk_GENERAL_NAME_push(names.get(), name) == 0) {
      GENERAL_NAME_free(name);
      return false;
    }
    return true;
  };
  for (const std::string& ip : subject.ip_addresses) {
    ASN1_OCTET_STRING* octets = a2i_IPADDRESS(ip.c_str());
    if (octets == nullptr) {
      ERR_clear_error();
      return Status::Invalid("Cannot make a certificate: '" + ip +
                             "' is not an IP address");
    }
    if (!push(GEN_IPADD, octets)) return CertificateError("subjectAltName");
  }
  for (const std::string& dns : subject.dns_names) {
    ASN1_IA5STRING* text = ASN1_IA5STRING_new();
    if (text == nullptr ||
        ASN1_STRING_set(text, dns.data(), static_cast<int>(dns.size())) != 1 ||
        !push(GEN_DNS, text)) {
      return CertificateError("subjectAltName DNS:" + dns);
    }
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0,
                        X509V3_ADD_DEFAULT) != 1) {
    return CertificateError("subjectAltName");
  }
  return Status::OK();
}

// A certificate for `key` named `common_name`: version 3, a random serial,
// valid from an hour ago for `validity`; no extensions, not signed.
Result<CertX509Ptr> NewCertificate(EVP_PKEY* key,
                                   const std::string& common_name,
                                   std::chrono::days validity) {
  if (common_name.empty()) {
    return Status::Invalid("Cannot make a certificate without a common name");
  }
  CertX509Ptr cert(X509_new());
  CertBnPtr serial(BN_new());
  if (cert == nullptr || serial == nullptr ||
      X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      BN_rand(serial.get(), kSerialBits, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) !=
          1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) ==
          nullptr) {
    return CertificateError("serial number");
  }
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) ==
          nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert.get()),
                       static_cast<int>(validity.count()), 0,
                       nullptr) == nullptr) {
    return CertificateError("validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(
          name, "CN", MBSTRING_UTF8,
          reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
          0) != 1) {
    return CertificateError("common name '" + common_name + "'");
  }
  if (X509_set_pubkey(cert.get(), key) != 1) {
    return CertificateError("public key");
  }
  return cert;
}

Result<CertKeyPtr> NewKey() {
  CertKeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) return CertificateError("EC P-256 key");
  return key;
}

// The CA's certificate and key, checked to belong together and to be a CA.
Status ParseAuthority(const CertifiedKey& ca, CertX509Ptr* cert,
                      CertKeyPtr* key) {
  CertBioPtr bio(BIO_new_mem_buf(ca.cert_pem.data(),
                                 static_cast<int>(ca.cert_pem.size())));
  cert->reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  bio.reset(
      BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size())));
  key->reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  auto bad = [](const std::string& what) {
    Status st = CertificateError(what);
    return Status::ConfigError(st.message());
  };
  if (*cert == nullptr) return bad("the CA's certificate does not parse");
  if (*key == nullptr) return bad("the CA's private key does not parse");
  if (X509_check_private_key(cert->get(), key->get()) != 1) {
    return bad("the CA's private key does not match its certificate");
  }
  if (X509_check_ca(cert->get()) < 1) {
    ERR_clear_error();
    return Status::ConfigError(
        "Cannot make a certificate: the CA's certificate is not a CA's");
  }
  return Status::OK();
}

}  // namespace

Result<CertifiedKey> MakeCertificateAuthority(const std::string& common_name,
                                              std::chrono::days validity) {
  ERR_clear_error();
  KW_ASSIGN_OR_RETURN(CertKeyPtr key, NewKey());
  KW_ASSIGN_OR_RETURN(CertX509Ptr cert,
                      NewCertificate(key.get(), common_name, validity));
  X509* c = cert.get();
  if (X509_set_issuer_name(c, X509_get_subject_name(c)) != 1) {
    return CertificateError("issuer name");
  }
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, c, NID_basic_constraints, "critical,CA:TRUE"));
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, c, NID_key_usage, "critical,keyCertSign,cRLSign"));
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, c, NID_subject_key_identifier, "hash"));
  if (X509_sign(c, key.get(), EVP_sha256()) <= 0) {
    return CertificateError("signing the CA's certificate");
  }
  CertifiedKey out;
  KW_ASSIGN_OR_RETURN(out.key_pem, KeyToPem(key.get()));
  KW_ASSIGN_OR_RETURN(out.cert_pem, CertToPem(c));
  return out;
}

Result<CertifiedKey> IssueCertificate(const CertifiedKey& ca,
                                      const CertificateSubject& subject,
                                      std::chrono::days validity) {
  ERR_clear_error();
  CertX509Ptr ca_cert;
  CertKeyPtr ca_key;
  KW_RETURN_IF_ERROR(ParseAuthority(ca, &ca_cert, &ca_key));
  KW_ASSIGN_OR_RETURN(CertKeyPtr key, NewKey());
  KW_ASSIGN_OR_RETURN(CertX509Ptr cert,
                      NewCertificate(key.get(), subject.common_name, validity));
  X509* c = cert.get();
  if (X509_set_issuer_name(c, X509_get_subject_name(ca_cert.get())) != 1) {
    return CertificateError("issuer name");
  }
  // Not valid past the CA: a chain is only as good as its shortest link.
  if (ASN1_TIME_compare(X509_get0_notAfter(c),
                        X509_get0_notAfter(ca_cert.get())) > 0 &&
      X509_set1_notAfter(c, X509_get0_notAfter(ca_cert.get())) != 1) {
    return CertificateError("validity");
  }
  X509* issuer = ca_cert.get();
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, issuer, NID_basic_constraints, "CA:FALSE"));
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, issuer, NID_key_usage, "critical,digitalSignature"));
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, issuer, NID_ext_key_usage, "serverAuth,clientAuth"));
  KW_RETURN_IF_ERROR(
      AddTextExtension(c, issuer, NID_subject_key_identifier, "hash"));
  KW_RETURN_IF_ERROR(AddTextExtension(c, issuer, NID_authority_key_identifier,
                                      "keyid:always"));
  KW_RETURN_IF_ERROR(AddSubjectAltNames(c, subject));
  if (X509_sign(c, ca_key.get(), EVP_sha256()) <= 0) {
    return CertificateError("signing the certificate of '" +
                            subject.common_name + "'");
  }
  CertifiedKey out;
  KW_ASSIGN_OR_RETURN(out.key_pem, KeyToPem(key.get()));
  KW_ASSIGN_OR_RETURN(out.cert_pem, CertToPem(c));
  return out;
}

Status WritePemFile(const std::string& path, const std::string& pem,
                    PemFileAccess access) {
  const mode_t mode = access == PemFileAccess::kPrivate ? 0600 : 0644;
  // Written beside, then renamed over: a node checking its files (a
  // reload) sees the old file or the new one, never half of one.
  const std::string temp = path + ".tmp";
  const int fd =
      open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  auto failed = [&](const char* what) {
    return Status::ServerError("Cannot write " + path + ": " + what + ": " +
                               std::strerror(errno));
  };
  if (fd < 0) return failed("open");
  // Before any byte is written: the file may have existed with another mode.
  if (fchmod(fd, mode) != 0) {
    Status st = failed("chmod");
    close(fd);
    return st;
  }
  size_t done = 0;
  while (done < pem.size()) {
    const ssize_t n = write(fd, pem.data() + done, pem.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = failed("write");
      close(fd);
      return st;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return failed("close");
  if (rename(temp.c_str(), path.c_str()) != 0) return failed("rename");
  return Status::OK();
}

Result<std::string> ReadPemFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::ConfigError(path + " cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace keywise::net
