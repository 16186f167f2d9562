#include "client/session.h"

#include <future>
#include <utility>

namespace keywise::client {

Session::Session() : work_(boost::asio::make_work_guard(io_)) {
  thread_ = std::thread([this] { io_.run(); });
}

Session::~Session() {
  if (connection_) connection_->Close();
  work_.reset();
  // Let the close run, then stop.
  thread_.join();
}

Result<std::unique_ptr<Session>> Session::Connect(const ConnectOptions& options,
                                                  Reply* failure) {
  std::unique_ptr<Session> s(new Session());
  s->connection_ = Connection::Create(s->io_, options);
  Reply r = s->Wait([&](Connection::ReplyCallback cb) {
    s->connection_->Connect(std::move(cb));
  });
  if (!r.ok()) {
    if (failure) *failure = r;
    return r.status;
  }
  return s;
}

Reply Session::Wait(const std::function<void(Connection::ReplyCallback)>& start) {
  std::promise<Reply> promise;
  std::future<Reply> future = promise.get_future();
  start([&promise](Reply r) { promise.set_value(std::move(r)); });
  return future.get();
}

Reply Session::Query(std::string_view cql, const QueryParams& params,
                     bool tracing) {
  Reply r = Wait([&](Connection::ReplyCallback cb) {
    connection_->Query(cql, params, std::move(cb), tracing);
  });
  if (r.ok() && r.result.kind == ResultKind::kSetKeyspace) {
    keyspace_ = r.result.keyspace;
  }
  return r;
}

Reply Session::Prepare(std::string_view cql) {
  return Wait([&](Connection::ReplyCallback cb) {
    connection_->Prepare(cql, std::move(cb));
  });
}

Reply Session::Execute(std::string_view id, const QueryParams& params,
                       bool tracing) {
  Reply r = Wait([&](Connection::ReplyCallback cb) {
    connection_->Execute(id, params, std::move(cb), tracing);
  });
  if (r.ok() && r.result.kind == ResultKind::kSetKeyspace) {
    keyspace_ = r.result.keyspace;
  }
  return r;
}

Reply Session::Batch(const std::vector<BatchEntry>& entries,
                     const BatchParams& params) {
  return Wait([&](Connection::ReplyCallback cb) {
    connection_->Batch(entries, params, std::move(cb));
  });
}

}  // namespace keywise::client
