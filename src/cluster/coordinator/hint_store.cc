#include "cluster/coordinator/hint_store.h"

#include <future>
#include <map>
#include <optional>
#include <utility>

#include "cluster/coordinator/replay_age.h"
#include "cluster/coordinator/truncations.h"
#include "cluster/coordinator/verbs.h"
#include "common/log.h"
#include "schema/value_codec.h"
#include "storage/partition_update_codec.h"
#include "storage/table_lookup.h"

namespace keywise::cluster {
namespace {

constexpr size_t kReplayBatch = 128;
// Delivered journal hints deleted in one write (or fewer, each pass).
constexpr size_t kDeleteBatch = 512;
constexpr int32_t kMessageVersion = 1;

TableDefPtr HintsTable(Engine& engine) {
  return engine.catalog().snapshot()->FindTable("system", "hints");
}

}  // namespace

HintStore::HintStore(Engine* engine, MessagingService* messaging,
                     TopologyFn topology, HintOptions options)
    : engine_(engine),
      messaging_(messaging),
      topology_(std::move(topology)),
      options_(options) {}

HintStore::~HintStore() {
  Stop();
}

void HintStore::Start() {
  // Hints stored before a restart are replayed too.
  if (TableDefPtr table = HintsTable(*engine_)) {
    ReadOptions read;
    read.now_seconds = engine_->clock().NowSeconds();
    auto scan = engine_->ScanTable(*table, kMinimumToken, {}, {}, read);
    if (scan.ok()) {
      LiveRow row;
      int64_t n = 0;
      while ((*scan)->NextPartition()) {
        while ((*scan)->NextRow(&row)) ++n;
      }
      pending_.store(n);
    }
  }
  thread_ = std::thread([this] { Run(); });
}

void HintStore::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HintStore::OnTopology(const Topology& topology) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, since] : down_since_) {
    if (topology.Find(id) == nullptr) sweep_due_ = true;  // removed
  }
  for (const NodeStatus& n : topology.nodes()) {
    if (n.info.state == NodeState::kLeft &&
        left_.insert(n.info.host_id).second) {
      sweep_due_ = true;  // newly seen left
    }
    if (n.up) {
      down_since_.erase(n.info.host_id);
    } else {
      down_since_.emplace(n.info.host_id, now);
    }
  }
  cv_.notify_all();  // a node that came back gets its hints now
}

std::optional<PartitionUpdate> HintStore::Row(const Uuid& target,
                                              const std::string& mutation,
                                              bool in_flight, Uuid* id) {
  if (!options_.enabled) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = down_since_.find(target);
    if (it != down_since_.end() &&
        std::chrono::steady_clock::now() - it->second > options_.max_window) {
      return std::nullopt;
    }
  }
  TableDefPtr table = HintsTable(*engine_);
  if (table == nullptr) return std::nullopt;
  const int64_t now = engine_->clock().NowMicros();
  *id = Uuid::TimeBased(now);
  if (in_flight) {
    std::lock_guard<std::mutex> lock(flight_mu_);
    in_flight_.insert(*id);
  }
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {EncodeUuid(target)};
  RowWrite row;
  row.clustering = {EncodeUuid(*id)};
  row.fragment.liveness = RowMarker(now);
  row.fragment.cells.push_back(
      LiveCell(table->FindColumn("message_version")->id,
               EncodeInt(kMessageVersion), now));
  row.fragment.cells.push_back(
      LiveCell(table->FindColumn("mutation")->id, mutation, now));
  u.rows.push_back(std::move(row));
  return u;
}

void HintStore::Written(int64_t rows) {
  pending_.fetch_add(rows);
  written_.fetch_add(rows, std::memory_order_relaxed);
}

void HintStore::Delivered(const Uuid& target, const Uuid& id) {
  replayed_.fetch_add(1, std::memory_order_relaxed);
  bool batch_full;
  {
    std::lock_guard<std::mutex> lock(flight_mu_);
    delivered_.emplace_back(target, id);  // in flight until deleted
    batch_full = delivered_.size() >= kDeleteBatch;
  }
  // Deleted in batches: by the next pass, or at once when one is full.
  if (batch_full) cv_.notify_all();
}

void HintStore::Release(const Uuid& id) {
  std::lock_guard<std::mutex> lock(flight_mu_);
  in_flight_.erase(id);
}

