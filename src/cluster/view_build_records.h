// The view build records in etcd: one key per node under a view's prefix
// (ClusterKeys::ViewBuildPrefix), written by a node once it has backfilled
// a new materialized view, index or key change from its own base data
// (views/view_builder.h's barrier). A view is marked built once every data
// node has written its record; after that, or once the view is dropped,
// its records serve nothing and are swept.
//
// Contract: thread-safe (each call is a few etcd requests).
#pragma once

#include "cluster/etcd/etcd_client.h"
#include "cluster/metadata/cluster_keys.h"
#include "cluster/metadata/topology.h"
#include "schema/schema_snapshot.h"

namespace keywise::cluster {

// Records that node `self` backfilled `view`; OK when every data node of
// `topology` has, else ServerError naming how many still build.
Status RecordViewBackfilled(EtcdClient* etcd, const ClusterKeys& keys,
                            const TableDef& view, const Uuid& self,
                            const Topology& topology);

// Deletes the records of views that `schema` shows built, or no longer
// has. A view created after `schema` was taken has no records yet or, if
// they are swept, the nodes still waiting write theirs again at their
// next barrier call.
Status SweepViewBuildRecords(EtcdClient* etcd, const ClusterKeys& keys,
                             const SchemaSnapshot& schema);

}  // namespace keywise::cluster
