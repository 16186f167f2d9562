#include "cluster/trace_copy_service.h"

#include <utility>

#include "cluster/coordinator/fanout.h"

namespace keywise::cluster {

TraceCopyService::TraceCopyService(Engine* engine,
                                   std::function<ClusterViewPtr()> view,
                                   MessagingService* messaging,
                                   std::chrono::milliseconds timeout)
    : engine_(engine),
      view_(std::move(view)),
      messaging_(messaging),
      timeout_(timeout) {}

Status TraceCopyService::Register() {
  return messaging_->RegisterHandler(
      kTraceRowsVerb, HandlerThread::kPool,
      [this](IncomingMessage message, Responder responder) {
        Status st = Apply(message.payload);
        if (st.ok()) {
          responder.Respond(std::string());
        } else {
          responder.Fail(st);
        }
      });
}

system::TraceCopySender::Members TraceCopyService::LiveMembers() {
  const ClusterViewPtr view = view_();
  return Members{view->topology->local(), view->topology->LiveNodes()};
}

void TraceCopyService::Send(const Uuid& node,
                            std::vector<PartitionUpdate> updates,
                            std::function<void(const Status&)> done) {
  const ClusterViewPtr view = view_();
  std::optional<Endpoint> peer = PeerEndpoint(*view->topology, node);
  if (!peer) {
    done(Status::ServerError("Node " + node.ToString() +
                             " is not in the cluster"));
    return;
  }
  messaging_->Send(*peer, kTraceRowsVerb, system::EncodeTraceRows(updates),
                   timeout_, [done = std::move(done)](Response r) {
                     done(r.ok() ? Status::OK() : r.status());
                   });
}

Status TraceCopyService::Apply(std::string_view payload) {
  KW_ASSIGN_OR_RETURN(system::TraceTables tables,
                      system::FindTraceTables(*engine_->catalog().snapshot()));
  KW_ASSIGN_OR_RETURN(std::vector<PartitionUpdate> updates,
                      system::DecodeTraceRows(payload, tables));
  return engine_->Apply(updates);
}

}  // namespace keywise::cluster
