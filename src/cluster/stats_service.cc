#include "cluster/stats_service.h"

#include <memory>
#include <mutex>

#include "cluster/coordinator/verbs.h"
#include "net/completion.h"

namespace keywise::cluster {

namespace {
constexpr uint8_t kRead = 0;
}  // namespace

StatsService::StatsService(Engine* engine, advisor::WorkloadStats* stats,
                           std::function<ClusterViewPtr()> view,
                           MessagingService* messaging,
                           std::chrono::milliseconds timeout)
    : engine_(engine),
      stats_(stats),
      view_(std::move(view)),
      messaging_(messaging),
      timeout_(timeout) {}

Status StatsService::Register() {
  return messaging_->RegisterHandler(
      kWorkloadStatsVerb, HandlerThread::kPool,
      [this](IncomingMessage message, Responder responder) {
        Result<std::string> answer = Handle(message.payload);
        if (answer.ok()) {
          responder.Respond(std::move(*answer));
        } else {
          responder.Fail(answer.status());
        }
      });
}

Result<std::string> StatsService::Handle(std::string_view request) {
  if (request.size() != 1 ||
      static_cast<uint8_t>(request[0]) >
          static_cast<uint8_t>(advisor::StatsKind::kShapes)) {
    return Status::ServerError("Malformed workload statistics request");
  }
  const uint8_t op = static_cast<uint8_t>(request[0]);
  if (op == kRead) {
    return advisor::EncodeNodeStats(advisor::LocalNodeStats(stats_, *engine_));
  }
  if (stats_ != nullptr) {
    advisor::ResetStats(*stats_, static_cast<advisor::StatsKind>(op));
  }
  return std::string();
}

std::vector<StatsService::Answer> StatsService::AskOthers(
    const std::string& request) {
  const ClusterViewPtr view = view_();
  struct Answers {
    std::mutex mu;
    size_t left = 0;
    std::vector<Answer> answers;  // one per other normal node
    net::Completion all;
  };
  auto answers = std::make_shared<Answers>();
  std::vector<std::pair<size_t, const NodeStatus*>> up;
  for (const NodeStatus& n : view->topology->nodes()) {
    if (n.info.host_id == view->topology->local() ||
        n.info.state != NodeState::kNormal) {
      continue;
    }
    answers->answers.push_back(Answer{
        n.info.listen_address,
        Status::ServerError(n.up ? "no answer within " +
                                       std::to_string(timeout_.count()) + " ms"
                                 : std::string("down"))});
    if (n.up) up.emplace_back(answers->answers.size() - 1, &n);
  }
  answers->left = up.size();
  if (up.empty()) return answers->answers;
  for (const auto& [i, n] : up) {
    messaging_->Send(
        Endpoint{n->info.listen_address,
                 static_cast<uint16_t>(n->info.storage_port)},
        kWorkloadStatsVerb, request, timeout_, [answers, i](Response r) {
          bool last = false;
          {
            std::lock_guard<std::mutex> lock(answers->mu);
            answers->answers[i].payload =
                r.ok() ? Result<std::string>(r.TakePayload())
                       : Result<std::string>(r.status());
            last = --answers->left == 0;
          }
          if (last) answers->all.Notify();
        });
  }
  // Every Send answers by its timeout: this wait ends by then.
  answers->all.WaitUntil(std::chrono::steady_clock::now() + timeout_ +
                         std::chrono::seconds(1));
  std::lock_guard<std::mutex> lock(answers->mu);
  return answers->answers;
}

std::vector<advisor::NodeStats> StatsService::Gather(
    std::vector<std::string>* missing) {
  std::vector<advisor::NodeStats> out;
  for (Answer& a : AskOthers(std::string(1, static_cast<char>(kRead)))) {
    Result<advisor::NodeStats> stats =
        a.payload.ok() ? advisor::DecodeNodeStats(*a.payload)
                       : Result<advisor::NodeStats>(a.payload.status());
    if (stats.ok()) {
      out.push_back(std::move(*stats));
    } else if (missing != nullptr) {
      missing->push_back(a.node + " (" + stats.status().message() + ")");
    }
  }
  return out;
}

Status StatsService::Reset(advisor::StatsKind kind) {
  std::string failed;
  for (const Answer& a :
       AskOthers(std::string(1, static_cast<char>(kind)))) {
    if (a.payload.ok()) continue;
    failed += (failed.empty() ? "" : ", ") + a.node + " (" +
              a.payload.status().message() + ")";
  }
  if (failed.empty()) return Status::OK();
  return Status::ServerError("Could not reset the statistics of " + failed);
}

}  // namespace keywise::cluster
