// ViewBacklogTable: system_views.view_backlog, this node's view updates
// that other nodes have not applied yet (view_routing.h), rewritten every
// `period`:
//
//   host_id text PRIMARY KEY, updates_in_flight bigint,
//   bytes_in_flight bigint, limit_bytes bigint, writes_slowed bigint,
//   hints_pending bigint
//
// `updates_in_flight` / `bytes_in_flight`: sent, not answered yet;
// `limit_bytes`: view_update_backlog_limit_in_mb; `writes_slowed`: base
// writes that waited for their own view updates because the backlog was
// past the limit, since the node started; `hints_pending`: this node's
// hints, journaled view updates not yet acknowledged included.
//
// Contract: the router, the hint store and the engine outlive the table;
// the destructor stops its thread.
#pragma once

#include <chrono>
#include <string>

#include "cluster/coordinator/hint_store.h"
#include "cluster/coordinator/view_routing.h"
#include "common/periodic_task.h"
#include "system/stats_table.h"

namespace keywise::cluster {

class ViewBacklogTable {
 public:
  ViewBacklogTable(Engine* engine, const PairedViewRouter* router,
                   const HintStore* hints, std::string host_id,
                   std::chrono::milliseconds period);

 private:
  Status Publish();

  const PairedViewRouter* const router_;
  const HintStore* const hints_;
  const std::string host_id_;
  system::StatsTable table_;
  PeriodicTask task_;  // last: stopped before the rest goes
};

}  // namespace keywise::cluster
