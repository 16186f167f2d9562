#include "server/trace_parameters.h"

#include <cstdio>

#include "auth/password_obfuscator.h"
#include "protocol/consistency.h"
#include "schema/value_codec.h"

namespace keywise::server {
namespace {

using Parameters = tracing::TraceState::Parameters;

void AddLevels(const query::QueryOptions& options, Parameters* out) {
  (*out)["consistency_level"] =
      std::string(protocol::ConsistencyName(options.consistency));
  (*out)["serial_consistency_level"] = std::string(protocol::ConsistencyName(
      options.serial_consistency.value_or(Consistency::kSerial)));
}

void AddPageSize(const query::QueryOptions& options, Parameters* out) {
  if (options.page_size > 0) {
    (*out)["page_size"] = std::to_string(options.page_size);
  }
}

bool Quoted(TypeKind kind) {
  switch (kind) {
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
    case TypeKind::kInet:
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
      return true;
    default:
      return false;
  }
}

// A bound value as CQL would write it (Cassandra's toCQLLiteral, near
// enough): text-like values quoted, "null" for null.
std::string Literal(const CqlType& type, const query::Value& value) {
  if (value.is_null()) return "null";
  if (value.is_unset()) return "unset";
  std::string text = FormatValue(type, value.bytes);
  if (Quoted(type.kind())) {
    std::string quoted = "'";
    for (char c : text) {
      quoted += c;
      if (c == '\'') quoted += '\'';
    }
    text = quoted + "'";
  }
  if (text.size() > kMaxTracedValueChars) {
    text = text.substr(0, kMaxTracedValueChars) + "...'";
  }
  return text;
}

}  // namespace

Parameters QueryTraceParameters(std::string_view query,
                                const query::QueryOptions& options) {
  Parameters out;
  out["query"] = auth::ObfuscatePasswords(query);
  AddLevels(options, &out);
  AddPageSize(options, &out);
  return out;
}

Parameters ExecuteTraceParameters(const query::PreparedStatement& statement,
                                  const query::QueryOptions& options) {
  Parameters out = QueryTraceParameters(statement.query_text, options);
  // A statement with a password may bind it: no bound value is kept.
  if (auth::MentionsPassword(statement.query_text)) return out;
  for (size_t i = 0; i < statement.bind_specs.size(); ++i) {
    const query::ColumnSpec& spec = statement.bind_specs[i];
    // Named values arrive in the client's order: find this marker's.
    const query::Value* value = nullptr;
    if (options.value_names.empty()) {
      if (i < options.values.size()) value = &options.values[i];
    } else {
      for (size_t j = 0; j < options.value_names.size(); ++j) {
        if (options.value_names[j] == spec.name) value = &options.values[j];
      }
    }
    if (value == nullptr || spec.type == nullptr) continue;
    out["bound_var_" + std::to_string(i) + "_" + spec.name] =
        Literal(*spec.type, *value);
  }
  return out;
}

Parameters BatchTraceParameters(const query::QueryOptions& options) {
  Parameters out;
  AddLevels(options, &out);
  return out;
}

std::string ResponseActivity(std::string_view outcome, size_t bytes) {
  return "Response ready: " + std::string(outcome) + ", " +
         std::to_string(bytes) + " bytes";
}

std::string ErrorOutcome(const Status& status) {
  char code[16];
  std::snprintf(code, sizeof(code), "0x%04X",
                static_cast<unsigned>(status.code()));
  return "ERROR " + std::string(ErrorCodeName(status.code())) + " (" + code +
         "): " + status.message();
}

}  // namespace keywise::server
