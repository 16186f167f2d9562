#include "tools/advise_what_if.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "advisor/key_what_if.h"
#include "common/coding.h"
#include "schema/cql_name.h"
#include "tools/advise_sources.h"
#include "tools/query_rows.h"

namespace keywise {
namespace {

constexpr int kSlices = 64;
constexpr uint64_t kSliceWidth = uint64_t{1} << 58;  // 2^64 / kSlices
constexpr double kRecentShare = 0.1;
constexpr int kSimulatedNodes = 3;
constexpr int kSimulatedTablets = 12;
// A partial sample with fewer of today's partitions says nothing.
constexpr uint64_t kMinPartitions = 10;

int64_t TokenAt(uint64_t offset) {  // offset 0 is the minimum token
  return static_cast<int64_t>(offset ^ (uint64_t{1} << 63));
}

struct Column {
  std::string name, kind, type;
  int position = 0;
};

bool IsMultiCell(const std::string& type) {
  return type.starts_with("list<") || type.starts_with("set<") ||
         type.starts_with("map<");
}

// The elements of a serialized list<uuid> (protocol v3+: an int count,
// then each element's int length and bytes).
std::vector<std::string> UuidList(const std::optional<std::string>& cell) {
  std::vector<std::string> out;
  if (!cell) return out;
  std::string_view in = *cell;
  uint32_t n = 0, len = 0;
  if (!GetFixed32BE(&in, &n)) return out;
  for (uint32_t i = 0; i < n && GetFixed32BE(&in, &len) && len <= in.size(); ++i) {
    out.emplace_back(in.substr(0, len));
    in.remove_prefix(len);
  }
  return out;
}

Result<std::pair<advisor::Placement, bool>> ReadPlacement(
    client::Session& session, const std::string& keyspace,
    const std::string& table) {
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> tablets,
      Rows(session, "SELECT last_token, replicas FROM system.tablets WHERE "
                    "keyspace_name = " + TextLiteral(keyspace) +
                    " AND table_name = " + TextLiteral(table)));
  std::map<std::string, std::string> names;  // host id -> address
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> local,
      Rows(session, "SELECT host_id, broadcast_address FROM system.local"));
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> peers,
      Rows(session, "SELECT host_id, peer FROM system.peers_v2"));
  for (const auto* rows : {&local, &peers}) {
    for (const client::Row& row : *rows) names[TextCell(row, 0)] = InetCell(row, 1);
  }
  advisor::Placement p;
  std::map<std::string, int> index;  // host id -> node index
  for (const client::Row& row : tablets) {
    p.last_tokens.push_back(static_cast<int64_t>(BigintCell(row, 0)));
    std::vector<int>& replicas = p.replicas.emplace_back();
    for (const std::string& id : UuidList(row.size() > 1 ? row[1] : std::nullopt)) {
      auto [it, added] = index.emplace(id, static_cast<int>(p.nodes.size()));
      if (added) {
        const std::string& name = names[id];
        p.nodes.push_back(name.empty() ? "unknown host" : name);
      }
      replicas.push_back(it->second);
    }
  }
  const bool usable = p.nodes.size() >= 2 && !p.last_tokens.empty() &&
                      std::is_sorted(p.last_tokens.begin(), p.last_tokens.end());
  if (!usable) {
    return std::make_pair(
        advisor::Placement::Simulated(kSimulatedNodes, kSimulatedTablets), true);
  }
  // The last tablet ends the ring whatever its row says.
  p.last_tokens.back() = std::numeric_limits<int64_t>::max();
  return std::make_pair(std::move(p), false);
}

// Reads every row in the sample's slices at `fraction` of the ring; stops
// (false) once more than max_rows are read, with *estimate the table's
// rows extrapolated from what was read.
Result<bool> ReadSlices(client::Session& session, const std::string& select,
                        const std::string& token, double fraction,
                        uint64_t max_rows, size_t values,
                        std::vector<advisor::SampledRow>* rows,
                        double* estimate) {
  rows->clear();
  const uint64_t width =
      fraction >= 1 ? kSliceWidth
                    : std::max<uint64_t>(
                          1, static_cast<uint64_t>(fraction *
                                                   static_cast<double>(kSliceWidth)));
  for (int i = 0; i < kSlices; ++i) {
    const uint64_t start = static_cast<uint64_t>(i) * kSliceWidth;
    const uint64_t end = fraction >= 1 && i + 1 == kSlices
                             ? ~uint64_t{0}
                             : start + width;
    KW_ASSIGN_OR_RETURN(
        std::vector<client::Row> page,
        Rows(session,
             select + " WHERE " + token + " > " + std::to_string(TokenAt(start)) +
                 " AND " + token + " <= " + std::to_string(TokenAt(end)),
             5000, max_rows - std::min(max_rows, rows->size())));
    for (client::Row& row : page) {
      advisor::SampledRow& s = rows->emplace_back();
      if (row.size() > values) {
        if (row[values] && row[values]->size() == 8) {
          s.write_time = static_cast<int64_t>(DecodeFixed64BE(row[values]->data()));
        }
        row.resize(values);
      }
      s.values = std::move(row);
    }
    if (rows->size() > max_rows) {
      // As if this slice had been read whole: an underestimate when it
      // was not, which the next pass corrects.
      *estimate = static_cast<double>(rows->size()) * kSlices / (i + 1) /
                  std::min(fraction, 1.0);
      return false;
    }
  }
  return true;
}

}  // namespace

