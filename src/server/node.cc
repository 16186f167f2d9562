#include "server/node.h"

#include <utility>

#include "common/log.h"
#include "server/native_listener.h"
#include "storage/engine.h"

namespace keywise {

Node::Node(NodeConfig config, const Clock& clock)
    : config_(std::move(config)),
      clock_(clock),
      listener_(std::make_unique<NativeListener>(
          config_.rpc_address, config_.native_transport_port,
          static_cast<size_t>(config_.native_transport_max_frame_size_in_mb)
              << 20,
          ShutdownSignals::kHandle)) {}

Node::~Node() = default;

Status Node::Run() {
  for (const std::string& warning : config_.warnings) LogWarn("main", warning);
  LogInfo("main", "Starting Keywise node of cluster '" + config_.cluster_name +
                      "': data_dir=" + config_.data_dir + ", commitlog_sync=" +
                      CommitlogSyncName(config_.commitlog_sync));

  // Bind first: a busy port is reported before a long engine open.
  KW_RETURN_IF_ERROR(listener_->Bind());
  KW_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                      Engine::Open(ToEngineOptions(config_), clock_));
  LogInfo("main", "Storage engine open in " + config_.data_dir);

  const Status served = listener_->Run();

  LogInfo("main", "Closing the storage engine (flushing memtables)");
  const Status closed = engine->Close();
  if (!served.ok()) return served;
  if (!closed.ok()) return closed;
  LogInfo("main", "Keywise node stopped cleanly");
  return Status::OK();
}

void Node::Stop() {
  listener_->Stop();
}

}  // namespace keywise
