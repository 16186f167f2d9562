#include "cluster/etcd/watch_stream.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/gateway_json.h"
#include "cluster/etcd/http_connection.h"
#include "net/tls_context_holder.h"

namespace keywise::cluster {
namespace {

using Clock = std::chrono::steady_clock;

class WatchStream : public std::enable_shared_from_this<WatchStream> {
 public:
  WatchStream(WatchStreamOptions options, KeyRange range,
              int64_t start_revision, WatchCallback callback)
      : options_(std::move(options)),
        range_(std::move(range)),
        callback_(std::move(callback)),
        next_revision_(start_revision),
        endpoint_index_(options_.first_endpoint % options_.endpoints.size()) {}

  // Creates the watch, then starts the thread. Caller's thread.
  Status Start() {
    KW_RETURN_IF_ERROR(Connect());
    thread_ = std::thread([self = shared_from_this()] { self->Run(); });
    return Status::OK();
  }

  // Ends the watch; waits for the thread unless called on it.
  void Stop() {
    std::shared_ptr<HttpConnection> conn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      conn = conn_;
    }
    cv_.notify_all();
    if (conn) conn->Cancel();
    if (!thread_.joinable()) return;
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();  // the thread holds its own reference to *this
    } else {
      thread_.join();
    }
  }

 private:
  void Run();
  // Opens a stream on the first endpoint that accepts the watch, from
  // next_revision_; the stream is in conn_.
  Status Connect();
  Status ConnectTo(const std::shared_ptr<HttpConnection>& conn);
  // Reads and delivers until the stream breaks (its Status) or the watch
  // ends (OK).
  Status Pump();
  // Decodes and acts on the complete lines in pending_; with
  // `until_created`, stops after the creation ack.
  Status HandleLines(bool until_created);
  Status HandleItem(std::string_view line);
  void Deliver(WatchUpdate update);
  bool stopped() {
    std::lock_guard<std::mutex> lock(mu_);
    return stop_;
  }
  // Waits `delay`; returns false when stopped meanwhile.
  bool Sleep(std::chrono::milliseconds delay) {
    std::unique_lock<std::mutex> lock(mu_);
    return !cv_.wait_for(lock, delay, [this] { return stop_; });
  }

  const WatchStreamOptions options_;
  const KeyRange range_;
  const WatchCallback callback_;

  // Owned by whichever thread runs the watch (Start's caller, then the
  // watch thread); never touched by two at once.
  int64_t next_revision_;  // 0 until the first ack when started at "now"
  size_t endpoint_index_;
  std::string pending_;  // stream bytes not yet decoded
  bool created_ = false;
  bool finished_ = false;  // compacted: no more updates

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                     // guarded by mu_
  std::shared_ptr<HttpConnection> conn_;  // written under mu_ by the owner
  std::thread thread_;
};

void WatchStream::Run() {
  Status broken = Pump();
  while (!finished_ && !stopped()) {
    WatchUpdate lost;
    lost.kind = WatchUpdateKind::kConnectionLost;
    lost.error = broken.message().starts_with("etcd: ")
                     ? broken
                     : EtcdUnavailable("watch: " + broken.message());
    Deliver(std::move(lost));
    std::chrono::milliseconds delay = options_.retry_min;
    for (;;) {
      if (!Sleep(delay)) return;
      if (Connect().ok()) break;
      if (stopped()) return;
      delay = std::min(delay * 2, options_.retry_max);
    }
    if (finished_) return;
    WatchUpdate resumed;
    resumed.kind = WatchUpdateKind::kResumed;
    resumed.revision = next_revision_;
    Deliver(std::move(resumed));
    broken = Pump();
  }
}

Status WatchStream::Connect() {
  std::string errors;
  const size_t n = options_.endpoints.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t index = (endpoint_index_ + i) % n;
    auto conn = std::make_shared<HttpConnection>(
        options_.endpoints[index],
        options_.tls ? options_.tls->Current() : nullptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return EtcdUnavailable("watch stopped");
      conn_ = conn;
    }
    const Status status = ConnectTo(conn);
    if (status.ok()) {
      endpoint_index_ = index;
      return status;
    }
    std::string_view message = status.message();
    if (message.starts_with("etcd: ")) message.remove_prefix(6);
    if (!errors.empty()) errors += "; ";
    errors += message;
  }
  return EtcdUnavailable("watch: no endpoint accepted the watch: " + errors);
}

