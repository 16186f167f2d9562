// ViewBuilder: the node's background backfill of new materialized views
// and secondary indexes (Cassandra's view builder), one view at a time on
// its own thread.
//
// Contract: thread-safe. Start() builds every view of the schema that is
// not built yet (ViewInfo::built false: new, or interrupted by a restart)
// and then looks again every second, or at once on Wake(), which a CREATE
// INDEX / MATERIALIZED VIEW calls (views another node of a cluster created
// are found by the next look). A build reads the base table through ViewMaintainer::Backfill and
// ends with Catalog::SetViewBuilt; it is restarted from the first token
// after a restart (backfill is idempotent). A view dropped while it builds
// is abandoned. The destructor stops the thread between partitions.
//
// A key-change table (ViewKind::kKeyChange) is not marked built: once
// filled it replaces its base (Catalog::CompleteKeyChange, run under
// ViewMaintainer::Exclusive so no write is lost), the schema event
// callback announces the table as UPDATED, and the old layout's data is
// deleted a few seconds later, once reads that started before the switch
// are done with it. (A crash in those seconds leaves that data behind,
// unreferenced: space, not correctness.)
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/uuid.h"
#include "storage/engine.h"
#include "views/view_maintainer.h"

namespace keywise {

class ViewBuilder {
 public:
  // In a cluster each node backfills a view from its own base data; the
  // view is built once every node has. Called after this node's backfill
  // of `view` succeeded: OK when the view may be marked built now; an
  // error to be asked again a second later (this node's backfill is not
  // repeated meanwhile). Empty: built at once (a single node).
  using Barrier = std::function<Status(const TableDef& view)>;

  // Both must outlive the builder.
  ViewBuilder(Engine* engine, ViewMaintainer* maintainer,
              Barrier barrier = {});
  ~ViewBuilder();

  void Start();
  void Wake();
  // Called with (keyspace, table) when a table changed without a DDL
  // statement (a key change completing).
  void SetSchemaEvents(
      std::function<void(const std::string&, const std::string&)> events);
  // Waits until the view with this id is built (or no longer exists), at
  // most `timeout`; true when it is built.
  bool WaitBuilt(const Uuid& view_id, std::chrono::milliseconds timeout);

  // What is being built now.
  struct Progress {
    std::string keyspace;
    std::string view;
    Token last_token{0};       // the last base partition's token done
    int64_t partitions = 0;    // base partitions done
  };
  std::vector<Progress> InProgress() const;

 private:
  void Run();
  // One pass over the schema's unbuilt views; false when stopping.
  bool BuildPending();
  // After a key-change table is filled: the switch.
  Status CompleteKeyChange(const TableDefPtr& change);

  Engine* const engine_;
  ViewMaintainer* const maintainer_;
  const Barrier barrier_;
  // Views this node has backfilled that wait at the barrier (builder
  // thread only).
  std::set<Uuid> backfilled_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::map<Uuid, Progress> progress_;
  std::function<void(const std::string&, const std::string&)>
      events_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise
