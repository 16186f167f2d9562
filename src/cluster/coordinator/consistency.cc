#include "cluster/coordinator/consistency.h"

#include <algorithm>
#include <utility>

namespace keywise::cluster {
namespace {

int Quorum(int rf) {
  return rf / 2 + 1;
}

bool LocalOnly(Consistency cl) {
  return cl == Consistency::kLocalQuorum || cl == Consistency::kLocalOne ||
         cl == Consistency::kLocalSerial;
}

std::string DcOf(const Topology& topology, const Uuid& id) {
  const NodeStatus* n = topology.Find(id);
  return n != nullptr ? n->info.dc : std::string();
}

Status Unavailable(Consistency cl, int required, int alive,
                   const std::string& suffix = "") {
  ReplicaCounts counts;
  counts.consistency = cl;
  counts.block_for = required;
  counts.received = alive;
  return Status::WithCounts(ErrorCode::kUnavailable,
                            "Cannot achieve consistency level " +
                                std::string(protocol::ConsistencyName(cl)) +
                                suffix,
                            counts);
}

}  // namespace

int BlockFor(Consistency cl, const ReplicationSpec& spec,
             const std::string& local_dc) {
  switch (cl) {
    case Consistency::kAny:
    case Consistency::kOne:
    case Consistency::kLocalOne:
      return 1;
    case Consistency::kTwo:
      return 2;
    case Consistency::kThree:
      return 3;
    case Consistency::kQuorum:
    case Consistency::kSerial:
      return Quorum(spec.TotalRf());
    case Consistency::kAll:
      return spec.TotalRf();
    case Consistency::kLocalQuorum:
    case Consistency::kLocalSerial:
      return Quorum(spec.RfIn(local_dc));
    case Consistency::kEachQuorum: {
      if (spec.kind != ReplicationSpec::Kind::kNetworkTopology) {
        return Quorum(spec.TotalRf());
      }
      int n = 0;
      for (const auto& [dc, rf] : spec.dc_rf) n += Quorum(rf);
      return n;
    }
  }
  return 1;
}

Status ReadTimeoutError(Consistency cl, int received, int block_for) {
  ReplicaCounts counts;
  counts.consistency = cl;
  counts.received = received;
  counts.block_for = block_for;
  counts.data_present = received > 0;
  return Status::WithCounts(ErrorCode::kReadTimeout,
                            "Operation timed out - received only " +
                                std::to_string(received) + " responses.",
                            counts);
}

Status ValidateForRead(Consistency cl) {
  if (cl == Consistency::kAny) {
    return Status::Invalid("ANY ConsistencyLevel is only supported for writes");
  }
  return Status::OK();
}

Status ValidateForWrite(Consistency cl) {
  if (cl == Consistency::kSerial || cl == Consistency::kLocalSerial) {
    return Status::Invalid(
        "You must use conditional updates for serializable writes");
  }
  return Status::OK();
}

Status AssureAvailable(Consistency cl, const ReplicationSpec& spec,
                       const Topology& topology,
                       const std::vector<Uuid>& replicas,
                       const std::optional<Uuid>& pending) {
  if (cl == Consistency::kAny) return Status::OK();
  const std::string local_dc = topology.LocalDc();
  auto counts = [&](const Uuid& r, const std::string* dc) {
    const std::string r_dc = DcOf(topology, r);
    if (dc != nullptr) return r_dc == *dc;
    return !LocalOnly(cl) || r_dc == local_dc;
  };
  auto alive_in = [&](const std::string* dc) {
    int alive = 0;
    for (const Uuid& r : replicas) {
      alive += topology.IsUp(r) && counts(r, dc) ? 1 : 0;
    }
    if (pending && topology.IsUp(*pending) && counts(*pending, dc)) ++alive;
    return alive;
  };
  const int extra_all = pending && counts(*pending, nullptr) ? 1 : 0;
  if (cl == Consistency::kEachQuorum &&
      spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
    for (const auto& [dc, rf] : spec.dc_rf) {
      const int required =
          Quorum(rf) + (pending && counts(*pending, &dc) ? 1 : 0);
      const int alive = alive_in(&dc);
      if (alive < required) {
        return Unavailable(cl, required, alive, " in DC " + dc);
      }
    }
    return Status::OK();
  }
  const int required = BlockFor(cl, spec, local_dc) + extra_all;
  const int alive = alive_in(nullptr);
  if (alive < required) return Unavailable(cl, required, alive);
  return Status::OK();
}

std::vector<Uuid> ReadContacts(Consistency cl, const ReplicationSpec& spec,
                               const Topology& topology,
                               const std::vector<Uuid>& replicas) {
  const std::string local_dc = topology.LocalDc();
  std::vector<Uuid> live;
  for (const Uuid& r : replicas) {
    if (!topology.IsUp(r)) continue;
    if (LocalOnly(cl) && DcOf(topology, r) != local_dc) continue;
    live.push_back(r);
  }
  // Proximity: this node, then its datacenter, then the rest (stable).
  auto rank = [&](const Uuid& r) {
    if (r == topology.local()) return 0;
    return DcOf(topology, r) == local_dc ? 1 : 2;
  };
  std::stable_sort(live.begin(), live.end(), [&](const Uuid& a, const Uuid& b) {
    return rank(a) < rank(b);
  });
  if (cl == Consistency::kEachQuorum &&
      spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
    std::vector<Uuid> out;
    for (const auto& [dc, rf] : spec.dc_rf) {
      int want = Quorum(rf);
      for (const Uuid& r : live) {
        if (want > 0 && DcOf(topology, r) == dc) {
          out.push_back(r);
          --want;
        }
      }
    }
    return out;
  }
  const size_t want = static_cast<size_t>(BlockFor(cl, spec, local_dc));
  if (live.size() > want) live.resize(want);
  return live;
}

ResponseTracker::ResponseTracker(Consistency cl, const ReplicationSpec& spec,
                                 TopologyPtr topology)
    : cl_(cl), topology_(std::move(topology)), local_dc_(topology_->LocalDc()) {
  block_for_ = BlockFor(cl, spec, local_dc_);
  if (cl == Consistency::kEachQuorum &&
      spec.kind == ReplicationSpec::Kind::kNetworkTopology) {
    for (const auto& [dc, rf] : spec.dc_rf) dc_needed_[dc] = Quorum(rf);
  }
}

bool ResponseTracker::OnSuccess(const Uuid& replica) {
  const std::string dc = DcOf(*topology_, replica);
  if (LocalOnly(cl_) && dc != local_dc_) return Satisfied();
  ++received_;
  ++dc_received_[dc];
  return Satisfied();
}

void ResponseTracker::AddPending(const Uuid& pending) {
  if (cl_ == Consistency::kAny) return;
  const std::string dc = DcOf(*topology_, pending);
  if (!dc_needed_.empty()) {
    ++dc_needed_[dc];
    return;
  }
  if (LocalOnly(cl_) && dc != local_dc_) return;
  ++block_for_;
}

bool ResponseTracker::Satisfied() const {
  if (!dc_needed_.empty()) {
    for (const auto& [dc, need] : dc_needed_) {
      auto it = dc_received_.find(dc);
      if ((it == dc_received_.end() ? 0 : it->second) < need) return false;
    }
    return true;
  }
  return received_ >= block_for_;
}

}  // namespace keywise::cluster
