// The coordinator's token-range reads: ScanTable over the table's tablets
// in token order, each tablet's partitions read raw from the replicas the
// consistency level needs, merged partition by partition up to where every
// replica answered, repaired, and resolved through storage's raw scanner.
// Also TRUNCATE on every node.
#include <optional>
#include <utility>

#include "cluster/coordinator.h"
#include "cluster/fanout.h"
#include "storage/raw_merge.h"
#include "storage/raw_resolve.h"

namespace keywise::cluster {
namespace {

// Scan order of partitions: token, then serialized key.
int ComparePartitions(const RawPartition& a, const RawPartition& b) {
  if (a.token != b.token) return a.token < b.token ? -1 : 1;
  return a.partition_key.compare(b.partition_key);
}

class ReplicatedScanner final : public TableScanner {
 public:
  ReplicatedScanner(Coordinator* coordinator, Coordinator::Placement p,
                    Consistency cl, Token start, ClusteringSlice hull,
                    ReadOptions options)
      : coordinator_(coordinator),
        p_(std::move(p)),
        cl_(cl),
        start_(start),
        hull_(std::move(hull)),
        options_(options),
        deadline_(std::chrono::steady_clock::now() +
                  coordinator->options().read_timeout) {
    tablet_ = p_.tablets->TabletOf(start);
  }

  bool NextPartition() override {
    if (!status_.ok()) return false;
    // Leaving a partition a batch cut: its rest is skipped.
    if (batch_ && cut_ && current_ == after_->partition_key) {
      skip_ = current_;
    }
    while (true) {
      if (batch_ && batch_->NextPartition()) {
        if (skip_ && batch_->serialized_partition_key() == *skip_) {
          skip_.reset();
          continue;
        }
        current_ = batch_->serialized_partition_key();
        return true;
      }
      if (!FetchNext()) return false;
    }
  }
  Token token() const override { return batch_->token(); }
  const std::string& serialized_partition_key() const override {
    return batch_->serialized_partition_key();
  }
  const std::vector<Cell>& static_cells() const override {
    return batch_->static_cells();
  }
  bool NextRow(LiveRow* row) override {
    while (status_.ok()) {
      if (batch_->NextRow(row)) return true;
      // The batch cut this partition: its rows go on in the next batch,
      // whose first partition is the same one.
      if (!cut_ || current_ != after_->partition_key) return false;
      if (!FetchNext()) return false;
      if (!batch_->NextPartition() ||
          batch_->serialized_partition_key() != current_) {
        return false;  // nothing more of it was stored
      }
    }
    return false;
  }
  Status status() const override { return status_; }

 private:
  // Reads the next batch: more of the current tablet, or the next one.
  bool FetchNext() {
    while (true) {
      if (!cut_) {
        if (started_) ++tablet_;
        started_ = true;
        if (tablet_ >= p_.tablets->count()) return false;
        after_.reset();
      }
      ScanRawRequest request;
      request.table_id = p_.table->id;
      Token first = p_.tablets->FirstToken(tablet_);
      request.tokens = {first < start_ ? start_ : first,
                        p_.tablets->LastToken(tablet_)};
      request.slice = hull_;
      request.has_after = after_.has_value();
      if (after_) request.after = *after_;
      request.row_limit = coordinator_->options().batch_rows;
      request.now_seconds = options_.now_seconds;
      const TabletInfo& tablet = p_.tablets->tablets[tablet_];
      const std::vector<Uuid>& replicas = tablet.ReadReplicas();
      const ReplicationSpec spec =
          TabletSpec(p_.spec, *p_.view->topology, replicas);
      Status available =
          AssureAvailable(cl_, spec, *p_.view->topology, replicas);
      if (!available.ok()) return Fail(available);
      std::vector<Uuid> contacts =
          ReadContacts(cl_, spec, *p_.view->topology, replicas);
      Result<RawScan> scan =
          coordinator_->ScanMerged(p_, contacts, request, cl_, deadline_);
      if (!scan.ok()) return Fail(scan.status());
      cut_ = !scan->complete;
      if (cut_) after_ = scan->resume_after();
      if (scan->partitions.empty() && !cut_) continue;
      batch_ = NewRawTableScanner(std::move(scan->partitions), options_);
      return true;
    }
  }
  bool Fail(Status st) {
    status_ = std::move(st);
    return false;
  }

