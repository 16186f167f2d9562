// Fanout: requests to several replicas at once (this node's own answer
// computed in place, the others' through messaging) and the wait for their
// answers. The coordinator's reads, scans, repairs and the mover use it.
//
//   ReplicaRound  requests asked one by one (possibly more while waiting:
//                 a spare replica, a speculative retry), waited for until
//                 enough of them succeeded, all answered, or a deadline;
//   Gather        one request to each of several replicas, all awaited;
//   GatherRead    Gather, then once more to spare replicas in place of
//                 contacts that failed at once.
//
// A round of a traced request (docs/tracing.md) sends its requests as
// kTraced (traced_message.h) and records each one sent and each answer.
//
// Contract: waits go through net::Completion: a statement fiber is
// suspended and its loop goes on, any other thread blocks. Callbacks may
// outlive the round (they hold its shared state), so a late answer is
// dropped safely. A replica that did not answer in time has a kReadTimeout
// error. Not thread-safe: one round is driven by one caller.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cluster/coordinator/coordinator.h"
#include "net/completion.h"
#include "tracing/trace_state.h"

namespace keywise::cluster {

// Where `node`'s messaging listens; nullopt when the topology does not
// know it.
std::optional<Endpoint> PeerEndpoint(const Topology& topology,
                                     const Uuid& node);

// Sends a request to `peer` that times out at `deadline` (in 1 ms when it
// has passed), stamped with `topology`'s revision, the view that routed it
// (fencing).
void SendBefore(MessagingService* messaging, const Topology& topology,
                const Endpoint& peer, Verb verb, std::string payload,
                std::chrono::steady_clock::time_point deadline,
                ResponseCallback callback);

// "/127.0.0.2": how trace events name a node ("/<host id>" when unknown).
std::string NodeName(const Topology& topology, const Uuid& node);
// "/127.0.0.1, /127.0.0.2".
std::string NodeNames(const Topology& topology, const std::vector<Uuid>& nodes);

// SendBefore for a request of traced session `trace`: sent as kTraced to
// `node` at `peer`, its sending and its answer (or failure) recorded.
void SendTraced(MessagingService* messaging, const Topology& topology,
                const Uuid& node, const Endpoint& peer, Verb verb,
                const std::string& payload,
                std::chrono::steady_clock::time_point deadline,
                const tracing::TracePtr& trace, ResponseCallback callback);

template <typename T>
class ReplicaRound {
 public:
  using Clock = std::chrono::steady_clock;
  using Local = std::function<Result<T>()>;
  using Decode = std::function<Result<T>(std::string)>;

  // `messaging` and `topology` must outlive the round (not its callbacks).
  // `trace`: the request's session, or null.
  ReplicaRound(MessagingService* messaging, const Topology& topology,
               Clock::time_point deadline, tracing::TracePtr trace = nullptr)
      : messaging_(messaging),
        topology_(topology),
        deadline_(deadline),
        trace_(std::move(trace)),
        state_(std::make_shared<State>()) {}

  // Asks `replica` (computing `local()` in place when it is this node);
  // returns the request's index. Answers arrive in any order.
  size_t Ask(const Uuid& replica, Verb verb, const std::string& payload,
             const Local& local, const Decode& decode) {
    size_t index;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      index = state_->answers.size();
      state_->answers.emplace_back();
    }
    asked_.push_back(replica);
    if (replica == topology_.local()) {
      Answer(state_, index, local());
      return index;
    }
    std::optional<Endpoint> peer = PeerEndpoint(topology_, replica);
    if (!peer) {
      Answer(state_, index,
             Status::ServerError("Unknown node " + replica.ToString()));
      return index;
    }
    auto answered = [state = state_, decode, index](Response response) {
      Answer(state, index,
             response.ok() ? decode(response.TakePayload())
                           : Result<T>(response.status()));
    };
    if (trace_ != nullptr) {
      SendTraced(messaging_, topology_, replica, *peer, verb, payload,
                 deadline_, trace_, std::move(answered));
    } else {
      SendBefore(messaging_, topology_, *peer, verb, payload, deadline_,
                 std::move(answered));
    }
    return index;
  }

