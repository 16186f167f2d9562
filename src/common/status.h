// Status and Result<T>: errors as cheap values carrying a CQL error code.
//
// Contract: every fallible function in Keywise returns Status or Result<T>.
// The code is the CQL native-protocol error code (native_protocol_v4.spec,
// section 9) so that server/ can turn a Status into an ERROR frame without a
// mapping table. Storage-level failures (I/O, corruption) use kServerError.
// Status is immutable and cheap to copy when ok (no allocation).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "common/consistency.h"

namespace keywise {

// CQL wire error codes. Stored nowhere; values are the protocol's.
enum class ErrorCode : int32_t {
  kOk = -1,  // not a wire code; only for Status::OK()
  kServerError = 0x0000,
  kProtocolError = 0x000A,
  kBadCredentials = 0x0100,
  kUnavailable = 0x1000,
  kOverloaded = 0x1001,
  kIsBootstrapping = 0x1002,
  kTruncateError = 0x1003,
  kWriteTimeout = 0x1100,
  kReadTimeout = 0x1200,
  kReadFailure = 0x1300,
  kFunctionFailure = 0x1400,
  kWriteFailure = 0x1500,
  // v5: a compare-and-set whose proposal a minority accepted (before v5
  // sent as a CAS WriteTimeout).
  kCasWriteUnknown = 0x1700,
  kSyntaxError = 0x2000,
  kUnauthorized = 0x2100,
  kInvalid = 0x2200,
  kConfigError = 0x2300,
  kAlreadyExists = 0x2400,
  kUnprepared = 0x2500,
};

// Returns the short name Cassandra drivers print for the code ("Invalid").
std::string_view ErrorCodeName(ErrorCode code);

// The replica counts that Unavailable, ReadTimeout and WriteTimeout errors
// carry on the wire (native_protocol_v4.spec section 9).
struct ReplicaCounts {
  Consistency consistency = Consistency::kOne;  // the request's level
  int32_t block_for = 0;  // replicas required
  // Unavailable: replicas alive; timeouts: replicas that answered.
  int32_t received = 0;
  bool data_present = false;  // ReadTimeout: the data replica answered
  std::string write_type = "SIMPLE";  // WriteTimeout: Cassandra's WriteType
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorCode code, std::string message);

  static Status OK() { return Status(); }
  static Status Invalid(std::string msg) {
    return Status(ErrorCode::kInvalid, std::move(msg));
  }
  static Status ServerError(std::string msg) {
    return Status(ErrorCode::kServerError, std::move(msg));
  }
  static Status ConfigError(std::string msg) {
    return Status(ErrorCode::kConfigError, std::move(msg));
  }
  static Status AlreadyExists(std::string msg) {
    return Status(ErrorCode::kAlreadyExists, std::move(msg));
  }
  static Status SyntaxError(std::string msg) {
    return Status(ErrorCode::kSyntaxError, std::move(msg));
  }
  static Status ProtocolError(std::string msg) {
    return Status(ErrorCode::kProtocolError, std::move(msg));
  }
  // Errors of replicated requests, with their replica counts:
  // `code` is kUnavailable, kReadTimeout, kWriteTimeout or
  // kCasWriteUnknown.
  static Status WithCounts(ErrorCode code, std::string msg,
                           ReplicaCounts counts);

  bool ok() const { return rep_ == nullptr; }
  ErrorCode code() const { return rep_ ? rep_->code : ErrorCode::kOk; }
  // Empty when ok.
  const std::string& message() const;
  // The replica counts of a WithCounts status; nullptr otherwise.
  const ReplicaCounts* counts() const {
    return rep_ && rep_->counts ? &*rep_->counts : nullptr;
  }
  // "Invalid: message" or "OK"; for logs and test failures.
  std::string ToString() const;

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

 private:
  struct Rep {
    ErrorCode code;
    std::string message;
    std::optional<ReplicaCounts> counts;
  };
  std::shared_ptr<const Rep> rep_;
};

// Either a value or a non-ok Status. Accessing value() of an error is a
// programmer bug (asserts in debug builds).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace keywise

// Propagates a non-ok Status from an expression returning Status.
#define KW_RETURN_IF_ERROR(expr)           \
  do {                                     \
    ::keywise::Status _kw_st = (expr);     \
    if (!_kw_st.ok()) return _kw_st;       \
  } while (0)

#define KW_CONCAT_INNER(a, b) a##b
#define KW_CONCAT(a, b) KW_CONCAT_INNER(a, b)
// Declares `lhs` from a Result-returning expression or returns its Status.
#define KW_ASSIGN_OR_RETURN(lhs, expr) \
  KW_ASSIGN_OR_RETURN_IMPL(KW_CONCAT(_kw_res_, __LINE__), lhs, expr)
#define KW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
