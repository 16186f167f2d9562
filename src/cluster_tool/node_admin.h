// NodeAdmin: how `keywise admin flush | compact | repair` reaches nodes:
// as a client of node-to-node messaging (the verbs of cluster/verbs.h that
// AdminService answers), with a random node id, over TLS if asked, listening on 127.0.0.1 on
// a free port for the messaging service's sake only.
//
// Contract: Create starts the messaging client; Ask blocks until the
// node's answer or `timeout`; thread-compatible.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cluster/messaging/messaging_service.h"
#include "cluster/metadata/topology.h"

namespace keywise::cluster_tool {

class NodeAdmin {
 public:
  // `tls`: its outgoing context, when the nodes' messaging needs TLS
  // (server_encryption_options; the incoming side is not used).
  static Result<std::unique_ptr<NodeAdmin>> Create(
      cluster::MessagingTls tls = {});

  // Sends `verb` with `payload` to `node`; its answer's payload, or an
  // error naming the node. *reached (if given) is false only when the node
  // could not be reached at all (no connection).
  Result<std::string> Ask(const cluster::NodeInfo& node, cluster::Verb verb,
                          std::string payload,
                          std::chrono::milliseconds timeout,
                          bool* reached = nullptr);

 private:
  explicit NodeAdmin(std::unique_ptr<cluster::MessagingService> messaging)
      : messaging_(std::move(messaging)) {}
  std::unique_ptr<cluster::MessagingService> messaging_;
};

}  // namespace keywise::cluster_tool
