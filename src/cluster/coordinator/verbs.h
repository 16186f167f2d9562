// The verbs nodes send each other (messaging/message.h) and their payloads.
//
// Contract: verb numbers and payload formats are stored on the wire between
// nodes of adjacent versions: never renumber a verb or change a format in
// place (add a verb, or a field behind a new messaging version). Decoding
// never trusts its input (ServerError "Malformed <verb> request").
//
//   kMutation    request: a PartitionUpdate (storage's
//                partition_update_codec.h); answer: empty. The replica
//                applies it (durably, as Engine::Apply).
//   kReadRaw     request: ReadRawRequest (below); answer: a RawPartition
//                (raw_partition_codec.h).
//   kScanRaw     request: ScanRawRequest; answer: u8 complete, varint n,
//                n x (varint length | RawPartition).
//   kRepair      request: a RawPartition; answer: empty. Read repair:
//                Engine::ApplyRaw.
//   kTruncate    request: 16-byte table id; answer: empty.
//   kBatchStore  request: BatchLogEntry (below); answer: empty. The node
//                keeps the batch in system.batches (batch_log.h).
//   kBatchRemove request: 16-byte batch id; answer: empty.
//   kBarrier     request: i64 BE etcd revision; answer: empty, once the
//                node uses a cluster view of that revision or newer and no
//                request of its own still uses an older one (ServerError
//                when that takes longer than the sender's timeout).
//   kCleanup     request: TabletRange (below); answer: empty. The node
//                deletes its data of the range (a tablet moved away).
//   kStream      request: a RawScan as kScanRaw answers it; answer:
//                empty. The node writes the partitions (Engine::ApplyRaw):
//                a moving tablet's data reaching its new replica.
//   kFlush       request: empty; answer: empty. The node flushes its
//                memtables (`keywise admin flush`).
//   kCompact     request: empty; answer: empty. A major compaction of the
//                node's storage (`keywise admin compact`).
//   kRepairTables request: RepairRequest (below); answer: a UTF-8 summary.
//                The node repairs the tables' tablets (tablet_repair.h).
//   kReadDigest  request: ReadRawRequest; answer: the 16-byte digest
//                (raw_digest.h) of the RawPartition kReadRaw would answer.
//                QUORUM-style reads take data from one replica and
//                digests from the others (Cassandra's digest reads).
//   kFence       request: i64 BE etcd revision; answer: empty, once the
//                node refuses requests stamped with an older epoch
//                (metadata/fence.h). Sent after a barrier of that revision
//                succeeded on every live node.
//   kWorkloadStats request: u8 0 (read) or an advisor::StatsKind (reset);
//                answer: for a read, the node's own statistics
//                (advisor/node_stats.h's encoding), else empty, once reset
//                (cluster/stats_service.h).
//   17-21        the Paxos verbs (paxos_messages.h).
//   22           kCounterLeader (counter_messages.h).
//   23           kTraced: a request of a traced session (traced_message.h).
//   24           kTraceRows: a node's trace rows, copied to the node that
//                keeps them too (cluster/trace_copy_service.h).
//   kReloadSsl   request: empty; answer: a UTF-8 line per TLS context
//                ("client_encryption_options: reloaded"). The node checks
//                its certificate files now (`keywise admin reloadssl`,
//                net/tls_reloader.h); an error when one failed to load.
//
// BatchLogEntry: batch id (16 bytes, a timeuuid) | values mutations (each
//   an encoded PartitionUpdate).
// ReadRawRequest: table id (16 bytes) | bytes partition key | slice |
//   u8 reversed | varint row limit (0 = none) | svarint now_seconds
// ScanRawRequest: table id | i64 BE start token | i64 BE end token |
//   slice | u8 has_after [| bytes partition key | u8 partition_done |
//   values clustering] | varint row limit | svarint now_seconds
// TabletRange: table id (16 bytes) | i64 BE first token | i64 BE last
//   token (both inclusive).
// slice: bound start | bound end; bound: u8 kind (0 inclusive, 1
//   exclusive) | values prefix; values: varint n | n x bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/messaging/message.h"
#include "common/status.h"
#include "common/uuid.h"
#include "storage/clustering_slice.h"
#include "storage/raw_partition.h"
#include "storage/table_lookup.h"

namespace keywise::cluster {

inline constexpr Verb kMutationVerb{1};
inline constexpr Verb kReadRawVerb{2};
inline constexpr Verb kScanRawVerb{3};
inline constexpr Verb kRepairVerb{4};
inline constexpr Verb kTruncateVerb{5};
inline constexpr Verb kBatchStoreVerb{6};
inline constexpr Verb kBatchRemoveVerb{7};
inline constexpr Verb kBarrierVerb{8};
inline constexpr Verb kCleanupVerb{9};
inline constexpr Verb kStreamVerb{10};
inline constexpr Verb kFlushVerb{11};
inline constexpr Verb kCompactVerb{12};
inline constexpr Verb kRepairTablesVerb{13};
inline constexpr Verb kReadDigestVerb{14};
inline constexpr Verb kFenceVerb{15};
inline constexpr Verb kWorkloadStatsVerb{16};
inline constexpr Verb kReloadSslVerb{25};

struct BatchLogEntry {
  Uuid id;
  std::vector<std::string> mutations;  // encoded PartitionUpdates
};
std::string EncodeBatchLogEntry(const BatchLogEntry& entry);
Result<BatchLogEntry> DecodeBatchLogEntry(std::string_view bytes);

struct ReadRawRequest {
  Uuid table_id;
  std::string partition_key;  // serialized
  ClusteringSlice slice;
  bool reversed = false;
  size_t row_limit = kNoRowLimit;
  int32_t now_seconds = 0;
};

struct ScanRawRequest {
  Uuid table_id;
  TokenInterval tokens{kMinimumToken, Token{INT64_MAX}};
  ClusteringSlice slice;
  bool has_after = false;
  RawScanPosition after;
  size_t row_limit = kNoRowLimit;
  int32_t now_seconds = 0;
};

struct TabletRange {
  Uuid table_id;
  TokenInterval tokens{kMinimumToken, Token{INT64_MAX}};
};
std::string EncodeTabletRange(const TabletRange& range);
Result<TabletRange> DecodeTabletRange(std::string_view bytes);

// RepairRequest: bytes keyspace | bytes table (empty: every keyspace, or
//   every table of the keyspace).
struct RepairRequest {
  std::string keyspace;
  std::string table;
};
std::string EncodeRepairRequest(const RepairRequest& request);
Result<RepairRequest> DecodeRepairRequest(std::string_view bytes);

// kBarrier's and kFence's request.
std::string EncodeRevision(int64_t revision);
Result<int64_t> DecodeRevision(std::string_view bytes);

std::string EncodeReadRawRequest(const ReadRawRequest& request);
Result<ReadRawRequest> DecodeReadRawRequest(std::string_view bytes);

std::string EncodeScanRawRequest(const ScanRawRequest& request);
Result<ScanRawRequest> DecodeScanRawRequest(std::string_view bytes);

std::string EncodeRawScan(const RawScan& scan);
Result<RawScan> DecodeRawScan(std::string_view bytes,
                              const TableLookup& tables);

}  // namespace keywise::cluster
