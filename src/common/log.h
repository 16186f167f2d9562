// Log: timestamped lines on stderr, in the shape of Cassandra's system.log.
//
//   INFO  [main] 2026-01-31 12:00:00,123 - Listening on 127.0.0.1:9042
//
// Contract: thread-safe; each call writes one whole line (a mutex keeps lines
// from interleaving). Not async-signal-safe: never call from a signal
// handler. Meant for operational events (startup, shutdown, bad config),
// never for per-request tracing on hot paths.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>

namespace keywise {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

namespace log_internal {

inline std::string_view LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO ";
    case LogLevel::kWarn:
      return "WARN ";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?    ";
}

inline std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}

inline std::atomic<LogLevel>& Threshold() {
  static std::atomic<LogLevel> level{LogLevel::kDebug};
  return level;
}

}  // namespace log_internal

// Lines below `level` are dropped from now on (command-line tools keep
// only warnings and errors).
inline void SetMinLogLevel(LogLevel level) {
  log_internal::Threshold().store(level, std::memory_order_relaxed);
}

// Writes "<LEVEL> [<thread>] <local time>,<millis> - <message>\n" to stderr.
// `thread` names the logical thread ("main", "native-transport").
inline void Log(LogLevel level, std::string_view thread,
                std::string_view message) {
  if (level < log_internal::Threshold().load(std::memory_order_relaxed)) {
    return;
  }
  using std::chrono::system_clock;
  const auto now = system_clock::now();
  const std::time_t secs = system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch())
                          .count() %
                      1000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
  const std::string_view level_name = log_internal::LevelName(level);
  std::lock_guard<std::mutex> lock(log_internal::Mutex());
  std::fprintf(stderr, "%.*s [%.*s] %s,%03d - %.*s\n",
               static_cast<int>(level_name.size()), level_name.data(),
               static_cast<int>(thread.size()), thread.data(), stamp,
               static_cast<int>(millis), static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
}

inline void LogInfo(std::string_view thread, std::string_view message) {
  Log(LogLevel::kInfo, thread, message);
}
inline void LogWarn(std::string_view thread, std::string_view message) {
  Log(LogLevel::kWarn, thread, message);
}
inline void LogError(std::string_view thread, std::string_view message) {
  Log(LogLevel::kError, thread, message);
}

}  // namespace keywise
