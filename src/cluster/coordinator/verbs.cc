#include "cluster/coordinator/verbs.h"

#include "common/coding.h"
#include "storage/raw_partition_codec.h"

namespace keywise::cluster {
namespace {

void PutBytes(std::string* out, std::string_view b) {
  PutVarint64(out, b.size());
  out->append(b);
}
bool GetBytes(std::string_view* in, std::string* out) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  out->assign(in->data(), n);
  in->remove_prefix(n);
  return true;
}
void PutValueList(std::string* out, const std::vector<std::string>& values) {
  PutVarint64(out, values.size());
  for (const std::string& v : values) PutBytes(out, v);
}
bool GetValueList(std::string_view* in, std::vector<std::string>* values) {
  uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  values->resize(n);
  for (std::string& v : *values) {
    if (!GetBytes(in, &v)) return false;
  }
  return true;
}
void PutBound(std::string* out, const ClusteringBound& b) {
  out->push_back(b.kind == BoundKind::kExclusive ? 1 : 0);
  PutValueList(out, b.prefix);
}
bool GetBound(std::string_view* in, ClusteringBound* b) {
  uint8_t kind;
  if (!GetByte(in, &kind) || kind > 1) return false;
  b->kind = kind == 1 ? BoundKind::kExclusive : BoundKind::kInclusive;
  return GetValueList(in, &b->prefix);
}
void PutSlice(std::string* out, const ClusteringSlice& s) {
  PutBound(out, s.start);
  PutBound(out, s.end);
}
bool GetSlice(std::string_view* in, ClusteringSlice* s) {
  return GetBound(in, &s->start) && GetBound(in, &s->end);
}
void PutZigzag(std::string* out, int64_t v) {
  PutVarint64(out,
              (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
bool GetZigzag(std::string_view* in, int64_t* v) {
  uint64_t u;
  if (!GetVarint64(in, &u)) return false;
  *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  return true;
}
bool GetLimit(std::string_view* in, size_t* limit) {
  uint64_t n;
  if (!GetVarint64(in, &n)) return false;
  *limit = n == 0 ? kNoRowLimit : static_cast<size_t>(n);
  return true;
}
void PutLimit(std::string* out, size_t limit) {
  PutVarint64(out, limit == kNoRowLimit ? 0 : limit);
}
bool GetNow(std::string_view* in, int32_t* now) {
  int64_t v;
  if (!GetZigzag(in, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  *now = static_cast<int32_t>(v);
  return true;
}
Status Malformed(const char* what) {
  return Status::ServerError(std::string("Malformed ") + what + " request");
}

}  // namespace

std::string EncodeBatchLogEntry(const BatchLogEntry& entry) {
  std::string out(entry.id.bytes_view());
  PutValueList(&out, entry.mutations);
  return out;
}

Result<BatchLogEntry> DecodeBatchLogEntry(std::string_view in) {
  BatchLogEntry entry;
  if (!Uuid::Consume(&in, &entry.id) || !GetValueList(&in, &entry.mutations) ||
      !in.empty()) {
    return Malformed("batch store");
  }
  return entry;
}

std::string EncodeTabletRange(const TabletRange& range) {
  std::string out(range.table_id.bytes_view());
  PutFixed64BE(&out, static_cast<uint64_t>(range.tokens.start.value));
  PutFixed64BE(&out, static_cast<uint64_t>(range.tokens.end.value));
  return out;
}

Result<TabletRange> DecodeTabletRange(std::string_view in) {
  TabletRange r;
  uint64_t start, end;
  if (!Uuid::Consume(&in, &r.table_id) || !GetFixed64BE(&in, &start) ||
      !GetFixed64BE(&in, &end) || !in.empty()) {
    return Malformed("cleanup");
  }
  r.tokens = {Token{static_cast<int64_t>(start)},
              Token{static_cast<int64_t>(end)}};
  return r;
}

std::string EncodeRepairRequest(const RepairRequest& r) {
  std::string out;
  PutBytes(&out, r.keyspace);
  PutBytes(&out, r.table);
  return out;
}

Result<RepairRequest> DecodeRepairRequest(std::string_view in) {
  RepairRequest r;
  if (!GetBytes(&in, &r.keyspace) || !GetBytes(&in, &r.table) ||
      !in.empty() || (r.keyspace.empty() && !r.table.empty())) {
    return Malformed("repair");
  }
  return r;
}

std::string EncodeRevision(int64_t revision) {
  std::string out;
  PutFixed64BE(&out, static_cast<uint64_t>(revision));
  return out;
}

Result<int64_t> DecodeRevision(std::string_view in) {
  uint64_t revision;
  if (!GetFixed64BE(&in, &revision) || !in.empty()) {
    return Malformed("barrier or fence");
  }
  return static_cast<int64_t>(revision);
}

std::string EncodeReadRawRequest(const ReadRawRequest& r) {
  std::string out(r.table_id.bytes_view());
  PutBytes(&out, r.partition_key);
  PutSlice(&out, r.slice);
  out.push_back(r.reversed ? 1 : 0);
  PutLimit(&out, r.row_limit);
  PutZigzag(&out, r.now_seconds);
  return out;
}

Result<ReadRawRequest> DecodeReadRawRequest(std::string_view in) {
  ReadRawRequest r;
  uint8_t reversed;
  if (!Uuid::Consume(&in, &r.table_id) || !GetBytes(&in, &r.partition_key) ||
      !GetSlice(&in, &r.slice) || !GetByte(&in, &reversed) || reversed > 1 ||
      !GetLimit(&in, &r.row_limit) || !GetNow(&in, &r.now_seconds) ||
      !in.empty()) {
    return Malformed("read");
  }
  r.reversed = reversed == 1;
  return r;
}

std::string EncodeScanRawRequest(const ScanRawRequest& r) {
  std::string out(r.table_id.bytes_view());
  PutFixed64BE(&out, static_cast<uint64_t>(r.tokens.start.value));
  PutFixed64BE(&out, static_cast<uint64_t>(r.tokens.end.value));
  PutSlice(&out, r.slice);
  out.push_back(r.has_after ? 1 : 0);
  if (r.has_after) {
    PutBytes(&out, r.after.partition_key);
    out.push_back(r.after.partition_done ? 1 : 0);
    PutValueList(&out, r.after.clustering);
  }
  PutLimit(&out, r.row_limit);
  PutZigzag(&out, r.now_seconds);
  return out;
}

Result<ScanRawRequest> DecodeScanRawRequest(std::string_view in) {
  ScanRawRequest r;
  uint64_t start, end;
  uint8_t has_after;
  if (!Uuid::Consume(&in, &r.table_id) || !GetFixed64BE(&in, &start) ||
      !GetFixed64BE(&in, &end) || !GetSlice(&in, &r.slice) ||
      !GetByte(&in, &has_after) || has_after > 1) {
    return Malformed("scan");
  }
  r.tokens = {Token{static_cast<int64_t>(start)},
              Token{static_cast<int64_t>(end)}};
  r.has_after = has_after == 1;
  if (r.has_after) {
    uint8_t done;
    if (!GetBytes(&in, &r.after.partition_key) || !GetByte(&in, &done) ||
        done > 1 || !GetValueList(&in, &r.after.clustering)) {
      return Malformed("scan");
    }
    r.after.partition_done = done == 1;
  }
  if (!GetLimit(&in, &r.row_limit) || !GetNow(&in, &r.now_seconds) ||
      !in.empty()) {
    return Malformed("scan");
  }
  return r;
}

std::string EncodeRawScan(const RawScan& scan) {
  std::string out;
  out.push_back(scan.complete ? 1 : 0);
  PutVarint64(&out, scan.partitions.size());
  std::string one;
  for (const RawPartition& p : scan.partitions) {
    one.clear();
    EncodeRawPartition(p, &one);
    PutBytes(&out, one);
  }
  return out;
}

Result<RawScan> DecodeRawScan(std::string_view in, const TableLookup& tables) {
  RawScan scan;
  uint8_t complete;
  uint64_t n;
  if (!GetByte(&in, &complete) || complete > 1 || !GetVarint64(&in, &n) ||
      n > in.size()) {
    return Malformed("scan answer");
  }
  scan.complete = complete == 1;
  std::string one;
  for (uint64_t i = 0; i < n; ++i) {
    if (!GetBytes(&in, &one)) return Malformed("scan answer");
    KW_ASSIGN_OR_RETURN(RawPartition p, DecodeRawPartition(one, tables));
    scan.partitions.push_back(std::move(p));
  }
  if (!in.empty()) return Malformed("scan answer");
  return scan;
}

}  // namespace keywise::cluster
