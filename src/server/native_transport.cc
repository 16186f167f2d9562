#include "server/native_transport.h"

#include <algorithm>
#include <atomic>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include <boost/asio.hpp>
#include <csignal>
#include <optional>
#include <thread>
#include <vector>

#include "common/log.h"
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
  explicit Impl(TransportOptions options_in)
      : options(std::move(options_in)),
        loops(MakeLoops(options.io_threads)),
        shared(std::make_shared<TransportShared>()) {
    shared->options = options;
  }

  static std::vector<std::unique_ptr<asio::io_context>> MakeLoops(int n) {
    std::vector<std::unique_ptr<asio::io_context>> out;
    for (int i = 0; i < IoThreadCount(n); ++i) {
      // Each loop is run by exactly one thread.
      out.push_back(std::make_unique<asio::io_context>(1));
    }
    return out;
  }

  asio::io_context& main_loop() { return *loops[0]; }

  void Accept() {
    asio::io_context& target = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(target, [this](const error_code& ec,
                                         tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Typically out of file descriptors: back off instead of spinning.
        LogWarn(kThread, "accept failed: " + ec.message());
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([this](const error_code& wait_ec) {
          if (!wait_ec) Accept();
        });
        return;
      }
      if (options.max_connections >= 0 &&
          shared->connections.load() >= options.max_connections) {
        error_code ignored;
        socket.close(ignored);  // native_transport_max_concurrent_connections
      } else {
        auto connection =
            std::make_shared<Connection>(std::move(socket), shared);
        // Start on the connection's own loop.
        asio::post(connection->executor(),
                   [connection] { connection->Start(); });
      }
      Accept();
    });
  }

  void StopLoops() {
    for (auto& loop : loops) loop->stop();
  }

  const TransportOptions options;
  // Declared first so they outlive every I/O object below.
  std::vector<std::unique_ptr<asio::io_context>> loops;
  size_t next_loop = 0;
  tcp::acceptor acceptor{*loops[0]};
  asio::steady_timer retry{*loops[0]};
  std::optional<asio::signal_set> signals;
  std::atomic<bool> stopped_by_signal{false};
  // Created with the transport (events may be pushed before Run).
  const std::shared_ptr<TransportShared> shared;
};

NativeTransport::NativeTransport(TransportOptions options,
                                 ShutdownSignals signals)
    : impl_(std::make_unique<Impl>(std::move(options))) {
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
          impl->StopLoops();
        });
  }
}

NativeTransport::~NativeTransport() = default;

Status NativeTransport::Bind() {
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
  tcp::acceptor& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    acceptor.close(ignored);
    return Status::ServerError("Cannot listen for CQL clients on " +
                               EndpointString(endpoint) + ": " + ec.message());
  }
  return Status::OK();
}

int NativeTransport::port() const {
  error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

Status NativeTransport::Run(query::QueryProcessor* processor) {
  const TransportOptions& options = impl_->options;
  PreparedCache cache;
  RequestHandler handler(processor, &cache, options.before_execute,
                         !options.statements_wait_on_network);
  const int worker_threads =
      options.statements_wait_on_network
          ? std::max(1, options.worker_threads)
          : WorkerThreadCount(options.worker_threads);
  asio::thread_pool workers(static_cast<size_t>(worker_threads));
  impl_->shared->handler = &handler;
  impl_->shared->workers = &workers;
  impl_->shared->pool_requests_per_connection =
      static_cast<size_t>(std::max(1, worker_threads / 2));

  error_code ec;
  LogInfo(kThread, "Listening for CQL clients on " +
                       EndpointString(impl_->acceptor.local_endpoint(ec)) +
                       " (protocol v3, v4, v5; " +
                       std::to_string(impl_->loops.size()) + " I/O threads, " +
                       std::to_string(worker_threads) +
                       " request threads)");
  impl_->Accept();

  Status status = Status::OK();
  std::vector<std::thread> threads;
  std::vector<std::optional<asio::executor_work_guard<
      asio::io_context::executor_type>>>
      guards;
  for (size_t i = 1; i < impl_->loops.size(); ++i) {
    asio::io_context* loop = impl_->loops[i].get();
    guards.emplace_back(asio::make_work_guard(*loop));
    threads.emplace_back([loop] {
      while (!loop->stopped()) {
        try {
          loop->run();
        } catch (const std::exception& e) {
          LogError(kThread, std::string("I/O thread error: ") + e.what());
        }
      }
    });
  }
  try {
    impl_->main_loop().run();
  } catch (const std::exception& e) {
    status = Status::ServerError(std::string("native transport failed: ") +
                                 e.what());
  }
  impl_->StopLoops();
  for (std::thread& t : threads) t.join();
  impl_->acceptor.close(ec);
  // Statements still running finish before the engine may close; their
  // responses are dropped with the stopped loops.
  workers.join();
  impl_->shared->handler = nullptr;
  impl_->shared->workers = nullptr;
  return status;
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

void NativeTransport::PushSchemaChange(const query::SchemaChangeResult& change) {
  impl_->shared->events.Broadcast(change);
}

void NativeTransport::Stop() {
  impl_->StopLoops();
}

bool NativeTransport::stopped_by_signal() const {
  return impl_->stopped_by_signal;
}

}  // namespace keywise::server
