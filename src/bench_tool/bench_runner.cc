#include "bench_tool/bench_runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "bench_tool/driver.h"
#include "bench_tool/report.h"
#include "bench_tool/workload.h"
#include "client/session.h"

namespace keywise::bench {
namespace {

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) +
           static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double Seconds(SteadyClock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Polls the driver once a second until the phase ends, printing a progress
// line per second when `progress`; `on_tick` runs on every wake-up, and
// there is one at `wake_at` too (the CPU snapshot at the end of the
// warm-up). Returns the end time; *total gets every statistic of the phase.
SteadyClock::time_point RunPhase(Driver& driver, SteadyClock::time_point start,
                                 SteadyClock::time_point wake_at, bool progress,
                                 std::FILE* err,
                                 const std::function<void()>& on_tick,
                                 PhaseStats* total) {
  SteadyClock::time_point last = start;
  PhaseStats interval;
  for (;;) {
    SteadyClock::time_point tick = last + std::chrono::seconds(1);
    SteadyClock::time_point now = SteadyClock::now();
    SteadyClock::time_point until =
        wake_at > now ? std::min(tick, wake_at) : tick;
    auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
    bool done = driver.WaitDone(std::max(wait, std::chrono::milliseconds(1)));
    on_tick();
    now = SteadyClock::now();
    if (done) {
      driver.TakeInterval(total);
      return now;
    }
    if (now < tick) continue;
    driver.TakeInterval(&interval);
    if (progress) {
      std::fprintf(
          err, "%s\n",
          FormatProgress(Seconds(now - start), Seconds(now - last), interval)
              .c_str());
      std::fflush(err);
    }
    total->Merge(interval);
    interval = PhaseStats();
    last = now;
  }
}

// Waits, as drivers do after DDL, until the schema version of every node
// that `session` knows of (system.local and system.peers) is the same, for
// up to `timeout`; false if they still differ (a node down since, say).
bool AwaitSchemaAgreement(client::Session& session,
                          std::chrono::milliseconds timeout) {
  const auto end = SteadyClock::now() + timeout;
  while (true) {
    std::set<std::string> versions;
    for (const char* cql : {"SELECT schema_version FROM system.local",
                            "SELECT schema_version FROM system.peers"}) {
      client::Reply r = session.Query(cql, client::QueryParams{});
      if (!r.ok()) return false;
      for (const client::Row& row : r.result.rows) {
        if (!row.empty() && row[0]) versions.insert(*row[0]);
      }
    }
    if (versions.size() <= 1) return true;
    if (SteadyClock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

std::vector<std::string> SplitHosts(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

int RunBench(const BenchOptions& options, std::FILE* out, std::FILE* err) {
  const std::vector<std::string> hosts = SplitHosts(options.host);
  if (hosts.empty()) {
    std::fprintf(err, "keywise bench: no host\n");
    return 1;
  }
  client::ConnectOptions connect;
  connect.host = hosts.front();
  connect.port = options.port;
  connect.user = options.user;
  connect.password = options.password;
  connect.tls = options.tls;
  connect.request_timeout = options.request_timeout;

  Workload workload(options);
  Driver::Config config;
  config.connect = connect;
  config.hosts = hosts;
  config.consistency = options.consistency;
  config.connections = options.connections;
  config.threads = options.threads;
  config.concurrency = options.concurrency;
  config.value_size = options.value_size;
  config.seed = options.seed;
  std::optional<TokenRing> ring;
  for (size_t h = 0; h < hosts.size(); ++h) {
    client::ConnectOptions to = connect;
    to.host = hosts[h];
    auto session = client::Session::Connect(to);
    if (!session.ok()) {
      std::fprintf(err, "keywise bench: cannot connect to %s:%u: %s\n",
                   hosts[h].c_str(), options.port,
                   session.status().ToString().c_str());
      return 1;
    }
    if (h == 0) {
      for (const std::string& cql :
           {Workload::SchemaKeyspaceCql(options.replication_factor),
            Workload::SchemaTableCql(), Workload::SchemaCounterTableCql()}) {
        client::Reply r = (*session)->Query(cql, client::QueryParams{});
        if (!r.ok()) {
          std::fprintf(err, "keywise bench: %s: %s\n", cql.c_str(),
                       r.status.ToString().c_str());
          return 1;
        }
      }
      // The other hosts prepare against the new table next.
      if (hosts.size() > 1 &&
          !AwaitSchemaAgreement(**session, std::chrono::seconds(10))) {
        std::fprintf(err,
                     "keywise bench: warning: the nodes did not agree on the "
                     "schema within 10 s\n");
      }
      if (hosts.size() > 1 && options.token_aware) {
        Result<TokenRing> discovered =
            TokenRing::Discover(**session, hosts[0], hosts);
        if (!discovered.ok()) {
          std::fprintf(err, "keywise bench: cannot read the tokens: %s\n",
                       discovered.status().ToString().c_str());
          return 1;
        }
        ring = *std::move(discovered);
      }
    }
    // Prepared ids are per node: prepare on every host.
    for (int k = 0; k < kOpKinds; ++k) {
      std::string cql = workload.StatementCql(static_cast<OpKind>(k));
      client::Reply r = (*session)->Prepare(cql);
      if (!r.ok()) {
        std::fprintf(err, "keywise bench: PREPARE %s on %s: %s\n", cql.c_str(),
                     hosts[h].c_str(), r.status.ToString().c_str());
        return 1;
      }
      config.prepared[k] = r.result.prepared.id;
    }
  }
  std::optional<TabletRoutes> tablets;
  if (ring && ring->size() > 0) {
    config.ring = &*ring;
    // Ask for routes either way, to count the requests that reached a node
    // without a replica.
    config.connect.tablet_routing = true;
    if (options.tablet_routing) {
      tablets.emplace(ring->host_ids());
      config.tablets = &*tablets;
    }
  }

  Driver driver(config);
  if (Status st = driver.Connect(); !st.ok()) {
    std::fprintf(err, "keywise bench: cannot connect to %s:%u: %s\n",
                 options.host.c_str(), options.port, st.ToString().c_str());
    return 1;
  }
  BenchReport report;
  report.hosts = hosts;
  report.token_aware = config.ring != nullptr;
  report.tablet_aware = config.tablets != nullptr;
  report.cpu_count =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto noop = [] {};

  bool needs_rows = options.workload == WorkloadKind::kRead ||
                    options.workload == WorkloadKind::kScan ||
                    options.workload == WorkloadKind::kMixed ||
                    options.workload == WorkloadKind::kCas;
  if (needs_rows && options.load == LoadPhase::kLoad) {
    uint64_t rows = workload.total_rows();
    if (options.progress) {
      std::fprintf(err, "Loading %llu rows (%llu partitions x %llu)...\n",
                   static_cast<unsigned long long>(rows),
                   static_cast<unsigned long long>(options.partitions),
                   static_cast<unsigned long long>(options.rows_per_partition));
    }
    PhaseSpec load;
    load.next = [&workload, rows](uint64_t index, Rng&, Op* op) {
      if (index >= rows) return false;
      *op = workload.LoadRow(index);
      return true;
    };
    SteadyClock::time_point start = SteadyClock::now();
    load.measure_from = start;
    driver.Start(std::move(load));
    PhaseStats stats;
    SteadyClock::time_point end =
        RunPhase(driver, start, start, options.progress, err, noop, &stats);
    report.load_rows = stats.ops;
    report.load_seconds = Seconds(end - start);
    if (stats.errors > 0) {
      std::fprintf(err, "keywise bench: %llu load errors (first: %s)\n",
                   static_cast<unsigned long long>(stats.errors),
                   stats.first_error.c_str());
      return 2;
    }
  }

  PhaseSpec run;
  run.next = [&workload](uint64_t, Rng& rng, Op* op) {
    *op = workload.Next(rng);
    return true;
  };
  SteadyClock::time_point start = SteadyClock::now();
  if (options.rate) run.schedule.emplace(start, *options.rate);
  run.measure_from = start + options.warmup;
  if (options.duration || !options.ops) {
    run.deadline =
        run.measure_from + options.duration.value_or(std::chrono::seconds(10));
  }
  if (options.ops) run.max_measured_ops = *options.ops;

  double cpu_start = CpuSeconds();
  bool cpu_started = options.warmup.count() == 0;
  auto on_tick = [&] {
    if (!cpu_started && SteadyClock::now() >= run.measure_from) {
      cpu_start = CpuSeconds();
      cpu_started = true;
    }
  };
  SteadyClock::time_point measure_from = run.measure_from;
  driver.Start(std::move(run));
  SteadyClock::time_point end =
      RunPhase(driver, start, measure_from, options.progress, err, on_tick,
               &report.stats);
  report.cpu_seconds = CpuSeconds() - cpu_start;
  report.elapsed_seconds = Seconds(end - std::min(end, measure_from));
  report.sent_per_host = driver.SentPerHost();
  report.learned_tablets = tablets ? tablets->size() : 0;
  driver.Shutdown();

  std::string text = options.format == OutputFormat::kJson
                         ? FormatJson(options, report) + "\n"
                         : FormatText(options, report);
  std::fputs(text.c_str(), out);
  std::fflush(out);
  return report.stats.errors > 0 ? 2 : 0;
}

}  // namespace keywise::bench
