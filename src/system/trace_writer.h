// TraceWriter: the node's trace sink. It writes the records of every
// traced request (tracing/trace_records.h) into this node's
// system_traces.sessions and system_traces.events (trace_tables.h) on a
// thread of its own, so that tracing never holds up or fails a request:
// Write only queues (Cassandra writes its traces on its TracingStage).
//
// A full queue (max_queued records waiting) drops what does not fit; a
// write that fails loses its batch. Both are counted and logged, at most
// once per kTraceLogInterval (with the counts since the last line), so a
// broken disk does not flood the log.
//
// In a cluster (a TraceCopySender, trace_copies.h), each batch written is
// also sent to the node that keeps the copy of its sessions' rows, from
// the writer's thread without waiting for the answer. At most
// max_copying records are sent and not yet answered; past that a batch's
// copy is dropped. Copies dropped or failed are counted and logged as
// above; the local write never depends on them.
//
// Contract: thread-safe. Start once, then Write from any thread; Stop (run
// by the destructor) writes what is queued, joins the thread and waits
// for the answers of the copies sent; records written after Stop are
// dropped. The engine and the copy sender outlive the writer.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "storage/engine.h"
#include "system/trace_copies.h"
#include "tracing/trace_records.h"

namespace keywise::system {

inline constexpr std::chrono::seconds kTraceLogInterval{10};

struct TraceWriterOptions {
  int32_t ttl_seconds = 86400;  // tracing_ttl_seconds; 0: no expiry
  size_t max_queued = 100000;   // records waiting to be written
  size_t batch_records = 1000;  // records per storage write
  size_t max_copying = 10000;   // records copied, not yet answered
};

class TraceWriter final : public tracing::TraceSink {
 public:
  // `copies`: where a cluster's copies go; null: no copies (one node).
  TraceWriter(Engine* engine, TraceWriterOptions options,
              TraceCopySender* copies = nullptr);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void Start();
  void Stop();

  void Write(tracing::TraceRecord record) override;

  // Waits until every record queued before the call is written, dropped
  // or failed, and every copy sent is answered (tests; a node never needs
  // to).
  void Flush();

  struct Stats {
    uint64_t written = 0;
    uint64_t dropped = 0;  // the queue was full, or the writer stopped
    uint64_t failed = 0;   // the storage write failed
    // Records whose copy another node applied, whose copy it did not
    // (refused, unreachable, timed out), and whose copy was not sent
    // (max_copying reached). Records with no other live node count in
    // none of them.
    uint64_t copied = 0;
    uint64_t copy_failed = 0;
    uint64_t copy_dropped = 0;
  };
  Stats stats() const;

 private:
  void Run();
  // Writes `records` in batches (and sends their copies); returns how
  // many failed.
  uint64_t WriteBatch(std::deque<tracing::TraceRecord>* records);
  // Sends the copies of `updates`, whose sessions are `sessions` (one
  // each), grouped by the node that keeps them.
  void SendCopies(std::vector<PartitionUpdate> updates,
                  const std::vector<Uuid>& sessions);
  // Logs drops and failures, at most once per kTraceLogInterval.
  // REQUIRES: mu_ held.
  enum class Trouble : uint8_t { kDropped, kFailed, kCopyDropped, kCopyFailed };
  void NoteTrouble(Trouble what, uint64_t count, const Status& status);

  Engine* const engine_;
  const TraceWriterOptions options_;
  TraceCopySender* const copies_;
  mutable std::mutex mu_;
  std::condition_variable wake_;  // records queued, or stopping
  std::condition_variable done_;  // a batch finished, or a copy answered
  std::deque<tracing::TraceRecord> queue_;  // guarded by mu_
  uint64_t queued_total_ = 0;               // guarded by mu_
  uint64_t finished_total_ = 0;             // guarded by mu_
  bool started_ = false;                    // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  uint64_t copying_ = 0;  // records copied, not answered; guarded by mu_
  Stats stats_;                             // guarded by mu_
  // Rate-limited logging; guarded by mu_.
  std::chrono::steady_clock::time_point last_log_{};
  uint64_t unlogged_dropped_ = 0;
  uint64_t unlogged_failed_ = 0;
  uint64_t unlogged_copy_dropped_ = 0;
  uint64_t unlogged_copy_failed_ = 0;
  std::thread thread_;
};

}  // namespace keywise::system
