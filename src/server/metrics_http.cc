#include "server/metrics_http.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/log.h"
#include "console/console.h"

namespace keywise::server {
namespace metrics_http_internal {

// The console attached (console/console.h), or none; what exchanges hand
// the console's paths to, on the worker.
class ConsoleSlot {
 public:
  void Set(const console::Console* console) {
    std::lock_guard<std::mutex> lock(mu_);
    console_ = console;
  }
  // Holds the lock while the console answers, so Set(nullptr) waits for
  // a request in progress.
  console::HttpResponse Answer(const console::HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu_);
    if (console_ == nullptr) {
      return Unavailable(request,
                         "The console starts once the node serves CQL.");
    }
    return console_->Handle(request);
  }

  // 503 in the form the path's clients read: JSON under /api/.
  static console::HttpResponse Unavailable(const console::HttpRequest& request,
                                           const std::string& message) {
    if (request.target.starts_with("/api/")) {
      return console::JsonError(503, message);
    }
    return console::TextResponse(503, message + "\n");
  }

  // Console requests queued for or on the worker: past kMaxQueued they are
  // answered 503 at once, so a slow console (many tabs, a slow cluster)
  // never holds the connections /metrics needs.
  static constexpr int kMaxQueued = 8;
  std::atomic<int> queued{0};

 private:
  std::mutex mu_;
  const console::Console* console_ = nullptr;  // guarded by mu_
};

// Whether requests need credentials (PasswordAuthenticator) and what
// checks them, once authentication has started.
class LoginSlot {
 public:
  void Require() {
    std::lock_guard<std::mutex> lock(mu_);
    required_ = true;
  }
  void Set(std::shared_ptr<HttpLogin> login) {
    std::lock_guard<std::mutex> lock(mu_);
    login_ = std::move(login);
  }
  // nullopt: served; otherwise the refusal. Holds the lock while it
  // checks, so Set(nullptr) waits for a check in progress (the server has
  // one I/O thread: checks never wait for each other).
  std::optional<HttpLogin::Outcome> Refusal(std::string_view authorization,
                                            bool console,
                                            const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!required_) return std::nullopt;
    if (login_ == nullptr) {
      return HttpLogin::Outcome{503, "Authentication is starting; try again."};
    }
    HttpLogin::Outcome outcome = login_->Check(authorization, console, address);
    if (outcome.status == 200) return std::nullopt;
    return outcome;
  }

 private:
  std::mutex mu_;
  bool required_ = false;               // guarded by mu_
  std::shared_ptr<HttpLogin> login_;    // guarded by mu_
};

}  // namespace metrics_http_internal

namespace {

using metrics_http_internal::ConsoleSlot;
using metrics_http_internal::LoginSlot;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kIdleTimeout = std::chrono::seconds(10);
constexpr size_t kMaxHeaderBytes = 8 * 1024;
// Connections served at once; more are closed as they come.
constexpr int kMaxExchanges = 64;
// After a failed accept (out of descriptors), before the next one.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);

// One connection: read a request, answer it, close.
class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  // `live` counts the exchanges alive (this one included until destroyed).
  Exchange(tcp::socket socket, const metrics::Registry* registry,
           std::shared_ptr<std::atomic<int>> live, ConsoleSlot* console,
           LoginSlot* login, asio::thread_pool* worker)
      : stream_(std::move(socket)),
        registry_(registry),
        live_(std::move(live)),
        console_(console),
        login_(login),
        worker_(worker) {
    parser_.header_limit(kMaxHeaderBytes);
    parser_.body_limit(kMaxHeaderBytes);
  }
  ~Exchange() { live_->fetch_sub(1); }

  void Run() {
    stream_.expires_after(kIdleTimeout);
    http::async_read(stream_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code ec,
                                                 size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec) return;  // timed out, closed, or malformed: dropped
    const auto& request = parser_.get();
    response_.version(request.version());
    response_.keep_alive(false);
    response_.set(http::field::server, "keywise");
    const std::string_view target(request.target().data(),
                                  request.target().size());
    const bool console = target != "/metrics" && !target.starts_with("/metrics?");
    const auto authorization = request[http::field::authorization];
    beast::error_code no_peer;
    const tcp::endpoint peer = stream_.socket().remote_endpoint(no_peer);
    if (std::optional<HttpLogin::Outcome> refused = login_->Refusal(
            std::string_view(authorization.data(), authorization.size()),
            console, no_peer ? std::string() : peer.address().to_string())) {
      response_.result(static_cast<unsigned>(refused->status));
      if (refused->status == 429) response_.set(http::field::retry_after, "60");
      if (refused->status == 401) {
        response_.set(http::field::www_authenticate,
                      "Basic realm=\"keywise\", charset=\"UTF-8\"");
      }
      response_.set(http::field::content_type, "text/plain");
      response_.set(http::field::cache_control, "no-store");
      response_.body() = refused->message + "\n";
      return Write();
    }
    if (console) {
      // The console's, on the worker: it may wait on CQL reads.
      console::HttpRequest forwarded{std::string(request.method_string()),
                                     std::string(target)};
      if (console_->queued.fetch_add(1) >= ConsoleSlot::kMaxQueued) {
        console_->queued.fetch_sub(1);
        return AnswerConsole(ConsoleSlot::Unavailable(
            forwarded, "The console is busy; try again."));
      }
      asio::post(*worker_, [self = shared_from_this(),
                            forwarded = std::move(forwarded)] {
        console::HttpResponse answer = self->console_->Answer(forwarded);
        self->console_->queued.fetch_sub(1);
        asio::post(self->stream_.get_executor(),
                   [self, answer = std::move(answer)]() mutable {
                     self->AnswerConsole(std::move(answer));
                   });
      });
      return;
    }
    if (request.method() != http::verb::get &&
        request.method() != http::verb::head) {
      response_.result(http::status::method_not_allowed);
      response_.set(http::field::allow, "GET, HEAD");
      response_.set(http::field::content_type, "text/plain");
      response_.body() = "Only GET and HEAD are served here.\n";
    } else {
      try {
        response_.body() = registry_->Render();
        response_.result(http::status::ok);
        response_.set(http::field::content_type,
                      "text/plain; version=0.0.4; charset=utf-8");
      } catch (const std::exception& e) {
        response_.result(http::status::internal_server_error);
        response_.set(http::field::content_type, "text/plain");
        response_.body() = std::string("Cannot render the metrics: ") +
                           e.what() + "\n";
      }
    }
    Write();
  }

