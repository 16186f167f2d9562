#include "query/exec/paging_state.h"

#include "common/coding.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kPartitionDone = 1;

Status Malformed() {
  return Status::Invalid("Invalid value for the paging state");
}

bool GetBytes32(std::string_view* in, std::string* out) {
  uint32_t n;
  if (!GetFixed32BE(in, &n) || in->size() < n) return false;
  out->assign(in->data(), n);
  in->remove_prefix(n);
  return true;
}

}  // namespace

std::string PagingState::Encode() const {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  out.push_back(static_cast<char>(partition_done ? kPartitionDone : 0));
  PutFixed32BE(&out, rows_counted);
  PutFixed32BE(&out, partition_rows_counted);
  PutFixed32BE(&out, static_cast<uint32_t>(partition_key.size()));
  out.append(partition_key);
  PutFixed16BE(&out, static_cast<uint16_t>(clustering.size()));
  for (const std::string& v : clustering) {
    PutFixed32BE(&out, static_cast<uint32_t>(v.size()));
    out.append(v);
  }
  return out;
}

Result<PagingState> PagingState::Decode(std::string_view in) {
  PagingState s;
  uint8_t version, flags;
  uint16_t n;
  if (!GetByte(&in, &version) || version != kVersion || !GetByte(&in, &flags) ||
      (flags & ~kPartitionDone) != 0 || !GetFixed32BE(&in, &s.rows_counted) ||
      !GetFixed32BE(&in, &s.partition_rows_counted) ||
      !GetBytes32(&in, &s.partition_key) || !GetFixed16BE(&in, &n)) {
    return Malformed();
  }
  s.partition_done = (flags & kPartitionDone) != 0;
  for (uint16_t i = 0; i < n; ++i) {
    std::string v;
    if (!GetBytes32(&in, &v)) return Malformed();
    s.clustering.push_back(std::move(v));
  }
  if (!in.empty()) return Malformed();
  return s;
}

Result<PagingState> PagingState::DecodeFor(const TableDef& table,
                                           std::string_view bytes) {
  KW_ASSIGN_OR_RETURN(PagingState state, Decode(bytes));
  std::vector<const ColumnDef*> clustering = table.ClusteringColumns();
  if (state.clustering.size() > clustering.size()) return Malformed();
  if (!state.clustering.empty() &&
      state.clustering.size() != clustering.size()) {
    return Malformed();
  }
  if (state.clustering.empty() && !state.partition_done &&
      !clustering.empty()) {
    return Malformed();
  }
  for (size_t i = 0; i < state.clustering.size(); ++i) {
    if (!ValidateValue(*clustering[i]->type, state.clustering[i]).ok())
      return Malformed();
  }
  std::vector<const ColumnDef*> pk = table.PartitionKeyColumns();
  auto split = SplitPartitionKey(state.partition_key, pk.size());
  if (!split.ok() || state.partition_key.empty()) return Malformed();
  for (size_t i = 0; i < pk.size(); ++i) {
    if (!ValidateValue(*pk[i]->type, (*split)[i]).ok()) return Malformed();
  }
  return state;
}

}  // namespace keywise::query
