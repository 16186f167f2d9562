// Coordinator::Execute (query::CasPath) and SerialBarrier: lightweight
// transactions as Cassandra 4's StorageProxy.cas runs them, with classic
// Paxos among the partition's replicas (docs/lwt.md):
//
//   1. prepare a new ballot on every live participant and wait for a
//      quorum of answers (the serial level's, plus the pending replica of a
//      moving tablet); a rejection means contention: back off, retry with
//      a higher ballot;
//   2. an accepted proposal newer than every answer's last commit is an
//      earlier round left unfinished: propose it again with our ballot,
//      commit it, and start over; answers that missed the last commit get
//      it, and the round starts over;
//   3. read the rows at QUORUM (LOCAL_QUORUM for LOCAL_SERIAL) and decide;
//   4. propose the updates (stamped with the ballot's time), or an empty
//      proposal when the conditions did not hold (so that no older round
//      can complete after this answer), and wait for a quorum to accept;
//   5. commit to every participant and wait for the commit consistency
//      level; a participant that is down or fails gets a hint.
#include <algorithm>
#include <random>
#include <utility>

#include "cluster/coordinator/consistency.h"
#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/paxos_messages.h"
#include "net/completion.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"
#include "storage/partition_update_codec.h"

namespace keywise::cluster {
namespace {

using Clock = std::chrono::steady_clock;

// Who takes part in the rounds of one partition, and how many must answer.
struct Participants {
  std::vector<Uuid> nodes;  // the tablet's replicas and pending replica
  int required = 1;
  Consistency serial = Consistency::kSerial;
  TopologyPtr topology;
  ReplicationSpec spec;         // the tablet's, for the commit's level
  std::optional<Uuid> pending;  // a moving tablet's new replica
};

Result<Participants> ParticipantsOf(const Coordinator::Placement& p,
                                    Token token, Consistency serial) {
  const TabletInfo& tablet = p.tablets->TabletAt(token);
  const Topology& topology = *p.view->topology;
  const std::optional<Uuid> pending = tablet.PendingReplica();
  const ReplicationSpec spec = TabletSpec(p.spec, topology, tablet.replicas);
  KW_RETURN_IF_ERROR(
      AssureAvailable(serial, spec, topology, tablet.replicas, pending));
  Participants out;
  out.serial = serial;
  out.topology = p.view->topology;
  out.spec = spec;
  const std::string local_dc = topology.LocalDc();
  auto takes_part = [&](const Uuid& node) {
    if (serial != Consistency::kLocalSerial) return true;
    const NodeStatus* n = topology.Find(node);
    return n != nullptr && n->info.dc == local_dc;
  };
  for (const Uuid& r : tablet.replicas) {
    if (takes_part(r)) out.nodes.push_back(r);
  }
  out.required = BlockFor(serial, spec, local_dc);
  if (pending && takes_part(*pending)) {
    out.nodes.push_back(*pending);
    out.pending = pending;
    ++out.required;
  }
  return out;
}

Status CasTimeout(const Participants& who, int received,
                  const std::string& what) {
  ReplicaCounts counts;
  counts.consistency = who.serial;
  counts.received = received;
  counts.block_for = who.required;
  counts.write_type = "CAS";
  return Status::WithCounts(ErrorCode::kWriteTimeout, what, counts);
}

// Asks every live participant (this node last: the others' requests are
// on their way meanwhile) and waits for `required` successful answers or
// the deadline; returns the successful answers.
template <typename T>
std::vector<T> AskQuorum(const Coordinator& c, const Participants& who,
                         Verb verb, const std::string& payload,
                         const std::function<Result<T>()>& local,
                         const std::function<Result<T>(std::string)>& decode,
                         Clock::time_point deadline,
                         std::vector<Uuid>* answered = nullptr) {
  ReplicaRound<T> round(c.messaging(), *who.topology, deadline);
  std::vector<std::pair<size_t, Uuid>> asked;
  const Uuid self = who.topology->local();
  for (int pass = 0; pass < 2; ++pass) {
    for (const Uuid& node : who.nodes) {
      if ((node == self) != (pass == 1) || !who.topology->IsUp(node)) continue;
      asked.emplace_back(round.Ask(node, verb, payload, local, decode), node);
    }
  }
  round.WaitForOk(static_cast<size_t>(who.required), deadline);
  std::vector<T> out;
  for (const auto& [index, node] : asked) {
    if (!round.Ok(index)) continue;
    Result<T> r = round.Take(index);
    if (!r.ok()) continue;
    out.push_back(std::move(r).value());
    if (answered != nullptr) answered->push_back(node);
  }
  return out;
}

// What a quorum's promises say.
struct PrepareSummary {
  int promised = 0;
  Uuid highest;  // the highest ballot any participant promised
  std::optional<PaxosProposal> in_progress;  // newest accepted proposal
  std::optional<PaxosProposal> committed;    // newest commit
  std::vector<Uuid> behind;                  // answered with an older commit
};

Result<PrepareSummary> Prepare(Coordinator& c, const Participants& who,
                               const PaxosKey& key, const Uuid& ballot,
                               Clock::time_point deadline) {
  std::vector<Uuid> answered;
  std::vector<PaxosPromise> promises = AskQuorum<PaxosPromise>(
      c, who, kPaxosPrepareVerb, EncodePaxosPrepare(key, ballot),
      [&] { return c.replica()->PaxosPrepare(key, ballot); },
      [](std::string bytes) { return DecodePaxosPromise(bytes); }, deadline,
      &answered);
  if (static_cast<int>(promises.size()) < who.required) {
    return CasTimeout(who, static_cast<int>(promises.size()),
                      "Operation timed out - received only " +
                          std::to_string(promises.size()) +
                          " responses to the paxos prepare.");
  }
  PrepareSummary s;
  s.highest = ballot;
  for (const PaxosPromise& p : promises) {
    s.promised += p.promised ? 1 : 0;
    if (BallotBefore(s.highest, p.promised_ballot))
      s.highest = p.promised_ballot;
    if (p.accepted && (!s.in_progress || BallotBefore(s.in_progress->ballot,
                                                      p.accepted->ballot))) {
      s.in_progress = p.accepted;
    }
    if (p.committed && (!s.committed || BallotBefore(s.committed->ballot,
                                                     p.committed->ballot))) {
      s.committed = p.committed;
    }
  }
  for (size_t i = 0; i < promises.size(); ++i) {
    const auto& mine = promises[i].committed;
    if (s.committed &&
        (!mine || BallotBefore(mine->ballot, s.committed->ballot))) {
      s.behind.push_back(answered[i]);
    }
  }
  return s;
}

// The answers to a proposal.
struct Acceptance {
  int asked = 0;
  int accepted = 0;
  int refused = 0;
  // Whether no participant may have accepted beyond those counted: every
  // one asked answered.
  bool complete() const { return accepted + refused == asked; }
};

// Proposes `proposal` to every live participant and waits until a quorum
// accepted, or every one answered, or the deadline; with `fail_fast`, also
// until so many refused that no quorum can form. A round's own proposal
// waits for every answer, as Cassandra's (failFast off): a proposal that
// all refused is retried, one that some accepted has an unknown outcome,
// so stopping early would turn retryable rounds into unknown ones. Repair
// and empty proposals change nothing when partly accepted: they fail fast.
Acceptance Propose(Coordinator& c, const Participants& who, const PaxosKey& key,
                   const PaxosProposal& proposal, Clock::time_point deadline,
                   bool fail_fast) {
  struct State {
    std::mutex mu;
    Acceptance a;
    int required = 0;
    bool fail_fast = false;
    net::Completion done;
    bool Decided() const {
      return a.accepted >= required || a.complete() ||
             (fail_fast && a.asked - a.refused < required);
    }
  };
  auto state = std::make_shared<State>();
  state->required = who.required;
  state->fail_fast = fail_fast;
  auto answer = [state](Result<bool> accepted) {
    bool decided;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (accepted.ok()) ++(*accepted ? state->a.accepted : state->a.refused);
      decided = state->Decided();
    }
    if (decided) state->done.Notify();
  };
  const Topology& topology = *who.topology;
  const Uuid self = topology.local();
  for (const Uuid& node : who.nodes) {
    if (!topology.IsUp(node)) continue;
    ++state->a.asked;
  }
  const std::string payload = EncodePaxosProposal(key, proposal);
  bool mine = false;
  for (const Uuid& node : who.nodes) {
    if (!topology.IsUp(node)) continue;
    if (node == self) {
      mine = true;
      continue;
    }
    std::optional<Endpoint> peer = PeerEndpoint(topology, node);
    if (!peer) continue;  // counted as asked, never answers
    SendBefore(c.messaging(), topology, *peer, kPaxosProposeVerb, payload,
               deadline, [answer](Response response) {
                 if (!response.ok()) return;  // no answer: outcome unknown
                 const std::string bytes = response.TakePayload();
                 if (bytes.size() == 1 && static_cast<uint8_t>(bytes[0]) <= 1) {
                   answer(bytes[0] == 1);
                 }
               });
  }
  if (mine) {
    Result<bool> accepted = c.replica()->PaxosPropose(key, proposal);
    if (accepted.ok()) answer(*accepted);
  }
  state->done.WaitUntil(deadline);
  std::lock_guard<std::mutex> lock(state->mu);
  return state->a;
}

// The answers a commit waits for: a consistency level, or every node it
// was sent to (`all_of` > 0).
class CommitRound {
 public:
  // A moving tablet's `pending` replica must answer too, as for a plain
  // write (coordinator_writes.cc).
  CommitRound(Consistency cl, const ReplicationSpec& spec, TopologyPtr topology,
              const std::optional<Uuid>& pending, int all_of)
      : tracker_(cl, spec, std::move(topology)), all_of_(all_of) {
    if (pending) tracker_.AddPending(*pending);
  }
  void Ack(const Uuid& replica) {
    bool done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      tracker_.OnSuccess(replica);
      ++acks_;
      done = Satisfied();
    }
    if (done) done_.Notify();
  }
  // The answers received when the wait ended unsatisfied at `deadline`.
  std::optional<int> Wait(Clock::time_point deadline) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (Satisfied()) return std::nullopt;
    }
    done_.WaitUntil(deadline);
    std::lock_guard<std::mutex> lock(mu_);
    if (Satisfied()) return std::nullopt;
    return acks_;
  }
  int block_for() const { return all_of_ > 0 ? all_of_ : tracker_.block_for(); }

 private:
  // REQUIRES: mu_ held.
  bool Satisfied() const {
    return all_of_ > 0 ? acks_ >= all_of_ : tracker_.Satisfied();
  }

  std::mutex mu_;
  ResponseTracker tracker_;
  const int all_of_;
  int acks_ = 0;
  net::Completion done_;
};

