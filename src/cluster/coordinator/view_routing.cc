#include "cluster/coordinator/view_routing.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"
#include "schema/partitioner.h"

namespace keywise::cluster {
namespace {

bool Contains(const std::vector<Uuid>& nodes, const Uuid& node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// The view tablet of `update` in `view`; null when the view table has no
// tablet map (yet, or any more).
const TabletInfo* ViewTablet(const ClusterView& view,
                             const PartitionUpdate& update) {
  TabletMapPtr map = view.TabletsOf(update.table->id);
  if (map == nullptr) return nullptr;
  return &map->TabletAt(
      PartitionToken(*update.table, SerializePartitionKey(update.partition_key)));
}

// The nodes other than this one that `update` goes to: the pair, and a
// pending view replica.
std::vector<Uuid> RemoteTargets(const ClusterView& view, const TableDef& base,
                                Token base_token,
                                const PartitionUpdate& update) {
  std::vector<Uuid> out;
  const TabletInfo* vt = ViewTablet(view, update);
  TabletMapPtr base_map = view.TabletsOf(base.id);
  if (vt == nullptr || base_map == nullptr) return out;
  const Uuid local = view.topology->local();
  if (!Contains(vt->replicas, local)) {
    std::optional<Uuid> pair = PairedViewReplica(
        local, base_map->TabletAt(base_token).replicas, vt->replicas);
    if (pair) out.push_back(*pair);
  }
  std::optional<Uuid> pending = vt->PendingReplica();
  if (pending && *pending != local && !Contains(out, *pending)) {
    out.push_back(*pending);
  }
  return out;
}

}  // namespace

std::optional<Uuid> PairedViewReplica(const Uuid& local,
                                      const std::vector<Uuid>& base_replicas,
                                      const std::vector<Uuid>& view_replicas) {
  if (Contains(view_replicas, local)) return local;
  std::vector<Uuid> bases, views;
  for (const Uuid& b : base_replicas) {
    if (!Contains(view_replicas, b)) bases.push_back(b);
  }
  for (const Uuid& v : view_replicas) {
    if (!Contains(base_replicas, v)) views.push_back(v);
  }
  auto it = std::find(bases.begin(), bases.end(), local);
  if (it == bases.end()) return std::nullopt;
  const size_t position = static_cast<size_t>(it - bases.begin());
  if (position >= views.size()) return std::nullopt;
  return views[position];
}

ViewRouter::Targets PairedViewRouter::Route(
    const TableDef& base, Token base_token,
    const PartitionUpdate& view_update) const {
  ClusterViewPtr view = coordinator_->view();
  Targets to;
  const TabletInfo* vt = ViewTablet(*view, view_update);
  // No map for the view table yet (the schema arrived first): refused
  // and retried, so the pair is not skipped.
  if (vt == nullptr) {
    to.unknown = true;
    return to;
  }
  to.local = vt->HeldBy(view->topology->local());
  to.remote = !RemoteTargets(*view, base, base_token, view_update).empty();
  return to;
}

void PairedViewRouter::Send(std::vector<RemoteViewUpdate> updates,
                            std::function<void()> done) {
  auto [view, ticket] = coordinator_->fence().Acquire();
  struct Pending {
    std::atomic<int> left{1};
    std::function<void()> done;
    void Finish() {
      if (left.fetch_sub(1) == 1) done();
    }
  };
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  HintStore* hints = coordinator_->hints();
  const auto timeout = coordinator_->options().write_timeout;
  for (const RemoteViewUpdate& u : updates) {
    std::vector<Uuid> targets =
        RemoteTargets(*view, *u.base, u.base_token, u.update);
    if (targets.empty()) continue;
    std::string encoded;
    EncodePartitionUpdate(u.update, &encoded);
    for (const Uuid& target : targets) {
      std::optional<Endpoint> peer =
          coordinator_->EndpointOf(*view->topology, target);
      if (!peer || !view->topology->IsUp(target)) {
        hints->Store(target, encoded);
        continue;
      }
      pending->left.fetch_add(1);
      coordinator_->messaging()->Send(
          *peer, kMutationVerb, encoded, timeout,
          [pending, hints, target, encoded, ticket](Response response) {
            if (!response.ok()) hints->Store(target, encoded);
            pending->Finish();
          },
          view->revision);
    }
  }
  pending->Finish();
}

}  // namespace keywise::cluster
