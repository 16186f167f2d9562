// What the schema statements (USE, keyspace and table DDL, TRUNCATE) share:
// the prepared statement type, Cassandra 4's name and system keyspace
// rules, type resolution and table option parsing.
//
// Contract: internal to src/query's schema_*.cc, keyspace_*.cc and
// table_*.cc files. Prepare* functions only check what Cassandra checks
// while parsing and preparing (the session keyspace, duplicate columns,
// ...); everything that depends on the schema happens in Execute, against
// the catalog at that moment. DDL statements keep `table` null so the
// QueryProcessor never re-prepares them.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "cql/ast_ddl.h"
#include "query/ddl/schema_properties.h"
#include "query/exec/schema_service.h"
#include "query/statements/prepared_statement.h"
#include "query/statements/statements.h"
#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise::query {

// A prepared schema statement: Execute runs `run`, which captures the raw
// statement by value.
class SchemaStatement : public PreparedStatement {
 public:
  using Run = std::function<Result<QueryResult>(ExecutionContext&)>;
  SchemaStatement(StatementKind statement_kind, Run run)
      : run_(std::move(run)) {
    kind = statement_kind;
  }
  // In a cluster a DDL that lost a race with another node's runs again on
  // the newer schema (its IF [NOT] EXISTS and name checks see it).
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    constexpr int kAttempts = 8;
    for (int attempt = 1;; ++attempt) {
      Result<QueryResult> result = run_(ctx);
      if (result.ok() || ctx.schema == nullptr || attempt == kAttempts ||
          !IsSchemaConflict(result.status())) {
        return result;
      }
      BackOffAfterConflict(attempt);
      KW_RETURN_IF_ERROR(ctx.schema->CatchUp());
    }
  }

 private:
  Run run_;
};

inline std::shared_ptr<PreparedStatement> MakeSchemaStatement(
    SchemaStatement::Run run, StatementKind kind = StatementKind::kSchema) {
  return std::make_shared<SchemaStatement>(kind, std::move(run));
}

QueryResult VoidQueryResult();
// change: "CREATED", "UPDATED", "DROPPED"; name empty for a keyspace.
QueryResult SchemaChange(std::string change, std::string keyspace,
                         std::string table = "");

// Cassandra's SchemaConstants.isValidName: 1..48 word characters.
inline constexpr size_t kNameLength = 48;
bool IsValidName(std::string_view name);
// Invalid "Keyspace name must not be empty, more than 48 characters long,
// or contain non-alphanumeric-underscore characters (got 'x')".
Status CheckKeyspaceName(std::string_view keyspace);
// ConfigError, Cassandra's TableMetadata.validate wording.
Status CheckTableName(std::string_view table);

// The permission a statement needs (Cassandra's authorize step).
enum class Permission : uint8_t { kCreate, kAlter, kDrop };
// Unauthorized errors for schema changes to system keyspaces, as
// ClientState.ensureKeyspacePermission / ensureTablePermission raise them
// (even with authentication disabled). `table` empty: keyspace level.
Status CheckPermission(std::string_view keyspace, std::string_view table,
                       Permission permission);
// Execute-time: Invalid "System keyspace 'x' is not user-modifiable" and
// "Virtual keyspace 'x' is not user-modifiable", then CheckKeyspaceName.
Status CheckModifiable(std::string_view keyspace);
// system_auth, system_distributed, system_traces.
bool IsReplicatedSystemKeyspace(std::string_view keyspace);

// The keyspace a table name refers to: its own, else the session's.
// Invalid "No keyspace has been specified. USE a keyspace, or explicitly
// specify keyspace.tablename".
Result<std::string> KeyspaceOf(const PrepareContext& ctx,
                               const cql::QualifiedName& name);
// `ks.t` or `t`, as written (Cassandra's QualifiedName.toString).
std::string AsWritten(const cql::QualifiedName& name);

// A type from the AST, its user types looked up in `keyspace` of `schema`:
// Invalid "Unknown type ks.name", or the message for a user type of
// another keyspace. ResolveFieldType is for a field of CREATE/ALTER TYPE;
// ResolveType for a column, which also refuses a non-frozen user type
// holding non-frozen collections.
Result<CqlTypePtr> ResolveFieldType(const cql::TypeName& type,
                                    const std::string& keyspace,
                                    const SchemaSnapshot& schema);
Result<CqlTypePtr> ResolveType(const cql::TypeName& type,
                               const std::string& keyspace,
                               const SchemaSnapshot& schema);

// Table options (Cassandra's TableAttributes) applied over `base`:
// default_time_to_live, gc_grace_seconds, comment and versions go to their
// fields, every other Cassandra 4 option is validated loosely and kept as
// CQL text in `extra`. Unknown names are SyntaxError "Unknown property
// 'x'"; out-of-range values ConfigError. `altering`: ALTER TABLE WITH.
enum class OptionsUse : uint8_t { kCreate, kAlter };
Result<TableOptions> BuildTableOptions(const SchemaProperties& properties,
                                       TableOptions base, OptionsUse use);

// How long CREATE INDEX / MATERIALIZED VIEW and a key change wait for their
// backfill before returning while it goes on (half the default
// request_timeout_in_ms).
inline constexpr std::chrono::seconds kBackfillWait{5};

// ALTER TABLE ... WITH PRIMARY KEY / CANCEL PRIMARY KEY CHANGE
// (table_key_change.cc), run by ALTER TABLE once it found `table`.
Result<QueryResult> ChangePrimaryKey(const cql::AlterTableStatement& s,
                                     const TableDef& table,
                                     ExecutionContext& ctx);
Result<QueryResult> CancelKeyChange(const TableDef& table,
                                    ExecutionContext& ctx);

// One Prepare* per statement kind.
Result<std::shared_ptr<PreparedStatement>> PrepareCreateKeyspace(
    const cql::CreateKeyspaceStatement& statement);
Result<std::shared_ptr<PreparedStatement>> PrepareAlterKeyspace(
    const cql::AlterKeyspaceStatement& statement);
Result<std::shared_ptr<PreparedStatement>> PrepareDropKeyspace(
    const cql::DropKeyspaceStatement& statement);
Result<std::shared_ptr<PreparedStatement>> PrepareCreateTable(
    const cql::CreateTableStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareAlterTable(
    const cql::AlterTableStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareDropTable(
    const cql::DropTableStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareTruncate(
    const cql::TruncateStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareCreateIndex(
    const cql::CreateIndexStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareDropIndex(
    const cql::DropIndexStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareCreateView(
    const cql::CreateViewStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareAlterView(
    const cql::AlterViewStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareDropView(
    const cql::DropViewStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareCreateType(
    const cql::CreateTypeStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareAlterType(
    const cql::AlterTypeStatement& statement, const PrepareContext& ctx);
Result<std::shared_ptr<PreparedStatement>> PrepareDropType(
    const cql::DropTypeStatement& statement, const PrepareContext& ctx);

}  // namespace keywise::query
