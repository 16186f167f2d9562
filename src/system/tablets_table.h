// system.tablets: where every tablet of every table is, one row per tablet
// (a Keywise table after ScyllaDB's system.tablets, keyed for a client that
// knows a statement's keyspace and table):
//
//   keyspace_name text, table_name text, last_token bigint,
//   replicas frozen<list<uuid>>, table_id uuid,
//   PRIMARY KEY ((keyspace_name, table_name), last_token)
//
// A tablet holds the tokens after the previous row's last_token (from the
// minimum token for the first row) up to its own; `replicas` are the host
// ids that serve its reads, as system.peers' host_id names them. Clients
// route a partition to one of them (clients/, docs/drivers.md).
//
// Contract: pure builders; thread-safe. The caller (the cluster's
// metadata) rewrites a table's partition whenever its tablet map changes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "storage/partition_update.h"

namespace keywise::system {

struct TabletRow {
  int64_t last_token = 0;
  std::vector<Uuid> replicas;
};

// Replaces the partition of `keyspace`.`table_name` in system.tablets
// (`tablets`): a partition deletion at `timestamp` - 1, then one row per
// element of `rows` at `timestamp`. With no rows, only the deletion (a
// dropped table).
PartitionUpdate TabletsPartitionUpdate(const TableDefPtr& tablets,
                                       std::string_view keyspace,
                                       std::string_view table_name,
                                       const Uuid& table_id,
                                       const std::vector<TabletRow>& rows,
                                       int64_t timestamp, int32_t now_seconds);

}  // namespace keywise::system
