#include "tools/node_commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/session.h"
#include "common/uuid.h"
#include "metrics/registry.h"
#include "schema/system_keyspace_names.h"
#include "tools/query_rows.h"

namespace keywise {
namespace {

using Labels = std::map<std::string, std::string>;

struct Sample {
  Labels labels;
  double value = 0;
};

// `{a="x",b="y"}` as Prometheus writes labels (\\, \" and \n escaped).
Labels ParseLabels(const std::string& text) {
  Labels out;
  size_t i = text.empty() || text[0] != '{' ? text.size() : 1;
  while (i < text.size() && text[i] != '}') {
    const size_t eq = text.find('=', i);
    if (eq == std::string::npos || eq + 1 >= text.size() ||
        text[eq + 1] != '"') {
      break;
    }
    std::string name = text.substr(i, eq - i);
    std::string value;
    size_t j = eq + 2;
    for (; j < text.size() && text[j] != '"'; ++j) {
      if (text[j] == '\\' && j + 1 < text.size()) {
        ++j;
        value += text[j] == 'n' ? '\n' : text[j];
      } else {
        value += text[j];
      }
    }
    out[std::move(name)] = std::move(value);
    i = j + 1;
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

class NodeClient {
 public:
  explicit NodeClient(std::unique_ptr<client::Session> session)
      : session_(std::move(session)) {}

  Result<std::vector<client::Row>> Rows(const std::string& cql) {
    return keywise::Rows(*session_, cql, 5000);
  }

  // The samples of one metric (a family's sample name: `x_count`, ...).
  Result<std::vector<Sample>> Metric(const std::string& name) {
    KW_ASSIGN_OR_RETURN(
        std::vector<client::Row> rows,
        Rows("SELECT labels, value FROM system_views.metrics WHERE name = " +
             TextLiteral(name)));
    std::vector<Sample> out;
    for (const client::Row& row : rows) {
      out.push_back({ParseLabels(TextCell(row, 0)), DoubleCell(row, 1)});
    }
    return out;
  }

  // The sum of the samples whose labels include `match`.
  Result<double> Sum(const std::string& name, const Labels& match = {}) {
    KW_ASSIGN_OR_RETURN(std::vector<Sample> samples, Metric(name));
    double total = 0;
    for (const Sample& s : samples) {
      if (Includes(s.labels, match)) total += s.value;
    }
    return total;
  }

  // A histogram family's buckets summed over the series matching `match`.
  Result<metrics::DurationHistogram::Snapshot> Histogram(
      const std::string& family, const Labels& match) {
    KW_ASSIGN_OR_RETURN(std::vector<Sample> buckets,
                        Metric(family + "_bucket"));
    const auto& bounds = metrics::DurationHistogram::kBoundsMicros;
    std::vector<double> cumulative(bounds.size() + 1, 0);
    for (const Sample& s : buckets) {
      if (!Includes(s.labels, match)) continue;
      auto le = s.labels.find("le");
      if (le == s.labels.end()) continue;
      size_t index = bounds.size();  // +Inf
      if (le->second != "+Inf") {
        const double micros = std::stod(le->second) * 1e6;
        index = static_cast<size_t>(
            std::lower_bound(bounds.begin(), bounds.end(),
                             static_cast<uint64_t>(std::llround(micros))) -
            bounds.begin());
      }
      if (index < cumulative.size()) cumulative[index] += s.value;
    }
    metrics::DurationHistogram::Snapshot h;
    double below = 0;
    for (size_t i = 0; i < cumulative.size(); ++i) {
      const double in = std::max(0.0, cumulative[i] - below);
      h.counts[i] = static_cast<uint64_t>(std::llround(in));
      h.count += h.counts[i];
      below = std::max(below, cumulative[i]);
    }
    return h;
  }

 private:
  static bool Includes(const Labels& labels, const Labels& match) {
    for (const auto& [k, v] : match) {
      auto it = labels.find(k);
      if (it == labels.end() || it->second != v) return false;
    }
    return true;
  }

  std::unique_ptr<client::Session> session_;
};

// nodetool's sizes: "123 bytes", "1.5 KiB", "12.34 MiB", "1.02 GiB".
std::string Bytes(double bytes) {
  static const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buf[64];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", bytes, kUnits[unit]);
  }
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string UuidCell(const client::Row& row, size_t i) {
  if (i >= row.size() || !row[i]) return "";
  std::optional<Uuid> id = Uuid::FromBytes(*row[i]);
  return id ? id->ToString() : "";
}

int Failed(const Status& status) {
  std::fprintf(stderr, "error: %s\n", status.message().c_str());
  return 1;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 2;
}

int Info(NodeClient& node) {
  Result<std::vector<client::Row>> local = node.Rows(
      "SELECT host_id, data_center, rack, release_version FROM system.local");
  if (!local.ok()) return Failed(local.status());
  if (local->empty()) return Failed(Status::ServerError("system.local is empty"));
  const client::Row& l = local->front();
  Result<double> load = node.Sum("keywise_storage_table_file_bytes");
  Result<double> memtables = node.Sum("keywise_storage_memtable_bytes");
  Result<double> started = node.Sum("process_start_time_seconds");
  Result<double> resident = node.Sum("process_resident_memory_bytes");
  Result<double> cache = node.Sum("keywise_storage_block_cache_bytes");
  Result<double> hits = node.Sum("keywise_storage_block_cache_hits_total");
  Result<double> misses = node.Sum("keywise_storage_block_cache_misses_total");
  Result<double> connections = node.Sum("keywise_cql_connections");
  for (const Result<double>* r : {&load, &memtables, &started, &resident,
                                  &cache, &hits, &misses, &connections}) {
    if (!r->ok()) return Failed(r->status());
  }
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  const double requests = *hits + *misses;
  std::printf("ID                     : %s\n", UuidCell(l, 0).c_str());
  std::printf("Native Transport active: true\n");
  std::printf("Load                   : %s\n", Bytes(*load).c_str());
  std::printf("Memtables              : %s\n", Bytes(*memtables).c_str());
  std::printf("Uptime (seconds)       : %.0f\n",
              *started > 0 ? std::max(0.0, now - *started) : 0.0);
  std::printf("Resident Memory (MB)   : %s\n",
              Fixed(*resident / (1024 * 1024), 2).c_str());
  std::printf("Data Center            : %s\n", TextCell(l, 1).c_str());
  std::printf("Rack                   : %s\n", TextCell(l, 2).c_str());
  std::printf("Version                : %s\n", TextCell(l, 3).c_str());
  std::printf("Client Connections     : %.0f\n", *connections);
  std::printf("Block Cache            : size %s, %.0f hits, %.0f requests, "
              "%s hit rate\n",
              Bytes(*cache).c_str(), *hits, requests,
              requests > 0 ? Fixed(*hits / requests, 3).c_str() : "NaN");
  return 0;
}

int DescribeCluster(NodeClient& node) {
  Result<std::vector<client::Row>> local = node.Rows(
      "SELECT cluster_name, partitioner, schema_version, broadcast_address, "
      "data_center FROM system.local");
  if (!local.ok()) return Failed(local.status());
  if (local->empty()) return Failed(Status::ServerError("system.local is empty"));
  Result<std::vector<client::Row>> peers =
      node.Rows("SELECT peer, schema_version, data_center FROM system.peers");
  if (!peers.ok()) return Failed(peers.status());
  const client::Row& l = local->front();
  std::map<std::string, std::vector<std::string>> versions;
  std::map<std::string, int> data_centers;
  versions[UuidCell(l, 2)].push_back(InetCell(l, 3));
  ++data_centers[TextCell(l, 4)];
  for (const client::Row& p : *peers) {
    versions[UuidCell(p, 1)].push_back(InetCell(p, 0));
    ++data_centers[TextCell(p, 2)];
  }
  std::printf("Cluster Information:\n");
  std::printf("\tName: %s\n", TextCell(l, 0).c_str());
  std::printf("\tPartitioner: %s\n", TextCell(l, 1).c_str());
  std::printf("\tSchema versions:\n");
  for (auto& [version, addresses] : versions) {
    std::sort(addresses.begin(), addresses.end());
    std::string list;
    for (const std::string& a : addresses) {
      list += (list.empty() ? "" : ", ") + a;
    }
    std::printf("\t\t%s: [%s]\n\n", version.c_str(), list.c_str());
  }
  std::printf("Data Centers:\n");
  for (const auto& [dc, n] : data_centers) {
    std::printf("\t%s #Nodes: %d\n", dc.c_str(), n);
  }
  return 0;
}

// keyspace -> table names, user keyspaces only; `only` filters
// ("ks" or "ks.t").
Result<std::map<std::string, std::vector<std::string>>> UserTables(
    NodeClient& node, const std::string& only) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      node.Rows("SELECT keyspace_name, table_name FROM system_schema.tables"));
  const size_t dot = only.find('.');
  const std::string ks = only.substr(0, dot);
  const std::string table =
      dot == std::string::npos ? std::string() : only.substr(dot + 1);
  std::map<std::string, std::vector<std::string>> out;
  for (const client::Row& row : rows) {
    const std::string k = TextCell(row, 0), t = TextCell(row, 1);
    if (IsLocalSystemKeyspace(k) || IsReplicatedSystemKeyspace(k)) continue;
    if (!ks.empty() && k != ks) continue;
    if (!table.empty() && t != table) continue;
    out[k].push_back(t);
  }
  if (!only.empty() && out.empty()) {
    return Status::Invalid("Unknown keyspace or table: " + only);
  }
  return out;
}

int TableStats(NodeClient& node, const std::string& only) {
  Result<std::map<std::string, std::vector<std::string>>> tables =
      UserTables(node, only);
  if (!tables.ok()) {
    return tables.status().code() == ErrorCode::kInvalid
               ? Usage(tables.status().message())
               : Failed(tables.status());
  }
  Result<std::vector<Sample>> counts =
      node.Metric("keywise_table_request_duration_seconds_count");
  Result<std::vector<Sample>> sums =
      node.Metric("keywise_table_request_duration_seconds_sum");
  Result<std::vector<Sample>> disk = node.Metric("keywise_table_disk_bytes");
  for (const auto* r : {&counts, &sums, &disk}) {
    if (!r->ok()) return Failed(r->status());
  }
  // (keyspace, table, op) -> value
  auto index = [](const std::vector<Sample>& samples) {
    std::map<std::tuple<std::string, std::string, std::string>, double> out;
    for (const Sample& s : samples) {
      auto get = [&](const char* k) {
        auto it = s.labels.find(k);
        return it == s.labels.end() ? std::string() : it->second;
      };
      out[{get("keyspace"), get("table"), get("op")}] += s.value;
    }
    return out;
  };
  const auto count = index(*counts), sum = index(*sums), bytes = index(*disk);
  auto at = [](const auto& m, const std::string& k, const std::string& t,
               const std::string& op) {
    auto it = m.find({k, t, op});
    return it == m.end() ? 0.0 : it->second;
  };
  auto latency = [](double seconds, double n) {
    return n > 0 ? Fixed(seconds * 1000 / n, 3) + " ms" : std::string("NaN ms");
  };
  size_t total = 0;
  for (const auto& [k, list] : *tables) total += list.size();
  std::printf("Total number of tables: %zu\n----------------\n", total);
  for (const auto& [k, list] : *tables) {
    double reads = 0, read_s = 0, writes = 0, write_s = 0;
    for (const std::string& t : list) {
      reads += at(count, k, t, "read") + at(count, k, t, "range");
      read_s += at(sum, k, t, "read") + at(sum, k, t, "range");
      writes += at(count, k, t, "write");
      write_s += at(sum, k, t, "write");
    }
    std::printf("Keyspace : %s\n", k.c_str());
    std::printf("\tRead Count: %.0f\n\tRead Latency: %s\n", reads,
                latency(read_s, reads).c_str());
    std::printf("\tWrite Count: %.0f\n\tWrite Latency: %s\n", writes,
                latency(write_s, writes).c_str());
    for (const std::string& t : list) {
      std::printf("\t\tTable: %s\n", t.c_str());
      std::printf("\t\tSpace used (live): %.0f\n", at(bytes, k, t, ""));
      for (const char* op : {"read", "range", "write"}) {
        const double n = at(count, k, t, op);
        std::printf("\t\tCoordinator %s count: %.0f\n", op, n);
        std::printf("\t\tCoordinator %s latency: %s\n", op,
                    latency(at(sum, k, t, op), n).c_str());
      }
      std::printf("\n");
    }
    std::printf("----------------\n");
  }
  return 0;
}

// nodetool's percentile table: one column per histogram, in microseconds.
void PrintHistograms(
    const std::vector<std::pair<std::string,
                                metrics::DurationHistogram::Snapshot>>& cols) {
  std::printf("%-12s", "Percentile");
  for (const auto& [name, h] : cols) std::printf("%16s", name.c_str());
  std::printf("\n%-12s", "");
  for (size_t i = 0; i < cols.size(); ++i) std::printf("%16s", "(micros)");
  std::printf("\n");
  for (const auto& [label, q] : std::vector<std::pair<const char*, double>>{
           {"50%", 0.5}, {"75%", 0.75}, {"95%", 0.95}, {"98%", 0.98},
           {"99%", 0.99}}) {
    std::printf("%-12s", label);
    for (const auto& [name, h] : cols) {
      std::printf("%16s", Fixed(metrics::QuantileMicros(h, q), 2).c_str());
    }
    std::printf("\n");
  }
  for (const bool min : {true, false}) {
    std::printf("%-12s", min ? "Min" : "Max");
    for (const auto& [name, h] : cols) {
      const double v = min ? metrics::MinMicros(h) : metrics::MaxMicros(h);
      std::printf("%16s", Fixed(v, 2).c_str());
    }
    std::printf("\n");
  }
  std::printf("\n(bucket bounds: 10 us to 10 s; percentiles are "
              "interpolated within a bucket)\n");
}

int TableHistograms(NodeClient& node, std::vector<std::string> args) {
  if (args.size() == 1 && args[0].find('.') != std::string::npos) {
    const std::string both = args[0];
    args = {both.substr(0, both.find('.')), both.substr(both.find('.') + 1)};
  }
  if (args.size() != 2) {
    return Usage("tablehistograms needs KEYSPACE TABLE (or KEYSPACE.TABLE)");
  }
  Result<std::map<std::string, std::vector<std::string>>> known =
      UserTables(node, args[0] + "." + args[1]);
  if (!known.ok()) return Usage(known.status().message());
  std::vector<std::pair<std::string, metrics::DurationHistogram::Snapshot>>
      cols;
  for (const auto& [title, op] :
       {std::pair<const char*, const char*>{"Read Latency", "read"},
        {"Write Latency", "write"},
        {"Range Latency", "range"}}) {
    Result<metrics::DurationHistogram::Snapshot> h = node.Histogram(
        "keywise_table_request_duration_seconds",
        {{"keyspace", args[0]}, {"table", args[1]}, {"op", op}});
    if (!h.ok()) return Failed(h.status());
    cols.emplace_back(title, *h);
  }
  std::printf("%s/%s histograms (requests this node coordinated)\n",
              args[0].c_str(), args[1].c_str());
  PrintHistograms(cols);
  return 0;
}

int ProxyHistograms(NodeClient& node) {
  std::vector<std::pair<std::string, metrics::DurationHistogram::Snapshot>>
      cols;
  for (const auto& [title, op] :
       {std::pair<const char*, const char*>{"Read Latency", "read"},
        {"Write Latency", "write"},
        {"Range Latency", "range"},
        {"CAS Read", "cas_read"},
        {"CAS Write", "cas_write"},
        {"Counter Write", "counter_write"}}) {
    Result<metrics::DurationHistogram::Snapshot> h = node.Histogram(
        "keywise_client_request_duration_seconds", {{"op", op}});
    if (!h.ok()) return Failed(h.status());
    cols.emplace_back(title, *h);
  }
  std::printf("proxy histograms (every consistency level)\n");
  PrintHistograms(cols);
  return 0;
}

struct TopEntry {
  std::string key;
  uint64_t count = 0;
  uint64_t error = 0;
};

// op ("read"/"write") -> partition -> (count, error), of one table.
Result<std::map<std::string, std::map<std::string, TopEntry>>> TopOf(
    NodeClient& node, const std::string& keyspace, const std::string& table) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> rows,
      node.Rows("SELECT table_name, op, partition_key, count, count_error "
                "FROM system_views.top_partitions WHERE keyspace_name = " +
                TextLiteral(keyspace)));
  std::map<std::string, std::map<std::string, TopEntry>> out;
  for (const client::Row& row : rows) {
    if (TextCell(row, 0) != table) continue;
    TopEntry e{TextCell(row, 2), BigintCell(row, 3), BigintCell(row, 4)};
    out[TextCell(row, 1)][e.key] = e;
  }
  return out;
}

