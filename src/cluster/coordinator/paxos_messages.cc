#include "cluster/coordinator/paxos_messages.h"

#include <array>

#include "common/coding.h"

namespace keywise::cluster {
namespace {

Status MalformedPaxos(const char* what) {
  return Status::ServerError(std::string("Malformed paxos ") + what);
}

void PutKey(std::string* out, const PaxosKey& key) {
  out->append(key.table_id.bytes_view());
  PutLengthPrefixed(out, key.partition_key);
}

bool GetKey(std::string_view* in, PaxosKey* key) {
  std::string_view pk;
  if (!Uuid::Consume(in, &key->table_id) || !GetLengthPrefixed(in, &pk)) {
    return false;
  }
  key->partition_key.assign(pk);
  return true;
}

void PutProposal(std::string* out, const PaxosProposal& p) {
  out->append(p.ballot.bytes_view());
  PutVarint64(out, p.updates.size());
  for (const std::string& u : p.updates) PutLengthPrefixed(out, u);
}

bool GetProposal(std::string_view* in, PaxosProposal* p) {
  uint64_t n;
  if (!Uuid::Consume(in, &p->ballot) || !GetVarint64(in, &n) ||
      n > in->size()) {
    return false;
  }
  // Each update takes at least its length byte, and nothing is reserved
  // from the untrusted count.
  p->updates.clear();
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view bytes;
    if (!GetLengthPrefixed(in, &bytes)) return false;
    p->updates.emplace_back(bytes);
  }
  return true;
}

void PutOptionalProposal(std::string* out,
                         const std::optional<PaxosProposal>& p) {
  out->push_back(p ? 1 : 0);
  if (p) PutProposal(out, *p);
}

bool GetOptionalProposal(std::string_view* in,
                         std::optional<PaxosProposal>* p) {
  uint8_t has;
  if (!GetByte(in, &has) || has > 1) return false;
  if (has == 0) return true;
  return GetProposal(in, &p->emplace());
}

void PutEntries(std::string* out, const std::vector<PaxosStateEntry>& entries) {
  PutVarint64(out, entries.size());
  for (const PaxosStateEntry& e : entries) {
    PutLengthPrefixed(out, e.partition_key);
    out->push_back(e.state.promised ? 1 : 0);
    if (e.state.promised) out->append(e.state.promised->bytes_view());
    PutOptionalProposal(out, e.state.accepted);
    PutOptionalProposal(out, e.state.committed);
  }
}

bool GetEntries(std::string_view* in, std::vector<PaxosStateEntry>* entries) {
  uint64_t n;
  // An entry takes at least 5 bytes (a key of one byte with its length,
  // three flags); nothing is reserved from the untrusted count.
  if (!GetVarint64(in, &n) || n > in->size() / 5) return false;
  entries->clear();
  for (uint64_t i = 0; i < n; ++i) {
    PaxosStateEntry& e = entries->emplace_back();
    std::string_view pk;
    uint8_t has_promise;
    if (!GetLengthPrefixed(in, &pk) || pk.empty() ||
        !GetByte(in, &has_promise) || has_promise > 1) {
      return false;
    }
    e.partition_key.assign(pk);
    if (has_promise == 1 && !Uuid::Consume(in, &e.state.promised.emplace())) {
      return false;
    }
    if (!GetOptionalProposal(in, &e.state.accepted) ||
        !GetOptionalProposal(in, &e.state.committed)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool BallotBefore(const Uuid& a, const Uuid& b) {
  const uint64_t ta = a.Timestamp100ns(), tb = b.Timestamp100ns();
  if (ta != tb) return ta < tb;
  return a < b;
}

int64_t BallotMicros(const Uuid& ballot) {
  return (static_cast<int64_t>(ballot.Timestamp100ns()) -
          kUuidEpochOffset100ns) /
         10;
}

Uuid BallotAt(int64_t micros) {
  const uint64_t ts =
      static_cast<uint64_t>(micros * 10 + kUuidEpochOffset100ns);
  const uint64_t msb = ((ts & 0xffffffffULL) << 32) |
                       (((ts >> 32) & 0xffff) << 16) | 0x1000 |
                       ((ts >> 48) & 0x0fff);
  const Uuid random = Uuid::Random();
  std::array<uint8_t, 16> b = random.bytes();
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(msb >> (56 - 8 * i));
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return Uuid(b);
}

std::string EncodePaxosPrepare(const PaxosKey& key, const Uuid& ballot) {
  std::string out;
  PutKey(&out, key);
  out.append(ballot.bytes_view());
  return out;
}

Status DecodePaxosPrepare(std::string_view in, PaxosKey* key, Uuid* ballot) {
  if (!GetKey(&in, key) || !Uuid::Consume(&in, ballot) || !in.empty()) {
    return MalformedPaxos("prepare request");
  }
  return Status::OK();
}

std::string EncodePaxosProposal(const PaxosKey& key,
                                const PaxosProposal& proposal) {
  std::string out;
  PutKey(&out, key);
  PutProposal(&out, proposal);
  return out;
}

Status DecodePaxosProposal(std::string_view in, PaxosKey* key,
                           PaxosProposal* proposal) {
  if (!GetKey(&in, key) || !GetProposal(&in, proposal) || !in.empty()) {
    return MalformedPaxos("proposal");
  }
  return Status::OK();
}

std::string EncodePaxosPromise(const PaxosPromise& p) {
  std::string out;
  out.push_back(p.promised ? 1 : 0);
  out.append(p.promised_ballot.bytes_view());
  PutOptionalProposal(&out, p.accepted);
  PutOptionalProposal(&out, p.committed);
  return out;
}

Result<PaxosPromise> DecodePaxosPromise(std::string_view in) {
  PaxosPromise p;
  uint8_t promised;
  if (!GetByte(&in, &promised) || promised > 1 ||
      !Uuid::Consume(&in, &p.promised_ballot) ||
      !GetOptionalProposal(&in, &p.accepted) ||
      !GetOptionalProposal(&in, &p.committed) || !in.empty()) {
    return MalformedPaxos("promise");
  }
  p.promised = promised == 1;
  return p;
}

std::string EncodePaxosExportRequest(const PaxosExportRequest& request) {
  std::string out = EncodeTabletRange(request.range);
  PutLengthPrefixed(&out, request.after);
  PutVarint64(&out, request.limit);
  return out;
}

Result<PaxosExportRequest> DecodePaxosExportRequest(std::string_view in) {
  constexpr size_t kRangeSize = 16 + 8 + 8;
  if (in.size() < kRangeSize) return MalformedPaxos("export request");
  PaxosExportRequest r;
  KW_ASSIGN_OR_RETURN(r.range, DecodeTabletRange(in.substr(0, kRangeSize)));
  in.remove_prefix(kRangeSize);
  std::string_view after;
  if (!GetLengthPrefixed(&in, &after) || !GetVarint64(&in, &r.limit) ||
      !in.empty() || r.limit == 0) {
    return MalformedPaxos("export request");
  }
  r.after.assign(after);
  return r;
}

std::string EncodePaxosExport(const PaxosExport& answer) {
  std::string out(1, answer.complete ? '\1' : '\0');
  PutEntries(&out, answer.entries);
  return out;
}

Result<PaxosExport> DecodePaxosExport(std::string_view in) {
  PaxosExport answer;
  uint8_t complete;
  if (!GetByte(&in, &complete) || complete > 1 ||
      !GetEntries(&in, &answer.entries) || !in.empty()) {
    return MalformedPaxos("export");
  }
  answer.complete = complete == 1;
  return answer;
}

std::string EncodePaxosImport(const Uuid& table_id,
                              const std::vector<PaxosStateEntry>& entries) {
  std::string out(table_id.bytes_view());
  PutEntries(&out, entries);
  return out;
}

Status DecodePaxosImport(std::string_view in, Uuid* table_id,
                         std::vector<PaxosStateEntry>* entries) {
  if (!Uuid::Consume(&in, table_id) || !GetEntries(&in, entries) ||
      !in.empty()) {
    return MalformedPaxos("import");
  }
  return Status::OK();
}

std::string EncodeProposalBody(const PaxosProposal& proposal) {
  std::string out;
  PutProposal(&out, proposal);
  return out;
}

Result<PaxosProposal> DecodeProposalBody(std::string_view in) {
  PaxosProposal p;
  if (!GetProposal(&in, &p) || !in.empty()) return MalformedPaxos("state");
  return p;
}

}  // namespace keywise::cluster
