#include "views/view_maintainer.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "storage/partition_key.h"
#include "storage/raw_merge.h"
#include "storage/raw_update.h"
#include "views/view_rows.h"

namespace keywise {
namespace {

// The writes of one statement or batch to one base partition.
struct PartitionWrites {
  const PartitionUpdate* first = nullptr;
  std::vector<const PartitionUpdate*> updates;
  std::string serialized_pk;
};

}  // namespace

bool IsTableChanged(const Status& status) {
  return status.code() == ErrorCode::kInvalid &&
         status.message() == kTableChangedMessage;
}

ViewMaintainer::ViewMaintainer(Engine* engine) : engine_(engine) {}

Status ViewMaintainer::Exclusive(const std::function<Status()>& change) {
  std::unique_lock gate(schema_gate_);
  return change();
}

std::mutex* ViewMaintainer::Stripe(const TableDef& table,
                                   const std::string& serialized_pk) {
  const uint64_t h = static_cast<uint64_t>(TokenOfKey(serialized_pk).value) ^
                     (static_cast<uint64_t>(table.storage_id) * 0x9E3779B97F4A7C15ull);
  return &stripes_[h % kStripes];
}

int32_t ViewMaintainer::NowSeconds() const {
  return static_cast<int32_t>(engine_->clock().NowMicros() / 1000000);
}

void ViewMaintainer::SetRouter(ViewRouter* router) { router_ = router; }

Status ViewMaintainer::Route(const TableDefPtr& base, Token base_token,
                           std::vector<PartitionUpdate>* view_updates,
                           std::vector<PartitionUpdate>* local,
                           std::vector<RemoteViewUpdate>* remote) const {
  ViewRouter* const router = router_.load();
  for (PartitionUpdate& u : *view_updates) {
    if (router == nullptr || remote == nullptr) {
      local->push_back(std::move(u));
      continue;
    }
    const ViewRouter::Targets to = router->Route(*base, base_token, u);
    if (to.unknown) {
      return Status::ServerError("Where view " + u.table->keyspace + "." +
                                 u.table->name +
                                 " is placed is not known on this node yet; "
                                 "retry shortly");
    }
    if (to.local && to.remote) local->push_back(u);
    if (to.remote) {
      remote->push_back(RemoteViewUpdate{base, base_token, std::move(u)});
    } else if (to.local) {
      local->push_back(std::move(u));
    }
  }
  view_updates->clear();
  return Status::OK();
}

Status ViewMaintainer::Apply(const std::vector<PartitionUpdate>& updates,
                             std::unique_ptr<ViewDelivery>* delivery) {
  std::shared_lock gate(schema_gate_);
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  std::map<std::pair<TableStorageId, std::string>, PartitionWrites> groups;
  for (const PartitionUpdate& u : updates) {
    if (u.table == nullptr) continue;
    if (u.table->storage_id != 0 &&
        schema->FindTableByStorageId(u.table->storage_id) == nullptr) {
      return Status::Invalid(std::string(kTableChangedMessage));
    }
    if (schema->ViewsOf(u.table->id).empty()) continue;
    std::string pk;
    KW_RETURN_IF_ERROR(ValidatePartitionKey(*u.table, u.partition_key, &pk));
    PartitionWrites& g = groups[{u.table->storage_id, pk}];
    if (g.first == nullptr) {
      g.first = &u;
      g.serialized_pk = std::move(pk);
    }
    g.updates.push_back(&u);
  }
  // No view to maintain: the write may join its loop's group commit. The
  // gate stays held meanwhile; other fibers of the loop still take it, as
  // std::shared_mutex (glibc's rwlock) lets readers in while Exclusive
  // waits. The stripe locks below are plain mutexes: never held across a
  // group commit.
  if (groups.empty()) return engine_->ApplyGrouped(updates);

  std::set<std::mutex*> stripes;
  for (const auto& [key, g] : groups) {
    stripes.insert(Stripe(*g.first->table, g.serialized_pk));
  }
  std::vector<std::unique_lock<std::mutex>> locks;
  for (std::mutex* m : stripes) locks.emplace_back(*m);

  const int32_t now_seconds = NowSeconds();
  std::vector<PartitionUpdate> all = updates;
  std::vector<RemoteViewUpdate> remote;
  std::vector<RemoteViewUpdate>* const to_remote =
      delivery != nullptr ? &remote : nullptr;
  for (const auto& [key, g] : groups) {
    const TableDefPtr& table = g.first->table;
    ClusteringSlice slice = g.updates.size() == 1
                                ? AffectedSlice(*g.first)
                                : ClusteringSlice{};
    ReadOptions options;
    options.now_seconds = now_seconds;
    KW_ASSIGN_OR_RETURN(RawPartition before,
                        engine_->ReadRaw(table, g.first->partition_key, slice,
                                         kNoRowLimit, options));
    std::vector<RawPartition> writes;
    writes.reserve(g.updates.size());
    for (const PartitionUpdate* u : g.updates) {
      writes.push_back(RawOfUpdate(*u));
      writes.back().table = table;  // one definition for the merge
    }
    std::vector<const RawPartition*> inputs{&before};
    for (const RawPartition& w : writes) inputs.push_back(&w);
    KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions(inputs));
    std::vector<PartitionUpdate> view_updates;
    ComputeViewUpdates(table, schema->ViewsOf(table->id), before,
                       merge.merged, now_seconds, &view_updates);
    KW_RETURN_IF_ERROR(
        Route(table, merge.merged.token, &view_updates, &all, to_remote));
  }
  std::unique_ptr<ViewDelivery> addressed;
  if (!remote.empty()) {
    addressed = router_.load()->Address(std::move(remote), &all);
  }
  KW_RETURN_IF_ERROR(engine_->Apply(all));
  if (delivery != nullptr) *delivery = std::move(addressed);
  return Status::OK();
}

