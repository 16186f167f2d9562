#include "cluster/messaging/messaging_service.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20
#include <vector>

#include "cluster/messaging/incoming_connection.h"
#include "cluster/messaging/loop_gate.h"
#include "cluster/messaging/outgoing_connection.h"
#include "cluster/messaging/service_state.h"
#include "common/log.h"
#include "net/listener.h"
#include "net/loop_group.h"

namespace keywise::cluster {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

constexpr char kServiceLog[] = "messaging";

Status CheckOptions(const MessagingOptions& o) {
  if (o.node_id == Uuid())
    return Status::ConfigError("messaging: node_id is not set");
  if (o.io_threads < 1 || o.handler_threads < 1) {
    return Status::ConfigError(
        "messaging: io_threads and handler_threads must be >= 1");
  }
  if (o.min_version == 0 || o.min_version > o.max_version) {
    return Status::ConfigError("messaging: invalid version range " +
                               std::to_string(o.min_version) + ".." +
                               std::to_string(o.max_version));
  }
  if (o.max_frame_bytes < kFrameHeaderSize ||
      o.max_queued_bytes_per_peer == 0 || o.max_requests_in_flight == 0 ||
      o.max_pending_response_bytes == 0) {
    return Status::ConfigError(
        "messaging: frame and queue limits must be positive");
  }
  if (o.connect_timeout.count() <= 0 || o.reconnect_min_backoff.count() <= 0 ||
      o.reconnect_max_backoff < o.reconnect_min_backoff) {
    return Status::ConfigError("messaging: invalid connect timeout or backoff");
  }
  return Status::OK();
}

}  // namespace

struct MessagingService::Impl {
  Impl(MessagingOptions options, net::LoopGroup* shared)
      : state(std::make_shared<ServiceState>()),
        own_loops(shared != nullptr ? nullptr
                                    : std::make_unique<net::LoopGroup>(
                                          std::max(1, options.io_threads))),
        loops(shared != nullptr ? shared : own_loops.get()),
        listener(loops, kServiceLog) {
    state->options = std::move(options);
    // Connections are closed for good before Shutdown returns, so the
    // hook never outlives this.
    state->peer_connected = [this](const Endpoint& peer) { ConnectAll(peer); };
    for (size_t i = 0; i < loops->size(); ++i) {
      gates.push_back(
          std::make_shared<LoopGate>(loops->loop(i).get_executor()));
    }
  }

  Status Listen();
  // On loop 0: a connection accepted onto loop `index`.
  void Accepted(size_t index, tcp::socket socket);

  // The loop whose connection to a peer a Send from this thread takes: its
  // own loop's (then the answer comes back on the caller's loop and
  // thread), or round-robin from any other thread.
  size_t LoopForThisThread() {
    const int own = loops->IndexOnThisThread();
    if (own >= 0) return static_cast<size_t>(own);
    return next_outgoing_loop.fetch_add(1) % loops->size();
  }

  // Runs fn(connection) for the peer's connection on loop `index`, created
  // on first use, holding mu so that whatever fn posts precedes Shutdown's
  // close. Returns false (not calling fn) when the service is not running.
  // The connection of loop 0 reports the peer's ups and downs.
  template <typename Fn>
  bool WithConnection(const Endpoint& peer, size_t index, Fn&& fn) {
    {
      std::shared_lock<std::shared_mutex> lock(mu);
      if (!running) return false;
      if (auto it = peers.find(peer);
          it != peers.end() && it->second[index] != nullptr) {
        fn(*it->second[index]);
        return true;
      }
    }
    std::unique_lock<std::shared_mutex> lock(mu);
    if (!running) return false;
    std::vector<std::shared_ptr<OutgoingConnection>>& slots = peers[peer];
    slots.resize(loops->size());
    if (!slots[index]) {
      slots[index] = std::make_shared<OutgoingConnection>(
          loops->loop(index), peer, state, /*reports_events=*/index == 0);
    }
    fn(*slots[index]);
    return true;
  }

