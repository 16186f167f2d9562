#include "storage/message_coding.h"

#include <utility>

#include "storage/engine.h"

namespace keywise::message_coding {

Status Malformed(std::string_view message, std::string_view what) {
  return Status::ServerError("Malformed " + std::string(message) + ": " +
                             std::string(what));
}

Result<TableDefPtr> GetTable(std::string_view* in, const TableLookup& tables,
                             std::string_view message) {
  if (in->size() < 16) return Malformed(message, "table id");
  Uuid id = *Uuid::FromBytes(in->substr(0, 16));
  in->remove_prefix(16);
  TableDefPtr table = tables(id);
  if (table == nullptr)
    return Status::ServerError("Unknown table id " + id.ToString());
  return table;
}

Status GetPartitionKey(std::string_view* in, const TableDef& table,
                       std::string_view message, std::string* serialized,
                       std::vector<std::string>* components) {
  std::string_view b;
  if (!GetLengthPrefixed(in, &b)) return Malformed(message, "partition key");
  auto split = SplitPartitionKey(b, table.PartitionKeySize());
  if (!split.ok()) return Malformed(message, split.status().message());
  std::string check;
  Status st = ValidatePartitionKey(table, *split, &check);
  if (!st.ok()) return Malformed(message, st.message());
  if (check != b) return Malformed(message, "partition key");
  serialized->assign(b);
  *components = std::move(split).value();
  return Status::OK();
}

}  // namespace keywise::message_coding
