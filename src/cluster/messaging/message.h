// Verb and IncomingMessage: what MessagingService hands its handlers.
//
// Contract: value types, thread-safe to copy. Verbs are numbers on the wire
// (frame.h); the cluster code defines them (a mutation, a read, a hint...)
// and never renumbers one.
#pragma once

#include <cstdint>
#include <string>

#include "common/uuid.h"

namespace keywise::cluster {

// What a message asks for. An enum without enumerators: a distinct type
// that holds any uint16_t, named by the code that defines the verbs.
enum class Verb : uint16_t {};

constexpr uint16_t VerbValue(Verb verb) {
  return static_cast<uint16_t>(verb);
}

// Whether the sender waits for an answer.
enum class Delivery : uint8_t {
  kRequest,  // MessagingService::Send: answer through the Responder
  kOneWay,   // SendOneWay: nobody waits; the Responder only ends the work
};

struct IncomingMessage {
  Verb verb{};
  Delivery delivery = Delivery::kRequest;
  Uuid from;  // the sender's node id, from its handshake
  // The sender's epoch when it sent the message (frame.h, version 2);
  // kNoEpoch (-1) when it set none or speaks version 1.
  int64_t epoch = -1;
  std::string payload;
};

}  // namespace keywise::cluster
