// FragmentMergeOperator: the RocksDB merge operator that reconciles stored
// values with Cassandra's rules (see row_fragment.h), so writes never read.
//
// Contract: thread-safe (RocksDB calls it from any thread). Values are either
// RowFragments (rows, partition headers) or range deletions; a malformed
// operand is reported to RocksDB as a merge failure (Corruption) rather than
// silently dropped.
#pragma once

#include <memory>

#include <rocksdb/merge_operator.h>

#include "storage/retention.h"

namespace keywise {

std::shared_ptr<rocksdb::MergeOperator> NewFragmentMergeOperator(
    const RetentionRegistry* retention);

}  // namespace keywise
