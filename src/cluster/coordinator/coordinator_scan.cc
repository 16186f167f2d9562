// The coordinator's token-range reads: ScanTable over the table's tablets
// in token order, each tablet's partitions read raw from the replicas the
// consistency level needs, merged partition by partition up to where every
// replica answered, repaired, and read through storage's batched raw
// scanner (raw_scan_batches.h), which hides where batches end.
// Also TRUNCATE on every node.
#include <algorithm>
#include <memory>
#include <utility>

#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/truncations.h"
#include "protocol/consistency.h"
#include "storage/raw_merge.h"
#include "storage/raw_scan_batches.h"

namespace keywise::cluster {
namespace {

// Scan order of partitions: token, then serialized key.
int ComparePartitions(const RawPartition& a, const RawPartition& b) {
  if (a.token != b.token) return a.token < b.token ? -1 : 1;
  return a.partition_key.compare(b.partition_key);
}

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
      deadline, &answered, p.trace);
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
  if (GathersEverywhere(table)) {
    return GatherScan(table, start_token, start, end, call);
  }
  KW_ASSIGN_OR_RETURN(Placement p, Place(table));
  if (!p.spec.Replicated()) {
    return engine_->ScanTable(table, start_token, start, end, call.storage);
  }
  const Consistency cl = call.consistency;
  KW_RETURN_IF_ERROR(ValidateForRead(cl));
  if (cl == Consistency::kSerial || cl == Consistency::kLocalSerial) {
    return Status::Invalid(
        "SERIAL/LOCAL_SERIAL consistency may only be requested for one "
        "partition at a time");
  }
  // One range per tablet from the one holding start_token, each read in
  // batches from the replicas the level needs (one placement, and so one
  // view and fence ticket, for the whole scan).
  const TabletId first = p.tablets->TabletOf(start_token);
  const size_t ranges = p.tablets->count() - first;
  if (call.trace != nullptr) {
    p.trace = call.trace->shared_from_this();
    p.trace->Trace("Scanning " + std::to_string(ranges) + " tablet(s) of " +
                   table.keyspace + "." + table.name + " at " +
                   std::string(protocol::ConsistencyName(cl)));
  }
  const auto deadline =
      std::chrono::steady_clock::now() + options_.read_timeout;
  auto placement = std::make_shared<const Placement>(std::move(p));
  RawBatchFetch fetch = [this, placement, cl, first, start_token,
                         slice = ClusteringSlice{start, end},
                         now = call.storage.now_seconds, deadline](
                            size_t range,
                            const RawScanPosition* after) -> Result<RawScan> {
    const Placement& p = *placement;
    const TabletId tablet = first + static_cast<TabletId>(range);
    ScanRawRequest request;
    request.table_id = p.table->id;
    const Token tablet_first = p.tablets->FirstToken(tablet);
    request.tokens = {std::max(tablet_first, start_token),
                      p.tablets->LastToken(tablet)};
    request.slice = slice;
    request.has_after = after != nullptr;
    if (after != nullptr) request.after = *after;
    request.row_limit = options_.batch_rows;
    request.now_seconds = now;
    const std::vector<Uuid>& replicas = p.tablets->tablets[tablet].ReadReplicas();
    const Topology& topology = *p.view->topology;
    const ReplicationSpec spec = TabletSpec(p.spec, topology, replicas);
    KW_RETURN_IF_ERROR(AssureAvailable(cl, spec, topology, replicas));
    std::vector<Uuid> contacts = ReadContacts(cl, spec, topology, replicas);
    if (p.trace != nullptr) {
      p.trace->Trace("Reading tablet " + std::to_string(tablet) +
                     " (tokens " + std::to_string(request.tokens.start.value) +
                     " to " + std::to_string(request.tokens.end.value) +
                     ") from " + NodeNames(topology, contacts));
    }
    return ScanMerged(p, contacts, request, cl, deadline);
  };
  return NewBatchedRawTableScanner(ranges, std::move(fetch), call.storage);
}

Status Coordinator::TruncateEverywhere(const TableDef& table) {
  ClusterViewPtr view = view_();
  std::vector<Uuid> nodes;
  for (const NodeStatus& n : view->topology->nodes()) {
    if (n.info.state == NodeState::kLeft) continue;
    if (!n.up) {
      ReplicaCounts counts;
      counts.consistency = Consistency::kAll;
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
        KW_RETURN_IF_ERROR(TruncateLocally(*engine_, table));
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
