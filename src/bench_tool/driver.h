// Driver: sends one phase of bench operations (the load, or the measured
// run) over several native-protocol connections with a fixed number of
// requests in flight, and collects latencies and counts.
//
// Each io thread ("shard") runs its own io_context with its share of the
// connections; each connection carries its share of the in-flight slots. A
// slot sends an operation, and on its reply records it and sends the next,
// so one slot is one request in flight. With a RateSchedule a slot waits for
// the next operation's intended time, and latency counts from that time.
// Prepared ids are node-wide on Keywise, so every connection executes the
// ids prepared once by the runner (a cluster prepares on every node the
// first time an id is unknown there: the runner prepares on each host).
// With several hosts each gets `connections` connections; with a TokenRing
// an operation goes to a connection of the host that owns its partition's
// token (token-aware routing), otherwise to its slot's connection. With
// TabletRoutes too, a token in a tablet learned from a reply's
// tablets-routing-v1 payload goes to one of that tablet's replicas
// instead, and each such payload is learned.
//
// Contract: Start, then the owner thread polls TakeInterval until Done (or
// calls Stop), then Join. Callbacks run on the shards' io threads; shared
// counters are atomics and each shard's interval statistics sit behind its
// own mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bench_tool/histogram.h"
#include "bench_tool/key_distribution.h"
#include "bench_tool/rate_schedule.h"
#include "bench_tool/tablet_routes.h"
#include "bench_tool/token_ring.h"
#include "bench_tool/workload.h"
#include "client/connection.h"
#include "common/status.h"

namespace keywise::bench {

using SteadyClock = std::chrono::steady_clock;

struct PhaseSpec {
  // Fills *op for global operation `index`; false when the phase has no more.
  std::function<bool(uint64_t index, Rng& rng, Op* op)> next;
  std::optional<RateSchedule> schedule;
  // Operations intended before this are warm-up: sent but not recorded.
  SteadyClock::time_point measure_from;
  // No operation is sent at or after this time.
  SteadyClock::time_point deadline = SteadyClock::time_point::max();
  uint64_t max_measured_ops = UINT64_MAX;
};

// Statistics of an interval (or, merged, of the whole phase).
struct PhaseStats {
  LatencyHistogram latency;
  uint64_t ops = 0;
  uint64_t errors = 0;
  uint64_t empty_reads = 0;
  uint64_t rows = 0;
  // Replies carrying a tablets-routing-v1 route: the request reached a node
  // holding no replica of its partition (counted only when the connection
  // asked for the extension).
  uint64_t routed_replies = 0;
  std::string first_error;

  void Merge(const PhaseStats& other);
};

class Driver {
 public:
  struct Config {
    client::ConnectOptions connect;  // host is replaced by each of `hosts`
    std::vector<std::string> hosts;  // empty: connect.host alone
    const TokenRing* ring = nullptr;  // outlives the driver; may be null
    // Outlives the driver; used only with a ring; may be null.
    TabletRoutes* tablets = nullptr;
    Consistency consistency = Consistency::kOne;
    int connections = 1;  // per host
    int threads = 1;
    int concurrency = 1;
    size_t value_size = 100;
    uint64_t seed = 42;
    // Prepared ids by OpKind (empty for kinds the phase does not use).
    std::string prepared[kOpKinds];
  };

  explicit Driver(Config config);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Opens the connections; an error if any fails.
  Status Connect();
  // Starts sending the phase's operations.
  void Start(PhaseSpec spec);
  // Stops sending new operations (those in flight still complete).
  void Stop() { stop_.store(true); }
  // Waits up to `timeout` for every slot to finish; true when all have.
  bool WaitDone(std::chrono::milliseconds timeout);
  // Moves the statistics gathered since the last call into *out (merged).
  void TakeInterval(PhaseStats* out);
  // Requests sent to each host (in `hosts` order) since Connect.
  std::vector<uint64_t> SentPerHost() const;
  // Closes the connections and joins the io threads.
  void Shutdown();

 private:
  struct Shard;
  struct Slot;

  void Issue(Slot* slot);
  void Send(Slot* slot, const Op& op, uint64_t index,
            SteadyClock::time_point intended, bool measured);
  void OnReply(Slot* slot, OpKind kind, SteadyClock::time_point intended,
               bool measured, client::Reply reply);
  void SlotDone();
  std::string_view ValueFor(uint64_t index) const;

  struct Host {
    std::vector<std::shared_ptr<client::Connection>> connections;
    std::atomic<uint64_t> next{0};  // round-robin over connections
    std::atomic<uint64_t> sent{0};
  };

  Config config_;
  std::vector<std::unique_ptr<Shard>> shards_;
  // After shards_: the connections go before the io_contexts they use.
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::string value_pool_;
  PhaseSpec spec_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> next_index_{0};
  std::atomic<uint64_t> measured_sent_{0};
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  int active_slots_ = 0;
  bool shut_down_ = false;
};

}  // namespace keywise::bench
