#include "advisor/workload_advice.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "schema/cql_name.h"

namespace keywise::advisor {
namespace {

// One relation of a shape: `column op ?`.
struct Relation {
  std::string column;
  std::string op;  // "=", "IN", "<", "<=", ">", ">="
};

struct Shape {
  std::vector<Relation> relations;
  bool understood = true;  // every relation is a single-column one above
  std::string order_column;
  bool order_desc = false;
};

std::string Unquote(std::string_view name) {
  if (name.size() < 2 || name.front() != '"' || name.back() != '"') {
    return std::string(name);
  }
  std::string out;
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    out += name[i];
    if (name[i] == '"') ++i;  // "" stands for "
  }
  return out;
}

std::optional<Relation> ParseRelation(std::string_view text) {
  static constexpr std::string_view kOps[] = {"=", "IN", "<", "<=", ">", ">="};
  const size_t space = text.find(' ');
  if (space == std::string_view::npos || text.front() == '(' ||
      text.starts_with("token(")) {
    return std::nullopt;
  }
  const std::string_view name = text.substr(0, space);
  if (name.find('[') != std::string_view::npos) return std::nullopt;
  for (std::string_view op : kOps) {
    if (text.substr(space + 1) == std::string(op) + " ?") {
      return Relation{std::string(name), std::string(op)};
    }
  }
  return std::nullopt;
}

// The shape in the planner's form (select_plan.h).
Shape ParseShape(std::string_view text) {
  Shape out;
  static constexpr std::string_view kFiltering = " ALLOW FILTERING";
  if (text.ends_with(kFiltering)) text.remove_suffix(kFiltering.size());
  if (size_t order = text.find(" ORDER BY "); order != std::string_view::npos) {
    std::string_view by = text.substr(order + 10);
    text = text.substr(0, order);
    by = by.substr(0, by.find(','));
    const size_t space = by.rfind(' ');
    if (space != std::string_view::npos) {
      out.order_column = Unquote(by.substr(0, space));
      out.order_desc = by.substr(space + 1) == "DESC";
    }
  }
  if (!text.starts_with("WHERE ")) return out;  // no WHERE clause
  text.remove_prefix(6);
  while (!text.empty()) {
    const size_t and_at = text.find(" AND ");
    std::optional<Relation> r = ParseRelation(text.substr(0, and_at));
    if (r) {
      out.relations.push_back(std::move(*r));
    } else {
      out.understood = false;
    }
    if (and_at == std::string_view::npos) break;
    text.remove_prefix(and_at + 5);
  }
  return out;
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

std::string Percent(uint64_t part, uint64_t whole) {
  return std::to_string(whole == 0 ? 0 : (part * 100 + whole / 2) / whole) +
         "%";
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v >= 10 ? "%.0f" : "%.1f", v);
  return buf;
}

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + CqlName(n);
  return out;
}

std::string TableName(const TableKey& key) {
  return CqlName(key.keyspace) + "." + CqlName(key.table);
}

// `PRIMARY KEY ((p...), c...)`.
std::string KeyText(const std::vector<std::string>& partition,
                    const std::vector<std::string>& clustering) {
  std::string out = "PRIMARY KEY ((" + Names(partition) + ")";
  if (!clustering.empty()) out += ", " + Names(clustering);
  return out + ")";
}

// The `keywise advise --key` command (key_what_if.h) that compares today's
// key with one bucketed into 8, on the table's rows.
std::string WhatIfCommand(const TableKey& key) {
  std::string partition;
  for (const std::string& c : key.partition_key) partition += CqlName(c) + ", ";
  std::string out = "keywise advise --keyspace " + key.keyspace + " --table " +
                    key.table + " --key '((" + partition + "bucket%8)";
  for (const auto& c : key.clustering) out += ", " + CqlName(c.name);
  return out + ")'";
}

