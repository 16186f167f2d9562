#include "cluster/tablets/leftovers.h"

#include <string>

#include "cluster/coordinator/verbs.h"
#include "common/log.h"

namespace keywise::cluster {

std::vector<TokenInterval> RangesNotHeld(const TabletMap& map,
                                         const Uuid& self) {
  std::vector<TokenInterval> out;
  bool extending = false;  // the previous tablet is not held either
  for (TabletId i = 0; i < map.count(); ++i) {
    if (map.tablets[i].HeldBy(self)) {
      extending = false;
    } else if (extending) {
      out.back().end = map.LastToken(i);
    } else {
      out.push_back({map.FirstToken(i), map.LastToken(i)});
      extending = true;
    }
  }
  return out;
}

Result<bool> HoldsAnything(Engine& engine, const TableDefPtr& table,
                           TokenInterval tokens) {
  ReadOptions read;
  read.now_seconds = engine.clock().NowSeconds();
  KW_ASSIGN_OR_RETURN(RawScan scan, engine.ScanRaw(table, tokens, {}, nullptr,
                                                   /*row_limit=*/1, read));
  return !scan.partitions.empty();
}

void LeftoverCleanup::Start() {
  passes_.Start("cluster", "Leftover cleanup", options_.interval,
                options_.interval,
                [this](bool*) { return RunOnce().status(); });
}

Result<size_t> LeftoverCleanup::RunOnce() {
  const ClusterViewPtr view = coordinator_->view();
  const Uuid self = view->topology->local();
  const TableLookup tables = coordinator_->replica()->Tables();
  Engine& engine = *coordinator_->engine();
  size_t deleted = 0;
  Status failed;
  for (const auto& [table_id, map] : view->tablets) {
    const TableDefPtr table = tables(table_id);
    if (table == nullptr) continue;  // dropped meanwhile
    for (const TokenInterval& range : RangesNotHeld(*map, self)) {
      Result<bool> holds = HoldsAnything(engine, table, range);
      Status st = holds.ok() ? Status::OK() : holds.status();
      if (st.ok() && !*holds) continue;
      if (st.ok()) {
        st = coordinator_->replica()->DropRange({table_id, range});
      }
      const std::string what = table->keyspace + "." + table->name +
                               " tokens [" + std::to_string(range.start.value) +
                               ", " + std::to_string(range.end.value) + "]";
      if (!st.ok()) {
        if (failed.ok()) {
          failed = Status::ServerError("cannot clean " + what + ": " +
                                       st.message());
        }
        continue;
      }
      LogInfo("cluster", "Deleted this node's leftover copy of " + what +
                             ": no tablet of that range is held here");
      ++deleted;
    }
  }
  if (!failed.ok()) return failed;
  return deleted;
}

}  // namespace keywise::cluster
