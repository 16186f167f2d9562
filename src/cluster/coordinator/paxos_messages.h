// The Paxos verbs of lightweight transactions (Cassandra 4's classic
// Paxos: prepare/promise, propose/accept, commit) and their payloads.
// Numbers and formats follow verbs.h's rule: never renumber or change in
// place.
//
//   kPaxosPrepare  request: PaxosKey | ballot; answer: PaxosPromise.
//   kPaxosPropose  request: PaxosKey | PaxosProposal; answer: u8 accepted.
//   kPaxosCommit   request: PaxosKey | PaxosProposal; answer: empty, once
//                  the replica applied the proposal's updates (with their
//                  view updates, as kMutation) and recorded the commit.
//   kPaxosExport   request: PaxosExportRequest; answer: u8 complete |
//                  varint n | n x PaxosStateEntry. A moving tablet's state
//                  read from an old replica (tablets/paxos_handoff.h).
//   kPaxosImport   request: table id (16 bytes) | varint n | n x
//                  PaxosStateEntry; answer: empty, once the new replica
//                  merged them (PaxosStore::Merge).
//
// PaxosKey: table id (16 bytes) | bytes partition key (serialized).
// PaxosProposal: ballot (16-byte timeuuid) | varint n | n x bytes update
//   (each an encoded PartitionUpdate of the key's partition; none for the
//   empty proposal of a round whose conditions did not hold).
// PaxosExportRequest: TabletRange (verbs.h) | bytes after (a partition
//   key; empty: from the first) | varint limit.
// PaxosStateEntry: bytes partition key | u8 has_promised [| ballot] |
//   u8 has_accepted [| PaxosProposal] | u8 has_committed [| PaxosProposal].
// PaxosPromise: u8 promised | ballot promised (the replica's highest) |
//   u8 has_accepted [| PaxosProposal] | u8 has_committed [| PaxosProposal].
//
// Contract: decoding never trusts its input (ServerError "Malformed ...").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/coordinator/verbs.h"
#include "cluster/messaging/message.h"
#include "common/status.h"
#include "common/uuid.h"

namespace keywise::cluster {

inline constexpr Verb kPaxosPrepareVerb{17};
inline constexpr Verb kPaxosProposeVerb{18};
inline constexpr Verb kPaxosCommitVerb{19};
inline constexpr Verb kPaxosExportVerb{20};
inline constexpr Verb kPaxosImportVerb{21};

struct PaxosKey {
  Uuid table_id;
  std::string partition_key;  // serialized
};

struct PaxosProposal {
  Uuid ballot;
  std::vector<std::string> updates;  // encoded PartitionUpdates
};

struct PaxosPromise {
  bool promised = false;
  Uuid promised_ballot;  // the replica's highest promise
  std::optional<PaxosProposal> accepted;
  std::optional<PaxosProposal> committed;
};

// What a replica knows of one partition's rounds (PaxosStore's row).
struct PaxosState {
  std::optional<Uuid> promised;
  std::optional<PaxosProposal> accepted;
  std::optional<PaxosProposal> committed;
};

struct PaxosStateEntry {
  std::string partition_key;  // serialized
  PaxosState state;
};

struct PaxosExportRequest {
  TabletRange range;
  std::string after;  // empty: from the first partition
  uint64_t limit = 0;
};

struct PaxosExport {
  bool complete = false;
  std::vector<PaxosStateEntry> entries;
};

// Ballots order by their time (then by their bytes, for equal times).
bool BallotBefore(const Uuid& a, const Uuid& b);
// The ballot's time in microseconds: the timestamp its updates carry.
int64_t BallotMicros(const Uuid& ballot);
// A ballot (a version-1 timeuuid) of exactly `micros`, with random node
// bytes so that two coordinators' ballots of one microsecond differ.
Uuid BallotAt(int64_t micros);

std::string EncodePaxosPrepare(const PaxosKey& key, const Uuid& ballot);
Status DecodePaxosPrepare(std::string_view in, PaxosKey* key, Uuid* ballot);

std::string EncodePaxosProposal(const PaxosKey& key,
                                const PaxosProposal& proposal);
Status DecodePaxosProposal(std::string_view in, PaxosKey* key,
                           PaxosProposal* proposal);

std::string EncodePaxosPromise(const PaxosPromise& promise);
Result<PaxosPromise> DecodePaxosPromise(std::string_view in);

std::string EncodePaxosExportRequest(const PaxosExportRequest& request);
Result<PaxosExportRequest> DecodePaxosExportRequest(std::string_view in);
std::string EncodePaxosExport(const PaxosExport& answer);
Result<PaxosExport> DecodePaxosExport(std::string_view in);
std::string EncodePaxosImport(const Uuid& table_id,
                              const std::vector<PaxosStateEntry>& entries);
Status DecodePaxosImport(std::string_view in, Uuid* table_id,
                         std::vector<PaxosStateEntry>* entries);

// A proposal alone (system.paxos keeps them in blobs).
std::string EncodeProposalBody(const PaxosProposal& proposal);
Result<PaxosProposal> DecodeProposalBody(std::string_view in);

}  // namespace keywise::cluster
