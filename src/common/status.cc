#include "common/status.h"

namespace keywise {

Status::Status(ErrorCode code, std::string message)
    : rep_(code == ErrorCode::kOk
               ? nullptr
               : std::make_shared<const Rep>(
                     Rep{code, std::move(message), std::nullopt})) {}

Status Status::WithCounts(ErrorCode code, std::string msg,
                          ReplicaCounts counts) {
  Status s;
  s.rep_ = std::make_shared<const Rep>(
      Rep{code, std::move(msg), std::move(counts)});
  return s;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "OK";
    case ErrorCode::kServerError: return "ServerError";
    case ErrorCode::kProtocolError: return "ProtocolError";
    case ErrorCode::kBadCredentials: return "BadCredentials";
    case ErrorCode::kUnavailable: return "Unavailable";
    case ErrorCode::kOverloaded: return "Overloaded";
    case ErrorCode::kIsBootstrapping: return "IsBootstrapping";
    case ErrorCode::kTruncateError: return "TruncateError";
    case ErrorCode::kWriteTimeout: return "WriteTimeout";
    case ErrorCode::kReadTimeout: return "ReadTimeout";
    case ErrorCode::kReadFailure: return "ReadFailure";
    case ErrorCode::kFunctionFailure: return "FunctionFailure";
    case ErrorCode::kWriteFailure: return "WriteFailure";
    case ErrorCode::kCasWriteUnknown: return "CasWriteUnknown";
    case ErrorCode::kSyntaxError: return "SyntaxException";
    case ErrorCode::kUnauthorized: return "Unauthorized";
    case ErrorCode::kInvalid: return "Invalid";
    case ErrorCode::kConfigError: return "ConfigurationException";
    case ErrorCode::kAlreadyExists: return "AlreadyExists";
    case ErrorCode::kUnprepared: return "Unprepared";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(ErrorCodeName(code()));
  s += ": ";
  s += message();
  return s;
}

}  // namespace keywise
