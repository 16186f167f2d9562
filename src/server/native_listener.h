// NativeListener: the TCP acceptor of the CQL native transport.
//
// Until the CQL protocol is implemented, every connection gets one answer:
// the listener reads the client's first frame and replies with an ERROR frame
// (code 0x000A Protocol error, kNotImplementedMessage) in the client's
// protocol version (v4 when the version is not one of 3..5), then closes.
//
// Contract: Bind() and Run() are called once, from one thread; Run() serves
// every connection on that thread and blocks until Stop() — callable from any
// thread, before or during Run() — or, with ShutdownSignals::kHandle, until
// the process receives SIGINT or SIGTERM. Asio stays inside this file's .cc.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"

namespace keywise {

inline constexpr char kNotImplementedMessage[] =
    "Keywise: the CQL native protocol is not implemented yet";

enum class ShutdownSignals {
  kIgnore,  // leave SIGINT/SIGTERM alone (tests)
  kHandle,  // SIGINT/SIGTERM stop Run(); installed by the constructor
};

class NativeListener {
 public:
  // `max_frame_bytes`: bodies up to this size are read (and dropped) before
  // replying; the connection is closed after larger ones are announced.
  NativeListener(std::string address, int port, size_t max_frame_bytes,
                 ShutdownSignals signals);
  ~NativeListener();
  NativeListener(const NativeListener&) = delete;
  NativeListener& operator=(const NativeListener&) = delete;

  // Resolves the address and starts listening. ServerError when the address
  // does not resolve or cannot be bound (e.g. the port is in use).
  Status Bind();

  // The bound port (the OS's pick when the configured port was 0).
  // REQUIRES: Bind() succeeded.
  int port() const;

  // Serves connections until stopped; returns OK on a requested stop.
  // REQUIRES: Bind() succeeded.
  Status Run();

  // Makes Run() return (at once if it has not started). Thread-safe, but not
  // async-signal-safe: signals go through ShutdownSignals::kHandle.
  void Stop();

  // Whether a SIGINT/SIGTERM ended Run().
  bool stopped_by_signal() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keywise
