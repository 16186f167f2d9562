#include "cluster_tool/local_cluster_tls.h"

#include <filesystem>
#include <sstream>

#include "net/certificates.h"

namespace keywise::cluster_tool {
namespace {

using net::PemFileAccess;

// The certificate in `cert_file` (0644) and its key in `key_file` (0600).
Status WriteCertifiedKey(const net::CertifiedKey& pair,
                         const std::string& cert_file,
                         const std::string& key_file) {
  KW_RETURN_IF_ERROR(
      net::WritePemFile(cert_file, pair.cert_pem, PemFileAccess::kPublic));
  return net::WritePemFile(key_file, pair.key_pem, PemFileAccess::kPrivate);
}

// `path` as a single-quoted YAML scalar.
std::string QuotedPath(const std::string& path) {
  std::string out = "'";
  for (char c : path) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

net::CertificateSubject LoopbackSubject(const std::string& common_name,
                                        const std::string& address) {
  return {common_name, {address}, {"localhost"}};
}

}  // namespace

std::string LocalClusterTls::node_keystore(int i) const {
  return dir_ + "/node" + std::to_string(i) + ".pem";
}

std::string LocalClusterTls::node_cert(int i) const {
  return dir_ + "/node" + std::to_string(i) + "-cert.pem";
}

std::string LocalClusterTls::node_key(int i) const {
  return dir_ + "/node" + std::to_string(i) + "-key.pem";
}

Status LocalClusterTls::MakeAuthority(const std::string& cluster_name) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return Status::ServerError("Cannot create " + dir_ + ": " + ec.message());
  }
  if (std::filesystem::exists(ca_key())) {
    return Status::AlreadyExists(ca_key() + " exists: the cluster has a CA");
  }
  KW_ASSIGN_OR_RETURN(net::CertifiedKey authority,
                      net::MakeCertificateAuthority("Keywise local cluster " +
                                                    cluster_name + " CA"));
  // The key first: a CA certificate without its key could sign nothing.
  KW_RETURN_IF_ERROR(
      net::WritePemFile(ca_key(), authority.key_pem, PemFileAccess::kPrivate));
  KW_RETURN_IF_ERROR(
      net::WritePemFile(ca(), authority.cert_pem, PemFileAccess::kPublic));
  KW_ASSIGN_OR_RETURN(
      net::CertifiedKey etcd,
      net::IssueCertificate(authority, LoopbackSubject("etcd", "127.0.0.1")));
  KW_RETURN_IF_ERROR(WriteCertifiedKey(etcd, etcd_cert(), etcd_key()));
  KW_ASSIGN_OR_RETURN(
      net::CertifiedKey client,
      net::IssueCertificate(authority, LoopbackSubject("client", "127.0.0.1")));
  return WriteCertifiedKey(client, client_cert(), client_key());
}

Status LocalClusterTls::IssueNode(int i) const {
  net::CertifiedKey authority;
  KW_ASSIGN_OR_RETURN(authority.cert_pem, net::ReadPemFile(ca()));
  KW_ASSIGN_OR_RETURN(authority.key_pem, net::ReadPemFile(ca_key()));
  const std::string address = "127.0.0." + std::to_string(i);
  KW_ASSIGN_OR_RETURN(
      net::CertifiedKey node,
      net::IssueCertificate(
          authority, LoopbackSubject("node" + std::to_string(i), address)));
  // The keystore: the private key and the certificate chain (the node's
  // certificate; the CA, its issuer, is in every truststore).
  KW_RETURN_IF_ERROR(net::WritePemFile(
      node_keystore(i), node.key_pem + node.cert_pem, PemFileAccess::kPrivate));
  return WriteCertifiedKey(node, node_cert(i), node_key(i));
}

std::string LocalClusterTls::NodeYaml(int i,
                                      const std::string& etcd_endpoint) const {
  const std::string keystore = QuotedPath(node_keystore(i));
  const std::string truststore = QuotedPath(ca());
  std::ostringstream y;
  y << "# TLS (keywise cluster start --ssl): the files are in " << dir_ << "\n"
    << "client_encryption_options:\n"
    << "    enabled: true\n"
    << "    optional: false\n"
    << "    keystore: " << keystore << "\n"
    << "    truststore: " << truststore << "\n"
    << "server_encryption_options:\n"
    << "    internode_encryption: all\n"
    << "    optional: false\n"
    << "    keystore: " << keystore << "\n"
    << "    truststore: " << truststore << "\n"
    << "    require_client_auth: true\n"
    << "etcd_endpoints:\n    - " << etcd_endpoint << "\n"
    << "etcd_client_encryption_options:\n"
    << "    cacert: " << truststore << "\n"
    << "    cert: " << QuotedPath(node_cert(i)) << "\n"
    << "    key: " << QuotedPath(node_key(i)) << "\n";
  return y.str();
}

std::vector<std::string> LocalClusterTls::EtcdFlags() const {
  return {"--cert-file",       etcd_cert(), "--key-file",        etcd_key(),
          "--trusted-ca-file", ca(),        "--client-cert-auth"};
}

}  // namespace keywise::cluster_tool
