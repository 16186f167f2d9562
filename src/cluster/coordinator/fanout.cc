#include "cluster/coordinator/fanout.h"

#include "cluster/coordinator/traced_message.h"

namespace keywise::cluster {

std::optional<Endpoint> PeerEndpoint(const Topology& topology,
                                     const Uuid& node) {
  const NodeStatus* n = topology.Find(node);
  if (n == nullptr) return std::nullopt;
  return Endpoint{n->info.listen_address,
                  static_cast<uint16_t>(n->info.storage_port)};
}

void SendBefore(MessagingService* messaging, const Topology& topology,
                const Endpoint& peer, Verb verb, std::string payload,
                std::chrono::steady_clock::time_point deadline,
                ResponseCallback callback) {
  const auto now = std::chrono::steady_clock::now();
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline > now ? deadline - now : std::chrono::milliseconds(1));
  messaging->Send(peer, verb, std::move(payload),
                  timeout,
                  std::move(callback),
                  topology.revision() > 0
                      ? std::optional<int64_t>(topology.revision())
                      : std::nullopt);
}

std::string NodeName(const Topology& topology, const Uuid& node) {
  const NodeStatus* n = topology.Find(node);
  return "/" + (n != nullptr ? n->info.listen_address : node.ToString());
}

std::string NodeNames(const Topology& topology,
                      const std::vector<Uuid>& nodes) {
  std::string out;
  for (const Uuid& node : nodes) {
    if (!out.empty()) out += ", ";
    out += NodeName(topology, node);
  }
  return out;
}

void SendTraced(MessagingService* messaging, const Topology& topology,
                const Uuid& node, const Endpoint& peer, Verb verb,
                const std::string& payload,
                std::chrono::steady_clock::time_point deadline,
                const tracing::TracePtr& trace, ResponseCallback callback) {
  std::string name = NodeName(topology, node);
  std::string what = VerbName(verb);
  trace->Trace("Sending " + what + " message to " + name);
  SendBefore(messaging, topology, peer, kTracedVerb,
             EncodeTracedRequest(trace->session_id(), trace->source().address,
                                 verb, payload),
             deadline,
             [trace, name = std::move(name), what = std::move(what),
              callback = std::move(callback)](Response response) {
               tracing::ScopedThreadRole role("messaging");
               trace->Trace(
                   response.ok()
                       ? what + " answer from " + name + " (" +
                             std::to_string(response.payload().size()) +
                             " bytes)"
                       : what + " to " + name +
                             " failed: " + response.status().ToString());
               callback(std::move(response));
             });
}

std::optional<Uuid> SpareReplica(const Topology& topology,
                                 const std::vector<Uuid>& replicas,
                                 const std::vector<Uuid>& asked,
                                 const Uuid& failed) {
  const NodeStatus* failed_node = topology.Find(failed);
  for (const Uuid& r : replicas) {
    const NodeStatus* spare = topology.Find(r);
    if (spare == nullptr || !spare->up ||
        std::find(asked.begin(), asked.end(), r) != asked.end() ||
        (failed_node != nullptr && spare->info.dc != failed_node->info.dc)) {
      continue;
    }
    return r;
  }
  return std::nullopt;
}

}  // namespace keywise::cluster
