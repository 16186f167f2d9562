// CREATE, ALTER and DROP KEYSPACE, with Cassandra 4's replication rules.
#include <set>
#include <string>
#include <utility>

#include "query/ddl/schema_common.h"
#include "schema/schema_snapshot.h"

namespace keywise::query {
namespace {

constexpr std::string_view kLocatorPackage = "org.apache.cassandra.locator.";
constexpr std::string_view kSimpleStrategy = "SimpleStrategy";
constexpr std::string_view kNetworkTopologyStrategy = "NetworkTopologyStrategy";
constexpr std::string_view kReplicationFactor = "replication_factor";

const std::set<std::string, std::less<>> kKeyspaceProperties = {
    "durable_writes", "replication"};

// AbstractReplicationStrategy.validateReplicationFactor.
Status ValidateReplicationFactor(const std::string& rf) {
  if (rf.find('/') != std::string::npos) {
    return Status::ConfigError(
        "Transient replication is disabled. Enable in cassandra.yaml to use.");
  }
  std::optional<int32_t> n = ParseJavaInt(rf);
  if (!n) return Status::ConfigError("For input string: \"" + rf + "\"");
  if (*n < 0) {
    return Status::ConfigError(
        "Replication factor must be non-negative, found " + rf);
  }
  return Status::OK();
}

// ReplicationFactor.fromString, which NetworkTopologyStrategy's constructor
// runs on every factor before any other check: only whether the numbers
// parse ("3/1" is two of them).
Status CheckFactorParses(const std::string& rf) {
  const size_t slash = rf.find('/');
  for (const std::string& part :
       slash == std::string::npos
           ? std::vector<std::string>{rf}
           : std::vector<std::string>{rf.substr(0, slash),
                                      rf.substr(slash + 1)}) {
    if (!ParseJavaInt(part)) {
      return Status::ConfigError("For input string: \"" + part + "\"");
    }
  }
  return Status::OK();
}

struct Replication {
  std::map<std::string, std::string> params;  // KeyspaceDef::replication
  std::vector<std::string> warnings;
};

// What keyspace replication is checked against: the nodes that own data,
// and the datacenters NetworkTopologyStrategy accepts (Cassandra's
// Datacenters.getValidDatacenters): the cluster's, or this node's alone.
struct ReplicationScope {
  int nodes = 1;
  std::set<std::string> datacenters;
};

ReplicationScope ScopeOf(const ExecutionContext& ctx) {
  ReplicationScope scope;
  if (ctx.schema != nullptr) {
    scope.nodes = ctx.schema->DataNodes("");
    scope.datacenters = ctx.schema->Datacenters();
  } else {
    scope.datacenters.emplace(ctx.local_datacenter);
  }
  return scope;
}

// NetworkTopologyStrategy.prepareOptions: the 'replication_factor'
// shorthand gives every valid datacenter not named that factor; on ALTER
// (`previous`: the keyspace's replication) the datacenters it had keep
// theirs; a factor of "0" drops the datacenter.
void ExpandDatacenters(PropertyMap* options,
                       const std::map<std::string, std::string>& previous,
                       const ReplicationScope& scope) {
  std::optional<std::string> factor;
  if (auto rf = options->find(std::string(kReplicationFactor));
      rf != options->end()) {
    factor = rf->second;
    options->erase(rf);
  }
  if (!factor && options->empty()) {
    // ALTER from SimpleStrategy to NetworkTopologyStrategy.
    if (auto rf = previous.find(std::string(kReplicationFactor));
        rf != previous.end()) {
      factor = rf->second;
    }
  } else if (factor) {
    for (const auto& [key, value] : previous) {
      if (key != kReplicationFactor && key != "class") {
        options->emplace(key, value);
      }
    }
  }
  if (factor) {
    for (const std::string& dc : scope.datacenters) options->emplace(dc, *factor);
  }
  std::erase_if(*options, [](const auto& e) { return e.second == "0"; });
}

// ReplicationParams.fromMap + validate: `options` includes 'class'.
// Warns, as SimpleStrategy.maybeWarnOnOptions does, when the factor is
// above the number of nodes.
Result<Replication> BuildReplication(
    PropertyMap options, const std::string& keyspace,
    const ReplicationScope& scope,
    const std::map<std::string, std::string>& previous = {}) {
  auto cls = options.find("class");
  if (cls == options.end()) {
    return Status::ConfigError("Missing replication strategy class");
  }
  std::string name = cls->second;
  options.erase(cls);
  std::string full = name.find('.') == std::string::npos
                         ? std::string(kLocatorPackage) + name
                         : name;
  std::string simple_name;
  if (full.compare(0, kLocatorPackage.size(), kLocatorPackage) == 0) {
    simple_name = full.substr(kLocatorPackage.size());
  }
  if (simple_name == "LocalStrategy") {
    return Status::Invalid(
        "Unable to use given strategy class: LocalStrategy is reserved for "
        "internal use.");
  }
  if (simple_name != kSimpleStrategy &&
      simple_name != kNetworkTopologyStrategy) {
    return Status::ConfigError("Unable to find replication strategy class '" +
                               full + "'");
  }
  Replication out;
  if (simple_name == kSimpleStrategy) {
    for (const auto& [key, value] : options) {
      if (key != kReplicationFactor) {
        return Status::ConfigError("Unrecognized strategy option {" + key +
                                   "} passed to SimpleStrategy for keyspace " +
                                   keyspace);
      }
    }
    auto rf = options.find(std::string(kReplicationFactor));
    if (rf == options.end()) {
      return Status::ConfigError(
          "SimpleStrategy requires a replication_factor strategy option.");
    }
    KW_RETURN_IF_ERROR(ValidateReplicationFactor(rf->second));
    const int32_t replicas = *ParseJavaInt(rf->second);
    if (replicas > scope.nodes) {
      out.warnings.push_back("Your replication factor " +
                             std::to_string(replicas) + " for keyspace " +
                             keyspace + " is higher than the number of nodes " +
                             std::to_string(scope.nodes));
    }
  } else {
    ExpandDatacenters(&options, previous, scope);
    // Cassandra's order: the factors parse (the strategy's constructor),
    // then the datacenters (validateExpectedOptions), then the factors'
    // values (validateOptions).
    for (const auto& [dc, value] : options) {
      KW_RETURN_IF_ERROR(CheckFactorParses(value));
    }
    if (options.empty()) {
      return Status::ConfigError(
          "Configuration for at least one datacenter must be present");
    }
    for (const auto& [dc, value] : options) {
      if (!scope.datacenters.contains(dc)) {
        return Status::ConfigError(
            "Unrecognized strategy option {" + dc +
            "} passed to NetworkTopologyStrategy for keyspace " + keyspace);
      }
    }
    for (const auto& [dc, value] : options) {
      KW_RETURN_IF_ERROR(ValidateReplicationFactor(value));
    }
  }
  out.params = std::move(options);
  out.params["class"] = full;
  return out;
}

struct KeyspaceAttributes {
  std::optional<PropertyMap> replication;
  std::optional<bool> durable_writes;
};

// KeyspaceAttributes.validate.
Result<KeyspaceAttributes> ReadAttributes(
    const std::vector<cql::Property>& properties) {
  KW_ASSIGN_OR_RETURN(SchemaProperties props,
                      SchemaProperties::From(properties));
  KW_RETURN_IF_ERROR(props.CheckKnown(kKeyspaceProperties));
  KeyspaceAttributes out;
  KW_ASSIGN_OR_RETURN(out.replication, props.GetMap("replication"));
  if (out.replication && !out.replication->empty() &&
      out.replication->count("class") == 0) {
    return Status::ConfigError("Missing replication strategy class");
  }
  KW_ASSIGN_OR_RETURN(out.durable_writes, props.GetBoolean("durable_writes"));
  return out;
}

Result<QueryResult> CreateKeyspace(const cql::CreateKeyspaceStatement& s,
                                   ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckModifiable(s.keyspace));
  KW_ASSIGN_OR_RETURN(KeyspaceAttributes attrs, ReadAttributes(s.options));
  if (!attrs.replication) {
    return Status::Invalid("Missing mandatory option 'replication'");
  }
  Catalog& catalog = ctx.engine->catalog();
  // Replicated system keyspaces always exist in Cassandra.
  if (catalog.snapshot()->FindKeyspace(s.keyspace) != nullptr ||
      IsReplicatedSystemKeyspace(s.keyspace)) {
    if (s.if_not_exists) return VoidQueryResult();
    return Status::AlreadyExists("Cannot add existing keyspace \"" +
                                 s.keyspace + "\"");
  }
  KW_ASSIGN_OR_RETURN(Replication replication,
                      BuildReplication(*attrs.replication, s.keyspace,
                                       ScopeOf(ctx)));
  KeyspaceDef def;
  def.name = s.keyspace;
  def.replication = std::move(replication.params);
  def.durable_writes = attrs.durable_writes.value_or(true);
  // Created here, or not at all (as CREATE TABLE: no CREATED for a
  // keyspace another statement created since the check above).
  Status st = catalog.CreateKeyspace(std::move(def), IfNotExists::kNo);
  if (st.code() == ErrorCode::kAlreadyExists && s.if_not_exists) {
    return VoidQueryResult();
  }
  if (st.code() == ErrorCode::kAlreadyExists) {
    return Status::AlreadyExists("Cannot add existing keyspace \"" +
                                 s.keyspace + "\"");
  }
  KW_RETURN_IF_ERROR(st);
  QueryResult result = SchemaChange("CREATED", s.keyspace);
  result.warnings = std::move(replication.warnings);
  return result;
}

int32_t TotalReplicas(const std::map<std::string, std::string>& params) {
  int32_t total = 0;
  for (const auto& [key, value] : params) {
    if (key == "class") continue;
    total += ParseJavaInt(value).value_or(0);
  }
  return total;
}

Result<QueryResult> AlterKeyspace(const cql::AlterKeyspaceStatement& s,
                                  ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(s.keyspace, "", Permission::kAlter));
  KW_RETURN_IF_ERROR(CheckModifiable(s.keyspace));
  KW_ASSIGN_OR_RETURN(KeyspaceAttributes attrs, ReadAttributes(s.options));
  Catalog& catalog = ctx.engine->catalog();
  KeyspaceDefPtr current = catalog.snapshot()->FindKeyspace(s.keyspace);
  if (current == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Keyspace '" + s.keyspace + "' doesn't exist");
  }
  KeyspaceDef def = *current;
  std::vector<std::string> warnings;
  if (attrs.replication && !attrs.replication->empty()) {
    KW_ASSIGN_OR_RETURN(Replication replication,
                        BuildReplication(*attrs.replication, s.keyspace,
                                         ScopeOf(ctx), current->replication));
    def.replication = std::move(replication.params);
    warnings = std::move(replication.warnings);
  }
  if (attrs.durable_writes) def.durable_writes = *attrs.durable_writes;
  if (def.replication == current->replication &&
      def.durable_writes == current->durable_writes) {
    return VoidQueryResult();  // nothing changed: no schema change event
  }
  if (TotalReplicas(def.replication) > TotalReplicas(current->replication)) {
    warnings.push_back(
        "When increasing replication factor you need to run a full (-full) "
        "repair to distribute the data.");
  }
  KW_RETURN_IF_ERROR(catalog.AlterKeyspace(std::move(def)));
  QueryResult result = SchemaChange("UPDATED", s.keyspace);
  result.warnings = std::move(warnings);
  return result;
}

