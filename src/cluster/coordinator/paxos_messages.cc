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
  p->updates.resize(n);
  for (std::string& u : p->updates) {
    std::string_view bytes;
    if (!GetLengthPrefixed(in, &bytes)) return false;
    u.assign(bytes);
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
