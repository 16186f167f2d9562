#include "system/trace_writer.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/log.h"
#include "system/trace_tables.h"

namespace keywise::system {

namespace {

Uuid SessionOf(const tracing::TraceRecord& record) {
  return std::visit([](const auto& r) { return r.session_id; }, record);
}

}  // namespace

TraceWriter::TraceWriter(Engine* engine, TraceWriterOptions options,
                         TraceCopySender* copies)
    : engine_(engine), options_(options), copies_(copies) {}

TraceWriter::~TraceWriter() { Stop(); }

void TraceWriter::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
}

void TraceWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::unique_lock<std::mutex> lock(mu_);
  // Never started: nothing will write what is queued.
  finished_total_ += queue_.size();
  stats_.dropped += queue_.size();
  queue_.clear();
  done_.notify_all();
  // The sender answers every copy within its timeout.
  done_.wait(lock, [&] { return copying_ == 0; });
}

void TraceWriter::Write(tracing::TraceRecord record) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_ || queue_.size() >= options_.max_queued) {
    ++stats_.dropped;
    NoteTrouble(Trouble::kDropped, 1, Status::OK());
    return;
  }
  queue_.push_back(std::move(record));
  ++queued_total_;
  const bool was_empty = queue_.size() == 1;
  lock.unlock();
  if (was_empty) wake_.notify_one();
}

void TraceWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = queued_total_;
  done_.wait(lock,
             [&] { return finished_total_ >= target && copying_ == 0; });
}

TraceWriter::Stats TraceWriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void TraceWriter::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything written
    std::deque<tracing::TraceRecord> batch;
    batch.swap(queue_);
    const uint64_t n = batch.size();
    lock.unlock();
    const uint64_t failed = WriteBatch(&batch);
    lock.lock();
    stats_.written += n - failed;
    stats_.failed += failed;
    finished_total_ += n;
    done_.notify_all();
  }
}

uint64_t TraceWriter::WriteBatch(std::deque<tracing::TraceRecord>* records) {
  Result<TraceTables> tables =
      FindTraceTables(*engine_->catalog().snapshot());
  if (!tables.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    NoteTrouble(Trouble::kFailed, records->size(), tables.status());
    return records->size();
  }
  uint64_t failed = 0;
  while (!records->empty()) {
    const int64_t now = engine_->clock().NowMicros();
    const TraceWriteTime at{now, static_cast<int32_t>(now / 1000000),
                            options_.ttl_seconds};
    std::vector<PartitionUpdate> updates;
    std::vector<Uuid> sessions;
    while (!records->empty() && updates.size() < options_.batch_records) {
      updates.push_back(TraceRecordUpdate(*tables, records->front(), at));
      sessions.push_back(SessionOf(records->front()));
      records->pop_front();
    }
    Status st = engine_->Apply(updates);
    if (!st.ok()) {
      failed += updates.size();
      std::lock_guard<std::mutex> lock(mu_);
      NoteTrouble(Trouble::kFailed, updates.size(), st);
    }
    // Copied even when the local write failed: the copy is then the one.
    if (copies_ != nullptr) SendCopies(std::move(updates), sessions);
  }
  return failed;
}

void TraceWriter::SendCopies(std::vector<PartitionUpdate> updates,
                             const std::vector<Uuid>& sessions) {
  const TraceCopySender::Members members = copies_->LiveMembers();
  std::map<Uuid, std::vector<PartitionUpdate>> by_node;
  for (size_t i = 0; i < updates.size(); ++i) {
    std::optional<Uuid> node =
        TraceCopyNode(sessions[i], members.self, members.live);
    if (node) by_node[*node].push_back(std::move(updates[i]));
  }
  for (auto& [node, group] : by_node) {
    const uint64_t n = group.size();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (copying_ + n > options_.max_copying) {
        stats_.copy_dropped += n;
        NoteTrouble(Trouble::kCopyDropped, n, Status::OK());
        continue;
      }
      copying_ += n;
    }
    copies_->Send(node, std::move(group), [this, n](const Status& st) {
      std::lock_guard<std::mutex> lock(mu_);
      copying_ -= n;
      if (st.ok()) {
        stats_.copied += n;
      } else {
        stats_.copy_failed += n;
        NoteTrouble(Trouble::kCopyFailed, n, st);
      }
      done_.notify_all();
    });
  }
}

void TraceWriter::NoteTrouble(Trouble what, uint64_t count,
                              const Status& status) {
  switch (what) {
    case Trouble::kDropped: unlogged_dropped_ += count; break;
    case Trouble::kFailed: unlogged_failed_ += count; break;
    case Trouble::kCopyDropped: unlogged_copy_dropped_ += count; break;
    case Trouble::kCopyFailed: unlogged_copy_failed_ += count; break;
  }
  const auto now = std::chrono::steady_clock::now();
  if (last_log_ != std::chrono::steady_clock::time_point{} &&
      now - last_log_ < kTraceLogInterval) {
    return;
  }
  last_log_ = now;
  const bool copies = unlogged_copy_dropped_ + unlogged_copy_failed_ > 0;
  std::string line;
  if (!copies || unlogged_dropped_ + unlogged_failed_ > 0) {
    line = "Trace records not written: " + std::to_string(unlogged_dropped_) +
           " dropped (queue full or stopping), " +
           std::to_string(unlogged_failed_) + " failed";
  }
  if (copies) {
    line += std::string(line.empty() ? "Trace records" : ";") +
            " not copied to another node: " +
            std::to_string(unlogged_copy_failed_) + " failed, " +
            std::to_string(unlogged_copy_dropped_) +
            " dropped (too many waiting for an answer)";
  }
  if (!status.ok()) line += " (last error: " + status.message() + ")";
  unlogged_dropped_ = 0;
  unlogged_failed_ = 0;
  unlogged_copy_dropped_ = 0;
  unlogged_copy_failed_ = 0;
  LogWarn("tracing", line);
}

}  // namespace keywise::system