  // Has every existing connection to `peer` connect now if it waits out a
  // backoff (OutgoingConnection::Connect). Any thread.
  void ConnectAll(const Endpoint& peer) {
    std::shared_lock<std::shared_mutex> lock(mu);
    if (!running) return;
    auto it = peers.find(peer);
    if (it == peers.end()) return;
    for (const auto& connection : it->second) {
      if (connection) connection->Connect();
    }
  }

  const std::shared_ptr<ServiceState> state;
  // Declared before every I/O object so that they die first.
  const std::unique_ptr<net::LoopGroup> own_loops;  // without a shared group
  net::LoopGroup* const loops;
  std::vector<std::shared_ptr<LoopGate>> gates;  // one per loop
  std::optional<asio::thread_pool> handler_pool;
  net::Listener listener;
  Endpoint local;
  std::atomic<size_t> next_outgoing_loop{0};
  size_t next_incoming_loop = 0;  // loop 0 only
  bool started = false;           // Start() was called

  mutable std::shared_mutex mu;
  bool running = false;  // guarded by mu: between Start and Shutdown
  // Per peer, its connection on each loop (made on first use); mu.
  std::map<Endpoint, std::vector<std::shared_ptr<OutgoingConnection>>> peers;
};

Status MessagingService::Impl::Listen() {
  const MessagingOptions& o = state->options;
  error_code ec;
  const asio::ip::address address =
      asio::ip::make_address(o.listen_address, ec);
  if (ec) {
    return Status::ConfigError("messaging: invalid listen_address " +
                               o.listen_address + ": " + ec.message());
  }
  ec = listener.Listen(tcp::endpoint(address, o.port));
  if (ec) {
    return Status::ServerError("Cannot listen for messaging on " +
                               Endpoint{o.listen_address, o.port}.ToString() +
                               ": " + ec.message());
  }
  local = Endpoint{o.listen_address, listener.local_endpoint().port()};
  return Status::OK();
}

void MessagingService::Impl::Accepted(size_t index, tcp::socket socket) {
  auto connection = std::make_shared<IncomingConnection>(std::move(socket),
                                                         state, gates[index]);
  // Refused once Shutdown took the registry: the socket closes here.
  if (!state->incoming.Add(connection)) return;
  asio::post(connection->executor(), [connection] { connection->Start(); });
}

MessagingService::MessagingService(MessagingOptions options,
                                   net::LoopGroup* loops)
    : impl_(std::make_unique<Impl>(std::move(options), loops)) {}

MessagingService::~MessagingService() {
  Shutdown();
}

Status MessagingService::RegisterHandler(Verb verb, HandlerThread thread,
                                         Handler handler) {
  auto [it, inserted] = impl_->state->handlers.try_emplace(
      VerbValue(verb), HandlerEntry{thread, std::move(handler)});
  if (!inserted) {
    return Status::AlreadyExists("verb " + std::to_string(VerbValue(verb)) +
                                 " already has a handler");
  }
  return Status::OK();
}

void MessagingService::SetConnectionListener(ConnectionListener listener) {
  impl_->state->listener = std::move(listener);
}

Status MessagingService::Start() {
  Impl& s = *impl_;
  if (s.started) return Status::ServerError("messaging: Start() called twice");
  s.started = true;
  const MessagingOptions& o = s.state->options;
  KW_RETURN_IF_ERROR(CheckOptions(o));
  s.state->hello = Hello{o.min_version, o.max_version, o.node_id};
  KW_RETURN_IF_ERROR(s.Listen());
  s.handler_pool.emplace(static_cast<size_t>(o.handler_threads));
  s.state->handler_pool = &*s.handler_pool;
  if (s.own_loops != nullptr) s.own_loops->Start();
  {
    std::unique_lock<std::shared_mutex> lock(s.mu);
    s.running = true;
  }
  s.listener.Start([impl = impl_.get()](size_t index, tcp::socket socket) {
    impl->Accepted(index, std::move(socket));
  });
  LogInfo(kServiceLog, "Listening for messaging on " + s.local.ToString() +
                           " (node " + o.node_id.ToString() + ", versions " +
                           VersionRange(s.state->hello) + ", " +
                           std::to_string(s.loops->size()) +
                           (s.own_loops != nullptr ? " I/O threads, "
                                                   : " shared I/O threads, ") +
                           std::to_string(o.handler_threads) +
                           " handler threads)");
  return Status::OK();
}