int64_t HintStore::InFlightCount() {
  std::lock_guard<std::mutex> lock(flight_mu_);
  return static_cast<int64_t>(in_flight_.size());
}

bool HintStore::InFlight(const Uuid& id) {
  std::lock_guard<std::mutex> lock(flight_mu_);
  return in_flight_.contains(id);
}

void HintStore::DeleteDelivered() {
  std::vector<std::pair<Uuid, Uuid>> delivered;
  {
    std::lock_guard<std::mutex> lock(flight_mu_);
    delivered.swap(delivered_);
  }
  if (delivered.empty()) return;
  TableDefPtr table = HintsTable(*engine_);
  if (table == nullptr) return;
  const int64_t now = engine_->clock().NowMicros();
  std::map<Uuid, PartitionUpdate> deletes;  // one per target
  for (const auto& [target, id] : delivered) {
    PartitionUpdate& del = deletes[target];
    del.table = table;
    del.partition_key = {EncodeUuid(target)};
    RowWrite tombstone;
    tombstone.clustering = {EncodeUuid(id)};
    tombstone.fragment.deletion =
        Deletion(now, static_cast<int32_t>(now / 1000000));
    del.rows.push_back(std::move(tombstone));
  }
  std::vector<PartitionUpdate> updates;
  for (auto& [target, del] : deletes) updates.push_back(std::move(del));
  const bool deleted = engine_->Apply(updates).ok();
  std::lock_guard<std::mutex> lock(flight_mu_);
  for (const auto& [target, id] : delivered) {
    if (deleted) {
      in_flight_.erase(id);
    } else {
      delivered_.emplace_back(target, id);  // tried again next time
    }
  }
  if (deleted) pending_.fetch_sub(static_cast<int64_t>(delivered.size()));
}

bool HintStore::Store(const Uuid& target, const std::string& mutation) {
  Uuid id;
  std::optional<PartitionUpdate> row = Row(target, mutation, false, &id);
  if (!row) return false;
  Status st = engine_->Apply({*row});
  if (!st.ok()) {
    LogWarn("hints", "Cannot store a hint for " + target.ToString() + ": " +
                         st.ToString());
    return false;
  }
  Written(1);
  return true;
}

void HintStore::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, options_.replay_interval);
    if (stop_) continue;
    lock.unlock();
    DeleteDelivered();
    lock.lock();
    // Journaled view updates still in flight are their senders': with
    // nothing else pending there is nothing to replay (a pass reads the
    // target's whole partition, tombstones of delivered ones included).
    if (stop_ || pending_.load() <= InFlightCount()) continue;
    const bool sweep = sweep_due_;
    sweep_due_ = false;
    lock.unlock();
    TopologyPtr topology = topology_();
    if (sweep) DropHintsOfGoneNodes(*topology);
    for (const NodeStatus& n : topology->nodes()) {
      if (!n.up || n.info.host_id == topology->local()) continue;
      while (ReplayTo(n)) {
      }
    }
    lock.lock();
  }
}

void HintStore::DropHintsOfGoneNodes(const Topology& topology) {
  TableDefPtr table = HintsTable(*engine_);
  if (table == nullptr) return;
  ReadOptions read;
  read.now_seconds = engine_->clock().NowSeconds();
  auto scan = engine_->ScanTable(*table, kMinimumToken, {}, {}, read);
  if (!scan.ok()) return;
  std::map<Uuid, int64_t> gone;  // target -> its hints
  LiveRow row;
  while ((*scan)->NextPartition()) {
    std::optional<Uuid> target =
        Uuid::FromBytes((*scan)->serialized_partition_key());
    if (!target) continue;
    const NodeStatus* n = topology.Find(*target);
    if (n != nullptr && n->info.state != NodeState::kLeft) continue;
    int64_t rows = 0;
    while ((*scan)->NextRow(&row)) ++rows;
    if (rows > 0) gone[*target] = rows;
  }
  for (const auto& [target, rows] : gone) {
    PartitionUpdate del;
    del.table = table;
    del.partition_key = {EncodeUuid(target)};
    del.partition_deletion =
        Deletion(engine_->clock().NowMicros(), read.now_seconds);
    if (!engine_->Apply({del}).ok()) continue;
    pending_.fetch_sub(rows);
    LogInfo("hints", "Dropped " + std::to_string(rows) + " hints for " +
                         target.ToString() + ", which has left the cluster");
  }
}

