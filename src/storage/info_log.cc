#include "storage/info_log.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

namespace keywise {
namespace {

constexpr char kInfoLogName[] = "LOG";
constexpr char kOldInfoLogPrefix[] = "LOG.old.";

int64_t NowMicros() {
  timeval now;
  gettimeofday(&now, nullptr);
  return static_cast<int64_t>(now.tv_sec) * 1000000 + now.tv_usec;
}

// Renames dir/LOG to dir/LOG.old.<now> and removes all but the newest
// `keep_old` old logs. Best effort: a failure leaves files behind.
void RotateInfoLogs(const std::filesystem::path& dir, int keep_old) {
  std::error_code ec;
  const std::filesystem::path current = dir / kInfoLogName;
  if (std::filesystem::exists(current, ec)) {
    std::filesystem::rename(
        current, dir / (kOldInfoLogPrefix + std::to_string(NowMicros())), ec);
  }
  std::vector<std::string> old;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kOldInfoLogPrefix, 0) == 0) old.push_back(name);
  }
  // Equal-length decimal suffixes: names sort by time.
  std::sort(old.begin(), old.end());
  const size_t keep = static_cast<size_t>(std::max(0, keep_old));
  for (size_t i = 0; i + keep < old.size(); ++i) {
    std::filesystem::remove(dir / old[i], ec);
  }
}

Result<int> OpenForAppend(const std::string& path) {
  int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::ServerError("Storage error: cannot open " + path + ": " +
                               std::strerror(errno));
  }
  return fd;
}

}  // namespace

Result<std::shared_ptr<InfoLog>> InfoLog::Open(const std::string& dir,
                                               int keep_old) {
  RotateInfoLogs(dir, keep_old);
  return OpenFile((std::filesystem::path(dir) / kInfoLogName).string());
}

Result<std::shared_ptr<InfoLog>> InfoLog::OpenFile(const std::string& path) {
  KW_ASSIGN_OR_RETURN(int fd, OpenForAppend(path));
  return std::shared_ptr<InfoLog>(new InfoLog(fd));
}

InfoLog::~InfoLog() {
  (void)CloseImpl();
}

rocksdb::Status InfoLog::CloseImpl() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  return rocksdb::Status::OK();
}

void InfoLog::Logv(const char* format, va_list ap) {
  // "2026/11/28-07:00:16.720841 20726 message\n", as RocksDB's own LOG.
  const int64_t micros = NowMicros();
  const time_t seconds = static_cast<time_t>(micros / 1000000);
  tm t;
  localtime_r(&seconds, &t);
  char prefix[64];
  int n = std::snprintf(
      prefix, sizeof(prefix), "%04d/%02d/%02d-%02d:%02d:%02d.%06d %ld ",
      t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
      static_cast<int>(micros % 1000000), static_cast<long>(::gettid()));
  std::string line(prefix, static_cast<size_t>(std::max(0, n)));
  char body[1024];
  va_list copy;
  va_copy(copy, ap);
  int length = std::vsnprintf(body, sizeof(body), format, copy);
  va_end(copy);
  if (length < 0) return;
  if (static_cast<size_t>(length) < sizeof(body)) {
    line.append(body, static_cast<size_t>(length));
  } else {
    std::string long_body(static_cast<size_t>(length) + 1, '\0');
    std::vsnprintf(long_body.data(), long_body.size(), format, ap);
    long_body.pop_back();
    line += long_body;
  }
  if (line.empty() || line.back() != '\n') line.push_back('\n');
  // One append per line; a short or failed write drops the line.
  ssize_t written = ::write(fd_, line.data(), line.size());
  if (written != static_cast<ssize_t>(line.size())) dropped_.fetch_add(1);
}

}  // namespace keywise