int TopPartitions(NodeClient& node, const std::vector<std::string>& args) {
  if (args.size() < 2 || args.size() > 3) {
    return Usage("toppartitions needs KEYSPACE TABLE [MILLISECONDS]");
  }
  int64_t ms = 1000;
  if (args.size() == 3) {
    try {
      ms = std::stoll(args[2]);
    } catch (const std::exception&) {
      ms = -1;
    }
    if (ms <= 0 || ms > 3600 * 1000) {
      return Usage("toppartitions: the duration is milliseconds, 1 to "
                   "3600000: " + args[2]);
    }
  }
  Result<std::map<std::string, std::vector<std::string>>> known =
      UserTables(node, args[0] + "." + args[1]);
  if (!known.ok()) return Usage(known.status().message());
  auto before = TopOf(node, args[0], args[1]);
  if (!before.ok()) return Failed(before.status());
  // Progress on stderr, once a second.
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::milliseconds(ms);
  std::fprintf(stderr, "Sampling %s.%s for %lld ms\n", args[0].c_str(),
               args[1].c_str(), static_cast<long long>(ms));
  while (std::chrono::steady_clock::now() < end) {
    const auto left = end - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(left,
                                                      std::chrono::seconds(1)));
    if (std::chrono::steady_clock::now() < end) {
      std::fprintf(stderr, "  %lld of %lld ms\n",
                   static_cast<long long>(
                       std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count()),
                   static_cast<long long>(ms));
    }
  }
  auto after = TopOf(node, args[0], args[1]);
  if (!after.ok()) return Failed(after.status());
  for (const auto& [op, title] : {std::pair<const char*, const char*>{
                                      "write", "WRITES"},
                                  {"read", "READS"}}) {
    std::vector<TopEntry> window;
    for (const auto& [key, e] : (*after)[op]) {
      TopEntry w = e;
      auto was = (*before)[op].find(key);
      if (was != (*before)[op].end()) {
        w.count = e.count >= was->second.count ? e.count - was->second.count
                                               : 0;
      }
      if (w.count > 0) window.push_back(w);
    }
    std::sort(window.begin(), window.end(),
              [](const TopEntry& a, const TopEntry& b) {
                return a.count != b.count ? a.count > b.count : a.key < b.key;
              });
    std::printf("%s Sampler:\n  Cardinality: ~%zu (32 capacity)\n", title,
                window.size());
    std::printf("  Top %zu partitions:\n", std::min<size_t>(10, window.size()));
    if (window.empty()) {
      std::printf("\tNothing recorded during sampling period...\n\n");
      continue;
    }
    std::printf("\t%-40s %10s %10s\n", "Partition", "Count", "+/-");
    for (size_t i = 0; i < window.size() && i < 10; ++i) {
      std::printf("\t%-40s %10llu %10llu\n", window[i].key.c_str(),
                  static_cast<unsigned long long>(window[i].count),
                  static_cast<unsigned long long>(window[i].error));
    }
    std::printf("\n");
  }
  return 0;
}

