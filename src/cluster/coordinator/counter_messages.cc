#include "cluster/coordinator/counter_messages.h"

#include <cstdint>

#include "common/coding.h"

namespace keywise::cluster {
namespace {

bool IsLevel(uint16_t v) {
  return v <= static_cast<uint16_t>(Consistency::kLocalOne);
}

// The codes a leader's write may fail with; anything else is not trusted.
bool IsWriteError(int64_t code) {
  if (code < INT32_MIN || code > INT32_MAX) return false;
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kServerError:
    case ErrorCode::kUnavailable:
    case ErrorCode::kOverloaded:
    case ErrorCode::kWriteTimeout:
    case ErrorCode::kWriteFailure:
    case ErrorCode::kInvalid:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool IsCounterWriteError(ErrorCode code) {
  return IsWriteError(static_cast<int64_t>(code));
}

std::string EncodeCounterLeaderRequest(const CounterLeaderRequest& request) {
  std::string out;
  PutFixed16BE(&out, static_cast<uint16_t>(request.consistency));
  out += request.update;
  return out;
}

Result<CounterLeaderRequest> DecodeCounterLeaderRequest(std::string_view bytes) {
  uint16_t level = 0;
  if (!GetFixed16BE(&bytes, &level) || !IsLevel(level)) {
    return Status::ServerError("Malformed counter leader request");
  }
  CounterLeaderRequest out;
  out.consistency = static_cast<Consistency>(level);
  out.update = std::string(bytes);
  return out;
}

std::string EncodeCounterOutcome(const Status& outcome) {
  std::string out;
  if (outcome.ok()) return out;
  PutVarsint64(&out, static_cast<int64_t>(outcome.code()));
  PutLengthPrefixed(&out, outcome.message());
  const ReplicaCounts* counts = outcome.counts();
  out.push_back(counts != nullptr ? 1 : 0);
  if (counts != nullptr) {
    PutVarsint64(&out, counts->block_for);
    PutVarsint64(&out, counts->received);
  }
  return out;
}

Status DecodeCounterOutcome(std::string_view bytes, Consistency consistency) {
  if (bytes.empty()) return Status::OK();
  int64_t code = 0;
  std::string_view message;
  uint8_t has_counts = 0;
  const Status malformed =
      Status::ServerError("Malformed counter leader answer");
  if (!GetVarsint64(&bytes, &code) || !GetLengthPrefixed(&bytes, &message) ||
      !GetByte(&bytes, &has_counts) || has_counts > 1) {
    return malformed;
  }
  if (has_counts == 0 && !bytes.empty()) return malformed;
  if (!IsWriteError(code)) {
    return Status::ServerError("Counter leader failed: " + std::string(message));
  }
  if (has_counts == 0) {
    return Status(static_cast<ErrorCode>(code), std::string(message));
  }
  ReplicaCounts counts;
  int64_t block_for = 0, received = 0;
  if (!GetVarsint64(&bytes, &block_for) || !GetVarsint64(&bytes, &received) ||
      !bytes.empty() || block_for < 0 || block_for > INT32_MAX ||
      received < 0 || received > INT32_MAX) {
    return malformed;
  }
  counts.consistency = consistency;
  counts.block_for = static_cast<int32_t>(block_for);
  counts.received = static_cast<int32_t>(received);
  counts.write_type = "COUNTER";
  return Status::WithCounts(static_cast<ErrorCode>(code), std::string(message),
                            counts);
}

}  // namespace keywise::cluster