// The statements that serve `shape` from data keyed for it.
std::vector<std::string> Fixes(const TableKey& key, const Shape& shape,
                               bool main_query) {
  std::vector<std::string> key_columns = key.partition_key;
  for (const auto& c : key.clustering) key_columns.push_back(c.name);
  std::vector<std::string> eq;
  std::optional<std::string> range;
  for (const Relation& r : shape.relations) {
    if (r.op == "=" || r.op == "IN") {
      if (!Contains(eq, r.column)) eq.push_back(r.column);
    } else if (!range && !Contains(eq, r.column)) {
      range = r.column;
    }
  }
  std::vector<std::string> out;
  if (eq.empty()) return out;  // an index or a new key needs an `=`
  const bool partition_named =
      std::all_of(key.partition_key.begin(), key.partition_key.end(),
                  [&](const std::string& c) { return Contains(eq, c); });
  if (partition_named) {
    // Filtering inside named partitions: a local index.
    for (const std::string& c : eq) {
      if (Contains(key.partition_key, c)) continue;
      out.push_back("CREATE INDEX ON " + TableName(key) + " ((" +
                    Names(key.partition_key) + "), " + CqlName(c) + ");");
      break;
    }
    return out;
  }
  out.push_back("CREATE INDEX ON " + TableName(key) + " (" + CqlName(eq[0]) +
                ");");
  // A view (and the key change) keyed by the `=` columns, then the range
  // column, then the rest of the base key.
  std::vector<std::string> clustering;
  if (range) clustering.push_back(*range);
  for (const std::string& c : key_columns) {
    if (!Contains(eq, c) && !Contains(clustering, c)) clustering.push_back(c);
  }
  size_t regular = 0;
  for (const std::string& c : eq) regular += Contains(key_columns, c) ? 0 : 1;
  if (range && !Contains(key_columns, *range)) ++regular;
  if (regular <= 1) {
    std::string name = key.table + "_by";
    for (const std::string& c : eq) name += "_" + c;
    std::string where;
    for (const std::string& c : eq) {
      where += (where.empty() ? "" : " AND ") + CqlName(c) + " IS NOT NULL";
    }
    for (const std::string& c : clustering) {
      where += " AND " + CqlName(c) + " IS NOT NULL";
    }
    out.push_back("CREATE MATERIALIZED VIEW " + CqlName(key.keyspace) + "." +
                  CqlName(name) + " AS SELECT * FROM " + TableName(key) +
                  " WHERE " + where + " " + KeyText(eq, clustering) + ";");
  }
  if (regular == 0 && main_query) {
    out.push_back("ALTER TABLE " + TableName(key) + " WITH " +
                  KeyText(eq, clustering) +
                  ";  -- the online key change: this is the table's main query");
  }
  return out;
}

void FilteringScans(const TableKey& key,
                    const std::vector<ShapeEvidence>& shapes, uint64_t total,
                    std::vector<WorkloadFinding>* out) {
  for (const ShapeEvidence& s : shapes) {
    const bool filtering = s.shape.ends_with(" ALLOW FILTERING") ||
                           (s.access == "FULL SCAN" &&
                            s.shape.starts_with("WHERE "));
    const double per_row = static_cast<double>(s.rows_read) /
                           static_cast<double>(std::max<uint64_t>(
                               s.rows_returned, 1));
    if (!filtering || per_row < kFilteringRowsPerRow ||
        static_cast<double>(s.executions) <
            kFilteringShare * static_cast<double>(total)) {
      continue;
    }
    const Shape shape = ParseShape(s.shape);
    std::string text =
        "filtering-scan: " + Percent(s.executions, total) +
        " of the SELECTs on " + TableName(key) + " (" +
        std::to_string(s.executions) + " of " + std::to_string(total) +
        ") are `" + s.shape + "`, run as a " + s.access + ": they read " +
        Number(per_row) + " rows per row returned (median " +
        Number(s.p50_ms) + " ms, p99 " + Number(s.p99_ms) +
        " ms). The primary key cannot find these rows, so each query reads " +
        (s.access == "FULL SCAN" ? "the whole table" : "whole partitions") +
        " and drops what does not match.";
    std::vector<std::string> fixes;
    if (shape.understood) {
      fixes = Fixes(key, shape, s.executions * 2 >= total);
    }
    if (fixes.empty()) {
      text += " No statement is suggested for this shape: serve it from a "
              "table whose key starts with the columns it restricts by `=`.";
    } else {
      text += " Serve them from data keyed for them:";
      for (const std::string& f : fixes) text += "\n  " + f;
    }
    out->push_back(WorkloadFinding{"filtering-scan", std::move(text)});
  }
}

