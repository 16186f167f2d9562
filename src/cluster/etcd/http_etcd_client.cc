#include "cluster/etcd/http_etcd_client.h"

#include <utility>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/gateway_json.h"
#include "cluster/etcd/watch_stream.h"

namespace keywise::cluster {

using Clock = HttpConnection::Clock;

Result<std::unique_ptr<HttpEtcdClient>> HttpEtcdClient::Create(
    EtcdClientOptions options) {
  if (options.endpoints.empty()) {
    return Status::ConfigError("etcd: no endpoints given");
  }
  std::vector<EtcdEndpoint> endpoints;
  for (const std::string& text : options.endpoints) {
    KW_ASSIGN_OR_RETURN(EtcdEndpoint endpoint, ParseEtcdEndpoint(text));
    endpoint.source_address = options.source_address;
    if (!endpoints.empty() && endpoint.tls != endpoints.front().tls) {
      return Status::ConfigError(
          "etcd endpoints mix https:// (" +
          options.endpoints[endpoint.tls ? endpoints.size() : 0] +
          ") and plain (" +
          options.endpoints[endpoint.tls ? 0 : endpoints.size()] +
          "): use https:// for all or none");
    }
    endpoints.push_back(std::move(endpoint));
  }
  const bool tls = endpoints.front().tls;
  if (tls && !options.tls) {
    return Status::ConfigError("etcd endpoint " + options.endpoints.front() +
                               " is https:// but no TLS options are given");
  }
  if (!tls && options.tls) {
    return Status::ConfigError("etcd TLS options are given but endpoint " +
                               options.endpoints.front() + " is not https://");
  }
  std::shared_ptr<net::TlsContextHolder> context;
  if (tls) {
    const net::ClientTlsOptions& files = *options.tls;
    KW_ASSIGN_OR_RETURN(
        context, net::TlsContextHolder::Create(
                     "etcd_client_encryption_options",
                     {files.ca, files.cert, files.key},
                     [files] { return net::BuildClientTlsContext(files); }));
  }
  return std::unique_ptr<HttpEtcdClient>(new HttpEtcdClient(
      std::move(options), std::move(endpoints), std::move(context)));
}

HttpEtcdClient::HttpEtcdClient(EtcdClientOptions options,
                               std::vector<EtcdEndpoint> endpoints,
                               std::shared_ptr<net::TlsContextHolder> tls)
    : options_(std::move(options)),
      endpoints_(std::move(endpoints)),
      tls_(std::move(tls)) {}

HttpEtcdClient::~HttpEtcdClient() = default;

Result<std::unique_ptr<HttpConnection>> HttpEtcdClient::TakeConnection(
    size_t index, Clock::time_point deadline) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = idle_.begin(); it != idle_.end();) {
      if (it->index != index) {
        ++it;
        continue;
      }
      std::unique_ptr<HttpConnection> conn = std::move(it->conn);
      it = idle_.erase(it);
      if (conn->IsReusable()) return conn;
    }
  }
  auto conn = std::make_unique<HttpConnection>(
      endpoints_[index], tls_ ? tls_->Current() : nullptr);
  const auto connect_deadline =
      std::min(deadline, Clock::now() + options_.connect_timeout);
  KW_RETURN_IF_ERROR(conn->Connect(connect_deadline));
  return conn;
}

void HttpEtcdClient::ReturnConnection(size_t index,
                                      std::unique_ptr<HttpConnection> conn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < options_.max_idle_connections) {
    idle_.push_back({index, std::move(conn)});
  }
}

