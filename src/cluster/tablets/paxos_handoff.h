// HandOverPaxosState: a moving tablet's Paxos state (coordinator/
// paxos_store.h) reaches its new replica. Cassandra 4 leaves it behind,
// and a round accepted by a quorum that included the leaving replica but
// not yet committed could then be missed by the next prepare of the new
// replica set; Keywise merges the old replicas' state into the new one
// (docs/lwt.md, "Tablet moves").
//
// The new replica must already take part in every round of the tablet
// (the move's write_both stage: it is a pending participant), so that a
// round after the state was read reaches it directly; the state read
// covers every round before. Merging is idempotent and commutative, so a
// resumed move may run it again and several sources may be merged.
//
// Contract: blocks the calling thread (the mover's, never a request or
// loop thread). Reads each of `sources` in pages and writes every page to
// `pending` before the next; stops with "This node is stopping" once
// *stop is true, and at the first error, which the caller treats as a
// failed stream. A node of the previous release (no kPaxosExport or
// kPaxosImport: "unknown verb") is skipped with a warning, so that moves
// go on during a rolling upgrade, without the hand-over.
#pragma once

#include <atomic>
#include <vector>

#include "cluster/coordinator/coordinator.h"

namespace keywise::cluster {

Status HandOverPaxosState(Coordinator* coordinator, const Topology& topology,
                          const Uuid& table_id, TokenInterval tokens,
                          const std::vector<Uuid>& sources, const Uuid& pending,
                          const std::atomic<bool>* stop, size_t* handed_over);

}  // namespace keywise::cluster
