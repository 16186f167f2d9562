// Response: what the callback of MessagingService::Send receives, the
// peer's response payload or why there is none.
//
// Contract: value type. ok() exactly when error() is SendError::kNone; then
// payload() is the peer's bytes. Otherwise status() says what happened: for
// kRemoteError it is the handler's own Status (its CQL code and message, so
// a replica's Overloaded or WriteFailure reaches the coordinator as is); for
// kOverloaded its code is kOverloaded, for kTooLarge kInvalid, and
// kServerError for the rest, with a message naming the peer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"

namespace keywise::cluster {

enum class SendError : uint8_t {
  kNone,
  kTimeout,         // no response within the timeout (a late one is dropped)
  kConnectionLost,  // the connection closed after the request was queued on
                    // it; the peer may or may not have handled it
  kUnreachable,     // no connection: connecting or the handshake failed, or
                    // the peer is down and the next attempt is pending
  kOverloaded,      // the bytes queued for the peer were over the limit
  kTooLarge,        // the frame would exceed max_frame_bytes
  kRemoteError,     // the peer's handler failed
  kUnknownVerb,     // the peer has no handler for the verb
  kShutdown,        // this service stopped (or never started)
};

// "Timeout", "ConnectionLost", ...
std::string_view SendErrorName(SendError error);

class Response {
 public:
  static Response Ok(std::string payload) {
    return Response(SendError::kNone, Status::OK(), std::move(payload));
  }
  // REQUIRES: error != kNone and !status.ok().
  static Response Error(SendError error, Status status) {
    return Response(error, std::move(status), {});
  }

  bool ok() const { return error_ == SendError::kNone; }
  SendError error() const { return error_; }
  const Status& status() const { return status_; }
  const std::string& payload() const { return payload_; }
  std::string TakePayload() { return std::move(payload_); }
  // "OK" or "Timeout: ServerError: ...", for logs and tests.
  std::string ToString() const;

 private:
  Response(SendError error, Status status, std::string payload)
      : error_(error),
        status_(std::move(status)),
        payload_(std::move(payload)) {}

  SendError error_;
  Status status_;
  std::string payload_;
};

}  // namespace keywise::cluster