Result<std::string> HttpEtcdClient::Call(std::string_view path,
                                         const std::string& body, Retry retry) {
  const auto deadline = Clock::now() + options_.request_timeout;
  const size_t first = current_.load();
  std::string errors;  // one "endpoint: why" per endpoint tried
  auto note = [&errors](const Status& status) {
    std::string_view message = status.message();
    if (message.starts_with("etcd: ")) message.remove_prefix(6);
    if (!errors.empty()) errors += "; ";
    errors += message;
  };
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    if (i > 0 && Clock::now() >= deadline) break;
    const size_t index = (first + i) % endpoints_.size();
    const std::string what =
        std::string(path) + " at " + endpoints_[index].ToString();
    auto conn = TakeConnection(index, deadline);
    if (!conn.ok()) {
      note(conn.status());
      continue;
    }
    SendState sent = SendState::kNotSent;
    auto reply = (*conn)->Post(path, body, deadline, &sent);
    if (!reply.ok()) {
      if (sent == SendState::kSent && retry == Retry::kOnlyIfNotSent) {
        return EtcdUnavailable(
            std::string(path) + ": " + reply.status().message() + " (" +
            std::string(kOutcomeUnknown) + ": the request was sent)");
      }
      note(reply.status());
      continue;
    }
    current_.store(index);
    if ((*conn)->IsReusable()) ReturnConnection(index, std::move(*conn));
    if (reply->status == 200) return std::move(reply->body);
    Status status = GatewayErrorStatus(what, reply->status, reply->body);
    if (status.code() == ErrorCode::kUnavailable && retry == Retry::kReadOnly) {
      note(status);
      continue;
    }
    return status;
  }
  return EtcdUnavailable(std::string(path) +
                         ": no endpoint answered: " + errors);
}

Result<RangeResult> HttpEtcdClient::Range(const KeyRange& range,
                                          const RangeOptions& options) {
  KW_ASSIGN_OR_RETURN(
      const std::string body,
      Call(kRangePath, EncodeRangeRequest(range, options), Retry::kReadOnly));
  return DecodeRangeResponse(body);
}

Result<int64_t> HttpEtcdClient::Put(std::string_view key,
                                    std::string_view value, LeaseId lease) {
  KW_ASSIGN_OR_RETURN(const std::string body,
                      Call(kPutPath, EncodePutRequest(key, value, lease),
                           Retry::kOnlyIfNotSent));
  return DecodePutResponse(body);
}

Result<DeleteResult> HttpEtcdClient::Delete(const KeyRange& range) {
  KW_ASSIGN_OR_RETURN(const std::string body,
                      Call(kDeleteRangePath, EncodeDeleteRangeRequest(range),
                           Retry::kOnlyIfNotSent));
  return DecodeDeleteRangeResponse(body);
}

Result<TxnResult> HttpEtcdClient::Txn(const std::vector<Compare>& compares,
                                      const std::vector<TxnOp>& success,
                                      const std::vector<TxnOp>& failure) {
  KW_ASSIGN_OR_RETURN(
      const std::string body,
      Call(kTxnPath, EncodeTxnRequest(compares, success, failure),
           Retry::kOnlyIfNotSent));
  return DecodeTxnResponse(body);
}

Status HttpEtcdClient::Compact(int64_t revision) {
  return Call(kCompactionPath, EncodeCompactionRequest(revision),
              Retry::kOnlyIfNotSent)
      .status();
}

Result<Lease> HttpEtcdClient::GrantLease(std::chrono::seconds ttl) {
  KW_ASSIGN_OR_RETURN(const std::string body,
                      Call(kLeaseGrantPath, EncodeLeaseGrantRequest(ttl),
                           Retry::kOnlyIfNotSent));
  return DecodeLeaseGrantResponse(body);
}

Result<std::chrono::seconds> HttpEtcdClient::KeepAliveOnce(LeaseId lease) {
  KW_ASSIGN_OR_RETURN(
      const std::string body,
      Call(kLeaseKeepAlivePath, EncodeLeaseIdRequest(lease), Retry::kReadOnly));
  return DecodeKeepAliveResponse(body);
}

Status HttpEtcdClient::RevokeLease(LeaseId lease) {
  return Call(kLeaseRevokePath, EncodeLeaseIdRequest(lease),
              Retry::kOnlyIfNotSent)
      .status();
}

Result<std::unique_ptr<WatchHandle>> HttpEtcdClient::Watch(
    const KeyRange& range, int64_t start_revision, WatchCallback callback) {
  WatchStreamOptions options;
  options.endpoints = endpoints_;
  options.tls = tls_;
  options.first_endpoint = current_.load();
  options.connect_timeout = options_.connect_timeout;
  options.create_timeout = options_.request_timeout;
  options.retry_min = options_.watch_retry_min;
  options.retry_max = options_.watch_retry_max;
  return StartWatchStream(std::move(options), range, start_revision,
                          std::move(callback));
}

}  // namespace keywise::cluster
