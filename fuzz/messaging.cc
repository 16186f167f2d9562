// Fuzz target: node-to-node messages (cluster/messaging, docs/
// cluster_messaging.md) as a node reads them from a peer: the hello, the
// frames of a connection (FrameReader), error payloads and epochs, and the
// payload decoder of every verb (cluster/coordinator/verbs.h,
// paxos_messages.h, counter_messages.h, traced_message.h; the workload
// statistics of advisor/node_stats.h), requests as a replica reads them
// and answers as a coordinator reads them. Rows and partitions decode
// against fuzz_tables.h's tables; a partition or update that decodes must
// encode to bytes that decode to the same encoding again, and a raw
// partition is then read through the coordinator's resolver.
//
// Input: byte 0 picks the mode.
//   even: a connection's bytes: a 22-byte hello, then frames, fed in
//         pieces of byte 1 bytes (0: all at once)
//   odd:  one payload: byte 1 is the verb, byte 2's bit 0 says whether it
//         is the answer; the rest is the payload
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/node_stats.h"
#include "cluster/coordinator/counter_messages.h"
#include "cluster/coordinator/paxos_messages.h"
#include "cluster/coordinator/traced_message.h"
#include "cluster/coordinator/verbs.h"
#include "cluster/messaging/frame.h"
#include "cluster/messaging/frame_reader.h"
#include "cluster/messaging/handshake.h"
#include "fuzz/fuzz_tables.h"
#include "storage/live_row.h"
#include "storage/partition_update_codec.h"
#include "storage/raw_partition_codec.h"
#include "storage/raw_resolve.h"

