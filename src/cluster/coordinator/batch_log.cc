#include "cluster/coordinator/batch_log.h"

#include <algorithm>
#include <mutex>
#include <random>
#include <utility>

#include "cluster/coordinator/replay_age.h"
#include "cluster/coordinator/truncations.h"
#include "common/log.h"
#include "net/completion.h"
#include "schema/value_codec.h"
#include "storage/partition_update_codec.h"

namespace keywise::cluster {
namespace {

constexpr int32_t kBatchVersion = 1;

TableDefPtr BatchesTable(Engine& engine) {
  return engine.catalog().snapshot()->FindTable("system", "batches");
}

Status BatchLogTimeout(int received, int block_for, Consistency consistency) {
  ReplicaCounts counts;
  counts.consistency = consistency;
  counts.received = received;
  counts.block_for = block_for;
  counts.write_type = "BATCH_LOG";
  return Status::WithCounts(ErrorCode::kWriteTimeout,
                            "Operation timed out - received only " +
                                std::to_string(received) + " responses.",
                            counts);
}

}  // namespace

BatchLog::BatchLog(Engine* engine, MessagingService* messaging, ViewFn view,
                   TablesFn tables, BatchLogOptions options)
    : engine_(engine),
      messaging_(messaging),
      view_(std::move(view)),
      tables_(std::move(tables)),
      options_(options) {}

BatchLog::~BatchLog() {
  Stop();
}

Status BatchLog::Register() {
  KW_RETURN_IF_ERROR(messaging_->RegisterHandler(
      kBatchStoreVerb, HandlerThread::kIoThread,
      [this](IncomingMessage message, Responder responder) {
        Result<BatchLogEntry> entry = DecodeBatchLogEntry(message.payload);
        Status st = entry.ok() ? Keep(*entry) : entry.status();
        if (st.ok()) {
          responder.Respond(std::string());
        } else {
          responder.Fail(st);
        }
      }));
  return messaging_->RegisterHandler(
      kBatchRemoveVerb, HandlerThread::kIoThread,
      [this](IncomingMessage message, Responder responder) {
        std::optional<Uuid> id = Uuid::FromBytes(message.payload);
        Status st = id ? Drop(*id)
                       : Status::ServerError("Malformed batch remove request");
        if (st.ok()) {
          responder.Respond(std::string());
        } else {
          responder.Fail(st);
        }
      });
}

void BatchLog::Start(ApplyFn apply) {
  apply_ = std::move(apply);
  thread_ = std::thread([this] { Run(); });
}

void BatchLog::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status BatchLog::Keep(const BatchLogEntry& entry) {
  TableDefPtr table = BatchesTable(*engine_);
  if (table == nullptr) return Status::ServerError("No system.batches table");
  const int64_t now = engine_->clock().NowMicros();
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {EncodeUuid(entry.id)};
  RowWrite row;
  row.fragment.liveness = RowMarker(now);
  row.fragment.cells.push_back(LiveCell(table->FindColumn("version")->id,
                                        EncodeInt(kBatchVersion), now));
  const ColumnId mutations = table->FindColumn("mutations")->id;
  for (size_t i = 0; i < entry.mutations.size(); ++i) {
    // A list element: its path is a timeuuid, in insertion order.
    Cell c = LiveCell(mutations, entry.mutations[i], now);
    c.path = EncodeUuid(Uuid::TimeBased(now + static_cast<int64_t>(i)));
    row.fragment.cells.push_back(std::move(c));
  }
  u.rows.push_back(std::move(row));
  KW_RETURN_IF_ERROR(engine_->Apply({u}));
  kept_total_.fetch_add(1);
  return Status::OK();
}

Status BatchLog::Drop(const Uuid& id) {
  TableDefPtr table = BatchesTable(*engine_);
  if (table == nullptr) return Status::OK();
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {EncodeUuid(id)};
  u.partition_deletion = Deletion(engine_->clock().NowMicros(),
                                  engine_->clock().NowSeconds());
  return engine_->Apply({u});
}

Result<std::vector<Uuid>> BatchLog::Store(
    const Uuid& id, const std::vector<std::string>& mutations,
    Consistency consistency) {
  ClusterViewPtr view = view_();
  const Topology& topology = *view->topology;
  const std::string dc = topology.LocalDc();
  std::vector<Uuid> candidates;
  bool others = false;
  for (const NodeStatus& n : topology.nodes()) {
    if (n.info.host_id == topology.local() || n.info.dc != dc ||
        n.info.state == NodeState::kLeft) {
      continue;
    }
    others = true;
    if (n.up && n.info.state == NodeState::kNormal) {
      candidates.push_back(n.info.host_id);
    }
  }
  std::vector<Uuid> chosen;
  if (!candidates.empty()) {
    thread_local std::minstd_rand rng(std::random_device{}());
    std::shuffle(candidates.begin(), candidates.end(), rng);
    chosen.assign(candidates.begin(),
                  candidates.begin() +
                      static_cast<std::ptrdiff_t>(std::min<size_t>(2, candidates.size())));
  } else if (!others || consistency == Consistency::kAny) {
    chosen.push_back(topology.local());  // alone, or ANY: keep it here
  } else {
    ReplicaCounts counts;
    counts.consistency = consistency;
    counts.block_for = 1;
    counts.received = 0;  // alive
    return Status::WithCounts(ErrorCode::kUnavailable,
                              "Cannot achieve consistency level for the batch "
                              "log: no other live node in " +
                                  dc,
                              counts);
  }
  const BatchLogEntry entry{id, mutations};
  const std::string payload = EncodeBatchLogEntry(entry);
  // The copies' answers (net::Completion: a statement fiber is suspended
  // while they come, an ordinary thread blocks).
  struct Acks {
    std::mutex mu;
    size_t left = 0;
    int received = 0;
    net::Completion all;
  };
  auto acks = std::make_shared<Acks>();
  acks->left = chosen.size();
  auto ack = [acks](const Status& st) {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(acks->mu);
      if (st.ok()) ++acks->received;
      last = --acks->left == 0;
    }
    if (last) acks->all.Notify();
  };
  for (const Uuid& node : chosen) {
    if (node == topology.local()) {
      ack(Keep(entry));
      continue;
    }
    const NodeStatus* n = topology.Find(node);
    messaging_->Send(
        Endpoint{n->info.listen_address,
                 static_cast<uint16_t>(n->info.storage_port)},
        kBatchStoreVerb, payload, options_.store_timeout,
        [ack](Response r) { ack(r.status()); });
  }
  // Every Send answers by its timeout: this wait ends by then.
  acks->all.WaitUntil(std::chrono::steady_clock::now() +
                      options_.store_timeout + std::chrono::seconds(1));
  int received = 0;
  {
    std::lock_guard<std::mutex> lock(acks->mu);
    received = acks->received;
  }
  if (received < static_cast<int>(chosen.size())) {
    Remove(id, chosen);
    return BatchLogTimeout(received, static_cast<int>(chosen.size()),
                           consistency);
  }
  return chosen;
}

