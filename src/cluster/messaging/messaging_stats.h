// MessagingStats: counters of one MessagingService since it was built, for
// metrics and tests.
//
// Contract: a plain snapshot (MessagingService::stats()); counters only
// grow. Each is read separately, so a snapshot taken while traffic flows
// need not be consistent across counters.
#pragma once

#include <cstdint>

namespace keywise::cluster {

struct MessagingStats {
  uint64_t requests_sent = 0;        // Send calls queued on a connection
  uint64_t one_way_sent = 0;         // SendOneWay calls queued
  uint64_t responses_received = 0;   // responses matched to a waiting Send
  uint64_t late_responses = 0;       // responses after their timeout: dropped
  uint64_t timeouts = 0;             // Sends answered with kTimeout
  uint64_t overloaded = 0;           // Sends refused: peer queue over limit
  uint64_t messages_handled = 0;     // incoming messages given to a handler
  uint64_t unknown_verbs = 0;        // incoming messages with no handler
  uint64_t read_pauses = 0;          // incoming connection stopped reading
  uint64_t malformed_frames = 0;     // connections closed for a bad frame
  uint64_t rejected_handshakes = 0;  // incoming: bad hello or no common
                                     // version
  uint64_t connections_up = 0;       // outgoing handshakes completed
  // Socket writes of frames (requests, one-way messages, responses; not
  // handshakes) and the frames they carried: frames per write is how much
  // coalescing saves in system calls.
  uint64_t socket_writes = 0;
  uint64_t frames_written = 0;
};

}  // namespace keywise::cluster
