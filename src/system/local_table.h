// system.local: the one row ('local') describing this node, as Cassandra
// 4.0 writes it (SystemKeyspace.persistLocalMetadata and friends).
//
// Contract: pure builders plus one read; thread-safe. The node's identity
// (host_id, tokens, gossip generation) lives in the row itself, so it stays
// stable for the life of the data directory, as in Cassandra.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/uuid.h"
#include "storage/engine.h"

namespace keywise::system {

// What the node reports about itself. Defaults are a fresh Cassandra 4.0
// node's.
struct LocalNodeInfo {
  std::string cluster_name = "Test Cluster";
  std::string listen_address = "127.0.0.1";
  std::string broadcast_address;  // empty = listen_address
  std::string rpc_address = "127.0.0.1";
  int32_t native_port = 9042;   // rpc_port
  int32_t storage_port = 7000;  // listen_port, broadcast_port
  std::string data_center = "datacenter1";
  std::string rack = "rack1";
  std::string release_version = "4.0.11";
  std::string cql_version = "3.4.5";
  std::string native_protocol_version = "4";  // ProtocolVersion.CURRENT
  std::string partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  int num_tokens = 16;  // only used the first time (tokens are persisted)
  // Rows of system_views.settings (name -> value as Cassandra prints it),
  // replaced whole at every Install.
  std::map<std::string, std::string> settings;
};

// The identity stored in system.local, all absent on a fresh data dir.
struct LocalIdentity {
  std::optional<Uuid> host_id;
  std::vector<std::string> tokens;  // decimal Murmur3 tokens
  std::optional<int32_t> gossip_generation;
  int64_t max_timestamp = kNoTimestamp;  // newest cell or marker
};

Result<LocalIdentity> ReadLocalIdentity(Engine& engine, const TableDef& local);

// `n` tokens evenly spaced over the Murmur3 ring, as decimal text.
std::vector<std::string> EvenTokens(int n);

// The full 'local' row. `identity` must have host_id, tokens and
// gossip_generation set.
PartitionUpdate LocalRowUpdate(const TableDefPtr& local,
                               const LocalNodeInfo& info,
                               const LocalIdentity& identity,
                               const Uuid& schema_version, int64_t timestamp);

// system_views.settings: one row per setting.
PartitionUpdate SettingsUpdate(const TableDefPtr& settings_table,
                               const std::string& name,
                               const std::string& value, int64_t timestamp);

// Only tokens, replacing the whole set (a cluster node advertises the
// tokens its tablets end at).
PartitionUpdate LocalTokensUpdate(const TableDefPtr& local,
                                  const std::vector<std::string>& tokens,
                                  int64_t timestamp, int32_t now_seconds);

// truncated_at: when this node last truncated table `table_id`, as unix
// milliseconds (a bigint in the map's blob value; Cassandra also keeps a
// commit log position there).
PartitionUpdate TruncationUpdate(const TableDefPtr& local,
                                 const Uuid& table_id,
                                 int64_t truncated_at_millis,
                                 int64_t timestamp);
// Every table's last truncation on this node (table id -> unix millis).
Result<std::map<Uuid, int64_t>> ReadTruncationTimes(Engine& engine,
                                                    const TableDef& local);

// Only schema_version.
PartitionUpdate SchemaVersionUpdate(const TableDefPtr& local,
                                    const Uuid& schema_version,
                                    int64_t timestamp);

}  // namespace keywise::system
