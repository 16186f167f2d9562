#include "cluster/coordinator/paxos_store.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "schema/partitioner.h"
#include "schema/value_codec.h"
#include "storage/partition_update.h"

namespace keywise::cluster {
namespace {

constexpr std::chrono::seconds kLockWait{2};

TableDefPtr PaxosTable(Engine& engine) {
  return engine.catalog().snapshot()->FindTable("system", "paxos");
}

}  // namespace

Result<net::KeyLocks::Guard> PaxosStore::LockKey(const PaxosKey& key) {
  std::string name(key.table_id.bytes_view());
  name += key.partition_key;
  std::optional<net::KeyLocks::Guard> guard =
      locks_.Lock(name, std::chrono::steady_clock::now() + kLockWait);
  if (!guard) {
    return Status::ServerError("Paxos state of the partition is busy");
  }
  return std::move(*guard);
}

Result<PaxosStore::State> PaxosStore::Load(const PaxosKey& key) {
  TableDefPtr table = PaxosTable(*engine_);
  if (table == nullptr) return Status::ServerError("No system.paxos table");
  LiveRow row;
  bool found = false;
  ReadOptions options;
  options.now_seconds = engine_->clock().NowSeconds();
  KW_RETURN_IF_ERROR(engine_->GetRow(*table, {EncodeBlob(key.partition_key)},
                                     {EncodeUuid(key.table_id)}, options, &row,
                                     &found, nullptr));
  if (!found) return State();
  return FromRow(*table, row);
}

Result<PaxosStore::State> PaxosStore::FromRow(const TableDef& paxos,
                                              const LiveRow& row) {
  State state;
  state.stamped = row.liveness.timestamp;
  for (const Cell& c : row.cells) {
    state.stamped = std::max(state.stamped, c.timestamp);
  }
  if (const Cell* c = row.Find(paxos.FindColumn("in_progress_ballot")->id)) {
    state.promised = Uuid::FromBytes(c->value);
  }
  if (const Cell* c = row.Find(paxos.FindColumn("proposal")->id)) {
    KW_ASSIGN_OR_RETURN(state.accepted, DecodeProposalBody(c->value));
  }
  if (const Cell* c = row.Find(paxos.FindColumn("most_recent_commit")->id)) {
    KW_ASSIGN_OR_RETURN(state.committed, DecodeProposalBody(c->value));
  }
  return state;
}

// How long a partition's Paxos state lives after its last step, as
// Cassandra 4's paxosTtlSec: the table's gc_grace_seconds, at least 3 hours
// (a replayed commit never outlives the tombstones it could resurrect
// data under; a round never takes that long).
static int32_t PaxosTtlSeconds(Engine& engine, const Uuid& table_id) {
  constexpr int32_t kMinimum = 3 * 3600;
  constexpr int32_t kDefaultGcGrace = 864000;
  int32_t gc_grace = kDefaultGcGrace;
  const SchemaSnapshotPtr schema = engine.catalog().snapshot();
  for (const auto& [name, table] : schema->tables) {
    if (table->id == table_id) {
      gc_grace = table->options.gc_grace_seconds;
      break;
    }
  }
  return std::max(kMinimum, gc_grace);
}

Status PaxosStore::Save(const PaxosKey& key, const State& state) {
  TableDefPtr table = PaxosTable(*engine_);
  if (table == nullptr) return Status::ServerError("No system.paxos table");
  const int64_t ts = std::max(clock_.Next(), state.stamped + 1);
  const int32_t now = static_cast<int32_t>(ts / 1000000);
  const int32_t ttl = PaxosTtlSeconds(*engine_, key.table_id);
  auto id = [&](const char* name) { return table->FindColumn(name)->id; };
  RowWrite row;
  row.clustering = {EncodeUuid(key.table_id)};
  row.fragment.liveness = RowMarker(ts, ttl, now);
  auto put = [&](const char* name, std::optional<std::string> value) {
    row.fragment.cells.push_back(
        value ? LiveCell(id(name), std::move(*value), ts, ttl, now)
              : CellTombstone(id(name), ts, now));
  };
  put("in_progress_ballot",
      state.promised ? std::optional<std::string>(EncodeUuid(*state.promised))
                     : std::nullopt);
  put("proposal", state.accepted ? std::optional<std::string>(
                                       EncodeProposalBody(*state.accepted))
                                 : std::nullopt);
  put("proposal_ballot",
      state.accepted
          ? std::optional<std::string>(EncodeUuid(state.accepted->ballot))
          : std::nullopt);
  put("most_recent_commit",
      state.committed
          ? std::optional<std::string>(EncodeProposalBody(*state.committed))
          : std::nullopt);
  put("most_recent_commit_at",
      state.committed
          ? std::optional<std::string>(EncodeUuid(state.committed->ballot))
          : std::nullopt);
  PartitionUpdate u;
  u.table = table;
  u.partition_key = {EncodeBlob(key.partition_key)};
  u.rows.push_back(std::move(row));
  return engine_->Apply({u});
}

Result<PaxosPromise> PaxosStore::Prepare(const PaxosKey& key,
                                         const Uuid& ballot) {
  KW_ASSIGN_OR_RETURN(net::KeyLocks::Guard guard, LockKey(key));
  KW_ASSIGN_OR_RETURN(State state, Load(key));
  PaxosPromise out;
  out.promised = !state.promised || BallotBefore(*state.promised, ballot);
  if (out.promised) {
    state.promised = ballot;
    KW_RETURN_IF_ERROR(Save(key, state));
  }
  out.promised_ballot = *state.promised;
  out.accepted = std::move(state.accepted);
  out.committed = std::move(state.committed);
  return out;
}

Result<bool> PaxosStore::Propose(const PaxosKey& key,
                                 const PaxosProposal& proposal) {
  KW_ASSIGN_OR_RETURN(net::KeyLocks::Guard guard, LockKey(key));
  KW_ASSIGN_OR_RETURN(State state, Load(key));
  if (state.promised && BallotBefore(proposal.ballot, *state.promised)) {
    return false;
  }
  state.promised = proposal.ballot;
  state.accepted = proposal;
  KW_RETURN_IF_ERROR(Save(key, state));
  return true;
}

Status PaxosStore::Commit(const PaxosKey& key, const PaxosProposal& proposal) {
  KW_ASSIGN_OR_RETURN(net::KeyLocks::Guard guard, LockKey(key));
  KW_ASSIGN_OR_RETURN(State state, Load(key));
  bool changed = false;
  if (!state.committed ||
      BallotBefore(state.committed->ballot, proposal.ballot)) {
    state.committed = proposal;
    changed = true;
  }
  if (state.accepted &&
      !BallotBefore(state.committed->ballot, state.accepted->ballot)) {
    state.accepted.reset();
    changed = true;
  }
  return changed ? Save(key, state) : Status::OK();
}

}  // namespace keywise::cluster

