// Reply: the outcome of one request as the typed client APIs deliver it.
//
// Contract: plain data. Exactly one of: ok (result holds the decoded RESULT,
// or is empty for READY/AUTH_SUCCESS replies), a server ERROR (error holds
// its fields and status its code and message), or a client-side failure
// (timeout, lost connection, undecodable reply; status says which).
#pragma once

#include <cstdint>
#include <string>

#include "client/responses.h"
#include "common/status.h"

namespace keywise::client {

enum class ReplySource : uint8_t {
  kOk = 0,
  kServer = 1,      // the server answered with an ERROR frame
  kTimeout = 2,     // no answer within the request timeout
  kConnection = 3,  // connect failed or the connection was lost
  kProtocol = 4,    // the reply could not be decoded
};

struct Reply {
  ReplySource source = ReplySource::kOk;
  Status status;
  ServerError error;
  QueryResult result;

  bool ok() const { return source == ReplySource::kOk; }

  static Reply Failure(ReplySource source, Status status) {
    Reply r;
    r.source = source;
    r.status = std::move(status);
    return r;
  }
};

}  // namespace keywise::client
