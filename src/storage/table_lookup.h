// TableLookup: finds this node's TableDef for a Cassandra table id
// (TableDef::id, the uuid every node agrees on), as decoders of messages
// between nodes need: storage ids are per node and never travel.
//
// Contract: a TableLookup returns nullptr for an unknown id and must be
// safe to call from the thread that decodes. TablesById builds an index of
// one schema snapshot once; the lookup it returns is thread-safe and keeps
// the snapshot alive.
#pragma once

#include <functional>
#include <memory>

#include "common/uuid.h"
#include "schema/schema_snapshot.h"
#include "schema/table_def.h"

namespace keywise {

using TableLookup = std::function<TableDefPtr(const Uuid& id)>;

TableLookup TablesById(SchemaSnapshotPtr snapshot);

}  // namespace keywise