namespace keywise::cluster {

Result<PaxosExport> PaxosStore::Export(const TabletRange& range,
                                       std::string_view after, size_t limit) {
  // A page's bytes are bounded too: one partition's state holds whole
  // proposals, and a page must fit in a message.
  constexpr size_t kPageBytes = 4 << 20;
  PaxosExport out;
  TableDefPtr paxos = PaxosTable(*engine_);
  if (paxos == nullptr) return Status::ServerError("No system.paxos table");
  TableDefPtr table;
  const SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  for (const auto& [name, t] : schema->tables) {
    if (t->id == range.table_id) table = t;
  }
  if (table == nullptr) {  // dropped: nothing of it is left to hand over
    out.complete = true;
    return out;
  }
  // system.paxos orders its partitions by (its own token, key bytes). For
  // a hash-placed table that token is the table's own (both Murmur3 of
  // the key), so only the range is read; otherwise all of it.
  const bool same_tokens = table->options.placement == PlacementKind::kHash;
  Token start = after.empty() ? kMinimumToken : PartitionToken(*paxos, after);
  if (same_tokens) start = std::max(start, range.tokens.start);
  ReadOptions read;
  read.now_seconds = engine_->clock().NowSeconds();
  const std::string cf_id = EncodeUuid(range.table_id);
  const ClusteringBound only{{cf_id}, BoundKind::kInclusive};
  KW_ASSIGN_OR_RETURN(std::unique_ptr<TableScanner> scan,
                      engine_->ScanTable(*paxos, start, only, only, read));
  LiveRow row;
  size_t bytes = 0;
  while (scan->NextPartition()) {
    if (same_tokens && range.tokens.end < scan->token()) break;
    const std::string& pk = scan->serialized_partition_key();
    if (!after.empty() && scan->token() == start && pk <= after) continue;
    // Only a row of this table (the scan's slice) holds a key of its
    // partitioning: the token is computed after.
    if (!scan->NextRow(&row)) continue;
    const Token token = PartitionToken(*table, pk);
    if (token < range.tokens.start || range.tokens.end < token) continue;
    if (out.entries.size() == limit || bytes >= kPageBytes) {
      return out;  // more may follow
    }
    KW_ASSIGN_OR_RETURN(State state, FromRow(*paxos, row));
    bytes += pk.size();
    for (const auto* p : {&state.accepted, &state.committed}) {
      if (*p) {
        for (const std::string& u : (*p)->updates) bytes += u.size();
      }
    }
    out.entries.push_back({pk, std::move(state)});
  }
  KW_RETURN_IF_ERROR(scan->status());
  out.complete = true;
  return out;
}

Status PaxosStore::Merge(
    const PaxosKey& key, const PaxosState& incoming,
    const std::function<Status(const PaxosProposal&)>& apply) {
  KW_ASSIGN_OR_RETURN(net::KeyLocks::Guard guard, LockKey(key));
  KW_ASSIGN_OR_RETURN(State state, Load(key));
  bool changed = false;
  if (incoming.promised &&
      (!state.promised || BallotBefore(*state.promised, *incoming.promised))) {
    state.promised = incoming.promised;
    changed = true;
  }
  if (incoming.committed &&
      (!state.committed ||
       BallotBefore(state.committed->ballot, incoming.committed->ballot))) {
    KW_RETURN_IF_ERROR(apply(*incoming.committed));
    state.committed = incoming.committed;
    changed = true;
  }
  if (incoming.accepted &&
      (!state.accepted ||
       BallotBefore(state.accepted->ballot, incoming.accepted->ballot))) {
    state.accepted = incoming.accepted;
    changed = true;
  }
  if (state.accepted && state.committed &&
      !BallotBefore(state.committed->ballot, state.accepted->ballot)) {
    state.accepted.reset();
    changed = true;
  }
  return changed ? Save(key, state) : Status::OK();
}

}  // namespace keywise::cluster