Result<QueryResult> DropKeyspace(const cql::DropKeyspaceStatement& s,
                                 ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(s.keyspace, "", Permission::kDrop));
  KW_RETURN_IF_ERROR(CheckModifiable(s.keyspace));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr snapshot = catalog.snapshot();
  if (snapshot->FindKeyspace(s.keyspace) == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Keyspace '" + s.keyspace + "' doesn't exist");
  }
  std::vector<TableDefPtr> tables = TablesOfKeyspace(*snapshot, s.keyspace);
  KW_RETURN_IF_ERROR(catalog.DropKeyspace(s.keyspace, IfExists(s.if_exists)));
  // The catalog no longer names these tables, so nothing can write to them;
  // removing their data keeps a re-created table empty and frees space.
  for (const TableDefPtr& t : tables) {
    KW_RETURN_IF_ERROR(ctx.engine->DeleteTableData(t->storage_id));
  }
  return SchemaChange("DROPPED", s.keyspace);
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareCreateKeyspace(
    const cql::CreateKeyspaceStatement& statement) {
  return MakeSchemaStatement([statement](ExecutionContext& ctx) {
    return CreateKeyspace(statement, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareAlterKeyspace(
    const cql::AlterKeyspaceStatement& statement) {
  return MakeSchemaStatement([statement](ExecutionContext& ctx) {
    return AlterKeyspace(statement, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareDropKeyspace(
    const cql::DropKeyspaceStatement& statement) {
  return MakeSchemaStatement([statement](ExecutionContext& ctx) {
    return DropKeyspace(statement, ctx);
  });
}

}  // namespace keywise::query
