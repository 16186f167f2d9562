// TabletsTableSync: keeps this node's system.tablets (system/tablets_table.h)
// equal to the tablet maps of its ClusterView, so that a client reading it
// from any node learns where every tablet of a table is: a table's
// partition is rewritten when its tablets' boundaries or read replicas
// change (a split, a merge, a move reaching its read stage), and deleted
// when the table is dropped.
//
// Contract: Reset once before the first OnView; OnView from any thread
// (serialized inside). Rows name the replicas reads use
// (TabletInfo::ReadReplicas) in the map's order.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/metadata/cluster_view.h"
#include "storage/engine.h"
#include "system/tablets_table.h"

namespace keywise::cluster {

// The rows of `map` in system.tablets, in token order.
std::vector<system::TabletRow> TabletRowsOf(const TabletMap& map);

class TabletsTableSync {
 public:
  // `engine` outlives this.
  explicit TabletsTableSync(Engine* engine);

  // Removes the rows an earlier run of the node left.
  Status Reset();
  // Rewrites the partitions of the tables whose tablets differ from the
  // last ones written, and deletes those of tables `view` no longer has.
  Status OnView(const ClusterView& view);

 private:
  struct Written {
    std::string keyspace;
    std::string table;
    std::vector<system::TabletRow> rows;
  };

  Engine* const engine_;
  std::mutex mu_;
  std::map<Uuid, Written> written_;  // by table id; guarded by mu_
  int64_t last_timestamp_ = 0;       // guarded by mu_
};

}  // namespace keywise::cluster
