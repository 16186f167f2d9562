#include "cluster/etcd/http_connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <cerrno>
#include <functional>
#include <optional>

namespace keywise::cluster {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Ranges over a large prefix can be big; etcd itself caps requests, not
// replies.
constexpr uint64_t kMaxReplyBytes = 64 << 20;

}  // namespace

class HttpConnection::Impl {
 public:
  Impl(EtcdEndpoint endpoint, std::shared_ptr<asio::ssl::context> tls)
      : endpoint_(std::move(endpoint)), tls_context_(std::move(tls)) {}

  const EtcdEndpoint& endpoint() const { return endpoint_; }

  Status Connect(Clock::time_point deadline);
  void EnableKeepAliveProbes();
  bool IsReusable();
  Result<HttpReply> Post(std::string_view target, std::string_view body,
                         Clock::time_point deadline, SendState* sent);
  Result<HttpReply> StartStream(std::string_view target, std::string_view body,
                                Clock::time_point deadline);
  Status ReadStream(std::string* out, Clock::time_point deadline);
  void Cancel();

 private:
  // Starts one asynchronous operation through `start(handler)` and runs the
  // io_context until it completes; `deadline` max() means none.
  template <typename Start>
  beast::error_code Run(Clock::time_point deadline, Start start);
  // Run for an operation `op(stream, handler)` on the TLS stream when there
  // is one, else on the TCP one.
  template <typename Op>
  beast::error_code RunOnStream(Clock::time_point deadline, Op op);
  Status Handshake(Clock::time_point deadline);
  // Reads, without waiting, what the server sent unasked on a TLS
  // connection; returns whether that was only TLS's own records (TLS 1.3
  // session tickets arrive after the handshake), leaving it usable.
  bool ReadPostHandshakeRecords();
  Status Write(std::string_view target, std::string_view body,
               Clock::time_point deadline);
  // A failed step closes the connection: its state is unknown.
  Status Fail(std::string_view step, const beast::error_code& ec);
  // What `ec` likely means when TLS is on one side only or etcd refused
  // the client certificate ("" when nothing more is known).
  std::string Hint(const beast::error_code& ec) const;
  void Close();

  EtcdEndpoint endpoint_;
  const std::shared_ptr<asio::ssl::context> tls_context_;  // null: plain
  asio::io_context io_{1};
  beast::tcp_stream stream_{io_};
  // The TLS layer over stream_, made by Connect when the endpoint is TLS;
  // empty on a plain connection.
  std::optional<beast::ssl_stream<beast::tcp_stream&>> tls_;
  beast::flat_buffer buffer_;
  std::atomic<bool> cancelled_{false};
  bool answered_ = false;  // whether a reply has been read
  // Stream mode: the reply's parser and the chunk bytes it handed over.
  std::optional<http::response_parser<http::string_body>> parser_;
  std::string chunk_bytes_;
  std::function<size_t(uint64_t, beast::string_view, beast::error_code&)>
      on_chunk_;
};

template <typename Start>
beast::error_code HttpConnection::Impl::Run(Clock::time_point deadline,
                                            Start start) {
  if (cancelled_.load()) return asio::error::operation_aborted;
  if (deadline == Clock::time_point::max()) {
    stream_.expires_never();
  } else {
    stream_.expires_at(deadline);
  }
  beast::error_code result = asio::error::would_block;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  io_.restart();
  io_.run();
  return result;
}

template <typename Op>
beast::error_code HttpConnection::Impl::RunOnStream(Clock::time_point deadline,
                                                    Op op) {
  return Run(deadline, [&](auto handler) {
    if (tls_) {
      op(*tls_, std::move(handler));
    } else {
      op(stream_, std::move(handler));
    }
  });
}

Status HttpConnection::Impl::Fail(std::string_view step,
                                  const beast::error_code& ec) {
  Close();
  std::string reason = ec.message();
  if (ec == beast::error::timeout) reason = "timed out";
  if (ec == asio::error::operation_aborted || cancelled_.load()) {
    reason = "cancelled";
  }
  reason += Hint(ec);
  return Status(ErrorCode::kUnavailable,
                std::string(step) + " " + endpoint_.ToString() + ": " + reason);
}

std::string HttpConnection::Impl::Hint(const beast::error_code& ec) const {
  if (cancelled_.load() || answered_) return "";
  if (!tls_) {
    if (ec == http::error::end_of_stream) {
      return " (closed unanswered: if etcd serves TLS, use https://)";
    }
    return "";
  }
  // A plain etcd answers a ClientHello with a 400 and closes: the client
  // sees the close, or a reset when the rest of its hello was unread.
  if (ec == asio::ssl::error::stream_truncated ||
      ec == asio::error::connection_reset) {
    return " (closed during the TLS handshake: if etcd serves plain HTTP, "
           "use http://)";
  }
  if (ec.category() != asio::error::get_ssl_category()) return "";
  switch (ERR_GET_REASON(static_cast<unsigned long>(ec.value()))) {
    case SSL_R_WRONG_VERSION_NUMBER:
      return " (not TLS: if etcd serves plain HTTP, use http://)";
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
      return " (etcd refused the client certificate, or its absence: it "
             "needs one signed by a CA of its --trusted-ca-file)";
    default:
      return "";
  }
}