// Commits `proposal` on `to` (hints for those down or failing) and waits
// for `cl` (nothing for ANY), or with `all` for every node of `to`.
Status Commit(Coordinator& c, const Participants& who,
              const std::vector<Uuid>& to, const PaxosKey& key,
              const PaxosProposal& proposal, Consistency cl,
              Clock::time_point deadline, bool all = false) {
  const Topology& topology = *who.topology;
  auto round = std::make_shared<CommitRound>(
      cl == Consistency::kAny ? Consistency::kOne : cl, who.spec, who.topology,
      who.pending, all ? static_cast<int>(to.size()) : 0);
  const std::string payload = EncodePaxosProposal(key, proposal);
  HintStore* hints = c.hints();
  auto hint = [hints, proposal](const Uuid& node) {
    for (const std::string& u : proposal.updates) hints->Store(node, u);
  };
  const Uuid self = topology.local();
  bool mine = false;
  for (const Uuid& node : to) {
    if (node == self) {
      mine = true;
      continue;
    }
    std::optional<Endpoint> peer = PeerEndpoint(topology, node);
    if (!peer || !topology.IsUp(node)) {
      hint(node);
      continue;
    }
    SendBefore(c.messaging(), topology, *peer, kPaxosCommitVerb, payload,
               deadline, [round, node, hint](Response response) {
                 if (response.ok()) {
                   round->Ack(node);
                 } else {
                   hint(node);
                 }
               });
  }
  if (mine) {
    KW_RETURN_IF_ERROR(c.replica()->PaxosCommit(
        key, proposal, [round, self] { round->Ack(self); }));
  }
  if (cl == Consistency::kAny && !all) return Status::OK();
  std::optional<int> short_of = round->Wait(deadline);
  if (!short_of) return Status::OK();
  ReplicaCounts counts;
  counts.consistency = cl;
  counts.received = *short_of;
  counts.block_for = round->block_for();
  counts.write_type = "SIMPLE";
  return Status::WithCounts(ErrorCode::kWriteTimeout,
                            "Operation timed out - received only " +
                                std::to_string(*short_of) + " responses.",
                            counts);
}