int TraceProbability(NodeClient& node, const std::vector<std::string>& args,
                     bool set) {
  if (set) {
    if (args.size() != 1) return Usage("settraceprobability needs P, 0 to 1");
    double p = -1;
    try {
      size_t used = 0;
      p = std::stod(args[0], &used);
      if (used != args[0].size()) p = -1;
    } catch (const std::exception&) {
    }
    if (!(p >= 0 && p <= 1)) {
      return Usage("Trace probability must be between 0 and 1: " + args[0]);
    }
    Result<std::vector<client::Row>> done = node.Rows(
        "UPDATE system_views.settings SET value = " + TextLiteral(args[0]) +
        " WHERE name = 'trace_probability'");
    if (!done.ok()) return Failed(done.status());
    return 0;
  }
  Result<std::vector<client::Row>> rows = node.Rows(
      "SELECT value FROM system_views.settings WHERE name = "
      "'trace_probability'");
  if (!rows.ok()) return Failed(rows.status());
  std::printf("Current trace probability: %s\n",
              rows->empty() ? "0" : TextCell(rows->front(), 0).c_str());
  return 0;
}

}  // namespace

bool IsNodeCommand(const std::string& action) {
  static const std::set<std::string> kCommands = {
      "info",           "describecluster",     "tablestats",
      "tablehistograms", "proxyhistograms",    "toppartitions",
      "settraceprobability", "gettraceprobability"};
  return kCommands.contains(action);
}

