// IncomingConnection: a peer's connection to this node, accepted by the
// service. It answers the handshake, hands each request or one-way message
// to its verb's handler and writes the answers back, in completion order.
//
// Backpressure: it stops reading its socket while max_requests_in_flight
// messages are with handlers (from arrival until their Responder answers or
// dies) or max_pending_response_bytes of answers are unwritten, and reads
// again when either drops below. Bytes already read wait in the reader.
// A malformed or oversized frame closes this connection only.
//
// Contract: internal to messaging. Created on the acceptor's loop, then
// used only on its own loop (executor()): Start, Close and OnAnswered run
// there. Responders reach OnAnswered through the LoopGate from any thread.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>  // before Asio: Boost 1.74 misses it in C++20

#include "cluster/messaging/frame_reader.h"
#include "cluster/messaging/loop_gate.h"
#include "cluster/messaging/responder.h"
#include "cluster/messaging/service_state.h"
#include "common/status.h"
#include "common/uuid.h"
#include "net/stream.h"

namespace keywise::cluster {

class IncomingConnection
    : public std::enable_shared_from_this<IncomingConnection> {
 public:
  IncomingConnection(boost::asio::ip::tcp::socket socket,
                     std::shared_ptr<ServiceState> state,
                     std::shared_ptr<LoopGate> gate);
  IncomingConnection(const IncomingConnection&) = delete;
  IncomingConnection& operator=(const IncomingConnection&) = delete;

  boost::asio::any_io_executor executor() { return stream_.get_executor(); }

  // Does the TLS handshake (when messaging has TLS: MessagingTls), then
  // reads the peer's hello. Loop only.
  void Start();
  // Closes the socket; later answers are dropped. Loop only.
  void Close();
  // A handler's answer to message `request_id`: queues the response (or
  // the error) when one is expected, frees the message's in-flight slot
  // and resumes reading if that was what held it. Loop only.
  void OnAnswered(uint64_t request_id, uint16_t verb, bool expects_response,
                  Result<std::string> answer);

 private:
  // The TLS handshake (server side), then ReadHello.
  void Handshake();
  void ReadHello();
  void OnHello(const boost::system::error_code& ec);
  void OnHelloSent(const boost::system::error_code& ec, bool refused);
  bool Paused() const;
  void Read();
  void OnRead(const boost::system::error_code& ec, size_t n);
  // Handles buffered frames until none is whole, a limit is reached or
  // the turn ends.
  void Pump();
  void ScheduleResume();
  void Dispatch(Frame frame);
  void QueueFrame(const FrameHeader& header, std::string_view payload);
  // Closes the connection for a protocol violation.
  void Reject(const Status& why);
  void ScheduleFlush();
  void Flush();
  void OnWritten(const boost::system::error_code& ec);

  net::Stream stream_;
  const std::shared_ptr<ServiceState> state_;
  const std::shared_ptr<LoopGate> gate_;
  std::shared_ptr<AnswerRoute> route_;  // shared by this one's Responders
  std::string remote_;                  // "127.0.0.2:43122", for log lines
  boost::asio::steady_timer handshake_timer_;
  std::string hello_buffer_;
  uint8_t version_ = 0;
  Uuid peer_node_;
  FrameReader reader_;

  bool ready_ = false;  // handshake done
  bool closed_ = false;
  bool reading_ = false;
  bool paused_ = false;  // Pump stopped at a limit
  bool resume_scheduled_ = false;
  size_t in_flight_ = 0;

  std::string out_;      // answers not yet being written
  uint64_t out_frames_ = 0;  // frames in out_
  std::string writing_;  // the write in progress
  bool write_active_ = false;
  bool flush_scheduled_ = false;
};

}  // namespace keywise::cluster