bool HintStore::ReplayTo(const NodeStatus& target) {
  TableDefPtr table = HintsTable(*engine_);
  if (table == nullptr) return false;
  ReadOptions read;
  read.now_seconds = engine_->clock().NowSeconds();
  auto reader = engine_->ReadPartition(
      *table, {EncodeUuid(target.info.host_id)}, {}, {}, read);
  if (!reader.ok()) return false;
  const ColumnDef* mutation = table->FindColumn("mutation");
  const Endpoint peer{target.info.listen_address,
                      static_cast<uint16_t>(target.info.storage_port)};
  const TableLookup tables = TablesById(engine_->catalog().snapshot());
  const std::map<Uuid, int64_t> truncations = TruncationTimes(*engine_);
  const int64_t now_millis = engine_->clock().NowMicros() / 1000;
  LiveRow row;
  size_t sent = 0;
  size_t expired = 0;
  std::vector<PartitionUpdate> done;
  auto forget = [&] {  // the hint goes, sent or not
    PartitionUpdate del;
    del.table = table;
    del.partition_key = {EncodeUuid(target.info.host_id)};
    RowWrite tombstone;
    tombstone.clustering = row.clustering;
    tombstone.fragment.deletion =
        Deletion(engine_->clock().NowMicros(), read.now_seconds);
    del.rows.push_back(std::move(tombstone));
    done.push_back(std::move(del));
  };
  while (sent + expired < kReplayBatch && (*reader)->Next(&row)) {
    std::string payload;
    for (const Cell& c : row.cells) {
      if (c.column == mutation->id) payload = c.value;
    }
    Result<Uuid> hint_id = row.clustering.empty()
                               ? Result<Uuid>(Status::ServerError("no hint id"))
                               : DecodeUuid(row.clustering[0]);
    if (hint_id.ok() && InFlight(*hint_id)) continue;  // its sender has it
    Result<PartitionUpdate> update = DecodePartitionUpdate(payload, tables);
    if (!hint_id.ok() || !update.ok() ||
        !WithinGcGrace(hint_id->UnixMillis(), now_millis,
                       update->table->options.gc_grace_seconds) ||
        TruncatedSince(truncations, update->table->id,
                       hint_id->UnixMillis())) {
      // Past its table's gc_grace_seconds, from before its table's last
      // TRUNCATE, for a table dropped here, or unreadable: dropped, not
      // replayed.
      ++expired;
      forget();
      continue;
    }
    if (std::optional<Status> rerouted =
            reroute_ ? reroute_(target.info.host_id, *update) : std::nullopt) {
      // The tablet moved away from the target: the hint went to the
      // partition's replicas now.
      if (!rerouted->ok()) break;  // try again later
      ++sent;
      forget();
      continue;
    }
    std::promise<Response> answered;
    messaging_->Send(
        peer, kMutationVerb, payload, options_.send_timeout,
        [&answered](Response r) { answered.set_value(std::move(r)); });
    // Any refusal is tried again later, "Unknown table id" too: this node
    // still knows the table (it decoded the hint), so the target's schema
    // lags (a view created a moment ago); were the table dropped, this
    // node learns it too and drops the hint above.
    if (!answered.get_future().get().ok()) break;
    ++sent;
    forget();
  }
  if (!done.empty()) {
    Status st = engine_->Apply(done);
    if (st.ok()) {
      // Counted as expired before it stops counting as pending, so a
      // reader that sees it gone sees it counted.
      expired_.fetch_add(static_cast<int64_t>(expired));
      pending_.fetch_sub(static_cast<int64_t>(done.size()));
      replayed_.fetch_add(static_cast<uint64_t>(sent),
                          std::memory_order_relaxed);
      if (sent > 0) {
        LogInfo("hints", "Replayed " + std::to_string(sent) + " hints to " +
                             target.info.host_id.ToString());
      }
      if (expired > 0) {
        LogInfo("hints", "Dropped " + std::to_string(expired) + " hints for " +
                             target.info.host_id.ToString() +
                             " older than their table's gc_grace_seconds "
                             "or last TRUNCATE, or of a dropped table");
      }
    }
  }
  return sent + expired == kReplayBatch;
}

}  // namespace keywise::cluster
