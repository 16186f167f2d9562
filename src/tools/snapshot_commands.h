// `keywise admin` snapshot commands (docs/security.md, 6.3), over CQL to
// one node through system_views.snapshots, printing nodetool's lines:
//
//   snapshot [KEYSPACE [TABLE]] [--tag T] [--skip-flush]
//       every table of KEYSPACE (of every non-system keyspace without
//       one), or TABLE only, in one checkpoint; the default tag is the
//       current time in milliseconds
//   listsnapshots
//   clearsnapshot (--tag T | --all) [KEYSPACE...]
//   restore DIR [--keyspace KS [--table T]]   (tools/restore_command.h)
//
// Contract: IsSnapshotCommand names the commands; RunSnapshotCommand
// connects, runs one, prints to stdout and returns the exit status (0; 1
// when the node cannot be reached or answers an error; 2 for bad
// arguments), errors on stderr.
#pragma once

#include <string>
#include <vector>

#include "tools/credential_flags.h"
#include "tools/tls_flags.h"

namespace keywise {

struct SnapshotFlags {
  std::string tag;
  bool skip_flush = false;
  bool all = false;
  std::string keyspace;  // restore
  std::string table;     // restore
};

bool IsSnapshotCommand(const std::string& action);

int RunSnapshotCommand(const std::string& action,
                       const std::vector<std::string>& arguments,
                       const SnapshotFlags& flags, const std::string& host,
                       int port, const CredentialFlags& credentials,
                       const TlsFlags& tls);

// Bytes as Cassandra's FileUtils.stringifyFileSize prints them: "0 bytes",
// "1.5 KiB", "12.34 MiB" (two decimals at most, trailing zeros dropped).
std::string FileSizeText(double bytes);

}  // namespace keywise