std::unique_ptr<client::Session> ConnectToNode(
    const std::string& host, int port, const CredentialFlags& credentials,
    const TlsFlags& tls) {
  client::ConnectOptions options;
  options.host = host;
  options.port = static_cast<uint16_t>(port);
  credentials.Apply(&options);
  if (Status st = tls.Apply(&options); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return nullptr;
  }
  Result<std::unique_ptr<client::Session>> session =
      client::Session::Connect(options);
  if (!session.ok()) {
    std::fprintf(stderr, "error: cannot connect to %s:%d: %s\n", host.c_str(),
                 port, session.status().message().c_str());
    return nullptr;
  }
  return std::move(*session);
}

int RunNodeCommand(const std::string& action,
                   const std::vector<std::string>& arguments,
                   const std::string& host, int port,
                   const CredentialFlags& credentials, const TlsFlags& tls) {
  std::unique_ptr<client::Session> session =
      ConnectToNode(host, port, credentials, tls);
  if (session == nullptr) return 1;
  NodeClient node(std::move(session));
  if (action == "info") return Info(node);
  if (action == "describecluster") return DescribeCluster(node);
  if (action == "tablestats") {
    if (arguments.size() > 1) return Usage("tablestats [KEYSPACE[.TABLE]]");
    return TableStats(node, arguments.empty() ? "" : arguments[0]);
  }
  if (action == "tablehistograms") return TableHistograms(node, arguments);
  if (action == "proxyhistograms") return ProxyHistograms(node);
  if (action == "toppartitions") return TopPartitions(node, arguments);
  return TraceProbability(node, arguments, action == "settraceprobability");
}

}  // namespace keywise
