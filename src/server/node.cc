#include "server/node.h"

#include <utility>

#include "common/log.h"
#include "query/query_processor.h"
#include "server/native_transport.h"
#include "storage/engine.h"
#include "system/system_keyspaces.h"

namespace keywise {
namespace {

server::TransportOptions TransportOptionsOf(const NodeConfig& config) {
  server::TransportOptions o;
  o.address = config.rpc_address;
  o.port = config.native_transport_port;
  o.max_frame_bytes =
      static_cast<uint32_t>(config.native_transport_max_frame_size_in_mb)
      << 20;
  o.max_connections = config.native_transport_max_concurrent_connections;
  o.worker_threads = config.native_transport_max_threads;
  o.read_timeout = std::chrono::milliseconds(config.read_request_timeout_in_ms);
  o.write_timeout =
      std::chrono::milliseconds(config.write_request_timeout_in_ms);
  return o;
}

}  // namespace

namespace {

// What system.local says about this node. Drivers connect to rpc_address,
// so a wildcard is replaced by the listen address.
system::LocalNodeInfo LocalNodeInfoOf(const NodeConfig& config) {
  system::LocalNodeInfo info;
  info.cluster_name = config.cluster_name;
  info.listen_address = config.listen_address;
  info.rpc_address = config.rpc_address == "0.0.0.0" || config.rpc_address == "::"
                         ? config.listen_address
                         : config.rpc_address;
  info.native_port = config.native_transport_port;
  return info;
}

}  // namespace

Node::Node(NodeConfig config, const Clock& clock)
    : config_(std::move(config)),
      clock_(clock),
      transport_(std::make_unique<server::NativeTransport>(
          TransportOptionsOf(config_), server::ShutdownSignals::kHandle)) {}

Node::~Node() = default;

Status Node::Run() {
  for (const std::string& warning : config_.warnings) LogWarn("main", warning);
  LogInfo("main", "Starting Keywise node of cluster '" + config_.cluster_name +
                      "': data_dir=" + config_.data_dir + ", commitlog_sync=" +
                      CommitlogSyncName(config_.commitlog_sync));

  // Bind first: a busy port is reported before a long engine open.
  KW_RETURN_IF_ERROR(transport_->Bind());
  KW_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                      Engine::Open(ToEngineOptions(config_), clock_));
  LogInfo("main", "Storage engine open in " + config_.data_dir);
  KW_RETURN_IF_ERROR(
      system::SystemKeyspaces::Install(*engine, LocalNodeInfoOf(config_)));

  Status served;
  {
    query::QueryProcessor processor(engine.get());
    served = transport_->Run(&processor);
  }

  LogInfo("main", "Closing the storage engine (flushing memtables)");
  const Status closed = engine->Close();
  if (!served.ok()) return served;
  if (!closed.ok()) return closed;
  LogInfo("main", "Keywise node stopped cleanly");
  return Status::OK();
}

void Node::Stop() {
  transport_->Stop();
}

}  // namespace keywise
