// NodeAuth: a serving node's authentication and authorization
// (docs/security.md): the role store (alone, the node's own system_auth
// tables: server/local_auth_store.h; in a cluster, etcd:
// cluster/metadata/etcd_auth_store.h, with the node's system_auth tables
// rewritten as a copy), the default superuser when no role exists, the
// query processor's role and permission statements and checks, the login
// service the native transport asks, and the credentials the HTTP server
// (/metrics, the console) asks for.
//
// Contract: Start once the processor is set up and before the transport
// serves; with AllowAllAuthenticator it returns nullptr and changes
// nothing. Destroy after the transport stops serving and before the
// processor goes; destruction detaches the HTTP server's check first.
#pragma once

#include <memory>

#include "auth/auth_store.h"
#include "common/status.h"
#include "metrics/registry.h"
#include "server/config.h"
#include "server/login_service.h"
#include "server/system_auth_tables.h"

namespace keywise::cluster {
class EtcdClient;
}
namespace keywise::query {
class QueryProcessor;
}
namespace keywise::server {

class MetricsHttpServer;
class NativeTransport;

class NodeAuth {
 public:
  // `etcd`: the cluster's (null alone); `http`, `registry`: null without
  // /metrics. Counts logins (keywise_auth_logins_total) and, in a
  // cluster, exports keywise_auth_state_age_seconds.
  static Result<std::unique_ptr<NodeAuth>> Start(
      const NodeConfig& config, query::QueryProcessor* processor,
      cluster::EtcdClient* etcd, NativeTransport* transport,
      MetricsHttpServer* http, metrics::Registry* registry);
  ~NodeAuth();
  NodeAuth(const NodeAuth&) = delete;
  NodeAuth& operator=(const NodeAuth&) = delete;

  auth::AuthStore& store() { return *store_; }

 private:
  NodeAuth() = default;

  // In a cluster: the node's system_auth copy (before the store, which
  // writes it).
  std::unique_ptr<SystemAuthWriter> tables_;
  std::unique_ptr<auth::AuthStore> store_;
  std::unique_ptr<LoginService> login_;  // after the store it reads
  MetricsHttpServer* http_ = nullptr;
  metrics::CollectorHandle state_age_;  // a cluster's; before the store goes
};

}  // namespace keywise::server
