// `keywise admin` commands that ask one node, over CQL, what nodetool asks
// Cassandra over JMX (docs/admin.md), printed as nodetool prints them:
//
//   info                               the node: id, load, uptime, memory,
//                                      data center, rack, block cache
//   describecluster                    name, partitioner, schema versions
//   tablestats [KEYSPACE[.TABLE]]      per keyspace and table: requests,
//                                      mean latencies, space used
//   tablehistograms KEYSPACE TABLE     latency percentiles of a table
//   (or KEYSPACE.TABLE)
//   proxyhistograms                    coordinator latency percentiles
//   toppartitions KEYSPACE TABLE [MS]  the partitions read and written most
//                                      while sampling MS milliseconds
//   settraceprobability P | gettraceprobability
//
// Every figure comes from the node's system tables (system.local,
// system.peers, system_views.metrics, top_partitions, settings), so the
// commands work on one node and on any node of a cluster.
//
// Contract: IsNodeCommand names the commands; RunNodeCommand connects to
// host:port, runs one, prints to stdout and returns the exit status (0;
// 1 when the node cannot be reached or answers an error; 2 for bad
// arguments), errors on stderr.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client/session.h"
#include "tools/credential_flags.h"
#include "tools/tls_flags.h"

namespace keywise {

bool IsNodeCommand(const std::string& action);

// A session to the node at host:port for an admin command; null, with
// "error: cannot connect to ..." on stderr, when it cannot connect.
std::unique_ptr<client::Session> ConnectToNode(
    const std::string& host, int port, const CredentialFlags& credentials,
    const TlsFlags& tls);

int RunNodeCommand(const std::string& action,
                   const std::vector<std::string>& arguments,
                   const std::string& host, int port,
                   const CredentialFlags& credentials, const TlsFlags& tls);

}  // namespace keywise
