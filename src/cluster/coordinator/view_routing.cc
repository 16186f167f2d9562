#include "cluster/coordinator/view_routing.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <tuple>
#include <utility>

#include "cluster/coordinator/hint_store.h"
#include "cluster/coordinator/request_fence.h"
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

namespace {

struct ViewMessage {
  Uuid target;
  Endpoint peer;
  std::string mutation;
  std::optional<Uuid> hint;  // its journal row, when it has one
};

struct PairedDelivery final : ViewDelivery {
  HintStore* hints = nullptr;
  ClusterViewPtr view;
  RequestFence::Ticket ticket;  // held until every message is answered
  bool journaled = false;
  bool must_wait = false;  // a key-change table's update
  int64_t journal_rows = 0;
  int64_t bytes = 0;
  std::vector<ViewMessage> messages;
  bool sent = false;
  ~PairedDelivery() override {
    if (sent) return;
    for (const ViewMessage& m : messages) {
      if (m.hint) hints->Release(*m.hint);
    }
  }
};

}  // namespace

std::unique_ptr<ViewDelivery> PairedViewRouter::Address(
    std::vector<RemoteViewUpdate> updates,
    std::vector<PartitionUpdate>* journal) {
  auto d = std::make_unique<PairedDelivery>();
  std::tie(d->view, d->ticket) = coordinator_->fence().Acquire();
  d->hints = coordinator_->hints();
  d->journaled = journal != nullptr;
  const Topology& topology = *d->view->topology;
  for (const RemoteViewUpdate& u : updates) {
    std::vector<Uuid> targets =
        RemoteTargets(*d->view, *u.base, u.base_token, u.update);
    if (targets.empty()) continue;
    if (u.update.table->IsKeyChangeTable()) d->must_wait = true;
    std::string encoded;
    EncodePartitionUpdate(u.update, &encoded);
    for (const Uuid& target : targets) {
      std::optional<Endpoint> peer = coordinator_->EndpointOf(topology, target);
      const bool up = peer && topology.IsUp(target);
      std::optional<Uuid> hint;
      if (journal != nullptr) {
        Uuid id;
        if (std::optional<PartitionUpdate> row =
                d->hints->Row(target, encoded, up, &id)) {
          journal->push_back(std::move(*row));
          ++d->journal_rows;
          hint = id;
        }
      } else if (!up) {
        d->hints->Store(target, encoded);
      }
      if (!up) continue;
      d->bytes += static_cast<int64_t>(encoded.size());
      d->messages.push_back(ViewMessage{target, *peer, encoded, hint});
    }
  }
  return d;
}

void PairedViewRouter::Send(std::unique_ptr<ViewDelivery> delivery,
                            std::function<void()> done) {
  std::shared_ptr<PairedDelivery> d(static_cast<PairedDelivery*>(delivery.release()));
  d->sent = true;
  HintStore* const hints = d->hints;
  hints->Written(d->journal_rows);
  std::shared_ptr<Counters> counters = counters_;
  bool wait = !d->journaled || d->must_wait || limit_bytes_ == 0;
  if (!wait && counters->bytes.load() > limit_bytes_) {
    wait = true;  // backpressure: this write waits for its own updates
    counters->slowed_writes.fetch_add(1);
  }
  if (!wait) {
    done();
    done = nullptr;
  }
  struct Pending {
    std::atomic<int> left{1};
    std::function<void()> done;
    void Finish() {
      if (left.fetch_sub(1) == 1 && done) done();
    }
  };
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  counters->updates.fetch_add(static_cast<int64_t>(d->messages.size()));
  counters->bytes.fetch_add(d->bytes);
  const auto timeout = coordinator_->options().write_timeout;
  for (size_t i = 0; i < d->messages.size(); ++i) {
    pending->left.fetch_add(1);
    const ViewMessage& m = d->messages[i];
    coordinator_->messaging()->Send(
        m.peer, kMutationVerb, m.mutation, timeout,
        [pending, d, i, counters](Response response) {
          const ViewMessage& m = d->messages[i];
          if (!m.hint) {
            if (!response.ok()) d->hints->Store(m.target, m.mutation);
          } else if (response.ok()) {
            d->hints->Delivered(m.target, *m.hint);
          } else {
            d->hints->Release(*m.hint);  // replay sends it
          }
          counters->updates.fetch_sub(1);
          counters->bytes.fetch_sub(static_cast<int64_t>(m.mutation.size()));
          pending->Finish();
        },
        d->view->revision);
  }
  pending->Finish();
}

ViewBacklog PairedViewRouter::backlog() const {
  ViewBacklog b;
  b.updates = counters_->updates.load();
  b.bytes = counters_->bytes.load();
  b.slowed_writes = counters_->slowed_writes.load();
  b.limit_bytes = limit_bytes_;
  return b;
}

}  // namespace keywise::cluster
