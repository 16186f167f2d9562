// WithinGcGrace: whether a write kept for later (a hint, a logged batch)
// may still be replayed. Only while it is younger than its table's
// gc_grace_seconds (Cassandra's rule for hints and batch replay): after
// that, a tombstone that deleted its row since may already be purged
// everywhere, and replaying the write would bring the row back.
//
// Contract: a pure function.
#pragma once

#include <cstdint>

namespace keywise::cluster {

// `written_millis` and `now_millis` are unix times; strictly younger than
// `gc_grace_seconds`, so never with 0.
inline bool WithinGcGrace(int64_t written_millis, int64_t now_millis,
                          int32_t gc_grace_seconds) {
  return now_millis - written_millis <
         static_cast<int64_t>(gc_grace_seconds) * 1000;
}

}  // namespace keywise::cluster
