// TraceCopyService: the cluster's side of trace copies (system/
// trace_copies.h, docs/tracing.md "In a cluster"): the node's TraceWriter
// sends each batch of its trace rows to the one other live node that
// keeps their copy, and this node keeps the copies other nodes send.
//
//   kTraceRows (24)  request: trace rows (system/trace_copies.h's
//                    payload); answer: empty, once applied to this node's
//                    system_traces tables. Refused (ServerError) when the
//                    payload is malformed or holds anything but writes of
//                    system_traces.sessions and system_traces.events rows.
//
// A copy is best effort: it goes out asynchronously, without retry, hint
// or repair; a peer that is down, refuses or does not answer within the
// timeout loses it (the sender's writer counts it).
//
// Contract: Register before the MessagingService starts. LiveMembers and
// Send are thread-safe; Send never blocks and calls `done` once, within
// `timeout` (messaging's Send contract). Everything passed to the
// constructor outlives the service.
#pragma once

#include <chrono>
#include <functional>

#include "cluster/messaging/messaging_service.h"
#include "cluster/metadata/cluster_view.h"
#include "storage/engine.h"
#include "system/trace_copies.h"

namespace keywise::cluster {

inline constexpr Verb kTraceRowsVerb{24};

class TraceCopyService final : public system::TraceCopySender {
 public:
  TraceCopyService(Engine* engine, std::function<ClusterViewPtr()> view,
                   MessagingService* messaging,
                   std::chrono::milliseconds timeout);

  Status Register();

  // Every node that is up and has not left, this one included.
  Members LiveMembers() override;
  void Send(const Uuid& node, std::vector<PartitionUpdate> updates,
            std::function<void(const Status&)> done) override;

  // Decodes and validates `payload` (DecodeTraceRows) and applies it to
  // this node's storage. The kTraceRows handler.
  Status Apply(std::string_view payload);

 private:
  Engine* const engine_;
  const std::function<ClusterViewPtr()> view_;
  MessagingService* const messaging_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace keywise::cluster
