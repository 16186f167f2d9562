// PrepareSchemaStatement: dispatch of USE, keyspace and table DDL and
// TRUNCATE to their files, and USE itself.
#include <type_traits>
#include <variant>

#include "query/ddl/schema_common.h"
#include "query/statements/statements.h"

namespace keywise::query {
namespace {

Result<std::shared_ptr<PreparedStatement>> PrepareUse(
    const cql::UseStatement& statement) {
  std::string keyspace = statement.keyspace;
  return MakeSchemaStatement(
      [keyspace](ExecutionContext& ctx) -> Result<QueryResult> {
        if (ctx.engine->catalog().snapshot()->FindKeyspace(keyspace) ==
            nullptr) {
          return Status::Invalid("Keyspace '" + keyspace + "' does not exist");
        }
        if (ctx.client != nullptr) ctx.client->keyspace = keyspace;
        return QueryResult{SetKeyspaceResult{keyspace}, {}};
      },
      StatementKind::kUse);
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareSchemaStatement(
    const cql::Statement& statement, const PrepareContext& ctx) {
  return std::visit(
      [&](const auto& s) -> Result<std::shared_ptr<PreparedStatement>> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, cql::UseStatement>) {
          return PrepareUse(s);
        } else if constexpr (std::is_same_v<T, cql::CreateKeyspaceStatement>) {
          return PrepareCreateKeyspace(s);
        } else if constexpr (std::is_same_v<T, cql::AlterKeyspaceStatement>) {
          return PrepareAlterKeyspace(s);
        } else if constexpr (std::is_same_v<T, cql::DropKeyspaceStatement>) {
          return PrepareDropKeyspace(s);
        } else if constexpr (std::is_same_v<T, cql::CreateTableStatement>) {
          return PrepareCreateTable(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::AlterTableStatement>) {
          return PrepareAlterTable(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::DropTableStatement>) {
          return PrepareDropTable(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::TruncateStatement>) {
          return PrepareTruncate(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::CreateIndexStatement>) {
          return PrepareCreateIndex(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::DropIndexStatement>) {
          return PrepareDropIndex(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::CreateViewStatement>) {
          return PrepareCreateView(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::AlterViewStatement>) {
          return PrepareAlterView(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::DropViewStatement>) {
          return PrepareDropView(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::CreateTypeStatement>) {
          return PrepareCreateType(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::AlterTypeStatement>) {
          return PrepareAlterType(s, ctx);
        } else if constexpr (std::is_same_v<T, cql::DropTypeStatement>) {
          return PrepareDropType(s, ctx);
        } else {
          return Status::ServerError("not a schema statement");
        }
      },
      statement);
}

}  // namespace keywise::query
