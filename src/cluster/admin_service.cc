#include "cluster/admin_service.h"

#include <utility>

#include "cluster/tablets/tablet_repair.h"
#include "cluster/coordinator/verbs.h"
#include "common/log.h"

namespace keywise::cluster {

AdminService::AdminService(Engine* engine, ReloadTls reload_tls)
    : engine_(engine), reload_tls_(std::move(reload_tls)) {
  thread_ = std::thread([this] { Loop(); });
}

AdminService::~AdminService() {
  Stop();
}

Status AdminService::Register(MessagingService* messaging) {
  auto on = [&](Verb verb, std::function<Result<std::string>(std::string)> f) {
    return messaging->RegisterHandler(
        verb, HandlerThread::kIoThread,
        [this, f](IncomingMessage message, Responder responder) {
          Enqueue([f, payload = std::move(message.payload)] {
                    return f(payload);
                  },
                  std::move(responder));
        });
  };
  KW_RETURN_IF_ERROR(on(kFlushVerb, [this](const std::string&) -> Result<std::string> {
    LogInfo("cluster", "Flushing memtables (keywise admin flush)");
    KW_RETURN_IF_ERROR(engine_->Flush());
    return std::string();
  }));
  KW_RETURN_IF_ERROR(on(kCompactVerb, [this](const std::string&) -> Result<std::string> {
    LogInfo("cluster", "Compacting storage (keywise admin compact)");
    KW_RETURN_IF_ERROR(engine_->CompactAll());
    return std::string();
  }));
  // Not queued behind a flush, compaction or repair: it takes
  // milliseconds, and a certificate about to expire should not wait.
  KW_RETURN_IF_ERROR(messaging->RegisterHandler(
      kReloadSslVerb, HandlerThread::kPool,
      [this](IncomingMessage, Responder responder) {
        LogInfo("cluster", "Checking the certificate files (keywise admin "
                           "reloadssl)");
        Result<std::string> answer =
            reload_tls_ ? reload_tls_()
                        : Result<std::string>(std::string(
                              "TLS is not enabled on this node\n"));
        if (answer.ok()) {
          responder.Respond(std::move(*answer));
        } else {
          responder.Fail(answer.status());
        }
      }));
  return on(kRepairTablesVerb,
            [this](const std::string& payload) { return Repair(payload); });
}

Result<std::string> AdminService::Repair(const std::string& payload) {
  KW_ASSIGN_OR_RETURN(RepairRequest what, DecodeRepairRequest(payload));
  Coordinator* coordinator = coordinator_.load();
  if (coordinator == nullptr) return Status::ServerError("Not joined yet");
  LogInfo("cluster", "Repairing " +
                         (what.keyspace.empty() ? std::string("every table")
                                                : what.keyspace +
                                                      (what.table.empty()
                                                           ? ""
                                                           : "." + what.table)) +
                         " (keywise admin repair)");
  KW_ASSIGN_OR_RETURN(RepairSummary summary,
                      RepairTables(coordinator, what,
                                   coordinator->options().batch_rows,
                                   &stopping_));
  const std::string text = FormatRepairSummary(summary);
  LogInfo("cluster", text.substr(0, text.find('\n')));
  return text;
}

void AdminService::Enqueue(Work work, Responder responder) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) {
    responder.Fail(Status::ServerError("This node is stopping"));
    return;
  }
  queue_.emplace_back(std::move(work), std::move(responder));
  cv_.notify_one();
}

void AdminService::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) break;
    auto [work, responder] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Result<std::string> answer = work();
    if (answer.ok()) {
      responder.Respond(std::move(answer).value());
    } else {
      responder.Fail(answer.status());
    }
    lock.lock();
  }
  for (auto& [work, responder] : queue_) {
    responder.Fail(Status::ServerError("This node is stopping"));
  }
  queue_.clear();
}

void AdminService::Stop() {
  stopping_.store(true);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace keywise::cluster
