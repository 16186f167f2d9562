// Fanout: one request to several replicas at once (this node's own answer
// computed in place, the others' through messaging), gathered until every
// replica answered or a deadline passed. The coordinator's read, scan and
// repair steps use it.
//
// Contract: Gather waits for the answers (net::Completion: a fiber is
// suspended and its loop goes on, any other thread blocks); callbacks may
// outlive the call (they hold the shared state), so a late answer is
// dropped safely.
// Answers are in the order of `replicas`; a replica that did not answer in
// time has a kReadTimeout error.
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

namespace keywise::cluster {

template <typename T>
std::vector<Result<T>> Gather(
    const Coordinator& coordinator, const Topology& topology,
    const std::vector<Uuid>& replicas, Verb verb, const std::string& payload,
    const std::function<Result<T>()>& local,
    const std::function<Result<T>(std::string)>& decode,
    std::chrono::steady_clock::time_point deadline) {
  struct State {
    std::mutex mu;
    net::Completion all_answered;
    std::vector<std::optional<Result<T>>> answers;
    size_t left = 0;
  };
  auto state = std::make_shared<State>();
  state->answers.resize(replicas.size());
  state->left = replicas.size();
  auto answer = [state](size_t i, Result<T> r) {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->answers[i] = std::move(r);
      last = --state->left == 0;
    }
    if (last) state->all_answered.Notify();
  };
  const auto now = std::chrono::steady_clock::now();
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline > now ? deadline - now : std::chrono::milliseconds(1));
  std::optional<size_t> mine;
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i] == topology.local()) {
      mine = i;
      continue;
    }
    std::optional<Endpoint> peer =
        coordinator.EndpointOf(topology, replicas[i]);
    if (!peer) {
      answer(i, Status::ServerError("Unknown node " + replicas[i].ToString()));
      continue;
    }
    coordinator.messaging()->Send(*peer, verb, payload, timeout,
                                  [answer, decode, i](Response response) {
                                    if (!response.ok()) {
                                      answer(i, response.status());
                                    } else {
                                      answer(i, decode(response.TakePayload()));
                                    }
                                  });
  }
  if (mine) answer(*mine, local());
  if (replicas.empty()) state->all_answered.Notify();
  state->all_answered.WaitUntil(deadline);
  std::lock_guard<std::mutex> lock(state->mu);
  std::vector<Result<T>> out;
  for (auto& a : state->answers) {
    out.push_back(
        a ? std::move(*a)
          : Result<T>(Status(ErrorCode::kReadTimeout, "no answer in time")));
  }
  return out;
}

// The successful answers of a read: from `contacts`, and when some of them
// failed at once (an unreachable node) before `deadline`, from as many
// spare replicas (Cassandra's speculative retry): up, not asked yet, each
// in the datacenter of the contact it replaces. `answered` receives who
// answered, in the order of the returned values.
template <typename T>
std::vector<T> GatherRead(const Coordinator& coordinator,
                          const Topology& topology,
                          const std::vector<Uuid>& contacts,
                          const std::vector<Uuid>& replicas, Verb verb,
                          const std::string& payload,
                          const std::function<Result<T>()>& local,
                          const std::function<Result<T>(std::string)>& decode,
                          std::chrono::steady_clock::time_point deadline,
                          std::vector<Uuid>* answered) {
  std::vector<T> out;
  std::vector<Uuid> asked = contacts;
  std::vector<Uuid> ask = contacts;
  for (int round = 0; round < 2 && !ask.empty(); ++round) {
    std::vector<Result<T>> answers = Gather<T>(coordinator, topology, ask, verb,
                                               payload, local, decode, deadline);
    std::vector<Uuid> spares;
    for (size_t i = 0; i < ask.size(); ++i) {
      if (answers[i].ok()) {
        answered->push_back(ask[i]);
        out.push_back(std::move(answers[i]).value());
        continue;
      }
      const NodeStatus* failed = topology.Find(ask[i]);
      for (const Uuid& r : replicas) {
        const NodeStatus* spare = topology.Find(r);
        if (spare == nullptr || !spare->up ||
            std::find(asked.begin(), asked.end(), r) != asked.end() ||
            (failed != nullptr && spare->info.dc != failed->info.dc)) {
          continue;
        }
        spares.push_back(r);
        asked.push_back(r);
        break;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    ask = std::move(spares);
  }
  return out;
}

}  // namespace keywise::cluster
