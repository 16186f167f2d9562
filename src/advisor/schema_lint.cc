#include "advisor/schema_lint.h"

#include <algorithm>
#include <set>
#include <utility>

#include "schema/cql_name.h"
#include "schema/partitioner.h"

namespace keywise::advisor {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

bool OneOf(const std::string& s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool IsInteger(TypeKind k) {
  return k == TypeKind::kTinyint || k == TypeKind::kSmallint ||
         k == TypeKind::kInt || k == TypeKind::kBigint ||
         k == TypeKind::kVarint;
}

bool IsText(TypeKind k) {
  return k == TypeKind::kVarchar || k == TypeKind::kAscii;
}

// A point in time, to the second or finer: its values follow the clock.
bool IsFineTime(const ColumnDef& c) {
  const TypeKind k = c.type->kind();
  if (k == TypeKind::kTimestamp || k == TypeKind::kTimeuuid ||
      k == TypeKind::kTime) {
    return true;
  }
  if (!IsInteger(k)) return false;
  const std::string n = Lower(c.name);
  return OneOf(n, {"ts", "time", "timestamp", "datetime", "epoch", "seq",
                   "seqno", "seq_no", "sequence", "sequence_number",
                   "serial"}) ||
         EndsWith(n, "_ts") || EndsWith(n, "_time") || EndsWith(n, "_at") ||
         EndsWith(n, "_seq");
}

// A time bucket: a day, an hour, a month...
bool IsCoarseTime(const ColumnDef& c) {
  const TypeKind k = c.type->kind();
  if (k == TypeKind::kDate) return true;
  if (!IsInteger(k) && !IsText(k)) return false;
  const std::string n = Lower(c.name);
  for (std::string_view unit : {"minute", "hour", "day", "date", "week",
                                "month", "year"}) {
    if (n == unit || EndsWith(n, "_" + std::string(unit))) return true;
  }
  return false;
}

bool IsTimeLike(const ColumnDef& c) { return IsFineTime(c) || IsCoarseTime(c); }

// Few distinct values: a flag or an enum-like column.
bool IsLowCardinality(const ColumnDef& c) {
  const TypeKind k = c.type->kind();
  if (k == TypeKind::kBoolean || k == TypeKind::kTinyint) return true;
  if (!IsText(k) && !IsInteger(k)) return false;
  const std::string n = Lower(c.name);
  return OneOf(n, {"status", "state", "type", "kind", "category", "flag",
                   "gender", "priority", "level", "enabled", "active",
                   "deleted"}) ||
         n.starts_with("is_") || n.starts_with("has_") ||
         EndsWith(n, "_status") || EndsWith(n, "_type");
}

// A column that names an entity (a user, a device...): what the reference
// documents lead a time-series key with.
bool IsEntity(const ColumnDef& c) {
  if (c.kind != ColumnKind::kRegular || c.type->IsMultiCell()) return false;
  const TypeKind k = c.type->kind();
  if (!IsInteger(k) && !IsText(k) && k != TypeKind::kUuid) return false;
  const std::string n = Lower(c.name);
  return n == "id" || EndsWith(n, "_id") ||
         OneOf(n, {"userid", "deviceid", "sensorid", "customerid",
                   "accountid", "tenantid", "hostid", "user", "username",
                   "host", "hostname", "device", "sensor", "customer",
                   "account", "tenant", "source", "station", "symbol"});
}

std::string QualifiedCql(const TableDef& t) {
  return CqlName(t.keyspace) + "." + CqlName(t.name);
}

std::string ColumnsText(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (const ColumnDef* c : columns) {
    if (!out.empty()) out += ", ";
    out += CqlName(c->name) + " " + c->type->ToCql();
  }
  return out;
}

// A table's CREATE TABLE statement, on one line.
std::string CreateTableText(const TableDef& t) {
  std::string out = "CREATE TABLE " + QualifiedCql(t) + " (";
  std::string pk, ck, order;
  for (const ColumnDef& c : t.columns) {
    out += CqlName(c.name) + " " + c.type->ToCql() +
           (c.kind == ColumnKind::kStatic ? " static" : "") + ", ";
    if (c.kind == ColumnKind::kPartitionKey) {
      pk += (pk.empty() ? "" : ", ") + CqlName(c.name);
    } else if (c.kind == ColumnKind::kClustering) {
      ck += ", " + CqlName(c.name);
      order += (order.empty() ? "" : ", ") + CqlName(c.name) +
               (c.order == SortOrder::kDesc ? " DESC" : " ASC");
    }
  }
  out += "PRIMARY KEY ((" + pk + ")" + ck + "))";
  std::string with;
  if (order.find(" DESC") != std::string::npos) {
    with = "CLUSTERING ORDER BY (" + order + ")";
  }
  if (t.options.placement == PlacementKind::kRange) {
    with += (with.empty() ? "" : " AND ") + std::string("placement = 'range'");
    if (t.options.salt_buckets > 0) {
      with += " AND salt_buckets = " + std::to_string(t.options.salt_buckets);
    }
  }
  if (!with.empty()) out += " WITH " + with;
  return out + ";";
}

// `t` with the primary key `partition` + `clustering` (columns of `t`, or
// `added` ones), every other column kept (static ones only while the new
// key has clustering columns).
TableDef Rekeyed(const TableDef& t, const std::vector<ColumnDef>& partition,
                 const std::vector<ColumnDef>& clustering) {
  TableDef out;
  out.keyspace = t.keyspace;
  out.name = t.name;
  std::set<std::string> key;
  for (size_t i = 0; i < partition.size(); ++i) {
    ColumnDef c = partition[i];
    c.kind = ColumnKind::kPartitionKey;
    c.position = static_cast<int>(i);
    c.order = SortOrder::kAsc;
    key.insert(c.name);
    out.columns.push_back(std::move(c));
  }
  for (size_t i = 0; i < clustering.size(); ++i) {
    ColumnDef c = clustering[i];
    c.kind = ColumnKind::kClustering;
    c.position = static_cast<int>(i);
    key.insert(c.name);
    out.columns.push_back(std::move(c));
  }
  for (const ColumnDef& c : t.columns) {
    if (key.contains(c.name)) continue;
    ColumnDef rest = c;
    if (rest.kind != ColumnKind::kStatic || clustering.empty()) {
      rest.kind = ColumnKind::kRegular;
    }
    rest.position = 0;
    rest.order = SortOrder::kAsc;
    out.columns.push_back(std::move(rest));
  }
  return out;
}

ColumnDef BucketColumn() {
  return ColumnDef{"bucket", CqlType::Of(TypeKind::kInt),
                   ColumnKind::kPartitionKey};
}

std::string Finding(std::string_view rule, const TableDef& t,
                    const std::string& why, const std::string& rewrite) {
  return std::string(rule) + ": " + why + "\n  " + rewrite +
         "\n(Keywise schema lint, docs/advisor.md; ALTER TABLE " +
         QualifiedCql(t) + " WITH lint = false silences it.)";
}

// The salt buckets suggested for a range-placed time key.
constexpr int32_t kSuggestedSaltBuckets = 16;

void TimePartitionKey(const TableDef& t, std::vector<LintFinding>* out) {
  // Every partition key column is a time, or has few values besides one
  // that is: the current time's partition(s) take every write.
  std::vector<const ColumnDef*> pk = t.PartitionKeyColumns();
  std::vector<ColumnDef> fine, coarse, few;
  for (const ColumnDef* c : pk) {
    if (IsTimeLike(*c)) {
      (IsFineTime(*c) ? fine : coarse).push_back(*c);
    } else if (IsLowCardinality(*c)) {
      few.push_back(*c);
    } else {
      return;
    }
  }
  if (fine.empty() && coarse.empty()) return;
  if (IsRangePlaced(t) && !fine.empty()) {
    // Salting is the cure for a range-placed time key; unsalted, every
    // current write goes to the tablet holding the newest keys.
    if (t.options.salt_buckets > 0) return;
    TableDef salted = t;
    salted.options.salt_buckets = kSuggestedSaltBuckets;
    out->push_back(
        {"time-partition-key",
         Finding("time-partition-key", t,
                 "the partition key of " + QualifiedCql(t) +
                     " is a time or a sequence (" + ColumnsText(pk) +
                     ") and the table is placed by key range, so every "
                     "current write goes to the tablet holding the newest "
                     "keys, on one replica set, whatever the number of "
                     "nodes. Salt it: each key then goes to one of " +
                     std::to_string(kSuggestedSaltBuckets) +
                     " hidden buckets by its hash, and ranges of times "
                     "still read in key order (salt_buckets is set when the "
                     "table is created):",
                 CreateTableText(salted))});
    return;
  }
  const ColumnDef* entity = nullptr;
  for (const ColumnDef& c : t.columns) {
    if (IsEntity(c)) {
      entity = &c;
      break;
    }
  }
  std::vector<ColumnDef> partition;
  std::string how;
  if (entity != nullptr) {
    partition.push_back(*entity);
    how = "Lead the key with what the rows are about (" + entity->name +
          ") and cluster by time, for example:";
  } else {
    how = "Add a bucket to the partition key and cluster by time, for "
          "example (bucket = hash of an id % 16, set by the writer; a time "
          "range then reads the 16 buckets):";
  }
  partition.insert(partition.end(), coarse.begin(), coarse.end());
  partition.insert(partition.end(), few.begin(), few.end());
  if (entity == nullptr) partition.push_back(BucketColumn());
  std::vector<ColumnDef> clustering;
  for (ColumnDef c : fine) {
    c.order = SortOrder::kDesc;
    clustering.push_back(std::move(c));
  }
  for (const ColumnDef* c : t.ClusteringColumns()) clustering.push_back(*c);
  TableDef rewritten = t;
  if (entity == nullptr) rewritten.columns.push_back(BucketColumn());
  out->push_back(
      {"time-partition-key",
       Finding("time-partition-key", t,
               "the partition key of " + QualifiedCql(t) +
                   " is a time or a sequence" +
                   (few.empty() ? "" : " and values with few choices") +
                   " (" + ColumnsText(pk) + "). " +
                   (fine.empty()
                        ? "Writes come in time order, so every current "
                          "write goes to the partition of the current time "
                          "bucket: one replica set takes them all, and one "
                          "tablet cannot split below a partition. "
                        : "Each row is its own partition, placed by a hash "
                          "of its key: reading a range of times scans the "
                          "whole table, and nothing keeps a source's rows "
                          "together (to keep this key, WITH placement = "
                          "'range' AND salt_buckets = 16 makes a range of "
                          "times a RANGE SCAN and still spreads the "
                          "writes). ") +
                   how,
               CreateTableText(Rekeyed(rewritten, partition, clustering)))});
}

void LowCardinalityPartitionKey(const TableDef& t,
                                std::vector<LintFinding>* out) {
  std::vector<const ColumnDef*> pk = t.PartitionKeyColumns();
  for (const ColumnDef* c : pk) {
    if (!IsLowCardinality(*c) || IsTimeLike(*c)) return;
  }
  std::vector<ColumnDef> partition;
  for (const ColumnDef* c : pk) partition.push_back(*c);
  partition.push_back(BucketColumn());
  std::vector<ColumnDef> clustering;
  for (const ColumnDef* c : t.ClusteringColumns()) clustering.push_back(*c);
  TableDef with_bucket = t;
  with_bucket.columns.push_back(BucketColumn());
  std::string why =
      "the partition key of " + QualifiedCql(t) + " (" + ColumnsText(pk) +
      ") has few distinct values, so the table has only a few partitions, "
      "each growing without bound on one replica set, and one tablet cannot "
      "split below a partition. Add a bucket (bucket = hash of the row's id "
      "% 16, set by the writer; a query by ";
  why += pk.size() == 1 ? pk[0]->name : std::string("the key");
  why += " then reads the 16 buckets), or key the table by a column with "
         "many values and find rows by " +
         std::string(pk.size() == 1 ? pk[0]->name : "it") +
         " through CREATE INDEX or a materialized view. For example:";
  out->push_back({"low-cardinality-partition-key",
                  Finding("low-cardinality-partition-key", t, why,
                          CreateTableText(
                              Rekeyed(with_bucket, partition, clustering)))});
}

// One frozen tuple column standing for `columns` (named after them).
ColumnDef Folded(const std::vector<ColumnDef>& columns, ColumnKind kind) {
  std::vector<CqlTypePtr> parts;
  std::string name;
  for (const ColumnDef& c : columns) {
    parts.push_back(c.type);
    name += (name.empty() ? "" : "_") + c.name;
  }
  ColumnDef out{name, CqlType::Frozen(CqlType::Tuple(parts)), kind};
  out.order = columns[0].order;
  return out;
}

void ManyKeyColumns(const TableDef& t, std::vector<LintFinding>* out) {
  std::vector<ColumnDef> pk, ck;
  for (const ColumnDef* c : t.PartitionKeyColumns()) pk.push_back(*c);
  for (const ColumnDef* c : t.ClusteringColumns()) ck.push_back(*c);
  const size_t total = pk.size() + ck.size();
  if (total <= 3) return;
  // The rewrite folds columns into frozen tuples (the same rows, in the
  // same order when they share a direction): a composite partition key
  // into one column, then the clustering columns after the first.
  std::vector<ColumnDef> partition = pk, clustering = ck;
  if (pk.size() > 1) partition = {Folded(pk, ColumnKind::kPartitionKey)};
  if (partition.size() + ck.size() > 3) {
    clustering = {ck[0], Folded({ck.begin() + 1, ck.end()},
                                ColumnKind::kClustering)};
  }
  TableDef rewritten = t;
  std::erase_if(rewritten.columns,
                [](const ColumnDef& c) { return c.IsPrimaryKey(); });
  for (const auto* part : {&partition, &clustering}) {
    for (const ColumnDef& c : *part) rewritten.columns.push_back(c);
  }
  out->push_back(
      {"many-key-columns",
       Finding("many-key-columns", t,
               QualifiedCql(t) + " has " + std::to_string(total) +
                   " primary key columns: every row's key, index entry "
                   "and view row repeats them, and queries must restrict "
                   "them left to right. The reference documents advise at "
                   "most three; fold columns that are always given "
                   "together into one, for example:",
               CreateTableText(Rekeyed(rewritten, partition, clustering)))});
}

void TextKeyColumns(const TableDef& t, std::vector<LintFinding>* out) {
  std::vector<const ColumnDef*> text;
  for (const ColumnDef& c : t.columns) {
    const TypeKind k = c.type->kind();
    if (c.IsPrimaryKey() && (IsText(k) || k == TypeKind::kBlob)) {
      text.push_back(&c);
    }
  }
  if (text.empty()) return;
  // The rewrite: each such column becomes a bigint code in the key, the
  // text kept as a regular column.
  std::vector<ColumnDef> partition, clustering;
  TableDef with_codes = t;
  for (const ColumnDef& c : t.columns) {
    if (!c.IsPrimaryKey()) continue;
    ColumnDef k = c;
    if (std::find(text.begin(), text.end(), &c) != text.end()) {
      k.name = c.name + "_code";
      k.type = CqlType::Of(TypeKind::kBigint);
      with_codes.columns.push_back(k);
    }
    (c.kind == ColumnKind::kPartitionKey ? partition : clustering)
        .push_back(std::move(k));
  }
  out->push_back(
      {"text-key-column",
       Finding("text-key-column", t,
               QualifiedCql(t) + " keys its rows by text or blob (" +
                   ColumnsText(text) +
                   "): each value is stored in every row's key, index "
                   "entry, view row and replica message. Keep such values "
                   "short (the reference documents' limit is 2 KB; Keywise "
                   "refuses keys over 65,535 bytes), or key by a number "
                   "and keep the text as a regular column, for example:",
               CreateTableText(Rekeyed(with_codes, partition, clustering)))});
}

void HistoryWithoutClustering(const TableDef& t,
                              std::vector<LintFinding>* out) {
  if (t.ClusteringSize() != 0) return;
  for (const ColumnDef* c : t.PartitionKeyColumns()) {
    if (IsTimeLike(*c)) return;  // time-partition-key speaks for it
  }
  for (const ColumnDef& c : t.columns) {
    if (c.kind != ColumnKind::kRegular) continue;
    const std::string n = Lower(c.name);
    const bool event_time =
        c.type->kind() == TypeKind::kTimeuuid ||
        ((c.type->kind() == TypeKind::kTimestamp || IsInteger(c.type->kind())) &&
         (OneOf(n, {"ts", "time", "timestamp", "event_time", "sample_time",
                    "reading_time"}) ||
          EndsWith(n, "_ts")));
    if (!event_time) continue;
    std::vector<ColumnDef> partition;
    for (const ColumnDef* p : t.PartitionKeyColumns()) partition.push_back(*p);
    ColumnDef time = c;
    time.order = SortOrder::kDesc;
    out->push_back(
        {"history-without-clustering",
         Finding("history-without-clustering", t,
                 QualifiedCql(t) + " has a time column (" + c.name + " " +
                     c.type->ToCql() +
                     ") but no clustering column: each write replaces its "
                     "partition's one row, so no history is kept. To keep "
                     "one row per time, cluster by it, for example:",
                 CreateTableText(Rekeyed(t, partition, {time})))});
    return;
  }
}

}  // namespace

bool LintSwitchedOff(const TableOptions& options) {
  auto it = options.extra.find("lint");
  return it != options.extra.end() && it->second == "false";
}

std::vector<LintFinding> LintTable(const TableDef& table) {
  std::vector<LintFinding> out;
  if (LintSwitchedOff(table.options)) return out;
  TimePartitionKey(table, &out);
  LowCardinalityPartitionKey(table, &out);
  ManyKeyColumns(table, &out);
  TextKeyColumns(table, &out);
  HistoryWithoutClustering(table, &out);
  return out;
}

std::vector<LintFinding> NewLintFindings(const TableDef& before,
                                         const TableDef& after) {
  std::set<std::string> had;
  for (const LintFinding& f : LintTable(before)) had.insert(f.rule);
  std::vector<LintFinding> out;
  for (LintFinding& f : LintTable(after)) {
    if (!had.contains(f.rule)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace keywise::advisor