Status ViewMaintainer::ApplyRaw(const std::vector<RawPartition>& partitions,
                                std::unique_ptr<ViewDelivery>* delivery) {
  std::shared_lock gate(schema_gate_);
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  std::vector<const RawPartition*> maintained;
  std::set<std::mutex*> stripes;
  for (const RawPartition& p : partitions) {
    if (p.table == nullptr || schema->ViewsOf(p.table->id).empty()) continue;
    maintained.push_back(&p);
    stripes.insert(Stripe(*p.table, p.partition_key));
  }
  if (maintained.empty()) return engine_->ApplyRaw(partitions);
  std::vector<std::unique_lock<std::mutex>> locks;
  for (std::mutex* m : stripes) locks.emplace_back(*m);
  const int32_t now_seconds = NowSeconds();
  std::vector<PartitionUpdate> local;
  std::vector<RemoteViewUpdate> remote;
  std::vector<RemoteViewUpdate>* const to_remote =
      delivery != nullptr ? &remote : nullptr;
  for (const RawPartition* p : maintained) {
    KW_ASSIGN_OR_RETURN(std::vector<std::string> key,
                        SplitPartitionKey(p->partition_key,
                                          p->table->PartitionKeySize()));
    ReadOptions options;
    options.now_seconds = now_seconds;
    KW_ASSIGN_OR_RETURN(RawPartition before,
                        engine_->ReadRaw(p->table, key, {}, kNoRowLimit,
                                         options));
    RawPartition write = *p;
    write.table = before.table;  // one definition for the merge
    KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions({&before, &write}));
    std::vector<PartitionUpdate> view_updates;
    ComputeViewUpdates(before.table, schema->ViewsOf(p->table->id), before,
                       merge.merged, now_seconds, &view_updates);
    KW_RETURN_IF_ERROR(
        Route(before.table, p->token, &view_updates, &local, to_remote));
  }
  std::unique_ptr<ViewDelivery> addressed;
  if (!remote.empty()) {
    addressed = router_.load()->Address(std::move(remote), &local);
  }
  // The view updates (and the journal) first: a crash between the two
  // leaves view rows ahead of their base rows (stale index entries, which
  // queries skip), never behind them.
  if (!local.empty()) KW_RETURN_IF_ERROR(engine_->Apply(local));
  KW_RETURN_IF_ERROR(engine_->ApplyRaw(partitions));
  if (delivery != nullptr) *delivery = std::move(addressed);
  return Status::OK();
}