Result<std::string> KeyWhatIfReport(client::Session& session,
                                    const std::string& keyspace,
                                    const std::string& table,
                                    const std::string& key_text,
                                    uint64_t max_rows) {
  KW_ASSIGN_OR_RETURN(advisor::KeyShape proposed, advisor::ParseKeyShape(key_text));
  KW_ASSIGN_OR_RETURN(
      std::vector<client::Row> column_rows,
      Rows(session, "SELECT column_name, kind, position, type FROM "
                    "system_schema.columns WHERE keyspace_name = " +
                        TextLiteral(keyspace) + " AND table_name = " + TextLiteral(table)));
  const std::string name = keyspace + "." + table;
  if (column_rows.empty()) return Status::Invalid("Unknown table " + name);
  std::map<std::string, Column> columns;
  std::vector<Column> partition, clustering, regular;
  for (const client::Row& row : column_rows) {
    Column c{TextCell(row, 0), TextCell(row, 1), TextCell(row, 3), IntCell(row, 2)};
    columns[c.name] = c;
    if (c.kind == "partition_key") partition.push_back(c);
    if (c.kind == "clustering") clustering.push_back(c);
    if (c.kind == "regular" && !IsMultiCell(c.type) && c.type != "counter") {
      regular.push_back(c);
    }
  }
  auto by_position = [](const Column& a, const Column& b) {
    return a.position < b.position;
  };
  std::sort(partition.begin(), partition.end(), by_position);
  std::sort(clustering.begin(), clustering.end(), by_position);

  advisor::Sample sample;
  advisor::KeyShape today;
  std::string today_text;
  for (const Column& c : partition) {
    sample.primary_key.push_back(c.name);
    today.partition.push_back({c.name, 0});
    today_text += (today_text.empty() ? "" : ", ") + CqlName(c.name);
  }
  sample.partition_key_size = partition.size();
  today_text = "(" + today_text + ")";
  for (const Column& c : clustering) {
    sample.primary_key.push_back(c.name);
    today.clustering.push_back(c.name);
    today_text += ", " + CqlName(c.name);
  }
  today.text = "(" + today_text + ")";
  KW_ASSIGN_OR_RETURN(TablePlacement placed,
                      ReadTablePlacement(session, keyspace, table));
  if (placed.range_placed && partition.size() == 1) {
    Result<CqlTypePtr> type = CqlType::Parse(partition[0].type);
    if (type.ok()) {
      today.placement.placement = PlacementKind::kRange;
      today.placement.salt_buckets = placed.salt_buckets;
      today.first_key_type = *type;
    }
  }
  sample.columns = sample.primary_key;
  std::set<std::string> sampled(sample.columns.begin(), sample.columns.end());
  auto need = [&](const std::string& column) -> Status {
    auto it = columns.find(column);
    if (it == columns.end()) {
      return Status::Invalid("Table " + name + " has no column " +
                             CqlName(column) +
                             " (a new bucket column is written NAME%N)");
    }
    if (IsMultiCell(it->second.type) || it->second.type == "counter") {
      return Status::Invalid("Column " + CqlName(column) + " of type " +
                             it->second.type + " cannot be a key column");
    }
    if (sampled.insert(column).second) sample.columns.push_back(column);
    return Status::OK();
  };
  for (const advisor::KeyElement& e : proposed.partition) {
    if (e.buckets == 0) KW_RETURN_IF_ERROR(need(e.column));
  }
  for (const std::string& c : proposed.clustering) KW_RETURN_IF_ERROR(need(c));

  std::string select = "SELECT ";
  for (size_t i = 0; i < sample.columns.size(); ++i) {
    select += (i > 0 ? ", " : "") + CqlName(sample.columns[i]);
  }
  bool writes_known = !regular.empty();
  if (writes_known) select += ", WRITETIME(" + CqlName(regular.front().name) + ")";
  select += " FROM " + CqlName(keyspace) + "." + CqlName(table);
  std::string token = "token(";
  for (size_t i = 0; i < partition.size(); ++i) {
    token += (i > 0 ? ", " : "") + CqlName(partition[i].name);
  }
  token += ")";

  double fraction = 1;
  for (int pass = 0;; ++pass) {
    double estimate = 0;
    KW_ASSIGN_OR_RETURN(bool complete,
                        ReadSlices(session, select, token, fraction, max_rows,
                                   sample.columns.size(), &sample.rows, &estimate));
    if (complete) break;
    const double next = 0.7 * static_cast<double>(max_rows) / estimate;
    fraction = std::min(fraction / 2, next);
    if (pass == 5 || fraction < 1e-9) {
      return Status::Invalid("Could not sample " + name + " within " +
                             std::to_string(max_rows) +
                             " rows (its partitions are too large); raise "
                             "--sample");
    }
  }
  sample.ring_fraction = fraction;
  KW_ASSIGN_OR_RETURN(auto placement, ReadPlacement(session, keyspace, table));
  int64_t cutoff = advisor::RecentWriteCutoff(sample, kRecentShare);
  if (cutoff == std::numeric_limits<int64_t>::max()) {  // no write time read
    writes_known = false;
    cutoff = std::numeric_limits<int64_t>::min();
  }
  const advisor::KeySpread now =
      advisor::Spread(sample, today, placement.first, cutoff);
  if (sample.ring_fraction < 1 && now.partitions < kMinPartitions) {
    return Status::Invalid(
        "Could not sample " + name + " within " + std::to_string(max_rows) +
        " rows: only " + std::to_string(now.partitions) +
        " of its partitions fit (its partitions are too large or too few); "
        "raise --sample");
  }
  const advisor::KeySpread then =
      advisor::Spread(sample, proposed, placement.first, cutoff);
  return advisor::WhatIfReport(name, sample, placement.first, placement.second,
                               now, then, writes_known);
}

}  // namespace keywise
