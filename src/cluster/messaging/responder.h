// Responder: how a handler answers one incoming message, now or later, from
// any thread (a replica's write may wait on storage).
//
// Contract: movable, not copyable; answer at most once with Respond or Fail.
// Thread-safe in the sense that it may be moved to and answered on any
// thread, but one Responder is used by one thread at a time. A Responder
// destroyed without an answer fails the request ("dropped without an
// answer"), so a lost Responder never leaves a sender waiting for its
// timeout and never leaks the receiving connection's in-flight slot. For a
// one-way message (expects_response() false) answering only frees that
// slot. An answer after the connection closed, or after the service shut
// down, is dropped. The receiving connection counts a message in flight
// from its arrival until its Responder answers or dies: that count is the
// receiving side's backpressure (MessagingOptions::max_requests_in_flight).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace keywise::cluster {

// Where a Responder delivers: the connection its message came on.
// Implemented by messaging's incoming connection (tests may fake it).
class AnswerRoute {
 public:
  virtual ~AnswerRoute() = default;
  // Called once per message, from any thread. `answer` is the response
  // payload or the handler's failure (never an ok Status).
  virtual void Deliver(uint64_t request_id, uint16_t verb,
                       bool expects_response, Result<std::string> answer) = 0;
};

class Responder {
 public:
  Responder() = default;  // answers nothing; answered() is true
  Responder(std::shared_ptr<AnswerRoute> route, uint64_t request_id,
            uint16_t verb, bool expects_response)
      : route_(std::move(route)),
        request_id_(request_id),
        verb_(verb),
        expects_response_(expects_response) {}
  Responder(Responder&& other) noexcept;
  Responder& operator=(Responder&& other) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder();

  bool expects_response() const { return expects_response_; }
  // Whether the answer was given (or this Responder was moved from).
  bool answered() const { return route_ == nullptr; }

  // Sends `payload` as the response. REQUIRES: !answered().
  void Respond(std::string payload);
  // Sends the failure: the sender's callback gets SendError::kRemoteError
  // with this status (an ok status is sent as a ServerError).
  // REQUIRES: !answered().
  void Fail(Status status);

 private:
  void Answer(Result<std::string> answer);

  std::shared_ptr<AnswerRoute> route_;
  uint64_t request_id_ = 0;
  uint16_t verb_ = 0;
  bool expects_response_ = false;
};

}  // namespace keywise::cluster
