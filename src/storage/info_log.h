// InfoLog: where RocksDB writes its info log (the file LOG in the data
// directory), in place of RocksDB's own logger.
//
// Why: RocksDB 7.8's logger (Debian's build keeps assertions) aborts the
// process on the first line it writes after a line it could not write. On
// a full disk that is the first flush or write error it logs, so a full
// disk killed the node instead of failing writes until space returns
// (docs/reliability.md, "Disk faults"). This logger writes each line with
// one write(2) and drops a line it cannot write; dropped lines are counted.
//
// Contract: Logv may be called from any thread (RocksDB's background and
// writer threads); each line is one append to the file. Open renames a
// previous LOG to LOG.old.<microseconds> and keeps the newest `keep_old`
// of those, as RocksDB does with keep_log_file_num.
#pragma once

#include <rocksdb/env.h>

#include <atomic>
#include <memory>
#include <string>

#include "common/status.h"

namespace keywise {

class InfoLog final : public rocksdb::Logger {
 public:
  // Opens (creates) `dir`/LOG for appending, after rotating an old one.
  // Returns an error if the file cannot be created: a data directory that
  // cannot take a new file cannot hold a database either.
  static Result<std::shared_ptr<InfoLog>> Open(const std::string& dir,
                                               int keep_old);

  // Opens `path` itself (no rotation): for tests (/dev/full).
  static Result<std::shared_ptr<InfoLog>> OpenFile(const std::string& path);

  ~InfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;

  // Lines that could not be written (the disk full, an I/O error).
  int64_t dropped_lines() const { return dropped_.load(); }

 private:
  explicit InfoLog(int fd) : fd_(fd) {}
  rocksdb::Status CloseImpl() override;

  int fd_;
  std::atomic<int64_t> dropped_{0};
};

}  // namespace keywise
