// OutgoingConnection's frame traffic once the handshake is done: writing
// queued frames, reading responses, and expiring timed-out requests. The
// connection's lifecycle is in outgoing_connection.cc.
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <optional>

#include "cluster/messaging/outgoing_connection.h"

namespace keywise::cluster {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

constexpr size_t kResponseReadChunk = size_t{64} << 10;
// Frames encoded into one write; the rest wait for the next one.
constexpr size_t kMaxWriteBatch = size_t{1} << 20;
// A write buffer larger than this is freed after use.
constexpr size_t kKeepWriteBuffer = size_t{4} << 20;

}  // namespace

void OutgoingConnection::ScheduleFlush() {
  if (flush_scheduled_ || write_active_ || phase_ != Phase::kReady) return;
  flush_scheduled_ = true;
  // Deferred so that the Sends of one burst share a write.
  asio::post(executor_, [self = shared_from_this()] {
    self->flush_scheduled_ = false;
    self->Flush();
  });
}

void OutgoingConnection::Flush() {
  if (write_active_ || phase_ != Phase::kReady) return;
  writing_.clear();
  writing_bytes_ = 0;
  uint64_t frames = 0;
  while (!queue_.empty() && writing_.size() < kMaxWriteBatch) {
    Queued& queued = queue_.front();
    const size_t bytes = FrameBytes(queued.payload);
    if (queued.kind == FrameKind::kRequest &&
        !pending_.contains(queued.request_id)) {
      Release(bytes);  // timed out before it was sent: not worth sending
      queue_.pop_front();
      continue;
    }
    FrameHeader header;
    header.version = version_;
    header.verb = queued.verb;
    header.kind = queued.kind;
    header.request_id = queued.request_id;
    if (CarriesEpoch(version_, queued.kind)) {
      AppendFrameHeader(header, kEpochSize + queued.payload.size(), &writing_);
      AppendEpoch(queued.epoch, &writing_);
    } else {
      AppendFrameHeader(header, queued.payload.size(), &writing_);
    }
    writing_.append(queued.payload);
    writing_bytes_ += bytes;
    queue_.pop_front();
    ++frames;
  }
  if (writing_.empty()) return;
  state_->counters.socket_writes.fetch_add(1, std::memory_order_relaxed);
  state_->counters.frames_written.fetch_add(frames, std::memory_order_relaxed);
  write_active_ = true;
  stream_->AsyncWrite(
      asio::buffer(writing_),
      [self = shared_from_this(), stream = stream_, generation = generation_](
          const error_code& ec, size_t) { self->OnWritten(generation, ec); });
}

void OutgoingConnection::OnWritten(uint64_t generation, const error_code& ec) {
  if (generation != generation_) return;  // released by OnFailure/CloseNow
  write_active_ = false;
  Release(writing_bytes_);
  writing_bytes_ = 0;
  if (writing_.capacity() > kKeepWriteBuffer) std::string().swap(writing_);
  if (ec) {
    return OnFailure(Status::ServerError("connection to " + peer_name_ +
                                         " lost: " + ec.message()));
  }
  Flush();
}

void OutgoingConnection::Read() {
  if (reading_ || phase_ != Phase::kReady) return;
  reading_ = true;
  const std::span<char> space = reader_->Prepare(kResponseReadChunk);
  stream_->AsyncReadSome(
      asio::buffer(space.data(), space.size()),
      [self = shared_from_this(), stream = stream_, reader = reader_,
       generation = generation_](const error_code& ec, size_t n) {
        self->OnRead(generation, ec, n);
      });
}

