#include "advisor/key_what_if.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "common/coding.h"
#include "common/token.h"
#include "schema/partitioner.h"
#include "storage/partition_key.h"

namespace keywise::advisor {
namespace {

// A recursive-descent reader of the key forms in the header.
class KeyReader {
 public:
  explicit KeyReader(std::string_view text) : text_(text) {}

  Result<KeyShape> Read() {
    KeyShape key;
    key.text = std::string(text_);
    Skip();
    if (!Eat('(')) {
      KW_ASSIGN_OR_RETURN(KeyElement e, Element());
      key.partition.push_back(std::move(e));
      return End(std::move(key));
    }
    Skip();
    if (Eat('(')) {
      do {
        KW_ASSIGN_OR_RETURN(KeyElement e, Element());
        key.partition.push_back(std::move(e));
      } while (Eat(','));
      if (!Eat(')')) return Expected("',' or ')'");
    } else {
      KW_ASSIGN_OR_RETURN(KeyElement e, Element());
      key.partition.push_back(std::move(e));
    }
    while (Eat(',')) {
      const size_t at = pos_;
      KW_ASSIGN_OR_RETURN(KeyElement e, Element());
      if (e.buckets > 0) {
        pos_ = at;
        return Expected("a clustering column (a bucket column must be in the "
                        "partition key)");
      }
      key.clustering.push_back(std::move(e.column));
    }
    if (!Eat(')')) return Expected("',' or ')'");
    return End(std::move(key));
  }

 private:
  void Skip() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      Skip();
      return true;
    }
    return false;
  }
  Status Expected(const std::string& what) const {
    const std::string where = pos_ >= text_.size()
                                  ? "the end"
                                  : "character " + std::to_string(pos_ + 1);
    return Status::Invalid("Bad key \"" + std::string(text_) + "\" at " +
                           where + ": expected " + what);
  }
  Result<KeyShape> End(KeyShape key) {
    Skip();
    if (pos_ != text_.size()) return Expected("the end of the key");
    return key;
  }
  // An identifier as CQL reads it: unquoted folds to lower case; "Quoted"
  // keeps its case, "" is a quote.
  Result<std::string> Name() {
    Skip();
    std::string name;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      for (++pos_; pos_ < text_.size(); ++pos_) {
        if (text_[pos_] != '"') {
          name += text_[pos_];
        } else if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          name += '"';
          ++pos_;
        } else {
          break;
        }
      }
      if (pos_ >= text_.size() || name.empty()) {
        return Expected("a closing '\"' after a non-empty name");
      }
      ++pos_;
      return name;
    }
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_')) {
      name += static_cast<char>(
          std::tolower(static_cast<unsigned char>(text_[pos_])));
      ++pos_;
    }
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
      return Expected("a column name");
    }
    return name;
  }
  Result<KeyElement> Element() {
    KeyElement e;
    KW_ASSIGN_OR_RETURN(e.column, Name());
    if (!Eat('%')) return e;
    long n = 0;
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_])) && n <= 65536) {
      n = n * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start || n < 2 || n > 65536) {
      pos_ = start;
      return Expected("a bucket count from 2 to 65536 after '%'");
    }
    e.buckets = static_cast<int>(n);
    return e;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string Grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

uint64_t Max(const std::vector<uint64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace

Result<KeyShape> ParseKeyShape(std::string_view text) {
  return KeyReader(text).Read();
}

Placement Placement::Simulated(int nodes, int tablets) {
  Placement p;
  for (int n = 0; n < nodes; ++n) {
    p.nodes.push_back("node" + std::to_string(n + 1));
  }
  // Equal slices of the 2^64 tokens, computed unsigned (no overflow).
  const uint64_t width = ~uint64_t{0} / static_cast<uint64_t>(tablets);
  for (int t = 0; t < tablets; ++t) {
    const uint64_t offset =
        t + 1 == tablets ? ~uint64_t{0} : width * static_cast<uint64_t>(t + 1);
    p.last_tokens.push_back(static_cast<int64_t>(
        offset ^ (uint64_t{1} << 63)));  // from INT64_MIN upwards
    p.replicas.push_back({t % nodes});
  }
  return p;
}

size_t Placement::TabletOf(int64_t token) const {
  auto it = std::lower_bound(last_tokens.begin(), last_tokens.end(), token);
  return it == last_tokens.end() ? last_tokens.size() - 1
                                 : static_cast<size_t>(it - last_tokens.begin());
}

int64_t RecentWriteCutoff(const Sample& sample, double share) {
  std::vector<int64_t> times;
  for (const SampledRow& row : sample.rows) {
    if (row.write_time != std::numeric_limits<int64_t>::min()) {
      times.push_back(row.write_time);
    }
  }
  if (times.empty()) return std::numeric_limits<int64_t>::max();
  const size_t recent = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(share * static_cast<double>(times.size()))));
  std::nth_element(times.begin(), times.end() - recent, times.end());
  return *(times.end() - recent);
}

