// StatsService: the workload statistics of a cluster's nodes, so that the
// system_views tables of any node answer for the whole cluster
// (docs/advisor.md, "In a cluster"). It answers kWorkloadStats with this
// node's own statistics (advisor/node_stats.h) or resets them, and, as
// advisor::PeerStats, asks every other up node for theirs.
//
// Contract: Register before the MessagingService starts. `stats` may be
// null (statistics off: the node answers with its large partitions only
// and resets nothing). Gather and Reset ask every other normal node that
// is up, and count one that is down or does not answer as missing (Reset
// fails naming it: its statistics would come back with it); they block (a
// statement's fiber is suspended instead) for at most `timeout` plus a
// second; any thread.
#pragma once

#include <chrono>
#include <functional>

#include "advisor/node_stats.h"
#include "cluster/messaging/messaging_service.h"
#include "cluster/metadata/cluster_view.h"
#include "storage/engine.h"

namespace keywise::cluster {

class StatsService : public advisor::PeerStats {
 public:
  // Everything must outlive the service.
  StatsService(Engine* engine, advisor::WorkloadStats* stats,
               std::function<ClusterViewPtr()> view,
               MessagingService* messaging,
               std::chrono::milliseconds timeout);

  Status Register();

  std::vector<advisor::NodeStats> Gather(
      std::vector<std::string>* missing) override;
  Status Reset(advisor::StatsKind kind) override;

 private:
  struct Answer {
    std::string node;  // its address
    Result<std::string> payload;
  };
  // Sends `request` to every other up normal node; an answer per other
  // normal node (an error for one down or silent).
  std::vector<Answer> AskOthers(const std::string& request);
  Result<std::string> Handle(std::string_view request);

  Engine* const engine_;
  advisor::WorkloadStats* const stats_;
  const std::function<ClusterViewPtr()> view_;
  MessagingService* const messaging_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace keywise::cluster