  Coordinator* const coordinator_;
  const Coordinator::Placement p_;
  const Consistency cl_;
  const Token start_;
  const ClusteringSlice hull_;
  const ReadOptions options_;
  const std::chrono::steady_clock::time_point deadline_;
  TabletId tablet_ = 0;
  bool started_ = false;
  bool cut_ = false;  // the last batch stopped inside the tablet
  std::optional<RawScanPosition> after_;
  std::unique_ptr<TableScanner> batch_;
  std::string current_;
  std::optional<std::string> skip_;
  Status status_;
};

}  // namespace

Result<RawScan> Coordinator::ScanMerged(
    const Placement& p, const std::vector<Uuid>& contacts,
    const ScanRawRequest& request, Consistency cl,
    std::chrono::steady_clock::time_point deadline, size_t* repaired) {
  const Topology& topology = *p.view->topology;
  TableLookup tables = replica_->Tables();
  std::vector<Uuid> answered;
  std::vector<RawScan> answers = GatherRead<RawScan>(
      *this, topology, contacts,
      p.tablets->TabletAt(request.tokens.start).ReadReplicas(), kScanRawVerb,
      EncodeScanRawRequest(request),
      [&]() -> Result<RawScan> {
        return engine_->ScanRaw(p.table, request.tokens, request.slice,
                                request.has_after ? &request.after : nullptr,
                                request.row_limit,
                                ReplicaReadOptions(request.now_seconds, false));
      },
      [tables](std::string bytes) { return DecodeRawScan(bytes, tables); },
      deadline, &answered);
  const int received = static_cast<int>(answers.size());
  if (received < static_cast<int>(contacts.size())) {
    return ReadTimeoutError(cl, received, static_cast<int>(contacts.size()));
  }
  if (answers.size() == 1) return std::move(answers[0]);

  // Every replica answered up to the earliest place an incomplete one
  // stopped (the cut partition, read up to its `last`).
  const RawPartition* cut = nullptr;
  for (const RawScan& a : answers) {
    if (a.complete) continue;
    const RawPartition& last = a.partitions.back();
    if (cut == nullptr || ComparePartitions(last, *cut) < 0) cut = &last;
  }
  std::map<std::pair<Token, std::string>, std::vector<const RawPartition*>>
      by_key;
  for (size_t i = 0; i < answers.size(); ++i) {
    for (const RawPartition& part : answers[i].partitions) {
      if (cut != nullptr && ComparePartitions(part, *cut) > 0) break;
      auto& slot = by_key[{part.token, part.partition_key}];
      slot.resize(answers.size(), nullptr);
      slot[i] = &part;
    }
  }
  RawScan out;
  out.complete = cut == nullptr;
  std::vector<std::vector<RawPartition>> repairs(answered.size());
  for (auto& [key, inputs] : by_key) {
    std::vector<RawPartition> empties;
    empties.reserve(inputs.size());
    std::vector<const RawPartition*> all;
    for (const RawPartition* in : inputs) {
      if (in == nullptr) {
        empties.push_back(EmptyRawPartition(p.table, key.second, false));
        all.push_back(&empties.back());
      } else {
        all.push_back(in);
      }
    }
    KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions(all));
    for (size_t i = 0; i < answered.size(); ++i) {
      if (merge.Stale(i)) repairs[i].push_back(std::move(merge.repairs[i]));
    }
    out.partitions.push_back(std::move(merge.merged));
  }
  for (size_t i = 0; i < answered.size(); ++i) {
    for (const RawPartition& r : repairs[i]) {
      KW_RETURN_IF_ERROR(Repair(p, {answered[i]}, {r}, cl, deadline));
      if (repaired != nullptr) ++*repaired;
    }
  }
  return out;
}

Result<std::unique_ptr<TableScanner>> Coordinator::ScanTable(
    const TableDef& table, Token start_token, const ClusteringBound& start,
    const ClusteringBound& end, const query::ReadCall& call) {
  KW_ASSIGN_OR_RETURN(Placement p, Place(table));
  if (!p.spec.Replicated()) {
    return engine_->ScanTable(table, start_token, start, end, call.storage);
  }
  const auto cl = static_cast<Consistency>(call.consistency);
  KW_RETURN_IF_ERROR(ValidateForRead(cl));
  return std::unique_ptr<TableScanner>(std::make_unique<ReplicatedScanner>(
      this, std::move(p), cl, start_token, ClusteringSlice{start, end},
      call.storage));
}

Status Coordinator::TruncateEverywhere(const TableDef& table) {
  ClusterViewPtr view = view_();
  std::vector<Uuid> nodes;
  for (const NodeStatus& n : view->topology->nodes()) {
    if (n.info.state == NodeState::kLeft) continue;
    if (!n.up) {
      ReplicaCounts counts;
      counts.consistency = static_cast<uint16_t>(Consistency::kAll);
      counts.block_for = static_cast<int32_t>(view->topology->nodes().size());
      return Status::WithCounts(
          ErrorCode::kUnavailable,
          "Cannot achieve consistency level ALL: TRUNCATE needs every node "
          "up",
          counts);
    }
    nodes.push_back(n.info.host_id);
  }
  std::vector<Result<bool>> acks = Gather<bool>(
      *this, *view->topology, nodes, kTruncateVerb,
      std::string(table.id.bytes_view()),
      [&]() -> Result<bool> {
        KW_RETURN_IF_ERROR(engine_->DeleteTableData(table.storage_id));
        return true;
      },
      [](std::string) -> Result<bool> { return true; },
      std::chrono::steady_clock::now() + options_.write_timeout);
  for (const Result<bool>& a : acks) {
    if (!a.ok()) {
      return Status(ErrorCode::kTruncateError,
                    "Error during truncate: " + a.status().message());
    }
  }
  return Status::OK();
}

}  // namespace keywise::cluster
