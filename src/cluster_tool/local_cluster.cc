#include "cluster_tool/local_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "client/session.h"
#include "cluster/etcd/http_etcd_client.h"
#include "net/tls_context.h"

namespace keywise::cluster_tool {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::string EtcdBinary() {
  const char* bin = std::getenv("KEYWISE_ETCD_BIN");
  return bin != nullptr ? bin : "/usr/bin/etcd";
}

Result<std::string> SelfBinary() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status::ServerError("Cannot find the keywise binary: " + ec.message());
  return self.string();
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::ServerError("Cannot write " + path);
  return Status::OK();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last `lines` lines of a log, for error messages.
std::string Tail(const std::string& path, size_t lines) {
  std::string text = ReadFile(path);
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n) {
    pos = text.rfind('\n', pos - 1);
  }
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

// Whether `pid` is alive (not a zombie) and runs a binary named `name`.
bool Running(int pid, const std::string& name) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size() ||
      stat[paren + 2] == 'Z') {
    return false;
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  return !ec && exe.filename().string().starts_with(name);
}

int ReadPid(const std::string& path) {
  return std::atoi(ReadFile(path).c_str());
}

// Starts `args` detached (own session, stdin from /dev/null, output
// appended to `log`) and writes its pid to `pid_file`.
Result<int> Spawn(const std::vector<std::string>& args, const std::string& log,
                  const std::string& pid_file) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Status::ServerError("fork failed");
  if (pid == 0) {
    setsid();
    int in = open("/dev/null", O_RDONLY);
    int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in >= 0) dup2(in, 0);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  KW_RETURN_IF_ERROR(WriteFile(pid_file, std::to_string(pid) + "\n"));
  return static_cast<int>(pid);
}

// Waits until `ready` or the child exits or the time is up.
Status WaitReady(int pid, const std::string& what, const std::string& log,
                 std::chrono::seconds timeout,
                 const std::function<bool()>& ready) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return Status::ServerError(what + " exited during startup; the end of " +
                                 log + ":\n" + Tail(log, 15));
    }
    if (ready()) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Status::ServerError(what + " did not answer within " +
                             std::to_string(timeout.count()) + " s; see " + log);
}

Status StopPid(int pid, const std::string& name, bool hard,
               std::chrono::seconds timeout) {
  if (!Running(pid, name)) return Status::OK();
  kill(pid, hard ? SIGKILL : SIGTERM);
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    int status = 0;
    waitpid(pid, &status, WNOHANG);  // reaps our own children
    if (!Running(pid, name)) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::ServerError("process " + std::to_string(pid) +
                             " did not stop within " +
                             std::to_string(timeout.count()) + " s");
}

// `tls_yaml`: the TLS settings of an ssl cluster, etcd_endpoints included.
std::string NodeYaml(const LocalClusterLayout& l, int i,
                     const std::string& node_dir,
                     const std::string& etcd_endpoint,
                     const std::string& tls_yaml,
                     const std::vector<std::string>& extra) {
  const std::string address = LocalCluster::NodeAddress(i);
  std::ostringstream y;
  y << "# Node " << i << " of the local cluster '" << l.cluster_name
    << "' (keywise cluster).\n"
    << "cluster_name: '" << l.cluster_name << "'\n"
    << "listen_address: " << address << "\n"
    << "rpc_address: " << address << "\n"
    << "native_transport_port: " << l.cql_port << "\n"
    << "storage_port: " << l.storage_port << "\n"
    << "data_file_directories:\n    - " << node_dir << "/data\n";
  if (tls_yaml.empty()) {
    y << "etcd_endpoints:\n    - " << etcd_endpoint << "\n";
  } else {
    y << tls_yaml;
  }
  for (const std::string& setting : l.node_settings) y << setting << "\n";
  for (const std::string& setting : extra) y << setting << "\n";
  return y.str();
}

}  // namespace

std::string LocalCluster::NodeAddress(int i) {
  return "127.0.0." + std::to_string(i);
}

std::string LocalCluster::EtcdEndpoint() const {
  return std::string(layout_.ssl ? "https://" : "") +
         "127.0.0.1:" + std::to_string(layout_.etcd_client_port);
}

EtcdTls LocalCluster::EtcdClientTls() const {
  if (!layout_.ssl) return std::nullopt;
  const LocalClusterTls files = tls();
  net::ClientTlsOptions options;
  options.ca = files.ca();
  options.cert = files.client_cert();
  options.key = files.client_key();
  return options;
}

