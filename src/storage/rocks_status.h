// Conversion of RocksDB statuses into Keywise Status values.
//
// Contract: storage-internal. Any RocksDB failure is a server error for CQL
// clients (code 0x0000), its text kept for the operator.
#pragma once

#include <rocksdb/status.h>

#include "common/status.h"

namespace keywise {

inline Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  return Status::ServerError("Storage error: " + s.ToString());
}

}  // namespace keywise