// A random pause before the next attempt after contention (up to 100 ms;
// a statement fiber is suspended, its loop goes on).
void Backoff() {
  thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> ms(1, 100);
  net::Completion never;
  never.WaitUntil(Clock::now() + std::chrono::milliseconds(ms(rng)));
}

Consistency QuorumOf(Consistency serial) {
  return serial == Consistency::kLocalSerial ? Consistency::kLocalQuorum
                                             : Consistency::kQuorum;
}

// One partition's Paxos: what every step needs.
struct PaxosRun {
  Coordinator& c;
  Coordinator::Placement placement;
  Participants who;
  PaxosKey key;
  Clock::time_point deadline;
  int contentions = 0;
};

// Steps 1-2: a ballot promised by a quorum with nothing left in progress.
Result<Uuid> BeginAndRepair(PaxosRun& run,
                            const std::function<Uuid(const Uuid&)>& next) {
  Uuid above;
  while (true) {
    if (Clock::now() >= run.deadline) {
      return CasTimeout(run.who, 0,
                        "CAS operation timed out - encountered contentions: " +
                            std::to_string(run.contentions));
    }
    const Uuid ballot = next(above);
    KW_ASSIGN_OR_RETURN(PrepareSummary s,
                        Prepare(run.c, run.who, run.key, ballot, run.deadline));
    if (s.promised < run.who.required) {
      ++run.contentions;
      above = s.highest;
      Backoff();
      continue;
    }
    // The data this round writes must sort after the last commit's: a
    // ballot ahead of it only in its node bytes (the same microsecond)
    // would tie with it. Take one in a later microsecond.
    if (s.committed &&
        BallotMicros(ballot) <= BallotMicros(s.committed->ballot)) {
      above = s.committed->ballot;
      continue;
    }
    // An earlier round's accepted proposal that may not have been
    // committed everywhere: finish it first (an empty one changes nothing).
    if (s.in_progress && !s.in_progress->updates.empty() &&
        (!s.committed ||
         BallotBefore(s.committed->ballot, s.in_progress->ballot))) {
      PaxosProposal again{ballot, s.in_progress->updates};
      if (Propose(run.c, run.who, run.key, again, run.deadline,
                  /*fail_fast=*/true)
              .accepted < run.who.required) {
        ++run.contentions;
        Backoff();
        continue;
      }
      KW_RETURN_IF_ERROR(Commit(run.c, run.who, run.who.nodes, run.key, again,
                                QuorumOf(run.who.serial), run.deadline));
      continue;
    }
    if (!s.behind.empty() && s.committed && !s.committed->updates.empty()) {
      KW_RETURN_IF_ERROR(Commit(run.c, run.who, s.behind, run.key, *s.committed,
                                Consistency::kAll, run.deadline,
                                /*all=*/true));
      continue;
    }
    return ballot;
  }
}

