// Session: a synchronous client over one Connection, for tools that issue
// one request at a time (the shell); it also exposes the connection for
// concurrent asynchronous use (COPY FROM, the load generator).
//
// Contract: owns an io_context and the one thread that runs it. Blocking
// methods may be called from any thread except that io thread (i.e. not
// from inside a connection callback). Not meant for concurrent blocking
// calls from several threads, though the underlying connection is
// thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "client/connection.h"
#include "client/reply.h"
#include "client/requests.h"

namespace keywise::client {

class Session {
 public:
  // Connects (with the version fallback). Returns the failed Reply's status on error; *failure (if
  // given) receives the whole Reply.
  static Result<std::unique_ptr<Session>> Connect(const ConnectOptions& options,
                                                  Reply* failure = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Reply Query(std::string_view cql, const QueryParams& params,
              bool tracing = false);
  Reply Prepare(std::string_view cql);
  Reply Execute(std::string_view id, const QueryParams& params,
                bool tracing = false);
  Reply Batch(const std::vector<BatchEntry>& entries, const BatchParams& params);

  // The keyspace of the last successful USE through this session.
  const std::string& keyspace() const { return keyspace_; }
  uint8_t protocol_version() const { return connection_->version(); }
  const std::shared_ptr<Connection>& connection() const { return connection_; }

 private:
  Session();
  Reply Wait(const std::function<void(Connection::ReplyCallback)>& start);

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::shared_ptr<Connection> connection_;
  std::thread thread_;
  std::string keyspace_;
};

}  // namespace keywise::client
