#include "cluster/tablets/load_reporter.h"

#include <utility>

#include "cluster/metadata/metadata_json.h"
#include "cluster/tablets/leftovers.h"
#include "common/log.h"

namespace keywise::cluster {

LoadReporter::LoadReporter(EtcdClient* etcd, ClusterKeys keys,
                           Coordinator* coordinator, LeaseFn lease,
                           LoadReportOptions options)
    : etcd_(etcd),
      keys_(std::move(keys)),
      coordinator_(coordinator),
      lease_(std::move(lease)),
      options_(options),
      window_start_(std::chrono::steady_clock::now()) {}

LoadReporter::~LoadReporter() {
  Stop();
}

void LoadReporter::Start() {
  reports_.Start("cluster", "Load report", options_.interval,
                 options_.interval, [this](bool*) { return ReportOnce(); });
}

void LoadReporter::Stop() {
  reports_.Stop();
}

Status LoadReporter::ReportOnce() {
  const LeaseId lease = lease_();
  if (lease == LeaseId::kNone) return Status::OK();  // counted on
  const auto now = std::chrono::steady_clock::now();
  const auto length =
      std::chrono::duration_cast<std::chrono::milliseconds>(now - window_start_);
  window_start_ = now;
  const std::map<Uuid, LoadSampler::Window> window =
      coordinator_->load().Take();
  const TableLookup tables = coordinator_->replica()->Tables();
  Engine* engine = coordinator_->engine();
  const LoadReport report = BuildLoadReport(
      *coordinator_->view(), window, length,
      [&](const Uuid& table_id, TokenInterval tokens) -> uint64_t {
        TableDefPtr table = tables(table_id);
        if (table == nullptr) return 0;
        return engine->ApproximateTokenRangeSize(table->storage_id, tokens);
      },
      [&](const Uuid& table_id,
          TokenInterval tokens) -> std::optional<Token> {
        TableDefPtr table = tables(table_id);
        if (table == nullptr) return std::nullopt;
        return engine->TokenRangeSizeMedian(table->storage_id, tokens);
      },
      options_.size_median_from_bytes,
      [&](const Uuid& table_id, TokenInterval tokens) {
        TableDefPtr table = tables(table_id);
        if (table == nullptr) return false;
        Result<bool> holds = HoldsAnything(*engine, table, tokens);
        return holds.ok() && *holds;
      });
  Result<int64_t> put =
      etcd_->Put(keys_.Load(report.host_id), EncodeLoadReport(report), lease);
  if (!put.ok()) return put.status();
  std::lock_guard<std::mutex> lock(last_mu_);
  last_ = report;
  return Status::OK();
}

LoadReport LoadReporter::last_report() const {
  std::lock_guard<std::mutex> lock(last_mu_);
  return last_;
}

Result<std::vector<LoadReport>> ReadLoadReports(EtcdClient* etcd,
                                                const ClusterKeys& keys) {
  KW_ASSIGN_OR_RETURN(
      RangeResult range,
      etcd->Range(KeyRange::Prefix(keys.LoadPrefix()), RangeOptions{}));
  std::vector<LoadReport> out;
  for (const KeyValue& kv : range.kvs) {
    Result<LoadReport> report = DecodeLoadReport(kv.value);
    if (!report.ok()) {
      LogWarn("cluster", "Skipping " + kv.key + ": " +
                             report.status().ToString());
      continue;
    }
    out.push_back(std::move(report).value());
  }
  return out;
}

}  // namespace keywise::cluster
