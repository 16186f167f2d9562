#include "system/table_params.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace keywise::system {
namespace {

constexpr std::string_view kCompactionPackage =
    "org.apache.cassandra.db.compaction.";
constexpr std::string_view kCompressionPackage =
    "org.apache.cassandra.io.compress.";

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<double> ParseDouble(std::string_view text) {
  std::string s = UnquoteOption(text);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<int32_t> ParseInt(std::string_view text) {
  std::optional<double> d = ParseDouble(text);
  if (!d || *d != std::floor(*d) || std::fabs(*d) > 2147483647.0)
    return std::nullopt;
  return static_cast<int32_t>(*d);
}

// Java's DecimalFormat("#.####"): at most four decimals, no trailing zeros.
std::string ShortDecimal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string WithPackage(std::string_view cls, std::string_view package) {
  if (cls.find('.') != std::string_view::npos) return std::string(cls);
  return std::string(package) + std::string(cls);
}

// SpeculativeRetryPolicy.toString() of the parsed policy text.
std::string NormalizeRetryPolicy(std::string_view text) {
  std::string s = UnquoteOption(text);
  std::string upper = Upper(s);
  auto number = [&](size_t suffix) -> std::optional<double> {
    if (upper.size() <= suffix) return std::nullopt;
    return ParseDouble(upper.substr(0, upper.size() - suffix));
  };
  auto ends_with = [&](std::string_view suffix) {
    return upper.size() >= suffix.size() &&
           upper.compare(upper.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  if (upper == "ALWAYS") return "ALWAYS";
  if (upper == "NONE" || upper == "NEVER") return "NEVER";
  if (ends_with("PERCENTILE")) {
    if (auto v = number(10)) return ShortDecimal(*v) + "p";
  } else if (ends_with("MS")) {
    if (auto v = number(2)) return ShortDecimal(*v) + "ms";
  } else if (ends_with("P")) {
    if (auto v = number(1)) return ShortDecimal(*v) + "p";
  }
  return s;
}

std::map<std::string, std::string> Caching(
    const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> out = {{"keys", "ALL"},
                                            {"rows_per_partition", "NONE"}};
  auto it = extra.find("caching");
  if (it == extra.end()) return out;
  auto given = ParseOptionMap(it->second);
  if (!given) return out;
  for (const auto& [k, v] : *given) {
    if (k == "keys") out["keys"] = Upper(v);
    if (k == "rows_per_partition") {
      out[k] = ParseInt(v) ? v : Upper(v);
    }
  }
  return out;
}

std::map<std::string, std::string> Compaction(
    const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> out;
  auto it = extra.find("compaction");
  if (it != extra.end()) {
    if (auto given = ParseOptionMap(it->second)) out = *given;
  }
  auto cls = out.find("class");
  out["class"] = WithPackage(
      cls == out.end() ? "SizeTieredCompactionStrategy" : cls->second,
      kCompactionPackage);
  out.emplace("max_threshold", "32");
  out.emplace("min_threshold", "4");
  return out;
}

std::map<std::string, std::string> Compression(
    const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> given;
  auto it = extra.find("compression");
  if (it != extra.end()) {
    if (auto parsed = ParseOptionMap(it->second)) given = *parsed;
  }
  auto enabled = given.find("enabled");
  bool disabled = enabled != given.end() && Lower(enabled->second) == "false";
  auto cls = given.find("class");
  if (cls == given.end()) cls = given.find("sstable_compression");
  if (cls != given.end() && cls->second.empty()) disabled = true;
  if (disabled) return {{"enabled", "false"}};
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : given) {
    if (k == "class" || k == "sstable_compression" || k == "enabled" ||
        k == "chunk_length_kb" || k == "chunk_length_in_kb")
      continue;
    out[k] = v;
  }
  out["class"] = WithPackage(cls == given.end() ? "LZ4Compressor" : cls->second,
                             kCompressionPackage);
  auto chunk = given.find("chunk_length_in_kb");
  if (chunk == given.end()) chunk = given.find("chunk_length_kb");
  out["chunk_length_in_kb"] = chunk == given.end() ? "16" : chunk->second;
  return out;
}

// 0xcafe -> the raw bytes; other text is kept as its own bytes.
std::string HexBlob(std::string_view text) {
  if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
      text.size() % 2 != 0)
    return std::string(text);
  std::string out;
  for (size_t i = 2; i < text.size(); i += 2) {
    int hi = std::isxdigit(static_cast<unsigned char>(text[i]));
    int lo = std::isxdigit(static_cast<unsigned char>(text[i + 1]));
    if (!hi || !lo) return std::string(text);
    out.push_back(static_cast<char>(
        std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

}  // namespace

std::string UnquoteOption(std::string_view text) {
  if (text.size() < 2 || text.front() != '\'' || text.back() != '\'')
    return std::string(text);
  std::string out;
  for (size_t i = 1; i + 1 < text.size(); i++) {
    out.push_back(text[i]);
    if (text[i] == '\'' && i + 2 < text.size() && text[i + 1] == '\'') i++;
  }
  return out;
}

std::optional<std::map<std::string, std::string>> ParseOptionMap(
    std::string_view text) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      i++;
  };
  // One 'quoted' or bare term; bare terms end at , : } or space.
  auto term = [&]() -> std::optional<std::string> {
    skip_space();
    if (i >= text.size()) return std::nullopt;
    std::string out;
    if (text[i] == '\'') {
      i++;
      while (true) {
        if (i >= text.size()) return std::nullopt;
        if (text[i] == '\'') {
          if (i + 1 < text.size() && text[i + 1] == '\'') {
            out.push_back('\'');
            i += 2;
            continue;
          }
          i++;
          return out;
        }
        out.push_back(text[i++]);
      }
    }
    while (i < text.size() && text[i] != ',' && text[i] != ':' &&
           text[i] != '}' && !std::isspace(static_cast<unsigned char>(text[i])))
      out.push_back(text[i++]);
    if (out.empty()) return std::nullopt;
    return out;
  };
  skip_space();
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  i++;
  std::map<std::string, std::string> out;
  skip_space();
  if (i < text.size() && text[i] == '}') return out;
  while (true) {
    auto key = term();
    skip_space();
    if (!key || i >= text.size() || text[i] != ':') return std::nullopt;
    i++;
    auto value = term();
    if (!value) return std::nullopt;
    out[*key] = *value;
    skip_space();
    if (i >= text.size()) return std::nullopt;
    if (text[i] == '}') return out;
    if (text[i] != ',') return std::nullopt;
    i++;
  }
}

TableParams ResolveTableParams(const TableOptions& options) {
  const auto& extra = options.extra;
  TableParams p;
  p.comment = options.comment;
  p.default_time_to_live = options.default_time_to_live;
  p.gc_grace_seconds = options.gc_grace_seconds;
  p.caching = Caching(extra);
  p.compaction = Compaction(extra);
  p.compression = Compression(extra);
  auto find = [&](std::string_view key) -> const std::string* {
    auto it = extra.find(std::string(key));
    return it == extra.end() ? nullptr : &it->second;
  };
  // CompactionParams.defaultBloomFilterFbChance.
  bool leveled = p.compaction["class"] ==
                 std::string(kCompactionPackage) + "LeveledCompactionStrategy";
  p.bloom_filter_fp_chance = leveled ? 0.1 : 0.01;
  if (const std::string* v = find("bloom_filter_fp_chance")) {
    if (auto d = ParseDouble(*v)) p.bloom_filter_fp_chance = *d;
  }
  if (const std::string* v = find("crc_check_chance")) {
    if (auto d = ParseDouble(*v)) p.crc_check_chance = *d;
  }
  if (const std::string* v = find("max_index_interval")) {
    if (auto n = ParseInt(*v)) p.max_index_interval = *n;
  }
  if (const std::string* v = find("min_index_interval")) {
    if (auto n = ParseInt(*v)) p.min_index_interval = *n;
  }
  if (const std::string* v = find("memtable_flush_period_in_ms")) {
    if (auto n = ParseInt(*v)) p.memtable_flush_period_in_ms = *n;
  }
  if (const std::string* v = find("speculative_retry"))
    p.speculative_retry = NormalizeRetryPolicy(*v);
  if (const std::string* v = find("additional_write_policy"))
    p.additional_write_policy = NormalizeRetryPolicy(*v);
  if (const std::string* v = find("read_repair"))
    p.read_repair = Upper(UnquoteOption(*v));
  if (const std::string* v = find("cdc")) {
    std::string b = Lower(UnquoteOption(*v));
    p.cdc = b == "true" || b == "1" || b == "yes";
  }
  if (const std::string* v = find("extensions")) {
    if (auto m = ParseOptionMap(*v)) {
      for (const auto& [k, blob] : *m) p.extensions[k] = HexBlob(blob);
    }
  }
  return p;
}

}  // namespace keywise::system
