// EtcdProcess: a single-member etcd (Debian's /usr/bin/etcd) as a child
// process on free loopback ports with a fresh data directory, for tests.
//
// Contract: test-only, header-only. Start() launches etcd and waits up to
// 10 s for GET /health to answer {"health":"true"}; it returns whether it
// did. Stop() sends SIGTERM and reaps the child, Kill() sends SIGKILL; both
// keep the data directory and the ports, so Start() again is a restart of
// the same member. The destructor stops etcd and removes the directory.
// The binary is $KEYWISE_ETCD_BIN or /usr/bin/etcd (scripts/setup.sh
// installs etcd-server); its log goes to <dir>/etcd.log. etcd gets SIGKILL
// if the thread that started it dies first (PR_SET_PDEATHSIG), so a crashed
// test leaves no etcd behind. Not thread-safe.
//
// TLS: constructed with EtcdTlsFiles, etcd serves its client URL as
// https:// with --cert-file --key-file, and with --trusted-ca-file
// --client-cert-auth when a CA is given (clients must then present a
// certificate it signed). Health is then asked on a plain metrics URL
// (--listen-metrics-urls) on a port of its own.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "testing/live_node.h"
#include "testing/temp_dir.h"

namespace keywise::testing {

// PEM files of an etcd serving TLS on its client URL.
struct EtcdTlsFiles {
  std::string cert;       // the server's certificate (SAN IP:127.0.0.1)
  std::string key;        // its private key
  std::string client_ca;  // empty: no client certificates asked
};

class EtcdProcess {
 public:
  EtcdProcess()
      : client_port_(FreeLoopbackPort()), peer_port_(FreeLoopbackPort()) {
    while (peer_port_ == client_port_) peer_port_ = FreeLoopbackPort();
  }
  explicit EtcdProcess(EtcdTlsFiles tls) : EtcdProcess() {
    tls_ = std::move(tls);
    metrics_port_ = FreeLoopbackPort();
    while (metrics_port_ == client_port_ || metrics_port_ == peer_port_) {
      metrics_port_ = FreeLoopbackPort();
    }
  }
  ~EtcdProcess() { Stop(); }
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  static std::string Binary() {
    const char* bin = std::getenv("KEYWISE_ETCD_BIN");
    return bin != nullptr ? bin : "/usr/bin/etcd";
  }

  bool Start() {
    if (pid_ > 0) return true;
    const std::string client = std::string(tls() ? "https" : "http") +
                               "://127.0.0.1:" + std::to_string(client_port_);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
    const std::string binary = Binary();
    std::vector<std::string> args = {
        binary, "--name", "kw", "--data-dir", dir_.str() + "/data",
        "--listen-client-urls", client, "--advertise-client-urls", client,
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "kw=" + peer, "--initial-cluster-state", "new",
        "--initial-cluster-token", "kwtest-" + std::to_string(client_port_),
        // One member: short raft timers make (re)starts quick.
        "--heartbeat-interval", "25", "--election-timeout", "250", "--logger",
        "zap", "--log-level", "warn"};
    if (tls()) {
      args.insert(args.end(),
                  {"--cert-file", tls_.cert, "--key-file", tls_.key,
                   "--listen-metrics-urls",
                   "http://127.0.0.1:" + std::to_string(metrics_port_)});
      if (!tls_.client_ca.empty()) {
        args.insert(args.end(), {"--trusted-ca-file", tls_.client_ca,
                                 "--client-cert-auth"});
      }
    }
    const std::string log = dir_.str() + "/etcd.log";
    pid_ = fork();
    if (pid_ == 0) {
      // Dies with the test process, even when that one crashes.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      if (Healthy()) return true;
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {  // etcd exited
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  void Stop() { Signal(SIGTERM); }
  void Kill() { Signal(SIGKILL); }

  // "127.0.0.1:port" of the client URL.
  std::string endpoint() const {
    return "127.0.0.1:" + std::to_string(client_port_);
  }
  // The client URL: "http://127.0.0.1:port" or "https://...".
  std::string url() const {
    return std::string(tls() ? "https://" : "http://") + endpoint();
  }
  bool tls() const { return metrics_port_ > 0; }
  int client_port() const { return client_port_; }
  std::string log_path() const { return dir_.str() + "/etcd.log"; }

  // Returns whether GET /health answers {"health":"true"}.
  bool Healthy() const {
    const std::string reply =
        HttpGet(tls() ? metrics_port_ : client_port_, "/health",
                std::chrono::milliseconds(500));
    return reply.find("\"health\":\"true\"") != std::string::npos;
  }

 private:
  void Signal(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  // The whole reply (headers and body) to GET `path`, or "" on failure.
  static std::string HttpGet(int port, const std::string& path,
                             std::chrono::milliseconds timeout) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{0, static_cast<suseconds_t>(timeout.count() * 1000)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    std::string reply;
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const std::string request = "GET " + path +
                                  " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  "Connection: close\r\n\r\n";
      if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
        char buf[1024];
        ssize_t n;
        while ((n = recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, n);
      }
    }
    close(fd);
    return reply;
  }

  TempDir dir_;
  int client_port_;
  int peer_port_;
  int metrics_port_ = 0;  // TLS only: plain /health
  EtcdTlsFiles tls_;
  pid_t pid_ = -1;
};

}  // namespace keywise::testing
