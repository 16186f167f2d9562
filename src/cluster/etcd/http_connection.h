// HttpConnection: one HTTP/1.1 client connection to one etcd member.
//
// Contract: used by one thread at a time; only Cancel() may be called from
// another thread (while the owner is blocked in a call or between calls).
// Every call runs Boost.Beast operations on the connection's own
// io_context, in the calling thread, and returns when they complete or the
// deadline passes; a timed-out or failed connection is closed. Two uses:
// Post (a request and its whole reply; the connection stays open for the
// next request when the server allows keep-alive), and a streamed reply
// (StartStream, then ReadStream until the stream ends) for watches.
// Errors are kUnavailable with a message naming the step and the endpoint
// but without the "etcd: " prefix, which the caller adds with the call.
// Host names are resolved with a blocking lookup (numeric addresses need
// none).
//
// TLS: given a client context, Connect also does the TLS handshake, checks
// that the server's certificate names the endpoint's host (an IP address
// SAN for an address, else a DNS one; SNI is sent for names), and every
// later call goes through TLS; deadlines and Cancel() apply the same. A
// failed handshake is kUnavailable "TLS handshake with HOST:PORT: REASON",
// REASON being OpenSSL's, with the certificate check's own reason when
// that failed. Without a context nothing about TLS is made or checked.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_endpoint.h"
#include "common/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace keywise::cluster {

struct HttpReply {
  int status = 0;  // HTTP status code
  std::string body;
};

// How far a failed Post got: a request that was not sent completely cannot
// have been applied; one that was sent may have been.
enum class SendState { kNotSent, kSent };

class HttpConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // `tls`: the client context when endpoint.tls (built once per client,
  // shared); null for a plain connection. REQUIRES: tls set iff
  // endpoint.tls.
  HttpConnection(EtcdEndpoint endpoint,
                 std::shared_ptr<boost::asio::ssl::context> tls);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  const EtcdEndpoint& endpoint() const;

  // Resolves the endpoint, connects, and does the TLS handshake if any.
  Status Connect(Clock::time_point deadline);

  // Turns on TCP keepalive probes (idle 5 s, then every 2 s, 3 probes), so
  // a peer that vanished without closing breaks a stream within ~11 s.
  // REQUIRES: connected.
  void EnableKeepAliveProbes();

  // Returns whether a request may be sent on this connection now: it is
  // open, and the server has neither closed it nor sent anything unasked
  // (over TLS, records of TLS itself, such as TLS 1.3 session tickets,
  // are read without waiting and do not count).
  bool IsReusable();

  // POSTs `body` (JSON) to `target` and reads the whole reply. On failure
  // `*sent` tells whether the request had been written completely.
  // REQUIRES: connected; no stream in progress.
  Result<HttpReply> Post(std::string_view target, std::string_view body,
                         Clock::time_point deadline, SendState* sent);

  // POSTs `body` and reads the reply's header. A chunked 200 reply returns
  // status 200 and an empty body: the body comes from ReadStream. Any other
  // reply is read whole and returned. The connection serves only this
  // stream afterwards.
  Result<HttpReply> StartStream(std::string_view target, std::string_view body,
                                Clock::time_point deadline);

  // Blocks until more of the streamed body arrives, and appends it to
  // `*out`. Returns Unavailable when the stream ended, broke, was cancelled
  // or the deadline (max() = none) passed, having appended whatever arrived
  // before. REQUIRES: StartStream returned status 200.
  Status ReadStream(std::string* out, Clock::time_point deadline);

  // Thread-safe: makes the blocking call in progress, and every later one,
  // fail with "cancelled" by closing the socket.
  void Cancel();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keywise::cluster