Status ViewMaintainer::Backfill(const TableDefPtr& view,
                                const std::function<bool()>& stop,
                                const std::function<void(Token)>& progress) {
  if (view->view == nullptr) return Status::ServerError("not a view");
  { std::unique_lock wait_for_older_writes(schema_gate_); }
  SchemaSnapshotPtr schema = engine_->catalog().snapshot();
  TableDefPtr base = schema->FindTable(view->keyspace, view->view->base_name);
  if (base == nullptr || base->id != view->view->base_id) {
    return Status::Invalid("The base table of " + view->name + " is gone");
  }
  ReadOptions options;
  options.now_seconds = NowSeconds();
  KW_ASSIGN_OR_RETURN(std::unique_ptr<TableScanner> scanner,
                      engine_->ScanTable(*base, kMinimumToken, {}, {}, options));
  const std::vector<TableDefPtr> views{view};
  // Partitions are filled in groups, each group under its partitions'
  // locks and written in one Apply.
  constexpr size_t kGroup = 8;
  std::vector<std::pair<std::string, Token>> group;
  auto flush = [&]() -> Status {
    const auto started = std::chrono::steady_clock::now();
    std::set<std::mutex*> stripes;
    for (const auto& [pk, token] : group) stripes.insert(Stripe(*base, pk));
    std::vector<std::unique_lock<std::mutex>> locks;
    for (std::mutex* m : stripes) locks.emplace_back(*m);
    ReadOptions now;
    now.now_seconds = NowSeconds();
    std::vector<PartitionUpdate> rows;
    std::vector<RemoteViewUpdate> remote;
    for (const auto& [pk, token] : group) {
      KW_ASSIGN_OR_RETURN(std::vector<std::string> key,
                          SplitPartitionKey(pk, base->PartitionKeySize()));
      KW_ASSIGN_OR_RETURN(RawPartition state,
                          engine_->ReadRaw(base, key, {}, kNoRowLimit, now));
      std::vector<PartitionUpdate> view_updates;
      ComputeViewUpdates(base, views, EmptyRawPartition(base, pk, false),
                         state, now.now_seconds, &view_updates);
      KW_RETURN_IF_ERROR(Route(base, token, &view_updates, &rows, &remote));
    }
    if (!rows.empty()) KW_RETURN_IF_ERROR(engine_->Apply(rows));
    locks.clear();
    if (!remote.empty()) {
      // Shared: `done` may still be inside set_value when wait returns.
      auto sent = std::make_shared<std::promise<void>>();
      std::future<void> done = sent->get_future();
      ViewRouter* const router = router_.load();
      router->Send(router->Address(std::move(remote), nullptr),
                   [sent] { sent->set_value(); });
      done.wait();
    }
    if (progress) {
      for (const auto& [pk, token] : group) progress(token);
    }
    group.clear();
    // Backfill is background work: it leaves the machine to foreground
    // requests at least half of the time.
    std::this_thread::sleep_for(std::chrono::steady_clock::now() - started);
    return Status::OK();
  };
  while (scanner->NextPartition()) {
    if (stop && stop()) return Status::ServerError("view build stopped");
    group.emplace_back(scanner->serialized_partition_key(), scanner->token());
    if (group.size() == kGroup) KW_RETURN_IF_ERROR(flush());
  }
  KW_RETURN_IF_ERROR(scanner->status());
  if (!group.empty()) KW_RETURN_IF_ERROR(flush());
  return Status::OK();
}

}  // namespace keywise