std::string LocalCluster::NodeDir(int i) const {
  return dir_ + "/node" + std::to_string(i);
}

Result<LocalCluster> LocalCluster::Open(const std::string& dir) {
  const std::string conf = dir + "/cluster.conf";
  if (!fs::exists(conf)) {
    return Status::ConfigError("No cluster in " + dir +
                            " (start one with: keywise cluster start --nodes "
                            "3 --dir " + dir + ")");
  }
  std::map<std::string, std::string> values;
  LocalClusterLayout l;
  std::istringstream in(ReadFile(conf));
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    if (line.substr(0, eq) == "node_setting") {
      l.node_settings.push_back(line.substr(eq + 1));
      continue;
    }
    values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  auto number = [&](const char* key, int* out) {
    if (values.contains(key)) *out = std::atoi(values[key].c_str());
  };
  if (values.contains("cluster_name")) l.cluster_name = values["cluster_name"];
  number("nodes", &l.nodes);
  number("cql_port", &l.cql_port);
  number("storage_port", &l.storage_port);
  number("etcd_client_port", &l.etcd_client_port);
  number("etcd_peer_port", &l.etcd_peer_port);
  l.ssl = values["ssl"] == "1";
  if (l.nodes < 1 || l.nodes > 254) {
    return Status::ConfigError(conf + ": nodes must be 1..254");
  }
  return LocalCluster(fs::absolute(dir).string(), l);
}