  // Waits until `want_ok` requests succeeded (true), or every request was
  // answered with fewer successes, or `until` (or the round's deadline)
  // passed (false).
  bool WaitForOk(size_t want_ok, Clock::time_point until) {
    until = std::min(until, deadline_);
    auto done = std::make_shared<net::Completion>();
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (state_->ok >= want_ok) return true;
      if (state_->answered == state_->answers.size()) return false;
      state_->want_ok = want_ok;
      state_->waiter = done;
    }
    done->WaitUntil(until);
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->waiter = nullptr;
    return state_->ok >= want_ok;
  }
  // Waits until every request was answered or the deadline passed.
  void WaitForAll() { WaitForOk(SIZE_MAX, deadline_); }

  // The answer of request `i`: kReadTimeout when it has none yet.
  Result<T> Take(size_t i) {
    std::lock_guard<std::mutex> lock(state_->mu);
    std::optional<Result<T>>& a = state_->answers[i];
    if (!a) return Status(ErrorCode::kReadTimeout, "no answer in time");
    Result<T> out = std::move(*a);
    a = Result<T>(Status(ErrorCode::kReadTimeout, "answer taken"));
    return out;
  }
  // Whether request `i` has been answered, successfully.
  bool Ok(size_t i) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    const std::optional<Result<T>>& a = state_->answers[i];
    return a.has_value() && a->ok();
  }
  bool Answered(size_t i) const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->answers[i].has_value();
  }
  const std::vector<Uuid>& asked() const { return asked_; }
  Clock::time_point deadline() const { return deadline_; }

 private:
  struct State {
    std::mutex mu;
    std::vector<std::optional<Result<T>>> answers;
    size_t answered = 0;
    size_t ok = 0;
    size_t want_ok = SIZE_MAX;
    std::shared_ptr<net::Completion> waiter;
  };

  static void Answer(const std::shared_ptr<State>& state, size_t i,
                     Result<T> r) {
    std::shared_ptr<net::Completion> wake;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (r.ok()) ++state->ok;
      ++state->answered;
      state->answers[i] = std::move(r);
      if (state->waiter != nullptr &&
          (state->ok >= state->want_ok ||
           state->answered == state->answers.size())) {
        wake = std::move(state->waiter);
      }
    }
    if (wake != nullptr) wake->Notify();
  }

  MessagingService* const messaging_;
  const Topology& topology_;
  const Clock::time_point deadline_;
  const tracing::TracePtr trace_;
  const std::shared_ptr<State> state_;
  std::vector<Uuid> asked_;
};

template <typename T>
std::vector<Result<T>> Gather(
    const Coordinator& coordinator, const Topology& topology,
    const std::vector<Uuid>& replicas, Verb verb, const std::string& payload,
    const std::function<Result<T>()>& local,
    const std::function<Result<T>(std::string)>& decode,
    std::chrono::steady_clock::time_point deadline,
    const tracing::TracePtr& trace = nullptr) {
  ReplicaRound<T> round(coordinator.messaging(), topology, deadline, trace);
  // This node's own answer last: the others are on their way meanwhile.
  std::optional<Uuid> mine;
  std::vector<size_t> index(replicas.size());
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i] == topology.local()) {
      mine = replicas[i];
      continue;
    }
    index[i] = round.Ask(replicas[i], verb, payload, local, decode);
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i] == topology.local()) {
      index[i] = round.Ask(replicas[i], verb, payload, local, decode);
    }
  }
  round.WaitForAll();
  std::vector<Result<T>> out;
  out.reserve(replicas.size());
  for (size_t i = 0; i < replicas.size(); ++i) out.push_back(round.Take(index[i]));
  return out;
}

// A replica to ask in place of `failed`: up, in `replicas`, not in
// `asked`, in the same datacenter as `failed`; nullopt when none.
std::optional<Uuid> SpareReplica(const Topology& topology,
                                 const std::vector<Uuid>& replicas,
                                 const std::vector<Uuid>& asked,
                                 const Uuid& failed);

// The successful answers of a read: from `contacts`, and when some of them
// failed at once (an unreachable node) before `deadline`, from as many
// spare replicas (SpareReplica). `answered` receives who answered, in the
// order of the returned values.
template <typename T>
std::vector<T> GatherRead(const Coordinator& coordinator,
                          const Topology& topology,
                          const std::vector<Uuid>& contacts,
                          const std::vector<Uuid>& replicas, Verb verb,
                          const std::string& payload,
                          const std::function<Result<T>()>& local,
                          const std::function<Result<T>(std::string)>& decode,
                          std::chrono::steady_clock::time_point deadline,
                          std::vector<Uuid>* answered,
                          const tracing::TracePtr& trace = nullptr) {
  std::vector<T> out;
  std::vector<Uuid> asked = contacts;
  std::vector<Uuid> ask = contacts;
  for (int round = 0; round < 2 && !ask.empty(); ++round) {
    std::vector<Result<T>> answers = Gather<T>(
        coordinator, topology, ask, verb, payload, local, decode, deadline,
        trace);
    std::vector<Uuid> spares;
    for (size_t i = 0; i < ask.size(); ++i) {
      if (answers[i].ok()) {
        answered->push_back(ask[i]);
        out.push_back(std::move(answers[i]).value());
        continue;
      }
      if (std::optional<Uuid> spare =
              SpareReplica(topology, replicas, asked, ask[i])) {
        spares.push_back(*spare);
        asked.push_back(*spare);
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    ask = std::move(spares);
  }
  return out;
}

}  // namespace keywise::cluster
