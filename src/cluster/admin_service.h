// AdminService: what `keywise admin flush | compact | repair` asks a node
// to do, over node-to-node messaging (verbs kFlush, kCompact,
// kRepairTables, kReloadSsl): flush its memtables, compact its storage,
// repair tables (tablet_repair.h), check its certificate files (that one
// at once on the handler pool, not queued). These run for seconds to hours, so they run one at a
// time on the service's own thread, never on a loop or the handler pool
// that replica requests need; requests arriving meanwhile wait their turn.
//
// Contract: Register before the MessagingService starts; SetCoordinator
// once the coordinator exists (repairs fail "Not joined yet" before);
// Stop (also the destructor) fails what waits, stops a repair at its next
// batch and joins the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "cluster/coordinator/coordinator.h"
#include "cluster/messaging/messaging_service.h"
#include "storage/engine.h"

namespace keywise::cluster {

class AdminService {
 public:
  // Checks the node's TLS files (net::TlsReloader::CheckNow); null: the
  // node has no TLS.
  using ReloadTls = std::function<Result<std::string>()>;

  // `engine` must outlive the service.
  AdminService(Engine* engine, ReloadTls reload_tls);
  ~AdminService();

  Status Register(MessagingService* messaging);
  // `coordinator` must outlive the service (or Stop must come first).
  void SetCoordinator(Coordinator* coordinator) {
    coordinator_.store(coordinator);
  }
  void Stop();

 private:
  using Work = std::function<Result<std::string>()>;
  // Queues `work`; its answer goes to `responder`.
  void Enqueue(Work work, Responder responder);
  void Loop();
  Result<std::string> Repair(const std::string& payload);

  Engine* const engine_;
  const ReloadTls reload_tls_;
  std::atomic<Coordinator*> coordinator_{nullptr};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Work, Responder>> queue_;  // guarded by mu_
  bool stop_ = false;                             // guarded by mu_
  std::thread thread_;
};

}  // namespace keywise::cluster
