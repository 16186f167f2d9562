#include "storage/table_lookup.h"

#include <map>
#include <utility>

namespace keywise {

TableLookup TablesById(SchemaSnapshotPtr snapshot) {
  auto index = std::make_shared<std::map<Uuid, TableDefPtr>>();
  for (const auto& [name, table] : snapshot->tables)
    (*index)[table->id] = table;
  return [index = std::move(index)](const Uuid& id) -> TableDefPtr {
    auto it = index->find(id);
    return it == index->end() ? nullptr : it->second;
  };
}

}  // namespace keywise
