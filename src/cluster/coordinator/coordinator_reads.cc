// The coordinator's single-partition reads: GetRow and ReadPartition at a
// consistency level, through raw answers merged and repaired
// (Cassandra's StorageProxy.read with blocking read repair).
#include <utility>

#include "cluster/coordinator/coordinator.h"
#include "cluster/coordinator/fanout.h"
#include "cluster/coordinator/raw_digest.h"
#include "storage/partition_key.h"
#include "storage/raw_merge.h"
#include "storage/raw_partition_codec.h"
#include "storage/raw_resolve.h"
#include "schema/partitioner.h"

namespace keywise::cluster {
namespace {

bool OneReplicaSuffices(Consistency cl) {
  return cl == Consistency::kOne || cl == Consistency::kLocalOne;
}

// Reads one partition slice through the coordinator in batches of rows,
// each batch merged from the contacts and repaired, resolved through
// storage's raw readers.
class ReplicatedPartitionReader final : public PartitionReader {
 public:
  ReplicatedPartitionReader(Coordinator* coordinator,
                            Coordinator::Placement placement,
                            std::vector<Uuid> contacts, ReadRawRequest request,
                            Consistency cl, ReadOptions options,
                            std::chrono::steady_clock::time_point deadline)
      : coordinator_(coordinator),
        placement_(std::move(placement)),
        contacts_(std::move(contacts)),
        request_(std::move(request)),
        cl_(cl),
        options_(options),
        deadline_(deadline),
        order_(*placement_.table) {}

  // Reads the first batch (so static_cells() is known at once).
  Status Fetch() {
    Result<RawPartition> merged = coordinator_->ReadMerged(
        placement_, contacts_, request_, cl_, deadline_);
    if (!merged.ok()) return merged.status();
    more_ = !merged->complete;
    if (more_ &&
        !order_.NarrowAfter(merged->last, request_.reversed, &request_.slice)) {
      more_ = false;
    }
    batch_ = NewRawPartitionReader(std::move(merged).value(), options_);
    if (first_) {
      statics_ = batch_->static_cells();
      first_ = false;
    }
    return Status::OK();
  }

  bool Next(LiveRow* row) override {
    while (status_.ok()) {
      if (batch_ && batch_->Next(row)) return true;
      if (!more_) return false;
      status_ = Fetch();
    }
    return false;
  }
  Status status() const override { return status_; }
  const std::vector<Cell>& static_cells() const override { return statics_; }

