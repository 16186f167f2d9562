// BuildTableOptions: Cassandra 4's TableAttributes (table WITH options).
// Options Keywise does not act on are checked loosely, with Cassandra's
// messages for the common mistakes, and kept as CQL text so DESCRIBE and
// system_schema can show them back.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "query/ddl/schema_common.h"
#include "schema/catalog.h"

namespace keywise::query {
namespace {

const std::set<std::string, std::less<>> kTableProperties = {
    "additional_write_policy",
    "bloom_filter_fp_chance",
    "caching",
    "cdc",
    "comment",
    "compaction",
    "compression",
    "crc_check_chance",
    "default_time_to_live",
    "extensions",
    "gc_grace_seconds",
    "id",
    "lint",  // Keywise: schema lint warnings for this table
    "max_index_interval",
    "memtable_flush_period_in_ms",
    "min_index_interval",
    "placement",  // Keywise: 'hash' or 'range' (schema/partitioner.h)
    "read_repair",
    "salt_buckets",  // Keywise: hidden buckets of a range-placed table
    "speculative_retry",
    "versions",  // Keywise: cell versions kept
};

constexpr std::string_view kCompactionPackage =
    "org.apache.cassandra.db.compaction.";
constexpr std::array<std::string_view, 4> kCompactionClasses = {
    "SizeTieredCompactionStrategy", "LeveledCompactionStrategy",
    "TimeWindowCompactionStrategy", "DateTieredCompactionStrategy"};
constexpr std::string_view kCompressionPackage =
    "org.apache.cassandra.io.compress.";
constexpr std::array<std::string_view, 5> kCompressorClasses = {
    "LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor",
    "NoopCompressor"};
// BloomCalculations.minSupportedBloomFilterFpChance().
constexpr double kMinBloomFilterFpChance = 6.71e-05;
constexpr int32_t kDefaultMinIndexInterval = 128;
constexpr int32_t kDefaultMaxIndexInterval = 2048;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

template <size_t N>
bool Known(const std::array<std::string_view, N>& names, std::string_view n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// Resolves a short or qualified class name within `package`; returns the
// qualified name, or nullopt when no such class exists.
template <size_t N>
std::optional<std::string> ResolveClass(
    const std::string& name, std::string_view package,
    const std::array<std::string_view, N>& classes) {
  std::string full =
      name.find('.') == std::string::npos ? std::string(package) + name : name;
  if (full.compare(0, package.size(), package) != 0) return std::nullopt;
  if (!Known(classes, std::string_view(full).substr(package.size()))) {
    return std::nullopt;
  }
  return full;
}

Result<std::string> CompactionText(PropertyMap map) {
  auto cls = map.find("class");
  if (cls == map.end()) {
    return Status::ConfigError(
        "Missing sub-option 'class' for the 'compaction' option.");
  }
  std::optional<std::string> full =
      ResolveClass(cls->second, kCompactionPackage, kCompactionClasses);
  if (!full) {
    std::string name = cls->second.find('.') == std::string::npos
                           ? std::string(kCompactionPackage) + cls->second
                           : cls->second;
    return Status::ConfigError("Unable to find compaction strategy class '" +
                               name + "'");
  }
  cls->second = *full;
  auto enabled = map.find("enabled");
  if (enabled != map.end() && Upper(enabled->second) != "TRUE" &&
      Upper(enabled->second) != "FALSE") {
    return Status::ConfigError("Invalid value " + enabled->second +
                               " for 'enabled' compaction sub-option - must "
                               "be 'true' or 'false'");
  }
  return MapToCql(map);
}

Result<std::string> CompressionText(PropertyMap map) {
  auto enabled = map.find("enabled");
  bool is_enabled = enabled == map.end() || Upper(enabled->second) == "TRUE";
  auto cls = map.find("class");
  if (cls == map.end()) cls = map.find("sstable_compression");
  if (!map.empty() && is_enabled && cls == map.end()) {
    return Status::ConfigError(
        "Missing sub-option 'class' for the 'compression' option.");
  }
  if (cls != map.end() && is_enabled) {
    std::optional<std::string> full =
        ResolveClass(cls->second, kCompressionPackage, kCompressorClasses);
    if (!full) {
      std::string name = cls->second.find('.') == std::string::npos
                             ? std::string(kCompressionPackage) + cls->second
                             : cls->second;
      return Status::ConfigError("Could not create Compression for type " +
                                 name);
    }
    cls->second = *full;
  }
  auto chunk = map.find("chunk_length_in_kb");
  if (chunk != map.end()) {
    std::optional<int32_t> kb = ParseJavaInt(chunk->second);
    if (!kb || *kb <= 0) {
      return Status::ConfigError("Invalid negative or null " +
                                 std::string("chunk_length_in_kb"));
    }
    if ((*kb & (*kb - 1)) != 0) {
      return Status::ConfigError("chunk_length_in_kb must be a power of 2");
    }
  }
  return MapToCql(map);
}

Status CheckCaching(const PropertyMap& map) {
  std::string unknown;
  for (const auto& [key, value] : map) {
    if (key != "keys" && key != "rows_per_partition") {
      unknown += (unknown.empty() ? "" : ", ") + key;
    }
  }
  if (!unknown.empty()) {
    return Status::ConfigError(
        "Invalid caching sub-options [" + unknown +
        "]: only 'keys' and 'rows_per_partition' are allowed");
  }
  auto keys = map.find("keys");
  if (keys != map.end() && Upper(keys->second) != "ALL" &&
      Upper(keys->second) != "NONE") {
    return Status::ConfigError("Invalid value '" + keys->second +
                               "' for caching sub-option 'keys': only 'ALL' "
                               "and 'NONE' are allowed");
  }
  auto rows = map.find("rows_per_partition");
  if (rows != map.end() && Upper(rows->second) != "ALL" &&
      Upper(rows->second) != "NONE") {
    std::optional<int32_t> n = ParseJavaInt(rows->second);
    if (!n || *n < 0) {
      return Status::ConfigError(
          "Invalid value '" + rows->second +
          "' for caching sub-option 'rows_per_partition': only 'ALL', "
          "'NONE', and integer values are allowed");
    }
  }
  return Status::OK();
}

// SpeculativeRetryPolicy.fromString: NONE, ALWAYS, 99p / 99PERCENTILE,
// 50ms, MIN(a,b), MAX(a,b).
// OK when `text` is a retry policy (NONE, ALWAYS, Xms, Np, NPERCENTILE, and
// with `allow_combined` MIN/MAX of two of those), else Cassandra's error for
// option `name`: a percentile must be above 0 and below 100.
Status CheckRetryPolicy(std::string_view text, bool allow_combined,
                        std::string_view name) {
  const Status invalid = Status::ConfigError(
      "Invalid value " + std::string(text) + " for option '" +
      std::string(name) + "'");
  std::string u = Upper(text);
  if (u == "NONE" || u == "ALWAYS") return Status::OK();
  if (allow_combined && u.size() > 5 &&
      (u.rfind("MIN(", 0) == 0 || u.rfind("MAX(", 0) == 0) && u.back() == ')') {
    std::string inner = u.substr(4, u.size() - 5);
    size_t comma = inner.find(',');
    if (comma == std::string::npos) return invalid;
    auto trim = [](std::string s) {
      while (!s.empty() && s.front() == ' ') s.erase(0, 1);
      while (!s.empty() && s.back() == ' ') s.pop_back();
      return s;
    };
    KW_RETURN_IF_ERROR(
        CheckRetryPolicy(trim(inner.substr(0, comma)), false, name));
    return CheckRetryPolicy(trim(inner.substr(comma + 1)), false, name);
  }
  std::string number;
  bool percentile = true;
  if (u.size() > 2 && u.compare(u.size() - 2, 2, "MS") == 0) {
    number = u.substr(0, u.size() - 2);
    percentile = false;
  } else if (u.size() > 10 && u.compare(u.size() - 10, 10, "PERCENTILE") == 0) {
    number = u.substr(0, u.size() - 10);
  } else if (u.size() > 1 && u.back() == 'P') {
    number = u.substr(0, u.size() - 1);
  } else {
    return invalid;
  }
  std::optional<double> v = ParseJavaDouble(number);
  if (!v || *v < 0 || std::isnan(*v)) return invalid;
  if (percentile && (*v <= 0 || *v >= 100)) {
    return Status::ConfigError(
        "Invalid value " + std::string(text) + " for PERCENTILE option '" +
        std::string(name) + "': must be between (0.0 and 100.0)");
  }
  return Status::OK();
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

int32_t ExtraInt(const TableOptions& o, const std::string& name,
                 int32_t fallback) {
  auto it = o.extra.find(name);
  if (it == o.extra.end()) return fallback;
  return ParseJavaInt(it->second).value_or(fallback);
}

// placement and salt_buckets: set at CREATE TABLE only (every storage key
// holds the token they choose); CheckPlacement validates them against the
// key when the table is built.
Status SetPlacement(const SchemaProperties& props, OptionsUse use,
                    TableOptions* o) {
  KW_ASSIGN_OR_RETURN(std::optional<std::string> placement,
                      props.GetString("placement"));
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> salt,
                      props.GetInt("salt_buckets"));
  if (use == OptionsUse::kAlter && (placement || salt)) {
    return Status::ConfigError(
        "Cannot alter placement or salt_buckets: they decide where every "
        "row is stored (change the primary key with ALTER TABLE ... WITH "
        "PRIMARY KEY, or copy the rows to a new table)");
  }
  if (placement) {
    std::string p = *placement;
    for (char& c : p) c = static_cast<char>(std::tolower(c));
    if (p == "hash") {
      o->placement = PlacementKind::kHash;
    } else if (p == "range") {
      o->placement = PlacementKind::kRange;
    } else {
      return Status::ConfigError("Invalid value " + *placement +
                                 " for option 'placement' (expected 'hash' "
                                 "or 'range')");
    }
  }
  if (salt) o->salt_buckets = *salt;
  return Status::OK();
}

}  // namespace

Result<TableOptions> BuildTableOptions(const SchemaProperties& props,
                                       TableOptions base, OptionsUse use) {
  KW_RETURN_IF_ERROR(props.CheckKnown(kTableProperties));
  TableOptions o = std::move(base);
  // In TableAttributes.build's order, so the first bad option reported is
  // Cassandra's.
  KW_ASSIGN_OR_RETURN(std::optional<double> bloom,
                      props.GetDouble("bloom_filter_fp_chance"));
  if (bloom) o.extra["bloom_filter_fp_chance"] = JavaDoubleString(*bloom);
  KW_ASSIGN_OR_RETURN(std::optional<PropertyMap> caching,
                      props.GetMap("caching"));
  if (caching) {
    KW_RETURN_IF_ERROR(CheckCaching(*caching));
    o.extra["caching"] = MapToCql(*caching);
  }
  KW_ASSIGN_OR_RETURN(std::optional<std::string> comment,
                      props.GetString("comment"));
  if (comment) o.comment = *comment;
  KW_ASSIGN_OR_RETURN(std::optional<PropertyMap> compaction,
                      props.GetMap("compaction"));
  KW_ASSIGN_OR_RETURN(std::optional<PropertyMap> compression,
                      props.GetMap("compression"));
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> ttl,
                      props.GetInt("default_time_to_live"));
  if (ttl) o.default_time_to_live = *ttl;
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> gc,
                      props.GetInt("gc_grace_seconds"));
  if (gc) o.gc_grace_seconds = *gc;
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> max_index,
                      props.GetInt("max_index_interval"));
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> flush_period,
                      props.GetInt("memtable_flush_period_in_ms"));
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> min_index,
                      props.GetInt("min_index_interval"));
  for (const char* name : {"speculative_retry", "additional_write_policy"}) {
    KW_ASSIGN_OR_RETURN(std::optional<std::string> policy,
                        props.GetString(name));
    if (!policy) continue;
    KW_RETURN_IF_ERROR(CheckRetryPolicy(*policy, true, name));
    o.extra[name] = QuoteCql(*policy);
  }
  KW_ASSIGN_OR_RETURN(std::optional<double> crc,
                      props.GetDouble("crc_check_chance"));
  KW_ASSIGN_OR_RETURN(std::optional<bool> cdc, props.GetBoolean("cdc"));
  if (cdc) o.extra["cdc"] = *cdc ? "true" : "false";
  KW_ASSIGN_OR_RETURN(std::optional<std::string> read_repair,
                      props.GetString("read_repair"));
  if (read_repair) {
    std::string u = Upper(*read_repair);
    if (u != "BLOCKING" && u != "NONE") {
      return Status::ConfigError("Invalid value " + *read_repair +
                                 " for option 'read_repair'");
    }
    o.extra["read_repair"] = QuoteCql(u);
  }
  KW_ASSIGN_OR_RETURN(std::optional<PropertyMap> extensions,
                      props.GetMap("extensions"));
  if (extensions) o.extra["extensions"] = MapToCql(*extensions);
  KW_ASSIGN_OR_RETURN(std::optional<bool> lint, props.GetBoolean("lint"));
  if (lint) o.extra["lint"] = *lint ? "true" : "false";
  KW_ASSIGN_OR_RETURN(std::optional<int32_t> versions,
                      props.GetInt("versions"));
  if (versions) o.versions = *versions;
  KW_RETURN_IF_ERROR(SetPlacement(props, use, &o));
  KW_ASSIGN_OR_RETURN(std::optional<std::string> id, props.GetString("id"));
  if (id && use == OptionsUse::kAlter) {
    return Status::ConfigError("Cannot alter table id.");
  }
  if (id && !IsUuid(*id)) return Status::ConfigError("Invalid table id");

  // TableParams.validate, in its order.
  if (compaction) {
    KW_ASSIGN_OR_RETURN(o.extra["compaction"], CompactionText(*compaction));
  }
  if (compression) {
    KW_ASSIGN_OR_RETURN(o.extra["compression"], CompressionText(*compression));
  }
  if (bloom && (*bloom <= kMinBloomFilterFpChance || *bloom > 1)) {
    return Status::ConfigError("bloom_filter_fp_chance must be larger than " +
                               JavaDoubleString(kMinBloomFilterFpChance) +
                               " and less than or equal to 1.0 (got " +
                               JavaDoubleString(*bloom) + ")");
  }
  if (crc) {
    if (*crc < 0 || *crc > 1.0) {
      return Status::ConfigError(
          "crc_check_chance must be larger than or equal to 0 and smaller "
          "than or equal to 1.0 (got " +
          JavaDoubleString(*crc) + ")");
    }
    o.extra["crc_check_chance"] = JavaDoubleString(*crc);
  }
  KW_RETURN_IF_ERROR(ValidateTableOptions(o));
  int32_t min_interval = min_index.value_or(
      ExtraInt(o, "min_index_interval", kDefaultMinIndexInterval));
  int32_t max_interval = max_index.value_or(
      ExtraInt(o, "max_index_interval", kDefaultMaxIndexInterval));
  if (min_interval < 1) {
    return Status::ConfigError(
        "min_index_interval must be greater than or equal to 1 (got " +
        std::to_string(min_interval) + ")");
  }
  if (max_interval < min_interval) {
    return Status::ConfigError(
        "max_index_interval must be greater than or equal to "
        "min_index_interval (" +
        std::to_string(min_interval) + ") (got " +
        std::to_string(max_interval) + ")");
  }
  if (min_index) o.extra["min_index_interval"] = std::to_string(*min_index);
  if (max_index) o.extra["max_index_interval"] = std::to_string(*max_index);
  if (flush_period) {
    if (*flush_period < 0) {
      return Status::ConfigError(
          "memtable_flush_period_in_ms must be greater than or equal to 0 "
          "(got " +
          std::to_string(*flush_period) + ")");
    }
    o.extra["memtable_flush_period_in_ms"] = std::to_string(*flush_period);
  }
  return o;
}

}  // namespace keywise::query