  void AnswerConsole(console::HttpResponse answer) {
    response_.result(static_cast<unsigned>(answer.status));
    response_.set(http::field::content_type, answer.content_type);
    if (!answer.allow.empty()) response_.set(http::field::allow, answer.allow);
    // The pages load only the node's own scripts and styles: nothing
    // inline, nothing from elsewhere.
    response_.set("Content-Security-Policy",
                  "default-src 'self'; img-src 'self' data:; "
                  "frame-ancestors 'none'");
    response_.set("X-Content-Type-Options", "nosniff");
    response_.set(http::field::cache_control, "no-store");
    response_.body() = std::move(answer.body);
    Write();
  }

  void Write() {
    stream_.expires_after(kIdleTimeout);  // the console may have taken long
    response_.prepare_payload();
    // HEAD: the headers GET would send (its Content-Length), no body.
    if (parser_.get().method() == http::verb::head) response_.body().clear();
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code, size_t) {
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(
                            tcp::socket::shutdown_send, ignored);
                      });
  }

  beast::tcp_stream stream_;
  const metrics::Registry* registry_;
  std::shared_ptr<std::atomic<int>> live_;
  ConsoleSlot* console_;
  LoginSlot* login_;
  asio::thread_pool* worker_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> response_;
};

}  // namespace

struct MetricsHttpServer::Impl {
  explicit Impl(const metrics::Registry* r)
      : registry(r), acceptor(loop), retry(loop) {}

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (ec) {
        // Out of descriptors, say: try again a little later, not at once.
        retry.expires_after(kAcceptRetry);
        retry.async_wait([this](beast::error_code wait) {
          if (!wait) Accept();
        });
        return;
      }
      if (live->fetch_add(1) >= kMaxExchanges) {
        live->fetch_sub(1);  // too many at once: this one is closed
      } else {
        std::make_shared<Exchange>(std::move(socket), registry, live, &console,
                                   &login, &worker)
            ->Run();
      }
      Accept();
    });
  }

  const metrics::Registry* registry;
  asio::io_context loop;
  tcp::acceptor acceptor;
  asio::steady_timer retry;
  std::shared_ptr<std::atomic<int>> live = std::make_shared<std::atomic<int>>(0);
  metrics_http_internal::ConsoleSlot console;
  metrics_http_internal::LoginSlot login;
  // Answers the console's paths; last, so it is joined (and its queued
  // requests dropped) before what they use goes.
  asio::thread_pool worker{1};
};

MetricsHttpServer::MetricsHttpServer(const metrics::Registry* registry)
    : impl_(std::make_unique<Impl>(registry)) {}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

Status MetricsHttpServer::Start(const std::string& address, int port) {
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status::Invalid("metrics_address '" + address +
                           "' is not an IP address");
  }
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  tcp::acceptor& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::ServerError("Cannot serve metrics on " + address + ":" +
                               std::to_string(port) + ": " + ec.message());
  }
  port_ = acceptor.local_endpoint().port();
  impl_->Accept();
  thread_ = std::thread([this] {
    try {
      impl_->loop.run();
    } catch (const std::exception& e) {
      LogError("metrics", std::string("The metrics endpoint stopped: ") +
                              e.what());
    }
  });
  return Status::OK();
}

void MetricsHttpServer::SetConsole(const console::Console* console) {
  impl_->console.Set(console);
}

void MetricsHttpServer::RequireLogin() { impl_->login.Require(); }

void MetricsHttpServer::SetLogin(std::shared_ptr<HttpLogin> login) {
  impl_->login.Set(std::move(login));
}

void MetricsHttpServer::Stop() {
  if (!thread_.joinable()) return;
  asio::post(impl_->loop, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->retry.cancel();
    impl_->loop.stop();
  });
  thread_.join();
}

}  // namespace keywise::server
