// Compares and operations of an etcd transaction: if every compare holds,
// the success operations run, otherwise the failure operations; all in one
// revision.
//
// Contract: plain value types. etcd refuses a transaction that writes one
// key twice or holds more than --max-txn-ops (default 128) operations.
// Compares on an absent key see version, create_revision and mod_revision
// 0 (the "create if absent" test is CreateRevision(key, kEqual, 0)).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/etcd/etcd_types.h"
#include "cluster/etcd/key_range.h"

namespace keywise::cluster {

enum class CompareTarget { kValue, kVersion, kCreateRevision, kModRevision };
enum class CompareOp { kEqual, kNotEqual, kLess, kGreater };

// "target(key) op operand"; the operand is `value` for kValue, `number`
// for the others.
struct Compare {
  std::string key;
  CompareTarget target = CompareTarget::kVersion;
  CompareOp op = CompareOp::kEqual;
  std::string value;
  int64_t number = 0;

  static Compare Value(std::string key, CompareOp op, std::string value) {
    return {std::move(key), CompareTarget::kValue, op, std::move(value), 0};
  }
  static Compare Version(std::string key, CompareOp op, int64_t version) {
    return {std::move(key), CompareTarget::kVersion, op, {}, version};
  }
  static Compare CreateRevision(std::string key, CompareOp op, int64_t rev) {
    return {std::move(key), CompareTarget::kCreateRevision, op, {}, rev};
  }
  static Compare ModRevision(std::string key, CompareOp op, int64_t rev) {
    return {std::move(key), CompareTarget::kModRevision, op, {}, rev};
  }
};

enum class TxnOpKind { kPut, kDelete, kRange };

struct TxnOp {
  TxnOpKind kind = TxnOpKind::kRange;
  KeyRange range;                  // kPut: a single key
  std::string value;               // kPut only
  LeaseId lease = LeaseId::kNone;  // kPut only

  static TxnOp Put(std::string key, std::string value,
                   LeaseId lease = LeaseId::kNone) {
    return {TxnOpKind::kPut, KeyRange::Single(std::move(key)), std::move(value),
            lease};
  }
  static TxnOp Delete(KeyRange range) {
    return {TxnOpKind::kDelete, std::move(range), {}, LeaseId::kNone};
  }
  static TxnOp Range(KeyRange range) {
    return {TxnOpKind::kRange, std::move(range), {}, LeaseId::kNone};
  }
};

// The result of one operation of the branch that ran.
struct TxnOpResult {
  TxnOpKind kind = TxnOpKind::kRange;
  std::vector<KeyValue> kvs;  // kRange: the keys read, in key order
  int64_t deleted = 0;        // kDelete: keys deleted
};

struct TxnResult {
  bool succeeded = false;  // every compare held: the success branch ran
  int64_t revision = 0;    // store revision after the transaction
  std::vector<TxnOpResult> results;  // one per operation of that branch
};

}  // namespace keywise::cluster