KeySpread Spread(const Sample& sample, const KeyShape& key,
                 const Placement& placement, int64_t recent_cutoff) {
  std::unordered_map<std::string, size_t> column_index;
  for (size_t i = 0; i < sample.columns.size(); ++i) {
    column_index[sample.columns[i]] = i;
  }
  auto index_of = [&](const std::string& name) {
    return column_index.at(name);
  };
  std::vector<size_t> primary_key;
  for (const std::string& c : sample.primary_key) primary_key.push_back(index_of(c));
  std::vector<long> partition;  // column index, or -buckets
  for (const KeyElement& e : key.partition) {
    partition.push_back(e.buckets > 0 ? -static_cast<long>(e.buckets)
                                      : static_cast<long>(index_of(e.column)));
  }
  std::vector<size_t> clustering;
  for (const std::string& c : key.clustering) clustering.push_back(index_of(c));

  KeySpread out;
  out.key_text = key.text;
  out.rows_per_node.assign(placement.nodes.size(), 0);
  out.writes_per_node.assign(placement.nodes.size(), 0);
  out.rows_per_tablet.assign(placement.last_tokens.size(), 0);
  out.writes_per_tablet.assign(placement.last_tokens.size(), 0);
  std::unordered_map<std::string, uint64_t> partitions;
  std::unordered_set<std::string> full_keys;
  std::vector<std::string> components;
  for (const SampledRow& row : sample.rows) {
    auto usable = [&](size_t i) {
      return i < row.values.size() && row.values[i] &&
             row.values[i]->size() <= kMaxKeyComponentSize;
    };
    bool ok = std::all_of(primary_key.begin(), primary_key.end(), usable);
    components.clear();
    for (long p : partition) {
      if (p >= 0) {
        ok = ok && usable(static_cast<size_t>(p));
        if (ok) components.push_back(*row.values[static_cast<size_t>(p)]);
        continue;
      }
      if (!ok) continue;
      // The bucket: today's whole primary key hashed, modulo the count.
      std::vector<std::string> pk;
      for (size_t i : primary_key) pk.push_back(*row.values[i]);
      const uint64_t hash =
          static_cast<uint64_t>(TokenOfKey(SerializePartitionKey(pk)).value);
      std::string bucket;
      PutFixed32BE(&bucket, static_cast<uint32_t>(hash % static_cast<uint64_t>(-p)));
      components.push_back(std::move(bucket));
    }
    for (size_t c : clustering) ok = ok && usable(c);
    if (!ok) {
      ++out.unplaceable;
      continue;
    }
    ++out.rows;
    const std::string serialized = SerializePartitionKey(components);
    ++partitions[serialized];
    for (size_t c : clustering) components.push_back(*row.values[c]);
    if (!full_keys.insert(SerializePartitionKey(components)).second) {
      ++out.collisions;
    }
    const Token token =
        key.placement.placement == PlacementKind::kHash
            ? TokenOfKey(serialized)
            : PlacedToken(key.placement, *key.first_key_type, serialized);
    const size_t tablet = placement.TabletOf(token.value);
    const bool recent = row.write_time >= recent_cutoff;
    ++out.rows_per_tablet[tablet];
    if (recent) ++out.writes_per_tablet[tablet];
    for (int node : placement.replicas[tablet]) {
      ++out.rows_per_node[static_cast<size_t>(node)];
      if (recent) ++out.writes_per_node[static_cast<size_t>(node)];
    }
  }
  out.partitions = partitions.size();
  uint64_t largest = 0;
  for (const auto& [k, n] : partitions) largest = std::max(largest, n);
  // A partition within one of today's partitions was read whole (the
  // sample holds whole partitions of today's key); any other gathers rows
  // from partitions the sample left out, in proportion.
  bool within = true;
  for (size_t i = 0; i < sample.partition_key_size; ++i) {
    within = within && std::any_of(key.partition.begin(), key.partition.end(),
                                   [&](const KeyElement& e) {
                                     return e.buckets == 0 &&
                                            e.column == sample.primary_key[i];
                                   });
  }
  out.largest_estimated = !within && sample.ring_fraction < 1;
  out.largest_partition_rows =
      out.largest_estimated ? static_cast<double>(largest) / sample.ring_fraction
                            : static_cast<double>(largest);
  return out;
}

double Skew(const std::vector<uint64_t>& counts) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  if (total == 0) return 0;
  return static_cast<double>(Max(counts)) * static_cast<double>(counts.size()) /
         static_cast<double>(total);
}

