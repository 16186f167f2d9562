// Names of the keyspaces Keywise creates itself, and the predicates the query
// layer uses to keep user statements away from them.
//
// Contract: pure, thread-safe. Comparisons ignore ASCII case, as Cassandra
// 4's SchemaConstants do (a quoted "System" is still the system keyspace).
//   local system:      system, system_schema (node-local, LocalStrategy)
//   replicated system: system_auth, system_distributed, system_traces
//   virtual system:    system_virtual_schema, system_views (not listed in
//                      system_schema.*, only in system_virtual_schema.*)
#pragma once

#include <string_view>

namespace keywise {

inline constexpr std::string_view kSystemKeyspaceName = "system";
inline constexpr std::string_view kSchemaKeyspaceName = "system_schema";
inline constexpr std::string_view kAuthKeyspaceName = "system_auth";
inline constexpr std::string_view kDistributedKeyspaceName =
    "system_distributed";
inline constexpr std::string_view kTracesKeyspaceName = "system_traces";
inline constexpr std::string_view kVirtualSchemaKeyspaceName =
    "system_virtual_schema";
inline constexpr std::string_view kViewsKeyspaceName = "system_views";

namespace system_keyspace_internal {
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
}  // namespace system_keyspace_internal

// system, system_schema: no user DDL or DML at all.
inline bool IsLocalSystemKeyspace(std::string_view name) {
  using system_keyspace_internal::EqualsIgnoreCase;
  return EqualsIgnoreCase(name, kSystemKeyspaceName) ||
         EqualsIgnoreCase(name, kSchemaKeyspaceName);
}

// system_auth, system_distributed, system_traces: Cassandra lets a superuser
// ALTER their replication, and refuses CREATE/DROP of them and their tables.
inline bool IsReplicatedSystemKeyspace(std::string_view name) {
  using system_keyspace_internal::EqualsIgnoreCase;
  return EqualsIgnoreCase(name, kAuthKeyspaceName) ||
         EqualsIgnoreCase(name, kDistributedKeyspaceName) ||
         EqualsIgnoreCase(name, kTracesKeyspaceName);
}

// system_virtual_schema, system_views: read-only.
inline bool IsVirtualSystemKeyspace(std::string_view name) {
  using system_keyspace_internal::EqualsIgnoreCase;
  return EqualsIgnoreCase(name, kVirtualSchemaKeyspaceName) ||
         EqualsIgnoreCase(name, kViewsKeyspaceName);
}

// Any keyspace Keywise owns (Cassandra's SchemaConstants.isSystemKeyspace).
inline bool IsSystemKeyspace(std::string_view name) {
  return IsLocalSystemKeyspace(name) || IsReplicatedSystemKeyspace(name) ||
         IsVirtualSystemKeyspace(name);
}

}  // namespace keywise
