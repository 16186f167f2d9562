// The JSON values of the cluster's etcd keys: a node's record, a table's
// tablet map and a node's load report. JSON keeps them readable with etcdctl and lets nodes
// of adjacent versions read each other's records (unknown fields are
// ignored, missing ones take their defaults).
//
// Contract: pure functions; decoding never trusts its input (ServerError
// "Corrupt cluster metadata ..." on anything malformed).
//
//   node:    {"host_id": "<uuid>", "listen_address": "127.0.0.2",
//             "rpc_address": "127.0.0.2", "native_port": 9042,
//             "storage_port": 7000, "dc": "datacenter1", "rack": "rack1",
//             "state": "normal", "release_version": "4.0.11"}
//   tablets: {"table_id": "<uuid>", "keyspace": "ks", "table": "t",
//             "last_tokens": [-1, 9223372036854775807], (one per tablet)
//             "replicas": [["<uuid>", "<uuid>"], ...],  (one per tablet)
//             "transitions": [{"tablet": 3, "stage": "write_both",
//                              "leaving": "<uuid>", "pending": "<uuid>",
//                              "id": "<uuid>"}]}
//            ("transitions" only while a tablet moves; tablet_map.h; a
//            nil uuid on one side adds or drops a replica; "id" absent in
//            maps written before transitions had ids).
//            Maps written before splits existed have "log2_count": k
//            instead of "last_tokens" (2^k even tablets); they are still
//            read. Versions before splits cannot read "last_tokens".
//   load:    {"host_id": "<uuid>", "window_ms": 10000,
//             "tables": {"<table uuid>": [{"first": -9223372036854775808,
//                 "last": -1, "replica": true, "bytes": 1048576,
//                 "ops": 120.5, "sample": [-4611686018427387904, ...]}]}}
//            (a node's load report; load_report.h)
#pragma once

#include <string>

#include "cluster/metadata/load_report.h"
#include "cluster/metadata/tablet_map.h"
#include "cluster/metadata/topology.h"
#include "common/status.h"

namespace keywise::cluster {

std::string EncodeNodeInfo(const NodeInfo& node);
Result<NodeInfo> DecodeNodeInfo(std::string_view json);

std::string EncodeTabletMap(const TabletMap& map);
Result<TabletMap> DecodeTabletMap(std::string_view json);

std::string EncodeLoadReport(const LoadReport& report);
Result<LoadReport> DecodeLoadReport(std::string_view json);

}  // namespace keywise::cluster