void ReversedReads(const TableKey& key,
                   const std::vector<ShapeEvidence>& shapes, uint64_t total,
                   std::vector<WorkloadFinding>* out) {
  if (key.clustering.empty()) return;
  const TableKey::Clustering& first = key.clustering.front();
  uint64_t reversed = 0;
  for (const ShapeEvidence& s : shapes) {
    const Shape shape = ParseShape(s.shape);
    if (shape.order_column == first.name && shape.order_desc != first.desc) {
      reversed += s.executions;
    }
  }
  if (static_cast<double>(reversed) <
      kReversedShare * static_cast<double>(total)) {
    return;
  }
  std::vector<std::string> clustering;
  std::string order;
  for (const auto& c : key.clustering) {
    clustering.push_back(c.name);
    order += (order.empty() ? "" : ", ") + CqlName(c.name) +
             (c.desc ? " ASC" : " DESC");
  }
  out->push_back(WorkloadFinding{
      "reversed-reads",
      "reversed-reads: " + Percent(reversed, total) + " of the SELECTs on " +
          TableName(key) + " (" + std::to_string(reversed) + " of " +
          std::to_string(total) + ") read partitions against their clustering "
          "order (ORDER BY " + CqlName(first.name) +
          (first.desc ? " ASC" : " DESC") + ", declared " +
          CqlName(first.name) + (first.desc ? " DESC" : " ASC") +
          "): each one reads storage backwards, which is slower than "
          "forwards. Declare the order the reads use, online:\n  ALTER TABLE " +
          TableName(key) + " WITH " + KeyText(key.partition_key, clustering) +
          " AND CLUSTERING ORDER BY (" + order + ");"});
}

void HotPartitions(const TableKey& key,
                   const std::vector<PartitionEvidence>& partitions,
                   std::vector<WorkloadFinding>* out) {
  for (const PartitionEvidence& p : partitions) {
    const uint64_t least = p.count > p.error ? p.count - p.error : 0;
    if (p.table_operations < kMinOperations ||
        static_cast<double>(least) <
            kHotShare * static_cast<double>(p.table_operations)) {
      continue;
    }
    std::vector<std::string> partition = key.partition_key;
    partition.push_back("bucket");
    std::vector<std::string> clustering;
    for (const auto& c : key.clustering) clustering.push_back(c.name);
    out->push_back(WorkloadFinding{
        "hot-partition",
        "hot-partition: the partition `" + p.partition_key + "` took " +
            (p.error > 0 ? "at least " : "") + Percent(least, p.table_operations) +
            " of the " + p.op + "s of " + TableName(key) + " (" +
            std::to_string(least) + " of " +
            std::to_string(p.table_operations) +
            "). They all go to one replica set, and a tablet cannot split "
            "below a partition, so more nodes do not help. Spread it over "
            "buckets: " + KeyText(partition, clustering) +
            ", the writer choosing bucket = hash(row) % N and readers reading "
            "every bucket" +
            (p.op == "read" ? "; or cache it in the application." : ".") +
            " Compare the keys on the table's rows first:\n  " +
            WhatIfCommand(key)});
  }
}