namespace keywise {
namespace {

using namespace cluster;

const TableLookup& Tables() {
  static const TableLookup tables = fuzz::LookupFuzzTable;
  return tables;
}

[[noreturn]] void Fail() { __builtin_trap(); }

void CheckUpdate(std::string_view bytes) {
  Result<PartitionUpdate> update = DecodePartitionUpdate(bytes, Tables());
  if (!update.ok()) return;
  std::string once;
  EncodePartitionUpdate(*update, &once);
  Result<PartitionUpdate> again = DecodePartitionUpdate(once, Tables());
  if (!again.ok()) Fail();
  std::string twice;
  EncodePartitionUpdate(*again, &twice);
  if (once != twice) Fail();
}

void ResolvePartition(RawPartition partition) {
  ReadOptions options;
  options.now_seconds = 1700000000;
  options.versions = partition.table->options.versions;
  std::unique_ptr<PartitionReader> reader =
      NewRawPartitionReader(std::move(partition), options);
  LiveRow row;
  while (reader->Next(&row)) {
  }
  (void)reader->status();
}

void CheckRawPartition(std::string_view bytes) {
  Result<RawPartition> raw = DecodeRawPartition(bytes, Tables());
  if (!raw.ok()) return;
  std::string once;
  EncodeRawPartition(*raw, &once);
  Result<RawPartition> again = DecodeRawPartition(once, Tables());
  if (!again.ok()) Fail();
  std::string twice;
  EncodeRawPartition(*again, &twice);
  if (once != twice) Fail();
  ResolvePartition(std::move(*raw));
}

void CheckRawScan(std::string_view bytes) {
  Result<RawScan> scan = DecodeRawScan(bytes, Tables());
  if (!scan.ok()) return;
  const std::string once = EncodeRawScan(*scan);
  Result<RawScan> again = DecodeRawScan(once, Tables());
  if (!again.ok() || EncodeRawScan(*again) != once) Fail();
  for (RawPartition& p : scan->partitions) ResolvePartition(std::move(p));
}

void DecodeProposalUpdates(const PaxosProposal& proposal) {
  for (const std::string& u : proposal.updates) CheckUpdate(u);
}

void DecodeRequest(uint16_t verb, std::string_view payload, int depth);

void DecodeAnswer(uint16_t verb, std::string_view payload) {
  switch (verb) {
    case VerbValue(kReadRawVerb):
      CheckRawPartition(payload);
      break;
    case VerbValue(kScanRawVerb):
      CheckRawScan(payload);
      break;
    case VerbValue(kWorkloadStatsVerb):
      (void)advisor::DecodeNodeStats(payload);
      break;
    case VerbValue(kPaxosPrepareVerb): {
      Result<PaxosPromise> promise = DecodePaxosPromise(payload);
      if (promise.ok() && promise->accepted) {
        DecodeProposalUpdates(*promise->accepted);
      }
      if (promise.ok() && promise->committed) {
        DecodeProposalUpdates(*promise->committed);
      }
      break;
    }
    case VerbValue(kPaxosExportVerb): {
      Result<PaxosExport> answer = DecodePaxosExport(payload);
      if (answer.ok()) {
        for (const PaxosStateEntry& e : answer->entries) {
          if (e.state.committed) DecodeProposalUpdates(*e.state.committed);
        }
      }
      break;
    }
    case VerbValue(kCounterLeaderVerb):
      for (Consistency c : {Consistency::kOne, Consistency::kQuorum,
                            Consistency::kAll}) {
        (void)DecodeCounterOutcome(payload, c);
      }
      break;
    default:
      break;
  }
}

void DecodeRequest(uint16_t verb, std::string_view payload, int depth) {
  switch (verb) {
    case VerbValue(kMutationVerb):
      CheckUpdate(payload);
      break;
    case VerbValue(kReadRawVerb):
    case VerbValue(kReadDigestVerb):
      (void)DecodeReadRawRequest(payload);
      break;
    case VerbValue(kScanRawVerb):
      (void)DecodeScanRawRequest(payload);
      break;
    case VerbValue(kRepairVerb):
      CheckRawPartition(payload);
      break;
    case VerbValue(kTruncateVerb):
    case VerbValue(kBatchRemoveVerb):
      (void)Uuid::FromBytes(payload);
      break;
    case VerbValue(kBatchStoreVerb): {
      Result<BatchLogEntry> entry = DecodeBatchLogEntry(payload);
      if (entry.ok()) {
        for (const std::string& m : entry->mutations) CheckUpdate(m);
      }
      break;
    }
    case VerbValue(kBarrierVerb):
    case VerbValue(kFenceVerb):
      (void)DecodeRevision(payload);
      break;
    case VerbValue(kCleanupVerb):
      (void)DecodeTabletRange(payload);
      break;
    case VerbValue(kStreamVerb):
      CheckRawScan(payload);
      break;
    case VerbValue(kRepairTablesVerb):
      (void)DecodeRepairRequest(payload);
      break;
    case VerbValue(kPaxosPrepareVerb): {
      PaxosKey key;
      Uuid ballot;
      (void)DecodePaxosPrepare(payload, &key, &ballot);
      break;
    }
    case VerbValue(kPaxosProposeVerb):
    case VerbValue(kPaxosCommitVerb): {
      PaxosKey key;
      PaxosProposal proposal;
      if (DecodePaxosProposal(payload, &key, &proposal).ok()) {
        DecodeProposalUpdates(proposal);
      }
      break;
    }
    case VerbValue(kPaxosExportVerb):
      (void)DecodePaxosExportRequest(payload);
      break;
    case VerbValue(kPaxosImportVerb): {
      Uuid table;
      std::vector<PaxosStateEntry> entries;
      (void)DecodePaxosImport(payload, &table, &entries);
      break;
    }
    case VerbValue(kCounterLeaderVerb): {
      Result<CounterLeaderRequest> request =
          DecodeCounterLeaderRequest(payload);
      if (request.ok()) CheckUpdate(request->update);
      break;
    }
    case VerbValue(kTracedVerb): {
      Result<TracedRequest> traced = DecodeTracedRequest(payload);
      if (traced.ok() && depth == 0) {
        DecodeRequest(VerbValue(traced->verb), traced->payload, depth + 1);
      }
      break;
    }
    default:
      break;
  }
}

// A connection's bytes, as IncomingConnection (requests) and
// OutgoingConnection (answers) read them.
void ReadConnection(std::string_view in, size_t piece) {
  if (in.size() < kHelloSize) return;
  Result<Hello> hello = DecodeHello(in.substr(0, kHelloSize));
  in.remove_prefix(kHelloSize);
  if (!hello.ok()) return;
  const std::optional<uint8_t> version = NegotiateVersion(Hello{}, *hello);
  if (!version) return;
  FrameReader reader(64 * 1024);
  while (true) {
    const size_t n = std::min(piece, in.size());
    reader.Feed(in.substr(0, n));
    in.remove_prefix(n);
    Frame frame;
    FrameReader::Outcome outcome;
    while ((outcome = reader.Next(&frame)) == FrameReader::Outcome::kFrame) {
      if (frame.header.version != *version) return;
      if (frame.header.error) {
        (void)DecodeErrorPayload(frame.payload);
        continue;
      }
      if (CarriesEpoch(*version, frame.header.kind)) {
        if (!TakeEpoch(&frame.payload).ok()) return;
      }
      if (frame.header.kind == FrameKind::kResponse) {
        DecodeAnswer(frame.header.verb, frame.payload);
      } else {
        DecodeRequest(frame.header.verb, frame.payload, 0);
      }
    }
    if (outcome == FrameReader::Outcome::kError || in.empty()) return;
  }
}

}  // namespace
}  // namespace keywise

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  if (size < 3) return 0;
  if (data[0] % 2 == 0) {
    std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);
    ReadConnection(in, data[1] == 0 ? in.size() + 1 : data[1]);
    return 0;
  }
  std::string_view payload(reinterpret_cast<const char*>(data) + 3, size - 3);
  if (data[2] & 1) {
    DecodeAnswer(data[1], payload);
  } else {
    DecodeRequest(data[1], payload, 0);
  }
  return 0;
}