void OutgoingConnection::OnRead(uint64_t generation, const error_code& ec,
                                size_t n) {
  if (generation != generation_) return;
  reading_ = false;
  if (ec) {
    return OnFailure(Status::ServerError(
        "connection to " + peer_name_ + " lost: " +
        (ec == asio::error::eof ? "closed by the peer" : ec.message())));
  }
  reader_->Commit(n);
  last_received_ = Clock::now();
  Frame frame;
  while (true) {
    const FrameReader::Outcome outcome = reader_->Next(&frame);
    if (outcome == FrameReader::Outcome::kNeedMore) break;
    if (outcome == FrameReader::Outcome::kError || !OnResponse(frame)) {
      state_->counters.malformed_frames.fetch_add(1);
      const Status why =
          outcome == FrameReader::Outcome::kError
              ? reader_->status()
              : Status::ProtocolError(
                    "unexpected frame (kind " +
                    std::to_string(static_cast<int>(frame.header.kind)) +
                    ", version " + std::to_string(frame.header.version) + ")");
      return OnFailure(Status::ServerError("invalid frame from " + peer_name_ +
                                           ": " + why.message()));
    }
    // A callback may have closed the connection (RemovePeer posts, so this
    // only guards against future changes).
    if (generation != generation_) return;
  }
  Read();
}

bool OutgoingConnection::OnResponse(Frame& frame) {
  const FrameHeader& header = frame.header;
  if (header.version != version_ || header.kind != FrameKind::kResponse) {
    return false;
  }
  Response response = Response::Ok({});
  if (header.error) {
    Result<RemoteError> error = DecodeErrorPayload(frame.payload);
    if (!error.ok()) return false;
    response = Response::Error(error->reason == ErrorReason::kUnknownVerb
                                   ? SendError::kUnknownVerb
                                   : SendError::kRemoteError,
                               std::move(error->status));
  } else {
    response = Response::Ok(std::move(frame.payload));
  }
  auto it = pending_.find(header.request_id);
  if (it == pending_.end()) {
    state_->counters.late_responses.fetch_add(1);  // timed out: dropped
    return true;
  }
  Pending pending = std::move(it->second);
  pending_.erase(it);
  deadlines_.erase({pending.deadline, header.request_id});
  state_->counters.responses_received.fetch_add(1);
  pending.callback(std::move(response));
  return true;
}

void OutgoingConnection::ArmDeadlineTimer() {
  if (deadlines_.empty()) return;
  const Clock::time_point earliest = deadlines_.begin()->first;
  if (deadline_armed_ && deadline_armed_at_ <= earliest) return;
  deadline_armed_ = true;
  deadline_armed_at_ = earliest;
  const uint64_t token = ++deadline_token_;
  deadline_timer_.expires_at(earliest);
  deadline_timer_.async_wait(
      [self = shared_from_this(), token](const error_code& ec) {
        // A re-arm replaced this wait (token), or the connection closed.
        if (ec || token != self->deadline_token_) return;
        self->deadline_armed_ = false;
        self->OnDeadlines();
      });
}

void OutgoingConnection::OnDeadlines() {
  const Clock::time_point now = Clock::now();
  // A request that timed out with nothing at all received meanwhile: the
  // connection may be dead without a reset (a partition, a paused peer).
  std::optional<std::chrono::milliseconds> silent;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint64_t id = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    auto it = pending_.find(id);
    if (it == pending_.end()) continue;
    Pending pending = std::move(it->second);
    pending_.erase(it);
    if (phase_ == Phase::kReady &&
        pending.timeout >= state_->options.dead_connection_after &&
        last_received_ < pending.deadline - pending.timeout) {
      silent = pending.timeout;
    }
    state_->counters.timeouts.fetch_add(1);
    pending.callback(Response::Error(
        SendError::kTimeout,
        Status::ServerError("timed out after " +
                            std::to_string(pending.timeout.count()) +
                            " ms waiting for " + peer_name_ + " (verb " +
                            std::to_string(pending.verb) + ")")));
  }
  if (silent && phase_ == Phase::kReady) {
    // Reconnect: a peer that is only slow takes the new connection at once
    // (and is seen up again); one that is cut off fails the attempt, which
    // the failure detector hears (PeerState::kUnreachable).
    return OnFailure(Status::ServerError(
        "no answer from " + peer_name_ + " for " +
        std::to_string(silent->count()) +
        " ms: the connection is presumed dead"));
  }
  ArmDeadlineTimer();
}

}  // namespace keywise::cluster
