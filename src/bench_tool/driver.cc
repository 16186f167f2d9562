#include "bench_tool/driver.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <future>
#include <thread>

namespace keywise::bench {
namespace {

namespace asio = boost::asio;

// 1 MiB of random bytes; each value is a slice of it, so values do not
// compress away the way a repeated constant would.
constexpr size_t kValuePoolBytes = 1 << 20;

// In fixed-rate mode an operation may go out up to this much before its
// intended time: timers are rounded down to this grid so that the slots due
// in one cell wake together, which bounds the io thread's wake-ups at
// 4,000/s whatever the rate. The latency of an early operation counts from
// its real send, so it is never under-reported.
constexpr auto kTimerGrid = std::chrono::microseconds(250);

SteadyClock::time_point RoundDownToGrid(SteadyClock::time_point t) {
  auto since = t.time_since_epoch();
  auto grid = std::chrono::duration_cast<SteadyClock::duration>(kTimerGrid);
  return SteadyClock::time_point(since - since % grid);
}

std::string BigEndian64(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  return out;
}

}  // namespace

void PhaseStats::Merge(const PhaseStats& other) {
  latency.Merge(other.latency);
  ops += other.ops;
  errors += other.errors;
  empty_reads += other.empty_reads;
  rows += other.rows;
  routed_replies += other.routed_replies;
  if (first_error.empty()) first_error = other.first_error;
}

struct Driver::Shard {
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{
      io.get_executor()};
  std::thread thread;
  Rng rng;
  std::vector<std::shared_ptr<client::Connection>> connections;
  std::mutex mu;
  PhaseStats interval;  // guarded by mu
};

struct Driver::Slot {
  Slot(Shard* s, std::shared_ptr<client::Connection> c, size_t h)
      : shard(s), connection(std::move(c)), host(h), timer(s->io) {}
  Shard* shard;
  std::shared_ptr<client::Connection> connection;
  size_t host;  // of `connection`
  asio::steady_timer timer;
};

Driver::Driver(Config config) : config_(std::move(config)) {
  Rng rng(config_.seed);
  value_pool_.resize(kValuePoolBytes + config_.value_size);
  for (char& c : value_pool_) c = static_cast<char>(rng());
  int threads = std::max(1, std::min(config_.threads, config_.connections));
  for (int i = 0; i < threads; ++i) {
    auto shard = std::make_unique<Shard>();
    shard->rng.seed(config_.seed * 1000003 + static_cast<uint64_t>(i));
    Shard* raw = shard.get();
    shard->thread = std::thread([raw] { raw->io.run(); });
    shards_.push_back(std::move(shard));
  }
}

Driver::~Driver() {
  Shutdown();
}

Status Driver::Connect() {
  std::vector<std::string> hosts = config_.hosts;
  if (hosts.empty()) hosts.push_back(config_.connect.host);
  const int per_host = std::max(1, config_.connections);
  const size_t total = hosts.size() * static_cast<size_t>(per_host);
  struct Opened {
    Shard* shard;
    std::shared_ptr<client::Connection> connection;
    size_t host;
  };
  std::vector<Opened> opened;
  std::vector<std::future<client::Reply>> ready;
  for (size_t h = 0; h < hosts.size(); ++h) {
    hosts_.push_back(std::make_unique<Host>());
  }
  for (size_t i = 0; i < total; ++i) {
    const size_t h = i % hosts.size();
    Shard* shard = shards_[i % shards_.size()].get();
    client::ConnectOptions connect = config_.connect;
    connect.host = hosts[h];
    auto connection = client::Connection::Create(shard->io, connect);
    auto promise = std::make_shared<std::promise<client::Reply>>();
    ready.push_back(promise->get_future());
    connection->Connect(
        [promise](client::Reply r) { promise->set_value(std::move(r)); });
    shard->connections.push_back(connection);
    hosts_[h]->connections.push_back(connection);
    opened.push_back(Opened{shard, connection, h});
  }
  for (auto& f : ready) {
    client::Reply r = f.get();
    if (!r.ok()) return r.status;
  }
  // Spread the slots evenly: connection i gets concurrency / n, plus one for
  // the first concurrency % n connections.
  const int concurrency = std::max(1, config_.concurrency);
  for (int i = 0; i < concurrency; ++i) {
    const Opened& o = opened[static_cast<size_t>(i) % opened.size()];
    slots_.push_back(std::make_unique<Slot>(o.shard, o.connection, o.host));
  }
  return Status::OK();
}

std::vector<uint64_t> Driver::SentPerHost() const {
  std::vector<uint64_t> out;
  for (const auto& h : hosts_) out.push_back(h->sent.load());
  return out;
}

void Driver::Start(PhaseSpec spec) {
  spec_ = std::move(spec);
  stop_.store(false);
  next_index_.store(0);
  measured_sent_.store(0);
  {
    std::lock_guard lock(done_mu_);
    active_slots_ = static_cast<int>(slots_.size());
  }
  for (auto& slot : slots_) {
    Slot* s = slot.get();
    asio::post(s->shard->io, [this, s] { Issue(s); });
  }
}

bool Driver::WaitDone(std::chrono::milliseconds timeout) {
  std::unique_lock lock(done_mu_);
  return done_cv_.wait_for(lock, timeout,
                           [this] { return active_slots_ == 0; });
}

void Driver::SlotDone() {
  std::lock_guard lock(done_mu_);
  if (--active_slots_ == 0) done_cv_.notify_all();
}

std::string_view Driver::ValueFor(uint64_t index) const {
  size_t offset = static_cast<size_t>((index * 2654435761u) % kValuePoolBytes);
  return std::string_view(value_pool_).substr(offset, config_.value_size);
}

void Driver::Issue(Slot* slot) {
  if (stop_.load(std::memory_order_relaxed)) return SlotDone();
  uint64_t index = next_index_.fetch_add(1, std::memory_order_relaxed);
  Op op;
  if (!spec_.next(index, slot->shard->rng, &op)) return SlotDone();
  SteadyClock::time_point now = SteadyClock::now();
  SteadyClock::time_point intended =
      spec_.schedule ? spec_.schedule->IntendedStart(index) : now;
  if (now >= spec_.deadline || intended >= spec_.deadline) {
    stop_.store(true);
    return SlotDone();
  }
  bool measured = intended >= spec_.measure_from;
  if (measured && spec_.max_measured_ops != UINT64_MAX &&
      measured_sent_.fetch_add(1, std::memory_order_relaxed) >=
          spec_.max_measured_ops) {
    stop_.store(true);
    return SlotDone();
  }
  if (RoundDownToGrid(intended) > now) {
    slot->timer.expires_at(RoundDownToGrid(intended));
    slot->timer.async_wait([this, slot, op, index, intended,
                            measured](const boost::system::error_code&) {
      Send(slot, op, index, intended, measured);
    });
    return;
  }
  Send(slot, op, index, intended, measured);
}

void Driver::Send(Slot* slot, const Op& op, uint64_t index,
                  SteadyClock::time_point intended, bool measured) {
  client::QueryParams params;
  params.consistency = config_.consistency;
  params.skip_metadata = true;
  params.values.reserve(3);
  if (op.kind == OpKind::kCasUpdate) {  // SET v = ? WHERE pk = ? AND ck = ?
    params.values.push_back(
        client::BoundValue::Of(std::string(ValueFor(index))));
  }
  params.values.push_back(client::BoundValue::Of(BigEndian64(op.pk)));
  params.values.push_back(client::BoundValue::Of(BigEndian64(op.ck)));
  if (op.kind == OpKind::kInsert || op.kind == OpKind::kCasInsert) {
    params.values.push_back(
        client::BoundValue::Of(std::string(ValueFor(index))));
  }
  OpKind kind = op.kind;
  // Sent early (see kTimerGrid): count from the send.
  intended = std::min(intended, SteadyClock::now());
  client::Connection* connection = slot->connection.get();
  size_t host = slot->host;
  if (config_.ring != nullptr) {
    const Token token = TokenOfKey(BigEndian64(op.pk));
    int owner = config_.tablets != nullptr
                    ? config_.tablets->ReplicaOf(token, index)
                    : -1;
    if (owner < 0) owner = config_.ring->OwnerOf(token);
    if (owner >= 0 && static_cast<size_t>(owner) < hosts_.size()) {
      Host& h = *hosts_[static_cast<size_t>(owner)];
      host = static_cast<size_t>(owner);
      connection = h.connections[h.next.fetch_add(1, std::memory_order_relaxed) %
                                 h.connections.size()]
                       .get();
    }
  }
  hosts_[host]->sent.fetch_add(1, std::memory_order_relaxed);
  connection->Execute(
      config_.prepared[static_cast<int>(kind)], params,
      [this, slot, kind, intended, measured](client::Reply reply) {
        // A routed request may complete on another shard's thread: the
        // slot (its timer) belongs to its own shard.
        if (config_.ring != nullptr && shards_.size() > 1) {
          asio::post(slot->shard->io, [this, slot, kind, intended, measured,
                                       reply = std::move(reply)]() mutable {
            OnReply(slot, kind, intended, measured, std::move(reply));
          });
          return;
        }
        OnReply(slot, kind, intended, measured, std::move(reply));
      });
}

void Driver::OnReply(Slot* slot, OpKind kind, SteadyClock::time_point intended,
                     bool measured, client::Reply reply) {
  bool routed = false;
  if (!reply.result.custom_payload.empty()) {
    // An undecodable route is not learned; the reply itself still counts.
    Result<std::optional<protocol::TabletRoute>> route =
        protocol::DecodeTabletRoutePayload(reply.result.custom_payload);
    if (route.ok() && route->has_value()) {
      routed = true;
      if (config_.tablets != nullptr) config_.tablets->Learn(**route);
    }
  }
  if (measured) {
    auto latency = std::chrono::duration_cast<std::chrono::nanoseconds>(
        SteadyClock::now() - intended);
    std::lock_guard lock(slot->shard->mu);
    PhaseStats& stats = slot->shard->interval;
    if (routed) ++stats.routed_replies;
    if (reply.ok()) {
      stats.latency.Record(
          static_cast<uint64_t>(std::max<int64_t>(0, latency.count())));
      ++stats.ops;
      stats.rows += reply.result.rows.size();
      if (kind == OpKind::kRead && reply.result.rows.empty())
        ++stats.empty_reads;
    } else {
      ++stats.errors;
      if (stats.first_error.empty())
        stats.first_error = reply.status.ToString();
    }
  }
  // A lost connection fails every later request at once; stop rather than
  // spin through errors.
  if (reply.source == client::ReplySource::kConnection) stop_.store(true);
  Issue(slot);
}

void Driver::TakeInterval(PhaseStats* out) {
  for (auto& shard : shards_) {
    std::lock_guard lock(shard->mu);
    out->Merge(shard->interval);
    shard->interval.latency.Reset();
    shard->interval.ops = shard->interval.errors = 0;
    shard->interval.empty_reads = shard->interval.rows = 0;
    shard->interval.routed_replies = 0;
    shard->interval.first_error.clear();
  }
}

void Driver::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  for (auto& shard : shards_) {
    for (auto& connection : shard->connections) connection->Close();
    shard->work.reset();
    Shard* raw = shard.get();
    // Runs after the Close handlers posted above.
    asio::post(shard->io, [raw] { raw->io.stop(); });
  }
  for (auto& shard : shards_) {
    if (shard->thread.joinable()) shard->thread.join();
  }
  slots_.clear();
  for (auto& host : hosts_) host->connections.clear();
}

}  // namespace keywise::bench
