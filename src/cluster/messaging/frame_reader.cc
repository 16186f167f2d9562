#include "cluster/messaging/frame_reader.h"

#include <cstring>

namespace keywise::cluster {

std::span<char> FrameReader::Prepare(size_t min_bytes) {
  constexpr size_t kKeepBytes = size_t{1} << 20;
  if (begin_ == end_) {
    begin_ = end_ = 0;
    // A big frame is gone: do not keep its buffer for small ones.
    if (buffer_.size() > kKeepBytes) std::string().swap(buffer_);
  }
  if (buffer_.size() - end_ < min_bytes) {
    // Move what is unread to the front; grow only if that is not enough.
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() - end_ < min_bytes) buffer_.resize(end_ + min_bytes);
  }
  return std::span<char>(buffer_.data() + end_, buffer_.size() - end_);
}

void FrameReader::Feed(std::string_view bytes) {
  std::span<char> space = Prepare(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  Commit(bytes.size());
}

FrameReader::Outcome FrameReader::Next(Frame* frame) {
  if (!status_.ok()) return Outcome::kError;
  const size_t available = end_ - begin_;
  if (available < kFrameHeaderSize) return Outcome::kNeedMore;
  const std::string_view bytes(buffer_.data() + begin_, available);
  size_t frame_size = 0;
  Result<FrameHeader> header =
      DecodeFrameHeader(bytes, max_frame_bytes_, &frame_size);
  if (!header.ok()) {
    status_ = header.status();
    return Outcome::kError;
  }
  if (available < frame_size) return Outcome::kNeedMore;
  frame->header = *header;
  frame->payload.assign(
      bytes.substr(kFrameHeaderSize, frame_size - kFrameHeaderSize));
  begin_ += frame_size;
  return Outcome::kFrame;
}

void FrameReader::Reset() {
  begin_ = end_ = 0;
  buffer_.clear();
  buffer_.shrink_to_fit();
  status_ = Status::OK();
}

}  // namespace keywise::cluster