Status WatchStream::ConnectTo(const std::shared_ptr<HttpConnection>& conn) {
  KW_RETURN_IF_ERROR(conn->Connect(Clock::now() + options_.connect_timeout));
  conn->EnableKeepAliveProbes();
  const auto deadline = Clock::now() + options_.create_timeout;
  KW_ASSIGN_OR_RETURN(
      const HttpReply reply,
      conn->StartStream(kWatchPath,
                        EncodeWatchCreateRequest(range_, next_revision_),
                        deadline));
  if (reply.status != 200) {
    return GatewayErrorStatus("watch at " + conn->endpoint().ToString(),
                              reply.status, reply.body);
  }
  pending_.clear();
  created_ = false;
  while (!created_ && !finished_) {
    KW_RETURN_IF_ERROR(conn->ReadStream(&pending_, deadline));
    KW_RETURN_IF_ERROR(HandleLines(/*until_created=*/true));
  }
  return Status::OK();
}

Status WatchStream::Pump() {
  const std::shared_ptr<HttpConnection> conn = conn_;  // only we write it
  for (;;) {
    KW_RETURN_IF_ERROR(HandleLines(/*until_created=*/false));
    if (finished_ || stopped()) return Status::OK();
    const Status read = conn->ReadStream(&pending_, Clock::time_point::max());
    if (!read.ok()) {
      // Deliver what arrived before the break, then report it.
      KW_RETURN_IF_ERROR(HandleLines(/*until_created=*/false));
      return finished_ ? Status::OK() : read;
    }
  }
}

Status WatchStream::HandleLines(bool until_created) {
  size_t start = 0;
  Status status;
  for (;;) {
    const size_t end = pending_.find('\n', start);
    if (end == std::string::npos) break;
    const std::string_view line(pending_.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    status = HandleItem(line);
    if (!status.ok() || finished_ || (until_created && created_)) break;
  }
  pending_.erase(0, start);
  return status;
}

Status WatchStream::HandleItem(std::string_view line) {
  KW_ASSIGN_OR_RETURN(WatchResponse response, DecodeWatchStreamItem(line));
  if (response.canceled) {
    if (response.compact_revision > 0) {
      finished_ = true;
      WatchUpdate update;
      update.kind = WatchUpdateKind::kCompacted;
      update.revision = response.compact_revision;
      Deliver(std::move(update));
      return Status::OK();
    }
    return EtcdUnavailable("watch cancelled by etcd: " +
                           response.cancel_reason);
  }
  if (response.created) {
    created_ = true;
    // Started at "now": the ack's revision is the last one not wanted.
    if (next_revision_ == 0) next_revision_ = response.revision + 1;
  }
  if (!response.events.empty()) {
    next_revision_ = response.events.back().kv.mod_revision + 1;
    WatchUpdate update;
    update.kind = WatchUpdateKind::kEvents;
    update.revision = response.revision;
    update.events = std::move(response.events);
    Deliver(std::move(update));
  } else if (!response.created) {
    // A progress notification: nothing up to its revision is pending.
    next_revision_ = std::max(next_revision_, response.revision + 1);
  }
  return Status::OK();
}

void WatchStream::Deliver(WatchUpdate update) {
  if (stopped()) return;
  callback_(std::move(update));
}

class WatchStreamHandle final : public WatchHandle {
 public:
  explicit WatchStreamHandle(std::shared_ptr<WatchStream> stream)
      : stream_(std::move(stream)) {}
  ~WatchStreamHandle() override { stream_->Stop(); }

 private:
  std::shared_ptr<WatchStream> stream_;
};

}  // namespace

Result<std::unique_ptr<WatchHandle>> StartWatchStream(
    WatchStreamOptions options, KeyRange range, int64_t start_revision,
    WatchCallback callback) {
  auto stream =
      std::make_shared<WatchStream>(std::move(options), std::move(range),
                                    start_revision, std::move(callback));
  KW_RETURN_IF_ERROR(stream->Start());
  return std::unique_ptr<WatchHandle>(
      std::make_unique<WatchStreamHandle>(std::move(stream)));
}

}  // namespace keywise::cluster