Result<LocalCluster> LocalCluster::Create(const std::string& dir,
                                          LocalClusterLayout l) {
  if (l.nodes < 1 || l.nodes > 254) {
    return Status::Invalid("--nodes must be between 1 and 254");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::ServerError("Cannot create " + dir + ": " + ec.message());
  LocalCluster cluster(fs::absolute(dir).string(), l);
  fs::create_directories(cluster.dir_ + "/etcd", ec);
  if (l.ssl) KW_RETURN_IF_ERROR(cluster.tls().MakeAuthority(l.cluster_name));
  for (int i = 1; i <= l.nodes; ++i) {
    KW_RETURN_IF_ERROR(cluster.MakeNodeDir(i));
  }
  KW_RETURN_IF_ERROR(cluster.WriteConf());
  return cluster;
}

Status LocalCluster::MakeNodeDir(int i,
                                 const std::vector<std::string>& extra) const {
  std::error_code ec;
  const std::string node_dir = NodeDir(i);
  fs::create_directories(node_dir + "/data", ec);
  if (ec) return Status::ServerError("Cannot create " + node_dir);
  std::string tls_yaml;
  if (layout_.ssl) {
    KW_RETURN_IF_ERROR(tls().IssueNode(i));
    tls_yaml = tls().NodeYaml(i, EtcdEndpoint());
  }
  return WriteFile(
      node_dir + "/keywise.yaml",
      NodeYaml(layout_, i, node_dir, EtcdEndpoint(), tls_yaml, extra));
}

Status LocalCluster::WriteConf() const {
  const LocalClusterLayout& l = layout_;
  std::ostringstream conf;
  conf << "# A local Keywise cluster (keywise cluster).\n"
       << "cluster_name=" << l.cluster_name << "\nnodes=" << l.nodes
       << "\ncql_port=" << l.cql_port << "\nstorage_port=" << l.storage_port
       << "\netcd_client_port=" << l.etcd_client_port
       << "\netcd_peer_port=" << l.etcd_peer_port << "\n";
  if (l.ssl) conf << "ssl=1\n";
  for (const std::string& setting : l.node_settings) {
    conf << "node_setting=" << setting << "\n";
  }
  return WriteFile(dir_ + "/cluster.conf", conf.str());
}

Result<int> LocalCluster::AddNode(const std::vector<std::string>& extra) {
  if (layout_.nodes >= 254) {
    return Status::Invalid("A local cluster has at most 254 nodes");
  }
  const int i = layout_.nodes + 1;
  layout_.nodes = i;
  KW_RETURN_IF_ERROR(MakeNodeDir(i, extra));
  KW_RETURN_IF_ERROR(WriteConf());
  return i;
}

int LocalCluster::NodePid(int i) const {
  const int pid = ReadPid(NodeDir(i) + "/pid");
  return Running(pid, "keywise") ? pid : 0;
}

int LocalCluster::EtcdPid() const {
  const int pid = ReadPid(dir_ + "/etcd/pid");
  return Running(pid, "etcd") ? pid : 0;
}

Status LocalCluster::CheckNode(int i) const {
  if (i < 1 || i > layout_.nodes) {
    return Status::Invalid("No node " + std::to_string(i) + ": the cluster has " +
                           std::to_string(layout_.nodes) + " nodes");
  }
  return Status::OK();
}

Status LocalCluster::StartEtcd(std::chrono::seconds timeout) {
  if (EtcdPid() != 0) return Status::OK();
  const std::string binary = EtcdBinary();
  if (access(binary.c_str(), X_OK) != 0) {
    return Status::ConfigError(binary +
                            " not found: install Debian's etcd-server "
                            "(scripts/setup.sh does)");
  }
  // With ssl only the client URLs are TLS: the one member's peer URL, on
  // loopback, is never dialled.
  const std::string client =
      std::string(layout_.ssl ? "https" : "http") +
      "://127.0.0.1:" + std::to_string(layout_.etcd_client_port);
  const std::string peer =
      "http://127.0.0.1:" + std::to_string(layout_.etcd_peer_port);
  const std::string etcd_dir = dir_ + "/etcd";
  std::vector<std::string> args = {
      binary, "--name", "keywise", "--data-dir", etcd_dir + "/data",
      "--listen-client-urls", client, "--advertise-client-urls", client,
      "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
      "--initial-cluster", "keywise=" + peer, "--initial-cluster-state", "new"};
  if (layout_.ssl) {
    for (std::string& flag : tls().EtcdFlags()) args.push_back(std::move(flag));
  }
  const std::string log = etcd_dir + "/etcd.log";
  KW_ASSIGN_OR_RETURN(int pid, Spawn(args, log, etcd_dir + "/pid"));
  cluster::EtcdClientOptions options;
  options.endpoints = {EtcdEndpoint()};
  options.request_timeout = std::chrono::milliseconds(1000);
  options.tls = EtcdClientTls();
  KW_ASSIGN_OR_RETURN(auto etcd, cluster::HttpEtcdClient::Create(options));
  return WaitReady(pid, "etcd", log, timeout, [&] {
    return etcd->Range(cluster::KeyRange::Single("/keywise"), {}).ok();
  });
}

Status LocalCluster::StartNode(int i, std::chrono::seconds timeout) {
  KW_RETURN_IF_ERROR(CheckNode(i));
  if (NodePid(i) != 0) return Status::OK();
  KW_ASSIGN_OR_RETURN(std::string self, SelfBinary());
  const std::string node_dir = NodeDir(i);
  const std::string log = node_dir + "/keywise.log";
  KW_ASSIGN_OR_RETURN(
      int pid, Spawn({self, "server", "--config", node_dir + "/keywise.yaml"},
                     log, node_dir + "/pid"));
  client::ConnectOptions connect;
  connect.host = NodeAddress(i);
  connect.port = static_cast<uint16_t>(layout_.cql_port);
  connect.connect_timeout = std::chrono::milliseconds(1000);
  connect.request_timeout = std::chrono::milliseconds(2000);
  if (layout_.ssl) {
    // As a driver would: the node's certificate must chain to the cluster's
    // CA and name its address; the client certificate goes along in case
    // the port asks for one.
    net::ClientTlsOptions tls_files;
    tls_files.ca = tls().ca();
    tls_files.cert = tls().client_cert();
    tls_files.key = tls().client_key();
    KW_ASSIGN_OR_RETURN(connect.tls, net::BuildClientTlsContext(tls_files));
  }
  // A node asking for credentials is ready once it answers a login: the
  // default superuser's, or a refusal of them (its password was changed).
  bool password = false;
  for (const std::string& setting : layout_.node_settings) {
    password = password || (setting.starts_with("authenticator:") &&
                            setting.find("PasswordAuthenticator") !=
                                std::string::npos);
  }
  if (password) connect.user = connect.password = "cassandra";
  return WaitReady(pid, "node " + std::to_string(i), log, timeout, [&] {
    Result<std::unique_ptr<client::Session>> s =
        client::Session::Connect(connect);
    return s.ok() ||
           (password && s.status().code() == ErrorCode::kBadCredentials);
  });
}

Status LocalCluster::StopNode(int i, bool hard, std::chrono::seconds timeout) {
  KW_RETURN_IF_ERROR(CheckNode(i));
  return StopPid(ReadPid(NodeDir(i) + "/pid"), "keywise", hard, timeout);
}

Status LocalCluster::StopEtcd(std::chrono::seconds timeout) {
  return StopPid(ReadPid(dir_ + "/etcd/pid"), "etcd", false, timeout);
}

}  // namespace keywise::cluster_tool
