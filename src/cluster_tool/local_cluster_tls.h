// LocalClusterTls: the certificates of a local cluster started with
// `keywise cluster start --ssl` (docs/security.md 5.5), all in D/tls/:
//
//   ca.pem, ca-key.pem              the cluster's own CA (EC P-256, 10 years)
//   nodeI.pem                       node I's key and certificate: its
//                                   keystore (SAN IP:127.0.0.I, DNS:localhost)
//   nodeI-cert.pem, nodeI-key.pem   the same apart, for etcd's client options
//   etcd-cert.pem, etcd-key.pem     etcd's (SAN IP:127.0.0.1, DNS:localhost)
//   client-cert.pem, client-key.pem for tools and drivers (CN client)
//
// Files holding a private key are mode 0600, the others 0644. Every
// certificate serves as both TLS server and client (net/certificates.h).
// What the nodes' keywise.yaml and etcd's flags say about them comes from
// here too, so the paths are written once.
//
// Contract: not thread-safe; one command at a time on a directory, as
// LocalCluster.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace keywise::cluster_tool {

class LocalClusterTls {
 public:
  // The files of the cluster in `cluster_dir` (absolute).
  explicit LocalClusterTls(const std::string& cluster_dir)
      : dir_(cluster_dir + "/tls") {}

  const std::string& dir() const { return dir_; }
  std::string ca() const { return dir_ + "/ca.pem"; }
  std::string ca_key() const { return dir_ + "/ca-key.pem"; }
  std::string node_keystore(int i) const;
  std::string node_cert(int i) const;
  std::string node_key(int i) const;
  std::string etcd_cert() const { return dir_ + "/etcd-cert.pem"; }
  std::string etcd_key() const { return dir_ + "/etcd-key.pem"; }
  std::string client_cert() const { return dir_ + "/client-cert.pem"; }
  std::string client_key() const { return dir_ + "/client-key.pem"; }

  // Makes the directory, the CA (named after `cluster_name`), etcd's and
  // the client's certificates. AlreadyExists when the CA's key is there:
  // a CA is never replaced (every certificate of the cluster chains to it).
  Status MakeAuthority(const std::string& cluster_name) const;
  // Issues node `i`'s certificate (address LocalCluster::NodeAddress(i))
  // from the CA saved by MakeAuthority, replacing any it had.
  Status IssueNode(int i) const;

  // The lines of node `i`'s keywise.yaml that turn TLS on: the CQL port
  // (client_encryption_options), messaging (server_encryption_options,
  // only the cluster's certificates accepted) and etcd at
  // `etcd_endpoint` ("https://127.0.0.1:P") with node i's certificate.
  std::string NodeYaml(int i, const std::string& etcd_endpoint) const;
  // etcd's flags serving its client URLs over TLS, clients' certificates
  // required.
  std::vector<std::string> EtcdFlags() const;

 private:
  std::string dir_;
};

}  // namespace keywise::cluster_tool
