// `keywise shell` end to end: starts `keywise server` on a free port with a
// temporary data directory and runs the shell binary through -e/-f.
// Fails when the keywise binary is missing or the server does not answer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "testing/temp_dir.h"

namespace keywise::shell {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

struct ShellRun {
  int status = -1;
  std::string out;
};

ShellRun Shell(const std::string& args) {
  ShellRun r;
  std::string cmd = std::string(KEYWISE_BINARY) + " shell " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string Quote(const std::string& s) {
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

class Node {
 public:
  Node() : port_(FreePort()) {
    pid_ = fork();
    if (pid_ == 0) {
      int devnull = open("/dev/null", 1);
      dup2(devnull, 1);
      dup2(devnull, 2);
      std::string port = std::to_string(port_);
      execl(KEYWISE_BINARY, KEYWISE_BINARY, "server", "--data-dir", dir_.str().c_str(),
            "--port", port.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 200 && !ready_; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ready_ = Exec("SELECT key FROM system.local").status == 0;
    }
  }
  ~Node() {
    kill(pid_, SIGTERM);
    int st;
    waitpid(pid_, &st, 0);
  }
  bool ready() const { return ready_; }
  ShellRun Exec(const std::string& cql) {
    return Shell("127.0.0.1 " + std::to_string(port_) + " -e " + Quote(cql));
  }
  ShellRun File(const std::string& path) {
    return Shell("127.0.0.1 " + std::to_string(port_) + " -f " + Quote(path));
  }
  std::string dir() const { return dir_.str(); }

 private:
  testing::TempDir dir_;
  int port_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

#define REQUIRE_NODE(node)                                                   \
  if (!std::filesystem::exists(KEYWISE_BINARY)) FAIL() << "no binary at " KEYWISE_BINARY; \
  Node node;                                                                 \
  if (!node.ready()) FAIL() << "the server does not answer queries"

TEST(ShellLive, FormattingErrorsAndPaging) {
  REQUIRE_NODE(node);
  ShellRun r = node.Exec(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1};"
      "CREATE TABLE ks.t (k int PRIMARY KEY, v text, s set<int>);"
      "INSERT INTO ks.t (k, v, s) VALUES (1, 'one', {1, 2});"
      "INSERT INTO ks.t (k, v) VALUES (22, 'twenty-two');");
  ASSERT_EQ(r.status, 0) << r.out;
  r = node.Exec("SELECT * FROM ks.t WHERE k = 1; SELECT k, v FROM ks.t WHERE k = 22;");
  EXPECT_EQ(r.out,
            "\n k | s      | v\n---+--------+-----\n 1 | {1, 2} | one\n\n(1 rows)\n"
            "\n k  | v\n----+------------\n 22 | twenty-two\n\n(1 rows)\n");
  r = node.Exec("SELECT * FROM ks.nope;");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.rfind("<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"", 0), 0u)
      << r.out;
  r = node.Exec("SELEC x;");
  EXPECT_EQ(r.out.rfind("<stdin>:1:SyntaxException: ", 0), 0u) << r.out;
  r = node.Exec("EXPAND ON; SELECT k, v FROM ks.t WHERE k = 1;");
  EXPECT_EQ(r.out,
            "Now Expanded output is enabled\n\n@ Row 1\n---+-----\n k | 1\n v | one\n\n\n(1 rows)\n");
}

TEST(ShellLive, DescribeRoundTripAndCopy) {
  REQUIRE_NODE(node);
  ShellRun r = node.Exec(
      "CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1};"
      "CREATE TABLE shop.orders (customer text, day date, id timeuuid, total decimal, "
      "items map<text, int>, note text static, PRIMARY KEY ((customer, day), id)) "
      "WITH CLUSTERING ORDER BY (id DESC) AND comment = 'it''s';"
      "CREATE TABLE shop.kv (k bigint PRIMARY KEY, v text);");
  ASSERT_EQ(r.status, 0) << r.out;
  ShellRun schema = node.Exec("DESCRIBE SCHEMA");
  ASSERT_EQ(schema.status, 0) << schema.out;
  EXPECT_NE(schema.out.find("CREATE TABLE shop.orders ("), std::string::npos) << schema.out;

  testing::TempDir tmp;
  const std::string file = tmp.str() + "/schema.cql";
  std::ofstream(file) << schema.out;
  Node fresh;
  ASSERT_TRUE(fresh.ready());
  r = fresh.File(file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(fresh.Exec("DESCRIBE SCHEMA").out, schema.out);

  // COPY round trip of 100,000 rows.
  const std::string csv = tmp.str() + "/kv.csv";
  {
    std::ofstream out(csv);
    out << "k,v\n";
    for (int i = 0; i < 100000; ++i) out << i << ",\"value \"\"" << i << "\"\", ok\"\n";
  }
  r = node.Exec("COPY shop.kv (k, v) FROM '" + csv + "' WITH HEADER = true");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("100000 rows imported from 1 files"), std::string::npos) << r.out;
  const std::string back = tmp.str() + "/back.csv";
  r = node.Exec("COPY shop.kv (k, v) TO '" + back + "' WITH HEADER = true");
  EXPECT_NE(r.out.find("100000 rows exported to 1 files"), std::string::npos) << r.out;
  std::ifstream in(back);
  std::string line;
  int rows = 0;
  std::getline(in, line);
  EXPECT_EQ(line, "k,v");
  while (std::getline(in, line)) {
    ++rows;
    if (line.rfind("7,", 0) == 0) {
      EXPECT_EQ(line, "7,\"value \"\"7\"\", ok\"");
    }
  }
  EXPECT_EQ(rows, 100000);
}

}  // namespace
}  // namespace keywise::shell
