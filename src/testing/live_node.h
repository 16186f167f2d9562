// LiveNode: a `keywise server` child process on a free loopback port with a
// fresh data directory, for end-to-end tests that drive the keywise binary
// (shell, bench) as a user would; plus the helpers such tests share.
//
// Contract: test-only, header-only. The constructor waits up to 20 s for
// the node to answer `SELECT key FROM system.local` through `keywise shell`;
// ready() tells whether it did. The destructor sends SIGTERM and reaps the
// child. The binary path is the caller's (tests get it from CMake).
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>

#include "testing/temp_dir.h"

namespace keywise::testing {

struct CommandRun {
  int status = -1;  // exit status; -1 when killed by a signal
  std::string out;  // what the command wrote to stdout
};

// Runs `command` with /bin/sh and captures its stdout (redirect stderr in
// the command line to capture or silence it).
inline CommandRun RunCommand(const std::string& command) {
  CommandRun r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// `s` as one single-quoted /bin/sh word.
inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A loopback TCP port that was free a moment ago.
inline int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

class LiveNode {
 public:
  explicit LiveNode(std::string binary)
      : binary_(std::move(binary)), port_(FreeLoopbackPort()) {
    pid_ = fork();
    if (pid_ == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      const std::string port = std::to_string(port_);
      execl(binary_.c_str(), binary_.c_str(), "server", "--data-dir",
            dir_.str().c_str(), "--port", port.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 200 && !ready_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ready_ = RunCommand(binary_ + " shell 127.0.0.1 " +
                          std::to_string(port_) +
                          " -e 'SELECT key FROM system.local' >/dev/null 2>&1")
                   .status == 0;
    }
  }
  ~LiveNode() {
    kill(pid_, SIGTERM);
    int st;
    waitpid(pid_, &st, 0);
  }
  LiveNode(const LiveNode&) = delete;
  LiveNode& operator=(const LiveNode&) = delete;

  bool ready() const { return ready_; }
  int port() const { return port_; }
  std::string dir() const { return dir_.str(); }
  const std::string& binary() const { return binary_; }

 private:
  TempDir dir_;
  std::string binary_;
  int port_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace keywise::testing
