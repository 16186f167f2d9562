// TempDir: a fresh directory for one test, removed when the object dies.
//
// Contract: test-only. Created under $KEYWISE_TEST_TMPDIR (set by CTest) or
// the system temp directory; unique per process and instance.
#pragma once

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace keywise::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const char* base = std::getenv("KEYWISE_TEST_TMPDIR");
    std::filesystem::path root =
        base ? std::filesystem::path(base) : std::filesystem::temp_directory_path();
    path_ = root / ("kw-" + std::to_string(getpid()) + "-" +
                    std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace keywise::testing
