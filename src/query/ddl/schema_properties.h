// SchemaProperties: the `WITH name = value AND ...` clause of a DDL
// statement, checked and read the way Cassandra 4's PropertyDefinitions
// does.
//
// Contract: built once from the raw properties of one statement, then
// read-only. Each property is either a simple value (the raw text of a
// constant or bare identifier) or a map of raw texts; anything else (bind
// markers, lists, nested maps) is a SyntaxError at build time. The typed
// getters return nullopt when the property is absent and Cassandra's
// SyntaxError when the value has the wrong shape or does not parse.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "cql/ast_ddl.h"

namespace keywise::query {

using PropertyMap = std::map<std::string, std::string>;

class SchemaProperties {
 public:
  // SyntaxError "Multiple definition for property 'x'" for repeats.
  static Result<SchemaProperties> From(
      const std::vector<cql::Property>& properties);

  bool Has(std::string_view name) const { return values_.count(name) > 0; }
  bool empty() const { return values_.empty(); }

  // SyntaxError "Unknown property 'x'" for the first name (in statement
  // order) not in `known`.
  Status CheckKnown(const std::set<std::string, std::less<>>& known) const;

  Result<std::optional<std::string>> GetString(std::string_view name) const;
  Result<std::optional<PropertyMap>> GetMap(std::string_view name) const;
  // Java Integer.parseInt / Double.parseDouble rules.
  Result<std::optional<int32_t>> GetInt(std::string_view name) const;
  Result<std::optional<double>> GetDouble(std::string_view name) const;
  // Cassandra's getBoolean: true for 1, true or yes (any case), else false.
  Result<std::optional<bool>> GetBoolean(std::string_view name) const;

  // The value as CQL text for TableOptions::extra: strings quoted, numbers,
  // booleans and identifiers bare, maps as {'k': 'v', ...}.
  std::string CqlText(std::string_view name) const;

 private:
  struct Value {
    bool is_map = false;
    bool quoted = false;  // a string literal
    std::string text;
    PropertyMap map;
  };
  const Value* Find(std::string_view name) const;

  std::vector<std::string> order_;  // statement order, for error messages
  std::map<std::string, Value, std::less<>> values_;
};

// Helpers shared by the option validators.
std::optional<int32_t> ParseJavaInt(std::string_view text);
std::optional<double> ParseJavaDouble(std::string_view text);
// Java's Double.toString: "0.0", "1.5", "6.71E-5".
std::string JavaDoubleString(double value);
// 'text' with single quotes doubled.
std::string QuoteCql(std::string_view text);
std::string MapToCql(const PropertyMap& map);

}  // namespace keywise::query
