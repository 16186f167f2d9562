// Consistency levels as a coordinator applies them (Cassandra 4's
// ConsistencyLevel and ReplicaPlans): how many replica answers a request
// needs (block-for), whether enough replicas are up to try (Unavailable),
// which replicas a read contacts, and counting answers as they arrive.
//
// Contract: pure functions and a small single-threaded tracker (the
// coordinator guards it). Levels are the protocol's values. Errors have
// Cassandra's messages and carry ReplicaCounts for the ERROR body.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata/replication.h"
#include "cluster/metadata/topology.h"
#include "common/status.h"
#include "protocol/consistency.h"

namespace keywise::cluster {


// Replica answers `cl` needs (Cassandra's blockFor): ONE 1, TWO 2, THREE 3,
// QUORUM total/2+1, ALL total, LOCAL_QUORUM local dc's rf/2+1,
// EACH_QUORUM the sum of every dc's quorum, ANY 1, LOCAL_ONE 1.
int BlockFor(Consistency cl, const ReplicationSpec& spec,
             const std::string& local_dc);

// InvalidRequest for levels a read or a write may not use (ANY for reads,
// SERIAL/LOCAL_SERIAL for writes without conditions).
Status ValidateForRead(Consistency cl);
Status ValidateForWrite(Consistency cl);

// Unavailable ("Cannot achieve consistency level X", or "... in DC d" for
// EACH_QUORUM) when fewer of `replicas` are up than `cl` requires; ANY is
// never unavailable for writes (a local hint is acceptable).
// A write's `pending` replica (a tablet moving to it) must answer too:
// it adds one to what the level requires and counts among the live
// (Cassandra's pending endpoints).
Status AssureAvailable(Consistency cl, const ReplicationSpec& spec,
                       const Topology& topology,
                       const std::vector<Uuid>& replicas,
                       const std::optional<Uuid>& pending = std::nullopt);

// ReadTimeout ("Operation timed out - received only N responses.") with
// Cassandra's counts: `received` of `block_for` answers, data present when
// any came.
Status ReadTimeoutError(Consistency cl, int received, int block_for);

// The replicas a read at `cl` asks: the live ones in proximity order (this
// node, its datacenter, the others; LOCAL_* only its datacenter), as many
// as block-for (a quorum in each datacenter for EACH_QUORUM).
std::vector<Uuid> ReadContacts(Consistency cl, const ReplicationSpec& spec,
                               const Topology& topology,
                               const std::vector<Uuid>& replicas);

// Counts answers toward `cl` (per datacenter for EACH_QUORUM, only the
// local datacenter's for LOCAL_*).
class ResponseTracker {
 public:
  ResponseTracker(Consistency cl, const ReplicationSpec& spec,
                  TopologyPtr topology);
  // Records a successful answer from `replica`; true once `cl` is met
  // (and on every later answer).
  bool OnSuccess(const Uuid& replica);
  // A write's pending replica: one more answer needed (in its datacenter
  // for EACH_QUORUM; none for LOCAL_* levels when it is elsewhere; none
  // for ANY).
  void AddPending(const Uuid& pending);
  bool Satisfied() const;
  int received() const { return received_; }
  int block_for() const { return block_for_; }

 private:
  Consistency cl_;
  TopologyPtr topology_;
  std::string local_dc_;
  int block_for_ = 1;
  int received_ = 0;
  std::map<std::string, int> dc_needed_;  // EACH_QUORUM
  std::map<std::string, int> dc_received_;
};

}  // namespace keywise::cluster
