#include "cluster_tool/node_admin.h"

#include <future>

#include "common/log.h"

namespace keywise::cluster_tool {

Result<std::unique_ptr<NodeAdmin>> NodeAdmin::Create(cluster::MessagingTls tls) {
  // A command-line client: the messaging service's connection notes are
  // noise here.
  SetMinLogLevel(LogLevel::kWarn);
  cluster::MessagingOptions options;
  options.listen_address = "127.0.0.1";
  options.port = 0;
  options.node_id = Uuid::Random();
  options.tls = std::move(tls);
  auto messaging = std::make_unique<cluster::MessagingService>(options);
  KW_RETURN_IF_ERROR(messaging->Start());
  return std::unique_ptr<NodeAdmin>(new NodeAdmin(std::move(messaging)));
}

Result<std::string> NodeAdmin::Ask(const cluster::NodeInfo& node,
                                   cluster::Verb verb, std::string payload,
                                   std::chrono::milliseconds timeout,
                                   bool* reached) {
  std::promise<cluster::Response> promise;
  std::future<cluster::Response> answer = promise.get_future();
  messaging_->Send(
      cluster::Endpoint{node.listen_address,
                        static_cast<uint16_t>(node.storage_port)},
      verb, std::move(payload), timeout,
      [&promise](cluster::Response r) { promise.set_value(std::move(r)); });
  cluster::Response r = answer.get();
  if (reached != nullptr) {
    // Only a node never reached (down, or not yet seen down) may be
    // replaced by another: one that timed out or dropped the connection
    // may still be working on the request.
    *reached = r.error() != cluster::SendError::kUnreachable;
  }
  if (r.ok()) return r.TakePayload();
  return Status::ServerError("Node " + node.listen_address + ": " +
                             r.status().message());
}

}  // namespace keywise::cluster_tool