Result<PaxosRun> StartRun(Coordinator& c, const TableDef& table,
                          const std::vector<std::string>& partition_key,
                          Consistency serial) {
  KW_ASSIGN_OR_RETURN(Coordinator::Placement p, c.Place(table));
  if (!p.spec.Replicated()) {
    return Status::Invalid(
        "Conditional updates are not supported on node-local tables");
  }
  const std::string pk = SerializePartitionKey(partition_key);
  const Token token = PartitionToken(*p.table, pk);
  KW_ASSIGN_OR_RETURN(Participants who, ParticipantsOf(p, token, serial));
  PaxosKey key{p.table->id, pk};
  return PaxosRun{c,
                  std::move(p),
                  std::move(who),
                  std::move(key),
                  Clock::now() + c.options().write_timeout,
                  0};
}

}  // namespace

Uuid Coordinator::NextBallot(const Uuid& above) {
  int64_t want = std::max(engine_->clock().NowMicros(),
                          above == Uuid() ? 0 : BallotMicros(above) + 1);
  int64_t last = last_ballot_micros_.load();
  while (true) {
    const int64_t next = std::max(want, last + 1);
    if (last_ballot_micros_.compare_exchange_weak(last, next)) {
      return BallotAt(next);
    }
  }
}

Status Coordinator::SerialBarrier(const TableDef& table,
                                  const std::vector<std::string>& partition_key,
                                  Consistency serial) {
  KW_ASSIGN_OR_RETURN(PaxosRun run,
                      StartRun(*this, table, partition_key, serial));
  const auto next = [this](const Uuid& a) { return NextBallot(a); };
  while (true) {
    KW_ASSIGN_OR_RETURN(Uuid ballot, BeginAndRepair(run, next));
    // An empty proposal under the barrier's ballot: a round accepted by a
    // minority that this read did not see can no longer complete after it
    // (Cassandra's fix for CASSANDRA-12126), so the read settles it.
    const Acceptance a =
        Propose(*this, run.who, run.key, PaxosProposal{ballot, {}},
                run.deadline, /*fail_fast=*/true);
    if (a.accepted >= run.who.required) return Status::OK();
    // Refused by enough to rule out a quorum: a newer ballot came; an empty
    // proposal accepted by some changes nothing, so try again (Cassandra's
    // reads propose with timeoutIfPartial off).
    if (a.asked - a.refused < run.who.required && Clock::now() < run.deadline) {
      ++run.contentions;
      Backoff();
      continue;
    }
    return CasTimeout(run.who, a.accepted,
                      "Operation timed out - received only " +
                          std::to_string(a.accepted) +
                          " responses to the paxos proposal.");
  }
}

