// HttpEtcdClient: EtcdClient over etcd's v3 JSON gateway (HTTP/1.1), for
// etcd 3.4 and later.
//
// Contract: thread-safe; calls block the calling thread (see EtcdClient).
// Connections: a pool of keep-alive connections, each used by one call at a
// time; concurrent calls open more, and up to max_idle_connections stay
// open between calls. Each watch has its own connection and thread
// (watch_stream.h). Nothing is contacted before the first call, so a
// client can be made while etcd is still down.
//
// Failover: calls go to the endpoint that last answered. When it cannot be
// reached (connect refused or timed out, reset, closed), the call moves to
// the next endpoint, round the list once, within its one timeout. A read
// (Range, KeepAliveOnce) also moves on when the request was sent but the
// connection broke or etcd answered Unavailable ("no leader"). A write
// (Put, Delete, Txn, Compact, GrantLease, RevokeLease) never goes out
// twice: once sent, a broken connection or timeout returns kUnavailable
// with "outcome unknown" (IsOutcomeUnknown) and the caller decides.
//
// TLS (docs/security.md 5.3): https:// endpoints, all of them or none, with
// `tls` set; the client context is built by Create, which reads the
// files then, so a bad file fails Create rather than the first call. It is
// held in a net::TlsContextHolder (tls_context()): a reload of changed
// files serves the connections opened after it (pooled ones and open
// watches keep theirs until they reconnect).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/http_connection.h"
#include "net/tls_context.h"
#include "net/tls_context_holder.h"

namespace keywise::cluster {

struct EtcdClientOptions {
  // Client URLs of etcd members: "host:port", "http://host:port", or
  // "https://host:port" (then all of them).
  std::vector<std::string> endpoints;
  // What https:// endpoints are checked against and shown: `ca` (empty:
  // the system's CAs), a client certificate `cert` with its `key` (empty:
  // none; etcd's --client-cert-auth needs one). The *_setting names are
  // what messages call the files. REQUIRES: set iff the endpoints are
  // https://.
  std::optional<net::ClientTlsOptions> tls;
  // Bound on one whole call, failover included.
  std::chrono::milliseconds request_timeout{5000};
  // Bound on connecting to one endpoint, so a dead one is left quickly.
  std::chrono::milliseconds connect_timeout{1000};
  size_t max_idle_connections = 4;
  // The local address connections to etcd on loopback come from, best
  // effort (a node's listen_address: nodes of a local cluster on
  // 127.0.0.x otherwise all call from 127.0.0.1, and firewall rules could
  // not tell them apart); empty, unspecified (0.0.0.0, ::) or not
  // loopback, or etcd not on loopback: the system's choice.
  std::string source_address;
  // Watches wait this long before reconnecting, doubling up to the max.
  std::chrono::milliseconds watch_retry_min{100};
  std::chrono::milliseconds watch_retry_max{2000};
};

class HttpEtcdClient final : public EtcdClient {
 public:
  // Returns a client, or ConfigError for an empty or malformed endpoint
  // list, https:// mixed with plain endpoints, TLS options without
  // https:// endpoints or the reverse, or a TLS file that cannot be used
  // (the message names the setting and file). Does not connect.
  static Result<std::unique_ptr<HttpEtcdClient>> Create(
      EtcdClientOptions options);

  ~HttpEtcdClient() override;

  // The client context of https:// endpoints, for net::TlsReloader (named
  // "etcd_client_encryption_options"); null for plain ones.
  const std::shared_ptr<net::TlsContextHolder>& tls_context() const {
    return tls_;
  }

  Result<RangeResult> Range(const KeyRange& range,
                            const RangeOptions& options) override;
  Result<int64_t> Put(std::string_view key, std::string_view value,
                      LeaseId lease) override;
  Result<DeleteResult> Delete(const KeyRange& range) override;
  Result<TxnResult> Txn(const std::vector<Compare>& compares,
                        const std::vector<TxnOp>& success,
                        const std::vector<TxnOp>& failure) override;
  Status Compact(int64_t revision) override;
  Result<Lease> GrantLease(std::chrono::seconds ttl) override;
  Result<std::chrono::seconds> KeepAliveOnce(LeaseId lease) override;
  Status RevokeLease(LeaseId lease) override;
  Result<std::unique_ptr<WatchHandle>> Watch(const KeyRange& range,
                                             int64_t start_revision,
                                             WatchCallback callback) override;

 private:
  // Whether a call may be sent again after it was sent once.
  enum class Retry { kReadOnly, kOnlyIfNotSent };

  HttpEtcdClient(EtcdClientOptions options, std::vector<EtcdEndpoint> endpoints,
                 std::shared_ptr<net::TlsContextHolder> tls);

  // POSTs `body` to `path` with failover; returns the 200 reply's body or
  // the Status of the failure.
  Result<std::string> Call(std::string_view path, const std::string& body,
                           Retry retry);
  // An open connection to endpoint `index`: an idle one or a new one.
  Result<std::unique_ptr<HttpConnection>> TakeConnection(
      size_t index, HttpConnection::Clock::time_point deadline);
  void ReturnConnection(size_t index, std::unique_ptr<HttpConnection> conn);

  const EtcdClientOptions options_;
  const std::vector<EtcdEndpoint> endpoints_;
  const std::shared_ptr<net::TlsContextHolder> tls_;  // null: plain
  std::atomic<size_t> current_{0};  // endpoint that last answered

  std::mutex mu_;
  // Idle keep-alive connections, with the index of their endpoint.
  struct IdleConnection {
    size_t index;
    std::unique_ptr<HttpConnection> conn;
  };
  std::vector<IdleConnection> idle_;  // guarded by mu_
};

}  // namespace keywise::cluster
