#include "system/trace_copies.h"

#include "common/coding.h"
#include "common/token.h"
#include "schema/value_codec.h"
#include "storage/partition_update_codec.h"

namespace keywise::system {
namespace {

// Why `u` is not a plain write of trace rows; empty when it is one.
std::string WhyNotTraceWrite(const PartitionUpdate& u) {
  if (!u.partition_deletion.IsLive()) return "a partition deletion";
  if (!u.range_deletions.empty()) return "a range deletion";
  if (!u.static_cells.empty()) return "static cells";
  for (const RowWrite& row : u.rows) {
    if (!row.fragment.deletion.IsLive()) return "a row deletion";
    if (row.fragment.liveness.IsExpired()) return "an expired row marker";
    for (const Cell& c : row.fragment.cells) {
      if (c.tombstone) return "a tombstone";
    }
  }
  return "";
}

}  // namespace

std::optional<Uuid> TraceCopyNode(const Uuid& session_id, const Uuid& self,
                                  const std::vector<Uuid>& live) {
  const bool alone =
      live.empty() || (live.size() == 1 && live.front() == self);
  if (alone) return std::nullopt;
  const uint64_t token =
      static_cast<uint64_t>(TokenOfKey(EncodeUuid(session_id)).value);
  size_t i = static_cast<size_t>(token % live.size());
  if (live[i] == self) i = (i + 1) % live.size();
  return live[i];
}

std::string EncodeTraceRows(const std::vector<PartitionUpdate>& updates) {
  std::string out;
  PutVarint64(&out, updates.size());
  std::string one;
  for (const PartitionUpdate& u : updates) {
    one.clear();
    EncodePartitionUpdate(u, &one);
    PutLengthPrefixed(&out, one);
  }
  return out;
}

Result<std::vector<PartitionUpdate>> DecodeTraceRows(
    std::string_view bytes, const TraceTables& tables) {
  uint64_t n = 0;
  // Each update takes at least one byte: a count above the bytes left is
  // malformed (and never sizes an allocation).
  if (!GetVarint64(&bytes, &n) || n > bytes.size()) {
    return Status::ServerError("Malformed trace rows: bad update count");
  }
  // Only the two trace tables resolve; `foreign` tells a refused table
  // from bytes that do not decode.
  bool foreign = false;
  const TableLookup lookup = [&](const Uuid& id) -> TableDefPtr {
    if (id == tables.sessions->id) return tables.sessions;
    if (id == tables.events->id) return tables.events;
    foreign = true;
    return nullptr;
  };
  std::vector<PartitionUpdate> out;
  // The count is a peer's claim: reserve no more than a writer's batch.
  out.reserve(static_cast<size_t>(std::min<uint64_t>(n, 1000)));
  for (uint64_t i = 0; i < n; ++i) {
    const std::string which = "update " + std::to_string(i);
    std::string_view one;
    if (!GetLengthPrefixed(&bytes, &one)) {
      return Status::ServerError("Malformed trace rows: " + which +
                                 " is cut short");
    }
    foreign = false;
    Result<PartitionUpdate> u = DecodePartitionUpdate(one, lookup);
    if (!u.ok()) {
      if (foreign) {
        return Status::ServerError(
            "Refused trace rows: " + which +
            " is not of system_traces.sessions or system_traces.events (" +
            u.status().message() + ")");
      }
      return Status::ServerError("Malformed trace rows: " + which + ": " +
                                 u.status().message());
    }
    if (std::string why = WhyNotTraceWrite(*u); !why.empty()) {
      return Status::ServerError("Refused trace rows: " + which +
                                 " holds " + why +
                                 "; trace rows are only ever written");
    }
    out.push_back(std::move(u).value());
  }
  if (!bytes.empty()) {
    return Status::ServerError("Malformed trace rows: trailing bytes");
  }
  return out;
}

}  // namespace keywise::system