void BatchLog::Remove(const Uuid& id, const std::vector<Uuid>& nodes) {
  ClusterViewPtr view = view_();
  const Topology& topology = *view->topology;
  for (const Uuid& node : nodes) {
    if (node == topology.local()) {
      if (Status st = Drop(id); !st.ok()) {
        LogWarn("batchlog", "Cannot remove batch " + id.ToString() + ": " +
                                st.ToString());
      }
      continue;
    }
    const NodeStatus* n = topology.Find(node);
    if (n == nullptr) continue;
    // A lost removal only means a later, harmless replay.
    messaging_->Send(Endpoint{n->info.listen_address,
                              static_cast<uint16_t>(n->info.storage_port)},
                     kBatchRemoveVerb, std::string(id.bytes_view()),
                     options_.store_timeout, [](Response) {});
  }
}

int64_t BatchLog::Pending() const {
  TableDefPtr table = BatchesTable(*engine_);
  if (table == nullptr) return 0;
  ReadOptions read;
  read.now_seconds = engine_->clock().NowSeconds();
  auto scan = engine_->ScanTable(*table, kMinimumToken, {}, {}, read);
  if (!scan.ok()) return 0;
  int64_t n = 0;
  LiveRow row;
  while ((*scan)->NextPartition()) {
    while ((*scan)->NextRow(&row)) ++n;
  }
  return n;
}

void BatchLog::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, options_.replay_interval);
    if (stop_) break;
    lock.unlock();
    ReplayDue();
    lock.lock();
  }
}

void BatchLog::ReplayDue() {
  TableDefPtr table = BatchesTable(*engine_);
  if (table == nullptr) return;
  ReadOptions read;
  read.now_seconds = engine_->clock().NowSeconds();
  const int64_t now_ms = engine_->clock().NowMicros() / 1000;
  auto scan = engine_->ScanTable(*table, kMinimumToken, {}, {}, read);
  if (!scan.ok()) return;
  const ColumnId mutations = table->FindColumn("mutations")->id;
  struct Due {
    Uuid id;
    std::vector<std::string> mutations;
  };
  std::vector<Due> due;
  LiveRow row;
  while ((*scan)->NextPartition()) {
    std::optional<Uuid> id = Uuid::FromBytes((*scan)->serialized_partition_key());
    if (!id || now_ms - id->UnixMillis() < options_.replay_after.count()) {
      continue;
    }
    Due d{*id, {}};
    while ((*scan)->NextRow(&row)) {
      for (const Cell& c : row.cells) {
        if (c.column == mutations) d.mutations.push_back(c.value);
      }
    }
    due.push_back(std::move(d));
  }
  const std::map<Uuid, int64_t> truncations =
      due.empty() ? std::map<Uuid, int64_t>{} : TruncationTimes(*engine_);
  for (const Due& d : due) {
    std::vector<PartitionUpdate> updates;
    bool dropped_table = false;
    size_t expired = 0;
    for (const std::string& m : d.mutations) {
      Result<PartitionUpdate> u = DecodePartitionUpdate(m, tables_());
      if (!u.ok()) {
        dropped_table = true;  // its table is gone: nothing to write there
        continue;
      }
      if (!WithinGcGrace(d.id.UnixMillis(), now_ms,
                         u->table->options.gc_grace_seconds) ||
          TruncatedSince(truncations, u->table->id, d.id.UnixMillis())) {
        ++expired;  // it could bring back rows deleted since
        continue;
      }
      updates.push_back(*std::move(u));
    }
    Status st = updates.empty() ? Status::OK() : apply_(updates);
    if (!st.ok()) {
      LogWarn("batchlog", "Replaying batch " + d.id.ToString() +
                              " failed (retrying later): " + st.ToString());
      continue;
    }
    LogInfo("batchlog",
            "Replayed batch " + d.id.ToString() + " (" +
                std::to_string(updates.size()) + " partitions" +
                (dropped_table ? ", some of a dropped table" : "") +
                (expired > 0 ? ", " + std::to_string(expired) +
                                   " older than their table's "
                                   "gc_grace_seconds or last TRUNCATE left "
                                   "out"
                             : "") +
                ")");
    (void)Drop(d.id);
  }
}

}  // namespace keywise::cluster