std::string WhatIfReport(const std::string& table, const Sample& sample,
                         const Placement& placement, bool simulated,
                         const KeySpread& current, const KeySpread& proposed,
                         bool writes_known) {
  std::string out = "What-if for " + table + ": today's key " +
                    current.key_text + ", proposed " + proposed.key_text +
                    "\n";
  const uint64_t rows = sample.rows.size();
  if (sample.ring_fraction >= 1) {
    out += "Sample: every row of the table (" + Grouped(rows) + ")\n";
  } else {
    out += "Sample: the rows of " + Fixed(100 * sample.ring_fraction, 2) +
           "% of the token ring, " + Grouped(rows) + " of about " +
           Grouped(static_cast<uint64_t>(
               std::llround(static_cast<double>(rows) / sample.ring_fraction))) +
           "\n";
  }
  uint64_t recent = 0;
  for (uint64_t w : current.writes_per_tablet) recent += w;
  out += writes_known
             ? "Recent writes: the newest " + Grouped(recent) +
                   " rows by write time\n"
             : std::string("Recent writes: not known (no sampled row has a "
                           "write time); every sampled row counts as one\n");
  std::string nodes;
  for (const std::string& n : placement.nodes) nodes += (nodes.empty() ? "" : ", ") + n;
  out += simulated
             ? "Placement: " + std::to_string(placement.last_tokens.size()) +
                   " equal tablets on " + std::to_string(placement.nodes.size()) +
                   " simulated nodes (" + nodes +
                   "), one replica each: the node asked holds every tablet\n"
             : "Placement: the table's " +
                   std::to_string(placement.last_tokens.size()) +
                   " tablets on " + std::to_string(placement.nodes.size()) +
                   " nodes (" + nodes + ")\n";

  auto counts = [](const std::vector<uint64_t>& v) {
    std::string s;
    for (uint64_t c : v) s += (s.empty() ? "" : " ") + Grouped(c);
    return s;
  };
  auto largest = [](const KeySpread& k) {
    return (k.largest_estimated ? "about " : "") +
           Grouped(static_cast<uint64_t>(std::llround(k.largest_partition_rows)));
  };
  struct Line {
    std::string label, today, proposed;
  };
  std::vector<Line> lines = {
      {"", "today", "proposed"},
      {"partitions in the sample", Grouped(current.partitions),
       Grouped(proposed.partitions)},
      {"largest partition, rows", largest(current), largest(proposed)},
      {"rows per node", counts(current.rows_per_node),
       counts(proposed.rows_per_node)},
      {"  highest / mean", Fixed(Skew(current.rows_per_node), 2),
       Fixed(Skew(proposed.rows_per_node), 2)},
      {"recent writes per node", counts(current.writes_per_node),
       counts(proposed.writes_per_node)},
      {"  highest / mean", Fixed(Skew(current.writes_per_node), 2),
       Fixed(Skew(proposed.writes_per_node), 2)},
      {"rows per tablet, highest / mean", Fixed(Skew(current.rows_per_tablet), 2),
       Fixed(Skew(proposed.rows_per_tablet), 2)},
      {"recent writes per tablet, highest / mean",
       Fixed(Skew(current.writes_per_tablet), 2),
       Fixed(Skew(proposed.writes_per_tablet), 2)},
  };
  size_t label_width = 0, today_width = 0;
  for (const Line& l : lines) {
    label_width = std::max(label_width, l.label.size());
    today_width = std::max(today_width, l.today.size());
  }
  out += "\n";
  for (const Line& l : lines) {
    out += l.label + std::string(label_width - l.label.size() + 2, ' ') +
           l.today + std::string(today_width - l.today.size() + 2, ' ') +
           l.proposed + "\n";
  }
  out += "\n";
  if (proposed.unplaceable > 0) {
    out += Grouped(proposed.unplaceable) +
           " sampled rows have a null (or over 64 KiB) value in a proposed "
           "key column: such a row cannot be written under that key.\n";
  }
  if (proposed.collisions > 0) {
    out += Grouped(proposed.collisions) +
           " sampled rows share their whole proposed primary key with another "
           "row and would overwrite it: keep today's key columns in the "
           "proposed key.\n";
  }
  const double before = Skew(current.writes_per_node);
  const double after = Skew(proposed.writes_per_node);
  const double tablets_before = Skew(current.writes_per_tablet);
  const double tablets_after = Skew(proposed.writes_per_tablet);
  if (after > 0 && before > after * 1.1) {
    out += "The proposed key spreads recent writes over the nodes " +
           Fixed(before / after, 1) + "x more evenly.\n";
  } else if (before > 0 && after > before * 1.1) {
    out += "The proposed key spreads recent writes over the nodes " +
           Fixed(after / before, 1) + "x less evenly.\n";
  } else {
    out += "Recent writes spread over the nodes about as evenly under both "
           "keys";
    out += tablets_after > 0 && tablets_before > tablets_after * 1.1
               ? "; over the tablets the proposed key spreads them " +
                     Fixed(tablets_before / tablets_after, 1) + "x more evenly.\n"
               : ".\n";
  }
  return out;
}

}  // namespace keywise::advisor
