#include "cluster/cluster_metrics.h"

#include <string>
#include <utility>

namespace keywise::cluster {
namespace {

using metrics::MetricType;

void WriteTablets(const LoadReport& report, const TableLookup& tables,
                  metrics::TextWriter& out) {
  struct Entry {
    metrics::Labels labels;
    const TabletLoadEntry* load;
  };
  std::vector<Entry> entries;
  for (const auto& [table_id, tablets] : report.tables) {
    TableDefPtr table = tables(table_id);
    if (table == nullptr) continue;  // dropped since
    for (const TabletLoadEntry& t : tablets) {
      if (t.leftover) continue;
      entries.push_back({{{"keyspace", table->keyspace},
                          {"table", table->name},
                          {"last_token", std::to_string(t.last.value)}},
                         &t});
    }
  }
  out.Family("keywise_tablet_bytes",
             "Estimated bytes of each tablet this node replicates, at its "
             "last load report.",
             MetricType::kGauge);
  for (const Entry& e : entries) {
    if (e.load->replica) {
      out.Sample(e.labels, static_cast<double>(e.load->bytes));
    }
  }
  out.Family("keywise_tablet_requests_per_second",
             "Requests this node coordinated per tablet, averaged over its "
             "last load report's window.",
             MetricType::kGauge);
  for (const Entry& e : entries) out.Sample(e.labels, e.load->ops);
}

}  // namespace

void WriteClusterMetrics(ClusterNode& node, metrics::TextWriter& out) {
  if (const HintStore* hints = node.hints()) {
    out.Single("keywise_hints_pending",
        "Hints stored for replicas that missed writes, not yet replayed.",
        MetricType::kGauge, static_cast<double>(hints->pending()));
    out.Single("keywise_hints_written_total", "Hints written.",
        MetricType::kCounter, static_cast<double>(hints->written()));
    out.Single("keywise_hints_replayed_total",
        "Hints delivered to, and acknowledged by, their replica: replayed, "
        "or a journaled view update answered.",
        MetricType::kCounter, static_cast<double>(hints->replayed()));
    out.Single("keywise_hints_expired_total",
        "Hints dropped for being older than their table's gc_grace_seconds.",
        MetricType::kCounter, static_cast<double>(hints->expired()));
  }
  if (const Coordinator* coordinator = node.coordinator()) {
    out.Single("keywise_read_repairs_total",
        "Reads whose replicas' digests differed: the data was read in full "
        "and the replicas repaired before the answer.",
        MetricType::kCounter,
        static_cast<double>(coordinator->digest_mismatches()));
    out.Single("keywise_speculative_retries_total",
        "Reads that asked one more replica because the ones asked were "
        "slower than the table's speculative_retry.",
        MetricType::kCounter,
        static_cast<double>(coordinator->speculative_retries()));
  }
  if (const PairedViewRouter* router = node.view_router()) {
    const ViewBacklog b = router->backlog();
    out.Single("keywise_view_backlog_updates",
        "View updates sent to other nodes and not yet acknowledged.",
        MetricType::kGauge, static_cast<double>(b.updates));
    out.Single("keywise_view_backlog_bytes", "Bytes of those view updates.",
        MetricType::kGauge, static_cast<double>(b.bytes));
    out.Single("keywise_view_writes_slowed_total",
        "Base writes that waited because the view backlog was past its "
        "limit.",
        MetricType::kCounter, static_cast<double>(b.slowed_writes));
  }
  if (const Balancer* balancer = node.balancer()) {
    static constexpr std::pair<Balancer::Action, const char*> kActions[] = {
        {Balancer::Action::kMoved, "moved"},
        {Balancer::Action::kSplit, "split"},
        {Balancer::Action::kMerged, "merged"},
        {Balancer::Action::kReplicated, "replicated"},
        {Balancer::Action::kMarkedLeft, "marked_left"},
    };
    out.Family("keywise_balancer_actions_total",
               "Balancer rounds led by this node that moved a tablet "
               "replica, split or merged tablets, added or dropped a "
               "replica, or marked a drained node left.",
               MetricType::kCounter);
    for (const auto& [action, name] : kActions) {
      out.Sample({{"action", name}}, balancer->actions(action));
    }
  }
  if (const LoadReporter* reporter = node.load_reporter()) {
    if (Coordinator* coordinator = node.coordinator()) {
      WriteTablets(reporter->last_report(), coordinator->replica()->Tables(),
                   out);
    }
  }
}

}  // namespace keywise::cluster
