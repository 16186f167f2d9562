#include "server/native_transport.h"

#include <algorithm>
#include <atomic>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio.hpp>
#include <condition_variable>
#include <csignal>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/log.h"
#include "net/fiber.h"
#include "net/listener.h"
#include "net/tls_context.h"
#include "server/node_tls.h"
#include "protocol/schema_change.h"
#include "server/connection.h"
#include "server/prepared_cache.h"

namespace keywise::server {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

constexpr char kThread[] = "native-transport";

std::string EndpointString(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

int Cores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

int IoThreadCount(int configured) {
  return configured > 0 ? configured : Cores();
}

// native_transport_max_threads is an upper bound: the pool's statements
// are CPU-bound, so more threads than cores only add switching.
int WorkerThreadCount(int configured) {
  return std::max(1, std::min(configured, std::max(4, 2 * Cores())));
}

}  // namespace

struct NativeTransport::Impl {
  Impl(TransportOptions options_in, net::LoopGroup* shared_loops)
      : options(std::move(options_in)),
        own_loops(shared_loops != nullptr
                      ? nullptr
                      : std::make_unique<net::LoopGroup>(
                            IoThreadCount(options.io_threads))),
        loops(shared_loops != nullptr ? shared_loops : own_loops.get()),
        shared(std::make_shared<TransportShared>()) {
    shared->options = options;
    if (options.metrics != nullptr) {
      // From the start, so that a scrape before the first client sees
      // every series.
      shared->metrics = std::make_unique<RequestMetrics>(options.metrics);
      // The gauges hold the counts they read, not the transport.
      shared->metrics->SetConnectionsGauge([s = shared] {
        return static_cast<double>(s->connections.load());
      });
      shared->metrics->SetInFlightGauge([s = shared] {
        return static_cast<double>(s->requests_in_flight.load());
      });
    }
  }

  asio::io_context& main_loop() { return loops->loop(0); }

  // On loop 0: a client connection accepted onto loop `index`.
  // Only loop 0 accepts: a count checked here is still right when the
  // connection adds itself.
  void Accepted(size_t index, tcp::socket socket) {
    if (options.max_connections >= 0 &&
        shared->connections.load() >= options.max_connections) {
      return Refuse(std::move(socket),
                    "Exceeded maximum native connection limit of " +
                        std::to_string(options.max_connections));
    }
    if (options.max_connections_per_address >= 0) {
      const std::string address = Connection::AddressOf(socket);
      const int open = shared->per_address.Count(address);
      if (open >= options.max_connections_per_address) {
        return Refuse(std::move(socket),
                      "Exceeded maximum native connection limit per ip of " +
                          std::to_string(options.max_connections_per_address) +
                          " by " + address + " (" + std::to_string(open) +
                          " open)");
      }
    }
    // Not make_shared: the lists of open connections and event listeners
    // hold weak pointers, which would keep a closed connection's memory
    // (its object shares the control block's allocation) until pruned.
    std::shared_ptr<Connection> connection(
        new Connection(loops->loop(index), std::move(socket), shared));
    shared->open.Add(connection);
    // Start on the connection's own loop.
    asio::post(connection->executor(), [connection] { connection->Start(); });
  }

  // Closes a connection over a limit, with a WARN at most every 10 s (as
  // Cassandra's, which are rate-limited too).
  void Refuse(tcp::socket socket, const std::string& why) {
    error_code ignored;
    socket.close(ignored);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_refusal_log >= std::chrono::seconds(10)) {
      last_refusal_log = now;
      LogWarn(kThread, why);
    }
  }

  // Runs fn on every loop's thread, one after another, and waits for it.
  template <typename Fn>
  void OnEveryLoop(Fn fn) {
    for (size_t i = 0; i < loops->size(); ++i) {
      std::promise<void> done;
      asio::post(loops->loop(i), [&] {
        fn();
        done.set_value();
      });
      done.get_future().wait();
    }
  }

  void RequestStop() {
    std::lock_guard<std::mutex> lock(stop_mu);
    stop_requested = true;
    stop_cv.notify_all();
  }

  const TransportOptions options;
  // Declared first so they outlive every I/O object below.
  const std::unique_ptr<net::LoopGroup> own_loops;  // without a shared group
  net::LoopGroup* const loops;
  net::Listener listener{loops, kThread};
  std::optional<asio::signal_set> signals;
  std::atomic<bool> stopped_by_signal{false};
  // SIGHUP, when a reload handler is set (SetReloadHandler).
  std::optional<asio::signal_set> reload_signals;
  std::mutex reload_mu;
  std::function<void()> on_reload;  // guarded by reload_mu

  void WaitForReloadSignal() {
    reload_signals->async_wait([this](const error_code& ec, int) {
      if (ec) return;
      std::function<void()> reload;
      {
        std::lock_guard lock(reload_mu);
        reload = on_reload;
      }
      if (reload) {
        LogInfo("main", "Received SIGHUP, checking the certificate files");
        reload();
      }
      WaitForReloadSignal();
    });
  }
  // Created with the transport (events may be pushed before Run).
  const std::shared_ptr<TransportShared> shared;
  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stop_requested = false;  // guarded by stop_mu
  std::chrono::steady_clock::time_point last_refusal_log{};  // loop 0's
};

