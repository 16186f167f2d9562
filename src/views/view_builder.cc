#include "views/view_builder.h"

#include "common/log.h"
#include "views/build_status.h"

namespace keywise {

ViewBuilder::ViewBuilder(Engine* engine, ViewMaintainer* maintainer,
                         Barrier barrier)
    : engine_(engine), maintainer_(maintainer), barrier_(std::move(barrier)) {}

ViewBuilder::~ViewBuilder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ViewBuilder::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  wake_ = true;
  thread_ = std::thread([this] { Run(); });
}

void ViewBuilder::SetSchemaEvents(
    std::function<void(const std::string&, const std::string&)> events) {
  std::lock_guard<std::mutex> lock(mu_);
  events_ = std::move(events);
}

void ViewBuilder::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

bool ViewBuilder::WaitBuilt(const Uuid& view_id,
                            std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto built = [&] {
    // (The snapshot is held: a range-for over a temporary's member would
    // read freed memory once a newer schema replaced it.)
    const SchemaSnapshotPtr schema = engine_->catalog().snapshot();
    for (const auto& [key, table] : schema->tables) {
      // A key-change table that replaced its base is no view any more.
      if (table->id == view_id) return !table->view || table->view->built;
    }
    return true;  // dropped: nothing to wait for
  };
  std::unique_lock<std::mutex> lock(mu_);
  while (!built()) {
    if (stop_ || cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
      return built();
    }
  }
  return true;
}

std::vector<ViewBuilder::Progress> ViewBuilder::InProgress() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Progress> out;
  for (const auto& [id, p] : progress_) out.push_back(p);
  return out;
}

Status ViewBuilder::CompleteKeyChange(const TableDefPtr& change) {
  TableDefPtr base = engine_->catalog().snapshot()->FindTable(
      change->keyspace, change->view->base_name);
  if (base == nullptr || base->id != change->view->base_id) {
    return Status::Invalid("The table whose key was changing is gone");
  }
  KW_RETURN_IF_ERROR(maintainer_->Exclusive([&] {
    return engine_->catalog().CompleteKeyChange(change->keyspace, change->name,
                                                change->id);
  }));
  LogInfo("ViewBuilder", "The primary key of " + base->keyspace + "." +
                             base->name + " changed");
  std::function<void(const std::string&, const std::string&)> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events = events_;
  }
  if (events) events(base->keyspace, base->name);
  cv_.notify_all();  // WaitBuilt: the change is done
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(3), [&] { return stop_; });
  }
  return engine_->DeleteTableData(base->storage_id);
}

void ViewBuilder::Run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Every second, or sooner when woken: a build that failed (or waits
      // for other nodes) is tried again, and views another node created
      // (a cluster's schema arriving) are found.
      cv_.wait_for(lock, std::chrono::seconds(1),
                   [&] { return stop_ || wake_; });
      if (stop_) return;
      wake_ = false;
    }
    if (!BuildPending()) return;
  }
}

bool ViewBuilder::BuildPending() {
  std::vector<TableDefPtr> pending;
  const SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  for (const auto& [key, table] : schema->tables) {
    if (table->view != nullptr && !table->view->built) pending.push_back(table);
  }
  for (const TableDefPtr& view : pending) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return false;
      progress_[view->id] = Progress{view->keyspace, view->name, {0}, 0};
    }
    auto stop = [&] {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return true;
      // Dropped (or re-created) while building: abandon it.
      TableDefPtr now =
          engine_->catalog().snapshot()->FindTable(view->keyspace, view->name);
      return now == nullptr || now->id != view->id;
    };
    auto progress = [&](Token token) {
      int64_t partitions;
      {
        std::lock_guard<std::mutex> lock(mu_);
        Progress& p = progress_[view->id];
        p.last_token = token;
        partitions = ++p.partitions;
      }
      if (partitions % 1000 == 1) {
        RecordBuildProgress(*engine_, *view, token, partitions);
      }
    };
    Status st = backfilled_.contains(view->id)
                    ? Status::OK()
                    : maintainer_->Backfill(view, stop, progress);
    if (st.ok() && barrier_) {
      backfilled_.insert(view->id);
      st = barrier_(*view);
      if (!st.ok() && !stop()) {
        // Other nodes are still building: not a failure.
        std::lock_guard<std::mutex> lock(mu_);
        progress_.erase(view->id);
        continue;
      }
    }
    if (st.ok()) {
      st = view->IsKeyChangeTable()
               ? CompleteKeyChange(view)
               : engine_->catalog().SetViewBuilt(view->keyspace, view->name,
                                                 view->id);
    }
    if (st.ok() || stop()) backfilled_.erase(view->id);
    if (st.ok() || stop()) {
      RecordBuildDone(*engine_, *view, st.ok() && !view->IsKeyChangeTable());
    }
    if (st.ok() && !view->IsKeyChangeTable()) {
      LogInfo("ViewBuilder", "Built " + view->keyspace + "." + view->name);
    } else if (!stop()) {
      LogWarn("ViewBuilder", "Building " + view->keyspace + "." +
                                 view->name + " failed: " + st.message());
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      progress_.erase(view->id);
    }
    cv_.notify_all();
  }
  return true;
}

}  // namespace keywise
