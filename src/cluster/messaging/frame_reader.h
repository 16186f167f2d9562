// FrameReader: cuts the frames of one messaging connection (frame.h) out of
// its bytes as they arrive, and rejects malformed or oversized ones before
// buffering their payload.
//
// Contract: not thread-safe; one per connection, used on its I/O thread.
// Reads only inside its own buffer, whatever the input. After an error it
// stays failed (the connection is closed). The version byte is not checked
// here: it is the connection's negotiated version that frames must carry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "cluster/messaging/frame.h"
#include "common/status.h"

namespace keywise::cluster {

struct Frame {
  FrameHeader header;
  std::string payload;
};

class FrameReader {
 public:
  explicit FrameReader(uint32_t max_frame_bytes)
      : max_frame_bytes_(max_frame_bytes) {}

  // Returns writable space of at least `min_bytes` at the end of the
  // buffer, for a socket read; Commit(n) then adds the n bytes read.
  std::span<char> Prepare(size_t min_bytes);
  void Commit(size_t n) { end_ += n; }
  // Prepare + copy + Commit.
  void Feed(std::string_view bytes);

  enum class Outcome { kFrame, kNeedMore, kError };
  // kFrame: *frame holds the next whole frame. kNeedMore: no whole frame is
  // buffered. kError: status() says why the input is invalid.
  Outcome Next(Frame* frame);

  const Status& status() const { return status_; }
  size_t buffered() const { return end_ - begin_; }
  // Drops every buffered byte and any error (a new connection).
  void Reset();

 private:
  const uint32_t max_frame_bytes_;
  std::string buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last byte read
  Status status_;
};

}  // namespace keywise::cluster