Result<query::CasOutcome> Coordinator::Execute(
    const query::CasRequest& request, const query::WriteOptions& options) {
  KW_ASSIGN_OR_RETURN(
      PaxosRun run,
      StartRun(*this, *request.table, request.partition_key, request.serial));
  const auto next = [this](const Uuid& a) { return NextBallot(a); };
  query::ReadCall read;
  read.storage.now_seconds = request.now_seconds;
  read.consistency = QuorumOf(request.serial);
  while (true) {
    KW_ASSIGN_OR_RETURN(Uuid ballot, BeginAndRepair(run, next));
    // Step 3: the current rows, at a quorum.
    query::CasOutcome out;
    query::CasSnapshot& now = out.current;
    KW_RETURN_IF_ERROR(query::ReadCasSnapshot(*this, request, read, &now));
    KW_ASSIGN_OR_RETURN(out.applied, request.decide(now));
    // Step 4.
    PaxosProposal proposal{ballot, {}};
    if (out.applied) {
      KW_ASSIGN_OR_RETURN(out.written, request.build(BallotMicros(ballot)));
      for (const PartitionUpdate& u : out.written) {
        EncodePartitionUpdate(u, &proposal.updates.emplace_back());
      }
    }
    const Acceptance a =
        Propose(*this, run.who, run.key, proposal, run.deadline,
                /*fail_fast=*/false);
    if (a.accepted < run.who.required) {
      // Refused by all: a newer ballot won; try again. Accepted by some,
      // or unanswered: a later round may complete this proposal, so its
      // outcome is unknown (Cassandra's CAS write timeout).
      if (a.accepted == 0 && a.complete()) {
        ++run.contentions;
        Backoff();
        continue;
      }
      ReplicaCounts counts;
      counts.consistency = run.who.serial;
      counts.received = a.accepted;
      counts.block_for = run.who.required;
      counts.write_type = "CAS";
      return Status::WithCounts(
          ErrorCode::kCasWriteUnknown,
          "CAS operation result is unknown - proposal accepted by " +
              std::to_string(a.accepted) + " but not a quorum.",
          counts);
    }
    if (!out.applied) return out;
    // Step 5.
    KW_RETURN_IF_ERROR(Commit(*this, run.who, run.who.nodes, run.key, proposal,
                              options.consistency, run.deadline));
    return out;
  }
}

}  // namespace keywise::cluster
