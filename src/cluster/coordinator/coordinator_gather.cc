// Reads of system_traces (docs/tracing.md). Every node writes the trace
// rows of its own events, to its own storage, in the background, and one
// other node keeps a copy of them (cluster/trace_copy_service.h); the
// keyspace has no tablets (docs/cluster.md, "Placement"). So a read of a
// session or its events asks every live node for its rows (kReadRaw and
// kScanRaw) and merges the answers by storage's rules (a row two nodes
// hold is one row): whichever node a driver asks answers with the events
// of every node that took part, one node down included. There is no read
// repair (a node holds only its own rows and the copies sent to it).
// Also TraceContacts, the trace event of a read's replicas.
#include <map>
#include <utility>

#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/fanout.h"
#include "protocol/consistency.h"
#include "schema/partitioner.h"
#include "schema/system_keyspace_names.h"
#include "storage/partition_key.h"
#include "storage/raw_merge.h"
#include "storage/raw_partition_codec.h"
#include "storage/raw_resolve.h"

namespace keywise::cluster {
namespace {

// Every node of `topology` that is up and has not left (this one, at
// least).
std::vector<Uuid> LiveNodes(const Topology& topology) {
  std::vector<Uuid> out = topology.LiveNodes();
  if (out.empty()) out.push_back(topology.local());
  return out;
}

}  // namespace

bool Coordinator::GathersEverywhere(const TableDef& table) {
  return table.keyspace == kTracesKeyspaceName;
}

void Coordinator::TraceContacts(Placement& p, tracing::TraceState* trace,
                                const std::string& pk,
                                const std::vector<Uuid>& contacts,
                                Consistency cl) const {
  p.trace = trace->shared_from_this();
  const Topology& topology = *p.view->topology;
  const std::string level(protocol::ConsistencyName(cl));
  const TabletId tablet = p.tablets->TabletOf(PartitionToken(*p.table, pk));
  const std::string where =
      "Replicas of the partition (tablet " + std::to_string(tablet) + "): " +
      NodeNames(topology, p.tablets->tablets[tablet].ReadReplicas());
  trace->Trace(contacts.empty()
                   ? where + "; this node is one: reading its own storage "
                             "at " + level
                   : where + "; reading at " + level + " from " +
                         NodeNames(topology, contacts));
}

Status Coordinator::GatherRow(const TableDef& table,
                              const std::vector<std::string>& partition_key,
                              const std::vector<std::string>& clustering,
                              const query::ReadCall& call, LiveRow* row,
                              bool* found, std::vector<Cell>* static_cells) {
  ClusteringBound at{clustering, BoundKind::kInclusive};
  KW_ASSIGN_OR_RETURN(std::unique_ptr<PartitionReader> reader,
                      GatherPartition(table, partition_key, at, at, call));
  *found = reader->Next(row);
  if (static_cells != nullptr) *static_cells = reader->static_cells();
  return reader->status();
}

Result<std::unique_ptr<PartitionReader>> Coordinator::GatherPartition(
    const TableDef& table, const std::vector<std::string>& partition_key,
    const ClusteringBound& start, const ClusteringBound& end,
    const query::ReadCall& call) {
  std::string pk;
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, partition_key, &pk));
  auto [view, ticket] = fence_.Acquire();
  const TableLookup tables = replica_->Tables();
  TableDefPtr def = tables(table.id);
  if (def == nullptr) return Status::Invalid("unconfigured table " + table.name);
  ReadRawRequest request;
  request.table_id = table.id;
  request.partition_key = pk;
  request.slice = ClusteringSlice{start, end};
  request.reversed = call.storage.reversed;
  request.now_seconds = call.storage.now_seconds;
  std::vector<Result<RawPartition>> answers = Gather<RawPartition>(
      *this, *view->topology, LiveNodes(*view->topology), kReadRawVerb,
      EncodeReadRawRequest(request),
      [&]() -> Result<RawPartition> { return replica_->ReadRaw(request); },
      [tables](std::string bytes) { return DecodeRawPartition(bytes, tables); },
      std::chrono::steady_clock::now() + options_.read_timeout);
  std::vector<const RawPartition*> inputs;
  for (const Result<RawPartition>& a : answers) {
    if (a.ok()) inputs.push_back(&*a);
  }
  if (inputs.empty()) return answers.front().status();
  KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions(inputs));
  return NewRawPartitionReader(std::move(merge.merged), call.storage);
}

Result<std::unique_ptr<TableScanner>> Coordinator::GatherScan(
    const TableDef& table, Token start_token, const ClusteringBound& start,
    const ClusteringBound& end, const query::ReadCall& call) {
  auto [view, ticket] = fence_.Acquire();
  const TableLookup tables = replica_->Tables();
  TableDefPtr def = tables(table.id);
  if (def == nullptr) return Status::Invalid("unconfigured table " + table.name);
  ScanRawRequest request;
  request.table_id = table.id;
  request.tokens = {start_token, Token{INT64_MAX}};
  request.slice = ClusteringSlice{start, end};
  request.now_seconds = call.storage.now_seconds;
  std::vector<Result<RawScan>> answers = Gather<RawScan>(
      *this, *view->topology, LiveNodes(*view->topology), kScanRawVerb,
      EncodeScanRawRequest(request),
      [&]() -> Result<RawScan> {
        return engine_->ScanRaw(def, request.tokens, request.slice, nullptr,
                                request.row_limit,
                                ReplicaReadOptions(request.now_seconds, false));
      },
      [tables](std::string bytes) { return DecodeRawScan(bytes, tables); },
      std::chrono::steady_clock::now() + options_.read_timeout);
  // Each node's partitions, grouped in scan order (token, then key).
  std::map<std::pair<int64_t, std::string>, std::vector<const RawPartition*>>
      by_partition;
  bool any = false;
  for (const Result<RawScan>& a : answers) {
    if (!a.ok()) continue;
    any = true;
    for (const RawPartition& p : a->partitions) {
      by_partition[{p.token.value, p.partition_key}].push_back(&p);
    }
  }
  if (!any) return answers.front().status();
  std::vector<RawPartition> merged;
  merged.reserve(by_partition.size());
  for (const auto& [key, inputs] : by_partition) {
    KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions(inputs));
    merged.push_back(std::move(merge.merged));
  }
  return NewRawTableScanner(std::move(merged), call.storage);
}

}  // namespace keywise::cluster
