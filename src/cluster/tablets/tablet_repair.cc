#include "cluster/tablets/tablet_repair.h"

#include <chrono>
#include <map>
#include <thread>

#include "cluster/tablets/tablet_batches.h"

namespace keywise::cluster {

Status RepairTablet(Coordinator* c, const TableDef& table,
                    TokenInterval tokens, const std::vector<Uuid>& replicas,
                    size_t batch_rows, const std::atomic<bool>* stop,
                    RepairSummary* summary) {
  // A placement (and its fence ticket) per batch: a long repair never
  // holds one view while a tablet move's barrier waits for older views.
  PlacementFn placement =
      [&]() -> Result<std::shared_ptr<const Coordinator::Placement>> {
    KW_ASSIGN_OR_RETURN(Coordinator::Placement p, c->Place(table));
    if (p.tablets == nullptr) return Status::ServerError("table dropped");
    const TabletId t = p.tablets->TabletOf(tokens.start);
    if (p.tablets->FirstToken(t) != tokens.start ||
        p.tablets->LastToken(t) != tokens.end) {
      return Status::ServerError("the tablet split or merged meanwhile");
    }
    return std::make_shared<const Coordinator::Placement>(std::move(p));
  };
  return ForEachMergedBatch(
      c, table.id, tokens, batch_rows, replicas, stop, placement,
      [&](RawScan& scan) {
        summary->partitions += scan.partitions.size();
        return Status::OK();
      },
      &summary->repaired);
}

Result<RepairSummary> RepairTables(Coordinator* coordinator,
                                   const RepairRequest& what,
                                   size_t batch_rows,
                                   const std::atomic<bool>* stop) {
  ClusterViewPtr view = coordinator->view();
  const TableLookup tables = coordinator->replica()->Tables();
  // The tables to repair, by name (a stable order for the summary): the
  // schema's name, which a primary key change gives a map made for the
  // hidden table that replaced its base.
  std::map<std::string, TableDefPtr> chosen;
  for (const auto& [id, map] : view->tablets) {
    TableDefPtr table = tables(id);
    if (table == nullptr) continue;
    if (!what.keyspace.empty() && table->keyspace != what.keyspace) continue;
    if (!what.table.empty() && table->name != what.table) continue;
    chosen[table->keyspace + "." + table->name] = std::move(table);
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
    // The tablets as they are now, each checked again before its repair.
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
    for (size_t n = 0; n < bounds.size(); ++n) {
      const auto [first, last] = bounds[n];
      std::vector<Uuid> replicas;
      std::string why;
      {
        KW_ASSIGN_OR_RETURN(Coordinator::Placement p,
                            coordinator->Place(*table));
        if (p.tablets == nullptr) break;  // dropped meanwhile
        const TabletId t = p.tablets->TabletOf(first);
        const TabletInfo& info = p.tablets->tablets[t];
        replicas = info.replicas;
        if (p.tablets->FirstToken(t) != first ||
            p.tablets->LastToken(t) != last) {
          why = "split or merged during the repair";
        } else if (info.transition) {
          why = "moving";
        }
        for (const Uuid& r : info.replicas) {
          if (why.empty() && !p.view->topology->IsUp(r)) {
            why = "replica " + r.ToString() + " is down";
          }
        }
      }
      if (why.empty()) {
        // A replica that just came back may not be reachable yet (this
        // node's connection to it is still waiting out its reconnection
        // backoff, up to 2 s): a few tries, a second apart.
        Status done;
        for (int attempt = 0; attempt < 4; ++attempt) {
          if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
          if (stop != nullptr && stop->load()) break;
          done = RepairTablet(coordinator, *table, {first, last}, replicas,
                              batch_rows, stop, &summary);
          if (done.ok() || (done.code() != ErrorCode::kReadTimeout &&
                            done.code() != ErrorCode::kUnavailable)) {
            break;
          }
        }
        if (done.ok()) {
          ++summary.tablets;
          continue;
        }
        why = done.message();
      }
      summary.skipped.push_back(name + " tablet " + std::to_string(n) + ": " +
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