void HttpConnection::Impl::Close() {
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
  buffer_.clear();
}

Status HttpConnection::Impl::Connect(Clock::time_point deadline) {
  asio::ip::tcp::resolver resolver(io_);
  beast::error_code ec;
  const auto results =
      resolver.resolve(endpoint_.host, std::to_string(endpoint_.port), ec);
  if (ec) return Fail("resolve", ec);
  beast::error_code bad_source;
  const asio::ip::address source =
      endpoint_.source_address.empty()
          ? asio::ip::address()
          : asio::ip::make_address(endpoint_.source_address, bad_source);
  if (endpoint_.source_address.empty() || bad_source ||
      source.is_unspecified()) {
    ec = Run(deadline, [&](auto handler) {
      stream_.async_connect(results, std::move(handler));
    });
  } else {
    // From the source address, on loopback only (where the system would
    // pick 127.0.0.1 for every node; elsewhere its choice routes, a given
    // address might not); a bind that fails leaves the choice to it too.
    ec = asio::error::host_not_found;
    bool tried = false;
    for (const auto& entry : results) {
      const asio::ip::tcp::endpoint target = entry.endpoint();
      if (target.address().is_v4() != source.is_v4() ||
          !target.address().is_loopback() || !source.is_loopback()) {
        continue;
      }
      tried = true;
      beast::error_code ignored;
      stream_.socket().close(ignored);
      stream_.socket().open(target.protocol(), ignored);
      stream_.socket().bind(asio::ip::tcp::endpoint(source, 0), ignored);
      ec = Run(deadline, [&](auto handler) {
        stream_.async_connect(target, std::move(handler));
      });
      if (!ec) break;
    }
    if (!tried) {  // not loopback, or no address of the source's family
      beast::error_code ignored;
      stream_.socket().close(ignored);
      ec = Run(deadline, [&](auto handler) {
        stream_.async_connect(results, std::move(handler));
      });
    }
  }
  if (ec) return Fail("connect to", ec);
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  if (tls_context_) return Handshake(deadline);
  return Status::OK();
}

Status HttpConnection::Impl::Handshake(Clock::time_point deadline) {
  tls_.emplace(stream_, *tls_context_);
  SSL* ssl = tls_->native_handle();
  // OpenSSL's own host check (as asio::ssl::host_name_verification, but
  // its failure has a reason of its own: "hostname mismatch").
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  beast::error_code not_an_address;
  asio::ip::make_address(endpoint_.host, not_an_address);
  if (not_an_address) {
    SSL_set_tlsext_host_name(ssl, endpoint_.host.c_str());
    X509_VERIFY_PARAM_set_hostflags(param,
                                    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, endpoint_.host.c_str(), 0);
  } else {
    X509_VERIFY_PARAM_set1_ip_asc(param, endpoint_.host.c_str());
  }
  const beast::error_code ec = Run(deadline, [&](auto handler) {
    tls_->async_handshake(asio::ssl::stream_base::client, std::move(handler));
  });
  if (!ec) return Status::OK();
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted ||
      cancelled_.load()) {
    return Fail("TLS handshake with", ec);
  }
  std::string reason = ec.message();
  const long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK) {
    reason += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  } else {
    reason += Hint(ec);
  }
  Close();
  return Status(ErrorCode::kUnavailable,
                "TLS handshake with " + endpoint_.ToString() + ": " + reason);
}