Endpoint MessagingService::local_endpoint() const {
  return impl_->local;
}

void MessagingService::Send(const Endpoint& peer, Verb verb,
                            std::string payload,
                            std::chrono::milliseconds timeout,
                            ResponseCallback callback,
                            std::optional<int64_t> epoch) {
  const auto deadline = OutgoingConnection::Clock::now() + timeout;
  const int64_t stamped =
      epoch ? *epoch : impl_->state->epoch.load(std::memory_order_relaxed);
  const bool sent = impl_->WithConnection(
      peer, impl_->LoopForThisThread(), [&](OutgoingConnection& c) {
        c.SendRequest(verb, stamped, std::move(payload), deadline, timeout,
                      std::move(callback));
      });
  if (!sent) {
    callback(Response::Error(
        SendError::kShutdown,
        Status::ServerError("messaging service is not running")));
  }
}

Status MessagingService::SendOneWay(const Endpoint& peer, Verb verb,
                                    std::string payload) {
  Status status = Status::ServerError("messaging service is not running");
  impl_->WithConnection(peer, impl_->LoopForThisThread(),
                        [&](OutgoingConnection& c) {
                          status = c.SendOneWay(verb, std::move(payload));
                        });
  return status;
}

void MessagingService::SetEpoch(int64_t epoch) {
  impl_->state->epoch.store(epoch, std::memory_order_relaxed);
}

void MessagingService::Connect(const Endpoint& peer) {
  impl_->WithConnection(peer, 0, [](OutgoingConnection& c) { c.Connect(); });
  impl_->ConnectAll(peer);
}

void MessagingService::RemovePeer(const Endpoint& peer) {
  std::unique_lock<std::shared_mutex> lock(impl_->mu);
  auto it = impl_->peers.find(peer);
  if (it == impl_->peers.end()) return;
  for (auto& connection : it->second) {
    if (connection) connection->Close(SendError::kConnectionLost, nullptr);
  }
  impl_->peers.erase(it);
}

void MessagingService::Shutdown() {
  Impl& s = *impl_;
  std::vector<std::shared_ptr<OutgoingConnection>> peers;
  std::vector<std::shared_ptr<IncomingConnection>> incoming;
  {
    std::unique_lock<std::shared_mutex> lock(s.mu);
    if (!s.running) return;
    s.running = false;
    s.state->shutting_down.store(true);
    for (auto& [endpoint, connections] : s.peers) {
      for (auto& connection : connections) {
        if (connection) peers.push_back(connection);
      }
    }
    s.peers.clear();
  }
  incoming = s.state->incoming.CloseAndTakeAll();
  // Every Send that saw running posted before this point, so these closes
  // run after them and fail whatever they queued.
  std::latch closed(
      static_cast<std::ptrdiff_t>(1 + peers.size() + incoming.size()));
  asio::post(s.loops->loop(0), [&s, &closed] {
    s.listener.Close();
    closed.count_down();
  });
  for (auto& connection : peers) {
    connection->Close(SendError::kShutdown, &closed);
  }
  for (auto& connection : incoming) {
    asio::post(connection->executor(), [connection, &closed] {
      connection->Close();
      closed.count_down();
    });
  }
  closed.wait();
  // A Send made by a callback running on a loop while the closes were
  // posted reaches its loop's queue after them; one more turn of every loop
  // runs it, so that its callback too is called (with kShutdown).
  std::latch drained(static_cast<std::ptrdiff_t>(s.loops->size()));
  for (size_t i = 0; i < s.loops->size(); ++i) {
    asio::post(s.loops->loop(i), [&drained] { drained.count_down(); });
  }
  drained.wait();
  s.handler_pool->stop();
  s.handler_pool->join();
  for (auto& gate : s.gates) gate->Close();
  // A shared group goes on running for its owner.
  if (s.own_loops != nullptr) s.own_loops->Stop();
  LogInfo(kServiceLog, "Messaging on " + s.local.ToString() + " stopped");
}

MessagingStats MessagingService::stats() const {
  return impl_->state->counters.Snapshot();
}

}  // namespace keywise::cluster