NativeTransport::NativeTransport(TransportOptions options,
                                 ShutdownSignals signals,
                                 net::LoopGroup* loops)
    : impl_(std::make_unique<Impl>(std::move(options), loops)) {
  if (signals == ShutdownSignals::kHandle) {
    // Installed now so a signal during startup is queued, not fatal; the
    // handler runs inside Run() like any other I/O completion.
    impl_->signals.emplace(impl_->main_loop(), SIGINT, SIGTERM);
    impl_->signals->async_wait(
        [impl = impl_.get()](const error_code& ec, int signal) {
          if (ec) return;
          LogInfo("main", std::string("Received ") +
                              (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                              ", shutting down");
          impl->stopped_by_signal = true;
          impl->RequestStop();
        });
  }
}

NativeTransport::~NativeTransport() = default;

Status NativeTransport::Bind() {
  const net::TlsOptions& tls = impl_->options.tls;
  if (tls.enabled) {
    KW_ASSIGN_OR_RETURN(
        impl_->shared->tls,
        MakeServerTlsHolder(tls, "client_encryption_options", "the CQL port"));
    impl_->shared->tls_optional = tls.IsOptional();
  }
  error_code ec;
  tcp::resolver resolver(impl_->main_loop());
  auto results = resolver.resolve(
      impl_->options.address, std::to_string(impl_->options.port),
      tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return Status::ServerError("Cannot resolve native transport address " +
                               impl_->options.address + ": " + ec.message());
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  ec = impl_->listener.Listen(endpoint);
  if (ec) {
    return Status::ServerError("Cannot listen for CQL clients on " +
                               EndpointString(endpoint) + ": " + ec.message());
  }
  return Status::OK();
}

int NativeTransport::port() const {
  return impl_->listener.local_endpoint().port();
}

std::shared_ptr<net::TlsContextHolder> NativeTransport::tls_context() const {
  return impl_->shared->tls;
}

void NativeTransport::SetReloadHandler(std::function<void()> reload) {
  std::lock_guard lock(impl_->reload_mu);
  impl_->on_reload = std::move(reload);
  if (!impl_->signals || impl_->reload_signals) return;
  impl_->reload_signals.emplace(impl_->main_loop(), SIGHUP);
  impl_->WaitForReloadSignal();
}

Status NativeTransport::Run(query::QueryProcessor* processor) {
  Impl& s = *impl_;
  const TransportOptions& options = s.options;
  PreparedCache cache;
  RequestHandler handler(processor, &cache, options.before_execute,
                         options.tracer);
  const int worker_threads =
      options.statements_wait_on_network
          ? std::max(1, options.worker_threads)
          : WorkerThreadCount(options.worker_threads);
  asio::thread_pool workers(static_cast<size_t>(worker_threads));
  s.shared->handler = &handler;
  s.shared->workers = &workers;
  s.shared->pool_requests_per_connection =
      static_cast<size_t>(std::max(1, worker_threads / 2));

  LogInfo(kThread, "Listening for CQL clients on " +
                       EndpointString(s.listener.local_endpoint()) +
                       " (protocol v3, v4, v5; " +
                       std::to_string(s.loops->size()) +
                       (s.own_loops != nullptr ? " I/O threads, "
                                               : " shared I/O threads, ") +
                       std::to_string(worker_threads) + " request threads)");
  if (s.own_loops != nullptr) s.own_loops->Start();
  s.listener.Start([impl = impl_.get()](size_t index, tcp::socket socket) {
    impl->Accepted(index, std::move(socket));
  });
  {
    std::unique_lock<std::mutex> lock(s.stop_mu);
    s.stop_cv.wait(lock, [&] { return s.stop_requested; });
  }
  // Serve no more: stop accepting, close every client connection, let
  // every statement fiber end (their waits end as timeouts) and every pool
  // statement finish, so that the processor and the engine may go next.
  s.OnEveryLoop([&] {
    if (s.loops->IndexOnThisThread() == 0) s.listener.Close();
  });
  for (const std::shared_ptr<Connection>& c : s.shared->open.TakeAll()) {
    std::promise<void> closed;
    asio::post(c->executor(), [&] {
      c->Shutdown();
      closed.set_value();
    });
    closed.get_future().wait();
  }
  s.OnEveryLoop([] { net::Fiber::CancelAllOnThisThread(); });
  workers.join();
  s.OnEveryLoop([] {});  // completions the workers posted have run
  s.shared->handler = nullptr;
  s.shared->workers = nullptr;
  if (s.own_loops != nullptr) s.own_loops->Stop();
  return Status::OK();
}

void NativeTransport::PushNodeEvent(const protocol::NodeEvent& event) {
  Result<std::string> body = protocol::EncodeNodeEvent(event);
  if (!body.ok()) {
    LogWarn(kThread, "Not sending the " + event.type + " event of " +
                         event.address + ": " + body.status().ToString());
    return;
  }
  const uint8_t type = event.type == protocol::kStatusChangeEvent
                           ? EventRegistry::kStatus
                           : EventRegistry::kTopology;
  impl_->shared->events.Broadcast(
      type, std::make_shared<const std::string>(*std::move(body)));
}

void NativeTransport::SetLogin(LoginService* login) {
  impl_->shared->options.login = login;
}

void NativeTransport::PushSchemaChange(const query::SchemaChangeResult& change) {
  impl_->shared->events.Broadcast(change);
}

void NativeTransport::Stop() {
  impl_->RequestStop();
}

bool NativeTransport::stopped_by_signal() const {
  return impl_->stopped_by_signal;
}

}  // namespace keywise::server