void HttpConnection::Impl::EnableKeepAliveProbes() {
  const int fd = stream_.socket().native_handle();
  const int on = 1, idle = 5, interval = 2, count = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

bool HttpConnection::Impl::IsReusable() {
  if (!stream_.socket().is_open() || buffer_.size() > 0 || parser_) {
    return false;
  }
  // Readable now means the server closed the connection (or broke the
  // protocol): either way it cannot take a request. Over TLS it may also
  // be records of TLS itself.
  char byte;
  const ssize_t n =
      recv(stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
  return n > 0 && tls_ && ReadPostHandshakeRecords();
}

bool HttpConnection::Impl::ReadPostHandshakeRecords() {
  if (cancelled_.load()) return false;
  stream_.expires_never();
  beast::error_code result = asio::error::would_block;
  size_t bytes = 0;
  tls_->async_read_some(buffer_.prepare(4096),
                        [&](beast::error_code ec, size_t n) {
                          result = ec;
                          bytes = n;
                        });
  io_.restart();
  io_.poll();  // runs what is ready; the read waits for more records
  if (result == asio::error::would_block) {
    stream_.cancel();
    io_.restart();
    io_.run();
    return result == asio::error::operation_aborted && !cancelled_.load();
  }
  buffer_.commit(bytes);  // data nobody asked for, or an error
  return false;
}

Status HttpConnection::Impl::Write(std::string_view target,
                                   std::string_view body,
                                   Clock::time_point deadline) {
  http::request<http::string_body> request(
      http::verb::post, beast::string_view(target.data(), target.size()), 11);
  request.set(http::field::host, endpoint_.ToString());
  request.set(http::field::content_type, "application/json");
  request.keep_alive(true);
  request.body() = std::string(body);
  request.prepare_payload();
  const beast::error_code ec =
      RunOnStream(deadline, [&](auto& stream, auto handler) {
        http::async_write(stream, request, std::move(handler));
      });
  if (ec) return Fail("send to", ec);
  return Status::OK();
}

Result<HttpReply> HttpConnection::Impl::Post(std::string_view target,
                                             std::string_view body,
                                             Clock::time_point deadline,
                                             SendState* sent) {
  *sent = SendState::kNotSent;
  KW_RETURN_IF_ERROR(Write(target, body, deadline));
  *sent = SendState::kSent;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxReplyBytes);
  const beast::error_code ec =
      RunOnStream(deadline, [&](auto& stream, auto handler) {
        http::async_read(stream, buffer_, parser, std::move(handler));
      });
  if (ec) return Fail("read reply from", ec);
  answered_ = true;
  auto& reply = parser.get();
  if (!reply.keep_alive()) Close();
  return HttpReply{static_cast<int>(reply.result_int()),
                   std::move(reply.body())};
}

Result<HttpReply> HttpConnection::Impl::StartStream(
    std::string_view target, std::string_view body,
    Clock::time_point deadline) {
  KW_RETURN_IF_ERROR(Write(target, body, deadline));
  parser_.emplace();
  parser_->body_limit(boost::none);
  on_chunk_ = [this](uint64_t, beast::string_view bytes,
                     beast::error_code&) -> size_t {
    chunk_bytes_.append(bytes.data(), bytes.size());
    return bytes.size();
  };
  parser_->on_chunk_body(on_chunk_);
  beast::error_code ec = RunOnStream(deadline, [&](auto& stream, auto handler) {
    http::async_read_header(stream, buffer_, *parser_, std::move(handler));
  });
  if (ec) return Fail("read stream header from", ec);
  answered_ = true;
  const int status = static_cast<int>(parser_->get().result_int());
  if (status == 200 && parser_->chunked()) return HttpReply{200, {}};
  ec = RunOnStream(deadline, [&](auto& stream, auto handler) {
    http::async_read(stream, buffer_, *parser_, std::move(handler));
  });
  if (ec) return Fail("read reply from", ec);
  HttpReply reply{status, std::move(parser_->get().body())};
  reply.body += chunk_bytes_;
  Close();
  return reply;
}

Status HttpConnection::Impl::ReadStream(std::string* out,
                                        Clock::time_point deadline) {
  if (!chunk_bytes_.empty()) {
    out->append(chunk_bytes_);
    chunk_bytes_.clear();
    return Status::OK();
  }
  if (parser_->is_done()) {
    return Status(ErrorCode::kUnavailable,
                  "stream from " + endpoint_.ToString() + " ended");
  }
  const beast::error_code ec =
      RunOnStream(deadline, [&](auto& stream, auto handler) {
        http::async_read_some(stream, buffer_, *parser_, std::move(handler));
      });
  out->append(chunk_bytes_);
  chunk_bytes_.clear();
  if (ec) return Fail("read stream from", ec);
  return Status::OK();
}

void HttpConnection::Impl::Cancel() {
  cancelled_.store(true);
  // Runs on the owner's thread inside its io_context: an operation in
  // progress ends at once, later ones see cancelled_.
  asio::post(io_, [this] { Close(); });
}

HttpConnection::HttpConnection(EtcdEndpoint endpoint,
                               std::shared_ptr<asio::ssl::context> tls)
    : impl_(std::make_unique<Impl>(std::move(endpoint), std::move(tls))) {}
HttpConnection::~HttpConnection() = default;

const EtcdEndpoint& HttpConnection::endpoint() const {
  return impl_->endpoint();
}
Status HttpConnection::Connect(Clock::time_point deadline) {
  return impl_->Connect(deadline);
}
void HttpConnection::EnableKeepAliveProbes() {
  impl_->EnableKeepAliveProbes();
}
bool HttpConnection::IsReusable() {
  return impl_->IsReusable();
}
Result<HttpReply> HttpConnection::Post(std::string_view target,
                                       std::string_view body,
                                       Clock::time_point deadline,
                                       SendState* sent) {
  return impl_->Post(target, body, deadline, sent);
}
Result<HttpReply> HttpConnection::StartStream(std::string_view target,
                                              std::string_view body,
                                              Clock::time_point deadline) {
  return impl_->StartStream(target, body, deadline);
}
Status HttpConnection::ReadStream(std::string* out,
                                  Clock::time_point deadline) {
  return impl_->ReadStream(out, deadline);
}
void HttpConnection::Cancel() {
  impl_->Cancel();
}

}  // namespace keywise::cluster
