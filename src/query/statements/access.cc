#include "query/statements/access.h"

#include <string>
#include <type_traits>
#include <variant>

#include "schema/system_keyspace_names.h"

namespace keywise::query {
namespace {

using auth::Permission;
using auth::Resource;

// The keyspace a name refers to: its own, else the session's; empty when
// neither (preparing reports it).
std::string AccessKeyspace(const PrepareContext& ctx,
                           const cql::QualifiedName& name) {
  return name.keyspace.empty() ? ctx.keyspace : name.keyspace;
}

// A table's resource; a materialized view's or an index table's is its
// base table's (Cassandra reads views with SELECT on the base).
std::optional<Resource> TableResource(const PrepareContext& ctx,
                                      const cql::QualifiedName& name) {
  std::string ks = AccessKeyspace(ctx, name);
  if (ks.empty()) return std::nullopt;
  if (ctx.catalog != nullptr) {
    TableDefPtr table = ctx.catalog->snapshot()->FindTable(ks, name.name);
    if (table != nullptr &&
        (table->IsMaterializedView() || table->IsIndexTable())) {
      return Resource::Table(std::move(ks), table->view->base_name);
    }
  }
  return Resource::Table(std::move(ks), name.name);
}

void Need(std::vector<Access>* out, Permission p,
          std::optional<Resource> resource) {
  if (resource) out->push_back(Access{p, std::move(*resource)});
}

template <typename Write>
void NeedWrite(const Write& s, const PrepareContext& ctx,
               std::vector<Access>* out) {
  std::optional<Resource> table = TableResource(ctx, s.table);
  Need(out, Permission::kModify, table);
  bool conditional = false;
  if constexpr (std::is_same_v<Write, cql::InsertStatement>) {
    conditional = s.if_not_exists;
  } else {
    conditional = s.if_exists || !s.conditions.empty();
  }
  // A conditional write reads: it could stand in for a SELECT.
  if (conditional) Need(out, Permission::kSelect, table);
}

std::optional<Resource> KeyspaceResource(std::string ks) {
  if (ks.empty()) return std::nullopt;
  return Resource::Keyspace(std::move(ks));
}

// The base table of an index or view named in DDL, when it exists.
std::optional<Resource> BaseOf(TableDefPtr table) {
  if (table == nullptr || table->view == nullptr) return std::nullopt;
  return Resource::Table(table->keyspace, table->view->base_name);
}

template <typename T>
void CollectOne(const T& s, const PrepareContext& ctx,
                std::vector<Access>* out) {
  using P = Permission;
  if constexpr (std::is_same_v<T, cql::SelectStatement>) {
    Need(out, P::kSelect, TableResource(ctx, s.table));
  } else if constexpr (std::is_same_v<T, cql::InsertStatement> ||
                       std::is_same_v<T, cql::UpdateStatement> ||
                       std::is_same_v<T, cql::DeleteStatement>) {
    NeedWrite(s, ctx, out);
  } else if constexpr (std::is_same_v<T, cql::BatchStatement>) {
    for (const cql::BatchChild& child : s.statements) {
      std::visit([&](const auto& c) { NeedWrite(c, ctx, out); }, child);
    }
  } else if constexpr (std::is_same_v<T, cql::ExplainStatement>) {
    std::visit([&](const auto& inner) { CollectOne(inner, ctx, out); },
               s.statement);
  } else if constexpr (std::is_same_v<T, cql::TruncateStatement>) {
    Need(out, P::kModify, TableResource(ctx, s.table));
  } else if constexpr (std::is_same_v<T, cql::CreateKeyspaceStatement>) {
    Need(out, P::kCreate, Resource::AllKeyspaces());
  } else if constexpr (std::is_same_v<T, cql::AlterKeyspaceStatement>) {
    Need(out, P::kAlter, KeyspaceResource(s.keyspace));
  } else if constexpr (std::is_same_v<T, cql::DropKeyspaceStatement>) {
    Need(out, P::kDrop, KeyspaceResource(s.keyspace));
  } else if constexpr (std::is_same_v<T, cql::CreateTableStatement> ||
                       std::is_same_v<T, cql::CreateTypeStatement>) {
    const cql::QualifiedName& name = [&]() -> const cql::QualifiedName& {
      if constexpr (std::is_same_v<T, cql::CreateTableStatement>) {
        return s.table;
      } else {
        return s.name;
      }
    }();
    Need(out, P::kCreate, KeyspaceResource(AccessKeyspace(ctx, name)));
  } else if constexpr (std::is_same_v<T, cql::AlterTypeStatement>) {
    Need(out, P::kAlter, KeyspaceResource(AccessKeyspace(ctx, s.name)));
  } else if constexpr (std::is_same_v<T, cql::DropTypeStatement>) {
    Need(out, P::kDrop, KeyspaceResource(AccessKeyspace(ctx, s.name)));
  } else if constexpr (std::is_same_v<T, cql::AlterTableStatement>) {
    Need(out, P::kAlter, TableResource(ctx, s.table));
  } else if constexpr (std::is_same_v<T, cql::DropTableStatement>) {
    Need(out, P::kDrop, TableResource(ctx, s.table));
  } else if constexpr (std::is_same_v<T, cql::CreateIndexStatement>) {
    Need(out, P::kAlter, TableResource(ctx, s.table));
  } else if constexpr (std::is_same_v<T, cql::CreateViewStatement>) {
    Need(out, P::kAlter, TableResource(ctx, s.base));
  } else if constexpr (std::is_same_v<T, cql::DropIndexStatement>) {
    const std::string ks = AccessKeyspace(ctx, s.index);
    if (ctx.catalog != nullptr && !ks.empty()) {
      Need(out, P::kAlter,
           BaseOf(ctx.catalog->snapshot()->FindIndex(ks, s.index.name)));
    }
  } else if constexpr (std::is_same_v<T, cql::AlterViewStatement> ||
                       std::is_same_v<T, cql::DropViewStatement>) {
    const std::string ks = AccessKeyspace(ctx, s.view);
    if (ctx.catalog != nullptr && !ks.empty()) {
      Need(out, P::kAlter,
           BaseOf(ctx.catalog->snapshot()->FindTable(ks, s.view.name)));
    }
  }
  // USE, role and permission statements: nothing here.
}

void Collect(const cql::Statement& statement, const PrepareContext& ctx,
             std::vector<Access>* out) {
  std::visit([&](const auto& s) { CollectOne(s, ctx, out); }, statement);
}

}  // namespace

std::vector<Access> RequiredAccess(const cql::Statement& statement,
                                   const PrepareContext& ctx) {
  std::vector<Access> out;
  Collect(statement, ctx, &out);
  return out;
}

bool ReadableByEveryone(std::string_view keyspace, std::string_view table) {
  if (keyspace == kSchemaKeyspaceName ||
      keyspace == kVirtualSchemaKeyspaceName) {
    return true;
  }
  return keyspace == kSystemKeyspaceName &&
         (table == "local" || table == "peers" || table == "peers_v2" ||
          table == "tablets");
}

Status CheckAccess(const std::vector<Access>& access, std::string_view user,
                   const auth::AuthState& state, const SchemaSnapshot& schema) {
  if (state.IsSuper(user)) return Status::OK();
  for (const Access& a : access) {
    const Resource& r = a.resource;
    const bool table = r.kind() == Resource::Kind::kTable;
    if (a.permission == Permission::kSelect && table &&
        ReadableByEveryone(r.first(), r.table())) {
      continue;
    }
    KW_RETURN_IF_ERROR(state.Authorize(user, a.permission, r));
    if (a.permission != Permission::kModify || !table) continue;
    TableDefPtr def = schema.FindTable(r.first(), r.table());
    if (def == nullptr) continue;
    bool has_views = false;
    for (const TableDefPtr& view : schema.ViewsOf(def->id)) {
      if (!view->IsMaterializedView()) continue;
      if (!has_views) {
        KW_RETURN_IF_ERROR(state.Authorize(user, Permission::kSelect, r));
        has_views = true;
      }
      KW_RETURN_IF_ERROR(state.Authorize(
          user, Permission::kModify, Resource::Table(r.first(), view->name)));
    }
  }
  return Status::OK();
}

}  // namespace keywise::query
