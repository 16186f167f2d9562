#include "cluster/tablet_repair.h"

#include <map>

namespace keywise::cluster {

Status RepairTablet(Coordinator* c, const Coordinator::Placement& p,
                    TabletId tablet, const std::vector<Uuid>& replicas,
                    size_t batch_rows, const std::atomic<bool>* stop,
                    RepairSummary* summary) {
  ScanRawRequest request;
  request.table_id = p.table->id;
  request.tokens = {p.tablets->FirstToken(tablet),
                    p.tablets->LastToken(tablet)};
  request.row_limit = batch_rows;
  while (true) {
    if (stop != nullptr && stop->load()) {
      return Status::ServerError("This node is stopping");
    }
    request.now_seconds = c->engine()->clock().NowSeconds();
    const auto deadline =
        std::chrono::steady_clock::now() + c->options().read_timeout;
    KW_ASSIGN_OR_RETURN(RawScan scan,
                        c->ScanMerged(p, replicas, request, Consistency::kAll,
                                      deadline, &summary->repaired));
    summary->partitions += scan.partitions.size();
    if (scan.complete) return Status::OK();
    request.has_after = true;
    request.after = scan.resume_after();
  }
}

Result<RepairSummary> RepairTables(Coordinator* coordinator,
                                   const RepairRequest& what,
                                   size_t batch_rows,
                                   const std::atomic<bool>* stop) {
  ClusterViewPtr view = coordinator->view();
  const TableLookup tables = coordinator->replica()->Tables();
  // The tables to repair, by name (a stable order for the summary).
  std::map<std::string, TableDefPtr> chosen;
  for (const auto& [id, map] : view->tablets) {
    if (!what.keyspace.empty() && map->keyspace != what.keyspace) continue;
    if (!what.table.empty() && map->table != what.table) continue;
    if (TableDefPtr table = tables(id)) {
      chosen[map->keyspace + "." + map->table] = std::move(table);
    }
  }
  if (chosen.empty()) {
    return Status::Invalid(
        what.keyspace.empty()
            ? std::string("No replicated table to repair")
            : "No replicated table " +
                  (what.table.empty() ? "in keyspace " + what.keyspace
                                      : what.keyspace + "." + what.table) +
                  " to repair");
  }
  RepairSummary summary;
  for (const auto& [name, table] : chosen) {
    // The tablets as they are now; each is repaired in a placement of its
    // own, so a long repair never holds one view (a tablet move's barrier
    // waits for requests on older views).
    std::vector<std::pair<Token, Token>> bounds;
    {
      KW_ASSIGN_OR_RETURN(Coordinator::Placement p,
                          coordinator->Place(*table));
      if (p.tablets == nullptr) continue;
      for (TabletId t = 0; t < p.tablets->count(); ++t) {
        bounds.emplace_back(p.tablets->FirstToken(t), p.tablets->LastToken(t));
      }
    }
    ++summary.tables;
    for (const auto& [first, last] : bounds) {
      KW_ASSIGN_OR_RETURN(Coordinator::Placement p,
                          coordinator->Place(*table));
      if (p.tablets == nullptr) break;  // dropped meanwhile
      const TabletId t = p.tablets->TabletOf(first);
      const TabletInfo& info = p.tablets->tablets[t];
      std::string why;
      if (p.tablets->FirstToken(t) != first || p.tablets->LastToken(t) != last) {
        why = "split or merged during the repair";
      } else if (info.transition) {
        why = "moving";
      }
      for (const Uuid& r : info.replicas) {
        if (why.empty() && !p.view->topology->IsUp(r)) {
          why = "replica " + r.ToString() + " is down";
        }
      }
      if (why.empty()) {
        Status done = RepairTablet(coordinator, p, t, info.replicas,
                                   batch_rows, stop, &summary);
        if (done.ok()) {
          ++summary.tablets;
          continue;
        }
        why = done.message();
      }
      summary.skipped.push_back(name + " tablet " + std::to_string(t) + ": " +
                                why);
    }
  }
  return summary;
}

std::string FormatRepairSummary(const RepairSummary& s) {
  std::string out = "Repaired " + std::to_string(s.tablets) + " tablets of " +
                    std::to_string(s.tables) + " tables: " +
                    std::to_string(s.partitions) + " partitions read, " +
                    std::to_string(s.repaired) +
                    " partition repairs written\n";
  for (const std::string& skipped : s.skipped) {
    out += "Not repaired: " + skipped + "\n";
  }
  return out;
}

}  // namespace keywise::cluster
