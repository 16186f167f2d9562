#include "cluster/messaging/response.h"

namespace keywise::cluster {

std::string_view SendErrorName(SendError error) {
  switch (error) {
    case SendError::kNone:
      return "None";
    case SendError::kTimeout:
      return "Timeout";
    case SendError::kConnectionLost:
      return "ConnectionLost";
    case SendError::kUnreachable:
      return "Unreachable";
    case SendError::kOverloaded:
      return "Overloaded";
    case SendError::kTooLarge:
      return "TooLarge";
    case SendError::kRemoteError:
      return "RemoteError";
    case SendError::kUnknownVerb:
      return "UnknownVerb";
    case SendError::kShutdown:
      return "Shutdown";
  }
  return "Unknown";
}

std::string Response::ToString() const {
  if (ok()) return "OK";
  return std::string(SendErrorName(error_)) + ": " + status_.ToString();
}

}  // namespace keywise::cluster