void LargePartitions(const TableKey& key,
                     const std::vector<PartitionSizeEvidence>& large,
                     std::vector<WorkloadFinding>* out) {
  std::vector<std::string> partition = key.partition_key;
  partition.push_back("bucket");
  std::vector<std::string> clustering;
  for (const auto& c : key.clustering) clustering.push_back(c.name);
  for (const PartitionSizeEvidence& p : large) {
    out->push_back(WorkloadFinding{
        "large-partition",
        "large-partition: the partition `" + p.partition_key + "` of " +
            TableName(key) + " holds " + Number(static_cast<double>(p.bytes) /
                                                (1 << 20)) +
            " MiB in " + std::to_string(p.rows) +
            " rows in a node's table files, past " + p.limit_passed +
            ". A partition is read, repaired and moved in one piece, and a "
            "tablet cannot split below it. Split it over buckets (a time "
            "bucket, or bucket = hash(row) % N): " +
            KeyText(partition, clustering) +
            ". Compare the keys on the table's rows first:\n  " +
            WhatIfCommand(key)});
  }
}

// A range-placed table whose reads or writes mostly go to one heatmap
// range, when no hot partition explains it (hot-partition reports those).
void HotRanges(const TableKey& key,
               const std::vector<PartitionEvidence>& partitions,
               const std::vector<RangeEvidence>& ranges,
               std::vector<WorkloadFinding>* out) {
  if (!key.range_placed || ranges.empty()) return;
  for (const bool writes : {true, false}) {
    const std::string op = writes ? "write" : "read";
    uint64_t total = 0;
    const RangeEvidence* busiest = &ranges.front();
    for (const RangeEvidence& r : ranges) {
      const uint64_t n = writes ? r.writes : r.reads;
      total += n;
      if (n > (writes ? busiest->writes : busiest->reads)) busiest = &r;
    }
    const uint64_t most = writes ? busiest->writes : busiest->reads;
    if (total < kMinOperations ||
        static_cast<double>(most) <
            kHotRangeShare * static_cast<double>(total)) {
      continue;
    }
    bool hot_partition = false;
    for (const PartitionEvidence& p : partitions) {
      const uint64_t least = p.count > p.error ? p.count - p.error : 0;
      hot_partition |= p.op == op && p.table_operations >= kMinOperations &&
                       static_cast<double>(least) >=
                           kHotShare * static_cast<double>(p.table_operations);
    }
    if (hot_partition) continue;
    const std::string salted =
        key.salt_buckets > 0
            ? "It is salted into " + std::to_string(key.salt_buckets) +
                  " buckets, too few for this stream: more buckets spread "
                  "it further"
            : "Salt it: each key goes to one of N hidden buckets by its "
              "hash, so the newest keys are spread over N tablets, while "
              "reads by key stay one read and key ranges merge the buckets "
              "in key order";
    out->push_back(WorkloadFinding{
        "hot-range",
        "hot-range: " + Percent(most, total) + " of the " + op + "s of " +
            TableName(key) + " (" + std::to_string(most) + " of " +
            std::to_string(total) +
            ") went to one sixty-fourth of its token ring (from token " +
            std::to_string(busiest->range_start) +
            "), spread over many partitions. The table is placed by key "
            "range, so keys used in order (a time, a sequence) all land on "
            "the tablet holding the newest ones, on one replica set, "
            "whatever the number of nodes. " + salted +
            ". salt_buckets is fixed when a table is created: create the "
            "table again (DESCRIBE TABLE " + TableName(key) + ") with\n  "
            "WITH placement = 'range' AND salt_buckets = " +
            std::to_string(std::max(kProposedSaltBuckets,
                                    key.salt_buckets * 4)) +
            "\nand copy the rows into it; or use a hash-placed key."});
  }
}

}  // namespace

std::vector<WorkloadFinding> WorkloadFindings(
    const TableKey& key, const std::vector<ShapeEvidence>& shapes,
    const std::vector<PartitionEvidence>& partitions,
    const std::vector<PartitionSizeEvidence>& large,
    const std::vector<RangeEvidence>& ranges) {
  std::vector<WorkloadFinding> out;
  uint64_t total = 0;
  for (const ShapeEvidence& s : shapes) total += s.executions;
  if (total >= kMinOperations) {
    FilteringScans(key, shapes, total, &out);
    ReversedReads(key, shapes, total, &out);
  }
  HotPartitions(key, partitions, &out);
  LargePartitions(key, large, &out);
  HotRanges(key, partitions, ranges, &out);
  return out;
}

}  // namespace keywise::advisor