 private:
  Coordinator* const coordinator_;
  const Coordinator::Placement placement_;
  const std::vector<Uuid> contacts_;
  ReadRawRequest request_;
  const Consistency cl_;
  const ReadOptions options_;
  const std::chrono::steady_clock::time_point deadline_;
  ClusteringOrder order_;
  std::unique_ptr<PartitionReader> batch_;
  std::vector<Cell> statics_;
  bool more_ = false;
  bool first_ = true;
  Status status_;
};

}  // namespace

Result<std::vector<Uuid>> Coordinator::Contacts(const Placement& p, Token token,
                                                Consistency cl) const {
  KW_RETURN_IF_ERROR(ValidateForRead(cl));
  const Topology& topology = *p.view->topology;
  const TabletInfo& tablet = p.tablets->TabletAt(token);
  const std::vector<Uuid>& replicas = tablet.ReadReplicas();
  NoteRouting(topology, replicas);
  load_.Record(p.table->id, token);
  const ReplicationSpec spec = TabletSpec(p.spec, topology, replicas);
  KW_RETURN_IF_ERROR(AssureAvailable(cl, spec, topology, replicas));
  return ReadContacts(cl, spec, topology, replicas);
}

std::optional<query::TabletRoute> Coordinator::RouteIfRemote(
    const TableDef& table,
    const std::vector<std::string>& partition_key) const {
  Result<Placement> p = Place(table);
  // Drivers hash keys with Murmur3: a range-placed table's tablets (key
  // ranges) would mislead them, so its requests are forwarded instead.
  if (!p.ok() || !p->spec.Replicated() || IsRangePlaced(table)) {
    return std::nullopt;
  }
  std::string pk;
  if (!ValidatePartitionKey(table, partition_key, &pk).ok()) {
    return std::nullopt;
  }
  const TabletId id = p->tablets->TabletOf(PartitionToken(table, pk));
  const std::vector<Uuid>& replicas = p->tablets->tablets[id].ReadReplicas();
  if (HasReplica(replicas, p->view->topology->local())) return std::nullopt;
  query::TabletRoute route;
  // The protocol's range is (first, last]: the token before this tablet's
  // first (the minimum token stands for itself, as in ScyllaDB).
  const Token first = p->tablets->FirstToken(id);
  route.first_token =
      first == kMinimumToken ? first.value : first.value - 1;
  route.last_token = p->tablets->LastToken(id).value;
  route.replicas = replicas;
  return route;
}

void Coordinator::NoteRouting(const Topology& topology,
                              const std::vector<Uuid>& replicas) const {
  routed_.fetch_add(1, std::memory_order_relaxed);
  for (const Uuid& r : replicas) {
    if (r == topology.local()) {
      routed_local_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

Status Coordinator::Repair(const Placement& p,
                           const std::vector<Uuid>& contacts,
                           const std::vector<RawPartition>& repairs,
                           Consistency cl,
                           std::chrono::steady_clock::time_point deadline) {
  const Topology& topology = *p.view->topology;
  for (size_t i = 0; i < contacts.size(); ++i) {
    if (repairs[i].IsEmpty()) continue;
    std::string payload;
    EncodeRawPartition(repairs[i], &payload);
    std::vector<Result<bool>> acks = Gather<bool>(
        *this, topology, {contacts[i]}, kRepairVerb, payload,
        [&]() -> Result<bool> {
          if (p.trace != nullptr) p.trace->Trace("Applying read repair here");
          KW_RETURN_IF_ERROR(replica_->ApplyRepair(repairs[i]));
          return true;
        },
        [](std::string) -> Result<bool> { return true; }, deadline, p.trace);
    if (!acks[0].ok()) {
      return ReadTimeoutError(cl, static_cast<int>(contacts.size()) - 1,
                              static_cast<int>(contacts.size()));
    }
  }
  return Status::OK();
}

// One answer of a digest round: a data request's data and its digest, or
// a digest request's digest.
struct DataOrDigest {
  bool has_data = false;
  RawPartition data;
  std::string digest;
};

Coordinator::AgreedRead Coordinator::ReadAgreed(
    const Placement& p, const std::vector<Uuid>& contacts,
    const ReadRawRequest& request,
    std::chrono::steady_clock::time_point deadline) {
  const Topology& topology = *p.view->topology;
  const TableLookup tables = replica_->Tables();
  const std::string payload = EncodeReadRawRequest(request);
  ReplicaRound<DataOrDigest> round(messaging_, topology, deadline, p.trace);
  tracing::TraceState* trace = p.trace.get();
  const auto local_data = [&]() -> Result<DataOrDigest> {
    KW_ASSIGN_OR_RETURN(RawPartition raw, replica_->ReadRaw(request, trace));
    std::string digest = RawDigest(raw);
    return DataOrDigest{true, std::move(raw), std::move(digest)};
  };
  const auto decode_data = [tables](std::string bytes) -> Result<DataOrDigest> {
    std::string digest = DigestOfEncoded(bytes);
    KW_ASSIGN_OR_RETURN(RawPartition raw, DecodeRawPartition(bytes, tables));
    return DataOrDigest{true, std::move(raw), std::move(digest)};
  };
  // Digests first, so they are on their way while the data is read here.
  for (size_t i = 1; i < contacts.size(); ++i) {
    round.Ask(
        contacts[i], kReadDigestVerb, payload,
        [&]() -> Result<DataOrDigest> {
          KW_ASSIGN_OR_RETURN(RawPartition raw,
                              replica_->ReadRaw(request, trace));
          return DataOrDigest{false, RawPartition(), RawDigest(raw)};
        },
        [](std::string bytes) -> Result<DataOrDigest> {
          if (bytes.size() != kRawDigestBytes) {
            return Status::ServerError("Malformed digest answer");
          }
          return DataOrDigest{false, RawPartition(), std::move(bytes)};
        });
  }
  round.Ask(contacts[0], kReadRawVerb, payload, local_data, decode_data);
  // Speculative retry: when the contacts have not all answered after the
  // table's delay, the data of one more replica; any `contacts.size()`
  // answers then include a data answer.
  const size_t need = contacts.size();
  if (std::optional<ReadLatencies::Clock::duration> delay =
          latencies_.Delay(*p.table)) {
    const auto until = std::chrono::steady_clock::now() + *delay;
    if (until < deadline && !round.WaitForOk(need, until)) {
      const std::vector<Uuid>& replicas =
          p.tablets->TabletAt(PartitionToken(*p.table, request.partition_key))
              .ReadReplicas();
      if (std::optional<Uuid> spare =
              SpareReplica(topology, replicas, round.asked(), contacts[0])) {
        speculative_retries_.fetch_add(1, std::memory_order_relaxed);
        if (trace != nullptr) {
          trace->Trace("Speculative retry: the replicas were slower than "
                       "the table's speculative_retry, also reading " +
                       NodeName(topology, *spare));
        }
        round.Ask(*spare, kReadRawVerb, payload, local_data, decode_data);
      }
    }
  }
  round.WaitForOk(need, deadline);
  AgreedRead out;
  std::optional<DataOrDigest> data;
  std::vector<std::string> digests;
  for (size_t i = 0; i < round.asked().size(); ++i) {
    Result<DataOrDigest> answer = round.Take(i);
    if (!answer.ok()) continue;
    out.answered.push_back(round.asked()[i]);
    digests.push_back(answer->digest);
    if (answer->has_data && !data) data = std::move(answer).value();
  }
  if (out.answered.size() < need || !data) {
    if (trace != nullptr) {
      trace->Trace("Only " + std::to_string(out.answered.size()) + " of " +
                   std::to_string(need) +
                   " replicas answered: reading full data again");
    }
    return out;
  }
  for (const std::string& digest : digests) {
    if (digest != data->digest) {
      digest_mismatches_.fetch_add(1, std::memory_order_relaxed);
      if (trace != nullptr) {
        trace->Trace("Digest mismatch: reading full data from " +
                     NodeNames(topology, out.answered));
      }
      return out;
    }
  }
  if (trace != nullptr && need > 1) {
    trace->Trace("Digests of " + std::to_string(need) + " replicas match");
  }
  out.data = std::move(data->data);
  return out;
}

Result<RawPartition> Coordinator::ReadMerged(
    const Placement& p, const std::vector<Uuid>& contacts,
    const ReadRawRequest& request, Consistency cl,
    std::chrono::steady_clock::time_point deadline) {
  const auto start = std::chrono::steady_clock::now();
  Result<RawPartition> merged = ReadFromContacts(p, contacts, request, cl, deadline);
  if (merged.ok()) latencies_.Record(*p.table, std::chrono::steady_clock::now() - start);
  return merged;
}

Result<RawPartition> Coordinator::ReadFromContacts(
    const Placement& p, std::vector<Uuid> contacts,
    const ReadRawRequest& request, Consistency cl,
    std::chrono::steady_clock::time_point deadline) {
  const Topology& topology = *p.view->topology;
  // Data from the nearest contact, digests from the others; the full data
  // of every contact (merged, stale ones repaired) only when they differ
  // or a contact failed (Cassandra's digest reads). The full read asks
  // those that answered the first round when enough did (a slow contact
  // a speculative retry replaced is not waited on twice).
  if (options_.digest_reads) {
    AgreedRead agreed = ReadAgreed(p, contacts, request, deadline);
    if (agreed.data) return std::move(*agreed.data);
    if (agreed.answered.size() >= contacts.size()) {
      agreed.answered.resize(contacts.size());
      contacts = std::move(agreed.answered);
    }
  }
  TableLookup tables = replica_->Tables();
  std::vector<Uuid> answered;
  std::vector<RawPartition> answers = GatherRead<RawPartition>(
      *this, topology, contacts,
      p.tablets->TabletAt(PartitionToken(*p.table, request.partition_key)).ReadReplicas(),
      kReadRawVerb, EncodeReadRawRequest(request),
      [&]() -> Result<RawPartition> {
        return replica_->ReadRaw(request, p.trace.get());
      },
      [tables](std::string bytes) { return DecodeRawPartition(bytes, tables); },
      deadline, &answered, p.trace);
  const int received = static_cast<int>(answers.size());
  if (received < static_cast<int>(contacts.size())) {
    return ReadTimeoutError(cl, received, static_cast<int>(contacts.size()));
  }
  if (answers.size() == 1) return std::move(answers[0]);
  std::vector<const RawPartition*> inputs;
  for (const RawPartition& a : answers) inputs.push_back(&a);
  KW_ASSIGN_OR_RETURN(RawMerge merge, MergeRawPartitions(inputs));
  if (p.trace != nullptr) {
    std::vector<Uuid> stale;
    for (size_t i = 0; i < answered.size(); ++i) {
      if (merge.Stale(i)) stale.push_back(answered[i]);
    }
    p.trace->Trace(
        "Merged the data of " + std::to_string(answers.size()) +
        " replicas" +
        (stale.empty() ? std::string(": all up to date")
                       : "; read repair of " + NodeNames(topology, stale) +
                             " before answering"));
  }
  KW_RETURN_IF_ERROR(Repair(p, answered, merge.repairs, cl, deadline));
  return std::move(merge.merged);
}

Result<std::vector<Uuid>> Coordinator::ReadContactsOf(
    const Placement& p, const TableDef& table,
    const std::vector<std::string>& partition_key, Consistency cl,
    std::string* pk) const {
  KW_RETURN_IF_ERROR(ValidatePartitionKey(table, partition_key, pk));
  KW_ASSIGN_OR_RETURN(std::vector<Uuid> contacts,
                      Contacts(p, PartitionToken(table, *pk), cl));
  if (OneReplicaSuffices(cl) && contacts.size() == 1 &&
      contacts[0] == p.view->topology->local()) {
    return std::vector<Uuid>();  // this node answers from its storage
  }
  return contacts;
}

Result<Consistency> Coordinator::SerialRead(
    const TableDef& table, const std::vector<std::string>& partition_key,
    Consistency cl) {
  if (cl != Consistency::kSerial && cl != Consistency::kLocalSerial) return cl;
  KW_RETURN_IF_ERROR(SerialBarrier(table, partition_key, cl));
  return cl == Consistency::kSerial ? Consistency::kQuorum
                                    : Consistency::kLocalQuorum;
}

Status Coordinator::GetRow(const TableDef& table,
                           const std::vector<std::string>& partition_key,
                           const std::vector<std::string>& clustering,
                           const query::ReadCall& call, LiveRow* row,
                           bool* found, std::vector<Cell>* static_cells) {
  if (GathersEverywhere(table)) {
    return GatherRow(table, partition_key, clustering, call, row, found,
                     static_cells);
  }
  KW_ASSIGN_OR_RETURN(Placement p, Place(table));
  if (!p.spec.Replicated()) {
    return engine_->GetRow(table, partition_key, clustering, call.storage, row,
                           found, static_cells);
  }
  KW_ASSIGN_OR_RETURN(const Consistency cl,
                      SerialRead(table, partition_key, call.consistency));
  std::string pk;
  KW_ASSIGN_OR_RETURN(std::vector<Uuid> contacts,
                      ReadContactsOf(p, table, partition_key, cl, &pk));
  if (call.trace != nullptr) TraceContacts(p, call.trace, pk, contacts, cl);
  if (contacts.empty()) {
    return engine_->GetRow(table, partition_key, clustering, call.storage, row,
                           found, static_cells);
  }
  ReadRawRequest request;
  request.table_id = p.table->id;
  request.partition_key = pk;
  request.slice.start = ClusteringBound{clustering, BoundKind::kInclusive};
  request.slice.end = ClusteringBound{clustering, BoundKind::kInclusive};
  request.now_seconds = call.storage.now_seconds;
  KW_ASSIGN_OR_RETURN(
      RawPartition merged,
      ReadMerged(p, contacts, request, cl,
                 std::chrono::steady_clock::now() + options_.read_timeout));
  std::unique_ptr<PartitionReader> reader =
      NewRawPartitionReader(std::move(merged), call.storage);
  *found = reader->Next(row);
  if (static_cells != nullptr) *static_cells = reader->static_cells();
  return reader->status();
}

Result<std::unique_ptr<PartitionReader>> Coordinator::ReadPartition(
    const TableDef& table, const std::vector<std::string>& partition_key,
    const ClusteringBound& start, const ClusteringBound& end,
    const query::ReadCall& call) {
  if (GathersEverywhere(table)) {
    return GatherPartition(table, partition_key, start, end, call);
  }
  KW_ASSIGN_OR_RETURN(Placement p, Place(table));
  if (!p.spec.Replicated()) {
    return engine_->ReadPartition(table, partition_key, start, end,
                                  call.storage);
  }
  KW_ASSIGN_OR_RETURN(const Consistency cl,
                      SerialRead(table, partition_key, call.consistency));
  std::string pk;
  KW_ASSIGN_OR_RETURN(std::vector<Uuid> contacts,
                      ReadContactsOf(p, table, partition_key, cl, &pk));
  if (call.trace != nullptr) TraceContacts(p, call.trace, pk, contacts, cl);
  if (contacts.empty()) {
    return engine_->ReadPartition(table, partition_key, start, end,
                                  call.storage);
  }
  ReadRawRequest request;
  request.table_id = p.table->id;
  request.partition_key = pk;
  request.slice = ClusteringSlice{start, end};
  request.reversed = call.storage.reversed;
  request.row_limit = options_.batch_rows;
  request.now_seconds = call.storage.now_seconds;
  auto reader = std::make_unique<ReplicatedPartitionReader>(
      this, std::move(p), std::move(contacts), std::move(request), cl,
      call.storage, std::chrono::steady_clock::now() + options_.read_timeout);
  KW_RETURN_IF_ERROR(reader->Fetch());
  return std::unique_ptr<PartitionReader>(std::move(reader));
}

}  // namespace keywise::cluster
