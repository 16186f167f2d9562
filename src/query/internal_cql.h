// InternalCql: the node's own CQL statements, run through its
// QueryProcessor as an internal client (not counted in metrics or workload
// statistics): the console's reads, so it shows what the same SELECT shows
// a driver (system_views.*, system.*), and the local role store's reads and
// writes of system_auth. Rows come back as cells by column name, decoded by
// the typed getters. The node's statements are fixed: an Invalid or
// SyntaxError answer is the node's fault and comes back as ServerError.
//
// Contract: the processor outlives the reader. Select blocks the calling
// thread until the statement answers (in a cluster it may wait on other
// nodes): call it from the console's own worker, never from an I/O loop.
// Thread-safe as the processor is.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "query/query_processor.h"

namespace keywise::query {

class CqlRow {
 public:
  using Columns = std::shared_ptr<const std::vector<ColumnSpec>>;
  CqlRow(Columns columns, std::vector<std::optional<std::string>> cells)
      : columns_(std::move(columns)), cells_(std::move(cells)) {}
  // The cell's text (text/ascii), number (int, bigint, counter, timestamp
  // in ms) or double; the default when null, absent or not of that type.
  std::string Text(std::string_view column) const;
  int64_t Int(std::string_view column) const;
  double Double(std::string_view column) const;
  bool Bool(std::string_view column) const;  // false when null or absent
  bool IsNull(std::string_view column) const;
  // The elements of a set<text> or list<text> cell; empty when null.
  std::vector<std::string> TextSet(std::string_view column) const;
  // The cell as its JSON value (schema/value_codec.h's FormatJson), null
  // when null or absent.
  std::string Json(std::string_view column) const;

 private:
  // nullptr when absent or null.
  const std::string* Cell(std::string_view column, size_t* index) const;
  Columns columns_;
  std::vector<std::optional<std::string>> cells_;
};

struct CqlRows {
  std::vector<CqlRow> rows;
};

class InternalCql {
 public:
  explicit InternalCql(QueryProcessor* processor)
      : processor_(processor) {}
  // Runs `cql` (a SELECT) with `values` bound to its markers (text
  // values: the console binds names only), at consistency ONE, every page.
  Result<CqlRows> Select(
      std::string_view cql,
      const std::vector<std::string>& text_values = {}) const;
  // Runs any statement (a write, a BATCH) with `values` bound, at
  // consistency ONE.
  Status Execute(std::string_view cql,
                 const std::vector<std::string>& text_values = {}) const;
  QueryProcessor& processor() const { return *processor_; }

 private:
  QueryProcessor* processor_;
};

}  // namespace keywise::query
