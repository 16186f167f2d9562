#include "server/node_auth.h"

#include <algorithm>
#include <thread>

#include "cluster/metadata/etcd_auth_store.h"
#include "common/log.h"
#include "query/query_processor.h"
#include "server/local_auth_store.h"
#include "server/metrics_http.h"
#include "server/native_transport.h"

namespace keywise::server {
namespace {

constexpr std::string_view kNodeAuthLog = "auth";

// The cluster's roles from etcd, copied into this node's system_auth
// tables at each change, each copy against what the tables last received
// (at first, what the node kept from its last run; after a failed write,
// the state before it, so the next change writes both).
Result<std::unique_ptr<cluster::EtcdAuthStore>> OpenClusterStore(
    const NodeConfig& config, query::QueryProcessor* processor,
    cluster::EtcdClient* etcd, SystemAuthWriter* tables) {
  query::InternalCql cql(processor);
  KW_ASSIGN_OR_RETURN(auto kept, ReadSystemAuth(cql));
  auto written_state =
      std::make_shared<const auth::AuthState>(std::move(kept), 0);
  cluster::EtcdAuthStore::Options options;
  options.cluster_name = config.cluster_name;
  options.on_change = [tables, written_state](
                          const auth::AuthState&,
                          const auth::AuthState& after) mutable {
    Status written =
        tables->Write(*written_state, DiffRoles(*written_state, after));
    if (written.ok()) {
      written_state = std::make_shared<const auth::AuthState>(after);
    } else {
      LogWarn(kNodeAuthLog, "Could not copy the roles into system_auth: " +
                                written.ToString());
    }
  };
  return cluster::EtcdAuthStore::Open(etcd, std::move(options));
}

}  // namespace

Result<std::unique_ptr<NodeAuth>> NodeAuth::Start(
    const NodeConfig& config, query::QueryProcessor* processor,
    cluster::EtcdClient* etcd, NativeTransport* transport,
    MetricsHttpServer* http, metrics::Registry* registry) {
  if (!UsesPasswordAuthenticator(config)) return std::unique_ptr<NodeAuth>();
  std::unique_ptr<NodeAuth> out(new NodeAuth());
  if (etcd != nullptr) {
    out->tables_ = std::make_unique<SystemAuthWriter>(processor);
    KW_ASSIGN_OR_RETURN(
        std::unique_ptr<cluster::EtcdAuthStore> store,
        OpenClusterStore(config, processor, etcd, out->tables_.get()));
    if (registry != nullptr) {
      out->state_age_ = metrics::CollectorHandle(
          registry, [s = store.get()](metrics::TextWriter& w) {
            const auto age = std::chrono::steady_clock::now() - s->confirmed();
            w.Single("keywise_auth_state_age_seconds",
                     "Seconds since this node's roles and permissions were "
                     "last confirmed against etcd (a cluster's).",
                     metrics::MetricType::kGauge,
                     std::chrono::duration<double>(age).count());
          });
    }
    out->store_ = std::move(store);
  } else {
    KW_ASSIGN_OR_RETURN(out->store_, LocalAuthStore::Open(processor));
  }
  const int rounds = config.auth_bcrypt_gensalt_log2_rounds;
  KW_ASSIGN_OR_RETURN(bool created,
                      auth::EnsureDefaultSuperuser(*out->store_, rounds));
  if (created) {
    LogInfo(kNodeAuthLog, "Created the default superuser role 'cassandra'");
  }
  auth::AuthOptions statements;
  statements.password_authenticator = true;
  statements.cassandra_authorizer = UsesCassandraAuthorizer(config);
  statements.bcrypt_rounds = rounds;
  LoginOptions options;
  options.bcrypt_rounds = rounds;
  options.max_delay =
      std::chrono::milliseconds(config.auth_failed_login_delay_max_in_ms);
  options.threads =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
  options.counters = LoginCounters::For(registry, "cql");
  KW_ASSIGN_OR_RETURN(out->login_,
                      LoginService::Create(out->store_.get(), options));
  // Nothing fails from here on: the processor never points to a store
  // that a failed start freed.
  processor->SetAuth(out->store_.get(), statements);
  transport->SetLogin(out->login_.get());
  if (http != nullptr) {
    out->http_ = http;
    http->SetLogin(std::make_shared<HttpLogin>(
        out->store_.get(), out->login_->dummy_hash(),
        statements.cassandra_authorizer, LoginCounters::For(registry, "http")));
  }
  LogInfo(kNodeAuthLog,
          std::string("PasswordAuthenticator") +
              (statements.cassandra_authorizer ? " and CassandraAuthorizer"
                                               : "") +
              ": clients log in with a role (" +
              std::to_string(out->store_->Current()->roles().size()) +
              " roles, kept " + (etcd != nullptr ? "in etcd" : "by this node") +
              ")");
  return out;
}

NodeAuth::~NodeAuth() {
  if (http_ != nullptr) http_->SetLogin(nullptr);
  state_age_.Reset();
}

}  // namespace keywise::server
